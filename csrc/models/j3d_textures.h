/* J3D TEX1 texture headers (j3d_textures.c; layout:
 * ../shared/formats/j3d_meshes.md section 7), for the readers that want a
 * header's fields without its image: the MDL3 encoder (the sampler
 * registers it loads) and the lint.  ga_model_textures (model.h) decodes
 * whole textures over the same two functions.  Plain C, no Python. */
#ifndef GAMEANIM_J3D_TEXTURES_H
#define GAMEANIM_J3D_TEXTURES_H

#include "model.h"

#define GA_TEX1_HEADER 0x20 /* bytes per texture header */

/* TEX1's header table in the chunk d[0..size): *count (u16 at 0x08), *at
 * (its offset from the chunk's start, u32 at 0x0C) and *fit (how many
 * whole headers lie between *at and the chunk's end; 0 when *at is past
 * it).  Returns 0, everything 0, when the chunk is shorter than 0x10. */
int ga_j3d_tex1_table(const uint8_t *d, size_t size, uint32_t *count, uint32_t *at, size_t *fit);

/* Header i's 0x20 bytes in the chunk d[0..size), or NULL when the chunk
 * is too short for the table or the table's end cuts header i off (the
 * count at 0x08 is not consulted). */
const uint8_t *ga_j3d_tex1_header_at(const uint8_t *d, size_t size, uint32_t i);

/* The fields of the 0x20-byte header at h into t (everything but the
 * image and palette offsets; t's name and pixels untouched).  No checks:
 * each caller holds the values to what it needs. */
void ga_j3d_tex1_fields(const uint8_t *h, ga_texture *t);

#endif
