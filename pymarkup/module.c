/*
 * module.c - markup._core: multi-phase init, module state, GC. It sits on
 * top of the other files and only wires them together.
 *
 * Everything the module owns lives in its state (pm_state), so that each
 * import (and each sub-interpreter) gets a fresh, independent module.
 */
#include "loop_iter.h"
#include "text_filters.h"
#include "state.h"

PyDoc_STRVAR(render_doc,
             "render(node, /, *nodes)\n--\n\n"
             "Render an element (or any child value: str, list, SafeString, ...) as HTML;\n"
             "several nodes are rendered one after the other.\n"
             "Returns a SafeString (a str that templates do not escape again). Text is\n"
             "escaped exactly as Jinja2 with autoescape does.");

PyDoc_STRVAR(render_bytes_doc, "render_bytes(node, /, *nodes)\n--\n\n"
                               "Render like render() but return UTF-8 bytes, ready to send.");

PyDoc_STRVAR(escape_doc, "escape(s, /)\n--\n\n"
                         "Escape & < > \" ' in str(s) and return a SafeString (markupsafe.escape\n"
                         "semantics: objects with __html__ are trusted and not escaped again).");

/* One node, or several rendered one after the other (as a fragment). */
static PyObject *render_nodes(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                              pm_output how, const char *name) {
    if (nargs == 1) return pm_render_as(pm_state_from_module(module), args[0], how);
    if (nargs == 0) {
        PyErr_Format(PyExc_TypeError, "%s() takes at least one node", name);
        return NULL;
    }
    PyObject *nodes = PyTuple_New(nargs);
    if (nodes == NULL) return NULL;
    for (Py_ssize_t i = 0; i < nargs; i++) PyTuple_SET_ITEM(nodes, i, Py_NewRef(args[i]));
    PyObject *out = pm_render_as(pm_state_from_module(module), nodes, how);
    Py_DECREF(nodes);
    return out;
}

static PyObject *render(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    return render_nodes(module, args, nargs, PM_OUTPUT_SAFESTRING, "render");
}

static PyObject *render_bytes(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    return render_nodes(module, args, nargs, PM_OUTPUT_BYTES, "render_bytes");
}

PyDoc_STRVAR(set_attr_joiners_doc,
             "_set_attr_joiners(class_joiner, style_joiner, /)\n--\n\n"
             "Install the rules for a list or mapping given as a class or style value:\n"
             "each callable takes the value and returns a str, None (no attribute) or a\n"
             "per-call template value. Called once by the markup package.");

static PyObject *set_attr_joiners(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyCallable_Check(args[0]) || !PyCallable_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "_set_attr_joiners() takes two callables");
        return NULL;
    }
    pm_state *st = pm_state_from_module(module);
    Py_XSETREF(st->class_joiner, Py_NewRef(args[0]));
    Py_XSETREF(st->style_joiner, Py_NewRef(args[1]));
    Py_RETURN_NONE;
}

PyDoc_STRVAR(eager_children_doc,
             "_eager_children(on, /)\n--\n\n"
             "While on, elements built in this thread take an iterator child's items at\n"
             "once (the stand-ins of a @baked builder must be iterated while it is\n"
             "traced) and refuse callable and awaitable children. Returns the previous\n"
             "setting.");

static PyObject *eager_children(PyObject *module, PyObject *on) {
    pm_state *st = pm_state_from_module(module);
    PyObject *d = PyThreadState_GetDict();
    if (d == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_eager_children(): no thread state dict");
        return NULL;
    }
    int was = pm_eager_children(st);
    if (was < 0) return NULL;
    if (PyDict_SetItem(d, st->str_eager, PyObject_IsTrue(on) ? Py_True : Py_False) < 0) return NULL;
    return PyBool_FromLong(was);
}

static PyMethodDef module_methods[] = {
    {"_eager_children", (PyCFunction)eager_children, METH_O, eager_children_doc},
    {"render", (PyCFunction)(void (*)(void))render, METH_FASTCALL, render_doc},
    {"render_bytes", (PyCFunction)(void (*)(void))render_bytes, METH_FASTCALL, render_bytes_doc},
    {"escape", (PyCFunction)pm_escape, METH_O, escape_doc},
    {"_wordcount", pm_wordcount, METH_O, "_wordcount(s, /)\n--\n\nThe number of words of s."},
    {"_title_ascii", pm_title_ascii, METH_O,
     "_title_ascii(s, /)\n--\n\nJinja2's title of an ASCII str, else None."},
    {"_strip_tags", pm_strip_tags, METH_O,
     "_strip_tags(s, /)\n--\n\ns without tags, whitespace collapsed."},
    {"_loop_changed", (PyCFunction)(void (*)(void))pm_loop_changed, METH_FASTCALL,
     "_loop_changed(record, *values, /)\n--\n\nloop.changed(*values) on a loop's record."},
    {"_set_attr_joiners", (PyCFunction)(void (*)(void))set_attr_joiners, METH_FASTCALL,
     set_attr_joiners_doc},
    {NULL, NULL, 0, NULL},
};

/* The template instruction set of binding.h, for markup/_template/ to
   compile with: each number is written once, in the header, and exported
   under its name without MARKUP_ (tests/python/test_program_table.py
   holds this list to the header). */
#define PM_CONST(name) {#name, MARKUP_##name}
static const struct {
    const char *name;
    long value;
} program_constants[] = {
    /* markup_op and its LOOP flag */
    PM_CONST(OP_STATIC),
    PM_CONST(OP_WRITE),
    PM_CONST(OP_IF),
    PM_CONST(OP_JUMP),
    PM_CONST(OP_LOOP),
    PM_CONST(OP_END_LOOP),
    PM_CONST(OP_PARAM),
    PM_CONST(OP_ITEM),
    PM_CONST(OP_LOOP_INFO),
    PM_CONST(OP_CYCLE),
    PM_CONST(OP_APPLY),
    PM_CONST(OP_NEWLINE),
    PM_CONST(OP_CAPTURE),
    PM_CONST(OP_END_CAPTURE),
    PM_CONST(OP_BREAK),
    PM_CONST(LOOP_LOOKAHEAD),
    /* markup_apply_kind */
    PM_CONST(APPLY_CONST),
    PM_CONST(APPLY_ATTR),
    PM_CONST(APPLY_ITEM),
    PM_CONST(APPLY_BINARY),
    PM_CONST(APPLY_COMPARE),
    PM_CONST(APPLY_FORMAT),
    PM_CONST(APPLY_CONCAT),
    PM_CONST(APPLY_LIST),
    PM_CONST(APPLY_TUPLE),
    PM_CONST(APPLY_DICT),
    PM_CONST(APPLY_SELECT),
    PM_CONST(APPLY_CALL),
    PM_CONST(APPLY_UNPACK),
    /* markup_binary_op */
    PM_CONST(BINARY_ADD),
    PM_CONST(BINARY_SUB),
    PM_CONST(BINARY_MUL),
    PM_CONST(BINARY_DIV),
    PM_CONST(BINARY_FLOORDIV),
    PM_CONST(BINARY_MOD),
    /* markup_compare_op */
    PM_CONST(COMPARE_LT),
    PM_CONST(COMPARE_LE),
    PM_CONST(COMPARE_EQ),
    PM_CONST(COMPARE_NE),
    PM_CONST(COMPARE_GT),
    PM_CONST(COMPARE_GE),
    PM_CONST(COMPARE_CONTAINS),
    /* markup_loop_field */
    PM_CONST(LOOP_INDEX),
    PM_CONST(LOOP_INDEX0),
    PM_CONST(LOOP_FIRST),
    PM_CONST(LOOP_LAST),
    PM_CONST(LOOP_LENGTH),
    PM_CONST(LOOP_REVINDEX),
    PM_CONST(LOOP_REVINDEX0),
    PM_CONST(LOOP_PREVITEM),
    PM_CONST(LOOP_NEXTITEM),
    PM_CONST(LOOP_CHANGES),
    /* pm_format_use (state.h) */
    {"FORMAT_VALUE", PM_FORMAT_VALUE},
    {"FORMAT_JOINED", PM_FORMAT_JOINED},
    {"FORMAT_WRITTEN", PM_FORMAT_WRITTEN},
};
#undef PM_CONST

static int module_exec(PyObject *module) {
    pm_state *st = pm_state_from_module(module);

    st->str_html = PyUnicode_InternFromString("__html__");
    if (st->str_html == NULL) return -1;
    st->str_class = PyUnicode_InternFromString("class");
    if (st->str_class == NULL) return -1;
    st->str_value = PyUnicode_InternFromString("value");
    st->str_conversion = PyUnicode_InternFromString("conversion");
    st->str_format_spec = PyUnicode_InternFromString("format_spec");
    if (!st->str_value || !st->str_conversion || !st->str_format_spec) return -1;
    st->str_style = PyUnicode_InternFromString("style");
    if (st->str_style == NULL) return -1;
    st->str_eager = PyUnicode_InternFromString("markup._core.eager_children");
    if (st->str_eager == NULL) return -1;
    st->kwname_cache = PyDict_New();
    if (st->kwname_cache == NULL) return -1;

    PyObject *abc = PyImport_ImportModule("collections.abc");
    if (abc == NULL) return -1;
    st->mapping_abc = PyObject_GetAttrString(abc, "Mapping");
    Py_DECREF(abc);
    if (st->mapping_abc == NULL) return -1;

    if (pm_safestring_init(module, st) < 0) return -1;
    if (pm_element_init(module, st) < 0) return -1;
    if (pm_lazy_init(module, st) < 0) return -1;
    if (pm_tag_init(module, st) < 0) return -1;
    if (pm_namespace_init(module, st) < 0) return -1;
    if (pm_compile_init(module, st) < 0) return -1;
    if (pm_baked_init(module, st) < 0) return -1;
    if (pm_baked_compile_init(module) < 0) return -1;
    if (pm_stream_init(module, st) < 0) return -1;
    if (pm_jinja_init(module, st) < 0) return -1;
    if (pm_scan_init(module, st) < 0) return -1;
    if (pm_tstring_init(module, st) < 0) return -1;

    if (PyModule_AddIntConstant(module, "MAX_DEPTH", MARKUP_MAX_DEPTH) < 0) return -1;
    for (size_t i = 0; i < sizeof program_constants / sizeof *program_constants; i++) {
        if (PyModule_AddIntConstant(module, program_constants[i].name, program_constants[i].value) <
            0)
            return -1;
    }
    if (PyModule_AddStringConstant(module, "libmarkup_version", markup_version()) < 0) return -1;
    if (PyModule_AddStringConstant(module, "_RAW_PER_CALL_ADVICE", PM_RAW_PER_CALL_ADVICE) < 0)
        return -1;
    return 0;
}

static int module_traverse(PyObject *module, visitproc visit, void *arg) {
    pm_state *st = pm_state_from_module(module);
    if (st == NULL) return 0;
    Py_VISIT(st->element_type);
    Py_VISIT(st->tag_type);
    Py_VISIT(st->namespace_type);
    Py_VISIT(st->comment_type);
    Py_VISIT(st->safestring_type);
    Py_VISIT(st->lazy_type);
    Py_VISIT(st->stand_in_type);
    Py_VISIT(st->baked_type);
    Py_VISIT(st->program_builder_type);
    Py_VISIT(st->chunks_type);
    Py_VISIT(st->safestring_refs);
    Py_VISIT(st->h);
    Py_VISIT(st->factories);
    Py_VISIT(st->kwname_cache);
    Py_VISIT(st->mapping_abc);
    Py_VISIT(st->class_joiner);
    Py_VISIT(st->style_joiner);
    Py_VISIT(st->tstring_cache);
    Py_VISIT(st->tstring_slow);
    Py_VISIT(st->tstring_tracing);
    Py_VISIT(st->template_type);
    Py_VISIT(st->interpolation_type);
    return 0;
}

static int module_clear(PyObject *module) {
    pm_state *st = pm_state_from_module(module);
    if (st == NULL) return 0;
    Py_CLEAR(st->element_type);
    Py_CLEAR(st->tag_type);
    Py_CLEAR(st->namespace_type);
    Py_CLEAR(st->comment_type);
    Py_CLEAR(st->safestring_type);
    Py_CLEAR(st->lazy_type);
    Py_CLEAR(st->stand_in_type);
    Py_CLEAR(st->baked_type);
    Py_CLEAR(st->program_builder_type);
    Py_CLEAR(st->chunks_type);
    Py_CLEAR(st->safestring_refs);
    Py_CLEAR(st->h);
    Py_CLEAR(st->factories);
    Py_CLEAR(st->kwname_cache);
    Py_CLEAR(st->mapping_abc);
    Py_CLEAR(st->str_html);
    Py_CLEAR(st->str_class);
    Py_CLEAR(st->str_value);
    Py_CLEAR(st->str_conversion);
    Py_CLEAR(st->str_format_spec);
    Py_CLEAR(st->str_style);
    Py_CLEAR(st->str_eager);
    Py_CLEAR(st->class_joiner);
    Py_CLEAR(st->style_joiner);
    Py_CLEAR(st->tstring_cache);
    Py_CLEAR(st->tstring_slow);
    Py_CLEAR(st->tstring_tracing);
    Py_CLEAR(st->template_type);
    Py_CLEAR(st->interpolation_type);
    Py_CLEAR(st->str_strings);
    Py_CLEAR(st->str_interpolations);
    Py_CLEAR(st->str_fn);
    Py_CLEAR(st->str_joined_at);
    Py_CLEAR(st->str_dict);
    Py_CLEAR(st->str_sessions);
    for (size_t i = 0; i < PM_NAME_CACHE; i++) Py_CLEAR(st->valid_names[i]);
    return 0;
}

static void module_free(void *module) { (void)module_clear((PyObject *)module); }

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, (void *)module_exec},
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
    /* No Py_mod_gil: nothing here has run without a GIL (no free-threaded
       CPython is at hand), and the audit in docs/design.md lists what would
       need a critical section first. A free-threaded interpreter therefore
       turns its GIL on when markup is imported. */
    {0, NULL},
};

PyDoc_STRVAR(module_doc,
             "markup._core: the C side of markup (element factories, render, SafeString).\n"
             "Import from `markup`, not from here.");

PyModuleDef pm_module_def = {
    PyModuleDef_HEAD_INIT,         .m_name = "markup._core",    .m_doc = module_doc,
    .m_size = sizeof(pm_state),    .m_methods = module_methods, .m_slots = module_slots,
    .m_traverse = module_traverse, .m_clear = module_clear,     .m_free = module_free,
};

PyMODINIT_FUNC PyInit__core(void);
PyMODINIT_FUNC PyInit__core(void) { return PyModuleDef_Init(&pm_module_def); }
