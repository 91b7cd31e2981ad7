/*
 * escape_wide.c - the escaper for text held as 16- or 32-bit code units
 * (UTF-16, UTF-32, and CPython's 2- and 4-byte str storage).
 *
 * The five specials are ASCII, so a unit is escaped exactly when its whole
 * value is one of them: U+0126 or U+10026 share a low byte with '&' and are
 * copied like any other unit. Surrogates are units like any other too.
 *
 * The caller sizes the output with markup_escape_u16_size (one pass) and the
 * writer fills it (a second pass), so a binding can write straight into the
 * storage of its final string. The writer never stores past `cap`: the
 * block kernel's overlapping stores are used only while a whole worst-case
 * block fits, and the last blocks take an exact path.
 *
 * The SSE2 kernels narrow 16 units to 16 bytes with saturation, where a
 * unit above 0xFF becomes 0xFF or 0x00 and so can never look special, and
 * test the bytes with the byte escaper's three compares. The entities come
 * from the byte escaper's table, widened as they are stored, but their
 * lengths come from the compare masks: with a table load on the chain of
 * output positions that every store waits for, the kernel ran at half the
 * speed on prose with a special every 20 characters. The AVX2 kernels size
 * 32 units at a time and write 64-byte blocks (32 or 16 units) for the
 * bulk of the text; the SSE2 kernel writes the last blocks exactly.
 *
 * Tried and dropped: expanding every dirty block with the byte escaper's
 * group shuffles (low bytes through the entity records, high bytes beside
 * them) took twice as long as a store per special at a special every 20
 * units, and a second unconditional step per block (to spare the branch
 * predictor) cost more than the mispredictions it saved.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "escape_impl.h"
#include "markup/binding.h"

#if MARKUP_ESCAPE_X86
#  include <immintrin.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#  define ALWAYS_INLINE inline
#endif

/* Every kernel is written once for a unit width `w` (2 or 4 bytes) and
   forced inline into a function per width, where `w` is a constant. */

/* A writer's answer when dst[0..cap) cannot hold the escaped text. */
#define NO_ROOM SIZE_MAX

static ALWAYS_INLINE uint32_t unit_at(const void *s, size_t i, size_t w) {
    if (w == 2) return ((const uint16_t *)s)[i];
    return ((const uint32_t *)s)[i];
}

static ALWAYS_INLINE void put_unit(void *d, size_t i, uint32_t c, size_t w) {
    if (w == 2)
        ((uint16_t *)d)[i] = (uint16_t)c;
    else
        ((uint32_t *)d)[i] = c;
}

static ALWAYS_INLINE const char *units(const void *s, size_t i, size_t w) {
    return (const char *)s + i * w;
}

/* How many units unit `c` becomes: 1, or 4 for < >, 5 for & " '. */
static ALWAYS_INLINE size_t escaped_units(uint32_t c) {
    return c < 0x80 ? markup_escape_entity_len_[c] : 1;
}

/* n + 3 * lt_gt + 4 * others, or SIZE_MAX when that overflows (no array
   that long can exist, so the caller's allocation fails cleanly). */
static size_t escaped_size(size_t n, size_t lt_gt, size_t others) {
    if (lt_gt > (SIZE_MAX - n) / 3) return SIZE_MAX;
    size_t size = n + 3 * lt_gt;
    if (others > (SIZE_MAX - size) / 4) return SIZE_MAX;
    return size + 4 * others;
}

/* ---- portable kernels -------------------------------------------------- */

static ALWAYS_INLINE size_t scalar_size(const void *s, size_t n, size_t w) {
    size_t lt_gt = 0, others = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = escaped_units(unit_at(s, i, w));
        lt_gt += len == 4;
        others += len == 5;
    }
    return escaped_size(n, lt_gt, others);
}

/* Writes the entity of the special `c` (whole units, nothing past them). */
static ALWAYS_INLINE void put_entity(void *d, size_t o, unsigned char c, size_t len, size_t w) {
    for (size_t k = 0; k < len; k++)
        put_unit(d, o + k, (unsigned char)markup_escape_entity_[c][k], w);
}

/* Escapes s[0..n) into d[0..cap) unit by unit; returns the units written
   or NO_ROOM. */
static ALWAYS_INLINE size_t scalar_escape(void *d, size_t cap, const void *s, size_t n, size_t w) {
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = unit_at(s, i, w);
        size_t len = escaped_units(c);
        if (cap - o < len) return NO_ROOM;
        if (len == 1)
            put_unit(d, o, c, w);
        else
            put_entity(d, o, (unsigned char)c, len, w);
        o += len;
    }
    return o;
}

/* ---- SSE2 kernels ------------------------------------------------------ */

#if MARKUP_ESCAPE_X86

#  define BLOCK 16

/* The 16 units at p as 16 bytes: a unit up to 0xFF keeps its value, a
   larger one saturates to 0xFF (or to 0x00 when it reads as negative). */
static ALWAYS_INLINE __m128i load_narrow(const char *p, size_t w) {
    const __m128i *v = (const __m128i *)(const void *)p;
    if (w == 2) return _mm_packus_epi16(_mm_loadu_si128(v), _mm_loadu_si128(v + 1));
    __m128i lo = _mm_packs_epi32(_mm_loadu_si128(v), _mm_loadu_si128(v + 1));
    __m128i hi = _mm_packs_epi32(_mm_loadu_si128(v + 2), _mm_loadu_si128(v + 3));
    return _mm_packus_epi16(lo, hi);
}

/* v|2 == '>' finds < and >; v|1 == '\'' finds & and '. */
static ALWAYS_INLINE __m128i lt_gt_bytes(__m128i v) {
    return _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x02)), _mm_set1_epi8(0x3E));
}

static ALWAYS_INLINE __m128i amp_apos_quot_bytes(__m128i v) {
    __m128i amp_apos = _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x01)), _mm_set1_epi8(0x27));
    return _mm_or_si128(amp_apos, _mm_cmpeq_epi8(v, _mm_set1_epi8(0x22)));
}

/* Bit k set when unit k of the block at p is special; the same bits for
   & " ' alone (whose entities are 5 units, 4 for < >) go to *five. */
static ALWAYS_INLINE unsigned special_masks(const char *p, size_t w, unsigned *five) {
    __m128i v = load_narrow(p, w);
    __m128i long_ones = amp_apos_quot_bytes(v);
    *five = (unsigned)_mm_movemask_epi8(long_ones);
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(lt_gt_bytes(v), long_ones));
}

static inline size_t sum_byte_lanes(__m128i acc) {
    __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
    return (size_t)_mm_cvtsi128_si64(sums) +
           (size_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
}

static ALWAYS_INLINE size_t sse2_size(const void *s, size_t n, size_t w) {
    size_t lt_gt = 0, others = 0, i = 0;
    while (n - i >= BLOCK) {
        /* Per-lane byte counters (a match subtracts -1), summed before
           they can wrap. */
        size_t blocks = (n - i) / BLOCK;
        if (blocks > 255) blocks = 255;
        __m128i acc_lt_gt = _mm_setzero_si128(), acc_others = _mm_setzero_si128();
        for (size_t k = 0; k < blocks; k++, i += BLOCK) {
            __m128i v = load_narrow(units(s, i, w), w);
            acc_lt_gt = _mm_sub_epi8(acc_lt_gt, lt_gt_bytes(v));
            acc_others = _mm_sub_epi8(acc_others, amp_apos_quot_bytes(v));
        }
        lt_gt += sum_byte_lanes(acc_lt_gt);
        others += sum_byte_lanes(acc_others);
    }
    for (; i < n; i++) {
        size_t len = escaped_units(unit_at(s, i, w));
        lt_gt += len == 4;
        others += len == 5;
    }
    return escaped_size(n, lt_gt, others);
}

/* Stores the BLOCK units at src to d (no more, no less). */
static ALWAYS_INLINE void copy_block(char *d, const char *src, size_t w) {
    for (size_t k = 0; k < BLOCK * w; k += 16)
        _mm_storeu_si128((__m128i *)(void *)(d + k),
                         _mm_loadu_si128((const __m128i *)(const void *)(src + k)));
}

/* Stores the entity of `c` widened to 8 units; the units past its length
   are scribbled on. */
static ALWAYS_INLINE void store_entity(char *d, unsigned char c, size_t w) {
    __m128i bytes = _mm_loadl_epi64((const __m128i *)(const void *)markup_escape_entity_[c]);
    __m128i u16 = _mm_unpacklo_epi8(bytes, _mm_setzero_si128());
    if (w == 2) {
        _mm_storeu_si128((__m128i *)(void *)d, u16);
    } else {
        _mm_storeu_si128((__m128i *)(void *)d, _mm_unpacklo_epi16(u16, _mm_setzero_si128()));
        _mm_storeu_si128((__m128i *)(void *)(d + 16), _mm_unpackhi_epi16(u16, _mm_setzero_si128()));
    }
}

/* Writes the clean run from *pos up to the lowest bit of `mask` as a whole
   block loaded from *pos, then the special there as an 8-unit entity, and
   returns the new output length. Bit BLOCK of `mask` is a sentinel: taking
   it writes the run to the block's end and no entity (the store is
   scribble that later stores overwrite), so a clean block and a block's
   first special take the same branch-free path. */
static ALWAYS_INLINE size_t escape_step(char *d, size_t o, const char *src, size_t *pos,
                                        unsigned *mask, unsigned five, size_t w) {
    size_t k = (size_t)__builtin_ctz(*mask);
    size_t special = k < BLOCK;
    copy_block(d + o * w, src + *pos * w, w);
    o += k - *pos;
    /* At k == BLOCK this reads the next block's first unit, unused. */
    store_entity(d + o * w, (unsigned char)(unit_at(src, k, w) & 0x7F), w);
    o += 4 * special + (five >> k & 1);
    *pos = k + special;
    *mask &= *mask - 1;
    return o;
}

/* One block, clean or not, with overlapping stores. Reads up to
   2 * BLOCK units from src and stores up to BLOCK units past the block's
   escaped end (at most 6 * BLOCK units from d). Returns the units written. */
static ALWAYS_INLINE size_t escape_block_fast(char *d, const char *src, unsigned mask,
                                              unsigned five, size_t w) {
    size_t o = 0, pos = 0;
    mask |= 1u << BLOCK;
    o = escape_step(d, o, src, &pos, &mask, five, w);
    while (mask & ((1u << BLOCK) - 1)) o = escape_step(d, o, src, &pos, &mask, five, w);
    copy_block(d + o * w, src + pos * w, w);
    return o + (BLOCK - pos);
}

/* The first r units at src, whose specials are the bits of `mask`,
   written exactly into d[0..room); returns the units written or NO_ROOM. */
static ALWAYS_INLINE size_t escape_block_exact(char *d, size_t room, const char *src, size_t r,
                                               unsigned mask, size_t w) {
    size_t o = 0, pos = 0;
    while (mask != 0) {
        size_t k = (size_t)__builtin_ctz(mask);
        unsigned char c = (unsigned char)unit_at(src, k, w);
        size_t len = markup_escape_entity_len_[c];
        if (room - o < (k - pos) + len) return NO_ROOM;
        memcpy(d + o * w, src + pos * w, (k - pos) * w);
        o += k - pos;
        put_entity(d, o, c, len, w);
        o += len;
        pos = k + 1;
        mask &= mask - 1;
    }
    if (room - o < r - pos) return NO_ROOM;
    memcpy(d + o * w, src + pos * w, (r - pos) * w);
    return o + (r - pos);
}

static ALWAYS_INLINE size_t sse2_escape(void *dst, size_t cap, const void *s, size_t n, size_t w) {
    char *d = dst;
    size_t i = 0, o = 0;
    /* Two blocks per test: a clean pair is stored whole, other blocks go
       through the block kernel, which needs two blocks of input from where
       it starts and 6 * BLOCK units of room. */
    while (n - i >= 3 * BLOCK && cap - o >= 12 * BLOCK) {
        const char *src = units(s, i, w);
        unsigned five0, five1;
        unsigned mask0 = special_masks(src, w, &five0);
        unsigned mask1 = special_masks(src + BLOCK * w, w, &five1);
        if ((mask0 | mask1) == 0) {
            copy_block(d + o * w, src, w);
            copy_block(d + (o + BLOCK) * w, src + BLOCK * w, w);
            o += 2 * BLOCK;
        } else {
            o += escape_block_fast(d + o * w, src, mask0, five0, w);
            o += escape_block_fast(d + o * w, src + BLOCK * w, mask1, five1, w);
        }
        i += 2 * BLOCK;
    }
    /* What the pair loop leaves (under three blocks of input, or the last
       12 blocks' worth of room): block by block, each written exactly. */
    while (n - i >= BLOCK) {
        const char *src = units(s, i, w);
        unsigned five, mask = special_masks(src, w, &five);
        size_t r = escape_block_exact(d + o * w, cap - o, src, BLOCK, mask, w);
        if (r == NO_ROOM) return NO_ROOM;
        o += r;
        i += BLOCK;
    }
    if (i < n) {
        /* The last units, through a zero-padded copy so nothing past the
           input is read (0 is not special). */
        char padded[BLOCK * 4] = {0};
        memcpy(padded, units(s, i, w), (n - i) * w);
        unsigned five, mask = special_masks(padded, w, &five);
        size_t r = escape_block_exact(d + o * w, cap - o, units(s, i, w), n - i, mask, w);
        if (r == NO_ROOM) return NO_ROOM;
        o += r;
    }
    return o;
}

/* ---- AVX2 kernels -------------------------------------------------------- */

/* The SSE2 kernels' algorithm on wider blocks, compiled for AVX2 and only
   reached after the CPU said it has it. The narrowing packs work
   within 128-bit lanes, so the bytes are put back in unit order by one
   permute; the specials are found by a lookup at each low nibble. */

/* BMI1 and BMI2 (tzcnt, blsr, shrx) take a sixth of the writer's
   instructions per special; the dispatcher asks the CPU for all three. */
#  define AVX2_FN    __attribute__((target("avx2,bmi,bmi2")))
/* Units per block of the sizing pass. */
#  define WIDE_BLOCK 32

/* The 32 units at p as 32 bytes, in order, saturated as in load_narrow. */
static ALWAYS_INLINE AVX2_FN __m256i avx2_load_narrow(const char *p, size_t w) {
    const __m256i *v = (const __m256i *)(const void *)p;
    if (w == 2) {
        __m256i packed = _mm256_packus_epi16(_mm256_loadu_si256(v), _mm256_loadu_si256(v + 1));
        return _mm256_permute4x64_epi64(packed, 0xD8);
    }
    __m256i lo = _mm256_packs_epi32(_mm256_loadu_si256(v), _mm256_loadu_si256(v + 1));
    __m256i hi = _mm256_packs_epi32(_mm256_loadu_si256(v + 2), _mm256_loadu_si256(v + 3));
    /* Dwords now hold units 0-3, 8-11, 16-19, 24-27, 4-7, 12-15, ... */
    return _mm256_permutevar8x32_epi32(_mm256_packus_epi16(lo, hi),
                                       _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* At each low nibble the special byte that has it, else 0x80; a byte
   is special when the lookup gives it back (a byte >= 0x80 looks up 0). */
static ALWAYS_INLINE AVX2_FN __m256i avx2_special_bytes(__m256i v) {
    const __m256i specials = _mm256_setr_epi8(
        -128, -128, '"', -128, -128, -128, '&', '\'', -128, -128, -128, -128, '<', -128, '>', -128,
        -128, -128, '"', -128, -128, -128, '&', '\'', -128, -128, -128, -128, '<', -128, '>', -128);
    return _mm256_cmpeq_epi8(_mm256_shuffle_epi8(specials, v), v);
}

/* Bit k set when unit k of the block at p is special; the same bits for
   & " ' alone (no bit 4, unlike < >) go to *five. */
static ALWAYS_INLINE AVX2_FN uint64_t avx2_special_masks(const char *p, size_t w, uint64_t *five) {
    __m256i v = avx2_load_narrow(p, w);
    __m256i special = avx2_special_bytes(v);
    uint32_t all = (uint32_t)_mm256_movemask_epi8(special);
    uint32_t bit4 = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(v, 3));
    *five = all & ~bit4;
    return all;
}

/* The 64 units at p as 64 bytes in two registers, in no particular
   order (a sum does not need it), saturated as in load_narrow. */
static ALWAYS_INLINE AVX2_FN void avx2_load_narrow_unordered(const char *p, size_t w, __m256i *a,
                                                             __m256i *b) {
    const __m256i *v = (const __m256i *)(const void *)p;
    if (w == 2) {
        *a = _mm256_packus_epi16(_mm256_loadu_si256(v), _mm256_loadu_si256(v + 1));
        *b = _mm256_packus_epi16(_mm256_loadu_si256(v + 2), _mm256_loadu_si256(v + 3));
        return;
    }
    __m256i q[4];
    for (int k = 0; k < 4; k++)
        q[k] = _mm256_packs_epi32(_mm256_loadu_si256(v + 2 * k), _mm256_loadu_si256(v + 2 * k + 1));
    *a = _mm256_packus_epi16(q[0], q[1]);
    *b = _mm256_packus_epi16(q[2], q[3]);
}

static ALWAYS_INLINE AVX2_FN size_t avx2_size(const void *s, size_t n, size_t w) {
    /* What each special adds: 3 units for < >, 4 for & " '. */
    const __m256i extra_units = _mm256_setr_epi8(0, 0, 4, 0, 0, 0, 4, 4, 0, 0, 0, 0, 3, 0, 3, 0, 0,
                                                 0, 4, 0, 0, 0, 4, 4, 0, 0, 0, 0, 3, 0, 3, 0);
    size_t extra = 0, i = 0;
    while (n - i >= 2 * WIDE_BLOCK) {
        /* Per-lane byte counters, at most 8 a step, summed before they
           can wrap. Two blocks a step, narrowed without putting the units
           back in order: 1.25x (4-byte) to 1.5x (2-byte) the speed of one
           ordered block a step. */
        size_t steps = (n - i) / (2 * WIDE_BLOCK);
        if (steps > 31) steps = 31;
        __m256i acc = _mm256_setzero_si256();
        for (size_t k = 0; k < steps; k++, i += 2 * WIDE_BLOCK) {
            __m256i a, b;
            avx2_load_narrow_unordered(units(s, i, w), w, &a, &b);
            __m256i grow_a = _mm256_shuffle_epi8(extra_units, a);
            __m256i grow_b = _mm256_shuffle_epi8(extra_units, b);
            grow_a = _mm256_and_si256(avx2_special_bytes(a), grow_a);
            grow_b = _mm256_and_si256(avx2_special_bytes(b), grow_b);
            acc = _mm256_add_epi8(acc, _mm256_add_epi8(grow_a, grow_b));
        }
        __m256i sums = _mm256_sad_epu8(acc, _mm256_setzero_si256());
        extra += (size_t)_mm256_extract_epi64(sums, 0) + (size_t)_mm256_extract_epi64(sums, 1) +
                 (size_t)_mm256_extract_epi64(sums, 2) + (size_t)_mm256_extract_epi64(sums, 3);
    }
    /* The last units through the SSE2 kernel, whose SIZE_MAX (overflow)
       is kept; the total is checked again as it is added. */
    size_t tail = sse2_size(units(s, i, w), n - i, w);
    if (tail == SIZE_MAX || extra > SIZE_MAX - i - tail) return SIZE_MAX;
    return i + extra + tail;
}

/* The writer's blocks are 64 bytes, two AVX2 stores: 32 units of text
   for 2-byte text, 16 for 4-byte text (where 32-unit blocks took four
   stores per special and ran slower on dense text). */
#  define ESCAPE_BLOCK(w) (64 / (w))

/* Special bits (and *five) of the ESCAPE_BLOCK(w) units at p. */
static ALWAYS_INLINE AVX2_FN uint64_t avx2_block_masks(const char *p, size_t w, uint64_t *five) {
    if (w == 2) return avx2_special_masks(p, w, five);
    unsigned five16, mask = special_masks(p, w, &five16);
    *five = five16;
    return mask;
}

/* Stores the ESCAPE_BLOCK(w) units at src to d (no more, no less). */
static ALWAYS_INLINE AVX2_FN void avx2_copy_block(char *d, const char *src, size_t w) {
    for (size_t k = 0; k < ESCAPE_BLOCK(w) * w; k += 32)
        _mm256_storeu_si256((__m256i *)(void *)(d + k),
                            _mm256_loadu_si256((const __m256i *)(const void *)(src + k)));
}

/* Stores the entity of `c` widened to 8 units; the units past its length
   are scribbled on. */
static ALWAYS_INLINE AVX2_FN void avx2_store_entity(char *d, unsigned char c, size_t w) {
    __m128i bytes = _mm_loadl_epi64((const __m128i *)(const void *)markup_escape_entity_[c]);
    if (w == 2)
        _mm_storeu_si128((__m128i *)(void *)d, _mm_cvtepu8_epi16(bytes));
    else
        _mm256_storeu_si256((__m256i *)(void *)d, _mm256_cvtepu8_epi32(bytes));
}

/* escape_block_fast on a block of ESCAPE_BLOCK(w) units, one step per
   special and no sentinel step: `out` runs ahead of the input by the
   units the entities so far have added, so unit k goes to out + k. Every
   bit of `mask` is a special (below 0x80), so its unit indexes the entity
   table as it is. Reads up to 2 * ESCAPE_BLOCK(w) units and stores up to
   ESCAPE_BLOCK(w) units past the block's escaped end. */
static ALWAYS_INLINE AVX2_FN size_t avx2_escape_block(char *d, const char *src, uint64_t mask,
                                                      uint64_t five, size_t w) {
    char *out = d;
    size_t pos = 0;
    while (mask != 0) {
        size_t k = (size_t)__builtin_ctzll(mask);
        mask &= mask - 1;
        avx2_copy_block(out + pos * w, src + pos * w, w);
        avx2_store_entity(out + k * w, (unsigned char)unit_at(src, k, w), w);
        out += (3 + (five >> k & 1)) * w;
        pos = k + 1;
    }
    avx2_copy_block(out + pos * w, src + pos * w, w);
    return (size_t)(out - d) / w + ESCAPE_BLOCK(w);
}

static ALWAYS_INLINE AVX2_FN size_t avx2_escape(void *dst, size_t cap, const void *s, size_t n,
                                                size_t w) {
    char *d = dst;
    size_t i = 0, o = 0;
    /* As sse2_escape: a clean pair of blocks is stored whole; the block
       kernel needs two blocks of input from where it starts and
       6 * ESCAPE_BLOCK(w) units of room. */
    while (n - i >= 3 * ESCAPE_BLOCK(w) && cap - o >= 12 * ESCAPE_BLOCK(w)) {
        const char *src = units(s, i, w);
        uint64_t five0, five1;
        uint64_t mask0 = avx2_block_masks(src, w, &five0);
        uint64_t mask1 = avx2_block_masks(src + ESCAPE_BLOCK(w) * w, w, &five1);
        if ((mask0 | mask1) == 0) {
            avx2_copy_block(d + o * w, src, w);
            avx2_copy_block(d + (o + ESCAPE_BLOCK(w)) * w, src + ESCAPE_BLOCK(w) * w, w);
            o += 2 * ESCAPE_BLOCK(w);
        } else {
            o += avx2_escape_block(d + o * w, src, mask0, five0, w);
            o += avx2_escape_block(d + o * w, src + ESCAPE_BLOCK(w) * w, mask1, five1, w);
        }
        i += 2 * ESCAPE_BLOCK(w);
    }
    /* The rest, written exactly by the SSE2 kernel. */
    size_t rest = sse2_escape(d + o * w, cap - o, units(s, i, w), n - i, w);
    return rest == NO_ROOM ? NO_ROOM : o + rest;
}

#endif /* MARKUP_ESCAPE_X86 */

/* ---- one function per width and kernel --------------------------------- */

static size_t scalar_size_u16(const void *s, size_t n) { return scalar_size(s, n, 2); }
static size_t scalar_size_u32(const void *s, size_t n) { return scalar_size(s, n, 4); }
static size_t scalar_escape_u16(void *d, size_t cap, const void *s, size_t n) {
    return scalar_escape(d, cap, s, n, 2);
}
static size_t scalar_escape_u32(void *d, size_t cap, const void *s, size_t n) {
    return scalar_escape(d, cap, s, n, 4);
}

#if MARKUP_ESCAPE_X86
static size_t sse2_size_u16(const void *s, size_t n) { return sse2_size(s, n, 2); }
static size_t sse2_size_u32(const void *s, size_t n) { return sse2_size(s, n, 4); }
static size_t sse2_escape_u16(void *d, size_t cap, const void *s, size_t n) {
    return sse2_escape(d, cap, s, n, 2);
}
static size_t sse2_escape_u32(void *d, size_t cap, const void *s, size_t n) {
    return sse2_escape(d, cap, s, n, 4);
}
static AVX2_FN size_t avx2_size_u16(const void *s, size_t n) { return avx2_size(s, n, 2); }
static AVX2_FN size_t avx2_size_u32(const void *s, size_t n) { return avx2_size(s, n, 4); }
static AVX2_FN size_t avx2_escape_u16(void *d, size_t cap, const void *s, size_t n) {
    return avx2_escape(d, cap, s, n, 2);
}
static AVX2_FN size_t avx2_escape_u32(void *d, size_t cap, const void *s, size_t n) {
    return avx2_escape(d, cap, s, n, 4);
}
#endif

typedef struct wide_kernels {
    size_t (*size)(const void *s, size_t n);
    size_t (*escape)(void *d, size_t cap, const void *s, size_t n);
} wide_kernels;

static const wide_kernels scalar_u16 = {scalar_size_u16, scalar_escape_u16};
static const wide_kernels scalar_u32 = {scalar_size_u32, scalar_escape_u32};
#if MARKUP_ESCAPE_X86
static const wide_kernels sse2_u16 = {sse2_size_u16, sse2_escape_u16};
static const wide_kernels sse2_u32 = {sse2_size_u32, sse2_escape_u32};
static const wide_kernels avx2_u16 = {avx2_size_u16, avx2_escape_u16};
static const wide_kernels avx2_u32 = {avx2_size_u32, avx2_escape_u32};
#endif

/* The kernels of width `w` for `impl`, or NULL when the CPU lacks it. SSE2
   is the x86-64 baseline; AUTO takes AVX2 where the CPU has it. */
static const wide_kernels *kernels_for(markup_escape_impl impl, size_t w) {
    switch (impl) {
    case MARKUP_ESCAPE_SCALAR: return w == 2 ? &scalar_u16 : &scalar_u32;
    case MARKUP_ESCAPE_AUTO:
    case MARKUP_ESCAPE_SSE2:
    case MARKUP_ESCAPE_AVX2:
#if MARKUP_ESCAPE_X86
        if (impl != MARKUP_ESCAPE_SSE2 && markup_escape_impl_available(MARKUP_ESCAPE_AVX2))
            return w == 2 ? &avx2_u16 : &avx2_u32;
        if (impl == MARKUP_ESCAPE_AVX2) return NULL;
        return w == 2 ? &sse2_u16 : &sse2_u32;
#else
        if (impl != MARKUP_ESCAPE_AUTO) return NULL;
        return w == 2 ? &scalar_u16 : &scalar_u32;
#endif
    }
    return NULL;
}

static markup_status escape_wide(void *dst, size_t cap, const void *s, size_t n, size_t *written,
                                 markup_escape_impl impl, size_t w) {
    if (written != NULL) *written = 0;
    if ((s == NULL && n != 0) || (dst == NULL && cap != 0)) return MARKUP_ERR_INVALID_ARG;
    const wide_kernels *k = kernels_for(impl, w);
    if (k == NULL) return MARKUP_ERR_INVALID_ARG;
    if (n == 0) return MARKUP_OK;
    if (cap < n) return MARKUP_ERR_INVALID_ARG; /* every unit writes at least one */
    size_t len = k->escape(dst, cap, s, n);
    if (len == NO_ROOM) return MARKUP_ERR_INVALID_ARG;
    if (written != NULL) *written = len;
    return MARKUP_OK;
}

/* ---- public entry points ----------------------------------------------- */

size_t markup_escape_u16_size(const uint16_t *s, size_t n) {
    if (s == NULL || n == 0) return 0;
    return kernels_for(MARKUP_ESCAPE_AUTO, 2)->size(s, n);
}

size_t markup_escape_u32_size(const uint32_t *s, size_t n) {
    if (s == NULL || n == 0) return 0;
    return kernels_for(MARKUP_ESCAPE_AUTO, 4)->size(s, n);
}

markup_status markup_escape_u16(uint16_t *dst, size_t cap, const uint16_t *s, size_t n,
                                size_t *written) {
    return escape_wide(dst, cap, s, n, written, MARKUP_ESCAPE_AUTO, 2);
}

markup_status markup_escape_u32(uint32_t *dst, size_t cap, const uint32_t *s, size_t n,
                                size_t *written) {
    return escape_wide(dst, cap, s, n, written, MARKUP_ESCAPE_AUTO, 4);
}

markup_status markup_escape_u16_using(uint16_t *dst, size_t cap, const uint16_t *s, size_t n,
                                      size_t *written, markup_escape_impl impl) {
    return escape_wide(dst, cap, s, n, written, impl, 2);
}

markup_status markup_escape_u32_using(uint32_t *dst, size_t cap, const uint32_t *s, size_t n,
                                      size_t *written, markup_escape_impl impl) {
    return escape_wide(dst, cap, s, n, written, impl, 4);
}
