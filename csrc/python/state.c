/* The module state's accessors and the helpers that every file of the
 * binding shares (state.h). */
#include "state.h"

#include <string.h>

ga_state *state_of_module(PyObject *mod)
{
    return (ga_state *)PyModule_GetState(mod);
}

ga_state *state_of_type(PyTypeObject *tp)
{
    return (ga_state *)PyType_GetModuleState(tp);
}

int parse_max_decoded(PyObject *o, uint64_t *out)
{
    *out = 0;
    if (o == Py_None) return 0;
    if (!PyLong_Check(o) || PyBool_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "max_decoded_size must be an int (bytes) or None");
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow < 0 || (!overflow && v <= 0)) {
        PyErr_SetString(PyExc_ValueError, "max_decoded_size must be a positive number of bytes");
        return -1;
    }
    *out = overflow > 0 ? UINT64_MAX : (uint64_t)v; /* (the absolute limits still hold) */
    return 0;
}

int parse_source_args(PyObject *args, PyObject *kw, const char *format, char **kwlist, PyObject **source,
                      ga_decode_opts *opts)
{
    PyObject *max_decoded = Py_None;
    memset(opts, 0, sizeof *opts);
    if (!PyArg_ParseTupleAndKeywords(args, kw, format, kwlist, source, &max_decoded)) return -1;
    return parse_max_decoded(max_decoded, &opts->max_decoded_size);
}

/* The records' layout: the head, then the fields (binding.h). */
typedef struct {
    PyObject_HEAD
    PyObject *f[1];
} FieldsObject;

PyObject *fields_get(PyObject *self, void *closure)
{
    PyObject *v = ((FieldsObject *)self)->f[(intptr_t)closure];
    return Py_NewRef(v ? v : Py_None);
}

void fields_dealloc(PyObject *self, int n)
{
    PyObject **f = ((FieldsObject *)self)->f;
    for (int i = 0; i < n; i++) Py_XDECREF(f[i]);
    PyTypeObject *tp = Py_TYPE(self);
    freefunc free_fn = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    free_fn(self);
    Py_DECREF(tp);
}
