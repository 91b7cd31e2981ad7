"""markup: fast, safe HTML rendering with a C core.

    from markup import h, render
    page = h.Div({"class": "card"}, h.H2("Tea & cake"), [h.Li(x) for x in items])
    render(page)  # '<div class="card"><h2>Tea &amp; cake</h2>...</div>'

Text is escaped exactly as Jinja2 with autoescape does (``& < > " '``), so
output is byte-for-byte what the equivalent Jinja2 template produces.
"""

import json as _json
from typing import Any, Dict, Mapping, Optional, Union

from . import _core
from ._baked import baked
from ._core import (
    MAX_DEPTH,
    Comment,
    Element,
    Lazy,
    SafeString,
    Tag,
    escape,
    h,
    iter_render,
    render,
    render_bytes,
)
from ._pretty import pretty
from ._stream import aiter_render
from ._template import (
    MISSING,
    LoopState,
    Missing,
    _find_stand,
    _per_call,
    all_of,
    any_of,
    contains,
    default,
    looped,
    not_,
    per_call,
    when,
)
from ._tstring import html

__all__ = [
    "MAX_DEPTH",
    "MISSING",
    "Missing",
    "Comment",
    "Element",
    "Lazy",
    "LoopState",
    "SafeString",
    "Tag",
    "aiter_render",
    "all_of",
    "any_of",
    "aria",
    "baked",
    "classes",
    "contains",
    "data",
    "default",
    "escape",
    "h",
    "html",
    "iter_render",
    "looped",
    "not_",
    "per_call",
    "pretty",
    "render",
    "render_bytes",
    "styles",
    "tojson",
    "when",
]

# The version is written once, in VERSION; the extension is built with it.
__version__: str = _core.libmarkup_version

_Value = Union[str, int, float, bool, None]


def _attr_name(name: str) -> str:
    """Keyword spelling to attribute spelling: data_user_id -> data-user-id,
    class_ -> class, and _ stays _ (the rule of the element factories)."""
    if name == "_":
        return name
    if name.endswith("_"):
        name = name[:-1]
    return name.replace("_", "-")


def classes(*names: Any, **flags: bool) -> Dict[str, str]:
    """A ``class`` attribute fragment: ``classes("btn", {"active": on}, big=True)``.

    Arguments are class names (str), lists, tuples or iterators of names, or
    mappings from a name to a condition; keywords are names with a
    condition (``_`` becomes ``-``). Falsy names (``None``, ``False``, ``0``,
    ``""``, as ``cond and "name"`` gives) and false conditions are skipped,
    duplicates are written once. A set is refused: it has no order, so the
    attribute would change from run to run. Returns ``{"class": "a b"}``, or
    ``{}`` when no class is left, so that no empty ``class=""`` is written.

    In a ``@baked`` template the names and conditions may depend on the
    parameters (``classes("row", {"late": o["overdue"]})``): the attribute
    is then computed per call.
    """
    if _find_stand((names, flags)) is not None:
        return {"class": _per_call(_class_text, *names, **flags)}
    text = _class_text(*names, **flags)
    return {"class": text} if text is not None else {}


def _class_text(*names: Any, **flags: Any) -> Optional[str]:
    """The value of classes()'s attribute, or None when no class is left."""
    out: Dict[str, None] = {}

    def add(item: Any) -> None:
        if item is None or (isinstance(item, (bool, int, float)) and not item):
            return
        if isinstance(item, str):
            for part in item.split():
                out[part] = None
        elif isinstance(item, Mapping):
            for key, on in item.items():
                if on:
                    add(key)
        elif isinstance(item, (set, frozenset)):
            raise TypeError(
                "classes(): a set has no order, so the class attribute would change from run "
                "to run; pass a list, or a {name: condition} mapping"
            )
        elif isinstance(item, (list, tuple)) or hasattr(item, "__next__"):
            for sub in item:
                add(sub)
        else:
            raise TypeError(
                f"classes(): expected class names (str), lists of names or "
                f"{{name: condition}} mappings, got {type(item).__name__} {item!r}"
            )

    for item in names:
        add(item)
    for key, on in flags.items():
        if on:
            out[_attr_name(key)] = None
    return " ".join(out) if out else None


def styles(*mappings: Mapping[str, Any], **props: Any) -> Dict[str, str]:
    """A ``style`` attribute fragment: ``styles({"color": "red"}, margin_top="1px")``.

    Keywords use ``_`` for ``-``. Properties whose value is None or False
    are skipped. Returns ``{"style": "color: red; margin-top: 1px"}``, or
    ``{}`` when nothing is left. In a ``@baked`` template values may
    depend on the parameters: the attribute is then computed per call.
    """
    if _find_stand((mappings, props)) is not None:
        return {"style": _per_call(_style_text, *mappings, **props)}
    text = _style_text(*mappings, **props)
    return {"style": text} if text is not None else {}


def _style_text(*mappings: Mapping[str, Any], **props: Any) -> Optional[str]:
    """The value of styles()'s attribute, or None when nothing is left."""
    parts = []

    def add(key: Any, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError(
                f"styles(): a property name must be a str, got {type(key).__name__} {key!r}"
            )
        if value is None or value is False:
            return
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise TypeError(
                f"styles(): the value of {key!r} must be a str, int or float, "
                f"got {type(value).__name__}"
            )
        parts.append(f"{key}: {value}")

    for mapping in mappings:
        if not isinstance(mapping, Mapping):
            raise TypeError(
                f"styles(): positional arguments must be mappings, got {type(mapping).__name__}"
            )
        for key, value in mapping.items():
            add(key, value)
    for key, value in props.items():
        add(_attr_name(key), value)
    return "; ".join(parts) if parts else None


def _class_value(value: Any) -> Any:
    """A list, tuple or mapping given as the class value (``class_=["btn",
    {"active": on}]``), joined as classes() joins its arguments; None (no
    attribute) when no class is left, a per-call value in a template."""
    if _find_stand(value) is not None:
        return _per_call(_class_text, value)
    return _class_text(value)


def _style_value(value: Any) -> Any:
    """A mapping given as the style value, joined as styles() joins it."""
    if _find_stand(value) is not None:
        return _per_call(_style_text, value)
    return _style_text(value)


_core._set_attr_joiners(_class_value, _style_value)


def _prefixed(
    func: str, prefix: str, mapping: Optional[Mapping[str, Any]], values: Dict[str, Any]
) -> Dict[str, Any]:
    """{prefix + name: value} from the mapping's names as they are and the
    keywords' with ``_`` as ``-``; a name given twice is a ValueError, as an
    attribute given twice is."""
    if mapping is not None and not isinstance(mapping, Mapping):
        raise TypeError(
            f"{func}(): the positional argument must be a mapping of names to values, "
            f"got {type(mapping).__name__}"
        )
    out: Dict[str, Any] = {}
    items = list(mapping.items()) if mapping is not None else []
    for key, value in items + [(_attr_name(k), v) for k, v in values.items()]:
        if not isinstance(key, str):
            raise TypeError(f"{func}(): names must be str, got {type(key).__name__} {key!r}")
        name = prefix + key
        if name in out:
            raise ValueError(f"{func}(): {name!r} is given twice")
        out[name] = value
    return out


def data(mapping: Optional[Mapping[str, _Value]] = None, /, **values: _Value) -> Dict[str, _Value]:
    """``data-*`` attributes: ``data(user_id=3)`` -> ``{"data-user-id": 3}``.

    Names from the mapping are taken as they are; keywords use ``_`` for
    ``-``. A name given twice is a ValueError. Values follow the ordinary
    attribute rules (True writes the bare name, False/None omit it).
    """
    return _prefixed("data", "data-", mapping, values)


def aria(mapping: Optional[Mapping[str, _Value]] = None, /, **values: _Value) -> Dict[str, _Value]:
    """``aria-*`` attributes: ``aria(hidden=True, label="Close")``.

    ARIA states are strings, so True and False are written as ``"true"`` and
    ``"false"``; None omits the attribute. Names as in ``data()``.
    """
    out = _prefixed("aria", "aria-", mapping, values)
    for name, value in out.items():
        out[name] = _per_call(_aria_value, value)
    return out


def _aria_value(value: Any) -> Any:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return value


def tojson(obj: Any, **dumps_kwargs: Any) -> SafeString:
    """Serialize ``obj`` to JSON that is safe as ``<script>`` content, the
    same bytes as Jinja2's ``|tojson`` filter: ``< > & '`` become
    ``\\u003c \\u003e \\u0026 \\u0027``, and U+2028 and U+2029 (line ends
    to older JavaScript, written raw only with ``ensure_ascii=False``)
    ``\\u2028 \\u2029``. Keys are sorted by default, as Jinja2 does.

    Not for attribute values: ``"`` stays (JSON needs it) and would end the
    double-quoted value. Pass the plain ``json.dumps(obj)`` str there; it is
    escaped like any text.
    """
    dumps_kwargs.setdefault("sort_keys", True)
    text = (
        _json.dumps(obj, **dumps_kwargs)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("'", "\\u0027")
        # Line ends to older JavaScript (raw only with ensure_ascii=False).
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )
    return SafeString(text)
