/*
 * tag_attrs.c - the attributes of a factory call (h.Div({...}, id=...)):
 * names checked (and cached by address), values checked, keywords turned
 * into names ("class_" -> "class"), duplicates refused, and a list or
 * mapping given to class or style joined by markup's rules.
 *
 * Part of building an element (tag.c calls in here with the call's
 * mappings and keywords); everything is validated here so that the render
 * walker can trust the tree.
 */
#include "state.h"

/* The kwname cache only holds names seen in source code; a program that
   passes unbounded **kwargs keys must not grow it forever. */
#define PM_KWNAME_CACHE_MAX 4096

/* Above this many attributes, duplicates are found with a set instead of a
   linear scan. */
#define PM_ATTR_SCAN_MAX 32

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
    if (pm_is_stand_in(st, value)) return 0;
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
    int r = pm_has_html(st, value);
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
    if (pm_vec_push(attrs, name) < 0 || pm_vec_push(attrs, value) < 0) return -1;
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
        pm_is_stand_in(st, value))
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

int pm_add_dict_attrs(pm_tag *tag, pm_vec *attrs, PyObject *dict) {
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
int pm_add_mapping_attrs(pm_tag *tag, pm_vec *attrs, PyObject *mapping) {
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
int pm_is_attr_mapping(pm_state *st, PyObject *arg) {
    if (PyList_CheckExact(arg) || PyTuple_CheckExact(arg) || arg == Py_None || PyLong_Check(arg) ||
        PyFloat_Check(arg) || PyUnicode_Check(arg) || Py_TYPE(arg) == st->comment_type ||
        pm_is_stand_in(st, arg) || PyIter_Check(arg)) {
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
    for (Py_ssize_t i = 0; i < n; i++)
        out[i] = (char)(s[i] == '_' && !bare_underscore ? '-' : s[i]);
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

int pm_add_kw_attr(pm_tag *tag, pm_vec *attrs, PyObject *kw, PyObject *value) {
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
