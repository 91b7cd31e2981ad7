/*
 * fuzz_escape.c - the escaper is the security boundary: one missed byte is
 * an XSS hole, so every implementation is checked against everything else.
 *
 * For each input (after a 4-byte options header):
 *   - every implementation the CPU has (scalar, SSE2, AVX2, and the AUTO
 *     choice through markup_escape) gives exactly the bytes of the
 *     reference escaper in fuzz_common.h;
 *   - the output, read back independently, holds none of < > " ' , every &
 *     starts one of the five entities, and decoding it gives the input;
 *   - the input sits at every alignment (offset % 64) and ends exactly at
 *     the end of its allocation, so an over-read is an ASan report;
 *   - the output buffer already holds bytes (append semantics), the input
 *     is also escaped in two appends, an allocation can be made to fail
 *     (the buffer must then be rolled back), and the buffer does not
 *     reserve far more than it writes;
 *   - markup_escape_count equals the number of special bytes,
 *     markup_escape_span the offset of the first, and after reserving
 *     markup_escape_room for the count (or for n, uncounted) no
 *     implementation allocates;
 *   - markup_escape_counted writes the same text with at most one
 *     allocation of no more than n + 4 * count + 128 bytes;
 *   - an implementation the CPU lacks is refused with INVALID_ARG.
 */
#include "fuzz_common.h"

#include "escape_impl.h" /* MARKUP_ESCAPE_CHUNK and _SLACK: the growth bound */

typedef struct escape_options {
    uint8_t offset;  /* input placed at offset % 64 inside a larger block */
    uint8_t prefix;  /* bytes (prefix % 48) already in the output buffer */
    uint8_t split;   /* second pass escapes [0, cut) then [cut, n) */
    uint8_t fail_at; /* when non-zero, the fail_at-th allocation fails */
} escape_options;

/* Output-buffer contents present before each escape call; it contains
   the special bytes so that re-escaping them would show. */
static const char prefix_pattern[] = "<&>\"'pre&amp;fix<<>>''\"\"&&\0x\xff\xfe<!-- -->abcdefgh";

/* Reads `out` back as escaped HTML: no raw < > " ', every & one of the
   five entities, and the decoded bytes equal `in`. Independent of the
   reference escaper on purpose. */
static FUZZ_NO_COVERAGE void check_escaped_form(const char *out, size_t out_len, const char *in,
                                                size_t in_len) {
    static const struct {
        const char *entity;
        size_t len;
        char decoded;
    } entities[] = {
        {"&amp;", 5, '&'}, {"&lt;", 4, '<'},   {"&gt;", 4, '>'},
        {"&#34;", 5, '"'}, {"&#39;", 5, '\''},
    };
    size_t i = 0, j = 0;
    while (i < out_len) {
        char c = out[i];
        FUZZ_CHECK(c != '<' && c != '>' && c != '"' && c != '\'');
        if (c == '&') {
            size_t k = 0;
            while (k < 5 && !(out_len - i >= entities[k].len &&
                              fuzz_bytes_equal(out + i, entities[k].len, entities[k].entity,
                                               entities[k].len))) {
                k++;
            }
            FUZZ_CHECK(k < 5); /* an & that starts no entity */
            c = entities[k].decoded;
            i += entities[k].len;
        } else {
            i++;
        }
        FUZZ_CHECK(j < in_len && in[j] == c); /* decoding does not give the input back */
        j++;
    }
    FUZZ_CHECK(j == in_len);
}

/* Starts a buffer that already holds `prefix_len` bytes. */
static void start_buffer(markup_buf *buf, fuzz_alloc *alc, size_t prefix_len) {
    markup_buf_init(buf, &alc->hooks);
    fuzz_alloc_fail_in(alc, 0);
    FUZZ_CHECK(markup_buf_append(buf, prefix_pattern, prefix_len) == MARKUP_OK);
}

/* After a call: either it failed from the injected allocation failure and
   rolled back, or it succeeded and the buffer is prefix + expected. */
static FUZZ_NO_COVERAGE void check_buffer(const markup_buf *buf, markup_status st,
                                          size_t failures_before, const fuzz_alloc *alc,
                                          size_t prefix_len, const fuzz_buf *expected) {
    FUZZ_CHECK(buf->len >= prefix_len);
    FUZZ_CHECK(prefix_len == 0 ||
               fuzz_bytes_equal(buf->data, prefix_len, prefix_pattern, prefix_len));
    if (st == MARKUP_ERR_NOMEM) {
        FUZZ_CHECK(alc->failures > failures_before); /* NOMEM without a failed allocation */
        FUZZ_CHECK(buf->len == prefix_len);          /* not rolled back */
        return;
    }
    FUZZ_CHECK(st == MARKUP_OK);
    FUZZ_CHECK(fuzz_bytes_equal(fuzz_tail(buf, prefix_len), buf->len - prefix_len, expected->data,
                                expected->len));
    /* Grows by what is written (geometrically) plus one piece's worst
       case, not by five times the input. The output is at least as long
       as the input, so it bounds the piece too. */
    size_t written = buf->len - prefix_len;
    size_t piece = written < MARKUP_ESCAPE_CHUNK ? written : MARKUP_ESCAPE_CHUNK;
    FUZZ_CHECK(buf->cap <= 2 * buf->len + 5 * piece + MARKUP_ESCAPE_SLACK + 64);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader r = {data, size};
    escape_options opt;
    fuzz_take_struct(&r, &opt, sizeof opt);
    const size_t offset = opt.offset % 64;
    const size_t prefix_len = opt.prefix % 48;
    const size_t n = r.n;

    /* The input ends exactly at the end of its block, at every alignment;
       the bytes before it are poisoned, so a read on either side is caught. */
    char *block = calloc(1, offset + n ? offset + n : 1);
    FUZZ_CHECK(block != NULL);
    char *input = block + offset;
    if (n) memcpy(input, r.p, n);
    fuzz_poison(block, offset);

    fuzz_buf expected = {0};
    fuzz_ref_escape(&expected, input, n);
    check_escaped_form(expected.data, expected.len, input, n); /* the reference itself */

    FUZZ_CHECK(markup_escape_count(input, n) == fuzz_ref_escape_count(input, n));
    FUZZ_CHECK(markup_escape_span(input, n) == fuzz_ref_escape_span(input, n));

    fuzz_alloc alc;
    fuzz_alloc_init(&alc);

    static const markup_escape_impl impls[] = {MARKUP_ESCAPE_AUTO, MARKUP_ESCAPE_SCALAR,
                                               MARKUP_ESCAPE_SSE2, MARKUP_ESCAPE_AVX2};
    for (size_t k = 0; k <= sizeof impls / sizeof impls[0]; k++) {
        const bool via_default = k == sizeof impls / sizeof impls[0];
        const markup_escape_impl impl = via_default ? MARKUP_ESCAPE_AUTO : impls[k];
        markup_buf buf;
        start_buffer(&buf, &alc, prefix_len);
        if (!markup_escape_impl_available(impl)) {
            FUZZ_CHECK(markup_escape_using(&buf, input, n, impl) == MARKUP_ERR_INVALID_ARG);
            FUZZ_CHECK(buf.len == prefix_len);
            markup_buf_free(&buf);
            continue;
        }
        size_t failures = alc.failures;
        fuzz_alloc_fail_in(&alc, opt.fail_at);
        markup_status st =
            via_default ? markup_escape(&buf, input, n) : markup_escape_using(&buf, input, n, impl);
        fuzz_alloc_fail_in(&alc, 0);
        check_buffer(&buf, st, failures, &alc, prefix_len, &expected);
        if (st == MARKUP_OK) {
            check_escaped_form(fuzz_tail(&buf, prefix_len), buf.len - prefix_len, input, n);
        }
        markup_buf_free(&buf);

        /* After reserving markup_escape_room, for the count or for the
           uncounted worst case, the escape allocates nothing. */
        for (int counted = 0; counted < 2; counted++) {
            start_buffer(&buf, &alc, prefix_len);
            size_t room = markup_escape_room(n, counted ? markup_escape_count(input, n) : n);
            FUZZ_CHECK(room != SIZE_MAX && markup_buf_reserve(&buf, room) == MARKUP_OK);
            size_t calls = alc.calls;
            st = via_default ? markup_escape(&buf, input, n)
                             : markup_escape_using(&buf, input, n, impl);
            FUZZ_CHECK(st == MARKUP_OK && alc.calls == calls);
            markup_buf_free(&buf);
        }
    }
    /* markup_escape_counted: the same text, at most one allocation, and a
       capacity of no more than n + 4 * count + SLACK past the prefix (or
       the buffer's own growth step, or its smallest capacity); rolled back
       when that allocation fails. */
    {
        markup_buf buf;
        start_buffer(&buf, &alc, prefix_len);
        size_t cap = buf.cap, calls = alc.calls, failures = alc.failures;
        size_t count = fuzz_ref_escape_count(input, n);
        fuzz_alloc_fail_in(&alc, opt.fail_at);
        markup_status st = markup_escape_counted(&buf, input, n);
        fuzz_alloc_fail_in(&alc, 0);
        check_buffer(&buf, st, failures, &alc, prefix_len, &expected);
        FUZZ_CHECK(alc.calls - calls <= 1);
        size_t room = count ? n + 4 * count + MARKUP_ESCAPE_SLACK : n;
        /* (64: the smallest capacity a buffer takes) */
        FUZZ_CHECK(buf.cap == cap || buf.cap <= prefix_len + room || buf.cap <= cap + cap / 2 ||
                   buf.cap <= 64);
        markup_buf_free(&buf);
    }
    FUZZ_CHECK(markup_escape_impl_available(markup_escape_impl_best()));
    FUZZ_CHECK(markup_escape_impl_best() != MARKUP_ESCAPE_AUTO);

    /* Two appends give the same bytes as one; each pass starts on its own
       alignment. */
    {
        const size_t cut = n * opt.split / 255;
        markup_buf buf;
        start_buffer(&buf, &alc, prefix_len);
        size_t failures = alc.failures;
        fuzz_alloc_fail_in(&alc, opt.fail_at);
        markup_status st = markup_escape(&buf, input, cut);
        fuzz_alloc_fail_in(&alc, 0);
        if (st == MARKUP_OK) {
            st = markup_escape_using(&buf, input + cut, n - cut, MARKUP_ESCAPE_SCALAR);
            FUZZ_CHECK(st == MARKUP_OK);
        }
        check_buffer(&buf, st, failures, &alc, prefix_len, &expected);
        markup_buf_free(&buf);
    }

    /* The empty string may be a NULL pointer. */
    if (n == 0) {
        markup_buf buf;
        start_buffer(&buf, &alc, prefix_len);
        FUZZ_CHECK(markup_escape(&buf, NULL, 0) == MARKUP_OK);
        FUZZ_CHECK(buf.len == prefix_len);
        FUZZ_CHECK(markup_escape_count(NULL, 0) == 0);
        markup_buf_free(&buf);
    }

    fuzz_alloc_finish(&alc);
    fuzz_buf_free(&expected);
    fuzz_unpoison(block, offset);
    free(block);
    return 0;
}
