"""Watching the user code a builder runs while it is traced, for what
could make a bool of a per-call value where no stand-in sees it."""

from __future__ import annotations

import dis
import os
from typing import Any, Dict, List

from .table import _MARK

# What can make a bool of a per-call value where no stand-in method sees it:
# identity, containment and `not` (on a text made from a stand-in, or a
# value computed from one), and the built-ins that answer about an object
# (isinstance(x, ...), hasattr(x, ...)) or give a number to compare (len()).
# While a builder is traced, the user code that runs (not markup's own) is
# read for these operations and its calls of C functions watched; a True or
# False written in the tree is taken as written only where none ran.
_BOOL_OPCODES = {
    dis.opmap[name]: text
    for name, text in (
        ("IS_OP", "`is`"),
        ("CONTAINS_OP", "`in`"),
        ("UNARY_NOT", "`not`"),
        ("MATCH_CLASS", "`match`"),
        ("MATCH_MAPPING", "`match`"),
        ("MATCH_SEQUENCE", "`match`"),
        ("MATCH_KEYS", "`match`"),
    )
    if name in dis.opmap
}
# `if x is None:` jumps on None without IS_OP (3.11 and newer).
_BOOL_OPCODES.update(
    {
        code: "`is None`"
        for name, code in dis.opmap.items()
        if name.endswith(("IF_NONE", "IF_NOT_NONE"))
    }
)
_BOOL_CALLS = frozenset([isinstance, issubclass, hasattr, callable, any, all, len, id])
# Classes, whose calls no C-function event reports: read by name.
_BOOL_NAMES = frozenset(["type", "bool"])
# A text formatted from a value, compared at once (f"u-{x}" == "u-a"): the
# comparison sees a plain str.
_FORMATTING = frozenset(
    ["BUILD_STRING", "FORMAT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC", "CONVERT_VALUE"]
)
# markup's own package (not only this one): h.*, @baked and the helpers.
_OWN_CODE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _note_refusal(session: Any, what: str) -> None:
    # A refusal the builder catches (try: int(x) except TypeError: ...)
    # leaves the answer of its except branch frozen.
    watch = getattr(session, "watch", None)
    if watch is not None:
        watch.calls.append(f"a refused use ({what}) that the builder may have caught")


class _BoolWatch:
    """The sys.setprofile hook while a builder is traced: the code objects
    of the user functions that ran, and the calls of C functions that can
    answer with a bool."""

    def __init__(self) -> None:
        self.codes: Dict[Any, None] = {}
        self.calls: List[str] = []

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        code = frame.f_code
        if code.co_filename.startswith(_OWN_CODE):
            return
        if event == "call":
            self.codes[code] = None
        elif event == "c_call":
            owner = getattr(arg, "__self__", None)
            if (
                arg in _BOOL_CALLS
                or getattr(arg, "__module__", None) in ("operator", "_operator")
                or (isinstance(owner, str) and _MARK in owner)
            ):
                where = f"{code.co_name}() at line {frame.f_lineno}"
                self.calls.append(f"{getattr(arg, '__name__', 'a call')}() in {where}")

    def found(self) -> List[str]:
        found = list(self.calls)
        for code in list(self.codes):  # a profiler may still record into it
            line = code.co_firstlineno
            formatted_at = -100
            for ins in dis.get_instructions(code):
                start = getattr(ins, "line_number", None) or ins.starts_line
                if start and start is not True:
                    line = start
                where = f"in {code.co_name}() at line {line}"
                if ins.opcode in _BOOL_OPCODES:
                    found.append(f"{_BOOL_OPCODES[ins.opcode]} {where}")
                elif ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval in _BOOL_NAMES:
                    found.append(f"{ins.argval}() {where}")
                elif ins.opname in _FORMATTING:
                    formatted_at = ins.offset
                elif ins.opname == "COMPARE_OP" and 0 <= ins.offset - formatted_at <= 16:
                    # within a few instructions of the formatting (bytes of code)
                    found.append(f"a comparison of a formatted text {where}")
        return found
