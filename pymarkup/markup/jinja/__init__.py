"""Jinja2 templates on markup's engine.

    import markup.jinja

    env = markup.jinja.Environment(loader=FileSystemLoader("templates"))
    env.get_template("orders.html").render(orders=rows)   # Jinja2's bytes

    markup.jinja.accelerate(app.jinja_env)   # an environment made elsewhere

Templates are read by Jinja2's own lexer and parser, with the environment's
settings, and compiled twice: by Jinja2 (as always) and, where markup
compiles every construct the template uses, into a libmarkup template
program that renders it in C. ``template.markup_native`` says which one
``render()`` uses and ``template.markup_reason`` why not markup's.

The output is Jinja2's, and so are the exceptions: one raised while
markup's program renders has a traceback through the template's file and
line, as Jinja2's code gives it.

``markup.jinja.lint(env)`` (and ``python -m markup.jinja.lint FOLDER``)
lists each {{ }} that stands where Jinja2's escaping does not protect the
page; ``Environment(markup_lint="error")`` or ``"warn"`` checks each
template so when it is loaded.
"""

import sys
import threading
import weakref
from collections import ChainMap
from typing import Any, Dict, Optional, Tuple

import jinja2

from ._compiler import Compiled, compile_template
from ._lint import URL_FUNCTIONS, Finding, LintError, LintWarning, lint, lint_loaded
from ._nodes import Unsupported
from ._runtime import Suspended, internal_code, render_state

_internal_code = internal_code

__all__ = [
    "URL_FUNCTIONS",
    "Environment",
    "Finding",
    "LintError",
    "LintWarning",
    "Template",
    "accelerate",
    "lint",
]

_LINT_SETTINGS = (None, "warn", "error")

_NOT_SEEN = "compiled before markup.jinja was given the environment"


class _Pending(threading.local):
    # what the last _generate in this thread made of its template
    compiled: Optional[Tuple[Any, Optional[str]]] = None
    # the last _parse in this thread: (its tree, the text it read), for
    # the lint's "markup-lint: ignore" lines
    parsed: Optional[Tuple[Any, str]] = None


_pending = _Pending()


def _compiled(env: Any) -> "weakref.WeakKeyDictionary[Any, Tuple[Any, Optional[str]]]":
    found = env.__dict__.get("_markup_compiled")
    if found is None:
        found = env.__dict__["_markup_compiled"] = weakref.WeakKeyDictionary()
    return found


class _Accelerating:
    """What markup adds to a jinja2.Environment: each template Jinja2
    compiles is also compiled to a markup program, kept with its code."""

    #: None, "warn" or "error": what the lint's findings do when a template
    #: is loaded (nothing, a LintWarning each, a LintError).
    markup_lint: Optional[str] = None

    def _parse(self, source: str, name: Optional[str], filename: Optional[str]) -> Any:
        tree = super()._parse(source, name, filename)  # type: ignore[misc]
        _pending.parsed = (tree, source)
        return tree

    def _generate(
        self, source: Any, name: Optional[str], filename: Optional[str], defer_init: bool = False
    ) -> str:
        parsed, _pending.parsed = _pending.parsed, None
        if self.markup_lint is not None:
            text = parsed[1] if parsed is not None and parsed[0] is source else None
            lint_loaded(self, source, name, filename, text)
        # First, so that Jinja2's code generator finds the constants this
        # folded (as it would fold them itself) and calls no filter twice.
        try:
            _pending.compiled = (compile_template(self, source, name), None)
        except Unsupported as exc:
            _pending.compiled = (None, str(exc))
        except jinja2.TemplateError as exc:
            # Folding a constant failed (say, an undefined attribute under
            # StrictUndefined). Jinja2's generator, folding in its own
            # order, decides what the template raises, if anything.
            _pending.compiled = (None, f"folding a constant raised {type(exc).__name__}")
        return super()._generate(source, name, filename, defer_init)  # type: ignore[misc,no-any-return]

    def _compile(self, source: str, filename: str) -> Any:
        code = super()._compile(source, filename)  # type: ignore[misc]
        compiled, _pending.compiled = _pending.compiled, None
        if compiled is not None:
            _compiled(self)[code] = compiled
        return code


def _from_bytecode_cache(env: Any, template: Any) -> Optional[Tuple[Any, Optional[str]]]:
    """A template whose code came from the environment's bytecode cache,
    which Jinja2 hands over without its source: the loader gives the source
    again (the cache keeps code only for the source it was made from),
    which is parsed and compiled to a program once, as the template loads."""
    if env.bytecode_cache is None or env.loader is None or template.name is None:
        return None
    try:
        source, filename, _ = env.loader.get_source(env, template.name)
        tree = env._parse(source, template.name, filename)
    except Exception:  # gone or changed since: Jinja2's code renders it
        return None
    _pending.parsed = None
    if env.markup_lint is not None:
        lint_loaded(env, tree, template.name, filename, source)
    try:
        return compile_template(env, tree, template.name), None
    except Unsupported as exc:
        return None, str(exc)


class _NativeTemplate:
    """What markup adds to a jinja2.Template: render() runs the program."""

    _markup_program: Any = None
    markup_reason: Optional[str] = _NOT_SEEN

    @property
    def markup_native(self) -> bool:
        """Whether render() runs markup's program (else Jinja2's code)."""
        return self._markup_program is not None

    @classmethod
    def from_code(cls, environment: Any, code: Any, globals: Any, uptodate: Any = None) -> Any:
        template = super().from_code(environment, code, globals, uptodate)  # type: ignore[misc]
        known = _compiled(environment)
        found = known.get(code)
        if found is None and isinstance(environment, _Accelerating):
            found = _from_bytecode_cache(environment, template)
            if found is not None:
                known[code] = found
        if found is not None:
            template._markup_program, template.markup_reason = found
        return template

    def render(self, *args: Any, **kwargs: Any) -> str:
        compiled: Optional[Compiled] = self._markup_program
        # (an async environment's render() runs render_async, below)
        if (
            compiled is None
            or compiled.is_async
            or (compiled.deps and not self._markup_current(compiled))
        ):
            return super().render(*args, **kwargs)  # type: ignore[misc,no-any-return]
        return self._markup_render(compiled, args, kwargs)

    async def render_async(self, *args: Any, **kwargs: Any) -> str:
        compiled: Optional[Compiled] = self._markup_program
        if compiled is not None and compiled.is_async and self._markup_current(compiled):
            try:
                return self._markup_render(compiled, args, kwargs)
            except Suspended:
                pass  # something waits: Jinja2's code renders it, from the start
        return await super().render_async(*args, **kwargs)  # type: ignore[misc,no-any-return]

    def _markup_current(self, compiled: Compiled) -> bool:
        """Whether the parents and included templates compiled in are still
        the environment's: Jinja2 asks for them on every render, and
        renders one changed since (auto_reload) with its own code."""
        get_template = self.environment.get_template  # type: ignore[attr-defined]
        try:
            return all(get_template(name, parent) is t for name, parent, t in compiled.deps)
        except Exception:  # one is gone: Jinja2's code says what that means
            return False

    def _markup_render(self, compiled: Compiled, args: Any, kwargs: Any) -> str:
        vars = dict(*args, **kwargs)
        globals_ = self.globals  # type: ignore[attr-defined]
        maps = tuple(globals_.maps) if type(globals_) is ChainMap else (globals_,)
        if not compiled.calls:
            try:
                return compiled.program.render(vars, maps)  # type: ignore[no-any-return]
            except Exception as exc:
                raise self._markup_traceback(exc) from exc.__cause__
        outer = render_state.current
        render_state.current = (self, vars)
        try:
            return compiled.program.render(vars, maps)  # type: ignore[no-any-return]
        except Exception as exc:
            raise self._markup_traceback(exc) from exc.__cause__
        finally:
            render_state.current = outer

    def _markup_traceback(self, exc: BaseException) -> BaseException:
        """`exc` with its traceback going through the template's line that
        failed, as Jinja2 shows it, then into the Python code it called."""
        pc = getattr(exc, "_markup_pc", None)
        lines = self._markup_program.lines
        tb = exc.__traceback__
        if pc is None or not 0 <= pc < len(lines) or tb is None:
            return exc
        line = getattr(exc, "_markup_line", None) or lines[pc]  # in a recursive loop's program
        frame = _template_frame(exc, self.filename or "<template>", line)  # type: ignore[attr-defined]
        last = frame
        called = tb.tb_next  # the frames of what the template called
        while called is not None:
            if called.tb_frame.f_code not in _internal_code:
                last.tb_next = called
                last = called
            called = called.tb_next
        last.tb_next = None
        return exc.with_traceback(frame)


def _template_frame(exc: BaseException, filename: str, line: int) -> Any:
    """A traceback entry at `line` of the template file: a code object made
    to raise `exc` from there, named as Jinja2 names a template's frame."""
    code = compile("\n" * (line - 1) + "raise __markup_exception__", filename, "exec")
    code = code.replace(co_name="top-level template code")
    try:
        exec(code, {"__name__": filename, "__file__": filename, "__markup_exception__": exc})
    except BaseException:
        return sys.exc_info()[2].tb_next  # type: ignore[union-attr]
    raise AssertionError("unreachable")  # pragma: no cover


class Template(_NativeTemplate, jinja2.Template):
    """A jinja2.Template whose render() runs markup's program when the
    template compiled to one (see markup_native and markup_reason)."""


class Environment(_Accelerating, jinja2.Environment):
    """A jinja2.Environment whose templates render on markup's engine.
    Takes jinja2.Environment's arguments and markup_lint: None (the
    default), "warn" or "error" (see markup.jinja.lint)."""

    template_class = Template

    def __init__(self, *args: Any, markup_lint: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.markup_lint = _lint_setting(markup_lint)


def _lint_setting(value: Any) -> Optional[str]:
    if value not in _LINT_SETTINGS:
        raise ValueError(f"markup_lint must be None, 'warn' or 'error', not {value!r}")
    return value  # type: ignore[no-any-return]


Template.environment_class = Environment

_classes: Dict[Tuple[type, type], type] = {}


def _with(mixin: type, base: type) -> type:
    if issubclass(base, mixin):
        return base
    found = _classes.get((mixin, base))
    if found is None:
        found = _classes[(mixin, base)] = type(
            base.__name__,
            (mixin, base),
            {
                "__module__": base.__module__,
                "__qualname__": base.__qualname__,
                "__doc__": base.__doc__,
            },
        )
    return found


def accelerate(env: Any, *, markup_lint: Optional[str] = None) -> Any:
    """Makes an existing jinja2.Environment (Flask's app.jinja_env,
    Starlette's Jinja2Templates.env, Django's Jinja2 backend's env) compile
    its templates to markup programs from now on, and returns it. Templates
    it loaded before are loaded again when next asked for. markup_lint is
    as for Environment."""
    if not isinstance(env, jinja2.Environment):
        raise TypeError(f"accelerate() takes a jinja2.Environment, not {type(env).__name__}")
    setting = _lint_setting(markup_lint)
    env.__class__ = _with(_Accelerating, type(env))
    env.markup_lint = setting  # type: ignore[attr-defined]
    env.template_class = _with(_NativeTemplate, env.template_class)
    if env.cache is not None:
        env.cache.clear()
    return env
