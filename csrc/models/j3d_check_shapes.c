/* The J3D lint's SHP1 part (j3d_check_ctx.h): every display list parsed
 * as the GX reads it, every index against its array, the matrix slots and
 * tables of each packet, the matrix type, the attributes the material's
 * texgens read, and (as warnings) geometry outside its joint's box.
 * Rules: ../shared/formats/j3d_writer.md facts 1, 2, 6, 8 and section 2;
 * list: docs/model_writer.md. */
#include "j3d_check_ctx.h"

#include <math.h>
#include <string.h>

static const char *const ATTR_NAMES[21] = {"PNMTXIDX", "TEX0MTXIDX", "TEX1MTXIDX", "TEX2MTXIDX", "TEX3MTXIDX",
                                           "TEX4MTXIDX", "TEX5MTXIDX", "TEX6MTXIDX", "TEX7MTXIDX", "POS",
                                           "NRM",      "CLR0",       "CLR1",       "TEX0",       "TEX1",
                                           "TEX2",     "TEX3",       "TEX4",       "TEX5",       "TEX6",
                                           "TEX7"};

typedef struct shape_state {
    uint32_t index;          /* the shape */
    uint32_t attr[21], type[21];
    int n;                   /* attributes in GX order */
    size_t vsize;            /* bytes per vertex in the display list */
    int has_pnmtx;
    uint32_t reported;       /* bit per attribute: index problem already given */
    int slot_reported, box_reported;
    int32_t slot_entry[10];  /* DRW1 entry loaded in each slot (-1 none) */
} shape_state;

static int in_chunk(const ga_model_chunk *c, size_t at, size_t n)
{
    return at >= c->offset && at <= c->offset + c->size && n <= c->offset + c->size - at;
}

/* The descriptor: attributes, their types and each vertex's size. */
static int read_desc(chk *x, size_t at, shape_state *s)
{
    const ga_model_chunk *c = x->shp1;
    uint32_t listed = 0;
    s->n = 0;
    s->vsize = 0;
    for (;; at += 8) {
        if (!in_chunk(c, at, 8)) {
            chk_add(x, "SHP1: shape %u's vertex descriptor runs past the chunk without its end (offset 0x%zx)",
                    s->index, at);
            return 0;
        }
        uint32_t attr = ga_get_u32be(x->d + at), type = ga_get_u32be(x->d + at + 4);
        if (attr == 0xFF) break;
        if (attr > 20 || type > 3) {
            chk_add(x, "SHP1: shape %u's descriptor has attribute %u type %u, which J3D cannot draw (offset 0x%zx)",
                    s->index, attr, type, at);
            return 0;
        }
        if (listed >> attr & 1) {
            chk_add(x, "SHP1: shape %u's descriptor lists %s twice (offset 0x%zx)", s->index, ATTR_NAMES[attr], at);
            return 0;
        }
        listed |= 1u << attr;
        if (type == 0) continue;
        size_t size;
        if (attr < 9) {
            if (type != 1) {
                chk_add(x, "SHP1: shape %u's %s must be direct (type 1), not %u (offset 0x%zx)", s->index,
                        ATTR_NAMES[attr], type, at + 4);
                return 0;
            }
            size = 1;
        } else if (type == 1) {
            chk_add(x, "SHP1: shape %u's %s is direct; J3D indexes its vertex arrays (offset 0x%zx)", s->index,
                    ATTR_NAMES[attr], at + 4);
            return 0;
        } else {
            size = type == 3 ? 2 : 1;
            chk_array *a = &x->a[attr - 9];
            a->used = 1;
            if (!a->present) {
                chk_add(x, "SHP1: shape %u uses %s, which VTX1 has no array for (offset 0x%zx)", s->index,
                        ATTR_NAMES[attr], at);
                return 0;
            }
        }
        s->has_pnmtx |= attr == 0;
        /* the GX reads each vertex's values in attribute order, whatever
         * the order of the list (docs/meshes.md) */
        int k = s->n++;
        for (; k > 0 && s->attr[k - 1] > attr; k--) s->attr[k] = s->attr[k - 1], s->type[k] = s->type[k - 1];
        s->attr[k] = attr;
        s->type[k] = type;
        s->vsize += size;
    }
    return 1;
}

/* The texgens (stored, not defaulted) of the shape's material that a
 * texturing TEV stage or an indirect stage reads must find their source
 * attribute in the shape. */
static void check_texgen_sources(chk *x, const shape_state *s)
{
    int32_t mi = x->shape_material[s->index];
    if (!x->mats || mi < 0 || (uint32_t)mi >= x->nmats) return;
    const ga_material *mt = &x->mats[mi];
    uint32_t has = 0;
    for (int k = 0; k < s->n; k++) has |= 1u << s->attr[k];
    uint32_t read = 0; /* texcoords a stage reads */
    for (int st = 0; st < mt->nstages && st < GA_MAT_STAGES; st++)
        if (mt->stage_texcoord[st] < 8 && mt->stage_texmap[st] != 0xFF) read |= 1u << mt->stage_texcoord[st];
    if (mt->has_indirect && mt->indirect.enabled)
        for (int k = 0; k < mt->indirect.nstages && k < 4; k++)
            if (mt->indirect.order[k][0] < 8) read |= 1u << mt->indirect.order[k][0];
    for (int g = 0; g < mt->ntexgens && g < 8; g++) {
        if (!(read >> g & 1) || !mt->has_texgen[g]) continue;
        uint32_t src = mt->texgen[g][1], attr = src == 1 ? 10 : (src >= 4 && src <= 11) ? src + 9 : 0;
        if (attr && !(has >> attr & 1))
            chk_add(x, "SHP1: shape %u has no %s, which texgen %d of its material %d reads", s->index,
                    ATTR_NAMES[attr], g, mi);
    }
}

static void check_box(chk *x, shape_state *s, uint32_t entry, uint32_t pos_index)
{
    const ga_model *m = x->m;
    int32_t j = x->shape_joint[s->index];
    if (s->box_reported || j < 0 || entry >= m->n_draw || m->draw_is_envelope[entry] || m->draw_index[entry] != j)
        return;
    /* a rigid vertex of the joint's own shape, in the joint's space (fact
     * 5): the joint's box, in the same space, culls it (fact 8) */
    const chk_array *a = &x->a[0];
    if (a->type < 2 || a->type > 4 || a->count != 1 || pos_index >= a->length) return;
    const uint8_t *p = x->d + a->base + (size_t)pos_index * a->stride;
    const ga_model_bone *b = &m->bones[j];
    for (int k = 0; k < 3; k++) {
        double v = a->type == 4   ? ga_get_f32be(p + 4 * k)
                   : a->type == 3 ? (int16_t)ga_get_u16be(p + 2 * k) / (double)(1u << (a->shift & 31))
                                  : ga_get_u16be(p + 2 * k) / (double)(1u << (a->shift & 31));
        double lo = b->bound_min[k], hi = b->bound_max[k], tol = 1e-3 * (1.0 + fabs(lo) + fabs(hi));
        if (v < lo - tol || v > hi + tol) {
            chk_add(x, "warning: SHP1: shape %u has position %u (%g on axis %d) outside joint %d's box %g..%g; the "
                       "game culls the joint's shapes by that box",
                    s->index, pos_index, v, k, j, lo, hi);
            s->box_reported = 1;
            return;
        }
    }
}

/* One packet's display list: known commands, VAT 0, counts, indices and
 * slots. */
static void check_display_list(chk *x, shape_state *s, uint32_t packet, size_t at, size_t size, uint32_t nslots)
{
    const uint8_t *d = x->d;
    size_t end = at + size;
    while (at < end) {
        uint8_t cmd = d[at];
        size_t cmd_at = at++;
        if (cmd == 0x00 || cmd == 0x48) continue; /* NOP, invalidate vertex cache */
        size_t skip = 0;
        uint8_t op = cmd & 0xF8;
        int known = 1;
        if (op == 0x08) skip = 5; /* CP register */
        else if (op == 0x20 || op == 0x28 || op == 0x30 || op == 0x38) skip = 4; /* indexed XF loads */
        else if (op == 0x40) skip = 8; /* call display list */
        else if (cmd == 0x61) skip = 4; /* BP register */
        else if (op == 0x10) { /* XF registers: u16 count - 1, u16 address, the values */
            if (at + 2 > end) goto truncated;
            skip = 4 + 4 * ((size_t)ga_get_u16be(d + at) + 1);
        } else if (op < 0x80) known = 0; /* primitives: 0x80 quads ... 0xB8 points */
        if (!known) {
            chk_add(x, "SHP1: shape %u packet %u: byte 0x%02x is not a GX display-list command (offset 0x%zx)",
                    s->index, packet, cmd, cmd_at);
            return;
        }
        if (skip) {
            if (skip > end - at) goto truncated;
            at += skip;
            continue;
        }
        if (cmd & 7) {
            chk_add(x, "SHP1: shape %u packet %u: primitive 0x%02x uses vertex format %u; J3D sets up format 0 only "
                       "(offset 0x%zx)",
                    s->index, packet, cmd, cmd & 7, cmd_at);
            return;
        }
        if (at + 2 > end) goto truncated;
        uint32_t count = ga_get_u16be(d + at);
        at += 2;
        if ((uint64_t)count * s->vsize > end - at) goto truncated;
        if ((cmd == 0x98 || cmd == 0xA0) && count < 3)
            chk_add(x, "SHP1: shape %u packet %u: a %s of %u vertices (at least 3) (offset 0x%zx)", s->index, packet,
                    cmd == 0x98 ? "strip" : "fan", count, cmd_at);
        if (cmd == 0x90 && count % 3)
            chk_add(x, "SHP1: shape %u packet %u: a triangle list of %u vertices (not a multiple of 3) (offset 0x%zx)",
                    s->index, packet, count, cmd_at);
        for (uint32_t v = 0; v < count; v++) {
            uint32_t slot = 0, pos = 0;
            for (int k = 0; k < s->n; k++) {
                uint32_t attr = s->attr[k], val;
                size_t val_at = at;
                if (s->type[k] == 3) {
                    val = ga_get_u16be(d + at);
                    at += 2;
                } else {
                    val = d[at++];
                }
                if (attr == 0) {
                    slot = val / 3;
                    int bad = val % 3 || slot >= nslots || slot >= 10;
                    if (!s->slot_reported && bad) {
                        chk_add(x, "SHP1: shape %u packet %u: matrix index %u is not 3 x a slot below the packet's %u "
                                   "(offset 0x%zx)",
                                s->index, packet, val, nslots, val_at);
                        s->slot_reported = 1;
                    } else if (!s->slot_reported && s->slot_entry[slot] < 0) {
                        chk_add(x, "SHP1: shape %u packet %u: a vertex uses matrix slot %u, which 0xFFFF carries but "
                                   "no earlier packet of the shape loaded (offset 0x%zx)",
                                s->index, packet, slot, val_at);
                        s->slot_reported = 1;
                    }
                    if (bad) slot = 0;
                } else if (attr >= 9) {
                    chk_array *a = &x->a[attr - 9];
                    if (attr == 9) pos = val;
                    if (attr == 9 && val == (s->type[k] == 3 ? 0xFFFFu : 0xFFu)) {
                        if (!(s->reported >> attr & 1))
                            chk_add(x, "SHP1: shape %u packet %u: position index 0x%x makes the GX skip the vertex "
                                       "(offset 0x%zx)",
                                    s->index, packet, val, val_at);
                        s->reported |= 1u << attr;
                        continue;
                    }
                    if (val >= a->length) {
                        if (!(s->reported >> attr & 1))
                            chk_add(x, "SHP1: shape %u packet %u: %s index %u, but the VTX1 array holds %u (offset "
                                       "0x%zx)",
                                    s->index, packet, ATTR_NAMES[attr], val, a->length, val_at);
                        s->reported |= 1u << attr;
                    }
                    else if (val > a->max_index)
                        a->max_index = val;
                }
            }
            int32_t e = s->slot_entry[slot];
            if (e >= 0) check_box(x, s, (uint32_t)e, pos);
        }
    }
    return;
truncated:
    chk_add(x, "SHP1: shape %u packet %u: a command runs past the end of the display list (offset 0x%zx)", s->index,
            packet, at);
}

void chk_shp1(chk *x)
{
    const ga_model_chunk *c = x->shp1;
    const ga_model *m = x->m;
    if (!in_chunk(c, c->offset, 0x2C)) {
        chk_add(x, "SHP1: the chunk is too short for its header (offset 0x%zx)", c->offset);
        return;
    }
    /* no shapes: nothing to draw, and the empty tables may sit at the
     * chunk's end (their offsets equal to its size) */
    if (ga_get_u16be(x->d + c->offset + 8) == 0) return;
    size_t tab[6];
    static const uint8_t FIELDS[6] = {0x0C, 0x18, 0x1C, 0x20, 0x24, 0x28};
    static const char *const NAMES[6] = {"shape table", "vertex descriptor", "matrix table", "display list",
                                         "matrix data", "packet location"};
    for (int k = 0; k < 6; k++) {
        uint32_t rel = ga_get_u32be(x->d + c->offset + FIELDS[k]);
        if (rel == 0 || rel >= c->size) {
            chk_add(x, "SHP1: %s offset 0x%x lies outside the chunk (offset 0x%zx)", NAMES[k], rel,
                    c->offset + FIELDS[k]);
            return;
        }
        tab[k] = c->offset + rel;
    }
    if (!x->vtx1_ok) {
        chk_add(x, "SHP1: the model has shapes but no usable VTX1");
        return;
    }
    for (uint32_t i = 0; i < x->nshapes; i++) {
        size_t rec = tab[0] + 0x28 * (size_t)i;
        if (!in_chunk(c, rec, 0x28)) {
            chk_add(x, "SHP1: shape %u's record lies past the chunk (offset 0x%zx)", i, rec);
            return;
        }
        const uint8_t *p = x->d + rec;
        uint8_t mtype = p[0];
        uint32_t npk = ga_get_u16be(p + 2), first_md = ga_get_u16be(p + 6), first_pl = ga_get_u16be(p + 8);
        x->packets += npk;
        shape_state s;
        memset(&s, 0, sizeof s);
        s.index = i;
        for (int k = 0; k < 10; k++) s.slot_entry[k] = -1;
        if (mtype > 3) {
            chk_add(x, "SHP1: shape %u has matrix type %u (0 single, 1 billboard, 2 Y billboard, 3 multi) (offset "
                       "0x%zx)",
                    i, mtype, rec);
            continue;
        }
        if (!read_desc(x, tab[1] + ga_get_u16be(p + 4), &s)) continue;
        if ((mtype == 3) != (s.has_pnmtx != 0))
            chk_add(x, "SHP1: shape %u has matrix type %u %s a position matrix index; multi-matrix shapes (type 3) "
                       "and only they carry one (offset 0x%zx)",
                    i, mtype, s.has_pnmtx ? "with" : "without", rec);
        check_texgen_sources(x, &s);
        for (uint32_t pk = 0; pk < npk; pk++) {
            size_t md = tab[4] + 8 * ((size_t)first_md + pk), pl = tab[5] + 8 * ((size_t)first_pl + pk);
            if (!in_chunk(c, md, 8) || !in_chunk(c, pl, 8)) {
                chk_add(x, "SHP1: shape %u packet %u's records lie past the chunk (offset 0x%zx)", i, pk, rec + 6);
                break;
            }
            uint32_t use = ga_get_u16be(x->d + md), n = ga_get_u16be(x->d + md + 2), first = ga_get_u32be(x->d + md + 4);
            size_t mt = tab[2] + 2 * (size_t)first;
            if (first > c->size || !in_chunk(c, mt, 2 * (size_t)n)) {
                chk_add(x, "SHP1: shape %u packet %u's matrix table (entries %u..) lies past the chunk (offset 0x%zx)",
                        i, pk, first, md + 4);
                break;
            }
            if (mtype == 3) {
                if (n > 10)
                    chk_add(x, "SHP1: shape %u packet %u loads %u matrices (the GX has 10 slots) (offset 0x%zx)", i,
                            pk, n, md + 2);
                for (uint32_t k = 0; k < n && k < 10; k++) {
                    uint32_t e = ga_get_u16be(x->d + mt + 2 * k);
                    if (e == 0xFFFF) continue; /* keeps the previous packet's matrix (fact 6) */
                    if (e >= x->draw_limit)
                        chk_add(x, "SHP1: shape %u packet %u: matrix table entry %u names DRW1 entry %u; only %u "
                                   "are drawn (the joint entries and the envelopes once) (offset 0x%zx)",
                                i, pk, k, e, x->draw_limit, mt + 2 * k);
                    else
                        s.slot_entry[k] = (int32_t)e;
                }
            } else {
                /* a single-matrix shape loads its "use matrix" into slot 0 */
                if (use >= x->draw_limit)
                    chk_add(x, "SHP1: shape %u packet %u uses DRW1 entry %u; only %u are drawn (offset 0x%zx)", i, pk,
                            use, x->draw_limit, md);
                else
                    s.slot_entry[0] = (int32_t)use;
            }
            uint32_t size = ga_get_u32be(x->d + pl), off = ga_get_u32be(x->d + pl + 4);
            size_t at = tab[3] + off;
            if (off > c->size || !in_chunk(c, at, size)) {
                chk_add(x, "SHP1: shape %u packet %u: a %u-byte display list at 0x%x runs past the chunk (offset "
                           "0x%zx)",
                        i, pk, size, off, pl);
                continue;
            }
            /* used in place by GXCallDisplayList: 32-aligned and padded
             * to a multiple of 32 (fact 1) */
            if (at % 32 || size % 32)
                chk_add(x, "SHP1: shape %u packet %u: display list at 0x%zx of %u bytes; the GX needs both "
                           "32-byte aligned (offset 0x%zx)",
                        i, pk, at, size, pl);
            check_display_list(x, &s, pk, at, size, mtype == 3 ? n : 1);
        }
    }
    (void)m;
}
