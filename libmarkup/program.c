/*
 * program.c - template programs: static HTML, writes, conditions and loops
 * over the caller's opaque values.
 *
 * The builder appends fixed-size instructions to one array and static HTML
 * to one buffer. Finishing checks the program once (stack discipline, jump
 * targets, loop nesting, parameter and slot numbers) so that the run loop
 * checks nothing but the callbacks' answers. The run keeps its value stack
 * and loop frames on the C stack: a program holds no state between runs.
 */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "alloc_impl.h"
#include "copy_impl.h"
#include "error_impl.h"
#include "markup/binding.h"

typedef struct instr {
    uint8_t op;    /* markup_op */
    uint8_t fused; /* fuse_kind: what runs together with this instruction */
    uint32_t a;
    uint32_t b;
} instr;

/* A PARAM or ITEM whose value only feeds the one-argument APPLY after it
   runs as one with it, on the borrowed value; when a WRITE or an IF takes
   the APPLY's result, that runs in the same step too, and the result never
   goes on the stack. */
enum fuse_kind { FUSE_NONE, FUSE_APPLY, FUSE_APPLY_WRITE, FUSE_APPLY_IF, FUSE_STATIC_THEN };

typedef struct prog_slot {
    markup_program_slot pub; /* name points into the names area once finished */
    size_t name_off;
} prog_slot;

struct markup_program_builder {
    const markup_alloc *alc;
    size_t nparams;
    instr *code;
    size_t ncode, code_cap;
    prog_slot *slots;
    size_t nslots, slots_cap;
    markup_buf statics;
    markup_buf names;
    size_t target; /* an instruction position a jump may land on */
};

struct markup_program {
    const markup_alloc *alc;
    size_t alloc_size;
    size_t nparams;
    const instr *code;
    size_t ncode;
    const prog_slot *slots;
    size_t nslots;
    const char *statics;
    size_t static_len;
};

/* ------------------------------------------------------------------------ */
/* Builder                                                                    */
/* ------------------------------------------------------------------------ */

markup_status markup_program_builder_new(const markup_alloc *alc, size_t nparams,
                                         markup_program_builder **out) {
    if (!out) return MARKUP_ERR_INVALID_ARG;
    *out = NULL;
    alc = markup_alc_or_default(alc);
    markup_program_builder *b = markup_alc_malloc(alc, sizeof *b);
    if (!b) return MARKUP_ERR_NOMEM;
    memset(b, 0, sizeof *b);
    b->alc = alc;
    b->nparams = nparams;
    b->target = SIZE_MAX;
    markup_buf_init(&b->statics, alc);
    markup_buf_init(&b->names, alc);
    *out = b;
    return MARKUP_OK;
}

void markup_program_builder_free(markup_program_builder *b) {
    if (!b) return;
    markup_alc_free(b->alc, b->code, b->code_cap * sizeof *b->code);
    markup_alc_free(b->alc, b->slots, b->slots_cap * sizeof *b->slots);
    markup_buf_free(&b->statics);
    markup_buf_free(&b->names);
    markup_alc_free(b->alc, b, sizeof *b);
}

static markup_status push_instr(markup_program_builder *b, instr in) {
    if (b->ncode >= UINT32_MAX - 1) return MARKUP_ERR_TOO_LARGE;
    if (b->ncode == b->code_cap) {
        size_t cap = markup_grow_capacity(b->code_cap, b->ncode + 1, 32, sizeof *b->code);
        if (!cap) return MARKUP_ERR_TOO_LARGE;
        instr *grown = markup_alc_realloc(b->alc, b->code, b->code_cap * sizeof *b->code,
                                          cap * sizeof *b->code);
        if (!grown) return MARKUP_ERR_NOMEM;
        b->code = grown;
        b->code_cap = cap;
    }
    b->code[b->ncode++] = in;
    return MARKUP_OK;
}

markup_status markup_program_add_static(markup_program_builder *b, const char *s, size_t n) {
    if (!b || (!s && n)) return MARKUP_ERR_INVALID_ARG;
    if (n == 0) return MARKUP_OK;
    if (b->statics.len > UINT32_MAX - n) return MARKUP_ERR_TOO_LARGE;
    size_t at = b->statics.len;
    markup_status st = markup_buf_append(&b->statics, s, n);
    if (st != MARKUP_OK) return st;
    if (b->ncode) {
        instr *last = &b->code[b->ncode - 1];
        if (last->op == MARKUP_OP_STATIC && last->a + last->b == at && b->target != b->ncode) {
            last->b += (uint32_t)n;
            return MARKUP_OK;
        }
    }
    st = push_instr(b, (instr){MARKUP_OP_STATIC, 0, (uint32_t)at, (uint32_t)n});
    if (st != MARKUP_OK) markup_buf_truncate(&b->statics, at);
    return st;
}

markup_status markup_program_add_static_newline(markup_program_builder *b, size_t content_at) {
    if (!b || content_at == 0 || content_at > b->statics.len || content_at > UINT32_MAX)
        return MARKUP_ERR_INVALID_ARG;
    return push_instr(b, (instr){MARKUP_OP_NEWLINE, 0, (uint32_t)content_at, 0});
}

markup_status markup_program_add_slot(markup_program_builder *b, const markup_program_slot *slot,
                                      uint32_t *index) {
    if (!b || !slot || !index || (!slot->name && slot->name_len)) return MARKUP_ERR_INVALID_ARG;
    if (slot->newline_at && (slot->kind != MARKUP_SLOT_CHILD || slot->newline_at > b->statics.len))
        return MARKUP_ERR_INVALID_ARG;
    if (slot->kind != MARKUP_SLOT_CHILD && slot->kind != MARKUP_SLOT_ATTR &&
        slot->kind != MARKUP_SLOT_TEXT)
        return MARKUP_ERR_INVALID_ARG;
    if (slot->kind == MARKUP_SLOT_TEXT && (slot->name_len || slot->depth))
        return MARKUP_ERR_INVALID_ARG;
    if (b->nslots >= UINT32_MAX) return MARKUP_ERR_TOO_LARGE;
    if (b->nslots == b->slots_cap) {
        size_t cap = markup_grow_capacity(b->slots_cap, b->nslots + 1, 8, sizeof *b->slots);
        if (!cap) return MARKUP_ERR_TOO_LARGE;
        prog_slot *grown = markup_alc_realloc(b->alc, b->slots, b->slots_cap * sizeof *b->slots,
                                              cap * sizeof *b->slots);
        if (!grown) return MARKUP_ERR_NOMEM;
        b->slots = grown;
        b->slots_cap = cap;
    }
    size_t name_off = b->names.len;
    markup_status st = markup_buf_append(&b->names, slot->name, slot->name_len);
    if (st != MARKUP_OK) return st;
    prog_slot *s = &b->slots[b->nslots];
    s->pub = *slot;
    s->pub.name = NULL;
    s->pub.plain = slot->kind == MARKUP_SLOT_CHILD && markup_context_is_plain(slot->context);
    s->name_off = name_off;
    *index = (uint32_t)b->nslots++;
    return MARKUP_OK;
}

markup_status markup_program_emit(markup_program_builder *b, markup_op op, uint32_t a,
                                  uint32_t b_arg, uint32_t *at) {
    if (!b || op == MARKUP_OP_STATIC || op == MARKUP_OP_NEWLINE || (unsigned)op > MARKUP_OP_BREAK)
        return MARKUP_ERR_INVALID_ARG;
    if (at) *at = (uint32_t)b->ncode;
    return push_instr(b, (instr){(uint8_t)op, 0, a, b_arg});
}

uint32_t markup_program_here(markup_program_builder *b) {
    if (!b) return 0;
    b->target = b->ncode; /* a jump may land here: keep the next static apart */
    return (uint32_t)b->ncode;
}

markup_status markup_program_patch(markup_program_builder *b, uint32_t at, uint32_t a) {
    if (!b || at >= b->ncode) return MARKUP_ERR_INVALID_ARG;
    markup_op op = (markup_op)b->code[at].op;
    if (op != MARKUP_OP_IF && op != MARKUP_OP_JUMP && op != MARKUP_OP_LOOP &&
        op != MARKUP_OP_END_LOOP && op != MARKUP_OP_BREAK)
        return MARKUP_ERR_INVALID_ARG; /* only a jump has a target */
    b->code[at].a = a;
    if (a == b->ncode) b->target = a;
    return MARKUP_OK;
}

/* The stack effect of an expression instruction and the statements that
   pop one value. */
static int pushes(const instr *in) {
    switch ((markup_op)in->op) {
    case MARKUP_OP_PARAM:
    case MARKUP_OP_ITEM:
    case MARKUP_OP_LOOP_INFO:
    case MARKUP_OP_END_CAPTURE: return 1;
    case MARKUP_OP_CYCLE:
    case MARKUP_OP_APPLY: return 1 - (int)in->b;
    default: return 0;
    }
}

/* Checks everything the run relies on. One pass: `depth` (loops open) per
   instruction is recorded so that jumps can be checked to stay within
   their loop. */
static markup_status check_program(const markup_program_builder *b, markup_error *err) {
    size_t n = b->ncode;
    /* Per instruction: the loops open and the values on the stack when it
       runs (in program order, which is the only order values are pushed). */
    uint8_t *loops_at = markup_alc_malloc(b->alc, 3 * (n + 1));
    if (!loops_at) return markup_fail_status_(err, MARKUP_ERR_NOMEM);
    uint8_t *stack_lo = loops_at + (n + 1), *stack_hi = stack_lo + (n + 1);
    /* ... and the innermost LOOP around it (UINT32_MAX: none), so that a
       jump cannot go from one loop's body into a sibling's. */
    /* ... and the innermost CAPTURE around it, for the same check. */
    uint32_t *loop_of = markup_alc_malloc(b->alc, 2 * (n + 1) * sizeof *loop_of);
    if (!loop_of) {
        markup_alc_free(b->alc, loops_at, 3 * (n + 1));
        return markup_fail_status_(err, MARKUP_ERR_NOMEM);
    }
    uint32_t *capture_of = loop_of + (n + 1);
    uint32_t open[MARKUP_PROGRAM_MAX_LOOPS];
    unsigned nopen = 0;
    uint32_t captures[MARKUP_PROGRAM_MAX_CAPTURES];
    unsigned ncaptures = 0;
    long stack = 0;
    const char *why = NULL;
    size_t pc = 0;
    for (; pc < n && !why; pc++) {
        const instr *in = &b->code[pc];
        loops_at[pc] = (uint8_t)nopen;
        loop_of[pc] = nopen ? open[nopen - 1] : UINT32_MAX;
        capture_of[pc] = ncaptures ? captures[ncaptures - 1] : UINT32_MAX;
        stack_lo[pc] = (uint8_t)(stack & 0xff);
        stack_hi[pc] = (uint8_t)(stack >> 8);
        switch ((markup_op)in->op) {
        case MARKUP_OP_NEWLINE:
            if (stack) why = "a value is left on the stack";
            if (in->a == 0 || in->a > b->statics.len) why = "a NEWLINE outside the static HTML";
            break;
        case MARKUP_OP_STATIC:
        case MARKUP_OP_JUMP:
            if (stack) why = "a value is left on the stack";
            if (in->op == MARKUP_OP_STATIC &&
                (in->a > b->statics.len || in->b > b->statics.len - in->a))
                why = "a STATIC outside the static HTML";
            if (in->op == MARKUP_OP_JUMP && (in->a <= pc || in->a > n))
                why = "a jump that does not go forward within the program";
            break;
        case MARKUP_OP_WRITE:
            if (stack != 1) why = "a WRITE without exactly one value";
            if (in->a >= b->nslots) why = "a WRITE to a slot that does not exist";
            stack = 0;
            break;
        case MARKUP_OP_IF:
            if (stack != 1) why = "an IF without exactly one value";
            if (in->a <= pc || in->a > n)
                why = "a jump that does not go forward within the program";
            stack = 0;
            break;
        case MARKUP_OP_LOOP:
            if (stack != 1) why = "a LOOP without exactly one value";
            if (nopen == MARKUP_PROGRAM_MAX_LOOPS) why = "loops nested too deeply";
            if (in->a <= pc + 1 || in->a > n) why = "a LOOP whose end is not after it";
            if (in->b & ~(MARKUP_LOOP_LOOKAHEAD | MARKUP_LOOP_ELSE)) why = "unknown LOOP flags";
            if ((in->b & MARKUP_LOOP_ELSE) && (in->a >= n || b->code[in->a].op != MARKUP_OP_JUMP))
                why = "a LOOP with an else whose END_LOOP is not followed by a JUMP";
            if (!why) open[nopen++] = (uint32_t)pc;
            stack = 0;
            break;
        case MARKUP_OP_END_LOOP:
            if (stack) why = "a value is left on the stack";
            if (!nopen)
                why = "an END_LOOP without its LOOP";
            else if (in->a != open[nopen - 1] + 1 || b->code[open[nopen - 1]].a != pc + 1)
                why = "an END_LOOP and its LOOP do not point at each other";
            else if (capture_of[pc] != capture_of[open[nopen - 1]])
                why = "a CAPTURE inside a loop that ends after it";
            else
                nopen--;
            break;
        case MARKUP_OP_BREAK:
            if (stack) why = "a value is left on the stack";
            if (!nopen)
                why = "a BREAK outside a loop";
            else if (in->a != b->code[open[nopen - 1]].a)
                why = "a BREAK that does not go where its loop ends";
            else if (capture_of[pc] != capture_of[open[nopen - 1]])
                why = "a BREAK out of a capture";
            break;
        case MARKUP_OP_CAPTURE:
            if (stack) why = "a value is left on the stack";
            if (ncaptures == MARKUP_PROGRAM_MAX_CAPTURES) why = "captures nested too deeply";
            if (!why) captures[ncaptures++] = (uint32_t)pc;
            break;
        case MARKUP_OP_END_CAPTURE:
            if (stack) why = "a value is left on the stack";
            if (!ncaptures)
                why = "an END_CAPTURE without its CAPTURE";
            else if (loop_of[pc] != loop_of[captures[ncaptures - 1]])
                why = "a loop inside a capture that ends after it";
            else
                ncaptures--;
            break;
        case MARKUP_OP_PARAM:
            if (in->a >= b->nparams) why = "a PARAM that does not exist";
            break;
        case MARKUP_OP_ITEM:
        case MARKUP_OP_LOOP_INFO:
            if (in->a >= nopen) why = "a loop reference outside that many loops";
            break;
        case MARKUP_OP_CYCLE:
            if (in->a >= nopen) why = "a loop reference outside that many loops";
            if (in->b == 0) why = "a CYCLE over no values";
            if ((long)in->b > stack) why = "an instruction pops more values than were pushed";
            break;
        case MARKUP_OP_APPLY:
            if ((long)in->b > stack) why = "an instruction pops more values than were pushed";
            break;
        default: why = "an unknown instruction";
        }
        if (!why) {
            stack += pushes(in);
            if (stack > MARKUP_PROGRAM_MAX_STACK) why = "an expression deeper than the stack";
        }
    }
    if (!why && stack) why = "a value is left on the stack at the end";
    if (why) {
        pc--;
    } else if (nopen) {
        why = "a LOOP without its END_LOOP";
        pc = open[nopen - 1];
    } else if (ncaptures) {
        why = "a CAPTURE without its END_CAPTURE";
        pc = captures[ncaptures - 1];
    } else {
        loops_at[n] = 0;
        loop_of[n] = UINT32_MAX;
        capture_of[n] = UINT32_MAX;
        stack_lo[n] = stack_hi[n] = 0;
        /* Jumps land at the loop depth they leave from, where no value is
           on the stack (between statements). */
        for (pc = 0; pc < n && !why; pc++) {
            const instr *in = &b->code[pc];
            bool jumps = in->op == MARKUP_OP_IF || in->op == MARKUP_OP_JUMP ||
                         in->op == MARKUP_OP_LOOP || in->op == MARKUP_OP_END_LOOP;
            if (!jumps) continue;
            if (stack_lo[in->a] || stack_hi[in->a])
                why = "a jump into an expression";
            else if ((in->op == MARKUP_OP_IF || in->op == MARKUP_OP_JUMP) &&
                     (loops_at[in->a] != loops_at[pc] || loop_of[in->a] != loop_of[pc]))
                why = "a jump into or out of a loop";
            else if (capture_of[in->a] != capture_of[pc])
                why = "a jump into or out of a capture";
        }
        if (why) pc--;
    }
    markup_alc_free(b->alc, loops_at, 3 * (n + 1));
    markup_alc_free(b->alc, loop_of, 2 * (n + 1) * sizeof *loop_of);
    if (why) return markup_fail_at_(err, MARKUP_ERR_INVALID_ARG, pc, "b", why);
    return MARKUP_OK;
}

markup_status markup_program_builder_finish(markup_program_builder *b, markup_program **out,
                                            markup_error *err) {
    markup_clear_(err);
    if (!out) {
        markup_program_builder_free(b);
        return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    }
    *out = NULL;
    if (!b) return markup_fail_status_(err, MARKUP_ERR_INVALID_ARG);
    markup_status st = check_program(b, err);
    if (st != MARKUP_OK) {
        markup_program_builder_free(b);
        return st;
    }
    /* One block: header, code, slots, static HTML, names. */
    size_t code_off = (sizeof(markup_program) + 7) & ~(size_t)7;
    size_t slots_off = code_off + b->ncode * sizeof(instr);
    slots_off = (slots_off + 7) & ~(size_t)7;
    size_t statics_off = slots_off + b->nslots * sizeof(prog_slot);
    size_t names_off = statics_off + b->statics.len;
    size_t total = names_off + b->names.len;
    char *mem = markup_alc_malloc(b->alc, total);
    if (!mem) {
        markup_program_builder_free(b);
        return markup_fail_status_(err, MARKUP_ERR_NOMEM);
    }
    markup_program *p = (markup_program *)mem;
    instr *code = (instr *)(mem + code_off);
    prog_slot *slots = (prog_slot *)(mem + slots_off);
    char *statics = mem + statics_off;
    char *names = mem + names_off;
    if (b->ncode) memcpy(code, b->code, b->ncode * sizeof(instr));
    if (b->statics.len) memcpy(statics, b->statics.data, b->statics.len);
    if (b->names.len) memcpy(names, b->names.data, b->names.len);
    /* A PARAM or ITEM right before a one-argument APPLY (a field of a
       parameter or of a loop item, the usual expression) is fused with it,
       and with a WRITE or IF right after. No jump lands between them: jumps
       land where the stack is empty, and a WRITE or IF after the two leaves
       it empty again. */
    for (size_t pc = 0; pc + 1 < b->ncode; pc++) {
        instr *in = &code[pc];
        const instr *next = &code[pc + 1];
        if ((in->op != MARKUP_OP_PARAM && in->op != MARKUP_OP_ITEM) ||
            next->op != MARKUP_OP_APPLY || next->b != 1)
            continue;
        uint8_t then = pc + 2 < b->ncode ? code[pc + 2].op : MARKUP_OP_STATIC;
        in->fused = then == MARKUP_OP_WRITE ? FUSE_APPLY_WRITE
                    : then == MARKUP_OP_IF  ? FUSE_APPLY_IF
                                            : FUSE_APPLY;
    }
    /* A STATIC before such a field goes on to it without a dispatch. */
    for (size_t pc = 0; pc + 1 < b->ncode; pc++)
        if (code[pc].op == MARKUP_OP_STATIC && code[pc + 1].fused != FUSE_NONE)
            code[pc].fused = FUSE_STATIC_THEN;
    /* Any other one-argument APPLY whose result a WRITE takes at once (a
       field formatted, say) is written in one step too. Its argument is on
       the stack, so no jump lands on it, nor on the WRITE. */
    for (size_t pc = 0; pc + 1 < b->ncode; pc++)
        if (code[pc].op == MARKUP_OP_APPLY && code[pc].b == 1 && code[pc + 1].op == MARKUP_OP_WRITE)
            code[pc].fused = FUSE_APPLY_WRITE;
    for (size_t i = 0; i < b->nslots; i++) {
        slots[i] = b->slots[i];
        slots[i].pub.name = slots[i].pub.name_len ? names + slots[i].name_off : NULL;
    }
    *p = (markup_program){
        .alc = b->alc,
        .alloc_size = total,
        .nparams = b->nparams,
        .code = code,
        .ncode = b->ncode,
        .slots = slots,
        .nslots = b->nslots,
        .statics = statics,
        .static_len = b->statics.len,
    };
    markup_program_builder_free(b);
    *out = p;
    return MARKUP_OK;
}

void markup_program_free(markup_program *prog) {
    if (prog) markup_alc_free(prog->alc, prog, prog->alloc_size);
}

size_t markup_program_length(const markup_program *prog) { return prog ? prog->ncode : 0; }

markup_op markup_program_op(const markup_program *prog, size_t pc, uint32_t *a, uint32_t *b) {
    const instr *in = &prog->code[pc];
    if (a) *a = in->a;
    if (b) *b = in->b;
    return (markup_op)in->op;
}

size_t markup_program_slot_count(const markup_program *prog) { return prog ? prog->nslots : 0; }

const markup_program_slot *markup_program_slot_at(const markup_program *prog, size_t index) {
    return prog && index < prog->nslots ? &prog->slots[index].pub : NULL;
}

size_t markup_program_static_size(const markup_program *prog) {
    return prog ? prog->static_len : 0;
}

/* ------------------------------------------------------------------------ */
/* Running                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct loop_frame {
    void *iter;
    void *item;
    void *next; /* the item after this one, under LOOKAHEAD */
    size_t index;
    bool lookahead;
    bool last;
} loop_frame;

typedef struct run {
    const markup_program_data *data;
    void *ctx;
    void *stack[MARKUP_PROGRAM_MAX_STACK];
    unsigned sp;
    loop_frame loops[MARKUP_PROGRAM_MAX_LOOPS];
    unsigned nloops;
    size_t captures[MARKUP_PROGRAM_MAX_CAPTURES]; /* where each open one began */
    unsigned ncaptures;
} run;

static void release_stack(run *r, unsigned down_to) {
    while (r->sp > down_to) r->data->release(r->ctx, r->stack[--r->sp]);
}

static void end_loop(run *r) {
    loop_frame *f = &r->loops[--r->nloops];
    if (f->item) r->data->release(r->ctx, f->item);
    if (f->next) r->data->release(r->ctx, f->next);
    r->data->iter_end(r->ctx, f->iter);
}

/* Fetches one item into *item: *done when there is none. */
static markup_status fetch(run *r, loop_frame *f, void **item, bool *done) {
    *item = NULL;
    *done = false;
    markup_status st = r->data->iter_next(r->ctx, f->iter, item, done);
    if (st != MARKUP_OK || *done) *item = NULL;
    return st;
}

/* Moves the loop to its next item: *more false when there is none. Under
   LOOKAHEAD the item after it is fetched too, to know whether it is the
   last. */
static markup_status advance(run *r, loop_frame *f, bool *more) {
    if (f->item) r->data->release(r->ctx, f->item);
    f->item = NULL;
    *more = false;
    bool done = false;
    markup_status st;
    if (!f->lookahead || f->index == SIZE_MAX) {
        st = fetch(r, f, &f->item, &done);
        if (st != MARKUP_OK || done) return st;
    } else {
        if (f->last) return MARKUP_OK;
        f->item = f->next;
        f->next = NULL;
    }
    if (f->lookahead) {
        st = fetch(r, f, &f->next, &done);
        if (st != MARKUP_OK) return st;
        f->last = done;
    }
    f->index++; /* from SIZE_MAX to 0 for the first item */
    *more = true;
    return MARKUP_OK;
}

/* Appends a static segment (never empty: the builder drops those). Rows
   are made of short ones: copied inline, not through a call. */
static inline markup_status put_static(markup_buf *out, const char *s, size_t n) {
    if (out->cap - out->len < n) {
        markup_status st = markup_buf_reserve(out, n);
        if (st != MARKUP_OK) return st;
    }
    copy_short(out->data + out->len, s, n);
    out->len += n;
    return MARKUP_OK;
}

/* The slot a value is written to: for one standing directly in a pre,
   listing or textarea, when nothing was written since that element's
   content began, a copy whose writer writes a newline that begins the
   value's text twice (the parser drops the first). */
static inline const markup_program_slot *slot_here(const markup_program_slot *slot,
                                                   size_t static_end, size_t out_end,
                                                   const markup_buf *out,
                                                   markup_program_slot *first) {
    if (!slot->newline_at || static_end != slot->newline_at || out->len != out_end) return slot;
    *first = *slot;
    first->context = markup_context_newline_first(slot->context);
    first->plain = false;
    return first;
}

markup_status markup_program_run(const markup_program *prog, const markup_program_data *data,
                                 void *ctx, void *const *params, size_t nparams, markup_buf *out,
                                 markup_program_fault *fault) {
    if (!prog || !data || !out || (!params && nparams) || nparams != prog->nparams)
        return MARKUP_ERR_INVALID_ARG;
    size_t start_len = out->len;
    run r;
    r.data = data;
    r.ctx = ctx;
    r.sp = 0;
    r.nloops = 0;
    r.ncaptures = 0;
    const instr *code = prog->code;
    size_t pc = 0;
    markup_status st = markup_buf_reserve(out, prog->static_len);
    size_t at = 0; /* the instruction being run, for the fault */
    /* Where the last static HTML written ends, in the statics and in the
       output: a newline point comes first when nothing was written since. */
    size_t static_end = 0, out_end = 0;
    /* The asserts below restate what markup_program_builder_finish checked
       of every program: a stack, loop or capture is never read past what
       was pushed, and a PARAM names a parameter. */
    while (st == MARKUP_OK && pc < prog->ncode) {
        const instr *in = &code[pc];
        at = pc;
        switch ((markup_op)in->op) {
        case MARKUP_OP_STATIC:
            st = put_static(out, prog->statics + in->a, in->b);
            static_end = in->a + in->b;
            out_end = out->len;
            pc++;
            if (in->fused == FUSE_STATIC_THEN && st == MARKUP_OK) {
                in = &code[pc];
                at = pc;
                goto field;
            }
            break;
        case MARKUP_OP_NEWLINE:
            if (static_end == in->a && out->len == out_end) st = markup_buf_putc(out, '\n');
            pc++;
            break;
        case MARKUP_OP_WRITE: {
            markup_program_slot first;
            assert(r.sp == 1);
            st = data->write(ctx,
                             slot_here(&prog->slots[in->a].pub, static_end, out_end, out, &first),
                             r.stack[0], out);
            release_stack(&r, 0);
            pc++;
            break;
        }
        case MARKUP_OP_IF: {
            bool yes = false;
            assert(r.sp == 1);
            st = data->truth(ctx, r.stack[0], &yes);
            release_stack(&r, 0);
            pc = yes ? pc + 1 : in->a;
            break;
        }
        case MARKUP_OP_JUMP: pc = in->a; break;
        case MARKUP_OP_BREAK:
            assert(r.nloops > 0);
            end_loop(&r);
            pc = in->a;
            break;
        case MARKUP_OP_CAPTURE:
            r.captures[r.ncaptures++] = out->len;
            static_end = 0; /* no newline point reaches into or out of it */
            pc++;
            break;
        case MARKUP_OP_END_CAPTURE: {
            assert(r.ncaptures > 0);
            size_t begin = r.captures[--r.ncaptures];
            void *v = NULL;
            const char *text = out->data ? out->data + begin : "";
            st = data->capture ? data->capture(ctx, text, out->len - begin, &v)
                               : MARKUP_ERR_INVALID_ARG;
            markup_buf_truncate(out, begin);
            static_end = 0;
            if (st == MARKUP_OK) r.stack[r.sp++] = v;
            pc++;
            break;
        }
        case MARKUP_OP_LOOP: {
            void *iter = NULL;
            assert(r.sp == 1);
            st = data->iter_begin(ctx, r.stack[0], &iter);
            release_stack(&r, 0);
            if (st != MARKUP_OK) break;
            loop_frame *f = &r.loops[r.nloops++];
            *f = (loop_frame){iter, NULL, NULL, SIZE_MAX, (in->b & MARKUP_LOOP_LOOKAHEAD) != 0,
                              false};
            bool more = false;
            st = advance(&r, f, &more);
            if (st != MARKUP_OK) break;
            if (more) {
                pc++;
            } else {
                end_loop(&r);
                /* Past the JUMP that ends a loop with an else: into it. */
                pc = in->a + ((in->b & MARKUP_LOOP_ELSE) != 0);
            }
            break;
        }
        case MARKUP_OP_END_LOOP: {
            bool more = false;
            assert(r.nloops > 0);
            st = advance(&r, &r.loops[r.nloops - 1], &more);
            if (st != MARKUP_OK) break;
            if (more) {
                pc = in->a;
            } else {
                end_loop(&r);
                pc++;
            }
            break;
        }
        case MARKUP_OP_PARAM:
        case MARKUP_OP_ITEM:
        field: {
            assert(in->op != MARKUP_OP_PARAM || in->a < nparams);
            void *v =
                in->op == MARKUP_OP_PARAM ? params[in->a] : r.loops[r.nloops - 1 - in->a].item;
            if (in->fused != FUSE_NONE) { /* the APPLY after it, on the borrowed value */
                void *result = NULL;
                at = pc + 1;
                if (in->fused == FUSE_APPLY_WRITE && data->apply_write) {
                    markup_program_slot first;
                    const markup_program_slot *slot = slot_here(&prog->slots[code[pc + 2].a].pub,
                                                                static_end, out_end, out, &first);
                    st = data->apply_write(ctx, code[pc + 1].a, v, slot, out);
                    pc += 3;
                    break;
                }
                if (in->fused == FUSE_APPLY_IF && data->apply_truth) {
                    bool yes = false;
                    st = data->apply_truth(ctx, code[pc + 1].a, v, &yes);
                    pc = yes ? pc + 3 : code[pc + 2].a;
                    break;
                }
                st = data->apply(ctx, code[pc + 1].a, &v, 1, &result);
                if (st != MARKUP_OK) break;
                const instr *then = &code[pc + 2];
                if (in->fused == FUSE_APPLY_WRITE) {
                    markup_program_slot first;
                    at = pc + 2;
                    st = data->write(
                        ctx, slot_here(&prog->slots[then->a].pub, static_end, out_end, out, &first),
                        result, out);
                    data->release(ctx, result);
                    pc += 3;
                } else if (in->fused == FUSE_APPLY_IF) {
                    bool yes = false;
                    at = pc + 2;
                    st = data->truth(ctx, result, &yes);
                    data->release(ctx, result);
                    pc = yes ? pc + 3 : then->a;
                } else {
                    r.stack[r.sp++] = result;
                    pc += 2;
                }
            } else {
                r.stack[r.sp++] = data->retain(ctx, v);
                pc++;
            }
            break;
        }
        case MARKUP_OP_LOOP_INFO: {
            const loop_frame *f = &r.loops[r.nloops - 1 - in->a];
            markup_loop_state ls = {f->index, f->last, f->iter,
                                    f->lookahead && !f->last ? f->next : NULL};
            void *v = NULL;
            st = data->loop_value(ctx, in->b, &ls, &v);
            if (st == MARKUP_OK) r.stack[r.sp++] = v;
            pc++;
            break;
        }
        case MARKUP_OP_CYCLE: {
            const loop_frame *f = &r.loops[r.nloops - 1 - in->a];
            unsigned base = r.sp - in->b;
            unsigned keep = base + (unsigned)(f->index % in->b);
            void *v = r.stack[keep];
            r.stack[keep] = NULL;
            for (unsigned i = base; i < r.sp; i++)
                if (r.stack[i]) data->release(ctx, r.stack[i]);
            r.sp = base;
            r.stack[r.sp++] = v;
            pc++;
            break;
        }
        case MARKUP_OP_APPLY: {
            if (in->fused == FUSE_APPLY_WRITE && data->apply_write) {
                markup_program_slot first;
                const markup_program_slot *slot =
                    slot_here(&prog->slots[code[pc + 1].a].pub, static_end, out_end, out, &first);
                assert(r.sp > 0);
                st = data->apply_write(ctx, in->a, r.stack[r.sp - 1], slot, out);
                release_stack(&r, r.sp - 1);
                pc += 2;
                break;
            }
            unsigned base = r.sp - in->b;
            void *v = NULL;
            st = data->apply(ctx, in->a, &r.stack[base], in->b, &v);
            release_stack(&r, base);
            if (st == MARKUP_OK) r.stack[r.sp++] = v;
            pc++;
            break;
        }
        }
    }
    if (st != MARKUP_OK) {
        if (fault) {
            fault->pc = (uint32_t)at;
            fault->nloops = r.nloops;
            for (unsigned i = 0; i < r.nloops; i++) fault->index[i] = r.loops[i].index;
        }
        release_stack(&r, 0);
        while (r.nloops) end_loop(&r);
        markup_buf_truncate(out, start_len);
    }
    return st;
}
