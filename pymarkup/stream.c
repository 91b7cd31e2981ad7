/*
 * stream.c - iter_render(): a rendered page handed out in UTF-8 bytes chunks,
 * for streaming HTTP responses.
 *
 * The page is rendered in full when iter_render() is called, into one
 * markup_buf, so every error (a lone surrogate, a bad child, a tree too
 * deep) is raised there, before a server has sent any byte of the response.
 * The iterator then copies out slices of at most chunk_size bytes, each cut
 * on a UTF-8 character boundary so that every chunk decodes on its own, and
 * frees the buffer as soon as the last chunk is out.
 */
#include "state.h"

/* The first reservation, as in render.c: small pages fit without growing. */
#define PM_STREAM_INITIAL_CAP 4096

typedef struct pm_chunks {
    PyObject_HEAD markup_buf buf; /* the whole rendered page; freed when exhausted */
    size_t pos;                   /* the next byte to hand out */
    size_t chunk;                 /* the largest chunk, in bytes (>= 1) */
} pm_chunks;

static inline int is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

/* The end of the chunk that starts at `pos`: at most `chunk` bytes, moved
   back to the start of a character. When one character is longer than
   `chunk` (chunk_size < 4), the chunk holds that whole character. */
static size_t chunk_end(const unsigned char *data, size_t len, size_t pos, size_t chunk) {
    if (len - pos <= chunk) return len;
    size_t end = pos + chunk;
    while (end > pos && is_continuation(data[end])) end--;
    if (end > pos) return end;
    end = pos + 1;
    while (end < len && is_continuation(data[end])) end++;
    return end;
}

static PyObject *chunks_next(PyObject *op) {
    pm_chunks *self = (pm_chunks *)op;
    PyObject *result = NULL;
#if PY_VERSION_HEX >= 0x030D0000
    /* Free-threaded builds: two threads may share one iterator. */
    Py_BEGIN_CRITICAL_SECTION(op);
#endif
    if (self->pos < self->buf.len) {
        const unsigned char *data = (const unsigned char *)self->buf.data;
        size_t end = chunk_end(data, self->buf.len, self->pos, self->chunk);
        Py_ssize_t n = (Py_ssize_t)(end - self->pos);
        result = PyBytes_FromStringAndSize(self->buf.data + self->pos, n);
        if (result != NULL) {
            self->pos = end;
            if (end == self->buf.len) {
                /* Done: give the page's memory back now, not when the
                   server drops the iterator. */
                markup_buf_free(&self->buf);
                self->pos = 0;
            }
        }
    }
#if PY_VERSION_HEX >= 0x030D0000
    Py_END_CRITICAL_SECTION();
#endif
    return result; /* NULL without an exception: StopIteration */
}

static void chunks_dealloc(PyObject *op) {
    pm_chunks *self = (pm_chunks *)op;
    PyTypeObject *type = Py_TYPE(op);
    markup_buf_free(&self->buf);
    type->tp_free(op);
    Py_DECREF(type);
}

PyDoc_STRVAR(chunks_doc,
             "An iterator over the UTF-8 bytes of a rendered page, made by iter_render().");

static PyType_Slot chunks_slots[] = {
    {Py_tp_dealloc, chunks_dealloc},
    {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, chunks_next},
    {Py_tp_doc, (void *)chunks_doc},
    {0, NULL},
};

static PyType_Spec chunks_spec = {
    .name = "markup._core.RenderChunks",
    .basicsize = sizeof(pm_chunks),
    .flags = Py_TPFLAGS_DEFAULT
#ifdef Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_IMMUTABLETYPE
#endif
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
             | Py_TPFLAGS_DISALLOW_INSTANTIATION
#endif
    ,
    .slots = chunks_slots,
};

/* chunk_size as a size_t >= 1. An int (or any __index__ object) but not a
   bool; sizes beyond the address space mean "one chunk". */
static int parse_chunk_size(PyObject *obj, size_t *chunk) {
    if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "iter_render(): chunk_size must be an int (a number of bytes), got %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *n = PyNumber_Index(obj);
    if (n == NULL) return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
    Py_DECREF(n);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow < 0 || (overflow == 0 && v <= 0)) {
        PyErr_Format(PyExc_ValueError,
                     "iter_render(): chunk_size must be a positive number of bytes, got %R", obj);
        return -1;
    }
    *chunk = (overflow > 0 || (unsigned long long)v > SIZE_MAX) ? SIZE_MAX : (size_t)v;
    return 0;
}

static PyObject *pm_iter_render(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"", "chunk_size", NULL};
    PyObject *node;
    PyObject *chunk_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:iter_render", kwlist, &node, &chunk_obj)) {
        return NULL;
    }
    size_t chunk = 65536;
    if (chunk_obj != NULL && parse_chunk_size(chunk_obj, &chunk) < 0) return NULL;

    pm_state *st = pm_state_from_module(module);
    pm_chunks *self = PyObject_New(pm_chunks, st->chunks_type);
    if (self == NULL) return NULL;
    markup_buf_init(&self->buf, &pm_pymem_alloc);
    self->pos = 0;
    self->chunk = chunk;

    markup_status status = markup_buf_reserve(&self->buf, PM_STREAM_INITIAL_CAP);
    if (status != MARKUP_OK) {
        pm_raise_status(status, "iter_render()");
        Py_DECREF(self);
        return NULL;
    }
    if (pm_render_into(st, &self->buf, node) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

PyDoc_STRVAR(iter_render_doc,
             "iter_render(node, /, chunk_size=65536)\n--\n\n"
             "Render like render_bytes() and return an iterator of UTF-8 bytes chunks\n"
             "whose concatenation equals render_bytes(node), for streaming responses.\n"
             "\n"
             "The page is rendered when iter_render() is called, so errors are raised\n"
             "before any chunk is sent. Each chunk holds at most chunk_size bytes and\n"
             "ends on a character boundary, so it decodes on its own (a chunk_size\n"
             "below 4 may give a chunk of one whole character that is longer).");

static PyMethodDef stream_functions[] = {
    {"iter_render", (PyCFunction)(void (*)(void))pm_iter_render, METH_VARARGS | METH_KEYWORDS,
     iter_render_doc},
    {NULL, NULL, 0, NULL},
};

int pm_stream_init(PyObject *module, pm_state *st) {
    st->chunks_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &chunks_spec, NULL);
    if (st->chunks_type == NULL) return -1;
#ifndef Py_TPFLAGS_DISALLOW_INSTANTIATION
    /* Python 3.9: no flag yet, so drop the constructor inherited from object. */
    st->chunks_type->tp_new = NULL;
#endif
    return PyModule_AddFunctions(module, stream_functions);
}
