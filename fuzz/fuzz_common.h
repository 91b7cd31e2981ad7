/*
 * fuzz_common.h - what the harnesses share: an input reader, a growable
 * byte buffer of their own, a checking allocator that can fail on demand,
 * and deliberately simple reference versions of the escaper, the UTF-8
 * validator and the name checks.
 *
 * The references are written for obviousness, not speed: one byte at a
 * time, straight from the rules in markup.h and DESIGN.md. They share no
 * code with libmarkup, so a harness that compares the two finds bugs in
 * either. A violated invariant calls FUZZ_CHECK, which aborts: libFuzzer
 * records the input as a crash.
 */
#ifndef MARKUP_FUZZ_COMMON_H
#define MARKUP_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "markup/binding.h"

#if defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    include <sanitizer/asan_interface.h>
#    define FUZZ_HAVE_ASAN 1
#  endif
#endif

/* Marks bytes as off limits to the code under test (ASan builds only). */
static inline void fuzz_poison(const void *p, size_t n) {
#ifdef FUZZ_HAVE_ASAN
    ASAN_POISON_MEMORY_REGION(p, n);
#else
    (void)p, (void)n;
#endif
}

static inline void fuzz_unpoison(const void *p, size_t n) {
#ifdef FUZZ_HAVE_ASAN
    ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
    (void)p, (void)n;
#endif
}

/* For the reference code and checks: their branches say nothing about
   libmarkup, and instrumenting their comparisons would make libFuzzer
   spend its time (and its value profile) on the harness. */
#if defined(__clang__)
#  define FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#  define FUZZ_NO_COVERAGE
#endif

/* Aborts with the failed condition on stderr; libFuzzer saves the input. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__, #cond);         \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Input reader: every take_* returns zeros once the input is exhausted.    */
/* ------------------------------------------------------------------------ */

typedef struct fuzz_reader {
    const uint8_t *p;
    size_t n;
} fuzz_reader;

static inline bool fuzz_more(const fuzz_reader *r) { return r->n > 0; }

static inline uint8_t fuzz_take_u8(fuzz_reader *r) {
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

/* Fills `out` from the front of the input (zero-padded), the way the
   harnesses read their options struct. */
static inline void fuzz_take_struct(fuzz_reader *r, void *out, size_t size) {
    size_t k = r->n < size ? r->n : size;
    memset(out, 0, size);
    memcpy(out, r->p, k);
    r->p += k;
    r->n -= k;
}

/* A string: one length byte, then that many bytes (fewer at the end of the
   input). The bytes are copied into an allocation of exactly that size so
   AddressSanitizer catches a read one past the end; the empty string is a
   NULL pointer, which the API must accept with length 0. Free with free(). */
static inline char *fuzz_take_string(fuzz_reader *r, size_t *len) {
    size_t n = fuzz_take_u8(r);
    if (n > r->n) n = r->n;
    *len = n;
    if (n == 0) return NULL;
    char *s = malloc(n);
    FUZZ_CHECK(s != NULL);
    memcpy(s, r->p, n);
    r->p += n;
    r->n -= n;
    return s;
}

/* An exact-size heap copy of s[0..n) (NULL for n == 0). */
static inline char *fuzz_copy(const void *s, size_t n) {
    if (n == 0) return NULL;
    char *c = malloc(n);
    FUZZ_CHECK(c != NULL);
    memcpy(c, s, n);
    return c;
}

/* ------------------------------------------------------------------------ */
/* The harness's own byte buffer (independent of markup_buf).               */
/* ------------------------------------------------------------------------ */

typedef struct fuzz_buf {
    char *data;
    size_t len, cap;
} fuzz_buf;

static inline FUZZ_NO_COVERAGE void fuzz_buf_add(fuzz_buf *b, const void *s, size_t n) {
    if (n == 0) return;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap - b->len < n) cap *= 2;
        b->data = realloc(b->data, cap);
        FUZZ_CHECK(b->data != NULL);
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

static inline void fuzz_buf_adds(fuzz_buf *b, const char *s) { fuzz_buf_add(b, s, strlen(s)); }

static inline void fuzz_buf_free(fuzz_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* The bytes of a markup_buf after its first `from` (never NULL + 0). */
static inline const char *fuzz_tail(const markup_buf *b, size_t from) {
    return b->len > from ? b->data + from : "";
}

/* A plain loop, not memcmp: libFuzzer hooks memcmp to learn from the
   compared bytes, which costs much on long outputs and teaches nothing. */
static inline FUZZ_NO_COVERAGE bool fuzz_bytes_equal(const void *a, size_t na, const void *b,
                                                     size_t nb) {
    if (na != nb) return false;
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < na; i++) {
        if (x[i] != y[i]) return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Checking allocator                                                       */
/* ------------------------------------------------------------------------ */

/* Keeps every live block with its size, so that realloc and free can be
   checked against the size libmarkup passes back (the contract says it
   always knows), and fails exactly the `fail_at`-th call counted from
   `armed_from` (0 = never). */
typedef struct fuzz_alloc {
    markup_alloc hooks;
    void **ptrs;
    size_t *sizes;
    size_t live, slots;
    size_t calls;     /* malloc + realloc calls so far */
    size_t fail_call; /* the call number that fails; 0 = none */
    size_t failures;  /* how many calls failed */
} fuzz_alloc;

static inline FUZZ_NO_COVERAGE size_t fuzz_alloc_slot(const fuzz_alloc *a, const void *p) {
    size_t i = ((uintptr_t)p >> 4) % a->slots;
    while (a->ptrs[i] != NULL && a->ptrs[i] != p) i = (i + 1) % a->slots;
    return i;
}

static inline FUZZ_NO_COVERAGE void fuzz_alloc_insert(fuzz_alloc *a, void *p, size_t size) {
    if ((a->live + 1) * 2 > a->slots) {
        size_t old_slots = a->slots;
        void **old_ptrs = a->ptrs;
        size_t *old_sizes = a->sizes;
        a->slots = old_slots ? old_slots * 2 : 64;
        a->ptrs = calloc(a->slots, sizeof *a->ptrs);
        a->sizes = calloc(a->slots, sizeof *a->sizes);
        FUZZ_CHECK(a->ptrs != NULL && a->sizes != NULL);
        for (size_t i = 0; i < old_slots; i++) {
            if (old_ptrs[i] == NULL) continue;
            size_t j = fuzz_alloc_slot(a, old_ptrs[i]);
            a->ptrs[j] = old_ptrs[i];
            a->sizes[j] = old_sizes[i];
        }
        free(old_ptrs);
        free(old_sizes);
    }
    size_t i = fuzz_alloc_slot(a, p);
    FUZZ_CHECK(a->ptrs[i] == NULL); /* the same block handed out twice */
    a->ptrs[i] = p;
    a->sizes[i] = size;
    a->live++;
}

/* Removes `p`, checking that libmarkup passed the size it was given. */
static inline FUZZ_NO_COVERAGE void fuzz_alloc_remove(fuzz_alloc *a, void *p, size_t size) {
    FUZZ_CHECK(a->slots > 0);
    size_t i = fuzz_alloc_slot(a, p);
    FUZZ_CHECK(a->ptrs[i] == p); /* freeing a block this allocator never gave */
    FUZZ_CHECK(a->sizes[i] == size);
    /* Backward-shift deletion keeps the linear probe chains intact. */
    size_t hole = i;
    for (size_t j = (i + 1) % a->slots; a->ptrs[j] != NULL; j = (j + 1) % a->slots) {
        size_t home = ((uintptr_t)a->ptrs[j] >> 4) % a->slots;
        bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
        if (movable) {
            a->ptrs[hole] = a->ptrs[j];
            a->sizes[hole] = a->sizes[j];
            hole = j;
        }
    }
    a->ptrs[hole] = NULL;
    a->sizes[hole] = 0;
    a->live--;
}

static inline bool fuzz_alloc_should_fail(fuzz_alloc *a) {
    a->calls++;
    if (a->fail_call != 0 && a->calls == a->fail_call) {
        a->failures++;
        return true;
    }
    return false;
}

static inline void *fuzz_alloc_malloc(void *ctx, size_t size) {
    fuzz_alloc *a = ctx;
    FUZZ_CHECK(size > 0);
    if (fuzz_alloc_should_fail(a)) return NULL;
    void *p = malloc(size);
    FUZZ_CHECK(p != NULL);
    fuzz_alloc_insert(a, p, size);
    return p;
}

static inline void *fuzz_alloc_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    fuzz_alloc *a = ctx;
    FUZZ_CHECK(new_size > 0);
    if (fuzz_alloc_should_fail(a)) return NULL;
    if (ptr != NULL) fuzz_alloc_remove(a, ptr, old_size);
    void *p = realloc(ptr, new_size);
    FUZZ_CHECK(p != NULL);
    fuzz_alloc_insert(a, p, new_size);
    return p;
}

static inline void fuzz_alloc_free(void *ctx, void *ptr, size_t size) {
    fuzz_alloc *a = ctx;
    if (ptr == NULL) return;
    fuzz_alloc_remove(a, ptr, size);
    free(ptr);
}

static inline void fuzz_alloc_init(fuzz_alloc *a) {
    memset(a, 0, sizeof *a);
    a->hooks.malloc = fuzz_alloc_malloc;
    a->hooks.realloc = fuzz_alloc_realloc;
    a->hooks.free = fuzz_alloc_free;
    a->hooks.ctx = a;
}

/* Makes the n-th allocation from now fail (n == 0: none). */
static inline void fuzz_alloc_fail_in(fuzz_alloc *a, size_t n) {
    a->fail_call = n ? a->calls + n : 0;
}

/* Every block must have been given back by now. */
static inline void fuzz_alloc_finish(fuzz_alloc *a) {
    FUZZ_CHECK(a->live == 0);
    free(a->ptrs);
    free(a->sizes);
    a->ptrs = NULL;
    a->sizes = NULL;
    a->slots = 0;
}

/* ------------------------------------------------------------------------ */
/* Reference escaper                                                        */
/* ------------------------------------------------------------------------ */

/* The escaped form of one byte, or NULL when it is copied unchanged. */
static inline FUZZ_NO_COVERAGE const char *fuzz_ref_entity(unsigned char c) {
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&#34;";
    case '\'': return "&#39;";
    default: return NULL;
    }
}

static inline FUZZ_NO_COVERAGE void fuzz_ref_escape(fuzz_buf *out, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const char *e = fuzz_ref_entity((unsigned char)s[i]);
        if (e) {
            fuzz_buf_adds(out, e);
        } else {
            fuzz_buf_add(out, &s[i], 1);
        }
    }
}

static inline FUZZ_NO_COVERAGE size_t fuzz_ref_escape_count(const char *s, size_t n) {
    size_t count = 0;
    for (size_t i = 0; i < n; i++) count += fuzz_ref_entity((unsigned char)s[i]) != NULL;
    return count;
}

static inline FUZZ_NO_COVERAGE size_t fuzz_ref_escape_span(const char *s, size_t n) {
    size_t i = 0;
    while (i < n && fuzz_ref_entity((unsigned char)s[i]) == NULL) i++;
    return i;
}

/* ------------------------------------------------------------------------ */
/* Reference UTF-8 decoder (Unicode 15, table 3-7, written out by hand)     */
/* ------------------------------------------------------------------------ */

/* Length of the well-formed sequence at s[0..n), or 0 if there is none;
   the code point goes to *cp. */
static inline FUZZ_NO_COVERAGE size_t fuzz_ref_utf8_seq(const unsigned char *s, size_t n,
                                                        uint32_t *cp) {
    unsigned char b0 = s[0];
    if (b0 <= 0x7F) {
        *cp = b0;
        return 1;
    }
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2;
    } else if (b0 == 0xE0) {
        len = 3, lo = 0xA0;
    } else if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) {
        len = 3;
    } else if (b0 == 0xED) {
        len = 3, hi = 0x9F; /* no surrogates */
    } else if (b0 == 0xF0) {
        len = 4, lo = 0x90;
    } else if (b0 >= 0xF1 && b0 <= 0xF3) {
        len = 4;
    } else if (b0 == 0xF4) {
        len = 4, hi = 0x8F; /* nothing above U+10FFFF */
    } else {
        return 0;
    }
    if (n < len) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    }
    uint32_t c = b0 & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
    for (size_t i = 1; i < len; i++) c = (c << 6) | (s[i] & 0x3F);
    *cp = c;
    return len;
}

/* Offset of the first byte of the first ill-formed sequence, or n. */
static inline FUZZ_NO_COVERAGE size_t fuzz_ref_utf8_error(const char *s, size_t n) {
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = fuzz_ref_utf8_seq(u + i, n - i, &cp);
        if (len == 0) return i;
        i += len;
    }
    return n;
}

static inline bool fuzz_ref_utf8_valid(const char *s, size_t n) {
    return fuzz_ref_utf8_error(s, n) == n;
}

/* ------------------------------------------------------------------------ */
/* Reference name and raw-text checks                                       */
/* ------------------------------------------------------------------------ */

static inline bool fuzz_ascii_alpha(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline FUZZ_NO_COVERAGE bool fuzz_ascii_iequal(const char *a, size_t na, const char *lower) {
    size_t nb = strlen(lower);
    if (na != nb) return false;
    for (size_t i = 0; i < na; i++) {
        unsigned char c = (unsigned char)a[i];
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
        if (c != (unsigned char)lower[i]) return false;
    }
    return true;
}

/* Offset of the first byte a tag name may not have there, or n when the
   name is valid (the empty name is invalid at 0). */
static inline FUZZ_NO_COVERAGE size_t fuzz_ref_tag_error(const char *s, size_t n) {
    if (n == 0) return MARKUP_POS_NONE; /* nothing to point at */
    if (!fuzz_ascii_alpha((unsigned char)s[0])) return 0;
    for (size_t i = 1; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!fuzz_ascii_alpha(c) && !(c >= '0' && c <= '9') && c != '-') return i;
    }
    return n;
}

static inline markup_tag_kind fuzz_ref_tag_kind(const char *s, size_t n) {
    /* The void elements, and the legacy ones the parser reads as empty. */
    static const char *const voids[] = {"area", "base",   "br",    "col",      "embed",   "hr",
                                        "img",  "input",  "link",  "meta",     "source",  "track",
                                        "wbr",  "keygen", "param", "basefont", "bgsound", "frame"};
    for (size_t i = 0; i < sizeof voids / sizeof voids[0]; i++) {
        if (fuzz_ascii_iequal(s, n, voids[i])) return MARKUP_TAG_VOID;
    }
    if (fuzz_ascii_iequal(s, n, "script")) return MARKUP_TAG_SCRIPT;
    if (fuzz_ascii_iequal(s, n, "style")) return MARKUP_TAG_STYLE;
    return MARKUP_TAG_NORMAL;
}

/* An ASCII byte that may not appear in an attribute name. */
static inline bool fuzz_ref_attr_byte_rejected(unsigned char c) {
    return c <= 0x20 || c == 0x7F || c == '"' || c == '\'' || c == '<' || c == '>' || c == '/' ||
           c == '=' || c == '&' || c == '\\' || c == '`';
}

/* The two places an attribute-name check may report, scanning from the
   start: the first rejected character before any UTF-8 error (`bad_char`;
   0 for the empty name) and the first UTF-8 error (`bad_utf8`); SIZE_MAX
   when there is none. */
typedef struct fuzz_attr_verdict {
    size_t bad_char;
    size_t bad_utf8;
} fuzz_attr_verdict;

static inline FUZZ_NO_COVERAGE fuzz_attr_verdict fuzz_ref_attr_name(const char *s, size_t n) {
    fuzz_attr_verdict v = {SIZE_MAX, SIZE_MAX};
    if (n == 0) {
        v.bad_char = 0;
        return v;
    }
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t len = fuzz_ref_utf8_seq(u + i, n - i, &cp);
        if (len == 0) {
            v.bad_utf8 = i;
            return v;
        }
        bool rejected = len == 1 ? fuzz_ref_attr_byte_rejected(u[i]) : (cp >= 0x80 && cp <= 0x9F);
        if (rejected && v.bad_char == SIZE_MAX) v.bad_char = i;
        i += len;
    }
    return v;
}

static inline bool fuzz_ref_attr_name_valid(const char *s, size_t n) {
    fuzz_attr_verdict v = fuzz_ref_attr_name(s, n);
    return v.bad_char == SIZE_MAX && v.bad_utf8 == SIZE_MAX;
}

/* Offset of the '<' of the first sequence that may not appear in raw text
   of this kind, or n. */
static inline FUZZ_NO_COVERAGE size_t fuzz_ref_raw_text_error(markup_tag_kind kind, const char *s,
                                                              size_t n) {
    if (kind != MARKUP_TAG_SCRIPT && kind != MARKUP_TAG_STYLE) return n;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '<') continue;
        if (kind == MARKUP_TAG_SCRIPT) {
            if (n - i >= 8 && fuzz_ascii_iequal(s + i, 8, "</script")) return i;
            if (n - i >= 4 && fuzz_bytes_equal(s + i, 4, "<!--", 4)) return i;
        } else if (n - i >= 7 && fuzz_ascii_iequal(s + i, 7, "</style")) {
            return i;
        }
    }
    return n;
}

/* The elements a parser reads as text up to their end tag. */
static const char *const fuzz_text_elements[] = {"title", "textarea", "noscript", "iframe",
                                                 "xmp",   "noembed",  "noframes"};

/* Whether `tag` is one of them (ASCII case-insensitive). */
static inline FUZZ_NO_COVERAGE bool fuzz_ref_reads_as_text(const char *tag, size_t n) {
    for (size_t k = 0; k < sizeof fuzz_text_elements / sizeof fuzz_text_elements[0]; k++)
        if (n == strlen(fuzz_text_elements[k]) && fuzz_ascii_iequal(tag, n, fuzz_text_elements[k]))
            return true;
    return false;
}

/* Position of the first end tag of one of them in s[0..n) ("</title",
   any case), or n: raw text inside such an element may not hold one. */
static inline FUZZ_NO_COVERAGE size_t fuzz_ref_text_inside_error(const char *s, size_t n) {
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '<' || s[i + 1] != '/') continue;
        for (size_t k = 0; k < sizeof fuzz_text_elements / sizeof fuzz_text_elements[0]; k++) {
            size_t len = strlen(fuzz_text_elements[k]);
            if (n - i - 2 >= len && fuzz_ascii_iequal(s + i + 2, len, fuzz_text_elements[k]))
                return i;
        }
    }
    return n;
}

#endif /* MARKUP_FUZZ_COMMON_H */
