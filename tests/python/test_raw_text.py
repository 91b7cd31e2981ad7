"""<script> and <style> hold raw text: a breakout is refused even when it is
split across several children, which are written back to back."""

import pytest

from markup import SafeString, h, render, tojson


@pytest.mark.parametrize(
    "pieces",
    [
        ("a</", "script>"),
        ("</scr", "ipt>"),
        ("<", "/", "s", "c", "r", "i", "p", "t"),
        ("x</SCR", "IPT"),
        ("<!", "--"),
        ("<!-", -1),
        ("<!-", SafeString("-")),
        (["</sc"], ("ript",)),
    ],
    ids=repr,
)
def test_split_breakout_in_script_is_refused(pieces: tuple) -> None:
    with pytest.raises(ValueError, match=r"<script>.*would end the element early"):
        h.Script(*pieces)


@pytest.mark.parametrize("pieces", [("</st", "yle>"), ("a</", "STYLE")], ids=repr)
def test_split_breakout_in_style_is_refused(pieces: tuple) -> None:
    with pytest.raises(ValueError, match=r"<style>.*would end the element early"):
        h.Style(*pieces)


def test_harmless_pieces_render_back_to_back() -> None:
    assert render(h.Script("let a = 1;", " let b = a < 2;", 3)) == (
        "<script>let a = 1; let b = a < 2;3</script>"
    )
    assert render(h.Style("p { color: red }", " a > b { x: y }")) == (
        "<style>p { color: red } a > b { x: y }</style>"
    )
    # <!-- is fine in style, only </style ends it
    assert render(h.Style("<!", "--")) == "<style><!--</style>"


def test_tojson_pieces_cannot_combine_into_a_breakout() -> None:
    data = {"html": "</script><script>alert(1)</script>", "c": "<!--"}
    out = render(h.Script("const a = ", tojson(data), "; const b = ", tojson(["</", "script>"])))
    assert "</script" not in out[: -len("</script>")].lower()


class Fragment:
    def __init__(self, text: str) -> None:
        self.text = text

    def __html__(self) -> str:
        return self.text


@pytest.mark.parametrize(
    "pieces",
    [
        ("</scr", Fragment("ipt>")),
        (Fragment("</scr"), "ipt"),
        (Fragment("<!-"), Fragment("-")),
        ("<!-", Fragment("-x")),
    ],
    ids=repr,
)
def test_breakout_split_across_html_objects_is_caught_at_render(pieces: tuple) -> None:
    tree = h.Script(*pieces)  # __html__ text is only known when rendering
    with pytest.raises(
        ValueError, match=r"<script>: its text, written whole, .*end the element early"
    ):
        render(tree)


def test_html_objects_in_script_render_when_harmless() -> None:
    assert render(h.Script("var a = ", Fragment("1"), ";")) == "<script>var a = 1;</script>"
