/*
 * stream.c - iter_render() and the walker under aiter_render(): a page
 * handed out in UTF-8 bytes chunks while it is rendered.
 *
 * The walker keeps its own stack of frames (an element whose children it
 * is going through, a list, an iterator, an async iterator), so it can stop
 * whenever the buffer holds a chunk and go on at the next call. What is
 * small and holds no Lazy child (most rows of a table) it hands whole to
 * the render walker (render.c); both write through one markup_writer, so
 * the chunks join into exactly what render_bytes() gives. A generator
 * child is taken item by item, so a table built from one streams in
 * constant memory. Each chunk holds at most chunk_size bytes, cut on a
 * UTF-8 character boundary so that it decodes on its own.
 *
 * For aiter_render() the walker stops at an awaitable or an async
 * iterator and hands it to the driver in markup/_stream.py, which awaits
 * it and gives the result back (_step, _give, _give_end).
 */
#include "state.h"

#define PM_STREAM_INITIAL_CAP 4096
/* An element with more elements below it than this is walked child by
   child; a smaller one is rendered whole, which is faster. */
#define PM_STREAM_DESCEND     64
/* The first chunk goes out once this much is ready (when chunk_size is
   larger): the head of a page reaches the browser, which starts loading
   its styles and scripts, before the body is rendered. */
#define PM_STREAM_FIRST_CHUNK 4096

enum { FRAME_ELEMENT, FRAME_SEQ, FRAME_ITER, FRAME_AITER };

typedef struct stream_frame {
    PyObject *owner; /* the element, list or tuple, iterator or async iterator */
    Py_ssize_t next; /* ELEMENT, SEQ: the next child */
    int depth;       /* the depth its children render at */
    uint8_t kind;    /* FRAME_* */
    uint8_t end_tag; /* ELEMENT: write the end tag when done (not a fragment) */
} stream_frame;

enum { STREAM_RUNNING, STREAM_DONE, STREAM_FAILED };
enum { STEP_CHUNK, STEP_END, STEP_AWAIT, STEP_ANEXT };

typedef struct pm_chunks {
    PyObject_HEAD pm_state *st;
    markup_buf buf; /* rendered and not yet handed out from `pos` on */
    size_t pos;
    size_t chunk; /* the largest chunk, in bytes (>= 1) */
    markup_writer w;
    pm_render_ctx ctx;
    stream_frame *frames;
    Py_ssize_t nframes, cap;
    PyObject *pending; /* a child to take next, at pending_depth */
    int pending_depth;
    PyObject *waiting; /* async: what the driver awaits next */
    uint8_t state;     /* STREAM_* */
    uint8_t is_async;  /* stop at awaitables instead of refusing them */
    uint8_t busy;      /* a step is running: no other may start */
    uint8_t awaiting;  /* async: STEP_AWAIT or STEP_ANEXT until _give answers */
    uint8_t sent;      /* a chunk went out: later ones are chunk bytes */
    int nested;        /* frames of lists, iterators and async iterators  */
    int calls;         /* callables in a row, each returning the next one */
} pm_chunks;

static inline int is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

/* The end of the chunk that starts at `pos`: at most `chunk` bytes, moved
   back to the start of a character. When one character is longer than
   `chunk` (chunk_size < 4), the chunk holds that whole character. */
static size_t chunk_end(const unsigned char *data, size_t len, size_t pos, size_t chunk) {
    if (len - pos <= chunk) return len;
    size_t end = pos + chunk;
    while (end > pos && is_continuation(data[end])) end--;
    if (end > pos) return end;
    end = pos + 1;
    while (end < len && is_continuation(data[end])) end++;
    return end;
}

/* ---- frames ------------------------------------------------------------- */

/* Lists in lists, iterators yielding iterators, callables returning
   callables: render() recurses for each and ends in a RecursionError; the
   walker, which does not recurse, ends there too instead of growing (a
   list that holds itself) or looping (f = lambda: f) without end. */
static int too_nested(const char *what) {
    PyErr_Format(PyExc_RecursionError,
                 "iter_render(): %s nested deeper than %d levels (a list that holds itself, "
                 "a callable that returns itself?)",
                 what, MARKUP_MAX_DEPTH);
    return -1;
}

static int push(pm_chunks *self, PyObject *owner, int kind, int depth, int end_tag) {
    if (kind != FRAME_ELEMENT && self->nested >= MARKUP_MAX_DEPTH)
        return too_nested("lists, iterators and async iterables");
    if (self->nframes == self->cap) {
        Py_ssize_t cap = self->cap ? 2 * self->cap : 16;
        stream_frame *frames = PyMem_Realloc(self->frames, (size_t)cap * sizeof *frames);
        if (frames == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        self->frames = frames;
        self->cap = cap;
    }
    self->frames[self->nframes++] =
        (stream_frame){Py_NewRef(owner), 0, depth, (uint8_t)kind, (uint8_t)end_tag};
    if (kind != FRAME_ELEMENT) self->nested++;
    return 0;
}

static void pop(pm_chunks *self) {
    stream_frame *f = &self->frames[--self->nframes];
    if (f->kind != FRAME_ELEMENT) self->nested--;
    Py_DECREF(f->owner);
}

/* Drops everything the walk holds: after the end, an error, or when the
   iterator is freed. */
static void release(pm_chunks *self) {
    while (self->nframes) pop(self);
    PyMem_Free(self->frames);
    self->frames = NULL;
    self->cap = 0;
    Py_CLEAR(self->pending);
    Py_CLEAR(self->waiting);
    markup_writer_dispose(&self->w);
}

/* Drops what the walk holds, as release(), and for a sync stream first
   closes the generators it was walking, innermost first, so that their
   finally blocks (a cursor's, a transaction's) run now, not whenever the
   tree that holds them is freed. Only generators: another iterator's
   close() may mean something else (a file's). An async stream's driver
   closes what it walks itself, where it runs the rest. Every generator is
   closed even if closing one fails; the first such error is raised, with
   an error already being raised as its context. Returns 0 or -1. */
static int release_closing(pm_chunks *self) {
    PyObject *gens = NULL;
    if (!self->is_async) {
        for (Py_ssize_t i = self->nframes - 1; i >= 0; i--) {
            PyObject *owner = self->frames[i].owner;
            if (self->frames[i].kind != FRAME_ITER || !PyGen_Check(owner)) continue;
            if (gens == NULL && (gens = PyList_New(0)) == NULL) break;
            if (PyList_Append(gens, owner) < 0) {
                Py_CLEAR(gens);
                break;
            }
        }
    }
    release(self);
    if (gens == NULL) return PyErr_Occurred() ? -1 : 0;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb); /* the error that stopped the walk, if any */
    PyObject *failed = NULL, *failed_value = NULL, *failed_tb = NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(gens); i++) {
        PyObject *r = PyObject_CallMethod(PyList_GET_ITEM(gens, i), "close", NULL);
        if (r != NULL) {
            Py_DECREF(r);
        } else if (failed == NULL) {
            PyErr_Fetch(&failed, &failed_value, &failed_tb);
        } else { /* a second failure: reported, not raised */
            PyErr_WriteUnraisable(PyList_GET_ITEM(gens, i));
        }
    }
    Py_DECREF(gens);
    if (failed == NULL) {
        PyErr_Restore(type, value, tb);
        return type ? -1 : 0;
    }
    if (type != NULL) {
        PyErr_NormalizeException(&type, &value, &tb);
        PyErr_NormalizeException(&failed, &failed_value, &failed_tb);
        if (tb) PyException_SetTraceback(value, tb);
        if (failed_value != value) {
            PyException_SetContext(failed_value, value); /* steals value */
        } else {
            Py_DECREF(value);
        }
        Py_DECREF(type);
        Py_XDECREF(tb);
    }
    PyErr_Restore(failed, failed_value, failed_tb);
    return -1;
}

/* ---- the walk ----------------------------------------------------------- */

static int wait_for(pm_chunks *self, PyObject *awaitable, int depth) {
    self->waiting = Py_NewRef(awaitable);
    self->pending_depth = depth;
    self->awaiting = STEP_AWAIT;
    return STEP_AWAIT;
}

/* The result of calling `callable` is taken next, as a child of its own:
   no C recursion however many callables return callables. */
static int call_later(pm_chunks *self, PyObject *callable, int depth) {
    if (++self->calls > MARKUP_MAX_DEPTH) return too_nested("callables returning callables");
    PyObject *value = PyObject_CallNoArgs(callable);
    if (value == NULL) return -1;
    Py_XSETREF(self->pending, value);
    self->pending_depth = depth;
    return 0;
}

/* Walks an async iterable's items, as `async for` would. */
static int push_async(pm_chunks *self, PyObject *iterable, int depth) {
    PyTypeObject *t = Py_TYPE(iterable);
    PyObject *it = t->tp_as_async->am_aiter(iterable);
    if (it == NULL) return -1;
    int r;
    if (Py_TYPE(it)->tp_as_async == NULL || Py_TYPE(it)->tp_as_async->am_anext == NULL) {
        PyErr_Format(PyExc_TypeError,
                     "__aiter__() of %.100s returned a %.100s, which has no __anext__", t->tp_name,
                     Py_TYPE(it)->tp_name);
        r = -1;
    } else {
        r = push(self, it, FRAME_AITER, depth, 0);
    }
    Py_DECREF(it);
    return r;
}

/* An iterator, callable, awaitable or async iterable met while walking
   (`kind`, from pm_lazy_kind): its items or result are walked in turn. */
static int take_dynamic(pm_chunks *self, PyObject *child, int kind, int depth) {
    switch (kind) {
    case PM_LAZY_ITER: return push(self, child, FRAME_ITER, depth, 0);
    case PM_LAZY_CALL: return call_later(self, child, depth);
    default:
        if (!self->is_async) return pm_async_child_error(child, 1);
        return kind == PM_LAZY_AWAIT ? wait_for(self, child, depth)
                                     : push_async(self, child, depth);
    }
}

/* Takes `child`, which stands at `depth`: renders it whole, or pushes a
   frame to walk it. Returns 0, STEP_AWAIT, or -1. */
static int take(pm_chunks *self, PyObject *child, int depth) {
    pm_state *st = self->st;
    pm_render_ctx *ctx = &self->ctx;
    PyTypeObject *type = Py_TYPE(child);
    ctx->plain = markup_writer_plain_buf(&self->w);
    if (type == st->element_type) {
        pm_element *el = (pm_element *)child;
        if (!(el->flags & PM_ELEMENT_LAZY) && el->nodes <= PM_STREAM_DESCEND)
            return pm_render_child(ctx, child, depth);
        if (pm_render_start(ctx, el, depth) < 0) return -1; /* nothing for a fragment */
        return push(self, child, FRAME_ELEMENT, depth + 1, !(el->flags & PM_ELEMENT_FRAGMENT));
    }
    if (type == st->lazy_type) {
        pm_lazy *lazy = (pm_lazy *)child;
        if ((lazy->kind == PM_LAZY_AWAIT || lazy->kind == PM_LAZY_AITER) && !self->is_async)
            return pm_async_child_error(lazy->source, 0); /* the element keeps it */
        if (pm_lazy_take(lazy, &self->w) < 0) return -1;
        return take_dynamic(self, lazy->source, lazy->kind, depth);
    }
    if (PyList_Check(child) || PyTuple_Check(child)) return push(self, child, FRAME_SEQ, depth, 0);
    /* Not wrapped in a Lazy: given to iter_render, returned by a callable,
       yielded by a generator. __html__ comes first, as in render.c. */
    if (type != &PyUnicode_Type && type != st->safestring_type && !PyUnicode_Check(child) &&
        !PyDict_Check(child) && !pm_is_stand_in(st, child)) {
        int kind = pm_lazy_kind(st, child);
        if (kind >= 0) {
            PyObject *method;
            int html = pm_lookup_html(st, child, &method);
            if (html < 0) return -1;
            if (html == 0) return take_dynamic(self, child, kind, depth);
            Py_DECREF(method);
        }
    }
    return pm_render_child(ctx, child, depth);
}

/* One step of the walk over the frame on top. Returns 0, STEP_END,
   STEP_AWAIT, STEP_ANEXT, or -1. */
static int step(pm_chunks *self) {
    if (self->pending) {
        PyObject *child = self->pending;
        self->pending = NULL;
        int r = take(self, child, self->pending_depth);
        Py_DECREF(child);
        if (self->pending == NULL) self->calls = 0; /* the chain ended */
        return r;
    }
    if (self->nframes == 0) return STEP_END;
    stream_frame *f = &self->frames[self->nframes - 1];
    PyObject *owner = f->owner;
    int depth = f->depth;
    PyObject *child;
    switch (f->kind) {
    case FRAME_ELEMENT: {
        pm_element *el = (pm_element *)owner;
        if (f->next < pm_element_nchildren(el)) {
            child = Py_NewRef(pm_element_children(el)[f->next++]);
            break;
        }
        /* The writer's frame points into the element's tag: the end tag is
           written while the frame still holds the element. */
        int r = f->end_tag ? pm_render_end(&self->ctx) : 0;
        pop(self);
        return r;
    }
    case FRAME_SEQ:
        /* Re-read the size: taking an item may run code that changes a list. */
        if (f->next < PySequence_Fast_GET_SIZE(owner)) {
            child = Py_NewRef(PySequence_Fast_GET_ITEM(owner, f->next));
            f->next++;
            break;
        }
        pop(self);
        return 0;
    case FRAME_ITER:
        child = PyIter_Next(owner);
        if (child == NULL) {
            if (PyErr_Occurred()) return -1;
            pop(self);
            return 0;
        }
        break;
    default: /* FRAME_AITER: the driver awaits its next item */
        self->waiting = Py_NewRef(owner);
        self->pending_depth = depth;
        self->awaiting = STEP_ANEXT;
        return STEP_ANEXT;
    }
    int r = take(self, child, depth);
    Py_DECREF(child);
    return r;
}

/* The size of the next chunk: chunk_size, or less for the first. */
static size_t next_size(const pm_chunks *self) {
    return self->sent || self->chunk < PM_STREAM_FIRST_CHUNK ? self->chunk : PM_STREAM_FIRST_CHUNK;
}

/* Walks until the buffer holds a whole chunk, the walk ends, or the
   driver must await something. Returns STEP_*, or -1. */
static int advance(pm_chunks *self) {
    if (self->state != STREAM_RUNNING) return STEP_END;
    while (self->buf.len - self->pos < next_size(self)) {
        int r = step(self);
        if (r == 0) continue;
        if (r < 0) {
            self->state = STREAM_FAILED;
            /* aiter_render's driver closes the async iterators still open
               (_open_async_iterators), then calls close(). */
            if (!self->is_async) (void)release_closing(self);
            markup_buf_free(&self->buf);
            self->pos = 0;
        } else if (r == STEP_END) {
            self->state = STREAM_DONE;
            release(self);
        }
        return r;
    }
    return STEP_CHUNK;
}

/* The next chunk out of the buffer (there must be one), which is then
   compacted once half of it was handed out. */
static PyObject *cut_chunk(pm_chunks *self) {
    const unsigned char *data = (const unsigned char *)self->buf.data;
    size_t end = chunk_end(data, self->buf.len, self->pos, next_size(self));
    self->sent = 1;
    PyObject *bytes =
        PyBytes_FromStringAndSize(self->buf.data + self->pos, (Py_ssize_t)(end - self->pos));
    if (bytes == NULL) return NULL;
    self->pos = end;
    if (self->pos == self->buf.len) {
        if (self->state == STREAM_RUNNING) {
            markup_buf_clear(&self->buf);
        } else {
            markup_buf_free(&self->buf); /* the last chunk: memory back now */
        }
        self->pos = 0;
    } else if (self->pos >= self->buf.len / 2) {
        memmove(self->buf.data, self->buf.data + self->pos, self->buf.len - self->pos);
        self->buf.len -= self->pos;
        self->pos = 0;
    }
    return bytes;
}

static int enter(pm_chunks *self) {
    if (self->busy) {
        PyErr_SetString(PyExc_ValueError,
                        "the render stream is already running (in another thread, or from "
                        "code it called)");
        return -1;
    }
    self->busy = 1;
    return 0;
}

/* A chunk, NULL at the end (without an exception), or NULL with one. In
   async mode *await_kind is set to STEP_AWAIT or STEP_ANEXT instead when
   self->waiting must be awaited first. */
static PyObject *next_chunk(pm_chunks *self, int *await_kind) {
    if (enter(self) < 0) return NULL;
    PyObject *result = NULL;
    int r = advance(self);
    if (r == STEP_AWAIT || r == STEP_ANEXT) {
        *await_kind = r;
    } else if (r >= 0 && self->pos < self->buf.len) {
        result = cut_chunk(self);
    }
    self->busy = 0;
    return result;
}

static PyObject *chunks_next(PyObject *op) {
    pm_chunks *self = (pm_chunks *)op;
    int await_kind = 0;
    PyObject *result;
#if PY_VERSION_HEX >= 0x030D0000
    Py_BEGIN_CRITICAL_SECTION(op);
#endif
    result = next_chunk(self, &await_kind);
#if PY_VERSION_HEX >= 0x030D0000
    Py_END_CRITICAL_SECTION();
#endif
    if (await_kind) { /* only an async stream stops to wait */
        PyErr_SetString(PyExc_TypeError, "this render stream is async: use aiter_render()");
        return NULL;
    }
    return result; /* NULL without an exception: StopIteration */
}

/* ---- the async driver's side ------------------------------------------ */

static PyObject *chunks_step(PyObject *op, PyObject *unused) {
    (void)unused;
    pm_chunks *self = (pm_chunks *)op;
    int await_kind = 0;
    PyObject *result = next_chunk(self, &await_kind);
    if (await_kind) {
        PyObject *waiting = self->waiting;
        self->waiting = NULL;
        result = Py_BuildValue("(iN)", await_kind == STEP_ANEXT, waiting);
    }
    if (result == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
    return result;
}

static PyObject *chunks_give(PyObject *op, PyObject *value) {
    pm_chunks *self = (pm_chunks *)op;
    if (self->state != STREAM_RUNNING || !self->awaiting) {
        PyErr_SetString(PyExc_RuntimeError, "_give(): the stream awaits nothing");
        return NULL;
    }
    self->awaiting = 0;
    Py_XSETREF(self->pending, Py_NewRef(value)); /* at the depth set when it stopped */
    Py_RETURN_NONE;
}

static PyObject *chunks_give_end(PyObject *op, PyObject *unused) {
    (void)unused;
    pm_chunks *self = (pm_chunks *)op;
    if (self->state != STREAM_RUNNING || self->awaiting != STEP_ANEXT || !self->nframes ||
        self->frames[self->nframes - 1].kind != FRAME_AITER) {
        PyErr_SetString(PyExc_RuntimeError, "_give_end(): the stream awaits no async item");
        return NULL;
    }
    self->awaiting = 0;
    pop(self);
    Py_RETURN_NONE;
}

static PyObject *chunks_open_async_iterators(PyObject *op, PyObject *unused) {
    (void)unused;
    pm_chunks *self = (pm_chunks *)op;
    PyObject *list = PyList_New(0);
    for (Py_ssize_t i = 0; list && i < self->nframes; i++) {
        if (self->frames[i].kind == FRAME_AITER && PyList_Append(list, self->frames[i].owner) < 0)
            Py_CLEAR(list);
    }
    return list;
}

static PyObject *chunks_close(PyObject *op, PyObject *unused) {
    (void)unused;
    pm_chunks *self = (pm_chunks *)op;
    if (self->busy) {
        PyErr_SetString(PyExc_ValueError, "the render stream is running");
        return NULL;
    }
    if (self->state == STREAM_RUNNING) self->state = STREAM_DONE;
    /* Emptied first: a generator's finally that asks for the next chunk
       gets none. */
    markup_buf_free(&self->buf);
    self->pos = 0;
    if (release_closing(self) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef chunks_methods[] = {
    {"_step", chunks_step, METH_NOARGS,
     "A chunk; None at the end; or (0, awaitable) / (1, async iterator) to await first."},
    {"_give", chunks_give, METH_O, "The awaited value (or async item) to render where it stood."},
    {"_give_end", chunks_give_end, METH_NOARGS, "The async iterator awaited last is exhausted."},
    {"_open_async_iterators", chunks_open_async_iterators, METH_NOARGS,
     "The async iterators being walked, outermost first."},
    {"close", chunks_close, METH_NOARGS, "Stop the stream and drop what it holds."},
    {NULL, NULL, 0, NULL},
};

/* ---- the type ----------------------------------------------------------- */

static int chunks_traverse(PyObject *op, visitproc visit, void *arg) {
    pm_chunks *self = (pm_chunks *)op;
    Py_VISIT(Py_TYPE(op));
    for (Py_ssize_t i = 0; i < self->nframes; i++) Py_VISIT(self->frames[i].owner);
    Py_VISIT(self->pending);
    Py_VISIT(self->waiting);
    return 0;
}

static int chunks_clear(PyObject *op) {
    pm_chunks *self = (pm_chunks *)op;
    if (self->busy) return 0;
    release(self);
    if (self->state == STREAM_RUNNING) self->state = STREAM_DONE;
    return 0;
}

static void chunks_dealloc(PyObject *op) {
    pm_chunks *self = (pm_chunks *)op;
    PyTypeObject *type = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    release(self);
    markup_buf_free(&self->buf);
    type->tp_free(op);
    Py_DECREF(type);
}

PyDoc_STRVAR(chunks_doc, "The UTF-8 bytes chunks of a page, rendered as they are asked for "
                         "(made by iter_render()).");

static PyType_Slot chunks_slots[] = {
    {Py_tp_dealloc, chunks_dealloc}, {Py_tp_traverse, chunks_traverse},
    {Py_tp_clear, chunks_clear},     {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, chunks_next},   {Py_tp_methods, chunks_methods},
    {Py_tp_doc, (void *)chunks_doc}, {0, NULL},
};

static PyType_Spec chunks_spec = {
    .name = "markup._core.RenderChunks",
    .basicsize = sizeof(pm_chunks),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC
#ifdef Py_TPFLAGS_IMMUTABLETYPE
             | Py_TPFLAGS_IMMUTABLETYPE
#endif
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
             | Py_TPFLAGS_DISALLOW_INSTANTIATION
#endif
    ,
    .slots = chunks_slots,
};

/* chunk_size as a size_t >= 1. An int (or any __index__ object) but not a
   bool; sizes beyond the address space mean "one chunk". */
static int parse_chunk_size(PyObject *obj, size_t *chunk, const char *func) {
    if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "%s(): chunk_size must be an int (a number of bytes), got %.100s", func,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *n = PyNumber_Index(obj);
    if (n == NULL) return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
    Py_DECREF(n);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow < 0 || (overflow == 0 && v <= 0)) {
        PyErr_Format(PyExc_ValueError,
                     "%s(): chunk_size must be a positive number of bytes, got %R", func, obj);
        return -1;
    }
    *chunk = (overflow > 0 || (unsigned long long)v > SIZE_MAX) ? SIZE_MAX : (size_t)v;
    return 0;
}

/* Whether the root is taken when the stream is made (1), or at the first
   step (0), or -1 on error. An element, a list or a tuple is walked from
   the first step; a lazy root (an iterator, a callable, an awaitable) and
   an object with __html__ (which may run a query) are taken when the
   caller starts iterating. Text, a number, and a value render() refuses
   are taken at once. */
static int take_root_now(pm_state *st, PyObject *node) {
    PyTypeObject *type = Py_TYPE(node);
    if (type == st->element_type || type == st->lazy_type || PyList_Check(node) ||
        PyTuple_Check(node))
        return 0;
    if (PyUnicode_Check(node) || PyDict_Check(node) || pm_is_stand_in(st, node)) return 1;
    if (pm_lazy_kind(st, node) >= 0) return 0;
    PyObject *method;
    int html = pm_lookup_html(st, node, &method);
    if (html > 0) Py_DECREF(method);
    return html < 0 ? -1 : !html;
}

static PyObject *new_stream(PyObject *module, PyObject *node, PyObject *chunk_obj, int is_async) {
    const char *func = is_async ? "aiter_render" : "iter_render";
    size_t chunk = 65536;
    if (chunk_obj != NULL && parse_chunk_size(chunk_obj, &chunk, func) < 0) return NULL;
    pm_state *st = pm_state_from_module(module);
    pm_chunks *self = PyObject_GC_New(pm_chunks, st->chunks_type);
    if (self == NULL) return NULL;
    self->st = st;
    markup_buf_init(&self->buf, &pm_pymem_alloc);
    self->pos = 0;
    self->chunk = chunk;
    markup_writer_init(&self->w, &self->buf, MARKUP_CONTEXT_HTML);
    markup_writer_skip_name_checks(&self->w); /* checked when the elements were built */
    self->ctx = (pm_render_ctx){.st = st, .buf = &self->buf, .w = &self->w};
    self->frames = NULL;
    self->nframes = self->cap = 0;
    self->pending = Py_NewRef(node);
    self->pending_depth = 0;
    self->waiting = NULL;
    self->state = STREAM_RUNNING;
    self->is_async = (uint8_t)is_async;
    self->busy = 0;
    self->awaiting = 0;
    self->sent = 0;
    self->nested = 0;
    self->calls = 0;
    PyObject_GC_Track(self);
    markup_status status = markup_buf_reserve(&self->buf, PM_STREAM_INITIAL_CAP);
    if (status != MARKUP_OK) {
        pm_raise_status(status, func);
        Py_DECREF(self);
        return NULL;
    }
    /* So a value render() refuses (bytes, a dict, a bool...) fails in the
       call that asked for the stream, while a web view can still answer
       with an error page, not after a server has sent the status line. */
    int now = take_root_now(st, node);
    if (now < 0) {
        Py_DECREF(self);
        return NULL;
    }
    if (now) {
        PyObject *root = self->pending;
        self->pending = NULL;
        self->busy = 1; /* the code it may run (an __html__) cannot reenter */
        int r = take(self, root, 0);
        self->busy = 0;
        Py_DECREF(root);
        if (r < 0) {
            Py_DECREF(self);
            return NULL;
        }
    }
    return (PyObject *)self;
}

static PyObject *pm_iter_render(PyObject *module, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"", "chunk_size", NULL};
    PyObject *node, *chunk_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:iter_render", kwlist, &node, &chunk_obj))
        return NULL;
    return new_stream(module, node, chunk_obj, 0);
}

static PyObject *pm_async_stream(PyObject *module, PyObject *args) {
    PyObject *node, *chunk_obj;
    if (!PyArg_ParseTuple(args, "OO:_async_stream", &node, &chunk_obj)) return NULL;
    return new_stream(module, node, chunk_obj, 1);
}

PyDoc_STRVAR(iter_render_doc,
             "iter_render(node, /, chunk_size=65536)\n--\n\n"
             "Render like render_bytes(), as an iterator of UTF-8 bytes chunks whose\n"
             "concatenation equals render_bytes(node), for streaming responses.\n"
             "\n"
             "The page is rendered as the chunks are asked for: a generator child is\n"
             "taken item by item, and an error is raised by the next() that meets it.\n"
             "Each chunk holds at most chunk_size bytes and ends on a character\n"
             "boundary, so it decodes on its own (a chunk_size below 4 may give a chunk\n"
             "of one whole character that is longer).");

static PyMethodDef stream_functions[] = {
    {"iter_render", (PyCFunction)(void (*)(void))pm_iter_render, METH_VARARGS | METH_KEYWORDS,
     iter_render_doc},
    {"_async_stream", pm_async_stream, METH_VARARGS,
     "_async_stream(node, chunk_size, /)\n--\n\nThe walker under aiter_render()."},
    {NULL, NULL, 0, NULL},
};

int pm_stream_init(PyObject *module, pm_state *st) {
    st->chunks_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &chunks_spec, NULL);
    if (st->chunks_type == NULL) return -1;
#ifndef Py_TPFLAGS_DISALLOW_INSTANTIATION
    /* Python 3.9: no flag yet, so drop the constructor inherited from object. */
    st->chunks_type->tp_new = NULL;
#endif
    if (PyModule_AddObjectRef(module, "RenderChunks", (PyObject *)st->chunks_type) < 0) return -1;
    return PyModule_AddFunctions(module, stream_functions);
}
