/*
 * baked.c - baked templates: static HTML rendered once, slots filled per call.
 *
 * A builder collects static text into one growable buffer, attribute names
 * into a second one and slots into an array. A slot only records where it
 * sits in the static text, so adjacent static pieces merge for free and the
 * static segment before slot i is statics[slot[i-1].at .. slot[i].at).
 * Finishing copies the three parts into a single allocation that is never
 * written again, which is what makes concurrent renders safe.
 */
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#  include <emmintrin.h>
#endif

#include "alloc_impl.h"
#include "copy_impl.h"
#include "error_impl.h"
#include "escape_impl.h"
#include "markup/binding.h"
#include "output_impl.h"

typedef struct baked_slot {
    size_t at;       /* offset in the static text where the slot is written */
    size_t name_off; /* ATTR: ' name="' in the names area (name at +1)    */
    size_t name_len;
    markup_slot_kind kind;
    bool checked;         /* HTML values checked where the slot stands */
    markup_context where; /* CHILD: where it stands; ATTR: its start tag's */
    /* Newline points (markup_writer_newline_start): if nothing was written
       since the content of a pre, listing or textarea began at this static
       offset, a newline that begins the value (newline_at) or the static
       segment before the slot (segment_newline_at) is written twice. 0:
       none. */
    size_t newline_at;
    size_t segment_newline_at;
} baked_slot;

/* Static HTML goes straight into `statics`, either through the writer (the
   public calls, checked where they stand) or verbatim (add_static, for
   bindings that run their own writer). */
struct markup_baked_builder {
    const markup_alloc *alc;
    markup_buf statics;
    markup_buf names;
    baked_slot *slots;
    size_t nslots;
    size_t slots_cap;
    size_t attr_room;          /* ' name=""' of every attribute slot */
    size_t segment_newline_at; /* of the segment the next slot ends */
    size_t newline_room;       /* one byte a newline point */
    markup_writer w;           /* writes into statics */
    char **tags;               /* the open elements' tags: copies the writer points to */
    size_t ntags, tags_cap;
};

struct markup_baked {
    const markup_alloc *alc;
    size_t alloc_size; /* handed back to alc->free */
    const baked_slot *slots;
    size_t nslots;
    const char *statics;
    size_t static_len;
    const char *names;
    size_t attr_room;       /* ' name=""' of every attribute slot */
    size_t tail_newline_at; /* the segment after the last slot's newline point */
    size_t newline_room;
};

/* Room for ' name=""' around an attribute value. */
#define ATTR_OVERHEAD 4

/* ------------------------------------------------------------------------ */
/* Builder                                                                    */
/* ------------------------------------------------------------------------ */

markup_status markup_baked_builder_new(const markup_alloc *alc, markup_baked_builder **out) {
    if (!out) return MARKUP_ERR_INVALID_ARG;
    *out = NULL;
    alc = markup_alc_or_default(alc);
    markup_baked_builder *b = markup_alc_malloc(alc, sizeof *b);
    if (!b) return MARKUP_ERR_NOMEM;
    b->alc = alc;
    markup_buf_init(&b->statics, alc);
    markup_buf_init(&b->names, alc);
    b->slots = NULL;
    b->nslots = 0;
    b->slots_cap = 0;
    b->attr_room = 0;
    b->segment_newline_at = 0;
    b->newline_room = 0;
    markup_writer_init(&b->w, &b->statics, MARKUP_CONTEXT_HTML);
    b->tags = NULL;
    b->ntags = b->tags_cap = 0;
    *out = b;
    return MARKUP_OK;
}

/* The size of the copy of open tag `i` (NUL-terminated). */
static size_t tag_copy_size(const markup_baked_builder *b, size_t i) {
    return strlen(b->tags[i]) + 1;
}

void markup_baked_builder_free(markup_baked_builder *b) {
    if (!b) return;
    markup_writer_dispose(&b->w);
    for (size_t i = 0; i < b->ntags; i++) markup_alc_free(b->alc, b->tags[i], tag_copy_size(b, i));
    markup_alc_free(b->alc, b->tags, b->tags_cap * sizeof *b->tags);
    markup_buf_free(&b->statics);
    markup_buf_free(&b->names);
    markup_alc_free(b->alc, b->slots, b->slots_cap * sizeof *b->slots);
    markup_alc_free(b->alc, b, sizeof *b);
}

markup_status markup_baked_builder_add_static(markup_baked_builder *b, const char *s, size_t n) {
    if (!b || (!s && n > 0)) return MARKUP_ERR_INVALID_ARG;
    return markup_buf_append(&b->statics, s, n);
}

/* Appends a slot at the current end of the static text. On failure the
   builder is unchanged. */
static markup_status push_slot(markup_baked_builder *b, markup_slot_kind kind, size_t name_off,
                               size_t name_len, markup_context where, bool checked) {
    if (b->nslots == b->slots_cap) {
        size_t cap = markup_grow_capacity(b->slots_cap, b->nslots + 1, 8, sizeof *b->slots);
        if (cap == 0) return MARKUP_ERR_TOO_LARGE;
        baked_slot *slots =
            markup_alc_realloc(b->alc, b->slots, b->slots_cap * sizeof *slots, cap * sizeof *slots);
        if (!slots) return MARKUP_ERR_NOMEM;
        b->slots = slots;
        b->slots_cap = cap;
    }
    baked_slot *slot = &b->slots[b->nslots++];
    slot->at = b->statics.len;
    slot->name_off = name_off;
    slot->name_len = name_len;
    slot->kind = kind;
    slot->where = where;
    slot->checked = checked;
    slot->newline_at = 0;
    slot->segment_newline_at = b->segment_newline_at;
    b->segment_newline_at = 0;
    return MARKUP_OK;
}

markup_status markup_baked_builder_slot_newline(markup_baked_builder *b, size_t content_at) {
    if (!b || !b->nslots || b->slots[b->nslots - 1].kind != MARKUP_SLOT_CHILD || content_at == 0 ||
        content_at > b->statics.len)
        return MARKUP_ERR_INVALID_ARG;
    baked_slot *slot = &b->slots[b->nslots - 1];
    if (!slot->newline_at) b->newline_room++;
    slot->newline_at = content_at;
    return MARKUP_OK;
}

markup_status markup_baked_builder_static_newline(markup_baked_builder *b, size_t content_at) {
    /* Only static HTML right after a slot can begin where the run decides. */
    if (!b || !b->nslots || b->slots[b->nslots - 1].at != b->statics.len || content_at == 0 ||
        content_at > b->statics.len)
        return MARKUP_ERR_INVALID_ARG;
    if (!b->segment_newline_at) b->newline_room++;
    b->segment_newline_at = content_at;
    return MARKUP_OK;
}

/* Takes the writer's mark after static HTML it wrote (the builder's own
   writer writes straight into statics). */
static void take_static_newline(markup_baked_builder *b) {
    size_t at;
    size_t content_at = markup_writer_take_newline_mark(&b->w, &at);
    if (content_at && b->nslots && b->slots[b->nslots - 1].at == at) {
        if (!b->segment_newline_at) b->newline_room++;
        b->segment_newline_at = content_at;
    }
}

markup_status markup_baked_builder_add_child_slot(markup_baked_builder *b) {
    if (!b) return MARKUP_ERR_INVALID_ARG;
    return push_slot(b, MARKUP_SLOT_CHILD, 0, 0, MARKUP_CONTEXT_HTML, false);
}

/* Adds `n` to *total, reporting overflow. */
static bool add_size(size_t *total, size_t n) {
    if (n > SIZE_MAX - *total) return false;
    *total += n;
    return true;
}

/* An attribute slot for `name` at the end of the static text, its start
   tag standing at `where`. */
static markup_status push_attr_slot(markup_baked_builder *b, const char *name, size_t name_len,
                                    markup_context where, bool checked, markup_error *err) {
    markup_status st = markup_html_check_attr_name(name, name_len, err);
    if (st != MARKUP_OK) return st;
    size_t name_off = b->names.len;
    st = markup_buf_putc(&b->names, ' ');
    if (st == MARKUP_OK) st = markup_buf_append(&b->names, name, name_len);
    if (st == MARKUP_OK) st = markup_buf_append(&b->names, "=\"", 2);
    size_t attr_room = b->attr_room;
    if (st == MARKUP_OK && !add_size(&attr_room, name_len + ATTR_OVERHEAD))
        st = MARKUP_ERR_TOO_LARGE;
    if (st == MARKUP_OK) st = push_slot(b, MARKUP_SLOT_ATTR, name_off, name_len, where, checked);
    if (st == MARKUP_OK) b->attr_room = attr_room;
    if (st != MARKUP_OK) {
        markup_buf_truncate(&b->names, name_off);
        return markup_fail_(err, st, markup_status_message(st));
    }
    return MARKUP_OK;
}

markup_status markup_baked_builder_add_attr_slot(markup_baked_builder *b, const char *name,
                                                 size_t name_len, markup_error *err) {
    markup_clear_(err);
    if (!b || (!name && name_len > 0))
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL builder or name");
    /* A trusted value is checked for its quotes when filled. */
    return push_attr_slot(b, name, name_len, MARKUP_CONTEXT_HTML, true, err);
}

/* ---- building through the writer --------------------------------------- */

/* The builder's own checks before a writer call: a builder, and a string
   of valid UTF-8 (the writer takes it as given). */
static markup_status check_string(const markup_baked_builder *b, const char *s, size_t n,
                                  const char *arg, markup_error *err) {
    if (!b) return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL builder");
    return markup_error_in_(err, markup_utf8_validate(s, n, err), arg);
}

markup_status markup_baked_builder_open(markup_baked_builder *b, const char *tag, size_t n,
                                        markup_error *err) {
    markup_clear_(err);
    if (!b) return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL builder");
    /* The writer keeps the tag until the close: it gets a copy, so the
       caller's bytes may go at once. */
    markup_status st = markup_html_check_tag(tag, n, NULL, err);
    if (st != MARKUP_OK) return st;
    if (b->ntags == b->tags_cap) {
        size_t cap = markup_grow_capacity(b->tags_cap, b->ntags + 1, 8, sizeof *b->tags);
        char **tags = cap ? markup_alc_realloc(b->alc, b->tags, b->tags_cap * sizeof *tags,
                                               cap * sizeof *tags)
                          : NULL;
        if (!tags) return markup_fail_status_(err, MARKUP_ERR_NOMEM);
        b->tags = tags;
        b->tags_cap = cap;
    }
    char *copy = markup_alc_malloc(b->alc, n + 1);
    if (!copy) return markup_fail_status_(err, MARKUP_ERR_NOMEM);
    memcpy(copy, tag, n);
    copy[n] = '\0'; /* its size is known again at free: strlen + 1 */
    st = markup_writer_open(&b->w, copy, n, err);
    if (st != MARKUP_OK) {
        markup_alc_free(b->alc, copy, n + 1);
        return st;
    }
    b->tags[b->ntags++] = copy;
    return MARKUP_OK;
}

markup_status markup_baked_builder_attr(markup_baked_builder *b, const char *name, size_t name_len,
                                        const char *value, size_t value_len, markup_error *err) {
    markup_clear_(err);
    markup_status st = check_string(b, value, value_len, "value", err);
    return st != MARKUP_OK ? st : markup_writer_attr(&b->w, name, name_len, value, value_len, err);
}

markup_status markup_baked_builder_attr_html(markup_baked_builder *b, const char *name,
                                             size_t name_len, const char *value, size_t value_len,
                                             markup_error *err) {
    markup_clear_(err);
    markup_status st = check_string(b, value, value_len, "value", err);
    if (st != MARKUP_OK) return st;
    return markup_writer_attr_html(&b->w, name, name_len, value, value_len, err);
}

markup_status markup_baked_builder_attr_bool(markup_baked_builder *b, const char *name,
                                             size_t name_len, bool present, markup_error *err) {
    markup_clear_(err);
    if (!b) return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL builder");
    return markup_writer_attr_bool(&b->w, name, name_len, present, err);
}

markup_status markup_baked_builder_text(markup_baked_builder *b, const char *s, size_t n,
                                        markup_error *err) {
    markup_clear_(err);
    markup_status st = check_string(b, s, n, "s", err);
    if (st == MARKUP_OK && (st = markup_writer_text(&b->w, s, n, err)) == MARKUP_OK)
        take_static_newline(b);
    return st;
}

markup_status markup_baked_builder_html(markup_baked_builder *b, const char *s, size_t n,
                                        markup_error *err) {
    markup_clear_(err);
    markup_status st = check_string(b, s, n, "s", err);
    if (st == MARKUP_OK && (st = markup_writer_html(&b->w, s, n, err)) == MARKUP_OK)
        take_static_newline(b);
    return st;
}

markup_status markup_baked_builder_comment(markup_baked_builder *b, const char *s, size_t n,
                                           markup_error *err) {
    markup_clear_(err);
    markup_status st = check_string(b, s, n, "s", err);
    return st != MARKUP_OK ? st : markup_writer_comment(&b->w, s, n, err);
}

markup_status markup_baked_builder_doctype(markup_baked_builder *b, markup_error *err) {
    markup_clear_(err);
    if (!b) return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL builder");
    return markup_writer_doctype(&b->w, err);
}

markup_status markup_baked_builder_close(markup_baked_builder *b, markup_error *err) {
    markup_clear_(err);
    if (!b) return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL builder");
    markup_status st = markup_writer_close(&b->w, err);
    if (st == MARKUP_OK) {
        b->ntags--;
        markup_alc_free(b->alc, b->tags[b->ntags], tag_copy_size(b, b->ntags));
    }
    return st;
}

markup_status markup_baked_builder_child_slot(markup_baked_builder *b, markup_error *err) {
    markup_clear_(err);
    if (!b) return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL builder");
    markup_status st = markup_writer_check_child_slot(&b->w, err);
    if (st != MARKUP_OK) return st;
    markup_context where = markup_writer_context(&b->w);
    st = push_slot(b, MARKUP_SLOT_CHILD, 0, 0, where, !markup_context_is_plain(where));
    size_t content_at = markup_writer_newline_start(&b->w);
    if (st == MARKUP_OK && content_at) st = markup_baked_builder_slot_newline(b, content_at);
    return st == MARKUP_OK ? st : markup_fail_status_(err, st);
}

markup_status markup_baked_builder_attr_slot(markup_baked_builder *b, const char *name,
                                             size_t name_len, markup_error *err) {
    markup_clear_(err);
    if (!b) return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL builder");
    if (!b->w.in_start_tag)
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG,
                            "an attribute slot belongs in a start tag: right after open or "
                            "another attribute");
    markup_status st = markup_writer_check_attr_slot(&b->w, name, name_len, err);
    if (st != MARKUP_OK) return st;
    markup_context where = markup_writer_start_tag_context(&b->w);
    /* A trusted value is checked when filled (markup_context_check_attr_html):
       for its quotes everywhere, for end tags inside a text element. */
    return push_attr_slot(b, name, name_len, where, true, err);
}

markup_status markup_baked_builder_finish(markup_baked_builder *b, markup_baked **out,
                                          markup_error *err) {
    markup_clear_(err);
    if (out) *out = NULL;
    if (!b) return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL builder");
    if (!out) {
        markup_baked_builder_free(b);
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "NULL output pointer");
    }
    if (markup_writer_depth(&b->w) != 0) {
        markup_baked_builder_free(b);
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG,
                            "an element is still open: every open needs its close");
    }

    /* One block: the header, the slot table, the static text, the names. */
    size_t slots_off =
        (sizeof(markup_baked) + alignof(baked_slot) - 1) & ~(size_t)(alignof(baked_slot) - 1);
    size_t total = slots_off;
    bool fits = b->nslots <= SIZE_MAX / sizeof(baked_slot) &&
                add_size(&total, b->nslots * sizeof(baked_slot));
    size_t statics_off = total;
    fits = fits && add_size(&total, b->statics.len);
    size_t names_off = total;
    fits = fits && add_size(&total, b->names.len);
    if (!fits) {
        markup_baked_builder_free(b);
        return markup_fail_status_(err, MARKUP_ERR_TOO_LARGE);
    }

    const markup_alloc *alc = b->alc;
    char *block = markup_alc_malloc(alc, total);
    if (!block) {
        markup_baked_builder_free(b);
        return markup_fail_status_(err, MARKUP_ERR_NOMEM);
    }
    markup_baked *tpl = (markup_baked *)block;
    baked_slot *slots = (baked_slot *)(block + slots_off);
    if (b->nslots) memcpy(slots, b->slots, b->nslots * sizeof *slots);
    if (b->statics.len) memcpy(block + statics_off, b->statics.data, b->statics.len);
    if (b->names.len) memcpy(block + names_off, b->names.data, b->names.len);
    tpl->alc = alc;
    tpl->alloc_size = total;
    tpl->slots = slots;
    tpl->nslots = b->nslots;
    tpl->statics = block + statics_off;
    tpl->static_len = b->statics.len;
    tpl->names = block + names_off;
    tpl->attr_room = b->attr_room;
    tpl->tail_newline_at = b->segment_newline_at;
    tpl->newline_room = b->newline_room;

    markup_baked_builder_free(b);
    *out = tpl;
    return MARKUP_OK;
}

/* ------------------------------------------------------------------------ */
/* Template                                                                   */
/* ------------------------------------------------------------------------ */

void markup_baked_free(markup_baked *tpl) {
    if (!tpl) return;
    markup_alc_free(tpl->alc, tpl, tpl->alloc_size);
}

size_t markup_baked_slot_count(const markup_baked *tpl) { return tpl ? tpl->nslots : 0; }

markup_status markup_baked_slot_kind(const markup_baked *tpl, size_t slot, markup_slot_kind *kind) {
    if (!tpl || !kind || slot >= tpl->nslots) return MARKUP_ERR_INVALID_ARG;
    *kind = tpl->slots[slot].kind;
    return MARKUP_OK;
}

size_t markup_baked_static_size(const markup_baked *tpl) { return tpl ? tpl->static_len : 0; }

markup_status markup_baked_write_value(markup_slot_kind kind, const char *name, size_t name_len,
                                       const markup_value *value, markup_buf *out) {
    if (!value || !out) return MARKUP_ERR_INVALID_ARG;
    const char *s = value->s;
    size_t n = value->n;
    bool has_string = value->kind == MARKUP_VALUE_TEXT || value->kind == MARKUP_VALUE_HTML;
    if (has_string && !s && n > 0) return MARKUP_ERR_INVALID_ARG;

    if (kind == MARKUP_SLOT_CHILD) {
        switch (value->kind) {
        case MARKUP_VALUE_TEXT: return markup_escape(out, s, n);
        case MARKUP_VALUE_HTML: return markup_buf_append(out, s, n);
        case MARKUP_VALUE_OMIT: return MARKUP_OK;
        case MARKUP_VALUE_TRUE: return MARKUP_ERR_SLOT_VALUE;
        }
        return MARKUP_ERR_INVALID_ARG;
    }
    if (kind != MARKUP_SLOT_ATTR || (!name && name_len > 0)) return MARKUP_ERR_INVALID_ARG;
    switch (value->kind) {
    case MARKUP_VALUE_TEXT: return markup_html_write_attr(out, name, name_len, s, n);
    case MARKUP_VALUE_HTML:
        /* Its '"' would end the quoted value (markup_context_check_attr_html). */
        if (n && memchr(s, '"', n)) return MARKUP_ERR_RAW_TEXT;
        return markup_html_write_attr_html(out, name, name_len, s, n);
    case MARKUP_VALUE_TRUE: return markup_html_write_attr_bare(out, name, name_len);
    case MARKUP_VALUE_OMIT: return MARKUP_OK;
    }
    return MARKUP_ERR_INVALID_ARG;
}

/* Most slot values are short ASCII with nothing to escape (ids, names,
   prices, class lists). One scan answers both questions that
   markup_utf8_validate and markup_escape would ask in two calls: plain
   values are then copied as they are, and ASCII values skip validation.
   Longer values go straight to the validator and the SIMD escaper, which
   are faster per byte than this scan. */
#define CLASSIFY_MAX 64
_Static_assert(CLASSIFY_MAX <= MARKUP_ESCAPE_SHORT_MAX, "escape_short takes every short value");

typedef enum value_class {
    VALUE_PLAIN, /* ASCII, nothing to escape: copy as it is        */
    VALUE_ASCII, /* ASCII (so valid UTF-8) with bytes to escape     */
    VALUE_OTHER  /* not ASCII: must be validated as UTF-8           */
} value_class;

#define ONES  MARKUP_ONES_
#define HIGHS MARKUP_HIGHS_

/* Every one of the n < 8 bytes of s somewhere in a word (some twice), the
   other bytes zero (not special, not high), for classifying them:
   overlapping loads instead of a byte loop or a memcpy call. The two loads
   go to separate halves: merged into one, a byte would be ORed with
   another on a big-endian CPU, which can make '<' (0x3C) and 'a' (0x61)
   into '}' and hide it from the scan. */
static inline uint64_t load_short(const char *s, size_t n) {
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        return a | (uint64_t)b << 32;
    }
    if (n == 0) return 0;
    return (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << (8 * (n / 2)) |
           (uint64_t)(unsigned char)s[n - 1] << (8 * (n - 1));
}

static inline value_class class_of(uint64_t high, uint64_t special) {
    return high ? VALUE_OTHER : special ? VALUE_ASCII : VALUE_PLAIN;
}

/* Copies s[0..n), n <= CLASSIFY_MAX, to d and classifies it. One read
   serves both: most values are plain, and are then already written. Only
   d[0..n) is written. */
static inline value_class copy_classify(char *d, const char *s, size_t n) {
#if defined(__SSE2__)
    if (n >= 16) {
        /* Four blocks, from both ends and overlapping, cover every n in
           16..64: no loop whose exit depends on the length. */
        size_t at1 = n >= 32 ? 16 : n - 16, at2 = n >= 32 ? n - 32 : 0;
        __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)s);
        __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(s + at1));
        __m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(s + at2));
        __m128i v3 = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
        _mm_storeu_si128((__m128i *)(void *)d, v0);
        _mm_storeu_si128((__m128i *)(void *)(d + at1), v1);
        _mm_storeu_si128((__m128i *)(void *)(d + at2), v2);
        _mm_storeu_si128((__m128i *)(void *)(d + n - 16), v3);
        __m128i any = _mm_or_si128(_mm_or_si128(v0, v1), _mm_or_si128(v2, v3));
        unsigned high = (unsigned)_mm_movemask_epi8(any); /* the top bit of each byte */
        unsigned special = markup_special_mask16_(v0) | markup_special_mask16_(v1) |
                           markup_special_mask16_(v2) | markup_special_mask16_(v3);
        return class_of(high, special);
    }
#endif
    uint64_t w;
    if (n >= 8) {
        uint64_t head, tail;
        memcpy(&head, s, 8);
        memcpy(&tail, s + n - 8, 8);
        memcpy(d, &head, 8);
        memcpy(d + n - 8, &tail, 8);
        w = head | tail;
        uint64_t special = markup_special_bits_(head) | markup_special_bits_(tail);
#if !defined(__SSE2__)
        for (size_t i = 8; i + 8 < n; i += 8) {
            memcpy(&head, s + i, 8);
            memcpy(d + i, &head, 8);
            w |= head;
            special |= markup_special_bits_(head);
        }
#endif
        return class_of(w & HIGHS, special & HIGHS);
    }
    w = load_short(s, n);
    copy_short(d, s, n);
    return class_of(w & HIGHS, markup_special_bits_(w) & HIGHS);
}

static inline markup_status append_short(markup_buf *out, const char *s, size_t n) {
    if (n == 0) return MARKUP_OK; /* out->data may still be NULL */
    markup_status st = markup_buf_reserve(out, n);
    if (st != MARKUP_OK) return st;
    copy_short(out->data + out->len, s, n);
    out->len += n;
    return MARKUP_OK;
}

/* Room for the short text and HTML values of a render escaped (at most 5
   bytes a byte), in *room; false when that does not fit in a size_t. Longer
   values are written through the buffer, which makes room itself; the
   lengths of other kinds are not read (the header lets callers leave them
   unset). */
static bool short_values_room(const markup_value *values, size_t n, size_t *room) {
    uint64_t bytes = 0; /* at most 64 a value: cannot wrap for any array in memory */
    for (size_t i = 0; i < n; i++) {
        bool has_text = values[i].kind == MARKUP_VALUE_TEXT || values[i].kind == MARKUP_VALUE_HTML;
        bytes += has_text && values[i].n <= CLASSIFY_MAX ? values[i].n : 0;
    }
    if (bytes > SIZE_MAX / MARKUP_ESCAPE_MAX_EXPANSION) return false;
    *room = (size_t)bytes * MARKUP_ESCAPE_MAX_EXPANSION;
    return true;
}

/* ' name="' of an attribute slot. */
static inline char *open_attr(char *d, const markup_baked *tpl, const baked_slot *slot) {
    copy_short(d, tpl->names + slot->name_off, slot->name_len + 3);
    return d + slot->name_len + 3;
}

/* Where a render stands for the newline points: the static offset where
   the last static segment written ended, and the output offset where it
   ended. A newline point comes first when the content began there and
   nothing was written since. */
typedef struct newline_state {
    size_t static_end;
    size_t out_end;
} newline_state;

static inline bool comes_first(const newline_state *nl, size_t content_at, size_t out_at) {
    return content_at && nl->static_end == content_at && out_at == nl->out_end;
}

/* Text written at [value_at, d) that comes first: its leading newline is
   written twice (room for it was made). Returns the new end. */
static inline char *newline_twice(char *value_at, char *d) {
    if (d == value_at || (*value_at != '\n' && *value_at != '\r')) return d;
    memmove(value_at + 1, value_at, (size_t)(d - value_at));
    *value_at = '\n';
    return d + 1;
}

/* Copies statics[from, to) to d (room made), its leading newline twice
   when it comes first. */
static inline char *copy_segment(const markup_baked *tpl, newline_state *nl, size_t from, size_t to,
                                 size_t content_at, const markup_buf *out, char *d) {
    if (to == from) return d;
    if (comes_first(nl, content_at, (size_t)(d - out->data))) *d++ = '\n';
    copy_short(d, tpl->statics + from, to - from);
    d += to - from;
    nl->static_end = to;
    nl->out_end = (size_t)(d - out->data);
    return d;
}

/* As copy_segment, through the buffer. */
static markup_status append_segment(const markup_baked *tpl, newline_state *nl, size_t from,
                                    size_t to, size_t content_at, markup_buf *out) {
    if (to == from) return MARKUP_OK;
    markup_status st = MARKUP_OK;
    if (comes_first(nl, content_at, out->len)) st = markup_buf_putc(out, '\n');
    if (st == MARKUP_OK) st = append_short(out, tpl->statics + from, to - from);
    nl->static_end = to;
    nl->out_end = out->len;
    return st;
}

markup_status markup_baked_render(const markup_baked *tpl, const markup_value *values,
                                  size_t nvalues, markup_buf *out, markup_error *err) {
    markup_clear_(err);
    if (!tpl || !out || (!values && nvalues > 0))
        return markup_fail_(err, MARKUP_ERR_INVALID_ARG, "invalid argument");
    if (nvalues != tpl->nslots)
        return markup_fail_(err, MARKUP_ERR_SLOT_COUNT,
                            "number of values differs from the template's slot count");
    /* One pass: each value is checked where it is written, and a failure
       rolls the whole render back. Room for all but long and non-ASCII
       values is made once, so the loop writes through a local cursor with
       no capacity check per piece (nor a reload of out->len after every
       store, which a char store may alias). */
    if (tpl->nslots == 0 && tpl->static_len == 0) return MARKUP_OK; /* nothing to write */
    size_t start = out->len;
    size_t room = tpl->static_len, values_room;
    markup_status st = MARKUP_OK;
    if (!short_values_room(values, nvalues, &values_room) || !add_size(&room, tpl->attr_room) ||
        !add_size(&room, tpl->newline_room) || !add_size(&room, values_room) ||
        !add_size(&room, values_room ? MARKUP_ESCAPE_SLACK : 1)) /* 1: a cursor to write at */
        st = MARKUP_ERR_TOO_LARGE;
    if (st == MARKUP_OK) st = markup_buf_reserve(out, room);
    if (st != MARKUP_OK) return markup_fail_(err, st, markup_status_message(st));
    markup_escape_short_fn escape_short = markup_escape_short_best_();

    const char *why = NULL;
    char *d = out->data + start;
    size_t done = 0; /* static text already written */
    newline_state nl = {0, start};
    for (size_t i = 0; i < tpl->nslots; i++) {
        const baked_slot *slot = &tpl->slots[i];
        const markup_value *v = &values[i];
        d = copy_segment(tpl, &nl, done, slot->at, slot->segment_newline_at, out, d);
        done = slot->at;
        bool attr = slot->kind == MARKUP_SLOT_ATTR;
        bool first = comes_first(&nl, slot->newline_at, (size_t)(d - out->data));
        switch (v->kind) {
        case MARKUP_VALUE_OMIT: continue;
        case MARKUP_VALUE_TRUE:
            if (!attr) {
                st = MARKUP_ERR_SLOT_VALUE;
                why = "a TRUE value is only allowed in an attribute slot";
                goto fail;
            }
            copy_short(d, tpl->names + slot->name_off, slot->name_len + 1);
            d += slot->name_len + 1;
            continue;
        case MARKUP_VALUE_TEXT:
        case MARKUP_VALUE_HTML: {
            if (!v->s && v->n > 0) {
                st = MARKUP_ERR_INVALID_ARG;
                why = "slot value has a NULL string with a non-zero length";
                goto fail;
            }
            if (v->kind == MARKUP_VALUE_HTML && slot->checked) {
                /* Inside a title, textarea...: no end tag that ends it, nor
                   the start of one that what follows could finish (an
                   attribute value's closing quote ends it for it); first
                   in a template, no first col. */
                st = attr ? markup_context_check_attr_html(slot->where, v->s, v->n, err)
                          : markup_context_check_child_html(slot->where, v->s, v->n, err);
                if (st != MARKUP_OK) {
                    markup_buf_truncate(out, start);
                    return markup_error_in_(err, st, "values");
                }
            }
            if (v->n <= CLASSIFY_MAX) {
                char *value_at = attr ? open_attr(d, tpl, slot) : d;
                value_class cls = copy_classify(value_at, v->s, v->n);
                if (cls != VALUE_OTHER) {
                    if (cls == VALUE_ASCII && v->kind == MARKUP_VALUE_TEXT)
                        d = value_at + escape_short(value_at, v->s, v->n);
                    else
                        d = value_at + v->n;
                    if (attr) *d++ = '"';
                    if (first && v->kind == MARKUP_VALUE_TEXT) d = newline_twice(value_at, d);
                    continue;
                }
            }
            /* Long or not ASCII: through the buffer, then room again for
               the rest (what the whole render asked for: more than is left,
               never more than that). */
            out->len = (size_t)(d - out->data);
            st = markup_error_in_(err, markup_utf8_validate(v->s, v->n, err), "values");
            if (st != MARKUP_OK) {
                markup_buf_truncate(out, start);
                return st;
            }
            const char *name = attr ? tpl->names + slot->name_off + 1 : NULL;
            size_t value_at = out->len;
            st = markup_baked_write_value(slot->kind, name, slot->name_len, v, out);
            if (st == MARKUP_OK) st = markup_buf_reserve(out, room);
            if (st != MARKUP_OK) goto fail;
            d = out->data + out->len;
            if (first && v->kind == MARKUP_VALUE_TEXT) d = newline_twice(out->data + value_at, d);
            continue;
        }
        default:
            st = MARKUP_ERR_INVALID_ARG;
            why = "unknown slot value kind";
            goto fail;
        }
    }
    d = copy_segment(tpl, &nl, done, tpl->static_len, tpl->tail_newline_at, out, d);
    out->len = (size_t)(d - out->data);
    return MARKUP_OK;

fail:
    markup_buf_truncate(out, start);
    return markup_fail_(err, st, why ? why : markup_status_message(st));
}

markup_status markup_baked_render_slots(const markup_baked *tpl, markup_slot_writer write_slot,
                                        void *ctx, markup_buf *out) {
    if (!tpl || !write_slot || !out) return MARKUP_ERR_INVALID_ARG;
    size_t start = out->len;
    markup_status st = markup_buf_reserve(out, tpl->static_len);
    if (st != MARKUP_OK) return st;

    size_t done = 0;
    newline_state nl = {0, start};
    for (size_t i = 0; i < tpl->nslots; i++) {
        const baked_slot *slot = &tpl->slots[i];
        st = append_segment(tpl, &nl, done, slot->at, slot->segment_newline_at, out);
        if (st != MARKUP_OK) goto fail;
        done = slot->at;
        const char *name = slot->kind == MARKUP_SLOT_ATTR ? tpl->names + slot->name_off + 1 : NULL;
        bool first = comes_first(&nl, slot->newline_at, out->len);
        st = write_slot(ctx, i, slot->kind, name, slot->name_len, first, out);
        if (st != MARKUP_OK) goto fail;
    }
    st = append_segment(tpl, &nl, done, tpl->static_len, tpl->tail_newline_at, out);
    if (st != MARKUP_OK) goto fail;
    return MARKUP_OK;

fail:
    markup_buf_truncate(out, start);
    return st;
}

markup_status markup_baked_render_to(const markup_baked *tpl, const markup_value *values,
                                     size_t nvalues, markup_sink sink, void *ctx,
                                     markup_error *err) {
    markup_clear_(err);
    if (sink == NULL) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    /* A filled template is one page or fragment: rendered whole, then
       handed over in one call. */
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    markup_status st = markup_baked_render(tpl, values, nvalues, &buf, err);
    if (st == MARKUP_OK && buf.len && (st = sink(ctx, buf.data, buf.len)) != MARKUP_OK)
        markup_fail_(err, st, "the sink stopped the writer");
    markup_buf_free(&buf);
    return st;
}

markup_status markup_baked_render_file(const markup_baked *tpl, const markup_value *values,
                                       size_t nvalues, FILE *f, markup_error *err) {
    markup_clear_(err);
    if (f == NULL) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    return markup_file_result_(
        markup_baked_render_to(tpl, values, nvalues, markup_file_sink_, f, err), err);
}

char *markup_baked_render_string(const markup_baked *tpl, const markup_value *values,
                                 size_t nvalues, size_t *len, markup_error *err) {
    markup_clear_(err);
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    if (markup_baked_render(tpl, values, nvalues, &buf, err) != MARKUP_OK) {
        markup_buf_free(&buf);
        return NULL;
    }
    return markup_buf_to_string_(&buf, len, err);
}
