/* test_escape_wide.c - the 16- and 32-bit escapers, every implementation
   the CPU has, against a reference built from the scalar byte escaper;
   sizes, exact output bounds, units that only look special, and the claim
   that 1-byte (Latin-1) text needs nothing but the byte escaper. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "markup/binding.h"

/* ---- reference --------------------------------------------------------- */

/* What the scalar byte escaper makes of each ASCII byte. A unit below 0x80
   is escaped as that byte; every other unit is copied. */
static char ascii_escaped[128][8];
static size_t ascii_escaped_len[128];

static void build_reference(void) {
    for (int c = 0; c < 128; c++) {
        char byte = (char)c;
        markup_buf buf;
        markup_buf_init(&buf, NULL);
        assert_int_equal(markup_escape_using(&buf, &byte, 1, MARKUP_ESCAPE_SCALAR), MARKUP_OK);
        assert_true(buf.len >= 1 && buf.len <= 5);
        memcpy(ascii_escaped[c], buf.data, buf.len);
        ascii_escaped_len[c] = buf.len;
        markup_buf_free(&buf);
    }
}

/* Escapes s[0..n) into out (room for 5n units); returns the length. */
static size_t reference_escape(uint32_t *out, const uint32_t *s, size_t n) {
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < 128) {
            for (size_t k = 0; k < ascii_escaped_len[s[i]]; k++)
                out[len++] = (unsigned char)ascii_escaped[s[i]][k];
        } else {
            out[len++] = s[i];
        }
    }
    return len;
}

/* ---- random units ------------------------------------------------------ */

/* xorshift64*: reproducible inputs; the seed is printed. */
static uint64_t rng_state;

static uint64_t rng_next(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(2685821657736338717);
}

static void seed_from_env(void) {
    const char *replay = getenv("MARKUP_TEST_SEED");
    rng_state = replay ? strtoull(replay, NULL, 10)
                       : UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)(uintptr_t)&rng_state;
    if (rng_state == 0) rng_state = 1;
    print_message("seed %llu (MARKUP_TEST_SEED to replay)\n", (unsigned long long)rng_state);
}

static const char specials[] = "&<>\"'";

/* A unit of width w (2 or 4 bytes) from a mix of specials, ASCII, Latin-1,
   surrogates, arbitrary values, and units whose low byte is a special
   while the unit is not (U+0126, U+3C3C, U+10026, 0x8000003E ...). */
static uint32_t random_unit(size_t w) {
    uint64_t r = rng_next();
    uint32_t hi = (uint32_t)(r >> 32);
    uint32_t special = (unsigned char)specials[(r >> 8) % 5];
    switch (r % 8) {
    case 0:
    case 1: return special;
    case 2: return 0x20 + hi % 0x5F;
    case 3: return hi % 0x20;
    case 4: return 0x80 + hi % 0x80;
    case 5: /* a special in the low byte, anything non-zero above it */
        if (w == 2) return special | (1 + hi % 0xFF) << 8;
        return special | (1 + hi % 0xFFFFFF) << 8;
    case 6: return 0xD800 + hi % 0x800;
    default: return w == 2 ? hi & 0xFFFF : hi;
    }
}

static const markup_escape_impl all_impls[] = {MARKUP_ESCAPE_AUTO, MARKUP_ESCAPE_SCALAR,
                                               MARKUP_ESCAPE_SSE2, MARKUP_ESCAPE_AVX2};
#define N_IMPLS (sizeof all_impls / sizeof all_impls[0])

/* ---- checks, one per width --------------------------------------------- */

/* The same check for both widths: s holds n units of w bytes; wide is the
   same text widened to 32 bits. */
static markup_status escape_w(void *dst, size_t cap, const void *s, size_t n, size_t *written,
                              markup_escape_impl impl, size_t w) {
    if (w == 2) return markup_escape_u16_using(dst, cap, s, n, written, impl);
    return markup_escape_u32_using(dst, cap, s, n, written, impl);
}

static size_t size_w(const void *s, size_t n, size_t w) {
    return w == 2 ? markup_escape_u16_size(s, n) : markup_escape_u32_size(s, n);
}

static uint32_t get_w(const void *p, size_t i, size_t w) {
    return w == 2 ? ((const uint16_t *)p)[i] : ((const uint32_t *)p)[i];
}

/* Escapes s with `impl` into an array of exactly the escaped size (so a
   sanitizer sees any store past it) and compares with the reference; then
   checks that one unit less is refused. */
static void check_impl(markup_escape_impl impl, const void *s, size_t n, size_t w) {
    uint32_t *wide = malloc((n + 1) * sizeof *wide);
    uint32_t *expected = malloc((5 * n + 1) * sizeof *expected);
    assert_non_null(wide);
    assert_non_null(expected);
    for (size_t i = 0; i < n; i++) wide[i] = get_w(s, i, w);
    size_t expected_len = reference_escape(expected, wide, n);

    if (size_w(s, n, w) != expected_len) {
        print_error("u%zu size %zu, reference %zu, n=%zu\n", w * 8, size_w(s, n, w), expected_len,
                    n);
        fail();
    }
    void *dst = expected_len ? malloc(expected_len * w) : NULL;
    size_t written = 12345;
    assert_int_equal(escape_w(dst, expected_len, s, n, &written, impl, w), MARKUP_OK);
    assert_int_equal(written, expected_len);
    for (size_t i = 0; i < expected_len; i++) {
        if (get_w(dst, i, w) != expected[i]) {
            print_error("u%zu impl %s differs from the reference at unit %zu of %zu (n=%zu)\n",
                        w * 8, markup_escape_impl_name(impl), i, expected_len, n);
            fail();
        }
    }
    free(dst);

    if (expected_len > 0) {
        size_t cap = expected_len - 1;
        dst = cap ? malloc(cap * w) : NULL;
        written = 12345;
        assert_int_equal(escape_w(dst, cap, s, n, &written, impl, w), MARKUP_ERR_INVALID_ARG);
        assert_int_equal(written, 0);
        free(dst);
    }
    free(expected);
    free(wide);
}

static void check_all_impls(const void *s, size_t n, size_t w) {
    for (size_t i = 0; i < N_IMPLS; i++)
        if (markup_escape_impl_available(all_impls[i])) check_impl(all_impls[i], s, n, w);
}

/* n units of width w, made by `unit`, in an array that ends where its
   allocation ends, `align` units after the allocation's start. */
static void *make_units(void **storage, size_t align, size_t n, size_t w,
                        uint32_t (*unit)(size_t w)) {
    size_t bytes = (align + n) * w;
    *storage = malloc(bytes ? bytes : 1);
    assert_non_null(*storage);
    char *s = (char *)*storage + align * w;
    for (size_t k = 0; k < n; k++) {
        uint32_t c = unit(w);
        if (w == 2) {
            uint16_t c16 = (uint16_t)c;
            memcpy(s + k * 2, &c16, 2);
        } else {
            memcpy(s + k * 4, &c, 4);
        }
    }
    return s;
}

/* ---- tests ------------------------------------------------------------- */

static int setup(void **state) {
    (void)state;
    build_reference();
    return 0;
}

static void test_entity_spellings(void **state) {
    (void)state;
    const char *in = "Tea & cake <b>\"q\" 'a'";
    const char *out = "Tea &amp; cake &lt;b&gt;&#34;q&#34; &#39;a&#39;";
    size_t n = strlen(in), len = strlen(out);
    uint16_t in16[64], out16[64];
    uint32_t in32[64], out32[64];
    for (size_t k = 0; k < n; k++) in16[k] = (uint16_t)(in32[k] = (unsigned char)in[k]);
    for (size_t i = 0; i < N_IMPLS; i++) {
        if (!markup_escape_impl_available(all_impls[i])) continue;
        size_t written = 0;
        assert_int_equal(markup_escape_u16_using(out16, len, in16, n, &written, all_impls[i]),
                         MARKUP_OK);
        assert_int_equal(written, len);
        for (size_t k = 0; k < len; k++) assert_int_equal(out16[k], (unsigned char)out[k]);
        assert_int_equal(markup_escape_u32_using(out32, len, in32, n, &written, all_impls[i]),
                         MARKUP_OK);
        assert_int_equal(written, len);
        for (size_t k = 0; k < len; k++) assert_int_equal(out32[k], (unsigned char)out[k]);
    }
    assert_int_equal(markup_escape_u16_size(in16, n), len);
    assert_int_equal(markup_escape_u32_size(in32, n), len);
}

/* Units that share their low byte (or, narrowed with saturation, could be
   mistaken) with a special are copied, at every position of a SIMD block. */
static void test_lookalike_units_pass_through(void **state) {
    (void)state;
    static const uint16_t look16[] = {0x0126, 0x2026, 0x013C, 0x3C3C, 0x3E00, 0xFF22, 0x0227,
                                      0x8026, 0xFF3E, 0xD83C, 0xDC26, 0x00FF, 0xFFFF, 0x0080};
    static const uint32_t look32[] = {0x10026, 0x1003C,    0x2003E,    0x10022,    0x10027,
                                      0x0126,  0x2026,     0x80000026, 0xFFFFFF3C, 0x7FFF0022,
                                      0x7FFF,  0x8000,     0xFFFF0027, 0x0100003E, 0x10FFFF,
                                      0xD83C,  0xFFFFFFFF, 0x000100FF, 0x00260000, 0x3C000000};
    uint16_t s16[200], d16[200];
    uint32_t s32[200], d32[200];
    for (size_t n = 1; n < 200; n++) {
        for (size_t k = 0; k < n; k++) {
            s16[k] = look16[(k * 7 + n) % (sizeof look16 / sizeof look16[0])];
            s32[k] = look32[(k * 7 + n) % (sizeof look32 / sizeof look32[0])];
        }
        assert_int_equal(markup_escape_u16_size(s16, n), n);
        assert_int_equal(markup_escape_u32_size(s32, n), n);
        for (size_t i = 0; i < N_IMPLS; i++) {
            if (!markup_escape_impl_available(all_impls[i])) continue;
            size_t written = 0;
            assert_int_equal(markup_escape_u16_using(d16, n, s16, n, &written, all_impls[i]),
                             MARKUP_OK);
            assert_int_equal(written, n);
            assert_memory_equal(d16, s16, n * sizeof *s16);
            assert_int_equal(markup_escape_u32_using(d32, n, s32, n, &written, all_impls[i]),
                             MARKUP_OK);
            assert_int_equal(written, n);
            assert_memory_equal(d32, s32, n * sizeof *s32);
        }
    }
    /* One real special among them is escaped, and only it. */
    s16[0] = 0x0126;
    s16[1] = '&';
    s16[2] = 0x2026;
    assert_int_equal(markup_escape_u16_size(s16, 3), 7);
    size_t written = 0;
    assert_int_equal(markup_escape_u16(d16, 7, s16, 3, &written), MARKUP_OK);
    static const uint16_t want16[] = {0x0126, '&', 'a', 'm', 'p', ';', 0x2026};
    assert_memory_equal(d16, want16, sizeof want16);
    s32[0] = 0x10026;
    s32[1] = '<';
    s32[2] = 0x1003C;
    assert_int_equal(markup_escape_u32_size(s32, 3), 6);
    assert_int_equal(markup_escape_u32(d32, 6, s32, 3, &written), MARKUP_OK);
    static const uint32_t want32[] = {0x10026, '&', 'l', 't', ';', 0x1003C};
    assert_memory_equal(d32, want32, sizeof want32);
}

static void test_all_lengths_and_alignments(void **state) {
    (void)state;
    seed_from_env();
    for (size_t w = 2; w <= 4; w += 2) {
        for (size_t n = 0; n <= 300; n++) {
            /* Offsets in whole units cover every position within a block
               of 16 units (32 or 64 bytes). */
            for (size_t align = 0; align < 17; align++) {
                void *storage;
                const void *s = make_units(&storage, align, n, w, random_unit);
                check_all_impls(s, n, w);
                free(storage);
            }
        }
    }
}

/* A special or a plain letter, for inputs where specials are sparse. */
static uint32_t sparse_unit(size_t w) {
    uint64_t r = rng_next();
    if (r % 29 == 0) return (unsigned char)specials[(r >> 8) % 5];
    if (r % 3 == 0)
        return w == 2 ? 0x4E00 + (uint32_t)(r >> 40) % 0x5000
                      : 0x1F600 + (uint32_t)(r >> 40) % 0x50;
    return 'a' + (uint32_t)(r >> 40) % 26;
}

static uint32_t amp_unit(size_t w) {
    (void)w;
    return '&';
}

static uint32_t lt_unit(size_t w) {
    (void)w;
    return '<';
}

static void test_long_inputs(void **state) {
    (void)state;
    /* Longer than the per-lane counters' 255 blocks, random and sparse. */
    seed_from_env();
    for (size_t w = 2; w <= 4; w += 2) {
        void *storage;
        const void *s = make_units(&storage, 0, 70000, w, random_unit);
        check_all_impls(s, 70000, w);
        free(storage);
        s = make_units(&storage, 3, 70001, w, sparse_unit);
        check_all_impls(s, 70001, w);
        free(storage);
    }
    /* All specials: the worst case, 5x (and 4x for < >). */
    for (size_t w = 2; w <= 4; w += 2) {
        void *storage;
        const void *s = make_units(&storage, 0, 300000, w, amp_unit);
        assert_int_equal(size_w(s, 300000, w), 5 * 300000);
        check_all_impls(s, 300000, w);
        free(storage);
        s = make_units(&storage, 0, 300000, w, lt_unit);
        assert_int_equal(size_w(s, 300000, w), 4 * 300000);
        free(storage);
    }
}

/* A Latin-1 string escaped as bytes by markup_escape (every
   implementation) equals the same code points escaped as 16-bit units: the
   specials are ASCII and bytes >= 0x80 pass through. This is what lets a
   binding escape CPython's 1-byte strings with the byte escaper. */
static void test_latin1_through_the_byte_escaper(void **state) {
    (void)state;
    seed_from_env();
    static unsigned char bytes[600];
    static uint16_t wide[600], expected[3000];
    for (size_t n = 0; n <= 600; n++) {
        for (size_t k = 0; k < n; k++) {
            uint64_t r = rng_next();
            bytes[k] =
                r % 4 == 0 ? (unsigned char)specials[(r >> 8) % 5] : (unsigned char)(r >> 16);
        }
        if (n == 256)
            for (size_t k = 0; k < 256; k++) bytes[k] = (unsigned char)k;
        for (size_t k = 0; k < n; k++) wide[k] = bytes[k];
        size_t expected_len = markup_escape_u16_size(wide, n), written = 0;
        assert_int_equal(markup_escape_u16(expected, expected_len, wide, n, &written), MARKUP_OK);
        for (size_t i = 0; i < N_IMPLS; i++) {
            if (!markup_escape_impl_available(all_impls[i])) continue;
            markup_buf buf;
            markup_buf_init(&buf, NULL);
            assert_int_equal(markup_escape_using(&buf, (const char *)bytes, n, all_impls[i]),
                             MARKUP_OK);
            assert_int_equal(buf.len, expected_len);
            for (size_t k = 0; k < buf.len; k++)
                assert_int_equal((unsigned char)buf.data[k], expected[k]);
            markup_buf_free(&buf);
        }
        /* The byte escaper's count agrees: nothing to escape <=> size n. */
        assert_int_equal(markup_escape_count((const char *)bytes, n) == 0, expected_len == n);
    }
}

static void test_arguments(void **state) {
    (void)state;
    uint16_t d16[8];
    uint32_t d32[8];
    const uint16_t a16[] = {'a', '&'};
    const uint32_t a32[] = {'a', '&'};
    size_t written = 99;

    assert_int_equal(markup_escape_u16_size(NULL, 0), 0);
    assert_int_equal(markup_escape_u16_size(NULL, 5), 0);
    assert_int_equal(markup_escape_u32_size(NULL, 5), 0);
    assert_int_equal(markup_escape_u16_size(a16, 0), 0);

    /* Empty input: nothing to write, even into nothing. */
    assert_int_equal(markup_escape_u16(NULL, 0, NULL, 0, &written), MARKUP_OK);
    assert_int_equal(written, 0);
    assert_int_equal(markup_escape_u32(NULL, 0, a32, 0, NULL), MARKUP_OK);

    /* NULL with a length. */
    written = 99;
    assert_int_equal(markup_escape_u16(d16, 8, NULL, 2, &written), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(written, 0);
    assert_int_equal(markup_escape_u32(NULL, 8, a32, 2, &written), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_escape_u32(NULL, 0, a32, 2, &written), MARKUP_ERR_INVALID_ARG);

    /* `written` may be NULL. */
    assert_int_equal(markup_escape_u16(d16, 6, a16, 2, NULL), MARKUP_OK);
    assert_int_equal(d16[1], '&');
    assert_int_equal(d16[5], ';');
    assert_int_equal(markup_escape_u32(d32, 5, a32, 2, NULL), MARKUP_ERR_INVALID_ARG);

    /* Unknown and unavailable implementations. */
    assert_int_equal(markup_escape_u16_using(d16, 8, a16, 2, &written, (markup_escape_impl)42),
                     MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_escape_u32_using(d32, 8, a32, 2, &written, (markup_escape_impl)42),
                     MARKUP_ERR_INVALID_ARG);
    for (size_t i = 0; i < N_IMPLS; i++) {
        markup_status want =
            markup_escape_impl_available(all_impls[i]) ? MARKUP_OK : MARKUP_ERR_INVALID_ARG;
        assert_int_equal(markup_escape_u16_using(d16, 8, a16, 2, &written, all_impls[i]), want);
        assert_int_equal(markup_escape_u32_using(d32, 8, a32, 2, &written, all_impls[i]), want);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entity_spellings),
        cmocka_unit_test(test_lookalike_units_pass_through),
        cmocka_unit_test(test_all_lengths_and_alignments),
        cmocka_unit_test(test_long_inputs),
        cmocka_unit_test(test_latin1_through_the_byte_escaper),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
