/*
 * baked_compile.c - _compile: a traced builder's tree made into a baked
 * function. The tree is checked (no bool frozen from a test, no stand-in
 * where the writer cannot take one), then either flattened by the render
 * walker into a markup_baked template (whole parameters only) or, with the
 * program markup/_template/ compiled, given its operations and error paths.
 */
#include "baked_impl.h"

#include <string.h>

#include "dict_fields.h"
#include "loop_iter.h"

typedef struct flatten_ctx {
    pm_render_ctx rctx;
    markup_baked_builder *builder;
    size_t flushed;      /* bytes of the buffer already handed to the builder */
    PyObject *stand_ins; /* tuple: this decoration's stand-ins */
    PyObject *func_name;
    pm_slot *slots; /* grows with the slots */
    size_t nslots, slots_cap;
    Py_ssize_t *uses; /* per parameter: slots it fills */
    int names_ascii;  /* every attribute slot's name is ASCII */
} flatten_ctx;

static int builder_status(markup_status st) {
    if (st == MARKUP_OK) return 0;
    return pm_raise_status(st, "@baked");
}

/* Hands what the walker wrote since the last slot to the builder, with the
   newline point the writer marked in it: text right after a slot in a pre
   (text after other static HTML never comes first). */
static int flush_static(flatten_ctx *f, markup_writer *w, const markup_buf *buf) {
    size_t at = 0;
    size_t content_at = markup_writer_take_newline_mark(w, &at);
    if (content_at && at == f->flushed && f->nslots &&
        builder_status(markup_baked_builder_static_newline(f->builder, content_at)) < 0)
        return -1;
    if (builder_status(markup_baked_builder_add_static(f->builder, buf->data + f->flushed,
                                                       buf->len - f->flushed)) < 0)
        return -1;
    f->flushed = buf->len;
    return 0;
}

/* The walker met a stand-in: what it wrote since the last one is static
   HTML, the stand-in becomes a slot. */
static int flatten_on_stand_in(pm_render_ctx *ctx, PyObject *obj, const char *attr_name,
                               Py_ssize_t attr_name_len, int depth) {
    flatten_ctx *f = (flatten_ctx *)ctx;
    pm_stand_in *stand_in = (pm_stand_in *)obj;
    Py_ssize_t n = PyTuple_GET_SIZE(f->stand_ins);
    if (stand_in->index < 0 || stand_in->index >= n ||
        PyTuple_GET_ITEM(f->stand_ins, stand_in->index) != obj) {
        PyErr_Format(PyExc_TypeError,
                     "@baked %U(): the tree holds the stand-in for parameter '%U' of %U(), "
                     "kept from another decoration; only this function's own parameters can "
                     "be slots",
                     f->func_name, stand_in->name, stand_in->func_name);
        return -1;
    }
    markup_buf *buf = ctx->buf;
    markup_error err = MARKUP_ERROR_INIT;
    markup_status status =
        attr_name ? markup_writer_check_attr_slot(ctx->w, attr_name, (size_t)attr_name_len, &err)
                  : markup_writer_check_child_slot(ctx->w, &err);
    if (status != MARKUP_OK) {
        if (status == MARKUP_ERR_NOMEM) return builder_status(status);
        PyErr_Format(PyExc_TypeError, "@baked %U(): parameter '%U' cannot be a slot here: %s",
                     f->func_name, stand_in->name, err.msg);
        return -1;
    }
    if (flush_static(f, ctx->w, buf) < 0) return -1;
    if (f->nslots == f->slots_cap) {
        size_t cap = f->slots_cap ? f->slots_cap * 2 : 16;
        pm_slot *grown = PyMem_Realloc(f->slots, cap * sizeof *grown);
        if (!grown) {
            PyErr_NoMemory();
            return -1;
        }
        f->slots = grown;
        f->slots_cap = cap;
    }
    markup_status st;
    if (attr_name) {
        for (Py_ssize_t i = 0; i < attr_name_len; i++)
            f->names_ascii &= (unsigned char)attr_name[i] < 0x80;
        st = markup_baked_builder_add_attr_slot(f->builder, attr_name, (size_t)attr_name_len, &err);
    } else {
        st = markup_baked_builder_add_child_slot(f->builder);
        size_t content_at = markup_writer_newline_start(ctx->w);
        if (st == MARKUP_OK && content_at)
            st = markup_baked_builder_slot_newline(f->builder, content_at);
    }
    if (builder_status(st) < 0) return -1;
    /* A value filled in later is written as it would be here. The kind
       and plainness are filled in when the template is finished. */
    f->slots[f->nslots++] = (pm_slot){
        .param = stand_in->index,
        .context =
            attr_name ? markup_writer_start_tag_context(ctx->w) : markup_writer_context(ctx->w),
        .depth = (unsigned short)depth, /* below MARKUP_MAX_DEPTH */
    };
    f->uses[stand_in->index]++;
    return 0;
}

static int is_element(pm_state *st, PyObject *o) { return PyObject_TypeCheck(o, st->element_type); }

/* What a builder may return (alone or in a list or tuple). */
static int is_node(pm_state *st, PyObject *o) {
    return is_element(st, o) || (st->comment_type && PyObject_TypeCheck(o, st->comment_type)) ||
           (st->safestring_type && PyObject_TypeCheck(o, st->safestring_type));
}

/* A True or False in the tree. `frozen` (None when nothing was) says what
   in the traced code could have made it from a per-call value (a test
   such as `x is None`, whose answer would be frozen into the template). */
static int reject_bool(PyObject *func_name, PyObject *elem_tag, PyObject *attr, PyObject *value,
                       PyObject *frozen) {
    const char *what = value == Py_True ? "True" : "False";
    if (attr)
        PyErr_Format(PyExc_TypeError,
                     "@baked %U(): attribute '%U' of <%U> is the constant %s, and %U could "
                     "have made it from a parameter: such a test runs once, when baking, and "
                     "its answer would be frozen into the template. Test the value itself with "
                     "when(...) (when(x == None, ...)), or pass the flag in as a parameter; a "
                     "literal True or False is fine in a builder that makes no such test",
                     func_name, attr, elem_tag, what, frozen);
    else
        PyErr_Format(PyExc_TypeError,
                     "@baked %U(): a child of <%U> is the constant %s: a bool child renders "
                     "nothing useful (render() refuses it too), and a test on a parameter such "
                     "as `x is None` runs once, when baking; make that child a parameter and "
                     "pass the element or None per call, or choose it with when(...)",
                     func_name, elem_tag, what);
    return -1;
}

/* Checks what the walker cannot see: bool constants (children always;
   attribute values where `frozen` says a test in the traced code could
   have made them, not a stand-in method) and slots inside
   <script>/<style>, whose text is raw and checked only when built. */
static int check_tree(pm_state *st, PyObject *func_name, PyObject *node, int depth,
                      PyObject *frozen) {
    if (!is_element(st, node)) return 0;
    if (depth > MARKUP_MAX_DEPTH) {
        PyErr_Format(PyExc_ValueError, "@baked %U(): the tree is nested deeper than %d elements",
                     func_name, MARKUP_MAX_DEPTH);
        return -1;
    }
    pm_element *el = (pm_element *)node;
    for (Py_ssize_t i = 0; i < 2 * el->nattrs; i += 2) {
        PyObject *value = el->items[i + 1];
        if (PyBool_Check(value) && frozen != Py_None)
            return reject_bool(func_name, el->tag, el->items[i], value, frozen);
    }
    int raw = el->kind == MARKUP_TAG_SCRIPT || el->kind == MARKUP_TAG_STYLE;
    PyObject *const *children = pm_element_children(el);
    Py_ssize_t n = pm_element_nchildren(el);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *child = children[i];
        if (PyBool_Check(child)) return reject_bool(func_name, el->tag, NULL, child, frozen);
        if (raw && pm_is_stand_in(st, child)) {
            PyErr_Format(PyExc_TypeError,
                         "@baked %U(): parameter '%U' is a child of <%U>, whose text is raw "
                         "(not escaped) and checked when the element is built, so it cannot "
                         "be a slot. Make the whole <%U> element the parameter: build it per "
                         "call and pass it in",
                         func_name, ((pm_stand_in *)child)->name, el->tag, el->tag);
            return -1;
        }
        if (check_tree(st, func_name, child, depth + 1, frozen) < 0) return -1;
    }
    return 0;
}

/* The builder must return an element, a SafeString, or a list or tuple of
   them. */
static int check_result(pm_state *st, PyObject *func_name, PyObject *result, PyObject *frozen) {
    int ok = is_node(st, result);
    if (!ok && (PyList_CheckExact(result) || PyTuple_CheckExact(result))) {
        ok = 1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(result);
        for (Py_ssize_t i = 0; i < n && ok; i++) {
            PyObject *item = PySequence_Fast_GET_ITEM(result, i);
            ok = is_node(st, item);
            if (!ok) {
                PyErr_Format(PyExc_TypeError,
                             "@baked %U(): the builder returned a %s whose item %zd is a %s; "
                             "return an element, a SafeString, or a list or tuple of them "
                             "(wrap text and parameters in an element, e.g. h.Span(name))",
                             func_name, Py_TYPE(result)->tp_name, i, Py_TYPE(item)->tp_name);
                return -1;
            }
        }
    }
    if (!ok) {
        PyErr_Format(PyExc_TypeError,
                     "@baked %U(): the builder returned %s; return an element, a SafeString, "
                     "or a list or tuple of them (wrap text and parameters in an element, e.g. "
                     "h.Span(name))",
                     func_name,
                     pm_is_stand_in(st, result) ? "a parameter's stand-in"
                                                : Py_TYPE(result)->tp_name);
        return -1;
    }
    if (is_element(st, result)) return check_tree(st, func_name, result, 0, frozen);
    if (PyList_CheckExact(result) || PyTuple_CheckExact(result)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(result);
        for (Py_ssize_t i = 0; i < n; i++)
            if (check_tree(st, func_name, PySequence_Fast_GET_ITEM(result, i), 0, frozen) < 0)
                return -1;
    }
    return 0;
}

/* Serializes the checked tree into a new template and fills self's slot
   table. Returns 0 or -1 with an exception. */
static int flatten(pm_state *st, pm_baked *self, PyObject *tree, PyObject *stand_ins) {
    markup_buf buf;
    markup_buf_init(&buf, &pm_pymem_alloc);
    flatten_ctx f;
    memset(&f, 0, sizeof f);
    f.rctx.st = st;
    f.rctx.buf = &buf;
    f.rctx.on_stand_in = flatten_on_stand_in;
    f.rctx.baking = 1;
    f.stand_ins = stand_ins;
    f.func_name = self->func_name;
    f.names_ascii = 1;
    int rc = -1;

    f.uses = PyMem_Calloc((size_t)(self->nparams ? self->nparams : 1), sizeof *f.uses);
    if (!f.uses) {
        PyErr_NoMemory();
        goto done;
    }
    if (builder_status(markup_baked_builder_new(&pm_pymem_alloc, &f.builder)) < 0) goto done;
    markup_writer w;
    markup_writer_init(&w, &buf, MARKUP_CONTEXT_HTML);
    markup_writer_skip_name_checks(&w);
    f.rctx.w = &w;
    f.rctx.plain = markup_writer_plain_buf(&w);
    int walked = pm_render_child(&f.rctx, tree, 0);
    if (walked == 0) walked = flush_static(&f, &w, &buf);
    markup_writer_dispose(&w);
    if (walked < 0) goto done;

    for (Py_ssize_t i = 0; i < self->nparams; i++) {
        if (f.uses[i]) continue;
        PyErr_Format(PyExc_TypeError,
                     "@baked %U(): parameter '%U' is not used in the returned tree. Every "
                     "parameter must stand as a child or an attribute value; a parameter "
                     "that only steers a test (such as `x is None`) would be decided once, "
                     "when baking. Remove it, or pass the outcome of the test as the "
                     "parameter instead",
                     self->func_name, PyTuple_GET_ITEM(self->params, i));
        goto done;
    }

    self->multi = PyMem_Calloc((size_t)(self->nparams ? self->nparams : 1), 1);
    if (!self->multi) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < self->nparams; i++) {
        self->multi[i] = f.uses[i] > 1;
        self->any_multi |= self->multi[i];
    }

    markup_baked_builder *b = f.builder;
    f.builder = NULL; /* finish consumes it either way */
    if (builder_status(markup_baked_builder_finish(b, &self->tpl, NULL)) < 0) goto done;
    self->slots = f.slots;
    f.slots = NULL;
    self->nslots = markup_baked_slot_count(self->tpl);
    for (size_t i = 0; i < self->nslots; i++) {
        pm_slot *s = &self->slots[i];
        markup_slot_kind kind = MARKUP_SLOT_CHILD;
        (void)markup_baked_slot_kind(self->tpl, i, &kind); /* i < the slot count */
        s->kind = (unsigned char)kind;
        s->plain = (unsigned char)markup_context_is_plain(s->context);
    }
    self->static_ascii = f.names_ascii;
    for (size_t i = 0; i < buf.len; i++) self->static_ascii &= (unsigned char)buf.data[i] < 0x80;
    rc = 0;

done:
    markup_baked_builder_free(f.builder);
    PyMem_Free(f.slots);
    PyMem_Free(f.uses);
    markup_buf_free(&buf);
    return rc;
}

/* Reads the APPLY operations markup/_template/ wrote: tuples of (kind,
   payload, path), and for a field read that forgives a field not there,
   what that gives. */
static int read_ops(pm_baked *self, PyObject *ops) {
    Py_ssize_t n = PyTuple_GET_SIZE(ops);
    self->ops = PyMem_Calloc((size_t)(n ? n : 1), sizeof *self->ops);
    if (!self->ops) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *entry = PyTuple_GET_ITEM(ops, i);
        int kind;
        PyObject *payload, *path, *missing = NULL;
        int formatted = 0;
        if (!PyTuple_Check(entry) || !PyArg_ParseTuple(entry, "iOU|Op:_compile", &kind, &payload,
                                                       &path, &missing, &formatted))
            goto bad;
        if (missing == Py_None) missing = NULL; /* strict, where `formatted` follows */
        if ((missing || formatted) && kind != MARKUP_APPLY_ATTR && kind != MARKUP_APPLY_ITEM)
            goto bad;
        if (!PyUnicode_CheckExact(path)) goto bad; /* formatted into messages */
        pm_op *o = &self->ops[i];
        o->kind = kind;
        if (kind == MARKUP_APPLY_BINARY || kind == MARKUP_APPLY_COMPARE) {
            o->which = (int)PyLong_AsLong(payload);
            if (o->which < 0 || o->which > (kind == MARKUP_APPLY_BINARY ? MARKUP_BINARY_MOD
                                                                        : MARKUP_COMPARE_CONTAINS))
                goto bad;
        } else if (kind == MARKUP_APPLY_FORMAT) {
            PyObject *spec, *conv;
            int use = PM_FORMAT_VALUE;
            if (!PyTuple_Check(payload) || !PyArg_ParseTuple(payload, "UU|i", &spec, &conv, &use) ||
                use < PM_FORMAT_VALUE || use > PM_FORMAT_WRITTEN)
                goto bad;
            o->count = use;
            pm_number_spec_parse(spec, &o->number);
            o->which = PyUnicode_GET_LENGTH(conv) ? (int)PyUnicode_READ_CHAR(conv, 0) : 0;
            if (o->which != 0 && o->which != 's' && o->which != 'r') goto bad;
            payload = spec;
        } else if (kind == MARKUP_APPLY_DICT) {
            if (!PyTuple_Check(payload)) goto bad;
        } else if (kind == MARKUP_APPLY_CALL) {
            PyObject *func, *kwnames;
            if (!PyTuple_Check(payload) ||
                !PyArg_ParseTuple(payload, "OO!", &func, &PyTuple_Type, &kwnames))
                goto bad;
            o->kwnames = PyTuple_GET_SIZE(kwnames) ? Py_NewRef(kwnames) : NULL;
            payload = func;
        } else if (kind == MARKUP_APPLY_UNPACK) {
            Py_ssize_t count, which;
            if (!PyTuple_Check(payload) || !PyArg_ParseTuple(payload, "nn", &count, &which) ||
                count < 1 || which < 0 || which >= count)
                goto bad;
            o->count = count;
            o->which = (int)which;
        } else if (kind < MARKUP_APPLY_CONST || kind > MARKUP_APPLY_UNPACK) {
            goto bad;
        }
        o->at = -1;
        o->dict_item = kind == MARKUP_APPLY_ITEM ||
                       (kind == MARKUP_APPLY_ATTR && PyUnicode_CheckExact(payload) &&
                        !PyObject_HasAttr((PyObject *)&PyDict_Type, payload));
        o->payload = Py_NewRef(payload);
        o->path = Py_NewRef(path);
        o->missing = Py_XNewRef(missing);
        o->formatted = formatted;
        self->nops = i + 1;
    }
    return 0;
bad:
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_compile: malformed operation");
    return -1;
}

/* Every APPLY names an operation that exists and gives it as many values
   as it takes, and every LOOP_INFO asks for a markup_loop_field (the
   program's own checks know nothing of either). */
static int check_applies(pm_baked *self) {
    size_t n = markup_program_length(self->prog);
    for (size_t pc = 0; pc < n; pc++) {
        uint32_t a = 0, b = 0;
        markup_op op = markup_program_op(self->prog, pc, &a, &b);
        if (op == MARKUP_OP_LOOP_INFO && b > PM_LOOP_FIELD_LAST) {
            PyErr_Format(PyExc_ValueError,
                         "_compile: instruction %zu asks for a loop field that does not exist", pc);
            return -1;
        }
        if (op != MARKUP_OP_APPLY) continue;
        int ok = (Py_ssize_t)a < self->nops;
        if (ok) {
            const pm_op *o = &self->ops[a];
            switch (o->kind) {
            case MARKUP_APPLY_CONST: ok = b == 0; break;
            case MARKUP_APPLY_ATTR:
            case MARKUP_APPLY_ITEM:
            case MARKUP_APPLY_UNPACK:
            case MARKUP_APPLY_FORMAT: ok = b == 1; break;
            case MARKUP_APPLY_BINARY:
            case MARKUP_APPLY_COMPARE: ok = b == 2; break;
            case MARKUP_APPLY_SELECT: ok = b == 3; break;
            case MARKUP_APPLY_DICT: ok = (Py_ssize_t)b == PyTuple_GET_SIZE(o->payload); break;
            case MARKUP_APPLY_CALL:
                ok = (Py_ssize_t)b >= (o->kwnames ? PyTuple_GET_SIZE(o->kwnames) : 0);
                break;
            default: ok = 1; /* CONCAT, LIST, TUPLE take any number */
            }
        }
        if (!ok) {
            PyErr_Format(PyExc_ValueError,
                         "_compile: instruction %zu applies an operation "
                         "that does not exist or to the wrong number of values",
                         pc);
            return -1;
        }
    }
    return 0;
}

static PyObject *baked_compile(PyObject *module, PyObject *args) {
    pm_state *st = pm_state_from_module(module);
    PyObject *builder, *params, *defaults, *qualname, *tree, *stand_ins, *program, *ops, *paths;
    PyObject *frozen;
    Py_ssize_t npositional;
    if (!PyArg_ParseTuple(args, "OO!nO!UOO!OO!O!O:_compile", &builder, &PyTuple_Type, &params,
                          &npositional, &PyDict_Type, &defaults, &qualname, &tree, &PyTuple_Type,
                          &stand_ins, &program, &PyTuple_Type, &ops, &PyDict_Type, &paths, &frozen))
        return NULL;
    if (frozen != Py_None && !PyUnicode_Check(frozen)) {
        PyErr_SetString(PyExc_TypeError, "_compile: frozen must be a str or None");
        return NULL;
    }
    {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(paths, &pos, &key, &value)) {
            if (!PyLong_CheckExact(key) || !PyUnicode_CheckExact(value)) {
                PyErr_SetString(PyExc_TypeError, "_compile: paths must map int to str");
                return NULL;
            }
        }
    }
    Py_ssize_t nparams = PyTuple_GET_SIZE(params);
    if (npositional < 0 || npositional > nparams || PyTuple_GET_SIZE(stand_ins) != nparams) {
        PyErr_SetString(PyExc_ValueError, "_compile: npositional or stand_ins out of range");
        return NULL;
    }

    pm_baked *self = pm_baked_alloc(st, qualname, builder, paths, nparams, npositional);
    if (!self) return NULL;
    /* Tracked only once compiled (below): the collector would hand a
       half-built function to gc.get_objects(). */

    self->defaults = PyMem_Calloc((size_t)(nparams ? nparams : 1), sizeof(PyObject *));
    self->params = PyTuple_New(nparams);
    if (!self->defaults || !self->params) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t i = 0; i < nparams; i++) {
        PyObject *name = PyTuple_GET_ITEM(params, i);
        if (!PyUnicode_CheckExact(name)) {
            PyErr_SetString(PyExc_TypeError, "_compile: parameter names must be str");
            goto fail;
        }
        Py_INCREF(name);
        PyUnicode_InternInPlace(&name);
        PyTuple_SET_ITEM(self->params, i, name);
        PyObject *dflt = PyDict_GetItemWithError(defaults, name);
        if (dflt) {
            self->defaults[i] = Py_NewRef(dflt);
        } else if (PyErr_Occurred()) {
            goto fail;
        }
    }
    if (check_result(st, qualname, tree, frozen) < 0) goto fail;
    if (program == Py_None) {
        if (flatten(st, self, tree, stand_ins) < 0) goto fail;
    } else {
        if (read_ops(self, ops) < 0) goto fail;
        self->prog = pm_program_builder_finish(st, program, &self->static_ascii);
        if (!self->prog || check_applies(self) < 0) goto fail;
    }
    PyObject_GC_Track((PyObject *)self);
    return (PyObject *)self;

fail:
    Py_DECREF(self);
    return NULL;
}

PyDoc_STRVAR(compile_doc,
             "_compile(builder, params, npositional, defaults, qualname, tree, stand_ins,\n"
             "         program, ops, paths, frozen)\n--\n\n"
             "Make a baked function (used by markup.baked).\n\n"
             "`params` is a tuple of parameter names; the first `npositional` may be\n"
             "passed positionally, the rest are keyword-only. `defaults` maps names\n"
             "to default values. `tree` is what the builder returned when called with\n"
             "`stand_ins`. With `program` None the tree becomes static HTML and\n"
             "slots; else `program` is the finished _ProgramBuilder, `ops` its\n"
             "operations and `paths` what its instructions compute, for errors.\n"
             "`frozen` is None, or what in the traced code could have made a bool\n"
             "of a per-call value: then a True or False attribute value is refused.");

static PyMethodDef compile_functions[] = {
    {"_compile", baked_compile, METH_VARARGS, compile_doc},
    {NULL, NULL, 0, NULL},
};

int pm_baked_compile_init(PyObject *module) {
    return PyModule_AddFunctions(module, compile_functions);
}
