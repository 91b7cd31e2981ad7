"""Other templates: extends and blocks (with super() and self.name()),
include."""

import functools
import threading
from typing import Any, Dict, List, Optional, Tuple

from jinja2 import nodes

from ._nodes import (
    Unsupported,
    _describe,
)
from ._runtime import (
    _include,
    _required_block,
)
from ._statements import StatementCompiler
from ._writer import OP_PARAM, OP_WRITE, Compiled, _Loop


class _Loading(threading.local):
    stack: List[str]

    def __init__(self) -> None:
        self.stack = []


_loading = _Loading()  # the templates this thread is compiling, by name


class TemplateCompiler(StatementCompiler):
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

    def output_call(self, child: Any) -> bool:
        return super().output_call(child) or self.super_call(child) or self.self_call(child)
