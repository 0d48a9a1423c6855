/* A greedy triangle stripper for GX display lists (j3d_mesh_write.h;
 * j3d_writer.md section 4).  From each unused triangle (in input order) it
 * walks a strip and a fan from each of the triangle's three rotations and
 * keeps the longest; strips keep the GX's parity (odd triangles are read
 * (v[i+1], v[i], v[i+2])), so every triangle keeps its winding.  What
 * stays single goes into one triangle list.  The GX has no post-transform
 * cache (every display-list vertex is transformed), so fewer vertices is
 * the whole goal; no cache model. */
#include "j3d_mesh_write.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PRIM 65535u /* the primitive's u16 vertex count */

int ga_u32s_push(ga_u32s *a, uint32_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 256;
        uint32_t *v = realloc(a->v, cap * sizeof *v);
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

/* Directed edges (u -> w of a triangle's cyclic order) -> triangles. */
typedef struct edges {
    uint64_t *key;  /* u << 32 | w, UINT64_MAX empty */
    uint32_t *head; /* first triangle corner (3 * t + k) with this edge */
    uint32_t *next; /* per corner: the next corner with the same edge, UINT32_MAX none */
    size_t cap;
} edges;

static size_t edge_slot(const edges *e, uint64_t k)
{
    uint64_t h = k * 0x9E3779B97F4A7C15u;
    size_t i = (size_t)(h >> 20) & (e->cap - 1);
    while (e->key[i] != UINT64_MAX && e->key[i] != k) i = (i + 1) & (e->cap - 1);
    return i;
}

typedef struct walker {
    const uint32_t *tris;
    edges e;
    uint32_t *mark;     /* per triangle: the walk that took it (0 free) */
    uint32_t stamp;     /* the current trial's stamp */
} walker;

/* A triangle not taken (mark 0 or committed: UINT32_MAX is taken) nor
 * in this trial, with edge u -> w; its third vertex in *third. */
static long find(walker *w, uint32_t u, uint32_t v, uint32_t *third)
{
    uint64_t k = (uint64_t)u << 32 | v;
    size_t i = edge_slot(&w->e, k);
    if (w->e.key[i] == UINT64_MAX) return -1;
    for (uint32_t c = w->e.head[i]; c != UINT32_MAX; c = w->e.next[c]) {
        uint32_t t = c / 3;
        if (w->mark[t] == UINT32_MAX || w->mark[t] == w->stamp) continue;
        *third = w->tris[3 * t + (c % 3 + 2) % 3];
        return (long)t;
    }
    return -1;
}

/* Walks from triangle t rotated by r, as a strip (fan 0) or a fan around
 * its first corner and returns the triangle count.  A trial (out NULL)
 * marks what it takes with the current stamp; the kept walk writes the
 * vertices to out and marks its triangles taken (UINT32_MAX). */
static uint32_t walk(walker *w, uint32_t t, int r, int fan, ga_u32s *out, int *oom)
{
    uint32_t v[3] = {w->tris[3 * t + r], w->tris[3 * t + (r + 1) % 3], w->tris[3 * t + (r + 2) % 3]};
    uint32_t mark = out ? UINT32_MAX : w->stamp;
    w->mark[t] = mark;
    uint32_t n = 3, a = v[1], b = v[2], third;
    if (out)
        for (int k = 0; k < 3; k++) *oom |= ga_u32s_push(out, v[k]);
    for (; n < MAX_PRIM; n++) {
        long t2;
        if (fan) t2 = find(w, v[0], b, &third);
        else t2 = (n & 1) ? find(w, b, a, &third) : find(w, a, b, &third); /* next: triangle n-2 */
        if (t2 < 0) break;
        w->mark[t2] = mark;
        if (out) *oom |= ga_u32s_push(out, third);
        a = b;
        b = third;
    }
    return n - 2;
}

int ga_strip_triangles(const uint32_t *tris, uint32_t ntris, uint32_t nverts, ga_u32s *out)
{
    (void)nverts;
    walker w;
    memset(&w, 0, sizeof w);
    w.tris = tris;
    size_t cap = 16;
    while (cap < (size_t)ntris * 6) cap *= 2;
    w.e.cap = cap;
    w.e.key = malloc(cap * sizeof *w.e.key);
    w.e.head = malloc(cap * sizeof *w.e.head);
    w.e.next = malloc(((size_t)ntris * 3 + 1) * sizeof *w.e.next);
    w.mark = calloc((size_t)ntris + 1, sizeof *w.mark);
    ga_u32s single = {NULL, 0, 0};
    int oom = !w.e.key || !w.e.head || !w.e.next || !w.mark;
    if (!oom) {
        memset(w.e.key, 0xFF, cap * sizeof *w.e.key);
        /* chained in reverse so that the first triangle with an edge is found first */
        for (uint32_t c = ntris * 3; c-- > 0;) {
            uint32_t t = c / 3, k = c % 3;
            uint64_t key = (uint64_t)tris[3 * t + k] << 32 | tris[3 * t + (k + 1) % 3];
            size_t i = edge_slot(&w.e, key);
            if (w.e.key[i] == UINT64_MAX) {
                w.e.key[i] = key;
                w.e.head[i] = UINT32_MAX;
            }
            w.e.next[c] = w.e.head[i];
            w.e.head[i] = c;
        }
    }
    uint32_t stamp = 0;
    for (uint32_t t = 0; t < ntris && !oom; t++) {
        if (w.mark[t] == UINT32_MAX) continue;
        uint32_t best = 0;
        int best_r = 0, best_fan = 0;
        for (int fan = 0; fan < 2; fan++)
            for (int r = 0; r < 3; r++) {
                w.stamp = ++stamp;
                uint32_t len = walk(&w, t, r, fan, NULL, &oom);
                if (len > best) best = len, best_r = r, best_fan = fan;
            }
        w.stamp = ++stamp; /* (no trial's marks count for the kept walk) */
        size_t at = out->n;
        if (best == 1) {
            w.mark[t] = UINT32_MAX;
            for (int k = 0; k < 3; k++) oom |= ga_u32s_push(&single, tris[3 * t + k]);
            continue;
        }
        oom |= ga_u32s_push(out, best_fan ? 0xA0 : 0x98);
        oom |= ga_u32s_push(out, 0);
        walk(&w, t, best_r, best_fan, out, &oom);
        if (oom) break;
        out->v[at + 1] = (uint32_t)(out->n - at - 2);
    }
    /* the single triangles: lists of at most MAX_PRIM vertices */
    for (size_t k = 0; k < single.n && !oom; k += 3 * (MAX_PRIM / 3)) {
        size_t n = single.n - k < 3 * (MAX_PRIM / 3) ? single.n - k : 3 * (MAX_PRIM / 3);
        oom |= ga_u32s_push(out, 0x90);
        oom |= ga_u32s_push(out, (uint32_t)n);
        for (size_t q = 0; q < n; q++) oom |= ga_u32s_push(out, single.v[k + q]);
    }
    free(single.v);
    free(w.e.key);
    free(w.e.head);
    free(w.e.next);
    free(w.mark);
    return oom ? -1 : 0;
}
