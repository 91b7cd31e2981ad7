/*
 * namespace.c - the `h` namespace: one Tag factory per element of HTML,
 * SVG and MathML (h.Div, h.LinearGradient, ...), looked up through a small
 * cache by the name's address, with a suggestion for a misspelt name.
 */
#include "state.h"

/* ------------------------------------------------------------------------ */
/* The `h` namespace                                                          */
/* ------------------------------------------------------------------------ */

/* Recent lookups of h.<Name>, by the name's address. CPython cannot
   specialize attribute access on a type with its own getattr, so every
   h.Div in a loop comes here; the names are the caller's interned
   constants, and a pointer compare answers most of them without a dict
   lookup. Each entry holds references to its name and its factory. Not
   kept without a GIL. */
#define PM_LOOKUP_CACHE 32

typedef struct pm_namespace {
    PyObject_HEAD PyObject *factories; /* dict: "Div" -> Tag */
#ifndef Py_GIL_DISABLED
    PyObject *cached_name[PM_LOOKUP_CACHE];
    PyObject *cached_tag[PM_LOOKUP_CACHE];
#endif
} pm_namespace;

/* The elements of the HTML living standard; h.<Capitalized> for each. */
static const char *const html_elements[] = {
    "a",       "abbr",     "address",    "area",       "article",  "aside",    "audio",    "b",
    "base",    "bdi",      "bdo",        "blockquote", "body",     "br",       "button",   "canvas",
    "caption", "cite",     "code",       "col",        "colgroup", "data",     "datalist", "dd",
    "del",     "details",  "dfn",        "dialog",     "div",      "dl",       "dt",       "em",
    "embed",   "fieldset", "figcaption", "figure",     "footer",   "form",     "h1",       "h2",
    "h3",      "h4",       "h5",         "h6",         "head",     "header",   "hgroup",   "hr",
    "html",    "i",        "iframe",     "img",        "input",    "ins",      "kbd",      "label",
    "legend",  "li",       "link",       "main",       "map",      "mark",     "math",     "menu",
    "meta",    "meter",    "nav",        "noscript",   "object",   "ol",       "optgroup", "option",
    "output",  "p",        "picture",    "pre",        "progress", "q",        "rp",       "rt",
    "ruby",    "s",        "samp",       "script",     "search",   "section",  "select",   "slot",
    "small",   "source",   "span",       "strong",     "style",    "sub",      "summary",  "sup",
    "svg",     "table",    "tbody",      "td",         "template", "textarea", "tfoot",    "th",
    "thead",   "time",     "title",      "tr",         "track",    "u",        "ul",       "var",
    "video",   "wbr",
};

/* SVG 2's and MathML Core's elements, by their case-sensitive names:
   h.LinearGradient writes <linearGradient>, h.AnnotationXml
   <annotation-xml>. Those HTML has too (a, script, style, title, svg, math)
   keep their HTML factory: the writer applies the foreign-content rules
   from where an element stands, not from its factory. */
static const char *const svg_elements[] = {
    "animate",
    "animateMotion",
    "animateTransform",
    "circle",
    "clipPath",
    "defs",
    "desc",
    "ellipse",
    "feBlend",
    "feColorMatrix",
    "feComponentTransfer",
    "feComposite",
    "feConvolveMatrix",
    "feDiffuseLighting",
    "feDisplacementMap",
    "feDistantLight",
    "feDropShadow",
    "feFlood",
    "feFuncA",
    "feFuncB",
    "feFuncG",
    "feFuncR",
    "feGaussianBlur",
    "feImage",
    "feMerge",
    "feMergeNode",
    "feMorphology",
    "feOffset",
    "fePointLight",
    "feSpecularLighting",
    "feSpotLight",
    "feTile",
    "feTurbulence",
    "filter",
    "foreignObject",
    "g",
    "image",
    "line",
    "linearGradient",
    "marker",
    "mask",
    "metadata",
    "mpath",
    "path",
    "pattern",
    "polygon",
    "polyline",
    "radialGradient",
    "rect",
    "set",
    "stop",
    "switch",
    "symbol",
    "text",
    "textPath",
    "tspan",
    "use",
    "view",
};

static const char *const mathml_elements[] = {
    "annotation", "annotation-xml", "maction",     "merror",    "mfrac",
    "mi",         "mmultiscripts",  "mn",          "mo",        "mover",
    "mpadded",    "mphantom",       "mprescripts", "mroot",     "mrow",
    "ms",         "mspace",         "msqrt",       "mstyle",    "msub",
    "msubsup",    "msup",           "mtable",      "mtd",       "mtext",
    "mtr",        "munder",         "munderover",  "semantics",
};

static PM_NOINLINE PyObject *namespace_missing(pm_namespace *self, PyObject *name) {
    /* Suggest the right spelling: h.div -> h.Div, h.MyWidget ->
       Tag('my-widget'). */
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(name, &n);
    if (s == NULL) return NULL;
    if (n > 0 && s[0] != '_' && n < 64) {
        char camel[64], kebab[160];
        size_t k = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            char c = s[i];
            camel[i] = (char)(i == 0 && c >= 'a' && c <= 'z'
                                  ? c - 32
                                  : (i > 0 && c >= 'A' && c <= 'Z' ? c + 32 : c));
            if (c >= 'A' && c <= 'Z') {
                if (i > 0) kebab[k++] = '-';
                kebab[k++] = (char)(c + 32);
            } else {
                kebab[k++] = (char)(c == '_' ? '-' : c);
            }
        }
        PyObject *alt = PyUnicode_FromStringAndSize(camel, n);
        if (alt == NULL) return NULL;
        int known = PyDict_Contains(self->factories, alt);
        if (known > 0 && PyUnicode_Compare(alt, name) != 0) {
            PyErr_Format(PyExc_AttributeError,
                         "h has no element %R; element factories are capitalized: h.%U", name, alt);
            Py_DECREF(alt);
            return NULL;
        }
        Py_DECREF(alt);
        if (known < 0) return NULL;
        if (markup_html_check_tag(kebab, k, NULL, NULL) == MARKUP_OK) {
            PyObject *custom = PyUnicode_FromStringAndSize(kebab, (Py_ssize_t)k);
            if (custom == NULL) return NULL;
            PyErr_Format(PyExc_AttributeError,
                         "h has no element %R (h has the elements of the HTML standard); for "
                         "a custom element use Tag(%R)",
                         name, custom);
            Py_DECREF(custom);
            return NULL;
        }
    }
    PyErr_Format(PyExc_AttributeError,
                 "h has no element %R; for a custom element use Tag(\"name\")", name);
    return NULL;
}

static PyObject *namespace_getattro(pm_namespace *self, PyObject *name) {
#ifndef Py_GIL_DISABLED
    uint64_t h = pm_pointer_hash(name);
    size_t slot = (size_t)(h >> 32) % PM_LOOKUP_CACHE;
    if (self->cached_name[slot] == name) return Py_NewRef(self->cached_tag[slot]);
#endif
    if (self->factories == NULL) return PyObject_GenericGetAttr((PyObject *)self, name);
    PyObject *tag = PyDict_GetItemWithError(self->factories, name);
    if (tag != NULL) {
#ifndef Py_GIL_DISABLED
        PyObject *old_name = self->cached_name[slot], *old_tag = self->cached_tag[slot];
        self->cached_name[slot] = Py_NewRef(name);
        self->cached_tag[slot] = Py_NewRef(tag);
        Py_XDECREF(old_name);
        Py_XDECREF(old_tag);
#endif
        return Py_NewRef(tag);
    }
    if (PyErr_Occurred()) return NULL;
    PyObject *r = PyObject_GenericGetAttr((PyObject *)self, name);
    if (r != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
    PyErr_Clear();
    return namespace_missing(self, name);
}

static PyObject *namespace_dir(pm_namespace *self, PyObject *unused) {
    (void)unused;
    if (self->factories == NULL) return PyList_New(0);
    PyObject *names = PyDict_Keys(self->factories);
    if (names != NULL && PyList_Sort(names) < 0) Py_CLEAR(names);
    return names;
}

static PyObject *namespace_repr(pm_namespace *self) {
    (void)self;
    return PyUnicode_FromString("<markup.h: h.Div, h.Span, ... one factory per HTML element>");
}

static int namespace_traverse(pm_namespace *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->factories);
#ifndef Py_GIL_DISABLED
    for (size_t i = 0; i < PM_LOOKUP_CACHE; i++) Py_VISIT(self->cached_tag[i]);
#endif
    return 0;
}

static int namespace_clear(pm_namespace *self) {
    Py_CLEAR(self->factories);
#ifndef Py_GIL_DISABLED
    for (size_t i = 0; i < PM_LOOKUP_CACHE; i++) {
        Py_CLEAR(self->cached_name[i]);
        Py_CLEAR(self->cached_tag[i]);
    }
#endif
    return 0;
}

static void namespace_dealloc(pm_namespace *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    namespace_clear(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyMethodDef namespace_methods[] = {
    {"__dir__", (PyCFunction)namespace_dir, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot namespace_slots[] = {
    {Py_tp_getattro, namespace_getattro},
    {Py_tp_dealloc, namespace_dealloc},
    {Py_tp_traverse, namespace_traverse},
    {Py_tp_clear, namespace_clear},
    {Py_tp_repr, namespace_repr},
    {Py_tp_methods, namespace_methods},
    {Py_tp_doc, (void *)"The element factories: h.Div, h.Span, ..., h.HtmlDocument."},
    {0, NULL},
};

static PyType_Spec namespace_spec = {
    .name = "markup.TagNamespace",
    .basicsize = sizeof(pm_namespace),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC
#ifdef Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_IMMUTABLETYPE
#endif
    ,
    .slots = namespace_slots,
};

static int add_factory(pm_state *st, const char *tag_name, const char *attr, uint8_t flags) {
    PyObject *name = PyUnicode_FromString(tag_name);
    PyObject *key = PyUnicode_InternFromString(attr);
    PyObject *label = PyUnicode_FromFormat("h.%s", attr);
    PyObject *tag = NULL;
    int r = -1;
    if (name != NULL && key != NULL && label != NULL) {
        tag = pm_tag_create(st, st->tag_type, name, label, flags);
        if (tag != NULL) r = PyDict_SetItem(st->factories, key, tag);
    }
    Py_XDECREF(name);
    Py_XDECREF(key);
    Py_XDECREF(label);
    Py_XDECREF(tag);
    return r;
}

/* h.<Name> for foreign elements: the first letter capitalized and each
   "-x" as "X" (annotation-xml -> AnnotationXml); the name is kept as is. */
static int add_foreign_factories(pm_state *st, const char *const *names, size_t count) {
    for (size_t i = 0; i < count; i++) {
        char attr[32];
        size_t k = 0;
        for (const char *c = names[i]; *c != '\0' && k + 1 < sizeof attr; c++) {
            if (*c == '-') continue;
            int upper = c == names[i] || c[-1] == '-';
            attr[k++] = (char)(upper && *c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
        }
        attr[k] = '\0';
        if (add_factory(st, names[i], attr, 0) < 0) return -1;
    }
    return 0;
}

int pm_namespace_init(PyObject *module, pm_state *st) {
    if (pm_add_type(module, &st->namespace_type, &namespace_spec, NULL) < 0) return -1;
    /* 3.9 has no Py_TPFLAGS_DISALLOW_INSTANTIATION: `h` is the one instance. */
    st->namespace_type->tp_new = NULL;

    st->factories = PyDict_New();
    if (st->factories == NULL) return -1;
    for (size_t i = 0; i < sizeof html_elements / sizeof html_elements[0]; i++) {
        char camel[32];
        size_t n = strlen(html_elements[i]);
        memcpy(camel, html_elements[i], n + 1);
        camel[0] = (char)(camel[0] - 'a' + 'A');
        if (add_factory(st, html_elements[i], camel, 0) < 0) return -1;
    }
    if (add_foreign_factories(st, svg_elements, sizeof svg_elements / sizeof svg_elements[0]) < 0 ||
        add_foreign_factories(st, mathml_elements,
                              sizeof mathml_elements / sizeof mathml_elements[0]) < 0)
        return -1;
    if (add_factory(st, "html", "HtmlDocument", PM_ELEMENT_DOCTYPE) < 0) return -1;
    /* Its tag name is never written; it only names the fragment in errors. */
    if (add_factory(st, "fragment", "Fragment", PM_ELEMENT_FRAGMENT) < 0) return -1;

    pm_namespace *h = PyObject_GC_New(pm_namespace, st->namespace_type);
    if (h == NULL) return -1;
    h->factories = Py_NewRef(st->factories);
#ifndef Py_GIL_DISABLED
    memset(h->cached_name, 0, sizeof h->cached_name);
    memset(h->cached_tag, 0, sizeof h->cached_tag);
#endif
    PyObject_GC_Track(h);
    st->h = (PyObject *)h;
    return PyModule_AddObjectRef(module, "h", st->h);
}
