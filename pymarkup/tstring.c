/*
 * tstring.c - the per-call step of markup.html() (markup/_tstring.py): a
 * t-string's interpolations read into the values its compiled template
 * takes, when each is a plain value. Anything else (a conversion, a format
 * spec, a t-string, a list or tuple that may hold t-strings, a list or
 * mapping for a class or style value) makes it answer None, and html()
 * goes its Python way.
 */
#include "state.h"

/* What a whole class or style value may be to go straight to the
   template: the rest is joined by html() first. */
static int scalar(PyObject *v) {
    return PyUnicode_CheckExact(v) || PyLong_CheckExact(v) || PyFloat_CheckExact(v) ||
           v == Py_None || PyBool_Check(v);
}

PyObject *pm_tstring_values(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyTuple_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError,
                        "_tstring_values() takes the interpolations, the joined indices and "
                        "the Template type");
        return NULL;
    }
    pm_state *st = pm_state_from_module(module);
    PyObject *interpolations = args[0], *joined = args[1], *template_type = args[2];
    Py_ssize_t n = PyTuple_GET_SIZE(interpolations);
    PyObject *values = PyList_New(n);
    if (!values) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *interpolation = PyTuple_GET_ITEM(interpolations, i);
        PyObject *conversion = PyObject_GetAttr(interpolation, st->str_conversion);
        if (!conversion) goto fail;
        int plain = conversion == Py_None;
        Py_DECREF(conversion);
        if (plain) {
            PyObject *spec = PyObject_GetAttr(interpolation, st->str_format_spec);
            if (!spec) goto fail;
            plain = PyUnicode_Check(spec) && PyUnicode_GET_LENGTH(spec) == 0;
            Py_DECREF(spec);
        }
        PyObject *value = plain ? PyObject_GetAttr(interpolation, st->str_value) : NULL;
        if (plain && !value) goto fail;
        if (!plain || (PyObject *)Py_TYPE(value) == template_type || PyList_Check(value) ||
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
        if (at < 0 || at >= n) {
            PyErr_SetString(PyExc_ValueError, "_tstring_values(): a joined index out of range");
            goto fail;
        }
        if (!scalar(PyList_GET_ITEM(values, at))) {
            Py_DECREF(values);
            Py_RETURN_NONE;
        }
    }
    return values;
fail:
    Py_DECREF(values);
    return NULL;
}
