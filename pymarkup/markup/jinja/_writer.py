"""The state of a template's compilation and the program it writes:
static text, instructions, APPLY operations; the constants of the
instruction set as Jinja2's nodes name them.

The compiler is one class built in layers, each a module that knows only
those below it: _writer (the program), _expressions, _statements,
_templates (extends, blocks, include), _macros (macros, call blocks,
imports, set and with), _compiler (the entry point). A layer reaches a
higher one only through a method the higher one overrides (output_call)
or through the stmt_/expr_ dispatch by node type."""

import copy
from typing import Any, Dict, List, Optional, Set, Tuple

from jinja2 import nodes
from jinja2.nodes import EvalContext

from .. import _core
from ._nodes import (
    Unsupported,
)
from ._runtime import (
    _calls_with_context,
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
OP_CAPTURE, OP_END_CAPTURE, OP_BREAK = _core.OP_CAPTURE, _core.OP_END_CAPTURE, _core.OP_BREAK

_BINARY = {
    nodes.Add: _J["ADD"],
    nodes.Sub: _J["SUB"],
    nodes.Mul: _J["MUL"],
    nodes.Div: _J["TRUEDIV"],
    nodes.FloorDiv: _J["FLOORDIV"],
    nodes.Mod: _J["MOD"],
    nodes.Pow: _J["POW"],
}
# the APPLY kind of each unary operator
_UNARY = {nodes.Not: "NOT", nodes.Neg: "NEG", nodes.Pos: "POS"}
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


class _Module:
    """An imported template, as far as its macros go."""

    def __init__(self, macros: Dict[str, Any], with_context: bool) -> None:
        self.macros = macros
        self.with_context = with_context  # its macros see the render's variables


class _Loop:
    def __init__(self, names: Dict[str, Tuple[int, ...]]) -> None:
        self.names = names  # target name -> () for the item, (which, count) to unpack
        self.lookahead = False
        self.tuple_at = -1  # unpacking: the place of the item's tuple
        self.locals: Dict[str, int] = {}  # names the body sets -> their places
        self.visible = True
        self.is_loop = True  # False: a block's body, a scope without a loop
        self.is_block = False  # a block's body (where a macro may be defined)
        # a recursive loop's own (its program's): the places of its depth
        # and depth0, and the call that runs the body for loop(...)
        self.recursion: Optional[Tuple[int, int, Any]] = None
        # {% set outer = loop %} at the top of the body: the Assign nodes
        # (by id) that name this loop, and the names set so far
        self.alias_sets: Set[int] = set()
        self.aliases: Set[str] = set()
        self.captures = False  # a block set's or filter block's body
        # {% break %} and {% continue %} in the body: their jumps, to patch
        self.breaks: List[int] = []
        self.continues: List[int] = []
        # macros the body defined: (name, the macro it hides, was it a macro name)
        self.macros_defined: List[Tuple[str, Any, bool]] = []


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


def _base_undefined() -> Any:
    from jinja2.runtime import Undefined

    return Undefined


def _inline_if_hint(line: int, name: Optional[str]) -> str:
    where = f"line {line}" + (f" in {name!r}" if name is not None else "")
    return (
        f"the inline if-expression on {where} evaluated to false and no else section "
        f"was defined."
    )


class ProgramWriter:
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
        # a macro defined in a loop's body -> the scopes around it there
        self.macro_sites: Dict[str, Optional[List[_Loop]]] = {}
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

    def same_autoescape(self, what: str) -> None:
        if self.autoescape_changed:
            raise Unsupported(f"{what} inside an autoescape block that changes the setting")

    def shadowed(self, name: str) -> bool:
        return any(name in scope.names or name in scope.locals for scope in self.loops)

    def visible_locals(self) -> Dict[str, int]:
        """The names set in the loops and blocks around, innermost first
        kept, with their places: what Jinja2 hands a callable that takes
        the context (its _loop_vars and _block_vars)."""
        found: Dict[str, int] = {}
        for scope in reversed(self.loops):
            for name, place in scope.locals.items():
                found.setdefault(name, place)
        return found
