/*
 * baked_rows.c - a row template baked once and filled from C data: each
 * row is one markup_baked_render_file call, straight to stdout.
 */
#include <markup/markup.h>

#include <stdio.h>
#include <string.h>

#define S(lit) (lit), (sizeof(lit) - 1)

typedef struct order {
    const char *id;
    const char *customer;
    const char *total;
    bool overdue;
} order;

static const order orders[] = {
    {"1001", "Ada & Co", "12.50", false},
    {"1002", "<script>alert(1)</script>", "7.00", true},
    {"1003", "Grace \"Amazing\"", "99.95", false},
};

/* <tr{data-overdue}><td>{id}</td><td>{customer}</td><td class="num">{total}</td></tr>,
   written through the builder's writer: a slot where it cannot stand, or
   an element left open, is an error here, not a broken page later. */
static markup_status bake_row(markup_baked **out, markup_error *err) {
    markup_baked_builder *b = NULL;
    markup_status st = markup_baked_builder_new(NULL, &b);
    if (st == MARKUP_OK) st = markup_baked_builder_open(b, S("tr"), err);
    if (st == MARKUP_OK) st = markup_baked_builder_attr_slot(b, S("data-overdue"), err);
    for (int i = 0; i < 3 && st == MARKUP_OK; i++) {
        st = markup_baked_builder_open(b, S("td"), err);
        if (st == MARKUP_OK && i == 2) st = markup_baked_builder_attr(b, S("class"), S("num"), err);
        if (st == MARKUP_OK) st = markup_baked_builder_child_slot(b, err);
        if (st == MARKUP_OK) st = markup_baked_builder_close(b, err);
    }
    if (st == MARKUP_OK) st = markup_baked_builder_close(b, err);
    if (st == MARKUP_OK) st = markup_baked_builder_text(b, S("\n"), err);
    if (st == MARKUP_OK) return markup_baked_builder_finish(b, out, err); /* frees the builder */
    markup_baked_builder_free(b);
    return st;
}

static markup_value text(const char *s) { return (markup_value){MARKUP_VALUE_TEXT, s, strlen(s)}; }

int main(void) {
    markup_baked *row = NULL;
    markup_error err = MARKUP_ERROR_INIT;
    markup_status st = bake_row(&row, &err);
    if (st == MARKUP_OK && fputs("<table>\n", stdout) == EOF) st = MARKUP_ERR_IO;
    for (size_t i = 0; st == MARKUP_OK && i < sizeof orders / sizeof orders[0]; i++) {
        const order *o = &orders[i];
        markup_value values[] = {
            {o->overdue ? MARKUP_VALUE_TRUE : MARKUP_VALUE_OMIT, NULL, 0},
            text(o->id),
            text(o->customer),
            text(o->total),
        };
        st = markup_baked_render_file(row, values, sizeof values / sizeof values[0], stdout, &err);
    }
    if (st == MARKUP_OK && fputs("</table>\n", stdout) == EOF) st = MARKUP_ERR_IO;
    markup_baked_free(row);
    if (st != MARKUP_OK) {
        fprintf(stderr, "baked_rows: %s: %s\n", markup_status_name(st), err.msg ? err.msg : "");
        return 1;
    }
    return 0;
}
