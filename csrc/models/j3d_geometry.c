/* J3D meshes (model.h ga_model_meshes): VTX1 vertex arrays, SHP1 shapes
 * (packets, matrix tables, GX display lists), DRW1 / EVP1 skinning, and
 * INF1's shape -> material links, into one ga_mesh per SHP1 shape.
 *
 * Positions come out in model space at the rest pose: a vertex drawn
 * through a rigid DRW1 entry (joint j) is stored in j's space and is moved
 * by j's rest world matrix W_j (skeleton.c, the game's rule); one drawn
 * through an envelope gets E = sum_k w_k * W_k * IB_k, as the game skins it.
 * Normals go through the inverse transpose of the same 3x3 and are
 * normalised.  Triangles are reversed from the GX order (GX fronts are
 * clockwise) and degenerate ones (two corners on one vertex) are dropped.
 * Layouts: ../shared/formats/j3d_meshes.md sections 2-4; docs/meshes.md. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* VTX1                                                                 */

/* GX attribute ids */
enum { ATTR_PNMTXIDX = 0, ATTR_POS = 9, ATTR_NRM = 10, ATTR_CLR0 = 11, ATTR_TEX0 = 13, ATTR_NBT = 25, ATTR_END = 0xFF };
/* Our key slots: POS, NRM, CLR0, CLR1, TEX0..TEX7 (attribute id - 9). */
#define NKEYS 12
#define KEY_WORDS (NKEYS + 1) /* + the DRW1 entry */

typedef struct vtx_array {
    int present;
    uint32_t comp_count, comp_type, shift;
    size_t base, end;   /* file offsets */
    size_t stride;      /* bytes per element */
    uint32_t length;    /* elements that fit before end */
    double scale;       /* 2^-shift */
} vtx_array;

static const char *const KEY_NAMES[NKEYS] = {"POS", "NRM", "CLR0", "CLR1", "TEX0", "TEX1",
                                             "TEX2", "TEX3", "TEX4", "TEX5", "TEX6", "TEX7"};
static const size_t COMP_SIZE[5] = {1, 1, 2, 2, 4};
static const size_t COLOR_SIZE[6] = {2, 3, 4, 2, 3, 4};

/* The VTX1 array slot of an attribute id (0 POS, 1 NRM, 2 NBT, 3 CLR0, ...). */
static int vtx1_slot(uint32_t attr)
{
    if (attr == ATTR_POS) return 0;
    if (attr == ATTR_NRM) return 1;
    if (attr == ATTR_NBT) return 2;
    if (attr >= ATTR_CLR0 && attr <= 20) return (int)attr - ATTR_CLR0 + 3;
    return -1;
}

/* Reads VTX1's format list and array offsets into arrays[NKEYS] (indexed
 * by attribute id - 9). */
static int read_vtx1(const ga_reader *r, const ga_model_chunk *c, vtx_array *arrays)
{
    memset(arrays, 0, NKEYS * sizeof *arrays);
    int rc = ga_need(r, c->offset, 0x40, "VTX1 header");
    if (rc) return rc;
    size_t fmt;
    if ((rc = ga_j3d_table_at(r, c, 0x08, "VTX1 format list offset", &fmt))) return rc;
    size_t end = c->offset + c->size;
    uint32_t slot_off[13];
    for (int s = 0; s < 13; s++) slot_off[s] = ga_get_u32be(r->data + c->offset + 0x0C + 4 * (size_t)s);
    /* (a slot that no format record uses is never read, whatever it holds;
     * one past the chunk bounds no array: arrays end at the next offset
     * below the chunk's size) */
    for (size_t at = fmt;; at += 16) {
        if (at + 16 > end)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "VTX1 format list", (long long)at,
                           "the format list runs past the VTX1 chunk without its end record (attribute 0xFF)");
        const uint8_t *p = r->data + at;
        uint32_t attr = ga_get_u32be(p);
        if (attr == ATTR_END) break;
        /* matrix indices are always inline: the GX has no format for them
         * and ignores such a record */
        if (attr < ATTR_POS) continue;
        int slot = vtx1_slot(attr);
        if (slot < 0)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "VTX1 attribute", (long long)at,
                           "attribute %u has no VTX1 array (POS 9, NRM 10, CLR0 11, CLR1 12, TEX0-7 13-20, NBT 25)",
                           attr);
        if (slot == 2) continue; /* NBT's own array: the normal comes from NRM (see below) */
        vtx_array *a = &arrays[attr - ATTR_POS];
        a->comp_count = ga_get_u32be(p + 4);
        a->comp_type = ga_get_u32be(p + 8);
        a->shift = p[12];
        int color = attr == ATTR_CLR0 || attr == ATTR_CLR0 + 1;
        uint32_t max_count = attr == ATTR_NRM ? 2 : 1;
        if (a->comp_type > (color ? 5u : 4u) || a->comp_count > max_count)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "VTX1 component format", (long long)at + 4,
                           "%s with component count %u and type %u (%s)", KEY_NAMES[attr - ATTR_POS], a->comp_count,
                           a->comp_type,
                           color ? "count 0 RGB or 1 RGBA; type 0-5: RGB565, RGB8, RGBX8, RGBA4, RGBA6, RGBA8"
                                 : "type 0-4: u8, s8, u16, s16, f32");
        if (a->shift > 31)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "VTX1 fraction shift", (long long)at + 12,
                           "shift %u (at most 31)", a->shift);
        a->scale = ldexp(1.0, -(int)a->shift);
        size_t ncomp = attr == ATTR_POS ? 2 + a->comp_count
                       : attr == ATTR_NRM ? (a->comp_count ? 9 : 3)
                       : color ? 1 : 1 + a->comp_count;
        a->stride = color ? COLOR_SIZE[a->comp_type] : ncomp * COMP_SIZE[a->comp_type];
        uint32_t rel = slot_off[slot];
        /* a format without an array is harmless until a shape indexes it:
         * that shape is refused then (read_desc) */
        if (rel == 0) continue;
        if (rel >= c->size)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "VTX1 array offset",
                           (long long)(c->offset + 0x0C + 4 * slot),
                           "%s's array offset 0x%x lies outside the VTX1 chunk (%zu bytes)",
                           KEY_NAMES[attr - ATTR_POS], rel, c->size);
        /* the array runs to the next array after it, or the chunk's end */
        uint32_t next = (uint32_t)c->size;
        for (int s = 0; s < 13; s++)
            if (slot_off[s] > rel && slot_off[s] < next) next = slot_off[s];
        a->base = c->offset + rel;
        a->end = c->offset + next;
        a->length = (uint32_t)((a->end - a->base) / a->stride);
        a->present = 1;
    }
    return GA_OK;
}

/* (inlined: called per vertex and component; a call returning through
 * memory stalled the stores after it) */
#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

HOT_INLINE double component(const uint8_t *p, uint32_t type, double scale)
{
    switch (type) {
    case 0: return p[0] * scale;
    case 1: return (int8_t)p[0] * scale;
    case 2: return ga_get_u16be(p) * scale;
    case 3: return (int16_t)ga_get_u16be(p) * scale;
    default: return ga_get_f32be(p);
    }
}

/* n components of element i (scaled by 2^-shift, or by 1 for normals). */
HOT_INLINE void read_components(const vtx_array *a, const uint8_t *data, uint32_t i, int n, int use_shift,
                                double *out)
{
    const uint8_t *p = data + a->base + (size_t)i * a->stride;
    double scale = use_shift ? a->scale : 1.0;
    for (int k = 0; k < n; k++) out[k] = component(p + k * COMP_SIZE[a->comp_type], a->comp_type, scale);
}

static void read_color(const vtx_array *a, const uint8_t *data, uint32_t i, float *out)
{
    const uint8_t *p = data + a->base + (size_t)i * a->stride;
    unsigned v, rgba[4];
    switch (a->comp_type) {
    case 0: /* RGB565 */
        v = ga_get_u16be(p);
        rgba[0] = ((v >> 11) << 3) | (v >> 13);
        rgba[1] = (((v >> 5) & 63) << 2) | ((v >> 9) & 3);
        rgba[2] = ((v & 31) << 3) | ((v >> 2) & 7);
        rgba[3] = 255;
        break;
    case 1: /* RGB8 */
    case 2: /* RGBX8 */
        rgba[0] = p[0], rgba[1] = p[1], rgba[2] = p[2], rgba[3] = 255;
        break;
    case 3: /* RGBA4 */
        v = ga_get_u16be(p);
        for (int k = 0; k < 4; k++) rgba[k] = ((v >> (12 - 4 * k)) & 15) * 17;
        break;
    case 4: /* RGBA6 */
        v = ((unsigned)p[0] << 16) | ((unsigned)p[1] << 8) | p[2];
        for (int k = 0; k < 4; k++) {
            unsigned c6 = (v >> (18 - 6 * k)) & 63;
            rgba[k] = (c6 << 2) | (c6 >> 4);
        }
        break;
    default: /* RGBA8 */
        for (int k = 0; k < 4; k++) rgba[k] = p[k];
        break;
    }
    if (a->comp_count == 0) rgba[3] = 255; /* RGB: no alpha */
    for (int k = 0; k < 4; k++) out[k] = (float)(rgba[k] / 255.0);
}

/* ------------------------------------------------------------------ */
/* Skinning at rest: one matrix (3x4, double) per DRW1 entry             */

typedef struct draw_matrix {
    double m[12], n[9];  /* position matrix; normal matrix (inverse transpose of its 3x3) */
    uint32_t njoints;
    uint32_t first;      /* into the joints / weights lists below */
} draw_matrix;

typedef struct skin {
    draw_matrix *draw;
    uint32_t *joints;
    float *weights;
    uint32_t max_influences;
} skin;

static void inverse_transpose(const double *m, double *n)
{
    /* cofactors of the 3x3 part (rows of 4) divided by the determinant */
    double a = m[0], b = m[1], c = m[2], d = m[4], e = m[5], f = m[6], g = m[8], h = m[9], i = m[10];
    double co[9] = {e * i - f * h, f * g - d * i, d * h - e * g, c * h - b * i, a * i - c * g,
                    b * g - a * h, b * f - c * e, c * d - a * f, a * e - b * d};
    double det = a * co[0] + b * co[1] + c * co[2];
    if (det == 0.0 || !isfinite(det)) {
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++) n[3 * r + k] = m[4 * r + k];
        return;
    }
    for (int k = 0; k < 9; k++) n[k] = co[k] / det;
}

static int build_skin(const ga_model *m, const ga_reader *r, skin *sk)
{
    memset(sk, 0, sizeof *sk);
    ga_error *err = r->err;
    float *world = malloc((size_t)m->nbones * 16 * sizeof *world);
    /* EVP1's per-envelope lists (already validated by bmd.c) */
    size_t wcounts = 0, indices = 0, weights = 0;
    long evp1 = ga_j3d_find_chunk(m, "EVP1");
    if (m->n_envelopes && evp1 >= 0) {
        const ga_model_chunk *c = &m->chunks[evp1];
        wcounts = c->offset + ga_get_u32be(r->data + c->offset + 0x0C);
        indices = c->offset + ga_get_u32be(r->data + c->offset + 0x10);
        weights = c->offset + ga_get_u32be(r->data + c->offset + 0x14);
    }
    uint32_t total = m->n_draw; /* joints listed over all entries */
    for (uint32_t d = 0; d < m->n_draw; d++)
        if (m->draw_is_envelope[d]) total += r->data[wcounts + m->draw_index[d]];
    /* where each envelope's list starts */
    uint32_t *env_first = malloc((m->n_envelopes + 1) * sizeof *env_first);
    if (env_first) {
        env_first[0] = 0;
        for (uint32_t e = 0; e < m->n_envelopes; e++) env_first[e + 1] = env_first[e] + r->data[wcounts + e];
    }
    sk->draw = calloc(m->n_draw ? m->n_draw : 1, sizeof *sk->draw);
    sk->joints = malloc((total ? total : 1) * sizeof *sk->joints);
    sk->weights = malloc((total ? total : 1) * sizeof *sk->weights);
    double zero = 0.0;
    int rc = !world || !env_first || !sk->draw || !sk->joints || !sk->weights
                 ? ga_nomem(err, m->format)
                 : ga_model_world_matrices(m, NULL, NULL, &zero, 1, world, err);
    if (rc) {
        free(world);
        free(env_first);
        return rc;
    }
    uint32_t at = 0;
    sk->max_influences = 1;
    for (uint32_t d = 0; d < m->n_draw; d++) {
        draw_matrix *dm = &sk->draw[d];
        dm->first = at;
        uint32_t idx = m->draw_index[d];
        if (!m->draw_is_envelope[d]) {
            for (int k = 0; k < 12; k++) dm->m[k] = world[16 * (size_t)idx + k];
            sk->joints[at] = idx;
            sk->weights[at++] = 1.0f;
            dm->njoints = 1;
        } else {
            size_t first = env_first[idx];
            uint32_t n = r->data[wcounts + idx];
            for (uint32_t k = 0; k < n; k++) {
                uint32_t j = ga_get_u16be(r->data + indices + 2 * (first + k));
                float w = ga_get_f32be(r->data + weights + 4 * (first + k));
                const float *W = world + 16 * (size_t)j;
                const float *ib = m->inverse_binds[j];
                for (int row = 0; row < 3; row++)
                    for (int col = 0; col < 4; col++) {
                        double s = col == 3 ? W[4 * row + 3] : 0.0;
                        for (int q = 0; q < 3; q++) s += (double)W[4 * row + q] * ib[4 * q + col];
                        dm->m[4 * row + col] += w * s;
                    }
                sk->joints[at] = j;
                sk->weights[at++] = w;
            }
            dm->njoints = n;
            if (n > sk->max_influences) sk->max_influences = n;
        }
        inverse_transpose(dm->m, dm->n);
    }
    free(world);
    free(env_first);
    return GA_OK;
}

static void free_skin(skin *sk)
{
    free(sk->draw);
    free(sk->joints);
    free(sk->weights);
}

/* ------------------------------------------------------------------ */
/* Meshes                                                               */

static void mesh_free(ga_mesh *s)
{
    free(s->positions);
    free(s->normals);
    for (int k = 0; k < 2; k++) free(s->colors[k]), free(s->color_index[k]);
    for (int k = 0; k < 8; k++) free(s->uvs[k]), free(s->uv_index[k]);
    free(s->triangles);
    free(s->joints);
    free(s->weights);
    free(s->position_index);
    free(s->draw_index);
    free(s->normal_index);
}

void ga_meshes_free(ga_mesh *meshes, uint32_t n)
{
    if (!meshes) return;
    for (uint32_t i = 0; i < n; i++) mesh_free(&meshes[i]);
    free(meshes);
}

/* A growable array of u32. */
typedef struct u32vec {
    uint32_t *v;
    size_t n, cap;
} u32vec;

static int push(u32vec *a, const uint32_t *x, size_t n)
{
    if (n <= 3 && a->cap - a->n >= n) { /* (the common cases: a corner, a triangle) */
        for (size_t k = 0; k < n; k++) a->v[a->n + k] = x[k];
        a->n += n;
        return 0;
    }
    if (a->n + n > a->cap) {
        size_t cap = a->cap ? a->cap : 64;
        while (cap < a->n + n) cap *= 2;
        uint32_t *v = realloc(a->v, cap * sizeof *v);
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    if (n) memcpy(a->v + a->n, x, n * sizeof *x); /* (a->v may still be NULL when n is 0) */
    a->n += n;
    return 0;
}

/* The distinct vertices of one shape: KEY_WORDS words each (the DRW1
 * entry, then the index of each attribute, 0 when absent), found through
 * an open-addressing hash table. */
typedef struct vertex_set {
    u32vec keys;
    uint32_t *table; /* vertex + 1, 0 = empty */
    size_t cap;      /* power of two */
} vertex_set;

/* A sum of independent products (no chain of dependent multiplies: the
 * lookup runs once per display-list corner), then mixed. */
static uint32_t key_hash(const uint32_t *k)
{
    static const uint64_t MUL[KEY_WORDS] = {
        0x9E3779B97F4A7C15u, 0xC2B2AE3D27D4EB4Fu, 0x165667B19E3779F9u, 0xD6E8FEB86659FD93u, 0xFF51AFD7ED558CCDu,
        0xC4CEB9FE1A85EC53u, 0x94D049BB133111EBu, 0xBF58476D1CE4E5B9u, 0x2545F4914F6CDD1Du, 0x9FB21C651E98DF25u,
        0xA0761D6478BD642Fu, 0xE7037ED1A0B428DBu, 0x8EBC6AF09C88C6E3u};
    uint64_t h = 0;
    for (int i = 0; i < KEY_WORDS; i++) h += (k[i] + (uint64_t)i * 0x10001u + 1) * MUL[i];
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9u;
    return (uint32_t)(h ^ (h >> 32));
}

static int vertex_set_grow(vertex_set *s)
{
    size_t cap = s->cap ? s->cap * 2 : 256;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t) return -1;
    size_t nv = s->keys.n / KEY_WORDS;
    for (size_t v = 0; v < nv; v++) {
        size_t h = key_hash(s->keys.v + v * KEY_WORDS) & (cap - 1);
        while (t[h]) h = (h + 1) & (cap - 1);
        t[h] = (uint32_t)v + 1;
    }
    free(s->table);
    s->table = t;
    s->cap = cap;
    return 0;
}

/* The vertex of key k (added when new), or -1 when out of memory. */
static long vertex_of(vertex_set *s, const uint32_t *k)
{
    size_t nv = s->keys.n / KEY_WORDS;
    if ((nv + 1) * 2 > s->cap && vertex_set_grow(s) < 0) return -1;
    size_t h = key_hash(k) & (s->cap - 1);
    while (s->table[h]) {
        const uint32_t *o = s->keys.v + (size_t)(s->table[h] - 1) * KEY_WORDS;
        if (memcmp(o, k, KEY_WORDS * sizeof *k) == 0) return (long)s->table[h] - 1;
        h = (h + 1) & (s->cap - 1);
    }
    if (push(&s->keys, k, KEY_WORDS) < 0) return -1;
    s->table[h] = (uint32_t)nv + 1;
    return (long)nv;
}

/* What the geometry decoder holds while it reads the shapes. */
typedef struct geo {
    const ga_model *m;
    const ga_reader *r;
    const ga_model_chunk *shp1;
    vtx_array arrays[NKEYS];
    skin sk;
    size_t descs, mtable, dl, mdata, ploc; /* SHP1 tables (file offsets) */
    uint64_t corners;                      /* over all shapes so far (limit) */
} geo;

/* One vertex's attribute in a display list: its id and how it is stored. */
typedef struct desc_attr {
    uint32_t attr, type;
} desc_attr;

/* Reads a shape's vertex descriptor into out[], in the GX's order.  The list
 * may name its attributes in any order: the GX reads each vertex's values
 * from the display list in its own fixed order (PNMTXIDX, TEX0-7MTXIDX,
 * POS, NRM, CLR0, CLR1, TEX0-7: ascending attribute id) whatever the order
 * of the list that enabled them, so the list is sorted here.  Refused: what
 * the hardware cannot draw (see docs/meshes.md, "Layout rules"). */
static int read_desc(const geo *g, size_t at, desc_attr *out, int *n)
{
    const ga_reader *r = g->r;
    size_t end = g->shp1->offset + g->shp1->size;
    uint32_t listed = 0; /* bit per attribute id 0-20 (NBT is refused below) */
    *n = 0;
    for (;; at += 8) {
        if (at + 8 > end)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 vertex descriptor", (long long)at,
                           "the descriptor runs past the SHP1 chunk without its end (attribute 0xFF)");
        uint32_t attr = ga_get_u32be(r->data + at), type = ga_get_u32be(r->data + at + 4);
        if (attr == ATTR_END) break;
        if (attr > 20 && attr != ATTR_NBT)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 vertex attribute", (long long)at,
                           "attribute %u is not a GX vertex attribute (0-20, 25)", attr);
        if (type > 3)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 attribute type", (long long)at + 4,
                           "type %u (0 none, 1 direct, 2 8-bit index, 3 16-bit index)", type);
        if (attr == ATTR_NBT)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 vertex attribute", (long long)at,
                           "NBT (normal, binormal, tangent) vertex data is not supported");
        /* one field of the vertex descriptor per attribute: a second entry
         * has no field of its own to describe */
        if (listed >> attr & 1)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 vertex attribute", (long long)at,
                           "attribute %u listed twice", attr);
        listed |= 1u << attr;
        if (type == 0) continue;
        if (attr >= ATTR_POS && type == 1)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 attribute type", (long long)at + 4,
                           "direct (inline) vertex data for attribute %u is not supported (J3D indexes its arrays)",
                           attr);
        if (attr < ATTR_POS && type != 1)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 attribute type", (long long)at + 4,
                           "matrix index attribute %u must be direct (type 1), not %u", attr, type);
        if (attr >= ATTR_POS && !g->arrays[attr - ATTR_POS].present)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 vertex attribute", (long long)at,
                           "the shape uses %s, which VTX1 does not have", KEY_NAMES[attr - ATTR_POS]);
        /* insertion into GX order (at most 21 distinct attributes) */
        int k = (*n)++;
        for (; k > 0 && out[k - 1].attr > attr; k--) out[k] = out[k - 1];
        out[k] = (desc_attr){attr, type};
    }
    int has_pos = 0;
    for (int k = 0; k < *n; k++) has_pos |= out[k].attr == ATTR_POS;
    if (!has_pos)
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 vertex descriptor", (long long)at,
                       "the shape's vertices have no position (POS)");
    return GA_OK;
}

/* Triangulates one primitive's vertex list (GX order: clockwise fronts)
 * into tris, reversed for counter-clockwise fronts, dropping degenerate
 * triangles. */
static int add_triangle(u32vec *tris, uint32_t a, uint32_t b, uint32_t c)
{
    if (a == b || b == c || a == c) return 0;
    uint32_t t[3] = {a, c, b};
    return push(tris, t, 3);
}

static int triangulate(uint8_t prim, const uint32_t *v, uint32_t n, u32vec *tris)
{
    int rc = 0;
    switch (prim) {
    case 0x80: case 0x88: /* quads */
        for (uint32_t i = 0; i + 3 < n && !rc; i += 4)
            rc = add_triangle(tris, v[i], v[i + 1], v[i + 2]) || add_triangle(tris, v[i], v[i + 2], v[i + 3]);
        break;
    case 0x90: /* triangles */
        for (uint32_t i = 0; i + 2 < n && !rc; i += 3) rc = add_triangle(tris, v[i], v[i + 1], v[i + 2]);
        break;
    case 0x98: /* strip */
        for (uint32_t i = 0; i + 2 < n && !rc; i++)
            rc = (i & 1) ? add_triangle(tris, v[i + 1], v[i], v[i + 2]) : add_triangle(tris, v[i], v[i + 1], v[i + 2]);
        break;
    case 0xA0: /* fan */
        for (uint32_t i = 0; i + 2 < n && !rc; i++) rc = add_triangle(tris, v[0], v[i + 1], v[i + 2]);
        break;
    default: break; /* lines, points */
    }
    return rc;
}

/* Reads one packet's display list (size bytes at `at`), with the matrix
 * slots `slots` (-1 = never loaded), adding vertices and triangles. */
static int read_display_list(geo *g, size_t at, size_t size, const desc_attr *desc, int ndesc, const int32_t *slots,
                             vertex_set *vs, u32vec *tris, u32vec *prim_verts)
{
    const ga_reader *r = g->r;
    const uint8_t *d = r->data;
    size_t end = at + size;
    size_t vsize = 0;
    for (int k = 0; k < ndesc; k++) vsize += desc[k].type == 3 ? 2 : 1;
    while (at < end) {
        uint8_t cmd = d[at];
        size_t cmd_at = at++;
        if (cmd == 0x00 || cmd == 0x48) continue;
        size_t skip = 0;
        switch (cmd & 0xF8) {
        case 0x08: skip = 5; break;
        case 0x20: case 0x28: case 0x30: case 0x38: skip = 4; break;
        case 0x40: skip = 8; break;
        case 0x10:
            if (at + 2 > end) goto truncated;
            skip = 4 + 4 * ((size_t)ga_get_u16be(d + at) + 1);
            break;
        case 0x80: case 0x88: case 0x90: case 0x98: case 0xA0: case 0xA8: case 0xB0: case 0xB8: break;
        default:
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 display list command", (long long)cmd_at,
                           "command byte 0x%02x is not a GX display-list command", cmd);
        }
        if (skip) {
            if (skip > end - at) goto truncated;
            at += skip;
            continue;
        }
        if (at + 2 > end) goto truncated;
        uint32_t count = ga_get_u16be(d + at);
        at += 2;
        if ((uint64_t)count * vsize > end - at) goto truncated;
        g->corners += count;
        int rc = ga_check_decoded(&g->m->opts, g->m->size, g->corners, 64, "vertex corners", r->format,
                                  "SHP1 display list", (long long)cmd_at, r->err);
        if (rc) return rc;
        prim_verts->n = 0;
        for (uint32_t v = 0; v < count; v++) {
            uint32_t key[KEY_WORDS] = {0};
            uint32_t slot = 0;
            for (int k = 0; k < ndesc; k++) {
                uint32_t val;
                size_t val_at = at;
                if (desc[k].type == 3) {
                    val = ga_get_u16be(d + at);
                    at += 2;
                } else {
                    val = d[at++];
                }
                uint32_t attr = desc[k].attr;
                if (attr == ATTR_PNMTXIDX) {
                    slot = val / 3;
                    if (val % 3 || slot >= 10)
                        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 position matrix index",
                                       (long long)val_at, "matrix index %u is not a matrix row address (0, 3, ..., 27)",
                                       val);
                } else if (attr >= ATTR_POS) {
                    const vtx_array *a = &g->arrays[attr - ATTR_POS];
                    if (val >= a->length)
                        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 vertex index", (long long)val_at,
                                       "%s index %u, but the VTX1 array holds %u entries", KEY_NAMES[attr - ATTR_POS],
                                       val, a->length);
                    key[1 + attr - ATTR_POS] = val;
                }
            }
            if (slots[slot] < 0)
                return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 matrix table", (long long)cmd_at,
                               "a vertex uses matrix slot %u, which no packet of the shape has loaded", slot);
            key[0] = (uint32_t)slots[slot];
            if ((cmd & 0xF8) >= 0xA8) continue; /* lines and points: checked, not kept */
            long vi = vertex_of(vs, key);
            uint32_t u = (uint32_t)vi;
            if (vi < 0 || push(prim_verts, &u, 1) < 0) return ga_nomem(r->err, r->format);
        }
        if (triangulate(cmd & 0xF8, prim_verts->v, (uint32_t)prim_verts->n, tris)) return ga_nomem(r->err, r->format);
    }
    return GA_OK;
truncated:
    return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 display list", (long long)at,
                   "a command runs past the end of its packet");
}

/* Fills the mesh's arrays from its distinct vertices. */
static int fill_mesh(geo *g, const vertex_set *vs, const desc_attr *desc, int ndesc, ga_mesh *s)
{
    const uint8_t *d = g->r->data;
    size_t nv = vs->keys.n / KEY_WORDS;
    s->nverts = (uint32_t)nv;
    int has[NKEYS] = {0};
    for (int k = 0; k < ndesc; k++)
        if (desc[k].attr >= ATTR_POS) has[desc[k].attr - ATTR_POS] = 1;
    uint32_t K = 1;
    for (size_t v = 0; v < nv; v++) {
        uint32_t n = g->sk.draw[vs->keys.v[v * KEY_WORDS]].njoints;
        if (n > K) K = n;
    }
    s->influences = K;
    int rc = ga_check_decoded(&g->m->opts, g->m->size, (uint64_t)nv * K, 8, "vertex weights", g->r->format,
                              "SHP1 shapes", (long long)g->shp1->offset, g->r->err);
    if (rc) return rc;
    size_t n1 = nv ? nv : 1;
    s->positions = malloc(n1 * 3 * sizeof(float));
    s->normals = has[1] ? malloc(n1 * 3 * sizeof(float)) : NULL;
    s->normal_index = has[1] ? malloc(n1 * sizeof(uint32_t)) : NULL;
    s->joints = calloc(n1 * K, sizeof(uint32_t));
    s->weights = calloc(n1 * K, sizeof(float));
    s->position_index = malloc(n1 * sizeof(uint32_t));
    s->draw_index = malloc(n1 * sizeof(uint32_t));
    int bad = !s->positions || (has[1] && (!s->normals || !s->normal_index)) || !s->joints || !s->weights || !s->position_index ||
              !s->draw_index;
    for (int c = 0; c < 2; c++)
        if (has[2 + c]) {
            s->color_channel[s->ncolors] = (uint8_t)c;
            bad |= !(s->color_index[s->ncolors] = malloc(n1 * sizeof(uint32_t)));
            bad |= !(s->colors[s->ncolors++] = malloc(n1 * 4 * sizeof(float)));
        }
    for (int t = 0; t < 8; t++)
        if (has[4 + t]) {
            s->uv_channel[s->nuvs] = (uint8_t)t;
            bad |= !(s->uv_index[s->nuvs] = malloc(n1 * sizeof(uint32_t)));
            bad |= !(s->uvs[s->nuvs++] = malloc(n1 * 2 * sizeof(float)));
        }
    if (bad) return ga_nomem(g->r->err, g->r->format);
    for (size_t v = 0; v < nv; v++) {
        const uint32_t *key = vs->keys.v + v * KEY_WORDS;
        const draw_matrix *dm = &g->sk.draw[key[0]];
        s->draw_index[v] = key[0];
        s->position_index[v] = key[1];
        double p[3] = {0, 0, 0};
        const vtx_array *pa = &g->arrays[0];
        read_components(pa, d, key[1], pa->comp_count ? 3 : 2, 1, p);
        for (int row = 0; row < 3; row++)
            s->positions[3 * v + row] =
                (float)(dm->m[4 * row] * p[0] + dm->m[4 * row + 1] * p[1] + dm->m[4 * row + 2] * p[2] + dm->m[4 * row + 3]);
        if (has[1]) {
            double nrm[3], o[3], len = 0;
            s->normal_index[v] = key[2];
            read_components(&g->arrays[1], d, key[2], 3, 0, nrm);
            for (int row = 0; row < 3; row++) {
                o[row] = dm->n[3 * row] * nrm[0] + dm->n[3 * row + 1] * nrm[1] + dm->n[3 * row + 2] * nrm[2];
                len += o[row] * o[row];
            }
            len = sqrt(len);
            for (int row = 0; row < 3; row++) s->normals[3 * v + row] = len > 0 ? (float)(o[row] / len) : 0.0f;
        }
        for (uint32_t c = 0; c < s->ncolors; c++) s->color_index[c][v] = key[3 + s->color_channel[c]];
        for (uint32_t t = 0; t < s->nuvs; t++) s->uv_index[t][v] = key[5 + s->uv_channel[t]];
        for (uint32_t c = 0; c < s->ncolors; c++)
            read_color(&g->arrays[2 + s->color_channel[c]], d, key[3 + s->color_channel[c]], s->colors[c] + 4 * v);
        for (uint32_t t = 0; t < s->nuvs; t++) {
            const vtx_array *ta = &g->arrays[4 + s->uv_channel[t]];
            double st[2] = {0, 0};
            read_components(ta, d, key[5 + s->uv_channel[t]], ta->comp_count ? 2 : 1, 1, st);
            s->uvs[t][2 * v] = (float)st[0];
            s->uvs[t][2 * v + 1] = (float)st[1];
        }
        for (uint32_t k = 0; k < dm->njoints; k++) {
            s->joints[v * K + k] = g->sk.joints[dm->first + k];
            s->weights[v * K + k] = g->sk.weights[dm->first + k];
        }
    }
    return GA_OK;
}

static int read_shape(geo *g, uint32_t i, size_t rec, ga_mesh *s)
{
    const ga_reader *r = g->r;
    const uint8_t *d = r->data;
    int rc = ga_need(r, rec, 0x28, "SHP1 shape record");
    if (rc) return rc;
    s->matrix_type = d[rec];
    uint32_t npackets = ga_get_u16be(d + rec + 2), desc_off = ga_get_u16be(d + rec + 4);
    uint32_t first_mdata = ga_get_u16be(d + rec + 6), first_ploc = ga_get_u16be(d + rec + 8);
    if (s->matrix_type > 3)
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 matrix type", (long long)rec,
                       "shape %u: matrix type %u (0 single, 1 billboard, 2 Y billboard, 3 multi)", i, s->matrix_type);
    desc_attr desc[21];
    int ndesc;
    if ((rc = read_desc(g, g->descs + desc_off, desc, &ndesc))) return rc;
    size_t end = g->shp1->offset + g->shp1->size;
    int32_t slots[10];
    for (int k = 0; k < 10; k++) slots[k] = -1;
    vertex_set vs = {{NULL, 0, 0}, NULL, 0};
    u32vec tris = {NULL, 0, 0}, prim = {NULL, 0, 0};
    for (uint32_t p = 0; p < npackets && !rc; p++) {
        size_t md = g->mdata + 8 * (size_t)(first_mdata + p), pl = g->ploc + 8 * (size_t)(first_ploc + p);
        if ((rc = ga_need(r, md, 8, "SHP1 matrix data"))) break;
        if ((rc = ga_need(r, pl, 8, "SHP1 packet location"))) break;
        if (md + 8 > end || pl + 8 > end) {
            rc = ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 packet", (long long)rec + 6,
                         "shape %u: packet %u's records lie past the SHP1 chunk", i, p);
            break;
        }
        uint32_t count = ga_get_u16be(d + md + 2), first = ga_get_u32be(d + md + 4);
        if (count > 10) {
            rc = ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 matrix count", (long long)md + 2,
                         "a packet loads %u matrices (the GX has 10 slots)", count);
            break;
        }
        size_t mt = g->mtable + 2 * (size_t)first;
        if (first > (end - g->mtable) / 2 || 2 * (size_t)count > end - mt) {
            rc = ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 matrix table index", (long long)md + 4,
                         "entries %u..%u lie past the SHP1 chunk", first, first + count);
            break;
        }
        for (uint32_t k = 0; k < count; k++) {
            uint16_t e = ga_get_u16be(d + mt + 2 * k);
            if (e == 0xFFFF) continue; /* the slot keeps what an earlier packet loaded */
            if (e >= g->m->n_draw) {
                rc = ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 matrix table", (long long)(mt + 2 * k),
                             "DRW1 entry %u of %u", e, g->m->n_draw);
                break;
            }
            slots[k] = e;
        }
        if (rc) break;
        uint32_t psize = ga_get_u32be(d + pl), poff = ga_get_u32be(d + pl + 4);
        if (poff > end - g->dl || psize > end - g->dl - poff) {
            rc = ga_fail(r->err, GA_ERR_FORMAT, r->format, "SHP1 packet location", (long long)pl,
                         "a %u-byte display list at 0x%x runs past the SHP1 chunk", psize, poff);
            break;
        }
        rc = read_display_list(g, g->dl + poff, psize, desc, ndesc, slots, &vs, &tris, &prim);
    }
    if (!rc) rc = fill_mesh(g, &vs, desc, ndesc, s);
    if (!rc) {
        s->ntris = (uint32_t)(tris.n / 3);
        s->triangles = tris.v ? tris.v : malloc(sizeof(uint32_t));
        tris.v = NULL;
        if (!s->triangles) rc = ga_nomem(r->err, r->format);
    }
    free(tris.v);
    free(prim.v);
    free(vs.keys.v);
    free(vs.table);
    return rc;
}

/* INF1: each shape node takes the material node most recently before it. */
static void shape_materials(const ga_model *m, int32_t *materials, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) materials[i] = -1;
    long ci = ga_j3d_find_chunk(m, "INF1");
    if (ci < 0) return;
    const ga_model_chunk *c = &m->chunks[ci];
    size_t at = c->offset + ga_get_u32be(m->data + c->offset + 0x14), end = c->offset + c->size;
    int32_t material = -1;
    for (; at + 4 <= end; at += 4) { /* (bmd.c checked the walk ends with a type 0 node) */
        uint16_t type = ga_get_u16be(m->data + at), value = ga_get_u16be(m->data + at + 2);
        if (type == 0) break;
        if (type == 0x11) material = value;
        if (type == 0x12 && value < n) materials[value] = material;
    }
}

/* A per-packet SHP1 table (matrix table, display lists, matrix data,
 * packet locations): as ga_j3d_table_at, but an offset of exactly the
 * chunk's size is an empty table at its end, as regenerate writes the
 * tables of shapes without packets; every read of these tables is checked
 * against the chunk's end (read_shape). */
static int packet_table_at(const ga_reader *r, const ga_model_chunk *c, size_t field_at, const char *field,
                           size_t *out)
{
    uint32_t rel;
    int rc = ga_rd_u32be(r, c->offset + field_at, field, &rel);
    if (rc || rel != c->size) return rc ? rc : ga_j3d_table_at(r, c, field_at, field, out);
    *out = c->offset + rel;
    return GA_OK;
}

/* Shapes first..last-1 (clamped to the count) through fn. */
static int meshes_range(const ga_model *m, uint32_t first, uint32_t last, ga_mesh_fn fn, void *ctx, ga_error *err)
{
    const ga_model_chunk *c;
    ga_reader r;
    uint16_t count;
    int rc = ga_j3d_chunk_count(m, "SHP1", "SHP1 shape count", &r, err, &c, &count);
    if (rc || count == 0) return rc;
    geo g;
    memset(&g, 0, sizeof g);
    g.m = m;
    g.r = &r;
    g.shp1 = c;
    long vtx1 = ga_j3d_find_chunk(m, "VTX1");
    if (vtx1 < 0)
        return ga_fail(err, GA_ERR_FORMAT, m->format, "VTX1", -1, "the model has shapes (SHP1) but no VTX1 chunk");
    if ((rc = ga_need(&r, c->offset, 0x2C, "SHP1 header"))) return rc;
    size_t shapes;
    if ((rc = read_vtx1(&r, &m->chunks[vtx1], g.arrays))) return rc;
    if ((rc = ga_j3d_table_at(&r, c, 0x0C, "SHP1 shape table offset", &shapes))) return rc;
    if ((rc = ga_j3d_table_at(&r, c, 0x18, "SHP1 vertex descriptor offset", &g.descs))) return rc;
    if ((rc = packet_table_at(&r, c, 0x1C, "SHP1 matrix table offset", &g.mtable))) return rc;
    if ((rc = packet_table_at(&r, c, 0x20, "SHP1 display list offset", &g.dl))) return rc;
    if ((rc = packet_table_at(&r, c, 0x24, "SHP1 matrix data offset", &g.mdata))) return rc;
    if ((rc = packet_table_at(&r, c, 0x28, "SHP1 packet location offset", &g.ploc))) return rc;
    if ((uint64_t)count * 0x28 > c->offset + c->size - shapes)
        return ga_fail(err, GA_ERR_FORMAT, m->format, "SHP1 shape count", (long long)c->offset + 8,
                       "%u shape records do not fit in the SHP1 chunk", count);
    if ((rc = build_skin(m, &r, &g.sk))) {
        free_skin(&g.sk);
        return rc;
    }
    int32_t *materials = malloc(count * sizeof *materials);
    if (!materials) rc = ga_nomem(err, m->format);
    else shape_materials(m, materials, count);
    for (uint32_t i = first; i < count && i < last && !rc; i++) {
        ga_mesh s;
        memset(&s, 0, sizeof s);
        rc = read_shape(&g, i, shapes + 0x28 * (size_t)i, &s);
        s.material = materials[i];
        if (!rc) rc = fn(ctx, i, count, &s);
        mesh_free(&s);
    }
    free(materials);
    free_skin(&g.sk);
    return rc;
}

int ga_model_meshes_each(const ga_model *m, ga_mesh_fn fn, void *ctx, ga_error *err)
{
    return meshes_range(m, 0, UINT32_MAX, fn, ctx, err);
}

static int take_one(void *ctx, uint32_t i, uint32_t count, ga_mesh *mesh)
{
    (void)i, (void)count;
    *(ga_mesh *)ctx = *mesh;
    memset(mesh, 0, sizeof *mesh); /* (taken: not freed) */
    return GA_OK;
}

int ga_model_mesh(const ga_model *m, uint32_t i, ga_mesh *out, ga_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = meshes_range(m, i, i + 1, take_one, out, err);
    if (rc) {
        mesh_free(out);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

void ga_mesh_free(ga_mesh *mesh)
{
    mesh_free(mesh);
    memset(mesh, 0, sizeof *mesh);
}

typedef struct meshes_out {
    ga_mesh *meshes;
    uint32_t count;
    ga_error *err;
    const ga_model *m;
} meshes_out;

static int keep_mesh(void *ctx, uint32_t i, uint32_t count, ga_mesh *mesh)
{
    meshes_out *o = ctx;
    if (!o->meshes) {
        if (!(o->meshes = calloc(count, sizeof *o->meshes))) return ga_nomem(o->err, o->m->format);
        o->count = count;
    }
    o->meshes[i] = *mesh;
    memset(mesh, 0, sizeof *mesh); /* (taken: not freed) */
    return GA_OK;
}

int ga_model_meshes(const ga_model *m, ga_mesh **out, uint32_t *n, ga_error *err)
{
    meshes_out o = {NULL, 0, err, m};
    int rc = ga_model_meshes_each(m, keep_mesh, &o, err);
    if (rc) {
        ga_meshes_free(o.meshes, o.count);
        o.meshes = NULL;
        o.count = 0;
    }
    *out = o.meshes;
    *n = o.count;
    return rc;
}
