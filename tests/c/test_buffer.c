/* test_buffer.c - markup_buf: growth, overflow, detach, allocation failure;
   also the status names and the runtime version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "markup/binding.h"
#include "test_alloc.h"

static void assert_buf_equals(const markup_buf *buf, const char *expected) {
    size_t n = strlen(expected);
    assert_int_equal(buf->len, n);
    if (n) assert_memory_equal(buf->data, expected, n);
}

static void test_init_is_empty_and_does_not_allocate(void **state) {
    (void)state;
    test_alloc ta;
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_buf buf;
    markup_buf_init(&buf, &ta.alc);
    assert_null(buf.data);
    assert_int_equal(buf.len, 0);
    assert_int_equal(buf.cap, 0);
    assert_int_equal(ta.calls, 0);
    markup_buf_free(&buf);
    assert_int_equal(ta.live_bytes, 0);
}

static void test_append_putc_clear_truncate(void **state) {
    (void)state;
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    assert_int_equal(markup_buf_append(&buf, "hello", 5), MARKUP_OK);
    assert_int_equal(markup_buf_putc(&buf, ' '), MARKUP_OK);
    assert_int_equal(markup_buf_append(&buf, "world", 5), MARKUP_OK);
    assert_int_equal(markup_buf_append(&buf, NULL, 0), MARKUP_OK);
    assert_buf_equals(&buf, "hello world");
    markup_buf_truncate(&buf, 5);
    assert_buf_equals(&buf, "hello");
    markup_buf_truncate(&buf, 50); /* longer than len: no-op */
    assert_buf_equals(&buf, "hello");
    size_t cap = buf.cap;
    markup_buf_clear(&buf);
    assert_int_equal(buf.len, 0);
    assert_int_equal(buf.cap, cap);
    /* NUL bytes are ordinary bytes. */
    assert_int_equal(markup_buf_append(&buf, "a\0b", 3), MARKUP_OK);
    assert_int_equal(buf.len, 3);
    assert_memory_equal(buf.data, "a\0b", 3);
    markup_buf_free(&buf);
    assert_null(buf.data);
    assert_int_equal(buf.cap, 0);
    /* A freed buffer can be reused. */
    assert_int_equal(markup_buf_append(&buf, "again", 5), MARKUP_OK);
    assert_buf_equals(&buf, "again");
    markup_buf_free(&buf);
    markup_buf_free(NULL);
}

static void test_growth_is_geometric(void **state) {
    (void)state;
    test_alloc ta;
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_buf buf;
    markup_buf_init(&buf, &ta.alc);
    size_t grows = 0, last_cap = 0;
    for (size_t i = 0; i < 1000000; i++) {
        assert_int_equal(markup_buf_putc(&buf, (char)('a' + i % 26)), MARKUP_OK);
        if (buf.cap != last_cap) {
            if (last_cap >= 64) {
                /* 1.5x: never less, and never wildly more for 1-byte appends */
                assert_true(buf.cap >= last_cap + last_cap / 2);
                assert_true(buf.cap <= last_cap * 2);
            }
            last_cap = buf.cap;
            grows++;
        }
    }
    /* log_1.5(1e6 / 64) is about 24 */
    assert_true(grows < 40);
    assert_int_equal(ta.calls, grows);
    for (size_t i = 0; i < buf.len; i++) assert_int_equal(buf.data[i], (char)('a' + i % 26));
    /* A large request gets at least what it asked for. */
    assert_int_equal(markup_buf_grow(&buf, 10 * buf.cap), MARKUP_OK);
    assert_true(buf.cap - buf.len >= 10 * last_cap);
    markup_buf_free(&buf);
    assert_int_equal(ta.live_bytes, 0);
    assert_int_equal(ta.size_mismatches, 0);
}

static void test_reserve_only_allocates_when_needed(void **state) {
    (void)state;
    test_alloc ta;
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_buf buf;
    markup_buf_init(&buf, &ta.alc);
    assert_int_equal(markup_buf_reserve(&buf, 100), MARKUP_OK);
    assert_int_equal(ta.calls, 1);
    assert_true(buf.cap >= 100);
    assert_int_equal(markup_buf_reserve(&buf, 100), MARKUP_OK);
    assert_int_equal(ta.calls, 1);
    assert_int_equal(markup_buf_reserve(&buf, 0), MARKUP_OK);
    assert_int_equal(ta.calls, 1);
    markup_buf_free(&buf);
    assert_int_equal(ta.live_bytes, 0);
}

static void test_overflow_is_too_large_and_leaves_buffer(void **state) {
    (void)state;
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    assert_int_equal(markup_buf_append(&buf, "abc", 3), MARKUP_OK);
    char *data = buf.data;
    size_t cap = buf.cap;
    assert_int_equal(markup_buf_grow(&buf, SIZE_MAX), MARKUP_ERR_TOO_LARGE);
    assert_int_equal(markup_buf_grow(&buf, SIZE_MAX - 2), MARKUP_ERR_TOO_LARGE);
    assert_int_equal(markup_buf_reserve(&buf, SIZE_MAX - 1), MARKUP_ERR_TOO_LARGE);
    assert_ptr_equal(buf.data, data);
    assert_int_equal(buf.cap, cap);
    assert_buf_equals(&buf, "abc");
    markup_buf_free(&buf);
}

static void test_nomem_leaves_buffer_unchanged(void **state) {
    (void)state;
    /* First allocation fails. */
    test_alloc ta;
    test_alloc_init(&ta, 0);
    markup_buf buf;
    markup_buf_init(&buf, &ta.alc);
    assert_int_equal(markup_buf_append(&buf, "x", 1), MARKUP_ERR_NOMEM);
    assert_null(buf.data);
    assert_int_equal(buf.len, 0);
    assert_int_equal(buf.cap, 0);
    assert_int_equal(markup_buf_putc(&buf, 'x'), MARKUP_OK); /* only call 0 fails */
    assert_buf_equals(&buf, "x");
    markup_buf_free(&buf);
    assert_int_equal(ta.live_bytes, 0);

    /* A failing realloc keeps the old contents and capacity. */
    test_alloc_init(&ta, 1);
    markup_buf_init(&buf, &ta.alc);
    assert_int_equal(markup_buf_append(&buf, "abc", 3), MARKUP_OK);
    char *data = buf.data;
    size_t cap = buf.cap;
    assert_int_equal(markup_buf_grow(&buf, cap * 4), MARKUP_ERR_NOMEM);
    assert_ptr_equal(buf.data, data);
    assert_int_equal(buf.cap, cap);
    assert_buf_equals(&buf, "abc");
    markup_buf_free(&buf);
    assert_int_equal(ta.live_bytes, 0);
    assert_int_equal(ta.size_mismatches, 0);
}

static void test_append_at_every_failure_point(void **state) {
    (void)state;
    char chunk[1000];
    for (size_t i = 0; i < sizeof chunk; i++) chunk[i] = (char)('0' + i % 10);
    for (size_t fail_at = 0;; fail_at++) {
        test_alloc ta;
        test_alloc_init(&ta, fail_at);
        markup_buf buf;
        markup_buf_init(&buf, &ta.alc);
        markup_status st = MARKUP_OK;
        size_t appended = 0;
        for (int round = 0; round < 50 && st == MARKUP_OK; round++) {
            size_t before = buf.len;
            st = markup_buf_append(&buf, chunk, sizeof chunk);
            if (st == MARKUP_OK)
                appended++;
            else
                assert_int_equal(buf.len, before);
        }
        assert_int_equal(buf.len, appended * sizeof chunk);
        for (size_t k = 0; k < appended; k++)
            assert_memory_equal(buf.data + k * sizeof chunk, chunk, sizeof chunk);
        markup_buf_free(&buf);
        assert_int_equal(ta.live_bytes, 0);
        assert_int_equal(ta.size_mismatches, 0);
        if (st == MARKUP_OK) {
            assert_int_equal(ta.failures, 0);
            break;
        }
        assert_int_equal(st, MARKUP_ERR_NOMEM);
    }
}

static void test_detach_hands_over_storage(void **state) {
    (void)state;
    test_alloc ta;
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_buf buf;
    markup_buf_init(&buf, &ta.alc);
    size_t len = 1, cap = 1;
    assert_null(markup_buf_detach(&buf, &len, &cap));
    assert_int_equal(len, 0);
    assert_int_equal(cap, 0);
    assert_int_equal(markup_buf_append(&buf, "<p>hi</p>", 9), MARKUP_OK);
    size_t expected_cap = buf.cap;
    char *data = markup_buf_detach(&buf, &len, &cap);
    assert_non_null(data);
    assert_int_equal(len, 9);
    assert_int_equal(cap, expected_cap);
    assert_memory_equal(data, "<p>hi</p>", 9);
    assert_null(buf.data);
    assert_int_equal(buf.len, 0);
    assert_int_equal(buf.cap, 0);
    assert_ptr_equal(buf.alc, &ta.alc);
    markup_buf_free(&buf); /* nothing left to free */
    assert_int_equal(ta.live_blocks, 1);
    ta.alc.free(ta.alc.ctx, data, cap);
    assert_int_equal(ta.live_bytes, 0);
    assert_int_equal(ta.size_mismatches, 0);
    /* NULL out-parameters are allowed. */
    assert_int_equal(markup_buf_append(&buf, "x", 1), MARKUP_OK);
    cap = buf.cap;
    data = markup_buf_detach(&buf, NULL, NULL);
    ta.alc.free(ta.alc.ctx, data, cap);
    assert_int_equal(ta.live_bytes, 0);
}

/* An allocator whose realloc always moves the block and scribbles on the
   old one before freeing it, so that any read through a stale pointer
   gives wrong bytes (and a use-after-free under ASan or valgrind). */
static void *moving_malloc(void *ctx, size_t size) {
    (void)ctx;
    return malloc(size);
}

static void *moving_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    (void)ctx;
    char *moved = malloc(new_size);
    if (moved == NULL) return NULL;
    if (ptr != NULL) {
        memcpy(moved, ptr, old_size < new_size ? old_size : new_size);
        memset(ptr, '#', old_size);
        free(ptr);
    }
    return moved;
}

static void moving_free(void *ctx, void *ptr, size_t size) {
    (void)ctx;
    (void)size;
    free(ptr);
}

static void test_append_from_the_buffer_itself(void **state) {
    (void)state;
    const markup_alloc moving = {moving_malloc, moving_realloc, moving_free, NULL};
    markup_buf buf;
    markup_buf_init(&buf, &moving);
    assert_int_equal(markup_buf_append(&buf, "<p>", 3), MARKUP_OK);
    /* Doubling, and copying a middle piece, each time past the capacity
       (the storage moves) and within it. */
    for (int round = 0; round < 12; round++) {
        size_t len = buf.len;
        assert_int_equal(markup_buf_append(&buf, buf.data, len), MARKUP_OK);
        assert_int_equal(buf.len, 2 * len);
        assert_memory_equal(buf.data, buf.data + len, len);
    }
    for (size_t i = 0; i < buf.len; i += 3) assert_memory_equal(buf.data + i, "<p>", 3);
    size_t len = buf.len;
    assert_int_equal(markup_buf_append(&buf, buf.data + 1, 2), MARKUP_OK); /* within the capacity */
    assert_memory_equal(buf.data + len, "p>", 2);
    markup_buf_free(&buf);
}

static void test_null_arguments_are_invalid(void **state) {
    (void)state;
    test_alloc ta;
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_buf buf;
    markup_buf_init(&buf, &ta.alc);
    assert_int_equal(markup_buf_append(&buf, "abc", 3), MARKUP_OK);
    assert_int_equal(markup_buf_append(&buf, NULL, 5), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_buf_append(&buf, NULL, 0), MARKUP_OK);
    assert_buf_equals(&buf, "abc");
    assert_int_equal(markup_buf_grow(NULL, 1), MARKUP_ERR_INVALID_ARG);
    size_t len = 7, cap = 7;
    assert_null(markup_buf_detach(NULL, &len, &cap));
    assert_int_equal(len, 0);
    assert_int_equal(cap, 0);
    markup_buf_free(NULL);
    markup_buf_free(&buf);
    assert_int_equal(ta.live_bytes, 0);
}

static void test_default_allocator(void **state) {
    (void)state;
    const markup_alloc *alc = markup_alloc_default();
    assert_non_null(alc);
    void *p = alc->malloc(alc->ctx, 10);
    assert_non_null(p);
    memset(p, 'x', 10);
    p = alc->realloc(alc->ctx, p, 10, 100);
    assert_non_null(p);
    assert_int_equal(((char *)p)[9], 'x');
    alc->free(alc->ctx, p, 100);
}

static void test_status_names_and_version(void **state) {
    (void)state;
    const markup_status all[] = {MARKUP_OK,
                                 MARKUP_ERR_NOMEM,
                                 MARKUP_ERR_INVALID_ARG,
                                 MARKUP_ERR_TOO_LARGE,
                                 MARKUP_ERR_INVALID_UTF8,
                                 MARKUP_ERR_INVALID_TAG,
                                 MARKUP_ERR_INVALID_ATTR_NAME,
                                 MARKUP_ERR_VOID_CHILD,
                                 MARKUP_ERR_RAW_TEXT,
                                 MARKUP_ERR_FROZEN,
                                 MARKUP_ERR_TOO_DEEP,
                                 MARKUP_ERR_SLOT_COUNT,
                                 MARKUP_ERR_SLOT_VALUE};
    size_t n = sizeof all / sizeof all[0];
    for (size_t i = 0; i < n; i++) {
        const char *name = markup_status_message(all[i]);
        assert_non_null(name);
        assert_string_not_equal(name, "unknown status");
        for (size_t k = 0; k < i; k++) assert_string_not_equal(name, markup_status_message(all[k]));
    }
    assert_string_equal(markup_status_message(MARKUP_ERR_NOMEM), "out of memory");
    assert_string_equal(markup_status_message((markup_status)999), "unknown status");
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", MARKUP_VERSION_MAJOR, MARKUP_VERSION_MINOR,
             MARKUP_VERSION_PATCH);
    assert_string_equal(markup_version(), expected);
    assert_string_equal(markup_version(), MARKUP_VERSION_STRING);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_is_empty_and_does_not_allocate),
        cmocka_unit_test(test_append_putc_clear_truncate),
        cmocka_unit_test(test_growth_is_geometric),
        cmocka_unit_test(test_reserve_only_allocates_when_needed),
        cmocka_unit_test(test_overflow_is_too_large_and_leaves_buffer),
        cmocka_unit_test(test_nomem_leaves_buffer_unchanged),
        cmocka_unit_test(test_append_at_every_failure_point),
        cmocka_unit_test(test_detach_hands_over_storage),
        cmocka_unit_test(test_append_from_the_buffer_itself),
        cmocka_unit_test(test_null_arguments_are_invalid),
        cmocka_unit_test(test_default_allocator),
        cmocka_unit_test(test_status_names_and_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
