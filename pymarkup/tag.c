/*
 * tag.c - Tag, the element factory, and its call, the hot path of building
 * a tree: h.Div(...) runs through vectorcall with hand-written argument
 * handling. Exact types (str, dict, Element, list, tuple) are tested
 * first; everything else goes to out-of-line "rare" functions. The call's
 * attributes are checked by tag_attrs.c, its children here: all validation
 * happens at construction, so that a bad value is reported where it was
 * written and the render walker can trust the tree.
 */
#include "state.h"

#include <structmember.h>

static inline int is_raw_kind(uint8_t kind) {
    return kind == MARKUP_TAG_SCRIPT || kind == MARKUP_TAG_STYLE;
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

/* ------------------------------------------------------------------------ */
/* Children                                                                   */
/* ------------------------------------------------------------------------ */

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
static PM_NOINLINE int raw_stand_in_error(pm_tag *tag, PyObject *child) {
    pm_stand_in *stand_in = (pm_stand_in *)child;
    if (stand_in->index >= 0)
        PyErr_Format(PyExc_TypeError,
                     "@baked %U(): parameter '%U' is in the text of <%U>, " PM_RAW_PER_CALL_ADVICE,
                     stand_in->func_name, stand_in->name, tag->name);
    else
        PyErr_Format(
            PyExc_TypeError,
            "@baked %U(): a per-call value is in the text of <%U>, " PM_RAW_PER_CALL_ADVICE,
            stand_in->func_name, tag->name);
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
    int r = pm_vec_push(kids, (PyObject *)lazy);
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
    return pm_vec_push(kids, (PyObject *)lazy);
}

static PM_NOINLINE int add_child_rare(pm_tag *tag, pm_vec *kids, PyObject *child) {
    pm_state *st = tag->st;
    int raw = is_raw_kind(tag->kind);
    if (pm_is_stand_in(st, child)) {
        if (raw) return raw_stand_in_error(tag, child);
        return pm_vec_push(kids, child);
    }
    if (PyBool_Check(child)) return bad_child(tag, child);
    if (PyLong_Check(child) || PyFloat_Check(child)) return pm_vec_push(kids, child);
    if (Py_TYPE(child) == st->lazy_type) return add_taken_lazy(tag, kids, (pm_lazy *)child);
    if (Py_TYPE(child) == st->comment_type) {
        if (raw) return raw_child_error(tag, child);
        return pm_vec_push(kids, child);
    }
    if (PyUnicode_Check(child)) {
        /* A subclass with its own __str__ is written as str() of it, which
           is checked when rendered: its stored characters never are. */
        if (!pm_str_has_own_str(child) && check_text_child(tag, child) < 0) return -1;
        return pm_vec_push(kids, child);
    }
    if (PyList_Check(child) || PyTuple_Check(child)) return add_children_seq(tag, kids, child);
    if (PyBytes_Check(child) || PyByteArray_Check(child) || PyDict_Check(child)) {
        return bad_child(tag, child);
    }
    int r = pm_has_html(st, child);
    if (r < 0) return -1;
    if (r > 0) return pm_vec_push(kids, child); /* raw text: checked when rendered */
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
    if (r > 0 && !raw) return pm_vec_push(kids, child);
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
        if (pm_vec_push(kids, children[i]) < 0) return -1;
    }
    return 0;
}

static int add_child(pm_tag *tag, pm_vec *kids, PyObject *child) {
    if (PyUnicode_CheckExact(child)) {
        if (!PyUnicode_IS_ASCII(child) || is_raw_kind(tag->kind)) {
            if (check_text_child(tag, child) < 0) return -1;
        }
        return pm_vec_push(kids, child);
    }
    if (Py_TYPE(child) == tag->st->element_type) {
        if (is_raw_kind(tag->kind)) return raw_child_error(tag, child);
        pm_element *el = (pm_element *)child;
        if (el->flags & PM_ELEMENT_FRAGMENT) return add_fragment_children(kids, el);
        kids->nodes += el->nodes + 1;
        kids->flags |= el->flags & PM_ELEMENT_LAZY;
        return pm_vec_push(kids, child);
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
   stand-ins) may hold anything. Elements are immutable: the answer
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
    pm_vec_init(&attrs);
    pm_vec_init(&kids);

    /* Leading mappings are attributes. */
    Py_ssize_t i = 0;
    for (; i < nargs; i++) {
        PyObject *arg = args[i];
        if (PyDict_CheckExact(arg)) {
            if (pm_add_dict_attrs(tag, &attrs, arg) < 0) goto error;
            continue;
        }
        if (PyUnicode_CheckExact(arg) || Py_TYPE(arg) == st->element_type) break;
        int is_map = pm_is_attr_mapping(st, arg);
        if (is_map < 0) goto error;
        if (!is_map) break;
        if (pm_add_mapping_attrs(tag, &attrs, arg) < 0) goto error;
    }
    for (Py_ssize_t k = 0; k < nkw; k++) {
        if (pm_add_kw_attr(tag, &attrs, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) < 0) {
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
    pm_vec_clear(&attrs);
    pm_vec_clear(&kids);
    if (cyclic) PyObject_GC_Track(el);
    return (PyObject *)el;

error:
    pm_vec_clear(&attrs);
    pm_vec_clear(&kids);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* The Tag type                                                               */
/* ------------------------------------------------------------------------ */

PyObject *pm_tag_create(pm_state *st, PyTypeObject *type, PyObject *name, PyObject *label,
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
    return pm_tag_create(st, type, name, NULL, 0);
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

int pm_tag_init(PyObject *module, pm_state *st) {
    return pm_add_type(module, &st->tag_type, &tag_spec, NULL);
}
