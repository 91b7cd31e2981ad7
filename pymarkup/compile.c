/*
 * compile.c - markup._core._ProgramBuilder: how the @baked compiler
 * (markup/_template/) writes a template program.
 *
 * The builder owns one output buffer and one HTML writer for the whole
 * template. render() walks a (part of the) traced tree with the ordinary
 * render walker, which writes static HTML through the writer and calls
 * back into the Python compiler for every stand-in and every sequence of
 * children; the compiler answers by emitting instructions and rendering the
 * parts in between. Whatever the walker wrote since the last slot or
 * instruction becomes a STATIC of the program when flushed, so conditions
 * and loop bodies are written at the writer state where they stand.
 */
#include "state.h"

#include <stddef.h>

typedef struct pm_program_builder {
    PyObject_HEAD pm_render_ctx rctx; /* the walker's callbacks find us from it */
    PyObject *hooks;                  /* the Python compiler: on_stand_in, on_children */
    markup_program_builder *b;
    markup_buf buf;
    size_t flushed; /* bytes of buf already in the program */
    markup_writer w;
    int static_ascii; /* everything flushed so far is ASCII */
    /* A t-string's own text is the static HTML (static()): what the walker
       writes meanwhile only moves the writer to where each value stands
       and is dropped, so that the buffer stays the program's statics. */
    int verbatim;
    /* Where the content of a t-string's pre, listing or textarea began to
       the writer (in what it dropped) and in the template's text: a value
       written there comes first in it, as in markup_writer_newline_start. */
    size_t shadow_at, verbatim_at;
} pm_program_builder;

/* A content offset of the writer's, as an offset of the program's statics. */
static size_t static_offset(const pm_program_builder *pb, size_t at) {
    return at && at == pb->shadow_at ? pb->verbatim_at : at;
}

static int raise_status(markup_status st) {
    if (st == MARKUP_OK) return 0;
    return pm_raise_status(st, "@baked");
}

static pm_program_builder *from_ctx(pm_render_ctx *ctx) {
    return (pm_program_builder *)((char *)ctx - offsetof(pm_program_builder, rctx));
}

/* The walker met a stand-in (or a str with a formatting marker). */
static int on_stand_in(pm_render_ctx *ctx, PyObject *value, const char *attr_name,
                       Py_ssize_t attr_name_len, int depth) {
    pm_program_builder *pb = from_ctx(ctx);
    PyObject *name = Py_None;
    if (attr_name) {
        name = PyUnicode_DecodeUTF8(attr_name, attr_name_len, "strict");
        if (!name) return -1;
    } else {
        Py_INCREF(name);
    }
    PyObject *r = PyObject_CallMethod(pb->hooks, "on_stand_in", "OOi", value, name, depth);
    Py_DECREF(name);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

static int on_children(pm_render_ctx *ctx, PyObject *const *items, Py_ssize_t n, int raw,
                       int depth) {
    pm_program_builder *pb = from_ctx(ctx);
    PyObject *tuple = PyTuple_New(n);
    if (!tuple) return -1;
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(tuple, i, Py_NewRef(items[i]));
    PyObject *r = PyObject_CallMethod(pb->hooks, "on_children", "Oii", tuple, raw, depth);
    Py_DECREF(tuple);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

static PyObject *pb_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    Py_ssize_t nparams;
    PyObject *hooks;
    static char *kwlist[] = {"nparams", "hooks", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "nO:_ProgramBuilder", kwlist, &nparams, &hooks))
        return NULL;
    if (nparams < 0) {
        PyErr_SetString(PyExc_ValueError, "_ProgramBuilder: nparams < 0");
        return NULL;
    }
    pm_state *st = pm_state_from_type(type);
    if (!st) return NULL;
    pm_program_builder *pb = (pm_program_builder *)type->tp_alloc(type, 0);
    if (!pb) return NULL;
    pb->hooks = Py_NewRef(hooks);
    markup_buf_init(&pb->buf, &pm_pymem_alloc);
    markup_writer_init(&pb->w, &pb->buf, MARKUP_CONTEXT_HTML);
    markup_writer_skip_name_checks(&pb->w);
    pb->static_ascii = 1;
    pb->rctx = (pm_render_ctx){.st = st,
                               .buf = &pb->buf,
                               .on_stand_in = on_stand_in,
                               .baking = 1,
                               .w = &pb->w,
                               .plain = markup_writer_plain_buf(&pb->w),
                               .on_children = on_children};
    if (raise_status(markup_program_builder_new(&pm_pymem_alloc, (size_t)nparams, &pb->b)) < 0) {
        Py_DECREF(pb);
        return NULL;
    }
    return (PyObject *)pb;
}

static int pb_traverse(PyObject *op, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(((pm_program_builder *)op)->hooks);
    return 0;
}

static int pb_clear(PyObject *op) {
    Py_CLEAR(((pm_program_builder *)op)->hooks);
    return 0;
}

static void pb_dealloc(PyObject *op) {
    pm_program_builder *pb = (pm_program_builder *)op;
    PyTypeObject *type = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    pb_clear(op);
    markup_writer_dispose(&pb->w);
    markup_buf_free(&pb->buf);
    markup_program_builder_free(pb->b);
    type->tp_free(op);
    Py_DECREF(type);
}

static int pb_usable(pm_program_builder *pb) {
    if (pb->b) return 0;
    PyErr_SetString(PyExc_ValueError, "_ProgramBuilder: already finished");
    return -1;
}

/* Hands buf[flushed, end) to the program. */
static int add_static(pm_program_builder *pb, size_t end) {
    const char *s = pb->buf.data + pb->flushed;
    size_t n = end - pb->flushed;
    for (size_t i = 0; i < n && pb->static_ascii; i++)
        pb->static_ascii = (unsigned char)s[i] < 0x80;
    if (raise_status(markup_program_add_static(pb->b, s, n)) < 0) return -1;
    pb->flushed = end;
    return 0;
}

/* Hands what the walker wrote since the last flush to the program, with
   the newline point the writer marked in it (a leading newline in a pre
   after a slot or a branch point). The buffer's offsets are the program's
   static offsets: all of it goes there, in order. */
static int flush(pm_program_builder *pb) {
    if (pb->verbatim) {
        (void)markup_writer_take_newline_mark(&pb->w, NULL);
        pb->buf.len = pb->flushed;
        return 0;
    }
    size_t at = 0;
    size_t content_at = static_offset(pb, markup_writer_take_newline_mark(&pb->w, &at));
    if (content_at && at >= pb->flushed && at <= pb->buf.len &&
        (add_static(pb, at) < 0 ||
         raise_status(markup_program_add_static_newline(pb->b, content_at)) < 0))
        return -1;
    return add_static(pb, pb->buf.len);
}

static PyObject *pb_flush(PyObject *op, PyObject *Py_UNUSED(x)) {
    pm_program_builder *pb = (pm_program_builder *)op;
    if (pb_usable(pb) < 0 || flush(pb) < 0) return NULL;
    Py_RETURN_NONE;
}

/* Where a condition or loop stands among an element's children, the
   start tag's '>' goes out before it, once, not in the first branch. */
static PyObject *pb_content(PyObject *op, PyObject *Py_UNUSED(x)) {
    pm_program_builder *pb = (pm_program_builder *)op;
    if (pb_usable(pb) < 0 || raise_status(markup_writer_flush_tag(&pb->w, NULL)) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *pb_render(PyObject *op, PyObject *args) {
    pm_program_builder *pb = (pm_program_builder *)op;
    PyObject *node;
    int depth;
    if (!PyArg_ParseTuple(args, "Oi:render", &node, &depth) || pb_usable(pb) < 0) return NULL;
    if (depth < 0 || depth > MARKUP_MAX_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "render: depth out of range");
        return NULL;
    }
    /* A child slot's depth also bounds what the walker below it opens. */
    if (pm_render_child(&pb->rctx, node, depth) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *pb_render_attr(PyObject *op, PyObject *args) {
    pm_program_builder *pb = (pm_program_builder *)op;
    PyObject *name, *value;
    if (!PyArg_ParseTuple(args, "UO:render_attr", &name, &value) || pb_usable(pb) < 0) return NULL;
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(name, &n);
    if (!s || pm_render_attr_value(&pb->rctx, s, n, value) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *add_slot(pm_program_builder *pb, const markup_program_slot *slot) {
    if (flush(pb) < 0) return NULL;
    uint32_t index = 0;
    if (raise_status(markup_program_add_slot(pb->b, slot, &index)) < 0) return NULL;
    return PyLong_FromUnsignedLong(index);
}

static int slot_refused(markup_status status, const markup_error *err) {
    if (status == MARKUP_ERR_NOMEM) return raise_status(status);
    PyErr_Format(PyExc_TypeError, "a per-call value cannot stand here: %s", err->msg);
    return -1;
}

static PyObject *pb_child_slot(PyObject *op, PyObject *arg) {
    pm_program_builder *pb = (pm_program_builder *)op;
    if (pb_usable(pb) < 0) return NULL;
    long depth = PyLong_AsLong(arg);
    if (depth == -1 && PyErr_Occurred()) return NULL;
    if (depth < 0 || depth > MARKUP_MAX_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "child_slot: depth out of range");
        return NULL;
    }
    markup_error err = MARKUP_ERROR_INIT;
    markup_status status = markup_writer_check_child_slot(&pb->w, &err);
    if (status != MARKUP_OK) return slot_refused(status, &err), NULL;
    size_t newline_at = markup_writer_newline_start(&pb->w);
    if (newline_at && pb->verbatim) {
        /* The writer's offset is in what it wrote and drops: the value
           comes first when the writer wrote nothing since, and then the
           element's content begins where the template's text now ends. */
        int first = newline_at == pb->buf.len;
        if (flush(pb) < 0) return NULL;
        newline_at = first ? pb->buf.len : 0;
    }
    newline_at = static_offset(pb, newline_at);
    markup_program_slot slot = {
        MARKUP_SLOT_CHILD, markup_writer_context(&pb->w), (unsigned)depth, NULL, 0, false,
        newline_at};
    return add_slot(pb, &slot);
}

static PyObject *pb_attr_slot(PyObject *op, PyObject *arg) {
    pm_program_builder *pb = (pm_program_builder *)op;
    if (pb_usable(pb) < 0) return NULL;
    Py_ssize_t n;
    const char *name = PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, &n) : NULL;
    if (!name) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "attr_slot: name must be a str");
        return NULL;
    }
    markup_error err = MARKUP_ERROR_INIT;
    markup_status status = markup_writer_check_attr_slot(&pb->w, name, (size_t)n, &err);
    if (status != MARKUP_OK) return slot_refused(status, &err), NULL;
    for (Py_ssize_t i = 0; i < n; i++) pb->static_ascii &= (unsigned char)name[i] < 0x80;
    markup_program_slot slot = {
        MARKUP_SLOT_ATTR, markup_writer_start_tag_context(&pb->w), 0, name, (size_t)n, false, 0};
    return add_slot(pb, &slot);
}

/* A formatted string's fields are TEXT slots in the static HTML its
   literal parts make: as a child where text is only escaped, or between
   the quotes of an attribute value (attr_open, attr_text, attr_close). */
static PyObject *pb_text_here(PyObject *op, PyObject *Py_UNUSED(x)) {
    pm_program_builder *pb = (pm_program_builder *)op;
    if (pb_usable(pb) < 0) return NULL;
    markup_error err = MARKUP_ERROR_INIT;
    markup_status status = markup_writer_check_child_slot(&pb->w, &err);
    if (status != MARKUP_OK) return slot_refused(status, &err), NULL;
    /* Not where a newline that begins the text would be dropped (first in
       a pre, listing or textarea): a child slot doubles it there. */
    return PyBool_FromLong(markup_context_is_plain(markup_writer_context(&pb->w)) &&
                           markup_writer_newline_start(&pb->w) == 0);
}

static PyObject *pb_text_slot(PyObject *op, PyObject *Py_UNUSED(x)) {
    pm_program_builder *pb = (pm_program_builder *)op;
    if (pb_usable(pb) < 0) return NULL;
    markup_program_slot slot = {
        MARKUP_SLOT_TEXT, markup_writer_context(&pb->w), 0, NULL, 0, false, 0};
    return add_slot(pb, &slot);
}

static PyObject *pb_attr_open(PyObject *op, PyObject *arg) {
    pm_program_builder *pb = (pm_program_builder *)op;
    if (pb_usable(pb) < 0) return NULL;
    Py_ssize_t n;
    const char *name = PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, &n) : NULL;
    if (!name) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "attr_open: name must be a str");
        return NULL;
    }
    markup_error err = MARKUP_ERROR_INIT;
    markup_status status = markup_writer_check_attr_slot(&pb->w, name, (size_t)n, &err);
    if (status != MARKUP_OK) return slot_refused(status, &err), NULL;
    /* The writer has the start tag open and writes attributes as they
       come: this one's name and opening quote follow what it wrote. */
    if (raise_status(markup_buf_putc(&pb->buf, ' ')) < 0 ||
        raise_status(markup_buf_append(&pb->buf, name, (size_t)n)) < 0 ||
        raise_status(markup_buf_append(&pb->buf, "=\"", 2)) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *pb_attr_text(PyObject *op, PyObject *arg) {
    pm_program_builder *pb = (pm_program_builder *)op;
    if (pb_usable(pb) < 0) return NULL;
    Py_ssize_t n;
    const char *s = PyUnicode_Check(arg) ? pm_utf8(arg, &n, NULL, "@baked") : NULL;
    if (!s) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "attr_text: text must be a str");
        return NULL;
    }
    if (raise_status(markup_escape(&pb->buf, s, (size_t)n)) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *pb_attr_close(PyObject *op, PyObject *Py_UNUSED(x)) {
    pm_program_builder *pb = (pm_program_builder *)op;
    if (pb_usable(pb) < 0 || raise_status(markup_buf_putc(&pb->buf, '"')) < 0) return NULL;
    Py_RETURN_NONE;
}

/* verbatim(on): from now (on) or no longer, the static HTML is only what
   static() adds; what the walker writes is dropped. */
static PyObject *pb_verbatim(PyObject *op, PyObject *arg) {
    pm_program_builder *pb = (pm_program_builder *)op;
    int on = PyObject_IsTrue(arg);
    if (on < 0 || pb_usable(pb) < 0) return NULL;
    size_t shadow_at = pb->verbatim && !on ? markup_writer_newline_start(&pb->w) : 0;
    int first = shadow_at && shadow_at == pb->buf.len; /* nothing written since */
    if (flush(pb) < 0) return NULL;
    if (pb->verbatim && !on) {
        pb->shadow_at = shadow_at;
        pb->verbatim_at = first ? pb->buf.len : 0;
    } else if (on) { /* a new stretch of template text: no value stands at it yet */
        pb->shadow_at = pb->verbatim_at = 0;
    }
    pb->verbatim = on;
    Py_RETURN_NONE;
}

static PyObject *pb_static(PyObject *op, PyObject *arg) {
    pm_program_builder *pb = (pm_program_builder *)op;
    if (pb_usable(pb) < 0) return NULL;
    if (!pb->verbatim) {
        PyErr_SetString(PyExc_ValueError, "static: only in verbatim mode");
        return NULL;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_Check(arg) ? pm_utf8(arg, &n, NULL, "html()") : NULL;
    if (!s) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "static: text must be a str");
        return NULL;
    }
    if (flush(pb) < 0 || raise_status(markup_buf_append(&pb->buf, s, (size_t)n)) < 0 ||
        add_static(pb, pb->buf.len) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *pb_emit(PyObject *op, PyObject *args) {
    pm_program_builder *pb = (pm_program_builder *)op;
    int code;
    unsigned long a, b;
    if (!PyArg_ParseTuple(args, "ikk:emit", &code, &a, &b) || pb_usable(pb) < 0) return NULL;
    if (code <= MARKUP_OP_STATIC || code > MARKUP_OP_APPLY || a > UINT32_MAX || b > UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "emit: instruction out of range");
        return NULL;
    }
    uint32_t at = 0;
    if (raise_status(markup_program_emit(pb->b, (markup_op)code, (uint32_t)a, (uint32_t)b, &at)) <
        0)
        return NULL;
    /* What comes after a condition or a loop's start or end may or may
       not be written, or be written again: the writer must not take the
       order in which the compiler walks it for the order of the output.
       The compiler ends a start tag before a branch among its children
       (content()): one still open means the branch is among attributes. */
    if ((code == MARKUP_OP_IF || code == MARKUP_OP_JUMP || code == MARKUP_OP_LOOP ||
         code == MARKUP_OP_END_LOOP) &&
        !pb->w.in_start_tag) {
        markup_error err = MARKUP_ERROR_INIT;
        markup_status status = markup_writer_branch(&pb->w, &err);
        if (status != MARKUP_OK) { /* a ValueError, as render() refuses the tree */
            const char *msg = err.msg ? err.msg : markup_status_message(status);
            if (markup_writer_depth(&pb->w) == 0)
                return PyErr_SetString(PyExc_ValueError, msg), NULL;
            PyObject *tag = pm_open_tag(&pb->w, "");
            if (tag) PyErr_Format(PyExc_ValueError, "<%U>: %s", tag, msg);
            Py_XDECREF(tag);
            return NULL;
        }
    }
    return PyLong_FromUnsignedLong(at);
}

static PyObject *pb_here(PyObject *op, PyObject *Py_UNUSED(x)) {
    pm_program_builder *pb = (pm_program_builder *)op;
    if (pb_usable(pb) < 0) return NULL;
    return PyLong_FromUnsignedLong(markup_program_here(pb->b));
}

static PyObject *pb_patch(PyObject *op, PyObject *args) {
    pm_program_builder *pb = (pm_program_builder *)op;
    unsigned long at, a;
    if (!PyArg_ParseTuple(args, "kk:patch", &at, &a) || pb_usable(pb) < 0) return NULL;
    if (at > UINT32_MAX || a > UINT32_MAX ||
        raise_status(markup_program_patch(pb->b, (uint32_t)at, (uint32_t)a)) < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "patch: out of range");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef pb_methods[] = {
    {"render", pb_render, METH_VARARGS, "render(node, depth): walk node where the writer stands."},
    {"render_attr", pb_render_attr, METH_VARARGS,
     "render_attr(name, value): write an attribute of the open start tag."},
    {"flush", pb_flush, METH_NOARGS, "Hand the HTML written so far to the program."},
    {"content", pb_content, METH_NOARGS, "End the open start tag: children follow."},
    {"child_slot", pb_child_slot, METH_O, "child_slot(depth) -> slot for a child value here."},
    {"attr_slot", pb_attr_slot, METH_O, "attr_slot(name) -> slot for attribute `name` here."},
    {"text_here", pb_text_here, METH_NOARGS,
     "text_here() -> whether a formatted text's fields may be TEXT slots here."},
    {"text_slot", pb_text_slot, METH_NOARGS, "text_slot() -> slot for a field of a text here."},
    {"attr_open", pb_attr_open, METH_O, "attr_open(name): start attribute `name`'s value."},
    {"attr_text", pb_attr_text, METH_O, "attr_text(text): static text of the open value."},
    {"attr_close", pb_attr_close, METH_NOARGS, "attr_close(): end the open value."},
    {"verbatim", pb_verbatim, METH_O,
     "verbatim(on): static HTML only from static(); the walker's output is dropped."},
    {"static", pb_static, METH_O, "static(text): the template's own text, as it is."},
    {"emit", pb_emit, METH_VARARGS, "emit(op, a, b) -> the instruction's position."},
    {"here", pb_here, METH_NOARGS, "The next instruction's position (a jump target)."},
    {"patch", pb_patch, METH_VARARGS, "patch(at, a): set the target of a jump."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot pb_slots[] = {
    {Py_tp_new, pb_new},     {Py_tp_dealloc, pb_dealloc}, {Py_tp_traverse, pb_traverse},
    {Py_tp_clear, pb_clear}, {Py_tp_methods, pb_methods}, {0, NULL},
};

static PyType_Spec pb_spec = {
    .name = "markup._core._ProgramBuilder",
    .basicsize = sizeof(pm_program_builder),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = pb_slots,
};

markup_program *pm_program_builder_finish(pm_state *st, PyObject *obj, int *static_ascii) {
    if (!PyObject_TypeCheck(obj, st->program_builder_type)) {
        PyErr_SetString(PyExc_TypeError, "expected a _ProgramBuilder");
        return NULL;
    }
    pm_program_builder *pb = (pm_program_builder *)obj;
    if (pb_usable(pb) < 0 || flush(pb) < 0) return NULL;
    markup_program_builder *b = pb->b;
    pb->b = NULL; /* finish consumes it */
    markup_program *prog = NULL;
    markup_error err = MARKUP_ERROR_INIT;
    markup_status status = markup_program_builder_finish(b, &prog, &err);
    if (status == MARKUP_ERR_INVALID_ARG) {
        PyErr_Format(PyExc_SystemError, "@baked compiled a malformed program: %s at %zu", err.msg,
                     err.pos);
        return NULL;
    }
    if (raise_status(status) < 0) return NULL;
    *static_ascii = pb->static_ascii;
    return prog;
}

int pm_compile_init(PyObject *module, pm_state *st) {
    st->program_builder_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &pb_spec, NULL);
    if (!st->program_builder_type) return -1;
    return PyModule_AddType(module, st->program_builder_type);
}
