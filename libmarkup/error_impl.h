/*
 * error_impl.h - private: filling the caller's markup_error (not installed).
 */
#ifndef MARKUP_ERROR_IMPL_H
#define MARKUP_ERROR_IMPL_H

#include "markup/binding.h"

/* Every public function that takes `err` starts here: a success leaves it
   cleared. */
static inline void markup_clear_(markup_error *err) {
    if (err) *err = (markup_error)MARKUP_ERROR_INIT;
}

/* Stores a failure with no position in *err (NULL is allowed) and
   returns `code`. */
static inline markup_status markup_fail_(markup_error *err, markup_status code, const char *msg) {
    if (err) *err = (markup_error){code, MARKUP_POS_NONE, msg, NULL, NULL, NULL};
    return code;
}

/* A failure at byte `pos` of the argument named `arg`. */
static inline markup_status markup_fail_at_(markup_error *err, markup_status code, size_t pos,
                                            const char *arg, const char *msg) {
    if (err) *err = (markup_error){code, pos, msg, NULL, arg, NULL};
    return code;
}

/* A failure whose message is the status's own. */
static inline markup_status markup_fail_status_(markup_error *err, markup_status code) {
    return markup_fail_(err, code, markup_status_message(code));
}

/* Raw text refused: the sequence `seq` (a static string) at byte `pos` of
   the argument named `arg`, which would end the text element `element`
   (a static lower-case name, or NULL: see markup_error). */
static inline markup_status markup_refuse_(markup_error *err, size_t pos, const char *arg,
                                           const char *seq, const char *element, const char *msg) {
    if (err) *err = (markup_error){MARKUP_ERR_RAW_TEXT, pos, msg, seq, arg, element};
    return MARKUP_ERR_RAW_TEXT;
}

/* A check ran on the caller's argument `arg` under another name: a
   position it reported counts in `arg`. Returns `st`. */
static inline markup_status markup_error_in_(markup_error *err, markup_status st, const char *arg) {
    if (st != MARKUP_OK && err && err->pos != MARKUP_POS_NONE) err->arg = arg;
    return st;
}

/* A check ran on bytes the caller never gave as an argument (a tree's
   stored strings, a rendered template): the failure has no position for
   them. Returns `st`. */
static inline markup_status markup_error_unplaced_(markup_error *err, markup_status st) {
    if (st != MARKUP_OK && err) {
        err->pos = MARKUP_POS_NONE;
        err->arg = NULL;
    }
    return st;
}

#endif /* MARKUP_ERROR_IMPL_H */
