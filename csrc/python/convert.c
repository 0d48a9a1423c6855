/* Conversions between Python objects and the core's: errors, arrays and
 * buffers, frames, matrices, info and reports, and an Animation's state
 * as a ga_clip. */
#include "binding.h"

#include <stdlib.h>
#include <string.h>

#include "pose.h"


static const char ZeroCodes[GA_NZERO] = {'f', 'i', 'B', 'd', 'I'};

int make_zero_arrays(ga_state *st)
{
    for (int i = 0; i < GA_NZERO; i++) {
        char code[2] = {ZeroCodes[i], 0};
        st->ZeroArrays[i] = PyObject_CallFunction(st->ArrayType, "s(i)", code, 0);
        if (!st->ZeroArrays[i]) return -1;
    }
    return 0;
}

/* A message from the C core as str.  Messages quote names from files
 * (JBA bone names, BTK material names), which need not be UTF-8: bytes
 * that are not become \\xNN escapes instead of failing the call. */
PyObject *message_text(const char *s)
{
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "backslashreplace");
}

/* Raises the Python exception for a ga_error. */
PyObject *raise_error(ga_state *st, const ga_error *e)
{
    PyObject *type;
    switch (e->code) {
    case GA_ERR_NOMEM:
        return PyErr_NoMemory();
    case GA_ERR_ENCODE:
        type = st->EncodeError;
        break;
    case GA_ERR_ARG:
        type = PyExc_ValueError;
        break;
    default:
        type = st->FormatError;
        break;
    }
    PyObject *msg = message_text(e->message);
    if (!msg) return NULL;
    PyObject *exc = PyObject_CallFunctionObjArgs(type, msg, NULL);
    Py_DECREF(msg);
    if (!exc) return NULL;
    PyObject *fmt = PyUnicode_FromString(e->format);
    PyObject *field = message_text(e->field);
    PyObject *off = e->offset >= 0 ? PyLong_FromLongLong(e->offset) : Py_NewRef(Py_None);
    if (fmt && field && off) {
        PyObject_SetAttrString(exc, "format", fmt);
        PyObject_SetAttrString(exc, "field", field);
        PyObject_SetAttrString(exc, "offset", off);
    }
    Py_XDECREF(fmt);
    Py_XDECREF(field);
    Py_XDECREF(off);
    PyErr_SetObject(type, exc);
    Py_DECREF(exc);
    return NULL;
}

/* A new array of n zero items of `code`, and its writable buffer in
 * *view (release it once the items are written). */
PyObject *alloc_array(ga_state *st, const char *code, Py_ssize_t n, Py_buffer *view)
{
    PyObject *zero = NULL;
    for (int i = 0; i < GA_NZERO; i++)
        if (code[0] == ZeroCodes[i] && code[1] == 0) zero = st->ZeroArrays[i];
    if (!zero) {
        PyErr_Format(PyExc_SystemError, "no array code '%s'", code);
        return NULL;
    }
    PyObject *arr = PySequence_Repeat(zero, n);
    if (!arr) return NULL;
    if (PyObject_GetBuffer(arr, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

PyObject *new_array(ga_state *st, const char *code, const void *data, Py_ssize_t nbytes)
{
    Py_buffer view;
    Py_ssize_t item = code[0] == 'B' ? 1 : code[0] == 'd' ? 8 : 4;
    PyObject *arr = alloc_array(st, code, nbytes / item, &view);
    if (!arr) return NULL;
    if (nbytes) memcpy(view.buf, data, (size_t)nbytes);
    PyBuffer_Release(&view);
    return arr;
}

int is_array_of(ga_state *st, PyObject *obj, const char *code)
{
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)st->ArrayType)) return 0;
    PyObject *tc = PyObject_GetAttrString(obj, "typecode");
    if (!tc) {
        PyErr_Clear();
        return 0;
    }
    int ok = PyUnicode_CompareWithASCIIString(tc, code) == 0;
    Py_DECREF(tc);
    return ok;
}

/* Any iterable of numbers (or an array.array('f') as is) -> array of code. */
PyObject *as_array(ga_state *st, PyObject *obj, const char *code, const char *what)
{
    if (is_array_of(st, obj, code)) return Py_NewRef(obj);
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || PyByteArray_Check(obj)) {
        if (strcmp(code, "B") != 0 || PyUnicode_Check(obj)) {
            PyErr_Format(PyExc_TypeError, "%s must be a sequence of numbers, not %s", what,
                         PyUnicode_Check(obj) ? "str" : "bytes");
            return NULL;
        }
    }
    PyObject *arr = PyObject_CallFunction(st->ArrayType, "sO", code, obj);
    if (!arr) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of numbers (%S)", what, value ? value : Py_None);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
    }
    return arr;
}

/* Reads a C-contiguous buffer of the given item format. */
int get_buffer(PyObject *obj, Py_buffer *view, const char *code, Py_ssize_t itemsize, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '@' || *f == '=' || *f == '<') f++;
    if (view->itemsize != itemsize || strcmp(f, code) != 0) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_TypeError, "%s: expected a buffer of '%s' items", what, code);
        return -1;
    }
    return 0;
}

/* Reads frames: a number or any iterable / buffer of numbers. */
int read_frames(ga_state *st, PyObject *obj, double **out, Py_ssize_t *n)
{
    if (PyFloat_Check(obj) || PyLong_Check(obj)) {
        *out = malloc(sizeof(double));
        if (!*out) {
            PyErr_NoMemory();
            return -1;
        }
        (*out)[0] = PyFloat_AsDouble(obj);
        *n = 1;
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *arr = is_array_of(st, obj, "d") ? Py_NewRef(obj) : as_array(st, obj, "d", "frames");
    if (!arr) return -1;
    Py_buffer view;
    if (get_buffer(arr, &view, "d", 8, "frames") < 0) {
        Py_DECREF(arr);
        return -1;
    }
    *n = view.len / 8;
    *out = malloc((size_t)(*n + 1) * sizeof(double));
    if (!*out) {
        PyBuffer_Release(&view);
        Py_DECREF(arr);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(*out, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    Py_DECREF(arr);
    return 0;
}

int typed_buffer(ga_state *st, PyObject *obj, const char *code, Py_ssize_t itemsize, const char *what, Py_buffer *view,
                        PyObject **holder)
{
    *holder = is_array_of(st, obj, code) ? Py_NewRef(obj) : NULL;
    if (!*holder) {
        if (PyObject_CheckBuffer(obj)) {
            if (get_buffer(obj, view, code, itemsize, what) == 0) {
                *holder = Py_NewRef(obj);
                return 0;
            }
            PyErr_Clear();
        }
        *holder = as_array(st, obj, code, what);
        if (!*holder) return -1;
    }
    if (get_buffer(*holder, view, code, itemsize, what) < 0) {
        Py_CLEAR(*holder);
        return -1;
    }
    return 0;
}

int read_matrix(PyObject *obj, double m[16], Py_ssize_t bone, const char *what)
{
    if (obj == Py_None) {
        ga_mat_identity(m);
        return 0;
    }
    PyObject *seq = PySequence_Tuple(obj);
    if (!seq) return -1;
    Py_ssize_t n = PyTuple_Size(seq);
    if (n == 4) {
        /* a Blender Matrix (or any 4 rows of 4) */
        PyObject *flat = PyList_New(0);
        for (Py_ssize_t i = 0; flat && i < 4; i++) {
            PyObject *row = PySequence_Tuple(PyTuple_GetItem(seq, i));
            if (!row || PyTuple_Size(row) != 4) {
                Py_XDECREF(row);
                Py_CLEAR(flat);
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "bones[%zd]: %s must be 4x4 or 16 numbers", bone, what);
                break;
            }
            for (Py_ssize_t j = 0; j < 4; j++) PyList_Append(flat, PyTuple_GetItem(row, j));
            Py_DECREF(row);
        }
        Py_DECREF(seq);
        if (!flat) return -1;
        seq = PySequence_Tuple(flat);
        Py_DECREF(flat);
        if (!seq) return -1;
        n = PyTuple_Size(seq);
    }
    if (n != 16) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "bones[%zd]: %s must be 4x4 or 16 numbers (row-major)", bone, what);
        return -1;
    }
    for (Py_ssize_t i = 0; i < 16; i++) {
        m[i] = PyFloat_AsDouble(PyTuple_GetItem(seq, i));
        if (m[i] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

PyObject *info_to_dict(const ga_info *info)
{
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (size_t i = 0; i < info->n; i++) {
        const ga_info_item *it = &info->items[i];
        PyObject *v;
        switch (it->type) {
        case GA_INFO_INT: v = PyLong_FromLongLong(it->i); break;
        case GA_INFO_FLOAT: v = PyFloat_FromDouble(it->f); break;
        case GA_INFO_STR: v = PyUnicode_DecodeUTF8((const char *)it->bytes, (Py_ssize_t)it->len, "surrogateescape"); break;
        default: v = PyBytes_FromStringAndSize((const char *)it->bytes, (Py_ssize_t)it->len); break;
        }
        if (!v || PyDict_SetItemString(d, it->key, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(v);
    }
    return d;
}

PyObject *report_to_dict(const ga_report *r)
{
    PyObject *notes = PyList_New(0);
    if (!notes) return NULL;
    for (uint32_t i = 0; i < r->nnotes; i++) {
        PyObject *s = message_text(r->notes[i]);
        if (!s || PyList_Append(notes, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(notes);
            return NULL;
        }
        Py_DECREF(s);
    }
    if (r->nnotes_total > r->nnotes) {
        PyObject *s = PyUnicode_FromFormat("... and %u more", (unsigned)(r->nnotes_total - r->nnotes));
        if (s) PyList_Append(notes, s);
        Py_XDECREF(s);
    }
    PyObject *where = message_text(r->max_error_where);
    if (!where) {
        Py_DECREF(notes);
        return NULL;
    }
    return Py_BuildValue("{s:d,s:N,s:I,s:N,s:I,s:I}", "max_error", r->max_error, "max_error_at", where, "rounded",
                         (unsigned)r->nrounded, "notes", notes, "reused_tracks", (unsigned)r->reused_tracks,
                         "encoded_tracks", (unsigned)r->encoded_tracks);
}

/* Names.  A name is bytes in the clip, as the file stores them, and str in
 * Python, decoded with the format's codec (traits.name_encoding), where
 * surrogateescape keeps the bytes that do not decode.  A codec need not
 * give the same bytes back: CP932 decodes FA 79 to U+5070, which it
 * encodes as ED 5D.  So a str goes back to bytes by its text: when it is
 * the text of a stored name of the loaded file (the one at its own
 * position, else the first with that text), it takes that name's stored
 * bytes; only a name the user changed is encoded.  An unedited file so
 * keeps every name byte for byte, and is_modified() compares texts. */

const char *name_codec(const ga_format *f)
{
    return f && f->traits.name_encoding ? f->traits.name_encoding : "utf-8";
}

PyObject *name_text(const char *s, const char *codec)
{
    return PyUnicode_Decode(s, (Py_ssize_t)strlen(s), codec, "surrogateescape");
}

int stored_names_init(stored_names *b, const char *codec, const ga_clip *orig, int entries)
{
    memset(b, 0, sizeof *b);
    b->codec = codec;
    if (!orig) return 0;
    size_t n = entries ? orig->nentries : orig->ntracks;
    if (!n) return 0;
    b->names = malloc(n * sizeof *b->names);
    if (!b->names) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < n; i++) b->names[i] = entries ? orig->entries[i].name : orig->tracks[i].target_name;
    b->n = n;
    return 0;
}

void stored_names_free(stored_names *b)
{
    free(b->names);
    b->names = NULL;
    b->n = 0;
    Py_CLEAR(b->by_text);
}

/* The stored name whose text is `text` (*out NULL when none); -1 on error. */
static int stored_name_of(stored_names *b, PyObject *text, Py_ssize_t index, const char **out)
{
    *out = NULL;
    if (!b || !b->n) return 0;
    if (index >= 0 && (size_t)index < b->n && b->names[index]) {
        PyObject *t = name_text(b->names[index], b->codec);
        if (!t) return -1;
        int cmp = PyUnicode_Compare(text, t);
        Py_DECREF(t);
        if (cmp == -1 && PyErr_Occurred()) return -1;
        if (cmp == 0) {
            *out = b->names[index];
            return 0;
        }
    }
    if (!b->by_text) {
        /* a name that moved or changed: every stored text, once */
        PyObject *d = PyDict_New();
        if (!d) return -1;
        for (size_t j = 0; j < b->n; j++) {
            if (!b->names[j]) continue;
            PyObject *t = name_text(b->names[j], b->codec);
            PyObject *at = t ? PyDict_GetItemWithError(d, t) : NULL;
            PyObject *v = t && !at && !PyErr_Occurred() ? PyLong_FromSize_t(j) : NULL;
            int rc = v ? PyDict_SetItem(d, t, v) : (at ? 0 : -1);
            Py_XDECREF(v);
            Py_XDECREF(t);
            if (rc < 0) {
                Py_DECREF(d);
                return -1;
            }
        }
        b->by_text = d;
    }
    PyObject *at = PyDict_GetItemWithError(b->by_text, text);
    if (!at) return PyErr_Occurred() ? -1 : 0;
    *out = b->names[PyLong_AsSize_t(at)];
    return 0;
}

char *name_to_c(PyObject *name, stored_names *stored, const char *codec, const char *too_long, Py_ssize_t index)
{
    const char *kept;
    if (stored_name_of(stored, name, index, &kept) < 0) return NULL;
    if (kept) {
        char *c = ga_strdup(kept);
        if (!c) PyErr_NoMemory();
        return c;
    }
    PyObject *b = PyUnicode_AsEncodedString(name, codec, "surrogateescape");
    if (!b) return NULL;
    char *s;
    Py_ssize_t len;
    PyBytes_AsStringAndSize(b, &s, &len);
    if ((size_t)len > GA_MAX_STRING || memchr(s, 0, (size_t)len)) {
        Py_DECREF(b);
        PyErr_Format(PyExc_ValueError, too_long, index);
        return NULL;
    }
    char *c = ga_strdup(s);
    Py_DECREF(b);
    if (!c) PyErr_NoMemory();
    return c;
}

/* A track's target name as the file stored it, when its text is unchanged. */
static int keep_stored_target(ga_track *c, PyObject *track, stored_names *stored, Py_ssize_t index)
{
    if (!c->target_name) return 0;
    const char *kept;
    if (stored_name_of(stored, ((TrackObject *)track)->target, index, &kept) < 0) return -1;
    if (!kept || strcmp(kept, c->target_name) == 0) return 0;
    char *dup = ga_strdup(kept);
    if (!dup) {
        PyErr_NoMemory();
        return -1;
    }
    free(c->target_name);
    c->target_name = dup;
    return 0;
}

PyObject *entry_to_dict(const ga_entry *e, const char *codec)
{
    PyObject *name = name_text(e->name ? e->name : "", codec);
    if (!name) return NULL;
    switch (e->layout) {
    case GA_ENTRY_TEV:
        return Py_BuildValue("{s:N,s:s,s:i}", "material", name, "kind", enum_name(&tev_kind_enum, e->kind ? 1 : 0),
                             "color_id", e->color_id);
    case GA_ENTRY_MATERIAL: return Py_BuildValue("{s:N}", "material", name);
    case GA_ENTRY_TEXMAP: return Py_BuildValue("{s:N,s:i}", "material", name, "texmap", e->texmap);
    default:
        return Py_BuildValue("{s:N,s:i,s:(fff),s:O}", "material", name, "texmtx_id", e->texmtx_id, "center",
                             (double)e->center[0], (double)e->center[1], (double)e->center[2], "post",
                             e->post ? Py_True : Py_False);
    }
}

/* An optional int item of an entry dict. */
static int entry_int(PyObject *d, const char *key, int32_t *out)
{
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v) return 0;
    long l = PyLong_AsLong(v);
    if (l == -1 && PyErr_Occurred()) return -1;
    if (l < INT32_MIN || l > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "entry '%s' %ld is out of range", key, l);
        return -1;
    }
    *out = (int32_t)l;
    return 1;
}

int dict_to_entry(PyObject *d, Py_ssize_t i, ga_entry *e, stored_names *stored)
{
    memset(e, 0, sizeof *e);
    if (!PyDict_Check(d)) {
        PyErr_Format(PyExc_TypeError,
                     "entries[%zd] must be a dict with 'material' (and 'texmtx_id', 'center' for BTK, 'kind', "
                     "'color_id' for BRK, 'texmap' for BTP)", i);
        return -1;
    }
    PyObject *name = PyDict_GetItemString(d, "material");
    PyObject *tex = PyDict_GetItemString(d, "texmtx_id");
    PyObject *center = PyDict_GetItemString(d, "center");
    PyObject *post = PyDict_GetItemString(d, "post");
    if (!name || !PyUnicode_Check(name)) {
        PyErr_Format(PyExc_ValueError, "entries[%zd]['material'] must be a str", i);
        return -1;
    }
    e->name = name_to_c(name, stored, stored->codec, "entries[%zd]: material name too long or contains NUL", i);
    if (!e->name) return -1;
    e->texmtx_id = 0;
    if (tex) {
        long v = PyLong_AsLong(tex);
        if (v == -1 && PyErr_Occurred()) return -1;
        e->texmtx_id = (int32_t)v;
    }
    /* The keys say what the entry is (the dict the format's decoder gave
     * back, or one written by hand); each encoder reads its own fields. */
    PyObject *kind = PyDict_GetItemString(d, "kind");
    int has_color = kind != NULL, has_texmap;
    if (kind) {
        int k;
        if (parse_enum(&tev_kind_enum, kind, &k) < 0) return -1;
        e->kind = k;
    }
    int r = entry_int(d, "color_id", &e->color_id);
    if (r < 0) return -1;
    has_color |= r;
    has_texmap = entry_int(d, "texmap", &e->texmap);
    if (has_texmap < 0) return -1;
    e->layout = (tex || center || post) ? GA_ENTRY_TEXMTX
                : has_color             ? GA_ENTRY_TEV
                : has_texmap            ? GA_ENTRY_TEXMAP
                                        : GA_ENTRY_MATERIAL;
    e->center[0] = e->center[1] = e->center[2] = 0.5f;
    if (center) {
        PyObject *seq = PySequence_Tuple(center);
        if (!seq) return -1;
        if (PyTuple_Size(seq) != 3) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "entries[%zd]['center'] must have 3 numbers", i);
            return -1;
        }
        for (int k = 0; k < 3; k++) {
            double v = PyFloat_AsDouble(PyTuple_GetItem(seq, k));
            if (v == -1.0 && PyErr_Occurred()) {
                Py_DECREF(seq);
                return -1;
            }
            e->center[k] = (float)v;
        }
        Py_DECREF(seq);
    }
    e->post = post ? PyObject_IsTrue(post) : 0;
    if (e->post < 0) return -1;
    return 0;
}

void clip_release(ga_clip *c, clip_hold *hold)
{
    if (hold->borrowed) {
        c->tracks = NULL; /* the store's */
        c->ntracks = 0;
    }
    ga_clip_free(c);
    track_store_decref(hold->store);
    hold->store = NULL;
    hold->borrowed = 0;
}

int clip_from_python(ga_state *st, AnimationObject *a, ga_clip *c, clip_hold *hold)
{
    ga_clip_init(c, a->fmt->name);
    /* Decided once, here: the answer must not change before clip_release
     * (reading Animation.tracks from another thread would change it). */
    hold->store = a->store;
    hold->borrowed = a->tracks == NULL && a->has_orig;
    if (hold->store) hold->store->refs++;
    c->frame_count = a->frame_count;
    c->fps = a->fps;
    c->loop = a->loop;
    if (a->has_orig) {
        c->loop_raw_valid = a->orig.loop_raw_valid;
        c->loop_raw = a->orig.loop_raw;
        c->decoded_raw = a->raw;
        c->decoded = &a->orig;
    }
    c->rotation_frac = a->rotation_frac;
    c->calc_type = a->calc_type;
    c->start_frame = a->start_frame;
    c->layout = a->layout;
    c->keyless_rule = a->keyless_rule;
    c->frame_rule = a->frame_rule;
    ga_error err;
    /* Snapshots of the lists (strong references to their items): Python
     * code run by a conversion may let another thread edit or replace them. */
    PyObject *tracks = NULL, *entries = NULL;
    stored_names names; /* the loaded file's names: kept where unchanged */
    memset(&names, 0, sizeof names);
    if (hold->borrowed) {
        c->tracks = hold->store->tracks;
        c->ntracks = hold->store->ntracks;
    } else {
        if (!PyList_Check(a->tracks)) {
            PyErr_SetString(PyExc_TypeError, "Animation.tracks must be a list");
            goto fail;
        }
        tracks = PyList_AsTuple(a->tracks);
        if (!tracks) goto fail;
        Py_ssize_t n = PyTuple_Size(tracks);
        if (ga_clip_alloc_tracks(c, (uint32_t)n, &err)) {
            raise_error(st, &err);
            goto fail;
        }
        if (stored_names_init(&names, TRACK_NAME_CODEC, n && a->has_orig ? &a->orig : NULL, 0) < 0) goto fail;
        size_t total = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *track = PyTuple_GetItem(tracks, i);
            if (track_to_c(st, track, i, &c->tracks[i], hold->store) < 0 ||
                keep_stored_target(&c->tracks[i], track, &names, i) < 0)
                goto fail;
            total += c->tracks[i].nkeys;
            if (total > GA_MAX_KEYS_TOTAL) {
                PyErr_Format(PyExc_ValueError, "more than %u keys in one animation", GA_MAX_KEYS_TOTAL);
                goto fail;
            }
        }
        stored_names_free(&names);
    }
    if (!PyList_Check(a->entries)) {
        PyErr_SetString(PyExc_TypeError, "Animation.entries must be a list");
        goto fail;
    }
    entries = PyList_AsTuple(a->entries);
    if (!entries) goto fail;
    Py_ssize_t ne = PyTuple_Size(entries);
    if (ga_clip_alloc_entries(c, (uint32_t)ne, &err)) {
        raise_error(st, &err);
        goto fail;
    }
    if (stored_names_init(&names, name_codec(a->fmt), ne && a->has_orig ? &a->orig : NULL, 1) < 0) goto fail;
    for (Py_ssize_t i = 0; i < ne; i++) {
        /* a private copy of the dict: its values stay alive while read */
        PyObject *e = PyTuple_GetItem(entries, i);
        PyObject *d = PyDict_Check(e) ? PyDict_Copy(e) : Py_NewRef(e);
        int rc = d ? dict_to_entry(d, i, &c->entries[i], &names) : -1;
        Py_XDECREF(d);
        if (rc < 0) goto fail;
    }
    stored_names_free(&names);
    Py_XDECREF(tracks);
    Py_DECREF(entries);
    return 0;
fail:
    stored_names_free(&names);
    Py_XDECREF(tracks);
    Py_XDECREF(entries);
    clip_release(c, hold);
    return -1;
}

/* Sets the Python-visible state from a decoded clip. */
int animation_fill(AnimationObject *a, const ga_clip *c)
{
    a->frame_count = c->frame_count;
    a->fps = c->fps;
    a->loop = c->loop;
    a->rotation_frac = c->rotation_frac;
    a->calc_type = c->calc_type;
    a->start_frame = c->start_frame;
    a->layout = c->layout;
    a->keyless_rule = c->keyless_rule;
    a->frame_rule = c->frame_rule;
    /* Track objects are made on first access of Animation.tracks: loading
     * then sampling or saving never builds them. */
    Py_CLEAR(a->tracks);
    PyObject *entries = PyList_New((Py_ssize_t)c->nentries);
    if (!entries) return -1;
    for (uint32_t i = 0; i < c->nentries; i++) {
        PyObject *d = entry_to_dict(&c->entries[i], name_codec(a->fmt));
        if (!d) {
            Py_DECREF(entries);
            return -1;
        }
        PyList_SetItem(entries, i, d);
    }
    GA_SETREF(a->entries, entries);
    return 0;
}
