/* gameanim.Model's output: to_bytes and save (issue 34).  An unedited
 * model in its own wrapper is the bytes it was loaded from; otherwise the
 * (possibly edited) unwrapped file, or with regenerate=True every chunk
 * encoded afresh (csrc/models/j3d_regenerate.h), in the requested wrapper.
 * Glue only. */
#include "model_object.h"

#include "../models/j3d_regenerate.h"

/* The wrapper to write with: compression=<absent> keeps the model's own. */
static int model_wrapper(ModelObject *o, PyObject *comp_arg, const ga_wrapper **w)
{
    PyObject *comp;
    if (parse_compression(comp_arg ? comp_arg : o->compression, &comp) < 0) return -1;
    *w = comp == Py_None ? NULL : ga_wrapper_by_name(PyUnicode_AsUTF8AndSize(comp, NULL));
    Py_DECREF(comp);
    return 0;
}

PyObject *Model_to_bytes(PyObject *self, PyObject *args, PyObject *kw)
{
    ga_state *st = STATE_OF(self);
    ModelObject *o = (ModelObject *)self;
    static char *kwlist[] = {"compression", "regenerate", NULL};
    PyObject *comp_arg = NULL;
    int regenerate = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$p:to_bytes", kwlist, &comp_arg, &regenerate)) return NULL;
    const ga_wrapper *w, *own;
    if (model_wrapper(o, comp_arg, &w) < 0 || model_wrapper(o, NULL, &own) < 0) return NULL;
    if (regenerate && o->m.family != GA_RIG_J3D)
        return PyErr_Format(PyExc_ValueError,
                            "regenerate=True re-encodes J3D models (BMD / BDL) only; a %s model can only be written "
                            "back as loaded",
                            o->m.format);
    if (!regenerate && !o->edited && w == own) return Py_NewRef(o->source);

    /* The work runs without the GIL: an edit from another thread waits
     * (model_splice refuses while readers > 0). */
    ga_buf b;
    ga_buf_init(&b);
    ga_error err;
    int rc = GA_OK;
    o->readers++;
    Py_BEGIN_ALLOW_THREADS
    if (regenerate)
        rc = ga_j3d_regenerate(&o->m, &b, &err);
    else if (w)
        rc = w->wrap(o->m.data, o->m.size, &b, &err);
    if (rc == GA_OK && regenerate && w) {
        ga_buf wrapped;
        ga_buf_init(&wrapped);
        rc = w->wrap(b.data, b.len, &wrapped, &err);
        ga_buf_free(&b);
        b = wrapped;
    }
    Py_END_ALLOW_THREADS
    PyObject *res = NULL;
    if (rc != GA_OK)
        raise_error(st, &err);
    else if (!regenerate && !w)
        res = PyBytes_FromStringAndSize((const char *)o->m.data, (Py_ssize_t)o->m.size);
    else
        res = PyBytes_FromStringAndSize((const char *)b.data, (Py_ssize_t)b.len);
    o->readers--;
    ga_buf_free(&b);
    return res;
}

PyObject *Model_save(PyObject *self, PyObject *args, PyObject *kw)
{
    if (!PyTuple_Check(args) || PyTuple_Size(args) != 1) {
        PyErr_SetString(PyExc_TypeError,
                        "save(path, *, compression=<keep>, regenerate=False) takes exactly one positional argument");
        return NULL;
    }
    PyObject *empty = PyTuple_New(0);
    if (!empty) return NULL;
    PyObject *data = Model_to_bytes(self, empty, kw);
    Py_DECREF(empty);
    if (!data) return NULL;
    PyObject *r = atomic_write(PyTuple_GetItem(args, 0), data);
    Py_DECREF(data);
    return r;
}
