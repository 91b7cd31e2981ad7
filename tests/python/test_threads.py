"""Eight threads render the same trees and call the same baked templates
for a few seconds; every output must equal the single-threaded one.

Some children have an __html__ that sleeps, so a thread gives up the GIL
in the middle of a render and others run while its walk is half done (on a
free-threaded build they run truly in parallel anyway). The switch interval
is made tiny for the same reason. `make asan` runs this under ASan+UBSan.
"""

import sys
import threading
import time
import traceback

from markup import Comment, SafeString, Tag, baked, h, render, render_bytes, tojson

THREADS = 8
SECONDS = 3.0


class Yielding:
    """A child whose __html__ lets other threads run mid-render."""

    def __init__(self, html):
        self.html = html

    def __html__(self):
        time.sleep(0)
        return self.html


@baked
def row(cls, rid, name, price):
    return h.Li(
        {"class": cls, "data-id": rid},
        h.Span({"class": "name"}, name),
        h.Span({"class": "price"}, price),
    )


@baked
def page(title, rows, extra):
    return h.HtmlDocument(h.Head(h.Title(title)), h.Body(h.Ul(rows), extra))


ITEMS = [(i, f'Item <{i}> & "friends" \u00e9\u4e2d\U0001f600', i * 1.25) for i in range(60)]

SHARED_TREE = h.HtmlDocument(
    h.Head(h.Title("Shared & <tree>"), h.Script("var d = ", tojson({"a": "</script>"}), ";")),
    h.Body(
        {"class": "page", "data-x": 'q"uote'},
        Comment("a -- comment <b>"),
        h.Ul(
            [
                h.Li(
                    {"data-id": i, "title": name},
                    name,
                    " ",
                    price,
                    Yielding("<i>y</i>") if i % 10 == 0 else None,
                )
                for i, name, price in ITEMS
            ]
        ),
        SafeString("<hr>"),
        Tag("my-widget")({"@click": "go()", ":value": "v"}, [["nested", ["lists"]], ("tuple",)]),
    ),
)
SHARED_ROWS = [row("card", i, name, price) for i, name, price in ITEMS]


def build_fresh():
    """Builds a new tree per call: keyword names go through the shared
    conversion cache."""
    return render(
        h.Div(
            [
                h.Input(
                    type="checkbox",
                    checked=(i % 2 == 0),
                    data_item_id=i,
                    class_="c",
                    aria_label=name,
                )
                for i, name, _ in ITEMS[:20]
            ]
        )
    )


def bake_fresh():
    """Decorates a new baked function per call."""

    @baked
    def card(title, body):
        return h.Section({"class": "card", "title": title}, h.Span(title), body)

    return card("T<itle>", [h.P("body"), Yielding("<b>y</b>")])


JOBS = {
    "render": lambda: render(SHARED_TREE),
    "render-bytes": lambda: render_bytes(SHARED_TREE),
    "html-method": lambda: str(SHARED_TREE.__html__()),
    "baked-rows": lambda: str(page("Products", [row("card", i, n, p) for i, n, p in ITEMS], None)),
    "baked-shared": lambda: str(page("Products", SHARED_ROWS, Yielding("<footer>f</footer>"))),
    "baked-tree-slot": lambda: str(page("Tree", SHARED_ROWS[:5], SHARED_TREE)),
    "build": build_fresh,
    "bake": lambda: str(bake_fresh()),
}


def test_threads_render_shared_trees_and_templates_identically():
    expected = {name: job() for name, job in JOBS.items()}
    errors = []
    mismatches = []
    runs = [dict.fromkeys(JOBS, 0) for _ in range(THREADS)]
    start = threading.Barrier(THREADS)
    deadline = []

    def worker(index):
        try:
            start.wait()
            names = list(JOBS)
            names = names[index % len(names) :] + names[: index % len(names)]
            while time.monotonic() < deadline[0]:
                for name in names:
                    out = JOBS[name]()
                    runs[index][name] += 1
                    if out != expected[name]:
                        mismatches.append((index, name, out[:200]))
        except BaseException:
            errors.append(traceback.format_exc())

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        deadline.append(time.monotonic() + SECONDS)
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60 + 20 * SECONDS)
        assert not any(t.is_alive() for t in threads), "a thread hung"
    finally:
        sys.setswitchinterval(old_interval)

    assert not errors, errors[0]
    assert not mismatches, mismatches[:3]
    for index, counts in enumerate(runs):
        assert all(n > 0 for n in counts.values()), (index, counts)
    # And once more in this thread, after all that: nothing changed.
    assert {name: job() for name, job in JOBS.items()} == expected
