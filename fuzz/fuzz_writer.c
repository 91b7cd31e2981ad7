/*
 * fuzz_writer.c - random sequences of markup_writer calls keep the
 * writer's contract and never let text end an element early.
 *
 * The input (after a 4-byte options header) is a program of calls: open a
 * tag (mostly one of the tags whose parsing moves the parser between
 * states, sometimes bytes from the input), attributes (the ones that change
 * the parser's reading among them), text, trusted HTML, a comment, a
 * doctype, close, end the start tag, and "slot": a second writer started at
 * the first one's context writes a small subtree into the same buffer, as
 * a baked child slot does. A call may fail (the harness checks the status
 * against what the contract allows for that call) and the program goes on.
 *
 * Checked, besides memory safety and the allocator's books:
 * - a failed call leaves the writer as it was: the depth is unchanged and
 *   the calls after it still work;
 * - each successful open adds one level and writes "<tag", each close of a
 *   non-void element writes "</tag>";
 * - at its close, the content of a <script> or <style> that holds only
 *   text (in svg or math it may hold markup) never contains its own end
 *   tag (nor "<!--" in a script), in any letter case, whether the writer
 *   wrote it raw or escaped;
 * - the content of a title, textarea, iframe, xmp, noembed, noframes or
 *   noscript that has no svg or math around it never contains its end tag
 *   as the tokenizer reads it there (the elements inside are text to it).
 *
 * - a baked template builder given the same calls (markup_baked_builder_*,
 *   with a child slot where the program asks for a slot) gives the same
 *   status for each, and the template, filled with the bytes each slot's
 *   writer wrote, renders the writer's output byte for byte. The mirror
 *   stops where the two may rightly part: an allocation failure, or a slot
 *   the builder refuses where the writer only flushed its start tag.
 *
 * FUZZ_WRITER_TRACE=1 in the environment prints the output after every
 * call and each checked content (replay_fuzz_writer on a reproducer).
 */
#include "fuzz_common.h"

typedef struct writer_options {
    uint8_t flags;   /* bit 0: make one allocation fail */
    uint8_t fail_at; /* which one, counted from 1 */
    uint8_t prefix;  /* bytes (prefix % 32) already in the buffer */
    uint8_t spare;
} writer_options;

enum {
    OP_OPEN,
    OP_ATTR,
    OP_ATTR_HTML,
    OP_ATTR_BARE,
    OP_TEXT,
    OP_HTML,
    OP_COMMENT,
    OP_DOCTYPE,
    OP_CLOSE,
    OP_FLUSH,
    OP_SLOT,
    OP_COUNT
};

static const char *const known_tags[] = {
    "select",
    "option",
    "optgroup",
    "svg",
    "math",
    "mi",
    "mo",
    "mtext",
    "annotation-xml",
    "foreignObject",
    "desc",
    "title",
    "textarea",
    "style",
    "script",
    "noscript",
    "noembed",
    "iframe",
    "xmp",
    "noframes",
    "table",
    "td",
    "tr",
    "p",
    "b",
    "div",
    "font",
    "mglyph",
    "malignmark",
    "template",
    "col",
    "frameset",
    "plaintext",
    "param",
    "image",
    "br",
    "g",
    /* What the in-body rules treat otherwise inside svg and math. */
    "html",
    "body",
    "form",
    "isindex",
    "a",
    "nobr",
    "button",
    "li",
    "dd",
    "h1",
    "h2",
    "pre",
    "rt",
    "object",
    "my-widget",
    "SCRIPT",
    "Title",
    "SVG",
};

static const char *const known_attrs[] = {"id",       "color",    "face",  "size",
                                          "encoding", "ENCODING", "class", "@click"};

static const char *const known_values[] = {
    "text/html", "application/xhtml+xml", "TEXT/HTML", "red", "", "&amp;", "text&#47;html"};

static const char *const known_texts[] = {
    "</script>", "</style>", "<!--",        "</title>",    "</textarea ", "</noscript>",
    "</iframe",  "</xmp>",   "</noembed",   "</noframes>", "</scr",       "ipt>",
    "</tit",     "le>",      "<img src=x>", "a < b",       "</select>",   "</SCRIPT",
    "</Style",   "<!-",      "-",           "\nline",      "\r\n",
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))
#define OPEN_MAX    64

/* What the harness knows of an element it opened. */
typedef struct open_el {
    char *tag;
    size_t tag_len;
    size_t content_start; /* where its content starts in the buffer (0: not yet) */
    bool raw;             /* script or style */
    bool text_element;    /* title textarea iframe xmp noembed noframes noscript */
    bool foreign_around;  /* svg or math around it, or it is one */
    bool has_element;     /* markup was written inside: an element, a comment, a
                             doctype, trusted HTML in svg or math */
    bool is_void;
} open_el;

#define SLOTS_MAX 512 /* at most one a step */

typedef struct harness {
    fuzz_reader in;
    fuzz_alloc alc;
    markup_buf out;
    open_el stack[OPEN_MAX + 1]; /* + 1: one the harness could not close */
    size_t depth;
    markup_baked_builder *b;       /* the mirror; NULL once it stopped */
    bool flushed;                  /* the writer ended a start tag that the builder, which has
                     no flush, ends at its next content */
    markup_value slots[SLOTS_MAX]; /* what each slot's writer wrote */
    size_t nslots;
    size_t empty_slot_end; /* where the last slot ended, if it wrote nothing */
} harness;

/* Stops the mirror: the builder can no longer follow the writer. */
static void mirror_stop(harness *h) {
    markup_baked_builder_free(h->b);
    h->b = NULL;
}

/* The builder's status for the call the writer answered with `want`. */
static void mirror_check(harness *h, markup_status want, markup_status got, size_t failures) {
    if (h->b == NULL) return;
    if (h->alc.failures > failures) { /* the writer's allocator failed, not the builder's */
        mirror_stop(h);
        return;
    }
    if (got != want) {
        fprintf(stderr, "builder gave %s where the writer gave %s\n", markup_status_name(got),
                markup_status_name(want));
        FUZZ_CHECK(got == want);
    }
}

static bool name_is_ci(const char *s, size_t n, const char *lower) {
    size_t len = strlen(lower);
    if (n != len) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != lower[i]) return false;
    }
    return true;
}

/* True when s[0..n) holds `needle` (lower-case ASCII), ignoring case. */
static FUZZ_NO_COVERAGE bool contains_ci(const char *s, size_t n, const char *needle) {
    size_t len = strlen(needle);
    for (size_t i = 0; i + len <= n; i++) {
        size_t k = 0;
        while (k < len) {
            char c = s[i + k];
            if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
            if (c != needle[k]) break;
            k++;
        }
        if (k == len) return true;
    }
    return false;
}

/* True when s[0..n) holds the end tag `end_tag` ("</title", lower case)
   as the tokenizer reads it inside that element: any case, then a
   whitespace, '/' or '>' ("</title66p>" of an element inside is text). */
static FUZZ_NO_COVERAGE bool holds_end_tag(const char *s, size_t n, const char *end_tag) {
    size_t len = strlen(end_tag);
    for (size_t i = 0; i + len < n; i++) {
        if (contains_ci(s + i, len, end_tag) && strchr("\t\n\f\r />", s[i + len]) != NULL &&
            s[i + len] != '\0')
            return true;
    }
    return false;
}

static char *take_from(harness *h, const char *const *table, size_t count, size_t *len) {
    uint8_t b = fuzz_take_u8(&h->in);
    if (b < 0xC0) {
        const char *t = table[b % count];
        *len = strlen(t);
        return fuzz_copy(t, *len);
    }
    return fuzz_take_string(&h->in, len);
}

/* The status of a call that may fail: OK, or an error with a message; on
   NOMEM the allocator really failed. */
static bool succeeded(harness *h, markup_status st, const markup_error *err, size_t failures) {
    if (st == MARKUP_OK) return true;
    if (st == MARKUP_ERR_NOMEM) {
        FUZZ_CHECK(h->alc.failures > failures);
    } else {
        FUZZ_CHECK(err->code == st && err->msg != NULL);
    }
    return false;
}

/* The checks on an element's content at its close (on failure the whole
   output goes to stderr first). */
static void check_content(const harness *h, const open_el *el, size_t end) {
    if (el->content_start == 0 || el->is_void) return;
    const char *s = h->out.data + el->content_start;
    size_t n = end - el->content_start;
    if (getenv("FUZZ_WRITER_TRACE"))
        fprintf(stderr, "<%.*s> content: %.*s\n", (int)el->tag_len, el->tag, (int)n, s);
    if (el->raw && !el->has_element) {
        bool script = name_is_ci(el->tag, el->tag_len, "script");
        FUZZ_CHECK(!contains_ci(s, n, script ? "</script" : "</style"));
        if (script) FUZZ_CHECK(!contains_ci(s, n, "<!--"));
    }
    if (el->text_element && !el->foreign_around) {
        char end_tag[16] = "</";
        memcpy(end_tag + 2, el->tag, el->tag_len < 12 ? el->tag_len : 12);
        end_tag[2 + (el->tag_len < 12 ? el->tag_len : 12)] = '\0';
        for (char *c = end_tag; *c; c++)
            if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
        FUZZ_CHECK(!holds_end_tag(s, n, end_tag));
    }
}

/* After a call: when it ended the open element's start tag (the '>' at
   `at`, the buffer's length before the call), its content starts after. */
static void note_content_start(harness *h, const markup_writer *w, bool pending, size_t at) {
    if (pending && !w->in_start_tag && h->depth && h->stack[h->depth - 1].content_start == 0)
        h->stack[h->depth - 1].content_start = at + 1;
}

static void op_open(harness *h, markup_writer *w, char *tag, size_t n) {
    markup_error err = MARKUP_ERROR_INIT;
    size_t failures = h->alc.failures, before = w->depth, len = h->out.len;
    bool pending = w->in_start_tag;
    markup_status st = markup_writer_open(w, tag, n, &err);
    if (h->b) mirror_check(h, st, markup_baked_builder_open(h->b, tag, n, NULL), failures);
    /* The open wrote the parent's '>' first: its content starts after. */
    if (st == MARKUP_OK && pending && h->depth && h->stack[h->depth - 1].content_start == 0)
        h->stack[h->depth - 1].content_start = len + 1;
    if (st == MARKUP_OK && pending) len++;
    if (!succeeded(h, st, &err, failures) || h->depth == OPEN_MAX) {
        if (st == MARKUP_OK) { /* no room to follow it: close it at once */
            if (h->depth) h->stack[h->depth - 1].has_element = true;
            markup_status closed = markup_writer_close(w, NULL);
            if (h->b) mirror_check(h, closed, markup_baked_builder_close(h->b, NULL), failures);
            if (closed != MARKUP_OK) {
                /* Out of memory: it stays open; the program stops here. */
                FUZZ_CHECK(h->alc.failures > failures && w->depth == before + 1);
                h->stack[h->depth++] = (open_el){tag, n, 0, false, false, false, true, false};
                return;
            }
        }
        FUZZ_CHECK(w->depth == before);
        free(tag);
        return;
    }
    h->flushed = false; /* both are in the new start tag */
    FUZZ_CHECK(w->depth == before + 1);
    FUZZ_CHECK(h->out.len >= len + n + 1 && h->out.data[h->out.len - n - 1] == '<');
    if (h->depth) h->stack[h->depth - 1].has_element = true;
    markup_tag_class cls = markup_html_tag_class(tag, n);
    bool foreign = (cls & (MARKUP_TAG_IS_SVG | MARKUP_TAG_IS_MATH)) != 0 ||
                   (h->depth && h->stack[h->depth - 1].foreign_around);
    h->stack[h->depth++] = (open_el){tag,
                                     n,
                                     0,
                                     (cls & (MARKUP_TAG_IS_SCRIPT | MARKUP_TAG_IS_STYLE)) != 0,
                                     (cls & MARKUP_TAG_TEXT_MASK) != 0,
                                     foreign,
                                     false,
                                     (cls & MARKUP_TAG_IS_VOID) != 0};
}

static void op_close(harness *h, markup_writer *w) {
    if (h->depth == 0) {
        markup_error err;
        FUZZ_CHECK(markup_writer_close(w, &err) == MARKUP_ERR_INVALID_ARG);
        if (h->b) FUZZ_CHECK(markup_baked_builder_close(h->b, NULL) == MARKUP_ERR_INVALID_ARG);
        return;
    }
    open_el *el = &h->stack[h->depth - 1];
    markup_error err = MARKUP_ERROR_INIT;
    size_t failures = h->alc.failures;
    if (w->in_start_tag) el->content_start = h->out.len + 1; /* '>' comes now */
    size_t end = h->out.len;
    markup_status st = markup_writer_close(w, &err);
    if (h->b) mirror_check(h, st, markup_baked_builder_close(h->b, NULL), failures);
    if (!succeeded(h, st, &err, failures)) {
        /* Only NOMEM can fail a close, and the element stays open. */
        FUZZ_CHECK(st == MARKUP_ERR_NOMEM && w->depth == h->depth);
        return;
    }
    h->flushed = false;
    end = h->out.len - (el->is_void ? 0 : el->tag_len + 3);
    if (!el->is_void) FUZZ_CHECK(h->out.data[h->out.len - 1] == '>');
    check_content(h, el, end);
    free(el->tag);
    h->depth--;
}

/* A second writer at the first one's context, as a baked child slot: a
   small subtree of known tags and texts. */
static void op_slot(harness *h, markup_writer *w) {
    markup_error err;
    size_t failures = h->alc.failures, at = h->out.len;
    bool pending = w->in_start_tag;
    if (markup_writer_flush_tag(w, &err) != MARKUP_OK) {
        FUZZ_CHECK(h->alc.failures > failures);
        return;
    }
    note_content_start(h, w, pending, at);
    /* The writer hears of the slot (its status is the builder's to
       judge): what it writes after it in a pre, listing or textarea may
       or may not come first, as in the template. */
    (void)markup_writer_check_child_slot(w, NULL);
    /* The builder checks where a child slot may stand; the writer only
       ended the start tag. Where they part, the mirror stops. */
    if (h->b &&
        (h->nslots == SLOTS_MAX || markup_baked_builder_child_slot(h->b, NULL) != MARKUP_OK))
        mirror_stop(h);
    h->flushed = false; /* the builder's child slot ended its start tag */
    at = h->out.len;
    markup_writer slot;
    markup_writer_init(&slot, &h->out, markup_writer_context(w));
    size_t tag_len, text_len;
    char *tag = take_from(h, known_tags, COUNT_OF(known_tags), &tag_len);
    char *text = take_from(h, known_texts, COUNT_OF(known_texts), &text_len);
    if (markup_writer_open(&slot, tag, tag_len, NULL) == MARKUP_OK) {
        if (fuzz_ref_utf8_valid(text, text_len))
            (void)markup_writer_text(&slot, text, text_len, NULL);
        (void)markup_writer_close(&slot, NULL);
    }
    FUZZ_CHECK(slot.depth == 0 || h->alc.failures > failures);
    markup_writer_dispose(&slot);
    h->empty_slot_end = h->out.len == at ? at : SIZE_MAX;
    /* A value filled into a slot is held to the rule for trusted HTML
       there, stricter than what a writer may write as elements (a
       <textarea> inside a <title> is text to the parser; a nested
       <template> first in a template is not read into). */
    if (h->b && h->out.len > at &&
        markup_context_check_child_html(markup_writer_context(w), h->out.data + at, h->out.len - at,
                                        NULL) != MARKUP_OK)
        mirror_stop(h);
    if (h->b) {
        size_t len = h->out.len - at;
        char *copy = malloc(len ? len : 1);
        FUZZ_CHECK(copy != NULL);
        if (len) memcpy(copy, h->out.data + at, len);
        h->slots[h->nslots++] = (markup_value){MARKUP_VALUE_HTML, copy, len};
    }
    if (h->depth) h->stack[h->depth - 1].has_element = true;
    free(tag);
    free(text);
}

static void run_op(harness *h, markup_writer *w, int op) {
    markup_error err = MARKUP_ERROR_INIT;
    size_t failures = h->alc.failures, before = w->depth, n = 0, m = 0, at = h->out.len;
    bool pending = w->in_start_tag;
    char *s = NULL, *v = NULL;
    markup_status st = MARKUP_OK;
    const bool flushed = h->flushed;
    switch (op) {
    case OP_OPEN:
        s = take_from(h, known_tags, COUNT_OF(known_tags), &n);
        op_open(h, w, s, n);
        return;
    case OP_CLOSE: op_close(h, w); return;
    case OP_SLOT: op_slot(h, w); return;
    case OP_ATTR:
    case OP_ATTR_HTML:
    case OP_ATTR_BARE:
        s = take_from(h, known_attrs, COUNT_OF(known_attrs), &n);
        if (op != OP_ATTR_BARE) v = take_from(h, known_values, COUNT_OF(known_values), &m);
        if (!fuzz_ref_utf8_valid(v, m)) break;
        st = op == OP_ATTR        ? markup_writer_attr(w, s, n, v, m, &err)
             : op == OP_ATTR_HTML ? markup_writer_attr_html(w, s, n, v, m, &err)
                                  : markup_writer_attr_bool(w, s, n, true, &err);
        if (flushed) /* the writer refuses it; the builder would take it */
            FUZZ_CHECK(st == MARKUP_ERR_INVALID_ARG);
        else if (h->b)
            mirror_check(h, st,
                         op == OP_ATTR ? markup_baked_builder_attr(h->b, s, n, v, m, NULL)
                         : op == OP_ATTR_HTML
                             ? markup_baked_builder_attr_html(h->b, s, n, v, m, NULL)
                             : markup_baked_builder_attr_bool(h->b, s, n, true, NULL),
                         failures);
        break;
    case OP_TEXT:
    case OP_HTML:
    case OP_COMMENT:
        s = take_from(h, known_texts, COUNT_OF(known_texts), &n);
        if (!fuzz_ref_utf8_valid(s, n)) break;
        /* Right after a slot that wrote nothing, text that begins with a
           newline may come first in a pre, listing or textarea: the
           template doubles the newline then, which this writer, with no
           slot of its own, cannot know. */
        if (h->b && op == OP_TEXT && n && (s[0] == '\n' || s[0] == '\r') &&
            h->out.len == h->empty_slot_end)
            mirror_stop(h);
        st = op == OP_TEXT   ? markup_writer_text(w, s, n, &err)
             : op == OP_HTML ? markup_writer_html(w, s, n, &err)
                             : markup_writer_comment(w, s, n, &err);
        if (h->b)
            mirror_check(h, st,
                         op == OP_TEXT   ? markup_baked_builder_text(h->b, s, n, NULL)
                         : op == OP_HTML ? markup_baked_builder_html(h->b, s, n, NULL)
                                         : markup_baked_builder_comment(h->b, s, n, NULL),
                         failures);
        /* A comment is markup; so is trusted HTML where the text is not raw
           (in svg or math). */
        if (st == MARKUP_OK && h->depth &&
            (op == OP_COMMENT || (op == OP_HTML && h->stack[h->depth - 1].foreign_around)))
            h->stack[h->depth - 1].has_element = true;
        break;
    case OP_DOCTYPE:
        st = markup_writer_doctype(w, &err);
        if (h->b) mirror_check(h, st, markup_baked_builder_doctype(h->b, NULL), failures);
        if (st == MARKUP_OK && h->depth) h->stack[h->depth - 1].has_element = true;
        break;
    default:
        st = markup_writer_flush_tag(w, &err);
        h->flushed = flushed || (pending && st == MARKUP_OK);
        break;
    }
    if (succeeded(h, st, &err, failures)) {
        note_content_start(h, w, pending, at);
        /* Content went out: the builder ended its start tag too (empty
           text writes nothing, and ends nothing). */
        if (op >= OP_TEXT && op <= OP_DOCTYPE && h->out.len > at) h->flushed = false;
    }
    FUZZ_CHECK(w->depth == before);
    free(s);
    free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static harness h; /* large: kept off the C stack */
    memset(&h, 0, sizeof h);
    h.empty_slot_end = SIZE_MAX;
    h.in = (fuzz_reader){data, size};
    writer_options opt;
    fuzz_take_struct(&h.in, &opt, sizeof opt);
    fuzz_alloc_init(&h.alc);
    markup_buf_init(&h.out, &h.alc.hooks);
    static const char prefix[] = "<p class=\"x\">&amp;<!-- pre -->'\"<>";
    FUZZ_CHECK(markup_buf_append(&h.out, prefix, opt.prefix % 32) == MARKUP_OK);
    if (opt.flags & 1) fuzz_alloc_fail_in(&h.alc, (size_t)opt.fail_at + 1);

    markup_writer w;
    markup_writer_init(&w, &h.out, MARKUP_CONTEXT_HTML);
    const size_t start = h.out.len;
    FUZZ_CHECK(markup_baked_builder_new(NULL, &h.b) == MARKUP_OK);
    /* After an allocation failure the output is cut short (callers drop
       it): the program stops there. */
    const bool trace = getenv("FUZZ_WRITER_TRACE") != NULL;
    for (size_t steps = 0; fuzz_more(&h.in) && steps < 512 && h.alc.failures == 0; steps++) {
        int op = fuzz_take_u8(&h.in) % OP_COUNT;
        run_op(&h, &w, op);
        if (trace) fprintf(stderr, "op %d: %.*s\n", op, (int)h.out.len, h.out.data);
    }
    while (h.depth && h.alc.failures == 0) op_close(&h, &w);
    FUZZ_CHECK(w.depth == h.depth);
    if (h.b && h.depth == 0) {
        /* The template, filled with what each slot wrote, is the output. */
        markup_baked *tpl = NULL;
        markup_error err = MARKUP_ERROR_INIT;
        FUZZ_CHECK(markup_baked_builder_finish(h.b, &tpl, &err) == MARKUP_OK);
        h.b = NULL;
        markup_buf filled;
        markup_buf_init(&filled, NULL);
        markup_status st = markup_baked_render(tpl, h.slots, h.nslots, &filled, &err);
        if (st != MARKUP_OK) fprintf(stderr, "render: %s: %s\n", markup_status_name(st), err.msg);
        FUZZ_CHECK(st == MARKUP_OK);
        if (filled.len != h.out.len - start ||
            (filled.len && memcmp(filled.data, h.out.data + start, filled.len) != 0)) {
            fprintf(stderr, "writer:   %.*s\ntemplate: %.*s\n", (int)(h.out.len - start),
                    h.out.data + start, (int)filled.len, filled.data);
            FUZZ_CHECK(false);
        }
        markup_buf_free(&filled);
        markup_baked_free(tpl);
    }
    mirror_stop(&h);
    for (size_t i = 0; i < h.nslots; i++) free((void *)h.slots[i].s);
    while (h.depth) free(h.stack[--h.depth].tag);
    markup_writer_dispose(&w);
    markup_buf_free(&h.out);
    fuzz_alloc_finish(&h.alc);
    return 0;
}
