"""@baked loops: comprehensions over a per-call iterable, nested loops and
loops side by side, unpacking, looped() and loop.* against Jinja2's loop
variable, and what a loop cannot bake (enumerate, zip, filters, counters,
a loop cut short or used twice).
"""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markup import Tag, baked, h, looped, render, when

from baked_pages import JINJA, same_as_plain

# ---------------------------------------------------------------------------
# Loops over any iterable
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "items",
    [[], ["a"], ["a", "<b>", "c"], ("x", "y"), range(4), {"k1": 1, "k2": 2}, "str"],
    ids=["empty", "one", "three", "tuple", "range", "dict", "str"],
)
def test_loop_over_any_iterable(items):
    same_as_plain(lambda xs: h.Ul([h.Li(x) for x in xs]), items)
    same_as_plain(lambda xs: h.Ul((h.Li(x) for x in xs)), items)


def test_loop_over_a_generator_and_an_iterator():
    fn = baked(lambda xs: h.Ol([h.Li(x) for x in xs]))
    assert fn(x * 2 for x in range(3)) == "<ol><li>0</li><li>2</li><li>4</li></ol>"
    assert fn(iter(["<"])) == "<ol><li>&lt;</li></ol>"


def test_loop_bodies_of_several_elements_and_static_parts():
    def dl(pairs):
        return h.Dl(h.Dt("head"), [[h.Dt(k), h.Hr(), h.Dd(v)] for k, v in pairs], h.Dd("tail"))

    same_as_plain(dl, [("a", "1"), ("<b>", "2")])
    same_as_plain(dl, [])
    # a loop whose body starts and ends with the same static element
    same_as_plain(lambda xs: h.Div([[h.Hr(), h.P(x), h.Hr()] for x in xs]), ["a", "b", "c"])
    same_as_plain(lambda xs: h.Div(h.Hr(), [[h.P(x), h.Hr()] for x in xs]), ["a", "b"])


def test_nested_loops_and_loops_side_by_side():
    def grid(rows, cols):
        return h.Table(
            h.Tr([h.Th(c) for c in cols]),
            [h.Tr([h.Td(r["name"], ":", c) for c in cols]) for r in rows],
            [h.Tr(h.Td(x)) for r in rows for x in r["tags"]],
        )

    rows = [
        {"name": "<r1>", "tags": ["a", "b"]},
        {"name": "r2", "tags": []},
        {"name": "r3", "tags": ["c"]},
    ]
    same_as_plain(grid, rows, ["c1", "<c2>"])
    same_as_plain(grid, [], [])
    same_as_plain(grid, rows, [])


def test_loop_body_uses_outer_parameters():
    same_as_plain(
        lambda items, sel: h.Ul([h.Li({"class": when(i == sel, "on")}, i) for i in items]),
        [1, 2, 3],
        2,
    )


@pytest.mark.parametrize(
    "tag", ["title", "textarea", "iframe", "xmp", "noembed", "noframes", "noscript", "template"]
)
def test_regress_a_condition_or_loop_first_in_an_element_that_is_not_plain_html(tag):
    # A regression: where the start tag's '>' was not written at once
    # (the text elements, an undecided template), it went into the first
    # branch or the loop body: '<titleb</title>', '<textarea>a>b</textarea>'.
    element = Tag(tag)
    for x, xs in ((True, []), (False, []), (True, ["1", "2"]), (False, ["<"])):
        same_as_plain(lambda x: element(when(x, "a&", "b")), x)
        same_as_plain(lambda xs: element([f"<{y}>" for y in xs]), xs)
        same_as_plain(
            lambda x, xs: element({"id": when(x, "i")}, when(x, "a"), [y for y in xs], "end"),
            x,
            xs,
        )


# ---------------------------------------------------------------------------
# Unpacking
# ---------------------------------------------------------------------------


def test_unpacking_reads_items_by_index():
    same_as_plain(lambda pairs: h.Dl([[h.Dt(k), h.Dd(v)] for k, v in pairs]), [("a", 1), ["<", 2]])
    same_as_plain(lambda p: h.P(*p), ("a", "<b>"))  # a starred argument is a loop
    with pytest.raises(TypeError, match="starred"):
        baked(lambda pairs: h.Ul([h.Li(a) for a, *rest in pairs]))


def test_unpacking_takes_exactly_as_many_items_as_python():
    def pairs(ps):
        return h.Ul([h.Li(a, "=", b) for a, b in ps])

    same_as_plain(pairs, [(1, 2), [3, "<4>"]])
    same_as_plain(pairs, [(1, 2, 3)])  # ValueError both ways
    same_as_plain(pairs, [(1,)])
    same_as_plain(pairs, ["cd", {"k": 1, "l": 2}, range(2)])  # any iterable read again
    # the error names the item that has the wrong count, not a name of it
    with pytest.raises(ValueError, match=r"pairs\(\): ps\[1\]: too many values"):
        baked(pairs)([(1, 2), (1, 2, 3)])
    # a field read from an unpacked name keeps the name's place
    fields = baked(lambda ps: h.Ul([h.Li(a, b["x"]) for a, b in ps]))
    with pytest.raises(KeyError, match=r"ps\[0\]\[1\]\['x'\]"):
        fields([(1, {})])


class _NoTruth:
    def __bool__(self):
        raise ValueError("no truth")


def test_a_value_unpacked_from_an_item_that_fails_is_named_by_its_index():
    # Writing or testing a field is one step with reading it; when the
    # write or the test fails, the error names the unpacked value itself.
    fn = baked(lambda rows: h.Ul([h.Li(a, when(b, "y")) for a, b in rows]))
    with pytest.raises(TypeError, match=r"<lambda>\(\): rows\[1\]\[0\]: render\(\)"):
        fn([("x", True), (object(), True)])
    with pytest.raises(ValueError, match=r"<lambda>\(\): rows\[1\]\[1\]: no truth"):
        fn([("x", True), ("y", _NoTruth())])


# ---------------------------------------------------------------------------
# looped() and loop.*
# ---------------------------------------------------------------------------


def test_loop_state():
    def table(rows):
        return h.Table(
            [
                h.Tr(
                    {"class": loop.cycle("odd", "even")},
                    h.Td(loop.index, "/", loop.index0),
                    h.Td(r),
                    when(loop.first, h.Td("first")),
                    when(loop.last, h.Td("last")),
                )
                for r, loop in looped(rows)
            ]
        )

    for rows in ([], ["a"], ["a", "<b>", "c", "d"]):
        same_as_plain(table, rows)
    # a generator: loop.last needs the next item before the body runs
    fn = baked(table)
    assert fn(x for x in "ab") == render(table(["a", "b"]))
    tpl = JINJA.from_string(
        "<table>{% for r in rows %}<tr class=\"{{ loop.cycle('odd', 'even') }}\">"
        "<td>{{ loop.index }}/{{ loop.index0 }}</td><td>{{ r }}</td>"
        "{% if loop.first %}<td>first</td>{% endif %}{% if loop.last %}<td>last</td>{% endif %}"
        "</tr>{% endfor %}</table>"
    )
    assert fn(["a", "<b>", "c"]) == tpl.render(rows=["a", "<b>", "c"])


def _loop_fields_row(rows):
    return h.Ul(
        [
            h.Li(
                {"title": loop.revindex},
                r,
                "|",
                loop.length,
                "|",
                loop.revindex0,
                "|",
                loop.previtem,
                "|",
                loop.nextitem,
                when(loop.last, "|last"),
            )
            for r, loop in looped(rows)
        ]
    )


_LOOP_FIELDS_JINJA = JINJA.from_string(
    '<ul>{% for r in rows %}<li title="{{ loop.revindex }}">{{ r }}|{{ loop.length }}'
    "|{{ loop.revindex0 }}|{{ loop.previtem }}|{{ loop.nextitem }}"
    "{% if loop.last %}|last{% endif %}</li>{% endfor %}</ul>"
)


@given(
    st.lists(st.text(alphabet="ab<&", max_size=3), max_size=6),
    st.sampled_from(["list", "tuple", "iterator", "generator", "dict keys"]),
)
@settings(max_examples=150, deadline=None)
def test_loop_length_revindex_previtem_nextitem_as_jinja2(items, kind):
    # Jinja2 renders a missing previtem or nextitem (undefined) as nothing,
    # markup's None too; an iterable without a length is read ahead for
    # loop.length, in both.
    make = {
        "list": list,
        "tuple": tuple,
        "iterator": iter,
        "generator": lambda xs: (x for x in xs),
        "dict keys": lambda xs: dict.fromkeys(xs).keys(),
    }[kind]
    if kind == "dict keys":
        items = list(dict.fromkeys(items))
    fn = baked(_loop_fields_row)
    want = _LOOP_FIELDS_JINJA.render(rows=make(items))
    assert fn(make(items)) == want
    assert render(_loop_fields_row(make(items))) == want


def _changed_rows(rows):
    return h.Ul(
        [
            h.Li(
                when(loop.changed(r["cat"]), h.B(r["cat"])),
                r["n"],
                when(loop.changed(), "!"),
                h.Ol([h.I(when(inner.changed(c), c)) for c, inner in looped(r["cat"])]),
            )
            for r, loop in looped(rows)
        ]
    )


_CHANGED_JINJA = JINJA.from_string(
    "<ul>{% for r in rows %}<li>{% if loop.changed(r.cat) %}<b>{{ r.cat }}</b>{% endif %}"
    "{{ r.n }}{% if loop.changed() %}!{% endif %}<ol>{% for c in r.cat %}<i>"
    "{% if loop.changed(c) %}{{ c }}{% endif %}</i>{% endfor %}</ol></li>{% endfor %}</ul>"
)


@given(st.lists(st.tuples(st.text(alphabet="ab<", max_size=3), st.integers(0, 3)), max_size=7))
@settings(max_examples=150, deadline=None)
def test_loop_changed_as_jinja2(pairs):
    # Each run of a loop keeps its own last values (the inner loop starts
    # afresh in every row); changed() with no values is True once a run.
    rows = [{"cat": cat, "n": n} for cat, n in pairs]
    want = _CHANGED_JINJA.render(rows=rows)
    assert baked(_changed_rows)(rows) == want
    assert render(_changed_rows(rows)) == want


def test_loop_changed_compares_by_equality_and_raises_what_eq_raises():
    class Odd:
        def __eq__(self, other):
            raise ValueError("no comparing")

        __hash__ = None

    fn = baked(lambda xs: h.P([when(loop.changed(x), "c", "s") for x, loop in looped(xs)]))
    assert fn([1, 1.0, True, 2]) == "<p>cssc</p>"  # 1 == 1.0 == True, as in Jinja2
    with pytest.raises(ValueError, match="no comparing"):
        fn([Odd(), Odd()])


def test_loop_length_asked_mid_loop_reads_the_rest_once():
    pulled = []

    def gen():
        for x in "abcd":
            pulled.append(x)
            yield x

    fn = baked(
        lambda xs: h.P([h.I(x, when(loop.index0 == 2, loop.length)) for x, loop in looped(xs)])
    )
    assert fn(gen()) == "<p><i>a</i><i>b</i><i>c4</i><i>d</i></p>"
    assert pulled == ["a", "b", "c", "d"]


# ---------------------------------------------------------------------------
# What a loop cannot bake
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "builder, phrase",
    [
        (lambda xs: h.Ul([h.Li(i, x) for i, x in enumerate(xs)]), "enumerate"),
        (lambda xs: h.Ul([h.Li(x, y) for x, y in zip(xs, ["a", "b", "c"])]), "zip"),
        (lambda xs: h.P(sum(x for x in xs)), "outside that loop"),
        (lambda xs: h.P(", ".join(xs)), "expected str instance"),
        (lambda xs: h.Ul([h.Li("same") for _ in xs]), "is iterated, but"),
        (lambda xs: h.Ul([h.Li(x) for x in xs if x]), "truth value"),
        (lambda xs: h.Ul([h.Li(x) for x in xs][:1]), "does not render one element"),
    ],
    ids=["enumerate", "zip", "sum", "join", "unused item", "filter", "slice"],
)
def test_what_a_loop_cannot_bake_is_refused(builder, phrase):
    with pytest.raises(TypeError, match=phrase) as exc:
        baked(builder)
    # Every refusal speaks of the builder, also where Python raised first.
    assert str(exc.value).startswith("@baked <lambda>(): ")


def test_a_counter_is_refused():
    def counted(xs):
        n = iter(range(100))
        return h.Ul([h.Li(next(n), x) for x in xs])

    with pytest.raises(TypeError, match=r"0 for the first item, 1 for the second"):
        baked(counted)


@pytest.mark.parametrize(
    "builder",
    [
        lambda r: h.Ul([h.Li(x) for x in itertools.islice(r, 2)]),
        lambda r: h.Ul([h.Li(x, t) for t, x in zip(["x", "x"], r)]),
    ],
    ids=["islice", "zip with a shorter list first"],
)
def test_a_loop_cut_short_is_refused(builder):
    with pytest.raises(TypeError, match="stopped before its end"):
        baked(builder)


def test_a_list_of_loop_bodies_used_twice_is_refused():
    def twice(rows):
        items = [h.Li(r) for r in rows]
        return h.Div(h.Ul(items), h.Ol(items))

    with pytest.raises(TypeError, match="rendered in two places"):
        baked(twice)
    with pytest.raises(TypeError, match="rendered in two places"):
        baked(lambda rows: h.Ul([h.Li(r) for r in rows] * 2))
