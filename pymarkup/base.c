/*
 * base.c - the ground floor of the binding: what every other file of
 * pymarkup/ needs and that needs none of them. UTF-8 of str objects and the
 * errors of lone surrogates, __html__ lookups and calls, int and float
 * formatting, libmarkup statuses as exceptions, the PyMem allocator for
 * libmarkup, the module-state lookup from a type, the error messages that
 * construction and rendering share, the vector of references a factory
 * call collects, and the creation of a type. It calls no other file of the
 * binding but stack.c's guard (the state lookup reads module.c's module
 * definition).
 */
#include "state.h"

#if PY_VERSION_HEX < 0x030B0000
#  include <longintrepr.h> /* PyLongObject's digits; Python.h has them from 3.11 */
#endif

#include <stdio.h>

/* ------------------------------------------------------------------------ */
/* Module state                                                               */
/* ------------------------------------------------------------------------ */

pm_state *pm_state_find(PyTypeObject *type) {
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *module = PyType_GetModuleByDef(type, &pm_module_def);
    if (module == NULL) {
        PyErr_Clear();
        return NULL;
    }
    return pm_state_from_module(module);
#else
    /* 3.9 and 3.10 lack PyType_GetModuleByDef: walk the MRO for the heap
       type that this module created. */
    PyObject *mro = type->tp_mro;
    if (mro == NULL) return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *base = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        if (!(base->tp_flags & Py_TPFLAGS_HEAPTYPE)) continue;
        PyObject *module = ((PyHeapTypeObject *)base)->ht_module;
        if (module != NULL && PyModule_GetDef(module) == &pm_module_def) {
            return pm_state_from_module(module);
        }
    }
    return NULL;
#endif
}

pm_state *pm_state_from_type(PyTypeObject *type) {
    pm_state *st = pm_state_find(type);
    if (st == NULL) {
        PyErr_Format(PyExc_SystemError, "markup: type %s is not from the markup module",
                     type->tp_name);
    }
    return st;
}

/* ------------------------------------------------------------------------ */
/* str, __html__                                                              */
/* ------------------------------------------------------------------------ */

static PM_NOINLINE void raise_surrogate(PyObject *str, PyObject *tag, const char *func) {
    /* Find the offending code point so the message can show it. */
    Py_ssize_t len = PyUnicode_GET_LENGTH(str), at = -1;
    Py_UCS4 ch = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        Py_UCS4 c = PyUnicode_READ_CHAR(str, i);
        if (c >= 0xD800 && c <= 0xDFFF) {
            at = i;
            ch = c;
            break;
        }
    }
    PyErr_Clear();
    char code[16];
    snprintf(code, sizeof code, "U+%04X", (unsigned)ch);
    if (tag != NULL) {
        PyErr_Format(PyExc_ValueError,
                     "<%U>: text contains a lone surrogate %s at index %zd, which cannot "
                     "be written as UTF-8; fix the string where it was decoded (for example "
                     "decode with errors='replace')",
                     tag, code, at);
    } else {
        PyErr_Format(PyExc_ValueError,
                     "%s: text contains a lone surrogate %s at index %zd, which cannot be "
                     "written as UTF-8; fix the string where it was decoded (for example "
                     "decode with errors='replace')",
                     func, code, at);
    }
}

const char *pm_utf8_slow(PyObject *str, Py_ssize_t *n, PyObject *tag, const char *func) {
    const char *s = PyUnicode_AsUTF8AndSize(str, n);
    if (s == NULL && PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
        raise_surrogate(str, tag, func);
    }
    return s;
}

int pm_lookup_html(pm_state *st, PyObject *obj, PyObject **method) {
    *method = NULL;
    /* Every __html__ call is found here first: the gate for renders that
       nest through __html__ (SafeString formatting, escape, render). */
    if (pm_stack_check("while calling __html__") < 0) return -1;
#if PY_VERSION_HEX >= 0x030D0000
    return PyObject_GetOptionalAttr(obj, st->str_html, method);
#else
    *method = PyObject_GetAttr(obj, st->str_html);
    if (*method != NULL) return 1;
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        return 0;
    }
    return -1;
#endif
}

PyObject *pm_call_html_as_is(PyObject *method, PyObject *obj) {
    PyObject *html = PyObject_CallNoArgs(method);
    if (html == NULL || PyUnicode_Check(html)) return html;
    PyErr_Format(PyExc_TypeError,
                 "%.100s.__html__() returned %.100s, not str (did it lose its return?)",
                 Py_TYPE(obj)->tp_name, Py_TYPE(html)->tp_name);
    Py_DECREF(html);
    return NULL;
}

PyObject *pm_call_html(PyObject *method, PyObject *obj) {
    PyObject *html = pm_call_html_as_is(method, obj);
    if (html != NULL && !PyUnicode_CheckExact(html) && pm_str_has_own_str(html))
        Py_SETREF(html, PyObject_Str(html));
    return html;
}

/* ------------------------------------------------------------------------ */
/* Allocator and status                                                       */
/* ------------------------------------------------------------------------ */

static void *pymem_malloc(void *ctx, size_t size) {
    (void)ctx;
    return PyMem_Malloc(size);
}

static void *pymem_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    (void)ctx;
    (void)old_size;
    return PyMem_Realloc(ptr, new_size);
}

static void pymem_free(void *ctx, void *ptr, size_t size) {
    (void)ctx;
    (void)size;
    PyMem_Free(ptr);
}

const markup_alloc pm_pymem_alloc = {pymem_malloc, pymem_realloc, pymem_free, NULL};

PM_NOINLINE int pm_raise_status(markup_status status, const char *what) {
    switch (status) {
    case MARKUP_OK: return 0;
    case MARKUP_ERR_NOMEM: PyErr_NoMemory(); break;
    case MARKUP_ERR_TOO_LARGE:
        PyErr_Format(PyExc_OverflowError, "%s: the output is too large", what);
        break;
    default: PyErr_Format(PyExc_ValueError, "%s: %s", what, markup_status_message(status)); break;
    }
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Numbers                                                                    */
/* ------------------------------------------------------------------------ */

/* "00" to "99": digits are written two at a time, which halves the chain
   of divisions each digit waits for. */
static const char digit_pairs[201] = "00010203040506070809"
                                     "10111213141516171819"
                                     "20212223242526272829"
                                     "30313233343536373839"
                                     "40414243444546474849"
                                     "50515253545556575859"
                                     "60616263646566676869"
                                     "70717273747576777879"
                                     "80818283848586878889"
                                     "90919293949596979899";

/* Writes the digits of `u` ending at `end`; returns where they start. */
static char *write_digits(char *end, unsigned long long u) {
    while (u >= 100) {
        unsigned pair = (unsigned)(u % 100);
        u /= 100;
        end -= 2;
        memcpy(end, digit_pairs + 2 * pair, 2);
    }
    if (u >= 10) {
        end -= 2;
        memcpy(end, digit_pairs + 2 * u, 2);
    } else {
        *--end = (char)('0' + u);
    }
    return end;
}

/* How many digits `u` has, by comparisons rather than divisions. */
static Py_ssize_t digit_count(unsigned long long u) {
    Py_ssize_t n = 1;
    for (unsigned long long bound = 10; u >= bound; bound *= 10) {
        n++;
        if (n == 20) break; /* 10^19 is the last bound below 2^64 */
    }
    return n;
}

/* repr(d) for a double that is a decimal with at most 6 fractional digits,
   in the range where repr uses fixed notation; 0 when `d` is not one (the
   caller then takes the general path).
   Why it equals repr: for the smallest j at which round(|d| * 10^j) / 10^j
   converts back to exactly |d| (IEEE division rounds correctly, and both
   operands are exact below 2^51 and 10^22), that j-digit decimal lies in
   d's rounding interval and no shorter one does, which is repr's rule.
   Below 2^51 the product's rounding error cannot move the nearest integer. */
static Py_ssize_t format_short_decimal(double d, char out[PM_NUMBER_MAX]) {
    static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
    double a = d < 0 ? -d : d;
    if (!(a >= 1e-4 && a < 1e15)) return 0; /* also NaN; repr switches to 1e-05 below */
    for (int j = 0; j < 7; j++) {
        double m = a * pow10[j];
        if (m >= 2251799813685248.0) return 0; /* 2^51 */
        unsigned long long r = (unsigned long long)(m + 0.5);
        if ((double)r / pow10[j] != a) continue;
        char digits[40];
        char *end = digits + sizeof digits, *p = end;
        if (j == 0) {
            *--p = '0';
            *--p = '.';
            p = write_digits(p, r);
        } else {
            char *frac_end = p;
            p = write_digits(p, r);
            while (frac_end - p < j + 1) *--p = '0'; /* 0.05: leading zeros */
            /* insert the point before the last j digits */
            memmove(p - 1, p, (size_t)(frac_end - p - j));
            p--;
            frac_end[-j - 1] = '.';
        }
        if (d < 0) *--p = '-';
        memcpy(out, p, (size_t)(end - p));
        return end - p;
    }
    return 0;
}

/* The value of an exact int that fits one CPython digit (ids, counts,
   prices in cents): read from the object, where PyLong_AsLongLong's call
   and checks cost more than writing the digits. 0 for a larger int. */
static inline int small_int_value(PyObject *num, long long *v) {
#if PY_VERSION_HEX >= 0x030C0000
    if (!PyUnstable_Long_IsCompact((PyLongObject *)num)) return 0;
    *v = (long long)PyUnstable_Long_CompactValue((PyLongObject *)num);
#else
    Py_ssize_t size = Py_SIZE(num); /* the digit count, negative for a negative int */
    if (size < -1 || size > 1) return 0;
    *v = (long long)size * (long long)((PyLongObject *)num)->ob_digit[0];
#endif
    return 1;
}

Py_ssize_t pm_format_number(PyObject *num, char out[PM_NUMBER_MAX]) {
    if (PyLong_CheckExact(num)) {
        long long v;
        if (!small_int_value(num, &v)) {
            int overflow = 0;
            v = PyLong_AsLongLongAndOverflow(num, &overflow);
            if (overflow) return 0;
            if (v == -1 && PyErr_Occurred()) return -1;
        }
        /* Count the digits, then write them in place: no copy, no memcpy
           call for the ids and counts most pages print. */
        unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
        Py_ssize_t len = (v < 0) + digit_count(u);
        if (v < 0) out[0] = '-';
        write_digits(out + len, u);
        return len;
    }
    /* PyFloat_CheckExact. Prices and measures are mostly short decimals:
       try those first, then float.__repr__'s own call, minus the str. */
    Py_ssize_t len_short = format_short_decimal(PyFloat_AS_DOUBLE(num), out);
    if (len_short > 0) return len_short;
    char *repr = PyOS_double_to_string(PyFloat_AS_DOUBLE(num), 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (repr == NULL) return -1;
    size_t len = strlen(repr);
    if (len >= PM_NUMBER_MAX) {
        PyMem_Free(repr);
        return 0;
    }
    memcpy(out, repr, len);
    PyMem_Free(repr);
    return (Py_ssize_t)len;
}

/* ------------------------------------------------------------------------ */
/* Shared error messages                                                      */
/* ------------------------------------------------------------------------ */

int pm_node_attr_value_error(pm_state *st, PyObject *where, PyObject *name, PyObject *value) {
    if (Py_TYPE(value) != st->element_type && Py_TYPE(value) != st->comment_type) return 0;
    PyErr_Format(PyExc_TypeError,
                 "%U: attribute %R cannot take %R as its value: the element's HTML holds '\"', "
                 "which would end the quoted value early; pass a str (escaped), e.g. "
                 "render(...) of it, or a SafeString you checked yourself",
                 where, name, value);
    return -1;
}

int pm_is_text_object(pm_state *st, PyObject *o) {
    if (Py_TYPE(o)->tp_str == PyBaseObject_Type.tp_str || PyBytes_Check(o) ||
        PyByteArray_Check(o) || PyMemoryView_Check(o) || PyAnySet_Check(o) || PyDict_Check(o) ||
        Py_TYPE(o) == st->tag_type)
        return 0;
    int mapping = PyObject_IsInstance(o, st->mapping_abc);
    return mapping < 0 ? -1 : !mapping;
}

PyObject *pm_open_tag(const markup_writer *w, const char *none) {
    size_t n = 0;
    const char *tag = w ? markup_writer_open_tag(w, &n) : NULL;
    return tag ? PyUnicode_DecodeASCII(tag, (Py_ssize_t)n, "replace") : PyUnicode_FromString(none);
}

/* Whether the tag `name` (ASCII, any case) is the text element
   `element` (lower case). */
static int is_element(const char *name, const char *element) {
    size_t i = 0;
    while (element[i] != '\0' && (name[i] | 0x20) == element[i]) i++;
    return element[i] == '\0' && name[i] == '\0';
}

int pm_raw_text_error(PyObject *tag, const char *what, const markup_error *err) {
    if (err->element == NULL) { /* markup_html_check_slot_end_ */
        PyErr_Format(PyExc_ValueError,
                     "trusted (__html__) text ends in '<' (at byte %zu) where it fills a slot "
                     "inside a <title>, <textarea>, <noscript>, <iframe>, <xmp>, <noembed> or "
                     "<noframes>: what follows the slot could make that '<' the element's end "
                     "tag; give the value as a plain str to have it escaped",
                     err->pos);
        return -1;
    }
    const char *found = err->refused;
    const char *tag_name = PyUnicode_AsUTF8(tag); /* ASCII, checked at creation */
    if (tag_name == NULL) return -1;
    int own = is_element(tag_name, err->element);
    /* The same sequence split by a backslash, which JavaScript and CSS
       strings read as nothing: "<\/script", "<\!--". */
    char split[20];
    snprintf(split, sizeof split, "<\\%s", found + 1);
    if (what == NULL) {
        PyErr_Format(PyExc_ValueError,
                     "<%U>: its text, written whole, contains '%s' across two pieces, which "
                     "would end %s early; for data use tojson(...), or split the sequence "
                     "(e.g. '%s')",
                     tag, found, own ? "the element" : "an element around it", split);
    } else if (own) {
        PyErr_Format(PyExc_ValueError,
                     "<%U>: %s '%s' at byte %zu, which would end the element early; for data "
                     "use tojson(...), or split the sequence (e.g. '%s')",
                     tag, what, found, err->pos, split);
    } else {
        PyErr_Format(PyExc_ValueError,
                     "<%U>: %s '%s' at byte %zu, which would end a <%s> around the element "
                     "early (inside <title>, <textarea>, <noscript>, <iframe>, <xmp>, <noembed> "
                     "and <noframes> a parser reads a <%U> as text); for data use tojson(...), "
                     "or split the sequence (e.g. '%s')",
                     tag, what, found, err->pos, err->element, tag, split);
    }
    return -1;
}

/* ------------------------------------------------------------------------ */
/* A small vector of owned references, on the stack until it grows          */
/* ------------------------------------------------------------------------ */

void pm_vec_init(pm_vec *v) {
    v->items = v->inline_items;
    v->len = 0;
    v->cap = PM_VEC_INLINE;
    v->seen = NULL;
    v->nodes = 0;
    v->flags = 0;
}

PM_NOINLINE int pm_vec_grow(pm_vec *v) {
    Py_ssize_t cap = v->cap + v->cap / 2;
    PyObject **items;
    if (v->items == v->inline_items) {
        items = PyMem_New(PyObject *, cap);
        if (items != NULL) memcpy(items, v->inline_items, sizeof(PyObject *) * (size_t)v->len);
    } else {
        items = v->items;
        PyMem_Resize(items, PyObject *, cap);
    }
    if (items == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    v->items = items;
    v->cap = cap;
    return 0;
}

void pm_vec_clear(pm_vec *v) {
    Py_CLEAR(v->seen);
    for (Py_ssize_t i = 0; i < v->len; i++) Py_DECREF(v->items[i]);
    if (v->items != v->inline_items) PyMem_Free(v->items);
    pm_vec_init(v);
}

/* ------------------------------------------------------------------------ */
/* Types                                                                      */
/* ------------------------------------------------------------------------ */

int pm_add_type(PyObject *module, PyTypeObject **slot, PyType_Spec *spec, PyObject *base) {
    *slot = (PyTypeObject *)PyType_FromModuleAndSpec(module, spec, base);
    if (*slot == NULL) return -1;
    const char *dot = strrchr(spec->name, '.');
    return PyModule_AddObjectRef(module, dot ? dot + 1 : spec->name, (PyObject *)*slot);
}

int pm_has_html(pm_state *st, PyObject *obj) {
    PyObject *method;
    int r = pm_lookup_html(st, obj, &method);
    Py_XDECREF(method);
    return r;
}
