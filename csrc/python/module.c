/* The Python binding: the `gameanim` module, its Animation and Track types
 * and the exceptions.  The only file that includes Python.h; built with
 * Py_LIMITED_API 3.11 so one abi3 binary loads in every Blender from 3.4
 * (Debian, Python 3.11) to 5.x. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#ifndef _WIN32
#include <sys/stat.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "gameanim.h"
#include "pose.h"

#define GAMEANIM_VERSION "0.1.0"

/* Py_SETREF is not part of the limited API. */
#define GA_SETREF(dst, src)         \
    do {                            \
        PyObject *_old = (PyObject *)(dst); \
        (dst) = (src);              \
        Py_XDECREF(_old);           \
    } while (0)

/* ------------------------------------------------------------------ */
/* Module-level objects                                                */

static PyObject *FormatError;
static PyObject *EncodeError;
static PyObject *PrecisionWarning;
static PyObject *ArrayType;     /* array.array */
static PyTypeObject *TrackType;
static PyTypeObject *AnimationType;

static const char *const channel_names[4] = {"scale", "rotation", "translation", "rotation_quaternion"};
static const char *const loop_names[5] = {"once", "once_reset", "loop", "mirror_once", "mirror_loop"};

/* A message from the C core as str.  Messages quote names from files
 * (JBA bone names, BTK material names), which need not be UTF-8: bytes
 * that are not become \\xNN escapes instead of failing the call. */
static PyObject *message_text(const char *s)
{
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "backslashreplace");
}

/* Raises the Python exception for a ga_error. */
static PyObject *raise_error(const ga_error *e)
{
    PyObject *type;
    switch (e->code) {
    case GA_ERR_NOMEM:
        return PyErr_NoMemory();
    case GA_ERR_ENCODE:
        type = EncodeError;
        break;
    case GA_ERR_ARG:
        type = PyExc_ValueError;
        break;
    default:
        type = FormatError;
        break;
    }
    PyObject *msg = message_text(e->message);
    if (!msg) return NULL;
    PyObject *exc = PyObject_CallFunctionObjArgs(type, msg, NULL);
    Py_DECREF(msg);
    if (!exc) return NULL;
    PyObject *fmt = PyUnicode_FromString(e->format);
    PyObject *field = message_text(e->field);
    PyObject *off = e->offset >= 0 ? PyLong_FromLongLong(e->offset) : Py_NewRef(Py_None);
    if (fmt && field && off) {
        PyObject_SetAttrString(exc, "format", fmt);
        PyObject_SetAttrString(exc, "field", field);
        PyObject_SetAttrString(exc, "offset", off);
    }
    Py_XDECREF(fmt);
    Py_XDECREF(field);
    Py_XDECREF(off);
    PyErr_SetObject(type, exc);
    Py_DECREF(exc);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* array helpers                                                       */

/* One-item zero arrays ('f', 'i', 'B', 'd'): repeating one makes a new
 * array of any length without building a bytes object first. */
static PyObject *ZeroArrays[4];
static const char ZeroCodes[4] = {'f', 'i', 'B', 'd'};

/* A new array of n zero items of `code`, and its writable buffer in
 * *view (release it once the items are written). */
static PyObject *alloc_array(const char *code, Py_ssize_t n, Py_buffer *view)
{
    PyObject *zero = NULL;
    for (int i = 0; i < 4; i++)
        if (code[0] == ZeroCodes[i] && code[1] == 0) zero = ZeroArrays[i];
    if (!zero) {
        PyErr_Format(PyExc_SystemError, "no array code '%s'", code);
        return NULL;
    }
    PyObject *arr = PySequence_Repeat(zero, n);
    if (!arr) return NULL;
    if (PyObject_GetBuffer(arr, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

static PyObject *new_array(const char *code, const void *data, Py_ssize_t nbytes)
{
    Py_buffer view;
    Py_ssize_t item = code[0] == 'B' ? 1 : code[0] == 'd' ? 8 : 4;
    PyObject *arr = alloc_array(code, nbytes / item, &view);
    if (!arr) return NULL;
    if (nbytes) memcpy(view.buf, data, (size_t)nbytes);
    PyBuffer_Release(&view);
    return arr;
}

static int is_array_of(PyObject *obj, const char *code)
{
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)ArrayType)) return 0;
    PyObject *tc = PyObject_GetAttrString(obj, "typecode");
    if (!tc) {
        PyErr_Clear();
        return 0;
    }
    int ok = PyUnicode_CompareWithASCIIString(tc, code) == 0;
    Py_DECREF(tc);
    return ok;
}

/* Any iterable of numbers (or an array.array('f') as is) -> array of code. */
static PyObject *as_array(PyObject *obj, const char *code, const char *what)
{
    if (is_array_of(obj, code)) return Py_NewRef(obj);
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || PyByteArray_Check(obj)) {
        if (strcmp(code, "B") != 0 || PyUnicode_Check(obj)) {
            PyErr_Format(PyExc_TypeError, "%s must be a sequence of numbers, not %s", what,
                         PyUnicode_Check(obj) ? "str" : "bytes");
            return NULL;
        }
    }
    PyObject *arr = PyObject_CallFunction(ArrayType, "sO", code, obj);
    if (!arr) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of numbers (%S)", what, value ? value : Py_None);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
    }
    return arr;
}

/* Reads a C-contiguous buffer of the given item format. */
static int get_buffer(PyObject *obj, Py_buffer *view, const char *code, Py_ssize_t itemsize, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '@' || *f == '=' || *f == '<') f++;
    if (view->itemsize != itemsize || strcmp(f, code) != 0) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "%s: expected a buffer of '%s' items", what, code);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Track                                                               */

/* The decoded tracks of a loaded file, shared by its Animation and the
 * Track objects that still read their keys from them (no copy).  Counted
 * by hand (always under the GIL); not a Python object, so no reference
 * cycle between an Animation and its tracks. */
typedef struct track_store {
    Py_ssize_t refs;
    uint32_t ntracks;
    ga_track *tracks;
    void *key_block; /* the decoder's key block (ga_clip.key_block), if any */
} track_store;

typedef struct {
    PyObject_HEAD
    PyObject *target;
    int channel;
    int axis;
    PyObject *arrays[4]; /* times, values, in_slopes, out_slopes: array('f') */
    PyObject *interp;    /* array('B') */
    /* A decoded track keeps its keys in C until something asks for the
     * arrays: loading, sampling, baking or Track.bezier never build them.
     * `lazy` points at them: at the Animation's decoded track (shared
     * through `store`, which this track keeps alive) or at `own` (a track
     * made by copy() or fit()).  NULL once the arrays exist (then the
     * arrays are the truth). */
    const ga_track *lazy;
    track_store *store;
    ga_track *own;
} TrackObject;

/* The keys of a lazy track as a ga_track view (the arrays are borrowed:
 * ga_track_free on it frees nothing). */
static void lazy_view(const TrackObject *t, ga_track *v)
{
    memset(v, 0, sizeof *v);
    v->channel = (uint8_t)t->channel;
    v->axis = (uint8_t)t->axis;
    v->target = -1;
    v->nkeys = t->lazy->nkeys;
    v->time = t->lazy->time;
    v->value = t->lazy->value;
    v->in_slope = t->lazy->in_slope;
    v->out_slope = t->lazy->out_slope;
    v->interp = t->lazy->interp;
    v->borrowed = 1;
}

static void track_store_decref(track_store *s)
{
    if (!s || --s->refs > 0) return;
    for (uint32_t i = 0; i < s->ntracks; i++) ga_track_free(&s->tracks[i]);
    free(s->tracks);
    free(s->key_block);
    free(s);
}

/* Lets go of a lazy track's keys. */
static void track_drop_lazy(TrackObject *t)
{
    if (t->own) {
        ga_track_free(t->own);
        free(t->own);
    }
    track_store_decref(t->store);
    t->own = NULL;
    t->store = NULL;
    t->lazy = NULL;
}

/* Turns a lazy track's keys into its arrays (once). */
static int track_materialise(TrackObject *t)
{
    if (!t->lazy) return 0;
    ga_track v;
    lazy_view(t, &v);
    Py_ssize_t n = (Py_ssize_t)v.nkeys;
    PyObject *arrs[5];
    const float *src[4] = {v.time, v.value, v.in_slope, v.out_slope};
    for (int i = 0; i < 5; i++) {
        arrs[i] = i < 4 ? new_array("f", src[i], n * 4) : new_array("B", v.interp, n);
        if (!arrs[i]) {
            for (int j = 0; j < i; j++) Py_DECREF(arrs[j]);
            return -1;
        }
    }
    for (int i = 0; i < 4; i++) GA_SETREF(t->arrays[i], arrs[i]);
    GA_SETREF(t->interp, arrs[4]);
    track_drop_lazy(t);
    return 0;
}

static const char *const array_names[4] = {"times", "values", "in_slopes", "out_slopes"};

static int parse_channel(PyObject *obj, int *out)
{
    if (!PyUnicode_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "channel must be a str");
        return -1;
    }
    for (int i = 0; i < 4; i++)
        if (PyUnicode_CompareWithASCIIString(obj, channel_names[i]) == 0) {
            *out = i;
            return 0;
        }
    PyErr_Format(PyExc_ValueError,
                 "channel must be 'scale', 'rotation', 'translation' or 'rotation_quaternion', not %R", obj);
    return -1;
}

static int check_axis(int channel, long axis)
{
    long max = channel == GA_CH_ROTATION_QUATERNION ? 3 : 2;
    if (axis < 0 || axis > max) {
        PyErr_Format(PyExc_ValueError, "axis must be 0..%ld for channel '%s', not %ld", max,
                     channel_names[channel], axis);
        return -1;
    }
    return 0;
}

static int check_target(PyObject *t)
{
    if (PyUnicode_Check(t)) return 0;
    if (PyLong_Check(t)) {
        long long v = PyLong_AsLongLong(t);
        if (v == -1 && PyErr_Occurred()) return -1;
        if (v < 0 || v > 0x7FFFFFFF) {
            PyErr_SetString(PyExc_ValueError, "target index must be 0..2147483647");
            return -1;
        }
        return 0;
    }
    PyErr_SetString(PyExc_TypeError, "target must be an int (index / id) or a str (name)");
    return -1;
}

static TrackObject *track_alloc(void)
{
    allocfunc alloc = (allocfunc)PyType_GetSlot(TrackType, Py_tp_alloc);
    TrackObject *t = (TrackObject *)alloc(TrackType, 0);
    return t;
}

static void Track_dealloc(PyObject *self)
{
    TrackObject *t = (TrackObject *)self;
    Py_XDECREF(t->target);
    for (int i = 0; i < 4; i++) Py_XDECREF(t->arrays[i]);
    Py_XDECREF(t->interp);
    track_drop_lazy(t);
    PyTypeObject *tp = Py_TYPE(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

/* A Track object for a C track's target, channel and axis (no keys yet). */
static TrackObject *track_head(const ga_track *c)
{
    TrackObject *t = track_alloc();
    if (!t) return NULL;
    t->channel = c->channel;
    t->axis = c->axis;
    if (c->target_name) {
        t->target = PyUnicode_DecodeUTF8(c->target_name, (Py_ssize_t)strlen(c->target_name), "surrogateescape");
    } else {
        t->target = PyLong_FromLong(c->target);
    }
    if (!t->target) {
        Py_DECREF(t);
        return NULL;
    }
    return t;
}

/* Builds a Track object from a C track (copies the keys; the arrays are
 * made on first access). */
static PyObject *track_from_c(const ga_track *c)
{
    TrackObject *t = track_head(c);
    if (!t) return NULL;
    ga_error err;
    t->own = malloc(sizeof *t->own);
    if (!t->own || ga_track_copy(t->own, c, &err)) {
        free(t->own);
        t->own = NULL;
        Py_DECREF(t);
        return PyErr_NoMemory();
    }
    t->lazy = t->own;
    return (PyObject *)t;
}

/* A Track object reading track i of a shared store (no copy). */
static PyObject *track_from_store(track_store *s, uint32_t i)
{
    TrackObject *t = track_head(&s->tracks[i]);
    if (!t) return NULL;
    s->refs++;
    t->store = s;
    t->lazy = &s->tracks[i];
    return (PyObject *)t;
}

static PyObject *Track_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"target", "channel", "axis", "times", "values", "in_slopes", "out_slopes",
                             "interpolation", NULL};
    PyObject *target, *channel, *times = NULL, *values = NULL, *ins = NULL, *outs = NULL, *interp = NULL;
    int axis;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOi|OOOOO:Track", kwlist, &target, &channel, &axis, &times,
                                     &values, &ins, &outs, &interp))
        return NULL;
    int ch;
    if (check_target(target) < 0 || parse_channel(channel, &ch) < 0 || check_axis(ch, axis) < 0) return NULL;
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    TrackObject *t = (TrackObject *)alloc(type, 0);
    if (!t) return NULL;
    t->target = Py_NewRef(target);
    t->channel = ch;
    t->axis = axis;
    PyObject *given[4] = {times, values, ins, outs};
    Py_ssize_t n = -1;
    for (int i = 0; i < 2; i++) {
        PyObject *src = given[i] ? given[i] : PyTuple_New(0);
        if (!src) goto fail;
        t->arrays[i] = as_array(src, "f", array_names[i]);
        if (!given[i]) Py_DECREF(src);
        if (!t->arrays[i]) goto fail;
    }
    n = PyObject_Length(t->arrays[0]);
    if (PyObject_Length(t->arrays[1]) != n) {
        PyErr_Format(PyExc_ValueError, "times has %zd keys but values has %zd", n, PyObject_Length(t->arrays[1]));
        goto fail;
    }
    for (int i = 2; i < 4; i++) {
        if (given[i] && given[i] != Py_None) {
            t->arrays[i] = as_array(given[i], "f", array_names[i]);
        } else {
            float *zeros = calloc((size_t)n + 1, sizeof(float));
            if (!zeros) {
                PyErr_NoMemory();
                goto fail;
            }
            t->arrays[i] = new_array("f", zeros, n * 4);
            free(zeros);
        }
        if (!t->arrays[i]) goto fail;
        if (PyObject_Length(t->arrays[i]) != n) {
            PyErr_Format(PyExc_ValueError, "%s has %zd keys but times has %zd", array_names[i],
                         PyObject_Length(t->arrays[i]), n);
            goto fail;
        }
    }
    if (interp && interp != Py_None) {
        if (PyLong_Check(interp)) {
            long code = PyLong_AsLong(interp);
            if (code < 0 || code > 2) {
                PyErr_SetString(PyExc_ValueError, "interpolation must be CONSTANT (0), LINEAR (1) or BEZIER (2)");
                goto fail;
            }
            uint8_t *codes = malloc((size_t)n + 1);
            if (!codes) {
                PyErr_NoMemory();
                goto fail;
            }
            memset(codes, (int)code, (size_t)n);
            t->interp = new_array("B", codes, n);
            free(codes);
        } else {
            t->interp = as_array(interp, "B", "interpolation");
        }
    } else {
        /* Slopes given: a smooth curve.  Otherwise straight lines. */
        uint8_t code = (ins && ins != Py_None) || (outs && outs != Py_None) ? GA_INTERP_BEZIER : GA_INTERP_LINEAR;
        uint8_t *codes = malloc((size_t)n + 1);
        if (!codes) {
            PyErr_NoMemory();
            goto fail;
        }
        memset(codes, code, (size_t)n);
        t->interp = new_array("B", codes, n);
        free(codes);
    }
    if (!t->interp) goto fail;
    if (PyObject_Length(t->interp) != n) {
        PyErr_Format(PyExc_ValueError, "interpolation has %zd keys but times has %zd", PyObject_Length(t->interp), n);
        goto fail;
    }
    return (PyObject *)t;
fail:
    Py_DECREF(t);
    return NULL;
}

/* A Track as a C track.  Keys of a lazy track that reads `share` (the
 * calling Animation's own store) are borrowed; anything else is copied. */
static int track_to_c(PyObject *obj, Py_ssize_t index, ga_track *c, const track_store *share)
{
    memset(c, 0, sizeof *c);
    if (!PyObject_TypeCheck(obj, TrackType)) {
        PyErr_Format(PyExc_TypeError, "tracks[%zd] is not a gameanim.Track", index);
        return -1;
    }
    TrackObject *t = (TrackObject *)obj;
    c->channel = (uint8_t)t->channel;
    c->axis = (uint8_t)t->axis;
    if (PyUnicode_Check(t->target)) {
        PyObject *b = PyUnicode_AsEncodedString(t->target, "utf-8", "surrogateescape");
        if (!b) return -1;
        char *s;
        Py_ssize_t len;
        PyBytes_AsStringAndSize(b, &s, &len);
        if ((size_t)len > GA_MAX_STRING || memchr(s, 0, (size_t)len)) {
            Py_DECREF(b);
            PyErr_Format(PyExc_ValueError, "tracks[%zd]: target name is too long or contains NUL", index);
            return -1;
        }
        c->target_name = ga_strdup(s);
        Py_DECREF(b);
        if (!c->target_name) {
            PyErr_NoMemory();
            return -1;
        }
        c->target = -1;
    } else {
        c->target = (int32_t)PyLong_AsLong(t->target);
    }
    if (t->lazy) {
        /* decoded keys, valid by construction */
        ga_track v;
        lazy_view(t, &v);
        if (share && t->store == share) {
            /* the caller's own store, which outlives the call (the GIL may be
             * released meanwhile): a view, no copy; the clip is only read and
             * ga_track_free leaves borrowed arrays alone */
            c->nkeys = v.nkeys;
            c->time = (float *)v.time;
            c->value = (float *)v.value;
            c->in_slope = (float *)v.in_slope;
            c->out_slope = (float *)v.out_slope;
            c->interp = (uint8_t *)v.interp;
            c->borrowed = 1;
            return 0;
        }
        ga_error err;
        if (ga_track_alloc(c, v.nkeys, &err)) {
            ga_track_free(c);
            PyErr_NoMemory();
            return -1;
        }
        size_t n = v.nkeys;
        if (n) {
            memcpy(c->time, v.time, n * 4);
            memcpy(c->value, v.value, n * 4);
            memcpy(c->in_slope, v.in_slope, n * 4);
            memcpy(c->out_slope, v.out_slope, n * 4);
            memcpy(c->interp, v.interp, n);
        }
        return 0;
    }
    Py_buffer views[5];
    int got = 0;
    Py_ssize_t n = -1;
    int rc = -1;
    for (int i = 0; i < 4; i++) {
        if (get_buffer(t->arrays[i], &views[i], "f", 4, array_names[i]) < 0) goto done;
        got++;
        Py_ssize_t len = views[i].len / 4;
        if (n < 0) n = len;
        else if (len != n) {
            PyErr_Format(PyExc_ValueError, "tracks[%zd]: %s has %zd keys but times has %zd", index, array_names[i],
                         len, n);
            goto done;
        }
    }
    if (get_buffer(t->interp, &views[4], "B", 1, "interpolation") < 0) goto done;
    got++;
    if (views[4].len != n) {
        PyErr_Format(PyExc_ValueError, "tracks[%zd]: interpolation has %zd keys but times has %zd", index,
                     views[4].len, n);
        goto done;
    }
    if ((size_t)n > GA_MAX_KEYS_TOTAL) {
        PyErr_Format(PyExc_ValueError, "tracks[%zd]: %zd keys exceed the limit", index, n);
        goto done;
    }
    ga_error err;
    if (ga_track_alloc(c, (uint32_t)n, &err)) {
        PyErr_NoMemory();
        goto done;
    }
    float *dst[4] = {c->time, c->value, c->in_slope, c->out_slope};
    for (int i = 0; i < 4; i++) memcpy(dst[i], views[i].buf, (size_t)n * 4);
    memcpy(c->interp, views[4].buf, (size_t)n);
    for (Py_ssize_t k = 0; k < n; k++)
        if (c->interp[k] > GA_INTERP_BEZIER) {
            PyErr_Format(PyExc_ValueError, "tracks[%zd]: interpolation code %u at key %zd is not 0, 1 or 2", index,
                         c->interp[k], k);
            goto done;
        }
    rc = 0;
done:
    for (int i = 0; i < got; i++) PyBuffer_Release(&views[i]);
    if (rc) ga_track_free(c);
    return rc;
}

static PyObject *Track_get_target(PyObject *self, void *c)
{
    (void)c;
    return Py_NewRef(((TrackObject *)self)->target);
}

static int Track_set_target(PyObject *self, PyObject *v, void *c)
{
    (void)c;
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete target");
        return -1;
    }
    if (check_target(v) < 0) return -1;
    GA_SETREF(((TrackObject *)self)->target, Py_NewRef(v));
    return 0;
}

static PyObject *Track_get_channel(PyObject *self, void *c)
{
    (void)c;
    return PyUnicode_FromString(channel_names[((TrackObject *)self)->channel]);
}

static int Track_set_channel(PyObject *self, PyObject *v, void *c)
{
    (void)c;
    TrackObject *t = (TrackObject *)self;
    int ch;
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete channel");
        return -1;
    }
    if (parse_channel(v, &ch) < 0 || check_axis(ch, t->axis) < 0) return -1;
    t->channel = ch;
    return 0;
}

static PyObject *Track_get_axis(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(((TrackObject *)self)->axis);
}

static int Track_set_axis(PyObject *self, PyObject *v, void *c)
{
    (void)c;
    TrackObject *t = (TrackObject *)self;
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete axis");
        return -1;
    }
    long a = PyLong_AsLong(v);
    if (a == -1 && PyErr_Occurred()) return -1;
    if (check_axis(t->channel, a) < 0) return -1;
    t->axis = (int)a;
    return 0;
}

static PyObject *Track_get_array(PyObject *self, void *c)
{
    intptr_t i = (intptr_t)c;
    TrackObject *t = (TrackObject *)self;
    if (track_materialise(t) < 0) return NULL;
    return Py_NewRef(i == 4 ? t->interp : t->arrays[i]);
}

static int Track_set_array(PyObject *self, PyObject *v, void *c)
{
    intptr_t i = (intptr_t)c;
    TrackObject *t = (TrackObject *)self;
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete key arrays");
        return -1;
    }
    if (track_materialise(t) < 0) return -1;
    PyObject *arr = as_array(v, i == 4 ? "B" : "f", i == 4 ? "interpolation" : array_names[i]);
    if (!arr) return -1;
    if (i == 4) GA_SETREF(t->interp, arr);
    else GA_SETREF(t->arrays[i], arr);
    return 0;
}

static Py_ssize_t Track_len(PyObject *self)
{
    TrackObject *t = (TrackObject *)self;
    if (t->lazy) return (Py_ssize_t)t->lazy->nkeys;
    return PyObject_Length(t->arrays[0]);
}

static PyObject *Track_repr(PyObject *self)
{
    TrackObject *t = (TrackObject *)self;
    Py_ssize_t n = Track_len(self);
    if (n < 0) return NULL;
    return PyUnicode_FromFormat("<gameanim.Track target=%R %s[%d] %zd keys>", t->target, channel_names[t->channel],
                                t->axis, n);
}

/* Whether the times of flat (x, y) pairs strictly increase (then no two
 * keys share a time; NaN fails the test). */
static int co_times_increasing(const float *co, Py_ssize_t n)
{
    for (Py_ssize_t k = 1; k < n; k++)
        if (!(co[2 * k] > co[2 * (k - 1)])) return 0;
    return 1;
}

static PyObject *Track_bezier(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"value_scale", "value_offset", "time_scale", "time_offset", "flags", NULL};
    double vs = 1.0, vo = 0.0, ts = 1.0, to = 0.0;
    int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ddddp:bezier", kwlist, &vs, &vo, &ts, &to, &flags)) return NULL;
    TrackObject *t = (TrackObject *)self;
    ga_track c;
    int lazy = t->lazy != NULL;
    if (lazy) lazy_view(t, &c); /* the track's own block: nothing to copy */
    else if (track_to_c(self, 0, &c, NULL) < 0) return NULL;
    Py_ssize_t n = (Py_ssize_t)c.nkeys;
    PyObject *out[4] = {NULL, NULL, NULL, NULL};
    Py_buffer v[4];
    int got = 0;
    for (; got < 4; got++) {
        out[got] = alloc_array(got < 3 ? "f" : "i", got < 3 ? 2 * n : n, &v[got]);
        if (!out[got]) break;
    }
    int increasing = 1, has_bezier = 0;
    if (got == 4) {
        ga_track_bezier(&c, vs, vo, ts, to, v[0].buf, v[1].buf, v[2].buf);
        int32_t *ip = v[3].buf;
        for (Py_ssize_t k = 0; k < n; k++) {
            ip[k] = c.interp[k];
            has_bezier |= c.interp[k] == GA_INTERP_BEZIER;
        }
        if (flags) increasing = co_times_increasing(v[0].buf, n);
    }
    for (int k = 0; k < got; k++) PyBuffer_Release(&v[k]);
    if (!lazy) ga_track_free(&c);
    if (got < 4) {
        for (int k = 0; k < got; k++) Py_DECREF(out[k]);
        return NULL;
    }
    if (flags)
        return Py_BuildValue("(NNNNOO)", out[0], out[1], out[2], out[3], increasing ? Py_True : Py_False,
                             has_bezier ? Py_True : Py_False);
    return Py_BuildValue("(NNNN)", out[0], out[1], out[2], out[3]);
}

/* Reads frames: a number or any iterable / buffer of numbers. */
static int read_frames(PyObject *obj, double **out, Py_ssize_t *n)
{
    if (PyFloat_Check(obj) || PyLong_Check(obj)) {
        *out = malloc(sizeof(double));
        if (!*out) {
            PyErr_NoMemory();
            return -1;
        }
        (*out)[0] = PyFloat_AsDouble(obj);
        *n = 1;
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *arr = is_array_of(obj, "d") ? Py_NewRef(obj) : as_array(obj, "d", "frames");
    if (!arr) return -1;
    Py_buffer view;
    if (get_buffer(arr, &view, "d", 8, "frames") < 0) {
        Py_DECREF(arr);
        return -1;
    }
    *n = view.len / 8;
    *out = malloc((size_t)(*n + 1) * sizeof(double));
    if (!*out) {
        PyBuffer_Release(&view);
        Py_DECREF(arr);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(*out, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    Py_DECREF(arr);
    return 0;
}

static PyObject *Track_evaluate(PyObject *self, PyObject *frames_obj)
{
    double *frames;
    Py_ssize_t n;
    if (read_frames(frames_obj, &frames, &n) < 0) return NULL;
    TrackObject *t = (TrackObject *)self;
    ga_track c;
    int lazy = t->lazy != NULL;
    if (lazy) lazy_view(t, &c);
    else if (track_to_c(self, 0, &c, NULL) < 0) {
        free(frames);
        return NULL;
    }
    Py_buffer view;
    PyObject *res = alloc_array("f", n, &view);
    if (res) {
        float *out = view.buf;
        for (Py_ssize_t i = 0; i < n; i++) out[i] = (float)ga_track_eval(&c, frames[i]);
        PyBuffer_Release(&view);
    }
    free(frames);
    if (!lazy) ga_track_free(&c);
    return res;
}

static PyObject *Track_copy(PyObject *self, PyObject *unused)
{
    (void)unused;
    ga_track c;
    if (track_to_c(self, 0, &c, NULL) < 0) return NULL;
    PyObject *res = track_from_c(&c);
    if (res) GA_SETREF(((TrackObject *)res)->target, Py_NewRef(((TrackObject *)self)->target));
    ga_track_free(&c);
    return res;
}


static PyObject *Track_fit(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"tolerance", "use_slopes", NULL};
    double tol;
    int use_slopes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "d|$p:fit", kwlist, &tol, &use_slopes)) return NULL;
    ga_track c;
    if (track_to_c(self, 0, &c, NULL) < 0) return NULL;
    size_t n = c.nkeys;
    double *t = malloc((n + 1) * sizeof *t), *v = malloc((n + 1) * sizeof *v);
    double *si = malloc((n + 1) * sizeof *si), *so = malloc((n + 1) * sizeof *so);
    if (!t || !v || !si || !so) {
        free(t);
        free(v);
        free(si);
        free(so);
        ga_track_free(&c);
        return PyErr_NoMemory();
    }
    for (size_t i = 0; i < n; i++) {
        t[i] = c.time[i];
        v[i] = c.value[i];
        si[i] = c.in_slope[i];
        so[i] = c.out_slope[i];
    }
    ga_track out;
    memset(&out, 0, sizeof out);
    ga_error err;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ga_fit_hermite(t, v, use_slopes ? si : NULL, use_slopes ? so : NULL, n, tol, &out, &err);
    Py_END_ALLOW_THREADS
    free(t);
    free(v);
    free(si);
    free(so);
    ga_track_free(&c);
    if (rc) return raise_error(&err);
    out.channel = (uint8_t)((TrackObject *)self)->channel;
    out.axis = (uint8_t)((TrackObject *)self)->axis;
    PyObject *res = track_from_c(&out);
    ga_track_free(&out);
    if (res) GA_SETREF(((TrackObject *)res)->target, Py_NewRef(((TrackObject *)self)->target));
    return res;
}

static PyGetSetDef Track_getset[] = {
    {"target", Track_get_target, Track_set_target,
     "Joint, bone or texture-matrix entry index (int), bone ID (BK), or bone name (str, JBA).", NULL},
    {"channel", Track_get_channel, Track_set_channel,
     "'scale', 'rotation' (Euler XYZ, radians), 'translation' or 'rotation_quaternion'.", NULL},
    {"axis", Track_get_axis, Track_set_axis, "0, 1, 2 (x, y, z); 0..3 (w, x, y, z) for quaternions.", NULL},
    {"times", Track_get_array, Track_set_array, "Key frames, array('f').", (void *)0},
    {"values", Track_get_array, Track_set_array, "Key values, array('f').", (void *)1},
    {"in_slopes", Track_get_array, Track_set_array, "Slope arriving at each key, value units per frame.", (void *)2},
    {"out_slopes", Track_get_array, Track_set_array, "Slope leaving each key, value units per frame.", (void *)3},
    {"interpolation", Track_get_array, Track_set_array,
     "Interpolation of the segment starting at each key: CONSTANT 0, LINEAR 1, BEZIER 2 (array('B')).",
     (void *)4},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Track_methods[] = {
    {"bezier", (PyCFunction)(void (*)(void))Track_bezier, METH_VARARGS | METH_KEYWORDS,
     "bezier(value_scale=1, value_offset=0, time_scale=1, time_offset=0, flags=False) -> (co, handle_left, "
     "handle_right, interpolation[, increasing, has_bezier])\n\nFlat buffers for FCurve.keyframe_points.foreach_set: "
     "(x, y) pairs as array('f') and the interpolation codes as array('i').  Handles sit one third of the way to the "
     "neighbouring key, which makes each Bezier segment equal the Hermite segment exactly; use handle type FREE.  "
     "With flags=True two booleans follow: whether the times in co strictly increase (so no two keys share one) "
     "and whether some key's interpolation is BEZIER, so an importer need not scan the buffers again."},
    {"evaluate", Track_evaluate, METH_O,
     "evaluate(frames) -> array('f'): the curve at the frames (generic rules: hold outside the keys)."},
    {"copy", Track_copy, METH_NOARGS, "A deep copy of the track."},
    {"fit", (PyCFunction)(void (*)(void))Track_fit, METH_VARARGS | METH_KEYWORDS,
     "fit(tolerance, *, use_slopes=False) -> Track\n\nKey reduction: cubic Hermite (BEZIER) keys chosen among "
     "this track's keys (treated as samples, times increasing) so that the curve passes within `tolerance` of "
     "every sample.  The first and last samples are always keys.  Slopes come from neighbouring samples, or with "
     "use_slopes=True from the track's own in_slopes / out_slopes (the derivatives of the curve it samples)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot Track_slots[] = {
    {Py_tp_new, Track_new},
    {Py_tp_dealloc, Track_dealloc},
    {Py_tp_repr, Track_repr},
    {Py_tp_getset, Track_getset},
    {Py_tp_methods, Track_methods},
    {Py_sq_length, Track_len},
    {Py_tp_doc,
     "Track(target, channel, axis, times=(), values=(), in_slopes=None, out_slopes=None, interpolation=None)\n\n"
     "One animated channel component: keys with times, values, incoming and outgoing slopes (per frame) and "
     "the interpolation of each segment.  Without slopes or interpolation the keys are joined by straight "
     "lines; with slopes, by cubic Hermite (Bezier) segments."},
    {0, NULL},
};

static PyType_Spec Track_spec = {
    "gameanim.Track",
    sizeof(TrackObject),
    0,
    Py_TPFLAGS_DEFAULT,
    Track_slots,
};

/* ------------------------------------------------------------------ */
/* Animation                                                           */

typedef struct {
    PyObject_HEAD
    const ga_format *fmt;
    PyObject *tracks;      /* list of Track */
    PyObject *entries;     /* list of dict (BTK) */
    double frame_count;
    double fps;            /* 0 = None */
    int loop;              /* -1 = None */
    PyObject *compression; /* str or None */
    int rotation_frac;     /* -1 = auto */
    int calc_type;
    double start_frame;
    int layout;
    int keyless_rule;
    PyObject *info;
    PyObject *report;
    /* what was loaded */
    int has_orig;
    track_store *store;      /* owns orig.tracks (shared with lazy Tracks) */
    void *raw;
    ga_clip orig;
    PyObject *orig_bytes;    /* the input as given (wrapped) */
    PyObject *orig_payload;  /* decompressed (NULL until asked for: see animation_payload) */
    uint8_t *payload_buf;    /* the loader's decompressed payload, kept as is until then */
    size_t payload_size;
    const ga_wrapper *orig_wrapper;
} AnimationObject;

static void Animation_dealloc(PyObject *self)
{
    AnimationObject *a = (AnimationObject *)self;
    Py_XDECREF(a->tracks);
    Py_XDECREF(a->entries);
    Py_XDECREF(a->compression);
    Py_XDECREF(a->info);
    Py_XDECREF(a->report);
    Py_XDECREF(a->orig_bytes);
    Py_XDECREF(a->orig_payload);
    free(a->payload_buf);
    if (a->raw && a->fmt) a->fmt->free_raw(a->raw);
    if (a->has_orig) {
        a->orig.tracks = NULL; /* the store's */
        a->orig.ntracks = 0;
        ga_clip_free(&a->orig);
    }
    track_store_decref(a->store);
    PyTypeObject *tp = Py_TYPE(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static AnimationObject *animation_alloc(const ga_format *fmt)
{
    allocfunc alloc = (allocfunc)PyType_GetSlot(AnimationType, Py_tp_alloc);
    AnimationObject *a = (AnimationObject *)alloc(AnimationType, 0);
    if (!a) return NULL;
    a->fmt = fmt;
    a->loop = -1;
    a->rotation_frac = -1;
    a->layout = 32;
    a->tracks = PyList_New(0);
    a->entries = PyList_New(0);
    a->compression = Py_NewRef(Py_None);
    a->info = PyDict_New();
    a->report = Py_NewRef(Py_None);
    if (!a->tracks || !a->entries || !a->info) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

static PyObject *decode_name(const char *s)
{
    /* J3D names are Shift-JIS; keep undecodable bytes reversible. */
    return PyUnicode_Decode(s, (Py_ssize_t)strlen(s), "cp932", "surrogateescape");
}

static PyObject *entry_to_dict(const ga_entry *e)
{
    PyObject *name = decode_name(e->name ? e->name : "");
    if (!name) return NULL;
    return Py_BuildValue("{s:N,s:i,s:(fff),s:O}", "material", name, "texmtx_id", e->texmtx_id, "center",
                         (double)e->center[0], (double)e->center[1], (double)e->center[2], "post",
                         e->post ? Py_True : Py_False);
}

static int dict_to_entry(PyObject *d, Py_ssize_t i, ga_entry *e)
{
    memset(e, 0, sizeof *e);
    if (!PyDict_Check(d)) {
        PyErr_Format(PyExc_TypeError, "entries[%zd] must be a dict with 'material', 'texmtx_id', 'center'", i);
        return -1;
    }
    PyObject *name = PyDict_GetItemString(d, "material");
    PyObject *tex = PyDict_GetItemString(d, "texmtx_id");
    PyObject *center = PyDict_GetItemString(d, "center");
    PyObject *post = PyDict_GetItemString(d, "post");
    if (!name || !PyUnicode_Check(name)) {
        PyErr_Format(PyExc_ValueError, "entries[%zd]['material'] must be a str", i);
        return -1;
    }
    PyObject *b = PyUnicode_AsEncodedString(name, "cp932", "surrogateescape");
    if (!b) return -1;
    char *s;
    Py_ssize_t len;
    PyBytes_AsStringAndSize(b, &s, &len);
    if ((size_t)len > GA_MAX_STRING || memchr(s, 0, (size_t)len)) {
        Py_DECREF(b);
        PyErr_Format(PyExc_ValueError, "entries[%zd]: material name too long or contains NUL", i);
        return -1;
    }
    e->name = ga_strdup(s);
    Py_DECREF(b);
    if (!e->name) {
        PyErr_NoMemory();
        return -1;
    }
    e->texmtx_id = 0;
    if (tex) {
        long v = PyLong_AsLong(tex);
        if (v == -1 && PyErr_Occurred()) return -1;
        e->texmtx_id = (int32_t)v;
    }
    e->center[0] = e->center[1] = e->center[2] = 0.5f;
    if (center) {
        PyObject *seq = PySequence_Tuple(center);
        if (!seq) return -1;
        if (PyTuple_Size(seq) != 3) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "entries[%zd]['center'] must have 3 numbers", i);
            return -1;
        }
        for (int k = 0; k < 3; k++) {
            double v = PyFloat_AsDouble(PyTuple_GetItem(seq, k));
            if (v == -1.0 && PyErr_Occurred()) {
                Py_DECREF(seq);
                return -1;
            }
            e->center[k] = (float)v;
        }
        Py_DECREF(seq);
    }
    e->post = post ? PyObject_IsTrue(post) : 0;
    if (e->post < 0) return -1;
    return 0;
}

/* The decompressed payload of a loaded file as bytes (borrowed), made from
 * the loader's buffer on first use (which is then freed); NULL with an
 * error set when out of memory. */
static PyObject *animation_payload(AnimationObject *a)
{
    if (!a->orig_payload) {
        if (!a->payload_buf) {
            PyErr_SetString(PyExc_SystemError, "animation has no payload");
            return NULL;
        }
        a->orig_payload = PyBytes_FromStringAndSize((const char *)a->payload_buf, (Py_ssize_t)a->payload_size);
        if (!a->orig_payload) return NULL;
        free(a->payload_buf);
        a->payload_buf = NULL;
    }
    return a->orig_payload;
}

/* Whether data is the file's decompressed payload, byte for byte. */
static int same_payload(const AnimationObject *a, const uint8_t *data, size_t len)
{
    if (a->payload_buf) return a->payload_size == len && memcmp(a->payload_buf, data, len) == 0;
    char *p;
    Py_ssize_t n;
    if (!a->orig_payload || PyBytes_AsStringAndSize(a->orig_payload, &p, &n) < 0) {
        PyErr_Clear();
        return 0;
    }
    return (size_t)n == len && memcmp(p, data, len) == 0;
}

/* The Track list, built from the decoded clip on first use.  Borrowed. */
static PyObject *ensure_tracks(AnimationObject *a)
{
    if (a->tracks) return a->tracks;
    PyObject *tracks = PyList_New((Py_ssize_t)a->orig.ntracks);
    if (!tracks) return NULL;
    for (uint32_t i = 0; i < a->orig.ntracks; i++) {
        PyObject *t = track_from_store(a->store, i);
        if (!t) {
            Py_DECREF(tracks);
            return NULL;
        }
        PyList_SetItem(tracks, i, t);
    }
    a->tracks = tracks;
    return tracks;
}

/* Python state -> C clip.  When the tracks were never materialised, the
 * clip borrows the decoded tracks (no copy); release with clip_release. */
static int clip_from_python(AnimationObject *a, ga_clip *c);

static int clip_borrows(const AnimationObject *a) { return a->tracks == NULL && a->has_orig; }

static void clip_release(AnimationObject *a, ga_clip *c, int borrowed)
{
    (void)a;
    if (borrowed) {
        c->tracks = NULL;
        c->ntracks = 0;
    }
    ga_clip_free(c);
}

static int clip_from_python(AnimationObject *a, ga_clip *c)
{
    ga_clip_init(c, a->fmt->name);
    c->frame_count = a->frame_count;
    c->fps = a->fps;
    c->loop = a->loop;
    if (a->has_orig) {
        c->loop_raw_valid = a->orig.loop_raw_valid;
        c->loop_raw = a->orig.loop_raw;
        c->decoded_raw = a->raw;
        c->decoded = &a->orig;
    }
    c->rotation_frac = a->rotation_frac;
    c->calc_type = a->calc_type;
    c->start_frame = a->start_frame;
    c->layout = a->layout;
    c->keyless_rule = a->keyless_rule;
    ga_error err;
    Py_ssize_t n = 0;
    if (clip_borrows(a)) {
        c->tracks = a->orig.tracks;
        c->ntracks = a->orig.ntracks;
    } else {
        if (!PyList_Check(a->tracks)) {
            PyErr_SetString(PyExc_TypeError, "Animation.tracks must be a list");
            return -1;
        }
        n = PyList_Size(a->tracks);
        if (ga_clip_alloc_tracks(c, (uint32_t)n, &err)) {
            raise_error(&err);
            return -1;
        }
    }
    size_t total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (track_to_c(PyList_GetItem(a->tracks, i), i, &c->tracks[i], a->store) < 0) {
            ga_clip_free(c);
            return -1;
        }
        total += c->tracks[i].nkeys;
        if (total > GA_MAX_KEYS_TOTAL) {
            ga_clip_free(c);
            PyErr_Format(PyExc_ValueError, "more than %u keys in one animation", GA_MAX_KEYS_TOTAL);
            return -1;
        }
    }
    int borrowed = clip_borrows(a);
    if (!PyList_Check(a->entries)) {
        clip_release(a, c, borrowed);
        PyErr_SetString(PyExc_TypeError, "Animation.entries must be a list");
        return -1;
    }
    Py_ssize_t ne = PyList_Size(a->entries);
    if (ga_clip_alloc_entries(c, (uint32_t)ne, &err)) {
        clip_release(a, c, borrowed);
        raise_error(&err);
        return -1;
    }
    for (Py_ssize_t i = 0; i < ne; i++) {
        if (dict_to_entry(PyList_GetItem(a->entries, i), i, &c->entries[i]) < 0) {
            clip_release(a, c, borrowed);
            return -1;
        }
    }
    return 0;
}

static PyObject *info_to_dict(const ga_info *info)
{
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (size_t i = 0; i < info->n; i++) {
        const ga_info_item *it = &info->items[i];
        PyObject *v;
        switch (it->type) {
        case GA_INFO_INT: v = PyLong_FromLongLong(it->i); break;
        case GA_INFO_FLOAT: v = PyFloat_FromDouble(it->f); break;
        case GA_INFO_STR: v = PyUnicode_DecodeUTF8((const char *)it->bytes, (Py_ssize_t)it->len, "surrogateescape"); break;
        default: v = PyBytes_FromStringAndSize((const char *)it->bytes, (Py_ssize_t)it->len); break;
        }
        if (!v || PyDict_SetItemString(d, it->key, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(v);
    }
    return d;
}

/* Sets the Python-visible state from a decoded clip. */
static int animation_fill(AnimationObject *a, const ga_clip *c)
{
    a->frame_count = c->frame_count;
    a->fps = c->fps;
    a->loop = c->loop;
    a->rotation_frac = c->rotation_frac;
    a->calc_type = c->calc_type;
    a->start_frame = c->start_frame;
    a->layout = c->layout;
    a->keyless_rule = c->keyless_rule;
    /* Track objects are made on first access of Animation.tracks: loading
     * then sampling or saving never builds them. */
    Py_CLEAR(a->tracks);
    PyObject *entries = PyList_New((Py_ssize_t)c->nentries);
    if (!entries) return -1;
    for (uint32_t i = 0; i < c->nentries; i++) {
        PyObject *d = entry_to_dict(&c->entries[i]);
        if (!d) {
            Py_DECREF(entries);
            return -1;
        }
        PyList_SetItem(entries, i, d);
    }
    GA_SETREF(a->entries, entries);
    return 0;
}

static PyObject *animation_from_data(PyObject *data_obj, const ga_decode_opts *opts)
{
    PyObject *bytes;
    if (PyBytes_CheckExact(data_obj)) {
        bytes = Py_NewRef(data_obj); /* immutable: keep it as the original */
    } else {
        Py_buffer view;
        if (PyObject_GetBuffer(data_obj, &view, PyBUF_SIMPLE) < 0) return NULL;
        bytes = PyBytes_FromStringAndSize(view.buf, view.len);
        PyBuffer_Release(&view);
        if (!bytes) return NULL;
    }
    char *data;
    Py_ssize_t size;
    PyBytes_AsStringAndSize(bytes, &data, &size);
    ga_loaded l;
    ga_error err;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ga_load((const uint8_t *)data, (size_t)size, opts, &l, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        Py_DECREF(bytes);
        return raise_error(&err);
    }
    AnimationObject *a = animation_alloc(l.format);
    if (!a) {
        ga_loaded_free(&l);
        Py_DECREF(bytes);
        return NULL;
    }
    a->raw = l.raw;
    l.raw = NULL;
    a->store = malloc(sizeof *a->store);
    if (!a->store) {
        ga_loaded_free(&l);
        Py_DECREF(bytes);
        Py_DECREF(a);
        return PyErr_NoMemory();
    }
    a->orig = l.clip;
    memset(&l.clip, 0, sizeof l.clip);
    a->store->refs = 1;
    a->store->tracks = a->orig.tracks;
    a->store->ntracks = a->orig.ntracks;
    a->store->key_block = a->orig.key_block; /* (the store frees it with the tracks) */
    a->orig.key_block = NULL;
    a->orig.key_block_size = a->orig.key_block_used = 0;
    a->has_orig = 1;
    a->orig_wrapper = l.wrapper;
    a->orig_bytes = bytes;
    if (l.payload) {
        /* a wrapped file: keep the decompressed payload the loader made (no
         * copy into a bytes object unless someone asks for it) */
        a->payload_buf = l.payload;
        a->payload_size = l.payload_size;
        l.payload = NULL;
    } else {
        a->orig_payload = Py_NewRef(bytes);
    }
    GA_SETREF(a->compression, l.wrapper ? PyUnicode_FromString(l.wrapper->name) : Py_NewRef(Py_None));
    ga_loaded_free(&l);
    if (!a->compression || animation_fill(a, &a->orig) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    if (a->fmt->info) {
        ga_info info = {0};
        if (a->fmt->info(a->raw, &info, &err)) {
            ga_info_free(&info);
            Py_DECREF(a);
            return raise_error(&err);
        }
        PyObject *d = info_to_dict(&info);
        ga_info_free(&info);
        if (!d) {
            Py_DECREF(a);
            return NULL;
        }
        GA_SETREF(a->info, d);
    }
    return (PyObject *)a;
}

static int parse_loop(PyObject *v, int *out)
{
    if (v == Py_None) {
        *out = -1;
        return 0;
    }
    if (PyUnicode_Check(v)) {
        for (int i = 0; i < 5; i++)
            if (PyUnicode_CompareWithASCIIString(v, loop_names[i]) == 0) {
                *out = i;
                return 0;
            }
    }
    PyErr_Format(PyExc_ValueError,
                 "loop must be 'once', 'once_reset', 'loop', 'mirror_once', 'mirror_loop' or None, not %R", v);
    return -1;
}

static int parse_compression(PyObject *v, PyObject **out)
{
    if (v == Py_None) {
        *out = Py_NewRef(Py_None);
        return 0;
    }
    if (PyUnicode_Check(v)) {
        if (PyUnicode_CompareWithASCIIString(v, "none") == 0) {
            *out = Py_NewRef(Py_None);
            return 0;
        }
        Py_ssize_t len;
        const char *s = PyUnicode_AsUTF8AndSize(v, &len);
        if (!s) return -1;
        if (ga_wrapper_by_name(s)) {
            *out = Py_NewRef(v);
            return 0;
        }
    }
    PyObject *names = PyList_New(0);
    for (size_t i = 0; names && ga_wrappers[i]; i++) {
        PyObject *s = PyUnicode_FromString(ga_wrappers[i]->name);
        if (s) PyList_Append(names, s);
        Py_XDECREF(s);
    }
    PyErr_Format(PyExc_ValueError, "compression must be None or one of %R, not %R", names, v);
    Py_XDECREF(names);
    return -1;
}

static int parse_calc_type(PyObject *v, int *out)
{
    if (v == Py_None) {
        *out = 0;
        return 0;
    }
    if (PyUnicode_Check(v)) {
        if (PyUnicode_CompareWithASCIIString(v, "basic") == 0) {
            *out = 0;
            return 0;
        }
        if (PyUnicode_CompareWithASCIIString(v, "maya") == 0) {
            *out = 1;
            return 0;
        }
    }
    if (PyLong_Check(v) && !PyBool_Check(v)) {
        /* the file's word, as info['calc_type'] reports it: 1 is Maya, 0
         * Basic (the game reads any other value as Basic too) */
        long code = PyLong_AsLong(v);
        if (code == 0 || code == 1) {
            *out = (int)code;
            return 0;
        }
        if (code == -1 && PyErr_Occurred()) return -1;
    }
    PyErr_Format(PyExc_ValueError, "calc_type must be 'basic' or 'maya' (or the file's word 0 or 1), not %R", v);
    return -1;
}

static int parse_keyless_rule(PyObject *v, int *out)
{
    if (v == Py_None) {
        *out = 0;
        return 0;
    }
    if (PyUnicode_Check(v)) {
        if (PyUnicode_CompareWithASCIIString(v, "base") == 0) {
            *out = 0;
            return 0;
        }
        if (PyUnicode_CompareWithASCIIString(v, "base_plus_span") == 0) {
            *out = 1;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "keyless_rule must be 'base' or 'base_plus_span', not %R", v);
    return -1;
}

static PyObject *Animation_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    (void)type;
    static char *kwlist[] = {"format",       "tracks",     "frame_count", "fps",    "loop",
                             "compression",  "entries",    "rotation_frac", "calc_type", "start_frame",
                             "layout",       "keyless_rule", NULL};
    const char *fmtname;
    PyObject *tracks = NULL, *fps = Py_None, *loop = Py_None, *comp = Py_None, *entries = NULL;
    PyObject *frac = Py_None, *calc = Py_None, *start = Py_None, *layout = Py_None, *keyless = Py_None;
    double frame_count = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|O$dOOOOOOOOO:Animation", kwlist, &fmtname, &tracks,
                                     &frame_count, &fps, &loop, &comp, &entries, &frac, &calc, &start, &layout,
                                     &keyless))
        return NULL;
    const ga_format *fmt = ga_format_by_name(fmtname);
    if (!fmt) {
        PyErr_Format(PyExc_ValueError, "unknown format %R", PyTuple_GetItem(args, 0));
        return NULL;
    }
    AnimationObject *a = animation_alloc(fmt);
    if (!a) return NULL;
    a->frame_count = frame_count;
    if (fps != Py_None) {
        a->fps = PyFloat_AsDouble(fps);
        if (a->fps == -1.0 && PyErr_Occurred()) goto fail;
    }
    if (parse_loop(loop, &a->loop) < 0) goto fail;
    PyObject *c;
    if (parse_compression(comp, &c) < 0) goto fail;
    GA_SETREF(a->compression, c);
    if (tracks) {
        PyObject *list = PySequence_List(tracks);
        if (!list) goto fail;
        for (Py_ssize_t i = 0; i < PyList_Size(list); i++)
            if (!PyObject_TypeCheck(PyList_GetItem(list, i), TrackType)) {
                Py_DECREF(list);
                PyErr_Format(PyExc_TypeError, "tracks[%zd] is not a gameanim.Track", i);
                goto fail;
            }
        GA_SETREF(a->tracks, list);
    }
    if (entries && entries != Py_None) {
        PyObject *list = PySequence_List(entries);
        if (!list) goto fail;
        GA_SETREF(a->entries, list);
    }
    if (frac != Py_None) {
        long f = PyLong_AsLong(frac);
        if (f == -1 && PyErr_Occurred()) goto fail;
        if (f < 0 || f > 15) {
            PyErr_SetString(PyExc_ValueError, "rotation_frac must be 0..15 or None (automatic)");
            goto fail;
        }
        a->rotation_frac = (int)f;
    }
    if (parse_calc_type(calc, &a->calc_type) < 0) goto fail;
    if (start != Py_None) {
        a->start_frame = PyFloat_AsDouble(start);
        if (a->start_frame == -1.0 && PyErr_Occurred()) goto fail;
    }
    if (layout != Py_None) {
        long l = PyLong_AsLong(layout);
        if (l == -1 && PyErr_Occurred()) goto fail;
        if (l != 32 && l != 64) {
            PyErr_SetString(PyExc_ValueError, "layout must be 32 or 64");
            goto fail;
        }
        a->layout = (int)l;
    }
    if (parse_keyless_rule(keyless, &a->keyless_rule) < 0) goto fail;
    return (PyObject *)a;
fail:
    Py_DECREF(a);
    return NULL;
}

/* ---- getters / setters ---- */

static PyObject *Animation_get_format(PyObject *self, void *c)
{
    (void)c;
    return PyUnicode_FromString(((AnimationObject *)self)->fmt->name);
}

static PyObject *Animation_get_frame_count(PyObject *self, void *c)
{
    (void)c;
    return PyFloat_FromDouble(((AnimationObject *)self)->frame_count);
}

static int Animation_set_frame_count(PyObject *self, PyObject *v, void *c)
{
    (void)c;
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete frame_count");
        return -1;
    }
    double d = PyFloat_AsDouble(v);
    if (d == -1.0 && PyErr_Occurred()) return -1;
    ((AnimationObject *)self)->frame_count = d;
    return 0;
}

static PyObject *Animation_get_fps(PyObject *self, void *c)
{
    (void)c;
    double f = ((AnimationObject *)self)->fps;
    if (f == 0.0) Py_RETURN_NONE;
    return PyFloat_FromDouble(f);
}

static int Animation_set_fps(PyObject *self, PyObject *v, void *c)
{
    (void)c;
    if (!v || v == Py_None) {
        ((AnimationObject *)self)->fps = 0.0;
        return 0;
    }
    double d = PyFloat_AsDouble(v);
    if (d == -1.0 && PyErr_Occurred()) return -1;
    if (!(d > 0.0) || !isfinite(d)) {
        PyErr_SetString(PyExc_ValueError, "fps must be a positive number or None");
        return -1;
    }
    ((AnimationObject *)self)->fps = d;
    return 0;
}

static PyObject *Animation_get_loop(PyObject *self, void *c)
{
    (void)c;
    int l = ((AnimationObject *)self)->loop;
    if (l < 0 || l > 4) Py_RETURN_NONE;
    return PyUnicode_FromString(loop_names[l]);
}

static int Animation_set_loop(PyObject *self, PyObject *v, void *c)
{
    (void)c;
    return parse_loop(v ? v : Py_None, &((AnimationObject *)self)->loop);
}

static PyObject *Animation_get_obj(PyObject *self, void *c)
{
    AnimationObject *a = (AnimationObject *)self;
    switch ((intptr_t)c) {
    case 0: {
        PyObject *t = ensure_tracks(a);
        return t ? Py_NewRef(t) : NULL;
    }
    case 1: return Py_NewRef(a->entries);
    case 2: return Py_NewRef(a->compression);
    case 3: return PyDict_Copy(a->info);
    case 4: return a->report == Py_None ? Py_NewRef(Py_None) : PyDict_Copy(a->report);
    default: Py_RETURN_NONE;
    }
}

static int Animation_set_obj(PyObject *self, PyObject *v, void *c)
{
    AnimationObject *a = (AnimationObject *)self;
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete this attribute");
        return -1;
    }
    switch ((intptr_t)c) {
    case 0: {
        PyObject *list = PySequence_List(v);
        if (!list) return -1;
        for (Py_ssize_t i = 0; i < PyList_Size(list); i++)
            if (!PyObject_TypeCheck(PyList_GetItem(list, i), TrackType)) {
                Py_DECREF(list);
                PyErr_Format(PyExc_TypeError, "tracks[%zd] is not a gameanim.Track", i);
                return -1;
            }
        GA_SETREF(a->tracks, list);
        return 0;
    }
    case 1: {
        PyObject *list = PySequence_List(v);
        if (!list) return -1;
        GA_SETREF(a->entries, list);
        return 0;
    }
    case 2: {
        PyObject *comp;
        if (parse_compression(v, &comp) < 0) return -1;
        GA_SETREF(a->compression, comp);
        return 0;
    }
    default:
        PyErr_SetString(PyExc_AttributeError, "read-only attribute");
        return -1;
    }
}

static PyObject *Animation_get_param(PyObject *self, void *c)
{
    AnimationObject *a = (AnimationObject *)self;
    switch ((intptr_t)c) {
    case 0:
        if (a->rotation_frac < 0) Py_RETURN_NONE;
        return PyLong_FromLong(a->rotation_frac);
    case 1: return PyUnicode_FromString(a->calc_type ? "maya" : "basic");
    case 2: return PyFloat_FromDouble(a->start_frame);
    case 3: return PyLong_FromLong(a->layout);
    case 4: return PyUnicode_FromString(a->keyless_rule ? "base_plus_span" : "base");
    default: Py_RETURN_NONE;
    }
}

static int Animation_set_param(PyObject *self, PyObject *v, void *c)
{
    AnimationObject *a = (AnimationObject *)self;
    if (!v) v = Py_None;
    switch ((intptr_t)c) {
    case 0: {
        if (v == Py_None) {
            a->rotation_frac = -1;
            return 0;
        }
        long f = PyLong_AsLong(v);
        if (f == -1 && PyErr_Occurred()) return -1;
        if (f < 0 || f > 15) {
            PyErr_SetString(PyExc_ValueError, "rotation_frac must be 0..15 or None (automatic)");
            return -1;
        }
        a->rotation_frac = (int)f;
        return 0;
    }
    case 1: return parse_calc_type(v, &a->calc_type);
    case 2: {
        double d = PyFloat_AsDouble(v);
        if (d == -1.0 && PyErr_Occurred()) return -1;
        a->start_frame = d;
        return 0;
    }
    case 3: {
        long l = PyLong_AsLong(v);
        if (l == -1 && PyErr_Occurred()) return -1;
        if (l != 32 && l != 64) {
            PyErr_SetString(PyExc_ValueError, "layout must be 32 or 64");
            return -1;
        }
        a->layout = (int)l;
        return 0;
    }
    case 4: return parse_keyless_rule(v, &a->keyless_rule);
    default: return -1;
    }
}

static PyObject *Animation_repr(PyObject *self)
{
    AnimationObject *a = (AnimationObject *)self;
    PyObject *fc = PyFloat_FromDouble(a->frame_count);
    if (!fc) return NULL;
    PyObject *r = PyUnicode_FromFormat("<gameanim.Animation %s, %zd tracks, %S frames>", a->fmt->name,
                                       a->tracks ? (PyList_Check(a->tracks) ? PyList_Size(a->tracks) : (Py_ssize_t)-1)
                                                 : (Py_ssize_t)a->orig.ntracks, fc);
    Py_DECREF(fc);
    return r;
}

/* ---- sample ---- */

static PyObject *Animation_sample(PyObject *self, PyObject *frames_obj)
{
    AnimationObject *a = (AnimationObject *)self;
    double *frames;
    Py_ssize_t nf;
    if (read_frames(frames_obj, &frames, &nf) < 0) return NULL;
    ga_clip c;
    if (clip_from_python(a, &c) < 0) {
        free(frames);
        return NULL;
    }
    size_t total;
    if (ga_mul_size(c.ntracks, (size_t)nf, &total) || total > ((size_t)1 << 31)) {
        free(frames);
        clip_release(a, &c, clip_borrows(a));
        PyErr_SetString(PyExc_ValueError, "too many values requested at once (tracks x frames)");
        return NULL;
    }
    /* the values go straight into the result array's buffer */
    Py_buffer view;
    PyObject *res = alloc_array("f", (Py_ssize_t)total, &view);
    if (!res) {
        free(frames);
        clip_release(a, &c, clip_borrows(a));
        return NULL;
    }
    float *out = view.buf;
    ga_error err;
    int rc = GA_OK;
    const ga_format *fmt = a->fmt;
    Py_BEGIN_ALLOW_THREADS
    for (uint32_t i = 0; i < c.ntracks && !rc; i++) {
        float *dst = out + (size_t)i * (size_t)nf;
        if (fmt->sample) rc = fmt->sample(&c, i, frames, (size_t)nf, dst, &err);
        else ga_track_eval_many(&c.tracks[i], frames, (size_t)nf, dst);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    free(frames);
    clip_release(a, &c, clip_borrows(a));
    if (rc) {
        Py_DECREF(res);
        return raise_error(&err);
    }
    return res;
}

/* ---- encode ---- */

/* The same float bits; a NaN also matches the NaN it became through a
 * Python float (a signalling NaN comes back quiet: bit 22 set). */
static int same_f32(float x, float y)
{
    uint32_t a = ga_f32_bits(x), b = ga_f32_bits(y);
    if (a == b) return 1;
    return isnan(x) && isnan(y) && (a | 0x00400000u) == (b | 0x00400000u);
}

static int entries_same(const ga_clip *a, const ga_clip *b)
{
    if (a->nentries != b->nentries) return 0;
    for (uint32_t i = 0; i < a->nentries; i++) {
        const ga_entry *x = &a->entries[i], *y = &b->entries[i];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0 || x->texmtx_id != y->texmtx_id ||
            x->post != y->post || !same_f32(x->center[0], y->center[0]) || !same_f32(x->center[1], y->center[1]) ||
            !same_f32(x->center[2], y->center[2]))
            return 0;
    }
    return 1;
}

static int params_same(const ga_clip *c, const ga_clip *o)
{
    return memcmp(&c->frame_count, &o->frame_count, sizeof(double)) == 0 && c->fps == o->fps &&
           c->loop == o->loop && c->rotation_frac == o->rotation_frac && c->calc_type == o->calc_type &&
           c->start_frame == o->start_frame && c->layout == o->layout && c->keyless_rule == o->keyless_rule;
}

static PyObject *report_to_dict(const ga_report *r)
{
    PyObject *notes = PyList_New(0);
    if (!notes) return NULL;
    for (uint32_t i = 0; i < r->nnotes; i++) {
        PyObject *s = message_text(r->notes[i]);
        if (!s || PyList_Append(notes, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(notes);
            return NULL;
        }
        Py_DECREF(s);
    }
    if (r->nnotes_total > r->nnotes) {
        PyObject *s = PyUnicode_FromFormat("... and %u more", (unsigned)(r->nnotes_total - r->nnotes));
        if (s) PyList_Append(notes, s);
        Py_XDECREF(s);
    }
    PyObject *where = message_text(r->max_error_where);
    if (!where) {
        Py_DECREF(notes);
        return NULL;
    }
    return Py_BuildValue("{s:d,s:N,s:I,s:N,s:I,s:I}", "max_error", r->max_error, "max_error_at", where, "rounded",
                         (unsigned)r->nrounded, "notes", notes, "reused_tracks", (unsigned)r->reused_tracks,
                         "encoded_tracks", (unsigned)r->encoded_tracks);
}

static PyObject *wrap_payload(const ga_wrapper *w, const uint8_t *data, size_t size)
{
    ga_buf b;
    ga_buf_init(&b);
    ga_error err;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = w->wrap(data, size, &b, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        ga_buf_free(&b);
        return raise_error(&err);
    }
    PyObject *res = PyBytes_FromStringAndSize((const char *)b.data, (Py_ssize_t)b.len);
    ga_buf_free(&b);
    return res;
}

static PyObject *Animation_to_bytes(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"compression", "tolerance", "reencode", NULL};
    AnimationObject *a = (AnimationObject *)self;
    PyObject *comp_arg = NULL;
    double tolerance = 0.0;
    const char *reencode = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$Odz:to_bytes", kwlist, &comp_arg, &tolerance, &reencode))
        return NULL;
    /* reencode: None = original bytes when nothing changed; "raw" = always run
     * the encoder, reusing the original data of unchanged tracks; "full" =
     * encode every track from its values as if the animation were new. */
    int mode = 0;
    if (reencode && strcmp(reencode, "raw") == 0) mode = 1;
    else if (reencode && strcmp(reencode, "full") == 0) mode = 2;
    else if (reencode) {
        PyErr_SetString(PyExc_ValueError, "reencode must be None, 'raw' or 'full'");
        return NULL;
    }
    if (!(tolerance >= 0.0)) {
        PyErr_SetString(PyExc_ValueError, "tolerance must be >= 0");
        return NULL;
    }
    PyObject *comp;
    if (parse_compression(comp_arg ? comp_arg : a->compression, &comp) < 0) return NULL;
    const ga_wrapper *w = NULL;
    if (comp != Py_None) {
        Py_ssize_t len;
        w = ga_wrapper_by_name(PyUnicode_AsUTF8AndSize(comp, &len));
    }
    Py_DECREF(comp);

    ga_clip c;
    if (clip_from_python(a, &c) < 0) return NULL;
    int32_t *map = malloc(((size_t)c.ntracks + 1) * sizeof *map);
    if (!map) {
        clip_release(a, &c, clip_borrows(a));
        return PyErr_NoMemory();
    }
    int unchanged = 0;
    int header_changed = 1;
    if (a->has_orig) {
        unchanged = c.ntracks == a->orig.ntracks;
        for (uint32_t i = 0; i < c.ntracks; i++) {
            map[i] = -1;
            if (i < a->orig.ntracks && ga_track_equal(&c.tracks[i], &a->orig.tracks[i])) {
                map[i] = (int32_t)i;
                continue;
            }
            unchanged = 0;
            for (uint32_t j = 0; j < a->orig.ntracks; j++)
                if (ga_track_equal(&c.tracks[i], &a->orig.tracks[j])) {
                    map[i] = (int32_t)j;
                    break;
                }
        }
        header_changed = !params_same(&c, &a->orig) || !entries_same(&c, &a->orig);
        if (header_changed) unchanged = 0;
    } else {
        for (uint32_t i = 0; i < c.ntracks; i++) map[i] = -1;
    }
    if (mode) unchanged = 0;
    if (mode == 2) {
        for (uint32_t i = 0; i < c.ntracks; i++) map[i] = -1;
        header_changed = 1;
    }

    ga_report rep;
    ga_report_init(&rep);
    PyObject *result = NULL;
    if (unchanged) {
        /* Nothing changed: the original bytes, exactly. */
        rep.reused_tracks = c.ntracks;
        if (w == a->orig_wrapper) {
            result = Py_NewRef(a->orig_bytes);
        } else {
            PyObject *payload = animation_payload(a);
            if (payload && !w) {
                result = Py_NewRef(payload);
            } else if (payload) {
                char *p;
                Py_ssize_t n;
                PyBytes_AsStringAndSize(payload, &p, &n);
                result = wrap_payload(w, (const uint8_t *)p, (size_t)n);
            }
        }
    } else {
        ga_encode_ctx ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.raw = a->has_orig && mode != 2 ? a->raw : NULL;
        ctx.orig = a->has_orig && mode != 2 ? &a->orig : NULL;
        ctx.clip = &c;
        ctx.orig_track = map;
        ctx.header_changed = header_changed;
        ctx.tolerance = tolerance;
        ctx.report = &rep;
        ga_buf b;
        ga_buf_init(&b);
        ga_error err;
        int rc;
        const ga_format *fmt = a->fmt;
        Py_BEGIN_ALLOW_THREADS
        rc = fmt->encode(&ctx, &b, &err);
        Py_END_ALLOW_THREADS
        if (rc) {
            ga_buf_free(&b);
            free(map);
            clip_release(a, &c, clip_borrows(a));
            return raise_error(&err);
        }
        if (w && a->has_orig && w == a->orig_wrapper && !b.failed && same_payload(a, b.data, b.len))
            /* the payload came out as the file's (an edit undone, a value
             * moved within its quantisation step, reencode="raw"): the
             * original compressed bytes, not a recompression */
            result = Py_NewRef(a->orig_bytes);
        else if (w)
            result = wrap_payload(w, b.data, b.len);
        else
            result = PyBytes_FromStringAndSize((const char *)b.data, (Py_ssize_t)b.len);
        ga_buf_free(&b);
    }
    free(map);
    clip_release(a, &c, clip_borrows(a));
    if (!result) return NULL;
    PyObject *rd = report_to_dict(&rep);
    if (!rd) {
        Py_DECREF(result);
        return NULL;
    }
    GA_SETREF(a->report, rd);
    if (rep.nnotes_total > 0) {
        char msg[640];
        snprintf(msg, sizeof msg, "%s encode: %s%s (%u note(s), %u value(s) rounded, worst error %g at %s; see "
                 "Animation.encode_report)",
                 a->fmt->name, rep.nnotes ? rep.notes[0] : "", rep.nnotes_total > 1 ? " ..." : "",
                 (unsigned)rep.nnotes_total, (unsigned)rep.nrounded, rep.max_error,
                 rep.max_error_where[0] ? rep.max_error_where : "-");
        PyObject *text = message_text(msg);
        const char *clean = text ? PyUnicode_AsUTF8AndSize(text, NULL) : NULL;
        if (!clean || PyErr_WarnEx(PrecisionWarning, clean, 1) < 0) {
            Py_XDECREF(text);
            Py_DECREF(result);
            return NULL;
        }
        Py_DECREF(text);
    }
    return result;
}

static PyObject *atomic_write(PyObject *path, PyObject *data);

static PyObject *Animation_save(PyObject *self, PyObject *args, PyObject *kw)
{
    PyObject *path;
    if (!PyTuple_Check(args) || PyTuple_Size(args) != 1) {
        PyErr_SetString(PyExc_TypeError, "save(path, **options) takes exactly one positional argument");
        return NULL;
    }
    path = PyTuple_GetItem(args, 0);
    PyObject *empty = PyTuple_New(0);
    if (!empty) return NULL;
    PyObject *data = Animation_to_bytes(self, empty, kw);
    Py_DECREF(empty);
    if (!data) return NULL;
    PyObject *r = atomic_write(path, data);
    Py_DECREF(data);
    return r;
}

static PyObject *Animation_copy(PyObject *self, PyObject *unused)
{
    (void)unused;
    AnimationObject *a = (AnimationObject *)self;
    AnimationObject *b;
    if (a->has_orig) {
        ga_decode_opts opts = {a->orig.keyless_rule};
        b = (AnimationObject *)animation_from_data(a->orig_bytes, &opts);
    } else {
        b = animation_alloc(a->fmt);
    }
    if (!b) return NULL;
    b->frame_count = a->frame_count;
    b->fps = a->fps;
    b->loop = a->loop;
    b->rotation_frac = a->rotation_frac;
    b->calc_type = a->calc_type;
    b->start_frame = a->start_frame;
    b->layout = a->layout;
    b->keyless_rule = a->keyless_rule;
    GA_SETREF(b->compression, Py_NewRef(a->compression));
    if (!a->tracks) {
        /* never touched: the copy decodes the same tracks lazily */
        goto entries;
    }
    PyObject *tracks = PyList_New(0);
    if (!tracks) goto fail;
    for (Py_ssize_t i = 0; i < PyList_Size(a->tracks); i++) {
        PyObject *t = PyList_GetItem(a->tracks, i);
        PyObject *tc = PyObject_TypeCheck(t, TrackType) ? Track_copy(t, NULL) : NULL;
        if (!tc || PyList_Append(tracks, tc) < 0) {
            if (!tc && !PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "tracks[%zd] is not a gameanim.Track", i);
            Py_XDECREF(tc);
            Py_DECREF(tracks);
            goto fail;
        }
        Py_DECREF(tc);
    }
    GA_SETREF(b->tracks, tracks);
entries:;
    PyObject *entries = PyList_New(0);
    if (!entries) goto fail;
    for (Py_ssize_t i = 0; i < PyList_Size(a->entries); i++) {
        PyObject *e = PyList_GetItem(a->entries, i);
        PyObject *ec = PyDict_Check(e) ? PyDict_Copy(e) : Py_NewRef(e);
        if (!ec || PyList_Append(entries, ec) < 0) {
            Py_XDECREF(ec);
            Py_DECREF(entries);
            goto fail;
        }
        Py_DECREF(ec);
    }
    GA_SETREF(b->entries, entries);
    return (PyObject *)b;
fail:
    Py_DECREF(b);
    return NULL;
}

static PyObject *Animation_find(PyObject *self, PyObject *args)
{
    AnimationObject *a = (AnimationObject *)self;
    PyObject *target, *channel;
    int axis;
    if (!PyArg_ParseTuple(args, "OOi:find", &target, &channel, &axis)) return NULL;
    int ch;
    if (parse_channel(channel, &ch) < 0) return NULL;
    PyObject *tracks = ensure_tracks(a);
    if (!tracks) return NULL;
    for (Py_ssize_t i = 0; i < PyList_Size(tracks); i++) {
        PyObject *o = PyList_GetItem(tracks, i);
        if (!PyObject_TypeCheck(o, TrackType)) continue;
        TrackObject *t = (TrackObject *)o;
        if (t->channel != ch || t->axis != axis) continue;
        int eq = PyObject_RichCompareBool(t->target, target, Py_EQ);
        if (eq < 0) return NULL;
        if (eq) return Py_NewRef(o);
    }
    Py_RETURN_NONE;
}

static PyObject *Animation_original_bytes(PyObject *self, PyObject *unused)
{
    (void)unused;
    AnimationObject *a = (AnimationObject *)self;
    if (!a->has_orig) Py_RETURN_NONE;
    return Py_NewRef(a->orig_bytes);
}

static PyObject *Animation_is_modified(PyObject *self, PyObject *unused)
{
    (void)unused;
    AnimationObject *a = (AnimationObject *)self;
    if (!a->has_orig) Py_RETURN_TRUE;
    ga_clip c;
    if (clip_from_python(a, &c) < 0) return NULL;
    int same = c.ntracks == a->orig.ntracks && params_same(&c, &a->orig) && entries_same(&c, &a->orig);
    for (uint32_t i = 0; i < c.ntracks && same; i++)
        if (!ga_track_equal(&c.tracks[i], &a->orig.tracks[i])) same = 0;
    clip_release(a, &c, clip_borrows(a));
    return PyBool_FromLong(!same);
}

static PyGetSetDef Animation_getset[] = {
    {"format", Animation_get_format, NULL, "'bck', 'btk', 'bca', 'bk' or 'jba'.", NULL},
    {"frame_count", Animation_get_frame_count, Animation_set_frame_count, "Duration in frames (float).", NULL},
    {"fps", Animation_get_fps, Animation_set_fps, "Frames per second, or None when the format stores none.", NULL},
    {"loop", Animation_get_loop, Animation_set_loop,
     "'once', 'once_reset', 'loop', 'mirror_once', 'mirror_loop' or None.", NULL},
    {"tracks", Animation_get_obj, Animation_set_obj, "List of Track, in the format's order.", (void *)0},
    {"entries", Animation_get_obj, Animation_set_obj,
     "BTK: one dict per texture-matrix animation: material, texmtx_id, center (S, T, Q), post.", (void *)1},
    {"compression", Animation_get_obj, Animation_set_obj,
     "Compression wrapper used when saving: None or a wrapper name ('lz77', 'yaz0', ...).", (void *)2},
    {"info", Animation_get_obj, NULL, "Header fields of the loaded file (a copy).", (void *)3},
    {"encode_report", Animation_get_obj, NULL,
     "What the last to_bytes() did: quantisation error, rounded values, reused and re-encoded tracks.",
     (void *)4},
    {"rotation_frac", Animation_get_param, Animation_set_param,
     "J3D rotation shift (0..15), or None to choose the smallest that fits.", (void *)0},
    {"calc_type", Animation_get_param, Animation_set_param, "BTK texture-matrix calculation: 'basic' or 'maya'.",
     (void *)1},
    {"start_frame", Animation_get_param, Animation_set_param, "BK: the header's first frame.", (void *)2},
    {"layout", Animation_get_param, Animation_set_param, "JBA: 32 (legacy) or 64 (JAWB).", (void *)3},
    {"keyless_rule", Animation_get_param, Animation_set_param,
     "JBA: value of translations in blocks without keys: 'base' or 'base_plus_span'.", (void *)4},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *Animation_applied_tracks(PyObject *self, PyObject *unused)
{
    (void)unused;
    AnimationObject *a = (AnimationObject *)self;
    ga_clip c;
    if (clip_from_python(a, &c) < 0) return NULL;
    PyObject *result = NULL;
    uint8_t *keep = malloc((size_t)c.ntracks + 1);
    ga_error err;
    if (!keep) {
        PyErr_NoMemory();
    } else if (ga_applied_tracks(a->fmt, &c, keep, &err)) {
        raise_error(&err);
    } else if ((result = PyList_New(0)) != NULL) {
        for (uint32_t i = 0; i < c.ntracks; i++) {
            if (!keep[i]) continue;
            PyObject *v = PyLong_FromUnsignedLong(i);
            if (!v || PyList_Append(result, v) < 0) {
                Py_XDECREF(v);
                Py_CLEAR(result);
                break;
            }
            Py_DECREF(v);
        }
    }
    free(keep);
    clip_release(a, &c, clip_borrows(a));
    return result;
}

static PyMethodDef Animation_methods[] = {
    {"sample", Animation_sample, METH_O,
     "sample(frames) -> array('f')\n\nEvaluates every track at the frames (the file's own frame numbers, any "
     "float) as the game does.  Values are track-major: len(tracks) * len(frames)."},
    {"to_bytes", (PyCFunction)(void (*)(void))Animation_to_bytes, METH_VARARGS | METH_KEYWORDS,
     "to_bytes(*, compression=<self.compression>, tolerance=0.0, reencode=None) -> bytes\n\nEncodes the "
     "animation.  An unedited animation gives back exactly the bytes it was loaded from.  tolerance: key "
     "reduction tolerance for re-encoded tracks (0 = none): BCK / BTK fit Hermite keys to all-LINEAR tracks; "
     "BK drops the LINEAR keys its straight segments pass within the tolerance.  reencode='raw' always runs the encoder "
     "(reusing the original data of unchanged tracks); reencode='full' encodes every track from its values as "
     "if the animation were new."},
    {"save", (PyCFunction)(void (*)(void))Animation_save, METH_VARARGS | METH_KEYWORDS,
     "save(path, **options): to_bytes() written atomically (temporary file + rename)."},
    {"copy", Animation_copy, METH_NOARGS, "A deep copy that still remembers the original file."},
    {"find", Animation_find, METH_VARARGS, "find(target, channel, axis) -> Track or None"},
    {"original_bytes", Animation_original_bytes, METH_NOARGS,
     "The bytes the animation was loaded from (None for one built in Python)."},
    {"applied_tracks", Animation_applied_tracks, METH_NOARGS,
     "applied_tracks() -> list of track indices\n\nThe tracks the game applies to the pose, in order.  All of "
     "them, except in a Banjo-Kazooie file whose bone's elements are not adjacent or that names a channel twice: "
     "the game takes a bone's last run of adjacent elements (its other channels back at their defaults), the "
     "later element of a channel, and bone 0 only from the file's last run.  bake_pose follows the same rule."},
    {"is_modified", Animation_is_modified, METH_NOARGS,
     "True when to_bytes() would encode anew instead of returning the original bytes."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot Animation_slots[] = {
    {Py_tp_new, Animation_new},
    {Py_tp_dealloc, Animation_dealloc},
    {Py_tp_repr, Animation_repr},
    {Py_tp_getset, Animation_getset},
    {Py_tp_methods, Animation_methods},
    {Py_tp_doc,
     "Animation(format, tracks=(), *, frame_count=0.0, fps=None, loop=None, compression=None, entries=None, "
     "rotation_frac=None, calc_type=None, start_frame=None, layout=None, keyless_rule=None)\n\n"
     "One animation clip.  Use gameanim.load() to read a file; build one in Python to write a new file."},
    {0, NULL},
};

static PyType_Spec Animation_spec = {
    "gameanim.Animation",
    sizeof(AnimationObject),
    0,
    Py_TPFLAGS_DEFAULT,
    Animation_slots,
};

/* ------------------------------------------------------------------ */
/* zlib hooks: the C core inflates and deflates through Python's zlib   */

static void set_msg(char *msg, size_t cap, const char *text)
{
    snprintf(msg, cap, "%s", text);
}

static void set_msg_from_exc(char *msg, size_t cap)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *s = value ? PyObject_Str(value) : NULL;
    Py_ssize_t len = 0;
    const char *c = s ? PyUnicode_AsUTF8AndSize(s, &len) : NULL;
    snprintf(msg, cap, "zlib: %s", c ? c : "error");
    if (!c) PyErr_Clear();
    Py_XDECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

static int py_inflate(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *consumed, size_t *produced,
                      char *msg, size_t msgcap)
{
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = GA_ERR_FORMAT;
    PyObject *zlib = NULL, *d = NULL, *in = NULL, *out = NULL, *unused = NULL, *tail = NULL, *eof = NULL;
    zlib = PyImport_ImportModule("zlib");
    if (!zlib) goto pyerr;
    d = PyObject_CallMethod(zlib, "decompressobj", "i", -15);
    if (!d) goto pyerr;
    in = PyBytes_FromStringAndSize((const char *)src, (Py_ssize_t)n);
    if (!in) goto pyerr;
    out = PyObject_CallMethod(d, "decompress", "On", in, (Py_ssize_t)(cap + 1));
    if (!out) goto pyerr;
    unused = PyObject_GetAttrString(d, "unused_data");
    tail = PyObject_GetAttrString(d, "unconsumed_tail");
    eof = PyObject_GetAttrString(d, "eof");
    if (!unused || !tail || !eof) goto pyerr;
    Py_ssize_t olen = PyBytes_Size(out);
    if ((size_t)olen > cap) {
        set_msg(msg, msgcap, "the deflate stream produces more data than the header declares");
        goto done;
    }
    if (!PyObject_IsTrue(eof)) {
        set_msg(msg, msgcap, "the deflate stream ends before its final block (truncated?)");
        goto done;
    }
    memcpy(dst, PyBytes_AsString(out), (size_t)olen);
    *produced = (size_t)olen;
    *consumed = n - (size_t)PyBytes_Size(unused) - (size_t)PyBytes_Size(tail);
    rc = GA_OK;
    goto done;
pyerr:
    if (PyErr_ExceptionMatches(PyExc_MemoryError)) {
        PyErr_Clear();
        set_msg(msg, msgcap, "out of memory");
        rc = GA_ERR_NOMEM;
    } else {
        set_msg_from_exc(msg, msgcap);
    }
done:
    Py_XDECREF(zlib);
    Py_XDECREF(d);
    Py_XDECREF(in);
    Py_XDECREF(out);
    Py_XDECREF(unused);
    Py_XDECREF(tail);
    Py_XDECREF(eof);
    PyGILState_Release(g);
    return rc;
}

static int py_deflate(const uint8_t *src, size_t n, int level, ga_buf *outbuf, char *msg, size_t msgcap)
{
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = GA_ERR_ENCODE;
    PyObject *zlib = NULL, *c = NULL, *in = NULL, *a = NULL, *b = NULL;
    zlib = PyImport_ImportModule("zlib");
    if (!zlib) goto pyerr;
    /* raw deflate (wbits -15), memLevel 8 as gzip and zlib default */
    c = PyObject_CallMethod(zlib, "compressobj", "iiii", level, 8, -15, 8);
    if (!c) goto pyerr;
    in = PyBytes_FromStringAndSize((const char *)src, (Py_ssize_t)n);
    if (!in) goto pyerr;
    a = PyObject_CallMethod(c, "compress", "O", in);
    b = a ? PyObject_CallMethod(c, "flush", NULL) : NULL;
    if (!a || !b) goto pyerr;
    if (ga_buf_put(outbuf, PyBytes_AsString(a), (size_t)PyBytes_Size(a)) ||
        ga_buf_put(outbuf, PyBytes_AsString(b), (size_t)PyBytes_Size(b))) {
        set_msg(msg, msgcap, "out of memory");
        rc = GA_ERR_NOMEM;
        goto done;
    }
    rc = GA_OK;
    goto done;
pyerr:
    set_msg_from_exc(msg, msgcap);
done:
    Py_XDECREF(zlib);
    Py_XDECREF(c);
    Py_XDECREF(in);
    Py_XDECREF(a);
    Py_XDECREF(b);
    PyGILState_Release(g);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Module functions                                                    */

/* Reads a file path or returns a new reference to a bytes-like object. */
static PyObject *source_bytes(PyObject *source)
{
    if (PyObject_CheckBuffer(source) && !PyUnicode_Check(source)) return Py_NewRef(source);
    PyObject *path = PyOS_FSPath(source);
    if (!path) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "source must be a path (str or os.PathLike) or a bytes-like object, not %s",
                     Py_TYPE(source) ? "that type" : "?");
        return NULL;
    }
    PyObject *os = PyImport_ImportModule("os");
    if (!os) {
        Py_DECREF(path);
        return NULL;
    }
    PyObject *size = PyObject_CallMethod(os, "stat", "O", path);
    Py_DECREF(os);
    if (!size) {
        Py_DECREF(path);
        return NULL;
    }
    PyObject *st_size = PyObject_GetAttrString(size, "st_size");
    Py_DECREF(size);
    if (!st_size) {
        Py_DECREF(path);
        return NULL;
    }
    long long n = PyLong_AsLongLong(st_size);
    Py_DECREF(st_size);
    if ((unsigned long long)n > GA_MAX_INPUT_SIZE) {
        ga_error err;
        ga_fail(&err, GA_ERR_LIMIT, "", "file size", 0, "%lld bytes exceed the input limit of %zu bytes", n,
                GA_MAX_INPUT_SIZE);
        Py_DECREF(path);
        return raise_error(&err);
    }
    PyObject *io = PyImport_ImportModule("io");
    if (!io) {
        Py_DECREF(path);
        return NULL;
    }
    PyObject *f = PyObject_CallMethod(io, "open", "Os", path, "rb");
    Py_DECREF(io);
    Py_DECREF(path);
    if (!f) return NULL;
    PyObject *data = PyObject_CallMethod(f, "read", NULL);
    PyObject *r = PyObject_CallMethod(f, "close", NULL);
    Py_DECREF(f);
    if (!r) {
        Py_XDECREF(data);
        return NULL;
    }
    Py_DECREF(r);
    return data;
}

static PyObject *mod_load(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    static char *kwlist[] = {"source", "keyless_rule", NULL};
    PyObject *source, *keyless = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:load", kwlist, &source, &keyless)) return NULL;
    ga_decode_opts opts = {0};
    if (parse_keyless_rule(keyless, &opts.keyless_rule) < 0) return NULL;
    PyObject *data = source_bytes(source);
    if (!data) return NULL;
    PyObject *res = animation_from_data(data, &opts);
    Py_DECREF(data);
    return res;
}

static PyObject *mod_detect(PyObject *mod, PyObject *source)
{
    (void)mod;
    PyObject *data = source_bytes(source);
    if (!data) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
        Py_DECREF(data);
        return NULL;
    }
    ga_loaded l;
    ga_error err;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ga_load(view.buf, (size_t)view.len, NULL, &l, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    Py_DECREF(data);
    if (rc) return raise_error(&err);
    PyObject *res = Py_BuildValue("(ss)", l.format->name, l.wrapper ? l.wrapper->name : "none");
    ga_loaded_free(&l);
    if (res && PyTuple_GetItem(res, 1) && PyUnicode_CompareWithASCIIString(PyTuple_GetItem(res, 1), "none") == 0) {
        PyObject *r2 = Py_BuildValue("(OO)", PyTuple_GetItem(res, 0), Py_None);
        Py_DECREF(res);
        res = r2;
    }
    return res;
}

/* mkstemp makes the temporary file 0600: before it replaces the target it
 * gets the mode the replaced file had, else 0666 less the umask (what
 * open() would have given a new file).  Best effort: a failure keeps 0600. */
static void give_mode(PyObject *os, PyObject *fspath, PyObject *tmpname)
{
    long mode = -1;
    PyObject *st = PyObject_CallMethod(os, "stat", "O", fspath);
    if (st) {
        PyObject *m = PyObject_GetAttrString(st, "st_mode");
        if (m) {
            mode = PyLong_AsLong(m) & 07777;
            Py_DECREF(m);
        }
        Py_DECREF(st);
    }
    PyErr_Clear();
    if (mode < 0) {
#ifndef _WIN32
        mode_t u = umask(0);
        umask(u);
        mode = 0666 & ~(long)u;
#else
        return;
#endif
    }
    PyObject *r = PyObject_CallMethod(os, "chmod", "Ol", tmpname, mode);
    if (!r) PyErr_Clear();
    Py_XDECREF(r);
}

/* Writes data next to path and renames it into place: a failure leaves
 * any existing file untouched. */
static PyObject *atomic_write(PyObject *path, PyObject *data)
{
    PyObject *fspath = PyOS_FSPath(path);
    if (!fspath) return NULL;
    PyObject *os = PyImport_ImportModule("os");
    PyObject *tempfile = PyImport_ImportModule("tempfile");
    PyObject *ospath = os ? PyObject_GetAttrString(os, "path") : NULL;
    PyObject *res = NULL, *dir = NULL, *base = NULL, *prefix = NULL, *tmp = NULL, *fd = NULL, *tmpname = NULL;
    if (!os || !tempfile || !ospath) goto done;
    PyObject *abs = PyObject_CallMethod(ospath, "abspath", "O", fspath);
    if (!abs) goto done;
    dir = PyObject_CallMethod(ospath, "dirname", "O", abs);
    base = PyObject_CallMethod(ospath, "basename", "O", abs);
    Py_DECREF(abs);
    if (!dir || !base) goto done;
    if (PyUnicode_Check(base)) prefix = PyUnicode_FromFormat(".%U.", base);
    else prefix = PyBytes_FromString(".gameanim.");
    if (!prefix) goto done;
    PyObject *mk = PyObject_GetAttrString(tempfile, "mkstemp");
    if (!mk) goto done;
    PyObject *kwargs = Py_BuildValue("{s:O,s:O,s:s}", "dir", dir, "prefix", prefix, "suffix", ".tmp");
    PyObject *empty = PyTuple_New(0);
    if (kwargs && empty) tmp = PyObject_Call(mk, empty, kwargs);
    Py_DECREF(mk);
    Py_XDECREF(kwargs);
    Py_XDECREF(empty);
    if (!tmp) goto done;
    fd = Py_NewRef(PyTuple_GetItem(tmp, 0));
    tmpname = Py_NewRef(PyTuple_GetItem(tmp, 1));
    int ok = 0;
    {
        PyObject *f = PyObject_CallMethod(os, "fdopen", "Os", fd, "wb");
        if (f) {
            PyObject *w = PyObject_CallMethod(f, "write", "O", data);
            PyObject *fl = w ? PyObject_CallMethod(f, "flush", NULL) : NULL;
            PyObject *fileno = fl ? PyObject_CallMethod(f, "fileno", NULL) : NULL;
            PyObject *sync = fileno ? PyObject_CallMethod(os, "fsync", "O", fileno) : NULL;
            ok = sync != NULL;
            Py_XDECREF(w);
            Py_XDECREF(fl);
            Py_XDECREF(fileno);
            Py_XDECREF(sync);
            PyObject *exc_type = NULL, *exc_val = NULL, *exc_tb = NULL;
            if (!ok) PyErr_Fetch(&exc_type, &exc_val, &exc_tb);
            PyObject *cl = PyObject_CallMethod(f, "close", NULL);
            if (!cl) {
                if (ok) ok = 0;
                else PyErr_Clear();
            }
            Py_XDECREF(cl);
            if (exc_type) PyErr_Restore(exc_type, exc_val, exc_tb);
            Py_DECREF(f);
        } else {
            PyObject *cl = PyObject_CallMethod(os, "close", "O", fd);
            Py_XDECREF(cl);
        }
    }
    if (ok) give_mode(os, fspath, tmpname);
    if (ok) {
        PyObject *rep = PyObject_CallMethod(os, "replace", "OO", tmpname, fspath);
        if (rep) {
            Py_DECREF(rep);
            res = Py_NewRef(Py_None);
        } else {
            ok = 0;
        }
    }
    if (!ok) {
        PyObject *exc_type, *exc_val, *exc_tb;
        PyErr_Fetch(&exc_type, &exc_val, &exc_tb);
        PyObject *un = PyObject_CallMethod(os, "unlink", "O", tmpname);
        if (!un) PyErr_Clear();
        Py_XDECREF(un);
        PyErr_Restore(exc_type, exc_val, exc_tb);
    }
done:
    Py_XDECREF(fspath);
    Py_XDECREF(os);
    Py_XDECREF(tempfile);
    Py_XDECREF(ospath);
    Py_XDECREF(dir);
    Py_XDECREF(base);
    Py_XDECREF(prefix);
    Py_XDECREF(tmp);
    Py_XDECREF(fd);
    Py_XDECREF(tmpname);
    return res;
}

static PyObject *mod_save(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    PyObject *anim, *path;
    if (!PyTuple_Check(args) || PyTuple_Size(args) != 2) {
        PyErr_SetString(PyExc_TypeError, "save(animation, path, **options) takes two positional arguments");
        return NULL;
    }
    anim = PyTuple_GetItem(args, 0);
    path = PyTuple_GetItem(args, 1);
    if (!PyObject_TypeCheck(anim, AnimationType)) {
        PyErr_SetString(PyExc_TypeError, "save() needs a gameanim.Animation");
        return NULL;
    }
    PyObject *empty = PyTuple_New(0);
    if (!empty) return NULL;
    PyObject *data = Animation_to_bytes(anim, empty, kw);
    Py_DECREF(empty);
    if (!data) return NULL;
    PyObject *r = atomic_write(path, data);
    Py_DECREF(data);
    return r;
}

static PyObject *mod_write_atomic(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *path, *data;
    if (!PyArg_ParseTuple(args, "OO:write_atomic", &path, &data)) return NULL;
    if (!PyBytes_Check(data)) {
        PyErr_SetString(PyExc_TypeError, "write_atomic(path, data): data must be bytes");
        return NULL;
    }
    return atomic_write(path, data);
}

static PyObject *mod_frame_at(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    static char *kwlist[] = {"ticks", "duration", "loop", "rate", NULL};
    PyObject *ticks, *loop;
    double duration, rate = 1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OdO|d:frame_at", kwlist, &ticks, &duration, &loop, &rate))
        return NULL;
    int l;
    if (PyLong_Check(loop) && !PyBool_Check(loop)) {
        /* J3D's own loop-mode byte (0 once .. 4 mirrored loop), as
         * info['loop_mode'] reports it */
        long code = PyLong_AsLong(loop);
        if (code == -1 && PyErr_Occurred()) return NULL;
        if (code < 0 || code > 4) {
            PyErr_Format(PyExc_ValueError, "a J3D loop mode number is 0..4, not %ld", code);
            return NULL;
        }
        l = (int)code;
    } else {
        if (parse_loop(loop, &l) < 0) return NULL;
        if (l < 0) l = GA_LOOP_ONCE;
    }
    double *t;
    Py_ssize_t n;
    int scalar = PyFloat_Check(ticks) || PyLong_Check(ticks);
    if (read_frames(ticks, &t, &n) < 0) return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (t[i] > 1e8) {
            free(t);
            PyErr_SetString(PyExc_ValueError, "frame_at() simulates the game's clock tick by tick; ticks must be <= 1e8");
            return NULL;
        }
    float *out = malloc((size_t)(n + 1) * sizeof(float));
    if (!out) {
        free(t);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) out[i] = (float)ga_j3d_frame_at(t[i], duration, l, rate);
    Py_END_ALLOW_THREADS
    PyObject *res = scalar ? PyFloat_FromDouble(out[0]) : new_array("f", out, n * 4);
    free(out);
    free(t);
    return res;
}

/* A ";"-separated trait as a tuple of str ("" gives an empty tuple). */
static PyObject *split_list(const char *s)
{
    PyObject *l = PyList_New(0);
    while (l && s && *s) {
        const char *end = strchr(s, ';');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        PyObject *item = PyUnicode_FromStringAndSize(s, (Py_ssize_t)n);
        if (!item || PyList_Append(l, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(l);
            break;
        }
        Py_DECREF(item);
        s += n + (end ? 1 : 0);
    }
    if (!l) return NULL;
    PyObject *t = PyList_AsTuple(l);
    Py_DECREF(l);
    return t;
}

static PyObject *format_traits(const ga_format *f)
{
    const ga_format_traits *t = &f->traits;
    PyObject *ext = split_list(t->extensions), *comp = split_list(t->compressions);
    PyObject *d = NULL;
    if (ext && comp)
        d = Py_BuildValue("{s:s,s:s,s:O,s:s,s:s,s:z,s:z,s:O}", "name", f->name, "description", f->description,
                          "extensions", ext, "target_kind", t->target_kind, "values",
                          t->absolute ? "absolute" : "delta", "up_axis", t->up_axis, "bone_match", t->bone_match,
                          "compressions", comp);
    Py_XDECREF(ext);
    Py_XDECREF(comp);
    return d;
}

static PyObject *mod_formats(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *d = PyDict_New();
    for (size_t i = 0; d && ga_formats[i]; i++) {
        PyObject *traits = format_traits(ga_formats[i]);
        if (!traits || PyDict_SetItemString(d, ga_formats[i]->name, traits) < 0) {
            Py_XDECREF(traits);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(traits);
    }
    return d;
}

static PyObject *mod_compression_extensions(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *d = PyDict_New();
    for (size_t i = 0; d && ga_wrappers[i]; i++) {
        PyObject *ext = split_list(ga_wrappers[i]->extensions);
        if (!ext || PyDict_SetItemString(d, ga_wrappers[i]->name, ext) < 0) {
            Py_XDECREF(ext);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(ext);
    }
    return d;
}

static PyObject *mod_compressions(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && ga_wrappers[i]; i++) {
        PyObject *s = PyUnicode_FromString(ga_wrappers[i]->name);
        if (!s || PyList_Append(l, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(s);
    }
    return l;
}

static PyObject *mod_compress(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *name;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "sy*:compress", &name, &view)) return NULL;
    const ga_wrapper *w = ga_wrapper_by_name(name);
    if (!w) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "unknown compression %s", name);
        return NULL;
    }
    PyObject *r = wrap_payload(w, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return r;
}

static PyObject *mod_decompress(PyObject *mod, PyObject *args)
{
    (void)mod;
    const char *name;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "sy*:decompress", &name, &view)) return NULL;
    const ga_wrapper *w = ga_wrapper_by_name(name);
    if (!w) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "unknown compression %s", name);
        return NULL;
    }
    uint8_t *out = NULL;
    size_t size = 0;
    ga_error err;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = w->unwrap(view.buf, (size_t)view.len, &out, &size, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (rc) return raise_error(&err);
    PyObject *r = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)size);
    free(out);
    return r;
}


/* ------------------------------------------------------------------ */
/* Baking                                                              */

static int read_matrix(PyObject *obj, double m[16], Py_ssize_t bone, const char *what)
{
    if (obj == Py_None) {
        ga_mat_identity(m);
        return 0;
    }
    PyObject *seq = PySequence_Tuple(obj);
    if (!seq) return -1;
    Py_ssize_t n = PyTuple_Size(seq);
    if (n == 4) {
        /* a Blender Matrix (or any 4 rows of 4) */
        PyObject *flat = PyList_New(0);
        for (Py_ssize_t i = 0; flat && i < 4; i++) {
            PyObject *row = PySequence_Tuple(PyTuple_GetItem(seq, i));
            if (!row || PyTuple_Size(row) != 4) {
                Py_XDECREF(row);
                Py_CLEAR(flat);
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "bones[%zd]: %s must be 4x4 or 16 numbers", bone, what);
                break;
            }
            for (Py_ssize_t j = 0; j < 4; j++) PyList_Append(flat, PyTuple_GetItem(row, j));
            Py_DECREF(row);
        }
        Py_DECREF(seq);
        if (!flat) return -1;
        seq = PySequence_Tuple(flat);
        Py_DECREF(flat);
        if (!seq) return -1;
        n = PyTuple_Size(seq);
    }
    if (n != 16) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "bones[%zd]: %s must be 4x4 or 16 numbers (row-major)", bone, what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < 16; i++) {
        m[i] = PyFloat_AsDouble(PyTuple_GetItem(seq, i));
        if (m[i] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* target: an int, or the UTF-8 bytes of a name (name != NULL) */
static int target_matches(const ga_track *t, const char *name, long id)
{
    if (name) return t->target_name && strcmp(t->target_name, name) == 0;
    return !t->target_name && id == t->target;
}

typedef struct bake_bone {
    double pre[16], post[16];
    int32_t track[13]; /* scale xyz, euler xyz, translation xyz, quat wxyz */
} bake_bone;

static int mat_is_identity(const double m[16])
{
    for (int i = 0; i < 16; i++)
        if (m[i] != (i % 5 == 0 ? 1.0 : 0.0)) return 0;
    return 1;
}

/* ga_mat_decompose with the quaternion kept on the side of `prev` (the
 * previous frame's, updated), so that Blender's per-component
 * interpolation between frames goes the short way. */
static void decompose_continuous(const double m[16], double prev[4], double t[3], double q[4], double s[3])
{
    ga_mat_decompose(m, t, q, s);
    double dot = q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3];
    if (dot < 0.0)
        for (int i = 0; i < 4; i++) q[i] = -q[i];
    memcpy(prev, q, 4 * sizeof *prev);
}

/* Whether the values of n flat (x, y) pairs are one number: each equal to
 * the first bit for bit (a NaN too) or as a number (0.0 and -0.0). */
static int values_one_number(const float *co, Py_ssize_t n)
{
    uint32_t first;
    memcpy(&first, &co[1], 4);
    for (Py_ssize_t f = 1; f < n; f++) {
        uint32_t bits;
        memcpy(&bits, &co[2 * (size_t)f + 1], 4);
        if (bits != first && !(co[2 * (size_t)f + 1] == co[1])) return 0;
    }
    return 1;
}

/* bake_pose for one bone (no Python objects: runs without the GIL):
 * samples its 13 channels into `samples` (13 x nf floats), then writes the
 * 10 basis channels as (frame, value) pairs into o[0..9] (2 x nf each). */
static int bake_one_bone(const ga_clip *c, const ga_format *fmt, const bake_bone *bone, const double *frames,
                         Py_ssize_t nf, double tscale, double time_scale, double time_offset, float *samples,
                         float *const o[10], ga_error *err)
{
    int has_quat = bone->track[9] >= 0 || bone->track[10] >= 0 || bone->track[11] >= 0 || bone->track[12] >= 0;
    for (int k = 0; k < 13; k++) {
        float *dst = samples + (size_t)k * (size_t)nf;
        int ti = bone->track[k];
        if (ti < 0) {
            float d = (k < 3 || k == 9) ? 1.0f : 0.0f;
            for (Py_ssize_t f = 0; f < nf; f++) dst[f] = d;
        } else if (fmt->sample) {
            int rc = fmt->sample(c, (uint32_t)ti, frames, (size_t)nf, dst, err);
            if (rc) return rc;
        } else {
            ga_track_eval_many(&c->tracks[ti], frames, (size_t)nf, dst);
        }
    }
    const float *S = samples;
    /* multiplying by an identity matrix changes nothing (finite values):
     * skip it */
    int pre_id = mat_is_identity(bone->pre), post_id = mat_is_identity(bone->post);
    double prev[4] = {1, 0, 0, 0};
    for (Py_ssize_t f = 0; f < nf; f++) {
        double sc[3], tr[3], q[4];
        for (int i = 0; i < 3; i++) {
            sc[i] = S[(size_t)i * nf + f];
            tr[i] = S[(size_t)(6 + i) * nf + f] * tscale;
        }
        if (has_quat) {
            for (int i = 0; i < 4; i++) q[i] = S[(size_t)(9 + i) * nf + f];
        } else {
            double e[3] = {S[(size_t)3 * nf + f], S[(size_t)4 * nf + f], S[(size_t)5 * nf + f]};
            ga_quat_from_euler_xyz(e, q);
        }
        double local[16], m[16], basis[16];
        ga_mat_from_trs(tr, q, sc, local);
        const double *cur = local;
        if (!pre_id) {
            ga_mat_mul(bone->pre, cur, m);
            cur = m;
        }
        if (!post_id) {
            ga_mat_mul(cur, bone->post, basis);
            cur = basis;
        }
        double bt[3], bq[4], bs[3];
        decompose_continuous(cur, prev, bt, bq, bs);
        double vals[10] = {bt[0], bt[1], bt[2], bq[0], bq[1], bq[2], bq[3], bs[0], bs[1], bs[2]};
        float x = (float)(frames[f] * time_scale + time_offset);
        for (int k = 0; k < 10; k++) {
            o[k][2 * (size_t)f] = x;
            o[k][2 * (size_t)f + 1] = (float)vals[k];
        }
    }
    return GA_OK;
}

static PyObject *mod_bake_pose(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    static char *kwlist[] = {"animation", "bones", "frames", "translation_scale", "time_scale", "time_offset",
                             "collapse", NULL};
    PyObject *anim_obj, *bones_obj, *frames_obj;
    double tscale = 1.0, time_scale = 1.0, time_offset = 0.0;
    int collapse = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!OO|ddd$p:bake_pose", kwlist, AnimationType, &anim_obj, &bones_obj,
                                     &frames_obj, &tscale, &time_scale, &time_offset, &collapse))
        return NULL;
    AnimationObject *a = (AnimationObject *)anim_obj;
    PyObject *bones = PySequence_List(bones_obj);
    if (!bones) return NULL;
    Py_ssize_t nb = PyList_Size(bones);
    double *frames = NULL;
    Py_ssize_t nf = 0;
    bake_bone *bb = NULL;
    float *samples = NULL, *scratch = NULL;
    uint8_t *keep = NULL;
    PyObject *result = NULL;
    ga_clip c;
    int have_clip = 0;
    if (read_frames(frames_obj, &frames, &nf) < 0) goto done;
    if (clip_from_python(a, &c) < 0) goto done;
    have_clip = 1;
    bb = calloc((size_t)nb + 1, sizeof *bb);
    keep = malloc((size_t)c.ntracks + 1);
    if (!bb || !keep) {
        PyErr_NoMemory();
        goto done;
    }
    {
        /* the tracks the game applies (Banjo-Kazooie: a bone's last run of
         * elements, the later of two elements of one channel) */
        ga_error kerr;
        if (ga_applied_tracks(a->fmt, &c, keep, &kerr)) {
            raise_error(&kerr);
            goto done;
        }
    }
    for (Py_ssize_t b = 0; b < nb; b++) {
        PyObject *item = PyList_GetItem(bones, b);
        PyObject *tup = PySequence_Tuple(item);
        if (!tup) goto done;
        if (PyTuple_Size(tup) != 3) {
            Py_DECREF(tup);
            PyErr_Format(PyExc_ValueError, "bones[%zd] must be (target, pre_matrix, post_matrix)", b);
            goto done;
        }
        PyObject *target = PyTuple_GetItem(tup, 0);
        PyObject *name_bytes = NULL;
        const char *name = NULL;
        long id = -1;
        if (PyUnicode_Check(target)) {
            name_bytes = PyUnicode_AsEncodedString(target, "utf-8", "surrogateescape");
            if (!name_bytes) {
                Py_DECREF(tup);
                goto done;
            }
            name = PyBytes_AsString(name_bytes);
        } else {
            id = PyLong_AsLong(target);
            if (id == -1 && PyErr_Occurred()) {
                Py_DECREF(tup);
                PyErr_Format(PyExc_TypeError, "bones[%zd]: target must be an int or a str", b);
                goto done;
            }
        }
        if (read_matrix(PyTuple_GetItem(tup, 1), bb[b].pre, b, "pre_matrix") < 0 ||
            read_matrix(PyTuple_GetItem(tup, 2), bb[b].post, b, "post_matrix") < 0) {
            Py_XDECREF(name_bytes);
            Py_DECREF(tup);
            goto done;
        }
        for (int k = 0; k < 13; k++) bb[b].track[k] = -1;
        for (uint32_t i = 0; i < c.ntracks; i++) {
            const ga_track *t = &c.tracks[i];
            if (!keep[i] || !target_matches(t, name, id)) continue;
            int slot = t->channel == GA_CH_ROTATION_QUATERNION ? 9 + t->axis : t->channel * 3 + t->axis;
            if (slot < 13 && bb[b].track[slot] < 0) bb[b].track[slot] = (int32_t)i;
        }
        Py_XDECREF(name_bytes);
        Py_DECREF(tup);
    }
    size_t per_bone = (size_t)nf * 13;
    size_t total;
    if (ga_mul_size(per_bone, (size_t)nb, &total) || total > ((size_t)1 << 30)) {
        PyErr_SetString(PyExc_ValueError, "too many bones x frames to bake at once");
        goto done;
    }
    /* One bone at a time: its samples and its 10 baked buffers go to
     * scratch memory without the GIL, then into arrays of the size they
     * need (one key for a constant channel with collapse): never every
     * bone's full-length buffers at once. */
    samples = malloc((per_bone + 1) * sizeof(float));
    scratch = malloc(((size_t)nf * 20 + 1) * sizeof(float));
    result = PyList_New(nb);
    if (!samples || !scratch || !result) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    ga_error err;
    int rc = GA_OK;
    const ga_format *fmt = a->fmt;
    for (Py_ssize_t b = 0; b < nb; b++) {
        float *o[10];
        for (int k = 0; k < 10; k++) o[k] = scratch + (size_t)k * 2 * (size_t)nf;
        Py_BEGIN_ALLOW_THREADS
        rc = bake_one_bone(&c, fmt, &bb[b], frames, nf, tscale, time_scale, time_offset, samples, o, &err);
        Py_END_ALLOW_THREADS
        if (rc) {
            raise_error(&err);
            goto done;
        }
        PyObject *tup = PyTuple_New(10);
        if (!tup) goto done;
        PyList_SetItem(result, b, tup);
        for (int k = 0; k < 10; k++) {
            Py_ssize_t keep = collapse && nf > 1 && values_one_number(o[k], nf) ? 1 : nf;
            PyObject *arr = new_array("f", o[k], keep * 2 * (Py_ssize_t)sizeof(float));
            if (!arr) goto done;
            PyTuple_SetItem(tup, k, arr);
        }
    }
done:
    if (PyErr_Occurred()) Py_CLEAR(result);
    free(scratch);
    free(frames);
    free(bb);
    free(keep);
    free(samples);
    if (have_clip) clip_release(a, &c, clip_borrows(a));
    Py_DECREF(bones);
    return result;
}


/* Robustness sweep used by the tests: every truncation and every single
 * flipped byte of `data` must either decode or fail with a format error.
 * Runs in C (no Python objects per case) so that large samples can be
 * swept completely. */
static PyObject *mod_robustness_sweep(PyObject *mod, PyObject *args)
{
    (void)mod;
    Py_buffer view;
    Py_ssize_t stride = 1, first = 0, last = -1;
    int do_truncate = 1, do_flip = 1;
    if (!PyArg_ParseTuple(args, "y*|nnnpp:_robustness_sweep", &view, &stride, &first, &last, &do_truncate, &do_flip))
        return NULL;
    if (stride < 1) stride = 1;
    size_t n = (size_t)view.len;
    size_t lo = first < 0 ? 0 : (size_t)first;
    size_t hi = last < 0 || (size_t)last > n ? n : (size_t)last;
    uint8_t *buf = malloc(n + 1);
    if (!buf) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    long long decoded = 0, rejected = 0;
    int bad = 0;
    size_t bad_at = 0;
    int bad_kind = 0;
    ga_error bad_err;
    Py_BEGIN_ALLOW_THREADS
    for (size_t i = lo; i < hi && !bad; i += (size_t)stride) {
        for (int kind = 0; kind < 2 && !bad; kind++) {
            if ((kind == 0 && !do_truncate) || (kind == 1 && !do_flip)) continue;
            size_t len = kind == 0 ? i : n;
            memcpy(buf, view.buf, n);
            if (kind == 1) buf[i] ^= 0xFF;
            ga_loaded l;
            ga_error err;
            int rc = ga_load(buf, len, NULL, &l, &err);
            if (rc == GA_OK) {
                decoded++;
                double frames[3] = {-0.5, 0.5, l.clip.frame_count};
                float out[3];
                for (uint32_t t = 0; t < l.clip.ntracks && !bad; t++) {
                    int src = l.format->sample ? l.format->sample(&l.clip, t, frames, 3, out, &err) : GA_OK;
                    if (src != GA_OK && src != GA_ERR_FORMAT) {
                        bad = 1;
                        bad_at = i;
                        bad_kind = kind;
                        bad_err = err;
                    }
                }
                ga_loaded_free(&l);
            } else if (rc == GA_ERR_FORMAT || rc == GA_ERR_LIMIT) {
                rejected++;
            } else {
                bad = 1;
                bad_at = i;
                bad_kind = kind;
                bad_err = err;
            }
        }
    }
    Py_END_ALLOW_THREADS
    free(buf);
    PyBuffer_Release(&view);
    if (bad)
        return PyErr_Format(PyExc_AssertionError, "%s at byte %zu failed with an unexpected error: %s",
                            bad_kind ? "flipping the byte" : "truncating", bad_at, bad_err.message);
    return Py_BuildValue("{s:L,s:L}", "decoded", decoded, "rejected", rejected);
}


/* ------------------------------------------------------------------ */
/* Export helpers                                                      */

static int float_buffer(PyObject *obj, const char *code, Py_ssize_t itemsize, const char *what, Py_buffer *view,
                        PyObject **holder)
{
    *holder = is_array_of(obj, code) ? Py_NewRef(obj) : NULL;
    if (!*holder) {
        if (PyObject_CheckBuffer(obj)) {
            if (get_buffer(obj, view, code, itemsize, what) == 0) {
                *holder = Py_NewRef(obj);
                return 0;
            }
            PyErr_Clear();
        }
        *holder = as_array(obj, code, what);
        if (!*holder) return -1;
    }
    if (get_buffer(*holder, view, code, itemsize, what) < 0) {
        Py_CLEAR(*holder);
        return -1;
    }
    return 0;
}

static PyObject *mod_evaluate_fcurve(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    static char *kwlist[] = {"co", "handle_left", "handle_right", "interpolation", "frames", "extrapolation",
                             "slopes", NULL};
    PyObject *co_o, *l_o, *r_o, *i_o, *f_o;
    const char *extrap = "CONSTANT";
    int want_slopes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO|s$p:evaluate_fcurve", kwlist, &co_o, &l_o, &r_o, &i_o, &f_o,
                                     &extrap, &want_slopes))
        return NULL;
    int linear = 0;
    if (strcmp(extrap, "LINEAR") == 0) linear = 1;
    else if (strcmp(extrap, "CONSTANT") != 0) {
        PyErr_SetString(PyExc_ValueError, "extrapolation must be 'CONSTANT' or 'LINEAR'");
        return NULL;
    }
    Py_buffer v[4];
    PyObject *h[4] = {NULL, NULL, NULL, NULL};
    PyObject *objs[4] = {co_o, l_o, r_o, i_o};
    const char *names[4] = {"co", "handle_left", "handle_right", "interpolation"};
    int got = 0;
    PyObject *res = NULL;
    double *frames = NULL;
    Py_ssize_t nf = 0;
    for (int k = 0; k < 4; k++) {
        if (float_buffer(objs[k], k < 3 ? "f" : "i", 4, names[k], &v[k], &h[k]) < 0) goto done;
        got++;
    }
    Py_ssize_t n = v[3].len / 4;
    for (int k = 0; k < 3; k++)
        if (v[k].len / 4 != 2 * n) {
            PyErr_Format(PyExc_ValueError, "%s must hold 2 floats per key (%zd keys)", names[k], n);
            goto done;
        }
    if (read_frames(f_o, &frames, &nf) < 0) goto done;
    float *out = malloc((size_t)(nf + 1) * sizeof(float));
    if (!out) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nf; i++)
        out[i] = (float)ga_fcurve_eval(v[0].buf, v[1].buf, v[2].buf, v[3].buf, (size_t)n, frames[i], linear);
    res = new_array("f", out, nf * 4);
    if (res && want_slopes) {
        float *sl = malloc((size_t)(2 * nf + 1) * sizeof(float));
        if (!sl) {
            free(out);
            Py_CLEAR(res);
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < nf; i++) {
            sl[i] = (float)ga_fcurve_slope(v[0].buf, v[1].buf, v[2].buf, v[3].buf, (size_t)n, frames[i], -1, linear);
            sl[nf + i] = (float)ga_fcurve_slope(v[0].buf, v[1].buf, v[2].buf, v[3].buf, (size_t)n, frames[i], 1, linear);
        }
        PyObject *li = new_array("f", sl, nf * 4), *ri = new_array("f", sl + nf, nf * 4);
        free(sl);
        if (!li || !ri) {
            Py_XDECREF(li);
            Py_XDECREF(ri);
            Py_CLEAR(res);
        } else {
            res = Py_BuildValue("(NNN)", res, li, ri);
        }
    }
    free(out);
done:
    free(frames);
    for (int k = 0; k < got; k++) PyBuffer_Release(&v[k]);
    for (int k = 0; k < 4; k++) Py_XDECREF(h[k]);
    return res;
}

static PyObject *mod_local_from_basis(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    static char *kwlist[] = {"pre", "post", "location", "rotation", "scale", "rotation_mode", "translation_scale",
                             NULL};
    PyObject *pre_o, *post_o, *loc_o, *rot_o, *scale_o;
    const char *mode = "QUATERNION";
    double tscale = 1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO|sd:local_from_basis", kwlist, &pre_o, &post_o, &loc_o, &rot_o,
                                     &scale_o, &mode, &tscale))
        return NULL;
    double pre[16], post[16], ipre[16], ipost[16];
    if (read_matrix(pre_o, pre, 0, "pre") < 0 || read_matrix(post_o, post, 0, "post") < 0) return NULL;
    if (!ga_mat_invert(pre, ipre) || !ga_mat_invert(post, ipost)) {
        PyErr_SetString(PyExc_ValueError, "pre or post matrix is singular");
        return NULL;
    }
    if (tscale == 0.0) {
        PyErr_SetString(PyExc_ValueError, "translation_scale must not be 0");
        return NULL;
    }
    int nrot = strcmp(mode, "QUATERNION") == 0 || strcmp(mode, "AXIS_ANGLE") == 0 ? 4 : 3;
    if (nrot == 3) {
        double q[4], e[3] = {0, 0, 0};
        if (strlen(mode) != 3 || !ga_quat_from_euler(e, mode, q) || !strchr(mode, 'X') || !strchr(mode, 'Y') ||
            !strchr(mode, 'Z')) {
            PyErr_Format(PyExc_ValueError, "unknown rotation_mode %s", mode);
            return NULL;
        }
    }
    PyObject *groups[3] = {loc_o, rot_o, scale_o};
    int counts[3] = {3, nrot, 3};
    PyObject *holders[10] = {NULL};
    Py_buffer views[10];
    int nv = 0;
    PyObject *res = NULL;
    float *out = NULL;
    Py_ssize_t nf = -1;
    double skew = 0.0;
    Py_ssize_t skew_at = 0;
    for (int g = 0; g < 3; g++) {
        PyObject *seq = PySequence_Tuple(groups[g]);
        if (!seq) goto done;
        if (PyTuple_Size(seq) != counts[g]) {
            PyErr_Format(PyExc_ValueError, "%s needs %d sequences of per-frame values",
                         g == 0 ? "location" : g == 1 ? "rotation" : "scale", counts[g]);
            Py_DECREF(seq);
            goto done;
        }
        for (int k = 0; k < counts[g]; k++) {
            if (float_buffer(PyTuple_GetItem(seq, k), "f", 4, "per-frame values", &views[nv], &holders[nv]) < 0) {
                Py_DECREF(seq);
                goto done;
            }
            Py_ssize_t len = views[nv].len / 4;
            nv++;
            if (nf < 0) nf = len;
            else if (len != nf) {
                PyErr_SetString(PyExc_ValueError, "all per-frame sequences must have the same length");
                Py_DECREF(seq);
                goto done;
            }
        }
        Py_DECREF(seq);
    }
    out = malloc(((size_t)nf * 13 + 1) * sizeof(float));
    if (!out) {
        PyErr_NoMemory();
        goto done;
    }
    {
        const float *L[3], *R[4], *S[3];
        int vi = 0;
        for (int k = 0; k < 3; k++) L[k] = views[vi++].buf;
        for (int k = 0; k < nrot; k++) R[k] = views[vi++].buf;
        for (int k = 0; k < 3; k++) S[k] = views[vi++].buf;
        double prev_e[3] = {0, 0, 0}, prev_q[4] = {1, 0, 0, 0};
        for (Py_ssize_t f = 0; f < nf; f++) {
            double t[3] = {L[0][f], L[1][f], L[2][f]}, s[3] = {S[0][f], S[1][f], S[2][f]}, q[4];
            if (strcmp(mode, "QUATERNION") == 0) {
                for (int k = 0; k < 4; k++) q[k] = R[k][f];
            } else if (strcmp(mode, "AXIS_ANGLE") == 0) {
                double ang = R[0][f], ax = R[1][f], ay = R[2][f], az = R[3][f];
                double len = sqrt(ax * ax + ay * ay + az * az);
                if (len > 0.0) {
                    double sn = sin(ang * 0.5) / len;
                    q[0] = cos(ang * 0.5);
                    q[1] = ax * sn;
                    q[2] = ay * sn;
                    q[3] = az * sn;
                } else {
                    q[0] = 1.0;
                    q[1] = q[2] = q[3] = 0.0;
                }
            } else {
                double e[3] = {R[0][f], R[1][f], R[2][f]};
                ga_quat_from_euler(e, mode, q);
            }
            double basis[16], m[16], local[16];
            ga_mat_from_trs(t, q, s, basis);
            ga_mat_mul(ipre, basis, m);
            ga_mat_mul(m, ipost, local);
            double lt[3], lq[4], ls[3];
            decompose_continuous(local, prev_q, lt, lq, ls);
            /* What translation / rotation / scale cannot hold (a skew: a
             * non-uniform scale turned by a rest rotation): the largest
             * difference of the 3x3 part from its recomposition. */
            double back[16];
            ga_mat_from_trs(lt, lq, ls, back);
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) {
                    double d = fabs(local[4 * r + c] - back[4 * r + c]);
                    if (d > skew) {
                        skew = d;
                        skew_at = f;
                    }
                }
            double rot[16], zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, e[3];
            ga_mat_from_trs(zero, lq, one, rot);
            ga_euler_xyz_from_mat(rot, prev_e, f > 0, e);
            memcpy(prev_e, e, sizeof prev_e);
            double vals[13] = {lt[0] / tscale, lt[1] / tscale, lt[2] / tscale, e[0], e[1], e[2],
                               lq[0], lq[1], lq[2], lq[3], ls[0], ls[1], ls[2]};
            for (int k = 0; k < 13; k++) out[(size_t)k * nf + f] = (float)vals[k];
        }
    }
    {
        PyObject *arrs[13];
        for (int k = 0; k < 13; k++) {
            arrs[k] = new_array("f", out + (size_t)k * nf, nf * 4);
            if (!arrs[k]) {
                for (int j = 0; j < k; j++) Py_DECREF(arrs[j]);
                goto done;
            }
        }
        res = Py_BuildValue("{s:(NNN),s:(NNN),s:(NNNN),s:(NNN),s:(dn)}", "translation", arrs[0], arrs[1], arrs[2],
                            "euler", arrs[3], arrs[4], arrs[5], "quaternion", arrs[6], arrs[7], arrs[8], arrs[9],
                            "scale", arrs[10], arrs[11], arrs[12], "skew", skew, skew_at);
    }
done:
    free(out);
    for (int k = 0; k < nv; k++) PyBuffer_Release(&views[k]);
    for (int k = 0; k < 10; k++) Py_XDECREF(holders[k]);
    return res;
}

static PyMethodDef module_methods[] = {
    {"load", (PyCFunction)(void (*)(void))mod_load, METH_VARARGS | METH_KEYWORDS,
     "load(source, *, keyless_rule='base') -> Animation\n\nReads an animation from a path (str or os.PathLike) "
     "or a bytes-like object.  The format and any compression wrapper are detected from the content.  Raises "
     "FormatError (with .format, .field and .offset) for anything that is not a valid file."},
    {"detect", mod_detect, METH_O, "detect(source) -> (format, compression or None)"},
    {"save", (PyCFunction)(void (*)(void))mod_save, METH_VARARGS | METH_KEYWORDS,
     "save(animation, path, **options): animation.to_bytes(**options) written atomically."},
    {"write_atomic", mod_write_atomic, METH_VARARGS,
     "write_atomic(path, data): writes bytes through a temporary file in the same folder and a rename."},
    {"frame_at", (PyCFunction)(void (*)(void))mod_frame_at, METH_VARARGS | METH_KEYWORDS,
     "frame_at(ticks, duration, loop, rate=1.0) -> float or array('f')\n\nThe frame the J3D runtime "
     "(J3DFrameCtrl) shows after `ticks` updates of an animation of `duration` frames played in loop mode "
     "`loop` (a name of LOOP_MODES, or the file's loop-mode byte 0..4) at `rate` frames per tick, in single "
     "precision as the game computes it."},
    {"bake_pose", (PyCFunction)(void (*)(void))mod_bake_pose, METH_VARARGS | METH_KEYWORDS,
     "bake_pose(animation, bones, frames, translation_scale=1.0, time_scale=1.0, time_offset=0.0, *, "
     "collapse=False) -> list\n\n"
     "Samples every bone's channels at the frames (game-exact, as Animation.sample), builds the local matrix "
     "L = T(translation * translation_scale) * R * S (R from Euler XYZ or the quaternion channels) and returns, "
     "per bone, the pose basis pre * L * post decomposed into 10 FCurve 'co' buffers: location x, y, z, "
     "rotation_quaternion w, x, y, z (sign kept continuous), scale x, y, z.  Each is an array('f') of "
     "(frame * time_scale + time_offset, value) pairs.  bones: sequence of (target, pre_matrix, post_matrix); "
     "matrices are 4x4 (rows) or 16 numbers row-major, or None for identity.  With collapse=True a buffer whose "
     "values are all one number (as numbers: 0.0 and -0.0 are one) keeps its first key only.  "
     "For absolute formats use "
     "pre = rest_local.inverted(), post = None; for Banjo-Kazooie deltas pre = Q.inverted(), post = Q with Q the "
     "bone's rest rotation in armature space."},
    {"evaluate_fcurve", (PyCFunction)(void (*)(void))mod_evaluate_fcurve, METH_VARARGS | METH_KEYWORDS,
     "evaluate_fcurve(co, handle_left, handle_right, interpolation, frames, extrapolation='CONSTANT', *, "
     "slopes=False) -> array('f')\n\nEvaluates a Blender F-curve from its keyframe buffers (as "
     "keyframe_points.foreach_get gives them: x, y pairs as float32 and the interpolation codes as int32) at the "
     "frames, the way Blender does (Bezier handles shortened where they overlap in time).  With slopes=True "
     "returns (values, left_slopes, right_slopes): the curve's derivative per frame arriving at and leaving each "
     "frame (they differ at corners), ready for Track(..., in_slopes, out_slopes) and fit(use_slopes=True)."},
    {"local_from_basis", (PyCFunction)(void (*)(void))mod_local_from_basis, METH_VARARGS | METH_KEYWORDS,
     "local_from_basis(pre, post, location, rotation, scale, rotation_mode='QUATERNION', translation_scale=1.0) "
     "-> dict\n\nThe inverse of bake_pose for one bone: per-frame pose-basis channels (location: 3 sequences, "
     "rotation: 4 for QUATERNION (w, x, y, z) or AXIS_ANGLE (angle, x, y, z), 3 for an Euler order such as 'XYZ', "
     "scale: 3) become the local transform pre^-1 * basis * post^-1, returned as 'translation' (divided by "
     "translation_scale), 'euler' (XYZ, continuous from frame to frame), 'quaternion' (w, x, y, z, continuous "
     "sign) and 'scale', each a tuple of array('f'), and 'skew': (largest difference of the local 3x3 from "
     "its translation/rotation/scale recomposition, the frame index where it is): what the channels cannot hold "
     "(a non-uniform scale turned by a rest rotation)."},
    {"formats", mod_formats, METH_NOARGS,
     "formats() -> {name: traits}\n\nEach format of the registry with its traits: 'name', 'description', "
     "'extensions' (the usual first), 'target_kind' ('joint', 'bone_id', 'bone_name' or 'material_entry'), "
     "'values' ('absolute': they replace the rest pose; 'delta': applied on it), 'up_axis' (the game's up "
     "axis, None when not spatial), 'bone_match' (default rig matching: 'INDEX', 'ID', 'NAME'; None without "
     "a rig) and 'compressions' (the wrappers the games ship it in)."},
    {"compression_extensions", mod_compression_extensions, METH_NOARGS,
     "compression_extensions() -> {wrapper name: tuple of file extensions that name a wrapped file}"},
    {"_robustness_sweep", mod_robustness_sweep, METH_VARARGS,
     "_robustness_sweep(data, stride=1, first=0, last=len, truncate=True, flip=True) -> {'decoded': n, 'rejected': m} "
     "(for the test suite): loads every truncation and/or every single-byte flip of data at offsets first..last "
     "(every stride-th) in C; raises AssertionError on any outcome other than a "
     "decode or a format error."},
    {"compressions", mod_compressions, METH_NOARGS, "compressions() -> list of wrapper names"},
    {"compress", mod_compress, METH_VARARGS, "compress(name, data) -> bytes with that wrapper"},
    {"decompress", mod_decompress, METH_VARARGS, "decompress(name, data) -> the unwrapped bytes"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "gameanim._core",
    "Game animation codecs: Nintendo J3D BCK/BTK, Super Mario 64 DS BCA, Banjo-Kazooie animations and SWTOR JBA.\n\n"
    "Decodes losslessly (an unedited file encodes back to the same bytes), evaluates curves as the games do, and "
    "converts to and from one format-neutral clip of tracks.",
    -1,
    module_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

static PyObject *new_exception(PyObject *m, const char *name, PyObject *base, const char *doc)
{
    char full[64];
    snprintf(full, sizeof full, "gameanim.%s", name);
    PyObject *e = PyErr_NewExceptionWithDoc(full, doc, base, NULL);
    if (!e) return NULL;
    if (PyModule_AddObject(m, name, Py_NewRef(e)) < 0) {
        Py_DECREF(e);
        Py_DECREF(e);
        return NULL;
    }
    return e;
}

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    ga_set_zlib(py_inflate, py_deflate);
    PyObject *array = PyImport_ImportModule("array");
    if (!array) goto fail;
    ArrayType = PyObject_GetAttrString(array, "array");
    Py_DECREF(array);
    if (!ArrayType) goto fail;
    for (int i = 0; i < 4; i++) {
        char code[2] = {ZeroCodes[i], 0};
        ZeroArrays[i] = PyObject_CallFunction(ArrayType, "s(i)", code, 0);
        if (!ZeroArrays[i]) goto fail;
    }
    FormatError = new_exception(m, "FormatError", PyExc_ValueError,
                                "The bytes are not a valid animation file.  Attributes: format, field, offset.");
    EncodeError = new_exception(m, "EncodeError", PyExc_ValueError,
                                "The animation cannot be written in the chosen format (a value out of range, too "
                                "many keys, a name too long...).  Attributes: format, field, offset.");
    PrecisionWarning = new_exception(m, "PrecisionWarning", PyExc_UserWarning,
                                     "Values were rounded to what the format can store.");
    if (!FormatError || !EncodeError || !PrecisionWarning) goto fail;
    /* Class-level defaults so that every instance has the attributes. */
    PyObject *excs[2] = {FormatError, EncodeError};
    for (int i = 0; i < 2; i++) {
        PyObject_SetAttrString(excs[i], "format", Py_None);
        PyObject_SetAttrString(excs[i], "field", Py_None);
        PyObject_SetAttrString(excs[i], "offset", Py_None);
    }
    TrackType = (PyTypeObject *)PyType_FromSpec(&Track_spec);
    if (!TrackType) goto fail;
    AnimationType = (PyTypeObject *)PyType_FromSpec(&Animation_spec);
    if (!AnimationType) goto fail;
    if (PyModule_AddObject(m, "Track", Py_NewRef((PyObject *)TrackType)) < 0) goto fail;
    if (PyModule_AddObject(m, "Animation", Py_NewRef((PyObject *)AnimationType)) < 0) goto fail;
    PyModule_AddIntConstant(m, "CONSTANT", GA_INTERP_CONSTANT);
    PyModule_AddIntConstant(m, "LINEAR", GA_INTERP_LINEAR);
    PyModule_AddIntConstant(m, "BEZIER", GA_INTERP_BEZIER);
    PyModule_AddStringConstant(m, "__version__", GAMEANIM_VERSION);
    PyObject *loops = Py_BuildValue("(sssss)", loop_names[0], loop_names[1], loop_names[2], loop_names[3],
                                    loop_names[4]);
    if (!loops || PyModule_AddObject(m, "LOOP_MODES", loops) < 0) goto fail;
    PyObject *limits = Py_BuildValue("{s:n,s:n,s:I,s:I,s:I,s:I}", "input_size", (Py_ssize_t)GA_MAX_INPUT_SIZE,
                                     "decompressed_size", (Py_ssize_t)GA_MAX_DECOMPRESSED, "tracks",
                                     (unsigned)GA_MAX_TRACKS, "keys", (unsigned)GA_MAX_KEYS_TOTAL, "frames",
                                     (unsigned)GA_MAX_FRAMES, "string_length", (unsigned)GA_MAX_STRING);
    if (!limits || PyModule_AddObject(m, "LIMITS", limits) < 0) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
