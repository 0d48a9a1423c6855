/* Skeletons read from the games' model files (J3D BMD/BDL, SM64DS BMD,
 * Banjo-Kazooie model bins) and the game's joint matrices for them.
 *
 * The decoders live in csrc/models/ (one file per model family) and are
 * listed in ga_model_formats (core/formats.c); the matrix rules are
 * core/skeleton.c.  Notes: ../shared/formats/j3d_models.md, docs/models.md.
 * Plain C, no Python. */
#ifndef GAMEANIM_MODEL_H
#define GAMEANIM_MODEL_H

#include "gameanim.h"

/* The family decides which matrix rules apply (skeleton.c). */
typedef enum ga_rig_family {
    GA_RIG_J3D = 0,    /* BMD / BDL: JNT1 + INF1 */
    GA_RIG_SM64DS = 1, /* SM64DS BMD bone table */
    GA_RIG_BK = 2      /* Banjo-Kazooie model bin bone table (pivots) */
} ga_rig_family;

/* J3D matrix-calc rule: INF1 flags & 0xF. */
typedef enum ga_calc_rule {
    GA_CALC_NONE = -1, /* not J3D */
    GA_CALC_BASIC = 0,
    GA_CALC_SOFTIMAGE = 1,
    GA_CALC_MAYA = 2
} ga_calc_rule;

typedef struct ga_model_bone {
    /* The name as stored (J3D: cp932 bytes of the name table, SM64DS:
     * the bytes at the name offset; BK: none), NUL-terminated, malloc'ed;
     * NULL when the file has no name for the bone. */
    char *name;
    size_t name_len;
    uint16_t name_hash;   /* J3D: the stored hash (may disagree with the name) */
    int32_t parent;       /* bone index, -1 for a root */
    /* Rest transform as the game reads it: local = T * R * S with
     * R = Rz * Ry * Rx. */
    float scale[3];
    float rotation[3];    /* radians (from rot_raw) */
    float translation[3];
    /* The stored rotation: J3D s16, 65536 per turn; SM64DS s16, 4096 per
     * turn (the game indexes its 4096-entry table with it); BK: 0. */
    int16_t rot_raw[3];
    /* SM64DS: the stored 20.12 fixed-point scale and translation. */
    int32_t scale_fixed[3], translation_fixed[3];
    int scale_compensate; /* J3D: 1 when the stored byte is 1 (0xFF and 0 mean no) */
    uint8_t scale_compensate_raw;
    uint16_t kind;        /* J3D: the stored u16 kind field */
    int32_t bone_id;      /* BK: the bone ID animations address; SM64DS: the stored ID; J3D: -1 */
    uint32_t data_index;  /* J3D: remap[joint] (the record used); else the bone index */
    float bound_radius, bound_min[3], bound_max[3]; /* J3D */
} ga_model_bone;

/* A chunk of a J3D file, kept as raw bytes (offset into ga_model.data). */
typedef struct ga_model_chunk {
    char tag[5];
    size_t offset, size;
} ga_model_chunk;

typedef struct ga_model {
    const char *format;   /* "bmd", "bdl", "sm64ds_bmd", "bk_model" */
    ga_rig_family family;
    int calc;             /* ga_calc_rule; GA_CALC_NONE outside J3D */
    uint16_t inf1_flags;  /* J3D: the whole stored flags word */
    uint32_t inf1_packet_count, inf1_vertex_count; /* J3D: INF1 0x0C, 0x10 */
    uint32_t nbones;
    ga_model_bone *bones; /* joint-number order (J3D), table order (SM64DS, BK) */
    float bk_scale;       /* BK: the table's translation scale factor k; else 1 */
    int32_t sm64ds_scale_shift; /* SM64DS: header word 0 (vertex scale 2^shift); else 0 */
    /* J3D: every chunk of the file in order, raw (for the mesh work). */
    uint32_t nchunks;
    ga_model_chunk *chunks;
    /* J3D EVP1 / DRW1 when present (else counts 0, pointers NULL). */
    uint32_t n_envelopes;
    uint32_t n_envelope_weights; /* sum of EVP1's weight counts */
    uint32_t n_inverse_binds;
    float (*inverse_binds)[12]; /* 3x4 row-major per joint of EVP1 */
    uint32_t n_draw;
    uint8_t *draw_is_envelope;  /* DRW1 kind table */
    uint16_t *draw_index;       /* DRW1 index table */
    /* The unwrapped file, owned (chunks point into it). */
    uint8_t *data;
    size_t size;
} ga_model;

/* A model family's decoder (csrc/models/, one file each). */
typedef struct ga_model_format {
    const char *name;        /* ga_model.format values it may produce, e.g. "bmd" */
    const char *description;
    const char *extensions;  /* ";"-separated: ".bmd;.bdl" */
    /* 0 = not this family; higher = more certain.  Must never fail. */
    int (*probe)(const uint8_t *data, size_t size);
    /* Decodes data (already unwrapped) into out, which it fills; on
     * failure out is left freed.  Takes ownership of nothing: it copies
     * data into out->data. */
    int (*decode)(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_model *out, ga_error *err);
} ga_model_format;

extern const ga_model_format *const ga_model_formats[]; /* NULL-terminated (formats.c) */
/* The model family of an unwrapped payload, NULL when none claims it. */
const ga_model_format *ga_detect_model_format(const uint8_t *data, size_t size);

/* Unwraps (ga_wrappers), detects and decodes a model file.  *wrapper is
 * the wrapper used (NULL for none). */
int ga_load_model(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_model *out,
                  const ga_wrapper **wrapper, ga_error *err);
void ga_model_init(ga_model *m);
void ga_model_free(ga_model *m);

/* Helpers for the decoders (model.c).  ga_model_start: out gets the format
 * and family and a copy of the data (out->data).  ga_model_alloc_bones:
 * n bones with the neutral defaults (no name, parent -1, scale 1, bone_id
 * -1, data_index = index).  ga_model_read_name: the NUL-terminated bytes
 * at off (at most GA_MAX_STRING) as a malloc'ed string. */
int ga_model_start(ga_model *out, const char *format, ga_rig_family family, const uint8_t *data, size_t size,
                   ga_error *err);
int ga_model_alloc_bones(ga_model *m, uint32_t n, ga_error *err);
int ga_model_read_name(const ga_reader *r, size_t off, const char *field, char **name, size_t *len);

/* ------------------------------------------------------------------ */
/* The game's joint matrices (skeleton.c)                               */

/* World (model-space) matrices of every bone at each of nframes frames:
 * out holds nframes * nbones * 16 floats, frame-major, each matrix
 * row-major (column-vector convention: translation in elements 3, 7, 11),
 * equal to the game's for the model's family and rule.
 * clip / fmt: an animation (NULL for the rest pose): its channels replace
 * the rest values where it animates them (J3D, SM64DS BCA), or are deltas
 * about the pivots (Banjo-Kazooie), sampled with fmt's game-exact sampler.
 * Tracks address bones by index (J3D, BCA) or bone ID (BK). */
int ga_model_world_matrices(const ga_model *m, const ga_clip *clip, const ga_format *fmt, const double *frames,
                            size_t nframes, float *out, ga_error *err);

#endif
