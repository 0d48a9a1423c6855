/* gameanim.Model and gameanim.Bone: a model file's skeleton, read-only
 * (the decoders are csrc/models/, the joint matrices core/skeleton.c).
 * Glue only. */
#include "binding.h"

#include <stdlib.h>
#include <string.h>

#include "model.h"

/* ------------------------------------------------------------------ */
/* Bone: a fixed set of read-only attributes                            */

enum {
    BF_INDEX, BF_NAME, BF_NAME_HASH, BF_PARENT, BF_SCALE, BF_ROTATION, BF_TRANSLATION, BF_ROTATION_RAW,
    BF_SCALE_COMPENSATE, BF_SCALE_COMPENSATE_RAW, BF_KIND, BF_BONE_ID, BF_DATA_INDEX, BF_SCALE_FIXED,
    BF_TRANSLATION_FIXED, BF_BOUND_RADIUS, BF_BOUND_MIN, BF_BOUND_MAX, BF_COUNT
};

typedef struct {
    PyObject_HEAD
    PyObject *f[BF_COUNT];
} BoneObject;

static void Bone_dealloc(PyObject *self)
{
    BoneObject *b = (BoneObject *)self;
    for (int i = 0; i < BF_COUNT; i++) Py_XDECREF(b->f[i]);
    PyTypeObject *tp = Py_TYPE(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static PyObject *Bone_get(PyObject *self, void *closure)
{
    return Py_NewRef(((BoneObject *)self)->f[(intptr_t)closure]);
}

static PyObject *Bone_repr(PyObject *self)
{
    BoneObject *b = (BoneObject *)self;
    return PyUnicode_FromFormat("<gameanim.Bone %S %R parent %S>", b->f[BF_INDEX], b->f[BF_NAME], b->f[BF_PARENT]);
}

#define BONE_FIELD(name, i, doc) {name, Bone_get, NULL, doc, (void *)(intptr_t)(i)}
static PyGetSetDef Bone_getset[] = {
    BONE_FIELD("index", BF_INDEX, "Position in Model.bones (J3D: joint number; SM64DS, BK: table order)."),
    BONE_FIELD("name", BF_NAME, "The stored name decoded (cp932, undecodable bytes kept as surrogates), or None."),
    BONE_FIELD("name_hash", BF_NAME_HASH, "J3D: the name table's stored hash (kept even when it disagrees); else None."),
    BONE_FIELD("parent", BF_PARENT, "Index of the parent bone, -1 for a root."),
    BONE_FIELD("scale", BF_SCALE, "Rest scale (x, y, z)."),
    BONE_FIELD("rotation", BF_ROTATION, "Rest rotation, Euler XYZ radians (R = Rz * Ry * Rx)."),
    BONE_FIELD("translation", BF_TRANSLATION,
               "Rest translation (x, y, z); Banjo-Kazooie: the bone's pivot in model space."),
    BONE_FIELD("rotation_raw", BF_ROTATION_RAW,
               "The stored rotation integers (J3D: 65536 per turn; SM64DS: 4096 per turn; BK: zeros)."),
    BONE_FIELD("scale_compensate", BF_SCALE_COMPENSATE, "J3D: the stored byte is 1 (Maya segment-scale compensation)."),
    BONE_FIELD("scale_compensate_raw", BF_SCALE_COMPENSATE_RAW, "J3D: the stored byte (0xFF means no); else None."),
    BONE_FIELD("kind", BF_KIND, "J3D: the stored u16 kind field; else None."),
    BONE_FIELD("bone_id", BF_BONE_ID, "BK: the bone ID animations address; SM64DS: the stored ID; J3D: None."),
    BONE_FIELD("data_index", BF_DATA_INDEX, "J3D: the joint record used (remap table); else the index."),
    BONE_FIELD("scale_fixed", BF_SCALE_FIXED, "SM64DS: the stored 20.12 scale integers; else None."),
    BONE_FIELD("translation_fixed", BF_TRANSLATION_FIXED, "SM64DS: the stored 20.12 translation integers; else None."),
    BONE_FIELD("bound_radius", BF_BOUND_RADIUS, "J3D: bounding-sphere radius; else None."),
    BONE_FIELD("bound_min", BF_BOUND_MIN, "J3D: bounding-box minimum; else None."),
    BONE_FIELD("bound_max", BF_BOUND_MAX, "J3D: bounding-box maximum; else None."),
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot Bone_slots[] = {
    {Py_tp_dealloc, Bone_dealloc},
    {Py_tp_repr, Bone_repr},
    {Py_tp_getset, Bone_getset},
    {Py_tp_doc, "One bone (joint) of a Model, read-only.  Made by gameanim.load_model."},
    {0, NULL},
};

PyType_Spec Bone_spec = {"gameanim.Bone", sizeof(BoneObject), 0, Py_TPFLAGS_DEFAULT, Bone_slots};

static PyObject *float3(const float v[3]) { return Py_BuildValue("(ddd)", (double)v[0], (double)v[1], (double)v[2]); }
static PyObject *int3(const int32_t v[3]) { return Py_BuildValue("(iii)", (int)v[0], (int)v[1], (int)v[2]); }

static PyObject *make_bone(ga_state *st, const ga_model *m, uint32_t i)
{
    const ga_model_bone *c = &m->bones[i];
    int j3d = m->family == GA_RIG_J3D, sm64 = m->family == GA_RIG_SM64DS;
    allocfunc alloc = (allocfunc)PyType_GetSlot(st->BoneType, Py_tp_alloc);
    BoneObject *b = (BoneObject *)alloc(st->BoneType, 0);
    if (!b) return NULL;
    int32_t rot[3] = {c->rot_raw[0], c->rot_raw[1], c->rot_raw[2]};
    b->f[BF_INDEX] = PyLong_FromUnsignedLong(i);
    b->f[BF_NAME] = c->name ? name_text(c->name, "cp932") : Py_NewRef(Py_None);
    b->f[BF_NAME_HASH] = j3d ? PyLong_FromLong(c->name_hash) : Py_NewRef(Py_None);
    if (j3d && !c->name) GA_SETREF(b->f[BF_NAME_HASH], Py_NewRef(Py_None));
    b->f[BF_PARENT] = PyLong_FromLong(c->parent);
    b->f[BF_SCALE] = float3(c->scale);
    b->f[BF_ROTATION] = float3(c->rotation);
    b->f[BF_TRANSLATION] = float3(c->translation);
    b->f[BF_ROTATION_RAW] = int3(rot);
    b->f[BF_SCALE_COMPENSATE] = PyBool_FromLong(c->scale_compensate);
    b->f[BF_SCALE_COMPENSATE_RAW] = j3d ? PyLong_FromLong(c->scale_compensate_raw) : Py_NewRef(Py_None);
    b->f[BF_KIND] = j3d ? PyLong_FromLong(c->kind) : Py_NewRef(Py_None);
    b->f[BF_BONE_ID] = j3d ? Py_NewRef(Py_None) : PyLong_FromLong(c->bone_id);
    b->f[BF_DATA_INDEX] = PyLong_FromUnsignedLong(c->data_index);
    b->f[BF_SCALE_FIXED] = sm64 ? int3(c->scale_fixed) : Py_NewRef(Py_None);
    b->f[BF_TRANSLATION_FIXED] = sm64 ? int3(c->translation_fixed) : Py_NewRef(Py_None);
    b->f[BF_BOUND_RADIUS] = j3d ? PyFloat_FromDouble(c->bound_radius) : Py_NewRef(Py_None);
    b->f[BF_BOUND_MIN] = j3d ? float3(c->bound_min) : Py_NewRef(Py_None);
    b->f[BF_BOUND_MAX] = j3d ? float3(c->bound_max) : Py_NewRef(Py_None);
    for (int k = 0; k < BF_COUNT; k++)
        if (!b->f[k]) {
            Py_DECREF(b);
            return NULL;
        }
    return (PyObject *)b;
}

/* ------------------------------------------------------------------ */
/* Model                                                               */

typedef struct {
    PyObject_HEAD
    ga_model m;
    PyObject *compression, *bones, *chunks, *info, *inverse_binds;
} ModelObject;

static void Model_dealloc(PyObject *self)
{
    ModelObject *o = (ModelObject *)self;
    Py_XDECREF(o->compression);
    Py_XDECREF(o->bones);
    Py_XDECREF(o->chunks);
    Py_XDECREF(o->info);
    Py_XDECREF(o->inverse_binds);
    ga_model_free(&o->m);
    PyTypeObject *tp = Py_TYPE(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static int set_item(PyObject *d, const char *key, PyObject *v)
{
    if (!v) return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

static const char *calc_names[3] = {"basic", "softimage", "maya"};

static PyObject *model_info(const ga_model *m)
{
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    uint32_t roots = 0;
    for (uint32_t i = 0; i < m->nbones; i++) roots += m->bones[i].parent < 0;
    int rc = set_item(d, "bones", PyLong_FromUnsignedLong(m->nbones));
    rc |= set_item(d, "roots", PyLong_FromUnsignedLong(roots));
    if (m->family == GA_RIG_J3D) {
        rc |= set_item(d, "inf1_flags", PyLong_FromLong(m->inf1_flags));
        rc |= set_item(d, "inf1_packet_count", PyLong_FromUnsignedLong(m->inf1_packet_count));
        rc |= set_item(d, "inf1_vertex_count", PyLong_FromUnsignedLong(m->inf1_vertex_count));
        rc |= set_item(d, "envelopes", PyLong_FromUnsignedLong(m->n_envelopes));
        rc |= set_item(d, "envelope_weights", PyLong_FromUnsignedLong(m->n_envelope_weights));
        rc |= set_item(d, "inverse_binds", PyLong_FromUnsignedLong(m->n_inverse_binds));
        rc |= set_item(d, "draw_matrices", PyLong_FromUnsignedLong(m->n_draw));
        PyObject *chunks = PyList_New(m->nchunks);
        if (chunks)
            for (uint32_t i = 0; i < m->nchunks; i++) {
                PyObject *t = Py_BuildValue("(sn)", m->chunks[i].tag, (Py_ssize_t)m->chunks[i].size);
                if (!t) {
                    Py_CLEAR(chunks);
                    break;
                }
                PyList_SetItem(chunks, i, t);
            }
        rc |= set_item(d, "chunks", chunks);
    } else if (m->family == GA_RIG_SM64DS) {
        rc |= set_item(d, "scale_shift", PyLong_FromLong(m->sm64ds_scale_shift));
    } else {
        rc |= set_item(d, "bk_scale", PyFloat_FromDouble(m->bk_scale));
    }
    if (rc) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static int model_fill(ga_state *st, ModelObject *o)
{
    const ga_model *m = &o->m;
    o->bones = PyTuple_New(m->nbones);
    o->chunks = PyList_New(m->nchunks);
    o->inverse_binds = PyList_New(m->n_inverse_binds);
    o->info = model_info(m);
    if (!o->bones || !o->chunks || !o->inverse_binds || !o->info) return -1;
    for (uint32_t i = 0; i < m->nbones; i++) {
        PyObject *b = make_bone(st, m, i);
        if (!b) return -1;
        PyTuple_SetItem(o->bones, i, b);
    }
    for (uint32_t i = 0; i < m->nchunks; i++) {
        const ga_model_chunk *c = &m->chunks[i];
        PyObject *t = Py_BuildValue("(sy#)", c->tag, (const char *)m->data + c->offset, (Py_ssize_t)c->size);
        if (!t) return -1;
        PyList_SetItem(o->chunks, i, t);
    }
    for (uint32_t i = 0; i < m->n_inverse_binds; i++) {
        PyObject *t = PyTuple_New(12);
        if (!t) return -1;
        for (int k = 0; k < 12; k++) {
            PyObject *v = PyFloat_FromDouble(m->inverse_binds[i][k]);
            if (!v) {
                Py_DECREF(t);
                return -1;
            }
            PyTuple_SetItem(t, k, v);
        }
        PyList_SetItem(o->inverse_binds, i, t);
    }
    return 0;
}

PyObject *model_from_data(ga_state *st, PyObject *data_obj, const ga_decode_opts *opts)
{
    PyObject *bytes = immutable_bytes(data_obj); /* the decoder runs without the GIL */
    if (!bytes) return NULL;
    char *data;
    Py_ssize_t size;
    PyBytes_AsStringAndSize(bytes, &data, &size);
    ga_model m;
    const ga_wrapper *w;
    ga_error err;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ga_load_model((const uint8_t *)data, (size_t)size, opts, &m, &w, &err);
    Py_END_ALLOW_THREADS
    Py_DECREF(bytes);
    if (rc) return raise_error(st, &err);
    allocfunc alloc = (allocfunc)PyType_GetSlot(st->ModelType, Py_tp_alloc);
    ModelObject *o = (ModelObject *)alloc(st->ModelType, 0);
    if (!o) {
        ga_model_free(&m);
        return NULL;
    }
    o->m = m;
    o->compression = w ? PyUnicode_FromString(w->name) : Py_NewRef(Py_None);
    if (!o->compression || model_fill(st, o) < 0) {
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}

static PyObject *Model_get(PyObject *self, void *closure)
{
    ModelObject *o = (ModelObject *)self;
    switch ((intptr_t)closure) {
    case 0: return PyUnicode_FromString(o->m.format);
    case 1: return Py_NewRef(o->compression);
    case 2: return Py_NewRef(o->bones);
    case 3: return o->m.calc >= 0 && o->m.calc < 3 ? PyUnicode_FromString(calc_names[o->m.calc]) : Py_NewRef(Py_None);
    case 4: return PyDict_Copy(o->info);
    case 5: return PyList_GetSlice(o->chunks, 0, PyList_Size(o->chunks));
    case 6: return PyList_GetSlice(o->inverse_binds, 0, PyList_Size(o->inverse_binds));
    default: return PyUnicode_FromString(o->m.family == GA_RIG_J3D ? "j3d" : o->m.family == GA_RIG_SM64DS ? "sm64ds" : "bk");
    }
}

/* The animation format that drives this model's family. */
static const char *family_animation(ga_rig_family f)
{
    return f == GA_RIG_J3D ? "bck" : f == GA_RIG_SM64DS ? "bca" : "bk";
}

/* Whether an animation format drives this family's joints: its own, and
 * for J3D models the full-frame J3D BCA too (sampled by its frame_rule). */
static int family_takes(ga_rig_family f, const char *fmt)
{
    return strcmp(fmt, family_animation(f)) == 0 || (f == GA_RIG_J3D && strcmp(fmt, "j3d_bca") == 0);
}

static PyObject *Model_world_matrices(PyObject *self, PyObject *args, PyObject *kw)
{
    ga_state *st = STATE_OF(self);
    ModelObject *o = (ModelObject *)self;
    static char *kwlist[] = {"anim", "frame", NULL};
    PyObject *anim = Py_None, *frame_obj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:world_matrices", kwlist, &anim, &frame_obj)) return NULL;
    AnimationObject *a = NULL;
    if (anim != Py_None) {
        if (!PyObject_TypeCheck(anim, st->AnimationType)) {
            PyErr_SetString(PyExc_TypeError, "world_matrices(anim=...) needs a gameanim.Animation or None");
            return NULL;
        }
        a = (AnimationObject *)anim;
        const char *want = family_animation(o->m.family);
        if (!family_takes(o->m.family, a->fmt->name))
            return PyErr_Format(PyExc_ValueError,
                                "a %s animation does not drive a %s model (its skeleton animations are %s files)",
                                a->fmt->name, o->m.format, want);
    }
    double *frames;
    Py_ssize_t nf;
    double zero = 0.0;
    if (frame_obj) {
        if (read_frames(st, frame_obj, &frames, &nf) < 0) return NULL;
    } else {
        frames = malloc(sizeof zero);
        if (!frames) return PyErr_NoMemory();
        frames[0] = zero;
        nf = 1;
    }
    size_t total;
    if (ga_mul_size((size_t)nf, (size_t)o->m.nbones * 16u, &total) || total > ((size_t)1 << 31)) {
        free(frames);
        PyErr_SetString(PyExc_ValueError, "too many matrices requested at once (frames x bones)");
        return NULL;
    }
    ga_clip c;
    clip_hold hold = {NULL, 0};
    if (a && clip_from_python(st, a, &c, &hold) < 0) {
        free(frames);
        return NULL;
    }
    Py_buffer view;
    PyObject *res = alloc_array(st, "f", (Py_ssize_t)total, &view);
    if (!res) {
        free(frames);
        if (a) clip_release(&c, &hold);
        return NULL;
    }
    ga_error err;
    int rc;
    const ga_format *fmt = a ? a->fmt : NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = ga_model_world_matrices(&o->m, a ? &c : NULL, fmt, frames, (size_t)nf, view.buf, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    free(frames);
    if (a) clip_release(&c, &hold);
    if (rc) {
        Py_DECREF(res);
        return raise_error(st, &err);
    }
    return res;
}

static PyObject *Model_repr(PyObject *self)
{
    ModelObject *o = (ModelObject *)self;
    return PyUnicode_FromFormat("<gameanim.Model %s, %u bones>", o->m.format, (unsigned)o->m.nbones);
}

static PyGetSetDef Model_getset[] = {
    {"format", Model_get, NULL, "'bmd', 'bdl', 'sm64ds_bmd' or 'bk_model'.", (void *)0},
    {"compression", Model_get, NULL, "The compression wrapper the file came in, or None.", (void *)1},
    {"bones", Model_get, NULL, "Tuple of Bone in index order (J3D: joint number).", (void *)2},
    {"calc", Model_get, NULL, "J3D matrix-calc rule: 'basic', 'softimage' or 'maya'; None for other families.",
     (void *)3},
    {"info", Model_get, NULL, "Dict of header facts (INF1 flags, chunk tags and sizes, BK scale, SM64DS scale "
                              "shift, envelope counts).", (void *)4},
    {"chunks", Model_get, NULL, "J3D: list of (tag, bytes) for every chunk in file order, raw; else [].", (void *)5},
    {"inverse_binds", Model_get, NULL, "J3D EVP1 inverse bind matrices: list of 12-float tuples (3x4 row-major) "
                                       "per joint, empty without EVP1.", (void *)6},
    {"family", Model_get, NULL, "'j3d', 'sm64ds' or 'bk': which joint-matrix rules apply.", (void *)7},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Model_methods[] = {
    {"world_matrices", (PyCFunction)(void (*)(void))Model_world_matrices, METH_VARARGS | METH_KEYWORDS,
     "world_matrices(anim=None, frame=0.0) -> array('f')\n\nThe game's model-space matrix of every bone, 16 "
     "floats each, row-major (translation in elements 3, 7, 11), at the rest pose (anim None) or posed by anim "
     "(BCK for J3D models, BCA for SM64DS, a Banjo-Kazooie animation for BK).  frame: one number, or a sequence "
     "or buffer of frames: then the result is frame-major, len(frames) * len(bones) * 16 floats."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot Model_slots[] = {
    {Py_tp_dealloc, Model_dealloc},
    {Py_tp_repr, Model_repr},
    {Py_tp_getset, Model_getset},
    {Py_tp_methods, Model_methods},
    {Py_tp_doc, "A model file's skeleton, read-only.  Made by gameanim.load_model."},
    {0, NULL},
};

PyType_Spec Model_spec = {"gameanim.Model", sizeof(ModelObject), 0, Py_TPFLAGS_DEFAULT, Model_slots};
