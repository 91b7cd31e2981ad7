/*
 * utf8_impl.h - private UTF-8 helpers shared by utf8.c and html.c.
 */
#ifndef MARKUP_UTF8_IMPL_H
#define MARKUP_UTF8_IMPL_H

#include <stddef.h>

/* Length (1-4) of the well-formed UTF-8 sequence at s[0..n), n >= 1, or 0
   when the bytes there do not start one. */
size_t markup_utf8_sequence_(const char *s, size_t n);

#endif /* MARKUP_UTF8_IMPL_H */
