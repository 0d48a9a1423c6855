/* TEX1 encoded afresh from the decoded textures, for
 * Model.to_bytes(regenerate=True) (j3d_tex1_writer.h; user docs:
 * docs/model_writer.md "Regenerating TEX1").
 *
 * Every texture's image is encoded again from its decoded texels, level by
 * level (level 0 from ga_model_textures, the lower levels decoded from the
 * stored mip chain), in the texture's own format, palette format and
 * palette size, through gx_texture_encode.c.  Indexed formats keep their
 * palette: its entries are re-encoded from their decoded colours and each
 * texel takes the first entry of its colour (an index past the palette,
 * which decodes to transparent black, when no entry has that colour), so
 * the texture decodes to the same RGBA and an unedited palette comes back
 * in its order.
 *
 * Sharing: two headers share one copy of image data when their stored
 * image offsets are the same and the re-encoded bytes of one start with
 * those of the other (same format and size, for indexed formats indices
 * that mean the same under both palettes; a header with fewer mip levels
 * uses the first levels of the longer chain); palettes likewise by stored
 * offset and bytes.  So the stored sharing is kept, and nothing is merged
 * that was stored apart.
 *
 * Layout (j3dview's writer, after Nintendo's files): the chunk header
 * (count, 0xFFFF, headers at 0x20, name table offset) padded with the
 * padding text to 0x20; the 0x20-byte headers; every palette in texture
 * order, then every image, each 32-aligned (zero fill); the name table
 * last.  A texture without palette data gets, as palette offset, the
 * position the palettes had reached at its turn (relative to its header),
 * as j3dview writes it. */
#include "gx_texture.h"
#include "j3d_tex1_writer.h"
#include "j3d_writer.h"

#include <stdlib.h>
#include <string.h>

#define TEX1_HEADER 0x20u

typedef struct piece {
    size_t key;      /* the stored offset (in m->data) of the data it replaces */
    uint8_t *bytes;
    size_t len;
    size_t at;       /* offset in the new chunk, 0 until placed */
} piece;

typedef struct pieces {
    piece *p;
    uint32_t n;
} pieces;

/* The piece of (key, bytes), taking ownership of bytes: one already listed
 * with the same key whose bytes start like these, or these like its (a
 * header with fewer mip levels sharing the data; the longer bytes kept),
 * else a new one. */
static long add_piece(pieces *ps, size_t key, uint8_t *bytes, size_t len)
{
    for (uint32_t i = 0; i < ps->n; i++) {
        piece *p = &ps->p[i];
        if (p->key != key || memcmp(p->bytes, bytes, len < p->len ? len : p->len) != 0) continue;
        if (len > p->len) {
            uint8_t *t = p->bytes;
            p->bytes = bytes, p->len = len, bytes = t;
        }
        free(bytes);
        return (long)i;
    }
    ps->p[ps->n] = (piece){key, bytes, len, 0};
    return (long)ps->n++;
}

static void halve(uint32_t *w, uint32_t *h)
{
    *w = *w > 1 ? *w >> 1 : 1;
    *h = *h > 1 ? *h >> 1 : 1;
}

typedef struct colour_index {
    uint32_t rgba; /* packed R G B A, big-endian order */
    uint32_t index;
} colour_index;

static int by_colour(const void *a, const void *b)
{
    const colour_index *x = a, *y = b;
    if (x->rgba != y->rgba) return x->rgba < y->rgba ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static inline uint32_t pack(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The indices of n texels (rgba) in a palette of np decoded colours: the
 * first entry of each colour, or np (past the palette: transparent black)
 * for transparent black when no entry has it and the format can index it. */
static int palette_indices(const ga_model *m, uint32_t tex, const colour_index *sorted, uint32_t np, uint32_t limit,
                           const uint8_t *rgba, size_t n, uint16_t *index, ga_error *err)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t c = pack(rgba + 4 * i), lo = 0, hi = np;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (sorted[mid].rgba < c)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < np && sorted[lo].rgba == c)
            index[i] = (uint16_t)sorted[lo].index;
        else if (c == 0 && np < limit)
            index[i] = (uint16_t)np;
        else /* cannot happen for texels decoded from this palette */
            return ga_fail(err, GA_ERR_FORMAT, m->format, "TEX1 palette", -1,
                           "texture %u has a texel colour its palette does not hold", tex);
    }
    return GA_OK;
}

/* Texture i encoded again: *image (mip bytes) and, for an indexed format
 * with a palette, *palette (count * 2 bytes). */
static int encode_texture(const ga_model *m, uint32_t i, const ga_texture *t, const uint8_t *stored,
                          const uint8_t *stored_palette, uint32_t levels, size_t bytes, uint8_t **image,
                          uint8_t **palette, ga_error *err)
{
    size_t texels = 0;
    uint32_t w = t->width, h = t->height;
    for (uint32_t l = 0; l < levels; l++, halve(&w, &h)) texels += (size_t)w * h;
    uint8_t *rgba = malloc(texels * 4);
    int indexed = ga_gx_is_indexed(t->format);
    uint32_t np = indexed ? t->palette_count : 0;
    uint16_t *index = indexed ? malloc(texels * sizeof *index) : NULL;
    colour_index *sorted = np ? malloc((size_t)np * sizeof *sorted) : NULL;
    uint8_t *pal_rgba = np ? malloc((size_t)np * 4) : NULL;
    *image = malloc(bytes);
    *palette = np ? malloc((size_t)np * 2) : NULL;
    int rc = GA_OK;
    if (!rgba || (indexed && !index) || (np && (!sorted || !pal_rgba || !*palette)) || !*image) {
        rc = ga_nomem(err, m->format);
        goto done;
    }
    /* the decoded levels: level 0 as the model decodes it, the rest from
     * the stored chain */
    memcpy(rgba, t->pixels, (size_t)t->width * t->height * 4);
    w = t->width, h = t->height;
    size_t at = 0, px = 0;
    for (uint32_t l = 0; l < levels; l++, halve(&w, &h)) {
        size_t one;
        ga_gx_image_size(t->format, w, h, &one);
        if (l)
            ga_gx_decode(t->format, stored + at, w, h, stored_palette, t->palette_count, t->palette_format,
                         rgba + px * 4);
        at += one;
        px += (size_t)w * h;
    }
    if (np) {
        ga_gx_palette_decode(t->palette_format, stored_palette, np, pal_rgba);
        ga_gx_palette_encode(t->palette_format, pal_rgba, np, *palette);
        for (uint32_t k = 0; k < np; k++) sorted[k] = (colour_index){pack(pal_rgba + 4 * k), k};
        qsort(sorted, np, sizeof *sorted, by_colour);
    }
    if (indexed) {
        uint32_t limit = t->format == GA_GX_C4 ? 16u : t->format == GA_GX_C8 ? 256u : 16384u;
        if ((rc = palette_indices(m, i, sorted, np, limit, rgba, texels, index, err))) goto done;
    }
    w = t->width, h = t->height;
    at = 0, px = 0;
    for (uint32_t l = 0; l < levels && !rc; l++, halve(&w, &h)) {
        size_t one;
        ga_gx_image_size(t->format, w, h, &one);
        if (indexed) {
            if (ga_gx_encode_indices(t->format, index + px, w, h, *image + at) < 0)
                rc = ga_fail(err, GA_ERR_FORMAT, m->format, "TEX1 palette", -1,
                             "texture %u: a palette index too wide for %s", i, ga_gx_format_name(t->format));
        } else {
            rc = ga_gx_encode(t->format, rgba + px * 4, w, h, 1, GA_GX_TLUT_RGB5A3, *image + at, NULL, err);
        }
        at += one;
        px += (size_t)w * h;
    }
done:
    free(rgba);
    free(index);
    free(sorted);
    free(pal_rgba);
    return rc;
}

static void put_header(uint8_t *p, const ga_texture *t)
{
    memset(p, 0, TEX1_HEADER);
    p[0] = t->format;
    p[1] = t->alpha;
    p[2] = (uint8_t)(t->width >> 8), p[3] = (uint8_t)t->width;
    p[4] = (uint8_t)(t->height >> 8), p[5] = (uint8_t)t->height;
    p[6] = t->wrap_s, p[7] = t->wrap_t;
    p[8] = t->has_palette, p[9] = t->palette_format;
    p[0x0A] = (uint8_t)(t->palette_count >> 8), p[0x0B] = (uint8_t)t->palette_count;
    p[0x10] = t->mipmap, p[0x11] = t->edge_lod, p[0x12] = t->bias_clamp, p[0x13] = t->max_aniso;
    p[0x14] = t->min_filter, p[0x15] = t->mag_filter;
    p[0x16] = (uint8_t)t->min_lod, p[0x17] = (uint8_t)t->max_lod;
    p[0x18] = t->mip_count, p[0x19] = t->byte_19;
    p[0x1A] = (uint8_t)((uint16_t)t->lod_bias >> 8), p[0x1B] = (uint8_t)t->lod_bias;
}

int ga_j3d_encode_tex1(const ga_model *m, ga_buf *out, ga_error *err)
{
    const char *fmt = m->format ? m->format : "bmd";
    ga_texture *t;
    uint32_t n;
    int rc = ga_model_textures(m, &t, &n, err);
    if (rc) return rc;
    const ga_model_chunk *c;
    ga_reader rd;
    uint16_t count;
    size_t headers = 0;
    if ((rc = ga_j3d_chunk_count(m, "TEX1", "TEX1 texture count", &rd, err, &c, &count))) goto fail;
    if (n && (rc = ga_j3d_table_at(&rd, c, 0x0C, "TEX1 header offset", &headers))) goto fail;
    pieces images = {calloc(n ? n : 1, sizeof(piece)), 0}, palettes = {calloc(n ? n : 1, sizeof(piece)), 0};
    long *which = malloc((size_t)(n ? n : 1) * 2 * sizeof *which); /* image, palette piece per texture */
    if (!images.p || !palettes.p || !which) {
        rc = ga_nomem(err, fmt);
        goto done;
    }
    const size_t end = c ? c->offset + c->size : 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        const uint8_t *p = m->data + headers + (size_t)i * TEX1_HEADER;
        size_t h = headers + (size_t)i * TEX1_HEADER, image_at = h + ga_get_u32be(p + 0x1C), bytes;
        uint32_t levels = t[i].mip_count ? t[i].mip_count : 1;
        ga_gx_mip_size(t[i].format, t[i].width, t[i].height, levels, &bytes);
        if (bytes > end - image_at) { /* (the decoder checked level 0) */
            rc = ga_fail(err, GA_ERR_FORMAT, fmt, "TEX1 mip levels", (long long)h + 0x18,
                         "the %u levels of texture %u (%zu bytes at 0x%zx) run past the TEX1 chunk's end", levels, i,
                         bytes, image_at);
            break;
        }
        size_t palette_at = ga_gx_is_indexed(t[i].format) && t[i].palette_count ? h + ga_get_u32be(p + 0x0C) : 0;
        uint8_t *image, *palette;
        rc = encode_texture(m, i, &t[i], m->data + image_at, palette_at ? m->data + palette_at : NULL, levels,
                            bytes, &image, &palette, err);
        if (rc) {
            free(image);
            free(palette);
            break;
        }
        which[2 * i] = add_piece(&images, image_at, image, bytes);
        which[2 * i + 1] = palette ? add_piece(&palettes, palette_at, palette, (size_t)t[i].palette_count * 2) : -1;
    }
    if (rc) goto done;
    size_t start = ga_j3d_chunk_begin(out, "TEX1");
    ga_buf_u16be(out, (uint16_t)n);
    ga_buf_u16be(out, 0xFFFF);
    ga_buf_u32be(out, TEX1_HEADER);
    ga_buf_u32be(out, 0); /* the name table offset, set below */
    ga_j3d_pad(out, start, TEX1_HEADER);
    size_t hdr = out->len;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t p[TEX1_HEADER];
        put_header(p, &t[i]);
        ga_buf_put(out, p, TEX1_HEADER);
    }
    for (uint32_t i = 0; i < n; i++) { /* palettes, in texture order */
        size_t rel = TEX1_HEADER + (size_t)i * TEX1_HEADER;
        if (which[2 * i + 1] >= 0) {
            piece *pc = &palettes.p[which[2 * i + 1]];
            if (!pc->at) {
                ga_j3d_pad_zero(out, start, 32);
                pc->at = out->len - start;
                ga_buf_put(out, pc->bytes, pc->len);
            }
            if (!out->failed) ga_buf_set_u32be(out, hdr + rel - TEX1_HEADER + 0x0C, (uint32_t)(pc->at - rel));
        } else if (!out->failed) {
            ga_buf_set_u32be(out, hdr + rel - TEX1_HEADER + 0x0C, (uint32_t)(out->len - start - rel));
        }
    }
    for (uint32_t i = 0; i < n; i++) { /* images, in texture order */
        size_t rel = TEX1_HEADER + (size_t)i * TEX1_HEADER;
        piece *pc = &images.p[which[2 * i]];
        if (!pc->at) {
            ga_j3d_pad_zero(out, start, 32);
            pc->at = out->len - start;
            ga_buf_put(out, pc->bytes, pc->len);
        }
        if (!out->failed) ga_buf_set_u32be(out, hdr + rel - TEX1_HEADER + 0x1C, (uint32_t)(pc->at - rel));
    }
    int named = 0;
    for (uint32_t i = 0; i < n; i++) named |= t[i].name != NULL;
    if (named) {
        const char **names = malloc((size_t)n * sizeof *names);
        if (!names) {
            rc = ga_nomem(err, fmt);
            goto done;
        }
        for (uint32_t i = 0; i < n; i++) names[i] = t[i].name;
        size_t at = out->len - start;
        rc = ga_j3d_put_names(out, names, n, fmt, err);
        free(names);
        if (rc) goto done;
        if (!out->failed) ga_buf_set_u32be(out, start + 0x10, (uint32_t)at);
    }
    if (out->len - start > UINT32_MAX) {
        rc = ga_fail(err, GA_ERR_LIMIT, fmt, "TEX1", -1, "the TEX1 chunk would exceed 4 GiB");
        goto done;
    }
    if (ga_j3d_chunk_end(out, start) != GA_OK) rc = ga_nomem(err, fmt);
done:
    for (uint32_t i = 0; i < images.n; i++) free(images.p[i].bytes);
    for (uint32_t i = 0; i < palettes.n; i++) free(palettes.p[i].bytes);
    free(images.p);
    free(palettes.p);
    free(which);
fail:
    ga_textures_free(t, n);
    return rc;
}
