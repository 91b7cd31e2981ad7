"""SafeString and escape(): compatible with markupsafe.Markup and
markupsafe.escape, so values move between markup, Jinja2 and markupsafe
without being escaped twice or not at all."""

import pickle

import markupsafe
import pytest
from conftest import HOSTILE_VALUES, value_id

from markup import SafeString, escape, h, render

INPUTS = HOSTILE_VALUES + [
    None,
    True,
    b"<bytes>",
    ["<list>"],
    {"<k>": "'v'"},
    "\ud800 lone surrogate <",
    "\udfff",
    "&" * 1000,
    "clean text, nothing to escape",
    "\x00",
    "<" * 17 + ">" * 33 + "é" * 5,
]


class WithHtml:
    def __html__(self):
        return "<em>trusted</em>"

    def __str__(self):
        return "<untrusted>"


class StrSub(str):
    pass


@pytest.mark.parametrize("value", INPUTS + [WithHtml(), StrSub("<s>")], ids=value_id)
def test_escape_equals_markupsafe(value):
    ours = escape(value)
    theirs = markupsafe.escape(value)
    assert type(ours) is SafeString
    assert str(ours) == str(theirs)


def test_escape_every_ascii_and_some_unicode():
    for cp in list(range(0x80)) + [0xA0, 0x2028, 0xFFFD, 0x1F389]:
        ch = chr(cp) * 3
        assert escape(ch) == markupsafe.escape(ch), cp


def test_escape_returns_safe_strings_unchanged():
    s = SafeString("<b>")
    assert escape(s) is s
    m = markupsafe.Markup("<i>")
    assert escape(m) == "<i>" and type(escape(m)) is SafeString


def test_safe_string_has_html():
    s = SafeString("<b>x</b>")
    assert isinstance(s, str)
    assert s.__html__() is s
    assert markupsafe.escape(s) == "<b>x</b>"
    assert markupsafe.Markup(s) == "<b>x</b>"


def test_safe_string_trusts_html_objects():
    assert SafeString(WithHtml()) == "<em>trusted</em>"
    assert SafeString(markupsafe.Markup("<i>")) == "<i>"
    assert SafeString() == ""
    assert SafeString(3) == "3"


def test_safe_string_repr():
    assert repr(SafeString("<a>")) == "SafeString('<a>')"

    class Sub(SafeString):
        pass

    assert repr(Sub("x")) == "Sub('x')"


def test_safe_string_concatenation_escapes_the_plain_side():
    s = SafeString("<b>")
    assert s + "<i>" == "<b>&lt;i&gt;" and type(s + "<i>") is SafeString
    assert "<i>" + s == "&lt;i&gt;<b>" and type("<i>" + s) is SafeString
    assert s + SafeString("<u>") == "<b><u>"
    assert s + WithHtml() == "<b><em>trusted</em>"
    # the same as markupsafe.Markup
    m = markupsafe.Markup("<b>")
    assert str(s + "<&>") == str(m + "<&>")
    assert str("<&>" + s) == str("<&>" + m)
    with pytest.raises(TypeError):
        s + 3


def test_safe_string_subclass_renders_verbatim():
    class Sub(SafeString):
        pass

    assert render(h.P(Sub("<b>"))) == "<p><b></p>"
    assert type(escape(Sub("<b>"))) is SafeString


def test_escape_classmethod():
    assert SafeString.escape("<") == "&lt;" and type(SafeString.escape("<")) is SafeString


def test_safe_string_pickles():
    s = SafeString("<b>")
    back = pickle.loads(pickle.dumps(s))
    assert back == s and type(back) is SafeString


def test_safe_string_in_jinja2(jinja):
    assert jinja("{{ a }}{{ b }}", a=SafeString("<b>"), b="<b>") == "<b>&lt;b&gt;"
