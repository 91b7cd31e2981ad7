/*
 * lazy.c - Lazy, a child taken when its element is rendered, not when it
 * is built: what kind of child an object would be, and the one-shot take
 * that the render walkers (render.c, stream.c) make of it.
 */
#include "state.h"

int pm_lazy_kind(pm_state *st, PyObject *obj) {
    PyTypeObject *t = Py_TYPE(obj);
    if (t->tp_as_async != NULL && t->tp_as_async->am_await != NULL) return PM_LAZY_AWAIT;
    if (t->tp_as_async != NULL && t->tp_as_async->am_aiter != NULL) return PM_LAZY_AITER;
    if (PyIter_Check(obj)) return PM_LAZY_ITER;
    /* A class is callable too, but is no child anyone means to call. */
    if (PyCallable_Check(obj) && !PyType_Check(obj) && t != st->tag_type) return PM_LAZY_CALL;
    return -1;
}

static const char *const lazy_kind_names[] = {"iterator", "callable", "awaitable",
                                              "async iterable"};

int pm_lazy_take(pm_lazy *lazy, const markup_writer *w) {
    if (lazy->kind == PM_LAZY_CALL) return 0; /* called by every render */
    if (!lazy->taken) {
        lazy->taken = 1;
        return 0;
    }
    PyObject *tag = pm_open_tag(w, "fragment");
    if (tag == NULL) return -1;
    PyErr_Format(PyExc_ValueError,
                 "<%U>: a one-shot child (%s %R) was already taken by an earlier render, or is "
                 "being rendered in another thread; an element holding a generator renders "
                 "once: pass list(...) to render it again",
                 tag, lazy_kind_names[lazy->kind], lazy->source);
    Py_DECREF(tag);
    return -1;
}

static int lazy_traverse(pm_lazy *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->source);
    return 0;
}

static int lazy_clear(pm_lazy *self) {
    Py_CLEAR(self->source);
    return 0;
}

static void lazy_dealloc(pm_lazy *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->source);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *lazy_repr(pm_lazy *self) {
    const char *state = self->kind == PM_LAZY_CALL ? "" : self->taken ? ", taken" : ", unused";
    return PyUnicode_FromFormat("Lazy(%s %R%s)", lazy_kind_names[self->kind],
                                self->source ? self->source : Py_None, state);
}

static PyObject *lazy_get_source(pm_lazy *self, void *closure) {
    (void)closure;
    return Py_NewRef(self->source ? self->source : Py_None);
}

static PyObject *lazy_get_kind(pm_lazy *self, void *closure) {
    (void)closure;
    return PyUnicode_FromString(lazy_kind_names[self->kind]);
}

static PyObject *lazy_get_taken(pm_lazy *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(self->taken);
}

static PyGetSetDef lazy_getset[] = {
    {"source", (getter)lazy_get_source, NULL, "The object given as the child.", NULL},
    {"kind", (getter)lazy_get_kind, NULL,
     "\"iterator\", \"callable\", \"awaitable\" or \"async iterable\".", NULL},
    {"taken", (getter)lazy_get_taken, NULL,
     "True once a render took this one-shot child (never for a callable).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(lazy_doc, "A child taken when its element is rendered (see Element.children).");

static PyType_Slot lazy_slots[] = {
    {Py_tp_dealloc, lazy_dealloc},
    {Py_tp_traverse, lazy_traverse},
    {Py_tp_clear, lazy_clear},
    {Py_tp_repr, lazy_repr},
    {Py_tp_getset, lazy_getset},
    {Py_tp_doc, (void *)lazy_doc},
    {0, NULL},
};

static PyType_Spec lazy_spec = {
    .name = "markup.Lazy",
    .basicsize = (int)sizeof(pm_lazy),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC
#ifdef Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_IMMUTABLETYPE
#endif
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
             | Py_TPFLAGS_DISALLOW_INSTANTIATION
#endif
    ,
    .slots = lazy_slots,
};

int pm_lazy_init(PyObject *module, pm_state *st) {
    if (pm_add_type(module, &st->lazy_type, &lazy_spec, NULL) < 0) return -1;
    /* 3.9 has no Py_TPFLAGS_DISALLOW_INSTANTIATION: made by a factory call. */
    st->lazy_type->tp_new = NULL;
    return 0;
}
