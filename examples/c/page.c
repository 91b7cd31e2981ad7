/*
 * page.c - a small product page built with libmarkup and printed to stdout.
 *
 * The page is a markup_node tree (doctype, <html>, <head>, <body>). The
 * product rows come from one baked template, rendered once per product and
 * added to the <ul> as trusted HTML. Every call that can fail is checked;
 * on an error the program says what failed and exits with status 1.
 *
 * The tests build this file, run it and compare its output with
 * page.expected.html byte for byte (docs/c-api.md walks through it).
 */
#include <markup/markup.h>

#include <stdio.h>
#include <string.h>

typedef struct product {
    const char *name;
    const char *price;
    bool sold_out;
} product;

/* Text with every character the escaper replaces. */
static const product products[] = {
    {"Tea & cake", "3.50", false},
    {"Earl <Grey>", "4.20", true},
    {"\"Granny's\" scone", "2.10", false},
};

static int report(const char *what, markup_status st, const markup_error *err) {
    fprintf(stderr, "page: %s: %s", what, markup_status_str(st));
    if (err != NULL && err->code != MARKUP_OK && err->msg != NULL) {
        fprintf(stderr, " (%s, at byte %zu)", err->msg, err->pos);
    }
    fputc('\n', stderr);
    return 1;
}

/* Moves the HTML collected in `html` into the template as static text. */
static markup_status flush_static(markup_baked_builder *b, markup_buf *html) {
    markup_status st = markup_baked_builder_add_static(b, html->data, html->len);
    markup_buf_clear(html);
    return st;
}

/* The row template, three slots:
     <li class="product"{0: data-sold-out}><span class="name">{1}</span>
     <span class="price">{2}</span></li>
   The static pieces are written with the markup_html_* writers, so their
   escaping and syntax are the library's own. */
static markup_status build_row_template(markup_baked **out, markup_error *err) {
    markup_baked_builder *b = NULL;
    markup_buf html;
    markup_buf_init(&html, NULL);
    *out = NULL;

    markup_status st = markup_baked_builder_new(NULL, &b);
    if (st == MARKUP_OK) st = markup_html_write_open(&html, "li", 2);
    if (st == MARKUP_OK) st = markup_html_write_attr(&html, "class", 5, "product", 7);
    if (st == MARKUP_OK) st = flush_static(b, &html);
    if (st == MARKUP_OK) st = markup_baked_builder_add_attr_slot(b, "data-sold-out", 13, err);
    if (st == MARKUP_OK) st = markup_buf_putc(&html, '>');
    if (st == MARKUP_OK) st = markup_html_write_open(&html, "span", 4);
    if (st == MARKUP_OK) st = markup_html_write_attr(&html, "class", 5, "name", 4);
    if (st == MARKUP_OK) st = markup_buf_putc(&html, '>');
    if (st == MARKUP_OK) st = flush_static(b, &html);
    if (st == MARKUP_OK) st = markup_baked_builder_add_child_slot(b);
    if (st == MARKUP_OK) st = markup_html_write_close(&html, "span", 4);
    if (st == MARKUP_OK) st = markup_html_write_open(&html, "span", 4);
    if (st == MARKUP_OK) st = markup_html_write_attr(&html, "class", 5, "price", 5);
    if (st == MARKUP_OK) st = markup_buf_putc(&html, '>');
    if (st == MARKUP_OK) st = flush_static(b, &html);
    if (st == MARKUP_OK) st = markup_baked_builder_add_child_slot(b);
    if (st == MARKUP_OK) st = markup_html_write_close(&html, "span", 4);
    if (st == MARKUP_OK) st = markup_html_write_close(&html, "li", 2);
    if (st == MARKUP_OK) st = flush_static(b, &html);

    markup_buf_free(&html);
    if (st != MARKUP_OK) {
        markup_baked_builder_free(b);
        return st;
    }
    return markup_baked_builder_finish(b, out); /* consumes the builder */
}

/* Renders one row per product into `out`. */
static markup_status render_rows(const markup_baked *row, markup_buf *out, markup_error *err) {
    for (size_t i = 0; i < sizeof products / sizeof products[0]; i++) {
        const product *p = &products[i];
        markup_value values[3] = {
            {p->sold_out ? MARKUP_VALUE_TRUE : MARKUP_VALUE_OMIT, NULL, 0},
            {MARKUP_VALUE_TEXT, p->name, strlen(p->name)},
            {MARKUP_VALUE_TEXT, p->price, strlen(p->price)},
        };
        markup_status st = markup_baked_render(row, values, 3, out, err);
        if (st != MARKUP_OK) return st;
    }
    return MARKUP_OK;
}

/* Appends <tag>text</tag> to `parent`. The parent takes its own reference
   to the new element, so ours is dropped at once. */
static markup_status add_text_element(markup_node *parent, const char *tag, const char *text,
                                      markup_error *err) {
    markup_node *el = NULL;
    markup_status st = markup_node_new_element(tag, strlen(tag), NULL, &el, err);
    if (st == MARKUP_OK) st = markup_node_append_text(el, text, strlen(text), err);
    if (st == MARKUP_OK) st = markup_node_append_child(parent, el, err);
    markup_node_unref(el);
    return st;
}

/* <head>: charset, title and a style sheet (raw text: written unescaped). */
static markup_status build_head(markup_node *html, markup_error *err) {
    markup_node *head = NULL, *meta = NULL;
    markup_status st = markup_node_new_element("head", 4, NULL, &head, err);
    if (st == MARKUP_OK) st = markup_node_new_element("meta", 4, NULL, &meta, err);
    if (st == MARKUP_OK) st = markup_node_set_attr(meta, "charset", 7, "utf-8", 5, err);
    if (st == MARKUP_OK) st = markup_node_append_child(head, meta, err);
    if (st == MARKUP_OK) st = add_text_element(head, "title", "Tea & cake: products", err);
    if (st == MARKUP_OK) st = add_text_element(head, "style", "li > .price { float: right }", err);
    if (st == MARKUP_OK) st = markup_node_append_child(html, head, err);
    markup_node_unref(meta);
    markup_node_unref(head);
    return st;
}

/* <body>: a heading, the list filled with the baked rows, a comment. */
static markup_status build_body(markup_node *html, const markup_buf *rows, markup_error *err) {
    markup_node *body = NULL, *list = NULL;
    markup_status st = markup_node_new_element("body", 4, NULL, &body, err);
    if (st == MARKUP_OK) st = add_text_element(body, "h1", "Products <today>", err);
    if (st == MARKUP_OK) st = markup_node_new_element("ul", 2, NULL, &list, err);
    if (st == MARKUP_OK) st = markup_node_set_attr(list, "id", 2, "products", 8, err);
    if (st == MARKUP_OK) st = markup_node_set_attr_bool(list, "hidden", 6, false, err);
    if (st == MARKUP_OK) st = markup_node_append_html(list, rows->data, rows->len, err);
    if (st == MARKUP_OK) st = markup_node_append_child(body, list, err);
    if (st == MARKUP_OK) st = markup_node_append_comment(body, " 3 products ", 12, err);
    if (st == MARKUP_OK) st = markup_node_append_child(html, body, err);
    markup_node_unref(list);
    markup_node_unref(body);
    return st;
}

int main(void) {
    markup_error err = {MARKUP_OK, 0, NULL, NULL};
    markup_baked *row = NULL;
    markup_node *doc = NULL, *html = NULL;
    markup_buf rows, out;
    markup_buf_init(&rows, NULL);
    markup_buf_init(&out, NULL);
    int rc = 0;

    markup_status st = build_row_template(&row, &err);
    if (st != MARKUP_OK) {
        rc = report("row template", st, &err);
        goto done;
    }
    st = render_rows(row, &rows, &err);
    if (st != MARKUP_OK) {
        rc = report("rows", st, &err);
        goto done;
    }

    /* A document is a fragment: the doctype, then <html>. */
    st = markup_node_new_fragment(NULL, &doc);
    if (st == MARKUP_OK) st = markup_node_append_doctype(doc, &err);
    if (st == MARKUP_OK) st = markup_node_new_element("html", 4, NULL, &html, &err);
    if (st == MARKUP_OK) st = markup_node_set_attr(html, "lang", 4, "en", 2, &err);
    if (st == MARKUP_OK) st = build_head(html, &err);
    if (st == MARKUP_OK) st = build_body(html, &rows, &err);
    if (st == MARKUP_OK) st = markup_node_append_child(doc, html, &err);
    if (st != MARKUP_OK) {
        rc = report("page tree", st, &err);
        goto done;
    }

    st = markup_node_render(doc, &out, &err);
    if (st == MARKUP_OK) st = markup_buf_putc(&out, '\n');
    if (st != MARKUP_OK) {
        rc = report("render", st, &err);
        goto done;
    }
    if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
        fprintf(stderr, "page: cannot write the page\n");
        rc = 1;
    }

done:
    markup_node_unref(html);
    markup_node_unref(doc);
    markup_baked_free(row);
    markup_buf_free(&rows);
    markup_buf_free(&out);
    return rc;
}
