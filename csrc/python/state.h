/* The module state of gameanim._core and the helpers every file of the
 * binding calls (state.c): kept apart from module.c, which only assembles
 * the module, so that no binding file calls back into it. */
#ifndef GAMEANIM_STATE_H
#define GAMEANIM_STATE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "gameanim.h" /* ga_decode_opts */

/* ------------------------------------------------------------------ */
/* Module state (state.c)                                             */

#define GA_NZERO 5
#define GA_MATERIAL_PARTS 12

typedef struct ga_state {
    PyObject *FormatError;
    PyObject *EncodeError;
    PyObject *PrecisionWarning;
    PyObject *ArrayType; /* array.array */
    PyTypeObject *TrackType;
    PyTypeObject *AnimationType;
    PyTypeObject *ModelType;
    PyTypeObject *BoneType;
    PyTypeObject *MeshType;     /* model.c: Model.meshes, .textures, .materials items */
    PyTypeObject *TextureType;
    PyTypeObject *MaterialType;      /* material.c */
    PyTypeObject *MaterialParts[GA_MATERIAL_PARTS]; /* material.c: TevStage, TevOp, Blend, ... */
    PyTypeObject *ArchiveType;       /* archive.c */
    PyTypeObject *ArchiveMemberType; /* archive.c (a struct sequence) */
    /* One-item zero arrays ('f', 'i', 'B', 'd'): repeating one makes a new
     * array of any length without building a bytes object first. */
    PyObject *ZeroArrays[GA_NZERO];
} ga_state;

ga_state *state_of_module(PyObject *mod);
/* The state of the module that made an object of one of our types. */
ga_state *state_of_type(PyTypeObject *tp);
#define STATE_OF(self) state_of_type(Py_TYPE((PyObject *)(self)))

/* max_decoded_size= of the loading functions: None for the default limit
 * (docs/limits.md), else a positive number of bytes.  -1 with an exception. */
int parse_max_decoded(PyObject *o, uint64_t *out);
/* The arguments of the functions that read a file, `(source, *,
 * max_decoded_size=None)` as the format string and kwlist name them:
 * *source (borrowed) and *opts (zeroed, then its size limit).  -1 with an
 * exception. */
int parse_source_args(PyObject *args, PyObject *kw, const char *format, char **kwlist, PyObject **source,
                      ga_decode_opts *opts);

#endif
