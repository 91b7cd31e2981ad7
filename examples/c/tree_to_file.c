/*
 * tree_to_file.c - a page built as a markup_node tree and written to
 * stdout with markup_node_render_file: the HTML goes to the FILE* in
 * pieces as it is written, never whole in memory.
 */
#include <markup/markup.h>

#include <stdio.h>
#include <string.h>

#define S(lit) (lit), (sizeof(lit) - 1)

static int fail(const char *what, const markup_error *err) {
    fprintf(stderr, "tree_to_file: %s: %s (%s)\n", what, markup_status_str(err->code),
            err->msg ? err->msg : "");
    return 1;
}

/* <tag>text</tag>, appended to `parent`; the parent keeps its own reference. */
static markup_status add_text_element(markup_node *parent, const char *tag, const char *text,
                                      markup_error *err) {
    markup_node *el = NULL;
    markup_status st = markup_node_new_element(tag, strlen(tag), NULL, &el, err);
    if (st == MARKUP_OK) st = markup_node_append_text(el, text, strlen(text), err);
    if (st == MARKUP_OK) st = markup_node_append_child(parent, el, err);
    markup_node_unref(el);
    return st;
}

int main(void) {
    static const char *const teas[] = {"Sencha", "Earl <Grey>", "Tea & \"cake\""};
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *page = NULL, *body = NULL, *list = NULL;
    markup_status st = markup_node_new_element(S("html"), NULL, &page, &err);
    if (st == MARKUP_OK) st = markup_node_new_element(S("body"), NULL, &body, &err);
    if (st == MARKUP_OK) st = markup_node_new_element(S("ul"), NULL, &list, &err);
    if (st == MARKUP_OK) st = markup_node_set_attr(list, S("class"), S("teas"), &err);
    if (st == MARKUP_OK) st = add_text_element(body, "h1", "Our teas", &err);
    for (size_t i = 0; st == MARKUP_OK && i < sizeof teas / sizeof teas[0]; i++)
        st = add_text_element(list, "li", teas[i], &err);
    /* Children are appended bottom-up: an appended node is frozen. */
    if (st == MARKUP_OK) st = markup_node_append_child(body, list, &err);
    if (st == MARKUP_OK) st = markup_node_append_child(page, body, &err);
    if (st == MARKUP_OK) st = markup_node_render_file(page, stdout, &err);
    if (st == MARKUP_OK && fputc('\n', stdout) == EOF) st = MARKUP_ERR_IO;
    markup_node_unref(list);
    markup_node_unref(body);
    markup_node_unref(page);
    return st == MARKUP_OK ? 0 : fail("rendering the page", &err);
}
