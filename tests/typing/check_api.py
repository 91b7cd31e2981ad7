"""Every public name of markup, used as an application would, with the
types a user writes down. tests/python/test_typing.py runs `mypy --strict`
on this file (and the mistakes mypy must catch beside it), then runs it, so
the types claimed here are the ones the values have at run time.

No reveal_type and no ``type: ignore``: each result is assigned to an
annotated name, and mypy rejects the file if a stub says otherwise.
"""

from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Union

import markupsafe

import markup
from markup import (
    MAX_DEPTH,
    Comment,
    Element,
    SafeString,
    Tag,
    aria,
    baked,
    classes,
    data,
    escape,
    h,
    iter_render,
    looped,
    render,
    render_bytes,
    styles,
    tojson,
    when,
)

AttrValue = Union[str, int, float, bool, None]


# Components are plain functions that return elements.
def nav_link(href: str, label: str, *, current: bool = False) -> Element:
    return h.A({"href": href, **aria(current="page" if current else None)}, label)


def card(title: str, body: Sequence[Element], footer: Optional[str] = None) -> Element:
    return h.Section(
        classes("card", {"card--empty": not body}),
        h.H2(title),
        body,
        h.Footer(footer) if footer else None,
    )


def form_field(name: str, value: str, error: Optional[str]) -> Element:
    attrs: Dict[str, AttrValue] = {"name": name, "value": value, "required": True}
    return h.Label(
        name.title(),
        h.Input(attrs, type="text", aria_invalid=error is not None),
        h.Span({"class": "error"}, error) if error else None,
    )


# @baked keeps the builder's parameters; the call returns a SafeString.
@baked
def product_row(cls: str, product_id: int, name: str, price: str) -> Element:
    return h.Li({"class": cls, "data-id": product_id}, h.Span(name), h.Span(price))


@baked
def layout(title: str, content: Element, *, lang: str = "en") -> Element:
    return h.HtmlDocument(
        h.Html(
            {"lang": lang},
            h.Head(h.Meta(charset="utf-8"), h.Title(title)),
            h.Body(h.Main(content)),
        )
    )


# A whole page as one baked call: loops, fields and conditions run in C.
@baked
def order_list(orders: Sequence[Mapping[str, str]], user: Optional[str]) -> Element:
    return h.Div(
        when(user, h.P("Hello, ", user), h.P("Sign in")),
        h.Ol(
            [
                h.Li({"class": loop.cycle("odd", "even")}, loop.index, ". ", o["name"])
                for o, loop in looped(orders)
            ]
        ),
    )


def build_page(products: Mapping[str, str]) -> Element:
    rows: List[SafeString] = [
        product_row("item", index, name, price)
        for index, (name, price) in enumerate(products.items())
    ]
    menu: List[Element] = [nav_link("/", "Home", current=True), nav_link("/shop", "Shop")]
    field: Element = form_field("email", "a@example.com", "Required")
    return h.Div(
        {"id": "page"},
        h.Nav(h.Ul([h.Li(link) for link in menu])),
        card("Products", [h.Ul(rows)], footer="Prices include tax"),
        field,
        h.Script(tojson({"products": list(products)})),
        Comment("end of page"),
    )


def main() -> None:
    page: Element = build_page({"Earl <Grey>": "3.50", "Café": "4.00"})
    text: str = render(page)
    fragment: SafeString = render(page)
    assert fragment == text
    raw: bytes = render_bytes(page)
    chunks: Iterator[bytes] = iter_render(page, chunk_size=64)
    assert b"".join(chunks) == raw == text.encode("utf-8")
    listing: SafeString = order_list([{"name": "Tea"}, {"name": "<Cake>"}], None)
    assert listing == (
        '<div><p>Sign in</p><ol><li class="odd">1. Tea</li>'
        '<li class="even">2. &lt;Cake&gt;</li></ol></div>'
    )

    whole: SafeString = layout("Shop", page)
    titled: SafeString = layout(title="Shop", content=page, lang="fr")
    assert whole.startswith("<!doctype html>") and 'lang="fr"' in titled
    row_html: str = product_row(cls="item", product_id=1, name="Tea", price="2")
    assert row_html == '<li class="item" data-id="1"><span>Tea</span><span>2</span></li>'
    builder: Callable[[str, int, str, str], SafeString] = product_row
    assert isinstance(builder("a", 2, "b", "c"), SafeString)

    # SafeString: str that is never escaped again; + escapes the plain side.
    safe: SafeString = escape("<b>")
    joined: SafeString = safe + "<i>"
    prefixed: SafeString = "<i>" + safe
    from_class: SafeString = SafeString.escape("a & b")
    trusted: SafeString = SafeString("<em>ok</em>")
    again: SafeString = trusted.__html__()
    assert joined == "&lt;b&gt;&lt;i&gt;" and prefixed == "&lt;i&gt;&lt;b&gt;"
    assert from_class == "a &amp; b" and again == trusted

    # Foreign HTML objects (markupsafe.Markup) go in as they are.
    bold: Element = h.P(markupsafe.Markup("<b>bold</b>"), trusted)
    assert render(bold) == "<p><b>bold</b><em>ok</em></p>"

    # Elements, tags and comments.
    div: Tag = h.Div
    custom: Tag = Tag("my-widget")
    widget: Element = custom({"id": "w"}, "x", hidden=True)
    tag_name: str = widget.tag
    pair: Element = h.Fragment(h.Dt("a"), h.Dd("b"))
    listed: Element = h.Button(class_=["btn", None, {"on": True}], style={"color": "red"})
    assert render(pair) == "<dt>a</dt><dd>b</dd>"
    assert render(listed) == '<button class="btn on" style="color: red"></button>'
    attrs: Dict[str, object] = dict(widget.attrs)
    children: tuple[object, ...] = widget.children
    is_document: bool = page.doctype
    void: bool = h.Br.void
    name: str = div.name
    note: Comment = Comment("note")
    note_text: str = note.text
    assert (tag_name, name, void, is_document) == ("my-widget", "div", True, False)
    assert attrs == {"id": "w", "hidden": True} and children == ("x",)
    assert render(note) == "<!--note-->" and note_text == "note"
    element_html: SafeString = widget.__html__()
    assert element_html == '<my-widget id="w" hidden>x</my-widget>'

    # Attribute helpers.
    cls: Dict[str, str] = classes("btn", ["big"], {"active": True}, primary=True)
    style: Dict[str, str] = styles({"color": "red"}, margin_top="1px")
    data_attrs: Dict[str, AttrValue] = data({"role": "row"}, user_id=3)
    aria_attrs: Dict[str, AttrValue] = aria(hidden=True, label="Close")
    button: Element = h.Button(cls, style, data_attrs, aria_attrs, disabled=False)
    assert render(button) == (
        '<button class="btn big active primary" style="color: red; margin-top: 1px" '
        'data-role="row" data-user-id="3" aria-hidden="true" aria-label="Close"></button>'
    )

    script: SafeString = tojson({"a": "</script>"}, indent=None)
    assert script == '{"a": "\\u003c/script\\u003e"}'
    depth: int = MAX_DEPTH
    version: str = markup.__version__
    assert depth > 0 and version


if __name__ == "__main__":
    main()
