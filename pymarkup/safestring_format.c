/*
 * safestring_format.c - SafeString's % operator, format() and
 * format_map(): str's own formatting, with every value that becomes part
 * of the text escaped as markupsafe.Markup escapes it.
 */
#include "state.h"

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
    escape_helper *self =
        PyObject_New(escape_helper, (PyTypeObject *)PM_REF(st, PM_REF_ESCAPE_HELPER));
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
    return pm_html_text(st, ((escape_helper *)op)->obj);
}

static PyObject *escape_helper_repr(PyObject *op) {
    pm_state *st = pm_state_from_type(Py_TYPE(op));
    if (st == NULL) return NULL;
    PyObject *repr = PyObject_Repr(((escape_helper *)op)->obj);
    if (repr == NULL) return NULL;
    PyObject *escaped = pm_html_text(st, repr);
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
        int r = lookup_attr((PyObject *)Py_TYPE(value), PM_REF(st, PM_REF_NAME_GETITEM), &getitem);
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

PyObject *pm_safestring_mod(PyObject *a, PyObject *b) {
    /* "%s" % SafeString(...) stays a plain str, as with Markup. */
    pm_state *st = pm_state_find(Py_TYPE(a));
    if (st == NULL || !PyObject_TypeCheck(a, st->safestring_type)) Py_RETURN_NOTIMPLEMENTED;
    PyObject *args = escape_mod_args(st, b);
    if (args == NULL) return NULL;
    PyObject *text = PyUnicode_Format(a, args);
    Py_DECREF(args);
    return pm_safe_like(st, a, text);
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
    PyObject *split = PyObject_CallOneArg(PM_REF(ctx->st, PM_REF_FIELD_NAME_SPLIT), field_name);
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
    int r = lookup_attr(value, PM_REF(st, PM_REF_NAME_HTML_FORMAT), &method);
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
    PyObject *text = pm_html_text(st, rv);
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
    PyObject *parsed = PyObject_CallOneArg(PM_REF(ctx->st, PM_REF_FORMATTER_PARSER), format_string);
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
    return pm_safe_like(st, self, format_vformat(&ctx, self, 2));
}

PyObject *pm_safestring_format(PyObject *self, PyObject *args, PyObject *kwargs) {
    return format_with(self, args, kwargs);
}

PyObject *pm_safestring_format_map(PyObject *self, PyObject *mapping) {
    PyObject *no_args = PyTuple_New(0);
    if (no_args == NULL) return NULL;
    PyObject *r = format_with(self, no_args, mapping);
    Py_DECREF(no_args);
    return r;
}

PyObject *pm_escape_helper_type(PyObject *module) {
    PyObject *helper = PyType_FromModuleAndSpec(module, &escape_helper_spec, NULL);
#ifndef Py_TPFLAGS_DISALLOW_INSTANTIATION
    /* 3.9: no flag for it; a type without tp_new cannot be called. */
    if (helper != NULL) ((PyTypeObject *)helper)->tp_new = NULL;
#endif
    return helper;
}
