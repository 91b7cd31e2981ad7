"""From HTML to markup: the Python code (``h.*`` calls) that renders the same
HTML.

    python -m markup.convert page.html        # or - for standard input

prints a module that builds the page as ``page`` (a whole document, when
the input starts with a doctype or an ``<html>`` tag) or ``fragment`` (an
``h.Fragment`` of the top-level nodes otherwise). The HTML is read by
html5lib, as a browser reads it (``pip install html5lib``). The elements
that the parser adds where the input leaves them out (``<tbody>`` around
table rows, ``<head>``) are left out of the code as well, unless the page
would read otherwise without them; the rest of what the parser adds or
moves shows in the code.

The code renders HTML that html5lib reads as the same tree as the input
(and the same bytes, when the input is markup's own output): attribute
names are kept exactly as written, a bare attribute (``<input required>``)
becomes ``True``, and the text of ``<iframe>``, ``<xmp>``, ``<noembed>``
and ``<noframes>``, which the parser takes as written, a ``SafeString``.
Before it prints anything, the converter renders the tree the code builds
and reads the result back. Where markup refuses to write part of the page
(a tag name such as ``<x:y>``, ``<!--`` in a script...) or what it writes
would read back as another tree, ``convert()`` raises ``ConvertError``, a
``ValueError`` whose message is one line: ``line 3: <x:y>: why``.
"""

import argparse
import re
import sys
from dataclasses import dataclass, field, replace
from html import unescape
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from ._core import Comment, SafeString, Tag, escape, h, render

_WIDTH = 100
# Each element is a call, and Python reads at most 200 nested brackets in
# one expression: deeper pages cannot be written as one.
_MAX_NESTING = 180
# HTML elements whose text the parser takes as written, up to their end
# tag: markup escapes a str there, and writes a SafeString as it is.
_RAW_TEXT = frozenset({"iframe", "xmp", "noembed", "noframes"})
_DOCTYPE = "<!doctype html>"
# Elements that the parser adds where the input leaves them out: the code
# leaves them out too, where it reads back the same without them.
_IMPLIED = frozenset({"head", "body", "tbody", "colgroup"})


class ConvertError(ValueError):
    """The HTML holds something that markup code cannot render as it is
    read. The message is one line: where, what, and why."""

    def __init__(self, line: int, construct: str, reason: str) -> None:
        self.line = line
        self.construct = _printable(construct)
        self.reason = _printable(reason)
        super().__init__(f"line {line}: {self.construct}: {self.reason}")


def _printable(text: str) -> str:
    """`text` on one line: names and doctypes from the input may hold line
    breaks and other controls, written as escapes."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


@dataclass
class _Out:
    """A node of the markup tree the code builds. An element has a factory
    (``code`` its name in the code, ``make`` itself), attributes and
    children; a leaf (text, comment) only ``code`` and the value ``make``.
    ``source`` is the node of the input it stands for, named in errors."""

    source: Any
    code: str
    make: Any
    attrs: Dict[str, Union[str, bool]] = field(default_factory=dict)
    children: Optional[List["_Out"]] = None
    imports: str = ""  # the name the code takes from markup, if any


def convert(html: str) -> str:
    """The Python source of a module that builds ``html`` with markup.

    Raises ConvertError where the code would not render the same tree."""
    reader = _reader()
    document = _is_document(html)
    tree = reader.read(html, document)
    if tree.unlike_browsers:
        raise ConvertError(*tree.unlike_browsers[0])
    _check_nesting(tree)
    page = _document(tree) if document else _fragment(tree)
    if any(_implied(out) for out in _preorder(page)):
        try:
            # As written: the elements that the parser adds where the input
            # leaves them out (<tbody>, <head>...), it adds again.
            return _checked(_as_written(page), tree, reader, document)
        except ConvertError:
            pass  # where it would not, the code writes them out
    return _checked(page, tree, reader, document)


def _checked(page: _Out, tree: Any, reader: Any, document: bool) -> str:
    """The code for `page`, once what it renders reads back as `tree`."""
    copy = reader.read(_rendered(page), document)
    _check_reads_back(tree, copy)
    return _module(page, "page" if document else "fragment")


def _reader() -> Any:
    """markup._htmlread, which needs html5lib (an optional dependency)."""
    try:
        import html5lib  # type: ignore[import-untyped,unused-ignore]  # noqa: F401
    except ImportError:
        raise ImportError("markup.convert reads HTML with html5lib: pip install html5lib") from None
    from . import _htmlread

    return _htmlread


def _is_document(html: str) -> bool:
    """Whether the input starts (after comments and whitespace) with a doctype
    or an <html> tag."""
    at = 0
    while True:
        while at < len(html) and html[at].isspace():
            at += 1
        if not html.startswith("<!--", at):
            break
        end = html.find("-->", at + 4)
        if end < 0:
            return False
        at = end + 3
    return re.match(r"<(!doctype|html[\s>/])", html[at : at + 15], re.I) is not None


# --- from html5lib's tree to the markup tree --------------------------------


def _document(root: Any) -> _Out:
    """The page: h.HtmlDocument, or with comments around it a fragment."""
    nodes = root.children()
    items = []
    for at, node in enumerate(nodes):
        after_doctype = at > 0 and nodes[at - 1].kind == "doctype"
        if node.kind == "doctype":
            _check_doctype(node)
            if at + 1 < len(nodes) and nodes[at + 1].kind == "element":
                continue  # h.HtmlDocument writes it
            # A comment between the doctype and <html> stays there.
            doctype = SafeString(_DOCTYPE)
            items.append(_leaf(node, f"SafeString({_str(_DOCTYPE)})", doctype, "SafeString"))
        elif node.kind == "element" and after_doctype:
            items.append(_element(node, ("h.HtmlDocument", h.HtmlDocument)))
        else:
            items.append(_node(node))
    if len(items) == 1:
        return items[0]
    return _Out(root, "h.Fragment", h.Fragment, children=items, imports="h")


def _fragment(root: Any) -> _Out:
    return _Out(root, "h.Fragment", h.Fragment, children=_children(root), imports="h")


def _check_doctype(doctype: Any) -> None:
    if (doctype.name, doctype.public_id, doctype.system_id) != ("html", "", ""):
        raise ConvertError(
            doctype.line,
            _describe(doctype),
            "markup writes <!doctype html> only; change the doctype to it first "
            "(another changes the page: how browsers lay it out, and the tree)",
        )


def _node(node: Any) -> _Out:
    if node.kind == "element":
        return _element(node)
    if node.kind == "comment":
        return _comment(node)
    return _text(node, node.data)


def _element(element: Any, factory: Optional[Tuple[str, Any]] = None) -> _Out:
    code, make = factory or _factory(element)
    imports = "Tag" if code.startswith("Tag(") else "h"
    attrs = element.written_attributes()
    return _Out(element, code, make, attrs, _children(element), imports)


def _factory(element: Any) -> Tuple[str, Any]:
    """The h attribute that builds the element, or else Tag(name)."""
    name = element.name
    if name in _factories():
        return f"h.{_factories()[name]}", getattr(h, _factories()[name])
    try:
        return f"Tag({_str(name)})", Tag(name)
    except ValueError as err:
        raise _refused(element, err) from None


_FACTORIES: Dict[str, str] = {}


def _factories() -> Dict[str, str]:
    """Element name -> the h attribute that builds it."""
    if not _FACTORIES:
        for attr in dir(h):
            factory = getattr(h, attr)
            if isinstance(factory, Tag) and attr not in ("HtmlDocument", "Fragment"):
                _FACTORIES.setdefault(factory.name, attr)
    return _FACTORIES


def _children(element: Any) -> List[_Out]:
    # A newline the parser dropped after <pre>, <listing> or <textarea> is
    # not in the tree, and markup writes one that begins their text twice:
    # the text as read renders to the same document.
    return [_node(node) for node in element.children()]


def _text(node: Any, text: str) -> _Out:
    parent = node.parent
    if parent is not None and parent.namespace is None and parent.name in _RAW_TEXT:
        return _leaf(node, f"SafeString({_str(text)})", SafeString(text), "SafeString")
    return _leaf(node, _str(text), text)


def _comment(node: Any) -> _Out:
    text = node.data
    # Comment(text) writes the text escaped: markup's own comments read
    # back escaped, and are written as Comment of the text they came from.
    for written in (text, unescape(text)):
        if str(escape(written)) == text:
            return _leaf(node, f"Comment({_str(written)})", Comment(written), "Comment")
    # Kept as written: Comment would escape its & < > and quotes.
    verbatim = "<!--" + text + "-->"
    return _leaf(node, f"SafeString({_str(verbatim)})", SafeString(verbatim), "SafeString")


def _leaf(source: Any, code: str, value: Any, imports: str = "") -> _Out:
    return _Out(source, code, value, imports=imports)


def _as_written(out: _Out) -> _Out:
    """`out` without the elements that the parser adds on its own, where
    the input left them out: their children take their place."""
    if out.children is None:
        return out
    children: List[_Out] = []
    for child in map(_as_written, out.children):
        if _implied(child):
            children.extend(child.children or ())
        else:
            children.append(child)
    return replace(out, children=children)


def _implied(out: _Out) -> bool:
    """Whether `out` is an element that the parser added on its own and
    adds again where its children stand."""
    element = out.source
    return (
        out.children is not None
        and element.implied
        and element.namespace is None
        and element.name in _IMPLIED
        and not out.attrs
    )


# --- checks: markup writes it, and it reads back the same --------------------


def _check_nesting(tree: Any) -> None:
    """Refuses elements nested deeper than the code can be (the first of
    them in document order)."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > _MAX_NESTING:
            raise ConvertError(
                node.line,
                _describe(node),
                f"elements nested deeper than {_MAX_NESTING} make code that Python cannot read",
            )
        children = [child for child in node.children() if child.kind == "element"]
        stack.extend((child, depth + 1) for child in reversed(children))


def _value(out: _Out, budget: Optional[List[int]] = None) -> Any:
    """The markup node that `out`'s code builds. With a budget, only the first
    budget[0] nodes after `out` (in document order) are kept."""
    if out.children is None:
        return out.make
    children = []
    for child in out.children:
        if budget is not None:
            if budget[0] <= 0:
                break
            budget[0] -= 1
        children.append(_value(child, budget))
    return out.make(out.attrs, *children) if out.attrs else out.make(*children)


def _rendered(page: _Out) -> str:
    """The page's HTML; where markup refuses a part of it, a ConvertError
    that names the part."""
    try:
        return str(render(_value(page)))
    except (ValueError, TypeError) as err:
        error: Exception = err
    # The first node whose addition makes markup refuse, found by halving
    # the number of nodes kept: markup checks each node where it stands.
    nodes = list(_preorder(page))
    fine, refused = -1, len(nodes) - 1
    while refused - fine > 1:
        middle = (fine + refused) // 2
        try:
            render(_value(page, [middle]))
            fine = middle
        except (ValueError, TypeError) as err:
            refused, error = middle, err
    raise _refused(nodes[refused].source, error)


def _preorder(out: _Out) -> Iterator[_Out]:
    yield out
    for child in out.children or ():
        yield from _preorder(child)


def _refused(source: Any, error: Exception) -> ConvertError:
    message = str(error).replace("\n", " ")
    return ConvertError(source.line, _describe(source), f"markup refuses to write it: {message}")


def _check_reads_back(tree: Any, copy: Any) -> None:
    """Raises a ConvertError unless the tree read from the rendered page
    (`copy`) is the input's."""
    difference = _first_difference(tree, copy)
    if difference is None:
        return
    source, got = difference
    what = "without it" if got is None else f"as {_describe(got)} there"
    raise ConvertError(
        source.line,
        _describe(source),
        f"the HTML that markup writes for it reads back {what}: the input relies on "
        "the parser repairing it here (misnested or misplaced tags); fix the input there",
    )


def _first_difference(source: Any, copy: Any) -> Optional[Tuple[Any, Any]]:
    """The first node of `source` (in document order) that `copy` does not
    have, with the node of `copy` in its place (None if there is none)."""
    if _shallow(source) != _shallow(copy):
        return source, copy
    if source.kind != "element":
        return None
    mine, theirs = source.children(), copy.children()
    for a, b in zip(mine, theirs):
        found = _first_difference(a, b)
        if found is not None:
            return found
    if len(mine) > len(theirs):
        return mine[len(theirs)], None
    if len(mine) < len(theirs):
        return source, theirs[len(mine)]
    return None


def _shallow(node: Any) -> Tuple[Any, ...]:
    """What the DOM says of the node itself: a bare attribute is "" there."""
    if node.kind == "element":
        return (node.kind, node.namespace, node.name, dict(node.attributes))
    if node.kind == "doctype":
        return (node.kind, node.name, node.public_id, node.system_id)
    return (node.kind, node.data)


def _describe(node: Any) -> str:
    """The construct, as errors name it: <p>, text "...", a comment."""
    if node.kind == "element":
        return "the page" if node.name.startswith("#") else f"<{node.name}>"
    if node.kind == "doctype":
        ids = f' PUBLIC "{node.public_id}"' if node.public_id else ""
        ids += f' "{node.system_id}"' if ids and node.system_id else ""
        ids += f' SYSTEM "{node.system_id}"' if node.system_id and not ids else ""
        return f"<!DOCTYPE {node.name}{ids}>"
    snippet = node.data if len(node.data) <= 30 else node.data[:27] + "..."
    if node.kind == "comment":
        return f"comment {snippet!r}"
    parent = node.parent
    where = "" if parent is None or parent.name.startswith("#") else f" in <{parent.name}>"
    return f"text {snippet!r}{where}"


# --- the code ----------------------------------------------------------------


def _module(page: _Out, name: str) -> str:
    imports = sorted({out.imports for out in _preorder(page)} - {""})
    return f"from markup import {', '.join(imports)}\n\n{name} = {_code(page, 0)}\n"


def _code(out: _Out, depth: int) -> str:
    if out.children is None:
        return out.code
    args = [_attrs(out.attrs)] if out.attrs else []
    args += [_code(child, depth + 1) for child in out.children]
    return _call(out.code, args, depth)


def _attrs(attrs: Dict[str, Union[str, bool]]) -> str:
    pairs = (f"{_str(k)}: {'True' if v is True else _str(str(v))}" for k, v in attrs.items())
    return "{" + ", ".join(pairs) + "}"


def _str(text: str) -> str:
    """A string literal, in double quotes unless the text holds one."""
    literal = repr(text)
    if literal.startswith("'") and '"' not in text and "'" not in text:
        literal = '"' + literal[1:-1] + '"'
    return literal


def _call(factory: str, args: List[str], depth: int) -> str:
    one_line = f"{factory}({', '.join(args)})"
    if "\n" not in one_line and len(one_line) + 4 * depth <= _WIDTH:
        return one_line
    pad = "    " * (depth + 1)
    inner = "".join(f"{pad}{arg},\n" for arg in args)
    return f"{factory}(\n{inner}{'    ' * depth})"


# --- the command line --------------------------------------------------------


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m markup.convert",
        description="Print the markup code (h.* calls) that renders the same HTML.",
    )
    parser.add_argument("file", help="an HTML file, or - for standard input")
    args = parser.parse_args(argv)
    name = "<stdin>" if args.file == "-" else args.file
    try:
        if args.file == "-":
            html = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                html = f.read()
        code = convert(html)
        sys.stdout.write(code)
    except ConvertError as err:
        parser.exit(1, f"{parser.prog}: {name}: {err}\n")
    except (OSError, UnicodeError, ImportError) as err:
        parser.exit(2, f"{parser.prog}: {err}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
