/* Value pools with run reuse, for encoders whose keys index one shared
 * table of values (J3D value tables, BCA value pools): a run of values is
 * placed where it first occurs in the pool (found through an index of
 * adjacent pairs), or where the pool's end already holds its start, or
 * appended.  Elements are stored bits (f32, s32, or u16 widened). */
#ifndef GAMEANIM_POOL_H
#define GAMEANIM_POOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct ga_pool {
    uint32_t *v;
    size_t n, cap;
    size_t max_overlap; /* longest pool tail a new run may share (SIZE_MAX: any) */
    size_t tcap, tused; /* hash table: pairs (kind 1) and single values (kind 2) */
    uint64_t *tkey;
    int64_t *thead, *ttail;
    uint8_t *tkind;
    int64_t *next; /* position -> next position starting the same pair */
    size_t next_cap;
} ga_pool;

/* max_overlap bounds the search for a shared tail; each format keeps the
 * bound its files were first written with, so that output stays the same. */
int ga_pool_init(ga_pool *p, size_t max_overlap);
void ga_pool_free(ga_pool *p);
/* Index of the run in the pool, placing it if needed; -1 on allocation
 * failure. */
long long ga_pool_place(ga_pool *p, const uint32_t *seq, size_t m);

#endif
