/* VTX1 append-only (j3d_mesh_write.h; j3d_writer.md sections 0.2-0.3, 1):
 * stored entries keep their indices, new distinct values are appended.
 * The stored type and fraction shift stay while the new values fit (S16
 * with shift s spans +-32768 / 2^s); otherwise the shift is lowered, or
 * the array goes F32, and the whole array is re-encoded (every stored
 * value under the new format; indices unchanged).  F32 is never demoted.
 * Arrays are written in the runtime's fixed order (POS, NRM, NBT, CLR0,
 * CLR1, TEX0-7) with Nintendo's padding text after each. */
#include "j3d_mesh_write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { K_POS = 0, K_NRM = 1, K_CLR0 = 2, K_CLR1 = 3, K_TEX0 = 4 };
enum { T_U8, T_S8, T_U16, T_S16, T_F32 };
static const size_t COMP_BYTES[5] = {1, 1, 2, 2, 4};
static const size_t COLOR_BYTES[6] = {2, 3, 4, 2, 3, 4};
static const int SLOT_KEY[13] = {K_POS, K_NRM, -1, K_CLR0, K_CLR1, 4, 5, 6, 7, 8, 9, 10, 11};

static int is_color(int key) { return key == K_CLR0 || key == K_CLR1; }

/* Components stored per entry. */
static size_t comps(const ga_vtx_array *a, int key)
{
    if (key == K_POS) return 2 + a->comp_count;
    if (key == K_NRM) return a->comp_count ? 9 : 3;
    return 1 + a->comp_count;
}

static void set_stride(ga_vtx_array *a, int key)
{
    a->stride = is_color(key) ? COLOR_BYTES[a->comp_type] : comps(a, key) * COMP_BYTES[a->comp_type];
}

/* Normals ignore the shift (the GX's fixed 6 / 14 fraction bits). */
static double scale_of(const ga_vtx_array *a, int key)
{
    if (key == K_NRM) return a->comp_type <= T_S8 ? 64.0 : 16384.0;
    return ldexp(1.0, (int)a->shift);
}

int ga_vtx1_load(const ga_model *m, ga_vtx1_edit *v, ga_error *err)
{
    memset(v, 0, sizeof *v);
    v->m = m;
    v->chunk = ga_j3d_find_chunk(m, "VTX1");
    if (v->chunk < 0) return ga_fail(err, GA_ERR_FORMAT, m->format, "VTX1", -1, "the model has no VTX1 chunk");
    const ga_model_chunk *c = &m->chunks[v->chunk];
    const uint8_t *d = m->data + c->offset;
    if (c->size < 0x40) return ga_fail(err, GA_ERR_FORMAT, m->format, "VTX1 header", (long long)c->offset, "too short");
    uint32_t fmt = ga_get_u32be(d + 8);
    for (int s = 0; s < 13; s++) v->slot_off[s] = ga_get_u32be(d + 0x0C + 4 * s);
    v->fmt_at = fmt;
    for (size_t at = fmt;; at += 16) {
        if (at < fmt || at + 16 > c->size)
            return ga_fail(err, GA_ERR_FORMAT, m->format, "VTX1 format list", (long long)(c->offset + at),
                           "the format list runs past the VTX1 chunk");
        uint32_t attr = ga_get_u32be(d + at);
        if (attr == 0xFF) {
            v->fmt_len = at + 16 - fmt;
            break;
        }
        if (attr < 9 || attr > 20) continue;
        int key = (int)attr - 9, slot = key < 2 ? key : key + 1;
        ga_vtx_array *a = &v->a[key];
        a->comp_count = ga_get_u32be(d + at + 4);
        a->comp_type = ga_get_u32be(d + at + 8);
        a->shift = d[at + 12];
        a->fmt_at = at;
        if (a->comp_type > (is_color(key) ? 5u : 4u) || a->comp_count > (key == K_NRM ? 2u : 1u) || a->shift > 31)
            return ga_fail(err, GA_ERR_FORMAT, m->format, "VTX1 component format", (long long)(c->offset + at + 4),
                           "attribute %u: count %u, type %u, shift %u", attr, a->comp_count, a->comp_type, a->shift);
        set_stride(a, key);
        uint32_t rel = v->slot_off[slot];
        if (rel == 0 || rel >= c->size) continue;
        uint32_t next = (uint32_t)c->size;
        for (int s = 0; s < 13; s++)
            if (v->slot_off[s] > rel && v->slot_off[s] < next) next = v->slot_off[s];
        a->count = (uint32_t)((next - rel) / a->stride);
        a->cap = a->count ? a->count : 1;
        free(a->data); /* (an attribute listed twice: the last record wins, as in the decoder) */
        if (!(a->data = malloc(a->cap * a->stride))) return ga_nomem(err, m->format);
        memcpy(a->data, d + rel, (size_t)a->count * a->stride);
        a->present = 1;
    }
    return GA_OK;
}

void ga_vtx1_free(ga_vtx1_edit *v)
{
    for (int k = 0; k < GA_VTX_KEYS; k++) {
        free(v->a[k].data);
        free(v->a[k].table);
    }
    memset(v, 0, sizeof *v);
}

void ga_vtx1_value(const ga_vtx_array *a, int key, uint32_t i, double *out)
{
    const uint8_t *p = a->data + (size_t)i * a->stride;
    if (is_color(key)) {
        unsigned rgba[4] = {255, 255, 255, 255}, x;
        switch (a->comp_type) {
        case 0:
            x = ga_get_u16be(p);
            rgba[0] = ((x >> 11) << 3) | (x >> 13), rgba[1] = (((x >> 5) & 63) << 2) | ((x >> 9) & 3);
            rgba[2] = ((x & 31) << 3) | ((x >> 2) & 7);
            break;
        case 1: case 2: rgba[0] = p[0], rgba[1] = p[1], rgba[2] = p[2]; break;
        case 3:
            x = ga_get_u16be(p);
            for (int k = 0; k < 4; k++) rgba[k] = ((x >> (12 - 4 * k)) & 15) * 17;
            break;
        case 4:
            x = ((unsigned)p[0] << 16) | ((unsigned)p[1] << 8) | p[2];
            for (int k = 0; k < 4; k++) rgba[k] = (((x >> (18 - 6 * k)) & 63) << 2) | (((x >> (18 - 6 * k)) & 63) >> 4);
            break;
        default:
            for (int k = 0; k < 4; k++) rgba[k] = p[k];
        }
        if (a->comp_count == 0) rgba[3] = 255;
        for (int k = 0; k < 4; k++) out[k] = rgba[k] / 255.0;
        return;
    }
    size_t n = comps(a, key), w = COMP_BYTES[a->comp_type];
    double s = a->comp_type == T_F32 ? 1.0 : 1.0 / scale_of(a, key);
    size_t want = key == K_POS ? 3 : key == K_NRM ? 3 : 2;
    for (size_t k = 0; k < want; k++) {
        if (k >= n) {
            out[k] = 0.0;
            continue;
        }
        const uint8_t *q = p + k * w;
        switch (a->comp_type) {
        case T_U8: out[k] = q[0] * s; break;
        case T_S8: out[k] = (int8_t)q[0] * s; break;
        case T_U16: out[k] = ga_get_u16be(q) * s; break;
        case T_S16: out[k] = (int16_t)ga_get_u16be(q) * s; break;
        default: out[k] = ga_get_f32be(q); break;
        }
    }
}

/* Encodes one value (want components) into out[stride]; 0 when it does
 * not fit the array's format. */
static int encode(const ga_vtx_array *a, int key, const double *val, uint8_t *out)
{
    memset(out, 0, a->stride);
    if (is_color(key)) {
        unsigned c[4];
        for (int k = 0; k < 4; k++) {
            double x = val[k] < 0 ? 0 : val[k] > 1 ? 1 : val[k];
            c[k] = (unsigned)lround(x * 255.0);
        }
        uint32_t x;
        switch (a->comp_type) {
        case 0: x = (c[0] >> 3) << 11 | (c[1] >> 2) << 5 | c[2] >> 3; out[0] = x >> 8, out[1] = x & 255; break;
        case 1: case 2: out[0] = c[0], out[1] = c[1], out[2] = c[2]; break;
        case 3: x = (c[0] >> 4) << 12 | (c[1] >> 4) << 8 | (c[2] >> 4) << 4 | c[3] >> 4; out[0] = x >> 8, out[1] = x & 255; break;
        case 4: x = (c[0] >> 2) << 18 | (c[1] >> 2) << 12 | (c[2] >> 2) << 6 | c[3] >> 2; out[0] = x >> 16, out[1] = (x >> 8) & 255, out[2] = x & 255; break;
        default: for (int k = 0; k < 4; k++) out[k] = (uint8_t)c[k];
        }
        return 1;
    }
    size_t n = comps(a, key), w = COMP_BYTES[a->comp_type];
    size_t want = key == K_NRM || key == K_POS ? 3 : 2;
    double s = scale_of(a, key);
    for (size_t k = 0; k < want; k++) {
        if (k >= n) {
            if (val[k] != 0.0) return 0; /* XY positions / S-only UVs */
            continue;
        }
        uint8_t *q = out + k * w;
        if (a->comp_type == T_F32) {
            float f = (float)val[k];
            uint32_t u;
            memcpy(&u, &f, 4);
            q[0] = u >> 24, q[1] = (u >> 16) & 255, q[2] = (u >> 8) & 255, q[3] = u & 255;
            continue;
        }
        double x = val[k] * s;
        if (!isfinite(x)) return 0;
        long long r = llround(x);
        static const long long LO[4] = {0, -128, 0, -32768}, HI[4] = {255, 127, 65535, 32767};
        if (r < LO[a->comp_type] || r > HI[a->comp_type]) return 0;
        if (w == 1) q[0] = (uint8_t)r;
        else q[0] = (uint8_t)((uint64_t)r >> 8), q[1] = (uint8_t)r;
    }
    return 1;
}

static uint32_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15u;
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        uint32_t w;
        memcpy(&w, p + k, 4);
        h = (h ^ w) * 0xBF58476D1CE4E5B9u;
    }
    for (; k < n; k++) h = (h ^ p[k]) * 0x94D049BB133111EBu;
    return (uint32_t)(h ^ (h >> 29) ^ (h >> 43));
}

/* (Re)builds the dedup table over entries 0..count-1 (first wins). */
static int build_table(ga_vtx_array *a, size_t room)
{
    size_t cap = 64;
    while (cap < 2 * room) cap *= 2;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t) return -1;
    free(a->table);
    a->table = t;
    a->tcap = cap;
    for (uint32_t i = 0; i < a->count; i++) {
        const uint8_t *p = a->data + (size_t)i * a->stride;
        size_t h = hash_bytes(p, a->stride) & (cap - 1);
        while (t[h] && memcmp(a->data + (size_t)(t[h] - 1) * a->stride, p, a->stride)) h = (h + 1) & (cap - 1);
        if (!t[h]) t[h] = i + 1;
    }
    return 0;
}

/* Re-encodes every stored entry under another format (type, shift, count). */
static int reformat(ga_vtx_array *a, int key, uint32_t type, uint32_t shift, uint32_t count)
{
    ga_vtx_array old = *a;
    ga_vtx_array nu = *a;
    nu.comp_type = type;
    nu.shift = type == T_F32 ? 0 : shift;
    nu.comp_count = count;
    set_stride(&nu, key);
    nu.cap = a->count ? a->count : 1;
    nu.data = malloc(nu.cap * nu.stride);
    if (!nu.data) return -1;
    for (uint32_t i = 0; i < a->count; i++) {
        double val[4];
        ga_vtx1_value(&old, key, i, val);
        if (!encode(&nu, key, val, nu.data + (size_t)i * nu.stride)) { /* (cannot happen: wider range) */
            free(nu.data);
            return -1;
        }
    }
    free(old.data);
    nu.table = NULL;
    nu.tcap = 0;
    free(old.table);
    nu.changed = 1;
    *a = nu;
    return 0;
}

/* Whether every value fits the format (type, shift, count). */
static int all_fit(const ga_vtx_array *a, int key, uint32_t type, uint32_t shift, uint32_t count, const double *values,
                   uint32_t n, size_t ncomp)
{
    ga_vtx_array t = *a;
    t.comp_type = type, t.shift = shift, t.comp_count = count;
    set_stride(&t, key);
    uint8_t buf[64];
    for (uint32_t i = 0; i < n; i++)
        if (!encode(&t, key, values + ncomp * i, buf)) return 0;
    return 1;
}

int ga_vtx1_add(ga_vtx1_edit *v, int key, const double *values, uint32_t n, uint32_t *out, ga_error *err)
{
    ga_vtx_array *a = &v->a[key];
    const char *fmt = v->m->format;
    if (!a->present) return ga_fail(err, GA_ERR_ARG, fmt, "VTX1", -1, "VTX1 has no array for attribute %d", key + 9);
    if (key == K_NRM && a->comp_count)
        return ga_fail(err, GA_ERR_ARG, fmt, "VTX1 NRM", -1, "the normals are stored with binormals and tangents (NBT)");
    size_t ncomp = is_color(key) ? 4 : key <= K_NRM ? 3 : 2;
    if (!is_color(key) && !all_fit(a, key, a->comp_type, a->shift, a->comp_count, values, n, ncomp)) {
        /* wider first: another component (XY -> XYZ, S -> ST), then lower shifts, then F32 */
        uint32_t cnt = a->comp_count;
        if (key != K_NRM && !all_fit(a, key, T_F32, 0, cnt, values, n, ncomp)) cnt = 1;
        uint32_t type = a->comp_type, shift = a->shift;
        int ok = type != T_F32 && all_fit(a, key, type, shift, cnt, values, n, ncomp);
        while (!ok && type != T_F32 && key != K_NRM && shift > 0)
            ok = all_fit(a, key, type, --shift, cnt, values, n, ncomp);
        if (!ok) type = T_F32, shift = 0;
        if (reformat(a, key, type, shift, cnt) < 0) return ga_nomem(err, fmt);
    }
    if (n == 0) return GA_OK;
    if (!a->table && build_table(a, (size_t)a->count + n) < 0) return ga_nomem(err, fmt);
    uint8_t buf[64];
    for (uint32_t i = 0; i < n; i++) {
        encode(a, key, values + ncomp * i, buf);
        size_t h = hash_bytes(buf, a->stride) & (a->tcap - 1);
        while (a->table[h] && memcmp(a->data + (size_t)(a->table[h] - 1) * a->stride, buf, a->stride))
            h = (h + 1) & (a->tcap - 1);
        if (a->table[h]) {
            out[i] = a->table[h] - 1;
            continue;
        }
        if (a->count >= 65535u)
            return ga_fail(err, GA_ERR_ENCODE, fmt, "VTX1", -1,
                           "attribute %d would hold more than 65535 entries (a 16-bit index)", key + 9);
        if (a->count == a->cap) {
            size_t cap = a->cap * 2;
            uint8_t *d = realloc(a->data, cap * a->stride);
            if (!d) return ga_nomem(err, fmt);
            a->data = d;
            a->cap = cap;
        }
        memcpy(a->data + (size_t)a->count * a->stride, buf, a->stride);
        out[i] = a->count++;
        a->changed = 1;
        if (2 * ((size_t)a->count + 1) > a->tcap) {
            if (build_table(a, 2 * (size_t)a->count) < 0) return ga_nomem(err, fmt);
        } else {
            a->table[h] = a->count;
        }
    }
    return GA_OK;
}

int ga_vtx1_reencode(ga_vtx1_edit *v)
{
    for (int k = 0; k < GA_VTX_KEYS; k++) {
        ga_vtx_array *a = &v->a[k];
        if (a->present && reformat(a, k, a->comp_type, a->shift, a->comp_count) < 0) return GA_ERR_NOMEM;
    }
    return GA_OK;
}

/* The whole chunk.  afresh: the format list written from the arrays
 * (present ones only, ascending attribute, each {attr, count, type, shift,
 * 0xFF 0xFF 0xFF}, then the end record) and only the arrays a format
 * record describes, each with zero entries up to its 32-byte end; else the stored list with each array's format
 * updated, and stored arrays no record describes copied as they are. */
static int write_vtx1(const ga_vtx1_edit *v, ga_buf *b, int afresh)
{
    const ga_model_chunk *c = &v->m->chunks[v->chunk];
    const uint8_t *d = v->m->data + c->offset;
    size_t room = c->size + 32 * 13;
    for (int k = 0; k < GA_VTX_KEYS; k++) room += (size_t)v->a[k].count * v->a[k].stride;
    if (ga_buf_reserve(b, room) != GA_OK) return GA_ERR_NOMEM;
    size_t start = ga_j3d_chunk_begin(b, "VTX1");
    ga_buf_u32be(b, 0x40);
    size_t offs = b->len;
    for (int s = 0; s < 13; s++) ga_buf_u32be(b, 0);
    size_t fmt = b->len;
    if (!afresh) ga_buf_put(b, d + v->fmt_at, v->fmt_len);
    for (int k = 0; k < GA_VTX_KEYS && !b->failed; k++) {
        const ga_vtx_array *a = &v->a[k];
        /* afresh, an attribute of no entries is left out: its empty array
         * would share the next one's offset (or sit at the chunk's end),
         * which the loader does not read back as empty */
        if (!a->present || (afresh && a->count == 0)) continue;
        if (afresh) {
            ga_buf_u32be(b, (uint32_t)k + 9);
            ga_buf_u32be(b, a->comp_count);
            ga_buf_u32be(b, a->comp_type);
            ga_buf_u8(b, (uint8_t)a->shift);
            ga_buf_fill(b, 0xFF, 3);
            continue;
        }
        size_t at = fmt + (a->fmt_at - v->fmt_at);
        ga_buf_set_u32be(b, at + 4, a->comp_count);
        ga_buf_set_u32be(b, at + 8, a->comp_type);
        b->data[at + 12] = (uint8_t)a->shift;
    }
    if (afresh) ga_buf_u32be(b, 0xFF), ga_buf_fill(b, 0, 8), ga_buf_u8(b, 0), ga_buf_fill(b, 0xFF, 3);
    ga_j3d_pad(b, start, 32);
    for (int s = 0; s < 13 && !b->failed; s++) {
        int key = SLOT_KEY[s];
        uint32_t rel = v->slot_off[s];
        if (afresh ? key < 0 || !v->a[key].present || !v->a[key].count : rel == 0 || rel >= c->size) continue;
        ga_buf_set_u32be(b, offs + 4 * (size_t)s, (uint32_t)(b->len - start));
        if (key >= 0 && v->a[key].present) {
            size_t n = (size_t)v->a[key].count * v->a[key].stride, room = (n + 31) & ~(size_t)31;
            ga_buf_put(b, v->a[key].data, n);
            /* afresh: zero entries to the array's 32-byte end, so that the
             * loader's count (gap / stride) reads back as written */
            if (afresh) ga_buf_fill(b, 0, (room - n) / v->a[key].stride * v->a[key].stride);
        } else { /* an array no format record describes: its bytes as they are */
            uint32_t next = (uint32_t)c->size;
            for (int q = 0; q < 13; q++)
                if (v->slot_off[q] > rel && v->slot_off[q] < next) next = v->slot_off[q];
            ga_buf_put(b, d + rel, next - rel);
        }
        ga_j3d_pad(b, start, 32);
    }
    return ga_j3d_chunk_end(b, start);
}

int ga_vtx1_encode(const ga_vtx1_edit *v, ga_buf *b) { return write_vtx1(v, b, 0); }

int ga_vtx1_encode_afresh(const ga_vtx1_edit *v, ga_buf *b) { return write_vtx1(v, b, 1); }
