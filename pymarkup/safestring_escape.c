/*
 * safestring_escape.c - SafeStrings made in C, and escape().
 *
 * SafeStrings are built here straight from the UTF-8 or ASCII that markup
 * wrote, or from an escaped str, laid out as CPython lays out a str where
 * the layouts were checked. escape() follows markupsafe.escape exactly,
 * using libmarkup's escaper; every SafeString method (safestring.c,
 * safestring_format.c) escapes through it.
 */
#include "state.h"

#if defined(__SSE2__)
#  include <emmintrin.h>
#endif

#include <stdbool.h>

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
    /* NULL written out on failure (PyErr_NoMemory() returns it too, where
       clang-tidy's analyzer cannot see it). */
    if (length > (PY_SSIZE_T_MAX - (Py_ssize_t)header) / kind - 1) {
        PyErr_NoMemory();
        return NULL;
    }
    size_t size = header + (size_t)(length + 1) * (size_t)kind;
    if (size < (size_t)type->tp_basicsize) size = (size_t)type->tp_basicsize;
    PyObject *op = PyObject_Malloc(size);
    if (op == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
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
PyObject *pm_safestring_from_str(pm_state *st, PyObject *s) {
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
    PyObject *r = pm_safestring_from_str(st, str);
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
    utf8_shape shape = {0, 0};
    if (!PyType_IS_GC(st->safestring_type) &&
        utf8_measure((const unsigned char *)s, n, &shape) == 0) {
        int kind = utf8_kind(shape.widest);
        /* Set by safestring_alloc whenever it returns a string; GCC's
           -Wmaybe-uninitialized cannot see that (its -O3 inlining). */
        void *data = NULL;
        PyObject *r = safestring_alloc(st, shape.chars, kind, 0, &data);
        if (r == NULL) return NULL;
        utf8_write((const unsigned char *)s, n, kind, data);
        keep_utf8(r, s, n);
        return r;
    }
#endif
    PyObject *str = PyUnicode_DecodeUTF8(s, n, "strict");
    if (str == NULL) return NULL;
    PyObject *r = pm_safestring_from_str(st, str);
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

PyObject *pm_html_text(pm_state *st, PyObject *obj) { return html_text_as(st, obj, false); }

/* markupsafe.escape(obj): always a SafeString (never a subclass). */
PyObject *pm_escape_object(pm_state *st, PyObject *obj) {
    PyObject *text = html_text_as(st, obj, true);
    if (text == NULL || Py_TYPE(text) == st->safestring_type) return text;
    PyObject *safe = pm_safestring_from_str(st, text);
    Py_DECREF(text);
    return safe;
}

PyObject *pm_escape(PyObject *module, PyObject *obj) {
    pm_state *st = pm_state_from_module(module);
    /* A stand-in's escaped text would be fixed when baking, and formatted
       into a longer text it would lose the escape. */
    if (pm_is_stand_in(st, obj)) {
        PyErr_SetString(PyExc_TypeError,
                        "escape() of a per-call value in a @baked builder: a value is escaped "
                        "where it is written; to show its escaped text as text (escaped "
                        "twice), use per_call(escape, value)");
        return NULL;
    }
    return pm_escape_object(st, obj);
}

/* `text` (a str that is safe HTML; the reference is stolen, NULL passes
   through) as an instance of type(like): SafeString directly, a subclass
   through its constructor, as Markup's self.__class__(text). */
PyObject *pm_safe_like(pm_state *st, PyObject *like, PyObject *text) {
    if (text == NULL) return NULL;
    PyTypeObject *type = Py_TYPE(like);
    if (Py_TYPE(text) == type) return text;
    PyObject *r = type == st->safestring_type ? pm_safestring_from_str(st, text)
                                              : PyObject_CallOneArg((PyObject *)type, text);
    Py_DECREF(text);
    return r;
}
