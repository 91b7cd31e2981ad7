/*
 * output_impl.h - what the output functions of node.c, baked.c and
 * escape.c share: a sink that writes to a FILE*, and a buffer handed back
 * as a new NUL-terminated string.
 */
#ifndef MARKUP_OUTPUT_IMPL_H
#define MARKUP_OUTPUT_IMPL_H

#include "markup/binding.h"

/* The pieces a tree's writer hands to a sink: big enough that a sink
   (a socket, a FILE*) is called rarely, small enough to stay in cache. */
#define MARKUP_SINK_CHUNK 16384

/* A markup_sink writing to the FILE* `f`: MARKUP_ERR_IO on a short write. */
markup_status markup_file_sink_(void *f, const char *data, size_t n);

/* What a _file function returns for the status `st` of its render through
   markup_file_sink_: a failed write is named as one in `err`, not as a
   sink that stopped. */
markup_status markup_file_result_(markup_status st, markup_error *err);

/* The bytes of `buf` as a new malloc'd NUL-terminated string (their
   length in *len when len is not NULL); `buf` is freed either way. NULL
   with err set (NOMEM) on failure. */
char *markup_buf_to_string_(markup_buf *buf, size_t *len, markup_error *err);

#endif /* MARKUP_OUTPUT_IMPL_H */
