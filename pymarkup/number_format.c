/* Formatting an int or a float by a format spec in C (number_format.h).
 *
 * The digits come from where Python's format() takes them: an int's from
 * its value, a float's from PyOS_double_to_string with the same mode and
 * precision float.__format__ asks for ('f' with the precision, default 6;
 * 'r' when neither type nor precision is given; '%' after multiplying by
 * 100; an int for 'f' or '%' made a float first, as int.__format__ does).
 * Sign, grouping of the integer digits, fill and alignment are then laid
 * out by the rules of the format spec mini-language. */
#include "number_format.h"

#include <math.h>
#include <string.h>

static int is_align(Py_UCS4 c) { return c == '<' || c == '>' || c == '^' || c == '='; }

/* The UTF-8 bytes of code point `c` into `out` (4 bytes); their count. */
static unsigned char utf8_encode(Py_UCS4 c, char *out) {
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* A run of decimal digits at `*i` as an int, up to `limit`; -1 past it. */
static int read_number(PyObject *spec, Py_ssize_t n, Py_ssize_t *i, int limit) {
    int value = 0;
    while (*i < n) {
        Py_UCS4 c = PyUnicode_READ_CHAR(spec, *i);
        if (c < '0' || c > '9') break;
        value = value * 10 + (int)(c - '0');
        if (value > limit) return -1;
        (*i)++;
    }
    return value;
}

void pm_number_spec_parse(PyObject *spec, pm_number_spec *out) {
    memset(out, 0, sizeof *out);
    out->fill[0] = ' ';
    out->fill_len = 1;
    out->align = '>';
    out->sign = '-';
    out->precision = -1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(spec), i = 0;
    int explicit_align = 0;
    if (n >= 2 && is_align(PyUnicode_READ_CHAR(spec, 1))) {
        Py_UCS4 fill = PyUnicode_READ_CHAR(spec, 0);
        if (fill >= 0xD800 && fill <= 0xDFFF) return; /* a lone surrogate: Python's to refuse */
        out->fill_len = utf8_encode(fill, out->fill);
        out->align = (char)PyUnicode_READ_CHAR(spec, 1);
        explicit_align = 1;
        i = 2;
    } else if (n >= 1 && is_align(PyUnicode_READ_CHAR(spec, 0))) {
        out->align = (char)PyUnicode_READ_CHAR(spec, 0);
        explicit_align = 1;
        i = 1;
    }
    if (i < n) {
        Py_UCS4 c = PyUnicode_READ_CHAR(spec, i);
        if (c == '+' || c == '-' || c == ' ') {
            out->sign = (char)c;
            i++;
        }
    }
    if (i < n && PyUnicode_READ_CHAR(spec, i) == '0') {
        /* Sign-aware zero padding: Python's own, with grouping, puts
           separators in the padding too; with an alignment it differs by
           version. Both are left to Python. */
        if (explicit_align) return;
        out->fill[0] = '0';
        out->fill_len = 1;
        out->align = '=';
        i++;
    }
    int width = read_number(spec, n, &i, PM_NUMBER_TEXT_MAX / 4);
    if (width < 0) return;
    out->width = width;
    if (i < n) {
        Py_UCS4 c = PyUnicode_READ_CHAR(spec, i);
        if (c == ',' || c == '_') {
            if (out->fill_len == 1 && out->fill[0] == '0' && out->align == '=') return;
            out->grouping = (char)c;
            i++;
        }
    }
    if (i < n && PyUnicode_READ_CHAR(spec, i) == '.') {
        i++;
        Py_ssize_t digits_at = i;
        out->precision = read_number(spec, n, &i, 40);
        if (out->precision < 0 || i == digits_at) return;
    }
    if (i < n) {
        Py_UCS4 c = PyUnicode_READ_CHAR(spec, i);
        if (c != 'd' && c != 'f' && c != 'F' && c != '%') return;
        out->type = (char)c;
        i++;
    }
    out->usable = i == n;
}

/* The digits and point of `v` without its sign into `body`; their length,
   0 for what this file leaves to Python, -1 on error. */
static Py_ssize_t number_body(const pm_number_spec *sp, PyObject *v, char *body, size_t cap,
                              int *negative) {
    if (PyLong_CheckExact(v) && (sp->type == 0 || sp->type == 'd')) {
        if (sp->precision >= 0) return 0; /* Python refuses a precision here */
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow) return 0;
        if (x == -1 && PyErr_Occurred()) return -1;
        unsigned long long u = x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
        char digits[24];
        size_t k = 0;
        do {
            digits[k++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        for (size_t j = 0; j < k; j++) body[j] = digits[k - 1 - j];
        *negative = x < 0;
        return (Py_ssize_t)k;
    }
    if (sp->type == 'd' || (!PyLong_CheckExact(v) && !PyFloat_CheckExact(v))) return 0;
    double x;
    if (PyLong_CheckExact(v)) {
        x = PyLong_AsDouble(v); /* int.__format__ makes a float for f, F and % */
        if (x == -1.0 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
            PyErr_Clear();
            return 0;
        }
    } else {
        x = PyFloat_AS_DOUBLE(v);
    }
    if (!isfinite(x)) return 0;
    if (sp->type == 0 && sp->precision >= 0) return 0; /* a 'g' of its own */
    if (sp->type == '%') x *= 100.0;
    char *s = sp->type == 0
                  ? PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL)
                  : PyOS_double_to_string(x, 'f', sp->precision < 0 ? 6 : sp->precision, 0, NULL);
    if (!s) return -1;
    const char *digits = s[0] == '-' ? s + 1 : s;
    size_t len = strlen(digits);
    *negative = s[0] == '-';
    if (len + 1 > cap) {
        PyMem_Free(s);
        return 0;
    }
    memcpy(body, digits, len);
    PyMem_Free(s);
    if (sp->type == '%') body[len++] = '%';
    return (Py_ssize_t)len;
}

Py_ssize_t pm_number_format(const pm_number_spec *sp, PyObject *v, char buf[PM_NUMBER_TEXT_MAX]) {
    if (!sp->usable) return 0;
    char body[PM_NUMBER_TEXT_MAX];
    int negative = 0;
    Py_ssize_t body_len = number_body(sp, v, body, sizeof body, &negative);
    if (body_len <= 0) return body_len;

    const char *sign = negative ? "-" : sp->sign == '+' ? "+" : sp->sign == ' ' ? " " : "";
    size_t sign_len = strlen(sign);
    /* The integer digits lead the body; separators go between their
       groups of three, counted from the right. */
    size_t int_digits = 0;
    while (int_digits < (size_t)body_len && body[int_digits] >= '0' && body[int_digits] <= '9')
        int_digits++;
    size_t separators = sp->grouping && int_digits ? (int_digits - 1) / 3 : 0;
    size_t chars = sign_len + (size_t)body_len + separators; /* all ASCII: one byte each */
    size_t pad = (size_t)sp->width > chars ? (size_t)sp->width - chars : 0;
    if (chars + pad * sp->fill_len > PM_NUMBER_TEXT_MAX) return 0;

    size_t left = sp->align == '<' || sp->align == '=' ? 0 : sp->align == '^' ? pad / 2 : pad;
    size_t inner = sp->align == '=' ? pad : 0; /* between the sign and the digits */
    size_t right = pad - left - inner;
    char *d = buf;
    for (size_t j = 0; j < left; j++, d += sp->fill_len) memcpy(d, sp->fill, sp->fill_len);
    memcpy(d, sign, sign_len);
    d += sign_len;
    for (size_t j = 0; j < inner; j++, d += sp->fill_len) memcpy(d, sp->fill, sp->fill_len);
    for (size_t j = 0; j < int_digits; j++) {
        if (separators && j && (int_digits - j) % 3 == 0) *d++ = sp->grouping;
        *d++ = body[j];
    }
    memcpy(d, body + int_digits, (size_t)body_len - int_digits);
    d += (size_t)body_len - int_digits;
    for (size_t j = 0; j < right; j++, d += sp->fill_len) memcpy(d, sp->fill, sp->fill_len);
    return d - buf;
}
