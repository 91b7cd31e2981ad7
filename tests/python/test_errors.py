"""One test per misuse: the right exception type, and a message that names
the element, the offending attribute or value, and what to do instead."""

import collections

import conftest
import pytest

from markup import Comment, SafeString, Tag, h, render, render_bytes


def test_mapping_after_child_is_type_error():
    with pytest.raises(TypeError) as exc:
        h.Div("text", {"class": "x"})
    msg = str(exc.value)
    assert "<div>" in msg and "after a child" in msg and "first" in msg
    assert "['class']" in msg


def test_mapping_inside_children_list_is_type_error():
    with pytest.raises(TypeError, match=r"<ul>.*mapping.*\['class'\].*after a child"):
        h.Ul([h.Li("a"), {"class": "x"}])


def test_mapping_after_child_in_a_baked_builder_shows_no_stand_in():
    # The values are stand-ins there; their text is internal.
    from markup import baked

    for build in (lambda x: h.Div("t", {"class": x}), lambda x: h.Ul([h.Li(x), {"id": x}])):
        with pytest.raises(TypeError, match="after a child") as exc:
            baked(build)
        assert "\U0010fffd" not in str(exc.value)


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


def test_raw_text_breakout_in_html_object_is_caught_at_render():
    class Sneaky:
        def __html__(self):
            return "</script><b>"

    tree = h.Script(Sneaky())
    with pytest.raises(ValueError, match=r"<script>: __html__\(\) text .* end the element early"):
        render(tree)


@pytest.mark.parametrize("child", [h.Div(), Comment("x")])
def test_element_inside_raw_text_element(child):
    with pytest.raises(TypeError) as exc:
        h.Style(child)
    msg = str(exc.value)
    assert "<style>" in msg and "raw text only" in msg and "str" in msg


def test_lone_surrogate_in_child():
    with pytest.raises(ValueError) as exc:
        h.Em("ok \ud800 bad")
    msg = str(exc.value)
    assert "<em>" in msg and "surrogate" in msg and "U+D800" in msg and "index 3" in msg


def test_lone_surrogate_in_attribute_value():
    with pytest.raises(ValueError, match=r"<a>: text contains a lone surrogate U\+DFFF"):
        h.A(href="\udfff")


def test_lone_surrogate_in_attribute_name():
    with pytest.raises(ValueError, match=r"<a>: .*lone surrogate"):
        h.A({"x\ud800": "1"})


def test_lone_surrogate_at_top_level_render():
    with pytest.raises(ValueError, match=r"render\(\): .*lone surrogate"):
        render("\ud83d")


def test_lone_surrogate_in_comment():
    with pytest.raises(ValueError, match=r"Comment\(\): .*lone surrogate"):
        Comment("\ud800")


def test_comment_needs_str_or_a_number():
    with pytest.raises(TypeError, match=r"Comment\(\) takes a str, int or float, got list"):
        Comment(["x"])


def test_unknown_h_attribute_suggests_tag():
    with pytest.raises(AttributeError) as exc:
        h.MyWidget
    assert "Tag('my-widget')" in str(exc.value)


def test_lowercase_h_attribute_suggests_capitalized():
    with pytest.raises(AttributeError, match=r"h has no element 'div'.*h\.Div"):
        h.div


def test_invalid_tag_name():
    for name in ["", "1abc", "my widget", "a<b", "é"]:
        with pytest.raises(ValueError) as exc:
            Tag(name)
        assert repr(name) in str(exc.value) and "letter" in str(exc.value)


def test_tag_name_must_be_str():
    with pytest.raises(TypeError):
        Tag(3)


def test_deep_tree_gives_clean_error():
    node = h.Div("leaf")
    for _ in range(100_000):
        node = h.Div(node)
    for fn in (render, render_bytes):
        with pytest.raises(ValueError, match=r"<div>: the tree is nested deeper than 1024"):
            fn(node)
    del node  # freeing must not overflow the C stack either


def test_depth_limit_is_exactly_max_depth():
    from markup import MAX_DEPTH

    node = h.I()
    for _ in range(MAX_DEPTH - 1):
        node = h.I(node)
    assert render(node).count("<i>") == MAX_DEPTH
    with pytest.raises(ValueError, match="nested deeper than"):
        render(h.I(node))


def test_deeply_nested_lists_give_recursion_error():
    nested = []
    for _ in range(100_000):
        nested = [nested]
    conftest.deep_or_refused(h.Div, nested, lambda el: render(el) == "<div></div>")
    conftest.deep_or_refused(render, nested, lambda out: out == "")


def test_render_rejects_unknown_objects():
    with pytest.raises(TypeError, match=r"render\(\): cannot render an object of type 'object'"):
        render(object())
    with pytest.raises(TypeError, match=r"render\(\): a bool"):
        render(True)
    with pytest.raises(TypeError, match=r"render\(\): cannot render bytes; decode"):
        render(b"x")


def test_html_method_must_return_str():
    class Bad:
        def __html__(self):
            return 3

    with pytest.raises(TypeError, match=r"Bad.__html__\(\) returned int, not str"):
        render(h.P(Bad()))


def test_exception_in_generator_propagates():
    def gen():
        yield h.Li("a")
        raise KeyError("boom")

    ul = h.Ul(gen())  # taken when rendered, not when built
    with pytest.raises(KeyError, match="boom"):
        render(ul)


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


def test_safe_string_survives_in_attribute():
    assert render(h.A(title=SafeString("&amp;"))) == '<a title="&amp;"></a>'


@pytest.mark.parametrize("value", [h.B({"class": "x onmouseover=alert(1) y"}, "hi"), Comment("c")])
def test_element_as_attribute_value_is_type_error(value):
    # Its HTML holds '"', which would end the quoted attribute value early.
    with pytest.raises(TypeError) as exc:
        h.Div({"title": value})
    msg = str(exc.value)
    assert "<div>" in msg and "'title'" in msg and "end the quoted value early" in msg


def test_element_in_a_baked_attribute_slot_is_type_error():
    from markup import baked

    @baked
    def box(tip):
        return h.Div({"title": tip}, "x")

    with pytest.raises(TypeError, match=r"box\(\) argument 'tip'.*end the quoted value early"):
        box(h.B({"class": "a b"}, "hi"))
    assert str(box("<b>")) == '<div title="&lt;b&gt;">x</div>'
