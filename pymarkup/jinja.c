/*
 * jinja.c - markup._core._JinjaProgram: a Jinja2 template, as markup/jinja
 * compiled it from Jinja2's own parse, run as a libmarkup template program
 * with Jinja2's rules for Python values:
 *
 *  - a name is looked up in the render's variables, then in the
 *    template's globals, else it is the environment's undefined(name=...);
 *  - x.name and x[key] are Environment.getattr and Environment.getitem:
 *    the attribute or the item, in Jinja2's order, else undefined(obj=x,
 *    name=...);
 *  - {{ x }} writes escape(x) (markupsafe's: __html__ kept, str() escaped)
 *    or, without autoescape, str(x);
 *  - operators, truth, iteration and calls are Python's.
 *
 * This file knows nothing of Jinja2's nodes: the compiler (markup/jinja)
 * decides what each instruction computes and hands the finished code here.
 * A run that raises is rendered again by Jinja2's own code (the caller's
 * business), so errors here need only be raised, not worded as Jinja2's.
 */
#include "dict_fields.h"
#include "loop_iter.h"

/* The operations of APPLY (`a` indexes the program's table of them). The
   numbers are exported to the compiler as markup._core._jinja_ops. */
typedef enum jinja_apply {
    J_CONST = 0, /* the constant payload */
    J_GETATTR,   /* x.payload, Environment.getattr's rule */
    J_GETITEM,   /* x[key] (two values), Environment.getitem's rule */
    J_BINARY,    /* a op b, op a jinja_binary */
    J_COMPARE,   /* a op b, op a jinja_compare */
    J_NOT,       /* not x */
    J_NEG,       /* -x */
    J_POS,       /* +x */
    J_CALL,      /* payload(*values, **keywords named by kwnames) */
    J_TUPLE,     /* (v1, ..., vn) */
    J_LIST,      /* [v1, ..., vn] */
    J_DICT,      /* {k1: v1, ...} from k1, v1, k2, v2 ... */
    J_UNPACK,    /* item `which` of x unpacked into `count` names */
    J_ITEM,      /* x[payload], a constant key: GETITEM's rule */
    J_STORE,     /* parameter `which` becomes x ({% set %}); gives None */
    J_GLOBAL,    /* the global payload: the render's globals only, else
                    undefined(name=payload) (a free name in a macro of an
                    imported template) */
    J_AS_TUPLE,  /* x unpacked into `count` values, as a tuple: an exact
                    tuple or list of that size as it is, else payload(x),
                    Python's own unpacking */
    J_APPLY_COUNT
} jinja_apply;

typedef enum jinja_binary {
    JB_ADD = 0,
    JB_SUB,
    JB_MUL,
    JB_TRUEDIV,
    JB_FLOORDIV,
    JB_MOD,
    JB_POW,
    JB_COUNT
} jinja_binary;

/* The first six are Py_LT ... Py_GE. */
typedef enum jinja_compare { JC_IN = 6, JC_NOT_IN, JC_COUNT } jinja_compare;

typedef struct jinja_op {
    int kind;
    int which;         /* BINARY, COMPARE: the operator; UNPACK: the name's place */
    Py_ssize_t count;  /* UNPACK: how many names */
    PyObject *payload; /* CONST: the value; GETATTR: the name; CALL: the callable */
    PyObject *kwnames; /* CALL: keyword names (tuple) or NULL */
    int dict_item;     /* GETATTR: dict has no attribute of that name, so on an
                          exact dict the field is the item */
    Py_ssize_t at;     /* GETATTR/ITEM: where the key stood in the last exact
                          dict it was read from (dict_fields.h), or -1 */
} jinja_op;

typedef struct pm_jinja {
    PyObject_HEAD pm_state *st;
    PyObject *kw_name;     /* ("name",) */
    PyObject *kw_obj_name; /* ("obj", "name"): undefined's keywords */
    markup_program *prog;
    jinja_op *ops;
    Py_ssize_t nops;
    PyObject *names;     /* tuple: the variable each parameter is */
    PyObject *undefined; /* the environment's undefined (a callable) */
    int autoescape;
    int static_ascii;
} pm_jinja;

/* What a run needs besides the program. */
typedef struct jinja_call {
    pm_jinja *self;
    int scans_left;    /* dicts this run may still walk to learn a position */
    PyObject **params; /* the run's parameters (owned by render), which STORE replaces */
    PyObject *vars;    /* the render's variables (the caller's own dict) */
    PyObject *globals; /* the render's globals: a tuple of mappings */
    int ascii;         /* everything written so far is ASCII */
} jinja_call;

/* ------------------------------------------------------------------------ */
/* Values                                                                     */
/* ------------------------------------------------------------------------ */

static void *d_retain(void *ctx, void *value) {
    (void)ctx;
    return Py_NewRef((PyObject *)value);
}

static void d_release(void *ctx, void *value) {
    (void)ctx;
    Py_DECREF((PyObject *)value);
}

static PyObject *undefined_for(jinja_call *c, PyObject *obj, PyObject *name) {
    PyObject *args[3] = {NULL, obj, name};
    return PyObject_Vectorcall(c->self->undefined, args + 1, PY_VECTORCALL_ARGUMENTS_OFFSET,
                               c->self->kw_obj_name);
}

static PyObject *resolve_global(jinja_call *c, PyObject *globals, PyObject *name);

static int error_matches(PyObject *a, PyObject *b, PyObject *d) {
    return PyErr_ExceptionMatches(a) || PyErr_ExceptionMatches(b) ||
           (d && PyErr_ExceptionMatches(d));
}

/* Environment.getattr: the attribute, else the item, else undefined. */
static PyObject *jinja_getattr(jinja_call *c, const jinja_op *o, PyObject *obj) {
    if (o->dict_item && PyDict_CheckExact(obj)) {
        PyObject *v = PyDict_GetItemWithError(obj, o->payload);
        if (v) return Py_NewRef(v);
        if (PyErr_Occurred()) return NULL;
        return undefined_for(c, obj, o->payload);
    }
    PyObject *v = PyObject_GetAttr(obj, o->payload);
    if (v || !PyErr_ExceptionMatches(PyExc_AttributeError)) return v;
    PyErr_Clear();
    v = PyObject_GetItem(obj, o->payload);
    if (v || !error_matches(PyExc_TypeError, PyExc_LookupError, PyExc_AttributeError)) return v;
    PyErr_Clear();
    return undefined_for(c, obj, o->payload);
}

/* Environment.getitem: the item, else (for a str key) the attribute, else
   undefined. */
static PyObject *jinja_getitem(jinja_call *c, PyObject *obj, PyObject *key) {
    PyObject *v;
    if (PyDict_CheckExact(obj) && PyUnicode_CheckExact(key)) {
        v = PyDict_GetItemWithError(obj, key);
        if (v) return Py_NewRef(v);
        if (PyErr_Occurred()) return NULL;
    } else {
        v = PyObject_GetItem(obj, key);
        if (v || !error_matches(PyExc_AttributeError, PyExc_TypeError, PyExc_LookupError)) return v;
        PyErr_Clear();
    }
    if (PyUnicode_Check(key)) {
        PyObject *attr = PyObject_Str(key);
        if (!attr) {
            PyErr_Clear(); /* Jinja2 passes over any failure of str() here */
        } else {
            v = PyObject_GetAttr(obj, attr);
            Py_DECREF(attr);
            if (v || !PyErr_ExceptionMatches(PyExc_AttributeError)) return v;
            PyErr_Clear();
        }
    }
    return undefined_for(c, obj, key);
}

static PyObject *binary(int which, PyObject *a, PyObject *b) {
    switch (which) {
    case JB_ADD: return PyNumber_Add(a, b);
    case JB_SUB: return PyNumber_Subtract(a, b);
    case JB_MUL: return PyNumber_Multiply(a, b);
    case JB_TRUEDIV: return PyNumber_TrueDivide(a, b);
    case JB_FLOORDIV: return PyNumber_FloorDivide(a, b);
    case JB_MOD: return PyNumber_Remainder(a, b);
    default: return PyNumber_Power(a, b, Py_None);
    }
}

static PyObject *compare(int which, PyObject *a, PyObject *b) {
    if (which < JC_IN) return PyObject_RichCompare(a, b, which);
    int r = PySequence_Contains(b, a);
    if (r < 0) return NULL;
    return PyBool_FromLong(which == JC_IN ? r : !r);
}

static PyObject *unpack(PyObject *seq, Py_ssize_t count, Py_ssize_t which) {
    if (PyTuple_CheckExact(seq) && PyTuple_GET_SIZE(seq) == count)
        return Py_NewRef(PyTuple_GET_ITEM(seq, which));
    if (PyList_CheckExact(seq) && PyList_GET_SIZE(seq) == count)
        return Py_NewRef(PyList_GET_ITEM(seq, which));
    /* Anything else as Python unpacks it: exactly `count` items. */
    PyObject *items = PySequence_Tuple(seq);
    if (!items) return NULL;
    PyObject *v = NULL;
    if (PyTuple_GET_SIZE(items) != count)
        PyErr_Format(PyExc_ValueError, "cannot unpack %zd values into %zd names",
                     PyTuple_GET_SIZE(items), count);
    else
        v = Py_NewRef(PyTuple_GET_ITEM(items, which));
    Py_DECREF(items);
    return v;
}

static markup_status d_apply(void *ctx, uint32_t op, void *const *args, uint32_t nargs,
                             void **out) {
    jinja_call *c = ctx;
    const jinja_op *o = &c->self->ops[op];
    PyObject *const *a = (PyObject *const *)args;
    PyObject *v = NULL;
    switch ((jinja_apply)o->kind) {
    case J_CONST: v = Py_NewRef(o->payload); break;
    case J_GETATTR: v = jinja_getattr(c, o, a[0]); break;
    case J_GETITEM: v = jinja_getitem(c, a[0], a[1]); break;
    case J_BINARY: v = binary(o->which, a[0], a[1]); break;
    case J_COMPARE: v = compare(o->which, a[0], a[1]); break;
    case J_NOT: {
        int r = PyObject_Not(a[0]);
        v = r < 0 ? NULL : PyBool_FromLong(r);
        break;
    }
    case J_NEG: v = PyNumber_Negative(a[0]); break;
    case J_POS: v = PyNumber_Positive(a[0]); break;
    case J_CALL: {
        Py_ssize_t nkw = o->kwnames ? PyTuple_GET_SIZE(o->kwnames) : 0;
        v = PyObject_Vectorcall(o->payload, a, (size_t)(nargs - (uint32_t)nkw), o->kwnames);
        break;
    }
    case J_TUPLE:
    case J_LIST:
        v = o->kind == J_TUPLE ? PyTuple_New(nargs) : PyList_New(nargs);
        for (uint32_t i = 0; v && i < nargs; i++) {
            if (o->kind == J_TUPLE)
                PyTuple_SET_ITEM(v, i, Py_NewRef(a[i]));
            else
                PyList_SET_ITEM(v, i, Py_NewRef(a[i]));
        }
        break;
    case J_DICT:
        v = PyDict_New();
        for (uint32_t i = 0; v && i + 1 < nargs; i += 2) {
            if (PyDict_SetItem(v, a[i], a[i + 1]) < 0) Py_CLEAR(v);
        }
        break;
    case J_UNPACK: v = unpack(a[0], o->count, o->which); break;
    case J_ITEM: v = jinja_getitem(c, a[0], o->payload); break;
    case J_GLOBAL: v = resolve_global(c, c->globals, o->payload); break;
    case J_AS_TUPLE:
        if (PyTuple_CheckExact(a[0]) && PyTuple_GET_SIZE(a[0]) == o->count)
            v = Py_NewRef(a[0]);
        else if (PyList_CheckExact(a[0]) && PyList_GET_SIZE(a[0]) == o->count)
            v = PyList_AsTuple(a[0]);
        else
            v = PyObject_CallOneArg(o->payload, a[0]);
        break;
    case J_STORE:
        /* Also in the render's variables, where a Context made for a
           callable that asks for one finds it, as in Jinja2's. */
        if (PyTuple_GET_ITEM(c->self->names, o->which) != Py_None &&
            PyDict_SetItem(c->vars, PyTuple_GET_ITEM(c->self->names, o->which), a[0]) < 0)
            break;
        Py_SETREF(c->params[o->which], Py_NewRef(a[0]));
        v = Py_NewRef(Py_None);
        break;
    default: PyErr_SetString(PyExc_SystemError, "_JinjaProgram: unknown operation");
    }
    if (!v) return MARKUP_ERR_SLOT_VALUE;
    *out = v;
    return MARKUP_OK;
}

static markup_status d_truth(void *ctx, void *value, bool *out) {
    (void)ctx;
    int r = PyObject_IsTrue((PyObject *)value);
    if (r < 0) return MARKUP_ERR_SLOT_VALUE;
    *out = r != 0;
    return MARKUP_OK;
}

/* ------------------------------------------------------------------------ */
/* Loops                                                                      */
/* ------------------------------------------------------------------------ */

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

static PyObject *no_item(jinja_call *c, const char *hint) {
    PyObject *msg = PyUnicode_FromString(hint);
    if (!msg) return NULL;
    PyObject *v = PyObject_CallOneArg(c->self->undefined, msg);
    Py_DECREF(msg);
    return v;
}

/* The fields of Jinja2's `loop`; a previtem or nextitem the loop does not
   have is undefined, with Jinja2's hint. */
static markup_status d_loop_value(void *ctx, uint32_t what, const markup_loop_state *loop,
                                  void **out) {
    PyObject *v;
    if (pm_loop_field(loop, what, &v) < 0) return MARKUP_ERR_SLOT_VALUE;
    if (!v)
        v = no_item((jinja_call *)ctx, what == MARKUP_LOOP_PREVITEM ? "there is no previous item"
                                                                    : "there is no next item");
    if (!v) return MARKUP_ERR_SLOT_VALUE;
    *out = v;
    return MARKUP_OK;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                     */
/* ------------------------------------------------------------------------ */

static markup_status put_text(jinja_call *c, PyObject *s, int escape, markup_buf *out) {
    Py_ssize_t n;
    const char *p = pm_ascii_chars(s, &n);
    if (!p) {
        c->ascii = 0;
        p = pm_utf8(s, &n, NULL, "render()");
        if (!p) return MARKUP_ERR_SLOT_VALUE;
    }
    markup_status st =
        escape ? markup_escape(out, p, (size_t)n) : markup_buf_append(out, p, (size_t)n);
    if (st != MARKUP_OK) pm_raise_status(st, "render()");
    return st;
}

/* `{{ x }}`: escape(x) with autoescape (markupsafe's: a plain str escaped,
   __html__'s result kept, anything else's str() escaped), else str(x). */
static markup_status d_write(void *ctx, const markup_program_slot *slot, void *value,
                             markup_buf *out) {
    (void)slot;
    jinja_call *c = ctx;
    PyObject *v = value;
    int escape = c->self->autoescape;
    if (PyUnicode_CheckExact(v)) return put_text(c, v, escape, out);
    if (PyLong_CheckExact(v) || PyFloat_CheckExact(v)) {
        char digits[PM_NUMBER_MAX];
        Py_ssize_t n = pm_format_number(v, digits);
        if (n < 0) return MARKUP_ERR_SLOT_VALUE;
        if (n > 0) {
            markup_status st = markup_buf_append(out, digits, (size_t)n);
            if (st != MARKUP_OK) pm_raise_status(st, "render()");
            return st;
        }
    }
    PyObject *text;
    if (escape) {
        PyObject *html = PyObject_GetAttr(v, c->self->st->str_html);
        if (!html) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return MARKUP_ERR_SLOT_VALUE;
            PyErr_Clear();
        }
        if (html) {
            PyObject *r = PyObject_CallNoArgs(html);
            Py_DECREF(html);
            if (!r) return MARKUP_ERR_SLOT_VALUE;
            text = PyUnicode_CheckExact(r) ? r : PyObject_Str(r);
            if (text != r) Py_DECREF(r);
            escape = 0;
        } else {
            text = PyObject_Str(v);
        }
    } else {
        text = PyObject_Str(v);
    }
    if (!text) return MARKUP_ERR_SLOT_VALUE;
    markup_status st = put_text(c, text, escape, out);
    Py_DECREF(text);
    return st;
}

/* A field of an exact dict read in place (borrowed): x.name where dict
   has no attribute `name`, or x[key] with a constant str key; first where
   the key stood in the last row (dict_fields.h), else by its hash, which
   learns that place for the next row. NULL when the general rule must
   run (not such a dict, or the key is missing). */
static inline PyObject *dict_field(jinja_call *c, jinja_op *o, PyObject *obj) {
    if (!PyDict_CheckExact(obj)) return NULL;
    if (o->kind == J_ITEM ? !PyUnicode_CheckExact(o->payload)
                          : !(o->kind == J_GETATTR && o->dict_item))
        return NULL;
#if PM_DICT_ENTRIES
    if (o->at >= 0 && dict_entries_direct() && dict_entries_readable(obj)) {
        PyObject *v = dict_entry_at(obj, o->at, o->payload);
        if (v) return v;
    }
#endif
    PyObject *v = PyDict_GetItemWithError(obj, o->payload);
    if (!v) {
        PyErr_Clear(); /* a key's __eq__ failed: the general rule runs it again */
        return NULL;
    }
#if PM_FIELD_HINTS
    if (c->scans_left > 0 && PyDict_GET_SIZE(obj) <= PM_HINT_MAX_SIZE) {
        c->scans_left--;
        Py_ssize_t pos = 0;
        PyObject *k, *value;
        while (PyDict_Next(obj, &pos, &k, &value)) {
            if (k == o->payload) {
                o->at = pos - 1;
                break;
            }
        }
    }
#else
    (void)c;
#endif
    return v;
}

/* An operation on a loop item or a variable whose result is written at
   once: a dict's str or number written where it lies. */
static markup_status d_apply_write(void *ctx, uint32_t op, void *arg,
                                   const markup_program_slot *slot, markup_buf *out) {
    jinja_call *c = ctx;
    PyObject *v = dict_field(c, &c->self->ops[op], arg);
    if (v && (PyUnicode_CheckExact(v) || PyLong_CheckExact(v) || PyFloat_CheckExact(v)))
        return d_write(ctx, slot, v, out); /* writing a str or number runs no Python code */
    void *owned;
    markup_status st = d_apply(ctx, op, &arg, 1, &owned);
    if (st != MARKUP_OK) return st;
    st = d_write(ctx, slot, owned, out);
    Py_DECREF((PyObject *)owned);
    return st;
}

/* Likewise for a test: the truth of a bool, None, int or str runs no
   Python code. */
static markup_status d_apply_truth(void *ctx, uint32_t op, void *arg, bool *out) {
    jinja_call *c = ctx;
    PyObject *v = dict_field(c, &c->self->ops[op], arg);
    if (v && (PyBool_Check(v) || v == Py_None || PyLong_CheckExact(v) || PyUnicode_CheckExact(v))) {
        *out = PyObject_IsTrue(v) > 0;
        return MARKUP_OK;
    }
    void *owned;
    markup_status st = d_apply(ctx, op, &arg, 1, &owned);
    if (st != MARKUP_OK) return st;
    st = d_truth(ctx, owned, out);
    Py_DECREF((PyObject *)owned);
    return st;
}

/* What a block set or a filter block wrote, as a str (the compiler makes
   it Markup where Jinja2 does). */
static markup_status d_capture(void *ctx, const char *s, size_t n, void **out) {
    (void)ctx;
    PyObject *v = PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, NULL);
    if (!v) return MARKUP_ERR_SLOT_VALUE;
    *out = v;
    return MARKUP_OK;
}

static const markup_program_data jinja_data = {
    d_retain,   d_release,    d_apply, d_truth,       d_iter_begin,  d_iter_next,
    d_iter_end, d_loop_value, d_write, d_apply_write, d_apply_truth, d_capture,
};

/* ------------------------------------------------------------------------ */
/* The type                                                                   */
/* ------------------------------------------------------------------------ */

/* A variable: the render's, else the globals' (the first mapping that has
   it), else undefined(name=name). */
static PyObject *resolve(jinja_call *c, PyObject *vars, PyObject *globals, PyObject *name) {
    PyObject *v = PyDict_GetItemWithError(vars, name);
    if (v) return Py_NewRef(v);
    if (PyErr_Occurred()) return NULL;
    return resolve_global(c, globals, name);
}

/* The globals' (the first mapping that has it), else undefined(name=name). */
static PyObject *resolve_global(jinja_call *c, PyObject *globals, PyObject *name) {
    PyObject *v;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(globals); i++) {
        PyObject *map = PyTuple_GET_ITEM(globals, i);
        if (PyDict_CheckExact(map)) {
            v = PyDict_GetItemWithError(map, name);
            if (v) return Py_NewRef(v);
            if (PyErr_Occurred()) return NULL;
            continue;
        }
        int has = PySequence_Contains(map, name);
        if (has < 0) return NULL;
        if (has) return PyObject_GetItem(map, name);
    }
    PyObject *args[2] = {NULL, name};
    return PyObject_Vectorcall(c->self->undefined, args + 1, PY_VECTORCALL_ARGUMENTS_OFFSET,
                               c->self->kw_name);
}

/* The failing instruction, as the exception's _markup_pc (for the template
   line in its traceback), where the exception takes attributes. */
static void note_fault(uint32_t pc) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *at = PyLong_FromUnsignedLong(pc);
    if (!at || !value || PyObject_SetAttrString(value, "_markup_pc", at) < 0) PyErr_Clear();
    Py_XDECREF(at);
    if (tb && value) PyException_SetTraceback(value, tb);
    PyErr_Restore(type, value, tb);
}

PyDoc_STRVAR(render_doc, "render(vars, globals) -> str\n--\n\n"
                         "Run the template over `vars` (a dict, which each {% set %} updates) and\n"
                         "`globals` (a tuple of mappings, searched in order after vars).");

static PyObject *jinja_render(PyObject *op, PyObject *const *args, Py_ssize_t nargs) {
    pm_jinja *self = (pm_jinja *)op;
    if (nargs != 2 || !PyDict_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "render(vars: dict, globals: tuple)");
        return NULL;
    }
    if (pm_stack_check("in a Jinja2 template") < 0) return NULL;
    {
        /* Jinja2 passes the variables as keywords: only str names. */
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(args[0], &pos, &key, &value)) {
            if (!PyUnicode_Check(key)) {
                PyErr_SetString(PyExc_TypeError, "keywords must be strings");
                return NULL;
            }
        }
    }
    jinja_call c = {self, PM_HINT_SCANS, NULL, args[0], args[1], self->static_ascii};
    Py_ssize_t n = PyTuple_GET_SIZE(self->names);
    PyObject *small[16];
    PyObject **params = n <= 16 ? small : PyMem_Calloc((size_t)n, sizeof *params);
    if (!params) return PyErr_NoMemory();
    Py_ssize_t got = 0;
    PyObject *result = NULL;
    c.params = params;
    for (; got < n; got++) {
        PyObject *name = PyTuple_GET_ITEM(self->names, got);
        /* None: the program's own place, not a variable (starts as None) */
        params[got] = name == Py_None ? Py_NewRef(Py_None) : resolve(&c, args[0], args[1], name);
        if (!params[got]) goto done;
    }
    markup_buf buf;
    markup_buf_init(&buf, &pm_pymem_alloc);
    markup_program_fault fault;
    markup_status st = markup_program_run(self->prog, &jinja_data, &c, (void *const *)params,
                                          (size_t)n, &buf, &fault);
    if (st == MARKUP_OK) {
        result = c.ascii ? PyUnicode_New((Py_ssize_t)buf.len, 127)
                         : PyUnicode_DecodeUTF8(buf.data, (Py_ssize_t)buf.len, "strict");
        if (result && c.ascii && buf.len) memcpy(PyUnicode_DATA(result), buf.data, buf.len);
    } else {
        if (!PyErr_Occurred()) pm_raise_status(st, "render()");
        note_fault(fault.pc);
    }
    markup_buf_free(&buf);
done:
    for (Py_ssize_t i = 0; i < got; i++) Py_DECREF(params[i]);
    if (params != small) PyMem_Free(params);
    return result;
}

static void free_ops(pm_jinja *self) {
    for (Py_ssize_t i = 0; i < self->nops; i++) {
        Py_XDECREF(self->ops[i].payload);
        Py_XDECREF(self->ops[i].kwnames);
    }
    PyMem_Free(self->ops);
    self->ops = NULL;
    self->nops = 0;
}

/* ops: a tuple of (kind, payload, which, count, kwnames, dict_item). */
static int read_ops(pm_jinja *self, PyObject *ops) {
    Py_ssize_t n = PyTuple_GET_SIZE(ops);
    self->ops = PyMem_Calloc((size_t)(n ? n : 1), sizeof *self->ops);
    if (!self->ops) return PyErr_NoMemory(), -1;
    self->nops = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        jinja_op *o = &self->ops[i];
        PyObject *payload, *kwnames;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(ops, i), "iOinOp:_JinjaProgram op", &o->kind,
                              &payload, &o->which, &o->count, &kwnames, &o->dict_item))
            return -1;
        o->payload = Py_NewRef(payload);
        o->at = -1;
        /* Field names interned, as the keys of dicts written in Python
           source are: a lookup then finds its key by address. */
        if ((o->kind == J_GETATTR || o->kind == J_ITEM) && PyUnicode_CheckExact(o->payload))
            PyUnicode_InternInPlace(&o->payload);
        o->kwnames = kwnames == Py_None ? NULL : Py_NewRef(kwnames);
        int ok = o->kind >= 0 && o->kind < J_APPLY_COUNT;
        if (o->kind == J_GETATTR || o->kind == J_GLOBAL) ok = PyUnicode_CheckExact(payload);
        if (o->kind == J_BINARY) ok = o->which >= 0 && o->which < JB_COUNT;
        if (o->kind == J_COMPARE) ok = o->which >= 0 && o->which < JC_COUNT;
        if (o->kind == J_UNPACK) ok = o->count > 0 && o->which >= 0 && o->which < o->count;
        if (o->kind == J_STORE) ok = o->which >= 0 && o->which < PyTuple_GET_SIZE(self->names);
        if (o->kind == J_CALL) ok = !o->kwnames || PyTuple_CheckExact(o->kwnames);
        if (!ok) {
            PyErr_Format(PyExc_ValueError, "_JinjaProgram: operation %zd is malformed", i);
            return -1;
        }
    }
    return 0;
}

/* How many values each operation takes, checked against the code. */
static int arity_ok(const jinja_op *o, uint32_t nargs) {
    switch ((jinja_apply)o->kind) {
    case J_CONST:
    case J_GLOBAL: return nargs == 0;
    case J_GETATTR:
    case J_NOT:
    case J_NEG:
    case J_POS:
    case J_ITEM:
    case J_AS_TUPLE:
    case J_STORE:
    case J_UNPACK: return nargs == 1;
    case J_GETITEM:
    case J_BINARY:
    case J_COMPARE: return nargs == 2;
    case J_CALL: return nargs >= (uint32_t)(o->kwnames ? PyTuple_GET_SIZE(o->kwnames) : 0);
    case J_DICT: return nargs % 2 == 0;
    default: return 1;
    }
}

static int raise_build(markup_status st, const markup_error *err) {
    if (st == MARKUP_ERR_INVALID_ARG && err && err->msg)
        PyErr_Format(PyExc_ValueError, "_JinjaProgram: %s at instruction %zu", err->msg, err->pos);
    else
        pm_raise_status(st, "_JinjaProgram");
    return -1;
}

/* code: a list of str (static text) and (op, a, b) tuples, in order; no
   two str in a row, so that instruction numbers are the list's. */
static int build(pm_jinja *self, PyObject *code) {
    markup_program_builder *b = NULL;
    markup_status st =
        markup_program_builder_new(&pm_pymem_alloc, (size_t)PyTuple_GET_SIZE(self->names), &b);
    if (st != MARKUP_OK) return raise_build(st, NULL);
    markup_program_slot slot = {MARKUP_SLOT_CHILD, MARKUP_CONTEXT_HTML, 0, NULL, 0, false, 0};
    uint32_t index;
    st = markup_program_add_slot(b, &slot, &index);
    Py_ssize_t n = PyList_GET_SIZE(code);
    for (Py_ssize_t pc = 0; st == MARKUP_OK && pc < n; pc++) {
        PyObject *item = PyList_GET_ITEM(code, pc);
        if (PyUnicode_Check(item)) {
            Py_ssize_t len;
            const char *s = PyUnicode_AsUTF8AndSize(item, &len);
            if (!s) goto fail;
            for (Py_ssize_t i = 0; i < len; i++) self->static_ascii &= (unsigned char)s[i] < 0x80;
            if (markup_program_here(b) != (uint32_t)pc) goto misplaced;
            st = markup_program_add_static(b, s, (size_t)len);
            continue;
        }
        int opcode;
        unsigned long a, bb;
        if (!PyArg_ParseTuple(item, "ikk:_JinjaProgram instruction", &opcode, &a, &bb)) goto fail;
        if (opcode <= MARKUP_OP_STATIC || opcode == MARKUP_OP_NEWLINE || opcode > MARKUP_OP_BREAK ||
            a > UINT32_MAX || bb > UINT32_MAX) {
            PyErr_Format(PyExc_ValueError, "_JinjaProgram: instruction %zd out of range", pc);
            goto fail;
        }
        if (opcode == MARKUP_OP_APPLY &&
            ((Py_ssize_t)a >= self->nops || !arity_ok(&self->ops[a], (uint32_t)bb))) {
            PyErr_Format(PyExc_ValueError,
                         "_JinjaProgram: instruction %zd applies an operation that does not "
                         "exist or to the wrong number of values",
                         pc);
            goto fail;
        }
        if (opcode == MARKUP_OP_LOOP_INFO && bb > PM_LOOP_FIELD_LAST) {
            PyErr_Format(PyExc_ValueError, "_JinjaProgram: instruction %zd: no such loop field",
                         pc);
            goto fail;
        }
        if (opcode == MARKUP_OP_WRITE && a != index) {
            PyErr_Format(PyExc_ValueError, "_JinjaProgram: instruction %zd: no such slot", pc);
            goto fail;
        }
        uint32_t at;
        st = markup_program_emit(b, (markup_op)opcode, (uint32_t)a, (uint32_t)bb, &at);
        if (st == MARKUP_OK && at != (uint32_t)pc) goto misplaced;
    }
    if (st != MARKUP_OK) {
        markup_program_builder_free(b);
        return raise_build(st, NULL);
    }
    markup_error err = MARKUP_ERROR_INIT;
    st = markup_program_builder_finish(b, &self->prog, &err);
    return st == MARKUP_OK ? 0 : raise_build(st, &err);
misplaced:
    PyErr_SetString(PyExc_ValueError, "_JinjaProgram: two static texts in a row");
fail:
    markup_program_builder_free(b);
    return -1;
}

static PyObject *jinja_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *code, *ops, *names, *undefined;
    int autoescape;
    static char *kwlist[] = {"code", "ops", "names", "undefined", "autoescape", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!O!Op:_JinjaProgram", kwlist, &PyList_Type,
                                     &code, &PyTuple_Type, &ops, &PyTuple_Type, &names, &undefined,
                                     &autoescape))
        return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        if (!PyUnicode_CheckExact(name) && name != Py_None) {
            PyErr_SetString(PyExc_TypeError, "_JinjaProgram: names must be str or None");
            return NULL;
        }
    }
    pm_state *st = pm_state_from_type(type);
    if (!st) return NULL;
    pm_jinja *self = (pm_jinja *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->st = st;
    self->names = Py_NewRef(names);
    self->undefined = Py_NewRef(undefined);
    self->autoescape = autoescape;
    self->static_ascii = 1;
    self->kw_name = Py_BuildValue("(s)", "name");
    self->kw_obj_name = Py_BuildValue("(ss)", "obj", "name");
    if (!self->kw_name || !self->kw_obj_name || read_ops(self, ops) < 0 || build(self, code) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static int jinja_traverse(PyObject *op, visitproc visit, void *arg) {
    pm_jinja *self = (pm_jinja *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->undefined);
    for (Py_ssize_t i = 0; i < self->nops; i++) {
        Py_VISIT(self->ops[i].payload);
    }
    return 0;
}

static int jinja_clear(PyObject *op) {
    pm_jinja *self = (pm_jinja *)op;
    Py_CLEAR(self->undefined);
    free_ops(self);
    return 0;
}

static void jinja_dealloc(PyObject *op) {
    pm_jinja *self = (pm_jinja *)op;
    PyTypeObject *type = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    jinja_clear(op);
    Py_XDECREF(self->names);
    Py_XDECREF(self->kw_name);
    Py_XDECREF(self->kw_obj_name);
    markup_program_free(self->prog);
    type->tp_free(op);
    Py_DECREF(type);
}

static PyObject *jinja_length(PyObject *op, void *closure) {
    (void)closure;
    pm_jinja *self = (pm_jinja *)op;
    return PyLong_FromSize_t(self->prog ? markup_program_length(self->prog) : 0);
}

static PyMethodDef jinja_methods[] = {
    {"render", (PyCFunction)(void (*)(void))jinja_render, METH_FASTCALL, render_doc},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef jinja_getset[] = {
    {"length", jinja_length, NULL, "Instructions in the program.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot jinja_slots[] = {
    {Py_tp_new, jinja_new},
    {Py_tp_dealloc, jinja_dealloc},
    {Py_tp_traverse, jinja_traverse},
    {Py_tp_clear, jinja_clear},
    {Py_tp_methods, jinja_methods},
    {Py_tp_getset, jinja_getset},
    {0, NULL},
};

static PyType_Spec jinja_spec = {
    .name = "markup._core._JinjaProgram",
    .basicsize = sizeof(pm_jinja),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = jinja_slots,
};

int pm_jinja_init(PyObject *module, pm_state *st) {
    (void)st;
    PyTypeObject *type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &jinja_spec, NULL);
    if (!type) return -1;
    int r = PyModule_AddType(module, type);
    Py_DECREF(type);
    if (r < 0) return -1;
    static const struct {
        const char *name;
        int value;
    } numbers[] = {
        {"CONST", J_CONST},
        {"GETATTR", J_GETATTR},
        {"GETITEM", J_GETITEM},
        {"BINARY", J_BINARY},
        {"COMPARE", J_COMPARE},
        {"NOT", J_NOT},
        {"NEG", J_NEG},
        {"POS", J_POS},
        {"CALL", J_CALL},
        {"TUPLE", J_TUPLE},
        {"LIST", J_LIST},
        {"DICT", J_DICT},
        {"UNPACK", J_UNPACK},
        {"ADD", JB_ADD},
        {"SUB", JB_SUB},
        {"MUL", JB_MUL},
        {"TRUEDIV", JB_TRUEDIV},
        {"FLOORDIV", JB_FLOORDIV},
        {"MOD", JB_MOD},
        {"POW", JB_POW},
        {"IN", JC_IN},
        {"NOT_IN", JC_NOT_IN},
        {"LOOP_ELSE", MARKUP_LOOP_ELSE},
        {"ITEM", J_ITEM},
        {"STORE", J_STORE},
        {"AS_TUPLE", J_AS_TUPLE},
        {"GLOBAL", J_GLOBAL},
        {"LOOP_LOOKAHEAD", MARKUP_LOOP_LOOKAHEAD},
    };
    PyObject *consts = PyDict_New();
    for (size_t i = 0; consts && i < sizeof numbers / sizeof *numbers; i++) {
        PyObject *v = PyLong_FromLong(numbers[i].value);
        if (!v || PyDict_SetItemString(consts, numbers[i].name, v) < 0) Py_CLEAR(consts);
        Py_XDECREF(v);
    }
    if (!consts) return -1;
    r = PyModule_AddObjectRef(module, "_jinja_ops", consts);
    Py_DECREF(consts);
    return r;
}
