/*
 * render.c - the render walker: one pass over an element tree into one
 * markup_buf, through libmarkup's HTML writer (markup_writer), which
 * decides how each piece is written where it stands.
 *
 * The tree's values were validated when it was built (tag.c), so the
 * walker only dispatches: exact str and Element first, everything else in
 * render_child_rare. Where the writer says nothing needs checking
 * (markup_writer_plain_buf, markup_writer_attr_buf) text and attributes go
 * straight into the buffer. Depth is bounded by MARKUP_MAX_DEPTH so that no
 * tree can overflow the C stack. pm_render_as is the one entry point:
 * render(), render_bytes() and an element's __html__.
 */
#include "state.h"

#include <stdio.h>

/* A first reservation big enough for small fragments, so that typical
   pages need only a few reallocations. */
#define PM_RENDER_INITIAL_CAP 4096

/* Py_EnterRecursiveCall is taken once per this many levels of elements.
   Up to 3.11 the count is shared with the Python recursion limit (1000),
   which must not cut trees shorter than MARKUP_MAX_DEPTH, and the walker's
   own frames are small. From 3.12 the C recursion limit is separate and
   sized for one C frame per count (10,000 on 3.13): counting only every
   16th level let __html__ methods that render again stack 16 times more
   frames than that and overflow the C stack, so every level counts. */
#if PY_VERSION_HEX >= 0x030C0000
#  define PM_RECURSION_STRIDE 1
#else
#  define PM_RECURSION_STRIDE 16
#endif

static inline int check(markup_status status) {
    if (status == MARKUP_OK) return 0;
    return pm_raise_status(status, "render()");
}

/* ------------------------------------------------------------------------ */
/* Leaves                                                                     */
/* ------------------------------------------------------------------------ */

/* A failed writer call: the exception for its status. `s[0..n)` is the
   text it refused, if any, to quote the refused sequence. The element named
   is the one open in the writer (the one the writer refused to open is
   named by open_error). */
static PM_NOINLINE int writer_error(pm_render_ctx *ctx, markup_status st, const markup_error *err,
                                    const char *what, const char *s, size_t n) {
    if (st == MARKUP_ERR_NOMEM || st == MARKUP_ERR_TOO_LARGE) return check(st);
    const markup_writer *w = ctx->w;
    PyObject *tag = pm_open_tag(w, "render()");
    if (tag == NULL) return -1;
    if (st == MARKUP_ERR_RAW_TEXT && err->refused != NULL) {
        /* At err->pos of this piece, or formed with the piece before it. */
        size_t len = strlen(err->refused), i = 0;
        while (s != NULL && err->pos != MARKUP_POS_NONE && i < len && err->pos + i < n &&
               (s[err->pos + i] | 0x20) == (err->refused[i] | 0x20))
            i++;
        pm_raw_text_error(tag, i == len ? what : NULL, err);
    } else if (w && markup_writer_depth(w)) {
        PyErr_Format(PyExc_ValueError, "<%U>: %s", tag,
                     err->msg ? err->msg : markup_status_message(st));
    } else { /* no element of its own open: a baked slot's value, say */
        PyErr_SetString(PyExc_ValueError, err->msg ? err->msg : markup_status_message(st));
    }
    Py_DECREF(tag);
    return -1;
}

/* Text, escaped or raw as the writer decides where it stands. */
static inline int write_text(pm_render_ctx *ctx, PyObject *str) {
    Py_ssize_t n;
    const char *s = pm_utf8(str, &n, NULL, "render()");
    if (s == NULL) return -1;
    if (ctx->plain) return check(markup_escape(ctx->plain, s, (size_t)n));
    markup_error err;
    markup_status st = markup_writer_text(ctx->w, s, (size_t)n, &err);
    return st == MARKUP_OK ? 0 : writer_error(ctx, st, &err, "text contains", s, (size_t)n);
}

/* A str subclass with its own __str__: the escaped text of str(obj). */
static PM_NOINLINE int write_text_of_str(pm_render_ctx *ctx, PyObject *obj) {
    PyObject *text = PyObject_Str(obj);
    if (text == NULL) return -1;
    int r = write_text(ctx, text);
    Py_DECREF(text);
    return r;
}

/* Trusted HTML (or number digits), verbatim. */
static int write_html(pm_render_ctx *ctx, const char *s, size_t n) {
    if (ctx->plain) return check(markup_buf_append(ctx->plain, s, n));
    markup_error err;
    markup_status st = markup_writer_html(ctx->w, s, n, &err);
    return st == MARKUP_OK ? 0 : writer_error(ctx, st, &err, "__html__() text contains", s, n);
}

static int write_verbatim(pm_render_ctx *ctx, PyObject *str) {
    Py_ssize_t n;
    const char *s = pm_utf8(str, &n, NULL, "render()");
    if (s == NULL) return -1;
    return write_html(ctx, s, (size_t)n);
}

/* int and float as str() gives them (what Jinja2 prints); escaped anyway,
   since a subclass may define a surprising __str__. */
static PM_NOINLINE int write_number(pm_render_ctx *ctx, PyObject *num) {
    if (PyLong_CheckExact(num) || PyFloat_CheckExact(num)) {
        char digits[PM_NUMBER_MAX];
        Py_ssize_t len = pm_format_number(num, digits);
        if (len < 0) return -1;
        if (len > 0) return write_html(ctx, digits, (size_t)len);
    }
    PyObject *s = PyObject_Str(num);
    if (s == NULL) return -1;
    int r = write_text(ctx, s);
    Py_DECREF(s);
    return r;
}

static PM_NOINLINE int stand_in_error(PyObject *obj) {
    const pm_stand_in *stand_in = (const pm_stand_in *)obj;
    PyErr_Format(PyExc_TypeError,
                 "cannot render the stand-in for '%U' of @baked %U() outside that function: "
                 "it is only filled when the baked function is called",
                 stand_in->name, stand_in->func_name);
    return -1;
}

/* ------------------------------------------------------------------------ */
/* Attributes                                                                 */
/* ------------------------------------------------------------------------ */

/* A trusted attribute value refused: its '"' would end the quoted value,
   or its start tag stands inside a text element, where the parser reads
   the whole tag as text. */
static PM_NOINLINE int attr_value_error(const pm_render_ctx *ctx, const char *name,
                                        Py_ssize_t name_len, const markup_error *err) {
    const markup_writer *w = ctx->w;
    const char *found = err->refused ? err->refused : "</";
    PyObject *attr = PyUnicode_DecodeUTF8(name, name_len, "replace");
    PyObject *where; /* "<tag>: ", or nothing in a baked attribute slot */
    if (w && markup_writer_depth(w)) {
        PyObject *tag = pm_open_tag(w, "");
        where = tag ? PyUnicode_FromFormat("<%U>: ", tag) : NULL;
        Py_XDECREF(tag);
    } else {
        where = PyUnicode_FromString("");
    }
    if (attr && where && strcmp(found, "\"") == 0)
        PyErr_Format(PyExc_ValueError,
                     "%Uthe trusted (__html__) value of attribute '%U' contains '\"' at byte "
                     "%zu, which would end the quoted value and start markup of its own; give "
                     "the value as a plain str to have it escaped",
                     where, attr, err->pos);
    else if (attr && where)
        PyErr_Format(PyExc_ValueError,
                     "%Uthe trusted (__html__) value of attribute '%U' contains '%s' at byte "
                     "%zu: the element stands inside a text element (title, textarea, noscript, "
                     "iframe, xmp, noembed or noframes), where a parser reads its whole start "
                     "tag as text and that end tag can end the element around early; give the "
                     "value as a plain str to have it escaped",
                     where, attr, found, err->pos);
    Py_XDECREF(attr);
    Py_XDECREF(where);
    return -1;
}

/* An attribute: straight into ctx->attrs where the writer allows it (or in
   a baked attribute slot, checked where its start tag stands), else
   through the writer. */
static int attr_write(pm_render_ctx *ctx, const char *name, Py_ssize_t name_len, const char *s,
                      size_t n, int trusted) {
    markup_status st;
    markup_error err = MARKUP_ERROR_INIT;
    if (ctx->attrs) {
        markup_context at = ctx->w ? markup_writer_start_tag_context(ctx->w) : ctx->attrs_at;
        if (trusted && markup_context_check_attr_html(at, s, n, &err) != MARKUP_OK)
            return attr_value_error(ctx, name, name_len, &err);
        st = trusted ? markup_html_write_attr_html(ctx->attrs, name, (size_t)name_len, s, n)
                     : markup_html_write_attr(ctx->attrs, name, (size_t)name_len, s, n);
    } else {
        st = trusted ? markup_writer_attr_html(ctx->w, name, (size_t)name_len, s, n, &err)
                     : markup_writer_attr(ctx->w, name, (size_t)name_len, s, n, &err);
        if (st == MARKUP_ERR_RAW_TEXT) return attr_value_error(ctx, name, name_len, &err);
    }
    return st == MARKUP_OK ? 0 : writer_error(ctx, st, &err, NULL, NULL, 0);
}

static int attr_write_bare(pm_render_ctx *ctx, const char *name, Py_ssize_t name_len) {
    markup_status st;
    markup_error err = MARKUP_ERROR_INIT;
    if (ctx->attrs)
        st = markup_html_write_attr_bare(ctx->attrs, name, (size_t)name_len);
    else
        st = markup_writer_attr_bool(ctx->w, name, (size_t)name_len, true, &err);
    return st == MARKUP_OK ? 0 : writer_error(ctx, st, &err, NULL, NULL, 0);
}

static PM_NOINLINE int is_formatted_text(PyObject *str);

static PM_NOINLINE int attr_value_rare(pm_render_ctx *ctx, const char *name, Py_ssize_t name_len,
                                       PyObject *value) {
    pm_state *st = ctx->st;
    /* A str subclass made by formatting a stand-in (str(x) gives one). */
    if (ctx->on_children && PyUnicode_Check(value) && is_formatted_text(value))
        return ctx->on_stand_in(ctx, value, name, name_len, 0);
    if (Py_TYPE(value) == st->safestring_type) {
        Py_ssize_t n;
        const char *s = pm_utf8(value, &n, NULL, "render()");
        if (s == NULL) return -1;
        return attr_write(ctx, name, name_len, s, (size_t)n, 1);
    }
    if (pm_is_stand_in(st, value)) {
        if (ctx->on_stand_in == NULL) return stand_in_error(value);
        return ctx->on_stand_in(ctx, value, name, name_len, 0);
    }
    if (PyBool_Check(value)) {
        if (value == Py_True) return attr_write_bare(ctx, name, name_len);
        return 0;
    }
    if (PyLong_CheckExact(value) || PyFloat_CheckExact(value)) {
        char digits[PM_NUMBER_MAX];
        Py_ssize_t len = pm_format_number(value, digits);
        if (len < 0) return -1;
        if (len > 0) return attr_write(ctx, name, name_len, digits, (size_t)len, 1);
    }
    if (Py_TYPE(value) == st->element_type || Py_TYPE(value) == st->comment_type) {
        /* Reached through a baked attribute slot: refuse as h.* does. */
        PyObject *attr = PyUnicode_DecodeUTF8(name, name_len, "replace");
        if (attr == NULL) return -1;
        PyObject *where = PyUnicode_FromString("render()");
        if (where != NULL) pm_node_attr_value_error(st, where, attr, value);
        Py_XDECREF(where);
        Py_DECREF(attr);
        return -1;
    }
    PyObject *text = NULL;
    int trusted = 0;
    {
        /* __html__ first, as markupsafe does: an int or float subclass may
           have one. */
        PyObject *method;
        int r = pm_lookup_html(st, value, &method);
        if (r < 0) return -1;
        if (r > 0) {
            text = pm_call_html(method, value);
            Py_DECREF(method);
            trusted = 1;
        } else if (PyLong_Check(value) || PyFloat_Check(value)) {
            text = PyObject_Str(value);
        } else if (PyUnicode_Check(value)) {
            text = pm_str_has_own_str(value) ? PyObject_Str(value) : Py_NewRef(value);
        } else if ((r = pm_is_text_object(st, value)) != 0) {
            text = r > 0 ? PyObject_Str(value) : NULL;
        } else {
            PyObject *attr = PyUnicode_DecodeUTF8(name, name_len, "replace");
            if (attr == NULL) return -1;
            PyErr_Format(PyExc_TypeError,
                         "attribute %R cannot take a value of type '%.100s'; pass a str, "
                         "int, float, True/False/None, a SafeString or an object whose type "
                         "defines __str__",
                         attr, Py_TYPE(value)->tp_name);
            Py_DECREF(attr);
            return -1;
        }
    }
    if (text == NULL) return -1;
    Py_ssize_t n;
    const char *s = pm_utf8(text, &n, NULL, "render()");
    int r = -1;
    if (s != NULL) r = attr_write(ctx, name, name_len, s, (size_t)n, trusted);
    Py_DECREF(text);
    return r;
}

/* While a template program is compiled, a str attribute value that holds
   a formatting marker (U+10FFFD) is a value formatted per call. */
static PM_NOINLINE int is_formatted_text(PyObject *str) {
    return PyUnicode_FindChar(str, 0x10FFFD, 0, PyUnicode_GET_LENGTH(str), 1) >= 0;
}

int pm_render_attr_value(pm_render_ctx *ctx, const char *name, Py_ssize_t name_len,
                         PyObject *value) {
    if (PyUnicode_CheckExact(value)) {
        if (ctx->on_children && is_formatted_text(value))
            return ctx->on_stand_in(ctx, value, name, name_len, 0);
        Py_ssize_t n;
        const char *s = pm_utf8(value, &n, NULL, "render()");
        if (s == NULL) return -1;
        return attr_write(ctx, name, name_len, s, (size_t)n, 0);
    }
    if (value == Py_None || value == Py_False) return 0;
    if (value == Py_True) return attr_write_bare(ctx, name, name_len);
    return attr_value_rare(ctx, name, name_len, value);
}

/* ------------------------------------------------------------------------ */
/* Elements                                                                   */
/* ------------------------------------------------------------------------ */

static PM_NOINLINE int too_deep(pm_element *el) {
    PyErr_Format(PyExc_ValueError,
                 "<%U>: the tree is nested deeper than %d elements; markup renders at most "
                 "%d levels (build flatter markup, or check for a runaway recursion)",
                 el->tag, MARKUP_MAX_DEPTH, MARKUP_MAX_DEPTH);
    return -1;
}

/* The writer refused to open `el` where it stands. */
static PM_NOINLINE int open_error(pm_render_ctx *ctx, pm_element *el, markup_status st,
                                  const markup_error *err) {
    if (st == MARKUP_ERR_NOMEM || st == MARKUP_ERR_TOO_LARGE) return check(st);
    const markup_writer *w = ctx->w;
    if (markup_writer_depth(w) == 0) {
        PyErr_Format(PyExc_ValueError, "<%U>: %s", el->tag, err->msg);
    } else {
        PyObject *outer = pm_open_tag(w, "");
        if (outer == NULL) return -1;
        PyErr_Format(PyExc_ValueError, "<%U> inside <%U>: %s", el->tag, outer, err->msg);
        Py_DECREF(outer);
    }
    return -1;
}

/* A fragment rendered as itself (at the top, or in a list given to render):
   inside an element it was replaced by its children when that was built. */
static PM_NOINLINE int render_fragment(pm_render_ctx *ctx, pm_element *el, int depth) {
    PyObject *const *children = pm_element_children(el);
    Py_ssize_t n = pm_element_nchildren(el);
    if (ctx->on_children) return n > 0 ? ctx->on_children(ctx, children, n, 0, depth + 1) : 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (pm_render_child(ctx, children[i], depth + 1) < 0) return -1;
    }
    return 0;
}

/* The doctype, start tag and attributes of `el` (not a fragment). */
static inline int render_start(pm_render_ctx *ctx, pm_element *el) {
    markup_writer *w = ctx->w;
    markup_error err;
    markup_status st;
    Py_ssize_t tag_len;
    const char *tag = pm_utf8(el->tag, &tag_len, NULL, "render()"); /* ASCII: no copy */
    if (tag == NULL) return -1;
    if ((el->flags & PM_ELEMENT_DOCTYPE) && (st = markup_writer_doctype(w, &err)) != MARKUP_OK)
        return writer_error(ctx, st, &err, NULL, NULL, 0);
    if ((st = markup_writer_open_class(w, tag, (size_t)tag_len, el->cls, &err)) != MARKUP_OK)
        return open_error(ctx, el, st, &err);
    ctx->attrs = el->nattrs ? markup_writer_attr_buf(w) : NULL;
    for (Py_ssize_t i = 0; i < 2 * el->nattrs; i += 2) {
        Py_ssize_t name_len;
        const char *name = pm_utf8(el->items[i], &name_len, el->tag, NULL);
        if (name == NULL || pm_render_attr_value(ctx, name, name_len, el->items[i + 1]) < 0)
            return -1;
    }
    return 0;
}

static inline int render_end(pm_render_ctx *ctx) {
    markup_error err;
    markup_status st = markup_writer_close(ctx->w, &err);
    return st == MARKUP_OK ? 0 : writer_error(ctx, st, &err, NULL, NULL, 0);
}

int pm_render_start(pm_render_ctx *ctx, pm_element *el, int depth) {
    if (depth >= MARKUP_MAX_DEPTH) return too_deep(el);
    return (el->flags & PM_ELEMENT_FRAGMENT) ? 0 : render_start(ctx, el);
}

int pm_render_end(pm_render_ctx *ctx) { return render_end(ctx); }

static int render_element(pm_render_ctx *ctx, pm_element *el, int depth) {
    if (depth >= MARKUP_MAX_DEPTH) return too_deep(el);
    /* The walker's own frames are small: the C stack is looked at every
       16th level (re-entry through __html__ is checked at the lookup). */
    if (depth % 16 == 15 && pm_stack_check("while rendering markup") < 0) return -1;
    int guarded = depth % PM_RECURSION_STRIDE == PM_RECURSION_STRIDE - 1;
    if (guarded && Py_EnterRecursiveCall(" while rendering markup")) return -1;

    markup_writer *w = ctx->w;
    int r = -1;
    if (el->flags & PM_ELEMENT_FRAGMENT) { /* only its children, where it stands */
        r = render_fragment(ctx, el, depth);
        goto done;
    }
    if (render_start(ctx, el) < 0) goto done;
    PyObject *const *children = pm_element_children(el);
    Py_ssize_t n = pm_element_nchildren(el);
    if (n > 0 && ctx->on_children) {
        int raw = el->kind == MARKUP_TAG_SCRIPT || el->kind == MARKUP_TAG_STYLE;
        markup_buf *outer_plain = ctx->plain;
        ctx->plain = markup_writer_plain_buf(w);
        int rc = ctx->on_children(ctx, children, n, raw, depth + 1);
        ctx->plain = outer_plain;
        if (rc < 0) goto done;
    } else if (n > 0) {
        markup_buf *outer_plain = ctx->plain;
        ctx->plain = markup_writer_plain_buf(w);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (pm_render_child(ctx, children[i], depth + 1) < 0) {
                ctx->plain = outer_plain;
                goto done;
            }
        }
        ctx->plain = outer_plain;
    }
    r = render_end(ctx);

done:
    if (guarded) Py_LeaveRecursiveCall();
    return r;
}

/* ------------------------------------------------------------------------ */
/* Children                                                                   */
/* ------------------------------------------------------------------------ */

static PM_NOINLINE int render_sequence(pm_render_ctx *ctx, PyObject *seq, int depth) {
    if (pm_stack_check("while rendering markup") < 0 ||
        Py_EnterRecursiveCall(" while rendering markup"))
        return -1;
    int r = 0;
    if (ctx->on_children) {
        r = ctx->on_children(ctx, PySequence_Fast_ITEMS(seq), PySequence_Fast_GET_SIZE(seq), 0,
                             depth);
        Py_LeaveRecursiveCall();
        return r;
    }
    for (Py_ssize_t i = 0; r == 0 && i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        /* ASCII text and SafeStrings (a list of baked rows) are written on
           the spot: no Python code runs meanwhile, so the borrowed item
           stays alive. Anything else may run code that changes the list. */
        PyTypeObject *type = Py_TYPE(item);
        if (type == &PyUnicode_Type || type == ctx->st->safestring_type) {
            Py_ssize_t n;
            const char *text = pm_ascii_chars(item, &n);
            if (text != NULL && ctx->plain) {
                r = check(type == &PyUnicode_Type ? markup_escape(ctx->plain, text, (size_t)n)
                                                  : markup_buf_append(ctx->plain, text, (size_t)n));
                continue;
            }
            if (text != NULL) {
                markup_error err;
                markup_status st = type == &PyUnicode_Type
                                       ? markup_writer_text(ctx->w, text, (size_t)n, &err)
                                       : markup_writer_html(ctx->w, text, (size_t)n, &err);
                if (st != MARKUP_OK)
                    r = writer_error(ctx, st, &err,
                                     type == &PyUnicode_Type ? "text contains"
                                                             : "__html__() text contains",
                                     text, (size_t)n);
                continue;
            }
        }
        Py_INCREF(item);
        r = pm_render_child(ctx, item, depth);
        Py_DECREF(item);
    }
    Py_LeaveRecursiveCall();
    return r;
}

static int render_items(pm_render_ctx *ctx, PyObject *it, int depth) {
    int r = 0;
    PyObject *item;
    while (r == 0 && (item = PyIter_Next(it)) != NULL) {
        r = pm_render_child(ctx, item, depth);
        Py_DECREF(item);
    }
    return r == 0 && PyErr_Occurred() ? -1 : r;
}

/* An iterator met as a value (given to render, in a list, yielded): each
   level counts against the recursion limit, as a list does. */
static PM_NOINLINE int render_iterator(pm_render_ctx *ctx, PyObject *it, int depth) {
    if (pm_stack_check("while rendering markup") < 0 ||
        Py_EnterRecursiveCall(" while rendering markup"))
        return -1;
    int r = render_items(ctx, it, depth);
    Py_LeaveRecursiveCall();
    return r;
}

int pm_async_child_error(PyObject *child, int close) {
    /* A coroutine made at render time that nobody will await: closed, so
       that Python does not also warn that it was never awaited. */
    if (close && PyCoro_CheckExact(child)) {
        PyObject *r = PyObject_CallMethod(child, "close", NULL);
        if (r == NULL) return -1;
        Py_DECREF(r);
    }
    PyTypeObject *t = Py_TYPE(child);
    PyErr_Format(PyExc_TypeError,
                 "render(): a child is %s (%.100s): render the tree with aiter_render(), "
                 "which awaits it where it stands",
                 t->tp_as_async && t->tp_as_async->am_await ? "awaitable" : "an async iterable",
                 t->tp_name);
    return -1;
}

/* A child taken now: an iterator's items or a callable's result, where the
   child stands. Async ones need aiter_render. */
static PM_NOINLINE int render_lazy(pm_render_ctx *ctx, pm_lazy *lazy, int depth) {
    if (lazy->kind == PM_LAZY_AWAIT || lazy->kind == PM_LAZY_AITER)
        return pm_async_child_error(lazy->source, 0); /* the element keeps it */
    if (ctx->baking) { /* taken once now, it would be fixed in the template */
        PyErr_Format(PyExc_TypeError,
                     "@baked: an element built outside the builder holds a %s child (%R), "
                     "which would be taken once, when baking, and fixed in the template; "
                     "make it a parameter, or build that element inside the builder",
                     lazy->kind == PM_LAZY_ITER ? "generator or iterator" : "callable",
                     lazy->source);
        return -1;
    }
    if (pm_lazy_take(lazy, ctx->w) < 0) return -1;
    /* A Lazy is an element's child: the element depth bounds its nesting,
       so its items are not counted against the recursion limit as well. */
    if (lazy->kind == PM_LAZY_ITER) return render_items(ctx, lazy->source, depth);
    PyObject *value = PyObject_CallNoArgs(lazy->source);
    if (value == NULL) return -1;
    int r = pm_render_child(ctx, value, depth);
    Py_DECREF(value);
    return r;
}

static PM_NOINLINE int render_child_rare(pm_render_ctx *ctx, PyObject *child, int depth) {
    pm_state *st = ctx->st;
    if (child == Py_None) return 0;
    if (Py_TYPE(child) == st->safestring_type) return write_verbatim(ctx, child);
    if (Py_TYPE(child) == st->lazy_type) return render_lazy(ctx, (pm_lazy *)child, depth);
    if (Py_TYPE(child) == st->comment_type) {
        Py_ssize_t n;
        const char *s = pm_utf8(((pm_comment *)child)->text, &n, NULL, "Comment");
        if (s == NULL) return -1;
        markup_error err;
        markup_status status = markup_writer_comment(ctx->w, s, (size_t)n, &err);
        return status == MARKUP_OK ? 0 : writer_error(ctx, status, &err, NULL, NULL, 0);
    }
    if (pm_is_stand_in(st, child)) {
        if (ctx->on_stand_in == NULL) return stand_in_error(child);
        return ctx->on_stand_in(ctx, child, NULL, 0, depth);
    }
    if (PyBool_Check(child)) {
        PyErr_Format(PyExc_TypeError,
                     "render(): a bool (%R) is not renderable; use None to render nothing, "
                     "or str(value) for the text",
                     child);
        return -1;
    }
    if (PyLong_CheckExact(child) || PyFloat_CheckExact(child)) return write_number(ctx, child);
    if (PyList_Check(child) || PyTuple_Check(child)) return render_sequence(ctx, child, depth);
    if (PyBytes_Check(child) || PyByteArray_Check(child)) {
        PyErr_Format(PyExc_TypeError, "render(): cannot render %.100s; decode it to str first",
                     Py_TYPE(child)->tp_name);
        return -1;
    }
    PyObject *method;
    int r = pm_lookup_html(st, child, &method);
    if (r < 0) return -1;
    if (r > 0) {
        PyObject *html = pm_call_html(method, child);
        Py_DECREF(method);
        if (html == NULL) return -1;
        r = write_verbatim(ctx, html);
        Py_DECREF(html);
        return r;
    }
    if (PyUnicode_Check(child))
        return pm_str_has_own_str(child) ? write_text_of_str(ctx, child) : write_text(ctx, child);
    /* int and float subclasses after the __html__ lookup, as markupsafe. */
    if (PyLong_Check(child) || PyFloat_Check(child)) return write_number(ctx, child);
    if (Py_TYPE(child) == st->tag_type) {
        PyErr_Format(PyExc_TypeError, "render(): got the factory %R, not an element; call it: %R()",
                     child, child);
        return -1;
    }
    if (!PyDict_Check(child)) {
        /* Given to render() or met in a list at render time: taken now. */
        switch (pm_lazy_kind(st, child)) {
        case PM_LAZY_ITER: return render_iterator(ctx, child, depth);
        case PM_LAZY_AWAIT:
        case PM_LAZY_AITER: return pm_async_child_error(child, 1);
        case PM_LAZY_CALL: {
            PyObject *value = PyObject_CallNoArgs(child);
            if (value == NULL) return -1;
            r = pm_render_child(ctx, value, depth);
            Py_DECREF(value);
            return r;
        }
        default: break;
        }
    }
    if (PyDict_Check(child)) {
        PyErr_SetString(PyExc_TypeError,
                        "render(): cannot render a dict: a dict is an element's attributes "
                        "only as its first argument (h.Div({'class': 'a'}, ...)); to choose "
                        "attributes per call in @baked, put the condition in each value: "
                        "{'class': when(cond, 'a')} (None or False leaves the attribute out)");
        return -1;
    }
    if ((r = pm_is_text_object(st, child)) < 0) return -1;
    if (r > 0) {
        PyObject *text = PyObject_Str(child);
        if (text == NULL) return -1;
        r = PyUnicode_CheckExact(text) ? write_text(ctx, text) : write_text_of_str(ctx, text);
        Py_DECREF(text);
        return r;
    }
    PyErr_Format(PyExc_TypeError,
                 "render(): cannot render an object of type '%.100s': it has no text of its "
                 "own (its type defines no __str__); pass an element, str, int, float, None, "
                 "a SafeString (or any object with __html__), an object whose type defines "
                 "__str__, or a list of these",
                 Py_TYPE(child)->tp_name);
    return -1;
}

int pm_render_child(pm_render_ctx *ctx, PyObject *child, int depth) {
    if (PyUnicode_CheckExact(child)) return write_text(ctx, child);
    if (Py_TYPE(child) == ctx->st->element_type) {
        return render_element(ctx, (pm_element *)child, depth);
    }
    return render_child_rare(ctx, child, depth);
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                               */
/* ------------------------------------------------------------------------ */

int pm_render_into(pm_state *st, markup_buf *buf, PyObject *obj) {
    if (check(markup_buf_reserve(buf, PM_RENDER_INITIAL_CAP)) < 0) return -1;
    markup_writer w;
    markup_writer_init(&w, buf, MARKUP_CONTEXT_HTML);
    markup_writer_skip_name_checks(&w); /* checked when the elements were built */
    pm_render_ctx ctx = {.st = st, .buf = buf, .w = &w, .plain = markup_writer_plain_buf(&w)};
    int r = pm_render_child(&ctx, obj, 0);
    markup_writer_dispose(&w);
    return r;
}

PyObject *pm_render_as(pm_state *st, PyObject *obj, pm_output kind) {
    /* A baked page is already HTML, and a SafeString is immutable: an ASCII
       one (which has no lone surrogate to refuse) is its own rendering. */
    if (kind == PM_OUTPUT_SAFESTRING && Py_TYPE(obj) == st->safestring_type &&
        PyUnicode_IS_ASCII(obj))
        return Py_NewRef(obj);
    markup_buf buf;
    markup_buf_init(&buf, &pm_pymem_alloc);
    PyObject *result = NULL;
    if (pm_render_into(st, &buf, obj) == 0) {
        const char *s = buf.data ? buf.data : "";
        Py_ssize_t n = (Py_ssize_t)buf.len;
        switch (kind) {
        case PM_OUTPUT_BYTES: result = PyBytes_FromStringAndSize(s, n); break;
        case PM_OUTPUT_SAFESTRING: result = pm_safestring_from_utf8(st, s, n); break;
        }
    }
    markup_buf_free(&buf);
    return result;
}
