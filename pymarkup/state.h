/*
 * state.h - private header of the markup._core extension.
 *
 * The module state (heap types, interned strings, caches), the objects a
 * tree is made of (Element, Comment, Lazy, Tag), the render context, then
 * the functions the other files of pymarkup/ share, grouped by the file
 * that defines them, lowest first.
 *
 * The files stand in layers, each calling only the layers below it:
 *
 *   stack.c, base.c        the ground floor: the C stack guard, then what
 *                          every file needs (base.c finds the module state
 *                          through module.c's PyModuleDef, which it reads
 *                          but does not call)
 *   safestring_escape.c    SafeStrings made in C, and escape(); then
 *   safestring_format.c    SafeString's %, format() and format_map(); then
 *   safestring.c           the SafeString type and its str methods
 *   lazy.c                 Lazy children: their kind and one-shot take
 *   render.c               the render walker, which takes Lazy children
 *   element.c              Element and Comment, rendered for __html__ and
 *                          str() through render.c
 *   tag_attrs.c, tag.c     building elements: a factory call's attributes,
 *                          then its children and the call itself
 *   namespace.c            `h` and its factories
 *   compile.c, @baked's three parts (baked_data.c, baked.c,
 *   baked_compile.c; baked_impl.h), stream.c, jinja.c (with loop_iter.c)
 *   module.c               which wires them together.
 *
 * The helpers with headers of their own (dict_fields.c, loop_iter.c,
 * number_format.c, text_filters.c), scan.c and tstring.c call nothing
 * above the ground floor. No two files call each other:
 * scripts/check-layering.py (`make layering`, part of `make lint`) reads
 * the built objects and fails on a pair that does. Nothing here is public
 * API.
 */
#ifndef PYMARKUP_STATE_H
#define PYMARKUP_STATE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "markup/binding.h"

/* err->pos as the binding's messages give it: byte 0 when the failure has
   no position (an empty name). */
static inline size_t pm_err_pos(const markup_error *err) {
    return err->pos == MARKUP_POS_NONE ? 0 : err->pos;
}

/* Compatibility with the oldest supported CPython (3.9). */
#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *Py_NewRef(PyObject *o) {
    Py_INCREF(o);
    return o;
}
static inline PyObject *Py_XNewRef(PyObject *o) {
    Py_XINCREF(o);
    return o;
}
static inline int PyModule_AddObjectRef(PyObject *m, const char *name, PyObject *v) {
    Py_INCREF(v);
    int r = PyModule_AddObject(m, name, v);
    if (r < 0) Py_DECREF(v);
    return r;
}
#endif

/* CPython's private layouts (a str's, a dict's entries) are used only on
   the versions they were checked against, up to 3.15, with a GIL and
   outside the limited API; each user adds its own lower bound. */
#if !defined(Py_LIMITED_API) && !defined(Py_GIL_DISABLED) && PY_VERSION_HEX < 0x03100000
#  define PM_CPYTHON_LAYOUTS 1
#else
#  define PM_CPYTHON_LAYOUTS 0
#endif

/* ------------------------------------------------------------------------ */
/* Module state                                                               */
/* ------------------------------------------------------------------------ */

typedef struct pm_state {
    PyTypeObject *element_type;    /* markup.Element                           */
    PyTypeObject *tag_type;        /* markup.Tag: an element factory           */
    PyTypeObject *namespace_type;  /* markup.TagNamespace, the type of `h`     */
    PyTypeObject *comment_type;    /* markup.Comment                           */
    PyTypeObject *safestring_type; /* markup.SafeString (a str subclass)       */
    PyTypeObject *lazy_type;       /* markup.Lazy: a child taken at render     */

    /* Owned by baked.c: pm_baked_init() may set these; they stay NULL
       otherwise. module.c visits and clears them with the rest of the
       state. Element construction accepts instances of stand_in_type as
       children and attribute values; the render walker hands them to
       pm_render_ctx.on_stand_in. */
    PyTypeObject *stand_in_type;
    PyTypeObject *baked_type;
    /* Owned by compile.c (pm_compile_init): markup._core._ProgramBuilder. */
    PyTypeObject *program_builder_type;

    /* Owned by stream.c (pm_stream_init): the iterator of iter_render(). */
    PyTypeObject *chunks_type;

    /* Owned by safestring.c (pm_safestring_init): a tuple of what
       SafeString's methods use (str's method descriptors, the % argument
       wrapper type, _string's format parser). */
    PyObject *safestring_refs;

    PyObject *h;               /* the `h` namespace instance                    */
    PyObject *factories;       /* dict: "Div" -> Tag('div'), for `h`            */
    PyObject *kwname_cache;    /* dict: keyword ("class_") -> attr name ("class") */
    PyObject *mapping_abc;     /* collections.abc.Mapping, for the rare path    */
    PyObject *str_html;        /* interned "__html__"                          */
    PyObject *str_class;       /* interned "class"                             */
    PyObject *str_value;       /* interned "value": an Interpolation's       */
    PyObject *str_conversion;  /* interned "conversion"                      */
    PyObject *str_format_spec; /* interned "format_spec"                     */
    PyObject *str_style;       /* interned "style"                             */
    PyObject *str_eager;       /* key in the thread state dict: pm_eager_children */
    /* Owned by tstring.c: what markup.html()'s fast path reads, set by
       _tstring_setup (NULL until then, and on Pythons without t-strings):
       the compiled templates by literal parts, the Python way for the
       rest, the tracer's thread-local state, string.templatelib.Template,
       and the names it reads. */
    PyObject *tstring_cache;
    PyObject *tstring_slow;
    PyObject *tstring_tracing;
    PyObject *template_type;
    PyObject *interpolation_type;
    /* Where Template and Interpolation keep their fields (read from their
       member descriptors at setup; -1: read them as attributes). */
    Py_ssize_t off_strings, off_interpolations, off_value, off_conversion, off_format_spec;
    PyObject *str_strings, *str_interpolations, *str_fn, *str_joined_at, *str_dict, *str_sessions;
    /* markup's classes()/styles() rules for a list or mapping given as the
       value of class or style (set by the package's __init__; until then
       such values are refused as for any other attribute). */
    PyObject *class_joiner;
    PyObject *style_joiner;

    /* Attribute names already found valid (tag_attrs.c), by address: the
       literal keys of attribute dicts come back on every call. Two ways
       per set, so that two names used together ("class" and "data-id" on
       every row) cannot keep evicting each other. Each entry holds a
       reference, so an address cannot be reused by another string while
       cached. Not kept without a GIL. */
#define PM_NAME_CACHE 64 /* entries: PM_NAME_CACHE / 2 sets of two */
    PyObject *valid_names[PM_NAME_CACHE];
} pm_state;

extern PyModuleDef pm_module_def;

/* The state of the module that defined `type` (or one of its bases). Never
   fails for our own types and their subclasses; for a foreign type it
   raises SystemError and returns NULL. */
pm_state *pm_state_from_type(PyTypeObject *type);
/* As pm_state_from_type, but returns NULL without an exception. */
pm_state *pm_state_find(PyTypeObject *type);

static inline pm_state *pm_state_from_module(PyObject *module) {
    return (pm_state *)PyModule_GetState(module);
}

/* ------------------------------------------------------------------------ */
/* Element                                                                    */
/* ------------------------------------------------------------------------ */

/* Element.flags */
#define PM_ELEMENT_DOCTYPE  0x01 /* write "<!doctype html>" before the element */
#define PM_ELEMENT_FRAGMENT 0x02 /* h.Fragment: no tag, only its children        */
#define PM_ELEMENT_LAZY     0x04 /* a Lazy child in it or in an element below it  */

/* An element: immutable once built, in one allocation. `tag` is a
   validated ASCII str. `items` holds 2 * nattrs attribute items, name,
   value, name, value, ... in insertion order, then the children; ob_size
   counts them all. Names are validated str, values are stored as given
   (str, SafeString, __html__ objects, int, float, True, False, None or a
   baked stand-in) and the rules are applied when rendering. Children are
   already flattened: str, int, float, Element, Comment, __html__ objects,
   stand-ins or Lazy children (None and nested lists were removed at
   construction). */
typedef struct pm_element {
    PyObject_VAR_HEAD PyObject *tag;
    Py_ssize_t nattrs;    /* attribute pairs at the start of items */
    Py_ssize_t nodes;     /* elements below it: how much a streaming walk
                             finds in it without descending */
    uint8_t kind;         /* markup_tag_kind */
    uint8_t flags;        /* PM_ELEMENT_* */
    markup_tag_class cls; /* what the tag is to the HTML parser */
    PyObject *items[];
} pm_element;

static inline Py_ssize_t pm_element_nchildren(const pm_element *el) {
    return Py_SIZE(el) - 2 * el->nattrs;
}

static inline PyObject *const *pm_element_children(const pm_element *el) {
    return el->items + 2 * el->nattrs;
}

/* An element factory (markup.Tag; h.Div is one): what tag.c builds its
   elements from and tag_attrs.c names them by. */
typedef struct pm_tag {
    PyObject_HEAD vectorcallfunc vectorcall;
    pm_state *st;    /* lives as long as the module, which our type keeps alive */
    PyObject *name;  /* validated ASCII tag name: "div", "my-widget"          */
    PyObject *label; /* repr: "h.Div", "Tag('my-widget')"                     */
    uint8_t kind;
    uint8_t flags;
    markup_tag_class cls;
} pm_tag;

/* A child taken when the element is rendered, not when it is built
   (markup.Lazy): an iterator or an awaitable, used by the first render
   only; a zero-argument callable, called by each render; an async
   iterable, iterated by the first aiter_render. */
enum { PM_LAZY_ITER, PM_LAZY_CALL, PM_LAZY_AWAIT, PM_LAZY_AITER };

typedef struct pm_lazy {
    PyObject_HEAD PyObject *source;
    uint8_t kind;  /* PM_LAZY_* */
    uint8_t taken; /* a one-shot source was handed to a render (with the
                      GIL held: one thread sees 0 and sets it) */
} pm_lazy;

/* The kind of Lazy child `obj` would be, or -1 for none (lazy.c). */
int pm_lazy_kind(pm_state *st, PyObject *obj);

/* (tag.c) 1 while @baked traces a builder in this thread (markup._core.
   _eager_children): an iterator child is taken when its element is built
   and no child is lazy. 0 otherwise, -1 with an exception set. */
int pm_eager_children(pm_state *st);

/* Takes a one-shot Lazy child for a render (lazy.c): 0, or -1 with a ValueError
   (naming the element `where`, a writer frame, when not NULL) when an
   earlier (or another thread's) render took it. */
int pm_lazy_take(pm_lazy *lazy, const markup_writer *w);

/* A Comment: `text` is a str written escaped between "<!--" and "-->". */
typedef struct pm_comment {
    PyObject_HEAD PyObject *text;
} pm_comment;

/* ------------------------------------------------------------------------ */
/* Rendering                                                                  */
/* ------------------------------------------------------------------------ */

/* The context of one render: the output buffer, and what to do with baked
   stand-ins. */
typedef struct pm_render_ctx {
    pm_state *st;
    markup_buf *buf;
    /* Called for a stand-in met as a child (attr_name NULL; `depth` is
       the depth a child there is rendered at) or as an attribute value
       (attr_name is the attribute's UTF-8 name; depth 0). Returns 0, or -1
       with an exception set. NULL: a stand-in is a TypeError. */
    int (*on_stand_in)(struct pm_render_ctx *ctx, PyObject *stand_in, const char *attr_name,
                       Py_ssize_t attr_name_len, int depth);
    /* The HTML writer on `buf`: it decides how each piece is written where
       it stands. NULL while a baked attribute slot is filled (the value is
       written into `attrs`, inside a start tag the template holds). */
    markup_writer *w;
    /* markup_writer_plain_buf(w) where the walker stands: text is escaped
       and trusted HTML appended straight into it; NULL where each piece goes
       through the writer's checks. */
    markup_buf *plain;
    /* Where the attributes of the element being opened go straight
       (markup_writer_attr_buf, or the buffer in a baked attribute slot);
       NULL: through the writer. */
    markup_buf *attrs;
    /* With w NULL (a baked attribute slot): where the slot's start tag
       stands, for markup_context_check_attr_html on trusted values. */
    markup_context attrs_at;
    /* Set while @baked bakes a template (not while a call fills one): a
       Lazy child met then would be taken once and fixed in the template. */
    int baking;
    /* Set only while @baked compiles a template program: called with the
       children of each element (and the items of each list) in place of
       rendering them; `raw` when they are the text of script or style.
       Also makes a str attribute value that holds a formatting marker go
       to on_stand_in. Returns 0, or -1 with an exception set. */
    int (*on_children)(struct pm_render_ctx *ctx, PyObject *const *items, Py_ssize_t n, int raw,
                       int depth);
} pm_render_ctx;

/* ------------------------------------------------------------------------ */
/* The ground floor: base.c and stack.c (they call no file above them)        */
/* ------------------------------------------------------------------------ */

#if defined(__GNUC__) || defined(__clang__)
#  define PM_NOINLINE __attribute__((noinline))
#else
#  define PM_NOINLINE
#endif

/* A pointer's bits above the allocator's alignment, mixed so that
   neighbouring objects spread out: for the caches keyed by address. */
static inline uint64_t pm_pointer_hash(const void *p) {
    return (uint64_t)((uintptr_t)p >> 4) * UINT64_C(0x9E3779B97F4A7C15);
}

/* The C stack guard (stack.c): 0 while enough of this thread's C stack is
   left for another level of rendering, else -1 with RecursionError set
   ("... exceeded <where> ..."). Called on every way back into Python code
   that a render or an element's construction takes, where they can nest
   without end: __html__ lookups, nested lists and iterators, every 16th
   level of elements, a @baked call's iterators. */
int pm_stack_check(const char *where);

/* A small vector of owned references, on the stack until it grows: the
   attributes and children of a factory call while they are checked. */
#define PM_VEC_INLINE 16

typedef struct pm_vec {
    PyObject **items;
    Py_ssize_t len;
    Py_ssize_t cap;
    PyObject *seen;   /* attributes only: a set of the names, once there are many */
    Py_ssize_t nodes; /* children only: the elements in them and below */
    uint8_t flags;    /* children only: PM_ELEMENT_LAZY when one is lazy */
    PyObject *inline_items[PM_VEC_INLINE];
} pm_vec;

/* Empties `v` (an uninitialized one too) for use. */
void pm_vec_init(pm_vec *v);
/* Makes room for half as many again: 0, or -1 with MemoryError. */
int pm_vec_grow(pm_vec *v);
/* Releases every reference `v` holds and leaves it empty. */
void pm_vec_clear(pm_vec *v);

/* Appends a new reference to `o`. */
static inline int pm_vec_push(pm_vec *v, PyObject *o) {
    if (v->len == v->cap && pm_vec_grow(v) < 0) return -1;
    Py_INCREF(o);
    v->items[v->len++] = o;
    return 0;
}

/* Creates the type of `spec` (with `base`, or NULL) for `module` into
   *slot and adds it to the module under the last part of its dotted name.
   0, or -1 with an exception set. */
int pm_add_type(PyObject *module, PyTypeObject **slot, PyType_Spec *spec, PyObject *base);

/* The allocator of every buffer the extension makes: PyMem_*. */
extern const markup_alloc pm_pymem_alloc;

/* Converts a markup_status into a Python exception (MemoryError,
   OverflowError, ValueError) and returns -1. `what` names the element or
   function for the message. */
int pm_raise_status(markup_status status, const char *what);

/* The characters of an ASCII str (any layout), which are its UTF-8; NULL
   when `str` is not ASCII. */
static inline const char *pm_ascii_chars(PyObject *str, Py_ssize_t *n) {
#if PY_VERSION_HEX < 0x030C0000
    if (!PyUnicode_IS_READY(str)) return NULL;
#endif
    if (!PyUnicode_IS_ASCII(str)) return NULL;
    *n = PyUnicode_GET_LENGTH(str);
    return (const char *)PyUnicode_DATA(str);
}

const char *pm_utf8_slow(PyObject *str, Py_ssize_t *n, PyObject *tag, const char *func);

/* The UTF-8 form of a str (cached by CPython; no copy for ASCII). A lone
   surrogate becomes a ValueError that names the element `tag` (a str, as
   "<div>") or, when tag is NULL, the function `func` ("render()").
   Returns NULL with an exception set on failure. */
static inline const char *pm_utf8(PyObject *str, Py_ssize_t *n, PyObject *tag, const char *func) {
    const char *s = pm_ascii_chars(str, n); /* most text */
    return s ? s : pm_utf8_slow(str, n, tag, func);
}

/* Whether the str instance `s` (a subclass) defines its own __str__. Its
   text is then str(s), not its stored characters, as markupsafe.escape
   (and so Jinja2) takes it. */
static inline int pm_str_has_own_str(PyObject *s) {
    return Py_TYPE(s)->tp_str != PyUnicode_Type.tp_str;
}

/* Whether an object that is none of the values markup knows (str, number,
   element, __html__, list ...) is text: its type defines __str__ (a date,
   a Decimal, an ORM's URL wrapper), and markup writes str() of it escaped,
   as Jinja2 does. Not object's default (the repr), nor bytes, sets,
   mappings or a factory, which keep their own messages. 1, 0, or -1 with
   an exception. */
int pm_is_text_object(pm_state *st, PyObject *o);

/* Where a FORMAT's result goes, which decides what it may be. */
typedef enum pm_format_use {
    PM_FORMAT_VALUE = 0, /* used as a value: exactly what format() gives */
    PM_FORMAT_JOINED,    /* one field of a longer formatted string: an exact
                            str, as Python's join of the parts makes it */
    PM_FORMAT_WRITTEN    /* the whole formatted string, written at once: an
                            int, float or str with no spec nor conversion
                            stays itself, which writes the same text */
} pm_format_use;

/* What to do instead of a per-call value in <script>/<style> text: said
   by tag.c for a stand-in met there and by the tracer in markup/_template/
   for formatted text (as _core._RAW_PER_CALL_ADVICE). */
#define PM_RAW_PER_CALL_ADVICE                                                                     \
    "which is raw (not escaped) and checked when the element is built, so it cannot change per "   \
    "call: build the whole element per call, as a child: per_call(lambda d: "                      \
    "h.Script('const data = ', tojson(d), ';'), data), or pass it in as a parameter; or put "      \
    "json.dumps(...) in a data- attribute, where it is escaped as text"

/* The text str() gives an exact int or float, written into
   out[PM_NUMBER_MAX] without creating a str object. Returns its length, 0
   when the number needs the generic path (a big int), or -1 with an
   exception set. The text is only digits, '-', '+', '.', 'e', "inf" or
   "nan": nothing to escape. */
#define PM_NUMBER_MAX 32
Py_ssize_t pm_format_number(PyObject *num, char out[PM_NUMBER_MAX]);

/* Looks up `__html__` on `obj`: 1 and a new reference in *method, 0 when
   absent (no exception), -1 on error, including RecursionError when the
   C stack is nearly used up (pm_stack_check): a lookup comes before every
   __html__ call. */
int pm_lookup_html(pm_state *st, PyObject *obj, PyObject **method);

/* Calls obj.__html__() (`method`, from pm_lookup_html; borrowed) and
   returns the HTML as a str (a new reference). A str subclass with its own
   __str__ gives str() of it, as markupsafe's Markup() reads it. Anything
   but a str is a TypeError, where markupsafe would str() it: an __html__
   that returns None or a number has almost always lost its return. */
PyObject *pm_call_html(PyObject *method, PyObject *obj);

/* 1 when `obj` has an __html__ method, 0 when not, -1 on error
   (pm_lookup_html without the method). */
int pm_has_html(pm_state *st, PyObject *obj);

/* pm_call_html without the str() of a subclass: the str as __html__ gave
   it (for SafeString.format, which escapes it again as markupsafe does). */
PyObject *pm_call_html_as_is(PyObject *method, PyObject *obj);

/* The C part of every stand-in of a traced @baked builder (baked.c owns
   the type; markup/_template/ subclasses it). */
typedef struct pm_stand_in {
    PyObject_HEAD PyObject *name; /* the parameter's name, or a path     */
    PyObject *func_name;          /* the builder's qualified name          */
    Py_ssize_t index;             /* the parameter's position, -1 if none  */
} pm_stand_in;

/* True (1) when `obj` is a baked stand-in. */
static inline int pm_is_stand_in(pm_state *st, PyObject *obj) {
    return st->stand_in_type != NULL && PyObject_TypeCheck(obj, st->stand_in_type);
}

/* Our own Element or Comment given as an attribute value: raises the
   TypeError (`where` names the place, e.g. "<div>") and returns -1;
   returns 0 for any other value. Their HTML holds '"', which would end the
   quoted value early. */
int pm_node_attr_value_error(pm_state *st, PyObject *where, PyObject *name, PyObject *value);

/* The tag of the innermost element open in `w` as a str, or `none` when
   no element is open (or `w` is NULL). New reference; NULL with an
   exception on failure. */
PyObject *pm_open_tag(const markup_writer *w, const char *none);

/* Raises the ValueError for raw text of <tag> (script or style) that a
   check refused (MARKUP_ERR_RAW_TEXT): err->refused is the sequence, at
   err->pos, and err->element the text element it would end, <tag> itself
   or one around it (NULL: trusted HTML ending in '<' before a slot).
   `what` is the subject and verb of the message ("text contains"), or
   NULL when the sequence was formed across two pieces of the text.
   Returns -1. */
int pm_raw_text_error(PyObject *tag, const char *what, const markup_error *err);

/* ------------------------------------------------------------------------ */
/* SafeString: safestring_escape.c, safestring_format.c, then safestring.c   */
/* ------------------------------------------------------------------------ */

/* What st->safestring_refs holds: the %-argument wrapper type, the parts of
   _string that string.Formatter is built on, interned names, then the str
   method descriptors that SafeString wraps (in safestring.c's STR_METHODS
   order). Filled by pm_safestring_init. */
enum {
    PM_REF_ESCAPE_HELPER,
    PM_REF_FORMATTER_PARSER, /* _string.formatter_parser */
    PM_REF_FIELD_NAME_SPLIT, /* _string.formatter_field_name_split */
    PM_REF_NAME_HTML_FORMAT, /* "__html_format__" */
    PM_REF_NAME_GETITEM,     /* "__getitem__" */
    PM_REF_NAME_HTML,        /* "html", the module */
    PM_REF_NAME_UNESCAPE,    /* "unescape" */
    PM_REF_STR_METHODS,
};

#define PM_REF(st, index) PyTuple_GET_ITEM((st)->safestring_refs, (index))

/* Whether the `n` bytes at `s` are all ASCII. */
int pm_is_ascii(const char *s, Py_ssize_t n);

/* A new SafeString holding `n` bytes of UTF-8 (already safe HTML). */
PyObject *pm_safestring_from_utf8(pm_state *st, const char *s, Py_ssize_t n);

/* The same for bytes the caller knows to be ASCII. */
PyObject *pm_safestring_from_ascii(pm_state *st, const char *s, Py_ssize_t n);
/* Storage a markup_buf can take for output that is to become a
   SafeString's characters without a copy, or NULL where there is none. */
const markup_alloc *pm_safestring_storage(pm_state *st);
/* A SafeString of the ASCII in `buf`: its storage taken over when it is
   pm_safestring_storage's (`buf` is then left empty), else copied. */
PyObject *pm_safestring_from_ascii_buf(pm_state *st, markup_buf *buf);

/* escape(obj), the module function (METH_O). */
PyObject *pm_escape(PyObject *module, PyObject *obj);

/* A new SafeString with the characters of the str `s`. */
PyObject *pm_safestring_from_str(pm_state *st, PyObject *s);

/* markupsafe.escape(obj) as text: a str holding safe HTML (a new
   reference), not necessarily a SafeString: __html__ objects are trusted,
   everything else is str()-ed and escaped. */
PyObject *pm_html_text(pm_state *st, PyObject *obj);

/* markupsafe.escape(obj): always a SafeString (never a subclass). */
PyObject *pm_escape_object(pm_state *st, PyObject *obj);

/* `text` (a str that is safe HTML; the reference is stolen, NULL passes
   through) as an instance of type(like): SafeString directly, a subclass
   through its constructor, as Markup's self.__class__(text). */
PyObject *pm_safe_like(pm_state *st, PyObject *like, PyObject *text);

/* safestring_format.c: SafeString % value (nb_remainder), format() and
   format_map(), each escaping what it inserts. */
PyObject *pm_safestring_mod(PyObject *a, PyObject *b);
PyObject *pm_safestring_format(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *pm_safestring_format_map(PyObject *self, PyObject *mapping);
/* The type of the % operator's escaping argument wrapper, new for
   `module` (PM_REF_ESCAPE_HELPER), or NULL with an exception. */
PyObject *pm_escape_helper_type(PyObject *module);

/* ------------------------------------------------------------------------ */
/* The render walker (render.c; above SafeString and lazy.c)                  */
/* ------------------------------------------------------------------------ */

/* Writes any child value: str (escaped), SafeString and __html__ objects
   (verbatim), int/float (str()), None (nothing), Element, Comment, lists
   and tuples (each item), stand-ins (ctx->on_stand_in). `depth` is
   the element nesting depth so far (0 at the top). Returns 0, or -1 with an
   exception set (the buffer may hold a partial write: the caller discards
   it or truncates). */
int pm_render_child(pm_render_ctx *ctx, PyObject *child, int depth);

/* An element in two halves, for a walker that renders its children itself
   (stream.c): the doctype, start tag and attributes (fragments have none),
   then the end tag. Return 0, or -1 with an exception set. */
int pm_render_start(pm_render_ctx *ctx, pm_element *el, int depth);
int pm_render_end(pm_render_ctx *ctx);

/* The TypeError for an awaitable or async iterable met by a synchronous
   render; `close` closes a coroutine that nobody else holds. Returns -1. */
int pm_async_child_error(PyObject *child, int close);

/* Writes one attribute by the value rules: str -> ' name="escaped"',
   SafeString/__html__ -> ' name="verbatim"', int/float -> str() escaped,
   True -> ' name', False/None -> nothing, stand-in ->
   ctx->on_stand_in, anything else -> TypeError. The name must already
   be validated. Returns 0 or -1 with an exception set. */
int pm_render_attr_value(pm_render_ctx *ctx, const char *name, Py_ssize_t name_len,
                         PyObject *value);

/* Renders `obj` at the start of a body into `buf` (initialized by the
   caller) through one HTML writer. Returns 0, or -1 with an exception. */
int pm_render_into(pm_state *st, markup_buf *buf, PyObject *obj);

/* What pm_render_as returns. */
typedef enum pm_output {
    PM_OUTPUT_SAFESTRING, /* render(), __html__ and str() of an element */
    PM_OUTPUT_BYTES       /* render_bytes(): UTF-8 bytes                 */
} pm_output;

/* The one render entry point: `obj` (any child value) rendered as `kind`.
   Returns a new reference, or NULL with an exception set. */
PyObject *pm_render_as(pm_state *st, PyObject *obj, pm_output kind);

/* ------------------------------------------------------------------------ */
/* Building elements: tag_attrs.c, then tag.c (above the render walker)        */
/* ------------------------------------------------------------------------ */

/* The attributes of a factory call (tag_attrs.c), appended to `attrs` as
   name, value pairs; each returns 0, or -1 with an exception set (`attrs`
   is then dropped whole by the caller). An exact dict's items: */
int pm_add_dict_attrs(pm_tag *tag, pm_vec *attrs, PyObject *dict);
/* Any other mapping's items (dict subclasses, MappingProxyType ...): */
int pm_add_mapping_attrs(pm_tag *tag, pm_vec *attrs, PyObject *mapping);
/* A keyword argument (`kw` "class_" names the attribute "class"): */
int pm_add_kw_attr(pm_tag *tag, pm_vec *attrs, PyObject *kw, PyObject *value);
/* 1 when a positional argument that is not an exact dict is an attribute
   mapping, 0 when it is a child, -1 on error. */
int pm_is_attr_mapping(pm_state *st, PyObject *arg);

/* A new Tag of `type` for the tag `name` (validated here: ValueError when
   it is no tag name), shown as `label` (NULL: "Tag('name')"), its
   elements flagged with `flags` (PM_ELEMENT_*). NULL with an exception on
   failure (tag.c). */
PyObject *pm_tag_create(pm_state *st, PyTypeObject *type, PyObject *name, PyObject *label,
                        uint8_t flags);

/* ------------------------------------------------------------------------ */
/* Compiling template programs: compile.c                                     */
/* ------------------------------------------------------------------------ */

/* Finishes the program of a _ProgramBuilder (which is then spent): the
   program, or NULL with an exception. *static_ascii tells whether all of
   its static HTML is ASCII. */
markup_program *pm_program_builder_finish(pm_state *st, PyObject *builder, int *static_ascii);

/* ------------------------------------------------------------------------ */
/* Per-file init (called from module.c's exec slot)                            */
/* ------------------------------------------------------------------------ */

/* element.c: markup.Element and markup.Comment. */
int pm_element_init(PyObject *module, pm_state *st);
/* lazy.c: markup.Lazy. */
int pm_lazy_init(PyObject *module, pm_state *st);
/* tag.c: markup.Tag. */
int pm_tag_init(PyObject *module, pm_state *st);
/* namespace.c: markup.TagNamespace, the factories of `h` (st->factories)
   and `h` itself; after pm_tag_init. */
int pm_namespace_init(PyObject *module, pm_state *st);
int pm_safestring_init(PyObject *module, pm_state *st);
/* Provided by compile.c: creates _ProgramBuilder (st->program_builder_type). */
int pm_compile_init(PyObject *module, pm_state *st);
/* Provided by baked.c: creates the baked types, sets st->stand_in_type,
   and adds its names to the module. Returns 0 or -1 with an exception. */
int pm_baked_init(PyObject *module, pm_state *st);
/* Provided by tstring.c: adds _tstring_setup and markup.html()'s fast
   path, _tstring_html; its state is visited and cleared by module.c. */
int pm_tstring_init(PyObject *module, pm_state *st);

/* Adds _compile (baked_compile.c), after pm_baked_init made the types. */
int pm_baked_compile_init(PyObject *module);
/* Provided by stream.c: creates the iter_render() iterator type, sets
   st->chunks_type, and adds iter_render to the module. */
int pm_stream_init(PyObject *module, pm_state *st);
/* Provided by jinja.c: adds markup._core._JinjaProgram (Jinja2 templates
   run as template programs) and its numbers, _jinja_ops. */
int pm_jinja_init(PyObject *module, pm_state *st);
/* Provided by scan.c: adds markup._core._HtmlScan (markup_scan). */
int pm_scan_init(PyObject *module, pm_state *st);

#endif /* PYMARKUP_STATE_H */
