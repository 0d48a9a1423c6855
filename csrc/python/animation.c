/* gameanim.Animation: a clip with what it was loaded from, so that an
 * unedited file is written back byte for byte (the policy is core/edit.c). */
#include "binding.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "edit.h"

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

AnimationObject *animation_alloc(ga_state *st, const ga_format *fmt)
{
    allocfunc alloc = (allocfunc)PyType_GetSlot(st->AnimationType, Py_tp_alloc);
    AnimationObject *a = (AnimationObject *)alloc(st->AnimationType, 0);
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
    if (a->payload_buf) return ga_same_bytes(a->payload_buf, a->payload_size, data, len);
    char *p;
    Py_ssize_t n;
    if (!a->orig_payload || PyBytes_AsStringAndSize(a->orig_payload, &p, &n) < 0) {
        PyErr_Clear();
        return 0;
    }
    return ga_same_bytes((const uint8_t *)p, (size_t)n, data, len);
}

/* The Track list, built from the decoded clip on first use.  Borrowed. */
static PyObject *ensure_tracks(AnimationObject *a)
{
    ga_state *st = STATE_OF(a);
    if (a->tracks) return a->tracks;
    PyObject *tracks = PyList_New((Py_ssize_t)a->orig.ntracks);
    if (!tracks) return NULL;
    for (uint32_t i = 0; i < a->orig.ntracks; i++) {
        PyObject *t = track_from_store(st, a->store, i);
        if (!t) {
            Py_DECREF(tracks);
            return NULL;
        }
        PyList_SetItem(tracks, i, t);
    }
    if (a->tracks) {
        /* made by another thread while this one allocated */
        Py_DECREF(tracks);
        return a->tracks;
    }
    a->tracks = tracks;
    return tracks;
}

PyObject *animation_from_data(ga_state *st, PyObject *data_obj, const ga_decode_opts *opts)
{
    PyObject *bytes = immutable_bytes(data_obj); /* kept as the original */
    if (!bytes) return NULL;
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
        return raise_error(st, &err);
    }
    AnimationObject *a = animation_alloc(st, l.format);
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
    a->store->fmt = l.format;
    a->store->rotation_frac = a->orig.rotation_frac;
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
            return raise_error(st, &err);
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

static PyObject *Animation_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_type(type);
    static char *kwlist[] = {"format",       "tracks",     "frame_count", "fps",    "loop",
                             "compression",  "entries",    "rotation_frac", "calc_type", "start_frame",
                             "layout",       "keyless_rule", "frame_rule", NULL};
    const char *fmtname;
    PyObject *tracks = NULL, *fps = Py_None, *loop = Py_None, *comp = Py_None, *entries = NULL;
    PyObject *frac = Py_None, *calc = Py_None, *start = Py_None, *layout = Py_None, *keyless = Py_None;
    PyObject *frame_rule = Py_None;
    double frame_count = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|O$dOOOOOOOOOO:Animation", kwlist, &fmtname, &tracks,
                                     &frame_count, &fps, &loop, &comp, &entries, &frac, &calc, &start, &layout,
                                     &keyless, &frame_rule))
        return NULL;
    const ga_format *fmt = ga_format_by_name(fmtname);
    if (!fmt) {
        PyErr_Format(PyExc_ValueError, "unknown format %R", PyTuple_GetItem(args, 0));
        return NULL;
    }
    AnimationObject *a = animation_alloc(st, fmt);
    if (!a) return NULL;
    a->frame_count = frame_count;
    if (fps != Py_None) {
        a->fps = PyFloat_AsDouble(fps);
        if (a->fps == -1.0 && PyErr_Occurred()) goto fail;
    }
    if (parse_enum(&loop_enum, loop, &a->loop) < 0) goto fail;
    PyObject *c;
    if (parse_compression(comp, &c) < 0) goto fail;
    GA_SETREF(a->compression, c);
    if (tracks) {
        PyObject *list = PySequence_List(tracks);
        if (!list) goto fail;
        for (Py_ssize_t i = 0; i < PyList_Size(list); i++)
            if (!PyObject_TypeCheck(PyList_GetItem(list, i), st->TrackType)) {
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
    if (parse_enum(&calc_type_enum, calc, &a->calc_type) < 0) goto fail;
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
    if (parse_enum(&keyless_rule_enum, keyless, &a->keyless_rule) < 0) goto fail;
    if (parse_enum(&frame_rule_enum, frame_rule, &a->frame_rule) < 0) goto fail;
    return (PyObject *)a;
fail:
    Py_DECREF(a);
    return NULL;
}

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
    return PyUnicode_FromString(enum_name(&loop_enum, l));
}

static int Animation_set_loop(PyObject *self, PyObject *v, void *c)
{
    (void)c;
    return parse_enum(&loop_enum, v ? v : Py_None, &((AnimationObject *)self)->loop);
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
    ga_state *st = STATE_OF(self);
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
            if (!PyObject_TypeCheck(PyList_GetItem(list, i), st->TrackType)) {
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
    case 1: return PyUnicode_FromString(enum_name(&calc_type_enum, a->calc_type ? 1 : 0));
    case 2: return PyFloat_FromDouble(a->start_frame);
    case 3: return PyLong_FromLong(a->layout);
    case 4: return PyUnicode_FromString(enum_name(&keyless_rule_enum, a->keyless_rule ? 1 : 0));
    case 5: return PyUnicode_FromString(enum_name(&frame_rule_enum, a->frame_rule));
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
    case 1: return parse_enum(&calc_type_enum, v, &a->calc_type);
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
    case 4: return parse_enum(&keyless_rule_enum, v, &a->keyless_rule);
    case 5: return parse_enum(&frame_rule_enum, v, &a->frame_rule);
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

static PyObject *Animation_sample(PyObject *self, PyObject *frames_obj)
{
    ga_state *st = STATE_OF(self);
    AnimationObject *a = (AnimationObject *)self;
    double *frames;
    Py_ssize_t nf;
    if (read_frames(st, frames_obj, &frames, &nf) < 0) return NULL;
    ga_clip c;
    clip_hold hold;
    if (clip_from_python(st, a, &c, &hold) < 0) {
        free(frames);
        return NULL;
    }
    size_t total;
    if (ga_mul_size(c.ntracks, (size_t)nf, &total) || total > ((size_t)1 << 31)) {
        free(frames);
        clip_release(&c, &hold);
        PyErr_SetString(PyExc_ValueError, "too many values requested at once (tracks x frames)");
        return NULL;
    }
    /* the values go straight into the result array's buffer */
    Py_buffer view;
    PyObject *res = alloc_array(st, "f", (Py_ssize_t)total, &view);
    if (!res) {
        free(frames);
        clip_release(&c, &hold);
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
    clip_release(&c, &hold);
    if (rc) {
        Py_DECREF(res);
        return raise_error(st, &err);
    }
    return res;
}

PyObject *wrap_payload(ga_state *st, const ga_wrapper *w, const uint8_t *data, size_t size)
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
        return raise_error(st, &err);
    }
    PyObject *res = PyBytes_FromStringAndSize((const char *)b.data, (Py_ssize_t)b.len);
    ga_buf_free(&b);
    return res;
}

PyObject *Animation_to_bytes(PyObject *self, PyObject *args, PyObject *kw)
{
    ga_state *st = STATE_OF(self);
    static char *kwlist[] = {"compression", "tolerance", "reencode", NULL};
    AnimationObject *a = (AnimationObject *)self;
    PyObject *comp_arg = NULL;
    double tolerance = 0.0;
    const char *reencode = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$Odz:to_bytes", kwlist, &comp_arg, &tolerance, &reencode))
        return NULL;
    int mode;
    if (parse_enum_str(&reencode_enum, reencode, &mode) < 0) return NULL;
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
    clip_hold hold;
    if (clip_from_python(st, a, &c, &hold) < 0) return NULL;
    ga_edit plan;
    ga_error err;
    if (ga_edit_plan(&c, a->has_orig ? &a->orig : NULL, mode, &plan, &err)) {
        clip_release(&c, &hold);
        return raise_error(st, &err);
    }

    ga_report rep;
    ga_report_init(&rep);
    PyObject *result = NULL;
    if (plan.unchanged) {
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
                result = wrap_payload(st, w, (const uint8_t *)p, (size_t)n);
            }
        }
    } else {
        ga_buf b;
        ga_buf_init(&b);
        int rc;
        const ga_format *fmt = a->fmt;
        Py_BEGIN_ALLOW_THREADS
        rc = ga_edit_encode(fmt, &plan, a->raw, a->has_orig ? &a->orig : NULL, &c, mode, tolerance, &rep, &b, &err);
        Py_END_ALLOW_THREADS
        if (rc) {
            ga_buf_free(&b);
            ga_edit_free(&plan);
            clip_release(&c, &hold);
            return raise_error(st, &err);
        }
        if (w && a->has_orig && w == a->orig_wrapper && !b.failed && same_payload(a, b.data, b.len))
            /* the payload came out as the file's (an edit undone, a value
             * moved within its quantisation step, reencode="raw"): the
             * original compressed bytes, not a recompression */
            result = Py_NewRef(a->orig_bytes);
        else if (w)
            result = wrap_payload(st, w, b.data, b.len);
        else
            result = PyBytes_FromStringAndSize((const char *)b.data, (Py_ssize_t)b.len);
        ga_buf_free(&b);
    }
    ga_edit_free(&plan);
    clip_release(&c, &hold);
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
        if (!clean || PyErr_WarnEx(st->PrecisionWarning, clean, 1) < 0) {
            Py_XDECREF(text);
            Py_DECREF(result);
            return NULL;
        }
        Py_DECREF(text);
    }
    return result;
}

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
    ga_state *st = STATE_OF(self);
    (void)unused;
    AnimationObject *a = (AnimationObject *)self;
    AnimationObject *b;
    if (a->has_orig) {
        /* (the bytes passed the caller's decoded-size limit when loaded) */
        ga_decode_opts opts = {.keyless_rule = a->orig.keyless_rule, .max_decoded_size = UINT64_MAX};
        b = (AnimationObject *)animation_from_data(st, a->orig_bytes, &opts);
    } else {
        b = animation_alloc(st, a->fmt);
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
    b->frame_rule = a->frame_rule;
    GA_SETREF(b->compression, Py_NewRef(a->compression));
    if (!a->tracks) {
        /* never touched: the copy decodes the same tracks lazily */
        goto entries;
    }
    PyObject *src = PyList_AsTuple(a->tracks); /* a snapshot, as in find() */
    PyObject *tracks = src ? PyList_New(0) : NULL;
    if (!tracks) {
        Py_XDECREF(src);
        goto fail;
    }
    for (Py_ssize_t i = 0; i < PyTuple_Size(src); i++) {
        PyObject *t = PyTuple_GetItem(src, i);
        PyObject *tc = PyObject_TypeCheck(t, st->TrackType) ? Track_copy(t, NULL) : NULL;
        if (!tc || PyList_Append(tracks, tc) < 0) {
            if (!tc && !PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "tracks[%zd] is not a gameanim.Track", i);
            Py_XDECREF(tc);
            Py_DECREF(tracks);
            Py_DECREF(src);
            goto fail;
        }
        Py_DECREF(tc);
    }
    Py_DECREF(src);
    GA_SETREF(b->tracks, tracks);
entries:;
    PyObject *esrc = PyList_AsTuple(a->entries);
    PyObject *entries = esrc ? PyList_New(0) : NULL;
    if (!entries) {
        Py_XDECREF(esrc);
        goto fail;
    }
    for (Py_ssize_t i = 0; i < PyTuple_Size(esrc); i++) {
        PyObject *e = PyTuple_GetItem(esrc, i);
        PyObject *ec = PyDict_Check(e) ? PyDict_Copy(e) : Py_NewRef(e);
        if (!ec || PyList_Append(entries, ec) < 0) {
            Py_XDECREF(ec);
            Py_DECREF(entries);
            Py_DECREF(esrc);
            goto fail;
        }
        Py_DECREF(ec);
    }
    Py_DECREF(esrc);
    GA_SETREF(b->entries, entries);
    return (PyObject *)b;
fail:
    Py_DECREF(b);
    return NULL;
}

static PyObject *Animation_find(PyObject *self, PyObject *args)
{
    ga_state *st = STATE_OF(self);
    AnimationObject *a = (AnimationObject *)self;
    PyObject *target, *channel;
    int axis;
    if (!PyArg_ParseTuple(args, "OOi:find", &target, &channel, &axis)) return NULL;
    int ch;
    if (parse_enum(&channel_enum, channel, &ch) < 0) return NULL;
    PyObject *list = ensure_tracks(a);
    if (!list) return NULL;
    /* a snapshot: comparing targets may run Python code, and with it
     * another thread that edits the list or the tracks */
    PyObject *tracks = PyList_AsTuple(list);
    if (!tracks) return NULL;
    PyObject *found = NULL;
    for (Py_ssize_t i = 0; i < PyTuple_Size(tracks); i++) {
        PyObject *o = PyTuple_GetItem(tracks, i);
        if (!PyObject_TypeCheck(o, st->TrackType)) continue;
        TrackObject *t = (TrackObject *)o;
        if (t->channel != ch || t->axis != axis) continue;
        PyObject *tt = Py_NewRef(t->target);
        int eq = PyObject_RichCompareBool(tt, target, Py_EQ);
        Py_DECREF(tt);
        if (eq < 0) {
            Py_DECREF(tracks);
            return NULL;
        }
        if (eq) {
            found = Py_NewRef(o);
            break;
        }
    }
    Py_DECREF(tracks);
    return found ? found : Py_NewRef(Py_None);
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
    ga_state *st = STATE_OF(self);
    (void)unused;
    AnimationObject *a = (AnimationObject *)self;
    if (!a->has_orig) Py_RETURN_TRUE;
    ga_clip c;
    clip_hold hold;
    if (clip_from_python(st, a, &c, &hold) < 0) return NULL;
    int modified = ga_clip_modified(&c, &a->orig);
    clip_release(&c, &hold);
    return PyBool_FromLong(modified);
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
    {"frame_rule", Animation_get_param, Animation_set_param,
     "BVA, J3D BCA: how sample() reads the per-frame tables between whole frames: 'nearest' (Twilight Princess, "
     "Pikmin 2), 'truncate' (Wind Waker) or 'lerp' (J3DAnmTransformFullWithLerp). Not stored in the file.",
     (void *)5},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyObject *Animation_applied_tracks(PyObject *self, PyObject *unused)
{
    ga_state *st = STATE_OF(self);
    (void)unused;
    AnimationObject *a = (AnimationObject *)self;
    ga_clip c;
    clip_hold hold;
    if (clip_from_python(st, a, &c, &hold) < 0) return NULL;
    PyObject *result = NULL;
    uint8_t *keep = malloc((size_t)c.ntracks + 1);
    ga_error err;
    if (!keep) {
        PyErr_NoMemory();
    } else if (ga_applied_tracks(a->fmt, &c, keep, &err)) {
        raise_error(st, &err);
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
    clip_release(&c, &hold);
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
     "rotation_frac=None, calc_type=None, start_frame=None, layout=None, keyless_rule=None, frame_rule=None)\n\n"
     "One animation clip.  Use gameanim.load() to read a file; build one in Python to write a new file."},
    {0, NULL},
};

PyType_Spec Animation_spec = {
    "gameanim.Animation",
    sizeof(AnimationObject),
    0,
    Py_TPFLAGS_DEFAULT,
    Animation_slots,
};
