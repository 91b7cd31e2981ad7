/*
 * fuzz_escape_wide.c - the 16- and 32-bit escapers (markup_escape_u16,
 * markup_escape_u32 and their _size functions) against the byte escaper and
 * the reference, every implementation the CPU has.
 *
 * For each input (after a 2-byte options header) and each width, the bytes
 * become units three ways:
 *   - as Latin-1, one unit per byte: the output must be markup_escape's
 *     output, unit for unit (itself checked against the reference). This is
 *     what lets a binding escape 1-byte text with the byte escaper;
 *   - the same with the `high` option as a high byte of every unit, so that
 *     units such as U+0126 or U+10026, whose low byte is a special, appear:
 *     unless high is 0, nothing may change;
 *   - as raw little-endian units (any 16- or 32-bit value), against the
 *     reference applied to the units below 0x80.
 * The units sit at every unit offset (offset % 17) and end at the end of
 * their allocation, with the units before them poisoned; the output array
 * has exactly the size the _size function gives, so a store past it is an
 * ASan report; and with one unit less the call is refused.
 */
#include "fuzz_common.h"

typedef struct wide_options {
    uint8_t offset; /* units placed offset % 17 units into their block */
    uint8_t high;   /* high byte of every unit in the second view */
} wide_options;

static FUZZ_NO_COVERAGE uint32_t unit_get(const void *p, size_t i, size_t w) {
    if (w == 2) {
        uint16_t u;
        memcpy(&u, (const char *)p + 2 * i, 2);
        return u;
    }
    uint32_t u;
    memcpy(&u, (const char *)p + 4 * i, 4);
    return u;
}

static FUZZ_NO_COVERAGE void unit_set(void *p, size_t i, uint32_t u, size_t w) {
    if (w == 2) {
        uint16_t u16 = (uint16_t)u;
        memcpy((char *)p + 2 * i, &u16, 2);
    } else {
        memcpy((char *)p + 4 * i, &u, 4);
    }
}

/* The reference for units: one below 0x80 is escaped as that byte, any
   other is copied. Returns *len units of w bytes (free with free()). */
static FUZZ_NO_COVERAGE void *ref_escape_units(const void *units, size_t n, size_t w, size_t *len) {
    void *out = malloc(5 * n * w + 1);
    FUZZ_CHECK(out != NULL);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u = unit_get(units, i, w);
        const char *e = u < 0x80 ? fuzz_ref_entity((unsigned char)u) : NULL;
        if (e == NULL) {
            unit_set(out, k++, u, w);
        } else {
            for (; *e; e++) unit_set(out, k++, (unsigned char)*e, w);
        }
    }
    *len = k;
    return out;
}

/* Every implementation of the w-byte escaper on units[0..n) against
   expected[0..expected_len). */
static void check_units(const void *units, size_t n, size_t w, const void *expected,
                        size_t expected_len) {
    size_t size = w == 2 ? markup_escape_u16_size(units, n) : markup_escape_u32_size(units, n);
    FUZZ_CHECK(size == expected_len);
    FUZZ_CHECK(size >= n);
    static const markup_escape_impl impls[] = {MARKUP_ESCAPE_AUTO, MARKUP_ESCAPE_SCALAR,
                                               MARKUP_ESCAPE_SSE2, MARKUP_ESCAPE_AVX2};
    for (size_t k = 0; k < sizeof impls / sizeof impls[0]; k++) {
        const markup_escape_impl impl = impls[k];
        /* Exactly the size, then one unit less. */
        for (size_t less = 0; less <= (size > 0); less++) {
            size_t cap = size - less;
            void *out = cap ? malloc(cap * w) : NULL;
            FUZZ_CHECK(cap == 0 || out != NULL);
            size_t written = 7;
            markup_status st = w == 2 ? markup_escape_u16_using(out, cap, units, n, &written, impl)
                                      : markup_escape_u32_using(out, cap, units, n, &written, impl);
            if (less || !markup_escape_impl_available(impl)) {
                FUZZ_CHECK(st == MARKUP_ERR_INVALID_ARG);
                FUZZ_CHECK(written == 0);
            } else {
                FUZZ_CHECK(st == MARKUP_OK);
                FUZZ_CHECK(fuzz_bytes_equal(out, written * w, expected, expected_len * w));
            }
            free(out);
        }
    }
}

/* Room for n units of w bytes, `offset` units into a fresh block and
   ending at its end; the units before them are poisoned. */
static void *place_units(void **block, size_t offset, size_t n, size_t w) {
    size_t bytes = (offset + n) * w;
    *block = malloc(bytes ? bytes : 1);
    FUZZ_CHECK(*block != NULL);
    fuzz_poison(*block, offset * w);
    return (char *)*block + offset * w;
}

static void release_units(void *block, size_t offset, size_t w) {
    fuzz_unpoison(block, offset * w);
    free(block);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader r = {data, size};
    wide_options opt;
    fuzz_take_struct(&r, &opt, sizeof opt);
    const size_t offset = opt.offset % 17;
    const char *input = (const char *)r.p;
    const size_t n = r.n;

    /* The byte escaper's output for the input read as Latin-1. */
    markup_buf bytes;
    markup_buf_init(&bytes, NULL);
    FUZZ_CHECK(markup_escape(&bytes, input, n) == MARKUP_OK);
    fuzz_buf reference = {0};
    fuzz_ref_escape(&reference, input, n);
    FUZZ_CHECK(fuzz_bytes_equal(fuzz_tail(&bytes, 0), bytes.len, reference.data, reference.len));

    for (size_t w = 2; w <= 4; w += 2) {
        void *block;
        void *units = place_units(&block, offset, n, w);

        /* Latin-1: the byte escaper's output, widened. */
        for (size_t i = 0; i < n; i++) unit_set(units, i, (unsigned char)input[i], w);
        void *widened = malloc(bytes.len * w + 1);
        FUZZ_CHECK(widened != NULL);
        for (size_t i = 0; i < bytes.len; i++)
            unit_set(widened, i, (unsigned char)bytes.data[i], w);
        check_units(units, n, w, widened, bytes.len);
        free(widened);

        /* A high byte on every unit: lookalikes of the specials. */
        const uint32_t shift = w == 2 ? 8 : 16;
        for (size_t i = 0; i < n; i++)
            unit_set(units, i, (unsigned char)input[i] | (uint32_t)opt.high << shift, w);
        size_t expected_len;
        void *expected = ref_escape_units(units, n, w, &expected_len);
        FUZZ_CHECK(opt.high == 0 || expected_len == n);
        check_units(units, n, w, expected, expected_len);
        free(expected);
        release_units(block, offset, w);

        /* Raw little-endian units. */
        const size_t m = n / w;
        units = place_units(&block, offset, m, w);
        if (m) memcpy(units, input, m * w);
        expected = ref_escape_units(units, m, w, &expected_len);
        check_units(units, m, w, expected, expected_len);
        free(expected);
        release_units(block, offset, w);
    }

    /* The empty text may be NULL, and needs no output array. */
    size_t written = 7;
    FUZZ_CHECK(markup_escape_u16(NULL, 0, NULL, 0, &written) == MARKUP_OK && written == 0);
    FUZZ_CHECK(markup_escape_u32_size(NULL, 0) == 0);

    fuzz_buf_free(&reference);
    markup_buf_free(&bytes);
    return 0;
}
