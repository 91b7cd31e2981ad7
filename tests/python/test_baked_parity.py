"""@baked whole pages against Jinja2 and the plain tree: the orders page of
the guide, the 50-row product page of issue 3, and a card filled with
random records (fields, loops, conditions and arithmetic together).
"""

import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markup import baked, h, looped, render, when

from baked_pages import JINJA, make_orders, order_row, product_page, product_row, products

# ---------------------------------------------------------------------------
# The page of the guide, against Jinja2
# ---------------------------------------------------------------------------


def orders_page(title, user, orders, page, pages):
    return h.HtmlDocument(
        h.Head(h.Title(title, " - Shop")),
        h.Body(
            when(user, h.Span("Signed in as ", user.name), h.A({"href": "/login"}, "Sign in")),
            h.Table(h.Tbody([order_row(o) for o in orders])),
            when(page > 1, h.A({"href": f"?page={page - 1}"}, "Previous")),
            [when(p == page, h.Span(p), h.A({"href": f"?page={p}"}, p)) for p in pages],
        ),
    )


ORDERS_JINJA = JINJA.from_string(
    "<!doctype html><html><head><title>{{ title }} - Shop</title></head><body>"
    "{% if user %}<span>Signed in as {{ user.name }}</span>"
    '{% else %}<a href="/login">Sign in</a>{% endif %}'
    "<table><tbody>{% for o in orders %}"
    '<tr{% if o.overdue %} class="overdue"{% endif %}>'
    '<td><a href="/orders/{{ o.id }}">#{{ o.id }}</a></td>'
    "<td>{{ o.customer }}</td>"
    '<td class="num">{{ "%.2f"|format(o.total) }}</td>'
    "<td>{{ o.date }}{% if o.overdue %} <em>overdue</em>{% endif %}</td>"
    '<td>{% for t in o.tags %}<span class="tag">{{ t }}</span>{% endfor %}</td>'
    "</tr>{% endfor %}</tbody></table>"
    '{% if page > 1 %}<a href="?page={{ page - 1 }}">Previous</a>{% endif %}'
    "{% for p in pages %}{% if p == page %}<span>{{ p }}</span>"
    '{% else %}<a href="?page={{ p }}">{{ p }}</a>{% endif %}{% endfor %}'
    "</body></html>"
)


@pytest.mark.parametrize("hostile", [False, True])
@pytest.mark.parametrize("signed_in", [False, True])
def test_orders_page_equals_jinja2_and_the_plain_tree(hostile, signed_in):
    page = baked(orders_page)
    user = types.SimpleNamespace(name="Ann <admin>") if signed_in else None
    for n, current in ((0, 1), (1, 1), (7, 3), (40, 10)):
        orders = make_orders(n, hostile)
        args = ("Orders & <more>", user, orders, current, range(1, 11))
        got = page(*args)
        if signed_in:  # plain Python evaluates both of when()'s branches: user.name
            assert got == render(orders_page(*args))
        assert got == ORDERS_JINJA.render(
            title=args[0], user=user, orders=orders, page=current, pages=range(1, 11)
        )


# ---------------------------------------------------------------------------
# The 50-row product page of issue 3
# ---------------------------------------------------------------------------


PRODUCT_JINJA = JINJA.from_string(
    "<html><body><main><h1>{{ title }}</h1><ul>"
    "{% for p in products %}"
    '<li{% if p.on_sale %} class="sale"{% endif %} data-id="{{ p.id }}">'
    '<span class="name">{{ p.name }}</span>'
    '<span class="price">{{ p.price }}</span></li>'
    "{% endfor %}</ul></main></body></html>"
)


@pytest.mark.parametrize("escape_heavy", [False, True])
def test_product_page_equals_jinja(escape_heavy):
    row = baked(product_row)
    page = baked(product_page)
    items = products(escape_heavy)
    title = "Products & <offers>" if escape_heavy else "Products"

    def rows_of(make):
        return [
            make("sale" if p["on_sale"] else None, p["id"], p["name"], p["price"]) for p in items
        ]

    out = page(title, rows_of(row))
    assert out == PRODUCT_JINJA.render(title=title, products=items)
    assert out == render(product_page(title, rows_of(product_row)))
    assert out.count("<li") == 50 and out.count('class="sale"') == 17


# ---------------------------------------------------------------------------
# Random data
# ---------------------------------------------------------------------------


hostile_text = st.text(alphabet=st.sampled_from("a<>&\"' é\u2028"), max_size=8)


scalar = st.one_of(
    st.none(), st.integers(-50, 50), st.floats(-1e3, 1e3, allow_nan=False), hostile_text
)


record = st.fixed_dictionaries(
    {"name": scalar, "n": st.integers(-5, 5), "tags": st.lists(hostile_text, max_size=3)},
    optional={"extra": scalar},
)


def card(rows, title, limit):
    return h.Section(
        h.H2(title, when(title, "", " (untitled)")),
        h.Ul(
            [
                h.Li(
                    {"class": loop.cycle("a", "b"), "data-n": r["n"] * 2 + 1},
                    f"{loop.index}. ",
                    r["name"],
                    when(r["n"] > limit, h.B(" big"), [" small ", r["n"] - limit]),
                    [h.I(t, when(t == "a", "!")) for t in r["tags"]],
                    h.Span(r["extra"]),
                )
                for r, loop in looped(rows)
            ]
        ),
    )


BAKED_CARD = baked(card)


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(record, max_size=5), title=scalar, limit=st.integers(-3, 3))
def test_random_data_renders_as_the_plain_tree(rows, title, limit):
    try:
        want = render(card(rows, title, limit))
    except Exception as exc:
        with pytest.raises(type(exc)):
            BAKED_CARD(rows, title, limit)
        return
    assert BAKED_CARD(rows, title, limit) == want
