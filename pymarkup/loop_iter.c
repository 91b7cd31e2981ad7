/*
 * loop_iter.c - loop iterators and the fields of Jinja2's `loop` for the
 * template programs (loop_iter.h).
 */
#include "loop_iter.h"

pm_loop_iter *pm_loop_iter_new(PyObject *iterable) {
    PyObject *it = NULL;
    if (!PyList_CheckExact(iterable) && !PyTuple_CheckExact(iterable)) {
        /* Iterating runs the iterable's code, which may render a template
           again. */
        if (pm_stack_check("in a template's loop") < 0) return NULL;
        it = PyObject_GetIter(iterable);
        if (!it) return NULL;
    }
    pm_loop_iter *j = PyMem_Calloc(1, sizeof *j);
    if (!j) {
        Py_XDECREF(it);
        PyErr_NoMemory();
        return NULL;
    }
    j->iterable = Py_NewRef(iterable);
    j->it = it;
    j->length = -1;
    return j;
}

void pm_loop_iter_free(pm_loop_iter *j) {
    Py_DECREF(j->iterable);
    Py_XDECREF(j->it);
    for (int k = 0; k < 3; k++) Py_XDECREF(j->recent[k]);
    Py_XDECREF(j->changes);
    PyMem_Free(j);
}

/* LoopContext.length: len() of the iterable, asked once; else the items
   left, read ahead into a list the loop goes on with, plus those pulled. */
static Py_ssize_t loop_length(pm_loop_iter *j) {
    if (j->length >= 0) return j->length;
    Py_ssize_t n = PyObject_Size(j->iterable);
    if (n < 0) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError) || !j->it) return -1;
        PyErr_Clear();
        PyObject *rest = PySequence_List(j->it);
        if (!rest) return -1;
        n = PyList_GET_SIZE(rest) + (Py_ssize_t)j->pulled;
        Py_SETREF(j->iterable, rest);
        Py_CLEAR(j->it);
        j->next = 0;
    }
    j->length = n;
    return n;
}

int pm_loop_field(const markup_loop_state *state, uint32_t what, PyObject **out) {
    pm_loop_iter *j = state->iter;
    Py_ssize_t index0 = (Py_ssize_t)state->index, length;
    PyObject *v = NULL;
    switch ((markup_loop_field)what) {
    case MARKUP_LOOP_INDEX: v = PyLong_FromSsize_t(index0 + 1); break;
    case MARKUP_LOOP_INDEX0: v = PyLong_FromSsize_t(index0); break;
    case MARKUP_LOOP_FIRST: v = Py_NewRef(index0 == 0 ? Py_True : Py_False); break;
    case MARKUP_LOOP_LAST: v = Py_NewRef(state->last ? Py_True : Py_False); break;
    case MARKUP_LOOP_LENGTH:
    case MARKUP_LOOP_REVINDEX:
    case MARKUP_LOOP_REVINDEX0:
        length = loop_length(j);
        if (length < 0) return -1;
        v = PyLong_FromSsize_t(what == MARKUP_LOOP_LENGTH     ? length
                               : what == MARKUP_LOOP_REVINDEX ? length - index0
                                                              : length - index0 - 1);
        break;
    case MARKUP_LOOP_PREVITEM: {
        if (index0 == 0) {
            *out = NULL;
            return 0;
        }
        /* Item index0 - 1 was pulled one item before this one, whether
           or not the next one was read ahead. */
        size_t prev = (size_t)index0 - 1;
        if (j->pulled - prev > 3 || !j->recent[prev % 3]) {
            PyErr_SetString(PyExc_SystemError, "loop.previtem out of reach");
            return -1;
        }
        v = Py_NewRef(j->recent[prev % 3]);
        break;
    }
    case MARKUP_LOOP_NEXTITEM:
        *out = state->next ? Py_NewRef((PyObject *)state->next) : NULL;
        return 0;
    case MARKUP_LOOP_CHANGES:
        /* A list: empty until loop.changed() is first called, then the
           values of its last call. */
        if (!j->changes && !(j->changes = PyList_New(0))) return -1;
        v = Py_NewRef(j->changes);
        break;
    default: PyErr_SetString(PyExc_SystemError, "a loop field that does not exist"); return -1;
    }
    if (!v) return -1;
    *out = v;
    return 0;
}

PyObject *pm_loop_changed(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs < 1 || !PyList_CheckExact(args[0]) || PyList_GET_SIZE(args[0]) > 1) {
        PyErr_SetString(PyExc_TypeError, "_loop_changed() takes a loop's record and the values");
        return NULL;
    }
    PyObject *record = args[0];
    PyObject *values = PyTuple_New(nargs - 1);
    if (!values) return NULL;
    for (Py_ssize_t i = 1; i < nargs; i++) PyTuple_SET_ITEM(values, i - 1, Py_NewRef(args[i]));
    int changed = 1;
    if (PyList_GET_SIZE(record) == 1) {
        PyObject *last = Py_NewRef(PyList_GET_ITEM(record, 0));
        changed = PyObject_RichCompareBool(last, values, Py_NE);
        Py_DECREF(last);
    }
    if (changed > 0) {
        if (PyList_GET_SIZE(record) == 1) {
            if (PyList_SetItem(record, 0, values) < 0) return NULL; /* takes `values` */
        } else {
            int failed = PyList_Append(record, values) < 0;
            Py_DECREF(values);
            if (failed) return NULL;
        }
        Py_RETURN_TRUE;
    }
    Py_DECREF(values);
    if (changed < 0) return NULL;
    Py_RETURN_FALSE;
}
