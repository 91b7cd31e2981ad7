/*
 * baked_impl.h - what the three parts of @baked's C side share: the
 * compiled function's struct (pm_baked) and its slots and operations, and
 * the state of one call of a template program.
 *
 *   baked_compile.c  _compile: the traced tree checked, flattened into a
 *                    markup_baked template or a program's operations read,
 *                    in a baked function baked.c allocates
 *   baked.c          the stand-ins' base type, the baked function's type
 *                    and its call path, which runs programs with
 *   baked_data.c     the data side of markup_program_run: field reads,
 *                    operations, truth, loops and writes, for one call
 */
#ifndef PYMARKUP_BAKED_IMPL_H
#define PYMARKUP_BAKED_IMPL_H

#include "state.h"

#include "dict_fields.h" /* PM_HAVE_ATOMICS, for size_hint */
#include "number_format.h"

/* One slot of a baked function's template. */
typedef struct pm_slot {
    Py_ssize_t param;       /* the parameter that fills it */
    markup_context context; /* where it stands (an attribute slot: where its
                               start tag stands): a value there is written
                               as it would be in the tree */
    unsigned short depth;   /* the depth a child value there renders at */
    unsigned char kind;     /* MARKUP_SLOT_* */
    unsigned char plain;    /* takes trusted HTML unchecked (no text element
                               around; text is escaped in every slot) */
} pm_slot;

/* A comparison's operator goes to PyObject_RichCompare as it is. */
_Static_assert(MARKUP_COMPARE_LT == Py_LT && MARKUP_COMPARE_LE == Py_LE &&
                   MARKUP_COMPARE_EQ == Py_EQ && MARKUP_COMPARE_NE == Py_NE &&
                   MARKUP_COMPARE_GT == Py_GT && MARKUP_COMPARE_GE == Py_GE,
               "markup_compare_op is numbered as Py_LT ... Py_GE");

/* One APPLY operation of a template program (markup/_template.py writes
   them as tuples (kind, payload, path); the kinds and operators are
   binding.h's markup_apply_kind, markup_binary_op and markup_compare_op). */
typedef struct pm_op {
    int kind;              /* a markup_apply_kind; below without MARKUP_APPLY_ */
    int which;             /* BINARY, COMPARE: the operator; FORMAT: 's' or 'r'
                          for str() or repr() before the spec, or 0 */
    PyObject *payload;     /* CONST: the value; ATTR/ITEM: the key; FORMAT: the
                          spec; DICT: the keys (tuple); CALL: the function */
    PyObject *kwnames;     /* CALL: the keyword names (tuple), or NULL */
    Py_ssize_t count;      /* UNPACK: how many names (`which` is this one);
                          FORMAT: a pm_format_use */
    PyObject *path;        /* a str.format template over the loop indices */
    Py_ssize_t at;         /* ATTR/ITEM: where the key was last found in a
                          dict (a position for PyDict_Next), or -1 */
    int dict_item;         /* ATTR/ITEM: on an exact dict, the field is the
                          item (for ATTR: dict itself has no attribute of
                          that name, `{}.items` being the method) */
    PyObject *missing;     /* ATTR/ITEM: what a field that is not there gives
                          (markup's MISSING, as Jinja2's undefined), also
                          read of it; NULL: the failed lookup raises */
    pm_number_spec number; /* FORMAT: the spec, for an int or float */
    int formatted;         /* ATTR/ITEM: the field is an f-string alone,
                              f"{x.name}", written at once: a str, int or
                              float is itself, anything else format()ted */
} pm_op;

typedef struct pm_baked {
    PyObject_HEAD vectorcallfunc vectorcall;
    PyObject *dict; /* __dict__: functools.update_wrapper fills it */
    PyObject *weakreflist;
    pm_state *st; /* the defining module's state (the type keeps it alive) */
    markup_baked *tpl;
    PyObject *func_name; /* the builder's qualified name, for errors */
    PyObject *params;    /* tuple of interned parameter names */
    PyObject **defaults; /* per parameter: its default (owned) or NULL */
    Py_ssize_t nparams;
    Py_ssize_t npositional; /* the first npositional may be passed positionally */
    pm_slot *slots;         /* nslots of them, in template order */
    unsigned char *multi;   /* per parameter: fills more than one slot */
    int any_multi;
    size_t nslots;
    int static_ascii;     /* the static HTML is ASCII */
    PyObject *builder;    /* the undecorated function: a call with stand-ins
                              (another builder inlining this one) runs it */
    markup_program *prog; /* a template program, or NULL for tpl */
    struct pm_op *ops;    /* the program's APPLY operations */
    Py_ssize_t nops;
    PyObject *paths; /* dict: instruction -> what it computes, for errors */
#ifdef PM_HAVE_ATOMICS
    _Atomic size_t size_hint; /* the last output's size, to reserve at once */
#else
    size_t size_hint;
#endif
} pm_baked;

typedef struct program_call {
    pm_render_ctx rctx;
    pm_baked *self;
    int ascii;           /* everything written so far is known to be ASCII */
    int placeholder_met; /* a stand-in was met: inline the builder */
    int scans_left;      /* dict scans this call may still make for hints */
    int failed_after;    /* apply_write or apply_truth failed in its WRITE or IF */
} program_call;

/* The program data callbacks (baked_data.c), with the stand-in hook of
   the render context a call starts with: a stand-in met while rendering
   means the call happens while another builder is traced. */
extern const markup_program_data pm_program_data;
int pm_program_on_stand_in(pm_render_ctx *ctx, PyObject *placeholder, const char *attr_name,
                           Py_ssize_t attr_name_len, int depth);

/* A baked function with nothing compiled yet (baked.c): its name, builder,
   error paths and parameter counts set, untracked by the collector until
   its compiler has filled it. NULL with an exception set. */
pm_baked *pm_baked_alloc(pm_state *st, PyObject *qualname, PyObject *builder, PyObject *paths,
                         Py_ssize_t nparams, Py_ssize_t npositional);

#endif
