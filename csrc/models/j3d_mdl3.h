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

/* ------------------------------------------------------------------ */
/* Reading a stored chunk (j3d_mdl3_read.c): the one place that knows the
 * header and table layout above.  The reader reports what it finds and
 * leaves the wording to its callers (the writer and the colour patch fail
 * with a FormatError, the lint goes on to its next problem), so it has
 * no ga_error: each step returns whether the bytes hold, and every view
 * it returns lies inside the chunk. */

/* The tables, in the order of their offsets at 0x0C ... 0x20. */
enum {
    GA_MDL3_T_LISTS = 0, /* display-list entries, 8 bytes */
    GA_MDL3_T_PATCHES,   /* patch offsets, 16 bytes */
    GA_MDL3_T_MATRICES,  /* matrix-index words, 8 bytes */
    GA_MDL3_T_MODES,     /* material modes, 1 byte */
    GA_MDL3_T_INDEX,     /* material index, 2 bytes */
    GA_MDL3_T_NAMES,     /* JUTNameTab (no fixed entry size) */
    GA_MDL3_TABLES
};
#define GA_MDL3_HEADER 0x24

typedef struct ga_mdl3_view {
    const uint8_t *d; /* the chunk, from its tag */
    size_t size;      /* its bytes */
    size_t base;      /* its offset in the file (for error offsets) */
    uint32_t count;   /* display lists: the u16 at 0x08 */
    uint32_t table[GA_MDL3_TABLES]; /* offsets from the chunk's start */
} ga_mdl3_view;

/* One material's display-list entry. */
typedef struct ga_mdl3_list {
    size_t entry;      /* the entry, from the chunk's start */
    uint32_t rel, len; /* its stored words: offset from the entry, bytes */
    uint64_t at, end;  /* the list, from the chunk's start: entry + rel, at + len */
} ga_mdl3_list;

/* Opens the chunk d[0..size) found at file offset base: 1 when it holds
 * the 0x24-byte header (count and table offsets read into v), 0 when it
 * is shorter (v holds d, size and base only). */
int ga_mdl3_open(const uint8_t *d, size_t size, size_t base, ga_mdl3_view *v);

/* Whether each table whose bit (1u << GA_MDL3_T_*) is in `tables` holds n
 * entries inside the chunk.  The name table has no fixed size and is not
 * checked. */
int ga_mdl3_tables_hold(const ga_mdl3_view *v, unsigned tables, uint32_t n);

/* Material i's list entry into l (the list table must hold i + 1
 * entries: ga_mdl3_tables_hold); 1 when the list [at, end) lies inside
 * the chunk, 0 when it overruns (l still filled, for the message). */
int ga_mdl3_list_at(const ga_mdl3_view *v, uint32_t i, ga_mdl3_list *l);

/* Material i's patch offsets (the patch table must hold i + 1 entries),
 * in the order of the GA_MDL3_* patch enum, from the list's start. */
void ga_mdl3_patch_offsets(const ga_mdl3_view *v, uint32_t i, uint16_t off[GA_MDL3_PATCHES]);

/* Material i's two matrix-index words, CP 0x30 and 0x40 (the matrix
 * table must hold i + 1 entries). */
void ga_mdl3_matrix_words(const ga_mdl3_view *v, uint32_t i, uint32_t words[2]);

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
