/* gameanim.Model and gameanim.Bone: a model file's skeleton, read-only
 * (the decoders are csrc/models/, the joint matrices core/skeleton.c).
 * Glue only. */
#include "binding.h"

#include <stdlib.h>
#include <string.h>

#include "../models/gx_texture.h"
#include "../models/mesh_groups.h"
#include "model.h"
#include "model_object.h"

/* ------------------------------------------------------------------ */
/* Read-only records: Bone, Mesh, Texture, Material (a fixed set of
 * attributes each, f[i] read by fields_get)                           */

#define REC_MAX 24

typedef struct {
    PyObject_HEAD
    PyObject *f[REC_MAX];
} RecordObject;

static void Record_dealloc(PyObject *self) { fields_dealloc(self, REC_MAX); }

static PyObject *Record_repr(PyObject *self)
{
    RecordObject *b = (RecordObject *)self;
    PyObject *name = PyType_GetName(Py_TYPE(self));
    if (!name) return NULL;
    PyObject *res = PyUnicode_FromFormat("<gameanim.%U %S %R>", name, b->f[0], b->f[1] ? b->f[1] : Py_None);
    Py_DECREF(name);
    return res;
}



enum {
    BF_INDEX, BF_NAME, BF_NAME_HASH, BF_PARENT, BF_SCALE, BF_ROTATION, BF_TRANSLATION, BF_ROTATION_RAW,
    BF_SCALE_COMPENSATE, BF_SCALE_COMPENSATE_RAW, BF_KIND, BF_BONE_ID, BF_DATA_INDEX, BF_SCALE_FIXED,
    BF_TRANSLATION_FIXED, BF_BOUND_RADIUS, BF_BOUND_MIN, BF_BOUND_MAX, BF_COUNT
};

static PyObject *Bone_repr(PyObject *self)
{
    RecordObject *b = (RecordObject *)self;
    return PyUnicode_FromFormat("<gameanim.Bone %S %R parent %S>", b->f[BF_INDEX], b->f[BF_NAME], b->f[BF_PARENT]);
}

#define BONE_FIELD(name, i, doc) {name, fields_get, NULL, doc, (void *)(intptr_t)(i)}
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
    {Py_tp_dealloc, Record_dealloc},
    {Py_tp_repr, Bone_repr},
    {Py_tp_getset, Bone_getset},
    {Py_tp_doc, "One bone (joint) of a Model, read-only.  Made by gameanim.load_model."},
    {0, NULL},
};

PyType_Spec Bone_spec = {"gameanim.Bone", sizeof(RecordObject), 0, Py_TPFLAGS_DEFAULT, Bone_slots};

static PyObject *float3(const float v[3]) { return Py_BuildValue("(ddd)", (double)v[0], (double)v[1], (double)v[2]); }
static PyObject *int3(const int32_t v[3]) { return Py_BuildValue("(iii)", (int)v[0], (int)v[1], (int)v[2]); }

static PyObject *make_bone(ga_state *st, const ga_model *m, uint32_t i)
{
    const ga_model_bone *c = &m->bones[i];
    int j3d = m->family == GA_RIG_J3D, sm64 = m->family == GA_RIG_SM64DS;
    allocfunc alloc = (allocfunc)PyType_GetSlot(st->BoneType, Py_tp_alloc);
    RecordObject *b = (RecordObject *)alloc(st->BoneType, 0);
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

static void Model_dealloc(PyObject *self)
{
    ModelObject *o = (ModelObject *)self;
    Py_XDECREF(o->compression);
    Py_XDECREF(o->source);
    Py_XDECREF(o->bones);
    Py_XDECREF(o->chunks);
    Py_XDECREF(o->info);
    Py_XDECREF(o->inverse_binds);
    Py_XDECREF(o->meshes);
    Py_XDECREF(o->textures);
    Py_XDECREF(o->materials);
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

int model_fill(ga_state *st, ModelObject *o)
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
    if (rc) {
        Py_DECREF(bytes);
        return raise_error(st, &err);
    }
    allocfunc alloc = (allocfunc)PyType_GetSlot(st->ModelType, Py_tp_alloc);
    ModelObject *o = (ModelObject *)alloc(st->ModelType, 0);
    if (!o) {
        Py_DECREF(bytes);
        ga_model_free(&m);
        return NULL;
    }
    o->m = m;
    o->source = bytes; /* the file as given (wrapped): Model.to_bytes of an unedited model */
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
    default: return PyUnicode_FromString(ga_rig_family_name(o->m.family));
    }
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
        const char *rig = ga_rig_family_name(o->m.family);
        const ga_format *own = ga_rig_animation(rig);
        if (!ga_format_drives(a->fmt, rig))
            return PyErr_Format(PyExc_ValueError,
                                "a %s animation does not drive a %s model (its skeleton animations are %s files)",
                                a->fmt->name, o->m.format, own ? own->name : "no");
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
    o->readers++;
    Py_BEGIN_ALLOW_THREADS
    rc = ga_model_world_matrices(&o->m, a ? &c : NULL, fmt, frames, (size_t)nf, view.buf, &err);
    Py_END_ALLOW_THREADS
    o->readers--;
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

static PyObject *Model_geometry(PyObject *self, void *closure);

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
    {"meshes", Model_geometry, NULL, "J3D: tuple of Mesh, one per SHP1 shape in file order (decoded on first use; "
                                     "FormatError if the geometry is malformed); () for other families.", (void *)0},
    {"textures", Model_geometry, NULL, "J3D: tuple of Texture, one per TEX1 record in file order, duplicates "
                                       "included (decoded on first use); () for other families.", (void *)1},
    {"materials", Model_geometry, NULL, "J3D: tuple of Material in MAT3 order (decoded on first use); () for "
                                        "other families.", (void *)2},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef Model_methods[] = {
    {"world_matrices", (PyCFunction)(void (*)(void))Model_world_matrices, METH_VARARGS | METH_KEYWORDS,
     "world_matrices(anim=None, frame=0.0) -> array('f')\n\nThe game's model-space matrix of every bone, 16 "
     "floats each, row-major (translation in elements 3, 7, 11), at the rest pose (anim None) or posed by anim "
     "(BCK for J3D models, BCA for SM64DS, a Banjo-Kazooie animation for BK).  frame: one number, or a sequence "
     "or buffer of frames: then the result is frame-major, len(frames) * len(bones) * 16 floats."},
    {"to_bytes", (PyCFunction)(void (*)(void))Model_to_bytes, METH_VARARGS | METH_KEYWORDS,
     "to_bytes(compression=<self.compression>, *, regenerate=False) -> bytes\n\nThe model file.  Unedited and in "
     "its own compression: the bytes it was loaded from.  Otherwise the file as edited (or, regenerate=True, every "
     "chunk with an encoder encoded afresh from the decoded model; J3D only, ValueError otherwise) in compression: "
     "None or a wrapper name ('yaz0', 'yay0', ...).  See docs/model_writer.md."},
    {"save", (PyCFunction)(void (*)(void))Model_save, METH_VARARGS | METH_KEYWORDS,
     "save(path, *, compression=<self.compression>, regenerate=False): to_bytes() written atomically (temporary "
     "file + rename): a failed save leaves the old file."},
    {"replace_mesh", (PyCFunction)(void (*)(void))Model_replace_mesh, METH_VARARGS | METH_KEYWORDS,
     "replace_mesh(i, positions, triangles, normals=None, colors=None, uvs=None, joints=None, weights=None)\n\n"
     "Replaces shape i (Model.meshes[i]) with a new mesh in the layouts of Model.meshes: positions and normals in "
     "model space at the rest pose, triangles counter-clockwise from the front, colors and uvs lists per channel, "
     "joints / weights at any fixed width.  An omitted array keeps the shape's own (same vertex count).  "
     "Re-encodes VTX1 (append-only), SHP1, and EVP1/DRW1, JNT1, INF1 as needed (docs/model_writer.md)."},
    {"add_mesh", (PyCFunction)(void (*)(void))Model_add_mesh, METH_VARARGS | METH_KEYWORDS,
     "add_mesh(material, positions, triangles, normals=None, colors=None, uvs=None, joints=None, weights=None)\n\n"
     "Adds a shape after the others (Model.meshes[-1]) drawn with MAT3 material `material`, in the layouts of "
     "Model.meshes; the arrays given are its channels (no joints: rigid on joint 0).  Its INF1 nodes go inside the "
     "first joint, and it draws with a new MAT3 instance copied from `material` (index len(Model.materials)), "
     "which on a BDL gets its own MDL3 display list (docs/model_writer.md)."},
    {"_replace_chunk", Model_replace_chunk, METH_VARARGS,
     "_replace_chunk(index, data)\n\nReplaces chunk index (of Model.chunks) with data, a whole chunk (tag, size, "
     "body; a multiple of 32 bytes), and decodes the model afresh.  The primitive under the edit methods."},
    {"set_material_colors", (PyCFunction)(void (*)(void))Model_set_material_colors, METH_VARARGS | METH_KEYWORDS,
     "set_material_colors(i, colors=None, ambient_colors=None, tev_colors=None, konst_colors=None)\n\nSets "
     "material i's material / ambient colours (2 channels, RGBA 0..255), TEV colour slots (4, s16 RGBA as in "
     "Material.tev_colors) and konst colours (4, RGBA 0..255).  None leaves a kind alone; a shorter sequence sets "
     "the first entries.  Other materials keep their values even when they shared the stored entries.  A BDL's "
     "MDL3 display list of the material is patched too (docs/model_writer.md, Materials)."},
    {"_add_material_copy", (PyCFunction)(void (*)(void))Model_add_material_copy, METH_VARARGS | METH_KEYWORDS,
     "_add_material_copy(k, name=None) -> int\n\nAppends a MAT3 material instance copying material k (sharing "
     "its init record; name: k's when None); returns its index.  MAT3 only: INF1 / MDL3 are the caller's."},
    {"_encode_mat3", (PyCFunction)(void (*)(void))Model_encode_mat3, METH_VARARGS | METH_KEYWORDS,
     "_encode_mat3(regenerate=True) -> bytes\n\nThe MAT3 chunk encoded afresh from the decoded materials "
     "(re-pooled), or with regenerate=False the stored chunk through the relayout engine unedited."},
    {"replace_texture", (PyCFunction)(void (*)(void))Model_replace_texture, METH_VARARGS | METH_KEYWORDS,
     "replace_texture(index, rgba, width, height, format=None, *, palette_format=None)\n\nReplaces TEX1 "
     "texture index (of Model.textures) with RGBA8 pixels (width * height * 4 bytes, top row first), encoded "
     "in format (None: the texture's own) with as many mip levels as it had, and re-encodes TEX1; the other "
     "textures keep their bytes.  ValueError for a bad size (1..1024; powers of two with mip levels or "
     "repeat/mirror wrap).  On a BDL a changed size, format or palette re-encodes the MDL3 display lists of "
     "the materials using the texture.  docs/model_writer.md, Textures."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot Model_slots[] = {
    {Py_tp_dealloc, Model_dealloc},
    {Py_tp_repr, Model_repr},
    {Py_tp_getset, Model_getset},
    {Py_tp_methods, Model_methods},
    {Py_tp_doc, "A model file's skeleton (and, for J3D, its meshes, materials and textures), read-only.  Made by "
                 "gameanim.load_model."},
    {0, NULL},
};

PyType_Spec Model_spec = {"gameanim.Model", sizeof(ModelObject), 0, Py_TPFLAGS_DEFAULT, Model_slots};

/* ------------------------------------------------------------------ */
/* Mesh, Texture, Material                                              */

#define REC_FIELD(name, i, doc) {name, fields_get, NULL, doc, (void *)(intptr_t)(i)}

enum {
    MF_INDEX, MF_MATERIAL, MF_MATRIX_TYPE, MF_POSITIONS, MF_NORMALS, MF_COLORS, MF_COLOR_CHANNELS, MF_UVS,
    MF_UV_CHANNELS, MF_TRIANGLES, MF_INFLUENCES, MF_JOINTS, MF_WEIGHTS, MF_POSITION_INDICES, MF_DRAW_INDICES,
    MF_CORNER_UVS, MF_GROUPS, MF_COUNT
};

static PyGetSetDef Mesh_getset[] = {
    REC_FIELD("index", MF_INDEX, "Position in Model.meshes (the SHP1 shape number)."),
    REC_FIELD("material", MF_MATERIAL, "Index into Model.materials (INF1's material node before the shape), or -1."),
    REC_FIELD("matrix_type", MF_MATRIX_TYPE, "SHP1 matrix type: 0 single, 1 billboard, 2 Y billboard, 3 multi."),
    REC_FIELD("positions", MF_POSITIONS, "array('f'), 3 per vertex: model space at the rest pose (rigid vertices "
                                         "moved out of joint space, envelope vertices skinned as the game does)."),
    REC_FIELD("normals", MF_NORMALS, "array('f'), 3 per vertex, unit length, transformed like the positions; None "
                                     "without normals."),
    REC_FIELD("colors", MF_COLORS, "List of colour sets (CLR0, CLR1 present), each array('f') of RGBA 0..1 per "
                                   "vertex."),
    REC_FIELD("color_channels", MF_COLOR_CHANNELS, "Tuple: the CLRn of each entry of colors."),
    REC_FIELD("uvs", MF_UVS, "List of UV sets, each array('f') of (s, t) per vertex as stored (t = 0: top row)."),
    REC_FIELD("uv_channels", MF_UV_CHANNELS, "Tuple: the TEXn of each entry of uvs."),
    REC_FIELD("triangles", MF_TRIANGLES, "array('I'), 3 vertex indices per triangle, counter-clockwise from the "
                                         "front (Blender's winding); degenerate triangles dropped."),
    REC_FIELD("influences", MF_INFLUENCES, "Joints per vertex in joints and weights (the most any vertex has)."),
    REC_FIELD("joints", MF_JOINTS, "array('I'), influences per vertex: joint numbers (unused slots 0)."),
    REC_FIELD("weights", MF_WEIGHTS, "array('f'), influences per vertex (unused slots 0.0; a rigid vertex: 1.0)."),
    REC_FIELD("position_indices", MF_POSITION_INDICES, "array('I'): each vertex's VTX1 position index."),
    REC_FIELD("draw_indices", MF_DRAW_INDICES, "array('I'): each vertex's DRW1 entry (its skinning matrix)."),
    REC_FIELD("corner_uvs", MF_CORNER_UVS, "List parallel to uvs: array('f') of (s, 1 - t) per triangle corner "
                                           "(3 per triangle, in triangles' order): Blender's UV loop data."),
    REC_FIELD("groups", MF_GROUPS, "Tuple of (joint, weight, array('i') of vertices) for each distinct joint and "
                                   "non-zero weight, by joint then weight, vertices ascending: Blender's vertex "
                                   "groups (VertexGroup.add)."),
    {NULL, NULL, NULL, NULL, NULL},
};

enum {
    TF_INDEX, TF_NAME, TF_FORMAT, TF_WIDTH, TF_HEIGHT, TF_WRAP_S, TF_WRAP_T, TF_PIXELS, TF_ALPHA, TF_PALETTE_FORMAT,
    TF_PALETTE_COUNT, TF_MIN_FILTER, TF_MAG_FILTER, TF_MIP_COUNT, TF_LOD_BIAS, TF_COUNT
};

static PyGetSetDef Texture_getset[] = {
    REC_FIELD("index", TF_INDEX, "Position in Model.textures (the TEX1 record)."),
    REC_FIELD("name", TF_NAME, "The TEX1 name (cp932), or None."),
    REC_FIELD("format", TF_FORMAT, "GX format name: 'I4', 'I8', 'IA4', 'IA8', 'RGB565', 'RGB5A3', 'RGBA8', 'C4', "
                                   "'C8', 'C14X2' or 'CMPR'."),
    REC_FIELD("width", TF_WIDTH, "Width in texels."),
    REC_FIELD("height", TF_HEIGHT, "Height in texels."),
    REC_FIELD("wrap_s", TF_WRAP_S, "'clamp', 'repeat' or 'mirror'."),
    REC_FIELD("wrap_t", TF_WRAP_T, "'clamp', 'repeat' or 'mirror'."),
    REC_FIELD("pixels", TF_PIXELS, "bytes: the first mip level as RGBA8, width * height * 4, top row first."),
    REC_FIELD("alpha", TF_ALPHA, "The header's alpha flag byte."),
    REC_FIELD("palette_format", TF_PALETTE_FORMAT, "'IA8', 'RGB565' or 'RGB5A3' for C4 / C8 / C14X2; else None."),
    REC_FIELD("palette_count", TF_PALETTE_COUNT, "Palette entries (0 without a palette)."),
    REC_FIELD("min_filter", TF_MIN_FILTER, "GX minification filter (0 nearest, 1 linear, ...)."),
    REC_FIELD("mag_filter", TF_MAG_FILTER, "GX magnification filter (0 nearest, 1 linear)."),
    REC_FIELD("mip_count", TF_MIP_COUNT, "Mip levels stored (only the first is decoded)."),
    REC_FIELD("lod_bias", TF_LOD_BIAS, "The stored LOD bias (s16, hundredths)."),
    {NULL, NULL, NULL, NULL, NULL},
};

#define RECORD_SPEC(Name, doc)                                                                                  \
    static PyType_Slot Name##_slots[] = {                                                                       \
        {Py_tp_dealloc, Record_dealloc}, {Py_tp_repr, Record_repr}, {Py_tp_getset, Name##_getset},              \
        {Py_tp_doc, doc},                {0, NULL},                                                              \
    };                                                                                                          \
    PyType_Spec Name##_spec = {"gameanim." #Name, sizeof(RecordObject), 0, Py_TPFLAGS_DEFAULT, Name##_slots};

RECORD_SPEC(Mesh, "One SHP1 shape of a J3D Model as a triangle mesh, read-only (Model.meshes).")
RECORD_SPEC(Texture, "One TEX1 texture of a J3D Model decoded to RGBA8, read-only (Model.textures).")

static RecordObject *new_record(PyTypeObject *tp)
{
    allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
    return (RecordObject *)alloc(tp, 0);
}

/* Fails (-1) when any of the first n fields could not be made. */
static int record_check(RecordObject *r, int n)
{
    for (int k = 0; k < n; k++)
        if (!r->f[k]) return -1;
    return 0;
}

/* Mesh.corner_uvs: (s, 1 - t) of each triangle corner. */
static PyObject *corner_uvs(ga_state *st, const ga_mesh *s)
{
    PyObject *list = PyList_New(s->nuvs);
    size_t ncorners = (size_t)s->ntris * 3;
    float *buf = list && ncorners ? malloc(ncorners * 2 * sizeof(float)) : NULL;
    if (list && ncorners && !buf) {
        Py_DECREF(list);
        return PyErr_NoMemory();
    }
    for (uint32_t t = 0; list && t < s->nuvs; t++) {
        const float *src = s->uvs[t];
        for (size_t c = 0; c < ncorners; c++) {
            uint32_t v = s->triangles[c]; /* (< nverts from the decoder; checked all the same) */
            buf[2 * c] = v < s->nverts ? src[2 * (size_t)v] : 0.0f;
            buf[2 * c + 1] = v < s->nverts ? 1.0f - src[2 * (size_t)v + 1] : 1.0f;
        }
        PyObject *a = new_array(st, "f", buf, (Py_ssize_t)(ncorners * 8));
        if (!a) Py_CLEAR(list);
        else PyList_SetItem(list, t, a);
    }
    free(buf);
    return list;
}

/* Mesh.groups: one (joint, weight, array('i') of vertices) per group of
 * ga_mesh_vertex_groups (models/mesh_groups.c). */
static PyObject *vertex_groups(ga_state *st, const ga_mesh *s)
{
    ga_vertex_group *groups;
    int32_t *verts;
    size_t ng;
    ga_error err;
    if (ga_mesh_vertex_groups(s, &groups, &ng, &verts, &err)) return raise_error(st, &err);
    PyObject *out = PyTuple_New((Py_ssize_t)ng);
    for (size_t g = 0; out && g < ng; g++) {
        const ga_vertex_group *k = &groups[g];
        PyObject *arr = new_array(st, "i", verts + k->first, (Py_ssize_t)(k->count * 4));
        PyObject *item = arr ? Py_BuildValue("(IdN)", k->joint, (double)k->weight, arr) : NULL;
        if (!item) Py_CLEAR(out);
        else PyTuple_SetItem(out, (Py_ssize_t)g, item);
    }
    free(groups);
    free(verts);
    return out;
}

static PyObject *make_mesh(ga_state *st, const ga_mesh *s, uint32_t i)
{
    RecordObject *r = new_record(st->MeshType);
    if (!r) return NULL;
    Py_ssize_t nv = s->nverts;
    r->f[MF_INDEX] = PyLong_FromUnsignedLong(i);
    r->f[MF_MATERIAL] = PyLong_FromLong(s->material);
    r->f[MF_MATRIX_TYPE] = PyLong_FromLong(s->matrix_type);
    r->f[MF_POSITIONS] = new_array(st, "f", s->positions, nv * 12);
    r->f[MF_NORMALS] = s->normals ? new_array(st, "f", s->normals, nv * 12) : Py_NewRef(Py_None);
    r->f[MF_COLORS] = PyList_New(s->ncolors);
    r->f[MF_COLOR_CHANNELS] = PyTuple_New(s->ncolors);
    for (uint32_t c = 0; c < s->ncolors && r->f[MF_COLORS] && r->f[MF_COLOR_CHANNELS]; c++) {
        PyList_SetItem(r->f[MF_COLORS], c, new_array(st, "f", s->colors[c], nv * 16));
        PyTuple_SetItem(r->f[MF_COLOR_CHANNELS], c, PyLong_FromLong(s->color_channel[c]));
    }
    r->f[MF_UVS] = PyList_New(s->nuvs);
    r->f[MF_UV_CHANNELS] = PyTuple_New(s->nuvs);
    for (uint32_t t = 0; t < s->nuvs && r->f[MF_UVS] && r->f[MF_UV_CHANNELS]; t++) {
        PyList_SetItem(r->f[MF_UVS], t, new_array(st, "f", s->uvs[t], nv * 8));
        PyTuple_SetItem(r->f[MF_UV_CHANNELS], t, PyLong_FromLong(s->uv_channel[t]));
    }
    r->f[MF_TRIANGLES] = new_array(st, "I", s->triangles, (Py_ssize_t)s->ntris * 12);
    r->f[MF_INFLUENCES] = PyLong_FromUnsignedLong(s->influences);
    r->f[MF_JOINTS] = new_array(st, "I", s->joints, nv * s->influences * 4);
    r->f[MF_WEIGHTS] = new_array(st, "f", s->weights, nv * s->influences * 4);
    r->f[MF_POSITION_INDICES] = new_array(st, "I", s->position_index, nv * 4);
    r->f[MF_DRAW_INDICES] = new_array(st, "I", s->draw_index, nv * 4);
    r->f[MF_CORNER_UVS] = corner_uvs(st, s);
    r->f[MF_GROUPS] = vertex_groups(st, s);
    if (record_check(r, MF_COUNT) < 0 || PyErr_Occurred()) {
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

static const char *const WRAP_NAMES[3] = {"clamp", "repeat", "mirror"};

static PyObject *make_texture(ga_state *st, const ga_texture *t, uint32_t i)
{
    RecordObject *r = new_record(st->TextureType);
    if (!r) return NULL;
    int indexed = ga_gx_is_indexed(t->format);
    r->f[TF_INDEX] = PyLong_FromUnsignedLong(i);
    r->f[TF_NAME] = t->name ? name_text(t->name, "cp932") : Py_NewRef(Py_None);
    r->f[TF_FORMAT] = PyUnicode_FromString(ga_gx_format_name(t->format));
    r->f[TF_WIDTH] = PyLong_FromLong(t->width);
    r->f[TF_HEIGHT] = PyLong_FromLong(t->height);
    r->f[TF_WRAP_S] = PyUnicode_FromString(WRAP_NAMES[t->wrap_s]);
    r->f[TF_WRAP_T] = PyUnicode_FromString(WRAP_NAMES[t->wrap_t]);
    r->f[TF_PIXELS] = PyBytes_FromStringAndSize((const char *)t->pixels, (Py_ssize_t)t->width * t->height * 4);
    r->f[TF_ALPHA] = PyLong_FromLong(t->alpha);
    r->f[TF_PALETTE_FORMAT] =
        indexed ? PyUnicode_FromString(ga_gx_palette_format_name(t->palette_format)) : Py_NewRef(Py_None);
    r->f[TF_PALETTE_COUNT] = PyLong_FromLong(indexed ? t->palette_count : 0);
    r->f[TF_MIN_FILTER] = PyLong_FromLong(t->min_filter);
    r->f[TF_MAG_FILTER] = PyLong_FromLong(t->mag_filter);
    r->f[TF_MIP_COUNT] = PyLong_FromLong(t->mip_count);
    r->f[TF_LOD_BIAS] = PyLong_FromLong(t->lod_bias);
    if (record_check(r, TF_COUNT) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

/* Model.meshes, shape by shape: each shape decodes without the GIL, then
 * its record is made (with the GIL) while its buffers are still in the
 * cache, and they are freed before the next shape decodes. */
typedef struct mesh_records {
    ga_state *st;
    PyThreadState *ts; /* (the GIL is released between the callbacks) */
    PyObject *tuple;
} mesh_records;

static int add_mesh_record(void *ctx, uint32_t i, uint32_t count, ga_mesh *mesh)
{
    mesh_records *mr = ctx;
    PyEval_RestoreThread(mr->ts);
    int rc = GA_OK;
    if (!mr->tuple) mr->tuple = PyTuple_New(count);
    PyObject *r = mr->tuple ? make_mesh(mr->st, mesh, i) : NULL;
    if (!r) rc = 1; /* (positive, no GA_ERR_*: a Python error is set) */
    else PyTuple_SetItem(mr->tuple, i, r);
    mr->ts = PyEval_SaveThread();
    return rc;
}

static PyObject *model_meshes(ModelObject *o, ga_state *st)
{
    mesh_records mr = {st, NULL, NULL};
    ga_error err;
    o->readers++;
    mr.ts = PyEval_SaveThread();
    int rc = ga_model_meshes_each(&o->m, add_mesh_record, &mr, &err);
    PyEval_RestoreThread(mr.ts);
    o->readers--;
    if (rc == 1) {
        Py_XDECREF(mr.tuple);
        return NULL;
    }
    if (rc) {
        Py_XDECREF(mr.tuple);
        return raise_error(st, &err);
    }
    return mr.tuple ? mr.tuple : PyTuple_New(0);
}

/* Model.meshes / .textures / .materials: one C call decodes all of a kind
 * (without the GIL; the meshes shape by shape), then the records are made;
 * cached on the Model. */
static PyObject *Model_geometry(PyObject *self, void *closure)
{
    ModelObject *o = (ModelObject *)self;
    ga_state *st = STATE_OF(self);
    int kind = (int)(intptr_t)closure;
    PyObject **slot = kind == 0 ? &o->meshes : kind == 1 ? &o->textures : &o->materials;
    if (*slot) return Py_NewRef(*slot);
    if (kind == 0) {
        PyObject *t = model_meshes(o, st);
        if (!t) return NULL;
        if (!*slot) *slot = Py_NewRef(t); /* (another thread may have made it meanwhile) */
        Py_DECREF(t);
        return Py_NewRef(*slot);
    }
    void *items = NULL;
    uint32_t n = 0;
    ga_error err;
    int rc;
    o->readers++;
    Py_BEGIN_ALLOW_THREADS
    if (kind == 1)
        rc = ga_model_textures(&o->m, (ga_texture **)&items, &n, &err);
    else
        rc = ga_model_materials(&o->m, (ga_material **)&items, &n, &err);
    Py_END_ALLOW_THREADS
    o->readers--;
    if (rc) return raise_error(st, &err);
    PyObject *t = PyTuple_New(n);
    for (uint32_t i = 0; t && i < n; i++) {
        PyObject *r = kind == 1 ? make_texture(st, (ga_texture *)items + i, i)
                                : material_new(st, (ga_material *)items + i, i);
        if (!r) Py_CLEAR(t);
        else PyTuple_SetItem(t, i, r);
    }
    if (kind == 1)
        ga_textures_free(items, n);
    else
        ga_materials_free(items, n);
    if (!t) return NULL;
    if (!*slot) *slot = Py_NewRef(t); /* (another thread may have made it meanwhile) */
    Py_DECREF(t);
    return Py_NewRef(*slot);
}

/* gameanim.decode_texture */
PyObject *mod_decode_texture(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    static char *kwlist[] = {"data", "format", "width", "height", "palette", "palette_format", NULL};
    Py_buffer data, pal = {0};
    const char *fname, *pfname = "IA8";
    int width, height;
    PyObject *palette = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*sii|$Os:decode_texture", kwlist, &data, &fname, &width, &height,
                                     &palette, &pfname))
        return NULL;
    PyObject *res = NULL;
    int fmt = ga_gx_format_from_name(fname), pf = ga_gx_palette_format_from_name(pfname);
    size_t need;
    ga_error err;
    if (fmt < 0) {
        PyErr_Format(PyExc_ValueError, "unknown GX texture format %R", PyTuple_GetItem(args, 1));
        goto done;
    }
    if (pf < 0) {
        PyErr_Format(PyExc_ValueError, "palette_format must be 'IA8', 'RGB565' or 'RGB5A3', not '%s'", pfname);
        goto done;
    }
    if (width < 1 || height < 1 || (unsigned)width > GA_GX_MAX_SIDE || (unsigned)height > GA_GX_MAX_SIDE) {
        PyErr_Format(PyExc_ValueError, "width and height must be 1..%u, not %d x %d", GA_GX_MAX_SIDE, width, height);
        goto done;
    }
    if (palette != Py_None && PyObject_GetBuffer(palette, &pal, PyBUF_SIMPLE) < 0) goto done;
    ga_gx_image_size(fmt, (uint32_t)width, (uint32_t)height, &need);
    if ((size_t)data.len < need) {
        ga_fail(&err, GA_ERR_FORMAT, "gx", "texture data", data.len,
                "a %dx%d %s image needs %zu bytes, %zd given", width, height, fname, need, data.len);
        raise_error(st, &err);
        goto done;
    }
    res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)width * height * 4);
    if (res) {
        uint8_t *out = (uint8_t *)PyBytes_AsString(res);
        uint32_t npal = pal.buf ? (uint32_t)((size_t)pal.len / 2 > 65536 ? 65536 : (size_t)pal.len / 2) : 0;
        Py_BEGIN_ALLOW_THREADS
        ga_gx_decode(fmt, data.buf, (uint32_t)width, (uint32_t)height, pal.buf, npal, pf, out);
        Py_END_ALLOW_THREADS
    }
done:
    PyBuffer_Release(&data);
    if (pal.buf) PyBuffer_Release(&pal);
    return res;
}
