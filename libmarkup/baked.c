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
#include <emmintrin.h>
#endif

#include "alloc_impl.h"
#include "copy_impl.h"
#include "escape_impl.h"
#include "markup/markup.h"

typedef struct baked_slot {
    size_t at;       /* offset in the static text where the slot is written */
    size_t name_off; /* ATTR: the attribute name in the names area        */
    size_t name_len;
    markup_slot_kind kind;
} baked_slot;

struct markup_baked_builder {
    const markup_alloc *alc;
    markup_buf statics;
    markup_buf names;
    baked_slot *slots;
    size_t nslots;
    size_t slots_cap;
};

struct markup_baked {
    const markup_alloc *alc;
    size_t alloc_size; /* handed back to alc->free */
    const baked_slot *slots;
    size_t nslots;
    const char *statics;
    size_t static_len;
    const char *names;
};

/* Room for ' name=""' around an attribute value. */
#define ATTR_OVERHEAD 4

static markup_status set_error(markup_error *err, markup_status code, size_t pos,
                               const char *msg) {
    if (err) {
        err->code = code;
        err->pos = pos;
        err->msg = msg;
    }
    return code;
}

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
    *out = b;
    return MARKUP_OK;
}

void markup_baked_builder_free(markup_baked_builder *b) {
    if (!b) return;
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
                               size_t name_len) {
    if (b->nslots == b->slots_cap) {
        size_t cap = markup_grow_capacity(b->slots_cap, b->nslots + 1, 8, sizeof *b->slots);
        if (cap == 0) return MARKUP_ERR_TOO_LARGE;
        baked_slot *slots = markup_alc_realloc(b->alc, b->slots, b->slots_cap * sizeof *slots,
                                               cap * sizeof *slots);
        if (!slots) return MARKUP_ERR_NOMEM;
        b->slots = slots;
        b->slots_cap = cap;
    }
    baked_slot *slot = &b->slots[b->nslots++];
    slot->at = b->statics.len;
    slot->name_off = name_off;
    slot->name_len = name_len;
    slot->kind = kind;
    return MARKUP_OK;
}

markup_status markup_baked_builder_add_child_slot(markup_baked_builder *b) {
    if (!b) return MARKUP_ERR_INVALID_ARG;
    return push_slot(b, MARKUP_SLOT_CHILD, 0, 0);
}

markup_status markup_baked_builder_add_attr_slot(markup_baked_builder *b, const char *name,
                                                 size_t name_len, markup_error *err) {
    if (!b || (!name && name_len > 0))
        return set_error(err, MARKUP_ERR_INVALID_ARG, 0, "invalid argument");
    markup_status st = markup_html_check_attr_name(name, name_len, err);
    if (st != MARKUP_OK) return st;
    size_t name_off = b->names.len;
    st = markup_buf_append(&b->names, name, name_len);
    if (st == MARKUP_OK) st = push_slot(b, MARKUP_SLOT_ATTR, name_off, name_len);
    if (st != MARKUP_OK) {
        markup_buf_truncate(&b->names, name_off);
        return set_error(err, st, 0, markup_status_str(st));
    }
    return MARKUP_OK;
}

/* Adds `n` to *total, reporting overflow. */
static bool add_size(size_t *total, size_t n) {
    if (n > SIZE_MAX - *total) return false;
    *total += n;
    return true;
}

markup_status markup_baked_builder_finish(markup_baked_builder *b, markup_baked **out) {
    if (out) *out = NULL;
    if (!b) return MARKUP_ERR_INVALID_ARG;
    if (!out) {
        markup_baked_builder_free(b);
        return MARKUP_ERR_INVALID_ARG;
    }

    /* One block: the header, the slot table, the static text, the names. */
    size_t slots_off = (sizeof(markup_baked) + alignof(baked_slot) - 1) &
                       ~(size_t)(alignof(baked_slot) - 1);
    size_t total = slots_off;
    bool fits = b->nslots <= SIZE_MAX / sizeof(baked_slot) &&
                add_size(&total, b->nslots * sizeof(baked_slot));
    size_t statics_off = total;
    fits = fits && add_size(&total, b->statics.len);
    size_t names_off = total;
    fits = fits && add_size(&total, b->names.len);
    if (!fits) {
        markup_baked_builder_free(b);
        return MARKUP_ERR_TOO_LARGE;
    }

    const markup_alloc *alc = b->alc;
    char *block = markup_alc_malloc(alc, total);
    if (!block) {
        markup_baked_builder_free(b);
        return MARKUP_ERR_NOMEM;
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

markup_slot_kind markup_baked_slot_kind(const markup_baked *tpl, size_t slot) {
    if (!tpl || slot >= tpl->nslots) return MARKUP_SLOT_CHILD;
    return tpl->slots[slot].kind;
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
    case MARKUP_VALUE_HTML: return markup_html_write_attr_html(out, name, name_len, s, n);
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

typedef enum value_class {
    VALUE_PLAIN, /* ASCII, nothing to escape: copy as it is        */
    VALUE_ASCII, /* ASCII (so valid UTF-8) with bytes to escape     */
    VALUE_OTHER  /* not ASCII: must be validated as UTF-8           */
} value_class;

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

/* The high bit of a byte of the result is set when that byte of w is one
   of & < > " ' (other bits are noise: mask with HIGHS; so are the flags of
   non-ASCII bytes, which the caller checks on its own).
   '&' (0x26) and '\'' (0x27) differ only in bit 0, '<' (0x3C) and '>'
   (0x3E) only in bit 1, so three zero-byte tests cover the five bytes; the
   test (x - 1) & ~x sets the high bit of a zero byte, and a borrow can only
   add flags above a true zero, never invent one. */
static inline uint64_t special_bits(uint64_t w) {
    uint64_t a = (w | ONES * 0x01) ^ (ONES * 0x27);
    uint64_t b = (w | ONES * 0x02) ^ (ONES * 0x3E);
    uint64_t c = w ^ (ONES * 0x22);
    return ((a - ONES) & ~a) | ((b - ONES) & ~b) | ((c - ONES) & ~c);
}

#if defined(__SSE2__)
/* Bit i is set when byte i of v is one of & < > " '. */
static inline unsigned special_mask16(__m128i v) {
    __m128i amp_apos = _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x01)), _mm_set1_epi8(0x27));
    __m128i lt_gt = _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x02)), _mm_set1_epi8(0x3E));
    __m128i quot = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x22));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(amp_apos, lt_gt), quot));
}
#endif

/* The n < 8 bytes of s in a word, the rest zero (not special, not high):
   overlapping loads instead of a byte loop or a memcpy call. */
static inline uint64_t load_short(const char *s, size_t n) {
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        return a | (uint64_t)b << (8 * (n - 4));
    }
    if (n == 0) return 0;
    return (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << (8 * (n / 2)) |
           (uint64_t)(unsigned char)s[n - 1] << (8 * (n - 1));
}

static inline value_class class_of(uint64_t high, uint64_t special) {
    return high ? VALUE_OTHER : special ? VALUE_ASCII : VALUE_PLAIN;
}

/* Classifies s[0..n), n <= CLASSIFY_MAX. */
static value_class classify(const char *s, size_t n) {
#if defined(__SSE2__)
    if (n >= 16) {
        unsigned high = 0, special = 0;
        for (size_t i = 0; i + 16 < n; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            high |= (unsigned)_mm_movemask_epi8(v); /* the top bit of each byte */
            special |= special_mask16(v);
        }
        /* the last, possibly overlapping, block */
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
        high |= (unsigned)_mm_movemask_epi8(v);
        special |= special_mask16(v);
        return class_of(high, special);
    }
#endif
    uint64_t w, high = 0, special = 0;
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&w, s + i, 8);
            high |= w;
            special |= special_bits(w);
        }
        memcpy(&w, s + n - 8, 8);
        high |= w;
        special |= special_bits(w);
        return class_of(high & HIGHS, special & HIGHS);
    }
    w = load_short(s, n);
    return class_of(w & HIGHS, special_bits(w) & HIGHS);
}

static inline markup_status append_short(markup_buf *out, const char *s, size_t n) {
    if (n == 0) return MARKUP_OK; /* out->data may still be NULL */
    markup_status st = markup_buf_reserve(out, n);
    if (st != MARKUP_OK) return st;
    copy_short(out->data + out->len, s, n);
    out->len += n;
    return MARKUP_OK;
}

/* Writes a value verbatim into the slot (plain text, or trusted HTML). */
static markup_status write_plain(markup_buf *out, const markup_baked *tpl, const baked_slot *slot,
                                 const char *s, size_t n) {
    if (slot->kind == MARKUP_SLOT_CHILD) return append_short(out, s, n);
    size_t name_len = slot->name_len;
    markup_status st = markup_buf_reserve(out, name_len + ATTR_OVERHEAD + n);
    if (st != MARKUP_OK) return st;
    char *d = out->data + out->len;
    *d++ = ' ';
    copy_short(d, tpl->names + slot->name_off, name_len);
    d += name_len;
    *d++ = '=';
    *d++ = '"';
    copy_short(d, s, n);
    d += n;
    *d++ = '"';
    out->len = (size_t)(d - out->data);
    return MARKUP_OK;
}

/* Escapes a value found to hold bytes to escape; a short one (most slot
   values) with no call in between. */
static inline markup_status escape_dirty(markup_buf *out, const char *s, size_t n) {
    if (n <= MARKUP_ESCAPE_SHORT_MAX) return markup_escape_short_dirty_(out, s, n);
    return markup_escape_dirty_(out, s, n);
}

/* Writes a value found to hold bytes to escape, escaped, without scanning
   it again. */
static markup_status write_escaped(markup_buf *out, const markup_baked *tpl,
                                   const baked_slot *slot, const char *s, size_t n) {
    if (slot->kind == MARKUP_SLOT_CHILD) return escape_dirty(out, s, n);
    size_t name_len = slot->name_len;
    markup_status st = markup_buf_reserve(out, name_len + ATTR_OVERHEAD);
    if (st != MARKUP_OK) return st;
    char *d = out->data + out->len;
    *d++ = ' ';
    copy_short(d, tpl->names + slot->name_off, name_len);
    d += name_len;
    *d++ = '=';
    *d++ = '"';
    out->len = (size_t)(d - out->data);
    st = escape_dirty(out, s, n);
    if (st == MARKUP_OK) st = markup_buf_putc(out, '"');
    return st;
}

markup_status markup_baked_render(const markup_baked *tpl, const markup_value *values,
                                  size_t nvalues, markup_buf *out, markup_error *err) {
    if (!tpl || !out || (!values && nvalues > 0))
        return set_error(err, MARKUP_ERR_INVALID_ARG, 0, "invalid argument");
    if (nvalues != tpl->nslots)
        return set_error(err, MARKUP_ERR_SLOT_COUNT, 0,
                         "number of values differs from the template's slot count");
    size_t start = out->len;
    markup_status st = markup_buf_reserve(out, tpl->static_len);
    if (st != MARKUP_OK) return set_error(err, st, 0, markup_status_str(st));

    /* One pass: each value is checked where it is written, and a failure
       rolls the whole render back. */
    const char *why = NULL;
    size_t done = 0; /* static text already written */
    for (size_t i = 0; i < tpl->nslots; i++) {
        const baked_slot *slot = &tpl->slots[i];
        const markup_value *v = &values[i];
        st = append_short(out, tpl->statics + done, slot->at - done);
        if (st != MARKUP_OK) goto fail;
        done = slot->at;
        switch (v->kind) {
        case MARKUP_VALUE_OMIT:
            continue;
        case MARKUP_VALUE_TRUE:
            if (slot->kind == MARKUP_SLOT_CHILD) {
                st = MARKUP_ERR_SLOT_VALUE;
                why = "a TRUE value is only allowed in an attribute slot";
                goto fail;
            }
            break;
        case MARKUP_VALUE_TEXT:
        case MARKUP_VALUE_HTML: {
            if (!v->s && v->n > 0) {
                st = MARKUP_ERR_INVALID_ARG;
                why = "slot value has a NULL string with a non-zero length";
                goto fail;
            }
            value_class cls = v->n <= CLASSIFY_MAX ? classify(v->s, v->n) : VALUE_OTHER;
            if (cls == VALUE_PLAIN || (cls == VALUE_ASCII && v->kind == MARKUP_VALUE_HTML)) {
                st = write_plain(out, tpl, slot, v->s, v->n);
                if (st != MARKUP_OK) goto fail;
                continue;
            }
            if (cls == VALUE_ASCII) { /* TEXT with something to escape */
                st = write_escaped(out, tpl, slot, v->s, v->n);
                if (st != MARKUP_OK) goto fail;
                continue;
            }
            st = markup_utf8_validate(v->s, v->n, err); /* err->pos is in the value */
            if (st != MARKUP_OK) {
                markup_buf_truncate(out, start);
                return st;
            }
            break;
        }
        default:
            st = MARKUP_ERR_INVALID_ARG;
            why = "unknown slot value kind";
            goto fail;
        }
        st = markup_baked_write_value(slot->kind, tpl->names + slot->name_off, slot->name_len, v,
                                      out);
        if (st != MARKUP_OK) goto fail;
    }
    st = append_short(out, tpl->statics + done, tpl->static_len - done);
    if (st != MARKUP_OK) goto fail;
    return MARKUP_OK;

fail:
    markup_buf_truncate(out, start);
    return set_error(err, st, 0, why ? why : markup_status_str(st));
}

markup_status markup_baked_render_with(const markup_baked *tpl, markup_slot_writer write_slot,
                                       void *ctx, markup_buf *out) {
    if (!tpl || !write_slot || !out) return MARKUP_ERR_INVALID_ARG;
    size_t start = out->len;
    markup_status st = markup_buf_reserve(out, tpl->static_len);
    if (st != MARKUP_OK) return st;

    size_t done = 0;
    for (size_t i = 0; i < tpl->nslots; i++) {
        const baked_slot *slot = &tpl->slots[i];
        st = append_short(out, tpl->statics + done, slot->at - done);
        if (st != MARKUP_OK) goto fail;
        done = slot->at;
        const char *name = slot->kind == MARKUP_SLOT_ATTR ? tpl->names + slot->name_off : NULL;
        st = write_slot(ctx, i, slot->kind, name, slot->name_len, out);
        if (st != MARKUP_OK) goto fail;
    }
    st = append_short(out, tpl->statics + done, tpl->static_len - done);
    if (st != MARKUP_OK) goto fail;
    return MARKUP_OK;

fail:
    markup_buf_truncate(out, start);
    return st;
}
