"""A trace session: one builder being traced, the formatting it did
(markers in texts) and the loops it ran."""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from .table import _MARK, _MARKER
from .watch import _BoolWatch, _note_refusal

if TYPE_CHECKING:
    from .stands import StandIn, _Loop


# The sessions tracing in this thread, by nonce: a marker in a text names
# its session, and when() knows that a builder is being traced.
_tracing = threading.local()


def _sessions() -> Dict[str, "_Session"]:
    active = getattr(_tracing, "sessions", None)
    if active is None:
        active = _tracing.sessions = {}
    return active


def _text_session(text: str) -> Optional["_Session"]:
    """The tracing session whose marker `text` holds, if any."""
    if _MARK not in text:
        return None
    for m in _MARKER.finditer(text):
        session = _sessions().get(m.group(1))
        if session is not None:
            return session
    return None


class _Marker(str):
    """The text of str() or repr() of a stand-in. A format spec applied to
    it afterwards (f"{x!r:>10}") is recorded with it, not applied to the
    marker."""

    def __new__(cls, text: str, session: "_Session", value: StandIn, conv: str) -> "_Marker":
        self = str.__new__(cls, text)
        self._m = (session, value, conv)
        return self

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        session, value, conv = self._m
        return session.marker(value, spec, conv)

    def _refuse(self, what: str) -> Any:
        session, value, _ = self._m
        _note_refusal(session, f"the text of {value._m_describe()} {what}")
        raise TypeError(
            f"@baked {session.func_name}(): the text of {value._m_describe()} {what}. The "
            f"builder runs once, when it is decorated, so this would be done to the text of "
            f"that run, not to each call's value; format the finished value, or prepare it "
            f"in the caller."
        )

    def __bool__(self) -> bool:
        return self._refuse("is used as a truth value (use when(x, ...) on the value itself)")

    def __eq__(self, other: object) -> bool:  # type: ignore[override]
        return self._refuse("is compared (compare the value itself: x == 'a')")

    __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __eq__  # type: ignore[assignment]
    __hash__ = str.__hash__


def _refuse_str_method(name: str) -> Any:
    def method(self: _Marker, *args: Any, **kwargs: Any) -> Any:
        return self._refuse(f"has .{name}() applied")

    return method


# str's methods that would change the text of one run, not each call's.
for _name in (
    "capitalize casefold center count encode endswith expandtabs find index isalnum isalpha "
    "isascii isdecimal isdigit isidentifier islower isnumeric isprintable isspace istitle "
    "isupper join ljust lower lstrip partition removeprefix removesuffix replace rfind rindex "
    "rjust rpartition rsplit rstrip split splitlines startswith strip swapcase title "
    "translate upper zfill __getitem__ __iter__ __mul__ __rmul__ __mod__"
).split():
    setattr(_Marker, _name, _refuse_str_method(_name))
del _name


class _Session:
    def __init__(self, func_name: str) -> None:
        self.func_name = func_name
        self.nonce = str(int.from_bytes(os.urandom(6), "little"))
        self.formats: List[Tuple[StandIn, str, str]] = []
        self.marker_index: Dict[Tuple[int, str, str], int] = {}
        self.loops: List[_Loop] = []
        self.derived = False
        self.inlining = 0  # inlined @baked components being traced now
        self.watch: Optional[_BoolWatch] = None  # set by trace()
        self.constant_tests: List[Tuple[str, Any]] = []  # (helper, the constant)

    def frozen_bools(self) -> Optional[str]:
        """None when nothing the traced code ran could have made a bool of a
        per-call value, so that a True or False in the tree was written as
        one; else what could have (for the refusal)."""
        if self.watch is None:
            return "another profiler (sys.setprofile) running while the builder was traced"
        found = self.watch.found()
        if not found:
            return None
        more = f" and {len(found) - 3} more" if len(found) > 3 else ""
        return ", ".join(found[:3]) + more

    def marker(self, value: StandIn, spec: str, conv: str) -> str:
        if _MARK in spec:
            raise TypeError(
                f"@baked {self.func_name}(): the format spec of {value._m_describe()} is made "
                f'from a per-call value (f"{{x:{{y}}}}"); format specs are fixed when '
                f"baking, so write the spec as a constant"
            )
        self.derived = True
        # One marker per (value, spec, conversion): repr() of a container
        # that holds this registry must not keep growing it.
        key = (id(value), spec, conv)
        index = self.marker_index.get(key)
        if index is None:
            index = self.marker_index[key] = len(self.formats)
            self.formats.append((value, spec, conv))
        return _Marker(f"{_MARK}{self.nonce}mK{index}{_MARK}", self, value, conv)

    def split(self, text: str) -> Optional[List[Any]]:
        """The parts of a text with markers: str and (value, spec, conv);
        None when it has none."""
        text = str.__str__(text)  # a plain str (a _Marker refuses slicing)
        if _MARK not in text:
            if "\\U0010fffd" in text:  # ascii(x): the marker, escaped
                raise TypeError(
                    f"@baked {self.func_name}(): a text holds ascii() of a per-call value, "
                    f"which would be fixed when baking; prepare the text in the caller"
                )
            return None
        parts: List[Any] = []
        at = 0
        for m in _MARKER.finditer(text):
            if m.group(1) != self.nonce:
                continue
            if m.start() > at:
                parts.append(text[at : m.start()])
            parts.append(self.formats[int(m.group(2))])
            at = m.end()
        if at < len(text):
            parts.append(text[at:])
        if any(isinstance(p, str) and _MARK in p for p in parts):
            raise TypeError(
                f"@baked {self.func_name}(): a text made from a parameter was cut or changed "
                f"after formatting (slicing, .upper(), .replace() ...), which cannot be done "
                f"per call; format the finished value instead, or do it in the caller"
            )
        return parts
