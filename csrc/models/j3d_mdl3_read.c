/* A stored MDL3 chunk's header and tables (j3d_mdl3.h), read for the
 * writer that keeps lists (j3d_encode_mdl3.c), the colour patch
 * (j3d_mdl3_patch.c) and the lint (j3d_check_mdl3.c). */
#include "j3d_mdl3.h"

#include <string.h>

/* Bytes per entry of each table (0: the name table, unsized). */
static const uint32_t entry_size[GA_MDL3_TABLES] = {8, 16, 8, 1, 2, 0};

int ga_mdl3_open(const uint8_t *d, size_t size, size_t base, ga_mdl3_view *v)
{
    memset(v, 0, sizeof *v);
    v->d = d, v->size = size, v->base = base;
    if (size < GA_MDL3_HEADER) return 0;
    v->count = ga_get_u16be(d + 8);
    for (int k = 0; k < GA_MDL3_TABLES; k++) v->table[k] = ga_get_u32be(d + 0x0C + 4 * (size_t)k);
    return 1;
}

int ga_mdl3_tables_hold(const ga_mdl3_view *v, unsigned tables, uint32_t n)
{
    for (int k = 0; k < GA_MDL3_TABLES; k++) {
        if (!(tables & (1u << k)) || !entry_size[k]) continue;
        if (v->table[k] > v->size || (v->size - v->table[k]) / entry_size[k] < n) return 0;
    }
    return 1;
}

int ga_mdl3_list_at(const ga_mdl3_view *v, uint32_t i, ga_mdl3_list *l)
{
    l->entry = v->table[GA_MDL3_T_LISTS] + 8 * (size_t)i;
    l->rel = ga_get_u32be(v->d + l->entry);
    l->len = ga_get_u32be(v->d + l->entry + 4);
    l->at = (uint64_t)l->entry + l->rel;
    l->end = l->at + l->len;
    return l->end <= v->size;
}

void ga_mdl3_patch_offsets(const ga_mdl3_view *v, uint32_t i, uint16_t off[GA_MDL3_PATCHES])
{
    const uint8_t *p = v->d + v->table[GA_MDL3_T_PATCHES] + 16 * (size_t)i;
    for (int k = 0; k < GA_MDL3_PATCHES; k++) off[k] = ga_get_u16be(p + 2 * k);
}

void ga_mdl3_matrix_words(const ga_mdl3_view *v, uint32_t i, uint32_t words[2])
{
    const uint8_t *p = v->d + v->table[GA_MDL3_T_MATRICES] + 8 * (size_t)i;
    words[0] = ga_get_u32be(p);
    words[1] = ga_get_u32be(p + 4);
}
