"""The example apps in examples/, driven by their frameworks' test clients.

Each page must come out of the app as exactly render_bytes() of the page the
example builds, as text/html in UTF-8, with user data escaped (read back
with html5lib). The Starlette catalog is also driven as a bare ASGI app, to
see that it really goes out in several body messages.
"""

import asyncio
import importlib.util
import sys
import warnings
from pathlib import Path

import html5lib
import pytest

from markup import h, render_bytes

import conftest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load_example(name):
    """Imports examples/<name>.py (examples/ is not a package)."""
    module_name = f"markup_examples_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # Flask and dataclasses look the module up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def parse(body):
    return html5lib.parse(body, namespaceHTMLElements=False)


def texts(doc, tag):
    return ["".join(el.itertext()) for el in doc.iter(tag)]


# --- Starlette -----------------------------------------------------------------


@pytest.fixture(scope="module")
def starlette_example():
    pytest.importorskip("starlette", reason="Starlette is not installed (requirements-dev.txt)")
    try:
        with warnings.catch_warnings():
            # Starlette < 1.10 on Python 3.10 warns about its own use of
            # deprecated anyio and httpx names when its test client is imported.
            warnings.simplefilter("ignore", DeprecationWarning)
            from starlette.testclient import TestClient
    except (ImportError, RuntimeError) as exc:  # RuntimeError: no HTTP client for it
        pytest.skip(f"Starlette's test client cannot run: {exc}")
    example = load_example("starlette_app")
    with TestClient(example.app) as client:
        yield example, client


def test_starlette_index(starlette_example):
    example, client = starlette_example
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.content == render_bytes(example.index_page())
    doc = parse(response.content)
    assert texts(doc, "title") == ["Shop"]
    assert texts(doc, "a")[2:] == [p.name for p in example.PRODUCTS]
    assert b"Tea &amp; &lt;cake&gt;" in response.content
    sold_out = [li.get("data-id") for li in doc.iter("li") if "sold-out" in li.get("class")]
    assert sold_out == [str(p.id) for p in example.PRODUCTS if not p.in_stock]


def test_starlette_product_and_not_found(starlette_example):
    example, client = starlette_example
    product = example.PRODUCTS[1]
    response = client.get(f"/products/{product.id}")
    assert response.status_code == 200
    assert response.content == render_bytes(example.product_page(product))
    assert texts(parse(response.content), "h1") == [product.name]

    missing = client.get("/products/999")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "text/html; charset=utf-8"
    assert texts(parse(missing.content), "p") == ["There is no product 999."]
    assert client.get("/products/abc").status_code == 404  # the route wants an int


def test_starlette_streamed_catalog(starlette_example):
    example, client = starlette_example
    response = client.get("/catalog")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert "content-length" not in response.headers  # streamed, not sized up front
    assert response.content == render_bytes(example.catalog_page())
    assert len(list(parse(response.content).iter("li"))) == 2000


async def _asgi_get(app, path):
    """Runs one GET through an ASGI app and returns the messages it sent."""
    sent = []
    requested = False

    async def receive():
        nonlocal requested
        if not requested:
            requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the client never disconnects

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [],
        "server": ("testserver", 80),
        "client": ("testclient", 50000),
    }
    await app(scope, receive, send)
    return sent


def test_starlette_catalog_goes_out_in_utf8_chunks(starlette_example):
    example, _ = starlette_example
    sent = asyncio.run(_asgi_get(example.app, "/catalog"))
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 200
    bodies = [m for m in sent[1:] if m["type"] == "http.response.body"]
    chunks = [m["body"] for m in bodies if m["body"]]
    assert len(chunks) > 10
    assert all(len(c) <= 16 * 1024 for c in chunks)
    for chunk in chunks:
        chunk.decode("utf-8")  # each chunk stands on its own ("€", "è", "û")
    assert b"".join(chunks) == render_bytes(example.catalog_page())
    assert bodies[-1].get("more_body", False) is False


# --- Flask ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def flask_example():
    pytest.importorskip("flask", reason="Flask is not installed (requirements-dev.txt)")
    example = load_example("flask_app")
    example.app.config["TESTING"] = True
    return example, example.app.test_client()


def test_flask_index(flask_example):
    example, client = flask_example
    response = client.get("/")
    assert response.status_code == 200
    assert response.content_type == "text/html; charset=utf-8"
    links = h.Ul([example.note_link(n) for n in example.NOTES])
    expected = example.layout("Notes", h.Section(example.search_form(""), links))
    assert response.data == render_bytes(expected)
    assert texts(parse(response.data), "li") == [n.title for n in example.NOTES]


def test_flask_search_escapes_the_query(flask_example):
    example, client = flask_example
    query = "\"><script>alert('x')</script> & é"
    response = client.get("/", query_string={"q": query})
    assert response.status_code == 200
    assert b"<script>" not in response.data
    doc = parse(response.data)
    (search,) = list(doc.iter("input"))
    assert search.get("value") == query  # the browser reads back exactly what was typed
    assert list(doc.iter("script")) == []
    assert texts(doc, "p") == ["No notes match."]

    response = client.get("/", query_string={"q": "BISCUITS"})
    assert texts(parse(response.data), "li") == ["Shopping"]


def test_flask_note_and_not_found(flask_example):
    example, client = flask_example
    note = example.NOTES[0]
    response = client.get(f"/notes/{note.id}")
    assert response.status_code == 200
    assert texts(parse(response.data), "p") == [note.body]
    assert b"Tea, milk &amp; &lt;biscuits&gt;" in response.data

    missing = client.get("/notes/42")
    assert missing.status_code == 404
    assert missing.content_type == "text/html; charset=utf-8"
    assert texts(parse(missing.data), "p") == ["There is no note 42."]


def test_flask_feed_streams(flask_example):
    example, client = flask_example
    response = client.get("/feed", query_string={"n": "300"})
    assert response.is_streamed
    assert response.content_type == "text/html; charset=utf-8"
    expected = render_bytes(h.Main(list(example.all_notes(300))))
    assert response.get_data() == expected
    assert len(list(parse(response.data).iter("article"))) == 300


# --- FastAPI -------------------------------------------------------------------


@pytest.fixture(scope="module")
def fastapi_example():
    pytest.importorskip("fastapi", reason="FastAPI is not installed (requirements-dev.txt)")
    from fastapi.testclient import TestClient

    example = load_example("fastapi_app")
    with TestClient(example.app) as client:
        yield example, client


def test_fastapi_pages(fastapi_example):
    example, client = fastapi_example
    response = client.get("/")
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.content == render_bytes(example.index())
    assert texts(parse(response.content), "a") == list(example.STOCK)
    response = client.get("/items/crème-brûlée")
    assert texts(parse(response.content), "p") == ["3 in stock"]
    response = client.get("/items/<b>")
    assert response.status_code == 404
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert b"<b>" not in response.content
    assert texts(parse(response.content), "p") == ["No item <b>."]


def test_fastapi_live_page_awaits_in_place(fastapi_example):
    from markup import aiter_render

    example, client = fastapi_example
    response = client.get("/live")
    assert response.headers["content-type"] == "text/html; charset=utf-8"

    async def expected():
        return b"".join([c async for c in aiter_render(example.live_page())])

    assert response.content == asyncio.run(expected())
    doc = parse(response.content)
    assert texts(doc, "li") == [f"{k}: {v}" for k, v in example.STOCK.items()]
    assert texts(doc, "p") == ["Stock levels, as they come in:"]


# --- Django (in a process of its own: Django's settings are global) -----------

_DJANGO_CHECK = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("django_app", sys.argv[1])
app = importlib.util.module_from_spec(spec)
sys.modules["django_app"] = app
spec.loader.exec_module(app)
import django
django.setup()
from django.test import Client
from markup import h, render_bytes
import html5lib

client = Client()
r = client.get("/")
assert r.status_code == 200 and r["Content-Type"] == "text/html; charset=utf-8", r
doc = html5lib.parse(r.content, namespaceHTMLElements=False)
assert ["".join(li.itertext()) for li in doc.iter("li")] == [
    "Tea & <Sympathy> (1953)", "The Book of Tea (1906)"]
(token,) = [i for i in doc.iter("input") if i.get("name") == "csrfmiddlewaretoken"]
assert len(token.get("value")) > 20

r = client.get("/report?n=250")
assert r.streaming
body = b"".join(r.streaming_content)
header = h.Tr(h.Th("#"), h.Th("Title"), h.Th("Year"))
assert body == render_bytes(h.Table(header, list(app.report_rows(250))))
print("ok")
"""


def test_django_example():
    pytest.importorskip("django", reason="Django is not installed (requirements-dev.txt)")
    import subprocess

    proc = subprocess.run(
        [*conftest.PYTHON, "-c", _DJANGO_CHECK, str(EXAMPLES / "django_app.py")],
        capture_output=True,
        text=True,
        timeout=120 * conftest.TIME_SCALE,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


# --- A blog written as a Jinja2 user thinks ----------------------------------


def dom(html):
    """The page's tree as nested tuples: tags, attributes and texts with
    the template's indentation and line breaks read as single spaces."""

    def words(text):
        return " ".join((text or "").split())

    def node(el):
        children = []
        if words(el.text):
            children.append(words(el.text))
        for child in el:
            children.append(node(child))
            if words(child.tail):
                children.append(words(child.tail))
        return (el.tag, sorted(el.attrib.items()), children)

    return node(parse(html))


BLOG_DATA = [
    ("admin, three posts", lambda b: (b.SITE, {"is_admin": True}, b.POSTS, 1)),
    ("no user, no posts", lambda b: ({"name": "Empty", "footer": "f & g"}, None, [], 2)),
    ("a user who is not admin", lambda b: (b.SITE, {"is_admin": False}, b.POSTS[1:], 3)),
    ("a user without the field", lambda b: ({"name": "<x>", "footer": ""}, {}, b.POSTS[:1], 1)),
]


@pytest.mark.parametrize("make", [m for _, m in BLOG_DATA], ids=[i for i, _ in BLOG_DATA])
def test_blog_page_has_the_dom_of_its_jinja2_template(make):
    import jinja2

    blog = load_example("blog")
    site, user, posts, page = make(blog)
    want = jinja2.Environment(autoescape=True).from_string(blog.TEMPLATE)
    want = want.render(site=site, user=user, posts=posts, page=page)
    got = blog.front_page(site, user, posts, page)
    assert dom(got) == dom(want)
    # The same template through markup.jinja: the same bytes, natively.
    import markup.jinja

    fast = markup.jinja.Environment(autoescape=True).from_string(blog.TEMPLATE)
    assert fast.markup_native, fast.markup_reason
    assert fast.render(site=site, user=user, posts=posts, page=page) == want


def test_blog_page_escapes_what_its_data_holds():
    blog = load_example("blog")
    doc = parse(blog.front_page(blog.SITE, None, blog.POSTS, 1))
    assert texts(doc, "h2")[0] == "Brewing <green> tea"
    assert "Code <C>" in texts(doc, "a")
    assert [el.get("required") for el in doc.iter("input")] == [""]
