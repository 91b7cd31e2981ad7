"""pretty(): rendered HTML with block-level elements on their own lines, for
reading and for snapshot tests.

Whitespace is added only where the HTML parser and a browser's default
styles ignore it: between the children of a block container (html, head,
body, div, ul, table, ...) when every child is itself a block-level element
or a comment. An element that holds text or inline content keeps its
content exactly as render() writes it, and nothing is added inside pre,
textarea, script, style, svg or math.

The tree is rendered once, as a whole, so that every rule of the writer
(escaping, the parser-state checks) applies as in render(): the places for
line breaks are marked with comments carrying a random nonce, which are
then replaced by a newline and the indentation.
"""

import re
import secrets
from typing import Any, Dict, FrozenSet, List

from ._core import Comment, Element, SafeString, Tag, h, render

# Elements whose content is kept exactly as render() writes it, at any depth:
# whitespace is text there, or the content is not HTML.
_VERBATIM = frozenset("pre textarea script style title svg math template".split())
# Elements whose children may be put on lines of their own.
_CONTAINERS = frozenset(
    """html head body div section article aside header footer nav main search hgroup
    address ul ol menu dl li dt dd table caption thead tbody tfoot tr td th colgroup
    form fieldset figure figcaption blockquote details dialog""".split()
)
# Elements that may stand on a line of their own among such children, in
# any flow container.
_FLOW_BLOCKS = frozenset(
    """div section article aside header footer nav main search hgroup address ul ol menu
    dl table form fieldset figure blockquote details dialog noscript p h1 h2 h3 h4 h5 h6
    hr pre template script style""".split()
)
# Elements that are blocks only in one kind of parent: elsewhere the parser
# drops or moves them, and whitespace beside them would become visible text.
_PLACED_BLOCKS: Dict[str, FrozenSet[str]] = {
    "html": frozenset({"head", "body"}),
    "head": frozenset("meta link title base script style template noscript".split()),
    "ul": frozenset({"li", "script", "template"}),
    "ol": frozenset({"li", "script", "template"}),
    "menu": frozenset({"li", "script", "template"}),
    "dl": frozenset({"dt", "dd", "div", "script", "template"}),
    "table": frozenset("caption colgroup thead tbody tfoot tr script template".split()),
    "thead": frozenset({"tr", "script", "template"}),
    "tbody": frozenset({"tr", "script", "template"}),
    "tfoot": frozenset({"tr", "script", "template"}),
    "tr": frozenset({"td", "th", "script", "template"}),
    "colgroup": frozenset({"col", "template"}),
    "details": _FLOW_BLOCKS | {"summary"},
    "fieldset": _FLOW_BLOCKS | {"legend"},
    "figure": _FLOW_BLOCKS | {"figcaption"},
}


def pretty(node: Any, indent: int = 2) -> SafeString:
    """``node`` rendered as render() renders it, with block-level elements on
    lines of their own, indented by ``indent`` spaces per level. What a
    browser displays is unchanged; the bytes are not Jinja2's."""
    if isinstance(indent, bool) or not isinstance(indent, int) or indent < 0:
        raise TypeError(f"pretty(): indent must be an int >= 0, got {indent!r}")
    nonce = secrets.token_hex(8)
    marked = _mark(node, 0, nonce)
    html = str(render(marked))
    pattern = re.compile("<!--" + nonce + r":(\d+)-->")
    text = pattern.sub(lambda m: "\n" + " " * (indent * int(m.group(1))), html)
    if text.startswith("<!doctype html><html"):
        text = "<!doctype html>\n" + text[len("<!doctype html>") :]
    return SafeString(text)


def _mark(node: Any, depth: int, nonce: str) -> Any:
    """A copy of the tree with marker comments where line breaks go."""
    if isinstance(node, (list, tuple)):
        return [_mark(item, depth, nonce) for item in node]
    if not isinstance(node, Element):
        return node
    children = node.children
    if node.tag == "":  # a fragment at the top
        return [_mark(child, depth, nonce) for child in children]
    if node.tag in _VERBATIM or node.tag not in _CONTAINERS:
        # Only a chain of containers from the top is broken into lines: inside
        # anything else (inline formatting above all, whose parser rules may
        # re-open it around added whitespace) the content stays as written.
        return node
    blocks = _PLACED_BLOCKS.get(node.tag, _FLOW_BLOCKS)
    breaks = children and all(_is_block(c, blocks) for c in children)
    if breaks:
        inner: List[Any] = []
        for child in children:
            inner.append(Comment(f"{nonce}:{depth + 1}"))
            inner.append(_mark(child, depth + 1, nonce))
        inner.append(Comment(f"{nonce}:{depth}"))
    else:
        # Only a child the parser keeps where it stands is broken into lines
        # in turn: a <tbody> in a <div> is dropped, and whitespace inside it
        # would become the div's text.
        inner = [_mark(c, depth + 1, nonce) if _is_block(c, blocks) else c for c in children]
    return _factory(node)(node.attrs, inner)


def _is_block(child: Any, blocks: FrozenSet[str]) -> bool:
    if isinstance(child, Comment):
        return True
    return isinstance(child, Element) and child.tag in blocks


def _factory(node: Element) -> Tag:
    if node.doctype:
        return h.HtmlDocument
    return Tag(node.tag)
