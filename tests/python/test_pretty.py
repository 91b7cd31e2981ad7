"""pretty(): block-level elements on their own lines, and nothing a browser
would display differently. Checked two ways: the only bytes added are line
breaks and indentation (removing them gives render()'s output back), and
html5lib reads the same tree from both once whitespace-only text is set
aside."""

import re

import html5lib
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from markup import Comment, SafeString, h, pretty, render


def added_whitespace_removed(text):
    return re.sub(r"\n *", "", text)


BLOCK_LEVEL = set(
    """html head body div section article aside header footer nav main ul ol li dl dt dd
    table caption thead tbody tfoot tr td th p h1 h2 h3 h4 h5 h6 pre hr meta link title
    style script form fieldset figure blockquote details""".split()
)


def tree_without_whitespace_text(html):
    """html5lib's tree as nested tuples, with the whitespace a browser does
    not display set aside: at the start or end of a text that touches a
    block-level boundary (the start or end of a block-level parent, or a
    block-level sibling). Whitespace between inline content is kept, so
    a line break added between two inline elements would show."""
    doc = html5lib.parse(html, namespaceHTMLElements=False)

    def is_block(node):
        return not isinstance(node.tag, str) or node.tag in BLOCK_LEVEL  # comments too

    def walk(el):
        seq = [el.text]
        for child in el:
            seq += [child, child.tail]
        out = [str(el.tag), sorted(el.attrib.items())]
        parent_is_block = is_block(el)
        for i, item in enumerate(seq):
            if i % 2 == 1:
                out.append(walk(item))
                continue
            text = item or ""
            if is_block(seq[i - 1]) if i > 0 else parent_is_block:
                text = text.lstrip()
            if is_block(seq[i + 1]) if i + 1 < len(seq) else parent_is_block:
                text = text.rstrip()
            if text:
                out.append(text)
        return tuple(out)

    return walk(doc.getroot() if hasattr(doc, "getroot") else doc)


PAGE = h.HtmlDocument(
    {"lang": "en"},
    h.Head(h.Meta(charset="utf-8"), h.Title("Tea & cake"), h.Style("p > b { color: red }")),
    h.Body(
        h.Header(h.Nav(h.A({"href": "/"}, "Home"), " | ", h.B("Shop"))),
        h.Main(
            h.H1("Tea <&> cake"),
            h.Ul(h.Li("one"), h.Li(h.P("two"), h.Ul(h.Li("three")))),
            h.Pre(h.Div(h.P("  keep\n  this  "))),
            h.Textarea("a\n b"),
            Comment("between"),
            h.Table(h.Tbody(h.Tr(h.Td("1"), h.Td(h.Div(h.P("2")))))),
            h.Svg(h.G(h.Circle(r=1), h.Text("t"))),
            h.Script("if (a < b) { go() }"),
        ),
    ),
)


def test_pretty_page_layout():
    out = pretty(PAGE)
    assert isinstance(out, SafeString)
    lines = out.split("\n")
    assert lines[:4] == [
        "<!doctype html>",
        '<html lang="en">',
        "  <head>",
        '    <meta charset="utf-8">',
    ]
    assert '      <nav><a href="/">Home</a> | <b>Shop</b></nav>' in lines
    assert "        <li>" in lines and "          <p>two</p>" in lines
    assert lines[-1] == "</html>"


def test_pretty_adds_only_line_breaks_and_indentation():
    page = h.Body(h.Div(h.H1("a"), h.Ul(h.Li("b"), h.Li(h.P("c"), h.Ol(h.Li("d")))), h.P("e")))
    for indent in (0, 1, 3):
        out = pretty(page, indent=indent)
        assert out.count("\n") == 14
        assert added_whitespace_removed(out) == render(page)


def test_pretty_leaves_verbatim_and_inline_content_alone():
    out = pretty(PAGE)
    for piece in (
        "<pre><div><p>  keep\n  this  </p></div></pre>",
        "<textarea>a\n b</textarea>",
        '<svg><g><circle r="1"></circle><text>t</text></g></svg>',
        "<script>if (a < b) { go() }</script>",
        "<style>p > b { color: red }</style>",
        '<nav><a href="/">Home</a> | <b>Shop</b></nav>',
    ):
        assert piece in out


def test_pretty_reads_as_the_same_tree():
    assert tree_without_whitespace_text(pretty(PAGE)) == tree_without_whitespace_text(render(PAGE))


def test_pretty_of_other_nodes():
    assert pretty(h.Fragment(h.Div(h.P("a")), h.P("b"))) == "<div>\n  <p>a</p>\n</div><p>b</p>"
    assert pretty([h.P("a"), "b & c"]) == "<p>a</p>b &amp; c"
    assert pretty("x < y") == "x &lt; y"
    assert pretty(h.Ul(h.Li("a")), indent=0) == "<ul>\n<li>a</li>\n</ul>"
    for bad in (-1, True, 2.0, "2"):
        with pytest.raises(TypeError, match="indent must be an int"):
            pretty(h.P(), indent=bad)


BLOCK = ["div", "ul", "li", "p", "section", "table", "tbody", "tr", "td", "pre", "dl", "dd"]
INLINE = ["span", "b", "a", "em", "code"]


def trees():
    text = st.text(alphabet="ab <&>\n ", max_size=6)
    leaf = st.one_of(text, st.builds(Comment, st.sampled_from(["c", "d"])))

    def extend(children):
        def make(tag, kids):
            return getattr(h, tag.capitalize())(kids)

        return st.builds(make, st.sampled_from(BLOCK + INLINE), st.lists(children, max_size=4))

    return st.recursive(leaf, extend, max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(trees())
# Found by a CI run: a <tbody> in a <div> is dropped by the parser, so the
# line breaks once put inside it became the div's text.
@example(h.Div("<", h.Tbody(h.Tr()), "<"))
def test_pretty_never_changes_the_tree(tree):
    try:
        compact = render(h.Body(tree))
    except ValueError:  # a shape the parser would move: refused by both
        with pytest.raises(ValueError):
            pretty(h.Body(tree))
        return
    out = pretty(h.Body(tree))
    assert tree_without_whitespace_text(out) == tree_without_whitespace_text(compact)
