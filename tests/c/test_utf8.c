/* test_utf8.c - markup_utf8_validate: valid and invalid tables with the
   exact position of the first bad sequence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "markup/binding.h"

typedef struct bytes {
    const char *s;
    size_t n;
} bytes;

#define B(lit) {lit, sizeof(lit) - 1}

static const bytes valid[] = {
    B(""),
    B("plain ASCII"),
    B("\x00\x01\x7F"),
    B("\xC2\x80"),          /* U+0080, smallest 2-byte */
    B("\xC3\xA9t\xC3\xA9"), /* été */
    B("\xDF\xBF"),          /* U+07FF */
    B("\xE0\xA0\x80"),      /* U+0800, smallest 3-byte */
    B("\xE2\x82\xAC"),      /* € */
    B("\xED\x9F\xBF"),      /* U+D7FF, just below the surrogates */
    B("\xEE\x80\x80"),      /* U+E000, just above them */
    B("\xEF\xBF\xBF"),      /* U+FFFF */
    B("\xF0\x90\x80\x80"),  /* U+10000, smallest 4-byte */
    B("\xF0\x9F\x98\x80"),  /* emoji */
    B("\xF4\x8F\xBF\xBF"),  /* U+10FFFF, the largest */
    B("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E and more ASCII after it"),
};

typedef struct bad {
    const char *s;
    size_t n;
    size_t pos;
    const char *what;
} bad;

#define BAD(lit, pos, what) {lit, sizeof(lit) - 1, pos, what}

static const bad invalid[] = {
    BAD("\x80", 0, "lone continuation"),
    BAD("\xBF", 0, "lone continuation"),
    BAD("a\x80z", 1, "continuation after ASCII"),
    BAD("\xC3\xA9\xA9", 2, "extra continuation"),
    BAD("\xC0\x80", 0, "overlong NUL"),
    BAD("\xC1\xBF", 0, "overlong 2-byte"),
    BAD("\xE0\x80\x80", 0, "overlong 3-byte"),
    BAD("\xE0\x9F\xBF", 0, "overlong 3-byte, top"),
    BAD("\xF0\x80\x80\x80", 0, "overlong 4-byte"),
    BAD("\xF0\x8F\xBF\xBF", 0, "overlong 4-byte, top"),
    BAD("\xED\xA0\x80", 0, "surrogate D800"),
    BAD("\xED\xAF\xBF", 0, "surrogate DBFF"),
    BAD("\xED\xB0\x80", 0, "surrogate DC00"),
    BAD("\xED\xBF\xBF", 0, "surrogate DFFF"),
    BAD("\xED\xA0\x80\xED\xB0\x80", 0, "surrogate pair (CESU-8)"),
    BAD("\xF4\x90\x80\x80", 0, "U+110000"),
    BAD("\xF5\x80\x80\x80", 0, "F5 lead"),
    BAD("\xF8\x88\x80\x80\x80", 0, "5-byte form"),
    BAD("\xFC\x84\x80\x80\x80\x80", 0, "6-byte form"),
    BAD("\xFE", 0, "FE"),
    BAD("\xFF", 0, "FF"),
    BAD("\xC3", 0, "truncated 2-byte at end"),
    BAD("\xC3z", 0, "2-byte cut by ASCII"),
    BAD("\xE2\x82", 0, "truncated 3-byte"),
    BAD("\xE2\x82z", 0, "3-byte cut by ASCII"),
    BAD("\xF0\x9F\x98", 0, "truncated 4-byte"),
    BAD("ok \xE2\x82\xAC then \xF0\x9F\x98", 12, "truncated after valid text"),
    BAD("\xC3\xA9\xC3", 2, "truncated after a valid sequence"),
};

static void test_valid_table(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        markup_error err = {MARKUP_ERR_NOMEM, 99, "stale", "stale", "stale", "stale"};
        assert_int_equal(markup_utf8_validate(valid[i].s, valid[i].n, &err), MARKUP_OK);
        /* A success clears what an earlier failure left. */
        assert_int_equal(err.code, MARKUP_OK);
        assert_true(err.pos == MARKUP_POS_NONE);
        assert_null(err.msg);
        assert_null(err.refused);
        assert_null(err.arg);
        assert_int_equal(markup_utf8_validate(valid[i].s, valid[i].n, NULL), MARKUP_OK);
    }
    assert_int_equal(markup_utf8_validate(NULL, 0, NULL), MARKUP_OK);
}

static void check_invalid(const char *s, size_t n, size_t pos, const char *what) {
    markup_error err = MARKUP_ERROR_INIT;
    markup_status st = markup_utf8_validate(s, n, &err);
    if (st != MARKUP_ERR_INVALID_UTF8 || err.pos != pos) {
        print_error("%s: status %d pos %zu, expected pos %zu\n", what, st, err.pos, pos);
        fail();
    }
    assert_int_equal(err.code, MARKUP_ERR_INVALID_UTF8);
    assert_non_null(err.msg);
    assert_int_equal(markup_utf8_validate(s, n, NULL), MARKUP_ERR_INVALID_UTF8);
}

static void test_invalid_table(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
        check_invalid(invalid[i].s, invalid[i].n, invalid[i].pos, invalid[i].what);
}

static void test_invalid_after_ascii_runs(void **state) {
    (void)state;
    /* Every prefix length crosses the 8-byte ASCII fast path differently. */
    char s[64];
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        for (size_t prefix = 0; prefix <= 40; prefix++) {
            memset(s, 'a', prefix);
            memcpy(s + prefix, invalid[i].s, invalid[i].n);
            check_invalid(s, prefix + invalid[i].n, prefix + invalid[i].pos, invalid[i].what);
            /* ASCII after the bad bytes changes nothing. */
            memset(s + prefix + invalid[i].n, 'z', 8);
            check_invalid(s, prefix + invalid[i].n + 8, prefix + invalid[i].pos, invalid[i].what);
        }
    }
}

static void test_truncated_at_every_position(void **state) {
    (void)state;
    static const bytes seqs[] = {B("\xC3\xA9"), B("\xE2\x82\xAC"), B("\xEF\xBF\xBF"),
                                 B("\xF0\x9F\x98\x80"), B("\xF4\x8F\xBF\xBF")};
    char s[32];
    for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++) {
        for (size_t cut = 1; cut < seqs[i].n; cut++) {
            /* cut short at the end of the input */
            memcpy(s, "abc", 3);
            memcpy(s + 3, seqs[i].s, cut);
            check_invalid(s, 3 + cut, 3, "truncated at end");
            /* cut short by the next (ASCII or lead) byte */
            s[3 + cut] = 'x';
            check_invalid(s, 3 + cut + 1, 3, "cut by ASCII");
            memcpy(s + 3 + cut, seqs[i].s, seqs[i].n);
            check_invalid(s, 3 + cut + seqs[i].n, 3, "cut by a new sequence");
        }
        /* complete: fine, also repeated */
        memcpy(s, seqs[i].s, seqs[i].n);
        memcpy(s + seqs[i].n, seqs[i].s, seqs[i].n);
        assert_int_equal(markup_utf8_validate(s, 2 * seqs[i].n, NULL), MARKUP_OK);
    }
}

static void test_every_lead_byte(void **state) {
    (void)state;
    /* A lead byte followed by the smallest allowed continuations is valid
       exactly for C2..F4 (with E0/F0/ED/F4 range rules). */
    for (int lead = 0x80; lead < 0x100; lead++) {
        char s[4] = {(char)lead, (char)0x80, (char)0x80, (char)0x80};
        size_t len = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
        if (lead == 0xE0) s[1] = (char)0xA0;
        if (lead == 0xF0) s[1] = (char)0x90;
        bool ok = lead >= 0xC2 && lead <= 0xF4;
        markup_error err;
        markup_status st = markup_utf8_validate(s, len, &err);
        assert_int_equal(st, ok ? MARKUP_OK : MARKUP_ERR_INVALID_UTF8);
        if (!ok) assert_int_equal(err.pos, 0);
    }
}

static void test_long_input(void **state) {
    (void)state;
    static char s[100003];
    for (size_t i = 0; i + 3 <= sizeof s; i += 3)
        memcpy(s + i, (i / 3) % 5 ? "abc" : "\xE2\x82\xAC", 3);
    assert_int_equal(markup_utf8_validate(s, sizeof s - 1, NULL), MARKUP_OK);
    s[50001] = (char)0xFF;
    markup_error err;
    assert_int_equal(markup_utf8_validate(s, sizeof s - 1, &err), MARKUP_ERR_INVALID_UTF8);
    assert_true(err.pos <= 50001 && err.pos >= 49999);
}

static void test_null_with_length(void **state) {
    (void)state;
    markup_error err;
    assert_int_equal(markup_utf8_validate(NULL, 5, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(err.code, MARKUP_ERR_INVALID_ARG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_table),
        cmocka_unit_test(test_invalid_table),
        cmocka_unit_test(test_invalid_after_ascii_runs),
        cmocka_unit_test(test_truncated_at_every_position),
        cmocka_unit_test(test_every_lead_byte),
        cmocka_unit_test(test_long_input),
        cmocka_unit_test(test_null_with_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
