"""Reference counts and memory around calls that raise (and some that
don't): every error path must drop what it took. Each case is checked two
ways: sys.getrefcount of the arguments before and after, and the total
(sys.gettotalrefcount on debug builds; otherwise GC-tracked object counts
and tracemalloc, which settle after a warm-up)."""

import gc
import itertools
import sys
import tracemalloc

import markupsafe
import pytest

from markup import Comment, SafeString, Tag, escape, h, render, render_bytes


class Opaque:
    pass


class BadHtml:
    def __html__(self):
        raise RuntimeError("boom")


class Fragile(SafeString):
    """A SafeString subclass whose constructor refuses upper-case text."""

    def __init__(self, text=""):
        if any(c.isupper() for c in text) or text == "text":
            raise ValueError("no")


def _gen_then_fail(item):
    yield item
    raise KeyError("stop")


# (id, args that must not leak, call that raises, expected exception)
def cases():
    text = "text " * 20
    big_attrs = {f"a{i}": str(i) for i in range(40)}
    return [
        ("mapping after child", [text], lambda a: h.Div(a[0], {"class": "x"}), TypeError),
        ("duplicate attr", [text], lambda a: h.Div({"class": a[0]}, class_=a[0]), ValueError),
        ("duplicate among many", [big_attrs], lambda a: h.Div(a[0], {"a39": "x"}), ValueError),
        ("bad attr value", [[1, 2]], lambda a: h.Div({"class": a[0]}), TypeError),
        ("bad attr name", [text], lambda a: h.Div({"a b": a[0]}), ValueError),
        ("bool child", [text], lambda a: h.P(a[0], h.B(a[0]), True), TypeError),
        ("object child", [Opaque()], lambda a: h.P("x", [h.I(), a[0]]), TypeError),
        ("void child", [text], lambda a: h.Br(a[0]), TypeError),
        ("raw breakout", [text + "</script>"], lambda a: h.Script(a[0]), ValueError),
        ("element in raw", [h.B("x")], lambda a: h.Style(a[0]), TypeError),
        ("surrogate", ["a\ud800" + text], lambda a: h.P(a[0]), ValueError),
        ("generator fails", [h.Li("x")], lambda a: render(h.Ul(_gen_then_fail(a[0]))), KeyError),
        ("bad kw name", [text], lambda a: h.P(**{"a=b": a[0]}), ValueError),
        ("html raises", [BadHtml()], lambda a: render(h.P(h.I("x"), a[0])), RuntimeError),
        ("render unknown", [Opaque()], lambda a: render([h.P("x"), a[0]]), TypeError),
        ("render_bytes unknown", [Opaque()], lambda a: render_bytes([a[0]]), TypeError),
        ("too deep", [None], lambda a: render(_deep(1100)), ValueError),
        ("bad tag name", ["no good"], lambda a: Tag(a[0]), ValueError),
        ("comment type", [b"x"], lambda a: Comment(a[0]), TypeError),
        ("safe add", [Opaque()], lambda a: SafeString("x") + a[0], TypeError),
        ("escape html raises", [BadHtml()], lambda a: escape(a[0]), RuntimeError),
        # SafeString's str methods: escaping an argument, the str method
        # itself, or building the result (a subclass constructor) fails.
        (
            "safe join html raises",
            [BadHtml()],
            lambda a: SafeString(",").join(["x", a[0]]),
            RuntimeError,
        ),
        ("safe join not iterable", [Opaque()], lambda a: SafeString(",").join(a[0]), TypeError),
        (
            "safe format html raises",
            [BadHtml()],
            lambda a: SafeString("{}{}").format(text, a[0]),
            RuntimeError,
        ),
        ("safe format index", [text], lambda a: SafeString("{0}{1}").format(a[0]), IndexError),
        (
            "safe format spec",
            [SafeString("x")],
            lambda a: SafeString("{:>3}").format(a[0]),
            ValueError,
        ),
        (
            "safe format item",
            [{"a": text}],
            lambda a: SafeString("<{0[b]}>").format(a[0]),
            KeyError,
        ),
        (
            "safe format nested",
            [text],
            lambda a: SafeString("{0:{1:{2}}}").format(a[0], 1, 2),
            ValueError,
        ),
        (
            "safe format_map key",
            [{"a": text}],
            lambda a: SafeString("{a}{b}").format_map(a[0]),
            KeyError,
        ),
        (
            "safe mod html raises",
            [BadHtml()],
            lambda a: SafeString("%s %s") % (text, a[0]),
            RuntimeError,
        ),
        (
            "safe mod mapping",
            [{"k": BadHtml()}],
            lambda a: SafeString("%(k)s") % a[0],
            RuntimeError,
        ),
        ("safe mod count", [text], lambda a: SafeString("%s %s") % (a[0],), TypeError),
        ("safe mod number", [Opaque()], lambda a: SafeString("%d") % a[0], TypeError),
        (
            "safe replace html raises",
            [BadHtml()],
            lambda a: SafeString("x").replace("x", a[0]),
            RuntimeError,
        ),
        ("safe center fill", ["<"], lambda a: SafeString("x").center(9, a[0]), TypeError),
        ("safe split sep", [3], lambda a: SafeString("x y").split(a[0]), TypeError),
        ("safe partition empty", [""], lambda a: SafeString("x").partition(a[0]), ValueError),
        ("safe index", [10], lambda a: SafeString("x")[a[0]], IndexError),
        ("safe mul", [2.5], lambda a: SafeString("x") * a[0], TypeError),
        ("safe subclass result", [Fragile(text)], lambda a: a[0].upper(), ValueError),
        ("safe subclass split", [Fragile("a " + text)], lambda a: a[0].split(), ValueError),
        ("safe escape classmethod", [BadHtml()], lambda a: SafeString.escape(a[0]), RuntimeError),
    ]


def _deep(n):
    node = h.I()
    for _ in range(n):
        node = h.I(node)
    return node


CASES = cases()


@pytest.mark.parametrize("name,args,call,exc", CASES, ids=[c[0] for c in CASES])
def test_raising_call_keeps_argument_refcounts(name, args, call, exc):
    before = [sys.getrefcount(a) for a in args]
    for _ in range(10):
        with pytest.raises(exc):
            call(args)
    gc.collect()
    assert [sys.getrefcount(a) for a in args] == before


def _settled_growth(fn, rounds=300):
    """Runs fn until warm, then reports how many GC-tracked objects and
    traced bytes remain after `rounds` more calls."""
    for _ in range(20):
        fn()
    gc.collect()
    total = getattr(sys, "gettotalrefcount", None)
    refs0 = total() if total else 0
    objects0 = len(gc.get_objects())
    tracemalloc.start()
    try:
        # One traced window first: caches that fill once (type attribute
        # cache, free lists) grow there; a leak grows in every window.
        for _ in range(rounds):
            fn()
        gc.collect()
        mem0, _ = tracemalloc.get_traced_memory()
        for _ in range(rounds):
            fn()
        gc.collect()
        mem1, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    refs1 = total() if total else 0
    return refs1 - refs0, len(gc.get_objects()) - objects0, mem1 - mem0


@pytest.mark.parametrize("name,args,call,exc", CASES, ids=[c[0] for c in CASES])
def test_raising_call_does_not_leak(name, args, call, exc):
    def once():
        try:
            call(args)
        except exc:
            pass
        else:
            raise AssertionError("expected an exception")

    refs, objects, mem = _settled_growth(once)
    assert refs < 50
    assert objects < 10
    # A leak of even one small object per call would show 300 * 30 bytes.
    assert mem < 4000


def test_successful_build_and_render_do_not_leak():
    rows = [{"id": i, "name": f"row <{i}> é"} for i in range(20)]

    def once():
        tree = h.Ul(
            {"class": "x"},
            [
                h.Li({"data-id": r["id"], "hidden": False}, r["name"], SafeString("<b>"))
                for r in rows
            ],
            Comment("c"),
        )
        render(tree)
        render_bytes(tree)
        tree.__html__()
        escape(rows[0]["name"])

    refs, objects, mem = _settled_growth(once, rounds=200)
    assert refs < 50
    assert objects < 10
    assert mem < 4000


def test_format_attribute_fields_keep_refcounts():
    # Apart from the raising cases above: "{0.name}" parses a new name string
    # per call, which CPython's type attribute cache keeps (up to 4096 of
    # them), so only reference counts are checked here.
    obj = Opaque()
    before = sys.getrefcount(obj)
    for _ in range(10):
        with pytest.raises(AttributeError):
            SafeString("<{0.missing}>").format(obj)
        assert SafeString("{0.__class__.__name__}").format(obj) == "Opaque"
    gc.collect()
    assert sys.getrefcount(obj) == before


def test_safestring_methods_do_not_leak():
    safe = SafeString("<p>%s & {}</p>\n <b>é</b> &amp; ")
    sub = Fragile("<i>x</i> y")
    marked = markupsafe.Markup("<u>")

    def once():
        safe % "<"
        safe % ("<",)
        SafeString("%(a)s%(b)r") % {"a": marked, "b": "<"}
        safe.format("<")
        # (no "{0.attr}" here: each call parses a new name string, and
        # CPython's type attribute cache keeps up to 4096 of them)
        SafeString("{0!r:>9}{x[k]}").format(3, x={"k": "<"})
        SafeString("{a}").format_map({"a": marked})
        safe.join(["<", marked, 3, sub])
        safe.replace("p", "<")
        safe.center(80, "-")
        safe.strip().upper().title()
        safe.split()
        safe.splitlines(True)
        safe.partition("&")
        sub.split()
        safe[1:5] + safe[0] + "<" + 2 * safe
        safe.striptags()
        safe.unescape()
        SafeString.escape("<")
        Fragile.escape("<")

    # Enough rounds that the first calls' cache fills (re in html.unescape,
    # str's format machinery) are noise: leaking one object per call would
    # show 2000 * 30 bytes.
    refs, objects, mem = _settled_growth(once, rounds=2000)
    assert refs < 50
    assert objects < 10
    assert mem < 4000


def test_kwname_cache_is_bounded():
    # Unbounded **kwargs names must not grow memory forever.
    names = itertools.count()

    def once():
        h.P(**{f"k{next(names)}": 1})

    for _ in range(5000):  # fill the cache to its bound
        once()
    _, objects, mem = _settled_growth(once, rounds=2000)
    assert mem < 20000


def test_safestrings_give_back_their_type_and_memory():
    """A SafeString, escaped text adopted into one, and instances of Python
    subclasses (with a __dict__, weak references and a finalizer) each drop
    the reference they hold to their type, and their memory, when freed."""
    finalized = []

    class WithDict(SafeString):
        pass

    class Slotted(SafeString):
        __slots__ = ()

    class Finalized(SafeString):
        def __del__(self):
            finalized.append(1)

    import weakref

    types = (SafeString, WithDict, Slotted, Finalized)

    def churn(rounds):
        for i in range(rounds):
            a = SafeString("x" * (i % 40))
            b = WithDict("<b>")
            b.note = a
            ref = weakref.ref(b)
            c = Slotted("c")
            d = Finalized("d")
            e = escape("<" * (i % 2000))  # long text: characters in a block of their own
            f = a + "<"
            del a, b, c, d, e, f
            assert ref() is None

    churn(200)
    gc.collect()
    before = [sys.getrefcount(t) for t in types]
    tracemalloc.start()
    churn(2000)
    gc.collect()
    snapshot_a = tracemalloc.take_snapshot()
    churn(2000)
    gc.collect()
    snapshot_b = tracemalloc.take_snapshot()
    tracemalloc.stop()
    assert [sys.getrefcount(t) for t in types] == before
    assert len(finalized) == 4200
    grown = sum(stat.size_diff for stat in snapshot_b.compare_to(snapshot_a, "filename"))
    assert grown < 64 * 1024
