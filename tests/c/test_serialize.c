/* test_serialize.c - markup_node_render: the HTML5 serialization rules,
   depth limit, shared subtrees, roll-back on failure, concurrent renders. */
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

static markup_node *element(const char *tag) {
    markup_node *node = NULL;
    assert_int_equal(markup_node_new_element(tag, strlen(tag), NULL, &node, NULL), MARKUP_OK);
    return node;
}

static markup_node *fragment(void) {
    markup_node *node = NULL;
    assert_int_equal(markup_node_new_fragment(NULL, &node), MARKUP_OK);
    return node;
}

/* Appends child to parent and drops the caller's reference. */
static void adopt(markup_node *parent, markup_node *child) {
    assert_int_equal(markup_node_append_child(parent, child, NULL), MARKUP_OK);
    markup_node_unref(child);
}

static void text(markup_node *node, const char *s) {
    assert_int_equal(markup_node_append_text(node, s, strlen(s), NULL), MARKUP_OK);
}

static void assert_render(const markup_node *node, const char *expected) {
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    assert_int_equal(markup_node_render(node, &buf, NULL), MARKUP_OK);
    size_t n = strlen(expected);
    if (buf.len != n || (n && memcmp(buf.data, expected, n) != 0)) {
        print_error("rendered \"%.*s\"\nexpected \"%s\"\n", (int)buf.len, buf.data ? buf.data : "",
                    expected);
        fail();
    }
    markup_buf_free(&buf);
}

static void test_attributes_in_insertion_order(void **state) {
    (void)state;
    markup_node *input = element("input");
    assert_int_equal(markup_node_add_attr(input, S("type"), S("checkbox"), NULL), MARKUP_OK);
    assert_int_equal(markup_node_add_attr_bool(input, S("checked"), true, NULL), MARKUP_OK);
    assert_int_equal(markup_node_add_attr_bool(input, S("disabled"), false, NULL), MARKUP_OK);
    assert_int_equal(markup_node_add_attr(input, S("class"), S("big"), NULL), MARKUP_OK);
    assert_int_equal(markup_node_add_attr(input, S("data-id"), S("3"), NULL), MARKUP_OK);
    assert_int_equal(markup_node_add_attr(input, S("value"), S(""), NULL), MARKUP_OK);
    assert_int_equal(
        markup_node_add_attr(input, S("title"), S("\"quoted\" & 'single' <tag>"), NULL), MARKUP_OK);
    assert_int_equal(
        markup_node_add_attr_html(input, S("x-data"), S("{ open: &#39;a&#39; }"), NULL), MARKUP_OK);
    assert_render(input, "<input type=\"checkbox\" checked class=\"big\" data-id=\"3\" value=\"\""
                         " title=\"&#34;quoted&#34; &amp; &#39;single&#39; &lt;tag&gt;\""
                         " x-data=\"{ open: &#39;a&#39; }\">");
    markup_node_unref(input);
}

static void test_text_html_and_comments(void **state) {
    (void)state;
    markup_node *div = element("div");
    text(div, "Tea & cake <b>");
    assert_int_equal(markup_node_append_html(div, S("<em>safe</em>"), NULL), MARKUP_OK);
    assert_int_equal(markup_node_append_comment(div, S("a --> b & <c>"), NULL), MARKUP_OK);
    text(div, "");
    text(div, "caf\xC3\xA9 \xE2\x82\xAC");
    assert_render(div, "<div>Tea &amp; cake &lt;b&gt;<em>safe</em><!--a --&gt; b &amp; &lt;c&gt;-->"
                       "caf\xC3\xA9 \xE2\x82\xAC</div>");
    markup_node_unref(div);
    markup_node *empty = element("p");
    assert_render(empty, "<p></p>");
    markup_node_unref(empty);
}

static void test_void_elements(void **state) {
    (void)state;
    static const char *const voids[] = {"area",  "base", "br",   "col",    "embed", "hr", "img",
                                        "input", "link", "meta", "source", "track", "wbr"};
    markup_node *p = element("p");
    char expected[512] = "<p>";
    for (size_t i = 0; i < sizeof voids / sizeof voids[0]; i++) {
        adopt(p, element(voids[i]));
        strcat(expected, "<");
        strcat(expected, voids[i]);
        strcat(expected, ">");
    }
    strcat(expected, "</p>");
    assert_render(p, expected);
    markup_node_unref(p);
    markup_node *img = element("img");
    assert_int_equal(markup_node_add_attr(img, S("src"), S("a.png?x=1&y=2"), NULL), MARKUP_OK);
    assert_int_equal(markup_node_add_attr(img, S("alt"), S(""), NULL), MARKUP_OK);
    assert_render(img, "<img src=\"a.png?x=1&amp;y=2\" alt=\"\">");
    markup_node_unref(img);
}

static void test_document_with_doctype(void **state) {
    (void)state;
    markup_node *doc = fragment();
    assert_int_equal(markup_node_append_doctype(doc, NULL), MARKUP_OK);
    markup_node *html = element("html");
    assert_int_equal(markup_node_add_attr(html, S("lang"), S("en"), NULL), MARKUP_OK);
    markup_node *head = element("head");
    markup_node *meta = element("meta");
    assert_int_equal(markup_node_add_attr(meta, S("charset"), S("utf-8"), NULL), MARKUP_OK);
    adopt(head, meta);
    markup_node *title = element("title");
    text(title, "Products & more");
    adopt(head, title);
    adopt(html, head);
    markup_node *body = element("body");
    markup_node *ul = element("ul");
    for (int i = 0; i < 3; i++) {
        markup_node *li = element("li");
        char label[16];
        snprintf(label, sizeof label, "item <%d>", i);
        text(li, label);
        adopt(ul, li);
    }
    adopt(body, ul);
    adopt(html, body);
    adopt(doc, html);
    assert_render(doc, "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                       "<title>Products &amp; more</title></head><body><ul><li>item &lt;0&gt;</li>"
                       "<li>item &lt;1&gt;</li><li>item &lt;2&gt;</li></ul></body></html>");
    markup_node_unref(doc);
}

static void test_raw_text_elements(void **state) {
    (void)state;
    markup_node *head = element("head");
    markup_node *script = element("script");
    assert_int_equal(markup_node_add_attr(script, S("type"), S("module"), NULL), MARKUP_OK);
    text(script, "if (a < b && c > \"d\") { x = '<p>'; }");
    adopt(head, script);
    markup_node *style = element("style");
    text(style, "a > b::after { content: \"&\" }");
    adopt(head, style);
    markup_node *title = element("title");
    text(title, "a < b"); /* an ordinary element: escaped */
    adopt(head, title);
    assert_render(head,
                  "<head><script type=\"module\">if (a < b && c > \"d\") { x = '<p>'; }</script>"
                  "<style>a > b::after { content: \"&\" }</style><title>a &lt; b</title></head>");
    markup_node_unref(head);
}

/* Inside <svg> and <math> the parser reads script and style text as
   markup: it is escaped there, and raw again at the HTML integration points. */
static void test_raw_text_in_foreign_content(void **state) {
    (void)state;
    const char *payload = "<img src=x onerror=alert(1)>";
    const char *escaped = "&lt;img src=x onerror=alert(1)&gt;";
    static const struct {
        const char *outer, *middle, *raw_tag;
        bool raw;
    } cases[] = {
        {"svg", NULL, "script", false},
        {"svg", NULL, "style", false},
        {"math", NULL, "style", false},
        {"SVG", "g", "script", false},
        {"svg", "foreignObject", "script", true},
        {"svg", "desc", "style", true},
        {"svg", "title", "script", true},
        {"math", "mi", "style", true},
        {"math", "mtext", "script", true},
        {"math", "desc", "script", false},
        {"div", NULL, "script", true},
        /* Outside <math>, mi and mglyph are plain HTML elements: raw again
           (the MathML cases are in test_writer.c). */
        {"mi", "mglyph", "script", true},
        {"mtext", "MALIGNMARK", "style", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        markup_node *doc = fragment();
        markup_node *outer = element(cases[i].outer);
        markup_node *holder = outer;
        markup_node *middle = NULL;
        if (cases[i].middle) {
            middle = element(cases[i].middle);
            holder = middle;
        }
        markup_node *raw = element(cases[i].raw_tag);
        text(raw, payload);
        adopt(holder, raw);
        if (middle) adopt(outer, middle);
        adopt(doc, outer);
        char expected[256];
        const char *mid_open = cases[i].middle ? cases[i].middle : "";
        char mid_open_tag[64] = "", mid_close_tag[64] = "";
        if (cases[i].middle) {
            snprintf(mid_open_tag, sizeof mid_open_tag, "<%s>", mid_open);
            snprintf(mid_close_tag, sizeof mid_close_tag, "</%s>", mid_open);
        }
        snprintf(expected, sizeof expected, "<%s>%s<%s>%s</%s>%s</%s>", cases[i].outer,
                 mid_open_tag, cases[i].raw_tag, cases[i].raw ? payload : escaped, cases[i].raw_tag,
                 mid_close_tag, cases[i].outer);
        bool under_foreign =
            strcmp(cases[i].outer, "svg") == 0 || strcmp(cases[i].outer, "math") == 0;
        if (cases[i].raw && under_foreign) {
            /* Raw text under svg or math holds no '<'. */
            markup_buf buf;
            markup_buf_init(&buf, NULL);
            markup_error err = MARKUP_ERROR_INIT;
            assert_int_equal(markup_node_render(doc, &buf, &err), MARKUP_ERR_CONTEXT);
            markup_buf_free(&buf);
        } else {
            assert_render(doc, expected);
        }
        markup_node_unref(doc);
    }
    /* Back in HTML after the foreign element closes. */
    markup_node *body = element("body");
    adopt(body, element("svg"));
    markup_node *script = element("script");
    text(script, "a < b");
    adopt(body, script);
    assert_render(body, "<body><svg></svg><script>a < b</script></body>");
    markup_node_unref(body);
}

/* Inside <title>, <noscript>... a parser reads a <script> or <style> as the
   outer element's text: raw text there may not hold their end tags, while
   the same text elsewhere is fine. The check sees the whole text, so a tag
   split over two children is caught too. */
static void test_raw_text_inside_text_elements(void **state) {
    (void)state;
    static const struct {
        const char *outer, *middle, *raw_tag, *first, *second;
        bool ok;
    } cases[] = {
        {"noscript", NULL, "style", ".m{} </NoScript><img src=x>", "", false},
        {"title", NULL, "script", "x = 1", "</title", false},
        {"textarea", "div", "style", "a</text", "area>", false},
        {"iframe", NULL, "script", "</noframes", "", false},
        {"xmp", NULL, "script", "document.write('<b></b>')", "", true},
        {"div", NULL, "script", "document.write('<iframe></iframe>')", "", true},
        {"noembed", "svg", "style", "</noembed>", "", true}, /* escaped in svg */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        markup_node *outer = element(cases[i].outer);
        markup_node *raw = element(cases[i].raw_tag);
        text(raw, cases[i].first);
        if (cases[i].second[0]) text(raw, cases[i].second);
        if (cases[i].middle) {
            markup_node *middle = element(cases[i].middle);
            adopt(middle, raw);
            adopt(outer, middle);
        } else {
            adopt(outer, raw);
        }
        markup_buf buf;
        markup_buf_init(&buf, NULL);
        assert_int_equal(markup_buf_append(&buf, S("kept")), MARKUP_OK);
        markup_error err = MARKUP_ERROR_INIT;
        markup_status st = markup_node_render(outer, &buf, &err);
        if (cases[i].ok) {
            assert_int_equal(st, MARKUP_OK);
        } else {
            assert_int_equal(st, MARKUP_ERR_RAW_TEXT);
            assert_int_equal(err.code, MARKUP_ERR_RAW_TEXT);
            assert_non_null(err.msg);
            assert_int_equal(buf.len, 4); /* rolled back */
        }
        markup_buf_free(&buf);
        markup_node_unref(outer);
    }
}

static void test_fragments_render_inline(void **state) {
    (void)state;
    markup_node *ul = element("ul");
    markup_node *items = fragment();
    markup_node *inner = fragment();
    text(inner, "<x>");
    markup_node *li = element("li");
    text(li, "a");
    adopt(items, li);
    adopt(items, inner);
    adopt(ul, items);
    adopt(ul, fragment()); /* empty fragment writes nothing */
    assert_render(ul, "<ul><li>a</li>&lt;x&gt;</ul>");
    markup_node_unref(ul);
}

static void test_shared_frozen_subtree(void **state) {
    (void)state;
    markup_node *row = element("tr");
    markup_node *td = element("td");
    text(td, "same & shared");
    adopt(row, td);
    markup_node *table = element("table");
    markup_node *other = element("tbody");
    for (int i = 0; i < 3; i++)
        assert_int_equal(markup_node_append_child(table, row, NULL), MARKUP_OK);
    assert_int_equal(markup_node_append_child(other, row, NULL), MARKUP_OK);
    markup_node_unref(row);
    const char *expected = "<table><tr><td>same &amp; shared</td></tr><tr><td>same &amp; shared"
                           "</td></tr><tr><td>same &amp; shared</td></tr></table>";
    assert_render(table, expected);
    assert_render(table, expected); /* rendering does not consume anything */
    markup_node_unref(table);
    assert_render(other, "<tbody><tr><td>same &amp; shared</td></tr></tbody>");
    markup_node_unref(other);
}

/* A chain of `depth` nested elements with a text at the bottom. */
static markup_node *chain(size_t depth) {
    markup_node *node = element("b");
    text(node, "x");
    for (size_t i = 1; i < depth; i++) {
        markup_node *outer = element(i % 2 ? "i" : "b");
        adopt(outer, node);
        node = outer;
    }
    return node;
}

static void test_depth_limit(void **state) {
    (void)state;
    markup_node *ok = chain(MARKUP_MAX_DEPTH);
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    assert_int_equal(markup_node_render(ok, &buf, NULL), MARKUP_OK);
    /* <b>/<i> open and close tags, 3 + 4 bytes each, plus the text */
    assert_int_equal(buf.len, (size_t)MARKUP_MAX_DEPTH * 7 + 1);
    markup_buf_clear(&buf);

    /* A fragment around it does not count as a level. */
    markup_node *doc = fragment();
    assert_int_equal(markup_node_append_child(doc, ok, NULL), MARKUP_OK);
    assert_int_equal(markup_node_render(doc, &buf, NULL), MARKUP_OK);
    markup_node_unref(doc);
    markup_buf_clear(&buf);

    markup_node *too_deep = element("div");
    assert_int_equal(markup_node_append_child(too_deep, ok, NULL), MARKUP_OK);
    markup_node_unref(ok);
    assert_int_equal(markup_buf_append(&buf, "prefix", 6), MARKUP_OK);
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_node_render(too_deep, &buf, &err), MARKUP_ERR_TOO_DEEP);
    assert_int_equal(err.code, MARKUP_ERR_TOO_DEEP);
    assert_non_null(err.msg);
    assert_int_equal(buf.len, 6); /* rolled back */
    assert_memory_equal(buf.data, "prefix", 6);
    markup_node_unref(too_deep);
    markup_buf_free(&buf);
}

static void test_render_at_every_failure_point(void **state) {
    (void)state;
    /* Deep enough to move the explicit stack to the heap, long enough to
       grow the buffer many times. */
    markup_node *tree = chain(300);
    markup_node *root = element("section");
    char long_text[5000];
    memset(long_text, '<', sizeof long_text);
    assert_int_equal(markup_node_append_text(root, long_text, sizeof long_text, NULL), MARKUP_OK);
    adopt(root, tree);
    markup_buf reference;
    markup_buf_init(&reference, NULL);
    assert_int_equal(markup_node_render(root, &reference, NULL), MARKUP_OK);
    size_t fail_at = 0;
    for (;; fail_at++) {
        test_alloc ta;
        test_alloc_init(&ta, fail_at);
        markup_buf buf;
        markup_buf_init(&buf, &ta.alc);
        markup_status st = markup_buf_append(&buf, "keep", 4);
        if (st == MARKUP_OK) {
            markup_error err;
            st = markup_node_render(root, &buf, &err);
            if (st == MARKUP_OK) {
                assert_int_equal(buf.len, 4 + reference.len);
                assert_memory_equal(buf.data + 4, reference.data, reference.len);
            } else {
                assert_int_equal(err.code, MARKUP_ERR_NOMEM);
                assert_int_equal(buf.len, 4);
                assert_memory_equal(buf.data, "keep", 4);
            }
        }
        markup_buf_free(&buf);
        assert_int_equal(ta.live_bytes, 0);
        assert_int_equal(ta.size_mismatches, 0);
        if (st == MARKUP_OK) break;
        assert_int_equal(st, MARKUP_ERR_NOMEM);
    }
    assert_true(fail_at > 3);
    markup_buf_free(&reference);
    markup_node_unref(root);
}

typedef struct render_job {
    const markup_node *tree;
    const markup_buf *expected;
    int mismatches;
} render_job;

static void *render_many(void *arg) {
    render_job *job = arg;
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    for (int i = 0; i < 200; i++) {
        markup_buf_clear(&buf);
        if (markup_node_render(job->tree, &buf, NULL) != MARKUP_OK ||
            buf.len != job->expected->len || memcmp(buf.data, job->expected->data, buf.len) != 0)
            job->mismatches++;
    }
    markup_buf_free(&buf);
    return NULL;
}

static void test_concurrent_renders_of_a_frozen_tree(void **state) {
    (void)state;
    markup_node *list = element("ul");
    for (int i = 0; i < 50; i++) {
        markup_node *li = element("li");
        assert_int_equal(markup_node_add_attr(li, S("class"), S("row & item"), NULL), MARKUP_OK);
        adopt(li, chain(20));
        adopt(list, li);
    }
    markup_node *root = fragment();
    adopt(root, list); /* list is frozen now */
    markup_buf expected;
    markup_buf_init(&expected, NULL);
    assert_int_equal(markup_node_render(root, &expected, NULL), MARKUP_OK);
    pthread_t threads[4];
    render_job jobs[4];
    for (int t = 0; t < 4; t++) {
        jobs[t] = (render_job){root, &expected, 0};
        assert_int_equal(pthread_create(&threads[t], NULL, render_many, &jobs[t]), 0);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(threads[t], NULL);
        assert_int_equal(jobs[t].mismatches, 0);
    }
    markup_buf_free(&expected);
    markup_node_unref(root);
}

static void test_render_null_arguments(void **state) {
    (void)state;
    markup_buf buf;
    markup_buf_init(&buf, NULL);
    markup_error err;
    assert_int_equal(markup_node_render(NULL, &buf, &err), MARKUP_ERR_INVALID_ARG);
    markup_node *p = element("p");
    assert_int_equal(markup_node_render(p, NULL, &err), MARKUP_ERR_INVALID_ARG);
    markup_node_unref(p);
    assert_int_equal(buf.len, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attributes_in_insertion_order),
        cmocka_unit_test(test_text_html_and_comments),
        cmocka_unit_test(test_void_elements),
        cmocka_unit_test(test_document_with_doctype),
        cmocka_unit_test(test_raw_text_elements),
        cmocka_unit_test(test_raw_text_in_foreign_content),
        cmocka_unit_test(test_raw_text_inside_text_elements),
        cmocka_unit_test(test_fragments_render_inline),
        cmocka_unit_test(test_shared_frozen_subtree),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_render_at_every_failure_point),
        cmocka_unit_test(test_concurrent_renders_of_a_frozen_tree),
        cmocka_unit_test(test_render_null_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
