"""Statements: output, if, for, and the scopes loops open."""

import collections
import functools
import operator
from typing import Any, Callable, Dict, List, Optional, Tuple

from jinja2 import nodes
from jinja2.utils import _PassArg
from markupsafe import escape

from .. import _core
from ._expressions import ExpressionCompiler
from ._nodes import (
    Unsupported,
    _assigned_in,
    _describe,
    _targets,
    _walk_all,
)
from ._runtime import (
    _RECURSION_DEPTH,
    _RECURSION_ITEMS,
    _await_now,
    _Filter,
    _Recursion,
    _sync_iterable,
    _text_markup,
    _unpacker,
    _verbatim,
    _with_context,
)
from ._writer import (
    _J,
    OP_BREAK,
    OP_END_LOOP,
    OP_IF,
    OP_ITEM,
    OP_JUMP,
    OP_LOOP,
    OP_PARAM,
    OP_WRITE,
    _base_undefined,
    _inline_if_hint,
    _Loop,
)

# What a recursive loop's body may not hold: its program is compiled alone,
# without the template's blocks, macros and imports.
_NOT_IN_RECURSION = (
    nodes.Macro,
    nodes.CallBlock,
    nodes.Block,
    nodes.Include,
    nodes.Import,
    nodes.FromImport,
    nodes.Extends,
    nodes.ScopedEvalContextModifier,
)


class _Deferred:
    def __init__(self, run: Callable[[], None]) -> None:
        self.run = run


def _escape(value: Any) -> Any:
    from markupsafe import escape

    return escape(value)


class StatementCompiler(ExpressionCompiler):
    def body(self, statements: List[Any]) -> None:
        for node in statements:
            self.line = getattr(node, "lineno", self.line)
            method = getattr(self, "stmt_" + type(node).__name__, None)
            if method is None:
                raise Unsupported(_describe(node))
            method(node)

    def stmt_Output(self, node: Any) -> None:
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                self.static(child.data)  # written as Jinja2 writes it: as is
                continue
            if isinstance(child, nodes.Const) and self.const_output(child.value):
                continue
            if self.output_call(child):
                continue
            if isinstance(child, nodes.CondExpr):
                self.branch(
                    child.test,
                    [child.expr1],
                    [child.expr2] if child.expr2 else None,
                    output=True,
                    line=child.lineno,
                )
                continue
            self.expr(child)
            self.write()

    def const_output(self, value: Any) -> bool:
        """A constant {{ }} (as folded) written as static text, as Jinja2
        folds it: escaped, then through finalize. False where Jinja2 leaves
        it to run time (a finalize that takes the context)."""
        finalize = self.env.finalize
        pass_arg = None if finalize is None else _PassArg.from_obj(finalize)
        if pass_arg in (_PassArg.context, _PassArg.eval_context):
            # Jinja2 writes it at run time: finalize, then escaped once
            self.apply("CONST", 0, value)
            self.write()
            return True
        try:
            if self.eval_ctx.autoescape:
                value = _escape(value)
            if pass_arg is _PassArg.environment:
                value = finalize(self.env, value)
            elif finalize is not None:
                value = finalize(value)
            text = str(value)
        except Exception:  # as Jinja2 does, left to run time, where it raises
            return False
        self.static(text)
        return True

    def write(self) -> None:
        """WRITE of the value computed: through the environment's finalize,
        then, in an async environment, awaited when it is awaitable, as
        Jinja2 writes every output."""
        finalize = self.env.finalize
        if finalize is not None:
            pass_arg = _PassArg.from_obj(finalize)
            if pass_arg is _PassArg.context:
                self.same_autoescape("a finalize that takes the context")
                self.calls = True
                finalize = _with_context(finalize)
            elif pass_arg is _PassArg.eval_context:
                finalize = functools.partial(finalize, self.eval_ctx)
            elif pass_arg is _PassArg.environment:
                finalize = functools.partial(finalize, self.env)
            self.apply("CALL", 1, finalize)
        if self.env.is_async:
            self.apply("CALL", 1, _await_now)
        if self.autoescape_changed:  # the block's escaping, not the program's
            self.apply("CALL", 1, escape if self.eval_ctx.autoescape else _text_markup)
        self.emit(OP_WRITE, 0)

    def stmt_If(self, node: Any) -> None:
        self.if_chain(node.test, node.body, node.elif_, node.else_)

    def if_chain(
        self,
        test: Any,
        body: List[Any],
        elifs: List[Any],
        else_: List[Any],
    ) -> None:
        if elifs:
            first, rest = elifs[0], elifs[1:]
            self.branch(
                test, body, [_Deferred(lambda: self.if_chain(first.test, first.body, rest, else_))]
            )
        else:
            self.branch(test, body, else_ or None)

    def branch(
        self,
        test: Any,
        then: List[Any],
        otherwise: Optional[List[Any]],
        output: bool = False,
        line: int = 0,
    ) -> None:
        false_jumps: List[int] = []
        self.condition(test, false_jumps)
        self.run(then, output)
        if otherwise is not None:
            end = self.emit(OP_JUMP)
            target = self.here()
            for at in false_jumps:
                self.patch(at, target)
            self.run(otherwise, output)
            self.patch(end, self.here())
        elif output:
            end = self.emit(OP_JUMP)
            target = self.here()
            for at in false_jumps:
                self.patch(at, target)
            # Jinja2's value for an inline if without else
            self.apply("CONST", 0, _inline_if_hint(line, self.name))
            self.apply("CALL", 1, _base_undefined())
            self.write()
            self.patch(end, self.here())
        else:
            target = self.here()
            for at in false_jumps:
                self.patch(at, target)

    def run(self, items: List[Any], output: bool) -> None:
        for item in items:
            if isinstance(item, _Deferred):
                item.run()
            elif output:
                self.expr(item)
                self.write()
            else:
                self.body([item])

    def stmt_For(self, node: Any) -> None:
        if node.recursive:
            self.recursive_for(node)
            return
        names = _targets(node.target)
        # loop.* counts, and else asks about, only the items the test lets
        # through: the loop runs over a generator of those, as Jinja2's does
        filtered = node.test is not None and (
            bool(node.else_)
            or any(
                isinstance(n, nodes.Name) and n.name == "loop"
                for n in _walk_all(node.body + [node.test])
            )
        )
        loop = _Loop(names)
        loop.recursion = getattr(node, "markup_recursion", None)
        # {% set outer = loop %} at the top of the body, the name set
        # nowhere else: uses of outer.<field> are fields of this loop
        stores = collections.Counter(
            n.name for n in _walk_all(node.body) if isinstance(n, nodes.Name) and n.ctx == "store"
        )
        for stmt in node.body:
            if (
                isinstance(stmt, nodes.Assign)
                and isinstance(stmt.target, nodes.Name)
                and isinstance(stmt.node, nodes.Name)
                and stmt.node.name == "loop"
                and stores[stmt.target.name] == 1
                and stmt.target.name not in names
            ):
                loop.alias_sets.add(id(stmt))
        # Jinja2 runs the else unless an item reached the body's end: with a
        # break or continue in the body, a flag says so (no longer "no item")
        completed = None
        if node.else_ and any(
            isinstance(n, (nodes.Break, nodes.Continue)) for n in _walk_all(node.body)
        ):
            self.apply("CONST", 0, False)
            self.names.append(None)  # type: ignore[arg-type]
            completed = len(self.names) - 1
            self.keep(completed)
        if filtered:
            self.filtered_items(node, names)
        else:
            self.expr(node.iter)  # in the scope around the loop
            if self.env.is_async:  # Jinja2's auto_aiter: an async iterable's items
                self.apply("CALL", 1, _sync_iterable)
        flags = _J["LOOP_ELSE"] if node.else_ and completed is None else 0
        start = self.emit(OP_LOOP, 0, flags)
        self.loops.append(loop)
        try:
            self.scope_locals(loop, node.body, node.lineno)
            self.bind_targets(loop, names)
            skip: List[int] = []
            if node.test is not None and not filtered:
                # Items the test refuses are skipped: nothing counts them.
                self.condition(node.test, skip)
            self.body(node.body)
            if completed is not None:
                self.apply("CONST", 0, True)
                self.keep(completed)
            for at in skip:
                self.patch(at, self.here())  # on to END_LOOP: the next item
        finally:
            self.loops.pop()
            for name, hidden, was_macro in reversed(loop.macros_defined):
                # the body's own macros are gone after it
                self.macro_sites[name] = None
                if hidden is None:
                    self.macros.pop(name, None)
                else:
                    self.macros[name] = hidden
                if not was_macro:
                    self.macro_names.discard(name)
        if loop.lookahead:
            self.code[start] = (OP_LOOP, 0, flags | _J["LOOP_LOOKAHEAD"])
        end_loop = self.emit(OP_END_LOOP, start + 1)
        for at in loop.continues:
            self.patch(at, end_loop)
        self.patch(start, self.here())
        for at in loop.breaks:
            self.patch(at, self.here())
        if node.else_:
            if completed is not None:
                self.emit(OP_PARAM, completed)
                self.apply("CALL", 1, operator.not_)
                end = self.emit(OP_IF)
            else:
                end = self.emit(OP_JUMP)
            self.local_scope += 1  # what the else part sets stays in it
            try:
                self.body(node.else_)
            finally:
                self.local_scope -= 1
            self.patch(end, self.here())

    def recursive_for(self, node: Any) -> None:
        """{% for x in xs recursive %}: the loop, its test and its else are
        a program of their own, run for the loop's items and again for
        each loop(...) in its body, as Jinja2's loop function is. The names
        the body reads are taken where the loop stands and handed down, so
        every level sees the values the first one saw."""
        self.same_autoescape("a recursive loop")
        parts = node.body + node.else_ + ([node.test] if node.test is not None else [])
        for n in _walk_all(parts):
            if isinstance(n, _NOT_IN_RECURSION):
                raise Unsupported(f"a recursive loop holding {_describe(n)}")
            if isinstance(n, nodes.Name) and (
                n.name in self.macro_names or n.name in self.imported or n.name in self.modules
            ):
                raise Unsupported("a recursive loop that calls a macro")
        if any(isinstance(n, nodes.Name) and n.name == "loop" for n in _walk_all(node.else_)):
            raise Unsupported("a recursive loop's else reading loop")  # the enclosing one
        targets = _targets(node.target)
        # The else reads the targets' names where the loop stands (no item
        # was bound): those are handed down too.
        read = {
            n.name
            for n in _walk_all(parts)
            if isinstance(n, nodes.Name) and n.name not in targets and n.name != "loop"
        } | {
            n.name for n in _walk_all(node.else_) if isinstance(n, nodes.Name) and n.name in targets
        }
        captured = sorted(read | (set(_assigned_in(node.body)) - set(targets)))
        sub = type(self)(self.env, self.name)
        sub.eval_ctx = sub.template_eval_ctx = self.eval_ctx
        sub.call = self.call
        sub.local_scope = 1  # what it sets stays in it, as in any loop
        depth = _RECURSION_DEPTH
        inner = nodes.For(
            node.target,
            nodes.Name(_RECURSION_ITEMS, "load", lineno=node.lineno),
            node.body,
            node.else_,
            node.test,
            False,
            lineno=node.lineno,
        )
        recurse = _Recursion(self.eval_ctx.autoescape)
        for name in (*captured, _RECURSION_ITEMS, *depth):
            sub.names.append(name)
        inner.markup_recursion = (  # type: ignore[attr-defined]
            sub.names.index(depth[0]),
            sub.names.index(depth[1]),
            (recurse, [sub.names.index(name) for name in captured]),
        )
        sub.line = self.line
        sub.body([inner])
        self.calls = True  # the body may call what takes the render's context
        recurse.program = _core._JinjaProgram(
            sub.code,
            tuple(sub.ops),
            tuple(sub.names),
            self.env.undefined,
            bool(self.eval_ctx.autoescape),
        )
        recurse.names = (*captured, _RECURSION_ITEMS, depth[1])
        recurse.lines = tuple(sub.lines)
        # The first level: written as Jinja2 yields the loop's result, as it is.
        for name in captured:
            self.expr_Name(nodes.Name(name, "load", lineno=node.lineno))
        self.expr(node.iter)
        if self.env.is_async:
            self.apply("CALL", 1, _sync_iterable)
        self.apply("CONST", 0, 0)
        self.apply("CALL", len(captured) + 2, recurse)
        self.apply("CALL", 1, _verbatim)
        self.emit(OP_WRITE, 0)

    def loop_to_leave(self, what: str) -> _Loop:
        """The loop a {% break %} or {% continue %} (loopcontrols) ends or
        goes on with: the innermost, unless a block's output being captured
        or a macro compiled in place stands between."""
        for scope in reversed(self.loops):
            if scope.captures:
                raise Unsupported(f"a {what} inside a block set or a filter block")
            if scope.is_loop:
                if not scope.visible:
                    break
                return scope
        raise Unsupported(f"a {what} outside a loop of its own")

    def stmt_Break(self, node: Any) -> None:
        self.loop_to_leave("break").breaks.append(self.emit(OP_BREAK))

    def stmt_Continue(self, node: Any) -> None:
        self.loop_to_leave("continue").continues.append(self.emit(OP_JUMP))

    def bind_targets(self, loop: _Loop, names: Dict[str, Tuple[int, ...]]) -> None:
        if len(names) > 1 or any(names.values()):
            # Each item unpacked once, when its turn comes, as Python's
            # for does (an error there is an error even if no name is
            # used); the names read the tuple kept in a place of its own.
            count = len(names)
            self.emit(OP_ITEM, 0)
            self.apply("AS_TUPLE", 1, _unpacker(count), 0, count)
            self.names.append(None)  # type: ignore[arg-type]
            loop.tuple_at = len(self.names) - 1
            self.apply("STORE", 1, None, loop.tuple_at)
            self.patch(self.emit(OP_IF), self.here())

    def filtered_items(self, node: Any, names: Dict[str, Tuple[int, ...]]) -> None:
        """Pushes the items of `for ... in ... if test` that pass the test:
        a generator that tests each item when the loop asks for it, as
        Jinja2's does (so loop.length, loop.last and a break read as many
        items as there). The test is a program of its own, run with the
        names it reads taken where the loop stands, which is what Jinja2's
        filter sees: the body's sets are its own."""
        test_names = {n.name for n in _walk_all([node.test]) if isinstance(n, nodes.Name)}
        if "loop" in test_names:
            raise Unsupported("a filtered loop with loop.* or an else whose test reads loop")
        if test_names & (self.macro_names | set(self.imported) | set(self.modules)):
            raise Unsupported("a filtered loop with loop.* or an else whose test calls a macro")
        captured = sorted(test_names - set(names))
        sub = type(self)(self.env, self.name)
        sub.eval_ctx = sub.template_eval_ctx = self.eval_ctx
        sub.call = self.call
        sub.local_scope = 1
        for name in (*captured, _RECURSION_ITEMS):
            sub.names.append(name)
        # {% for <targets> in items %}{% if test %}1{% endif %}{% endfor %}
        passes = nodes.Output([nodes.TemplateData("1")], lineno=node.lineno)
        probe = nodes.For(
            node.target,
            nodes.Name(_RECURSION_ITEMS, "load", lineno=node.lineno),
            [nodes.If(node.test, [passes], [], [], lineno=node.lineno)],
            [],
            None,
            False,
            lineno=node.lineno,
        )
        sub.line = self.line
        sub.body([probe])
        test = _Filter(bool(self.eval_ctx.autoescape))
        test.program = _core._JinjaProgram(
            sub.code,
            tuple(sub.ops),
            tuple(sub.names),
            self.env.undefined,
            bool(self.eval_ctx.autoescape),
        )
        test.names = tuple(captured)
        test.lines = tuple(sub.lines)
        test.count = len(names) if any(names.values()) else 0
        self.calls = True  # the test may call what takes the render's context
        for name in captured:
            self.expr_Name(nodes.Name(name, "load", lineno=node.lineno))
        self.expr(node.iter)
        if self.env.is_async:
            self.apply("CALL", 1, _sync_iterable)
        self.apply("CALL", len(captured) + 1, test)

    def scope_locals(self, scope: _Loop, body: List[Any], line: int) -> None:
        """The names a loop's body (or a block's) sets: each iteration (or
        rendering) starts them with their value around it, and none is seen
        after it (Jinja2's scoping), so each gets a place of the body's own."""
        for name in _assigned_in(body):
            if name in scope.names:
                raise Unsupported("a set of a loop's own target")
            if name in scope.locals:
                continue  # already the body's own (a with's name)
            scope.visible = False  # the value around the body
            try:
                self.expr_Name(nodes.Name(name, "load", lineno=line))
            finally:
                scope.visible = True
            self.names.append(None)  # type: ignore[arg-type]
            scope.locals[name] = len(self.names) - 1
            self.keep(scope.locals[name])

    def output_call(self, child: Any) -> bool:
        """Compiles `child`, a value of an output, when it is a call that a
        later layer writes in place ({{ super() }}, {{ m(...) }}); False
        when it is none of those."""
        return False
