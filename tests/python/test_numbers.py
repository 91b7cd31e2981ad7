"""Numbers render exactly as str() writes them (what Jinja2 prints).

The extension formats exact ints and floats without creating a str; these
tests hold that formatting to str() over many values, including the short
decimals that take the fast path and the values just around its edges."""

import math
import random
import struct

import pytest

from markup import baked, h, render


def rendered_child(x: object) -> str:
    out = render(h.P(x))
    assert out.startswith("<p>") and out.endswith("</p>")
    return out[3:-4]


def rendered_attr(x: object) -> str:
    out = render(h.P({"data-x": x}))
    assert out.startswith('<p data-x="') and out.endswith('"></p>')
    return out[len('<p data-x="') : -len('"></p>')]


EDGE_FLOATS = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    0.2,
    0.1 + 0.2,
    1 / 3,
    2 / 3,
    0.5,
    12.99,
    3.50,
    19.95,
    1e-4,
    0.00011,
    9.9999e-5,
    1e-5,
    1e15,
    1e15 - 1,
    999999999999999.9,
    1e16,
    1e17,
    123456789012345.6,
    2.0**51,
    2.0**51 + 1,
    2.0**52,
    2.0**53,
    1e22,
    1e300,
    5e-324,
    1.7976931348623157e308,
    math.pi,
    math.e,
    0.05,
    0.005,
    0.000123456,
    1234.5678901,
    0.1234567,
    100.0,
    1200.0,
    0.30000000000000004,
    4.35,
    1.005,
    math.inf,
    -math.inf,
    math.nan,
]


@pytest.mark.parametrize("x", EDGE_FLOATS, ids=repr)
def test_edge_floats_match_str(x: float) -> None:
    assert rendered_child(x) == str(x)
    assert rendered_attr(x) == str(x)
    assert rendered_child(-x) == str(-x)


def test_short_decimals_match_str() -> None:
    rng = random.Random(20261130)
    for digits in range(0, 9):
        for _ in range(4000):
            x = round(rng.uniform(-1e6, 1e6), digits)
            assert rendered_child(x) == str(x), x
            y = round(rng.uniform(0, 10.0 ** rng.randint(-4, 15)), digits)
            assert rendered_child(y) == str(y), y


def test_random_doubles_match_str() -> None:
    rng = random.Random(7)
    for _ in range(30000):
        x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        assert rendered_child(x) == str(x), repr(x)
        # values scaled into the fixed-notation range
        if math.isfinite(x) and x != 0:
            e = rng.randint(-4, 15)
            y = math.copysign(math.ldexp(math.frexp(x)[0], 0) * 10.0**e, x)
            assert rendered_child(y) == str(y), repr(y)


def test_ints_match_str() -> None:
    values = [0, -1, 1, 9, 10, 2**31, -(2**31), 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 10**40]
    rng = random.Random(3)
    values += [rng.randint(-(2**64), 2**64) for _ in range(5000)]
    # Around one CPython digit (30 bits, or 15), which small ints are read from.
    for bits in (15, 30):
        values += [2**bits - 1, 2**bits, 2**bits + 1, -(2**bits) + 1, -(2**bits), -(2**bits) - 1]
    values += [rng.randint(-(2**31), 2**31) for _ in range(5000)]
    # Where the digit count changes (counted by comparison, written in pairs).
    for k in range(20):
        values += [10**k - 1, 10**k, 10**k + 1, -(10**k) + 1, -(10**k), -(10**k) - 1]
    for v in values:
        assert rendered_child(v) == str(v)
        assert rendered_attr(v) == str(v)


def test_number_subclasses_use_their_str() -> None:
    class Price(float):
        def __str__(self) -> str:
            return "<cheap>"

    class Count(int):
        def __str__(self) -> str:
            return "many & more"

    assert rendered_child(Price(1.5)) == "&lt;cheap&gt;"
    assert rendered_child(Count(3)) == "many &amp; more"


def test_baked_slots_format_numbers_like_str() -> None:
    @baked
    def cell(value, attr):
        return h.Td({"data-v": attr}, value)

    rng = random.Random(11)
    for _ in range(2000):
        x = round(rng.uniform(-1000, 1000), rng.randint(0, 6))
        assert str(cell(x, x)) == f'<td data-v="{x}">{x}</td>'
