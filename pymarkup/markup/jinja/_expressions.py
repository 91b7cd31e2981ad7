"""Expressions: a Jinja2 expression node into instructions that leave its
value on the program's stack."""

import functools
from keyword import iskeyword
from typing import Any, Dict, List, Optional, Tuple

from jinja2 import nodes
from jinja2.runtime import markup_join, str_join
from jinja2.utils import _PassArg
from markupsafe import Markup

from .. import _core
from ._nodes import (
    Unsupported,
    _describe,
)
from ._runtime import (
    NATIVE_FILTERS,
    _call_awaited,
    _chained_compare,
    _slice,
    _spread_args,
    _star_items,
    _sync_iterable,
    _with_context,
    _with_locals,
)
from ._writer import (
    _BINARY,
    _COMPARE,
    _LOOP_CONSTANTS,
    _LOOP_FIELDS,
    _NEEDS_LOOKAHEAD,
    _UNARY,
    OP_CYCLE,
    OP_IF,
    OP_ITEM,
    OP_JUMP,
    OP_LOOP_INFO,
    OP_PARAM,
    ProgramWriter,
    _base_undefined,
    _inline_if_hint,
    _Loop,
)


class ExpressionCompiler(ProgramWriter):
    def condition(self, test: Any, false_jumps: List[int]) -> None:
        """Code that goes on when `test` is true and jumps (through the
        instructions it adds to false_jumps) when false, evaluating as
        Python's `and`, `or` and `not` do."""
        if isinstance(test, nodes.And):
            self.condition(test.left, false_jumps)
            self.condition(test.right, false_jumps)
        elif isinstance(test, nodes.Or):
            left_false: List[int] = []
            self.condition(test.left, left_false)
            to_body = self.emit(OP_JUMP)
            target = self.here()
            for at in left_false:
                self.patch(at, target)
            self.condition(test.right, false_jumps)
            self.patch(to_body, self.here())
        elif isinstance(test, nodes.Not):
            inner_false: List[int] = []
            self.condition(test.node, inner_false)
            false_jumps.append(self.emit(OP_JUMP))  # inner true: not false
            target = self.here()
            for at in inner_false:
                self.patch(at, target)
        else:
            self.expr(test)
            false_jumps.append(self.emit(OP_IF))

    def expr(self, node: Any) -> None:
        """Code that pushes the value of `node`."""
        self.line = getattr(node, "lineno", self.line)
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise Unsupported(_describe(node))
        method(node)

    def expr_Const(self, node: Any) -> None:
        self.apply("CONST", 0, node.value)

    def expr_Name(self, node: Any) -> None:
        name = node.name
        level = -1
        for loop in reversed(self.loops):
            level += loop.is_loop  # ITEM counts loops only
            if not loop.visible:
                continue
            if name in loop.aliases:
                raise Unsupported("the loop variable used other than as loop.<field>")
            if name in loop.locals:
                self.emit(OP_PARAM, loop.locals[name])
                return
            if name in loop.names:
                place = loop.names[name]
                if place:
                    self.emit(OP_PARAM, loop.tuple_at)
                    self.apply("UNPACK", 1, None, place[0], place[1])
                else:
                    self.emit(OP_ITEM, level)
                return
            if name == "loop":
                raise Unsupported("the loop variable used other than as loop.<field>")
        if name in ("self", "super", "caller", "varargs", "kwargs"):
            raise Unsupported(f"the name '{name}'")
        if name in self.macro_names or name in self.imported or name in self.modules:
            raise Unsupported(
                f"the macro '{name}' used other than as a whole {{{{ {name}(...) }}}}"
            )
        if self.module_scope:
            # a macro of an imported template: its module sees the globals
            self.apply("GLOBAL", 0, name)
            return
        if name not in self.names:
            self.names.append(name)
        self.emit(OP_PARAM, self.names.index(name))

    def expr_Getattr(self, node: Any) -> None:
        if self.loop_field(node):
            return
        self.expr(node.node)
        self.apply("GETATTR", 1, node.attr, dict_item=not hasattr(dict, node.attr))

    def innermost_loop(self) -> Optional[Tuple[_Loop, int]]:
        """The loop that `loop` means here, and how many loops out it is
        (a call block's body, compiled inside its macro's loops, skips them)."""
        level = 0
        for scope in reversed(self.loops):
            if scope.is_loop:
                if scope.visible:
                    return scope, level
                level += 1
        return None

    def loop_named(self, name: str) -> Optional[Tuple[_Loop, int]]:
        """The loop that `name` stands for here, `loop` or a name the body
        set to it ({% set outer = loop %}), and how many loops out it is."""
        if name == "loop":
            if any("loop" in scope.names or "loop" in scope.locals for scope in self.loops):
                return None  # a loop target named `loop`
            return self.innermost_loop()
        level = 0
        for scope in reversed(self.loops):
            if scope.visible:
                if name in scope.aliases:
                    return scope, level
                if name in scope.names or name in scope.locals:
                    return None
            level += scope.is_loop
        return None

    def loop_field(self, node: Any) -> bool:
        if not isinstance(node.node, nodes.Name):
            return False
        found = self.loop_named(node.node.name)
        if found is None:
            return False
        loop, level = found
        if loop.recursion is not None and node.attr in ("depth", "depth0"):
            self.emit(OP_PARAM, loop.recursion[node.attr == "depth0"])
            return True
        if node.attr in _LOOP_CONSTANTS:
            self.apply("CONST", 0, _LOOP_CONSTANTS[node.attr])
            return True
        if node.attr not in _LOOP_FIELDS:
            raise Unsupported(f"loop.{node.attr}")
        if node.attr in _NEEDS_LOOKAHEAD:
            loop.lookahead = True
        self.emit(OP_LOOP_INFO, level, _LOOP_FIELDS[node.attr])
        return True

    def expr_Getitem(self, node: Any) -> None:
        if isinstance(node.arg, nodes.Slice):
            # Jinja2 writes obj[start:stop:step], Python's own subscript
            self.expr(node.node)
            for part in (node.arg.start, node.arg.stop, node.arg.step):
                if part is None:
                    self.apply("CONST", 0, None)
                else:
                    self.expr(part)
            self.apply("CALL", 4, _slice)
            return
        self.expr(node.node)
        if isinstance(node.arg, nodes.Const):
            self.apply("ITEM", 1, node.arg.value)
            return
        self.expr(node.arg)
        self.apply("GETITEM", 2)

    def binop(self, node: Any) -> None:
        self.expr(node.left)
        self.expr(node.right)
        self.apply("BINARY", 2, None, _BINARY[type(node)])

    expr_Add = expr_Sub = expr_Mul = expr_Div = expr_FloorDiv = expr_Mod = expr_Pow = binop

    def unop(self, node: Any) -> None:
        self.expr(node.node)
        self.apply(_UNARY[type(node)], 1)

    expr_Not = expr_Neg = expr_Pos = unop

    def expr_Compare(self, node: Any) -> None:
        self.expr(node.expr)
        if len(node.ops) == 1:
            self.expr(node.ops[0].expr)
            self.apply("COMPARE", 2, None, _COMPARE[node.ops[0].op])
            return
        # a < b < c: Python stops at the first comparison that is false, so
        # what follows it is computed first only where that cannot differ
        if not all(isinstance(op.expr, (nodes.Const, nodes.Name)) for op in node.ops[1:]):
            raise Unsupported("a chained comparison of other than names and constants")
        for op in node.ops:
            self.expr(op.expr)
        self.apply("CALL", len(node.ops) + 1, _chained_compare(tuple(op.op for op in node.ops)))

    def expr_Concat(self, node: Any) -> None:
        for part in node.nodes:
            self.expr(part)
        self.apply("TUPLE", len(node.nodes))
        self.apply("CALL", 1, markup_join if self.eval_ctx.autoescape else str_join)

    def expr_Tuple(self, node: Any) -> None:
        for item in node.items:
            self.expr(item)
        self.apply("TUPLE", len(node.items))

    def expr_List(self, node: Any) -> None:
        for item in node.items:
            self.expr(item)
        self.apply("LIST", len(node.items))

    def expr_Dict(self, node: Any) -> None:
        for pair in node.items:
            self.expr(pair.key)
            self.expr(pair.value)
        self.apply("DICT", 2 * len(node.items))

    def expr_Filter(self, node: Any) -> None:
        self.filter_or_test(node, self.env.filters, "filter")

    def expr_Test(self, node: Any) -> None:
        self.filter_or_test(node, self.env.tests, "test")

    def filter_or_test(
        self, node: Any, table: Dict[str, Any], what: str, pushed: bool = False
    ) -> None:
        """A filter or test of node.node, or (`pushed`, a filter block's)
        of the value just pushed."""
        if pushed and node.node is not None:  # {% filter a|b %}: a first
            self.filter_or_test(node.node, table, what, pushed=True)
        elif (node.node is None) != pushed:
            raise Unsupported(f"a {what} block")
        func = table.get(node.name)
        if func is None:
            raise Unsupported(f"the unknown {what} '{node.name}'")
        if what == "filter":  # a built-in whose scanning runs in C
            func = NATIVE_FILTERS.get(func, func)
        pass_arg = _PassArg.from_obj(func)
        if pass_arg is _PassArg.context:
            self.same_autoescape(f"a {what} that takes the context")
            # Jinja2 hands such a filter the render's context, without the
            # loop's variables
            self.calls = True
            func = _with_context(func)
        elif pass_arg is _PassArg.eval_context:
            func = functools.partial(func, self.eval_ctx)
        elif pass_arg is _PassArg.environment:
            func = functools.partial(func, self.env)
        if not pushed:
            self.expr(node.node)
        self.call_args(
            func, node, 1, self.visible_locals() if pass_arg is _PassArg.context else None
        )

    def call_args(
        self, func: Any, node: Any, before: int, local_vars: Optional[Dict[str, int]] = None
    ) -> None:
        """The arguments of a call of `func`, whose first `before` values
        are pushed; `local_vars` (names set around, for a callable that
        takes the context) go as the keyword _markup_locals."""
        # in Python's order: the positional ones, *args, the keywords, **kwargs
        for arg in node.args:
            self.expr(arg)
        if node.dyn_args is not None:
            self.expr(node.dyn_args)
            self.apply("CALL", 1, _star_items)  # read before the keywords are
        for kw in node.kwargs:
            self.expr(kw.value)
        names = [kw.key for kw in node.kwargs]
        if local_vars:
            for place in local_vars.values():
                self.emit(OP_PARAM, place)
            self.apply("TUPLE", len(local_vars))
            names.append("_markup_locals")
            func = functools.partial(_with_locals, func, tuple(local_vars))
        count = before + len(node.args) + len(names)
        if self.env.is_async:  # Jinja2 awaits what a call or filter gives
            func = functools.partial(_call_awaited, func)
        if node.dyn_args is not None or node.dyn_kwargs is not None:
            if node.dyn_kwargs is not None:
                self.expr(node.dyn_kwargs)
            func = functools.partial(
                _spread_args,
                func,
                before + len(node.args),
                node.dyn_args is not None,
                tuple(names),
                node.dyn_kwargs is not None,
                # Jinja2 passes keywords named like Python's as
                # **dict({...}, **kwargs): kwargs' values win there
                any(iskeyword(kw.key) for kw in node.kwargs),
            )
            count += (node.dyn_args is not None) + (node.dyn_kwargs is not None)
            self.apply("CALL", count, func)
            return
        self.apply("CALL", count, func, kwnames=tuple(names) or None)

    def expr_Call(self, node: Any) -> None:
        callee = node.node
        named = (
            self.loop_named(callee.node.name)
            if isinstance(callee, nodes.Getattr) and isinstance(callee.node, nodes.Name)
            else None
        )
        if named is not None and callee.attr == "cycle":
            if node.kwargs or not node.args:
                raise Unsupported("loop.cycle() without arguments or with keywords")
            for arg in node.args:
                self.expr(arg)
            self.emit(OP_CYCLE, named[1], len(node.args))
            return
        if (
            isinstance(callee, nodes.Name)
            and callee.name == "loop"
            and not self.shadowed("loop")
            and self.innermost_loop() is not None
            and self.innermost_loop()[0].recursion is not None  # type: ignore[index]
        ):
            self.recurse(node)
            return
        if named is not None and callee.attr == "changed":
            found = named
            if node.kwargs:
                raise Unsupported("loop.changed() here")
            # On the record this run of the loop keeps, as @baked's loops do.
            self.emit(OP_LOOP_INFO, found[1], _core.LOOP_CHANGES)
            for arg in node.args:
                self.expr(arg)
            self.apply("CALL", 1 + len(node.args), _core._loop_changed)
            return
        self.expr(callee)
        self.calls = True
        self.call_args(self.call, node, 1, self.visible_locals())

    def recurse(self, node: Any) -> None:
        """loop(items) in a recursive loop's body: its program run for the
        items one level deeper, with the names it read handed down."""
        if node.kwargs or len(node.args) != 1:
            raise Unsupported("loop(...) with other than one argument")
        loop = self.innermost_loop()[0]  # type: ignore[index]
        assert loop.recursion is not None  # (expr_Call calls this only then)
        depth, _, (recurse, captured) = loop.recursion
        for place in captured:
            self.emit(OP_PARAM, place)
        self.expr(node.args[0])
        if self.env.is_async:
            self.apply("CALL", 1, _sync_iterable)
        self.emit(OP_PARAM, depth)  # this level's depth: the next one's depth0
        self.apply("CALL", len(captured) + 2, recurse)

    # Values chosen by a test (`a if c else b`, `a or b`, `a and b`) are
    # computed by branches into a place of the program's own, which only a
    # statement can do: where the value is the first one its statement
    # computes (nothing on the stack yet), as in `{{ a or b }}`,
    # `{% set x = a if c else b %}`, `{% if a or b %}` or `(a or b)|upper`.

    def chosen(self, node: Any, what: str) -> int:
        if self.depth:
            raise Unsupported(f"{what} inside an expression, after another value")
        return self.place()

    def place(self) -> int:
        """A place of the program's own (a parameter that is no variable)."""
        self.names.append(None)  # type: ignore[arg-type]
        return len(self.names) - 1

    def keep(self, place: int) -> None:
        self.apply("STORE", 1, None, place)
        self.patch(self.emit(OP_IF), self.here())  # pops what STORE left

    def expr_MarkSafe(self, node: Any) -> None:
        self.expr(node.expr)
        self.apply("CALL", 1, Markup)

    def expr_MarkSafeIfAutoescape(self, node: Any) -> None:
        self.expr(node.expr)
        if self.eval_ctx.autoescape:
            self.apply("CALL", 1, Markup)

    def expr_CondExpr(self, node: Any) -> None:
        place = self.chosen(node, "an inline if")
        false_jumps: List[int] = []
        self.condition(node.test, false_jumps)
        self.expr(node.expr1)
        self.keep(place)
        end = self.emit(OP_JUMP)
        target = self.here()
        for at in false_jumps:
            self.patch(at, target)
        if node.expr2 is not None:
            self.expr(node.expr2)
        else:
            self.apply("CONST", 0, _inline_if_hint(node.lineno, self.name))
            self.apply("CALL", 1, _base_undefined())
        self.keep(place)
        self.patch(end, self.here())
        self.emit(OP_PARAM, place)

    def expr_And(self, node: Any) -> None:
        place = self.chosen(node, f"'{node.operator}' as a value")
        self.expr(node.left)
        self.keep(place)
        self.emit(OP_PARAM, place)
        test = self.emit(OP_IF)  # false: the left operand is the value
        if isinstance(node, nodes.Or):  # true: the left operand is the value
            done = self.emit(OP_JUMP)
            self.patch(test, self.here())
            self.expr(node.right)
            self.keep(place)
            self.patch(done, self.here())
        else:
            self.expr(node.right)
            self.keep(place)
            self.patch(test, self.here())
        self.emit(OP_PARAM, place)

    expr_Or = expr_And
