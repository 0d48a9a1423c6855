/* Writing a J3D TEX1 chunk back with some textures replaced (issue 34;
 * notes: ../shared/formats/j3d_writer.md "TEX1", user docs:
 * docs/model_writer.md "Textures").  The new chunk goes into the model
 * with ga_j3d_splice (j3d_writer.h).  Plain C, no Python. */
#ifndef GAMEANIM_J3D_TEX1_WRITER_H
#define GAMEANIM_J3D_TEX1_WRITER_H

#include "model.h"

/* One replaced texture. */
typedef struct ga_tex1_image {
    uint32_t index;          /* the TEX1 record */
    const uint8_t *rgba;     /* width * height * 4, top row first */
    uint32_t width, height;  /* 1..1024 */
    int format;              /* GX format (gx_texture.h), -1: the record's own */
    int palette_format;      /* for indexed formats; -1: the record's own (RGB5A3 if it had none) */
} ga_tex1_image;

/* Writes m's TEX1 chunk with images[0..n) replaced into out (a whole
 * chunk, for ga_j3d_splice) and its index in m->chunks into *chunk.
 *
 * Untouched records keep their 0x20-byte headers (only the palette and
 * image offsets, which are relative to the header, follow the data) and
 * their palette and image bytes, all mip levels; data several headers
 * share stays stored once; data stays in its order, 32-aligned; the name
 * table is copied.  A replaced record is encoded (ga_gx_encode) with as
 * many mip levels as it had, or as many as the new size has if fewer;
 * its format, size and palette fields are updated; min/max LOD are kept
 * unless the level count changed (then 0 and (levels - 1) * 8, and a
 * mipmap minification filter drops to its single-level one when one level
 * remains).
 *
 * Errors: GA_ERR_ARG for a record index past the table, a side outside
 * 1..1024, a side not a power of two with mip levels or with repeat or
 * mirror wrap on that axis; GA_ERR_FORMAT for a malformed TEX1.  On a
 * BDL, the MDL3 lists of the materials using a changed header follow with
 * ga_j3d_mdl3_texture_changed (j3d_mdl3.h). */
int ga_j3d_tex1_encode(const ga_model *m, const ga_tex1_image *images, uint32_t n, ga_buf *out, uint32_t *chunk,
                       ga_error *err);

/* TEX1 encoded afresh from m's decoded textures (the regenerate registry,
 * j3d_regenerate.h; j3d_tex1_regen.c): every image and mip level
 * re-encoded from its decoded texels in its own format, palette format
 * and palette size (non-CMPR formats decode to the same RGBA; CMPR is
 * re-fitted), headers from the decoded fields, stored sharing kept, the
 * name table rebuilt.  GA_ERR_FORMAT when TEX1 does not decode or a mip
 * chain runs past the chunk. */
int ga_j3d_encode_tex1(const ga_model *m, ga_buf *out, ga_error *err);

#endif
