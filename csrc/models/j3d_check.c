/* The game-acceptance lint of a J3D model (j3d_check.h): the file layout,
 * the name tables, INF1, VTX1, EVP1 / DRW1, MAT3, MDL3 and TEX1.  SHP1 and
 * the joint boxes are j3d_check_shapes.c.  Each rule comes from a fact of
 * ../shared/formats/j3d_writer.md (sections 0, 2 and 5.4); the list with
 * its sources is docs/model_writer.md. */
#include "j3d_check_ctx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* [at, at + n) inside chunk c. */
static int within(const ga_model_chunk *c, size_t at, size_t n)
{
    return at >= c->offset && at <= c->offset + c->size && n <= c->offset + c->size - at;
}

/* The sub-table whose chunk-relative offset is the u32 at `field`: its file
 * offset, or 0 after a problem (or when the field is 0 and zero_ok). */
static size_t table_at(chk *x, const ga_model_chunk *c, size_t field, const char *name, int zero_ok)
{
    if (!within(c, c->offset + field, 4)) {
        chk_add(x, "%s: the chunk is too short for its %s (offset 0x%zx)", c->tag, name, c->offset + field);
        return 0;
    }
    uint32_t rel = ga_get_u32be(x->d + c->offset + field);
    if (rel == 0 && zero_ok) return 0;
    if (rel == 0 || rel >= c->size) {
        chk_add(x, "%s: %s 0x%x lies outside the chunk (%zu bytes) (offset 0x%zx)", c->tag, name, rel, c->size,
                c->offset + field);
        return 0;
    }
    return c->offset + rel;
}

/* ------------------------------------------------------------------ */
/* Layout: header, chunk sizes and order (j3d_writer.md 5.4 "Layout")  */

static const char *const CHUNK_ORDER[] = {"INF1", "VTX1", "EVP1", "DRW1", "JNT1", "SHP1", "MAT3", "MDL3", "TEX1"};

static void check_layout(chk *x)
{
    const ga_model *m = x->m;
    uint32_t stated = ga_get_u32be(x->d + 8);
    if (stated != x->size)
        chk_add(x, "header: file size field says %u bytes, the file has %zu (offset 0x8)", stated, x->size);
    int last = -1;
    const char *last_tag = NULL;
    for (uint32_t i = 0; i < m->nchunks; i++) {
        const ga_model_chunk *c = &m->chunks[i];
        /* each chunk (and so each chunk start) 32-aligned: the display
         * lists inside are used in place (fact 1) */
        if (c->size % 32)
            chk_add(x, "%s: chunk size %zu is not a multiple of 32 (offset 0x%zx)", c->tag, c->size, c->offset + 4);
        int rank = memcmp(c->tag, "MAT2", 4) == 0 ? 6 : -1; /* (a J3D2bmd2's MAT3: notes 1.5) */
        for (int k = 0; k < 9; k++)
            if (memcmp(c->tag, CHUNK_ORDER[k], 4) == 0) rank = k;
        if (rank < 0) continue;
        if (rank == last)
            chk_add(x, "%s: a second %s chunk (offset 0x%zx)", c->tag, c->tag, c->offset);
        else if (rank < last)
            chk_add(x, "%s: chunk order: %s comes after %s; the order is INF1, VTX1, EVP1, DRW1, JNT1, SHP1, MAT3, "
                       "(MDL3), TEX1 (offset 0x%zx)",
                    c->tag, c->tag, last_tag, c->offset);
        if (rank > last) {
            last = rank;
            last_tag = CHUNK_ORDER[rank];
        }
    }
    if (strcmp(m->format, "bdl") == 0 && !x->mdl3)
        chk_add(x, "header: a BDL (J3D2bdl4) without an MDL3 chunk: the game builds BDL materials from MDL3");
}

/* ------------------------------------------------------------------ */
/* Name tables: JUTNameTab keys (fact 10)                                */

static void check_names(chk *x, const ga_model_chunk *c, size_t field, const char *what)
{
    if (!c) return;
    size_t at = table_at(x, c, field, "name table offset", 1);
    if (!at) return;
    if (!within(c, at, 4)) {
        chk_add(x, "%s: the name table runs past the chunk (offset 0x%zx)", c->tag, at);
        return;
    }
    uint32_t n = ga_get_u16be(x->d + at);
    if (!within(c, at + 4, (size_t)n * 4)) {
        chk_add(x, "%s: %u name entries run past the chunk (offset 0x%zx)", c->tag, n, at);
        return;
    }
    size_t end = c->offset + c->size;
    for (uint32_t i = 0; i < n; i++) {
        size_t e = at + 4 + 4 * (size_t)i;
        uint16_t key = ga_get_u16be(x->d + e);
        size_t s = at + ga_get_u16be(x->d + e + 2);
        /* the game's chars may be signed or not: either key is accepted */
        uint16_t hs = 0, hu = 0;
        size_t k = s;
        for (; k < end && x->d[k]; k++) {
            hs = (uint16_t)(hs * 3 + (int8_t)x->d[k]);
            hu = (uint16_t)(hu * 3 + x->d[k]);
        }
        if (k >= end) {
            chk_add(x, "%s: %s name %u runs past the chunk without its NUL (offset 0x%zx)", c->tag, what, i, s);
            continue;
        }
        if (key != hs && key != hu)
            chk_add(x, "%s: %s name %u has key 0x%04x; JUTNameTab's key of the name is 0x%04x (offset 0x%zx)", c->tag,
                    what, i, key, hs, e);
    }
}

/* ------------------------------------------------------------------ */
/* INF1: the hierarchy as J3DJointTree::makeHierarchy walks it (fact 7) */

static void check_inf1(chk *x)
{
    const ga_model *m = x->m;
    const ga_model_chunk *c = x->inf1;
    /* bmd.c already refused unknown node types, joints out of range or
     * listed twice, a close with nothing open and a missing end node */
    size_t at = c->offset + ga_get_u32be(x->d + c->offset + 0x14), end = c->offset + c->size;
    size_t cap = (end - at) / 4 + 1;
    int32_t *stack = malloc(cap * 2 * sizeof *stack);
    int32_t *latest = malloc((m->nbones ? m->nbones : 1) * sizeof *latest);
    uint8_t *seen = calloc(m->nbones ? m->nbones : 1, 1);
    int32_t *holds = malloc((x->nmaterials ? x->nmaterials : 1) * sizeof *holds);
    if (!stack || !latest || !seen || !holds) {
        x->nomem = 1;
        goto done;
    }
    for (uint32_t j = 0; j < m->nbones; j++) latest[j] = -1;
    for (uint32_t k = 0; k < x->nmaterials; k++) holds[k] = -1;
    size_t depth = 0;
    int32_t pj = -1, cur = -1; /* the joint this level hangs under; the last joint of this level */
    uint32_t roots = 0;
    for (; at + 4 <= end; at += 4) {
        uint16_t type = ga_get_u16be(x->d + at), v = ga_get_u16be(x->d + at + 2);
        if (type == 0) {
            if (depth)
                chk_add(x, "INF1: the hierarchy ends with %zu node(s) left open (offset 0x%zx)", depth, at);
            break;
        }
        if (type == 1) {
            stack[2 * depth] = pj, stack[2 * depth + 1] = cur;
            depth++;
            pj = cur;
        } else if (type == 2 && depth) {
            depth--;
            pj = stack[2 * depth], cur = stack[2 * depth + 1];
        } else if (type == 0x10 && v < m->nbones) {
            seen[v] = 1;
            if (pj < 0 && ++roots == 2)
                chk_add(x, "INF1: joint %u is a second top-level joint; the game keeps one root (offset 0x%zx)", v,
                        at);
            cur = v;
        } else if (type == 0x11) {
            if (x->mat3 && v >= x->nmaterials)
                chk_add(x, "INF1: material %u of %u (offset 0x%zx)", v, x->nmaterials, at + 2);
            else if (pj < 0)
                chk_add(x, "INF1: material %u is not under a joint (offset 0x%zx)", v, at);
            else
                latest[pj] = v;
        } else if (type == 0x12) {
            if (v >= x->nshapes) {
                chk_add(x, "INF1: shape %u of %u (offset 0x%zx)", v, x->nshapes, at + 2);
                continue;
            }
            if (pj < 0 || latest[pj] < 0) {
                chk_add(x, "INF1: shape %u has no material before it under its joint (offset 0x%zx)", v, at);
                continue;
            }
            if (x->shape_material[v] >= 0)
                chk_add(x, "INF1: shape %u is listed twice (offset 0x%zx)", v, at);
            int32_t mat = latest[pj];
            if (mat < (int32_t)x->nmaterials && holds[mat] >= 0 && holds[mat] != v)
                chk_add(x, "INF1: shape %u binds to material %d, which already holds shape %d; a material draws one "
                           "shape (offset 0x%zx)",
                        v, mat, holds[mat], at);
            if (mat < (int32_t)x->nmaterials) holds[mat] = v;
            x->shape_material[v] = mat;
            x->shape_joint[v] = pj;
        }
    }
    for (uint32_t j = 0; j < m->nbones; j++)
        if (!seen[j]) chk_add(x, "INF1: joint %u is not in the hierarchy, so the game never places it", j);
done:
    free(stack);
    free(latest);
    free(seen);
    free(holds);
}

/* INF1's counts against SHP1 and VTX1 (fact 3), after the shapes ran. */
static void check_inf1_counts(chk *x)
{
    const ga_model_chunk *c = x->inf1;
    if (x->shp1 && x->packets != x->m->inf1_packet_count)
        chk_add(x, "INF1: packet count %u, but the shapes have %llu packets (offset 0x%zx)", x->m->inf1_packet_count,
                (unsigned long long)x->packets, c->offset + 0x0C);
    const chk_array *p = &x->a[0];
    if (!x->vtx1_ok || !p->present) return;
    uint32_t n = x->m->inf1_vertex_count;
    if (p->used && n <= p->max_index)
        chk_add(x, "INF1: vertex count %u, but the shapes use position %u (offset 0x%zx)", n, p->max_index,
                c->offset + 0x10);
    else if (n > p->length)
        chk_add(x, "INF1: vertex count %u, but the VTX1 position array holds %u (offset 0x%zx)", n, p->length,
                c->offset + 0x10);
}

/* ------------------------------------------------------------------ */
/* VTX1: formats the runtime supports, array order and lengths (2, 3)   */

static const char *const ARRAY_NAMES[CHK_NARRAYS] = {"POS",  "NRM",  "CLR0", "CLR1", "TEX0", "TEX1",
                                                     "TEX2", "TEX3", "TEX4", "TEX5", "TEX6", "TEX7"};

/* VTX1's 13 offset slots: POS, NRM, NBT, CLR0, CLR1, TEX0-7. */
static int slot_of(int key) { return key < 2 ? key : key + 1; }

static void read_vtx1(chk *x)
{
    const ga_model_chunk *c = x->vtx1;
    if (!within(c, c->offset, 0x40)) {
        chk_add(x, "VTX1: the chunk is too short for its header (offset 0x%zx)", c->offset);
        return;
    }
    size_t fmt = table_at(x, c, 0x08, "format list offset", 0);
    if (!fmt) return;
    uint32_t off[13];
    for (int s = 0; s < 13; s++) off[s] = ga_get_u32be(x->d + c->offset + 0x0C + 4 * (size_t)s);
    for (size_t at = fmt;; at += 16) {
        if (!within(c, at, 16)) {
            chk_add(x, "VTX1: the format list runs past the chunk without its end record (offset 0x%zx)", at);
            return;
        }
        uint32_t attr = ga_get_u32be(x->d + at);
        if (attr == 0xFF) break;
        if (attr < 9 || attr == 25) continue; /* matrix indices (no array); NBT: see the docs */
        if (attr > 20) {
            chk_add(x, "VTX1: attribute %u has no vertex array (offset 0x%zx)", attr, at);
            continue;
        }
        chk_array *a = &x->a[attr - 9];
        a->listed = 1;
        a->fmt_at = at;
        a->count = ga_get_u32be(x->d + at + 4);
        a->type = ga_get_u32be(x->d + at + 8);
        a->shift = x->d[at + 12];
    }
    /* the runtime's strides (J3DShape::makeVtxArrayCmd): POS / NRM 12 if
     * F32 else 6, TEXn 8 if F32 else 4, CLRn 4 */
    for (int k = 0; k < CHK_NARRAYS; k++) {
        chk_array *a = &x->a[k];
        uint32_t rel = off[slot_of(k)];
        if (!a->listed || rel == 0) continue;
        if (rel >= c->size) {
            chk_add(x, "VTX1: %s array offset 0x%x lies outside the chunk (offset 0x%zx)", ARRAY_NAMES[k], rel,
                    c->offset + 0x0C + 4 * (size_t)slot_of(k));
            continue;
        }
        a->stride = k < 2 ? (a->type == 4 ? 12 : 6) : k < 4 ? 4 : (a->type == 4 ? 8 : 4);
        /* the loader's length: up to the next array in the fixed order */
        uint32_t next = (uint32_t)c->size;
        for (int s = slot_of(k) + 1; s < 13; s++)
            if (off[s]) {
                next = off[s];
                break;
            }
        if (next > c->size) next = (uint32_t)c->size; /* (a next offset past the chunk is reported below) */
        a->base = c->offset + rel;
        a->length = next > rel ? (next - rel) / (uint32_t)a->stride : 0;
        a->present = 1;
    }
    /* fact 3: arrays in the order POS, NRM, NBT, CLR0, CLR1, TEX0-7 */
    uint32_t prev = 0;
    int prev_slot = -1;
    static const char *const SLOT_NAMES[13] = {"POS",  "NRM",  "NBT",  "CLR0", "CLR1", "TEX0", "TEX1",
                                               "TEX2", "TEX3", "TEX4", "TEX5", "TEX6", "TEX7"};
    for (int s = 0; s < 13; s++) {
        if (!off[s]) continue;
        if (prev_slot >= 0 && off[s] <= prev)
            chk_add(x, "VTX1: the %s array (0x%x) is not after the %s array (0x%x); the loader sizes arrays by the "
                       "gap to the next one in the order POS, NRM, NBT, CLR0, CLR1, TEX0-7 (offset 0x%zx)",
                    SLOT_NAMES[s], off[s], SLOT_NAMES[prev_slot], prev, c->offset + 0x0C + 4 * (size_t)s);
        prev = off[s];
        prev_slot = s;
    }
    x->vtx1_ok = 1;
}

/* After the shapes: the formats of the arrays they use, and lengths. */
static void check_vtx1_use(chk *x)
{
    for (int k = 0; k < CHK_NARRAYS; k++) {
        const chk_array *a = &x->a[k];
        if (!a->used || !a->listed) continue;
        const char *bad = NULL;
        if (k == 0 && (a->count != 1 || a->type < 2 || a->type > 4))
            bad = "positions must be XYZ (count 1) of u16, s16 or f32";
        else if (k == 1 && (a->count != 0 || a->type < 2 || a->type > 4))
            bad = "normals must be NRM (count 0) of 16-bit or f32 components";
        else if ((k == 2 || k == 3) && a->type != 2 && a->type != 5)
            bad = "colours must be 4 bytes (RGBX8 2 or RGBA8 5)";
        else if (k >= 4 && (a->count != 1 || a->type < 2 || a->type > 4))
            bad = "texture coordinates must be ST (count 1) of u16, s16 or f32";
        if (bad)
            chk_add(x, "VTX1: %s format count %u type %u: %s; the runtime's strides assume them (offset 0x%zx)",
                    ARRAY_NAMES[k], a->count, a->type, bad, a->fmt_at + 4);
        else if (a->type != 4 && a->shift > 31)
            chk_add(x, "VTX1: %s fraction shift %u (at most 31) (offset 0x%zx)", ARRAY_NAMES[k], a->shift,
                    a->fmt_at + 12);
    }
}

/* ------------------------------------------------------------------ */
/* EVP1 and DRW1 (facts 4, 5)                                           */

static void check_evp1(chk *x)
{
    const ga_model *m = x->m;
    const ga_model_chunk *c = x->evp1;
    if (!m->n_envelopes) return;
    /* bmd.c checked these tables fit and the joints are in range */
    size_t wc = c->offset + ga_get_u32be(x->d + c->offset + 0x0C);
    size_t ji = c->offset + ga_get_u32be(x->d + c->offset + 0x10);
    size_t wt = c->offset + ga_get_u32be(x->d + c->offset + 0x14);
    size_t ib = c->offset + ga_get_u32be(x->d + c->offset + 0x18);
    uint8_t *uses = calloc(m->nbones ? m->nbones : 1, 1);
    if (!uses) {
        x->nomem = 1;
        return;
    }
    size_t k = 0;
    for (uint32_t e = 0; e < m->n_envelopes; e++) {
        uint32_t n = x->d[wc + e];
        double sum = 0;
        for (uint32_t i = 0; i < n; i++, k++) {
            float w = ga_get_f32be(x->d + wt + 4 * k);
            uses[ga_get_u16be(x->d + ji + 2 * k)] = 1;
            if (!(w > 0.0f))
                chk_add(x, "EVP1: envelope %u weight %u is %g, not above 0 (offset 0x%zx)", e, i, (double)w,
                        wt + 4 * k);
            sum += w;
        }
        if (n == 0)
            chk_add(x, "EVP1: envelope %u has no joints (offset 0x%zx)", e, wc + e);
        else if (!(fabs(sum - 1.0) <= 1e-4))
            chk_add(x, "EVP1: envelope %u weights sum to %.7g, not 1 (offset 0x%zx)", e, sum, wc + e);
    }
    /* the first envelope brings an inverse bind for every joint */
    if (m->n_inverse_binds < m->nbones)
        chk_add(x, "EVP1: room for %u inverse binds, the model has %u joints (offset 0x%zx)", m->n_inverse_binds,
                m->nbones, ib);
    /* IB_j * W_j = identity at the rest pose, for the joints envelopes use
     * (a rest edit without new inverse binds deforms every skinned vertex) */
    if (x->world)
        for (uint32_t j = 0; j < m->n_inverse_binds; j++) {
            if (!uses[j]) continue;
            const float *W = x->world + 16 * (size_t)j, *B = m->inverse_binds[j];
            double worst = 0, scale = 1;
            for (int r = 0; r < 3; r++) scale += fabs(W[4 * r + 3]) + fabs(B[4 * r + 3]);
            for (int r = 0; r < 3; r++)
                for (int col = 0; col < 4; col++) {
                    double s = col == 3 ? W[4 * r + 3] : 0.0;
                    for (int q = 0; q < 3; q++) s += (double)W[4 * r + q] * B[4 * q + col];
                    double dev = fabs(s - (r == col ? 1.0 : 0.0)) / (col == 3 ? scale : 1.0);
                    if (dev > worst) worst = dev;
                }
            if (!(worst <= 1e-3))
                chk_add(x, "EVP1: joint %u's inverse bind times its rest world matrix (JNT1) is not the identity "
                           "(off by %.3g) (offset 0x%zx)",
                        j, worst, ib + 0x30 * (size_t)j);
        }
    free(uses);
}

static void check_drw1(chk *x)
{
    const ga_model *m = x->m;
    const ga_model_chunk *c = x->drw1;
    uint32_t D = m->n_draw, N = m->n_envelopes, R = 0;
    size_t kinds = c->offset + ga_get_u32be(x->d + c->offset + 0x0C);
    while (R < D && !m->draw_is_envelope[R]) R++;
    x->rigid = R;
    x->draw_limit = R + N < D ? R + N : D;
    /* entry R + k is drawn with envelope k whatever it stores
     * (J3DModel::calcDrawMtx) */
    for (uint32_t k = 0; k < N && R + k < D; k++)
        if (!m->draw_is_envelope[R + k] || m->draw_index[R + k] != k) {
            chk_add(x, "DRW1: entry %u is %s %u; the game draws it with envelope %u (entries after the joint entries "
                       "are the envelopes in EVP1 order) (offset 0x%zx)",
                    R + k, m->draw_is_envelope[R + k] ? "envelope" : "joint", m->draw_index[R + k], k, kinds + R + k);
            break;
        }
    /* TP sizes its draw matrices by count - N (readDraw) */
    if (D < R + 2 * N)
        chk_add(x, "DRW1: %u entries for %u joint entries and %u envelopes; the game needs count - %u >= %u (the "
                   "envelopes listed twice) (offset 0x%zx)",
                D, R, N, N, R + N, c->offset + 8);
}

/* ------------------------------------------------------------------ */
/* MAT3: pool indices, texture slots, unit limits                       */

/* Index fields of a 0x14C-byte material record: where, how many, the
 * header field of the pool, the pool's item size (j3d_materials.md 1). */
typedef struct mat_field {
    uint16_t at;
    uint8_t n, wide;
    uint8_t table;
    uint8_t item;
    const char *name;
} mat_field;

static const mat_field MAT_FIELDS[] = {
    {0x01, 1, 0, 0x1C, 4, "cull mode"},      {0x02, 1, 0, 0x24, 1, "channel count"},
    {0x03, 1, 0, 0x34, 1, "texgen count"},   {0x04, 1, 0, 0x58, 1, "TEV stage count"},
    {0x05, 1, 0, 0x78, 1, "z compare"},      {0x06, 1, 0, 0x74, 4, "z mode"},
    {0x07, 1, 0, 0x7C, 1, "dither"},         {0x08, 2, 1, 0x20, 4, "material colour"},
    {0x0C, 4, 1, 0x28, 8, "colour channel"}, {0x14, 2, 1, 0x2C, 4, "ambient colour"},
    {0x28, 8, 1, 0x38, 4, "texgen"},         {0x38, 8, 1, 0x3C, 4, "post texgen"},
    {0x48, 10, 1, 0x40, 0x64, "texture matrix"}, {0x84, 8, 1, 0x48, 2, "texture slot"},
    {0x94, 4, 1, 0x54, 4, "konst colour"},   {0xBC, 16, 1, 0x4C, 4, "TEV order"},
    {0xDC, 4, 1, 0x50, 8, "TEV colour"},     {0xE4, 16, 1, 0x5C, 0x14, "TEV stage"},
    {0x104, 16, 1, 0x60, 4, "swap mode"},    {0x124, 4, 1, 0x64, 4, "swap table"},
    {0x144, 1, 1, 0x68, 0x2C, "fog"},        {0x146, 1, 1, 0x6C, 8, "alpha compare"},
    {0x148, 1, 1, 0x70, 4, "blend mode"},    {0x14A, 1, 1, 0x80, 0x10, "NBT scale"},
};

static void check_mat3(chk *x)
{
    const ga_model_chunk *c = x->mat3;
    if (!within(c, c->offset, 0x84)) {
        chk_add(x, "MAT3: the chunk is too short for its header (offset 0x%zx)", c->offset);
        return;
    }
    /* no materials: the loader reads no table (their offsets may be 0, or
     * sit at the chunk's end) */
    if (x->nmaterials == 0) return;
    size_t entries = table_at(x, c, 0x0C, "entry table offset", 0), remap = table_at(x, c, 0x10, "remap table offset", 0);
    if (!entries || !remap) return;
    /* a pool runs to the next table in the chunk */
    uint32_t bounds[30];
    int nb = 0;
    for (size_t f = 0x0C; f <= 0x80; f += 4) bounds[nb++] = ga_get_u32be(x->d + c->offset + f);
    for (uint32_t i = 0; i < x->nmaterials; i++) {
        if (!within(c, remap + 2 * (size_t)i, 2)) {
            chk_add(x, "MAT3: the remap table runs past the chunk (offset 0x%zx)", remap);
            return;
        }
        uint32_t entry = ga_get_u16be(x->d + remap + 2 * (size_t)i);
        size_t e = entries + 0x14C * (size_t)entry;
        if (!within(c, e, 0x14C)) {
            chk_add(x, "MAT3: material %u's record %u lies past the chunk (offset 0x%zx)", i, entry, remap + 2 * (size_t)i);
            continue;
        }
        for (size_t f = 0; f < sizeof MAT_FIELDS / sizeof *MAT_FIELDS; f++) {
            const mat_field *mf = &MAT_FIELDS[f];
            uint32_t rel = ga_get_u32be(x->d + c->offset + mf->table), next = (uint32_t)c->size;
            for (int b = 0; b < nb; b++)
                if (bounds[b] > rel && bounds[b] < next) next = bounds[b];
            uint32_t pool = rel && rel < c->size ? (next - rel) / mf->item : 0;
            for (uint32_t k = 0; k < mf->n; k++) {
                size_t at = e + mf->at + (mf->wide ? 2 * k : k);
                uint32_t v = mf->wide ? ga_get_u16be(x->d + at) : x->d[at];
                if (v == (mf->wide ? 0xFFFFu : 0xFFu)) continue;
                if (v >= pool) {
                    chk_add(x, "MAT3: material %u's %s index %u lies past its table (%u entries) (offset 0x%zx)", i,
                            mf->name, v, pool, at);
                    continue;
                }
                size_t item = c->offset + rel + (size_t)v * mf->item;
                if (mf->table == 0x48) { /* a texture slot: a TEX1 index */
                    uint32_t t = ga_get_u16be(x->d + item);
                    if (x->tex1 && t >= x->ntextures)
                        chk_add(x, "MAT3: material %u's texture slot %u names texture %u of %u (offset 0x%zx)", i, k,
                                t, x->ntextures, item);
                    else if (!x->tex1)
                        chk_add(x, "MAT3: material %u's texture slot %u names texture %u, but the model has no TEX1 "
                                   "(offset 0x%zx)",
                                i, k, t, item);
                }
                /* unit limits (j3d_writer.md section 2) */
                uint32_t limit = mf->table == 0x24 ? 2 : mf->table == 0x34 ? 8 : mf->table == 0x58 ? 16 : 0;
                if (limit && x->d[item] > limit)
                    chk_add(x, "MAT3: material %u's %s is %u (the GX has %u) (offset 0x%zx)", i, mf->name, x->d[item],
                            limit, item);
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* TEX1: sizes, power-of-two rules, palettes, alignment                  */

static uint32_t block_w(uint8_t f) { return f == 0 || f == 8 || f == 14 ? 8 : (f == 1 || f == 2 || f == 9) ? 8 : 4; }
static uint32_t block_h(uint8_t f) { return f == 0 || f == 8 || f == 14 ? 8 : 4; }
static uint32_t bits_of(uint8_t f) { return f == 0 || f == 8 || f == 14 ? 4 : (f == 1 || f == 2 || f == 9) ? 8 : f == 6 ? 32 : 16; }
static int pow2(uint32_t v) { return v && !(v & (v - 1)); }

static void check_tex1(chk *x)
{
    const ga_model_chunk *c = x->tex1;
    if (x->ntextures == 0) return; /* (no header is read: the offset may be anything) */
    size_t headers = table_at(x, c, 0x0C, "header table offset", 0);
    if (!headers) return;
    size_t end = c->offset + c->size;
    for (uint32_t i = 0; i < x->ntextures; i++) {
        size_t h = headers + 0x20 * (size_t)i;
        if (!within(c, h, 0x20)) {
            chk_add(x, "TEX1: texture %u's header lies past the chunk (offset 0x%zx)", i, h);
            return;
        }
        const uint8_t *p = x->d + h;
        uint8_t fmt = p[0], ws = p[6], wt = p[7], levels = p[0x18];
        uint32_t w = ga_get_u16be(p + 2), ht = ga_get_u16be(p + 4), npal = ga_get_u16be(p + 0x0A);
        uint32_t pal = ga_get_u32be(p + 0x0C), img = ga_get_u32be(p + 0x1C);
        if (!(fmt <= 6 || (fmt >= 8 && fmt <= 10) || fmt == 14)) {
            chk_add(x, "TEX1: texture %u has format %u, not a GX texture format (offset 0x%zx)", i, fmt, h);
            continue;
        }
        if (w == 0 || ht == 0 || w > 1024 || ht > 1024)
            chk_add(x, "TEX1: texture %u is %ux%u; each side must be 1 to 1024 (offset 0x%zx)", i, w, ht, h + 2);
        if (ws > 2 || wt > 2)
            chk_add(x, "TEX1: texture %u wraps %u, %u (0 clamp, 1 repeat, 2 mirror) (offset 0x%zx)", i, ws, wt, h + 6);
        if ((ws && !pow2(w)) || (wt && !pow2(ht)))
            chk_add(x, "TEX1: texture %u is %ux%u with repeat or mirror wrap; those need a power-of-two side (offset "
                       "0x%zx)",
                    i, w, ht, h + 6);
        if (levels == 0)
            chk_add(x, "TEX1: texture %u has no image (image count 0) (offset 0x%zx)", i, h + 0x18);
        if (levels > 1 && (!pow2(w) || !pow2(ht)))
            chk_add(x, "TEX1: texture %u is %ux%u with %u mipmap levels; mipmaps need power-of-two sides (offset "
                       "0x%zx)",
                    i, w, ht, levels, h + 0x18);
        if (fmt >= 8 && fmt <= 10) {
            if (npal > 256)
                chk_add(x, "TEX1: texture %u has a %u-entry palette; J3D loads at most 256 (offset 0x%zx)", i, npal,
                        h + 0x0A);
            else if (pal && (!within(c, h + pal, 2 * (size_t)npal) || h + pal < h))
                chk_add(x, "TEX1: texture %u's palette runs past the chunk (offset 0x%zx)", i, h + 0x0C);
            else if (pal && (h + pal) % 32)
                chk_add(x, "TEX1: texture %u's palette at 0x%zx is not 32-byte aligned (offset 0x%zx)", i, h + pal,
                        h + 0x0C);
        }
        if (w == 0 || ht == 0 || w > 1024 || ht > 1024 || levels == 0) continue;
        uint64_t need = 0;
        for (uint32_t l = 0, lw = w, lh = ht; l < levels; l++) {
            uint64_t bw = (lw + block_w(fmt) - 1) / block_w(fmt), bh = (lh + block_h(fmt) - 1) / block_h(fmt);
            need += bw * bh * block_w(fmt) * block_h(fmt) * bits_of(fmt) / 8;
            lw = lw > 1 ? lw / 2 : 1;
            lh = lh > 1 ? lh / 2 : 1;
        }
        size_t at = h + img;
        if (img == 0 || at < h || at > end || need > end - at)
            chk_add(x, "TEX1: texture %u needs %llu bytes of image data at 0x%zx, past the chunk (offset 0x%zx)", i,
                    (unsigned long long)need, at, h + 0x1C);
        else if (at % 32)
            chk_add(x, "TEX1: texture %u's image data at 0x%zx is not 32-byte aligned (offset 0x%zx)", i, at, h + 0x1C);
    }
}

/* ------------------------------------------------------------------ */

static const ga_model_chunk *chunk_of(const ga_model *m, const char *tag)
{
    long i = ga_j3d_find_chunk(m, tag);
    return i < 0 ? NULL : &m->chunks[i];
}

static uint32_t count_of(chk *x, const ga_model_chunk *c)
{
    if (!c) return 0;
    if (c->size < 12) {
        chk_add(x, "%s: the chunk is too short for its count (offset 0x%zx)", c->tag, c->offset);
        return 0;
    }
    return ga_get_u16be(x->d + c->offset + 8);
}

int ga_j3d_check(const ga_model *m, ga_check_list *out, ga_error *err)
{
    memset(out, 0, sizeof *out);
    if (m->family != GA_RIG_J3D || m->size < 0x20)
        return ga_fail(err, GA_ERR_FORMAT, m->format, "magic", 0, "check_model reads J3D models (BMD / BDL) only");
    chk x;
    memset(&x, 0, sizeof x);
    x.m = m;
    x.d = m->data;
    x.size = m->size;
    x.out = out;
    x.inf1 = chunk_of(m, "INF1");
    x.vtx1 = chunk_of(m, "VTX1");
    x.evp1 = chunk_of(m, "EVP1");
    x.drw1 = chunk_of(m, "DRW1");
    x.jnt1 = chunk_of(m, "JNT1");
    x.shp1 = chunk_of(m, "SHP1");
    x.mat3 = chunk_of(m, "MAT3");
    x.mdl3 = chunk_of(m, "MDL3");
    x.tex1 = chunk_of(m, "TEX1");
    x.nshapes = count_of(&x, x.shp1);
    x.nmaterials = count_of(&x, x.mat3);
    x.ntextures = count_of(&x, x.tex1);
    x.rigid = m->n_draw;
    x.draw_limit = m->n_draw;
    x.shape_material = malloc((x.nshapes ? x.nshapes : 1) * sizeof *x.shape_material);
    x.shape_joint = malloc((x.nshapes ? x.nshapes : 1) * sizeof *x.shape_joint);
    x.world = malloc((m->nbones ? m->nbones : 1) * 16 * sizeof *x.world);
    if (!x.shape_material || !x.shape_joint || !x.world) {
        x.nomem = 1;
        goto done;
    }
    for (uint32_t i = 0; i < x.nshapes; i++) x.shape_material[i] = x.shape_joint[i] = -1;
    double zero = 0.0;
    ga_error werr;
    if (ga_model_world_matrices(m, NULL, NULL, &zero, 1, x.world, &werr) != GA_OK) {
        free(x.world);
        x.world = NULL;
    }
    ga_error merr;
    int mat_failed = 0;
    if (x.mat3 && ga_model_materials(m, &x.mats, &x.nmats, &merr) != GA_OK) {
        if (merr.code == GA_ERR_NOMEM) {
            x.nomem = 1;
            goto done;
        }
        mat_failed = 1;
        x.mats = NULL;
        x.nmats = 0;
    }
    check_layout(&x);
    check_names(&x, x.jnt1, 0x14, "joint");
    check_names(&x, x.mat3, 0x14, "material");
    check_names(&x, x.tex1, 0x10, "texture");
    if (x.inf1) check_inf1(&x);
    if (x.vtx1) read_vtx1(&x);
    if (x.evp1) check_evp1(&x);
    if (x.drw1) check_drw1(&x);
    if (x.mat3) {
        size_t before = out->count + out->dropped;
        check_mat3(&x);
        /* the decoder's refusal, unless a MAT3 rule above already said why */
        if (mat_failed && out->count + out->dropped == before)
            chk_add(&x, "MAT3: the materials do not decode: %s", merr.message);
    }
    if (x.shp1) chk_shp1(&x);
    if (x.vtx1_ok) check_vtx1_use(&x);
    if (x.inf1) check_inf1_counts(&x);
    if (x.tex1) check_tex1(&x);
    if (x.mdl3) chk_mdl3(&x);
done:
    ga_materials_free(x.mats, x.nmats);
    free(x.shape_material);
    free(x.shape_joint);
    free(x.world);
    if (!x.nomem && out->dropped) {
        size_t dropped = out->dropped;
        out->dropped = 0;
        out->count--; /* room for the note: the last problem makes way */
        free(out->items[out->count]);
        dropped++;
        chk_add(&x, "... and %zu more problems", dropped);
    }
    if (x.nomem) {
        ga_check_list_free(out);
        return ga_nomem(err, m->format);
    }
    return GA_OK;
}
