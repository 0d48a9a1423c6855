/* J3D TEX1 (textures, decoded to RGBA8 through gx_texture.c) of a loaded
 * ga_model (model.h), and the name tables J3D chunks share.  Layouts:
 * ../shared/formats/j3d_meshes.md section 7; the API: docs/meshes.md. */
#include "j3d_textures.h"

#include "gx_texture.h"

#include <stdlib.h>
#include <string.h>

/* Name i of a JUTNameTab at `at` (NULL name when the table has fewer). */
int ga_j3d_name_at(const ga_reader *r, size_t at, uint32_t i, const char *field, char **name)
{
    size_t len;
    uint16_t count;
    int rc = ga_rd_u16be(r, at, field, &count);
    if (rc || i >= count) return rc;
    uint16_t off;
    if ((rc = ga_rd_u16be(r, at + 4 + 4 * (size_t)i + 2, field, &off))) return rc;
    return ga_model_read_name(r, at + off, field, name, &len);
}

/* The name table of a chunk whose offset field may be 0 (no names). */
int ga_j3d_names_table(const ga_reader *r, const ga_model_chunk *c, size_t field_at, const char *field, size_t *at)
{
    uint32_t rel;
    int rc = ga_rd_u32be(r, c->offset + field_at, field, &rel);
    *at = 0;
    if (rc || rel == 0) return rc;
    return ga_j3d_table_at(r, c, field_at, field, at);
}

/* ------------------------------------------------------------------ */
/* TEX1                                                                 */

void ga_textures_free(ga_texture *t, uint32_t n)
{
    if (!t) return;
    for (uint32_t i = 0; i < n; i++) {
        free(t[i].name);
        free(t[i].pixels);
    }
    free(t);
}

int ga_j3d_tex1_table(const uint8_t *d, size_t size, uint32_t *count, uint32_t *at, size_t *fit)
{
    *count = 0, *at = 0, *fit = 0;
    if (size < 0x10) return 0;
    *count = ga_get_u16be(d + 8);
    *at = ga_get_u32be(d + 0x0C);
    *fit = *at > size ? 0 : (size - *at) / GA_TEX1_HEADER;
    return 1;
}

const uint8_t *ga_j3d_tex1_header_at(const uint8_t *d, size_t size, uint32_t i)
{
    uint32_t count, at;
    size_t fit;
    ga_j3d_tex1_table(d, size, &count, &at, &fit);
    return i < fit ? d + at + (size_t)GA_TEX1_HEADER * i : NULL;
}

void ga_j3d_tex1_fields(const uint8_t *p, ga_texture *t)
{
    t->format = p[0];
    t->alpha = p[1];
    t->width = ga_get_u16be(p + 2);
    t->height = ga_get_u16be(p + 4);
    t->wrap_s = p[6];
    t->wrap_t = p[7];
    t->has_palette = p[8];
    t->palette_format = p[9];
    t->palette_count = ga_get_u16be(p + 0x0A);
    t->min_filter = p[0x14];
    t->mag_filter = p[0x15];
    t->min_lod = (int8_t)p[0x16];
    t->max_lod = (int8_t)p[0x17];
    t->mip_count = p[0x18];
    t->lod_bias = (int16_t)ga_get_u16be(p + 0x1A);
    t->mipmap = p[0x10];
    t->edge_lod = p[0x11];
    t->bias_clamp = p[0x12];
    t->max_aniso = p[0x13];
    t->byte_19 = p[0x19];
}

/* Reads header i into t and checks its image (and palette) lie inside the
 * chunk; *image and *palette get their file offsets. */
static int tex1_header(const ga_reader *r, const ga_model_chunk *c, size_t h, ga_texture *t, size_t *image,
                       size_t *palette)
{
    int rc = ga_need(r, h, GA_TEX1_HEADER, "TEX1 texture header");
    if (rc) return rc;
    const uint8_t *p = r->data + h;
    ga_j3d_tex1_fields(p, t);
    if (!ga_gx_format_name(t->format))
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "TEX1 format", (long long)h,
                       "texture format %u is not a GX texture format (I4 0, I8 1, IA4 2, IA8 3, RGB565 4, RGB5A3 5, "
                       "RGBA8 6, C4 8, C8 9, C14X2 10, CMPR 14)", t->format);
    if (t->width == 0 || t->height == 0 || t->width > GA_GX_MAX_SIDE || t->height > GA_GX_MAX_SIDE)
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "TEX1 size", (long long)h + 2,
                       "a %ux%u texture (the GX takes 1 to %u texels a side)", t->width, t->height, GA_GX_MAX_SIDE);
    if (t->wrap_s > 2 || t->wrap_t > 2)
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "TEX1 wrap mode", (long long)h + 6,
                       "wrap modes %u, %u (0 clamp, 1 repeat, 2 mirror)", t->wrap_s, t->wrap_t);
    size_t end = c->offset + c->size, bytes;
    ga_gx_image_size(t->format, t->width, t->height, &bytes);
    uint32_t rel = ga_get_u32be(p + 0x1C);
    if (rel > end - h || bytes > end - h - rel)
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "TEX1 image data offset", (long long)h + 0x1C,
                       "a %ux%u %s image (%zu bytes) at header + 0x%x runs past the TEX1 chunk's end", t->width,
                       t->height, ga_gx_format_name(t->format), bytes, rel);
    *image = h + rel;
    *palette = 0;
    if (ga_gx_is_indexed(t->format)) {
        if (t->palette_format > 2)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "TEX1 palette format", (long long)h + 9,
                           "palette format %u is not 0 (IA8), 1 (RGB565) or 2 (RGB5A3)", t->palette_format);
        uint32_t prel = ga_get_u32be(p + 0x0C);
        size_t pbytes = (size_t)t->palette_count * 2;
        if (prel > end - h || pbytes > end - h - prel)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "TEX1 palette offset", (long long)h + 0x0C,
                           "a palette of %u entries at header + 0x%x runs past the TEX1 chunk's end",
                           t->palette_count, prel);
        *palette = h + prel;
    }
    return GA_OK;
}

int ga_model_textures(const ga_model *m, ga_texture **out, uint32_t *n, ga_error *err)
{
    *out = NULL;
    *n = 0;
    const ga_model_chunk *c;
    ga_reader r;
    uint16_t count;
    int rc = ga_j3d_chunk_count(m, "TEX1", "TEX1 texture count", &r, err, &c, &count);
    if (rc || count == 0) return rc;
    size_t headers, names;
    if ((rc = ga_j3d_table_at(&r, c, 0x0C, "TEX1 header offset", &headers))) return rc;
    if ((rc = ga_j3d_names_table(&r, c, 0x10, "TEX1 name table offset", &names))) return rc;
    if ((rc = ga_need(&r, headers, (size_t)count * GA_TEX1_HEADER, "TEX1 texture headers"))) return rc;
    if ((size_t)count * GA_TEX1_HEADER > c->offset + c->size - headers)
        return ga_fail(err, GA_ERR_FORMAT, m->format, "TEX1 texture headers", (long long)headers,
                       "%u texture headers (0x20 bytes each) run past the TEX1 chunk's end", count);
    ga_texture *t = calloc(count, sizeof *t);
    size_t *image = malloc((size_t)count * 2 * sizeof *image);
    if (!t || !image) {
        free(t);
        free(image);
        return ga_nomem(err, m->format);
    }
    uint64_t texels = 0;
    for (uint32_t i = 0; i < count && !rc; i++) {
        rc = tex1_header(&r, c, headers + (size_t)i * GA_TEX1_HEADER, &t[i], &image[2 * i], &image[2 * i + 1]);
        texels += (uint64_t)t[i].width * t[i].height;
    }
    /* every header decodes its own copy (several may share one image) */
    if (!rc) rc = ga_check_decoded(&m->opts, m->size, texels, 4, "texels", m->format, "TEX1 textures",
                                   (long long)headers, err);
    for (uint32_t i = 0; i < count && !rc; i++) {
        if (names && (rc = ga_j3d_name_at(&r, names, i, "TEX1 texture name", &t[i].name))) break;
        t[i].pixels = malloc((size_t)t[i].width * t[i].height * 4);
        if (!t[i].pixels) {
            rc = ga_nomem(err, m->format);
            break;
        }
        ga_gx_decode(t[i].format, m->data + image[2 * i], t[i].width, t[i].height,
                     image[2 * i + 1] ? m->data + image[2 * i + 1] : NULL, t[i].palette_count, t[i].palette_format,
                     t[i].pixels);
    }
    free(image);
    if (rc) {
        ga_textures_free(t, count);
        return rc;
    }
    *out = t;
    *n = count;
    return GA_OK;
}
