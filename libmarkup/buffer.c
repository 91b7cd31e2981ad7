/*
 * buffer.c - the growable output buffer and the default allocator.
 */
#include <stdint.h>
#include <stdlib.h>

#include "alloc_impl.h"
#include "markup/binding.h"

static void *default_malloc(void *ctx, size_t size) {
    (void)ctx;
    return malloc(size ? size : 1);
}

static void *default_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    (void)ctx;
    (void)old_size;
    return realloc(ptr, new_size ? new_size : 1);
}

static void default_free(void *ctx, void *ptr, size_t size) {
    (void)ctx;
    (void)size;
    free(ptr);
}

static const markup_alloc default_alloc = {default_malloc, default_realloc, default_free, NULL};

const markup_alloc *markup_alloc_default(void) { return &default_alloc; }

void markup_buf_init(markup_buf *buf, const markup_alloc *alc) {
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
    buf->alc = alc;
}

void markup_buf_free(markup_buf *buf) {
    if (buf == NULL) return;
    markup_alc_free(buf->alc, buf->data, buf->cap);
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
}

/* Small buffers start here so that a handful of tiny appends do not each
   reallocate. */
#define MARKUP_BUF_MIN_CAP 64

markup_status markup_buf_grow(markup_buf *buf, size_t additional) {
    if (buf == NULL) return MARKUP_ERR_INVALID_ARG;
    if (additional > SIZE_MAX - buf->len) return MARKUP_ERR_TOO_LARGE;
    size_t need = buf->len + additional;
    if (need <= buf->cap) return MARKUP_OK;
    size_t new_cap = markup_grow_capacity(buf->cap, need, MARKUP_BUF_MIN_CAP, 1);
    char *data = markup_alc_realloc(buf->alc, buf->data, buf->cap, new_cap);
    if (data == NULL) return MARKUP_ERR_NOMEM;
    buf->data = data;
    buf->cap = new_cap;
    return MARKUP_OK;
}

char *markup_buf_detach(markup_buf *buf, size_t *len, size_t *cap) {
    if (buf == NULL) {
        if (len) *len = 0;
        if (cap) *cap = 0;
        return NULL;
    }
    char *data = buf->data;
    if (len) *len = buf->len;
    if (cap) *cap = buf->cap;
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
    return data;
}
