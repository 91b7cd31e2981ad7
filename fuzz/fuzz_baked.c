/*
 * fuzz_baked.c - a baked template rendered with some values equals the
 * same tree, built with those values, serialized directly.
 *
 * The input (after a 4-byte options header) decodes to a document: start
 * and end tags, attributes, text, trusted HTML, comments and doctypes,
 * plus child slots and attribute slots, each slot with a value taken from
 * the input (text, trusted HTML, TRUE or OMIT; any bytes, so sometimes
 * invalid UTF-8, and sometimes TRUE in a child slot, which is an error).
 * The steps are kept well-formed while decoding (no children in void
 * elements, only raw text that cannot end its <script>/<style>).
 *
 * The same steps are then executed three ways:
 *   1. a markup_baked template: static HTML written with the markup_html_*
 *      writers and markup_escape, flushed into the builder at each slot
 *      (or at every step, to exercise merging), rendered with the values;
 *   2. a markup_node tree with every value put in its place directly;
 *   3. the expected bytes, written by the harness with the reference
 *      escaper.
 * All three must agree byte for byte. markup_baked_render_slots, driven by
 * markup_baked_write_value, must agree too; a writer that fails stops it
 * and rolls the buffer back. Also checked: the slot count, kinds and
 * static size, the errors for a wrong number of values, TRUE in a child
 * slot, invalid UTF-8 in a value (with its position), an invalid name for
 * an attribute slot, and an allocation failure anywhere.
 */
#include "fuzz_common.h"

typedef struct baked_options {
    uint8_t flags;   /* bit 0: make one allocation fail; bit 1: flush static HTML at every step */
    uint8_t fail_at; /* which allocation fails, counted from 1 */
    uint8_t prefix;  /* bytes (prefix % 32) already in the output buffers */
    uint8_t stop_at; /* render_slots: the writer of slot stop_at fails (when < slot count) */
} baked_options;

enum {
    STEP_OPEN,      /* "<tag" */
    STEP_START_END, /* ">" that ends a start tag */
    STEP_CLOSE,     /* "</tag>" (nothing for a void element) */
    STEP_TEXT,      /* escaped, or raw inside <script>/<style> */
    STEP_HTML,
    STEP_COMMENT,
    STEP_DOCTYPE,
    STEP_ATTR,
    STEP_ATTR_HTML,
    STEP_ATTR_BARE,
    STEP_CHILD_SLOT,
    STEP_ATTR_SLOT,
    STEP_BAD_ATTR_SLOT, /* an attribute slot with an invalid name: the builder refuses it */
    STEP_KINDS
};

#define STEPS_MAX 512
#define DEPTH_MAX 64

static const char *const known_tags[] = {
    "div",       "p",  "span", "a",      "ul",    "li",     "br",    "img",
    "input",     "hr", "meta", "script", "style", "SCRIPT", "title", "textarea",
    "my-widget", "h1", "td",   "wbr",    "Style", "b",
};

static const char *const known_attrs[] = {
    "class",
    "id",
    "href",
    "data-id",
    "@click",
    ":class",
    "x-on:click.prevent",
    "data-on-click__debounce.500ms",
    "disabled",
    "style",
    "onclick",
    "value",
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

typedef struct step {
    int kind;
    char *tag; /* STEP_OPEN/STEP_CLOSE: points into known_tags, not owned */
    size_t tag_len;
    markup_tag_kind tag_kind;
    char *name; /* attribute name, owned */
    size_t name_len;
    char *s; /* text or attribute value, owned */
    size_t n;
    markup_value value; /* slots: the value rendered into it (s/n alias the fields above) */
} step;

typedef struct program {
    step steps[STEPS_MAX];
    size_t nsteps;
    size_t nslots;
    markup_value values[STEPS_MAX];
    const step *slot_steps[STEPS_MAX];
    bool true_in_child;   /* a child slot holds TRUE: SLOT_VALUE */
    bool in_text_content; /* content inside a <title>, <textarea>...: the tree's
                             writer may refuse it (MARKUP_ERR_RAW_TEXT for end
                             tags in trusted HTML, MARKUP_ERR_CONTEXT for an
                             element named like the one around it) */
    size_t bad_utf8_slot; /* first slot whose value is invalid UTF-8, or nslots */
    size_t quoted_slot;   /* first attribute slot whose trusted value holds a quote, or SIZE_MAX */
    size_t bad_utf8_pos;
} program;

/* ------------------------------------------------------------------------ */
/* Decoding                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct open_element {
    const char *tag;
    size_t tag_len;
    markup_tag_kind kind;
    bool start_open; /* "<tag" written, ">" not yet */
    fuzz_buf raw;    /* the raw text so far, for <script>/<style> */
} open_element;

typedef struct decoder {
    fuzz_reader in;
    program *p;
    open_element stack[DEPTH_MAX];
    size_t depth; /* 0: at the top level */
} decoder;

static step *add_step(decoder *d, int kind) {
    step *s = &d->p->steps[d->p->nsteps++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    return s;
}

static bool room(const decoder *d, size_t steps) { return d->p->nsteps + steps <= STEPS_MAX; }

static void end_start_tag(decoder *d) {
    if (d->depth > 0 && d->stack[d->depth - 1].start_open) {
        add_step(d, STEP_START_END);
        d->stack[d->depth - 1].start_open = false;
    }
}

static void close_top(decoder *d) {
    end_start_tag(d);
    open_element *e = &d->stack[--d->depth];
    step *s = add_step(d, STEP_CLOSE);
    s->tag = (char *)e->tag;
    s->tag_len = e->tag_len;
    s->tag_kind = e->kind;
    fuzz_buf_free(&e->raw);
}

/* Makes the top able to take content: ends its start tag, and closes it
   when it is void (a void element has no content). */
static void prepare_content(decoder *d) {
    end_start_tag(d);
    if (d->depth > 0 && d->stack[d->depth - 1].kind == MARKUP_TAG_VOID) close_top(d);
}

static markup_tag_kind top_kind(const decoder *d) {
    return d->depth ? d->stack[d->depth - 1].kind : MARKUP_TAG_NORMAL;
}

static bool in_raw(const decoder *d) {
    markup_tag_kind k = top_kind(d);
    return k == MARKUP_TAG_SCRIPT || k == MARKUP_TAG_STYLE;
}

/* Whether an element below the top reads as text (<title>, <noscript>...):
   raw text there may not hold their end tags either. */
static bool in_text_element(const decoder *d) {
    for (size_t i = 0; i + 1 < d->depth; i++)
        if (fuzz_ref_reads_as_text(d->stack[i].tag, d->stack[i].tag_len)) return true;
    return false;
}

/* Whether the top element or one around it reads as text. */
static bool inside_text_element(const decoder *d) {
    for (size_t i = 0; i < d->depth; i++)
        if (fuzz_ref_reads_as_text(d->stack[i].tag, d->stack[i].tag_len)) return true;
    return false;
}

static bool tag_in(const char *tag, const char *const *names) {
    for (; *names; names++)
        if (strcmp(tag, *names) == 0) return true;
    return false;
}

/* Whether the start tag of `tag` would close a p, li or a that holds a
   formatting element, which the writer refuses (the parser would reopen
   it later): a reference model for this harness's tags. */
static bool closes_formatting(const decoder *d, const char *tag) {
    static const char *const closes_p[] = {"div", "p", "ul", "li", "hr", "h1", NULL};
    bool formatting_inside = false;
    for (size_t i = d->depth; i-- > 0;) {
        const char *open = d->stack[i].tag;
        if (strcmp(open, "td") == 0) return false; /* a marker: scopes stop */
        if (formatting_inside && ((strcmp(open, "p") == 0 && tag_in(tag, closes_p)) ||
                                  (strcmp(open, "li") == 0 && strcmp(tag, "li") == 0) ||
                                  (strcmp(open, "a") == 0 && strcmp(tag, "a") == 0)))
            return true;
        if (strcmp(open, "a") == 0 || strcmp(open, "b") == 0) formatting_inside = true;
    }
    return false;
}

static bool in_start_tag(const decoder *d) {
    return d->depth > 0 && d->stack[d->depth - 1].start_open;
}

static char *take_attr_name(decoder *d, size_t *len) {
    uint8_t b = fuzz_take_u8(&d->in);
    if (b < 0xE0) {
        const char *t = known_attrs[b % COUNT_OF(known_attrs)];
        *len = strlen(t);
        return fuzz_copy(t, *len);
    }
    return fuzz_take_string(&d->in, len);
}

/* Text directly in a textarea never begins with a newline here: the tree's
   writer writes one that comes first there twice, which this harness's
   plain template and reference do not model (tests/c/test_baked.c and
   tests/python/test_leading_newline.py check it). */
static void no_leading_newline(const decoder *d, char *s, size_t n) {
    const open_element *e = d->depth ? &d->stack[d->depth - 1] : NULL;
    if (e && n && (s[0] == '\n' || s[0] == '\r') && e->tag_len == 8 &&
        fuzz_ascii_iequal(e->tag, e->tag_len, "textarea"))
        s[0] = 'x';
}

static void take_value(decoder *d, step *s, bool child) {
    program *p = d->p;
    s->s = fuzz_take_string(&d->in, &s->n);
    if (child) no_leading_newline(d, s->s, s->n);
    static const markup_value_kind kinds[] = {MARKUP_VALUE_TEXT, MARKUP_VALUE_HTML,
                                              MARKUP_VALUE_TEXT, MARKUP_VALUE_TRUE,
                                              MARKUP_VALUE_OMIT};
    s->value.kind = kinds[fuzz_take_u8(&d->in) % COUNT_OF(kinds)];
    s->value.s = s->s;
    s->value.n = s->n;
    const size_t slot = p->nslots++;
    p->values[slot] = s->value;
    p->slot_steps[slot] = s;
    if (s->value.kind == MARKUP_VALUE_TRUE && child) p->true_in_child = true;
    /* A trusted attribute value's '"' would end the quoted value. */
    if (s->value.kind == MARKUP_VALUE_HTML && !child && s->n && memchr(s->s, '"', s->n) &&
        p->quoted_slot == SIZE_MAX)
        p->quoted_slot = slot;
    if ((s->value.kind == MARKUP_VALUE_TEXT || s->value.kind == MARKUP_VALUE_HTML) &&
        !fuzz_ref_utf8_valid(s->s, s->n) && p->bad_utf8_slot == SIZE_MAX) {
        p->bad_utf8_slot = slot;
        p->bad_utf8_pos = fuzz_ref_utf8_error(s->s, s->n);
    }
}

static void decode(decoder *d) {
    program *p = d->p;
    p->bad_utf8_slot = SIZE_MAX;
    p->quoted_slot = SIZE_MAX;
    /* Each decoded step adds at most 2 + DEPTH_MAX steps (ends, closes). */
    while (fuzz_more(&d->in) && room(d, DEPTH_MAX + 4)) {
        const int op = fuzz_take_u8(&d->in) % 10;
        if (op == 0) { /* open */
            const char *tag = known_tags[fuzz_take_u8(&d->in) % COUNT_OF(known_tags)];
            prepare_content(d);
            if (in_raw(d) || d->depth == DEPTH_MAX || closes_formatting(d, tag)) continue;
            if (inside_text_element(d)) p->in_text_content = true;
            step *s = add_step(d, STEP_OPEN);
            s->tag = (char *)tag;
            s->tag_len = strlen(tag);
            s->tag_kind = fuzz_ref_tag_kind(tag, s->tag_len);
            open_element *e = &d->stack[d->depth++];
            memset(e, 0, sizeof *e);
            e->tag = tag;
            e->tag_len = s->tag_len;
            e->kind = s->tag_kind;
            e->start_open = true;
        } else if (op == 1) { /* close */
            if (d->depth > 0) close_top(d);
        } else if (op <= 4) { /* text, trusted HTML, comment */
            const int kind = op == 2 ? STEP_TEXT : op == 3 ? STEP_HTML : STEP_COMMENT;
            size_t n;
            char *text = fuzz_take_string(&d->in, &n);
            prepare_content(d);
            if (kind == STEP_TEXT) no_leading_newline(d, text, n);
            bool keep = fuzz_ref_utf8_valid(text, n);
            if (keep && in_raw(d)) {
                /* Raw text is kept only if all of it still cannot end the element. */
                open_element *e = &d->stack[d->depth - 1];
                fuzz_buf joined = {0};
                fuzz_buf_add(&joined, e->raw.data, e->raw.len);
                fuzz_buf_add(&joined, text, n);
                keep = kind != STEP_COMMENT &&
                       fuzz_ref_raw_text_error(e->kind, joined.data, joined.len) == joined.len &&
                       (!in_text_element(d) ||
                        fuzz_ref_text_inside_error(joined.data, joined.len) == joined.len);
                if (keep) fuzz_buf_add(&e->raw, text, n);
                fuzz_buf_free(&joined);
            }
            if (!keep) {
                free(text);
                continue;
            }
            if (inside_text_element(d)) p->in_text_content = true;
            step *s = add_step(d, kind);
            s->s = text;
            s->n = n;
            s->tag_kind = top_kind(d);
        } else if (op == 5) { /* doctype */
            prepare_content(d);
            if (!in_raw(d)) add_step(d, STEP_DOCTYPE);
        } else if (op == 6) { /* a static attribute */
            size_t name_len, n;
            char *name = take_attr_name(d, &name_len);
            char *value = fuzz_take_string(&d->in, &n);
            const uint8_t how = fuzz_take_u8(&d->in) % 3;
            /* A trusted value's '"' is refused (tested with the slots). */
            if (!in_start_tag(d) || !fuzz_ref_attr_name_valid(name, name_len) ||
                !fuzz_ref_utf8_valid(value, n) || (how == 1 && n && memchr(value, '"', n))) {
                free(name);
                free(value);
                continue;
            }
            step *s = add_step(d, how == 0   ? STEP_ATTR
                                  : how == 1 ? STEP_ATTR_HTML
                                             : STEP_ATTR_BARE);
            s->name = name;
            s->name_len = name_len;
            s->s = value;
            s->n = n;
        } else if (op <= 8) { /* a child slot */
            prepare_content(d);
            if (in_raw(d)) continue;
            if (inside_text_element(d)) p->in_text_content = true;
            take_value(d, add_step(d, STEP_CHILD_SLOT), true);
        } else { /* an attribute slot */
            size_t name_len;
            char *name = take_attr_name(d, &name_len);
            if (!in_start_tag(d)) {
                free(name);
                continue;
            }
            if (!fuzz_ref_attr_name_valid(name, name_len)) {
                step *s = add_step(d, STEP_BAD_ATTR_SLOT);
                s->name = name;
                s->name_len = name_len;
                continue;
            }
            step *s = add_step(d, STEP_ATTR_SLOT);
            s->name = name;
            s->name_len = name_len;
            take_value(d, s, false);
        }
    }
    while (d->depth > 0) close_top(d);
}

static void free_program(program *p) {
    for (size_t i = 0; i < p->nsteps; i++) {
        free(p->steps[i].name);
        free(p->steps[i].s);
    }
}

/* ------------------------------------------------------------------------ */
/* 3. The expected bytes                                                    */
/* ------------------------------------------------------------------------ */

static FUZZ_NO_COVERAGE void expected_attr(fuzz_buf *out, const step *s, markup_value_kind kind) {
    fuzz_buf_adds(out, " ");
    fuzz_buf_add(out, s->name, s->name_len);
    if (kind == MARKUP_VALUE_TRUE) return;
    fuzz_buf_adds(out, "=\"");
    if (kind == MARKUP_VALUE_TEXT) {
        fuzz_ref_escape(out, s->s, s->n);
    } else {
        fuzz_buf_add(out, s->s, s->n);
    }
    fuzz_buf_adds(out, "\"");
}

/* Writes the expected output; returns the number of static bytes. */
static FUZZ_NO_COVERAGE size_t expected_output(const program *p, fuzz_buf *out) {
    size_t static_bytes = 0;
    for (size_t i = 0; i < p->nsteps; i++) {
        const step *s = &p->steps[i];
        const size_t before = out->len;
        bool is_static = true;
        switch (s->kind) {
        case STEP_OPEN:
            fuzz_buf_adds(out, "<");
            fuzz_buf_add(out, s->tag, s->tag_len);
            break;
        case STEP_START_END: fuzz_buf_adds(out, ">"); break;
        case STEP_CLOSE:
            if (s->tag_kind == MARKUP_TAG_VOID) break;
            fuzz_buf_adds(out, "</");
            fuzz_buf_add(out, s->tag, s->tag_len);
            fuzz_buf_adds(out, ">");
            break;
        case STEP_TEXT:
            if (s->tag_kind == MARKUP_TAG_SCRIPT || s->tag_kind == MARKUP_TAG_STYLE) {
                fuzz_buf_add(out, s->s, s->n);
            } else {
                fuzz_ref_escape(out, s->s, s->n);
            }
            break;
        case STEP_HTML: fuzz_buf_add(out, s->s, s->n); break;
        case STEP_COMMENT:
            fuzz_buf_adds(out, "<!--");
            fuzz_ref_escape(out, s->s, s->n);
            fuzz_buf_adds(out, "-->");
            break;
        case STEP_DOCTYPE: fuzz_buf_adds(out, "<!doctype html>"); break;
        case STEP_ATTR: expected_attr(out, s, MARKUP_VALUE_TEXT); break;
        case STEP_ATTR_HTML: expected_attr(out, s, MARKUP_VALUE_HTML); break;
        case STEP_ATTR_BARE: expected_attr(out, s, MARKUP_VALUE_TRUE); break;
        case STEP_CHILD_SLOT:
            is_static = false;
            if (s->value.kind == MARKUP_VALUE_TEXT) {
                fuzz_ref_escape(out, s->s, s->n);
            } else if (s->value.kind == MARKUP_VALUE_HTML) {
                fuzz_buf_add(out, s->s, s->n);
            }
            break;
        case STEP_ATTR_SLOT:
            is_static = false;
            if (s->value.kind != MARKUP_VALUE_OMIT) expected_attr(out, s, s->value.kind);
            break;
        default: is_static = false; break;
        }
        if (is_static) static_bytes += out->len - before;
    }
    return static_bytes;
}

/* ------------------------------------------------------------------------ */
/* 1. The baked template                                                    */
/* ------------------------------------------------------------------------ */

/* Any status a build call may return: OK, or NOMEM after an injected
   failure. False means stop building. */
static bool build_ok(markup_status st, const fuzz_alloc *alc, size_t failures) {
    if (st == MARKUP_ERR_NOMEM) {
        FUZZ_CHECK(alc->failures > failures);
        return false;
    }
    FUZZ_CHECK(st == MARKUP_OK);
    return true;
}

static bool flush_static(markup_baked_builder *b, markup_buf *pending, fuzz_alloc *alc) {
    if (pending->len == 0) return true;
    size_t failures = alc->failures;
    markup_status st = markup_baked_builder_add_static(b, pending->data, pending->len);
    markup_buf_clear(pending);
    return build_ok(st, alc, failures);
}

static markup_status write_static_step(markup_buf *w, const step *s) {
    switch (s->kind) {
    case STEP_OPEN: return markup_html_write_open(w, s->tag, s->tag_len);
    case STEP_START_END: return markup_buf_putc(w, '>');
    case STEP_CLOSE:
        return s->tag_kind == MARKUP_TAG_VOID ? MARKUP_OK
                                              : markup_html_write_close(w, s->tag, s->tag_len);
    case STEP_TEXT:
        if (s->tag_kind == MARKUP_TAG_SCRIPT || s->tag_kind == MARKUP_TAG_STYLE) {
            return markup_buf_append(w, s->s, s->n);
        }
        return markup_escape(w, s->s, s->n);
    case STEP_HTML: return markup_buf_append(w, s->s, s->n);
    case STEP_COMMENT: return markup_html_write_comment(w, s->s, s->n);
    case STEP_DOCTYPE: return markup_html_write_doctype(w);
    case STEP_ATTR: return markup_html_write_attr(w, s->name, s->name_len, s->s, s->n);
    case STEP_ATTR_HTML: return markup_html_write_attr_html(w, s->name, s->name_len, s->s, s->n);
    case STEP_ATTR_BARE: return markup_html_write_attr_bare(w, s->name, s->name_len);
    default: return MARKUP_OK;
    }
}

/* Builds the template; NULL when an injected allocation failure stopped
   it (after checking that it failed cleanly). */
static markup_baked *build_template(const program *p, fuzz_alloc *alc, bool flush_every_step) {
    markup_baked_builder *b = NULL;
    size_t failures = alc->failures;
    if (!build_ok(markup_baked_builder_new(&alc->hooks, &b), alc, failures)) {
        FUZZ_CHECK(b == NULL);
        return NULL;
    }
    markup_buf pending;
    markup_buf_init(&pending, &alc->hooks);
    bool ok = true;
    for (size_t i = 0; ok && i < p->nsteps; i++) {
        const step *s = &p->steps[i];
        failures = alc->failures;
        if (s->kind == STEP_CHILD_SLOT) {
            ok = flush_static(b, &pending, alc) &&
                 build_ok(markup_baked_builder_add_child_slot(b), alc, failures);
        } else if (s->kind == STEP_ATTR_SLOT || s->kind == STEP_BAD_ATTR_SLOT) {
            ok = flush_static(b, &pending, alc);
            if (!ok) break;
            failures = alc->failures;
            markup_error err = MARKUP_ERROR_INIT;
            markup_status st = markup_baked_builder_add_attr_slot(b, s->name, s->name_len, &err);
            if (s->kind == STEP_ATTR_SLOT) {
                ok = build_ok(st, alc, failures);
            } else {
                /* Refused, and the builder carries on without that slot. */
                FUZZ_CHECK(st == MARKUP_ERR_INVALID_ATTR_NAME || st == MARKUP_ERR_INVALID_UTF8);
                FUZZ_CHECK(err.code == st && err.msg != NULL);
            }
        } else {
            const size_t before = pending.len;
            markup_status st = write_static_step(&pending, s);
            if (st != MARKUP_OK) FUZZ_CHECK(pending.len == before); /* writers roll back */
            ok = build_ok(st, alc, failures) &&
                 (!flush_every_step || flush_static(b, &pending, alc));
        }
    }
    ok = ok && flush_static(b, &pending, alc);
    markup_buf_free(&pending);
    if (!ok) {
        markup_baked_builder_free(b);
        return NULL;
    }
    markup_baked *tpl = NULL;
    failures = alc->failures;
    if (!build_ok(markup_baked_builder_finish(b, &tpl, NULL), alc, failures)) return NULL;
    FUZZ_CHECK(tpl != NULL);
    return tpl;
}

/* ------------------------------------------------------------------------ */
/* 2. The equivalent tree                                                   */
/* ------------------------------------------------------------------------ */

static markup_status tree_step(markup_node *node, const step *s) {
    switch (s->kind) {
    case STEP_TEXT: return markup_node_append_text(node, s->s, s->n, NULL);
    case STEP_HTML: return markup_node_append_html(node, s->s, s->n, NULL);
    case STEP_COMMENT: return markup_node_append_comment(node, s->s, s->n, NULL);
    case STEP_DOCTYPE: return markup_node_append_doctype(node, NULL);
    case STEP_ATTR: return markup_node_add_attr(node, s->name, s->name_len, s->s, s->n, NULL);
    case STEP_ATTR_HTML:
        return markup_node_add_attr_html(node, s->name, s->name_len, s->s, s->n, NULL);
    case STEP_ATTR_BARE: return markup_node_add_attr_bool(node, s->name, s->name_len, true, NULL);
    case STEP_CHILD_SLOT:
        if (s->value.kind == MARKUP_VALUE_TEXT)
            return markup_node_append_text(node, s->s, s->n, NULL);
        if (s->value.kind == MARKUP_VALUE_HTML)
            return markup_node_append_html(node, s->s, s->n, NULL);
        return MARKUP_OK;
    case STEP_ATTR_SLOT:
        switch (s->value.kind) {
        case MARKUP_VALUE_TEXT:
            return markup_node_add_attr(node, s->name, s->name_len, s->s, s->n, NULL);
        case MARKUP_VALUE_HTML:
            return markup_node_add_attr_html(node, s->name, s->name_len, s->s, s->n, NULL);
        default:
            return markup_node_add_attr_bool(node, s->name, s->name_len,
                                             s->value.kind == MARKUP_VALUE_TRUE, NULL);
        }
    default: return MARKUP_OK;
    }
}

/* Builds the tree (a fragment); NULL after an injected allocation failure. */
static markup_node *build_tree(const program *p, fuzz_alloc *alc) {
    markup_node *stack[DEPTH_MAX + 1];
    size_t depth = 0;
    size_t failures = alc->failures;
    if (!build_ok(markup_node_new_fragment(&alc->hooks, &stack[0]), alc, failures)) return NULL;
    depth = 1;
    bool ok = true;
    for (size_t i = 0; ok && i < p->nsteps; i++) {
        const step *s = &p->steps[i];
        failures = alc->failures;
        if (s->kind == STEP_OPEN) {
            markup_node *e = NULL;
            ok = build_ok(markup_node_new_element(s->tag, s->tag_len, &alc->hooks, &e, NULL), alc,
                          failures);
            if (ok) stack[depth++] = e;
        } else if (s->kind == STEP_CLOSE) {
            markup_node *e = stack[--depth];
            ok = build_ok(markup_node_append_child(stack[depth - 1], e, NULL), alc, failures);
            markup_node_unref(e);
        } else {
            ok = build_ok(tree_step(stack[depth - 1], s), alc, failures);
        }
    }
    while (depth > 1) markup_node_unref(stack[--depth]);
    if (!ok) {
        markup_node_unref(stack[0]);
        return NULL;
    }
    return stack[0];
}

/* ------------------------------------------------------------------------ */
/* Rendering                                                                */
/* ------------------------------------------------------------------------ */

static const char prefix_pattern[] = "<ul data-x=\"&amp;\">'\"<>&<!--x--></ul>";

static void start_out(markup_buf *out, fuzz_alloc *alc, size_t prefix_len) {
    markup_buf_init(out, &alc->hooks);
    const size_t armed = alc->fail_call;
    alc->fail_call = 0;
    FUZZ_CHECK(markup_buf_append(out, prefix_pattern, prefix_len) == MARKUP_OK);
    alc->fail_call = armed;
}

static void check_prefix(const markup_buf *out, size_t prefix_len) {
    FUZZ_CHECK(out->len >= prefix_len);
    FUZZ_CHECK(prefix_len == 0 ||
               fuzz_bytes_equal(out->data, prefix_len, prefix_pattern, prefix_len));
}

typedef struct writer_ctx {
    const program *p;
    size_t next_slot;
    size_t stop_at;
} writer_ctx;

static markup_status write_slot(void *ctx, size_t slot, markup_slot_kind kind, const char *name,
                                size_t name_len, bool newline_first, markup_buf *out) {
    writer_ctx *w = ctx;
    FUZZ_CHECK(slot == w->next_slot++); /* slots in order, each once */
    FUZZ_CHECK(slot < w->p->nslots);
    const step *s = w->p->slot_steps[slot];
    if (s->kind == STEP_CHILD_SLOT) {
        FUZZ_CHECK(kind == MARKUP_SLOT_CHILD && name == NULL);
    } else {
        FUZZ_CHECK(kind == MARKUP_SLOT_ATTR &&
                   fuzz_bytes_equal(name, name_len, s->name, s->name_len));
    }
    if (slot == w->stop_at) {
        (void)markup_buf_append(out, "partial", 7); /* must be rolled back */
        return MARKUP_ERR_SLOT_VALUE;
    }
    const markup_value *v = &w->p->values[slot];
    /* First in a textarea: a newline that begins text is written twice. */
    if (newline_first && v->kind == MARKUP_VALUE_TEXT && v->n &&
        (v->s[0] == '\n' || v->s[0] == '\r')) {
        markup_status st = markup_buf_putc(out, '\n');
        if (st != MARKUP_OK) return st;
    }
    return markup_baked_write_value(kind, name, name_len, v, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static program prog; /* large: kept off the C stack */
    static decoder dec;
    memset(&prog, 0, sizeof prog);
    memset(&dec, 0, sizeof dec);
    dec.in = (fuzz_reader){data, size};
    dec.p = &prog;
    baked_options opt;
    fuzz_take_struct(&dec.in, &opt, sizeof opt);
    const size_t prefix_len = opt.prefix % 32;
    decode(&dec);

    fuzz_buf expected = {0};
    const size_t static_bytes = expected_output(&prog, &expected);
    const bool value_error =
        prog.true_in_child || prog.bad_utf8_slot != SIZE_MAX || prog.quoted_slot != SIZE_MAX;

    fuzz_alloc alc;
    fuzz_alloc_init(&alc);
    if (opt.flags & 1) fuzz_alloc_fail_in(&alc, (size_t)opt.fail_at + 1);

    markup_baked *tpl = build_template(&prog, &alc, (opt.flags & 2) != 0);
    if (tpl) {
        FUZZ_CHECK(markup_baked_slot_count(tpl) == prog.nslots);
        FUZZ_CHECK(markup_baked_static_size(tpl) == static_bytes);
        for (size_t i = 0; i < prog.nslots; i++) {
            const markup_slot_kind kind =
                prog.slot_steps[i]->kind == STEP_CHILD_SLOT ? MARKUP_SLOT_CHILD : MARKUP_SLOT_ATTR;
            markup_slot_kind got = MARKUP_SLOT_CHILD;
            FUZZ_CHECK(markup_baked_slot_kind(tpl, i, &got) == MARKUP_OK && got == kind);
        }

        /* 1 against 3. */
        markup_buf out;
        start_out(&out, &alc, prefix_len);
        size_t failures = alc.failures;
        markup_error err = MARKUP_ERROR_INIT;
        markup_status st = markup_baked_render(tpl, prog.values, prog.nslots, &out, &err);
        check_prefix(&out, prefix_len);
        if (st == MARKUP_OK) {
            FUZZ_CHECK(!value_error);
            FUZZ_CHECK(fuzz_bytes_equal(fuzz_tail(&out, prefix_len), out.len - prefix_len,
                                        expected.data, expected.len));
        } else {
            FUZZ_CHECK(out.len == prefix_len); /* rolled back */
            if (st == MARKUP_ERR_NOMEM) {
                FUZZ_CHECK(alc.failures > failures);
            } else if (st == MARKUP_ERR_RAW_TEXT) {
                FUZZ_CHECK(prog.quoted_slot != SIZE_MAX && err.code == st);
            } else if (!prog.true_in_child) {
                FUZZ_CHECK(st == MARKUP_ERR_INVALID_UTF8 && prog.bad_utf8_slot != SIZE_MAX);
                FUZZ_CHECK(err.code == st && err.pos == prog.bad_utf8_pos);
            } else {
                FUZZ_CHECK(st == MARKUP_ERR_SLOT_VALUE ||
                           (st == MARKUP_ERR_INVALID_UTF8 && prog.bad_utf8_slot != SIZE_MAX));
            }
        }
        markup_buf_free(&out);

        /* A wrong number of values is refused before anything is written. */
        start_out(&out, &alc, prefix_len);
        failures = alc.failures;
        st = markup_baked_render(tpl, prog.values, prog.nslots + 1, &out, NULL);
        FUZZ_CHECK(st == MARKUP_ERR_SLOT_COUNT ||
                   (st == MARKUP_ERR_NOMEM && alc.failures > failures));
        if (prog.nslots > 0) {
            st = markup_baked_render(tpl, prog.values, prog.nslots - 1, &out, NULL);
            FUZZ_CHECK(st == MARKUP_ERR_SLOT_COUNT ||
                       (st == MARKUP_ERR_NOMEM && alc.failures > failures));
        }
        FUZZ_CHECK(out.len == prefix_len);
        markup_buf_free(&out);

        /* The general form with the library's own value writer. */
        if (!value_error) {
            writer_ctx w = {&prog, 0, opt.stop_at};
            start_out(&out, &alc, prefix_len);
            failures = alc.failures;
            st = markup_baked_render_slots(tpl, write_slot, &w, &out);
            check_prefix(&out, prefix_len);
            if (st == MARKUP_OK) {
                FUZZ_CHECK(opt.stop_at >= prog.nslots && w.next_slot == prog.nslots);
                FUZZ_CHECK(fuzz_bytes_equal(fuzz_tail(&out, prefix_len), out.len - prefix_len,
                                            expected.data, expected.len));
            } else {
                FUZZ_CHECK(out.len == prefix_len);
                FUZZ_CHECK(
                    (st == MARKUP_ERR_SLOT_VALUE && w.next_slot == (size_t)opt.stop_at + 1) ||
                    (st == MARKUP_ERR_NOMEM && alc.failures > failures));
            }
            markup_buf_free(&out);
        }
        markup_baked_free(tpl);
    }

    /* 2 against 3. */
    if (!value_error) {
        markup_node *tree = build_tree(&prog, &alc);
        if (tree) {
            markup_buf out;
            start_out(&out, &alc, prefix_len);
            size_t failures = alc.failures;
            markup_status st = markup_node_render(tree, &out, NULL);
            check_prefix(&out, prefix_len);
            if (st == MARKUP_OK) {
                FUZZ_CHECK(fuzz_bytes_equal(fuzz_tail(&out, prefix_len), out.len - prefix_len,
                                            expected.data, expected.len));
            } else {
                FUZZ_CHECK((st == MARKUP_ERR_NOMEM && alc.failures > failures) ||
                           (prog.in_text_content &&
                            (st == MARKUP_ERR_RAW_TEXT || st == MARKUP_ERR_CONTEXT)));
                FUZZ_CHECK(out.len == prefix_len);
            }
            markup_buf_free(&out);
            markup_node_unref(tree);
        }
    }

    fuzz_alloc_finish(&alc);
    fuzz_buf_free(&expected);
    free_program(&prog);
    for (size_t i = 0; i < DEPTH_MAX; i++) fuzz_buf_free(&dec.stack[i].raw);
    return 0;
}
