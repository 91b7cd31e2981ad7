"""The stand-ins: what a parameter becomes while its builder is traced.
Each records the operation that made it (a field, arithmetic, a comparison,
a call, a loop item) for the compiler to turn into program instructions."""

from __future__ import annotations

import sys
from typing import Any, Dict, Iterator, Optional, Tuple

from .. import _core
from .._core import APPLY_ATTR, APPLY_ITEM, APPLY_UNPACK
from .session import _Session, _sessions, _text_session
from .table import _LOOP_FIELDS, _MARK, _UNPACK_EX, _UNPACK_SEQUENCE
from .watch import _note_refusal

_HINT_WHEN = (
    "write when(cond, then, otherwise) instead: the test then runs per call; for and, or "
    "and not write all_of(a, b), any_of(a, b) and not_(a), which also give the value "
    "(any_of(x, 'default'))"
)


class StandIn(_core.StandIn):
    """A value known only per call: a parameter, a field of one, a loop
    item, arithmetic, a comparison, ``when``. Attribute and item access,
    arithmetic and comparisons give new stand-ins; anything that needs the
    value now raises ``TypeError``."""

    __slots__ = ("_m_session",)

    def __new__(cls, session: "_Session", path: str) -> "StandIn":
        self = _core.StandIn.__new__(cls, path, session.func_name, -1)
        self._m_session = session
        session.derived = True
        return self

    # -- what a template can do per call --------------------------------

    def __getattr__(self, name: str) -> "StandIn":
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Field(self, name, APPLY_ATTR)

    def __getitem__(self, key: Any) -> "StandIn":
        if isinstance(key, StandIn):
            self._refuse(
                f"is indexed with another per-call value ({key._m_describe()})",
                "index with a constant key, or pass the value as a parameter",
            )
        if isinstance(key, slice):
            self._refuse("is sliced", "slice the data in the caller")
        return _Field(self, key, APPLY_ITEM)

    def __iter__(self) -> Iterator["StandIn"]:
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

    def _arith(op: str, swap: bool = False):
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

    def __call__(self, *args: Any, **kwargs: Any) -> "StandIn":
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

    def _refusing(what: str, hint: str = "compute the value in the caller"):
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

    # -- how the two traces of a loop body are matched (reading._same) --

    def _m_identity(self) -> Tuple[Any, ...]:
        """What besides its type and its values must be equal in the other
        trace: the operator, the key, the parameter."""
        return ()

    def _m_loop_ref(self) -> Optional[Tuple["_Loop", int]]:
        """The loop and which of its two traced items this one stands for,
        for a loop item, loop variable or one of its fields."""
        return None

    def _m_compared(self) -> Tuple[Any, ...]:
        """The values compared with the other trace's."""
        return self._m_args()


class _Param(StandIn):
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

    def _m_identity(self) -> Tuple[Any, ...]:
        return (self._m_index,)


class _Field(StandIn):
    __slots__ = ("_m_base", "_m_key", "_m_how")

    def __new__(cls, base: StandIn, key: Any, how: int) -> "_Field":
        self = StandIn.__new__(cls, base._m_session, "")
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

    def _m_identity(self) -> Tuple[Any, ...]:
        return (self._m_key, self._m_how)


class _Binary(StandIn):
    __slots__ = ("_m_op", "_m_a", "_m_b")

    def __new__(cls, op: str, a: Any, b: Any) -> "_Binary":
        session = (a if isinstance(a, StandIn) else b)._m_session
        self = StandIn.__new__(cls, session, "")
        self._m_op, self._m_a, self._m_b = op, a, b
        return self

    def _m_path(self) -> str:
        return f"({_path_of(self._m_a)} {self._m_op} {_path_of(self._m_b)})"

    def _m_args(self):
        return (self._m_a, self._m_b)

    def _m_identity(self) -> Tuple[Any, ...]:
        return (self._m_op,)


class _Compare(_Binary):
    __slots__ = ()


class _Default(StandIn):
    """default(value, fallback): the fields read in `value` are compiled to
    give MISSING where they are not there."""

    __slots__ = ("_m_value", "_m_fallback", "_m_boolean")

    def __new__(cls, value: StandIn, fallback: Any, boolean: bool) -> "_Default":
        self = StandIn.__new__(cls, value._m_session, "")
        self._m_value, self._m_fallback, self._m_boolean = value, fallback, bool(boolean)
        return self

    def _m_path(self) -> str:
        return f"default({self._m_value._m_path()}, ...)"

    def _m_args(self):
        return (self._m_value, self._m_fallback)


class _Contains(StandIn):
    __slots__ = ("_m_container", "_m_item")

    def __new__(cls, container: Any, item: Any) -> "_Contains":
        session = (container if isinstance(container, StandIn) else item)._m_session
        self = StandIn.__new__(cls, session, "")
        self._m_container, self._m_item = container, item
        return self

    def _m_path(self) -> str:
        return f"({_path_of(self._m_item)} in {_path_of(self._m_container)})"

    def _m_args(self):
        return (self._m_container, self._m_item)


class _Loop:
    """One iteration of a stand-in while tracing: its two items' bodies are
    found among the children later."""

    def __init__(self, iterable: StandIn) -> None:
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


class _Item(StandIn):
    __slots__ = ("_m_loop", "_m_k")

    def __new__(cls, loop: _Loop, k: int) -> "_Item":
        self = StandIn.__new__(cls, loop.session, "")
        self._m_loop, self._m_k = loop, k
        return self

    def _m_path(self) -> str:
        return f"{self._m_loop.iterable._m_path()}[…]"

    def _m_args(self):
        return (self._m_loop.iterable,)

    def _m_loop_ref(self) -> Optional[Tuple[_Loop, int]]:
        return (self._m_loop, self._m_k)

    def _m_compared(self) -> Tuple[Any, ...]:
        return ()  # the loops' pairing compares their iterables


class _LoopVar(StandIn):
    """``loop`` of ``for item, loop in looped(items)``."""

    __slots__ = ("_m_loop", "_m_k")

    def __new__(cls, loop: _Loop, k: int) -> "_LoopVar":
        self = StandIn.__new__(cls, loop.session, "")
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

    def _m_loop_ref(self) -> Optional[Tuple[_Loop, int]]:
        return (self._m_loop, self._m_k)

    def _m_compared(self) -> Tuple[Any, ...]:
        return ()  # the loops' pairing compares their iterables


class _LoopInfo(StandIn):
    __slots__ = ("_m_var", "_m_what")

    def __new__(cls, var: _LoopVar, what: str) -> "_LoopInfo":
        self = StandIn.__new__(cls, var._m_session, "")
        self._m_var, self._m_what = var, what
        return self

    def _m_path(self) -> str:
        return f"loop.{self._m_what}"

    def _m_identity(self) -> Tuple[Any, ...]:
        return (self._m_what,)

    def _m_loop_ref(self) -> Optional[Tuple[_Loop, int]]:
        return self._m_var._m_loop_ref()


class _Cycle(StandIn):
    __slots__ = ("_m_var", "_m_values")

    def __new__(cls, var: _LoopVar, values: Tuple[Any, ...]) -> "_Cycle":
        if not values:
            raise TypeError("loop.cycle() needs at least one value")
        self = StandIn.__new__(cls, var._m_session, "")
        self._m_var, self._m_values = var, values
        return self

    def _m_path(self) -> str:
        return "loop.cycle(...)"

    def _m_args(self):
        return self._m_values

    def _m_loop_ref(self) -> Optional[Tuple[_Loop, int]]:
        return self._m_var._m_loop_ref()


class _When(StandIn):
    __slots__ = ("_m_cond", "_m_then", "_m_otherwise")

    def __new__(cls, cond: StandIn, then: Any, otherwise: Any) -> "_When":
        self = StandIn.__new__(cls, cond._m_session, "")
        self._m_cond, self._m_then, self._m_otherwise = cond, then, otherwise
        return self

    def _m_path(self) -> str:
        return f"when({self._m_cond._m_path()}, ...)"

    def _m_args(self):
        return (self._m_cond, self._m_then, self._m_otherwise)


class _Call(StandIn):
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
        self = StandIn.__new__(cls, session, "")
        self._m_func, self._m_call_args, self._m_kwargs = func, args, kwargs
        self._m_shown = shown or f"{getattr(func, '__name__', 'call')}(...)"
        return self

    def _m_path(self) -> str:
        return self._m_shown

    def _m_args(self):
        return (self._m_call_args, tuple(self._m_kwargs.values()))

    def _m_identity(self) -> Tuple[Any, ...]:
        return (id(self._m_func), tuple(self._m_kwargs))


def _call_value(func: Any, /, *args: Any, **kwargs: Any) -> Any:
    """A stand-in called while tracing, as the template calls it per call."""
    return func(*args, **kwargs)


class _Text(StandIn):
    """A text made from stand-ins (an f-string), as an argument of
    classes(), styles() ...: formatted per call."""

    __slots__ = ("_m_text",)

    def __new__(cls, session: "_Session", text: str) -> "_Text":
        self = StandIn.__new__(cls, session, "")
        self._m_text = text
        return self

    def _m_path(self) -> str:
        return "a formatted text"

    def _m_args(self):
        return (self._m_text,)


class _Const(StandIn):
    """A bool default of a @baked component inlined into another: constant,
    but a stand-in, so that the component's `when(flag, ...)` tests it as
    it tests the flag when the component is baked alone, instead of taking
    it for the frozen answer of a test (which when() refuses)."""

    __slots__ = ("_m_name", "_m_value")

    def __new__(cls, session: "_Session", name: str, value: bool) -> "_Const":
        self = StandIn.__new__(cls, session, "")
        self._m_name, self._m_value = name, value
        return self

    def _m_describe(self) -> str:
        return f"parameter '{self._m_name}' (its default, {self._m_value})"

    def _m_path(self) -> str:
        return self._m_name

    def _m_identity(self) -> Tuple[Any, ...]:
        return (id(self._m_value),)


class _TString(StandIn):
    """A t-string (markup.html) in a traced builder: its template's own
    text is the static HTML, and its values are written where they stand.
    `template` gives the text in pieces around the values, what each value
    is to the HTML (a child, an attribute ...) and the template's elements
    as a shell that the writer follows (markup/_tstring.py)."""

    __slots__ = ("_m_template", "_m_values")

    def __new__(cls, session: "_Session", template: Any, values: Tuple[Any, ...]) -> "_TString":
        self = StandIn.__new__(cls, session, "")
        self._m_template, self._m_values = template, values
        return self

    def _m_path(self) -> str:
        return "a t-string"

    def _m_args(self):
        return self._m_values

    def _m_identity(self) -> Tuple[Any, ...]:
        return (id(self._m_template),)


class _Slot(StandIn):
    """Where value `index` of the t-string being compiled stands in its
    shell: made by the compiler, never traced."""

    __slots__ = ("_m_index",)

    def __new__(cls, session: "_Session", index: int) -> "_Slot":
        self = StandIn.__new__(cls, session, "")
        self._m_index = index
        return self

    def _m_path(self) -> str:
        return f"t-string value {self._m_index}"


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


def _find_stand(value: Any) -> Optional[StandIn]:
    """The first stand-in inside `value` (through lists, tuples, dicts), a
    text with a stand-in's marker counting as one."""
    if isinstance(value, StandIn):
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
    if isinstance(value, StandIn) or (isinstance(value, str) and _MARK in value):
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
    return value._m_path() if isinstance(value, StandIn) else repr(value)
