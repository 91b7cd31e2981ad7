"""What markup.jinja's programs call while they render: the render under
way (for callables that take the context and for includes), awaitables run
to their end, Jinja2's runtime checks and messages. Nothing here reads
Jinja2's nodes."""

import copy
import inspect
import operator
import threading
from typing import Any, Callable, Dict, Optional, Tuple

from jinja2 import filters as _jinja_filters
from jinja2.exceptions import TemplateNotFound, TemplateRuntimeError
from jinja2.nodes import EvalContext
from jinja2.runtime import Namespace
from jinja2.utils import _PassArg
from markupsafe import Markup

from .. import _core


class Render(threading.local):
    """The render under way in this thread, for a callable that takes the
    context: (template, vars), set while a program that calls Python runs."""

    current: Optional[Tuple[Any, Dict[str, Any]]] = None


render_state = Render()


def _calls_with_context(
    env: Any, eval_ctx: EvalContext, scoped: bool = False
) -> Callable[..., Any]:
    """Context.call, for a render that makes its Context only when a
    callable asks for it (`scoped`: inside an autoescape block, whose
    setting that Context's eval_ctx has, as Jinja2's has at run time)."""
    undefined = env.undefined

    def call(__obj: Any, *args: Any, **kwargs: Any) -> Any:
        if hasattr(__obj, "__call__") and _PassArg.from_obj(__obj.__call__) is not None:  # noqa: B004
            __obj = __obj.__call__
        pass_arg = _PassArg.from_obj(__obj)
        local_vars = kwargs.pop("_markup_locals", None)
        if pass_arg is _PassArg.context:
            context = _context(local_vars)
            if scoped:
                context.eval_ctx = copy.copy(eval_ctx)
            args = (context,) + args
        elif pass_arg is _PassArg.eval_context:
            args = (eval_ctx,) + args
        elif pass_arg is _PassArg.environment:
            args = (env,) + args
        try:
            return __obj(*args, **kwargs)
        except StopIteration:
            return undefined(
                "value was undefined because a callable raised a StopIteration exception"
            )

    internal_code.add(call.__code__)
    return call


class Suspended(Exception):
    """An awaitable met in an async environment's render waits for
    something: markup's program cannot wait, Jinja2's code renders it."""


def _await_now(value: Any) -> Any:
    """Jinja2's auto_await, run to its end without an event loop's help:
    an awaitable that finishes without waiting gives its result."""
    if not inspect.isawaitable(value):
        return value
    steps = value.__await__()
    try:
        steps.send(None)
    except StopIteration as done:
        return done.value
    steps.close()
    raise Suspended


def _call_awaited(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return _await_now(func(*args, **kwargs))


class _AsyncItems:
    """The items of an async iterable, each one taken by _await_now."""

    def __init__(self, iterable: Any) -> None:
        self.items = iterable.__aiter__()

    def __iter__(self) -> "_AsyncItems":
        return self

    def __next__(self) -> Any:
        try:
            return _await_now(self.items.__anext__())
        except StopAsyncIteration:
            raise StopIteration from None


_OPERATORS: Dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "gt": operator.gt,
    "gteq": operator.ge,
    "lt": operator.lt,
    "lteq": operator.le,
    "in": lambda a, b: a in b,
    "notin": lambda a, b: a not in b,
}


_CHAINS: Dict[Tuple[str, ...], Callable[..., Any]] = {}


def _chained_compare(ops: Tuple[str, ...]) -> Callable[..., Any]:
    """a < b <= c as Python compares: pair by pair, the first false result
    (or the last) is the value. One function per chain of operators."""
    found = _CHAINS.get(ops)
    if found is None:
        found = _CHAINS[ops] = _chain(ops)
    return found


def _chain(ops: Tuple[str, ...]) -> Callable[..., Any]:
    compare = [_OPERATORS[op] for op in ops]

    def chained(*operands: Any) -> Any:
        result: Any = True
        for i, op in enumerate(compare):
            result = op(operands[i], operands[i + 1])
            if not result:
                return result
        return result

    return chained


# The names a recursive loop's program reads its items and depth by: no
# template's name (a Jinja2 name cannot hold a space).
_RECURSION_ITEMS = " items"
_RECURSION_DEPTH = (" depth", " depth0")


class _SubProgram:
    """A program of its own within a template's (a recursive loop's, a
    filtered loop's test), run with the names it reads handed to it."""

    def __init__(self, autoescape: bool) -> None:
        self.autoescape = autoescape
        self.program: Any = None  # set once compiled
        self.names: Tuple[str, ...] = ()
        self.lines: Tuple[int, ...] = ()  # the template line of each instruction

    def run(self, vars: Dict[str, Any]) -> str:
        try:
            return self.program.render(vars, ())  # type: ignore[no-any-return]
        except Exception as exc:
            # The line that failed, for the template's traceback; the
            # program that called this one then records where it stands.
            pc = getattr(exc, "_markup_pc", None)
            if pc is not None:
                if not hasattr(exc, "_markup_line") and 0 <= pc < len(self.lines):
                    exc._markup_line = self.lines[pc]  # type: ignore[attr-defined]
                del exc._markup_pc  # type: ignore[attr-defined]
            raise


class _Recursion(_SubProgram):
    """A recursive loop's program as Jinja2's loop function: called with
    the names its body reads, the items and the depth0 of the level, it
    gives the level's output, Markup when the template autoescapes."""

    def __call__(self, *args: Any) -> Any:
        vars = dict(zip(self.names, args))
        vars[_RECURSION_DEPTH[0]] = args[-1] + 1
        out = self.run(vars)
        return Markup(out) if self.autoescape else out


class _Filter(_SubProgram):
    """A filtered loop's test as Jinja2's filter generator: called with the
    names the test reads and the items, it yields those that pass, each
    tested when the loop asks for it (the program writes "1" for one that
    passes). With `count` targets, an item is unpacked first and yielded as
    the tuple of the targets."""

    count = 0

    def __call__(self, *args: Any) -> Any:
        vars = dict(zip(self.names, args))
        return self.items(vars, args[-1])

    def items(self, vars: Dict[str, Any], iterable: Any) -> Any:
        unpack = _unpacker(self.count) if self.count else None
        for item in iterable:
            if unpack is not None:
                item = unpack(item)
            vars[_RECURSION_ITEMS] = (item,)
            if self.run(vars):
                yield item


def _sync_iterable(iterable: Any) -> Any:
    return _AsyncItems(iterable) if hasattr(iterable, "__aiter__") else iterable


def _include(
    parent: Optional[str],
    how: str,
    ignore_missing: bool,
    with_context: bool,
    names: Tuple[str, ...],
    template_name: Any,
    values: Tuple[Any, ...],
) -> Any:
    """Renders an included template as Jinja2's include does, for the
    render under way; its text comes back as Markup (written as it is)."""
    template, vars = render_state.current  # type: ignore[misc]
    env = template.environment
    try:
        included = getattr(env, how)(template_name, parent)
    except TemplateNotFound:
        if ignore_missing:
            return Markup()
        raise
    if with_context:
        context = template.new_context(vars).get_all()
        events = included.root_render_func(
            included.new_context(context, True, dict(zip(names, values)))
        )
        if env.is_async:  # an async generator, taken as _await_now takes awaitables
            events = _AsyncItems(events)
    elif env.is_async:
        events = _await_now(included._get_default_module_async())._body_stream
    else:
        events = included._get_default_module()._body_stream
    return Markup("".join(events))


def _star_items(items: Any) -> Tuple[Any, ...]:
    """The items of *args, read where Python reads them: before the
    keyword arguments' values."""
    if not hasattr(items, "__iter__") and not hasattr(items, "__getitem__"):
        raise TypeError(f"Value after * must be an iterable, not {type(items).__name__}")
    return tuple(items)


def _spread_args(
    func: Callable[..., Any],
    npositional: int,
    star: bool,
    kwnames: Tuple[str, ...],
    starstar: bool,
    override: bool,
    *values: Any,
) -> Any:
    """func(*positional, *args, **keywords, **kwargs) from the values a
    program pushed in that order, as Python passes them (with `override`,
    as func(..., **dict(keywords, **kwargs)))."""
    args = list(values[:npositional])
    at = npositional
    if star:
        args.extend(values[at])
        at += 1
    kwargs = dict(zip(kwnames, values[at : at + len(kwnames)]))
    at += len(kwnames)
    if starstar:
        mapping = values[at]
        if override:
            return func(*args, **dict(kwargs, **mapping))
        if not hasattr(mapping, "keys"):
            raise TypeError(f"argument after ** must be a mapping, not {type(mapping).__name__}")
        for key in mapping.keys():
            if key in kwargs:
                raise TypeError(f"got multiple values for keyword argument {key!r}")
            kwargs[key] = mapping[key]
    return func(*args, **kwargs)


def _slice(obj: Any, start: Any, stop: Any, step: Any) -> Any:
    return obj[start:stop:step]


def _required_block(name: str) -> Any:
    raise TemplateRuntimeError(f"Required block {name!r} not found")


def _check_namespace(ns: Any) -> Any:
    if not isinstance(ns, Namespace):
        raise TemplateRuntimeError("cannot assign attribute on non-namespace object")
    return ns


def _namespace_set(attr: str, ns: Any, value: Any) -> None:
    ns[attr] = value


_unpackers: Dict[int, Callable[[Any], Tuple[Any, ...]]] = {}


def _unpacker(count: int) -> Callable[[Any], Tuple[Any, ...]]:
    """A function that unpacks its argument into `count` names, by
    Python's own unpacking (its errors, its way with iterators)."""
    found = _unpackers.get(count)
    if found is None:
        names = ", ".join(f"v{i}" for i in range(count))
        scope: Dict[str, Any] = {}
        exec(f"def unpack(value):\n    {names}, = value\n    return ({names},)", scope)
        found = _unpackers[count] = scope["unpack"]
        internal_code.add(found.__code__)
    return found


def _context(local_vars: Optional[Dict[str, Any]]) -> Any:
    """A Context for the render under way: its variables, those set so far
    at the top, and `local_vars` (set in the loops and blocks around)."""
    template, vars = render_state.current  # type: ignore[misc]
    context = template.new_context(vars)
    return context.derived(local_vars) if local_vars else context


def _with_locals(
    func: Callable[..., Any],
    names: Tuple[str, ...],
    *args: Any,
    _markup_locals: Tuple[Any, ...],
    **kwargs: Any,
) -> Any:
    """Calls `func` with the names set around as a dict, _markup_locals."""
    return func(*args, _markup_locals=dict(zip(names, _markup_locals)), **kwargs)


def _with_context(func: Callable[..., Any]) -> Callable[..., Any]:
    """A filter or test that takes the context, given one made for the
    render under way (its variables, including those set so far)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return func(_context(kwargs.pop("_markup_locals", None)), *args, **kwargs)

    internal_code.add(call.__code__)
    return call


# Frames a traceback into the template leaves out, as Jinja2 leaves out its own.
internal_code: set = {
    _with_locals.__code__,
    _required_block.__code__,
    _call_awaited.__code__,
    _await_now.__code__,
    _AsyncItems.__next__.__code__,
    _include.__code__,
    _spread_args.__code__,
    _Recursion.__call__.__code__,
    _SubProgram.run.__code__,
    _Filter.__call__.__code__,
    _Filter.items.__code__,
}


# Jinja2's built-in filters whose scanning markup does in C (text_filters.c,
# shared with markup.filters), each taking its argument as Jinja2's does.


def _wordcount(s: Any) -> int:
    """Jinja2's wordcount: runs of \\w in soft_str(s)."""
    return _core._wordcount(s if isinstance(s, str) else str(s))


def _title(s: Any) -> str:
    """Jinja2's title, in C for ASCII text."""
    text = s if isinstance(s, str) else str(s)
    title = _core._title_ascii(text)
    return title if title is not None else _jinja_filters.do_title(text)


def _striptags(value: Any) -> str:
    """Jinja2's striptags: Markup(str(value's HTML)).striptags()."""
    if hasattr(value, "__html__"):
        value = value.__html__()
    text = _core._strip_tags(str(value))
    return Markup(text).unescape() if "&" in text else text


NATIVE_FILTERS = {
    _jinja_filters.do_wordcount: _wordcount,
    _jinja_filters.do_title: _title,
    _jinja_filters.do_striptags: _striptags,
}


def _verbatim(value: Any) -> Any:
    """A filter block's result, written as Jinja2 joins it: a str as it is."""
    if not isinstance(value, str):
        raise TypeError(f"sequence item: expected str instance, {type(value).__name__} found")
    return Markup(value)


def _text_markup(value: Any) -> Any:
    """{{ x }} in an {% autoescape false %} block of an autoescaped
    template: str(x), written as it is."""
    return Markup(str(value))
