"""HTML read for markup.convert: html5lib's tree, with what its own trees lose.

html5lib builds the tree a browser builds, but its ready-made trees drop
what the converter needs in order to write the page back:

- attribute names exactly as written: the etree tree spells ``xlink:href``
  in svg as ``{http://www.w3.org/1999/xlink}href``, which an attribute
  really named ``{http://www.w3.org/1999/xlink}href`` also is, so names
  cannot be told apart there. This tree keeps the name as written
  (``xlink:href``) for both;
- whether an attribute was written bare (``<input required>``) or with an
  empty value (``required=""``): a bare one's value is ``BARE``, an empty
  ``str`` that is an instance of ``Bare``;
- where things are: every node has the ``line`` of the input it starts
  on;
- what the input leaves out: an element that the parser adds on its own
  (``<tbody>`` for a ``<tr>`` in a table) is ``implied``.

``read(html, document)`` parses a whole document or a fragment (in a
``<div>``, as html5lib's ``parseFragment``), with scripting off, as
html5lib does by default. The nodes are ``Element`` (the document and the
fragment are elements named ``#document`` and ``#fragment``), ``Text``,
``Comment`` and ``Doctype``; their ``kind`` says which.

html5lib 1.1 predates ``<template>`` and reads one as an ordinary element,
which browsers do not where the template stands in the head, a table or a
select, or holds table parts: the root's ``unlike_browsers`` lists such
places, as (line, construct, why).
"""

from typing import Any, Dict, List, Optional, Tuple, Union

import html5lib  # type: ignore[import-untyped,unused-ignore]
from html5lib._tokenizer import HTMLTokenizer  # type: ignore[import-untyped,unused-ignore]
from html5lib.constants import namespaces, tokenTypes  # type: ignore[import-untyped,unused-ignore]
from html5lib.treebuilders import base  # type: ignore[import-untyped,unused-ignore]

HTML_NAMESPACE = namespaces["html"]


class Bare(str):
    """The value of an attribute written without one: ``<input required>``."""

    __slots__ = ()


BARE = Bare()


class Text:
    """A run of text (adjacent texts are merged as they are inserted)."""

    kind = "text"

    def __init__(self, data: str, line: int) -> None:
        self.data = data
        self.line = line
        self.parent: Optional[Element] = None


class Comment:
    kind = "comment"

    def __init__(self, data: str, line: int) -> None:
        self.data = data
        self.line = line
        self.parent: Optional[Element] = None


class Doctype:
    kind = "doctype"

    def __init__(self, name: str, public_id: Optional[str], system_id: Optional[str], line: int):
        self.name = name
        self.public_id = public_id or ""
        self.system_id = system_id or ""
        self.line = line
        self.parent: Optional[Element] = None


Node = Any  # Element, Text, Comment or Doctype


class Element(base.Node):  # type: ignore[misc,unused-ignore]
    """An element as html5lib's parser builds it, through these methods.

    ``namespace`` is None for HTML, else that of svg or MathML;
    ``childNodes`` holds every child node, text and comments included."""

    kind = "element"
    childNodes: List[Node]

    def __init__(self, name: str, namespace: Optional[str], tree: "TreeBuilder") -> None:
        self._attributes: Dict[str, str] = {}
        super().__init__(name)
        self.namespace = namespace
        self.tree = tree
        self.line = tree.tag_line()
        self.implied = False

    @property
    def nameTuple(self) -> Any:
        return (self.namespace or HTML_NAMESPACE, self.name)

    @property
    def attributes(self) -> Dict[str, str]:
        return self._attributes

    @attributes.setter
    def attributes(self, attributes: Dict[Any, str]) -> None:
        # In svg and MathML the parser turns "xlink:href" into the key
        # ("xlink", "href", namespace): written back, the key is the name
        # as written, which the parser reads as the same attribute again.
        self._attributes = {}
        for key, value in attributes.items():
            if isinstance(key, tuple):
                prefix, local, _ = key
                key = local if prefix is None else f"{prefix}:{local}"
            self._attributes[key] = value

    def children(self) -> List[Node]:
        """The child nodes; the parser may leave two texts side by side
        (when it moves an element from between them): one text here."""
        merged: List[Node] = []
        for child in self.childNodes:
            if isinstance(child, Text) and merged and isinstance(merged[-1], Text):
                text = Text(merged[-1].data + child.data, merged[-1].line)
                text.parent = self
                merged[-1] = text
            else:
                merged.append(child)
        return merged

    def written_attributes(self) -> Dict[str, Union[str, bool]]:
        """The attributes by their names as written; True for a bare one."""
        return {
            name: True if isinstance(value, Bare) else str(value)
            for name, value in self._attributes.items()
        }

    # --- what html5lib's parser calls ---

    def appendChild(self, node: Node) -> None:
        self._insert(len(self.childNodes), node)

    def insertBefore(self, node: Node, refNode: Node) -> None:
        self._insert(self._index(refNode), node)

    def removeChild(self, node: Node) -> None:
        del self.childNodes[self._index(node)]
        node.parent = None

    def insertText(self, data: str, insertBefore: Optional[Node] = None) -> None:
        index = len(self.childNodes) if insertBefore is None else self._index(insertBefore)
        before = self.childNodes[index - 1] if index else None
        if isinstance(before, Text):
            before.data += data
        else:
            self._insert(index, Text(data, self.tree.text_line(data)))

    def reparentChildren(self, newParent: "Element") -> None:
        for child in self.childNodes:
            if isinstance(child, Text):
                newParent.insertText(child.data)
            else:
                newParent.appendChild(child)
        self.childNodes = []

    def cloneNode(self) -> "Element":
        clone = Element(self.name, self.namespace, self.tree)
        clone.attributes = self.attributes
        clone.line = self.line
        return clone

    def hasContent(self) -> bool:
        return bool(self.childNodes)

    def _insert(self, index: int, node: Node) -> None:
        node.parent = self
        self.childNodes.insert(index, node)

    def _index(self, node: Node) -> int:
        # By identity: two elements alike are still two elements.
        return next(i for i, child in enumerate(self.childNodes) if child is node)


class TreeBuilder(base.TreeBuilder):  # type: ignore[misc,unused-ignore]
    """Builds Element trees; html5lib calls the *Class methods for new nodes."""

    tokenizer: Optional["Tokenizer"] = None

    def reset(self) -> None:
        self.unlike_browsers: List[Tuple[int, str, str]] = []
        super().reset()

    def documentClass(self) -> Element:
        return Element("#document", None, self)

    def fragmentClass(self) -> Element:
        return Element("#fragment", None, self)

    def elementClass(self, name: str, namespace: Optional[str] = None) -> Element:
        return Element(name, namespace, self)

    # An element made for a token that the tokenizer did not read is implied.

    def createElement(self, token: Dict[str, Any]) -> Element:
        element: Element = super().createElement(token)
        element.implied = "written" not in token
        return element

    def insertElementNormal(self, token: Dict[str, Any]) -> Element:
        element: Element = super().insertElementNormal(token)
        element.implied = "written" not in token
        return element

    def commentClass(self, data: str) -> Comment:
        return Comment(data, self.tag_line())

    def doctypeClass(self, name: str, publicId: Optional[str], systemId: Optional[str]) -> Doctype:
        return Doctype(name, publicId, systemId, self.tag_line())

    def note_unlike_browsers(self, construct: str, what: str) -> None:
        why = f"html5lib, which reads the HTML for markup.convert, predates <template> and {what}"
        self.unlike_browsers.append((self.tag_line(), construct, why))

    def tag_line(self) -> int:
        """The line of the tag (or comment) being read: elements that the
        parser adds on its own get that of the tag that made it add them."""
        return self.tokenizer.tag_line if self.tokenizer else 1

    def text_line(self, data: str) -> int:
        """The line that `data`, just read, starts on."""
        if self.tokenizer is None:
            return 1
        return int(self.tokenizer.stream.position()[0]) - data.count("\n")


class Tokenizer(HTMLTokenizer):  # type: ignore[misc,unused-ignore]
    """html5lib's tokenizer, noting where each tag starts and which
    attributes were written without a value."""

    tag_line = 1

    def tagOpenState(self) -> bool:
        # Just past the "<" of a tag, a comment or a doctype.
        self.tag_line = self.stream.position()[0]
        return bool(super().tagOpenState())

    def beforeAttributeValueState(self) -> bool:
        # Only an "=" leads here: the last attribute has a value, if only "".
        token = self.currentToken
        token.setdefault("valued", set()).add(len(token["data"]) - 1)
        return bool(super().beforeAttributeValueState())

    def emitCurrentToken(self) -> None:
        token = self.currentToken
        start_tag = token["type"] == tokenTypes["StartTag"]
        if start_tag:
            token["written"] = True
            valued = token.pop("valued", ())
            for index, attribute in enumerate(token["data"]):
                if index not in valued:
                    attribute[1] = BARE
        super().emitCurrentToken()  # the parser reads the token next
        if start_tag and token["name"] == "template":
            self.parser.template_ahead()


# Where browsers insert a template as the head's rules do, and html5lib
# reads it as any other tag.
_TEMPLATE_KEPT_BY_BROWSERS = (
    *("initial", "beforeHtml", "beforeHead", "inHead", "inHeadNoscript", "afterHead"),
    *("inTable", "inTableText", "inColumnGroup", "inTableBody", "inRow"),
    *("inSelect", "inSelectInTable"),
)


class Parser(html5lib.HTMLParser):  # type: ignore[misc,unused-ignore]
    def __init__(self) -> None:
        super().__init__(tree=TreeBuilder, namespaceHTMLElements=False)

    def reset(self) -> None:
        # html5lib makes a tokenizer of its own class for every parse, just
        # before this: this one notes what the tree needs as well.
        self.tokenizer.__class__ = Tokenizer
        self.tree.tokenizer = self.tokenizer
        super().reset()

    def template_ahead(self) -> None:
        """Notes a <template> start tag, read next, that html5lib puts
        elsewhere than browsers: they keep it where it stands, in the head
        or a table as well, and html5lib moves it out of those as it would
        move a <div> (or drops it in a select)."""
        current = self.tree.openElements[-1] if self.tree.openElements else None
        foreign = current is not None and current.namespace is not None
        if not foreign and self.phase in [self.phases[name] for name in _TEMPLATE_KEPT_BY_BROWSERS]:
            self.tree.note_unlike_browsers(
                "<template>", "moves or drops this template, which browsers keep where it stands"
            )

    def parseError(self, errorcode: str = "", datavars: Optional[Dict[str, Any]] = None) -> None:
        # Inside a template, browsers read table parts (and ignore <html>,
        # <body>...) by rules of their own, which html5lib does not have:
        # where it finds a start tag out of place there, they may not.
        if "start-tag" in errorcode or errorcode == "non-html-root":
            if any(e.name == "template" and e.namespace is None for e in self.tree.openElements):
                name = (datavars or {}).get("name", "html")
                self.tree.note_unlike_browsers(
                    f"<{name}>", "drops or moves this tag inside a template, unlike browsers"
                )
        super().parseError(errorcode, datavars)


def read(html: str, document: bool) -> Element:
    """The tree of `html`: a ``#document``, or a ``#fragment`` as the
    content of a <div>."""
    parser = Parser()
    if document:
        parser.parse(html)
        root: Element = parser.tree.getDocument()
    else:
        root = parser.parseFragment(html)
    root.unlike_browsers = parser.tree.unlike_browsers
    return root
