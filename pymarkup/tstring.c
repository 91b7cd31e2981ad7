/*
 * tstring.c - markup.html()'s per-call step (markup/_tstring.py): a
 * t-string compiled before, its interpolations plain values, no builder
 * being traced, goes straight to its baked function. Anything else (a
 * template not compiled yet, a conversion, a format spec, a t-string, a
 * list or tuple that may hold t-strings, a list or mapping for a class or
 * style value, a trace under way) goes the Python way, _html().
 */
#include "state.h"

#include <stddef.h>
#include <structmember.h>

/* What a whole class or style value may be to go straight to the
   template: the rest is joined by html() first. */
static int scalar(PyObject *v) {
    return PyUnicode_CheckExact(v) || PyLong_CheckExact(v) || PyFloat_CheckExact(v) ||
           v == Py_None || PyBool_Check(v);
}

/* A field of a Template or an Interpolation: read where the type keeps it
   (`offset`, from its member descriptor) or else as an attribute. A new
   reference, or NULL with an exception. */
static PyObject *field(PyObject *obj, Py_ssize_t offset, PyObject *name) {
    if (offset >= 0) {
        PyObject *v = *(PyObject **)((char *)obj + offset);
        if (v) return Py_NewRef(v);
    }
    return PyObject_GetAttr(obj, name);
}

/* The values a compiled template takes from `interpolations`: a new list,
   or Py_None (a new reference) when one needs the Python way. */
static PyObject *plain_values(pm_state *st, PyObject *interpolations, PyObject *joined) {
    if (!PyTuple_Check(interpolations) || !PyTuple_Check(joined)) Py_RETURN_NONE;
    Py_ssize_t n = PyTuple_GET_SIZE(interpolations);
    PyObject *values = PyList_New(n);
    if (!values) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *interpolation = PyTuple_GET_ITEM(interpolations, i);
        /* Offsets only for the type they were read from. */
        int known = (PyObject *)Py_TYPE(interpolation) == st->interpolation_type;
        PyObject *conversion =
            field(interpolation, known ? st->off_conversion : -1, st->str_conversion);
        if (!conversion) goto fail;
        int plain = conversion == Py_None;
        Py_DECREF(conversion);
        if (plain) {
            PyObject *spec =
                field(interpolation, known ? st->off_format_spec : -1, st->str_format_spec);
            if (!spec) goto fail;
            plain = PyUnicode_Check(spec) && PyUnicode_GET_LENGTH(spec) == 0;
            Py_DECREF(spec);
        }
        PyObject *value =
            plain ? field(interpolation, known ? st->off_value : -1, st->str_value) : NULL;
        if (plain && !value) goto fail;
        if (!plain || (PyObject *)Py_TYPE(value) == st->template_type || PyList_Check(value) ||
            PyTuple_Check(value)) {
            Py_XDECREF(value);
            Py_DECREF(values);
            Py_RETURN_NONE;
        }
        PyList_SET_ITEM(values, i, value);
    }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(joined); k++) {
        Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(joined, k));
        if (at == -1 && PyErr_Occurred()) goto fail;
        if (at < 0 || at >= n || !scalar(PyList_GET_ITEM(values, at))) {
            Py_DECREF(values);
            Py_RETURN_NONE;
        }
    }
    return values;
fail:
    Py_DECREF(values);
    return NULL;
}

/* Whether a @baked builder is being traced in this thread (the tracer's
   thread-local "sessions"): html() then builds the builder's nodes. */
static int tracing(pm_state *st) {
    PyObject *d = PyObject_GetAttr(st->tstring_tracing, st->str_dict);
    if (!d) return -1;
    PyObject *sessions = PyDict_Check(d) ? PyDict_GetItemWithError(d, st->str_sessions) : NULL;
    int r = sessions ? PyObject_IsTrue(sessions) : (PyErr_Occurred() ? -1 : 0);
    Py_DECREF(d);
    return r;
}

/* The baked function's result for `template` when the fast way applies:
   a new reference, Py_None (new) when it does not, NULL on error. */
static PyObject *fast(pm_state *st, PyObject *template) {
    int r = tracing(st);
    if (r) return r < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *strings = field(template, st->off_strings, st->str_strings);
    if (!strings) return NULL;
    PyObject *compiled = PyDict_GetItemWithError(st->tstring_cache, strings);
    Py_DECREF(strings);
    if (!compiled) return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    Py_INCREF(compiled); /* the cache may drop it while we read it */
    PyObject *fn = PyObject_GetAttr(compiled, st->str_fn);
    PyObject *joined = fn ? PyObject_GetAttr(compiled, st->str_joined_at) : NULL;
    Py_DECREF(compiled);
    PyObject *result = NULL;
    if (!joined) goto done;
    if (fn == Py_None) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    PyObject *interpolations = field(template, st->off_interpolations, st->str_interpolations);
    if (!interpolations) goto done;
    PyObject *values = plain_values(st, interpolations, joined);
    Py_DECREF(interpolations);
    if (values && PyList_Check(values))
        result = PyObject_Vectorcall(fn, &PyList_GET_ITEM(values, 0),
                                     (size_t)PyList_GET_SIZE(values), NULL);
    else
        result = values; /* None, or NULL */
    if (values != result) Py_XDECREF(values);
done:
    Py_XDECREF(fn);
    Py_XDECREF(joined);
    return result;
}

PyDoc_STRVAR(html_doc, "html(template, /)\n--\n\n"
                       "The HTML of a t-string: ``html(t\"<p class={cls}>{text}</p>\")``.\n\n"
                       "Values are escaped where they stand, as markup escapes children and\n"
                       "attribute values; elements, ``SafeString`` values, lists and other\n"
                       "t-strings are children. The template's own text is written as it is.\n"
                       "Needs CPython 3.14 (t-strings).");

static PyObject *tstring_html(PyObject *module, PyObject *template) {
    pm_state *st = pm_state_from_module(module);
    if (!st->tstring_slow) {
        PyErr_SetString(PyExc_RuntimeError, "markup.html() is not set up (markup._tstring)");
        return NULL;
    }
    if (st->template_type && (PyObject *)Py_TYPE(template) == st->template_type) {
        PyObject *result = fast(st, template);
        if (result != Py_None) return result;
        Py_DECREF(result);
    }
    return PyObject_CallOneArg(st->tstring_slow, template);
}

/* Where `type` keeps field `name`: the offset of an object member its
   member descriptor names, or -1 (then it is read as an attribute). */
static Py_ssize_t member_offset(PyObject *type, PyObject *name) {
    PyObject *d = PyObject_GetAttr(type, name);
    if (!d) {
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t offset = -1;
    if (Py_IS_TYPE(d, &PyMemberDescr_Type)) {
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type == T_OBJECT_EX || m->type == T_OBJECT) offset = m->offset;
    }
    Py_DECREF(d);
    return offset;
}

PyDoc_STRVAR(setup_doc,
             "_tstring_setup(cache, slow, tracing, template_type, interpolation_type, /)\n"
             "--\n\n"
             "What html()'s fast way reads: the compiled templates by literal\n"
             "parts, the Python way, the tracer's thread-local state and\n"
             "string.templatelib's Template and Interpolation (None before\n"
             "CPython 3.14).");

static PyObject *tstring_setup(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5 || !PyDict_Check(args[0]) || !PyCallable_Check(args[1]) ||
        (args[3] != Py_None && !PyType_Check(args[3])) ||
        (args[4] != Py_None && !PyType_Check(args[4]))) {
        PyErr_SetString(PyExc_TypeError,
                        "_tstring_setup() takes a dict, a callable, the tracer's state and two "
                        "types or None");
        return NULL;
    }
    pm_state *st = pm_state_from_module(module);
    Py_XSETREF(st->tstring_cache, Py_NewRef(args[0]));
    Py_XSETREF(st->tstring_slow, Py_NewRef(args[1]));
    Py_XSETREF(st->tstring_tracing, Py_NewRef(args[2]));
    Py_CLEAR(st->template_type);
    Py_CLEAR(st->interpolation_type);
    st->off_strings = st->off_interpolations = -1;
    st->off_value = st->off_conversion = st->off_format_spec = -1;
    if (args[3] != Py_None && args[4] != Py_None) {
        st->template_type = Py_NewRef(args[3]);
        st->interpolation_type = Py_NewRef(args[4]);
        st->off_strings = member_offset(args[3], st->str_strings);
        st->off_interpolations = member_offset(args[3], st->str_interpolations);
        st->off_value = member_offset(args[4], st->str_value);
        st->off_conversion = member_offset(args[4], st->str_conversion);
        st->off_format_spec = member_offset(args[4], st->str_format_spec);
    }
    Py_RETURN_NONE;
}

static PyMethodDef tstring_functions[] = {
    {"_tstring_html", tstring_html, METH_O, html_doc},
    {"_tstring_setup", (PyCFunction)(void (*)(void))tstring_setup, METH_FASTCALL, setup_doc},
    {NULL, NULL, 0, NULL},
};

int pm_tstring_init(PyObject *module, pm_state *st) {
    static const struct {
        size_t offset;
        const char *name;
    } names[] = {
        {offsetof(pm_state, str_strings), "strings"},
        {offsetof(pm_state, str_interpolations), "interpolations"},
        {offsetof(pm_state, str_fn), "fn"},
        {offsetof(pm_state, str_joined_at), "joined_at"},
        {offsetof(pm_state, str_dict), "__dict__"},
        {offsetof(pm_state, str_sessions), "sessions"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        PyObject *s = PyUnicode_InternFromString(names[i].name);
        if (!s) return -1;
        *(PyObject **)((char *)st + names[i].offset) = s;
    }
    return PyModule_AddFunctions(module, tstring_functions);
}
