"""@baked itself: what it accepts and refuses at decoration, the decorated
object (signature, metadata, pickling, slot_count), how a call binds its
arguments as a Python function would, and components: baked or plain
builders called while baking, inlined into the template that calls them.

Values, fields, loops, conditions, expressions and calls inside a template
have their own files (test_baked_*.py).
"""

import copy
import inspect
import pickle
import sys
import threading

import pytest

from markup import SafeString, baked, h, render, when

from baked_pages import make_orders, order_row, product_page, product_row

# ---------------------------------------------------------------------------
# Decoration: what a builder may be and return
# ---------------------------------------------------------------------------


def test_not_callable():
    with pytest.raises(TypeError, match="expects a function"):
        baked(42)


@pytest.mark.parametrize(
    "result, shown",
    [
        ("text", "str"),
        (None, "NoneType"),
        (42, "int"),
        ({"a": 1}, "dict"),
        (["text"], "item 1 is a str"),
    ],
)
def test_builder_must_return_elements(result, shown):
    def returns(x):
        element = h.P(x)
        return [element, *result] if isinstance(result, list) else result

    with pytest.raises(TypeError, match=shown):
        baked(returns)


def test_builder_returning_its_parameter():
    with pytest.raises(TypeError, match="stand-in"):
        baked(lambda x: x)


def test_builder_returning_list_and_safestring():
    pair = baked(lambda a, b: [h.Dt(a), h.Dd(b)])
    assert pair("x", "<y>") == "<dt>x</dt><dd>&lt;y&gt;</dd>"
    pair_t = baked(lambda a: (h.Dt(a), SafeString("<hr>")))
    assert pair_t(1) == "<dt>1</dt><hr>"
    fixed = baked(lambda: SafeString("<p>static</p>"))
    assert fixed() == "<p>static</p>"
    assert fixed.slot_count == 0


def test_document_and_void_elements():
    def page(title, value):
        return h.HtmlDocument(h.Head(h.Title(title)), h.Body(h.Input({"value": value}), h.Br()))

    f = baked(page)
    for title, value in [("a<b", 'c"d'), ("", None), ("日本", 0)]:
        assert f(title, value) == render(page(title, value))
    assert f("t", "v").startswith("<!doctype html><html>")


def test_builder_exception_propagates():
    def broken(x):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        baked(broken)


def test_pythons_own_error_about_a_stand_in_keeps_it_as_the_cause():
    with pytest.raises(TypeError, match="needs the real value now") as exc:
        baked(lambda xs: h.P(", ".join(xs)))
    assert type(exc.value.__cause__) is TypeError
    assert "expected str instance" in str(exc.value.__cause__)


class _OwnError(TypeError):
    pass


@pytest.mark.parametrize(
    "error",
    [
        TypeError("Stand size must be an int"),
        TypeError("expected a _Text instance"),  # a stand-in's name, not Python's phrasing
        _OwnError("expected str instance, _Item found"),  # a subclass keeps its type
    ],
)
def test_a_builders_own_type_error_goes_through_unchanged(error):
    def builder(x):
        raise error

    with pytest.raises(type(error)) as exc:
        baked(builder)
    assert exc.value is error


def test_named_function_in_refusal_message():
    def greeting(name):
        return h.P("Hello, " + name if name else "nobody")

    with pytest.raises(
        TypeError, match=r"@baked .*greeting\(\): parameter 'name' is used as a truth value"
    ):
        baked(greeting)


def test_unused_parameter():
    def row(name, unused):
        return h.Li(name)

    with pytest.raises(TypeError, match=r"parameter 'unused' is not used"):
        baked(row)


def test_var_args_kwargs_and_positional_only():
    def star(*items):
        return h.Ul(items)

    def starstar(**attrs):
        return h.Div(attrs)

    def posonly(a, /, b):
        return h.P(a, b)

    with pytest.raises(TypeError, match=r"\*items is not supported.*list"):
        baked(star)
    with pytest.raises(TypeError, match=r"\*\*attrs is not supported"):
        baked(starstar)
    with pytest.raises(TypeError, match=r"parameter 'a' is positional-only.*'/'"):
        baked(posonly)


def test_keyword_only_parameters_are_fine():
    def tag(label, *, cls=None):
        return h.Span({"class": cls}, label)

    f = baked(tag)
    assert f("x", cls="c") == '<span class="c">x</span>'
    assert f("x") == "<span>x</span>"
    with pytest.raises(TypeError) as baked_err:
        f("x", "c")
    with pytest.raises(TypeError) as plain_err:
        tag("x", "c")
    assert str(baked_err.value) == str(plain_err.value)


def test_placeholder_outside_baked_is_rejected_when_rendered():
    kept = []

    def keep(x):
        kept.append(x)
        return h.P(x)

    baked(keep)
    (placeholder,) = kept
    tree = h.Div(placeholder)  # building is allowed ...
    with pytest.raises(TypeError, match=r"stand-in for 'x' of @baked .*keep\(\)"):
        render(tree)  # ... rendering it without @baked is not
    other = kept[0]
    with pytest.raises(TypeError, match="another decoration"):
        baked(lambda y: h.Div(y, other))


# ---------------------------------------------------------------------------
# The decorated object: signature, metadata, calls
# ---------------------------------------------------------------------------


def documented(title, items=(), *, cls="list"):
    """Render a titled list."""
    return h.Section({"class": cls}, h.H2(title), h.Ul(items))


def test_signature_name_and_doc_preserved():
    f = baked(documented)
    assert inspect.signature(f) == inspect.signature(documented)
    assert f.__name__ == "documented"
    assert f.__qualname__ == "documented"
    assert f.__doc__ == "Render a titled list."
    assert f.__module__ == __name__
    assert f.__wrapped__ is documented
    assert "documented" in repr(f)
    assert f.slot_count == 3


@baked
def decorated_at_module_level(title):
    return h.P(title)


def test_pickled_by_reference():
    f = decorated_at_module_level
    assert pickle.loads(pickle.dumps(f)) is f
    assert copy.deepcopy(f) is f
    assert f("<") == "<p>&lt;</p>"


def test_positional_keyword_and_default_calls():
    f = baked(documented)
    expected = render(documented("T", [h.Li(1)], cls="x"))
    assert f("T", [h.Li(1)], cls="x") == expected
    assert f(title="T", items=[h.Li(1)], cls="x") == expected
    assert f("T", items=[h.Li(1)], cls="x") == expected
    assert f(cls="x", items=[h.Li(1)], title="T") == expected
    assert f("T") == render(documented("T"))
    # A keyword built at run time (not interned) still binds.
    key = "".join(["ti", "tle"])
    assert f(**{key: "T"}) == render(documented("T"))


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((), {}),
        (("T", [], "x"), {}),
        (("T",), {"title": "U"}),
        (("T",), {"nope": 1}),
        ((), {"items": []}),
        ((), {"cls": "x"}),
        (("T", [], "x"), {"cls": "y"}),
        (("T", [], "x", "z"), {}),
    ],
)
def test_wrong_arguments_give_pythons_type_error(args, kwargs):
    f = baked(documented)
    with pytest.raises(TypeError) as baked_err:
        f(*args, **kwargs)
    with pytest.raises(TypeError) as plain_err:
        documented(*args, **kwargs)
    assert str(baked_err.value) == str(plain_err.value)


def test_missing_arguments_messages():
    def three(a, b, c, d=1):
        return h.P(a, b, c, d)

    f = baked(three)
    for args in [(), (1,), (1, 2)]:
        with pytest.raises(TypeError) as baked_err:
            f(*args)
        with pytest.raises(TypeError) as plain_err:
            three(*args)
        assert str(baked_err.value) == str(plain_err.value)
    with pytest.raises(TypeError) as baked_err:
        f(1, 2, 3, 4, 5)
    with pytest.raises(TypeError) as plain_err:
        three(1, 2, 3, 4, 5)
    assert str(baked_err.value) == str(plain_err.value)


def test_no_parameters():
    f = baked(lambda: h.P("static"))
    assert f() == "<p>static</p>"
    with pytest.raises(TypeError, match="takes 0 positional arguments but 1 was given"):
        f(1)

    def one_kw(*, k):
        return h.P(k)

    g = baked(one_kw)
    for args, kwargs in [((1,), {"k": 2}), ((1, 2), {}), ((), {})]:
        with pytest.raises(TypeError) as baked_err:
            g(*args, **kwargs)
        with pytest.raises(TypeError) as plain_err:
            one_kw(*args, **kwargs)
        assert str(baked_err.value) == str(plain_err.value)


def test_positional_calls_bind_as_python_does():
    # A call with exactly one positional argument per parameter takes the
    # short binding; everything around it binds as a Python function would.
    @baked
    def f(a, *, b):
        return h.P(a, b)

    def plain(a, *, b):
        return None

    for args, kwargs in [((1, 2), {}), ((1,), {}), ((), {"a": 1, "b": 2}), ((1,), {"b": 2})]:
        try:
            plain(*args, **kwargs)
        except TypeError as exc:
            with pytest.raises(TypeError) as got:
                f(*args, **kwargs)
            assert str(got.value).split("(", 1)[1] == str(exc).split("(", 1)[1]
        else:
            assert f(*args, **kwargs) == "<p>12</p>"

    @baked
    def g(a, b="<d>"):
        return h.P(a, b)

    assert g(1) == "<p>1&lt;d&gt;</p>"
    assert g(1, 2) == "<p>12</p>"
    with pytest.raises(TypeError, match="takes from 1 to 2 positional arguments but 3 were given"):
        g(1, 2, 3)


def test_many_parameters():
    names = [f"p{i}" for i in range(40)]
    src = f"def wide({', '.join(names)}):\n    return h.Div({', '.join(names)})\n"
    namespace = {"h": h}
    exec(src, namespace)
    f = baked(namespace["wide"])
    values = [f"<{i}>" for i in range(40)]
    assert f(*values) == render(namespace["wide"](*values))
    assert f(**dict(zip(names, values))) == render(namespace["wide"](*values))


def test_ten_thousand_slots():
    def big(a, b):
        return h.Ul([h.Li({"class": a}, b, " #", str(i)) for i in range(5000)])

    f = baked(big)
    assert f.slot_count == 10000
    for a, b in [("x", "y"), (None, "<&>"), (True, h.B(1))]:
        assert f(a, b) == render(big(a, b))


def test_default_values_are_rendered_per_call():
    marker = ["<default>"]
    f = baked(lambda items=marker: h.Ul(items))
    assert f() == "<ul>&lt;default&gt;</ul>"
    marker.append("more")
    assert f() == "<ul>&lt;default&gt;more</ul>"


def test_no_python_code_runs_per_call():
    row = baked(product_row)
    page = baked(product_page)
    rows = [row("sale", 1, "tea", 1.5), row(None, 2, h.B("x"), SafeString("<i>"))]
    events = []

    def profiler(frame, event, arg):
        if event == "call":
            events.append(frame.f_code.co_name)

    sys.setprofile(profiler)
    try:
        page("Products", rows)
        row(cls=None, pid=3, name="<b>", price=2)
    finally:
        sys.setprofile(None)
    assert events == []


# ---------------------------------------------------------------------------
# Components: baked or plain builders inlined while baking
# ---------------------------------------------------------------------------


def test_a_baked_function_called_while_baking_is_inlined():
    item = baked(lambda label: h.Li(label))
    outer = baked(lambda x: h.Ul(item(x)))
    assert outer("<a>") == "<ul><li>&lt;a&gt;</li></ul>"
    inside_loop = baked(lambda xs: h.Ul([item(x) for x in xs]))
    assert inside_loop(["a", "<b>"]) == "<ul><li>a</li><li>&lt;b&gt;</li></ul>"


def test_components_baked_or_plain_are_inlined():
    row = baked(order_row)  # a baked component inside a loop
    page = baked(lambda orders: h.Table([row(o) for o in orders]))
    plain = baked(lambda orders: h.Table([order_row(o) for o in orders]))
    orders = make_orders(5, hostile=True)
    assert page(orders) == plain(orders) == render(h.Table([order_row(o) for o in orders]))
    # the component on its own still renders per call
    assert row(orders[0]) == render(order_row(orders[0]))


def test_an_inlined_component_takes_its_own_bool_defaults():
    # A bool default of a baked component inlined into another is a
    # constant of the component, not the frozen answer of a test: when() in
    # the component tests it, as it does when the component is called on
    # its own. A bool the caller computes may be such an answer (`o.note is
    # None` is False while baking, whatever the data): still refused.
    def card(o, show_note=False, wide=True):
        return h.Div(
            {"class": when(wide, "wide", "narrow"), "hidden": when(show_note, None, True)},
            o["id"],
            when(show_note, h.P(o["note"])),
        )

    baked_card = baked(card)
    page = baked(
        lambda orders, note: h.Main(
            [baked_card(o) for o in orders],
            [baked_card(o, show_note=note, wide=note == 1) for o in orders],
            baked_card(orders[0]),
        )
    )
    orders = [{"id": 1, "note": "a & b"}, {"id": 2, "note": "<x>"}]
    for note in (True, False, 1):
        want = render(
            h.Main(
                [card(o) for o in orders],
                [card(o, show_note=note, wide=note == 1) for o in orders],
                card(orders[0]),
            )
        )
        assert page(orders, note) == want
    assert 'class="wide" hidden' in want
    with pytest.raises(TypeError, match=r"when\(\) got the constant False, and `is` in"):
        baked(lambda orders: h.Main([baked_card(o, o["note"] is None) for o in orders]))
    # A flag written as True or False, where no test could have made it,
    # is the constant it looks like.
    for literal in (
        lambda orders: h.Main([baked_card(o, show_note=True) for o in orders]),
        lambda orders: h.Main(baked_card(orders[0], wide=False)),
    ):
        assert baked(literal)(orders) == render(literal(orders))
    # a loop whose items give different values is still refused
    with pytest.raises(TypeError, match="differ"):
        baked(lambda xs: h.Ul([baked_card(x, show_note=i) for i, x in enumerate(xs)]))


def test_a_baked_layout_called_with_stand_ins_inside_a_list_is_inlined():
    layout = baked(lambda title, content: h.Main(h.H1(title), content))
    looped_layout = baked(lambda title, items: h.Main(h.H1(title), [h.P(i) for i in items]))
    page = baked(lambda x: layout("Fixed", [h.P(x["a"]), h.P(x["b"])]))
    assert page({"a": "<1>", "b": 2}) == "<main><h1>Fixed</h1><p>&lt;1&gt;</p><p>2</p></main>"
    page2 = baked(lambda x: looped_layout("T", [x["a"], x["b"]]))
    assert page2({"a": "<1>", "b": 2}) == "<main><h1>T</h1><p>&lt;1&gt;</p><p>2</p></main>"


def test_a_template_that_calls_itself_through_a_field_raises_recursion_error():
    @baked
    def node(n):
        return h.Div(n.child)

    class Node:
        child = property(lambda self: node(Node()))

    outcome = []

    def run():
        try:
            node(Node())
        except RecursionError:
            outcome.append("RecursionError")

    threading.stack_size(512 * 1024)
    try:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(0)
    assert outcome == ["RecursionError"]
