/*
 * baked_data.c - the data side of a @baked template program's run
 * (markup_program_data): fields read with Jinja2's rule (in place on a dict
 * row when they can be), the APPLY operations, truth, loops with their
 * loop.* fields, and each value written where its slot stands, as the
 * plain tree would write it there.
 */
#include "baked_impl.h"

#include <string.h>

#include "dict_fields.h"
#include "loop_iter.h"

int pm_program_on_stand_in(pm_render_ctx *ctx, PyObject *stand_in, const char *attr_name,
                           Py_ssize_t attr_name_len, int depth) {
    (void)stand_in;
    (void)attr_name;
    (void)attr_name_len;
    (void)depth;
    ((program_call *)ctx)->stand_in_met = 1;
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
#else
    (void)o;
    (void)row;
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

/* The fields of looped()'s loop (markup/_template/); previtem and
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

const markup_program_data pm_program_data = {
    d_retain,   d_release,    d_apply, d_truth,       d_iter_begin,  d_iter_next,
    d_iter_end, d_loop_value, d_write, d_apply_write, d_apply_truth,
};
