/*
 * escape_sse2.c - 16-byte block kernels for the escaper (x86-64 baseline),
 * and the group expansion table that the shuffle kernels share.
 *
 * SSE2 kernel: a block is compared against the five special bytes at once.
 * A clean block is stored whole. In a dirty block each clean run is written
 * with one unaligned 16-byte store taken from the current source position
 * (the bytes past the run are overwritten by what follows: the destination
 * has slack), and each special byte with one 8-byte store from the entity
 * table; a block with many special bytes goes through the entity table.
 *
 * SSSE3 kernel, used in its place when the CPU has SSSE3: a dirty block is
 * expanded with pshufb, as escape_avx2.c describes.
 */
#include "escape_impl.h"

#if MARKUP_ESCAPE_X86

#  include <emmintrin.h>
#  include <tmmintrin.h>
#  include <string.h>

/* ---- group expansion table (shared with escape_avx2.c) ----------------- */

/* Output position j of a 4-byte group whose bytes escape to a, b, c, d
   bytes: the record slot it copies (4 * byte + offset in the entity). The
   closing ';' of a 5-byte entity is slot 1 of the group's first clean
   byte; in a group of four special bytes it is 0x80. Past the group's
   output, 0x80. */
#  define GROUP_SEMICOLON(a, b, c, d)                                                              \
      ((a) == 1 ? 1 : (b) == 1 ? 5 : (c) == 1 ? 9 : (d) == 1 ? 13 : 0x80)
#  define GROUP_SLOT(i, k, a, b, c, d) ((k) == 4 ? GROUP_SEMICOLON(a, b, c, d) : 4 * (i) + (k))
#  define GROUP_PICK(j, a, b, c, d, p1, p2, p3, end)                                               \
      ((j) >= (end)  ? 0x80                                                                        \
       : (j) >= (p3) ? GROUP_SLOT(3, (j) - (p3), a, b, c, d)                                       \
       : (j) >= (p2) ? GROUP_SLOT(2, (j) - (p2), a, b, c, d)                                       \
       : (j) >= (p1) ? GROUP_SLOT(1, (j) - (p1), a, b, c, d)                                       \
                     : GROUP_SLOT(0, (j), a, b, c, d))
#  define GROUP_AT(j, a, b, c, d)                                                                  \
      GROUP_PICK(j, a, b, c, d, (a), (a) + (b), (a) + (b) + (c), (a) + (b) + (c) + (d))
#  define GROUP_ROW(a, b, c, d)                                                                    \
      {GROUP_AT(0, a, b, c, d),                                                                    \
       GROUP_AT(1, a, b, c, d),                                                                    \
       GROUP_AT(2, a, b, c, d),                                                                    \
       GROUP_AT(3, a, b, c, d),                                                                    \
       GROUP_AT(4, a, b, c, d),                                                                    \
       GROUP_AT(5, a, b, c, d),                                                                    \
       GROUP_AT(6, a, b, c, d),                                                                    \
       GROUP_AT(7, a, b, c, d),                                                                    \
       GROUP_AT(8, a, b, c, d),                                                                    \
       GROUP_AT(9, a, b, c, d),                                                                    \
       GROUP_AT(10, a, b, c, d),                                                                   \
       GROUP_AT(11, a, b, c, d),                                                                   \
       GROUP_AT(12, a, b, c, d),                                                                   \
       GROUP_AT(13, a, b, c, d),                                                                   \
       GROUP_AT(14, a, b, c, d),                                                                   \
       GROUP_AT(15, a, b, c, d),                                                                   \
       GROUP_AT(16, a, b, c, d),                                                                   \
       GROUP_AT(17, a, b, c, d),                                                                   \
       GROUP_AT(18, a, b, c, d),                                                                   \
       GROUP_AT(19, a, b, c, d),                                                                   \
       0x80,                                                                                       \
       0x80,                                                                                       \
       0x80,                                                                                       \
       0x80,                                                                                       \
       0x80,                                                                                       \
       0x80,                                                                                       \
       0x80,                                                                                       \
       0x80,                                                                                       \
       0x80,                                                                                       \
       0x80,                                                                                       \
       0x80,                                                                                       \
       (a) + (b) + (c) + (d)}
/* Two key bits per byte, low byte first: bit 0 "special", bit 1 the
   byte's bit 4 (set for < and >, clear for & " '; ignored when clean).
   So the four codes escape to 1, 5, 1 and 4 bytes. */
#  define GROUP_ROWS1(b, c, d)                                                                     \
      GROUP_ROW(1, b, c, d), GROUP_ROW(5, b, c, d), GROUP_ROW(1, b, c, d), GROUP_ROW(4, b, c, d)
#  define GROUP_ROWS2(c, d)                                                                        \
      GROUP_ROWS1(1, c, d), GROUP_ROWS1(5, c, d), GROUP_ROWS1(1, c, d), GROUP_ROWS1(4, c, d)
#  define GROUP_ROWS3(d) GROUP_ROWS2(1, d), GROUP_ROWS2(5, d), GROUP_ROWS2(1, d), GROUP_ROWS2(4, d)

_Alignas(64) const uint8_t markup_escape_group_shuffle_[256][32] = {GROUP_ROWS3(1), GROUP_ROWS3(5),
                                                                    GROUP_ROWS3(1), GROUP_ROWS3(4)};

#  define BLOCK 16
/* More special bytes than this in a block: the table path wins. */
#  define DENSE 6

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

static inline __m128i load_block(const char *p) {
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

static inline unsigned special_mask(const char *p) {
    return (unsigned)_mm_movemask_epi8(special_bytes(load_block(p)));
}

static size_t sse2_count(const char *src, size_t n) {
    size_t count = 0, i = 0;
    while (n - i >= 4 * BLOCK) {
        /* Per-lane byte counters, up to 4 a step (a special lane is -1),
           summed before they can wrap. */
        size_t steps = (n - i) / (4 * BLOCK);
        if (steps > 63) steps = 63;
        __m128i acc = _mm_setzero_si128();
        for (size_t k = 0; k < steps; k++, i += 4 * BLOCK) {
            __m128i s0 = special_bytes(load_block(src + i));
            __m128i s1 = special_bytes(load_block(src + i + BLOCK));
            __m128i s2 = special_bytes(load_block(src + i + 2 * BLOCK));
            __m128i s3 = special_bytes(load_block(src + i + 3 * BLOCK));
            acc = _mm_sub_epi8(acc, _mm_add_epi8(_mm_add_epi8(s0, s1), _mm_add_epi8(s2, s3)));
        }
        __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
        count += (size_t)_mm_cvtsi128_si64(sums) +
                 (size_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
    }
    for (; n - i >= BLOCK; i += BLOCK) count += popcount16(special_mask(src + i));
    if (i < n && n >= BLOCK) /* the last block, without the bytes already counted */
        return count + popcount16(special_mask(src + n - BLOCK) >> (BLOCK - (n - i)));
    for (; i < n; i++) count += markup_escape_entity_len_[(unsigned char)src[i]] != 1;
    return count;
}

static size_t sse2_span(const char *src, size_t n) {
    size_t i = 0;
    for (; n - i >= 4 * BLOCK; i += 4 * BLOCK) {
        __m128i s0 = special_bytes(load_block(src + i));
        __m128i s1 = special_bytes(load_block(src + i + BLOCK));
        __m128i s2 = special_bytes(load_block(src + i + 2 * BLOCK));
        __m128i s3 = special_bytes(load_block(src + i + 3 * BLOCK));
        __m128i any = _mm_or_si128(_mm_or_si128(s0, s1), _mm_or_si128(s2, s3));
        if (_mm_movemask_epi8(any) != 0) {
            uint64_t mask = (uint64_t)(unsigned)_mm_movemask_epi8(s0) |
                            (uint64_t)(unsigned)_mm_movemask_epi8(s1) << 16 |
                            (uint64_t)(unsigned)_mm_movemask_epi8(s2) << 32 |
                            (uint64_t)(unsigned)_mm_movemask_epi8(s3) << 48;
            return i + (size_t)__builtin_ctzll(mask);
        }
    }
    for (; n - i >= BLOCK; i += BLOCK) {
        unsigned mask = special_mask(src + i);
        if (mask != 0) return i + (size_t)__builtin_ctz(mask);
    }
    if (i < n && n >= BLOCK) { /* the last block, without the bytes already seen */
        unsigned mask = special_mask(src + n - BLOCK) >> (BLOCK - (n - i));
        return mask != 0 ? i + (size_t)__builtin_ctz(mask) : n;
    }
    for (; i < n; i++)
        if (markup_escape_entity_len_[(unsigned char)src[i]] != 1) return i;
    return n;
}

static const markup_escape_kernels sse2_kernels = {sse2_escape, sse2_count, sse2_span,
                                                   markup_escape_table_};

/* ---- SSSE3 kernel -------------------------------------------------------- */

/* The functions below use pshufb. They are compiled for SSSE3 and only
   reached after the CPU said it has it; the x86-64 baseline is SSE2. */
#  define SSSE3_FN __attribute__((target("ssse3")))

/* At each low nibble the special byte that has it, else 0x80, which no
   byte the lookup can return for (bytes >= 0x80 look up 0) is equal to. */
static inline SSSE3_FN __m128i ssse3_special_bytes(__m128i v) {
    const __m128i specials = _mm_setr_epi8(-128, -128, '"', -128, -128, -128, '&', '\'', -128, -128,
                                           -128, -128, '<', -128, '>', -128);
    return _mm_cmpeq_epi8(_mm_shuffle_epi8(specials, v), v);
}

/* a where mask is set, else b. */
static inline __m128i select_bytes(__m128i mask, __m128i a, __m128i b) {
    return _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b));
}

/* Escapes the 16 bytes v, whose special bytes are `special`, to d and
   returns the new end: four groups of four bytes, each picked out of its
   records by a row of markup_escape_group_shuffle_ (see escape_impl.h). */
static inline SSSE3_FN char *ssse3_expand_block(char *d, __m128i v, __m128i special) {
    const __m128i entity1 = _mm_setr_epi8(0, 0, '#', 0, 0, 0, 'a', '#', 0, 0, 0, 0, 'l', 0, 'g', 0);
    const __m128i entity2 = _mm_setr_epi8(0, 0, '3', 0, 0, 0, 'm', '3', 0, 0, 0, 0, 't', 0, 't', 0);
    const __m128i entity3 = _mm_setr_epi8(0, 0, '4', 0, 0, 0, 'p', '9', 0, 0, 0, 0, ';', 0, ';', 0);
    const __m128i semicolon = _mm_set1_epi8(';');
    __m128i first = select_bytes(special, _mm_set1_epi8('&'), v);
    __m128i e1 = select_bytes(special, _mm_shuffle_epi8(entity1, v), semicolon);
    __m128i e2 = _mm_shuffle_epi8(entity2, v);
    __m128i e3 = _mm_shuffle_epi8(entity3, v);
    __m128i lo01 = _mm_unpacklo_epi8(first, e1), hi01 = _mm_unpackhi_epi8(first, e1);
    __m128i lo23 = _mm_unpacklo_epi8(e2, e3), hi23 = _mm_unpackhi_epi8(e2, e3);
    __m128i records[4] = {_mm_unpacklo_epi16(lo01, lo23), _mm_unpackhi_epi16(lo01, lo23),
                          _mm_unpacklo_epi16(hi01, hi23), _mm_unpackhi_epi16(hi01, hi23)};
    /* Key bits: special interleaved with the byte's bit 4 (moved to bit 7). */
    __m128i bit4 = _mm_slli_epi16(v, 3);
    uint32_t keys = (uint32_t)_mm_movemask_epi8(_mm_unpacklo_epi8(special, bit4)) |
                    (uint32_t)_mm_movemask_epi8(_mm_unpackhi_epi8(special, bit4)) << 16;
    const char *table = (const char *)markup_escape_group_shuffle_;
    uint32_t pairs = keys & (keys >> 2);
    if (pairs & (pairs >> 4) & 0x01010101u) {
        /* A group of four special bytes: up to 20 bytes, and no clean
           slot for ';', which fills the 0x80 positions instead. */
        const __m128i zero = _mm_setzero_si128();
        for (int g = 0; g < 4; g++) {
            const char *row = table + 32 * ((keys >> (8 * g)) & 0xFF);
            __m128i lo = _mm_load_si128((const __m128i *)(const void *)row);
            __m128i hi = _mm_load_si128((const __m128i *)(const void *)(row + 16));
            __m128i out_lo = _mm_or_si128(_mm_shuffle_epi8(records[g], lo),
                                          _mm_and_si128(_mm_cmplt_epi8(lo, zero), semicolon));
            __m128i out_hi = _mm_or_si128(_mm_shuffle_epi8(records[g], hi),
                                          _mm_and_si128(_mm_cmplt_epi8(hi, zero), semicolon));
            _mm_storeu_si128((__m128i *)(void *)d, out_lo);
            _mm_storeu_si128((__m128i *)(void *)(d + 16), out_hi);
            d += (unsigned char)row[31];
        }
        return d;
    }
    for (int g = 0; g < 4; g++) {
        const char *row = table + 32 * ((keys >> (8 * g)) & 0xFF);
        __m128i control = _mm_load_si128((const __m128i *)(const void *)row);
        _mm_storeu_si128((__m128i *)(void *)d, _mm_shuffle_epi8(records[g], control));
        d += (unsigned char)row[31];
    }
    return d;
}

/* One special byte, at i: the bytes before it, its entity, the rest.
   Reads src[0..32). */
static MARKUP_NOINLINE char *escape_one_special(char *d, const char *src, __m128i v, unsigned i) {
    unsigned char c = (unsigned char)src[i];
    _mm_storeu_si128((__m128i *)(void *)d, v);
    memcpy(d + i, markup_escape_entity_[c], 8);
    d += i + markup_escape_entity_len_[c];
    __m128i rest = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 1));
    _mm_storeu_si128((__m128i *)(void *)d, rest);
    return d + (BLOCK - 1 - i);
}

/* Escapes the 16 bytes v at src, whose special bytes are `special`. With
   may_read_on, src[0..32) may be read; without, src is not read. */
static inline SSSE3_FN char *ssse3_escape_block(char *d, const char *src, __m128i v,
                                                __m128i special, int may_read_on) {
    unsigned mask = (unsigned)_mm_movemask_epi8(special);
    if (mask == 0) {
        _mm_storeu_si128((__m128i *)(void *)d, v);
        return d + BLOCK;
    }
    if ((mask & (mask - 1)) == 0 && may_read_on)
        return escape_one_special(d, src, v, (unsigned)__builtin_ctz(mask));
    return ssse3_expand_block(d, v, special);
}

static SSSE3_FN size_t ssse3_escape(char *dst, const char *src, size_t n, size_t readable) {
    char *d = dst;
    size_t i = 0;
    /* Clean text: four blocks per test, stored whole. */
    while (n - i >= 4 * BLOCK) {
        __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(src + i + BLOCK));
        __m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 2 * BLOCK));
        __m128i v3 = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 3 * BLOCK));
        __m128i s0 = ssse3_special_bytes(v0), s1 = ssse3_special_bytes(v1);
        __m128i s2 = ssse3_special_bytes(v2), s3 = ssse3_special_bytes(v3);
        __m128i any = _mm_or_si128(_mm_or_si128(s0, s1), _mm_or_si128(s2, s3));
        if (_mm_movemask_epi8(any) == 0) {
            _mm_storeu_si128((__m128i *)(void *)d, v0);
            _mm_storeu_si128((__m128i *)(void *)(d + BLOCK), v1);
            _mm_storeu_si128((__m128i *)(void *)(d + 2 * BLOCK), v2);
            _mm_storeu_si128((__m128i *)(void *)(d + 3 * BLOCK), v3);
            d += 4 * BLOCK;
        } else {
            d = ssse3_escape_block(d, src + i, v0, s0, 1);
            d = ssse3_escape_block(d, src + i + BLOCK, v1, s1, 1);
            d = ssse3_escape_block(d, src + i + 2 * BLOCK, v2, s2, 1);
            d = ssse3_escape_block(d, src + i + 3 * BLOCK, v3, s3, readable - i >= 5 * BLOCK);
        }
        i += 4 * BLOCK;
    }
    for (; n - i >= BLOCK; i += BLOCK) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        d = ssse3_escape_block(d, src + i, v, ssse3_special_bytes(v), readable - i >= 2 * BLOCK);
    }
    if (i < n) {
        /* The last bytes may not be read past: they go through a
           zero-padded copy. 0 is not special, so each padding byte comes
           out as one byte at the end of the output and is dropped. */
        size_t m = n - i;
        char padded[BLOCK] = {0};
        memcpy(padded, src + i, m);
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)padded);
        d = ssse3_escape_block(d, padded, v, ssse3_special_bytes(v), 0) - (BLOCK - m);
    }
    return (size_t)(d - dst);
}

/* The bytes s[0..m), 0 < m < 16, as a block with zeros after them, read
   with overlapping loads that stay inside s[0..m). */
static inline SSSE3_FN __m128i load_partial(const char *s, size_t m) {
    uint64_t lo = 0, hi = 0;
    if (m >= 8) {
        memcpy(&lo, s, 8);
        memcpy(&hi, s + m - 8, 8);
        hi = (hi >> (8 * (15 - m))) >> 8; /* s[8..m): the overlap dropped */
    } else if (m >= 4) {
        uint32_t first, last;
        memcpy(&first, s, 4);
        memcpy(&last, s + m - 4, 4);
        lo = first | ((uint64_t)last >> (8 * (8 - m))) << 32;
    } else {
        lo = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[m / 2] << (8 * (m / 2)) |
             (uint64_t)(unsigned char)s[m - 1] << (8 * (m - 1));
    }
    return _mm_set_epi64x((long long)hi, (long long)lo);
}

/* The last m bytes (0 < m < 16) of the 16 at p moved to the front, the
   rest zero: one shuffle through a control read from a sliding window. */
static inline SSSE3_FN __m128i last_of_block(const char *p, size_t m) {
    static const uint8_t window[32] = {0,    1,    2,    3,    4,    5,    6,    7,
                                       8,    9,    10,   11,   12,   13,   14,   15,
                                       0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                       0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i control = _mm_loadu_si128((const __m128i *)(const void *)(window + 16 - m));
    return _mm_shuffle_epi8(v, control);
}

/* Every block is expanded, clean or not: a test per block would be a
   branch on where the special bytes are. The last partial block is
   zero-padded (0 is not special; each padding byte comes out as one byte
   at the end of the output and is dropped). */
SSSE3_FN size_t markup_escape_short_ssse3_(char *dst, const char *src, size_t n) {
    char *d = dst;
    size_t i = 0;
    for (; n - i >= BLOCK; i += BLOCK) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        d = ssse3_expand_block(d, v, ssse3_special_bytes(v));
    }
    if (i < n) {
        size_t m = n - i;
        __m128i v = n >= BLOCK ? last_of_block(src + n - BLOCK, m) : load_partial(src, m);
        d = ssse3_expand_block(d, v, ssse3_special_bytes(v)) - (BLOCK - m);
    }
    return (size_t)(d - dst);
}

static const markup_escape_kernels ssse3_kernels = {ssse3_escape, sse2_count, sse2_span,
                                                    markup_escape_short_ssse3_};

const markup_escape_kernels *markup_escape_sse2_kernels_(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("ssse3") ? &ssse3_kernels : &sse2_kernels;
}

const markup_escape_kernels *markup_escape_sse2_plain_kernels_(void) { return &sse2_kernels; }

#else

const markup_escape_kernels *markup_escape_sse2_kernels_(void) { return NULL; }
const markup_escape_kernels *markup_escape_sse2_plain_kernels_(void) { return NULL; }

#endif
