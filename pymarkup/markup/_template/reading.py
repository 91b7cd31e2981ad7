"""Reading a traced tree: the stand-ins it holds, the loop items each
part uses, and whether the two traces of a loop body are the same."""

from __future__ import annotations

from typing import Any, Dict, Tuple

from .. import _core
from .session import _Session
from .stands import (
    StandIn,
    _Binary,
    _Call,
    _Const,
    _Cycle,
    _Field,
    _Item,
    _Loop,
    _LoopInfo,
    _LoopVar,
    _Param,
)


def _is_element(node: Any) -> bool:
    return isinstance(node, _core.Element)


def _children_of(node: Any) -> Tuple[Any, ...]:
    return node.children if _is_element(node) else ()


def _loop_refs(session: _Session, node: Any, out: Dict[Tuple[int, int], None]) -> None:
    """Adds (loop number, k) for every loop item or loop variable `node`
    uses, in the order met."""
    if isinstance(node, StandIn):
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
    if isinstance(a, StandIn) or isinstance(b, StandIn):
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
