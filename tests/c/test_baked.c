/* test_baked.c: baked templates (static HTML plus slots). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "markup/markup.h"

/* <p>TEXT</p> with the slot escaped. */
static void test_child_slot_escapes_text(void **state) {
    (void)state;
    markup_baked_builder *b = NULL;
    markup_baked *tpl = NULL;
    assert_int_equal(markup_baked_builder_new(NULL, &b), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_static(b, "<p>", 3), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_child_slot(b), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_static(b, "</p>", 4), MARKUP_OK);
    assert_int_equal(markup_baked_builder_finish(b, &tpl), MARKUP_OK);

    markup_value v = {MARKUP_VALUE_TEXT, "a<b", 3};
    markup_buf out;
    markup_buf_init(&out, NULL);
    assert_int_equal(markup_baked_render(tpl, &v, 1, &out, NULL), MARKUP_OK);
    assert_int_equal(out.len, 13);
    assert_memory_equal(out.data, "<p>a&lt;b</p>", 13);
    markup_buf_free(&out);
    markup_baked_free(tpl);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_child_slot_escapes_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
