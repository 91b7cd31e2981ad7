/*
 * fuzz_serialize.c - element trees built from the input through the
 * markup_node_* API render exactly the HTML an independent model predicts.
 *
 * The input (after a 4-byte options header) is a program of operations on
 * a stack of open nodes whose bottom is a fragment: open an element (a
 * known tag, or bytes from the input), open a fragment, add text, trusted
 * HTML, a comment, a doctype, an attribute (text, HTML or boolean), close
 * the top node into its parent, adopt an open node or re-append the last
 * closed one (shared, frozen subtrees), try to modify a frozen node, push
 * a deep chain, render the top node. Every call's status is checked
 * against the errors the contract allows for that call; when a call
 * succeeds, the model applies the same operation to its own copy of the
 * expected HTML, built with the reference escaper. Renders must then equal
 * the model byte for byte, which covers the escaping invariants: every
 * text and attribute value appears escaped, and no '<' appears outside
 * raw text except where the tree put a tag, comment or doctype.
 *
 * Also checked: attribute and child counts, tags read back, the text of a
 * <script>/<style> never ends the element early even across several
 * children, MARKUP_MAX_DEPTH (with a small band for how depth is counted),
 * rollback of the output buffer on failure, an injected allocation
 * failure anywhere (the call fails with NOMEM and changes nothing), and
 * that every block is freed with the size it was allocated with.
 */
#include "fuzz_common.h"

typedef struct serialize_options {
    uint8_t flags;   /* bit 0: make one allocation fail */
    uint8_t fail_lo; /* which one: fail_lo + 256 * fail_hi, counted from 1 */
    uint8_t fail_hi;
    uint8_t prefix; /* bytes (prefix % 32) already in the output buffers */
} serialize_options;

enum {
    OP_OPEN,
    OP_OPEN_FRAGMENT,
    OP_CLOSE,
    OP_TEXT,
    OP_HTML,
    OP_COMMENT,
    OP_DOCTYPE,
    OP_ATTR,
    OP_ATTR_HTML,
    OP_ATTR_BOOL,
    OP_ADOPT,
    OP_REUSE,
    OP_MUTATE_FROZEN,
    OP_DEEP,
    OP_RENDER_TOP,
    OP_COUNT
};

#define STACK_MAX    (MARKUP_MAX_DEPTH + 64)
#define SHARES_MAX   8          /* adopt/reuse calls: each may double the output */
#define EXPECTED_MAX (1u << 20) /* no subtree the model predicts grows past this */

static const char *const known_tags[] = {
    "div",  "p",    "span",   "a",         "ul",    "li",       "br",       "img",    "input",
    "hr",   "meta", "link",   "script",    "style", "SCRIPT",   "Style",    "title",  "textarea",
    "html", "head", "body",   "my-widget", "h1",    "BR",       "template", "svg",    "table",
    "td",   "wbr",  "sCrIpT", "option",    "x-1",   "noscript", "math",     "mglyph", "pre",
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
    "src",
    "value",
    "aria-label",
    "\xc3\xa9t\xc3\xa9",
    "type",
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* One open (or closed) node and the HTML the model expects from it. */
typedef struct model {
    markup_node *node;
    bool fragment;
    markup_tag_kind kind;
    char *tag;
    size_t tag_len;
    fuzz_buf attrs;   /* expected ' name="value"' bytes, in order */
    fuzz_buf content; /* expected bytes between start and end tag */
    size_t nattrs, nchildren;
    size_t el_height;   /* elements on the longest path down, this one included */
    size_t node_height; /* nodes on that path, fragments counted too */
    bool frozen;
    bool unpredictable;   /* holds something whose rendering the contract leaves open */
    bool may_refuse;      /* rendering may refuse it: raw text or trusted HTML inside a
                           <title>, <noscript>... (markup_html_check_text_inside),
                           or elements whose place the writer's context rules
                           judge (MARKUP_ERR_CONTEXT): inside svg or math, or
                           inside a text element */
    bool raw_inside;      /* holds <script>/<style> text, which <svg>/<math> escape */
    bool newline_inside;  /* holds a pre, listing or textarea whose text begins with a
                             newline written twice, which in <svg>/<math> it is not */
    bool html_inside;     /* holds trusted HTML */
    bool elements_inside; /* holds an element below it */
} model;

typedef struct harness {
    fuzz_reader in;
    fuzz_alloc alc;
    size_t prefix_len;
    model stack[STACK_MAX];
    size_t depth;
    model last; /* the last node closed (node == NULL: none) */
    fuzz_buf last_html;
    size_t shares;
} harness;

static const char prefix_pattern[] = "<p class=\"x\">&amp;<!-- pre -->'\"<>";

/* ------------------------------------------------------------------------ */
/* Expected outcomes                                                        */
/* ------------------------------------------------------------------------ */

#define BIT(st) (1u << (unsigned)(st))

/* The outcome a call may have: any status in `errs`, or OK when `ok`. */
typedef struct expect {
    unsigned errs;
    bool ok;
} expect;

static expect must(unsigned errs) { return (expect){errs, errs == 0}; }

/* Checks a status against the expectation; true when the call took
   effect. NOMEM is allowed at any call, but only when the allocator
   really failed. */
static bool outcome(harness *h, markup_status st, expect e, size_t failures_before) {
    if (st == MARKUP_ERR_NOMEM) {
        FUZZ_CHECK(h->alc.failures > failures_before);
        return false;
    }
    if (st == MARKUP_OK) {
        FUZZ_CHECK(e.ok);
        return true;
    }
    FUZZ_CHECK((e.errs & BIT(st)) != 0);
    return false;
}

static bool raw_kind(markup_tag_kind kind) {
    return kind == MARKUP_TAG_SCRIPT || kind == MARKUP_TAG_STYLE;
}

/* Errors every child-adding call shares. */
static unsigned child_errors(const model *m) {
    unsigned errs = 0;
    if (m->frozen) errs |= BIT(MARKUP_ERR_FROZEN);
    if (!m->fragment && m->kind == MARKUP_TAG_VOID) errs |= BIT(MARKUP_ERR_VOID_CHILD);
    return errs;
}

/* Counts read back from the library equal the model's. */
static void check_counts(const model *m) {
    FUZZ_CHECK(markup_node_attr_count(m->node) == m->nattrs);
    FUZZ_CHECK(markup_node_child_count(m->node) == m->nchildren);
}

/* The raw text of a <script>/<style>, all children together, must not end
   the element early: "</scr" + "ipt>" in two children is still a
   breakout. */
static void check_raw_content(const model *m) {
    if (m->fragment || !raw_kind(m->kind)) return;
    FUZZ_CHECK(fuzz_ref_raw_text_error(m->kind, m->content.data, m->content.len) == m->content.len);
}

/* ------------------------------------------------------------------------ */
/* The model                                                                */
/* ------------------------------------------------------------------------ */

/* The full expected HTML of a node. */
static FUZZ_NO_COVERAGE void model_html(const model *m, fuzz_buf *out) {
    if (m->fragment) {
        fuzz_buf_add(out, m->content.data, m->content.len);
        return;
    }
    fuzz_buf_adds(out, "<");
    fuzz_buf_add(out, m->tag, m->tag_len);
    fuzz_buf_add(out, m->attrs.data, m->attrs.len);
    fuzz_buf_adds(out, ">");
    if (m->kind == MARKUP_TAG_VOID) return;
    fuzz_buf_add(out, m->content.data, m->content.len);
    fuzz_buf_adds(out, "</");
    fuzz_buf_add(out, m->tag, m->tag_len);
    fuzz_buf_adds(out, ">");
}

static void model_release(model *m) {
    markup_node_unref(m->node);
    free(m->tag);
    fuzz_buf_free(&m->attrs);
    fuzz_buf_free(&m->content);
    memset(m, 0, sizeof *m);
}

/* Renders `m` into a buffer that already holds a prefix and compares.
   `fail_at` non-zero makes that allocation of the render fail; zero leaves
   whatever failure is armed in place. */
static void render_and_compare(harness *h, const model *m, size_t fail_at) {
    fuzz_buf expected = {0};
    model_html(m, &expected);

    const size_t armed = h->alc.fail_call;
    fuzz_alloc_fail_in(&h->alc, 0);
    markup_buf out;
    markup_buf_init(&out, &h->alc.hooks);
    FUZZ_CHECK(markup_buf_append(&out, prefix_pattern, h->prefix_len) == MARKUP_OK);
    h->alc.fail_call = armed;

    size_t failures = h->alc.failures;
    if (fail_at) fuzz_alloc_fail_in(&h->alc, fail_at);
    markup_error err = MARKUP_ERROR_INIT;
    markup_status st = markup_node_render(m->node, &out, &err);
    h->alc.fail_call = armed;

    FUZZ_CHECK(out.len >= h->prefix_len);
    FUZZ_CHECK(h->prefix_len == 0 ||
               fuzz_bytes_equal(out.data, h->prefix_len, prefix_pattern, h->prefix_len));
    const bool must_fit = m->node_height + 1 <= MARKUP_MAX_DEPTH - 8;
    const bool must_refuse = m->el_height > MARKUP_MAX_DEPTH + 8;
    if (st == MARKUP_OK) {
        FUZZ_CHECK(!must_refuse);
        if (!m->unpredictable) {
            FUZZ_CHECK(fuzz_bytes_equal(fuzz_tail(&out, h->prefix_len), out.len - h->prefix_len,
                                        expected.data, expected.len));
        }
    } else {
        if (st == MARKUP_ERR_NOMEM) {
            FUZZ_CHECK(h->alc.failures > failures);
        } else if (st == MARKUP_ERR_RAW_TEXT || st == MARKUP_ERR_CONTEXT) {
            FUZZ_CHECK(m->may_refuse && err.code == st && err.msg != NULL);
        } else {
            FUZZ_CHECK(st == MARKUP_ERR_TOO_DEEP && !must_fit);
            FUZZ_CHECK(err.code == MARKUP_ERR_TOO_DEEP && err.msg != NULL);
        }
        FUZZ_CHECK(out.len == h->prefix_len); /* rolled back */
    }
    markup_buf_free(&out);
    fuzz_buf_free(&expected);
}

/* ------------------------------------------------------------------------ */
/* Operations                                                               */
/* ------------------------------------------------------------------------ */

static model *top(harness *h) { return &h->stack[h->depth - 1]; }

static void push(harness *h, markup_node *node, bool fragment, const char *tag, size_t tag_len) {
    model *m = &h->stack[h->depth++];
    memset(m, 0, sizeof *m);
    m->node = node;
    m->fragment = fragment;
    m->kind = fragment ? MARKUP_TAG_NORMAL : fuzz_ref_tag_kind(tag, tag_len);
    m->tag = fuzz_copy(tag, tag_len);
    m->tag_len = tag_len;
    m->el_height = fragment ? 0 : 1;
    m->node_height = 1;
    /* <image> is void where it stands in HTML and not in svg: the model,
       built bottom-up, cannot tell which. */
    if (!fragment && fuzz_ascii_iequal(tag, tag_len, "image"))
        m->unpredictable = m->may_refuse = true;
}

static void op_open(harness *h, const char *tag, size_t tag_len) {
    if (h->depth == STACK_MAX) return;
    const bool valid = fuzz_ref_tag_error(tag, tag_len) == tag_len && tag_len > 0;
    markup_node *node = NULL;
    markup_error err = MARKUP_ERROR_INIT;
    size_t failures = h->alc.failures;
    markup_status st = markup_node_new_element(tag, tag_len, &h->alc.hooks, &node, &err);
    if (!outcome(h, st, must(valid ? 0 : BIT(MARKUP_ERR_INVALID_TAG)), failures)) {
        FUZZ_CHECK(node == NULL);
        if (st == MARKUP_ERR_INVALID_TAG) {
            FUZZ_CHECK(err.code == st && err.pos == fuzz_ref_tag_error(tag, tag_len));
        }
        return;
    }
    size_t n = 0;
    const char *stored = markup_node_tag(node, &n);
    FUZZ_CHECK(fuzz_bytes_equal(stored, n, tag, tag_len));
    push(h, node, false, tag, tag_len);
    check_counts(top(h));
}

static void op_open_fragment(harness *h) {
    if (h->depth == STACK_MAX) return;
    markup_node *node = NULL;
    size_t failures = h->alc.failures;
    markup_status st = markup_node_new_fragment(&h->alc.hooks, &node);
    if (!outcome(h, st, must(0), failures)) {
        FUZZ_CHECK(node == NULL);
        return;
    }
    size_t n = 1;
    FUZZ_CHECK(markup_node_tag(node, &n) == NULL);
    push(h, node, true, NULL, 0);
    check_counts(top(h));
}

static bool tag_is_ci(const model *m, const char *lower);

/* An element after whose start tag the parser drops a newline. */
static bool drops_newline(const model *m) {
    return !m->fragment &&
           (tag_is_ci(m, "pre") || tag_is_ci(m, "listing") || tag_is_ci(m, "textarea"));
}

static bool tag_is_ci(const model *m, const char *lower) {
    size_t n = strlen(lower);
    if (m->tag_len != n) return false;
    for (size_t i = 0; i < n; i++) {
        char c = m->tag[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != lower[i]) return false;
    }
    return true;
}

/* Adds child `c` (whose expected HTML is `html`) to the top node. */
static bool append_child(harness *h, markup_node *child, const model *c, const fuzz_buf *html) {
    model *p = top(h);
    if (p->content.len + html->len > EXPECTED_MAX) return false;
    unsigned errs = child_errors(p);
    bool ok_in_raw = false;
    if (child == p->node) errs |= BIT(MARKUP_ERR_INVALID_ARG);
    if (!p->fragment && raw_kind(p->kind)) {
        errs |= BIT(MARKUP_ERR_RAW_TEXT);
        /* A fragment of raw text inside <script> is left open by the
           contract; an element never is. */
        ok_in_raw = c->fragment && errs == BIT(MARKUP_ERR_RAW_TEXT);
    }
    expect e = must(errs);
    e.ok = e.ok || ok_in_raw;
    markup_error err = MARKUP_ERROR_INIT;
    size_t failures = h->alc.failures;
    markup_status st = markup_node_append_child(p->node, child, &err);
    if (!outcome(h, st, e, failures)) {
        check_counts(p);
        return false;
    }
    fuzz_buf_add(&p->content, html->data, html->len);
    p->nchildren++;
    if (ok_in_raw) p->unpredictable = true;
    p->unpredictable |= c->unpredictable;
    /* The content model is built bottom-up and does not know where an
       element will stand; raw text under <svg>, <math>, <mglyph> and
       <malignmark> is rendered escaped (markup_html_content_inside), so
       such subtrees are not compared. */
    if (c->raw_inside && !p->fragment &&
        (tag_is_ci(p, "svg") || tag_is_ci(p, "math") || tag_is_ci(p, "mglyph") ||
         tag_is_ci(p, "malignmark")))
        p->unpredictable = true;
    if (c->newline_inside && !p->fragment && (tag_is_ci(p, "svg") || tag_is_ci(p, "math")))
        p->unpredictable = true;
    /* A fragment's text first in a pre, listing or textarea comes first
       there too; the model cannot tell its text from trusted HTML. */
    if (c->fragment && drops_newline(p) && p->content.len == 0 && html->len &&
        (html->data[0] == '\n' || html->data[0] == '\r'))
        p->unpredictable = true;
    const bool text_element = !p->fragment && markup_html_reads_as_text(p->tag, p->tag_len);
    const bool foreign = !p->fragment && (tag_is_ci(p, "svg") || tag_is_ci(p, "math"));
    const bool holds_element = !c->fragment || c->elements_inside;
    /* Three levels of elements may be a p (li, a ...) holding a formatting
       element holding a start tag that closes both (writer.c). */
    p->may_refuse |= c->may_refuse || (text_element && (c->raw_inside || c->html_inside)) ||
                     ((text_element || foreign) && holds_element) ||
                     (!c->fragment && c->elements_inside);
    p->raw_inside |= c->raw_inside;
    p->newline_inside |= c->newline_inside;
    p->html_inside |= c->html_inside;
    p->elements_inside |= holds_element;
    const size_t el = c->el_height + (p->fragment ? 0 : 1);
    if (el > p->el_height) p->el_height = el;
    if (c->node_height + 1 > p->node_height) p->node_height = c->node_height + 1;
    check_counts(p);
    return true;
}

static void op_close(harness *h) {
    if (h->depth < 2) return;
    model closing = h->stack[--h->depth];
    fuzz_buf html = {0};
    model_html(&closing, &html);
    if (append_child(h, closing.node, &closing, &html)) closing.frozen = true;
    /* Keep it as the last closed node, for re-use and frozen checks. */
    model_release(&h->last);
    fuzz_buf_free(&h->last_html);
    h->last = closing;
    h->last_html = html;
}

static void op_adopt(harness *h, uint8_t which) {
    if (h->shares == SHARES_MAX) return;
    h->shares++;
    model *c = &h->stack[which % h->depth];
    fuzz_buf html = {0};
    model_html(c, &html);
    if (append_child(h, c->node, c, &html)) c->frozen = true;
    fuzz_buf_free(&html);
}

static void op_reuse(harness *h) {
    if (h->last.node == NULL || !h->last.frozen || h->shares == SHARES_MAX) return;
    h->shares++;
    append_child(h, h->last.node, &h->last, &h->last_html);
}

/* Text, trusted HTML, a comment or a doctype on the top node. */
static void op_content(harness *h, int op, const char *s, size_t n) {
    model *m = top(h);
    unsigned errs = child_errors(m);
    const bool raw = !m->fragment && raw_kind(m->kind);
    const bool valid_utf8 = fuzz_ref_utf8_valid(s, n);
    bool ok_in_raw = false;
    markup_status st;
    markup_error err = MARKUP_ERROR_INIT;
    size_t failures = h->alc.failures;
    switch (op) {
    case OP_TEXT:
    case OP_HTML:
        if (!valid_utf8) errs |= BIT(MARKUP_ERR_INVALID_UTF8);
        if (raw) {
            /* Raw text is refused when it, or the whole content with it,
               could end the element. */
            fuzz_buf joined = {0};
            fuzz_buf_add(&joined, m->content.data, m->content.len);
            fuzz_buf_add(&joined, s, n);
            if (fuzz_ref_raw_text_error(m->kind, joined.data, joined.len) != joined.len) {
                errs |= BIT(MARKUP_ERR_RAW_TEXT);
            }
            fuzz_buf_free(&joined);
        }
        st = op == OP_TEXT ? markup_node_append_text(m->node, s, n, &err)
                           : markup_node_append_html(m->node, s, n, &err);
        break;
    case OP_COMMENT:
        if (!valid_utf8) errs |= BIT(MARKUP_ERR_INVALID_UTF8);
        if (raw) {
            /* "<!--" may not appear in a script; in a style it is left open. */
            errs |= BIT(MARKUP_ERR_RAW_TEXT);
            ok_in_raw = m->kind == MARKUP_TAG_STYLE && (errs & ~BIT(MARKUP_ERR_RAW_TEXT)) == 0;
        }
        st = markup_node_append_comment(m->node, s, n, &err);
        break;
    default:
        if (raw) {
            errs |= BIT(MARKUP_ERR_RAW_TEXT);
            ok_in_raw = (errs & ~BIT(MARKUP_ERR_RAW_TEXT)) == 0;
        }
        st = markup_node_append_doctype(m->node, &err);
        break;
    }
    expect e = must(errs);
    e.ok = e.ok || ok_in_raw;
    if (!outcome(h, st, e, failures)) {
        if (st != MARKUP_ERR_NOMEM) FUZZ_CHECK(err.code == st && err.msg != NULL);
        if (st == MARKUP_ERR_INVALID_UTF8 && errs == BIT(MARKUP_ERR_INVALID_UTF8)) {
            FUZZ_CHECK(err.pos == fuzz_ref_utf8_error(s, n));
        }
        check_counts(m);
        return;
    }
    m->nchildren++;
    if (op == OP_DOCTYPE) {
        fuzz_buf_adds(&m->content, "<!doctype html>");
    } else if (op == OP_COMMENT) {
        fuzz_buf_adds(&m->content, "<!--");
        fuzz_ref_escape(&m->content, s, n);
        fuzz_buf_adds(&m->content, "-->");
        if (raw) m->unpredictable = true;
    } else if (raw || op == OP_HTML) {
        fuzz_buf_add(&m->content, s, n);
        if (raw && op == OP_TEXT) m->raw_inside = true;
        if (op == OP_HTML) {
            m->html_inside = true;
            if (!m->fragment && markup_html_reads_as_text(m->tag, m->tag_len)) m->may_refuse = true;
        }
    } else {
        /* The parser drops a newline first in a pre, listing or textarea:
           the writer writes one that begins text there twice. */
        if (drops_newline(m) && m->content.len == 0 && n && (s[0] == '\n' || s[0] == '\r')) {
            fuzz_buf_adds(&m->content, "\n");
            m->newline_inside = true;
        }
        fuzz_ref_escape(&m->content, s, n);
    }
    check_counts(m);
    check_raw_content(m);
}

/* An attribute on the top node: a text value, a trusted value, or a
   boolean (value_len 0/1 = absent/present). */
static void op_attr(harness *h, int op, const char *name, size_t name_len, const char *value,
                    size_t value_len) {
    model *m = top(h);
    unsigned errs = 0;
    if (m->fragment) errs |= BIT(MARKUP_ERR_INVALID_ARG);
    if (m->frozen) errs |= BIT(MARKUP_ERR_FROZEN);
    fuzz_attr_verdict v = fuzz_ref_attr_name(name, name_len);
    if (v.bad_char != SIZE_MAX) errs |= BIT(MARKUP_ERR_INVALID_ATTR_NAME);
    if (v.bad_utf8 != SIZE_MAX)
        errs |= BIT(MARKUP_ERR_INVALID_ATTR_NAME) | BIT(MARKUP_ERR_INVALID_UTF8);
    if (op != OP_ATTR_BOOL && !fuzz_ref_utf8_valid(value, value_len)) {
        errs |= BIT(MARKUP_ERR_INVALID_UTF8);
    }
    const bool present = value_len % 2 == 1;
    markup_error err = MARKUP_ERROR_INIT;
    size_t failures = h->alc.failures;
    markup_status st;
    if (op == OP_ATTR) {
        st = markup_node_add_attr(m->node, name, name_len, value, value_len, &err);
    } else if (op == OP_ATTR_HTML) {
        st = markup_node_add_attr_html(m->node, name, name_len, value, value_len, &err);
    } else {
        st = markup_node_add_attr_bool(m->node, name, name_len, present, &err);
    }
    if (!outcome(h, st, must(errs), failures)) {
        if (st != MARKUP_ERR_NOMEM) FUZZ_CHECK(err.code == st && err.msg != NULL);
        check_counts(m);
        return;
    }
    if (op == OP_ATTR_BOOL) {
        if (present) {
            fuzz_buf_adds(&m->attrs, " ");
            fuzz_buf_add(&m->attrs, name, name_len);
            m->nattrs++;
        }
    } else {
        fuzz_buf_adds(&m->attrs, " ");
        fuzz_buf_add(&m->attrs, name, name_len);
        fuzz_buf_adds(&m->attrs, "=\"");
        if (op == OP_ATTR) {
            fuzz_ref_escape(&m->attrs, value, value_len);
        } else {
            fuzz_buf_add(&m->attrs, value, value_len);
            /* A trusted value's '"' would end the quoted value: refused. */
            if (value_len && memchr(value, '"', value_len)) m->may_refuse = true;
        }
        fuzz_buf_adds(&m->attrs, "\"");
        m->nattrs++;
    }
    check_counts(m);
}

/* A frozen node refuses every change and stays as it was. */
static void op_mutate_frozen(harness *h) {
    model *m = &h->last;
    if (m->node == NULL || !m->frozen) return;
    const unsigned errs = child_errors(m); /* FROZEN at least */
    const unsigned attr_errs =
        BIT(MARKUP_ERR_FROZEN) | (m->fragment ? BIT(MARKUP_ERR_INVALID_ARG) : 0);
    size_t failures = h->alc.failures;
    outcome(h, markup_node_append_text(m->node, "x", 1, NULL), must(errs), failures);
    outcome(h, markup_node_append_html(m->node, "<b>", 3, NULL), must(errs), failures);
    outcome(h, markup_node_append_comment(m->node, "x", 1, NULL), must(errs), failures);
    outcome(h, markup_node_append_doctype(m->node, NULL), must(errs), failures);
    outcome(h, markup_node_add_attr(m->node, "id", 2, "x", 1, NULL), must(attr_errs), failures);
    outcome(h, markup_node_add_attr_bool(m->node, "id", 2, false, NULL), must(attr_errs), failures);
    markup_node *child = NULL;
    if (markup_node_new_fragment(&h->alc.hooks, &child) == MARKUP_OK) {
        markup_status st = markup_node_append_child(m->node, child, NULL);
        outcome(h, st, must(errs | BIT(MARKUP_ERR_RAW_TEXT)), failures);
        markup_node_unref(child);
    }
    check_counts(m);
}

static void op_render_top(harness *h) { render_and_compare(h, top(h), 0); }

/* A tag: mostly a known one, sometimes arbitrary bytes. */
static char *take_tag(harness *h, size_t *len) {
    uint8_t b = fuzz_take_u8(&h->in);
    if (b < 0xE0) {
        const char *t = known_tags[b % COUNT_OF(known_tags)];
        *len = strlen(t);
        return fuzz_copy(t, *len);
    }
    return fuzz_take_string(&h->in, len);
}

static char *take_attr_name(harness *h, size_t *len) {
    uint8_t b = fuzz_take_u8(&h->in);
    if (b < 0xE0) {
        const char *t = known_attrs[b % COUNT_OF(known_attrs)];
        *len = strlen(t);
        return fuzz_copy(t, *len);
    }
    return fuzz_take_string(&h->in, len);
}

static void run_op(harness *h, int op) {
    size_t n = 0, m = 0;
    char *s = NULL, *v = NULL;
    switch (op) {
    case OP_OPEN:
        s = take_tag(h, &n);
        op_open(h, s, n);
        break;
    case OP_OPEN_FRAGMENT: op_open_fragment(h); break;
    case OP_CLOSE: op_close(h); break;
    case OP_TEXT:
    case OP_HTML:
    case OP_COMMENT:
    case OP_DOCTYPE:
        if (op != OP_DOCTYPE) s = fuzz_take_string(&h->in, &n);
        op_content(h, op, s, n);
        break;
    case OP_ATTR:
    case OP_ATTR_HTML:
    case OP_ATTR_BOOL:
        s = take_attr_name(h, &n);
        v = fuzz_take_string(&h->in, &m);
        op_attr(h, op, s, n, v, m);
        break;
    case OP_ADOPT: op_adopt(h, fuzz_take_u8(&h->in)); break;
    case OP_REUSE: op_reuse(h); break;
    case OP_MUTATE_FROZEN: op_mutate_frozen(h); break;
    case OP_DEEP: {
        size_t k = (size_t)fuzz_take_u8(&h->in) % 64 + 1;
        s = take_tag(h, &n);
        for (size_t i = 0; i < k; i++) op_open(h, s, n);
        break;
    }
    default: op_render_top(h); break;
    }
    free(s);
    free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static harness h; /* large (the node stack): kept off the C stack */
    memset(&h, 0, sizeof h);
    h.in = (fuzz_reader){data, size};
    serialize_options opt;
    fuzz_take_struct(&h.in, &opt, sizeof opt);
    h.prefix_len = opt.prefix % 32;
    fuzz_alloc_init(&h.alc);
    const size_t fail_at = (opt.flags & 1) ? (size_t)opt.fail_lo + 256u * opt.fail_hi + 1 : 0;

    /* Failures are injected while building, too: each call must then
       fail cleanly and change nothing, which the model checks. */
    fuzz_alloc_fail_in(&h.alc, fail_at);
    markup_node *root = NULL;
    if (markup_node_new_fragment(&h.alc.hooks, &root) == MARKUP_OK) {
        push(&h, root, true, NULL, 0);
        while (fuzz_more(&h.in)) run_op(&h, fuzz_take_u8(&h.in) % OP_COUNT);
        while (h.depth > 1) op_close(&h);
        fuzz_alloc_fail_in(&h.alc, 0);
        render_and_compare(&h, &h.stack[0], fail_at ? fail_at % 7 + 1 : 0);
        if (h.last.node) render_and_compare(&h, &h.last, 0);
    }
    while (h.depth > 0) model_release(&h.stack[--h.depth]);
    model_release(&h.last);
    fuzz_buf_free(&h.last_html);
    fuzz_alloc_finish(&h.alc);
    return 0;
}
