/* The BDL's MDL3 chunk: per material one GX display list of BP / XF / CP
 * register loads made from MAT3 and TEX1, with the patch offsets the game
 * uses to find and rewrite parts of it (issue 34; notes:
 * ../shared/formats/j3d_writer.md fact 9, section 1 "MDL3", 5.4 "MDL3";
 * user docs: docs/model_writer.md "MDL3").  Plain C, no Python.
 *
 * Chunk layout (tww J3DMaterialDLBlock, j3dview mdl3.py):
 *   0x08 u16 material count, u16 0xFFFF
 *   0x0C display-list table: count x {u32 offset from the entry, u32 size}
 *   0x10 patch table: count x {u16 matColor, colorChan, texMtx, texNo,
 *        tevReg, fog; 4 bytes 0}, offsets within the material's list
 *   0x14 matrix-index table: count x {u32 CP 0x30, u32 CP 0x40}
 *   0x18 material modes: count x u8
 *   0x1C material index table: count x u16
 *   0x20 name table (JUTNameTab)
 * Every list starts 32-aligned and is zero-padded to a multiple of 32
 * (fact 1). */
#ifndef GAMEANIM_J3D_MDL3_H
#define GAMEANIM_J3D_MDL3_H

#include "model.h"

/* GX display-list opcodes MDL3 uses. */
#define GA_GX_LOAD_BP 0x61
#define GA_GX_LOAD_XF 0x10
#define GA_GX_LOAD_CP 0x08

/* The patch offsets, in the order of the patch table. */
enum {
    GA_MDL3_MAT_COLOR = 0,
    GA_MDL3_COLOR_CHAN,
    GA_MDL3_TEX_MTX,
    GA_MDL3_TEX_NO,
    GA_MDL3_TEV_REG,
    GA_MDL3_FOG,
    GA_MDL3_PATCHES
};

/* Writes a whole MDL3 chunk (tag, size, body padded to 32) for m, one
 * display list per MAT3 material instance, made from the decoded
 * materials (ga_model_materials) and the TEX1 headers the materials use.
 * Sub-block order (J3DMaterial::makeDisplayList_private): texture (the
 * texNo offset: per texture slot holding a texture, image pointer =
 * texture number, image size / format, lookup mode, LOD, and the TLUT
 * loads for a palette), TEV orders with texcoord scales, TEV colours
 * (tevReg) and konst colours, TEV stages, konst selects / swap tables,
 * indirect state; PE (fog offset): fog, alpha compare, blend, z mode,
 * z compare location, gen mode; texgen (texMtx offset): texture
 * matrices, texgens; channel colours (matColor: XF 0x100C, then ambient
 * 0x100A); channel controls (colorChan: XF 0x100E), channel and texgen
 * counts.  FormatError when MAT3 or TEX1 does not decode or a material
 * names a texture TEX1 does not hold. */
int ga_j3d_encode_mdl3(const ga_model *m, ga_buf *out, ga_error *err);

/* The same, keeping the stored lists of some materials: material i with
 * i < nkeep and keep[i] non-zero takes its list, patch offsets and matrix
 * words from m's stored MDL3 (FormatError when that does not hold them);
 * the others are encoded.  Used by the edits that reach some materials
 * (add_mesh's new instance, replace_texture's users), so that the lists
 * of the other materials keep their bytes (j3d_writer.md section 1). */
int ga_j3d_mdl3_rebuild(const ga_model *m, const uint8_t *keep, uint32_t nkeep, ga_buf *out, ga_error *err);
/* add_mesh's MDL3: every stored list kept, and one more list, encoded
 * from material k, for the MAT3 instance ga_j3d_mat3_add_copy appends
 * (same init record, so the same registers; name and mode k's). */
int ga_j3d_mdl3_add_copy(const ga_model *m, uint32_t k, ga_buf *out, ga_error *err);

/* After TEX1 texture `index` was replaced in m (old_header: its 0x20-byte
 * header before): when m has MDL3 and a field the lists hold changed
 * (format, size, wrap, palette, filters, LOD, levels), the lists of the
 * materials using the texture are encoded afresh, the others kept, and
 * MDL3 is spliced into m.  *changed: whether MDL3 was replaced.  On
 * failure m is unchanged. */
int ga_j3d_mdl3_texture_changed(ga_model *m, uint32_t index, const uint8_t old_header[32], int *changed,
                                ga_error *err);

#endif
