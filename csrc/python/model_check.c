/* gameanim.check_model: the game-acceptance lint of a J3D model
 * (csrc/models/j3d_check.h) on a file's bytes or a loaded Model.  Glue
 * only. */
#include "model_object.h"

#include "../models/j3d_check.h"

#include <string.h>

static PyObject *list_of(const ga_check_list *l)
{
    PyObject *res = PyList_New((Py_ssize_t)l->count);
    if (!res) return NULL;
    for (size_t i = 0; i < l->count; i++) {
        /* the messages quote file bytes only as numbers: plain ASCII */
        PyObject *s = PyUnicode_DecodeUTF8(l->items[i], (Py_ssize_t)strlen(l->items[i]), "replace");
        if (!s) {
            Py_DECREF(res);
            return NULL;
        }
        PyList_SetItem(res, (Py_ssize_t)i, s);
    }
    return res;
}

PyObject *mod_check_model(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    static char *kwlist[] = {"data", "max_decoded_size", NULL};
    PyObject *source;
    ga_decode_opts opts;
    if (parse_source_args(args, kw, "O|$O:check_model", kwlist, &source, &opts) < 0) return NULL;
    PyObject *model;
    if (PyObject_TypeCheck(source, st->ModelType)) {
        model = Py_NewRef(source);
    } else {
        PyObject *data = source_bytes(st, source);
        if (!data) return NULL;
        model = model_from_data(st, data, &opts); /* FormatError when it does not load */
        Py_DECREF(data);
        if (!model) return NULL;
    }
    ModelObject *o = (ModelObject *)model;
    ga_check_list l;
    ga_error err;
    int rc;
    o->readers++;
    Py_BEGIN_ALLOW_THREADS
    rc = ga_j3d_check(&o->m, &l, &err);
    Py_END_ALLOW_THREADS
    o->readers--;
    Py_DECREF(model);
    if (rc) return raise_error(st, &err);
    PyObject *res = list_of(&l);
    ga_check_list_free(&l);
    return res;
}
