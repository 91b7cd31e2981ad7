"""A small model of an HTML tree for the hardening tests.

A model (El, Txt, Cmt, Safe, Verbatim, and plain str/int/float/bool/None values) is
written once and turned into three things:

- ``build(model)``: the h.* tree that markup renders;
- ``bake(model)``: a @baked function in which every attribute value and
  every text child is a parameter, plus the arguments that fill it with the
  model's values;
- ``expected_dom(model)``: the DOM an HTML5 parser must build from the
  output, computed from the model alone (never from markup's output).

``parse_dom(html)`` parses markup's output with html5lib (the reference
HTML5 parser in Python) as a fragment inside a <div>, the way a browser
would insert it, and normalizes the result into the same shape:
``("#text", data)``, ``("#comment", data)`` or ``(tag, [(name, value),
...], [children])``, with adjacent text merged and namespaces written as a
``svg:`` / ``math:`` prefix.

The expected DOM applies the HTML parsing rules that legitimately change
text, so that any other difference is a real one:

- input preprocessing turns CR LF and lone CR into LF, everywhere;
- a NUL is dropped from ordinary element text, and becomes U+FFFD in
  attribute values, comments, RCDATA (title, textarea), raw text (script,
  style) and foreign (svg, math) text;
- a leading LF right after <pre>, <listing> or <textarea> is dropped by
  the parser; markup writes one in text there twice, so the DOM keeps the
  text, but trusted HTML is written as it is and loses it;
- tag and attribute names are lower-cased (ASCII only).

Inside <svg> and <math> the parser treats <script>, <style>, <title> and
<textarea> as ordinary elements; the expected DOM does too.
"""

import itertools
from dataclasses import dataclass, field
from typing import Any, List, Tuple
from xml.etree import ElementTree

import html5lib
import html5lib._tokenizer
import markupsafe

from markup import Comment, Element, SafeString, Tag, baked, escape

SVG_NS = "http://www.w3.org/2000/svg"
MATH_NS = "http://www.w3.org/1998/Math/MathML"
NS_PREFIX = {SVG_NS: "svg:", MATH_NS: "math:"}

# Where text lands decides what the parser does with a NUL.
BODY, REPLACED = "body", "replaced"
RCDATA_TAGS = {"title", "textarea"}
RAW_TEXT_TAGS = {"script", "style"}
# Foreign elements whose text the parser handles with the HTML rules.
INTEGRATION_POINTS = {
    ("svg", "desc"),
    ("svg", "title"),
    ("svg", "foreignobject"),
    ("math", "mi"),
    ("math", "mo"),
    ("math", "mn"),
    ("math", "ms"),
    ("math", "mtext"),
}


@dataclass
class El:
    """An element: tag as written (Tag(tag) builds it), attributes in order,
    children. <svg> and <math> and what they hold land in their namespaces,
    as the parser decides."""

    tag: str
    attrs: List[Tuple[str, Any]] = field(default_factory=list)
    children: List[Any] = field(default_factory=list)


@dataclass
class Cmt:
    """Comment(text)."""

    text: str


@dataclass
class Safe:
    """markup.escape(text): trusted markup whose parsed text is ``text``."""

    text: str


@dataclass
class Verbatim:
    """SafeString(text): trusted markup written as it is. As an attribute
    value, a text without '"' or '&' is parsed back as itself."""

    text: str


def _value(v):
    """The Python value markup receives for a model value."""
    if isinstance(v, Verbatim):
        return SafeString(v.text)
    return escape(v.text) if isinstance(v, Safe) else v


def build(model):
    """The h.* tree for a model node (or a list of them)."""
    if isinstance(model, list):
        return [build(m) for m in model]
    if isinstance(model, El):
        attrs = {name: _value(v) for name, v in model.attrs}
        return Tag(model.tag)(attrs, *[build(c) for c in model.children])
    if isinstance(model, Cmt):
        return Comment(model.text)
    return _value(model)


# --- baking ---------------------------------------------------------------


def _is_slot_value(v):
    return not isinstance(v, (El, Cmt, list))


def _collect_slots(model, out):
    if isinstance(model, list):
        for m in model:
            _collect_slots(m, out)
    elif isinstance(model, El):
        for _, v in model.attrs:
            out.append(_value(v))
        raw = model.tag.lower() in RAW_TEXT_TAGS
        for c in model.children:
            if _is_slot_value(c) and not raw:
                out.append(_value(c))
            else:
                _collect_slots(c, out)


def slot_values(model):
    """The arguments of bake(model)'s function: every attribute value and
    text-like child, in tree order, except in raw-text elements (a slot
    cannot stand there). Models of the same shape share one baked function."""
    out = []
    _collect_slots(model, out)
    return out


def _build_with(model, params):
    """Like build(), with the slot values taken in order from `params`.
    Never looks at a parameter: it only places it."""
    if isinstance(model, list):
        return [_build_with(m, params) for m in model]
    if isinstance(model, El):
        attrs = {name: next(params) for name, _ in model.attrs}
        raw = model.tag.lower() in RAW_TEXT_TAGS
        kids = []
        for c in model.children:
            if _is_slot_value(c) and not raw:
                kids.append(next(params))
            elif _is_slot_value(c):
                kids.append(_value(c))
            else:
                kids.append(_build_with(c, params))
        return Tag(model.tag)(attrs, *kids)
    if isinstance(model, Cmt):
        return Comment(model.text)
    raise AssertionError(f"not a node: {model!r}")


_bake_counter = itertools.count()


def bake(model):
    """(baked function, argument list): calling it renders the model."""
    args = slot_values(model)
    names = [f"p{i}" for i in range(len(args))]
    name = f"baked_model_{next(_bake_counter)}"
    source = (
        f"def {name}({', '.join(names)}):\n"
        f"    return _build_with(_model, iter([{', '.join(names)}]))\n"
    )
    namespace = {"_build_with": _build_with, "_model": model}
    exec(source, namespace)
    return baked(namespace[name]), args


# --- the DOM the parser must build ----------------------------------------


def _newlines(s):
    return s.replace("\r\n", "\n").replace("\r", "\n")


def text_as_parsed(s, where):
    """Text as the parser delivers it: `where` is BODY (NUL dropped) or
    REPLACED (NUL becomes U+FFFD)."""
    s = _newlines(s)
    return s.replace("\0", "") if where == BODY else s.replace("\0", "\ufffd")


def ascii_lower(s):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)


def _attr_text(v):
    """The parsed value of an attribute, or None when it is not written."""
    if v is None or v is False:
        return None
    if v is True:
        return ""
    if isinstance(v, (Safe, Verbatim)):
        return text_as_parsed(v.text, REPLACED)
    if isinstance(v, (int, float)):
        return str(v)
    return text_as_parsed(v, REPLACED)


def _child_text(v):
    if v is None:
        return ""
    if isinstance(v, Safe):
        return v.text
    if isinstance(v, (int, float)):
        return str(v)
    return v


def _merge_text(nodes):
    out = []
    for node in nodes:
        if node[0] == "#text":
            if not node[1]:
                continue
            if out and out[-1][0] == "#text":
                out[-1] = ("#text", out[-1][1] + node[1])
                continue
        out.append(node)
    return out


def _expected_children(el, tag, ns):
    """Children of model element `el` (lower-cased `tag`, in namespace `ns`)
    as parsed."""
    if ns == "html" and (tag in RAW_TEXT_TAGS or tag in RCDATA_TAGS):
        text = "".join(_child_text(c) for c in el.children)
        if tag in DROPS_FIRST_NEWLINE and _trusted_newline_first(el.children):
            text = text[2:] if text.startswith("\r\n") else text[1:]
        text = text_as_parsed(text, REPLACED)
        return _merge_text([("#text", text)])
    foreign = ns != "html" and (ns, tag) not in INTEGRATION_POINTS
    where = REPLACED if foreign else BODY
    nodes = []
    run = []  # adjacent text children: the parser reads them as one text ("\r" + "\n")
    for c in _flatten(el.children):
        if isinstance(c, (El, Cmt)):
            nodes.append(("#text", text_as_parsed("".join(run), where)))
            run = []
            nodes.extend(expected_dom(c, ns if foreign else "html"))
        else:
            run.append(_child_text(c))
    nodes.append(("#text", text_as_parsed("".join(run), where)))
    return _merge_text(nodes)


DROPS_FIRST_NEWLINE = {"pre", "listing", "textarea"}


def _trusted_newline_first(children):
    """Whether the first child that writes anything is trusted HTML that
    begins with a newline (which the parser drops, as written)."""
    for c in _flatten(children):
        text = _child_text(c) if not isinstance(c, (El, Cmt)) else "<"
        if text:
            return isinstance(c, Safe) and text[0] in "\r\n"
    return False


def _flatten(children):
    for c in children:
        if isinstance(c, list):
            yield from _flatten(c)
        else:
            yield c


def expected_dom(model, ns="html"):
    """The normalized DOM an HTML5 parser builds from render(build(model))
    (`ns`: the namespace of the parent)."""
    if isinstance(model, list):
        return _merge_text([n for m in model for n in expected_dom(m, ns)])
    if isinstance(model, Cmt):
        return [("#comment", text_as_parsed(str(markupsafe.escape(model.text)), REPLACED))]
    if isinstance(model, El):
        tag = ascii_lower(model.tag)
        if ns == "html" and tag in ("svg", "math"):
            ns = tag
        attrs = []
        for name, v in model.attrs:
            value = _attr_text(v)
            if value is not None:
                attrs.append((ascii_lower(name), value))
        prefix = "" if ns == "html" else ns + ":"
        return [(prefix + tag, attrs, _expected_children(model, tag, ns))]
    return _merge_text([("#text", text_as_parsed(_child_text(model), BODY))])


# --- what html5lib builds -------------------------------------------------

_PARSER = html5lib.HTMLParser(tree=html5lib.getTreeBuilder("etree"), namespaceHTMLElements=False)
_Tokenizer = html5lib._tokenizer.HTMLTokenizer
_html5lib_comment_start_dash = _Tokenizer.commentStartDashState


def _spec_comment_start_dash(self):
    # html5lib 1.1 stays in the comment start dash state after a NUL
    # ("<!---\0-..." then reads "-" as the start of "-->"); the HTML
    # standard goes on in the comment state. Only this parse is patched.
    result = _html5lib_comment_start_dash(self)
    if self.state == self.commentStartDashState:
        self.state = self.commentState
    return result


def _tag_name(tag):
    if tag.startswith("{"):
        ns, local = tag[1:].split("}", 1)
        return NS_PREFIX.get(ns, "{" + ns + "}") + local.lower()
    return tag


def _normalize_children(el):
    nodes = []
    if el.text:
        nodes.append(("#text", el.text))
    for child in el:
        if child.tag is ElementTree.Comment:
            nodes.append(("#comment", child.text or ""))
        else:
            # Attribute names as the parser wrote them ("{ns}name" only for
            # the namespaced attributes of svg/math, which the models avoid).
            attrs = list(child.attrib.items())
            nodes.append((_tag_name(child.tag), attrs, _normalize_children(child)))
        if child.tail:
            nodes.append(("#text", child.tail))
    return _merge_text(nodes)


def parse_dom(html, scripting=True):
    """html5lib's DOM for `html` inserted into a <div>, normalized.
    `scripting` as in a browser with JavaScript on (<noscript> is raw text)."""
    _Tokenizer.commentStartDashState = _spec_comment_start_dash
    try:
        fragment = _PARSER.parseFragment(html, container="div", scripting=scripting)
    finally:
        _Tokenizer.commentStartDashState = _html5lib_comment_start_dash
    return _normalize_children(fragment)


def elements(dom):
    """Every (tag, attrs) in a normalized DOM, in document order."""
    out = []
    for node in dom:
        if node[0] not in ("#text", "#comment"):
            out.append((node[0], node[1]))
            out.extend(elements(node[2]))
    return out


def html5lib_elements(html, fragment=True, scripting=True):
    """Every (tag, attrs) html5lib builds from `html` in document order: as
    a fragment in a <div>, or as a document (root included); `scripting` as
    in a browser with JavaScript on. None when html5lib cannot read it:
    html5lib 1.1 fails an internal assertion when it resets the insertion
    mode over a MathML or SVG element named select (it compares the name
    before the namespace)."""
    try:
        if fragment:
            return elements(parse_dom(html, scripting=scripting))
        root = _PARSER.parse(html, scripting=scripting)
    except AssertionError:
        return None
    return [(_tag_name(root.tag), list(root.attrib.items()))] + elements(_normalize_children(root))


# --- did a parser build only what the tree holds? -------------------------

# Elements the parser adds on its own, with no attributes.
IMPLIED = {"html", "head", "body", "tbody", "tr", "colgroup", "p"}


def tree_tags_and_attrs(tree, tags=None, attrs=None):
    """The lower-cased tag names and the (tag, attribute, value) triples of
    a markup tree (an Element, or a list of them), as written text."""
    tags = set() if tags is None else tags
    attrs = set() if attrs is None else attrs
    if isinstance(tree, (list, tuple)):
        for t in tree:
            tree_tags_and_attrs(t, tags, attrs)
    elif isinstance(tree, Element):
        tag = tree.tag.lower()
        tags.add(tag)
        for name, value in tree.attrs.items():
            if value is not None and value is not False:
                attrs.add((tag, name.lower(), "" if value is True else str(value)))
        tree_tags_and_attrs(tree.children, tags, attrs)
    return tags, attrs


def injections(parsed, tree):
    """The elements and attributes in `parsed` ((tag, attrs) pairs from any
    parser) that markup tree `tree` does not hold, one line each."""
    tags, attrs = tree_tags_and_attrs(tree)
    if "isindex" in tags:
        # html5lib (the older standard) builds a form, hr, label and an input
        # named isindex that takes the isindex's attributes; browsers read
        # isindex as an element of its own.
        tags |= {"form", "hr", "label", "input"}
        attrs |= {("input", "name", "isindex")}
        attrs |= {("input", name, value) for tag, name, value in set(attrs) if tag == "isindex"}
    found = []
    for tag, parsed_attrs in parsed:
        local = tag.split(":")[-1]
        # The parser renames <image> to img: a parsed img may be either.
        names = {local, "image"} if local == "img" else {local}
        if not names & tags and local not in IMPLIED:
            found.append(f"<{local}> is not in the tree")
        for name, value in parsed_attrs:
            if not any((n, name, value) in attrs for n in names):
                found.append(f"<{local} {name}={value!r}> is not in the tree")
    return found
