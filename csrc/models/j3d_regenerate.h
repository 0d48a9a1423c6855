/* Regenerating a J3D model (BMD/BDL) from its decoded state: every chunk
 * encoded afresh, ignoring the stored bytes, so that our encoders can be
 * compared with Nintendo's on any file (Model.to_bytes(regenerate=True);
 * notes: ../shared/formats/j3d_writer.md section 5.2; docs:
 * docs/model_writer.md).
 *
 * A registry maps a chunk tag to its encoder; a chunk whose tag has none
 * keeps its stored bytes.  Adding an encoder is one line in
 * ga_j3d_regenerators (j3d_regenerate.c).  Plain C, no Python. */
#ifndef GAMEANIM_J3D_REGENERATE_H
#define GAMEANIM_J3D_REGENERATE_H

#include "j3d_writer.h"

/* Appends one whole chunk (tag, u32 size, body padded to 32 with
 * Nintendo's padding text) encoded from m's decoded state.  On failure
 * the buffer's contents are unspecified (the caller drops it). */
typedef int (*ga_j3d_chunk_encoder)(const ga_model *m, ga_buf *out, ga_error *err);

typedef struct ga_j3d_chunk_codec {
    const char *tag;             /* "INF1" */
    ga_j3d_chunk_encoder encode;
} ga_j3d_chunk_codec;

/* The registry, terminated by {NULL, NULL}. */
extern const ga_j3d_chunk_codec ga_j3d_regenerators[];
/* The encoder of a chunk tag (4 characters), NULL when there is none. */
ga_j3d_chunk_encoder ga_j3d_regenerator(const char *tag);

/* The whole file (unwrapped) with every chunk that has an encoder
 * re-encoded and the others copied; the header is Nintendo's (the magic
 * kept, file size, chunk count, "SVR3" and 12 bytes 0xFF).  m must be a
 * J3D model (GA_ERR_ARG otherwise). */
int ga_j3d_regenerate(const ga_model *m, ga_buf *out, ga_error *err);

/* ------------------------------------------------------------------ */
/* The skeleton chunks (j3d_encode_skeleton.c)                          */

int ga_j3d_encode_inf1(const ga_model *m, ga_buf *out, ga_error *err);
int ga_j3d_encode_evp1(const ga_model *m, ga_buf *out, ga_error *err);
int ga_j3d_encode_drw1(const ga_model *m, ga_buf *out, ga_error *err);
int ga_j3d_encode_jnt1(const ga_model *m, ga_buf *out, ga_error *err);

/* ------------------------------------------------------------------ */
/* The geometry chunks (j3d_regen_geometry.c)                           */

/* VTX1: every array's entries in their stored order and count, each
 * re-encoded from its decoded value in the stored type, count and shift;
 * a fresh format list; arrays in the loader's order.  NBT: GA_ERR_ENCODE. */
int ga_j3d_encode_vtx1(const ga_model *m, ga_buf *out, ga_error *err);
/* SHP1 from the decoded meshes, re-stripped and re-packed (the writer
 * replace_mesh uses); vertex indices as VTX1 keeps them. */
int ga_j3d_encode_shp1(const ga_model *m, ga_buf *out, ga_error *err);
/* The packet count that SHP1 gets (INF1 stores it); the stored count when
 * the model has no SHP1. */
int ga_j3d_regen_packet_count(const ga_model *m, uint32_t *packets, ga_error *err);

#endif
