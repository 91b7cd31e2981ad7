"""iter_render(): a rendered page as UTF-8 bytes chunks for streaming
responses. The chunks must join to exactly render_bytes(node), each must
decode on its own (cut on character boundaries), chunk_size is validated,
and the iterator owns nothing but its buffer."""

import gc
import sys
import threading
import tracemalloc

import markupsafe
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markup import (
    Comment,
    SafeString,
    aiter_render,
    baked,
    escape,
    h,
    iter_render,
    render,
    render_bytes,
)

from conftest import HOSTILE_VALUES, value_id


@baked
def product_row(cls, rid, name, price):
    return h.Li({"class": cls, "data-id": rid}, h.Span({"class": "name"}, name), h.Span(price))


@baked
def layout(title, body):
    return h.HtmlDocument(h.Head(h.Title(title)), h.Body(h.Main(body)))


def _items(n):
    for i in range(n):
        yield h.Li({"data-i": i}, f"item {i} — «ü» 🎉")


def _rows():
    return [product_row("card", i, f"Tea № {i} & cake 中文", i * 1.5) for i in range(300)]


# (id, a function that builds the node): small and large, ASCII and
# multi-byte, h.* and baked. Built per test, since a generator child is
# consumed by one render.
TREES = [
    ("none", lambda: None),
    ("empty str", lambda: ""),
    ("ascii text", lambda: "plain text"),
    ("escaped text", lambda: "<a href='x'>&</a>"),
    ("one emoji", lambda: "🎉"),
    ("multi-byte text", lambda: "naïve café 中文 👩‍👩‍👧 " * 50),
    ("int", lambda: 12345),
    ("safestring", lambda: SafeString("<b>bold</b>")),
    ("markupsafe", lambda: markupsafe.Markup("<i>é</i>")),
    ("comment", lambda: Comment("a -- b é")),
    ("void", lambda: h.Br()),
    ("document", lambda: h.HtmlDocument(h.Head(h.Title("t")), h.Body(h.P("é")))),
    ("attrs", lambda: h.Div({"title": "ü <>"}, h.Input(disabled=True, value="🎉"))),
    ("list", lambda: [h.P(i) for i in range(100)]),
    ("generator", lambda: _items(200)),
    ("script", lambda: h.Script("var s = 'ü';")),
    ("baked row", lambda: product_row("card", 7, "Tea № 7 & cake 中文", 10.5)),
    ("baked page", lambda: layout("Products 🎉", h.Ul(_rows()))),
    ("big page", lambda: h.Div([h.Section(h.H2(f"§{i}"), h.P("é" * 1000)) for i in range(120)])),
]
CHUNK_SIZES = [1, 2, 3, 4, 5, 7, 64, 1000, 4096, 65536, 2**40]


@pytest.mark.parametrize("build", [t[1] for t in TREES], ids=[t[0] for t in TREES])
@pytest.mark.parametrize("chunk_size", CHUNK_SIZES)
def test_chunks_join_to_render_bytes(build, chunk_size):
    expected = render_bytes(build())
    node = build()
    chunks = list(iter_render(node, chunk_size=chunk_size))
    assert all(type(c) is bytes for c in chunks)
    assert b"".join(chunks) == expected
    assert all(chunks), "no empty chunks"


@pytest.mark.parametrize("build", [t[1] for t in TREES], ids=[t[0] for t in TREES])
@pytest.mark.parametrize("chunk_size", CHUNK_SIZES)
def test_each_chunk_decodes_on_its_own(build, chunk_size):
    node = build()
    for chunk in iter_render(node, chunk_size=chunk_size):
        chunk.decode("utf-8")  # raises if a character was split
        if chunk_size >= 4:
            assert len(chunk) <= chunk_size
        else:
            # Shorter than a character: the chunk is one whole character.
            assert len(chunk) <= chunk_size or len(chunk.decode("utf-8")) == 1


@pytest.mark.parametrize("chunk_size", [4, 5, 6, 7, 8, 9, 10, 13, 100])
def test_chunks_are_as_full_as_the_boundaries_allow(chunk_size):
    # Every chunk but the last is cut at most 3 bytes short (the longest
    # partial character it could have ended in).
    page = h.P("a€b🎉cé" * 200)
    chunks = list(iter_render(page, chunk_size=chunk_size))
    for chunk in chunks[:-1]:
        assert chunk_size - 3 <= len(chunk) <= chunk_size
    assert b"".join(chunks) == render_bytes(page)


def test_default_chunk_size_is_64_kib_after_a_first_chunk_of_4_kib():
    page = h.Div("x" * 200_000)
    chunks = list(iter_render(page))
    assert [len(c) for c in chunks[:-1]] == [4096] + [65536] * (len(chunks) - 2)
    assert b"".join(chunks) == render_bytes(page)
    # A chunk_size below 4 KiB applies from the first chunk on.
    assert {len(c) for c in list(iter_render(page, chunk_size=1000))[:-1]} == {1000}
    chunks = list(iter_render(page, chunk_size=10_000))
    assert [len(c) for c in chunks[:3]] == [4096, 10_000, 10_000]


def test_positional_chunk_size_and_iterator_protocol():
    it = iter_render(h.P("abc"), 3)
    assert iter(it) is it
    assert next(it) == b"<p>"
    assert next(it) == b"abc"
    assert next(it) == b"</p"
    assert next(it) == b">"
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(StopIteration):  # stays exhausted
        next(it)


def test_rendering_happens_as_chunks_are_asked_for():
    # A generator child is taken item by item, as the walk reaches it.
    taken = []

    def rows():
        for i in range(100):
            taken.append(i)
            yield h.Li("é" * 10, i)

    it = iter_render(h.Ul(rows()), chunk_size=64)
    assert taken == []
    first = next(it)
    assert first.startswith(b"<ul><li>") and 0 < len(taken) < 10
    rest = b"".join(it)
    assert taken == list(range(100))
    assert first + rest == render_bytes(h.Ul([h.Li("é" * 10, i) for i in range(100)]))


@pytest.mark.parametrize("value", HOSTILE_VALUES, ids=value_id)
def test_hostile_values_match_render(value):
    node = h.Div({"title": value}, h.P(value))
    assert b"".join(iter_render(node, chunk_size=3)).decode() == render(node)


@settings(max_examples=200, deadline=None)
@given(text=st.text(), chunk_size=st.integers(1, 40))
def test_arbitrary_text_joins_and_decodes(text, chunk_size):
    # Bare str children: a lone surrogate is found when rendering, not before.
    node = [text, h.Hr(), text]
    try:
        expected = render_bytes(node)
    except ValueError:  # lone surrogates: the same error from both
        with pytest.raises(ValueError, match="surrogate"):
            iter_render(node, chunk_size=chunk_size)
        return
    chunks = list(iter_render(node, chunk_size=chunk_size))
    assert b"".join(chunks) == expected
    assert "".join(c.decode("utf-8") for c in chunks) == expected.decode("utf-8")


# --- chunk_size validation -------------------------------------------------


@pytest.mark.parametrize("bad", [0, -1, -(2**80)])
def test_non_positive_chunk_size_is_a_value_error(bad):
    with pytest.raises(ValueError, match=r"iter_render\(\): chunk_size must be a positive"):
        iter_render(h.P("x"), chunk_size=bad)


@pytest.mark.parametrize("bad", [True, False, 1.0, "64", None, b"1", [4]])
def test_non_int_chunk_size_is_a_type_error(bad):
    with pytest.raises(TypeError, match=rf"chunk_size must be an int.*{type(bad).__name__}"):
        iter_render(h.P("x"), chunk_size=bad)


def test_index_objects_are_accepted():
    class Four:
        def __index__(self):
            return 4

    assert list(iter_render("abcdefgh", chunk_size=Four())) == [b"abcd", b"efgh"]


def test_huge_chunk_size_gives_one_chunk():
    assert list(iter_render(h.P("é" * 10), chunk_size=2**100)) == [render_bytes(h.P("é" * 10))]


def test_argument_errors():
    with pytest.raises(TypeError):
        iter_render()
    with pytest.raises(TypeError):
        iter_render(h.P(), chunk_size=4, size=4)
    with pytest.raises(TypeError):
        iter_render(node=h.P())  # node is positional-only, as in render()


# --- render errors surface at the call ---------------------------------------


class Opaque:
    pass


@pytest.mark.parametrize(
    "node, exc, message",
    [
        ([h.P("x"), Opaque()], TypeError, "cannot render an object of type 'Opaque'"),
        (h.Div(h.P("x"), (c for c in [Opaque()])), TypeError, "type 'Opaque'"),
        (iter([b"x"]), TypeError, "cannot render bytes"),
    ],
)
def test_render_errors_inside_the_page_are_raised_by_next(node, exc, message):
    it = iter_render(node)
    with pytest.raises(exc, match=message):
        next(it)
    with pytest.raises(StopIteration):  # then it stops
        next(it)


@pytest.mark.parametrize(
    "node, exc, message",
    [
        ("a\ud800b", ValueError, "surrogate"),
        (True, TypeError, "bool"),
        (b"<p>x</p>", TypeError, "cannot render bytes"),
        ({"a": 1}, TypeError, "cannot render a dict"),
        (Opaque(), TypeError, "type 'Opaque'"),
        (h.P, TypeError, "factory"),
    ],
)
def test_a_root_render_refuses_is_refused_by_the_call(node, exc, message):
    # A web view that streams a wrong object gets the error while it can
    # still answer with an error page, not after the status line went out.
    with pytest.raises(exc, match=message):
        iter_render(node)
    with pytest.raises(exc, match=message):
        aiter_render(node)


def test_a_lazy_root_is_not_taken_by_the_call():
    taken = []

    def rows():
        taken.append("started")
        yield h.P("x")

    def late():
        taken.append("called")
        return h.P("y")

    class Component:  # its __html__ may run a query: not in the view
        def __html__(self):
            taken.append("html")
            return "<i>c</i>"

    streams = [iter_render(rows()), iter_render(late), iter_render(h.Div(rows()))]
    streams += [iter_render([late]), iter_render((h.P(1), late))]
    streams += [iter_render(Component()), iter_render(h.Div(Component()))]
    assert taken == []
    assert [b"".join(s) for s in streams] == [
        b"<p>x</p>",
        b"<p>y</p>",
        b"<div><p>x</p></div>",
        b"<p>y</p>",
        b"<p>1</p><p>y</p>",
        b"<i>c</i>",
        b"<div><i>c</i></div>",
    ]
    assert taken == ["started", "called", "started", "called", "called", "html", "html"]


def test_render_errors_match_render_bytes():
    bad = [h.B("ok"), Opaque()]
    with pytest.raises(TypeError) as from_bytes:
        render_bytes(bad)
    with pytest.raises(TypeError) as from_iter:
        list(iter_render(bad))
    assert str(from_iter.value) == str(from_bytes.value)


def test_error_midway_comes_after_the_chunks_before_it():
    def rows():
        yield h.Li("a" * 30)
        yield h.Li("b" * 30)
        raise LookupError("gone")

    got = []
    with pytest.raises(LookupError, match="gone"):
        for chunk in iter_render(h.Ul(rows()), chunk_size=16):
            got.append(chunk)
    # Every whole chunk rendered before the error went out.
    rendered = b"<ul><li>" + b"a" * 30 + b"</li><li>" + b"b" * 30 + b"</li>"
    assert b"".join(got) == rendered[: len(rendered) // 16 * 16]


# --- closing the generators it walks -----------------------------------------


def _logged_rows(log, name, count, inner=0):
    try:
        for i in range(count):
            cells = [h.Td(f"{name}{i}")]
            if inner:
                cells.append(h.Td(_logged_rows(log, f"{name}{i}.", inner)))
            yield h.Tr(cells)
    finally:
        log.append(name)


def test_closing_the_stream_closes_the_generators_it_walks_innermost_first():
    log = []
    page = h.Table(_logged_rows(log, "r", 100, inner=3))  # held: they stay alive
    it = iter_render(page, chunk_size=16)
    next(it)
    next(it)
    assert log == []  # suspended, not closed
    it.close()
    assert log == ["r0.", "r"]
    assert list(it) == []


def test_a_generator_closed_by_the_stream_gets_no_more_chunks_from_it():
    got = []

    def rows():
        try:
            for i in range(100):
                yield h.Tr(h.Td(i))
        finally:
            got.append(next(it, None))  # asks the stream being closed

    page = h.Table(rows())
    it = iter_render(page, chunk_size=8)
    next(it)
    it.close()
    assert got == [None]


def test_a_failed_walk_closes_the_generators_around_the_failure():
    log = []

    def failing():
        yield h.P("x")
        raise LookupError("the database went away")

    def outer():
        try:
            yield h.Div(failing())
            yield h.P("never")
        finally:
            log.append("outer")

    page = h.Main(outer())  # held: the generator stays alive after the walk
    with pytest.raises(LookupError, match="went away"):
        list(iter_render(page, chunk_size=4))
    assert log == ["outer"]


def test_a_generator_that_fails_to_close_raises_from_close():
    log = []

    def stubborn():
        try:
            for i in range(100):
                yield h.P(i)
        finally:
            raise RuntimeError("cleanup failed")

    def outer():
        try:
            yield h.Div(stubborn())
        finally:
            log.append("outer")

    it = iter_render(h.Main(outer()), chunk_size=4)
    assert b"".join(next(it) for _ in range(10)).startswith(b"<main><div><p>0</p>")
    with pytest.raises(RuntimeError, match="cleanup failed"):
        it.close()
    assert log == ["outer"]  # closed too, though the one inside it failed


def test_a_failure_to_close_after_an_error_keeps_that_error_as_its_context():
    def failing():
        yield h.P("x")
        raise LookupError("first")

    def stubborn():
        try:
            yield h.Div(failing())
        finally:
            raise RuntimeError("cleanup failed")

    with pytest.raises(RuntimeError, match="cleanup failed") as exc:
        list(iter_render(h.Main(stubborn()), chunk_size=4))
    assert isinstance(exc.value.__context__, LookupError)


def test_other_iterators_are_not_closed():
    class Cursor:
        closed = False

        def __init__(self):
            self.rows = iter([h.P("a"), h.P("b"), h.P("c")])

        def __iter__(self):
            return self

        def __next__(self):
            return next(self.rows)

        def close(self):  # a file's or a cursor's close means more than "stop"
            self.closed = True

    cursor = Cursor()
    it = iter_render(h.Div(cursor), chunk_size=4)
    next(it)
    it.close()
    assert not cursor.closed


def test_the_iterator_type_is_not_constructible():
    with pytest.raises(TypeError):
        type(iter_render("x"))()


# --- references and memory ---------------------------------------------------


def test_iterator_holds_the_tree_until_it_ends():
    text = "shared text é " * 10
    child = h.P(text)
    node = h.Div(child, [child])
    before = (sys.getrefcount(text), sys.getrefcount(child), sys.getrefcount(node))
    it = iter_render(node, chunk_size=5)
    assert sys.getrefcount(node) == before[2] + 1  # the walk starts from it
    next(it)
    del it  # abandoned halfway
    assert (sys.getrefcount(text), sys.getrefcount(child), sys.getrefcount(node)) == before
    it = iter_render(node, chunk_size=5)
    b"".join(it)  # exhausted: released before the iterator is dropped
    assert (sys.getrefcount(text), sys.getrefcount(child), sys.getrefcount(node)) == before


def test_failed_calls_drop_their_references():
    bad = Opaque()
    size = int("100003")  # an int of its own: small ints are shared by everything
    before = (sys.getrefcount(bad), sys.getrefcount(size))
    for _ in range(100):
        with pytest.raises(TypeError):
            list(iter_render([h.P("x"), bad], chunk_size=size))
        with pytest.raises(ValueError):
            iter_render(bad, chunk_size=0)
    assert (sys.getrefcount(bad), sys.getrefcount(size)) == before


def _memory_after(fn, rounds):
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(rounds):
            fn()
        gc.collect()
        return tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "use",
    [
        pytest.param(lambda n: list(iter_render(n, chunk_size=1000)), id="exhausted"),
        pytest.param(lambda n: next(iter_render(n, chunk_size=1000)), id="abandoned"),
        pytest.param(lambda n: iter_render(n), id="never read"),
    ],
)
def test_no_memory_grows_over_many_iterators(use):
    node = h.Div([h.P("é" * 500, i) for i in range(50)])
    use(node)  # warm-up: caches, interned strings
    small = _memory_after(lambda: use(node), 20)
    large = _memory_after(lambda: use(node), 400)
    assert large - small < 64 * 1024


def test_buffer_is_released_when_the_last_chunk_is_out():
    node = h.Div("x" * 1_000_000)
    gc.collect()
    tracemalloc.start()
    try:
        it = iter_render(node, chunk_size=500_000)
        first = next(it)  # the text is one child: rendered whole
        held = tracemalloc.get_traced_memory()[0]
        for _ in it:
            pass
        after = tracemalloc.get_traced_memory()[0]
        del first
    finally:
        tracemalloc.stop()
    assert held >= 1_000_000  # the rendered text
    assert after < held - 900_000  # freed before the iterator itself is dropped
    del it


def test_threads_sharing_one_iterator_get_each_chunk_once():
    page = h.Div([h.P(f"{i} é") for i in range(5000)])
    it = iter_render(page, chunk_size=17)
    got = [[] for _ in range(4)]

    def drain(out):
        for chunk in it:
            out.append(chunk)

    threads = [threading.Thread(target=drain, args=(g,)) for g in got]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    chunks = [c for g in got for c in g]
    assert sorted(chunks) == sorted(iter_render(page, chunk_size=17))


def test_works_with_escape_and_safestring_parts():
    page = h.Div(escape("<é>"), SafeString("<hr>"), markupsafe.Markup("<br>"))
    assert b"".join(iter_render(page, chunk_size=2)) == "<div>&lt;é&gt;<hr><br></div>".encode()
