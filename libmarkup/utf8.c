/*
 * utf8.c - UTF-8 validation: ASCII a word at a time, the rest through
 * utf8proc.
 */
#include <stdint.h>
#include <string.h>
#include <utf8proc.h>

#include "markup/binding.h"
#include "error_impl.h"
#include "utf8_impl.h"

#define HIGHS UINT64_C(0x8080808080808080)

size_t markup_utf8_sequence_(const char *s, size_t n) {
    /* utf8proc_iterate (2.8) rejects overlongs, surrogates, code points
       above U+10FFFF, stray continuation bytes and truncated sequences;
       test_utf8.c holds it to that. Never hand it more than one sequence. */
    utf8proc_int32_t cp;
    utf8proc_ssize_t len =
        utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)(n < 4 ? n : 4), &cp);
    if (len <= 0 || cp < 0) return 0;
    /* Cheap re-check of the RFC 3629 ranges, so an older utf8proc that is
       laxer about overlongs or surrogates cannot let them through. */
    static const utf8proc_int32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (len > 4 || cp < min_for_len[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return (size_t)len;
}

markup_status markup_utf8_validate(const char *s, size_t n, markup_error *err) {
    markup_clear_(err);
    if (s == NULL && n != 0) {
        if (err)
            *err = (markup_error){MARKUP_ERR_INVALID_ARG,
                                  MARKUP_POS_NONE,
                                  "NULL string with non-zero length",
                                  NULL,
                                  NULL,
                                  NULL};
        return MARKUP_ERR_INVALID_ARG;
    }
    size_t i = 0;
    while (i < n) {
        /* ASCII fast path: whole words with no high bit set. */
        while (n - i >= 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (w & HIGHS) break;
            i += 8;
        }
        while (i < n && (unsigned char)s[i] < 0x80) i++;
        if (i == n) break;
        size_t len = markup_utf8_sequence_(s + i, n - i);
        if (len == 0) {
            if (err)
                *err = (markup_error){
                    MARKUP_ERR_INVALID_UTF8, i, "not well-formed UTF-8", NULL, "s", NULL};
            return MARKUP_ERR_INVALID_UTF8;
        }
        i += len;
    }
    return MARKUP_OK;
}
