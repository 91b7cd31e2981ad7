"""Type stubs for markup._core, the C extension behind `markup`."""

import sys
from typing import (
    Any,
    AsyncIterable,
    Awaitable,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Protocol,
    Sequence,
    SupportsIndex,
    Tuple,
    Union,
    final,
)

from typing_extensions import Self, disjoint_base

MAX_DEPTH: int
libmarkup_version: str
_RAW_PER_CALL_ADVICE: str

# The template instruction set of libmarkup's binding.h (MARKUP_ dropped),
# for markup._template.
# markup_op and its LOOP flag
OP_STATIC: int
OP_WRITE: int
OP_IF: int
OP_JUMP: int
OP_LOOP: int
OP_END_LOOP: int
OP_PARAM: int
OP_ITEM: int
OP_LOOP_INFO: int
OP_CYCLE: int
OP_APPLY: int
OP_NEWLINE: int
OP_CAPTURE: int
OP_END_CAPTURE: int
OP_BREAK: int
LOOP_LOOKAHEAD: int
# markup_apply_kind
APPLY_CONST: int
APPLY_ATTR: int
APPLY_ITEM: int
APPLY_BINARY: int
APPLY_COMPARE: int
APPLY_FORMAT: int
APPLY_CONCAT: int
APPLY_LIST: int
APPLY_TUPLE: int
APPLY_DICT: int
APPLY_SELECT: int
APPLY_CALL: int
APPLY_UNPACK: int
# markup_binary_op
BINARY_ADD: int
BINARY_SUB: int
BINARY_MUL: int
BINARY_DIV: int
BINARY_FLOORDIV: int
BINARY_MOD: int
# markup_compare_op
COMPARE_LT: int
COMPARE_LE: int
COMPARE_EQ: int
COMPARE_NE: int
COMPARE_GT: int
COMPARE_GE: int
COMPARE_CONTAINS: int
# markup_loop_field
LOOP_INDEX: int
LOOP_INDEX0: int
LOOP_FIRST: int
LOOP_LAST: int
LOOP_LENGTH: int
LOOP_REVINDEX: int
LOOP_REVINDEX0: int
LOOP_PREVITEM: int
LOOP_NEXTITEM: int
LOOP_CHANGES: int
# pm_format_use
FORMAT_VALUE: int
FORMAT_JOINED: int
FORMAT_WRITTEN: int

class _HasHTML(Protocol):
    def __html__(self) -> str: ...

# class also takes a list of names or a {name: condition} mapping, style a
# mapping of properties (classes() and styles() rules); other attributes
# refuse them at run time.
AttrValue = Union[
    str,
    int,
    float,
    bool,
    None,
    _HasHTML,
    Sequence[Union[str, None, bool, Mapping[str, Any]]],
    Mapping[str, Any],
]
# Iterators, no-argument callables, awaitables and async iterables are
# taken when the element is rendered (the last two by aiter_render only).
Child = Union[
    str,
    int,
    float,
    None,
    "Element",
    "Comment",
    _HasHTML,
    Iterable[Any],
    Callable[[], Any],
    Awaitable[Any],
    AsyncIterable[Any],
]

# Like markupsafe.Markup: the str methods that build text return SafeString
# (of the caller's class) and escape the plain-str arguments they insert.
class SafeString(str):
    def __new__(
        cls, object: object = ..., encoding: Optional[str] = ..., errors: str = ...
    ) -> Self: ...
    def __reduce_ex__(self, protocol: SupportsIndex, /) -> Any: ...
    def __html__(self) -> Self: ...
    def __html_format__(self, format_spec: str, /) -> Self: ...
    def __add__(self, other: Union[str, _HasHTML], /) -> Self: ...
    def __radd__(self, other: Union[str, _HasHTML], /) -> Self: ...
    def __mul__(self, value: SupportsIndex, /) -> Self: ...
    def __rmul__(self, value: SupportsIndex, /) -> Self: ...
    def __mod__(self, value: Any, /) -> Self: ...
    # "..." % SafeString(...) is str's own %: a plain str.
    def __rmod__(self, value: Any, /) -> str: ...
    def __getitem__(self, key: Union[SupportsIndex, slice], /) -> Self: ...
    @classmethod
    def escape(cls, s: object, /) -> Self: ...
    def join(self, iterable: Iterable[Union[str, _HasHTML]], /) -> Self: ...
    def format(self, *args: object, **kwargs: object) -> Self: ...
    def format_map(self, mapping: Mapping[str, Any], /) -> Self: ...  # type: ignore[override]
    def unescape(self) -> str: ...
    def striptags(self) -> str: ...
    def capitalize(self) -> Self: ...
    def title(self) -> Self: ...
    def lower(self) -> Self: ...
    def upper(self) -> Self: ...
    def casefold(self) -> Self: ...
    def swapcase(self) -> Self: ...
    if sys.version_info >= (3, 13):
        def replace(
            self, old: str, new: Union[str, _HasHTML], /, count: SupportsIndex = -1
        ) -> Self: ...
    else:
        def replace(
            self, old: str, new: Union[str, _HasHTML], count: SupportsIndex = -1, /
        ) -> Self: ...
    def ljust(self, width: SupportsIndex, fillchar: Union[str, _HasHTML] = " ", /) -> Self: ...
    def rjust(self, width: SupportsIndex, fillchar: Union[str, _HasHTML] = " ", /) -> Self: ...
    def center(self, width: SupportsIndex, fillchar: Union[str, _HasHTML] = " ", /) -> Self: ...
    def lstrip(self, chars: Optional[str] = None, /) -> Self: ...
    def rstrip(self, chars: Optional[str] = None, /) -> Self: ...
    def strip(self, chars: Optional[str] = None, /) -> Self: ...
    def translate(self, table: Mapping[int, Union[str, int, None]], /) -> Self: ...  # type: ignore[override]
    def expandtabs(self, tabsize: SupportsIndex = 8) -> Self: ...
    def zfill(self, width: SupportsIndex, /) -> Self: ...
    def removeprefix(self, prefix: str, /) -> Self: ...
    def removesuffix(self, suffix: str, /) -> Self: ...
    def split(self, sep: Optional[str] = None, maxsplit: SupportsIndex = -1) -> List[Self]: ...  # type: ignore[override]
    def rsplit(self, sep: Optional[str] = None, maxsplit: SupportsIndex = -1) -> List[Self]: ...  # type: ignore[override]
    def splitlines(self, keepends: bool = False) -> List[Self]: ...  # type: ignore[override]
    def partition(self, sep: str, /) -> Tuple[Self, Self, Self]: ...
    def rpartition(self, sep: str, /) -> Tuple[Self, Self, Self]: ...

# Element, Comment, Tag and the h namespace cannot be subclassed (@final).
@final
class Element:
    @property
    def tag(self) -> str: ...  # "" for h.Fragment
    @property
    def attrs(self) -> Dict[str, Any]: ...
    @property
    def children(self) -> Tuple[Any, ...]: ...
    @property
    def doctype(self) -> bool: ...
    def __html__(self) -> SafeString: ...
    def __str__(self) -> SafeString: ...

# A child taken when its element is rendered, as Element.children shows it.
@final
class Lazy:
    @property
    def source(self) -> Any: ...
    @property
    def kind(self) -> str: ...  # "iterator", "callable", "awaitable", "async iterable"
    @property
    def taken(self) -> bool: ...

@final
class Comment:
    def __new__(cls, text: Union[str, int, float]) -> "Comment": ...
    @property
    def text(self) -> str: ...
    def __html__(self) -> SafeString: ...
    def __str__(self) -> SafeString: ...

@final
class Tag:
    def __new__(cls, name: str) -> "Tag": ...
    @property
    def name(self) -> str: ...
    @property
    def void(self) -> bool: ...
    def __call__(
        self, *args: Union[Mapping[str, AttrValue], Child], **attrs: AttrValue
    ) -> Element: ...

@final
class TagNamespace:
    A: Tag
    Abbr: Tag
    Address: Tag
    Area: Tag
    Article: Tag
    Aside: Tag
    Audio: Tag
    B: Tag
    Base: Tag
    Bdi: Tag
    Bdo: Tag
    Blockquote: Tag
    Body: Tag
    Br: Tag
    Button: Tag
    Canvas: Tag
    Caption: Tag
    Cite: Tag
    Code: Tag
    Col: Tag
    Colgroup: Tag
    Data: Tag
    Datalist: Tag
    Dd: Tag
    Del: Tag
    Details: Tag
    Dfn: Tag
    Dialog: Tag
    Div: Tag
    Dl: Tag
    Dt: Tag
    Em: Tag
    Embed: Tag
    Fieldset: Tag
    Figcaption: Tag
    Figure: Tag
    Footer: Tag
    Form: Tag
    H1: Tag
    H2: Tag
    H3: Tag
    H4: Tag
    H5: Tag
    H6: Tag
    Head: Tag
    Header: Tag
    Hgroup: Tag
    Hr: Tag
    Html: Tag
    I: Tag
    Iframe: Tag
    Img: Tag
    Input: Tag
    Ins: Tag
    Kbd: Tag
    Label: Tag
    Legend: Tag
    Li: Tag
    Link: Tag
    Main: Tag
    Map: Tag
    Mark: Tag
    Math: Tag
    Menu: Tag
    Meta: Tag
    Meter: Tag
    Nav: Tag
    Noscript: Tag
    Object: Tag
    Ol: Tag
    Optgroup: Tag
    Option: Tag
    Output: Tag
    P: Tag
    Picture: Tag
    Pre: Tag
    Progress: Tag
    Q: Tag
    Rp: Tag
    Rt: Tag
    Ruby: Tag
    S: Tag
    Samp: Tag
    Script: Tag
    Search: Tag
    Section: Tag
    Select: Tag
    Slot: Tag
    Small: Tag
    Source: Tag
    Span: Tag
    Strong: Tag
    Style: Tag
    Sub: Tag
    Summary: Tag
    Sup: Tag
    Svg: Tag
    Table: Tag
    Tbody: Tag
    Td: Tag
    Template: Tag
    Textarea: Tag
    Tfoot: Tag
    Th: Tag
    Thead: Tag
    Time: Tag
    Title: Tag
    Tr: Tag
    Track: Tag
    U: Tag
    Ul: Tag
    Var: Tag
    Video: Tag
    Wbr: Tag
    HtmlDocument: Tag
    # SVG 2 and MathML Core, by their case-sensitive names (h.LinearGradient
    # writes linearGradient).
    Animate: Tag
    AnimateMotion: Tag
    AnimateTransform: Tag
    Annotation: Tag
    AnnotationXml: Tag
    Circle: Tag
    ClipPath: Tag
    Defs: Tag
    Desc: Tag
    Ellipse: Tag
    FeBlend: Tag
    FeColorMatrix: Tag
    FeComponentTransfer: Tag
    FeComposite: Tag
    FeConvolveMatrix: Tag
    FeDiffuseLighting: Tag
    FeDisplacementMap: Tag
    FeDistantLight: Tag
    FeDropShadow: Tag
    FeFlood: Tag
    FeFuncA: Tag
    FeFuncB: Tag
    FeFuncG: Tag
    FeFuncR: Tag
    FeGaussianBlur: Tag
    FeImage: Tag
    FeMerge: Tag
    FeMergeNode: Tag
    FeMorphology: Tag
    FeOffset: Tag
    FePointLight: Tag
    FeSpecularLighting: Tag
    FeSpotLight: Tag
    FeTile: Tag
    FeTurbulence: Tag
    Filter: Tag
    ForeignObject: Tag
    G: Tag
    Image: Tag
    Line: Tag
    LinearGradient: Tag
    Maction: Tag
    Marker: Tag
    Mask: Tag
    Merror: Tag
    Metadata: Tag
    Mfrac: Tag
    Mi: Tag
    Mmultiscripts: Tag
    Mn: Tag
    Mo: Tag
    Mover: Tag
    Mpadded: Tag
    Mpath: Tag
    Mphantom: Tag
    Mprescripts: Tag
    Mroot: Tag
    Mrow: Tag
    Ms: Tag
    Mspace: Tag
    Msqrt: Tag
    Mstyle: Tag
    Msub: Tag
    Msubsup: Tag
    Msup: Tag
    Mtable: Tag
    Mtd: Tag
    Mtext: Tag
    Mtr: Tag
    Munder: Tag
    Munderover: Tag
    Path: Tag
    Pattern: Tag
    Polygon: Tag
    Polyline: Tag
    RadialGradient: Tag
    Rect: Tag
    Semantics: Tag
    Set: Tag
    Stop: Tag
    Switch: Tag
    Symbol: Tag
    Text: Tag
    TextPath: Tag
    Tspan: Tag
    Use: Tag
    View: Tag
    # Children only, no tag: h.Fragment(a, b) renders a then b.
    Fragment: Tag

h: TagNamespace

def _wordcount(s: str, /) -> int: ...
def _title_ascii(s: str, /) -> Optional[str]: ...
def _strip_tags(s: str, /) -> str: ...
def _tstring_html(template: Any, /) -> SafeString: ...
def _tstring_setup(
    cache: Dict[Any, Any],
    slow: Callable[[Any], SafeString],
    tracing: Any,
    template_type: Any,
    interpolation_type: Any,
    /,
) -> None: ...
def _loop_changed(record: List[Any], /, *values: Any) -> bool: ...
def render(node: Child, /, *nodes: Child) -> SafeString: ...
def render_bytes(node: Child, /, *nodes: Child) -> bytes: ...
def iter_render(node: Child, /, chunk_size: int = 65536) -> RenderChunks: ...

# What iter_render returns; the underscored methods serve aiter_render.
@final
class RenderChunks(Iterator[bytes]):
    def __next__(self) -> bytes: ...
    def close(self) -> None: ...
    def _step(self) -> Union[bytes, None, Tuple[int, Any]]: ...
    def _give(self, value: Any, /) -> None: ...
    def _give_end(self) -> None: ...
    def _open_async_iterators(self) -> List[Any]: ...

def _async_stream(node: Child, chunk_size: int, /) -> RenderChunks: ...
def _eager_children(on: bool, /) -> bool: ...
def escape(s: object, /) -> SafeString: ...
def _set_attr_joiners(
    class_joiner: Callable[[Any], Any], style_joiner: Callable[[Any], Any], /
) -> None: ...

# Provided by the @baked implementation (see markup._baked, markup._template).
@disjoint_base
class StandIn:
    def __new__(cls, name: str, func_name: str, index: int, /) -> StandIn: ...

@final
class _ProgramBuilder:
    def __new__(cls, nparams: int, hooks: Any) -> _ProgramBuilder: ...
    def render(self, node: Any, depth: int, /) -> None: ...
    def render_attr(self, name: str, value: Any, /) -> None: ...
    def flush(self) -> None: ...
    def content(self) -> None: ...
    def child_slot(self, depth: int, /) -> int: ...
    def attr_slot(self, name: str, /) -> int: ...
    def text_here(self) -> bool: ...
    def text_slot(self) -> int: ...
    def attr_open(self, name: str, /) -> None: ...
    def attr_text(self, text: str, /) -> None: ...
    def attr_close(self) -> None: ...
    def verbatim(self, on: bool, /) -> None: ...
    def static(self, text: str, /) -> None: ...
    def emit(self, op: int, a: int, b: int, /) -> int: ...
    def here(self) -> int: ...
    def patch(self, at: int, a: int, /) -> None: ...

def _compile(
    builder: Callable[..., Any],
    params: Tuple[str, ...],
    npositional: int,
    defaults: Dict[str, Any],
    qualname: str,
    tree: Any,
    stand_ins: Tuple[Any, ...],
    program: Optional[_ProgramBuilder],
    ops: Tuple[Any, ...],
    paths: Dict[int, str],
    frozen: Optional[str],
) -> Callable[..., SafeString]: ...
def _dict_entries_direct() -> bool: ...

# markup.jinja's programs (pymarkup/jinja.c)
@final
class _JinjaProgram:
    def __new__(
        cls,
        code: List[Any],
        ops: Tuple[Any, ...],
        names: Tuple[Optional[str], ...],
        undefined: Any,
        autoescape: bool,
    ) -> _JinjaProgram: ...
    def render(self, vars: Dict[str, Any], globals: Tuple[Any, ...], /) -> str: ...
    @property
    def length(self) -> int: ...

# markup.jinja's lint reads templates with it (pymarkup/scan.c)
@final
class _HtmlScan:
    def __new__(cls) -> _HtmlScan: ...
    def text(self, s: str, /) -> None: ...
    def value(self) -> None: ...
    def at(self) -> Tuple[str, str, str, str, bool]: ...
    def copy(self) -> _HtmlScan: ...

_jinja_ops: Dict[str, int]
