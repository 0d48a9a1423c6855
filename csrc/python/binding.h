/* What the files of the binding (csrc/python/) share: the module state
 * (state.h), the object layouts and the conversions.  Glue only: anything that
 * computes lives in the C core. */
#ifndef GAMEANIM_BINDING_H
#define GAMEANIM_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "gameanim.h"
#include "state.h"

#define GAMEANIM_VERSION "0.1.0"

/* Py_SETREF is not part of the limited API. */
#define GA_SETREF(dst, src)         \
    do {                            \
        PyObject *_old = (PyObject *)(dst); \
        (dst) = (src);              \
        Py_XDECREF(_old);           \
    } while (0)

/* ------------------------------------------------------------------ */
/* Track (track.c)                                                     */

/* The decoded tracks of a loaded file, shared by its Animation and the
 * Track objects that still read their keys from them (no copy).  Counted
 * by hand (always under the GIL); not a Python object, so no reference
 * cycle between an Animation and its tracks. */
typedef struct track_store {
    Py_ssize_t refs;
    uint32_t ntracks;
    ga_track *tracks;
    void *key_block; /* the decoder's key block (ga_clip.key_block), if any */
    /* the file's format and rotation shift: how its Tracks evaluate */
    const ga_format *fmt;
    int rotation_frac;
} track_store;

typedef struct {
    PyObject_HEAD
    PyObject *target;
    int channel;
    int axis;
    PyObject *arrays[4]; /* times, values, in_slopes, out_slopes: array('f') */
    PyObject *interp;    /* array('B') */
    /* A decoded track keeps its keys in C until something asks for the
     * arrays: loading, sampling, baking or Track.bezier never build them.
     * `lazy` points at them, in `store` (which this track keeps alive):
     * the Animation's decoded tracks, or a store of one track for a track
     * made by copy() or fit().  NULL once the arrays exist (then the
     * arrays are the truth).  A call that reads `lazy` while Python code
     * may run (or without the GIL) takes its own reference on `store`:
     * another thread may materialise the track meanwhile. */
    const ga_track *lazy;
    track_store *store;
    /* A track decoded from a file whose format evaluates single tracks
     * its own way (ga_format.eval_track: J3D) keeps that format and the
     * file's rotation shift, through edits and copies, so that evaluate()
     * gives what sample() gives; NULL: the generic rules. */
    const ga_format *eval_fmt;
    int eval_frac;
} TrackObject;

extern PyType_Spec Track_spec;
void track_store_decref(track_store *s);
PyObject *track_from_store(ga_state *st, track_store *s, uint32_t i);
/* A Track as a C track.  Keys of a lazy track that reads `share` (the
 * calling Animation's own store) are borrowed; anything else is copied. */
int track_to_c(ga_state *st, PyObject *obj, Py_ssize_t index, ga_track *c, const track_store *share);
PyObject *Track_copy(PyObject *self, PyObject *unused);

/* ------------------------------------------------------------------ */
/* Animation (animation.c)                                             */

typedef struct {
    PyObject_HEAD
    const ga_format *fmt;
    PyObject *tracks;      /* list of Track */
    PyObject *entries;     /* list of dict (BTK) */
    double frame_count;
    double fps;            /* 0 = None */
    int loop;              /* -1 = None */
    PyObject *compression; /* str or None */
    int rotation_frac;     /* -1 = auto */
    int calc_type;
    double start_frame;
    int layout;
    int keyless_rule;
    int frame_rule;
    PyObject *info;
    PyObject *report;
    /* what was loaded */
    int has_orig;
    track_store *store;      /* owns orig.tracks (shared with lazy Tracks) */
    void *raw;
    ga_clip orig;
    PyObject *orig_bytes;    /* the input as given (wrapped) */
    PyObject *orig_payload;  /* decompressed (NULL until asked for: see animation_payload) */
    uint8_t *payload_buf;    /* the loader's decompressed payload, kept as is until then */
    size_t payload_size;
    const ga_wrapper *orig_wrapper;
} AnimationObject;

extern PyType_Spec Animation_spec;
AnimationObject *animation_alloc(ga_state *st, const ga_format *fmt);
PyObject *animation_from_data(ga_state *st, PyObject *data_obj, const ga_decode_opts *opts);
PyObject *Animation_to_bytes(PyObject *self, PyObject *args, PyObject *kw);
PyObject *wrap_payload(ga_state *st, const ga_wrapper *w, const uint8_t *data, size_t size);

/* ------------------------------------------------------------------ */
/* Model and Bone (model.c)                                            */

extern PyType_Spec Model_spec;
extern PyType_Spec Bone_spec;
extern PyType_Spec Mesh_spec;
extern PyType_Spec Texture_spec;
/* Material and its parts (material.c) */
int material_types_init(PyObject *m, ga_state *st);
struct ga_material;
PyObject *material_new(ga_state *st, const struct ga_material *mt, uint32_t i);
/* gameanim.decode_texture (model.c) */
PyObject *mod_decode_texture(PyObject *mod, PyObject *args, PyObject *kw);
/* gameanim.encode_texture (model_textures.c) */
PyObject *mod_encode_texture(PyObject *mod, PyObject *args, PyObject *kw);
PyObject *model_from_data(ga_state *st, PyObject *data_obj, const ga_decode_opts *opts);

/* ------------------------------------------------------------------ */
/* Conversions (convert.c)                                             */

PyObject *message_text(const char *s);
int make_zero_arrays(ga_state *st);
/* Read-only records whose first member after the object head is an
 * array of n field values (Bone, Mesh, Texture, Material, ...): getter
 * (closure = field index; None for an unset field) and dealloc. */
PyObject *fields_get(PyObject *self, void *closure);
void fields_dealloc(PyObject *self, int n);
/* Raises the Python exception for a ga_error; returns NULL. */
PyObject *raise_error(ga_state *st, const ga_error *e);
/* A new array of n zero items of `code`, and its writable buffer in *view
 * (release it once the items are written). */
PyObject *alloc_array(ga_state *st, const char *code, Py_ssize_t n, Py_buffer *view);
PyObject *new_array(ga_state *st, const char *code, const void *data, Py_ssize_t nbytes);
int is_array_of(ga_state *st, PyObject *obj, const char *code);
/* Any iterable of numbers (or an array of `code` as is) -> array of code. */
PyObject *as_array(ga_state *st, PyObject *obj, const char *code, const char *what);
/* Reads a C-contiguous buffer of the given item format. */
int get_buffer(PyObject *obj, Py_buffer *view, const char *code, Py_ssize_t itemsize, const char *what);
/* A buffer of `code` items from any buffer or iterable; *holder keeps it. */
int typed_buffer(ga_state *st, PyObject *obj, const char *code, Py_ssize_t itemsize, const char *what,
                 Py_buffer *view, PyObject **holder);
/* Frames: a number or any iterable / buffer of numbers (malloc'ed). */
int read_frames(ga_state *st, PyObject *obj, double **out, Py_ssize_t *n);
/* A 4x4 matrix (rows) or 16 numbers row-major, None for identity. */
int read_matrix(PyObject *obj, double m[16], Py_ssize_t bone, const char *what);
PyObject *info_to_dict(const ga_info *info);
PyObject *report_to_dict(const ga_report *r);
/* Names (convert.c, "Names"): bytes in the clip as the file stores them,
 * str in Python decoded with the format's codec.  A str goes back to the
 * stored bytes while its text is the stored name's; only a changed name is
 * encoded.  Every format with names goes through these. */
#define TRACK_NAME_CODEC "utf-8" /* Track.target names (JBA bone names) */
const char *name_codec(const ga_format *f);
PyObject *name_text(const char *s, const char *codec);
typedef struct stored_names {
    const char *codec;
    const char **names; /* the loaded file's names in order (borrowed; NULL: none there) */
    size_t n;
    PyObject *by_text;  /* text -> index of its first stored name, made when first needed */
} stored_names;
/* The names of orig's entries (entries = 1) or track targets; orig NULL:
 * none, every name is encoded.  -1 with an exception. */
int stored_names_init(stored_names *b, const char *codec, const ga_clip *orig, int entries);
void stored_names_free(stored_names *b);
/* A name as a malloc'ed C string: the stored bytes of the same text (the
 * name at `index` first), else `name` encoded in `codec` (undecodable
 * characters kept through surrogateescape); stored may be NULL.  too_long
 * is the ValueError (with index) for a name over GA_MAX_STRING bytes or
 * holding a NUL. */
char *name_to_c(PyObject *name, stored_names *stored, const char *codec, const char *too_long, Py_ssize_t index);
PyObject *entry_to_dict(const ga_entry *e, const char *codec);
int dict_to_entry(PyObject *d, Py_ssize_t i, ga_entry *e, stored_names *stored);

/* What a clip made by clip_from_python holds, decided once under the GIL:
 * a reference on the Animation's store (the clip's keys may be views into
 * it) and whether the clip's track array is the store's own (the tracks
 * were never materialised).  Another thread may read or assign
 * Animation.tracks while the GIL is released: nothing here changes. */
typedef struct clip_hold {
    track_store *store;
    int borrowed;
} clip_hold;

/* Python state -> C clip: a snapshot that no other thread can change or
 * free (release with clip_release, under the GIL).  When the tracks were
 * never materialised, the clip borrows the decoded tracks (no copy). */
int clip_from_python(ga_state *st, AnimationObject *a, ga_clip *c, clip_hold *hold);
void clip_release(ga_clip *c, clip_hold *hold);
/* Sets the Python-visible state from a decoded clip. */
int animation_fill(AnimationObject *a, const ga_clip *c);

/* ------------------------------------------------------------------ */
/* Names of enumerations (enums.c)                                     */

typedef struct enum_item {
    const char *name;
    int value;
} enum_item;

#define ENUM_NO_NONE (-0x7FFF) /* none_value: None is not accepted */

typedef struct enum_table {
    const enum_item *items; /* ends with a NULL name */
    int none_value;         /* the value of None, or ENUM_NO_NONE */
    int allow_int;          /* an int (not a bool) equal to an item's value is accepted as is */
    const char *type_error; /* TypeError for anything not a str, or NULL for the ValueError */
    const char *message;    /* the ValueError, formatted with the object given (%R or %U) */
} enum_table;

extern const enum_table channel_enum, loop_enum, calc_type_enum, keyless_rule_enum, reencode_enum,
    extrapolation_enum, rotation_mode_enum, frame_rule_enum, tev_kind_enum;

int parse_enum(const enum_table *t, PyObject *v, int *out);
/* The same for a C string (None for NULL). */
int parse_enum_str(const enum_table *t, const char *s, int *out);
const char *enum_name(const enum_table *t, int value);
/* A tuple of the item names, in table order. */
PyObject *enum_names(const enum_table *t);
/* A wrapper name (or 'none' / None) -> str or None. */
int parse_compression(PyObject *v, PyObject **out);

/* ------------------------------------------------------------------ */
/* Files and zlib through Python (io.c)                                */

/* Reads a file path or returns a new reference to a bytes-like object. */
PyObject *source_bytes(ga_state *st, PyObject *source);
/* The bytes of a buffer as an immutable bytes object (a new reference to
 * it when it is one already, else a copy): what a decoder reads without
 * the GIL, where another thread could write into a mutable buffer. */
PyObject *immutable_bytes(PyObject *obj);
/* Writes data next to path and renames it into place. */
PyObject *atomic_write(PyObject *path, PyObject *data);
/* Plugs Python's zlib into the core's inflate/deflate hooks. */
void install_zlib_hooks(void);

/* ------------------------------------------------------------------ */
/* Archives (archive.c)                                                */

int archive_types_init(PyObject *m, ga_state *st);
/* GA_ARC_EXTENSIONS as a tuple of str. */
PyObject *archive_extensions(void);
PyObject *mod_open_archive(PyObject *mod, PyObject *args, PyObject *kw);

/* ------------------------------------------------------------------ */
/* Module-level functions of baking and export (bake.c)                */

PyObject *mod_bake_pose(PyObject *mod, PyObject *args, PyObject *kw);
PyObject *mod_evaluate_fcurve(PyObject *mod, PyObject *args, PyObject *kw);
PyObject *mod_local_from_basis(PyObject *mod, PyObject *args, PyObject *kw);

#endif
