/* Formatting an int or a float by a format spec in C, with the text
   Python's format() gives: what f"{total:,.2f}" and f"{n:>6}" cost in a
   template without a str per value. The common specs only; for any other
   spec or value the caller goes through PyObject_Format. */
#ifndef PM_NUMBER_FORMAT_H
#define PM_NUMBER_FORMAT_H

#include <Python.h>

/* The longest text formatted here; a wider or longer one is Python's. */
#define PM_NUMBER_TEXT_MAX 128

/* A spec of the standard mini-language
   [[fill]align][sign][0][width][grouping][.precision][type], parsed once.
   `usable` is 0 for a spec this file leaves to Python (a type other than
   d, f, F or %, '#', 'z', 'n', a precision on an int, zero padding with
   grouping, a width past PM_NUMBER_TEXT_MAX). */
typedef struct pm_number_spec {
    unsigned char usable;
    char fill[4]; /* UTF-8; a space by default */
    unsigned char fill_len;
    char align;    /* '<', '>', '^', '=' */
    char sign;     /* '-', '+', ' ' */
    char grouping; /* ',', '_' or 0 */
    char type;     /* 0 (none), 'd', 'f', 'F', '%' */
    int precision; /* -1: none given */
    int width;     /* 0: none given */
} pm_number_spec;

/* Parses `spec` (a str) into `out`; out->usable says whether the values
   this file formats can be formatted here. Never fails. */
void pm_number_spec_parse(PyObject *spec, pm_number_spec *out);

/* Formats `v` by `spec` into `buf` (UTF-8, PM_NUMBER_TEXT_MAX bytes) and
   gives its length; 0 when `v` is not an exact int or float, or is one
   this spec does not format here (a float for 'd', an int for '.2f' with
   a precision the type refuses, an infinity, a number too long): the
   caller formats it with PyObject_Format. -1 with an exception set. */
Py_ssize_t pm_number_format(const pm_number_spec *spec, PyObject *v, char buf[PM_NUMBER_TEXT_MAX]);

#endif
