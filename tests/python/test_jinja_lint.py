"""markup.jinja's lint: each {{ }} that stands where Jinja2's escaping does
not protect the page, found by libmarkup's HTML tokenizer (checked here
against html5lib's parser), at load time or from the command line."""

import subprocess
from xml.dom import Node

import html5lib
import jinja2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import markup.jinja as mj
from markup._core import _HtmlScan

import conftest


def findings(templates, name="page.html", **options):
    env = jinja2.Environment(loader=jinja2.DictLoader(templates), autoescape=True)
    return [(f.place, f.lineno, f.expression) for f in mj.lint(env, [name], **options)]


def one(source, **options):
    return findings({"page.html": source}, **options)


# ---- each rule, and what it leaves alone -----------------------------------


@pytest.mark.parametrize(
    "source, expected",
    [
        ("<script>var n = '{{ name }}';</script>", [("script", 1, "name")]),
        ("<style>p { color: {{ c.color }} }</style>", [("style", 1, "c.color")]),
        ("<!-- {{ secret }} -->", [("comment", 1, "secret")]),
        ("<{{ tag }}>", [("tag name", 1, "tag")]),
        ("</{{ tag }}>", [("tag name", 1, "tag")]),
        ("<div {{ attrs }}>", [("attribute name", 1, "attrs")]),
        ('<div class="a"{{ attrs }}>', [("attribute name", 1, "attrs")]),
        ("<td class={{ cls }}>", [("unquoted attribute", 1, "cls")]),
        ('<a onclick="go({{ x }})">', [("event attribute", 1, "x")]),
        ('<a href="{{ link }}">', [("URL", 1, "link")]),
        ("<form action='{{ user[\"next\"] }}'>", [("URL", 1, "user['next']")]),
        ("<img src={{ u }}>", [("unquoted attribute", 1, "u"), ("URL", 1, "u")]),
        ('<button formaction="{{ f|lower }}">', [("URL", 1, "f|lower")]),
    ],
)
def test_each_rule(source, expected):
    assert one(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "<p>{{ text }}</p>",
        "<title>{{ title }} &amp; more</title>",
        "<textarea>{{ body }}</textarea>",
        "<p class=\"{{ cls }}\" title='{{ t }}'>",
        '<a href="/users/{{ id }}">',
        '<a href="https://example.com/?q={{ q }}">',
        "<a href=\"{{ url_for('index') }}\">",
        "<a href=\"{{ request.url_for('index') }}\">",
        "<script>var user = {{ user|tojson }};</script>",
        "<script>var user = {{ user|tojson|safe }};</script>",
        "<a onclick='go({{ x|tojson }})'>",
        "<div {{ attrs|xmlattr }}>",
        "<script>x</script><p>{{ after }}</p>",
        "<!-- note --><p>{{ after }}</p>",
        '<a href="{{ link }}"> {# markup-lint: ignore #}',
        "{{ '<script>' }}{{ x }}",
        "<script>var n = {{ 1 }}, s = {{ 'a' }};</script>",
    ],
)
def test_protected_places_are_not_reported(source):
    assert one(source) == []


def test_url_functions_can_be_named():
    source = '<a href="{{ link_to(x) }}"><a href="{{ url_for(x) }}">'
    assert one(source) == [("URL", 1, "link_to(...)")]
    assert one(source, url_functions=["link_to"]) == [("URL", 1, "url_for(...)")]


def test_a_value_in_a_single_quoted_handler_needs_tojson():
    assert one('<a onclick="go({{ x|tojson }})">') == [("event attribute", 1, "x|tojson")]


def test_the_finding_says_where_why_and_how_to_fix():
    env = jinja2.Environment(
        loader=jinja2.DictLoader({"p.html": "<p>\n<td class={{ row.kind }}>"}), autoescape=True
    )
    (found,) = mj.lint(env, ["p.html"])
    assert (found.template, found.lineno, found.place) == ("p.html", 2, "unquoted attribute")
    assert "space" in found.message
    assert 'class="{{ row.kind }}"' in found.fix
    assert str(found).startswith("p.html:2: {{ row.kind }} is an unquoted attribute value")


# ---- following the template's structure ------------------------------------


def test_both_branches_start_where_the_if_stands():
    source = '<a href="{% if a %}{{ x }}{% else %}/{{ y }}{% endif %}">{{ z }}</a>'
    assert one(source) == [("URL", 1, "x")]
    source = "{% if a %}<script>{% else %}<style>{% endif %}{{ v }}"
    assert one(source) == [("script", 1, "v")]  # on after the first branch


def test_loops_and_their_else():
    source = "<script>{% for x in xs %}{{ x }}{% else %}{{ empty }}{% endfor %}</script>{{ ok }}"
    assert one(source) == [("script", 1, "x"), ("script", 1, "empty")]


def test_macros_and_block_sets_start_as_element_content():
    source = (
        "<script>{% macro m(v) %}{{ v }}{% endmacro %}"
        "{% set s %}{{ w }}{% endset %}</script>"
        "<p>{% macro n(v) %}<a href={{ v }}>{% endmacro %}"
    )
    assert one(source) == [("unquoted attribute", 1, "v"), ("URL", 1, "v")]


def test_a_child_template_blocks_stand_where_the_parent_puts_them():
    templates = {
        "base.html": "<head><script>{% block js %}{% endblock %}</script></head>"
        "<body>{% block body %}{% endblock %}</body>",
        "mid.html": "{% extends 'base.html' %}{% block body %}<p>{% block inner %}{% endblock %}"
        "{% endblock %}",
        "page.html": "{% extends 'mid.html' %}{% block js %}var a = {{ a }};{% endblock %}"
        "{% block inner %}{{ b }}{% endblock %}",
    }
    assert findings(templates) == [("script", 1, "a")]


def test_an_unknown_parent_leaves_blocks_in_element_content():
    templates = {
        "page.html": "{% extends parent %}{% block b %}{{ x }}<a href={{ y }}>{% endblock %}"
    }
    assert findings(templates) == [("unquoted attribute", 1, "y"), ("URL", 1, "y")]
    templates = {"page.html": "{% extends 'missing.html' %}{% block b %}{{ x }}{% endblock %}"}
    assert findings(templates) == []


def test_line_numbers_are_the_expressions():
    source = "<p>\n{{ a }}\n<script>\n\n  {{ b }}</script>"
    assert one(source) == [("script", 5, "b")]


def test_default_names_are_the_html_templates():
    env = jinja2.Environment(
        loader=jinja2.DictLoader(
            {
                "a.html": "<script>{{ x }}</script>",
                "b.txt": "<script>{{ x }}</script>",
                "c.html.j2": "<style>{{ x }}</style>",
            }
        ),
        autoescape=True,
    )
    assert [(f.template, f.place) for f in mj.lint(env)] == [
        ("a.html", "script"),
        ("c.html.j2", "style"),
    ]


def test_bad_arguments():
    with pytest.raises(TypeError, match="jinja2.Environment"):
        mj.lint("templates/")
    env = jinja2.Environment(loader=jinja2.DictLoader({"a.html": ""}))
    with pytest.raises(TypeError, match="iterable of template names"):
        mj.lint(env, "a.html")
    with pytest.raises(jinja2.TemplateNotFound):
        mj.lint(env, ["missing.html"])
    broken = jinja2.Environment(loader=jinja2.DictLoader({"a.html": "{% if %}"}))
    with pytest.raises(jinja2.TemplateSyntaxError):
        mj.lint(broken, ["a.html"])


# ---- at load time -------------------------------------------------------------

HOLE = {
    "page.html": "<p>ok</p>\n<script>var n = '{{ name }}';</script>",
    "fine.html": "<p>{{ x }}</p>",
}


def test_error_at_load():
    env = mj.Environment(loader=jinja2.DictLoader(HOLE), autoescape=True, markup_lint="error")
    assert env.get_template("fine.html").render(x="<b>") == "<p>&lt;b&gt;</p>"
    with pytest.raises(mj.LintError) as caught:
        env.get_template("page.html")
    assert isinstance(caught.value, jinja2.TemplateSyntaxError)
    assert (caught.value.lineno, caught.value.name) == (2, "page.html")
    assert "<script>" in caught.value.message
    assert [f.place for f in caught.value.findings] == ["script"]
    with pytest.raises(mj.LintError):
        env.from_string("<a href={{ u }}>")


def test_warn_at_load_renders_the_same():
    env = mj.Environment(loader=jinja2.DictLoader(HOLE), autoescape=True, markup_lint="warn")
    with pytest.warns(mj.LintWarning, match=r"page.html:2: \{\{ name \}\} stands in <script>"):
        template = env.get_template("page.html")
    plain = jinja2.Environment(loader=jinja2.DictLoader(HOLE), autoescape=True)
    assert template.render(name="</script>") == plain.get_template("page.html").render(
        name="</script>"
    )


def test_ignore_line_at_load():
    source = "<script>var n = '{{ name }}'; {# markup-lint: ignore #}</script>"
    env = mj.Environment(autoescape=True, markup_lint="error")
    assert env.from_string(source).render(name="x") == "<script>var n = 'x'; </script>"


def test_off_by_default_and_through_accelerate():
    env = jinja2.Environment(loader=jinja2.DictLoader(HOLE), autoescape=True)
    mj.accelerate(env)
    env.get_template("page.html")
    env = jinja2.Environment(loader=jinja2.DictLoader(HOLE), autoescape=True)
    mj.accelerate(env, markup_lint="error")
    with pytest.raises(mj.LintError):
        env.get_template("page.html")
    with pytest.raises(ValueError, match="markup_lint"):
        mj.Environment(markup_lint="strict")
    with pytest.raises(ValueError, match="markup_lint"):
        mj.accelerate(jinja2.Environment(), markup_lint=True)


def test_importing_the_command_keeps_lint_callable():
    import markup.jinja.lint  # noqa: F401  (rebinds the package's attribute)

    env = jinja2.Environment(loader=jinja2.DictLoader(HOLE), autoescape=True)
    assert [f.place for f in mj.lint(env, ["page.html"])] == ["script"]


# ---- the command ---------------------------------------------------------------


def run_lint(*args):
    return subprocess.run(
        [*conftest.PYTHON, "-m", "markup.jinja.lint", *args],
        capture_output=True,
        text=True,
        timeout=120 * conftest.TIME_SCALE,
    )


def test_command(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "page.html").write_text("<p>\n<a href={{ u }}>")
    (tmp_path / "fine.html").write_text("<p>{{ x }}</p>")
    (tmp_path / "notes.txt").write_text("<script>{{ x }}</script>")
    done = run_lint(str(tmp_path))
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines() == [
        f"{tmp_path / 'sub' / 'page.html'}:2: {{{{ u }}}} is an unquoted attribute value: a space "
        'in the value ends it and starts another attribute (an onclick), escaping or not; quote '
        'the value: href="{{ u }}"',
        f"{tmp_path / 'sub' / 'page.html'}:2: {{{{ u }}}} starts the URL of href: a javascript: "
        "URL runs script whatever the escaping; start the URL in the template (/, https://, "
        "mailto:), build it with url_for, or check its scheme in Python",
    ]
    assert "2 templates, 2 findings" in done.stderr
    assert "RuntimeWarning" not in done.stderr


def test_command_clean_and_broken(tmp_path):
    (tmp_path / "fine.html").write_text("<p>{{ x }}</p>{% trans %}hi{% endtrans %}")
    done = run_lint(str(tmp_path))
    assert done.returncode == 2
    assert "fine.html:1: cannot be parsed" in done.stderr
    done = run_lint(str(tmp_path), "--extension", "jinja2.ext.i18n")
    assert (done.returncode, done.stdout) == (0, "")


# ---- the tokenizer against html5lib ---------------------------------------------

MARK = "zqvmark"

# Pieces of HTML whose tokenizing does not depend on tree construction
# (no tables, selects, foreign content or noscript).
PIECES = st.sampled_from(
    [
        "<p>", "</p>", "<div", "<a", " ", "x", "=", '"', "'", ">", "/", "<", "</", "<!--", "-->",
        "--", "-", "!", "<!", "<?", "<script>", "</script>", "<style>", "</style>",
        "<title>", "</title>", "<textarea>", "</textarea>", "<xmp>", "</xmp>", " href=",
        " onclick=", "\n", "&amp;", "<script type=x>", "</script ", "</SCRIPT>", "<b>", "</b>",
        "<!doctype html>", "<SCRIPT>", "\t", "<scripts>", "<b x='1'", "script", "<!-->", "]]>",
        "<img/", "/>", "<br>", " HREF = ",
    ]
)  # fmt: skip


def place_in_tree(document):
    """Where MARK ended up in html5lib's tree: (place, tag, attr, value_start)."""
    found = []

    def walk(node):
        if node.nodeType == Node.TEXT_NODE and MARK in node.data:
            tag = node.parentNode.tagName
            kinds = {"script": "raw_text", "style": "raw_text", "xmp": "raw_text"}
            kinds.update(title="rcdata", textarea="rcdata")
            found.append((kinds.get(tag, "text"), tag if tag in kinds else "", "", False))
        elif node.nodeType == Node.COMMENT_NODE and MARK in node.data:
            found.append(("comment", "", "", False))
        elif node.nodeType == Node.ELEMENT_NODE:
            if MARK in node.tagName:
                found.append(("tag_name", "", "", False))
            for name, value in node.attributes.items():
                if MARK in name:
                    found.append(("attr_name", node.tagName, "", False))
                elif MARK in value:
                    found.append(("attr_value", node.tagName, name, value.startswith(MARK)))
        for child in node.childNodes:
            walk(child)

    document.normalize()  # html5lib may leave text in several nodes
    walk(document)
    return found


@settings(max_examples=max(100, int(2000 / conftest.TIME_SCALE)), deadline=None)
@given(st.lists(PIECES, max_size=12))
def test_tokenizer_agrees_with_html5lib(pieces):
    before = "".join(pieces)
    scan = _HtmlScan()
    scan.text(before)
    place, tag, attr, _quote, value_start = scan.at()
    # what follows ends any tag or attribute value the mark stands in
    tree = html5lib.parse(before + MARK + "\"'>", treebuilder="dom", namespaceHTMLElements=False)
    found = place_in_tree(tree)
    if not found:  # an end tag's name or attributes, or an attribute given twice
        assert place in ("tag_name", "attr_name", "attr_value"), (before, place)
        return
    assert len(found) == 1, (before, found)
    if place in ("tag_name", "attr_name"):  # (html5lib may add it to an earlier element)
        assert found[0][0] == place, (before, found[0])
    else:
        assert found[0] == (place, tag, attr, value_start), (before, found[0])
