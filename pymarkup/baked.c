/*
 * baked.c - the C side of @baked: the stand-ins' base type, the compiled
 * function and its per-call paths.
 *
 * markup/_template.py traces the builder with stand-ins (subclasses of
 * StandIn) and hands the tree here. A tree whose stand-ins are whole
 * parameters only is serialized by the ordinary render walker into a
 * markup_baked template: each parameter it meets closes a static segment
 * and opens a slot, and a call fills the slots (most often in one
 * markup_baked_render, with no callback per slot). A tree with fields,
 * loops, conditions or formatting was compiled by _template.py into a
 * markup_program (compile.c); a call runs it with the data callbacks
 * below. Either way a call runs no Python code of the template and returns
 * one SafeString.
 */
#include "state.h"

#include <string.h>

#include "structmember.h"

#include "dict_fields.h"
#include "loop_iter.h"
#include "number_format.h"

/* ------------------------------------------------------------------------ */
/* Stand-ins                                                                  */
/* ------------------------------------------------------------------------ */

/* The base of every stand-in (markup._template.Stand, pm_placeholder in
   state.h): a value known only per call while a builder runs. Python
   subclasses give it its behaviour; C needs only to recognise it (element
   construction keeps it, the render walker hands it to
   ctx->on_placeholder) and, for a parameter, its index. */

static void ph_dealloc(PyObject *self) {
    pm_placeholder *ph = (pm_placeholder *)self;
    PyTypeObject *type = Py_TYPE(self);
    Py_XDECREF(ph->name);
    Py_XDECREF(ph->func_name);
    type->tp_free(self);
    Py_DECREF(type);
}

static PyObject *ph_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *name, *func_name;
    Py_ssize_t index;
    if (kwargs && PyDict_GET_SIZE(kwargs)) {
        PyErr_SetString(PyExc_TypeError, "StandIn() takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "UUn:StandIn", &name, &func_name, &index)) return NULL;
    pm_placeholder *ph = (pm_placeholder *)type->tp_alloc(type, 0);
    if (!ph) return NULL;
    ph->name = Py_NewRef(name);
    ph->func_name = Py_NewRef(func_name);
    ph->index = index;
    return (PyObject *)ph;
}

PyDoc_STRVAR(ph_doc, "The base of the stand-ins an @baked builder runs with (internal).");

static PyType_Slot ph_slots[] = {
    {Py_tp_dealloc, ph_dealloc},
    {Py_tp_new, ph_new},
    {Py_tp_doc, (void *)ph_doc},
    {0, NULL},
};

static PyType_Spec ph_spec = {
    .name = "markup._core.StandIn",
    .basicsize = sizeof(pm_placeholder),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = ph_slots,
};

/* ------------------------------------------------------------------------ */
/* The compiled template                                                      */
/* ------------------------------------------------------------------------ */

/* One slot of a baked function's template. */
typedef struct pm_slot {
    Py_ssize_t param;       /* the parameter that fills it */
    markup_context context; /* where it stands (an attribute slot: where its
                               start tag stands): a value there is written
                               as it would be in the tree */
    unsigned short depth;   /* the depth a child value there renders at */
    unsigned char kind;     /* MARKUP_SLOT_* */
    unsigned char plain;    /* takes trusted HTML unchecked (no text element
                               around; text is escaped in every slot) */
} pm_slot;

/* A comparison's operator goes to PyObject_RichCompare as it is. */
_Static_assert(MARKUP_COMPARE_LT == Py_LT && MARKUP_COMPARE_LE == Py_LE &&
                   MARKUP_COMPARE_EQ == Py_EQ && MARKUP_COMPARE_NE == Py_NE &&
                   MARKUP_COMPARE_GT == Py_GT && MARKUP_COMPARE_GE == Py_GE,
               "markup_compare_op is numbered as Py_LT ... Py_GE");

/* One APPLY operation of a template program (markup/_template.py writes
   them as tuples (kind, payload, path); the kinds and operators are
   binding.h's markup_apply_kind, markup_binary_op and markup_compare_op). */
typedef struct pm_op {
    int kind;              /* a markup_apply_kind; below without MARKUP_APPLY_ */
    int which;             /* BINARY, COMPARE: the operator; FORMAT: 's' or 'r'
                          for str() or repr() before the spec, or 0 */
    PyObject *payload;     /* CONST: the value; ATTR/ITEM: the key; FORMAT: the
                          spec; DICT: the keys (tuple); CALL: the function */
    PyObject *kwnames;     /* CALL: the keyword names (tuple), or NULL */
    Py_ssize_t count;      /* UNPACK: how many names (`which` is this one);
                          FORMAT: a pm_format_use */
    PyObject *path;        /* a str.format template over the loop indices */
    Py_ssize_t at;         /* ATTR/ITEM: where the key was last found in a
                          dict (a position for PyDict_Next), or -1 */
    int dict_item;         /* ATTR/ITEM: on an exact dict, the field is the
                          item (for ATTR: dict itself has no attribute of
                          that name, `{}.items` being the method) */
    PyObject *missing;     /* ATTR/ITEM: what a field that is not there gives
                          (markup's MISSING, as Jinja2's undefined), also
                          read of it; NULL: the failed lookup raises */
    pm_number_spec number; /* FORMAT: the spec, for an int or float */
    int formatted;         /* ATTR/ITEM: the field is an f-string alone,
                              f"{x.name}", written at once: a str, int or
                              float is itself, anything else format()ted */
} pm_op;

typedef struct pm_baked {
    PyObject_HEAD vectorcallfunc vectorcall;
    PyObject *dict; /* __dict__: functools.update_wrapper fills it */
    PyObject *weakreflist;
    pm_state *st; /* the defining module's state (the type keeps it alive) */
    markup_baked *tpl;
    PyObject *func_name; /* the builder's qualified name, for errors */
    PyObject *params;    /* tuple of interned parameter names */
    PyObject **defaults; /* per parameter: its default (owned) or NULL */
    Py_ssize_t nparams;
    Py_ssize_t npositional; /* the first npositional may be passed positionally */
    pm_slot *slots;         /* nslots of them, in template order */
    unsigned char *multi;   /* per parameter: fills more than one slot */
    int any_multi;
    size_t nslots;
    int static_ascii;     /* the static HTML is ASCII */
    PyObject *builder;    /* the undecorated function: a call with stand-ins
                              (another builder inlining this one) runs it */
    markup_program *prog; /* a template program, or NULL for tpl */
    struct pm_op *ops;    /* the program's APPLY operations */
    Py_ssize_t nops;
    PyObject *paths; /* dict: instruction -> what it computes, for errors */
#ifdef PM_HAVE_ATOMICS
    _Atomic size_t size_hint; /* the last output's size, to reserve at once */
#else
    size_t size_hint;
#endif
} pm_baked;

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
    int placeholder_met; /* a stand-in was met: inline the builder */
} call_ctx;

/* A stand-in met while a call renders (inside a list argument, say) means
   the call happens while another builder is traced: the caller then runs
   this function's builder instead (inline_call), so that it is inlined. */
static int call_on_placeholder(pm_render_ctx *ctx, PyObject *placeholder, const char *attr_name,
                               Py_ssize_t attr_name_len, int depth) {
    (void)placeholder;
    (void)attr_name;
    (void)attr_name_len;
    (void)depth;
    ((call_ctx *)ctx)->placeholder_met = 1;
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
    for (Py_ssize_t i = 0; i < npos; i++) values[i] = args[i];
    for (Py_ssize_t i = npos; i < self->nparams; i++) values[i] = NULL;

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

/* ------------------------------------------------------------------------ */
/* Template programs: the data side of markup_program_run                     */
/* ------------------------------------------------------------------------ */

typedef struct program_call {
    pm_render_ctx rctx;
    pm_baked *self;
    int ascii;           /* everything written so far is known to be ASCII */
    int placeholder_met; /* a stand-in was met: inline the builder */
    int scans_left;      /* dict scans this call may still make for hints */
    int failed_after;    /* apply_write or apply_truth failed in its WRITE or IF */
} program_call;

static int program_on_placeholder(pm_render_ctx *ctx, PyObject *placeholder, const char *attr_name,
                                  Py_ssize_t attr_name_len, int depth) {
    (void)placeholder;
    (void)attr_name;
    (void)attr_name_len;
    (void)depth;
    ((program_call *)ctx)->placeholder_met = 1;
    PyErr_SetString(PyExc_TypeError, "a stand-in met while rendering");
    return -1;
}

static void *d_retain(void *ctx, void *value) {
    (void)ctx;
    return Py_NewRef((PyObject *)value);
}

static void d_release(void *ctx, void *value) {
    (void)ctx;
    Py_DECREF((PyObject *)value);
}

static int is_lookup_error(void) {
    return PyErr_ExceptionMatches(PyExc_LookupError) || PyErr_ExceptionMatches(PyExc_TypeError);
}

/* Jinja2's rule for `x.name`: the attribute, else the item. The error is
   the item's when the object has items (a dict), else the attribute's. */
static PyObject *field_attr(PyObject *obj, PyObject *key) {
    PyObject *v = PyObject_GetAttr(obj, key);
    if (v || !PyErr_ExceptionMatches(PyExc_AttributeError)) return v;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    v = PyObject_GetItem(obj, key);
    if (v || !PyErr_ExceptionMatches(PyExc_TypeError)) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return v;
    }
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
    return NULL;
}

/* dict_field's lookup by hash, which learns where the key stands for the
   next row. `tried` when the hinted position was read directly and missed:
   PyDict_Next would not find the key there either. Out of line, so that
   the usual read before it stays short. */
static PM_NOINLINE PyObject *dict_field_lookup(program_call *c, pm_op *o, PyObject *dict,
                                               int tried) {
    PyObject *key = o->payload;
#if PM_FIELD_HINTS
    PyObject *k, *v;
    Py_ssize_t pos = tried ? -1 : o->at;
    /* PyDict_Next skips deleted entries: past a hole the position is stale
       (and is learnt again below). */
    if (pos >= 0 && PyDict_Next(dict, &pos, &k, &v) && k == key && pos == o->at + 1)
        return Py_NewRef(v);
#else
    (void)tried;
#endif
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *found; /* a strong reference, as a build without a GIL needs */
    if (PyDict_GetItemRef(dict, key, &found) <= 0) return NULL;
#else
    PyObject *found = PyDict_GetItemWithError(dict, key);
    if (!found) return NULL;
    Py_INCREF(found);
#endif
#if PM_FIELD_HINTS
    if (c->scans_left > 0 && PyDict_GET_SIZE(dict) <= PM_HINT_MAX_SIZE &&
        PyUnicode_CheckExact(key)) {
        c->scans_left--;
        pos = 0;
        while (PyDict_Next(dict, &pos, &k, &v)) {
            if (k == key) {
                o->at = pos - 1;
                break;
            }
        }
    }
#else
    (void)c;
#endif
    return found;
}

/* Whether exact dict `row` can be read at the position learnt for `o`. */
static inline int readable_in_place(const pm_op *o, PyObject *row) {
#if PM_DICT_ENTRIES
    return o->at >= 0 && dict_entries_direct() && dict_entries_readable(row);
#else
    (void)o;
    (void)row;
    return 0;
#endif
}

/* The value of `o`'s field of `row` read where it stood in the last row
   (a borrowed reference), or NULL when it is not there to read: not an
   exact dict, no position learnt yet, or another key at that position. */
static inline PyObject *field_in_place(const pm_op *o, PyObject *row) {
#if PM_DICT_ENTRIES
    if (o->dict_item && PyDict_CheckExact(row) && readable_in_place(o, row))
        return dict_entry_at(row, o->at, o->payload);
#endif
    return NULL;
}

/* And for `x[key]`: the item, else (for a str key) the attribute. */
static PyObject *field_item(PyObject *obj, PyObject *key) {
    PyObject *v = PyObject_GetItem(obj, key);
    if (v || !PyUnicode_Check(key) || !is_lookup_error()) return v;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    v = PyObject_GetAttr(obj, key);
    if (v || !PyErr_ExceptionMatches(PyExc_AttributeError)) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return v;
    }
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
    return NULL;
}

/* A field read as Jinja2 reads it where a field that is not there is its
   undefined (`missing`): for `x.name` the attribute, on AttributeError the
   item, on AttributeError, TypeError or LookupError from that `missing`;
   for `x[key]` the item, on those errors (for a str key) the attribute,
   on AttributeError `missing`. Other errors, and errors of a step whose
   failure Jinja2 does not forgive, propagate. */
static int forgiven_by_item(void) {
    return PyErr_ExceptionMatches(PyExc_AttributeError) || is_lookup_error();
}

static PyObject *field_or_missing(int attr_first, PyObject *obj, PyObject *key, PyObject *missing) {
    PyObject *v;
    if (attr_first) {
        v = PyObject_GetAttr(obj, key);
        if (v || !PyErr_ExceptionMatches(PyExc_AttributeError)) return v;
        PyErr_Clear();
        v = PyObject_GetItem(obj, key);
        if (v || !forgiven_by_item()) return v;
    } else {
        v = PyObject_GetItem(obj, key);
        if (v || !forgiven_by_item()) return v;
        if (PyUnicode_Check(key)) {
            PyErr_Clear();
            v = PyObject_GetAttr(obj, key);
            if (v || !PyErr_ExceptionMatches(PyExc_AttributeError)) return v;
        }
    }
    PyErr_Clear();
    return Py_NewRef(missing);
}

static PyObject *binary(int which, PyObject *a, PyObject *b) {
    switch (which) {
    case MARKUP_BINARY_ADD: return PyNumber_Add(a, b);
    case MARKUP_BINARY_SUB: return PyNumber_Subtract(a, b);
    case MARKUP_BINARY_MUL: return PyNumber_Multiply(a, b);
    case MARKUP_BINARY_DIV: return PyNumber_TrueDivide(a, b);
    case MARKUP_BINARY_FLOORDIV: return PyNumber_FloorDivide(a, b);
    default: return PyNumber_Remainder(a, b); /* MARKUP_BINARY_MOD */
    }
}

static PyObject *concat(PyObject *const *parts, uint32_t n) {
    /* Exact str parts (an f-string's static text and formatted values) are
       copied into one new str, with no tuple built to join them. */
    Py_ssize_t len = 0;
    Py_UCS4 maxchar = 0;
    uint32_t i = 0;
    for (; i < n && PyUnicode_CheckExact(parts[i]); i++) {
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(parts[i]) < 0) return NULL; /* a legacy str from C code */
#endif
        if (PyUnicode_GET_LENGTH(parts[i]) > PY_SSIZE_T_MAX - len) break; /* the join says so */
        len += PyUnicode_GET_LENGTH(parts[i]);
        Py_UCS4 m = PyUnicode_MAX_CHAR_VALUE(parts[i]);
        if (m > maxchar) maxchar = m;
    }
    if (i == n) {
        PyObject *joined = PyUnicode_New(len, maxchar);
        if (!joined) return NULL;
        Py_ssize_t at = 0;
        for (i = 0; i < n; i++) {
            Py_ssize_t k = PyUnicode_GET_LENGTH(parts[i]);
            if (maxchar < 128) {
                memcpy(PyUnicode_1BYTE_DATA(joined) + at, PyUnicode_1BYTE_DATA(parts[i]),
                       (size_t)k);
            } else if (PyUnicode_CopyCharacters(joined, at, parts[i], 0, k) < 0) {
                Py_DECREF(joined);
                return NULL;
            }
            at += k;
        }
        return joined;
    }
    PyObject *tuple = PyTuple_New(n);
    if (!tuple) return NULL;
    for (i = 0; i < n; i++) PyTuple_SET_ITEM(tuple, i, Py_NewRef(parts[i]));
    PyObject *empty = PyUnicode_New(0, 0);
    PyObject *joined = empty ? PyUnicode_Join(empty, tuple) : NULL;
    Py_XDECREF(empty);
    Py_DECREF(tuple);
    return joined;
}

/* Item `which` of `seq` unpacked into `count` names, as Python unpacks:
   exactly `count` items, from any iterable. */
static PyObject *unpack(PyObject *seq, Py_ssize_t count, Py_ssize_t which) {
    if ((PyTuple_CheckExact(seq) || PyList_CheckExact(seq)) &&
        PySequence_Fast_GET_SIZE(seq) == count)
        return Py_NewRef(PySequence_Fast_GET_ITEM(seq, which));
    PyObject *items = PySequence_Tuple(seq);
    if (!items) return NULL;
    PyObject *v = NULL;
    Py_ssize_t got = PyTuple_GET_SIZE(items);
    if (got > count)
        PyErr_Format(PyExc_ValueError, "too many values to unpack (expected %zd, got %zd)", count,
                     got);
    else if (got < count)
        PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected %zd, got %zd)", count,
                     got);
    else
        v = Py_NewRef(PyTuple_GET_ITEM(items, which));
    Py_DECREF(items);
    return v;
}

static PM_NOINLINE markup_status apply_general(const pm_op *o, PyObject *const *a, uint32_t nargs,
                                               void **out) {
    PyObject *v = NULL;
    switch (o->kind) {
    case MARKUP_APPLY_CONST: v = Py_NewRef(o->payload); break;
    case MARKUP_APPLY_ATTR:
    case MARKUP_APPLY_ITEM:
        if (o->missing && a[0] == o->missing) {
            v = Py_NewRef(o->missing); /* a field of a field not there */
            break;
        }
        if (o->missing)
            v = field_or_missing(o->kind == MARKUP_APPLY_ATTR, a[0], o->payload, o->missing);
        else
            v = o->kind == MARKUP_APPLY_ATTR ? field_attr(a[0], o->payload)
                                             : field_item(a[0], o->payload);
        break;
    case MARKUP_APPLY_BINARY: v = binary(o->which, a[0], a[1]); break;
    case MARKUP_APPLY_COMPARE:
        if (o->which == MARKUP_COMPARE_CONTAINS) {
            int r = PySequence_Contains(a[0], a[1]);
            v = r < 0 ? NULL : Py_NewRef(r ? Py_True : Py_False);
        } else {
            v = PyObject_RichCompare(a[0], a[1], o->which);
        }
        break;
    case MARKUP_APPLY_FORMAT: {
        if (o->count == PM_FORMAT_WRITTEN && !o->which && !PyUnicode_GET_LENGTH(o->payload) &&
            (PyUnicode_CheckExact(a[0]) || PyLong_CheckExact(a[0]) || PyFloat_CheckExact(a[0]))) {
            v = Py_NewRef(a[0]);
            break;
        }
        if (!o->which && o->number.usable) {
            char text[PM_NUMBER_TEXT_MAX];
            Py_ssize_t n = pm_number_format(&o->number, a[0], text);
            if (n < 0) return MARKUP_ERR_SLOT_VALUE;
            if (n > 0) {
                v = PyUnicode_DecodeUTF8(text, n, NULL);
                break;
            }
        }
        /* str() or repr() first (f"{x!r:>8}"), then the spec. */
        PyObject *text = o->which == 's'   ? PyObject_Str(a[0])
                         : o->which == 'r' ? PyObject_Repr(a[0])
                                           : Py_NewRef(a[0]);
        v = text ? PyObject_Format(text, o->payload) : NULL;
        Py_XDECREF(text);
        if (v && o->count == PM_FORMAT_JOINED && !PyUnicode_CheckExact(v))
            Py_SETREF(v, PyUnicode_FromObject(v));
        break;
    }
    case MARKUP_APPLY_CONCAT: v = concat(a, nargs); break;
    case MARKUP_APPLY_UNPACK: v = unpack(a[0], o->count, o->which); break;
    case MARKUP_APPLY_LIST:
    case MARKUP_APPLY_TUPLE:
        v = o->kind == MARKUP_APPLY_LIST ? PyList_New(nargs) : PyTuple_New(nargs);
        for (uint32_t i = 0; v && i < nargs; i++) {
            if (o->kind == MARKUP_APPLY_LIST)
                PyList_SET_ITEM(v, i, Py_NewRef(a[i]));
            else
                PyTuple_SET_ITEM(v, i, Py_NewRef(a[i]));
        }
        break;
    case MARKUP_APPLY_DICT:
        v = PyDict_New();
        for (uint32_t i = 0; v && i < nargs; i++) {
            if (PyDict_SetItem(v, PyTuple_GET_ITEM(o->payload, i), a[i]) < 0) Py_CLEAR(v);
        }
        break;
    case MARKUP_APPLY_SELECT: {
        int yes = PyObject_IsTrue(a[0]);
        v = yes < 0 ? NULL : Py_NewRef(yes ? a[1] : a[2]);
        break;
    }
    case MARKUP_APPLY_CALL: {
        Py_ssize_t nkw = o->kwnames ? PyTuple_GET_SIZE(o->kwnames) : 0;
        v = PyObject_Vectorcall(o->payload, a, (size_t)(nargs - nkw), nkw ? o->kwnames : NULL);
        break;
    }
    default: PyErr_SetString(PyExc_SystemError, "unknown template operation");
    }
    if (!v) return MARKUP_ERR_SLOT_VALUE;
    *out = v;
    return MARKUP_OK;
}

/* d_apply past its first read: a field of a dict row by lookup, then
   every other operation. */
static PM_NOINLINE markup_status apply_looked_up(program_call *c, pm_op *o, void *const *args,
                                                 uint32_t nargs, void **out) {
    /* A missing key takes the general path, which raises; so does a failed
       lookup under the dot (a key's __eq__ raising), which Jinja2's rule
       reports as the attribute's error. */
    if (o->dict_item && PyDict_CheckExact((PyObject *)args[0])) {
        /* field_in_place missed: a read at the same position would too. */
        PyObject *v = dict_field_lookup(c, o, args[0], readable_in_place(o, args[0]));
        if (v) {
            *out = v;
            return MARKUP_OK;
        }
        if (PyErr_Occurred()) {
            if (o->kind == MARKUP_APPLY_ITEM) return MARKUP_ERR_SLOT_VALUE;
            PyErr_Clear();
        }
    }
    return apply_general(o, (PyObject *const *)args, nargs, out);
}

/* A value an f-string alone, f"{v}", gives as it is for a WRITE: the
   same text as its format(v, ""). */
static inline int written_as_itself(PyObject *v) {
    return PyUnicode_CheckExact(v) || PyLong_CheckExact(v) || PyFloat_CheckExact(v);
}

static markup_status d_apply(void *ctx, uint32_t op, void *const *args, uint32_t nargs,
                             void **out) {
    program_call *c = ctx;
    pm_op *o = &c->self->ops[op];
    /* The usual operation, a field of a dict row where it stood in the
       last row, with nothing to save or restore (the rest is out of
       line). */
    PyObject *v = field_in_place(o, args[0]);
    if (v && (!o->formatted || written_as_itself(v))) {
        *out = Py_NewRef(v);
        return MARKUP_OK;
    }
    markup_status st = apply_looked_up(c, o, args, nargs, out);
    if (st == MARKUP_OK && o->formatted && !written_as_itself(*out)) {
        PyObject *text = PyObject_Format(*out, NULL);
        Py_DECREF((PyObject *)*out);
        *out = text;
        if (!text) return MARKUP_ERR_SLOT_VALUE;
    }
    return st;
}

static markup_status d_truth(void *ctx, void *value, bool *out) {
    (void)ctx;
    int r = PyObject_IsTrue((PyObject *)value);
    if (r < 0) return MARKUP_ERR_SLOT_VALUE;
    *out = r != 0;
    return MARKUP_OK;
}

static markup_status d_iter_begin(void *ctx, void *iterable, void **iter) {
    (void)ctx;
    pm_loop_iter *j = pm_loop_iter_new(iterable);
    if (!j) return MARKUP_ERR_SLOT_VALUE;
    *iter = j;
    return MARKUP_OK;
}

static markup_status d_iter_next(void *ctx, void *iter, void **item, bool *done) {
    (void)ctx;
    PyObject *v = NULL;
    int r = pm_loop_iter_next(iter, &v);
    if (r < 0) return MARKUP_ERR_SLOT_VALUE;
    *item = v;
    *done = r == 0;
    return MARKUP_OK;
}

static void d_iter_end(void *ctx, void *iter) {
    (void)ctx;
    pm_loop_iter_free(iter);
}

/* The fields of looped()'s loop (markup/_template.py); previtem and
   nextitem are None where the loop has none. */
static markup_status d_loop_value(void *ctx, uint32_t what, const markup_loop_state *loop,
                                  void **out) {
    (void)ctx;
    PyObject *v;
    if (pm_loop_field(loop, what, &v) < 0) return MARKUP_ERR_SLOT_VALUE;
    *out = v ? v : Py_NewRef(Py_None);
    return MARKUP_OK;
}

/* A str or a number where nothing needs the writer, written straight in.
   PLAIN_NOT_MINE when `v` is something else, or its slot needs more. */
#define PLAIN_NOT_MINE ((markup_status) - 1)

static inline markup_status write_plain(program_call *c, const markup_program_slot *slot,
                                        PyObject *v, markup_buf *out) {
    if (!slot->plain && slot->kind == MARKUP_SLOT_CHILD) return PLAIN_NOT_MINE;
    markup_status st;
    if (PyUnicode_CheckExact(v)) {
        Py_ssize_t n;
        const char *s = pm_ascii_chars(v, &n);
        if (!s) {
            c->ascii = 0;
            s = pm_utf8(v, &n, NULL, "render()");
            if (!s) return MARKUP_ERR_SLOT_VALUE;
        }
        st = slot->kind == MARKUP_SLOT_ATTR
                 ? markup_html_write_attr(out, slot->name, slot->name_len, s, (size_t)n)
                 : markup_escape(out, s, (size_t)n);
    } else if (PyLong_CheckExact(v) || PyFloat_CheckExact(v)) {
        char digits[PM_NUMBER_MAX]; /* nothing in them to escape */
        Py_ssize_t n = pm_format_number(v, digits);
        if (n < 0) return MARKUP_ERR_SLOT_VALUE;
        if (n == 0) return PLAIN_NOT_MINE;
        st = slot->kind == MARKUP_SLOT_ATTR
                 ? markup_html_write_attr_html(out, slot->name, slot->name_len, digits, (size_t)n)
                 : markup_buf_append(out, digits, (size_t)n);
    } else {
        return PLAIN_NOT_MINE;
    }
    if (st != MARKUP_OK) pm_raise_status(st, "render()");
    return st;
}

/* Any other value, written as the plain tree would write it there. */
static PM_NOINLINE markup_status write_rendered(program_call *c, const markup_program_slot *slot,
                                                PyObject *v, markup_buf *out) {
    int rc;
    size_t start = out->len;
    if (slot->kind == MARKUP_SLOT_ATTR) {
        c->rctx.w = NULL;
        c->rctx.plain = NULL;
        c->rctx.attrs = c->rctx.buf;
        c->rctx.attrs_at = slot->context;
        rc = pm_render_attr_value(&c->rctx, slot->name, (Py_ssize_t)slot->name_len, v);
    } else {
        if (PyDict_Check(v)) {
            PyErr_SetString(PyExc_TypeError,
                            "a dict cannot be rendered as a child (in a plain tree a leading "
                            "dict is the element's attributes); render its values");
            return MARKUP_ERR_SLOT_VALUE;
        }
        markup_writer w;
        markup_writer_init(&w, c->rctx.buf, slot->context);
        markup_writer_skip_name_checks(&w);
        c->rctx.w = &w;
        c->rctx.plain = markup_writer_plain_buf(&w);
        c->rctx.attrs = NULL;
        rc = pm_render_child(&c->rctx, v, (int)slot->depth);
        markup_writer_dispose(&w);
    }
    if (rc != 0) return MARKUP_ERR_SLOT_VALUE;
    /* What this value wrote is checked here, so that the page need not be
       checked whole at the end. */
    if (c->ascii && !pm_is_ascii(out->data + start, (Py_ssize_t)(out->len - start))) c->ascii = 0;
    return MARKUP_OK;
}

/* A field of a formatted string that is not a str or a number: its text
   as the f-string holds it, format(value, ""), escaped. */
static PM_NOINLINE markup_status write_formatted(program_call *c, PyObject *v, markup_buf *out) {
    PyObject *text = PyObject_Format(v, NULL);
    if (!text) return MARKUP_ERR_SLOT_VALUE;
    Py_ssize_t n;
    const char *s = pm_utf8(text, &n, NULL, "render()");
    markup_status st = s ? markup_escape(out, s, (size_t)n) : MARKUP_ERR_SLOT_VALUE;
    if (s && c->ascii && !pm_is_ascii(s, n)) c->ascii = 0;
    if (st != MARKUP_OK && st != MARKUP_ERR_SLOT_VALUE) pm_raise_status(st, "render()");
    Py_DECREF(text);
    return st;
}

/* A value written where its slot stands, as the plain tree would write it
   there (or, in a TEXT slot, as a formatted string holds it). */
static markup_status d_write(void *ctx, const markup_program_slot *slot, void *value,
                             markup_buf *out) {
    markup_status st = write_plain(ctx, slot, value, out);
    if (st != PLAIN_NOT_MINE) return st;
    return slot->kind == MARKUP_SLOT_TEXT ? write_formatted(ctx, value, out)
                                          : write_rendered(ctx, slot, value, out);
}

/* A FORMAT written at once, where no writer is needed: a number formatted
   by its spec straight into the output, or (with no spec) a str or number
   written as itself. PLAIN_NOT_MINE for anything else. */
static markup_status write_format(program_call *c, const pm_op *o, PyObject *v,
                                  const markup_program_slot *slot, markup_buf *out) {
    if (o->which || (slot->kind == MARKUP_SLOT_CHILD && !slot->plain)) return PLAIN_NOT_MINE;
    if (!PyUnicode_GET_LENGTH(o->payload))
        return o->count != PM_FORMAT_VALUE ? write_plain(c, slot, v, out) : PLAIN_NOT_MINE;
    char text[PM_NUMBER_TEXT_MAX];
    Py_ssize_t n = pm_number_format(&o->number, v, text);
    c->failed_after = 0;
    if (n <= 0) return n < 0 ? MARKUP_ERR_SLOT_VALUE : PLAIN_NOT_MINE;
    if (c->ascii && !pm_is_ascii(text, n)) c->ascii = 0; /* a fill of its own */
    markup_status st =
        slot->kind == MARKUP_SLOT_ATTR
            ? markup_html_write_attr(out, slot->name, slot->name_len, text, (size_t)n)
            : markup_escape(out, text, (size_t)n);
    if (st != MARKUP_OK) pm_raise_status(st, "render()");
    c->failed_after = st != MARKUP_OK;
    return st;
}

/* A field written where it stands: a str or a number read in place is
   written without a reference of its own (writing it runs no Python code
   that could drop it), and a formatted number without a str. */
static markup_status d_apply_write(void *ctx, uint32_t op, void *arg,
                                   const markup_program_slot *slot, markup_buf *out) {
    program_call *c = ctx;
    const pm_op *o = &c->self->ops[op];
    if (o->kind == MARKUP_APPLY_FORMAT) {
        markup_status st = write_format(c, o, arg, slot, out);
        if (st != PLAIN_NOT_MINE) return st;
    }
    PyObject *v = field_in_place(o, arg);
    if (v && (PyUnicode_CheckExact(v) || PyLong_CheckExact(v) || PyFloat_CheckExact(v))) {
        markup_status st = write_plain(c, slot, v, out);
        if (st != PLAIN_NOT_MINE) {
            c->failed_after = st != MARKUP_OK;
            return st;
        }
    }
    void *owned;
    markup_status st = d_apply(c, op, &arg, 1, &owned);
    if (st != MARKUP_OK) return st;
    st = d_write(ctx, slot, owned, out);
    Py_DECREF((PyObject *)owned);
    c->failed_after = st != MARKUP_OK;
    return st;
}

/* A field tested where it stands, likewise when its truth runs no Python
   code (a bool, None, an int, a str). */
static markup_status d_apply_truth(void *ctx, uint32_t op, void *arg, bool *out) {
    program_call *c = ctx;
    PyObject *v = field_in_place(&c->self->ops[op], arg);
    if (v && (PyBool_Check(v) || v == Py_None || PyLong_CheckExact(v) || PyUnicode_CheckExact(v))) {
        *out = v == Py_True || (v != Py_False && PyObject_IsTrue(v) > 0); /* cannot fail */
        return MARKUP_OK;
    }
    void *owned;
    markup_status st = d_apply(c, op, &arg, 1, &owned);
    if (st != MARKUP_OK) return st;
    st = d_truth(ctx, owned, out);
    Py_DECREF((PyObject *)owned);
    c->failed_after = st != MARKUP_OK;
    return st;
}

static const markup_program_data program_data = {
    d_retain,   d_release,    d_apply, d_truth,       d_iter_begin,  d_iter_next,
    d_iter_end, d_loop_value, d_write, d_apply_write, d_apply_truth,
};

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
        if (pm_is_placeholder(self->st, values[i])) return 1;
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
    program_call c = {{.st = self->st, .buf = &buf, .on_placeholder = program_on_placeholder},
                      self,
                      self->static_ascii,
                      0,
                      PM_HINT_SCANS};
    markup_program_fault fault;
    PyObject *result = NULL;
    markup_status st = markup_program_run(self->prog, &program_data, &c, (void *const *)values,
                                          (size_t)self->nparams, &buf, &fault);
    if (st == MARKUP_OK) {
        hint_store(self, buf.len);
        result = c.ascii ? pm_safestring_from_ascii_buf(self->st, &buf)
                         : pm_safestring_from_utf8(self->st, buf.data, (Py_ssize_t)buf.len);
    } else if (c.placeholder_met) {
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
        {.st = self->st, .buf = &buf, .on_placeholder = call_on_placeholder}, self, values, 0, 0};
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
    } else if (c.placeholder_met) {
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

/* ------------------------------------------------------------------------ */
/* Compiling: run the builder, check the tree, flatten it                     */
/* ------------------------------------------------------------------------ */

typedef struct flatten_ctx {
    pm_render_ctx rctx;
    markup_baked_builder *builder;
    size_t flushed;         /* bytes of the buffer already handed to the builder */
    PyObject *placeholders; /* tuple: this decoration's stand-ins */
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

/* The walker met a placeholder: what it wrote since the last one is static
   HTML, the placeholder becomes a slot. */
static int flatten_on_placeholder(pm_render_ctx *ctx, PyObject *placeholder, const char *attr_name,
                                  Py_ssize_t attr_name_len, int depth) {
    flatten_ctx *f = (flatten_ctx *)ctx;
    pm_placeholder *ph = (pm_placeholder *)placeholder;
    Py_ssize_t n = PyTuple_GET_SIZE(f->placeholders);
    if (ph->index < 0 || ph->index >= n ||
        PyTuple_GET_ITEM(f->placeholders, ph->index) != placeholder) {
        PyErr_Format(PyExc_TypeError,
                     "@baked %U(): the tree holds the stand-in for parameter '%U' of %U(), "
                     "kept from another decoration; only this function's own parameters can "
                     "be slots",
                     f->func_name, ph->name, ph->func_name);
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
                     f->func_name, ph->name, err.msg);
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
        .param = ph->index,
        .context =
            attr_name ? markup_writer_start_tag_context(ctx->w) : markup_writer_context(ctx->w),
        .depth = (unsigned short)depth, /* below MARKUP_MAX_DEPTH */
    };
    f->uses[ph->index]++;
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
        if (raw && pm_is_placeholder(st, child)) {
            PyErr_Format(PyExc_TypeError,
                         "@baked %U(): parameter '%U' is a child of <%U>, whose text is raw "
                         "(not escaped) and checked when the element is built, so it cannot "
                         "be a slot. Make the whole <%U> element the parameter: build it per "
                         "call and pass it in",
                         func_name, ((pm_placeholder *)child)->name, el->tag, el->tag);
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
                     pm_is_placeholder(st, result) ? "a parameter's stand-in"
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
static int flatten(pm_state *st, pm_baked *self, PyObject *tree, PyObject *placeholders) {
    markup_buf buf;
    markup_buf_init(&buf, &pm_pymem_alloc);
    flatten_ctx f;
    memset(&f, 0, sizeof f);
    f.rctx.st = st;
    f.rctx.buf = &buf;
    f.rctx.on_placeholder = flatten_on_placeholder;
    f.rctx.baking = 1;
    f.placeholders = placeholders;
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

/* Reads the APPLY operations markup/_template.py wrote: tuples of (kind,
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

PyDoc_STRVAR(compile_doc,
             "_compile(builder, params, npositional, defaults, qualname, tree, placeholders,\n"
             "         program, ops, paths, frozen)\n--\n\n"
             "Make a baked function (used by markup.baked).\n\n"
             "`params` is a tuple of parameter names; the first `npositional` may be\n"
             "passed positionally, the rest are keyword-only. `defaults` maps names\n"
             "to default values. `tree` is what the builder returned when called with\n"
             "`placeholders`. With `program` None the tree becomes static HTML and\n"
             "slots; else `program` is the finished _ProgramBuilder, `ops` its\n"
             "operations and `paths` what its instructions compute, for errors.\n"
             "`frozen` is None, or what in the traced code could have made a bool\n"
             "of a per-call value: then a True or False attribute value is refused.");

static PyObject *baked_compile(PyObject *module, PyObject *args) {
    pm_state *st = pm_state_from_module(module);
    PyObject *builder, *params, *defaults, *qualname, *tree, *placeholders, *program, *ops, *paths;
    PyObject *frozen;
    Py_ssize_t npositional;
    if (!PyArg_ParseTuple(args, "OO!nO!UOO!OO!O!O:_compile", &builder, &PyTuple_Type, &params,
                          &npositional, &PyDict_Type, &defaults, &qualname, &tree, &PyTuple_Type,
                          &placeholders, &program, &PyTuple_Type, &ops, &PyDict_Type, &paths,
                          &frozen))
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
    if (npositional < 0 || npositional > nparams || PyTuple_GET_SIZE(placeholders) != nparams) {
        PyErr_SetString(PyExc_ValueError, "_compile: npositional or placeholders out of range");
        return NULL;
    }

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
        if (flatten(st, self, tree, placeholders) < 0) goto fail;
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
    {"_compile", baked_compile, METH_VARARGS, compile_doc},
    {"_dict_entries_direct", py_dict_entries_direct, METH_NOARGS, dict_entries_doc},
    {NULL, NULL, 0, NULL},
};

int pm_baked_init(PyObject *module, pm_state *st) {
    st->placeholder_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &ph_spec, NULL);
    if (!st->placeholder_type) return -1;
    st->baked_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &baked_spec, NULL);
    if (!st->baked_type) return -1;
#ifndef Py_TPFLAGS_DISALLOW_INSTANTIATION
    /* Python 3.9: no flag yet, so drop the constructor inherited from object. */
    st->baked_type->tp_new = NULL;
#endif
    if (PyModule_AddType(module, st->placeholder_type) < 0) return -1;
    if (PyModule_AddType(module, st->baked_type) < 0) return -1;
#if PM_DICT_ENTRIES
    if (pm_dict_entries_check() < 0) return -1;
#endif
    return PyModule_AddFunctions(module, baked_functions);
}
