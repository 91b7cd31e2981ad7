"""Objects whose type defines its own __str__ render as their escaped str(),
as Jinja2 writes them: a date, a Decimal, an enum, an ORM's URL wrapper.
Objects with only object's default (the repr) stay refused.

Parity is checked by rendering the same values through a Jinja2 template
with autoescape on and comparing bytes."""

import datetime
import decimal
import enum
import fractions
import uuid

import jinja2
import pytest

from markup import SafeString, baked, h, render

JINJA = jinja2.Environment(autoescape=True)


class URLWrapper:
    """The shape of a blog engine's category object: its text is its name."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name


class Color(enum.Enum):
    RED = "r"


class Both:
    """__html__ wins over __str__, as in markupsafe."""

    def __html__(self):
        return "<b>trusted</b>"

    def __str__(self):
        return "<b>plain</b>"


class Opaque:
    pass


VALUES = [
    URLWrapper("Tea & <Cake>"),
    URLWrapper("\"quoted\" 'single'"),
    decimal.Decimal("1.50"),
    fractions.Fraction(1, 3),
    datetime.date(2026, 12, 4),
    datetime.datetime(2026, 12, 4, 21, 54, 44),
    Color.RED,
    uuid.UUID(int=7),
    ValueError("bad <value>"),
    Both(),
]
IDS = [type(v).__name__ + str(i) for i, v in enumerate(VALUES)]


@pytest.mark.parametrize("value", VALUES, ids=IDS)
def test_child_and_attribute_as_jinja2_writes_them(value):
    expected = JINJA.from_string('<p title="{{ v }}">{{ v }}</p>').render(v=value)
    assert render(h.P({"title": value}, value)) == expected


@pytest.mark.parametrize("value", VALUES, ids=IDS)
def test_one_call_templates_write_the_same(value):
    page = baked(lambda v: h.P({"title": v}, v))
    assert page(value) == render(h.P({"title": value}, value))


def test_str_is_taken_when_rendered():
    wrapper = URLWrapper("first")
    tree = h.P(wrapper)
    wrapper.name = "second"
    assert render(tree) == "<p>second</p>"


def test_in_raw_text_str_is_checked_with_the_rest():
    assert render(h.Style(URLWrapper("a > b {}"))) == "<style>a > b {}</style>"
    with pytest.raises(ValueError, match="</script"):
        h.Script(URLWrapper("</script><script>alert(1)"))


def test_a_failing_str_propagates():
    class Broken:
        def __str__(self):
            raise RuntimeError("no text")

    with pytest.raises(RuntimeError, match="no text"):
        render(h.P(Broken()))
    with pytest.raises(RuntimeError, match="no text"):
        render(h.P({"title": Broken()}))


def test_objects_without_a_text_of_their_own_are_refused():
    with pytest.raises(TypeError, match="type 'Opaque': it has no text of its own"):
        h.P(Opaque())
    with pytest.raises(TypeError, match="type 'Opaque': it has no text of its own"):
        render([Opaque()])
    with pytest.raises(TypeError, match="attribute 'title' cannot take a value of type 'Opaque'"):
        h.P({"title": Opaque()})
    # sets, bytes and dicts keep their own messages
    with pytest.raises(TypeError, match="no order"):
        h.P({1, 2})
    with pytest.raises(TypeError, match="decode it to str first"):
        h.P(b"bytes")
    with pytest.raises(TypeError, match="decode bytes to str first"):
        h.P({"title": b"bytes"})


def test_a_str_value_is_still_text_not_markup():
    assert render(h.P(URLWrapper("<i>x</i>"))) == "<p>&lt;i&gt;x&lt;/i&gt;</p>"
    assert isinstance(render(h.P(URLWrapper("x"))), SafeString)
