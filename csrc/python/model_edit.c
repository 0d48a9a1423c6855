/* gameanim.Model's edits (issue 34): each re-encodes the chunks it
 * reaches (csrc/models/j3d_writer.h) and splices them in; the records made
 * from the old bytes are dropped and made again on first use.  Glue only. */
#include "model_object.h"

#include "../models/j3d_writer.h"

int model_splice(ga_state *st, ModelObject *o, uint32_t index, const uint8_t *chunk, size_t size)
{
    if (o->readers) {
        PyErr_SetString(PyExc_RuntimeError,
                        "the model is being read by another thread; edit it when that call has returned");
        return -1;
    }
    ga_error err;
    if (ga_j3d_splice(&o->m, index, chunk, size, &err) != GA_OK) {
        raise_error(st, &err);
        return -1;
    }
    return model_edited(st, o);
}

int model_edited(ga_state *st, ModelObject *o)
{
    o->edited = 1;
    Py_CLEAR(o->bones);
    Py_CLEAR(o->chunks);
    Py_CLEAR(o->info);
    Py_CLEAR(o->inverse_binds);
    Py_CLEAR(o->meshes);
    Py_CLEAR(o->textures);
    Py_CLEAR(o->materials);
    return model_fill(st, o);
}

/* Model._replace_chunk(index, data): the primitive under every edit, for
 * tests and tools; data is a whole chunk (tag, size, body, 32-aligned). */
PyObject *Model_replace_chunk(PyObject *self, PyObject *args)
{
    ModelObject *o = (ModelObject *)self;
    unsigned int index;
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "Iy*:_replace_chunk", &index, &data)) return NULL;
    int rc = model_splice(STATE_OF(self), o, index, data.buf, (size_t)data.len);
    PyBuffer_Release(&data);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}
