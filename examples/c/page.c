/*
 * page.c - a page built with libmarkup and printed to stdout, then eight
 * mistakes, each refused with the status it should give.
 *
 * The page is a markup_node tree built top-down: escaped text, a void
 * element, JSON in a <script>, and a list filled from one baked row
 * template, three times. The tests build this file, run it and compare its
 * output with page.expected.html byte for byte (docs/c-api.md walks
 * through it). Exit status 0 when the page was written and every mistake
 * gave its status.
 */
#include <markup/markup.h>

#include <stdio.h>

/* Hostile text: markup, ampersands and both kinds of quote. */
static const char *const items[][3] = {
    {"1", "<b>Tea</b>", "3 & 4"},
    {"2\" onclick=\"x", "Earl 'Grey' & co", "\"4.20\""},
    {"<3>", "Fish & \"Chips\"", "<5>"},
};

static int report(const char *what, const markup_error *err) {
    fprintf(stderr, "page: %s: %s: %s\n", what, markup_status_name(err->code), err->msg);
    return 1;
}

/* <li class="row" data-id="{0}">{1}: {2}</li> */
static markup_baked *build_row(markup_error *err) {
    markup_baked *row = NULL;
    markup_baked_builder *b = NULL;
    if (markup_baked_builder_new(NULL, &b) != MARKUP_OK ||
        markup_baked_builder_open(b, MARKUP_STR("li"), err) != MARKUP_OK ||
        markup_baked_builder_attr(b, MARKUP_STR("class"), MARKUP_STR("row"), err) != MARKUP_OK ||
        markup_baked_builder_attr_slot(b, MARKUP_STR("data-id"), err) != MARKUP_OK ||
        markup_baked_builder_child_slot(b, err) != MARKUP_OK ||
        markup_baked_builder_text(b, MARKUP_STR(": "), err) != MARKUP_OK ||
        markup_baked_builder_child_slot(b, err) != MARKUP_OK ||
        markup_baked_builder_close(b, err) != MARKUP_OK) {
        markup_baked_builder_free(b);
        return NULL;
    }
    markup_baked_builder_finish(b, &row, err); /* consumes b; NULL on failure */
    return row;
}

static markup_value text(const char *s) { return (markup_value){MARKUP_VALUE_TEXT, MARKUP_STR(s)}; }

/* The page, top-down: each append_element is owned by its parent. */
static markup_node *build_page(const markup_baked *row, markup_error *err) {
    markup_node *doc = NULL, *html, *head, *script, *body, *p, *input, *ul;
    if (markup_node_new_fragment(NULL, &doc) != MARKUP_OK ||
        markup_node_append_doctype(doc, err) != MARKUP_OK ||
        !(html = markup_node_append_element(doc, "html", MARKUP_ATTRS("lang", "en"), NULL, err)) ||
        !(head = markup_node_append_element(html, "head", NULL, NULL, err)) ||
        !markup_node_append_element(head, "meta", MARKUP_ATTRS("charset", "utf-8"), NULL, err) ||
        !markup_node_append_element(head, "title", NULL, "Tea & <Cake>", err) ||
        !(script = markup_node_append_element(
              head, "script", MARKUP_ATTRS("type", "application/json"), NULL, err)) ||
        markup_node_append_json(script, MARKUP_STR("{\"q\":\"</script><b>\",\"n\":1}"), err) !=
            MARKUP_OK ||
        !(body = markup_node_append_element(html, "body", NULL, NULL, err)) ||
        !markup_node_append_element(body, "h1", NULL, "Fish & \"Chips\"", err) ||
        !(p = markup_node_append_element(body, "p", NULL, NULL, err)) ||
        !markup_node_append_element(p, "a", MARKUP_ATTRS("href", "/search?q=a&b=c"), "Search",
                                    err) ||
        !(input =
              markup_node_append_element(body, "input", MARKUP_ATTRS("name", "q"), NULL, err)) ||
        markup_node_add_attr_bool(input, MARKUP_STR("required"), true, err) != MARKUP_OK ||
        !(ul = markup_node_append_element(body, "ul", NULL, NULL, err)))
        goto fail;
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        markup_value values[3] = {text(items[i][0]), text(items[i][1]), text(items[i][2])};
        if (markup_node_append_baked(ul, row, values, 3, err) != MARKUP_OK) goto fail;
    }
    return doc;
fail:
    markup_node_unref(doc);
    return NULL;
}

/* One mistake: prints what was refused, and whether it was `want`. */
static int expect(int n, markup_status got, markup_status want, const markup_error *err) {
    fprintf(stderr, "mistake %d: %s: %s\n", n, markup_status_name(got), err->msg);
    return got != want;
}

static int mistakes(const markup_baked *row) {
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *div = NULL, *wrap = NULL, *bad = NULL, *br, *script;
    markup_buf out;
    markup_buf_init(&out, NULL);
    if (markup_node_new_element(MARKUP_STR("div"), NULL, &div, &err) != MARKUP_OK ||
        markup_node_new_element(MARKUP_STR("section"), NULL, &wrap, &err) != MARKUP_OK ||
        !(br = markup_node_append_element(div, "br", NULL, NULL, &err)) ||
        !(script = markup_node_append_element(div, "script", NULL, NULL, &err))) {
        markup_node_unref(div);
        markup_node_unref(wrap);
        return report("the mistakes' nodes", &err);
    }
    int failed = expect(1, markup_node_new_element(MARKUP_STR("1p"), NULL, &bad, &err),
                        MARKUP_ERR_INVALID_TAG, &err);
    failed += expect(2, markup_node_add_attr(div, MARKUP_STR("on click"), MARKUP_STR("x"), &err),
                     MARKUP_ERR_INVALID_ATTR_NAME, &err);
    failed += expect(3, markup_node_append_text(div, MARKUP_STR("\xff"), &err),
                     MARKUP_ERR_INVALID_UTF8, &err);
    failed +=
        expect(4, markup_node_append_text(br, MARKUP_STR("x"), &err), MARKUP_ERR_VOID_CHILD, &err);
    failed += expect(5, markup_node_append_text(script, MARKUP_STR("</script>"), &err),
                     MARKUP_ERR_RAW_TEXT, &err);
    /* Appended to a parent, div freezes with everything made inside it. */
    if (markup_node_append_child(wrap, div, &err) != MARKUP_OK) failed += report("wrap", &err);
    failed +=
        expect(6, markup_node_append_text(script, MARKUP_STR("x"), &err), MARKUP_ERR_FROZEN, &err);
    markup_value two[2] = {text("1"), text("a")};
    failed += expect(7, markup_baked_render(row, two, 2, &out, &err), MARKUP_ERR_SLOT_COUNT, &err);
    markup_value truth[3] = {text("1"), {MARKUP_VALUE_TRUE, NULL, 0}, text("a")};
    failed +=
        expect(8, markup_baked_render(row, truth, 3, &out, &err), MARKUP_ERR_SLOT_VALUE, &err);
    markup_buf_free(&out);
    markup_node_unref(wrap);
    markup_node_unref(div);
    return failed;
}

int main(void) {
    markup_error err = MARKUP_ERROR_INIT;
    markup_baked *row = build_row(&err);
    if (row == NULL) return report("the row template", &err);
    markup_node *page = build_page(row, &err);
    int failed = page == NULL;
    if (page == NULL)
        report("the page", &err);
    else if (markup_node_render_file(page, stdout, &err) != MARKUP_OK || fputc('\n', stdout) == EOF)
        failed = report("writing the page", &err);
    else
        failed = mistakes(row);
    markup_node_unref(page);
    markup_baked_free(row);
    return failed ? 1 : 0;
}
