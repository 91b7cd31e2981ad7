/* test_public_api.c - what a C program gets from markup.h alone: templates
   built through the writer, trees built top-down, JSON and templates in a
   tree, and errors that are cleared on success and say where they point. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "markup/markup.h"

#define S(lit) lit, (sizeof(lit) - 1)

static markup_value text(const char *s) { return (markup_value){MARKUP_VALUE_TEXT, MARKUP_STR(s)}; }
static markup_value html(const char *s) { return (markup_value){MARKUP_VALUE_HTML, MARKUP_STR(s)}; }

static void assert_bytes(const char *data, size_t len, const char *expected) {
    size_t n = strlen(expected);
    if (len != n || (n && memcmp(data, expected, n) != 0)) {
        print_error("got \"%.*s\"\nexpected \"%s\"\n", (int)len, data ? data : "", expected);
        fail();
    }
}

static void assert_tree(const markup_node *node, const char *expected) {
    markup_error err = MARKUP_ERROR_INIT;
    size_t len = 0;
    char *s = markup_node_render_string(node, &len, &err);
    assert_non_null(s);
    assert_bytes(s, len, expected);
    free(s);
}

static void assert_template(const markup_baked *tpl, const markup_value *v, size_t n,
                            const char *expected) {
    markup_error err = MARKUP_ERROR_INIT;
    size_t len = 0;
    char *s = markup_baked_render_string(tpl, v, n, &len, &err);
    if (s == NULL) print_error("render: %s: %s\n", markup_status_name(err.code), err.msg);
    assert_non_null(s);
    assert_bytes(s, len, expected);
    free(s);
}

static markup_baked_builder *builder(void) {
    markup_baked_builder *b = NULL;
    assert_int_equal(markup_baked_builder_new(NULL, &b), MARKUP_OK);
    return b;
}

static markup_baked *finish(markup_baked_builder *b) {
    markup_baked *tpl = NULL;
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_baked_builder_finish(b, &tpl, &err), MARKUP_OK);
    assert_non_null(tpl);
    return tpl;
}

/* ------------------------------------------------------------------------ */
/* Templates built through the writer                                        */
/* ------------------------------------------------------------------------ */

static void test_builder_writes_what_the_writer_writes(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_baked_builder *b = builder();
    assert_int_equal(markup_baked_builder_doctype(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_open(b, S("li"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr(b, S("class"), S("a&b"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr_slot(b, S("data-id"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr_bool(b, S("hidden"), true, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr_bool(b, S("inert"), false, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr_html(b, S("title"), S("&amp;"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_text(b, S(": <"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_comment(b, S("c"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_open(b, S("br"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_html(b, S("<i>x</i>"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    markup_baked *tpl = finish(b);
    assert_int_equal(markup_baked_slot_count(tpl), 3);
    markup_slot_kind kind = MARKUP_SLOT_CHILD;
    assert_int_equal(markup_baked_slot_kind(tpl, 0, &kind), MARKUP_OK);
    assert_int_equal(kind, MARKUP_SLOT_ATTR);
    assert_int_equal(markup_baked_slot_kind(tpl, 2, &kind), MARKUP_OK);
    assert_int_equal(kind, MARKUP_SLOT_CHILD);
    assert_int_equal(markup_baked_slot_kind(tpl, 3, &kind), MARKUP_ERR_INVALID_ARG);

    markup_value v[3] = {text("\"7\""), text("<b>"), html("<b>ok</b>")};
    assert_template(tpl, v, 3,
                    "<!doctype html><li class=\"a&amp;b\" data-id=\"&#34;7&#34;\" hidden "
                    "title=\"&amp;\">&lt;b&gt;: &lt;<b>ok</b><!--c--><br><i>x</i></li>");
    markup_baked_free(tpl);
}

static void test_attribute_slot_only_in_a_start_tag(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_baked_builder *b = builder();
    /* Before any open, and after the start tag's '>': the writer's own
       answer to an attribute there. */
    assert_int_equal(markup_baked_builder_attr_slot(b, S("id"), &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(err.code, MARKUP_ERR_INVALID_ARG);
    assert_true(err.pos == MARKUP_POS_NONE);
    assert_int_equal(markup_baked_builder_open(b, S("p"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_text(b, S("x"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr_slot(b, S("id"), &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_baked_builder_open(b, S("b"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr_slot(b, S("id"), &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr_slot(b, S("id"), &err), MARKUP_ERR_INVALID_ARG);
    /* A bad name, in a start tag: the name's byte. */
    assert_int_equal(markup_baked_builder_open(b, S("i"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr_slot(b, S("a b"), &err),
                     MARKUP_ERR_INVALID_ATTR_NAME);
    assert_int_equal(err.pos, 1);
    assert_string_equal(err.arg, "name");
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    /* The refusals added nothing: the template is what succeeded. */
    markup_baked *tpl = finish(b);
    markup_value v = text("&");
    assert_template(tpl, &v, 1, "<p>x<b>&amp;</b><i></i></p>");
    markup_baked_free(tpl);
}

static void test_builder_copies_tags(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_baked_builder *b = builder();
    char tag[8];
    strcpy(tag, "section");
    assert_int_equal(markup_baked_builder_open(b, tag, strlen(tag), &err), MARKUP_OK);
    strcpy(tag, "p");
    assert_int_equal(markup_baked_builder_open(b, tag, strlen(tag), &err), MARKUP_OK);
    memset(tag, 'x', sizeof tag); /* the caller's bytes may go at once */
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_open(b, S("1p"), &err), MARKUP_ERR_INVALID_TAG);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    markup_baked *tpl = finish(b);
    assert_template(tpl, NULL, 0, "<section><p></p></section>");
    markup_baked_free(tpl);
    /* Freed open: the copies of open tags go with the builder. */
    b = builder();
    assert_int_equal(markup_baked_builder_open(b, S("div"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_open(b, S("span"), &err), MARKUP_OK);
    markup_baked_builder_free(b);
}

static void test_child_slot_where_the_writer_allows(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_baked_builder *b = builder();
    assert_int_equal(markup_baked_builder_open(b, S("script"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_baked_builder_text(b, S("a</script>"), &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(err.pos, 1);
    assert_string_equal(err.arg, "s");
    assert_string_equal(err.refused, "</script");
    assert_string_equal(err.element, "script");
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_open(b, S("br"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_ERR_VOID_CHILD);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    /* svg content: a <p> would end it. */
    assert_int_equal(markup_baked_builder_open(b, S("svg"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_open(b, S("p"), &err), MARKUP_ERR_CONTEXT);
    assert_int_equal(markup_baked_builder_open(b, S("font"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr_slot(b, S("color"), &err), MARKUP_ERR_CONTEXT);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    markup_baked *tpl = finish(b);
    assert_template(tpl, NULL, 0, "<script></script><br><svg><font></font></svg>");
    markup_baked_free(tpl);
}

static void test_static_strings_are_validated(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_baked_builder *b = builder();
    assert_int_equal(markup_baked_builder_open(b, S("p"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr(b, S("title"), S("ok\xff"), &err),
                     MARKUP_ERR_INVALID_UTF8);
    assert_int_equal(err.pos, 2);
    assert_string_equal(err.arg, "value");
    assert_int_equal(markup_baked_builder_text(b, S("\xc3"), &err), MARKUP_ERR_INVALID_UTF8);
    assert_int_equal(err.pos, 0);
    assert_string_equal(err.arg, "s");
    assert_int_equal(markup_baked_builder_open(b, S("1x"), &err), MARKUP_ERR_INVALID_TAG);
    assert_int_equal(err.pos, 0);
    assert_string_equal(err.arg, "tag");
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    /* Nothing open: close is an error, finish is fine. */
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_ERR_INVALID_ARG);
    markup_baked *tpl = finish(b);
    assert_template(tpl, NULL, 0, "<p></p>");
    markup_baked_free(tpl);
}

static void test_finish_refuses_an_open_element(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_baked_builder *b = builder();
    assert_int_equal(markup_baked_builder_open(b, S("div"), &err), MARKUP_OK);
    markup_baked *tpl = (markup_baked *)&err; /* set to NULL by finish */
    assert_int_equal(markup_baked_builder_finish(b, &tpl, &err), MARKUP_ERR_INVALID_ARG);
    assert_null(tpl);
    assert_non_null(strstr(err.msg, "still open"));
    /* The builder was consumed (the leak checks see it freed). */
    assert_int_equal(markup_baked_builder_finish(NULL, &tpl, &err), MARKUP_ERR_INVALID_ARG);
}

static void test_html_in_a_text_element_slot_is_checked(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_baked_builder *b = builder();
    assert_int_equal(markup_baked_builder_open(b, S("title"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_open(b, S("b"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr_slot(b, S("data-x"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_open(b, S("p"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    markup_baked *tpl = finish(b);

    /* Text is escaped anywhere; trusted HTML may not end the title. */
    markup_value ok[3] = {text("</title>"), html("a<i>"), html("</title>")};
    assert_template(tpl, ok, 3,
                    "<title>&lt;/title&gt;<b data-x=\"a<i>\"></b></title><p></title></p>");
    markup_value child[3] = {html("x</TITLE><script>"), text(""), text("")};
    markup_buf out;
    markup_buf_init(&out, NULL);
    assert_int_equal(markup_baked_render(tpl, child, 3, &out, &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(err.pos, 1);
    assert_string_equal(err.arg, "values");
    assert_string_equal(err.refused, "</title");
    assert_int_equal(out.len, 0);
    markup_value attr[3] = {text(""), html("\"</title><script>"), text("")};
    assert_int_equal(markup_baked_render(tpl, attr, 3, &out, &err), MARKUP_ERR_RAW_TEXT);
    assert_string_equal(err.arg, "values");
    assert_int_equal(out.len, 0);
    markup_buf_free(&out);
    markup_baked_free(tpl);
}

static void test_trusted_values_cannot_join_into_an_end_tag(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    /* <title>{0}{1}</title>: each value alone holds no end tag, but "<"
       then "/title>" would make one. */
    markup_baked_builder *b = builder();
    assert_int_equal(markup_baked_builder_open(b, S("title"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_text(b, S("e x"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    markup_baked *tpl = finish(b);
    markup_buf out;
    markup_buf_init(&out, NULL);
    markup_value joined[2] = {html("<"), html("/title><script>alert(1)</script>")};
    assert_int_equal(markup_baked_render(tpl, joined, 2, &out, &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(err.pos, 0);
    assert_string_equal(err.arg, "values");
    markup_value with_static[2] = {text(""), html("</titl")};
    assert_int_equal(markup_baked_render(tpl, with_static, 2, &out, &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(out.len, 0);
    /* A '<' further from the end cannot reach past it; text is escaped. */
    markup_value fine[2] = {html("a < b, as said"), text("</title><")};
    assert_template(tpl, fine, 2, "<title>a < b, as said&lt;/title&gt;&lt;e x</title>");
    markup_buf_free(&out);
    markup_baked_free(tpl);
}

static void test_html_first_in_a_template_may_not_start_with_a_col(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    /* <template>{0}<script>...</script></template>: a first col would make
       the parser ignore the script's start tag and read its text. */
    markup_baked_builder *b = builder();
    assert_int_equal(markup_baked_builder_open(b, S("template"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_open(b, S("script"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_text(b, S("let a = 1"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    markup_baked *tpl = finish(b);
    markup_buf out;
    markup_buf_init(&out, NULL);
    static const char *const col_first[] = {"<col>", "<title>t</title><COL span=2>",
                                            "<title>left open"};
    for (size_t i = 0; i < sizeof col_first / sizeof col_first[0]; i++) {
        markup_value v = html(col_first[i]);
        assert_int_equal(markup_baked_render(tpl, &v, 1, &out, &err), MARKUP_ERR_CONTEXT);
        assert_int_equal(out.len, 0);
    }
    markup_buf_free(&out);
    /* Any other first element, or text; a textarea is no text element here. */
    markup_value div = html("<textarea>a</textarea><col> <");
    assert_template(tpl, &div, 1,
                    "<template><textarea>a</textarea><col> <<script>let a = 1</script></template>");
    markup_value col_text = text("<col>");
    assert_template(tpl, &col_text, 1,
                    "<template>&lt;col&gt;<script>let a = 1</script></template>");
    markup_baked_free(tpl);
}

static void test_a_refused_child_slot_changes_nothing(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_baked_builder *b = builder();
    assert_int_equal(markup_baked_builder_open(b, S("input"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_ERR_VOID_CHILD);
    /* Still in the start tag. */
    assert_int_equal(markup_baked_builder_attr(b, S("type"), S("text"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_attr_slot(b, S("value"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_open(b, S("style"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_ERR_RAW_TEXT);
    assert_int_equal(markup_baked_builder_attr(b, S("media"), S("print"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    markup_baked *tpl = finish(b);
    markup_value v = text("<x>");
    assert_template(tpl, &v, 1,
                    "<input type=\"text\" value=\"&lt;x&gt;\"><style media=\"print\"></style>");
    markup_baked_free(tpl);
}

static void test_error_positions_name_the_argument(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *root = NULL;
    assert_int_equal(markup_node_new_element(S("div"), NULL, &root, &err), MARKUP_OK);
    assert_null(
        markup_node_append_element(root, "p", MARKUP_ATTRS("id", "x", "a b", "1"), NULL, &err));
    assert_int_equal(err.pos, 1);
    assert_string_equal(err.arg, "attrs");
    /* A NULL value (a missing URL, say) is named as one. */
    assert_null(markup_node_append_element(root, "a", MARKUP_ATTRS("href", NULL), "x", &err));
    assert_int_equal(err.code, MARKUP_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "NULL value"));
    assert_null(markup_node_append_element(root, "p", NULL, "ok\xff", &err));
    assert_int_equal(err.pos, 2);
    assert_string_equal(err.arg, "text");
    assert_null(markup_node_append_element(root, "p q", NULL, NULL, &err));
    assert_int_equal(err.pos, 1);
    assert_string_equal(err.arg, "tag");
    /* A refusal while rendering points at no argument. */
    markup_node *title = markup_node_append_element(root, "title", NULL, NULL, &err);
    assert_int_equal(markup_node_append_html(title, S("x</title>"), &err), MARKUP_OK);
    markup_buf out;
    markup_buf_init(&out, NULL);
    assert_int_equal(markup_node_render(root, &out, &err), MARKUP_ERR_RAW_TEXT);
    assert_true(err.pos == MARKUP_POS_NONE);
    assert_null(err.arg);
    assert_string_equal(err.refused, "</title");
    assert_string_equal(err.element, "title");
    assert_null(markup_node_render_string(root, NULL, &err));
    assert_true(err.pos == MARKUP_POS_NONE);
    markup_buf_free(&out);
    markup_node_unref(root);
}

/* ------------------------------------------------------------------------ */
/* Trees built top-down                                                       */
/* ------------------------------------------------------------------------ */

static void test_append_element_builds_in_place(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *root = NULL;
    assert_int_equal(markup_node_new_element(S("ul"), NULL, &root, &err), MARKUP_OK);
    markup_node *li =
        markup_node_append_element(root, "li", MARKUP_ATTRS("class", "a\"b"), "x & y", &err);
    assert_non_null(li);
    /* Still writable: its parent is. */
    assert_int_equal(markup_node_add_attr_bool(li, S("hidden"), true, &err), MARKUP_OK);
    markup_node *a = markup_node_append_element(li, "a", NULL, NULL, &err);
    assert_non_null(a);
    assert_int_equal(markup_node_append_text(a, MARKUP_STR("<go>"), &err), MARKUP_OK);
    assert_non_null(markup_node_append_element(root, "li", NULL, NULL, &err));
    assert_int_equal(markup_node_child_count(root), 2);
    assert_tree(root,
                "<ul><li class=\"a&#34;b\" hidden>x &amp; y<a>&lt;go&gt;</a></li><li></li></ul>");
    markup_node_unref(root); /* frees the whole tree */
}

static void test_append_element_freezes_with_its_parent(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *page = NULL, *div = NULL;
    assert_int_equal(markup_node_new_element(S("body"), NULL, &page, &err), MARKUP_OK);
    assert_int_equal(markup_node_new_element(S("div"), NULL, &div, &err), MARKUP_OK);
    markup_node *p = markup_node_append_element(div, "p", NULL, NULL, &err);
    markup_node *b = markup_node_append_element(p, "b", NULL, NULL, &err);
    assert_non_null(b);
    assert_int_equal(markup_node_append_child(page, div, &err), MARKUP_OK);
    /* div is frozen, and so is everything made inside it, at any depth. */
    assert_int_equal(markup_node_append_text(p, S("x"), &err), MARKUP_ERR_FROZEN);
    assert_int_equal(markup_node_add_attr(b, S("id"), S("x"), &err), MARKUP_ERR_FROZEN);
    assert_null(markup_node_append_element(b, "i", NULL, NULL, &err));
    assert_int_equal(err.code, MARKUP_ERR_FROZEN);
    assert_tree(page, "<body><div><p><b></b></p></div></body>");

    /* Frozen for good: a child someone holds a reference to outlives the
       tree and stays frozen. */
    markup_node_ref(p);
    markup_node_unref(page);
    markup_node_unref(div);
    assert_int_equal(markup_node_append_text(b, S("x"), &err), MARKUP_ERR_FROZEN);
    assert_tree(p, "<p><b></b></p>");
    markup_node_unref(p);

    /* Made in place in a tree that is dropped before it froze: the child
       a reference kept is a root of its own, writable. */
    assert_int_equal(markup_node_new_element(S("div"), NULL, &div, &err), MARKUP_OK);
    p = markup_node_append_element(div, "p", NULL, NULL, &err);
    markup_node_ref(p);
    markup_node_unref(div);
    assert_non_null(markup_node_append_element(p, "b", NULL, "kept", &err));
    assert_tree(p, "<p><b>kept</b></p>");
    markup_node_unref(p);
}

static void test_no_cycle_through_children_made_in_place(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *root = NULL;
    assert_int_equal(markup_node_new_element(S("div"), NULL, &root, &err), MARKUP_OK);
    markup_node *p = markup_node_append_element(root, "p", NULL, NULL, &err);
    markup_node *b = markup_node_append_element(p, "b", NULL, NULL, &err);
    assert_int_equal(markup_node_append_child(b, root, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_append_child(b, p, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_append_child(b, b, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_append_child(p, root, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_node_child_count(b), 0);
    /* A sibling is no ancestor: appending it shares and freezes it. */
    markup_node *i = markup_node_append_element(root, "i", NULL, NULL, &err);
    assert_int_equal(markup_node_append_child(b, i, &err), MARKUP_OK);
    assert_int_equal(markup_node_append_text(i, S("x"), &err), MARKUP_ERR_FROZEN);
    assert_tree(root, "<div><p><b><i></i></b></p><i></i></div>");
    markup_node_unref(root);
}

/* Deep in-place chains cost the same per level: a frozen node knows it
   alone, and freezing walks each node once. */
static void test_deep_chain_made_in_place(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *root = NULL, *top = NULL;
    assert_int_equal(markup_node_new_element(S("div"), NULL, &root, &err), MARKUP_OK);
    markup_node *n = root;
    for (int i = 0; i < 100000 && n != NULL; i++) {
        n = markup_node_append_element(n, "b", NULL, NULL, &err);
        if (n) assert_int_equal(markup_node_add_attr(n, S("id"), S("x"), &err), MARKUP_OK);
    }
    assert_non_null(n);
    assert_int_equal(markup_node_new_element(S("section"), NULL, &top, &err), MARKUP_OK);
    assert_int_equal(markup_node_append_child(top, root, &err), MARKUP_OK);
    assert_int_equal(markup_node_append_text(n, S("x"), &err), MARKUP_ERR_FROZEN);
    markup_buf out;
    markup_buf_init(&out, NULL);
    assert_int_equal(markup_node_render(top, &out, &err), MARKUP_ERR_TOO_DEEP);
    markup_buf_free(&out);
    markup_node_unref(root);
    markup_node_unref(top); /* frees 100,002 nodes without recursion */
}

static void test_append_element_failure_leaves_the_parent_as_it_was(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *root = NULL;
    assert_int_equal(markup_node_new_element(S("div"), NULL, &root, &err), MARKUP_OK);
    assert_null(markup_node_append_element(root, "p", MARKUP_ATTRS("id"), NULL, &err));
    assert_int_equal(err.code, MARKUP_ERR_INVALID_ARG);
    assert_null(markup_node_append_element(root, "p", MARKUP_ATTRS("a b", "1"), NULL, &err));
    assert_int_equal(err.code, MARKUP_ERR_INVALID_ATTR_NAME);
    assert_int_equal(err.pos, 1);
    assert_null(markup_node_append_element(root, "p", NULL, "\xff", &err));
    assert_int_equal(err.code, MARKUP_ERR_INVALID_UTF8);
    assert_null(markup_node_append_element(root, "", NULL, NULL, &err));
    assert_int_equal(err.code, MARKUP_ERR_INVALID_TAG);
    assert_null(markup_node_append_element(NULL, "p", NULL, NULL, &err));
    assert_int_equal(err.code, MARKUP_ERR_INVALID_ARG);
    markup_node *br = markup_node_append_element(root, "br", NULL, NULL, &err);
    assert_non_null(br);
    assert_null(markup_node_append_element(br, "i", NULL, NULL, &err));
    assert_int_equal(err.code, MARKUP_ERR_VOID_CHILD);
    assert_int_equal(markup_node_child_count(root), 1);
    assert_tree(root, "<div><br></div>");
    markup_node_unref(root);
}

static void test_json_and_templates_in_a_tree(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *root = NULL;
    assert_int_equal(markup_node_new_fragment(NULL, &root), MARKUP_OK);
    markup_node *script = markup_node_append_element(root, "script", NULL, NULL, &err);
    assert_int_equal(
        markup_node_append_json(script, MARKUP_STR("{\"a\":\"</script><!--&'\"}"), &err),
        MARKUP_OK);
    assert_int_equal(markup_node_append_json(script, S("\xff"), &err), MARKUP_ERR_INVALID_UTF8);
    assert_string_equal(err.arg, "json");

    markup_baked_builder *b = builder();
    assert_int_equal(markup_baked_builder_open(b, S("li"), &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_child_slot(b, &err), MARKUP_OK);
    assert_int_equal(markup_baked_builder_close(b, &err), MARKUP_OK);
    markup_baked *row = finish(b);
    markup_node *ul = markup_node_append_element(root, "ul", NULL, NULL, &err);
    markup_value v = text("<1>");
    assert_int_equal(markup_node_append_baked(ul, row, &v, 1, &err), MARKUP_OK);
    assert_int_equal(markup_node_append_baked(ul, row, &v, 0, &err), MARKUP_ERR_SLOT_COUNT);
    assert_int_equal(markup_node_child_count(ul), 1);
    assert_tree(root, "<script>{\"a\":\"\\u003c/script\\u003e\\u003c!--\\u0026\\u0027\"}</script>"
                      "<ul><li>&lt;1&gt;</li></ul>");
    markup_baked_free(row);
    markup_node_unref(root);
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                     */
/* ------------------------------------------------------------------------ */

static void test_success_clears_the_error(void **state) {
    (void)state;
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *p = NULL;
    assert_int_equal(markup_node_new_element(S("p"), NULL, &p, &err), MARKUP_OK);
    assert_int_equal(markup_node_add_attr(p, S("a=b"), S(""), &err), MARKUP_ERR_INVALID_ATTR_NAME);
    assert_int_equal(err.pos, 1);
    assert_string_equal(err.arg, "name");
    assert_non_null(err.msg);
    assert_int_equal(markup_node_add_attr(p, S("id"), S("x"), &err), MARKUP_OK);
    assert_int_equal(err.code, MARKUP_OK);
    assert_true(err.pos == MARKUP_POS_NONE);
    assert_null(err.msg);
    assert_null(err.arg);
    assert_null(err.refused);

    markup_writer w;
    markup_buf out;
    markup_buf_init(&out, NULL);
    markup_writer_init(&w, &out, MARKUP_CONTEXT_HTML);
    assert_int_equal(markup_writer_close(&w, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_writer_open(&w, S("p"), &err), MARKUP_OK);
    assert_null(err.msg);
    assert_int_equal(markup_writer_attr_bool(&w, S("on"), false, &err), MARKUP_OK);
    assert_int_equal(markup_writer_attr_bool(&w, S("x y"), false, &err),
                     MARKUP_ERR_INVALID_ATTR_NAME);
    assert_int_equal(markup_writer_close(&w, &err), MARKUP_OK);
    assert_int_equal(err.code, MARKUP_OK);
    assert_bytes(out.data, out.len, "<p></p>");
    markup_writer_dispose(&w);
    markup_buf_free(&out);
    markup_node_unref(p);
}

static void test_status_names(void **state) {
    (void)state;
    static const struct {
        markup_status st;
        const char *name;
    } names[] = {
        {MARKUP_OK, "MARKUP_OK"},
        {MARKUP_ERR_NOMEM, "MARKUP_ERR_NOMEM"},
        {MARKUP_ERR_INVALID_ARG, "MARKUP_ERR_INVALID_ARG"},
        {MARKUP_ERR_TOO_LARGE, "MARKUP_ERR_TOO_LARGE"},
        {MARKUP_ERR_INVALID_UTF8, "MARKUP_ERR_INVALID_UTF8"},
        {MARKUP_ERR_INVALID_TAG, "MARKUP_ERR_INVALID_TAG"},
        {MARKUP_ERR_INVALID_ATTR_NAME, "MARKUP_ERR_INVALID_ATTR_NAME"},
        {MARKUP_ERR_VOID_CHILD, "MARKUP_ERR_VOID_CHILD"},
        {MARKUP_ERR_RAW_TEXT, "MARKUP_ERR_RAW_TEXT"},
        {MARKUP_ERR_FROZEN, "MARKUP_ERR_FROZEN"},
        {MARKUP_ERR_TOO_DEEP, "MARKUP_ERR_TOO_DEEP"},
        {MARKUP_ERR_SLOT_COUNT, "MARKUP_ERR_SLOT_COUNT"},
        {MARKUP_ERR_SLOT_VALUE, "MARKUP_ERR_SLOT_VALUE"},
        {MARKUP_ERR_CONTEXT, "MARKUP_ERR_CONTEXT"},
        {MARKUP_ERR_IO, "MARKUP_ERR_IO"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_string_equal(markup_status_name(names[i].st), names[i].name);
    assert_string_equal(markup_status_name((markup_status)999), "MARKUP_ERR_UNKNOWN");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builder_writes_what_the_writer_writes),
        cmocka_unit_test(test_attribute_slot_only_in_a_start_tag),
        cmocka_unit_test(test_builder_copies_tags),
        cmocka_unit_test(test_child_slot_where_the_writer_allows),
        cmocka_unit_test(test_static_strings_are_validated),
        cmocka_unit_test(test_finish_refuses_an_open_element),
        cmocka_unit_test(test_html_in_a_text_element_slot_is_checked),
        cmocka_unit_test(test_trusted_values_cannot_join_into_an_end_tag),
        cmocka_unit_test(test_html_first_in_a_template_may_not_start_with_a_col),
        cmocka_unit_test(test_a_refused_child_slot_changes_nothing),
        cmocka_unit_test(test_error_positions_name_the_argument),
        cmocka_unit_test(test_append_element_builds_in_place),
        cmocka_unit_test(test_append_element_freezes_with_its_parent),
        cmocka_unit_test(test_append_element_failure_leaves_the_parent_as_it_was),
        cmocka_unit_test(test_no_cycle_through_children_made_in_place),
        cmocka_unit_test(test_deep_chain_made_in_place),
        cmocka_unit_test(test_json_and_templates_in_a_tree),
        cmocka_unit_test(test_success_clears_the_error),
        cmocka_unit_test(test_status_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
