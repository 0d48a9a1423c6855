/* gameanim.Model's object, shared by model.c (reading) and the editing
 * methods (model_edit.c).  Glue only. */
#ifndef GAMEANIM_PY_MODEL_OBJECT_H
#define GAMEANIM_PY_MODEL_OBJECT_H

#include "binding.h"
#include "model.h"

typedef struct {
    PyObject_HEAD
    ga_model m;
    PyObject *source;      /* the file's bytes as given (wrapped): to_bytes of an unedited model */
    int edited;            /* a chunk was replaced since the load */
    int readers;           /* calls decoding o->m with the GIL released; an edit waits for none */
    PyObject *compression, *bones, *chunks, *info, *inverse_binds;
    PyObject *meshes, *textures, *materials; /* tuples, made on first use */
} ModelObject;

/* Rebuilds the records made at load (bones, chunks, info, inverse binds). */
int model_fill(ga_state *st, ModelObject *o);

/* Replaces chunk `index` with a whole encoded chunk (j3d_writer.h
 * ga_j3d_splice), drops the decoded records and marks the model edited.
 * -1 with a Python error set on failure (the model is then unchanged). */
int model_splice(ga_state *st, ModelObject *o, uint32_t index, const uint8_t *chunk, size_t size);

/* After ga_model's chunks were replaced in place: drops the decoded
 * records, marks the model edited and rebuilds the load-time records.
 * Edits that splice several chunks at once call it (model_splice does). */
int model_edited(ga_state *st, ModelObject *o);

/* Model.replace_mesh, Model.add_mesh (model_geometry.c) */
PyObject *Model_replace_mesh(PyObject *self, PyObject *args, PyObject *kw);
PyObject *Model_add_mesh(PyObject *self, PyObject *args, PyObject *kw);

/* Model._replace_chunk (model_edit.c) */
PyObject *Model_replace_chunk(PyObject *self, PyObject *args);
/* Model.replace_texture (model_textures.c) */
PyObject *Model_replace_texture(PyObject *self, PyObject *args, PyObject *kw);

/* Model.to_bytes, Model.save (model_write.c) */
PyObject *Model_to_bytes(PyObject *self, PyObject *args, PyObject *kw);
PyObject *Model_save(PyObject *self, PyObject *args, PyObject *kw);
/* Model.set_material_colors, Model._add_material_copy, Model._encode_mat3
 * (model_materials.c) */
PyObject *Model_set_material_colors(PyObject *self, PyObject *args, PyObject *kw);
PyObject *Model_add_material_copy(PyObject *self, PyObject *args, PyObject *kw);
PyObject *Model_encode_mat3(PyObject *self, PyObject *args, PyObject *kw);
/* gameanim.check_model (model_check.c) */
PyObject *mod_check_model(PyObject *mod, PyObject *args, PyObject *kw);

#endif
