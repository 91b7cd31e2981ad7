"""Elements and their factories (pymarkup/element.c): Tag and the h
namespace, the attributes a factory takes (mappings, keywords, class and
style values) and the children (flattened, lazy, checked), the Element,
Lazy and Comment objects, and the errors a factory raises where a bad
name or value is written. How a tree is written out is test_render.py's.
"""

import collections
import gc
import sys
import weakref

import markupsafe
import pytest

import markup
from markup import Comment, Element, Lazy, SafeString, Tag, h, render

# ---------------------------------------------------------------------------
# Tag and the h namespace
# ---------------------------------------------------------------------------


def test_custom_tags():
    widget = Tag("my-widget")
    assert repr(widget) == "Tag('my-widget')" and widget.name == "my-widget"
    assert render(widget({"x": "1"}, "hi")) == '<my-widget x="1">hi</my-widget>'
    assert render(Tag("BR")()) == "<BR>"  # void table is case-insensitive
    assert render(Tag("h7")("x")) == "<h7>x</h7>"


def test_tag_takes_its_name_by_keyword_and_keeps_an_exact_str():
    class Name(str):
        pass

    assert Tag(name="x-y").name == "x-y" and repr(Tag(name="x-y")) == "Tag('x-y')"
    subclassed = Tag(Name("my-el"))
    assert type(subclassed.name) is str and subclassed.name == "my-el"
    assert render(subclassed("x")) == "<my-el>x</my-el>"


def test_invalid_tag_name():
    for name in ["", "1abc", "my widget", "a<b", "é"]:
        with pytest.raises(ValueError) as exc:
            Tag(name)
        assert repr(name) in str(exc.value) and "letter" in str(exc.value)


def test_tag_name_must_be_str():
    with pytest.raises(TypeError):
        Tag(3)


def test_tag_void_is_decided_by_the_name_in_any_case():
    assert Tag("br").void and Tag("BR").void and Tag("Input").void
    assert not Tag("x-y").void and not Tag("template").void and not h.Fragment.void
    with pytest.raises(TypeError, match="void element"):
        Tag("IMG")("caption")


def test_tag_properties_are_read_only():
    widget = Tag("x-y")
    for name in ("name", "void"):
        with pytest.raises(AttributeError):
            setattr(widget, name, "z")
    assert widget.name == "x-y" and not widget.void


def test_factories_are_cached_singletons():
    assert markup.h.Div is markup.h.Div
    assert repr(markup.h.Div) == "h.Div" and repr(markup.h.HtmlDocument) == "h.HtmlDocument"


def test_factory_lookups_stay_right_through_the_lookup_cache():
    # h.<Name> lookups are remembered by the name's address, a few dozen
    # at a time: every name, looked up through fresh (not interned) strings
    # and constants in many orders, gives its own factory, and the cache's
    # references stay bounded (a leak would add one per lookup).
    import random

    h = markup.h
    names = dir(h)
    expected = {name: getattr(h, name) for name in names}
    rng = random.Random(5)

    def lookups(rounds):
        for _ in range(rounds):
            rng.shuffle(names)
            for name in names:
                fresh = "".join([name[:1], name[1:]])  # equal, but another object
                assert getattr(h, fresh) is expected[name]
                assert getattr(h, name) is expected[name]
        gc.collect()
        return sum(sys.getrefcount(f) for f in expected.values())

    before = lookups(1)
    after = lookups(50)
    assert abs(after - before) <= 64  # at most the cache's entries moved
    assert h.Div is expected["Div"] and h.Span is expected["Span"]
    with pytest.raises(AttributeError, match="capitalized"):
        _ = h.div


def test_h_has_a_repr_a_sorted_dir_and_no_constructor():
    assert repr(h) == "<markup.h: h.Div, h.Span, ... one factory per HTML element>"
    names = dir(h)
    assert names == sorted(names) and not any(n.startswith("_") for n in names)
    assert {"Div", "HtmlDocument", "Fragment", "LinearGradient"} <= set(names)
    with pytest.raises(TypeError):
        type(h)()


def test_unknown_h_attribute_suggests_tag():
    with pytest.raises(AttributeError) as exc:
        _ = h.MyWidget
    assert "Tag('my-widget')" in str(exc.value)


def test_lowercase_h_attribute_suggests_capitalized():
    with pytest.raises(AttributeError, match=r"h has no element 'div'.*h\.Div"):
        _ = h.div


@pytest.mark.parametrize(
    "name, hint",
    [
        ("my_widget", "Tag('my-widget')"),
        ("foo", "Tag('foo')"),
        ("_private", 'Tag("name")'),
        ("two words", 'Tag("name")'),
    ],
)
def test_a_missing_h_name_suggests_the_custom_element_it_could_be(name, hint):
    with pytest.raises(AttributeError) as exc:
        getattr(h, name)
    assert f"h has no element {name!r}" in str(exc.value) and hint in str(exc.value)


# ---------------------------------------------------------------------------
# Attributes: mappings and keywords
# ---------------------------------------------------------------------------


def test_keywords_are_attributes():
    el = h.Input(type="checkbox", checked=True, class_="big", data_id=3)
    assert render(el) == '<input type="checkbox" checked class="big" data-id="3">'
    assert render(h.Label(for_="q")) == '<label for="q"></label>'
    assert render(h.Div(hx_on__click="go")) == '<div hx-on--click="go"></div>'
    assert render(h.Div(**{"@click": "x"})) == '<div @click="x"></div>'


def test_bare_underscore_keyword_is_the_underscore_attribute():
    assert render(h.Div(_="on click toggle .open")) == '<div _="on click toggle .open"></div>'
    assert render(h.Div(data_x_="1", x_y=2)) == '<div data-x="1" x-y="2"></div>'


def test_attributes_keep_insertion_order():
    el = h.A({"z": "1", "a": "2"}, {"m": "3"}, b="4", c_="5")
    assert render(el) == '<a z="1" a="2" m="3" b="4" c="5"></a>'


def test_many_attributes_keep_order():
    attrs = {f"data-a{i}": i for i in range(5000)}
    el = h.Div(attrs, {"id": "x"}, title="t")
    assert list(el.attrs) == list(attrs) + ["id", "title"]
    expected = "".join(f' data-a{i}="{i}"' for i in range(5000))
    assert render(el) == f'<div{expected} id="x" title="t"></div>'


def test_mapping_abc_attributes_and_errors():
    class Attrs(collections.abc.Mapping):
        def __init__(self, d):
            self.d = d

        def __getitem__(self, k):
            return self.d[k]

        def __iter__(self):
            return iter(self.d)

        def __len__(self):
            return len(self.d)

    assert render(h.P(Attrs({"id": "x"}), "t")) == '<p id="x">t</p>'
    with pytest.raises(TypeError, match=r"<p>: attribute mapping .* after a child"):
        h.P("t", Attrs({"id": "x"}))


def test_mapping_after_child_is_type_error():
    with pytest.raises(TypeError) as exc:
        h.Div("text", {"class": "x"})
    msg = str(exc.value)
    assert "<div>" in msg and "after a child" in msg and "first" in msg
    assert "['class']" in msg


def test_mapping_inside_children_list_is_type_error():
    with pytest.raises(TypeError, match=r"<ul>.*mapping.*\['class'\].*after a child"):
        h.Ul([h.Li("a"), {"class": "x"}])


def test_duplicate_attribute_mapping_and_keyword():
    with pytest.raises(ValueError) as exc:
        h.Div({"class": "a"}, class_="b")
    msg = str(exc.value)
    assert "<div>" in msg and "'class'" in msg and "twice" in msg and "classes(" in msg


def test_duplicate_attribute_two_mappings():
    with pytest.raises(ValueError, match=r"<span>: attribute 'id' is given twice"):
        h.Span({"id": "a"}, {"id": "b"})


def test_duplicate_attribute_found_among_many():
    attrs = {f"data-a{i}": i for i in range(100)}
    with pytest.raises(ValueError, match=r"'data-a99' is given twice"):
        h.Div(attrs, {"data-a99": 0})
    with pytest.raises(ValueError, match=r"'DATA-A7' is given twice"):
        h.Div(attrs, {"DATA-A7": 0})


# A parser lower-cases the ASCII letters of attribute names and keeps the
# first of two that are then equal: the second would be dropped silently.
@pytest.mark.parametrize(
    "build,first,second",
    [
        (lambda: h.A({"href": "/safe", "HREF": "javascript:alert(1)"}), "href", "HREF"),
        (lambda: h.Div({"Class": "a"}, class_="b"), "Class", "class"),
        (lambda: h.Input({"onClick": "a()"}, {"ONCLICK": "b()"}), "onClick", "ONCLICK"),
    ],
)
def test_duplicate_attribute_differing_only_in_ascii_case(build, first, second):
    with pytest.raises(ValueError) as exc:
        build()
    msg = str(exc.value)
    assert f"attribute '{second}' is given twice, also as '{first}'" in msg


def test_attribute_names_differing_in_non_ascii_case_are_two_attributes():
    # The parser folds only ASCII letters: É and é stay two names.
    assert render(h.P({"é": "1", "É": "2"})) == '<p é="1" É="2"></p>'


def test_attribute_name_not_str():
    with pytest.raises(TypeError, match=r"<p>: attribute names must be str, got int 3"):
        h.P({3: "x"})


@pytest.mark.parametrize(
    "name",
    [
        "",
        "a b",
        "a\tb",
        'a"b',
        "a'b",
        "a<b",
        "a>b",
        "a/b",
        "a=b",
        "a&b",
        "a\\b",
        "a`b",
        "a\x00b",
        "a\x7fb",
        "a\x85b",
    ],
)
def test_invalid_attribute_name(name):
    with pytest.raises(ValueError) as exc:
        h.Div({name: "x"})
    msg = str(exc.value)
    assert "<div>" in msg and repr(name) in msg and "attribute names cannot" in msg


def test_invalid_names_are_refused_after_many_valid_ones():
    # Valid names are remembered by address; hundreds of them, built at run
    # time and dropped again, must not let a bad name through.
    for i in range(500):
        name = "".join(["data-", "x" * (i % 7), str(i)])
        assert h.Div({name: i}).attrs == {name: i}
        bad = "".join(["a", " <>\"'=/&`"[i % 9], str(i)])
        with pytest.raises(ValueError):
            h.Div({bad: i})


def test_invalid_keyword_attribute_name():
    with pytest.raises(ValueError, match=r"<div>: invalid attribute name 'a b'"):
        h.Div(**{"a b": 1})


def test_lone_surrogate_in_attribute_name():
    with pytest.raises(ValueError, match=r"<a>: .*lone surrogate"):
        h.A({"x\ud800": "1"})


# ---------------------------------------------------------------------------
# Attribute values, class and style
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,value,hint",
    [
        ("data-x", ["a", "b"], "only class takes a list"),
        ("title", ("a", "b"), "only class takes a list"),
        ("data-x", {"color": "red"}, "style a mapping"),
        ("style", ["color: red"], "style a mapping"),
        ("class", {"a", "b"}, "a set has no order"),
        ("class", b"bytes", "decode"),
        ("class", object(), "SafeString"),
        ("class", ["a", object()], "expected class names"),
        ("style", {"color": ["red"]}, "must be a str, int or float"),
    ],
)
def test_attribute_value_of_wrong_type(name, value, hint):
    with pytest.raises(TypeError) as exc:
        h.Div({name: value})
    msg = str(exc.value)
    assert "<div>" in msg and repr(name) in msg and hint in msg


@pytest.mark.parametrize("value", [h.B({"class": "x onmouseover=alert(1) y"}, "hi"), Comment("c")])
def test_element_as_attribute_value_is_type_error(value):
    # Its HTML holds '"', which would end the quoted attribute value early.
    with pytest.raises(TypeError) as exc:
        h.Div({"title": value})
    msg = str(exc.value)
    assert "<div>" in msg and "'title'" in msg and "end the quoted value early" in msg


def test_lone_surrogate_in_attribute_value():
    with pytest.raises(ValueError, match=r"<a>: text contains a lone surrogate U\+DFFF"):
        h.A(href="\udfff")


@pytest.mark.parametrize(
    "value,expected",
    [
        (["btn", None, False, "", "big"], "btn big"),
        (("a b", ["c", ("d",)]), "a b c d"),
        ({"on": True, "off": False, "maybe": 0}, "on"),
        (["btn", {"active": 1}, "btn"], "btn active"),
        ([], None),
        ({"x": False}, None),
    ],
)
def test_class_takes_a_list_or_mapping_as_classes_does(value, expected):
    from markup import classes

    for el in (h.P(class_=value), h.P({"class": value}), h.P({"CLASS": value})):
        out = render(el)
        name = list(el.attrs)[0] if el.attrs else "class"
        want = "<p></p>" if expected is None else f'<p {name}="{expected}"></p>'
        assert out == want
    assert render(h.P(class_=value)) == render(h.P(classes(value)))


def test_style_takes_a_mapping_as_styles_does():
    from markup import styles

    value = {"color": "red", "margin-top": 0, "border": None, "display": False}
    assert render(h.P(style=value)) == '<p style="color: red; margin-top: 0"></p>'
    assert render(h.P(style=value)) == render(h.P(styles(value)))
    assert render(h.P(style={})) == "<p></p>"


def test_class_list_passes_the_callers_class_through():
    def button(label, class_=None):
        return h.Button(label, class_=["btn", class_])

    assert render(button("a")) == '<button class="btn">a</button>'
    assert render(button("a", "primary wide")) == '<button class="btn primary wide">a</button>'


def test_class_and_style_take_any_mapping():
    from types import MappingProxyType

    out = render(h.P(class_=MappingProxyType({"a": 1, "b": 0}), style=MappingProxyType({"x": 1})))
    assert out == '<p class="a" style="x: 1"></p>'
    with pytest.raises(TypeError, match="'mappingproxy'.*only class takes a list"):
        h.P(data_x=MappingProxyType({}))


def test_errors_from_class_conditions_keep_their_type_and_cause():
    class Refused(TypeError):
        pass

    class Condition:
        def __bool__(self):
            raise Refused("no truth value")

    with pytest.raises(Refused, match="no truth value"):
        h.P(class_={"a": Condition()})
    with pytest.raises(TypeError, match=r"<p>: attribute 'class': classes\(\): expected") as info:
        h.P(class_=["a", object()])
    assert isinstance(info.value.__cause__, TypeError)


# ---------------------------------------------------------------------------
# Children
# ---------------------------------------------------------------------------


def test_children_flattened_at_construction():
    el = h.P(["a"], ("b", [h.I("c"), ("d", None)]), (), [[[]]], [1, 2])
    assert el.children == ("a", "b", el.children[2], "d", 1, 2)
    assert render(el) == "<p>ab<i>c</i>d12</p>"


def test_iterators_and_callables_are_taken_when_rendered():
    taken = []

    def gen():
        taken.append("gen")
        yield "b"
        yield [h.I("c"), ("d", None)]

    def later():
        taken.append("call")
        return h.B(len(taken))

    el = h.P("a", gen(), map(str, [1, 2]), later)
    assert taken == []
    lazy = el.children[1:]
    assert [c.kind for c in lazy] == ["iterator", "iterator", "callable"]
    assert [c.taken for c in lazy] == [False, False, False]
    assert lazy[2].source is later
    assert repr(el) == "<Element p children=4 (3 lazy)>"
    assert render(el) == "<p>ab<i>c</i>d12<b>2</b></p>"
    assert taken == ["gen", "call"]
    assert [c.taken for c in lazy] == [True, True, False]
    assert repr(lazy[0]).startswith("Lazy(iterator <generator object") and "taken" in repr(lazy[0])
    # A second render would find the generator empty: refused, never empty.
    with pytest.raises(ValueError, match=r"^<p>: a one-shot child \(iterator <generator"):
        render(el)
    # Lists and tuples are kept as they are, and render again.
    again = h.P(list(x for x in "ab"))
    assert render(again) == render(again) == "<p>ab</p>"
    # A callable is called by each render, and may return anything a child can be.
    counter = iter(range(10))
    ticking = h.P(lambda: [next(counter), h.Br()])
    assert render(ticking) == "<p>0<br></p>"
    assert render(ticking) == "<p>1<br></p>"


def test_lazy_children_say_their_kind_and_state_in_their_repr():
    def later():
        return "x"

    it = iter(["a"])
    el = h.P(it, later)
    one_shot, call = el.children
    assert repr(one_shot) == f"Lazy(iterator {it!r}, unused)"
    assert repr(call) == f"Lazy(callable {later!r})"  # never taken: no state
    assert render(el) == "<p>ax</p>"
    assert repr(one_shot) == f"Lazy(iterator {it!r}, taken)"
    assert repr(call) == f"Lazy(callable {later!r})" and not call.taken
    assert one_shot.source is it and call.source is later


def test_lazy_type_is_not_constructible():
    with pytest.raises(TypeError):
        Lazy()


@pytest.mark.parametrize("value", [True, False])
def test_bool_child_is_type_error(value):
    with pytest.raises(TypeError) as exc:
        h.P("x", value)
    msg = str(exc.value)
    assert "<p>" in msg and repr(value) in msg and "None" in msg


@pytest.mark.parametrize("value", [b"abc", bytearray(b"abc"), memoryview(b"abc")])
def test_bytes_child_is_type_error(value):
    with pytest.raises(TypeError) as exc:
        h.P(value)
    msg = str(exc.value)
    assert "<p>" in msg and type(value).__name__ in msg and "decode" in msg


def test_unknown_object_child_is_type_error():
    class Thing:
        pass

    with pytest.raises(TypeError) as exc:
        h.Li(Thing())
    msg = str(exc.value)
    assert "<li>" in msg and "'Thing'" in msg and "defines __str__" in msg


def test_uncalled_factory_is_type_error():
    with pytest.raises(
        TypeError, match=r"<ul>: got the factory h.Li as a child, not an element; call it: h.Li\(\)"
    ):
        h.Ul(h.Li)
    with pytest.raises(
        TypeError, match=r"render\(\): got the factory Tag\('x-y'\), not an element"
    ):
        render(Tag("x-y"))


def test_set_child_is_type_error():
    with pytest.raises(TypeError, match=r"<ul>: a set has no order.*sorted"):
        h.Ul({"a", "b"} and {1, 2})


def test_lone_surrogate_in_child():
    with pytest.raises(ValueError) as exc:
        h.Em("ok \ud800 bad")
    msg = str(exc.value)
    assert "<em>" in msg and "surrogate" in msg and "U+D800" in msg and "index 3" in msg


def test_void_element_with_children():
    with pytest.raises(TypeError) as exc:
        h.Br("text")
    msg = str(exc.value)
    assert "<br>" in msg and "void" in msg and "attributes" in msg
    with pytest.raises(TypeError, match=r"<img> is a void element"):
        h.Img({"src": "x"}, [h.Span()])


def test_void_element_accepts_none_and_empty_lists():
    assert render(h.Br(None, [], ())) == "<br>"


@pytest.mark.parametrize(
    "factory,text,found",
    [
        (h.Script, "a</script>b", "</script"),
        (h.Script, "a</SCRIPT >b", "</script"),
        (h.Script, "x = '<!--'", "<!--"),
        (h.Style, "a{}</style>", "</style"),
        (h.Style, "a{}</StYlE", "</style"),
    ],
)
def test_raw_text_breakout_is_value_error(factory, text, found):
    with pytest.raises(ValueError) as exc:
        factory(text)
    msg = str(exc.value)
    assert f"<{factory.name}>" in msg and found in msg and "end the element early" in msg
    assert "tojson" in msg


@pytest.mark.parametrize("child", [h.Div(), Comment("x")])
def test_element_inside_raw_text_element(child):
    with pytest.raises(TypeError) as exc:
        h.Style(child)
    msg = str(exc.value)
    assert "<style>" in msg and "raw text only" in msg and "str" in msg


def test_fragment_refuses_attributes_and_raw_text_parents():
    with pytest.raises(TypeError, match="h.Fragment takes children only.*'id'"):
        h.Fragment({"id": "x"}, "a")
    with pytest.raises(TypeError, match="h.Fragment takes children only.*'class'"):
        h.Fragment(class_="x")
    with pytest.raises(TypeError, match="<script> holds raw text only"):
        h.Script(h.Fragment("x"))


# ---------------------------------------------------------------------------
# The Element object
# ---------------------------------------------------------------------------


def test_elements_are_inspectable():
    child = h.B("x")
    el = h.Div({"class": "c", "hidden": False}, "t", None, [child], 3, id="main")
    assert isinstance(el, Element)
    assert el.tag == "div"
    assert el.attrs == {"class": "c", "hidden": False, "id": "main"}
    assert list(el.attrs) == ["class", "hidden", "id"]
    assert el.children == ("t", child, 3)
    assert el.children[1] is child
    assert h.Br().attrs == {} and h.Br().children == ()
    assert (
        repr(el) == "<Element div attrs={'class': 'c', 'hidden': False, 'id': 'main'} children=3>"
    )
    assert repr(h.P()) == "<Element p children=0>"


def test_element_repr_names_a_doctype_and_counts_lazy_children():
    assert repr(h.HtmlDocument()) == "<Element html doctype children=0>"
    assert (
        repr(h.HtmlDocument({"lang": "en"}, h.Body()))
        == "<Element html doctype attrs={'lang': 'en'} children=1>"
    )
    assert repr(h.Fragment("a", iter([1]), lambda: "b")) == "<Fragment children=3 (2 lazy)>"
    assert repr(h.Ul([h.Li("a")], (x for x in "b"))) == "<Element ul children=2 (1 lazy)>"


def test_elements_cannot_be_created_directly():
    from markup import Element

    with pytest.raises(TypeError):
        Element()


def test_elements_are_immutable():
    el = h.Div({"class": "a"}, "x")
    for name in ("tag", "attrs", "children"):
        with pytest.raises(AttributeError):
            setattr(el, name, None)
    el.attrs["class"] = "changed"  # a copy: the element does not change
    assert render(el) == '<div class="a">x</div>'


def test_element_html_is_a_safe_string():
    el = h.P("a<b")
    html = el.__html__()
    assert isinstance(html, SafeString) and html == render(el)
    assert markupsafe.escape(el) == render(el)  # not escaped twice


def test_str_of_an_element_or_a_comment_is_its_html_as_a_safe_string():
    for node, html in (
        (h.P("a<", class_="c"), '<p class="c">a&lt;</p>'),
        (Comment("a<"), "<!--a&lt;-->"),
    ):
        assert str(node) == html and type(str(node)) is SafeString
        assert f"{node}" == html
        assert node.__html__() == html and type(node.__html__()) is SafeString


def test_html_methods_are_introspectable():
    assert Element.__html__.__text_signature__ == "($self, /)"
    assert Comment.__html__.__text_signature__ == "($self, /)"
    assert "SafeString" in Element.__html__.__doc__
    assert Element.__doc__.startswith("An HTML element built by h.* or Tag(...)")


def test_an_element_in_a_cycle_through_its_child_is_collected():
    class Holder:
        def __html__(self):
            return "<i>held</i>"

    holder = Holder()
    holder.element = h.Div(h.P(holder))  # holder -> element -> p -> holder
    assert render(holder.element) == "<div><p><i>held</i></p></div>"
    gone = weakref.ref(holder)
    del holder
    gc.collect()
    assert gone() is None


# ---------------------------------------------------------------------------
# Comment
# ---------------------------------------------------------------------------


def test_comment():
    c = Comment("a --> b & <c>")
    assert c.text == "a --> b & <c>"
    assert repr(c) == "Comment('a --> b & <c>')"
    assert render(c) == "<!--a --&gt; b &amp; &lt;c&gt;-->"
    assert c.__html__() == render(c) and isinstance(c.__html__(), SafeString)


def test_comment_of_a_number_is_its_text():
    assert render(Comment(42)) == "<!--42-->"
    assert render(Comment(-1.5)) == "<!---1.5-->"
    for not_text in (True, None, b"x", ["x"]):
        with pytest.raises(TypeError, match=r"Comment\(\) takes a str, int or float"):
            Comment(not_text)


def test_comment_text_is_a_read_only_plain_str():
    class Text(str):
        pass

    comment = Comment(Text("a < b"))
    assert type(comment.text) is str and comment.text == "a < b"

    class Shown(str):  # its text is its __str__, as an element's child's is
        def __str__(self):
            return Text("shown & told")

    assert type(Comment(Shown("x")).text) is str and Comment(Shown("x")).text == "shown & told"
    assert render(Comment(Shown("x"))) == "<!--shown &amp; told-->"
    assert render(h.P(Shown("x"))) == "<p>shown &amp; told</p>"
    assert Comment(7).text == "7" and Comment(text="t").text == "t"
    with pytest.raises(AttributeError):
        comment.text = "changed"
    assert render(comment) == "<!--a &lt; b-->"


def test_comment_needs_str_or_a_number():
    with pytest.raises(TypeError, match=r"Comment\(\) takes a str, int or float, got list"):
        Comment(["x"])


def test_lone_surrogate_in_comment():
    with pytest.raises(ValueError, match=r"Comment\(\): .*lone surrogate"):
        Comment("\ud800")
