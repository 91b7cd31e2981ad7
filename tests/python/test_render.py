"""render() and render_bytes(): serialization rules, how attribute values
and children are written, raw-text elements, the element catalogues, and
the helpers. How elements are built and inspected is test_element.py's."""

import json
import threading

import markupsafe
import pytest

from markup import (
    SafeString,
    Tag,
    aria,
    classes,
    data,
    escape,
    h,
    iter_render,
    render,
    render_bytes,
    styles,
    tojson,
)


def test_readme_example():
    assert render(h.P("a<b")) == "<p>a&lt;b</p>"


def test_design_example():
    items = ["tea", "cake & co"]
    page = h.Div(
        {"class": "card", "data-id": 7},
        h.H2("Tea & cake"),
        h.P(None),
        [h.Li(x) for x in items],
    )
    assert render(page) == (
        '<div class="card" data-id="7"><h2>Tea &amp; cake</h2><p></p>'
        "<li>tea</li><li>cake &amp; co</li></div>"
    )


@pytest.mark.parametrize(
    "value,expected",
    [
        (True, "<button disabled></button>"),
        (False, "<button></button>"),
        (None, "<button></button>"),
        (0, '<button disabled="0"></button>'),
        ("", '<button disabled=""></button>'),
        (1.5, '<button disabled="1.5"></button>'),
        (-(10**30), f'<button disabled="{-(10**30)}"></button>'),
        (SafeString("&amp;<b>"), '<button disabled="&amp;<b>"></button>'),
        (markupsafe.Markup("<i>"), '<button disabled="<i>"></button>'),
    ],
)
def test_attribute_value_rules(value, expected):
    assert render(h.Button(disabled=value)) == expected


def test_bool_checked_before_int():
    # True is an int in Python; it must still be a bare attribute.
    assert render(h.Option(selected=True, value=1)) == '<option selected value="1"></option>'


def test_children_kinds():
    class Html:
        def __html__(self):
            return "<u>trusted</u>"

    el = h.P("a&", 1, 2.5, None, SafeString("<b>"), markupsafe.Markup("<i>"), Html(), h.Br())
    assert render(el) == "<p>a&amp;12.5<b><i><u>trusted</u><br></p>"


def test_int_subclass_and_float_formatting_follow_str():
    import enum

    class Level(enum.IntEnum):
        HIGH = 3

    assert render(h.P(Level.HIGH)) == f"<p>{markupsafe.escape(str(Level.HIGH))}</p>"
    assert render(h.P(1e100, float("inf"), -0.0)) == "<p>1e+100inf-0.0</p>"
    assert render(h.P(2**200)) == f"<p>{2**200}</p>"


def test_str_subclass_without_html_is_escaped():
    class Name(str):
        pass

    assert render(h.P(Name("<x>"))) == "<p>&lt;x&gt;</p>"
    assert render(h.P(title=Name("<x>"))) == '<p title="&lt;x&gt;"></p>'


def test_void_elements_have_no_end_tag():
    voids = "area base br col embed hr img input link meta source track wbr".split()
    for name in voids:
        factory = getattr(h, name.capitalize())
        assert factory.void
        assert render(factory()) == f"<{name}>"
    assert not h.Div.void


def test_html_document_writes_doctype():
    doc = h.HtmlDocument({"lang": "en"}, h.Head(h.Meta(charset="utf-8")), h.Body())
    assert doc.tag == "html" and doc.doctype
    assert render(doc) == (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body></body></html>'
    )
    assert render(h.Html()) == "<html></html>" and not h.Html().doctype


# The catalogs h holds beside HTML's, by their case-sensitive names.
SVG_ELEMENTS = (
    "animate animateMotion animateTransform circle clipPath defs desc ellipse feBlend "
    "feColorMatrix feComponentTransfer feComposite feConvolveMatrix feDiffuseLighting "
    "feDisplacementMap feDistantLight feDropShadow feFlood feFuncA feFuncB feFuncG feFuncR "
    "feGaussianBlur feImage feMerge feMergeNode feMorphology feOffset fePointLight "
    "feSpecularLighting feSpotLight feTile feTurbulence filter foreignObject g image line "
    "linearGradient marker mask metadata mpath path pattern polygon polyline radialGradient "
    "rect set stop switch symbol text textPath tspan use view"
).split()
MATHML_ELEMENTS = (
    "annotation annotation-xml maction merror mfrac mi mmultiscripts mn mo mover mpadded "
    "mphantom mprescripts mroot mrow ms mspace msqrt mstyle msub msubsup msup mtable mtd "
    "mtext mtr munder munderover semantics"
).split()


def _factory_name(element):
    return "".join(part[:1].upper() + part[1:] for part in element.split("-"))


def test_every_standard_element_has_a_factory():
    names = set(dir(h))
    foreign = {_factory_name(e): e for e in SVG_ELEMENTS + MATHML_ELEMENTS}
    # 114 HTML elements (svg and math among them), HtmlDocument, Fragment,
    # and SVG's and MathML's own.
    assert len(names) == 114 + 2 + len(foreign)
    assert set(foreign) <= names
    for name in names - {"HtmlDocument", "Fragment"}:
        factory = getattr(h, name)
        assert isinstance(factory, Tag)
        assert factory.name == foreign.get(name, name.lower())
        assert render(factory()).startswith(f"<{factory.name}>")
    assert {"Search", "Slot", "Hgroup", "Template", "Wbr", "H6", "Svg", "Math"} <= names
    # HTML's factory serves the names SVG shares with it.
    assert h.Title.name == "title" and h.A.name == "a" and h.Script.name == "script"


@pytest.mark.parametrize("element", SVG_ELEMENTS)
def test_svg_factories_write_their_case_inside_svg(element):
    """Each SVG element, inside <svg>, is read back by html5lib in the SVG
    namespace under its own case-sensitive name."""
    import html5lib

    factory = getattr(h, _factory_name(element))
    out = render(h.Body(h.Svg(factory({"id": "x"}))))
    doc = html5lib.parse(out, namespaceHTMLElements=False)
    svg = doc.find("body")[0]
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    # html5lib 1.1's case table predates feDropShadow; browsers have it.
    read_as = element.lower() if element == "feDropShadow" else element
    assert [child.tag for child in svg] == ["{http://www.w3.org/2000/svg}" + read_as]
    assert svg[0].get("id") == "x"


@pytest.mark.parametrize("element", MATHML_ELEMENTS)
def test_mathml_factories_write_their_names_inside_math(element):
    import html5lib

    factory = getattr(h, _factory_name(element))
    out = render(h.Body(h.Math(factory())))
    doc = html5lib.parse(out, namespaceHTMLElements=False)
    math = doc.find("body")[0]
    assert [child.tag for child in math] == ["{http://www.w3.org/1998/Math/MathML}" + element]


def test_foreign_object_holds_html_again():
    out = render(h.Svg(h.ForeignObject(h.Div(h.Style("a>b&c")))))
    assert out == "<svg><foreignObject><div><style>a>b&c</style></div></foreignObject></svg>"
    # Raw text there, which a parser that lost its place would read as
    # foreign content, holds no '<'.
    with pytest.raises(ValueError, match="may not hold '<'"):
        render(h.Svg(h.ForeignObject(h.Div(h.Style("a<b")))))


def test_svg_and_math_factories_start_foreign_content():
    """<svg> and <math> are elements of the HTML standard; inside them a
    parser reads <style> and <script> text as markup, so it is escaped."""
    assert (
        render(h.Svg({"viewBox": "0 0 1 1"}, h.Style("a<b")))
        == '<svg viewBox="0 0 1 1"><style>a&lt;b</style></svg>'
    )
    assert render(h.Math(h.Style("a<b"))) == "<math><style>a&lt;b</style></math>"
    assert render(h.Svg(h.Style("a<b"))) == render(Tag("svg")(h.Style("a<b")))
    assert render(h.Div(h.Style("a>b"))) == "<div><style>a>b</style></div>"


def test_script_and_style_hold_raw_text():
    code = "if (a < b && c > d) { s = '\"' }"
    assert render(h.Script(code)) == f"<script>{code}</script>"
    assert render(h.Style("a > b { content: '&' }")) == "<style>a > b { content: '&' }</style>"
    # attributes of raw-text elements are still escaped
    assert render(h.Script(src="/a.js?x=1&y=2")) == '<script src="/a.js?x=1&amp;y=2"></script>'
    # "</scripts" is not an end tag, but markup rejects any "</script" to be safe
    assert render(h.Script("1 < /script")) == "<script>1 < /script</script>"


def test_tojson_matches_jinja2(jinja):
    value = {"b": "</script><!--", "a": ["'&'", 1, None, True], "c": "é\u2028"}
    assert tojson(value) == jinja("{{ v|tojson }}", v=value)
    assert json.loads(tojson(value)) == value
    assert render(h.Script("var x = ", tojson(value), ";")) == (
        f"<script>var x = {jinja('{{ v|tojson }}', v=value)};</script>"
    )


def test_render_of_several_nodes_renders_each_in_turn():
    assert render(h.P("a"), h.P("b")) == "<p>a</p><p>b</p>"
    assert render("x & y", h.Br(), 3) == "x &amp; y<br>3"
    assert render_bytes(h.P("\u00e9"), "<") == "<p>\u00e9</p>&lt;".encode()
    assert render(h.P("a"), h.P("b")) == render([h.P("a"), h.P("b")])
    with pytest.raises(TypeError, match=r"render\(\) takes at least one node"):
        render()
    with pytest.raises(TypeError, match=r"render_bytes\(\) takes at least one node"):
        render_bytes()


def test_elements_are_shared_not_copied():
    cell = h.Td("x")
    row = h.Tr(cell, cell, cell)
    assert (
        render(h.Table(row, row))
        == "<table>" + ("<tr>" + "<td>x</td>" * 3 + "</tr>") * 2 + "</table>"
    )


def test_render_accepts_any_child_value():
    assert render("a&b") == "a&amp;b"
    assert render(None) == ""
    assert render(3) == "3"
    assert render([h.P("a"), "b", (h.I(),)]) == "<p>a</p>b<i></i>"
    assert render(x for x in ["a", "<"]) == "a&lt;"
    assert render(SafeString("<b>")) == "<b>"
    assert render(escape("<b>")) == "&lt;b&gt;"


@pytest.mark.parametrize(
    "tree",
    [
        h.P("é 🎉 中 <>&\"'"),
        h.Div([h.Span(i) for i in range(1000)]),
        "",
        h.Img(alt="ü"),
    ],
)
def test_render_bytes_is_utf8_of_render(tree):
    out = render_bytes(tree)
    assert isinstance(out, bytes)
    assert out == render(tree).encode("utf-8")


def test_large_output():
    text = "<&>" * 100_000
    big = h.Div([h.P(text) for _ in range(10)])
    out = render(big)
    assert len(out) == 10 * (len("<p></p>") + 100_000 * len("&lt;&amp;&gt;")) + len("<div></div>")


def test_threads_render_the_same_tree():
    tree = h.Ul([h.Li({"data-i": i}, f"item <{i}>") for i in range(200)])
    expected = render(tree)
    results = []

    def work():
        results.extend(render(tree) == expected for _ in range(50))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 200


class TestHelpers:
    def test_classes(self):
        assert classes("btn", "btn-primary") == {"class": "btn btn-primary"}
        assert classes("a b", ["c", None, False, ""], {"d": True, "e": False}, f_g=True) == {
            "class": "a b c d f-g"
        }
        assert classes("a", "a") == {"class": "a"}
        assert classes(None, {"x": 0}) == {}
        assert render(h.Div(classes("x", {"y": True}), "t")) == '<div class="x y">t</div>'
        with pytest.raises(TypeError, match=r"classes\(\): expected class names"):
            classes(3)
        # falsy values are skipped, as `count and "name"` gives them
        count = 0
        assert classes(count and "has-items", 0.0, "", None, False, "x") == {"class": "x"}
        # a set has no order: the attribute would change from run to run
        for unordered in ({"a", "b"}, frozenset({"a"}), ["x", {"a", "b"}]):
            with pytest.raises(TypeError, match="a set has no order"):
                classes(unordered)

    def test_styles(self):
        assert styles({"color": "red"}, margin_top="1px", z_index=2, hidden=None) == {
            "style": "color: red; margin-top: 1px; z-index: 2"
        }
        assert styles() == {}
        assert render(h.P(styles(color="<red>"))) == '<p style="color: &lt;red&gt;"></p>'
        with pytest.raises(TypeError, match=r"styles\(\): the value of 'color'"):
            styles(color=["red"])
        for name in (1, None, b"color"):
            with pytest.raises(TypeError, match=r"styles\(\): a property name must be a str"):
                styles({name: "red"})

    def test_data(self):
        assert data(user_id=3, active=True) == {"data-user-id": 3, "data-active": True}
        assert data({"x_y": 1}) == {"data-x_y": 1}
        assert render(h.Li(data(id=7, on=True, off=False))) == '<li data-id="7" data-on></li>'
        assert data(mapping=1) == {"data-mapping": 1}  # the mapping is positional only

    @pytest.mark.parametrize("helper, prefix", [(data, "data-"), (aria, "aria-")])
    def test_data_and_aria_refuse_what_they_cannot_write(self, helper, prefix):
        name = helper.__name__
        for not_a_mapping in (3, [("a", 1)], "ab", 0, []):
            with pytest.raises(
                TypeError, match=rf"{name}\(\): the positional argument must be a mapping"
            ):
                helper(not_a_mapping)
        with pytest.raises(TypeError, match=rf"{name}\(\): names must be str"):
            helper({1: "x"})
        # a name given twice is refused, as an attribute given twice is
        with pytest.raises(ValueError, match=rf"{name}\(\): '{prefix}a' is given twice"):
            helper({"a": 1}, a=2)
        with pytest.raises(ValueError, match=rf"'{prefix}user-id' is given twice"):
            helper({"user-id": 1}, user_id=2)
        assert helper(None) == {} and helper({}) == {}

    def test_aria(self):
        assert aria(hidden=True, expanded=False, label="Close", describedby=None) == {
            "aria-hidden": "true",
            "aria-expanded": "false",
            "aria-label": "Close",
            "aria-describedby": None,
        }
        assert render(h.Button(aria(hidden=True))) == '<button aria-hidden="true"></button>'

    def test_fragments_combine_with_other_attributes(self):
        el = h.Div(classes("a"), styles(color="red"), data(x=1), aria(label="l"), id="i")
        assert render(el) == (
            '<div class="a" style="color: red" data-x="1" aria-label="l" id="i"></div>'
        )


def test_render_of_a_safestring_gives_its_text_as_a_safestring():
    from markup import SafeString, baked

    @baked
    def item(label):
        return h.Li(label)

    for value in (
        SafeString("<b>x</b>"),
        item("a & b"),
        SafeString("caf\u00e9 <i>"),
        SafeString(""),
    ):
        out = render(value)
        assert type(out) is SafeString
        assert out == str(value)
        assert render_bytes(value) == str(value).encode()


def test_list_of_text_and_safestrings_of_every_width():
    # ASCII text and SafeStrings in a list are written on the spot; other
    # items (non-ASCII, subclasses, __html__ objects) take the general path.
    class Sub(str):
        pass

    class Html:
        def __html__(self):
            return "<i>h</i>"

    items = [
        "a<b",
        SafeString("<b>x</b>"),
        "caf\xe9 &",
        SafeString("<p>\u20ac</p>"),
        Sub("s<"),
        Html(),
        3,
        None,
        ("t", SafeString("<br>")),
        "\U0001f600>",
    ]
    expected = "a&lt;b<b>x</b>caf\xe9 &amp;<p>\u20ac</p>s&lt;<i>h</i>3t<br>\U0001f600&gt;"
    assert render(h.Div(items)) == f"<div>{expected}</div>"
    assert render(items) == expected
    assert render(tuple(items)) == expected


def test_one_non_ascii_character_anywhere_in_a_page():
    # An ASCII page becomes its str by a copy; a single character above
    # U+007F at any offset (each step of the ASCII test, and its tail) must
    # send the page through the UTF-8 decoder instead.
    for width in ("é", "ж", "🍵"):
        for n in range(0, 100):
            text = "a" * n + width + "b" * (n % 7)
            page = h.P(text)
            assert render(page) == f"<p>{text}</p>"
            assert render_bytes(page).decode() == f"<p>{text}</p>"


def test_fragment_renders_its_children_and_gives_them_to_its_parent():
    frag = h.Fragment(h.Li("a"), "b & c", [h.Li("d"), None], ["e"])
    assert frag.tag == "" and frag.attrs == {} and not frag.doctype
    assert repr(frag) == "<Fragment children=4>"
    assert render(frag) == "<li>a</li>b &amp; c<li>d</li>e"
    assert str(frag) == frag.__html__() == render(frag)
    assert render_bytes(frag) == render(frag).encode()
    assert b"".join(iter_render(frag)) == render(frag).encode()
    ul = h.Ul(frag, h.Li("f"))
    assert ul.children == frag.children + ul.children[-1:]
    assert render(ul) == "<ul><li>a</li>b &amp; c<li>d</li>e<li>f</li></ul>"
    assert render(["x", frag, h.Fragment()]) == "x" + render(frag)
    assert render(h.Fragment(h.Fragment("a"), h.Fragment())) == "a"
    assert render(h.Fragment()) == ""


def test_fragment_as_a_baked_result_and_inside_a_template():
    from markup import baked

    @baked
    def term(word, meaning):
        return h.Fragment(h.Dt(word), h.Dd(meaning))

    @baked
    def glossary(entries):
        return h.Dl([h.Fragment(h.Dt(e["w"]), h.Dd(e["m"])) for e in entries])

    assert term("a<b", "c") == "<dt>a&lt;b</dt><dd>c</dd>"
    assert glossary([{"w": "tea", "m": "<hot>"}, {"w": "ice", "m": "cold"}]) == (
        "<dl><dt>tea</dt><dd>&lt;hot&gt;</dd><dt>ice</dt><dd>cold</dd></dl>"
    )


def test_class_list_in_a_baked_template_is_per_call():
    from markup import baked

    @baked
    def tag(name, on, extra):
        return h.Span(name, class_=["tag", extra, {"on": on}], style={"color": extra})

    assert tag("a", True, "red") == '<span class="tag red on" style="color: red">a</span>'
    assert tag("b", False, None) == '<span class="tag">b</span>'
