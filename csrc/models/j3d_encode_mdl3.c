/* MDL3 encoded from MAT3 and TEX1 (j3d_mdl3.h).  Register layouts: the GX
 * BP / XF registers as J3D's J3DGD* functions and the GX library write
 * them (tww J3DGD.cpp, J3DTevs.cpp loadTexNo / loadTexCoordGens); the
 * sub-block order is J3DMaterial::makeDisplayList_private's, the command
 * sequence inside a block j3dview's (mdl3.py), which mirrors Nintendo's
 * files.  Choices where the references leave a point open are listed in
 * docs/model_writer.md "MDL3". */
#include "j3d_mdl3.h"
#include "j3d_textures.h"
#include "j3d_writer.h"
#include "jut_names.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct enc {
    ga_buf *b;
    size_t dl;        /* the current list's start */
    const ga_texture *tex;
    uint32_t ntex;
} enc;

static void bp(enc *e, uint32_t reg, uint32_t value)
{
    ga_buf_u8(e->b, GA_GX_LOAD_BP);
    ga_buf_u32be(e->b, reg << 24 | (value & 0xFFFFFF));
}

static void bp_mask(enc *e, uint32_t mask)
{
    bp(e, 0xFE, mask);
}

static void xf_head(enc *e, uint32_t addr, uint32_t n)
{
    ga_buf_u8(e->b, GA_GX_LOAD_XF);
    ga_buf_u16be(e->b, (uint16_t)(n - 1));
    ga_buf_u16be(e->b, (uint16_t)addr);
}

static uint32_t rgba(const uint8_t c[4])
{
    return (uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3];
}

static uint16_t here(const enc *e)
{
    return (uint16_t)(e->b->len - e->dl);
}

/* ------------------------------------------------------------------ */
/* TEX1 headers                                                        */

static int read_textures(const ga_model *m, ga_texture **out, uint32_t *n, ga_error *err)
{
    const char *fmt = m->format ? m->format : "bdl";
    *out = NULL;
    *n = 0;
    long ci = ga_j3d_find_chunk(m, "TEX1");
    if (ci < 0) return GA_OK;
    const ga_model_chunk *c = &m->chunks[ci];
    const uint8_t *d = m->data + c->offset;
    uint32_t count, at;
    size_t fit;
    if (!ga_j3d_tex1_table(d, c->size, &count, &at, &fit))
        return ga_fail(err, GA_ERR_FORMAT, fmt, "TEX1 header", (long long)c->offset, "the chunk is %zu bytes",
                       (size_t)c->size);
    if (fit < count)
        return ga_fail(err, GA_ERR_FORMAT, fmt, "TEX1 header table", (long long)(c->offset + 0x0C),
                       "%u texture headers at 0x%x overrun the chunk", count, at);
    ga_texture *t = calloc(count ? count : 1, sizeof *t);
    if (!t) return ga_nomem(err, fmt);
    for (uint32_t i = 0; i < count; i++) {
        ga_texture *x = &t[i];
        /* the sampler fields J3D's loadTexNo passes to the GX, besides the size */
        ga_j3d_tex1_fields(d + at + (size_t)GA_TEX1_HEADER * i, x);
        if (x->width == 0 || x->height == 0 || x->width > 1024 || x->height > 1024 || x->wrap_s > 2 ||
            x->wrap_t > 2 || x->min_filter > 5 || x->mag_filter > 5 || x->palette_format > 2 || x->max_aniso > 2) {
            int rc = ga_fail(err, GA_ERR_FORMAT, fmt, "TEX1 texture header",
                             (long long)(c->offset + at + (size_t)GA_TEX1_HEADER * i),
                             "texture %u: size %ux%u, wrap %u/%u, filters %u/%u, palette format %u or anisotropy "
                             "%u is outside what GX takes",
                             i, x->width, x->height, x->wrap_s, x->wrap_t, x->min_filter, x->mag_filter,
                             x->palette_format, x->max_aniso);
            free(t); /* (after the message: x points into t) */
            return rc;
        }
    }
    *out = t;
    *n = count;
    return GA_OK;
}

/* ------------------------------------------------------------------ */
/* Texture sub-block                                                   */

static const uint8_t min_filter_hw[6] = {0, 4, 1, 5, 2, 6}; /* GX_NEAR.. -> the register's code */

static uint32_t lod_byte(double lod)
{
    if (lod < 0) lod = 0;
    if (lod > 10) lod = 10;
    return (uint32_t)(lod * 16.0) & 0xFF;
}

/* The texture groups of the texNo walk (fact 9): image pointer (the TEX1
 * index), image attributes, lookup mode and LOD, and the TLUT loads. */
static void texture_group(enc *e, uint32_t map, uint32_t index, const ga_texture *t)
{
    uint32_t r = map < 4 ? map : map - 4 + 0x20; /* maps 4-7 sit 0x20 higher */
    bp(e, 0x94 + r, index);
    bp(e, 0x88 + r, (uint32_t)(t->width - 1) | (uint32_t)(t->height - 1) << 10 | (uint32_t)(t->format & 0x0F) << 20);
    double bias = t->lod_bias / 100.0;
    if (bias < -4.0) bias = -4.0;
    if (bias > 3.99) bias = 3.99;
    uint32_t mode0 = t->wrap_s | t->wrap_t << 2 | (t->mag_filter ? 1u : 0u) << 4 |
                     (uint32_t)min_filter_hw[t->min_filter] << 5 | (t->edge_lod ? 0u : 1u) << 8 |
                     ((uint32_t)(int32_t)lround(bias * 32.0) & 0xFF) << 9 | (uint32_t)t->max_aniso << 19 |
                     (t->bias_clamp ? 1u : 0u) << 21;
    bp(e, 0x80 + r, mode0);
    bp(e, 0x84 + r, lod_byte(t->min_lod / 8.0) | lod_byte(t->max_lod / 8.0) << 8);
    if (t->has_palette) {
        uint32_t tmem = (0xF0000u + (map << 13)) >> 9 & 0x3FF, size = t->palette_count > 16 ? 16 : 1;
        bp_mask(e, 0xFFFF00);
        bp(e, 0x0F, 0);
        bp(e, 0x64, 0); /* the palette's address: the game sets it (loadTexNo) */
        bp(e, 0x65, tmem | size << 10);
        bp_mask(e, 0xFFFF00);
        bp(e, 0x0F, 0);
        bp(e, 0x98 + r, tmem | (uint32_t)t->palette_format << 10);
    }
}

static uint32_t ras_channel(uint8_t c)
{
    switch (c) {
    case 0: case 2: case 4: return 0;
    case 1: case 3: case 5: return 1;
    case 6: return 5;
    case 7: return 6;
    default: return 7;
    }
}

static uint32_t tref_half(const ga_material *mt, uint32_t s)
{
    if (s >= mt->nstages) return 7u << 7; /* null order: no texture, no channel */
    uint8_t map = mt->stage_texmap[s], coord = mt->stage_texcoord[s];
    int on = map < 8;
    return (on ? map : 0u) | (on && coord < 8 ? coord : 0u) << 3 | (uint32_t)on << 6 |
           ras_channel(mt->stage_channel[s]) << 7;
}

static const ga_texture *map_texture(const enc *e, const ga_material *mt, uint32_t map)
{
    if (map >= 8 || mt->textures[map] < 0 || (uint32_t)mt->textures[map] >= e->ntex) return NULL;
    return &e->tex[mt->textures[map]];
}

static void coord_scale(enc *e, uint32_t coord, const ga_texture *t)
{
    bp_mask(e, 0x03FFFF);
    bp(e, 0x30 + 2 * coord, t ? t->width - 1u : 0u);
    bp(e, 0x31 + 2 * coord, t ? t->height - 1u : 0u);
}

static void texture_block(enc *e, const ga_material *mt)
{
    for (uint32_t k = 0; k < 8; k++)
        if (mt->textures[k] >= 0) texture_group(e, k, (uint32_t)mt->textures[k], &e->tex[mt->textures[k]]);
    for (uint32_t s = 0; s < mt->nstages; s += 2) {
        bp(e, 0x28 + s / 2, tref_half(mt, s) | tref_half(mt, s + 1) << 12);
        for (uint32_t q = s; q < s + 2; q++) {
            int on = q < mt->nstages && mt->stage_texmap[q] < 8 && mt->stage_texcoord[q] < 8;
            coord_scale(e, on ? mt->stage_texcoord[q] : 7u, on ? map_texture(e, mt, mt->stage_texmap[q]) : NULL);
        }
    }
}

/* ------------------------------------------------------------------ */
/* TEV sub-block                                                       */

static uint32_t pair(int x, int y, int konst)
{
    return ((uint32_t)x & 0x7FF) | ((uint32_t)y & 0x7FF) << 12 | (konst ? 0x800000u : 0u);
}

/* The op fields of a combiner: bias, op, clamp, scale, dest (bits 16-23);
 * compares store bias 3 and the compare kind in op / scale. */
static uint32_t tev_op(const ga_tev_op *o)
{
    uint32_t bias = o->bias, sub = o->op & 1, scale = o->scale;
    if (o->op >= 8) bias = 3, scale = (o->op >> 1) & 3;
    return bias << 16 | sub << 18 | (o->clamp ? 1u : 0u) << 19 | scale << 20 | (uint32_t)(o->out & 3) << 22;
}

static uint32_t ind_cmd(const ga_material *mt, uint32_t s)
{
    if (!mt->has_indirect) return 0;
    const uint8_t *t = mt->indirect.stage[s]; /* stage, format, bias, matrix, wrap s, wrap t, add prev, utc lod, alpha */
    return (t[0] & 3u) | (t[1] & 3u) << 2 | (t[2] & 7u) << 4 | (t[8] & 3u) << 7 | (t[3] & 15u) << 9 |
           (t[4] & 7u) << 13 | (t[5] & 7u) << 16 | (t[7] & 1u) << 19 | (t[6] & 1u) << 20;
}

static void indirect_block(enc *e, const ga_material *mt)
{
    const ga_indirect *n = &mt->indirect;
    uint32_t ns = n->nstages > 4 ? 4 : n->nstages;
    for (uint32_t i = 0; i < ns && i < 3; i++) {
        uint32_t s = (uint32_t)(n->exponent[i] + 17);
        for (uint32_t c = 0; c < 3; c++) {
            uint32_t a = (uint32_t)(int32_t)lroundf(n->matrix[i][c] * 1024.0f) & 0x7FF;
            uint32_t b = (uint32_t)(int32_t)lroundf(n->matrix[i][3 + c] * 1024.0f) & 0x7FF;
            bp(e, 0x06 + 3 * i + c, a | b << 11 | ((s >> (2 * c)) & 3) << 22);
        }
    }
    for (uint32_t i = 0; i < ns; i += 2) {
        uint32_t v = 0;
        for (uint32_t q = i; q < i + 2 && q < 4; q++)
            v |= ((n->scale[q][0] & 15u) | (n->scale[q][1] & 15u) << 4) << (8 * (q - i));
        bp(e, 0x25 + i / 2, v);
    }
    uint32_t iref = 0xFFFFFF, imask = 0;
    for (uint32_t i = 0; i < ns; i++) {
        uint8_t coord = n->order[i][0], map = n->order[i][1];
        const ga_texture *t = map_texture(e, mt, map);
        coord_scale(e, coord & 7u, t);
        iref &= ~(0x3Fu << (6 * i));
        iref |= ((map & 7u) | (coord & 7u) << 3) << (6 * i);
        if (map < 8) imask |= 1u << map;
    }
    for (uint32_t i = ns; i < 4; i++) { /* registers 0x2E / 0x2F: stage -1's, as Nintendo writes them */
        bp_mask(e, 0x03FFFF);
        bp(e, 0x2E, 0);
        bp(e, 0x2F, 0);
    }
    bp(e, 0x27, iref);
    bp(e, 0x0F, imask);
}

static void tev_block(enc *e, const ga_material *mt, uint16_t *tev_at)
{
    *tev_at = here(e);
    for (uint32_t s = 0; s < 3; s++) { /* C0-C2 from slots 0-2; BG three times (GX's register delay) */
        const int16_t *c = mt->tev_color[s];
        bp(e, 0xE2 + 2 * s, pair(c[0], c[3], 0));
        for (int k = 0; k < 3; k++) bp(e, 0xE3 + 2 * s, pair(c[2], c[1], 0));
    }
    for (uint32_t k = 0; k < 4; k++) {
        const uint8_t *c = mt->konst[k];
        bp(e, 0xE0 + 2 * k, pair(c[0], c[3], 1));
        bp(e, 0xE1 + 2 * k, pair(c[2], c[1], 1));
    }
    for (uint32_t s = 0; s < mt->nstages; s++) {
        const ga_tev_stage *st = &mt->tev.stages[s];
        const ga_tev_op *c = &st->color, *a = &st->alpha;
        bp(e, 0xC0 + 2 * s, (c->d & 15u) | (c->c & 15u) << 4 | (c->b & 15u) << 8 | (c->a & 15u) << 12 | tev_op(c));
        bp(e, 0xC1 + 2 * s, (st->ras_swap & 3u) | (st->tex_swap & 3u) << 2 | (a->d & 7u) << 4 | (a->c & 7u) << 7 |
                                (a->b & 7u) << 10 | (a->a & 7u) << 13 | tev_op(a));
        bp(e, 0x10 + s, ind_cmd(mt, s));
    }
    for (uint32_t j = 0; j < 8; j++) {
        const uint8_t *sw = mt->tev.swap[j / 2];
        uint32_t v = (j & 1) ? ((sw[2] & 3u) | (sw[3] & 3u) << 2) : ((sw[0] & 3u) | (sw[1] & 3u) << 2);
        for (uint32_t q = 0; q < 2; q++) {
            uint32_t s = 2 * j + q;
            uint32_t kc = s < mt->nstages ? mt->tev.stages[s].konst_color : 0x0C;
            uint32_t ka = s < mt->nstages ? mt->tev.stages[s].konst_alpha : 0x1C;
            v |= ((kc & 31u) | (ka & 31u) << 5) << (4 + 10 * q);
        }
        bp(e, 0xF6 + j, v);
    }
    if (mt->has_indirect) indirect_block(e, mt);
}

/* ------------------------------------------------------------------ */
/* PE sub-block                                                        */

/* A float in the fog registers' 20 bits: 11 of mantissa, 8 of exponent, sign. */
static uint32_t fog_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (u >> 12 & 0x7FF) | (u >> 23 & 0xFF) << 11 | (u >> 31) << 19;
}

static void fog_block(enc *e, const ga_material *mt)
{
    const ga_fog *f = &mt->fog;
    uint32_t proj = (f->type >> 3) & 1;
    double a, b = 0.5, c;
    double near_z = f->near_z, far_z = f->far_z, start = f->start_z, end = f->end_z;
    if (far_z == near_z || end == start) {
        a = 0, c = 0;
    } else if (proj) {
        a = (far_z - near_z) / (end - start);
        c = (start - near_z) / (end - start);
        b = 0;
    } else {
        a = far_z * near_z / ((far_z - near_z) * (end - start));
        b = far_z / (far_z - near_z);
        c = start / (end - start);
    }
    double mag = b;
    int shift = 1;
    if (!proj) {
        for (int k = 0; k < 64 && mag > 1.0; k++) mag /= 2, shift++;
        for (int k = 0; k < 64 && mag > 0 && mag < 0.5; k++) mag *= 2, shift--;
    } else {
        mag = 0, shift = 0;
    }
    double ascaled = shift >= 0 ? a / (double)(1u << (shift > 31 ? 31 : shift)) : a * (double)(1u << (-shift > 31 ? 31 : -shift));
    bp(e, 0xEE, fog_float((float)ascaled));
    double mant = mag * 8388638.0; /* (NaN or out of range from a file's fog floats: 0 or the largest) */
    bp(e, 0xEF, !(mant > 0) ? 0 : mant >= 16777215.0 ? 0xFFFFFF : (uint32_t)mant);
    bp(e, 0xF0, (uint32_t)shift & 0x1F);
    bp(e, 0xF1, fog_float((float)c) | proj << 20 | (f->type & 7u) << 21);
    bp(e, 0xF2, (uint32_t)f->color[2] | (uint32_t)f->color[1] << 8 | (uint32_t)f->color[0] << 16);
    if (f->adjust)
        for (uint32_t k = 0; k < 5; k++)
            bp(e, 0xE9 + k, (f->adj[2 * k] & 0xFFFu) | (f->adj[2 * k + 1] & 0xFFFu) << 12);
    bp(e, 0xE8, ((f->center + 342u) & 0x3FF) | (f->adjust ? 1u : 0u) << 10);
}

static void pe_block(enc *e, const ga_material *mt, uint16_t *fog_at)
{
    *fog_at = here(e);
    fog_block(e, mt);
    const uint8_t *ac = mt->alpha_compare; /* comp0, ref0, op, comp1, ref1 */
    bp(e, 0xF3, ac[1] | (uint32_t)ac[4] << 8 | (ac[0] & 7u) << 16 | (ac[3] & 7u) << 19 | (ac[2] & 3u) << 22);
    const uint8_t *bl = mt->blend; /* type, src, dst, logic op */
    uint32_t type = bl[0];
    bp_mask(e, 0x00FFE7);
    bp(e, 0x41, (type == 1 || type == 3 ? 1u : 0u) | (type == 2 ? 2u : 0u) | (mt->dither ? 4u : 0u) |
                    (bl[2] & 7u) << 5 | (bl[1] & 7u) << 8 | (type == 3 ? 1u : 0u) << 11 | (bl[3] & 15u) << 12);
    bp(e, 0x40, (mt->z_mode[0] ? 1u : 0u) | (mt->z_mode[1] & 7u) << 1 | (mt->z_mode[2] ? 1u : 0u) << 4);
    bp_mask(e, 0x000040);
    bp(e, 0x43, (mt->z_comp_loc ? 1u : 0u) << 6);
    static const uint8_t cull_hw[4] = {0, 2, 1, 3}; /* GX_CULL_FRONT / BACK swap in the register */
    uint32_t nind = mt->has_indirect ? (mt->indirect.nstages > 4 ? 4u : mt->indirect.nstages) : 0;
    bp_mask(e, 0x07FC3F);
    bp(e, 0x00, (mt->ntexgens & 15u) | (mt->nchannels & 7u) << 4 | ((mt->nstages ? mt->nstages - 1u : 0u) & 15u) << 10 |
                    (uint32_t)cull_hw[mt->cull_mode & 3] << 14 | nind << 16);
}

/* ------------------------------------------------------------------ */
/* Texgen sub-block                                                    */

/* A texture matrix from its SRT (docs/model_writer.md "MDL3": the basic
 * form, centre-relative scale and rotation then translation; the game
 * recomputes animated and projected ones). */
static void tex_matrix(const ga_tex_matrix *t, float out[12])
{
    double r = t->rotation * (6.283185307179586 / 65536.0), cs = cos(r), sn = sin(r);
    double sx = t->scale[0], sy = t->scale[1], cx = t->center[0], cy = t->center[1];
    double m00 = sx * cs, m01 = -sy * sn, m10 = sx * sn, m11 = sy * cs;
    memset(out, 0, 12 * sizeof *out);
    out[0] = (float)m00, out[1] = (float)m01;
    out[3] = (float)(t->translation[0] + cx - (m00 * cx + m01 * cy));
    out[4] = (float)m10, out[5] = (float)m11;
    out[7] = (float)(t->translation[1] + cy - (m10 * cx + m11 * cy));
    out[10] = 1.0f;
}

static uint32_t texgen_word(const uint8_t g[3])
{
    uint32_t type = g[0], src = g[1], row, kind = 0, proj = type == 0, form = src <= 3;
    if (src <= 1) row = src;
    else if (src == 2) row = 3;
    else if (src == 3) row = 4;
    else if (src <= 11) row = src + 1; /* TEX0-7 -> rows 5-12 */
    else if (src <= 18) row = 5;      /* TEXCOORD0-6 */
    else row = 2;                     /* COLOR0 / COLOR1 */
    uint32_t emboss_src = 5, emboss_light = 0;
    if (type >= 2 && type <= 9) { /* bump */
        kind = 1, proj = 0;
        emboss_src = src >= 12 && src <= 18 ? src - 12 : 0;
        emboss_light = type - 2;
        row = 5;
    } else if (type == 10) { /* SRTG from a colour */
        kind = src == 20 ? 3 : 2, row = 2;
    }
    return proj << 1 | form << 2 | kind << 4 | row << 7 | emboss_src << 12 | emboss_light << 15;
}

static void texgen_block(enc *e, const ga_material *mt, uint16_t *mtx_at, uint32_t words[2])
{
    *mtx_at = here(e);
    uint32_t n = mt->ntexgens > 8 ? 8 : mt->ntexgens, used = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t mtx = mt->texgen[k][2];
        uint32_t idx = (mtx - 30) / 3;
        if (mtx >= 30 && mtx < 60 && (mtx - 30) % 3 == 0 && idx < 8 && mt->has_tex_matrix[idx]) used |= 1u << idx;
    }
    for (uint32_t i = 0; i < 8; i++) {
        if (!(used & (1u << i))) continue;
        float v[12];
        tex_matrix(&mt->tex_matrix[i], v);
        uint32_t rows = mt->tex_matrix[i].projection == 1 ? 2 : 3;
        xf_head(e, 0x78 + 12 * i, 4 * rows);
        for (uint32_t q = 0; q < 4 * rows; q++) ga_buf_f32be(e->b, v[q]);
    }
    if (n) {
        xf_head(e, 0x1040, n);
        for (uint32_t k = 0; k < n; k++) ga_buf_u32be(e->b, texgen_word(mt->texgen[k]));
        xf_head(e, 0x1050, n);
        for (uint32_t k = 0; k < n; k++) ga_buf_u32be(e->b, 61); /* no post-transform: PTTIDENTITY */
    }
    words[0] = 0x3CF3CF00u, words[1] = 0x00F3CF3Cu; /* every texgen on IDENTITY (60) */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t w = (6 + 6 * k) / 30, sh = (6 + 6 * k) % 30;
        words[w] = (words[w] & ~(0x3Fu << sh)) | (mt->texgen[k][2] & 0x3Fu) << sh;
    }
}

/* ------------------------------------------------------------------ */
/* Colour sub-blocks                                                   */

static uint32_t chan_word(const uint8_t c[6])
{
    /* enable, material source, light mask, diffuse fn, attenuation fn, ambient source */
    uint32_t attn = c[4];
    uint32_t diffuse = attn == 0 ? 0u : (c[3] & 3u); /* AF_SPEC: no diffuse function */
    return (c[1] & 1u) | (c[0] ? 2u : 0u) | (c[2] & 15u) << 2 | (c[5] & 1u) << 6 | diffuse << 7 |
           (attn != 2 ? 1u : 0u) << 9 | (attn != 0 ? 1u : 0u) << 10 | ((uint32_t)c[2] >> 4 & 15u) << 11;
}

static void colour_blocks(enc *e, const ga_material *mt, uint16_t *mat_at, uint16_t *chan_at)
{
    *mat_at = here(e);
    xf_head(e, 0x100C, 2);
    for (int k = 0; k < 2; k++) ga_buf_u32be(e->b, rgba(mt->color[k]));
    xf_head(e, 0x100A, 2);
    for (int k = 0; k < 2; k++) ga_buf_u32be(e->b, rgba(mt->ambient[k]));
    *chan_at = here(e);
    xf_head(e, 0x100E, 4);
    for (int k = 0; k < 4; k++) ga_buf_u32be(e->b, chan_word(mt->channel[k]));
    xf_head(e, 0x1009, 1);
    ga_buf_u32be(e->b, mt->nchannels);
    xf_head(e, 0x103F, 1);
    ga_buf_u32be(e->b, mt->ntexgens);
}

/* ------------------------------------------------------------------ */

static int check_material(const ga_model *m, const ga_material *mt, uint32_t i, uint32_t ntex, ga_error *err)
{
    for (uint32_t k = 0; k < 8; k++)
        if (mt->textures[k] >= 0 && (uint32_t)mt->textures[k] >= ntex)
            return ga_fail(err, GA_ERR_FORMAT, m->format ? m->format : "bdl", "MAT3 texture slot", -1,
                           "material %u's texture slot %u names texture %d; TEX1 holds %u", i, k, mt->textures[k],
                           ntex);
    return GA_OK;
}

/* The stored MDL3 of m, for the lists rebuild keeps: its header and
 * tables, checked to hold `need` materials' entries and lists. */
static int open_stored(const ga_model *m, uint32_t need, ga_mdl3_view *s, ga_error *err)
{
    const char *fmt = m->format ? m->format : "bdl";
    long ci = ga_j3d_find_chunk(m, "MDL3");
    if (ci < 0) return ga_fail(err, GA_ERR_ARG, fmt, "MDL3", -1, "the model has no MDL3 chunk to keep lists of");
    const ga_model_chunk *c = &m->chunks[ci];
    if (!ga_mdl3_open(m->data + c->offset, c->size, c->offset, s))
        return ga_fail(err, GA_ERR_FORMAT, fmt, "MDL3 header", (long long)s->base, "the chunk is %zu bytes", s->size);
    if (s->count < need)
        return ga_fail(err, GA_ERR_FORMAT, fmt, "MDL3 material count", (long long)(s->base + 8),
                       "MDL3 holds %u display lists; MAT3 has %u materials before the edit", s->count, need);
    if (!ga_mdl3_tables_hold(s, 1u << GA_MDL3_T_LISTS | 1u << GA_MDL3_T_PATCHES | 1u << GA_MDL3_T_MATRICES, need))
        return ga_fail(err, GA_ERR_FORMAT, fmt, "MDL3 table offset", (long long)(s->base + 0x0C),
                       "the list (0x%x), patch (0x%x) or matrix (0x%x) table of %u materials overruns the chunk",
                       s->table[GA_MDL3_T_LISTS], s->table[GA_MDL3_T_PATCHES], s->table[GA_MDL3_T_MATRICES], need);
    for (uint32_t i = 0; i < need; i++) {
        ga_mdl3_list l;
        if (!ga_mdl3_list_at(s, i, &l) || l.len > 0xFFFF)
            return ga_fail(err, GA_ERR_FORMAT, fmt, "MDL3 display list", (long long)(s->base + l.entry),
                           "material %u's list (0x%llx + 0x%llx bytes) overruns the chunk", i,
                           (unsigned long long)l.at, (unsigned long long)l.len);
    }
    return GA_OK;
}

/* extra: a material whose list is appended once more, for a new
 * instance copying it (UINT32_MAX: none). */
static int build(const ga_model *m, const uint8_t *keep, uint32_t nkeep, uint32_t extra, ga_buf *out, ga_error *err)
{
    const char *fmt = m->format ? m->format : "bdl";
    ga_material *mats = NULL;
    uint32_t n = 0, ntex = 0, kept = 0;
    ga_texture *tex = NULL;
    ga_mdl3_view st;
    memset(&st, 0, sizeof st);
    for (uint32_t i = 0; keep && i < nkeep; i++)
        if (keep[i]) kept = i + 1;
    int rc = kept ? open_stored(m, kept, &st, err) : GA_OK;
    if (rc == GA_OK) rc = ga_model_materials(m, &mats, &n, err);
    if (rc == GA_OK) rc = read_textures(m, &tex, &ntex, err);
    for (uint32_t i = 0; i < n && rc == GA_OK; i++) rc = check_material(m, &mats[i], i, ntex, err);
    if (rc == GA_OK && extra != UINT32_MAX && extra >= n)
        rc = ga_fail(err, GA_ERR_ARG, fmt, "material", -1, "material %u of %u", extra, n);
    uint32_t total = n + (extra != UINT32_MAX);
    if (rc == GA_OK && total > 0xFFFF) rc = ga_fail(err, GA_ERR_LIMIT, fmt, "MDL3 count", -1, "%u materials", total);
    uint16_t(*patch)[GA_MDL3_PATCHES] = NULL;
    uint32_t(*words)[2] = NULL;
    size_t *dl_at = NULL, *dl_size = NULL;
    if (rc == GA_OK) {
        patch = calloc(total ? total : 1, sizeof *patch);
        words = calloc(total ? total : 1, sizeof *words);
        dl_at = calloc(total ? total : 1, sizeof *dl_at);
        dl_size = calloc(total ? total : 1, sizeof *dl_size);
        if (!patch || !words || !dl_at || !dl_size) rc = ga_nomem(err, fmt);
    }
    if (rc != GA_OK) goto done;

    size_t start = ga_j3d_chunk_begin(out, "MDL3");
    ga_buf_u16be(out, (uint16_t)total);
    ga_buf_u16be(out, 0xFFFF);
    size_t fields = out->len;
    ga_buf_fill(out, 0, 6 * 4);
    ga_j3d_pad(out, start, 32);
    size_t table = out->len - start;
    ga_buf_fill(out, 0, 8 * (size_t)total);
    ga_j3d_pad(out, start, 32);
    enc e = {out, 0, tex, ntex};
    for (uint32_t i = 0; i < total; i++) {
        const ga_material *mt = &mats[i < n ? i : extra];
        e.dl = out->len;
        dl_at[i] = out->len - start;
        if (i < kept && keep[i]) { /* the stored list, patch offsets and matrix words */
            ga_mdl3_list l;
            ga_mdl3_list_at(&st, i, &l);
            ga_buf_put(out, st.d + l.at, l.len);
            ga_j3d_pad_zero(out, e.dl, 32);
            dl_size[i] = out->len - e.dl;
            ga_mdl3_patch_offsets(&st, i, patch[i]);
            ga_mdl3_matrix_words(&st, i, words[i]);
            continue;
        }
        patch[i][GA_MDL3_TEX_NO] = 0;
        texture_block(&e, mt);
        tev_block(&e, mt, &patch[i][GA_MDL3_TEV_REG]);
        pe_block(&e, mt, &patch[i][GA_MDL3_FOG]);
        texgen_block(&e, mt, &patch[i][GA_MDL3_TEX_MTX], words[i]);
        colour_blocks(&e, mt, &patch[i][GA_MDL3_MAT_COLOR], &patch[i][GA_MDL3_COLOR_CHAN]);
        ga_j3d_pad_zero(out, e.dl, 32);
        dl_size[i] = out->len - e.dl;
        if (dl_size[i] > 0xFFFF) {
            rc = ga_fail(err, GA_ERR_LIMIT, fmt, "MDL3 display list", -1,
                         "material %u's list is %zu bytes; the patch offsets are 16-bit", i, dl_size[i]);
            goto done;
        }
    }
    size_t patches = out->len - start;
    for (uint32_t i = 0; i < total; i++) {
        for (int k = 0; k < GA_MDL3_PATCHES; k++) ga_buf_u16be(out, patch[i][k]);
        ga_buf_fill(out, 0, 4);
    }
    size_t mtx = out->len - start;
    for (uint32_t i = 0; i < total; i++) ga_buf_u32be(out, words[i][0]), ga_buf_u32be(out, words[i][1]);
    size_t modes = out->len - start;
    for (uint32_t i = 0; i < total; i++) ga_buf_u8(out, mats[i < n ? i : extra].mode);
    ga_j3d_pad(out, start, 4);
    size_t index = out->len - start;
    for (uint32_t i = 0; i < total; i++) ga_buf_u16be(out, (uint16_t)i);
    ga_j3d_pad(out, start, 4);
    size_t names_at = out->len - start;
    const char **names = calloc(total ? total : 1, sizeof *names);
    if (!names) {
        rc = ga_nomem(err, fmt);
        goto done;
    }
    for (uint32_t i = 0; i < total; i++) names[i] = mats[i < n ? i : extra].name;
    ga_jut_put_names(out, names, total);
    free(names);
    if (out->failed) {
        rc = ga_nomem(err, fmt);
        goto done;
    }
    size_t offs[6] = {table, patches, mtx, modes, index, names_at};
    for (int k = 0; k < 6; k++) ga_buf_set_u32be(out, fields + 4 * (size_t)k, (uint32_t)offs[k]);
    for (uint32_t i = 0; i < total; i++) {
        size_t entry = table + 8 * (size_t)i;
        ga_buf_set_u32be(out, start + entry, (uint32_t)(dl_at[i] - entry));
        ga_buf_set_u32be(out, start + entry + 4, (uint32_t)dl_size[i]);
    }
    rc = ga_j3d_chunk_end(out, start);
    if (rc != GA_OK) rc = ga_nomem(err, fmt);
done:
    free(patch);
    free(words);
    free(dl_at);
    free(dl_size);
    free(tex);
    ga_materials_free(mats, n);
    return rc;
}

int ga_j3d_encode_mdl3(const ga_model *m, ga_buf *out, ga_error *err)
{
    return build(m, NULL, 0, UINT32_MAX, out, err);
}

int ga_j3d_mdl3_rebuild(const ga_model *m, const uint8_t *keep, uint32_t nkeep, ga_buf *out, ga_error *err)
{
    return build(m, keep, nkeep, UINT32_MAX, out, err);
}

int ga_j3d_mdl3_add_copy(const ga_model *m, uint32_t k, ga_buf *out, ga_error *err)
{
    long ci = ga_j3d_find_chunk(m, "MAT3");
    uint32_t n = ci >= 0 && m->chunks[ci].size >= 0x0C ? ga_get_u16be(m->data + m->chunks[ci].offset + 8) : 0;
    uint8_t *keep = malloc(n ? n : 1);
    if (!keep) return ga_nomem(err, m->format ? m->format : "bdl");
    memset(keep, 1, n ? n : 1);
    int rc = build(m, keep, n, k, out, err);
    free(keep);
    return rc;
}

int ga_j3d_mdl3_texture_changed(ga_model *m, uint32_t index, const uint8_t old_header[32], int *changed,
                                ga_error *err)
{
    const char *fmt = m->format ? m->format : "bdl";
    *changed = 0;
    long ci = ga_j3d_find_chunk(m, "MDL3"), ti = ga_j3d_find_chunk(m, "TEX1");
    if (ci < 0 || ti < 0) return GA_OK;
    const ga_model_chunk *t = &m->chunks[ti];
    const uint8_t *h = ga_j3d_tex1_header_at(m->data + t->offset, t->size, index);
    if (!h) return ga_fail(err, GA_ERR_FORMAT, fmt, "TEX1 header table", (long long)t->offset, "no texture %u", index);
    /* the fields the lists hold: all but the palette and image offsets */
    if (memcmp(h, old_header, 0x0C) == 0 && memcmp(h + 0x10, old_header + 0x10, 0x0C) == 0) return GA_OK;
    ga_material *mats;
    uint32_t n;
    int rc = ga_model_materials(m, &mats, &n, err);
    if (rc) return rc;
    uint8_t *keep = malloc(n ? n : 1);
    int users = 0;
    if (keep) {
        for (uint32_t i = 0; i < n; i++) {
            keep[i] = 1;
            for (int s = 0; s < 8; s++)
                if (mats[i].textures[s] == (int32_t)index) keep[i] = 0;
            users += !keep[i];
        }
    }
    ga_materials_free(mats, n);
    if (!keep) return ga_nomem(err, fmt);
    ga_buf out;
    ga_buf_init(&out);
    rc = users ? ga_j3d_mdl3_rebuild(m, keep, n, &out, err) : GA_OK;
    free(keep);
    if (!rc && users) rc = ga_j3d_splice(m, (uint32_t)ci, out.data, out.len, err);
    if (!rc && users) *changed = 1;
    ga_buf_free(&out);
    return rc;
}
