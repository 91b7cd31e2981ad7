/*
 * escape.c - the HTML escaper: dispatch, the public entry points and the
 * portable scalar kernel.
 *
 * Output is written in chunks: room for a chunk's worst case (5x) is reserved
 * once, then the kernel writes into raw memory with no per-byte capacity
 * check. Reserving per chunk rather than per call keeps a large clean string
 * from reserving five times its size.
 */
#include <stdatomic.h>
#include <string.h>

#if defined(__SSE2__)
#  include <emmintrin.h>
#endif

#include "copy_impl.h"
#include "error_impl.h"
#include "escape_impl.h"
#include "markup/binding.h"
#include "output_impl.h"

/* ---- entity table ------------------------------------------------------ */

#define ESC_SPECIAL(x) ((x) == '&' || (x) == '<' || (x) == '>' || (x) == '"' || (x) == '\'')
#define ESC_B0(x)      (ESC_SPECIAL(x) ? '&' : (x))
#define ESC_B1(x)                                                                                  \
    ((x) == '&' ? 'a' : (x) == '<' ? 'l' : (x) == '>' ? 'g' : ESC_SPECIAL(x) ? '#' : 0)
#define ESC_B2(x) ((x) == '&' ? 'm' : ((x) == '<' || (x) == '>') ? 't' : ESC_SPECIAL(x) ? '3' : 0)
#define ESC_B3(x)                                                                                  \
    ((x) == '&' ? 'p' : ((x) == '<' || (x) == '>') ? ';' : (x) == '"' ? '4' : (x) == '\'' ? '9' : 0)
#define ESC_B4(x)  (((x) == '&' || (x) == '"' || (x) == '\'') ? ';' : 0)
#define ESC_LEN(x) (((x) == '<' || (x) == '>') ? 4 : ESC_SPECIAL(x) ? 5 : 1)

#define ENT1(x)                                                                                    \
    {(char)ESC_B0(x), (char)ESC_B1(x), (char)ESC_B2(x), (char)ESC_B3(x), (char)ESC_B4(x)}
#define ENT4(x)  ENT1(x), ENT1((x) + 1), ENT1((x) + 2), ENT1((x) + 3)
#define ENT16(x) ENT4(x), ENT4((x) + 4), ENT4((x) + 8), ENT4((x) + 12)
#define ENT64(x) ENT16(x), ENT16((x) + 16), ENT16((x) + 32), ENT16((x) + 48)
#define LEN1(x)  ESC_LEN(x)
#define LEN4(x)  LEN1(x), LEN1((x) + 1), LEN1((x) + 2), LEN1((x) + 3)
#define LEN16(x) LEN4(x), LEN4((x) + 4), LEN4((x) + 8), LEN4((x) + 12)
#define LEN64(x) LEN16(x), LEN16((x) + 16), LEN16((x) + 32), LEN16((x) + 48)

const char markup_escape_entity_[256][8] = {ENT64(0), ENT64(64), ENT64(128), ENT64(192)};
const uint8_t markup_escape_entity_len_[256] = {LEN64(0), LEN64(64), LEN64(128), LEN64(192)};

/* ---- scalar kernel ----------------------------------------------------- */

#define HIGHS MARKUP_HIGHS_

static inline uint64_t load_word(const char *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* Non-zero when some byte of w is one of & < > " '. */
static inline uint64_t swar_special(uint64_t w) { return markup_special_bits_(w) & HIGHS; }

static inline char *put_escaped_byte(char *dst, unsigned char c) {
    memcpy(dst, markup_escape_entity_[c], 8);
    return dst + markup_escape_entity_len_[c];
}

static inline char *copy_word(char *dst, uint64_t w) {
    memcpy(dst, &w, 8);
    return dst + 8;
}

/* A word with a special byte: every byte through the table, no branches. */
static inline char *escape_word(char *dst, const char *src) {
    for (size_t k = 0; k < 8; k++) dst = put_escaped_byte(dst, (unsigned char)src[k]);
    return dst;
}

/* The bulk of long inputs, two words per test while the text is clean.
   Kept out of line so that short inputs do not pay for its registers. */
static MARKUP_NOINLINE char *scalar_escape_pairs(char *d, const char *src, size_t n) {
    for (size_t i = 0; i + 16 <= n; i += 16) {
        uint64_t w0, w1;
        memcpy(&w0, src + i, 8);
        memcpy(&w1, src + i + 8, 8);
        uint64_t dirty0 = swar_special(w0), dirty1 = swar_special(w1);
        if ((dirty0 | dirty1) == 0) {
            memcpy(d, &w0, 8);
            memcpy(d + 8, &w1, 8);
            d += 16;
            continue;
        }
        d = dirty0 ? escape_word(d, src + i) : copy_word(d, w0);
        d = dirty1 ? escape_word(d, src + i + 8) : copy_word(d, w1);
    }
    return d;
}

size_t markup_escape_scalar_(char *dst, const char *src, size_t n) {
    char *d = dst;
    size_t i = 0;
    if (n >= 32) {
        i = n & ~(size_t)15;
        d = scalar_escape_pairs(d, src, i);
    }
    for (; n - i >= 8; i += 8) {
        uint64_t w;
        memcpy(&w, src + i, 8);
        d = swar_special(w) ? escape_word(d, src + i) : copy_word(d, w);
    }
    for (; i < n; i++) d = put_escaped_byte(d, (unsigned char)src[i]);
    return (size_t)(d - dst);
}

static size_t scalar_escape(char *dst, const char *src, size_t n, size_t readable) {
    (void)readable;
    return markup_escape_scalar_(dst, src, n);
}

static size_t scalar_count(const char *src, size_t n) {
    size_t count = 0, i = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t w;
        memcpy(&w, src + i, 8);
        if (swar_special(w) == 0) continue;
        for (size_t k = 0; k < 8; k++)
            count += markup_escape_entity_len_[(unsigned char)src[i + k]] != 1;
    }
    for (; i < n; i++) count += markup_escape_entity_len_[(unsigned char)src[i]] != 1;
    return count;
}

static size_t scalar_span(const char *src, size_t n) {
    size_t i = 0;
    for (; n - i >= 8; i += 8)
        if (swar_special(load_word(src + i)) != 0) break;
    for (; i < n; i++)
        if (markup_escape_entity_len_[(unsigned char)src[i]] != 1) return i;
    return n;
}

size_t markup_escape_table_(char *dst, const char *src, size_t n) {
    char *d = dst;
    size_t i = 0;
    for (; n - i >= 4; i += 4) {
        d = put_escaped_byte(d, (unsigned char)src[i]);
        d = put_escaped_byte(d, (unsigned char)src[i + 1]);
        d = put_escaped_byte(d, (unsigned char)src[i + 2]);
        d = put_escaped_byte(d, (unsigned char)src[i + 3]);
    }
    for (; i < n; i++) d = put_escaped_byte(d, (unsigned char)src[i]);
    return (size_t)(d - dst);
}

static const markup_escape_kernels scalar_kernels = {scalar_escape, scalar_count, scalar_span,
                                                     markup_escape_table_};

const markup_escape_kernels *markup_escape_scalar_kernels_(void) { return &scalar_kernels; }

/* ---- dispatch ---------------------------------------------------------- */

/* The probe result, cached: 0 until the first probe, then impl + 1. Every
   thread computes the same value, so a racing double probe is harmless. */
static atomic_int best_impl_cache;

static markup_escape_impl probe_best(void) {
#if MARKUP_ESCAPE_X86
    if (markup_escape_avx2_kernels_() != NULL) {
        __builtin_cpu_init();
        /* The AVX2 kernels use BMI2 beside AVX2 (pdep), the 2- and 4-byte
           writers BMI1 and BMI2. */
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
            __builtin_cpu_supports("bmi2"))
            return MARKUP_ESCAPE_AVX2;
    }
    if (markup_escape_sse2_kernels_() != NULL) return MARKUP_ESCAPE_SSE2;
#endif
    return MARKUP_ESCAPE_SCALAR;
}

markup_escape_impl markup_escape_impl_best(void) {
    int cached = atomic_load_explicit(&best_impl_cache, memory_order_relaxed);
    if (cached == 0) {
        cached = (int)probe_best() + 1;
        atomic_store_explicit(&best_impl_cache, cached, memory_order_relaxed);
    }
    return (markup_escape_impl)(cached - 1);
}

/* The kernels AUTO stands for. */
static inline const markup_escape_kernels *best_kernels(void) {
    markup_escape_impl best = markup_escape_impl_best();
#if MARKUP_ESCAPE_X86
    if (best == MARKUP_ESCAPE_AVX2) return markup_escape_avx2_kernels_();
    if (best == MARKUP_ESCAPE_SSE2) return markup_escape_sse2_kernels_();
#endif
    (void)best;
    return &scalar_kernels;
}

/* Kernels for `impl`, or NULL when the CPU or the build lacks it. */
static const markup_escape_kernels *kernels_for(markup_escape_impl impl) {
    switch (impl) {
    case MARKUP_ESCAPE_AUTO: return best_kernels();
    case MARKUP_ESCAPE_SCALAR: return &scalar_kernels;
    case MARKUP_ESCAPE_SSE2:
#if MARKUP_ESCAPE_X86
        return markup_escape_sse2_kernels_();
#else
        return NULL;
#endif
    case MARKUP_ESCAPE_AVX2:
#if MARKUP_ESCAPE_X86
        return markup_escape_impl_best() == MARKUP_ESCAPE_AVX2 ? markup_escape_avx2_kernels_()
                                                               : NULL;
#else
        return NULL;
#endif
    }
    return NULL;
}

bool markup_escape_impl_available(markup_escape_impl impl) { return kernels_for(impl) != NULL; }

const char *markup_escape_impl_name(markup_escape_impl impl) {
    switch (impl) {
    case MARKUP_ESCAPE_AUTO: return "auto";
    case MARKUP_ESCAPE_SCALAR: return "scalar";
    case MARKUP_ESCAPE_SSE2: return "sse2";
    case MARKUP_ESCAPE_AVX2: return "avx2";
    }
    return "unknown";
}

size_t markup_escape_count(const char *s, size_t n) {
    if (s == NULL || n == 0) return 0;
    return best_kernels()->count(s, n);
}

size_t markup_escape_span(const char *s, size_t n) {
    if (s == NULL || n == 0) return 0;
    return best_kernels()->span(s, n);
}

static markup_status escape_run(markup_buf *buf, const char *s, size_t n,
                                const markup_escape_kernels *k) {
    size_t start = buf->len;
    while (n > 0) {
        size_t chunk = n < MARKUP_ESCAPE_CHUNK ? n : MARKUP_ESCAPE_CHUNK;
        markup_status st =
            markup_buf_reserve(buf, chunk * MARKUP_ESCAPE_MAX_EXPANSION + MARKUP_ESCAPE_SLACK);
        if (st != MARKUP_OK) {
            markup_buf_truncate(buf, start);
            return st;
        }
        buf->len += k->escape(buf->data + buf->len, s, chunk, n);
        s += chunk;
        n -= chunk;
    }
    return MARKUP_OK;
}

size_t markup_escape_room(size_t n, size_t specials) {
    /* A piece of c bytes starts at most 5 times the bytes before it in
       and reserves 5c + SLACK from there: no piece reaches past 5n + SLACK,
       whatever the count. */
    size_t worst = n > (SIZE_MAX - MARKUP_ESCAPE_SLACK) / MARKUP_ESCAPE_MAX_EXPANSION
                       ? SIZE_MAX
                       : n * MARKUP_ESCAPE_MAX_EXPANSION + MARKUP_ESCAPE_SLACK;
    /* With the count: a piece starts at most (escaped length - c) in and
       reserves 5c + SLACK from there, the escaped length + 4c + SLACK. */
    size_t piece = n < MARKUP_ESCAPE_CHUNK ? n : MARKUP_ESCAPE_CHUNK;
    size_t after = (MARKUP_ESCAPE_MAX_EXPANSION - 1) * piece + MARKUP_ESCAPE_SLACK;
    if (specials > (SIZE_MAX - n) / 4) return worst;
    size_t escaped = n + 4 * specials;
    if (escaped > SIZE_MAX - after) return worst;
    return escaped + after < worst ? escaped + after : worst;
}

markup_status markup_escape_counted(markup_buf *buf, const char *s, size_t n) {
    if (buf == NULL || (s == NULL && n != 0)) return MARKUP_ERR_INVALID_ARG;
    if (n == 0) return MARKUP_OK;
    const markup_escape_kernels *k = best_kernels();
    size_t specials = k->count(s, n);
    if (specials == 0) return markup_buf_append(buf, s, n);
    /* The kernels store at most 64 bytes past the escaped text, which is
       at most n + 4 * specials bytes: the slack covers the rest. One call
       over the whole input, so no piece reserves its worst case. */
    if (n > SIZE_MAX - MARKUP_ESCAPE_SLACK || specials > (SIZE_MAX - MARKUP_ESCAPE_SLACK - n) / 4)
        return MARKUP_ERR_TOO_LARGE;
    markup_status st = markup_buf_reserve(buf, n + 4 * specials + MARKUP_ESCAPE_SLACK);
    if (st != MARKUP_OK) return st;
    buf->len += k->escape(buf->data + buf->len, s, n, n);
    return MARKUP_OK;
}

markup_status markup_escape_using(markup_buf *buf, const char *s, size_t n,
                                  markup_escape_impl impl) {
    if (buf == NULL || (s == NULL && n != 0)) return MARKUP_ERR_INVALID_ARG;
    const markup_escape_kernels *k = kernels_for(impl);
    if (k == NULL) return MARKUP_ERR_INVALID_ARG;
    return escape_run(buf, s, n, k);
}

/* Most text handed to the escaper is a short, clean value (a name, a
   class, a number). Up to this length a quick scan first answers "clean"
   and the bytes are copied whole, without entering a kernel. */
#define ESCAPE_CLEAN_SCAN_MAX MARKUP_ESCAPE_SHORT_MAX

#if defined(__SSE2__)
static inline bool block_has_special(const char *p) {
    return markup_special_mask16_(_mm_loadu_si128((const __m128i *)(const void *)p)) != 0;
}
#endif

/* Whether s[0..n) holds none of the five bytes. Reads only inside the
   input: the last block or word overlaps the one before it. */
static inline bool short_is_clean(const char *s, size_t n) {
#if defined(__SSE2__)
    if (n >= 16) {
        for (size_t i = 0; i + 16 < n; i += 16)
            if (block_has_special(s + i)) return false;
        return !block_has_special(s + n - 16);
    }
#endif
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8)
            if (swar_special(load_word(s + i))) return false;
        return swar_special(load_word(s + n - 8)) == 0;
    }
    /* Under 8 bytes: overlapping loads (a byte seen twice changes no
       answer) rather than a copy of variable length, which is a call. */
    uint64_t w;
    if (n >= 4) {
        uint32_t head, tail;
        memcpy(&head, s, 4);
        memcpy(&tail, s + n - 4, 4);
        w = head | (uint64_t)tail << 32;
    } else {
        w = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 |
            (uint64_t)(unsigned char)s[n - 1] << 16; /* the zero bytes are not special */
    }
    return swar_special(w) == 0;
}

_Atomic(markup_escape_short_fn) markup_escape_short_cache_;

markup_escape_short_fn markup_escape_short_find_(void) {
    markup_escape_short_fn escape_short = best_kernels()->escape_short;
    atomic_store_explicit(&markup_escape_short_cache_, escape_short, memory_order_relaxed);
    return escape_short;
}

markup_status markup_escape(markup_buf *buf, const char *s, size_t n) {
    if (buf == NULL || (s == NULL && n != 0)) return MARKUP_ERR_INVALID_ARG;
    if (n <= ESCAPE_CLEAN_SCAN_MAX) {
        if (n == 0) return MARKUP_OK;
        if (short_is_clean(s, n)) {
            markup_status st = markup_buf_reserve(buf, n);
            if (st != MARKUP_OK) return st;
            copy_short(buf->data + buf->len, s, n);
            buf->len += n;
            return MARKUP_OK;
        }
        return markup_escape_short_dirty_(buf, s, n);
    }
    return escape_run(buf, s, n, best_kernels());
}

char *markup_escape_string(const char *s, size_t n, size_t *len, markup_error *err) {
    markup_clear_(err);
    if (markup_utf8_validate(s, n, err) != MARKUP_OK) return NULL;
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    markup_status st = markup_escape(&buf, s, n);
    if (st != MARKUP_OK) {
        markup_buf_free(&buf);
        markup_fail_status_(err, st);
        return NULL;
    }
    return markup_buf_to_string_(&buf, len, err);
}
