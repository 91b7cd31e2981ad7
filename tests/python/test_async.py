"""Lazy children, the streaming walker and aiter_render(): document
order, one-shot children, errors mid-stream, threads, memory."""

import asyncio
import gc
import threading
import tracemalloc

import pytest

from markup import aiter_render, h, iter_render, render, render_bytes

anyio = pytest.importorskip("anyio")


async def collect(node, chunk_size=65536):
    return b"".join([chunk async for chunk in aiter_render(node, chunk_size=chunk_size)])


def run_on(backend, coro_fn, *args):
    return anyio.run(coro_fn, *args, backend=backend)


BACKENDS = ["asyncio", "trio"]  # trio is in the dev requirements


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chunk_size", [1, 7, 64, 65536])
def test_async_children_in_document_order(backend, chunk_size):
    order = []

    async def value(name):
        order.append(name)
        await anyio.sleep(0)
        return h.B(name)

    async def items(prefix):
        for i in range(3):
            order.append(f"{prefix}{i}")
            await anyio.sleep(0)
            yield h.I(f"{prefix}{i} é")

    def sync_rows():
        for i in range(2):
            order.append(f"row{i}")
            yield h.Tr(h.Td(i))

    async def main():
        tree = h.Div(
            value("first"),
            h.Ul(items("a")),
            lambda: value("called"),  # an async function result, awaited in place
            h.Table(sync_rows()),
            [value("in-list"), h.P(items("b"))],
            "tail <",
        )
        return await collect(tree, chunk_size)

    out = run_on(backend, main)
    expected = render_bytes(
        h.Div(
            h.B("first"),
            h.Ul([h.I(f"a{i} é") for i in range(3)]),
            h.B("called"),
            h.Table([h.Tr(h.Td(i)) for i in range(2)]),
            [h.B("in-list"), h.P([h.I(f"b{i} é") for i in range(3)])],
            "tail <",
        )
    )
    assert out == expected
    assert order == ["first", "a0", "a1", "a2", "called", "row0", "row1", "in-list"] + [
        "b0",
        "b1",
        "b2",
    ]


def test_async_function_child_is_called_each_render():
    calls = []

    async def now():
        calls.append(1)
        return len(calls)

    el = h.P(now)
    assert asyncio.run(collect(el)) == b"<p>1</p>"
    assert asyncio.run(collect(el)) == b"<p>2</p>"
    with pytest.raises(TypeError, match="aiter_render"):
        render(el)  # the coroutine it made is closed: no "never awaited" warning
    assert calls == [1, 1]


def test_awaitable_and_async_iterable_are_one_shot():
    async def one():
        return "x"

    async def gen():
        yield "y"

    el = h.P(one(), gen())
    assert [c.kind for c in el.children] == ["awaitable", "async iterable"]
    assert asyncio.run(collect(el)) == b"<p>xy</p>"
    with pytest.raises(ValueError, match="already taken"):
        asyncio.run(collect(el))


def test_sync_renders_refuse_async_children_and_keep_them():
    async def agen():
        yield "a"

    el = h.Div(agen())
    with pytest.raises(TypeError, match=r"an async iterable \(async_generator\).*aiter_render"):
        render(el)
    with pytest.raises(TypeError, match="aiter_render"):
        list(iter_render(el))
    assert asyncio.run(collect(el)) == b"<div>a</div>"  # still there for aiter_render


def test_error_from_an_async_child_propagates_and_closes_the_rest():
    closed = []

    async def outer():
        try:
            for i in range(10):
                yield h.Li(i)
        finally:
            closed.append("outer")

    async def failing():
        raise LookupError("backend down")

    async def main():
        got = []
        with pytest.raises(LookupError, match="backend down"):
            async for chunk in aiter_render(h.Ul(outer(), h.Li(failing())), chunk_size=4):
                got.append(chunk)
        return got

    got = asyncio.run(main())
    assert closed == ["outer"]
    assert b"".join(got).startswith(b"<ul><li>0</li>")


def test_consumer_stopping_early_closes_async_generators():
    closed = []

    async def endless():
        try:
            i = 0
            while True:
                yield h.Li(i)
                i += 1
        finally:
            closed.append(True)

    async def main():
        stream = aiter_render(h.Ul(h.Li("x"), h.Div(endless())), chunk_size=32)
        first = await stream.__anext__()
        await stream.aclose()
        return first

    # The generator was started (two items taken) and suspended when the
    # consumer stopped.
    assert asyncio.run(main()) == b"<ul><li>x</li><div><li>0</li><li>1</li>"[:32]
    assert closed == [True]


def test_render_errors_inside_aiter_render_are_the_same():
    async def main():
        return await collect([h.P("x"), object()])

    with pytest.raises(TypeError, match="cannot render an object of type 'object'"):
        asyncio.run(main())
    with pytest.raises(ValueError, match="chunk_size must be a positive"):
        aiter_render(h.P(), chunk_size=0)


# --- lazy children and threads -----------------------------------------------


def test_two_threads_rendering_one_generator_child():
    started = threading.Event()
    release = threading.Event()

    def slow_rows():
        started.set()
        release.wait(10)
        for i in range(3):
            yield h.Li(i)

    el = h.Ul(slow_rows())
    results = {}

    def first():
        results["first"] = render(el)

    t = threading.Thread(target=first)
    t.start()
    assert started.wait(10)
    # The first thread holds the generator: the second gets the error at once.
    with pytest.raises(ValueError, match=r"^<ul>: a one-shot child .* another thread"):
        render(el)
    release.set()
    t.join()
    assert results["first"] == "<ul><li>0</li><li>1</li><li>2</li></ul>"


def test_many_threads_race_for_one_generator():
    for _ in range(50):
        el = h.Ul(h.Li(i) for i in range(200))
        outcomes = []
        barrier = threading.Barrier(4)

        def race(el, outcomes, barrier):
            barrier.wait()
            try:
                outcomes.append(render(el))
            except ValueError as exc:
                outcomes.append(type(exc))

        threads = [threading.Thread(target=race, args=(el, outcomes, barrier)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(map(str, outcomes)).count(str(ValueError)) == 3
        assert render(h.Ul([h.Li(i) for i in range(200)])) in outcomes


# --- memory ------------------------------------------------------------------


def test_a_generator_table_streams_in_bounded_memory():
    def rows(n):
        for i in range(n):
            yield h.Tr(h.Td(i), h.Td("row & more"))

    gc.collect()
    tracemalloc.start()
    try:
        total = 0
        for chunk in iter_render(h.Table(rows(200_000)), chunk_size=16384):
            total += len(chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert total > 7_000_000
    assert peak < 2_000_000  # about one chunk and a row, not the table


def test_abandoned_streams_do_not_leak():
    def rows():
        for i in range(100):
            yield h.Tr(h.Td(i))

    def abandon():
        it = iter_render(h.Table(rows()), chunk_size=32)
        next(it)

    for _ in range(1000):
        abandon()  # warm-up
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(1000):
            abandon()
        gc.collect()
        small = tracemalloc.get_traced_memory()[0]
        for _ in range(100_000):
            abandon()
        gc.collect()
        large = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert large - small < 64 * 1024


def test_abandoned_async_streams_do_not_leak():
    async def items():
        for i in range(100):
            yield h.Li(i)

    async def abandon():
        stream = aiter_render(h.Ul(items()), chunk_size=16)
        await stream.__anext__()
        await stream.aclose()

    async def many(n):
        for _ in range(n):
            await abandon()

    asyncio.run(many(500))
    gc.collect()
    tracemalloc.start()
    try:
        asyncio.run(many(500))
        gc.collect()
        small = tracemalloc.get_traced_memory()[0]
        asyncio.run(many(10_000))
        gc.collect()
        large = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert large - small < 64 * 1024


# --- the streaming walker against render_bytes, on random trees ---------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

LEAVES = st.sampled_from(["a", "é & <b>", "", 7, 2.5, None, "🍵" * 3])
TAGS = st.sampled_from(["div", "p", "ul", "li", "span", "br", "title", "svg", "table", "td"])
# How a list of children is given: as it is, as a generator, as a callable
# returning it, as an awaitable or an async generator (aiter_render only).
WRAPS = st.sampled_from(["list", "gen", "call", "await", "agen"])
MODELS = st.recursive(
    LEAVES,
    lambda inner: st.tuples(TAGS, WRAPS, st.lists(inner, max_size=4)),
    max_leaves=25,
)


def build(model, lazy, async_ok):
    """The tree for a model: with lazy children when `lazy`, else plain
    lists (the reference)."""
    if not isinstance(model, tuple):
        return model
    tag, wrap, kids = model
    if tag == "br":  # void: its children are never made (nor awaited)
        return h.Br()
    children = [build(k, lazy, async_ok) for k in kids]
    factory = getattr(h, tag.capitalize())
    if not lazy or wrap == "list":
        return factory(children)
    if wrap == "gen" or (not async_ok and wrap in ("await", "agen")):
        return factory(c for c in children)
    if wrap == "call":
        return factory(lambda: children)
    if wrap == "await":

        async def later():
            await asyncio.sleep(0)
            return children

        return factory(later())

    async def items():
        for c in children:
            await asyncio.sleep(0)
            yield c

    return factory(items())


@settings(max_examples=300, deadline=None)
@given(model=MODELS, chunk_size=st.integers(1, 300))
def test_streams_join_into_render_bytes(model, chunk_size):
    try:
        expected = render_bytes(build(model, lazy=False, async_ok=False))
    except ValueError:  # a tree the writer refuses (a title in a title...)
        with pytest.raises(ValueError):
            render_bytes(build(model, lazy=True, async_ok=False))
        return
    assert render_bytes(build(model, lazy=True, async_ok=False)) == expected
    chunks = list(iter_render(build(model, lazy=True, async_ok=False), chunk_size=chunk_size))
    assert b"".join(chunks) == expected
    assert all(0 < len(c) <= max(chunk_size, 4) for c in chunks)
    for c in chunks:
        c.decode("utf-8")
    got = asyncio.run(collect(build(model, lazy=True, async_ok=True), chunk_size))
    assert got == expected


# --- found in review: each of these once went wrong -----------------------------


def test_end_tag_of_an_element_only_the_stream_holds():
    from markup import Tag

    def gen():
        # A tag name made at run time: the stream holds the element's only
        # reference when it writes the end tag.
        yield Tag("".join(["my-", "elem"]))(iter(["y"]))

    assert b"".join(iter_render(h.Div(gen()), chunk_size=3)) == b"<div><my-elem>y</my-elem></div>"


def test_endless_nesting_ends_in_an_error_not_a_hang():
    f = lambda: f  # noqa: E731 - a callable that returns itself
    with pytest.raises(RecursionError, match="callables returning callables"):
        next(iter_render(f))
    with pytest.raises(RecursionError):
        render(f)
    loop = ["x"]
    loop.append(loop)
    with pytest.raises(RecursionError, match="lists, iterators"):
        list(iter_render(loop))
    with pytest.raises(RecursionError):
        render(loop)


def test_fragments_count_toward_the_depth_limit_when_streamed():
    node = "x"
    for _ in range(1100):
        node = h.Fragment(lambda node=node: node)
    with pytest.raises(ValueError, match="nested deeper than 1024"):
        render_bytes(node)
    with pytest.raises(ValueError, match="nested deeper than 1024"):
        list(iter_render(node))


def test_lazy_children_as_deep_as_elements_may_go():
    node = "leaf"
    for _ in range(1000):
        node = h.Div(iter([node]))
    expected = b"<div>" * 1000 + b"leaf" + b"</div>" * 1000
    assert render_bytes(node) == expected  # not a RecursionError below MAX_DEPTH


def test_lazy_children_can_be_given_again():
    from markup import pretty

    el = h.Ul(h.Li(i) for i in range(2))
    again = h.Div(*el.children)  # the same Lazy: still taken once
    assert render(again) == "<div><li>0</li><li>1</li></div>"
    with pytest.raises(ValueError, match="already taken"):
        render(el)
    # pretty() keeps a lazy child as it is (taken once, when rendered).
    assert pretty(h.Main(h.P("a"), (h.P(x) for x in "b"))) == "<main><p>a</p><p>b</p></main>"
    with pytest.raises(TypeError, match="holds raw text only"):
        h.Script(*h.P(iter(["x"])).children)


def test_a_lazy_element_built_outside_a_baked_builder_is_refused():
    from markup import baked

    calls = []
    nav = h.Nav(lambda: calls.append(1) or h.B(len(calls)))

    with pytest.raises(TypeError, match="built outside the builder holds a callable"):

        @baked
        def page(title):
            return h.Div(nav, h.H1(title))

    assert calls == []
    assert render(nav) == "<nav><b>1</b></nav>"  # untouched by the attempt


def test_async_generators_are_closed_before_an_error_reaches_the_consumer():
    log = []

    async def rows():
        try:
            yield h.Li(1)
            yield True  # a bool child: refused by the C walker
        finally:
            log.append("rows closed")

    async def main():
        try:
            async for _ in aiter_render(h.Ul(rows()), chunk_size=1):
                pass
        except TypeError as exc:
            log.append(f"error {type(exc).__name__}")
        log.append("after")

    asyncio.run(main())
    assert log == ["rows closed", "error TypeError", "after"]


def test_run_sync_moves_the_rendering_off_the_event_loop():
    ran_in = []

    def rows():
        for i in range(3):
            ran_in.append(threading.get_ident())
            yield h.Li(i)

    async def main():
        loop_thread = threading.get_ident()
        chunks = [c async for c in aiter_render(h.Ul(rows()), run_sync=asyncio.to_thread)]
        return loop_thread, b"".join(chunks)

    loop_thread, body = asyncio.run(main())
    assert body == b"<ul><li>0</li><li>1</li><li>2</li></ul>"
    assert ran_in and loop_thread not in ran_in


def test_baked_calls_take_lazy_children_of_their_values():
    from markup import baked

    @baked
    def page(title, rows):  # a template program (a loop)
        return h.Main(h.H1(title), h.Table([h.Tr(h.Td(r)) for r in rows]))

    @baked
    def frame(content):  # a per-fragment template
        return h.Div({"class": "frame"}, content)

    lazy = h.P(x for x in "ab")
    assert str(frame(lazy)) == '<div class="frame"><p>ab</p></div>'
    cells = [h.B(lambda: "c")]
    assert (
        str(page("T", cells)) == "<main><h1>T</h1><table><tr><td><b>c</b></td></tr></table></main>"
    )
