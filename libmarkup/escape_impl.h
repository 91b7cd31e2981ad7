/*
 * escape_impl.h - private interface between the escaper's dispatch
 * (escape.c) and its kernels: the portable ones and the entity table
 * (escape_scalar.c), and the block kernels (escape_sse2.c, escape_avx2.c).
 */
#ifndef MARKUP_ESCAPE_IMPL_H
#define MARKUP_ESCAPE_IMPL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "markup/binding.h"

/* x86-64 SIMD kernels need GCC/Clang intrinsics and __builtin_cpu_supports.
   MARKUP_ESCAPE_NO_SIMD builds the portable path alone, as on other CPUs. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&                            \
    !defined(MARKUP_ESCAPE_NO_SIMD)
#  define MARKUP_ESCAPE_X86 1
#else
#  define MARKUP_ESCAPE_X86 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define MARKUP_NOINLINE __attribute__((noinline))
#else
#  define MARKUP_NOINLINE
#endif

#if defined(__SSE2__)
#  include <emmintrin.h>
#endif

/* The special bytes, & < > " ', found a word or a block at a time: '&'
   (0x26) and '\'' (0x27) differ only in bit 0, '<' (0x3C) and '>' (0x3E)
   only in bit 1, so three equality tests cover the five. Shared by the
   escaper's dispatch and the baked renderer's value scan. */
#define MARKUP_ONES_  UINT64_C(0x0101010101010101)
#define MARKUP_HIGHS_ UINT64_C(0x8080808080808080)

/* The high bit of byte i of the result is set when byte i of w is special
   (other bits are noise: mask with MARKUP_HIGHS_; non-ASCII bytes may flag
   too, which callers check on their own). The test (x - 1) & ~x sets the
   high bit of a zero byte, and a borrow only adds flags above a true zero,
   never invents one. */
static inline uint64_t markup_special_bits_(uint64_t w) {
    uint64_t a = (w | MARKUP_ONES_ * 0x01) ^ (MARKUP_ONES_ * 0x27);
    uint64_t b = (w | MARKUP_ONES_ * 0x02) ^ (MARKUP_ONES_ * 0x3E);
    uint64_t c = w ^ (MARKUP_ONES_ * 0x22);
    return ((a - MARKUP_ONES_) & ~a) | ((b - MARKUP_ONES_) & ~b) | ((c - MARKUP_ONES_) & ~c);
}

/* The 8 bytes at p as one word (any alignment). */
static inline uint64_t markup_load_word_(const char *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* Non-zero when some byte of w is one of & < > " '. */
static inline uint64_t markup_swar_special_(uint64_t w) {
    return markup_special_bits_(w) & MARKUP_HIGHS_;
}

#if defined(__SSE2__)
/* Bit i is set when byte i of v is special. */
static inline unsigned markup_special_mask16_(__m128i v) {
    __m128i amp_apos = _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x01)), _mm_set1_epi8(0x27));
    __m128i lt_gt = _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x02)), _mm_set1_epi8(0x3E));
    __m128i quot = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x22));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(amp_apos, lt_gt), quot));
}
#endif

/* Kernels write whole 8-byte entities and whole SIMD blocks, so the
   destination needs this much room past the worst-case escaped length. */
#define MARKUP_ESCAPE_SLACK 128

/* Long input is escaped in pieces of this many bytes, each reserving room
   for its worst case (5x, plus MARKUP_ESCAPE_SLACK) past the write
   position, never five times the whole input. Each piece costs a reserve,
   a kernel call and its first and last partial blocks; at 4 KiB that was a
   tenth of the time on clean 16 KiB text. */
#define MARKUP_ESCAPE_CHUNK 16384

/* The escaped spelling of every byte, as 8 bytes ready for one unaligned
   store, and its length: 1 (the byte itself) for all but & < > " '. */
extern const char markup_escape_entity_[256][8];
extern const uint8_t markup_escape_entity_len_[256];

/* Shuffle controls that expand a group of 4 bytes into their escaped form,
   indexed by 2 key bits per byte (see escape_sse2.c). The group's records
   hold 4 bytes per input byte: the byte (or '&' when special), then bytes
   1..3 of its entity, where a clean byte has ';' as byte 1. Byte j of a row
   is the record slot that gives output byte j; it is 0x80 past the output,
   and for the ';' of a 5-byte entity in a group without a clean byte. Byte
   31 is the length of the output. */
extern const uint8_t markup_escape_group_shuffle_[256][32];

typedef struct markup_escape_kernels {
    /* Writes the escaped form of src[0..n) to dst and returns its length.
       dst has room for that length (at most n + 4 * the specials) plus
       MARKUP_ESCAPE_SLACK bytes: kernels store whole blocks and entities,
       up to 64 bytes past the escaped text, and those bytes may be
       scribbled on. src may be read up to
       src + readable, readable >= n, which lets block kernels load past
       the end of a chunk when more input follows. */
    size_t (*escape)(char *dst, const char *src, size_t n, size_t readable);
    /* Number of bytes in src[0..n) that need escaping. */
    size_t (*count)(const char *src, size_t n);
    /* Offset of the first byte of src[0..n) that needs escaping, else n. */
    size_t (*span)(const char *src, size_t n);
    /* escape for a short value (a template slot, an attribute) already
       found to hold a byte to escape: reads nothing outside src[0..n) and
       takes no branch on where the special bytes are (but for a group of
       four specials, which is rare), since a branch predictor cannot learn
       that from one value to the next. */
    size_t (*escape_short)(char *dst, const char *src, size_t n);
} markup_escape_kernels;

/* Up to this length, text with something to escape goes through the
   kernels' escape_short. */
#define MARKUP_ESCAPE_SHORT_MAX 64

typedef size_t (*markup_escape_short_fn)(char *dst, const char *src, size_t n);

/* The best kernels' escape_short once found, else NULL (escape.c), and the
   call that finds and keeps it. Template slots escape a value each through
   it, where the layers of dispatch showed up in profiles. */
extern _Atomic(markup_escape_short_fn) markup_escape_short_cache_;
markup_escape_short_fn markup_escape_short_find_(void);

/* The best kernels' escape_short. */
static inline markup_escape_short_fn markup_escape_short_best_(void) {
    markup_escape_short_fn escape_short =
        atomic_load_explicit(&markup_escape_short_cache_, memory_order_relaxed);
    return escape_short ? escape_short : markup_escape_short_find_();
}

/* markup_escape for text of at most MARKUP_ESCAPE_SHORT_MAX bytes that the
   caller has already found to hold a byte to escape, inline. */
static inline markup_status markup_escape_short_dirty_(markup_buf *buf, const char *s, size_t n) {
    markup_status st =
        markup_buf_reserve(buf, n * MARKUP_ESCAPE_MAX_EXPANSION + MARKUP_ESCAPE_SLACK);
    if (st != MARKUP_OK) return st;
    buf->len += markup_escape_short_best_()(buf->data + buf->len, s, n);
    return MARKUP_OK;
}

/* The portable kernel (no over-read, no readable argument). */
size_t markup_escape_scalar_(char *dst, const char *src, size_t n);

/* The portable escape_short: every byte through the entity table. */
size_t markup_escape_table_(char *dst, const char *src, size_t n);

/* The SSSE3 escape_short, shared by the AVX2 kernels (every AVX2 CPU has
   SSSE3; a 32-byte block costs more than two 16-byte ones at these
   lengths). Only call it once the CPU said it has SSSE3. */
size_t markup_escape_short_ssse3_(char *dst, const char *src, size_t n);

/* The portable kernels (for the tests; AUTO picks them off x86). */
const markup_escape_kernels *markup_escape_scalar_kernels_(void);

/* The kernels of one instruction set, or NULL when this build has none
   (non-x86). The caller checks the CPU before using AVX2. The SSE2 kernels
   use SSSE3 (pshufb) when the CPU has it, which they check themselves;
   markup_escape_sse2_plain_kernels_ never does (for the tests). */
const markup_escape_kernels *markup_escape_sse2_kernels_(void);
const markup_escape_kernels *markup_escape_sse2_plain_kernels_(void);
const markup_escape_kernels *markup_escape_avx2_kernels_(void);

#endif /* MARKUP_ESCAPE_IMPL_H */
