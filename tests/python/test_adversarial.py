"""Hostile and broken input, one test each, each under a time limit: deep
nesting, huge strings, huge fan-out, huge templates, callbacks that raise
or lie, containers mutated mid-render, every refused attribute-name
character, lone surrogates and non-str attribute keys. Each must end in
correct output or a clean, specific exception: never a crash, a hang, a
leak or silently wrong bytes.
"""

import collections.abc
import contextlib
import faulthandler
import gc
import os
import signal
import sys
import time
import tracemalloc

import pytest

from markup import MAX_DEPTH, Comment, SafeString, Tag, baked, escape, h, render, render_bytes

import conftest

# Sanitizer builds and emulated CPUs (conftest.TIME_SCALE) run several
# times slower; the limits are about hangs and quadratic blow-ups, not speed.
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")
TIME_SCALE = (10 if UNDER_ASAN else 1) * conftest.TIME_SCALE


@contextlib.contextmanager
def time_limit(seconds):
    """Fails the block when it runs longer than `seconds` (scaled under
    ASan and emulation). SIGALRM interrupts Python code; a block stuck in
    C, where no signal handler runs, is ended by faulthandler with every
    thread's traceback."""
    limit = seconds * TIME_SCALE

    def expired(signum, frame):
        raise TimeoutError(f"still running after {limit} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, limit)
    faulthandler.dump_traceback_later(2 * limit + 10, exit=True)
    start = time.perf_counter()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        faulthandler.cancel_dump_traceback_later()
    elapsed = time.perf_counter() - start
    assert elapsed <= limit, f"took {elapsed:.1f} s, limit {limit} s"


@baked
def child_slot(x):
    return h.Div(x)


@baked
def attr_slot(x):
    return h.Div({"title": x})


@baked
def two_child_slots(x):
    return h.Div(h.P(x), h.P(x))


# --- deep nesting ---------------------------------------------------------


def test_elements_nested_100000_deep():
    with time_limit(20):
        node = h.Div("leaf")
        for _ in range(100_000):
            node = h.Div(node)
        for call in (render, render_bytes, lambda n: n.__html__(), child_slot):
            with pytest.raises(ValueError, match=rf"<div>.*nested deeper than {MAX_DEPTH}"):
                call(node)
        with pytest.raises(ValueError, match="nested deeper"):
            baked(lambda: node)
        node = None  # freeing walks 100,000 levels too, without recursion


def test_deep_tree_is_freed_on_a_small_thread_stack():
    # Freeing may not recurse once per level: a thread with a 1 MiB stack
    # frees a tree 100,000 levels deep. (CPython 3.13's own trashcan lets
    # thousands of frees nest, more than 256 KiB holds.)
    import threading

    done = []

    def build_and_free():
        node = h.Div("leaf")
        for _ in range(100_000):
            node = h.Div(node)
        del node
        done.append(True)

    old = threading.stack_size(1024 * 1024)
    try:
        worker = threading.Thread(target=build_and_free)
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old)
    assert done == [True]


# Renders that nest through Python code without end: each level costs C
# stack in markup and in the interpreter, which the recursion limit does not
# measure. Run in a child process, so that a crash fails the test.
_ENDLESS_RENDERS = r"""
import sys, threading
from markup import SafeString, baked, escape, h, iter_render, render

@baked
def box(x):
    return h.Div(x)

@baked
def twice(x):
    return h.Div(h.P(x), h.P(x))

class ViaBaked:
    def __html__(self): return box(ViaBaked())
class ViaRender:
    def __html__(self): return render(h.Div(ViaRender()))
class ViaAttr:
    def __html__(self): return render(h.A(title=ViaAttr()))
class ViaFormat:
    def __html__(self): return SafeString("<b>{}</b>").format(ViaFormat())
class ViaPercent:
    def __html__(self): return SafeString("<b>%s</b>") % ViaPercent()
class ViaEscape:
    def __html__(self): return escape(ViaEscape())
class ViaStream:
    def __html__(self): return b"".join(iter_render(h.P(ViaStream()))).decode()
class StrSub(str):
    def __str__(self): return str(box(StrSub("x")))
class IntSub(int):
    def __str__(self): return str(box(IntSub(3)))
def baked_gen():
    yield twice(baked_gen())
def element_gen():
    yield h.Div(element_gen())

CASES = {
    "baked": lambda: box(ViaBaked()),
    "render": lambda: render(h.Div(ViaRender())),
    "attribute": lambda: render(h.A(title=ViaAttr())),
    "format": lambda: ViaFormat().__html__(),
    "percent": lambda: ViaPercent().__html__(),
    "escape": lambda: escape(ViaEscape()),
    "iter_render": lambda: list(iter_render(h.P(ViaStream()))),
    "str subclass": lambda: render(h.P(StrSub("x"))),
    "int subclass": lambda: render(h.P(IntSub(3))),
    "baked iterator": lambda: twice(baked_gen()),
    "element iterator": lambda: render(h.Div(element_gen())),  # taken when rendered
}

def run(name):
    try:
        CASES[name]()
        return "no error"
    except ValueError as exc:  # the MAX_DEPTH guard can come first
        return "RecursionError" if "nested deeper than" in str(exc) else repr(exc)
    except RecursionError:
        return "RecursionError"

stack_kib = int(sys.argv[1])
if stack_kib == 0:
    sys.setrecursionlimit(100_000)  # the main thread, with a limit it cannot hold
    for name in CASES:
        print(name, run(name), flush=True)
else:
    threading.stack_size(stack_kib * 1024)
    for name in CASES:
        out = []
        worker = threading.Thread(target=lambda: out.append(run(name)))
        worker.start()
        worker.join()
        print(name, out[0], flush=True)
"""


@pytest.mark.parametrize(
    "stack_kib", [256, 1024, 0], ids=["256KiB-thread", "1MiB-thread", "main-limit-100000"]
)
def test_endless_nested_renders_raise_recursion_error(stack_kib):
    import subprocess

    names = [
        "baked",
        "render",
        "attribute",
        "format",
        "percent",
        "escape",
        "iter_render",
        "str subclass",
        "int subclass",
        "baked iterator",
        "element iterator",
    ]
    proc = subprocess.run(
        [*conftest.PYTHON, "-c", _ENDLESS_RENDERS, str(stack_kib)],
        capture_output=True,
        text=True,
        timeout=120 * TIME_SCALE,
    )
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stdout}{proc.stderr[-2000:]}"
    assert proc.stdout.splitlines() == [f"{name} RecursionError" for name in names]


def test_lists_and_tuples_nested_100000_deep():
    with time_limit(20):
        for wrap in (lambda x: [x], lambda x: (x,)):
            nested = "leaf"
            for _ in range(100_000):
                nested = wrap(nested)
            conftest.deep_or_refused(h.Div, nested, lambda el: render(el) == "<div>leaf</div>")
            for call, want in ((render, "leaf"), (render_bytes, b"leaf"),
                               (child_slot, "<div>leaf</div>")):  # fmt: skip
                conftest.deep_or_refused(call, nested, lambda out, want=want: out == want)
            del nested
    # The interpreter and module still work afterwards.
    assert render(h.Div([["ok"]])) == "<div>ok</div>"


def test_generators_nested_100000_deep():
    def chain(n):
        yield chain(n - 1) if n else "leaf"

    with time_limit(20):
        conftest.deep_or_refused(render, chain(100_000), lambda out: out == "leaf")

        def render_in_div(g):
            return render(h.Div(g))

        conftest.deep_or_refused(
            render_in_div, chain(100_000), lambda out: out == "<div>leaf</div>"
        )


def test_nesting_through_html_methods():
    """__html__ that renders another deep tree, which holds the next
    object with __html__: the C stack must be bounded across the
    interpreter and the extension, not per render() call."""

    class Nest:
        def __init__(self, n, depth):
            self.n = n
            self.depth = depth

        def __html__(self):
            node = Nest(self.n - 1, self.depth) if self.n else "end"
            for _ in range(self.depth):
                node = h.Div(node)
            return render(node)

    with time_limit(30):
        with pytest.raises(RecursionError):
            render(h.Div(Nest(1_000_000, MAX_DEPTH - 2)))
        with pytest.raises(RecursionError):
            render(h.Div(Nest(1_000_000, 1)))
        # A short chain renders in full.
        assert render(Nest(2, 100)).count("<div>") == 300


# --- size -----------------------------------------------------------------

MB = 1 << 20


def render_peak(fn, node):
    """(output, bytes allocated at the peak of fn(node)), via tracemalloc,
    which sees every PyMem allocation (markup allocates through PyMem)."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        out = fn(node)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return out, peak


@pytest.mark.parametrize("kind", ["clean", "escapes"])
def test_string_of_100_mb(kind):
    text = "abcdefghij" * (10 * MB) if kind == "clean" else "abc&def<" * (100 * MB // 8)
    expected_text = text.replace("&", "&amp;").replace("<", "&lt;")
    node = h.P(text)
    with time_limit(30):
        for fn in (render, render_bytes):
            out, peak = render_peak(fn, node)
            size = len(out)
            if fn is render:
                assert out[:3] == "<p>" and out[-4:] == "</p>" and out[3:-4] == expected_text
            else:
                assert (
                    out[:3] == b"<p>"
                    and out[-4:] == b"</p>"
                    and out[3:-4] == expected_text.encode()
                )
            del out
            assert peak <= 3 * size, f"{fn.__name__}: peak {peak / size:.2f}x the output"


def test_non_ascii_string_of_100_mb():
    text = "\xe9t\xe9 \u4e2d\u6587 \U0001f600 " * (100 * MB // 18)  # 18 bytes in UTF-8
    node = h.P(text)
    expected = b"<p>" + text.encode("utf-8") + b"</p>"
    with time_limit(30):
        out, bytes_peak = render_peak(render_bytes, node)
        assert out == expected
        assert bytes_peak <= 3 * len(
            out
        ), f"render_bytes: peak {bytes_peak / len(out):.2f}x the output"
        del out
        # render() hands the same buffer to CPython's UTF-8 decoder, which
        # needs far more than the bytes (it widens its result from 1 to 2
        # to 4 bytes per character as it meets them): markup's share is
        # the buffer, and the decoder's is what decoding those bytes costs.
        _, decode_peak = render_peak(bytes.decode, expected)
        buffer = bytes_peak - len(expected)
        out, peak = render_peak(render, node)
        assert out == "<p>" + text + "</p>"
        assert peak <= buffer + decode_peak + MB, (
            f"render: peak {peak / MB:.0f} MB, buffer {buffer / MB:.0f} MB, "
            f"decoding {decode_peak / MB:.0f} MB"
        )


def test_a_million_siblings():
    n = 1_000_000
    with time_limit(30):
        kids = [h.Li(i) if i % 2 else str(i) for i in range(n)]
        expected = "".join(f"<li>{i}</li>" if i % 2 else str(i) for i in range(n))
        node = h.Ul(kids)
        assert len(node.children) == n
        assert render(node) == f"<ul>{expected}</ul>"
        assert render(kids) == expected
        assert child_slot(kids) == f"<div>{expected}</div>"
        generated = h.Ul(h.Li(i) if i % 2 else str(i) for i in range(n))
        assert render(generated) == f"<ul>{expected}</ul>"
        del kids, node, generated


def test_a_hundred_thousand_attributes():
    """Duplicate detection must not be quadratic."""
    n = 100_000
    with time_limit(20):
        attrs = {f"data-a{i}": i for i in range(n)}
        out = render(h.Div(attrs))
        assert out == "<div" + "".join(f' data-a{i}="{i}"' for i in range(n)) + "></div>"
        with pytest.raises(ValueError, match=f"'data-a{n - 1}' is given twice"):
            h.Div(attrs, {f"data-a{n - 1}": 0})


def test_baked_with_10000_parameters():
    n = 10_000
    names = [f"p{i}" for i in range(n)]
    # p{j} is an attribute slot for odd j and a child slot for even j.
    source = (
        f"def wide({', '.join(names)}):\n"
        f"    values = [{', '.join(names)}]\n"
        f"    return h.Div(*[h.I({{'data-x': v}}) if j % 2 else h.B(v)\n"
        f"                   for j, v in enumerate(values)])\n"
    )
    namespace = {"h": h}
    with time_limit(30):
        exec(source, namespace)
        wide = baked(namespace["wide"])
        assert wide.slot_count == n
        values = [f"<{i}&>" if i % 3 else i for i in range(n)]
        expected = render(
            h.Div(*[h.I({"data-x": v}) if j % 2 else h.B(v) for j, v in enumerate(values)])
        )
        assert wide(*values) == expected
        assert wide(**dict(zip(names, values))) == expected
        with pytest.raises(TypeError, match=f"argument 'p{n - 1}'"):
            wide(*values[:-1], object())
        with pytest.raises(TypeError, match="missing 1 required positional argument: 'p9999'"):
            wide(*values[:-1])


def test_baked_with_10000_slots_from_one_parameter():
    n = 10_000

    @baked
    def repeated(value):
        return h.Ul([h.Li({"title": value}, value) for _ in range(n // 2)])

    @baked
    def repeated_children(value):
        return h.Ul([h.Li(value) for _ in range(n)])

    with time_limit(20):
        assert repeated.slot_count == n and repeated_children.slot_count == n
        expected = render(h.Ul([h.Li({"title": "a&b"}, "a&b") for _ in range(n // 2)]))
        assert repeated("a&b") == expected
        # A generator is listed once, so that every slot gets all its items.
        kids = [h.B(i) for i in range(3)]
        expected = render(h.Ul([h.Li(kids) for _ in range(n)]))
        assert repeated_children(k for k in kids) == expected


# --- callbacks that raise or lie -------------------------------------------


class Boom(Exception):
    pass


def raising_generator(sentinel):
    yield "before"
    yield sentinel
    raise Boom("midway")


GENERATOR_USES = {
    "built": lambda g: render(h.Div(g)),
    "rendered": render,
    "rendered-as-bytes": render_bytes,
    "in-a-list": lambda g: render(["x", g, "y"]),
    "baked-slot": child_slot,
    "baked-two-slots": two_child_slots,
}


@pytest.mark.parametrize("use", list(GENERATOR_USES), ids=str)
def test_generator_that_raises_midway(use):
    sentinel = h.Span("unique")
    before = sys.getrefcount(sentinel)
    with time_limit(5):
        gen = raising_generator(sentinel)
        with pytest.raises(Boom, match="midway") as info:
            GENERATOR_USES[use](gen)
        del info, gen
    # What was taken from the generator before it raised was released.
    assert sys.getrefcount(sentinel) == before
    assert render(h.Div(sentinel)) == "<div><span>unique</span></div>"


def test_generator_raising_type_error_in_a_baked_slot_names_the_argument():
    def gen():
        yield "a"
        raise TypeError("bad item")

    with pytest.raises(TypeError, match=r"child_slot\(\) argument 'x': bad item") as info:
        child_slot(gen())
    assert str(info.value.__cause__) == "bad item"


class HtmlRaises:
    def __html__(self):
        raise Boom("from __html__")


class HtmlPropertyRaises:
    @property
    def __html__(self):
        raise Boom("from the __html__ lookup")


def positions(obj):
    """Every place an object with __html__ can stand."""
    return {
        "top-level": lambda: render(obj),
        "child": lambda: render(h.P(obj)),
        "attribute": lambda: render(h.P({"title": obj})),
        "script": lambda: render(h.Script(obj)),
        "bytes": lambda: render_bytes(h.P(obj)),
        "html-method": lambda: h.P(obj).__html__(),
        "baked-child": lambda: child_slot(obj),
        "baked-attribute": lambda: attr_slot(obj),
    }


POSITIONS = list(positions(None))


@pytest.mark.parametrize("where", POSITIONS)
@pytest.mark.parametrize("cls", [HtmlRaises, HtmlPropertyRaises])
def test_html_method_that_raises(cls, where):
    obj = cls()
    before = sys.getrefcount(obj)
    with time_limit(5):
        call = positions(obj)[where]
        with pytest.raises(Boom, match="from") as info:
            call()
        del call, info  # the closure and the traceback hold `obj` too
    assert sys.getrefcount(obj) == before


class HtmlReturns:
    def __init__(self, value):
        self.value = value

    def __html__(self):
        return self.value


@pytest.mark.parametrize("where", POSITIONS)
@pytest.mark.parametrize(
    "value",
    [None, 42, 4.5, b"<b>", ["<b>"], HtmlReturns("<b>")],
    ids=["None", "int", "float", "bytes", "list", "html-object"],
)
def test_html_method_returning_a_non_str(value, where):
    with time_limit(5):
        expected = rf"HtmlReturns.__html__\(\) returned {type(value).__name__}, not str"
        with pytest.raises(TypeError, match=expected):
            positions(HtmlReturns(value))[where]()


def test_html_method_returning_str_subclasses_and_breakouts():
    """A str subclass from __html__ is read through its own __str__, as
    markupsafe's Markup() (and so Jinja2) reads it; an error there is the
    caller's to see."""
    import jinja2

    class Loud(str):
        def __str__(self):
            return "<i>loud</i>"

    class Shout(str):
        def __str__(self):
            raise Boom("str() of the __html__ result")

    jinja = jinja2.Environment(autoescape=True).from_string("<p>{{ v }}</p>")
    assert render(h.P(HtmlReturns(Loud("<b>x</b>")))) == jinja.render(
        v=HtmlReturns(Loud("<b>x</b>"))
    )
    assert render(h.P(HtmlReturns(Loud("<b>x</b>")))) == "<p><i>loud</i></p>"
    assert render(h.P(HtmlReturns(str("<b>x</b>")))) == "<p><b>x</b></p>"
    with pytest.raises(Boom):
        render(h.P(HtmlReturns(Shout("<b>x</b>"))))
    # Trusted, but not in a script: its text is checked like any other.
    with pytest.raises(ValueError, match="would end the element early"):
        render(h.Script(HtmlReturns("</script><script>alert(1)")))
    with pytest.raises(ValueError, match="would end the element early"):
        render(h.Style(HtmlReturns("</STYLE><script>alert(1)</script>")))


def test_html_attribute_that_is_not_callable():
    class NotCallable:
        __html__ = "<b>"

    for where in ("child", "attribute", "baked-child"):
        with pytest.raises(TypeError, match="not callable"):
            positions(NotCallable())[where]()


class IntStrRaises(int):
    def __str__(self):
        raise Boom("from __str__")


class FloatStrRaises(float):
    def __str__(self):
        raise Boom("from __str__")


class IntStrLies(int):
    def __str__(self):
        return 12


class FloatStrMarkup(float):
    def __str__(self):
        return "<script>alert(1)</script>"


NUMBER_USES = {
    "child": lambda v: render(h.P(v)),
    "attribute": lambda v: render(h.P({"title": v})),
    "script": lambda v: render(h.Script(v)),
    "baked-child": child_slot,
    "baked-attribute": attr_slot,
}


@pytest.mark.parametrize("where", list(NUMBER_USES))
def test_number_whose_str_raises_or_lies(where):
    use = NUMBER_USES[where]
    with time_limit(5):
        for value in (IntStrRaises(3), FloatStrRaises(0.5)):
            with pytest.raises(Boom, match="from __str__"):
                use(value)
        # the wording of 3.9-3.14, and of 3.15
        with pytest.raises(
            TypeError, match=r"__str__( returned non-string|\(\) must return a str)"
        ):
            use(IntStrLies(3))


@pytest.mark.parametrize("where", ["child", "attribute", "baked-child", "baked-attribute"])
def test_number_whose_str_returns_markup_is_escaped(where):
    out = NUMBER_USES[where](FloatStrMarkup(1.5))
    assert "<script>" not in out and "&lt;script&gt;alert(1)&lt;/script&gt;" in out


@pytest.mark.skipif(
    not hasattr(sys, "get_int_max_str_digits"),
    reason="this CPython predates the int to str digit limit (3.9.14, 3.10.7, 3.11)",
)
def test_huge_int_gives_the_interpreter_error():
    big = 10**5000
    for where in ("child", "attribute", "baked-child", "baked-attribute"):
        with pytest.raises(ValueError, match="integer string conversion"):
            NUMBER_USES[where](big)


def test_str_subclass_text_is_used_without_calling_str():
    # A subclass that keeps str's __str__ is its stored characters: nothing
    # of it is called.
    class Text(str):
        def __format__(self, spec):
            raise Boom("format() must not be called on a str")

    value = Text("a<b")
    assert render(h.P(value)) == "<p>a&lt;b</p>"
    assert render(h.P({"title": value})) == '<p title="a&lt;b"></p>'
    assert child_slot(value) == "<div>a&lt;b</div>"
    assert attr_slot(value) == '<div title="a&lt;b"></div>'


def test_str_subclass_with_its_own_str_is_written_as_str():
    # As markupsafe.escape, and so Jinja2: str(value), escaped; an
    # exception from __str__ goes to the caller.
    class Loud(str):
        def __str__(self):
            return "LOUD " + self.upper()

    class Broken(str):
        def __str__(self):
            raise Boom("from __str__")

    value = Loud("a<b")
    assert render(h.P(value)) == "<p>LOUD A&lt;B</p>"
    assert render(h.P({"title": value})) == '<p title="LOUD A&lt;B"></p>'
    assert child_slot(value) == "<div>LOUD A&lt;B</div>"
    assert attr_slot(value) == '<div title="LOUD A&lt;B"></div>'
    assert escape(value) == "LOUD A&lt;B"
    for use in (
        lambda v: render(h.P(v)),
        lambda v: render(h.P({"title": v})),
        child_slot,
        attr_slot,
        escape,
        lambda v: render(h.Script(v)),
    ):
        with pytest.raises(Boom, match="from __str__"):
            use(Broken("x"))


# --- containers mutated while markup reads them -----------------------------


def test_elements_copy_their_children_when_built():
    items = ["a", h.B("b")]
    node = h.Div(items)
    items.append("c")
    items[0] = "z"
    items.clear()
    assert render(node) == "<div>a<b>b</b></div>"
    assert isinstance(node.children, tuple) and node.children[0] == "a"


class Mutator:
    """Runs `action` on `target` from inside __html__ (during a render)."""

    def __init__(self, target, action):
        self.target = target
        self.action = action

    def __html__(self):
        self.action(self.target)
        return "<m>"


MUTATIONS = {
    "clear": (list.clear, ["a<m>", "a<m>bc"]),
    "grow": (lambda lst: lst.extend(["x"] * 10_000), ["a<m>bc", "a<m>bc" + "x" * 10_000]),
    "replace": (
        lambda lst: lst.__setitem__(slice(None), [Mutator([], list.clear)] * 3),
        ["a<m>bc", "a<m><m>"],
    ),
    "delete-self": (lambda lst: lst.__delitem__(1), ["a<m>bc", "a<m>c"]),
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_list_mutated_while_it_renders(mutation):
    """A child's __html__ mutates the list being rendered (a list given to
    render() or to a baked slot is read as it is rendered). No crash, no
    stale item: the output is either the rest of the list as it was, or
    the rest (from the next index) of the list as it became."""
    action, allowed = MUTATIONS[mutation]
    with time_limit(5):
        for use, wrap in ((render, "{}"), (child_slot, "<div>{}</div>")):
            items = ["a", None, "b", "c"]
            items[1] = Mutator(items, action)  # the list holds the only reference
            out = use(items)
            assert out in [wrap.format(a) for a in allowed], out[:80]
    gc.collect()


def test_list_mutated_while_a_built_element_renders():
    """The element copied the list: mutating the original mid-render
    changes nothing."""
    items = ["a", None, "b", "c"]
    items[1] = Mutator(items, list.clear)
    node = h.Div(items)
    items[1:1] = []  # the element does not share the list
    assert render(node) == "<div>a<m>bc</div>"
    assert render(node) == "<div>a<m>bc</div>"


def test_list_mutated_while_an_element_is_built():
    """Building looks up __html__ on each child, which runs Python code
    that may change the list being flattened."""
    items = ["a", None, "b", "c"]

    class Sneaky:
        @property
        def __html__(self):
            items.clear()
            return lambda: "<s>"

    items[1] = Sneaky()
    with time_limit(5):
        node = h.Div(items)
    assert render(node) in ("<div>a<s></div>", "<div>a<s>bc</div>")


def test_dict_mutated_while_attributes_are_read():
    attrs = {"a": "1", "b": None, "c": "3"}

    class Sneaky:
        @property
        def __html__(self):
            attrs.clear()
            attrs.update({f"k{i}": i for i in range(100)})
            return lambda: "v"

    attrs["b"] = Sneaky()
    with time_limit(5):
        with pytest.raises(RuntimeError, match="attribute dict changed size"):
            h.Div(attrs)


# --- Python code that reaches markup's own objects through the collector ----
#
# gc.get_objects() and gc.get_referents() hand out every container the
# collector tracks, including ones markup has made and not yet returned, and
# the module's caches. Code that runs in the middle of markup's C code
# (__html__, a SafeString subclass's constructor, a @baked builder) can
# reach them that way.


def null_holding_containers():
    """Lists and tuples the collector sees with an empty slot (touching the
    slot would crash): their traversal skips it, so they have fewer
    referents than items."""
    return [
        o
        for o in gc.get_objects()
        if type(o) in (list, tuple) and len(gc.get_referents(o)) < len(o)
    ]


def test_keyword_name_cache_emptied_while_the_attribute_is_added():
    """The cached "data-zz" for data_zz= is held by the call adding it,
    not borrowed from the cache, which __html__ empties here; the churn
    also drops it from the cache of checked names."""
    core = sys.modules["markup._core"]
    h.Div(data_zz=1)
    # The cache maps keywords to attribute names; another test may have
    # filled it to its bound, so it is found by its items and emptied.
    (cache,) = [
        d
        for d in gc.get_referents(core)
        if type(d) is dict
        and d
        and all(
            type(k) is str and type(v) is str and v == k.rstrip("_").replace("_", "-")
            for k, v in d.items()
        )
    ]
    cache.clear()
    h.Div(data_zz=1)
    assert "data_zz" in cache

    class EmptiesTheCache:
        def __getattr__(self, attr):
            if attr == "__html__":
                cache.clear()
                h.Div({f"churn{i}": 1 for i in range(4000)})
                return lambda: "v"
            raise AttributeError(attr)

    node = h.Div(data_zz=EmptiesTheCache())
    gc.collect()
    h.Div({f"other{i}": 1 for i in range(4000)})  # reuse freed memory, if any was freed
    assert render(node) == '<div data-zz="v"></div>'


def test_a_baked_builder_cannot_reach_its_half_built_function():
    """The function is handed to the collector only once compiled, so a
    builder that looks for it (and then fails) finds nothing to call."""
    from markup._core import BakedFunction

    before = {id(o) for o in gc.get_objects() if type(o) is BakedFunction}
    seen = []

    def builder(x):
        seen.extend(o for o in gc.get_objects() if type(o) is BakedFunction and id(o) not in before)
        raise RuntimeError("the builder failed")

    with pytest.raises(RuntimeError, match="the builder failed"):
        baked(builder)
    assert seen == []

    def good(x):
        seen.extend(o for o in gc.get_objects() if type(o) is BakedFunction and id(o) not in before)
        return h.P(x)

    page = baked(good)
    assert seen == []
    assert page("<v>") == "<p>&lt;v&gt;</p>"


def test_join_shows_no_half_filled_list_to_html_methods():
    seen = []

    class Looks:
        def __html__(self):
            seen.extend(null_holding_containers())
            return "<x>"

    assert SafeString(",").join([Looks(), "b&", Looks()]) == "<x>,b&amp;,<x>"
    assert seen == []


def test_join_items_emptied_through_the_collector():
    """join() reads its items from a tuple of its own: emptying the list
    it was given, or any list the collector shows holding them, changes
    nothing."""
    items = ["a", None, "c"]

    class Empties:
        def __html__(self):
            for o in gc.get_objects():
                if type(o) is list and len(o) == 3 and o[0] == "a":
                    o.clear()
            return "<b>"

    items[1] = Empties()
    assert SafeString("-").join(items) == "a-<b>-c"
    with pytest.raises(TypeError, match="can only join an iterable"):
        SafeString("-").join(5)
    assert SafeString("-").join(x for x in "ab<") == "a-b-&lt;"


class EmptiesSplitResults(SafeString):
    """A SafeString subclass whose constructor (Python code) empties every
    list of str the collector shows, such as the result of str.split()
    that markup is turning into instances of this class."""

    def __new__(cls, text):
        for o in gc.get_objects():
            if type(o) is list and o and len(gc.get_referents(o)) == len(o):
                if all(type(x) is str for x in o) and o[0].startswith("a0"):
                    o.clear()
        return SafeString.__new__(cls, text)


# The results as tuples: a list of them would be emptied too.
@pytest.mark.parametrize(
    "method, shape, want",
    [
        ("split", list, ("a0", "a1", "a2", "a3")),
        ("rsplit", list, ("a0", "a1", "a2", "a3")),
        ("splitlines", list, ("a0 a1 a2 a3",)),
        ("partition", tuple, ("a0", " ", "a1 a2 a3")),
        ("rpartition", tuple, ("a0 a1 a2", " ", "a3")),
    ],
)
def test_split_results_emptied_by_a_subclass_constructor(method, shape, want):
    s = EmptiesSplitResults("a0 a1 a2 a3")
    args = (" ",) if "partition" in method else ()
    seen = []

    class Watch(EmptiesSplitResults):
        def __new__(cls, text):
            seen.extend(null_holding_containers())
            return EmptiesSplitResults.__new__(cls, text)

    out = getattr(s, method)(*args)
    assert type(out) is shape and tuple(out) == want
    assert all(type(x) is EmptiesSplitResults for x in out)
    out = getattr(Watch("a0 a1 a2 a3"), method)(*args)
    assert type(out) is shape and tuple(out) == want and seen == []


def test_generator_argument_used_by_two_slots_is_listed_once():
    def gen():
        yield "a"
        yield h.B("b")

    assert two_child_slots(gen()) == "<div><p>a<b>b</b></p><p>a<b>b</b></p></div>"


# --- attribute names ----------------------------------------------------------

REJECTED_NAME_CHARS = (
    [chr(c) for c in range(0x20)]
    + [chr(0x7F)]
    + [chr(c) for c in range(0x80, 0xA0)]
    + list(" \"'<>/=&\\`")
)


@pytest.mark.parametrize("char", REJECTED_NAME_CHARS, ids=ascii)
def test_rejected_attribute_name_character(char):
    for name in (char, "a" + char, char + "a", "data-" + char + "x", "@click" + char):
        with pytest.raises(ValueError, match="<div>: invalid attribute name") as info:
            h.Div({name: "v"})
        assert repr(name) in str(info.value)
        with pytest.raises(ValueError, match="invalid attribute name"):
            h.Div(**{name: "v"})
        with pytest.raises(ValueError, match="invalid attribute name"):
            h.Div(MappingOf({name: True}))
        with pytest.raises(ValueError, match="invalid attribute name"):
            baked(lambda x: h.Div({name: x}))  # noqa: B023 - traced here, in this iteration


def test_empty_attribute_name():
    with pytest.raises(ValueError, match="invalid attribute name ''"):
        h.Div({"": "v"})
    with pytest.raises(ValueError, match="invalid attribute name ''"):
        h.Div(**{"": "v"})
    # The bare "_" keyword is hyperscript's attribute, not an empty name.
    assert render(h.Div(**{"_": "on click"})) == '<div _="on click"></div>'


class MappingOf(collections.abc.Mapping):
    """A Mapping that is not a dict."""

    def __init__(self, data):
        self.data = data

    def __getitem__(self, key):
        return self.data[key]

    def __iter__(self):
        return iter(self.data)

    def __len__(self):
        return len(self.data)


# --- lone surrogates ----------------------------------------------------------

SURROGATES = {
    "high": "\ud800",
    "low": "\udfff",
    "split-pair": "\ud83d\ude00",  # a pair of code units is still two lone surrogates in a str
    "after-ascii": "x" * 100 + "\udc00",
    "after-non-ascii": "\xe9\u4e2d\U0001f600" * 40 + "\udbff" + "tail",
}


class IntStrSurrogate(int):
    def __str__(self):
        return "1\ud800"


SURROGATE_PLACES = {
    "text": lambda s: h.P(s),
    "attribute-value": lambda s: h.P({"title": s}),
    "attribute-name": lambda s: h.P({"a" + s: "v"}),
    "keyword-name": lambda s: h.P(**{"a" + s: "v"}),
    "comment": lambda s: Comment(s),
    "script": lambda s: h.Script(s),
    "tag-name": lambda s: Tag("a" + s),
    "safe-string-child": lambda s: h.P(SafeString(s)),
    "render-top-level": lambda s: render(s),
    "render-list": lambda s: render(["ok", s]),
    "render-safe-string": lambda s: render(SafeString(s)),
    "render-escaped": lambda s: render(escape(s)),
    "render-bytes": lambda s: render_bytes([s]),
    "html-method-child": lambda s: render(h.P(HtmlReturns(s))),
    "html-method-attribute": lambda s: render(h.P({"title": HtmlReturns(s)})),
    "html-method-script": lambda s: render(h.Script(HtmlReturns(s))),
    "number-str": lambda s: render(h.P(IntStrSurrogate(1))),
    "baked-child": lambda s: child_slot(s),
    "baked-attribute": lambda s: attr_slot(s),
    "baked-builder-text": lambda s: baked(lambda x: h.P(s, x)),
}


@pytest.mark.parametrize("surrogate", list(SURROGATES))
@pytest.mark.parametrize("place", list(SURROGATE_PLACES))
def test_lone_surrogate(place, surrogate):
    text = SURROGATES[surrogate]
    with pytest.raises(ValueError) as info:
        SURROGATE_PLACES[place](text)
    # A plain ValueError that says what is wrong, not a UnicodeEncodeError.
    assert type(info.value) is ValueError
    msg = str(info.value)
    assert "lone surrogate U+" in msg and "UTF-8" in msg


def test_lone_surrogate_message_names_the_code_point_and_element():
    with pytest.raises(
        ValueError, match=r"<p>: text contains a lone surrogate U\+DC00 at index 100"
    ):
        h.P(SURROGATES["after-ascii"])
    with pytest.raises(ValueError, match=r"child_slot\(\) argument 'x': .*U\+D800 at index 0"):
        child_slot("\ud800")


# --- attribute keys that are not str ------------------------------------------


@pytest.mark.parametrize(
    "key",
    [1, 2.5, None, True, b"class", ("a",), frozenset({"a"}), object()],
    ids=lambda k: type(k).__name__,
)
def test_non_str_attribute_key(key):
    for attrs in ({key: "v"}, MappingOf({key: "v"}), {"ok": "1", key: "v"}):
        with pytest.raises(
            TypeError, match=f"<div>: attribute names must be str, got {type(key).__name__}"
        ):
            h.Div(attrs)


def test_str_subclass_attribute_key_is_stored_as_a_plain_str():
    class Key(str):
        def __hash__(self):
            return 0

        def __eq__(self, other):
            return True  # equal to everything: must not fool duplicate checks

    node = h.Div({Key("a"): "1"}, {"b": "2"})
    assert [type(k) for k in node.attrs] == [str, str]
    assert render(node) == '<div a="1" b="2"></div>'
    with pytest.raises(ValueError, match="given twice"):
        h.Div({Key("a"): "1"}, {"a": "2"})


def test_keyword_name_that_equals_everything_is_not_remembered():
    # A keyword given as a str subclass equal to every name must not stand
    # in for other keywords afterwards (names are remembered by keyword).
    class Key(str):
        def __hash__(self):
            return hash("title")

        def __eq__(self, other):
            return True

    assert render(h.Div(**{Key("onclick"): "x"})) == '<div onclick="x"></div>'
    assert render(h.Div(title="hello")) == '<div title="hello"></div>'
    assert render(h.Div(**{Key("data_x"): "y"})) == '<div data-x="y"></div>'
    assert render(h.Div(title="again")) == '<div title="again"></div>'


def test_mapping_whose_items_misbehave():
    class BadPairs(MappingOf):
        def items(self):
            return [("a", "1", "extra")]

    class RaisingItems(MappingOf):
        def items(self):
            raise Boom("items()")

    with pytest.raises(TypeError, match="items\\(\\) must give pairs"):
        h.Div(BadPairs({"a": "1"}))
    with pytest.raises(Boom, match="items"):
        h.Div(RaisingItems({"a": "1"}))


# What the HTML standard forbids in a comment's text. Each holds a < or >,
# which the escaping rewrites; the parser then reads one comment holding
# the escaped text and nothing after it.
COMMENT_FORBIDDEN = ["-->", "--!>", ">x", "->x", "x<!-", "a<!--b", "<!---->", "--!>--><p>"]


@pytest.mark.parametrize("text", COMMENT_FORBIDDEN + ["a--b", "-", "x-", "--!", "ok"])
def test_comment_text_cannot_end_or_nest_the_comment(text):
    import xml.etree.ElementTree as ElementTree

    import html5lib

    out = render(h.Div(Comment(text), h.B("after")))
    div = html5lib.parseFragment(out, namespaceHTMLElements=False)[0]
    kids = list(div)
    assert len(kids) == 2 and kids[1].tag == "b" and kids[1].text == "after"
    assert kids[0].tag is ElementTree.Comment
    assert kids[0].text == str(escape(text))
    assert div.text is None and kids[0].tail is None
    # (html5lib 1.1 still reports "--" inside a comment, which the standard
    # has since allowed; the tree above is what counts.)
