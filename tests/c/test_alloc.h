/*
 * test_alloc.h - a markup_alloc for tests: fails the Nth allocation call on
 * request, counts live bytes and blocks, and checks that every free and
 * realloc passes back the size that was allocated.
 *
 * Use:
 *     for (size_t n = 0;; n++) {
 *         test_alloc ta;
 *         test_alloc_init(&ta, n);           // call number n (0-based) fails
 *         markup_status st = operation(&ta.alc);
 *         ... clean up ...
 *         assert_int_equal(ta.live_bytes, 0);
 *         if (st == MARKUP_OK) break;        // every allocation was tried
 *         assert_int_equal(st, MARKUP_ERR_NOMEM);
 *     }
 *
 * Header-only (static functions), shared by the test files of tests/c/.
 */
#ifndef MARKUP_TEST_ALLOC_H
#define MARKUP_TEST_ALLOC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "markup/binding.h"

#define TEST_ALLOC_NEVER SIZE_MAX

typedef struct test_alloc {
    markup_alloc alc;  /* hand &ta.alc to libmarkup                    */
    size_t fail_at;    /* 0-based malloc/realloc call that fails       */
    size_t calls;      /* malloc/realloc calls made so far             */
    size_t failures;   /* calls that were made to fail                 */
    size_t live_bytes; /* allocated and not yet freed                  */
    size_t live_blocks;
    size_t peak_bytes;      /* the most live_bytes ever was                 */
    size_t size_mismatches; /* free/realloc calls with the wrong size       */
} test_alloc;

/* Every block carries its size in a header so that the size libmarkup
   passes back can be checked. 16 bytes keep the payload max-aligned. */
#define TEST_ALLOC_HEADER 16

static inline void test_alloc_note_live(test_alloc *ta, size_t add, size_t sub) {
    ta->live_bytes = ta->live_bytes + add - sub;
    if (ta->live_bytes > ta->peak_bytes) ta->peak_bytes = ta->live_bytes;
}

static inline void *test_alloc_malloc(void *ctx, size_t size) {
    test_alloc *ta = (test_alloc *)ctx;
    if (ta->calls++ == ta->fail_at) {
        ta->failures++;
        return NULL;
    }
    if (size > SIZE_MAX - TEST_ALLOC_HEADER) return NULL;
    unsigned char *block = (unsigned char *)malloc(size + TEST_ALLOC_HEADER);
    if (block == NULL) return NULL;
    memcpy(block, &size, sizeof size);
    ta->live_blocks++;
    test_alloc_note_live(ta, size, 0);
    return block + TEST_ALLOC_HEADER;
}

static inline void *test_alloc_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    test_alloc *ta = (test_alloc *)ctx;
    if (ptr == NULL) return test_alloc_malloc(ctx, new_size);
    unsigned char *block = (unsigned char *)ptr - TEST_ALLOC_HEADER;
    size_t stored;
    memcpy(&stored, block, sizeof stored);
    if (stored != old_size) ta->size_mismatches++;
    if (ta->calls++ == ta->fail_at) {
        ta->failures++;
        return NULL;
    }
    if (new_size > SIZE_MAX - TEST_ALLOC_HEADER) return NULL;
    unsigned char *grown = (unsigned char *)realloc(block, new_size + TEST_ALLOC_HEADER);
    if (grown == NULL) return NULL;
    memcpy(grown, &new_size, sizeof new_size);
    test_alloc_note_live(ta, new_size, stored);
    return grown + TEST_ALLOC_HEADER;
}

static inline void test_alloc_free(void *ctx, void *ptr, size_t size) {
    test_alloc *ta = (test_alloc *)ctx;
    if (ptr == NULL) return;
    unsigned char *block = (unsigned char *)ptr - TEST_ALLOC_HEADER;
    size_t stored;
    memcpy(&stored, block, sizeof stored);
    if (stored != size) ta->size_mismatches++;
    ta->live_blocks--;
    test_alloc_note_live(ta, 0, stored);
    free(block);
}

/* Prepares `ta`; call number `fail_at` (0-based) fails, TEST_ALLOC_NEVER
   for none. */
static inline void test_alloc_init(test_alloc *ta, size_t fail_at) {
    memset(ta, 0, sizeof *ta);
    ta->alc.malloc = test_alloc_malloc;
    ta->alc.realloc = test_alloc_realloc;
    ta->alc.free = test_alloc_free;
    ta->alc.ctx = ta;
    ta->fail_at = fail_at;
}

#endif /* MARKUP_TEST_ALLOC_H */
