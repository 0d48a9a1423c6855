/* Editing J3D MAT3 (and the BDL MDL3 display lists that mirror it), issue
 * 34: notes ../shared/formats/j3d_materials.md section 1 and
 * j3d_writer.md section 1 "MAT3" / "MDL3"; user docs docs/model_writer.md
 * "Materials".  Plain C, no Python.
 *
 * The relayout engine (j3d_encode_mat3.c) holds a stored MAT3 chunk as its
 * 30 tables, each a run of fixed-size entries, so that an edit can append
 * entries to any table and rewrite a material's init-data record, and
 * writes the chunk back with every offset updated, the tables in their
 * stored order.  Unedited, it writes the stored chunk byte for byte: the
 * bytes after a table's last live entry (padding, or entries no material
 * indexes) are kept while the table keeps its size, and replaced by
 * Nintendo's padding text (to 4) when it grows.
 *
 * The edits (j3d_mat3_edit.c) follow the notes' rule: a shared pool entry
 * is never edited; a new entry is appended (or an identical one reused)
 * and only the edited material's init record is repointed, after giving
 * the material its own record when several instances share one. */
#ifndef GAMEANIM_J3D_MAT3_H
#define GAMEANIM_J3D_MAT3_H

#include "model.h"

#define GA_MAT3_HEADER 0x84
#define GA_MAT3_RECORD 0x14C   /* init-data record */
#define GA_MAT3_INDIRECT 0x138 /* indirect record */
#define GA_MAT3_TABLES 30      /* u32 offsets at 0x0C ... 0x80 */

/* Header fields (offsets in the chunk) of the tables the edits use. */
enum {
    GA_MAT3_T_RECORDS = 0x0C,
    GA_MAT3_T_REMAP = 0x10,
    GA_MAT3_T_NAMES = 0x14,
    GA_MAT3_T_INDIRECT = 0x18,
    GA_MAT3_T_MAT_COLOR = 0x20,
    GA_MAT3_T_AMB_COLOR = 0x2C,
    GA_MAT3_T_TEV_COLOR = 0x50,
    GA_MAT3_T_KONST = 0x54
};

/* Entry size of each table by header field (index (field - 0x0C) / 4); 0
 * for the name table, an opaque blob. */
extern const uint32_t ga_mat3_item[GA_MAT3_TABLES];

typedef struct ga_mat3_table {
    uint32_t field;   /* header offset of its u32 offset */
    uint32_t item;    /* entry size in bytes; 0 for the name table (one opaque blob) */
    uint32_t at;      /* stored offset (chunk-relative), 0 when absent */
    uint32_t gap;     /* stored bytes from `at` to the next table or the chunk end */
    uint32_t count;   /* live entries (held in data) */
    ga_buf data;      /* the live entries, editable in place */
    int grown;        /* resized since the load: the stored tail is dropped */
} ga_mat3_table;

typedef struct ga_mat3 {
    const uint8_t *chunk; /* the stored chunk (tag and size included), borrowed */
    size_t size;
    const char *format;   /* for the errors */
    size_t base;          /* the chunk's file offset (for the errors) */
    uint16_t count;       /* materials */
    uint32_t head;        /* stored bytes before the first table (header and any prefix) */
    ga_mat3_table t[GA_MAT3_TABLES];
} ga_mat3;

/* Parses the stored chunk (size bytes at chunk, at file offset base).  The
 * engine borrows chunk until ga_mat3_close. */
int ga_mat3_open(ga_mat3 *x, const uint8_t *chunk, size_t size, size_t base, const char *format, ga_error *err);
void ga_mat3_close(ga_mat3 *x);
/* The table whose offset is stored at header field `field` (0x0C..0x80). */
ga_mat3_table *ga_mat3_tab(ga_mat3 *x, uint32_t field);
/* Appends one entry (the table's item size) to a table; with reuse, an
 * identical live entry is returned instead.  *index: the entry's index. */
int ga_mat3_append(ga_mat3 *x, uint32_t field, const uint8_t *item, int reuse, uint32_t *index, ga_error *err);
/* Writes the whole chunk (tag, size, tables, padded to 32). */
int ga_mat3_write(const ga_mat3 *x, ga_buf *out, ga_error *err);

/* Init record of material i (through the remap) and the remap entry. */
uint8_t *ga_mat3_record(ga_mat3 *x, uint32_t i);
uint16_t ga_mat3_remap(const ga_mat3 *x, uint32_t i);

/* Colours for ga_mat3_set_colors: n* = how many leading entries to set
 * (0 leaves that kind alone). */
typedef struct ga_mat3_colors {
    uint32_t ncolor, nambient, ntev, nkonst;
    uint8_t color[2][4], ambient[2][4], konst[4][4];
    int16_t tev[4][4];
} ga_mat3_colors;

/* Gives material i its own init record when others share it (a copy
 * appended, i's remap entry repointed). */
int ga_mat3_own_record(ga_mat3 *x, uint32_t i, ga_error *err);
/* Sets material i's colours: pool entries appended or reused, i's record
 * repointed (made its own first). */
int ga_mat3_set_colors(ga_mat3 *x, uint32_t i, const ga_mat3_colors *c, ga_error *err);
/* Appends a material instance that copies material k: a remap entry naming
 * k's init record, k's indirect record (when the table is present) and a
 * name (name, or k's when NULL).  *index: the new material's index. */
int ga_mat3_add_copy(ga_mat3 *x, uint32_t k, const char *name, uint32_t *index, ga_error *err);

/* Model-level entry points: each writes a whole MAT3 chunk for m.
 * ga_j3d_mat3_relayout: m's MAT3 through the engine unedited (its stored
 * bytes: the engine's own check).
 * ga_j3d_mat3_colors: m's MAT3 with material i's colours set.
 * ga_j3d_mat3_add_copy: m's MAT3 with a copy of material k appended
 * (*index its index).
 * ga_j3d_encode_mat3: MAT3 encoded afresh from the decoded materials
 * (ga_model_materials), the tables re-pooled (identical values stored
 * once), the init records and remap as m's, Nintendo's table order. */
int ga_j3d_mat3_relayout(const ga_model *m, ga_buf *out, ga_error *err);
int ga_j3d_mat3_colors(const ga_model *m, uint32_t i, const ga_mat3_colors *c, ga_buf *out, ga_error *err);
int ga_j3d_mat3_add_copy(const ga_model *m, uint32_t k, const char *name, uint32_t *index, ga_buf *out,
                         ga_error *err);
int ga_j3d_encode_mat3(const ga_model *m, ga_buf *out, ga_error *err);

/* BDL MDL3: material i's display list patched in place for the colours c
 * sets (XF 0x100C material and 0x100A ambient loads at its matColor
 * offset, BP 0xE0-0xE7 TEV and konst registers at its tevReg offset);
 * only the bytes of the changed values change.  mdl3 / size: a copy of
 * the whole MDL3 chunk, edited in place.  Fails (GA_ERR_ARG) when the list
 * is shared with another material or has no load for a value c sets (the
 * game would not see it); TEV colour slot 3 is never loaded and is
 * skipped. */
int ga_j3d_mdl3_patch_colors(uint8_t *mdl3, size_t size, size_t base, uint32_t i, const ga_mat3_colors *c,
                             const char *format, ga_error *err);

#endif
