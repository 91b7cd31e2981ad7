"""What more than one @baked test file uses: the Jinja2 environment every
parity check compares against, the check that a baked function renders
as its plain builder does, and the order and product pages of the guide
and of issue 3 with their data.
"""

import jinja2
import pytest

from markup import SafeString, baked, h, render, when

JINJA = jinja2.Environment(autoescape=True)


def same_as_plain(builder, *args):
    """The baked function's output, checked against the plain tree's."""
    fn = baked(builder)
    try:
        want = render(builder(*args))
    except Exception as exc:
        with pytest.raises(type(exc)):
            fn(*args)
        return None
    got = fn(*args)
    assert isinstance(got, SafeString)
    assert got == want
    return got


def order_row(o):
    return h.Tr(
        {"class": when(o["overdue"], "overdue")},
        h.Td(h.A({"href": f"/orders/{o['id']}"}, f"#{o['id']}")),
        h.Td(o["customer"]),
        h.Td({"class": "num"}, f"{o['total']:.2f}"),
        h.Td(o["date"], when(o["overdue"], [" ", h.Em("overdue")])),
        h.Td([h.Span({"class": "tag"}, t) for t in o["tags"]]),
    )


def make_orders(n, hostile=False):
    name = "<script>alert('x')</script> & \"co\"" if hostile else "Customer"
    return [
        {
            "id": i,
            "customer": f"{name} {i}",
            "total": i * 10.125,
            "date": f"2026-11-{i % 28 + 1:02d}",
            "overdue": i % 3 == 0,
            "tags": [f"t{j}<" if hostile else f"t{j}" for j in range(i % 4)],
        }
        for i in range(n)
    ]


def product_row(cls, pid, name, price):
    return h.Li(
        {"class": cls, "data-id": pid},
        h.Span({"class": "name"}, name),
        h.Span({"class": "price"}, price),
    )


def product_page(title, rows):
    return h.Html(h.Body(h.Main(h.H1(title), h.Ul(rows))))


def products(escape_heavy):
    name = "Tea & <Cake> \"special\" 'n' more" if escape_heavy else "Green tea"
    return [
        {"id": i, "name": f"{name} {i}", "price": round(1.5 + i * 0.25, 2), "on_sale": i % 3 == 0}
        for i in range(50)
    ]
