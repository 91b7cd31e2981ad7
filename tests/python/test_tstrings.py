"""html(t"..."): t-strings (PEP 750) rendered by markup, on CPython 3.14+.

Templates are built with string.templatelib's constructors (what a t"..."
literal evaluates to), so that this file also imports on older Pythons,
where html() says it needs 3.14. A few cases use real t-string literals,
compiled at run time.
"""

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markup import Comment, SafeString, baked, h, html, render, when

NEW = sys.version_info >= (3, 14)
needs_314 = pytest.mark.skipif(not NEW, reason="t-strings need CPython 3.14")


def test_html_explains_that_it_needs_314_on_older_pythons():
    if NEW:
        pytest.skip("this Python has t-strings")
    with pytest.raises(RuntimeError, match="need Python 3.14 or newer"):
        html("<p>x</p>")


if NEW:
    from string.templatelib import Interpolation, Template

    from htmldom import elements, parse_dom


def t(*parts):
    """A Template of literal parts and values, alternating (literals at even
    places): t("<p>", x, "</p>") is t"<p>{x}</p>"."""
    return Template(*[p if i % 2 == 0 else Interpolation(p, "x") for i, p in enumerate(parts)])


def literal(source, **names):
    """A real t-string literal, compiled here (a SyntaxError before 3.14)."""
    return eval(compile('t"""' + source + '"""', "<t-string>", "eval"), names)


HOSTILE = [
    "plain",
    "",
    "<script>alert(1)</script>",
    "\"'><img src=x onerror=alert(1)>",
    "</textarea></title></style>",
    "a & b &amp; &lt;",
    "<!-- --> ]]> <?x?>",
    "\u00e9\u2014\U0001f600",
]


@needs_314
def test_text_attributes_and_children():
    name = "<b>Tea & cake</b>"
    page = html(
        literal(
            "<section class=card>\n  <h2>{name}</h2>\n"
            "  <ul>{[html(t'<li class={i}>{i}</li>') for i in items]}</ul>\n"
            "  {h.Footer('made with ', h.Em('markup'))}\n</section>",
            name=name,
            items=["a", "b<"],
            html=html,
            h=h,
        )
    )
    assert isinstance(page, SafeString)
    assert page == (  # the template's text as written; each value quoted and escaped
        '<section class=card>\n  <h2>&lt;b&gt;Tea &amp; cake&lt;/b&gt;</h2>\n'
        '  <ul><li class="a">a</li><li class="b&lt;">b&lt;</li></ul>\n'
        "  <footer>made with <em>markup</em></footer>\n</section>"
    )
    assert render(page) == page and page.__html__() == page


@needs_314
@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_values_read_back_exactly_where_they_stand(value):
    out = html(
        t(
            '<div title="',
            value,
            '" data-x=',
            value,
            "><p>",
            value,
            "</p><textarea>",
            value,
            "</textarea><title>",
            value,
            '</title><a href="/q?',
            value,
            '&amp;x=1">',
            value,
            "</a></div>",
        )
    )
    dom = parse_dom(out)
    (div,) = dom
    assert div[0] == "div"
    assert dict(div[1]) == {"title": value, "data-x": value}
    p, textarea, title, a = div[2]
    assert p == ("p", [], [("#text", value)] if value else [])
    assert textarea[0] == "textarea" and textarea[2] == ([("#text", value)] if value else [])
    assert title[0] == "title" and title[2] == ([("#text", value)] if value else [])
    assert dict(a[1]) == {"href": f"/q?{value}&x=1"}


@needs_314
def test_boolean_and_missing_attributes_follow_markups_rules():
    assert html(t("<input disabled=", True, " hidden=", False, " value=", None, ">")) == (
        "<input disabled>"
    )
    assert html(t('<input checked name="n" alt="">')) == '<input checked name="n" alt="">'
    assert html(t("<p class=", ["a", None, "b"], ">x</p>")) == '<p class="a b">x</p>'


@needs_314
def test_conversions_and_format_specs_as_python_applies_them():
    price, obj = 3.14159, "<x>"
    assert html(literal("<p>{price:.2f} {obj!r} {price:>8}</p>", price=price, obj=obj)) == (
        f"<p>3.14 &#39;&lt;x&gt;&#39; {price:>8}</p>"
    )


@needs_314
def test_children_of_every_kind():
    parts = [
        "text",
        3,
        2.5,
        None,
        SafeString("<i>trusted</i>"),
        h.B("el"),
        [h.I("a"), "b"],
        Comment("c"),
        t("<u>", "nested", "</u>"),
        [t("<s>", 1, "</s>")],
    ]
    seq = ["<div>"]
    for i, p in enumerate(parts):
        seq += [p, "|" if i < len(parts) - 1 else "</div>"]
    out = html(t(*seq))
    assert out == (
        "<div>text|3|2.5||<i>trusted</i>|<b>el</b>|<i>a</i>b|<!--c-->|<u>nested</u>|<s>1</s></div>"
    )


@needs_314
@pytest.mark.parametrize("tag", ["pre", "textarea", "listing"])
def test_the_newline_the_parser_drops_after_pre_stays_dropped(tag):
    # The HTML parser drops a newline right after <pre>, <listing> and
    # <textarea>; the text it leaves is what markup writes.
    for source in (f"<{tag}>\nabc</{tag}>", f"<{tag}>\r\nabc</{tag}>"):
        out = html(Template(source))
        assert parse_dom(out) == parse_dom(source)
    out = html(t(f"<{tag}>\n", "z", f"</{tag}>"))
    assert parse_dom(out) == parse_dom(f"<{tag}>z</{tag}>")
    out = html(t(f"<{tag}>\n", "\nz", f"</{tag}>"))  # a value's own newline is kept
    assert parse_dom(out) == parse_dom(f"<{tag}>\n\nz</{tag}>")


@needs_314
def test_template_text_and_whitespace_are_kept():
    source = (
        '<!doctype html>\n<html lang="en">\n  <body>\n    <p>a  b\n\tc</p>\n  </body>\n</html>\n'
    )
    assert html(Template(source)) == source


@needs_314
@pytest.mark.parametrize(
    "parts, message",
    [
        (("<script>var x = ", 1, "</script>"), r"in the text of a <script>"),
        (("<style>a { color: ", "red", " }</style>"), r"in the text of a <style>"),
        (("<", "div", ">x</div>"), r"in a tag name"),
        (("<p ", "onclick", "=x>y</p>"), r"in an attribute name"),
        (("<p data-", {"id": 1}, ">y</p>"), r"in an attribute name"),
        (
            (
                "</",
                "p",
                ">",
            ),
            r"in a tag name",
        ),
        (("<p>\n<noscript>", "x", "</noscript></p>"), r"text of a <noscript>.*line 2"),
        (("<iframe>", "x", "</iframe>"), r"text of a <iframe>"),
        (("<!-- ", "x", " -->"), r"in a comment"),
        (("<div><p>x</div>",), r"</div> does not close <p> opened on line 1"),
        (("<div>\n<span>x",), r"<span> opened on line 2 is not closed"),
        (("x</p>",), r"</p> does not close an open element"),
        (("<![CDATA[x]]>",), r"is not HTML"),
        (('<p class="a" class=', "b", ">x</p>"), r"attribute 'class' is given twice"),
    ],
)
def test_a_value_where_the_parser_reads_something_else_is_refused(parts, message):
    with pytest.raises(ValueError, match=message):
        html(t(*parts))


@needs_314
def test_the_writers_rules_hold_at_every_value():
    # An element that would leave SVG content, and trusted HTML that would
    # end the title it stands in, are refused as in h.* trees.
    with pytest.raises(ValueError, match=r"html\(\): value0: <p>: inside svg"):
        html(t("<svg>", h.P("x"), "</svg>"))
    with pytest.raises(ValueError):
        html(t("<title>", SafeString("</title><script>x</script>"), "</title>"))


@needs_314
def test_an_element_value_is_written_for_where_it_stands():
    # A <style> built in HTML holds raw text; inside svg the parser reads
    # style text as markup, so there it is escaped as any text.
    style = h.Style("a<img src=x onerror=alert(1)>")
    out = html(t("<div><svg>", style, "</svg></div>"))
    assert out == "<div><svg><style>a&lt;img src=x onerror=alert(1)&gt;</style></svg></div>"
    assert not any(tag.endswith("img") for tag, _ in elements(parse_dom(out)))


@needs_314
def test_a_mapping_spreads_as_attributes_by_markups_rules():
    attrs = {"href": "/q?a=1&b=<2>", "class": ["btn", None, "big"], "hidden": True, "id": None}
    out = html(t('<a title="x" ', attrs, " data-n=", 3, ">go</a>"))
    assert (
        out == '<a title="x" href="/q?a=1&amp;b=&lt;2&gt;" class="btn big" hidden data-n="3">go</a>'
    )
    # The parser keeps the first of two attributes of one name: refused.
    with pytest.raises(ValueError, match=r"spreads attribute 'id', which its start tag also"):
        html(t("<p ", {"id": "a"}, " id=b>x</p>"))
    # Each name is a parameter: the same template with other values.
    assert html(t("<p ", {"id": "c", "hidden": False}, ">x</p>")) == '<p id="c">x</p>'
    assert html(t("<p ", {"id": "<d>", "hidden": True}, ">x</p>")) == '<p id="&lt;d&gt;" hidden>x</p>'
    with pytest.raises(TypeError, match=r"must be a mapping of attribute names"):
        html(t("<p ", ["id"], ">x</p>"))
    with pytest.raises(ValueError):
        html(t("<p ", {'"><script>': 1}, ">x</p>"))
    with pytest.raises(TypeError, match=r"@baked fixes when baking"):
        baked(lambda a: html(t("<p ", a, ">x</p>")))


@needs_314
def test_only_templates_are_taken():
    with pytest.raises(TypeError, match=r"takes a t-string"):
        html("<p>x</p>")


@needs_314
@pytest.mark.parametrize(
    "value",
    ["<b>", 3, None, True, ["a", "b"], {"on": True}, h.I("x"), SafeString("<u>"), 2.5],
    ids=repr,
)
def test_the_first_call_and_the_next_ones_agree(value):
    # The first call compiles (Python); later ones read plain values in C
    # and leave the rest (lists, mappings, t-strings) to the Python way.
    template = t("<p class=", value, ">", value, '</p><a title="', value, '">', [value], "</a>")
    try:
        first = html(template)
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)):
            html(template)
        return
    assert html(template) == html(template) == first


@needs_314
def test_a_template_is_compiled_once():
    from markup import _tstring

    _tstring._COMPILED.clear()
    for i in range(5):
        assert html(t("<p data-i=", i, ">", i, "</p>")) == f'<p data-i="{i}">{i}</p>'
    assert len(_tstring._COMPILED) == 1


@needs_314
def test_t_strings_in_a_baked_builder_compile_into_its_program():
    # The t-strings become the builder's elements: loops, when() and
    # literal bare attributes included, with the bytes of per-call html().
    def page(title, rows):
        return html(
            t(
                "<h1>",
                title,
                "</h1><ul>",
                [
                    html(
                        t(
                            "<li class=",
                            when(r["hot"], "hot", "cold"),
                            " data-id=",
                            r["id"],
                            "><input checked>",
                            r["name"],
                            "</li>",
                        )
                    )
                    for r in rows
                ],
                "</ul>",
            )
        )

    rows = [{"hot": i % 2 == 0, "id": i, "name": f"<n{i}>"} for i in range(4)]
    fn = baked(page)
    assert fn("T & t", rows) == page("T & t", rows)
    assert fn("T & t", rows).count("<input checked>") == 4
    assert fn.slot_count < 10  # one program: the rows are a loop, not 4 copies


texts = st.text(max_size=12)
children = st.one_of(texts, st.integers(), st.none(), texts.map(h.B))


@needs_314
@settings(max_examples=200, deadline=None)
@given(
    cls=st.one_of(texts, st.none(), st.booleans()), title=texts, kids=st.lists(children, max_size=4)
)
def test_a_t_string_renders_the_dom_of_the_same_h_tree(cls, title, kids):
    tree = h.Div({"class": cls, "title": f"T: {title}"}, h.H1(title), h.Ul([h.Li(k) for k in kids]))
    items = [t("<li>", k, "</li>") for k in kids]
    out = html(
        t(
            "<div class=",
            cls,
            ' title="T: ',
            title,
            '"><h1>',
            title,
            "</h1><ul>",
            items,
            "</ul></div>",
        )
    )
    assert parse_dom(out) == parse_dom(render(tree))
