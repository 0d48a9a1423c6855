/* Archive (RARC / CRAR) objects: glue over archives/archive.h.  The parsing,
 * the directory walk and the in-place rewrite are csrc/archives/rarc.c. */
#include "binding.h"
#include "../archives/archive.h"

#include <stdlib.h>
#include <string.h>

#define ARC_NAME_CODEC "cp932" /* the J3D games' names (docs/formats/rarc.md) */

typedef struct {
    PyObject_HEAD
    PyObject *orig_bytes;  /* the input as given (wrapped) */
    PyObject *payload;     /* the unwrapped archive now (bytes); arc.data points into it */
    const ga_wrapper *orig_wrapper;
    int modified;
    ga_archive arc;
    PyObject *index;       /* member name (str) -> index */
} ArchiveObject;

static PyObject *member_name(const ArchiveObject *a, size_t i)
{
    const ga_arc_member *m = &a->arc.members[i];
    return PyUnicode_Decode(a->arc.paths + m->path_off, (Py_ssize_t)m->path_len, ARC_NAME_CODEC,
                            "surrogateescape");
}

/* Points the object at a parsed payload (taking both). */
static int archive_set(ArchiveObject *a, PyObject *payload, ga_archive *arc)
{
    PyObject *index = PyDict_New();
    if (!index) goto fail;
    ga_archive_free(&a->arc);
    a->arc = *arc;
    memset(arc, 0, sizeof *arc);
    GA_SETREF(a->payload, payload);
    payload = NULL;
    GA_SETREF(a->index, index);
    for (size_t i = 0; i < a->arc.nmembers; i++) {
        PyObject *name = member_name(a, i);
        PyObject *v = name ? PyLong_FromSize_t(i) : NULL;
        /* a path listed twice (two entries of one name) reads the first */
        int rc = v ? PyDict_Contains(index, name) : -1;
        if (rc == 0) rc = PyDict_SetItem(index, name, v);
        else if (rc == 1) rc = 0;
        Py_XDECREF(name);
        Py_XDECREF(v);
        if (rc) return -1;
    }
    return 0;
fail:
    Py_XDECREF(payload);
    ga_archive_free(arc);
    return -1;
}

PyObject *mod_open_archive(PyObject *mod, PyObject *args, PyObject *kw)
{
    ga_state *st = state_of_module(mod);
    static char *kwlist[] = {"source", "max_decoded_size", NULL};
    PyObject *source;
    ga_decode_opts opts;
    if (parse_source_args(args, kw, "O|$O:open_archive", kwlist, &source, &opts) < 0) return NULL;
    PyObject *src = source_bytes(st, source);
    if (!src) return NULL;
    /* an immutable copy: the parse runs without the GIL and the archive
     * keeps pointing into these bytes */
    PyObject *data = PyBytes_CheckExact(src) ? Py_NewRef(src) : PyBytes_FromObject(src);
    Py_DECREF(src);
    if (!data) return NULL;
    const uint8_t *p = (const uint8_t *)PyBytes_AsString(data);
    size_t n = (size_t)PyBytes_Size(data);
    ga_archive arc;
    ga_error err;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ga_archive_open(p, n, &opts, &arc, &err);
    Py_END_ALLOW_THREADS
    if (rc) {
        Py_DECREF(data);
        return raise_error(st, &err);
    }
    PyObject *payload = data;
    Py_INCREF(payload);
    if (arc.payload) {
        /* the unwrapped bytes move into a bytes object (same content) */
        Py_DECREF(payload);
        payload = PyBytes_FromStringAndSize((const char *)arc.payload, (Py_ssize_t)arc.size);
        if (!payload) {
            ga_archive_free(&arc);
            Py_DECREF(data);
            return NULL;
        }
        free(arc.payload);
        arc.payload = NULL;
        arc.data = (const uint8_t *)PyBytes_AsString(payload);
    }
    ArchiveObject *a = PyObject_New(ArchiveObject, st->ArchiveType);
    if (!a) {
        ga_archive_free(&arc);
        Py_DECREF(payload);
        Py_DECREF(data);
        return NULL;
    }
    memset(&a->arc, 0, sizeof a->arc);
    a->orig_bytes = data;
    a->payload = NULL;
    a->index = NULL;
    a->modified = 0;
    a->orig_wrapper = arc.wrapper;
    if (archive_set(a, payload, &arc) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    return (PyObject *)a;
}

static void Archive_dealloc(PyObject *self)
{
    ArchiveObject *a = (ArchiveObject *)self;
    PyTypeObject *tp = Py_TYPE(self);
    ga_archive_free(&a->arc);
    Py_XDECREF(a->orig_bytes);
    Py_XDECREF(a->payload);
    Py_XDECREF(a->index);
    PyObject_Free(self);
    Py_DECREF(tp);
}

/* The member index of a name, or -1 with KeyError. */
static Py_ssize_t find_member(ArchiveObject *a, PyObject *name)
{
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "a member name must be a str");
        return -1;
    }
    PyObject *v = PyDict_GetItemWithError(a->index, name);
    if (!v) {
        if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, name);
        return -1;
    }
    return PyLong_AsSsize_t(v);
}

static PyObject *Archive_namelist(PyObject *self, PyObject *unused)
{
    (void)unused;
    ArchiveObject *a = (ArchiveObject *)self;
    PyObject *list = PyList_New((Py_ssize_t)a->arc.nmembers);
    for (size_t i = 0; list && i < a->arc.nmembers; i++) {
        PyObject *name = member_name(a, i);
        if (!name) {
            Py_CLEAR(list);
            break;
        }
        PyList_SetItem(list, (Py_ssize_t)i, name);
    }
    return list;
}

static PyObject *Archive_infolist(PyObject *self, PyObject *unused)
{
    (void)unused;
    ga_state *st = STATE_OF(self);
    ArchiveObject *a = (ArchiveObject *)self;
    PyObject *list = PyList_New((Py_ssize_t)a->arc.nmembers);
    for (size_t i = 0; list && i < a->arc.nmembers; i++) {
        const ga_arc_member *m = &a->arc.members[i];
        const char *comp = ga_arc_member_compression(m->attr);
        PyObject *info = PyStructSequence_New(st->ArchiveMemberType);
        PyObject *items[7] = {member_name(a, i),
                              PyLong_FromUnsignedLong(m->size),
                              comp ? PyUnicode_FromString(comp) : Py_NewRef(Py_None),
                              PyLong_FromUnsignedLong(m->id),
                              PyLong_FromUnsignedLong(m->attr),
                              PyLong_FromUnsignedLong(m->data_off),
                              PyLong_FromUnsignedLong(m->entry)};
        int ok = info != NULL;
        for (int k = 0; k < 7; k++) {
            if (items[k] && ok) PyStructSequence_SetItem(info, k, items[k]);
            else {
                ok = 0;
                Py_XDECREF(items[k]);
            }
        }
        if (!ok) {
            Py_XDECREF(info);
            Py_CLEAR(list);
            break;
        }
        PyList_SetItem(list, (Py_ssize_t)i, info);
    }
    return list;
}

static PyObject *Archive_read(PyObject *self, PyObject *name)
{
    ArchiveObject *a = (ArchiveObject *)self;
    Py_ssize_t i = find_member(a, name);
    if (i < 0) return NULL;
    const ga_arc_member *m = &a->arc.members[i];
    return PyBytes_FromStringAndSize((const char *)a->arc.data + a->arc.data_start + m->data_off,
                                     (Py_ssize_t)m->size);
}

static PyObject *Archive_replace(PyObject *self, PyObject *args)
{
    ga_state *st = STATE_OF(self);
    ArchiveObject *a = (ArchiveObject *)self;
    PyObject *name;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "Uy*:replace", &name, &view)) return NULL;
    Py_ssize_t i = find_member(a, name);
    if (i < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    /* With the GIL held throughout: the object's tables change. */
    ga_buf out;
    ga_buf_init(&out);
    ga_error err;
    int rc = ga_archive_replace(&a->arc, (size_t)i, view.buf, (size_t)view.len, &out, &err);
    PyBuffer_Release(&view);
    if (rc) {
        ga_buf_free(&out);
        return raise_error(st, &err);
    }
    PyObject *payload = PyBytes_FromStringAndSize((const char *)out.data, (Py_ssize_t)out.len);
    ga_buf_free(&out);
    if (!payload) return NULL;
    ga_archive arc;
    /* (the rewrite keeps every table as it was: it parses as before) */
    ga_decode_opts opts = {0};
    opts.max_decoded_size = UINT64_MAX;
    rc = ga_archive_parse((const uint8_t *)PyBytes_AsString(payload), (size_t)PyBytes_Size(payload), &opts, &arc,
                          &err);
    if (rc) {
        Py_DECREF(payload);
        return raise_error(st, &err);
    }
    arc.wrapper = a->orig_wrapper;
    if (archive_set(a, payload, &arc) < 0) return NULL;
    a->modified = 1;
    Py_RETURN_NONE;
}

static PyObject *Archive_to_bytes(PyObject *self, PyObject *args, PyObject *kw)
{
    ga_state *st = STATE_OF(self);
    ArchiveObject *a = (ArchiveObject *)self;
    static char *kwlist[] = {"compression", NULL};
    PyObject *comp_arg = NULL, *comp;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:to_bytes", kwlist, &comp_arg)) return NULL;
    if (comp_arg) {
        if (parse_compression(comp_arg, &comp) < 0) return NULL;
    } else {
        comp = a->orig_wrapper ? PyUnicode_FromString(a->orig_wrapper->name) : Py_NewRef(Py_None);
        if (!comp) return NULL;
    }
    const ga_wrapper *w = NULL;
    if (comp != Py_None) w = ga_wrapper_by_name(PyUnicode_AsUTF8AndSize(comp, NULL));
    Py_DECREF(comp);
    if (!a->modified && w == a->orig_wrapper) return Py_NewRef(a->orig_bytes);
    if (!w) return Py_NewRef(a->payload);
    /* compressing releases the GIL: another thread's replace() may swap the
     * payload meanwhile, so this call keeps its own reference */
    PyObject *payload = Py_NewRef(a->payload);
    PyObject *r = wrap_payload(st, w, (const uint8_t *)PyBytes_AsString(payload), (size_t)PyBytes_Size(payload));
    Py_DECREF(payload);
    return r;
}

static PyObject *Archive_save(PyObject *self, PyObject *args, PyObject *kw)
{
    if (!PyTuple_Check(args) || PyTuple_Size(args) != 1) {
        PyErr_SetString(PyExc_TypeError, "save(path, *, compression=<keep>) takes exactly one positional argument");
        return NULL;
    }
    PyObject *empty = PyTuple_New(0);
    if (!empty) return NULL;
    PyObject *data = Archive_to_bytes(self, empty, kw);
    Py_DECREF(empty);
    if (!data) return NULL;
    PyObject *r = atomic_write(PyTuple_GetItem(args, 0), data);
    Py_DECREF(data);
    return r;
}

static PyObject *Archive_is_modified(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(((ArchiveObject *)self)->modified);
}

static PyObject *Archive_get_compression(PyObject *self, void *closure)
{
    (void)closure;
    const ga_wrapper *w = ((ArchiveObject *)self)->orig_wrapper;
    return w ? PyUnicode_FromString(w->name) : Py_NewRef(Py_None);
}

static PyObject *Archive_get_root(PyObject *self, void *closure)
{
    (void)closure;
    const ga_archive *arc = &((ArchiveObject *)self)->arc;
    return PyUnicode_Decode((const char *)arc->data + arc->root_name,
                            (Py_ssize_t)strlen((const char *)arc->data + arc->root_name), ARC_NAME_CODEC,
                            "surrogateescape");
}

static PyObject *Archive_get_format(PyObject *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromString(((ArchiveObject *)self)->arc.little ? "CRAR" : "RARC");
}

static Py_ssize_t Archive_len(PyObject *self)
{
    return (Py_ssize_t)((ArchiveObject *)self)->arc.nmembers;
}

static int Archive_contains(PyObject *self, PyObject *name)
{
    if (!PyUnicode_Check(name)) return 0;
    PyObject *v = PyDict_GetItemWithError(((ArchiveObject *)self)->index, name);
    return v ? 1 : (PyErr_Occurred() ? -1 : 0);
}

static PyMethodDef Archive_methods[] = {
    {"namelist", Archive_namelist, METH_NOARGS,
     "namelist() -> list of str\n\nThe files (no directories, no '.' / '..'), '/'-separated paths relative to the "
     "root, depth-first from the root in entry order."},
    {"infolist", Archive_infolist, METH_NOARGS,
     "infolist() -> list of ArchiveMember (name, size as stored, compression: the member's own None / 'yaz0' / "
     "'yay0', id, attributes, offset in the file data, entry index), in namelist() order."},
    {"read", Archive_read, METH_O, "read(name) -> bytes as stored; KeyError for an unknown name."},
    {"replace", Archive_replace, METH_VARARGS,
     "replace(name, data): the member's bytes become data (stored as given); everything else is kept "
     "(docs/formats/rarc.md)."},
    {"to_bytes", (PyCFunction)(void (*)(void))Archive_to_bytes, METH_VARARGS | METH_KEYWORDS,
     "to_bytes(compression=<self.compression>) -> bytes\n\nThe input bytes themselves when nothing was replaced "
     "and the compression is kept."},
    {"save", (PyCFunction)(void (*)(void))Archive_save, METH_VARARGS | METH_KEYWORDS,
     "save(path, *, compression=<keep>): to_bytes() written atomically (temporary file + rename)."},
    {"is_modified", Archive_is_modified, METH_NOARGS, "True once a member was replaced."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Archive_getset[] = {
    {"compression", Archive_get_compression, NULL, "The outer wrapper ('yaz0', 'yay0', ...) or None.", NULL},
    {"root", Archive_get_root, NULL, "The root node's name.", NULL},
    {"format", Archive_get_format, NULL, "'RARC' (big-endian) or 'CRAR' (little-endian).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot Archive_slots[] = {
    {Py_tp_dealloc, Archive_dealloc},
    {Py_tp_methods, Archive_methods},
    {Py_tp_getset, Archive_getset},
    {Py_sq_length, Archive_len},
    {Py_sq_contains, Archive_contains},
    {Py_tp_doc, "An archive opened by open_archive(): RARC or CRAR, optionally Yaz0 / Yay0 wrapped as a whole."},
    {0, NULL},
};

PyType_Spec Archive_spec = {
    "gameanim._core.Archive", sizeof(ArchiveObject), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, Archive_slots,
};

static PyStructSequence_Field member_fields[] = {
    {"name", "path relative to the root, '/'-separated"},
    {"size", "bytes as stored"},
    {"compression", "the member's own: None, 'yaz0' or 'yay0' (attribute bits 0x04 / 0x80)"},
    {"id", "the file ID"},
    {"attributes", "the attribute byte (0x01 file, 0x04 compressed, 0x10 MRAM, 0x20 ARAM, 0x40 DVD, 0x80 Yaz0)"},
    {"offset", "offset in the file data"},
    {"entry", "index in the file entry table"},
    {NULL, NULL},
};

static PyStructSequence_Desc member_desc = {
    "gameanim._core.ArchiveMember", "One member of an Archive (infolist()).", member_fields, 7,
};

int archive_types_init(PyObject *m, ga_state *st)
{
    st->ArchiveMemberType = PyStructSequence_NewType(&member_desc);
    if (!st->ArchiveMemberType) return -1;
    if (PyModule_AddObject(m, "ArchiveMember", Py_NewRef((PyObject *)st->ArchiveMemberType)) < 0) {
        Py_DECREF(st->ArchiveMemberType);
        return -1;
    }
    st->ArchiveType = (PyTypeObject *)PyType_FromModuleAndSpec(m, &Archive_spec, NULL);
    if (!st->ArchiveType) return -1;
    if (PyModule_AddObject(m, "Archive", Py_NewRef((PyObject *)st->ArchiveType)) < 0) {
        Py_DECREF(st->ArchiveType);
        return -1;
    }
    return 0;
}

PyObject *archive_extensions(void)
{
    PyObject *list = PyList_New(0);
    const char *s = GA_ARC_EXTENSIONS;
    while (list && *s) {
        const char *end = strchr(s, ';');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        PyObject *e = PyUnicode_FromStringAndSize(s, (Py_ssize_t)n);
        if (!e || PyList_Append(list, e) < 0) Py_CLEAR(list);
        Py_XDECREF(e);
        s += n + (end ? 1 : 0);
    }
    if (!list) return NULL;
    PyObject *t = PyList_AsTuple(list);
    Py_DECREF(list);
    return t;
}
