/*
 * writer.c - the one HTML writer: every serializer writes through it, and
 * it alone knows where the HTML parser is (the rules are in markup.h).
 *
 * Each open element has a frame holding the context its content stands in:
 * a mode (how the parser reads a child start tag or text there) and flags
 * inherited by everything inside (the text elements around it, <select>,
 * HTML inside foreign content). The context is decided when the element
 * opens, from its parent's context and its tag class alone, so that a
 * baked slot can record it and a later writer can start from it.
 */
#include <string.h>

#include "alloc_impl.h"
#include "copy_impl.h"
#include "error_impl.h"
#include "html_impl.h"
#include "markup/binding.h"

/* markup_context.mode: how the parser reads what comes inside. */
enum {
    MODE_HTML = 0,   /* HTML content                                   */
    MODE_SVG,        /* foreign content, SVG namespace                 */
    MODE_MATH,       /* foreign content, MathML namespace              */
    MODE_MATH_TEXT,  /* mi mo mn ms mtext: HTML, but mglyph/malignmark */
    MODE_ANNOTATION, /* annotation-xml: MathML, but svg is SVG         */
    MODE_SCRIPT,     /* raw text of an HTML <script>                   */
    MODE_STYLE,      /* raw text of an HTML <style>                    */
    MODE_VOID        /* no content                                     */
};

/* markup_context.flags: bits 0-6 are the text elements around (bit i-1 for
   text element i of MARKUP_TAG_TEXT_MASK). */
#define IN_TEXT_MASK      0x7Fu
#define IN_SELECT         0x80u
#define IN_FOREIGN        0x100u /* HTML standing inside svg or math */
/* In markup_writer_context only: a frameset was opened before this place,
   so a writer started there refuses script and style text as well. */
#define AFTER_FRAMESET    0x200u
/* In markup_writer_context only: a writer started there writes a part of a
   document that goes on after it (a baked slot), so it may not open a
   frameset, which would change how the parser reads the rest. */
#define RESUMED           0x400u
/* Inside a <template> whose content's reading no start tag has decided yet
   (only ones read by the head's rules so far). Not inherited. */
#define TEMPLATE_OPEN     0x800u
/* Inside a <template> whose first deciding start tag was <col>: the parser
   then ignores every start tag there but col and template, script and
   style included, and reads their text as markup. */
#define TEMPLATE_COLUMNS  0x1000u
/* Inside pre, listing or textarea (HTML): the parser drops a newline that
   begins their content, so the writer writes one that begins text there
   twice. Not inherited, and kept out of markup_writer_context: a slot's
   run decides whether its value comes first (markup_writer_newline_start)
   and then starts its writer at markup_context_newline_first, whose base
   carries it until something is written. */
#define DROPS_NEWLINE     0x2000u
/* In such an element, a slot or a branch point came: whether text after it
   comes first is known only when the template runs, for the rest of the
   element (what a branch wrote may not be written at all), so the writer
   marks it (markup_writer_take_newline_mark). */
#define NEWLINE_UNDECIDED 0x4000u
/* In such an element, nothing was written yet. */
#define CONTENT_EMPTY     0x8000u
#define NEWLINE_FLAGS     (DROPS_NEWLINE | NEWLINE_UNDECIDED | CONTENT_EMPTY)

/* markup_context.scope: which elements that a later start tag would close
   are open in the HTML content around (since the last marker, or the
   integration point inside svg or math), and which of them hold a
   formatting element (html.c's table says which tags are which). */
#define OPEN_P                  0x01u
#define OPEN_LIST_ITEM          0x02u /* li, dd or dt */
#define OPEN_SAME               0x04u /* a, nobr or button */
#define OPEN_ANY                0x07u
#define FORMATTING_IN_P         0x08u /* OPEN_P << 3 ... */
#define FORMATTING_IN_LIST_ITEM 0x10u
#define FORMATTING_IN_SAME      0x20u
#define FORMATTING_IN_ANY       0x38u
#define OPEN_HEADING            0x40u
#define OPEN_RUBY_TEXT          0x80u

static inline markup_context top(const markup_writer *w) {
    return w->depth ? w->frames[w->depth - 1].inside : w->base;
}

static inline bool in_text(markup_context c) { return (c.flags & IN_TEXT_MASK) != 0; }

static inline bool raw(markup_context c) { return c.mode == MODE_SCRIPT || c.mode == MODE_STYLE; }

/* Where text is only escaped and trusted HTML written as is: HTML or
   foreign content, no text element around, not where trusted HTML may
   decide a template's reading (decide_template_by_html), and not where a
   leading newline is doubled. */
static inline bool plain(markup_context c) {
    return c.mode < MODE_SCRIPT && (c.flags & (IN_TEXT_MASK | TEMPLATE_OPEN | DROPS_NEWLINE)) == 0;
}

/* Whether the open element's attributes may change the parser's reading:
   only font's and annotation-xml's can (attr_sets_context). */
static inline bool attrs_may_set_context(const markup_writer *w) {
    return (w->frames[w->depth - 1].cls & (MARKUP_TAG_IS_FONT | MARKUP_TAG_IS_ANNOTATION)) != 0;
}

/* Where the open element's start tag stands: its parent's content. */
static inline markup_context start_tag_context(const markup_writer *w) {
    return w->depth > 1 ? w->frames[w->depth - 2].inside : w->base;
}

/* Whether markup_writer_attr_buf may hand out the buffer for the open
   element's attributes: names checked before, no attribute that changes
   the parser's reading, and no text element around, where a trusted value
   is checked (markup_context_check_attr_html). */
static inline bool attrs_may_go_direct(const markup_writer *w) {
    return w->names_checked && w->in_start_tag && !attrs_may_set_context(w) &&
           !in_text(start_tag_context(w));
}

void markup_writer_init(markup_writer *w, markup_buf *out, markup_context where) {
    w->out = out;
    w->sink = NULL;
    w->sink_ctx = NULL;
    w->chunk = 0;
    w->frames = w->inline_frames;
    w->depth = 0;
    w->cap = sizeof w->inline_frames / sizeof w->inline_frames[0];
    w->base = where;
    w->base.flags &= (uint16_t) ~(AFTER_FRAMESET | RESUMED);
    w->resumed = (where.flags & RESUMED) != 0;
    w->in_start_tag = false;
    w->after_frameset = (where.flags & AFTER_FRAMESET) != 0;
    w->names_checked = false;
    w->attrs_direct = false;
    w->top_plain = plain(where);
    w->tail_len = 0;
    w->newline_mark = 0;
    w->newline_mark_at = 0;
}

void markup_writer_skip_name_checks(markup_writer *w) {
    w->names_checked = true;
    w->attrs_direct = attrs_may_go_direct(w);
}

void markup_writer_set_sink(markup_writer *w, markup_sink sink, void *ctx, size_t chunk) {
    w->sink = sink;
    w->sink_ctx = ctx;
    w->chunk = chunk;
}

markup_status markup_writer_flush(markup_writer *w, markup_error *err) {
    markup_clear_(err);
    if (w == NULL) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    if (w->sink == NULL || w->out->len == 0) return MARKUP_OK;
    markup_status st = w->sink(w->sink_ctx, w->out->data, w->out->len);
    if (st != MARKUP_OK) return markup_fail_(err, st, "the sink stopped the writer");
    markup_buf_clear(w->out);
    return MARKUP_OK;
}

void markup_writer_dispose(markup_writer *w) {
    if (w == NULL || w->frames == w->inline_frames) return;
    markup_alc_free(w->out->alc, w->frames, w->cap * sizeof *w->frames);
    w->frames = w->inline_frames;
    w->cap = sizeof w->inline_frames / sizeof w->inline_frames[0];
}

markup_context markup_writer_context(const markup_writer *w) {
    markup_context c = top(w);
    c.flags &= (uint16_t)~NEWLINE_FLAGS;
    if (w->after_frameset) c.flags |= AFTER_FRAMESET;
    c.flags |= RESUMED;
    return c;
}

bool markup_context_is_plain(markup_context where) { return plain(where); }

markup_context markup_context_newline_first(markup_context where) {
    if (where.mode == MODE_HTML) where.flags |= DROPS_NEWLINE | CONTENT_EMPTY;
    return where;
}

markup_context markup_writer_start_tag_context(const markup_writer *w) {
    if (!w || !w->depth) return MARKUP_CONTEXT_HTML;
    markup_context c = start_tag_context(w);
    c.flags &= (uint16_t)~NEWLINE_FLAGS;
    return c;
}

size_t markup_writer_newline_start(const markup_writer *w) {
    if (!w || !w->depth) return 0;
    const markup_writer_frame *f = &w->frames[w->depth - 1];
    return (f->inside.flags & DROPS_NEWLINE) && f->content_at != SIZE_MAX ? f->content_at : 0;
}

size_t markup_writer_take_newline_mark(markup_writer *w, size_t *at) {
    size_t mark = w->newline_mark;
    if (at) *at = w->newline_mark_at;
    w->newline_mark = 0;
    return mark;
}

markup_status markup_context_check_attr_html(markup_context where, const char *value, size_t n,
                                             markup_error *err) {
    markup_clear_(err);
    if (value == NULL && n != 0) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    /* Trusted or not, a value's '"' would end the quoted value early. */
    const char *quote = n ? memchr(value, '"', n) : NULL;
    if (quote)
        return markup_refuse_(err, (size_t)(quote - value), "value", "\"", NULL,
                              "a '\"' in a trusted attribute value would end the quoted value "
                              "and start markup of its own; give the value as a plain str to "
                              "have it escaped");
    /* Inside a text element the parser reads the whole start tag as text:
       the value must not end that element (nor one around it). */
    if (!in_text(where)) return MARKUP_OK;
    return markup_error_in_(err, markup_html_check_text_inside(value, n, err), "value");
}

static markup_status refuse_first_col_html(markup_error *err) {
    return markup_fail_(err, MARKUP_ERR_CONTEXT,
                        "trusted HTML first in a template, in a part written into a larger "
                        "document (a baked slot), starts with a <col> (or may: markup does not "
                        "read it to its first element), which would make the parser ignore "
                        "script and style start tags in the rest of the template");
}

markup_status markup_context_check_child_html(markup_context where, const char *s, size_t n,
                                              markup_error *err) {
    markup_clear_(err);
    if (s == NULL && n != 0) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    if (where.mode == MODE_VOID)
        return markup_fail_(err, MARKUP_ERR_VOID_CHILD, "a void element cannot have children");
    if (raw(where))
        return markup_fail_(
            err, MARKUP_ERR_RAW_TEXT,
            "the text of <script> and <style> is checked whole, so it cannot hold a slot");
    if (in_text(where)) {
        markup_status st = markup_html_check_text_inside(s, n, err);
        return st == MARKUP_OK ? markup_html_check_slot_end_(s, n, err) : st;
    }
    if ((where.flags & TEMPLATE_OPEN) &&
        markup_html_template_start_(s, n) == MARKUP_TEMPLATE_MAY_BE_COL)
        return refuse_first_col_html(err);
    return MARKUP_OK;
}

static markup_status end_start_tag(markup_writer *w) {
    w->in_start_tag = false;
    markup_status st = markup_buf_putc(w->out, '>');
    markup_writer_frame *f = &w->frames[w->depth - 1];
    if (st == MARKUP_OK && (f->inside.flags & DROPS_NEWLINE)) f->content_at = w->out->len;
    return st;
}

/* A slot or a branch point where a leading newline would be dropped: what
   the writer writes next there may or may not come first. */
static void newline_undecided(markup_writer *w) {
    if (!w->depth) return; /* a writer started at a slot decides nothing later */
    markup_context *t = &w->frames[w->depth - 1].inside;
    if (t->flags & DROPS_NEWLINE) t->flags |= NEWLINE_UNDECIDED;
}

markup_status markup_writer_flush_tag(markup_writer *w, markup_error *err) {
    markup_clear_(err);
    if (w == NULL) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    markup_status st = w->in_start_tag ? end_start_tag(w) : MARKUP_OK;
    return st == MARKUP_OK ? st : markup_fail_status_(err, st);
}

markup_status markup_writer_check_child_slot(markup_writer *w, markup_error *err) {
    markup_clear_(err);
    if (w == NULL) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    /* Refused before the start tag's '>' goes out: a refusal changes
       nothing. */
    markup_context c = top(w);
    if (c.mode == MODE_VOID)
        return markup_fail_(err, MARKUP_ERR_VOID_CHILD, "a void element cannot have children");
    if (raw(c))
        return markup_fail_(
            err, MARKUP_ERR_RAW_TEXT,
            "the text of <script> and <style> is checked whole, so it cannot hold a slot");
    markup_status st = markup_writer_flush_tag(w, err);
    if (st != MARKUP_OK) return st;
    newline_undecided(w);
    /* In a text element, trusted HTML just before the slot may have begun
       an end tag that the slot's text would finish. */
    if (in_text(c) && markup_html_check_slot_end_(w->tail, w->tail_len, NULL) != MARKUP_OK)
        return markup_fail_(
            err, MARKUP_ERR_CONTEXT,
            "trusted HTML just before this slot ends in the start of an end tag that the "
            "slot's text could finish, ending the element around it");
    return MARKUP_OK;
}

/* ---- where an element goes ---------------------------------------------- */

/* The scope inside an HTML element of class `cls` whose parent's is `s`. */
static inline uint8_t scope_inside(unsigned s, markup_tag_class cls) {
    if (cls & MARKUP_TAG_IS_MARKER) return 0;
    /* What its start tag closed is no longer open inside it. */
    if (cls & MARKUP_TAG_CLOSES_P) s &= ~(OPEN_P | FORMATTING_IN_P);
    if (cls & MARKUP_TAG_IS_LIST_ITEM) s &= ~(OPEN_LIST_ITEM | FORMATTING_IN_LIST_ITEM);
    /* A list item's start tag closes list items only up to a special
       element: ul, ol and the other block elements stop it (div and address
       do not, but share their bits: the one shape this leaves open). */
    if ((cls & MARKUP_TAG_CLOSES_P) && !(cls & MARKUP_TAG_IS_P))
        s &= ~(OPEN_LIST_ITEM | FORMATTING_IN_LIST_ITEM);
    if (cls & MARKUP_TAG_CLOSES_SAME) s &= ~(OPEN_SAME | FORMATTING_IN_SAME);
    if (cls & MARKUP_TAG_IS_FORMATTING) s |= (s & OPEN_ANY) << 3;
    if (cls & MARKUP_TAG_IS_P) s |= OPEN_P;
    if (cls & MARKUP_TAG_IS_LIST_ITEM) s |= OPEN_LIST_ITEM;
    if (cls & MARKUP_TAG_CLOSES_SAME) s |= OPEN_SAME;
    if (cls & MARKUP_TAG_IS_HEADING) s |= OPEN_HEADING;
    if (cls & MARKUP_TAG_IS_RUBY_TEXT) s |= OPEN_RUBY_TEXT;
    return (uint8_t)s;
}

/* Whether the start tag of an HTML element of class `cls` would close an
   element that holds a formatting element: the parser would close that
   one too and reopen it at the next text or start tag, wherever that is
   (inside an svg integration point, say), where the writer cannot follow. */
static inline bool closes_formatting(unsigned s, markup_tag_class cls) {
    return ((cls & MARKUP_TAG_CLOSES_P) && (s & FORMATTING_IN_P)) ||
           ((cls & MARKUP_TAG_IS_LIST_ITEM) && (s & FORMATTING_IN_LIST_ITEM)) ||
           ((cls & MARKUP_TAG_CLOSES_SAME) && (s & FORMATTING_IN_SAME));
}

/* Why the parser would not keep an HTML element of class `cls` open as
   written inside svg or math (at an integration point, or inside HTML
   there): its start tag would be ignored, merged, or close or move an
   element. There every end tag must end the element it was written for: an
   end tag that finds another current node closes the nearest svg or math
   element of its name, and what follows would be read as foreign content.
   NULL when it keeps to the ordinary rules. */
static const char *restructures_in_foreign(unsigned s, markup_tag_class cls) {
    if (cls & MARKUP_TAG_RESTRUCTURES)
        return "inside svg or math the HTML parser ignores this start tag, merges it into "
               "an element already open, or closes or moves open elements for it, so that "
               "its end tag would close an svg or math element instead; put it outside the "
               "svg or math";
    if (((cls & MARKUP_TAG_CLOSES_P) && (s & OPEN_P)) ||
        ((cls & MARKUP_TAG_IS_LIST_ITEM) && (s & OPEN_LIST_ITEM)) ||
        ((cls & MARKUP_TAG_IS_HEADING) && (s & OPEN_HEADING)) ||
        ((cls & MARKUP_TAG_IS_RUBY_TEXT) && (s & (OPEN_P | OPEN_LIST_ITEM | OPEN_RUBY_TEXT))))
        return "inside svg or math the HTML parser closes the p, li, dd, dt, heading or ruby "
               "text around this element at its start tag, so that the end tag written for "
               "that one would close an svg or math element instead; close it before this "
               "element";
    return NULL;
}

/* The context inside an HTML element of class `cls` whose parent's content
   is `up`; `foreign` when it stands inside svg or math. */
static markup_context html_inside(markup_context up, markup_tag_class cls, bool foreign) {
    markup_context c = {MODE_HTML, scope_inside(up.scope, cls),
                        (uint16_t)(up.flags & ~(TEMPLATE_OPEN | NEWLINE_FLAGS))};
    if (foreign) c.flags |= IN_FOREIGN;
    if (cls & (MARKUP_TAG_IS_VOID | MARKUP_TAG_IS_IMAGE))
        c.mode = MODE_VOID;
    else if (cls & MARKUP_TAG_IS_SCRIPT)
        c.mode = MODE_SCRIPT;
    else if (cls & MARKUP_TAG_IS_STYLE)
        c.mode = MODE_STYLE;
    else if (cls & MARKUP_TAG_IS_SVG)
        c.mode = MODE_SVG;
    else if (cls & MARKUP_TAG_IS_MATH)
        c.mode = MODE_MATH;
    /* Foreign content starts afresh: the parser's scopes stop at its
       integration points. */
    if (c.mode == MODE_SVG || c.mode == MODE_MATH) c.scope = 0;
    if (cls & MARKUP_TAG_IS_SELECT) c.flags |= IN_SELECT;
    if (cls & MARKUP_TAG_IS_TEMPLATE) c.flags |= TEMPLATE_OPEN;
    unsigned text = cls & MARKUP_TAG_TEXT_MASK;
    if (text && c.mode == MODE_HTML) c.flags |= (uint16_t)(1u << (text - 1));
    return c;
}

/* The context inside a foreign element of class `cls` in namespace `mode`
   (MODE_SVG or MODE_MATH). */
static markup_context foreign_inside(markup_context up, markup_tag_class cls, uint8_t mode) {
    markup_context c = {mode, 0, (uint16_t)(up.flags & ~(TEMPLATE_OPEN | NEWLINE_FLAGS))};
    if (cls & MARKUP_TAG_IS_VOID) {
        c.mode = MODE_VOID; /* written as in HTML: no children, no end tag */
    } else if (mode == MODE_SVG && (cls & MARKUP_TAG_IS_SVG_POINT)) {
        c.mode = MODE_HTML;
        c.flags |= IN_FOREIGN;
    } else if (mode == MODE_MATH && (cls & MARKUP_TAG_IS_MATH_TEXT)) {
        c.mode = MODE_MATH_TEXT;
    } else if (mode == MODE_MATH && (cls & MARKUP_TAG_IS_ANNOTATION)) {
        c.mode = MODE_ANNOTATION;
    }
    return c;
}

/* Decides the context inside a new element, or refuses it. */
static markup_status place(const markup_writer *w, markup_tag_class cls, markup_context *inside,
                           markup_error *err) {
    markup_context up = top(w);
    bool html; /* the parser makes it an HTML element */
    switch (up.mode) {
    case MODE_VOID:
        return markup_fail_(err, MARKUP_ERR_VOID_CHILD, "a void element cannot have children");
    case MODE_SCRIPT:
    case MODE_STYLE:
        return markup_fail_(err, MARKUP_ERR_RAW_TEXT, "<script> and <style> hold only text");
    case MODE_HTML: html = true; break;
    case MODE_MATH_TEXT: html = !(cls & MARKUP_TAG_IS_MGLYPH); break;
    case MODE_ANNOTATION: html = (cls & MARKUP_TAG_IS_SVG) != 0; break;
    default: html = false; break;
    }
    /* Inside a text element the parser reads everything as text up to that
       element's end tag, whatever markup takes the namespace to be. */
    unsigned text = cls & MARKUP_TAG_TEXT_MASK;
    if (text && (up.flags & (1u << (text - 1))))
        return markup_fail_(
            err, MARKUP_ERR_CONTEXT,
            "inside an element of the same name, whose content the HTML parser reads as "
            "text, its end tag would end the outer one early");
    /* In foreign content too: older parsers ignore <svg> and <math> in a
       select. */
    if ((up.flags & IN_SELECT) && (cls & (MARKUP_TAG_IS_SELECT | MARKUP_TAG_ENDS_SELECT)))
        return markup_fail_(
            err, MARKUP_ERR_CONTEXT,
            "inside <select> the HTML parser ends the select at this start tag, and older "
            "parsers (which ignore <svg> and <math> there) read what follows as HTML outside "
            "it; put it outside the select");
    if (!html) {
        if (cls & MARKUP_TAG_IS_BREAKOUT)
            return markup_fail_(err, MARKUP_ERR_CONTEXT,
                                "inside svg or math content the HTML parser closes the svg or math "
                                "element before this one; put it inside <foreignObject> (svg) or "
                                "<mtext> (math)");
        *inside = foreign_inside(up, cls, up.mode == MODE_SVG ? MODE_SVG : MODE_MATH);
        return MARKUP_OK;
    }
    bool foreign = up.mode != MODE_HTML || (up.flags & IN_FOREIGN);
    const char *why = foreign ? restructures_in_foreign(up.scope, cls) : NULL;
    if (why) return markup_fail_(err, MARKUP_ERR_CONTEXT, why);
    if (closes_formatting(up.scope, cls))
        return markup_fail_(
            err, MARKUP_ERR_CONTEXT,
            "the HTML parser closes the p, li, dd, dt, a, nobr or button around this element "
            "at its start tag, and with it the formatting element (b, i, a, em ...) inside "
            "that one, which it reopens later wherever the next text goes; close the "
            "formatting element before this one, or put this one outside the p (li ...)");
    if (cls & MARKUP_TAG_IS_PLAINTEXT)
        return markup_fail_(
            err, MARKUP_ERR_CONTEXT,
            "the HTML parser reads everything after <plaintext> as its text, end tags "
            "included: it cannot be closed");
    if ((cls & MARKUP_TAG_IS_FRAMESET) && w->resumed)
        return markup_fail_(err, MARKUP_ERR_CONTEXT,
                            "a frameset in a part written into a larger document (a baked "
                            "slot) would make the parser ignore script and style start tags "
                            "in the rest of it");
    if (foreign && (cls & (MARKUP_TAG_IS_TABLE_PART | MARKUP_TAG_IS_FRAMESET)))
        return markup_fail_(
            err, MARKUP_ERR_CONTEXT,
            "inside svg or math the HTML parser may close every element up to a table "
            "around it for this one, the svg or math included");
    if ((up.flags & TEMPLATE_OPEN) && (cls & MARKUP_TAG_IS_COL) && w->depth == 0 && w->resumed)
        return markup_fail_(err, MARKUP_ERR_CONTEXT,
                            "a <col> first in a template, in a part written into a larger "
                            "document (a baked slot), would make the parser ignore script and "
                            "style start tags in the rest of the template");
    if ((up.flags & IN_SELECT) && (cls & MARKUP_TAG_IS_STYLE))
        return markup_fail_(
            err, MARKUP_ERR_CONTEXT,
            "inside <select>, older HTML parsers ignore a <style> start tag and read its "
            "text as markup; put the style outside the select");
    *inside = html_inside(up, cls, foreign);
    return MARKUP_OK;
}

/* ---- elements ----------------------------------------------------------- */

static bool name_is(const char *s, size_t n, const char *lower);

/* The HTML elements after whose start tag the parser drops a newline. */
static bool drops_newline(const char *tag, size_t n) {
    return (n == 3 && name_is(tag, n, "pre")) || (n == 7 && name_is(tag, n, "listing")) ||
           (n == 8 && name_is(tag, n, "textarea"));
}

/* Something was written among the open element's children: a newline
   after it no longer comes first. */
static void wrote_content(markup_writer *w) {
    if (w->depth) {
        w->frames[w->depth - 1].inside.flags &= (uint16_t)~CONTENT_EMPTY;
    } else {
        w->base.flags &= (uint16_t)~NEWLINE_FLAGS;
        w->top_plain = plain(w->base);
    }
}

/* Makes room for one more frame. */
static markup_status grow(markup_writer *w) {
    size_t cap = markup_grow_capacity(w->cap, w->depth + 1, 64, sizeof *w->frames);
    if (cap == 0) return MARKUP_ERR_TOO_LARGE;
    markup_writer_frame *frames;
    if (w->frames == w->inline_frames) {
        frames = markup_alc_malloc(w->out->alc, cap * sizeof *frames);
        if (frames) memcpy(frames, w->frames, w->depth * sizeof *frames);
    } else {
        frames = markup_alc_realloc(w->out->alc, w->frames, w->cap * sizeof *frames,
                                    cap * sizeof *frames);
    }
    if (frames == NULL) return MARKUP_ERR_NOMEM;
    w->frames = frames;
    w->cap = cap;
    return MARKUP_OK;
}

/* Classes that need more than html_inside, even in plain HTML content. */
#define SLOW_IN_HTML (MARKUP_TAG_IS_PLAINTEXT | MARKUP_TAG_IS_FRAMESET)
/* Classes whose content html_inside reads differently from their parent's,
   or whose scope differs. */
#define CHANGES_CONTENT                                                                            \
    (MARKUP_TAG_TEXT_MASK | MARKUP_TAG_IS_VOID | MARKUP_TAG_IS_IMAGE | MARKUP_TAG_IS_SCRIPT |      \
     MARKUP_TAG_IS_STYLE | MARKUP_TAG_IS_SVG | MARKUP_TAG_IS_MATH | MARKUP_TAG_IS_SELECT |         \
     MARKUP_TAG_IS_TEMPLATE | MARKUP_TAG_IS_MARKER | MARKUP_TAG_CLOSES_P |                         \
     MARKUP_TAG_IS_LIST_ITEM | MARKUP_TAG_CLOSES_SAME | MARKUP_TAG_IS_FORMATTING |                 \
     MARKUP_TAG_IS_HEADING | MARKUP_TAG_IS_RUBY_TEXT)

/* The first start tag in a template not read by the head's rules decides
   how the parser reads the rest of the template's content; called once
   that element's frame is pushed, its parent the template. */
static void decide_template(markup_writer *w, markup_tag_class cls) {
    markup_context *t = w->depth > 1 ? &w->frames[w->depth - 2].inside : &w->base;
    t->flags &= (uint16_t)~TEMPLATE_OPEN;
    if (cls & MARKUP_TAG_IS_COL) t->flags |= TEMPLATE_COLUMNS;
}

/* Trusted HTML written where a template is still undecided decides it
   as its first deciding start tag would. */
static markup_status decide_template_by_html(markup_writer *w, const char *s, size_t n,
                                             markup_error *err) {
    markup_template_start how = markup_html_template_start_(s, n);
    if (how == MARKUP_TEMPLATE_UNDECIDED) return MARKUP_OK;
    if (how == MARKUP_TEMPLATE_MAY_BE_COL && w->depth == 0 && w->resumed)
        return refuse_first_col_html(err);
    markup_context *t = w->depth ? &w->frames[w->depth - 1].inside : &w->base;
    t->flags &= (uint16_t)~TEMPLATE_OPEN;
    if (how == MARKUP_TEMPLATE_MAY_BE_COL) t->flags |= TEMPLATE_COLUMNS;
    return MARKUP_OK;
}

markup_status markup_writer_branch(markup_writer *w, markup_error *err) {
    markup_clear_(err);
    if (w == NULL) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    markup_context *t = w->depth ? &w->frames[w->depth - 1].inside : &w->base;
    /* What comes after a branch point joins what came before another one
       (the other branch, the loop's last item): the seams the writer sees
       in walking order are not the output's. */
    if (raw(*t))
        return markup_fail_(err, MARKUP_ERR_RAW_TEXT,
                            "the text of <script> and <style> is checked whole, so it cannot "
                            "hold a condition or loop");
    if (in_text(*t)) {
        if (markup_html_check_slot_end_(w->tail, w->tail_len, NULL) != MARKUP_OK)
            return markup_fail_(err, MARKUP_ERR_CONTEXT,
                                "trusted HTML just before a condition or loop, or at the end of "
                                "one's branch or body, ends in the start of an end tag ('<', "
                                "'</ti' ...) that what comes next could finish, ending the "
                                "element early; write that '<' as '&lt;' or end the HTML "
                                "otherwise");
        w->tail_len = 0;
    }
    if (t->flags & TEMPLATE_OPEN) t->flags |= TEMPLATE_COLUMNS;
    newline_undecided(w);
    return MARKUP_OK;
}

markup_status markup_writer_open_class(markup_writer *w, const char *tag, size_t n,
                                       markup_tag_class cls, markup_error *err) {
    markup_clear_(err);
    if (w == NULL || (tag == NULL && n != 0))
        return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    if (w->depth >= MARKUP_MAX_DEPTH)
        return markup_fail_(err, MARKUP_ERR_TOO_DEEP,
                            "tree nested deeper than MARKUP_MAX_DEPTH elements");
    markup_context up = top(w), inside;
    markup_status st;
    bool decides_template = false;
    if (up.mode == MODE_HTML && up.flags == 0 && !(cls & SLOW_IN_HTML) &&
        !((up.scope & FORMATTING_IN_ANY) && closes_formatting(up.scope, cls))) {
        /* Most elements of most pages: HTML content inside HTML content. */
        inside = (cls & CHANGES_CONTENT) ? html_inside(up, cls, false) : up;
    } else {
        if ((st = place(w, cls, &inside, err)) != MARKUP_OK) {
            /* Every element the rules refuse is in the class table. */
            if (st == MARKUP_ERR_CONTEXT && err) err->refused = markup_html_tag_name_(tag, n);
            return st;
        }
        if (cls & MARKUP_TAG_IS_FRAMESET) w->after_frameset = true;
        decides_template = (up.flags & TEMPLATE_OPEN) && !(cls & MARKUP_TAG_IS_HEAD_RULES);
        if (up.flags & NEWLINE_FLAGS) wrote_content(w);
    }
    if ((cls & (MARKUP_TAG_CLOSES_P | MARKUP_TAG_TEXT_MASK)) && inside.mode == MODE_HTML &&
        drops_newline(tag, n))
        inside.flags |= DROPS_NEWLINE | CONTENT_EMPTY;
    if (w->depth == w->cap && (st = grow(w)) != MARKUP_OK) return markup_fail_status_(err, st);
    /* '>' of the parent's start tag, if still open, then "<tag". */
    if (n > SIZE_MAX - 2) return markup_fail_status_(err, MARKUP_ERR_TOO_LARGE);
    if ((st = markup_buf_reserve(w->out, n + 2)) != MARKUP_OK) return markup_fail_status_(err, st);
    char *d = w->out->data + w->out->len;
    if (w->in_start_tag) *d++ = '>';
    *d++ = '<';
    copy_short(d, tag, n);
    w->out->len = (size_t)(d + n - w->out->data);
    w->frames[w->depth++] = (markup_writer_frame){tag, n, cls, inside, SIZE_MAX};
    if (decides_template) decide_template(w, cls);
    w->in_start_tag = true;
    /* attrs_may_go_direct(w), from what is at hand */
    w->attrs_direct = w->names_checked &&
                      !(cls & (MARKUP_TAG_IS_FONT | MARKUP_TAG_IS_ANNOTATION)) && !in_text(up);
    w->top_plain = plain(inside);
    w->tail_len = 0; /* raw text starts afresh in a new element */
    return MARKUP_OK;
}

markup_status markup_writer_open(markup_writer *w, const char *tag, size_t n, markup_error *err) {
    markup_clear_(err);
    markup_status st = markup_html_check_tag(tag, n, NULL, err);
    if (st != MARKUP_OK) return st;
    return markup_writer_open_class(w, tag, n, markup_html_tag_class(tag, n), err);
}

markup_status markup_writer_close(markup_writer *w, markup_error *err) {
    markup_clear_(err);
    if (w == NULL || w->depth == 0)
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "no element is open");
    const markup_writer_frame *f = &w->frames[w->depth - 1];
    size_t n = f->tag_len;
    if (n > SIZE_MAX - 4) return markup_fail_status_(err, MARKUP_ERR_TOO_LARGE);
    /* At most '>' of the start tag, then "</tag>". */
    markup_status st = markup_buf_reserve(w->out, n + 4);
    if (st != MARKUP_OK) return markup_fail_status_(err, st);
    char *d = w->out->data + w->out->len;
    if (w->in_start_tag) *d++ = '>';
    if (f->inside.mode != MODE_VOID) {
        d[0] = '<';
        d[1] = '/';
        copy_short(d + 2, f->tag, n);
        d[n + 2] = '>';
        d += n + 3;
    }
    w->out->len = (size_t)(d - w->out->data);
    w->depth--;
    w->in_start_tag = false;
    w->tail_len = 0;
    w->top_plain = plain(top(w));
    if (w->sink != NULL && w->out->len >= w->chunk) return markup_writer_flush(w, err);
    return MARKUP_OK;
}

/* ---- attributes --------------------------------------------------------- */

static bool name_is(const char *s, size_t n, const char *lower) {
    size_t len = strlen(lower);
    if (n != len) return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c | 0x20);
        if (c != (unsigned char)lower[i]) return false;
    }
    return true;
}

/* Whether attribute `name` changes how the parser reads the open element's
   content: font's color, face and size in foreign content, annotation-xml's
   encoding. */
static bool attr_sets_context(const markup_writer *w, const char *name, size_t n) {
    const markup_writer_frame *f = &w->frames[w->depth - 1];
    markup_context up = start_tag_context(w);
    bool foreign_parent = up.mode == MODE_SVG || up.mode == MODE_MATH ||
                          up.mode == MODE_ANNOTATION ||
                          (up.mode == MODE_MATH_TEXT && (f->cls & MARKUP_TAG_IS_MGLYPH));
    if ((f->cls & MARKUP_TAG_IS_FONT) && foreign_parent)
        return name_is(name, n, "color") || name_is(name, n, "face") || name_is(name, n, "size");
    return (f->cls & MARKUP_TAG_IS_ANNOTATION) && f->inside.mode == MODE_ANNOTATION &&
           name_is(name, n, "encoding");
}

static markup_status attr_target(const markup_writer *w, const char *name, size_t n,
                                 markup_error *err) {
    if (w == NULL || !w->in_start_tag)
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "attributes go straight after an open");
    if (w->names_checked)
        return name == NULL && n != 0 ? markup_fail_status_(err, MARKUP_ERR_INVALID_ARG)
                                      : MARKUP_OK;
    return markup_html_check_attr_name(name, n, err);
}

static const char font_breakout[] =
    "font with a color, face or size attribute inside svg or math content makes the HTML "
    "parser close the svg or math element before it";

markup_status markup_writer_check_attr_slot(const markup_writer *w, const char *name, size_t n,
                                            markup_error *err) {
    markup_clear_(err);
    markup_status st = attr_target(w, name, n, err);
    if (st != MARKUP_OK || !attrs_may_set_context(w) || !attr_sets_context(w, name, n)) return st;
    if (w->frames[w->depth - 1].cls & MARKUP_TAG_IS_FONT)
        return markup_fail_(err, MARKUP_ERR_CONTEXT, font_breakout);
    return markup_fail_(err, MARKUP_ERR_CONTEXT,
                        "the encoding of annotation-xml decides whether the HTML parser reads its "
                        "content as HTML: it must be known when the template is made");
}

/* An attribute that changes the parser's reading (attr_sets_context), before
   it is written: font's are refused. */
static markup_status check_context_attr(const markup_writer *w, markup_error *err) {
    if (w->frames[w->depth - 1].cls & MARKUP_TAG_IS_FONT)
        return markup_fail_(err, MARKUP_ERR_CONTEXT, font_breakout);
    return MARKUP_OK;
}

/* After annotation-xml's encoding was written: the open frame holds HTML
   when it says so. `value` is as the parser will decode it, or NULL for a
   bare attribute. */
static void apply_encoding(markup_writer *w, const char *value, size_t n) {
    markup_writer_frame *f = &w->frames[w->depth - 1];
    if (value != NULL &&
        (name_is(value, n, "text/html") || name_is(value, n, "application/xhtml+xml"))) {
        f->inside.mode = MODE_HTML;
        f->inside.flags |= IN_FOREIGN;
        w->top_plain = plain(f->inside);
    }
    /* The tokenizer keeps the first of repeated attributes: only the first
       encoding counts. */
    f->cls &= ~(markup_tag_class)MARKUP_TAG_IS_ANNOTATION;
}

markup_status markup_writer_attr(markup_writer *w, const char *name, size_t name_len,
                                 const char *value, size_t value_len, markup_error *err) {
    markup_clear_(err);
    markup_status st = attr_target(w, name, name_len, err);
    if (st != MARKUP_OK) return st;
    if (value == NULL && value_len != 0) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    bool sets = attrs_may_set_context(w) && attr_sets_context(w, name, name_len);
    if (sets && (st = check_context_attr(w, err)) != MARKUP_OK) return st;
    st = markup_html_write_attr(w->out, name, name_len, value, value_len);
    if (st != MARKUP_OK) return markup_fail_status_(err, st);
    if (sets) apply_encoding(w, value ? value : "", value_len);
    return MARKUP_OK;
}

markup_status markup_writer_attr_html(markup_writer *w, const char *name, size_t name_len,
                                      const char *value, size_t value_len, markup_error *err) {
    markup_clear_(err);
    markup_status st = attr_target(w, name, name_len, err);
    if (st != MARKUP_OK) return st;
    if (value == NULL && value_len != 0) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    bool sets = attrs_may_set_context(w) && attr_sets_context(w, name, name_len);
    if (sets && (st = check_context_attr(w, err)) != MARKUP_OK) return st;
    /* Trusted HTML is decoded by the parser: a character reference could
       spell text/html in a way not compared here. */
    if (sets && value_len && memchr(value, '&', value_len))
        return markup_fail_(err, MARKUP_ERR_CONTEXT,
                            "a character reference in annotation-xml's encoding: write it plain");
    st = markup_context_check_attr_html(start_tag_context(w), value, value_len, err);
    if (st != MARKUP_OK) return st;
    st = markup_html_write_attr_html(w->out, name, name_len, value, value_len);
    if (st != MARKUP_OK) return markup_fail_status_(err, st);
    if (sets) apply_encoding(w, value ? value : "", value_len);
    return MARKUP_OK;
}

markup_status markup_writer_attr_bool(markup_writer *w, const char *name, size_t name_len,
                                      bool present, markup_error *err) {
    markup_clear_(err);
    markup_status st = attr_target(w, name, name_len, err);
    if (st != MARKUP_OK || !present) return st;
    bool sets = attrs_may_set_context(w) && attr_sets_context(w, name, name_len);
    if (sets && (st = check_context_attr(w, err)) != MARKUP_OK) return st;
    st = markup_html_write_attr_bare(w->out, name, name_len);
    if (st != MARKUP_OK) return markup_fail_status_(err, st);
    if (sets) apply_encoding(w, NULL, 0);
    return MARKUP_OK;
}

/* ---- content ------------------------------------------------------------ */

/* Enters the content of the open element: ends its start tag. */
static inline markup_status content(markup_writer *w, markup_error *err) {
    if (!w->in_start_tag) return MARKUP_OK;
    markup_status st = end_start_tag(w);
    return st == MARKUP_OK ? st : markup_fail_status_(err, st);
}

/* Checks s[0..n), the next piece of an element's text that the parser
   reads as raw text (<script>, <style>) or up to an end tag (title...):
   alone unless `seam_only` (escaped text holds no '<'), then joined to the
   end of the piece before it, whose last bytes the writer keeps
   (keep_tail, once the piece is written). */
static markup_status check_piece(markup_writer *w, markup_context c, const char *s, size_t n,
                                 bool seam_only, markup_error *err) {
    markup_tag_kind kind = c.mode == MODE_SCRIPT  ? MARKUP_TAG_SCRIPT
                           : c.mode == MODE_STYLE ? MARKUP_TAG_STYLE
                                                  : MARKUP_TAG_NORMAL;
    markup_status st = MARKUP_OK;
    if (!seam_only) {
        st = markup_html_check_raw_text(kind, s, n, err);
        if (st == MARKUP_OK && in_text(c)) st = markup_html_check_text_inside(s, n, err);
        /* A writer started at a slot cannot see what follows it. */
        if (st == MARKUP_OK && in_text(c) && w->resumed)
            st = markup_html_check_slot_end_(s, n, err);
        if (st != MARKUP_OK) return st;
        if (kind != MARKUP_TAG_NORMAL && w->after_frameset && n)
            return markup_fail_(
                err, MARKUP_ERR_CONTEXT,
                "after a <frameset> the HTML parser ignores <script> and <style> start "
                "tags and reads their text as markup");
        if (kind != MARKUP_TAG_NORMAL && (c.flags & TEMPLATE_COLUMNS) && n)
            return markup_fail_(
                err, MARKUP_ERR_CONTEXT,
                "in a <template> whose first element is a <col> (or may be: a condition or "
                "loop came first, or trusted HTML that markup does not read to its first "
                "element), the HTML parser ignores <script> and <style> start tags and reads "
                "their text as markup; put the template's first element, or the script or "
                "style, before any condition or loop in it");
        /* Under svg or math, a parser that lost its place (a start tag it
           treats otherwise than markup assumed) reads this text as foreign
           content, where '<' starts a tag: without one, it is text either
           way. */
        if (kind != MARKUP_TAG_NORMAL && (c.flags & IN_FOREIGN) && n && memchr(s, '<', n))
            return markup_fail_at_(
                err, MARKUP_ERR_CONTEXT, (size_t)((const char *)memchr(s, '<', n) - s), "s",
                "inside svg or math, the text of <script> and <style> may not hold '<', "
                "so that no reading of the element can make it markup; write it as \\3c "
                "in CSS or \\x3c in a JavaScript string, or move the element out of the "
                "svg or math");
    }
    enum { KEEP = sizeof w->tail };
    if (w->tail_len) {
        char seam[2 * KEEP];
        size_t after = n < KEEP ? n : KEEP;
        memcpy(seam, w->tail, w->tail_len);
        if (after) memcpy(seam + w->tail_len, s, after);
        size_t len = w->tail_len + after;
        markup_error seam_err;
        if (markup_html_check_raw_text(kind, seam, len, &seam_err) != MARKUP_OK ||
            (in_text(c) && markup_html_check_text_inside(seam, len, &seam_err) != MARKUP_OK)) {
            if (err)
                *err = (markup_error){MARKUP_ERR_RAW_TEXT,
                                      MARKUP_POS_NONE,
                                      "its text, written whole, would end the element "
                                      "early: a piece joined to the one before it forms "
                                      "the sequence",
                                      seam_err.refused,
                                      NULL,
                                      seam_err.element};
            return MARKUP_ERR_RAW_TEXT;
        }
    }
    return MARKUP_OK;
}

/* After a piece checked by check_piece was written: its end becomes the
   tail that the next piece is joined to. */
static void keep_tail(markup_writer *w, const char *s, size_t n) {
    enum { KEEP = sizeof w->tail };
    /* The last KEEP bytes of the old tail and s together. */
    if (n >= KEEP) {
        memcpy(w->tail, s + n - KEEP, KEEP);
        w->tail_len = KEEP;
    } else {
        size_t keep_old = w->tail_len + n > KEEP ? KEEP - n : w->tail_len;
        memmove(w->tail, w->tail + w->tail_len - keep_old, keep_old);
        if (n) memcpy(w->tail + keep_old, s, n);
        w->tail_len = (uint8_t)(keep_old + n);
    }
}

/* Text about to be written in a pre, listing or textarea: whether it
   comes first and begins with a newline the parser would drop, so that the
   writer writes that newline twice. Where that is known only when the
   template runs (after a slot or a branch point), the writer marks the
   text for the builder instead. Trusted HTML is markup: the parser reads
   its newline as it would anywhere, so it is written as it is. */
static bool newline_twice(markup_writer *w, markup_context c, const char *s, size_t n) {
    /* A carriage return becomes a newline when the input is read. */
    if (n == 0 || (s[0] != '\n' && s[0] != '\r')) return false;
    if (!(c.flags & NEWLINE_UNDECIDED)) return (c.flags & CONTENT_EMPTY) != 0;
    /* A mark still pending is earlier text of the same straight run: this
       text never comes first. */
    const markup_writer_frame *f = &w->frames[w->depth - 1];
    if (!w->newline_mark && f->content_at != SIZE_MAX) {
        w->newline_mark = f->content_at;
        w->newline_mark_at = w->out->len;
    }
    return false;
}

markup_status markup_writer_text(markup_writer *w, const char *s, size_t n, markup_error *err) {
    markup_clear_(err);
    if (w == NULL || (s == NULL && n != 0)) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    markup_context c = top(w);
    markup_status st;
    /* Nothing written leaves the first content still to come. */
    if ((c.flags & DROPS_NEWLINE) && n == 0) return MARKUP_OK;
    if (plain(c)) {
        if ((st = content(w, err)) != MARKUP_OK) return st;
        st = markup_escape(w->out, s, n);
        return st == MARKUP_OK ? st : markup_fail_status_(err, st);
    }
    if (raw(c)) {
        if ((st = check_piece(w, c, s, n, false, err)) != MARKUP_OK ||
            (st = content(w, err)) != MARKUP_OK)
            return st;
        if ((st = markup_buf_append(w->out, s, n)) != MARKUP_OK)
            return markup_fail_status_(err, st);
        keep_tail(w, s, n);
        return MARKUP_OK;
    }
    if (c.mode == MODE_VOID)
        return markup_fail_(err, MARKUP_ERR_VOID_CHILD, "a void element cannot have children");
    bool twice = (c.flags & DROPS_NEWLINE) && newline_twice(w, c, s, n);
    if ((st = content(w, err)) != MARKUP_OK) return st;
    size_t start = w->out->len;
    if ((twice && (st = markup_buf_putc(w->out, '\n')) != MARKUP_OK) ||
        (st = markup_escape(w->out, s, n)) != MARKUP_OK) {
        markup_buf_truncate(w->out, start);
        return markup_fail_status_(err, st);
    }
    if (in_text(c)) {
        /* Escaped text holds no '<', but may finish an end tag that
           trusted HTML before it started ("</title" then " x"). */
        st = check_piece(w, c, w->out->data + start, w->out->len - start, true, err);
        if (st != MARKUP_OK) {
            markup_buf_truncate(w->out, start);
            return st;
        }
        keep_tail(w, w->out->data + start, w->out->len - start);
    }
    if (c.flags & NEWLINE_FLAGS) wrote_content(w);
    return MARKUP_OK;
}

markup_status markup_writer_html(markup_writer *w, const char *s, size_t n, markup_error *err) {
    markup_clear_(err);
    if (w == NULL || (s == NULL && n != 0)) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    markup_context c = top(w);
    markup_status st;
    if (plain(c)) {
        if ((st = content(w, err)) != MARKUP_OK) return st;
        st = markup_buf_append(w->out, s, n);
        return st == MARKUP_OK ? st : markup_fail_status_(err, st);
    }
    if (c.mode == MODE_VOID)
        return markup_fail_(err, MARKUP_ERR_VOID_CHILD, "a void element cannot have children");
    if ((c.flags & DROPS_NEWLINE) && n == 0) return MARKUP_OK;
    if ((st = check_piece(w, c, s, n, false, err)) != MARKUP_OK) return st; /* raw or in text */
    if ((c.flags & TEMPLATE_OPEN) && (st = decide_template_by_html(w, s, n, err)) != MARKUP_OK)
        return st;
    if ((st = content(w, err)) != MARKUP_OK) return st;
    if ((st = markup_buf_append(w->out, s, n)) != MARKUP_OK) return markup_fail_status_(err, st);
    keep_tail(w, s, n);
    if (c.flags & NEWLINE_FLAGS) wrote_content(w);
    return MARKUP_OK;
}

/* Comments and doctypes are markup: not in raw text or a void element. */
static markup_status markup_child(markup_writer *w, markup_error *err) {
    if (w == NULL) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    markup_context c = top(w);
    if (c.mode == MODE_VOID)
        return markup_fail_(err, MARKUP_ERR_VOID_CHILD, "a void element cannot have children");
    if (raw(c))
        return markup_fail_(err, MARKUP_ERR_RAW_TEXT, "<script> and <style> hold only text");
    w->tail_len = 0;
    if (c.flags & NEWLINE_FLAGS) wrote_content(w);
    return content(w, err);
}

markup_status markup_writer_comment(markup_writer *w, const char *s, size_t n, markup_error *err) {
    markup_clear_(err);
    markup_status st = markup_child(w, err);
    if (st != MARKUP_OK) return st;
    st = markup_html_write_comment(w->out, s, n);
    return st == MARKUP_OK ? st : markup_fail_status_(err, st);
}

markup_status markup_writer_doctype(markup_writer *w, markup_error *err) {
    markup_clear_(err);
    markup_status st = markup_child(w, err);
    if (st != MARKUP_OK) return st;
    st = markup_html_write_doctype(w->out);
    return st == MARKUP_OK ? st : markup_fail_status_(err, st);
}
