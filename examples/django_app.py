"""A one-file Django site whose templates are markup functions.

Run it with:  python examples/django_app.py runserver

The templates are plain functions that return trees, found by their dotted
path through the markup.django backend; Django's render() calls them with
the context (and the request and CSRF input when they take them). The
report is streamed with StreamingHttpResponse as it is rendered.

The backend requires OPTIONS["packages"]: a template name reaches only
functions defined in those modules. This one-file site names itself; a
project names the package that holds its pages (["shop.pages"]), so that
its views and helpers cannot be named as templates.
"""

# Django ships no type information: its names are Any to mypy.
# mypy: disable-error-code="import-untyped"
import sys
from typing import Any, Iterator

from django.conf import settings

if not settings.configured:
    settings.configure(
        DEBUG=True,
        SECRET_KEY="example only",
        ROOT_URLCONF=__name__,
        ALLOWED_HOSTS=["*"],
        MIDDLEWARE=["django.middleware.csrf.CsrfViewMiddleware"],
        TEMPLATES=[
            {
                "NAME": "markup",
                "BACKEND": "markup.django.MarkupTemplates",
                # Required: the modules whose own functions are templates.
                "OPTIONS": {"packages": [__name__]},
            }
        ],
    )

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path

from markup import Element, h
from markup.django import stream

BOOKS = [("Tea & <Sympathy>", 1953), ("The Book of Tea", 1906)]


# Templates: functions that return trees.
def book_list(books: Any, request: HttpRequest, csrf_input: Any) -> Element:
    return h.HtmlDocument(
        h.Head(h.Meta(charset="utf-8"), h.Title("Books")),
        h.Body(
            h.H1("Books"),
            h.Ul([h.Li(title, " (", year, ")") for title, year in books]),
            h.Form(
                {"method": "post", "action": request.path},
                csrf_input,
                h.Input(name="title"),
                h.Button("Add"),
            ),
        ),
    )


def report_rows(n: int) -> Iterator[Element]:
    for i in range(n):
        title, year = BOOKS[i % len(BOOKS)]
        yield h.Tr(h.Td(i), h.Td(title), h.Td(year))


# Views.
def index(request: HttpRequest) -> HttpResponse:
    return render(request, f"{__name__}.book_list", {"books": BOOKS})


def report(request: HttpRequest) -> HttpResponse:
    n = int(request.GET.get("n", "1000"))
    return stream(h.Table(h.Tr(h.Th("#"), h.Th("Title"), h.Th("Year")), report_rows(n)))


urlpatterns = [path("", index), path("report", report)]

if __name__ == "__main__":
    import django
    from django.core.management import execute_from_command_line

    django.setup()
    execute_from_command_line(sys.argv)
