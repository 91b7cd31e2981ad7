/*
 * text_filters.c - the scanning parts of markup.filters in C: wordcount,
 * title (ASCII text) and striptags' tag removal and whitespace, with the
 * results of the Jinja2 filters they stand for (markup/filters.py has the
 * rules; tests/python/test_filters.py compares them with Jinja2's).
 */
#include "text_filters.h"

/* Python's \w in a str pattern, and str.split()'s whitespace. */
static inline int is_word(Py_UCS4 c) { return c == '_' || Py_UNICODE_ISALNUM(c); }

static int require_str(PyObject *s, const char *name) {
    if (PyUnicode_Check(s)) return 0;
    PyErr_Format(PyExc_TypeError, "%s() takes a str, got %.100s", name, Py_TYPE(s)->tp_name);
    return -1;
}

PyObject *pm_wordcount(PyObject *module, PyObject *s) {
    (void)module;
    if (require_str(s, "_wordcount") < 0) return NULL;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), words = 0;
    int in_word = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int w = is_word(PyUnicode_READ(kind, data, i));
        words += w && !in_word;
        in_word = w;
    }
    return PyLong_FromSsize_t(words);
}

/* What starts a word for Jinja2's title: after whitespace, '-' or an
   opening bracket ([-\s({\[<]). */
static inline int title_separator(Py_UCS4 c) {
    return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || Py_UNICODE_ISSPACE(c);
}

PyObject *pm_title_ascii(PyObject *module, PyObject *s) {
    (void)module;
    if (require_str(s, "_title_ascii") < 0) return NULL;
    if (!PyUnicode_IS_ASCII(s)) Py_RETURN_NONE; /* full case mapping: Python's */
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    PyObject *r = PyUnicode_New(n, 127);
    if (!r) return NULL;
    const Py_UCS1 *in = PyUnicode_1BYTE_DATA(s);
    Py_UCS1 *out = PyUnicode_1BYTE_DATA(r);
    int at_start = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS1 c = in[i];
        if (title_separator(c)) {
            at_start = 1;
        } else if (at_start) {
            if (c >= 'a' && c <= 'z') c = (Py_UCS1)(c - 'a' + 'A');
            at_start = 0;
        } else if (c >= 'A' && c <= 'Z') {
            c = (Py_UCS1)(c - 'A' + 'a');
        }
        out[i] = c;
    }
    return r;
}

/* Whether s[at, n) starts with `what` (ASCII, `len` chars). */
static int starts_with(int kind, const void *data, Py_ssize_t n, Py_ssize_t at, const char *what,
                       Py_ssize_t len) {
    if (n - at < len) return 0;
    for (Py_ssize_t k = 0; k < len; k++)
        if (PyUnicode_READ(kind, data, at + k) != (Py_UCS4)(unsigned char)what[k]) return 0;
    return 1;
}

/* The index of `what` in s[from, n), or -1. */
static Py_ssize_t find_ascii(int kind, const void *data, Py_ssize_t n, Py_ssize_t from,
                             const char *what, Py_ssize_t len) {
    for (Py_ssize_t i = from; i + len <= n; i++)
        if (starts_with(kind, data, n, i, what, len)) return i;
    return -1;
}

/* Appends s[from, to) to out with runs of whitespace made one space, none
   first (str.split() then " ".join(), over all the kept text). */
static void collapse(int kind, const void *data, Py_ssize_t from, Py_ssize_t to, Py_UCS4 *out,
                     Py_ssize_t *len, int *pending_space, Py_UCS4 *widest) {
    for (Py_ssize_t i = from; i < to; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (Py_UNICODE_ISSPACE(c)) {
            *pending_space = 1;
            continue;
        }
        if (*pending_space && *len) out[(*len)++] = ' ';
        *pending_space = 0;
        out[(*len)++] = c;
        if (c > *widest) *widest = c;
    }
}

PyObject *pm_strip_tags(PyObject *module, PyObject *s) {
    (void)module;
    if (require_str(s, "_strip_tags") < 0) return NULL;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    Py_UCS4 *out = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *out);
    if (!out) return PyErr_NoMemory();
    Py_ssize_t len = 0, pos = 0;
    int pending_space = 0;
    Py_UCS4 widest = 0;
    /* Left to right: a comment runs to the first "-->" after its "<!--",
       a tag to the first ">"; one never closed ends the stripping and the
       rest is kept (MarkupSafe 3's rule, which Jinja2's striptags applies). */
    for (;;) {
        Py_ssize_t start = find_ascii(kind, data, n, pos, "<", 1);
        if (start < 0) break;
        Py_ssize_t end;
        if (starts_with(kind, data, n, start, "<!--", 4)) {
            end = find_ascii(kind, data, n, start + 4, "-->", 3);
            if (end < 0) break;
            end += 3;
        } else {
            end = find_ascii(kind, data, n, start, ">", 1);
            if (end < 0) break;
            end += 1;
        }
        collapse(kind, data, pos, start, out, &len, &pending_space, &widest);
        pos = end;
    }
    collapse(kind, data, pos, n, out, &len, &pending_space, &widest);
    PyObject *r = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out, len);
    PyMem_Free(out);
    return r;
}
