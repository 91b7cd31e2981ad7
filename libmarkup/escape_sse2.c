/*
 * escape_sse2.c - 16-byte block kernels for the escaper (x86-64 baseline),
 * and the group expansion table that the AVX2 kernel uses.
 *
 * A block is compared against the five special bytes at once. A clean block
 * is stored whole. In a dirty block each clean run is written with one
 * unaligned 16-byte store taken from the current source position (the bytes
 * past the run are overwritten by what follows: the destination has slack),
 * and each special byte with one 8-byte store from the entity table.
 */
#include "escape_impl.h"

#if MARKUP_ESCAPE_X86

#include <emmintrin.h>
#include <string.h>

/* ---- group expansion table (shared with escape_avx2.c) ----------------- */

/* Output position j of a 4-byte group whose bytes escape to a, b, c, d
   bytes: the record slot it copies (4 * byte + offset in the entity). The
   closing ';' of a 5-byte entity is slot 1 of the group's first clean
   byte; in a group of four special bytes it is 0x80. Past the group's
   output, 0x80. */
#define GROUP_SEMICOLON(a, b, c, d) \
    ((a) == 1 ? 1 : (b) == 1 ? 5 : (c) == 1 ? 9 : (d) == 1 ? 13 : 0x80)
#define GROUP_SLOT(i, k, a, b, c, d) ((k) == 4 ? GROUP_SEMICOLON(a, b, c, d) : 4 * (i) + (k))
#define GROUP_PICK(j, a, b, c, d, p1, p2, p3, end)                                   \
    ((j) >= (end)  ? 0x80                                                          \
     : (j) >= (p3) ? GROUP_SLOT(3, (j) - (p3), a, b, c, d)                         \
     : (j) >= (p2) ? GROUP_SLOT(2, (j) - (p2), a, b, c, d)                         \
     : (j) >= (p1) ? GROUP_SLOT(1, (j) - (p1), a, b, c, d)                         \
                   : GROUP_SLOT(0, (j), a, b, c, d))
#define GROUP_AT(j, a, b, c, d) GROUP_PICK(j, a, b, c, d, a, a + b, a + b + c, a + b + c + d)
#define GROUP_ROW(a, b, c, d)                                                        \
    {GROUP_AT(0, a, b, c, d),  GROUP_AT(1, a, b, c, d),  GROUP_AT(2, a, b, c, d),  \
     GROUP_AT(3, a, b, c, d),  GROUP_AT(4, a, b, c, d),  GROUP_AT(5, a, b, c, d),  \
     GROUP_AT(6, a, b, c, d),  GROUP_AT(7, a, b, c, d),  GROUP_AT(8, a, b, c, d),  \
     GROUP_AT(9, a, b, c, d),  GROUP_AT(10, a, b, c, d), GROUP_AT(11, a, b, c, d), \
     GROUP_AT(12, a, b, c, d), GROUP_AT(13, a, b, c, d), GROUP_AT(14, a, b, c, d), \
     GROUP_AT(15, a, b, c, d), GROUP_AT(16, a, b, c, d), GROUP_AT(17, a, b, c, d), \
     GROUP_AT(18, a, b, c, d), GROUP_AT(19, a, b, c, d), 0x80, 0x80, 0x80, 0x80,    \
     0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, a + b + c + d}
/* Two key bits per byte, low byte first: bit 0 "special", bit 1 the
   byte's bit 4 (set for < and >, clear for & " '; ignored when clean).
   So the four codes escape to 1, 5, 1 and 4 bytes. */
#define GROUP_ROWS1(b, c, d) \
    GROUP_ROW(1, b, c, d), GROUP_ROW(5, b, c, d), GROUP_ROW(1, b, c, d), GROUP_ROW(4, b, c, d)
#define GROUP_ROWS2(c, d) \
    GROUP_ROWS1(1, c, d), GROUP_ROWS1(5, c, d), GROUP_ROWS1(1, c, d), GROUP_ROWS1(4, c, d)
#define GROUP_ROWS3(d) \
    GROUP_ROWS2(1, d), GROUP_ROWS2(5, d), GROUP_ROWS2(1, d), GROUP_ROWS2(4, d)

_Alignas(64) const uint8_t markup_escape_group_shuffle_[256][32] = {
    GROUP_ROWS3(1), GROUP_ROWS3(5), GROUP_ROWS3(1), GROUP_ROWS3(4)};

#define BLOCK 16
/* More special bytes than this in a block: the table path wins. */
#define DENSE 6

/* Bit i set when byte i is one of & < > " '. Same three tests as the scalar
   path: v|2 == '>' finds < and >, v|1 == '\'' finds & and '. */
static inline __m128i special_bytes(__m128i v) {
    __m128i lt_gt = _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x02)), _mm_set1_epi8(0x3E));
    __m128i amp_apos = _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x01)), _mm_set1_epi8(0x27));
    __m128i quot = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x22));
    return _mm_or_si128(_mm_or_si128(lt_gt, amp_apos), quot);
}

/* Bits set in a 16-bit mask. The x86-64 baseline has no POPCNT
   instruction, and __builtin_popcount would become a library call. */
static inline unsigned popcount16(unsigned m) {
    m = m - ((m >> 1) & 0x5555u);
    m = (m & 0x3333u) + ((m >> 2) & 0x3333u);
    m = (m + (m >> 4)) & 0x0F0Fu;
    return (m + (m >> 8)) & 0x1Fu;
}

/* Escapes src[0..BLOCK) to d and returns the new end. Reads src[0..2*BLOCK). */
static inline char *escape_block(char *d, const char *src) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)src);
    unsigned mask = (unsigned)_mm_movemask_epi8(special_bytes(v));
    if (mask == 0) {
        _mm_storeu_si128((__m128i *)(void *)d, v);
        return d + BLOCK;
    }
    if (popcount16(mask) > DENSE) {
        /* Dense block: every byte through the table is cheaper than a
           run store per special byte. */
        for (unsigned k = 0; k < BLOCK; k++) {
            unsigned char c = (unsigned char)src[k];
            memcpy(d, markup_escape_entity_[c], 8);
            d += markup_escape_entity_len_[c];
        }
        return d;
    }
    unsigned pos = 0;
    do {
        unsigned i = (unsigned)__builtin_ctz(mask);
        __m128i run = _mm_loadu_si128((const __m128i *)(const void *)(src + pos));
        _mm_storeu_si128((__m128i *)(void *)d, run);
        d += i - pos;
        unsigned char c = (unsigned char)src[i];
        memcpy(d, markup_escape_entity_[c], 8);
        d += markup_escape_entity_len_[c];
        pos = i + 1;
        mask &= mask - 1;
    } while (mask != 0);
    __m128i rest = _mm_loadu_si128((const __m128i *)(const void *)(src + pos));
    _mm_storeu_si128((__m128i *)(void *)d, rest);
    return d + (BLOCK - pos);
}

static size_t sse2_escape(char *dst, const char *src, size_t n, size_t readable) {
    char *d = dst;
    size_t i = 0;
    /* Clean text first: two blocks per test, stored whole. A dirty pair
       goes one block at a time through escape_block. */
    while (n - i >= 2 * BLOCK) {
        __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(src + i + BLOCK));
        __m128i any = _mm_or_si128(special_bytes(v0), special_bytes(v1));
        if (_mm_movemask_epi8(any) == 0) {
            _mm_storeu_si128((__m128i *)(void *)d, v0);
            _mm_storeu_si128((__m128i *)(void *)(d + BLOCK), v1);
            d += 2 * BLOCK;
            i += 2 * BLOCK;
        } else {
            d = escape_block(d, src + i);
            i += BLOCK;
        }
    }
    while (n - i >= BLOCK && readable - i >= 2 * BLOCK) {
        d = escape_block(d, src + i);
        i += BLOCK;
    }
    /* The last bytes may not be read past: each piece goes through a
       zero-padded copy. 0 is not special, so each padding byte comes out
       as one byte at the end of the block's output and is dropped. */
    while (i < n) {
        size_t m = n - i < BLOCK ? n - i : BLOCK;
        char padded[2 * BLOCK] = {0};
        memcpy(padded, src + i, m);
        d = escape_block(d, padded) - (BLOCK - m);
        i += m;
    }
    return (size_t)(d - dst);
}

static size_t sse2_count(const char *src, size_t n) {
    size_t count = 0, i = 0;
    while (n - i >= BLOCK) {
        /* Per-lane byte counters (each special lane subtracts -1), summed
           before they can wrap. */
        __m128i acc = _mm_setzero_si128();
        for (int k = 0; k < 255 && n - i >= BLOCK; k++, i += BLOCK) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
            acc = _mm_sub_epi8(acc, special_bytes(v));
        }
        __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
        count += (size_t)_mm_cvtsi128_si64(sums) +
                 (size_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
    }
    for (; i < n; i++) count += markup_escape_entity_len_[(unsigned char)src[i]] != 1;
    return count;
}

static const markup_escape_kernels sse2_kernels = {sse2_escape, sse2_count};

const markup_escape_kernels *markup_escape_sse2_kernels_(void) { return &sse2_kernels; }

#else

const markup_escape_kernels *markup_escape_sse2_kernels_(void) { return NULL; }

#endif
