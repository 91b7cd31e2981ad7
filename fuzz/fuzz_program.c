/*
 * fuzz_program.c - any sequence of instructions either is refused by
 * markup_program_builder_finish or runs without reading past its stack,
 * its parameters or its loops, and gives back every value it was handed.
 *
 * The input (after a 4-byte options header) is a list of instructions, 3
 * bytes each: the opcode (STATIC adds a piece of static HTML), `a` and
 * `b`. Jump targets and every other operand are taken as they come, so
 * most programs are malformed; the checks of finish are what is under
 * test. A program that is accepted runs twice over data made up here:
 * values are small reference-counted records (numbers and lists of
 * numbers or of lists), iteration fails on a number, APPLY can build lists
 * or fail on request, and the number of callbacks is capped so that deep
 * loops end (as a failure). After each run every reference and every
 * iteration must have been given back, a failed run must leave the
 * buffer as it was, and a run that succeeds must write the same bytes
 * twice (a program holds no state between runs).
 */
#include "fuzz_common.h"

typedef struct program_options {
    uint8_t flags;   /* bit 0: make one allocation fail (building or running) */
    uint8_t fail_at; /* which allocation fails, counted from 1 */
    uint8_t nparams; /* parameters (nparams % 4) */
    uint8_t fail_op; /* APPLY with this op fails (op 255: never) */
} program_options;

typedef struct value {
    long refs;
    bool is_list;
    long n;                 /* a number, or the list's length */
    struct value *items[3]; /* the list's items (owned) */
} value;

typedef struct iter {
    value *list;
    long next;
} iter;

typedef struct data_ctx {
    long live;      /* references handed out and not given back */
    long iterating; /* iterations begun and not ended */
    long budget;    /* callbacks left before the run is stopped */
    uint8_t fail_op;
} data_ctx;

static value *make(data_ctx *c, bool is_list, long n) {
    value *v = calloc(1, sizeof *v);
    FUZZ_CHECK(v != NULL);
    v->refs = 1;
    v->is_list = is_list;
    v->n = n;
    c->live++;
    return v;
}

static void drop(data_ctx *c, value *v) {
    FUZZ_CHECK(v->refs > 0);
    c->live--;
    if (--v->refs == 0) {
        for (long i = 0; v->is_list && i < v->n; i++) drop(c, v->items[i]);
        free(v);
    }
}

static void *keep(data_ctx *c, value *v) {
    FUZZ_CHECK(v->refs > 0);
    v->refs++;
    c->live++;
    return v;
}

static bool spend(data_ctx *c) { return c->budget-- > 0; }

static void *d_retain(void *ctx, void *v) { return keep(ctx, v); }

static void d_release(void *ctx, void *v) { drop(ctx, v); }

static markup_status d_apply(void *ctx, uint32_t op, void *const *args, uint32_t nargs,
                             void **out) {
    data_ctx *c = ctx;
    if (!spend(c) || op == c->fail_op) return MARKUP_ERR_SLOT_VALUE;
    for (uint32_t i = 0; i < nargs; i++) FUZZ_CHECK(((value *)args[i])->refs > 0);
    if (op % 2 == 0 || nargs == 0) { /* a number: the sum, plus op */
        long sum = (long)op;
        for (uint32_t i = 0; i < nargs; i++) sum += ((value *)args[i])->n;
        *out = make(c, false, sum % 1000);
        return MARKUP_OK;
    }
    value *list = make(c, true, nargs < 3 ? nargs : 3); /* a list of the first three */
    for (long i = 0; i < list->n; i++) list->items[i] = keep(c, args[i]);
    *out = list;
    return MARKUP_OK;
}

static markup_status d_truth(void *ctx, void *v, bool *out) {
    if (!spend(ctx)) return MARKUP_ERR_SLOT_VALUE;
    *out = ((value *)v)->n % 2 != 0;
    return MARKUP_OK;
}

static markup_status d_iter_begin(void *ctx, void *iterable, void **it) {
    data_ctx *c = ctx;
    value *v = iterable;
    if (!spend(c) || !v->is_list) return MARKUP_ERR_SLOT_VALUE;
    iter *i = malloc(sizeof *i);
    FUZZ_CHECK(i != NULL);
    *i = (iter){keep(c, v), 0};
    c->iterating++;
    *it = i;
    return MARKUP_OK;
}

static markup_status d_iter_next(void *ctx, void *it, void **item, bool *done) {
    data_ctx *c = ctx;
    iter *i = it;
    if (!spend(c)) return MARKUP_ERR_SLOT_VALUE;
    if (i->next >= i->list->n) {
        *done = true;
        return MARKUP_OK;
    }
    *item = keep(c, i->list->items[i->next++]);
    return MARKUP_OK;
}

static void d_iter_end(void *ctx, void *it) {
    data_ctx *c = ctx;
    iter *i = it;
    drop(c, i->list);
    c->iterating--;
    free(i);
}

static markup_status d_loop_value(void *ctx, uint32_t what, const markup_loop_state *loop,
                                  void **out) {
    data_ctx *c = ctx;
    if (!spend(c)) return MARKUP_ERR_SLOT_VALUE;
    *out = make(c, false, what % 2 ? (long)loop->last : (long)(loop->index % 1000));
    return MARKUP_OK;
}

static markup_status d_write(void *ctx, const markup_program_slot *slot, void *v, markup_buf *out) {
    if (!spend(ctx)) return MARKUP_ERR_SLOT_VALUE;
    FUZZ_CHECK(((value *)v)->refs > 0);
    char text[32];
    int n = snprintf(text, sizeof text, "%s%ld", slot->kind == MARKUP_SLOT_ATTR ? " a=" : "",
                     ((value *)v)->is_list ? -((value *)v)->n : ((value *)v)->n);
    return markup_buf_append(out, text, (size_t)n);
}

/* A capture's bytes: a number, their count. */
static markup_status d_capture(void *ctx, const char *s, size_t n, void **out) {
    (void)s;
    if (!spend(ctx)) return MARKUP_ERR_SLOT_VALUE;
    *out = make(ctx, false, (long)(n % 1000));
    return MARKUP_OK;
}

static const markup_program_data data_ops = {
    d_retain,   d_release,    d_apply, d_truth, d_iter_begin, d_iter_next,
    d_iter_end, d_loop_value, d_write, NULL,    NULL,         d_capture,
};

/* The optional fused steps, made of the same callbacks: a run with them
   writes what a run without them writes. */
static markup_status d_apply_write(void *ctx, uint32_t op, void *arg,
                                   const markup_program_slot *slot, markup_buf *out) {
    void *v = NULL;
    markup_status st = d_apply(ctx, op, &arg, 1, &v);
    if (st != MARKUP_OK) return st;
    st = d_write(ctx, slot, v, out);
    drop(ctx, v);
    return st;
}

static markup_status d_apply_truth(void *ctx, uint32_t op, void *arg, bool *out) {
    void *v = NULL;
    markup_status st = d_apply(ctx, op, &arg, 1, &v);
    if (st != MARKUP_OK) return st;
    st = d_truth(ctx, v, out);
    drop(ctx, v);
    return st;
}

static const markup_program_data fused_ops = {
    d_retain,   d_release,    d_apply, d_truth,       d_iter_begin,  d_iter_next,
    d_iter_end, d_loop_value, d_write, d_apply_write, d_apply_truth, d_capture,
};

/* The parameters: a number, a list of numbers, a list of lists, and a
   list holding a number (iterating its item fails). */
static void make_params(data_ctx *c, value **params, size_t n) {
    for (size_t i = 0; i < n; i++) {
        switch (i) {
        case 0: params[i] = make(c, false, 7); break;
        case 1:
            params[i] = make(c, true, 3);
            for (long k = 0; k < 3; k++) params[i]->items[k] = make(c, false, k);
            break;
        case 2:
            params[i] = make(c, true, 2);
            for (long k = 0; k < 2; k++) {
                value *inner = params[i]->items[k] = make(c, true, 2);
                for (long j = 0; j < 2; j++) inner->items[j] = make(c, false, j + k);
            }
            break;
        default: params[i] = make(c, true, 1); params[i]->items[0] = make(c, false, 1);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader in = {data, size};
    program_options opt;
    fuzz_take_struct(&in, &opt, sizeof opt);
    size_t nparams = opt.nparams % 4;
    fuzz_alloc alc;
    fuzz_alloc_init(&alc);
    if (opt.flags & 1) fuzz_alloc_fail_in(&alc, (size_t)opt.fail_at + 1);

    markup_program_builder *b = NULL;
    markup_status st = markup_program_builder_new(&alc.hooks, nparams, &b);
    if (st != MARKUP_OK) {
        FUZZ_CHECK(st == MARKUP_ERR_NOMEM && b == NULL);
        fuzz_alloc_finish(&alc);
        return 0;
    }
    const markup_program_slot slots[] = {
        {MARKUP_SLOT_CHILD, MARKUP_CONTEXT_HTML, 1, NULL, 0, false, 0},
        {MARKUP_SLOT_ATTR, MARKUP_CONTEXT_HTML, 0, "title", 5, false, 0},
    };
    bool building = true;
    for (size_t i = 0; i < 2 && building; i++) {
        uint32_t index = 0;
        building = markup_program_add_slot(b, &slots[i], &index) == MARKUP_OK;
        FUZZ_CHECK(!building || index == i);
    }
    static const char *const pieces[] = {"<p>", "</p>", "<li class=\"x\">", "&amp;", ""};
    for (size_t steps = 0; building && fuzz_more(&in) && steps < 256; steps++) {
        uint8_t op = fuzz_take_u8(&in) % (MARKUP_OP_BREAK + 1);
        if (op == MARKUP_OP_NEWLINE) op = MARKUP_OP_CAPTURE; /* not emitted: a static's */
        uint8_t a = fuzz_take_u8(&in), bb = fuzz_take_u8(&in);
        if (op == MARKUP_OP_STATIC) {
            const char *piece = pieces[a % 5];
            building = markup_program_add_static(b, piece, strlen(piece)) == MARKUP_OK;
        } else if (bb == 255 && (op == MARKUP_OP_IF || op == MARKUP_OP_JUMP ||
                                 op == MARKUP_OP_LOOP || op == MARKUP_OP_END_LOOP)) {
            /* a jump to the next instruction or a little after, patched in */
            uint32_t at = 0;
            building = markup_program_emit(b, op, 0, 0, &at) == MARKUP_OK &&
                       markup_program_patch(b, at, markup_program_here(b) + a % 4) == MARKUP_OK;
        } else {
            building = markup_program_emit(b, op, a, bb % 8, NULL) == MARKUP_OK;
        }
    }
    markup_program *prog = NULL;
    markup_error err = MARKUP_ERROR_INIT;
    if (!building) {
        FUZZ_CHECK(alc.failures > 0);
        markup_program_builder_free(b);
        fuzz_alloc_finish(&alc);
        return 0;
    }
    st = markup_program_builder_finish(b, &prog, &err);
    if (getenv("FUZZ_PROGRAM_TRACE"))
        fprintf(stderr, "finish: %s%s at %zu\n", markup_status_message(st),
                st == MARKUP_OK ? "" : err.msg, err.pos);
    if (st != MARKUP_OK) {
        FUZZ_CHECK(prog == NULL && err.code == st && err.msg != NULL);
        FUZZ_CHECK(st == MARKUP_ERR_INVALID_ARG || st == MARKUP_ERR_NOMEM);
        fuzz_alloc_finish(&alc);
        return 0;
    }

    data_ctx c = {0, 0, 0, opt.fail_op};
    value *params[4];
    make_params(&c, params, nparams);
    const long live_before = c.live; /* the parameters and their items */
    markup_buf first, out;
    markup_buf_init(&first, NULL);
    markup_buf_init(&out, &alc.hooks);
    FUZZ_CHECK(markup_buf_append(&out, "kept", 4) == MARKUP_OK || alc.failures > 0);
    size_t kept = out.len;
    for (int run = 0; run < 2; run++) {
        c.budget = 2000;
        markup_program_fault fault;
        /* The second run takes the fused steps: when both succeed, the
           same bytes. */
        st = markup_program_run(prog, run == 0 ? &data_ops : &fused_ops, &c, (void *const *)params,
                                nparams, &out, &fault);
        if (getenv("FUZZ_PROGRAM_TRACE"))
            fprintf(stderr, "run %d: %s, %.*s\n", run, markup_status_message(st), (int)out.len,
                    out.data);
        FUZZ_CHECK(c.iterating == 0);
        FUZZ_CHECK(c.live == live_before);
        if (st != MARKUP_OK) {
            FUZZ_CHECK(out.len == kept);
            FUZZ_CHECK(fault.pc < markup_program_length(prog));
            FUZZ_CHECK(fault.nloops <= MARKUP_PROGRAM_MAX_LOOPS);
        } else if (run == 0) {
            FUZZ_CHECK(markup_buf_append(&first, out.data, out.len) == MARKUP_OK);
        } else if (first.len) { /* both runs succeeded: the same bytes */
            FUZZ_CHECK(out.len == first.len && memcmp(out.data, first.data, first.len) == 0);
        }
        markup_buf_truncate(&out, kept);
    }
    for (size_t i = 0; i < nparams; i++) drop(&c, params[i]);
    FUZZ_CHECK(c.live == 0);
    markup_buf_free(&first);
    markup_buf_free(&out);
    markup_program_free(prog);
    fuzz_alloc_finish(&alc);
    return 0;
}
