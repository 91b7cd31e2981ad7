"""SafeStrings that markup builds itself, without calling str.__new__.

Baked calls, escape() and SafeString(str) lay the object out directly: the
characters inside the object, as CPython lays out an exact str, or (for long
escaped text) in a block of their own, as it lays out a subclass instance.
These tests hold both to CPython's: every str operation gives the same answer
as on a plain str, and sizes match one of CPython's layouts. The whole set also runs in a child
interpreter under the debug allocator, which aborts if memory is freed
through another allocator than the one that allocated it, or written past its
end.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import re
import subprocess
import sys
import textwrap

import markupsafe
import pytest

from markup import SafeString, baked, escape, h, render

import conftest

# One of each storage CPython uses: ASCII, Latin-1, two bytes, four bytes.
TEXTS = [
    "plain ascii",
    "",
    "caf\xe9 cr\xe8me",
    "\u20ac 12 \u2013 \u65e5\u672c",
    "\U0001f600 smile \u20ac",
]


class PlainSubclass(str):
    __slots__ = ()


@baked
def paragraph(text):
    return h.P({"class": "t"}, text)


def made_by_markup(text: str) -> list[SafeString]:
    """SafeStrings for `text` from every path that builds them directly."""
    return [paragraph(text), escape(text), SafeString(text)]


def check_behaves_as_str(value: SafeString) -> None:
    plain = str(value)
    assert type(plain) is str
    assert type(value) is SafeString
    assert value == plain and plain == value
    assert hash(value) == hash(plain)
    assert len(value) == len(plain)
    assert list(value) == list(plain)
    assert value[1:-1] == plain[1:-1]
    assert value.encode("utf-8") == plain.encode("utf-8")
    assert value.encode("utf-16") == plain.encode("utf-16")
    assert value.isascii() == plain.isascii()
    assert value.upper() == plain.upper()
    assert value.find("p") == plain.find("p")
    assert re.findall(r"\w+", value) == re.findall(r"\w+", plain)
    assert json.dumps(value) == json.dumps(plain)
    assert {plain: 1}[value] == 1 and {value: 1}[plain] == 1
    assert f"{value}" == plain
    assert "".join([value, value]) == plain + plain
    assert pickle.loads(pickle.dumps(value)) == value
    assert type(pickle.loads(pickle.dumps(value))) is SafeString
    assert copy.copy(value) == value
    assert value.__html__() is value
    with pytest.raises(TypeError):
        sys.intern(value)
    # It takes the memory of the same text laid out as CPython lays out an
    # exact str (characters inside the object) or a subclass instance
    # (characters in a block of their own), plus the UTF-8 that markup may
    # keep beside a non-ASCII fragment.
    layouts = {plain.__sizeof__(), PlainSubclass(plain).__sizeof__()}
    utf8_kept = len(plain.encode("utf-8")) + 1 if not plain.isascii() else 0
    assert {value.__sizeof__(), value.__sizeof__() - utf8_kept} & layouts


@pytest.mark.parametrize("text", TEXTS)
def test_directly_built_safestring_behaves_as_str(text):
    for value in made_by_markup(text):
        check_behaves_as_str(value)


@pytest.mark.parametrize("text", TEXTS)
def test_nested_fragment_is_inserted_by_its_utf8(text):
    inner = paragraph(text)
    outer = paragraph(inner)
    assert outer == f'<p class="t">{inner}</p>'
    assert render(h.Div(inner)) == f"<div>{inner}</div>"


def test_large_fragment_of_every_kind():
    for text in TEXTS:
        big = text * 2000  # beyond the size whose UTF-8 is kept
        value = paragraph(big)
        assert value == f'<p class="t">{escape(big)}</p>'
        check_behaves_as_str(value)
        # long text with something to escape: escaped into its own storage
        escaped = escape(big + " <&> \"'")
        assert escaped == str(markupsafe.escape(big + " <&> \"'"))
        check_behaves_as_str(escaped)


def test_layout_under_the_debug_allocator():
    """The checks above in a child under PYTHONMALLOC=debug."""
    here = os.path.dirname(os.path.abspath(__file__))
    script = textwrap.dedent(
        f"""
        import gc, sys
        sys.path.insert(0, {here!r})
        import test_safestring_layout as t
        for text in t.TEXTS:
            for value in t.made_by_markup(text):
                t.check_behaves_as_str(value)
            t.test_nested_fragment_is_inserted_by_its_utf8(text)
        t.test_large_fragment_of_every_kind()
        values = [t.paragraph(text * n) for text in t.TEXTS for n in (1, 50, 3000)]
        del values
        gc.collect()
        print("ok")
        """
    )
    env = dict(os.environ, PYTHONMALLOC="debug")
    proc = subprocess.run(
        [*conftest.PYTHON, "-X", "dev", "-c", script], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok"
