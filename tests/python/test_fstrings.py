"""f-strings in @baked templates: an f-string's literal parts are compiled
as static HTML and its fields written in place (TEXT slots), with the bytes
Python's own f-string gives once rendered; where that cannot hold (text
elements, pre, one field alone) the f-string is built per call as before.

Each case renders the undecorated builder with render() (plain Python: the
f-string evaluated by Python) and the baked function, and compares bytes.
"""

import decimal
import enum
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markup import SafeString, baked, h, render, when


class Shown:
    """A value that formats through its own __str__ (Jinja2 users pass these)."""

    def __str__(self):
        return "<shown & told>"


class Trusting:
    """A __format__ that returns HTML-safe text: Python keeps it as it is for
    f"{x}" alone, and joins it into a plain str in a longer f-string."""

    def __format__(self, spec):
        return SafeString("<b>bold</b>")


class Loud(str):
    """A str subclass whose format goes through its own __str__."""

    def __str__(self):
        return "LOUD<>"


class Colour(enum.IntEnum):
    RED = 1


class Failing:
    def __format__(self, spec):
        raise ValueError("no format for you")


VALUES = [
    "plain",
    "",
    "<script>'x' & \"y\"</script>",
    "caf\u00e9 \u2014 \U0001f600",
    "\nstarts with a newline",
    0,
    -42,
    2**70,
    1.5,
    -0.0,
    1e22,
    float("inf"),
    float("nan"),
    True,
    False,
    None,
    SafeString("<i>trusted</i>"),
    Shown(),
    Trusting(),
    Loud("quiet"),
    Colour.RED,
    decimal.Decimal("1.10"),
]
IDS = [repr(v)[:24] for v in VALUES]


def same(builder, *args):
    """The baked function writes what render() of the plain builder writes."""
    fn = baked(builder)
    try:
        want = render(builder(*args))
    except Exception as exc:
        with pytest.raises(type(exc)):
            fn(*args)
        return fn
    assert fn(*args) == want
    return fn


SHAPES = {
    "attribute, text around": lambda x: h.A({"href": f"/u/{x}?a=1&b=2"}, "t"),
    "attribute, two fields": lambda x: h.A({"title": f"{x}:{x!r}"}, "t"),
    "attribute, field alone": lambda x: h.A({"href": f"{x}"}, "t"),
    "attribute, spec": lambda x: h.Td({"data-v": f"[{x!s:>12}]"}, "t"),
    "child, text around": lambda x: h.P(f"Hello {x}!"),
    "child, between elements": lambda x: h.P(h.B("a"), f" {x} ", h.I("b")),
    "child, field alone": lambda x: h.P(f"{x}"),
    "child, repr": lambda x: h.P(f"<{x!r}>"),
    "title (escaped text)": lambda x: h.Title(f"T {x}"),
    "textarea": lambda x: h.Textarea(f"{x} and more"),
    "pre, newline first": lambda x: h.Pre(f"{x}\nline"),
    "pre, field first": lambda x: h.Pre(f"{x} line"),
    "svg attribute": lambda x: h.Svg(h.Circle({"class": f"c-{x}", "r": "4"})),
    "svg text": lambda x: h.Svg(h.Text(f"label {x}")),
    "when branch": lambda x: h.P(when(x, f"yes {x}", f"no {x}")),
    "attribute in a when branch": lambda x: h.A({"title": when(x, f"t {x}")}, "a"),
}


@pytest.mark.parametrize("value", VALUES, ids=IDS)
@pytest.mark.parametrize("shape", SHAPES)
def test_an_fstring_renders_as_python_formats_it(shape, value):
    same(SHAPES[shape], value)


def test_a_field_that_fails_to_format_raises_its_error():
    fn = same(SHAPES["attribute, text around"], Failing())
    with pytest.raises(ValueError, match="no format for you"):
        fn(Failing())
    with pytest.raises(ValueError, match="no format for you"):
        baked(SHAPES["child, text around"])(Failing())


def test_a_spec_the_type_refuses_raises_as_python_does():
    fn = baked(lambda x: h.P(f"n = {x:.2f}"))
    assert fn(2) == "<p>n = 2.00</p>"
    with pytest.raises(ValueError):
        fn("text")


def test_the_literal_parts_are_static_html():
    # Only the fields are written per call: the attribute's name, quotes
    # and literal text are part of the static HTML.
    fn = baked(lambda x, y: h.A({"href": f"mailto:{x}?cc={y}"}, f"Mail {x} now"))
    assert fn.static_size == len('<a href="mailto:?cc=">Mail  now</a>')
    assert fn.slot_count == 3
    assert fn("a&b", 7) == '<a href="mailto:a&amp;b?cc=7">Mail a&amp;b now</a>'
    # An f-string that is one field alone is that field's format: a slot.
    alone = baked(lambda x: h.A({"href": f"{x}"}, "t"))
    assert alone.static_size == len("<a>t</a>")


def test_hostile_fields_stay_inside_their_attribute():
    fn = baked(lambda x: h.A({"href": f"/search?q={x}", "class": "go"}, "go"))
    out = fn('"><script>alert(1)</script>')
    assert out == (
        '<a href="/search?q=&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" class="go">go</a>'
    )


def test_a_trusted_format_alone_is_kept_and_joined_is_escaped():
    # Python: f"{x}" is what __format__ gives (here HTML-safe), f"a{x}" a
    # plain str. The baked function keeps that difference.
    assert baked(lambda x: h.P(f"{x}"))(Trusting()) == "<p><b>bold</b></p>"
    assert baked(lambda x: h.P(f"a{x}"))(Trusting()) == "<p>a&lt;b&gt;bold&lt;/b&gt;</p>"
    assert baked(lambda x: h.P(f"a{x}"))(SafeString("<i>")) == "<p>a&lt;i&gt;</p>"


def test_a_field_used_twice_and_in_a_loop():
    def rows(users):
        return h.Table(
            [
                h.Tr(
                    {"data-id": f"{u['id']}", "id": f"user-{u['id']}"},
                    h.Td(h.A({"href": f"mailto:{u['email']}"}, u["email"])),
                    h.Td(f"{u['total']:,.2f} EUR"),
                )
                for u in users
            ]
        )

    data = [{"id": i, "email": f"u{i}&co@x.io", "total": i * 1234.5678} for i in (0, 1, 2, 1000)]
    fn = same(rows, data)
    assert fn(data).count('<a href="mailto:u') == 4
    assert "1,234,567.80 EUR" in fn(data)


fields = st.one_of(
    st.text(max_size=12),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)


@settings(max_examples=200, deadline=None)
@given(a=fields, b=fields)
def test_random_fields_in_every_place_match_python(a, b):
    def page(a, b):
        return h.Div(
            {"title": f"{a}|{b}", "data-x": f"x{a!r}"},
            f"{a} and {b}",
            h.Span(f"[{b}]"),
        )

    fn = baked(page)
    assert fn(a, b) == render(page(a, b))


def test_nan_and_infinities_format_as_python_writes_them():
    fn = baked(lambda x: h.P({"data-v": f"v{x}"}, f"{x}!"))
    for x in (math.nan, math.inf, -math.inf):
        assert fn(x) == f'<p data-v="v{x}">{x}!</p>'


# ---------------------------------------------------------------------------
# Numbers formatted by their spec in C: the same text as Python's format()
# ---------------------------------------------------------------------------

_SPEC_PAGES = {}


def spec_page(spec):
    """A baked page with `spec` in three places: a field of a longer text, a
    field of an attribute value, and an f-string that is one field alone."""
    if spec not in _SPEC_PAGES:
        code = (
            f'lambda x: h.P({{"title": f"<{{x:{spec}}}>", "data-v": f"{{x:{spec}}}"}},'
            f' f"[{{x:{spec}}}]", h.B(f"{{x:{spec}}}"))'
        )
        _SPEC_PAGES[spec] = (eval(code, {"h": h}), baked(eval(code, {"h": h})))
    return _SPEC_PAGES[spec]


specs = st.builds(
    lambda fill, align, sign, zero, width, grouping, precision, kind: "".join(
        [
            (fill or "") + align if align else "",
            sign or "",
            "0" if zero else "",
            str(width) if width is not None else "",
            grouping or "",
            f".{precision}" if precision is not None else "",
            kind or "",
        ]
    ),
    fill=st.sampled_from([None, "*", "<", "&", "0", "\u2192", " "]),
    align=st.sampled_from([None, "<", ">", "^", "="]),
    sign=st.sampled_from([None, "+", "-", " "]),
    zero=st.booleans(),
    width=st.one_of(st.none(), st.integers(0, 40)),
    grouping=st.sampled_from([None, ",", "_"]),
    precision=st.one_of(st.none(), st.integers(0, 12)),
    kind=st.sampled_from([None, "d", "f", "F", "%", "e", "x"]),
)
numbers = st.one_of(
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1e6, 1e6),
    st.booleans(),
    st.sampled_from([0, -0.0, 0.5, 2.5, 1.005, 1e16, 123456789.125, 2**63, -(2**63)]),
)


@settings(max_examples=1500, deadline=None)
@given(spec=specs, x=numbers)
def test_a_number_formats_by_its_spec_as_python_does(spec, x):
    plain, fn = spec_page(spec)
    try:
        want = render(plain(x))
    except (ValueError, TypeError) as exc:
        with pytest.raises(type(exc)):
            fn(x)
        return
    assert fn(x) == want, spec


@pytest.mark.parametrize(
    "spec, x, text",
    [
        (",", 1234567, "1,234,567"),
        ("_", -1234567, "-1_234_567"),
        (",.2f", 1234567.891, "1,234,567.89"),
        (".1%", 0.1234, "12.3%"),
        ("+08.2f", -3.14159, "-0003.14"),
        ("*^9d", 42, "***42****"),
        ("\u2192>6", 7, "\u2192\u2192\u2192\u2192\u21927"),
        (".2f", 10**30, "1000000000000000019884624838656.00"),
        (">8", 2.5, "     2.5"),
        ("010,", 1234, "00,001,234"),
    ],
)
def test_common_specs_give_pythons_text(spec, x, text):
    assert format(x, spec) == text  # the expectation is Python's own
    _, fn = spec_page(spec)
    assert f"[{text}]" in fn(x)


class Row:
    def __init__(self, v):
        self.v = v


@pytest.mark.parametrize("value", VALUES, ids=IDS)
def test_a_field_alone_in_an_fstring_renders_as_python_formats_it(value):
    # f"{d['v']}" alone reads the field where it lies and formats what is
    # not a str or number itself: the same text as Python's f-string.
    same(lambda d: h.P({"title": f"{d['v']}"}, f"{d['v']}", h.B(f"{d['v']}")), {"v": value})
    same(lambda r: h.Li(f"{r.v}", h.A({"href": f"{r.v}"}, "a")), Row(value))
    same(lambda rows: h.Ul([h.Li(f"{r['v']}") for r in rows]), [{"v": value}] * 2)
