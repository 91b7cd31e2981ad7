"""Django: markup trees as templates, and streamed responses.

    TEMPLATES = [
        {
            "NAME": "markup",  # the default name, "django", is Django's own backend's
            "BACKEND": "markup.django.MarkupTemplates",
            "OPTIONS": {"packages": ["shop.pages"]},
        },
        {"BACKEND": "django.template.backends.django.DjangoTemplates", ...},  # if any
    ]

A "template" is a function that returns a tree, named by its dotted path
(``"shop.pages.product"``, or ``"shop.pages:product"``). ``packages`` is
required: the backend refuses to start without it (``ImproperlyConfigured``),
and only functions *defined* in those packages (or in modules inside them)
can be named; see ``MarkupTemplates`` for the exact rules. render(request,
"shop.pages.product", {"item": item}) calls it with the context as keyword
arguments, plus ``request``, ``csrf_input`` (the hidden input, as HTML) and
``csrf_token`` (the token, as text) when it takes them, and renders what it
returns. A function with ``**kwargs`` receives the whole context and
``request`` and ``csrf_input``; the token is made (and its cookie set) only
for a function that names ``csrf_token``.

    from markup.django import stream, astream

    def catalog(request):
        return stream(h.Table(rows()))             # StreamingHttpResponse, iter_render

    async def feed(request):
        return astream(h.Ul(latest_items()))       # async views: aiter_render

Importing this module imports Django; ``import markup`` alone does not.
"""

import importlib
import inspect
from typing import Any, Callable, Dict, Optional, Tuple

# Django ships no type information.
from asgiref.sync import sync_to_async
from django.core.exceptions import ImproperlyConfigured  # type: ignore[import-untyped]
from django.http import StreamingHttpResponse  # type: ignore[import-untyped]
from django.template import TemplateDoesNotExist  # type: ignore[import-untyped]
from django.template.backends.base import BaseEngine  # type: ignore[import-untyped]
from django.template.backends.utils import (  # type: ignore[import-untyped]
    csrf_input_lazy,
    csrf_token_lazy,
)

from . import _core
from ._core import iter_render, render
from ._stream import aiter_render

# What @baked returns; a private runtime type, not in the stubs.
BakedFunction = _core.BakedFunction  # type: ignore[attr-defined]

__all__ = ["MarkupTemplates", "Template", "stream", "astream"]


class Template:
    """A function that returns a tree, as Django's template API sees it."""

    def __init__(self, func: Callable[..., Any], name: str) -> None:
        self.func = func
        self.name = name
        params = inspect.signature(func).parameters.values()
        self._takes_all = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
        self._names = frozenset(
            p.name
            for p in params
            if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        )

    def render(self, context: Optional[Dict[str, Any]] = None, request: Any = None) -> str:
        values = dict(context or {})
        if request is not None:
            values.setdefault("request", request)
            values.setdefault("csrf_input", csrf_input_lazy(request))  # has __html__
            if "csrf_token" in self._names:
                values.setdefault("csrf_token", str(csrf_token_lazy(request)))
        if not self._takes_all:
            values = {k: v for k, v in values.items() if k in self._names}
        return render(self.func(**values))


def _is_dotted(name: str) -> bool:
    """``a.b.c``: one or more identifiers joined by single dots (so no
    empty part: no leading, trailing or doubled dot)."""
    return all(part.isidentifier() for part in name.split("."))


def _packages_option(packages: Any) -> Tuple[str, ...]:
    example = 'e.g. "OPTIONS": {"packages": ["shop.pages"]}'
    if packages is None:
        raise ImproperlyConfigured(
            "markup.django: OPTIONS['packages'] is required: the packages whose functions "
            f"may be named as templates ({example}); no other module can be imported "
            "through a template name"
        )
    if isinstance(packages, str) or not isinstance(packages, (list, tuple)):
        raise ImproperlyConfigured(
            f"markup.django: OPTIONS['packages'] must be a list of dotted module names "
            f"({example}), got {type(packages).__name__} {packages!r}"
        )
    if not packages:
        raise ImproperlyConfigured(
            f"markup.django: OPTIONS['packages'] is empty: name at least one package ({example})"
        )
    for package in packages:
        if not isinstance(package, str) or not _is_dotted(package):
            raise ImproperlyConfigured(
                f"markup.django: OPTIONS['packages']: {package!r} is not a dotted module "
                f"name such as 'shop.pages'"
            )
    return tuple(packages)


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


class MarkupTemplates(BaseEngine):  # type: ignore[misc]
    """The template backend.

    OPTIONS: ``packages`` (required), a list of dotted module names, such as
    ``["shop.pages"]``. Without it, or with an empty list or a string in its
    place, creating the backend raises ``ImproperlyConfigured``.

    A template name is ``"<module>.<function>"`` or ``"<module>:<function>"``
    and is a template only when all of these hold:

    * every dotted part is a Python identifier (no empty part, so no
      leading, trailing or doubled dot), and there is at most one ``:``;
    * the module is a configured package or inside one, judged on the name,
      before anything is imported; the parts after the configured package
      (the function's name included) do not begin with ``_``, so dunder
      attributes, private helpers and ``pkg.__init__`` are never reached;
    * the module imports (only it, and the packages above it, as Python
      imports them; a module that is missing is no template, an error raised
      inside an existing module is raised as it is);
    * the attribute is a plain Python function (``inspect.isfunction``), or a
      function made by ``@baked`` from one, and that function was defined in
      a configured package (its ``__module__`` is one of them or inside one).
      A function a page module imports from elsewhere (``from os import
      getcwd``, a helper library) is not a template; one re-exported from
      another configured package is. Classes, instances, ``functools.partial``
      objects, builtins and modules never are.

    Any other name raises ``TemplateDoesNotExist``, so Django goes on to the
    next backend.
    """

    app_dirname = None

    def __init__(self, params: Dict[str, Any]) -> None:
        params = params.copy()
        options = dict(params.pop("OPTIONS", {}) or {})
        packages = options.pop("packages", None)
        if options:
            raise ValueError(f"markup.django: unknown OPTIONS {sorted(options)}; known: packages")
        self.packages: Tuple[str, ...] = _packages_option(packages)
        params.setdefault("NAME", "markup")  # Django sets it from the path: "django"
        params.setdefault("DIRS", [])
        params.setdefault("APP_DIRS", False)
        super().__init__(params)

    def from_string(self, template_code: str) -> Template:
        raise TemplateDoesNotExist(
            "markup templates are Python functions, named by their dotted path; "
            "there is no template source to compile",
            backend=self,
        )

    def get_template(self, template_name: str) -> Template:
        func = self._find(template_name)
        if func is None:
            raise TemplateDoesNotExist(template_name, backend=self)
        return Template(func, template_name)

    def _allowed_module(self, module: str, attr: str) -> bool:
        """Whether ``module`` is a configured package or inside one, with no
        part after that package (``attr`` included) beginning with ``_``."""
        for package in self.packages:
            if _inside(module, package):
                rest = module[len(package) :].split(".")[1:] + [attr]
                if not any(part.startswith("_") for part in rest):
                    return True
        return False

    def _find(self, name: Any) -> Optional[Callable[..., Any]]:
        """The template function ``name`` names, or None (see the class)."""
        if not isinstance(name, str):
            return None
        module_name, colon, attr = name.partition(":")
        if not colon:
            module_name, _, attr = name.rpartition(".")
        if not (_is_dotted(module_name) and attr.isidentifier()):
            return None
        # Decided on the name alone: nothing outside the packages is imported.
        if not self._allowed_module(module_name, attr):
            return None
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            # The named module, or a package above it, does not exist. A
            # missing import inside a module that does is its own error.
            if exc.name and _inside(module_name, exc.name):
                return None
            raise
        obj = getattr(module, attr, None)
        func = getattr(obj, "__wrapped__", None) if isinstance(obj, BakedFunction) else obj
        if not inspect.isfunction(func):
            return None
        defined_in = getattr(func, "__module__", None)
        if not isinstance(defined_in, str) or not any(
            _inside(defined_in, package) for package in self.packages
        ):
            return None
        return obj


def stream(node: Any, *, chunk_size: int = 65536, status: int = 200) -> StreamingHttpResponse:
    """A StreamingHttpResponse of iter_render(node), text/html in UTF-8."""
    return StreamingHttpResponse(
        iter_render(node, chunk_size=chunk_size),
        status=status,
        content_type="text/html; charset=utf-8",
    )


def _in_sync_context(step: Any) -> Any:
    # Generators and callables in the tree may use the ORM, which Django
    # refuses in async code: they run where sync_to_async runs sync code.
    return sync_to_async(step, thread_sensitive=True)()


def astream(node: Any, *, chunk_size: int = 65536, status: int = 200) -> StreamingHttpResponse:
    """The same for async views, with aiter_render(node): awaitable and
    async-iterable children are awaited where they stand, and the rendering
    between them (with the generators and callables it takes, which may use
    the ORM) runs through sync_to_async, as Django runs sync code."""
    return StreamingHttpResponse(
        aiter_render(node, chunk_size=chunk_size, run_sync=_in_sync_context),
        status=status,
        content_type="text/html; charset=utf-8",
    )
