/*
 * element.c - Element, the Tag factories, the `h` namespace and Comment.
 *
 * A factory call (h.Div(...)) is the hot path of building a tree: it runs
 * through vectorcall with hand-written argument handling. Exact types (str,
 * dict, Element, list, tuple) are tested first; everything else goes to
 * out-of-line "rare" functions. All validation happens here, at
 * construction, so that a bad value is reported where it was written and
 * the render walker can trust the tree.
 */
#include "state.h"

#include <stdio.h>
#include <structmember.h>

/* The kwname cache only holds names seen in source code; a program that
   passes unbounded **kwargs keys must not grow it forever. */
#define PM_KWNAME_CACHE_MAX 4096

/* Above this many attributes, duplicates are found with a set instead of a
   linear scan. */
#define PM_ATTR_SCAN_MAX 32

static inline int is_raw_kind(uint8_t kind) {
    return kind == MARKUP_TAG_SCRIPT || kind == MARKUP_TAG_STYLE;
}

/* ------------------------------------------------------------------------ */
/* A small vector of owned references, on the stack until it grows          */
/* ------------------------------------------------------------------------ */

#define PM_VEC_INLINE 16

typedef struct pm_vec {
    PyObject **items;
    Py_ssize_t len;
    Py_ssize_t cap;
    PyObject *seen;   /* attributes only: a set of the names, once there are many */
    Py_ssize_t nodes; /* children only: the elements in them and below */
    uint8_t flags;    /* children only: PM_ELEMENT_LAZY when one is lazy */
    PyObject *inline_items[PM_VEC_INLINE];
} pm_vec;

static void vec_init(pm_vec *v) {
    v->items = v->inline_items;
    v->len = 0;
    v->cap = PM_VEC_INLINE;
    v->seen = NULL;
    v->nodes = 0;
    v->flags = 0;
}

static PM_NOINLINE int vec_grow(pm_vec *v) {
    Py_ssize_t cap = v->cap + v->cap / 2;
    PyObject **items;
    if (v->items == v->inline_items) {
        items = PyMem_New(PyObject *, cap);
        if (items != NULL) memcpy(items, v->inline_items, sizeof(PyObject *) * (size_t)v->len);
    } else {
        items = v->items;
        PyMem_Resize(items, PyObject *, cap);
    }
    if (items == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    v->items = items;
    v->cap = cap;
    return 0;
}

/* Copies n item pointers. Most elements have a few attributes and
   children: then a call to memcpy costs more than the copy. */
static inline void move_refs(PyObject **dst, PyObject *const *src, Py_ssize_t n) {
    if (n > 4) {
        memcpy(dst, src, sizeof(PyObject *) * (size_t)n);
        return;
    }
    switch (n) {
    case 4: dst[3] = src[3]; /* fall through */
    case 3: dst[2] = src[2]; /* fall through */
    case 2: dst[1] = src[1]; /* fall through */
    case 1: dst[0] = src[0]; /* fall through */
    default: break;
    }
}

/* Appends a new reference to `o`. */
static inline int vec_push(pm_vec *v, PyObject *o) {
    if (v->len == v->cap && vec_grow(v) < 0) return -1;
    Py_INCREF(o);
    v->items[v->len++] = o;
    return 0;
}

static void vec_clear(pm_vec *v) {
    Py_CLEAR(v->seen);
    for (Py_ssize_t i = 0; i < v->len; i++) Py_DECREF(v->items[i]);
    if (v->items != v->inline_items) PyMem_Free(v->items);
    vec_init(v);
}

/* ------------------------------------------------------------------------ */
/* Shared helpers                                                             */
/* ------------------------------------------------------------------------ */

static int has_html(pm_state *st, PyObject *obj) {
    PyObject *method;
    int r = pm_lookup_html(st, obj, &method);
    Py_XDECREF(method);
    return r;
}

/* ------------------------------------------------------------------------ */
/* Tag: an element factory                                                    */
/* ------------------------------------------------------------------------ */

typedef struct pm_tag {
    PyObject_HEAD vectorcallfunc vectorcall;
    pm_state *st;    /* lives as long as the module, which our type keeps alive */
    PyObject *name;  /* validated ASCII tag name: "div", "my-widget"          */
    PyObject *label; /* repr: "h.Div", "Tag('my-widget')"                     */
    uint8_t kind;
    uint8_t flags;
    markup_tag_class cls;
} pm_tag;

/* --- attributes --------------------------------------------------------- */

static PM_NOINLINE int attr_name_error(pm_tag *tag, PyObject *name, const markup_error *err) {
    PyErr_Format(PyExc_ValueError,
                 "<%U>: invalid attribute name %R (%s at byte %zu); attribute names cannot be "
                 "empty or contain whitespace, control characters, quotes, '<', '>', '/', '=', "
                 "'&', '\\' or '`'",
                 tag->name, name, err->msg ? err->msg : "rejected", pm_err_pos(err));
    return -1;
}

static int check_attr_name(pm_tag *tag, PyObject *name) {
#ifndef Py_GIL_DISABLED
    /* The set from the address's bits above the allocator's alignment,
       mixed so that neighbouring strings spread out. */
    uint64_t h = pm_pointer_hash(name);
    PyObject **set = &tag->st->valid_names[2 * ((h >> 32) % (PM_NAME_CACHE / 2))];
    if (set[0] == name || set[1] == name) return 0;
#endif
    Py_ssize_t n;
    const char *s = pm_utf8(name, &n, tag->name, NULL);
    if (s == NULL) return -1;
    markup_error err = MARKUP_ERROR_INIT;
    if (markup_html_check_attr_name(s, (size_t)n, &err) != MARKUP_OK) {
        return attr_name_error(tag, name, &err);
    }
#ifndef Py_GIL_DISABLED
    /* The newest name first; the older of the two leaves, released only
       once both ways are set. */
    PyObject *evicted = set[1];
    set[1] = set[0];
    set[0] = Py_NewRef(name);
    Py_XDECREF(evicted);
#endif
    return 0;
}

static PM_NOINLINE int attr_value_rare(pm_tag *tag, PyObject *name, PyObject *value) {
    pm_state *st = tag->st;
    if (pm_is_placeholder(st, value)) return 0;
    if (Py_TYPE(value) == st->element_type || Py_TYPE(value) == st->comment_type) {
        PyObject *where = PyUnicode_FromFormat("<%U>", tag->name);
        if (where == NULL) return -1;
        pm_node_attr_value_error(st, where, name, value);
        Py_DECREF(where);
        return -1;
    }
    if (PyBool_Check(value) || PyLong_Check(value) || PyFloat_Check(value)) return 0;
    if (PyUnicode_Check(value)) {
        if (pm_str_has_own_str(value)) return 0; /* str() of it is written, and checked */
        Py_ssize_t n;
        return pm_utf8(value, &n, tag->name, NULL) == NULL ? -1 : 0;
    }
    int r = has_html(st, value);
    if (r != 0) return r < 0 ? -1 : 0;
    r = pm_is_text_object(st, value); /* str() of it is written when rendered */
    if (r != 0) return r < 0 ? -1 : 0;
    const char *hint = "";
    if (PyList_Check(value) || PyTuple_Check(value) || PyAnySet_Check(value) ||
        PyDict_Check(value) || PyObject_IsInstance(value, st->mapping_abc) == 1) {
        hint = " (only class takes a list or a mapping of names to conditions, and style a "
               "mapping of properties)";
    } else if (PyBytes_Check(value) || PyByteArray_Check(value)) {
        hint = " (decode bytes to str first)";
    }
    PyErr_Format(PyExc_TypeError,
                 "<%U>: attribute %R cannot take a value of type '%.100s'; pass a str, int, "
                 "float, True/False/None, a SafeString or an object whose type defines "
                 "__str__%s",
                 tag->name, name, Py_TYPE(value)->tp_name, hint);
    return -1;
}

static inline int check_attr_value(pm_tag *tag, PyObject *name, PyObject *value) {
    if (PyUnicode_CheckExact(value)) {
        if (PyUnicode_IS_ASCII(value)) return 0;
        Py_ssize_t n;
        return pm_utf8(value, &n, tag->name, NULL) == NULL ? -1 : 0;
    }
    if (value == Py_True || value == Py_False || value == Py_None) return 0;
    if (PyLong_CheckExact(value) || PyFloat_CheckExact(value)) return 0;
    return attr_value_rare(tag, name, value);
}

static inline Py_UCS4 ascii_lower_ucs4(Py_UCS4 c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* Whether two attribute names are one to an HTML parser, which lower-cases
   their ASCII letters ("HREF" is "href"; "É" is not "é"). */
static inline int same_attr_name(PyObject *a, PyObject *b) {
    if (a == b) return 1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(a);
    if (n != PyUnicode_GET_LENGTH(b) || PyUnicode_KIND(a) != PyUnicode_KIND(b)) return 0;
    int kind = PyUnicode_KIND(a);
    const void *da = PyUnicode_DATA(a), *db = PyUnicode_DATA(b);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 x = PyUnicode_READ(kind, da, i), y = PyUnicode_READ(kind, db, i);
        if (x != y && ascii_lower_ucs4(x) != ascii_lower_ucs4(y)) return 0;
    }
    return 1;
}

/* `name` with its ASCII letters lower-cased (a new reference). */
static PyObject *attr_name_key(PyObject *name) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    int kind = PyUnicode_KIND(name);
    const void *data = PyUnicode_DATA(name);
    Py_ssize_t i = 0;
    while (i < n &&
           ascii_lower_ucs4(PyUnicode_READ(kind, data, i)) == PyUnicode_READ(kind, data, i))
        i++;
    if (i == n) return Py_NewRef(name);
    PyObject *key = PyUnicode_New(n, PyUnicode_MAX_CHAR_VALUE(name));
    if (key == NULL) return NULL;
    for (Py_ssize_t k = 0; k < n; k++)
        PyUnicode_WRITE(kind, PyUnicode_DATA(key), k,
                        ascii_lower_ucs4(PyUnicode_READ(kind, data, k)));
    return key;
}

static PM_NOINLINE int duplicate_error(pm_tag *tag, PyObject *name, PyObject *earlier) {
    if (earlier != NULL && PyUnicode_Compare(earlier, name) != 0) {
        PyErr_Format(PyExc_ValueError,
                     "<%U>: attribute %R is given twice, also as %R (a parser reads names "
                     "without regard to the case of ASCII letters, and keeps the first); pass "
                     "each attribute once",
                     tag->name, name, earlier);
        return -1;
    }
    PyErr_Format(PyExc_ValueError,
                 "<%U>: attribute %R is given twice; pass each attribute once (a mapping and a "
                 "keyword, or two mappings, name the same attribute; combine the values "
                 "yourself, e.g. with classes(...))",
                 tag->name, name);
    return -1;
}

/* Duplicate detection for elements with very many attributes: a set of
   the names' lower-cased forms, built once and then kept up to date. */
static PM_NOINLINE int is_duplicate_many(pm_vec *attrs, PyObject *name) {
    if (attrs->seen == NULL) {
        attrs->seen = PySet_New(NULL);
        if (attrs->seen == NULL) return -1;
        for (Py_ssize_t i = 0; i < attrs->len; i += 2) {
            PyObject *key = attr_name_key(attrs->items[i]);
            int r = key == NULL ? -1 : PySet_Add(attrs->seen, key);
            Py_XDECREF(key);
            if (r < 0) return -1;
        }
    }
    PyObject *key = attr_name_key(name);
    if (key == NULL) return -1;
    int r = PySet_Contains(attrs->seen, key);
    if (r == 0 && PySet_Add(attrs->seen, key) < 0) r = -1;
    Py_DECREF(key);
    return r;
}

/* Appends (name, value); `name` is an exact str already validated. */
static int add_attr_as_given(pm_tag *tag, pm_vec *attrs, PyObject *name, PyObject *value) {
    if (attrs->seen == NULL && attrs->len <= 2 * PM_ATTR_SCAN_MAX) {
        for (Py_ssize_t i = 0; i < attrs->len; i += 2) {
            if (same_attr_name(attrs->items[i], name))
                return duplicate_error(tag, name, attrs->items[i]);
        }
    } else {
        int dup = is_duplicate_many(attrs, name);
        if (dup != 0) return dup < 0 ? -1 : duplicate_error(tag, name, NULL);
    }
    /* Stored before the value is checked: the check may run Python code
       (an __html__ lookup), which must not be able to free the pair. On
       failure the caller drops `attrs` whole. */
    if (vec_push(attrs, name) < 0 || vec_push(attrs, value) < 0) return -1;
    return check_attr_value(tag, name, value);
}

/* The joiners' TypeError, prefixed with where it happened; the original is
   kept as the cause. Only the exact type: a subclass may need other
   constructor arguments, and is passed on as raised. */
static void name_failed_join(pm_tag *tag, PyObject *name) {
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    if (type != PyExc_TypeError) {
        PyErr_Restore(type, exc, tb);
        return;
    }
    PyErr_NormalizeException(&type, &exc, &tb);
    if (tb) PyException_SetTraceback(exc, tb);
    PyErr_Format(PyExc_TypeError, "<%U>: attribute %R: %S", tag->name, name, exc);
    PyObject *type2, *exc2, *tb2;
    PyErr_Fetch(&type2, &exc2, &tb2);
    PyErr_NormalizeException(&type2, &exc2, &tb2);
    PyException_SetCause(exc2, exc); /* steals exc */
    Py_DECREF(type);
    Py_XDECREF(tb);
    PyErr_Restore(type2, exc2, tb2);
}

/* class and style take a list (class only) or a mapping too, joined by
   the rules of classes() and styles(): a new reference to the value to
   store (a str, None or a per-call template value), or to `value` itself
   when it is not such a value (check_attr_value then refuses it). */
static PM_NOINLINE PyObject *join_attr_value(pm_tag *tag, PyObject *name, PyObject *value,
                                             int is_mapping) {
    pm_state *st = tag->st;
    PyObject *joiner = NULL;
    if (same_attr_name(name, st->str_class)) {
        joiner = st->class_joiner;
    } else if (same_attr_name(name, st->str_style) && is_mapping) {
        joiner = st->style_joiner;
    }
    if (joiner == NULL) return Py_NewRef(value);
    /* Our own reference: the call may replace the joiners. */
    Py_INCREF(joiner);
    PyObject *joined = PyObject_CallOneArg(joiner, value);
    Py_DECREF(joiner);
    if (joined == NULL) name_failed_join(tag, name);
    return joined;
}

/* 1 for a list, tuple, set or mapping given as an attribute value, 0 for
   anything else, -1 on error. The common values are answered first. */
static PM_NOINLINE int joinable_kind(pm_state *st, PyObject *value, int *is_mapping) {
    *is_mapping = PyDict_Check(value);
    if (*is_mapping || PyList_Check(value) || PyTuple_Check(value) || PyAnySet_Check(value))
        return 1;
    if (PyUnicode_Check(value) || PyLong_Check(value) || PyFloat_Check(value) ||
        pm_is_placeholder(st, value))
        return 0;
    int r = PyObject_IsInstance(value, st->mapping_abc);
    *is_mapping = r > 0;
    return r;
}

/* Appends (name, value), joining a class or style list or mapping first. */
static int add_attr(pm_tag *tag, pm_vec *attrs, PyObject *name, PyObject *value) {
    if (!PyUnicode_CheckExact(value) && !PyLong_CheckExact(value) && value != Py_None &&
        value != Py_True && value != Py_False) {
        int is_mapping;
        int joinable = joinable_kind(tag->st, value, &is_mapping);
        if (joinable < 0) return -1;
        if (joinable) {
            PyObject *joined = join_attr_value(tag, name, value, is_mapping);
            if (joined == NULL) return -1;
            int r = add_attr_as_given(tag, attrs, name, joined);
            Py_DECREF(joined);
            return r;
        }
    }
    return add_attr_as_given(tag, attrs, name, value);
}

static PM_NOINLINE int attr_key_error(pm_tag *tag, PyObject *key) {
    PyErr_Format(PyExc_TypeError,
                 "<%U>: attribute names must be str, got %.100s %R in an attribute mapping",
                 tag->name, Py_TYPE(key)->tp_name, key);
    return -1;
}

/* One (key, value) from a mapping. Holds its own references meanwhile, as
   checking a value may run Python code. */
static int add_mapping_item(pm_tag *tag, pm_vec *attrs, PyObject *key, PyObject *value) {
    int r = -1;
    Py_INCREF(key);
    Py_INCREF(value);
    if (!PyUnicode_Check(key)) {
        attr_key_error(tag, key);
    } else if (!PyUnicode_CheckExact(key)) {
        /* Store a plain str: the tree must not hold objects that can
           change their mind about what they are. */
        PyObject *plain = PyUnicode_FromObject(key);
        if (plain != NULL) {
            if (check_attr_name(tag, plain) == 0) r = add_attr(tag, attrs, plain, value);
            Py_DECREF(plain);
        }
    } else if (check_attr_name(tag, key) == 0) {
        r = add_attr(tag, attrs, key, value);
    }
    Py_DECREF(key);
    Py_DECREF(value);
    return r;
}

static int add_dict_attrs(pm_tag *tag, pm_vec *attrs, PyObject *dict) {
    Py_ssize_t pos = 0, size = PyDict_GET_SIZE(dict);
    PyObject *key, *value;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        if (add_mapping_item(tag, attrs, key, value) < 0) return -1;
        /* A value's __html__ lookup may have changed the dict: refuse, as
           iterating it in Python would, rather than skip or repeat. */
        if (PyDict_GET_SIZE(dict) != size) {
            PyErr_Format(PyExc_RuntimeError,
                         "<%U>: the attribute dict changed size while it was read", tag->name);
            return -1;
        }
    }
    return 0;
}

/* Any other Mapping (dict subclasses, MappingProxyType, ...), via items(). */
static PM_NOINLINE int add_mapping_attrs(pm_tag *tag, pm_vec *attrs, PyObject *mapping) {
    PyObject *items = PyMapping_Items(mapping);
    if (items == NULL) return -1;
    int r = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items) && r == 0; i++) {
        PyObject *pair = PyList_GET_ITEM(items, i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_Format(PyExc_TypeError, "<%U>: attribute mapping items() must give pairs",
                         tag->name);
            r = -1;
        } else {
            r = add_mapping_item(tag, attrs, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1));
        }
    }
    Py_DECREF(items);
    return r;
}

/* 1 when `arg` (not an exact dict) is an attribute mapping. */
static PM_NOINLINE int is_mapping_rare(pm_state *st, PyObject *arg) {
    if (PyList_CheckExact(arg) || PyTuple_CheckExact(arg) || arg == Py_None || PyLong_Check(arg) ||
        PyFloat_Check(arg) || PyUnicode_Check(arg) || Py_TYPE(arg) == st->comment_type ||
        pm_is_placeholder(st, arg) || PyIter_Check(arg)) {
        return 0;
    }
    if (PyDict_Check(arg)) return 1;
    return PyObject_IsInstance(arg, st->mapping_abc);
}

/* "class_" -> "class", "data_id" -> "data-id", "for_" -> "for", and "_"
   stays "_" (hyperscript's attribute). Cached. The same rule as
   _attr_name() in markup/__init__.py. */
static PM_NOINLINE PyObject *kwname_convert(pm_tag *tag, PyObject *kw) {
    pm_state *st = tag->st;
    Py_ssize_t n;
    const char *s = pm_utf8(kw, &n, tag->name, NULL);
    if (s == NULL) return NULL;
    int bare_underscore = n == 1 && s[0] == '_';
    if (n > 1 && s[n - 1] == '_') n--;
    char small[64];
    char *out = n <= (Py_ssize_t)sizeof small ? small : PyMem_Malloc((size_t)n);
    if (out == NULL) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) out[i] = s[i] == '_' && !bare_underscore ? '-' : s[i];
    PyObject *name = PyUnicode_DecodeUTF8(out, n, "strict");
    if (out != small) PyMem_Free(out);
    if (name == NULL) return NULL;
    if (check_attr_name(tag, name) < 0) {
        Py_DECREF(name);
        return NULL;
    }
    /* Only exact str keys: a str subclass could compare equal to other
       names (its own __eq__ and __hash__) and answer for them later. */
    if (PyUnicode_CheckExact(kw) && PyDict_GET_SIZE(st->kwname_cache) < PM_KWNAME_CACHE_MAX) {
        /* Interned, so that duplicate checks usually compare pointers. */
        PyUnicode_InternInPlace(&name);
        if (PyDict_SetItem(st->kwname_cache, kw, name) < 0) {
            Py_DECREF(name);
            return NULL;
        }
    }
    return name;
}

static inline int add_kw_attr(pm_tag *tag, pm_vec *attrs, PyObject *kw, PyObject *value) {
    PyObject *name = NULL;
    if (PyUnicode_CheckExact(kw)) {
        /* A reference of our own: Python code run while the attribute is
           added may empty the cache. */
#if PY_VERSION_HEX >= 0x030D0000
        if (PyDict_GetItemRef(tag->st->kwname_cache, kw, &name) < 0) return -1;
#else
        name = Py_XNewRef(PyDict_GetItemWithError(tag->st->kwname_cache, kw));
        if (name == NULL && PyErr_Occurred()) return -1;
#endif
        if (name != NULL) {
            int r = add_attr(tag, attrs, name, value);
            Py_DECREF(name);
            return r;
        }
    }
    name = kwname_convert(tag, kw);
    if (name == NULL) return -1;
    int r = add_attr(tag, attrs, name, value);
    Py_DECREF(name);
    return r;
}

/* --- children ----------------------------------------------------------- */

static int add_child(pm_tag *tag, pm_vec *kids, PyObject *child);

static PM_NOINLINE int raw_text_error(pm_tag *tag, const markup_error *err) {
    return pm_raw_text_error(tag->name, "text contains", err);
}

/* A str child: lone surrogates rejected, raw text checked for breakout. */
static PM_NOINLINE int check_text_child(pm_tag *tag, PyObject *text) {
    Py_ssize_t n;
    const char *s = pm_utf8(text, &n, tag->name, NULL);
    if (s == NULL) return -1;
    if (is_raw_kind(tag->kind)) {
        markup_error err = MARKUP_ERROR_INIT;
        if (markup_html_check_raw_text((markup_tag_kind)tag->kind, s, (size_t)n, &err) !=
            MARKUP_OK) {
            return raw_text_error(tag, &err);
        }
    }
    return 0;
}

/* Several text pieces in <script>/<style> are written back to back, so a
   breakout can be split across them ("</scr" + "ipt>", "<!-" + "-1"): check
   the concatenation of the str and number pieces once all children are
   known, so the error comes when the element is built. */
static PM_NOINLINE int check_raw_text_joined(pm_tag *tag, const pm_vec *kids) {
    markup_buf joined;
    markup_buf_init(&joined, &pm_pymem_alloc);
    int r = 0;
    for (Py_ssize_t i = 0; r == 0 && i < kids->len; i++) {
        PyObject *kid = kids->items[i];
        /* __html__ objects give their text only when rendered, where the
           whole content is checked again. */
        if (!PyUnicode_Check(kid) && !PyLong_Check(kid) && !PyFloat_Check(kid)) continue;
        PyObject *text = PyObject_Str(kid);
        if (text == NULL) {
            r = -1;
            break;
        }
        Py_ssize_t n;
        const char *s = pm_utf8(text, &n, tag->name, NULL);
        if (s == NULL) {
            r = -1;
        } else if (markup_buf_append(&joined, s, (size_t)n) != MARKUP_OK) {
            PyErr_NoMemory();
            r = -1;
        }
        Py_DECREF(text);
    }
    if (r == 0) {
        markup_error err = MARKUP_ERROR_INIT;
        if (markup_html_check_raw_text((markup_tag_kind)tag->kind, joined.data, joined.len, &err) !=
            MARKUP_OK) {
            r = raw_text_error(tag, &err);
        }
    }
    markup_buf_free(&joined);
    return r;
}

static PM_NOINLINE int raw_child_error(pm_tag *tag, PyObject *child) {
    PyErr_Format(PyExc_TypeError,
                 "<%U> holds raw text only and cannot contain %.100s %R; pass a str (for data "
                 "use tojson(...))",
                 tag->name, Py_TYPE(child)->tp_name, child);
    return -1;
}

/* A per-call value of an @baked builder inside <script>/<style>: raw text
   is checked whole when the element is built, so it cannot change per call. */
static PM_NOINLINE int raw_placeholder_error(pm_tag *tag, PyObject *child) {
    pm_placeholder *ph = (pm_placeholder *)child;
    if (ph->index >= 0)
        PyErr_Format(PyExc_TypeError,
                     "@baked %U(): parameter '%U' is in the text of <%U>, " PM_RAW_PER_CALL_ADVICE,
                     ph->func_name, ph->name, tag->name);
    else
        PyErr_Format(
            PyExc_TypeError,
            "@baked %U(): a per-call value is in the text of <%U>, " PM_RAW_PER_CALL_ADVICE,
            ph->func_name, tag->name);
    return -1;
}

static PM_NOINLINE int add_children_seq(pm_tag *tag, pm_vec *kids, PyObject *seq) {
    if (pm_stack_check("while flattening markup children") < 0 ||
        Py_EnterRecursiveCall(" while flattening markup children"))
        return -1;
    int r = 0;
    /* Re-read the size each time: checking a child may run Python code. */
    for (Py_ssize_t i = 0; r == 0 && i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *item = Py_NewRef(PySequence_Fast_GET_ITEM(seq, i));
        r = add_child(tag, kids, item);
        Py_DECREF(item);
    }
    Py_LeaveRecursiveCall();
    return r;
}

static PM_NOINLINE int add_children_iter(pm_tag *tag, pm_vec *kids, PyObject *it) {
    if (pm_stack_check("while flattening markup children") < 0 ||
        Py_EnterRecursiveCall(" while flattening markup children"))
        return -1;
    int r = 0;
    PyObject *item;
    while (r == 0 && (item = PyIter_Next(it)) != NULL) {
        r = add_child(tag, kids, item);
        Py_DECREF(item);
    }
    if (r == 0 && PyErr_Occurred()) r = -1;
    Py_LeaveRecursiveCall();
    return r;
}

/* Names the mapping by its keys: its values may be a @baked builder's
   stand-ins, whose text is internal. */
static PM_NOINLINE int mapping_after_child_error(pm_tag *tag, PyObject *mapping) {
    PyObject *keys = PySequence_List(mapping);
    if (!keys) return -1;
    PyErr_Format(PyExc_TypeError,
                 "<%U>: attribute mapping with keys %R given after a child; pass attribute "
                 "mappings first, before any children (or use keywords)",
                 tag->name, keys);
    Py_DECREF(keys);
    return -1;
}

static PM_NOINLINE int bad_child(pm_tag *tag, PyObject *child) {
    if (PyBool_Check(child)) {
        PyErr_Format(PyExc_TypeError,
                     "<%U>: a bool child (%R) is almost always a bug (a leftover 'cond and "
                     "x'?); use 'x if cond else None' to render nothing, or str(value) for "
                     "the text",
                     tag->name, child);
    } else if (PyBytes_Check(child) || PyByteArray_Check(child) || PyMemoryView_Check(child)) {
        PyErr_Format(PyExc_TypeError,
                     "<%U>: cannot render %.100s as a child; decode it to str first "
                     "(e.g. value.decode('utf-8'))",
                     tag->name, Py_TYPE(child)->tp_name);
    } else if (PyDict_Check(child) || PyObject_IsInstance(child, tag->st->mapping_abc) == 1) {
        mapping_after_child_error(tag, child);
    } else if (Py_TYPE(child) == tag->st->tag_type) {
        PyErr_Format(PyExc_TypeError,
                     "<%U>: got the factory %R as a child, not an element; call it: %R()",
                     tag->name, child, child);
    } else if (PyAnySet_Check(child)) {
        PyErr_Format(PyExc_TypeError,
                     "<%U>: a %.100s has no order, so it cannot be a list of children; "
                     "pass sorted(...) or a list",
                     tag->name, Py_TYPE(child)->tp_name);
    } else {
        PyErr_Format(PyExc_TypeError,
                     "<%U>: cannot render a child of type '%.100s': it has no text of its own "
                     "(its type defines no __str__); pass str, int, float, None, an element, "
                     "a SafeString (or any object with __html__), an object whose type "
                     "defines __str__, or a list of these",
                     tag->name, Py_TYPE(child)->tp_name);
    }
    return -1;
}

int pm_eager_children(pm_state *st) {
    PyObject *d = PyThreadState_GetDict(); /* borrowed; NULL: none yet */
    if (d == NULL) return 0;
    PyObject *on = PyDict_GetItemWithError(d, st->str_eager);
    if (on == NULL) return PyErr_Occurred() ? -1 : 0;
    return on == Py_True;
}

static PM_NOINLINE int baked_lazy_error(pm_tag *tag, PyObject *child) {
    PyErr_Format(PyExc_TypeError,
                 "<%U>: a %.100s child in a @baked builder would be called or awaited once, "
                 "when baking, not per call; call it in the caller and pass the result as a "
                 "parameter",
                 tag->name, Py_TYPE(child)->tp_name);
    return -1;
}

static PM_NOINLINE int add_lazy_child(pm_state *st, pm_vec *kids, PyObject *source, int kind) {
    pm_lazy *lazy = PyObject_GC_New(pm_lazy, st->lazy_type);
    if (lazy == NULL) return -1;
    lazy->source = Py_NewRef(source);
    lazy->kind = (uint8_t)kind;
    lazy->taken = 0;
    PyObject_GC_Track(lazy);
    kids->flags |= PM_ELEMENT_LAZY;
    int r = vec_push(kids, (PyObject *)lazy);
    Py_DECREF(lazy);
    return r;
}

/* A Lazy from another element's .children (h.Div(*el.children), pretty()):
   shared, so a one-shot source is still taken once. */
static PM_NOINLINE int add_taken_lazy(pm_tag *tag, pm_vec *kids, pm_lazy *lazy) {
    if (is_raw_kind(tag->kind)) return raw_child_error(tag, (PyObject *)lazy);
    int eager = pm_eager_children(tag->st);
    if (eager < 0) return -1;
    if (eager) return baked_lazy_error(tag, lazy->source);
    kids->flags |= PM_ELEMENT_LAZY;
    return vec_push(kids, (PyObject *)lazy);
}

static PM_NOINLINE int add_child_rare(pm_tag *tag, pm_vec *kids, PyObject *child) {
    pm_state *st = tag->st;
    int raw = is_raw_kind(tag->kind);
    if (pm_is_placeholder(st, child)) {
        if (raw) return raw_placeholder_error(tag, child);
        return vec_push(kids, child);
    }
    if (PyBool_Check(child)) return bad_child(tag, child);
    if (PyLong_Check(child) || PyFloat_Check(child)) return vec_push(kids, child);
    if (Py_TYPE(child) == st->lazy_type) return add_taken_lazy(tag, kids, (pm_lazy *)child);
    if (Py_TYPE(child) == st->comment_type) {
        if (raw) return raw_child_error(tag, child);
        return vec_push(kids, child);
    }
    if (PyUnicode_Check(child)) {
        /* A subclass with its own __str__ is written as str() of it, which
           is checked when rendered: its stored characters never are. */
        if (!pm_str_has_own_str(child) && check_text_child(tag, child) < 0) return -1;
        return vec_push(kids, child);
    }
    if (PyList_Check(child) || PyTuple_Check(child)) return add_children_seq(tag, kids, child);
    if (PyBytes_Check(child) || PyByteArray_Check(child) || PyDict_Check(child)) {
        return bad_child(tag, child);
    }
    int r = has_html(st, child);
    if (r < 0) return -1;
    if (r > 0) return vec_push(kids, child); /* raw text: checked when rendered */
    /* Raw text is checked whole when the element is built: an iterator of
       its pieces is taken now. */
    if (!raw && Py_TYPE(child) != st->tag_type) {
        int eager = pm_eager_children(st);
        if (eager < 0) return -1;
        int lazy = eager ? -1 : pm_lazy_kind(st, child);
        if (lazy >= 0) return add_lazy_child(st, kids, child, lazy);
        if (eager && !PyIter_Check(child) && pm_lazy_kind(st, child) >= 0)
            return baked_lazy_error(tag, child);
    }
    if (PyIter_Check(child)) return add_children_iter(tag, kids, child);
    /* Its text is str() of it, taken when rendered, as Jinja2 does; in raw
       text, now, to be checked whole with the rest. */
    r = pm_is_text_object(st, child);
    if (r < 0) return -1;
    if (r > 0 && !raw) return vec_push(kids, child);
    if (r > 0) {
        PyObject *text = PyObject_Str(child);
        if (text == NULL) return -1;
        r = add_child_rare(tag, kids, text);
        Py_DECREF(text);
        return r;
    }
    return bad_child(tag, child);
}

/* A fragment's children take its place among its parent's: they were
   checked as children of an ordinary element when it was built. */
static PM_NOINLINE int add_fragment_children(pm_vec *kids, pm_element *fragment) {
    PyObject *const *children = pm_element_children(fragment);
    kids->nodes += fragment->nodes;
    kids->flags |= fragment->flags & PM_ELEMENT_LAZY;
    for (Py_ssize_t i = 0; i < pm_element_nchildren(fragment); i++) {
        if (vec_push(kids, children[i]) < 0) return -1;
    }
    return 0;
}

static int add_child(pm_tag *tag, pm_vec *kids, PyObject *child) {
    if (PyUnicode_CheckExact(child)) {
        if (!PyUnicode_IS_ASCII(child) || is_raw_kind(tag->kind)) {
            if (check_text_child(tag, child) < 0) return -1;
        }
        return vec_push(kids, child);
    }
    if (Py_TYPE(child) == tag->st->element_type) {
        if (is_raw_kind(tag->kind)) return raw_child_error(tag, child);
        pm_element *el = (pm_element *)child;
        if (el->flags & PM_ELEMENT_FRAGMENT) return add_fragment_children(kids, el);
        kids->nodes += el->nodes + 1;
        kids->flags |= el->flags & PM_ELEMENT_LAZY;
        return vec_push(kids, child);
    }
    if (child == Py_None) return 0;
    if (PyList_CheckExact(child) || PyTuple_CheckExact(child)) {
        return add_children_seq(tag, kids, child);
    }
    return add_child_rare(tag, kids, child);
}

/* Whether an element holding `v`'s items could be part of a reference
   cycle. Text, numbers, None, comments and elements the collector does not
   track cannot refer back to it; like a tuple of such atoms, an element of
   them stays untracked, so building and freeing a page of elements costs
   the cycle collector nothing. Other objects (__html__ objects,
   placeholders) may hold anything. Elements are immutable: the answer
   never changes. */
static int may_be_in_cycle(pm_state *st, const pm_vec *v) {
    for (Py_ssize_t i = 0; i < v->len; i++) {
        PyObject *o = v->items[i];
        PyTypeObject *t = Py_TYPE(o);
        if (t == &PyUnicode_Type || t == st->safestring_type || t == &PyLong_Type ||
            t == &PyFloat_Type || t == &PyBool_Type || o == Py_None || t == st->comment_type)
            continue;
        if (t == st->element_type && !PyObject_GC_IsTracked(o)) continue;
        return 1;
    }
    return 0;
}

static PM_NOINLINE int void_error(pm_tag *tag, Py_ssize_t nkids) {
    PyErr_Format(PyExc_TypeError,
                 "<%U> is a void element and cannot have children (got %zd); pass only "
                 "attributes, and put the content next to it instead",
                 tag->name, nkids);
    return -1;
}

static PyObject *tag_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf,
                                PyObject *kwnames) {
    pm_tag *tag = (pm_tag *)callable;
    pm_state *st = tag->st;
    if (st->element_type == NULL) { /* only while the module is torn down */
        PyErr_SetString(PyExc_RuntimeError, "markup: the module has been cleared");
        return NULL;
    }
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    pm_vec attrs, kids;
    vec_init(&attrs);
    vec_init(&kids);

    /* Leading mappings are attributes. */
    Py_ssize_t i = 0;
    for (; i < nargs; i++) {
        PyObject *arg = args[i];
        if (PyDict_CheckExact(arg)) {
            if (add_dict_attrs(tag, &attrs, arg) < 0) goto error;
            continue;
        }
        if (PyUnicode_CheckExact(arg) || Py_TYPE(arg) == st->element_type) break;
        int is_map = is_mapping_rare(st, arg);
        if (is_map < 0) goto error;
        if (!is_map) break;
        if (add_mapping_attrs(tag, &attrs, arg) < 0) goto error;
    }
    for (Py_ssize_t k = 0; k < nkw; k++) {
        if (add_kw_attr(tag, &attrs, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) < 0) {
            goto error;
        }
    }
    if (attrs.len > 0 && (tag->flags & PM_ELEMENT_FRAGMENT)) {
        PyErr_Format(PyExc_TypeError,
                     "%U takes children only: a fragment has no tag to hold attribute %R; "
                     "put the attributes on an element",
                     tag->label, attrs.items[0]);
        goto error;
    }
    /* The rest are children; a mapping here is a misplaced attribute set. */
    for (; i < nargs; i++) {
        PyObject *arg = args[i];
        if (PyDict_CheckExact(arg)) {
            mapping_after_child_error(tag, arg);
            goto error;
        }
        if (add_child(tag, &kids, arg) < 0) goto error;
    }
    if (kids.len > 0 && tag->kind == MARKUP_TAG_VOID) {
        void_error(tag, kids.len);
        goto error;
    }
    if (kids.len > 1 && is_raw_kind(tag->kind) && check_raw_text_joined(tag, &kids) < 0) {
        goto error;
    }

    int cyclic = may_be_in_cycle(st, &attrs) || may_be_in_cycle(st, &kids);
    pm_element *el = PyObject_GC_NewVar(pm_element, st->element_type, attrs.len + kids.len);
    if (el == NULL) goto error;
    el->tag = Py_NewRef(tag->name);
    el->nattrs = attrs.len / 2;
    el->nodes = kids.nodes;
    el->kind = tag->kind;
    el->flags = tag->flags | kids.flags;
    el->cls = tag->cls;
    /* The element takes over the vectors' references. */
    move_refs(el->items, attrs.items, attrs.len);
    move_refs(el->items + attrs.len, kids.items, kids.len);
    attrs.len = 0;
    kids.len = 0;
    vec_clear(&attrs);
    vec_clear(&kids);
    if (cyclic) PyObject_GC_Track(el);
    return (PyObject *)el;

error:
    vec_clear(&attrs);
    vec_clear(&kids);
    return NULL;
}

/* --- the Tag type ------------------------------------------------------- */

static PyObject *tag_create(pm_state *st, PyTypeObject *type, PyObject *name, PyObject *label,
                            uint8_t flags) {
    Py_ssize_t n;
    const char *s = pm_utf8(name, &n, NULL, "Tag()");
    if (s == NULL) return NULL;
    markup_tag_kind kind = MARKUP_TAG_NORMAL;
    markup_error err = MARKUP_ERROR_INIT;
    if (markup_html_check_tag(s, (size_t)n, &kind, &err) != MARKUP_OK) {
        PyErr_Format(PyExc_ValueError,
                     "Tag(%R): invalid tag name (%s at byte %zu); a tag name is an ASCII "
                     "letter followed by letters, digits or '-', like 'my-widget'",
                     name, err.msg ? err.msg : "rejected", pm_err_pos(&err));
        return NULL;
    }
    pm_tag *tag = PyObject_GC_New(pm_tag, type);
    if (tag == NULL) return NULL;
    tag->vectorcall = tag_vectorcall;
    tag->st = st;
    tag->name = PyUnicode_FromStringAndSize(s, n); /* an exact, interned str */
    if (tag->name != NULL) PyUnicode_InternInPlace(&tag->name);
    tag->label = Py_XNewRef(label);
    tag->kind = (uint8_t)kind;
    tag->flags = flags;
    tag->cls = markup_html_tag_class(s, (size_t)n);
    PyObject_GC_Track(tag);
    if (tag->name == NULL) {
        Py_DECREF(tag);
        return NULL;
    }
    return (PyObject *)tag;
}

static PyObject *tag_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    pm_state *st = pm_state_from_type(type);
    if (st == NULL) return NULL;
    PyObject *name;
    static char *kwlist[] = {"name", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "U:Tag", kwlist, &name)) return NULL;
    return tag_create(st, type, name, NULL, 0);
}

static int tag_traverse(pm_tag *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->label);
    return 0;
}

static int tag_clear(pm_tag *self) {
    Py_CLEAR(self->label);
    return 0;
}

static void tag_dealloc(pm_tag *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->name);
    Py_CLEAR(self->label);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *tag_repr(pm_tag *self) {
    if (self->label != NULL) return Py_NewRef(self->label);
    return PyUnicode_FromFormat("Tag(%R)", self->name);
}

static PyObject *tag_get_name(pm_tag *self, void *closure) {
    (void)closure;
    return Py_NewRef(self->name);
}

static PyObject *tag_get_void(pm_tag *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(self->kind == MARKUP_TAG_VOID);
}

static PyGetSetDef tag_getset[] = {
    {"name", (getter)tag_get_name, NULL, "The tag name, as written in HTML.", NULL},
    {"void", (getter)tag_get_void, NULL, "True for void elements such as <br>.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef tag_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(pm_tag, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

PyDoc_STRVAR(tag_doc, "Tag(name)\n--\n\n"
                      "An element factory: Tag('my-widget')(...) builds <my-widget> elements.\n"
                      "Call it with attribute mappings first, then children; keywords are\n"
                      "attributes too (class_='x' -> class, data_id=3 -> data-id). h.Div and the\n"
                      "other h.* factories are Tag objects.");

static PyType_Slot tag_slots[] = {
    {Py_tp_new, tag_new},           {Py_tp_dealloc, tag_dealloc},
    {Py_tp_traverse, tag_traverse}, {Py_tp_clear, tag_clear},
    {Py_tp_repr, tag_repr},         {Py_tp_call, PyVectorcall_Call},
    {Py_tp_getset, tag_getset},     {Py_tp_members, tag_members},
    {Py_tp_doc, (void *)tag_doc},   {0, NULL},
};

static PyType_Spec tag_spec = {
    .name = "markup.Tag",
    .basicsize = sizeof(pm_tag),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL
#ifdef Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_IMMUTABLETYPE
#endif
    ,
    .slots = tag_slots,
};

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
/* Lazy: a child taken when the element is rendered                          */
/* ------------------------------------------------------------------------ */

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
    PyObject *plain = number ? PyObject_Str(text) : PyUnicode_FromObject(text); /* a plain str */
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

/* ------------------------------------------------------------------------ */
/* The `h` namespace                                                          */
/* ------------------------------------------------------------------------ */

/* Recent lookups of h.<Name>, by the name's address. CPython cannot
   specialize attribute access on a type with its own getattr, so every
   h.Div in a loop comes here; the names are the caller's interned
   constants, and a pointer compare answers most of them without a dict
   lookup. Each entry holds references to its name and its factory. Not
   kept without a GIL. */
#define PM_LOOKUP_CACHE 32

typedef struct pm_namespace {
    PyObject_HEAD PyObject *factories; /* dict: "Div" -> Tag */
#ifndef Py_GIL_DISABLED
    PyObject *cached_name[PM_LOOKUP_CACHE];
    PyObject *cached_tag[PM_LOOKUP_CACHE];
#endif
} pm_namespace;

/* The elements of the HTML living standard; h.<Capitalized> for each. */
static const char *const html_elements[] = {
    "a",       "abbr",     "address",    "area",       "article",  "aside",    "audio",    "b",
    "base",    "bdi",      "bdo",        "blockquote", "body",     "br",       "button",   "canvas",
    "caption", "cite",     "code",       "col",        "colgroup", "data",     "datalist", "dd",
    "del",     "details",  "dfn",        "dialog",     "div",      "dl",       "dt",       "em",
    "embed",   "fieldset", "figcaption", "figure",     "footer",   "form",     "h1",       "h2",
    "h3",      "h4",       "h5",         "h6",         "head",     "header",   "hgroup",   "hr",
    "html",    "i",        "iframe",     "img",        "input",    "ins",      "kbd",      "label",
    "legend",  "li",       "link",       "main",       "map",      "mark",     "math",     "menu",
    "meta",    "meter",    "nav",        "noscript",   "object",   "ol",       "optgroup", "option",
    "output",  "p",        "picture",    "pre",        "progress", "q",        "rp",       "rt",
    "ruby",    "s",        "samp",       "script",     "search",   "section",  "select",   "slot",
    "small",   "source",   "span",       "strong",     "style",    "sub",      "summary",  "sup",
    "svg",     "table",    "tbody",      "td",         "template", "textarea", "tfoot",    "th",
    "thead",   "time",     "title",      "tr",         "track",    "u",        "ul",       "var",
    "video",   "wbr",
};

/* SVG 2's and MathML Core's elements, by their case-sensitive names:
   h.LinearGradient writes <linearGradient>, h.AnnotationXml
   <annotation-xml>. Those HTML has too (a, script, style, title, svg, math)
   keep their HTML factory: the writer applies the foreign-content rules
   from where an element stands, not from its factory. */
static const char *const svg_elements[] = {
    "animate",
    "animateMotion",
    "animateTransform",
    "circle",
    "clipPath",
    "defs",
    "desc",
    "ellipse",
    "feBlend",
    "feColorMatrix",
    "feComponentTransfer",
    "feComposite",
    "feConvolveMatrix",
    "feDiffuseLighting",
    "feDisplacementMap",
    "feDistantLight",
    "feDropShadow",
    "feFlood",
    "feFuncA",
    "feFuncB",
    "feFuncG",
    "feFuncR",
    "feGaussianBlur",
    "feImage",
    "feMerge",
    "feMergeNode",
    "feMorphology",
    "feOffset",
    "fePointLight",
    "feSpecularLighting",
    "feSpotLight",
    "feTile",
    "feTurbulence",
    "filter",
    "foreignObject",
    "g",
    "image",
    "line",
    "linearGradient",
    "marker",
    "mask",
    "metadata",
    "mpath",
    "path",
    "pattern",
    "polygon",
    "polyline",
    "radialGradient",
    "rect",
    "set",
    "stop",
    "switch",
    "symbol",
    "text",
    "textPath",
    "tspan",
    "use",
    "view",
};

static const char *const mathml_elements[] = {
    "annotation", "annotation-xml", "maction",     "merror",    "mfrac",
    "mi",         "mmultiscripts",  "mn",          "mo",        "mover",
    "mpadded",    "mphantom",       "mprescripts", "mroot",     "mrow",
    "ms",         "mspace",         "msqrt",       "mstyle",    "msub",
    "msubsup",    "msup",           "mtable",      "mtd",       "mtext",
    "mtr",        "munder",         "munderover",  "semantics",
};

static PM_NOINLINE PyObject *namespace_missing(pm_namespace *self, PyObject *name) {
    /* Suggest the right spelling: h.div -> h.Div, h.MyWidget ->
       Tag('my-widget'). */
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(name, &n);
    if (s == NULL) return NULL;
    if (n > 0 && s[0] != '_' && n < 64) {
        char camel[64], kebab[160];
        size_t k = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            char c = s[i];
            camel[i] = (char)(i == 0 && c >= 'a' && c <= 'z'
                                  ? c - 32
                                  : (i > 0 && c >= 'A' && c <= 'Z' ? c + 32 : c));
            if (c >= 'A' && c <= 'Z') {
                if (i > 0) kebab[k++] = '-';
                kebab[k++] = (char)(c + 32);
            } else {
                kebab[k++] = c == '_' ? '-' : c;
            }
        }
        PyObject *alt = PyUnicode_FromStringAndSize(camel, n);
        if (alt == NULL) return NULL;
        int known = PyDict_Contains(self->factories, alt);
        if (known > 0 && PyUnicode_Compare(alt, name) != 0) {
            PyErr_Format(PyExc_AttributeError,
                         "h has no element %R; element factories are capitalized: h.%U", name, alt);
            Py_DECREF(alt);
            return NULL;
        }
        Py_DECREF(alt);
        if (known < 0) return NULL;
        if (markup_html_check_tag(kebab, k, NULL, NULL) == MARKUP_OK) {
            PyObject *custom = PyUnicode_FromStringAndSize(kebab, (Py_ssize_t)k);
            if (custom == NULL) return NULL;
            PyErr_Format(PyExc_AttributeError,
                         "h has no element %R (h has the elements of the HTML standard); for "
                         "a custom element use Tag(%R)",
                         name, custom);
            Py_DECREF(custom);
            return NULL;
        }
    }
    PyErr_Format(PyExc_AttributeError,
                 "h has no element %R; for a custom element use Tag(\"name\")", name);
    return NULL;
}

static PyObject *namespace_getattro(pm_namespace *self, PyObject *name) {
#ifndef Py_GIL_DISABLED
    uint64_t h = pm_pointer_hash(name);
    size_t slot = (size_t)(h >> 32) % PM_LOOKUP_CACHE;
    if (self->cached_name[slot] == name) return Py_NewRef(self->cached_tag[slot]);
#endif
    if (self->factories == NULL) return PyObject_GenericGetAttr((PyObject *)self, name);
    PyObject *tag = PyDict_GetItemWithError(self->factories, name);
    if (tag != NULL) {
#ifndef Py_GIL_DISABLED
        PyObject *old_name = self->cached_name[slot], *old_tag = self->cached_tag[slot];
        self->cached_name[slot] = Py_NewRef(name);
        self->cached_tag[slot] = Py_NewRef(tag);
        Py_XDECREF(old_name);
        Py_XDECREF(old_tag);
#endif
        return Py_NewRef(tag);
    }
    if (PyErr_Occurred()) return NULL;
    PyObject *r = PyObject_GenericGetAttr((PyObject *)self, name);
    if (r != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
    PyErr_Clear();
    return namespace_missing(self, name);
}

static PyObject *namespace_dir(pm_namespace *self, PyObject *unused) {
    (void)unused;
    if (self->factories == NULL) return PyList_New(0);
    PyObject *names = PyDict_Keys(self->factories);
    if (names != NULL && PyList_Sort(names) < 0) Py_CLEAR(names);
    return names;
}

static PyObject *namespace_repr(pm_namespace *self) {
    (void)self;
    return PyUnicode_FromString("<markup.h: h.Div, h.Span, ... one factory per HTML element>");
}

static int namespace_traverse(pm_namespace *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->factories);
#ifndef Py_GIL_DISABLED
    for (size_t i = 0; i < PM_LOOKUP_CACHE; i++) Py_VISIT(self->cached_tag[i]);
#endif
    return 0;
}

static int namespace_clear(pm_namespace *self) {
    Py_CLEAR(self->factories);
#ifndef Py_GIL_DISABLED
    for (size_t i = 0; i < PM_LOOKUP_CACHE; i++) {
        Py_CLEAR(self->cached_name[i]);
        Py_CLEAR(self->cached_tag[i]);
    }
#endif
    return 0;
}

static void namespace_dealloc(pm_namespace *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    namespace_clear(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyMethodDef namespace_methods[] = {
    {"__dir__", (PyCFunction)namespace_dir, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot namespace_slots[] = {
    {Py_tp_getattro, namespace_getattro},
    {Py_tp_dealloc, namespace_dealloc},
    {Py_tp_traverse, namespace_traverse},
    {Py_tp_clear, namespace_clear},
    {Py_tp_repr, namespace_repr},
    {Py_tp_methods, namespace_methods},
    {Py_tp_doc, (void *)"The element factories: h.Div, h.Span, ..., h.HtmlDocument."},
    {0, NULL},
};

static PyType_Spec namespace_spec = {
    .name = "markup.TagNamespace",
    .basicsize = sizeof(pm_namespace),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC
#ifdef Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_IMMUTABLETYPE
#endif
    ,
    .slots = namespace_slots,
};

static int add_factory(pm_state *st, const char *tag_name, const char *attr, uint8_t flags) {
    PyObject *name = PyUnicode_FromString(tag_name);
    PyObject *key = PyUnicode_InternFromString(attr);
    PyObject *label = PyUnicode_FromFormat("h.%s", attr);
    PyObject *tag = NULL;
    int r = -1;
    if (name != NULL && key != NULL && label != NULL) {
        tag = tag_create(st, st->tag_type, name, label, flags);
        if (tag != NULL) r = PyDict_SetItem(st->factories, key, tag);
    }
    Py_XDECREF(name);
    Py_XDECREF(key);
    Py_XDECREF(label);
    Py_XDECREF(tag);
    return r;
}

/* h.<Name> for foreign elements: the first letter capitalized and each
   "-x" as "X" (annotation-xml -> AnnotationXml); the name is kept as is. */
static int add_foreign_factories(pm_state *st, const char *const *names, size_t count) {
    for (size_t i = 0; i < count; i++) {
        char attr[32];
        size_t k = 0;
        for (const char *c = names[i]; *c != '\0' && k + 1 < sizeof attr; c++) {
            if (*c == '-') continue;
            int upper = c == names[i] || c[-1] == '-';
            attr[k++] = upper && *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
        }
        attr[k] = '\0';
        if (add_factory(st, names[i], attr, 0) < 0) return -1;
    }
    return 0;
}

static int add_type(PyObject *module, PyTypeObject **slot, PyType_Spec *spec, PyObject *base) {
    *slot = (PyTypeObject *)PyType_FromModuleAndSpec(module, spec, base);
    if (*slot == NULL) return -1;
    const char *dot = strrchr(spec->name, '.');
    return PyModule_AddObjectRef(module, dot ? dot + 1 : spec->name, (PyObject *)*slot);
}

int pm_element_init(PyObject *module, pm_state *st) {
    if (add_type(module, &st->element_type, &element_spec, NULL) < 0) return -1;
    if (add_type(module, &st->tag_type, &tag_spec, NULL) < 0) return -1;
    if (add_type(module, &st->comment_type, &comment_spec, NULL) < 0) return -1;
    if (add_type(module, &st->lazy_type, &lazy_spec, NULL) < 0) return -1;
    if (add_type(module, &st->namespace_type, &namespace_spec, NULL) < 0) return -1;
    /* 3.9 has no Py_TPFLAGS_DISALLOW_INSTANTIATION: elements come from
       factories only. */
    st->element_type->tp_new = NULL;
    st->lazy_type->tp_new = NULL;
    st->namespace_type->tp_new = NULL;

    st->factories = PyDict_New();
    if (st->factories == NULL) return -1;
    for (size_t i = 0; i < sizeof html_elements / sizeof html_elements[0]; i++) {
        char camel[32];
        size_t n = strlen(html_elements[i]);
        memcpy(camel, html_elements[i], n + 1);
        camel[0] = (char)(camel[0] - 'a' + 'A');
        if (add_factory(st, html_elements[i], camel, 0) < 0) return -1;
    }
    if (add_foreign_factories(st, svg_elements, sizeof svg_elements / sizeof svg_elements[0]) < 0 ||
        add_foreign_factories(st, mathml_elements,
                              sizeof mathml_elements / sizeof mathml_elements[0]) < 0)
        return -1;
    if (add_factory(st, "html", "HtmlDocument", PM_ELEMENT_DOCTYPE) < 0) return -1;
    /* Its tag name is never written; it only names the fragment in errors. */
    if (add_factory(st, "fragment", "Fragment", PM_ELEMENT_FRAGMENT) < 0) return -1;

    pm_namespace *h = PyObject_GC_New(pm_namespace, st->namespace_type);
    if (h == NULL) return -1;
    h->factories = Py_NewRef(st->factories);
#ifndef Py_GIL_DISABLED
    memset(h->cached_name, 0, sizeof h->cached_name);
    memset(h->cached_tag, 0, sizeof h->cached_tag);
#endif
    PyObject_GC_Track(h);
    st->h = (PyObject *)h;
    return PyModule_AddObjectRef(module, "h", st->h);
}
