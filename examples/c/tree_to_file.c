/*
 * tree_to_file.c - a page built top-down as a markup_node tree and written
 * to stdout with markup_node_render_file: the HTML goes to the FILE* in
 * pieces as it is written, never whole in memory.
 */
#include <markup/markup.h>

#include <stdio.h>

int main(void) {
    static const char *const teas[] = {"Sencha", "Earl <Grey>", "Tea & \"cake\""};
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *page = NULL, *body, *list = NULL;
    /* The root is ours; every append_element belongs to its parent. */
    if (markup_node_new_element(MARKUP_STR("html"), NULL, &page, &err) == MARKUP_OK &&
        (body = markup_node_append_element(page, "body", NULL, NULL, &err)) &&
        markup_node_append_element(body, "h1", NULL, "Our teas", &err))
        list = markup_node_append_element(body, "ul", MARKUP_ATTRS("class", "teas"), NULL, &err);
    for (size_t i = 0; list && i < sizeof teas / sizeof teas[0]; i++)
        if (!markup_node_append_element(list, "li", NULL, teas[i], &err)) list = NULL;
    if (list && markup_node_render_file(page, stdout, &err) == MARKUP_OK &&
        fputc('\n', stdout) != EOF) {
        markup_node_unref(page);
        return 0;
    }
    fprintf(stderr, "tree_to_file: %s: %s\n", markup_status_name(err.code), err.msg);
    markup_node_unref(page);
    return 1;
}
