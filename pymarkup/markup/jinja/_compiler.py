"""Jinja2's parse of a template (its nodes) compiled to a libmarkup template
program (markup._core._JinjaProgram), which runs it with Jinja2's rules.

Only what this module compiles exactly as Jinja2's code generator does is
compiled; anything else raises Unsupported with the construct's name, and
the template is rendered by Jinja2's own code."""

from typing import Any, Optional

from jinja2 import nodes
from jinja2.compiler import CodeGenerator
from jinja2.optimizer import Optimizer
from jinja2.runtime import Context

from .. import _core
from ._macros import MacroCompiler
from ._nodes import (
    Unsupported,
    _assigned_in,
    _walk_scope,
    macro_under_if,
    read_before_set,
)
from ._writer import Compiled, _modified_eval_ctx


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


class Compiler(MacroCompiler):
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
        if macro_under_if(template):
            raise Unsupported("a macro defined inside an if")
        name = read_before_set(template)
        if name is not None:
            raise Unsupported(
                f"'{name}' read in a loop, with, macro or call body before its frame sets it"
            )
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


def _base_environment() -> Any:
    from jinja2 import Environment

    return Environment


def compile_template(env: Any, template: Any, name: Optional[str]) -> Any:
    """The program for `template`, or Unsupported naming why not."""
    return Compiler(env, name).program(template)
