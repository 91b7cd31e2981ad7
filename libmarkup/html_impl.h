/*
 * html_impl.h - private: what writer.c needs of html.c's tag table beyond
 * the public header (not installed).
 */
#ifndef MARKUP_HTML_IMPL_H
#define MARKUP_HTML_IMPL_H

#include <stddef.h>

#include "markup/binding.h"

/* The tag's name as the class table spells it (lower case, a static
   string), or NULL for a tag the table does not hold. */
const char *markup_html_tag_name_(const char *tag, size_t n);

/* Trusted HTML that fills a slot inside a title, textarea, iframe, xmp,
   noembed, noframes or noscript, where nothing checks the bytes after the
   slot: it may not end in the start of one of their end tags ("<", "</",
   "</TI" ...), which those bytes could finish. RAW_TEXT with err->pos at
   that '<' (err->arg "s"). */
markup_status markup_html_check_slot_end_(const char *s, size_t n, markup_error *err);

#endif /* MARKUP_HTML_IMPL_H */
