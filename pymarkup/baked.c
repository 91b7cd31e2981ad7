/*
 * baked.c - the C side of @baked: the stand-ins' base type, the compiled
 * function and its per-call paths.
 *
 * markup/_template/ traces the builder with stand-ins (subclasses of
 * StandIn) and hands the tree here. A tree whose stand-ins are whole
 * parameters only is serialized by the ordinary render walker into a
 * markup_baked template: each parameter it meets closes a static segment
 * and opens a slot, and a call fills the slots (most often in one
 * markup_baked_render, with no callback per slot). A tree with fields,
 * loops, conditions or formatting was compiled by markup/_template/ into a
 * markup_program (compile.c); a call runs it with the data callbacks of
 * baked_data.c. Either way a call runs no Python code of the template and
 * returns one SafeString. baked_compile.c fills the function _compile
 * makes (pm_baked_alloc).
 */
#include "baked_impl.h"

#include <string.h>

#include "structmember.h"

#include "dict_fields.h"

/* ------------------------------------------------------------------------ */
/* Stand-ins                                                                  */
/* ------------------------------------------------------------------------ */

/* The base of every stand-in (markup._template.StandIn, pm_stand_in in
   state.h): a value known only per call while a builder runs. Python
   subclasses give it its behaviour; C needs only to recognise it (element
   construction keeps it, the render walker hands it to
   ctx->on_stand_in) and, for a parameter, its index. */

static void stand_in_dealloc(PyObject *self) {
    pm_stand_in *stand_in = (pm_stand_in *)self;
    PyTypeObject *type = Py_TYPE(self);
    Py_XDECREF(stand_in->name);
    Py_XDECREF(stand_in->func_name);
    type->tp_free(self);
    Py_DECREF(type);
}

static PyObject *stand_in_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *name, *func_name;
    Py_ssize_t index;
    if (kwargs && PyDict_GET_SIZE(kwargs)) {
        PyErr_SetString(PyExc_TypeError, "StandIn() takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "UUn:StandIn", &name, &func_name, &index)) return NULL;
    pm_stand_in *stand_in = (pm_stand_in *)type->tp_alloc(type, 0);
    if (!stand_in) return NULL;
    stand_in->name = Py_NewRef(name);
    stand_in->func_name = Py_NewRef(func_name);
    stand_in->index = index;
    return (PyObject *)stand_in;
}

PyDoc_STRVAR(stand_in_doc, "The base of the stand-ins an @baked builder runs with (internal).");

static PyType_Slot stand_in_slots[] = {
    {Py_tp_dealloc, stand_in_dealloc},
    {Py_tp_new, stand_in_new},
    {Py_tp_doc, (void *)stand_in_doc},
    {0, NULL},
};

static PyType_Spec stand_in_spec = {
    .name = "markup._core.StandIn",
    .basicsize = sizeof(pm_stand_in),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = stand_in_slots,
};

/* ------------------------------------------------------------------------ */
/* The compiled template (baked_impl.h)                                       */
/* ------------------------------------------------------------------------ */

static size_t hint_load(pm_baked *self) {
#ifdef PM_HAVE_ATOMICS
    return atomic_load_explicit(&self->size_hint, memory_order_relaxed);
#else
    return self->size_hint;
#endif
}

static void hint_store(pm_baked *self, size_t n) {
#ifdef PM_HAVE_ATOMICS
    atomic_store_explicit(&self->size_hint, n, memory_order_relaxed);
#else
    self->size_hint = n;
#endif
}

/* Arguments bound to parameters, on the stack for the usual small case. */
#define SMALL_PARAMS 16

/* The output of a call is written to a buffer on the C stack first and
   moves to the heap only when it outgrows it: a small fragment (a table
   row) costs no allocation besides its SafeString. markup_baked_render
   makes room for every short value escaped (5x) at once, so a row of a
   few short values asks for several hundred bytes. */
#define SCRATCH_SIZE 1024
/* The most a call reserves up front from the last output's size (beyond
   it the buffer grows geometrically). Pages of a few hundred KB and more
   are written into one block of their expected size: grown step by step
   from 64 KiB, each step past glibc's mmap threshold took fresh pages,
   faulted in one by one at every call (a 1 MB page: 500 faults, 40% of
   its time). The hint is the last output's size, so a call after a huge
   one reserves that much once, without touching most of it. */
#define MAX_RESERVE  ((size_t)1 << 26)

typedef struct scratch_alloc {
    markup_alloc alc; /* first: its ctx points back here */
    char *mem;
    int taken;
} scratch_alloc;

static void *scratch_malloc(void *ctx, size_t size) {
    scratch_alloc *s = ctx;
    if (!s->taken && size <= SCRATCH_SIZE) {
        s->taken = 1;
        return s->mem;
    }
    return PyMem_Malloc(size);
}

static void *scratch_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    scratch_alloc *s = ctx;
    if (ptr != s->mem) return PyMem_Realloc(ptr, new_size);
    char *grown = PyMem_Malloc(new_size);
    if (grown) memcpy(grown, ptr, old_size < new_size ? old_size : new_size);
    return grown;
}

static void scratch_free(void *ctx, void *ptr, size_t size) {
    (void)size;
    if (ptr != ((scratch_alloc *)ctx)->mem) PyMem_Free(ptr);
}

typedef struct call_ctx {
    pm_render_ctx rctx;
    pm_baked *self;
    PyObject **values;
    size_t failed_slot;
    int stand_in_met; /* a stand-in was met: inline the builder */
} call_ctx;

/* A stand-in met while a call renders (inside a list argument, say) means
   the call happens while another builder is traced: the caller then runs
   this function's builder instead (inline_call), so that it is inlined. */
static int call_on_stand_in(pm_render_ctx *ctx, PyObject *stand_in, const char *attr_name,
                            Py_ssize_t attr_name_len, int depth) {
    (void)stand_in;
    (void)attr_name;
    (void)attr_name_len;
    (void)depth;
    ((call_ctx *)ctx)->stand_in_met = 1;
    PyErr_SetString(PyExc_TypeError, "a stand-in met while rendering");
    return -1;
}

static markup_status write_slot(void *ctx, size_t slot, markup_slot_kind kind, const char *name,
                                size_t name_len, bool newline_first, markup_buf *out) {
    call_ctx *c = ctx;
    (void)out; /* the same buffer as c->rctx.buf */
    const pm_slot *s = &c->self->slots[slot];
    PyObject *value = c->values[s->param];
    if (kind != MARKUP_SLOT_ATTR && PyDict_Check(value)) {
        /* In the plain tree a leading dict is the element's attributes;
           here the parameter was baked as a child. */
        PyErr_SetString(PyExc_TypeError,
                        "a dict cannot fill a child slot: the parameter stands where a child "
                        "goes, and a baked element's attributes are fixed when it is baked; "
                        "give each attribute value a parameter of its own, as in "
                        "h.P({\"class\": cls}, text)");
        c->failed_slot = slot;
        return MARKUP_ERR_SLOT_VALUE;
    }
    int rc;
    if (kind == MARKUP_SLOT_ATTR) {
        c->rctx.w = NULL; /* inside the template's start tag */
        c->rctx.plain = NULL;
        c->rctx.attrs = c->rctx.buf;
        c->rctx.attrs_at = s->context;
        rc = pm_render_attr_value(&c->rctx, name, (Py_ssize_t)name_len, value);
    } else {
        /* A child slot's value is written where the slot stands (inside
           <svg>, say, a <style> element's text is escaped), at the depth of
           the slot's place, so MAX_DEPTH counts the template's levels too,
           as in the plain tree. */
        markup_writer w;
        markup_writer_init(&w, c->rctx.buf,
                           newline_first ? markup_context_newline_first(s->context) : s->context);
        markup_writer_skip_name_checks(&w);
        c->rctx.w = &w;
        c->rctx.plain = markup_writer_plain_buf(&w);
        c->rctx.attrs = NULL;
        rc = pm_render_child(&c->rctx, value, s->depth);
        markup_writer_dispose(&w);
    }
    if (rc == 0) return MARKUP_OK;
    c->failed_slot = slot;
    return MARKUP_ERR_SLOT_VALUE;
}

/* Prefixes a TypeError/ValueError raised while writing a slot with the
   function and the argument, keeping the original as the cause. */
static void name_failed_argument(pm_baked *self, size_t slot) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    /* Only the exact types: a subclass may need other constructor
       arguments (UnicodeEncodeError takes five). */
    if (type != PyExc_TypeError && type != PyExc_ValueError) {
        PyErr_Restore(type, value, tb);
        return;
    }
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb) PyException_SetTraceback(value, tb);
    PyObject *param = PyTuple_GET_ITEM(self->params, self->slots[slot].param);
    PyErr_Format(type, "%U() argument '%U': %S", self->func_name, param, value);
    PyObject *type2, *value2, *tb2;
    PyErr_Fetch(&type2, &value2, &tb2);
    PyErr_NormalizeException(&type2, &value2, &tb2);
    PyException_SetCause(value2, value); /* steals value */
    Py_DECREF(type);
    Py_XDECREF(tb);
    PyErr_Restore(type2, value2, tb2);
}

static void raise_missing(pm_baked *self, PyObject **values, Py_ssize_t from, Py_ssize_t to,
                          const char *kind) {
    /* Python's own wording: "f() missing 2 required positional arguments:
       'a' and 'b'". */
    PyObject *names = PyList_New(0);
    if (!names) return;
    for (Py_ssize_t i = from; i < to; i++) {
        if (values[i]) continue;
        PyObject *quoted = PyUnicode_FromFormat("'%U'", PyTuple_GET_ITEM(self->params, i));
        if (!quoted || PyList_Append(names, quoted) < 0) {
            Py_XDECREF(quoted);
            Py_DECREF(names);
            return;
        }
        Py_DECREF(quoted);
    }
    Py_ssize_t n = PyList_GET_SIZE(names);
    PyObject *joined = NULL;
    if (n == 1) {
        joined = Py_NewRef(PyList_GET_ITEM(names, 0));
    } else {
        PyObject *head = PyList_GetSlice(names, 0, n - 1);
        PyObject *sep = PyUnicode_FromString(n == 2 ? "" : ", ");
        PyObject *first = head && sep ? PyUnicode_Join(sep, head) : NULL;
        if (first)
            joined = PyUnicode_FromFormat(n == 2 ? "%U and %U" : "%U, and %U", first,
                                          PyList_GET_ITEM(names, n - 1));
        Py_XDECREF(head);
        Py_XDECREF(sep);
        Py_XDECREF(first);
    }
    if (joined)
        PyErr_Format(PyExc_TypeError, "%U() missing %zd required %s argument%s: %U",
                     self->func_name, n, kind, n == 1 ? "" : "s", joined);
    Py_XDECREF(joined);
    Py_DECREF(names);
}

/* Python's wording, including the keyword-only arguments that came along:
   "f() takes 1 positional argument but 2 positional arguments (and 1
   keyword-only argument) were given". */
static void raise_too_many(pm_baked *self, Py_ssize_t given, PyObject *const *values) {
    Py_ssize_t most = self->npositional, least = 0, kwonly = 0;
    while (least < most && !self->defaults[least]) least++;
    for (Py_ssize_t i = self->npositional; i < self->nparams; i++) kwonly += values[i] != NULL;
    PyObject *takes =
        least == most
            ? PyUnicode_FromFormat("%zd positional argument%s", most, most == 1 ? "" : "s")
            : PyUnicode_FromFormat("from %zd to %zd positional arguments", least, most);
    PyObject *extra =
        kwonly ? PyUnicode_FromFormat(" positional argument%s (and %zd "
                                      "keyword-only argument%s)",
                                      given == 1 ? "" : "s", kwonly, kwonly == 1 ? "" : "s")
               : PyUnicode_FromString("");
    if (takes && extra)
        PyErr_Format(PyExc_TypeError, "%U() takes %U but %zd%U %s given", self->func_name, takes,
                     given, extra, given == 1 && !kwonly ? "was" : "were");
    Py_XDECREF(takes);
    Py_XDECREF(extra);
}

static Py_ssize_t find_param(pm_baked *self, PyObject *kw) {
    PyObject *const *names = &PyTuple_GET_ITEM(self->params, 0);
    /* Keyword names from call sites are interned, as are ours: compare
       pointers first, strings only for names built at run time. */
    for (Py_ssize_t i = 0; i < self->nparams; i++)
        if (names[i] == kw) return i;
    for (Py_ssize_t i = 0; i < self->nparams; i++)
        if (PyUnicode_Compare(names[i], kw) == 0) return i;
    if (PyErr_Occurred()) PyErr_Clear();
    return -1;
}

/* Fills values[0..nparams) from the call; every entry is a borrowed
   reference. defaulted[i] tells whether values[i] is the default (the
   call did not give it). Returns 0 or -1 with the TypeError Python would
   raise. */
static int bind_arguments(pm_baked *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames, PyObject **values, unsigned char *defaulted) {
    Py_ssize_t npos = nargs < self->npositional ? nargs : self->npositional;
    for (Py_ssize_t i = 0; i < self->nparams; i++) values[i] = i < npos ? args[i] : NULL;

    if (kwnames) {
        Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
        for (Py_ssize_t k = 0; k < nkw; k++) {
            PyObject *kw = PyTuple_GET_ITEM(kwnames, k);
            Py_ssize_t i = find_param(self, kw);
            if (i < 0) {
                PyErr_Format(PyExc_TypeError, "%U() got an unexpected keyword argument '%S'",
                             self->func_name, kw);
                return -1;
            }
            if (values[i]) {
                PyErr_Format(PyExc_TypeError, "%U() got multiple values for argument '%S'",
                             self->func_name, kw);
                return -1;
            }
            values[i] = args[nargs + k];
        }
    }
    if (nargs > self->npositional) {
        raise_too_many(self, nargs, values);
        return -1;
    }
    int missing_pos = 0, missing_kw = 0;
    for (Py_ssize_t i = 0; i < self->nparams; i++) {
        defaulted[i] = values[i] == NULL;
        if (values[i]) continue;
        if (self->defaults[i]) {
            values[i] = self->defaults[i];
        } else if (i < self->npositional) {
            missing_pos = 1;
        } else {
            missing_kw = 1;
        }
    }
    if (missing_pos) {
        raise_missing(self, values, 0, self->npositional, "positional");
        return -1;
    }
    if (missing_kw) {
        raise_missing(self, values, self->npositional, self->nparams, "keyword-only");
        return -1;
    }
    return 0;
}

/* The slot values of a usual call are all strings, numbers, SafeStrings,
   None or booleans in attributes: those become markup_values and the whole
   call is one markup_baked_render, with no callback per slot. */
#define FAST_SLOTS 16

typedef struct fast_values {
    markup_value v[FAST_SLOTS];
    char digits[FAST_SLOTS][PM_NUMBER_MAX];
} fast_values;

/* Converts `value` for a slot of `kind` in HTML content; 0 when the value
   needs the general path (lists, elements, __html__ objects, surrogates,
   errors to raise), which then renders the whole call. Clears *ascii when
   the value's text may not be ASCII. */
static int fast_value(pm_state *st, PyObject *value, markup_slot_kind kind, int plain,
                      markup_value *out, char digits[PM_NUMBER_MAX], int *ascii) {
    PyTypeObject *type = Py_TYPE(value);
    if (type == &PyUnicode_Type || (type == st->safestring_type && plain)) {
        Py_ssize_t n;
        const char *s = pm_ascii_chars(value, &n);
        if (s == NULL) {
            *ascii = 0;
            s = PyUnicode_AsUTF8AndSize(value, &n);
            if (s == NULL) { /* a lone surrogate: the general path names the argument */
                PyErr_Clear();
                return 0;
            }
        }
        *out = (markup_value){type == &PyUnicode_Type ? MARKUP_VALUE_TEXT : MARKUP_VALUE_HTML, s,
                              (size_t)n};
        return 1;
    }
    if (type == &PyLong_Type || type == &PyFloat_Type) {
        Py_ssize_t n = pm_format_number(value, digits);
        if (n <= 0) {
            PyErr_Clear();
            return 0;
        }
        *out = (markup_value){MARKUP_VALUE_HTML, digits, (size_t)n};
        return 1;
    }
    if (value == Py_None) {
        *out = (markup_value){MARKUP_VALUE_OMIT, NULL, 0};
        return 1;
    }
    if (kind == MARKUP_SLOT_ATTR && (value == Py_True || value == Py_False)) {
        *out = (markup_value){value == Py_True ? MARKUP_VALUE_TRUE : MARKUP_VALUE_OMIT, NULL, 0};
        return 1;
    }
    return 0;
}

/* Renders the call with markup_baked_render when every value converts;
   returns MARKUP_OK, MARKUP_ERR_SLOT_VALUE when some value needs the
   general path (nothing written), or another status. *ascii tells whether
   the output is known to be ASCII. */
static markup_status render_fast(pm_baked *self, PyObject **values, markup_buf *buf, int *ascii) {
    fast_values fv;
    *ascii = self->static_ascii;
    for (size_t i = 0; i < self->nslots; i++) {
        const pm_slot *s = &self->slots[i];
        if (!fast_value(self->st, values[s->param], (markup_slot_kind)s->kind, s->plain, &fv.v[i],
                        fv.digits[i], ascii))
            return MARKUP_ERR_SLOT_VALUE;
    }
    return markup_baked_render(self->tpl, fv.v, self->nslots, buf, NULL);
}

/* Prefixes the exception of a failed run with the function and what was
   being computed ("orders_page(): orders[3]['total']: 'total'"), keeping
   its type (for the usual exact built-in types) and the original as the
   cause. */
static void name_failed_path(pm_baked *self, const markup_program_fault *fault) {
    uint32_t a = 0, b = 0;
    PyObject *template = NULL;
    if (fault->pc < markup_program_length(self->prog) &&
        markup_program_op(self->prog, fault->pc, &a, &b) == MARKUP_OP_APPLY && a < self->nops)
        template = self->ops[a].path;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (!template || PyUnicode_GET_LENGTH(template) == 0) {
        PyObject *key = PyLong_FromUnsignedLong(fault->pc);
        template = key ? PyDict_GetItem(self->paths, key) : NULL;
        Py_XDECREF(key);
    }
    if (!template || !(type == PyExc_TypeError || type == PyExc_ValueError ||
                       type == PyExc_KeyError || type == PyExc_AttributeError ||
                       type == PyExc_IndexError || type == PyExc_ZeroDivisionError)) {
        PyErr_Restore(type, value, tb);
        return;
    }
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb) PyException_SetTraceback(value, tb);
    PyObject *indices = PyTuple_New(fault->nloops);
    for (unsigned i = 0; indices && i < fault->nloops; i++) {
        PyObject *n = PyLong_FromSize_t(fault->index[i]);
        if (!n)
            Py_CLEAR(indices);
        else
            PyTuple_SET_ITEM(indices, i, n);
    }
    PyObject *format = indices ? PyObject_GetAttrString(template, "format") : NULL;
    PyObject *path = format ? PyObject_Call(format, indices, NULL) : NULL;
    Py_XDECREF(format);
    Py_XDECREF(indices);
    if (!path) {
        PyErr_Clear();
        PyErr_Restore(type, value, tb);
        return;
    }
    PyErr_Format(type, "%U(): %U: %S", self->func_name, path, value);
    Py_DECREF(path);
    PyObject *type2, *value2, *tb2;
    PyErr_Fetch(&type2, &value2, &tb2);
    PyErr_NormalizeException(&type2, &value2, &tb2);
    PyException_SetCause(value2, value); /* steals value */
    Py_DECREF(type);
    Py_XDECREF(tb);
    PyErr_Restore(type2, value2, tb2);
}

/* Called with stand-ins while another builder is traced: this function's
   builder runs with them, so its tree is inlined into the caller's. It is
   given only the arguments the call gave (by keyword), so that it can
   tell a default, a constant of this function, from a value the caller
   computed (defaulted: NULL when the call gave every one). */
static PyObject *inline_call(pm_baked *self, PyObject **values, const unsigned char *defaulted) {
    if (!defaulted)
        return PyObject_Vectorcall(self->builder, values, 0, self->nparams ? self->params : NULL);
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < self->nparams; i++) n += !defaulted[i];
    PyObject **given = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *given);
    PyObject *names = PyTuple_New(n);
    PyObject *result = NULL;
    if (!given || !names) {
        if (!given) PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0, k = 0; i < self->nparams; i++) {
        if (defaulted[i]) continue;
        given[k] = values[i];
        PyTuple_SET_ITEM(names, k, Py_NewRef(PyTuple_GET_ITEM(self->params, i)));
        k++;
    }
    result = PyObject_Vectorcall(self->builder, given, 0, n ? names : NULL);
done:
    Py_XDECREF(names);
    PyMem_Free(given);
    return result;
}

static int any_stand_in(pm_baked *self, PyObject **values) {
    for (Py_ssize_t i = 0; i < self->nparams; i++)
        if (pm_is_stand_in(self->st, values[i])) return 1;
    return 0;
}

static PyObject *call_program(pm_baked *self, PyObject **values, const unsigned char *defaulted) {
    if (any_stand_in(self, values)) return inline_call(self, values, defaulted);
    /* A field (a property) can call this function again, without end. */
    if (pm_stack_check("in a @baked function") < 0) return NULL;
    char scratch[SCRATCH_SIZE];
    scratch_alloc alc = {{scratch_malloc, scratch_realloc, scratch_free, NULL}, scratch, 1};
    alc.alc.ctx = &alc;
    markup_buf buf = {scratch, 0, SCRATCH_SIZE, &alc.alc};
    size_t hint = hint_load(self);
    if (hint > SCRATCH_SIZE) {
        /* A page: written where its SafeString can keep it, when it can,
           rather than copied there at the end. */
        const markup_alloc *in_place = pm_safestring_storage(self->st);
        if (in_place) markup_buf_init(&buf, in_place);
        hint += hint / 8;
        (void)markup_buf_reserve(&buf, hint < MAX_RESERVE ? hint : MAX_RESERVE);
    }
    program_call c = {{.st = self->st, .buf = &buf, .on_stand_in = pm_program_on_stand_in},
                      self,
                      self->static_ascii,
                      0,
                      PM_HINT_SCANS};
    markup_program_fault fault;
    PyObject *result = NULL;
    markup_status st = markup_program_run(self->prog, &pm_program_data, &c, (void *const *)values,
                                          (size_t)self->nparams, &buf, &fault);
    if (st == MARKUP_OK) {
        hint_store(self, buf.len);
        result = c.ascii ? pm_safestring_from_ascii_buf(self->st, &buf)
                         : pm_safestring_from_utf8(self->st, buf.data, (Py_ssize_t)buf.len);
    } else if (c.stand_in_met) {
        PyErr_Clear();
        result = inline_call(self, values, defaulted);
    } else if (PyErr_Occurred()) {
        /* A fused step's failure is reported at its APPLY: when its WRITE
           or IF failed, that one is named (it may name the value more
           closely, as an item unpacked from a row). */
        if (c.failed_after) fault.pc += 1;
        name_failed_path(self, &fault);
    } else {
        pm_raise_status(st, "baked function");
    }
    markup_buf_free(&buf);
    return result;
}

static PyObject *baked_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf,
                                  PyObject *kwnames) {
    pm_baked *self = (pm_baked *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *small[SMALL_PARAMS];
    PyObject **values = small;
    PyObject *result = NULL;
    Py_ssize_t materialized = 0; /* values[0..materialized) may own a list */
    PyObject *owned[SMALL_PARAMS];
    PyObject **owned_lists = owned;
    unsigned char defaulted_small[SMALL_PARAMS];
    unsigned char *defaulted = NULL; /* NULL: the call gave every value */
    PyObject **allocated = NULL;

    if (kwnames == NULL && nargs == self->nparams && self->npositional == self->nparams &&
        !self->any_multi) {
        /* The usual call, one positional argument per parameter: the
           arguments are the values (read only from here on). */
        values = (PyObject **)args;
    } else {
        if (self->nparams > SMALL_PARAMS) {
            /* values, owned lists, then the defaulted flags */
            values = allocated = PyMem_Calloc((size_t)self->nparams * 3, sizeof *values);
            if (!values) return PyErr_NoMemory();
            owned_lists = values + self->nparams;
        }
        defaulted = self->nparams > SMALL_PARAMS ? (unsigned char *)(values + 2 * self->nparams)
                                                 : defaulted_small;
        if (bind_arguments(self, args, nargs, kwnames, values, defaulted) < 0) goto done;
    }
    if (self->prog) {
        result = call_program(self, values, defaulted);
        goto done;
    }

    /* A parameter that fills several slots is read several times: an
       iterator would be exhausted by the first, so it is listed once. */
    for (Py_ssize_t i = 0; self->any_multi && i < self->nparams; i++) {
        owned_lists[i] = NULL;
        materialized = i + 1;
        PyObject *v = values[i];
        if (self->multi[i] && PyIter_Check(v)) {
            /* An iterator with __html__ is written as its HTML, not listed. */
            PyObject *method;
            int has_html = pm_lookup_html(self->st, v, &method);
            if (has_html < 0) goto done;
            Py_XDECREF(method);
            if (has_html) continue;
            /* Runs the iterator's code, which may call this function again. */
            if (pm_stack_check("in a @baked function") < 0) goto done;
            owned_lists[i] = PySequence_List(v);
            if (!owned_lists[i]) goto done;
            values[i] = owned_lists[i];
        }
    }

    /* The scratch buffer on the C stack is the output's first storage. */
    char scratch[SCRATCH_SIZE];
    scratch_alloc alc = {{scratch_malloc, scratch_realloc, scratch_free, NULL}, scratch, 1};
    alc.alc.ctx = &alc;
    markup_buf buf = {scratch, 0, SCRATCH_SIZE, &alc.alc};
    size_t hint = hint_load(self);
    if (hint > SCRATCH_SIZE) {
        hint += hint / 8;
        /* Only a hint: when it cannot be had, the buffer grows as needed. */
        (void)markup_buf_reserve(&buf, hint < MAX_RESERVE ? hint : MAX_RESERVE);
    }
    markup_status st = MARKUP_ERR_SLOT_VALUE;
    int ascii = 0;
    if (self->nslots <= FAST_SLOTS) st = render_fast(self, values, &buf, &ascii);
    call_ctx c = {
        {.st = self->st, .buf = &buf, .on_stand_in = call_on_stand_in}, self, values, 0, 0};
    if (st == MARKUP_ERR_SLOT_VALUE && any_stand_in(self, values)) {
        result = inline_call(self, values, defaulted);
        markup_buf_free(&buf);
        goto done;
    }
    if (st == MARKUP_ERR_SLOT_VALUE) {
        ascii = 0;
        st = markup_baked_render_slots(self->tpl, write_slot, &c, &buf);
    }
    if (st == MARKUP_OK) {
        hint_store(self, buf.len);
        result = ascii ? pm_safestring_from_ascii(self->st, buf.data, (Py_ssize_t)buf.len)
                       : pm_safestring_from_utf8(self->st, buf.data, (Py_ssize_t)buf.len);
    } else if (c.stand_in_met) {
        PyErr_Clear();
        result = inline_call(self, values, defaulted);
    } else if (PyErr_Occurred()) {
        name_failed_argument(self, c.failed_slot);
    } else {
        pm_raise_status(st, "baked function");
    }
    markup_buf_free(&buf);

done:
    for (Py_ssize_t i = 0; i < materialized; i++) Py_XDECREF(owned_lists[i]);
    PyMem_Free(allocated);
    return result;
}

pm_baked *pm_baked_alloc(pm_state *st, PyObject *qualname, PyObject *builder, PyObject *paths,
                         Py_ssize_t nparams, Py_ssize_t npositional) {
    pm_baked *self = PyObject_GC_New(pm_baked, st->baked_type);
    if (!self) return NULL;
    self->vectorcall = baked_vectorcall;
    self->dict = NULL;
    self->weakreflist = NULL;
    self->st = st;
    self->tpl = NULL;
    self->func_name = Py_NewRef(qualname);
    self->params = NULL;
    self->defaults = NULL;
    self->nparams = nparams;
    self->npositional = npositional;
    self->slots = NULL;
    self->multi = NULL;
    self->any_multi = 0;
    self->nslots = 0;
    self->builder = Py_NewRef(builder);
    self->prog = NULL;
    self->ops = NULL;
    self->nops = 0;
    self->paths = Py_NewRef(paths);
    self->static_ascii = 0;
    hint_store(self, 0);
    return self;
}

static int baked_traverse(PyObject *op, visitproc visit, void *arg) {
    pm_baked *self = (pm_baked *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->dict);
    Py_VISIT(self->func_name);
    Py_VISIT(self->params);
    if (self->defaults)
        for (Py_ssize_t i = 0; i < self->nparams; i++) Py_VISIT(self->defaults[i]);
    Py_VISIT(self->builder);
    Py_VISIT(self->paths);
    for (Py_ssize_t i = 0; i < self->nops; i++) {
        Py_VISIT(self->ops[i].payload);
        Py_VISIT(self->ops[i].path);
        Py_VISIT(self->ops[i].kwnames);
        Py_VISIT(self->ops[i].missing);
    }
    return 0;
}

static int baked_clear(PyObject *op) {
    pm_baked *self = (pm_baked *)op;
    Py_CLEAR(self->dict);
    if (self->defaults)
        for (Py_ssize_t i = 0; i < self->nparams; i++) Py_CLEAR(self->defaults[i]);
    Py_CLEAR(self->builder);
    Py_CLEAR(self->paths);
    for (Py_ssize_t i = 0; i < self->nops; i++) {
        Py_CLEAR(self->ops[i].payload);
        Py_CLEAR(self->ops[i].path);
        Py_CLEAR(self->ops[i].kwnames);
        Py_CLEAR(self->ops[i].missing);
    }
    return 0;
}

static void baked_dealloc(PyObject *op) {
    pm_baked *self = (pm_baked *)op;
    PyTypeObject *type = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    if (self->weakreflist) PyObject_ClearWeakRefs(op);
    baked_clear(op);
    Py_CLEAR(self->func_name);
    Py_CLEAR(self->params);
    PyMem_Free(self->defaults);
    PyMem_Free(self->slots);
    PyMem_Free(self->multi);
    markup_baked_free(self->tpl);
    markup_program_free(self->prog);
    PyMem_Free(self->ops);
    type->tp_free(op);
    Py_DECREF(type);
}

static PyObject *baked_repr(PyObject *op) {
    return PyUnicode_FromFormat("<baked function %U>", ((pm_baked *)op)->func_name);
}

static PyObject *baked_get_slot_count(PyObject *op, void *closure) {
    (void)closure;
    pm_baked *self = (pm_baked *)op;
    return PyLong_FromSize_t(self->prog ? markup_program_slot_count(self->prog)
                                        : markup_baked_slot_count(self->tpl));
}

static PyObject *baked_get_static_size(PyObject *op, void *closure) {
    (void)closure;
    pm_baked *self = (pm_baked *)op;
    return PyLong_FromSize_t(self->prog ? markup_program_static_size(self->prog)
                                        : markup_baked_static_size(self->tpl));
}

/* Pickled by reference, like a function: the name under which the module
   holds it. */
static PyObject *baked_reduce(PyObject *op, PyObject *Py_UNUSED(ignored)) {
    return PyObject_GetAttrString(op, "__qualname__");
}

static PyMethodDef baked_methods[] = {
    {"__reduce__", baked_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef baked_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {"slot_count", baked_get_slot_count, NULL, "Number of slots in the compiled template.", NULL},
    {"static_size", baked_get_static_size, NULL, "Bytes of static HTML in the compiled template.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef baked_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(pm_baked, dict), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(pm_baked, weakreflist), READONLY, NULL},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(pm_baked, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

PyDoc_STRVAR(baked_doc, "A function compiled by @baked: static HTML plus slots filled per call.");

static PyType_Slot baked_slots[] = {
    {Py_tp_dealloc, baked_dealloc},  {Py_tp_traverse, baked_traverse},
    {Py_tp_clear, baked_clear},      {Py_tp_repr, baked_repr},
    {Py_tp_call, PyVectorcall_Call}, {Py_tp_getset, baked_getset},
    {Py_tp_methods, baked_methods},  {Py_tp_members, baked_members},
    {Py_tp_doc, (void *)baked_doc},  {0, NULL},
};

static PyType_Spec baked_spec = {
    .name = "markup._core.BakedFunction",
    .basicsize = sizeof(pm_baked),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
             | Py_TPFLAGS_DISALLOW_INSTANTIATION
#endif
#ifdef Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_IMMUTABLETYPE
#endif
    ,
    .slots = baked_slots,
};

PyDoc_STRVAR(dict_entries_doc,
             "_dict_entries_direct()\n--\n\n"
             "Whether dict fields are read from CPython's layout of a dict's entries\n"
             "(True on CPython 3.11 to 3.15 with a GIL), for the tests.");

static PyObject *py_dict_entries_direct(PyObject *module, PyObject *Py_UNUSED(ignored)) {
    (void)module;
#if PM_DICT_ENTRIES
    return PyBool_FromLong(dict_entries_direct());
#else
    Py_RETURN_FALSE;
#endif
}

static PyMethodDef baked_functions[] = {
    {"_dict_entries_direct", py_dict_entries_direct, METH_NOARGS, dict_entries_doc},
    {NULL, NULL, 0, NULL},
};

int pm_baked_init(PyObject *module, pm_state *st) {
    st->stand_in_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &stand_in_spec, NULL);
    if (!st->stand_in_type) return -1;
    st->baked_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &baked_spec, NULL);
    if (!st->baked_type) return -1;
#ifndef Py_TPFLAGS_DISALLOW_INSTANTIATION
    /* Python 3.9: no flag yet, so drop the constructor inherited from object. */
    st->baked_type->tp_new = NULL;
#endif
    if (PyModule_AddType(module, st->stand_in_type) < 0) return -1;
    if (PyModule_AddType(module, st->baked_type) < 0) return -1;
#if PM_DICT_ENTRIES
    if (pm_dict_entries_check() < 0) return -1;
#endif
    return PyModule_AddFunctions(module, baked_functions);
}
