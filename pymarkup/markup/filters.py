"""Jinja2's most used filters as functions, for trees and ``@baked`` pages.

Each gives what the Jinja2 filter of the same name gives for text and
numbers (tests/python/test_filters.py compares them on random input). In a
``@baked`` builder a filter applied to a per-call value is called on each
call, as ``per_call`` calls: ``truncate(post.summary, 80)``. A value that is
already HTML (a ``SafeString`` or any ``__html__`` object) is taken as its
text here, where Jinja2 keeps some filters' results as ``Markup``: apply
those filters before marking a text safe. The scanning is done in C where
it costs (text_filters.c): word counts, tags, whitespace, ASCII title case.
"""

import re
from typing import Any, Callable, Iterable, List, Mapping, Optional, Tuple, TypeVar, Union, cast
from urllib.parse import quote

from . import _core
from ._template import _per_call

__all__ = [
    "center",
    "filesizeformat",
    "join",
    "length",
    "striptags",
    "title",
    "truncate",
    "urlencode",
    "wordcount",
]

_F = TypeVar("_F", bound=Callable[..., Any])


def _template_function(func: _F) -> _F:
    """`func` now, or per call where an argument is a per-call value."""

    def apply(*args: Any, **kwargs: Any) -> Any:
        return _per_call(func, *args, **kwargs)

    apply.__name__ = func.__name__
    apply.__qualname__ = func.__qualname__
    apply.__doc__ = func.__doc__
    apply.__wrapped__ = func  # type: ignore[attr-defined]
    return cast(_F, apply)


def _text(value: Any) -> str:
    """The text of a value as an exact str: a SafeString's own methods
    would escape what is added to it."""
    if type(value) is str:
        return value
    text = value.__html__() if hasattr(value, "__html__") else str(value)
    return "".join((text,))  # an exact str, also from a str subclass


@_template_function
def truncate(
    s: Any, length: int = 255, killwords: bool = False, end: str = "...", leeway: int = 5
) -> str:
    """The text cut to ``length`` characters with ``end`` appended, at a
    word boundary unless ``killwords``; a text at most ``leeway``
    characters longer than ``length`` is kept whole (Jinja2's default
    policy)."""
    s = _text(s)
    if length < len(end):
        raise ValueError(f"truncate(): length {length} is shorter than end {end!r}")
    if leeway < 0:
        raise ValueError(f"truncate(): leeway must be 0 or more, not {leeway}")
    if len(s) <= length + leeway:
        return s
    cut = s[: length - len(end)]
    if killwords:
        return cut + end
    return cut.rsplit(" ", 1)[0] + end


@_template_function
def wordcount(s: Any) -> int:
    """The number of words (runs of letters, digits and underscores, as
    Python's ``\\w``)."""
    return _core._wordcount(_text(s))


_TITLE_SPLIT = re.compile(r"([-\s({\[<]+)")


@_template_function
def title(s: Any) -> str:
    """Each word with its first character upper case and the rest lower
    case, a word starting after a space, a hyphen or an opening bracket."""
    text = _text(s)
    ascii_title = _core._title_ascii(text)  # ASCII text in C
    if ascii_title is not None:
        return ascii_title
    return "".join(part[0].upper() + part[1:].lower() for part in _TITLE_SPLIT.split(text) if part)


@_template_function
def center(value: Any, width: int = 80) -> str:
    """The text centred in a field of ``width`` characters."""
    return _text(value).center(width)


_DECIMAL_UNITS = ("kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB")
_BINARY_UNITS = ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB")


@_template_function
def filesizeformat(value: Union[str, float, int], binary: bool = False) -> str:
    """A number of bytes for people: ``13 Bytes``, ``1.2 kB``, or with
    ``binary`` ``1.2 KiB``."""
    size = float(value)
    base = 1024 if binary else 1000
    if size == 1:
        return "1 Byte"
    if size < base:
        return f"{int(size)} Bytes"
    units = _BINARY_UNITS if binary else _DECIMAL_UNITS
    for i, name in enumerate(units):
        scale = base ** (i + 2)
        if size < scale or i == len(units) - 1:
            return f"{base * size / scale:.1f} {name}"
    raise AssertionError("unreachable")  # pragma: no cover


def _quote(value: Any, for_query: bool) -> str:
    if not isinstance(value, bytes):
        value = _text(value).encode("utf-8")
    # "/" is kept in a path, encoded in a query, where spaces become "+".
    quoted = quote(value, safe="" if for_query else "/")
    return quoted.replace("%20", "+") if for_query else quoted


@_template_function
def urlencode(value: Union[str, Mapping[str, Any], Iterable[Tuple[str, Any]]]) -> str:
    """A text percent-encoded for a URL path (``/`` kept), or a mapping or
    pairs encoded as a query string (``a=1&b=x+y``)."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        return _quote(value, for_query=False)
    pairs: Iterable[Tuple[Any, Any]] = value.items() if isinstance(value, dict) else value  # type: ignore[assignment]
    return "&".join(f"{_quote(k, True)}={_quote(v, True)}" for k, v in pairs)


@_template_function
def striptags(value: Any) -> str:
    """The text of HTML: comments and tags removed, runs of whitespace made
    one space, then entities read."""
    # Tags and comments go left to right: a comment runs to the first "-->"
    # after its "<!--", a tag to the first ">"; one never closed ends the
    # stripping and the rest is kept (MarkupSafe 3's rule, which Jinja2's
    # striptags applies). Then whitespace, in C; then entities.
    from html import unescape

    text = _core._strip_tags(_text(value))
    return unescape(text) if "&" in text else text


@_template_function
def length(value: Any) -> int:
    """``len(value)``."""
    return len(value)


@_template_function
def join(value: Iterable[Any], d: str = "", attribute: Optional[Union[str, int]] = None) -> Any:
    """The items' texts joined with ``d``; with ``attribute``, that field of
    each item (``join(users, ", ", "name")``). Where an item or ``d`` is
    HTML (``__html__``), the others are escaped and the result is HTML, as
    Jinja2 joins under autoescape."""
    from . import SafeString, escape

    items = list(value)
    if attribute is not None:
        items = [_field(item, attribute) for item in items]
    if hasattr(d, "__html__") or any(hasattr(item, "__html__") for item in items):
        return SafeString(str(escape(d)).join(str(escape(item)) for item in items))
    return d.join(_text(item) for item in items)


def _field(item: Any, attribute: Union[str, int]) -> Any:
    # Jinja2's item rule along a dotted path ("author.name", "tags.0"): the
    # item, else (for a name) the attribute, else "" (its undefined).
    parts: List[Union[str, int]] = []
    if isinstance(attribute, str):
        parts.extend(attribute.split("."))
    else:
        parts.append(attribute)
    for part in parts:
        key: Any = int(part) if isinstance(part, str) and part.isdigit() else part
        try:
            item = item[key]
        except (AttributeError, TypeError, LookupError):
            try:
                if not isinstance(key, str):
                    raise AttributeError(key) from None
                item = getattr(item, key)
            except AttributeError:
                return ""
    return item
