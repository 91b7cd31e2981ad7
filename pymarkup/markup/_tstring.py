"""t-strings (PEP 750, CPython 3.14) rendered by markup: ``html(t"...")``.

A template's literal parts are read once, by the standard library's HTML
tokenizer, into elements whose values are the interpolations; the result is
compiled as a ``@baked`` template (one program, the writer's rules at every
value) and cached by the template's literal parts. Each call only passes
the interpolations' values to that program.
"""

import collections.abc
import importlib
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

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


def html(template: Any) -> "_core.SafeString":
    """The HTML of a t-string: ``html(t"<p class={cls}>{text}</p>")``.

    Values are escaped where they stand, as markup escapes children and
    attribute values; elements, ``SafeString`` values, lists and other
    t-strings are children. Needs CPython 3.14 (t-strings)."""
    # The usual call: a t-string compiled before, its values plain, no
    # builder being traced; its values are read in C.
    compiled = _COMPILED.get(getattr(template, "strings", None))  # type: ignore[arg-type]
    if (
        compiled is not None
        and compiled.fn is not None
        and not _template._tracing.__dict__.get("sessions")
    ):
        values = _core._tstring_values(template.interpolations, compiled.joined_at, _TEMPLATE)
        if values is not None:
            return compiled.fn(*values)  # type: ignore[no-any-return]
    return _html(template)


def _html(template: Any) -> "_core.SafeString":
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
        # Inside a @baked builder being traced: the elements themselves,
        # which become part of the builder's program.
        return _build(compiled.tree, tuple(values))
    if compiled.spreads:
        return _core.render(_build(compiled.tree, tuple(values)))
    for index, name in compiled.joined:
        if not isinstance(values[index], (str, int, float)):
            values[index] = _joined(name, values[index])
    if compiled.fn is None:
        compiled.bake()
    return compiled.fn(*values)


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
    """A t-string's elements, which of its values are a whole class or
    style value, and (once called outside a trace) its baked function."""

    __slots__ = ("tree", "count", "joined", "joined_at", "spreads", "fn")

    def __init__(self, tree: "_Node", count: int) -> None:
        self.tree, self.count = tree, count
        # A mapping spread as attributes changes the element's attributes
        # per call: such a template is built and rendered per call.
        self.spreads = any(name == _SPREAD for node in _walk(tree) for name, _ in node.attrs)
        self.joined = tuple(
            (parts[0], name)
            for node in _walk(tree)
            for name, parts in node.attrs
            if name in ("class", "style")
            and parts
            and len(parts) == 1
            and isinstance(parts[0], int)
        )
        self.joined_at = tuple(index for index, _ in self.joined)
        self.fn: Optional[Callable[..., Any]] = None

    def bake(self) -> None:
        # A builder with one parameter per interpolation, compiled by
        # @baked; its errors name the value by its place: html() argument
        # 'value2'.
        names = ", ".join(f"value{i}" for i in range(self.count))
        namespace: Dict[str, Any] = {"_build": _build, "_tree": self.tree}
        comma = "," if self.count else ""
        code = f"def html({names}):\n    return _build(_tree, ({names}{comma}))"
        exec(code, namespace)
        self.fn = baked(namespace["html"])


def _compile(strings: Tuple[str, ...]) -> _Compiled:
    """A t-string's literal parts, read and checked."""
    for s in strings:
        if _OPEN in s or _CLOSE in s:
            raise TemplateError(
                "html(): the t-string holds U+E000 or U+E001, which markup uses "
                "to mark where values go"
            )
    _check_places(strings)
    source = strings[0] + "".join(f"{_OPEN}{i}{_CLOSE}{s}" for i, s in enumerate(strings[1:]))
    compiled = _Compiled(_read(source), len(strings) - 1)
    if (
        not _template._sessions() and not compiled.spreads
    ):  # in a trace, the builder's compile checks it
        compiled.bake()  # the template's own HTML, checked by the writer now
    return compiled


def _walk(node: "_Node") -> Any:
    for child in node.children:
        if isinstance(child, _Node):
            yield child
            yield from _walk(child)


def _spread_here(before: str, after: str) -> bool:
    """Whether a value in a start tag stands alone, where a whole attribute
    would: after whitespace, before whitespace, '>' or '/>'."""
    return before[-1:].isspace() and (after[:1].isspace() or after[:1] in (">", "/"))


def _check_places(strings: Tuple[str, ...]) -> None:
    """Refuses a value where the HTML parser would read it as anything but
    text or an attribute's value, as libmarkup's tokenizer (the standard's
    states) reads the literal parts."""
    scan = _core._HtmlScan()
    line = 1
    for i, literal in enumerate(strings[:-1]):
        scan.text(literal)
        line += literal.count("\n")
        place, tag = scan.at()[:2]
        if place == "tag_name":
            raise _fail("a value stands in a tag name", line)
        if place == "attr_name" and not _spread_here(literal, strings[i + 1]):
            raise _fail(
                "a value stands in an attribute name; a mapping of attributes stands "
                "alone among them (<a {attrs} href=...>), a value of one after its "
                "name (name={value})",
                line,
            )
        if place == "comment":
            raise _fail("a value is in a comment; comments are fixed text", line)
        if place == "raw_text":
            raise _fail(f"a value is in the text of a <{tag}>, {_core._RAW_PER_CALL_ADVICE}", line)
        scan.value()


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
    __slots__ = ("tag", "attrs", "children", "line")

    def __init__(self, tag: str, attrs: List[Tuple[str, Optional[List[Any]]]], line: int) -> None:
        self.tag, self.attrs, self.line = tag, attrs, line
        self.children: List[Any] = []


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
            node = _Node(tag, parsed, self.line())
            self.open[-1].children.append(node)
            if tag not in _VOID:
                self.open.append(node)

        def handle_startendtag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
            self.handle_starttag(tag, attrs)
            if tag not in _VOID:
                self.open.pop()

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

        def handle_data(self, data: str) -> None:
            parent = self.open[-1]
            if parent.tag in ("pre", "listing", "textarea") and not parent.children:
                # The HTML parser drops a newline right after these start
                # tags; markup's writer would keep a text's first one.
                # (A CR LF or a lone CR is a newline to it.)
                data = data[2:] if data.startswith("\r\n") else data
                data = data[1:] if data.startswith(("\n", "\r")) else data
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


def _build(node: _Node, values: Tuple[Any, ...]) -> Any:
    """The h.* elements of `node`'s children, with `values` (the builder's
    parameters) where the template has its interpolations."""
    return _core.h.Fragment([_child(child, values) for child in node.children])


def _child(child: Any, values: Tuple[Any, ...]) -> Any:
    if isinstance(child, int):
        return values[child]
    if not isinstance(child, _Node):
        return child  # text, a Comment, the doctype
    attrs: Dict[str, Any] = {}
    for name, parts in child.attrs:
        if name == _SPREAD:
            attrs.update(_spread(values, parts[0]))  # type: ignore[index]
        else:
            attrs[name] = _attr_value(parts, values)
    return _core.Tag(child.tag)(attrs, [_child(c, values) for c in child.children])


def _spread(values: Tuple[Any, ...], index: int) -> "collections.abc.Mapping[str, Any]":
    """A mapping of attributes spread in a start tag, `<a {attrs}>`: its
    attributes in its order, where it stands among the others (a later one
    of the same name wins)."""
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
    return value


def _attr_value(parts: Optional[List[Any]], values: Tuple[Any, ...]) -> Any:
    """An attribute's value: one value alone is that value (None or False
    leave the attribute out, True writes it bare); text around values is
    the text with each value formatted in, as an f-string."""
    if parts is None:
        return True  # written without a value: <input disabled>
    if not parts:
        return ""
    if len(parts) == 1:
        return values[parts[0]] if isinstance(parts[0], int) else parts[0]
    text = ""
    for part in parts:
        text += part if isinstance(part, str) else format(values[part], "")
    return text
