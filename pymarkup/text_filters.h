/* The scanning parts of markup.filters in C (text_filters.c), exported by
   module.c as _core._wordcount, _core._title_ascii and _core._strip_tags. */
#ifndef PM_TEXT_FILTERS_H
#define PM_TEXT_FILTERS_H

#include <Python.h>

/* The number of words of a str: runs of Python's \w. */
PyObject *pm_wordcount(PyObject *module, PyObject *s);

/* Jinja2's title of an ASCII str; None for any other str. */
PyObject *pm_title_ascii(PyObject *module, PyObject *s);

/* A str without its tags and comments, runs of whitespace made one space
   and none at the ends: striptags before entities are read. */
PyObject *pm_strip_tags(PyObject *module, PyObject *s);

#endif
