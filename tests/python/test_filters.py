"""markup.filters against Jinja2's filters of the same names: the same
output for the same text and numbers, drawn at random; and the same page
from a @baked builder that applies them per call as from a Jinja2
template that pipes through them.
"""

import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markup import SafeString, baked, h, render
from markup import filters as f

ENV = jinja2.Environment(autoescape=True)
FILTERS = ENV.filters
TEXT = st.text(alphabet=st.sampled_from("ab cD-(<>&;!é_\n\t1"), max_size=40)
HTML = st.lists(
    st.sampled_from(
        ["<!--", "-->", "<", ">", "<b>", "</i>", "a", " ", "\n", "&amp;", "&lt;", "-", "!"]
    ),
    max_size=12,
).map("".join)


def jinja(name, *args, **kwargs):
    """Jinja2's filter as a template applies it (with its environment or
    evaluation context where the filter takes one)."""
    tpl = ENV.from_string("{{ v|%s(*a, **k) }}" % name)
    return tpl.render(v=args[0], a=args[1:], k=kwargs)


def plain(name, *args, **kwargs):
    return render(h.Div(getattr(f, name)(*args, **kwargs)))[len("<div>") : -len("</div>")]


@given(
    TEXT,
    st.integers(3, 30),
    st.booleans(),
    st.sampled_from(["...", "…", "!"]),
    st.integers(0, 6),
)
@settings(max_examples=300, deadline=None)
def test_truncate(s, length, killwords, end, leeway):
    assert plain("truncate", s, length, killwords, end, leeway) == jinja(
        "truncate", s, length, killwords, end, leeway
    )


@given(TEXT)
@settings(max_examples=200, deadline=None)
def test_wordcount_title_center(s):
    assert plain("wordcount", s) == jinja("wordcount", s)
    assert plain("title", s) == jinja("title", s)
    assert plain("center", s, 50) == jinja("center", s, 50)


# Any text: Unicode letters, digits and numerals (\\w), Unicode and ASCII
# separator whitespace (\\x1c-\\x1f, U+00A0, U+2003), full case mappings
# (ß, İ), printable ASCII (the C fast path of title).
ANY_TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=40),
    st.text(
        alphabet=st.sampled_from("aZ_9 \x1c\x1f\u00a0\u2003-([{<ßİ²\u0663\u0301\t"), max_size=30
    ),
)


@given(ANY_TEXT)
@settings(max_examples=500, deadline=None)
def test_wordcount_title_striptags_on_any_text(s):
    assert plain("wordcount", s) == jinja("wordcount", s)
    assert plain("title", s) == jinja("title", s)
    assert plain("striptags", s) == jinja("striptags", s)
    assert plain("striptags", "<i>" + s + "</i><!--" + s + "-->" + s) == jinja(
        "striptags", "<i>" + s + "</i><!--" + s + "-->" + s
    )


@given(st.one_of(st.integers(0, 10**30), st.floats(0, 1e28, allow_nan=False)), st.booleans())
@settings(max_examples=300, deadline=None)
def test_filesizeformat(size, binary):
    assert plain("filesizeformat", size, binary) == jinja("filesizeformat", size, binary)


@given(
    st.one_of(
        TEXT,
        st.dictionaries(TEXT, st.one_of(TEXT, st.integers()), max_size=3),
        st.lists(st.tuples(TEXT, TEXT), max_size=3),
        st.integers(),
    )
)
@settings(max_examples=300, deadline=None)
def test_urlencode(value):
    assert plain("urlencode", value) == jinja("urlencode", value)


@given(HTML)
@settings(max_examples=300, deadline=None)
def test_striptags(html):
    assert plain("striptags", html) == jinja("striptags", html)
    assert plain("striptags", SafeString(html)) == jinja("striptags", SafeString(html))


@given(
    st.lists(st.one_of(TEXT, st.integers(), TEXT.map(SafeString)), max_size=4),
    st.one_of(st.sampled_from(["", ", ", " & "]), st.sampled_from(["<br>", " | "]).map(SafeString)),
)
@settings(max_examples=300, deadline=None)
def test_join_escapes_as_jinja2_does_under_autoescape(items, d):
    # markupsafe.Markup is what Jinja2 recognises; SafeString has __html__
    # and is read the same way.
    assert plain("join", items, d) == jinja("join", items, d)


def test_join_with_an_attribute_and_length():
    users = [{"name": "Ann <a>", "team": {"id": 1}}, {"name": "Bo", "team": {"id": 2}}]
    assert plain("join", users, ", ", "name") == jinja("join", users, ", ", attribute="name")
    assert plain("join", users, "-", "team.id") == jinja("join", users, "-", attribute="team.id")
    assert plain("length", users) == jinja("length", users) == "2"
    # A field not there is Jinja2's undefined: empty.
    odd = [{"name": "a"}, {"nick": "b"}, None]
    assert plain("join", odd, ",", "name") == jinja("join", odd, ",", attribute="name") == "a,,"


def test_truncate_refuses_an_end_longer_than_the_length():
    with pytest.raises(ValueError, match="shorter than end"):
        f.truncate("some long text", 2)


def test_filters_in_a_baked_page_are_applied_per_call():
    @baked
    def post(p):
        return h.Article(
            h.H2(f.title(p["title"])),
            h.P(f.truncate(p["body"], 20)),
            h.P(f.wordcount(p["body"]), " words, ", f.filesizeformat(p["size"])),
            h.A({"href": "/tag/" + f.urlencode(p["tag"])}, f.join(p["tags"], ", ")),
            h.P(f.striptags(p["html"])),
        )

    tpl = ENV.from_string(
        "<article><h2>{{ p.title|title }}</h2><p>{{ p.body|truncate(20) }}</p>"
        "<p>{{ p.body|wordcount }} words, {{ p.size|filesizeformat }}</p>"
        '<a href="/tag/{{ p.tag|urlencode }}">{{ p.tags|join(", ") }}</a>'
        "<p>{{ p.html|striptags }}</p></article>"
    )
    for p in (
        {
            "title": "hello wORLD-(x)",
            "body": "one two three four five six seven",
            "size": 123456,
            "tag": "a b/c&d",
            "tags": ["<x>", "y"],
            "html": "<b>bold</b> &amp; <!-- c -->text",
        },
        {"title": "", "body": "", "size": 1, "tag": "", "tags": [], "html": ""},
    ):
        assert post(p) == tpl.render(p=p)
    # The filter's own function stays reachable, for a plain call.
    assert f.truncate.__wrapped__("abc") == "abc"
