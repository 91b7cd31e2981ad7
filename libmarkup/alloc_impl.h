/*
 * alloc_impl.h - private helpers over markup_alloc (not installed).
 *
 * Every allocation in libmarkup goes through these so that a NULL allocator
 * means libc and the size passed to free is always the size allocated.
 */
#ifndef MARKUP_ALLOC_IMPL_H
#define MARKUP_ALLOC_IMPL_H

#include "markup/binding.h"

static inline const markup_alloc *markup_alc_or_default(const markup_alloc *alc) {
    return alc ? alc : markup_alloc_default();
}

static inline void *markup_alc_malloc(const markup_alloc *alc, size_t size) {
    alc = markup_alc_or_default(alc);
    return alc->malloc(alc->ctx, size);
}

static inline void *markup_alc_realloc(const markup_alloc *alc, void *ptr, size_t old_size,
                                       size_t new_size) {
    alc = markup_alc_or_default(alc);
    if (ptr == NULL) return alc->malloc(alc->ctx, new_size);
    return alc->realloc(alc->ctx, ptr, old_size, new_size);
}

static inline void markup_alc_free(const markup_alloc *alc, void *ptr, size_t size) {
    if (ptr == NULL) return;
    alc = markup_alc_or_default(alc);
    alc->free(alc->ctx, ptr, size);
}

/* The capacity to grow an array of `cap` elements to so that `need` fit:
   1.5x, at least `need`, at least `min_cap`. 0 on overflow of `elem` bytes. */
static inline size_t markup_grow_capacity(size_t cap, size_t need, size_t min_cap, size_t elem) {
    size_t next = cap + cap / 2;
    if (next < cap) next = need; /* 1.5x overflowed: settle for what is needed */
    if (next < need) next = need;
    if (next < min_cap) next = min_cap;
    if (next > (size_t)-1 / elem) {
        if (need > (size_t)-1 / elem) return 0;
        next = need;
    }
    return next;
}

#endif /* MARKUP_ALLOC_IMPL_H */
