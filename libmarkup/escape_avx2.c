/*
 * escape_avx2.c - 32-byte block kernels for the escaper.
 *
 * The same algorithm as escape_sse2.c on 32-byte blocks. This file alone is
 * compiled with -mavx2; escape.c calls into it only after
 * __builtin_cpu_supports("avx2") said yes.
 */
#include "escape_impl.h"

#if MARKUP_ESCAPE_X86 && defined(__AVX2__)

#include <immintrin.h>
#include <string.h>

#define BLOCK 32
/* More special bytes than this in a block: the table path wins. */
#define DENSE 11

static inline __m256i special_bytes(__m256i v) {
    __m256i lt_gt =
        _mm256_cmpeq_epi8(_mm256_or_si256(v, _mm256_set1_epi8(0x02)), _mm256_set1_epi8(0x3E));
    __m256i amp_apos =
        _mm256_cmpeq_epi8(_mm256_or_si256(v, _mm256_set1_epi8(0x01)), _mm256_set1_epi8(0x27));
    __m256i quot = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x22));
    return _mm256_or_si256(_mm256_or_si256(lt_gt, amp_apos), quot);
}

/* Escapes src[0..BLOCK) to d and returns the new end. Reads src[0..2*BLOCK). */
static inline char *escape_block(char *d, const char *src) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)src);
    uint32_t mask = (uint32_t)_mm256_movemask_epi8(special_bytes(v));
    if (mask == 0) {
        _mm256_storeu_si256((__m256i *)(void *)d, v);
        return d + BLOCK;
    }
    if (__builtin_popcount(mask) > DENSE) {
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
        __m256i run = _mm256_loadu_si256((const __m256i *)(const void *)(src + pos));
        _mm256_storeu_si256((__m256i *)(void *)d, run);
        d += i - pos;
        unsigned char c = (unsigned char)src[i];
        memcpy(d, markup_escape_entity_[c], 8);
        d += markup_escape_entity_len_[c];
        pos = i + 1;
        mask &= mask - 1;
    } while (mask != 0);
    __m256i rest = _mm256_loadu_si256((const __m256i *)(const void *)(src + pos));
    _mm256_storeu_si256((__m256i *)(void *)d, rest);
    return d + (BLOCK - pos);
}

static size_t avx2_escape(char *dst, const char *src, size_t n, size_t readable) {
    char *d = dst;
    size_t i = 0;
    /* Clean text first: two blocks per test, stored whole. A dirty pair
       goes one block at a time through escape_block. */
    while (n - i >= 2 * BLOCK) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(src + i + BLOCK));
        __m256i any = _mm256_or_si256(special_bytes(v0), special_bytes(v1));
        if (_mm256_movemask_epi8(any) == 0) {
            _mm256_storeu_si256((__m256i *)(void *)d, v0);
            _mm256_storeu_si256((__m256i *)(void *)(d + BLOCK), v1);
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

static size_t avx2_count(const char *src, size_t n) {
    size_t count = 0, i = 0;
    while (n - i >= BLOCK) {
        __m256i acc = _mm256_setzero_si256();
        for (int k = 0; k < 255 && n - i >= BLOCK; k++, i += BLOCK) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
            acc = _mm256_sub_epi8(acc, special_bytes(v));
        }
        __m256i sums = _mm256_sad_epu8(acc, _mm256_setzero_si256());
        count += (size_t)_mm256_extract_epi64(sums, 0) + (size_t)_mm256_extract_epi64(sums, 1) +
                 (size_t)_mm256_extract_epi64(sums, 2) + (size_t)_mm256_extract_epi64(sums, 3);
    }
    for (; i < n; i++) count += markup_escape_entity_len_[(unsigned char)src[i]] != 1;
    return count;
}

static const markup_escape_kernels avx2_kernels = {avx2_escape, avx2_count};

const markup_escape_kernels *markup_escape_avx2_kernels_(void) { return &avx2_kernels; }

#else

const markup_escape_kernels *markup_escape_avx2_kernels_(void) { return NULL; }

#endif
