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
#include "gx_tev_state.h"

/* The family decides which matrix rules apply (skeleton.c). */
typedef enum ga_rig_family {
    GA_RIG_J3D = 0,    /* BMD / BDL: JNT1 + INF1 */
    GA_RIG_SM64DS = 1, /* SM64DS BMD bone table */
    GA_RIG_BK = 2      /* Banjo-Kazooie model bin bone table (pivots) */
} ga_rig_family;

/* "j3d", "sm64ds", "bk": the family's name in Model.family and in the
 * formats' traits.rig (model.c). */
const char *ga_rig_family_name(ga_rig_family f);

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
    /* J3D: INF1's hierarchy nodes as stored, (type, value) each, up to and
     * including the end node (type 0); for the INF1 encoder. */
    uint32_t n_inf1_nodes;
    uint16_t (*inf1_nodes)[2];
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
    /* EVP1's envelopes: n_envelopes weight counts; the joints and weights
     * of envelope 0, then 1, ... (n_envelope_weights each). */
    uint8_t *envelope_counts;
    uint16_t *envelope_joints;
    float *envelope_weights;
    uint32_t n_draw;
    uint8_t *draw_is_envelope;  /* DRW1 kind table */
    uint16_t *draw_index;       /* DRW1 index table */
    /* The unwrapped file, owned (chunks point into it). */
    uint8_t *data;
    size_t size;
    /* The load's options (decoded-size limit) for the mesh, material and
     * texture decoders, which run later (on demand). */
    ga_decode_opts opts;
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

/* ------------------------------------------------------------------ */
/* J3D geometry, materials and textures (csrc/models/j3d_geometry.c,
 * j3d_materials.c, j3d_textures.c).  Decoded on demand from the raw chunks of a J3D
 * ga_model; a model of another family has none (count 0).  Each call
 * decodes everything of its kind or fails with a FormatError naming the
 * field and offset.  Notes: ../shared/formats/j3d_meshes.md; API and
 * choices: docs/meshes.md. */

/* One SHP1 shape as a triangle mesh.  A vertex is one distinct
 * combination of the attribute indices and the draw matrix (DRW1 entry)
 * the display lists give it; all arrays hold nverts entries of their
 * width. */
typedef struct ga_mesh {
    uint8_t matrix_type;  /* SHP1: 0 single, 1 billboard, 2 Y billboard, 3 multi */
    int32_t material;     /* MAT3 material index (INF1), -1 when none */
    uint32_t nverts, ntris;
    float *positions;     /* 3 per vertex, model space at the rest pose */
    float *normals;       /* 3 per vertex, unit length; NULL without NRM */
    uint32_t ncolors;     /* colour sets: CLR0, CLR1 present */
    uint8_t color_channel[2];
    float *colors[2];     /* 4 per vertex, 0..1 */
    uint32_t nuvs;
    uint8_t uv_channel[8]; /* the TEXn of each set */
    float *uvs[8];        /* 2 per vertex (s, t) as stored */
    uint32_t *triangles;  /* 3 per triangle, counter-clockwise from the front */
    uint32_t influences;  /* joints per vertex in joints / weights (>= 1) */
    uint32_t *joints;     /* influences per vertex, unused slots joint 0 weight 0 */
    float *weights;
    uint32_t *position_index; /* per vertex: its VTX1 position index */
    uint32_t *draw_index;     /* per vertex: its DRW1 entry */
    uint32_t *normal_index;   /* per vertex: its VTX1 normal index; NULL without NRM */
    uint32_t *color_index[2]; /* per vertex: its VTX1 index in each colour set (as colors) */
    uint32_t *uv_index[8];    /* per vertex: its VTX1 index in each UV set (as uvs) */
} ga_mesh;

typedef struct ga_texture {
    char *name;           /* TEX1 name table entry (cp932 bytes), NULL without one */
    uint8_t format;       /* GX format id (gx_texture.h) */
    uint8_t alpha;        /* the header's alpha flag */
    uint8_t wrap_s, wrap_t; /* 0 clamp, 1 repeat, 2 mirror */
    uint8_t has_palette, palette_format;
    uint16_t palette_count;
    uint8_t min_filter, mag_filter, mip_count;
    int8_t min_lod, max_lod;
    int16_t lod_bias;
    uint16_t width, height;
    uint8_t *pixels;      /* width * height * 4 RGBA8, top row first */
    /* the header's other bytes (0x10 mipmap flag, 0x11 edge LOD, 0x12
     * bias clamp, 0x13 max anisotropy, 0x19 unused), kept for the writer */
    uint8_t mipmap, edge_lod, bias_clamp, max_aniso, byte_19;
} ga_texture;

#define GA_MAT_STAGES 16

/* A MAT3 texture matrix record (j3d_materials.md 1.3). */
typedef struct ga_tex_matrix {
    uint8_t projection;   /* 0 3x4, 1 2x4 */
    uint8_t info;         /* bits 0-6 mode, bit 7 Maya SRT */
    float center[3];
    float scale[2];
    int16_t rotation;     /* 65536 per turn */
    float translation[2];
    float effect[16];     /* row-major */
} ga_tex_matrix;

typedef struct ga_fog {
    uint8_t type, adjust;
    uint16_t center;
    float start_z, end_z, near_z, far_z;
    uint8_t color[4];
    uint16_t adj[10];
} ga_fog;

/* The MAT3 indirect record of a material (j3d_materials.md 1.3, 2.5). */
typedef struct ga_indirect {
    uint8_t enabled, nstages;
    uint8_t order[4][2];        /* texcoord, texmap */
    float matrix[3][6];         /* 2x3 row-major */
    int8_t exponent[3];
    uint8_t scale[4][2];        /* s, t */
    uint8_t stage[GA_MAT_STAGES][9]; /* ind stage, format, bias, matrix, wrap s, wrap t, add prev, utc lod, alpha */
} ga_indirect;

/* One MAT3 material.  Every table the notes list; where the file says
 * "none" (0xFF / 0xFFFF) the value is the game's default
 * (docs/materials.md) and has_* is 0. */
typedef struct ga_material {
    char *name;           /* MAT3 name table entry, NULL without one */
    uint32_t entry;       /* the entry record used (remap) */
    uint8_t mode;         /* 1 opaque, 2 alpha test, 4 translucent */
    int32_t cull_mode;    /* 0 none, 1 front, 2 back, 3 all */
    uint8_t nstages;
    /* TEV order of each stage: texcoord (texgen), texmap (slot, 0xFF none),
     * colour channel; texture: the TEX1 index the stage samples or -1. */
    uint8_t stage_texcoord[GA_MAT_STAGES], stage_texmap[GA_MAT_STAGES], stage_channel[GA_MAT_STAGES];
    int32_t stage_texture[GA_MAT_STAGES];
    int32_t textures[8];  /* TEX1 index of each texture slot, -1 unused */
    uint8_t ntexgens;
    uint8_t texgen[8][3]; /* type, source, matrix */
    uint8_t has_texgen[8];
    uint8_t post_texgen[8][3], has_post_texgen[8];
    uint8_t has_tex_matrix[8];
    ga_tex_matrix tex_matrix[8];
    uint8_t nchannels;
    uint8_t has_color[2], color[2][4];     /* material colours */
    uint8_t has_ambient[2], ambient[2][4];
    uint8_t has_channel[4], channel[4][6]; /* colour 0, alpha 0, colour 1, alpha 1 controls */
    uint8_t has_tev_color[4];
    int16_t tev_color[4][4];
    uint8_t has_konst[4], konst[4][4];
    uint8_t has_alpha_compare, alpha_compare[5]; /* comp0, ref0, op, comp1, ref1 */
    uint8_t has_blend, blend[4];                 /* type, src, dst, logic op */
    uint8_t has_z_mode, z_mode[3];               /* test, function, write */
    uint8_t has_stage[GA_MAT_STAGES];            /* the TEV stage record (else the default) */
    uint8_t has_swap_table[4];
    /* The TEV state for ga_tev_eval (gx_tev.h): stages with their konst
     * selects and swap modes, swap tables, TEV colours, konst colours,
     * alpha compare; defaults applied. */
    ga_tev_state tev;
    uint8_t has_fog;
    ga_fog fog;
    uint8_t has_z_comp_loc, z_comp_loc; /* 1: depth test before texturing */
    uint8_t has_dither, dither;
    uint8_t has_nbt, nbt_enabled;
    float nbt_scale[3];
    uint8_t has_indirect;
    ga_indirect indirect;
} ga_material;

int ga_model_meshes(const ga_model *m, ga_mesh **out, uint32_t *n, ga_error *err);
void ga_meshes_free(ga_mesh *meshes, uint32_t n);
/* The same shapes one at a time: fn(ctx, i, count, mesh) after shape i
 * decodes; a non-zero return stops (and is returned).  The mesh is freed
 * after fn unless fn empties it (zeroes it after taking its arrays).  One
 * shape's buffers live at a time, so they stay in the cache for fn. */
typedef int (*ga_mesh_fn)(void *ctx, uint32_t i, uint32_t count, ga_mesh *mesh);
int ga_model_meshes_each(const ga_model *m, ga_mesh_fn fn, void *ctx, ga_error *err);
/* Shape i alone (the others are not decoded: the model writer's view of
 * one shape); out is zeroed when the model has no shape i.  ga_mesh_free
 * frees its arrays. */
int ga_model_mesh(const ga_model *m, uint32_t i, ga_mesh *out, ga_error *err);
void ga_mesh_free(ga_mesh *mesh);
int ga_model_textures(const ga_model *m, ga_texture **out, uint32_t *n, ga_error *err);
void ga_textures_free(ga_texture *t, uint32_t n);
int ga_model_materials(const ga_model *m, ga_material **out, uint32_t *n, ga_error *err);
void ga_materials_free(ga_material *mats, uint32_t n);

/* Shared by the J3D decoders (bmd.c): the chunk with this tag or -1, and
 * a sub-table offset (chunk start + the u32 stored at field_at, inside the
 * chunk). */
long ga_j3d_find_chunk(const ga_model *m, const char *tag);
int ga_j3d_table_at(const ga_reader *r, const ga_model_chunk *c, size_t field_at, const char *field, size_t *out);
/* For the on-demand decoders: r over m's file, *c the chunk `tag` and
 * *count its u16 count at +8; *c NULL and *count 0 (GA_OK) when m is not
 * J3D or has no such chunk. */
int ga_j3d_chunk_count(const ga_model *m, const char *tag, const char *count_field, ga_reader *r, ga_error *err,
                       const ga_model_chunk **c, uint16_t *count);
/* Name i of a JUTNameTab at `at` (NULL name when the table has fewer), and
 * the name table of a chunk whose offset field may be 0 (*at 0: no names);
 * j3d_textures.c. */
int ga_j3d_name_at(const ga_reader *r, size_t at, uint32_t i, const char *field, char **name);
int ga_j3d_names_table(const ga_reader *r, const ga_model_chunk *c, size_t field_at, const char *field, size_t *at);

#endif
