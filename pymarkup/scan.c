/*
 * scan.c - markup._core._HtmlScan: libmarkup's markup_scan for Python, so
 * that markup.jinja's lint can follow a template's static text and ask
 * where each {{ }} stands.
 */
#include "state.h"

typedef struct {
    PyObject_HEAD markup_scan scan;
} pm_scan;

/* The names at() gives the places, in markup_place order. */
static const char *const place_names[] = {
    "text", "rcdata", "raw_text", "comment", "tag_name", "attr_name", "attr_value",
};

static PyObject *scan_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if ((kwargs && PyDict_GET_SIZE(kwargs)) || PyTuple_GET_SIZE(args)) {
        PyErr_SetString(PyExc_TypeError, "_HtmlScan() takes no arguments");
        return NULL;
    }
    pm_scan *self = (pm_scan *)type->tp_alloc(type, 0);
    if (self) markup_scan_init(&self->scan);
    return (PyObject *)self;
}

static void scan_dealloc(PyObject *op) {
    PyTypeObject *type = Py_TYPE(op);
    type->tp_free(op);
    Py_DECREF(type);
}

PyDoc_STRVAR(text_doc, "text($self, s, /)\n--\n\nReads the template's static text s.");

static PyObject *scan_text(PyObject *op, PyObject *arg) {
    if (!PyUnicode_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "text() takes a str, not %.100s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(arg, &n);
    if (s) {
        markup_scan_text(&((pm_scan *)op)->scan, s, (size_t)n);
        Py_RETURN_NONE;
    }
    /* A lone surrogate: its three bytes are as good as any to the tokenizer. */
    PyErr_Clear();
    PyObject *bytes = PyUnicode_AsEncodedString(arg, "utf-8", "surrogatepass");
    if (!bytes) return NULL;
    markup_scan_text(&((pm_scan *)op)->scan, PyBytes_AS_STRING(bytes),
                     (size_t)PyBytes_GET_SIZE(bytes));
    Py_DECREF(bytes);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(value_doc, "value($self)\n--\n\nA value is inserted here.");

static PyObject *scan_value(PyObject *op, PyObject *unused) {
    (void)unused;
    markup_scan_value(&((pm_scan *)op)->scan);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(at_doc, "at($self)\n--\n\n"
                     "Where a value inserted now would stand: (place, tag, attr, quote,\n"
                     "value_start), place one of 'text', 'rcdata', 'raw_text', 'comment',\n"
                     "'tag_name', 'attr_name', 'attr_value' (markup_scan_at in markup.h).");

static PyObject *scan_at(PyObject *op, PyObject *unused) {
    (void)unused;
    markup_scan_where where;
    markup_scan_at(&((pm_scan *)op)->scan, &where);
    char quote[1] = {where.quote};
    return Py_BuildValue("(ss#s#s#O)", place_names[where.place], where.tag,
                         (Py_ssize_t)where.tag_len, where.attr, (Py_ssize_t)where.attr_len, quote,
                         (Py_ssize_t)(where.quote != 0), where.value_start ? Py_True : Py_False);
}

PyDoc_STRVAR(copy_doc, "copy($self)\n--\n\nA scanner at the same place, to follow another branch.");

static PyObject *scan_copy(PyObject *op, PyObject *unused) {
    (void)unused;
    PyTypeObject *type = Py_TYPE(op);
    pm_scan *copy = (pm_scan *)type->tp_alloc(type, 0);
    if (copy) copy->scan = ((pm_scan *)op)->scan;
    return (PyObject *)copy;
}

static PyMethodDef scan_methods[] = {
    {"text", scan_text, METH_O, text_doc},
    {"value", scan_value, METH_NOARGS, value_doc},
    {"at", scan_at, METH_NOARGS, at_doc},
    {"copy", scan_copy, METH_NOARGS, copy_doc},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot scan_slots[] = {
    {Py_tp_new, scan_new},
    {Py_tp_dealloc, scan_dealloc},
    {Py_tp_methods, scan_methods},
    {Py_tp_doc, "Reads HTML as the standard's tokenizer does and says where a value\n"
                "inserted between its pieces would stand."},
    {0, NULL},
};

static PyType_Spec scan_spec = {
    .name = "markup._core._HtmlScan",
    .basicsize = sizeof(pm_scan),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = scan_slots,
};

int pm_scan_init(PyObject *module, pm_state *st) {
    (void)st;
    PyTypeObject *type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &scan_spec, NULL);
    if (!type) return -1;
    int r = PyModule_AddType(module, type);
    Py_DECREF(type);
    return r;
}
