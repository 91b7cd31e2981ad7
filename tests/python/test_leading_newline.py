"""A newline that begins the content of <pre>, <listing> or <textarea>.

The HTML parser drops one newline right after these start tags. markup
writes a newline that begins text there twice, as the HTML serialization
algorithm does, so that the parser reads back the text that was given;
trusted HTML is markup and is written as it is (its newline is dropped, as
it would be in the page it came from). Elsewhere, and where the text does
not begin with a newline, the bytes are Jinja2's.

One-call templates decide it when they run: a value, or static text after a
value or a condition, comes first only if nothing was written before it.
Their output is checked against the plain tree's; the plain tree's against
html5lib's reading of it.
"""

import html5lib
import jinja2
import pytest

from markup import Comment, SafeString, Tag, baked, h, render, when

PARSER = html5lib.HTMLParser(namespaceHTMLElements=False)
JINJA = jinja2.Environment(autoescape=True)
LISTING = Tag("listing")
ELEMENTS = [h.Pre, h.Textarea, LISTING]


def parsed_text(html):
    """The text of the first element of a fragment, as a parser reads it."""
    return PARSER.parseFragment(html)[0].text or ""


@pytest.mark.parametrize("element", ELEMENTS, ids=["pre", "textarea", "listing"])
@pytest.mark.parametrize("text", ["\nline", "\n\nline", "\n", "line\n", "a\nb", ""])
def test_text_reads_back_as_given(element, text):
    html = render(element(text))
    assert parsed_text(html) == text


@pytest.mark.parametrize("text", ["\r\nline", "\rline", "\r"])
def test_a_carriage_return_is_a_newline_too(text):
    # The parser reads CR LF and a lone CR as LF before anything else.
    html = render(h.Pre(text))
    assert parsed_text(html) == text.replace("\r\n", "\n").replace("\r", "\n")
    assert baked(lambda t: h.Pre(t))(text) == html


def test_the_newline_is_written_twice_only_where_it_comes_first():
    assert render(h.Pre("\nx")) == "<pre>\n\nx</pre>"
    assert render(h.Pre({"class": "code"}, "\nx")) == '<pre class="code">\n\nx</pre>'
    assert render(h.Textarea("\nx")) == "<textarea>\n\nx</textarea>"
    assert render(LISTING("\nx")) == "<listing>\n\nx</listing>"
    assert render(Tag("PRE")("\nx")) == "<PRE>\n\nx</PRE>"
    # an empty text writes nothing: what follows still comes first
    assert render(h.Pre("", "\nx")) == "<pre>\n\nx</pre>"
    # after anything else it does not
    assert render(h.Pre("a", "\nb")) == "<pre>a\nb</pre>"
    assert render(h.Pre(Comment("c"), "\nx")) == "<pre><!--c-->\nx</pre>"
    assert render(h.Pre(h.B("\nx"))) == "<pre><b>\nx</b></pre>"
    assert render(h.Div(h.Pre(), "\nx")) == "<div><pre></pre>\nx</div>"
    # only these three elements, and only as HTML elements
    assert render(h.Div("\nx")) == "<div>\nx</div>"
    assert render(h.Svg(Tag("textarea")("\nx"))) == "<svg><textarea>\nx</textarea></svg>"


def test_trusted_html_is_written_as_it_is():
    assert render(h.Pre(SafeString("\nx"))) == "<pre>\nx</pre>"
    assert parsed_text(render(h.Pre(SafeString("\nx")))) == "x"
    # a trusted newline comes first: the text after it keeps its own
    html = render(h.Pre(SafeString("\n"), "\nx"))
    assert html == "<pre>\n\nx</pre>"
    assert parsed_text(html) == "\nx"


@pytest.mark.parametrize("text", ["line", "a\nb", "line\n", "<&>", ""])
def test_jinja2_bytes_where_the_text_does_not_begin_with_a_newline(text):
    for tag in ("pre", "textarea", "listing"):
        expected = JINJA.from_string(f"<{tag}>{{{{ x }}}}</{tag}>").render(x=text)
        assert render(Tag(tag)(text)) == expected


VALUES = [
    "",
    "\nx",
    "x",
    "\n",
    "\n<b>",
    SafeString("\nq"),
    SafeString(""),
    h.B("\nb"),
    5,
    ["\nl", "m"],
    ["", "\nl"],
    [SafeString("\n"), "\nk"],
    None,
]
SHAPES = {
    "value": lambda a, b: h.Pre(a, b),
    "textarea": lambda a, b: h.Textarea(a, b),
    "static after a value": lambda a, b: LISTING(a, "\n", b),
    "static newline after values": lambda a, b: h.Pre(a, b, "\nz"),
    "attribute value": lambda a, b: h.Pre({"title": b}, a),
    # `a == None`, not `a is None`: @baked tests the comparison per call
    "after a condition": lambda a, b: h.Pre(when(a == None, "t"), b),  # noqa: E711
    "after a condition that wrote nothing": lambda a, b: h.Pre(when(a == None, ""), b),  # noqa: E711
    "condition first": lambda a, b: h.Pre(when(a == None, "\nt", b)),  # noqa: E711
    "static after a condition": lambda a, b: h.Pre(when(a == None, "t"), "\nq", b),  # noqa: E711
    "static after an element": lambda a, b: h.Pre(when(a == None, "t", b), h.B(), "\nq"),  # noqa: E711
}


def same_as_tree(fn, builder, *args):
    """The one-call template writes what the plain tree writes, or raises
    as rendering it does."""
    try:
        want = render(builder(*args))
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)):
            fn(*args)
        return
    assert fn(*args) == want, args


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_one_call_templates_write_what_the_tree_writes(shape):
    fn = baked(shape)
    for a in VALUES:
        for b in VALUES:
            same_as_tree(fn, shape, a, b)


LOOPS = {
    "items": lambda xs: h.Pre([x for x in xs]),
    "items then newlines": lambda xs: h.Pre([[x, "\n"] for x in xs]),
    "newline-led static in the body": lambda xs: h.Pre([[h.Span(x), "\nz"] for x in xs]),
    "static before the loop": lambda xs: h.Textarea("\n", [x for x in xs]),
}


@pytest.mark.parametrize("shape", LOOPS.values(), ids=LOOPS.keys())
@pytest.mark.parametrize(
    "items",
    [[], ["\na"], ["", "\nb"], ["a", "\nb"], ["", ""], [SafeString("\n"), "\nc"], ["\n", "\n"]],
)
def test_loops_decide_each_item(shape, items):
    same_as_tree(baked(shape), shape, items)


def test_a_template_reads_back_as_its_values():
    fn = baked(lambda code, note: h.Div(h.Pre(code), h.Textarea(note)))
    html = fn("\n  indented", "\n\nnote")
    tree = PARSER.parseFragment(html)[0]
    assert tree[0].text == "\n  indented"
    assert tree[1].text == "\n\nnote"
