"""Chromium as a second oracle of the parser-state rule: whatever markup
writes, a real browser builds from it only elements and attributes that
the tree holds.

test_parser_state.py reads markup's output with html5lib, which follows
the HTML standard of its day; Chromium follows today's (the newer parsing
of <select>, template modes) and is what readers run. Here markup renders
the shapes that broke out before and random trees from
test_parser_state's strategies; every output is read by Chromium
(browser.py: as a document with scripting off and in a <div> with
scripting on), all of them in one batch, and checked by the rule
test_parser_state applies to html5lib (htmldom.injections). Where the two
parsers build different elements from an output and either of them built
something the tree does not hold, the message says which.

MARKUP_BROWSER_EXAMPLES sets the number of random trees (`make
parser-state` draws more than `make test`).
"""

import os

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from test_parser_state import MODELS, PAY, REPORTED_BREAKOUTS

from markup import Tag, h, render

import browser
import htmldom
from htmldom import build

pytestmark = pytest.mark.skipif(browser.CHROMIUM is None, reason=browser.MISSING)

EXAMPLES = int(os.environ.get("MARKUP_BROWSER_EXAMPLES", "500"))

# From a security report: markup must refuse these or write them harmless.
FOREIGN_FORM_AND_A = {
    "svg-html-desc-html": lambda: Tag("svg")(Tag("html")(Tag("desc")(Tag("html")(), h.Style(PAY)))),
    "form-svg-form-desc-form": lambda: h.Form(
        Tag("svg")(Tag("form")(Tag("desc")(Tag("form")(), h.Style(PAY))))
    ),
    "form-math-form-mo-form": lambda: h.Form(
        Tag("math")(Tag("form")(Tag("mo")(Tag("form")(), h.Style(PAY))))
    ),
    "a-svg-a-desc-a": lambda: h.A(Tag("svg")(Tag("a")(Tag("desc")(Tag("a")(), h.Style(PAY))))),
}
SHAPES = {**REPORTED_BREAKOUTS, **FOREIGN_FORM_AND_A}

# Strings whose reading shows that the oracle reads as it says.
PROBES = [
    "<noscript><b></b></noscript>",
    PAY,
    "<template><math><mi id=t></mi></math></template>",
]


def _render(build_tree):
    """(tree, output), or (None, the ValueError that refuses the tree)."""
    try:
        tree = build_tree()
        return tree, render(tree)
    except ValueError as exc:
        return None, exc


@pytest.fixture(scope="module")
def chromium_reads():
    """Chromium's reading of each probe and each shape's output, one batch."""
    outputs = [_render(build_tree)[1] for build_tree in SHAPES.values()]
    htmls = PROBES + [html for html in outputs if isinstance(html, str)]
    return dict(zip(htmls, browser.parse_all(htmls)))


def test_the_oracle_reads_as_a_browser(chromium_reads):
    noscript = chromium_reads[PROBES[0]]
    assert ("b", []) in noscript.document  # scripting off: <noscript> holds markup
    assert noscript.fragment == [("noscript", [])]  # scripting on: raw text
    img = chromium_reads[PAY]
    assert img.fragment == [("img", [("src", "x"), ("onerror", "alert(1)")])]
    assert img.handler_ran and not chromium_reads[PROBES[0]].handler_ran
    template = chromium_reads[PROBES[2]]
    assert template.fragment == [("template", []), ("math:math", []), ("math:mi", [("id", "t")])]


def _injected(tree, html, chromium):
    """What Chromium (and html5lib, read the same way) built from `html`
    that the tree does not hold, one line each."""
    found = ["a handler ran"] if chromium.handler_ran else []
    for how, theirs, fragment, scripting in (
        ("as a document", chromium.document, False, False),
        ("in a <div>", chromium.fragment, True, True),
    ):
        ours = htmldom.html5lib_elements(html, fragment, scripting)
        in_chromium = htmldom.injections(theirs, tree)
        in_html5lib = [] if ours is None else htmldom.injections(ours, tree)
        agree = ours is None or sorted(ours) == sorted(theirs)
        note = "" if agree else " (html5lib and Chromium build different elements)"
        if in_chromium:
            found.append(f"{how}, Chromium{note}: {in_chromium}")
        if in_html5lib and not agree:
            found.append(f"{how}, html5lib{note}: {in_html5lib}")
    return found


@pytest.mark.parametrize("name", SHAPES)
def test_reported_shapes_inject_nothing_in_chromium(name, chromium_reads):
    tree, html = _render(SHAPES[name])
    if name in FOREIGN_FORM_AND_A:
        assert tree is None, f"rendered {html!r}"  # refused: the parser ignores the inner tag
    if tree is None:
        assert str(html).startswith("<"), html  # names the element
        return
    found = _injected(tree, html, chromium_reads[html])
    assert not found, f"{found}; output: {html!r}"


def _random_outputs(n):
    """(model, tree, output) of up to n random trees that markup renders."""
    out = []

    @settings(
        max_examples=n,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(MODELS)
    def draw(model):
        try:
            tree = build(model)
            out.append((model, tree, render(tree)))
        except ValueError:
            pass  # refused: nothing written

    draw()
    return out


def test_random_trees_inject_nothing_in_chromium():
    outputs = _random_outputs(EXAMPLES)
    readings = browser.parse_all(html for _, _, html in outputs)
    failures = []
    for (model, tree, html), chromium in zip(outputs, readings):
        found = _injected(tree, html, chromium)
        if found:
            failures.append(f"{model!r}\noutput: {html!r}\n{found}")
    failures.sort(key=len)
    assert not failures, f"{len(failures)} of {len(outputs)} outputs, smallest first:\n" + (
        "\n\n".join(failures[:3])
    )
