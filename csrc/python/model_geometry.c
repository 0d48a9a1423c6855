/* Model.replace_mesh and Model.add_mesh (issue 34, docs/model_writer.md "Meshes"): the
 * arguments as buffers, then ga_j3d_replace_mesh (csrc/models/
 * j3d_mesh_write.h), which re-encodes and splices every chunk it reaches
 * at once.  Glue only.  The GIL stays held: the model changes under it. */
#include "model_object.h"

#include "../models/j3d_mesh_write.h"

#include <string.h>

/* One array argument: holder and view, or nothing for None. */
typedef struct arg_buf {
    PyObject *holder;
    Py_buffer view;
} arg_buf;

static int get(ga_state *st, PyObject *obj, const char *code, const char *what, arg_buf *a)
{
    a->holder = NULL;
    if (!obj || obj == Py_None) return 0;
    return typed_buffer(st, obj, code, 4, what, &a->view, &a->holder);
}

static void release(arg_buf *a)
{
    if (a->holder) {
        PyBuffer_Release(&a->view);
        Py_CLEAR(a->holder);
    }
}

/* A list of per-channel float arrays (colours: 4 per vertex, UVs: 2). */
static int get_channels(ga_state *st, PyObject *obj, const char *what, arg_buf *bufs, int max, uint32_t *n,
                        Py_ssize_t per, Py_ssize_t nverts, const float **out)
{
    *n = 0;
    PyObject *seq = PySequence_Tuple(obj);
    if (!seq) return -1;
    Py_ssize_t count = PyTuple_Size(seq);
    if (count > max) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: at most %d channels", what, max);
        return -1;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        if (get(st, PyTuple_GetItem(seq, k), "f", what, &bufs[k]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        *n = (uint32_t)k + 1;
        if (bufs[k].view.len / 4 != per * nverts) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "%s[%zd]: %zd values for %zd vertices (%zd each)", what, k,
                         bufs[k].view.len / 4, nverts, per);
            return -1;
        }
        out[k] = bufs[k].view.buf;
    }
    Py_DECREF(seq);
    return 0;
}

/* replace_mesh (adding 0: `index` is the shape) and add_mesh (1: the material). */
static PyObject *mesh_edit(PyObject *self, PyObject *args, PyObject *kw, int adding)
{
    static char *replace_kw[] = {"i", "positions", "triangles", "normals", "colors", "uvs", "joints", "weights", NULL};
    static char *add_kw[] = {"material", "positions", "triangles", "normals", "colors", "uvs", "joints", "weights", NULL};
    ModelObject *o = (ModelObject *)self;
    ga_state *st = STATE_OF(self);
    unsigned int shape;
    PyObject *pos_o, *tri_o, *nrm_o = Py_None, *clr_o = Py_None, *uv_o = Py_None, *jnt_o = Py_None, *wt_o = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, adding ? "IOO|OOOOO:add_mesh" : "IOO|OOOOO:replace_mesh",
                                     adding ? add_kw : replace_kw, &shape, &pos_o, &tri_o, &nrm_o, &clr_o, &uv_o,
                                     &jnt_o, &wt_o))
        return NULL;
    if (o->readers) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the model is being read by another thread; edit it when that call has returned");
        return NULL;
    }
    arg_buf pos = {0}, tri = {0}, nrm = {0}, jnt = {0}, wt = {0}, clr[2] = {{0}}, uv[8] = {{0}};
    ga_mesh_input in;
    memset(&in, 0, sizeof in);
    PyObject *result = NULL;
    if (get(st, pos_o, "f", "positions", &pos) < 0 || get(st, tri_o, "I", "triangles", &tri) < 0 ||
        get(st, nrm_o, "f", "normals", &nrm) < 0 || get(st, jnt_o, "I", "joints", &jnt) < 0 ||
        get(st, wt_o, "f", "weights", &wt) < 0)
        goto done;
    Py_ssize_t npos = pos.view.len / 4, ntri = tri.view.len / 4;
    if (npos % 3 || ntri % 3) {
        PyErr_SetString(PyExc_ValueError, "positions and triangles hold 3 items per vertex / triangle");
        goto done;
    }
    Py_ssize_t nv = npos / 3;
    if (nv > 0xFFFFFF || ntri / 3 > 0xFFFFFF) {
        PyErr_SetString(PyExc_ValueError, "too many vertices or triangles for one shape");
        goto done;
    }
    in.nverts = (uint32_t)nv;
    in.ntris = (uint32_t)(ntri / 3);
    in.positions = pos.view.buf;
    in.triangles = tri.view.buf;
    if (nrm.holder) {
        if (nrm.view.len / 4 != 3 * nv) {
            PyErr_Format(PyExc_ValueError, "normals: %zd values for %zd vertices", nrm.view.len / 4, nv);
            goto done;
        }
        in.normals = nrm.view.buf;
    }
    if (clr_o != Py_None) {
        in.has_colors = 1;
        if (get_channels(st, clr_o, "colors", clr, 2, &in.ncolors, 4, nv, in.colors) < 0) goto done;
    }
    if (uv_o != Py_None) {
        in.has_uvs = 1;
        if (get_channels(st, uv_o, "uvs", uv, 8, &in.nuvs, 2, nv, in.uvs) < 0) goto done;
    }
    if (!jnt.holder != !wt.holder) {
        PyErr_SetString(PyExc_ValueError, "joints and weights go together: give both or neither");
        goto done;
    }
    if (jnt.holder) {
        Py_ssize_t nj = jnt.view.len / 4;
        if (nv == 0 || nj % nv || nj != wt.view.len / 4 || nj / nv < 1 || nj / nv > 255) {
            PyErr_Format(PyExc_ValueError,
                         "joints and weights: the same number of items, a whole number (1-255) per vertex (%zd, %zd "
                         "for %zd vertices)",
                         nj, wt.view.len / 4, nv);
            goto done;
        }
        in.influences = (uint32_t)(nj / nv);
        in.joints = jnt.view.buf;
        in.weights = wt.view.buf;
    }
    ga_error err;
    if ((adding ? ga_j3d_add_mesh(&o->m, shape, &in, &err) : ga_j3d_replace_mesh(&o->m, shape, &in, &err)) != GA_OK) {
        raise_error(st, &err);
        goto done;
    }
    if (model_edited(st, o) < 0) goto done;
    result = Py_NewRef(Py_None);
done:
    release(&pos), release(&tri), release(&nrm), release(&jnt), release(&wt);
    for (int k = 0; k < 2; k++) release(&clr[k]);
    for (int k = 0; k < 8; k++) release(&uv[k]);
    return result;
}

PyObject *Model_replace_mesh(PyObject *self, PyObject *args, PyObject *kw)
{
    return mesh_edit(self, args, kw, 0);
}

PyObject *Model_add_mesh(PyObject *self, PyObject *args, PyObject *kw)
{
    return mesh_edit(self, args, kw, 1);
}
