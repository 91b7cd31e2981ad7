/*
 * baked.c - the @baked decorator's C side: placeholders, the compiled
 * template type and the per-call path. (Work in progress.)
 */
#include "state.h"

int pm_baked_init(PyObject *module, pm_state *st) {
    (void)module;
    (void)st;
    return 0;
}
