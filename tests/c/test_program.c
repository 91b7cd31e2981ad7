/* test_program.c - template programs run over a C program's own data:
   loops, conditions, loop state, failures midway and the builder's checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "markup/binding.h"
#include "test_alloc.h"

#define S(lit) (lit), (sizeof(lit) - 1)

/* The data: an order has a number, a customer and tags. Values handed to
   the program are pointers to `val`; the test counts live references. */
typedef struct order {
    int id;
    const char *customer;
    bool overdue;
    const char *const *tags;
    size_t ntags;
} order;

typedef enum val_kind { VAL_STR, VAL_INT, VAL_BOOL, VAL_ORDERS, VAL_ORDER, VAL_TAGS } val_kind;

typedef struct val {
    val_kind kind;
    const char *s;
    long n;
    const order *orders; /* ORDERS: n of them; ORDER: one */
    const char *const *tags;
    bool heap;
    int refs;  /* heap values: freed at 0 */
    char *own; /* a captured string, freed with the value */
} val;

typedef struct data_ctx {
    long live;       /* references handed out and not yet released */
    long iters_open; /* iterations begun and not yet ended */
    int fail_at_id;  /* APPLY_CUSTOMER fails on this order id (0: never) */
    long fail_seen;
    const char *fail_write; /* writing this string fails */
    bool fail_truth;        /* testing a BOOL value fails */
} data_ctx;

typedef struct iter {
    val *of;
    size_t next;
} iter;

enum { APPLY_ID, APPLY_CUSTOMER, APPLY_OVERDUE, APPLY_TAGS, APPLY_CONST_ODD, APPLY_CONST_EVEN };
enum { INFO_INDEX1, INFO_LAST };

static val *new_val(data_ctx *c, val v) {
    val *p = test_malloc(sizeof *p);
    *p = v;
    p->heap = true;
    p->refs = 1;
    c->live++;
    return p;
}

static void *d_retain(void *ctx, void *value) {
    ((data_ctx *)ctx)->live++;
    ((val *)value)->refs++;
    return value;
}

static void d_release(void *ctx, void *value) {
    data_ctx *c = ctx;
    c->live--;
    val *v = value;
    if (--v->refs == 0 && v->heap) {
        test_free(v->own);
        test_free(v);
    }
}

/* What END_CAPTURE took out of the output, as a string value. */
static markup_status d_capture(void *ctx, const char *s, size_t n, void **out) {
    char *copy = test_malloc(n + 1);
    memcpy(copy, s, n);
    copy[n] = '\0';
    val *v = new_val(ctx, (val){.kind = VAL_STR, .s = copy});
    v->own = copy;
    *out = v;
    return MARKUP_OK;
}

static markup_status d_apply(void *ctx, uint32_t op, void *const *args, uint32_t nargs,
                             void **out) {
    data_ctx *c = ctx;
    if (op == APPLY_CONST_ODD || op == APPLY_CONST_EVEN) {
        assert_int_equal(nargs, 0);
        *out = new_val(c, (val){.kind = VAL_STR, .s = op == APPLY_CONST_ODD ? "odd" : "even"});
        return MARKUP_OK;
    }
    assert_int_equal(nargs, 1);
    const val *v = args[0];
    assert_int_equal(v->kind, VAL_ORDER);
    const order *o = v->orders;
    switch (op) {
    case APPLY_ID: *out = new_val(c, (val){.kind = VAL_INT, .n = o->id}); break;
    case APPLY_CUSTOMER:
        if (o->id == c->fail_at_id) {
            c->fail_seen++;
            return MARKUP_ERR_SLOT_VALUE;
        }
        *out = new_val(c, (val){.kind = VAL_STR, .s = o->customer});
        break;
    case APPLY_OVERDUE: *out = new_val(c, (val){.kind = VAL_BOOL, .n = o->overdue}); break;
    case APPLY_TAGS:
        *out = new_val(c, (val){.kind = VAL_TAGS, .tags = o->tags, .n = (long)o->ntags});
        break;
    default: fail();
    }
    return MARKUP_OK;
}

static markup_status d_truth(void *ctx, void *value, bool *out) {
    data_ctx *c = ctx;
    const val *v = value;
    if (c->fail_truth && v->kind == VAL_BOOL) {
        c->fail_seen++;
        return MARKUP_ERR_SLOT_VALUE;
    }
    *out = v->kind == VAL_STR ? v->s[0] != 0 : v->n != 0;
    return MARKUP_OK;
}

static markup_status d_iter_begin(void *ctx, void *iterable, void **it) {
    data_ctx *c = ctx;
    const val *v = iterable;
    assert_true(v->kind == VAL_ORDERS || v->kind == VAL_TAGS);
    iter *i = test_malloc(sizeof *i);
    *i = (iter){d_retain(ctx, iterable), 0}; /* the iterator keeps its iterable */
    c->iters_open++;
    *it = i;
    return MARKUP_OK;
}

static markup_status d_iter_next(void *ctx, void *it, void **item, bool *done) {
    data_ctx *c = ctx;
    iter *i = it;
    if ((long)i->next >= i->of->n) {
        *done = true;
        return MARKUP_OK;
    }
    size_t k = i->next++;
    if (i->of->kind == VAL_ORDERS)
        *item = new_val(c, (val){.kind = VAL_ORDER, .orders = &i->of->orders[k]});
    else
        *item = new_val(c, (val){.kind = VAL_STR, .s = i->of->tags[k]});
    return MARKUP_OK;
}

static void d_iter_end(void *ctx, void *it) {
    data_ctx *c = ctx;
    iter *i = it;
    d_release(ctx, (void *)i->of);
    c->iters_open--;
    test_free(it);
}

static markup_status d_loop_value(void *ctx, uint32_t what, const markup_loop_state *loop,
                                  void **out) {
    data_ctx *c = ctx;
    if (what == INFO_INDEX1)
        *out = new_val(c, (val){.kind = VAL_INT, .n = (long)loop->index + 1});
    else
        *out = new_val(c, (val){.kind = VAL_BOOL, .n = loop->last});
    return MARKUP_OK;
}

/* Child values are written as the writer writes text where the slot
   stands; attribute values as the whole value of their attribute. */
static markup_status d_write(void *ctx, const markup_program_slot *slot, void *value,
                             markup_buf *out) {
    data_ctx *c = ctx;
    const val *v = value;
    if (c->fail_write && v->kind == VAL_STR && strcmp(v->s, c->fail_write) == 0) {
        c->fail_seen++;
        return MARKUP_ERR_SLOT_VALUE;
    }
    char num[32];
    const char *s = v->s;
    if (v->kind == VAL_INT) {
        snprintf(num, sizeof num, "%ld", v->n);
        s = num;
    }
    assert_non_null(s);
    if (slot->kind == MARKUP_SLOT_ATTR) {
        markup_value text = {MARKUP_VALUE_TEXT, s, strlen(s)};
        return markup_baked_write_value(MARKUP_SLOT_ATTR, slot->name, slot->name_len, &text, out);
    }
    markup_writer w;
    markup_writer_init(&w, out, slot->context);
    markup_status st = markup_writer_text(&w, s, strlen(s), NULL);
    markup_writer_dispose(&w);
    return st;
}

static const markup_program_data data_ops = {
    d_retain,   d_release,    d_apply, d_truth, d_iter_begin, d_iter_next,
    d_iter_end, d_loop_value, d_write, NULL,    NULL,         d_capture,
};

/* The fused steps, counted: a field's value is written or tested without
   being handed to the run. */
static long fused_calls;

static markup_status d_apply_write(void *ctx, uint32_t op, void *arg,
                                   const markup_program_slot *slot, markup_buf *out) {
    fused_calls++;
    void *v = NULL;
    markup_status st = d_apply(ctx, op, &arg, 1, &v);
    if (st != MARKUP_OK) return st;
    st = d_write(ctx, slot, v, out);
    d_release(ctx, v);
    return st;
}

static markup_status d_apply_truth(void *ctx, uint32_t op, void *arg, bool *out) {
    fused_calls++;
    void *v = NULL;
    markup_status st = d_apply(ctx, op, &arg, 1, &v);
    if (st != MARKUP_OK) return st;
    st = d_truth(ctx, v, out);
    d_release(ctx, v);
    return st;
}

static const markup_program_data fused_ops = {
    d_retain,   d_release,    d_apply, d_truth,       d_iter_begin,  d_iter_next,
    d_iter_end, d_loop_value, d_write, d_apply_write, d_apply_truth, d_capture,
};

static void emit(markup_program_builder *b, markup_op op, uint32_t a, uint32_t n) {
    assert_int_equal(markup_program_emit(b, op, a, n, NULL), MARKUP_OK);
}

static void stat(markup_program_builder *b, const char *s) {
    assert_int_equal(markup_program_add_static(b, s, strlen(s)), MARKUP_OK);
}

static uint32_t child_slot(markup_program_builder *b, unsigned depth) {
    markup_program_slot s = {MARKUP_SLOT_CHILD, MARKUP_CONTEXT_HTML, depth, NULL, 0, false, 0};
    uint32_t index = UINT32_MAX;
    assert_int_equal(markup_program_add_slot(b, &s, &index), MARKUP_OK);
    return index;
}

/* <table>{% for o in orders %}<tr class="{{ loop.cycle('odd','even') }}">
   <td>{{ loop.index }}</td><td>{{ o.customer }}</td>
   {% if o.overdue %}<td>late</td>{% endif %}
   <td>{% for t in o.tags %}<b>{{ t }}</b>{% endfor %}</td>
   {% if not loop.last %}<!-- -->{% endif %}</tr>{% endfor %}</table>
   (the last is written as an IF/JUMP/else) */
static markup_program *orders_program(void) {
    markup_program_builder *b = NULL;
    assert_int_equal(markup_program_builder_new(NULL, 1, &b), MARKUP_OK);
    markup_program_slot cls = {MARKUP_SLOT_ATTR, MARKUP_CONTEXT_HTML, 2, "class", 5, false, 0};
    uint32_t cls_slot = 0;
    assert_int_equal(markup_program_add_slot(b, &cls, &cls_slot), MARKUP_OK);
    uint32_t text = child_slot(b, 3);

    stat(b, "<table>");
    emit(b, MARKUP_OP_PARAM, 0, 0);
    uint32_t loop = 0, inner = 0, skip = 0, other = 0;
    assert_int_equal(markup_program_emit(b, MARKUP_OP_LOOP, 0, MARKUP_LOOP_LOOKAHEAD, &loop),
                     MARKUP_OK);
    stat(b, "<tr");
    emit(b, MARKUP_OP_APPLY, APPLY_CONST_ODD, 0);
    emit(b, MARKUP_OP_APPLY, APPLY_CONST_EVEN, 0);
    emit(b, MARKUP_OP_CYCLE, 0, 2);
    emit(b, MARKUP_OP_WRITE, cls_slot, 0);
    stat(b, "><td>");
    emit(b, MARKUP_OP_LOOP_INFO, 0, INFO_INDEX1);
    emit(b, MARKUP_OP_WRITE, text, 0);
    stat(b, "</td><td>");
    emit(b, MARKUP_OP_ITEM, 0, 0);
    emit(b, MARKUP_OP_APPLY, APPLY_CUSTOMER, 1);
    emit(b, MARKUP_OP_WRITE, text, 0);
    stat(b, "</td>");
    emit(b, MARKUP_OP_ITEM, 0, 0);
    emit(b, MARKUP_OP_APPLY, APPLY_OVERDUE, 1);
    assert_int_equal(markup_program_emit(b, MARKUP_OP_IF, 0, 0, &skip), MARKUP_OK);
    stat(b, "<td>late</td>");
    assert_int_equal(markup_program_patch(b, skip, markup_program_here(b)), MARKUP_OK);
    stat(b, "<td>");
    emit(b, MARKUP_OP_ITEM, 0, 0);
    emit(b, MARKUP_OP_APPLY, APPLY_TAGS, 1);
    assert_int_equal(markup_program_emit(b, MARKUP_OP_LOOP, 0, 0, &inner), MARKUP_OK);
    stat(b, "<b>");
    emit(b, MARKUP_OP_ITEM, 0, 0);
    emit(b, MARKUP_OP_WRITE, text, 0);
    stat(b, "</b>");
    emit(b, MARKUP_OP_END_LOOP, inner + 1, 0);
    assert_int_equal(markup_program_patch(b, inner, markup_program_here(b)), MARKUP_OK);
    stat(b, "</td>");
    emit(b, MARKUP_OP_LOOP_INFO, 0, INFO_LAST);
    assert_int_equal(markup_program_emit(b, MARKUP_OP_IF, 0, 0, &skip), MARKUP_OK);
    stat(b, "</tr>");
    assert_int_equal(markup_program_emit(b, MARKUP_OP_JUMP, 0, 0, &other), MARKUP_OK);
    assert_int_equal(markup_program_patch(b, skip, markup_program_here(b)), MARKUP_OK);
    stat(b, "<!-- --></tr>");
    assert_int_equal(markup_program_patch(b, other, markup_program_here(b)), MARKUP_OK);
    emit(b, MARKUP_OP_END_LOOP, loop + 1, 0);
    assert_int_equal(markup_program_patch(b, loop, markup_program_here(b)), MARKUP_OK);
    stat(b, "</table>");

    markup_program *p = NULL;
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_program_builder_finish(b, &p, &err), MARKUP_OK);
    return p;
}

static const char *const tags_a[] = {"new", "<vip>"};
static const order orders[] = {
    {1, "Ann & Bo", false, tags_a, 2},
    {2, "Cy", true, NULL, 0},
    {3, "<Di>", false, tags_a + 1, 1},
};

static void test_orders_page(void **state) {
    (void)state;
    markup_program *p = orders_program();
    data_ctx c = {0};
    val list = {.kind = VAL_ORDERS, .orders = orders, .n = 3};
    void *params[] = {&list};
    markup_buf out;
    markup_buf_init(&out, NULL);
    markup_program_fault fault;
    assert_int_equal(markup_program_run(p, &data_ops, &c, params, 1, &out, &fault), MARKUP_OK);
    const char want[] =
        "<table>"
        "<tr class=\"odd\"><td>1</td><td>Ann &amp; Bo</td>"
        "<td><b>new</b><b>&lt;vip&gt;</b></td><!-- --></tr>"
        "<tr class=\"even\"><td>2</td><td>Cy</td><td>late</td><td></td><!-- --></tr>"
        "<tr class=\"odd\"><td>3</td><td>&lt;Di&gt;</td>"
        "<td><b>&lt;vip&gt;</b></td></tr>"
        "</table>";
    if (out.len != sizeof want - 1 || memcmp(out.data, want, out.len) != 0)
        fail_msg("got %.*s", (int)out.len, out.data);
    assert_int_equal(c.live, 0);
    assert_int_equal(c.iters_open, 0);

    /* No orders: the loop's body never runs. */
    val none = {.kind = VAL_ORDERS, .orders = orders, .n = 0};
    params[0] = &none;
    markup_buf_clear(&out);
    assert_int_equal(markup_program_run(p, &data_ops, &c, params, 1, &out, &fault), MARKUP_OK);
    assert_int_equal(out.len, strlen("<table></table>"));
    assert_memory_equal(out.data, "<table></table>", out.len);
    assert_int_equal(c.live, 0);
    markup_buf_free(&out);
    markup_program_free(p);
}

/* {% for o in orders %}<i>{{ o.customer }}</i>{% else %}none{% endfor %}!
   with MARKUP_LOOP_ELSE: the else part runs only for an empty iterable,
   and loop_value sees the caller's iterator and the item after this one. */
static const order *seen_next[4]; /* the order of each loop->next, NULL for none */
static size_t seen_index;

static markup_status d_loop_next(void *ctx, uint32_t what, const markup_loop_state *loop,
                                 void **out) {
    assert_non_null(loop->iter);
    if (seen_index < 4)
        seen_next[seen_index++] = loop->next ? ((const val *)loop->next)->orders : NULL;
    return d_loop_value(ctx, what, loop, out);
}

static void test_loop_else(void **state) {
    (void)state;
    markup_program_builder *b = NULL;
    assert_int_equal(markup_program_builder_new(NULL, 1, &b), MARKUP_OK);
    uint32_t text = child_slot(b, 1);
    uint32_t loop = 0, jump = 0;
    emit(b, MARKUP_OP_PARAM, 0, 0);
    assert_int_equal(
        markup_program_emit(b, MARKUP_OP_LOOP, 0, MARKUP_LOOP_ELSE | MARKUP_LOOP_LOOKAHEAD, &loop),
        MARKUP_OK);
    stat(b, "<i>");
    emit(b, MARKUP_OP_ITEM, 0, 0);
    emit(b, MARKUP_OP_APPLY, APPLY_CUSTOMER, 1);
    emit(b, MARKUP_OP_WRITE, text, 0);
    stat(b, "</i>");
    emit(b, MARKUP_OP_LOOP_INFO, 0, INFO_LAST);
    assert_int_equal(markup_program_emit(b, MARKUP_OP_IF, 0, 0, &jump), MARKUP_OK);
    assert_int_equal(markup_program_patch(b, jump, markup_program_here(b)), MARKUP_OK);
    emit(b, MARKUP_OP_END_LOOP, loop + 1, 0);
    assert_int_equal(markup_program_patch(b, loop, markup_program_here(b)), MARKUP_OK);
    assert_int_equal(markup_program_emit(b, MARKUP_OP_JUMP, 0, 0, &jump), MARKUP_OK);
    stat(b, "none");
    assert_int_equal(markup_program_patch(b, jump, markup_program_here(b)), MARKUP_OK);
    stat(b, "!");
    markup_program *p = NULL;
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_program_builder_finish(b, &p, &err), MARKUP_OK);

    markup_program_data ops = data_ops;
    ops.loop_value = d_loop_next;
    data_ctx c = {0};
    markup_buf out;
    markup_buf_init(&out, NULL);
    val two = {.kind = VAL_ORDERS, .orders = orders, .n = 2};
    void *params[] = {&two};
    seen_index = 0;
    assert_int_equal(markup_program_run(p, &ops, &c, params, 1, &out, NULL), MARKUP_OK);
    assert_int_equal(out.len, strlen("<i>Ann &amp; Bo</i><i>Cy</i>!"));
    assert_memory_equal(out.data, "<i>Ann &amp; Bo</i><i>Cy</i>!", out.len);
    /* The first item saw the second coming; the last saw none. */
    assert_int_equal(seen_index, 2);
    assert_ptr_equal(seen_next[0], &orders[1]);
    assert_null(seen_next[1]);

    val none = {.kind = VAL_ORDERS, .orders = orders, .n = 0};
    params[0] = &none;
    markup_buf_clear(&out);
    assert_int_equal(markup_program_run(p, &ops, &c, params, 1, &out, NULL), MARKUP_OK);
    assert_int_equal(out.len, strlen("none!"));
    assert_memory_equal(out.data, "none!", out.len);
    assert_int_equal(c.live, 0);
    assert_int_equal(c.iters_open, 0);
    markup_buf_free(&out);
    markup_program_free(p);

    /* An else needs the JUMP over it right after the loop's END_LOOP. */
    assert_int_equal(markup_program_builder_new(NULL, 1, &b), MARKUP_OK);
    (void)child_slot(b, 0);
    emit(b, MARKUP_OP_PARAM, 0, 0);
    emit(b, MARKUP_OP_LOOP, 2, MARKUP_LOOP_ELSE);
    emit(b, MARKUP_OP_END_LOOP, 2, 0);
    stat(b, "x");
    p = NULL;
    assert_int_equal(markup_program_builder_finish(b, &p, &err), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(err.pos, 1);
    assert_null(p);
}

/* BREAK ends the loop where it stands (an else is not entered); a JUMP
   to the END_LOOP goes on with the next item. Over the orders: write each
   customer, stop after the overdue one, and skip the separator after the
   first: "Ann &amp; Bo|Cy" then "!". Every iteration is ended. */
static void test_break_and_continue(void **state) {
    (void)state;
    markup_program_builder *b = NULL;
    assert_int_equal(markup_program_builder_new(NULL, 1, &b), MARKUP_OK);
    uint32_t text = child_slot(b, 1);
    uint32_t loop = 0, brk = 0, skip = 0, next = 0, jump = 0;
    emit(b, MARKUP_OP_PARAM, 0, 0);
    assert_int_equal(markup_program_emit(b, MARKUP_OP_LOOP, 0, MARKUP_LOOP_ELSE, &loop), MARKUP_OK);
    emit(b, MARKUP_OP_ITEM, 0, 0);
    emit(b, MARKUP_OP_APPLY, APPLY_CUSTOMER, 1);
    emit(b, MARKUP_OP_WRITE, text, 0);
    emit(b, MARKUP_OP_ITEM, 0, 0);
    emit(b, MARKUP_OP_APPLY, APPLY_OVERDUE, 1);
    assert_int_equal(markup_program_emit(b, MARKUP_OP_IF, 0, 0, &skip), MARKUP_OK);
    assert_int_equal(markup_program_emit(b, MARKUP_OP_BREAK, 0, 0, &brk), MARKUP_OK);
    assert_int_equal(markup_program_patch(b, skip, markup_program_here(b)), MARKUP_OK);
    assert_int_equal(markup_program_emit(b, MARKUP_OP_JUMP, 0, 0, &next), MARKUP_OK);
    stat(b, "never");
    assert_int_equal(markup_program_patch(b, next, markup_program_here(b)), MARKUP_OK);
    stat(b, "|");
    uint32_t end = 0;
    assert_int_equal(markup_program_emit(b, MARKUP_OP_END_LOOP, loop + 1, 0, &end), MARKUP_OK);
    (void)end;
    assert_int_equal(markup_program_patch(b, loop, markup_program_here(b)), MARKUP_OK);
    assert_int_equal(markup_program_patch(b, brk, markup_program_here(b)), MARKUP_OK);
    assert_int_equal(markup_program_emit(b, MARKUP_OP_JUMP, 0, 0, &jump), MARKUP_OK);
    stat(b, "none");
    assert_int_equal(markup_program_patch(b, jump, markup_program_here(b)), MARKUP_OK);
    stat(b, "!");
    markup_program *p = NULL;
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_program_builder_finish(b, &p, &err), MARKUP_OK);

    data_ctx c = {0};
    markup_buf out;
    markup_buf_init(&out, NULL);
    val all = {.kind = VAL_ORDERS, .orders = orders, .n = 3};
    void *params[] = {&all};
    assert_int_equal(markup_program_run(p, &data_ops, &c, params, 1, &out, NULL), MARKUP_OK);
    const char *want = "Ann &amp; Bo|Cy!";
    assert_int_equal(out.len, strlen(want));
    assert_memory_equal(out.data, want, out.len);
    assert_int_equal(c.live, 0);
    assert_int_equal(c.iters_open, 0);
    markup_buf_free(&out);
    markup_program_free(p);
}

/* What a capture's body writes becomes a value (written here once more,
   so escaped twice), in each loop iteration, nested captures too; without
   a capture callback the run fails there and gives everything back. */
static void test_capture(void **state) {
    (void)state;
    markup_program_builder *b = NULL;
    assert_int_equal(markup_program_builder_new(NULL, 1, &b), MARKUP_OK);
    uint32_t text = child_slot(b, 1);
    uint32_t loop = 0;
    stat(b, "<p>");
    emit(b, MARKUP_OP_PARAM, 0, 0);
    assert_int_equal(markup_program_emit(b, MARKUP_OP_LOOP, 0, 0, &loop), MARKUP_OK);
    stat(b, "[");
    emit(b, MARKUP_OP_CAPTURE, 0, 0);
    emit(b, MARKUP_OP_ITEM, 0, 0);
    emit(b, MARKUP_OP_APPLY, APPLY_CUSTOMER, 1);
    emit(b, MARKUP_OP_WRITE, text, 0);
    emit(b, MARKUP_OP_CAPTURE, 0, 0);
    stat(b, "!");
    emit(b, MARKUP_OP_END_CAPTURE, 0, 0);
    emit(b, MARKUP_OP_WRITE, text, 0);
    emit(b, MARKUP_OP_END_CAPTURE, 0, 0);
    emit(b, MARKUP_OP_WRITE, text, 0);
    stat(b, "]");
    emit(b, MARKUP_OP_END_LOOP, loop + 1, 0);
    assert_int_equal(markup_program_patch(b, loop, markup_program_here(b)), MARKUP_OK);
    stat(b, "</p>");
    markup_program *p = NULL;
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_program_builder_finish(b, &p, &err), MARKUP_OK);

    data_ctx c = {0};
    markup_buf out;
    markup_buf_init(&out, NULL);
    val two = {.kind = VAL_ORDERS, .orders = orders, .n = 2};
    void *params[] = {&two};
    assert_int_equal(markup_program_run(p, &data_ops, &c, params, 1, &out, NULL), MARKUP_OK);
    const char *expected = "<p>[Ann &amp;amp; Bo!][Cy!]</p>";
    assert_int_equal(out.len, strlen(expected));
    assert_memory_equal(out.data, expected, out.len);
    assert_int_equal(c.live, 0);

    markup_program_data no_capture = data_ops;
    no_capture.capture = NULL;
    markup_buf_clear(&out);
    markup_program_fault fault;
    assert_int_equal(markup_program_run(p, &no_capture, &c, params, 1, &out, &fault),
                     MARKUP_ERR_INVALID_ARG);
    assert_int_equal(out.len, 0);
    assert_int_equal(fault.pc, 10); /* the inner END_CAPTURE */
    assert_int_equal(c.live, 0);
    assert_int_equal(c.iters_open, 0);
    markup_buf_free(&out);
    markup_program_free(p);
}

/* A callback that fails inside two loops: the buffer is rolled back,
   every reference and iteration is given back, and the fault says where. */
static void test_failure_midway(void **state) {
    (void)state;
    markup_program *p = orders_program();
    data_ctx c = {.fail_at_id = 3};
    val list = {.kind = VAL_ORDERS, .orders = orders, .n = 3};
    void *params[] = {&list};
    markup_buf out;
    markup_buf_init(&out, NULL);
    assert_int_equal(markup_buf_append(&out, S("kept")), MARKUP_OK);
    markup_program_fault fault;
    memset(&fault, 0xff, sizeof fault);
    assert_int_equal(markup_program_run(p, &data_ops, &c, params, 1, &out, &fault),
                     MARKUP_ERR_SLOT_VALUE);
    assert_int_equal(c.fail_seen, 1);
    assert_int_equal(out.len, 4);
    assert_int_equal(c.live, 0);
    assert_int_equal(c.iters_open, 0);
    assert_int_equal(fault.nloops, 1);
    assert_int_equal(fault.index[0], 2);
    uint32_t a = 0, n = 0;
    assert_int_equal(markup_program_op(p, fault.pc, &a, &n), MARKUP_OP_APPLY);
    assert_int_equal(a, APPLY_CUSTOMER);
    markup_buf_free(&out);
    markup_program_free(p);
}

/* A field read runs in one step with the WRITE or IF that takes its value:
   when that WRITE or IF fails, the value is given back and the fault names
   the WRITE or IF. */
static void test_failure_after_a_field_read(void **state) {
    (void)state;
    markup_program *p = orders_program();
    val list = {.kind = VAL_ORDERS, .orders = orders, .n = 3};
    void *params[] = {&list};
    markup_buf out;
    markup_buf_init(&out, NULL);
    for (int which = 0; which < 2; which++) {
        data_ctx c = {0};
        if (which == 0)
            c.fail_write = "Cy";
        else
            c.fail_truth = true;
        markup_program_fault fault;
        assert_int_equal(markup_program_run(p, &data_ops, &c, params, 1, &out, &fault),
                         MARKUP_ERR_SLOT_VALUE);
        assert_int_equal(c.fail_seen, 1);
        assert_int_equal(out.len, 0);
        assert_int_equal(c.live, 0);
        assert_int_equal(c.iters_open, 0);
        assert_int_equal(fault.nloops, 1);
        assert_int_equal(fault.index[0], which == 0 ? 1 : 0);
        assert_int_equal(markup_program_op(p, fault.pc, NULL, NULL),
                         which == 0 ? MARKUP_OP_WRITE : MARKUP_OP_IF);
        uint32_t a = 0, n = 0;
        assert_int_equal(markup_program_op(p, fault.pc - 1, &a, &n), MARKUP_OP_APPLY);
        assert_int_equal(a, which == 0 ? APPLY_CUSTOMER : APPLY_OVERDUE);
    }
    markup_buf_free(&out);
    markup_program_free(p);
}

/* With apply_write and apply_truth the page is the same, each field read
   that a WRITE or an IF takes at once goes through them (a customer and
   an overdue flag per order), and a failure in either is reported at the
   APPLY, with everything given back. */
static void test_fused_field_steps(void **state) {
    (void)state;
    markup_program *p = orders_program();
    val list = {.kind = VAL_ORDERS, .orders = orders, .n = 3};
    void *params[] = {&list};
    markup_buf plain, fused;
    markup_buf_init(&plain, NULL);
    markup_buf_init(&fused, NULL);
    data_ctx c = {0};
    assert_int_equal(markup_program_run(p, &data_ops, &c, params, 1, &plain, NULL), MARKUP_OK);
    fused_calls = 0;
    assert_int_equal(markup_program_run(p, &fused_ops, &c, params, 1, &fused, NULL), MARKUP_OK);
    assert_int_equal(fused_calls, 2 * 3);
    assert_int_equal(fused.len, plain.len);
    assert_memory_equal(fused.data, plain.data, plain.len);
    assert_int_equal(c.live, 0);
    for (int which = 0; which < 3; which++) {
        data_ctx f = {0};
        if (which == 0) f.fail_at_id = 3;    /* the field read */
        if (which == 1) f.fail_write = "Cy"; /* the write */
        if (which == 2) f.fail_truth = true; /* the test */
        markup_program_fault fault;
        markup_buf_clear(&fused);
        assert_int_equal(markup_program_run(p, &fused_ops, &f, params, 1, &fused, &fault),
                         MARKUP_ERR_SLOT_VALUE);
        assert_int_equal(f.fail_seen, 1);
        assert_int_equal(fused.len, 0);
        assert_int_equal(f.live, 0);
        assert_int_equal(f.iters_open, 0);
        uint32_t a = 0;
        assert_int_equal(markup_program_op(p, fault.pc, &a, NULL), MARKUP_OP_APPLY);
        assert_int_equal(a, which == 2 ? APPLY_OVERDUE : APPLY_CUSTOMER);
        assert_int_equal(fault.index[0], which == 0 ? 2 : which == 1 ? 1 : 0);
    }
    markup_buf_free(&plain);
    markup_buf_free(&fused);
    markup_program_free(p);
}

/* A TEXT slot between the quotes of an attribute value the static HTML
   opens, filled by an APPLY on a value the stack holds (here a CYCLE's,
   not a PARAM or ITEM right before): apply_write writes it in one step,
   borrowing the stack's value. A TEXT slot takes no name, depth or
   newline point. */
static void test_text_slot_filled_from_the_stack(void **state) {
    (void)state;
    markup_program_builder *b = NULL;
    assert_int_equal(markup_program_builder_new(NULL, 1, &b), MARKUP_OK);
    markup_program_slot ts = {MARKUP_SLOT_TEXT, MARKUP_CONTEXT_HTML, 0, NULL, 0, false, 0};
    markup_program_slot named = ts, deep = ts, newline = ts;
    named.name = "title";
    named.name_len = 5;
    deep.depth = 1;
    newline.newline_at = 1;
    uint32_t text = UINT32_MAX;
    assert_int_equal(markup_program_add_slot(b, &named, &text), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_program_add_slot(b, &deep, &text), MARKUP_ERR_INVALID_ARG);
    stat(b, "<p>");
    assert_int_equal(markup_program_add_slot(b, &newline, &text), MARKUP_ERR_INVALID_ARG);
    assert_int_equal(markup_program_add_slot(b, &ts, &text), MARKUP_OK);
    uint32_t loop = 0;
    emit(b, MARKUP_OP_PARAM, 0, 0);
    assert_int_equal(markup_program_emit(b, MARKUP_OP_LOOP, 0, 0, &loop), MARKUP_OK);
    stat(b, "<a title=\"#");
    emit(b, MARKUP_OP_ITEM, 0, 0);
    emit(b, MARKUP_OP_CYCLE, 0, 1);
    emit(b, MARKUP_OP_APPLY, APPLY_CUSTOMER, 1);
    emit(b, MARKUP_OP_WRITE, text, 0);
    stat(b, "\"></a>");
    emit(b, MARKUP_OP_END_LOOP, loop + 1, 0);
    assert_int_equal(markup_program_patch(b, loop, markup_program_here(b)), MARKUP_OK);
    stat(b, "</p>");
    markup_program *p = NULL;
    markup_error err = MARKUP_ERROR_INIT;
    assert_int_equal(markup_program_builder_finish(b, &p, &err), MARKUP_OK);

    val list = {.kind = VAL_ORDERS, .orders = orders, .n = 3};
    void *params[] = {&list};
    const char *want = "<p><a title=\"#Ann &amp; Bo\"></a><a title=\"#Cy\"></a>"
                       "<a title=\"#&lt;Di&gt;\"></a></p>";
    for (int with_fusion = 0; with_fusion < 2; with_fusion++) {
        markup_buf out;
        markup_buf_init(&out, NULL);
        data_ctx c = {0};
        fused_calls = 0;
        assert_int_equal(
            markup_program_run(p, with_fusion ? &fused_ops : &data_ops, &c, params, 1, &out, NULL),
            MARKUP_OK);
        assert_int_equal(fused_calls, with_fusion ? 3 : 0);
        assert_int_equal(out.len, strlen(want));
        assert_memory_equal(out.data, want, out.len);
        assert_int_equal(c.live, 0);
        markup_buf_free(&out);
    }
    /* A failure in the fused step is reported at the APPLY. */
    data_ctx f = {0};
    f.fail_at_id = 2;
    markup_program_fault fault;
    markup_buf out;
    markup_buf_init(&out, NULL);
    assert_int_equal(markup_program_run(p, &fused_ops, &f, params, 1, &out, &fault),
                     MARKUP_ERR_SLOT_VALUE);
    assert_int_equal(out.len, 0);
    assert_int_equal(f.live, 0);
    assert_int_equal(markup_program_op(p, fault.pc, NULL, NULL), MARKUP_OP_APPLY);
    markup_buf_free(&out);
    markup_program_free(p);
}

/* Output that cannot grow: NOMEM, with everything given back. */
static void test_out_of_memory(void **state) {
    (void)state;
    markup_program *p = orders_program();
    data_ctx c = {0};
    val list = {.kind = VAL_ORDERS, .orders = orders, .n = 3};
    void *params[] = {&list};
    for (size_t n = 0;; n++) {
        test_alloc ta;
        test_alloc_init(&ta, n);
        markup_buf out;
        markup_buf_init(&out, &ta.alc);
        markup_status st = markup_program_run(p, &data_ops, &c, params, 1, &out, NULL);
        markup_buf_free(&out);
        assert_int_equal(ta.live_bytes, 0);
        assert_int_equal(c.live, 0);
        assert_int_equal(c.iters_open, 0);
        if (st == MARKUP_OK) break;
        assert_int_equal(st, MARKUP_ERR_NOMEM);
    }
    markup_program_free(p);
}

/* Each malformed program is refused at finish, naming the instruction. */
static void test_builder_checks(void **state) {
    (void)state;
    struct {
        const char *what;
        markup_op ops[10];
        uint32_t as[10];
        uint32_t bs[10];
        int n;
        uint32_t bad_pc;
    } cases[] = {
        {"value left", {MARKUP_OP_PARAM}, {0}, {0}, 1, 0},
        {"write without value", {MARKUP_OP_WRITE}, {0}, {0}, 1, 0},
        {"missing param", {MARKUP_OP_PARAM, MARKUP_OP_WRITE}, {2, 0}, {0, 0}, 2, 0},
        {"missing slot", {MARKUP_OP_PARAM, MARKUP_OP_WRITE}, {0, 9}, {0, 0}, 2, 1},
        {"item outside a loop", {MARKUP_OP_ITEM, MARKUP_OP_WRITE}, {0, 0}, {0, 0}, 2, 0},
        {"apply pops too many", {MARKUP_OP_PARAM, MARKUP_OP_APPLY}, {0, 1}, {0, 2}, 2, 1},
        {"backward jump", {MARKUP_OP_PARAM, MARKUP_OP_IF}, {0, 0}, {0, 0}, 2, 1},
        {"loop without end",
         {MARKUP_OP_PARAM, MARKUP_OP_LOOP, MARKUP_OP_PARAM, MARKUP_OP_WRITE},
         {0, 4, 0, 0},
         {0, 0, 0, 0},
         4,
         1},
        {"end without loop", {MARKUP_OP_END_LOOP}, {0}, {0}, 1, 0},
        {"jump into an expression",
         {MARKUP_OP_PARAM, MARKUP_OP_IF, MARKUP_OP_PARAM, MARKUP_OP_APPLY, MARKUP_OP_WRITE},
         {0, 3, 0, 0, 0},
         {0, 0, 0, 1, 0},
         5,
         1},
        {"jump into a sibling loop",
         {MARKUP_OP_PARAM, MARKUP_OP_LOOP, MARKUP_OP_JUMP, MARKUP_OP_END_LOOP, MARKUP_OP_PARAM,
          MARKUP_OP_LOOP, MARKUP_OP_ITEM, MARKUP_OP_WRITE, MARKUP_OP_END_LOOP},
         {0, 4, 6, 2, 0, 9, 0, 0, 6},
         {0},
         9,
         2},
        {"jump into a loop",
         {MARKUP_OP_PARAM, MARKUP_OP_IF, MARKUP_OP_PARAM, MARKUP_OP_LOOP, MARKUP_OP_END_LOOP},
         {0, 4, 0, 5, 4},
         {0, 0, 0, 0, 0},
         5,
         1},
        {"break outside a loop", {MARKUP_OP_BREAK}, {1}, {0}, 1, 0},
        {"break past its loop's end",
         {MARKUP_OP_PARAM, MARKUP_OP_LOOP, MARKUP_OP_BREAK, MARKUP_OP_END_LOOP, MARKUP_OP_PARAM,
          MARKUP_OP_WRITE},
         {0, 4, 5, 2, 0, 0},
         {0},
         6,
         2},
        {"break out of a capture",
         {MARKUP_OP_PARAM, MARKUP_OP_LOOP, MARKUP_OP_CAPTURE, MARKUP_OP_BREAK,
          MARKUP_OP_END_CAPTURE, MARKUP_OP_WRITE, MARKUP_OP_END_LOOP},
         {0, 7, 0, 7, 0, 0, 2},
         {0},
         7,
         3},
        {"capture without end", {MARKUP_OP_CAPTURE}, {0}, {0}, 1, 0},
        {"end without capture", {MARKUP_OP_END_CAPTURE, MARKUP_OP_WRITE}, {0, 0}, {0, 0}, 2, 0},
        {"value left at a capture", {MARKUP_OP_PARAM, MARKUP_OP_CAPTURE}, {0, 0}, {0, 0}, 2, 1},
        {"jump out of a capture",
         {MARKUP_OP_CAPTURE, MARKUP_OP_PARAM, MARKUP_OP_IF, MARKUP_OP_END_CAPTURE, MARKUP_OP_WRITE},
         {0, 0, 5, 0, 0},
         {0},
         5,
         2},
        {"loop open at a capture's end",
         {MARKUP_OP_CAPTURE, MARKUP_OP_PARAM, MARKUP_OP_LOOP, MARKUP_OP_END_CAPTURE,
          MARKUP_OP_WRITE, MARKUP_OP_END_LOOP},
         {0, 0, 6, 0, 0, 3},
         {0},
         6,
         3},
        {"capture open at a loop's end",
         {MARKUP_OP_PARAM, MARKUP_OP_LOOP, MARKUP_OP_CAPTURE, MARKUP_OP_END_LOOP,
          MARKUP_OP_END_CAPTURE, MARKUP_OP_WRITE},
         {0, 4, 0, 2, 0, 0},
         {0},
         6,
         3},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        markup_program_builder *b = NULL;
        assert_int_equal(markup_program_builder_new(NULL, 1, &b), MARKUP_OK);
        (void)child_slot(b, 0);
        for (int i = 0; i < cases[k].n; i++)
            emit(b, cases[k].ops[i], cases[k].as[i], cases[k].bs[i]);
        markup_program *p = (markup_program *)&b; /* must be reset to NULL */
        markup_error err = MARKUP_ERROR_INIT;
        markup_status st = markup_program_builder_finish(b, &p, &err);
        if (st != MARKUP_ERR_INVALID_ARG || err.pos != cases[k].bad_pc)
            fail_msg("%s: status %d at %zu (%s)", cases[k].what, (int)st, err.pos,
                     err.msg ? err.msg : "");
        assert_null(p);
        assert_non_null(err.msg);
    }
}

/* Only a jump has a target to patch; a STATIC keeps its own range. */
static void test_patch_only_jumps(void **state) {
    (void)state;
    markup_program_builder *b = NULL;
    assert_int_equal(markup_program_builder_new(NULL, 1, &b), MARKUP_OK);
    stat(b, "hello");
    assert_int_equal(markup_program_patch(b, 0, 1u << 28), MARKUP_ERR_INVALID_ARG);
    uint32_t at = 0;
    assert_int_equal(markup_program_emit(b, MARKUP_OP_PARAM, 0, 0, &at), MARKUP_OK);
    assert_int_equal(markup_program_patch(b, at, 5), MARKUP_ERR_INVALID_ARG);
    markup_program_builder_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orders_page),
        cmocka_unit_test(test_loop_else),
        cmocka_unit_test(test_break_and_continue),
        cmocka_unit_test(test_capture),
        cmocka_unit_test(test_failure_midway),
        cmocka_unit_test(test_failure_after_a_field_read),
        cmocka_unit_test(test_fused_field_steps),
        cmocka_unit_test(test_text_slot_filled_from_the_stack),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_builder_checks),
        cmocka_unit_test(test_patch_only_jumps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
