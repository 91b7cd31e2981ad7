"""The template instruction set as Python spells it: which libmarkup
operation each Python operator and `loop` field stands for, and the
marker that traced formatting leaves in a text."""

from __future__ import annotations

import dis
import re

from .._core import (
    BINARY_ADD,
    BINARY_DIV,
    BINARY_FLOORDIV,
    BINARY_MOD,
    BINARY_MUL,
    BINARY_SUB,
    COMPARE_EQ,
    COMPARE_GE,
    COMPARE_GT,
    COMPARE_LE,
    COMPARE_LT,
    COMPARE_NE,
    LOOP_CHANGES,
    LOOP_FIRST,
    LOOP_INDEX,
    LOOP_INDEX0,
    LOOP_LAST,
    LOOP_LENGTH,
    LOOP_NEXTITEM,
    LOOP_PREVITEM,
    LOOP_REVINDEX,
    LOOP_REVINDEX0,
)

# The instruction set, operations, operators and loop fields are
# libmarkup's binding.h (markup_op, markup_apply_kind, markup_binary_op,
# markup_compare_op, markup_loop_field), exported by _core under the same
# names without MARKUP_; pymarkup/baked.c runs what is compiled with them.
# Only the Python operator or `loop` field each one stands for is written here.
_BINARY = {
    "+": BINARY_ADD,
    "-": BINARY_SUB,
    "*": BINARY_MUL,
    "/": BINARY_DIV,
    "//": BINARY_FLOORDIV,
    "%": BINARY_MOD,
}
_COMPARE = {
    "<": COMPARE_LT,
    "<=": COMPARE_LE,
    "==": COMPARE_EQ,
    "!=": COMPARE_NE,
    ">": COMPARE_GT,
    ">=": COMPARE_GE,
}
_LOOP_FIELDS = {
    "index": LOOP_INDEX,
    "index0": LOOP_INDEX0,
    "first": LOOP_FIRST,
    "last": LOOP_LAST,
    "length": LOOP_LENGTH,
    "revindex": LOOP_REVINDEX,
    "revindex0": LOOP_REVINDEX0,
    "previtem": LOOP_PREVITEM,
    "nextitem": LOOP_NEXTITEM,
}
# And what LOOP_INFO pushes besides: loop.changed()'s record.
_LOOP_INFO = {**_LOOP_FIELDS, "changes": LOOP_CHANGES}
# The fields its LOOP reads one item ahead for.
_LOOKAHEAD_FIELDS = ("last", "nextitem")

_UNPACK_SEQUENCE = dis.opmap["UNPACK_SEQUENCE"]
_UNPACK_EX = dis.opmap["UNPACK_EX"]


_MARK = "\U0010fffd"
# Letters of both cases, so that .upper(), .lower(), .title() ... of a text
# made from a stand-in break the marker and are refused, not ignored.
_MARKER = re.compile(_MARK + r"(\d+)mK(\d+)" + _MARK)
