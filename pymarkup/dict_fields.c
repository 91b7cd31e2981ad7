/*
 * dict_fields.c - the check that the mirror of CPython's layout of a
 * dict's entries (dict_fields.h) reads dicts as PyDict_Next does.
 */
#include "dict_fields.h"

#if PM_DICT_ENTRIES
#  ifdef PM_HAVE_ATOMICS
_Atomic int pm_dict_entries_ok;
#  else
int pm_dict_entries_ok;
#  endif

/* Whether dict_entry_at agrees with PyDict_Next on every position of
   `dict`: each live entry found there by its key, each hole found by no
   key, not even by the keys in `gone` (deleted from it). */
static int dict_entries_agree(PyObject *dict, PyObject *gone) {
    if (!dict_entries_readable(dict)) return 0;
    Py_ssize_t nentries = dict_keys(dict)->nentries;
    Py_ssize_t pos = 0, live = 0, next = 0;
    PyObject *k, *v;
    for (;;) {
        int more = PyDict_Next(dict, &pos, &k, &v);
        Py_ssize_t hole_end = more ? pos - 1 : nentries; /* holes before it, or at the end */
        if (hole_end < next || hole_end > nentries) return 0;
        for (; next < hole_end; next++)
            for (Py_ssize_t g = 0; g < PyList_GET_SIZE(gone); g++)
                if (dict_entry_at(dict, next, PyList_GET_ITEM(gone, g)) != NULL) return 0;
        if (!more) break;
        if (dict_entry_at(dict, pos - 1, k) != v) return 0;
        next = pos;
        live++;
    }
    return live == PyDict_GET_SIZE(dict);
}

/* Sets pm_dict_entries_ok when the mirror reads dicts as PyDict_Next does:
   index tables of 1 and 2 bytes an entry, holes left by deleted keys, and
   a table with an int key, which it must not take for one of str keys.
   -1 with an error only when making the dicts fails. */
int pm_dict_entries_check(void) {
    static const int sizes[] = {1, 5, 300};
    int ok = 1;
    for (size_t i = 0; ok && i < sizeof sizes / sizeof sizes[0]; i++) {
        PyObject *dict = PyDict_New(), *gone = PyList_New(0);
        int rc = dict && gone ? 0 : -1;
        for (int j = 0; rc == 0 && j < sizes[i]; j++) {
            PyObject *key = PyUnicode_FromFormat("key%d", j);
            PyObject *value = key ? PyLong_FromLong(j) : NULL;
            rc = value ? PyDict_SetItem(dict, key, value) : -1;
            /* Every third key deleted, the first kept: holes at known places. */
            if (rc == 0 && j % 3 == 2) {
                rc = PyList_Append(gone, key);
                if (rc == 0) rc = PyDict_DelItem(dict, key);
            }
            Py_XDECREF(key);
            Py_XDECREF(value);
        }
        if (rc == 0) ok = dict_entries_agree(dict, gone);
        Py_XDECREF(dict);
        Py_XDECREF(gone);
        if (rc < 0) return -1;
    }
    PyObject *mixed = Py_BuildValue("{s:i,i:i}", "key", 0, 1, 1);
    if (!mixed) return -1;
    if (dict_entries_readable(mixed)) ok = 0;
    Py_DECREF(mixed);
#  ifdef PM_HAVE_ATOMICS
    atomic_store_explicit(&pm_dict_entries_ok, ok, memory_order_relaxed);
#  else
    pm_dict_entries_ok = ok;
#  endif
    return 0;
}
#else
/* Nothing to check: the entries are not read directly on this build. */
typedef int pm_dict_fields_unused;
#endif
