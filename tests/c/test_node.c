/* test_node.c - building element trees: validation, freezing, void and
   raw-text rules, reference counts, deep chains, allocation failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "markup/binding.h"
#include "test_alloc.h"

#define S(lit) lit, (sizeof(lit) - 1)

static markup_node *element(const char *tag, const markup_alloc *alc) {
    markup_node *node = NULL;
    assert_int_equal(markup_node_new_element(tag, strlen(tag), alc, &node, NULL), MARKUP_OK);
    assert_non_null(node);
    return node;
}

static void assert_render(const markup_node *node, const char *expected) {
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    assert_int_equal(markup_node_render(node, &buf, NULL), MARKUP_OK);
    size_t n = strlen(expected);
    if (buf.len != n || (n && memcmp(buf.data, expected, n) != 0)) {
        print_error("rendered \"%.*s\", expected \"%s\"\n", (int)buf.len, buf.data ? buf.data : "",
                    expected);
        fail();
    }
    markup_buf_free(&buf);
}

static void test_new_element_and_fragment(void **state) {
    (void)state;
    markup_node *div = element("my-widget", NULL);
    size_t n = 0;
    const char *tag = markup_node_tag(div, &n);
    assert_int_equal(n, 9);
    assert_memory_equal(tag, "my-widget", 9);
    assert_int_equal(markup_node_attr_count(div), 0);
    assert_int_equal(markup_node_child_count(div), 0);
    markup_node_unref(div);

    markup_node *frag = NULL;
    assert_int_equal(markup_node_new_fragment(NULL, &frag), MARKUP_OK);
    n = 5;
    assert_null(markup_node_tag(frag, &n));
    assert_int_equal(n, 0);
    assert_null(markup_node_tag(NULL, NULL));
    assert_int_equal(markup_node_attr_count(NULL), 0);
    assert_int_equal(markup_node_child_count(NULL), 0);
    markup_node_unref(frag);

    markup_node *bad = (markup_node *)&n;
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_node_new_element(S("a b"), NULL, &bad, &err), MARKUP_ERR_INVALID_TAG);
    assert_null(bad);
    assert_int_equal(err.pos, 1);
    assert_int_equal(markup_node_new_element(S(""), NULL, &bad, &err), MARKUP_ERR_INVALID_TAG);
    assert_int_equal(markup_node_new_element(S("p"), NULL, NULL, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_new_fragment(NULL, NULL), MARKUP_ERR_INVALID_ARG);
    markup_node_unref(NULL);
    assert_null(markup_node_ref(NULL));
}

static void test_attributes(void **state) {
    (void)state;
    markup_node *a = element("a", NULL);
    markup_error err;
    assert_int_equal(markup_node_add_attr(a, S("href"), S("/x?a=1&b=2"), &err), MARKUP_OK);
    assert_int_equal(markup_node_add_attr_bool(a, S("hidden"), false, &err), MARKUP_OK);
    assert_int_equal(markup_node_attr_count(a), 1); /* False stores nothing */
    assert_int_equal(markup_node_add_attr_bool(a, S("download"), true, &err), MARKUP_OK);
    assert_int_equal(markup_node_add_attr_html(a, S("title"), S("&lt;b&gt;"), &err), MARKUP_OK);
    assert_int_equal(markup_node_add_attr(a, S("@click"), S("open = true"), &err), MARKUP_OK);
    assert_int_equal(markup_node_add_attr(a, S("data-n"), S("0"), &err), MARKUP_OK);
    assert_int_equal(markup_node_add_attr(a, S("alt"), NULL, 0, &err), MARKUP_OK);
    assert_int_equal(markup_node_add_attr(a, S("href"), S("dup"), &err), MARKUP_OK);
    assert_int_equal(markup_node_attr_count(a), 7);

    /* Rejected names and values add nothing. */
    err = (markup_error)MARKUP_ERROR_INIT;
    assert_int_equal(markup_node_add_attr(a, S("on click"), S("x"), &err),
                     MARKUP_ERR_INVALID_ATTR_NAME);
    assert_int_equal(err.pos, 2);
    assert_int_equal(markup_node_add_attr_bool(a, S("a=b"), false, &err),
                     MARKUP_ERR_INVALID_ATTR_NAME);
    assert_int_equal(markup_node_add_attr_bool(a, S(""), true, &err), MARKUP_ERR_INVALID_ATTR_NAME);
    assert_int_equal(markup_node_add_attr(a, S("title"), S("ok\xE2\x82"), &err),
                     MARKUP_ERR_INVALID_UTF8);
    assert_int_equal(err.pos, 2);
    assert_int_equal(markup_node_add_attr_html(a, S("title"), S("\xFF"), &err),
                     MARKUP_ERR_INVALID_UTF8);
    assert_int_equal(err.pos, 0);
    assert_int_equal(markup_node_add_attr(a, S("title"), NULL, 3, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_add_attr(NULL, S("title"), S("x"), &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_attr_count(a), 7);
    assert_render(a,
                  "<a href=\"/x?a=1&amp;b=2\" download title=\"&lt;b&gt;\" @click=\"open = true\""
                  " data-n=\"0\" alt=\"\" href=\"dup\"></a>");

    /* A fragment has no attributes. */
    markup_node *frag = NULL;
    assert_int_equal(markup_node_new_fragment(NULL, &frag), MARKUP_OK);
    assert_int_equal(markup_node_add_attr(frag, S("id"), S("x"), &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_add_attr_bool(frag, S("id"), true, &err), MARKUP_ERR_INVALID_ARG);
    markup_node_unref(frag);
    markup_node_unref(a);
}

static void test_frozen_on_adopt(void **state) {
    (void)state;
    markup_node *ul = element("ul", NULL);
    markup_node *li = element("li", NULL);
    markup_error err;
    assert_int_equal(markup_node_append_text(li, S("one"), &err), MARKUP_OK);
    assert_int_equal(markup_node_append_child(ul, li, &err), MARKUP_OK);
    /* li is frozen now: every modification is refused and changes nothing */
    err = (markup_error)MARKUP_ERROR_INIT;
    assert_int_equal(markup_node_add_attr(li, S("id"), S("x"), &err), MARKUP_ERR_FROZEN);
    assert_int_equal(err.code, MARKUP_ERR_FROZEN);
    assert_int_equal(markup_node_add_attr_html(li, S("id"), S("x"), &err), MARKUP_ERR_FROZEN);
    assert_int_equal(markup_node_add_attr_bool(li, S("id"), true, &err), MARKUP_ERR_FROZEN);
    assert_int_equal(markup_node_add_attr_bool(li, S("id"), false, &err), MARKUP_ERR_FROZEN);
    assert_int_equal(markup_node_append_text(li, S("two"), &err), MARKUP_ERR_FROZEN);
    assert_int_equal(markup_node_append_html(li, S("two"), &err), MARKUP_ERR_FROZEN);
    assert_int_equal(markup_node_append_comment(li, S("two"), &err), MARKUP_ERR_FROZEN);
    assert_int_equal(markup_node_append_doctype(li, &err), MARKUP_ERR_FROZEN);
    markup_node *b = element("b", NULL);
    assert_int_equal(markup_node_append_child(li, b, &err), MARKUP_ERR_FROZEN);
    assert_int_equal(markup_node_attr_count(li), 0);
    assert_int_equal(markup_node_child_count(li), 1);
    /* The parent is still open, and the frozen child may be shared. */
    assert_int_equal(markup_node_append_child(ul, li, &err), MARKUP_OK);
    markup_node *ol = element("ol", NULL);
    assert_int_equal(markup_node_append_child(ol, li, &err), MARKUP_OK);
    assert_render(ul, "<ul><li>one</li><li>one</li></ul>");
    assert_render(ol, "<ol><li>one</li></ol>");
    /* b was refused, so it is still open. */
    assert_int_equal(markup_node_append_text(b, S("bold"), &err), MARKUP_OK);
    /* A parent that gets adopted freezes as well: no cycle can be built. */
    markup_node *div = element("div", NULL);
    assert_int_equal(markup_node_append_child(div, ul, &err), MARKUP_OK);
    assert_int_equal(markup_node_append_child(ul, div, &err), MARKUP_ERR_FROZEN);
    assert_int_equal(markup_node_append_child(div, div, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_append_child(div, NULL, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_append_child(NULL, b, &err), MARKUP_ERR_INVALID_ARG);
    markup_node_unref(b);
    markup_node_unref(li);
    markup_node_unref(ul);
    markup_node_unref(ol);
    assert_render(div, "<div><ul><li>one</li><li>one</li></ul></div>");
    markup_node_unref(div);
}

static void test_void_elements_reject_children(void **state) {
    (void)state;
    markup_node *br = element("BR", NULL);
    markup_node *span = element("span", NULL);
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_node_append_text(br, S("x"), &err), MARKUP_ERR_VOID_CHILD);
    assert_int_equal(err.code, MARKUP_ERR_VOID_CHILD);
    assert_int_equal(markup_node_append_text(br, S(""), &err), MARKUP_ERR_VOID_CHILD);
    assert_int_equal(markup_node_append_html(br, S("x"), &err), MARKUP_ERR_VOID_CHILD);
    assert_int_equal(markup_node_append_comment(br, S("x"), &err), MARKUP_ERR_VOID_CHILD);
    assert_int_equal(markup_node_append_doctype(br, &err), MARKUP_ERR_VOID_CHILD);
    assert_int_equal(markup_node_append_child(br, span, &err), MARKUP_ERR_VOID_CHILD);
    assert_int_equal(markup_node_child_count(br), 0);
    /* span was not adopted */
    assert_int_equal(markup_node_add_attr(span, S("id"), S("s"), &err), MARKUP_OK);
    /* attributes are fine on void elements */
    assert_int_equal(markup_node_add_attr(br, S("class"), S("x"), &err), MARKUP_OK);
    assert_render(br, "<BR class=\"x\">");
    markup_node_unref(br);
    markup_node_unref(span);
}

static void test_raw_text_rules(void **state) {
    (void)state;
    markup_node *script = element("script", NULL);
    markup_node *b = element("b", NULL);
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_node_append_child(script, b, &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(err.code, MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_node_append_comment(script, S("c"), &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_node_append_doctype(script, &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_node_append_text(script, S("a</Script>"), &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(err.pos, 1);
    assert_int_equal(markup_node_append_html(script, S("x <!-- y"), &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(err.pos, 2);
    assert_int_equal(markup_node_append_text(script, S("if (a<b && c>d) x = '&';"), &err),
                     MARKUP_OK);
    /* A pattern split over children is caught at the seam. */
    assert_int_equal(markup_node_append_text(script, S(" </scr"), &err), MARKUP_OK);
    assert_int_equal(markup_node_append_text(script, S("IPT>"), &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_node_append_text(script, S("ipts"), &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_node_append_text(script, S("x"), &err), MARKUP_OK);
    assert_int_equal(markup_node_append_text(script, S("<"), &err), MARKUP_OK);
    assert_int_equal(markup_node_append_text(script, S(""), &err), MARKUP_OK);
    assert_int_equal(markup_node_append_html(script, S("!"), &err), MARKUP_OK);
    assert_int_equal(markup_node_append_text(script, S("-"), &err), MARKUP_OK);
    assert_int_equal(markup_node_append_text(script, S("-"), &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_node_append_text(script, S("x"), &err), MARKUP_OK);
    assert_int_equal(markup_node_child_count(script), 8);
    assert_render(script, "<script>if (a<b && c>d) x = '&'; </scrx<!-x</script>");

    markup_node *style = element("STYLE", NULL);
    assert_int_equal(markup_node_append_text(style, S("a > b { content: \"<!--\" }"), &err),
                     MARKUP_OK);
    assert_int_equal(markup_node_append_text(style, S("</st"), &err), MARKUP_OK);
    assert_int_equal(markup_node_append_text(style, S("Yle"), &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_node_append_text(style, S("</style"), &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(err.pos, 0);
    assert_int_equal(markup_node_append_text(style, S("x</script>"), &err), MARKUP_OK);
    assert_render(style, "<STYLE>a > b { content: \"<!--\" }</stx</script></STYLE>");

    markup_node_unref(style);
    markup_node_unref(script);
    markup_node_unref(b);
}

static void test_invalid_utf8_children(void **state) {
    (void)state;
    markup_node *p = element("p", NULL);
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_node_append_text(p, S("abc\xC0\xAF"), &err), MARKUP_ERR_INVALID_UTF8);
    assert_int_equal(err.pos, 3);
    assert_int_equal(markup_node_append_html(p, S("\xED\xA0\x80"), &err), MARKUP_ERR_INVALID_UTF8);
    assert_int_equal(markup_node_append_comment(p, S("x\x80"), &err), MARKUP_ERR_INVALID_UTF8);
    assert_int_equal(err.pos, 1);
    assert_int_equal(markup_node_append_text(p, NULL, 1, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_append_text(NULL, S("x"), &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_child_count(p), 0);
    assert_int_equal(markup_node_append_text(p, NULL, 0, &err), MARKUP_OK);
    markup_node_unref(p);
}

static void test_reference_counts(void **state) {
    (void)state;
    test_alloc ta;
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_node *parent = element("div", &ta.alc);
    markup_node *child = element("span", &ta.alc);
    assert_int_equal(markup_node_append_text(child, S("kept"), NULL), MARKUP_OK);
    assert_ptr_equal(markup_node_ref(child), child);
    assert_int_equal(markup_node_append_child(parent, child, NULL), MARKUP_OK);
    markup_node_unref(child);  /* the extra ref */
    markup_node_unref(parent); /* child still held by the caller's first ref */
    assert_render(child, "<span>kept</span>");
    assert_true(ta.live_bytes > 0);
    markup_node_unref(child);
    assert_int_equal(ta.live_bytes, 0);
    assert_int_equal(ta.live_blocks, 0);
    assert_int_equal(ta.size_mismatches, 0);
}

static void test_deep_chain_frees_iteratively(void **state) {
    (void)state;
    /* 100000 nested elements: far deeper than MARKUP_MAX_DEPTH, so render
       refuses, and freeing must not recurse on the C stack. */
    test_alloc ta;
    test_alloc_init(&ta, TEST_ALLOC_NEVER);
    markup_node *inner = element("i", &ta.alc);
    for (int level = 0; level < 100000; level++) {
        markup_node *outer = element(level % 2 ? "b" : "div", &ta.alc);
        assert_int_equal(markup_node_append_child(outer, inner, NULL), MARKUP_OK);
        markup_node_unref(inner);
        inner = outer;
    }
    markup_buf buf;
    markup_buf_init(&buf, &ta.alc);
    markup_error err;
    assert_int_equal(markup_node_render(inner, &buf, &err), MARKUP_ERR_TOO_DEEP);
    assert_int_equal(buf.len, 0);
    markup_buf_free(&buf);
    markup_node_unref(inner);
    assert_int_equal(ta.live_bytes, 0);
    assert_int_equal(ta.live_blocks, 0);

    /* Also a chain of fragments (no depth limit on render, still no recursion). */
    markup_node *node = NULL;
    assert_int_equal(markup_node_new_fragment(&ta.alc, &node), MARKUP_OK);
    assert_int_equal(markup_node_append_text(node, S("x"), NULL), MARKUP_OK);
    for (int level = 0; level < 100000; level++) {
        markup_node *outer = NULL;
        assert_int_equal(markup_node_new_fragment(&ta.alc, &outer), MARKUP_OK);
        assert_int_equal(markup_node_append_child(outer, node, NULL), MARKUP_OK);
        markup_node_unref(node);
        node = outer;
    }
    assert_render(node, "x");
    markup_node_unref(node);
    assert_int_equal(ta.live_bytes, 0);
}

static void test_building_at_every_failure_point(void **state) {
    (void)state;
    for (size_t fail_at = 0;; fail_at++) {
        test_alloc ta;
        test_alloc_init(&ta, fail_at);
        markup_node *ul = NULL, *li = NULL, *br = NULL;
        markup_status failed = MARKUP_OK;
        /* Each step: run it; on failure check that nothing changed, then
           run it again: the allocator fails only once, so it must succeed. */
#define STEP(node, call)                                                                           \
    do {                                                                                           \
        size_t attrs = markup_node_attr_count(node), kids = markup_node_child_count(node);         \
        markup_status st_ = (call);                                                                \
        if (st_ != MARKUP_OK) {                                                                    \
            assert_int_equal(st_, MARKUP_ERR_NOMEM);                                               \
            assert_int_equal(markup_node_attr_count(node), attrs);                                 \
            assert_int_equal(markup_node_child_count(node), kids);                                 \
            failed = st_;                                                                          \
            assert_int_equal((call), MARKUP_OK);                                                   \
        }                                                                                          \
    } while (0)
#define NEW(var, tag)                                                                              \
    do {                                                                                           \
        markup_status st_ = markup_node_new_element(S(tag), &ta.alc, &var, NULL);                  \
        if (st_ != MARKUP_OK) {                                                                    \
            assert_int_equal(st_, MARKUP_ERR_NOMEM);                                               \
            assert_null(var);                                                                      \
            failed = st_;                                                                          \
            assert_int_equal(markup_node_new_element(S(tag), &ta.alc, &var, NULL), MARKUP_OK);     \
        }                                                                                          \
    } while (0)
        NEW(ul, "ul");
        NEW(li, "li");
        NEW(br, "br");
        STEP(ul, markup_node_add_attr(ul, S("class"), S("list"), NULL));
        STEP(ul, markup_node_add_attr_bool(ul, S("hidden"), true, NULL));
        STEP(li, markup_node_add_attr(li, S("data-id"), S("1"), NULL));
        STEP(li, markup_node_append_text(li, S("Tea & cake"), NULL));
        STEP(ul, markup_node_append_child(ul, li, NULL));
        STEP(ul, markup_node_append_comment(ul, S("c"), NULL));
        STEP(ul, markup_node_append_child(ul, br, NULL));
        for (int k = 0; k < 10; k++) STEP(ul, markup_node_append_html(ul, S("<i>x</i>"), NULL));
#undef STEP
#undef NEW
        markup_node_unref(li);
        markup_node_unref(br);
        assert_render(ul, "<ul class=\"list\" hidden><li data-id=\"1\">Tea &amp; cake</li><!--c-->"
                          "<br><i>x</i><i>x</i><i>x</i><i>x</i><i>x</i><i>x</i><i>x</i><i>x</i>"
                          "<i>x</i><i>x</i></ul>");
        markup_node_unref(ul);
        assert_int_equal(ta.live_bytes, 0);
        assert_int_equal(ta.size_mismatches, 0);
        if (failed == MARKUP_OK) {
            assert_true(fail_at > 8);
            break;
        }
    }
}

/* Threads build and drop parents around one shared frozen child. */
static void *share_and_drop(void *arg) {
    markup_node *shared = arg;
    for (int i = 0; i < 2000; i++) {
        markup_node *parent = NULL;
        if (markup_node_new_element(S("div"), NULL, &parent, NULL) != MARKUP_OK) return arg;
        if (markup_node_append_child(parent, shared, NULL) != MARKUP_OK) return arg;
        markup_node_unref(markup_node_ref(shared));
        markup_node_unref(parent);
    }
    return NULL;
}

static void test_concurrent_refs_to_a_shared_child(void **state) {
    (void)state;
    markup_node *shared = element("span", NULL);
    assert_int_equal(markup_node_append_text(shared, S("shared"), NULL), MARKUP_OK);
    markup_node *first = element("p", NULL);
    assert_int_equal(markup_node_append_child(first, shared, NULL), MARKUP_OK); /* freeze */
    markup_node_unref(first);
    pthread_t threads[4];
    for (int t = 0; t < 4; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, share_and_drop, shared), 0);
    for (int t = 0; t < 4; t++) {
        void *result = NULL;
        pthread_join(threads[t], &result);
        assert_null(result);
    }
    assert_render(shared, "<span>shared</span>");
    markup_node_unref(shared);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_element_and_fragment),
        cmocka_unit_test(test_attributes),
        cmocka_unit_test(test_frozen_on_adopt),
        cmocka_unit_test(test_void_elements_reject_children),
        cmocka_unit_test(test_raw_text_rules),
        cmocka_unit_test(test_invalid_utf8_children),
        cmocka_unit_test(test_reference_counts),
        cmocka_unit_test(test_deep_chain_frees_iteratively),
        cmocka_unit_test(test_building_at_every_failure_point),
        cmocka_unit_test(test_concurrent_refs_to_a_shared_child),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
