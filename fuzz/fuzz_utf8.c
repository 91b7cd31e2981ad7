/*
 * fuzz_utf8.c - every byte string handed to the C API is validated before
 * it is stored, so the validators must agree with independent references.
 *
 * For each input (after a 2-byte options header):
 *   - markup_utf8_validate agrees with utf8proc (a utf8proc_iterate loop,
 *     each code point checked with utf8proc_codepoint_valid) and with the
 *     hand-written decoder of fuzz_common.h, and err.pos is the first byte
 *     of the first ill-formed sequence both references find;
 *   - the input sits at every alignment (offset % 64) with poisoned bytes
 *     before it and the end of its allocation right after it;
 *   - markup_html_check_tag, markup_html_check_attr_name and
 *     markup_html_check_raw_text, the other byte-level checks on untrusted
 *     input, agree with the reference rules (status, position, tag kind).
 */
#include <utf8proc.h>

#include "fuzz_common.h"

typedef struct utf8_options {
    uint8_t offset;   /* input placed at offset % 64 inside a larger block */
    uint8_t raw_kind; /* markup_tag_kind for the raw-text check: raw_kind % 4 */
} utf8_options;

/* First byte of the first sequence utf8proc refuses, or n. */
static size_t utf8proc_first_error(const char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        utf8proc_int32_t cp = -1;
        utf8proc_ssize_t len =
            utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &cp);
        if (len <= 0 || !utf8proc_codepoint_valid(cp)) return i;
        i += (size_t)len;
    }
    return n;
}

static void check_utf8(const char *s, size_t n) {
    const size_t ref = utf8proc_first_error(s, n);
    FUZZ_CHECK(ref == fuzz_ref_utf8_error(s, n)); /* the two references disagree */

    markup_error err = MARKUP_ERROR_INIT;
    markup_status st = markup_utf8_validate(s, n, &err);
    FUZZ_CHECK(markup_utf8_validate(s, n, NULL) == st);
    if (ref == n) {
        FUZZ_CHECK(st == MARKUP_OK);
        return;
    }
    FUZZ_CHECK(st == MARKUP_ERR_INVALID_UTF8);
    FUZZ_CHECK(err.code == MARKUP_ERR_INVALID_UTF8);
    FUZZ_CHECK(err.msg != NULL);
    FUZZ_CHECK(err.pos == ref);
}

static void check_tag(const char *s, size_t n) {
    const size_t bad = fuzz_ref_tag_error(s, n);
    markup_error err = MARKUP_ERROR_INIT;
    markup_tag_kind kind = (markup_tag_kind)-1;
    markup_status st = markup_html_check_tag(s, n, &kind, &err);
    if (bad == n && n > 0) {
        FUZZ_CHECK(st == MARKUP_OK);
        FUZZ_CHECK(kind == fuzz_ref_tag_kind(s, n));
        FUZZ_CHECK(markup_html_check_tag(s, n, NULL, NULL) == MARKUP_OK);
        return;
    }
    FUZZ_CHECK(st == MARKUP_ERR_INVALID_TAG);
    FUZZ_CHECK(err.code == MARKUP_ERR_INVALID_TAG && err.msg != NULL);
    FUZZ_CHECK(err.pos == bad);
    FUZZ_CHECK(bad == MARKUP_POS_NONE ? err.arg == NULL : strcmp(err.arg, "tag") == 0);
}

static void check_attr_name(const char *s, size_t n) {
    const fuzz_attr_verdict v = fuzz_ref_attr_name(s, n);
    markup_error err = MARKUP_ERROR_INIT;
    markup_status st = markup_html_check_attr_name(s, n, &err);
    FUZZ_CHECK(markup_html_check_attr_name(s, n, NULL) == st);
    if (v.bad_char == SIZE_MAX && v.bad_utf8 == SIZE_MAX) {
        FUZZ_CHECK(st == MARKUP_OK);
        return;
    }
    FUZZ_CHECK(err.code == st && err.msg != NULL);
    if (n == 0) { /* the empty name: no byte to point at */
        FUZZ_CHECK(st == MARKUP_ERR_INVALID_ATTR_NAME && err.pos == MARKUP_POS_NONE);
        return;
    }
    FUZZ_CHECK(strcmp(err.arg, "name") == 0);
    /* A scan may meet the bad character first; a validate-first check
       reports the UTF-8 error. Both are fine, anything else is not. */
    const bool at_char =
        st == MARKUP_ERR_INVALID_ATTR_NAME && v.bad_char != SIZE_MAX && err.pos == v.bad_char;
    const bool at_utf8 = (st == MARKUP_ERR_INVALID_UTF8 || st == MARKUP_ERR_INVALID_ATTR_NAME) &&
                         v.bad_utf8 != SIZE_MAX && err.pos == v.bad_utf8;
    FUZZ_CHECK(at_char || at_utf8);
}

static void check_raw_text(markup_tag_kind kind, const char *s, size_t n) {
    const size_t bad = fuzz_ref_raw_text_error(kind, s, n);
    markup_error err = MARKUP_ERROR_INIT;
    markup_status st = markup_html_check_raw_text(kind, s, n, &err);
    if (bad == n) {
        FUZZ_CHECK(st == MARKUP_OK);
        return;
    }
    FUZZ_CHECK(st == MARKUP_ERR_RAW_TEXT);
    FUZZ_CHECK(err.code == MARKUP_ERR_RAW_TEXT && err.msg != NULL);
    FUZZ_CHECK(err.pos == bad);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader r = {data, size};
    utf8_options opt;
    fuzz_take_struct(&r, &opt, sizeof opt);
    const size_t offset = opt.offset % 64;
    const size_t n = r.n;

    char *block = calloc(1, offset + n ? offset + n : 1);
    FUZZ_CHECK(block != NULL);
    char *input = block + offset;
    if (n) memcpy(input, r.p, n);
    fuzz_poison(block, offset);

    check_utf8(input, n);
    check_tag(input, n);
    check_attr_name(input, n);
    check_raw_text((markup_tag_kind)(opt.raw_kind % 4), input, n);
    if (n == 0) {
        /* The empty string may be a NULL pointer. */
        FUZZ_CHECK(markup_utf8_validate(NULL, 0, NULL) == MARKUP_OK);
        FUZZ_CHECK(markup_html_check_raw_text(MARKUP_TAG_SCRIPT, NULL, 0, NULL) == MARKUP_OK);
    }

    fuzz_unpoison(block, offset);
    free(block);
    return 0;
}
