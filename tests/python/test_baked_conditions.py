"""@baked conditions: when(), comparisons, contains(), any_of()/all_of()/
not_() against Jinja2's or/and/not, and the tests a builder could make on a
parameter while baking (is None, isinstance(), a bare and, bool literals)
whose answer would be frozen: each is refused, naming where it was made.
"""

import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markup import all_of, any_of, baked, contains, h, not_, per_call, render, when

from baked_pages import JINJA, same_as_plain

# ---------------------------------------------------------------------------
# when(), comparisons, contains()
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", [None, "", 0, 1, "<x>", [], ["a"]])
def test_when_as_child_and_attribute(value):
    same_as_plain(lambda v: h.P(when(v, "yes", "no")), value)
    same_as_plain(lambda v: h.P(when(v, h.B("yes"))), value)
    same_as_plain(lambda v: h.P({"class": when(v, "on", "off"), "title": when(v, "t")}, "x"), value)
    same_as_plain(lambda v: h.Input(disabled=when(v, True, False)), value)


def test_nested_when_and_comparisons():
    def badge(n):
        return h.Span(when(n > 10, "many", when(n > 1, "some", when(n == 1, "one", "none"))))

    for n in (0, 1, 5, 11):
        same_as_plain(badge, n)
    for value, other in ((1, 2), ("a", "a"), (2.5, 2)):
        for op in ("==", "!=", "<", "<=", ">", ">="):
            same_as_plain(eval(f"lambda a, b: h.P(when(a {op} b, 'T', 'F'))"), value, other)


def test_comparing_with_none_is_tested_per_call():
    same_as_plain(lambda note: h.P(when(note == None, "-", note)), None)  # noqa: E711
    same_as_plain(lambda note: h.P(when(note != None, note, "-")), "<n>")  # noqa: E711


def test_contains():
    same_as_plain(lambda tags: h.P(when(contains(tags, "new"), "NEW")), ["old", "new"])
    same_as_plain(lambda tags: h.P(when(contains(tags, "new"), "NEW")), "renewed")
    same_as_plain(lambda tags: h.P(when(contains(tags, "new"), "NEW")), [])


def test_when_with_a_constant_outside_templates_still_decides_at_once():
    assert when(True, "a", "b") == "a" and when(False, "a") is None


def test_a_dict_chosen_by_when_says_to_put_the_condition_in_the_values():
    # In plain code when() picks the dict at once and it becomes the
    # leading attributes; per call it would be a child, which no dict can
    # be: the error shows the way that works.
    assert render(h.Div(when(True, {"class": "a"}), "x")) == '<div class="a">x</div>'
    with pytest.raises(TypeError, match=r"\{'class': when\(cond, 'a'\)\}"):
        baked(lambda x: h.Div(when(x, {"class": "a"}), "x"))
    with pytest.raises(TypeError, match="cannot render a dict: a dict is an element's attr"):
        render(["x", {"class": "a"}])
    fn = baked(lambda x: h.Div({"class": when(x, "a")}, "x"))
    assert (fn(True), fn(False)) == ('<div class="a">x</div>', "<div>x</div>")


# ---------------------------------------------------------------------------
# any_of(), all_of(), not_()
# ---------------------------------------------------------------------------


# A test over the parameters a, b, c: a name, or (how, operands).
_TESTS = st.recursive(
    st.sampled_from("abc"),
    lambda inner: st.one_of(
        st.tuples(st.just("not_"), st.tuples(inner)),
        st.tuples(
            st.sampled_from(["any_of", "all_of"]),
            st.lists(inner, min_size=2, max_size=3).map(tuple),
        ),
    ),
    max_leaves=6,
)


_LOGIC = {"any_of": any_of, "all_of": all_of, "not_": not_}


_JINJA_LOGIC = {"any_of": " or ", "all_of": " and "}


def _as_helpers(test, params):
    if isinstance(test, str):
        return params[test]
    how, operands = test
    return _LOGIC[how](*(_as_helpers(x, params) for x in operands))


def _as_jinja(test):
    if isinstance(test, str):
        return test
    how, operands = test
    if how == "not_":
        return f"(not {_as_jinja(operands[0])})"
    return "(" + _JINJA_LOGIC[how].join(_as_jinja(x) for x in operands) + ")"


@given(
    _TESTS,
    st.lists(st.sampled_from([0, 1, "", "x", None, [], ["y"]]), min_size=3, max_size=3),
)
@settings(max_examples=150, deadline=None)
def test_any_of_all_of_not_test_as_jinja2s_or_and_not(test, values):
    def page(a, b, c):
        cond = _as_helpers(test, {"a": a, "b": b, "c": c})
        return h.P(
            [when(x, "1", "0") for x in (a, b, c)],
            when(cond, "T", "F"),
            h.Input(hidden=not_(cond)),
        )

    expr = _as_jinja(test)
    tpl = JINJA.from_string(
        "<p>{% for x in (a, b, c) %}{% if x %}1{% else %}0{% endif %}{% endfor %}"
        "{% if " + expr + " %}T{% else %}F{% endif %}"
        "<input{% if not " + expr + " %} hidden{% endif %}></p>"
    )
    want = tpl.render(dict(zip("abc", values)))
    assert baked(page)(*values) == want
    assert render(page(*values)) == want


_BUILDERS = {
    2: lambda helper: lambda a, b: h.B(helper(a, b)),
    3: lambda helper: lambda a, b, c: h.B(helper(a, b, c)),
}


@pytest.mark.parametrize(
    "values, want",
    [
        (("", "x"), "x"),
        (("n", "x"), "n"),
        ((None, "", "last"), "last"),
        (("a", "b", "c"), "a"),
    ],
)
def test_any_of_is_the_first_true_value_else_the_last(values, want):
    fn = baked(_BUILDERS[len(values)](any_of))
    assert fn(*values) == f"<b>{want}</b>" == render(h.B(any_of(*values)))
    tpl = JINJA.from_string("<b>{{ " + " or ".join(f"v{i}" for i in range(len(values))) + " }}</b>")
    assert fn(*values) == tpl.render({f"v{i}": v for i, v in enumerate(values)})


@pytest.mark.parametrize(
    "values, want",
    [(("a", ""), ""), (("a", "b"), "b"), (("", "b"), ""), (("a", "b", "c"), "c")],
)
def test_all_of_is_the_first_false_value_else_the_last(values, want):
    fn = baked(_BUILDERS[len(values)](all_of))
    assert fn(*values) == f"<b>{want}</b>" == render(h.B(all_of(*values)))


def test_all_of_and_any_of_read_no_operand_past_the_one_that_decides():
    calls = []

    def shout(x):
        calls.append(x)
        return x.upper()

    def page(user, nick):
        return h.P(
            when(all_of(user, user["admin"]), "admin", "guest"),
            h.I(any_of(nick, per_call(shout, user["name"]))),
            h.B(any_of(all_of(user, user["nick"]), "anon")),
        )

    fn = baked(page)
    # user None: user["admin"] would raise; the nick decides any_of.
    assert fn(None, "kim") == "<p>guest<i>kim</i><b>anon</b></p>"
    assert calls == []
    user = {"admin": True, "name": "ann", "nick": "a"}
    assert fn(user, "") == "<p>admin<i>ANN</i><b>a</b></p>"
    assert calls == ["ann"]


def test_logic_helpers_outside_templates_are_pythons_operators():
    assert any_of(0, "", "x", "y") == "x" and any_of(0, "") == ""
    assert all_of(1, "a", []) == [] and all_of(1, "a") == "a"
    assert not_("") is True and not_([0]) is False
    with pytest.raises(TypeError, match="needs at least one value"):
        any_of()


def test_a_bare_and_names_the_logic_helpers():
    with pytest.raises(TypeError, match=r"all_of\(a, b\), any_of\(a, b\) and not_\(a\)"):
        baked(lambda x, y: h.P(when(x and y, "-")))


def test_a_frozen_test_inside_a_logic_helper_is_refused():
    with pytest.raises(TypeError, match=r"all_of\(\) got the constant (True|False)"):
        baked(lambda x, y: h.P(when(all_of(x is None, y), "-")))


def test_a_logic_helper_formatted_into_a_text_is_refused_by_its_name():
    with pytest.raises(TypeError, match=r"any_of\(nick, 'x'\) is formatted into a text"):
        baked(lambda nick: h.P(f"Hi {any_of(nick, 'x')}"))


# ---------------------------------------------------------------------------
# Tests whose answer would be frozen, and bool literals
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "builder",
    [
        lambda note: h.P(when(note is None, "-", note)),
        lambda note: h.P(when(note is not None, note, "-")),
        lambda s: h.P(s, when(str(s) == "a", "!", "?")),
        lambda s: h.P(s, when(f"{s}" == "a", "!", "?")),
    ],
    ids=["is None", "is not None", "str() ==", "f-string =="],
)
def test_a_test_frozen_before_when_sees_it_is_refused(builder):
    with pytest.raises(TypeError, match=r"when\(\) got the constant (True|False)|is compared"):
        baked(builder)


def test_is_none_test_is_caught_as_unused_or_bool():
    def hidden_unless(x):
        return h.P("shown" if x is None else "other")

    with pytest.raises(TypeError, match=r"parameter 'x' is not used.*x is None"):
        baked(hidden_unless)

    def flag(x):
        return h.Input({"value": x, "disabled": x is None})

    with pytest.raises(
        TypeError, match=r"attribute 'disabled' of <input> is the constant False.*parameter"
    ):
        baked(flag)


def test_a_literal_bool_attribute_renders_as_render_writes_it():
    def form(v):
        return h.Form(h.Input(value=v, required=True), h.Input(type="checkbox", checked=False))

    assert baked(form)("a<b") == render(form("a<b"))
    assert baked(form)("x") == '<form><input value="x" required><input type="checkbox"></form>'

    # Components with literal flags, called by a page, as Jinja2 users write.
    def field(name, required=False):
        return h.Input(name=name, required=required)

    page = baked(lambda n: h.Form(field(n, required=True), field("b")))
    assert page("a") == '<form><input name="a" required><input name="b"></form>'


def _flag_of(helper):
    return lambda v: h.Input(value=v, disabled=helper(v))


@pytest.mark.parametrize(
    "builder, made_by",
    [
        (_flag_of(lambda v: v is None), r"`is` in <lambda>\(\)"),
        (_flag_of(lambda v: v is not None), r"`is` in <lambda>\(\)"),
        (_flag_of(lambda v: isinstance(v, str)), r"isinstance\(\) in <lambda>\(\)"),
        (_flag_of(lambda v: hasattr(v, "x")), r"hasattr\(\) in"),
        (_flag_of(lambda v: len(str(v)) > 3), r"len\(\) in"),
        (_flag_of(lambda v: "a" in str(v)), r"`in` in"),
        (_flag_of(lambda v: callable(v)), r"callable\(\) in"),
        (_flag_of(lambda v: type(v) == str), r"type\(\) in"),  # noqa: E721
    ],
    ids=["is", "is not", "isinstance", "hasattr", "len", "in", "callable", "type"],
)
def test_a_bool_a_test_on_a_parameter_could_have_made_is_refused(builder, made_by):
    with pytest.raises(TypeError, match=r"attribute 'disabled' of <input> is the constant") as e:
        baked(builder)
    assert re.search(made_by, str(e.value)), str(e.value)


def _if_none(v):
    if v is None:  # a jump on None, without IS_OP, on 3.11 and newer
        flag = True
    else:
        flag = False
    return h.Input(value=v, disabled=flag)


def _caught(v):
    try:
        int(v)
        numeric = True
    except TypeError:
        numeric = False
    return h.Input(value=v, disabled=numeric)


@pytest.mark.parametrize(
    "builder, made_by",
    [
        (_if_none, r"`is( None)?` in _if_none\(\)"),
        (_flag_of(lambda v: bool(f"u{v}")), r"bool\(\) in"),
        (_flag_of(lambda v: f"u-{v}" == "u-admin"), r"comparison of a formatted text"),
        (_caught, r"refused use"),
    ],
    ids=["if is None", "bool()", "formatted ==", "caught refusal"],
)
def test_less_obvious_tests_on_a_parameter_are_seen_too(builder, made_by):
    with pytest.raises(TypeError, match=r"is the constant") as e:
        baked(builder)
    assert re.search(made_by, str(e.value)), str(e.value)


def test_a_constant_condition_under_another_profiler_is_refused():
    sys.setprofile(lambda *a: None)
    try:
        with pytest.raises(TypeError, match=r"when\(\) got the constant .*another profiler"):
            baked(lambda v: h.P(v, when(v is None, "anon", "user")))
    finally:
        sys.setprofile(None)


def test_a_constant_condition_of_any_type_is_checked():
    # len() of a formatted text is an int, frozen as surely as a bool.
    with pytest.raises(TypeError, match=r"when\(\) got the constant -?\d+, and len\(\)"):
        baked(lambda v: h.P(v, when(len(f"{v}") - 20, "long")))


def test_a_test_anywhere_in_the_traced_code_refuses_literal_bools_too():
    # Sound rather than clever: the `is` in the component might have made
    # the True, so the literal one is refused with it, saying where.
    def icon(name, small=None):
        return h.I(name, hidden=small is None)

    with pytest.raises(TypeError, match=r"`is` in icon\(\) at line \d+"):
        baked(lambda n: h.P(icon(n), h.Input(required=True)))


def test_literal_bools_under_a_profiler_are_refused_with_the_reason():
    sys.setprofile(lambda *a: None)
    try:
        with pytest.raises(TypeError, match="another profiler"):
            baked(lambda v: h.Input(value=v, required=True))
    finally:
        sys.setprofile(None)
    assert sys.getprofile() is None
    assert baked(lambda v: h.Input(value=v, required=True))("x") == '<input value="x" required>'


def test_a_bool_child_is_still_refused():
    with pytest.raises(TypeError, match=r"a bool child \(True\)"):
        baked(lambda v: h.P(v, True))
