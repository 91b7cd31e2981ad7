"""From HTML to markup: the Python code (``h.*`` calls) that renders the same
HTML.

    python -m markup.convert page.html        # or - for standard input

prints a module that builds the page as ``page`` (a whole document, when
the input starts with a doctype or an ``<html>`` tag) or ``fragment`` (an
``h.Fragment`` of the top-level nodes otherwise). The HTML is read by
html5lib, as a browser reads it (``pip install html5lib``): implied
elements such as ``<tbody>`` and ``<head>`` become explicit, and rendering
the printed code gives HTML that html5lib reads as the same tree.
"""

import argparse
import re
import sys
from typing import Any, Dict, List, Optional

from ._core import Tag, escape, h

_NAMESPACES = {
    "http://www.w3.org/2000/svg": "svg",
    "http://www.w3.org/1998/Math/MathML": "math",
}
_WIDTH = 100


def _factories() -> Dict[str, str]:
    """Element name -> the h attribute that builds it."""
    names: Dict[str, str] = {}
    for attr in dir(h):
        factory = getattr(h, attr)
        if isinstance(factory, Tag) and attr not in ("HtmlDocument", "Fragment"):
            names.setdefault(factory.name, attr)
    return names


def convert(html: str) -> str:
    """The Python source of a module that builds ``html`` with markup."""
    try:
        import html5lib  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        raise ImportError("markup.convert reads HTML with html5lib: pip install html5lib") from None
    names = _factories()
    if _is_document(html):
        parser = html5lib.HTMLParser(namespaceHTMLElements=False)
        parser.parse(html)
        root = parser.tree.document._element
        doctype = any(node.tag == "<!DOCTYPE>" for node in root)
        # The html element, and the comments before and after it.
        nodes = [
            _node(node, names, 1, document=doctype) for node in root if node.tag != "<!DOCTYPE>"
        ]
        if len(nodes) == 1:
            name, expr = "page", _node(root.find("html"), names, 0, document=doctype)
        else:
            name, expr = "page", _call("h.Fragment", nodes, 0)
    else:
        fragment = html5lib.parseFragment(html, namespaceHTMLElements=False)
        items = _children(fragment, names, 1)
        name, expr = "fragment", _call("h.Fragment", items, 0)
    imports = ["h"]
    if "Comment(" in expr:
        imports.append("Comment")
    if "SafeString(" in expr:
        imports.append("SafeString")
    if "Tag(" in expr:
        imports.append("Tag")
    return f"from markup import {', '.join(sorted(imports))}\n\n{name} = {expr}\n"


def _str(text: str) -> str:
    """A string literal, in double quotes unless the text holds one."""
    literal = repr(text)
    if literal.startswith("'") and '"' not in text and "'" not in text:
        literal = '"' + literal[1:-1] + '"'
    return literal


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


# The parser drops a newline right after these start tags, so a text that
# starts with one must be written with another in front.
_LEADING_NEWLINE_DROPPED = frozenset({"pre", "textarea", "listing"})


def _children(el: Any, names: Dict[str, str], depth: int) -> List[str]:
    items: List[str] = []
    if el.text:
        text = el.text
        if el.tag in _LEADING_NEWLINE_DROPPED and text.startswith("\n"):
            text = "\n" + text
        items.append(_str(text))
    for child in el:
        items.append(_node(child, names, depth))
        if child.tail:
            items.append(_str(child.tail))
    return items


def _node(el: Any, names: Dict[str, str], depth: int, document: bool = False) -> str:
    if not isinstance(el.tag, str):  # a comment
        text = el.text or ""
        if str(escape(text)) == text:
            return f"Comment({_str(text)})"
        # Kept as written: Comment would escape its & < > and quotes.
        return f"SafeString({_str('<!--' + text + '-->')})"
    tag = el.tag
    space = None
    if tag.startswith("{"):
        uri, tag = tag[1:].split("}", 1)
        space = _NAMESPACES.get(uri)
    if document and tag == "html":
        factory = "h.HtmlDocument"
    elif tag in names and (space is not None or tag == tag.lower()):
        factory = f"h.{names[tag]}"
    else:
        factory = f"Tag({_str(tag)})"
    args: List[str] = []
    if el.attrib:
        args.append(_attrs(el.attrib))
    args += _children(el, names, depth + 1)
    return _call(factory, args, depth)


def _attrs(attrib: Dict[str, str]) -> str:
    pairs = []
    for key, value in attrib.items():
        if key.startswith("{"):  # xlink:href and the like
            key = _qualified(key)
        pairs.append(f"{_str(key)}: {_str(value)}")
    return "{" + ", ".join(pairs) + "}"


def _qualified(key: str) -> str:
    uri, local = key[1:].split("}", 1)
    prefix = {
        "http://www.w3.org/1999/xlink": "xlink",
        "http://www.w3.org/XML/1998/namespace": "xml",
        "http://www.w3.org/2000/xmlns/": "xmlns",
    }.get(uri)
    return f"{prefix}:{local}" if prefix and local != "xmlns" else local


def _call(factory: str, args: List[str], depth: int) -> str:
    one_line = f"{factory}({', '.join(args)})"
    if "\n" not in one_line and len(one_line) + 4 * depth <= _WIDTH:
        return one_line
    pad = "    " * (depth + 1)
    inner = "".join(f"{pad}{arg},\n" for arg in args)
    return f"{factory}(\n{inner}{'    ' * depth})"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m markup.convert",
        description="Print the markup code (h.* calls) that renders the same HTML.",
    )
    parser.add_argument("file", help="an HTML file, or - for standard input")
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            html = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                html = f.read()
        code = convert(html)
    except (OSError, UnicodeDecodeError, ImportError) as err:
        parser.exit(2, f"{parser.prog}: {err}\n")
    sys.stdout.write(code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
