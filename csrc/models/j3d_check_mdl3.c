/* The BDL MDL3 lint (j3d_writer.md 5.4 "MDL3"; layout: j3d_mdl3.h): each
 * display list parses into BP / XF / CP commands with only zero padding
 * after them; replaying the game's texNo walk (fact 9, indexToPtr) from
 * the texNo offset finds one texture-register group per texture slot the
 * material fills, naming that slot's texture; the other patch offsets
 * point at the loads the game's patchers rewrite (matColor: XF 0x100C,
 * colorChan: XF 0x100E, tevReg: BP 0xE0-0xE7, fog: BP 0xEE) whenever the
 * list holds such a load. */
#include "j3d_check_ctx.h"
#include "j3d_mdl3.h"
#include "j3d_textures.h"

#include "model.h"

#include <stdlib.h>

/* One parsed command: its offset in the list, opcode and first register. */
typedef struct cmd {
    uint32_t at;
    uint8_t op;
    uint32_t reg;   /* BP: register byte; XF: first address; CP: register */
    uint32_t value; /* BP: the 24-bit value */
} cmd;

#define MAX_CMDS 4096

static int parse_list(chk *x, uint32_t i, const uint8_t *d, uint32_t size, cmd *c, uint32_t *n)
{
    uint32_t p = 0;
    *n = 0;
    while (p < size && d[p] != 0) {
        cmd k = {p, d[p], 0, 0};
        uint32_t len;
        if (d[p] == GA_GX_LOAD_BP) {
            len = 5;
            if (p + len > size) break;
            k.reg = d[p + 1];
            k.value = ga_get_u32be(d + p + 1) & 0xFFFFFF;
        } else if (d[p] == GA_GX_LOAD_XF) {
            if (p + 5 > size) break;
            len = 5 + 4 * ((uint32_t)ga_get_u16be(d + p + 1) + 1);
            if (len > size - p) break;
            k.reg = ga_get_u16be(d + p + 3);
        } else if (d[p] == GA_GX_LOAD_CP) {
            len = 6;
            if (p + len > size) break;
            k.reg = d[p + 1];
        } else {
            chk_add(x, "MDL3: material %u's display list has command 0x%02x at 0x%x, not a BP / XF / CP load", i, d[p],
                    p);
            return 0;
        }
        if (*n >= MAX_CMDS) {
            chk_add(x, "MDL3: material %u's display list holds more than %d commands", i, MAX_CMDS);
            return 0;
        }
        c[(*n)++] = k;
        p += len;
    }
    if (p < size && d[p] != 0) {
        chk_add(x, "MDL3: material %u's display list ends inside the command at 0x%x", i, p);
        return 0;
    }
    for (uint32_t q = p; q < size; q++)
        if (d[q] != 0) {
            chk_add(x, "MDL3: material %u's display list has non-zero byte 0x%02x at 0x%x after its commands", i, d[q],
                    q);
            return 0;
        }
    return 1;
}

static const cmd *cmd_at(const cmd *c, uint32_t n, uint32_t at)
{
    for (uint32_t k = 0; k < n; k++)
        if (c[k].at == at) return &c[k];
    return NULL;
}

/* The patch offset `what` must name a command of the kind test() takes,
 * when the list holds one. */
static void check_patch(chk *x, uint32_t i, const cmd *c, uint32_t n, uint32_t at, const char *what, int xf,
                        uint32_t lo, uint32_t hi, const char *kind)
{
    int has = 0;
    for (uint32_t k = 0; k < n && !has; k++)
        has = c[k].op == (xf ? GA_GX_LOAD_XF : GA_GX_LOAD_BP) && c[k].reg >= lo && c[k].reg <= hi;
    if (!has) return;
    const cmd *k = cmd_at(c, n, at);
    if (!k || k->op != (xf ? GA_GX_LOAD_XF : GA_GX_LOAD_BP) || k->reg < lo || k->reg > hi)
        chk_add(x, "MDL3: material %u's %s offset 0x%x does not point at its %s load; the game's patch would "
                   "corrupt the list",
                i, what, at, kind);
}

/* TEX1 texture t has a palette (its TLUT loads follow its group). */
static int tex_palette(chk *x, uint32_t t)
{
    const ga_model_chunk *c = x->tex1;
    if (!c) return 0;
    const uint8_t *h = ga_j3d_tex1_header_at(x->d + c->offset, c->size, t);
    if (!h) return 0;
    ga_texture f;
    ga_j3d_tex1_fields(h, &f);
    return f.has_palette == 1;
}

static void check_tex_no(chk *x, uint32_t i, const uint8_t *d, uint32_t size, uint32_t at)
{
    uint32_t groups = 0, slot = 0;
    const ga_material *mt = x->mats && i < x->nmats ? &x->mats[i] : NULL;
    while (at + 5 <= size && d[at] == GA_GX_LOAD_BP && d[at + 1] >= 0x80 && d[at + 1] <= 0xBB) {
        uint32_t tex = ga_get_u16be(d + at + 3);
        if (tex >= x->ntextures) {
            chk_add(x, "MDL3: material %u's texture group %u (offset 0x%x) names texture %u; TEX1 holds %u", i,
                    groups, at, tex, x->ntextures);
            return;
        }
        if (mt) {
            while (slot < 8 && mt->textures[slot] < 0) slot++;
            if (slot < 8 && (uint32_t)mt->textures[slot] != tex)
                chk_add(x, "MDL3: material %u's texture group %u names texture %u; MAT3 slot %u holds %d", i, groups,
                        tex, slot, mt->textures[slot]);
            slot++;
        }
        at += 0x14 + (tex_palette(x, tex) ? 0x23 : 0);
        groups++;
        if (groups > 8) break;
    }
    if (mt) {
        uint32_t want = 0;
        for (int k = 0; k < 8; k++) want += mt->textures[k] >= 0;
        if (groups != want)
            chk_add(x, "MDL3: material %u's texNo walk finds %u texture groups; MAT3 fills %u texture slots", i,
                    groups, want);
    }
}

void chk_mdl3(chk *x)
{
    const ga_model_chunk *c = x->mdl3;
    ga_mdl3_view v;
    if (!ga_mdl3_open(x->d + c->offset, c->size, c->offset, &v)) {
        chk_add(x, "MDL3: the chunk is %zu bytes, too short for its header (offset 0x%zx)", v.size, c->offset);
        return;
    }
    uint32_t n = v.count;
    if (x->mat3 && n != x->nmaterials)
        chk_add(x, "MDL3: %u display lists for %u MAT3 materials", n, x->nmaterials);
    if (!ga_mdl3_tables_hold(&v, 1u << GA_MDL3_T_LISTS | 1u << GA_MDL3_T_PATCHES, n)) {
        chk_add(x, "MDL3: the display-list (0x%x) or patch (0x%x) table overruns the chunk", v.table[GA_MDL3_T_LISTS],
                v.table[GA_MDL3_T_PATCHES]);
        return;
    }
    cmd *cmds = malloc(MAX_CMDS * sizeof *cmds);
    if (!cmds) {
        x->nomem = 1;
        return;
    }
    for (uint32_t i = 0; i < n && !x->nomem; i++) {
        ga_mdl3_list dl;
        if (!ga_mdl3_list_at(&v, i, &dl)) {
            chk_add(x, "MDL3: material %u's display list (0x%llx + 0x%llx) overruns the chunk", i,
                    (unsigned long long)dl.at, (unsigned long long)dl.len);
            continue;
        }
        uint64_t start = dl.at, len = dl.len;
        if ((c->offset + start) % 32 || len % 32)
            chk_add(x, "MDL3: material %u's display list (file offset 0x%llx, 0x%llx bytes) is not 32-aligned and "
                       "padded to 32",
                    i, (unsigned long long)(c->offset + start), (unsigned long long)len);
        const uint8_t *l = v.d + start;
        uint32_t ncmd;
        if (!parse_list(x, i, l, (uint32_t)len, cmds, &ncmd)) continue;
        uint16_t off[GA_MDL3_PATCHES];
        ga_mdl3_patch_offsets(&v, i, off);
        check_tex_no(x, i, l, (uint32_t)len, off[GA_MDL3_TEX_NO]);
        check_patch(x, i, cmds, ncmd, off[GA_MDL3_MAT_COLOR], "matColor", 1, 0x100C, 0x100D, "material colour (XF 0x100C)");
        check_patch(x, i, cmds, ncmd, off[GA_MDL3_COLOR_CHAN], "colorChan", 1, 0x100E, 0x1011,
                    "channel control (XF 0x100E)");
        check_patch(x, i, cmds, ncmd, off[GA_MDL3_TEV_REG], "tevReg", 0, 0xE0, 0xE7, "TEV colour (BP 0xE0-0xE7)");
        check_patch(x, i, cmds, ncmd, off[GA_MDL3_FOG], "fog", 0, 0xEE, 0xEE, "fog (BP 0xEE)");
    }
    free(cmds);
}
