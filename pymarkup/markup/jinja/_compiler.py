"""Jinja2's parse of a template (its nodes) compiled to a libmarkup template
program (markup._core._JinjaProgram), which runs it with Jinja2's rules.

Only what this module compiles exactly as Jinja2's code generator does is
compiled; anything else raises Unsupported with the construct's name, and
the template is rendered by Jinja2's own code."""

import copy
import functools
import threading
from collections import ChainMap
from typing import AbstractSet, Any, Callable, Dict, List, Optional, Set, Tuple

from jinja2 import nodes
from jinja2.compiler import CodeGenerator, find_undeclared
from jinja2.nodes import EvalContext
from jinja2.optimizer import Optimizer
from jinja2.runtime import Context, markup_join, str_join
from markupsafe import Markup, escape
from jinja2.utils import _PassArg

from .. import _core
from ._nodes import (
    Unsupported,
    _assigned_in,
    _caller_outputs,
    _describe,
    _is_loop_changed,
    _targets,
    _walk_all,
    _walk_scope,
)
from ._runtime import (
    NATIVE_FILTERS,
    _await_now,
    _call_awaited,
    _calls_with_context,
    _check_namespace,
    _include,
    _namespace_set,
    _required_block,
    _slice,
    _sync_iterable,
    _text_markup,
    _unpacker,
    _verbatim,
    _with_context,
    _with_locals,
)

_J = _core._jinja_ops
# the instructions (markup_op in binding.h)
OP_WRITE, OP_IF, OP_JUMP, OP_LOOP, OP_END_LOOP = (
    _core.OP_WRITE,
    _core.OP_IF,
    _core.OP_JUMP,
    _core.OP_LOOP,
    _core.OP_END_LOOP,
)
OP_PARAM, OP_ITEM, OP_LOOP_INFO, OP_CYCLE, OP_APPLY = (
    _core.OP_PARAM,
    _core.OP_ITEM,
    _core.OP_LOOP_INFO,
    _core.OP_CYCLE,
    _core.OP_APPLY,
)
OP_CAPTURE, OP_END_CAPTURE = _core.OP_CAPTURE, _core.OP_END_CAPTURE

_BINARY = {
    nodes.Add: _J["ADD"],
    nodes.Sub: _J["SUB"],
    nodes.Mul: _J["MUL"],
    nodes.Div: _J["TRUEDIV"],
    nodes.FloorDiv: _J["FLOORDIV"],
    nodes.Mod: _J["MOD"],
    nodes.Pow: _J["POW"],
}
_UNARY = {nodes.Not: _J["NOT"], nodes.Neg: _J["NEG"], nodes.Pos: _J["POS"]}
# Py_LT ... Py_GE, then containment.
_COMPARE = {"lt": 0, "lteq": 1, "eq": 2, "ne": 3, "gt": 4, "gteq": 5}
_COMPARE.update({"in": _J["IN"], "notin": _J["NOT_IN"]})
_LOOP_FIELDS = {
    "index": _core.LOOP_INDEX,
    "index0": _core.LOOP_INDEX0,
    "first": _core.LOOP_FIRST,
    "last": _core.LOOP_LAST,
    "length": _core.LOOP_LENGTH,
    "revindex": _core.LOOP_REVINDEX,
    "revindex0": _core.LOOP_REVINDEX0,
    "previtem": _core.LOOP_PREVITEM,
    "nextitem": _core.LOOP_NEXTITEM,
}
# loop fields that are constants in a loop that is not recursive
_LOOP_CONSTANTS = {"depth": 1, "depth0": 0}
_NEEDS_LOOKAHEAD = {"last", "nextitem"}


class _Folding(Optimizer):
    """Jinja2's constant folding, but for template data: Jinja2's code
    generator writes that as it is (never through finalize), and must
    still find it as template data after this ran."""

    def visit_TemplateData(self, node: Any, *args: Any, **kwargs: Any) -> Any:
        return node

    def visit_ScopedEvalContextModifier(self, node: Any, *args: Any, **kwargs: Any) -> Any:
        # folded with the block's setting, as Jinja2's code generator folds
        # there; nothing when the setting is known only at run time
        inner = _modified_eval_ctx(args[0] if args else None, node)
        return node if inner is None else self.generic_visit(node, inner, **kwargs)


def _modified_eval_ctx(eval_ctx: Any, node: Any) -> Any:
    """A copy of `eval_ctx` with the options of an {% autoescape %} block,
    or None when one is known only at run time."""
    if eval_ctx is None:
        return None
    inner = copy.copy(eval_ctx)
    for keyword in node.options:
        try:
            setattr(inner, keyword.key, keyword.value.as_const(inner))
        except nodes.Impossible:
            return None
    return inner


class Compiled:
    """A template's program, the template line of each instruction, and
    whether it calls values (which then need the render's state)."""

    __slots__ = ("program", "lines", "calls", "ast", "autoescape", "deps", "is_async")

    def __init__(
        self,
        program: Any,
        lines: Tuple[int, ...],
        calls: bool,
        ast: Any,
        autoescape: bool,
        deps: Tuple[Tuple[str, Optional[str], Any], ...],
    ) -> None:
        self.program = program
        self.lines = lines
        self.calls = calls
        self.ast = ast  # as compiled (constants folded), for templates that extend or include it
        self.autoescape = autoescape
        # (name, parent, template): what env.get_template(name, parent) gave
        # when this was compiled; a render checks that it still does
        self.deps = deps
        self.is_async = False  # compiled for an async environment


class _Loading(threading.local):
    stack: List[str]

    def __init__(self) -> None:
        self.stack = []


_loading = _Loading()  # the templates this thread is compiling, by name


class _Loop:
    def __init__(self, names: Dict[str, Tuple[int, ...]]) -> None:
        self.names = names  # target name -> () for the item, (which, count) to unpack
        self.lookahead = False
        self.tuple_at = -1  # unpacking: the place of the item's tuple
        self.locals: Dict[str, int] = {}  # names the body sets -> their places
        self.visible = True
        self.is_loop = True  # False: a block's body, a scope without a loop
        self.is_block = False  # a block's body (where a macro may be defined)


class Compiler:
    def __init__(self, env: Any, name: Optional[str]) -> None:
        self.env = env
        self.name = name
        self.eval_ctx = EvalContext(env, name)
        self.template_eval_ctx = self.eval_ctx  # the template's, outside autoescape blocks
        self.code: List[Any] = []
        self.lines: List[int] = []  # per instruction: the template line it stands for
        self.line = 1
        self.joinable = False  # the next static text may join the last
        self.depth = 0  # values on the stack where the next instruction goes
        self.ops: List[Tuple[Any, ...]] = []
        self.op_index: Dict[Any, int] = {}
        self.names: List[str] = []
        self.loops: List[_Loop] = []
        self.call = _calls_with_context(env, self.eval_ctx)
        # inside an {% autoescape %} block whose setting is not the template's
        self.autoescape_changed = False
        self.calls = False  # the template calls a value (which may take the context)
        # block name -> its definitions, the most derived first (for super())
        self.blocks: Dict[str, List[Any]] = {}
        # block name -> the definition being compiled, and whether it sees the loops around
        self.super_level: Dict[str, Tuple[int, bool]] = {}
        self.deps: List[Tuple[str, Optional[str], Any]] = []
        self.macro_names: Set[str] = set()  # the macros the template defines at the top
        self.macros: Dict[str, Any] = {}  # those defined so far, by name
        self.expanding: List[str] = []  # the macros being compiled in place
        # per macro being compiled in place: the call block that called it
        # and the scope that block stands in, or None for a plain call
        self.callers: List[Optional[Tuple[Any, Tuple[Any, ...]]]] = []
        # imported templates' macros: the name imported as -> (macro, its module)
        self.imported: Dict[str, Tuple[Any, _Module]] = {}
        self.modules: Dict[str, _Module] = {}  # `import ... as name` -> module
        self.module_scope = False  # compiling a macro of an imported template
        self.top_sets = False  # the template sets variables at its top
        self.local_scope = 0  # > 0 inside a loop, a block or an included template

    # -- the program -------------------------------------------------------

    def static(self, text: str) -> None:
        if not text:
            return
        if self.joinable and self.code and isinstance(self.code[-1], str):
            self.code[-1] += text
        else:
            self.code.append(text)
            self.lines.append(self.line)
        self.joinable = True

    def emit(self, op: int, a: int = 0, b: int = 0) -> int:
        if op in (OP_PARAM, OP_ITEM, OP_LOOP_INFO, OP_END_CAPTURE):
            self.depth += 1
        elif op in (OP_APPLY, OP_CYCLE):
            self.depth += 1 - b
        elif op in (OP_WRITE, OP_IF, OP_LOOP):
            self.depth -= 1
        self.code.append((op, a, b))
        self.lines.append(self.line)
        self.joinable = False
        return len(self.code) - 1

    def here(self) -> int:
        self.joinable = False
        return len(self.code)

    def patch(self, at: int, target: int) -> None:
        op, _, b = self.code[at]
        self.code[at] = (op, target, b)

    def apply(
        self,
        kind: str,
        nargs: int,
        payload: Any = None,
        which: int = 0,
        count: int = 0,
        kwnames: Optional[Tuple[str, ...]] = None,
        dict_item: bool = False,
    ) -> None:
        entry = (_J[kind], payload, which, count, kwnames, dict_item)
        # constants apart by identity: equal ones may print differently (1, 1.0, True)
        key: Any = (entry[0], id(payload)) if kind == "CONST" else entry
        try:
            index = self.op_index.get(key)
        except TypeError:  # an unhashable payload
            key, index = None, None
        if index is None:
            self.ops.append(entry)
            index = len(self.ops) - 1
            if key is not None:  # (a constant stays alive in self.ops, so its id is its own)
                self.op_index[key] = index
        self.emit(OP_APPLY, index, nargs)

    def program(self, template: Any) -> Any:
        if getattr(self.env, "sandboxed", False):
            raise Unsupported("a sandboxed environment")
        base = _base_environment()
        if type(self.env).getattr is not base.getattr or type(self.env).getitem is not base.getitem:
            raise Unsupported("an environment with its own getattr or getitem")
        if self.env.code_generator_class is not CodeGenerator:
            raise Unsupported("an environment with its own code_generator_class")
        if self.env.context_class is not Context:
            raise Unsupported("an environment with its own context_class")
        if any(type(n) is nodes.EvalContextModifier for n in template.find_all(nodes.Node)):
            raise Unsupported("an extension that changes the evaluation context")
        if self.env.optimized:
            # Jinja2's code generator folds constants expression by
            # expression; folded here first, it finds them folded.
            template = _Folding(self.env).visit(template, self.eval_ctx)
        body, self.blocks = self.inherit(template, self.name)
        self.top_sets = bool(_assigned_in(body)) or any(
            isinstance(n, nodes.Assign) for n in _walk_scope(body)
        )
        # Macros defined at the top: their calls are compiled in place.
        self.macro_names = {node.name for node in body if isinstance(node, nodes.Macro)}
        set_names = {
            n.name
            for assign in template.find_all((nodes.Assign, nodes.AssignBlock))
            for n in [assign.target, *assign.target.find_all(nodes.Name)]
            if isinstance(n, nodes.Name)
        }
        if self.macro_names & set_names:
            raise Unsupported("a macro whose name is also set")
        self.body(body)
        autoescape = bool(self.eval_ctx.autoescape)
        program = _core._JinjaProgram(
            self.code, tuple(self.ops), tuple(self.names), self.env.undefined, autoescape
        )
        compiled = Compiled(
            program, tuple(self.lines), self.calls, template, autoescape, tuple(self.deps)
        )
        compiled.is_async = bool(self.env.is_async)
        return compiled

    # -- other templates ---------------------------------------------------

    def load(self, node: Any, parent: Optional[str], what: str) -> "Compiled":
        """The compiled template a constant name in `node` names, loaded as
        Jinja2 loads it when rendering (env.get_template(name, parent))."""
        if not (isinstance(node, nodes.Const) and isinstance(node.value, str)):
            raise Unsupported(f"{what} of a template named at run time")
        name = node.value
        stack = _loading.stack
        if name in stack:
            raise Unsupported(f"{what} of '{name}', which is being compiled (a cycle)")
        stack.append(name)
        try:
            template = self.env.get_template(name, parent)
        except Exception as exc:
            raise Unsupported(f"{what} of '{name}', which could not be loaded: {exc}") from None
        finally:
            stack.pop()
        compiled = getattr(template, "_markup_program", None)
        if compiled is None:
            why = getattr(template, "markup_reason", None) or "not compiled by markup"
            raise Unsupported(f"{what} of '{name}', which is not native: {why}")
        if compiled.autoescape != bool(self.eval_ctx.autoescape):
            raise Unsupported(f"{what} of '{name}', which is autoescaped otherwise")
        self.deps.append((name, parent, template))
        self.deps.extend(compiled.deps)
        return compiled  # type: ignore[no-any-return]

    def can_load(self, name: str) -> bool:
        try:
            self.env.get_template(name, self.name)
        except Exception:
            return False
        return True

    def include_at_run_time(self, node: Any) -> None:
        """An include whose template is known only at run time (a name
        computed, 'ignore missing' of one that is missing now, or without
        context): Jinja2's code renders the included template, as Jinja2
        does, with the render's context and the names set around."""
        if any(scope.is_loop for scope in self.loops):
            raise Unsupported("an include named at run time inside a loop")
        template = node.template
        how = "get_or_select_template"
        if isinstance(template, nodes.Const):
            if isinstance(template.value, str):
                how = "get_template"
            elif isinstance(template.value, (tuple, list)):
                how = "select_template"
        elif isinstance(template, (nodes.Tuple, nodes.List)):
            how = "select_template"
        self.expr(template)
        local_vars = self.visible_locals() if node.with_context else {}
        for place in local_vars.values():
            self.emit(OP_PARAM, place)
        self.apply("TUPLE", len(local_vars))
        self.calls = True
        include = functools.partial(
            _include, self.name, how, node.ignore_missing, node.with_context, tuple(local_vars)
        )
        self.apply("CALL", 2, include)
        self.emit(OP_WRITE, 0)  # its text as Jinja2 yields it: no escape, no finalize

    def inherit(self, template: Any, name: Optional[str]) -> Tuple[List[Any], Dict[str, List[Any]]]:
        """What rendering `template` runs, and its blocks (each name's
        definitions, the most derived first), following {% extends %}."""
        own: Dict[str, List[Any]] = {}
        for block in template.find_all(nodes.Block):
            own.setdefault(block.name, [block])
        at = next((i for i, n in enumerate(template.body) if isinstance(n, nodes.Extends)), None)
        if at is None:
            if template.find(nodes.Extends) is not None:
                raise Unsupported("an extends that is not at the top level")
            return list(template.body), own
        before, extends, after = template.body[:at], template.body[at], template.body[at + 1 :]
        if any(isinstance(n, nodes.Extends) for n in after) or template.find(nodes.Extends) is None:
            raise Unsupported("more than one extends")
        for node in before:
            if not isinstance(node, nodes.Output):
                raise Unsupported(f"{_describe(node)} before an extends")
        # Jinja2 runs what a child defines and sets outside its blocks
        # before its parent renders (the parent and the blocks see it), and
        # drops what the child writes there.
        defines = (nodes.Macro, nodes.Assign, nodes.AssignBlock, nodes.Import, nodes.FromImport)
        runs = [node for node in after if isinstance(node, defines)]
        for node in after:
            if not isinstance(node, (nodes.Output, nodes.Block, *defines)):
                raise Unsupported(
                    f"{_describe(node)} outside the blocks of a template that extends another"
                )
        parent = self.load(extends.template, name, "an extends")
        parent_body, parent_blocks = self.inherit(parent.ast, extends.template.value)
        blocks = {n: own.get(n, []) + parent_blocks.get(n, []) for n in {**parent_blocks, **own}}
        return list(before) + runs + parent_body, blocks

    def stmt_Block(self, node: Any) -> None:
        self.same_autoescape("a block")
        if node.required and len(self.blocks[node.name]) <= 1:
            # no template below defines it: Jinja2 raises where it stands
            self.apply("CALL", 0, functools.partial(_required_block, node.name))
            self.emit(OP_WRITE, 0)
            return
        # The block statement where it is rendered says whether the
        # definition that renders (and its super()) sees the loops around.
        self.block_body(node.name, self.blocks[node.name], 0, node.scoped)

    def block_body(self, name: str, chain: List[Any], level: int, scoped: bool) -> None:
        block = chain[level]
        saved_loops, saved_level = self.loops, self.super_level.get(name)
        if not scoped:
            self.loops = []  # a block sees the context, not the loops around it
        self.super_level[name] = (level, scoped)
        self.local_scope += 1
        scope = _Loop({})
        scope.is_loop = False
        scope.is_block = True
        self.loops = self.loops + [scope]
        saved_macros = dict(self.macros), set(self.macro_names)
        try:
            self.scope_locals(scope, block.body, block.lineno)
            self.body(block.body)
        finally:
            self.local_scope -= 1
            self.loops = saved_loops
            self.macros, self.macro_names = saved_macros  # the block's own are gone
            if saved_level is None:
                del self.super_level[name]
            else:
                self.super_level[name] = saved_level

    def self_call(self, child: Any) -> bool:
        """{{ self.name() }}: the block, rendered with the template's context."""
        if not (
            isinstance(child, nodes.Call)
            and isinstance(child.node, nodes.Getattr)
            and isinstance(child.node.node, nodes.Name)
            and child.node.node.name == "self"
            and not self.shadowed("self")
            and not child.args
            and not child.kwargs
            and child.dyn_args is None
            and child.dyn_kwargs is None
        ):
            return False
        name = child.node.attr
        if name not in self.blocks:
            raise Unsupported(f"self.{name}(), a block the template does not have")
        self.written_in_place(f"self.{name}()")
        saved = self.super_level
        self.super_level = {}
        try:
            self.block_body(name, self.blocks[name], 0, False)
        finally:
            self.super_level = saved
        return True

    def super_call(self, child: Any) -> bool:
        """{{ super() }}: the next definition of the block, written there."""
        if not (
            isinstance(child, nodes.Call)
            and isinstance(child.node, nodes.Name)
            and child.node.name == "super"
            and not child.args
            and not child.kwargs
            and child.dyn_args is None
            and child.dyn_kwargs is None
        ):
            return False
        if not self.super_level:
            raise Unsupported("super() outside a block")
        self.written_in_place("super()")
        name = list(self.super_level)[-1]
        chain, (level, scoped) = self.blocks[name], self.super_level[name]
        if level + 1 >= len(chain):
            raise Unsupported("super() of a block that has no parent definition")
        self.block_body(name, chain, level + 1, scoped)
        return True

    def written_in_place(self, what: str) -> None:
        """A call whose output is compiled where the call stands: as Jinja2
        writes its string, unless finalize would see that string."""
        if self.env.finalize is not None:
            raise Unsupported(f"{what} in an environment with finalize")
        self.same_autoescape(what)

    def stmt_Include(self, node: Any) -> None:
        self.same_autoescape("an include")
        constant = isinstance(node.template, nodes.Const) and isinstance(node.template.value, str)
        if not (constant and node.with_context) or (
            node.ignore_missing and not self.can_load(node.template.value)
        ):
            self.include_at_run_time(node)
            return
        included = self.load(node.template, self.name, "an include")
        body, blocks = self.inherit(included.ast, node.template.value)
        saved = self.blocks, self.super_level
        self.blocks, self.super_level = blocks, {}
        self.local_scope += 1
        try:
            self.body(body)
        finally:
            self.local_scope -= 1
            self.blocks, self.super_level = saved

    # -- macros --------------------------------------------------------------
    # A macro defined at the top of the template is compiled where it is
    # called as a whole {{ m(...) }}: its output is what Jinja2's Macro
    # returns and writes (Markup with autoescape, else str), its arguments
    # are bound as Jinja2 binds them, and its body sees its parameters and
    # the template's variables, not the caller's loops.

    def stmt_ScopedEvalContextModifier(self, node: Any) -> None:
        """{% autoescape false %}...{% endautoescape %} (or true): the body
        with that setting; its outputs are converted to the program's
        (write), and what would carry the setting elsewhere (macros,
        blocks, includes, imports) falls back inside it."""
        inner = _modified_eval_ctx(self.eval_ctx, node)
        if inner is None:
            raise Unsupported("an autoescape block whose setting is known only at run time")
        saved = self.eval_ctx, self.call, self.autoescape_changed
        changed = bool(inner.autoescape) != bool(self.template_eval_ctx.autoescape)
        self.eval_ctx = inner
        self.call = _calls_with_context(self.env, inner, scoped=changed)
        self.autoescape_changed = changed
        try:
            self.body(node.body)
        finally:
            self.eval_ctx, self.call, self.autoescape_changed = saved

    def stmt_Scope(self, node: Any) -> None:
        """The body of an autoescape block: what it sets stays in it."""
        scope = _Loop({})
        scope.is_loop = False
        self.loops.append(scope)
        self.local_scope += 1
        try:
            self.scope_locals(scope, node.body, node.lineno)
            self.body(node.body)
        finally:
            self.local_scope -= 1
            self.loops.pop()

    def same_autoescape(self, what: str) -> None:
        if self.autoescape_changed:
            raise Unsupported(f"{what} inside an autoescape block that changes the setting")

    def stmt_Macro(self, node: Any) -> None:
        self.same_autoescape("a macro definition")
        if self.loops or self.local_scope:
            self.block_macro(node)
        self.check_macro(node)
        self.macros[node.name] = node

    def block_macro(self, node: Any) -> None:
        """A macro defined in a block's body: compiled in place as one at
        the top is, where what its body reads is the context's (not a name
        the block or the loops around it set) and its name is the block's
        to call only (block_body forgets it after)."""
        if not (self.loops and self.loops[-1].is_block and not self.module_scope):
            raise Unsupported("a macro defined inside a loop, a with, a macro or an include")
        params = {arg.name for arg in node.args} | set(_assigned_in(node.body))
        read = {
            n.name
            for n in _walk_all(node.body + node.defaults)
            if isinstance(n, nodes.Name) and n.ctx == "load"
        }
        around = {name for scope in self.loops for name in (*scope.names, *scope.locals)}
        if (read - params) & around or node.name in around:
            raise Unsupported("a macro in a block that reads or is a name the block sets")
        self.macro_names.add(node.name)

    def check_macro(self, node: Any) -> None:
        body_names = [n for n in _walk_all(node.body) if isinstance(n, nodes.Name)]
        specials = {"caller", "varargs", "kwargs"}
        if {arg.name for arg in node.args} & specials or set(_assigned_in(node.body)) & specials:
            raise Unsupported("a macro with a parameter or a set named caller, varargs or kwargs")
        if {n.name for d in node.defaults for n in _walk_all([d]) if isinstance(n, nodes.Name)} & {
            "varargs",
            "kwargs",
        }:
            raise Unsupported("a default of a macro that reads varargs or kwargs")
        callers = sum(n.name == "caller" for n in body_names)
        if callers and callers != len(_caller_outputs(node.body)):
            raise Unsupported("a macro that uses caller other than as {{ caller(...) }}")
        if {arg.name for arg in node.args} & set(_assigned_in(node.body)):
            # Jinja2 takes such a name for the body's own from its start
            raise Unsupported("a macro that sets one of its parameters")

    def stmt_CallBlock(self, node: Any) -> None:
        """{% call m(...) %}body{% endcall %}: the macro compiled in place,
        its {{ caller(...) }} the body, compiled there in the scope the
        call block stands in. Jinja2 writes the call's string as it is
        (no finalize), which is what writing it in place gives."""
        if any(
            isinstance(n, nodes.Name) and n.name in ("caller", "varargs", "kwargs")
            for n in _walk_all(node.body)
        ):
            raise Unsupported("a call block whose body uses caller, varargs or kwargs")
        self.same_autoescape("a call block")
        if not self.macro_call(node.call, caller=node):
            raise Unsupported("a call block of something other than a macro")

    def macro_call(self, child: Any, caller: Any = None) -> bool:
        """{{ m(...) }} (or a call block of m, `caller`): the macro's body
        compiled in place, in a scope of its own."""
        if not isinstance(child, nodes.Call):
            return False
        callee = child.node
        module: Optional[_Module] = None
        if isinstance(callee, nodes.Name) and not self.shadowed(callee.name):
            name = callee.name
            if name in self.macros:
                macro = self.macros[name]
            elif name in self.imported and not self.module_scope:
                macro, module = self.imported[name]
            else:
                return False
        elif (
            isinstance(callee, nodes.Getattr)
            and isinstance(callee.node, nodes.Name)
            and callee.node.name in self.modules
            and not self.module_scope
            and not self.shadowed(callee.node.name)
        ):
            module = self.modules[callee.node.name]
            name = callee.attr
            if name not in module.macros:
                raise Unsupported(
                    f"'{callee.node.name}.{name}', which its template does not define"
                )
            macro = module.macros[name]
        else:
            return False
        if child.dyn_args is not None or child.dyn_kwargs is not None:
            raise Unsupported("*args or **kwargs in a macro call")
        uses_caller = bool(_caller_outputs(macro.body))
        if caller is None:
            self.written_in_place(f"a call of the macro '{name}'")
            if uses_caller:
                raise Unsupported(
                    f"the macro '{name}', which uses caller, called without a call block"
                )
        elif not uses_caller:
            raise Unsupported(f"a call block of the macro '{name}', which does not use caller")
        if name in self.expanding:
            raise Unsupported(f"the macro '{name}', which calls itself")
        params = [arg.name for arg in macro.args]
        # Jinja2 gives a macro whose body reads them the arguments past its
        # parameters: varargs, a tuple, and kwargs, a dict.
        catches = find_undeclared(macro.body, ("varargs", "kwargs"))
        places = self.bind_given(params, child, f"the macro '{name}'", catches)
        defaults = dict(zip(params[len(params) - len(macro.defaults) :], macro.defaults))
        site = (self.loops, self.macros, self.macro_names, self.module_scope)
        scope = _Loop({})
        scope.is_loop = False
        self.loops = [scope]  # the macro's own: its parameters, what it sets
        self.expanding.append(name)
        self.callers.append((caller, site) if caller is not None else None)
        self.local_scope += 1
        if module is not None:  # the body sees its own template's macros, and
            # the globals (or, imported with context, the render's variables)
            self.macros, self.macro_names = module.macros, set(module.macros)
            self.module_scope = not module.with_context
        try:
            self.bind_missing(scope, params, defaults, places, f"the macro '{name}'")
            self.scope_locals(scope, macro.body, macro.lineno)
            self.body(macro.body)
        finally:
            self.local_scope -= 1
            self.callers.pop()
            self.expanding.pop()
            self.loops, self.macros, self.macro_names, self.module_scope = site
        return True

    def caller_call(self, child: Any) -> bool:
        """{{ caller(...) }} in a macro compiled for a call block: the
        block's body, in the scope the call block stands in (its loops
        counted past the macro's own), with the block's parameters."""
        if not (
            isinstance(child, nodes.Call)
            and isinstance(child.node, nodes.Name)
            and child.node.name == "caller"
            and not self.shadowed("caller")
        ):
            return False
        entry = self.callers[-1] if self.callers else None
        if entry is None:
            raise Unsupported("caller() outside a macro called by a call block")
        if child.dyn_args is not None or child.dyn_kwargs is not None:
            raise Unsupported("*args or **kwargs in a call of caller")
        self.written_in_place("caller()")
        block, site = entry
        params = [arg.name for arg in block.args]
        places = self.bind_given(params, child, "the call block")
        defaults = dict(zip(params[len(params) - len(block.defaults) :], block.defaults))
        saved = (self.loops, self.macros, self.macro_names, self.module_scope, self.callers)
        hidden = [_Loop({}) for scope in self.loops if scope.is_loop]
        for loop in hidden:  # the macro's loops: open, but not the block's to see
            loop.visible = False
        scope = _Loop({})
        scope.is_loop = False
        site_loops, self.macros, self.macro_names, self.module_scope = site
        self.loops = site_loops + hidden + [scope]
        self.callers = self.callers[:-1]
        self.local_scope += 1
        try:
            self.bind_missing(scope, params, defaults, places, "the call block")
            self.scope_locals(scope, block.body, block.lineno)
            self.body(block.body)
        finally:
            self.local_scope -= 1
            self.loops, self.macros, self.macro_names, self.module_scope, self.callers = saved
        return True

    def bind_given(
        self, params: List[str], call: Any, what: str, catches: AbstractSet[str] = frozenset()
    ) -> Dict[str, int]:
        """The arguments of a call of a macro (or caller), computed where
        the call stands in the order given (positional, then keywords),
        each kept in a place; with `catches`, those past the parameters
        too, as "varargs" (a tuple) and "kwargs" (a dict). A call Jinja2
        refuses (too many, unknown or repeated) is left to Jinja2."""
        extra = call.args[len(params) :]
        if extra and "varargs" not in catches:
            raise Unsupported(f"more arguments than {what} takes")
        given = set(params[: len(call.args)])
        extra_keys: List[str] = []
        for kw in call.kwargs:
            if kw.key in given or kw.key in extra_keys:
                raise Unsupported(f"a keyword {what} is given twice")
            if kw.key in params:
                given.add(kw.key)
            elif "kwargs" in catches:
                extra_keys.append(kw.key)
            else:
                raise Unsupported(f"a keyword {what} does not take")
        places: Dict[str, int] = {}
        for param, value in zip(params, call.args):
            self.expr(value)
            places[param] = self.place()
            self.keep(places[param])
        if "varargs" in catches:
            for value in extra:
                self.expr(value)
            self.apply("TUPLE", len(extra))
            places["varargs"] = self.place()
            self.keep(places["varargs"])
        extra_places = []
        for kw in call.kwargs:
            self.expr(kw.value)
            place = self.place()
            self.keep(place)
            if kw.key in params:
                places[kw.key] = place
            else:
                extra_places.append(place)
        if "kwargs" in catches:
            for key, place in zip(extra_keys, extra_places):
                self.apply("CONST", 0, key)
                self.emit(OP_PARAM, place)
            self.apply("DICT", 2 * len(extra_keys))
            places["kwargs"] = self.place()
            self.keep(places["kwargs"])
        return places

    def bind_missing(
        self,
        scope: _Loop,
        params: List[str],
        defaults: Dict[str, Any],
        places: Dict[str, int],
        what: str,
    ) -> None:
        """The parameters in `scope`: those given, then each one not given
        its default, computed with the parameters before it, else Jinja2's
        undefined for a missing argument."""
        missing = [p for p in params if p not in places]
        for param in missing:
            default = defaults.get(param)
            if default is None:
                continue
            read = {
                n.name
                for n in [default, *default.find_all(nodes.Name)]
                if isinstance(n, nodes.Name)
            }
            if read & set(missing):
                raise Unsupported(f"a default of {what} that reads a parameter not given")
        scope.locals.update(places)
        for param in missing:
            if param in defaults:
                self.expr(defaults[param])
            else:
                self.apply("CONST", 0, f"parameter {param!r} was not provided")
                self.apply("CONST", 0, param)
                self.apply("CALL", 2, self.env.undefined, kwnames=("name",))
            scope.locals[param] = self.place()
            self.keep(scope.locals[param])

    def stmt_FromImport(self, node: Any) -> None:
        self.same_autoescape("an import")
        module = self.module(node.template, node.with_context)
        for item in node.names:
            name, alias = item if isinstance(item, tuple) else (item, item)
            if name not in module.macros:
                raise Unsupported(f"an import of '{name}', which its template does not define")
            self.check_new_name(alias)
            self.imported[alias] = (module.macros[name], module)

    def stmt_Import(self, node: Any) -> None:
        self.same_autoescape("an import")
        self.check_new_name(node.target)
        self.modules[node.target] = self.module(node.template, node.with_context)

    def check_new_name(self, name: str) -> None:
        if (
            name in self.macro_names
            or name in self.imported
            or name in self.modules
            or (name in self.names)
        ):
            raise Unsupported(f"an import as '{name}', a name the template uses otherwise too")

    def module(self, template_name: Any, with_context: bool) -> "_Module":
        """The macros of an imported template: one that only defines
        macros and has no globals of its own, so that its module (made
        without the context) sees the globals the importing render sees,
        or (with context) the render's variables, which are the same when
        the import is made as when a macro is called while the importing
        template sets nothing at its top."""
        if self.loops or self.local_scope or self.module_scope:
            raise Unsupported("an import inside a loop, a block, an include or a macro")
        if with_context and self.top_sets:
            raise Unsupported("an import with context in a template that sets variables")
        before = len(self.deps)
        compiled = self.load(template_name, self.name, "an import")
        template = self.deps[before][2]
        own = (
            template.globals.maps[0] if isinstance(template.globals, ChainMap) else template.globals
        )
        if own:
            raise Unsupported("an import of a template with globals of its own")
        macros: Dict[str, Any] = {}
        for node in compiled.ast.body:
            if isinstance(node, nodes.Macro):
                macros[node.name] = node
            elif not (
                isinstance(node, nodes.Output)
                and all(isinstance(c, (nodes.TemplateData, nodes.Const)) for c in node.nodes)
            ):  # text between the macros (folded to constants), which the module drops
                raise Unsupported(f"an import of a template that runs {_describe(node)}")
        for macro in macros.values():
            self.check_macro(macro)
        return _Module(macros, with_context)

    def shadowed(self, name: str) -> bool:
        return any(name in scope.names or name in scope.locals for scope in self.loops)

    def stmt_With(self, node: Any) -> None:
        """{% with a = x, b = y %}: the values computed around it, then
        the body in a scope of its own."""
        scope = _Loop({})
        scope.is_loop = False
        for target, value in zip(node.targets, node.values):
            names = _targets(target, "a with")
            if len(names) != 1:
                raise Unsupported("a with of several names at once")
            self.expr(value)
            place = self.place()
            self.keep(place)
            (name,) = names
            scope.locals[name] = place
        saved_loops = self.loops
        self.loops = self.loops + [scope]
        self.local_scope += 1
        try:
            self.scope_locals(scope, node.body, node.lineno)  # a set of a with's name reassigns it
            self.body(node.body)
        finally:
            self.local_scope -= 1
            self.loops = saved_loops

    def stmt_AssignBlock(self, node: Any) -> None:
        """{% set x %}body{% endset %}: what the body writes, as a value."""
        if isinstance(node.target, nodes.NSRef):
            raise Unsupported("a block set of a namespace attribute")
        targets = {n.name for n in [node.target, *node.target.find_all(nodes.Name)]}
        if any(isinstance(n, nodes.Name) and n.name in targets for n in _walk_all(node.body)):
            # Jinja2 takes the name for the block's own there, not yet set
            raise Unsupported("a block set whose body reads the name it sets")
        self.stmt_Assign(nodes.Assign(node.target, _Captured(node), lineno=node.lineno))

    def stmt_FilterBlock(self, node: Any) -> None:
        """{% filter f %}body{% endfilter %}: what the body writes, through
        the filter, written as the filter returns it (Jinja2 joins it as
        it is, with no escaping and no finalize)."""
        self.expr__Captured(node)
        self.apply("CALL", 1, _verbatim)
        self.emit(OP_WRITE, 0)

    def expr__Captured(self, node: Any) -> None:
        """The output of a block set's or a filter block's body, in a scope
        of its own: a str, Markup with autoescape, then through the filter."""
        if self.depth:
            raise Unsupported("a block's output used inside an expression")
        scope = _Loop({})
        scope.is_loop = False
        self.emit(OP_CAPTURE)
        self.loops.append(scope)
        self.local_scope += 1
        try:
            self.scope_locals(scope, node.body, node.lineno)
            self.body(node.body)
        finally:
            self.local_scope -= 1
            self.loops.pop()
        self.emit(OP_END_CAPTURE)
        if self.eval_ctx.autoescape:
            self.apply("CALL", 1, Markup)
        if node.filter is not None:
            self.filter_or_test(node.filter, self.env.filters, "filter", pushed=True)

    def stmt_Assign(self, node: Any) -> None:
        if isinstance(node.target, nodes.NSRef):
            self.namespace_set(node.target, node.node)
            return
        if not self.loops and self.local_scope:
            raise Unsupported("a set inside a block, a for's else or an included template")
        targets = _targets(node.target, "a set")
        self.expr(node.node)
        if len(targets) == 1:
            (name,) = targets
            self.store(name)
            return
        # a, b = value: unpacked once, as Python does, then each name its part
        count = len(targets)
        self.apply("AS_TUPLE", 1, _unpacker(count), 0, count)
        place = self.chosen(node, "a set")
        self.keep(place)
        for name, (which, _) in targets.items():
            self.emit(OP_PARAM, place)
            self.apply("UNPACK", 1, None, which, count)
            self.store(name)

    def store(self, name: str) -> None:
        if name in ("self", "super", "caller", "varargs", "kwargs", "loop"):
            raise Unsupported(f"a set of '{name}'")
        if self.loops:
            found = self.loops[-1].locals.get(name)  # the body's own (scope_locals)
            if found is None:  # in the else part of a loop inside it
                raise Unsupported("a set inside a for's else")
            place = found
        else:
            if name not in self.names:
                self.names.append(name)
            place = self.names.index(name)
        self.keep(place)

    def namespace_set(self, target: Any, value: Any) -> None:
        """{% set ns.attr = value %}: Jinja2 checks ns, then computes the value."""
        self.expr_Name(nodes.Name(target.name, "load", lineno=target.lineno))
        self.apply("CALL", 1, _check_namespace)
        self.expr(value)
        self.apply("CALL", 2, functools.partial(_namespace_set, target.attr))
        self.patch(self.emit(OP_IF), self.here())  # pops the None it gave

    # -- statements --------------------------------------------------------

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
            if (
                self.super_call(child)
                or self.self_call(child)
                or self.macro_call(child)
                or self.caller_call(child)
            ):
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
        if self.eval_ctx.autoescape:
            value = _escape(value)
        finalize = self.env.finalize
        if finalize is not None:
            pass_arg = _PassArg.from_obj(finalize)
            if pass_arg is _PassArg.environment:
                value = finalize(self.env, value)
            elif pass_arg is None:
                value = finalize(value)
            else:
                self.apply("CONST", 0, value)
                self.write()
                return True
        self.static(str(value))
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

    def stmt_For(self, node: Any) -> None:
        if node.recursive:
            raise Unsupported("a recursive for loop")
        names = _targets(node.target)
        if node.test is not None:
            # Items the test refuses are skipped, which is Jinja2's filtered
            # loop where nothing counts the items (loop.*) or asks whether
            # any was left (else).
            if node.else_ or any(
                isinstance(n, nodes.Name) and n.name == "loop"
                for n in _walk_all(node.body + [node.test])
            ):
                raise Unsupported("a filtered loop (for ... if ...) with loop.* or an else")
        loop = _Loop(names)
        self.expr(node.iter)  # in the scope around the loop
        if self.env.is_async:  # Jinja2's auto_aiter: an async iterable's items
            self.apply("CALL", 1, _sync_iterable)
        flags = _J["LOOP_ELSE"] if node.else_ else 0
        start = self.emit(OP_LOOP, 0, flags)
        self.loops.append(loop)
        try:
            self.scope_locals(loop, node.body, node.lineno)
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
            skip: List[int] = []
            if node.test is not None:
                self.condition(node.test, skip)
            self.body(node.body)
            for at in skip:
                self.patch(at, self.here())  # on to END_LOOP: the next item
        finally:
            self.loops.pop()
        if loop.lookahead:
            self.code[start] = (OP_LOOP, 0, flags | _J["LOOP_LOOKAHEAD"])
        self.emit(OP_END_LOOP, start + 1)
        self.patch(start, self.here())
        if node.else_:
            end = self.emit(OP_JUMP)
            self.local_scope += 1  # what the else part sets stays in it
            try:
                self.body(node.else_)
            finally:
                self.local_scope -= 1
            self.patch(end, self.here())

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

    def visible_locals(self) -> Dict[str, int]:
        """The names set in the loops and blocks around, innermost first
        kept, with their places: what Jinja2 hands a callable that takes
        the context (its _loop_vars and _block_vars)."""
        found: Dict[str, int] = {}
        for scope in reversed(self.loops):
            for name, place in scope.locals.items():
                found.setdefault(name, place)
        return found

    # -- expressions -------------------------------------------------------

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

    def loop_field(self, node: Any) -> bool:
        found = self.innermost_loop()
        if not (isinstance(node.node, nodes.Name) and node.node.name == "loop" and found):
            return False
        if any("loop" in scope.names or "loop" in scope.locals for scope in self.loops):
            return False  # a loop target named `loop`
        loop, level = found
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
        self.apply(("NOT", "NEG", "POS")[[nodes.Not, nodes.Neg, nodes.Pos].index(type(node))], 1)

    expr_Not = expr_Neg = expr_Pos = unop

    def expr_Compare(self, node: Any) -> None:
        if len(node.ops) != 1:
            raise Unsupported("a chained comparison")
        self.expr(node.expr)
        self.expr(node.ops[0].expr)
        self.apply("COMPARE", 2, None, _COMPARE[node.ops[0].op])

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
        if node.dyn_args is not None or node.dyn_kwargs is not None:
            raise Unsupported(f"*args or **kwargs in a {what}")
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
        for arg in node.args:
            self.expr(arg)
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
        self.apply("CALL", count, func, kwnames=tuple(names) or None)

    def expr_Call(self, node: Any) -> None:
        if node.dyn_args is not None or node.dyn_kwargs is not None:
            raise Unsupported("*args or **kwargs in a call")
        callee = node.node
        if (
            isinstance(callee, nodes.Getattr)
            and callee.attr == "cycle"
            and isinstance(callee.node, nodes.Name)
            and callee.node.name == "loop"
            and self.innermost_loop() is not None
            and not any("loop" in loop.names for loop in self.loops)
        ):
            if node.kwargs or not node.args:
                raise Unsupported("loop.cycle() without arguments or with keywords")
            for arg in node.args:
                self.expr(arg)
            self.emit(OP_CYCLE, self.innermost_loop()[1], len(node.args))  # type: ignore[index]
            return
        if _is_loop_changed(node) and not any("loop" in loop.names for loop in self.loops):
            found = self.innermost_loop()
            if found is None or node.kwargs:
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


class _Module:
    """An imported template, as far as its macros go."""

    def __init__(self, macros: Dict[str, Any], with_context: bool) -> None:
        self.macros = macros
        self.with_context = with_context  # its macros see the render's variables


class _Deferred:
    def __init__(self, run: Callable[[], None]) -> None:
        self.run = run


class _Captured:
    """The value a block set's body writes (an expression of the compiler's
    own, with the AssignBlock's body and filter)."""

    def __init__(self, block: Any) -> None:
        self.body, self.filter, self.lineno = block.body, block.filter, block.lineno


def _escape(value: Any) -> Any:
    from markupsafe import escape

    return escape(value)


def _base_environment() -> Any:
    from jinja2 import Environment

    return Environment


def _base_undefined() -> Any:
    from jinja2.runtime import Undefined

    return Undefined


def _inline_if_hint(line: int, name: Optional[str]) -> str:
    where = f"line {line}" + (f" in {name!r}" if name is not None else "")
    return (
        f"the inline if-expression on {where} evaluated to false and no else section "
        f"was defined."
    )


def compile_template(env: Any, template: Any, name: Optional[str]) -> Any:
    """The program for `template`, or Unsupported naming why not."""
    return Compiler(env, name).program(template)
