"""Tracing an ``@baked`` builder into a template program.

The builder runs once with a stand-in per parameter. Whatever it does with a
stand-in that a template can do per call (a field, arithmetic, a comparison,
formatting, a loop, ``when``, a method call) gives another stand-in that
records the operation; whatever would decide once for all calls
(``bool()``, ``len()``, ``int()``) raises ``TypeError``. The tree that comes back is compiled:
static HTML through the one HTML writer, values and control flow into a
libmarkup template program (``markup._core._ProgramBuilder``).

Loops are found by their traces: iterating a stand-in yields two items, so a
comprehension leaves two copies of its body side by side among the
children. They must be the same but for the item; then the first becomes
the loop's body. Anything that changes between them (``enumerate``, a
counter, ``zip`` with a real list) is refused rather than frozen.

Formatting is traced through text: ``format()`` and ``str()`` of a stand-in
give a marker string that survives f-strings, ``str.format`` and ``%s``;
the compiler splits text at the markers.
"""

from __future__ import annotations

import dis
import gc
import os
import re
import sys
import threading
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import _core
from ._core import (
    APPLY_ATTR,
    APPLY_BINARY,
    APPLY_CALL,
    APPLY_COMPARE,
    APPLY_CONCAT,
    APPLY_CONST,
    APPLY_DICT,
    APPLY_FORMAT,
    APPLY_ITEM,
    APPLY_LIST,
    APPLY_SELECT,
    APPLY_TUPLE,
    APPLY_UNPACK,
    BINARY_ADD,
    BINARY_DIV,
    BINARY_FLOORDIV,
    BINARY_MOD,
    BINARY_MUL,
    BINARY_SUB,
    COMPARE_CONTAINS,
    COMPARE_EQ,
    COMPARE_GE,
    COMPARE_GT,
    COMPARE_LE,
    COMPARE_LT,
    COMPARE_NE,
    FORMAT_JOINED,
    FORMAT_VALUE,
    FORMAT_WRITTEN,
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
    LOOP_LOOKAHEAD,
    OP_APPLY,
    OP_CYCLE,
    OP_END_LOOP,
    OP_IF,
    OP_ITEM,
    OP_JUMP,
    OP_LOOP,
    OP_LOOP_INFO,
    OP_PARAM,
    OP_WRITE,
)

__all__ = [
    "LoopState",
    "Stand",
    "contains",
    "looped",
    "per_call",
    "when",
    "default",
    "MISSING",
    "Missing",
    "any_of",
    "all_of",
    "not_",
    "trace",
    "compile_program",
]

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

# The sessions tracing in this thread, by nonce: a marker in a text names
# its session, and when() knows that a builder is being traced.
_tracing = threading.local()


def _sessions() -> Dict[str, "_Session"]:
    active = getattr(_tracing, "sessions", None)
    if active is None:
        active = _tracing.sessions = {}
    return active


_HINT_WHEN = (
    "write when(cond, then, otherwise) instead: the test then runs per call; for and, or "
    "and not write all_of(a, b), any_of(a, b) and not_(a), which also give the value "
    "(any_of(x, 'default'))"
)


# --------------------------------------------------------------------------
# Stand-ins
# --------------------------------------------------------------------------


class Stand(_core.StandIn):
    """A value known only per call: a parameter, a field of one, a loop
    item, arithmetic, a comparison, ``when``. Attribute and item access,
    arithmetic and comparisons give new stand-ins; anything that needs the
    value now raises ``TypeError``."""

    __slots__ = ("_m_session",)

    def __new__(cls, session: "_Session", path: str) -> "Stand":
        self = _core.StandIn.__new__(cls, path, session.func_name, -1)
        self._m_session = session
        session.derived = True
        return self

    # -- what a template can do per call --------------------------------

    def __getattr__(self, name: str) -> "Stand":
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Field(self, name, APPLY_ATTR)

    def __getitem__(self, key: Any) -> "Stand":
        if isinstance(key, Stand):
            self._refuse(
                f"is indexed with another per-call value ({key._m_describe()})",
                "index with a constant key, or pass the value as a parameter",
            )
        if isinstance(key, slice):
            self._refuse("is sliced", "slice the data in the caller")
        return _Field(self, key, APPLY_ITEM)

    def __iter__(self) -> Iterator["Stand"]:
        # Unpacking (`for k, v in pairs`, `a, b = x`) reads items by index;
        # anything else iterating a stand-in is a loop.
        caller = sys._getframe(1)
        code = caller.f_code.co_code
        if caller.f_lasti + 1 < len(code):
            op = code[caller.f_lasti]
            if op == _UNPACK_SEQUENCE:  # each name: item i of exactly n, as Python unpacks
                n = code[caller.f_lasti + 1]
                return iter([_Field(self, (n, i), APPLY_UNPACK) for i in range(n)])
            if op == _UNPACK_EX:
                self._refuse(
                    "is unpacked with a starred name",
                    "unpack a fixed number of items, as in `for a, b in pairs`",
                )
        loop = _Loop(self)
        return loop.iterate((_Item(loop, 0), _Item(loop, 1)))

    def __format__(self, spec: str) -> str:
        return self._m_session.marker(self, spec, "")

    # str() and repr() give markers too: anything else would freeze a text
    # (f"{x!r}", "%s" % x). Use _m_describe() for a readable name.
    def __str__(self) -> str:
        return self._m_session.marker(self, "", "s")

    def __repr__(self) -> str:
        return self._m_session.marker(self, "", "r")

    def _arith(op: str, swap: bool = False):  # noqa: N805 - builds methods
        def method(self, other):
            return _Binary(op, other, self) if swap else _Binary(op, self, other)

        return method

    __add__, __radd__ = _arith("+"), _arith("+", True)
    __sub__, __rsub__ = _arith("-"), _arith("-", True)
    __mul__, __rmul__ = _arith("*"), _arith("*", True)
    __truediv__, __rtruediv__ = _arith("/"), _arith("/", True)
    __floordiv__, __rfloordiv__ = _arith("//"), _arith("//", True)
    __mod__, __rmod__ = _arith("%"), _arith("%", True)
    del _arith

    def __eq__(self, other):  # type: ignore[override]
        return _Compare("==", self, other)

    def __ne__(self, other):  # type: ignore[override]
        return _Compare("!=", self, other)

    def __lt__(self, other):
        return _Compare("<", self, other)

    def __le__(self, other):
        return _Compare("<=", self, other)

    def __gt__(self, other):
        return _Compare(">", self, other)

    def __ge__(self, other):
        return _Compare(">=", self, other)

    # -- what would freeze a per-call value ------------------------------

    def _refuse(self, what: str, hint: str):
        _note_refusal(self._m_session, f"{self._m_describe()} {what}")
        raise TypeError(
            f"@baked {self._m_session.func_name}(): {self._m_describe()} {what}. The builder "
            f"runs once, when it is decorated, so this would be decided once for every call; "
            f"{hint}."
        )

    def __bool__(self) -> bool:
        hint = _HINT_WHEN
        if isinstance(self, _Compare) and self._m_op == "==":
            hint += (
                " (for `x in (a, b)`, which compares with == and then asks for a bool, "
                "write when(contains((a, b), x), ...))"
            )
        self._refuse(
            "is used as a truth value (if, and, or, not, a conditional expression "
            "or a comprehension's if)",
            hint,
        )

    def __hash__(self) -> int:
        self._refuse(
            "is used as a dictionary key or set member",
            "attribute names and keys are fixed when baking; to look a value up in a table, "
            "do it in the caller, or write the choices with when(x == key, ...)",
        )

    def __len__(self) -> int:
        self._refuse(
            "is passed to len()",
            "use per_call(len, x), which calls len() on each call's value",
        )

    def __contains__(self, item: Any) -> bool:
        self._refuse(
            "is tested with 'in' (Python turns 'in' into a bool at once)",
            "use contains(container, item) inside when(...)",
        )

    def __call__(self, *args: Any, **kwargs: Any) -> "Stand":
        # A method of a field (o.get_absolute_url()), or a function given
        # as a parameter: called per call, as Jinja2 calls it.
        return _Call(self._m_session, _call_value, (self,) + args, kwargs, f"{self._m_path()}(...)")

    def __index__(self) -> int:
        self._refuse(
            "is used as an integer (an index, range(), %d or %x)",
            'use an f-string with a format spec, as f"{x:d}"; for range(), loop over '
            "per_call(range, ...), which makes the range on each call",
        )

    def __int__(self) -> int:
        self._refuse(
            "is converted with int()", "use per_call(int, x), which converts each call's value"
        )

    def __float__(self) -> float:
        self._refuse(
            "is converted with float() (or %f formatting)",
            'use an f-string with a format spec, as f"{x:.2f}"',
        )

    def __neg__(self):
        return _Binary("-", 0, self)

    def __pos__(self):
        return self

    def __abs__(self):
        self._refuse("is passed to abs()", "use per_call(abs, x)")

    def __round__(self, ndigits=None):
        self._refuse("is passed to round()", 'use an f-string with a format spec, as f"{x:.2f}"')

    def __reversed__(self):
        self._refuse(
            "is passed to reversed()", "iterate per_call(reversed, x), or reverse it in the caller"
        )

    def _refusing(what: str, hint: str = "compute the value in the caller"):  # noqa: N805
        def method(self, *args: Any) -> Any:
            self._refuse(what, hint)

        return method

    __divmod__ = __rdivmod__ = _refusing("is passed to divmod()")
    __pow__ = __rpow__ = _refusing("is used with '**'")
    __lshift__ = __rlshift__ = _refusing("is used with '<<'")
    __rshift__ = __rrshift__ = _refusing("is used with '>>'")
    __and__ = __rand__ = _refusing("is used with '&'")
    __xor__ = __rxor__ = _refusing("is used with '^'")
    __or__ = __ror__ = _refusing("is used with '|'")
    __matmul__ = __rmatmul__ = _refusing("is used with '@'")
    __invert__ = _refusing("is used with '~'")
    __trunc__ = _refusing("is passed to math.trunc()")
    __floor__ = _refusing("is passed to math.floor()")
    __ceil__ = _refusing("is passed to math.ceil()")
    __bytes__ = _refusing("is converted with bytes()")
    __complex__ = _refusing("is converted with complex()")
    __delitem__ = _refusing("has an item deleted", "build the data in the caller")
    __delattr__ = _refusing("has an attribute deleted", "build the data in the caller")
    del _refusing

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_m_"):
            object.__setattr__(self, name, value)
        else:
            self._refuse("has an attribute assigned", "build the data in the caller")

    def __setitem__(self, key: Any, value: Any) -> None:
        self._refuse("has an item assigned", "build the data in the caller")

    def __reduce_ex__(self, protocol):
        self._refuse("is copied or pickled", "pass the value itself")

    def _m_describe(self) -> str:
        return f"'{self._m_path()}'"

    def _m_path(self) -> str:  # overridden
        raise NotImplementedError

    def _m_args(self) -> Tuple[Any, ...]:  # the values this one is made of
        return ()


class _Param(Stand):
    __slots__ = ("_m_name", "_m_index")

    def __new__(cls, session: "_Session", name: str, index: int) -> "_Param":
        self = _core.StandIn.__new__(cls, name, session.func_name, index)
        object.__setattr__(self, "_m_session", session)
        object.__setattr__(self, "_m_name", name)
        object.__setattr__(self, "_m_index", index)
        return self

    def _m_describe(self) -> str:
        return f"parameter '{self._m_name}'"

    def _m_path(self) -> str:
        return self._m_name


class _Field(Stand):
    __slots__ = ("_m_base", "_m_key", "_m_how")

    def __new__(cls, base: Stand, key: Any, how: int) -> "_Field":
        self = Stand.__new__(cls, base._m_session, "")
        self._m_base, self._m_key, self._m_how = base, key, how
        return self

    def _m_path(self) -> str:
        if self._m_how == APPLY_ATTR:
            return f"{self._m_base._m_path()}.{self._m_key}"
        if self._m_how == APPLY_UNPACK:
            return f"{self._m_base._m_path()}[{self._m_key[1]}]"
        return f"{self._m_base._m_path()}[{self._m_key!r}]"

    def _m_args(self):
        return (self._m_base,)


class _Binary(Stand):
    __slots__ = ("_m_op", "_m_a", "_m_b")

    def __new__(cls, op: str, a: Any, b: Any) -> "_Binary":
        session = (a if isinstance(a, Stand) else b)._m_session
        self = Stand.__new__(cls, session, "")
        self._m_op, self._m_a, self._m_b = op, a, b
        return self

    def _m_path(self) -> str:
        return f"({_path_of(self._m_a)} {self._m_op} {_path_of(self._m_b)})"

    def _m_args(self):
        return (self._m_a, self._m_b)


class _Compare(_Binary):
    __slots__ = ()


class _Default(Stand):
    """default(value, fallback): the fields read in `value` are compiled to
    give MISSING where they are not there."""

    __slots__ = ("_m_value", "_m_fallback", "_m_boolean")

    def __new__(cls, value: Stand, fallback: Any, boolean: bool) -> "_Default":
        self = Stand.__new__(cls, value._m_session, "")
        self._m_value, self._m_fallback, self._m_boolean = value, fallback, bool(boolean)
        return self

    def _m_path(self) -> str:
        return f"default({self._m_value._m_path()}, ...)"

    def _m_args(self):
        return (self._m_value, self._m_fallback)


class _Contains(Stand):
    __slots__ = ("_m_container", "_m_item")

    def __new__(cls, container: Any, item: Any) -> "_Contains":
        session = (container if isinstance(container, Stand) else item)._m_session
        self = Stand.__new__(cls, session, "")
        self._m_container, self._m_item = container, item
        return self

    def _m_path(self) -> str:
        return f"({_path_of(self._m_item)} in {_path_of(self._m_container)})"

    def _m_args(self):
        return (self._m_container, self._m_item)


class _Loop:
    """One iteration of a stand-in while tracing: its two items' bodies are
    found among the children later."""

    def __init__(self, iterable: Stand) -> None:
        self.iterable = iterable
        self.session = iterable._m_session
        self.number = len(self.session.loops)
        self.session.loops.append(self)
        self.claimed = False
        self.finished = False  # iterated to its end (not cut by islice, zip ...)

    def iterate(self, items: Tuple[Any, ...]) -> Iterator[Any]:
        """The traced items, noting whether the consumer read to the end."""
        for item in items:
            yield item
        self.finished = True


class _Item(Stand):
    __slots__ = ("_m_loop", "_m_k")

    def __new__(cls, loop: _Loop, k: int) -> "_Item":
        self = Stand.__new__(cls, loop.session, "")
        self._m_loop, self._m_k = loop, k
        return self

    def _m_path(self) -> str:
        return f"{self._m_loop.iterable._m_path()}[…]"

    def _m_args(self):
        return (self._m_loop.iterable,)


class _LoopVar(Stand):
    """``loop`` of ``for item, loop in looped(items)``."""

    __slots__ = ("_m_loop", "_m_k")

    def __new__(cls, loop: _Loop, k: int) -> "_LoopVar":
        self = Stand.__new__(cls, loop.session, "")
        self._m_loop, self._m_k = loop, k
        return self

    def __getattr__(self, name: str) -> Any:
        if name == "cycle":
            return lambda *values: _Cycle(self, values)
        if name == "changed":
            # Per call, on the record this run of the loop keeps (C's own).
            return lambda *values: _Call(
                self._m_session,
                _core._loop_changed,
                (_LoopInfo(self, "changes"), *values),
                {},
                "loop.changed(...)",
            )
        if name in _LOOP_FIELDS:
            return _LoopInfo(self, name)
        raise TypeError(
            f"@baked {self._m_session.func_name}(): loop has no '{name}'; it has "
            f"{', '.join(_LOOP_FIELDS)}, cycle(...) and changed(...)"
        )

    def _m_path(self) -> str:
        return f"loop over {self._m_loop.iterable._m_path()}"

    def _m_args(self):
        return (self._m_loop.iterable,)


class _LoopInfo(Stand):
    __slots__ = ("_m_var", "_m_what")

    def __new__(cls, var: _LoopVar, what: str) -> "_LoopInfo":
        self = Stand.__new__(cls, var._m_session, "")
        self._m_var, self._m_what = var, what
        return self

    def _m_path(self) -> str:
        return f"loop.{self._m_what}"


class _Cycle(Stand):
    __slots__ = ("_m_var", "_m_values")

    def __new__(cls, var: _LoopVar, values: Tuple[Any, ...]) -> "_Cycle":
        if not values:
            raise TypeError("loop.cycle() needs at least one value")
        self = Stand.__new__(cls, var._m_session, "")
        self._m_var, self._m_values = var, values
        return self

    def _m_path(self) -> str:
        return "loop.cycle(...)"

    def _m_args(self):
        return self._m_values


class _When(Stand):
    __slots__ = ("_m_cond", "_m_then", "_m_otherwise")

    def __new__(cls, cond: Stand, then: Any, otherwise: Any) -> "_When":
        self = Stand.__new__(cls, cond._m_session, "")
        self._m_cond, self._m_then, self._m_otherwise = cond, then, otherwise
        return self

    def _m_path(self) -> str:
        return f"when({self._m_cond._m_path()}, ...)"

    def _m_args(self):
        return (self._m_cond, self._m_then, self._m_otherwise)


class _Logic(_When):
    """any_of(...), all_of(...) or not_(x) over stand-ins, rendered as the
    when() it is: any_of(a, b) is when(a, a, b), all_of(a, b) when(a, b, a),
    not_(a) when(a, False, True). As a test, _decide takes it apart."""

    __slots__ = ("_m_how", "_m_operands")

    @staticmethod
    def make(how: str, operands: Tuple[Any, ...]) -> Any:
        if not operands:
            raise TypeError(f"{how}() needs at least one value")
        first = _condition(operands[0], how)
        if how == "not_":
            if not isinstance(first, Stand):
                return not first
            then, otherwise = False, True
        elif len(operands) == 1:
            return operands[0]
        else:
            rest = _Logic.make(how, operands[1:])
            if not isinstance(first, Stand):  # a constant decides at once
                if how == "any_of":
                    return operands[0] if first else rest
                return rest if first else operands[0]
            then, otherwise = (operands[0], rest) if how == "any_of" else (rest, operands[0])
        # The test of the first operand taken apart when it is itself one
        # of these: the outermost when() of that is this value's.
        decided = _decide(first, then, otherwise)
        value = _When.__new__(_Logic, decided._m_cond, decided._m_then, decided._m_otherwise)
        value._m_how, value._m_operands = how, tuple(operands)
        return value

    def _m_path(self) -> str:
        shown = ", ".join(
            x._m_path() if isinstance(x, Stand) else repr(x) for x in self._m_operands
        )
        return f"{self._m_how}({shown})"


class _Call(Stand):
    """A function applied per call because an argument holds a stand-in:
    per_call(f, x) (classes(), styles() and aria() use it), or a stand-in
    called (o.method(), with the stand-in as _call_value's first argument)."""

    __slots__ = ("_m_func", "_m_call_args", "_m_kwargs", "_m_shown")

    def __new__(
        cls,
        session: "_Session",
        func: Any,
        args: Tuple[Any, ...],
        kwargs: Dict[str, Any],
        shown: Optional[str] = None,
    ) -> "_Call":
        self = Stand.__new__(cls, session, "")
        self._m_func, self._m_call_args, self._m_kwargs = func, args, kwargs
        self._m_shown = shown or f"{getattr(func, '__name__', 'call')}(...)"
        return self

    def _m_path(self) -> str:
        return self._m_shown

    def _m_args(self):
        return (self._m_call_args, tuple(self._m_kwargs.values()))


def _call_value(func: Any, /, *args: Any, **kwargs: Any) -> Any:
    """A stand-in called while tracing, as the template calls it per call."""
    return func(*args, **kwargs)


def _text_session(text: str) -> Optional["_Session"]:
    """The tracing session whose marker `text` holds, if any."""
    if _MARK not in text:
        return None
    for m in _MARKER.finditer(text):
        session = _sessions().get(m.group(1))
        if session is not None:
            return session
    return None


class _Text(Stand):
    """A text made from stand-ins (an f-string), as an argument of
    classes(), styles() ...: formatted per call."""

    __slots__ = ("_m_text",)

    def __new__(cls, session: "_Session", text: str) -> "_Text":
        self = Stand.__new__(cls, session, "")
        self._m_text = text
        return self

    def _m_path(self) -> str:
        return "a formatted text"

    def _m_args(self):
        return (self._m_text,)


class _Const(Stand):
    """A bool default of a @baked component inlined into another: constant,
    but a stand-in, so that the component's `when(flag, ...)` tests it as
    it tests the flag when the component is baked alone, instead of taking
    it for the frozen answer of a test (which when() refuses)."""

    __slots__ = ("_m_name", "_m_value")

    def __new__(cls, session: "_Session", name: str, value: bool) -> "_Const":
        self = Stand.__new__(cls, session, "")
        self._m_name, self._m_value = name, value
        return self

    def _m_describe(self) -> str:
        return f"parameter '{self._m_name}' (its default, {self._m_value})"

    def _m_path(self) -> str:
        return self._m_name


def inliner(func: Any, defaults: Dict[str, Any]) -> Any:
    """The builder a @baked function runs when it is called with stand-ins
    while another builder is traced (it is then inlined there). It is given
    the arguments the call gave; a bool default, a constant of the
    function, becomes a _Const. A bool the caller gave stays a bool: it may
    be the frozen answer of `x is None`, which when() refuses."""

    def inline(**given: Any) -> Any:
        values = {**defaults, **given}
        sessions = _sessions()
        if not sessions:  # pragma: no cover - the C side inlines only while tracing
            return func(**values)
        session = next(reversed(sessions.values()))  # the innermost trace
        for name, value in defaults.items():
            if name not in given and isinstance(value, bool):
                values[name] = _Const(session, name, value)
        session.inlining += 1
        try:
            return func(**values)
        finally:
            session.inlining -= 1

    return inline


def _find_stand(value: Any) -> Optional[Stand]:
    """The first stand-in inside `value` (through lists, tuples, dicts), a
    text with a stand-in's marker counting as one."""
    if isinstance(value, Stand):
        return value
    if isinstance(value, str):
        session = _text_session(value)
        return _Text(session, value) if session is not None else None
    if isinstance(value, (list, tuple)):
        items: Any = value
    elif isinstance(value, dict):
        items = value.values()
    else:
        return None
    for item in items:
        found = _find_stand(item)
        if found is not None:
            return found
    return None


def _holds_per_call(value: Any) -> bool:
    """Whether a list, tuple or dict holds a stand-in or a text with a
    marker (while compiling, when no session is registered)."""
    if isinstance(value, Stand) or (isinstance(value, str) and _MARK in value):
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_per_call(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_per_call(item) for item in value.values())
    return False


def per_call(func: Any, *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)``: now in plain code; in a ``@baked`` builder,
    where an argument depends on the parameters, on each call with that
    call's values (Jinja2's filters: ``per_call(len, orders)``,
    ``per_call(", ".join, o.tags)``). The result is rendered as any value
    is, escaped unless it is HTML. In a builder, a call with no argument
    that depends on the parameters would be made once, when baking: it is
    a TypeError."""
    sessions = _sessions()
    session = next(reversed(sessions.values())) if sessions else None
    # In an inlined component, a constant the caller gave stands where the
    # component's own decoration saw a parameter (and checked this call).
    if session is not None and not session.inlining and _find_stand((args, kwargs)) is None:
        raise TypeError(
            f"@baked {session.func_name}(): per_call({getattr(func, '__name__', 'func')}, ...) "
            f"has no argument that depends on the parameters, so it would be called once, when "
            f"baking, not per call; call it in the caller and pass the value as a parameter"
        )
    return _per_call(func, *args, **kwargs)


def _per_call(func: Any, *args: Any, **kwargs: Any) -> Any:
    """per_call() for markup's own helpers (classes(), styles() ...), whose
    arguments may all be constants while a builder is traced."""
    found = _find_stand((args, kwargs))
    if found is None:
        return func(*args, **kwargs)
    return _Call(found._m_session, func, args, kwargs)


def _path_of(value: Any) -> str:
    return value._m_path() if isinstance(value, Stand) else repr(value)


# --------------------------------------------------------------------------
# The helpers users write in builders (and in plain code)
# --------------------------------------------------------------------------


def _condition(cond: Any, helper: str) -> Any:
    """`cond` as a test: a stand-in (a text made from one becomes one), or
    a constant that decides at once. A bool while baking is refused: it is
    the frozen answer of a test no stand-in could see."""
    if isinstance(cond, Stand):
        return cond
    if isinstance(cond, str) and _MARK in cond:  # when(str(x), ...), when(f"{x}", ...)
        session = _text_session(cond)
        if session is not None:
            return _Text(session, cond)
    if _sessions():
        # Written as a constant, or the answer of a test such as `x is None`
        # (or of `len(f"{x}")`): trace() tells them apart when the builder
        # has run.
        next(iter(_sessions().values())).constant_tests.append((helper, cond))
    return cond


def _decide(cond: Any, then: Any, otherwise: Any) -> Any:
    """when(cond, then, otherwise) on a tested `cond`: any_of(), all_of()
    and not_() in it are taken apart into nested tests, so that each
    operand is tested only where Python's `or`, `and` and `not` reach it."""
    if isinstance(cond, _Logic):
        how, operands = cond._m_how, cond._m_operands
        if how == "not_":
            return _decide(_condition(operands[0], how), otherwise, then)
        first = _condition(operands[0], how)
        rest = operands[1:]
        if not rest:
            return _decide(first, then, otherwise)
        more = _Logic.make(how, rest)
        if how == "all_of":
            return _decide(first, _decide(_condition(more, how), then, otherwise), otherwise)
        return _decide(first, then, _decide(_condition(more, how), then, otherwise))
    if isinstance(cond, Stand):
        return _When(cond, then, otherwise)
    return then if cond else otherwise


def when(cond: Any, then: Any, otherwise: Any = None) -> Any:
    """``then`` if ``cond`` is true, else ``otherwise``: Jinja2's
    ``{% if %}``. In plain code it decides at once; in a ``@baked`` builder,
    where ``cond`` depends on the parameters, it decides per call. Combine
    tests with ``any_of``, ``all_of`` and ``not_``."""
    return _decide(_condition(cond, "when"), then, otherwise)


def any_of(*values: Any) -> Any:
    """Python's ``a or b or ...``: the first true value, else the last one;
    Jinja2's ``or``. In a ``@baked`` builder it is tested per call, and a
    value after a true one is not read (``any_of(user.nick, user.name)``)."""
    return _Logic.make("any_of", values)


def all_of(*values: Any) -> Any:
    """Python's ``a and b and ...``: the first false value, else the last
    one; Jinja2's ``and``. In a ``@baked`` builder it is tested per call,
    and a value after a false one is not read (``when(all_of(user,
    user.is_admin), ...)`` with ``user`` None)."""
    return _Logic.make("all_of", values)


def not_(value: Any) -> Any:
    """Python's ``not value``, tested per call in a ``@baked`` builder:
    ``when(not_(posts), h.P("No posts"))``, ``h.Div(hidden=not_(shown))``."""
    return _Logic.make("not_", (value,))


class Missing:
    """``MISSING``: what a field that is not there gives in a ``@baked``
    template that forgives it (``default(x.y, ...)``, or
    ``@baked(missing="empty")``), as Jinja2's undefined: it renders as
    nothing (an attribute as ``""``), is false, iterates as empty, and a
    field of it is ``MISSING`` too."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "markup.MISSING"

    def __str__(self) -> str:
        return ""

    def __html__(self) -> str:
        return ""

    def __format__(self, spec: str) -> str:
        return format("", spec)

    def __bool__(self) -> bool:
        return False

    def __len__(self) -> int:
        return 0

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __reduce__(self) -> str:
        return "MISSING"


MISSING = Missing()


def _default_missing(value: Any, fallback: Any) -> Any:
    return fallback if value is MISSING else value


def _default_false(value: Any, fallback: Any) -> Any:
    return fallback if value is MISSING or not value else value


def default(value: Any, fallback: Any = "", boolean: bool = False) -> Any:
    """Jinja2's ``default`` filter: ``fallback`` where ``value`` is a field
    that is not there (``MISSING``), or, with ``boolean=True``, any false
    value. In a ``@baked`` builder the fields read in ``value`` forgive a
    missing key or attribute and a ``None`` on the way
    (``default(user["nick"], "anon")`` with ``user`` None); outside one,
    Python has read them already, so only ``MISSING`` and ``boolean`` act."""
    if isinstance(value, Stand):
        return _Default(value, fallback, boolean)
    if isinstance(value, str) and _MARK in value:
        session = _text_session(value)
        if session is not None:
            return _Default(_Text(session, value), fallback, boolean)
    return (_default_false if boolean else _default_missing)(value, fallback)


def contains(container: Any, item: Any) -> Any:
    """``item in container``, usable in a ``@baked`` builder (Python turns
    ``in`` into a bool at once, so a template cannot trace it)."""
    if isinstance(container, Stand) or isinstance(item, Stand):
        return _Contains(container, item)
    return item in container


class LoopState:
    """Jinja2's ``loop``: ``index`` (from 1), ``index0``, ``first``,
    ``last``, ``length``, ``revindex``, ``revindex0``, ``previtem`` and
    ``nextitem`` (None where there is none), ``cycle(*values)`` and
    ``changed(*values)``."""

    __slots__ = ("index0", "_items", "_changes")

    def __init__(self, index0: int, items: List[Any], changes: List[Any]) -> None:
        self.index0 = index0
        self._items = items
        self._changes = changes  # shared by the loop's states, as Jinja2's one loop

    @property
    def index(self) -> int:
        return self.index0 + 1

    @property
    def first(self) -> bool:
        return self.index0 == 0

    @property
    def last(self) -> bool:
        return self.index0 == len(self._items) - 1

    @property
    def length(self) -> int:
        return len(self._items)

    @property
    def revindex(self) -> int:
        return len(self._items) - self.index0

    @property
    def revindex0(self) -> int:
        return len(self._items) - self.index0 - 1

    @property
    def previtem(self) -> Any:
        return self._items[self.index0 - 1] if self.index0 else None

    @property
    def nextitem(self) -> Any:
        return self._items[self.index0 + 1] if self.index0 + 1 < len(self._items) else None

    def cycle(self, *values: Any) -> Any:
        if not values:
            raise TypeError("loop.cycle() needs at least one value")
        return values[self.index0 % len(values)]

    def changed(self, *values: Any) -> bool:
        """True on the first call and when `values` differ from the last call's."""
        return _core._loop_changed(self._changes, *values)


def looped(iterable: Any) -> Iterator[Tuple[Any, Any]]:
    """Pairs ``(item, loop)`` for Jinja2's ``loop.*`` (index, index0, first,
    last, length, revindex, revindex0, previtem, nextitem, cycle, changed):
    ``[h.Tr({"class": loop.cycle("odd", "even")}, loop.index, o.name) for o, loop in
    looped(orders)]``."""
    if isinstance(iterable, Stand):
        loop = _Loop(iterable)
        return loop.iterate(
            ((_Item(loop, 0), _LoopVar(loop, 0)), (_Item(loop, 1), _LoopVar(loop, 1)))
        )
    items: List[Any] = list(iterable)
    changes: List[Any] = []
    return iter([(item, LoopState(i, items, changes)) for i, item in enumerate(items)])


class _Marker(str):
    """The text of str() or repr() of a stand-in. A format spec applied to
    it afterwards (f"{x!r:>10}") is recorded with it, not applied to the
    marker."""

    def __new__(cls, text: str, session: "_Session", value: Stand, conv: str) -> "_Marker":
        self = str.__new__(cls, text)
        self._m = (session, value, conv)
        return self

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        session, value, conv = self._m
        return session.marker(value, spec, conv)

    def _refuse(self, what: str) -> Any:
        session, value, _ = self._m
        _note_refusal(session, f"the text of {value._m_describe()} {what}")
        raise TypeError(
            f"@baked {session.func_name}(): the text of {value._m_describe()} {what}. The "
            f"builder runs once, when it is decorated, so this would be done to the text of "
            f"that run, not to each call's value; format the finished value, or prepare it "
            f"in the caller."
        )

    def __bool__(self) -> bool:
        return self._refuse("is used as a truth value (use when(x, ...) on the value itself)")

    def __eq__(self, other: object) -> bool:  # type: ignore[override]
        return self._refuse("is compared (compare the value itself: x == 'a')")

    __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __eq__  # type: ignore[assignment]
    __hash__ = str.__hash__


def _refuse_str_method(name: str) -> Any:
    def method(self: _Marker, *args: Any, **kwargs: Any) -> Any:
        return self._refuse(f"has .{name}() applied")

    return method


# str's methods that would change the text of one run, not each call's.
for _name in (
    "capitalize casefold center count encode endswith expandtabs find index isalnum isalpha "
    "isascii isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle "
    "isupper join ljust lower lstrip partition removeprefix removesuffix replace rfind rindex "
    "rjust rpartition rsplit rstrip split splitlines startswith strip swapcase title "
    "translate upper zfill __getitem__ __iter__ __mul__ __rmul__ __mod__"
).split():
    setattr(_Marker, _name, _refuse_str_method(_name))
del _name


# --------------------------------------------------------------------------
# The trace session
# --------------------------------------------------------------------------


class _Session:
    def __init__(self, func_name: str) -> None:
        self.func_name = func_name
        self.nonce = str(int.from_bytes(os.urandom(6), "little"))
        self.formats: List[Tuple[Stand, str, str]] = []
        self.marker_index: Dict[Tuple[int, str, str], int] = {}
        self.loops: List[_Loop] = []
        self.derived = False
        self.inlining = 0  # inlined @baked components being traced now
        self.watch: Optional[_BoolWatch] = None  # set by trace()
        self.constant_tests: List[Tuple[str, Any]] = []  # (helper, the constant)

    def frozen_bools(self) -> Optional[str]:
        """None when nothing the traced code ran could have made a bool of a
        per-call value, so that a True or False in the tree was written as
        one; else what could have (for the refusal)."""
        if self.watch is None:
            return "another profiler (sys.setprofile) running while the builder was traced"
        found = self.watch.found()
        if not found:
            return None
        more = f" and {len(found) - 3} more" if len(found) > 3 else ""
        return ", ".join(found[:3]) + more

    def marker(self, value: Stand, spec: str, conv: str) -> str:
        if _MARK in spec:
            raise TypeError(
                f"@baked {self.func_name}(): the format spec of {value._m_describe()} is made "
                f'from a per-call value (f"{{x:{{y}}}}"); format specs are fixed when '
                f"baking, so write the spec as a constant"
            )
        self.derived = True
        # One marker per (value, spec, conversion): repr() of a container
        # that holds this registry must not keep growing it.
        key = (id(value), spec, conv)
        index = self.marker_index.get(key)
        if index is None:
            index = self.marker_index[key] = len(self.formats)
            self.formats.append((value, spec, conv))
        return _Marker(f"{_MARK}{self.nonce}mK{index}{_MARK}", self, value, conv)

    def split(self, text: str) -> Optional[List[Any]]:
        """The parts of a text with markers: str and (value, spec, conv);
        None when it has none."""
        text = str.__str__(text)  # a plain str (a _Marker refuses slicing)
        if _MARK not in text:
            if "\\U0010fffd" in text:  # ascii(x): the marker, escaped
                raise TypeError(
                    f"@baked {self.func_name}(): a text holds ascii() of a per-call value, "
                    f"which would be fixed when baking; prepare the text in the caller"
                )
            return None
        parts: List[Any] = []
        at = 0
        for m in _MARKER.finditer(text):
            if m.group(1) != self.nonce:
                continue
            if m.start() > at:
                parts.append(text[at : m.start()])
            parts.append(self.formats[int(m.group(2))])
            at = m.end()
        if at < len(text):
            parts.append(text[at:])
        if any(isinstance(p, str) and _MARK in p for p in parts):
            raise TypeError(
                f"@baked {self.func_name}(): a text made from a parameter was cut or changed "
                f"after formatting (slicing, .upper(), .replace() ...), which cannot be done "
                f"per call; format the finished value instead, or do it in the caller"
            )
        return parts


# --------------------------------------------------------------------------
# Reading a traced tree
# --------------------------------------------------------------------------


def _is_element(node: Any) -> bool:
    return isinstance(node, _core.Element)


def _children_of(node: Any) -> Tuple[Any, ...]:
    return node.children if _is_element(node) else ()


def _loop_refs(session: _Session, node: Any, out: Dict[Tuple[int, int], None]) -> None:
    """Adds (loop number, k) for every loop item or loop variable `node`
    uses, in the order met."""
    if isinstance(node, Stand):
        if isinstance(node, (_Item, _LoopVar)):
            out[(node._m_loop.number, node._m_k)] = None
        elif isinstance(node, (_LoopInfo, _Cycle)):
            out[(node._m_var._m_loop.number, node._m_var._m_k)] = None
        for arg in node._m_args():
            _loop_refs(session, arg, out)
        return
    if isinstance(node, str):
        parts = session.split(node)
        for part in parts or ():
            if isinstance(part, tuple):
                _loop_refs(session, part[0], out)
        return
    if isinstance(node, (list, tuple)):
        for item in node:
            _loop_refs(session, item, out)
        return
    if isinstance(node, dict):
        for item in node.values():
            _loop_refs(session, item, out)
        return
    if _is_element(node):
        for value in node.attrs.values():
            _loop_refs(session, value, out)
        for child in node.children:
            _loop_refs(session, child, out)
    elif isinstance(node, _core.Comment):
        _loop_refs(session, node.text, out)


class _Mismatch(Exception):
    pass


def _same(session: _Session, a: Any, b: Any, pairs: Dict[int, Tuple[int, int]]) -> None:
    """Raises _Mismatch unless `a` and `b` are the same tree but for loop
    items: `pairs` maps a loop number in `a` to (its number in `b`, how the
    item index differs) and grows as nested loops are met."""
    if isinstance(a, Stand) or isinstance(b, Stand):
        if type(a) is not type(b):
            raise _Mismatch(a, b)
        if isinstance(a, (_Item, _LoopVar)):
            _same_loop(session, a._m_loop, a._m_k, b._m_loop, b._m_k, pairs)
            return
        if isinstance(a, (_LoopInfo, _Cycle)):
            _same_loop(
                session, a._m_var._m_loop, a._m_var._m_k, b._m_var._m_loop, b._m_var._m_k, pairs
            )
            if isinstance(a, _LoopInfo) and a._m_what != b._m_what:
                raise _Mismatch(a, b)
        if isinstance(a, _Param) and a._m_index != b._m_index:
            raise _Mismatch(a, b)
        if isinstance(a, _Const) and a._m_value is not b._m_value:
            raise _Mismatch(a, b)
        if isinstance(a, _Field) and (a._m_key != b._m_key or a._m_how != b._m_how):
            raise _Mismatch(a, b)
        if isinstance(a, _Binary) and a._m_op != b._m_op:
            raise _Mismatch(a, b)
        if isinstance(a, _Call) and (
            a._m_func is not b._m_func or list(a._m_kwargs) != list(b._m_kwargs)
        ):
            raise _Mismatch(a, b)
        args_a, args_b = a._m_args(), b._m_args()
        if len(args_a) != len(args_b):
            raise _Mismatch(a, b)
        for x, y in zip(args_a, args_b):
            _same(session, x, y, pairs)
        return
    if type(a) is not type(b):
        raise _Mismatch(a, b)
    if isinstance(a, str):
        pa, pb = session.split(a), session.split(b)
        if pa is None or pb is None:
            if a != b:
                raise _Mismatch(a, b)
            return
        if len(pa) != len(pb):
            raise _Mismatch(a, b)
        for x, y in zip(pa, pb):
            if isinstance(x, tuple) and isinstance(y, tuple):
                if x[1:] != y[1:]:
                    raise _Mismatch(a, b)
                _same(session, x[0], y[0], pairs)
            elif x != y:
                raise _Mismatch(a, b)
        return
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            raise _Mismatch(a, b)
        for x, y in zip(a, b):
            _same(session, x, y, pairs)
        return
    if isinstance(a, dict):
        if list(a) != list(b):
            raise _Mismatch(a, b)
        for x, y in zip(a.values(), b.values()):
            _same(session, x, y, pairs)
        return
    if _is_element(a):
        if a.tag != b.tag or list(a.attrs) != list(b.attrs) or len(a.children) != len(b.children):
            raise _Mismatch(a, b)
        if a.doctype != b.doctype:
            raise _Mismatch(a, b)
        for x, y in zip(a.attrs.values(), b.attrs.values()):
            _same(session, x, y, pairs)
        for x, y in zip(a.children, b.children):
            _same(session, x, y, pairs)
        return
    if isinstance(a, _core.Comment):
        _same(session, a.text, b.text, pairs)
        return
    if a is b:
        return
    if isinstance(a, (int, float)) or a is None:
        if a != b:
            raise _Mismatch(a, b)
        return
    html_a, html_b = getattr(a, "__html__", None), getattr(b, "__html__", None)
    if html_a is not None and html_b is not None:
        if html_a() != html_b():
            raise _Mismatch(a, b)
        return
    if a != b:
        raise _Mismatch(a, b)


def _same_loop(session, la: _Loop, ka: int, lb: _Loop, kb: int, pairs) -> None:
    known = pairs.get(la.number)
    if known is not None:
        if known != (lb.number, kb - ka):
            raise _Mismatch(la, lb)
        return
    if ka != kb:
        raise _Mismatch(la, lb)
    pairs[la.number] = (lb.number, 0)
    _same(session, la.iterable, lb.iterable, pairs)
    lb.claimed = True  # the second trace of a nested loop is never compiled


# --------------------------------------------------------------------------
# The compiler
# --------------------------------------------------------------------------


class _Compiler:
    """Drives a _core._ProgramBuilder: the C walker writes the static HTML
    and calls back here for stand-ins (on_stand_in) and for every sequence
    of children (on_children), which is where loops are found."""

    def __init__(self, session: _Session, nparams: int, lenient: bool = False) -> None:
        self.session = session
        # Field reads give MISSING where the field is not there: in the
        # whole template (missing="empty"), or inside a default(...).
        self.lenient = lenient
        self.pb = _core._ProgramBuilder(nparams, self)
        self.ops: List[Tuple[Any, ...]] = []
        self.op_index: Dict[Any, int] = {}
        self.bound: List[_Loop] = []  # loops open around the code being compiled
        self.paths: Dict[int, str] = {}  # statement -> what its value is, for errors
        self.used = [False] * nparams

    # -- expressions ------------------------------------------------------

    def op(self, entry: Tuple[Any, ...]) -> int:
        # Constants are kept apart by identity: equal ones may render
        # differently ((1,) and (1.0,), Decimal("1.10") and Decimal("1.1")).
        if entry[0] == APPLY_CONST:
            key: Any = (APPLY_CONST, id(entry[1]))
        else:
            try:
                key = (entry[0], type(entry[1]), entry[1:])
                hash(key)
            except TypeError:
                key = None
        if key is not None and key in self.op_index:
            return self.op_index[key]
        self.ops.append(entry)
        if key is not None:
            self.op_index[key] = len(self.ops) - 1
        return len(self.ops) - 1

    def level(self, loop: _Loop, stand: Stand) -> int:
        if loop not in self.bound:
            raise TypeError(
                f"@baked {self.session.func_name}(): an item of the loop over "
                f"'{loop.iterable._m_path()}' is used outside that loop's body (for example "
                f"in sum(), a join or another comprehension's condition), where it has no "
                f"value per call; render the items as the comprehension's elements, or "
                f"compute the value in the caller"
            )
        return len(self.bound) - 1 - self.bound.index(loop)

    def path(self, value: Any) -> str:
        """A description of `value` for errors, with {n} where the n-th open
        loop's index goes (escaped for str.format)."""
        if isinstance(value, _Param):
            return value._m_name.replace("{", "{{").replace("}", "}}")
        if isinstance(value, _Item):
            n = self.bound.index(value._m_loop) if value._m_loop in self.bound else 0
            return self.path(value._m_loop.iterable) + "[{%d}]" % n
        if isinstance(value, _Field):
            key = value._m_key
            tail = (
                f".{key}"
                if value._m_how == APPLY_ATTR
                else f"[{key[1]}]"
                if value._m_how == APPLY_UNPACK
                else f"[{key!r}]"
            )
            return self.path(value._m_base) + tail.replace("{", "{{").replace("}", "}}")
        if isinstance(value, _Call) and value._m_func is _call_value:
            return self.path(value._m_call_args[0]) + "(...)"
        return _path_of(value).replace("{", "{{").replace("}", "}}")

    def expr(self, value: Any) -> None:
        """Emits code that pushes `value`."""
        emit = self.pb.emit
        if isinstance(value, str) and not isinstance(value, Stand) and _MARK in value:
            self.text_expr(self.session.split(value))  # a text formatted per call
        elif isinstance(value, _Const):
            emit(OP_APPLY, self.op((APPLY_CONST, value._m_value, "")), 0)
        elif isinstance(value, _Text):
            self.text_expr(self.session.split(value._m_text))
        elif not isinstance(value, Stand) and _holds_per_call(value):
            # a list, tuple or dict that holds a stand-in: built per call
            if isinstance(value, dict):
                for item in value.values():
                    self.expr(item)
                emit(OP_APPLY, self.op((APPLY_DICT, tuple(value), "")), len(value))
            else:
                for item in value:
                    self.expr(item)
                kind = APPLY_LIST if isinstance(value, list) else APPLY_TUPLE
                emit(OP_APPLY, self.op((kind, None, "")), len(value))
        elif not isinstance(value, Stand):
            emit(OP_APPLY, self.op((APPLY_CONST, value, "")), 0)
        elif isinstance(value, _Call):
            for arg in value._m_call_args:
                self.expr(arg)
            for arg in value._m_kwargs.values():
                self.expr(arg)
            n = len(value._m_call_args) + len(value._m_kwargs)
            payload = (value._m_func, tuple(value._m_kwargs))
            emit(OP_APPLY, self.op((APPLY_CALL, payload, self.path(value))), n)
        elif isinstance(value, _Param):
            if value._m_session is not self.session:
                raise TypeError(
                    f"@baked {self.session.func_name}(): the tree holds {value._m_describe()} "
                    f"of {value._m_session.func_name}(), kept from another decoration; only "
                    f"this function's own parameters can be used"
                )
            self.used[value._m_index] = True
            emit(OP_PARAM, value._m_index, 0)
        elif isinstance(value, _Item):
            emit(OP_ITEM, self.level(value._m_loop, value), 0)
        elif isinstance(value, _Field):
            self.expr(value._m_base)
            # Unpacking fails for the item as a whole (its count), not a name.
            shown = value._m_base if value._m_how == APPLY_UNPACK else value
            entry: Tuple[Any, ...] = (value._m_how, value._m_key, self.path(shown))
            if self.lenient and value._m_how != APPLY_UNPACK:
                entry += (MISSING,)
            emit(OP_APPLY, self.op(entry), 1)
        elif isinstance(value, _Default):
            lenient, self.lenient = self.lenient, True
            try:
                self.expr(value._m_value)
            finally:
                self.lenient = lenient
            self.expr(value._m_fallback)
            pick = _default_false if value._m_boolean else _default_missing
            emit(OP_APPLY, self.op((APPLY_CALL, (pick, ()), self.path(value))), 2)
        elif isinstance(value, _Compare):
            self.expr(value._m_a)
            self.expr(value._m_b)
            emit(OP_APPLY, self.op((APPLY_COMPARE, _COMPARE[value._m_op], self.path(value))), 2)
        elif isinstance(value, _Binary):
            self.expr(value._m_a)
            self.expr(value._m_b)
            emit(OP_APPLY, self.op((APPLY_BINARY, _BINARY[value._m_op], self.path(value))), 2)
        elif isinstance(value, _Contains):
            self.expr(value._m_container)
            self.expr(value._m_item)
            emit(OP_APPLY, self.op((APPLY_COMPARE, COMPARE_CONTAINS, self.path(value))), 2)
        elif isinstance(value, _LoopInfo):
            level = self.level(value._m_var._m_loop, value)
            emit(OP_LOOP_INFO, level, _LOOP_INFO[value._m_what])
        elif isinstance(value, _Cycle):
            level = self.level(value._m_var._m_loop, value)
            for v in value._m_values:
                self.expr(v)
            emit(OP_CYCLE, level, len(value._m_values))
        elif isinstance(value, _LoopVar):
            value._refuse("is rendered itself", "render loop.index, loop.first ... instead")
        elif isinstance(value, _When):
            # Inside an expression (an argument of classes(), say), both
            # branches are values, computed before one is chosen.
            if _is_element(value._m_then) or _is_element(value._m_otherwise):
                raise TypeError(
                    f"@baked {self.session.func_name}(): when(...) with an element stands "
                    f"inside an expression; it may only be a whole child there"
                )
            self.expr(value._m_cond)
            self.expr(value._m_then)
            self.expr(value._m_otherwise)
            emit(OP_APPLY, self.op((APPLY_SELECT, None, self.path(value))), 3)
        else:  # pragma: no cover - every Stand kind is listed above
            raise AssertionError(type(value))

    def text_expr(self, parts: List[Any], written: bool = False) -> None:
        """Emits code that pushes the text of formatted `parts` (`written`:
        for a WRITE that takes it at once)."""
        alone = len(parts) == 1 and not isinstance(parts[0], str)
        for part in parts:
            if isinstance(part, str):
                self.expr(part)
            else:
                use = FORMAT_WRITTEN if written and alone else FORMAT_VALUE
                self.field_expr(part, use)
        if not alone:
            self.pb.emit(OP_APPLY, self.op((APPLY_CONCAT, len(parts), "")), len(parts))

    def field_expr(self, part: Tuple[Any, str, str], use: int) -> None:
        """Emits code that pushes one field of a formatted text, formatted
        for `use` (a FORMAT_*: as a value, as one field of a longer text or
        as a whole text written at once); a field of a longer text with no
        spec nor conversion is pushed as it is, for its TEXT slot."""
        value, spec, conv = part
        if isinstance(value, _When):
            raise TypeError(
                f"@baked {self.session.func_name}(): {value._m_path()} is formatted "
                f"into a text; make it a child of its own next to the text instead"
            )
        if use == FORMAT_WRITTEN and not (spec or conv) and self.field_formatted(value):
            return
        self.expr(value)
        if spec or conv or use != FORMAT_JOINED:
            payload = (spec, conv, use)
            self.pb.emit(OP_APPLY, self.op((APPLY_FORMAT, payload, self.path(value))), 1)

    def field_formatted(self, value: Any) -> bool:
        """f"{x.name}" alone, written at once: the field read that formats
        what it reads (a str or number stays itself), with no FORMAT of its
        own, so it is read in place as `x.name` is. False for anything else."""
        if not isinstance(value, _Field) or value._m_how == APPLY_UNPACK:
            return False
        self.expr(value._m_base)
        missing = MISSING if self.lenient else None
        entry = (value._m_how, value._m_key, self.path(value), missing, True)
        self.pb.emit(OP_APPLY, self.op(entry), 1)
        return True

    def opens_text(self, parts: List[Any], name: Optional[str]) -> bool:
        """Whether formatted `parts` are written in place (text_in_place),
        with the attribute's value opened if so: as an attribute's value, or
        as a child where text is only escaped; not a text that is one field
        alone (f"{x}" is whatever x's format gives, a str subclass too)."""
        if not parts or (len(parts) == 1 and not isinstance(parts[0], str)):
            return False
        if name is None:
            return self.pb.text_here()
        self.pb.attr_open(name)
        return True

    def text_in_place(self, parts: List[Any], name: Optional[str], depth: int) -> None:
        """Writes a formatted text with its literal parts as static HTML and
        each field as a TEXT slot, formatted where it is written, so that no
        str is built per call."""
        pb = self.pb
        for part in parts:
            if isinstance(part, str):
                if name is None:
                    pb.render(part, depth)
                else:
                    pb.attr_text(part)
            else:
                slot = pb.text_slot()  # first: the static HTML before it goes out
                self.field_expr(part, FORMAT_JOINED)
                self.paths[pb.emit(OP_WRITE, slot, 0)] = self.path(part[0])
        if name is not None:
            pb.attr_close()

    # -- statements: called by the C walker --------------------------------

    def on_stand_in(self, value: Any, name: Optional[str], depth: int) -> None:
        """A stand-in as a child (name None) or as attribute `name`'s value;
        also a str with markers."""
        pb = self.pb
        if isinstance(value, _When):
            if name is None:
                pb.content()
            pb.flush()
            self.expr(value._m_cond)
            skip = pb.emit(OP_IF, 0, 0)
            self.paths[skip] = self.path(value._m_cond)
            self.branch(value._m_then, name, depth)
            if value._m_otherwise is not None:
                end = pb.emit(OP_JUMP, 0, 0)
                pb.patch(skip, pb.here())
                self.branch(value._m_otherwise, name, depth)
                pb.patch(end, pb.here())
            else:
                pb.patch(skip, pb.here())
            return
        if isinstance(value, _LoopVar):
            value._refuse("is rendered itself", "render loop.index, loop.first ... instead")
        parts = self.session.split(value) if isinstance(value, str) else []
        try:
            if self.opens_text(parts, name):
                self.text_in_place(parts, name, depth)
                return
            slot = pb.child_slot(depth) if name is None else pb.attr_slot(name)
        except TypeError as exc:
            raise TypeError(
                f"@baked {self.session.func_name}(): {_describe(value)} cannot stand here: "
                f"{exc}"
            ) from None
        if isinstance(value, str):
            self.text_expr(parts, written=True)
            what = "a formatted text"
        else:
            self.expr(value)
            what = self.path(value)
        self.paths[pb.emit(OP_WRITE, slot, 0)] = what

    def branch(self, value: Any, name: Optional[str], depth: int) -> None:
        if name is None:  # as any child: formatted text, loops, stand-ins
            self.on_children(
                tuple(value) if isinstance(value, (list, tuple)) else (value,), 0, depth
            )
        else:
            self.pb.render_attr(name, value)
        self.pb.flush()

    def on_children(self, items: Tuple[Any, ...], raw: int, depth: int) -> None:
        if raw:
            for item in items:
                if isinstance(item, Stand) or (isinstance(item, str) and _MARK in item):
                    raise TypeError(
                        f"@baked {self.session.func_name}(): {_describe(item)} is in the text "
                        f"of a <script> or <style>, {_core._RAW_PER_CALL_ADVICE}"
                    )
        for kind, a, b in self.plan(items):
            if kind == "item":
                self.child(a, depth)
            else:
                self.loop(a, b, depth)

    def child(self, item: Any, depth: int) -> None:
        if isinstance(item, str) and _MARK in item:
            self.on_stand_in(item, None, depth)
            return
        if isinstance(item, _core.Comment) and _MARK in item.text:
            raise TypeError(
                f"@baked {self.session.func_name}(): a Comment's text is made from a "
                f"per-call value; comments are fixed when baking (make the Comment a "
                f"parameter, or build it in the caller)"
            )
        self.pb.render(item, depth)

    def loop(self, loop: _Loop, body: List[Any], depth: int) -> None:
        pb = self.pb
        if loop.claimed:
            raise TypeError(
                f"@baked {self.session.func_name}(): the items of the loop over "
                f"'{loop.iterable._m_path()}' are rendered in two places (one list used twice, "
                f"or repeated with *), which would iterate the data twice per call; write "
                f"the comprehension at each place"
            )
        loop.claimed = True
        if not loop.finished:
            raise TypeError(
                f"@baked {self.session.func_name}(): the loop over "
                f"'{loop.iterable._m_path()}' stopped before its end (itertools.islice, zip "
                f"with a shorter list, a break): how many items to render would be fixed "
                f"when baking; cut the data in the caller"
            )
        lookahead = any(
            node._m_what in _LOOKAHEAD_FIELDS
            for node in _walk_stands(self.session, body)
            if isinstance(node, _LoopInfo) and node._m_var._m_loop is loop
        )
        pb.content()
        pb.flush()
        self.expr(loop.iterable)
        start = pb.emit(OP_LOOP, 0, LOOP_LOOKAHEAD if lookahead else 0)
        self.paths[start] = self.path(loop.iterable)
        self.bound.append(loop)
        try:
            self.on_children(tuple(body), 0, depth)
            pb.flush()
        finally:
            self.bound.pop()
        pb.emit(OP_END_LOOP, start + 1, 0)
        pb.patch(start, pb.here())

    def plan(self, items: Tuple[Any, ...]) -> List[Tuple[str, Any, Any]]:
        """Splits children into plain items and loops."""
        session = self.session
        bound = {loop.number for loop in self.bound}
        refs = []
        for item in items:
            found: Dict[Tuple[int, int], None] = {}
            _loop_refs(session, item, found)
            refs.append({r: None for r in found if r[0] not in bound})
        plan: List[Tuple[str, Any, Any]] = []
        done = 0
        i = 0
        n = len(items)
        while i < n:
            # A loop whose two items both stand in this child is found
            # deeper down (or refused there).
            firsts = sorted(r[0] for r in refs[i] if r[1] == 0 and (r[0], 1) not in refs[i])
            if not firsts:
                i += 1
                continue
            loop = session.loops[firsts[0]]
            second = next((j for j in range(i + 1, n) if (loop.number, 1) in refs[j]), None)
            if second is None:
                raise TypeError(
                    f"@baked {session.func_name}(): the loop over "
                    f"'{loop.iterable._m_path()}' does not render one element (or list of "
                    f"elements) per item: its items are used together in one child (a join, "
                    f"sum() or a text). Render a list of elements, one per item, or compute "
                    f"the text in the caller"
                )
            k = second - i
            chosen = None
            why = None
            for s in range(max(i - k + 1, done), i + 1):
                if s + 2 * k > n:
                    continue
                try:
                    _same(
                        session,
                        list(items[s : s + k]),
                        list(items[s + k : s + 2 * k]),
                        {loop.number: (loop.number, 1)},
                    )
                except _Mismatch as exc:
                    why = why or exc
                    continue
                chosen = s
                break
            if chosen is None:
                raise TypeError(
                    f"@baked {session.func_name}(): the loop over "
                    f"'{loop.iterable._m_path()}' renders its items differently other than "
                    f"through the item itself{_describe_mismatch(why)}: enumerate(), a counter, "
                    f"zip() with a real list or a value computed from the previous item would "
                    f"be frozen into the template. Use looped(...) for loop.index, "
                    f"loop.first and loop.cycle(...), or prepare the data in the caller"
                )
            for j in range(done, chosen):
                plan.append(("item", items[j], None))
            plan.append(("loop", loop, list(items[chosen : chosen + k])))
            done = i = chosen + 2 * k
        for j in range(done, n):
            plan.append(("item", items[j], None))
        return plan


def _describe(value: Any) -> str:
    if isinstance(value, Stand):
        return value._m_describe()
    return "a text formatted from a per-call value"


def _describe_mismatch(exc: Optional[_Mismatch]) -> str:
    if exc is None or len(exc.args) != 2:
        return ""
    a, b = exc.args
    if isinstance(a, (str, int, float)) and isinstance(b, (str, int, float)):
        return f" ({a!r} for the first item, {b!r} for the second)"
    return ""


def _walk_stands(session: _Session, node: Any):
    if isinstance(node, Stand):
        yield node
        for arg in node._m_args():
            yield from _walk_stands(session, arg)
    elif isinstance(node, str):
        for part in session.split(node) or ():
            if isinstance(part, tuple):
                yield from _walk_stands(session, part[0])
    elif isinstance(node, (list, tuple)):
        for item in node:
            yield from _walk_stands(session, item)
    elif isinstance(node, dict):
        for item in node.values():
            yield from _walk_stands(session, item)
    elif _is_element(node):
        for value in node.attrs.values():
            yield from _walk_stands(session, value)
        for child in node.children:
            yield from _walk_stands(session, child)


# What can make a bool of a per-call value where no stand-in method sees it:
# identity, containment and `not` (on a text made from a stand-in, or a
# value computed from one), and the built-ins that answer about an object
# (isinstance(x, ...), hasattr(x, ...)) or give a number to compare (len()).
# While a builder is traced, the user code that runs (not markup's own) is
# read for these operations and its calls of C functions watched; a True or
# False written in the tree is taken as written only where none ran.
_BOOL_OPCODES = {
    dis.opmap[name]: text
    for name, text in (
        ("IS_OP", "`is`"),
        ("CONTAINS_OP", "`in`"),
        ("UNARY_NOT", "`not`"),
        ("MATCH_CLASS", "`match`"),
        ("MATCH_MAPPING", "`match`"),
        ("MATCH_SEQUENCE", "`match`"),
        ("MATCH_KEYS", "`match`"),
    )
    if name in dis.opmap
}
# `if x is None:` jumps on None without IS_OP (3.11 and newer).
_BOOL_OPCODES.update(
    {
        code: "`is None`"
        for name, code in dis.opmap.items()
        if name.endswith(("IF_NONE", "IF_NOT_NONE"))
    }
)
_BOOL_CALLS = frozenset([isinstance, issubclass, hasattr, callable, any, all, len, id])
# Classes, whose calls no C-function event reports: read by name.
_BOOL_NAMES = frozenset(["type", "bool"])
# A text formatted from a value, compared at once (f"u-{x}" == "u-a"): the
# comparison sees a plain str.
_FORMATTING = frozenset(
    ["BUILD_STRING", "FORMAT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC", "CONVERT_VALUE"]
)
_OWN_CODE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _note_refusal(session: Any, what: str) -> None:
    # A refusal the builder catches (try: int(x) except TypeError: ...)
    # leaves the answer of its except branch frozen.
    watch = getattr(session, "watch", None)
    if watch is not None:
        watch.calls.append(f"a refused use ({what}) that the builder may have caught")


class _BoolWatch:
    """The sys.setprofile hook while a builder is traced: the code objects
    of the user functions that ran, and the calls of C functions that can
    answer with a bool."""

    def __init__(self) -> None:
        self.codes: Dict[Any, None] = {}
        self.calls: List[str] = []

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        code = frame.f_code
        if code.co_filename.startswith(_OWN_CODE):
            return
        if event == "call":
            self.codes[code] = None
        elif event == "c_call":
            owner = getattr(arg, "__self__", None)
            if (
                arg in _BOOL_CALLS
                or getattr(arg, "__module__", None) in ("operator", "_operator")
                or (isinstance(owner, str) and _MARK in owner)
            ):
                where = f"{code.co_name}() at line {frame.f_lineno}"
                self.calls.append(f"{getattr(arg, '__name__', 'a call')}() in {where}")

    def found(self) -> List[str]:
        found = list(self.calls)
        for code in list(self.codes):  # a profiler may still record into it
            line = code.co_firstlineno
            formatted_at = -100
            for ins in dis.get_instructions(code):
                start = getattr(ins, "line_number", None) or ins.starts_line
                if start and start is not True:
                    line = start
                where = f"in {code.co_name}() at line {line}"
                if ins.opcode in _BOOL_OPCODES:
                    found.append(f"{_BOOL_OPCODES[ins.opcode]} {where}")
                elif ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval in _BOOL_NAMES:
                    found.append(f"{ins.argval}() {where}")
                elif ins.opname in _FORMATTING:
                    formatted_at = ins.offset
                elif ins.opname == "COMPARE_OP" and 0 <= ins.offset - formatted_at <= 16:
                    # within a few instructions of the formatting (bytes of code)
                    found.append(f"a comparison of a formatted text {where}")
        return found


class _CollectorHold:
    """gc.disable() for the first of the traces running at once (in any
    thread), gc.enable() after the last, if it was on before the first."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.holds = 0
        self.was_on = False

    def __call__(self, hold: bool) -> None:
        with self.lock:
            if hold:
                if not self.holds:
                    self.was_on = gc.isenabled()
                    gc.disable()
                self.holds += 1
            else:
                self.holds -= 1
                if not self.holds and self.was_on:
                    gc.enable()


_hold_collector = _CollectorHold()


def trace(func: Any, name: str, params: List[str]) -> Tuple[_Session, List[Stand], Any]:
    """Runs the builder with a stand-in per parameter."""
    session = _Session(name)
    stands = [_Param(session, p, i) for i, p in enumerate(params)]
    _sessions()[session.nonce] = session
    # A generator over a stand-in must run while the builder is traced.
    eager = _core._eager_children(True)
    # Watched unless something else profiles this thread (a nested trace
    # shares the watch of the one around it).
    # The collector is held meanwhile: a finalizer it ran (a generator of
    # other code closed) would be watched as the builder's code.
    outer = sys.getprofile()
    session.watch = outer if isinstance(outer, _BoolWatch) else None
    watching = outer is None
    try:
        if watching:
            session.watch = _BoolWatch()
            _hold_collector(True)
            sys.setprofile(session.watch)
        tree = func(**dict(zip(params, stands)))
    except TypeError as exc:
        _name_stand_in_misuse(name, exc)
        raise
    finally:
        if watching:
            sys.setprofile(None)
            _hold_collector(False)
        _core._eager_children(eager)
        del _sessions()[session.nonce]
    # The outermost trace decides (a nested one shares its watch and its
    # constant tests).
    if session.constant_tests and not isinstance(outer, _BoolWatch):
        frozen = session.frozen_bools()
        if frozen is not None:
            helper, cond = session.constant_tests[0]
            raise TypeError(
                f"@baked {name}(): {helper}() got the constant {cond!r}, and {frozen} could "
                f"have made it from a parameter: such a test runs once, when baking, and its "
                f"answer would be frozen into the template. Compare the value itself (`x == "
                f"None`, `x == 'a'`), which is tested per call, or decide outside the "
                f"template; a constant written as such (a component's flag) is fine in a "
                f"builder that makes no such test"
            )
    return session, stands, tree


# Python's own TypeError about a stand-in names its class, quoted, before
# "found" or after "not" ("sequence item 0: expected str instance, _Item
# found", from ", ".join(xs); "unsupported operand type(s) for +: 'int' and
# '_Item'"; "%d format: a real number is required, not _Param", which
# 3.15 words "format argument: %d requires a real number, not
# markup._template._Param").
_NAMED_CLASS = re.compile(
    r"""['"](_[A-Z][A-Za-z]*)['"]|\b(_[A-Z][A-Za-z]*) found\b|\bnot (?:\w+\.)*(_[A-Z][A-Za-z]*)$"""
)
_PERCENT_FORMAT = re.compile(r"%\S* format:|format argument( \d+)?: %")


def _name_stand_in_misuse(name: str, exc: TypeError) -> None:
    """Raises a TypeError that says what went wrong in the user's terms when
    `exc` is Python's own, about a stand-in; returns otherwise (a subclass
    of TypeError, or any other text, is left as it was raised)."""
    text = str(exc)
    if type(exc) is not TypeError or text.startswith("@baked"):
        return
    names = {cls.__name__ for cls in _stand_classes()}
    if not any(
        (match.group(1) or match.group(2) or match.group(3)) in names
        for match in _NAMED_CLASS.finditer(text)
    ):
        return
    if _PERCENT_FORMAT.match(text):
        raise TypeError(
            f"@baked {name}(): a per-call value is formatted with '%' ({text}); '%' "
            f"converts it with int() or float() now, once for every call. Use an f-string "
            f'with a format spec, as f"{{x:d}}" or f"{{x:x}}", which is formatted per call'
        ) from exc
    raise TypeError(
        f"@baked {name}(): a per-call value was given to Python code that needs the real "
        f"value now ({text}). The builder runs once, when it is decorated, so that code "
        f"would run once for every call; call it on each call's value with "
        f"per_call(func, *args) (as per_call(', '.join, tags)), prepare the value in the "
        f"caller, or write an element per item"
    ) from exc


def _stand_classes() -> List[type]:
    found, todo = [], [Stand]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def _refuse_frozen_text(session: _Session, node: Any, seen: Dict[int, None]) -> None:
    """Text made from a stand-in where the compiler would write it as it
    is: an attribute name, a SafeString or Markup (escape(f"{x}"): its
    static part is HTML, the value's is not, and they cannot be told apart
    any more), a Comment."""
    if id(node) in seen:
        return
    seen[id(node)] = None

    def refuse(what: str) -> None:
        raise TypeError(
            f"@baked {session.func_name}(): {what} is made from a per-call value, and would "
            f"be fixed when baking; pass the finished value as a parameter instead"
        )

    if isinstance(node, str):
        if _MARK in node and (isinstance(node, _core.SafeString) or hasattr(node, "__html__")):
            refuse("a SafeString or escape() result (trusted HTML)")
    elif isinstance(node, (list, tuple)):
        for item in node:
            _refuse_frozen_text(session, item, seen)
    elif isinstance(node, _When):
        _refuse_frozen_text(session, node._m_then, seen)
        _refuse_frozen_text(session, node._m_otherwise, seen)
    elif _is_element(node):
        for name, value in node.attrs.items():
            if _MARK in name:
                refuse(f"the name of an attribute of <{node.tag}>")
            _refuse_frozen_text(session, value, seen)
        for child in node.children:
            _refuse_frozen_text(session, child, seen)
    elif isinstance(node, _core.Comment) and _MARK in node.text:
        refuse("a Comment's text")


def needs_program(session: _Session) -> bool:
    """Whether the builder did more with its parameters than place them."""
    return session.derived or bool(session.loops)


def compile_program(
    session: _Session, params: List[str], tree: Any, lenient: bool = False
) -> Tuple[Any, Tuple[Any, ...], Dict[int, str]]:
    """Compiles a traced tree: the finished _ProgramBuilder, its operations
    and what each statement computes (for errors). `lenient`: every field
    read gives MISSING where the field is not there."""
    _refuse_frozen_text(session, tree, {})
    compiler = _Compiler(session, len(params), lenient)
    compiler.on_children(tuple(tree) if isinstance(tree, (list, tuple)) else (tree,), 0, 0)
    compiler.pb.flush()
    for loop in session.loops:
        if not loop.claimed:
            raise TypeError(
                f"@baked {session.func_name}(): '{loop.iterable._m_path()}' is iterated, but "
                f"its items are not rendered as a comprehension's elements (a loop whose "
                f"body does not use its item, or a loop outside the returned tree); use the "
                f"item in each element, or build that part in the caller"
            )
    for name, used in zip(params, compiler.used):
        if not used:
            raise TypeError(
                f"@baked {session.func_name}(): parameter '{name}' is not used in the returned "
                f"tree. Every parameter must be rendered, tested in when(...) or looped over; "
                f"a parameter that only steers a test such as `x is None` would be decided "
                f"once, when baking. Remove it, or use when(...)"
            )
    return compiler.pb, tuple(compiler.ops), compiler.paths
