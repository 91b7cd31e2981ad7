/*
 * safestring.c - SafeString (a str that is already safe HTML) and escape().
 *
 * SafeString behaves like markupsafe.Markup: it has __html__ (so Jinja2,
 * Django and markupsafe insert it verbatim), SafeString(obj) trusts
 * obj.__html__(), and the str methods that build new text return a
 * SafeString again, escaping the plain-str arguments that become part of it
 * (`+`, `%`, join(), format(), replace()'s new text, the fill character).
 * Results keep the caller's type, so a subclass stays a subclass, as
 * Markup's self.__class__(...) does.
 *
 * escape() follows markupsafe.escape exactly, using libmarkup's escaper;
 * every method here escapes through it.
 */
#include "state.h"

#if defined(__SSE2__)
#  include <emmintrin.h>
#endif

#include <stdbool.h>

/* What st->safestring_refs holds: the %-argument wrapper type, the parts of
   _string that string.Formatter is built on, interned names, then the str
   method descriptors that SafeString wraps (in the STR_METHODS order). */
enum {
    REF_ESCAPE_HELPER,
    REF_FORMATTER_PARSER, /* _string.formatter_parser */
    REF_FIELD_NAME_SPLIT, /* _string.formatter_field_name_split */
    REF_NAME_HTML_FORMAT, /* "__html_format__" */
    REF_NAME_GETITEM,     /* "__getitem__" */
    REF_NAME_HTML,        /* "html", the module */
    REF_NAME_UNESCAPE,    /* "unescape" */
    REF_STR_METHODS,
};

#define REF(st, index) PyTuple_GET_ITEM((st)->safestring_refs, (index))

/* ------------------------------------------------------------------------ */
/* Escaping                                                                   */
/* ------------------------------------------------------------------------ */

/* SafeStrings are built here directly: calling str.__new__ with a
   temporary str in an argument tuple was most of the cost of a small baked
   call. A SafeString is laid out as CPython lays out an exact str (object
   and characters in one block) or, for long escaped text written in place,
   as it lays out a subclass instance (characters in a block of their own);
   every str reader goes by the layout flags, not the type. Fields are set
   by name, so a changed layout fails to compile; versions the layouts were
   not checked against (tests/python/test_safestring_layout.py runs under
   the debug allocator; checked on 3.9-3.15) call str.__new__. */
#if PM_CPYTHON_LAYOUTS
#  define PM_DIRECT_SAFESTRING 1
/* The allocator CPython's str frees a subclass's characters and cached
   UTF-8 with: PyMem from 3.13, PyObject before. */
#  if PY_VERSION_HEX >= 0x030D0000
#    define pm_str_malloc PyMem_Malloc
#    define pm_str_free   PyMem_Free
#  else
#    define pm_str_malloc PyObject_Malloc
#    define pm_str_free   PyObject_Free
#  endif
#endif

/* Text the size of a fragment keeps its UTF-8 beside its characters, so a
   non-ASCII row inserted into a page is not encoded again. Larger text is
   usually a whole page, which is rarely encoded twice. */
#define PM_KEEP_UTF8_MAX 4096

/* A new SafeString calling str.__new__ (works on every version). */
static PyObject *safestring_from_str_portable(pm_state *st, PyObject *s) {
    PyObject *args = PyTuple_Pack(1, s);
    if (args == NULL) return NULL;
    PyObject *r = PyUnicode_Type.tp_new(st->safestring_type, args, NULL);
    Py_DECREF(args);
    return r;
}

#ifdef PM_DIRECT_SAFESTRING
#  if PY_VERSION_HEX >= 0x030D0000
#    define pm_str_realloc PyMem_Realloc
#  else
#    define pm_str_realloc PyObject_Realloc
#  endif

/* A new SafeString owning `data`: `length` characters of `kind` followed
   by a zero, allocated with pm_str_malloc. `data` is freed on failure. */
static PyObject *safestring_adopt(pm_state *st, void *data, Py_ssize_t length, int kind,
                                  int ascii) {
    PyTypeObject *type = st->safestring_type;
    PyObject *op = PyObject_Malloc((size_t)type->tp_basicsize);
    if (op == NULL) {
        pm_str_free(data);
        return PyErr_NoMemory();
    }
    memset(op, 0, (size_t)type->tp_basicsize);
    PyObject_Init(op, type); /* takes a reference to the type */
    PyASCIIObject *a = (PyASCIIObject *)op;
    a->length = length;
    a->hash = -1;
    a->state.kind = (unsigned int)kind;
    a->state.ascii = (unsigned int)ascii;
#  if PY_VERSION_HEX < 0x030C0000
    a->state.ready = 1;
#  endif
    ((PyUnicodeObject *)op)->data.any = data;
    if (ascii) { /* ASCII is its own UTF-8, as str.__new__ shares it */
        ((PyCompactUnicodeObject *)op)->utf8 = data;
        ((PyCompactUnicodeObject *)op)->utf8_length = length;
    }
    return op;
}

/* A new SafeString of `length` characters of `kind` with room for them
   and their terminating zero at *chars, left for the caller to fill. The
   characters follow the object in the same block, laid out as an exact
   str's are (CPython's "compact" form, which every str reader handles by
   its flags, not its type): one allocation instead of two. Callers start
   *chars at NULL: GCC's -Wmaybe-uninitialized cannot see that it is set
   whenever the result is not NULL. */
static PyObject *safestring_alloc(pm_state *st, Py_ssize_t length, int kind, int ascii,
                                  void **chars) {
    PyTypeObject *type = st->safestring_type;
    size_t header = ascii ? sizeof(PyASCIIObject) : sizeof(PyCompactUnicodeObject);
    if (length > (PY_SSIZE_T_MAX - (Py_ssize_t)header) / kind - 1) return PyErr_NoMemory();
    size_t size = header + (size_t)(length + 1) * (size_t)kind;
    if (size < (size_t)type->tp_basicsize) size = (size_t)type->tp_basicsize;
    PyObject *op = PyObject_Malloc(size);
    if (op == NULL) return PyErr_NoMemory();
    memset(op, 0, header);
    PyObject_Init(op, type); /* takes a reference to the type */
    PyASCIIObject *a = (PyASCIIObject *)op;
    a->length = length;
    a->hash = -1;
    a->state.kind = (unsigned int)kind;
    a->state.compact = 1;
    a->state.ascii = (unsigned int)ascii;
#  if PY_VERSION_HEX < 0x030C0000
    a->state.ready = 1;
#  endif
    *chars = (char *)op + header;
    return op;
}

/* markup_buf storage in the allocator of a str's characters, so that an
   escaped text can become a SafeString's characters without a copy. */
static void *str_alloc_malloc(void *ctx, size_t size) {
    (void)ctx;
    return pm_str_malloc(size ? size : 1);
}

static void *str_alloc_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    (void)ctx;
    (void)old_size;
    return pm_str_realloc(ptr, new_size ? new_size : 1);
}

static void str_alloc_free(void *ctx, void *ptr, size_t size) {
    (void)ctx;
    (void)size;
    pm_str_free(ptr);
}

static const markup_alloc str_alloc = {str_alloc_malloc, str_alloc_realloc, str_alloc_free, NULL};

#endif

#define HIGH_BITS UINT64_C(0x8080808080808080)

int pm_is_ascii(const char *s, Py_ssize_t n) {
    /* Whole pages pass through here: four words per step, one test, which
       stops at the first step with a byte above 0x7F. */
    uint64_t high = 0;
    Py_ssize_t i = 0;
    for (; n - i >= 32; i += 32) {
        uint64_t w[4];
        memcpy(w, s + i, 32);
        if ((w[0] | w[1] | w[2] | w[3]) & HIGH_BITS) return 0;
    }
    for (; n - i >= 8; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        high |= w;
    }
    for (; i < n; i++) high |= (unsigned char)s[i];
    return (high & HIGH_BITS) == 0;
}

/* UTF-8 that markup wrote itself (from str values and checked static
   text), decoded in two passes straight into the string it becomes. A
   page is mostly ASCII with a few other characters (a copyright sign, a
   dash): CPython's decoder takes the slow way at each of them and, at the
   first above U+00FF, widens what it has so far (and a SafeString then
   needed a copy of its result). utf8_measure counts the characters and
   finds the widest, skipping words without a high bit whole; utf8_write
   writes them at that width, ASCII runs word by word. */
typedef struct utf8_shape {
    Py_ssize_t chars;
    Py_UCS4 widest;
} utf8_shape;

/* 0, or -1 when the bytes are not well-formed UTF-8 (the caller then lets
   CPython's decoder say what is wrong). */
static int utf8_measure(const unsigned char *s, Py_ssize_t n, utf8_shape *shape) {
    Py_ssize_t chars = 0, i = 0;
    Py_UCS4 widest = 0;
    while (i < n) {
        if (n - i >= 32) { /* four words at a time, as pm_is_ascii */
            uint64_t w[4];
            memcpy(w, s + i, 32);
            if (((w[0] | w[1] | w[2] | w[3]) & HIGH_BITS) == 0) {
                chars += 32;
                i += 32;
                continue;
            }
        }
        if (n - i >= 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if ((w & HIGH_BITS) == 0) {
                chars += 8;
                i += 8;
                continue;
            }
        }
        unsigned char b = s[i];
        int len = b < 0x80                ? 1
                  : b >= 0xC2 && b < 0xE0 ? 2
                  : b >= 0xE0 && b < 0xF0 ? 3
                  : b >= 0xF0 && b < 0xF5 ? 4
                                          : 0;
        if (len == 0 || n - i < len) return -1;
        Py_UCS4 c = len == 1 ? b : len == 2 ? b & 0x1F : len == 3 ? b & 0x0F : b & 0x07;
        for (int k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return -1;
            c = (c << 6) | (s[i + k] & 0x3F);
        }
        /* overlong forms, surrogates, beyond U+10FFFF */
        if ((len == 3 && (c < 0x800 || (c >= 0xD800 && c < 0xE000))) ||
            (len == 4 && (c < 0x10000 || c > 0x10FFFF)))
            return -1;
        if (c > widest) widest = c;
        chars++;
        i += len;
    }
    *shape = (utf8_shape){chars, widest};
    return 0;
}

#ifdef PM_DIRECT_SAFESTRING
static int utf8_kind(Py_UCS4 widest) {
    return widest < 0x100     ? PyUnicode_1BYTE_KIND
           : widest < 0x10000 ? PyUnicode_2BYTE_KIND
                              : PyUnicode_4BYTE_KIND;
}
#endif

/* Writes the characters of measured UTF-8, and the terminating zero. */
static void utf8_write(const unsigned char *s, Py_ssize_t n, int kind, void *data) {
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < n;) {
        unsigned char b = s[i];
        if (b < 0x80) { /* an ASCII run, to the next high byte or the end */
            Py_ssize_t end = i + 1;
            while (n - end >= 32) {
                uint64_t w[4];
                memcpy(w, s + end, 32);
                if ((w[0] | w[1] | w[2] | w[3]) & HIGH_BITS) break;
                end += 32;
            }
            while (n - end >= 8) {
                uint64_t w;
                memcpy(&w, s + end, 8);
                if (w & HIGH_BITS) break;
                end += 8;
            }
            while (end < n && s[end] < 0x80) end++;
            Py_ssize_t run = end - i;
            if (kind == PyUnicode_1BYTE_KIND) {
                memcpy((Py_UCS1 *)data + at, s + i, (size_t)run);
            } else if (kind == PyUnicode_2BYTE_KIND) {
                Py_UCS2 *out = (Py_UCS2 *)data + at;
                Py_ssize_t k = 0;
#if defined(__SSE2__)
                const __m128i zero = _mm_setzero_si128();
                for (; run - k >= 16; k += 16) {
                    __m128i v = _mm_loadu_si128((const __m128i *)(s + i + k));
                    _mm_storeu_si128((__m128i *)(out + k), _mm_unpacklo_epi8(v, zero));
                    _mm_storeu_si128((__m128i *)(out + k + 8), _mm_unpackhi_epi8(v, zero));
                }
#endif
                for (; k < run; k++) out[k] = s[i + k];
            } else {
                Py_UCS4 *out = (Py_UCS4 *)data + at;
                for (Py_ssize_t k = 0; k < run; k++) out[k] = s[i + k];
            }
            at += run;
            i = end;
            continue;
        }
        int len = b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
        Py_UCS4 c = len == 2 ? b & 0x1F : len == 3 ? b & 0x0F : b & 0x07;
        for (int k = 1; k < len; k++) c = (c << 6) | (s[i + k] & 0x3F);
        PyUnicode_WRITE(kind, data, at, c);
        at++;
        i += len;
    }
    PyUnicode_WRITE(kind, data, at, 0);
}

/* A new SafeString with the contents of the str `s`. */
static PyObject *safestring_from_str(pm_state *st, PyObject *s) {
#ifdef PM_DIRECT_SAFESTRING
#  if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return NULL;
#  endif
    if (PyType_IS_GC(st->safestring_type)) return safestring_from_str_portable(st, s);
    int kind = PyUnicode_KIND(s);
    Py_ssize_t length = PyUnicode_GET_LENGTH(s);
    void *chars = NULL;
    PyObject *r = safestring_alloc(st, length, kind, PyUnicode_IS_ASCII(s), &chars);
    if (r != NULL) memcpy(chars, PyUnicode_DATA(s), (size_t)(length + 1) * (size_t)kind);
    return r;
#else
    return safestring_from_str_portable(st, s);
#endif
}

PyObject *pm_safestring_from_ascii(pm_state *st, const char *s, Py_ssize_t n) {
#ifdef PM_DIRECT_SAFESTRING
    if (!PyType_IS_GC(st->safestring_type)) {
        void *chars = NULL;
        PyObject *r = safestring_alloc(st, n, PyUnicode_1BYTE_KIND, 1, &chars);
        if (r == NULL) return NULL;
        memcpy(chars, s, (size_t)n);
        ((char *)chars)[n] = '\0';
        return r;
    }
#endif
    PyObject *str = PyUnicode_DecodeASCII(s, n, "strict");
    if (str == NULL) return NULL;
    PyObject *r = safestring_from_str(st, str);
    Py_DECREF(str);
    return r;
}

const markup_alloc *pm_safestring_storage(pm_state *st) {
#ifdef PM_DIRECT_SAFESTRING
    if (!PyType_IS_GC(st->safestring_type)) return &str_alloc;
#else
    (void)st;
#endif
    return NULL;
}

PyObject *pm_safestring_from_ascii_buf(pm_state *st, markup_buf *buf) {
#ifdef PM_DIRECT_SAFESTRING
    if (buf->alc == &str_alloc && markup_buf_putc(buf, '\0') == MARKUP_OK) {
        size_t len, cap;
        char *chars = markup_buf_detach(buf, &len, &cap);
        len--; /* the zero */
        /* The headroom of the size hint is given back when it is large, as
           escape() gives back its own. */
        if (cap - (len + 1) > (len + 1) / 4 + 256) {
            char *fitted = pm_str_realloc(chars, len + 1);
            if (fitted != NULL) chars = fitted;
        }
        return safestring_adopt(st, chars, (Py_ssize_t)len, PyUnicode_1BYTE_KIND, 1);
    }
#endif
    return pm_safestring_from_ascii(st, buf->data, (Py_ssize_t)buf->len);
}

#ifdef PM_DIRECT_SAFESTRING
/* A non-ASCII result the size of a fragment keeps its UTF-8 beside it,
   freed with the string as CPython frees the UTF-8 it caches. */
static void keep_utf8(PyObject *r, const char *s, Py_ssize_t n) {
    if (n > PM_KEEP_UTF8_MAX || PyUnicode_IS_ASCII(r)) return;
    char *utf8 = pm_str_malloc((size_t)n + 1);
    if (utf8 == NULL) return;
    memcpy(utf8, s, (size_t)n);
    utf8[n] = '\0';
    ((PyCompactUnicodeObject *)r)->utf8 = utf8;
    ((PyCompactUnicodeObject *)r)->utf8_length = n;
}
#endif

PyObject *pm_safestring_from_utf8(pm_state *st, const char *s, Py_ssize_t n) {
#ifdef PM_DIRECT_SAFESTRING
    if (pm_is_ascii(s, n)) return pm_safestring_from_ascii(st, s, n);
    utf8_shape shape;
    if (!PyType_IS_GC(st->safestring_type) &&
        utf8_measure((const unsigned char *)s, n, &shape) == 0) {
        int kind = utf8_kind(shape.widest);
        void *data;
        PyObject *r = safestring_alloc(st, shape.chars, kind, 0, &data);
        if (r == NULL) return NULL;
        utf8_write((const unsigned char *)s, n, kind, data);
        keep_utf8(r, s, n);
        return r;
    }
#endif
    PyObject *str = PyUnicode_DecodeUTF8(s, n, "strict");
    if (str == NULL) return NULL;
    PyObject *r = safestring_from_str(st, str);
    Py_DECREF(str);
#ifdef PM_DIRECT_SAFESTRING
    if (r != NULL) keep_utf8(r, s, n);
#endif
    return r;
}

/* An uninitialized str of `size` units for the escaped form of a str whose
   maximum character is `maxchar`: the entities are ASCII, so the escaped
   text keeps the storage width of the original. */
static PyObject *escaped_str(pm_state *st, bool safe, size_t size, Py_UCS4 maxchar) {
    if (size > (size_t)PY_SSIZE_T_MAX) return PyErr_NoMemory();
#ifdef PM_DIRECT_SAFESTRING
    /* escape() writes straight into its SafeString: no copy afterwards. */
    if (safe && !PyType_IS_GC(st->safestring_type)) {
        int kind = maxchar < 0x100     ? PyUnicode_1BYTE_KIND
                   : maxchar < 0x10000 ? PyUnicode_2BYTE_KIND
                                       : PyUnicode_4BYTE_KIND;
        void *chars = NULL;
        PyObject *r = safestring_alloc(st, (Py_ssize_t)size, kind, maxchar < 0x80, &chars);
        if (r != NULL) memset((char *)chars + size * (size_t)kind, 0, (size_t)kind);
        return r;
    }
#else
    (void)st;
    (void)safe;
#endif
    return PyUnicode_New((Py_ssize_t)size, maxchar);
}

static PyObject *escape_failed(PyObject *r, markup_status status) {
    Py_DECREF(r);
    pm_raise_status(status, "escape()");
    return NULL;
}

/* 1-byte text (ASCII or Latin-1) goes through the byte escaper: the
   specials are ASCII and bytes >= 0x80 pass through unchanged. */
static PyObject *escape_ucs1(pm_state *st, bool safe, PyObject *s, const char *data, size_t n,
                             Py_UCS4 maxchar) {
    /* Stops at the first byte to escape: text with something to escape
       is not read in full before it is escaped. */
    size_t clean = markup_escape_span(data, n);
    if (clean == n) return Py_NewRef(s);
#ifdef PM_DIRECT_SAFESTRING
    if (safe && n >= 1024 && !PyType_IS_GC(st->safestring_type)) {
        /* Long text for escape() is escaped straight into the SafeString's
           storage, reserved once (room for the escaper and the terminating
           zero), then trimmed when the headroom is large: no second
           buffer, no copy. Up to one piece of the escaper (16 KiB) the
           room is the worst case, 5n + 128 bytes: no count, which is a
           pass over the text, is needed. Longer text is counted and
           reserved for at most n + 4 * count + 128 bytes: a piece's
           headroom on top (64 KiB) took inputs of a few tens of KB over
           glibc's mmap threshold, into fresh pages at every call (a fault
           per page written; 4x the time at 40 KB). */
        markup_buf out;
        markup_buf_init(&out, &str_alloc);
        markup_status status;
        size_t room = markup_escape_room(n, n);
        if (room == markup_escape_room(n, 0)) {
            status = room == SIZE_MAX ? MARKUP_ERR_TOO_LARGE : markup_buf_reserve(&out, room + 1);
            if (status == MARKUP_OK) status = markup_escape(&out, data, n);
        } else {
            /* Text with something to escape (clean text returned above):
               its reservation leaves the slack, room for the zero. */
            status = markup_escape_counted(&out, data, n);
        }
        if (status == MARKUP_OK) status = markup_buf_putc(&out, '\0');
        if (status != MARKUP_OK) {
            markup_buf_free(&out);
            pm_raise_status(status, "escape()");
            return NULL;
        }
        size_t len, cap;
        char *chars = markup_buf_detach(&out, &len, &cap);
        len--; /* the zero */
        /* Give back the headroom of the worst case (up to 16 KiB), not
           that of a count, which is at most a quarter (a < or > takes 4
           bytes of the 5 reserved). A block trimmed by a little is freed
           smaller than the next call asks for, and glibc raises its mmap
           threshold only to the size it frees: results over 128 KiB were
           then mapped and faulted in afresh at every call (5x the time at
           1 MB). */
        if (cap - (len + 1) > (len + 1) / 4 + 256) {
            char *fitted = pm_str_realloc(chars, len + 1);
            if (fitted != NULL) chars = fitted;
        }
        return safestring_adopt(st, chars, (Py_ssize_t)len, PyUnicode_1BYTE_KIND, maxchar < 0x80);
    }
#endif
    markup_buf buf;
    markup_buf_init(&buf, &pm_pymem_alloc);
    PyObject *r = NULL;
    markup_status status = markup_escape(&buf, data, n);
    if (status != MARKUP_OK) {
        pm_raise_status(status, "escape()");
    } else {
        r = escaped_str(st, safe, buf.len, maxchar);
        if (r != NULL) memcpy(PyUnicode_DATA(r), buf.data, buf.len);
    }
    markup_buf_free(&buf);
    return r;
}

/* The escaped text of the str `s` (any subclass, read as plain text): `s`
   itself when nothing needs escaping, else a new plain str. Each storage
   width is escaped as it is, so lone surrogates pass through unchanged as
   they do in markupsafe. 2- and 4-byte text is sized first, then written
   straight into the new str. With `safe` the new string is a SafeString
   of module state `st` rather than a plain str. */
static PyObject *escape_str_text(PyObject *s, pm_state *st, bool safe) {
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) return NULL;
#endif
    size_t n = (size_t)PyUnicode_GET_LENGTH(s);
    const void *data = PyUnicode_DATA(s);
    Py_UCS4 maxchar = PyUnicode_MAX_CHAR_VALUE(s);
    PyObject *r;
    markup_status status;
    switch (PyUnicode_KIND(s)) {
    case PyUnicode_1BYTE_KIND: return escape_ucs1(st, safe, s, data, n, maxchar);
    case PyUnicode_2BYTE_KIND: {
        size_t size = markup_escape_u16_size(data, n);
        if (size == n) return Py_NewRef(s);
        if ((r = escaped_str(st, safe, size, maxchar)) == NULL) return NULL;
        status = markup_escape_u16(PyUnicode_DATA(r), size, data, n, NULL);
        break;
    }
    default: {
        size_t size = markup_escape_u32_size(data, n);
        if (size == n) return Py_NewRef(s);
        if ((r = escaped_str(st, safe, size, maxchar)) == NULL) return NULL;
        status = markup_escape_u32(PyUnicode_DATA(r), size, data, n, NULL);
        break;
    }
    }
    return status == MARKUP_OK ? r : escape_failed(r, status);
}

/* markupsafe.escape(obj) as text: a str holding safe HTML, not necessarily
   a SafeString. __html__ objects are trusted, everything else is str()-ed
   and escaped. */
static PyObject *html_text_as(pm_state *st, PyObject *obj, bool safe) {
    if (Py_TYPE(obj) == st->safestring_type) return Py_NewRef(obj);
    if (PyUnicode_CheckExact(obj)) return escape_str_text(obj, st, safe);
    PyObject *method;
    int r = pm_lookup_html(st, obj, &method);
    if (r < 0) return NULL;
    if (r > 0) {
        PyObject *html = pm_call_html(method, obj);
        Py_DECREF(method);
        return html;
    }
    if (PyUnicode_Check(obj) && !pm_str_has_own_str(obj)) return escape_str_text(obj, st, safe);
    PyObject *text = PyObject_Str(obj);
    if (text == NULL) return NULL;
    PyObject *escaped = escape_str_text(text, st, safe);
    Py_DECREF(text);
    return escaped;
}

static PyObject *html_text(pm_state *st, PyObject *obj) { return html_text_as(st, obj, false); }

/* markupsafe.escape(obj): always a SafeString (never a subclass). */
static PyObject *escape_object(pm_state *st, PyObject *obj) {
    PyObject *text = html_text_as(st, obj, true);
    if (text == NULL || Py_TYPE(text) == st->safestring_type) return text;
    PyObject *safe = safestring_from_str(st, text);
    Py_DECREF(text);
    return safe;
}

PyObject *pm_escape(PyObject *module, PyObject *obj) {
    pm_state *st = pm_state_from_module(module);
    /* A stand-in's escaped text would be fixed when baking, and formatted
       into a longer text it would lose the escape. */
    if (pm_is_placeholder(st, obj)) {
        PyErr_SetString(PyExc_TypeError,
                        "escape() of a per-call value in a @baked builder: a value is escaped "
                        "where it is written; to show its escaped text as text (escaped "
                        "twice), use per_call(escape, value)");
        return NULL;
    }
    return escape_object(st, obj);
}

/* `text` (a str that is safe HTML; the reference is stolen, NULL passes
   through) as an instance of type(like): SafeString directly, a subclass
   through its constructor, as Markup's self.__class__(text). */
static PyObject *safe_like(pm_state *st, PyObject *like, PyObject *text) {
    if (text == NULL) return NULL;
    PyTypeObject *type = Py_TYPE(like);
    if (Py_TYPE(text) == type) return text;
    PyObject *r = type == st->safestring_type ? safestring_from_str(st, text)
                                              : PyObject_CallOneArg((PyObject *)type, text);
    Py_DECREF(text);
    return r;
}

/* hasattr(obj, name) that hands back the attribute: 1 and a new reference,
   0 when absent (no exception), -1 on any other error. */
static int lookup_attr(PyObject *obj, PyObject *name, PyObject **value) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyObject_GetOptionalAttr(obj, name, value);
#else
    *value = PyObject_GetAttr(obj, name);
    if (*value != NULL) return 1;
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();
    return 0;
#endif
}

/* The SafeString among the operands of a binary slot, with its state;
   NULL when neither is one. */
static pm_state *safe_operand(PyObject *a, PyObject *b, PyObject **safe, PyObject **other) {
    pm_state *st = pm_state_find(Py_TYPE(a));
    if (st != NULL && PyObject_TypeCheck(a, st->safestring_type)) {
        *safe = a;
        *other = b;
        return st;
    }
    st = pm_state_find(Py_TYPE(b));
    if (st != NULL && PyObject_TypeCheck(b, st->safestring_type)) {
        *safe = b;
        *other = a;
        return st;
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* The % operator                                                             */
/* ------------------------------------------------------------------------ */

/* A % argument whose str() and repr() come out escaped; str's own % engine
   then does the formatting. The same contract as markupsafe's helper:
   %s and %r escape, %d and %f read the number, %(key)s wraps the item. */
typedef struct {
    PyObject_HEAD PyObject *obj;
} escape_helper;

static PyObject *escape_helper_new(pm_state *st, PyObject *obj) {
    escape_helper *self = PyObject_New(escape_helper, (PyTypeObject *)REF(st, REF_ESCAPE_HELPER));
    if (self == NULL) return NULL;
    self->obj = Py_NewRef(obj);
    return (PyObject *)self;
}

static void escape_helper_dealloc(PyObject *op) {
    PyTypeObject *type = Py_TYPE(op);
    Py_DECREF(((escape_helper *)op)->obj);
    type->tp_free(op);
    Py_DECREF(type);
}

static PyObject *escape_helper_str(PyObject *op) {
    pm_state *st = pm_state_from_type(Py_TYPE(op));
    if (st == NULL) return NULL;
    return html_text(st, ((escape_helper *)op)->obj);
}

static PyObject *escape_helper_repr(PyObject *op) {
    pm_state *st = pm_state_from_type(Py_TYPE(op));
    if (st == NULL) return NULL;
    PyObject *repr = PyObject_Repr(((escape_helper *)op)->obj);
    if (repr == NULL) return NULL;
    PyObject *escaped = html_text(st, repr);
    Py_DECREF(repr);
    return escaped;
}

static PyObject *escape_helper_getitem(PyObject *op, PyObject *key) {
    pm_state *st = pm_state_from_type(Py_TYPE(op));
    if (st == NULL) return NULL;
    PyObject *item = PyObject_GetItem(((escape_helper *)op)->obj, key);
    if (item == NULL) return NULL;
    PyObject *r = escape_helper_new(st, item);
    Py_DECREF(item);
    return r;
}

static PyObject *escape_helper_int(PyObject *op) {
    return PyNumber_Long(((escape_helper *)op)->obj);
}

static PyObject *escape_helper_float(PyObject *op) {
    return PyNumber_Float(((escape_helper *)op)->obj);
}

static PyType_Slot escape_helper_slots[] = {
    {Py_tp_dealloc, escape_helper_dealloc},
    {Py_tp_str, escape_helper_str},
    {Py_tp_repr, escape_helper_repr},
    {Py_mp_subscript, escape_helper_getitem},
    {Py_nb_int, escape_helper_int},
    {Py_nb_float, escape_helper_float},
    {0, NULL},
};

static PyType_Spec escape_helper_spec = {
    .name = "markup._core._EscapeHelper",
    .basicsize = sizeof(escape_helper),
    .flags = Py_TPFLAGS_DEFAULT
#ifdef Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_IMMUTABLETYPE
#endif
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
             | Py_TPFLAGS_DISALLOW_INSTANTIATION
#endif
    ,
    .slots = escape_helper_slots,
};

/* The right operand of SafeString % value, wrapped as markupsafe does: each
   item of a tuple, a whole mapping (anything whose type has __getitem__,
   except str), or a single value in a 1-tuple. */
static PyObject *escape_mod_args(pm_state *st, PyObject *value) {
    if (PyTuple_Check(value)) {
        Py_ssize_t n = PyTuple_GET_SIZE(value);
        PyObject *args = PyTuple_New(n);
        if (args == NULL) return NULL;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *helper = escape_helper_new(st, PyTuple_GET_ITEM(value, i));
            if (helper == NULL) {
                Py_DECREF(args);
                return NULL;
            }
            PyTuple_SET_ITEM(args, i, helper);
        }
        return args;
    }
    if (!PyUnicode_Check(value)) {
        PyObject *getitem;
        int r = lookup_attr((PyObject *)Py_TYPE(value), REF(st, REF_NAME_GETITEM), &getitem);
        if (r < 0) return NULL;
        if (r > 0) {
            Py_DECREF(getitem);
            return escape_helper_new(st, value);
        }
    }
    PyObject *helper = escape_helper_new(st, value);
    if (helper == NULL) return NULL;
    PyObject *args = PyTuple_Pack(1, helper);
    Py_DECREF(helper);
    return args;
}

static PyObject *safestring_mod(PyObject *a, PyObject *b) {
    /* "%s" % SafeString(...) stays a plain str, as with Markup. */
    pm_state *st = pm_state_find(Py_TYPE(a));
    if (st == NULL || !PyObject_TypeCheck(a, st->safestring_type)) Py_RETURN_NOTIMPLEMENTED;
    PyObject *args = escape_mod_args(st, b);
    if (args == NULL) return NULL;
    PyObject *text = PyUnicode_Format(a, args);
    Py_DECREF(args);
    return safe_like(st, a, text);
}

/* ------------------------------------------------------------------------ */
/* format() and format_map(): string.Formatter's algorithm, escaping fields   */
/* ------------------------------------------------------------------------ */

/* markupsafe's EscapeFormatter is a string.Formatter whose format_field()
   escapes; this is the same walk in C over _string's parser, so errors and
   corner cases (nested specs, auto numbering, conversions) match it. */
typedef struct {
    pm_state *st;
    PyObject *args;        /* tuple */
    PyObject *kwargs;      /* mapping, or NULL for none */
    Py_ssize_t auto_index; /* the next automatic field number; -1 once a
                              field was numbered by hand */
} format_ctx;

/* args[key] for an int key, else kwargs[key]. */
static PyObject *format_get_value(format_ctx *ctx, PyObject *key) {
    if (PyLong_Check(key)) return PyObject_GetItem(ctx->args, key);
    if (ctx->kwargs != NULL) return PyObject_GetItem(ctx->kwargs, key);
    PyObject *empty = PyDict_New(); /* for the very KeyError a dict raises */
    if (empty == NULL) return NULL;
    PyObject *r = PyObject_GetItem(empty, key);
    Py_DECREF(empty);
    return r;
}

/* The object a field name ("0", "name", "0.attr[key]") refers to. */
static PyObject *format_get_field(format_ctx *ctx, PyObject *field_name) {
    PyObject *split = PyObject_CallOneArg(REF(ctx->st, REF_FIELD_NAME_SPLIT), field_name);
    if (split == NULL) return NULL;
    if (!PyTuple_Check(split) || PyTuple_GET_SIZE(split) != 2) {
        Py_DECREF(split);
        PyErr_SetString(PyExc_SystemError, "formatter_field_name_split returned a bad value");
        return NULL;
    }
    PyObject *obj = format_get_value(ctx, PyTuple_GET_ITEM(split, 0));
    PyObject *rest = obj == NULL ? NULL : PyObject_GetIter(PyTuple_GET_ITEM(split, 1));
    Py_DECREF(split);
    if (rest == NULL) {
        Py_XDECREF(obj);
        return NULL;
    }
    PyObject *step;
    while (obj != NULL && (step = PyIter_Next(rest)) != NULL) {
        int is_attr = PyObject_IsTrue(PyTuple_GET_ITEM(step, 0));
        PyObject *next = NULL;
        if (is_attr > 0) {
            next = PyObject_GetAttr(obj, PyTuple_GET_ITEM(step, 1));
        } else if (is_attr == 0) {
            next = PyObject_GetItem(obj, PyTuple_GET_ITEM(step, 1));
        }
        Py_DECREF(step);
        Py_SETREF(obj, next);
    }
    Py_DECREF(rest);
    if (obj != NULL && PyErr_Occurred()) Py_CLEAR(obj);
    return obj;
}

/* The !s, !r, !a conversions. */
static PyObject *format_convert(PyObject *obj, PyObject *conversion) {
    if (conversion == Py_None) return Py_NewRef(obj);
    Py_UCS4 c = PyUnicode_GET_LENGTH(conversion) == 1 ? PyUnicode_READ_CHAR(conversion, 0) : 0;
    switch (c) {
    case 's': return PyObject_Str(obj);
    case 'r': return PyObject_Repr(obj);
    case 'a': return PyObject_ASCII(obj);
    default:
        PyErr_Format(PyExc_ValueError, "Unknown conversion specifier %S", conversion);
        return NULL;
    }
}

/* One field, escaped: __html_format__(spec) or __html__() are trusted
   (escape() still runs on their result, as in markupsafe), anything else is
   format(value, spec) and escaped. */
static PyObject *format_field(pm_state *st, PyObject *value, PyObject *spec) {
    PyObject *method, *rv;
    int r = lookup_attr(value, REF(st, REF_NAME_HTML_FORMAT), &method);
    if (r < 0) return NULL;
    if (r > 0) {
        rv = PyObject_CallOneArg(method, spec);
        Py_DECREF(method);
    } else {
        r = pm_lookup_html(st, value, &method);
        if (r < 0) return NULL;
        if (r > 0) {
            if (PyUnicode_GET_LENGTH(spec) > 0) {
                Py_DECREF(method);
                PyErr_Format(PyExc_ValueError,
                             "Format specifier %U given, but %R does not define __html_format__."
                             " A class that defines __html__ must define __html_format__ to work"
                             " with format specifiers.",
                             spec, (PyObject *)Py_TYPE(value));
                return NULL;
            }
            rv = pm_call_html_as_is(method, value);
            Py_DECREF(method);
        } else {
            rv = PyObject_Format(value, spec);
        }
    }
    if (rv == NULL) return NULL;
    PyObject *text = html_text(st, rv);
    Py_DECREF(rv);
    return text;
}

#if PY_VERSION_HEX < 0x030E0000
/* Python's str.isdigit(): non-empty and every character a digit. */
static int is_digits(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (n == 0) return 0;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!Py_UNICODE_ISDIGIT(PyUnicode_READ(kind, data, i))) return 0;
    }
    return 1;
}
#endif

/* The escaped fields of one field: conversion, nested spec, format_field. */
static PyObject *format_vformat(format_ctx *ctx, PyObject *format_string, int depth);

#if PY_VERSION_HEX >= 0x030E0000
/* The length of the part of a field name before its first '.' or '[', and
   whether that part is a number (as _string.formatter_field_name_split
   reads it): string.Formatter numbers fields by it from 3.14. */
static Py_ssize_t field_first(PyObject *name, int *is_number) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(name), i = 0;
    int kind = PyUnicode_KIND(name);
    const void *data = PyUnicode_DATA(name);
    *is_number = 1;
    for (; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == '.' || c == '[') break;
        if (Py_UNICODE_TODECIMAL(c) < 0) *is_number = 0;
    }
    if (i == 0) *is_number = 0;
    return i;
}
#endif

static PyObject *format_one_field(format_ctx *ctx, PyObject *field_name, PyObject *spec,
                                  PyObject *conversion, int depth) {
    PyObject *name;
#if PY_VERSION_HEX >= 0x030E0000
    /* string.Formatter of 3.14: "{.attr}" and "{[0]}" are numbered too,
       and each direction of the switch has its own message. */
    int is_number;
    if (field_first(field_name, &is_number) == 0) {
        if (ctx->auto_index < 0) goto to_automatic;
        name = PyUnicode_FromFormat("%zd%U", ctx->auto_index++, field_name);
        if (name == NULL) return NULL;
    } else {
        if (is_number) {
            if (ctx->auto_index > 0) {
                PyErr_SetString(PyExc_ValueError, "cannot switch from automatic field numbering "
                                                  "to manual field specification");
                return NULL;
            }
            ctx->auto_index = -1;
        }
        name = Py_NewRef(field_name);
    }
#else
    if (PyUnicode_GET_LENGTH(field_name) == 0) {
        if (ctx->auto_index < 0) goto to_automatic;
        name = PyUnicode_FromFormat("%zd", ctx->auto_index++);
        if (name == NULL) return NULL;
    } else {
        if (is_digits(field_name)) {
            if (ctx->auto_index > 0) goto to_automatic;
            ctx->auto_index = -1;
        }
        name = Py_NewRef(field_name);
    }
#endif
    PyObject *obj = format_get_field(ctx, name);
    Py_DECREF(name);
    if (obj == NULL) return NULL;
    Py_SETREF(obj, format_convert(obj, conversion));
    if (obj == NULL) return NULL;
    PyObject *formatted_spec = format_vformat(ctx, spec, depth - 1);
    if (formatted_spec == NULL) {
        Py_DECREF(obj);
        return NULL;
    }
    PyObject *text = format_field(ctx->st, obj, formatted_spec);
    Py_DECREF(formatted_spec);
    Py_DECREF(obj);
    return text;

to_automatic: /* before 3.14, for both directions */
    PyErr_SetString(PyExc_ValueError,
                    "cannot switch from manual field specification to automatic field numbering");
    return NULL;
}

/* string.Formatter._vformat: literal text as is, fields escaped; a plain
   str. `depth` counts down the nesting of specs inside specs. */
static PyObject *format_vformat(format_ctx *ctx, PyObject *format_string, int depth) {
    if (depth < 0) {
        PyErr_SetString(PyExc_ValueError, "Max string recursion exceeded");
        return NULL;
    }
    PyObject *parsed = PyObject_CallOneArg(REF(ctx->st, REF_FORMATTER_PARSER), format_string);
    if (parsed == NULL) return NULL;
    PyObject *pieces = PyObject_GetIter(parsed);
    Py_DECREF(parsed);
    if (pieces == NULL) return NULL;
    PyObject *parts = PyList_New(0);
    if (parts == NULL) {
        Py_DECREF(pieces);
        return NULL;
    }
    PyObject *piece;
    while ((piece = PyIter_Next(pieces)) != NULL) {
        /* (literal_text, field_name, format_spec, conversion) */
        PyObject *literal = PyTuple_GET_ITEM(piece, 0);
        PyObject *field_name = PyTuple_GET_ITEM(piece, 1);
        int ok = PyUnicode_GET_LENGTH(literal) == 0 || PyList_Append(parts, literal) == 0;
        if (ok && field_name != Py_None) {
            PyObject *text = format_one_field(ctx, field_name, PyTuple_GET_ITEM(piece, 2),
                                              PyTuple_GET_ITEM(piece, 3), depth);
            ok = text != NULL && PyList_Append(parts, text) == 0;
            Py_XDECREF(text);
        }
        Py_DECREF(piece);
        if (!ok) break;
    }
    Py_DECREF(pieces);
    if (PyErr_Occurred()) {
        Py_DECREF(parts);
        return NULL;
    }
    PyObject *empty = PyUnicode_FromStringAndSize(NULL, 0);
    PyObject *joined = empty == NULL ? NULL : PyUnicode_Join(empty, parts);
    Py_XDECREF(empty);
    Py_DECREF(parts);
    return joined;
}

static PyObject *format_with(PyObject *self, PyObject *args, PyObject *kwargs) {
    pm_state *st = pm_state_from_type(Py_TYPE(self));
    if (st == NULL) return NULL;
    format_ctx ctx = {st, args, kwargs, 0};
    return safe_like(st, self, format_vformat(&ctx, self, 2));
}

static PyObject *safestring_format(PyObject *self, PyObject *args, PyObject *kwargs) {
    return format_with(self, args, kwargs);
}

static PyObject *safestring_format_map(PyObject *self, PyObject *mapping) {
    PyObject *no_args = PyTuple_New(0);
    if (no_args == NULL) return NULL;
    PyObject *r = format_with(self, no_args, mapping);
    Py_DECREF(no_args);
    return r;
}

static PyObject *safestring_html_format(PyObject *self, PyObject *spec) {
    int nonempty = PyObject_IsTrue(spec);
    if (nonempty < 0) return NULL;
    if (nonempty) {
        PyErr_SetString(PyExc_ValueError, "Unsupported format specification for SafeString.");
        return NULL;
    }
    return Py_NewRef(self);
}

/* ------------------------------------------------------------------------ */
/* str methods that return SafeString                                         */
/* ------------------------------------------------------------------------ */

typedef enum { RESULT_ONE, RESULT_LIST, RESULT_TUPLE } result_shape;

/* 3.13's str.replace takes count as a keyword too. */
#if PY_VERSION_HEX >= 0x030D0000
#  define REPLACE_SIGNATURE "($self, old, new, /, count=-1)"
#else
#  define REPLACE_SIGNATURE "($self, old, new, count=-1, /)"
#endif

/* The str methods SafeString wraps: X(name, escaped positional argument or
   -1, result shape, text signature). The escaped argument is the text that
   ends up in the result (replace()'s new text, the fill character). */
#define STR_METHODS(X)                                                                             \
    X(capitalize, -1, RESULT_ONE, "($self, /)")                                                    \
    X(title, -1, RESULT_ONE, "($self, /)")                                                         \
    X(lower, -1, RESULT_ONE, "($self, /)")                                                         \
    X(upper, -1, RESULT_ONE, "($self, /)")                                                         \
    X(casefold, -1, RESULT_ONE, "($self, /)")                                                      \
    X(swapcase, -1, RESULT_ONE, "($self, /)")                                                      \
    X(replace, 1, RESULT_ONE, REPLACE_SIGNATURE)                                                   \
    X(ljust, 1, RESULT_ONE, "($self, width, fillchar=' ', /)")                                     \
    X(rjust, 1, RESULT_ONE, "($self, width, fillchar=' ', /)")                                     \
    X(center, 1, RESULT_ONE, "($self, width, fillchar=' ', /)")                                    \
    X(lstrip, -1, RESULT_ONE, "($self, chars=None, /)")                                            \
    X(rstrip, -1, RESULT_ONE, "($self, chars=None, /)")                                            \
    X(strip, -1, RESULT_ONE, "($self, chars=None, /)")                                             \
    X(translate, -1, RESULT_ONE, "($self, table, /)")                                              \
    X(expandtabs, -1, RESULT_ONE, "($self, /, tabsize=8)")                                         \
    X(zfill, -1, RESULT_ONE, "($self, width, /)")                                                  \
    X(removeprefix, -1, RESULT_ONE, "($self, prefix, /)")                                          \
    X(removesuffix, -1, RESULT_ONE, "($self, suffix, /)")                                          \
    X(split, -1, RESULT_LIST, "($self, /, sep=None, maxsplit=-1)")                                 \
    X(rsplit, -1, RESULT_LIST, "($self, /, sep=None, maxsplit=-1)")                                \
    X(splitlines, -1, RESULT_LIST, "($self, /, keepends=False)")                                   \
    X(partition, -1, RESULT_TUPLE, "($self, sep, /)")                                              \
    X(rpartition, -1, RESULT_TUPLE, "($self, sep, /)")

#define AS_ENUM(name, escaped, shape, sig) STR_##name,
enum { STR_METHODS(AS_ENUM) STR_METHOD_COUNT };
#undef AS_ENUM

typedef struct {
    const char *name;
    int escaped_arg;
    result_shape shape;
} str_method;

#define AS_ENTRY(name, escaped, shape, sig) {#name, escaped, shape},
static const str_method str_methods[STR_METHOD_COUNT] = {STR_METHODS(AS_ENTRY)};
#undef AS_ENTRY

/* A new list or tuple of the n new references in items (stolen, and
   released on failure). Made only once every item exists: Python code
   must never see a container with empty slots, and gc.get_objects()
   hands out every container, even one not yet returned. */
static PyObject *container_of(PyObject **items, Py_ssize_t n, result_shape shape) {
    PyObject *out = shape == RESULT_LIST ? PyList_New(n) : PyTuple_New(n);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (out == NULL) {
            Py_DECREF(items[i]);
        } else if (shape == RESULT_LIST) {
            PyList_SET_ITEM(out, i, items[i]);
        } else {
            PyTuple_SET_ITEM(out, i, items[i]);
        }
    }
    return out;
}

/* Each item of `seq` (a new list or tuple from str; the reference is
   stolen) as type(like), in a new list or tuple. A SafeString subclass's
   constructor is Python code, which could reach `seq` through the
   collector and empty it: the items are read from a tuple. */
static PyObject *safe_items_like(pm_state *st, PyObject *like, PyObject *seq, result_shape shape) {
    if (seq == NULL) return NULL;
    PyObject *items = PySequence_Tuple(seq);
    Py_DECREF(seq);
    if (items == NULL) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    PyObject **made = PyMem_New(PyObject *, n ? n : 1);
    if (made == NULL) {
        Py_DECREF(items);
        return PyErr_NoMemory();
    }
    Py_ssize_t done = 0;
    for (; done < n; done++) {
        made[done] = safe_like(st, like, Py_NewRef(PyTuple_GET_ITEM(items, done)));
        if (made[done] == NULL) break;
    }
    PyObject *out = NULL;
    if (done == n) {
        out = container_of(made, n, shape);
    } else {
        for (Py_ssize_t i = 0; i < done; i++) Py_DECREF(made[i]);
    }
    PyMem_Free(made);
    Py_DECREF(items);
    return out;
}

/* Calls str's method on self (with its escaped argument escaped) and
   wraps the result. */
static PyObject *call_str_method(PyObject *self, PyTypeObject *defining_class, int index,
                                 PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    pm_state *st = PyType_GetModuleState(defining_class);
    if (st == NULL) return NULL;
    const str_method *method = &str_methods[index];
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t total = nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject *small[8];
    PyObject **stack = small;
    if (total + 1 > (Py_ssize_t)(sizeof small / sizeof small[0])) {
        stack = PyMem_New(PyObject *, total + 1);
        if (stack == NULL) return PyErr_NoMemory();
    }
    stack[0] = self;
    for (Py_ssize_t i = 0; i < total; i++) stack[i + 1] = args[i];

    PyObject *escaped = NULL, *result = NULL;
    if (method->escaped_arg >= 0 && method->escaped_arg < nargs) {
        escaped = html_text(st, args[method->escaped_arg]);
        if (escaped == NULL) goto done;
        stack[method->escaped_arg + 1] = escaped;
    }
    result =
        PyObject_Vectorcall(REF(st, REF_STR_METHODS + index), stack, (size_t)nargs + 1, kwnames);
    if (method->shape == RESULT_ONE) {
        result = safe_like(st, self, result);
    } else {
        result = safe_items_like(st, self, result, method->shape);
    }
done:
    Py_XDECREF(escaped);
    if (stack != small) PyMem_Free(stack);
    return result;
}

#define AS_FUNCTION(name, escaped, shape, sig)                                                     \
    static PyObject *safestring_##name(PyObject *self, PyTypeObject *defining_class,               \
                                       PyObject *const *args, size_t nargsf, PyObject *kwnames) {  \
        return call_str_method(self, defining_class, STR_##name, args, nargsf, kwnames);           \
    }
STR_METHODS(AS_FUNCTION)
#undef AS_FUNCTION

/* join(): every item is escaped (markupsafe.escape: non-str items are
   str()-ed, __html__ items trusted). */
static PyObject *safestring_join(PyObject *self, PyObject *iterable) {
    pm_state *st = pm_state_from_type(Py_TYPE(self));
    if (st == NULL) return NULL;
    /* Escaping runs __str__/__html__, which may change the caller's list,
       or reach this function's own containers through the collector:
       the items are read from a tuple of their own, and the escaped
       texts are kept in C until all exist. */
    PyObject *items;
    if (PyTuple_CheckExact(iterable) || PyList_CheckExact(iterable)) {
        items = PySequence_Tuple(iterable);
    } else {
        PyObject *it = PyObject_GetIter(iterable);
        if (it == NULL) {
            if (PyErr_ExceptionMatches(PyExc_TypeError))
                PyErr_SetString(PyExc_TypeError, "can only join an iterable"); /* as str.join */
            return NULL;
        }
        items = PySequence_Tuple(it);
        Py_DECREF(it);
    }
    if (items == NULL) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    PyObject **texts = PyMem_New(PyObject *, n ? n : 1);
    if (texts == NULL) {
        Py_DECREF(items);
        return PyErr_NoMemory();
    }
    Py_ssize_t done = 0;
    for (; done < n; done++) {
        texts[done] = html_text(st, PyTuple_GET_ITEM(items, done));
        if (texts[done] == NULL) break;
    }
    PyObject *escaped = NULL;
    if (done == n) {
        escaped = container_of(texts, n, RESULT_TUPLE);
    } else {
        for (Py_ssize_t i = 0; i < done; i++) Py_DECREF(texts[i]);
    }
    PyMem_Free(texts);
    Py_DECREF(items);
    if (escaped == NULL) return NULL;
    PyObject *joined = PyUnicode_Join(self, escaped);
    Py_DECREF(escaped);
    return safe_like(st, self, joined);
}

/* s[i] and s[a:b] stay safe (a slice may cut an entity or a tag in two:
   as with Markup, that is the caller's business). */
static PyObject *safestring_subscript(PyObject *self, PyObject *key) {
    pm_state *st = pm_state_from_type(Py_TYPE(self));
    if (st == NULL) return NULL;
    return safe_like(st, self, PyUnicode_Type.tp_as_mapping->mp_subscript(self, key));
}

static PyObject *safestring_item(PyObject *self, Py_ssize_t i) {
    pm_state *st = pm_state_from_type(Py_TYPE(self));
    if (st == NULL) return NULL;
    return safe_like(st, self, PyUnicode_Type.tp_as_sequence->sq_item(self, i));
}

/* SafeString * n and n * SafeString. */
static PyObject *safestring_mul(PyObject *a, PyObject *b) {
    PyObject *safe, *count;
    pm_state *st = safe_operand(a, b, &safe, &count);
    if (st == NULL || !PyIndex_Check(count)) Py_RETURN_NOTIMPLEMENTED;
    Py_ssize_t n = PyNumber_AsSsize_t(count, PyExc_OverflowError);
    if (n == -1 && PyErr_Occurred()) return NULL;
    return safe_like(st, safe, PyUnicode_Type.tp_as_sequence->sq_repeat(safe, n));
}

/* SafeString + x and x + SafeString: the other side is escaped (unless it
   has __html__), and the result stays a SafeString. */
static PyObject *safestring_add(PyObject *a, PyObject *b) {
    PyObject *safe, *other;
    pm_state *st = safe_operand(a, b, &safe, &other);
    if (st == NULL) Py_RETURN_NOTIMPLEMENTED;
    if (!PyUnicode_Check(other)) {
        PyObject *method;
        int r = pm_lookup_html(st, other, &method);
        if (r < 0) return NULL;
        Py_XDECREF(method);
        if (r == 0) Py_RETURN_NOTIMPLEMENTED;
    }
    PyObject *escaped = html_text(st, other);
    if (escaped == NULL) return NULL;
    PyObject *joined = safe == a ? PyUnicode_Concat(a, escaped) : PyUnicode_Concat(escaped, b);
    Py_DECREF(escaped);
    return safe_like(st, safe, joined);
}

/* ------------------------------------------------------------------------ */
/* unescape(), striptags(), escape()                                          */
/* ------------------------------------------------------------------------ */

/* html.unescape(text): the HTML5 entity table lives there, and html (with
   re) is imported only when this is first used. The names are interned
   ones: a fresh name string per call would fill CPython's type attribute
   cache with dead strings. */
static PyObject *html_unescape(pm_state *st, PyObject *text) {
    PyObject *html = PyImport_GetModule(REF(st, REF_NAME_HTML));
    if (html == NULL) {
        if (PyErr_Occurred()) return NULL;
        html = PyImport_Import(REF(st, REF_NAME_HTML));
        if (html == NULL) return NULL;
    }
    PyObject *unescape = PyObject_GetAttr(html, REF(st, REF_NAME_UNESCAPE));
    Py_DECREF(html);
    if (unescape == NULL) return NULL;
    PyObject *r = PyObject_CallOneArg(unescape, text);
    Py_DECREF(unescape);
    return r;
}

static PyObject *safestring_unescape(PyObject *self, PyObject *unused) {
    (void)unused;
    pm_state *st = pm_state_from_type(Py_TYPE(self));
    if (st == NULL) return NULL;
    PyObject *text = PyObject_Str(self);
    if (text == NULL) return NULL;
    PyObject *r = html_unescape(st, text);
    Py_DECREF(text);
    return r;
}

/* The text without tags and comments (an unclosed one stops the
   stripping), whitespace runs collapsed to one space. */
static PyObject *strip_tags(PyObject *self) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(self);
    Py_ssize_t pos = 0;
    PyObject *comment_end = PyUnicode_FromStringAndSize("-->", 3);
    PyObject *parts = comment_end == NULL ? NULL : PyList_New(0);
    if (parts == NULL) goto error;
    for (;;) {
        Py_ssize_t start = PyUnicode_FindChar(self, '<', pos, len, 1);
        if (start == -2) goto error;
        if (start == -1) break;
        Py_ssize_t end;
        if (start + 3 < len && PyUnicode_READ_CHAR(self, start + 1) == '!' &&
            PyUnicode_READ_CHAR(self, start + 2) == '-' &&
            PyUnicode_READ_CHAR(self, start + 3) == '-') {
            end = PyUnicode_Find(self, comment_end, start + 4, len, 1);
            if (end == -2) goto error;
            if (end == -1) break;
            end += 3;
        } else {
            end = PyUnicode_FindChar(self, '>', start, len, 1);
            if (end == -2) goto error;
            if (end == -1) break;
            end += 1;
        }
        PyObject *before = PyUnicode_Substring(self, pos, start);
        if (before == NULL || PyList_Append(parts, before) < 0) {
            Py_XDECREF(before);
            goto error;
        }
        Py_DECREF(before);
        pos = end;
    }
    PyObject *rest = PyUnicode_Substring(self, pos, len);
    if (rest == NULL || PyList_Append(parts, rest) < 0) {
        Py_XDECREF(rest);
        goto error;
    }
    Py_DECREF(rest);
    Py_DECREF(comment_end);
    PyObject *empty = PyUnicode_FromStringAndSize(NULL, 0);
    PyObject *text = empty == NULL ? NULL : PyUnicode_Join(empty, parts);
    Py_XDECREF(empty);
    Py_DECREF(parts);
    if (text == NULL) return NULL;

    PyObject *words = PyUnicode_Split(text, NULL, -1);
    Py_DECREF(text);
    if (words == NULL) return NULL;
    PyObject *space = PyUnicode_FromStringAndSize(" ", 1);
    PyObject *collapsed = space == NULL ? NULL : PyUnicode_Join(space, words);
    Py_XDECREF(space);
    Py_DECREF(words);
    return collapsed;

error:
    Py_XDECREF(comment_end);
    Py_XDECREF(parts);
    return NULL;
}

static PyObject *safestring_striptags(PyObject *self, PyObject *unused) {
    (void)unused;
    pm_state *st = pm_state_from_type(Py_TYPE(self));
    if (st == NULL) return NULL;
    PyObject *text = strip_tags(self);
    if (text == NULL) return NULL;
    PyObject *r = html_unescape(st, text);
    Py_DECREF(text);
    return r;
}

/* SafeString.escape(s): escape(s), as an instance of cls. */
static PyObject *safestring_escape(PyObject *cls, PyObject *obj) {
    pm_state *st = pm_state_from_type((PyTypeObject *)cls);
    if (st == NULL) return NULL;
    PyObject *safe = escape_object(st, obj);
    if (safe == NULL || (PyTypeObject *)cls == st->safestring_type) return safe;
    PyObject *r = PyObject_CallOneArg(cls, safe);
    Py_DECREF(safe);
    return r;
}

/* ------------------------------------------------------------------------ */
/* The SafeString type                                                        */
/* ------------------------------------------------------------------------ */

/* SafeString(object='', encoding=None, errors='strict'): str's arguments,
   with object.__html__() taken in place of object when it has one, as
   Markup does. */
static PyObject *safestring_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *obj = NULL, *key = NULL;
    if (PyTuple_GET_SIZE(args) >= 1) {
        obj = Py_NewRef(PyTuple_GET_ITEM(args, 0));
    } else if (kwargs != NULL) {
        key = PyUnicode_FromString("object");
        if (key == NULL) return NULL;
        obj = Py_XNewRef(PyDict_GetItemWithError(kwargs, key));
        if (obj == NULL && PyErr_Occurred()) {
            Py_DECREF(key);
            return NULL;
        }
    }
    PyObject *method = NULL;
    if (obj != NULL && !PyUnicode_CheckExact(obj)) {
        pm_state *st = pm_state_from_type(type);
        if (st == NULL || pm_lookup_html(st, obj, &method) < 0) {
            Py_DECREF(obj);
            Py_XDECREF(key);
            return NULL;
        }
    }
    if (method == NULL) { /* plain str(...) */
        Py_XDECREF(obj);
        Py_XDECREF(key);
        return PyUnicode_Type.tp_new(type, args, kwargs);
    }
    PyObject *html = pm_call_html_as_is(method, obj);
    Py_DECREF(method);
    Py_DECREF(obj);
    PyObject *new_args = NULL, *new_kwargs = NULL, *res = NULL;
    if (html == NULL) goto done;
    if (key == NULL) { /* positional: the HTML in its place */
        Py_ssize_t n = PyTuple_GET_SIZE(args);
        new_args = PyTuple_New(n);
        if (new_args == NULL) goto done;
        PyTuple_SET_ITEM(new_args, 0, Py_NewRef(html));
        for (Py_ssize_t i = 1; i < n; i++)
            PyTuple_SET_ITEM(new_args, i, Py_NewRef(PyTuple_GET_ITEM(args, i)));
        new_kwargs = Py_XNewRef(kwargs);
    } else {
        new_args = Py_NewRef(args);
        new_kwargs = PyDict_Copy(kwargs);
        if (new_kwargs == NULL || PyDict_SetItem(new_kwargs, key, html) < 0) goto done;
    }
    res = PyUnicode_Type.tp_new(type, new_args, new_kwargs);
done:
    Py_XDECREF(html);
    Py_XDECREF(new_args);
    Py_XDECREF(new_kwargs);
    Py_XDECREF(key);
    return res;
}

static PyObject *safestring_html(PyObject *self, PyObject *unused) {
    (void)unused;
    return Py_NewRef(self);
}

/* str's own dealloc, then the reference every instance of a heap type
   holds to its type. The inherited dealloc (subtype_dealloc) first walks
   the bases looking for __dict__, weak references and finalizers that a
   SafeString cannot have; it was a tenth of a baked row's cost in
   profiles. A Python subclass keeps subtype_dealloc, which does its own
   part and then calls this, leaving the type's reference to it. */
static void safestring_dealloc(PyObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    PyUnicode_Type.tp_dealloc(self);
    Py_DECREF(type);
}

static PyObject *safestring_repr(PyObject *self) {
    PyObject *inner = PyUnicode_Type.tp_repr(self);
    if (inner == NULL) return NULL;
    const char *name = Py_TYPE(self)->tp_name;
    const char *dot = strrchr(name, '.');
    PyObject *r = PyUnicode_FromFormat("%s(%U)", dot ? dot + 1 : name, inner);
    Py_DECREF(inner);
    return r;
}

/* Docstrings: "str.strip(), as a SafeString." and so on. */
#define DOC_RESULT_ONE   "(), as a SafeString."
#define DOC_RESULT_LIST  "(), as a list of SafeString."
#define DOC_RESULT_TUPLE "(), as a tuple of SafeString."

#define AS_METHOD_DEF(name, escaped, shape, sig)                                                   \
    {#name, (PyCFunction)(void (*)(void))safestring_##name,                                        \
     METH_METHOD | METH_FASTCALL | METH_KEYWORDS, #name sig "\n--\n\nstr." #name DOC_##shape},

/* Pickling and copying, by every protocol: the reduction protocol 2 gives
   (cls.__new__(cls, text), then the instance's state). Protocols 0 and 1
   would rebuild through copyreg._reconstructor, whose str.__new__(cls)
   CPython refuses for a subclass of a C type. */
static PyObject *safestring_reduce_ex(PyObject *self, PyObject *protocol) {
    long proto = PyLong_AsLong(protocol);
    if (proto == -1 && PyErr_Occurred()) return NULL;
    return PyObject_CallMethod((PyObject *)&PyBaseObject_Type, "__reduce_ex__", "Ol", self,
                               proto < 2 ? 2L : proto);
}

static PyMethodDef safestring_methods[] = {
    {"__reduce_ex__", safestring_reduce_ex, METH_O,
     "__reduce_ex__($self, protocol, /)\n--\n\nPickle support (every protocol)."},
    {"__html__", safestring_html, METH_NOARGS,
     "__html__($self, /)\n--\n\nReturn self: the text is already safe HTML."},
    {"__html_format__", safestring_html_format, METH_O,
     "__html_format__($self, format_spec, /)\n--\n\n"
     "Return self for format(); a non-empty format_spec is a ValueError."},
    {"escape", (PyCFunction)safestring_escape, METH_O | METH_CLASS,
     "escape($cls, s, /)\n--\n\nThe same as markup.escape(s), as an instance of cls."},
    {"join", safestring_join, METH_O,
     "join($self, iterable, /)\n--\n\n"
     "Join the items with self between them, escaping each (markup.escape)."},
    {"format", (PyCFunction)(void (*)(void))safestring_format, METH_VARARGS | METH_KEYWORDS,
     "format($self, /, *args, **kwargs)\n--\n\n"
     "str.format() that escapes every field (markupsafe's rules: __html_format__\n"
     "and __html__ objects are trusted)."},
    {"format_map", safestring_format_map, METH_O,
     "format_map($self, mapping, /)\n--\n\nformat(**mapping), escaping every field."},
    {"unescape", safestring_unescape, METH_NOARGS,
     "unescape($self, /)\n--\n\n"
     "The text with HTML entities replaced by their characters, as a plain str."},
    {"striptags", safestring_striptags, METH_NOARGS,
     "striptags($self, /)\n--\n\n"
     "The text without tags and comments, whitespace collapsed, unescaped:\n"
     "a plain str."},
    STR_METHODS(AS_METHOD_DEF){NULL, NULL, 0, NULL},
};
#undef AS_METHOD_DEF

PyDoc_STRVAR(safestring_doc, "SafeString(object='', encoding=None, errors='strict')\n--\n\n"
                             "A str that holds safe HTML: render() and Jinja2 insert it verbatim.\n"
                             "Only wrap text you trust; use escape() for anything else. Like\n"
                             "markupsafe.Markup, its str methods return SafeString and escape the\n"
                             "plain-str arguments they insert.");

static PyType_Slot safestring_slots[] = {
    {Py_tp_new, safestring_new},
    {Py_tp_dealloc, safestring_dealloc},
    {Py_tp_repr, safestring_repr},
    {Py_tp_methods, safestring_methods},
    {Py_nb_add, safestring_add},
    {Py_nb_multiply, safestring_mul},
    {Py_nb_remainder, safestring_mod},
    {Py_mp_subscript, safestring_subscript},
    {Py_sq_item, safestring_item},
    {Py_tp_doc, (void *)safestring_doc},
    {0, NULL},
};

static PyType_Spec safestring_spec = {
    .name = "markup.SafeString",
    .basicsize = 0, /* inherited from str */
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE
#ifdef Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_IMMUTABLETYPE
#endif
    ,
    .slots = safestring_slots,
};

/* Fills st->safestring_refs (see REF_*). */
static int init_refs(PyObject *module, pm_state *st) {
    PyObject *refs = PyTuple_New(REF_STR_METHODS + STR_METHOD_COUNT);
    if (refs == NULL) return -1;
    PyObject *string_module = PyImport_ImportModule("_string");
    if (string_module == NULL) goto error;
    PyTuple_SET_ITEM(refs, REF_FORMATTER_PARSER,
                     PyObject_GetAttrString(string_module, "formatter_parser"));
    if (PyTuple_GET_ITEM(refs, REF_FORMATTER_PARSER) != NULL) {
        PyTuple_SET_ITEM(refs, REF_FIELD_NAME_SPLIT,
                         PyObject_GetAttrString(string_module, "formatter_field_name_split"));
    }
    Py_DECREF(string_module);
    if (PyTuple_GET_ITEM(refs, REF_FIELD_NAME_SPLIT) == NULL) goto error;
    PyObject *helper = PyType_FromModuleAndSpec(module, &escape_helper_spec, NULL);
    if (helper == NULL) goto error;
#ifndef Py_TPFLAGS_DISALLOW_INSTANTIATION
    /* 3.9: no flag for it; a type without tp_new cannot be called. */
    ((PyTypeObject *)helper)->tp_new = NULL;
#endif
    PyTuple_SET_ITEM(refs, REF_ESCAPE_HELPER, helper);
    PyObject *name = PyUnicode_InternFromString("__html_format__");
    if (name == NULL) goto error;
    PyTuple_SET_ITEM(refs, REF_NAME_HTML_FORMAT, name);
    name = PyUnicode_InternFromString("__getitem__");
    if (name == NULL) goto error;
    PyTuple_SET_ITEM(refs, REF_NAME_GETITEM, name);
    name = PyUnicode_InternFromString("html");
    if (name == NULL) goto error;
    PyTuple_SET_ITEM(refs, REF_NAME_HTML, name);
    name = PyUnicode_InternFromString("unescape");
    if (name == NULL) goto error;
    PyTuple_SET_ITEM(refs, REF_NAME_UNESCAPE, name);
    for (int i = 0; i < STR_METHOD_COUNT; i++) {
        PyObject *descr = PyObject_GetAttrString((PyObject *)&PyUnicode_Type, str_methods[i].name);
        if (descr == NULL) goto error;
        PyTuple_SET_ITEM(refs, REF_STR_METHODS + i, descr);
    }
    st->safestring_refs = refs;
    return 0;

error:
    Py_DECREF(refs);
    return -1;
}

int pm_safestring_init(PyObject *module, pm_state *st) {
    if (init_refs(module, st) < 0) return -1;
    /* 3.9 wants the bases as a tuple. */
    PyObject *bases = PyTuple_Pack(1, (PyObject *)&PyUnicode_Type);
    if (bases == NULL) return -1;
    st->safestring_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &safestring_spec, bases);
    Py_DECREF(bases);
    if (st->safestring_type == NULL) return -1;
    return PyModule_AddObjectRef(module, "SafeString", (PyObject *)st->safestring_type);
}
