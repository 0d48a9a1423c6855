/* Writing J3D geometry back (issue 34, "Meshes" in docs/model_writer.md;
 * notes: ../shared/formats/j3d_writer.md sections 0, 1, 2 and 4).
 *
 * ga_j3d_replace_mesh re-encodes what a new mesh for one SHP1 shape
 * reaches: VTX1 (append-only), EVP1 / DRW1 (only when new envelopes are
 * needed), SHP1 (the shape re-encoded, the others' records and display
 * lists copied), JNT1 (the owning joint's box grown) and INF1 (vertex and
 * packet counts), and splices them into the model in one step.
 *
 * The pieces below are the encoders it is built from, one file each:
 * j3d_encode_vtx1.c, j3d_encode_envelopes.c, j3d_encode_shp1.c,
 * j3d_strip.c; the orchestration is j3d_replace_mesh.c.  Plain C. */
#ifndef GAMEANIM_J3D_MESH_WRITE_H
#define GAMEANIM_J3D_MESH_WRITE_H

#include "j3d_writer.h"

/* A new mesh for a shape, in the layouts of ga_mesh (model.h): model
 * space at the rest pose, triangles counter-clockwise from the front.  A
 * NULL array keeps the shape's own (then nverts must be the shape's). */
typedef struct ga_mesh_input {
    uint32_t nverts, ntris;
    const float *positions;    /* 3 per vertex (required) */
    const uint32_t *triangles; /* 3 per triangle (required) */
    const float *normals;      /* 3 per vertex */
    int has_colors, has_uvs;   /* 0: keep the shape's */
    uint32_t ncolors, nuvs;    /* must equal the shape's channel counts */
    const float *colors[2];    /* 4 per vertex, 0..1 */
    const float *uvs[8];       /* 2 per vertex */
    uint32_t influences;       /* joints / weights per vertex */
    const uint32_t *joints;    /* NULL (with weights NULL): keep */
    const float *weights;
} ga_mesh_input;

int ga_j3d_replace_mesh(ga_model *m, uint32_t shape, const ga_mesh_input *in, ga_error *err);
/* A new shape after the others, drawn with MAT3 material `material`, its
 * nodes inside the first joint in INF1; the arrays it is given are its
 * channels (omitted joints: rigid on joint 0).  TODO (MAT3 part of issue
 * 34): a material instance of its own (j3d_replace_mesh.c). */
int ga_j3d_add_mesh(ga_model *m, uint32_t material, const ga_mesh_input *in, ga_error *err);


/* ------------------------------------------------------------------ */
/* VTX1, append-only (j3d_encode_vtx1.c)                                */

#define GA_VTX_KEYS 12 /* POS, NRM, CLR0, CLR1, TEX0..7 (GX attribute - 9) */

typedef struct ga_vtx_array {
    int present;                  /* a format record and an array */
    uint32_t comp_count, comp_type, shift;
    size_t stride;
    uint32_t count;
    uint8_t *data;                /* count * stride bytes, owned */
    size_t cap;
    uint32_t *table;              /* dedup hash: index + 1, 0 empty */
    size_t tcap;
    int changed;                  /* entries appended or re-encoded */
    size_t fmt_at;                /* its format record (offset in the chunk) */
} ga_vtx_array;

typedef struct ga_vtx1_edit {
    const ga_model *m;
    long chunk;                   /* index into m->chunks */
    ga_vtx_array a[GA_VTX_KEYS];
    uint32_t slot_off[13];        /* the stored array offsets */
    size_t fmt_at, fmt_len;       /* format list (relative), its bytes with the end record */
} ga_vtx1_edit;

int ga_vtx1_load(const ga_model *m, ga_vtx1_edit *v, ga_error *err);
void ga_vtx1_free(ga_vtx1_edit *v);
/* Adds n values (ncomp doubles each: positions 3, normals 3, UVs 2;
 * colours 4 in 0..1) to array `key`, reusing equal stored entries; the
 * index of each in out.  May lower the shift or go F32 (re-encoding the
 * array) when the values do not fit. */
int ga_vtx1_add(ga_vtx1_edit *v, int key, const double *values, uint32_t n, uint32_t *out, ga_error *err);
/* A whole VTX1 chunk (the stored format list, updated). */
int ga_vtx1_encode(const ga_vtx1_edit *v, ga_buf *b);
/* Regenerate (j3d_regen_geometry.c): every entry of every array decoded
 * and encoded again in its own format (ga_vtx1_reencode), and the chunk
 * written with a fresh format list and only the described arrays. */
int ga_vtx1_reencode(ga_vtx1_edit *v);
int ga_vtx1_encode_afresh(const ga_vtx1_edit *v, ga_buf *b);
/* The stored value of entry i (positions and UVs scaled by the shift,
 * normals by the GX's fixed 6 / 14 fraction bits, colours 0..1). */
void ga_vtx1_value(const ga_vtx_array *a, int key, uint32_t i, double *out);

/* ------------------------------------------------------------------ */
/* EVP1 / DRW1 (j3d_encode_envelopes.c)                                 */

typedef struct ga_envelopes {
    uint32_t n;                   /* envelopes */
    uint32_t *first;              /* n + 1: start of each in joints / weights */
    uint16_t *joints;
    float *weights;
    size_t nw, capw, capn;
    uint32_t nbinds;
    float (*binds)[12];
    uint32_t old_n;               /* envelopes before the edit */
    /* DRW1 */
    uint32_t ndraw;
    uint8_t *draw_kind;
    uint16_t *draw_index;
    uint32_t *joint_draw;         /* per joint: its first rigid DRW1 entry, or UINT32_MAX */
    uint32_t nbones;
} ga_envelopes;

int ga_envelopes_load(const ga_model *m, ga_envelopes *e, ga_error *err);
void ga_envelopes_free(ga_envelopes *e);
/* The envelope with these (joint-sorted, renormalised) weights, appended
 * when new; -1 when out of memory. */
long ga_envelopes_find(ga_envelopes *e, const uint16_t *joints, const float *weights, uint32_t n);
/* After new envelopes: DRW1 as J joint entries + N envelopes + N again;
 * remap (old_ndraw entries) gets each old entry's new index.  Inverse
 * binds for every joint are made from world (16 floats per joint) when
 * EVP1 had none. */
int ga_envelopes_finish(ga_envelopes *e, const float *world, uint32_t *remap);
int ga_evp1_encode(const ga_envelopes *e, ga_buf *b);
int ga_drw1_encode(const ga_envelopes *e, ga_buf *b);

/* ------------------------------------------------------------------ */
/* SHP1 (j3d_encode_shp1.c) and the stripper (j3d_strip.c)             */

/* One vertex as the display list writes it: its DRW1 entry and the index
 * of each attribute (GA_VTX_KEYS). */
typedef struct ga_dl_vertex {
    uint32_t draw;
    uint32_t idx[GA_VTX_KEYS];
} ga_dl_vertex;

typedef struct ga_shape_input {
    uint8_t matrix_type;
    uint32_t attrs;               /* bit per key present (POS always) */
    int index16[GA_VTX_KEYS];     /* INDEX16 for that key */
    uint32_t nverts, ntris;
    const ga_dl_vertex *verts;
    const uint32_t *tris;         /* GX order (clockwise fronts) */
    float radius, min[3], max[3];
} ga_shape_input;

/* The shape's bounds (radius from the origin, box) over pos (3 per vertex:
 * the stored, untransformed positions). */
void ga_shape_bounds(ga_shape_input *s, const double *pos, uint32_t n);
/* The packets ga_shp1_encode / ga_shp1_encode_shapes cut s into. */
uint32_t ga_shape_packet_count(const ga_shape_input *s);
/* Whether stored shape `shape` uses a texture-matrix index (TEXnMTXIDX,
 * which no mesh array carries): the attribute (1..8) and its file offset
 * in *at, else 0. */
int ga_shp1_shape_uses_texmtx(const ga_model *m, uint32_t shape, long *at);
/* A whole SHP1 of n shapes, each encoded from its input (regenerate): the
 * identity remap, no names, shared descriptor lists. */
int ga_shp1_encode_shapes(const ga_model *m, const ga_shape_input *shapes, uint32_t n, ga_buf *b, uint32_t *packets,
                          ga_error *err);
/* SHP1 with shape `shape` replaced; draw_remap (NULL: identity) renumbers
 * the other shapes' matrix tables.  *packets: the model's packet count. */
int ga_shp1_encode(const ga_model *m, uint32_t shape, const ga_shape_input *s, const uint32_t *draw_remap,
                   uint32_t ndraw_old, ga_buf *b, uint32_t *packets, ga_error *err);

/* Strips a triangle list (GX order, vertex ids < nverts): out gets the
 * primitives, each (0x98 strip, 0xA0 fan or 0x90 list) as opcode, count
 * and vertex ids, as u32 words: op, count, ids...  Winding is kept. */
typedef struct ga_u32s {
    uint32_t *v;
    size_t n, cap;
} ga_u32s;
int ga_u32s_push(ga_u32s *a, uint32_t x);
int ga_strip_triangles(const uint32_t *tris, uint32_t ntris, uint32_t nverts, ga_u32s *out);

#endif
