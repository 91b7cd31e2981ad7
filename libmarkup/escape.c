/*
 * escape.c - the HTML escaper: dispatch to the kernels (escape_scalar.c,
 * escape_sse2.c, escape_avx2.c) and the public entry points.
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
    return markup_escape_scalar_kernels_();
}

/* Kernels for `impl`, or NULL when the CPU or the build lacks it. */
static const markup_escape_kernels *kernels_for(markup_escape_impl impl) {
    switch (impl) {
    case MARKUP_ESCAPE_AUTO: return best_kernels();
    case MARKUP_ESCAPE_SCALAR: return markup_escape_scalar_kernels_();
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
            if (markup_swar_special_(markup_load_word_(s + i))) return false;
        return markup_swar_special_(markup_load_word_(s + n - 8)) == 0;
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
    return markup_swar_special_(w) == 0;
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
