/*
 * html_impl.h - private: what writer.c needs of html.c's tag table beyond
 * the public header (not installed).
 */
#ifndef MARKUP_HTML_IMPL_H
#define MARKUP_HTML_IMPL_H

#include <stddef.h>

/* The tag's name as the class table spells it (lower case, a static
   string), or NULL for a tag the table does not hold. */
const char *markup_html_tag_name_(const char *tag, size_t n);

#endif /* MARKUP_HTML_IMPL_H */
