/* gameanim.Model's material edits (issue 34): set_material_colors and the
 * private _add_material_copy / _encode_mat3 (csrc/models/j3d_mat3.h).
 * Glue only: arguments, the chunks spliced through model_splice. */
#include "model_object.h"

#include "../models/j3d_mat3.h"
#include "../models/j3d_writer.h"

#include <string.h>

/* Up to `max` colours of 4 ints in lo..hi; *n how many were given (None:
 * 0). */
static int read_entries(PyObject *obj, const char *what, uint32_t max, long lo, long hi, long out[4][4], uint32_t *n)
{
    *n = 0;
    if (obj == Py_None) return 0;
    if (!PySequence_Check(obj) || PyUnicode_Check(obj) || PyBytes_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be None or a sequence of (r, g, b, a)", what);
        return -1;
    }
    Py_ssize_t len = PySequence_Size(obj);
    if (len < 0) return -1;
    if ((size_t)len > max) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd colours; the material has %u", what, len, max);
        return -1;
    }
    for (Py_ssize_t k = 0; k < len; k++) {
        PyObject *c = PySequence_GetItem(obj, k);
        if (!c) return -1;
        Py_ssize_t m = PySequence_Check(c) && !PyUnicode_Check(c) ? PySequence_Size(c) : -1;
        if (m != 4) {
            Py_DECREF(c);
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s[%zd] must be 4 ints (r, g, b, a)", what, k);
            return -1;
        }
        for (Py_ssize_t q = 0; q < 4; q++) {
            PyObject *it = PySequence_GetItem(c, q);
            long v = it ? PyLong_AsLong(it) : -1;
            Py_XDECREF(it);
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(c);
                return -1;
            }
            if (v < lo || v > hi) {
                Py_DECREF(c);
                PyErr_Format(PyExc_ValueError, "%s[%zd][%zd] = %ld is outside %ld..%ld", what, k, q, v, lo, hi);
                return -1;
            }
            out[k][q] = v;
        }
        Py_DECREF(c);
    }
    *n = (uint32_t)len;
    return 0;
}

static int material_index(ModelObject *o, PyObject *arg, uint32_t *i)
{
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred()) return -1;
    ga_material *mats = NULL;
    uint32_t n = 0;
    ga_error err;
    if (ga_model_materials(&o->m, &mats, &n, &err) != GA_OK) {
        raise_error(STATE_OF((PyObject *)o), &err);
        return -1;
    }
    ga_materials_free(mats, n);
    if (v < 0 || (unsigned long)v >= n) {
        PyErr_Format(PyExc_IndexError, "material %ld of a model with %u materials", v, n);
        return -1;
    }
    *i = (uint32_t)v;
    return 0;
}

static int splice_tag(ga_state *st, ModelObject *o, const char *tag, const ga_buf *b)
{
    long c = ga_j3d_find_chunk(&o->m, tag);
    return model_splice(st, o, (uint32_t)c, b->data, b->len);
}

PyObject *Model_set_material_colors(PyObject *self, PyObject *args, PyObject *kw)
{
    ModelObject *o = (ModelObject *)self;
    ga_state *st = STATE_OF(self);
    static char *kwlist[] = {"i", "colors", "ambient_colors", "tev_colors", "konst_colors", NULL};
    PyObject *index, *col = Py_None, *amb = Py_None, *tev = Py_None, *kon = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOO:set_material_colors", kwlist, &index, &col, &amb, &tev, &kon))
        return NULL;
    if (o->m.family != GA_RIG_J3D) {
        PyErr_SetString(PyExc_ValueError, "only J3D models (BMD/BDL) have materials to edit");
        return NULL;
    }
    uint32_t i;
    if (material_index(o, index, &i) < 0) return NULL;
    ga_mat3_colors c;
    memset(&c, 0, sizeof c);
    long v[4][4];
    if (read_entries(col, "colors", 2, 0, 255, v, &c.ncolor) < 0) return NULL;
    for (int k = 0; k < 8; k++) c.color[k / 4][k % 4] = (uint8_t)v[k / 4][k % 4];
    if (read_entries(amb, "ambient_colors", 2, 0, 255, v, &c.nambient) < 0) return NULL;
    for (int k = 0; k < 8; k++) c.ambient[k / 4][k % 4] = (uint8_t)v[k / 4][k % 4];
    if (read_entries(tev, "tev_colors", 4, -32768, 32767, v, &c.ntev) < 0) return NULL;
    for (int k = 0; k < 16; k++) c.tev[k / 4][k % 4] = (int16_t)v[k / 4][k % 4];
    if (read_entries(kon, "konst_colors", 4, 0, 255, v, &c.nkonst) < 0) return NULL;
    for (int k = 0; k < 16; k++) c.konst[k / 4][k % 4] = (uint8_t)v[k / 4][k % 4];
    if (!c.ncolor && !c.nambient && !c.ntev && !c.nkonst) Py_RETURN_NONE;

    ga_buf mat3, mdl3;
    ga_buf_init(&mat3);
    ga_buf_init(&mdl3);
    ga_error err;
    int rc = ga_j3d_mat3_colors(&o->m, i, &c, &mat3, &err);
    long d = ga_j3d_find_chunk(&o->m, "MDL3");
    if (!rc && d >= 0) { /* BDL: the material's display list too, on a copy */
        const ga_model_chunk *ch = &o->m.chunks[d];
        if (ga_buf_put(&mdl3, o->m.data + ch->offset, ch->size) != GA_OK) rc = ga_nomem(&err, o->m.format);
        else rc = ga_j3d_mdl3_patch_colors(mdl3.data, mdl3.len, ch->offset, i, &c, o->m.format, &err);
    }
    PyObject *res = NULL;
    if (rc) {
        raise_error(st, &err);
    } else if (d < 0) {
        if (splice_tag(st, o, "MAT3", &mat3) == 0) res = Py_NewRef(Py_None);
    } else if (o->readers) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the model is being read by another thread; edit it when that call has returned");
    } else { /* MAT3 and MDL3 in one splice: both change or neither */
        uint32_t idx[2] = {(uint32_t)ga_j3d_find_chunk(&o->m, "MAT3"), (uint32_t)d};
        ga_buf both[2] = {mat3, mdl3};
        if (idx[0] > idx[1]) {
            uint32_t t = idx[0];
            idx[0] = idx[1], idx[1] = t;
            both[0] = mdl3, both[1] = mat3;
        }
        if (ga_j3d_splice_chunks(&o->m, 2, idx, both, &err) != GA_OK) raise_error(st, &err);
        else if (model_edited(st, o) == 0) res = Py_NewRef(Py_None);
    }
    ga_buf_free(&mat3);
    ga_buf_free(&mdl3);
    return res;
}

/* _add_material_copy(k, name=None) -> int: a new material instance copying
 * material k (MAT3 only; for add_mesh). */
PyObject *Model_add_material_copy(PyObject *self, PyObject *args, PyObject *kw)
{
    ModelObject *o = (ModelObject *)self;
    static char *kwlist[] = {"k", "name", NULL};
    PyObject *index;
    const char *name = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|z:_add_material_copy", kwlist, &index, &name)) return NULL;
    uint32_t k, added = 0;
    if (material_index(o, index, &k) < 0) return NULL;
    ga_buf b;
    ga_buf_init(&b);
    ga_error err;
    PyObject *res = NULL;
    if (ga_j3d_mat3_add_copy(&o->m, k, name, &added, &b, &err) != GA_OK) raise_error(STATE_OF(self), &err);
    else if (splice_tag(STATE_OF(self), o, "MAT3", &b) == 0) res = PyLong_FromUnsignedLong(added);
    ga_buf_free(&b);
    return res;
}

/* _encode_mat3(regenerate=True) -> bytes: MAT3 encoded afresh from the
 * decoded materials, or (False) the stored chunk through the relayout
 * engine unedited. */
PyObject *Model_encode_mat3(PyObject *self, PyObject *args, PyObject *kw)
{
    ModelObject *o = (ModelObject *)self;
    static char *kwlist[] = {"regenerate", NULL};
    int regen = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|p:_encode_mat3", kwlist, &regen)) return NULL;
    ga_buf b;
    ga_buf_init(&b);
    ga_error err;
    PyObject *res = NULL;
    int rc = regen ? ga_j3d_encode_mat3(&o->m, &b, &err) : ga_j3d_mat3_relayout(&o->m, &b, &err);
    if (rc != GA_OK) raise_error(STATE_OF(self), &err);
    else res = PyBytes_FromStringAndSize((const char *)b.data, (Py_ssize_t)b.len);
    ga_buf_free(&b);
    return res;
}
