"""The ``@baked`` decorator: compile an ``h.*`` builder into a C template.

The builder runs once, here, with a stand-in for each parameter; the tree it
returns becomes static HTML plus slots (``markup._core._compile``). Calling
the result fills the slots in C and returns a ``SafeString``.
"""

import functools
import inspect
import sys

from . import _core
from ._core import _compile
from ._template import compile_program, inliner, needs_program, trace

__all__ = ["baked"]

_POSITIONAL_OR_KEYWORD = inspect.Parameter.POSITIONAL_OR_KEYWORD
_KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY
_VAR_POSITIONAL = inspect.Parameter.VAR_POSITIONAL
_VAR_KEYWORD = inspect.Parameter.VAR_KEYWORD


def baked(func=None, *, missing="error"):
    """Compile ``func``, a function that builds a tree with ``h.*``, into a
    baked function: same signature, returns a ``SafeString``.

    ``func`` runs once, here, with a stand-in for each parameter. What can
    be done per call is recorded and done again on every call: fields
    (``row.name``, ``row["name"]``), arithmetic (``x + 1``), comparisons
    (``x == 1``), f-strings and ``str.format``, method calls, and loops
    (``[h.Li(x) for x in items]``, with Jinja2's ``loop`` through
    ``looped(items)``). A test is written ``when(cond, then, otherwise)``;
    ``all_of``, ``any_of`` and ``not_`` stand for ``and``, ``or`` and
    ``not``, ``contains(items, x)`` for ``in``, ``per_call(len, x)`` for
    ``len()``, and ``default(x.y, "none")`` for Jinja2's ``default``.

    What needs the value at once is a ``TypeError`` raised here: a truth
    test (``if``, ``and``, ``or``, ``not``), ``len()``, ``int()``,
    ``float()``, ``round()``, ``in``, hashing, copying, a text made from a
    parameter cut or changed (``f"{x}".upper()``), and a parameter in the
    text of ``<script>`` or ``<style>``. Unused parameters, ``*args``,
    ``**kwargs`` and positional-only parameters are refused too, and a
    ``True`` or ``False`` in the tree where the builder also made a test
    (``is``, ``isinstance()`` ...) whose frozen answer it could be.

    ``missing="empty"`` (as ``@baked(missing="empty")``) is Jinja2's
    leniency: a field that is not there (a missing key or attribute, or any
    field of ``None``) gives ``MISSING``, which renders as nothing; by
    default such a field raises, naming it.
    """
    if missing not in ("error", "empty"):
        raise ValueError(f"@baked: missing must be 'error' or 'empty', not {missing!r}")
    if func is None:
        return functools.partial(baked, missing=missing)
    if not callable(func):
        raise TypeError(f"@baked expects a function, got {type(func).__name__}")
    # The name in error messages, as the interpreter itself writes it in
    # argument errors: the qualified name since Python 3.10.
    name = getattr(func, "__name__", None) or repr(func)
    if sys.version_info >= (3, 10):
        name = getattr(func, "__qualname__", None) or name
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"@baked {name}(): cannot read the signature: {exc}") from exc

    params = []
    defaults = {}
    npositional = 0
    for param in signature.parameters.values():
        if param.kind is _VAR_POSITIONAL:
            raise TypeError(
                f"@baked {name}(): *{param.name} is not supported: a baked template has a "
                f"fixed set of slots. Take one parameter holding a list instead "
                f"(a child slot renders lists, tuples and generators)"
            )
        if param.kind is _VAR_KEYWORD:
            raise TypeError(
                f"@baked {name}(): **{param.name} is not supported: a baked template has a "
                f"fixed set of slots. Name each value as a parameter of its own"
            )
        if param.kind is not _POSITIONAL_OR_KEYWORD and param.kind is not _KEYWORD_ONLY:
            raise TypeError(
                f"@baked {name}(): parameter '{param.name}' is positional-only; the builder "
                f"is called with its parameters by keyword. Remove the '/' from the "
                f"signature (keyword-only parameters are fine)"
            )
        if param.kind is _POSITIONAL_OR_KEYWORD:
            npositional += 1
        params.append(param.name)
        if param.default is not inspect.Parameter.empty:
            defaults[param.name] = param.default

    session, stands, tree = trace(func, name, params)
    program, ops, paths = None, (), {}
    if needs_program(session) and isinstance(
        tree, (list, tuple, _core.Element, _core.Comment, _core.SafeString)
    ):
        program, ops, paths = compile_program(session, params, tree, missing == "empty")
    compiled = _compile(
        inliner(func, defaults),
        tuple(params),
        npositional,
        defaults,
        name,
        tree,
        tuple(stands),
        program,
        ops,
        paths,
        session.frozen_bools(),
    )
    functools.update_wrapper(compiled, func)
    return compiled
