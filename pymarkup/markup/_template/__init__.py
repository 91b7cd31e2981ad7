"""Tracing an ``@baked`` builder into a template program.

The builder runs once with a stand-in per parameter. Whatever it does with a
stand-in that a template can do per call (a field, arithmetic, a comparison,
formatting, a loop, ``when``, a method call) gives another stand-in that
records the operation; whatever would decide once for all calls
(``bool()``, ``len()``, ``int()``) raises ``TypeError``. The tree that comes
back is compiled: static HTML through the one HTML writer, values and control
flow into a libmarkup template program (``markup._core._ProgramBuilder``).

Loops are found by their traces: iterating a stand-in yields two items, so a
comprehension leaves two copies of its body side by side among the
children. They must be the same but for the item; then the first becomes
the loop's body. Anything that changes between them (``enumerate``, a
counter, ``zip`` with a real list) is refused rather than frozen.

Formatting is traced through text: ``format()`` and ``str()`` of a stand-in
give a marker string that survives f-strings, ``str.format`` and ``%s``;
the compiler splits text at the markers.

The modules, each using only those listed before it:

- ``table``: which libmarkup operation each Python operator and ``loop``
  field stands for; the marker formatting leaves in a text.
- ``watch``: the profiler hook that sees what user code could make a bool
  of a per-call value.
- ``session``: one builder being traced (its markers and loops).
- ``stands``: the stand-ins, one class per operation they record.
- ``helpers``: ``when``, ``any_of``, ``default``, ``looped`` ... as users
  call them.
- ``reading``: walking a traced tree; matching the two traces of a loop.
- ``compiler``: the traced tree into program instructions.
- ``trace``: the entry points ``markup._baked`` calls.
"""

from .helpers import (
    MISSING,
    LoopState,
    Missing,
    all_of,
    any_of,
    contains,
    default,
    looped,
    not_,
    when,
)

# Used by markup's other modules, not by users.
from .session import _sessions as _sessions
from .session import _tracing as _tracing
from .stands import StandIn, per_call
from .stands import _find_stand as _find_stand
from .stands import _per_call as _per_call
from .stands import _TString as _TString
from .stands import inliner as inliner
from .trace import compile_program, trace
from .trace import needs_program as needs_program

__all__ = [
    "LoopState",
    "StandIn",
    "contains",
    "looped",
    "per_call",
    "when",
    "default",
    "MISSING",
    "Missing",
    "any_of",
    "all_of",
    "not_",
    "trace",
    "compile_program",
]
