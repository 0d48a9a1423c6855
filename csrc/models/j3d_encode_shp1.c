/* SHP1 with one shape re-encoded (j3d_mesh_write.h; j3d_writer.md
 * sections 0.1, 0.6, 1, 2).  The other shapes keep their records,
 * descriptors and display lists byte for byte; only their matrix tables
 * (and "use matrix" fields) are renumbered when DRW1 changed.  The new
 * shape is cut into packets of at most 10 distinct draw matrices (greedy,
 * in triangle order); a matrix still in its slot from the previous packet
 * is carried with 0xFFFF, the first packet loads every slot it uses.  Each
 * packet's triangles are stripped (j3d_strip.c) and the smaller of the
 * strips and a plain triangle list is kept; display lists start 32-aligned
 * and are zero-padded. */
#include "j3d_mesh_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct old_shp1 {
    const uint8_t *c;             /* chunk start */
    size_t size;
    uint32_t count;
    uint32_t off[8];              /* shapes, remap, names, descs, mtable, dl, mdata, ploc */
} old_shp1;

static int bad(ga_error *err, const ga_model *m, size_t at, const char *field)
{
    return ga_fail(err, GA_ERR_FORMAT, m->format, field, (long long)at, "lies past the SHP1 chunk");
}

/* The end of a table: the next table offset above it, or the chunk's end. */
static size_t table_end(const old_shp1 *o, uint32_t at)
{
    size_t end = o->size;
    for (int k = 0; k < 8; k++)
        if (o->off[k] > at && o->off[k] < end) end = o->off[k];
    return end;
}

/* One packet of the new shape: its slots' DRW1 entries and primitives. */
typedef struct packet_out {
    uint16_t table[10];
    uint32_t ntable;
    size_t dl_at, dl_size;        /* in the scratch DL buffer */
} packet_out;

static size_t vertex_bytes(const ga_shape_input *s)
{
    size_t n = s->matrix_type == 3 ? 1 : 0;
    for (int k = 0; k < GA_VTX_KEYS; k++)
        if (s->attrs >> k & 1) n += s->index16[k] ? 2 : 1;
    return n;
}

static void put_vertex(ga_buf *b, const ga_shape_input *s, const ga_dl_vertex *v, int slot)
{
    if (s->matrix_type == 3) ga_buf_u8(b, (uint8_t)(3 * slot));
    for (int k = 0; k < GA_VTX_KEYS; k++)
        if (s->attrs >> k & 1) {
            if (s->index16[k]) ga_buf_u16be(b, (uint16_t)v->idx[k]);
            else ga_buf_u8(b, (uint8_t)v->idx[k]);
        }
}

/* The longest run of triangles from t0 using at most 10 draw matrices:
 * its end, and the matrices in order of first use. */
static uint32_t cut_packet(const ga_shape_input *s, uint32_t t0, uint32_t *draws, uint32_t *nd)
{
    uint32_t t = t0;
    *nd = 0;
    for (; t < s->ntris; t++) {
        uint32_t add[3], na = 0;
        for (int k = 0; k < 3; k++) {
            uint32_t d = s->verts[s->tris[3 * t + k]].draw, seen = 0;
            for (uint32_t q = 0; q < *nd; q++) seen |= draws[q] == d;
            for (uint32_t q = 0; q < na; q++) seen |= add[q] == d;
            if (!seen) add[na++] = d;
        }
        if (*nd + na > 10) break;
        for (uint32_t q = 0; q < na; q++) draws[(*nd)++] = add[q];
    }
    return t;
}

uint32_t ga_shape_packet_count(const ga_shape_input *s)
{
    uint32_t n = 0, draws[10], nd;
    for (uint32_t t0 = 0; t0 < s->ntris; n++) t0 = cut_packet(s, t0, draws, &nd);
    return n;
}

/* Cuts the shape into packets and writes their display lists to dl. */
static int make_packets(const ga_shape_input *s, ga_buf *dl, packet_out **out, uint32_t *npackets)
{
    uint32_t *local = malloc(((size_t)s->nverts + 1) * sizeof *local);
    uint32_t *stamp = calloc((size_t)s->nverts + 1, sizeof *stamp);
    uint32_t *ids = malloc(((size_t)s->nverts + 1) * sizeof *ids);     /* local -> shape vertex */
    uint32_t *tris = malloc(((size_t)s->ntris * 3 + 1) * sizeof *tris); /* local corners */
    packet_out *pk = NULL;
    size_t npk = 0, cappk = 0;
    ga_u32s prims = {NULL, 0, 0};
    int rc = !local || !stamp || !ids || !tris ? -1 : 0;
    int32_t slots[10];
    for (int k = 0; k < 10; k++) slots[k] = -1;
    size_t vb = vertex_bytes(s);
    for (uint32_t t0 = 0; t0 < s->ntris && !rc;) {
        uint32_t draws[10], nd = 0, t = cut_packet(s, t0, draws, &nd);
        /* slots: keep what the previous packet left where it is */
        uint16_t table[10];
        uint32_t ntable = 0;
        int slot_of[10];
        int32_t next[10];
        int taken[10] = {0};
        for (uint32_t q = 0; q < nd; q++) {
            slot_of[q] = -1;
            for (int k = 0; k < 10; k++)
                if (slots[k] == (int32_t)draws[q] && !taken[k]) {
                    slot_of[q] = k;
                    taken[k] = 1;
                    break;
                }
        }
        for (uint32_t q = 0; q < nd; q++)
            if (slot_of[q] < 0)
                for (int k = 0; k < 10; k++)
                    if (!taken[k]) {
                        slot_of[q] = k;
                        taken[k] = 2; /* loaded by this packet */
                        break;
                    }
        for (int k = 0; k < 10; k++) next[k] = slots[k];
        for (uint32_t q = 0; q < nd; q++) {
            next[slot_of[q]] = (int32_t)draws[q];
            if ((uint32_t)slot_of[q] + 1 > ntable) ntable = (uint32_t)slot_of[q] + 1;
        }
        for (uint32_t k = 0; k < ntable; k++) table[k] = taken[k] == 2 ? (uint16_t)next[k] : 0xFFFF;
        if (s->matrix_type != 3) { /* one matrix, no slot index: slot 0 */
            ntable = 1;
            table[0] = (uint16_t)draws[0];
            slot_of[0] = 0;
        }
        memcpy(slots, next, sizeof slots);
        /* local vertices and triangles */
        uint32_t nl = 0;
        for (uint32_t q = t0; q < t; q++)
            for (int k = 0; k < 3; k++) {
                uint32_t v = s->tris[3 * q + k];
                if (stamp[v] != t0 + 1) {
                    stamp[v] = t0 + 1;
                    local[v] = nl;
                    ids[nl++] = v;
                }
                tris[3 * (q - t0) + k] = local[v];
            }
        prims.n = 0;
        if (ga_strip_triangles(tris, t - t0, nl, &prims) < 0) {
            rc = -1;
            break;
        }
        size_t strip_bytes = 0, list_bytes = 3 * (size_t)(t - t0) * vb + 3 * (((size_t)(t - t0) * 3 + 65534) / 65535);
        for (size_t at = 0; at < prims.n; at += 2 + prims.v[at + 1]) strip_bytes += 3 + prims.v[at + 1] * vb;
        if (npk == cappk) {
            cappk = cappk ? 2 * cappk : 8;
            packet_out *p = realloc(pk, cappk * sizeof *p);
            if (!p) {
                rc = -1;
                break;
            }
            pk = p;
        }
        packet_out *p = &pk[npk++];
        memcpy(p->table, table, sizeof table);
        p->ntable = ntable;
        p->dl_at = dl->len;
        int slot_by_draw_n = (int)nd;
        if (strip_bytes <= list_bytes) {
            for (size_t at = 0; at < prims.n; at += 2 + prims.v[at + 1]) {
                ga_buf_u8(dl, (uint8_t)prims.v[at]);
                ga_buf_u16be(dl, (uint16_t)prims.v[at + 1]);
                for (uint32_t k = 0; k < prims.v[at + 1]; k++) {
                    const ga_dl_vertex *v = &s->verts[ids[prims.v[at + 2 + k]]];
                    int slot = 0;
                    for (int q = 0; q < slot_by_draw_n; q++)
                        if (draws[q] == v->draw) slot = slot_of[q];
                    put_vertex(dl, s, v, slot);
                }
            }
        } else {
            for (uint32_t q = t0; q < t; q += 21845) {
                uint32_t n = t - q < 21845 ? t - q : 21845;
                ga_buf_u8(dl, 0x90);
                ga_buf_u16be(dl, (uint16_t)(3 * n));
                for (uint32_t k = 0; k < 3 * n; k++) {
                    const ga_dl_vertex *v = &s->verts[s->tris[3 * q + k]];
                    int slot = 0;
                    for (int r = 0; r < slot_by_draw_n; r++)
                        if (draws[r] == v->draw) slot = slot_of[r];
                    put_vertex(dl, s, v, slot);
                }
            }
        }
        ga_j3d_pad_zero(dl, p->dl_at, 32);
        p->dl_size = dl->len - p->dl_at;
        if (dl->failed) rc = -1;
        t0 = t;
    }
    free(local);
    free(stamp);
    free(ids);
    free(tris);
    free(prims.v);
    if (rc) {
        free(pk);
        return rc;
    }
    *out = pk;
    *npackets = (uint32_t)npk;
    return 0;
}

void ga_shape_bounds(ga_shape_input *s, const double *pos, uint32_t n)
{
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, r2 = 0;
    for (uint32_t v = 0; v < n; v++) {
        double q = 0;
        for (int k = 0; k < 3; k++) {
            double x = pos[3 * (size_t)v + k];
            if (v == 0 || x < lo[k]) lo[k] = x;
            if (v == 0 || x > hi[k]) hi[k] = x;
            q += x * x;
        }
        if (q > r2) r2 = q;
    }
    s->radius = (float)sqrt(r2);
    for (int k = 0; k < 3; k++) s->min[k] = (float)lo[k], s->max[k] = (float)hi[k];
}

/* Where one descriptor list (8-byte records ended by attribute 0xFF) ends. */
static size_t desc_len(const uint8_t *p, size_t room)
{
    for (size_t at = 0; at + 8 <= room; at += 8)
        if (ga_get_u32be(p + at) == 0xFF) return at + 8;
    return 0;
}

/* A shape's descriptor list: PNMTXIDX (direct) when multi-matrix, then
 * each attribute it has at INDEX8 / INDEX16, then the end record. */
static size_t make_desc(const ga_shape_input *s, uint8_t *desc)
{
    size_t dn = 0;
    if (s->matrix_type == 3) {
        memcpy(desc + dn, "\0\0\0\0\0\0\0\1", 8);
        dn += 8;
    }
    for (int k = 0; k < GA_VTX_KEYS; k++)
        if (s->attrs >> k & 1) {
            uint8_t r[8] = {0, 0, 0, (uint8_t)(k + 9), 0, 0, 0, (uint8_t)(s->index16[k] ? 3 : 2)};
            memcpy(desc + dn, r, 8);
            dn += 8;
        }
    memcpy(desc + dn, "\0\0\0\xFF\0\0\0\0", 8);
    return dn + 8;
}

/* The descriptor area from dstart to b's end: the offset of a list equal
 * to desc, appended when there is none; -1 past 64 KiB. */
static long find_or_add_desc(ga_buf *b, size_t dstart, const uint8_t *desc, size_t dn)
{
    for (size_t at = dstart; at + dn <= b->len; at += 8) {
        size_t n = desc_len(b->data + at, b->len - at);
        if (n == dn && memcmp(b->data + at, desc, dn) == 0) return at - dstart > 0xFFFF ? -1 : (long)(at - dstart);
        if (n) at += n - 8;
    }
    ga_j3d_pad(b, dstart, 8);
    size_t at = b->len - dstart;
    ga_buf_put(b, desc, dn);
    return at > 0xFFFF ? -1 : (long)at;
}

/* The per-packet tables of SHP1, built shape by shape. */
typedef struct shp1_tables {
    ga_buf mt, md, pl, dls;
    uint32_t npackets, mt_n;
} shp1_tables;

static void tables_init(shp1_tables *t)
{
    memset(t, 0, sizeof *t);
    ga_buf_init(&t->mt), ga_buf_init(&t->md), ga_buf_init(&t->pl), ga_buf_init(&t->dls);
}

static void tables_free(shp1_tables *t)
{
    ga_buf_free(&t->mt), ga_buf_free(&t->md), ga_buf_free(&t->pl), ga_buf_free(&t->dls);
}

/* A packet's matrix data before its n table entries (the caller appends
 * them to t->mt), then its display list. */
static void put_matrix_data(shp1_tables *t, uint16_t use, uint32_t n)
{
    ga_buf_u16be(&t->md, use);
    ga_buf_u16be(&t->md, (uint16_t)n);
    ga_buf_u32be(&t->md, t->mt_n);
    t->mt_n += n;
}

static void put_dl(shp1_tables *t, const uint8_t *dl, size_t size)
{
    ga_j3d_pad_zero(&t->dls, 0, 32);
    ga_buf_u32be(&t->pl, (uint32_t)size);
    ga_buf_u32be(&t->pl, (uint32_t)t->dls.len);
    ga_buf_put(&t->dls, dl, size);
}

/* A shape encoded from s: its record at rec in b (matrix type, packet
 * count, descriptor, first packet, bounds) and its packets. */
static int put_new_shape(const ga_model *m, shp1_tables *t, ga_buf *b, size_t rec, const ga_shape_input *s,
                         long desc_off, ga_error *err)
{
    ga_buf dl;
    ga_buf_init(&dl);
    packet_out *pk = NULL;
    uint32_t npk = 0;
    if (make_packets(s, &dl, &pk, &npk) < 0 || npk > 0xFFFF) {
        ga_buf_free(&dl);
        free(pk);
        return ga_nomem(err, m->format);
    }
    b->data[rec] = s->matrix_type;
    ga_buf_set_u16be(b, rec + 2, (uint16_t)npk);
    ga_buf_set_u16be(b, rec + 4, (uint16_t)desc_off);
    ga_buf_set_u16be(b, rec + 6, (uint16_t)t->npackets);
    ga_buf_set_u16be(b, rec + 8, (uint16_t)t->npackets);
    float f[7] = {s->radius, s->min[0], s->min[1], s->min[2], s->max[0], s->max[1], s->max[2]};
    for (int k = 0; k < 7; k++) {
        uint32_t u;
        memcpy(&u, &f[k], 4);
        ga_buf_set_u32be(b, rec + 0x0C + 4 * (size_t)k, u);
    }
    for (uint32_t p = 0; p < npk; p++) {
        put_matrix_data(t, pk[p].table[0], pk[p].ntable);
        for (uint32_t k = 0; k < pk[p].ntable; k++) ga_buf_u16be(&t->mt, pk[p].table[k]);
        put_dl(t, dl.data + pk[p].dl_at, pk[p].dl_size);
    }
    t->npackets += npk;
    ga_buf_free(&dl);
    free(pk);
    return GA_OK;
}

/* The tables after the descriptors: matrix table, display lists (32-aligned,
 * zero-padded), matrix data, packet locations; offs: the header's offset
 * fields (shapes at offs). */
static int finish_tables(const ga_model *m, shp1_tables *t, ga_buf *b, size_t start, size_t offs, ga_error *err)
{
    if (t->npackets > 0xFFFF) return ga_fail(err, GA_ERR_ENCODE, m->format, "SHP1 packets", -1, "more than 65535");
    ga_buf_set_u32be(b, offs + 16, (uint32_t)(b->len - start));
    ga_buf_put(b, t->mt.data, t->mt.len);
    ga_j3d_pad(b, start, 32);
    ga_buf_set_u32be(b, offs + 20, (uint32_t)(b->len - start));
    ga_buf_put(b, t->dls.data, t->dls.len);
    ga_j3d_pad_zero(b, start, 32);
    ga_buf_set_u32be(b, offs + 24, (uint32_t)(b->len - start));
    ga_buf_put(b, t->md.data, t->md.len);
    ga_buf_set_u32be(b, offs + 28, (uint32_t)(b->len - start));
    ga_buf_put(b, t->pl.data, t->pl.len);
    if (t->mt.failed || t->dls.failed || t->md.failed || t->pl.failed || ga_j3d_chunk_end(b, start) != GA_OK)
        return ga_nomem(err, m->format);
    return GA_OK;
}

/* The shape record's fixed fields (0xFF, 0xFFFF); the rest is set by put_new_shape. */
static const uint8_t FRESH_RECORD[0x28] = {0, 0xFF, [0x0A] = 0xFF, [0x0B] = 0xFF};

int ga_shp1_encode_shapes(const ga_model *m, const ga_shape_input *shapes, uint32_t n, ga_buf *b, uint32_t *packets,
                          ga_error *err)
{
    if (n > 0xFFFF) return ga_fail(err, GA_ERR_ENCODE, m->format, "SHP1", -1, "more than 65535 shapes");
    size_t start = ga_j3d_chunk_begin(b, "SHP1");
    ga_buf_u16be(b, (uint16_t)n);
    ga_buf_u16be(b, 0xFFFF);
    size_t offs = b->len;
    ga_buf_fill(b, 0, 32);
    size_t recs = b->len;
    ga_buf_set_u32be(b, offs, (uint32_t)(recs - start));
    for (uint32_t i = 0; i < n; i++) ga_buf_put(b, FRESH_RECORD, sizeof FRESH_RECORD);
    ga_j3d_pad(b, start, 4);
    ga_buf_set_u32be(b, offs + 4, (uint32_t)(b->len - start)); /* the identity remap; no names */
    for (uint32_t i = 0; i < n; i++) ga_buf_u16be(b, (uint16_t)i);
    ga_j3d_pad(b, start, 4);
    size_t dstart = b->len;
    ga_buf_set_u32be(b, offs + 12, (uint32_t)(dstart - start));
    int rc = b->failed ? ga_nomem(err, m->format) : GA_OK;
    long *desc = calloc((size_t)n + 1, sizeof *desc);
    if (!desc) rc = ga_nomem(err, m->format);
    for (uint32_t i = 0; i < n && !rc; i++) {
        uint8_t d[8 * 22];
        desc[i] = find_or_add_desc(b, dstart, d, make_desc(&shapes[i], d));
        if (desc[i] < 0) rc = ga_fail(err, GA_ERR_ENCODE, m->format, "SHP1 vertex descriptor", -1, "past 64 KiB");
        else if (b->failed) rc = ga_nomem(err, m->format);
    }
    ga_j3d_pad(b, start, 4);
    shp1_tables t;
    tables_init(&t);
    for (uint32_t i = 0; i < n && !rc; i++) rc = put_new_shape(m, &t, b, recs + 0x28 * (size_t)i, &shapes[i], desc[i], err);
    if (!rc) rc = finish_tables(m, &t, b, start, offs, err);
    *packets = t.npackets;
    tables_free(&t);
    free(desc);
    return rc;
}

int ga_shp1_shape_uses_texmtx(const ga_model *m, uint32_t shape, long *at)
{
    long ci = ga_j3d_find_chunk(m, "SHP1");
    if (ci < 0) return 0;
    const uint8_t *c = m->data + m->chunks[ci].offset;
    size_t size = m->chunks[ci].size;
    if (size < 0x2C) return 0;
    size_t recs = ga_get_u32be(c + 0x0C), descs = ga_get_u32be(c + 0x18);
    if (shape >= ga_get_u16be(c + 8) || recs > size || 0x28 * ((size_t)shape + 1) > size - recs) return 0;
    for (size_t p = descs + ga_get_u16be(c + recs + 0x28 * (size_t)shape + 4); p + 8 <= size && p >= descs; p += 8) {
        uint32_t attr = ga_get_u32be(c + p);
        if (attr == 0xFF) break;
        if (attr >= 1 && attr <= 8 && ga_get_u32be(c + p + 4) != 0) {
            *at = (long)(m->chunks[ci].offset + p);
            return (int)attr;
        }
    }
    return 0;
}

int ga_shp1_encode(const ga_model *m, uint32_t shape, const ga_shape_input *s, const uint32_t *draw_remap,
                   uint32_t ndraw_old, ga_buf *b, uint32_t *packets, ga_error *err)
{
    long ci = ga_j3d_find_chunk(m, "SHP1");
    if (ci < 0) return ga_fail(err, GA_ERR_FORMAT, m->format, "SHP1", -1, "the model has no SHP1 chunk");
    old_shp1 o;
    o.c = m->data + m->chunks[ci].offset;
    o.size = m->chunks[ci].size;
    size_t base = m->chunks[ci].offset;
    if (o.size < 0x2C) return bad(err, m, base, "SHP1 header");
    o.count = ga_get_u16be(o.c + 8);
    for (int k = 0; k < 8; k++) o.off[k] = ga_get_u32be(o.c + 0x0C + 4 * k);
    if (shape > o.count) return ga_fail(err, GA_ERR_ARG, m->format, "SHP1", -1, "no shape %u", shape);
    int adding = shape == o.count; /* a new shape after the others (add_mesh) */
    if (o.count + adding > 0xFFFF) return ga_fail(err, GA_ERR_ENCODE, m->format, "SHP1", -1, "65535 shapes");
    if (o.off[0] > o.size || (size_t)o.count * 0x28 > o.size - o.off[0]) return bad(err, m, base + 0x0C, "SHP1 shape table");
    for (int k = 1; k < 8; k++)
        if (o.off[k] > o.size) return bad(err, m, base + 0x0C + 4 * k, "SHP1 table offset");

    /* texture-matrix indices (TEXnMTXIDX) would need values per vertex that
     * no mesh array carries: such a shape is refused */
    long tm_at = -1;
    int tm = adding ? 0 : ga_shp1_shape_uses_texmtx(m, shape, &tm_at);
    if (tm)
        return ga_fail(err, GA_ERR_ARG, m->format, "SHP1 vertex descriptor", (long long)tm_at,
                       "shape %u uses texture matrix indices (attribute %d), which replace_mesh cannot write", shape, tm);
    uint8_t desc[8 * 22];
    size_t dn = make_desc(s, desc);

    if (ga_buf_reserve(b, o.size + 256) != GA_OK) return ga_nomem(err, m->format);
    size_t start = ga_j3d_chunk_begin(b, "SHP1");
    ga_buf_u16be(b, (uint16_t)(o.count + adding));
    ga_buf_u16be(b, 0xFFFF);
    size_t offs = b->len;
    for (int k = 0; k < 8; k++) ga_buf_u32be(b, 0);
    size_t recs = b->len;
    ga_buf_set_u32be(b, offs, (uint32_t)(recs - start));
    ga_buf_put(b, o.c + o.off[0], (size_t)o.count * 0x28);
    if (adding) ga_buf_put(b, FRESH_RECORD, sizeof FRESH_RECORD);
    ga_j3d_pad(b, start, 4);
    /* remap and names as stored */
    int rc = GA_OK;
    for (int k = 1; k <= 2 && !rc; k++) {
        if (o.off[k] == 0) continue;
        size_t end = table_end(&o, o.off[k]);
        if (k == 1 && (size_t)o.count * 2 < end - o.off[k]) end = o.off[k] + (size_t)o.count * 2;
        ga_buf_set_u32be(b, offs + 4 * k, (uint32_t)(b->len - start));
        ga_buf_put(b, o.c + o.off[k], end - o.off[k]);
        if (k == 1 && adding) ga_buf_u16be(b, (uint16_t)o.count); /* the identity remap */
        ga_j3d_pad(b, start, 4);
    }
    /* descriptors: the stored lists, the new one appended unless one matches */
    size_t dstart = b->len, dend = table_end(&o, o.off[3]);
    ga_buf_set_u32be(b, offs + 12, (uint32_t)(dstart - start));
    ga_buf_put(b, o.c + o.off[3], dend - o.off[3]);
    long new_desc = -1;
    for (uint32_t i = 0; i < o.count && new_desc < 0; i++) {
        uint32_t d = ga_get_u16be(o.c + o.off[0] + 0x28 * (size_t)i + 4);
        if (o.off[3] + (size_t)d + dn <= dend && desc_len(o.c + o.off[3] + d, dend - o.off[3] - d) == dn &&
            memcmp(o.c + o.off[3] + d, desc, dn) == 0)
            new_desc = d;
    }
    if (new_desc < 0) {
        ga_j3d_pad(b, dstart, 8);
        new_desc = (long)(b->len - dstart);
        ga_buf_put(b, desc, dn);
    }
    if (new_desc > 0xFFFF) rc = ga_fail(err, GA_ERR_ENCODE, m->format, "SHP1 vertex descriptor", -1, "past 64 KiB");
    ga_j3d_pad(b, start, 4);

    /* matrix tables, display lists, matrix data, packet locations: per shape */
    shp1_tables t;
    tables_init(&t);
    for (uint32_t i = 0; i < o.count + adding && !rc; i++) {
        size_t rec = recs + 0x28 * (size_t)i;
        if (i == shape) {
            rc = put_new_shape(m, &t, b, rec, s, new_desc, err);
            continue;
        }
        const uint8_t *orec = o.c + o.off[0] + 0x28 * (size_t)i;
        ga_buf_set_u16be(b, rec + 6, (uint16_t)t.npackets);
        ga_buf_set_u16be(b, rec + 8, (uint16_t)t.npackets);
        uint32_t n = ga_get_u16be(orec + 2), fm = ga_get_u16be(orec + 6), fp = ga_get_u16be(orec + 8);
        for (uint32_t p = 0; p < n && !rc; p++) {
            size_t mda = o.off[6] + 8 * (size_t)(fm + p), pla = o.off[7] + 8 * (size_t)(fp + p);
            if (mda + 8 > o.size || pla + 8 > o.size) {
                rc = bad(err, m, base + mda, "SHP1 packet");
                break;
            }
            uint32_t use = ga_get_u16be(o.c + mda), cnt = ga_get_u16be(o.c + mda + 2), first = ga_get_u32be(o.c + mda + 4);
            uint32_t size = ga_get_u32be(o.c + pla), dlo = ga_get_u32be(o.c + pla + 4);
            if (first > (o.size - o.off[4]) / 2 || 2 * (size_t)cnt > o.size - o.off[4] - 2 * (size_t)first ||
                dlo > o.size - o.off[5] || size > o.size - o.off[5] - dlo) {
                rc = bad(err, m, base + mda, "SHP1 packet");
                break;
            }
            put_matrix_data(&t, (uint16_t)(draw_remap && use < ndraw_old ? draw_remap[use] : use), cnt);
            for (uint32_t k = 0; k < cnt; k++) {
                uint32_t e = ga_get_u16be(o.c + o.off[4] + 2 * ((size_t)first + k));
                ga_buf_u16be(&t.mt, (uint16_t)(draw_remap && e < ndraw_old ? draw_remap[e] : e));
            }
            put_dl(&t, o.c + o.off[5] + dlo, size);
        }
        t.npackets += n;
    }
    if (!rc) rc = finish_tables(m, &t, b, start, offs, err);
    *packets = t.npackets;
    tables_free(&t);
    return rc;
}
