/* Mesh.groups (mesh_groups.h).  The distinct (joint, weight) pairs are
 * found by a hash table and only they are sorted (few); the vertices are
 * then placed by counting (no sort of the n entries). */
#include "mesh_groups.h"

#include <stdlib.h>
#include <string.h>

/* One distinct (joint, weight) while the groups are gathered. */
typedef struct {
    uint32_t joint;
    float weight;
    uint32_t wbits;      /* the weight's bits (the key: NaN has no equal) */
    size_t count, first; /* its vertices; its number before the sort, then where they start */
} group_key;

static int group_cmp(const void *pa, const void *pb)
{
    const group_key *a = pa, *b = pb;
    if (a->joint != b->joint) return a->joint < b->joint ? -1 : 1;
    if (a->weight < b->weight) return -1;
    if (a->weight > b->weight) return 1;
    return (a->wbits > b->wbits) - (a->wbits < b->wbits); /* (NaN: a fixed order all the same) */
}

static uint32_t group_hash(uint32_t joint, uint32_t wbits)
{
    uint64_t h = ((uint64_t)joint << 32 | wbits) * 0x9E3779B97F4A7C15u;
    return (uint32_t)(h >> 32);
}

int ga_mesh_vertex_groups(const ga_mesh *s, ga_vertex_group **groups, size_t *ngroups, int32_t **verts,
                          ga_error *err)
{
    *groups = NULL;
    *verts = NULL;
    *ngroups = 0;
    size_t n = (size_t)s->nverts * s->influences, m = 0;
    for (size_t e = 0; e < n; e++) m += s->weights[e] != 0.0f;
    if (!m) return GA_OK;
    size_t cap = 16;
    while (cap < 2 * m) cap *= 2;
    uint32_t *table = calloc(cap, sizeof *table); /* group + 1, 0 = empty */
    uint32_t *entry_group = malloc(m * sizeof *entry_group);
    group_key *keys = malloc(m * sizeof *keys);
    int32_t *out_verts = malloc(m * sizeof *out_verts);
    size_t *order_of = malloc(m * sizeof *order_of);
    ga_vertex_group *out = NULL;
    int rc = GA_OK;
    if (!table || !entry_group || !keys || !out_verts || !order_of) {
        rc = ga_nomem(err, "mesh");
        goto done;
    }
    size_t ng = 0, at = 0;
    for (size_t e = 0; e < n; e++) {
        float w = s->weights[e];
        if (w == 0.0f) continue;
        uint32_t j = s->joints[e], wbits;
        memcpy(&wbits, &w, 4);
        size_t h = group_hash(j, wbits) & (cap - 1);
        while (table[h] && !(keys[table[h] - 1].joint == j && keys[table[h] - 1].wbits == wbits)) h = (h + 1) & (cap - 1);
        if (!table[h]) {
            keys[ng] = (group_key){j, w, wbits, 0, 0};
            table[h] = (uint32_t)++ng;
        }
        keys[table[h] - 1].count++;
        entry_group[at++] = table[h] - 1;
    }
    /* sort the distinct pairs; order_of: a group's place after the sort */
    for (size_t g = 0; g < ng; g++) keys[g].first = g;
    qsort(keys, ng, sizeof *keys, group_cmp);
    size_t start = 0;
    for (size_t g = 0; g < ng; g++) {
        order_of[keys[g].first] = g;
        keys[g].first = start;
        start += keys[g].count;
    }
    if (!(out = malloc(ng * sizeof *out))) {
        rc = ga_nomem(err, "mesh");
        goto done;
    }
    for (size_t g = 0; g < ng; g++) out[g] = (ga_vertex_group){keys[g].joint, keys[g].weight, keys[g].first, keys[g].count};
    at = 0;
    for (size_t e = 0; e < n; e++) {
        if (s->weights[e] == 0.0f) continue;
        group_key *k = &keys[order_of[entry_group[at++]]];
        out_verts[k->first++] = (int32_t)(e / s->influences);
    }
    *groups = out;
    *verts = out_verts;
    *ngroups = ng;
    out = NULL;
    out_verts = NULL;
done:
    free(table);
    free(entry_group);
    free(keys);
    free(out_verts);
    free(order_of);
    free(out);
    return rc;
}
