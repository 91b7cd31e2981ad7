/*
 * A consumer of the installed libmarkup: builds a small page as a tree,
 * renders it, prints it, and exits non-zero unless the bytes are the ones
 * the HTML5 serializer must write. Compiled by scripts/install-check.sh
 * against the install prefix only, once through pkg-config and twice
 * through find_package(markup) (markup::markup and markup::markup_static).
 */
#include <stdio.h>
#include <string.h>

#include <markup/markup.h>

static const char expected[] =
    "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
    "<title>Tea &amp; cake</title></head><body><h1 class=\"title\">Tea &amp; cake</h1>"
    "<p data-note=\"&#34;quoted&#34; &amp; &lt;tagged&gt;\">Caf\xc3\xa9 &lt;b&gt;not bold&lt;/b&gt;"
    "<br><em>trusted</em></p><input type=\"checkbox\" checked><!--built in C--></body></html>";

/* Element nodes are filled before they are appended (appending freezes a
   node), so the page is built bottom-up. */
static markup_status build_page(markup_node **out, markup_error *err) {
    markup_node *doc = NULL, *html = NULL, *head = NULL, *body = NULL, *node = NULL, *leaf = NULL;
    markup_status st;
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((st = (call)) != MARKUP_OK) goto done;                                                 \
    } while (0)
#define NEW(var, tag) TRY(markup_node_new_element(tag, strlen(tag), NULL, &(var), err))
#define ADOPT(parent, var)                                                                         \
    do {                                                                                           \
        st = markup_node_append_child(parent, var, err);                                           \
        markup_node_unref(var);                                                                    \
        (var) = NULL;                                                                              \
        if (st != MARKUP_OK) goto done;                                                            \
    } while (0)
    TRY(markup_node_new_fragment(NULL, &doc));
    TRY(markup_node_append_doctype(doc, err));
    NEW(html, "html");
    TRY(markup_node_add_attr(html, "lang", 4, "en", 2, err));

    NEW(head, "head");
    NEW(node, "meta");
    TRY(markup_node_add_attr(node, "charset", 7, "utf-8", 5, err));
    ADOPT(head, node);
    NEW(node, "title");
    TRY(markup_node_append_text(node, "Tea & cake", 10, err));
    ADOPT(head, node);
    ADOPT(html, head);

    NEW(body, "body");
    NEW(node, "h1");
    TRY(markup_node_add_attr(node, "class", 5, "title", 5, err));
    TRY(markup_node_append_text(node, "Tea & cake", 10, err));
    ADOPT(body, node);

    NEW(node, "p");
    static const char note[] = "\"quoted\" & <tagged>";
    static const char text[] = "Caf\xc3\xa9 <b>not bold</b>";
    TRY(markup_node_add_attr(node, "data-note", 9, note, sizeof note - 1, err));
    TRY(markup_node_append_text(node, text, sizeof text - 1, err));
    NEW(leaf, "br");
    ADOPT(node, leaf);
    TRY(markup_node_append_html(node, "<em>trusted</em>", 16, err));
    ADOPT(body, node);

    NEW(node, "input");
    TRY(markup_node_add_attr(node, "type", 4, "checkbox", 8, err));
    TRY(markup_node_add_attr_bool(node, "checked", 7, true, err));
    TRY(markup_node_add_attr_bool(node, "disabled", 8, false, err));
    ADOPT(body, node);
    TRY(markup_node_append_comment(body, "built in C", 10, err));
    ADOPT(html, body);
    ADOPT(doc, html);
#undef ADOPT
#undef NEW
#undef TRY
done:
    markup_node_unref(leaf);
    markup_node_unref(node);
    markup_node_unref(body);
    markup_node_unref(head);
    markup_node_unref(html);
    if (st != MARKUP_OK) {
        markup_node_unref(doc);
        doc = NULL;
    }
    *out = doc;
    return st;
}

int main(void) {
    if (strcmp(markup_version(), MARKUP_VERSION_STRING) != 0) {
        fprintf(stderr, "header says %s, library says %s\n", MARKUP_VERSION_STRING,
                markup_version());
        return 1;
    }
    markup_error err = MARKUP_ERROR_INIT;
    markup_node *page = NULL;
    markup_buf out;
    markup_buf_init(&out, NULL);
    markup_status st = build_page(&page, &err);
    if (st == MARKUP_OK) st = markup_node_render(page, &out, &err);
    markup_node_unref(page);
    if (st != MARKUP_OK) {
        fprintf(stderr, "markup: %s (%s)\n", markup_status_name(st), err.msg ? err.msg : "");
        markup_buf_free(&out);
        return 1;
    }

    /* Invalid UTF-8 is refused: the check that needs utf8proc at link time. */
    markup_error bad = MARKUP_ERROR_INIT;
    markup_status utf8 = markup_utf8_validate("ok \xc3\x28", 5, &bad);

    fwrite(out.data, 1, out.len, stdout);
    fputc('\n', stdout);
    int ok = out.len == sizeof expected - 1 && memcmp(out.data, expected, out.len) == 0;
    if (!ok) fprintf(stderr, "rendered page differs from the expected bytes:\n%s\n", expected);
    if (utf8 != MARKUP_ERR_INVALID_UTF8 || bad.pos != 3) {
        fprintf(stderr, "markup_utf8_validate accepted invalid UTF-8 (status %d, pos %zu)\n",
                (int)utf8, bad.pos);
        ok = 0;
    }
    markup_buf_free(&out);
    return ok ? 0 : 1;
}
