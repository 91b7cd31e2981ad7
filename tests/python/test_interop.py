"""Jinja2 and markupsafe interop, both ways.

markup -> Jinja2: a SafeString, an element, a Comment and a baked result
dropped into an autoescaping Jinja2 template are inserted as they are (they
have __html__), never escaped a second time.

markupsafe -> markup: a Markup (or any __html__ object, such as a Jinja2
macro's output) inside h.* is inserted verbatim in text and in attribute
values, as Jinja2 itself does.

tojson equals Jinja2's |tojson filter byte for byte, and its SafeString is
safe as <script> content: checked with a real HTML parser (html5lib) that
the script element holds exactly the JSON, whatever the data.
"""

import json

import html5lib
import jinja2
import markupsafe
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markup import Comment, SafeString, baked, escape, h, iter_render, render, tojson

from conftest import HOSTILE_TEXT, value_id

ENV = jinja2.Environment(autoescape=True)


def jinja(source, **context):
    return ENV.from_string(source).render(**context)


@baked
def card(title, body):
    return h.Article({"class": "card", "title": title}, h.H2(title), body)


# --- markup objects inside Jinja2 templates ----------------------------------


def fragments():
    """(id, markup object, the HTML it stands for)."""
    return [
        ("safestring", SafeString("<b>Tea & cake</b>"), "<b>Tea & cake</b>"),
        ("escape()", escape("<i>"), "&lt;i&gt;"),
        ("element", h.P({"class": "x"}, "a < b", h.Br()), '<p class="x">a &lt; b<br></p>'),
        ("comment", Comment("<note>"), "<!--&lt;note&gt;-->"),
        (
            "baked",
            card("Tea & <cake>", h.P("é")),
            '<article class="card" title="Tea &amp; &lt;cake&gt;"><h2>Tea &amp; &lt;cake&gt;</h2>'
            "<p>é</p></article>",
        ),
        ("document", h.HtmlDocument(h.Body("x")), "<!doctype html><html><body>x</body></html>"),
    ]


FRAGMENT_IDS = [f[0] for f in fragments()]


@pytest.mark.parametrize("index", range(len(FRAGMENT_IDS)), ids=FRAGMENT_IDS)
def test_markup_objects_are_not_escaped_again_by_jinja2(index):
    _, obj, html = fragments()[index]
    assert render(obj) == html  # what it stands for
    assert jinja("<div>{{ x }}</div>", x=obj) == f"<div>{html}</div>"
    assert jinja("{{ x|e }}", x=obj) == html  # |e trusts __html__ as well
    assert jinja("{{ [x, '<'] | join(' ') }}", x=obj) == html + " &lt;"
    if isinstance(obj, str):
        # `~` takes str() of non-str operands first (Jinja2's soft_str), so
        # only the str-based SafeString keeps __html__ through it, as Markup does.
        assert jinja("{{ x ~ '<' }}", x=obj) == html + "&lt;"
    # ...but |forceescape still escapes, as it does for Markup.
    assert jinja("{{ x|forceescape }}", x=obj) == markupsafe.escape(str(markupsafe.Markup(obj)))


@pytest.mark.parametrize("index", range(len(FRAGMENT_IDS)), ids=FRAGMENT_IDS)
def test_markup_objects_act_like_markupsafe_markup(index):
    _, obj, html = fragments()[index]
    assert markupsafe.Markup(obj) == html
    assert markupsafe.escape(obj) == html
    assert markupsafe.Markup("<td>{}</td>").format(obj) == f"<td>{html}</td>"
    assert markupsafe.Markup("<td>%s</td>") % (obj,) == f"<td>{html}</td>"
    assert markupsafe.Markup("<hr>").join([obj, "<"]) == f"{html}<hr>&lt;"


def test_safestring_behaves_as_markup_in_the_common_template_positions():
    for text in ["<b>x</b>", "&amp;", "a 'q' \"d\"", "é 🎉"]:
        for source in [
            "{{ x }}",
            '<a title="{{ x }}">',
            "{{ x|e }}",
            "{{ x|safe }}",
            "{{ x|string }}",
            "{{ x ~ '<' }}",
            "{% set y = x %}{{ y }}",
            "{% for i in [x, x] %}{{ i }}{% endfor %}",
            "{% macro m(v) %}<i>{{ v }}</i>{% endmacro %}{{ m(x) }}",
            "{{ {'k': x}['k'] }}",
        ]:
            assert jinja(source, x=SafeString(text)) == jinja(source, x=markupsafe.Markup(text))


STRING_FILTERS = [
    "{{ x|trim }}",
    "{{ x|upper }}",
    "{{ x|lower }}",
    "{{ x|title }}",
    "{{ x|capitalize }}",
    "{{ x|indent(2) }}",
    "{{ x|center(30) }}",
    "{{ x|replace('b', '<u>') }}",
    "{{ x|truncate(9) }}",
    "{{ x|striptags }}",
    "{{ x|wordwrap(4) }}",
    "{{ x[1:6] }}",
    "{{ x|format('<i>') }}",
    "{{ x.split('>')|join('|') }}",
    "{{ x * 2 }}",
]


@pytest.mark.parametrize("source", STRING_FILTERS)
def test_string_filters_keep_safestring_safe(source):
    # SafeString's str methods keep it safe, as Markup's do, so a filter
    # does not escape it a second time.
    for text in [" <b>x</b> %s ", "<a href='&amp;'>é</a>%s"]:
        assert jinja(source, x=SafeString(text)) == jinja(source, x=markupsafe.Markup(text))


@pytest.mark.xfail(
    strict=True,
    reason="Jinja2's indent wraps its own newline and indent in "
    "Markup only when isinstance(s, Markup); for another __html__ type "
    "lines after the first are joined by a plain str and escaped",
)
def test_indent_filter_on_many_lines():
    text = "<b>x</b>\n<i>y</i>"
    source = "{{ x|indent(2) }}"
    assert jinja(source, x=SafeString(text)) == jinja(source, x=markupsafe.Markup(text))


def test_baked_layout_inside_a_jinja2_page_and_back():
    # A Jinja2 page embeds markup components, and its output goes back into markup.
    page = ENV.from_string(
        "<main>{% for c in cards %}{{ c }}{% endfor %}<p>{{ note }}</p></main>"
    ).render(cards=[card(f"<{i}>", h.Em(i)) for i in range(3)], note="<unsafe>")
    expected = render(h.Main([card(f"<{i}>", h.Em(i)) for i in range(3)], h.P("<unsafe>")))
    assert page == expected
    # Template.render returns plain str: wrap it to say it is HTML.
    assert render(h.Body(SafeString(page))) == f"<body>{expected}</body>"
    assert render(h.Body(page)).startswith("<body>&lt;main&gt;")


def test_escape_round_trip_with_markupsafe():
    for text in HOSTILE_TEXT:
        assert escape(text) == markupsafe.escape(text)
        assert escape(markupsafe.escape(text)) == markupsafe.escape(text)  # not twice
        assert markupsafe.escape(escape(text)) == markupsafe.escape(text)  # not twice
        assert isinstance(escape(markupsafe.Markup(text)), SafeString)


# --- markupsafe.Markup (and Jinja2 output) inside h.* ------------------------


@pytest.mark.parametrize("text", HOSTILE_TEXT, ids=value_id)
def test_markup_child_is_verbatim(text):
    m = markupsafe.Markup(text)
    assert render(h.P(m)) == f"<p>{text}</p>"
    assert render(h.P(m)) == jinja("<p>{{ m }}</p>", m=m)
    assert render(h.Ul([h.Li(m), m])) == f"<ul><li>{text}</li>{text}</ul>"
    assert b"".join(iter_render(h.P(m), chunk_size=3)) == f"<p>{text}</p>".encode()


@pytest.mark.parametrize("text", HOSTILE_TEXT, ids=value_id)
def test_markup_attribute_value_is_verbatim(text):
    m = markupsafe.Markup(text)
    if '"' in text:
        # Jinja2 writes it as it is, and its '"' ends the value: markup refuses.
        with pytest.raises(ValueError, match="would end the quoted value"):
            render(h.A({"title": m}, "x"))
        return
    assert render(h.A({"title": m}, "x")) == f'<a title="{text}">x</a>'
    assert render(h.A({"title": m}, "x")) == jinja('<a title="{{ m }}">x</a>', m=m)
    assert render(h.A(title=m)) == render(h.A({"title": m}))


def test_markup_built_by_markupsafe_escapes_once():
    user = "<script>alert('x')</script>"
    m = markupsafe.Markup("<strong>{}</strong>").format(user)
    assert render(h.Div(m, title=m)) == jinja('<div title="{{ m }}">{{ m }}</div>', m=m)
    assert render(h.Div(m)) == (
        "<div><strong>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</strong></div>"
    )


def test_markup_subclass_and_other_html_objects():
    class Icon(markupsafe.Markup):
        pass

    class Widget:
        def __html__(self):
            return '<span class="w">é</span>'

    for obj, html in [(Icon("<svg/>"), "<svg/>"), (Widget(), '<span class="w">é</span>')]:
        assert render(h.Div(obj)) == f"<div>{html}</div>" == jinja("<div>{{ o }}</div>", o=obj)
        if '"' in html:
            with pytest.raises(ValueError, match="attribute 'data-x' contains '\"' at byte 12"):
                render(h.Div(data_x=obj))
        else:
            assert render(h.Div(data_x=obj)) == f'<div data-x="{html}"></div>'


def test_number_subclass_with_html_is_trusted_as_markupsafe_does():
    # markupsafe asks for __html__ before anything else: an int or float
    # subclass that has one gives its HTML, as text and as attribute value.
    class Price(float):
        def __html__(self):
            return "<b>9.50</b>"

    class Count(int):
        def __html__(self):
            return "<i>3</i>"

    class Plain(int):
        def __str__(self):
            return "<7>"

    @baked
    def cell(v):
        return h.Td({"data-v": v}, v)

    for obj in (Price(9.5), Count(3), Plain(7)):
        expected = jinja('<td data-v="{{ v }}">{{ v }}</td>', v=obj)
        assert render(h.Td({"data-v": obj}, obj)) == expected
        assert cell(obj) == expected


def test_jinja2_macro_output_inside_markup():
    # A Jinja2 macro returns Markup: a ready component for h.*.
    macros = ENV.from_string(
        "{% macro badge(label, kind) %}"
        '<span class="badge {{ kind }}">{{ label }}</span>'
        "{% endmacro %}"
    ).module
    badge = macros.badge("<new>", "hot & fresh")
    assert isinstance(badge, markupsafe.Markup)
    assert render(h.H1("Tea ", badge)) == (
        '<h1>Tea <span class="badge hot &amp; fresh">&lt;new&gt;</span></h1>'
    )


def test_markup_in_baked_slots_is_verbatim():
    m = markupsafe.Markup("<em>ok</em> &amp;")
    assert render(card(m, m)) == (f'<article class="card" title="{m}"><h2>{m}</h2>{m}</article>')
    assert render(card(m, m)) == render(h.Article({"class": "card", "title": m}, h.H2(m), m))


# --- tojson ------------------------------------------------------------------


TOJSON_VALUES = [
    None,
    True,
    False,
    0,
    -1,
    2**64,
    1.5,
    -0.0,
    1e300,
    "",
    "plain",
    "<",
    ">",
    "&",
    "'",
    '"',
    "<>&'\"",
    "</script><script>alert(1)</script>",
    "</SCRIPT >",
    "<!-- <script>",
    "]]>",
    "-->",
    "é ü 中文 🎉 \u2028 \u2029 \x00 \x1f \x7f",
    "\\u003c",
    [],
    {},
    [1, "two", None, [3, [4, "<5>"]]],
    {"b": 1, "a": 2, "c": {"z": "</script>", "y": ["'&'"]}},
    {"<key>": "v", "k'": "v&"},
    {"x": 1.25, "n": None, "t": True},
    ("tu", "ple"),
    [{"id": i, "name": f"<item {i}>"} for i in range(20)],
]


@pytest.mark.parametrize("value", TOJSON_VALUES, ids=value_id)
def test_tojson_equals_jinja2_filter(value):
    out = tojson(value)
    assert type(out) is SafeString
    assert out == jinja("{{ v|tojson }}", v=value)
    assert out == jinja2.utils.htmlsafe_json_dumps(value, sort_keys=True)
    assert json.loads(out) == json.loads(json.dumps(value))
    for ch in "<>&'":
        assert ch not in out


@pytest.mark.parametrize("value", TOJSON_VALUES[-5:], ids=value_id)
def test_tojson_indent_equals_jinja2_filter(value):
    assert tojson(value, indent=2) == jinja("{{ v|tojson(2) }}", v=value)


def test_tojson_keeps_dumps_options():
    assert tojson({"b": 1, "a": 2}) == '{"a": 2, "b": 1}'
    assert tojson({"b": 1, "a": 2}, sort_keys=False) == '{"b": 1, "a": 2}'
    assert tojson([1, 2], separators=(",", ":")) == "[1,2]"
    assert tojson("é", ensure_ascii=False) == '"é"'
    # Line ends to older JavaScript never go out raw (json.dumps writes them
    # raw only with ensure_ascii=False); the JSON means the same.
    line_ends = "a\u2028b\u2029c"
    assert tojson(line_ends, ensure_ascii=False) == '"a\\u2028b\\u2029c"'
    assert json.loads(tojson(line_ends, ensure_ascii=False)) == line_ends
    with pytest.raises(TypeError):
        tojson({"s": {1, 2}})


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)


def _script_texts(html):
    """The text of every <script> element, as a browser's parser sees it."""
    doc = html5lib.parse(html, namespaceHTMLElements=False)
    return [el.text or "" for el in doc.iter("script")]


@settings(max_examples=300, deadline=None)
@given(value=JSON)
def test_tojson_property_parity_and_no_breakout(value):
    out = tojson(value)
    assert out == jinja("{{ v|tojson }}", v=value)
    html = render(h.Div(h.Script("var data = ", out, ";"), h.P("after")))
    # One script element whose text is exactly the JSON: nothing ended it early.
    (script,) = _script_texts(html)
    assert script == f"var data = {out};"
    assert json.loads(script[len("var data = ") : -1]) == json.loads(json.dumps(value))


@pytest.mark.parametrize("value", TOJSON_VALUES, ids=value_id)
def test_tojson_as_script_content_cannot_break_out(value):
    out = tojson(value)
    html = render(h.Body(h.Script({"type": "application/json", "id": "d"}, out), h.P("after")))
    assert html == f'<body><script type="application/json" id="d">{out}</script><p>after</p></body>'
    assert _script_texts(html) == [str(out)]
    doc = html5lib.parse(html, namespaceHTMLElements=False)
    assert [p.text for p in doc.iter("p")] == ["after"]


def test_raw_json_in_a_script_is_refused_but_tojson_is_not():
    hostile = {"x": "</script><script>alert(1)</script>"}
    with pytest.raises(ValueError, match="script"):
        h.Script(json.dumps(hostile))
    assert "alert" in render(h.Script(tojson(hostile)))
    assert "</script><script>" not in render(h.Script(tojson(hostile)))


def test_json_in_an_attribute_goes_as_plain_text():
    # tojson keeps '"' (JSON needs it), so inside a double-quoted attribute
    # it would end the value, as Jinja2 warns for |tojson too. A plain str is
    # escaped by markup and decoded back by the browser.
    value = {"q": "\"'<&>", "n": [1, 2]}
    html = render(h.Div(data_state=json.dumps(value)))
    doc = html5lib.parse(html, namespaceHTMLElements=False)
    (div,) = list(doc.iter("div"))
    assert json.loads(div.get("data-state")) == value


@pytest.mark.parametrize("text", HOSTILE_TEXT, ids=value_id)
def test_str_of_an_element_is_its_html(text):
    """str(el) is the HTML as a SafeString (htpy, dominate): an f-string or a
    template without autoescape writes the markup, never the repr."""
    el = h.Li({"title": text}, text, h.B(text))
    out = str(el)
    assert type(out) is SafeString
    assert out == render(el) == el.__html__()
    # (str + SafeString would escape the str, as markupsafe does: join.)
    expected = "".join(["<ul>", render(el), "</ul>"])
    assert f"<ul>{el}</ul>" == expected
    plain = jinja2.Environment(autoescape=False).from_string("<ul>{{ el }}</ul>")
    assert plain.render(el=el) == expected
    assert repr(el).startswith("<Element li")
    comment = Comment(text)
    assert type(str(comment)) is SafeString and str(comment) == render(comment)


@pytest.mark.parametrize("text", HOSTILE_TEXT, ids=value_id)
def test_rendered_fragment_is_not_escaped_again_by_jinja2(jinja, text):
    """render() returns a SafeString, so its output placed in an autoescaping
    Jinja2 template comes out once, as the element would."""
    el = h.P({"class": "note"}, text)
    fragment = render(el)
    assert type(fragment) is SafeString and isinstance(fragment, str)
    assert jinja("<div>{{ x }}</div>", x=fragment) == jinja("<div>{{ x }}</div>", x=el)
    assert jinja("<div>{{ x }}</div>", x=fragment) == "".join(["<div>", fragment, "</div>"])
    # Text that is not an element is escaped once by render, then trusted.
    assert jinja("{{ x }}", x=render(text)) == jinja("{{ x }}", x=text)
    assert markupsafe.escape(fragment) == fragment
