/*
 * loop_iter.h - one loop's iterator in the template programs of @baked
 * (baked.c) and markup.jinja (jinja.c), with what Jinja2's LoopContext
 * keeps beside it for loop.length, revindex and previtem.
 */
#ifndef PYMARKUP_LOOP_ITER_H
#define PYMARKUP_LOOP_ITER_H

#include "state.h"

typedef struct pm_loop_iter {
    PyObject *iterable;
    /* An exact list or tuple is read by index, its size read at each step
       (the list may change under the loop, as under iter()); anything
       else goes through its iterator. */
    PyObject *it;        /* NULL: read by index */
    Py_ssize_t next;     /* read by index: the index of the next item */
    size_t pulled;       /* items handed to the run */
    Py_ssize_t length;   /* -1 until asked for */
    PyObject *recent[3]; /* the last items pulled, item i at i % 3 */
    PyObject *changes;   /* loop.changed()'s record (pm_loop_changed), made
                            when first asked for */
} pm_loop_iter;

/* A new iterator over `iterable` (iter() on it unless it is an exact list
   or tuple); NULL with an exception set. */
pm_loop_iter *pm_loop_iter_new(PyObject *iterable);

/* The next item (a new reference) in *item: 1; 0 at the end; -1 with an
   exception set. Inline: it runs once per row of every page. */
static inline int pm_loop_iter_next(pm_loop_iter *j, PyObject **item) {
    PyObject *v;
    if (j->it) {
        v = PyIter_Next(j->it);
        if (!v) return PyErr_Occurred() ? -1 : 0;
    } else {
        PyObject *seq = j->iterable;
        int list = PyList_CheckExact(seq);
        Py_ssize_t n = list ? PyList_GET_SIZE(seq) : PyTuple_GET_SIZE(seq);
        if (j->next >= n) return 0;
#ifdef Py_GIL_DISABLED
        /* A strong reference read under the list's own lock (where a GIL
           keeps the list still, the read below is the same). */
        if (list) {
            v = PyList_GetItemRef(seq, j->next);
            if (!v) { /* shrunk since its size was read: the end */
                if (!PyErr_ExceptionMatches(PyExc_IndexError)) return -1;
                PyErr_Clear();
                return 0;
            }
        } else
#endif
            v = Py_NewRef(list ? PyList_GET_ITEM(seq, j->next) : PyTuple_GET_ITEM(seq, j->next));
        j->next++;
    }
    PyObject **keep = &j->recent[j->pulled++ % 3];
    Py_XSETREF(*keep, Py_NewRef(v));
    *item = v;
    return 1;
}

void pm_loop_iter_free(pm_loop_iter *j);

/* The last markup_loop_field: a LOOP_INFO past it is refused when compiled. */
#define PM_LOOP_FIELD_LAST MARKUP_LOOP_CHANGES

/* Field `what` (a markup_loop_field) of the loop `state` describes, whose
   iterator is a pm_loop_iter: a new reference in *out, or NULL there for
   a previtem or nextitem the loop does not have (the caller says what
   stands for it). -1 with an exception set. */
int pm_loop_field(const markup_loop_state *state, uint32_t what, PyObject **out);

/* _core._loop_changed(record, *values): Jinja2's loop.changed(*values),
   True when `values` differ from those of the last call on this loop's
   record (MARKUP_LOOP_CHANGES), or on the first call. */
PyObject *pm_loop_changed(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
