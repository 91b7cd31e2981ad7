"""@baked and memory: reference counts around calls that succeed and fail,
leaks over many calls and decorations, collection of a baked function,
the garbage collector's state after tracing, threads sharing one baked
function, and the output buffer a call writes its page into.
"""

import gc
import sys
import threading
import tracemalloc

import pytest

from markup import SafeString, baked, h, render

from baked_pages import product_page, product_row, products

# ---------------------------------------------------------------------------
# Reference counts and leaks
# ---------------------------------------------------------------------------


def test_reference_counts_are_stable():
    f = baked(product_row)
    name = "name <x> " + "y" * 10
    price = 12.5
    rows = [h.B("a")]
    before = [sys.getrefcount(o) for o in (name, price, rows)]
    for _ in range(1000):
        f("sale", 1, name, price)
        f(cls=None, pid=2, name=rows, price=price)
    after = [sys.getrefcount(o) for o in (name, price, rows)]
    assert before == after


def test_reference_counts_stable_when_calls_fail():
    f = baked(product_row)
    bad = {"not": "renderable"}
    name = "n" * 20
    before = sys.getrefcount(bad), sys.getrefcount(name)
    for _ in range(1000):
        with pytest.raises(TypeError):
            f("c", 1, name, bad)
        with pytest.raises(TypeError):
            f("c", 1, name, price=bad, extra=name)
    assert (sys.getrefcount(bad), sys.getrefcount(name)) == before


def test_failed_calls_keep_no_references():
    fn = baked(lambda rows: h.Ul([h.Li(r["a"], r["b"]) for r in rows]))
    rows = [{"a": object(), "b": "x"} for _ in range(3)] + [{"a": "no b"}]
    counts = [sys.getrefcount(r) for r in rows]
    for _ in range(1000):
        with pytest.raises((KeyError, TypeError)):
            fn(rows)
    gc.collect()
    assert [sys.getrefcount(r) for r in rows] == counts


def test_no_leak_over_many_calls():
    row = baked(product_row)
    page = baked(product_page)
    twice = baked(lambda items: h.Div(h.Ul(items), h.Ol(items)))

    def plain(n):
        for i in range(n):
            row("sale" if i % 2 else None, i, "Tea & cake", 1.25)

    def varied(n):
        for i in range(n):
            twice(h.Li(j) for j in range(2))  # a generator listed once, read twice
            if i % 100 == 0:
                page("P", [row(None, j, "x", j) for j in range(10)])
            try:
                row("c", i, {"bad": 1}, 1)
            except TypeError:
                pass

    plain(1000)
    varied(1000)
    gc.collect()
    objects_before = len(gc.get_objects())
    varied(20_000)
    gc.collect()
    assert len(gc.get_objects()) - objects_before < 50

    tracemalloc.start()
    try:
        plain(1000)
        first, _ = tracemalloc.get_traced_memory()
        plain(100_000)
        second, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert second - first < 16 * 1024, (first, second)


def test_calls_failing_midway_allocate_nothing_that_stays():
    import tracemalloc

    fn = baked(lambda rows: h.Ul([h.Li(r["a"], [h.I(t) for t in r["tags"]], r["b"]) for r in rows]))
    rows = [{"a": "<x>", "b": 1, "tags": ["t"]}] * 3 + [{"a": "no b", "tags": ["u", "v"]}]

    def fail(n):
        for _ in range(n):
            try:
                fn(iter(rows))
            except KeyError:
                pass

    fail(1000)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        fail(100_000)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 64 * 1024, f"{grown} bytes still allocated after 100,000 failed calls"


def test_decorating_does_not_leak():
    def good(title, rows=()):
        return h.Section({"title": title}, h.Ul(rows))

    def bad(title, unused):
        return h.P(title + "!")

    def decorate(n):
        for _ in range(n):
            baked(good)("t")
            with pytest.raises(TypeError):
                baked(bad)

    decorate(200)
    gc.collect()
    tracemalloc.start()
    try:
        decorate(200)
        gc.collect()
        first, _ = tracemalloc.get_traced_memory()
        decorate(2000)
        gc.collect()
        second, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert second - first < 32 * 1024, (first, second)


def test_baked_function_is_collected():
    import weakref

    def make():
        f = baked(lambda x: h.P(x))
        f.self_ref = f  # a cycle through __dict__
        return weakref.ref(f)

    ref = make()
    gc.collect()
    assert ref() is None


def test_tracing_gives_the_collector_back():
    import gc

    assert gc.isenabled()
    baked(lambda v: h.P(v))
    assert gc.isenabled()
    gc.disable()
    try:
        baked(lambda v: h.P(v))
        assert not gc.isenabled()
    finally:
        gc.enable()


# ---------------------------------------------------------------------------
# Threads
# ---------------------------------------------------------------------------


def test_threads_share_one_baked_function():
    row = baked(product_row)
    items = products(True)
    expected = [render(product_row(None, p["id"], p["name"], p["price"])) for p in items]
    errors = []
    barrier = threading.Barrier(8)

    def worker(k):
        try:
            barrier.wait()
            for _ in range(300):
                for p, want in zip(items, expected):
                    got = row(None, p["id"], p["name"], p["price"])
                    if got != want:
                        errors.append((k, got, want))
                        return
        except Exception as exc:  # pragma: no cover - reported below
            errors.append((k, exc))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# ---------------------------------------------------------------------------
# The output buffer
# ---------------------------------------------------------------------------


def test_output_sizes_around_the_first_buffer():
    # Small outputs start in a 1 KiB stack buffer and move to the heap when
    # they outgrow it; the next call reserves from the last size. Values of
    # up to 64 bytes have room made for them escaped (5x) before the render.
    f = baked(lambda text: h.P(text))
    for n in [*range(0, 70), *range(990, 1060), 5000, 3, 1_000_000, 10, 70_000, 0]:
        text = ("a<" * n)[:n]
        assert f(text) == render(h.P(text)), n


def test_a_page_written_in_place_is_an_ordinary_safe_string():
    # A page over the size of the call's scratch space is written, from the
    # second call on, where its SafeString keeps it: it must behave as any
    # str of its text.
    fn = baked(lambda rows: h.Ul([h.Li({"data-n": r["n"]}, r["name"]) for r in rows]))
    rows = [{"n": i, "name": f"row <{i}> & more"} for i in range(200)]
    want = render(h.Ul([h.Li({"data-n": r["n"]}, r["name"]) for r in rows]))
    assert len(want) > 4096
    for _ in range(3):
        got = fn(rows)
        assert isinstance(got, SafeString)
        assert got == want and hash(got) == hash(want) and len(got) == len(want)
        assert str(got) == want and got.encode() == want.encode()
        assert got[5:40] == want[5:40] and got + "x" == want + "x"
        assert got.count("<li") == 200 and got.endswith("</ul>")
    smaller = fn(rows[:2])  # far under the size hint: the headroom is given back
    assert smaller == render(h.Ul([h.Li({"data-n": r["n"]}, r["name"]) for r in rows[:2]]))
