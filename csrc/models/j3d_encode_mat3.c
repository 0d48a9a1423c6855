/* The MAT3 relayout engine (j3d_mat3.h): a stored MAT3 chunk as tables of
 * entries, appendable, written back with every offset updated.  Layout:
 * ../shared/formats/j3d_materials.md section 1.1-1.3. */
#include "j3d_mat3.h"
#include "j3d_writer.h"

#include <stdlib.h>
#include <string.h>

/* Entry size of each table, by header field (0x0C + 4 k); the name table
 * is one opaque blob (0). */
const uint32_t ga_mat3_item[GA_MAT3_TABLES] = {
    GA_MAT3_RECORD, 2, 0, GA_MAT3_INDIRECT, 4, 4, 1, 8, 4, 0x34, 1, 4, 4, 0x64, 0x64,
    2, 4, 8, 4, 1, 0x14, 4, 4, 0x2C, 8, 4, 4, 1, 1, 0x10,
};

/* The index fields of an init record: where, how many, how wide (1: u8
 * with 0xFF for none, 2: u16 with 0xFFFF) and the table they index. */
static const struct {
    uint16_t at, n, width, field;
} record_refs[] = {
    {0x001, 1, 1, 0x1C},  {0x002, 1, 1, 0x24},  {0x003, 1, 1, 0x34},  {0x004, 1, 1, 0x58},  {0x005, 1, 1, 0x78},
    {0x006, 1, 1, 0x74},  {0x007, 1, 1, 0x7C},  {0x008, 2, 2, 0x20},  {0x00C, 4, 2, 0x28},  {0x014, 2, 2, 0x2C},
    {0x018, 8, 2, 0x30},  {0x028, 8, 2, 0x38},  {0x038, 8, 2, 0x3C},  {0x048, 10, 2, 0x40}, {0x05C, 20, 2, 0x44},
    {0x084, 8, 2, 0x48},  {0x094, 4, 2, 0x54},  {0x0BC, 16, 2, 0x4C}, {0x0DC, 4, 2, 0x50},  {0x0E4, 16, 2, 0x5C},
    {0x104, 16, 2, 0x60}, {0x124, 4, 2, 0x64},  {0x144, 1, 2, 0x68},  {0x146, 1, 2, 0x6C},  {0x148, 1, 2, 0x70},
    {0x14A, 1, 2, 0x80},
};

ga_mat3_table *ga_mat3_tab(ga_mat3 *x, uint32_t field)
{
    return &x->t[(field - 0x0C) / 4];
}

uint16_t ga_mat3_remap(const ga_mat3 *x, uint32_t i)
{
    return ga_get_u16be(x->t[(GA_MAT3_T_REMAP - 0x0C) / 4].data.data + 2 * (size_t)i);
}

uint8_t *ga_mat3_record(ga_mat3 *x, uint32_t i)
{
    return ga_mat3_tab(x, GA_MAT3_T_RECORDS)->data.data + (size_t)ga_mat3_remap(x, i) * GA_MAT3_RECORD;
}

void ga_mat3_close(ga_mat3 *x)
{
    for (int k = 0; k < GA_MAT3_TABLES; k++) ga_buf_free(&x->t[k].data);
    memset(x, 0, sizeof *x);
}

/* Live entries: those up to the highest index any reader uses, within the
 * stored bytes. */
static uint32_t live(const ga_mat3_table *t, uint32_t used)
{
    if (!t->item) return t->at ? 1 : 0;
    uint32_t fit = t->gap / t->item;
    return used < fit ? used : fit;
}

static int take(ga_mat3 *x, ga_mat3_table *t, uint32_t count, ga_error *err)
{
    t->count = count;
    size_t n = t->item ? (size_t)count * t->item : t->gap;
    if (ga_buf_put(&t->data, x->chunk + t->at, n) != GA_OK) return ga_nomem(err, x->format);
    return GA_OK;
}

int ga_mat3_open(ga_mat3 *x, const uint8_t *chunk, size_t size, size_t base, const char *format, ga_error *err)
{
    memset(x, 0, sizeof *x);
    x->chunk = chunk, x->size = size, x->base = base, x->format = format;
    for (int k = 0; k < GA_MAT3_TABLES; k++) {
        x->t[k].field = 0x0C + 4 * (uint32_t)k;
        x->t[k].item = ga_mat3_item[k];
        ga_buf_init(&x->t[k].data);
    }
    if (size < GA_MAT3_HEADER || size > UINT32_MAX)
        return ga_fail(err, GA_ERR_FORMAT, format, "MAT3 header", (long long)base, "the chunk is %zu bytes", size);
    x->count = ga_get_u16be(chunk + 8);
    x->head = (uint32_t)size;
    for (int k = 0; k < GA_MAT3_TABLES; k++) {
        ga_mat3_table *t = &x->t[k];
        t->at = ga_get_u32be(chunk + t->field);
        if (t->at == 0) continue;
        if (t->at < GA_MAT3_HEADER || t->at > size)
            return ga_fail(err, GA_ERR_FORMAT, format, "MAT3 table offset", (long long)(base + t->field),
                           "0x%x lies outside the chunk's tables (0x84 .. 0x%zx)", t->at, size);
        if (t->at < x->head) x->head = t->at;
    }
    /* a table runs to the next larger offset (j3d_materials.md 1.1) */
    for (int k = 0; k < GA_MAT3_TABLES; k++) {
        ga_mat3_table *t = &x->t[k];
        if (!t->at) continue;
        uint32_t end = (uint32_t)size;
        for (int q = 0; q < GA_MAT3_TABLES; q++)
            if (x->t[q].at > t->at && x->t[q].at < end) end = x->t[q].at;
        t->gap = end - t->at;
    }
    /* remap and the records it uses; then what the records index */
    ga_mat3_table *remap = ga_mat3_tab(x, GA_MAT3_T_REMAP), *rec = ga_mat3_tab(x, GA_MAT3_T_RECORDS);
    int rc;
    if (x->count && (!remap->at || remap->gap < 2u * x->count || !rec->at))
        return ga_fail(err, GA_ERR_FORMAT, format, "MAT3 remap table", (long long)(base + 0x10),
                       "%u materials need a remap table and init records", x->count);
    if ((rc = take(x, remap, x->count, err))) return rc;
    uint32_t nrec = 0;
    for (uint32_t i = 0; i < x->count; i++) {
        uint32_t r = ga_mat3_remap(x, i);
        if (r >= nrec) nrec = r + 1;
    }
    if (live(rec, nrec) < nrec)
        return ga_fail(err, GA_ERR_FORMAT, format, "MAT3 remap table", (long long)(base + remap->at),
                       "a material uses init record %u, past the table's end", nrec - 1);
    if ((rc = take(x, rec, nrec, err))) return rc;
    uint32_t used[GA_MAT3_TABLES] = {0};
    for (uint32_t r = 0; r < nrec; r++) {
        const uint8_t *e = rec->data.data + (size_t)r * GA_MAT3_RECORD;
        for (size_t f = 0; f < sizeof record_refs / sizeof *record_refs; f++)
            for (uint32_t q = 0; q < record_refs[f].n; q++) {
                uint32_t v = record_refs[f].width == 1 ? e[record_refs[f].at + q]
                                                       : ga_get_u16be(e + record_refs[f].at + 2 * q);
                if (v == (record_refs[f].width == 1 ? 0xFFu : 0xFFFFu)) continue;
                uint32_t *u = &used[(record_refs[f].field - 0x0C) / 4];
                if (v + 1 > *u) *u = v + 1;
            }
    }
    used[(GA_MAT3_T_INDIRECT - 0x0C) / 4] = x->count;
    for (int k = 0; k < GA_MAT3_TABLES; k++) {
        ga_mat3_table *t = &x->t[k];
        if (t == remap || t == rec || !t->at) continue;
        if ((rc = take(x, t, live(t, used[k]), err))) return rc;
    }
    return GA_OK;
}

int ga_mat3_append(ga_mat3 *x, uint32_t field, const uint8_t *item, int reuse, uint32_t *index, ga_error *err)
{
    ga_mat3_table *t = ga_mat3_tab(x, field);
    if (reuse)
        for (uint32_t q = 0; q < t->count; q++)
            if (memcmp(t->data.data + (size_t)q * t->item, item, t->item) == 0) {
                *index = q;
                return GA_OK;
            }
    /* the index 0xFF (u8-indexed tables) / 0xFFFF means none */
    int u8 = field == 0x1C || field == 0x24 || field == 0x34 || field == 0x58 || (field >= 0x74 && field <= 0x7C);
    uint32_t limit = u8 ? 0xFF : 0xFFFF;
    if (t->count >= limit)
        return ga_fail(err, GA_ERR_LIMIT, x->format, "MAT3 table", (long long)(x->base + field),
                       "the table at header field 0x%x is full (%u entries)", field, t->count);
    if (ga_buf_put(&t->data, item, t->item) != GA_OK) return ga_nomem(err, x->format);
    *index = t->count++;
    t->grown = 1;
    return GA_OK;
}

/* Write order: the stored tables by offset, a new table after the last
 * present one before it in the header. */
static uint64_t order_key(const ga_mat3 *x, int k)
{
    if (x->t[k].at) return (uint64_t)x->t[k].at << 8 | (uint64_t)k;
    for (int q = k - 1; q >= 0; q--)
        if (x->t[q].at) return (uint64_t)x->t[q].at << 8 | (uint64_t)(0x80 + k);
    return (uint64_t)k;
}

int ga_mat3_write(const ga_mat3 *x, ga_buf *out, ga_error *err)
{
    int order[GA_MAT3_TABLES], n = 0;
    uint64_t key[GA_MAT3_TABLES];
    for (int k = 0; k < GA_MAT3_TABLES; k++) {
        if (!x->t[k].at && !x->t[k].count) continue;
        key[k] = order_key(x, k);
        int q = n++;
        while (q > 0 && key[order[q - 1]] > key[k]) order[q] = order[q - 1], q--;
        order[q] = k;
    }
    size_t start = out->len;
    ga_buf_put(out, x->chunk, x->head); /* header (offsets patched below) and any prefix */
    ga_buf_set_u16be(out, start + 8, x->count);
    for (int k = 0; k < GA_MAT3_TABLES; k++) ga_buf_set_u32be(out, start + x->t[k].field, 0);
    const ga_mat3_table *prev = NULL;
    size_t prev_at = 0;
    for (int j = 0; j < n; j++) {
        const ga_mat3_table *t = &x->t[order[j]];
        /* tables stored at one offset stay aliased while unedited */
        if (prev && !prev->grown && !t->grown && prev->at == t->at && t->at) {
            ga_buf_set_u32be(out, start + t->field, (uint32_t)prev_at);
            continue;
        }
        prev = t;
        prev_at = out->len - start;
        ga_buf_set_u32be(out, start + t->field, (uint32_t)prev_at);
        ga_buf_put(out, t->data.data, t->data.len);
        if (!t->grown) {
            size_t used = t->data.len;
            ga_buf_put(out, x->chunk + t->at + used, t->gap - used); /* the stored tail */
        } else {
            ga_j3d_pad(out, start, 4);
        }
    }
    if (out->len - start > UINT32_MAX) return ga_fail(err, GA_ERR_LIMIT, x->format, "MAT3", -1, "over 4 GiB");
    ga_buf_set_u32be(out, start + 4, 0);
    if (ga_j3d_chunk_end(out, start) != GA_OK) return ga_nomem(err, x->format);
    return GA_OK;
}
