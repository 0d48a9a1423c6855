/* J3D TEX1 (textures, decoded to RGBA8 through gx_texture.c) and MAT3
 * (materials: the parts an importer's material graph needs) of a loaded
 * ga_model (model.h).  Layouts: ../shared/formats/j3d_meshes.md sections 6
 * and 7; the API: docs/meshes.md. */
#include "gx_texture.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>

#define TEX1_HEADER 0x20
#define MAT3_ENTRY 0x14C

/* Name i of a JUTNameTab at `at` (NULL name when the table has fewer). */
static int name_at(const ga_reader *r, size_t at, uint32_t i, const char *field, char **name)
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
static int names_table(const ga_reader *r, const ga_model_chunk *c, size_t field_at, const char *field, size_t *at)
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

/* Reads header i into t and checks its image (and palette) lie inside the
 * chunk; *image and *palette get their file offsets. */
static int tex1_header(const ga_reader *r, const ga_model_chunk *c, size_t h, ga_texture *t, size_t *image,
                       size_t *palette)
{
    int rc = ga_need(r, h, TEX1_HEADER, "TEX1 texture header");
    if (rc) return rc;
    const uint8_t *p = r->data + h;
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
    if ((rc = names_table(&r, c, 0x10, "TEX1 name table offset", &names))) return rc;
    if ((rc = ga_need(&r, headers, (size_t)count * TEX1_HEADER, "TEX1 texture headers"))) return rc;
    ga_texture *t = calloc(count, sizeof *t);
    size_t *image = malloc((size_t)count * 2 * sizeof *image);
    if (!t || !image) {
        free(t);
        free(image);
        return ga_nomem(err, m->format);
    }
    uint64_t texels = 0;
    for (uint32_t i = 0; i < count && !rc; i++) {
        rc = tex1_header(&r, c, headers + (size_t)i * TEX1_HEADER, &t[i], &image[2 * i], &image[2 * i + 1]);
        texels += (uint64_t)t[i].width * t[i].height;
    }
    /* every header decodes its own copy (several may share one image) */
    if (!rc) rc = ga_check_decoded(&m->opts, m->size, texels, 4, "texels", m->format, "TEX1 textures",
                                   (long long)headers, err);
    for (uint32_t i = 0; i < count && !rc; i++) {
        if (names && (rc = name_at(&r, names, i, "TEX1 texture name", &t[i].name))) break;
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

/* ------------------------------------------------------------------ */
/* MAT3                                                                 */

void ga_materials_free(ga_material *mats, uint32_t n)
{
    if (!mats) return;
    for (uint32_t i = 0; i < n; i++) free(mats[i].name);
    free(mats);
}

typedef struct mat3_ctx {
    const ga_reader *r;
    const ga_model_chunk *c;
} mat3_ctx;

/* Item `index` (of `item` bytes) of the MAT3 table whose offset is stored at
 * header field `table`: *at = its file offset, 0 when index is the unused
 * marker (0xFFFF, or 0xFF for the u8 indices).  `from` is where the index
 * was read (for the error). */
static int mat3_item(const mat3_ctx *x, uint32_t index, uint32_t unused, size_t table, size_t item, const char *field,
                     size_t from, size_t *at)
{
    *at = 0;
    if (index == unused) return GA_OK;
    const ga_reader *r = x->r;
    uint32_t rel;
    int rc = ga_rd_u32be(r, x->c->offset + table, field, &rel);
    if (rc) return rc;
    size_t end = x->c->offset + x->c->size;
    size_t base = x->c->offset + rel;
    if (rel == 0 || rel >= x->c->size || (uint64_t)index * item + item > end - base)
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, field, (long long)from,
                       "index %u into the table at MAT3 + 0x%x (%zu-byte items) lies outside the MAT3 chunk", index,
                       rel, item);
    *at = base + (size_t)index * item;
    return GA_OK;
}

static int mat3_entry(const mat3_ctx *x, size_t e, ga_material *mt)
{
    const ga_reader *r = x->r;
    const uint8_t *d = r->data;
    size_t at;
    int rc;
    mt->mode = d[e];
#define U8IDX(off) ((uint32_t)d[e + (off)])
#define U16IDX(off) ((uint32_t)ga_get_u16be(d + e + (off)))
    if ((rc = mat3_item(x, U8IDX(0x01), 0xFF, 0x1C, 4, "MAT3 cull mode index", e + 1, &at))) return rc;
    mt->cull_mode = at ? (int32_t)ga_get_u32be(d + at) : -1;
    if ((rc = mat3_item(x, U8IDX(0x02), 0xFF, 0x24, 1, "MAT3 channel count index", e + 2, &at))) return rc;
    mt->nchannels = at ? d[at] : 0;
    if ((rc = mat3_item(x, U8IDX(0x03), 0xFF, 0x34, 1, "MAT3 texgen count index", e + 3, &at))) return rc;
    mt->ntexgens = at ? d[at] : 0;
    if ((rc = mat3_item(x, U8IDX(0x04), 0xFF, 0x58, 1, "MAT3 TEV stage count index", e + 4, &at))) return rc;
    uint32_t nst = at ? d[at] : 0;
    mt->nstages = (uint8_t)(nst > GA_MAT_STAGES ? GA_MAT_STAGES : nst);
    if ((rc = mat3_item(x, U8IDX(0x06), 0xFF, 0x74, 4, "MAT3 z mode index", e + 6, &at))) return rc;
    if ((mt->has_z_mode = at != 0)) memcpy(mt->z_mode, d + at, 3);
    for (int k = 0; k < 2; k++) {
        if ((rc = mat3_item(x, U16IDX(0x08 + 2 * k), 0xFFFF, 0x20, 4, "MAT3 material colour index", e + 8 + 2 * k,
                            &at)))
            return rc;
        if ((mt->has_color[k] = at != 0)) memcpy(mt->color[k], d + at, 4);
        if ((rc = mat3_item(x, U16IDX(0x14 + 2 * k), 0xFFFF, 0x2C, 4, "MAT3 ambient colour index",
                            e + 0x14 + 2 * k, &at)))
            return rc;
        if ((mt->has_ambient[k] = at != 0)) memcpy(mt->ambient[k], d + at, 4);
    }
    for (int k = 0; k < 4; k++) {
        if ((rc = mat3_item(x, U16IDX(0x0C + 2 * k), 0xFFFF, 0x28, 8, "MAT3 colour channel index",
                            e + 0x0C + 2 * k, &at)))
            return rc;
        if ((mt->has_channel[k] = at != 0)) memcpy(mt->channel[k], d + at, 6);
        if ((rc = mat3_item(x, U16IDX(0xDC + 2 * k), 0xFFFF, 0x50, 8, "MAT3 TEV colour index", e + 0xDC + 2 * k,
                            &at)))
            return rc;
        if ((mt->has_tev_color[k] = at != 0))
            for (int q = 0; q < 4; q++) mt->tev_color[k][q] = (int16_t)ga_get_u16be(d + at + 2 * q);
        if ((rc = mat3_item(x, U16IDX(0x94 + 2 * k), 0xFFFF, 0x54, 4, "MAT3 konst colour index", e + 0x94 + 2 * k,
                            &at)))
            return rc;
        if ((mt->has_konst[k] = at != 0)) memcpy(mt->konst[k], d + at, 4);
    }
    for (int k = 0; k < 8; k++) {
        if ((rc = mat3_item(x, U16IDX(0x28 + 2 * k), 0xFFFF, 0x38, 4, "MAT3 texgen index", e + 0x28 + 2 * k, &at)))
            return rc;
        if ((mt->has_texgen[k] = at != 0)) memcpy(mt->texgen[k], d + at, 3);
        if ((rc = mat3_item(x, U16IDX(0x84 + 2 * k), 0xFFFF, 0x48, 2, "MAT3 texture slot index", e + 0x84 + 2 * k,
                            &at)))
            return rc;
        mt->textures[k] = at ? (int32_t)ga_get_u16be(d + at) : -1;
        if (mt->textures[k] == 0xFFFF) mt->textures[k] = -1;
    }
    for (uint32_t s = 0; s < mt->nstages; s++) {
        if ((rc = mat3_item(x, U16IDX(0xBC + 2 * s), 0xFFFF, 0x4C, 4, "MAT3 TEV order index", e + 0xBC + 2 * s,
                            &at)))
            return rc;
        mt->stage_texcoord[s] = at ? d[at] : 0xFF;
        mt->stage_texmap[s] = at ? d[at + 1] : 0xFF;
        mt->stage_channel[s] = at ? d[at + 2] : 0xFF;
        uint8_t map = mt->stage_texmap[s];
        mt->stage_texture[s] = map < 8 ? mt->textures[map] : -1;
    }
    if ((rc = mat3_item(x, U16IDX(0x146), 0xFFFF, 0x6C, 8, "MAT3 alpha compare index", e + 0x146, &at))) return rc;
    if ((mt->has_alpha_compare = at != 0)) memcpy(mt->alpha_compare, d + at, 5);
    if ((rc = mat3_item(x, U16IDX(0x148), 0xFFFF, 0x70, 4, "MAT3 blend mode index", e + 0x148, &at))) return rc;
    if ((mt->has_blend = at != 0)) memcpy(mt->blend, d + at, 4);
#undef U8IDX
#undef U16IDX
    return GA_OK;
}

int ga_model_materials(const ga_model *m, ga_material **out, uint32_t *n, ga_error *err)
{
    *out = NULL;
    *n = 0;
    const ga_model_chunk *c;
    ga_reader r;
    uint16_t count;
    int rc = ga_j3d_chunk_count(m, "MAT3", "MAT3 material count", &r, err, &c, &count);
    if (rc || count == 0) return rc;
    if ((rc = ga_need(&r, c->offset, 0x84, "MAT3 header"))) return rc;
    size_t entries, remap, names;
    if ((rc = ga_j3d_table_at(&r, c, 0x0C, "MAT3 entry table offset", &entries))) return rc;
    if ((rc = ga_j3d_table_at(&r, c, 0x10, "MAT3 remap table offset", &remap))) return rc;
    if ((rc = names_table(&r, c, 0x14, "MAT3 name table offset", &names))) return rc;
    if ((rc = ga_need(&r, remap, (size_t)count * 2, "MAT3 remap table"))) return rc;
    ga_material *mats = calloc(count, sizeof *mats);
    if (!mats) return ga_nomem(err, m->format);
    mat3_ctx x = {&r, c};
    for (uint32_t i = 0; i < count && !rc; i++) {
        ga_material *mt = &mats[i];
        mt->entry = ga_get_u16be(r.data + remap + 2 * (size_t)i);
        size_t e = entries + (size_t)mt->entry * MAT3_ENTRY;
        if (e + MAT3_ENTRY > c->offset + c->size) {
            rc = ga_fail(err, GA_ERR_FORMAT, m->format, "MAT3 remap table", (long long)(remap + 2 * (size_t)i),
                         "material %u uses entry %u, past the MAT3 chunk's end", i, mt->entry);
            break;
        }
        if ((rc = mat3_entry(&x, e, mt))) break;
        if (names) rc = name_at(&r, names, i, "MAT3 material name", &mt->name);
    }
    if (rc) {
        ga_materials_free(mats, count);
        return rc;
    }
    *out = mats;
    *n = count;
    return GA_OK;
}
