/*
 * escape_scalar.c - the escaper's portable part: the entity table every
 * kernel writes from, and the scalar kernels, which run where no SIMD
 * kernel does (other CPUs, MARKUP_ESCAPE_NO_SIMD) and give every kernel
 * set its escape_short (markup_escape_table_).
 */
#include <string.h>

#include "escape_impl.h"

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
        uint64_t dirty0 = markup_swar_special_(w0), dirty1 = markup_swar_special_(w1);
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
        d = markup_swar_special_(w) ? escape_word(d, src + i) : copy_word(d, w);
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
        if (markup_swar_special_(w) == 0) continue;
        for (size_t k = 0; k < 8; k++)
            count += markup_escape_entity_len_[(unsigned char)src[i + k]] != 1;
    }
    for (; i < n; i++) count += markup_escape_entity_len_[(unsigned char)src[i]] != 1;
    return count;
}

static size_t scalar_span(const char *src, size_t n) {
    size_t i = 0;
    for (; n - i >= 8; i += 8)
        if (markup_swar_special_(markup_load_word_(src + i)) != 0) break;
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
