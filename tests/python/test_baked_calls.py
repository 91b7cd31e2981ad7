"""@baked calls made per call: methods of fields, functions given as
parameters, and per_call() (also inlined in a component); each is called
where its result is used, names its path when it fails, and may change
the data being rendered without crashing the template.
"""

import pytest

from markup import baked, classes, h, per_call, render, when

from baked_pages import JINJA


class Order:
    def __init__(self, id, name):
        self.id, self.name = id, name

    def get_absolute_url(self):
        return f"/orders/{self.id}/?tab=lines&x=<1>"

    def label(self, prefix, sep=": "):
        return f"{prefix}{sep}{self.name}"

    def fail(self):
        if self.id == 2:
            raise ValueError("no label for 2")
        return "ok"


def test_methods_and_functions_are_called_per_call_as_jinja2_calls_them():
    def page(orders, fmt):
        return h.Ul(
            [
                h.Li(
                    h.A({"href": o.get_absolute_url()}, o.label("Order", sep=" - ")),
                    o.name.upper(),
                    fmt(o.id),
                )
                for o in orders
            ]
        )

    fn = baked(page)
    orders = [Order(1, "Ann & <Bo>"), Order(2, "Cy \"'")]
    fmt = "#{:04d}".format
    assert fn(orders, fmt) == render(page(orders, fmt))
    tpl = JINJA.from_string(
        '<ul>{% for o in orders %}<li><a href="{{ o.get_absolute_url() }}">'
        "{{ o.label('Order', sep=' - ') }}</a>{{ o.name.upper() }}{{ fmt(o.id) }}</li>"
        "{% endfor %}</ul>"
    )
    assert fn(orders, fmt) == tpl.render(orders=orders, fmt=fmt)
    # each call calls again: nothing is kept from an earlier call
    orders[0].name = "<changed>"
    assert "&lt;CHANGED&gt;" in fn(orders, fmt)


def test_a_failing_method_names_its_path_and_keeps_its_type():
    fn = baked(lambda orders: h.Ul([h.Li(o.fail()) for o in orders]))
    with pytest.raises(ValueError, match=r"orders\[1\]\.fail\(\.\.\.\): no label for 2"):
        fn([Order(1, "a"), Order(2, "b")])
    with pytest.raises(AttributeError, match=r"orders\[0\]\.nope"):
        baked(lambda orders: h.Ul([h.Li(o.nope()) for o in orders]))([Order(1, "a")])


def test_a_call_is_made_where_its_result_is_used():
    # As documented: the result of a call is not kept between the places
    # that use it; each use calls again (a plain call of the builder calls
    # once and uses the result twice).
    class Counter:
        n = 0

        def tick(self):
            self.n += 1
            return self.n

    def page(c):
        t = c.tick()
        return h.P(t, "-", t)

    assert baked(page)(Counter()) == "<p>1-2</p>"
    assert render(page(Counter())) == "<p>1-1</p>"


def test_a_call_that_changes_the_data_being_rendered_cannot_crash():
    # The template walks lists by index and holds what it reads; a function
    # called per call may empty the very list or dict being rendered.
    def clear(xs):
        xs.clear()
        return "cleared"

    fn = baked(
        lambda xs, d: h.Ul([h.Li(x, per_call(clear, xs), d["k"], per_call(clear, d)) for x in xs])
    )
    for _ in range(3):
        xs, d = ["<a>", "b", "c"], {"k": "v&"}
        got = fn(xs, d)
        assert got == "<ul><li>&lt;a&gt;clearedv&amp;cleared</li></ul>"
    fn2 = baked(lambda d: h.P(d["k"], per_call(clear, d), d["k"]))
    with pytest.raises(KeyError, match="k"):
        fn2({"k": "v"})


def test_per_call_runs_a_function_on_each_calls_values():
    def page(tags, items):
        return h.Div(
            h.P(per_call(", ".join, tags), " (", per_call(len, tags), ")"),
            h.Ul([h.Li(i) for i in per_call(sorted, items, reverse=True)]),
            when(per_call(len, items) > 2, h.P("many")),
        )

    fn = baked(page)
    for tags, items in ((["a&b", "<c>"], [3, 1, 2]), ([], []), (["x"], ["<"])):
        assert fn(tags, items) == render(page(tags, items))
    # outside a template it calls at once
    assert per_call(len, [1, 2]) == 2
    # in a builder, a call with nothing per call would be made once, when
    # baking: refused (markup's own helpers still take constants there)
    with pytest.raises(TypeError, match=r"per_call\(len, \.\.\.\) has no argument"):
        baked(lambda x: h.P(x, per_call(len, [1, 2])))
    assert baked(lambda x: h.P(classes("a", "b"), x))("<") == '<p class="a b">&lt;</p>'


def test_range_over_a_parameter_is_made_per_call():
    with pytest.raises(TypeError, match=r"per_call\(range"):
        baked(lambda n: h.P([h.A(p) for p in range(1, n + 1)]))
    pages = baked(
        lambda n: h.Nav([h.A({"href": f"?page={p}"}, p) for p in per_call(range, 1, n + 1)])
    )
    assert pages(2) == '<nav><a href="?page=1">1</a><a href="?page=2">2</a></nav>'
    assert pages(0) == "<nav></nav>"


def test_per_call_in_a_component_inlined_with_a_constant():
    # A regression: the component's own decoration saw a parameter in
    # per_call(); inlined with a constant it is called once, with that
    # constant, as the plain builder calls it.
    def money(n):
        return f"{n:.2f} EUR"

    def badge(o, n):
        return h.Span(o["name"], " ", per_call(money, n))

    baked_badge = baked(badge)

    def page(o, k):
        return h.Div(baked_badge(o, 3), baked_badge(o, k))

    fn = baked(page)
    for o, k in (({"name": "<a>"}, 1.5), ({"name": "b&"}, 0)):
        assert fn(o, k) == render(page(o, k))
    # the page's own per_call with no per-call argument is still refused
    with pytest.raises(TypeError, match=r"per_call\(money, \.\.\.\) has no argument"):
        baked(lambda o: h.Div(baked_badge(o, 3), per_call(money, 3)))
