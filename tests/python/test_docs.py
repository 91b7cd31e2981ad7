"""The examples of the documentation run as doctests, so the pages cannot
drift from what markup really does.

Each page is one doctest: its examples share names from top to bottom, as a
reader would type them. Markdown code fences are turned into blank lines
first, so that a closing ``` is not read as expected output.
"""

import doctest
import re
from pathlib import Path

import pytest

import markup

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = ["index.md", "guide.md", "safety.md", "python-api.md", "jinja.md"]

_FENCE = re.compile(r"^[ \t]*(```|~~~).*$", re.MULTILINE)


class MarkdownDocTestParser(doctest.DocTestParser):
    """Reads doctests from Markdown: fence lines end an example's output."""

    def parse(self, string, name="<string>"):
        return super().parse(_FENCE.sub("", string), name)


@pytest.mark.parametrize("page", PAGES)
def test_page_examples(page):
    path = DOCS / page
    failures, attempted = doctest.testfile(
        str(path),
        module_relative=False,
        globs={"markup": markup},
        parser=MarkdownDocTestParser(),
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        report=True,
        encoding="utf-8",
    )
    assert attempted > 0, f"{page} has no examples"
    assert failures == 0, f"{failures} of {attempted} examples in docs/{page} failed (see above)"


def test_fences_end_expected_output():
    # Without the parser, a closing fence would count as expected output.
    text = ">>> 1 + 1\n2\n```\n"
    (example,) = MarkdownDocTestParser().get_examples(text)
    assert example.want == "2\n"
    (plain,) = doctest.DocTestParser().get_examples(text)
    assert plain.want == "2\n```\n"
