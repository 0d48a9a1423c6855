/* Regenerate for the geometry chunks, VTX1 and SHP1 (j3d_regenerate.h;
 * docs/model_writer.md "Regenerating the geometry"; notes:
 * ../shared/formats/j3d_writer.md sections 0-2, 4, 5.2).
 *
 * The two encoders are called independently, so they agree on vertex
 * indices by construction: VTX1 keeps every array's entries in their
 * stored order and count (each re-encoded from its decoded value in the
 * stored type, count and shift), so the indices the decoded shapes carry
 * stay valid and SHP1 writes them as they are.  No deduplication: it
 * would renumber entries, and the loader sizes arrays from the offset
 * gaps (fact 3), which keeping the count preserves.
 *
 * SHP1 is written from the decoded meshes (ga_model_meshes_each): each
 * shape's distinct vertices (DRW1 entry and attribute indices) and
 * triangles, put in a canonical order (vertices sorted by their indices,
 * each triangle rotated to start at its smallest vertex, triangles
 * sorted) so that the output depends on the geometry only, not on the
 * stored strips: regenerating twice gives the same bytes.  Packets,
 * stripping and display lists are ga_shp1_encode_shapes's, the path
 * replace_mesh uses.  INF1's packet count comes from the same cutting
 * (ga_j3d_regen_packet_count). */
#include "j3d_mesh_write.h"
#include "j3d_regenerate.h"

#include <stdlib.h>
#include <string.h>

enum { KEY_WORDS = 1 + GA_VTX_KEYS };

/* VTX1's format list: what regenerate cannot write (NBT) is refused.
 * (Records of attributes without an array, such as PNMTXIDX, describe
 * nothing a shape can read and are not written; a shape that names
 * one fails to decode.) */
static int check_formats(const ga_model *m, const ga_vtx1_edit *v, ga_error *err)
{
    const ga_model_chunk *c = &m->chunks[v->chunk];
    const uint8_t *d = m->data + c->offset;
    for (size_t at = v->fmt_at; at + 16 <= v->fmt_at + v->fmt_len; at += 16) {
        uint32_t attr = ga_get_u32be(d + at);
        if (attr == 0xFF) break;
        if (attr == 25 || (attr == 10 && ga_get_u32be(d + at + 4) != 0))
            return ga_fail(err, GA_ERR_ENCODE, m->format, "VTX1 NBT", (long long)(c->offset + at),
                           "normals with binormals and tangents (NBT): regenerate cannot write them");
    }
    return GA_OK;
}

int ga_j3d_encode_vtx1(const ga_model *m, ga_buf *out, ga_error *err)
{
    ga_vtx1_edit v;
    int rc = ga_vtx1_load(m, &v, err);
    if (!rc) rc = check_formats(m, &v, err);
    if (!rc && (ga_vtx1_reencode(&v) != GA_OK || ga_vtx1_encode_afresh(&v, out) != GA_OK))
        rc = ga_nomem(err, m->format);
    ga_vtx1_free(&v);
    return rc;
}

/* ------------------------------------------------------------------ */
/* SHP1                                                                 */

typedef struct shapes {
    const ga_model *m;
    ga_error *err;
    ga_vtx1_edit vtx;
    ga_shape_input *s;
    uint32_t n;
} shapes;

static void shapes_free(shapes *g)
{
    for (uint32_t i = 0; i < g->n; i++) {
        free((void *)g->s[i].verts);
        free((void *)g->s[i].tris);
    }
    free(g->s);
    ga_vtx1_free(&g->vtx);
}

static int cmp_words(const uint32_t *a, const uint32_t *b, int n)
{
    for (int k = 0; k < n; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

typedef struct keyed_vertex {
    ga_dl_vertex key;
    uint32_t v;
} keyed_vertex;

static int cmp_vertex(const void *a, const void *b)
{
    /* (position index first: VTX1's order is the authoring tool's, which
     * keeps neighbours together for the stripper and the packets) */
    const ga_dl_vertex *x = &((const keyed_vertex *)a)->key, *y = &((const keyed_vertex *)b)->key;
    int c = cmp_words(x->idx, y->idx, GA_VTX_KEYS);
    return c ? c : x->draw != y->draw ? (x->draw < y->draw ? -1 : 1) : 0;
}

/* Triangles by their vertex set (ascending), then as written: the cells
 * of a grid come in order, each cell's triangle through its second
 * vertex first, from where the stripper's forward walk runs along. */
static int cmp_triangle(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    uint32_t sx[3] = {x[0], x[1], x[2]}, sy[3] = {y[0], y[1], y[2]};
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2 - i; k++) {
            uint32_t t;
            if (sx[k] > sx[k + 1]) t = sx[k], sx[k] = sx[k + 1], sx[k + 1] = t;
            if (sy[k] > sy[k + 1]) t = sy[k], sy[k] = sy[k + 1], sy[k + 1] = t;
        }
    int c = cmp_words(sx, sy, 3);
    return c ? c : cmp_words(x, y, 3);
}

/* qsort by cmp_triangle, as a counting sort on the smallest vertex (the
 * first key) with an insertion sort inside each bucket (a few triangles
 * share a smallest vertex); -1 when out of memory. */
static int sort_triangles(uint32_t *tris, uint32_t nt, uint32_t nv)
{
    uint32_t *start = calloc((size_t)nv + 2, sizeof *start), *out = malloc(((size_t)nt * 3 + 1) * sizeof *out);
    if (!start || !out) {
        free(start);
        free(out);
        return -1;
    }
    for (uint32_t t = 0; t < nt; t++) start[tris[3 * (size_t)t] + 2]++; /* (rotated: the first is the smallest) */
    for (uint32_t v = 0; v < nv; v++) start[v + 2] += start[v + 1];
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t at = start[tris[3 * (size_t)t] + 1]++;
        memcpy(out + 3 * (size_t)at, tris + 3 * (size_t)t, 3 * sizeof *out);
    }
    for (uint32_t v = 0; v < nv; v++) /* each bucket: [start[v], start[v + 1]) */
        for (uint32_t i = start[v] + 1; i < start[v + 1]; i++)
            for (uint32_t k = i; k > start[v] && cmp_triangle(out + 3 * (size_t)(k - 1), out + 3 * (size_t)k) > 0; k--) {
                uint32_t t[3];
                memcpy(t, out + 3 * (size_t)k, sizeof t);
                memcpy(out + 3 * (size_t)k, out + 3 * (size_t)(k - 1), sizeof t);
                memcpy(out + 3 * (size_t)(k - 1), t, sizeof t);
            }
    memcpy(tris, out, (size_t)nt * 3 * sizeof *out);
    free(start);
    free(out);
    return 0;
}

/* One decoded mesh as a shape input, in the canonical order. */
static int add_shape(void *ctx, uint32_t i, uint32_t count, ga_mesh *mesh)
{
    shapes *g = ctx;
    const ga_model *m = g->m;
    if (!g->s) {
        if (!(g->s = calloc(count ? count : 1, sizeof *g->s))) return ga_nomem(g->err, m->format);
    }
    long at = -1;
    int tm = ga_shp1_shape_uses_texmtx(m, i, &at);
    if (tm)
        return ga_fail(g->err, GA_ERR_ENCODE, m->format, "SHP1 vertex descriptor", (long long)at,
                       "shape %u uses texture matrix indices (attribute %d): regenerate cannot write them", i, tm);
    ga_shape_input *s = &g->s[g->n++];
    uint32_t nv = mesh->nverts, nt = mesh->ntris;
    keyed_vertex *kv = malloc(((size_t)nv + 1) * sizeof *kv);
    uint32_t *rank = malloc(((size_t)nv + 1) * sizeof *rank);
    ga_dl_vertex *verts = malloc(((size_t)nv + 1) * sizeof *verts);
    uint32_t *tris = malloc(((size_t)nt * 3 + 1) * sizeof *tris);
    double *pos = malloc(((size_t)nv + 1) * 3 * sizeof *pos);
    s->verts = verts, s->tris = tris;
    int rc = !kv || !rank || !verts || !tris || !pos ? ga_nomem(g->err, m->format) : GA_OK;
    s->attrs = 1u | (mesh->normals ? 2u : 0u);
    for (uint32_t c = 0; c < mesh->ncolors; c++) s->attrs |= 1u << (2 + mesh->color_channel[c]);
    for (uint32_t t = 0; t < mesh->nuvs; t++) s->attrs |= 1u << (4 + mesh->uv_channel[t]);
    for (int k = 0; k < GA_VTX_KEYS; k++) s->index16[k] = g->vtx.a[k].count > 255;
    /* only the vertices of its triangles: a degenerate triangle's own
     * vertices decode but are not written, so they do not count */
    uint32_t multi = 0, nu = 0;
    if (!rc) {
        memset(rank, 0, ((size_t)nv + 1) * sizeof *rank);
        for (size_t c = 0; c < 3 * (size_t)nt; c++) rank[mesh->triangles[c]] = 1;
    }
    for (uint32_t v = 0; v < nv && !rc; v++) {
        if (!rank[v]) continue;
        ga_dl_vertex *k = &kv[nu].key;
        memset(k, 0, sizeof *k);
        k->draw = mesh->draw_index[v];
        k->idx[0] = mesh->position_index[v];
        if (mesh->normals) k->idx[1] = mesh->normal_index[v];
        for (uint32_t c = 0; c < mesh->ncolors; c++) k->idx[2 + mesh->color_channel[c]] = mesh->color_index[c][v];
        for (uint32_t t = 0; t < mesh->nuvs; t++) k->idx[4 + mesh->uv_channel[t]] = mesh->uv_index[t][v];
        kv[nu].v = v;
        multi |= k->draw != kv[0].key.draw;
        nu++;
    }
    if (!rc) {
        qsort(kv, nu, sizeof *kv, cmp_vertex);
        for (uint32_t r = 0; r < nu; r++) {
            rank[kv[r].v] = r;
            verts[r] = kv[r].key;
            ga_vtx1_value(&g->vtx.a[0], 0, verts[r].idx[0], pos + 3 * (size_t)r);
        }
        for (uint32_t t = 0; t < nt; t++) { /* GX order (clockwise), smallest vertex first */
            const uint32_t *q = mesh->triangles + 3 * (size_t)t;
            uint32_t c[3] = {rank[q[0]], rank[q[2]], rank[q[1]]};
            int f = c[1] < c[0] && c[1] < c[2] ? 1 : c[2] < c[0] && c[2] < c[1] ? 2 : 0;
            for (int k = 0; k < 3; k++) tris[3 * (size_t)t + k] = c[(f + k) % 3];
        }
        rc = sort_triangles(tris, nt, nu) ? ga_nomem(g->err, m->format) : GA_OK;
        s->matrix_type = multi || mesh->matrix_type == 3 ? 3 : mesh->matrix_type;
        s->nverts = nu, s->ntris = nt;
        ga_shape_bounds(s, pos, nu);
    }
    free(kv);
    free(rank);
    free(pos);
    return rc;
}

/* Every shape of m as a shape input (g->n of them). */
static int load_shapes(const ga_model *m, shapes *g, ga_error *err)
{
    memset(g, 0, sizeof *g);
    g->m = m, g->err = err;
    if (ga_j3d_find_chunk(m, "VTX1") < 0) { /* (a model without shapes needs none) */
        const ga_model_chunk *c;
        ga_reader r;
        uint16_t count;
        int rc = ga_j3d_chunk_count(m, "SHP1", "SHP1 shape count", &r, err, &c, &count);
        if (rc || count == 0) return rc;
    } else {
        int rc = ga_vtx1_load(m, &g->vtx, err);
        if (!rc) rc = check_formats(m, &g->vtx, err);
        if (rc) return rc;
    }
    return ga_model_meshes_each(m, add_shape, g, err);
}

int ga_j3d_encode_shp1(const ga_model *m, ga_buf *out, ga_error *err)
{
    shapes g;
    uint32_t packets = 0;
    int rc = load_shapes(m, &g, err);
    if (!rc) rc = ga_shp1_encode_shapes(m, g.s, g.n, out, &packets, err);
    shapes_free(&g);
    return rc;
}

int ga_j3d_regen_packet_count(const ga_model *m, uint32_t *packets, ga_error *err)
{
    *packets = m->inf1_packet_count;
    if (ga_j3d_find_chunk(m, "SHP1") < 0) return GA_OK;
    shapes g;
    int rc = load_shapes(m, &g, err);
    uint64_t n = 0;
    for (uint32_t i = 0; i < g.n && !rc; i++) n += ga_shape_packet_count(&g.s[i]);
    if (!rc) *packets = (uint32_t)(n > UINT32_MAX ? UINT32_MAX : n);
    shapes_free(&g);
    return rc;
}
