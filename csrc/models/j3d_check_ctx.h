/* What the J3D lint (j3d_check.c: layout, INF1, VTX1, EVP1/DRW1, MAT3,
 * MDL3, TEX1; j3d_check_shapes.c: SHP1 and the joint boxes) shares while
 * it runs.  Private to the lint's files (chk_add: j3d_check_list.c). */
#ifndef GAMEANIM_J3D_CHECK_CTX_H
#define GAMEANIM_J3D_CHECK_CTX_H

#include "j3d_check.h"

#include <stddef.h>
#include <stdint.h>

/* One VTX1 array, indexed by GX attribute id - 9: POS, NRM, CLR0, CLR1, TEX0-7. */
#define CHK_NARRAYS 12

typedef struct chk_array {
    int listed;          /* in VTX1's format list */
    uint32_t count, type, shift;
    size_t fmt_at;       /* the format record's file offset */
    int present;         /* listed with a non-zero offset inside the chunk */
    size_t base;         /* file offset of the array */
    size_t stride;       /* the runtime's stride (j3d_writer.md fact 2) */
    uint32_t length;     /* elements by the offset gap (fact 3) */
    int used;            /* some shape's descriptor indexes it */
    uint32_t max_index;  /* the largest index a display list uses */
} chk_array;

typedef struct chk {
    const ga_model *m;
    const uint8_t *d;
    size_t size;
    ga_check_list *out;
    int nomem;
    const ga_model_chunk *inf1, *vtx1, *evp1, *drw1, *jnt1, *shp1, *mat3, *mdl3, *tex1;
    chk_array a[CHK_NARRAYS];
    int vtx1_ok;         /* the format list parsed */
    uint32_t rigid;      /* DRW1 entries before the first envelope entry (R) */
    uint32_t draw_limit; /* the DRW1 entries a matrix table may name: R + N */
    uint32_t nshapes, nmaterials, ntextures;
    int32_t *shape_material; /* INF1: per shape, the material node it hangs under (-1) */
    int32_t *shape_joint;    /* INF1: per shape, that material's joint (-1) */
    ga_material *mats;       /* decoded MAT3 (NULL when it does not decode) */
    uint32_t nmats;
    uint64_t packets;        /* over SHP1's shapes */
    float *world;            /* rest world matrices, 16 per joint (NULL when unavailable) */
} chk;

/* Appends one problem (printf-style); sets x->nomem when memory runs out. */
void chk_add(chk *x, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* SHP1 (j3d_check_shapes.c): display lists, indices, matrix slots and
 * tables, texgen sources, and the joint-box warnings; fills the arrays'
 * used / max_index and x->packets. */
void chk_shp1(chk *x);

/* MDL3 (j3d_check_mdl3.c): the display lists and their patch offsets. */
void chk_mdl3(chk *x);

#endif
