/*
 * error_impl.h - private: filling the caller's markup_error (not installed).
 */
#ifndef MARKUP_ERROR_IMPL_H
#define MARKUP_ERROR_IMPL_H

#include "markup/markup.h"

/* Stores the failure in *err (NULL is allowed) and returns `code`. */
static inline markup_status markup_fail_(markup_error *err, markup_status code, size_t pos,
                                         const char *msg) {
    if (err) *err = (markup_error){code, pos, msg, NULL};
    return code;
}

/* A failure whose message is the status's own. */
static inline markup_status markup_fail_status_(markup_error *err, markup_status code) {
    return markup_fail_(err, code, 0, markup_status_str(code));
}

/* Raw text refused: the sequence `seq` (a static string) at `pos`. */
static inline markup_status markup_refuse_(markup_error *err, size_t pos, const char *seq,
                                           const char *msg) {
    if (err) *err = (markup_error){MARKUP_ERR_RAW_TEXT, pos, msg, seq};
    return MARKUP_ERR_RAW_TEXT;
}

#endif /* MARKUP_ERROR_IMPL_H */
