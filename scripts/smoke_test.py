"""An installed markup, checked as a user meets it: run from outside the
source tree with the package's own interpreter; it must come from VENV, be
version VERSION, and render a page (a @baked template inside a tree, JSON in
a script) byte for byte as expected.

    VENV/bin/python scripts/smoke_test.py VENV VERSION
"""

import importlib.metadata
import os
import sys

import markup
from markup import SafeString, baked, h, render, render_bytes, tojson, when

venv, version = os.path.realpath(sys.argv[1]), sys.argv[2]
core = os.path.realpath(markup._core.__file__)
assert core.startswith(venv + os.sep), f"markup._core imported from {core}, not the venv"
assert markup.__version__ == version, (markup.__version__, version)
assert importlib.metadata.version("markup-html") == version


@baked
def row(name, price, sale):
    return h.Li({"class": when(sale, "sale")}, h.Span(name), h.Span(f"{price:.2f}"))


page = h.HtmlDocument(
    h.Head(h.Title("Tea & cake")),
    h.Body(
        h.H1("Tea & cake"),
        h.Ul([row("Earl <Grey>", 3.5, True), row("Café", 4, False)]),
        h.Script(tojson({"next": "</script>"})),
    ),
)
expected = (
    "<!doctype html><html><head><title>Tea &amp; cake</title></head><body>"
    "<h1>Tea &amp; cake</h1><ul>"
    '<li class="sale"><span>Earl &lt;Grey&gt;</span><span>3.50</span></li>'
    "<li><span>Café</span><span>4.00</span></li></ul>"
    '<script>{"next": "\\u003c/script\\u003e"}</script></body></html>'
)
html = render(page)
assert html == expected, f"render gave\n{html}\nexpected\n{expected}"
assert render_bytes(page) == expected.encode("utf-8")
assert isinstance(row("a", 1, False), SafeString)
print(f"markup {markup.__version__} from {core}: page OK")
