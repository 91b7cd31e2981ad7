"""t-strings (PEP 750, CPython 3.14) rendered by markup: ``html(t"...")``.

A template's literal parts are read once, by the standard library's HTML
tokenizer, into elements whose values are the interpolations; the result is
compiled as a ``@baked`` template (one program, the writer's rules at every
value) and cached by the template's literal parts. Each call only passes
the interpolations' values to that program.
"""

import collections.abc
import importlib
import re
import sys
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Tuple

from . import _core, _template
from ._baked import baked

# The template's source with each interpolation replaced by a mark the
# tokenizer keeps where it stands: private-use characters around its index.
_OPEN, _CLOSE = "\ue000", "\ue001"
# The name under which a start tag keeps a mapping spread among its attributes.
_SPREAD = _OPEN + "spread" + _CLOSE

# Elements without an end tag (the standard's void elements).
_VOID = frozenset(
    "area base br col embed hr img input link meta source track wbr param keygen".split()
)

# Compiled templates by their literal parts; bounded, since a program's
# literal parts are as many as its t-string literals.
_COMPILED: Dict[Tuple[str, ...], "_Compiled"] = {}
_COMPILED_MAX = 4096


def _html(template: Any) -> "_core.SafeString":
    """html() for what its fast way in C (tstring.c) leaves: a t-string met
    the first time, values that need Python, a builder being traced."""
    if sys.version_info < (3, 14):
        raise RuntimeError(
            "html() renders t-strings (PEP 750), which need Python 3.14 or newer; "
            "on this Python build pages with h.* elements or @baked"
        )
    if type(template) is not _TEMPLATE and not isinstance(template, _template_type()):
        raise TypeError(
            f'html() takes a t-string (t"..."), got {type(template).__name__}; '
            f"for a plain str of HTML use SafeString after checking it"
        )
    strings = template.strings
    compiled = _COMPILED.get(strings)
    if compiled is None:
        # Reading the literal parts runs the standard library's tokenizer on
        # the template's own text: no value of a builder being traced is in
        # it, so @baked's watch for tests on parameters is paused meanwhile.
        hook = sys.getprofile()
        sys.setprofile(None)
        try:
            compiled = _compile(strings)
        finally:
            sys.setprofile(hook)
        if len(_COMPILED) >= _COMPILED_MAX:
            _COMPILED.clear()
        _COMPILED[strings] = compiled
    values = []
    for interpolation in template.interpolations:
        value = interpolation.value
        if interpolation.conversion or interpolation.format_spec:
            value = _formatted(interpolation)
        elif type(value) is _TEMPLATE:
            value = html(value)
        elif type(value) is list or type(value) is tuple:
            value = _children(value)
        values.append(value)
    if _template._sessions():
        # Inside a @baked builder being traced: a node of the builder's
        # program, its values the builder's.
        return _node(compiled, tuple(values))
    if compiled.spreads:
        return _spread_call(compiled, values)
    for index, name in compiled.joined:
        if not isinstance(values[index], (str, int, float)):
            values[index] = _joined(name, values[index])
    if compiled.fn is None:
        compiled.bake()
    return compiled.fn(*values)


# Templates with spread mappings, baked once per set of attribute names.
_SPREAD_BAKED: Dict[Tuple[Any, ...], Callable[..., Any]] = {}


def _spread_call(compiled: "_Compiled", values: List[Any]) -> Any:
    """A template with `<a {attrs}>`: baked for the names each mapping
    gives, each name's value a parameter."""
    spread = {i: compiled.spread(i, tuple(values)) for i in compiled.spreads}
    names = [tuple(attrs) for attrs in spread.values()]
    key = (compiled, tuple(names))
    fn = _SPREAD_BAKED.get(key)
    if fn is None:
        fn = _bake_spread(compiled, names)
        if len(_SPREAD_BAKED) >= _COMPILED_MAX:
            _SPREAD_BAKED.clear()
        _SPREAD_BAKED[key] = fn
    args = [v for i, v in enumerate(values) if i not in compiled.spreads]
    for attrs in spread.values():
        args.extend(attrs.values())
    return fn(*args)


def _bake_spread(compiled: "_Compiled", names: List[Tuple[str, ...]]) -> Callable[..., Any]:
    plain = [f"value{i}" for i in range(compiled.count) if i not in compiled.spreads]
    rebuilt = {f"value{i}": f"value{i}" for i in range(compiled.count)}
    extra: List[str] = []
    for n, i in enumerate(compiled.spreads):
        params = [f"spread{i}_{k}" for k in range(len(names[n]))]
        extra.extend(params)
        rebuilt[f"value{i}"] = (
            "{" + ", ".join(f"_names[{n}][{k}]: {p}" for k, p in enumerate(params)) + "}"
        )
    args = ", ".join(plain + extra)
    values = ", ".join(rebuilt[f"value{i}"] for i in range(compiled.count))
    namespace: Dict[str, Any] = {"_node": _node, "_self": compiled, "_names": names}
    exec(f"def html({args}):\n    return _node(_self, ({values},))", namespace)
    return baked(namespace["html"])  # type: ignore[no-any-return]


def _joined(name: str, value: Any) -> Any:
    """A whole class or style value given as a list or mapping, joined as
    an element's class_= and style= join it (markup's classes() and
    styles() rules)."""
    from . import _class_text, _style_text

    if name == "class" and isinstance(value, (list, tuple, collections.abc.Mapping)):
        return _class_text(value)
    if name == "style" and isinstance(value, collections.abc.Mapping):
        return _style_text(value)
    return value


def _formatted(interpolation: Any) -> str:
    """A value with a conversion or a format spec: the text Python makes of
    it, escaped where it stands."""
    value, conversion = interpolation.value, interpolation.conversion
    if conversion == "r":
        value = repr(value)
    elif conversion == "s":
        value = str(value)
    elif conversion == "a":
        value = ascii(value)
    return format(value, interpolation.format_spec)


_TEMPLATE: Any = None


def _template_type() -> Any:
    """string.templatelib.Template (CPython 3.14 and newer), imported once."""
    global _TEMPLATE
    if _TEMPLATE is None:
        _TEMPLATE = importlib.import_module("string.templatelib").Template
    return _TEMPLATE


# html(template): the fast way in C for a t-string compiled before whose
# values are plain, else _html. Its docstring is the C function's.
html = _core._tstring_html
if sys.version_info >= (3, 14):
    _core._tstring_setup(
        _COMPILED,
        _html,
        _template._tracing,
        _template_type(),
        importlib.import_module("string.templatelib").Interpolation,
    )
else:
    _core._tstring_setup(_COMPILED, _html, _template._tracing, None, None)


def _children(items: Any) -> Any:
    """A list or tuple of children, with each t-string in it as its HTML."""
    if any(type(v) is _TEMPLATE for v in items):
        return [html(v) if type(v) is _TEMPLATE else v for v in items]
    return items


# --- compiling -----------------------------------------------------------------------


class TemplateError(ValueError):
    """A t-string whose HTML markup cannot render: a value where the parser
    would read something else, or elements that do not nest."""


class _Compiled:
    """A t-string's literal parts, read: its text in pieces around the
    values (`pieces[i]` comes before value i, the last after them all),
    what each value is to the HTML (`slots`), its elements (`tree`, for
    the shell the writer follows) and, once called outside a trace, its
    baked function."""

    __slots__ = (
        "tree",
        "count",
        "pieces",
        "slots",
        "joined",
        "joined_at",
        "spreads",
        "beside",
        "tag_of",
        "fn",
    )

    def __init__(
        self, tree: "_Node", pieces: List[str], slots: List[Tuple[str, str, Tuple[int, ...]]]
    ) -> None:
        self.tree, self.count, self.pieces, self.slots = tree, len(slots), pieces, slots
        # A mapping spread as attributes changes the element's attributes
        # per call: such a template is baked for each set of names.
        self.spreads = tuple(i for i, (kind, _, _) in enumerate(slots) if kind == "spread")
        self.joined = tuple(
            (i, name.lower())
            for i, (kind, name, _) in enumerate(slots)
            if kind == "attr" and name.lower() in ("class", "style")
        )
        self.joined_at = tuple(index for index, _ in self.joined)
        # For each spread mapping, the other attributes of its start tag.
        self.beside: Dict[int, FrozenSet[str]] = {}
        self.tag_of: Dict[int, int] = {}  # spread -> its start tag (a number)
        for number, node in enumerate(_walk(tree)):
            for name, parts in node.attrs:
                if name == _SPREAD:
                    self.beside[parts[0]] = frozenset(
                        other for other, _ in node.attrs if other != _SPREAD
                    )
                    self.tag_of[parts[0]] = number
        self.fn: Optional[Callable[..., Any]] = None

    def bake(self) -> None:
        # A builder with one parameter per interpolation, compiled by
        # @baked; its errors name the value by its place: html() argument
        # 'value2'.
        names = ", ".join(f"value{i}" for i in range(self.count))
        namespace: Dict[str, Any] = {"_node": _node, "_self": self}
        comma = "," if self.count else ""
        code = f"def html({names}):\n    return _node(_self, ({names}{comma}))"
        exec(code, namespace)
        self.fn = baked(namespace["html"])

    # -- what the @baked compiler asks (markup/_template/compiler.py) --------

    def shell(self, marks: List[Any]) -> Any:
        """The template's elements with `marks[i]` where value i stands."""
        return _core.h.Fragment([_shell(child, marks) for child in self.tree.children])

    def attr_value(self, name: str, value: Any) -> Any:
        return _joined(name.lower(), value)

    def spread(self, index: int, values: Tuple[Any, ...]) -> Dict[str, Any]:
        """The attributes of the mapping `values[index]` spread in a start
        tag, checked and named as an element's: a name its tag or another
        mapping there also gives is refused (the parser keeps the first)."""
        value = values[index]
        if isinstance(value, _template.StandIn):
            raise TypeError(
                f"html(): value {index} is a mapping of attributes spread in a start tag, "
                f"which @baked fixes when baking; give each attribute its value (name={{value}})"
            )
        if not isinstance(value, collections.abc.Mapping):
            raise TypeError(
                f"html(): value {index} stands where attributes go (<a {{attrs}}>), so it must "
                f"be a mapping of attribute names to values, got {type(value).__name__}"
            )
        attrs = {name: _joined(name, item) for name, item in value.items()}
        for name in attrs:
            if not isinstance(name, str):
                raise TypeError(
                    f"html(): value {index} spreads attributes, and their names must be str, "
                    f"got {type(name).__name__}"
                )
            others = [
                values[j]
                for j in self.spreads
                if j != index and self.tag_of[j] == self.tag_of[index]
            ]
            if name.lower() in self.beside[index] or any(
                isinstance(other, collections.abc.Mapping)
                and any(isinstance(k, str) and k.lower() == name.lower() for k in other)
                for other in others
            ):
                # The parser keeps the first of two, whichever was meant.
                raise ValueError(
                    f"html(): value {index} spreads attribute {name!r}, which its start tag "
                    f"also gives; give it once"
                )
        _core.Tag("span")(attrs)  # the names checked as an element's
        return attrs


def _node(compiled: "_Compiled", values: Tuple[Any, ...]) -> Any:
    """A t-string in a builder being traced: a node the compiler writes."""
    sessions = _template._sessions()
    session = next(reversed(sessions.values()))
    return _core.h.Fragment([_template._TString(session, compiled, values)])


def _shell(child: Any, marks: List[Any]) -> Any:
    if isinstance(child, int):
        return marks[child]
    if not isinstance(child, _Node):
        return child  # text, a Comment, the doctype
    attrs: Dict[str, Any] = {}
    for name, parts in child.attrs:
        values = [part for part in parts or () if isinstance(part, int)]
        if name == _SPREAD:
            attrs[f"data-markup-spread-{values[0]}"] = marks[values[0]]
        elif values:
            attrs[name] = marks[values[0]]
        else:
            attrs[name] = True if parts is None else "".join(parts)
    return _core.Tag(child.tag)(attrs, [_shell(c, marks) for c in child.children])


# The HTML parser's whitespace (not Python's \s, which has more).
_WS = "\t\n\f\r "
# An attribute's name, '=' and opening quote (if any) at the end of the text
# before its value: what a whole attribute value's slot writes itself.
_ATTR_BEFORE = re.compile(r"([\t\n\f\r ]*)([^\t\n\f\r />=]+)[\t\n\f\r ]*=[\t\n\f\r ]*([\"']?)\Z")
# The same, for a value with text around it that is not quoted: where the
# value begins.
_UNQUOTED_BEFORE = re.compile(r"[^\t\n\f\r />=]+[\t\n\f\r ]*=[\t\n\f\r ]*(?=[^\t\n\f\r >]*\Z)")
# Where an unquoted value ends: whitespace, '>' or '/>'.
_UNQUOTED_END = re.compile(r"[\t\n\f\r >]|/>")
# What the parser takes for part of an unquoted value, but would end or
# change it once markup puts the value in double quotes.
_UNQUOTED_SPECIAL = re.compile(r"[\"'<=`]")


def _compile(strings: Tuple[str, ...]) -> _Compiled:
    """A t-string's literal parts, read and checked."""
    for s in strings:
        if _OPEN in s or _CLOSE in s:
            raise TemplateError(
                "html(): the t-string holds U+E000 or U+E001, which markup uses "
                "to mark where values go"
            )
    pieces, slots = _places(strings)
    source = strings[0] + "".join(f"{_OPEN}{i}{_CLOSE}{s}" for i, s in enumerate(strings[1:]))
    tree = _read(source)
    _agree(tree, slots)
    compiled = _Compiled(tree, pieces, slots)
    if not _template._sessions() and not compiled.spreads:
        compiled.bake()  # the template's own HTML, checked by the writer now
    return compiled


def _places(strings: Tuple[str, ...]) -> Tuple[List[str], List[Tuple[str, str, Tuple[int, ...]]]]:
    """What each value is to the HTML, as libmarkup's tokenizer (the
    standard's states) reads the literal parts, and the template's text in
    pieces around them. A value where the parser would read it as anything
    but text, an attribute's value or a mapping of attributes is refused."""
    scan = _core._HtmlScan()
    pieces = list(strings)
    slots: List[Tuple[str, str, Tuple[int, ...]]] = []
    line = 1
    group: List[int] = []  # the values of the attribute value being read
    for i, literal in enumerate(strings[:-1]):
        scan.text(literal)
        line += literal.count("\n")
        place, tag, attr, quote, value_start = scan.at()
        after = strings[i + 1]
        if place == "tag_name":
            raise _fail("a value stands in a tag name", line)
        if place == "attr_name":
            if not _spread_here(literal, after):
                raise _fail(
                    "a value stands in an attribute name; a mapping of attributes stands "
                    "alone among them (<a {attrs} href=...>), a value of one after its "
                    "name (name={value})",
                    line,
                )
            pieces[i] = pieces[i].rstrip(_WS)  # each attribute is written with its space
            slots.append(("spread", "", (i,)))
        elif place == "comment":
            raise _fail("a value is in a comment; comments are fixed text", line)
        elif place == "raw_text":
            raise _fail(f"a value is in the text of a <{tag}>, {_core._RAW_PER_CALL_ADVICE}", line)
        elif place in ("text", "rcdata"):
            _no_reference_before(literal, line)
            slots.append(("child", "", (i,)))
        else:
            _no_reference_before(literal, line)
            if quote:
                ends = after[:1] == quote
            else:  # the next value, if one follows at once, is in this one too
                ends = after[:1] in tuple(_WS) + (">",) or after.startswith("/>")
            if value_start and ends and not group:
                match = _ATTR_BEFORE.search(pieces[i])
                if match is None or match.group(2).lower()[:63] != attr:
                    raise _fail("a value stands where the parser reads no attribute's value", line)
                pieces[i] = pieces[i][: match.start()]
                if quote:
                    pieces[i + 1] = pieces[i + 1][1:]
                slots.append(("attr", match.group(2), (i,)))
            else:
                if not group:
                    if not quote:  # quoted on output: the value is one attribute value
                        match = _UNQUOTED_BEFORE.search(pieces[i])
                        if match is None:
                            raise _fail(
                                "a value stands where the parser reads no attribute's value", line
                            )
                        _unquoted_text(pieces[i][match.end() :], line)
                        pieces[i] = pieces[i][: match.end()] + '"' + pieces[i][match.end() :]
                    slots.append(("parts", attr, ()))
                    first = i
                else:
                    if not quote:
                        _unquoted_text(pieces[i], line)
                    slots.append(("in_parts", "", ()))
                group.append(i)
                stays = quote not in after if quote else not _UNQUOTED_END.search(after)
                if not stays:
                    if not quote:
                        end = _UNQUOTED_END.search(after)
                        at = end.start() if end else len(after)
                        _unquoted_text(pieces[i + 1][:at], line)
                        pieces[i + 1] = pieces[i + 1][:at] + '"' + pieces[i + 1][at:]
                    kind, name_, _ = slots[first]
                    slots[first] = (kind, name_, tuple(group))
                    group = []
        scan.value()
    return pieces, slots


# A character reference begun by the text before a value: '&', '&am', '&#3'.
_REFERENCE_BEGUN = re.compile(r"&#?[0-9A-Za-z]*\Z")


def _no_reference_before(text: str, line: int) -> None:
    """Refuses a value right after an '&' that it could make a character
    reference of ('&am' then 'p;'): the value would change how the
    template's own text reads."""
    begun = _REFERENCE_BEGUN.search(text)
    if begun:
        raise _fail(
            f"a value right after '{begun.group()}', which it could complete as a character "
            "reference; write &amp; for a literal '&'",
            line,
        )


def _unquoted_text(text: str, line: int) -> None:
    """Refuses template text in an unquoted attribute value that markup
    quotes (class=btn-{kind}) where the quotes would change what it is."""
    if _UNQUOTED_SPECIAL.search(text):
        raise _fail(
            "an unquoted attribute value around a value holds \" ' < = or `; quote the value",
            line,
        )


def _agree(tree: "_Node", slots: List[Tuple[str, str, Tuple[int, ...]]]) -> None:
    """The elements read by the standard library's parser put each value
    where libmarkup's tokenizer does: else the template is ambiguous."""
    found: Dict[int, str] = {}
    for node in [tree, *_walk(tree)]:
        for child in node.children:
            if isinstance(child, int):
                found[child] = "child"
        for name, parts in node.attrs:
            values = tuple(part for part in parts or () if isinstance(part, int))
            if name == _SPREAD:
                found[values[0]] = "spread"
            elif values and slots[values[0]][0] == "attr" and parts == [values[0]]:
                found[values[0]] = "attr"
            elif values and slots[values[0]][0] == "parts" and slots[values[0]][2] == values:
                found.update((i, "parts") for i in values)
    for i, (kind, _, _) in enumerate(slots):
        want = "parts" if kind == "in_parts" else kind
        if found.get(i) != want:
            raise TemplateError(
                f"html(): value {i} stands where HTML parsers may disagree on what it is; "
                f"quote attribute values and close tags with '>'"
            )


def _walk(node: "_Node") -> Any:
    for child in node.children:
        if isinstance(child, _Node):
            yield child
            yield from _walk(child)


def _spread_here(before: str, after: str) -> bool:
    """Whether a value in a start tag stands alone, where a whole attribute
    would: after whitespace, before whitespace, '>' or '/>'."""
    return before[-1:] in tuple(_WS) and (after[:1] in tuple(_WS) + (">", "/"))


def _split(text: str) -> List[Any]:
    """Text with marks: its pieces, str or the int index of a value."""
    parts: List[Any] = []
    while True:
        at = text.find(_OPEN)
        if at < 0:
            break
        end = text.index(_CLOSE, at)
        if at:
            parts.append(text[:at])
        parts.append(int(text[at + 1 : end]))
        text = text[end + 1 :]
    if text:
        parts.append(text)
    return parts


class _Node:
    __slots__ = ("tag", "attrs", "children", "line", "ns")

    def __init__(
        self, tag: str, attrs: List[Tuple[str, Optional[List[Any]]]], line: int, ns: str = "html"
    ) -> None:
        self.tag, self.attrs, self.line, self.ns = tag, attrs, line, ns
        self.children: List[Any] = []


# Elements whose text the tokenizers that read a template (libmarkup's and
# the standard library's) take as text, whatever it holds; inside svg and
# math the browser's parser reads it as markup.
_TEXT_ELEMENTS = frozenset(
    "title textarea style script xmp iframe noembed noframes noscript plaintext".split()
)


# What starts markup where the parser reads text as HTML: a tag, an end
# tag, a comment or declaration, a processing instruction.
_MARKUP_START = re.compile(r"<[A-Za-z/!?\ue000]")  # U+E000: a value, which may be any


def _namespace(parent: _Node, tag: str) -> str:
    """The namespace the tree construction gives element `tag` in `parent`:
    html, svg or math (the standard's rules for foreign content and its
    HTML integration points)."""
    html_rules = parent.ns == "html"
    if parent.ns == "svg":
        html_rules = parent.tag in ("foreignobject", "desc", "title")
    elif parent.ns == "math":
        if parent.tag in ("mi", "mo", "mn", "ms", "mtext"):
            html_rules = tag not in ("mglyph", "malignmark")
        elif parent.tag == "annotation-xml":
            encoding = dict(parent.attrs).get("encoding")
            text = "".join(p for p in encoding if isinstance(p, str)) if encoding else ""
            html_rules = tag == "svg" or text.lower() in ("text/html", "application/xhtml+xml")
    if html_rules:
        return tag if tag in ("svg", "math") else "html"
    return parent.ns


def _fail(what: str, line: int) -> "TemplateError":
    return TemplateError(f"html(): {what} (line {line} of the t-string)")


def _read(source: str) -> "_Node":
    """The template's elements, text and values, as the standard library's
    HTML tokenizer reads them (imported when a first t-string compiles)."""
    from html.parser import HTMLParser

    class _Reader(HTMLParser):
        """The template's elements, text and values, as the tokenizer reads them."""

        def __init__(self, source: str) -> None:
            super().__init__(convert_charrefs=True)
            self.source = source
            self.lower = source.lower()
            self.line_starts = [0] + [i + 1 for i, c in enumerate(source) if c == "\n"]
            self.root = _Node("", [], 1)
            self.open: List[_Node] = [self.root]

        def read(self) -> _Node:
            self.feed(self.source)
            self.close()
            if len(self.open) > 1:
                node = self.open[-1]
                raise _fail(f"<{node.tag}> opened on line {node.line} is not closed", node.line)
            return self.root

        def line(self) -> int:
            return self.getpos()[0]

        def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
            if _OPEN in tag:
                raise _fail("a value stands in a tag name", self.line())
            parsed: List[Tuple[str, Optional[List[Any]]]] = []
            for name, value in attrs:
                if _OPEN in name:
                    spread = _split(name)
                    if value is not None or len(spread) != 1 or not isinstance(spread[0], int):
                        raise _fail("a value stands in an attribute name", self.line())
                    parsed.append((_SPREAD, spread))
                    continue
                if any(name == seen for seen, _ in parsed):
                    raise _fail(
                        f"attribute {name!r} is given twice; give it once (a list joins "
                        f"classes: class={{['btn', extra]}}; a mapping joins styles)",
                        self.line(),
                    )
                parsed.append((name, _split(value) if value is not None else None))
            # <img src={x}/>: the tokenizer would read the '/' into the
            # unquoted value; the value is written quoted, and '/>' ends the tag.
            last = parsed[-1][1] if parsed else None
            closes = (
                last is not None
                and len(last) >= 2
                and last[-1] == "/"
                and isinstance(last[-2], int)
                and (self.get_starttag_text() or "").endswith("/>")
            )
            if closes and last is not None:
                del last[-1]
            node = _Node(tag, parsed, self.line(), _namespace(self.open[-1], tag))
            self.open[-1].children.append(node)
            if tag not in _VOID:
                self.open.append(node)
                if closes:
                    self.ended(tag)

        def handle_startendtag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
            self.handle_starttag(tag, attrs)
            if tag not in _VOID:
                self.ended(tag)

        def ended(self, tag: str) -> None:
            """'/>' ended the start tag of the element just opened."""
            if not self.foreign():
                raise _fail(
                    f"<{tag}/> does not end the element in HTML (only void elements and "
                    f"those inside svg or math end with '/>'); write <{tag}></{tag}>",
                    self.line(),
                )
            self.open.pop()

        def foreign(self) -> bool:
            """Whether the element just opened is an svg or math one, which
            '/>' ends."""
            return self.open[-1].ns != "html"

        def handle_endtag(self, tag: str) -> None:
            if tag in _VOID:
                return
            node = self.open[-1]
            if node is self.root or node.tag != tag:
                opened = (
                    f"<{node.tag}> opened on line {node.line}" if node is not self.root else None
                )
                raise _fail(
                    f"</{tag}> does not close " + (opened or "an open element"), self.line()
                )
            self.open.pop()

        def raw_text(self, tag: str) -> str:
            """The template's own text from here to </tag>, as written
            (what handle_data is given has its references decoded)."""
            line, offset = self.getpos()
            start = self.line_starts[line - 1] + offset
            end = self.lower.find("</" + tag, start)
            return self.source[start : end if end >= 0 else len(self.source)]

        def handle_data(self, data: str) -> None:
            parent = self.open[-1]
            raw = self.raw_text(parent.tag) if parent.tag in _TEXT_ELEMENTS else ""
            if parent.ns != "html" and "<" in raw:
                raise _fail(
                    f"'<' in the text of an {parent.ns} <{parent.tag}>, which the browser "
                    f"reads as markup there (not as text, as in HTML); write &lt;",
                    self.line(),
                )
            markup = _MARKUP_START.search(raw)
            if markup:
                start = markup.group().replace(_OPEN, "{value}")
                raise _fail(
                    f"'{start}' in the text of a <{parent.tag}>: where the parser "
                    f"ignores the <{parent.tag}> start tag (in a select, after a frameset, in "
                    "a template of columns) or reads it as svg or math (this t-string placed "
                    "in one), that text is markup, and a value after it could stand inside "
                    "a tag; write &lt; in a title or textarea, a space after '<' in a script "
                    "(a < b), or pass the text as a value",
                    self.line(),
                )
            if _OPEN in data and parent.tag in (
                "script",
                "style",
                "xmp",
                "iframe",
                "noembed",
                "noframes",
            ):
                raise _fail(
                    f"a value is in the text of a <{parent.tag}>, {_core._RAW_PER_CALL_ADVICE}",
                    self.line(),
                )
            parent.children.extend(_split(data))

        def handle_comment(self, data: str) -> None:
            if _OPEN in data:
                raise _fail("a value is in a comment; comments are fixed text", self.line())
            self.open[-1].children.append(_core.Comment(data))

        def handle_decl(self, decl: str) -> None:
            if decl.lower() != "doctype html":
                raise _fail(f"<!{decl}> is not <!doctype html>", self.line())
            self.open[-1].children.append(_core.SafeString("<!doctype html>"))

        def unknown_decl(self, data: str) -> None:
            raise _fail(f"<![{data}]> is not HTML", self.line())

        def handle_pi(self, data: str) -> None:
            raise _fail(f"<?{data}> is not HTML", self.line())

    return _Reader(source).read()
