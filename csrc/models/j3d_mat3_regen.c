/* ga_j3d_encode_mat3 (j3d_mat3.h): MAT3 encoded afresh from the decoded
 * materials, for Model.to_bytes(regenerate=True).  Every value a material
 * has (has_* set) goes into its table once (identical values share one
 * entry, as Nintendo's pools do); a value the file left out stays out, so
 * the decoder applies the same default.  The init records follow m's
 * remap (materials sharing a record share it again) and the tables are
 * written in header order, each padded to 4 with Nintendo's text.  What
 * the decoder does not keep (lights, post texture matrices, the unused
 * bytes of records) is not written. */
#include "j3d_mat3.h"
#include "jut_names.h"
#include "j3d_writer.h"

#include <stdlib.h>
#include <string.h>

typedef struct pool {
    ga_buf t[GA_MAT3_TABLES];
} pool;

/* The index of `item` in table `field`, added when new. */
static uint32_t add(pool *p, uint32_t field, const uint8_t *item)
{
    ga_buf *b = &p->t[(field - 0x0C) / 4];
    uint32_t size = ga_mat3_item[(field - 0x0C) / 4];
    for (size_t q = 0; q + size <= b->len; q += size)
        if (memcmp(b->data + q, item, size) == 0) return (uint32_t)(q / size);
    ga_buf_put(b, item, size);
    return (uint32_t)(b->len / size - 1);
}

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v; }

static void put32(uint8_t *p, uint32_t v)
{
    for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (24 - 8 * k));
}

static void putf(uint8_t *p, float f)
{
    uint32_t v;
    memcpy(&v, &f, 4);
    put32(p, v);
}

static void ref16(pool *p, uint8_t *e, size_t at, uint32_t field, const uint8_t *item)
{
    put16(e + at, add(p, field, item));
}

static void tex_matrix(const ga_tex_matrix *m, uint8_t *r)
{
    memset(r, 0xFF, 0x64);
    r[0] = m->projection, r[1] = m->info;
    for (int q = 0; q < 3; q++) putf(r + 4 + 4 * q, m->center[q]);
    for (int q = 0; q < 2; q++) putf(r + 0x10 + 4 * q, m->scale[q]), putf(r + 0x1C + 4 * q, m->translation[q]);
    put16(r + 0x18, (uint16_t)m->rotation);
    for (int q = 0; q < 16; q++) putf(r + 0x24 + 4 * q, m->effect[q]);
}

static void tev_half(const ga_tev_op *o, uint8_t *r)
{
    r[0] = o->a, r[1] = o->b, r[2] = o->c, r[3] = o->d, r[4] = o->op, r[5] = o->bias, r[6] = o->scale;
    r[7] = o->clamp ? 1 : 0, r[8] = o->out;
}

static void fog(const ga_fog *f, uint8_t *r)
{
    r[0] = f->type, r[1] = f->adjust;
    put16(r + 2, f->center);
    putf(r + 4, f->start_z), putf(r + 8, f->end_z), putf(r + 0x0C, f->near_z), putf(r + 0x10, f->far_z);
    memcpy(r + 0x14, f->color, 4);
    for (int k = 0; k < 10; k++) put16(r + 0x18 + 2 * k, f->adj[k]);
}

static void stages(pool *p, const ga_material *mt, uint8_t *e)
{
    for (uint32_t s = 0; s < mt->nstages && s < GA_MAT_STAGES; s++) {
        const ga_tev_stage *sg = &mt->tev.stages[s];
        uint8_t r[0x14];
        e[0x9C + s] = sg->konst_color, e[0xAC + s] = sg->konst_alpha;
        r[0] = mt->stage_texcoord[s], r[1] = mt->stage_texmap[s], r[2] = mt->stage_channel[s], r[3] = 0xFF;
        ref16(p, e, 0xBC + 2 * s, 0x4C, r);
        if (mt->has_stage[s]) {
            r[0] = 0xFF, r[0x13] = 0xFF;
            tev_half(&sg->color, r + 1);
            tev_half(&sg->alpha, r + 0x0A);
            ref16(p, e, 0xE4 + 2 * s, 0x5C, r);
        }
        r[0] = sg->ras_swap, r[1] = sg->tex_swap, r[2] = r[3] = 0xFF;
        ref16(p, e, 0x104 + 2 * s, 0x60, r);
    }
}

static void record(pool *p, const ga_material *mt, uint8_t *e)
{
    uint8_t r[0x64];
    memset(e, 0xFF, GA_MAT3_RECORD);
    e[0] = mt->mode;
    put32(r, (uint32_t)mt->cull_mode);
    e[1] = (uint8_t)add(p, 0x1C, r);
    e[2] = (uint8_t)add(p, 0x24, &mt->nchannels);
    e[3] = (uint8_t)add(p, 0x34, &mt->ntexgens);
    e[4] = (uint8_t)add(p, 0x58, &mt->nstages);
    if (mt->has_z_comp_loc) e[5] = (uint8_t)add(p, 0x78, &mt->z_comp_loc);
    if (mt->has_z_mode) memcpy(r, mt->z_mode, 3), r[3] = 0xFF, e[6] = (uint8_t)add(p, 0x74, r);
    if (mt->has_dither) e[7] = (uint8_t)add(p, 0x7C, &mt->dither);
    for (int k = 0; k < 2; k++) {
        if (mt->has_color[k]) ref16(p, e, 0x08 + 2 * k, 0x20, mt->color[k]);
        if (mt->has_ambient[k]) ref16(p, e, 0x14 + 2 * k, 0x2C, mt->ambient[k]);
    }
    for (int k = 0; k < 4; k++)
        if (mt->has_channel[k]) memcpy(r, mt->channel[k], 6), r[6] = r[7] = 0xFF, ref16(p, e, 0x0C + 2 * k, 0x28, r);
    for (int k = 0; k < 8; k++) {
        if (mt->has_texgen[k]) memcpy(r, mt->texgen[k], 3), r[3] = 0xFF, ref16(p, e, 0x28 + 2 * k, 0x38, r);
        if (mt->has_post_texgen[k])
            memcpy(r, mt->post_texgen[k], 3), r[3] = 0xFF, ref16(p, e, 0x38 + 2 * k, 0x3C, r);
        if (mt->has_tex_matrix[k]) tex_matrix(&mt->tex_matrix[k], r), ref16(p, e, 0x48 + 2 * k, 0x40, r);
        if (mt->textures[k] >= 0) put16(r, (uint32_t)mt->textures[k]), ref16(p, e, 0x84 + 2 * k, 0x48, r);
    }
    for (int k = 0; k < 4; k++) {
        if (mt->has_konst[k]) ref16(p, e, 0x94 + 2 * k, 0x54, mt->konst[k]);
        if (mt->has_tev_color[k]) {
            for (int q = 0; q < 4; q++) put16(r + 2 * q, (uint16_t)mt->tev_color[k][q]);
            ref16(p, e, 0xDC + 2 * k, 0x50, r);
        }
        if (mt->has_swap_table[k]) ref16(p, e, 0x124 + 2 * k, 0x64, mt->tev.swap[k]);
    }
    stages(p, mt, e);
    if (mt->has_fog) fog(&mt->fog, r), ref16(p, e, 0x144, 0x68, r);
    memcpy(r, mt->alpha_compare, 5), r[5] = r[6] = r[7] = 0xFF;
    ref16(p, e, 0x146, 0x6C, r);
    if (mt->has_blend) ref16(p, e, 0x148, 0x70, mt->blend);
    if (mt->has_nbt) {
        r[0] = mt->nbt_enabled, r[1] = r[2] = r[3] = 0xFF;
        for (int q = 0; q < 3; q++) putf(r + 4 + 4 * q, mt->nbt_scale[q]);
        ref16(p, e, 0x14A, 0x80, r);
    }
}

static void indirect(const ga_indirect *n, uint8_t *r)
{
    memset(r, 0xFF, GA_MAT3_INDIRECT);
    r[0] = n->enabled, r[1] = n->nstages;
    for (int k = 0; k < 4; k++) {
        r[4 + 4 * k] = n->order[k][0], r[5 + 4 * k] = n->order[k][1];
        r[0x68 + 4 * k] = n->scale[k][0], r[0x69 + 4 * k] = n->scale[k][1];
    }
    for (int k = 0; k < 3; k++) {
        uint8_t *m = r + 0x14 + 0x1C * k;
        for (int q = 0; q < 6; q++) putf(m + 4 * q, n->matrix[k][q]);
        m[0x18] = (uint8_t)n->exponent[k];
    }
    for (int s = 0; s < GA_MAT_STAGES; s++) memcpy(r + 0x78 + 12 * s, n->stage[s], 9);
}

/* JUTNameTab of the names (NULL as ""), up to the last named material. */
static void names(ga_buf *b, const ga_material *mats, uint32_t n)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++)
        if (mats[i].name) count = i + 1;
    size_t off = 4 + 4 * (size_t)count;
    ga_buf_u16be(b, (uint16_t)count);
    ga_buf_u16be(b, 0xFFFF);
    for (uint32_t i = 0; i < count; i++) {
        const char *s = mats[i].name ? mats[i].name : "";
        ga_buf_u16be(b, ga_jut_name_key(s));
        ga_buf_u16be(b, (uint16_t)off);
        off += strlen(s) + 1;
    }
    for (uint32_t i = 0; i < count; i++) {
        const char *s = mats[i].name ? mats[i].name : "";
        ga_buf_put(b, s, strlen(s) + 1);
    }
}

int ga_j3d_encode_mat3(const ga_model *m, ga_buf *out, ga_error *err)
{
    ga_material *mats = NULL;
    uint32_t n = 0;
    int rc = ga_model_materials(m, &mats, &n, err);
    if (rc) return rc;
    pool p;
    for (int k = 0; k < GA_MAT3_TABLES; k++) ga_buf_init(&p.t[k]);
    uint32_t nrec = 0;
    int ind = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (mats[i].entry + 1 > nrec) nrec = mats[i].entry + 1;
        ind |= mats[i].has_indirect;
    }
    ga_buf *rec = &p.t[0], *remap = &p.t[1];
    if (nrec && ga_buf_fill(rec, 0xFF, (size_t)nrec * GA_MAT3_RECORD) == GA_OK) {
        uint8_t *done = calloc(nrec, 1);
        if (!done) rec->failed = 1;
        for (uint32_t i = 0; i < n && done; i++) {
            uint32_t r = mats[i].entry;
            ga_buf_u16be(remap, (uint16_t)r);
            if (done[r]) continue;
            done[r] = 1;
            record(&p, &mats[i], rec->data + (size_t)r * GA_MAT3_RECORD);
        }
        /* records no material uses: a copy of material 0's */
        for (uint32_t r = 0; r < nrec && done; r++)
            if (!done[r]) memcpy(rec->data + (size_t)r * GA_MAT3_RECORD,
                                 rec->data + (size_t)mats[0].entry * GA_MAT3_RECORD, GA_MAT3_RECORD);
        free(done);
    }
    names(&p.t[2], mats, n);
    if (!p.t[2].len || ga_get_u16be(p.t[2].data) == 0) p.t[2].len = 0;
    for (uint32_t i = 0; i < n && ind; i++) {
        uint8_t r[GA_MAT3_INDIRECT];
        indirect(&mats[i].indirect, r);
        ga_buf_put(&p.t[3], r, sizeof r);
    }
    size_t start = ga_j3d_chunk_begin(out, "MAT3");
    ga_buf_u16be(out, (uint16_t)n);
    ga_buf_u16be(out, 0xFFFF);
    ga_buf_fill(out, 0, 4 * GA_MAT3_TABLES);
    for (int k = 0; k < GA_MAT3_TABLES; k++) {
        if (!p.t[k].len) continue;
        ga_buf_set_u32be(out, start + 0x0C + 4 * (size_t)k, (uint32_t)(out->len - start));
        ga_buf_put(out, p.t[k].data, p.t[k].len);
        ga_j3d_pad(out, start, 4);
    }
    int failed = 0;
    for (int k = 0; k < GA_MAT3_TABLES; k++) failed |= p.t[k].failed, ga_buf_free(&p.t[k]);
    ga_materials_free(mats, n);
    if (failed || ga_j3d_chunk_end(out, start) != GA_OK) return ga_nomem(err, m->format ? m->format : "bmd");
    return GA_OK;
}
