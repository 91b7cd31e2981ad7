"""The XSS corpus (tests/data/xss/*.txt): classic filter-evasion payloads
placed everywhere a value can go never yield an element, attribute or
comment that was not in the tree.

Each payload is put in text, in attribute values (title, class, id,
data-*, href, src, on*, srcdoc, ...), in a Comment, in RCDATA (title,
textarea), in svg and math text, and in the child and attribute slots of
@baked functions; the output is parsed with html5lib as a browser would
(scripting on) and must give exactly the DOM that was built. Inside
<script>/<style> a payload is either refused with ValueError or is the
element's only text. Attribute and tag names made of payloads are refused
unless they are valid names, which then parse as themselves.
"""

import itertools
import json
import re
from pathlib import Path

import pytest

from markup import Tag, baked, h, render, tojson

from htmldom import (
    REPLACED,
    Cmt,
    El,
    ascii_lower,
    bake,
    build,
    elements,
    expected_dom,
    parse_dom,
    slot_values,
    text_as_parsed,
)

CORPUS_DIR = Path(__file__).resolve().parents[1] / "data" / "xss"
CODE_POINT = re.compile(r"\{\{U\+([0-9A-Fa-f]{4,6})\}\}")


def read_corpus():
    """(id, payload) for every payload line of every corpus file."""
    out = []
    for path in sorted(CORPUS_DIR.glob("*.txt")):
        for lineno, line in enumerate(path.read_text("utf-8").split("\n"), 1):
            if not line or line.startswith("#"):
                continue
            payload = CODE_POINT.sub(lambda m: chr(int(m[1], 16)), line)
            out.append((f"{path.stem}:{lineno}", payload))
    return out


def every_case(word):
    return ["".join(cs) for cs in itertools.product(*[(c.lower(), c.upper()) for c in word])]


CORPUS = read_corpus()
# <script> in each of its 64 spellings by letter case.
CASES = [(f"case:{w}", f"<{w}>alert(1)</{w}>") for w in every_case("script")]
PAYLOADS = [pytest.param(p, id=i) for i, p in CORPUS + CASES]


def test_corpus_is_loaded_and_clean():
    assert len(CORPUS) >= 500, "the corpus files were not found or are nearly empty"
    assert len({p for _, p in CORPUS}) >= 0.95 * len(CORPUS), "the corpus repeats itself"
    for path in CORPUS_DIR.glob("*.txt"):
        raw = path.read_text("utf-8")
        # Invisible characters are written as {{U+XXXX}}, so a reader sees them.
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\r]", raw), path.name
    for ident, payload in CORPUS:
        assert not any(0xD800 <= ord(c) <= 0xDFFF for c in payload), ident


# --- every value position -------------------------------------------------


def placements(payload, comment):
    """A tree with the payload in every value position of common elements."""
    p = payload
    return El(
        "div",
        [("title", p), ("class", p), ("id", p), ("data-x", p), ("style", p)],
        [
            p,
            El("a", [("href", p), ("title", p)], [p]),
            El("span", [("onclick", p), ("onmouseover", p)], [p]),
            Cmt(comment),
            El("img", [("src", p), ("alt", p), ("onerror", p)]),
            El("input", [("value", p), ("placeholder", p)]),
            El("textarea", [("placeholder", p)], [p]),
            El("title", [], [p]),
            El("ul", [], [El("li", [("data-y", p)], [p, El("em", [], [p])])]),
            El("button", [("formaction", p)], [p]),
            El("iframe", [("srcdoc", p), ("src", p)]),
            El("svg", [("class", p)], [El("text", [("data-x", p)], [p]), El("desc", [], [p])]),
            El("math", [], [El("mtext", [], [p]), El("mi", [], [p])]),
            p,
        ],
    )


def assert_same_dom(html, model, scripting=True):
    parsed = parse_dom(html, scripting=scripting)
    expected = expected_dom(model)
    # The security property first, for a readable failure; then everything.
    assert elements(parsed) == elements(expected), html
    assert parsed == expected, html


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_in_every_position_of_a_tree(payload):
    model = placements(payload, comment=payload)
    assert_same_dom(render(build(model)), model)


BAKED_PLACEMENTS = bake(placements("x", comment="a comment"))[0]


@baked
def row(text, title, href):
    return h.Li({"title": title}, h.A({"href": href}, text))


@baked
def page(heading, cls, rows):
    return h.Section({"class": cls}, h.Span(heading), h.Ul(rows))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_in_every_slot_of_a_baked_function(payload):
    # The same bytes as the tree, whose DOM the test above checks.
    model = placements(payload, comment="a comment")
    assert BAKED_PLACEMENTS(*slot_values(model)) == render(build(model))

    # Nested baked results and a list of them in a child slot.
    p = payload
    html = page(p, p, [row(p, p, p), row(p, "t", "/x"), h.Li(p)])
    item = El("li", [("title", p)], [El("a", [("href", p)], [p])])
    model = El(
        "section",
        [("class", p)],
        [
            El("span", [], [p]),
            El(
                "ul",
                [],
                [
                    item,
                    El("li", [("title", "t")], [El("a", [("href", "/x")], [p])]),
                    El("li", [], [p]),
                ],
            ),
        ],
    )
    assert_same_dom(html, model)


# --- raw text -------------------------------------------------------------

BREAKOUT = {
    "script": re.compile(r"</script|<!--", re.ASCII | re.IGNORECASE),
    "style": re.compile(r"</style", re.ASCII | re.IGNORECASE),
}
JSON_PREFIX = "var data = "


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_in_raw_text_is_refused_or_is_the_only_text(payload):
    """In <script> and <style>: refused exactly when it could end the
    element early, else the element's only text. As tojson() data in a
    script: always accepted, and the JSON gives the payload back."""
    kept = []
    expected = []
    for tag, factory in (("script", h.Script), ("style", h.Style)):
        try:
            el = factory(payload)
        except ValueError as exc:
            assert BREAKOUT[tag].search(payload), f"refused without a breakout: {exc}"
            assert f"<{tag}>" in str(exc)
            continue
        assert not BREAKOUT[tag].search(payload), f"<{tag}>: a breakout was let through"
        text = text_as_parsed(payload, REPLACED)
        kept.append(el)
        expected.append((tag, [], [("#text", text)] if text else []))
    kept.append(h.Script(JSON_PREFIX, tojson({"v": payload}), ";"))
    kept.append(h.B("after"))
    *dom, (json_tag, json_attrs, [(kind, text)]), after = parse_dom(render(kept))
    assert dom == expected
    assert after == ("b", [], [("#text", "after")])
    assert (json_tag, json_attrs, kind) == ("script", [], "#text")
    assert text.startswith(JSON_PREFIX) and text.endswith(";")
    assert json.loads(text[len(JSON_PREFIX) : -1]) == {"v": payload}


# Elements whose content the parser reads as raw text; markup escapes
# what it writes there, so whatever it holds stays text and the element
# ends where it was closed.
RAW_CONTAINERS = ["iframe", "xmp", "noembed", "noframes", "noscript"]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_inside_raw_text_containers_stays_text(payload):
    inner = h.P({"title": payload}, payload)
    text = text_as_parsed(render(inner), REPLACED)
    html = render([Tag(tag)(inner) for tag in RAW_CONTAINERS] + [h.Span("after")])
    assert parse_dom(html) == [(tag, [], [("#text", text)]) for tag in RAW_CONTAINERS] + [
        ("span", [], [("#text", "after")])
    ]
    # Scripting off, <noscript> content is markup, and must be the tree.
    model = El("noscript", [], [El("p", [("title", payload)], [payload])])
    assert_same_dom(render(build(model)), model, scripting=False)


# --- names ----------------------------------------------------------------

REJECTED_IN_NAMES = set(" \t\n\f\r\"'<>/=&\\`")


def valid_attr_name(name):
    return bool(name) and not any(
        c in REJECTED_IN_NAMES or ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in name
    )


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_as_attribute_or_tag_name_is_refused_or_exact(payload):
    if not valid_attr_name(payload):
        with pytest.raises(ValueError, match="invalid attribute name"):
            h.Div({payload: "v"})
    else:
        html = render(h.Div({payload: "v"}, "x"))
        assert parse_dom(html) == [("div", [(ascii_lower(payload), "v")], [("#text", "x")])]

    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", payload):
        with pytest.raises(ValueError, match="invalid tag name"):
            Tag(payload)


# --- foreign content ------------------------------------------------------


# Inside <svg>/<math> the parser reads <script>/<style> text as markup, so
# markup escapes it there instead of writing it raw.
@pytest.mark.parametrize("outer", ["svg", "math"])
@pytest.mark.parametrize("factory", [h.Style, h.Script], ids=["style", "script"])
def test_raw_text_inside_foreign_content_stays_text(outer, factory):
    payload = "<img src=x onerror=alert(1)>"
    try:
        el = factory(payload)
    except ValueError:
        return
    tag = factory.name
    dom = parse_dom(render(Tag(outer)(el)))
    assert dom == [(f"{outer}:{outer}", [], [(f"{outer}:{tag}", [], [("#text", payload)])])]


@pytest.mark.parametrize("outer", ["svg", "math"])
@pytest.mark.parametrize("factory", [h.Style, h.Script], ids=["style", "script"])
def test_raw_text_inside_foreign_content_stays_text_in_baked_slots(outer, factory):
    payload = "<img src=x onerror=alert(1)>"

    @baked
    def figure(body):
        return Tag(outer)(body)

    tag = factory.name
    dom = parse_dom(str(figure(factory(payload))))
    assert dom == [(f"{outer}:{outer}", [], [(f"{outer}:{tag}", [], [("#text", payload)])])]


# Straight inside MathML's text integration points, <mglyph> and
# <malignmark> are MathML again, so their script and style text is markup
# to the parser.
@pytest.mark.parametrize("point", ["mi", "mo", "mn", "ms", "mtext"])
@pytest.mark.parametrize("inner", ["mglyph", "malignmark", "MGlyph"])
@pytest.mark.parametrize("factory", [h.Style, h.Script], ids=["style", "script"])
def test_raw_text_in_mathml_glyphs_stays_text(point, inner, factory):
    payload = "<img src=x onerror=alert(1)>"
    tree = Tag("math")(Tag(point)(Tag(inner)(factory(payload))))
    tag, lower = factory.name, inner.lower()
    expected = [
        (
            "math:math",
            [],
            [
                (
                    f"math:{point}",
                    [],
                    [(f"math:{lower}", [], [(f"math:{tag}", [], [("#text", payload)])])],
                )
            ],
        )
    ]
    assert parse_dom(render(tree)) == expected

    @baked
    def glyph(body):
        return Tag("math")(Tag(point)(Tag(inner)(body)))

    assert parse_dom(str(glyph(factory(payload)))) == expected


@pytest.mark.parametrize(
    "path",
    [
        ("svg", "foreignObject"),
        ("svg", "desc"),
        ("svg", "title"),
        ("math", "mi"),
        ("math", "mtext"),
    ],
    ids="/".join,
)
def test_html_integration_points_hold_raw_text_again(path):
    outer, point = path
    script = "if (b > a && c > d) { go('x') }"
    out = render(Tag(outer)(Tag(point)(h.Script(script))))
    assert f"<script>{script}</script>" in out  # raw: the parser reads it as a script again
    out = render(Tag(outer)(Tag("g")(h.Script(script))))
    assert "<script>if (b &gt; a &amp;&amp; c &gt; d)" in out  # still foreign: escaped
    # Raw, but under svg or math: no '<', which a parser that lost its place
    # would read as the start of a tag.
    with pytest.raises(ValueError, match="may not hold '<'"):
        render(Tag(outer)(Tag(point)(h.Script("if (a < b) go()"))))
