"""@baked: the values a call gives, in child and attribute slots.

The slot parity tests render three ways and compare bytes: the baked
function, the same builder called directly with the real values (an h.*
tree), and the equivalent Jinja2 template with autoescape on. The rest
checks each kind of value: nested baked results, generators and iterators,
values nested too deep, dicts, str subclasses, lone surrogates, trusted
values that could end a <title>, and the plain-value path against the
general one.
"""

import datetime
import decimal
import random

import markupsafe
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markup import SafeString, baked, h, render

from baked_pages import JINJA

# ---------------------------------------------------------------------------
# Parity: baked == h.* tree == Jinja2
# ---------------------------------------------------------------------------


# A Jinja2 macro with the attribute-value rules: True -> bare name,
# False/None -> omitted, anything else -> name="escaped".
ATTR_MACRO = (
    "{% macro attr(name, v) %}"
    "{% if v is sameas true %} {{ name }}"
    '{% elif v is not none and v is not sameas false %} {{ name }}="{{ v }}"'
    "{% endif %}{% endmacro %}"
)


# A child value: None -> nothing, lists/tuples/generators -> each item.
CHILD_MACRO = (
    "{% macro child(v) %}"
    "{% if v is none %}"
    "{% elif v is string or v is not iterable %}{{ v }}"
    "{% else %}{% for x in v %}{{ child(x) }}{% endfor %}"
    "{% endif %}{% endmacro %}"
)


def jinja(source):
    return JINJA.from_string(ATTR_MACRO + CHILD_MACRO + source)


HOSTILE = [
    "",
    "plain",
    "<script>alert('x')</script>",
    '"onmouseover="alert(1)',
    "' onfocus='x",
    "&amp; &lt; already escaped",
    "a & b < c > d \" e ' f",
    "</li></ul><b>",
    "{{ 7*7 }} {% raw %}",
    "\x00\x01\t\n\r",
    "Grüße, 日本語, עברית, emoji 🎉👩‍👩‍👧",
    "x" * 5000 + "<" + "y" * 5000,
]


NUMBERS = [0, 1, -7, 10**30, 3.5, -0.0, 1e-9, 1e22, float("inf")]


def sample_children():
    """Child slot values, as factories (generators can only be used once)."""

    inner = baked(_inner_fragment)
    values = [lambda v=v: v for v in HOSTILE + NUMBERS]
    values += [
        lambda: None,
        lambda: SafeString("<em>trusted & kept</em>"),
        lambda: markupsafe.Markup("<i>markup</i>"),
        lambda: h.B("bold & <strong>"),
        lambda: h.Br(),
        lambda: inner("<nested & 'quoted'>"),
        lambda: [inner("a<b"), inner("c&d")],
        lambda: ["text <1>", 2, None, h.I("i"), SafeString("<hr>")],
        lambda: ("tuple", 3.25, h.Code("x<y")),
        lambda: (h.Li(i) for i in range(3)),
        lambda: (s for s in ["gen <", "erated &"]),
        lambda: [],
        lambda: [[["deep", ["er <"]]]],
    ]
    return values


def sample_attrs():
    values = [lambda v=v: v for v in HOSTILE[:-1] + NUMBERS]
    values += [
        lambda: None,
        lambda: True,
        lambda: False,
        lambda: SafeString("a&amp;b"),
        lambda: markupsafe.Markup("x &lt; y"),
    ]
    return values


def _inner_fragment(text):
    return h.Span({"class": "inner"}, text)


def card(title, body, cls, count):
    return h.Div(
        {"class": cls, "data-count": count},
        h.H2(title),
        h.P({"title": title}, body),
        h.Footer("fixed & static"),
    )


CARD_JINJA = jinja(
    "<div{{ attr('class', cls) }}{{ attr('data-count', count) }}>"
    "<h2>{{ child(title) }}</h2>"
    "<p{{ attr('title', title) }}>{{ child(body) }}</p>"
    "<footer>fixed &amp; static</footer></div>"
)


def check_three_ways(builder, template, **values_by_factory):
    baked_fn = baked(builder)
    direct = render(builder(**{k: f() for k, f in values_by_factory.items()}))
    result = baked_fn(**{k: f() for k, f in values_by_factory.items()})
    assert type(result) is SafeString
    assert render(result) == str(result)
    assert str(result) == direct
    assert template.render(**{k: f() for k, f in values_by_factory.items()}) == direct
    return direct


@pytest.mark.parametrize("body", sample_children(), ids=lambda f: repr(f())[:40])
def test_child_slot_parity(body):
    check_three_ways(
        card,
        CARD_JINJA,
        title=lambda: "T",
        body=body,
        cls=lambda: "c",
        count=lambda: 1,
    )


@pytest.mark.parametrize("cls", sample_attrs(), ids=lambda f: repr(f())[:40])
def test_attr_slot_parity(cls):
    out = check_three_ways(
        card,
        CARD_JINJA,
        title=lambda: "T",
        body=lambda: "B",
        cls=cls,
        count=lambda: 5,
    )
    if cls() is True:
        assert out.startswith("<div class data-count")
    if cls() is False or cls() is None:
        assert out.startswith("<div data-count")


def test_title_in_text_and_attribute():
    # One parameter, two slots of different kinds.
    for title in HOSTILE[:-1] + NUMBERS:
        check_three_ways(
            card,
            CARD_JINJA,
            title=lambda: title,  # noqa: B023 - called in this iteration
            body=lambda: None,
            cls=lambda: None,
            count=lambda: None,
        )


def test_randomized_parity():
    seed = random.randrange(2**32)
    print("seed", seed)
    rng = random.Random(seed)
    children, attrs = sample_children(), sample_attrs()
    baked_card = baked(card)
    for _ in range(300):
        args = [rng.choice(attrs[:-5]), rng.choice(children), rng.choice(attrs), rng.choice(attrs)]
        names = ("title", "body", "cls", "count")
        direct = render(card(*(f() for f in args)))
        assert baked_card(*(f() for f in args)) == direct, seed
        assert CARD_JINJA.render(**{n: f() for n, f in zip(names, args)}) == direct, seed


# Text without lone surrogates (those are a ValueError, tested below).
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)


ATTR_VALUE = st.one_of(TEXT, st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False))


BAKED_CARD = baked(card)


@settings(max_examples=300, deadline=None)
@given(
    title=TEXT, body=st.one_of(TEXT, st.lists(TEXT, max_size=4)), cls=ATTR_VALUE, count=ATTR_VALUE
)
def test_property_parity(title, body, cls, count):
    direct = render(card(title, body, cls, count))
    assert BAKED_CARD(title, body, cls, count) == direct
    assert CARD_JINJA.render(title=title, body=body, cls=cls, count=count) == direct


@pytest.mark.parametrize("value", [decimal.Decimal("1.10"), datetime.date(2024, 5, 1)])
def test_a_value_jinja2_prints_is_printed(value, jinja):
    # Jinja2 prints str() of these (their types define __str__); so does
    # markup, in a plain tree and as a template's per-call child alike.
    expected = jinja("<p>{{ x }}</p>", x=value)
    assert render(h.P(value)) == expected
    assert baked(lambda x: h.P(x))(value) == expected
    formatted = baked(lambda x: h.P(f"{x}"))
    assert formatted(value) == render(h.P(str(value)))


# ---------------------------------------------------------------------------
# Each kind of value
# ---------------------------------------------------------------------------


def test_nested_baked_is_not_escaped_twice():
    item = baked(lambda label: h.Li(label))
    listing = baked(lambda items: h.Ul(items))
    out = listing([item("a & b"), item("<c>")])
    assert out == "<ul><li>a &amp; b</li><li>&lt;c&gt;</li></ul>"
    # The result has __html__: Jinja2 and markupsafe keep it verbatim too.
    assert out.__html__() == str(out)
    assert jinja("<div>{{ x }}</div>").render(x=out) == "<div>" + str(out) + "</div>"
    assert markupsafe.escape(out) == out


def test_nested_baked_as_attribute_value_is_verbatim():
    inner = baked(lambda v: h.B(v))
    outer = baked(lambda t: h.Abbr({"title": t}, "x"))
    assert outer(inner("&")) == '<abbr title="<b>&amp;</b>">x</abbr>'


def test_static_parts_are_escaped_once():
    f = baked(lambda x: h.P({"title": 'a"b'}, "Tom & Jerry <3", x))
    assert f("&") == '<p title="a&#34;b">Tom &amp; Jerry &lt;3&amp;</p>'


def test_lone_surrogate_is_a_value_error_naming_the_argument():
    f = baked(lambda text: h.P(text))
    with pytest.raises(ValueError, match="text"):
        f("bad \ud800 surrogate")


def test_bad_slot_value_names_the_argument():
    f = baked(lambda body, cls: h.P({"class": cls}, body))
    with pytest.raises(TypeError, match=r"argument 'body'"):
        f({"a": 1}, "x")
    with pytest.raises(TypeError, match=r"argument 'cls'"):
        f("ok", ["a", "b"])
    with pytest.raises(TypeError, match=r"argument 'body'"):
        f(True, "x")


def test_generator_in_two_slots_is_read_once():
    both = baked(lambda items: h.Div(h.Ul(items), h.Ol(items)))
    out = both(h.Li(i) for i in range(2))
    assert out == "<div><ul><li>0</li><li>1</li></ul><ol><li>0</li><li>1</li></ol></div>"


def test_iterator_with_html_in_two_slots_is_written_as_its_html():
    class HtmlIterator:
        def __iter__(self):
            return self

        def __next__(self):
            raise StopIteration

        def __html__(self):
            return "<b>html</b>"

    def two(x):
        return h.Div(h.P(x), h.P(x))

    assert (
        baked(two)(HtmlIterator())
        == render(two(HtmlIterator()))
        == ("<div><p><b>html</b></p><p><b>html</b></p></div>")
    )


def test_slot_depth_counts_toward_max_depth():
    """A child slot's value renders at the slot's depth: a tree that is too
    deep for the plain function is too deep for the baked one."""
    from markup import MAX_DEPTH

    def wrap(x):
        return h.Section(h.Div(x))

    def nested(levels):
        tree = h.B("x")
        for _ in range(levels - 1):
            tree = h.I(tree)
        return tree

    fits, too_deep = nested(MAX_DEPTH - 2), nested(MAX_DEPTH - 1)
    assert baked(wrap)(fits) == render(wrap(fits))
    with pytest.raises(ValueError, match="nested deeper than"):
        render(wrap(too_deep))
    with pytest.raises(ValueError, match=r"wrap\(\) argument 'x': .*nested deeper than"):
        baked(wrap)(too_deep)
    # inside a list, as in the plain tree
    with pytest.raises(ValueError, match="nested deeper than"):
        baked(wrap)([too_deep])


def test_dict_in_a_child_slot_says_what_to_do():
    def para(x):
        return h.P(x)

    assert render(para({"class": "a"})) == '<p class="a"></p>'  # attributes, in the plain tree
    for attrs in ({"class": "a"}, {}):
        with pytest.raises(
            TypeError, match=r"para\(\) argument 'x': a dict cannot fill a child slot"
        ):
            baked(para)(attrs)


def test_str_subclass_with_its_own_str_is_checked_as_written():
    """Its stored characters are never written, so a lone surrogate there
    is no error; str() of it is what is checked, and written."""

    class Clean(str):
        def __str__(self):
            return "clean <"

    class Broken(str):
        def __str__(self):
            return "broken \ud800"

    para = baked(lambda x: h.P(x, title=x))
    plain = lambda x: h.P(x, title=x)  # noqa: E731
    assert (
        para(Clean("x\ud800"))
        == render(plain(Clean("x\ud800")))
        == '<p title="clean &lt;">clean &lt;</p>'
    )
    with pytest.raises(ValueError, match="lone surrogate"):
        para(Broken("ok"))
    with pytest.raises(ValueError, match="lone surrogate"):
        render(plain(Broken("ok")))


def test_a_non_ascii_value_through_the_general_path_in_an_ascii_page():
    # The page is known to be ASCII until a value writes something else:
    # a value the general path writes (here an element) is checked there.
    page = baked(lambda rows: h.Ul([h.Li(r["x"]) for r in rows]))
    got = page([{"x": "a"}, {"x": h.I("\u00e9\u6f22")}, {"x": h.B("b")}])
    assert got == "<ul><li>a</li><li><i>\u00e9\u6f22</i></li><li><b>b</b></li></ul>"
    assert not got.isascii()
    assert got.encode() == str(got).encode("utf-8")
    assert page([{"x": h.B("b")}]).isascii()


# ---------------------------------------------------------------------------
# The plain-value path
# ---------------------------------------------------------------------------


PLAIN_VALUES = [
    "plain",
    "a<b & 'c' \"d\"",
    "",
    "caf\xe9 \u20ac \U0001f600",
    SafeString("<i>trusted</i>"),
    SafeString("caf\xe9 <b>\u20ac</b>"),
    0,
    -7,
    2**63 - 1,
    -(2**63),
    2**64,  # beyond 64 bits: the general path
    10**30,
    1.5,
    -0.25,
    1e300,
    float("nan"),
    None,
]


GENERAL_VALUES = [[h.B("x"), "y<"], (i for i in ("g", 1)), h.Em("e"), markupsafe.Markup("<u>m</u>")]


def _mixed_tree(cls, first, second):
    return h.Div({"class": cls, "title": second}, h.Span(first), "static \xe9", h.P(second))


_mixed_baked = baked(_mixed_tree)


@pytest.mark.parametrize("first", PLAIN_VALUES + GENERAL_VALUES, ids=repr)
@pytest.mark.parametrize("cls", ["c", True, False, None, 3, 'x"y'], ids=repr)
def test_every_value_mix_renders_as_the_tree(cls, first):
    for second in ["s", 4, None, SafeString("<b>")]:
        if isinstance(first, type(i for i in ())):
            continue  # a generator is consumed once: checked below
        expected = render(_mixed_tree(cls, first, second))
        assert render(_mixed_baked(cls, first, second)) == expected


def test_a_general_value_after_plain_ones_renders_the_call_once():
    @baked
    def row(a, b, c):
        return h.Tr(h.Td(a), h.Td(b), h.Td(c))

    assert row("a", 1, [h.I("i"), "<"]) == "<tr><td>a</td><td>1</td><td><i>i</i>&lt;</td></tr>"
    assert row("a", (x for x in "xy"), None) == "<tr><td>a</td><td>xy</td><td></td></tr>"


def test_non_ascii_static_and_attribute_name_with_ascii_values():
    @baked
    def f(v):
        return h.P({"data-caf\xe9": v}, "\u20ac ", v)

    out = f("plain")
    assert out == '<p data-caf\xe9="plain">\u20ac plain</p>'
    assert out.encode() == out.encode("utf-8")  # a real str, any kind
    assert f(1) == '<p data-caf\xe9="1">\u20ac 1</p>'


def test_more_slots_than_the_plain_path_holds():
    names = [f"p{i}" for i in range(20)]
    src = "def build({0}):\n    return h.Ul([{1}])\n".format(
        ", ".join(names), ", ".join(f"h.Li({{'id': {n}}}, {n})" for n in names)
    )
    scope = {"h": h}
    exec(src, scope)
    tree_builder = scope["build"]
    many = baked(tree_builder)
    args = [f"v<{i}" if i % 2 else i for i in range(20)]
    assert many(*args) == render(tree_builder(*args))


def test_bool_child_is_refused_on_the_plain_path_too():
    @baked
    def f(x):
        return h.P(x)

    with pytest.raises(TypeError, match="'x'"):
        f(True)


# ---------------------------------------------------------------------------
# Trusted values in a text element
# ---------------------------------------------------------------------------


# Two trusted values side by side in a text element, or one before the
# template's own text, could join into its end tag: "<" then "/title>".
# Each value alone holds none, so each slot's value may not end in a '<'
# close enough to its end for what follows to finish one.
@pytest.mark.parametrize(
    "a, b",
    [
        (SafeString("<"), SafeString("/title><script>alert(1)</script>")),
        (SafeString("x </titl"), "e>"),
        (SafeString("<"), "/title>"),
    ],
)
def test_adjacent_trusted_values_cannot_end_a_title(a, b):
    @baked
    def page(a, b):
        return h.Title(a, b)

    with pytest.raises(ValueError, match=r"ends in '<' .* fills a slot inside a <title>"):
        page(a, b)


def test_adjacent_trusted_values_cannot_end_a_textarea_in_a_loop():
    @baked
    def page(parts):
        return h.Textarea([p for p in parts])

    with pytest.raises(ValueError, match="ends in '<'"):
        page([SafeString("a<"), SafeString("/textarea><b>x</b>")])
    # A '<' further from the end cannot reach past it.
    ok = [SafeString("a < b, as we said"), SafeString("<i>")]
    assert str(page([ok[0]])) == "<textarea>a < b, as we said</textarea>"


def test_trusted_value_in_a_title_slot_still_renders():
    @baked
    def page(a):
        return h.Title(a, " - Shop")

    assert str(page(SafeString("Tea &amp; <em>cake</em>"))) == (
        "<title>Tea &amp; <em>cake</em> - Shop</title>"
    )
    assert str(page("</title><")) == "<title>&lt;/title&gt;&lt; - Shop</title>"
