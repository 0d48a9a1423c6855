/* EVP1 and DRW1 for new weight sets (j3d_mesh_write.h; j3d_writer.md
 * sections 0.4, 1).  Stored envelopes keep their numbers; a new weight
 * set is appended once.  DRW1 is then written as the runtime expects it:
 * the J joint entries, the N envelopes in EVP1 order, the N envelopes
 * again (draw matrix J + k is envelope k).  The first envelopes of a
 * rigid-only model bring inverse binds for every joint: the inverse of
 * each joint's world rest matrix. */
#include "j3d_mesh_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ga_envelopes_load(const ga_model *m, ga_envelopes *e, ga_error *err)
{
    memset(e, 0, sizeof *e);
    e->nbones = m->nbones;
    e->n = e->old_n = m->n_envelopes;
    e->capn = e->n + 16;
    e->capw = m->n_envelope_weights + 64;
    e->first = malloc((e->capn + 1) * sizeof *e->first);
    e->joints = malloc(e->capw * sizeof *e->joints);
    e->weights = malloc(e->capw * sizeof *e->weights);
    e->joint_draw = malloc((m->nbones ? m->nbones : 1) * sizeof *e->joint_draw);
    if (!e->first || !e->joints || !e->weights || !e->joint_draw) return ga_nomem(err, m->format);
    e->first[0] = 0;
    long evp1 = ga_j3d_find_chunk(m, "EVP1");
    if (e->n && evp1 >= 0) { /* (bmd.c validated these tables) */
        const uint8_t *c = m->data + m->chunks[evp1].offset;
        const uint8_t *counts = c + ga_get_u32be(c + 0x0C), *idx = c + ga_get_u32be(c + 0x10),
                      *wts = c + ga_get_u32be(c + 0x14);
        for (uint32_t k = 0; k < e->n; k++) {
            e->first[k + 1] = e->first[k] + counts[k];
            for (uint32_t q = e->first[k]; q < e->first[k + 1]; q++) {
                e->joints[q] = ga_get_u16be(idx + 2 * (size_t)q);
                e->weights[q] = ga_get_f32be(wts + 4 * (size_t)q);
            }
        }
        e->nw = e->first[e->n];
    } else {
        e->n = e->old_n = 0;
    }
    e->nbinds = m->n_inverse_binds;
    if (e->nbinds) {
        if (!(e->binds = malloc(e->nbinds * sizeof *e->binds))) return ga_nomem(err, m->format);
        memcpy(e->binds, m->inverse_binds, e->nbinds * sizeof *e->binds);
    }
    for (uint32_t j = 0; j < m->nbones; j++) e->joint_draw[j] = UINT32_MAX;
    e->ndraw = m->n_draw;
    e->draw_kind = malloc((e->ndraw ? e->ndraw : 1) + 0);
    e->draw_index = malloc((e->ndraw ? e->ndraw : 1) * sizeof *e->draw_index);
    if (!e->draw_kind || !e->draw_index) return ga_nomem(err, m->format);
    for (uint32_t d = 0; d < e->ndraw; d++) {
        e->draw_kind[d] = m->draw_is_envelope[d];
        e->draw_index[d] = m->draw_index[d];
        if (!e->draw_kind[d] && e->joint_draw[e->draw_index[d]] == UINT32_MAX) e->joint_draw[e->draw_index[d]] = d;
    }
    return GA_OK;
}

void ga_envelopes_free(ga_envelopes *e)
{
    free(e->first);
    free(e->joints);
    free(e->weights);
    free(e->binds);
    free(e->draw_kind);
    free(e->draw_index);
    free(e->joint_draw);
    memset(e, 0, sizeof *e);
}

long ga_envelopes_find(ga_envelopes *e, const uint16_t *joints, const float *weights, uint32_t n)
{
    /* the stored ones first (in their order: a stored set may list its
     * joints in any order), then the ones this edit added */
    for (uint32_t k = 0; k < e->n; k++) {
        uint32_t f = e->first[k];
        if (e->first[k + 1] - f != n) continue;
        uint32_t hit = 0;
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t q = 0; q < n; q++)
                if (e->joints[f + q] == joints[i] && fabsf(e->weights[f + q] - weights[i]) <= 1e-5f) {
                    hit++;
                    break;
                }
        if (hit == n) return (long)k;
    }
    if (e->n + 1 > e->capn) {
        size_t cap = 2 * e->capn;
        uint32_t *f = realloc(e->first, (cap + 1) * sizeof *f);
        if (!f) return -1;
        e->first = f;
        e->capn = cap;
    }
    if (e->nw + n > e->capw) {
        size_t cap = 2 * (e->capw + n);
        uint16_t *j = realloc(e->joints, cap * sizeof *j);
        if (j) e->joints = j;
        float *w = realloc(e->weights, cap * sizeof *w);
        if (w) e->weights = w;
        if (!j || !w) return -1;
        e->capw = cap;
    }
    memcpy(e->joints + e->nw, joints, n * sizeof *joints);
    memcpy(e->weights + e->nw, weights, n * sizeof *weights);
    e->nw += n;
    e->first[e->n + 1] = (uint32_t)e->nw;
    return (long)e->n++;
}

/* The inverse of a rigid 3x4 (row-major, from a 4x4 world matrix) by
 * cofactors. */
static void invert34(const float *w, float *out)
{
    double a = w[0], b = w[1], c = w[2], d = w[4], e = w[5], f = w[6], g = w[8], h = w[9], i = w[10];
    double co[9] = {e * i - f * h, c * h - b * i, b * f - c * e, f * g - d * i, a * i - c * g,
                    c * d - a * f, d * h - e * g, b * g - a * h, a * e - b * d};
    double det = a * co[0] + b * co[3] + c * co[6];
    if (det == 0.0 || !isfinite(det)) det = 1.0;
    for (int r = 0; r < 3; r++) {
        double t = 0;
        for (int k = 0; k < 3; k++) {
            out[4 * r + k] = (float)(co[3 * r + k] / det);
            t += co[3 * r + k] / det * w[4 * k + 3];
        }
        out[4 * r + 3] = (float)-t;
    }
}

int ga_envelopes_finish(ga_envelopes *e, const float *world, uint32_t *remap)
{
    if (e->n > e->old_n && e->nbinds < e->nbones) {
        float (*binds)[12] = malloc((e->nbones ? e->nbones : 1) * sizeof *binds);
        if (!binds) return -1;
        for (uint32_t j = 0; j < e->nbones; j++) {
            if (j < e->nbinds) memcpy(binds[j], e->binds[j], sizeof binds[j]);
            else invert34(world + 16 * (size_t)j, binds[j]);
        }
        free(e->binds);
        e->binds = binds;
        e->nbinds = e->nbones;
    }
    /* the joint entries in their stored order, then the envelopes twice */
    uint32_t nj = 0;
    for (uint32_t d = 0; d < e->ndraw; d++) nj += !e->draw_kind[d];
    uint32_t total = nj + 2 * e->n;
    uint8_t *kind = malloc(total ? total : 1);
    uint16_t *index = malloc((total ? total : 1) * sizeof *index);
    if (!kind || !index) {
        free(kind);
        free(index);
        return -1;
    }
    uint32_t at = 0;
    for (uint32_t d = 0; d < e->ndraw; d++)
        if (!e->draw_kind[d]) {
            remap[d] = at;
            kind[at] = 0;
            index[at++] = e->draw_index[d];
        }
    for (uint32_t d = 0; d < e->ndraw; d++)
        if (e->draw_kind[d]) remap[d] = nj + e->draw_index[d];
    for (uint32_t r = 0; r < 2; r++)
        for (uint32_t k = 0; k < e->n; k++) {
            kind[at] = 1;
            index[at++] = (uint16_t)k;
        }
    free(e->draw_kind);
    free(e->draw_index);
    e->draw_kind = kind;
    e->draw_index = index;
    e->ndraw = total;
    for (uint32_t j = 0; j < e->nbones; j++) e->joint_draw[j] = UINT32_MAX;
    for (uint32_t d = 0; d < nj; d++)
        if (e->joint_draw[index[d]] == UINT32_MAX) e->joint_draw[index[d]] = d;
    return 0;
}

int ga_evp1_encode(const ga_envelopes *e, ga_buf *b)
{
    uint8_t *counts = malloc(e->n ? e->n : 1);
    if (!counts) return GA_ERR_NOMEM;
    for (uint32_t k = 0; k < e->n; k++) counts[k] = (uint8_t)(e->first[k + 1] - e->first[k]);
    int rc = ga_j3d_put_evp1(b, e->n, counts, e->joints, e->weights, e->nw, e->nbinds,
                             (const float (*)[12])e->binds);
    free(counts);
    return rc;
}

int ga_drw1_encode(const ga_envelopes *e, ga_buf *b)
{
    size_t start = ga_j3d_chunk_begin(b, "DRW1");
    ga_buf_u16be(b, (uint16_t)e->ndraw);
    ga_buf_u16be(b, 0xFFFF);
    ga_buf_u32be(b, 0x14);
    size_t at = b->len;
    ga_buf_u32be(b, 0);
    ga_buf_put(b, e->draw_kind, e->ndraw);
    ga_j3d_pad(b, start, 2);
    ga_buf_set_u32be(b, at, (uint32_t)(b->len - start));
    for (uint32_t d = 0; d < e->ndraw; d++) ga_buf_u16be(b, e->draw_index[d]);
    return ga_j3d_chunk_end(b, start);
}
