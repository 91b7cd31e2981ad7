"""SafeString and escape(): compatible with markupsafe.Markup and
markupsafe.escape, so values move between markup, Jinja2 and markupsafe
without being escaped twice or not at all."""

import copy
import pickle
import random

import markupsafe
import pytest

from markup import SafeString, escape, h, render

from conftest import HOSTILE_VALUES, value_id

INPUTS = HOSTILE_VALUES + [
    None,
    True,
    b"<bytes>",
    ["<list>"],
    {"<k>": "'v'"},
    "\ud800 lone surrogate <",
    "\udfff",
    "&" * 1000,
    "clean text, nothing to escape",
    "\x00",
    "<" * 17 + ">" * 33 + "é" * 5,
]


class WithHtml:
    def __html__(self):
        return "<em>trusted</em>"

    def __str__(self):
        return "<untrusted>"


class StrSub(str):
    pass


@pytest.mark.parametrize("value", INPUTS + [WithHtml(), StrSub("<s>")], ids=value_id)
def test_escape_equals_markupsafe(value):
    ours = escape(value)
    theirs = markupsafe.escape(value)
    assert type(ours) is SafeString
    assert str(ours) == str(theirs)


def test_escape_every_ascii_and_some_unicode():
    for cp in list(range(0x80)) + [0xA0, 0x2028, 0xFFFD, 0x1F389]:
        ch = chr(cp) * 3
        assert escape(ch) == markupsafe.escape(ch), cp


# --- every storage width of str -----------------------------------------------
#
# CPython keeps a str as 1, 2 or 4 bytes per character (the widest character
# decides), and escape() works on each width as it is. The alphabets mix the
# five specials with characters of the width that share a special's low
# byte (U+0126, U+013C, U+2026, U+10026 ...) and so must not be escaped, and
# lone surrogates, which markupsafe passes through.

SPECIALS = "&<>\"'"
LATIN1 = SPECIALS + "ab \x00\x7f\x80\xa0é\xff"
UCS2 = LATIN1 + "\u0126\u013c\u0222\u0227\u2026\u3c3c\u3e00\uff1c\uffff\ud800\udc26\udfff\u0100"
UCS4 = UCS2 + "\U00010026\U0001003c\U0001f375\U0010ffff\U0002003e"
WIDTHS = {"latin1": LATIN1, "ucs2": UCS2, "ucs4": UCS4}


def widest(alphabet: str) -> str:
    return max(alphabet, key=ord)


def check_like_markupsafe(text: str) -> None:
    ours = escape(text)
    assert type(ours) is SafeString
    assert str(ours) == str(markupsafe.escape(text)), repr(text)


@pytest.mark.parametrize("width", WIDTHS)
def test_escape_each_width_equals_markupsafe(width):
    alphabet = WIDTHS[width]
    seed = random.randrange(2**32)
    print("seed", seed)
    rng = random.Random(seed)
    for n in list(range(0, 300)) + [1000, 4097, 16384]:
        # the widest character first, so every string has this width
        text = widest(alphabet) + "".join(rng.choice(alphabet) for _ in range(n))
        check_like_markupsafe(text)
        # sparse specials: long clean runs between them
        sparse = widest(alphabet) + "".join(
            rng.choice(SPECIALS) if rng.random() < 0.03 else rng.choice(alphabet[5:])
            for _ in range(n)
        )
        check_like_markupsafe(sparse)


@pytest.mark.parametrize("n", [1023, 1024, 16383, 16384, 16385, 40000, 100000])
@pytest.mark.parametrize("ascii_only", [True, False], ids=["ascii", "latin1"])
def test_escape_one_byte_text_with_a_long_clean_prefix(n, ascii_only):
    # escape() looks for the first character to escape, then sizes the
    # result for the worst case or, past one piece of the escaper, counts
    # from there: the first special anywhere, at either side of a piece.
    # (That the room is then enough, with no growth, is asserted in C:
    # test_room_needs_no_growth and fuzz_escape.)
    top = 0x7F if ascii_only else 0x100
    clean = "".join(chr(c) for c in range(0x20, top) if chr(c) not in SPECIALS)
    body = (clean * (n // len(clean) + 1))[:n]
    assert str(escape(body)) == body
    for first in sorted({0, 1, n // 2, 16383, 16384, n - 2, n - 1} & set(range(n))):
        for tail in ("", "&<>\"'" * 3):
            text = body[:first] + "<" + body[first + 1 :]
            text = text[: n - len(tail)] + tail if first < n - len(tail) else text
            check_like_markupsafe(text)


@pytest.mark.parametrize("n", [16384, 16385, 40000, 300000])
def test_escape_long_text_dense_with_specials(n):
    # Past one piece of the escaper the result is counted and sized
    # exactly, with the headroom given back only when it is large: every
    # density from one special in 64 to all special, ASCII and Latin-1.
    for unit in ("a" * 63 + "<", "a<b & \"c\" > 'd' ", "&", "<>", "é<" * 3 + "ü"):
        text = (unit * (n // len(unit) + 1))[:n]
        check_like_markupsafe(text)


@pytest.mark.parametrize("width", WIDTHS)
def test_escape_each_width_returns_clean_text_itself(width):
    clean = "".join(c for c in WIDTHS[width] if c not in SPECIALS) * 40
    assert escape(clean) == clean and type(escape(clean)) is SafeString
    sub = StrSub(clean)
    assert escape(sub) == clean and type(escape(sub)) is SafeString


def test_lookalike_characters_are_not_escaped():
    lookalikes = "\u0126\u013c\u013e\u0122\u0127\u2026\u3c3c\U00010026\U0001003c\U0002003e"
    for n in range(1, 70):
        text = (lookalikes * n)[:n]
        assert str(escape(text)) == text
    assert str(escape("\u0126&\u2026")) == "\u0126&amp;\u2026"
    assert str(escape("\U00010026<\U0001003c")) == "\U00010026&lt;\U0001003c"


@pytest.mark.parametrize(
    "text",
    [
        "\ud800<",
        "&\udfff",
        "\ud83c\udf75 & tea",  # a surrogate pair is two characters of a str
        "\ud800 \U0001f375 <",  # a lone surrogate among 4-byte characters
        "\udc00" * 40 + "'" + "\udbff" * 40,
        'é\ud800"',
    ],
)
def test_lone_surrogates_pass_through_as_in_markupsafe(text):
    check_like_markupsafe(text)
    assert "\ud800" not in text or "\ud800" in str(escape(text))


@pytest.mark.parametrize("width", WIDTHS)
def test_escape_str_subclass_of_each_width(width):
    text = widest(WIDTHS[width]) + " <b class='x'> & \"q\""
    ours = escape(StrSub(text))
    assert type(ours) is SafeString
    assert str(ours) == str(markupsafe.escape(StrSub(text)))
    # methods that escape their plain-str arguments take the same path
    assert str(SafeString("<i>") + text) == str(markupsafe.Markup("<i>") + text)
    assert str(SafeString("{}").format(text)) == str(markupsafe.Markup("{}").format(text))


def test_escape_returns_safe_strings_unchanged():
    s = SafeString("<b>")
    assert escape(s) is s
    m = markupsafe.Markup("<i>")
    assert escape(m) == "<i>" and type(escape(m)) is SafeString


def test_safe_string_has_html():
    s = SafeString("<b>x</b>")
    assert isinstance(s, str)
    assert s.__html__() is s
    assert markupsafe.escape(s) == "<b>x</b>"
    assert markupsafe.Markup(s) == "<b>x</b>"


def test_safe_string_trusts_html_objects():
    assert SafeString(WithHtml()) == "<em>trusted</em>"
    assert SafeString(markupsafe.Markup("<i>")) == "<i>"
    assert SafeString() == ""
    assert SafeString(3) == "3"


def test_safe_string_repr():
    assert repr(SafeString("<a>")) == "SafeString('<a>')"

    class Sub(SafeString):
        pass

    assert repr(Sub("x")) == "Sub('x')"


def test_safe_string_concatenation_escapes_the_plain_side():
    s = SafeString("<b>")
    assert s + "<i>" == "<b>&lt;i&gt;" and type(s + "<i>") is SafeString
    assert "<i>" + s == "&lt;i&gt;<b>" and type("<i>" + s) is SafeString
    assert s + SafeString("<u>") == "<b><u>"
    assert s + WithHtml() == "<b><em>trusted</em>"
    # the same as markupsafe.Markup
    m = markupsafe.Markup("<b>")
    assert str(s + "<&>") == str(m + "<&>")
    assert str("<&>" + s) == str("<&>" + m)
    with pytest.raises(TypeError):
        s + 3


def test_safe_string_subclass_renders_verbatim():
    class Sub(SafeString):
        pass

    assert render(h.P(Sub("<b>"))) == "<p><b></p>"
    assert type(escape(Sub("<b>"))) is SafeString


def test_escape_classmethod():
    assert SafeString.escape("<") == "&lt;" and type(SafeString.escape("<")) is SafeString


class PickledSub(SafeString):
    """A subclass with state of its own (module level, so pickle finds it)."""


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_safe_string_pickles_with_every_protocol(protocol):
    for value in (SafeString("<b>"), SafeString(""), PickledSub("<i>é</i>")):
        back = pickle.loads(pickle.dumps(value, protocol))
        assert back == value and type(back) is type(value)
        assert back == markupsafe.Markup(str(value))  # as Markup round-trips
    sub = PickledSub("<s>")
    sub.note = "kept"
    back = pickle.loads(pickle.dumps(sub, protocol))
    assert back.note == "kept" and type(back) is PickledSub
    assert copy.copy(sub).note == "kept" and copy.deepcopy(sub).note == "kept"


def test_constructor_takes_str_arguments_and_trusts_html():
    class Html:
        def __html__(self):
            return "<h>"

    # the same arguments as str() and Markup(): object, encoding, errors
    for make in (lambda: SafeString(Html()), lambda: SafeString(object=Html())):
        assert make() == markupsafe.Markup(object=Html()) == "<h>" and type(make()) is SafeString
    assert SafeString(b"\xc3\xa9", "utf-8") == markupsafe.Markup(b"\xc3\xa9", "utf-8") == "é"
    assert SafeString(b"a\xff", encoding="ascii", errors="replace") == "a\ufffd"
    assert SafeString(object="<x>") == "<x>" and SafeString() == ""
    with pytest.raises(TypeError):
        SafeString(obj="x")  # str's own keyword is `object`
    args = (Html(),)
    SafeString(*args)
    assert isinstance(args[0], Html)  # the caller's arguments are left alone


def test_safe_string_in_jinja2(jinja):
    assert jinja("{{ a }}{{ b }}", a=SafeString("<b>"), b="<b>") == "<b>&lt;b&gt;"


# --- str methods keep SafeString safe, as Markup's keep Markup --------------
#
# Differential: each operation runs once on markupsafe.Markup and once on
# SafeString, with the same subject text and arguments (a safe argument is a
# Markup on one side and a SafeString on the other, or crossed over), and
# the outcomes must agree: the same result type (Markup <-> SafeString),
# the same text, or the same exception type.


class Safe:
    """An argument that is safe HTML: Markup(text) on markupsafe's side,
    SafeString(text) on ours (or the other way round when crossed)."""

    def __init__(self, text, crossed=False):
        self.text = text
        self.crossed = crossed

    def resolve(self, cls):
        if self.crossed:
            cls = SafeString if issubclass(cls, markupsafe.Markup) else markupsafe.Markup
        return cls(self.text)

    def __repr__(self):
        return f"Safe({self.text!r}{', crossed' if self.crossed else ''})"


SUBJECTS = [
    "<b>x</b> & y",
    "  Tea &amp; cake\t<br>\n",
    "é 🎉 <i>ü</i> ß İ ǅ",
    "&lt;p&gt; &raquo; &#39; &#x27;",
    "<!-- c --><p a='1'>t</p> <unclosed",
    "a\tb\r\nc\x0bd\u2028e",
    "",
    "x",
]

ARGS = [
    "<",
    "&amp;",
    "'\"",
    "a<b>&c'd\"e",
    "é🎉<",
    " ",
    "b",
    "",
    Safe("<i>"),
    Safe("&"),
    Safe("<u>", crossed=True),
    WithHtml(),
    7,
    None,
]


def _a(arg, cls):
    return arg.resolve(cls) if isinstance(arg, Safe) else arg


# (name, operation(cls, subject, arg)); cls is Markup or SafeString.
OPERATIONS = [
    ("add", lambda C, s, a: C(s) + _a(a, C)),
    ("radd", lambda C, s, a: _a(a, C) + C(s)),
    ("mul", lambda C, s, a: C(s) * 3),
    ("rmul", lambda C, s, a: 2 * C(s)),
    ("mul zero", lambda C, s, a: C(s) * 0),
    ("mod one", lambda C, s, a: C("<p>%s</p>" + s.replace("%", "%%")) % _a(a, C)),
    ("mod tuple", lambda C, s, a: C("%s|%r|%a|%5s") % (_a(a, C), _a(a, C), _a(a, C), s)),
    ("mod mapping", lambda C, s, a: C("%(a)s<%(s)r>") % {"a": _a(a, C), "s": s}),
    ("mod number", lambda C, s, a: C("%d %5.2f %x %c") % (len(s), 2.5, 255, 65)),
    ("mod list", lambda C, s, a: C("%s") % [_a(a, C), s]),
    ("mod count", lambda C, s, a: C("%s %s") % (_a(a, C),)),
    ("mod number arg", lambda C, s, a: C("%d") % _a(a, C)),
    ("join", lambda C, s, a: C(s).join([_a(a, C), s, _a(a, C)])),
    ("join mixed", lambda C, s, a: C("<br>").join([s, 3, _a(a, C), C(s)])),
    ("join generator", lambda C, s, a: C(s).join(x for x in ("<", _a(a, C)))),
    ("format", lambda C, s, a: C("<p>{}</p>{}").format(_a(a, C), s)),
    ("format conversions", lambda C, s, a: C("{0!r}|{0!s}|{0!a}|{1}").format(_a(a, C), s)),
    ("format spec", lambda C, s, a: C("{0:>12}|{1:^9}").format(_a(a, C), s)),
    ("format nested spec", lambda C, s, a: C("{0:{1}}").format(s, _a(a, C))),
    (
        "format keywords",
        lambda C, s, a: C("{a}<{b[k]}>{c.real}").format(a=_a(a, C), b={"k": s}, c=2),
    ),
    ("format subject", lambda C, s, a: C(s + "{}").format(_a(a, C))),
    ("format_map", lambda C, s, a: C("{x}&{y}").format_map({"x": _a(a, C), "y": s})),
    ("format auto then manual", lambda C, s, a: C("{}{0}").format(_a(a, C))),
    ("format auto item", lambda C, s, a: C("{[0]}|{}").format(_a(a, C), s)),
    ("format auto then manual item", lambda C, s, a: C("{}{0[0]}").format(_a(a, C))),
    ("format manual then auto", lambda C, s, a: C("{0}{}").format(_a(a, C), s)),
    ("format unknown conversion", lambda C, s, a: C("{0!x}").format(_a(a, C))),
    ("format missing keyword", lambda C, s, a: C("{name}").format(_a(a, C))),
    ("format missing index", lambda C, s, a: C("{1}").format(_a(a, C))),
    ("format lone brace", lambda C, s, a: C("{" + s).format(_a(a, C))),
    ("format spec too deep", lambda C, s, a: C("{0:{1:{2}}}").format(_a(a, C), 1, 2)),
    ("format_map missing key", lambda C, s, a: C("{x}{y}").format_map({"x": _a(a, C)})),
    ("replace new", lambda C, s, a: C(s).replace("b", _a(a, C))),
    ("replace old", lambda C, s, a: C(s).replace(_a(a, C), "<X>")),
    ("replace count", lambda C, s, a: C(s).replace(" ", _a(a, C), 1)),
    ("ljust", lambda C, s, a: C(s).ljust(30, _a(a, C))),
    ("rjust", lambda C, s, a: C(s).rjust(30, _a(a, C))),
    ("center", lambda C, s, a: C(s).center(31, _a(a, C))),
    ("center default", lambda C, s, a: C(s).center(31)),
    ("strip", lambda C, s, a: C(s).strip()),
    ("strip chars", lambda C, s, a: C(s).strip(_a(a, C))),
    ("lstrip chars", lambda C, s, a: C(s).lstrip(_a(a, C))),
    ("rstrip chars", lambda C, s, a: C(s).rstrip(_a(a, C))),
    ("capitalize", lambda C, s, a: C(s).capitalize()),
    ("title", lambda C, s, a: C(s).title()),
    ("lower", lambda C, s, a: C(s).lower()),
    ("upper", lambda C, s, a: C(s).upper()),
    ("casefold", lambda C, s, a: C(s).casefold()),
    ("swapcase", lambda C, s, a: C(s).swapcase()),
    ("translate", lambda C, s, a: C(s).translate({ord("<"): "&lt;", ord("b"): None, ord(" "): 95})),
    ("expandtabs", lambda C, s, a: C(s).expandtabs(4)),
    ("zfill", lambda C, s, a: C(s).zfill(25)),
    ("removeprefix", lambda C, s, a: C(s).removeprefix(_a(a, C))),
    ("removesuffix", lambda C, s, a: C(s).removesuffix(_a(a, C))),
    ("split", lambda C, s, a: C(s).split()),
    ("split sep", lambda C, s, a: C(s).split(_a(a, C))),
    ("split maxsplit", lambda C, s, a: C(s).split(maxsplit=1)),
    ("rsplit sep", lambda C, s, a: C(s).rsplit(_a(a, C), 1)),
    ("splitlines", lambda C, s, a: C(s).splitlines()),
    ("splitlines keepends", lambda C, s, a: C(s).splitlines(keepends=True)),
    ("partition", lambda C, s, a: C(s).partition(_a(a, C))),
    ("rpartition", lambda C, s, a: C(s).rpartition(_a(a, C))),
    ("index", lambda C, s, a: C(s)[0]),
    ("negative index", lambda C, s, a: C(s)[-1]),
    ("slice", lambda C, s, a: C(s)[1:6]),
    ("step slice", lambda C, s, a: C(s)[::-2]),
    ("reversed", lambda C, s, a: list(reversed(C(s)))),
    ("unescape", lambda C, s, a: C(s).unescape()),
    ("striptags", lambda C, s, a: C(s).striptags()),
    ("escape classmethod", lambda C, s, a: C.escape(_a(a, C))),
    ("html_format", lambda C, s, a: C(s).__html_format__("")),
    ("html_format spec", lambda C, s, a: C(s).__html_format__(">3")),
    ("str", lambda C, s, a: str(C(s))),
    ("iterate", lambda C, s, a: list(C(s))),
]


class SubMarkup(markupsafe.Markup):
    pass


class SubSafe(SafeString):
    pass


# Their class -> ours: results keep the caller's class, subclasses too.
OUR_NAME = {markupsafe.Markup: "SafeString", SubMarkup: "SubSafe"}


def _outcome(op, cls, subject, arg):
    """What an operation gives (type and text, or the exception type),
    with markupsafe's class names spelled as ours."""

    def describe(value):
        if isinstance(value, (list, tuple)):
            return (type(value).__name__, [describe(v) for v in value])
        name = OUR_NAME.get(type(value), type(value).__name__)
        if not isinstance(value, str):
            return (name, value)
        # %r and !r show the class name of a safe argument
        text = str(value).replace("SubMarkup(", "SubSafe(").replace("Markup(", "SafeString(")
        return (name, text)

    try:
        return describe(op(cls, subject, arg))
    except Exception as exc:  # the exception type must match too, and a ValueError's wording
        message = str(exc) if isinstance(exc, ValueError) else ""
        message = message.replace("SubMarkup(", "SubSafe(").replace("Markup", "SafeString")
        return ("raises", type(exc).__name__, message)


@pytest.mark.parametrize(
    "theirs_cls,ours_cls",
    [(markupsafe.Markup, SafeString), (SubMarkup, SubSafe)],
    ids=["base", "subclass"],
)
@pytest.mark.parametrize("name,op", OPERATIONS, ids=[o[0] for o in OPERATIONS])
def test_str_methods_match_markupsafe(name, op, theirs_cls, ours_cls):
    for subject in SUBJECTS:
        for arg in ARGS:
            theirs = _outcome(op, theirs_cls, subject, arg)
            ours = _outcome(op, ours_cls, subject, arg)
            assert ours == theirs, (name, subject, arg)


def test_str_methods_escape_what_they_insert_and_render_verbatim():
    # A few readable cases of what the differential test checks at large.
    assert SafeString("<em>%s</em>") % "<x>" == "<em>&lt;x&gt;</em>"
    assert SafeString("<em>%(a)s</em>") % {"a": SafeString("<x>")} == "<em><x></em>"
    assert SafeString("<li>{}</li>").format("a & b") == "<li>a &amp; b</li>"
    assert SafeString("<br>").join(["<", WithHtml()]) == "&lt;<br><em>trusted</em>"
    assert SafeString("<b>x</b>").replace("x", "<y>") == "<b>&lt;y&gt;</b>"
    stripped = SafeString("  <b>x</b>  ").strip()
    assert type(stripped) is SafeString
    assert (
        render(h.P(stripped, SafeString("<i>a</i>")[:3], SafeString("<hr>") * 2))
        == "<p><b>x</b><i><hr><hr></p>"
    )
    assert [type(p) for p in SafeString("<a>\n<b>").splitlines()] == [SafeString, SafeString]
    assert SafeString("<p>Tea &amp; <!-- c --> cake</p>").striptags() == "Tea & cake"
    assert type(SafeString("&lt;").unescape()) is str


def test_str_method_errors():
    # __html__() must give a str wherever markup calls it (markupsafe would
    # str() an int: an __html__ that lost its return writes "None")
    assert markupsafe.Markup("{}").format(BadHtmlType()) == "3"
    for use in (
        lambda: SafeString("{}").format(BadHtmlType()),
        lambda: SafeString(",").join(["a", BadHtmlType()]),
        lambda: SafeString(BadHtmlType()),
        lambda: SafeString(object=BadHtmlType()),
    ):
        with pytest.raises(TypeError, match=r"BadHtmlType.__html__\(\) returned int, not str"):
            use()
    with pytest.raises(ValueError, match="Unsupported format specification for SafeString"):
        SafeString("{:>5}").format(SafeString("x"))
    with pytest.raises(ValueError, match="define __html_format__"):
        SafeString("{:>5}").format(WithHtml())
    with pytest.raises(TypeError):
        SafeString("x") * "3"
    # str's % keeps the plain str on the left plain
    assert type("<%s>" % SafeString("<b>")) is str


class BadHtmlType:
    def __html__(self):
        return 3


def test_subclass_results_go_through_its_constructor():
    made = []

    class Tracked(SafeString):
        def __init__(self, text=""):
            made.append(str(text))

    t = Tracked("<b>")
    assert type(t.upper()) is Tracked and type(t % ()) is Tracked
    assert type(t + "<") is Tracked and type("<" + t) is Tracked
    assert type(Tracked.escape("<")) is Tracked
    assert "&lt;" in made and "<B>" in made


def test_join_survives_items_that_empty_the_list():
    # Escaping an item runs its __str__/__html__; the list being joined may
    # change under it.
    items = []

    class ClearsOnStr:
        def __str__(self):
            items.clear()
            return "<x>"

    class ClearsOnHtml:
        def __html__(self):
            items.clear()
            return "<b>"

    items.extend([ClearsOnStr(), "a", "b&", "c"])
    assert SafeString(",").join(items) == "&lt;x&gt;,a,b&amp;,c"
    items.extend([ClearsOnHtml(), "<y>"])
    assert SafeString("|").join(items) == "<b>|&lt;y&gt;"
