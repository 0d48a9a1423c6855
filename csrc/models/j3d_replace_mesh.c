/* ga_j3d_replace_mesh (j3d_mesh_write.h): a new mesh for one SHP1 shape.
 *
 * Spaces (j3d_writer.md fact 5): a vertex whose only influence is a joint
 * with a rigid DRW1 entry is drawn through that entry and stored in the
 * joint's space (the inverse of its world rest matrix); every other vertex
 * is drawn through an envelope and stored so that the game's rest-pose
 * skinning E = sum w_k W_k IB_k brings it back (E^-1 p: bind space when the
 * inverse binds match the rest pose, E = identity).  Normals go the inverse
 * way of the decoder's inverse transpose (E^T n, normalised).  Weights
 * below 1e-4 are dropped and the rest renormalised; equal weight sets
 * share one envelope.  The geometry decoder (j3d_geometry.c) is the exact
 * inverse used by the tests. */
#include "j3d_mat3.h"
#include "j3d_mdl3.h"
#include "j3d_mesh_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WEIGHT_EPS 1e-4f
#define ENV_BIT 0x80000000u

/* 3x4 inverse (row-major) of m; 0 when singular. */
static int inverse34(const double *m, double *out)
{
    double a = m[0], b = m[1], c = m[2], d = m[4], e = m[5], f = m[6], g = m[8], h = m[9], i = m[10];
    double adj[9] = {e * i - f * h, c * h - b * i, b * f - c * e, f * g - d * i, a * i - c * g,
                     c * d - a * f, d * h - e * g, b * g - a * h, a * e - b * d};
    double det = a * adj[0] + b * adj[3] + c * adj[6];
    if (det == 0.0 || !isfinite(det)) return 0;
    for (int r = 0; r < 3; r++) {
        double t = 0;
        for (int k = 0; k < 3; k++) {
            out[4 * r + k] = adj[3 * r + k] / det;
            t += out[4 * r + k] * m[4 * k + 3];
        }
        out[4 * r + 3] = -t;
    }
    return 1;
}

/* Per draw matrix: the inverse (12) and the matrix (12). */
#define DRAW_DOUBLES 24

/* What the decoder reads from a float32 position s through the draw
 * matrix M (12 doubles): M s + t, rounded to float32. */
static int reproduces(const double *M, const float *s, const float *want)
{
    for (int r = 0; r < 3; r++)
        if ((float)(M[4 * r] * s[0] + M[4 * r + 1] * s[1] + M[4 * r + 2] * s[2] + M[4 * r + 3]) != want[r]) return 0;
    return 1;
}

/* F32 positions: the float32 value (within one ulp per component of the
 * computed one) that the decoder turns back into exactly `want`; val
 * keeps the computed value when none does.  (Unchanged vertices find
 * their stored entry by index, reuse_or_add; this makes a moved or new
 * one read back bit for bit.) */
static void snap(const double *M, const float *want, double *val)
{
    float s[3] = {(float)val[0], (float)val[1], (float)val[2]}, t[3];
    if (reproduces(M, s, want)) return;
    for (int c = 1; c < 27; c++) {
        int d[3] = {c % 3, c / 3 % 3, c / 9};
        for (int k = 0; k < 3; k++)
            t[k] = d[k] == 0 ? s[k] : nextafterf(s[k], d[k] == 1 ? INFINITY : -INFINITY);
        if (reproduces(M, t, want)) {
            for (int k = 0; k < 3; k++) val[k] = t[k];
            return;
        }
    }
}

/* The joint that owns shape i in INF1 (the nearest enclosing joint node), or -1. */
static long owner_joint(const ga_model *m, uint32_t shape)
{
    long ci = ga_j3d_find_chunk(m, "INF1");
    if (ci < 0) return -1;
    const ga_model_chunk *c = &m->chunks[ci];
    size_t at = c->offset + ga_get_u32be(m->data + c->offset + 0x14), end = c->offset + c->size;
    long last[64];
    int depth = 0;
    for (int k = 0; k < 64; k++) last[k] = -1;
    for (; at + 4 <= end; at += 4) {
        uint16_t type = ga_get_u16be(m->data + at), value = ga_get_u16be(m->data + at + 2);
        if (type == 0) break;
        if (type == 1 && depth < 63) last[++depth] = -1;
        else if (type == 2 && depth > 0) depth--;
        else if (type == 0x10 && shape == UINT32_MAX) return value; /* (add_mesh: the first joint) */
        else if (type == 0x10) last[depth] = value;
        else if (type == 0x11) continue;
        else if (type == 0x12 && value == shape)
            for (int d = depth; d >= 0; d--)
                if (last[d] >= 0) return last[d];
    }
    return -1;
}

/* INF1 with a new shape's nodes (material, open, shape, close) right inside
 * the first joint, and the new packet and vertex counts. */
static int inf1_with_shape(const ga_model *m, long inf1, uint32_t material, uint32_t shape, uint32_t packets,
                           uint32_t vertices, ga_buf *b, ga_error *err)
{
    const ga_model_chunk *c = &m->chunks[inf1];
    const uint8_t *d = m->data + c->offset;
    uint32_t hier = ga_get_u32be(d + 0x14);
    if (c->size < 0x18 || hier < 0x18 || hier > c->size)
        return ga_fail(err, GA_ERR_FORMAT, m->format, "INF1 hierarchy offset", (long long)c->offset + 0x14, "outside INF1");
    size_t start = ga_j3d_chunk_begin(b, "INF1");
    ga_buf_put(b, d + 8, hier - 8);
    ga_buf_set_u32be(b, start + 0x0C, packets);
    ga_buf_set_u32be(b, start + 0x10, vertices);
    const uint16_t node[4][2] = {{0x11, (uint16_t)material}, {0x01, 0}, {0x12, (uint16_t)shape}, {0x02, 0}};
    int done = 0;
    for (size_t at = hier; at + 4 <= c->size; at += 4) {
        uint16_t type = ga_get_u16be(d + at);
        ga_buf_put(b, d + at, 4);
        if (type == 0) break;
        if (type != 0x10 || done) continue;
        int open = at + 8 <= c->size && ga_get_u16be(d + at + 4) == 0x01;
        if (open) ga_buf_put(b, d + (at += 4), 4); /* inside the joint's children */
        else ga_buf_u16be(b, 0x01), ga_buf_u16be(b, 0);
        for (int k = 0; k < 4; k++) ga_buf_u16be(b, node[k][0]), ga_buf_u16be(b, node[k][1]);
        if (!open) ga_buf_u16be(b, 0x02), ga_buf_u16be(b, 0);
        done = 1;
    }
    if (!done) return ga_fail(err, GA_ERR_ARG, m->format, "INF1", -1, "the hierarchy has no joint to hold a shape");
    return ga_j3d_chunk_end(b, start) == GA_OK ? GA_OK : ga_nomem(err, m->format);
}

typedef struct job {
    ga_model *m;
    const ga_mesh_input *in;
    ga_mesh old;
    float *world;
    ga_envelopes env;
    ga_vtx1_edit vtx;
    uint32_t *vdraw;      /* per vertex: rigid old DRW1 entry, or ENV_BIT | envelope */
    double *val;          /* scratch values */
    uint32_t *idx[GA_VTX_KEYS];
    ga_dl_vertex *verts;
    uint32_t *tris;
    double *stored;       /* stored positions (for the box) */
    int adding;           /* add_mesh: the shape is new (shape = the SHP1 count) */
    uint32_t material;    /* add_mesh: the material it copies */
    uint32_t new_material; /* add_mesh: the new instance (MAT3 appends it) */
} job;

static int arg(ga_error *err, const ga_model *m, const char *field, const char *msg, uint32_t v)
{
    return ga_fail(err, GA_ERR_ARG, m->format, field, -1, msg, v);
}

/* Each vertex's draw: from the given weights, or the shape's own. */
static int vertex_draws(job *j, ga_error *err)
{
    const ga_mesh_input *in = j->in;
    const ga_model *m = j->m;
    uint32_t nv = in->nverts, K = in->influences;
    if (!in->joints) {
        for (uint32_t v = 0; v < nv; v++) {
            uint32_t d = j->old.draw_index[v];
            j->vdraw[v] = m->draw_is_envelope[d] ? ENV_BIT | m->draw_index[d] : d;
        }
        return GA_OK;
    }
    uint16_t js[256], pj[256];
    float ws[256], pw[256];
    uint32_t pn = UINT32_MAX, pdraw = 0;
    for (uint32_t v = 0; v < nv; v++) {
        uint32_t n = 0;
        double sum = 0;
        for (uint32_t k = 0; k < K; k++) {
            uint32_t jt = in->joints[(size_t)v * K + k];
            float w = in->weights[(size_t)v * K + k];
            if (!(w >= 0.0f) || !isfinite(w)) return arg(err, m, "weights", "vertex %u has a negative or non-finite weight", v);
            if (w < WEIGHT_EPS) continue;
            if (jt >= m->nbones) return arg(err, m, "joints", "vertex %u names a joint past the skeleton", v);
            uint32_t q = 0;
            while (q < n && js[q] != jt) q++;
            if (q == n) {
                if (n == 255) return arg(err, m, "joints", "vertex %u has more than 255 influences", v);
                uint32_t at = n++;
                while (at > 0 && js[at - 1] > jt) { /* sorted by joint */
                    js[at] = js[at - 1];
                    ws[at] = ws[at - 1];
                    at--;
                }
                js[at] = (uint16_t)jt;
                ws[at] = w;
            } else {
                ws[q] += w;
            }
            sum += w;
        }
        if (n == 0) return arg(err, m, "weights", "vertex %u has no weight", v);
        for (uint32_t q = 0; q < n; q++) ws[q] = (float)(ws[q] / sum);
        if (n == pn && !memcmp(js, pj, n * sizeof *js) && !memcmp(ws, pw, n * sizeof *ws)) {
            j->vdraw[v] = pdraw;
            continue;
        }
        uint32_t d;
        if (n == 1 && j->env.joint_draw[js[0]] != UINT32_MAX) {
            d = j->env.joint_draw[js[0]];
        } else {
            long e = ga_envelopes_find(&j->env, js, ws, n);
            if (e < 0) return ga_nomem(err, m->format);
            if (e >= 0xFFFF) return ga_fail(err, GA_ERR_ENCODE, m->format, "EVP1", -1, "more than 65535 envelopes");
            d = ENV_BIT | (uint32_t)e;
        }
        j->vdraw[v] = pdraw = d;
        pn = n;
        memcpy(pj, js, n * sizeof *js);
        memcpy(pw, ws, n * sizeof *ws);
    }
    return GA_OK;
}

/* Positions and normals: a vertex value the shape already had (the same
 * draw matrix and the same decoded value, bit for bit) keeps its stored
 * entry; the others go through ga_vtx1_add.  rep: each vertex's draw in
 * the old numbering (a rigid DRW1 entry, or ENV_BIT | envelope); newv:
 * the model-space values given, oldv / oldidx: the shape's decoded ones
 * and their VTX1 indices; computed: the values to store (3 per vertex),
 * replaced by the stored entry's for reused ones. */
static int reuse_or_add(job *j, int attr, const uint32_t *rep, const float *newv, const float *oldv,
                        const uint32_t *oldidx, double *computed, ga_error *err)
{
    const ga_mesh *old = &j->old;
    const ga_model *m = j->m;
    uint32_t nv = j->in->nverts;
    size_t cap = 64;
    while (cap < 2 * (size_t)old->nverts) cap *= 2;
    uint32_t *table = calloc(cap, sizeof *table), *todo = malloc(((size_t)nv + 1) * sizeof *todo);
    uint32_t *got = malloc(((size_t)nv + 1) * sizeof *got);
    double *vals = malloc(((size_t)nv + 1) * 3 * sizeof *vals);
    int rc = !table || !todo || !got || !vals ? ga_nomem(err, m->format) : GA_OK;
    uint32_t key[4], okey[4], n = 0;
#define VAL_KEY(k, d, p) (k[0] = (d), memcpy(k + 1, (p), 12))
#define VAL_HASH(k) ((size_t)((((uint64_t)k[0] * 0x9E3779B97F4A7C15u) ^ ((uint64_t)k[1] * 0xC2B2AE3D27D4EB4Fu) ^ \
                              ((uint64_t)k[2] * 0x165667B19E3779F9u) ^ ((uint64_t)k[3] * 0xD6E8FEB86659FD93u)) >> 32) & (cap - 1))
#define OLD_REP(o) (m->draw_is_envelope[old->draw_index[o]] ? ENV_BIT | m->draw_index[old->draw_index[o]] \
                                                             : old->draw_index[o])
    for (uint32_t v = 0; v < old->nverts && !rc; v++) {
        VAL_KEY(key, OLD_REP(v), oldv + 3 * (size_t)v);
        size_t h = VAL_HASH(key);
        while (table[h]) h = (h + 1) & (cap - 1);
        table[h] = v + 1;
    }
    for (uint32_t v = 0; v < nv && !rc; v++) {
        VAL_KEY(key, rep[v], newv + 3 * (size_t)v);
        uint32_t hit = 0;
        for (size_t h = VAL_HASH(key); table[h]; h = (h + 1) & (cap - 1)) {
            uint32_t o = table[h] - 1;
            VAL_KEY(okey, OLD_REP(o), oldv + 3 * (size_t)o);
            if (!memcmp(key, okey, sizeof key)) {
                hit = table[h];
                break;
            }
        }
        if (hit && oldidx[hit - 1] < j->vtx.a[attr].count) {
            j->idx[attr][v] = oldidx[hit - 1];
            ga_vtx1_value(&j->vtx.a[attr], attr, j->idx[attr][v], computed + 3 * (size_t)v);
        } else {
            todo[n] = v;
            for (int k = 0; k < 3; k++) vals[3 * (size_t)n + k] = computed[3 * (size_t)v + k];
            n++;
        }
    }
#undef VAL_KEY
#undef VAL_HASH
#undef OLD_REP
    if (!rc) rc = ga_vtx1_add(&j->vtx, attr, vals, n, got, err);
    for (uint32_t k = 0; k < n && !rc; k++) j->idx[attr][todo[k]] = got[k];
    free(table);
    free(todo);
    free(got);
    free(vals);
    return rc;
}

/* The rest matrix of envelope k (sum w W IB), 3x4. */
static void envelope_matrix(const job *j, uint32_t k, double *out)
{
    memset(out, 0, 12 * sizeof *out);
    for (uint32_t q = j->env.first[k]; q < j->env.first[k + 1]; q++) {
        uint32_t jt = j->env.joints[q];
        double w = j->env.weights[q];
        const float *W = j->world + 16 * (size_t)jt;
        const float *ib = j->env.binds[jt];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 4; c++) {
                double s = c == 3 ? W[4 * r + 3] : 0.0;
                for (int t = 0; t < 3; t++) s += (double)W[4 * r + t] * ib[4 * t + c];
                out[4 * r + c] += w * s;
            }
    }
}

static int run(job *j, uint32_t shape, ga_error *err)
{
    ga_model *m = j->m;
    const ga_mesh_input *in = j->in;
    const ga_mesh *old = &j->old;
    uint32_t nv = in->nverts;
    int rc;
    /* arguments against the shape */
    int need_old = (!in->normals && old->normals) || (!in->has_colors && old->ncolors) || (!in->has_uvs && old->nuvs) ||
                   !in->joints;
    if (need_old && nv != old->nverts)
        return arg(err, m, "positions", "an omitted array keeps the shape's own: %u vertices needed", old->nverts);
    if (in->normals && !old->normals) return arg(err, m, "normals", "shape %u has no normals (NRM)", shape);
    if (in->has_colors && in->ncolors != old->ncolors)
        return arg(err, m, "colors", "the shape has %u colour channels", old->ncolors);
    if (in->has_uvs && in->nuvs != old->nuvs) return arg(err, m, "uvs", "the shape has %u UV channels", old->nuvs);
    for (size_t t = 0; t < 3 * (size_t)in->ntris; t++)
        if (in->triangles[t] >= nv) return arg(err, m, "triangles", "a corner names vertex %u, past the vertices", in->triangles[t]);
    for (size_t k = 0; k < 3 * (size_t)nv; k++)
        if (!isfinite(in->positions[k]) || (in->normals && !isfinite(in->normals[k])))
            return arg(err, m, "positions", "a non-finite position or normal (vertex %u)", (uint32_t)(k / 3));
    for (uint32_t c = 0; in->has_colors && c < in->ncolors; c++)
        for (size_t k = 0; k < 4 * (size_t)nv; k++)
            if (!isfinite(in->colors[c][k])) return arg(err, m, "colors", "a non-finite colour (vertex %u)", (uint32_t)(k / 4));
    for (uint32_t t = 0; in->has_uvs && t < in->nuvs; t++)
        for (size_t k = 0; k < 2 * (size_t)nv; k++)
            if (!isfinite(in->uvs[t][k])) return arg(err, m, "uvs", "a non-finite UV (vertex %u)", (uint32_t)(k / 2));

    double zero = 0.0;
    if (!(j->world = malloc(((size_t)m->nbones + 1) * 16 * sizeof *j->world))) return ga_nomem(err, m->format);
    if ((rc = ga_model_world_matrices(m, NULL, NULL, &zero, 1, j->world, err))) return rc;
    if ((rc = ga_envelopes_load(m, &j->env, err))) return rc;
    if ((rc = vertex_draws(j, err))) return rc;
    /* (each vertex's draw as the old DRW1 names it, for reuse_positions) */
    uint32_t *rep = malloc(((size_t)nv + 1) * sizeof *rep);
    if (!rep) return ga_nomem(err, m->format);
    memcpy(rep, j->vdraw, (size_t)nv * sizeof *rep);

    /* DRW1: an envelope without an entry, or new envelopes: rewrite it */
    uint32_t old_ndraw = m->n_draw;
    uint32_t *env_draw = calloc((size_t)j->env.n + 1, sizeof *env_draw), *remap = NULL;
    if (!env_draw) {
        free(rep);
        return ga_nomem(err, m->format);
    }
    for (uint32_t k = 0; k < j->env.n; k++) env_draw[k] = UINT32_MAX;
    for (uint32_t d = 0; d < old_ndraw; d++)
        if (m->draw_is_envelope[d] && env_draw[m->draw_index[d]] == UINT32_MAX) env_draw[m->draw_index[d]] = d;
    int rewrite = j->env.n > j->env.old_n;
    for (uint32_t v = 0; v < nv && !rewrite; v++)
        if (j->vdraw[v] & ENV_BIT) rewrite = env_draw[j->vdraw[v] & ~ENV_BIT] == UINT32_MAX;
    if (rewrite) {
        uint32_t nj = 0;
        for (uint32_t d = 0; d < old_ndraw; d++) nj += !m->draw_is_envelope[d];
        if (nj + 2 * (size_t)j->env.n > 0xFFFF) rc = ga_fail(err, GA_ERR_ENCODE, m->format, "DRW1", -1, "more than 65535 entries");
        remap = malloc(((size_t)old_ndraw + 1) * sizeof *remap);
        if (!rc && (!remap || ga_envelopes_finish(&j->env, j->world, remap) < 0)) rc = ga_nomem(err, m->format);
        if (!rc) {
            for (uint32_t v = 0; v < nv; v++)
                j->vdraw[v] = j->vdraw[v] & ENV_BIT ? nj + (j->vdraw[v] & ~ENV_BIT) : remap[j->vdraw[v]];
        }
    } else {
        for (uint32_t v = 0; v < nv; v++)
            if (j->vdraw[v] & ENV_BIT) j->vdraw[v] = env_draw[j->vdraw[v] & ~ENV_BIT];
    }
    free(env_draw);
    if (rc) {
        free(remap);
        free(rep);
        return rc;
    }
    /* each draw matrix's rest matrix, its inverse (positions) and 3x3 (normals) */
    uint32_t ndraw = j->env.ndraw;
    double *inv = malloc(((size_t)ndraw + 1) * DRAW_DOUBLES * sizeof *inv);
    uint8_t *done = calloc((size_t)ndraw + 1, 1);
    if (!inv || !done) rc = ga_nomem(err, m->format);
    for (uint32_t v = 0; v < nv && !rc; v++) {
        uint32_t d = j->vdraw[v];
        if (done[d]) continue;
        double *M = inv + DRAW_DOUBLES * (size_t)d + 12, *I = inv + DRAW_DOUBLES * (size_t)d;
        if (j->env.draw_kind[d]) envelope_matrix(j, j->env.draw_index[d], M);
        else
            for (int k = 0; k < 12; k++) M[k] = j->world[16 * (size_t)j->env.draw_index[d] + k];
        if (!inverse34(M, I)) rc = arg(err, m, "joints", "the rest matrix of vertex %u's skinning is singular", v);
        done[d] = 1;
    }
    free(done);
    if ((rc = rc ? rc : ga_vtx1_load(m, &j->vtx, err))) {
        free(inv);
        free(remap);
        free(rep);
        return rc;
    }
    /* POS */
    int snap_pos = j->vtx.a[0].comp_type == 4;
    for (uint32_t v = 0; v < nv; v++) {
        const double *I = inv + DRAW_DOUBLES * (size_t)j->vdraw[v];
        const float *p = in->positions + 3 * (size_t)v;
        for (int r = 0; r < 3; r++)
            j->stored[3 * v + r] = I[4 * r] * p[0] + I[4 * r + 1] * p[1] + I[4 * r + 2] * p[2] + I[4 * r + 3];
        if (snap_pos) snap(I + 12, p, j->stored + 3 * v);
    }
    rc = reuse_or_add(j, 0, rep, in->positions, old->positions, old->position_index, j->stored, err);
    /* NRM */
    if (!rc && old->normals) {
        const float *n = in->normals ? in->normals : old->normals;
        for (uint32_t v = 0; v < nv; v++) {
            const double *M = inv + DRAW_DOUBLES * (size_t)j->vdraw[v] + 12;
            double o[3], len = 0;
            for (int r = 0; r < 3; r++) {
                o[r] = M[r] * n[3 * v] + M[4 + r] * n[3 * v + 1] + M[8 + r] * n[3 * v + 2];
                len += o[r] * o[r];
            }
            len = len > 0 ? sqrt(len) : 1.0;
            for (int r = 0; r < 3; r++) j->val[3 * v + r] = o[r] / len;
        }
        rc = reuse_or_add(j, 1, rep, n, old->normals, old->normal_index, j->val, err);
    }
    for (uint32_t c = 0; c < old->ncolors && !rc; c++) {
        const float *src = in->has_colors ? in->colors[c] : old->colors[c];
        for (size_t k = 0; k < 4 * (size_t)nv; k++) j->val[k] = src[k];
        rc = ga_vtx1_add(&j->vtx, 2 + old->color_channel[c], j->val, nv, j->idx[2 + old->color_channel[c]], err);
    }
    for (uint32_t t = 0; t < old->nuvs && !rc; t++) {
        const float *src = in->has_uvs ? in->uvs[t] : old->uvs[t];
        for (size_t k = 0; k < 2 * (size_t)nv; k++) j->val[k] = src[k];
        rc = ga_vtx1_add(&j->vtx, 4 + old->uv_channel[t], j->val, nv, j->idx[4 + old->uv_channel[t]], err);
    }
    free(inv);
    free(rep);
    if (rc) {
        free(remap);
        return rc;
    }
    /* the shape */
    ga_shape_input s;
    memset(&s, 0, sizeof s);
    s.attrs = 1u | (old->normals ? 2u : 0u);
    for (uint32_t c = 0; c < old->ncolors; c++) s.attrs |= 1u << (2 + old->color_channel[c]);
    for (uint32_t t = 0; t < old->nuvs; t++) s.attrs |= 1u << (4 + old->uv_channel[t]);
    for (int k = 0; k < GA_VTX_KEYS; k++) s.index16[k] = j->vtx.a[k].count > 255;
    uint32_t first_draw = nv ? j->vdraw[0] : 0, multi = 0;
    for (uint32_t v = 0; v < nv; v++) {
        j->verts[v].draw = j->vdraw[v];
        multi |= j->vdraw[v] != first_draw;
        for (int k = 0; k < GA_VTX_KEYS; k++) j->verts[v].idx[k] = s.attrs >> k & 1 ? j->idx[k][v] : 0;
    }
    s.matrix_type = multi || old->matrix_type == 3 ? 3 : old->matrix_type;
    uint32_t nt = 0;
    for (uint32_t t = 0; t < in->ntris; t++) {
        uint32_t a = in->triangles[3 * t], b = in->triangles[3 * t + 1], c = in->triangles[3 * t + 2];
        if (a == b || b == c || a == c) continue;
        j->tris[3 * nt] = a, j->tris[3 * nt + 1] = c, j->tris[3 * nt + 2] = b; /* GX fronts are clockwise */
        nt++;
    }
    s.nverts = nv, s.ntris = nt, s.verts = j->verts, s.tris = j->tris;
    ga_shape_bounds(&s, j->stored, nv);

    /* the chunks, in file order */
    uint32_t packets = 0;
    long vtx1 = j->vtx.chunk, shp1 = ga_j3d_find_chunk(m, "SHP1"), evp1 = ga_j3d_find_chunk(m, "EVP1"),
         drw1 = ga_j3d_find_chunk(m, "DRW1"), inf1 = ga_j3d_find_chunk(m, "INF1"), jnt1 = ga_j3d_find_chunk(m, "JNT1");
    if (rewrite && (evp1 < 0 || drw1 < 0)) rc = arg(err, m, "joints", "the model has no EVP1/DRW1 chunks for envelopes (%u)", 0);
    ga_buf shp, vtxb, evp, drw, inf, jnt;
    ga_buf_init(&shp), ga_buf_init(&vtxb), ga_buf_init(&evp), ga_buf_init(&drw), ga_buf_init(&inf), ga_buf_init(&jnt);
    if (!rc) rc = ga_shp1_encode(m, shape, &s, remap, old_ndraw, &shp, &packets, err);
    free(remap);
    if (!rc && ga_vtx1_encode(&j->vtx, &vtxb) != GA_OK) rc = ga_nomem(err, m->format);
    if (!rc && rewrite && (ga_evp1_encode(&j->env, &evp) != GA_OK || ga_drw1_encode(&j->env, &drw) != GA_OK))
        rc = ga_nomem(err, m->format);
    /* INF1's packet and vertex counts (and a new shape's nodes) */
    ga_buf mat, mdl;
    ga_buf_init(&mat), ga_buf_init(&mdl);
    long mat3 = ga_j3d_find_chunk(m, "MAT3"), mdl3 = ga_j3d_find_chunk(m, "MDL3");
    if (!rc && j->adding) {
        uint32_t copy;
        rc = ga_j3d_mat3_add_copy(m, j->material, NULL, &copy, &mat, err);
        if (!rc && copy != j->new_material) rc = arg(err, m, "material", "MAT3 appended instance %u", copy);
        /* a BDL: the new instance's MDL3 list (the others keep theirs) */
        if (!rc && mdl3 >= 0) rc = ga_j3d_mdl3_add_copy(m, j->material, &mdl, err);
    }
    if (!rc && inf1 >= 0 && j->adding) {
        rc = inf1_with_shape(m, inf1, j->new_material, shape, packets, j->vtx.a[0].count, &inf, err);
    } else if (!rc && inf1 >= 0) {
        const ga_model_chunk *c = &m->chunks[inf1];
        ga_buf_put(&inf, m->data + c->offset, c->size);
        if (!inf.failed && c->size >= 0x14) {
            ga_buf_set_u32be(&inf, 0x0C, packets);
            ga_buf_set_u32be(&inf, 0x10, j->vtx.a[0].count);
        }
    }
    /* JNT1: the owning joint's box grown to hold the new geometry, in its frame */
    long owner = owner_joint(m, j->adding ? UINT32_MAX : shape);
    if (!rc && jnt1 >= 0 && owner >= 0 && (uint32_t)owner < m->nbones && nv) {
        const ga_model_chunk *c = &m->chunks[jnt1];
        size_t rec = ga_get_u32be(m->data + c->offset + 0x0C) + 0x40 * (size_t)m->bones[owner].data_index;
        if (rec + 0x40 <= c->size) {
            double W[12], I[12];
            for (int k = 0; k < 12; k++) W[k] = j->world[16 * (size_t)owner + k];
            if (inverse34(W, I)) {
                const uint8_t *r0 = m->data + c->offset + rec;
                float rad = ga_get_f32be(r0 + 0x24), box[6];
                for (int k = 0; k < 6; k++) box[k] = ga_get_f32be(r0 + 0x28 + 4 * k);
                float nrad = rad, nbox[6];
                memcpy(nbox, box, sizeof box);
                for (uint32_t v = 0; v < nv; v++) {
                    const float *p = in->positions + 3 * (size_t)v;
                    double q = 0;
                    for (int r = 0; r < 3; r++) {
                        float x = (float)(I[4 * r] * p[0] + I[4 * r + 1] * p[1] + I[4 * r + 2] * p[2] + I[4 * r + 3]);
                        if (x < nbox[r]) nbox[r] = x;
                        if (x > nbox[3 + r]) nbox[3 + r] = x;
                        q += (double)x * x;
                    }
                    if ((float)sqrt(q) > nrad) nrad = (float)sqrt(q);
                }
                if (nrad != rad || memcmp(nbox, box, sizeof box)) {
                    ga_buf_put(&jnt, m->data + c->offset, c->size);
                    uint32_t u;
                    memcpy(&u, &nrad, 4);
                    if (!jnt.failed) ga_buf_set_u32be(&jnt, rec + 0x24, u);
                    for (int k = 0; k < 6 && !jnt.failed; k++) {
                        memcpy(&u, &nbox[k], 4);
                        ga_buf_set_u32be(&jnt, rec + 0x28 + 4 * (size_t)k, u);
                    }
                }
            }
        }
    }
    if (!rc && (inf.failed || jnt.failed)) rc = ga_nomem(err, m->format);
    if (!rc) {
        /* ascending chunk order */
        struct { long at; ga_buf *b; } list[8] = {{inf1, &inf}, {vtx1, &vtxb}, {evp1, &evp}, {drw1, &drw}, {jnt1, &jnt},
                                                  {shp1, &shp}, {mat3, &mat}, {mdl3, &mdl}};
        uint32_t n = 0, index[8];
        ga_buf bufs[8];
        for (uint32_t pass = 0; pass < m->nchunks; pass++)
            for (int k = 0; k < 8; k++)
                if (list[k].at == (long)pass && list[k].b->len) {
                    index[n] = pass;
                    bufs[n++] = *list[k].b;
                }
        rc = ga_j3d_splice_chunks(m, n, index, bufs, err);
    }
    ga_buf_free(&shp), ga_buf_free(&vtxb), ga_buf_free(&evp), ga_buf_free(&drw), ga_buf_free(&inf), ga_buf_free(&jnt);
    ga_buf_free(&mat), ga_buf_free(&mdl);
    return rc;
}

/* The job's per-vertex buffers; -1 when out of memory (free_job frees). */
static int alloc_job(job *j, const ga_mesh_input *in)
{
    size_t n1 = (size_t)in->nverts + 1;
    j->vdraw = malloc(n1 * sizeof *j->vdraw);
    j->val = malloc(n1 * 4 * sizeof *j->val);
    j->stored = malloc(n1 * 3 * sizeof *j->stored);
    j->verts = malloc(n1 * sizeof *j->verts);
    j->tris = malloc(((size_t)in->ntris * 3 + 1) * sizeof *j->tris);
    int bad = !j->vdraw || !j->val || !j->stored || !j->verts || !j->tris;
    for (int k = 0; k < GA_VTX_KEYS; k++) bad |= !(j->idx[k] = malloc(n1 * sizeof *j->idx[k]));
    return bad ? -1 : 0;
}

static void free_job(job *j)
{
    free(j->world);
    ga_envelopes_free(&j->env);
    ga_vtx1_free(&j->vtx);
    free(j->vdraw);
    free(j->val);
    free(j->stored);
    free(j->verts);
    free(j->tris);
    for (int k = 0; k < GA_VTX_KEYS; k++) free(j->idx[k]);
}

int ga_j3d_replace_mesh(ga_model *m, uint32_t shape, const ga_mesh_input *in, ga_error *err)
{
    const char *fmt = m->format ? m->format : "bmd";
    if (m->family != GA_RIG_J3D) return ga_fail(err, GA_ERR_ARG, fmt, "model", -1, "not a J3D model");
    if (!in->positions || !in->triangles) return ga_fail(err, GA_ERR_ARG, fmt, "positions", -1, "positions and triangles are required");
    if (!in->joints != !in->weights) return ga_fail(err, GA_ERR_ARG, fmt, "joints", -1, "joints and weights go together");
    if (in->joints && in->influences == 0) return ga_fail(err, GA_ERR_ARG, fmt, "joints", -1, "no influences");
    job j;
    memset(&j, 0, sizeof j);
    j.m = m;
    j.in = in;
    int rc = ga_model_mesh(m, shape, &j.old, err);
    if (rc) return rc;
    if (!j.old.positions) return ga_fail(err, GA_ERR_ARG, fmt, "shape", -1, "the model has no shape %u", shape);
    rc = alloc_job(&j, in) ? ga_nomem(err, fmt) : run(&j, shape, err);
    ga_mesh_free(&j.old);
    free_job(&j);
    return rc;
}

int ga_j3d_add_mesh(ga_model *m, uint32_t material, const ga_mesh_input *in, ga_error *err)
{
    const char *fmt = m->format ? m->format : "bmd";
    if (m->family != GA_RIG_J3D) return ga_fail(err, GA_ERR_ARG, fmt, "model", -1, "not a J3D model");
    if (!in->positions || !in->triangles) return ga_fail(err, GA_ERR_ARG, fmt, "positions", -1, "positions and triangles are required");
    if (!in->joints != !in->weights) return ga_fail(err, GA_ERR_ARG, fmt, "joints", -1, "joints and weights go together");
    long shp1 = ga_j3d_find_chunk(m, "SHP1"), mat3 = ga_j3d_find_chunk(m, "MAT3");
    if (mat3 < 0 && ga_j3d_find_chunk(m, "MAT2") >= 0)
        return ga_fail(err, GA_ERR_ARG, fmt, "MAT2", -1,
                       "the model's materials are a MAT2 (a J3D2bmd2 file): a new shape needs a MAT3 instance");
    if (shp1 < 0 || mat3 < 0 || m->chunks[shp1].size < 0x0C || m->chunks[mat3].size < 0x0C)
        return ga_fail(err, GA_ERR_ARG, fmt, "SHP1", -1, "the model has no SHP1 / MAT3 chunk to add a shape to");
    uint32_t nmat = ga_get_u16be(m->data + m->chunks[mat3].offset + 8);
    if (material >= nmat) return ga_fail(err, GA_ERR_ARG, fmt, "material", -1, "material %u of %u", material, nmat);
    /* The runtime keeps one material instance per shape (j3d_writer.md
     * fact 7): the new shape draws with a new MAT3 instance copied from
     * `material` (sharing its init record), named after it; a BDL's MDL3
     * gets a list for it (ga_j3d_mdl3_add_copy), spliced with the rest. */
    ga_mesh_input own = *in;
    uint32_t *joints = NULL;
    float *weights = NULL;
    if (!in->joints) { /* rigid on the first joint */
        joints = calloc((size_t)in->nverts + 1, sizeof *joints);
        weights = malloc(((size_t)in->nverts + 1) * sizeof *weights);
        if (!joints || !weights) {
            free(joints);
            free(weights);
            return ga_nomem(err, fmt);
        }
        for (uint32_t v = 0; v < in->nverts; v++) weights[v] = 1.0f;
        own.joints = joints, own.weights = weights, own.influences = 1;
    }
    job j;
    memset(&j, 0, sizeof j);
    j.m = m;
    j.in = &own;
    j.adding = 1;
    j.material = material;
    j.new_material = nmat; /* the copy's index: MAT3 appends it */
    /* the "old" shape: none, with the channels the arrays give */
    j.old.normals = (float *)in->normals;
    j.old.ncolors = in->has_colors ? in->ncolors : 0;
    j.old.nuvs = in->has_uvs ? in->nuvs : 0;
    for (uint32_t k = 0; k < 2; k++) j.old.color_channel[k] = (uint8_t)k;
    for (uint32_t k = 0; k < 8; k++) j.old.uv_channel[k] = (uint8_t)k;
    own.has_colors = own.has_uvs = 1;
    own.ncolors = j.old.ncolors, own.nuvs = j.old.nuvs;
    int rc = alloc_job(&j, &own) ? ga_nomem(err, fmt) : run(&j, ga_get_u16be(m->data + m->chunks[shp1].offset + 8), err);
    memset(&j.old, 0, sizeof j.old); /* (nothing of it is owned) */
    free_job(&j);
    free(joints);
    free(weights);
    return rc;
}
