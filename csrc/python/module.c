/* The module gameanim._core assembled: its functions and their
 * registration, its types and constants (the state and the helpers the
 * other files share: state.c).  Built with Py_LIMITED_API 3.11 so that
 * one abi3 binary loads in every Blender from 3.4 (Debian, Python 3.11)
 * to 5.x. */
#include "binding.h"
#include "model.h"
#include "model_object.h"

#include <stdlib.h>
#include <string.h>

static PyObject *mod_load(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    static char *kwlist[] = {"source", "keyless_rule", "max_decoded_size", NULL};
    PyObject *source, *keyless = Py_None, *max_decoded = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OO:load", kwlist, &source, &keyless, &max_decoded)) return NULL;
    ga_decode_opts opts = {0};
    if (parse_enum(&keyless_rule_enum, keyless, &opts.keyless_rule) < 0) return NULL;
    if (parse_max_decoded(max_decoded, &opts.max_decoded_size) < 0) return NULL;
    PyObject *data = source_bytes(st, source);
    if (!data) return NULL;
    PyObject *res = animation_from_data(st, data, &opts);
    Py_DECREF(data);
    return res;
}

static PyObject *mod_load_model(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    static char *kwlist[] = {"source", "max_decoded_size", NULL};
    PyObject *source;
    ga_decode_opts opts;
    if (parse_source_args(args, kw, "O|$O:load_model", kwlist, &source, &opts) < 0) return NULL;
    PyObject *data = source_bytes(st, source);
    if (!data) return NULL;
    PyObject *res = model_from_data(st, data, &opts);
    Py_DECREF(data);
    return res;
}

/* Replaces *view of a mutable buffer (a bytearray, a memoryview, an
 * array) and *data with a bytes copy: the decoders run without the GIL,
 * while another thread could write into the caller's buffer.  On failure
 * both are released. */
static int immutable_copy(Py_buffer *view, PyObject **data)
{
    PyObject *copy = PyBytes_FromStringAndSize(view->buf, view->len);
    PyBuffer_Release(view);
    Py_DECREF(*data);
    *data = copy;
    if (!copy) return -1;
    if (PyObject_GetBuffer(copy, view, PyBUF_SIMPLE) < 0) {
        Py_CLEAR(*data);
        return -1;
    }
    return 0;
}

static PyObject *mod_detect(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    static char *kwlist[] = {"", "max_decoded_size", NULL};
    PyObject *source;
    ga_decode_opts opts;
    if (parse_source_args(args, kw, "O|$O:detect", kwlist, &source, &opts) < 0) return NULL;
    PyObject *data = source_bytes(st, source);
    if (!data) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
        Py_DECREF(data);
        return NULL;
    }
    if (!PyBytes_CheckExact(data) && immutable_copy(&view, &data) < 0) return NULL;
    ga_loaded l;
    ga_error err;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ga_load(view.buf, (size_t)view.len, &opts, &l, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    Py_DECREF(data);
    if (rc) return raise_error(st, &err);
    PyObject *res = Py_BuildValue("(ss)", l.format->name, l.wrapper ? l.wrapper->name : "none");
    ga_loaded_free(&l);
    if (res && PyTuple_GetItem(res, 1) && PyUnicode_CompareWithASCIIString(PyTuple_GetItem(res, 1), "none") == 0) {
        PyObject *r2 = Py_BuildValue("(OO)", PyTuple_GetItem(res, 0), Py_None);
        Py_DECREF(res);
        res = r2;
    }
    return res;
}

static PyObject *mod_save(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    PyObject *anim, *path;
    if (!PyTuple_Check(args) || PyTuple_Size(args) != 2) {
        PyErr_SetString(PyExc_TypeError, "save(animation, path, **options) takes two positional arguments");
        return NULL;
    }
    anim = PyTuple_GetItem(args, 0);
    path = PyTuple_GetItem(args, 1);
    if (!PyObject_TypeCheck(anim, st->AnimationType)) {
        PyErr_SetString(PyExc_TypeError, "save() needs a gameanim.Animation");
        return NULL;
    }
    PyObject *empty = PyTuple_New(0);
    if (!empty) return NULL;
    PyObject *data = Animation_to_bytes(anim, empty, kw);
    Py_DECREF(empty);
    if (!data) return NULL;
    PyObject *r = atomic_write(path, data);
    Py_DECREF(data);
    return r;
}

static PyObject *mod_write_atomic(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *path, *data;
    if (!PyArg_ParseTuple(args, "OO:write_atomic", &path, &data)) return NULL;
    if (!PyBytes_Check(data)) {
        PyErr_SetString(PyExc_TypeError, "write_atomic(path, data): data must be bytes");
        return NULL;
    }
    return atomic_write(path, data);
}

static PyObject *mod_frame_at(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    static char *kwlist[] = {"ticks", "duration", "loop", "rate", NULL};
    PyObject *ticks, *loop;
    double duration, rate = 1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OdO|d:frame_at", kwlist, &ticks, &duration, &loop, &rate))
        return NULL;
    int l;
    if (PyLong_Check(loop) && !PyBool_Check(loop)) {
        /* J3D's own loop-mode byte (0 once .. 4 mirrored loop), as
         * info['loop_mode'] reports it */
        long code = PyLong_AsLong(loop);
        if (code == -1 && PyErr_Occurred()) return NULL;
        if (code < 0 || code > 4) {
            PyErr_Format(PyExc_ValueError, "a J3D loop mode number is 0..4, not %ld", code);
            return NULL;
        }
        l = (int)code;
    } else {
        if (parse_enum(&loop_enum, loop, &l) < 0) return NULL;
        if (l < 0) l = GA_LOOP_ONCE;
    }
    double *t;
    Py_ssize_t n;
    int scalar = PyFloat_Check(ticks) || PyLong_Check(ticks);
    if (read_frames(st, ticks, &t, &n) < 0) return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        if (t[i] > 1e8) {
            free(t);
            PyErr_SetString(PyExc_ValueError, "frame_at() simulates the game's clock tick by tick; ticks must be <= 1e8");
            return NULL;
        }
    float *out = malloc((size_t)(n + 1) * sizeof(float));
    if (!out) {
        free(t);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) out[i] = (float)ga_j3d_frame_at(t[i], duration, l, rate);
    Py_END_ALLOW_THREADS
    PyObject *res = scalar ? PyFloat_FromDouble(out[0]) : new_array(st, "f", out, n * 4);
    free(out);
    free(t);
    return res;
}

/* A ";"-separated trait as a tuple of str ("" gives an empty tuple). */
static PyObject *split_list(const char *s)
{
    PyObject *l = PyList_New(0);
    while (l && s && *s) {
        const char *end = strchr(s, ';');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        PyObject *item = PyUnicode_FromStringAndSize(s, (Py_ssize_t)n);
        if (!item || PyList_Append(l, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(l);
            break;
        }
        Py_DECREF(item);
        s += n + (end ? 1 : 0);
    }
    if (!l) return NULL;
    PyObject *t = PyList_AsTuple(l);
    Py_DECREF(l);
    return t;
}

static PyObject *format_traits(const ga_format *f)
{
    const ga_format_traits *t = &f->traits;
    PyObject *ext = split_list(t->extensions), *comp = split_list(t->compressions);
    PyObject *chans = split_list(t->channels ? t->channels : "scale;rotation;translation;rotation_quaternion");
    PyObject *d = NULL;
    if (ext && comp && chans)
        d = Py_BuildValue("{s:s,s:s,s:O,s:s,s:s,s:z,s:z,s:O,s:O}", "name", f->name, "description", f->description,
                          "extensions", ext, "target_kind", t->target_kind, "values",
                          t->absolute ? "absolute" : "delta", "up_axis", t->up_axis, "bone_match", t->bone_match,
                          "compressions", comp, "channels", chans);
    Py_XDECREF(ext);
    Py_XDECREF(comp);
    Py_XDECREF(chans);
    return d;
}

static PyObject *mod_formats(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *d = PyDict_New();
    for (size_t i = 0; d && ga_formats[i]; i++) {
        PyObject *traits = format_traits(ga_formats[i]);
        if (!traits || PyDict_SetItemString(d, ga_formats[i]->name, traits) < 0) {
            Py_XDECREF(traits);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(traits);
    }
    return d;
}

static PyObject *mod_model_formats(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *d = PyDict_New();
    for (size_t i = 0; d && ga_model_formats[i]; i++) {
        const ga_model_format *f = ga_model_formats[i];
        PyObject *ext = split_list(f->extensions);
        PyObject *item = ext ? Py_BuildValue("{s:s,s:s,s:O}", "name", f->name, "description", f->description,
                                             "extensions", ext)
                             : NULL;
        Py_XDECREF(ext);
        if (!item || PyDict_SetItemString(d, f->name, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(item);
    }
    return d;
}

static PyObject *mod_compression_extensions(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *d = PyDict_New();
    for (size_t i = 0; d && ga_wrappers[i]; i++) {
        PyObject *ext = split_list(ga_wrappers[i]->extensions);
        if (!ext || PyDict_SetItemString(d, ga_wrappers[i]->name, ext) < 0) {
            Py_XDECREF(ext);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(ext);
    }
    return d;
}

static PyObject *mod_compressions(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && ga_wrappers[i]; i++) {
        PyObject *s = PyUnicode_FromString(ga_wrappers[i]->name);
        if (!s || PyList_Append(l, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(s);
    }
    return l;
}

static PyObject *mod_compress(PyObject *mod, PyObject *args)
{
    ga_state *st = state_of_module(mod);
    const char *name;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "sy*:compress", &name, &view)) return NULL;
    const ga_wrapper *w = ga_wrapper_by_name(name);
    if (!w) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "unknown compression %s", name);
        return NULL;
    }
    PyObject *data = Py_NewRef(view.obj);
    if (!PyBytes_CheckExact(data) && immutable_copy(&view, &data) < 0) return NULL;
    PyObject *r = wrap_payload(st, w, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    Py_DECREF(data);
    return r;
}

static PyObject *mod_decompress(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    static char *kwlist[] = {"", "", "max_decoded_size", NULL};
    const char *name;
    Py_buffer view;
    PyObject *max_decoded = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sy*|$O:decompress", kwlist, &name, &view, &max_decoded)) return NULL;
    ga_decode_opts opts = {0};
    if (parse_max_decoded(max_decoded, &opts.max_decoded_size) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const ga_wrapper *w = ga_wrapper_by_name(name);
    if (!w) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "unknown compression %s", name);
        return NULL;
    }
    PyObject *data = Py_NewRef(view.obj);
    if (!PyBytes_CheckExact(data) && immutable_copy(&view, &data) < 0) return NULL;
    uint8_t *out = NULL;
    size_t size = 0;
    ga_error err;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = w->unwrap(view.buf, (size_t)view.len, &opts, &out, &size, &err);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    Py_DECREF(data);
    if (rc) return raise_error(st, &err);
    PyObject *r = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)size);
    free(out);
    return r;
}

static PyMethodDef module_methods[] = {
    {"open_archive", (PyCFunction)(void (*)(void))mod_open_archive, METH_VARARGS | METH_KEYWORDS,
     "open_archive(source, *, max_decoded_size=None) -> Archive\n\nOpens a RARC / CRAR archive (.arc, .szs) from "
     "a path or a bytes-like object, optionally Yaz0 / Yay0 wrapped as a whole.  Raises FormatError for a damaged "
     "archive (tables, names or data past the end, names outside the string table, loops in the directory "
     "graph)."},
    {"load", (PyCFunction)(void (*)(void))mod_load, METH_VARARGS | METH_KEYWORDS,
     "load(source, *, keyless_rule='base', max_decoded_size=None) -> Animation\n\nReads an animation from a "
     "path (str or os.PathLike) or a bytes-like object.  The format and any compression wrapper are detected "
     "from the content.  Raises FormatError (with .format, .field and .offset) for anything that is not a "
     "valid file, or that would decode to more than max_decoded_size bytes (None: the larger of "
     "LIMITS['decoded_size_floor'] and LIMITS['decoded_size_ratio'] times the input's size)."},
    {"load_model", (PyCFunction)(void (*)(void))mod_load_model, METH_VARARGS | METH_KEYWORDS,
     "load_model(source, *, max_decoded_size=None) -> Model\n\nReads the skeleton of a model file (J3D BMD / BDL, "
     "Super Mario 64 DS BMD, Banjo-Kazooie model bin) from a path or a bytes-like object, optionally wrapped in "
     "LZ77, Yaz0, Yay0 or rarezip.  Raises FormatError (with .format, .field and .offset) for anything that is "
     "not a valid model file (an animation file says so)."},
    {"check_model", (PyCFunction)(void (*)(void))mod_check_model, METH_VARARGS | METH_KEYWORDS,
     "check_model(data, *, max_decoded_size=None) -> list of str\n\nThe problems the game's loader or the GX "
     "would hit in a J3D model (BMD / BDL): data is the file (bytes, a path, or wrapped) or a gameanim.Model.  "
     "Each names its chunk, field and byte offset; warnings (not loader failures) start with 'warning:'.  [] "
     "when there are none.  Raises FormatError when the file is not a J3D model that decodes."},
    {"detect", (PyCFunction)(void (*)(void))mod_detect, METH_VARARGS | METH_KEYWORDS,
     "detect(source, *, max_decoded_size=None) -> (format, compression or None)"},
    {"save", (PyCFunction)(void (*)(void))mod_save, METH_VARARGS | METH_KEYWORDS,
     "save(animation, path, **options): animation.to_bytes(**options) written atomically."},
    {"write_atomic", mod_write_atomic, METH_VARARGS,
     "write_atomic(path, data): writes bytes through a temporary file in the same folder and a rename."},
    {"frame_at", (PyCFunction)(void (*)(void))mod_frame_at, METH_VARARGS | METH_KEYWORDS,
     "frame_at(ticks, duration, loop, rate=1.0) -> float or array('f')\n\nThe frame the J3D runtime "
     "(J3DFrameCtrl) shows after `ticks` updates of an animation of `duration` frames played in loop mode "
     "`loop` (a name of LOOP_MODES, or the file's loop-mode byte 0..4) at `rate` frames per tick, in single "
     "precision as the game computes it."},
    {"bake_pose", (PyCFunction)(void (*)(void))mod_bake_pose, METH_VARARGS | METH_KEYWORDS,
     "bake_pose(animation, bones, frames, translation_scale=1.0, time_scale=1.0, time_offset=0.0, *, "
     "collapse=False) -> list\n\n"
     "Samples every bone's channels at the frames (game-exact, as Animation.sample), builds the local matrix "
     "L = T(translation * translation_scale) * R * S (R from Euler XYZ or the quaternion channels) and returns, "
     "per bone, the pose basis pre * L * post decomposed into 10 FCurve 'co' buffers: location x, y, z, "
     "rotation_quaternion w, x, y, z (sign kept continuous), scale x, y, z.  Each is an array('f') of "
     "(frame * time_scale + time_offset, value) pairs.  bones: sequence of (target, pre_matrix, post_matrix); "
     "matrices are 4x4 (rows) or 16 numbers row-major, or None for identity.  With collapse=True a buffer whose "
     "values are all one number (as numbers: 0.0 and -0.0 are one) keeps its first key only.  "
     "For absolute formats use "
     "pre = rest_local.inverted(), post = None; for Banjo-Kazooie deltas pre = Q.inverted(), post = Q with Q the "
     "bone's rest rotation in armature space."},
    {"evaluate_fcurve", (PyCFunction)(void (*)(void))mod_evaluate_fcurve, METH_VARARGS | METH_KEYWORDS,
     "evaluate_fcurve(co, handle_left, handle_right, interpolation, frames, extrapolation='CONSTANT', *, "
     "slopes=False) -> array('f')\n\nEvaluates a Blender F-curve from its keyframe buffers (as "
     "keyframe_points.foreach_get gives them: x, y pairs as float32 and the interpolation codes as int32) at the "
     "frames, the way Blender does (Bezier handles shortened where they overlap in time).  With slopes=True "
     "returns (values, left_slopes, right_slopes): the curve's derivative per frame arriving at and leaving each "
     "frame (they differ at corners), ready for Track(..., in_slopes, out_slopes) and fit(use_slopes=True)."},
    {"local_from_basis", (PyCFunction)(void (*)(void))mod_local_from_basis, METH_VARARGS | METH_KEYWORDS,
     "local_from_basis(pre, post, location, rotation, scale, rotation_mode='QUATERNION', translation_scale=1.0) "
     "-> dict\n\nThe inverse of bake_pose for one bone: per-frame pose-basis channels (location: 3 sequences, "
     "rotation: 4 for QUATERNION (w, x, y, z) or AXIS_ANGLE (angle, x, y, z), 3 for an Euler order such as 'XYZ', "
     "scale: 3) become the local transform pre^-1 * basis * post^-1, returned as 'translation' (divided by "
     "translation_scale), 'euler' (XYZ, continuous from frame to frame), 'quaternion' (w, x, y, z, continuous "
     "sign) and 'scale', each a tuple of array('f'), and 'skew': (largest difference of the local 3x3 from "
     "its translation/rotation/scale recomposition, the frame index where it is): what the channels cannot hold "
     "(a non-uniform scale turned by a rest rotation)."},
    {"formats", mod_formats, METH_NOARGS,
     "formats() -> {name: traits}\n\nEach format of the registry with its traits: 'name', 'description', "
     "'extensions' (the usual first), 'target_kind' ('joint', 'bone_id', 'bone_name' or 'material_entry'), "
     "'values' ('absolute': they replace the rest pose; 'delta': applied on it), 'up_axis' (the game's up "
     "axis, None when not spatial), 'bone_match' (default rig matching: 'INDEX', 'ID', 'NAME'; None without "
     "a rig) and 'compressions' (the wrappers the games ship it in)."},
    {"model_formats", mod_model_formats, METH_NOARGS,
     "model_formats() -> {name: {'name', 'description', 'extensions'}}\n\nThe model families load_model reads "
     "(the J3D entry also reads 'bdl' files: Model.format tells them apart)."},
    {"decode_texture", (PyCFunction)(void (*)(void))mod_decode_texture, METH_VARARGS | METH_KEYWORDS,
     "decode_texture(data, format, width, height, *, palette=None, palette_format='IA8') -> bytes\n\nDecodes "
     "the first level of a GX texture (format: 'I4', 'I8', 'IA4', 'IA8', 'RGB565', 'RGB5A3', 'RGBA8', 'C4', 'C8', "
     "'C14X2' or 'CMPR') into RGBA8, top row first.  data: the tiled texels (at least the whole blocks the size "
     "needs); palette: the u16 entries of C4 / C8 / C14X2 (palette_format 'IA8', 'RGB565' or 'RGB5A3').  "
     "Raises FormatError when data is too short."},
    {"encode_texture", (PyCFunction)(void (*)(void))mod_encode_texture, METH_VARARGS | METH_KEYWORDS,
     "encode_texture(rgba, width, height, format, palette_format=None, mip_count=1) -> (data, palette)\n\n"
     "Encodes RGBA8 pixels (width * height * 4 bytes, top row first) into a GX texture format, the inverse of "
     "decode_texture: data holds mip_count levels (each the 2x2 box filter of the one before, whole blocks "
     "each); palette is the u16 entries of C4 (16) or C8 / C14X2 (256) in palette_format ('IA8', 'RGB565' or "
     "'RGB5A3', the default), None for other formats.  Every texel gets the nearest value the format shows; "
     "CMPR fits each 4x4 block for the GX's 3/8-5/8 blend (docs/model_writer.md, Textures).  ValueError for a "
     "bad format, size (1..1024; powers of two with mip levels) or pixel buffer."},
    {"compression_extensions", mod_compression_extensions, METH_NOARGS,
     "compression_extensions() -> {wrapper name: tuple of file extensions that name a wrapped file}"},
    {"compressions", mod_compressions, METH_NOARGS, "compressions() -> list of wrapper names"},
    {"compress", mod_compress, METH_VARARGS, "compress(name, data) -> bytes with that wrapper"},
    {"decompress", (PyCFunction)(void (*)(void))mod_decompress, METH_VARARGS | METH_KEYWORDS,
     "decompress(name, data, *, max_decoded_size=None) -> the unwrapped bytes"},
    {NULL, NULL, 0, NULL},
};

/* A new exception class, added to the module; the returned reference is
 * the state's. */
static PyObject *new_exception(PyObject *m, const char *name, PyObject *base, const char *doc)
{
    char full[64];
    snprintf(full, sizeof full, "gameanim.%s", name);
    PyObject *e = PyErr_NewExceptionWithDoc(full, doc, base, NULL);
    if (!e) return NULL;
    if (PyModule_AddObject(m, name, Py_NewRef(e)) < 0) {
        Py_DECREF(e);
        Py_DECREF(e);
        return NULL;
    }
    return e;
}

static PyTypeObject *new_type(PyObject *m, PyType_Spec *spec, const char *name)
{
    PyTypeObject *tp = (PyTypeObject *)PyType_FromModuleAndSpec(m, spec, NULL);
    if (!tp) return NULL;
    if (PyModule_AddObject(m, name, Py_NewRef((PyObject *)tp)) < 0) {
        Py_DECREF(tp);
        Py_DECREF(tp);
        return NULL;
    }
    return tp;
}

static int module_exec(PyObject *m)
{
    ga_state *st = state_of_module(m);
    install_zlib_hooks();
    PyObject *array = PyImport_ImportModule("array");
    if (!array) return -1;
    st->ArrayType = PyObject_GetAttrString(array, "array");
    Py_DECREF(array);
    if (!st->ArrayType || make_zero_arrays(st) < 0) return -1;
    st->FormatError = new_exception(m, "FormatError", PyExc_ValueError,
                                    "The bytes are not a valid animation file.  Attributes: format, field, offset.");
    st->EncodeError = new_exception(m, "EncodeError", PyExc_ValueError,
                                    "The animation cannot be written in the chosen format (a value out of range, too "
                                    "many keys, a name too long...).  Attributes: format, field, offset.");
    st->PrecisionWarning = new_exception(m, "PrecisionWarning", PyExc_UserWarning,
                                         "Values were rounded to what the format can store.");
    if (!st->FormatError || !st->EncodeError || !st->PrecisionWarning) return -1;
    /* Class-level defaults so that every instance has the attributes. */
    PyObject *excs[2] = {st->FormatError, st->EncodeError};
    for (int i = 0; i < 2; i++) {
        PyObject_SetAttrString(excs[i], "format", Py_None);
        PyObject_SetAttrString(excs[i], "field", Py_None);
        PyObject_SetAttrString(excs[i], "offset", Py_None);
    }
    st->TrackType = new_type(m, &Track_spec, "Track");
    if (!st->TrackType) return -1;
    st->AnimationType = new_type(m, &Animation_spec, "Animation");
    if (!st->AnimationType) return -1;
    st->ModelType = new_type(m, &Model_spec, "Model");
    if (!st->ModelType) return -1;
    st->BoneType = new_type(m, &Bone_spec, "Bone");
    if (!st->BoneType) return -1;
    st->MeshType = new_type(m, &Mesh_spec, "Mesh");
    st->TextureType = new_type(m, &Texture_spec, "Texture");
    if (!st->MeshType || !st->TextureType || material_types_init(m, st) < 0) return -1;
    if (archive_types_init(m, st) < 0) return -1;
    /* the archives' usual extensions (archives/archive.h), for the CLI and the add-on */
    PyObject *arc_ext = archive_extensions();
    if (!arc_ext || PyModule_AddObject(m, "ARCHIVE_EXTENSIONS", arc_ext) < 0) {
        Py_XDECREF(arc_ext);
        return -1;
    }
    PyModule_AddIntConstant(m, "CONSTANT", GA_INTERP_CONSTANT);
    PyModule_AddIntConstant(m, "LINEAR", GA_INTERP_LINEAR);
    PyModule_AddIntConstant(m, "BEZIER", GA_INTERP_BEZIER);
    PyModule_AddStringConstant(m, "__version__", GAMEANIM_VERSION);
    PyObject *loops = enum_names(&loop_enum);
    if (!loops || PyModule_AddObject(m, "LOOP_MODES", loops) < 0) {
        Py_XDECREF(loops);
        return -1;
    }
    PyObject *limits = Py_BuildValue(
        "{s:n,s:n,s:I,s:I,s:I,s:I,s:K,s:I,s:I}", "input_size", (Py_ssize_t)GA_MAX_INPUT_SIZE, "decompressed_size",
        (Py_ssize_t)GA_MAX_DECOMPRESSED, "tracks", (unsigned)GA_MAX_TRACKS, "keys", (unsigned)GA_MAX_KEYS_TOTAL,
        "frames", (unsigned)GA_MAX_FRAMES, "string_length", (unsigned)GA_MAX_STRING, "decoded_size_floor",
        (unsigned long long)GA_DECODED_FLOOR, "decoded_size_ratio", (unsigned)GA_DECODED_RATIO, "decoded_key_size",
        (unsigned)GA_KEY_BYTES);
    if (!limits || PyModule_AddObject(m, "LIMITS", limits) < 0) {
        Py_XDECREF(limits);
        return -1;
    }
    return 0;
}

static int module_traverse(PyObject *m, visitproc visit, void *arg)
{
    ga_state *st = state_of_module(m);
    Py_VISIT(st->FormatError);
    Py_VISIT(st->EncodeError);
    Py_VISIT(st->PrecisionWarning);
    Py_VISIT(st->ArrayType);
    Py_VISIT(st->TrackType);
    Py_VISIT(st->AnimationType);
    Py_VISIT(st->ModelType);
    Py_VISIT(st->BoneType);
    Py_VISIT(st->MeshType);
    Py_VISIT(st->TextureType);
    Py_VISIT(st->MaterialType);
    for (int i = 0; i < GA_MATERIAL_PARTS; i++) Py_VISIT(st->MaterialParts[i]);
    Py_VISIT(st->ArchiveType);
    Py_VISIT(st->ArchiveMemberType);
    for (int i = 0; i < GA_NZERO; i++) Py_VISIT(st->ZeroArrays[i]);
    return 0;
}

static int module_clear(PyObject *m)
{
    ga_state *st = state_of_module(m);
    Py_CLEAR(st->FormatError);
    Py_CLEAR(st->EncodeError);
    Py_CLEAR(st->PrecisionWarning);
    Py_CLEAR(st->ArrayType);
    Py_CLEAR(st->TrackType);
    Py_CLEAR(st->AnimationType);
    Py_CLEAR(st->ModelType);
    Py_CLEAR(st->BoneType);
    Py_CLEAR(st->MeshType);
    Py_CLEAR(st->TextureType);
    Py_CLEAR(st->MaterialType);
    for (int i = 0; i < GA_MATERIAL_PARTS; i++) Py_CLEAR(st->MaterialParts[i]);
    Py_CLEAR(st->ArchiveType);
    Py_CLEAR(st->ArchiveMemberType);
    for (int i = 0; i < GA_NZERO; i++) Py_CLEAR(st->ZeroArrays[i]);
    return 0;
}

static void module_free(void *m)
{
    module_clear((PyObject *)m);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "gameanim._core",
    "Game animation codecs: Nintendo J3D BCK/BTK, Super Mario 64 DS BCA, Banjo-Kazooie animations and SWTOR JBA.\n\n"
    "Decodes losslessly (an unedited file encodes back to the same bytes), evaluates curves as the games do, and "
    "converts to and from one format-neutral clip of tracks.",
    sizeof(ga_state),
    module_methods,
    module_slots,
    module_traverse,
    module_clear,
    module_free,
};

PyMODINIT_FUNC PyInit__core(void)
{
    return PyModuleDef_Init(&module_def);
}
