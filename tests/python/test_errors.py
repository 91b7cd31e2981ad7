"""One test per misuse found when rendering (and in a baked call): the
right exception type, and a message that names the element, the offending
value, and what to do instead. What a factory refuses where the element is
built is in test_element.py."""

import pytest

from markup import SafeString, h, render, render_bytes

import conftest


def test_mapping_after_child_in_a_baked_builder_shows_no_stand_in():
    # The values are stand-ins there; their text is internal.
    from markup import baked

    for build in (lambda x: h.Div("t", {"class": x}), lambda x: h.Ul([h.Li(x), {"id": x}])):
        with pytest.raises(TypeError, match="after a child") as exc:
            baked(build)
        assert "\U0010fffd" not in str(exc.value)


def test_raw_text_breakout_in_html_object_is_caught_at_render():
    class Sneaky:
        def __html__(self):
            return "</script><b>"

    tree = h.Script(Sneaky())
    with pytest.raises(ValueError, match=r"<script>: __html__\(\) text .* end the element early"):
        render(tree)


def test_lone_surrogate_at_top_level_render():
    with pytest.raises(ValueError, match=r"render\(\): .*lone surrogate"):
        render("\ud83d")


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


def test_safe_string_survives_in_attribute():
    assert render(h.A(title=SafeString("&amp;"))) == '<a title="&amp;"></a>'


def test_element_in_a_baked_attribute_slot_is_type_error():
    from markup import baked

    @baked
    def box(tip):
        return h.Div({"title": tip}, "x")

    with pytest.raises(TypeError, match=r"box\(\) argument 'tip'.*end the quoted value early"):
        box(h.B({"class": "a b"}, "hi"))
    assert str(box("<b>")) == '<div title="&lt;b&gt;">x</div>'
