"""render(tree) compared byte for byte with a real Jinja2 template
(Environment(autoescape=True)) that writes the same markup.

Every shape is rendered with every hostile value from conftest. Raw-text
elements (<script>, <style>) are left out on purpose: there markup writes
text unescaped and Jinja2 would escape it (see test_render.py)."""

import markupsafe
import pytest

from markup import Comment, SafeString, Tag, aria, data, escape, h, render, render_bytes

from conftest import HOSTILE_TEXT, HOSTILE_VALUES, value_id

# (name, build(v) -> tree, Jinja2 source using {{ v }})
SHAPES = [
    ("text", lambda v: h.P(v), "<p>{{ v }}</p>"),
    ("nested text", lambda v: h.Div(h.Span(v)), "<div><span>{{ v }}</span></div>"),
    ("none around", lambda v: h.P(None, v, None), "<p>{{ v }}</p>"),
    ("class attr", lambda v: h.Div({"class": v}), '<div class="{{ v }}"></div>'),
    (
        "keyword attrs",
        lambda v: h.A(title=v, href="/x?a=1&b=2"),
        '<a title="{{ v }}" href="/x?a=1&amp;b=2"></a>',
    ),
    ("data()", lambda v: h.Div(data(user=v)), '<div data-user="{{ v }}"></div>'),
    ("aria()", lambda v: h.Button(aria(label=v)), '<button aria-label="{{ v }}"></button>'),
    (
        "attr and children",
        lambda v: h.Li({"class": "item", "data-v": v}, v, h.B(v)),
        '<li class="item" data-v="{{ v }}">{{ v }}<b>{{ v }}</b></li>',
    ),
    ("void", lambda v: h.Img(src=v, alt=v), '<img src="{{ v }}" alt="{{ v }}">'),
    (
        "list children",
        lambda v: h.Ul([h.Li(v), h.Li(v)], (h.Li(x) for x in [v])),
        "<ul>{% for x in [v, v, v] %}<li>{{ x }}</li>{% endfor %}</ul>",
    ),
    (
        "table row",
        lambda v: h.Table(h.Tbody(h.Tr(h.Td(v), h.Th({"scope": "row"}, v)))),
        '<table><tbody><tr><td>{{ v }}</td><th scope="row">{{ v }}</th></tr></tbody></table>',
    ),
    ("textarea", lambda v: h.Textarea({"name": "t"}, v), '<textarea name="t">{{ v }}</textarea>'),
    (
        "document",
        lambda v: h.HtmlDocument(h.Head(h.Title(v)), h.Body(h.H1(v))),
        "<!doctype html><html><head><title>{{ v }}</title></head>"
        "<body><h1>{{ v }}</h1></body></html>",
    ),
    (
        "option selected",
        lambda v: h.Option({"value": v, "selected": True, "disabled": False}, v),
        '<option value="{{ v }}" selected>{{ v }}</option>',
    ),
    (
        "safe string sibling",
        lambda v: h.P(SafeString("<i>x</i>"), v),
        "<p><i>x</i>{{ v }}</p>",
    ),
    (
        "custom element",
        lambda v: Tag("my-widget")(v, x_data=v),
        '<my-widget x-data="{{ v }}">{{ v }}</my-widget>',
    ),
    (
        "framework attribute names",
        lambda v: h.Button({"@click": v, ":class": v, "x-on:click.prevent": v}),
        '<button @click="{{ v }}" :class="{{ v }}" x-on:click.prevent="{{ v }}"></button>',
    ),
    (
        "form",
        lambda v: h.Form(
            {"action": "/s", "method": "post"},
            h.Label({"for": "q"}, v),
            h.Input(type="text", id="q", value=v, required=True),
        ),
        '<form action="/s" method="post"><label for="q">{{ v }}</label>'
        '<input type="text" id="q" value="{{ v }}" required></form>',
    ),
]


@pytest.mark.parametrize("value", HOSTILE_VALUES, ids=value_id)
@pytest.mark.parametrize("name,build,source", SHAPES, ids=[s[0] for s in SHAPES])
def test_shape_matches_jinja2(jinja, name, build, source, value):
    expected = jinja(source, v=value)
    assert render(build(value)) == expected
    assert render_bytes(build(value)) == expected.encode("utf-8")


@pytest.mark.parametrize("value", HOSTILE_VALUES, ids=value_id)
def test_element_inside_jinja2_is_not_escaped_twice(jinja, value):
    # __html__ on an element: Jinja2 inserts our output verbatim.
    inner = h.P({"title": value}, value)
    assert jinja("<section>{{ el }}</section>", el=inner) == render(h.Section(inner))


@pytest.mark.parametrize("value", HOSTILE_VALUES, ids=value_id)
def test_escape_matches_jinja2(jinja, value):
    assert escape(value) == jinja("{{ v }}", v=value)


@pytest.mark.parametrize("text", HOSTILE_TEXT, ids=value_id)
def test_comment_matches_jinja2(jinja, text):
    assert render(h.Div(Comment(text))) == jinja("<div><!--{{ v }}--></div>", v=text)


def test_product_page_matches_jinja2(jinja):
    rows = [
        {
            "id": i,
            "name": HOSTILE_TEXT[i % len(HOSTILE_TEXT)],
            "price": [1, 2.5, "3.00 €", markupsafe.Markup("<s>4</s>")][i % 4],
            "cls": "card" if i % 2 else "card odd",
        }
        for i in range(50)
    ]
    source = (
        "<!doctype html><html><head><title>{{ title }}</title></head><body>"
        '<h1>{{ title }}</h1><ul class="products">'
        "{% for r in rows %}"
        '<li class="{{ r.cls }}" data-id="{{ r.id }}">'
        '<span class="name">{{ r.name }}</span><span class="price">{{ r.price }}</span>'
        "</li>{% endfor %}</ul></body></html>"
    )
    tree = h.HtmlDocument(
        h.Head(h.Title("Products <&>")),
        h.Body(
            h.H1("Products <&>"),
            h.Ul(
                {"class": "products"},
                [
                    h.Li(
                        {"class": r["cls"], "data-id": r["id"]},
                        h.Span({"class": "name"}, r["name"]),
                        h.Span({"class": "price"}, r["price"]),
                    )
                    for r in rows
                ],
            ),
        ),
    )
    expected = jinja(source, title="Products <&>", rows=rows)
    assert render(tree) == expected
    assert render_bytes(tree) == expected.encode()
