/* Writing J3D models (BMD/BDL) back: the shared pieces of the chunk
 * encoders (issue 34; notes: ../shared/formats/j3d_writer.md, docs in
 * docs/model_writer.md).
 *
 * The design is a splice writer.  A ga_model holds its unwrapped file in
 * m->data with every chunk's place in m->chunks.  An edit re-encodes only
 * the chunks it reaches and splices their new bytes into m->data
 * (ga_j3d_splice), so an untouched model is its original file by
 * construction, and the decoders (meshes, materials, textures) read the
 * edited model exactly as they read a loaded one.
 *
 * Each chunk encoder writes a whole chunk: the tag, the u32 chunk size,
 * the body, padded to a multiple of 32 bytes (ga_j3d_chunk_begin /
 * ga_j3d_chunk_end).  Plain C, no Python. */
#ifndef GAMEANIM_J3D_WRITER_H
#define GAMEANIM_J3D_WRITER_H

#include "model.h"

/* Nintendo's fill between tables and at the end of chunks: this text
 * repeated and cut to length (j3d_writer.md, section 1). */
extern const char GA_J3D_PADDING[];

/* Pads b with GA_J3D_PADDING (cut to fit) until (b->len - start) is a
 * multiple of align (a power of two). */
int ga_j3d_pad(ga_buf *b, size_t start, size_t align);
/* Display lists pad with zero bytes (NOP) instead. */
int ga_j3d_pad_zero(ga_buf *b, size_t start, size_t align);

/* Starts a chunk: writes tag and a size placeholder; returns the chunk's
 * start (for ga_j3d_chunk_end and for offsets relative to the chunk). */
size_t ga_j3d_chunk_begin(ga_buf *b, const char tag[4]);
/* Pads the chunk to a multiple of 32 and stores its size.  Returns
 * GA_ERR_NOMEM when the buffer failed. */
int ga_j3d_chunk_end(ga_buf *b, size_t start);

/* Replaces chunk `index` of m (an index into m->chunks) with `size` bytes
 * (a whole chunk from an encoder: its tag must match), rebuilding m->data,
 * the file size at 0x08 and every chunk's offset, and re-decoding what
 * the loader decoded up front (bones, EVP1, DRW1).  On failure m is
 * unchanged. */
int ga_j3d_splice(ga_model *m, uint32_t index, const uint8_t *chunk, size_t size, ga_error *err);
/* The same for n chunks at once (indices ascending, each chunk whole from
 * an encoder): one rebuild and one re-decode, so an edit that reaches
 * several chunks is applied whole or not at all. */
int ga_j3d_splice_chunks(ga_model *m, uint32_t n, const uint32_t *index, const ga_buf *chunks, ga_error *err);

/* A JUTNameTab of n names (NULL: "") with the keys computed
 * (core/jut_names.h), no padding after it; GA_ERR_LIMIT when the names
 * overflow its u16 string offsets (j3d_encode_skeleton.c). */
int ga_j3d_put_names(ga_buf *out, const char *const *names, uint32_t n, const char *format, ga_error *err);

/* EVP1 as Nintendo lays it out (j3d_encode_skeleton.c): n envelopes of
 * counts[k] (joint, weight) pairs, nw pairs in all, then nbinds inverse
 * binds (3x4 row-major); joint indices right after the counts, weights
 * 8-aligned (docs/model_writer.md), Nintendo's padding; zero offsets when
 * n is 0.  Used by regenerate and by the mesh edits. */
int ga_j3d_put_evp1(ga_buf *out, uint32_t n, const uint8_t *counts, const uint16_t *joints, const float *weights,
                    size_t nw, uint32_t nbinds, const float (*binds)[12]);

#endif
