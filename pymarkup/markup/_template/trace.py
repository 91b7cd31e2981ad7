"""Tracing a builder and compiling what it returned: the entry points
markup._baked calls."""

from __future__ import annotations

import gc
import re
import sys
import threading
from typing import Any, Dict, List, Tuple

from .. import _core
from .compiler import _Compiler
from .reading import _is_element
from .session import _Session, _sessions
from .stands import StandIn, _Param, _When
from .table import _MARK
from .watch import _BoolWatch


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


def trace(func: Any, name: str, params: List[str]) -> Tuple[_Session, List[StandIn], Any]:
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
    found, todo = [], [StandIn]
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
