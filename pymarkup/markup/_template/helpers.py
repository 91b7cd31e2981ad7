"""The helpers users write in builders (and in plain code): when(),
any_of(), all_of(), not_(), default(), contains(), looped()."""

from __future__ import annotations

from typing import Any, Iterator, List, Tuple

from .. import _core
from .session import _sessions, _text_session
from .stands import StandIn, _Contains, _Default, _Item, _Loop, _LoopVar, _Text, _When
from .table import _MARK


def _condition(cond: Any, helper: str) -> Any:
    """`cond` as a test: a stand-in (a text made from one becomes one), or
    a constant that decides at once. A bool while baking is refused: it is
    the frozen answer of a test no stand-in could see."""
    if isinstance(cond, StandIn):
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
    if isinstance(cond, StandIn):
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
            if not isinstance(first, StandIn):
                return not first
            then, otherwise = False, True
        elif len(operands) == 1:
            return operands[0]
        else:
            rest = _Logic.make(how, operands[1:])
            if not isinstance(first, StandIn):  # a constant decides at once
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
            x._m_path() if isinstance(x, StandIn) else repr(x) for x in self._m_operands
        )
        return f"{self._m_how}({shown})"


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
    if isinstance(value, StandIn):
        return _Default(value, fallback, boolean)
    if isinstance(value, str) and _MARK in value:
        session = _text_session(value)
        if session is not None:
            return _Default(_Text(session, value), fallback, boolean)
    return (_default_false if boolean else _default_missing)(value, fallback)


def contains(container: Any, item: Any) -> Any:
    """``item in container``, usable in a ``@baked`` builder (Python turns
    ``in`` into a bool at once, so a template cannot trace it)."""
    if isinstance(container, StandIn) or isinstance(item, StandIn):
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
    if isinstance(iterable, StandIn):
        loop = _Loop(iterable)
        return loop.iterate(
            ((_Item(loop, 0), _LoopVar(loop, 0)), (_Item(loop, 1), _LoopVar(loop, 1)))
        )
    items: List[Any] = list(iterable)
    changes: List[Any] = []
    return iter([(item, LoopState(i, items, changes)) for i, item in enumerate(items)])
