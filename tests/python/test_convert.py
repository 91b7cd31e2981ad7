"""python -m markup.convert: the printed code renders the HTML it was given,
compared after html5lib has read both (the tree a browser builds), and the
same bytes when the HTML is markup's own output; what markup cannot write
stops the converter with a one-line error."""

import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import html5lib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from markup import Comment, Tag, h, render
from markup.convert import ConvertError, convert

import conftest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "convert"
CONVERT = [*conftest.PYTHON, "-m", "markup.convert"]

# --- the tree html5lib reads ---------------------------------------------

_ETREE = html5lib.getTreeBuilder("etree")


class _Element(_ETREE.elementClass):
    """html5lib's etree element. html5lib 1.1 leaves an element that it
    inserts before another (foster parenting, in tables) out of the child
    list it later moves into a fragment, and so loses it: noted here."""

    def insertBefore(self, node, refNode):
        super().insertBefore(node, refNode)
        self._childNodes.insert(self._childNodes.index(refNode), node)


class _TreeBuilder(_ETREE):
    elementClass = _Element


def dom(html, document):
    """What html5lib reads, as nested tuples: for a document the whole of it,
    doctype and the comments around <html> included; else the nodes of a
    fragment in a <div>. Attribute names as html5lib keeps them."""
    parser = html5lib.HTMLParser(tree=_TreeBuilder, namespaceHTMLElements=False)
    if document:
        parser.parse(html)
        return _nodes(parser.tree.document._element)
    return _nodes(parser.parseFragment(html))


def _nodes(element):
    nodes = []

    def text(data):
        if data and nodes and nodes[-1][0] == "#text":
            nodes[-1] = ("#text", nodes[-1][1] + data)
        elif data:
            nodes.append(("#text", data))

    text(element.text)
    for child in element:
        if child.tag is ElementTree.Comment:
            nodes.append(("#comment", child.text))
        elif child.tag == "<!DOCTYPE>":
            nodes.append(("#doctype", child.text, sorted(child.attrib.items())))
        else:
            nodes.append((child.tag, sorted(child.attrib.items()), _nodes(child)))
        text(child.tail)
    return nodes


def run(code):
    """(the page or fragment the code builds, whether it is a page)."""
    compile(code, "<converted>", "exec")
    namespace = {}
    exec(code, namespace)
    document = "page" in namespace
    return namespace["page" if document else "fragment"], document


def round_trip(html, same_bytes=False):
    code = convert(html)
    node, document = run(code)
    rendered = render(node)
    assert dom(rendered, document) == dom(html, document), code
    if same_bytes:
        assert rendered == html, code
    return code


def refusal(html):
    """The one-line message of the converter's refusal."""
    with pytest.raises(ConvertError) as caught:
        convert(html)
    message = str(caught.value)
    assert len(message.splitlines()) == 1, message
    assert message.startswith(f"line {caught.value.line}: "), message
    return message


@pytest.mark.parametrize("path", sorted(DATA.glob("*.html")), ids=lambda p: p.name)
def test_handwritten_pages_round_trip(path):
    code = round_trip(path.read_text(encoding="utf-8"))
    assert code.startswith("from markup import ")


def bench_pages():
    if not (ROOT / "bench" / "pages.py").exists():  # an sdist leaves bench/ out
        return []
    sys.path.insert(0, str(ROOT))
    try:
        from bench.contenders import markup_lib
        from bench.pages import all_pages
    finally:
        sys.path.remove(str(ROOT))
    tree_contender = markup_lib.tree_contender()
    pages = all_pages(scale_sizes=(10,))
    return [(p.key, tree_contender.renderer(p.kind)(*p.args)) for p in pages]


@pytest.mark.parametrize("key,html", bench_pages(), ids=lambda v: v if len(v) < 30 else "")
def test_benchmark_pages_round_trip(key, html):
    code = round_trip(html, same_bytes=True)
    assert "h.HtmlDocument(" in code


def test_example_pages_round_trip():
    from test_examples import load_example

    pytest.importorskip("starlette")
    pytest.importorskip("flask")
    shop = load_example("starlette_app")
    notes = load_example("flask_app")
    pages = [shop.index_page(), shop.product_page(shop.PRODUCTS[0])]
    pages.append(notes.layout("Notes", notes.search_form("tea & <cake>")))
    for page in pages:
        round_trip(str(page), same_bytes=True)


@pytest.mark.parametrize(
    "html",
    [
        "<!-- built 2026-12-01 -->\n<!DOCTYPE html><html><body>x</body></html><!-- end -->",
        "<!doctype html><title>t</title><pre>\n\nkeep the blank line</pre>",
        "<textarea>\n\nfirst line blank</textarea><listing>\nx</listing>",
        "<!--a--><!--b-->" * 40 + "<p>many comments, then a fragment</p>",
    ],
    ids=["comments-around-html", "pre-newline", "textarea-newline", "many-comments"],
)
def test_corner_cases_round_trip(html):
    round_trip(html)


def test_what_the_code_uses():
    code = convert('<p class="x">a &amp; b<!-- c --><my-el v=1></my-el><!-- <b> --></p>')
    assert code == (
        "from markup import Comment, SafeString, Tag, h\n\n"
        'fragment = h.Fragment(\n    h.P(\n        {"class": "x"},\n        "a & b",\n'
        '        Comment(" c "),\n        Tag("my-el")({"v": "1"}),\n'
        '        SafeString("<!-- <b> -->"),\n    ),\n)\n'
    )
    assert "h.LinearGradient(" in convert("<svg><linearGradient/></svg>")
    assert convert("<!doctype html><title>t</title>").startswith("from markup import h\n\npage = ")


def test_command_line(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<ul><li>tea<li>cake & more</ul>", encoding="utf-8")
    out = subprocess.run(CONVERT + [str(page)], capture_output=True, text=True, check=True)
    assert out.stdout == convert(page.read_text(encoding="utf-8"))
    piped = subprocess.run(
        CONVERT + ["-"], input="<b>x</b>", capture_output=True, text=True, check=True
    )
    assert piped.stdout == convert("<b>x</b>")
    missing = subprocess.run(
        CONVERT + [str(tmp_path / "nope.html")], capture_output=True, text=True
    )
    assert missing.returncode == 2
    assert missing.stderr.startswith("python -m markup.convert: ") and "nope.html" in missing.stderr
    assert "Traceback" not in missing.stderr
    refused = subprocess.run(
        CONVERT + ["-"], input="<p>ok</p>\n<x:y>", capture_output=True, text=True
    )
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith("python -m markup.convert: <stdin>: line 2: <x:y>: ")
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr


# --- what the security review found ----------------------------------------


@pytest.mark.parametrize(
    "html",
    [
        '<p {urn:x}onerror="alert(1)">a</p>',
        '<svg {urn:x}onload="alert(1)"><a xlink:href="#x"/></svg>',
    ],
)
def test_namespaced_attribute_names_are_kept_as_written(html):
    # html5lib's etree spells "{urn:x}onerror" as the attribute onerror in
    # the namespace urn:x; a browser does nothing with the name as written.
    code = round_trip(html)
    node, _ = run(code)
    assert '"{urn:x}on' in code
    assert " onerror=" not in render(node) and " onload=" not in render(node)
    if "xlink" in html:
        assert '{"xlink:href": "#x"}' in code


def test_an_attribute_name_html5lib_cannot_split_is_no_traceback():
    out = subprocess.run(CONVERT + ["-"], input="<p {x=1>a</p>", capture_output=True, text=True)
    assert out.returncode == 0 and out.stderr == ""
    assert 'h.P({"{x": "1"}, "a")' in out.stdout
    round_trip("<p {x=1>a</p>")


@pytest.mark.parametrize("tag", ["iframe", "noembed", "xmp", "noframes"])
def test_raw_text_comes_back_unchanged(tag):
    # The parser takes their text as written: markup would escape a str.
    code = round_trip(f"<{tag}><p>x &amp; <b>y</{tag}><{tag}>&lt;</{tag}>")
    assert 'SafeString("<p>x &amp; <b>y")' in code and 'SafeString("&lt;")' in code
    round_trip(f"<svg><{tag}>a &amp; b</{tag}></svg>")  # in svg, just text


@pytest.mark.parametrize(
    "html,construct",
    [
        ("<a<b>", "<a<b>"),
        ("<x:y>", "<x:y>"),
        ("<svg><style>a<b</style>", "<b<>"),
        ('<p a"b=1>', "<p>"),
        ("<p a&b>", "<p>"),
        ("<script><!-- old --></script>", "text '<!-- old -->' in <script>"),
    ],
)
def test_what_markup_cannot_write_is_a_one_line_error(html, construct):
    message = refusal("<p>fine</p>\n\n" + html)
    assert message.startswith(f"line 3: {construct}: markup refuses to write it: "), message


def test_markup_refusals_where_an_element_stands_name_its_line():
    # Fine alone, refused inside another noscript: found by rendering less.
    message = refusal("<noscript>\n<p>a</p>\n<noscript>b</noscript>\n</noscript>")
    assert message.startswith("line 3: <noscript>: markup refuses to write it: <noscript> inside")


def test_what_would_read_back_otherwise_is_a_one_line_error():
    # The parser's repair of nested links cannot be written as markup.
    message = refusal("<p>ok</p>\n<a><table><a>x")
    assert message.startswith("line 2: <a>: the HTML that markup writes for it reads back")


@pytest.mark.parametrize(
    "html,code",
    [
        ("<input required>", 'h.Input({"required": True})'),
        ('<input required="">', 'h.Input({"required": ""})'),
        ("<input REQUIRED=''>", 'h.Input({"required": ""})'),
        ('<input type=checkbox checked disabled="">', 'True, "disabled": ""}'),
        ("<svg><rect hidden/></svg>", 'h.Rect({"hidden": True})'),
        ("<p hidden></p><p hidden></p>", 'h.P({"hidden": True}), h.P({"hidden": True})'),
    ],
)
def test_bare_attributes_become_true(html, code):
    assert code in round_trip(html, same_bytes=html.startswith("<input required")), html


def test_a_doctype_other_than_html_is_refused():
    message = refusal('<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN">\n<html></html>')
    assert message.startswith('line 1: <!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN">: ')
    assert refusal('<!DOCTYPE html SYSTEM "a\nb">').startswith(
        'line 1: <!DOCTYPE html SYSTEM "a\\nb">'
    )
    # A comment after the doctype stays there.
    code = round_trip(
        "<!DOCTYPE html>\n<!-- saved from url=(0014)about:internet -->\n<html></html>"
    )
    assert 'SafeString("<!doctype html>")' in code


@pytest.mark.parametrize(
    "html,construct",
    [
        ("<template><tr><td>cell</td></tr></template>", "<tr>"),
        ("<!doctype html><head><template><p>x</p></template></head>", "<template>"),
        ("<table><template><tr></tr></template></table>", "<template>"),
        ("<select><template></template></select>", "<template>"),
    ],
)
def test_templates_that_html5lib_reads_unlike_browsers_are_refused(html, construct):
    # html5lib 1.1 reads <template> as any element; markup's own output
    # (h.Template(h.Tr(...)), a template in the head) would come back changed.
    message = refusal(html)
    assert message.startswith(f"line 1: {construct}: html5lib, which reads the HTML"), message
    round_trip("<div><template><p>fine <b>here</b></p></template></div>", same_bytes=True)


@pytest.mark.parametrize(
    "html,code",
    [
        ("<table><tr><td>1</table>", 'h.Table(h.Tr(h.Td("1")))'),
        ("<!doctype html><title>t</title><p>x", 'h.HtmlDocument(h.Title("t"), h.P("x"))'),
        # After </body> the comment is the html element's: written out.
        ("<!doctype html><p>x</p></body><!--c-->", 'h.Body(h.P("x")), Comment("c"))'),
    ],
)
def test_what_the_parser_adds_stays_implied_where_it_reads_the_same(html, code):
    assert code in round_trip(html)


def test_nesting_deeper_than_python_reads_is_refused():
    assert refusal("<div>\n" + "<div>" * 200).startswith("line 2: <div>: elements nested deeper")
    round_trip("<div>" * 150)


# --- random HTML ---------------------------------------------------------------

TAGS = [
    *"p b i a div span li ul h1 form button font nobr image br img input my-el".split(),
    *"svg math foreignObject desc mi mtext annotation-xml".split(),
    *"iframe xmp noembed noframes noscript plaintext style script textarea title".split(),
    *"template table caption colgroup col tbody thead tr td th select option pre".split(),
    *"html head body frameset x:y a<b {x}y b<".split(),
    "x\x0by",  # not a space in HTML, but a line break to Python
]
ATTRIBUTES = [
    *"id class required href xlink:href xmlns viewbox encoding color definitionurl".split(),
    *"{urn:x}onerror {x a:b x<y a&b 'q =e".split(),
]
TEXT = st.one_of(
    st.sampled_from(["&amp;", "&lt;", "&quot;", "&#10;", "</", "<!--", "-->", "<", "&"]),
    st.text(alphabet="ab <&>\"'=/!-\n\r\0é", max_size=6),
)


@st.composite
def attribute(draw):
    name = draw(st.sampled_from(ATTRIBUTES))
    value = draw(st.none() | TEXT)
    if value is None:
        return f" {name}"  # bare
    quoted = draw(st.sampled_from(['"', "'", ""]))
    if quoted:
        return f" {name}={quoted}{value.replace(quoted, '&#39;')}{quoted}"
    unquoted = "".join(c for c in value if c not in " \n\r>\"'`=<") or "v"
    return f" {name}={unquoted}"


@st.composite
def tag(draw):
    name = draw(st.sampled_from(TAGS))
    if draw(st.booleans()):
        return f"</{name}>"
    attributes = "".join(draw(st.lists(attribute(), max_size=3)))
    return f"<{name}{attributes}{draw(st.sampled_from(['', '', '/']))}>"


HTML = st.builds(
    lambda start, pieces: start + "".join(pieces),
    st.sampled_from(["", "", "", "<!DOCTYPE html>", "<html lang=en>", "<!--c--><!doctype html>\n"]),
    st.lists(st.one_of(tag(), TEXT, TEXT.map(lambda t: f"<!--{t}-->")), max_size=14),
)


@settings(deadline=None, print_blob=True)
@given(html=HTML)
def test_random_html_converts_faithfully_or_not_at_all(html):
    try:
        code = convert(html)
    except ConvertError as err:
        assert len(str(err).splitlines()) == 1 and str(err).startswith(f"line {err.line}: ")
        return
    node, document = run(code)
    assert dom(render(node), document) == dom(html, document), code


# --- markup's own output: the same bytes -------------------------------------

CANONICAL = {
    "document": lambda: h.HtmlDocument(
        {"lang": "en"},
        h.Head(h.Meta({"charset": "utf-8"}), h.Title("Tea & <cake>"), h.Style("a > b { x: 1 }")),
        h.Body({"class": "home"}, h.H1("\"Tea\" & 'cake'"), Comment("a & 'b' <c>"), "\n"),
    ),
    "form": lambda: h.Form(
        {"action": "/s?a=1&b=2"},
        h.Input({"type": "email", "required": True, "placeholder": "", "data-x": "<&>"}),
        h.Textarea({"rows": 3}, "\nfirst line blank"),
        h.Select(h.Option({"selected": True, "value": 1}, "one"), h.Option("two")),
        h.Button({"disabled": True}, "Send"),
    ),
    "text elements": lambda: h.Div(
        h.Pre("\nkeep the newline"),
        h.Pre(h.B("bold first")),
        h.Iframe("<p>not markup</p>"),
        Tag("xmp")("a < b & c"),
        h.Noscript(h.P("no script")),
        h.Script("if (a < b && c > d) { go('</p>') }"),
        h.Template(h.P("in a template")),
    ),
    "svg and math": lambda: h.Fragment(
        h.Svg(
            {"viewBox": "0 0 10 10", "xmlns:xlink": "http://www.w3.org/1999/xlink"},
            h.LinearGradient({"id": "g"}),
            h.Use({"xlink:href": "#dot"}),
            h.Style("a > b {}"),
            h.ForeignObject(h.P("html & more")),
        ),
        h.Math(h.Mi("x"), Tag("mo")("<")),
    ),
    "implied elements": lambda: h.HtmlDocument(
        h.Body(h.Table(h.Col(), h.Tr(h.Td("no <tbody>"))), h.Table(h.Tr(h.Td(1))))
    ),
    "table": lambda: h.Table(
        h.Caption("Orders"),
        h.Thead(h.Tr(h.Th({"scope": "col"}, "#"))),
        h.Tbody(h.Tr(h.Td({"colspan": 2}, 12.5), h.Td(None, "O'Brien"))),
    ),
}


@pytest.mark.parametrize("name", sorted(CANONICAL))
def test_markup_output_converts_to_the_same_bytes(name):
    round_trip(render(CANONICAL[name]()), same_bytes=True)
