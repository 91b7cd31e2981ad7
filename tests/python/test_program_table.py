"""The template instruction set is written once, in binding.h: the C side
runs programs with its enums, markup._core exports them to the Python
compiler. These tests fail when the two sides disagree: a member of the
header that _core does not export (or exports with another value), a code
the compiler's tables leave out or send out of range, an operator or loop
field that renders other than Python computes it.
"""

import ast
import re
from pathlib import Path

import pytest

from markup import _core, baked, contains, h, looped, render, when
from markup._template import compiler, table

HEADER = Path(__file__).resolve().parents[2] / "include" / "markup" / "binding.h"

# The enums of the instruction set, and what each is to the compiler.
ENUMS = ("markup_op", "markup_apply_kind", "markup_binary_op", "markup_compare_op")
ENUMS += ("markup_loop_field",)


def header_enums():
    """{enum name: {member without MARKUP_: value}} as the C compiler numbers
    them: from 0, or from an explicit `= N`, each next one higher."""
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    enums = {}
    for name in ENUMS:
        body = re.search(r"typedef enum %s \{(.*?)\} %s;" % (name, name), text, re.S)
        assert body, f"binding.h has no enum {name}"
        members, value = {}, 0
        for item in filter(None, (x.strip() for x in body.group(1).split(","))):
            member, _, explicit = (part.strip() for part in item.partition("="))
            value = int(explicit) if explicit else value
            assert member.startswith("MARKUP_")
            members[member[len("MARKUP_") :]] = value
            value += 1
        enums[name] = members
    lookahead = re.search(r"#define MARKUP_LOOP_LOOKAHEAD (\d+)u", text)
    enums["flags"] = {"LOOP_LOOKAHEAD": int(lookahead.group(1))}
    return enums


TABLE = header_enums()


def test_core_exports_every_member_of_the_header_with_its_value():
    for members in TABLE.values():
        for name, value in members.items():
            assert getattr(_core, name, None) == value, name


def test_core_exports_nothing_the_header_lost():
    in_header = {name for members in TABLE.values() for name in members}
    exported = {
        name
        for name, value in vars(_core).items()
        if re.fullmatch(r"(OP|APPLY|BINARY|COMPARE|LOOP)_[A-Z0-9_]+", name)
        and isinstance(value, int)
    }
    assert exported == in_header


@pytest.mark.parametrize("enum", ENUMS)
def test_the_members_of_an_enum_are_distinct(enum):
    values = [getattr(_core, name) for name in TABLE[enum]]
    assert len(set(values)) == len(values)


def test_the_compilers_tables_cover_each_enum():
    # contains() is the one comparison no Python operator spells.
    assert sorted(table._BINARY.values()) == sorted(TABLE["markup_binary_op"].values())
    assert sorted([*table._COMPARE.values(), _core.COMPARE_CONTAINS]) == sorted(
        TABLE["markup_compare_op"].values()
    )
    assert sorted(table._LOOP_INFO.values()) == sorted(TABLE["markup_loop_field"].values())
    assert set(table._LOOP_INFO) - set(table._LOOP_FIELDS) == {"changes"}


def test_the_compiler_writes_no_number_of_its_own():
    """No second copy of the table in the @baked compiler: no module-level name
    bound to an int or a range(), no table with an int in it, no int as an
    instruction or an operation's kind or operator."""
    sources = sorted(Path(table.__file__).parent.glob("*.py"))
    assert len(sources) > 2, sources
    for source in sources:
        _check_has_no_numbers(ast.parse(source.read_text()))


def _check_has_no_numbers(tree):
    def is_int(node):
        return isinstance(node, ast.Constant) and type(node.value) is int

    for node in tree.body:
        if isinstance(node, ast.Assign):
            value = node.value
            assert not is_int(value), ast.unparse(node)
            if isinstance(value, (ast.Tuple, ast.Dict)):
                assert not any(
                    map(is_int, value.elts if isinstance(value, ast.Tuple) else value.values)
                ), ast.unparse(node)
            assert not (
                isinstance(value, ast.Call) and ast.unparse(value.func) == "range"
            ), ast.unparse(node)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            if node.func.attr == "emit":
                assert not is_int(node.args[0]), ast.unparse(node)
            if node.func.attr == "op" and isinstance(node.args[0], ast.Tuple):
                assert not any(map(is_int, node.args[0].elts[:2])), ast.unparse(node)


# The values are chosen so that any two operators give different results: a
# code sent to the wrong operator changes the output.
BINARY_CASES = [(7, 2), (7.5, 2), (-7, 2), ("ab", 3)]


@pytest.mark.parametrize("op", sorted(table._BINARY))
def test_each_arithmetic_operator_computes_as_python(op):
    fn = eval(f"lambda a, b: h.P(a {op} b)")
    baked_fn = baked(fn)
    for a, b in BINARY_CASES:
        try:
            want = render(fn(a, b))
        except TypeError:
            with pytest.raises(TypeError):
                baked_fn(a, b)
            continue
        assert baked_fn(a, b) == want, (op, a, b)


@pytest.mark.parametrize("op", sorted(table._COMPARE))
def test_each_comparison_computes_as_python(op):
    fn = eval(f"lambda a, b: h.P(when(a {op} b, 'T', 'F'))")
    baked_fn = baked(fn)
    # below, equal, above: the six comparisons give six different rows
    for a, b in ((1, 2), (2, 2), (3, 2), ("a", "b")):
        assert baked_fn(a, b) == render(fn(a, b)), (op, a, b)


def test_contains_tests_membership():
    fn = baked(lambda xs, x: h.P(when(contains(xs, x), "in", "out")))
    assert fn(["a", "b"], "b") == "<p>in</p>"
    assert fn(["a", "b"], "c") == "<p>out</p>"
    assert fn("abc", "bc") == "<p>in</p>"


def test_each_loop_field_is_the_one_named():
    def rows(items):
        return h.Ul(
            [
                h.Li(
                    x,
                    loop.index,
                    loop.index0,
                    when(loop.first, "F"),
                    when(loop.last, "L"),
                    loop.length,
                    loop.revindex,
                    loop.revindex0,
                    "<",
                    loop.previtem,
                    ">",
                    loop.nextitem,
                )
                for x, loop in looped(items)
            ]
        )

    fn = baked(rows)
    want = "<ul><li>a10F332&lt;&gt;b</li><li>b21321&lt;a&gt;c</li>" "<li>c32L310&lt;b&gt;</li></ul>"
    assert render(rows(["a", "b", "c"])) == want
    assert fn(["a", "b", "c"]) == want
    # loop.last and nextitem look ahead in an iterator, length reads it all.
    assert fn(iter("abc")) == want


@pytest.mark.parametrize(
    "name, key, builder",
    [
        ("_BINARY", "+", lambda a, b: h.P(a + b)),
        ("_COMPARE", "<", lambda a, b: h.P(when(a < b, "T"))),
    ],
)
def test_an_operator_past_the_table_is_refused_when_compiled(monkeypatch, name, key, builder):
    codes = dict(getattr(table, name))
    codes[key] = max(codes.values()) + 2  # past COMPARE_CONTAINS too
    monkeypatch.setattr(compiler, name, codes)
    with pytest.raises(ValueError, match="malformed operation"):
        baked(builder)


def test_a_loop_field_past_the_table_is_refused_when_compiled(monkeypatch):
    fields = dict(table._LOOP_INFO, index=max(table._LOOP_INFO.values()) + 1)
    monkeypatch.setattr(compiler, "_LOOP_INFO", fields)
    with pytest.raises(ValueError, match="loop field that does not exist"):
        baked(lambda xs: h.Ul([h.Li(loop.index) for _x, loop in looped(xs)]))
