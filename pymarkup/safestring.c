/*
 * safestring.c - the SafeString type (a str that is already safe HTML) and
 * its str methods.
 *
 * SafeString behaves like markupsafe.Markup: it has __html__ (so Jinja2,
 * Django and markupsafe insert it verbatim), SafeString(obj) trusts
 * obj.__html__(), and the str methods that build new text return a
 * SafeString again, escaping the plain-str arguments that become part of it
 * (`+`, `%`, join(), format(), replace()'s new text, the fill character).
 * Results keep the caller's type, so a subclass stays a subclass, as
 * Markup's self.__class__(...) does.
 *
 * The text is escaped by escape()'s rules (safestring_escape.c), and %,
 * format() and format_map() are in safestring_format.c.
 */
#include "state.h"

/* ------------------------------------------------------------------------ */
/* Operators and __html_format__                                              */
/* ------------------------------------------------------------------------ */

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
        made[done] = pm_safe_like(st, like, Py_NewRef(PyTuple_GET_ITEM(items, done)));
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
        escaped = pm_html_text(st, args[method->escaped_arg]);
        if (escaped == NULL) goto done;
        stack[method->escaped_arg + 1] = escaped;
    }
    result = PyObject_Vectorcall(PM_REF(st, PM_REF_STR_METHODS + index), stack, (size_t)nargs + 1,
                                 kwnames);
    if (method->shape == RESULT_ONE) {
        result = pm_safe_like(st, self, result);
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
        texts[done] = pm_html_text(st, PyTuple_GET_ITEM(items, done));
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
    return pm_safe_like(st, self, joined);
}

/* s[i] and s[a:b] stay safe (a slice may cut an entity or a tag in two:
   as with Markup, that is the caller's business). */
static PyObject *safestring_subscript(PyObject *self, PyObject *key) {
    pm_state *st = pm_state_from_type(Py_TYPE(self));
    if (st == NULL) return NULL;
    return pm_safe_like(st, self, PyUnicode_Type.tp_as_mapping->mp_subscript(self, key));
}

static PyObject *safestring_item(PyObject *self, Py_ssize_t i) {
    pm_state *st = pm_state_from_type(Py_TYPE(self));
    if (st == NULL) return NULL;
    return pm_safe_like(st, self, PyUnicode_Type.tp_as_sequence->sq_item(self, i));
}

/* SafeString * n and n * SafeString. */
static PyObject *safestring_mul(PyObject *a, PyObject *b) {
    PyObject *safe, *count;
    pm_state *st = safe_operand(a, b, &safe, &count);
    if (st == NULL || !PyIndex_Check(count)) Py_RETURN_NOTIMPLEMENTED;
    Py_ssize_t n = PyNumber_AsSsize_t(count, PyExc_OverflowError);
    if (n == -1 && PyErr_Occurred()) return NULL;
    return pm_safe_like(st, safe, PyUnicode_Type.tp_as_sequence->sq_repeat(safe, n));
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
    PyObject *escaped = pm_html_text(st, other);
    if (escaped == NULL) return NULL;
    PyObject *joined = safe == a ? PyUnicode_Concat(a, escaped) : PyUnicode_Concat(escaped, b);
    Py_DECREF(escaped);
    return pm_safe_like(st, safe, joined);
}

/* ------------------------------------------------------------------------ */
/* unescape(), striptags(), escape()                                          */
/* ------------------------------------------------------------------------ */

/* html.unescape(text): the HTML5 entity table lives there, and html (with
   re) is imported only when this is first used. The names are interned
   ones: a fresh name string per call would fill CPython's type attribute
   cache with dead strings. */
static PyObject *html_unescape(pm_state *st, PyObject *text) {
    PyObject *html = PyImport_GetModule(PM_REF(st, PM_REF_NAME_HTML));
    if (html == NULL) {
        if (PyErr_Occurred()) return NULL;
        html = PyImport_Import(PM_REF(st, PM_REF_NAME_HTML));
        if (html == NULL) return NULL;
    }
    PyObject *unescape = PyObject_GetAttr(html, PM_REF(st, PM_REF_NAME_UNESCAPE));
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
    PyObject *safe = pm_escape_object(st, obj);
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
    {"format", (PyCFunction)(void (*)(void))pm_safestring_format, METH_VARARGS | METH_KEYWORDS,
     "format($self, /, *args, **kwargs)\n--\n\n"
     "str.format() that escapes every field (markupsafe's rules: __html_format__\n"
     "and __html__ objects are trusted)."},
    {"format_map", pm_safestring_format_map, METH_O,
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
    {Py_nb_remainder, pm_safestring_mod},
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

/* Fills st->safestring_refs (see PM_REF_*). */
static int init_refs(PyObject *module, pm_state *st) {
    PyObject *refs = PyTuple_New(PM_REF_STR_METHODS + STR_METHOD_COUNT);
    if (refs == NULL) return -1;
    PyObject *string_module = PyImport_ImportModule("_string");
    if (string_module == NULL) goto error;
    PyTuple_SET_ITEM(refs, PM_REF_FORMATTER_PARSER,
                     PyObject_GetAttrString(string_module, "formatter_parser"));
    if (PyTuple_GET_ITEM(refs, PM_REF_FORMATTER_PARSER) != NULL) {
        PyTuple_SET_ITEM(refs, PM_REF_FIELD_NAME_SPLIT,
                         PyObject_GetAttrString(string_module, "formatter_field_name_split"));
    }
    Py_DECREF(string_module);
    if (PyTuple_GET_ITEM(refs, PM_REF_FIELD_NAME_SPLIT) == NULL) goto error;
    PyObject *helper = pm_escape_helper_type(module);
    if (helper == NULL) goto error;
    PyTuple_SET_ITEM(refs, PM_REF_ESCAPE_HELPER, helper);
    PyObject *name = PyUnicode_InternFromString("__html_format__");
    if (name == NULL) goto error;
    PyTuple_SET_ITEM(refs, PM_REF_NAME_HTML_FORMAT, name);
    name = PyUnicode_InternFromString("__getitem__");
    if (name == NULL) goto error;
    PyTuple_SET_ITEM(refs, PM_REF_NAME_GETITEM, name);
    name = PyUnicode_InternFromString("html");
    if (name == NULL) goto error;
    PyTuple_SET_ITEM(refs, PM_REF_NAME_HTML, name);
    name = PyUnicode_InternFromString("unescape");
    if (name == NULL) goto error;
    PyTuple_SET_ITEM(refs, PM_REF_NAME_UNESCAPE, name);
    for (int i = 0; i < STR_METHOD_COUNT; i++) {
        PyObject *descr = PyObject_GetAttrString((PyObject *)&PyUnicode_Type, str_methods[i].name);
        if (descr == NULL) goto error;
        PyTuple_SET_ITEM(refs, PM_REF_STR_METHODS + i, descr);
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
