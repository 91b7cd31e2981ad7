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
(``"shop.pages.product"``, or ``"shop.pages:product"``). render(request,
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

import inspect
from typing import Any, Callable, Dict, Optional, Sequence

# Django ships no type information.
from asgiref.sync import sync_to_async
from django.http import StreamingHttpResponse  # type: ignore[import-untyped]
from django.template import TemplateDoesNotExist  # type: ignore[import-untyped]
from django.template.backends.base import BaseEngine  # type: ignore[import-untyped]
from django.template.backends.utils import (  # type: ignore[import-untyped]
    csrf_input_lazy,
    csrf_token_lazy,
)
from django.utils.module_loading import import_string  # type: ignore[import-untyped]

from ._core import iter_render, render
from ._stream import aiter_render

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


class MarkupTemplates(BaseEngine):  # type: ignore[misc]
    """The template backend. OPTIONS: ``packages``, the modules whose
    functions may be named as templates (any dotted path when absent)."""

    app_dirname = None

    def __init__(self, params: Dict[str, Any]) -> None:
        params = params.copy()
        options = dict(params.pop("OPTIONS", {}) or {})
        packages: Optional[Sequence[str]] = options.pop("packages", None)
        if options:
            raise ValueError(f"markup.django: unknown OPTIONS {sorted(options)}; known: packages")
        params.setdefault("NAME", "markup")  # Django sets it from the path: "django"
        params.setdefault("DIRS", [])
        params.setdefault("APP_DIRS", False)
        super().__init__(params)
        self.packages = tuple(packages) if packages is not None else None

    def from_string(self, template_code: str) -> Template:
        raise TemplateDoesNotExist(
            "markup templates are Python functions, named by their dotted path; "
            "there is no template source to compile",
            backend=self,
        )

    def get_template(self, template_name: str) -> Template:
        path = template_name.replace(":", ".")
        module = path.rpartition(".")[0]
        if self.packages is not None and not any(
            module == p or module.startswith(p + ".") for p in self.packages
        ):
            raise TemplateDoesNotExist(template_name, backend=self)
        try:
            func = import_string(path)
        except ImportError as exc:
            raise TemplateDoesNotExist(template_name, backend=self) from exc
        if not callable(func):
            raise TemplateDoesNotExist(template_name, backend=self)
        return Template(func, template_name)


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
