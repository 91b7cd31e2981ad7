"""The compiler: a traced tree into a libmarkup template program."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .. import _core
from .._core import (
    APPLY_ATTR,
    APPLY_BINARY,
    APPLY_CALL,
    APPLY_COMPARE,
    APPLY_CONCAT,
    APPLY_CONST,
    APPLY_DICT,
    APPLY_FORMAT,
    APPLY_LIST,
    APPLY_SELECT,
    APPLY_TUPLE,
    APPLY_UNPACK,
    COMPARE_CONTAINS,
    FORMAT_JOINED,
    FORMAT_VALUE,
    FORMAT_WRITTEN,
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
from .helpers import MISSING, _default_false, _default_missing
from .reading import _is_element, _loop_refs, _Mismatch, _same, _walk_stands
from .session import _Session
from .stands import (
    StandIn,
    _Binary,
    _Call,
    _call_value,
    _Compare,
    _Const,
    _Contains,
    _Cycle,
    _Default,
    _Field,
    _holds_per_call,
    _Item,
    _Loop,
    _LoopInfo,
    _LoopVar,
    _Param,
    _path_of,
    _Slot,
    _Text,
    _TString,
    _When,
)
from .table import _BINARY, _COMPARE, _LOOKAHEAD_FIELDS, _LOOP_INFO, _MARK


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
        self.tstrings: List[_TString] = []  # the t-strings being compiled, innermost last

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

    def level(self, loop: _Loop, stand: StandIn) -> int:
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
        if isinstance(value, StandIn):
            self.emitter(type(value))(value)
        elif isinstance(value, str) and _MARK in value:
            self.text_expr(self.session.split(value))  # a text formatted per call
        elif _holds_per_call(value):
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
        else:
            emit(OP_APPLY, self.op((APPLY_CONST, value, "")), 0)

    def emitter(self, kind: type) -> Any:
        """The method that emits a stand-in of class `kind`: emit_<its
        class>, or the nearest base class's (_Compare is emitted as _Binary,
        _Logic as _When). A new kind of stand-in is a class in stands.py
        and its emit_ method here."""
        for cls in kind.__mro__:
            method = getattr(self, "emit" + cls.__name__, None)
            if method is not None:
                return method
        raise AssertionError(kind)  # pragma: no cover - every kind has one

    # -- one emitter per kind of stand-in ---------------------------------

    def emit_Const(self, value: _Const) -> None:
        self.pb.emit(OP_APPLY, self.op((APPLY_CONST, value._m_value, "")), 0)

    def emit_Text(self, value: _Text) -> None:
        self.text_expr(self.session.split(value._m_text))

    def emit_Call(self, value: _Call) -> None:
        for arg in value._m_call_args:
            self.expr(arg)
        for arg in value._m_kwargs.values():
            self.expr(arg)
        n = len(value._m_call_args) + len(value._m_kwargs)
        payload = (value._m_func, tuple(value._m_kwargs))
        self.pb.emit(OP_APPLY, self.op((APPLY_CALL, payload, self.path(value))), n)

    def emit_Param(self, value: _Param) -> None:
        if value._m_session is not self.session:
            raise TypeError(
                f"@baked {self.session.func_name}(): the tree holds {value._m_describe()} "
                f"of {value._m_session.func_name}(), kept from another decoration; only "
                f"this function's own parameters can be used"
            )
        self.used[value._m_index] = True
        self.pb.emit(OP_PARAM, value._m_index, 0)

    def emit_Item(self, value: _Item) -> None:
        self.pb.emit(OP_ITEM, self.level(value._m_loop, value), 0)

    def emit_Field(self, value: _Field) -> None:
        self.expr(value._m_base)
        # Unpacking fails for the item as a whole (its count), not a name.
        shown = value._m_base if value._m_how == APPLY_UNPACK else value
        entry: Tuple[Any, ...] = (value._m_how, value._m_key, self.path(shown))
        if self.lenient and value._m_how != APPLY_UNPACK:
            entry += (MISSING,)
        self.pb.emit(OP_APPLY, self.op(entry), 1)

    def emit_Default(self, value: _Default) -> None:
        lenient, self.lenient = self.lenient, True
        try:
            self.expr(value._m_value)
        finally:
            self.lenient = lenient
        self.expr(value._m_fallback)
        pick = _default_false if value._m_boolean else _default_missing
        self.pb.emit(OP_APPLY, self.op((APPLY_CALL, (pick, ()), self.path(value))), 2)

    def emit_Compare(self, value: _Compare) -> None:
        self.expr(value._m_a)
        self.expr(value._m_b)
        entry = (APPLY_COMPARE, _COMPARE[value._m_op], self.path(value))
        self.pb.emit(OP_APPLY, self.op(entry), 2)

    def emit_Binary(self, value: _Binary) -> None:
        self.expr(value._m_a)
        self.expr(value._m_b)
        entry = (APPLY_BINARY, _BINARY[value._m_op], self.path(value))
        self.pb.emit(OP_APPLY, self.op(entry), 2)

    def emit_Contains(self, value: _Contains) -> None:
        self.expr(value._m_container)
        self.expr(value._m_item)
        entry = (APPLY_COMPARE, COMPARE_CONTAINS, self.path(value))
        self.pb.emit(OP_APPLY, self.op(entry), 2)

    def emit_LoopInfo(self, value: _LoopInfo) -> None:
        level = self.level(value._m_var._m_loop, value)
        self.pb.emit(OP_LOOP_INFO, level, _LOOP_INFO[value._m_what])

    def emit_Cycle(self, value: _Cycle) -> None:
        level = self.level(value._m_var._m_loop, value)
        for v in value._m_values:
            self.expr(v)
        self.pb.emit(OP_CYCLE, level, len(value._m_values))

    def emit_LoopVar(self, value: _LoopVar) -> None:
        value._refuse("is rendered itself", "render loop.index, loop.first ... instead")

    def emit_When(self, value: _When) -> None:
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
        self.pb.emit(OP_APPLY, self.op((APPLY_SELECT, None, self.path(value))), 3)

    # -- texts -------------------------------------------------------------

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
        if isinstance(value, _Slot):
            self.tstring_value(value._m_index, name, depth)
            return
        if isinstance(value, _TString) and name is None:
            self.tstring(value, depth)
            return
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

    # -- t-strings -----------------------------------------------------------

    def tstring(self, node: _TString, depth: int) -> None:
        """A t-string: the template's own text is the static HTML, as it is
        written. The writer walks a shell of its elements, and what it
        writes is dropped: it only follows where each value stands, which
        is what the value's slot is checked and written with."""
        pb = self.pb
        template = node._m_template
        pb.content()
        pb.verbatim(True)
        self.tstrings.append(node)
        try:
            marks = [_Slot(self.session, i) for i in range(len(node._m_values))]
            pb.render(template.shell(marks), depth)
        finally:
            self.tstrings.pop()
        pb.static(template.pieces[-1])
        pb.verbatim(False)

    def tstring_value(self, index: int, name: Optional[str], depth: int) -> None:
        """Value `index` of the innermost t-string, after the template's
        text before it. Values are written as markup writes them anywhere
        (verbatim off): a child, a whole attribute with its name, the
        attributes of a mapping; the values inside a longer attribute value
        are each escaped text in the template's own."""
        pb = self.pb
        node = self.tstrings[-1]
        template, values = node._m_template, node._m_values
        kind, aname, group = template.slots[index]
        pb.static(template.pieces[index])
        if kind == "parts":
            pb.attr_open(aname)  # checked; the text around the values is the template's
            for i in group:
                if i != index:
                    pb.static(template.pieces[i])
                value = values[i]
                if isinstance(value, StandIn) or (isinstance(value, str) and _MARK in value):
                    slot = pb.text_slot()
                    if isinstance(value, str):
                        self.text_expr(self.session.split(value))
                    else:
                        self.field_expr((value, "", ""), FORMAT_JOINED)
                    self.paths[pb.emit(OP_WRITE, slot, 0)] = self.path(value)
                else:
                    pb.static(str(_core.escape(format(value, ""))))
            return
        if kind == "child":
            pb.content()
        pb.verbatim(False)
        value = values[index]
        per_call = isinstance(value, StandIn) or (isinstance(value, str) and _MARK in value)
        if kind == "child":
            if per_call:
                self.on_stand_in(value, None, depth)
            elif isinstance(value, (list, tuple)):
                self.on_children(tuple(value), 0, depth)
            else:
                self.child(value, depth)
        elif kind == "attr":
            if per_call:
                self.on_stand_in(value, aname, 0)
            else:
                pb.render_attr(aname, template.attr_value(aname, value))
        else:  # a mapping spread among the attributes
            for key, item in template.spread(index, values).items():
                if isinstance(item, StandIn) or (isinstance(item, str) and _MARK in item):
                    self.on_stand_in(item, key, 0)
                else:
                    pb.render_attr(key, item)
        pb.verbatim(True)

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
                if isinstance(item, StandIn) or (isinstance(item, str) and _MARK in item):
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
    if isinstance(value, StandIn):
        return value._m_describe()
    return "a text formatted from a per-call value"


def _describe_mismatch(exc: Optional[_Mismatch]) -> str:
    if exc is None or len(exc.args) != 2:
        return ""
    a, b = exc.args
    if isinstance(a, (str, int, float)) and isinstance(b, (str, int, float)):
        return f" ({a!r} for the first item, {b!r} for the second)"
    return ""
