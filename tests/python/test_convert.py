"""python -m markup.convert: the printed code renders the HTML it was given,
compared after html5lib has read both (the tree a browser builds)."""

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import html5lib
import pytest

from markup import render
from markup.convert import convert

import conftest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "convert"


def tree(html, document):
    """What html5lib reads: for a document the whole of it, doctype and the
    comments around <html> included."""
    if document:
        parser = html5lib.HTMLParser(namespaceHTMLElements=False)
        parser.parse(html)
        root = parser.tree.document._element
        return b"".join(ET.tostring(node) for node in root)
    return ET.tostring(html5lib.parseFragment(html, namespaceHTMLElements=False))


def round_trip(html):
    code = convert(html)
    compile(code, "<converted>", "exec")
    namespace = {}
    exec(code, namespace)
    document = "page" in namespace
    node = namespace["page"] if document else namespace["fragment"]
    assert tree(render(node), document) == tree(html, document), code
    return code


@pytest.mark.parametrize("path", sorted(DATA.glob("*.html")), ids=lambda p: p.name)
def test_handwritten_pages_round_trip(path):
    code = round_trip(path.read_text(encoding="utf-8"))
    assert code.startswith("from markup import ")


def bench_pages():
    if not (ROOT / "bench" / "pages.py").exists():  # an sdist leaves bench/ out
        return []
    sys.path.insert(0, str(ROOT))
    try:
        from bench.contenders import markup_lib
        from bench.pages import all_pages
    finally:
        sys.path.remove(str(ROOT))
    tree_contender = markup_lib.tree_contender()
    pages = all_pages(scale_sizes=(10,))
    return [(p.key, tree_contender.renderer(p.kind)(*p.args)) for p in pages]


@pytest.mark.parametrize("key,html", bench_pages(), ids=lambda v: v if len(v) < 30 else "")
def test_benchmark_pages_round_trip(key, html):
    code = round_trip(html)
    assert "h.HtmlDocument(" in code


def test_example_pages_round_trip():
    from test_examples import load_example

    pytest.importorskip("starlette")
    pytest.importorskip("flask")
    shop = load_example("starlette_app")
    notes = load_example("flask_app")
    pages = [shop.index_page(), shop.product_page(shop.PRODUCTS[0])]
    pages.append(notes.layout("Notes", notes.search_form("tea & <cake>")))
    for page in pages:
        round_trip(str(page))


@pytest.mark.parametrize(
    "html",
    [
        "<!-- built 2026-12-01 -->\n<!DOCTYPE html><html><body>x</body></html><!-- end -->",
        "<!doctype html><title>t</title><pre>\n\nkeep the blank line</pre>",
        "<textarea>\n\nfirst line blank</textarea><listing>\nx</listing>",
        "<!--a--><!--b-->" * 40 + "<p>many comments, then a fragment</p>",
    ],
    ids=["comments-around-html", "pre-newline", "textarea-newline", "many-comments"],
)
def test_corner_cases_round_trip(html):
    round_trip(html)


def test_what_the_code_uses():
    code = convert('<p class="x">a &amp; b<!-- c --><my-el v=1></my-el><!-- <b> --></p>')
    assert code == (
        "from markup import Comment, SafeString, Tag, h\n\n"
        'fragment = h.Fragment(\n    h.P(\n        {"class": "x"},\n        "a & b",\n'
        '        Comment(" c "),\n        Tag("my-el")({"v": "1"}),\n'
        '        SafeString("<!-- <b> -->"),\n    ),\n)\n'
    )
    assert "h.LinearGradient(" in convert("<svg><linearGradient/></svg>")
    assert convert("<!doctype html><title>t</title>").startswith("from markup import h\n\npage = ")


def test_command_line(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<ul><li>tea<li>cake & more</ul>", encoding="utf-8")
    run = [*conftest.PYTHON, "-m", "markup.convert"]
    out = subprocess.run(run + [str(page)], capture_output=True, text=True, check=True)
    assert out.stdout == convert(page.read_text(encoding="utf-8"))
    piped = subprocess.run(
        run + ["-"], input="<b>x</b>", capture_output=True, text=True, check=True
    )
    assert piped.stdout == convert("<b>x</b>")
    missing = subprocess.run(run + [str(tmp_path / "nope.html")], capture_output=True, text=True)
    assert missing.returncode == 2
    assert missing.stderr.startswith("python -m markup.convert: ") and "nope.html" in missing.stderr
    assert "Traceback" not in missing.stderr
