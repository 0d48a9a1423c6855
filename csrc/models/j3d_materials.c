/* J3D MAT3 (materials) of a loaded ga_model (model.h): the whole GX state
 * of each material, with the game's defaults for absent entries.  Layout
 * and defaults: ../shared/formats/j3d_materials.md section 1; the API and
 * each default: docs/materials.md.  TEX1 is j3d_textures.c; the TEV
 * arithmetic gx_tev.c.
 *
 * MAT2 (J3DMaterialBlock_v21, the material chunk of "J3D2bmd2" files, which
 * the game loads with J3DModelLoader_v21; notes 1.5) is read by the same
 * code: it is MAT3 without the indirect, ambient colour and light tables,
 * so its header offsets after the name table, and its 0x138-byte init
 * records from the texgen indices on, sit at MAT3's minus the missing ones
 * (hdr and rec map MAT3's offsets).  The v21 factory's defaults for absent
 * entries are MAT3's; its ambient colours are the colour block's default,
 * which is MAT3's default for an absent one. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#define MAT3_INDIRECT 0x138

/* The material chunk's layout: MAT3, or MAT2 (v21). */
typedef struct mat_layout {
    const char *tag;
    size_t header; /* bytes of the chunk header (its table offsets included) */
    size_t record; /* bytes of an init record */
    int v21;
} mat_layout;

static const mat_layout MAT3_LAYOUT = {"MAT3", 0x84, 0x14C, 0};
static const mat_layout MAT2_LAYOUT = {"MAT2", 0x78, 0x138, 1};

void ga_materials_free(ga_material *mats, uint32_t n)
{
    if (!mats) return;
    for (uint32_t i = 0; i < n; i++) free(mats[i].name);
    free(mats);
}

typedef struct mat3_ctx {
    const ga_reader *r;
    const ga_model_chunk *c;
    size_t e;           /* the init record's file offset */
    const uint8_t *d;   /* the file */
    const mat_layout *L;
} mat3_ctx;

#define ABSENT ((size_t)-1)

/* MAT3 header field `f` in the chunk's layout; ABSENT for the indirect,
 * ambient and light tables of a MAT2. */
static size_t hdr(const mat3_ctx *x, size_t f)
{
    if (!x->L->v21 || f < 0x18) return f;
    if (f == 0x18 || f == 0x2C || f == 0x30) return ABSENT;
    return f < 0x2C ? f - 4 : f - 0x0C;
}

/* MAT3 init-record offset `o` in the chunk's layout; ABSENT for the
 * ambient colour and light indices (0x14-0x27) of a MAT2. */
static size_t rec(const mat3_ctx *x, size_t o)
{
    if (!x->L->v21 || o < 0x14) return o;
    return o < 0x28 ? ABSENT : o - 0x14;
}

/* Item `index` (of `item` bytes) of the MAT3 table whose offset is stored at
 * header field `table`: *at = its file offset, 0 when index is the unused
 * marker (0xFFFF, or 0xFF for the u8 indices).  `from` is where the index
 * was read (for the error). */
static int mat3_item(const mat3_ctx *x, uint32_t index, uint32_t unused, size_t table, size_t item, const char *field,
                     size_t from, size_t *at)
{
    *at = 0;
    table = hdr(x, table);
    if (index == unused || table == ABSENT) return GA_OK;
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

/* The record a u16 index at (MAT3) init-record offset `off` selects; none
 * (*at 0) when the layout has no such index. */
static int item16(const mat3_ctx *x, size_t off, size_t table, size_t item, const char *field, size_t *at)
{
    *at = 0;
    if ((off = rec(x, off)) == ABSENT) return GA_OK;
    return mat3_item(x, ga_get_u16be(x->d + x->e + off), 0xFFFF, table, item, field, x->e + off, at);
}

static int item8(const mat3_ctx *x, size_t off, size_t table, size_t item, const char *field, size_t *at)
{
    *at = 0;
    if ((off = rec(x, off)) == ABSENT) return GA_OK;
    return mat3_item(x, x->d[x->e + off], 0xFF, table, item, field, x->e + off, at);
}

/* A value the hardware has no meaning for. */
static int bad(const mat3_ctx *x, const char *field, size_t at, unsigned v, const char *allowed)
{
    return ga_fail(x->r->err, GA_ERR_FORMAT, x->r->format, field, (long long)at, "%u is not %s", v, allowed);
}

/* An entry the game has no default for (it would read garbage). */
static int absent(const mat3_ctx *x, const char *field, size_t at)
{
    return ga_fail(x->r->err, GA_ERR_FORMAT, x->r->format, field, (long long)at,
                   "the index says none (0xFF / 0xFFFF), but the game has no default for this table");
}

#define CHECK(cond, field, at, v, allowed) \
    do {                                    \
        if (!(cond)) return bad(x, field, at, v, allowed); \
    } while (0)

/* A TEV stage half at `p` (a, b, c, d, op, bias, scale, clamp, out). */
static int tev_half(const mat3_ctx *x, size_t p, int alpha, ga_tev_op *o)
{
    const uint8_t *d = x->d + p;
    const char *field = alpha ? "MAT3 TEV stage alpha" : "MAT3 TEV stage colour";
    for (int k = 0; k < 4; k++)
        CHECK(alpha ? d[k] <= 7 : d[k] <= 15, field, p + k, d[k],
              alpha ? "an alpha input (0-7)" : "a colour input (0-15)");
    o->a = d[0], o->b = d[1], o->c = d[2], o->d = d[3];
    o->op = d[4];
    CHECK(o->op <= 1 || (o->op >= 8 && o->op <= 15), field, p + 4, o->op, "a TEV op (0, 1 or 8-15)");
    o->clamp = d[7] != 0;
    o->out = d[8];
    CHECK(o->out <= 3, field, p + 8, o->out, "a TEV register (0-3)");
    if (o->op >= 8) { /* J3D ignores a compare's bias and scale bytes */
        o->bias = 0;
        o->scale = 0;
        return GA_OK;
    }
    o->bias = d[5];
    o->scale = d[6];
    CHECK(o->bias <= 2, field, p + 5, o->bias, "a TEV bias (0-2)");
    CHECK(o->scale <= 3, field, p + 6, o->scale, "a TEV scale (0-3)");
    return GA_OK;
}

static const ga_tev_op default_half[2] = {
    {GA_CC_RASC, GA_CC_ZERO, GA_CC_ZERO, GA_CC_CPREV, GA_TEV_ADD, 0, 0, 1, 0},
    {GA_CA_RASA, GA_CA_ZERO, GA_CA_ZERO, GA_CA_APREV, GA_TEV_ADD, 0, 0, 1, 0},
};

static int texgen_matrix_ok(unsigned m) { return m == 60 || (m < 60 && m % 3 == 0); }

static int mat3_channels(const mat3_ctx *x, ga_material *mt)
{
    static const uint8_t white[4] = {255, 255, 255, 255}, amb[4] = {0x32, 0x32, 0x32, 0x32};
    static const uint8_t chan[6] = {0, 0, 0, 2, 2, 0};
    const uint8_t *d = x->d;
    size_t at;
    int rc;
    for (int k = 0; k < 2; k++) {
        if ((rc = item16(x, 0x08 + 2 * k, 0x20, 4, "MAT3 material colour index", &at))) return rc;
        mt->has_color[k] = at != 0;
        memcpy(mt->color[k], at ? d + at : white, 4);
        if ((rc = item16(x, 0x14 + 2 * k, 0x2C, 4, "MAT3 ambient colour index", &at))) return rc;
        mt->has_ambient[k] = at != 0;
        memcpy(mt->ambient[k], at ? d + at : amb, 4);
    }
    for (int k = 0; k < 4; k++) {
        if ((rc = item16(x, 0x0C + 2 * k, 0x28, 8, "MAT3 colour channel index", &at))) return rc;
        mt->has_channel[k] = at != 0;
        memcpy(mt->channel[k], at ? d + at : chan, 6);
        if (!at) continue;
        const char *f = "MAT3 colour channel";
        CHECK(d[at + 1] <= 1, f, at + 1, d[at + 1], "a material source (0 register, 1 vertex)");
        CHECK(d[at + 3] <= 2, f, at + 3, d[at + 3], "a diffuse function (0 none, 1 sign, 2 clamp)");
        CHECK(d[at + 4] <= 3, f, at + 4, d[at + 4], "an attenuation function (0-3)");
        CHECK(d[at + 5] <= 1 || d[at + 5] == 0xFF, f, at + 5, d[at + 5], "an ambient source (0, 1 or 0xFF)");
    }
    return GA_OK;
}

static int mat3_texgens(const mat3_ctx *x, ga_material *mt)
{
    const uint8_t *d = x->d;
    size_t at;
    int rc;
    for (int k = 0; k < 8; k++) {
        if ((rc = item16(x, 0x28 + 2 * k, 0x38, 4, "MAT3 texgen index", &at))) return rc;
        mt->has_texgen[k] = at != 0;
        if (at) {
            memcpy(mt->texgen[k], d + at, 3);
            CHECK(d[at] <= 10, "MAT3 texgen type", at, d[at], "a texgen type (0-10)");
            CHECK(d[at + 1] <= 20, "MAT3 texgen source", at + 1, d[at + 1], "a texgen source (0-20)");
            CHECK(texgen_matrix_ok(d[at + 2]), "MAT3 texgen matrix", at + 2, d[at + 2],
                  "a texgen matrix (0, 3 ... 57, or 60 identity)");
        } else {
            mt->texgen[k][0] = 1, mt->texgen[k][1] = (uint8_t)(4 + k), mt->texgen[k][2] = 60;
        }
        if ((rc = item16(x, 0x38 + 2 * k, 0x3C, 4, "MAT3 post texgen index", &at))) return rc;
        mt->has_post_texgen[k] = at != 0;
        if (at) memcpy(mt->post_texgen[k], d + at, 3);
        else mt->post_texgen[k][0] = 1, mt->post_texgen[k][1] = (uint8_t)(4 + k), mt->post_texgen[k][2] = 125;
        if ((rc = item16(x, 0x48 + 2 * k, 0x40, 0x64, "MAT3 texture matrix index", &at))) return rc;
        if ((mt->has_tex_matrix[k] = at != 0)) {
            ga_tex_matrix *m = &mt->tex_matrix[k];
            m->projection = d[at];
            m->info = d[at + 1];
            CHECK(m->projection <= 1, "MAT3 texture matrix projection", at, m->projection, "0 (3x4) or 1 (2x4)");
            for (int q = 0; q < 3; q++) m->center[q] = ga_get_f32be(d + at + 4 + 4 * q);
            for (int q = 0; q < 2; q++) {
                m->scale[q] = ga_get_f32be(d + at + 0x10 + 4 * q);
                m->translation[q] = ga_get_f32be(d + at + 0x1C + 4 * q);
            }
            m->rotation = (int16_t)ga_get_u16be(d + at + 0x18);
            for (int q = 0; q < 16; q++) m->effect[q] = ga_get_f32be(d + at + 0x24 + 4 * q);
        }
        if ((rc = item16(x, 0x84 + 2 * k, 0x48, 2, "MAT3 texture slot index", &at))) return rc;
        mt->textures[k] = at ? (int32_t)ga_get_u16be(d + at) : -1;
        if (mt->textures[k] == 0xFFFF) mt->textures[k] = -1;
    }
    return GA_OK;
}

static int mat3_colors(const mat3_ctx *x, ga_material *mt)
{
    const uint8_t *d = x->d;
    size_t at;
    int rc;
    for (int k = 0; k < 4; k++) {
        if ((rc = item16(x, 0xDC + 2 * k, 0x50, 8, "MAT3 TEV colour index", &at))) return rc;
        mt->has_tev_color[k] = at != 0;
        for (int q = 0; q < 4; q++) {
            int16_t v = at ? (int16_t)ga_get_u16be(d + at + 2 * q) : 0;
            mt->tev_color[k][q] = v;
            /* the register holds s11: the low 11 bits, sign-extended */
            mt->tev.regs[k][q] = (int16_t)(((v & 0x7FF) ^ 0x400) - 0x400);
        }
        if ((rc = item16(x, 0x94 + 2 * k, 0x54, 4, "MAT3 konst colour index", &at))) return rc;
        mt->has_konst[k] = at != 0;
        if (at) memcpy(mt->konst[k], d + at, 4);
        else memset(mt->konst[k], 255, 4);
        memcpy(mt->tev.konst[k], mt->konst[k], 4);
        if ((rc = item16(x, 0x124 + 2 * k, 0x64, 4, "MAT3 swap table index", &at))) return rc;
        mt->has_swap_table[k] = at != 0;
        for (int q = 0; q < 4; q++) {
            mt->tev.swap[k][q] = at ? d[at + q] : (uint8_t)q;
            CHECK(mt->tev.swap[k][q] <= 3, "MAT3 swap table", at + q, mt->tev.swap[k][q], "a channel (0-3)");
        }
    }
    return GA_OK;
}

static int mat3_stages(const mat3_ctx *x, ga_material *mt)
{
    const uint8_t *d = x->d;
    size_t e = x->e, at;
    int rc;
    for (uint32_t s = 0; s < mt->nstages; s++) {
        ga_tev_stage *sg = &mt->tev.stages[s];
        if ((rc = item16(x, 0xBC + 2 * s, 0x4C, 4, "MAT3 TEV order index", &at))) return rc;
        mt->stage_texcoord[s] = at ? d[at] : 0xFF;
        mt->stage_texmap[s] = at ? d[at + 1] : 0xFF;
        mt->stage_channel[s] = at ? d[at + 2] : 0xFF;
        CHECK(mt->stage_texcoord[s] < 8 || mt->stage_texcoord[s] == 0xFF, "MAT3 TEV order texcoord", at,
              mt->stage_texcoord[s], "a texcoord (0-7 or 0xFF)");
        CHECK(mt->stage_texmap[s] < 8 || mt->stage_texmap[s] == 0xFF, "MAT3 TEV order texmap", at + 1,
              mt->stage_texmap[s], "a texmap (0-7 or 0xFF)");
        CHECK(mt->stage_channel[s] <= 8 || mt->stage_channel[s] == 0xFF, "MAT3 TEV order channel", at + 2,
              mt->stage_channel[s], "a colour channel (0-8 or 0xFF)");
        uint8_t map = mt->stage_texmap[s];
        mt->stage_texture[s] = map < 8 ? mt->textures[map] : -1;
        if ((rc = item16(x, 0xE4 + 2 * s, 0x5C, 0x14, "MAT3 TEV stage index", &at))) return rc;
        if ((mt->has_stage[s] = at != 0)) {
            if ((rc = tev_half(x, at + 1, 0, &sg->color)) || (rc = tev_half(x, at + 0x0A, 1, &sg->alpha))) return rc;
        } else {
            sg->color = default_half[0];
            sg->alpha = default_half[1];
        }
        size_t kco = e + rec(x, 0x9C) + s, kao = e + rec(x, 0xAC) + s;
        uint8_t kc = d[kco], ka = d[kao];
        sg->konst_color = kc == 0xFF ? 0x0C : kc;
        sg->konst_alpha = ka == 0xFF ? 0x1C : ka;
        CHECK(sg->konst_color <= 31, "MAT3 konst colour select", kco, kc, "a konst select (0-31)");
        CHECK(sg->konst_alpha <= 31, "MAT3 konst alpha select", kao, ka, "a konst select (0-31)");
        if ((rc = item16(x, 0x104 + 2 * s, 0x60, 4, "MAT3 swap mode index", &at))) return rc;
        sg->ras_swap = at ? d[at] : 0;
        sg->tex_swap = at ? d[at + 1] : 0;
        CHECK(sg->ras_swap <= 3 && sg->tex_swap <= 3, "MAT3 swap mode", at, sg->ras_swap > 3 ? sg->ras_swap : sg->tex_swap,
              "a swap table (0-3)");
    }
    return GA_OK;
}

static int mat3_pixel(const mat3_ctx *x, ga_material *mt)
{
    static const uint8_t blend[4] = {1, 4, 5, 5}, zmode[3] = {1, 3, 1};
    const uint8_t *d = x->d;
    size_t at;
    int rc;
    if ((rc = item16(x, 0x146, 0x6C, 8, "MAT3 alpha compare index", &at))) return rc;
    if (!at) return absent(x, "MAT3 alpha compare index", x->e + rec(x, 0x146));
    mt->has_alpha_compare = 1;
    memcpy(mt->alpha_compare, d + at, 5);
    CHECK(d[at] <= 7 && d[at + 3] <= 7, "MAT3 alpha compare", at, d[at] > 7 ? d[at] : d[at + 3], "a compare (0-7)");
    CHECK(d[at + 2] <= 3, "MAT3 alpha compare op", at + 2, d[at + 2], "an alpha op (0-3)");
    memcpy(mt->tev.alpha_compare, mt->alpha_compare, 5);
    if ((rc = item16(x, 0x148, 0x70, 4, "MAT3 blend mode index", &at))) return rc;
    mt->has_blend = at != 0;
    memcpy(mt->blend, at ? d + at : blend, 4);
    CHECK(mt->blend[0] <= 3, "MAT3 blend mode", at, mt->blend[0], "a blend mode (0-3)");
    CHECK(mt->blend[1] <= 7 && mt->blend[2] <= 7, "MAT3 blend factor", at + 1,
          mt->blend[1] > 7 ? mt->blend[1] : mt->blend[2], "a blend factor (0-7)");
    CHECK(mt->blend[3] <= 15, "MAT3 blend logic op", at + 3, mt->blend[3], "a logic op (0-15)");
    if ((rc = item8(x, 0x06, 0x74, 4, "MAT3 z mode index", &at))) return rc;
    mt->has_z_mode = at != 0;
    memcpy(mt->z_mode, at ? d + at : zmode, 3);
    CHECK(mt->z_mode[1] <= 7, "MAT3 z mode function", at + 1, mt->z_mode[1], "a compare (0-7)");
    if ((rc = item8(x, 0x05, 0x78, 1, "MAT3 z compare location index", &at))) return rc;
    mt->has_z_comp_loc = at != 0;
    mt->z_comp_loc = at ? d[at] : 0;
    if ((rc = item8(x, 0x07, 0x7C, 1, "MAT3 dither index", &at))) return rc;
    mt->has_dither = at != 0;
    mt->dither = at ? d[at] : 1;
    if ((rc = item16(x, 0x144, 0x68, 0x2C, "MAT3 fog index", &at))) return rc;
    if ((mt->has_fog = at != 0)) {
        ga_fog *f = &mt->fog;
        f->type = d[at];
        f->adjust = d[at + 1];
        f->center = ga_get_u16be(d + at + 2);
        f->start_z = ga_get_f32be(d + at + 4);
        f->end_z = ga_get_f32be(d + at + 8);
        f->near_z = ga_get_f32be(d + at + 0x0C);
        f->far_z = ga_get_f32be(d + at + 0x10);
        memcpy(f->color, d + at + 0x14, 4);
        for (int k = 0; k < 10; k++) f->adj[k] = ga_get_u16be(d + at + 0x18 + 2 * k);
    }
    if ((rc = item16(x, 0x14A, 0x80, 0x10, "MAT3 NBT scale index", &at))) return rc;
    mt->has_nbt = at != 0;
    mt->nbt_enabled = at ? d[at] : 0;
    for (int k = 0; k < 3; k++) mt->nbt_scale[k] = at ? ga_get_f32be(d + at + 4 + 4 * k) : 1.0f;
    return GA_OK;
}

/* The indirect record of material i (indexed directly, not through the
 * remap); the game reads the table only when its offset exceeds the name
 * table's by more than 4. */
static int mat3_indirect(const mat3_ctx *x, uint32_t i, ga_material *mt)
{
    const uint8_t *d = x->d;
    size_t base = x->c->offset;
    if (x->L->v21) return GA_OK; /* (no indirect table) */
    uint32_t ind = ga_get_u32be(d + base + 0x18), names = ga_get_u32be(d + base + 0x14);
    if (ind == 0 || ind <= names + 4) return GA_OK;
    size_t at;
    int rc = mat3_item(x, i, 0x10000, 0x18, MAT3_INDIRECT, "MAT3 indirect record", base + 0x18, &at);
    if (rc) return rc;
    ga_indirect *n = &mt->indirect;
    mt->has_indirect = 1;
    n->enabled = d[at];
    n->nstages = d[at + 1];
    CHECK(n->nstages <= 4, "MAT3 indirect stage count", at + 1, n->nstages, "an indirect stage count (0-4)");
    for (int k = 0; k < 4; k++) {
        n->order[k][0] = d[at + 4 + 4 * k];
        n->order[k][1] = d[at + 5 + 4 * k];
        n->scale[k][0] = d[at + 0x68 + 4 * k];
        n->scale[k][1] = d[at + 0x69 + 4 * k];
    }
    for (int k = 0; k < 3; k++) {
        size_t m = at + 0x14 + 0x1C * (size_t)k;
        for (int q = 0; q < 6; q++) n->matrix[k][q] = ga_get_f32be(d + m + 4 * q);
        n->exponent[k] = (int8_t)d[m + 0x18];
    }
    for (int s = 0; s < GA_MAT_STAGES; s++) memcpy(n->stage[s], d + at + 0x78 + 12 * (size_t)s, 9);
    return GA_OK;
}

static int mat3_entry(const mat3_ctx *x, uint32_t i, ga_material *mt)
{
    const uint8_t *d = x->d;
    size_t e = x->e, at;
    int rc;
    mt->mode = d[e];
    if ((rc = item8(x, 0x01, 0x1C, 4, "MAT3 cull mode index", &at))) return rc;
    if (!at) return absent(x, "MAT3 cull mode index", e + 1);
    mt->cull_mode = (int32_t)ga_get_u32be(d + at);
    CHECK(mt->cull_mode >= 0 && mt->cull_mode <= 3, "MAT3 cull mode", at, (unsigned)mt->cull_mode, "a cull mode (0-3)");
    if ((rc = item8(x, 0x02, 0x24, 1, "MAT3 channel count index", &at))) return rc;
    mt->nchannels = at ? d[at] : 0;
    if ((rc = item8(x, 0x03, 0x34, 1, "MAT3 texgen count index", &at))) return rc;
    mt->ntexgens = at ? d[at] : 0;
    CHECK(mt->ntexgens <= 8, "MAT3 texgen count", at, mt->ntexgens, "a texgen count (0-8)");
    if ((rc = item8(x, 0x04, 0x58, 1, "MAT3 TEV stage count index", &at))) return rc;
    if (!at) return absent(x, "MAT3 TEV stage count index", e + 4);
    CHECK(d[at] <= GA_MAT_STAGES, "MAT3 TEV stage count", at, d[at], "a stage count (0-16)");
    mt->nstages = d[at];
    mt->tev.nstages = mt->nstages;
    if ((rc = mat3_channels(x, mt)) || (rc = mat3_texgens(x, mt)) || (rc = mat3_colors(x, mt)) ||
        (rc = mat3_stages(x, mt)) || (rc = mat3_pixel(x, mt)) || (rc = mat3_indirect(x, i, mt)))
        return rc;
    return GA_OK;
}

/* An error raised while reading a MAT2 names its fields as MAT2's (the
 * code names them after MAT3's). */
static void name_mat2(ga_error *err)
{
    char *p;
    if (!err) return;
    for (p = err->field; (p = strstr(p, "MAT3")) != NULL; p += 4) p[3] = '2';
    for (p = err->message; (p = strstr(p, "MAT3")) != NULL; p += 4) p[3] = '2';
}

static int read_materials(const ga_model *m, const mat_layout *L, ga_material **out, uint32_t *n, ga_error *err)
{
    const ga_model_chunk *c;
    ga_reader r;
    uint16_t count;
    int rc = ga_j3d_chunk_count(m, L->tag, "MAT3 material count", &r, err, &c, &count);
    if (rc || count == 0) return rc;
    if ((rc = ga_need(&r, c->offset, L->header, "MAT3 header"))) return rc;
    size_t entries, remap, names;
    if ((rc = ga_j3d_table_at(&r, c, 0x0C, "MAT3 entry table offset", &entries))) return rc;
    if ((rc = ga_j3d_table_at(&r, c, 0x10, "MAT3 remap table offset", &remap))) return rc;
    if ((rc = ga_j3d_names_table(&r, c, 0x14, "MAT3 name table offset", &names))) return rc;
    if ((rc = ga_need(&r, remap, (size_t)count * 2, "MAT3 remap table"))) return rc;
    ga_material *mats = calloc(count, sizeof *mats);
    if (!mats) return ga_nomem(err, m->format);
    mat3_ctx x = {&r, c, 0, r.data, L};
    for (uint32_t i = 0; i < count && !rc; i++) {
        ga_material *mt = &mats[i];
        mt->entry = ga_get_u16be(r.data + remap + 2 * (size_t)i);
        x.e = entries + (size_t)mt->entry * L->record;
        if (x.e + L->record > c->offset + c->size) {
            rc = ga_fail(err, GA_ERR_FORMAT, m->format, "MAT3 remap table", (long long)(remap + 2 * (size_t)i),
                         "material %u uses entry %u, past the MAT3 chunk's end", i, mt->entry);
            break;
        }
        if ((rc = mat3_entry(&x, i, mt))) break;
        if (names) rc = ga_j3d_name_at(&r, names, i, "MAT3 material name", &mt->name);
    }
    if (rc) {
        ga_materials_free(mats, count);
        return rc;
    }
    *out = mats;
    *n = count;
    return GA_OK;
}

int ga_model_materials(const ga_model *m, ga_material **out, uint32_t *n, ga_error *err)
{
    *out = NULL;
    *n = 0;
    int mat2 = m->family == GA_RIG_J3D && ga_j3d_find_chunk(m, "MAT3") < 0 && ga_j3d_find_chunk(m, "MAT2") >= 0;
    int rc = read_materials(m, mat2 ? &MAT2_LAYOUT : &MAT3_LAYOUT, out, n, err);
    if (rc && mat2) name_mat2(err);
    return rc;
}
