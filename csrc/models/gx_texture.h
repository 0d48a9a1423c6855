/* GX (GameCube / Wii) texture decoding: the tiled texel formats of TEX1 and
 * BTI images into RGBA8, top row first.  Layouts and the CMPR blend rule:
 * ../shared/formats/j3d_meshes.md section 7, docs/meshes.md.  Plain C, no
 * J3D knowledge: the caller (j3d_materials.c, the binding) checks that the
 * buffers hold what ga_gx_image_size says. */
#ifndef GAMEANIM_GX_TEXTURE_H
#define GAMEANIM_GX_TEXTURE_H

#include <stddef.h>
#include <stdint.h>

enum {
    GA_GX_I4 = 0, GA_GX_I8 = 1, GA_GX_IA4 = 2, GA_GX_IA8 = 3, GA_GX_RGB565 = 4, GA_GX_RGB5A3 = 5,
    GA_GX_RGBA8 = 6, GA_GX_C4 = 8, GA_GX_C8 = 9, GA_GX_C14X2 = 10, GA_GX_CMPR = 14
};
/* Palette (TLUT) entry formats. */
enum { GA_GX_TLUT_IA8 = 0, GA_GX_TLUT_RGB565 = 1, GA_GX_TLUT_RGB5A3 = 2 };

/* Largest width or height decoded: the GX's texture size fields hold 1..1024. */
#define GA_GX_MAX_SIDE 1024u

/* The format's name ("I4", "CMPR", ...), NULL for an id that is not a GX
 * texture format. */
const char *ga_gx_format_name(int format);
/* The id of a name, -1 when unknown. */
int ga_gx_format_from_name(const char *name);
const char *ga_gx_palette_format_name(int palette_format);
int ga_gx_palette_format_from_name(const char *name);
/* 1 for C4, C8 and C14X2. */
int ga_gx_is_indexed(int format);
/* Bytes of the first mip level of a width x height image (whole blocks);
 * -1 for an unknown format. */
int ga_gx_image_size(int format, uint32_t width, uint32_t height, size_t *bytes);
/* Decodes the first level: src holds ga_gx_image_size bytes, palette
 * palette_count u16 entries (indexed formats; an index past the palette
 * gives transparent black), out width * height * 4 bytes RGBA, top row
 * first.  The format must be known and the palette format 0..2. */
void ga_gx_decode(int format, const uint8_t *src, uint32_t width, uint32_t height, const uint8_t *palette,
                  uint32_t palette_count, int palette_format, uint8_t *out);

/* ------------------------------------------------------------------ */
/* Encoding (gx_texture_encode.c; rounding rules at the top of that file
 * and in docs/model_writer.md, "Textures") */

struct ga_error;

/* Mip levels of a width x height image down to 1x1 (each level halves
 * both sides, at least 1). */
uint32_t ga_gx_max_levels(uint32_t width, uint32_t height);
/* Bytes of `levels` levels, each a whole number of blocks; -1 for an
 * unknown format. */
int ga_gx_mip_size(int format, uint32_t width, uint32_t height, uint32_t levels, size_t *bytes);
/* Entries of the palette an indexed format is written with: 16 for C4,
 * 256 for C8 and C14X2 (J3D loads only those sizes); 0 otherwise. */
uint32_t ga_gx_palette_entries(int format);
/* GA_OK when ga_gx_encode takes these arguments; else GA_ERR_ARG saying
 * why: unknown format, a side outside 1..1024, levels outside 1..max, mip
 * levels on a side that is not a power of two, a bad palette format. */
int ga_gx_encode_check(int format, uint32_t width, uint32_t height, uint32_t levels, int palette_format,
                       struct ga_error *err);
/* Encodes rgba (width * height * 4, top row first) and `levels` mip
 * levels into out (ga_gx_mip_size bytes); indexed formats also write
 * palette (ga_gx_palette_entries * 2 bytes, big-endian entries of
 * palette_format, unused entries zero).  GA_OK, GA_ERR_ARG (see
 * ga_gx_encode_check) or GA_ERR_NOMEM.  Safe to call from several threads. */
int ga_gx_encode(int format, const uint8_t *rgba, uint32_t width, uint32_t height, uint32_t levels,
                 int palette_format, uint8_t *out, uint8_t *palette, struct ga_error *err);

/* Palette entries (big-endian u16 of palette_format) to RGBA (the
 * decoder's rule) and back (each colour's nearest entry value, by the
 * rules above: exact for a colour the palette format can hold). */
void ga_gx_palette_decode(int palette_format, const uint8_t *entries, uint32_t n, uint8_t *rgba);
void ga_gx_palette_encode(int palette_format, const uint8_t *rgba, uint32_t n, uint8_t *entries);
/* Tiles one level of palette indices (width * height, top row first) of
 * an indexed format into out (ga_gx_image_size bytes; padding texels
 * index 0).  -1 for a format that is not indexed or an index too wide for
 * it (C4 16, C8 256, C14X2 16384). */
int ga_gx_encode_indices(int format, const uint16_t *index, uint32_t width, uint32_t height, uint8_t *out);

#endif
