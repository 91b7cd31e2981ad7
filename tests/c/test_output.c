/* test_output.c - trees and templates rendered to a callback, a FILE* and
   a new string; markup_escape_string and markup_html_json_for_script; the
   numeric version and MARKUP_ERROR_INIT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "markup/binding.h"

#define S(lit) (lit), (sizeof(lit) - 1)

/* A sink that keeps what it is given, and how: the number of calls and
   the largest piece; it stops with `stop_with` after `stop_after` calls. */
typedef struct collector {
    markup_buf got;
    size_t calls, largest, stop_after;
    markup_status stop_with;
} collector;

static markup_status collect(void *ctx, const char *data, size_t n) {
    collector *c = ctx;
    if (c->stop_after && c->calls == c->stop_after) return c->stop_with;
    c->calls++;
    if (n > c->largest) c->largest = n;
    assert_true(n > 0);
    return markup_buf_append(&c->got, data, n);
}

/* <table> of `rows` rows of two cells, one with text to escape. */
static markup_node *table(size_t rows) {
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *t = NULL;
    assert_int_equal(markup_node_new_element(S("table"), NULL, &t, NULL), MARKUP_OK);
    for (size_t i = 0; i < rows; i++) {
        markup_node *tr = NULL, *td = NULL, *td2 = NULL;
        char num[32];
        int len = snprintf(num, sizeof num, "%zu", i);
        assert_int_equal(markup_node_new_element(S("tr"), NULL, &tr, NULL), MARKUP_OK);
        assert_int_equal(markup_node_new_element(S("td"), NULL, &td, NULL), MARKUP_OK);
        assert_int_equal(markup_node_new_element(S("td"), NULL, &td2, NULL), MARKUP_OK);
        assert_int_equal(markup_node_append_text(td, num, (size_t)len, &err), MARKUP_OK);
        assert_int_equal(markup_node_append_text(td2, S("Tea & <cake> \xc3\xa9"), &err), MARKUP_OK);
        assert_int_equal(markup_node_append_child(tr, td, &err), MARKUP_OK);
        assert_int_equal(markup_node_append_child(tr, td2, &err), MARKUP_OK);
        assert_int_equal(markup_node_append_child(t, tr, &err), MARKUP_OK);
        markup_node_unref(td);
        markup_node_unref(td2);
        markup_node_unref(tr);
    }
    return t;
}

static void rendered(const markup_node *node, markup_buf *out) {
    markup_buf_init(out, NULL);
    assert_int_equal(markup_node_render(node, out, NULL), MARKUP_OK);
}

static void test_tree_to_a_sink_in_pieces(void **state) {
    (void)state;
    markup_node *t = table(2000);
    markup_buf whole;
    rendered(t, &whole);
    collector c = {0};
    markup_buf_init(&c.got, NULL);
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_node_render_to(t, collect, &c, &err), MARKUP_OK);
    assert_int_equal(err.code, MARKUP_OK);
    assert_int_equal(c.got.len, whole.len);
    assert_memory_equal(c.got.data, whole.data, whole.len);
    /* Streamed: several calls, none holding the whole page. */
    assert_true(c.calls > 3);
    assert_true(c.largest < 20000);
    markup_buf_free(&c.got);

    /* A sink that stops: its status comes back, and the sink is not
       called again. */
    collector stopper = {0};
    markup_buf_init(&stopper.got, NULL);
    stopper.stop_after = 2;
    stopper.stop_with = MARKUP_ERR_IO;
    assert_int_equal(markup_node_render_to(t, collect, &stopper, &err), MARKUP_ERR_IO);
    assert_int_equal(err.code, MARKUP_ERR_IO);
    assert_int_equal(stopper.calls, 2);
    markup_buf_free(&stopper.got);

    assert_int_equal(markup_node_render_to(t, NULL, NULL, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_render_to(NULL, collect, &c, &err), MARKUP_ERR_INVALID_ARG);
    markup_buf_free(&whole);
    markup_node_unref(t);
}

static void test_tree_to_a_file_and_a_string(void **state) {
    (void)state;
    markup_node *t = table(300);
    markup_buf whole;
    rendered(t, &whole);
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(markup_node_render_file(t, f, NULL), MARKUP_OK);
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    char *back = malloc(whole.len + 1);
    assert_non_null(back);
    assert_int_equal(fread(back, 1, whole.len + 1, f), whole.len);
    assert_memory_equal(back, whole.data, whole.len);
    free(back);
    fclose(f);

    size_t len = 0;
    char *s = markup_node_render_string(t, &len, NULL);
    assert_non_null(s);
    assert_int_equal(len, whole.len);
    assert_int_equal(strlen(s), whole.len); /* NUL-terminated, no NUL inside */
    assert_memory_equal(s, whole.data, whole.len);
    free(s);
    assert_non_null(s = markup_node_render_string(t, NULL, NULL)); /* len is optional */
    free(s);

    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_node_render_file(t, NULL, &err), MARKUP_ERR_INVALID_ARG);
    assert_null(markup_node_render_string(NULL, &len, &err));
    assert_int_equal(err.code, MARKUP_ERR_INVALID_ARG);
    markup_buf_free(&whole);
    markup_node_unref(t);
}

#ifdef __linux__
static void test_a_failing_file_is_an_io_error(void **state) {
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (full == NULL) skip();
    setvbuf(full, NULL, _IONBF, 0); /* fwrite reports the failure itself */
    markup_node *t = table(10);
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_node_render_file(t, full, &err), MARKUP_ERR_IO);
    assert_int_equal(err.code, MARKUP_ERR_IO);
    assert_non_null(strstr(err.msg, "writing to the FILE failed"));
    assert_string_equal(markup_status_message(MARKUP_ERR_IO), "writing the output failed");
    fclose(full);
    markup_node_unref(t);
}
#endif

static void test_template_to_a_sink_a_file_and_a_string(void **state) {
    (void)state;
    markup_baked_builder *b = NULL;
    markup_baked *tpl = NULL;
    assert_int_equal(markup_baked_builder_new(NULL, &b), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_static(b, S("<li")), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_attr_slot(b, S("class"), NULL), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_static(b, S(">")), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_child_slot(b), MARKUP_OK);
    assert_int_equal(markup_baked_builder_add_static(b, S("</li>")), MARKUP_OK);
    assert_int_equal(markup_baked_builder_finish(b, &tpl, NULL), MARKUP_OK);
    const markup_value values[] = {{MARKUP_VALUE_TEXT, S("a\"b")}, {MARKUP_VALUE_TEXT, S("<x>")}};
    const char expected[] = "<li class=\"a&#34;b\">&lt;x&gt;</li>";

    collector c = {0};
    markup_buf_init(&c.got, NULL);
    assert_int_equal(markup_baked_render_to(tpl, values, 2, collect, &c, NULL), MARKUP_OK);
    assert_int_equal(c.calls, 1);
    assert_int_equal(c.got.len, strlen(expected));
    assert_memory_equal(c.got.data, expected, strlen(expected));
    markup_buf_free(&c.got);

    size_t len = 0;
    char *s = markup_baked_render_string(tpl, values, 2, &len, NULL);
    assert_non_null(s);
    assert_string_equal(s, expected);
    assert_int_equal(len, strlen(expected));
    free(s);

    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(markup_baked_render_file(tpl, values, 2, f, NULL), MARKUP_OK);
    char back[64] = {0};
    assert_int_equal(fseek(f, 0, SEEK_SET), 0);
    assert_int_equal(fread(back, 1, sizeof back - 1, f), strlen(expected));
    assert_string_equal(back, expected);
    fclose(f);

    /* The template's own errors come back from every form. */
    markup_error err = MARKUP_ERROR_INIT;
    assert_null(markup_baked_render_string(tpl, values, 1, &len, &err));
    assert_int_equal(err.code, MARKUP_ERR_SLOT_COUNT);
    const markup_value bad[] = {{MARKUP_VALUE_TEXT, S("ok")}, {MARKUP_VALUE_TEXT, S("\xff")}};
    assert_int_equal(markup_baked_render_to(tpl, bad, 2, collect, &c, &err),
                     MARKUP_ERR_INVALID_UTF8);
    assert_int_equal(markup_baked_render_to(tpl, values, 2, NULL, NULL, &err),
                     MARKUP_ERR_INVALID_ARG);
#ifdef __linux__
    /* A write that fails is named as one, as for a tree. */
    FILE *full = fopen("/dev/full", "w");
    if (full != NULL) {
        setvbuf(full, NULL, _IONBF, 0);
        assert_int_equal(markup_baked_render_file(tpl, values, 2, full, &err), MARKUP_ERR_IO);
        assert_non_null(strstr(err.msg, "writing to the FILE failed"));
        fclose(full);
    }
#endif
    markup_baked_free(tpl);
}

static void test_escape_string(void **state) {
    (void)state;
    size_t len = 0;
    char *s = markup_escape_string(S("Tea & <cake> \"'\xc3\xa9"), &len, NULL);
    assert_non_null(s);
    assert_string_equal(s, "Tea &amp; &lt;cake&gt; &#34;&#39;\xc3\xa9");
    assert_int_equal(len, strlen(s));
    free(s);
    assert_non_null(s = markup_escape_string(NULL, 0, &len, NULL)); /* the empty string */
    assert_string_equal(s, "");
    assert_int_equal(len, 0);
    free(s);
    markup_error err = MARKUP_ERROR_INIT;
    assert_null(markup_escape_string(S("ok \xe2\x82"), &len, &err));
    assert_int_equal(err.code, MARKUP_ERR_INVALID_UTF8);
    assert_int_equal(err.pos, 3);
}

static void test_json_for_script(void **state) {
    (void)state;
    markup_buf out;
    markup_buf_init(&out, NULL);
    assert_int_equal(markup_buf_append(&out, S("var d = ")), MARKUP_OK);
    /* {"a": "</script><!-- & 'x' \u2028 \u2029 \u2027 é"} */
    static const char json[] = "{\"a\": \"</script><!-- & 'x' \xe2\x80\xa8 \xe2\x80\xa9 "
                               "\xe2\x80\xa7 \xc3\xa9\"}";
    assert_int_equal(markup_html_json_for_script(&out, S(json), NULL), MARKUP_OK);
    static const char expected[] =
        "var d = {\"a\": \"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u0027x\\u0027 \\u2028 "
        "\\u2029 \xe2\x80\xa7 \xc3\xa9\"}";
    assert_int_equal(out.len, strlen(expected));
    assert_memory_equal(out.data, expected, out.len);
    /* What it gives passes the script rule. */
    assert_int_equal(markup_html_check_raw_text(MARKUP_TAG_SCRIPT, out.data, out.len, NULL),
                     MARKUP_OK);

    size_t before = out.len;
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_html_json_for_script(&out, S("[\"<\", \"\xc0\"]"), &err),
                     MARKUP_ERR_INVALID_UTF8);
    assert_int_equal(err.pos, 7);
    assert_int_equal(out.len, before); /* nothing appended */
    assert_int_equal(markup_html_json_for_script(NULL, S("1"), &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_html_json_for_script(&out, NULL, 0, &err), MARKUP_OK);
    assert_int_equal(out.len, before);
    markup_buf_free(&out);
}

static void test_version_number_and_error_init(void **state) {
    (void)state;
    assert_int_equal(markup_version_number(), MARKUP_VERSION_NUMBER);
    char text[32];
    snprintf(text, sizeof text, "%lu.%lu.%lu", markup_version_number() >> 16,
             (markup_version_number() >> 8) & 0xFF, markup_version_number() & 0xFF);
    assert_string_equal(text, markup_version());
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(err.code, MARKUP_OK);
    assert_true(err.pos == MARKUP_POS_NONE);
    assert_null(err.msg);
    assert_null(err.refused);
    assert_null(err.arg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_to_a_sink_in_pieces),
        cmocka_unit_test(test_tree_to_a_file_and_a_string),
#ifdef __linux__
        cmocka_unit_test(test_a_failing_file_is_an_io_error),
#endif
        cmocka_unit_test(test_template_to_a_sink_a_file_and_a_string),
        cmocka_unit_test(test_escape_string),
        cmocka_unit_test(test_json_for_script),
        cmocka_unit_test(test_version_number_and_error_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
