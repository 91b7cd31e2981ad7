"""Reading a traced tree: the stand-ins it holds, the loop items each
part uses, and whether the two traces of a loop body are the same."""

from __future__ import annotations

from typing import Any, Dict, Tuple

from .. import _core
from .session import _Session
from .stands import (
    StandIn,
    _Loop,
)


def _is_element(node: Any) -> bool:
    return isinstance(node, _core.Element)


def _children_of(node: Any) -> Tuple[Any, ...]:
    return node.children if _is_element(node) else ()


def _loop_refs(session: _Session, node: Any, out: Dict[Tuple[int, int], None]) -> None:
    """Adds (loop number, k) for every loop item or loop variable `node`
    uses, in the order met."""
    for stand_in in _walk_stands(session, node):
        ref = stand_in._m_loop_ref()
        if ref is not None:
            out[(ref[0].number, ref[1])] = None


class _Mismatch(Exception):
    pass


def _same(session: _Session, a: Any, b: Any, pairs: Dict[int, Tuple[int, int]]) -> None:
    """Raises _Mismatch unless `a` and `b` are the same tree but for loop
    items: `pairs` maps a loop number in `a` to (its number in `b`, how the
    item index differs) and grows as nested loops are met."""
    if isinstance(a, StandIn) or isinstance(b, StandIn):
        if type(a) is not type(b) or a._m_identity() != b._m_identity():
            raise _Mismatch(a, b)
        ref_a, ref_b = a._m_loop_ref(), b._m_loop_ref()
        if ref_a is not None:
            _same_loop(session, *ref_a, *ref_b, pairs)
        args_a, args_b = a._m_compared(), b._m_compared()
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


def _walk_stands(session: _Session, node: Any):
    if isinstance(node, StandIn):
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
    elif isinstance(node, _core.Comment):
        yield from _walk_stands(session, node.text)
