/* GX texture decoding (gx_texture.h).  Every format is a grid of blocks,
 * left to right and top to bottom, with the texels of a block row by row;
 * texels past the image's width or height (the padding of the last blocks)
 * are skipped.  Bit expansion is by replication; CMPR blends its third and
 * fourth colours as the GX hardware does (3/8 and 5/8, see cmpr_block).
 * Layouts: ../shared/formats/j3d_meshes.md sections 7.2-7.3. */
#include "gx_texture.h"

#include <string.h>

typedef struct fmt_info {
    int id;
    const char *name;
    uint8_t bw, bh;     /* block size in texels */
    uint8_t bytes;      /* bytes per block */
} fmt_info;

static const fmt_info FORMATS[] = {
    {GA_GX_I4, "I4", 8, 8, 32},         {GA_GX_I8, "I8", 8, 4, 32},       {GA_GX_IA4, "IA4", 8, 4, 32},
    {GA_GX_IA8, "IA8", 4, 4, 32},       {GA_GX_RGB565, "RGB565", 4, 4, 32}, {GA_GX_RGB5A3, "RGB5A3", 4, 4, 32},
    {GA_GX_RGBA8, "RGBA8", 4, 4, 64},   {GA_GX_C4, "C4", 8, 8, 32},       {GA_GX_C8, "C8", 8, 4, 32},
    {GA_GX_C14X2, "C14X2", 4, 4, 32},   {GA_GX_CMPR, "CMPR", 8, 8, 32},
};
#define NFORMATS (sizeof FORMATS / sizeof FORMATS[0])

static const char *const PALETTE_NAMES[3] = {"IA8", "RGB565", "RGB5A3"};

static const fmt_info *info_of(int format)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (FORMATS[i].id == format) return &FORMATS[i];
    return NULL;
}

const char *ga_gx_format_name(int format)
{
    const fmt_info *f = info_of(format);
    return f ? f->name : NULL;
}

int ga_gx_format_from_name(const char *name)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (strcmp(FORMATS[i].name, name) == 0) return FORMATS[i].id;
    return -1;
}

const char *ga_gx_palette_format_name(int palette_format)
{
    return palette_format >= 0 && palette_format < 3 ? PALETTE_NAMES[palette_format] : NULL;
}

int ga_gx_palette_format_from_name(const char *name)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(PALETTE_NAMES[i], name) == 0) return i;
    return -1;
}

int ga_gx_is_indexed(int format) { return format == GA_GX_C4 || format == GA_GX_C8 || format == GA_GX_C14X2; }

int ga_gx_image_size(int format, uint32_t width, uint32_t height, size_t *bytes)
{
    const fmt_info *f = info_of(format);
    if (!f) return -1;
    size_t bx = (width + f->bw - 1u) / f->bw, by = (height + f->bh - 1u) / f->bh;
    *bytes = bx * by * f->bytes;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Texel expansion                                                      */

static inline uint8_t x3(unsigned v) { return (uint8_t)((v << 5) | (v << 2) | (v >> 1)); }
static inline uint8_t x4(unsigned v) { return (uint8_t)(v * 17u); }
static inline uint8_t x5(unsigned v) { return (uint8_t)((v << 3) | (v >> 2)); }
static inline uint8_t x6(unsigned v) { return (uint8_t)((v << 2) | (v >> 4)); }

static inline uint16_t be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }

static inline void set4(uint8_t *p, uint8_t r, uint8_t g, uint8_t b, uint8_t a)
{
    p[0] = r;
    p[1] = g;
    p[2] = b;
    p[3] = a;
}

static inline void rgb565(uint16_t v, uint8_t *p) { set4(p, x5(v >> 11), x6((v >> 5) & 63), x5(v & 31), 255); }

static inline void rgb5a3(uint16_t v, uint8_t *p)
{
    if (v & 0x8000)
        set4(p, x5((v >> 10) & 31), x5((v >> 5) & 31), x5(v & 31), 255);
    else
        set4(p, x4((v >> 8) & 15), x4((v >> 4) & 15), x4(v & 15), x3((v >> 12) & 7));
}

static inline void ia8(uint16_t v, uint8_t *p)
{
    uint8_t i = (uint8_t)(v & 0xFF);
    set4(p, i, i, i, (uint8_t)(v >> 8));
}

/* A palette entry (u16, big-endian) as RGBA; past the palette: 0,0,0,0. */
static inline void palette_entry(const uint8_t *pal, uint32_t n, int pf, uint32_t index, uint8_t *p)
{
    if (index >= n) {
        set4(p, 0, 0, 0, 0);
        return;
    }
    uint16_t v = (uint16_t)((pal[2 * index] << 8) | pal[2 * index + 1]);
    if (pf == GA_GX_TLUT_IA8)
        ia8(v, p);
    else if (pf == GA_GX_TLUT_RGB565)
        rgb565(v, p);
    else
        rgb5a3(v, p);
}

/* ------------------------------------------------------------------ */
/* CMPR                                                                 */

/* One 4x4 sub-block (8 bytes) at texel (x0, y0).  Colours c0, c1 are
 * big-endian RGB565 expanded to 8 bits.  c0 > c1 (as integers): colours 2
 * and 3 are (5*c0 + 3*c1) >> 3 and (3*c0 + 5*c1) >> 3 per channel, opaque;
 * otherwise colour 2 is (c0 + c1) >> 1 and colour 3 the same with alpha 0.
 * Indices: one byte per row, leftmost texel in the top two bits. */
static void cmpr_block(const uint8_t *s, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, uint8_t *out)
{
    uint16_t c0 = (uint16_t)((s[0] << 8) | s[1]), c1 = (uint16_t)((s[2] << 8) | s[3]);
    uint8_t pal[4][4];
    rgb565(c0, pal[0]);
    rgb565(c1, pal[1]);
    if (c0 > c1) {
        for (int k = 0; k < 3; k++) {
            pal[2][k] = (uint8_t)((5u * pal[0][k] + 3u * pal[1][k]) >> 3);
            pal[3][k] = (uint8_t)((3u * pal[0][k] + 5u * pal[1][k]) >> 3);
        }
        pal[2][3] = pal[3][3] = 255;
    } else {
        for (int k = 0; k < 3; k++) pal[2][k] = pal[3][k] = (uint8_t)((pal[0][k] + pal[1][k]) >> 1);
        pal[2][3] = 255;
        pal[3][3] = 0;
    }
    for (uint32_t y = 0; y < 4; y++) {
        if (y0 + y >= h) break;
        uint8_t row = s[4 + y];
        for (uint32_t x = 0; x < 4; x++) {
            if (x0 + x >= w) break;
            memcpy(out + ((size_t)(y0 + y) * w + x0 + x) * 4, pal[(row >> (6 - 2 * x)) & 3], 4);
        }
    }
}

/* ------------------------------------------------------------------ */

/* The texels of one block (not CMPR), row by row, into t. */
static void decode_block(int format, const uint8_t *s, uint32_t n, const uint8_t (*lut)[4], const uint8_t *palette,
                         uint32_t palette_count, int palette_format, uint8_t (*t)[4])
{
    uint32_t i;
    switch (format) {
    case GA_GX_I4:
        for (i = 0; i < n; i++) {
            uint8_t v = x4((s[i >> 1] >> ((i & 1) ? 0 : 4)) & 15);
            set4(t[i], v, v, v, v);
        }
        break;
    case GA_GX_I8:
        for (i = 0; i < n; i++) set4(t[i], s[i], s[i], s[i], s[i]);
        break;
    case GA_GX_IA4:
        for (i = 0; i < n; i++) {
            uint8_t v = x4(s[i] & 15);
            set4(t[i], v, v, v, x4(s[i] >> 4));
        }
        break;
    case GA_GX_IA8:
        for (i = 0; i < n; i++) set4(t[i], s[2 * i + 1], s[2 * i + 1], s[2 * i + 1], s[2 * i]);
        break;
    case GA_GX_RGB565:
        for (i = 0; i < n; i++) rgb565(be16(s + 2 * i), t[i]);
        break;
    case GA_GX_RGB5A3:
        for (i = 0; i < n; i++) rgb5a3(be16(s + 2 * i), t[i]);
        break;
    case GA_GX_RGBA8: /* 16 (A, R) pairs, then 16 (G, B) pairs */
        for (i = 0; i < n; i++) set4(t[i], s[2 * i + 1], s[32 + 2 * i], s[32 + 2 * i + 1], s[2 * i]);
        break;
    case GA_GX_C4:
        for (i = 0; i < n; i++) memcpy(t[i], lut[(s[i >> 1] >> ((i & 1) ? 0 : 4)) & 15], 4);
        break;
    case GA_GX_C8:
        for (i = 0; i < n; i++) memcpy(t[i], lut[s[i]], 4);
        break;
    default: /* C14X2: low 14 bits index the palette */
        for (i = 0; i < n; i++) palette_entry(palette, palette_count, palette_format, be16(s + 2 * i) & 0x3FFFu, t[i]);
        break;
    }
}

void ga_gx_decode(int format, const uint8_t *src, uint32_t width, uint32_t height, const uint8_t *palette,
                  uint32_t palette_count, int palette_format, uint8_t *out)
{
    const fmt_info *f = info_of(format);
    if (!f) return;
    const uint32_t bw = f->bw, bh = f->bh;
    const uint8_t *s = src;
    /* C4 / C8: the palette converted once (C14X2's 16384 indices convert per texel) */
    uint8_t lut[256][4];
    if (format == GA_GX_C4 || format == GA_GX_C8)
        for (uint32_t i = 0; i < 256; i++) palette_entry(palette, palette_count, palette_format, i, lut[i]);
    uint8_t block[64][4];
    for (uint32_t by = 0; by < height; by += bh)
        for (uint32_t bx = 0; bx < width; bx += bw, s += f->bytes) {
            if (format == GA_GX_CMPR) {
                for (uint32_t q = 0; q < 4; q++)
                    cmpr_block(s + 8 * q, bx + 4 * (q & 1), by + 4 * (q >> 1), width, height, out);
                continue;
            }
            decode_block(format, s, bw * bh, (const uint8_t(*)[4])lut, palette, palette_count, palette_format,
                         block);
            /* the block's rows that lie inside the image */
            uint32_t cols = width - bx < bw ? width - bx : bw;
            for (uint32_t y = 0; y < bh && by + y < height; y++)
                memcpy(out + ((size_t)(by + y) * width + bx) * 4, block[y * bw], (size_t)cols * 4);
        }
}
