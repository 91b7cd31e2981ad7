"""Property tests: whatever text and attribute values a tree holds, an HTML5
parser (html5lib) reads back exactly the tree that was built: the same
elements, the same attributes with the same values, the same text and
comments, and nothing else.

Trees are drawn by hypothesis from tags whose parsing html5lib does not
restructure (no tables, p, a, forms, select, headings); the expected DOM is
computed from the model alone (tests/python/htmldom.py). On failure
hypothesis prints the smallest tree it found and a @reproduce_failure blob.
"""

import re
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from markup import Tag, baked, h, render, render_bytes

from htmldom import (
    REPLACED,
    Cmt,
    El,
    Safe,
    ascii_lower,
    bake,
    build,
    expected_dom,
    parse_dom,
    text_as_parsed,
)

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Pieces that end elements, open new ones, or look like markup to a
# careless escaper; mixed with arbitrary text (any code point but the
# surrogates, which markup refuses; see test_adversarial.py).
HOSTILE_PIECES = [
    "<",
    ">",
    "&",
    '"',
    "'",
    "`",
    "=",
    "/",
    "\\",
    "<script>alert(1)</script>",
    "</script>",
    "<!--",
    "-->",
    "--!>",
    "<!-->",
    "-",
    "--",
    "<![CDATA[",
    "]]>",
    "<img src=x onerror=alert(1)>",
    '" onmouseover="alert(1)',
    "' autofocus onfocus='alert(1)",
    "</textarea>",
    "</title>",
    "</style>",
    "</svg>",
    "<svg onload=alert(1)>",
    "<plaintext>",
    "&amp;",
    "&lt;",
    "&#60;",
    "&#x3c;",
    "&lt",
    "&quot;",
    "&#0;",
    "javascript:",
    "\0",
    "\r",
    "\r\n",
    "\n",
    "\t",
    "\x0c",
    "\x0b",
    "\x7f",
    "\x85",
    "\xa0",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\ufffd",
    "\uffff",
    "\U0010ffff",
    "\u202e",
    "\uff1cscript\uff1e",
    "\U0001f600",
]
ANY_CHAR = st.characters(blacklist_categories=("Cs",))
TEXT = st.lists(
    st.one_of(st.sampled_from(HOSTILE_PIECES), st.text(ANY_CHAR, max_size=6)), max_size=5
).map("".join)

NUMBER = st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.floats())
ATTR_VALUE = st.one_of(TEXT, TEXT, NUMBER, st.booleans(), st.none(), TEXT.map(Safe))
CHILD_VALUE = st.one_of(TEXT, TEXT, NUMBER, st.none(), TEXT.map(Safe))
TEXT_VALUE = st.one_of(TEXT, TEXT, st.integers(), TEXT.map(Safe))

# Attribute names markup accepts: anything but whitespace, controls and
# " ' < > / = & \ `. The parser lower-cases ASCII letters, so names are
# unique once lower-cased (a repeated attribute is dropped by parsers).
REJECTED_IN_NAMES = " \t\n\f\r\"'<>/=&\\`"
NAME_CHAR = st.one_of(
    st.sampled_from(string.ascii_letters + "-_:.@[]()#$%*+,;?^{|}~!0123456789"),
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters=REJECTED_IN_NAMES),
)
ATTR_NAME = st.one_of(
    st.sampled_from(
        [
            "class",
            "id",
            "title",
            "href",
            "data-x",
            "aria-label",
            "@click",
            ":class",
            "x-on:click.prevent",
            "onclick",
            "style",
            "HREF",
            "Data-Y",
        ]
    ),
    st.text(NAME_CHAR, min_size=1, max_size=8),
)


def attr_lists(names=ATTR_NAME, values=ATTR_VALUE):
    return st.lists(st.tuples(names, values), max_size=4, unique_by=lambda p: ascii_lower(p[0]))


# Attributes on svg/math elements: names the parser does not adjust
# (it rewrites viewbox -> viewBox, xlink:href -> a namespaced name, ...).
FOREIGN_ATTRS = attr_lists(st.sampled_from(["class", "id", "data-x", "fill", "title"]))

CONTAINERS = [
    "div",
    "span",
    "section",
    "article",
    "em",
    "strong",
    "b",
    "i",
    "code",
    "my-widget",
    "X-Card",
]
VOIDS = ["br", "img", "input", "hr", "wbr"]


def children(depth):
    if depth >= 4:
        return st.lists(st.one_of(CHILD_VALUE, TEXT.map(Cmt)), max_size=3)
    return st.lists(st.one_of(CHILD_VALUE, TEXT.map(Cmt), flow(depth + 1)), max_size=4)


@st.composite
def flow(draw, depth=0):
    """An element that may stand in the body, with a subtree."""
    kind = draw(
        st.sampled_from(
            ["container", "container", "container", "void", "list", "rcdata", "svg", "math"]
        )
    )
    if kind == "container":
        return El(draw(st.sampled_from(CONTAINERS)), draw(attr_lists()), draw(children(depth)))
    if kind == "void":
        return El(draw(st.sampled_from(VOIDS)), draw(attr_lists()))
    if kind == "list":
        items = draw(
            st.lists(st.builds(El, st.just("li"), attr_lists(), children(depth + 1)), max_size=3)
        )
        return El("ul", draw(attr_lists()), items)
    if kind == "rcdata":
        tag = draw(st.sampled_from(["title", "textarea", "TextArea"]))
        return El(tag, draw(attr_lists()), draw(st.lists(TEXT_VALUE, max_size=3)))
    if kind == "svg":
        leaf = st.builds(
            El,
            st.sampled_from(["text", "g", "desc"]),
            FOREIGN_ATTRS,
            st.lists(st.one_of(TEXT_VALUE, TEXT.map(Cmt)), max_size=3),
        )
        return El(
            "svg", draw(FOREIGN_ATTRS), draw(st.lists(st.one_of(leaf, TEXT_VALUE), max_size=3))
        )
    leaf = st.builds(
        El,
        st.sampled_from(["mi", "mo", "mtext", "mrow"]),
        FOREIGN_ATTRS,
        st.lists(TEXT_VALUE, max_size=2),
    )
    return El("math", [], draw(st.lists(leaf, max_size=3)))


DOCUMENTS = st.builds(El, st.just("div"), attr_lists(), children(0))


@SETTINGS
@given(tree=DOCUMENTS)
def test_parsed_dom_is_exactly_the_built_tree(tree):
    node = build(tree)
    html = render(node)
    assert render_bytes(node) == html.encode("utf-8")
    assert parse_dom(html) == expected_dom(tree)


@SETTINGS
@given(tree=DOCUMENTS)
def test_baked_parsed_dom_is_exactly_the_built_tree(tree):
    """The same trees with every attribute value and text child a slot."""
    fn, args = bake(tree)
    html = fn(*args)
    assert html == render(build(tree))
    assert parse_dom(html) == expected_dom(tree)


# --- raw text: <script> and <style> ---------------------------------------

# Inside these a parser reads everything up to the element's own end tag as
# its text, a <script> or <style> included.
TEXT_CONTENT = ["title", "textarea", "noscript", "iframe", "xmp", "noembed", "noframes"]

RAW_PIECES = [
    "</script>",
    "</SCRIPT",
    "</ScRiPt ",
    "</script\t",
    "</scrip",
    "</scriptx",
    "<!--",
    "<!-",
    "-->",
    "<script>",
    "</style>",
    "</STYLE",
    "</styl",
    "<style>",
    "\0",
    "\r",
    "\r\n",
    "</title>",
    "</TEXTAREA ",
    "</noscript>",
    "</iframe",
    "</Xmp>",
    "</noembed",
    "</noframes>",
    "</titl",
    "</noscrip",
    "<img src=x onerror=alert(1)>",
    "</\u017fcript>",  # LATIN SMALL LETTER LONG S: not an 's' to an HTML parser
    "</\u017ftyle>",
    "</scr\0ipt>",
    "<\0/script>",
    "&lt;/script&gt;",
    "<",
    "/",
    "'",
    '"',
    "&",
]
RAW_TEXT = st.lists(
    st.one_of(st.sampled_from(RAW_PIECES), st.text(ANY_CHAR, max_size=5)), max_size=6
).map("".join)

# The HTML tokenizer compares end tags ASCII case-insensitively.
BREAKOUT = {
    "script": re.compile(r"</script|<!--", re.ASCII | re.IGNORECASE),
    "style": re.compile(r"</style", re.ASCII | re.IGNORECASE),
}
# Inside one of TEXT_CONTENT, the end tags of all of them too.
AROUND = re.compile("|".join("</" + name for name in TEXT_CONTENT), re.ASCII | re.IGNORECASE)


@SETTINGS
@given(tag=st.sampled_from(["script", "style"]), text=RAW_TEXT)
def test_raw_text_is_refused_or_parsed_as_the_only_text(tag, text):
    factory = h.Script if tag == "script" else h.Style
    if BREAKOUT[tag].search(text):
        with pytest.raises(ValueError, match=f"<{tag}>"):
            factory(text)
        return
    html = render(h.Div(factory(text), h.Span("after")))
    parsed = text_as_parsed(text, REPLACED)
    expected = [
        (
            "div",
            [],
            [
                (tag, [], [("#text", parsed)] if parsed else []),
                ("span", [], [("#text", "after")]),
            ],
        )
    ]
    assert parse_dom(html) == expected


@SETTINGS
@given(outer=st.sampled_from(TEXT_CONTENT), tag=st.sampled_from(["script", "style"]), text=RAW_TEXT)
def test_raw_text_cannot_end_a_text_content_element_around_it(outer, tag, text):
    """Inside <title>, <textarea>, <noscript> (JavaScript on), <iframe>,
    <xmp>, <noembed> and <noframes> a parser reads a <script> or <style> as
    the outer element's text: its raw text must not hold that element's end
    tag either."""
    factory = h.Script if tag == "script" else h.Style
    if BREAKOUT[tag].search(text):
        with pytest.raises(ValueError, match=f"<{tag}>"):
            factory(text)
        return
    tree = h.Div(Tag(outer)(factory(text)), h.Span("after"))
    if AROUND.search(text):
        with pytest.raises(ValueError, match=f"<{tag}>: .* around the element"):
            render(tree)
        return
    html = render(tree)
    (div,) = parse_dom(html)
    assert div[0] == "div"
    (inside, after) = div[2]
    assert inside[0] == outer and all(node[0] == "#text" for node in inside[2])
    assert after == ("span", [], [("#text", "after")])


@pytest.mark.parametrize("outer", TEXT_CONTENT)
@pytest.mark.parametrize("factory", [h.Script, h.Style], ids=["script", "style"])
def test_end_tag_of_a_text_content_element_in_raw_text_is_refused_inside_it(outer, factory):
    hostile = f"a</{outer.upper()}><img src=x onerror=alert(1)>"
    el = factory(hostile)  # fine on its own, and outside such an element:
    assert render(h.Div(el)) == f"<div><{factory.name}>{hostile}</{factory.name}></div>"
    trees = [
        (Tag(outer)(el), False),
        (Tag(outer)(h.Div(h.P(el))), False),
        (Tag(outer)(Tag("svg")(h.Title(el))), True),
    ]
    for tree, svg_title in trees:
        with pytest.raises(ValueError) as exc:
            render(tree)
        msg = str(exc.value)
        if outer == "title" and svg_title:
            # svg's own <title> ends an HTML <title> around it before its text.
            assert msg.startswith("<title> inside <svg>: inside an element of the same name")
            continue
        assert f"'</{outer}' at byte 1" in msg and f"end a <{outer}> around the element" in msg

    @baked
    def inside(body):
        return Tag(outer)(h.Div(body))

    with pytest.raises(ValueError, match=f"end a <{outer}> around the element"):
        inside(el)
    # The same text split by a backslash, as the message suggests, is fine.
    safe = hostile.replace("</", "<\\/")
    assert (
        render(Tag(outer)(factory(safe)))
        == f"<{outer}><{factory.name}>{safe}</{factory.name}></{outer}>"
    )
    # In svg's own <title> (HTML again, not text) the end tag would do
    # nothing, but under svg or math raw text holds no '<' at all.
    with pytest.raises(ValueError, match="inside svg or math, the text of <script> and <style>"):
        render(Tag("svg")(h.Title(el)))


# --- attribute names ------------------------------------------------------

ACCEPTED_ASCII = [c for c in map(chr, range(0x21, 0x7F)) if c not in REJECTED_IN_NAMES]
ACCEPTED_OTHER = ["\xa0", "\xe9", "\u2028", "\ufeff", "\u4e2d", "\U0001f600", "\U0010ffff"]


@pytest.mark.parametrize("char", ACCEPTED_ASCII + ACCEPTED_OTHER, ids=ascii)
def test_every_accepted_name_character_is_read_back_as_written(char):
    names = [char, char + "-", "-" + char, "a" + char + "b" + char]
    names = list({ascii_lower(name): name for name in names}.values())
    tree = El("div", [(name, f"v{i}") for i, name in enumerate(names)])
    html = render(build(tree))
    assert parse_dom(html) == expected_dom(tree)


@SETTINGS
@given(
    names=st.lists(
        st.text(NAME_CHAR, min_size=1, max_size=12), min_size=1, max_size=8, unique_by=ascii_lower
    )
)
def test_accepted_names_are_read_back_as_written(names):
    tree = El("span", [(name, name) for name in names])
    assert parse_dom(render(build(tree))) == expected_dom(tree)
