"""Leak test: a million renders of a small tree, a million baked calls, a
million calls of a looped template that fail midway (and as many that
succeed), a hundred thousand of each other failing path, and a hundred
thousand markup.jinja renders (three each, one failing) grow the resident
set by less than 5 MB.

It runs in a fresh interpreter, so that memory freed by earlier tests
cannot hide a leak (a leaking allocation would reuse it without growing
the resident set), and reads /proc/self/statm after a warm-up, once the
allocator's pools have settled. Under ASan the allocator holds freed
memory in a quarantine, which is switched off for this process.
"""

import json
import os
import subprocess
import textwrap

import conftest

LIMIT = 5 * 1024 * 1024
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")
# A fifth under an emulated CPU (make cross-pytest), where a million took
# four of the suite's eleven minutes: the binding's allocations, where a
# leak would be, are the same on every CPU, and every native run (each
# CPython, the wheels, ASan) still makes the million.
ITERATIONS = 1_000_000 if conftest.TIME_SCALE <= 1 else 200_000

SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    from markup import (Comment, SafeString, baked, h, iter_render, looped, render,
                        render_bytes, when)

    PAGE = os.sysconf("SC_PAGE_SIZE")

    def resident():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * PAGE

    @baked
    def row(cls, rid, name, extra):
        return h.Li({"class": cls, "data-id": rid}, h.Span({"class": "name"}, name), extra)

    @baked
    def table(rows, title):
        return h.Table(h.Caption(f"Table {title}"),
                       [h.Tr({"class": loop.cycle("a", "b")}, h.Td(r["name"]),
                             h.Td(f"{r['price']:.2f}"), when(loop.last, h.Td("end")),
                             h.Td([h.I(t) for t in r["tags"]]))
                        for r, loop in looped(rows)])

    GOOD = [{"name": "Tea & <cake>", "price": 2.5, "tags": ["a", "b"]}] * 3
    BAD = GOOD + [{"name": "no price", "tags": []}] + GOOD

    def call_template(i):
        table(GOOD, i)
        try:  # fails on the fourth row, with the loop and its items open
            table(BAD, i)
        except KeyError:
            pass
        else:
            raise AssertionError("expected KeyError")

    def render_small_tree(i):
        render(h.Div({"class": "card", "data-i": i}, h.Span("Tea & <cake>"), i,
                     [h.B("x"), None, SafeString("<hr>")], Comment("c")))
        # Class lists and style mappings, joined when built; a fragment.
        str(h.Fragment(h.P(class_=["a", None, {"on": i % 2}], style={"top": i}), "x"))

    def call_baked(i):
        row("card", i, "Tea & <cake> \\u00e9", h.Em(i))

    def raising_items():
        yield "a"
        raise KeyError("midway")

    def failing_paths(i):
        for call in (
            lambda: render(["ok", "\\ud800"]),          # lone surrogate at render
            lambda: h.Div({"a b": i}),                  # refused attribute name
            lambda: render(h.Div(raising_items())),     # generator raising while rendered
            lambda: b"".join(iter_render(h.Div(raising_items()))),  # ... while streamed
            lambda: row("c", i, "\\udc00", None),       # bad value in a baked slot
            lambda: row("c", i, raising_items(), None), # generator raising in a slot
            lambda: render(h.P(object())),              # unrenderable child
            lambda: h.P(class_=["a", object()]),        # refused class list item
            lambda: h.Fragment({"id": i}),              # attributes on a fragment
        ):
            try:
                call()
            except (ValueError, TypeError, KeyError):
                pass
            else:
                raise AssertionError("expected an error")

    import jinja2, markup.jinja
    JINJA = markup.jinja.Environment(autoescape=True, loader=jinja2.DictLoader({
        "base.html": "<ul>{% block rows %}{% endblock %}</ul>{{ '<x>' if none else title }}",
        "page.html": "{% extends 'base.html' %}"
                     "{% macro box(t) %}<b>{{ t }}{{ caller(t) }}</b>{% endmacro %}"
                     "{% block rows %}{% set n = namespace(t=0) %}{% set all %}"
                     "{% for k, v in rows %}{% set label = k|upper %}"
                     "<li class='{{ loop.cycle('a', 'b') }}'>{{ label }} {{ v.x }}"
                     " {{ loop.length }}{{ loop.previtem }}{% set n.t = n.t + 1 %}"
                     "{% call(t) box(k) %}{% filter upper %}{{ t }}{% endfilter %}{% endcall %}"
                     "</li>{% else %}none{% endfor %}{% endset %}{{ all }}{{ n.t }}{% endblock %}",
    }))
    PAGE_T = JINJA.get_template("page.html")
    assert PAGE_T.markup_native, PAGE_T.markup_reason
    ROWS = [("tea & <cake>", {"x": 1.5}), ("\u00e9", {"x": None})] * 3

    def call_jinja(i):
        PAGE_T.render(rows=ROWS, title=i)
        PAGE_T.render(rows=iter(ROWS), none=i)
        try:  # fails midway: an item that does not unpack
            PAGE_T.render(rows=ROWS + [(1, 2, 3)] + ROWS)
        except ValueError:
            pass
        else:
            raise AssertionError("expected ValueError")

    results = {}
    for name, step, n in (("tree", render_small_tree, N), ("baked", call_baked, N),
                          ("template", call_template, N), ("errors", failing_paths, N // 10),
                          ("jinja", call_jinja, N // 10)):
        for i in range(n // 10):  # warm-up: pools, caches, the size hint
            step(i)
        before = resident()
        for i in range(n):
            step(i)
        results[name] = resident() - before
    print(json.dumps(results))
    """
)


def test_a_million_renders_do_not_grow_memory():
    env = dict(os.environ)
    if UNDER_ASAN:
        env["ASAN_OPTIONS"] = ",".join(
            filter(None, [env.get("ASAN_OPTIONS", ""), "quarantine_size_mb=0", "detect_leaks=0"])
        )
    proc = subprocess.run(
        [*conftest.PYTHON, "-c", f"N = {ITERATIONS}\n" + SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=600 * conftest.TIME_SCALE,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    growth = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(growth) == {"tree", "baked", "template", "errors", "jinja"}
    for phase, grown in growth.items():
        assert grown < LIMIT, f"{phase}: resident set grew by {grown / 1024 / 1024:.1f} MB"


# ---- the cycle collector ------------------------------------------------------
# Elements of text, numbers, None, comments and untracked elements cannot be in
# a cycle and are left untracked (as tuples of atoms are); anything else keeps
# the element tracked, so cycles through __html__ objects are still collected.


def test_elements_of_atoms_are_not_tracked():
    import gc

    from markup import Comment, SafeString, h

    leaf = h.P(
        {"class": "c", "data-n": 3, "hidden": True, "title": None},
        "x",
        1,
        2.5,
        None,
        SafeString("<b>"),
        Comment("c"),
    )
    assert not gc.is_tracked(leaf)
    assert not gc.is_tracked(h.Div(leaf, [h.I("i"), h.Br()]))


def test_cycle_through_an_html_object_is_collected():
    import gc
    import weakref

    from markup import h

    class Holder:
        def __html__(self):
            return "<i>held</i>"

    holder = Holder()
    inner = h.Span(holder)
    outer = h.Div(inner)  # tracked too: it holds a tracked element
    assert gc.is_tracked(inner) and gc.is_tracked(outer)
    holder.keep = outer  # holder -> outer -> inner -> holder
    gone = weakref.ref(holder)
    del holder, inner, outer
    gc.collect()
    assert gone() is None


def test_attribute_value_objects_keep_the_element_tracked():
    import gc

    from markup import h

    class Lazy:
        def __html__(self):
            return "v"

    assert gc.is_tracked(h.A({"href": Lazy()}, "x"))
