"""The framework glue, each tested with the framework's own test client:
markup.starlette, markup.fastapi, markup.flask and markup.django. All are in
requirements-dev.txt; FastAPI is not installed for the qemu runs (its
pydantic-core has no pure-Python form), where its tests skip."""

import asyncio
import sys
import threading
import types

import pytest

from markup import Comment, SafeString, baked, h, render, render_bytes

import conftest

TEA = "Tea & <cake> é"


def rows(n, log=None):
    for i in range(n):
        if log is not None:
            log.append(i)
        yield h.Tr(h.Td(i), h.Td(TEA))


def table_bytes(n):
    return render_bytes(h.Table(list(rows(n))))


@baked
def layout(title, content):
    return h.HtmlDocument(h.Head(h.Title(title)), h.Body(content))


# --- Starlette ---------------------------------------------------------------


def test_starlette_responses():
    from starlette.applications import Starlette
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from markup.starlette import MarkupResponse, MarkupStreamingResponse

    async def fetch_name():
        await asyncio.sleep(0)
        return h.B(TEA)

    async def items():
        for i in range(3):
            await asyncio.sleep(0)
            yield h.Li(i)

    async def page(request):
        return MarkupResponse(h.P(TEA), status_code=201)

    async def baked_page(request):
        return MarkupResponse(layout("T", h.P(TEA)))

    threads = []

    def threaded_rows(n):
        for row in rows(n):
            threads.append(threading.get_ident())
            yield row

    loop_threads = []

    async def streamed(request):
        loop_threads.append(threading.get_ident())
        return MarkupStreamingResponse(h.Table(threaded_rows(2000)), chunk_size=1024)

    async def awaited(request):
        return MarkupStreamingResponse(h.Div(fetch_name, h.Ul(items())))

    app = Starlette(
        routes=[
            Route("/page", page),
            Route("/baked", baked_page),
            Route("/streamed", streamed),
            Route("/awaited", awaited),
        ]
    )
    client = TestClient(app)
    r = client.get("/page")
    assert r.status_code == 201
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    assert r.content == render_bytes(h.P(TEA))
    assert client.get("/baked").content == render_bytes(layout("T", h.P(TEA)))
    r = client.get("/streamed")
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    # The rows were made in Starlette's threadpool, not on the event loop.
    assert threads and loop_threads and loop_threads[0] not in threads
    assert "content-length" not in r.headers
    assert r.content == table_bytes(2000)
    r = client.get("/awaited")
    assert r.text == render(h.Div(h.B(TEA), h.Ul([h.Li(i) for i in range(3)])))


# --- FastAPI -----------------------------------------------------------------


def test_fastapi_routes_return_elements():
    pytest.importorskip("fastapi", reason="FastAPI is not installed (requirements-dev.txt)")
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from markup import Element
    from markup.fastapi import MarkupResponse, MarkupStreamingResponse

    app = FastAPI()

    @app.get("/item/{name}", response_class=MarkupResponse)
    def item(name: str):
        return h.Article(h.H1(name), Comment("id"))

    @app.get("/annotated", response_class=MarkupResponse, response_model=None)
    async def annotated() -> Element:
        return h.P(TEA)

    @app.get("/baked", response_class=MarkupResponse)
    def baked_page():
        return layout("T", h.P(TEA))

    @app.get("/stream")
    async def stream():
        return MarkupStreamingResponse(h.Table(rows(500)), chunk_size=100)

    client = TestClient(app)
    r = client.get("/item/<script>")
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    assert r.text == "<article><h1>&lt;script&gt;</h1><!--id--></article>"
    assert client.get("/annotated").content == render_bytes(h.P(TEA))
    assert client.get("/baked").content == render_bytes(layout("T", h.P(TEA)))
    assert client.get("/stream").content == table_bytes(500)


# --- Flask ---------------------------------------------------------------------


def test_flask_views_return_elements_and_stream():
    from flask import Flask, g, request

    from markup.flask import init_app, stream

    app = init_app(Flask(__name__))
    log = []

    @app.get("/")
    def index():
        return h.P(TEA)

    @app.get("/missing")
    def missing():
        return h.P("no such page"), 404, {"X-Kind": "markup"}

    @app.get("/text")
    def text():
        return "plain <str>"  # left to Flask

    @app.get("/stream")
    def streamed():
        g.greeting = "hi"

        def from_request():
            # Runs while the response is sent, inside the request context.
            return h.P(request.args["q"], " ", g.greeting)

        return stream(h.Div(from_request, h.Table(rows(300, log))), chunk_size=256)

    client = app.test_client()
    r = client.get("/")
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert r.content_type == "text/html; charset=utf-8"
    assert r.data == render_bytes(h.P(TEA))
    r = client.get("/missing")
    assert (r.status_code, r.headers["X-Kind"], r.data) == (404, "markup", b"<p>no such page</p>")
    assert client.get("/text").data == b"plain <str>"
    r = client.get("/stream?q=<tea>")
    # The test client takes the first chunk at once; the rest is rendered
    # as the body is read.
    assert r.is_streamed and len(log) < 50
    body = r.get_data()
    assert log == list(range(300))
    assert body == b"<div><p>&lt;tea&gt; hi</p>" + table_bytes(300) + b"</div>"


# --- Django --------------------------------------------------------------------


# The template packages, written as files as a project has them: the backend
# imports the module a template name names, and looks at where each function
# was defined.
SHOP_FILES = {
    "markup_test_shop/__init__.py": "",
    "markup_test_shop/pages/__init__.py": """
        import functools
        import os
        from os import getcwd
        from os.path import join as path_join

        from markup import baked, h
        from markup_test_shop.lib import helper
        from markup_test_shop.widgets import badge


        @baked
        def layout(title, content):
            return h.HtmlDocument(h.Head(h.Title(title)), h.Body(content))


        def product(name, price, request=None, csrf_input=None):
            return layout(
                name,
                h.Form({"method": "post"}, csrf_input, h.P(f"{price:.2f}"), h.P(request.path)),
            )


        def token_form(csrf_token):
            return h.Form(h.Input(type="hidden", name="csrfmiddlewaretoken", value=csrf_token))


        def listing(**context):
            return h.Ul([h.Li(k, "=", v) for k, v in sorted(context.items()) if k == "items"])


        not_a_template = 3


        @baked
        def card(title):
            return h.Div(title)


        def _draft(title):
            return h.P(title)


        class Page:
            def __init__(self, title="page"):
                self.title = title

            def __call__(self):
                return h.P(self.title)


        page_instance = Page()
        partial_product = functools.partial(product, price=1.0)
    """,
    # A nested subpackage, configured alone in some tests.
    "markup_test_shop/pages/account/__init__.py": """
        from markup import h
        from markup_test_shop.pages import product as parent_product


        def profile(user):
            return h.P(user)
    """,
    "markup_test_shop/pages/account/orders.py": """
        from markup import h


        def order(number):
            return h.P("order ", number)
    """,
    # An import that fails inside a page module: its own error, not "no template".
    "markup_test_shop/pages/broken.py": """
        import markup_test_no_such_module


        def page():
            pass
    """,
    "markup_test_shop/widgets.py": """
        from markup import h


        def badge(text):
            return h.Span(text)
    """,
    "markup_test_shop/lib.py": """
        from markup import h


        def helper():
            return h.P("helper")
    """,
    # Beside the pages, with a name that begins like theirs.
    "markup_test_shop/pagesx.py": """
        def page():
            pass
    """,
    "markup_test_outside.py": """
        def page():
            pass
    """,
}


# A Jinja2 template each framework renders through markup.jinja.
JINJA_ORDERS = (
    "<ul>{% for o in orders %}<li class='{{ loop.cycle('a', 'b') }}'>{{ o }}</li>{% endfor %}</ul>"
    "{% if csrf_token is defined %}<i>{{ csrf_token|length > 10 }}</i>{% endif %}"
)
JINJA_ORDERS_HTML = (
    "<ul><li class='a'>Tea &amp; &lt;cake&gt; é</li><li class='b'>&lt;b&gt;</li></ul>"
)


@pytest.fixture(scope="module")
def shop_packages(tmp_path_factory):
    """SHOP_FILES on sys.path; every module imported from them is
    forgotten afterwards."""
    import textwrap

    root = tmp_path_factory.mktemp("shop")
    for name, source in SHOP_FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    (root / "jinja").mkdir()
    (root / "jinja" / "orders.jinja").write_text(JINJA_ORDERS, encoding="utf-8")
    tops = {name.split("/")[0].removesuffix(".py") for name in SHOP_FILES}
    sys.path.insert(0, str(root))
    yield root
    sys.path.remove(str(root))
    for name in [m for m in sys.modules if m.split(".")[0] in tops]:
        del sys.modules[name]


@pytest.fixture(scope="module")
def django_site(shop_packages):
    import django
    from django.conf import settings

    urls = types.ModuleType("markup_test_urls")
    sys.modules["markup_test_urls"] = urls
    if not settings.configured:
        settings.configure(
            DEBUG=False,
            SECRET_KEY="test",
            ROOT_URLCONF="markup_test_urls",
            ALLOWED_HOSTS=["testserver"],
            MIDDLEWARE=["django.middleware.csrf.CsrfViewMiddleware"],
            INSTALLED_APPS=[],
            TEMPLATES=[
                {
                    "NAME": "markup",
                    "BACKEND": "markup.django.MarkupTemplates",
                    "OPTIONS": {"packages": ["markup_test_shop.pages"]},
                },
                # Django's own, beside it: the names must differ.
                {"BACKEND": "django.template.backends.django.DjangoTemplates"},
                # Django's Jinja2 backend on markup.jinja's Environment.
                {
                    "BACKEND": "django.template.backends.jinja2.Jinja2",
                    "DIRS": [str(shop_packages / "jinja")],
                    "OPTIONS": {"environment": "markup.jinja.Environment"},
                },
            ],
        )
        django.setup()

    from django.http import HttpResponse
    from django.shortcuts import render as django_render
    from django.urls import path

    from markup.django import astream, stream

    def product_view(request):
        return django_render(request, "markup_test_shop.pages.product", {"name": TEA, "price": 4.5})

    def token_view(request):
        return django_render(request, "markup_test_shop.pages.token_form", {})

    def listing_view(request):
        return django_render(request, "markup_test_shop.pages:listing", {"items": "<x>"})

    def stream_view(request):
        return stream(h.Table(rows(400)), chunk_size=512)

    async def astream_view(request):
        async def late():
            await asyncio.sleep(0)
            return h.B(TEA)

        return astream(h.Div(late, h.Table(rows(10))))

    def element_view(request):
        return HttpResponse(render_bytes(h.P(TEA)))

    def jinja_view(request):
        return django_render(request, "orders.jinja", {"orders": [TEA, "<b>"]})

    urls.urlpatterns = [
        path("product", product_view),
        path("listing", listing_view),
        path("token", token_view),
        path("stream", stream_view),
        path("astream", astream_view),
        path("element", element_view),
        path("jinja", jinja_view),
    ]
    return settings


def test_django_template_backend(django_site):
    from django.template import TemplateDoesNotExist, engines
    from django.test import Client

    r = Client().get("/product")
    assert r.status_code == 200 and r["Content-Type"] == "text/html; charset=utf-8"
    html = r.content.decode()
    assert html.startswith("<!doctype html><html><head><title>Tea &amp; &lt;cake&gt; é</title>")
    assert '<input type="hidden" name="csrfmiddlewaretoken" value="' in html
    assert "<p>4.50</p><p>/product</p>" in html
    assert Client().get("/listing").content == b"<ul><li>items=&lt;x&gt;</li></ul>"
    # csrf_token is the token's text, usable as an attribute value.
    r = Client().get("/token")
    html = r.content.decode()
    assert html.startswith('<form><input type="hidden" name="csrfmiddlewaretoken" value="')
    assert len(html) > 80 and "csrftoken" in r.cookies

    engine = engines["markup"]
    for name in [
        "markup_test_shop.pages.nothing",
        "markup_test_shop.pages.not_a_template",
        "markup_test_shop.pages.getcwd",
        "markup_test_shop.pages.__class__",
        "os.getcwd",
        "admin/base.html",
    ]:
        with pytest.raises(TemplateDoesNotExist):
            engine.get_template(name)
    with pytest.raises(TemplateDoesNotExist, match="dotted path"):
        engine.from_string("<p>{{ x }}</p>")


def test_django_jinja2_backend_on_markup_jinja(django_site):
    from django.template import engines
    from django.test import Client

    import markup.jinja

    engine = engines["jinja2"]
    assert isinstance(engine.env, markup.jinja.Environment)
    assert engine.env.get_template("orders.jinja").markup_native
    html = Client().get("/jinja").content.decode()
    assert html == JINJA_ORDERS_HTML + "<i>True</i>"


def test_django_streaming(django_site):
    from django.test import AsyncClient, Client

    r = Client().get("/stream")
    assert r.streaming and r["Content-Type"] == "text/html; charset=utf-8"
    assert b"".join(r.streaming_content) == table_bytes(400)

    async def fetch():
        response = await AsyncClient().get("/astream")
        return b"".join([chunk async for chunk in response.streaming_content])

    assert asyncio.run(fetch()) == render_bytes(h.Div(h.B(TEA), h.Table(list(rows(10)))))


def markup_engine(*packages):
    from markup.django import MarkupTemplates

    return MarkupTemplates({"NAME": "m", "OPTIONS": {"packages": list(packages)}})


def assert_no_template(engine, names):
    from django.template import TemplateDoesNotExist

    for name in names:
        with pytest.raises(TemplateDoesNotExist) as info:
            engine.get_template(name)
        assert info.value.args == (name,)


@pytest.mark.parametrize(
    "options",
    [
        None,
        {},
        {"packages": None},
        {"packages": []},
        {"packages": ()},
        {"packages": "markup_test_shop.pages"},
        {"packages": [""]},
        {"packages": [".markup_test_shop"]},
        {"packages": ["markup_test_shop..pages"]},
        {"packages": [3]},
    ],
    ids=lambda options: "no OPTIONS" if options is None else repr(options),
)
def test_django_backend_requires_packages(options):
    from django.core.exceptions import ImproperlyConfigured

    from markup.django import MarkupTemplates

    params = {"NAME": "m"} if options is None else {"NAME": "m", "OPTIONS": options}
    with pytest.raises(ImproperlyConfigured, match=r"OPTIONS\['packages'\]"):
        MarkupTemplates(params)


def test_django_template_names_import_nothing_outside_packages(shop_packages, monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from markup.django import MarkupTemplates

    monkeypatch.delitem(sys.modules, "this", raising=False)
    # Without packages (the former default) any importable module was
    # imported by the name of a template: `this` prints on import.
    with pytest.raises(ImproperlyConfigured):
        MarkupTemplates({"NAME": "m"}).get_template("this.nothing")
    assert "this" not in sys.modules

    engine = markup_engine("markup_test_shop.pages")
    outside = ["this", "markup_test_outside", "markup_test_shop.pagesx"]
    assert not [m for m in outside if m in sys.modules]
    assert_no_template(
        engine,
        [
            "this.nothing",
            "this:nothing",
            "markup_test_outside.page",
            "markup_test_outside:page",
            "markup_test_shop.pagesx.page",
            "markup_test_shop.lib.helper",
            "markup_test_shop.pages.nothing.page",
            "markup_test_shop.pages.product.page",
        ],
    )
    assert not [m for m in outside if m in sys.modules]
    assert "markup_test_shop.pages.nothing" not in sys.modules


def test_django_template_must_be_defined_in_the_packages(shop_packages):
    engine = markup_engine("markup_test_shop.pages")
    # Imported by the page module from elsewhere: os.getcwd (a builtin),
    # posixpath.join (a Python function), a helper of the project's, a
    # module, and a function of a package that is not configured.
    assert_no_template(
        engine,
        [
            "markup_test_shop.pages.getcwd",
            "markup_test_shop.pages:getcwd",
            "markup_test_shop.pages.path_join",
            "markup_test_shop.pages.os",
            "markup_test_shop.pages.os.getcwd",
            "markup_test_shop.pages:os.getcwd",
            "markup_test_shop.pages.helper",
            "markup_test_shop.pages.badge",
        ],
    )
    # Re-exported from another configured package: a template.
    both = markup_engine("markup_test_shop.pages", "markup_test_shop.widgets")
    template = both.get_template("markup_test_shop.pages.badge")
    assert template.render({"text": "<b>"}) == "<span>&lt;b&gt;</span>"
    assert_no_template(both, ["markup_test_shop.pages.helper"])


def test_django_templates_are_functions(shop_packages):
    engine = markup_engine("markup_test_shop.pages")
    assert_no_template(
        engine,
        [
            "markup_test_shop.pages.Page",
            "markup_test_shop.pages.page_instance",
            "markup_test_shop.pages.partial_product",
            "markup_test_shop.pages.not_a_template",
            "markup_test_shop.pages.h",
            "markup_test_shop.pages.functools",
            "markup_test_shop.pages.account",
        ],
    )
    assert engine.get_template("markup_test_shop.pages:listing").render({"items": 1}) == (
        "<ul><li>items=1</li></ul>"
    )
    # A function made by @baked from one defined in the package.
    assert engine.get_template("markup_test_shop.pages.card").render({"title": "<t>"}) == (
        "<div>&lt;t&gt;</div>"
    )


def test_django_template_names_refuse_dunders_and_stray_dots(shop_packages):
    engine = markup_engine("markup_test_shop.pages")
    assert_no_template(
        engine,
        [
            "markup_test_shop.pages.__builtins__",
            "markup_test_shop.pages.__class__",
            "markup_test_shop.pages:__class__",
            "markup_test_shop.pages.__loader__",
            "markup_test_shop.pages.__spec__",
            "markup_test_shop.pages.__getattr__",
            "markup_test_shop.pages.__init__.product",
            "markup_test_shop.pages._draft",
            "markup_test_shop.pages..product",
            "markup_test_shop..pages.product",
            ".markup_test_shop.pages.product",
            "..markup_test_shop.pages.product",
            "markup_test_shop.pages.product.",
            "markup_test_shop.pages:",
            ":product",
            "markup_test_shop.pages:product:x",
            "markup_test_shop.pages.product ",
            "markup_test_shop/pages.product",
            "",
            ".",
        ],
    )
    # pages/__init__.py would be imported a second time under this name.
    assert "markup_test_shop.pages.__init__" not in sys.modules


def test_django_nested_package_configured_alone(shop_packages):
    engine = markup_engine("markup_test_shop.pages.account")
    profile = engine.get_template("markup_test_shop.pages.account.profile")
    assert profile.render({"user": "<ann>"}) == "<p>&lt;ann&gt;</p>"
    for name in [
        "markup_test_shop.pages.account.orders.order",
        "markup_test_shop.pages.account.orders:order",
    ]:
        assert engine.get_template(name).render({"number": 7}) == "<p>order 7</p>"
    # Its parent is not configured: neither directly nor re-exported.
    assert_no_template(
        engine,
        [
            "markup_test_shop.pages.product",
            "markup_test_shop.pages.account.parent_product",
        ],
    )


def test_django_page_module_errors_are_raised(shop_packages):
    engine = markup_engine("markup_test_shop.pages")
    with pytest.raises(ModuleNotFoundError) as info:
        engine.get_template("markup_test_shop.pages.broken.page")
    assert info.value.name == "markup_test_no_such_module"


def test_django_backend_refuses_unknown_options():
    from markup.django import MarkupTemplates

    with pytest.raises(ValueError, match="unknown OPTIONS"):
        MarkupTemplates({"NAME": "m", "OPTIONS": {"dirs": []}})


def test_glue_modules_are_not_imported_by_markup():
    import subprocess

    code = (
        "import sys, markup; "
        "print(sorted(m for m in ('flask', 'django', 'starlette', 'fastapi') if m in sys.modules))"
    )
    out = subprocess.run(
        [*conftest.PYTHON, "-c", code],
        capture_output=True,
        text=True,
        timeout=60 * conftest.TIME_SCALE,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_safestring_passes_through_responses():
    from starlette.applications import Starlette
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from markup.starlette import MarkupResponse

    async def page(request):
        return MarkupResponse(SafeString("<hr>"))

    assert TestClient(Starlette(routes=[Route("/", page)])).get("/").text == "<hr>"


# --- markup.jinja under each framework's own Jinja2 environment -------------


def test_flask_app_jinja_env_accelerated(tmp_path):
    from flask import Flask, render_template, render_template_string

    import markup.jinja

    (tmp_path / "orders.html").write_text(
        JINJA_ORDERS + "<a href='{{ url_for('orders') }}'>{{ request.path }}</a>", encoding="utf-8"
    )
    app = Flask(__name__, template_folder=str(tmp_path))
    markup.jinja.accelerate(app.jinja_env)

    @app.get("/orders")
    def orders():
        return render_template("orders.html", orders=[TEA, "<b>"])

    @app.get("/inline")
    def inline():
        return render_template_string("{{ config['TESTING'] }} {{ g.name }}")

    @app.before_request
    def name_it():
        from flask import g

        g.name = "<g>"

    app.config["TESTING"] = True
    client = app.test_client()
    assert client.get("/orders").get_data(as_text=True) == (
        JINJA_ORDERS_HTML + "<a href='/orders'>/orders</a>"
    )
    assert client.get("/inline").get_data(as_text=True) == "True &lt;g&gt;"
    with app.app_context():
        assert app.jinja_env.get_template("orders.html").markup_native


@pytest.mark.skipif(sys.version_info < (3, 9), reason="Starlette's templates")
def test_starlette_jinja2templates_accelerated(tmp_path):
    from starlette.applications import Starlette
    from starlette.routing import Route
    from starlette.templating import Jinja2Templates
    from starlette.testclient import TestClient

    import markup.jinja

    (tmp_path / "orders.html").write_text(
        JINJA_ORDERS + "<a href='{{ url_for('orders') }}'>{{ request.url.path }}</a>",
        encoding="utf-8",
    )
    templates = Jinja2Templates(directory=str(tmp_path))
    markup.jinja.accelerate(templates.env)

    async def orders(request):
        return templates.TemplateResponse(request, "orders.html", {"orders": [TEA, "<b>"]})

    app = Starlette(routes=[Route("/orders", orders, name="orders")])
    response = TestClient(app).get("/orders")
    assert response.text == JINJA_ORDERS_HTML + "<a href='http://testserver/orders'>/orders</a>"
    assert templates.env.get_template("orders.html").markup_native
