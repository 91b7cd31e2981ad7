"""Macros, call blocks, imports of macros, set and with.

A macro defined at the top of the template is compiled where it is called as
a whole {{ m(...) }}: its output is what Jinja2's Macro returns and writes
(Markup with autoescape, else str), its arguments are bound as Jinja2 binds
them, and its body sees its parameters and the template's variables, not
the caller's loops."""

import functools
from collections import ChainMap
from typing import AbstractSet, Any, Dict, List, Optional

from jinja2 import nodes
from jinja2.compiler import find_undeclared
from markupsafe import Markup

from ._nodes import (
    Unsupported,
    _assigned_in,
    _caller_outputs,
    _describe,
    _targets,
    _walk_all,
)
from ._runtime import (
    _calls_with_context,
    _check_namespace,
    _namespace_set,
    _unpacker,
    _verbatim,
)
from ._templates import TemplateCompiler
from ._writer import (
    OP_CAPTURE,
    OP_END_CAPTURE,
    OP_IF,
    OP_PARAM,
    OP_WRITE,
    _Loop,
    _modified_eval_ctx,
    _Module,
)


class _Captured:
    """The value a block set's body writes (an expression of the compiler's
    own, with the AssignBlock's body and filter)."""

    def __init__(self, block: Any) -> None:
        self.body, self.filter, self.lineno = block.body, block.filter, block.lineno


class MacroCompiler(TemplateCompiler):
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
        to call only (block_body forgets it after). In a loop's body, its
        body may read the loops' targets too (loop_macro)."""
        if self.loops and self.loops[-1].is_loop and self.loops[-1].visible:
            self.loop_macro(node)
            return
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

    def loop_macro(self, node: Any) -> None:
        """A macro defined in a loop's body, called in that body: compiled
        in place with the loops around it in sight, which is what Jinja2's
        macro (a closure in the loop) sees, where its body reads the loops'
        targets and the context, not a name the body sets nor `loop`. Its
        name is the body's to call only (stmt_For forgets it after)."""
        if self.module_scope or self.expanding:
            raise Unsupported("a macro defined inside a loop of a macro or an imported template")
        params = {arg.name for arg in node.args} | set(_assigned_in(node.body))
        read = {
            n.name
            for n in _walk_all(node.body + node.defaults)
            if isinstance(n, nodes.Name) and n.ctx == "load"
        } - params
        set_around = {name for scope in self.loops for name in scope.locals}
        targets = {name for scope in self.loops for name in scope.names}
        if "caller" in read:
            raise Unsupported("a macro in a loop that calls caller")
        if read & set_around or "loop" in read or node.name in set_around | targets:
            raise Unsupported("a macro in a loop that reads or is a name the loop's body sets")
        loop = self.loops[-1]
        loop.macros_defined.append(
            (node.name, self.macros.get(node.name), node.name in self.macro_names)
        )
        self.macro_names.add(node.name)
        self.macro_sites[node.name] = list(self.loops)

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
        around: List[_Loop] = []
        defined_in = self.macro_sites.get(name) if module is None else None
        if defined_in is not None:
            # defined in a loop's body: called there, it sees those loops
            around = defined_in
            if self.loops != around:
                raise Unsupported(f"the macro '{name}' called other than where its loop defines it")
        self.loops = [*around, scope]  # the macro's own: its parameters, what it sets
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
        scope.captures = True
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
        if self.loops and id(node) in self.loops[-1].alias_sets:
            self.loops[-1].aliases.add(node.target.name)  # {% set outer = loop %}
            return
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

    def output_call(self, child: Any) -> bool:
        return super().output_call(child) or self.macro_call(child) or self.caller_call(child)
