/*
 * output.c - the FILE* sink and the new-string result shared by the
 * *_render_file and *_render_string functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_impl.h"
#include "output_impl.h"

markup_status markup_file_sink_(void *f, const char *data, size_t n) {
    return fwrite(data, 1, n, (FILE *)f) == n ? MARKUP_OK : MARKUP_ERR_IO;
}

markup_status markup_file_result_(markup_status st, markup_error *err) {
    if (st == MARKUP_ERR_IO && err != NULL && err->code == MARKUP_ERR_IO)
        err->msg = "writing to the FILE failed (ferror() is set; errno says why)";
    return st;
}

char *markup_buf_to_string_(markup_buf *buf, size_t *len, markup_error *err) {
    /* A copy, not the buffer's own block: that one comes from the buffer's
       allocator and may have room to spare, while the caller frees the
       string with free(). */
    char *s = buf->len < SIZE_MAX ? malloc(buf->len + 1) : NULL;
    if (s == NULL) {
        markup_buf_free(buf);
        markup_fail_status_(err, MARKUP_ERR_NOMEM);
        return NULL;
    }
    if (buf->len) memcpy(s, buf->data, buf->len);
    s[buf->len] = '\0';
    if (len != NULL) *len = buf->len;
    markup_buf_free(buf);
    return s;
}
