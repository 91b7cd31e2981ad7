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

/* How trusted HTML written where a <template>'s content has had no
   deciding start tag yet (only ones read by the head's rules: title,
   script, meta ...) leaves that template. */
typedef enum {
    MARKUP_TEMPLATE_UNDECIDED,  /* text, comments, end tags, head elements */
    MARKUP_TEMPLATE_DECIDED,    /* a start tag other than col comes first */
    MARKUP_TEMPLATE_MAY_BE_COL, /* a col comes first, or where it ends cannot be
                                   told (a tag or raw text left open) */
} markup_template_start;

/* Reads s[0..n) as the HTML tokenizer does (tags and their quoted
   attribute values, comments, the text of title, script, style and
   noframes) up to the first start tag that decides the template. */
markup_template_start markup_html_template_start_(const char *s, size_t n);

#endif /* MARKUP_HTML_IMPL_H */
