/* test_escape.c - every escaper implementation the CPU has against a
   byte-at-a-time reference, plus counting, growth and allocation failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "markup/binding.h"
#include "test_alloc.h"

/* Private: the kernel interface, to reach the SSE2-only kernels that a
   CPU with SSSE3 never runs through the public API. */
#include "../../libmarkup/escape_impl.h"

/* ---- reference and helpers -------------------------------------------- */

static const char *reference_entity(unsigned char c) {
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&#34;";
    case '\'': return "&#39;";
    default: return NULL;
    }
}

/* Writes the escaped form of s into out (room for 5n bytes); returns its length. */
static size_t reference_escape(char *out, const char *s, size_t n) {
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = reference_entity((unsigned char)s[i]);
        if (e) {
            memcpy(out + len, e, strlen(e));
            len += strlen(e);
        } else {
            out[len++] = s[i];
        }
    }
    return len;
}

static size_t reference_count(const char *s, size_t n) {
    size_t count = 0;
    for (size_t i = 0; i < n; i++) count += reference_entity((unsigned char)s[i]) != NULL;
    return count;
}

/* xorshift64*: reproducible inputs; the seed is printed. */
static uint64_t rng_state;

static uint64_t rng_next(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(2685821657736338717);
}

/* A byte from a mix of specials, plain ASCII, NUL/controls and high bytes. */
static char random_byte(void) {
    static const char specials[] = "&<>\"'";
    uint64_t r = rng_next();
    switch (r % 4) {
    case 0: return specials[(r >> 8) % 5];
    case 1: return (char)(0x20 + (r >> 8) % 0x5F);
    case 2: return (char)((r >> 8) % 0x20);
    default: return (char)(0x80 + (r >> 8) % 0x80);
    }
}

static const markup_escape_impl all_impls[] = {MARKUP_ESCAPE_AUTO, MARKUP_ESCAPE_SCALAR,
                                               MARKUP_ESCAPE_SSE2, MARKUP_ESCAPE_AVX2};
#define N_IMPLS (sizeof all_impls / sizeof all_impls[0])

/* Escapes with `impl` after a prefix and compares with the reference. */
static void check_impl(markup_escape_impl impl, const char *s, size_t n) {
    static char expected[5 * 70000];
    assert_true(n <= 70000);
    size_t expected_len = reference_escape(expected, s, n);
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    assert_int_equal(markup_buf_append(&buf, "pre", 3), MARKUP_OK);
    assert_int_equal(markup_escape_using(&buf, s, n, impl), MARKUP_OK);
    if (buf.len != 3 + expected_len || memcmp(buf.data + 3, expected, expected_len) != 0) {
        print_error("impl %s differs from the reference for n=%zu\n", markup_escape_impl_name(impl),
                    n);
        fail();
    }
    assert_memory_equal(buf.data, "pre", 3);
    markup_buf_free(&buf);
    if (impl == MARKUP_ESCAPE_AUTO) {
        /* markup_escape has its own short-input paths: check it too. */
        markup_buf_init(&buf, NULL);
        assert_int_equal(markup_escape(&buf, s, n), MARKUP_OK);
        if (buf.len != expected_len || (n && memcmp(buf.data, expected, expected_len) != 0)) {
            print_error("markup_escape differs from the reference for n=%zu\n", n);
            fail();
        }
        markup_buf_free(&buf);
    }
}

/* ---- tests ------------------------------------------------------------- */

static void test_impl_queries(void **state) {
    (void)state;
    assert_true(markup_escape_impl_available(MARKUP_ESCAPE_AUTO));
    assert_true(markup_escape_impl_available(MARKUP_ESCAPE_SCALAR));
    markup_escape_impl best = markup_escape_impl_best();
    assert_int_not_equal(best, MARKUP_ESCAPE_AUTO);
    assert_true(markup_escape_impl_available(best));
    assert_int_equal(markup_escape_impl_best(), best); /* cached, stable */
    /* AVX2 implies SSE2 is there too. */
    if (markup_escape_impl_available(MARKUP_ESCAPE_AVX2))
        assert_true(markup_escape_impl_available(MARKUP_ESCAPE_SSE2));
    assert_string_equal(markup_escape_impl_name(MARKUP_ESCAPE_AUTO), "auto");
    assert_string_equal(markup_escape_impl_name(MARKUP_ESCAPE_SCALAR), "scalar");
    assert_string_equal(markup_escape_impl_name(MARKUP_ESCAPE_SSE2), "sse2");
    assert_string_equal(markup_escape_impl_name(MARKUP_ESCAPE_AVX2), "avx2");
    print_message("escape impls: best=%s sse2=%d avx2=%d\n", markup_escape_impl_name(best),
                  markup_escape_impl_available(MARKUP_ESCAPE_SSE2),
                  markup_escape_impl_available(MARKUP_ESCAPE_AVX2));
    /* Unknown and unavailable implementations are refused. */
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    assert_false(markup_escape_impl_available((markup_escape_impl)42));
    assert_int_equal(markup_escape_using(&buf, "a", 1, (markup_escape_impl)42),
                     MARKUP_ERR_INVALID_ARG);
    for (size_t i = 0; i < N_IMPLS; i++)
        if (!markup_escape_impl_available(all_impls[i]))
            assert_int_equal(markup_escape_using(&buf, "a", 1, all_impls[i]),
                             MARKUP_ERR_INVALID_ARG);
    assert_int_equal(buf.len, 0);
    markup_buf_free(&buf);
}

static void test_entity_spellings(void **state) {
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"&", "&amp;"},
        {"<", "&lt;"},
        {">", "&gt;"},
        {"\"", "&#34;"},
        {"'", "&#39;"},
        {"", ""},
        {"Tea & cake", "Tea &amp; cake"},
        {"<script>alert('x')</script>", "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"},
        {"a=\"1\"", "a=&#34;1&#34;"},
        {"&amp;", "&amp;amp;"},
        {"caf\xC3\xA9 \xE2\x82\xAC", "caf\xC3\xA9 \xE2\x82\xAC"},
        {"already clean text of more than thirty-two bytes, no specials at all",
         "already clean text of more than thirty-two bytes, no specials at all"},
    };
    for (size_t i = 0; i < N_IMPLS; i++) {
        if (!markup_escape_impl_available(all_impls[i])) continue;
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            markup_buf buf;
            markup_buf_init(&buf, NULL);
            assert_int_equal(
                markup_escape_using(&buf, cases[k].in, strlen(cases[k].in), all_impls[i]),
                MARKUP_OK);
            size_t n = strlen(cases[k].out);
            assert_int_equal(buf.len, n);
            if (n) assert_memory_equal(buf.data, cases[k].out, n);
            markup_buf_free(&buf);
        }
    }
}

static void test_every_byte_value(void **state) {
    (void)state;
    char all[256];
    for (int c = 0; c < 256; c++) all[c] = (char)c;
    for (size_t i = 0; i < N_IMPLS; i++)
        if (markup_escape_impl_available(all_impls[i])) check_impl(all_impls[i], all, 256);
    /* Each byte alone: exactly the five specials change. */
    for (int c = 0; c < 256; c++) {
        char in = (char)c;
        markup_buf buf;
        markup_buf_init(&buf, NULL);
        assert_int_equal(markup_escape(&buf, &in, 1), MARKUP_OK);
        const char *e = reference_entity((unsigned char)c);
        if (e) {
            assert_int_equal(buf.len, strlen(e));
            assert_memory_equal(buf.data, e, buf.len);
        } else {
            assert_int_equal(buf.len, 1);
            assert_int_equal(buf.data[0], in);
        }
        markup_buf_free(&buf);
    }
}

static void test_all_lengths_and_alignments(void **state) {
    (void)state;
    /* A fresh seed per run (ASLR), or MARKUP_TEST_SEED to replay one. */
    const char *replay = getenv("MARKUP_TEST_SEED");
    rng_state = replay ? strtoull(replay, NULL, 10)
                       : UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)(uintptr_t)&rng_state;
    if (rng_state == 0) rng_state = 1;
    print_message("seed %llu (MARKUP_TEST_SEED to replay)\n", (unsigned long long)rng_state);
    for (size_t i = 0; i < N_IMPLS; i++) {
        markup_escape_impl impl = all_impls[i];
        if (!markup_escape_impl_available(impl)) continue;
        for (size_t n = 0; n <= 300; n++) {
            for (size_t align = 0; align < 64; align++) {
                /* The input ends exactly where its allocation ends, so a
                   sanitizer sees any read past it; malloc's alignment plus
                   `align` covers every offset within a SIMD block. */
                char *storage = malloc(align + n + 1);
                assert_non_null(storage);
                char *s = storage + 1 + align;
                for (size_t k = 0; k < n; k++) s[k] = random_byte();
                check_impl(impl, s, n);
                free(storage);
            }
        }
    }
}

/* Escapes s[0..n) with `impl` into a reused buffer, after out_offset
   bytes already there, and compares with the reference; cheaper than
   check_impl for the many small inputs below. */
static void check_quick(markup_buf *buf, markup_escape_impl impl, const char *s, size_t n,
                        size_t out_offset, const char *what, size_t where) {
    char expected[5 * 256];
    assert_true(n <= 256);
    size_t expected_len = reference_escape(expected, s, n);
    buf->len = 0;
    assert_int_equal(markup_buf_reserve(buf, out_offset), MARKUP_OK);
    buf->len = out_offset;
    assert_int_equal(markup_escape_using(buf, s, n, impl), MARKUP_OK);
    if (buf->len != out_offset + expected_len ||
        (expected_len && memcmp(buf->data + out_offset, expected, expected_len) != 0)) {
        print_error("impl %s differs from the reference: %s at %zu, n=%zu\n",
                    markup_escape_impl_name(impl), what, where, n);
        fail();
    }
}

static void test_every_pair_of_specials(void **state) {
    (void)state;
    /* Blocks with one or two special bytes are written run by run, each
       run's store overwriting the tail of the one before: every pair of
       positions in three 32-byte blocks, the specials of every length in
       both orders, in clean text that runs on past them (so the block
       may read the next one) and that ends right after them. */
    enum { LEN = 96 };
    static const char pairs[][2] = {{'&', '<'}, {'>', '"'}, {'\'', '&'}, {'<', '>'}, {'"', '\''}};
    for (size_t i = 0; i < N_IMPLS; i++) {
        markup_escape_impl impl = all_impls[i];
        if (!markup_escape_impl_available(impl) || impl == MARKUP_ESCAPE_AUTO) continue;
        markup_buf buf;
        markup_buf_init(&buf, NULL);
        char s[LEN];
        memset(s, 'x', LEN);
        for (size_t first = 0; first < LEN; first++) {
            for (size_t second = first; second < LEN; second++) {
                for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
                    s[first] = pairs[k][0];
                    s[second] = pairs[k][1];
                    check_quick(&buf, impl, s, LEN, 0, "pair", first * LEN + second);
                    /* Ending right after the pair, where its allocation
                       ends: a read past it is the sanitizers' to see. */
                    char *end = malloc(second + 1);
                    assert_non_null(end);
                    memcpy(end, s, second + 1);
                    check_quick(&buf, impl, end, second + 1, 0, "pair at the end",
                                first * LEN + second);
                    free(end);
                    s[first] = s[second] = 'x';
                }
            }
        }
        markup_buf_free(&buf);
    }
}

static void test_every_group_of_four(void **state) {
    (void)state;
    /* The block kernels expand 4 bytes at a time, by a table row chosen
       by which bytes are special and which entity length they have. Every
       4-byte pattern over these bytes (the five specials, clean bytes
       that share a low nibble or bit 4 with them, a high byte) sits at
       every group position of 64 bytes (two 32-byte or four 16-byte
       blocks), and across group and block boundaries, in clean text and
       in all-special text (where some neighbour group holds four specials). */
    static const char alphabet[] = {'&', '<', '>', '"', '\'', 'b', 'l', (char)0xBC};
    enum { A = sizeof alphabet, LEN = 64 };
    static const char backgrounds[] = {'x', '&'};
    for (size_t i = 0; i < N_IMPLS; i++) {
        markup_escape_impl impl = all_impls[i];
        if (!markup_escape_impl_available(impl) || impl == MARKUP_ESCAPE_AUTO) continue;
        markup_buf buf;
        markup_buf_init(&buf, NULL);
        for (size_t bg = 0; bg < sizeof backgrounds; bg++) {
            for (size_t pattern = 0; pattern < A * A * A * A; pattern++) {
                char s[LEN];
                memset(s, backgrounds[bg], LEN);
                for (size_t offset = 0; offset + 4 <= LEN; offset++) {
                    if (offset % 4 != 0 && offset % 32 > 2 && offset % 32 < 29) continue;
                    size_t p = pattern;
                    for (size_t k = 0; k < 4; k++, p /= A) s[offset + k] = alphabet[p % A];
                    check_quick(&buf, impl, s, LEN, 0, "pattern", pattern * 100 + offset);
                    memset(s + offset, backgrounds[bg], 4);
                }
            }
        }
        markup_buf_free(&buf);
    }
}

/* Random text with about `density` special bytes, the rest plain ASCII
   and high bytes. */
static void fill_density(char *s, size_t n, unsigned density_percent) {
    static const char specials[] = "&<>\"'";
    for (size_t k = 0; k < n; k++) {
        uint64_t r = rng_next();
        if (r % 100 < density_percent)
            s[k] = specials[(r >> 8) % 5];
        else
            s[k] = (r >> 16) % 8 ? (char)('a' + (r >> 8) % 26) : (char)(0x80 + (r >> 8) % 0x80);
    }
}

static void test_densities(void **state) {
    (void)state;
    /* From one special byte in a block (the short path) to all special
       (groups of four specials, 5-byte entities past 16 bytes), at every
       length up to a few blocks, at input alignments and at output
       offsets (the AVX2 kernel aligns its stores to the output). */
    rng_state = UINT64_C(4242);
    static const unsigned densities[] = {2, 12, 25, 50, 75, 100};
    for (size_t i = 0; i < N_IMPLS; i++) {
        markup_escape_impl impl = all_impls[i];
        if (!markup_escape_impl_available(impl) || impl == MARKUP_ESCAPE_AUTO) continue;
        markup_buf buf;
        markup_buf_init(&buf, NULL);
        for (size_t d = 0; d < sizeof densities / sizeof densities[0]; d++) {
            for (size_t n = 0; n <= 200; n++) {
                for (size_t align = 0; align < 16; align++) {
                    char *storage = malloc(align + n + 1);
                    assert_non_null(storage);
                    char *s = storage + 1 + align;
                    fill_density(s, n, densities[d]);
                    check_quick(&buf, impl, s, n, (align * 7 + n) % 32, "density", densities[d]);
                    free(storage);
                }
            }
        }
        markup_buf_free(&buf);
    }
}

static void test_chunks_at_every_output_offset(void **state) {
    (void)state;
    /* Long inputs are escaped in chunks, and a chunk may read on into the
       next one. The AVX2 kernel aligns its stores to the output, so where
       a chunk's blocks start (and how many bytes are left at its end)
       depends on the output offset: every offset modulo 32. */
    enum { LEN = 3 * MARKUP_ESCAPE_CHUNK + 100 };
    static char s[LEN], expected[5 * LEN];
    rng_state = UINT64_C(2718);
    static const unsigned densities[] = {0, 3, 50};
    for (size_t i = 0; i < N_IMPLS; i++) {
        markup_escape_impl impl = all_impls[i];
        if (!markup_escape_impl_available(impl)) continue;
        for (size_t d = 0; d < sizeof densities / sizeof densities[0]; d++) {
            fill_density(s, LEN, densities[d]);
            size_t expected_len = reference_escape(expected, s, LEN);
            for (size_t offset = 0; offset < 32; offset++) {
                markup_buf buf;
                markup_buf_init(&buf, NULL);
                assert_int_equal(
                    markup_buf_append(&buf, "................................", offset), MARKUP_OK);
                assert_int_equal(markup_escape_using(&buf, s, LEN, impl), MARKUP_OK);
                if (buf.len != offset + expected_len ||
                    memcmp(buf.data + offset, expected, expected_len) != 0) {
                    print_error("impl %s differs from the reference at output offset %zu\n",
                                markup_escape_impl_name(impl), offset);
                    fail();
                }
                markup_buf_free(&buf);
            }
        }
    }
}

/* Runs one kernel directly: the input ends where its allocation ends
   (readable == n), the output has exactly the documented room. */
static void check_kernel(const markup_escape_kernels *k, const char *s, size_t n) {
    char *expected = malloc(5 * n + 1);
    char *out = malloc(5 * n + MARKUP_ESCAPE_SLACK);
    assert_non_null(expected);
    assert_non_null(out);
    size_t expected_len = reference_escape(expected, s, n);
    size_t len = k->escape(out, s, n, n);
    if (len != expected_len || memcmp(out, expected, expected_len) != 0) {
        print_error("kernel differs from the reference for n=%zu\n", n);
        fail();
    }
    assert_int_equal(k->count(s, n), reference_count(s, n));
    free(out);
    free(expected);
}

static void test_sse2_only_kernel(void **state) {
    (void)state;
    /* The SSE2 kernels use SSSE3 when the CPU has it, so the SSE2-only
       kernels (for CPUs without) are checked here directly. */
    const markup_escape_kernels *k = markup_escape_sse2_plain_kernels_();
    if (k == NULL) {
        assert_null(markup_escape_sse2_kernels_()); /* no x86 kernels in this build */
        return;
    }
    rng_state = UINT64_C(31337);
    static const unsigned densities[] = {1, 12, 25, 50, 100};
    for (size_t d = 0; d < sizeof densities / sizeof densities[0]; d++) {
        for (size_t n = 0; n <= 300; n++) {
            for (size_t align = 0; align < 16; align++) {
                char *storage = malloc(align + n + 1);
                assert_non_null(storage);
                char *s = storage + 1 + align;
                fill_density(s, n, densities[d]);
                check_kernel(k, s, n);
                free(storage);
            }
        }
    }
}

/* escape_short of kernel set k against the reference for s[0..n). */
static void check_short(const char *name, size_t (*escape_short)(char *, const char *, size_t),
                        const char *s, size_t n) {
    char expected[5 * 128], out[5 * 128 + MARKUP_ESCAPE_SLACK];
    assert_true(n <= 128);
    size_t expected_len = reference_escape(expected, s, n);
    size_t len = escape_short(out, s, n);
    if (len != expected_len || memcmp(out, expected, expected_len) != 0) {
        print_error("%s escape_short differs from the reference for n=%zu\n", name, n);
        fail();
    }
}

static void test_escape_short_kernels(void **state) {
    (void)state;
    /* The short-value kernels (template slots, attributes) read a value
       with overlapping loads that must stay inside it, and expand every
       block, clean or not: each kernel at every length up to five
       blocks, every alignment, every density, with the value ending where
       its allocation ends; then every group of four over the specials at
       every position of a 48-byte value. */
    struct {
        const char *name;
        size_t (*escape_short)(char *, const char *, size_t);
    } kernels[4];
    size_t nkernels = 0;
    kernels[nkernels].name = "table";
    kernels[nkernels++].escape_short = markup_escape_table_;
    const markup_escape_kernels *plain = markup_escape_sse2_plain_kernels_();
    if (plain != NULL) {
        kernels[nkernels].name = "sse2";
        kernels[nkernels++].escape_short = plain->escape_short;
        kernels[nkernels].name = "sse2 (ssse3 where the CPU has it)";
        kernels[nkernels++].escape_short = markup_escape_sse2_kernels_()->escape_short;
    }
    if (markup_escape_impl_available(MARKUP_ESCAPE_AVX2)) {
        kernels[nkernels].name = "avx2";
        kernels[nkernels++].escape_short = markup_escape_avx2_kernels_()->escape_short;
    }
    rng_state = UINT64_C(2718281828);
    static const unsigned densities[] = {0, 3, 12, 50, 100};
    for (size_t k = 0; k < nkernels; k++) {
        for (size_t d = 0; d < sizeof densities / sizeof densities[0]; d++) {
            for (size_t n = 1; n <= 80; n++) {
                for (size_t align = 0; align < 16; align++) {
                    char *storage = malloc(align + n);
                    assert_non_null(storage);
                    char *s = storage + align;
                    fill_density(s, n, densities[d]);
                    check_short(kernels[k].name, kernels[k].escape_short, s, n);
                    free(storage);
                }
            }
        }
        static const char alphabet[] = {'&', '<', '>', '"', '\'', 'b', (char)0xBC};
        enum { A = sizeof alphabet, LEN = 48 };
        char *s = malloc(LEN);
        assert_non_null(s);
        for (size_t pattern = 0; pattern < A * A * A * A; pattern++) {
            for (size_t offset = 0; offset + 4 <= LEN; offset++) {
                memset(s, 'x', LEN);
                size_t p = pattern;
                for (size_t b = 0; b < 4; b++, p /= A) s[offset + b] = alphabet[p % A];
                /* the value ends right after the group, or runs on */
                check_short(kernels[k].name, kernels[k].escape_short, s, offset + 4);
                check_short(kernels[k].name, kernels[k].escape_short, s, LEN);
            }
        }
        free(s);
    }
}

static void test_chunk_boundaries(void **state) {
    (void)state;
    /* Inputs longer than the internal chunk, with specials packed around
       every multiple of it and the SIMD block sizes. */
    enum { CHUNK = MARKUP_ESCAPE_CHUNK };
    static char s[4 * CHUNK + 4000];
    rng_state = UINT64_C(12345);
    for (size_t k = 0; k < sizeof s; k++) s[k] = (char)('a' + k % 26);
    for (size_t b = CHUNK; b < sizeof s; b += CHUNK)
        for (size_t d = b - 40; d < b + 40; d += 3) s[d] = random_byte();
    for (size_t i = 0; i < N_IMPLS; i++) {
        if (!markup_escape_impl_available(all_impls[i])) continue;
        const size_t lengths[] = {CHUNK - 1,      CHUNK,          CHUNK + 1,
                                  CHUNK + 31,     CHUNK + 33,     2 * CHUNK - 1,
                                  2 * CHUNK + 64, 3 * CHUNK + 17, sizeof s};
        for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++)
            for (size_t off = 0; off < 3; off++)
                check_impl(all_impls[i], s + off, lengths[k] - off);
    }
    /* All specials: the worst case expansion, across chunks. */
    memset(s, '&', sizeof s);
    for (size_t i = 0; i < N_IMPLS; i++)
        if (markup_escape_impl_available(all_impls[i]))
            check_impl(all_impls[i], s, 2 * CHUNK + 1000);
}

static void test_count(void **state) {
    (void)state;
    rng_state = UINT64_C(777);
    static char s[300000];
    for (size_t n = 0; n < 300; n++) {
        for (size_t k = 0; k < n; k++) s[k] = random_byte();
        assert_int_equal(markup_escape_count(s, n), reference_count(s, n));
    }
    /* Long all-special input: per-lane counters must not wrap. */
    memset(s, '<', sizeof s);
    assert_int_equal(markup_escape_count(s, sizeof s), sizeof s);
    for (size_t k = 0; k < sizeof s; k++) s[k] = random_byte();
    assert_int_equal(markup_escape_count(s, sizeof s), reference_count(s, sizeof s));
    memset(s, 'x', sizeof s);
    assert_int_equal(markup_escape_count(s, sizeof s), 0);
    s[sizeof s - 1] = '\'';
    assert_int_equal(markup_escape_count(s, sizeof s), 1);
    assert_int_equal(markup_escape_count(NULL, 0), 0);
    assert_int_equal(markup_escape_count("", 0), 0);
}

static size_t reference_span(const char *s, size_t n) {
    size_t i = 0;
    while (i < n && reference_entity((unsigned char)s[i]) == NULL) i++;
    return i;
}

/* count and span of kernel set k on s[0..n), against the references. */
static void check_count_span(const char *name, const markup_escape_kernels *k, const char *s,
                             size_t n) {
    size_t count = k->count(s, n), span = k->span(s, n);
    if (count != reference_count(s, n) || span != reference_span(s, n)) {
        print_error("%s: count %zu (reference %zu), span %zu (reference %zu) for n=%zu\n", name,
                    count, reference_count(s, n), span, reference_span(s, n), n);
        fail();
    }
}

static void test_count_and_span_kernels(void **state) {
    (void)state;
    /* Every kernel set: every length up to 300 and one in 37 up to 1300
       (ten AVX2 steps), at every alignment and density, the input ending
       where its allocation ends (the sanitizer builds catch a read past
       it); one special at every position of clean text, which is what
       span looks for; and long all-special and clean text around the
       point where each kernel sums its per-lane counters (63 steps of
       four blocks), where a counter would wrap. */
    struct {
        const char *name;
        const markup_escape_kernels *k;
    } sets[4];
    size_t nsets = 0;
    sets[nsets].name = "scalar";
    sets[nsets++].k = markup_escape_scalar_kernels_();
    if (markup_escape_sse2_plain_kernels_() != NULL) {
        sets[nsets].name = "sse2";
        sets[nsets++].k = markup_escape_sse2_plain_kernels_();
        sets[nsets].name = "sse2 (ssse3 where the CPU has it)";
        sets[nsets++].k = markup_escape_sse2_kernels_();
    }
    if (markup_escape_impl_available(MARKUP_ESCAPE_AVX2)) {
        sets[nsets].name = "avx2";
        sets[nsets++].k = markup_escape_avx2_kernels_();
    }
    enum { LONGEST = 1300 };
    rng_state = UINT64_C(1618033988);
    static const unsigned densities[] = {0, 1, 12, 100};
    for (size_t d = 0; d < sizeof densities / sizeof densities[0]; d++) {
        for (size_t n = 0; n <= LONGEST; n += n < 300 ? 1 : 37) {
            for (size_t align = 0; align < 8; align++) {
                char *storage = malloc(align + n + 1);
                assert_non_null(storage);
                char *s = storage + 1 + align;
                fill_density(s, n, densities[d]);
                for (size_t k = 0; k < nsets; k++) check_count_span(sets[k].name, sets[k].k, s, n);
                free(storage);
            }
        }
    }
    char *s = malloc(LONGEST);
    assert_non_null(s);
    for (size_t n = 1; n <= LONGEST; n += n < 300 ? 1 : 113) {
        for (size_t at = 0; at < n; at++) {
            memset(s + LONGEST - n, 'x', n);
            s[LONGEST - n + at] = "&<>\"'"[at % 5];
            for (size_t k = 0; k < nsets; k++)
                check_count_span(sets[k].name, sets[k].k, s + LONGEST - n, n);
        }
    }
    free(s);
    const size_t long_lengths[] = {63 * 64 - 1, 63 * 64,      63 * 64 + 1, 4096,
                                   63 * 128,    63 * 128 + 1, 300000};
    for (size_t l = 0; l < sizeof long_lengths / sizeof long_lengths[0]; l++) {
        size_t n = long_lengths[l];
        s = malloc(n);
        assert_non_null(s);
        for (int special = 0; special < 2; special++) {
            memset(s, special ? '<' : 'x', n);
            for (size_t k = 0; k < nsets; k++) check_count_span(sets[k].name, sets[k].k, s, n);
        }
        free(s);
    }
}

/* Kernel set k escapes s[0..n) to `at` bytes into a block: the output is
   the reference, and nothing is stored more than 64 bytes past it (the
   kernels' documented reach, half the slack markup_escape_counted leaves):
   a canary from there to the end of the slack stays untouched. */
static void check_exact_room(const char *name, const markup_escape_kernels *k, const char *s,
                             size_t n, size_t at) {
    enum { REACH = 64 };
    char *expected = malloc(5 * n + 1);
    assert_non_null(expected);
    size_t expected_len = reference_escape(expected, s, n);
    char *block = malloc(at + expected_len + MARKUP_ESCAPE_SLACK);
    assert_non_null(block);
    char *out = block + at;
    memset(out, 0x5A, expected_len + MARKUP_ESCAPE_SLACK);
    size_t len = k->escape(out, s, n, n);
    if (len != expected_len || memcmp(out, expected, expected_len) != 0) {
        print_error("%s differs from the reference for n=%zu\n", name, n);
        fail();
    }
    for (size_t i = expected_len + REACH; i < expected_len + MARKUP_ESCAPE_SLACK; i++) {
        if (out[i] != 0x5A) {
            print_error("%s stored more than %d bytes past the escaped text for n=%zu\n", name,
                        REACH, n);
            fail();
        }
    }
    free(block);
    free(expected);
}

static void test_kernels_stay_within_the_exact_room(void **state) {
    (void)state;
    /* markup_escape_counted gives a kernel the escaped length plus the slack,
       not five times the input: every kernel set, every length up to 300
       at every alignment and density, and long inputs in one call. */
    struct {
        const char *name;
        const markup_escape_kernels *k;
    } sets[4];
    size_t nsets = 0;
    sets[nsets].name = "scalar";
    sets[nsets++].k = markup_escape_scalar_kernels_();
    if (markup_escape_sse2_plain_kernels_() != NULL) {
        sets[nsets].name = "sse2";
        sets[nsets++].k = markup_escape_sse2_plain_kernels_();
        sets[nsets].name = "sse2 (ssse3 where the CPU has it)";
        sets[nsets++].k = markup_escape_sse2_kernels_();
    }
    if (markup_escape_impl_available(MARKUP_ESCAPE_AVX2)) {
        sets[nsets].name = "avx2";
        sets[nsets++].k = markup_escape_avx2_kernels_();
    }
    rng_state = UINT64_C(5772156649);
    static const unsigned densities[] = {0, 3, 12, 50, 100};
    for (size_t d = 0; d < sizeof densities / sizeof densities[0]; d++) {
        for (size_t n = 0; n <= 300; n++) {
            for (size_t align = 0; align < 4; align++) {
                char *storage = malloc(align + n + 1);
                assert_non_null(storage);
                char *s = storage + 1 + align;
                fill_density(s, n, densities[d]);
                for (size_t k = 0; k < nsets; k++)
                    check_exact_room(sets[k].name, sets[k].k, s, n, align * 9 % 32);
                free(storage);
            }
        }
        const size_t long_lengths[] = {2047, 2048, 2049, 16417, 40009};
        for (size_t l = 0; l < sizeof long_lengths / sizeof long_lengths[0]; l++) {
            char *s = malloc(long_lengths[l]);
            assert_non_null(s);
            fill_density(s, long_lengths[l], densities[d]);
            /* Every output alignment: the AVX2 kernel aligns its stores
               from 2 KiB on, writing the first bytes alone. */
            for (size_t at = 0; at < 32; at++)
                for (size_t k = 0; k < nsets; k++)
                    check_exact_room(sets[k].name, sets[k].k, s, long_lengths[l], at);
            free(s);
        }
    }
}

/* markup_escape_counted appends what markup_escape appends, growing the
   buffer at most once and by no more than n + 4 * count + SLACK. */
static void test_escape_counted(void **state) {
    (void)state;
    enum { CHUNK = MARKUP_ESCAPE_CHUNK };
    static char s[3 * CHUNK + 100];
    const size_t lengths[] = {0, 1, 63, 64, 65, 1000, CHUNK, CHUNK + 1, sizeof s};
    rng_state = UINT64_C(1414213562);
    static const unsigned densities[] = {0, 2, 12, 50, 100};
    for (size_t d = 0; d < sizeof densities / sizeof densities[0]; d++) {
        fill_density(s, sizeof s, densities[d]);
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
            size_t n = lengths[l], count = reference_count(s, n);
            markup_buf expected;
            markup_buf_init(&expected, NULL);
            assert_int_equal(markup_escape(&expected, s, n), MARKUP_OK);
            test_alloc ta;
            test_alloc_init(&ta, TEST_ALLOC_NEVER);
            markup_buf buf;
            markup_buf_init(&buf, &ta.alc);
            assert_int_equal(markup_buf_append(&buf, "pre", 3), MARKUP_OK);
            size_t calls = ta.calls, cap = buf.cap;
            assert_int_equal(markup_escape_counted(&buf, s, n), MARKUP_OK);
            assert_int_equal(buf.len, 3 + expected.len);
            assert_memory_equal(buf.data + 3, expected.data, expected.len);
            assert_true(ta.calls - calls <= 1);
            size_t room = count ? n + 4 * count + MARKUP_ESCAPE_SLACK : n;
            assert_true(buf.cap == cap || buf.cap <= 3 + room || buf.cap <= cap + cap / 2);
            markup_buf_free(&buf);
            markup_buf_free(&expected);
        }
    }
    /* Where markup_escape keeps a piece's worst case of headroom, it
       keeps none: 48 KiB of clean text take 48 KiB. */
    memset(s, 'a', sizeof s);
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    assert_int_equal(markup_escape_counted(&buf, s, sizeof s), MARKUP_OK);
    assert_int_equal(buf.cap, sizeof s);
    markup_buf_free(&buf);
    /* An allocation failure leaves the buffer as it was. */
    memset(s, '<', 1000);
    test_alloc ta;
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_buf_init(&buf, &ta.alc);
    assert_int_equal(markup_buf_append(&buf, "pre", 3), MARKUP_OK);
    ta.fail_at = ta.calls;
    assert_int_equal(markup_escape_counted(&buf, s, 1000), MARKUP_ERR_NOMEM);
    assert_int_equal(buf.len, 3);
    assert_memory_equal(buf.data, "pre", 3);
    markup_buf_free(&buf);
    assert_int_equal(ta.live_bytes, 0);
    /* Arguments. */
    markup_buf_init(&buf, NULL);
    assert_int_equal(markup_escape_counted(&buf, NULL, 0), MARKUP_OK);
    assert_int_equal(markup_escape_counted(&buf, NULL, 3), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_escape_counted(NULL, "a", 1), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(buf.len, 0);
    markup_buf_free(&buf);
}

static void test_span(void **state) {
    (void)state;
    static char s[70000];
    memset(s, 'x', sizeof s);
    assert_int_equal(markup_escape_span(s, sizeof s), sizeof s);
    const size_t positions[] = {0, 1, 31, 32, 127, 128, 16383, 16384, sizeof s - 1};
    for (size_t p = 0; p < sizeof positions / sizeof positions[0]; p++) {
        s[positions[p]] = '>';
        assert_int_equal(markup_escape_span(s, sizeof s), positions[p]);
        /* Only the first counts; a byte to escape past n is not seen. */
        assert_int_equal(markup_escape_span(s, positions[p]), positions[p]);
        s[positions[p]] = 'x';
    }
    s[5] = (char)0xE9; /* a high byte is not escaped */
    assert_int_equal(markup_escape_span(s, 10), 10);
    assert_int_equal(markup_escape_span(NULL, 0), 0);
    assert_int_equal(markup_escape_span("", 0), 0);
    assert_int_equal(markup_escape_span("'", 1), 0);
}

/* Escapes s[0..n) with `impl` (AUTO: through markup_escape, which has its
   own paths for short input) after reserving `room` past a 3-byte prefix,
   and returns whether the escape had to allocate. */
static bool escape_grows(markup_escape_impl impl, const char *s, size_t n, size_t room) {
    test_alloc ta;
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_buf buf;
    markup_buf_init(&buf, &ta.alc);
    assert_int_equal(markup_buf_append(&buf, "pre", 3), MARKUP_OK);
    assert_int_equal(markup_buf_reserve(&buf, room), MARKUP_OK);
    assert_int_equal(buf.cap, 3 + room); /* exactly: growth must not hide a short room */
    size_t calls = ta.calls;
    if (impl == MARKUP_ESCAPE_AUTO)
        assert_int_equal(markup_escape(&buf, s, n), MARKUP_OK);
    else
        assert_int_equal(markup_escape_using(&buf, s, n, impl), MARKUP_OK);
    bool grew = ta.calls != calls;
    markup_buf_free(&buf);
    return grew;
}

/* markup_escape_room is enough: escaping after reserving it allocates
   nothing, for every implementation and piece boundary, at even densities
   and with the specials packed before clean text (the worst case: a full
   piece reserved 5x late in the output). */
static void test_room_needs_no_growth(void **state) {
    (void)state;
    enum { CHUNK = MARKUP_ESCAPE_CHUNK };
    static char s[3 * CHUNK + 100];
    const size_t lengths[] = {
        1, 15, 64, 65, 1000, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK - 1, 2 * CHUNK + 7, sizeof s};
    /* even: one special in k bytes at random (0: none); packed: the first
       k bytes special, the rest clean */
    const size_t even[] = {0, 64, 8, 2, 1};
    const size_t packed[] = {1, CHUNK - 1, CHUNK, 2 * CHUNK};
    const size_t cases = sizeof even / sizeof even[0] + 2 * (sizeof packed / sizeof packed[0]);
    rng_state = UINT64_C(4242);
    for (size_t c = 0; c < cases; c++) {
        size_t e = c < sizeof even / sizeof even[0] ? even[c] : 0;
        size_t p = c - sizeof even / sizeof even[0];
        for (size_t k = 0; k < sizeof s; k++) {
            if (c < sizeof even / sizeof even[0])
                s[k] = e && rng_next() % e == 0 ? "&<>\"'"[rng_next() % 5] : (char)('a' + k % 26);
            else /* '&' (5 bytes) in the first half of the packed cases, '<' (4) after */
                s[k] = k < packed[p % 4] ? (p < 4 ? '&' : '<') : (char)('a' + k % 26);
        }
        for (size_t i = 0; i < N_IMPLS; i++) {
            if (!markup_escape_impl_available(all_impls[i])) continue;
            for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
                size_t n = lengths[l];
                if (escape_grows(all_impls[i], s, n,
                                 markup_escape_room(n, markup_escape_count(s, n)))) {
                    print_error("%s grew the buffer: n=%zu, case %zu\n",
                                markup_escape_impl_name(all_impls[i]), n, c);
                    fail();
                }
            }
        }
    }
    /* And it is no more than that: a byte less grows the buffer. */
    memset(s, 'a', sizeof s);
    assert_true(escape_grows(MARKUP_ESCAPE_AUTO, s, CHUNK, markup_escape_room(CHUNK, 0) - 1));
    memset(s, '&', CHUNK);
    assert_true(
        escape_grows(MARKUP_ESCAPE_AUTO, s, 2 * CHUNK, markup_escape_room(2 * CHUNK, CHUNK) - 1));

    /* Passing n needs no count: it is the worst case, 5n + SLACK, which
       is the room for every count of a single piece and never grows. */
    memset(s, '&', sizeof s);
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
        size_t n = lengths[l], worst = 5 * n + MARKUP_ESCAPE_SLACK;
        assert_int_equal(markup_escape_room(n, n), worst);
        assert_int_equal(markup_escape_room(n, 0) == worst, n <= CHUNK);
        assert_true(markup_escape_room(n, n / 3) <= worst);
        for (size_t i = 0; i < N_IMPLS; i++)
            if (markup_escape_impl_available(all_impls[i]))
                assert_false(escape_grows(all_impls[i], s, n, markup_escape_room(n, n)));
    }
    assert_true(escape_grows(MARKUP_ESCAPE_AUTO, s, 3 * CHUNK, markup_escape_room(3 * CHUNK, 0)));
    assert_int_equal(markup_escape_room(0, 0), MARKUP_ESCAPE_SLACK);
    assert_int_equal(markup_escape_room(SIZE_MAX, 0), SIZE_MAX);
    assert_int_equal(markup_escape_room(SIZE_MAX / 4, SIZE_MAX / 4), SIZE_MAX);
    /* The worst case does not fit, the room for the count does. */
    assert_int_equal(markup_escape_room(SIZE_MAX / 4, 0),
                     SIZE_MAX / 4 + 4 * MARKUP_ESCAPE_CHUNK + MARKUP_ESCAPE_SLACK);
    assert_int_equal(markup_escape_room(SIZE_MAX - 4 * MARKUP_ESCAPE_CHUNK, 0), SIZE_MAX);
}

static void test_null_arguments(void **state) {
    (void)state;
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    assert_int_equal(markup_escape(&buf, NULL, 0), MARKUP_OK);
    assert_int_equal(buf.len, 0);
    assert_int_equal(markup_escape(&buf, NULL, 3), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_escape(NULL, "a", 1), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_escape_using(&buf, NULL, 3, MARKUP_ESCAPE_SCALAR),
                     MARKUP_ERR_INVALID_ARG);
    assert_int_equal(buf.len, 0);
    markup_buf_free(&buf);
}

static void test_large_clean_string_grows_by_what_is_written(void **state) {
    (void)state;
    const size_t n = 8u << 20;
    char *s = malloc(n);
    assert_non_null(s);
    for (size_t k = 0; k < n; k++) s[k] = (char)('a' + k % 26);
    for (size_t i = 0; i < N_IMPLS; i++) {
        if (!markup_escape_impl_available(all_impls[i])) continue;
        test_alloc ta;
        test_alloc_init(&ta, TEST_ALLOC_NEVER);
        markup_buf buf;
        markup_buf_init(&buf, &ta.alc);
        assert_int_equal(markup_escape_using(&buf, s, n, all_impls[i]), MARKUP_OK);
        assert_int_equal(buf.len, n);
        assert_memory_equal(buf.data, s, n);
        /* Geometric growth may overshoot by 1.5x; 5x would be 40 MB. */
        assert_true(buf.cap < n + n / 2 + 5 * MARKUP_ESCAPE_CHUNK + MARKUP_ESCAPE_SLACK);
        assert_true(ta.peak_bytes < 2 * n);
        markup_buf_free(&buf);
        assert_int_equal(ta.live_bytes, 0);
    }
    /* One special in eight: output is 1.5x, capacity stays near it. */
    for (size_t k = 7; k < n; k += 8) s[k] = '&';
    test_alloc ta;
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_buf buf;
    markup_buf_init(&buf, &ta.alc);
    assert_int_equal(markup_escape(&buf, s, n), MARKUP_OK);
    assert_int_equal(buf.len, n + (n / 8) * 4);
    assert_true(buf.cap < 2 * buf.len);
    markup_buf_free(&buf);
    free(s);
}

static void test_allocation_failure_rolls_back(void **state) {
    (void)state;
    static char s[20000];
    rng_state = UINT64_C(99);
    for (size_t k = 0; k < sizeof s; k++) s[k] = random_byte();
    static char expected[5 * sizeof s];
    size_t expected_len = reference_escape(expected, s, sizeof s);
    for (size_t i = 0; i < N_IMPLS; i++) {
        if (!markup_escape_impl_available(all_impls[i])) continue;
        size_t fail_at = 0;
        for (;; fail_at++) {
            test_alloc ta;
            test_alloc_init(&ta, fail_at);
            markup_buf buf;
            markup_buf_init(&buf, &ta.alc);
            markup_status st = markup_buf_append(&buf, "keep", 4);
            if (st == MARKUP_OK) {
                st = markup_escape_using(&buf, s, sizeof s, all_impls[i]);
                if (st == MARKUP_OK) {
                    assert_int_equal(buf.len, 4 + expected_len);
                    assert_memory_equal(buf.data + 4, expected, expected_len);
                } else {
                    /* rolled back to what was there before the call */
                    assert_int_equal(buf.len, 4);
                    assert_memory_equal(buf.data, "keep", 4);
                }
            } else {
                assert_int_equal(buf.len, 0);
            }
            markup_buf_free(&buf);
            assert_int_equal(ta.live_bytes, 0);
            assert_int_equal(ta.size_mismatches, 0);
            if (st == MARKUP_OK) break;
            assert_int_equal(st, MARKUP_ERR_NOMEM);
        }
        assert_true(fail_at > 1); /* the escape itself had to grow the buffer */
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_impl_queries),
        cmocka_unit_test(test_entity_spellings),
        cmocka_unit_test(test_every_byte_value),
        cmocka_unit_test(test_all_lengths_and_alignments),
        cmocka_unit_test(test_every_pair_of_specials),
        cmocka_unit_test(test_every_group_of_four),
        cmocka_unit_test(test_densities),
        cmocka_unit_test(test_chunks_at_every_output_offset),
        cmocka_unit_test(test_sse2_only_kernel),
        cmocka_unit_test(test_escape_short_kernels),
        cmocka_unit_test(test_chunk_boundaries),
        cmocka_unit_test(test_count),
        cmocka_unit_test(test_count_and_span_kernels),
        cmocka_unit_test(test_span),
        cmocka_unit_test(test_kernels_stay_within_the_exact_room),
        cmocka_unit_test(test_escape_counted),
        cmocka_unit_test(test_room_needs_no_growth),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_large_clean_string_grows_by_what_is_written),
        cmocka_unit_test(test_allocation_failure_rolls_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
