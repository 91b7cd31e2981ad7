/*
 * escape_avx2.c - 32-byte block kernels for the escaper.
 *
 * Special bytes are found with one shuffle: the table holds, at each low
 * nibble, the special byte with that nibble (& < > " ' all differ there),
 * and a byte is special when the lookup gives it back.
 *
 * A block with one or two special bytes, followed by 32 more bytes of
 * input, is written run by run: a 32-byte store of the bytes from each
 * run's start and an 8-byte store of each entity, each overwriting the
 * tail of the one before. Any other dirty block is expanded with
 * shuffles, in groups of four bytes. For each byte a
 * 4-byte record is built: the byte itself (or '&' when special), then
 * bytes 1..3 of its entity; a clean byte's slot 1 holds ';' for the
 * 5-byte entities of its group. A group's 8 key bits (special, and bit 4,
 * which tells < > from & " ') select a row of markup_escape_group_shuffle_
 * that picks the group's output from its records. No branch depends on
 * where the special bytes are.
 *
 * This file alone is compiled with -mavx2 -mbmi2; escape.c calls into it
 * only after __builtin_cpu_supports said yes to both.
 */
#include "escape_impl.h"

#if MARKUP_ESCAPE_X86 && defined(__AVX2__) && !defined(__BMI2__)
#  error "escape_avx2.c is built with -mavx2 -mbmi2 (libmarkup/CMakeLists.txt)"
#endif

#if MARKUP_ESCAPE_X86 && defined(__AVX2__)

#  include <immintrin.h>
#  include <string.h>

#  define BLOCK     32
/* From this length on the output is aligned first: below it the extra
   partial blocks at both ends cost more than the aligned stores save. */
#  define ALIGN_MIN 2048

/* Both 128-bit lanes get the same 16 bytes: shuffles work per lane. */
#  define LANES(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15)              \
      _mm256_setr_epi8(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b0,   \
                       b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15)

/* At each low nibble the special byte that has it, else 0x80, which no
   byte the lookup can return for (bytes >= 0x80 look up 0) is equal to. */
static inline __m256i special_bytes(__m256i v) {
    const __m256i specials = LANES(-128, -128, '"', -128, -128, -128, '&', '\'', -128, -128, -128,
                                   -128, '<', -128, '>', -128);
    return _mm256_cmpeq_epi8(_mm256_shuffle_epi8(specials, v), v);
}

static inline const uint8_t *group_row(uint32_t keys, int g) {
    return markup_escape_group_shuffle_[(keys >> (8 * g)) & 0xFF];
}

/* Escapes the 32 bytes v, whose special bytes are `special`, to d and
   returns the new end. */
static inline char *expand_block(char *d, __m256i v, __m256i special) {
    const __m256i entity1 = LANES(0, 0, '#', 0, 0, 0, 'a', '#', 0, 0, 0, 0, 'l', 0, 'g', 0);
    const __m256i entity2 = LANES(0, 0, '3', 0, 0, 0, 'm', '3', 0, 0, 0, 0, 't', 0, 't', 0);
    const __m256i entity3 = LANES(0, 0, '4', 0, 0, 0, 'p', '9', 0, 0, 0, 0, ';', 0, ';', 0);
    __m256i first = _mm256_blendv_epi8(v, _mm256_set1_epi8('&'), special);
    __m256i e1 =
        _mm256_blendv_epi8(_mm256_set1_epi8(';'), _mm256_shuffle_epi8(entity1, v), special);
    __m256i e2 = _mm256_shuffle_epi8(entity2, v);
    __m256i e3 = _mm256_shuffle_epi8(entity3, v);
    __m256i lo01 = _mm256_unpacklo_epi8(first, e1), hi01 = _mm256_unpackhi_epi8(first, e1);
    __m256i lo23 = _mm256_unpacklo_epi8(e2, e3), hi23 = _mm256_unpackhi_epi8(e2, e3);
    /* Lane 0 holds groups 0..3, lane 1 groups 4..7. */
    __m256i records[4] = {_mm256_unpacklo_epi16(lo01, lo23), _mm256_unpackhi_epi16(lo01, lo23),
                          _mm256_unpacklo_epi16(hi01, hi23), _mm256_unpackhi_epi16(hi01, hi23)};
    /* Key bits: special interleaved with the byte's bit 4 (moved to bit
       7), deposited bit by bit (pdep) rather than interleaved by shuffles,
       which the shuffle ports are short of: 4-8% at every density. */
    uint32_t special_bits = (uint32_t)_mm256_movemask_epi8(special);
    uint32_t bit4_bits = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(v, 3));
    uint64_t keys = _pdep_u64(special_bits, UINT64_C(0x5555555555555555)) |
                    _pdep_u64(bit4_bits, UINT64_C(0xAAAAAAAAAAAAAAAA));
    uint32_t keys0 = (uint32_t)keys, keys1 = (uint32_t)(keys >> 32);
    /* A group of four special bytes has no clean slot for ';' and may
       need more than 16 bytes: then every group takes a 32-byte store. */
    uint64_t pairs = keys & (keys >> 2);
    if (pairs & (pairs >> 4) & UINT64_C(0x0101010101010101)) {
        const __m256i semicolon = _mm256_set1_epi8(';');
        for (int g = 0; g < 8; g++) {
            const uint8_t *row = group_row(g < 4 ? keys0 : keys1, g & 3);
            __m256i rec = g < 4 ? _mm256_permute2x128_si256(records[g], records[g], 0x00)
                                : _mm256_permute2x128_si256(records[g & 3], records[g & 3], 0x11);
            __m256i control = _mm256_load_si256((const __m256i *)(const void *)row);
            __m256i out = _mm256_blendv_epi8(_mm256_shuffle_epi8(rec, control), semicolon, control);
            _mm256_storeu_si256((__m256i *)(void *)d, out);
            d += row[31];
        }
        return d;
    }
    /* Lane 0 (groups 0..3) and lane 1 (groups 4..7) are shuffled together;
       lane 1's output starts where lane 0's ends. */
    const uint8_t *rows0[4], *rows1[4];
    for (int g = 0; g < 4; g++) {
        rows0[g] = group_row(keys0, g);
        rows1[g] = group_row(keys1, g);
    }
    __m256i out[4];
    for (int g = 0; g < 4; g++) {
        __m256i control = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_load_si128((const __m128i *)(const void *)rows0[g])),
            _mm_load_si128((const __m128i *)(const void *)rows1[g]), 1);
        out[g] = _mm256_shuffle_epi8(records[g], control);
    }
    /* In output order: each store's tail is overwritten by the next. */
    for (int g = 0; g < 4; g++) {
        _mm_storeu_si128((__m128i *)(void *)d, _mm256_castsi256_si128(out[g]));
        d += rows0[g][31];
    }
    for (int g = 0; g < 4; g++) {
        _mm_storeu_si128((__m128i *)(void *)d, _mm256_extracti128_si256(out[g], 1));
        d += rows1[g][31];
    }
    return d;
}

/* One special byte: the bytes before it, its entity, the rest. Reads
   src[0..64). Inline: a third of the blocks take it at one special in 21
   to 32 bytes, where the call cost 4-8% (25% at one in 32, in one run). */
static inline char *escape_one_special(char *d, const char *src, __m256i v, uint32_t mask) {
    unsigned i = (unsigned)__builtin_ctz(mask);
    unsigned char c = (unsigned char)src[i];
    _mm256_storeu_si256((__m256i *)(void *)d, v);
    memcpy(d + i, markup_escape_entity_[c], 8);
    d += i + markup_escape_entity_len_[c];
    __m256i rest = _mm256_loadu_si256((const __m256i *)(const void *)(src + i + 1));
    _mm256_storeu_si256((__m256i *)(void *)d, rest);
    return d + (BLOCK - 1 - i);
}

/* Two special bytes: the bytes before the first, its entity, the bytes
   up to the second, its entity, the rest; three 32-byte stores and two
   entities. Reads src[0..64). At one special in 64 to one in 21 a third
   of the dirty blocks have two, where the shuffle expansion cost 1.2x-1.3x
   as much; on Latin-1 prose with a special every 22 bytes, 1.4x-1.6x. */
static inline char *escape_two_specials(char *d, const char *src, __m256i v, uint32_t mask) {
    unsigned i = (unsigned)__builtin_ctz(mask);
    unsigned j = (unsigned)__builtin_ctz(mask & (mask - 1));
    unsigned char first = (unsigned char)src[i], second = (unsigned char)src[j];
    _mm256_storeu_si256((__m256i *)(void *)d, v);
    memcpy(d + i, markup_escape_entity_[first], 8);
    char *after_first = d + i + markup_escape_entity_len_[first]; /* where src[i + 1] goes */
    _mm256_storeu_si256((__m256i *)(void *)after_first,
                        _mm256_loadu_si256((const __m256i *)(const void *)(src + i + 1)));
    char *at_second = after_first + (j - i - 1);
    memcpy(at_second, markup_escape_entity_[second], 8);
    char *after_second = at_second + markup_escape_entity_len_[second];
    _mm256_storeu_si256((__m256i *)(void *)after_second,
                        _mm256_loadu_si256((const __m256i *)(const void *)(src + j + 1)));
    return after_second + (BLOCK - 1 - j);
}

/* Escapes the 32 bytes v at src, whose special bytes are `special`. With
   may_read_on, src[0..64) may be read; without, src is not read. */
static inline char *escape_block(char *d, const char *src, __m256i v, __m256i special,
                                 int may_read_on) {
    uint32_t mask = (uint32_t)_mm256_movemask_epi8(special);
    if (mask == 0) {
        _mm256_storeu_si256((__m256i *)(void *)d, v);
        return d + BLOCK;
    }
    if (may_read_on) {
        uint32_t rest = mask & (mask - 1);
        if (rest == 0) return escape_one_special(d, src, v, mask);
        if ((rest & (rest - 1)) == 0) return escape_two_specials(d, src, v, mask);
    }
    return expand_block(d, v, special);
}

/* Partial blocks are padded with 0, which is not special: each padding
   byte comes out as one byte at the end of the block's output and is
   dropped. */

/* 0xFF in bytes 0..m-1 (m <= 32), the rest 0. */
static inline __m256i first_mask(size_t m) {
    const __m256i index =
        _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                         21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
    return _mm256_cmpgt_epi8(_mm256_set1_epi8((char)m), index);
}

/* Bytes 0..m-1 of v (m <= 32), the rest 0. */
static inline __m256i first_bytes(__m256i v, size_t m) {
    return _mm256_and_si256(v, first_mask(m));
}

/* The last m bytes of w (0 < m < 32) moved to the front, the rest 0: each
   lane takes bytes from itself and from the lane above, through controls
   read from a sliding window. */
static inline __m256i last_bytes(__m256i w, size_t m) {
    static const uint8_t window[64] = {
        0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
        0x80, 0x80, 0x80, 0,    1,    2,    3,    4,    5,    6,    7,    8,    9,
        10,   11,   12,   13,   14,   15,   0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
        0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
        0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
    size_t shift = BLOCK - m;
    __m256i above = _mm256_permute2x128_si256(w, w, 0x81); /* lane 1 to lane 0, 0 to lane 1 */
    __m256i from_same = _mm256_broadcastsi128_si256(
        _mm_loadu_si128((const __m128i *)(const void *)(window + 16 + shift)));
    __m256i from_above = _mm256_broadcastsi128_si256(
        _mm_loadu_si128((const __m128i *)(const void *)(window + shift)));
    return _mm256_or_si256(_mm256_shuffle_epi8(w, from_same),
                           _mm256_shuffle_epi8(above, from_above));
}

static size_t avx2_escape(char *dst, const char *src, size_t n, size_t readable) {
    char *d = dst;
    size_t i = 0;
    if (n >= ALIGN_MIN) {
        /* Clean text is then stored to 32-byte aligned addresses (stores
           that cross a cache line cost twice): the first 1..31 bytes go
           alone. */
        size_t head = (size_t)(-(uintptr_t)d) & (BLOCK - 1);
        if (head != 0) {
            __m256i v = first_bytes(_mm256_loadu_si256((const __m256i *)(const void *)src), head);
            d = escape_block(d, src, v, special_bytes(v), 0) - (BLOCK - head);
            i = head;
        }
    }
    /* Clean text: four blocks per test, stored whole. */
    while (n - i >= 4 * BLOCK) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(src + i + BLOCK));
        __m256i v2 = _mm256_loadu_si256((const __m256i *)(const void *)(src + i + 2 * BLOCK));
        __m256i v3 = _mm256_loadu_si256((const __m256i *)(const void *)(src + i + 3 * BLOCK));
        __m256i s0 = special_bytes(v0), s1 = special_bytes(v1);
        __m256i s2 = special_bytes(v2), s3 = special_bytes(v3);
        __m256i any = _mm256_or_si256(_mm256_or_si256(s0, s1), _mm256_or_si256(s2, s3));
        if (_mm256_movemask_epi8(any) == 0) {
            _mm256_storeu_si256((__m256i *)(void *)d, v0);
            _mm256_storeu_si256((__m256i *)(void *)(d + BLOCK), v1);
            _mm256_storeu_si256((__m256i *)(void *)(d + 2 * BLOCK), v2);
            _mm256_storeu_si256((__m256i *)(void *)(d + 3 * BLOCK), v3);
            d += 4 * BLOCK;
        } else {
            d = escape_block(d, src + i, v0, s0, 1);
            d = escape_block(d, src + i + BLOCK, v1, s1, 1);
            d = escape_block(d, src + i + 2 * BLOCK, v2, s2, 1);
            d = escape_block(d, src + i + 3 * BLOCK, v3, s3, readable - i >= 5 * BLOCK);
        }
        i += 4 * BLOCK;
    }
    for (; n - i >= BLOCK; i += BLOCK) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        d = escape_block(d, src + i, v, special_bytes(v), readable - i >= 2 * BLOCK);
    }
    if (i < n) {
        /* The last 1..31 bytes: read on when the input goes on, else
           taken from the block that ends with them, else (short input)
           from a copy. */
        size_t m = n - i;
        __m256i v;
        if (readable - i >= BLOCK) {
            v = first_bytes(_mm256_loadu_si256((const __m256i *)(const void *)(src + i)), m);
        } else if (n >= BLOCK) {
            v = last_bytes(_mm256_loadu_si256((const __m256i *)(const void *)(src + n - BLOCK)), m);
        } else {
            char padded[BLOCK] = {0};
            memcpy(padded, src + i, m);
            v = _mm256_loadu_si256((const __m256i *)(const void *)padded);
        }
        d = escape_block(d, src + i, v, special_bytes(v), 0) - (BLOCK - m);
    }
    return (size_t)(d - dst);
}

static inline __m256i load_block(const char *p) {
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

static inline uint32_t special_mask(const char *p) {
    return (uint32_t)_mm256_movemask_epi8(special_bytes(load_block(p)));
}

static size_t avx2_count(const char *src, size_t n) {
    size_t count = 0, i = 0;
    while (n - i >= 4 * BLOCK) {
        /* Per-lane byte counters, up to 4 a step (a special lane is -1),
           summed before they can wrap: four blocks a step, since one a
           step left a third of the time on the loop. */
        size_t steps = (n - i) / (4 * BLOCK);
        if (steps > 63) steps = 63;
        __m256i acc = _mm256_setzero_si256();
        for (size_t k = 0; k < steps; k++, i += 4 * BLOCK) {
            __m256i s0 = special_bytes(load_block(src + i));
            __m256i s1 = special_bytes(load_block(src + i + BLOCK));
            __m256i s2 = special_bytes(load_block(src + i + 2 * BLOCK));
            __m256i s3 = special_bytes(load_block(src + i + 3 * BLOCK));
            __m256i step = _mm256_add_epi8(_mm256_add_epi8(s0, s1), _mm256_add_epi8(s2, s3));
            acc = _mm256_sub_epi8(acc, step);
        }
        __m256i sums = _mm256_sad_epu8(acc, _mm256_setzero_si256());
        count += (size_t)_mm256_extract_epi64(sums, 0) + (size_t)_mm256_extract_epi64(sums, 1) +
                 (size_t)_mm256_extract_epi64(sums, 2) + (size_t)_mm256_extract_epi64(sums, 3);
    }
    if (n < BLOCK) {
        for (; i < n; i++) count += markup_escape_entity_len_[(unsigned char)src[i]] != 1;
        return count;
    }
    /* Up to three blocks, then the last one without the bytes already
       counted. */
    __m256i acc = _mm256_setzero_si256();
    for (; n - i >= BLOCK; i += BLOCK)
        acc = _mm256_sub_epi8(acc, special_bytes(load_block(src + i)));
    if (i < n) {
        __m256i last = special_bytes(load_block(src + n - BLOCK));
        acc = _mm256_sub_epi8(acc, _mm256_andnot_si256(first_mask(BLOCK - (n - i)), last));
    }
    __m256i sums = _mm256_sad_epu8(acc, _mm256_setzero_si256());
    return count + (size_t)_mm256_extract_epi64(sums, 0) + (size_t)_mm256_extract_epi64(sums, 1) +
           (size_t)_mm256_extract_epi64(sums, 2) + (size_t)_mm256_extract_epi64(sums, 3);
}

static size_t avx2_span(const char *src, size_t n) {
    size_t i = 0;
    for (; n - i >= 4 * BLOCK; i += 4 * BLOCK) {
        __m256i s0 = special_bytes(load_block(src + i));
        __m256i s1 = special_bytes(load_block(src + i + BLOCK));
        __m256i s2 = special_bytes(load_block(src + i + 2 * BLOCK));
        __m256i s3 = special_bytes(load_block(src + i + 3 * BLOCK));
        __m256i any = _mm256_or_si256(_mm256_or_si256(s0, s1), _mm256_or_si256(s2, s3));
        if (_mm256_movemask_epi8(any) != 0) {
            uint64_t front = (uint32_t)_mm256_movemask_epi8(s0) |
                             (uint64_t)(uint32_t)_mm256_movemask_epi8(s1) << 32;
            if (front != 0) return i + (size_t)__builtin_ctzll(front);
            uint64_t back = (uint32_t)_mm256_movemask_epi8(s2) |
                            (uint64_t)(uint32_t)_mm256_movemask_epi8(s3) << 32;
            return i + 2 * BLOCK + (size_t)__builtin_ctzll(back);
        }
    }
    for (; n - i >= BLOCK; i += BLOCK) {
        uint32_t mask = special_mask(src + i);
        if (mask != 0) return i + (size_t)__builtin_ctz(mask);
    }
    if (i < n && n >= BLOCK) { /* the last block, without the bytes already seen */
        uint32_t mask = special_mask(src + n - BLOCK) >> (BLOCK - (n - i));
        return mask != 0 ? i + (size_t)__builtin_ctz(mask) : n;
    }
    for (; i < n; i++)
        if (markup_escape_entity_len_[(unsigned char)src[i]] != 1) return i;
    return n;
}

static const markup_escape_kernels avx2_kernels = {avx2_escape, avx2_count, avx2_span,
                                                   markup_escape_short_ssse3_};

const markup_escape_kernels *markup_escape_avx2_kernels_(void) { return &avx2_kernels; }

#else

const markup_escape_kernels *markup_escape_avx2_kernels_(void) { return NULL; }

#endif
