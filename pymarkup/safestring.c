/*
 * safestring.c - SafeString (a str that is already safe HTML) and escape().
 *
 * SafeString behaves like markupsafe.Markup where it matters for
 * interoperation: it has __html__ (so Jinja2, Django and markupsafe insert
 * it verbatim), SafeString(obj) trusts obj.__html__(), and `+` escapes the
 * plain-str side. escape() follows markupsafe.escape exactly, using
 * libmarkup's escaper.
 */
#include "state.h"

/* A new SafeString with the contents of the str `s`. */
static PyObject *safestring_from_str(pm_state *st, PyObject *s) {
    PyObject *args = PyTuple_Pack(1, s);
    if (args == NULL) return NULL;
    PyObject *r = PyUnicode_Type.tp_new(st->safestring_type, args, NULL);
    Py_DECREF(args);
    return r;
}

PyObject *pm_safestring_from_utf8(pm_state *st, const char *s, Py_ssize_t n) {
    PyObject *str = PyUnicode_DecodeUTF8(s, n, "strict");
    if (str == NULL) return NULL;
    PyObject *r = safestring_from_str(st, str);
    Py_DECREF(str);
    return r;
}

/* A str that cannot be UTF-8 encoded (lone surrogates): markupsafe escapes
   it anyway, so go through "surrogatepass" bytes. */
static PyObject *escape_with_surrogates(pm_state *st, PyObject *s) {
    PyErr_Clear();
    PyObject *bytes = PyUnicode_AsEncodedString(s, "utf-8", "surrogatepass");
    if (bytes == NULL) return NULL;
    markup_buf buf;
    markup_buf_init(&buf, &pm_pymem_alloc);
    PyObject *r = NULL;
    markup_status status =
        markup_escape(&buf, PyBytes_AS_STRING(bytes), (size_t)PyBytes_GET_SIZE(bytes));
    if (status != MARKUP_OK) {
        pm_raise_status(status, "escape()");
    } else {
        PyObject *str = PyUnicode_DecodeUTF8(buf.data, (Py_ssize_t)buf.len, "surrogatepass");
        if (str != NULL) {
            r = safestring_from_str(st, str);
            Py_DECREF(str);
        }
    }
    markup_buf_free(&buf);
    Py_DECREF(bytes);
    return r;
}

/* Escapes a str (any subclass, read as plain text) into a new SafeString. */
static PyObject *escape_str(pm_state *st, PyObject *s) {
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return NULL;
        return escape_with_surrogates(st, s);
    }
    if (markup_escape_count(u, (size_t)n) == 0) return safestring_from_str(st, s);
    markup_buf buf;
    markup_buf_init(&buf, &pm_pymem_alloc);
    PyObject *r = NULL;
    markup_status status = markup_escape(&buf, u, (size_t)n);
    if (status != MARKUP_OK) {
        pm_raise_status(status, "escape()");
    } else {
        r = pm_safestring_from_utf8(st, buf.data, (Py_ssize_t)buf.len);
    }
    markup_buf_free(&buf);
    return r;
}

/* markupsafe.escape: __html__ objects are trusted, everything else is
   str()-ed and escaped. */
static PyObject *escape_object(pm_state *st, PyObject *obj) {
    if (Py_TYPE(obj) == st->safestring_type) return Py_NewRef(obj);
    if (PyUnicode_CheckExact(obj)) return escape_str(st, obj);
    PyObject *method;
    int r = pm_lookup_html(st, obj, &method);
    if (r < 0) return NULL;
    if (r > 0) {
        PyObject *html = PyObject_CallNoArgs(method);
        Py_DECREF(method);
        if (html == NULL) return NULL;
        if (!PyUnicode_Check(html)) {
            PyErr_Format(PyExc_TypeError, "%.100s.__html__() returned %.100s, not str",
                         Py_TYPE(obj)->tp_name, Py_TYPE(html)->tp_name);
            Py_DECREF(html);
            return NULL;
        }
        PyObject *safe = safestring_from_str(st, html);
        Py_DECREF(html);
        return safe;
    }
    if (PyUnicode_Check(obj)) return escape_str(st, obj);
    PyObject *text = PyObject_Str(obj);
    if (text == NULL) return NULL;
    PyObject *safe = escape_str(st, text);
    Py_DECREF(text);
    return safe;
}

PyObject *pm_escape(PyObject *module, PyObject *obj) {
    return escape_object(pm_state_from_module(module), obj);
}

/* ------------------------------------------------------------------------ */
/* The SafeString type                                                        */
/* ------------------------------------------------------------------------ */

static PyObject *safestring_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    /* SafeString(obj) trusts obj.__html__() when there is one, like Markup. */
    if (kwargs == NULL && PyTuple_GET_SIZE(args) == 1) {
        PyObject *obj = PyTuple_GET_ITEM(args, 0);
        if (!PyUnicode_CheckExact(obj)) {
            pm_state *st = pm_state_from_type(type);
            if (st == NULL) return NULL;
            PyObject *method;
            int r = pm_lookup_html(st, obj, &method);
            if (r < 0) return NULL;
            if (r > 0) {
                PyObject *html = PyObject_CallNoArgs(method);
                Py_DECREF(method);
                if (html == NULL) return NULL;
                PyObject *inner = PyTuple_Pack(1, html);
                Py_DECREF(html);
                if (inner == NULL) return NULL;
                PyObject *res = PyUnicode_Type.tp_new(type, inner, NULL);
                Py_DECREF(inner);
                return res;
            }
        }
    }
    return PyUnicode_Type.tp_new(type, args, kwargs);
}

static PyObject *safestring_html(PyObject *self, PyObject *unused) {
    (void)unused;
    return Py_NewRef(self);
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

/* SafeString + x and x + SafeString: the other side is escaped (unless it
   has __html__), and the result stays a SafeString. */
static PyObject *safestring_add(PyObject *a, PyObject *b) {
    pm_state *st = pm_state_find(Py_TYPE(a));
    if (st == NULL || !PyObject_TypeCheck(a, st->safestring_type)) st = pm_state_find(Py_TYPE(b));
    if (st == NULL) Py_RETURN_NOTIMPLEMENTED;
    int left_safe = PyObject_TypeCheck(a, st->safestring_type);
    PyObject *other = left_safe ? b : a;
    if (!PyUnicode_Check(other)) {
        PyObject *method;
        int r = pm_lookup_html(st, other, &method);
        if (r < 0) return NULL;
        Py_XDECREF(method);
        if (r == 0) Py_RETURN_NOTIMPLEMENTED;
    }
    PyObject *escaped = escape_object(st, other);
    if (escaped == NULL) return NULL;
    PyObject *joined = left_safe ? PyUnicode_Concat(a, escaped) : PyUnicode_Concat(escaped, b);
    Py_DECREF(escaped);
    if (joined == NULL) return NULL;
    PyObject *r = safestring_from_str(st, joined);
    Py_DECREF(joined);
    return r;
}

static PyObject *safestring_escape(PyObject *cls, PyObject *obj) {
    pm_state *st = pm_state_from_type((PyTypeObject *)cls);
    if (st == NULL) return NULL;
    return escape_object(st, obj);
}

static PyMethodDef safestring_methods[] = {
    {"__html__", safestring_html, METH_NOARGS,
     "__html__($self, /)\n--\n\nReturn self: the text is already safe HTML."},
    {"escape", (PyCFunction)safestring_escape, METH_O | METH_CLASS,
     "escape($cls, s, /)\n--\n\nThe same as markup.escape(s)."},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(safestring_doc,
"SafeString(obj='')\n--\n\n"
"A str that holds safe HTML: render() and Jinja2 insert it verbatim.\n"
"Only wrap text you trust; use escape() for anything else.");

static PyType_Slot safestring_slots[] = {
    {Py_tp_new, safestring_new},
    {Py_tp_repr, safestring_repr},
    {Py_tp_methods, safestring_methods},
    {Py_nb_add, safestring_add},
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

int pm_safestring_init(PyObject *module, pm_state *st) {
    /* 3.9 wants the bases as a tuple. */
    PyObject *bases = PyTuple_Pack(1, (PyObject *)&PyUnicode_Type);
    if (bases == NULL) return -1;
    st->safestring_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &safestring_spec, bases);
    Py_DECREF(bases);
    if (st->safestring_type == NULL) return -1;
    return PyModule_AddObjectRef(module, "SafeString", (PyObject *)st->safestring_type);
}
