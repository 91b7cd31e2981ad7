/*
 * node.c - reference-counted element trees and their serializer.
 *
 * A node owns one string buffer that holds every attribute name and value
 * and every text child (entries refer to it by offset, so it may grow), an
 * array of attributes and an array of children. The tag is stored after the
 * struct in the same allocation.
 *
 * Nodes freeze when adopted, so a parent is always built after its
 * children: no cycles, and a frozen subtree can be shared and rendered from
 * many threads. A child made in place (markup_node_append_element) is the
 * one exception: it is not shared, its parent owns it (`owner`), and it is
 * frozen together with that parent, at once, so that a frozen node never
 * looks at another to know it is frozen. Rendering, freezing and freeing
 * walk the tree with explicit stacks or lists, never C recursion.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "alloc_impl.h"
#include "error_impl.h"
#include "markup/binding.h"
#include "output_impl.h"

typedef enum attr_kind {
    ATTR_TEXT, /* value escaped when rendered */
    ATTR_HTML, /* value verbatim              */
    ATTR_BARE  /* name only: ' disabled'      */
} attr_kind;

typedef struct node_attr {
    attr_kind kind;
    size_t name_off, name_len;
    size_t value_off, value_len;
} node_attr;

typedef enum child_kind {
    CHILD_TEXT,    /* escaped, or raw inside <script>/<style> */
    CHILD_HTML,    /* verbatim                                */
    CHILD_COMMENT, /* <!--escaped-->                          */
    CHILD_DOCTYPE, /* <!doctype html>                         */
    CHILD_NODE     /* an element or fragment (referenced)     */
} child_kind;

typedef struct node_child {
    child_kind kind;
    union {
        struct {
            size_t off, len; /* into the node's string buffer */
        } str;
        markup_node *node;
    } u;
} node_child;

struct markup_node {
    atomic_size_t refs;
    atomic_bool frozen;
    bool is_element;
    markup_tag_kind kind;
    markup_tag_class cls;
    const markup_alloc *alc;
    markup_buf strings;
    node_attr *attrs;
    size_t nattrs, attrs_cap;
    node_child *children;
    size_t nchildren, children_cap;
    markup_node *next_in_walk; /* links the nodes of a walk: the dead that unref
                                  frees, or those append_child freezes */
    markup_node *owner;        /* the parent that made this child in place */
    size_t tag_len;
    char tag[]; /* tag_len bytes, not NUL-terminated */
};

/* ---- lifetime ---------------------------------------------------------- */

static markup_status node_new(const char *tag, size_t tag_len, bool is_element,
                              markup_tag_kind kind, const markup_alloc *alc, markup_node **out) {
    size_t size = sizeof(markup_node) + tag_len;
    markup_node *node = markup_alc_malloc(alc, size);
    if (node == NULL) return MARKUP_ERR_NOMEM;
    atomic_init(&node->refs, 1);
    atomic_init(&node->frozen, false);
    node->is_element = is_element;
    node->kind = kind;
    node->cls = is_element ? markup_html_tag_class(tag, tag_len) : 0;
    node->alc = alc;
    markup_buf_init(&node->strings, alc);
    node->attrs = NULL;
    node->nattrs = node->attrs_cap = 0;
    node->children = NULL;
    node->nchildren = node->children_cap = 0;
    node->next_in_walk = NULL;
    node->owner = NULL;
    node->tag_len = tag_len;
    if (tag_len) memcpy(node->tag, tag, tag_len);
    *out = node;
    return MARKUP_OK;
}

markup_status markup_node_new_element(const char *tag, size_t n, const markup_alloc *alc,
                                      markup_node **out, markup_error *err) {
    markup_clear_(err);
    if (out == NULL) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    *out = NULL;
    markup_tag_kind kind;
    markup_status st = markup_html_check_tag(tag, n, &kind, err);
    if (st != MARKUP_OK) return st;
    if (n > SIZE_MAX - sizeof(markup_node)) return markup_fail_status_(err, MARKUP_ERR_TOO_LARGE);
    st = node_new(tag, n, true, kind, alc, out);
    return st == MARKUP_OK ? st : markup_fail_status_(err, st);
}

markup_status markup_node_new_fragment(const markup_alloc *alc, markup_node **out) {
    if (out == NULL) return MARKUP_ERR_INVALID_ARG;
    *out = NULL;
    return node_new(NULL, 0, false, MARKUP_TAG_NORMAL, alc, out);
}

markup_node *markup_node_ref(markup_node *node) {
    if (node) atomic_fetch_add_explicit(&node->refs, 1, memory_order_relaxed);
    return node;
}

/* Drops one reference; true when it was the last (the caller frees). */
static bool release(markup_node *node) {
    /* acq_rel: the last owner must see every other owner's writes before
       it frees (a fence would do too, but sanitizers understand this). */
    return atomic_fetch_sub_explicit(&node->refs, 1, memory_order_acq_rel) == 1;
}

void markup_node_unref(markup_node *node) {
    if (node == NULL || !release(node)) return;
    /* Dead nodes form a list through next_in_walk: freeing a node releases its
       children, and those that die join the list instead of recursing. */
    node->next_in_walk = NULL;
    markup_node *pending = node;
    while (pending != NULL) {
        markup_node *dead = pending;
        pending = dead->next_in_walk;
        for (size_t i = 0; i < dead->nchildren; i++) {
            if (dead->children[i].kind != CHILD_NODE) continue;
            markup_node *child = dead->children[i].u.node;
            if (child->owner == dead) child->owner = NULL; /* it may live on */
            if (release(child)) {
                child->next_in_walk = pending;
                pending = child;
            }
        }
        const markup_alloc *alc = dead->alc;
        markup_buf_free(&dead->strings);
        markup_alc_free(alc, dead->attrs, dead->attrs_cap * sizeof(node_attr));
        markup_alc_free(alc, dead->children, dead->children_cap * sizeof(node_child));
        markup_alc_free(alc, dead, sizeof(markup_node) + dead->tag_len);
    }
}

/* ---- inspection -------------------------------------------------------- */

const char *markup_node_tag(const markup_node *node, size_t *n) {
    if (node == NULL || !node->is_element) {
        if (n) *n = 0;
        return NULL;
    }
    if (n) *n = node->tag_len;
    return node->tag;
}

size_t markup_node_attr_count(const markup_node *node) { return node ? node->nattrs : 0; }

size_t markup_node_child_count(const markup_node *node) { return node ? node->nchildren : 0; }

/* ---- building ---------------------------------------------------------- */

static bool is_frozen(const markup_node *node) {
    return atomic_load_explicit(&node->frozen, memory_order_relaxed);
}

/* Freezes `node` and every child made in place inside it, at any depth
   (they are frozen with their owner). The list runs through next_in_walk:
   no allocation, no recursion. */
static void freeze(markup_node *node) {
    atomic_store_explicit(&node->frozen, true, memory_order_relaxed);
    node->next_in_walk = NULL;
    for (markup_node *pending = node; pending != NULL;) {
        markup_node *n = pending;
        pending = n->next_in_walk;
        for (size_t i = 0; i < n->nchildren; i++) {
            if (n->children[i].kind != CHILD_NODE) continue;
            markup_node *child = n->children[i].u.node;
            /* Frozen first: a frozen child may be shared, and its owner is
               no business of this walk. */
            if (is_frozen(child) || child->owner != n) continue;
            atomic_store_explicit(&child->frozen, true, memory_order_relaxed);
            child->next_in_walk = pending;
            pending = child;
        }
    }
}

/* Whether `node` is `child` or made in place inside it: appending `child`
   to it would make a cycle. An unfrozen node's parents are all owners. */
static bool inside(const markup_node *node, const markup_node *child) {
    for (; node != NULL; node = node->owner)
        if (node == child) return true;
    return false;
}

static bool is_raw_text(const markup_node *node) {
    return node->kind == MARKUP_TAG_SCRIPT || node->kind == MARKUP_TAG_STYLE;
}

/* Makes room for one more attribute (the array may grow even if the caller
   then fails: that changes nothing visible). */
static markup_status reserve_attr(markup_node *node) {
    if (node->nattrs < node->attrs_cap) return MARKUP_OK;
    size_t cap = markup_grow_capacity(node->attrs_cap, node->nattrs + 1, 4, sizeof(node_attr));
    if (cap == 0) return MARKUP_ERR_TOO_LARGE;
    node_attr *attrs = markup_alc_realloc(
        node->alc, node->attrs, node->attrs_cap * sizeof(node_attr), cap * sizeof(node_attr));
    if (attrs == NULL) return MARKUP_ERR_NOMEM;
    node->attrs = attrs;
    node->attrs_cap = cap;
    return MARKUP_OK;
}

static markup_status reserve_child(markup_node *node) {
    if (node->nchildren < node->children_cap) return MARKUP_OK;
    size_t cap =
        markup_grow_capacity(node->children_cap, node->nchildren + 1, 4, sizeof(node_child));
    if (cap == 0) return MARKUP_ERR_TOO_LARGE;
    node_child *children =
        markup_alc_realloc(node->alc, node->children, node->children_cap * sizeof(node_child),
                           cap * sizeof(node_child));
    if (children == NULL) return MARKUP_ERR_NOMEM;
    node->children = children;
    node->children_cap = cap;
    return MARKUP_OK;
}

/* Checks shared by every attribute setter. */
static markup_status check_attr_target(markup_node *node, const char *name, size_t name_len,
                                       markup_error *err) {
    if (node == NULL || !node->is_element)
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "attributes need an element node");
    if (is_frozen(node))
        return markup_fail_(err, MARKUP_ERR_FROZEN,
                            "node is frozen: it was already added to a parent");
    return markup_html_check_attr_name(name, name_len, err);
}

static markup_status add_attr(markup_node *node, attr_kind kind, const char *name, size_t name_len,
                              const char *value, size_t value_len, markup_error *err) {
    markup_status st = check_attr_target(node, name, name_len, err);
    if (st != MARKUP_OK) return st;
    if (kind != ATTR_BARE) {
        if (value == NULL && value_len != 0)
            return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
        st = markup_error_in_(err, markup_utf8_validate(value, value_len, err), "value");
        if (st != MARKUP_OK) return st;
    }
    st = reserve_attr(node);
    if (st != MARKUP_OK) return markup_fail_status_(err, st);
    size_t mark = node->strings.len;
    st = markup_buf_append(&node->strings, name, name_len);
    if (st == MARKUP_OK && kind != ATTR_BARE)
        st = markup_buf_append(&node->strings, value, value_len);
    if (st != MARKUP_OK) {
        markup_buf_truncate(&node->strings, mark);
        return markup_fail_status_(err, st);
    }
    node->attrs[node->nattrs++] =
        (node_attr){kind, mark, name_len, mark + name_len, kind == ATTR_BARE ? 0 : value_len};
    return MARKUP_OK;
}

markup_status markup_node_add_attr(markup_node *node, const char *name, size_t name_len,
                                   const char *value, size_t value_len, markup_error *err) {
    markup_clear_(err);
    return add_attr(node, ATTR_TEXT, name, name_len, value, value_len, err);
}

markup_status markup_node_add_attr_html(markup_node *node, const char *name, size_t name_len,
                                        const char *value, size_t value_len, markup_error *err) {
    markup_clear_(err);
    return add_attr(node, ATTR_HTML, name, name_len, value, value_len, err);
}

markup_status markup_node_add_attr_bool(markup_node *node, const char *name, size_t name_len,
                                        bool present, markup_error *err) {
    markup_clear_(err);
    if (!present) return check_attr_target(node, name, name_len, err);
    return add_attr(node, ATTR_BARE, name, name_len, NULL, 0, err);
}

/* The bytes of a string child. Empty strings may live in a buffer that was
   never allocated, and even NULL + 0 is undefined, so they get "". */
static const char *child_string(const markup_node *node, const node_child *c) {
    return c->u.str.len ? node->strings.data + c->u.str.off : "";
}

/* Checks shared by every child appender. */
static markup_status check_child_target(markup_node *node, markup_error *err) {
    if (node == NULL) return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL node");
    if (is_frozen(node))
        return markup_fail_(err, MARKUP_ERR_FROZEN,
                            "node is frozen: it was already added to a parent");
    if (node->kind == MARKUP_TAG_VOID)
        return markup_fail_(err, MARKUP_ERR_VOID_CHILD, "a void element cannot have children");
    return MARKUP_OK;
}

/* The longest pattern markup_html_check_raw_text looks for ("</script"). */
#define RAW_PATTERN_MAX 8

/* Raw text is the concatenation of all children, so a pattern may be split
   between the previous children and the new text: check the seam too. */
static markup_status check_raw_seam(const markup_node *node, const char *s, size_t n,
                                    markup_error *err) {
    char seam[2 * (RAW_PATTERN_MAX - 1)];
    size_t before = 0;
    /* Collect up to 7 bytes that end the existing content, newest last. */
    char tail[RAW_PATTERN_MAX - 1];
    size_t want = RAW_PATTERN_MAX - 1;
    for (size_t i = node->nchildren; i > 0 && before < want; i--) {
        const node_child *c = &node->children[i - 1];
        if (c->kind != CHILD_TEXT && c->kind != CHILD_HTML) break;
        size_t take = c->u.str.len < want - before ? c->u.str.len : want - before;
        if (take == 0) continue;
        const char *src = child_string(node, c) + c->u.str.len - take;
        /* prepend: tail holds the newest bytes at its end */
        memmove(tail + want - before - take, src, take);
        before += take;
    }
    if (before == 0) return MARKUP_OK;
    size_t after = n < RAW_PATTERN_MAX - 1 ? n : RAW_PATTERN_MAX - 1;
    memcpy(seam, tail + want - before, before);
    if (after) memcpy(seam + before, s, after);
    markup_error seam_err;
    if (markup_html_check_raw_text(node->kind, seam, before + after, &seam_err) != MARKUP_OK)
        return markup_fail_(
            err, MARKUP_ERR_RAW_TEXT,
            "text joined to the text before it would end the raw-text element early");
    return MARKUP_OK;
}

static markup_status add_string_child(markup_node *node, child_kind kind, const char *s, size_t n,
                                      markup_error *err) {
    markup_status st = check_child_target(node, err);
    if (st != MARKUP_OK) return st;
    if (s == NULL && n != 0) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    st = markup_utf8_validate(s, n, err);
    if (st != MARKUP_OK) return st;
    if (is_raw_text(node)) {
        if (kind != CHILD_TEXT && kind != CHILD_HTML)
            return markup_fail_(err, MARKUP_ERR_RAW_TEXT, "<script> and <style> hold only text");
        st = markup_html_check_raw_text(node->kind, s, n, err);
        if (st == MARKUP_OK) st = check_raw_seam(node, s, n, err);
        if (st != MARKUP_OK) return st;
    }
    st = reserve_child(node);
    if (st != MARKUP_OK) return markup_fail_status_(err, st);
    size_t off = node->strings.len;
    st = markup_buf_append(&node->strings, s, n);
    if (st != MARKUP_OK) return markup_fail_status_(err, st);
    node_child *c = &node->children[node->nchildren++];
    c->kind = kind;
    c->u.str.off = off;
    c->u.str.len = n;
    return MARKUP_OK;
}

markup_status markup_node_append_text(markup_node *node, const char *s, size_t n,
                                      markup_error *err) {
    markup_clear_(err);
    return add_string_child(node, CHILD_TEXT, s, n, err);
}

markup_status markup_node_append_html(markup_node *node, const char *s, size_t n,
                                      markup_error *err) {
    markup_clear_(err);
    return add_string_child(node, CHILD_HTML, s, n, err);
}

markup_status markup_node_append_comment(markup_node *node, const char *s, size_t n,
                                         markup_error *err) {
    markup_clear_(err);
    return add_string_child(node, CHILD_COMMENT, s, n, err);
}

markup_status markup_node_append_doctype(markup_node *node, markup_error *err) {
    markup_clear_(err);
    return add_string_child(node, CHILD_DOCTYPE, NULL, 0, err);
}

/* Appends `child` with a reference of the parent's own. */
static markup_status adopt(markup_node *node, markup_node *child, markup_error *err) {
    if (node == NULL || child == NULL)
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL node");
    markup_status st = check_child_target(node, err);
    if (st != MARKUP_OK) return st;
    if (is_raw_text(node))
        return markup_fail_(err, MARKUP_ERR_RAW_TEXT, "<script> and <style> cannot hold elements");
    st = reserve_child(node);
    if (st != MARKUP_OK) return markup_fail_status_(err, st);
    node_child *c = &node->children[node->nchildren++];
    c->kind = CHILD_NODE;
    c->u.node = markup_node_ref(child);
    return MARKUP_OK;
}

markup_status markup_node_append_child(markup_node *node, markup_node *child, markup_error *err) {
    markup_clear_(err);
    /* An unfrozen node may be made in place inside `child` (a new one from
       append_element cannot, and skips this walk up its owners). */
    if (node != NULL && !is_frozen(node) && inside(node, child))
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG,
                            "a node cannot contain itself or an element it was made in");
    markup_status st = adopt(node, child, err);
    if (st == MARKUP_OK && !is_frozen(child)) freeze(child);
    return st;
}

markup_node *markup_node_append_element(markup_node *parent, const char *tag,
                                        const char *const *attrs, const char *text,
                                        markup_error *err) {
    markup_clear_(err);
    if (parent == NULL || tag == NULL) {
        markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL parent or tag");
        return NULL;
    }
    markup_node *child = NULL;
    markup_status st = markup_node_new_element(tag, strlen(tag), parent->alc, &child, err);
    for (size_t i = 0; st == MARKUP_OK && attrs != NULL && attrs[i] != NULL; i += 2) {
        if (attrs[i + 1] == NULL) {
            st = markup_fail_(err, MARKUP_ERR_INVALID_ARG,
                              "an attribute in attrs has a NULL value (or attrs ends after a "
                              "name): name, value, ..., NULL");
            break;
        }
        st = markup_node_add_attr(child, attrs[i], strlen(attrs[i]), attrs[i + 1],
                                  strlen(attrs[i + 1]), err);
        /* The position is in one of the strings of attrs. */
        markup_error_in_(err, st, "attrs");
    }
    if (st == MARKUP_OK && text != NULL)
        st = markup_error_in_(err, markup_node_append_text(child, text, strlen(text), err), "text");
    /* Built whole before it is adopted: on failure the parent is unchanged. */
    if (st == MARKUP_OK) st = adopt(parent, child, err);
    if (st == MARKUP_OK) child->owner = parent;
    markup_node_unref(child); /* the parent's reference keeps it */
    return st == MARKUP_OK ? child : NULL;
}

markup_status markup_node_append_baked(markup_node *node, const markup_baked *tpl,
                                       const markup_value *values, size_t nvalues,
                                       markup_error *err) {
    markup_clear_(err);
    if (node == NULL) return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL node");
    markup_buf html;
    markup_buf_init(&html, node->alc);
    markup_status st = markup_baked_render(tpl, values, nvalues, &html, err);
    if (st == MARKUP_OK)
        st = markup_error_unplaced_(err,
                                    add_string_child(node, CHILD_HTML, html.data, html.len, err));
    markup_buf_free(&html);
    return st;
}

markup_status markup_node_append_json(markup_node *node, const char *json, size_t n,
                                      markup_error *err) {
    markup_clear_(err);
    if (node == NULL) return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL node");
    markup_buf safe;
    markup_buf_init(&safe, node->alc);
    markup_status st = markup_html_json_for_script(&safe, json, n, err);
    if (st == MARKUP_OK)
        st = markup_error_unplaced_(err,
                                    add_string_child(node, CHILD_TEXT, safe.data, safe.len, err));
    markup_buf_free(&safe);
    return st;
}

/* ---- rendering --------------------------------------------------------- */

/* The walk keeps a stack of the nodes being rendered and where it is in
   each; the writer keeps the elements open and decides how each piece is
   written where it stands. */
typedef struct render_frame {
    const markup_node *node;
    size_t next_child;
} render_frame;

typedef struct render_stack {
    render_frame *frames;
    size_t len, cap;
    const markup_alloc *alc;
    bool on_heap;
} render_stack;

static markup_status stack_push(render_stack *st, const markup_node *node) {
    if (st->len == st->cap) {
        size_t cap = markup_grow_capacity(st->cap, st->len + 1, 64, sizeof(render_frame));
        if (cap == 0) return MARKUP_ERR_TOO_LARGE;
        render_frame *frames;
        if (st->on_heap) {
            frames = markup_alc_realloc(st->alc, st->frames, st->cap * sizeof(render_frame),
                                        cap * sizeof(render_frame));
        } else {
            frames = markup_alc_malloc(st->alc, cap * sizeof(render_frame));
            if (frames) memcpy(frames, st->frames, st->len * sizeof(render_frame));
        }
        if (frames == NULL) return MARKUP_ERR_NOMEM;
        st->frames = frames;
        st->cap = cap;
        st->on_heap = true;
    }
    st->frames[st->len++] = (render_frame){node, 0};
    return MARKUP_OK;
}

static markup_status write_start_tag(markup_writer *w, const markup_node *node, markup_error *err) {
    markup_status st = markup_writer_open_class(w, node->tag, node->tag_len, node->cls, err);
    const char *strings = node->strings.data;
    for (size_t i = 0; st == MARKUP_OK && i < node->nattrs; i++) {
        const node_attr *a = &node->attrs[i];
        const char *name = strings + a->name_off, *value = strings + a->value_off;
        switch (a->kind) {
        case ATTR_TEXT:
            st = markup_writer_attr(w, name, a->name_len, value, a->value_len, err);
            break;
        case ATTR_HTML:
            st = markup_writer_attr_html(w, name, a->name_len, value, a->value_len, err);
            break;
        case ATTR_BARE: st = markup_writer_attr_bool(w, name, a->name_len, true, err); break;
        }
    }
    return st;
}

static markup_status write_string_child(markup_writer *w, const markup_node *parent,
                                        const node_child *c, markup_error *err) {
    const char *s = child_string(parent, c);
    size_t n = c->u.str.len;
    switch (c->kind) {
    case CHILD_TEXT: return markup_writer_text(w, s, n, err);
    case CHILD_HTML: return markup_writer_html(w, s, n, err);
    case CHILD_COMMENT: return markup_writer_comment(w, s, n, err);
    case CHILD_DOCTYPE: return markup_writer_doctype(w, err);
    case CHILD_NODE: break;
    }
    return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
}

/* Enters `node`: opens it (an element) and pushes it to have its children
   written. */
static markup_status enter_node(render_stack *stack, markup_writer *w, const markup_node *node,
                                markup_error *err) {
    if (node->is_element) {
        markup_status st = write_start_tag(w, node, err);
        if (st != MARKUP_OK) return st;
    }
    markup_status st = stack_push(stack, node);
    return st == MARKUP_OK ? st : markup_fail_status_(err, st);
}

markup_status markup_node_render(const markup_node *node, markup_buf *out, markup_error *err) {
    markup_clear_(err);
    return markup_node_render_in(node, out, MARKUP_CONTEXT_HTML, err);
}

/* Writes the tree through `w` (whose buffer, or sink, takes the output). */
static markup_status render_tree(const markup_node *node, markup_writer *w, markup_error *err) {
    render_frame inline_frames[32];
    render_stack stack = {inline_frames, 0, sizeof inline_frames / sizeof inline_frames[0],
                          w->out->alc, false};
    markup_writer_skip_name_checks(w); /* checked by the attribute setters */
    markup_status st = enter_node(&stack, w, node, err);
    while (st == MARKUP_OK && stack.len > 0) {
        render_frame *top = &stack.frames[stack.len - 1];
        const markup_node *parent = top->node;
        if (top->next_child == parent->nchildren) {
            if (parent->is_element) st = markup_writer_close(w, err);
            stack.len--;
            continue;
        }
        const node_child *c = &parent->children[top->next_child++];
        if (c->kind == CHILD_NODE)
            st = enter_node(&stack, w, c->u.node, err);
        else
            st = write_string_child(w, parent, c, err);
    }
    if (stack.on_heap) markup_alc_free(stack.alc, stack.frames, stack.cap * sizeof(render_frame));
    /* A refusal points into the tree's own strings, which are no argument. */
    return markup_error_unplaced_(err, st);
}

markup_status markup_node_render_in(const markup_node *node, markup_buf *out, markup_context where,
                                    markup_error *err) {
    markup_clear_(err);
    if (node == NULL || out == NULL) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    size_t start = out->len;
    markup_writer w;
    markup_writer_init(&w, out, where);
    markup_status st = render_tree(node, &w, err);
    markup_writer_dispose(&w);
    if (st != MARKUP_OK) markup_buf_truncate(out, start);
    return st;
}

markup_status markup_node_render_to(const markup_node *node, markup_sink sink, void *ctx,
                                    markup_error *err) {
    markup_clear_(err);
    if (node == NULL || sink == NULL) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    markup_buf buf;
    markup_buf_init(&buf, node->alc);
    markup_writer w;
    markup_writer_init(&w, &buf, MARKUP_CONTEXT_HTML);
    markup_writer_set_sink(&w, sink, ctx, MARKUP_SINK_CHUNK);
    markup_status st = render_tree(node, &w, err);
    if (st == MARKUP_OK) st = markup_writer_flush(&w, err); /* the rest */
    markup_writer_dispose(&w);
    markup_buf_free(&buf);
    return st;
}

markup_status markup_node_render_file(const markup_node *node, FILE *f, markup_error *err) {
    markup_clear_(err);
    if (f == NULL) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    return markup_file_result_(markup_node_render_to(node, markup_file_sink_, f, err), err);
}

char *markup_node_render_string(const markup_node *node, size_t *len, markup_error *err) {
    markup_clear_(err);
    if (node == NULL) {
        markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
        return NULL;
    }
    markup_buf buf;
    markup_buf_init(&buf, node->alc);
    if (markup_node_render(node, &buf, err) != MARKUP_OK) {
        markup_buf_free(&buf);
        return NULL;
    }
    return markup_buf_to_string_(&buf, len, err);
}
