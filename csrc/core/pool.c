/* The value pool shared by the J3D and BCA encoders (see pool.h). */
#include "pool.h"

#include <stdlib.h>
#include <string.h>

#include "gameanim.h"

/* Pair candidates tried per lookup: bounds the time spent on pools full of
 * one repeated pair, at the price of a copy that could have been shared. */
#define POOL_MAX_CANDIDATES 4096u

static void pool_free_index(ga_pool *p)
{
    free(p->tkey);
    free(p->thead);
    free(p->ttail);
    free(p->tkind);
    p->tkey = NULL;
    p->thead = p->ttail = NULL;
    p->tkind = NULL;
    p->tcap = p->tused = 0;
}

void ga_pool_free(ga_pool *p)
{
    pool_free_index(p);
    free(p->v);
    free(p->next);
    memset(p, 0, sizeof *p);
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static size_t pool_slot(const ga_pool *p, uint8_t kind, uint64_t key)
{
    size_t m = p->tcap - 1, i = (size_t)mix64(key * 2 + kind) & m;
    while (p->tkind[i] && (p->tkind[i] != kind || p->tkey[i] != key)) i = (i + 1) & m;
    return i;
}

static int pool_alloc_index(ga_pool *p, size_t cap)
{
    p->tcap = cap;
    p->tused = 0;
    p->tkey = malloc(cap * sizeof *p->tkey);
    p->thead = malloc(cap * sizeof *p->thead);
    p->ttail = malloc(cap * sizeof *p->ttail);
    p->tkind = calloc(cap, 1);
    return p->tkey && p->thead && p->ttail && p->tkind ? GA_OK : GA_ERR_NOMEM;
}

static int pool_index_at(ga_pool *p, size_t i);

static int pool_rehash(ga_pool *p)
{
    size_t cap = p->tcap * 4;
    pool_free_index(p);
    if (pool_alloc_index(p, cap)) return GA_ERR_NOMEM;
    for (size_t i = 0; i < p->n; i++)
        if (pool_index_at(p, i)) return GA_ERR_NOMEM;
    return GA_OK;
}

/* Indexes the value at i and the pair ending at i. */
static int pool_index_at(ga_pool *p, size_t i)
{
    if ((p->tused + 2) * 2 > p->tcap) return pool_rehash(p);
    if (i >= p->next_cap) {
        size_t cap = p->next_cap ? p->next_cap : 256;
        while (cap <= i) cap *= 2;
        int64_t *nx = realloc(p->next, cap * sizeof *nx);
        if (!nx) return GA_ERR_NOMEM;
        p->next = nx;
        p->next_cap = cap;
    }
    p->next[i] = -1;
    size_t s = pool_slot(p, 2, p->v[i]);
    if (!p->tkind[s]) {
        p->tkind[s] = 2;
        p->tkey[s] = p->v[i];
        p->thead[s] = p->ttail[s] = (int64_t)i;
        p->tused++;
    }
    if (i == 0) return GA_OK;
    uint64_t key = ((uint64_t)p->v[i - 1] << 32) | p->v[i];
    s = pool_slot(p, 1, key);
    if (!p->tkind[s]) {
        p->tkind[s] = 1;
        p->tkey[s] = key;
        p->thead[s] = p->ttail[s] = (int64_t)(i - 1);
        p->tused++;
    } else {
        p->next[p->ttail[s]] = (int64_t)(i - 1);
        p->ttail[s] = (int64_t)(i - 1);
    }
    return GA_OK;
}

int ga_pool_init(ga_pool *p, size_t max_overlap)
{
    memset(p, 0, sizeof *p);
    p->max_overlap = max_overlap;
    return pool_alloc_index(p, 1024);
}

long long ga_pool_place(ga_pool *p, const uint32_t *seq, size_t m)
{
    if (m == 0) return 0;
    if (m == 1) {
        size_t s = pool_slot(p, 2, seq[0]);
        if (p->tkind[s]) return p->thead[s];
    } else {
        size_t s = pool_slot(p, 1, ((uint64_t)seq[0] << 32) | seq[1]);
        if (p->tkind[s]) {
            unsigned tries = 0;
            for (int64_t c = p->thead[s]; c >= 0 && tries < POOL_MAX_CANDIDATES; c = p->next[c], tries++)
                if ((size_t)c + m <= p->n && memcmp(p->v + c, seq, m * sizeof *seq) == 0) return c;
        }
    }
    /* The pool may already end with the run's first values. */
    size_t keep = 0;
    size_t maxov = m - 1 < p->n ? m - 1 : p->n;
    if (maxov > p->max_overlap) maxov = p->max_overlap;
    for (size_t ov = maxov; ov > 0; ov--) {
        if (p->v[p->n - ov] == seq[0] && memcmp(p->v + p->n - ov, seq, ov * sizeof *seq) == 0) {
            keep = ov;
            break;
        }
    }
    size_t start = p->n - keep;
    size_t need = p->n + (m - keep);
    if (need > p->cap) {
        size_t cap = p->cap ? p->cap : 256;
        while (cap < need) cap *= 2;
        uint32_t *v = realloc(p->v, cap * sizeof *v);
        if (!v) return -1;
        p->v = v;
        p->cap = cap;
    }
    for (size_t i = keep; i < m; i++) {
        p->v[p->n++] = seq[i];
        if (pool_index_at(p, p->n - 1)) return -1;
    }
    return (long long)start;
}
