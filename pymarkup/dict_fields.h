/*
 * dict_fields.h - reading a field of a dict where it stood in the last
 * one: what the template programs of @baked (baked.c) and markup.jinja
 * (jinja.c) do for every row of a page.
 */
#ifndef PYMARKUP_DICT_FIELDS_H
#define PYMARKUP_DICT_FIELDS_H

#include "state.h"

#if !defined(__STDC_NO_ATOMICS__)
#  include <stdatomic.h>
#  define PM_HAVE_ATOMICS 1
#endif

/* Field reads on dicts. The rows of a page are usually dicts built alike,
   so a key found at one position of a row's dict is usually at the same
   position in the next row's. That position is tried first, through
   PyDict_Next, which checks it against the dict's bounds; only the very
   key object, at that very position, counts as found there, so a stale
   position can never give a wrong value (keys are exact str, whose hash
   cannot change under the dict). Learning a position walks the dict once;
   a call walks at most `scans_left` dicts, so rows whose keys are other
   objects (parsed JSON) cost no more than a hash lookup and a try. Without
   a GIL the shared position would be a data race: no hints there. */
#ifndef Py_GIL_DISABLED
#  define PM_FIELD_HINTS 1
#else
#  define PM_FIELD_HINTS 0
#endif
#define PM_HINT_SCANS    64 /* per call */
#define PM_HINT_MAX_SIZE 64 /* dicts larger than this are not walked */

/* Trying a position through PyDict_Next is a call that checks the kind of
   table, skips holes and hands back three values: half the cost of a field
   read. Where CPython's layout of a dict's entries is known (3.11 to 3.15,
   with a GIL), the entry at the position is read directly. The layout is
   mirrored here by its facts (the keys object's header, then the index
   table of 2**dk_log2_index_bytes bytes, then the entries as key-value
   pairs when every key is a str); module load checks the mirror against
   PyDict_Next and keeps PyDict_Next alone if any answer differs
   (tests/python/test_baked_fields.py requires the direct reads on these
   versions). */
#if PM_FIELD_HINTS && PM_CPYTHON_LAYOUTS && PY_VERSION_HEX >= 0x030B0000
#  define PM_DICT_ENTRIES 1
typedef struct dict_keys_layout {
    Py_ssize_t refcnt;
    uint8_t log2_size;
    uint8_t log2_index_bytes;
    uint8_t kind; /* DICT_KEYS_STR, or a table this file does not read */
    uint32_t version;
    Py_ssize_t usable;
    Py_ssize_t nentries; /* entries in use or deleted, in insertion order */
    char indices[];
} dict_keys_layout;

#  define DICT_KEYS_STR 1 /* every key a str: entries are dict_str_entry */

typedef struct dict_str_entry {
    PyObject *key;
    PyObject *value; /* NULL for a deleted entry */
} dict_str_entry;

/* Set by every module load to the same answer (pm_dict_entries_check). */
#  ifdef PM_HAVE_ATOMICS
extern _Atomic int pm_dict_entries_ok;
#  else
extern int pm_dict_entries_ok;
#  endif

static inline int dict_entries_direct(void) {
#  ifdef PM_HAVE_ATOMICS
    return atomic_load_explicit(&pm_dict_entries_ok, memory_order_relaxed);
#  else
    return pm_dict_entries_ok;
#  endif
}

static inline const dict_keys_layout *dict_keys(PyObject *dict) {
    return (const dict_keys_layout *)(const void *)((PyDictObject *)dict)->ma_keys;
}

/* Whether exact dict `dict` keeps its entries as dict_str_entry pairs.
   Not a table with other keys than str, nor a split table (a dict that
   shares its keys with the instances of a class), whose values are kept
   elsewhere. */
static inline int dict_entries_readable(PyObject *dict) {
    return ((PyDictObject *)dict)->ma_values == NULL && dict_keys(dict)->kind == DICT_KEYS_STR;
}

/* The value of entry `pos` of readable dict `dict` when its key is `key`,
   else NULL: a borrowed reference, no error. */
static inline PyObject *dict_entry_at(PyObject *dict, Py_ssize_t pos, PyObject *key) {
    const dict_keys_layout *keys = dict_keys(dict);
    if (pos >= keys->nentries) return NULL;
    const dict_str_entry *entries =
        (const dict_str_entry *)(const void *)(keys->indices +
                                               ((size_t)1 << keys->log2_index_bytes));
    return entries[pos].key == key ? entries[pos].value : NULL;
}

/* Sets pm_dict_entries_ok when the mirror reads dicts as PyDict_Next
   does (dict_fields.c). -1 with an error only when making dicts fails. */
int pm_dict_entries_check(void);
#else
#  define PM_DICT_ENTRIES 0
#endif

#endif /* PYMARKUP_DICT_FIELDS_H */
