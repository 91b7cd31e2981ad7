/*
 * element.c - the Element and Comment types: what a built tree is made of.
 * Elements are built by the Tag factories (tag.c) and immutable; their
 * __html__ and str() render them (render.c).
 */
#include "state.h"

#include <stdio.h>
#include <structmember.h>

/* ------------------------------------------------------------------------ */
/* Element                                                                    */
/* ------------------------------------------------------------------------ */

static int element_traverse(pm_element *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    for (Py_ssize_t i = 0; i < Py_SIZE(self); i++) Py_VISIT(self->items[i]);
    return 0;
}

static int element_clear(pm_element *self) {
    /* Breaks a cycle through an __html__ object: the element is left
       empty, never with a hole. */
    Py_ssize_t n = Py_SIZE(self);
    Py_SET_SIZE(self, 0);
    self->nattrs = 0;
    for (Py_ssize_t i = 0; i < n; i++) Py_CLEAR(self->items[i]);
    return 0;
}

static void element_dealloc(pm_element *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    /* The trashcan turns the recursive free of a deep tree into a loop. */
    Py_TRASHCAN_BEGIN(self, element_dealloc) Py_CLEAR(self->tag);
    for (Py_ssize_t i = 0; i < Py_SIZE(self); i++) Py_XDECREF(self->items[i]);
    tp->tp_free(self);
    Py_DECREF(tp);
    Py_TRASHCAN_END
}

static PyObject *element_get_tag(pm_element *self, void *closure) {
    (void)closure;
    /* "" rather than None: .tag stays a str for every element. */
    if (self->flags & PM_ELEMENT_FRAGMENT) return PyUnicode_FromStringAndSize(NULL, 0);
    return Py_NewRef(self->tag);
}

static PyObject *element_get_attrs(pm_element *self, void *closure) {
    (void)closure;
    PyObject *d = PyDict_New();
    if (d == NULL) return NULL;
    for (Py_ssize_t i = 0; i < 2 * self->nattrs; i += 2) {
        if (PyDict_SetItem(d, self->items[i], self->items[i + 1]) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

static PyObject *element_get_children(pm_element *self, void *closure) {
    (void)closure;
    Py_ssize_t n = pm_element_nchildren(self);
    PyObject *const *children = pm_element_children(self);
    PyObject *t = PyTuple_New(n);
    if (t == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, Py_NewRef(children[i]));
    return t;
}

static PyObject *element_get_doctype(pm_element *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(self->flags & PM_ELEMENT_DOCTYPE);
}

static PyGetSetDef element_getset[] = {
    {"tag", (getter)element_get_tag, NULL, "The tag name (str); \"\" for a fragment.", NULL},
    {"attrs", (getter)element_get_attrs, NULL,
     "The attributes as a new dict, in insertion order, values as given.", NULL},
    {"children", (getter)element_get_children, NULL,
     "The children as a tuple (lists flattened, None dropped; a generator, callable, awaitable "
     "or async iterable child as a markup.Lazy).",
     NULL},
    {"doctype", (getter)element_get_doctype, NULL,
     "True when <!doctype html> is written before the element.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *element_repr(pm_element *self) {
    Py_ssize_t nattrs = self->nattrs;
    Py_ssize_t nkids = pm_element_nchildren(self);
    const char *doc = (self->flags & PM_ELEMENT_DOCTYPE) ? " doctype" : "";
    char lazy[48] = ""; /* " (2 lazy)": the children taken when rendered */
    if (self->flags & PM_ELEMENT_LAZY) {
        Py_ssize_t count = 0;
        PyObject *const *children = pm_element_children(self);
        pm_state *st = pm_state_from_type(Py_TYPE(self));
        if (st == NULL) return NULL;
        for (Py_ssize_t i = 0; i < nkids; i++) count += Py_TYPE(children[i]) == st->lazy_type;
        if (count) snprintf(lazy, sizeof lazy, " (%zd lazy)", count);
    }
    if (self->flags & PM_ELEMENT_FRAGMENT)
        return PyUnicode_FromFormat("<Fragment children=%zd%s>", nkids, lazy);
    if (nattrs == 0) {
        return PyUnicode_FromFormat("<Element %U%s children=%zd%s>", self->tag, doc, nkids, lazy);
    }
    int rc = Py_ReprEnter((PyObject *)self);
    if (rc != 0) return rc > 0 ? PyUnicode_FromString("<Element ...>") : NULL;
    PyObject *attrs = element_get_attrs(self, NULL);
    PyObject *r = NULL;
    if (attrs != NULL) {
        r = PyUnicode_FromFormat("<Element %U%s attrs=%R children=%zd%s>", self->tag, doc, attrs,
                                 nkids, lazy);
        Py_DECREF(attrs);
    }
    Py_ReprLeave((PyObject *)self);
    return r;
}

static PyObject *element_html(PyObject *self, PyObject *unused) {
    (void)unused;
    pm_state *st = pm_state_from_type(Py_TYPE(self));
    if (st == NULL) return NULL;
    return pm_render_as(st, self, PM_OUTPUT_SAFESTRING);
}

/* str(element) is its HTML, as in htpy and dominate: an f-string or a
   template without autoescape writes the markup, not the repr. */
static PyObject *element_str(PyObject *self) { return element_html(self, NULL); }

static PyMethodDef element_methods[] = {
    {"__html__", element_html, METH_NOARGS,
     "__html__($self, /)\n--\n\nThe rendered element as a SafeString (for Jinja2 and markupsafe)."},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(element_doc,
             "An HTML element built by h.* or Tag(...): immutable; render it with render().");

static PyType_Slot element_slots[] = {
    {Py_tp_dealloc, element_dealloc},
    {Py_tp_traverse, element_traverse},
    {Py_tp_clear, element_clear},
    {Py_tp_repr, element_repr},
    {Py_tp_str, element_str},
    {Py_tp_getset, element_getset},
    {Py_tp_methods, element_methods},
    {Py_tp_doc, (void *)element_doc},
    {0, NULL},
};

static PyType_Spec element_spec = {
    .name = "markup.Element",
    .basicsize = (int)offsetof(pm_element, items),
    .itemsize = (int)sizeof(PyObject *),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC
#ifdef Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_IMMUTABLETYPE
#endif
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
             | Py_TPFLAGS_DISALLOW_INSTANTIATION
#endif
    ,
    .slots = element_slots,
};

/* ------------------------------------------------------------------------ */
/* Comment                                                                    */
/* ------------------------------------------------------------------------ */

static PyObject *comment_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *text;
    static char *kwlist[] = {"text", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:Comment", kwlist, &text)) return NULL;
    /* A number is its text, as it is among an element's children. */
    int number = PyLong_CheckExact(text) || PyFloat_CheckExact(text);
    if (!PyUnicode_Check(text) && !number) {
        PyErr_Format(PyExc_TypeError,
                     "Comment() takes a str, int or float, got %.100s; use str(value)",
                     Py_TYPE(text)->tp_name);
        return NULL;
    }
    /* str(value), as for an element's children: a str subclass is its
       __str__, kept as a plain str. */
    PyObject *plain = PyUnicode_CheckExact(text) ? Py_NewRef(text) : PyObject_Str(text);
    if (plain != NULL && !PyUnicode_CheckExact(plain))
        Py_SETREF(plain, PyUnicode_FromObject(plain));
    if (plain == NULL) return NULL;
    Py_ssize_t n;
    pm_comment *self = NULL;
    if (pm_utf8(plain, &n, NULL, "Comment()") != NULL) self = (pm_comment *)type->tp_alloc(type, 0);
    if (self == NULL) {
        Py_DECREF(plain);
        return NULL;
    }
    self->text = plain;
    return (PyObject *)self;
}

static void comment_dealloc(pm_comment *self) {
    PyTypeObject *tp = Py_TYPE(self);
    Py_CLEAR(self->text);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *comment_repr(pm_comment *self) {
    return PyUnicode_FromFormat("Comment(%R)", self->text);
}

static PyMemberDef comment_members[] = {
    {"text", T_OBJECT_EX, offsetof(pm_comment, text), READONLY, "The comment text."},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef comment_methods[] = {
    {"__html__", element_html, METH_NOARGS,
     "__html__($self, /)\n--\n\nThe rendered comment as a SafeString."},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(comment_doc, "Comment(text)\n--\n\n"
                          "An HTML comment, rendered as <!--text--> with the text escaped.");

static PyType_Slot comment_slots[] = {
    {Py_tp_new, comment_new},         {Py_tp_dealloc, comment_dealloc},
    {Py_tp_repr, comment_repr},       {Py_tp_str, element_str},
    {Py_tp_members, comment_members}, {Py_tp_methods, comment_methods},
    {Py_tp_doc, (void *)comment_doc}, {0, NULL},
};

static PyType_Spec comment_spec = {
    .name = "markup.Comment",
    .basicsize = sizeof(pm_comment),
    .flags = Py_TPFLAGS_DEFAULT
#ifdef Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_IMMUTABLETYPE
#endif
    ,
    .slots = comment_slots,
};

int pm_element_init(PyObject *module, pm_state *st) {
    if (pm_add_type(module, &st->element_type, &element_spec, NULL) < 0) return -1;
    if (pm_add_type(module, &st->comment_type, &comment_spec, NULL) < 0) return -1;
    /* 3.9 has no Py_TPFLAGS_DISALLOW_INSTANTIATION: elements come from
       factories only. */
    st->element_type->tp_new = NULL;
    return 0;
}
