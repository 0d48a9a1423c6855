/* gameanim.Track: one animated channel component, its keys kept in C
 * until Python asks for them as arrays. */
#include "binding.h"
#include <math.h>

#include <stdlib.h>
#include <string.h>

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

void track_store_decref(track_store *s)
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
    track_store *s = t->store;
    t->store = NULL;
    t->lazy = NULL;
    track_store_decref(s);
}

/* Turns a lazy track's keys into its arrays (once). */
static int track_materialise(TrackObject *t)
{
    ga_state *st = STATE_OF(t);
    if (!t->lazy) return 0;
    /* Making the arrays may run Python code (a collection), and with it
     * another thread that materialises this track too: the keys read here
     * stay alive through a reference of our own. */
    track_store *held = t->store;
    held->refs++;
    ga_track v;
    lazy_view(t, &v);
    Py_ssize_t n = (Py_ssize_t)v.nkeys;
    PyObject *arrs[5];
    const float *src[4] = {v.time, v.value, v.in_slope, v.out_slope};
    for (int i = 0; i < 5; i++) {
        arrs[i] = i < 4 ? new_array(st, "f", src[i], n * 4) : new_array(st, "B", v.interp, n);
        if (!arrs[i]) {
            for (int j = 0; j < i; j++) Py_DECREF(arrs[j]);
            track_store_decref(held);
            return -1;
        }
    }
    if (t->lazy) {
        for (int i = 0; i < 4; i++) GA_SETREF(t->arrays[i], arrs[i]);
        GA_SETREF(t->interp, arrs[4]);
        track_drop_lazy(t);
    } else {
        /* materialised (and maybe assigned) by another thread meanwhile */
        for (int i = 0; i < 5; i++) Py_DECREF(arrs[i]);
    }
    track_store_decref(held);
    return 0;
}

static const char *const array_names[4] = {"times", "values", "in_slopes", "out_slopes"};

static int check_axis(int channel, long axis)
{
    long max = ga_channel_max_axis(channel);
    if (axis < 0 || axis > max) {
        PyErr_Format(PyExc_ValueError, "axis must be 0..%ld for channel '%s', not %ld", max,
                     enum_name(&channel_enum, channel), axis);
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

static TrackObject *track_alloc(ga_state *st)
{
    allocfunc alloc = (allocfunc)PyType_GetSlot(st->TrackType, Py_tp_alloc);
    TrackObject *t = (TrackObject *)alloc(st->TrackType, 0);
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
static TrackObject *track_head(ga_state *st, const ga_track *c)
{
    TrackObject *t = track_alloc(st);
    if (!t) return NULL;
    t->channel = c->channel;
    t->axis = c->axis;
    if (c->target_name) {
        t->target = name_text(c->target_name, TRACK_NAME_CODEC);
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
static PyObject *track_from_c(ga_state *st, const ga_track *c)
{
    TrackObject *t = track_head(st, c);
    if (!t) return NULL;
    /* a store of one track, so that every lazy track is counted alike */
    ga_error err;
    track_store *s = calloc(1, sizeof *s);
    ga_track *own = calloc(1, sizeof *own);
    if (!s || !own || ga_track_copy(own, c, &err)) {
        free(s);
        free(own);
        Py_DECREF(t);
        return PyErr_NoMemory();
    }
    s->refs = 1;
    s->ntracks = 1;
    s->tracks = own;
    t->store = s;
    t->lazy = own;
    return (PyObject *)t;
}

/* A Track object reading track i of a shared store (no copy). */
PyObject *track_from_store(ga_state *st, track_store *s, uint32_t i)
{
    TrackObject *t = track_head(st, &s->tracks[i]);
    if (!t) return NULL;
    s->refs++;
    t->store = s;
    t->lazy = &s->tracks[i];
    t->eval_fmt = s->fmt && s->fmt->eval_track ? s->fmt : NULL;
    t->eval_frac = s->rotation_frac;
    return (PyObject *)t;
}

static PyObject *Track_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_type(type);
    static char *kwlist[] = {"target", "channel", "axis", "times", "values", "in_slopes", "out_slopes",
                             "interpolation", NULL};
    PyObject *target, *channel, *times = NULL, *values = NULL, *ins = NULL, *outs = NULL, *interp = NULL;
    int axis;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOi|OOOOO:Track", kwlist, &target, &channel, &axis, &times,
                                     &values, &ins, &outs, &interp))
        return NULL;
    int ch;
    if (check_target(target) < 0 || parse_enum(&channel_enum, channel, &ch) < 0 || check_axis(ch, axis) < 0) return NULL;
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
        t->arrays[i] = as_array(st, src, "f", array_names[i]);
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
            t->arrays[i] = as_array(st, given[i], "f", array_names[i]);
        } else {
            float *zeros = calloc((size_t)n + 1, sizeof(float));
            if (!zeros) {
                PyErr_NoMemory();
                goto fail;
            }
            t->arrays[i] = new_array(st, "f", zeros, n * 4);
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
            t->interp = new_array(st, "B", codes, n);
            free(codes);
        } else {
            t->interp = as_array(st, interp, "B", "interpolation");
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
        t->interp = new_array(st, "B", codes, n);
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
int track_to_c(ga_state *st, PyObject *obj, Py_ssize_t index, ga_track *c, const track_store *share)
{
    memset(c, 0, sizeof *c);
    if (!PyObject_TypeCheck(obj, st->TrackType)) {
        PyErr_Format(PyExc_TypeError, "tracks[%zd] is not a gameanim.Track", index);
        return -1;
    }
    TrackObject *t = (TrackObject *)obj;
    c->channel = (uint8_t)t->channel;
    c->axis = (uint8_t)t->axis;
    if (PyUnicode_Check(t->target)) {
        c->target_name = name_to_c(t->target, NULL, TRACK_NAME_CODEC, "tracks[%zd]: target name is too long or contains NUL", index);
        if (!c->target_name) return -1;
        c->target = -1;
    } else {
        c->target = (int32_t)PyLong_AsLong(t->target);
    }
    if (t->lazy) {
        /* decoded keys, valid by construction */
        ga_track v;
        lazy_view(t, &v);
        if (share && t->store == share) {
            /* the caller's own store, on which the caller holds a reference
             * until the clip is released (the GIL may be released meanwhile):
             * a view, no copy; the clip is only read and ga_track_free leaves
             * borrowed arrays alone */
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
    return PyUnicode_FromString(enum_name(&channel_enum, ((TrackObject *)self)->channel));
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
    if (parse_enum(&channel_enum, v, &ch) < 0 || check_axis(ch, t->axis) < 0) return -1;
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
    ga_state *st = STATE_OF(self);
    intptr_t i = (intptr_t)c;
    TrackObject *t = (TrackObject *)self;
    if (!v) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete key arrays");
        return -1;
    }
    if (track_materialise(t) < 0) return -1;
    PyObject *arr = as_array(st, v, i == 4 ? "B" : "f", i == 4 ? "interpolation" : array_names[i]);
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
    return PyUnicode_FromFormat("<gameanim.Track target=%R %s[%d] %zd keys>", t->target, enum_name(&channel_enum, t->channel),
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
    ga_state *st = STATE_OF(self);
    static char *kwlist[] = {"value_scale", "value_offset", "time_scale", "time_offset", "flags", NULL};
    double vs = 1.0, vo = 0.0, ts = 1.0, to = 0.0;
    int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ddddp:bezier", kwlist, &vs, &vo, &ts, &to, &flags)) return NULL;
    TrackObject *t = (TrackObject *)self;
    ga_track c;
    /* A lazy track's own block, nothing to copy; our reference keeps it
     * while the result arrays are made (another thread may materialise
     * the track meanwhile). */
    track_store *held = t->lazy ? t->store : NULL;
    int lazy = held != NULL;
    if (lazy) {
        held->refs++;
        lazy_view(t, &c);
    } else if (track_to_c(st, self, 0, &c, NULL) < 0) return NULL;
    Py_ssize_t n = (Py_ssize_t)c.nkeys;
    PyObject *out[4] = {NULL, NULL, NULL, NULL};
    Py_buffer v[4];
    int got = 0;
    for (; got < 4; got++) {
        out[got] = alloc_array(st, got < 3 ? "f" : "i", got < 3 ? 2 * n : n, &v[got]);
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
    if (lazy) track_store_decref(held);
    else ga_track_free(&c);
    if (got < 4) {
        for (int k = 0; k < got; k++) Py_DECREF(out[k]);
        return NULL;
    }
    if (flags)
        return Py_BuildValue("(NNNNOO)", out[0], out[1], out[2], out[3], increasing ? Py_True : Py_False,
                             has_bezier ? Py_True : Py_False);
    return Py_BuildValue("(NNNN)", out[0], out[1], out[2], out[3]);
}

/* Beyond these, the game's single-precision Hermite (JMAHermiteInterpolation:
 * 1/(t1 - t0), then weighted sums) may overflow to inf or NaN where a
 * Blender curve stays finite; no real file comes near them. */
#define CURVE_HUGE 0x1p100      /* a value or handle (slope x spacing) this large */
#define CURVE_HUGE_TIME 0x1p40  /* a key time this far out */
#define CURVE_TINY_TIME 0x1p-30 /* a non-zero key time this close to 0: spacings below 2^-53 */

/* Why a curve through the track's keys (bezier() at scale 1) would not
 * show the game's values, or NULL.  In the order the add-on reports them. */
static const char *curve_issue(const float *co, const float *left, const float *right, Py_ssize_t n)
{
    int increasing = co_times_increasing(co, n), ordered = 1;
    for (Py_ssize_t k = 1; k < n && !increasing; k++)
        if (!(co[2 * (k - 1)] <= co[2 * k])) ordered = 0;
    if (!ordered) return "key times out of order";
    for (Py_ssize_t k = 0; k < 2 * n; k++)
        if (!isfinite(co[k]) || !isfinite(left[k]) || !isfinite(right[k])) return "a key or slope is not finite";
    for (Py_ssize_t k = 0; k < n; k++)
        if (fabs(co[2 * k + 1]) > CURVE_HUGE || fabs(left[2 * k + 1]) > CURVE_HUGE ||
            fabs(right[2 * k + 1]) > CURVE_HUGE)
            return "values near the float maximum";
    double nearest = INFINITY; /* the time closest to 0 */
    for (Py_ssize_t k = 0; k < n; k++) {
        double t = fabs(co[2 * k]);
        if (t > CURVE_HUGE_TIME) return "key spacing near zero";
        if (t < nearest) nearest = t;
    }
    if (nearest > 0.0 && nearest < CURVE_TINY_TIME) return "key spacing near zero";
    return NULL;
}

static PyObject *Track_curve_issue(PyObject *self, PyObject *unused)
{
    (void)unused;
    ga_state *st = STATE_OF(self);
    TrackObject *t = (TrackObject *)self;
    ga_track c;
    track_store *held = t->lazy ? t->store : NULL; /* as in bezier() */
    if (held) {
        held->refs++;
        lazy_view(t, &c);
    } else if (track_to_c(st, self, 0, &c, NULL) < 0) return NULL;
    Py_ssize_t n = (Py_ssize_t)c.nkeys;
    const char *why = NULL;
    float *buf = n > 0 ? PyMem_Malloc(sizeof(float) * 6 * (size_t)n) : NULL;
    if (n > 0 && buf) {
        ga_track_bezier(&c, 1.0, 0.0, 1.0, 0.0, buf, buf + 2 * n, buf + 4 * n);
        why = curve_issue(buf, buf + 2 * n, buf + 4 * n, n);
    }
    PyMem_Free(buf);
    if (held) track_store_decref(held);
    else ga_track_free(&c);
    if (n > 0 && !buf) return PyErr_NoMemory();
    if (!why) Py_RETURN_NONE;
    return PyUnicode_FromString(why);
}

static PyObject *Track_evaluate(PyObject *self, PyObject *frames_obj)
{
    ga_state *st = STATE_OF(self);
    double *frames;
    Py_ssize_t n;
    if (read_frames(st, frames_obj, &frames, &n) < 0) return NULL;
    TrackObject *t = (TrackObject *)self;
    ga_track c;
    track_store *held = t->lazy ? t->store : NULL; /* as in bezier() */
    int lazy = held != NULL;
    if (lazy) {
        held->refs++;
        lazy_view(t, &c);
    } else if (track_to_c(st, self, 0, &c, NULL) < 0) {
        free(frames);
        return NULL;
    }
    Py_buffer view;
    PyObject *res = alloc_array(st, "f", n, &view);
    int rc = GA_OK;
    ga_error err;
    if (res) {
        float *out = view.buf;
        if (t->eval_fmt) rc = t->eval_fmt->eval_track(&c, t->eval_frac, frames, (size_t)n, out, &err);
        else
            for (Py_ssize_t i = 0; i < n; i++) out[i] = (float)ga_track_eval(&c, frames[i]);
        PyBuffer_Release(&view);
    }
    free(frames);
    if (lazy) track_store_decref(held);
    else ga_track_free(&c);
    if (rc != GA_OK) {
        Py_DECREF(res);
        return raise_error(st, &err);
    }
    return res;
}

PyObject *Track_copy(PyObject *self, PyObject *unused)
{
    ga_state *st = STATE_OF(self);
    (void)unused;
    ga_track c;
    if (track_to_c(st, self, 0, &c, NULL) < 0) return NULL;
    PyObject *res = track_from_c(st, &c);
    if (res) {
        GA_SETREF(((TrackObject *)res)->target, Py_NewRef(((TrackObject *)self)->target));
        ((TrackObject *)res)->eval_fmt = ((TrackObject *)self)->eval_fmt;
        ((TrackObject *)res)->eval_frac = ((TrackObject *)self)->eval_frac;
    }
    ga_track_free(&c);
    return res;
}

static PyObject *Track_fit(PyObject *self, PyObject *args, PyObject *kw)
{
    ga_state *st = STATE_OF(self);
    static char *kwlist[] = {"tolerance", "use_slopes", NULL};
    double tol;
    int use_slopes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "d|$p:fit", kwlist, &tol, &use_slopes)) return NULL;
    ga_track c;
    if (track_to_c(st, self, 0, &c, NULL) < 0) return NULL;
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
    if (rc) return raise_error(st, &err);
    out.channel = (uint8_t)((TrackObject *)self)->channel;
    out.axis = (uint8_t)((TrackObject *)self)->axis;
    PyObject *res = track_from_c(st, &out);
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
    {"curve_issue", Track_curve_issue, METH_NOARGS,
     "curve_issue() -> str | None\n\nWhy a curve through the keys as bezier() gives them (Blender sorts keys by "
     "time and stays finite) would not show the game's values: 'key times out of order', 'a key or slope is not "
     "finite', 'values near the float maximum' (beyond 2**100) or 'key spacing near zero' (a time beyond 2**40, "
     "or non-zero below 2**-30, where the game's float Hermite overflows); None when it would."},
    {"bezier", (PyCFunction)(void (*)(void))Track_bezier, METH_VARARGS | METH_KEYWORDS,
     "bezier(value_scale=1, value_offset=0, time_scale=1, time_offset=0, flags=False) -> (co, handle_left, "
     "handle_right, interpolation[, increasing, has_bezier])\n\nFlat buffers for FCurve.keyframe_points.foreach_set: "
     "(x, y) pairs as array('f') and the interpolation codes as array('i').  Handles sit one third of the way to the "
     "neighbouring key, which makes each Bezier segment equal the Hermite segment exactly; use handle type FREE.  "
     "With flags=True two booleans follow: whether the times in co strictly increase (so no two keys share one) "
     "and whether some key's interpolation is BEZIER, so an importer need not scan the buffers again."},
    {"evaluate", Track_evaluate, METH_O,
     "evaluate(frames) -> array('f'): the curve at the frames.  A track decoded from a file whose format evaluates "
     "tracks its own way (BCK, BTK) gives what Animation.sample gives for it, bit for bit (the game's arithmetic "
     "and rotation steps, at its file's rotation shift; kept through edits and copy()); any other track follows "
     "the generic rules: hold outside the keys, the cubic Hermite in double precision."},
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

PyType_Spec Track_spec = {
    "gameanim.Track",
    sizeof(TrackObject),
    0,
    Py_TPFLAGS_DEFAULT,
    Track_slots,
};
