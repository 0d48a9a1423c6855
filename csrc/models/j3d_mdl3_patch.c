/* BDL MDL3: a material's display list patched in place for new colours
 * (j3d_mat3.h).  The list is the GX register loads J3D made from MAT3;
 * J3D's own patchers rewrite the same places: at the matColor offset an
 * XF load of 0x100C (material colours, 2 words), followed in the colour
 * blocks with ambient by one of 0x100A (ambient colours); at the tevReg
 * offset BP writes of the register pairs 0xE0-0xE7 (RA then BG), TEV
 * colours 1-3 from MAT3 slots 0-2 (BG written three times), then the
 * konst colours K0-K3 (the same registers, bit 23 set).  (tww
 * J3DMatBlock.cpp loadMatColors / loadAmbColors / patchTevReg, J3DGD.cpp
 * J3DGDSetTevColorS10 / J3DGDSetTevKColor.) */
#include "j3d_mat3.h"
#include "j3d_mdl3.h"

#include <string.h>

typedef struct dl_span {
    uint8_t *d;
    size_t at, end;      /* the list's bytes in the chunk */
    const char *format;
    size_t base;
} dl_span;

/* One BP register pair value: x in bits 0-10, y in 12-22; the register
 * byte, bit 11 and the konst bit 23 stay as stored. */
static void put_pair(uint8_t *p, int x, int y)
{
    uint32_t v = ga_get_u32be(p);
    v = (v & ~(uint32_t)0x7FF7FF) | ((uint32_t)x & 0x7FF) | (((uint32_t)y & 0x7FF) << 12);
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* The XF loads from the matColor offset: material colours 0x100C/D and
 * ambient 0x100A/B.  found: bits 0-1 material, 2-3 ambient. */
static unsigned patch_xf(const dl_span *l, size_t pos, const ga_mat3_colors *c)
{
    unsigned found = 0;
    while (pos + 5 <= l->end && l->d[pos] == GA_GX_LOAD_XF) {
        uint32_t n = (uint32_t)ga_get_u16be(l->d + pos + 1) + 1, addr = ga_get_u16be(l->d + pos + 3);
        if (pos + 5 + 4 * (size_t)n > l->end) break;
        for (uint32_t q = 0; q < n; q++) {
            uint8_t *v = l->d + pos + 5 + 4 * (size_t)q;
            uint32_t a = addr + q;
            if (a == 0x100C || a == 0x100D) {
                uint32_t k = a - 0x100C;
                found |= 1u << k;
                if (k < c->ncolor) memcpy(v, c->color[k], 4);
            } else if (a == 0x100A || a == 0x100B) {
                uint32_t k = a - 0x100A;
                found |= 4u << k;
                if (k < c->nambient) memcpy(v, c->ambient[k], 4);
            }
        }
        pos += 5 + 4 * (size_t)n;
    }
    return found;
}

/* The BP writes from the tevReg offset.  found: bits 0-2 TEV colour slots
 * 0-2, 4-7 konst 0-3. */
static unsigned patch_bp(const dl_span *l, size_t pos, const ga_mat3_colors *c)
{
    unsigned found = 0;
    for (; pos + 5 <= l->end && l->d[pos] == GA_GX_LOAD_BP; pos += 5) {
        uint8_t *p = l->d + pos + 1;
        if (p[0] < 0xE0 || p[0] > 0xE7) continue;
        int pair = (p[0] - 0xE0) / 2, bg = p[0] & 1;
        if (p[1] & 0x80) { /* konst */
            found |= 16u << pair;
            if ((uint32_t)pair < c->nkonst) {
                const uint8_t *k = c->konst[pair];
                put_pair(p, bg ? k[2] : k[0], bg ? k[1] : k[3]);
            }
        } else if (pair > 0) { /* C0-C2 from slots 0-2; PREV is not MAT3's */
            uint32_t s = (uint32_t)pair - 1;
            found |= 1u << s;
            if (s < c->ntev) {
                const int16_t *t = c->tev[s];
                put_pair(p, bg ? t[2] : t[0], bg ? t[1] : t[3]);
            }
        }
    }
    return found;
}

static int missing(const dl_span *l, uint32_t i, const char *what, uint32_t k, size_t at, ga_error *err)
{
    return ga_fail(err, GA_ERR_ARG, l->format, "MDL3 display list", (long long)(l->base + at),
                   "material %u's display list has no %s %u load at its patch offset, so the game would not see "
                   "the change",
                   i, what, k);
}

int ga_j3d_mdl3_patch_colors(uint8_t *d, size_t size, size_t base, uint32_t i, const ga_mat3_colors *c,
                             const char *format, ga_error *err)
{
    ga_mdl3_view v;
    if (!ga_mdl3_open(d, size, base, &v))
        return ga_fail(err, GA_ERR_FORMAT, format, "MDL3 header", (long long)base, "the chunk is %zu bytes", size);
    uint32_t count = v.count;
    if (i >= count)
        return ga_fail(err, GA_ERR_FORMAT, format, "MDL3 material count", (long long)(base + 8),
                       "MDL3 holds %u display lists; material %u has none", count, i);
    if (!ga_mdl3_tables_hold(&v, 1u << GA_MDL3_T_LISTS | 1u << GA_MDL3_T_PATCHES, count))
        return ga_fail(err, GA_ERR_FORMAT, format, "MDL3 table offset", (long long)(base + 0x0C),
                       "the display-list (0x%x) or patch (0x%x) table of %u materials overruns the chunk",
                       v.table[GA_MDL3_T_LISTS], v.table[GA_MDL3_T_PATCHES], count);
    ga_mdl3_list mine;
    if (!ga_mdl3_list_at(&v, i, &mine))
        return ga_fail(err, GA_ERR_FORMAT, format, "MDL3 display list", (long long)(base + mine.entry),
                       "material %u's list (0x%x + 0x%x bytes from its entry) overruns the chunk", i, mine.rel,
                       mine.len);
    size_t mine_at = (size_t)mine.at, mine_end = (size_t)mine.end;
    for (uint32_t j = 0; j < count; j++) {
        ga_mdl3_list other;
        ga_mdl3_list_at(&v, j, &other);
        if (j == i || other.at >= other.end) continue;
        if (other.at < mine_end && mine_at < other.end)
            return ga_fail(err, GA_ERR_ARG, format, "MDL3 display list", (long long)(base + other.entry),
                           "material %u shares its display list with material %u; the patch would change both", i,
                           j);
    }
    dl_span l = {d, mine_at, mine_end, format, base};
    uint16_t off[GA_MDL3_PATCHES];
    ga_mdl3_patch_offsets(&v, i, off);
    size_t mat = mine_at + off[GA_MDL3_MAT_COLOR], tev = mine_at + off[GA_MDL3_TEV_REG];
    unsigned fx = patch_xf(&l, mat, c), fb = patch_bp(&l, tev, c);
    int rc = GA_OK;
    for (uint32_t k = 0; k < c->ncolor && !rc; k++)
        if (!(fx & (1u << k))) rc = missing(&l, i, "material colour", k, mat, err);
    for (uint32_t k = 0; k < c->nambient && !rc; k++)
        if (!(fx & (4u << k))) rc = missing(&l, i, "ambient colour", k, mat, err);
    for (uint32_t k = 0; k < c->ntev && k < 3 && !rc; k++)
        if (!(fb & (1u << k))) rc = missing(&l, i, "TEV colour", k, tev, err);
    for (uint32_t k = 0; k < c->nkonst && !rc; k++)
        if (!(fb & (16u << k))) rc = missing(&l, i, "konst colour", k, tev, err);
    return rc;
}
