/* TEX1 written back with replaced textures (j3d_tex1_writer.h).
 *
 * The chunk is rebuilt from its pieces: the stored chunk header, the
 * record headers (0x20 each, at 0x20), the name table (its stored bytes,
 * before or after the data as it was) and the data "blobs" (palettes and
 * images).  A blob of an untouched record is the stored byte range, keyed
 * by its stored offset so that records sharing data share one blob; a
 * replaced record's new palette and image sort right after the data it
 * had, so the data keeps its order and an image replaced by one of the
 * same size lands where the old one was. */
#include "j3d_tex1_writer.h"

#include "gx_texture.h"
#include "j3d_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEX1_HEADER 0x20u

typedef struct blob {
    size_t key;          /* stored offset (in m->data) it sorts by */
    uint32_t sub;        /* 0: stored bytes; 1 + ...: new bytes of a replaced record */
    const uint8_t *bytes;
    size_t len;
    size_t at;           /* offset in the new chunk */
} blob;

typedef struct record {
    const ga_tex1_image *image; /* NULL: untouched */
    uint8_t header[TEX1_HEADER];
    long palette_blob, image_blob; /* -1: none */
    uint8_t *encoded, *palette;    /* new bytes of a replaced record */
} record;

static int by_key(const void *a, const void *b)
{
    const blob *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->sub > y->sub) - (x->sub < y->sub);
}

/* The blob for stored bytes [at, at + len): shared when already listed. */
static long stored_blob(blob *bl, uint32_t *nb, size_t at, size_t len, const uint8_t *data)
{
    for (uint32_t i = 0; i < *nb; i++)
        if (bl[i].sub == 0 && bl[i].key == at) {
            if (len > bl[i].len) bl[i].len = len;
            return (long)i;
        }
    bl[*nb] = (blob){at, 0, data + at, len, 0};
    return (long)(*nb)++;
}

static uint32_t levels_of(const uint8_t *h)
{
    return h[0x18] ? h[0x18] : 1u;
}

static int is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

/* Fills r's new header and bytes for its replacement image. */
static int replace_record(const ga_model *m, record *r, ga_error *err)
{
    const ga_tex1_image *im = r->image;
    uint8_t old[TEX1_HEADER], *h = r->header;
    memcpy(old, h, TEX1_HEADER);
    int format = im->format >= 0 ? im->format : old[0];
    int pf = im->palette_format >= 0 ? im->palette_format : ga_gx_is_indexed(old[0]) && old[9] <= 2 ? old[9]
                                                                                                     : GA_GX_TLUT_RGB5A3;
    uint32_t w = im->width, ht = im->height, levels = levels_of(old);
    if (w >= 1 && ht >= 1 && w <= GA_GX_MAX_SIDE && ht <= GA_GX_MAX_SIDE) {
        uint32_t most = ga_gx_max_levels(w, ht);
        if (levels > most) levels = most;
        if (levels > 1 && (!is_pow2(w) || !is_pow2(ht)))
            return ga_fail(err, GA_ERR_ARG, m->format, "TEX1 size", -1,
                           "texture %u has %u mip levels, so its sides must be powers of two, not %ux%u", im->index,
                           levels, w, ht);
        if ((old[6] && !is_pow2(w)) || (old[7] && !is_pow2(ht)))
            return ga_fail(err, GA_ERR_ARG, m->format, "TEX1 size", -1,
                           "texture %u wraps by repeat or mirror, so its sides must be powers of two, not %ux%u",
                           im->index, w, ht);
    }
    int rc = ga_gx_encode_check(format, w, ht, levels, pf, err);
    if (rc) return rc;
    size_t bytes;
    ga_gx_mip_size(format, w, ht, levels, &bytes);
    uint32_t entries = ga_gx_palette_entries(format);
    r->encoded = malloc(bytes);
    r->palette = entries ? malloc((size_t)entries * 2) : NULL;
    if (!r->encoded || (entries && !r->palette)) return ga_nomem(err, m->format);
    if ((rc = ga_gx_encode(format, im->rgba, w, ht, levels, pf, r->encoded, r->palette, err))) return rc;
    h[0] = (uint8_t)format;
    h[2] = (uint8_t)(w >> 8), h[3] = (uint8_t)w, h[4] = (uint8_t)(ht >> 8), h[5] = (uint8_t)ht;
    h[8] = entries ? 1 : 0;
    h[9] = entries ? (uint8_t)pf : 0;
    h[0x0A] = (uint8_t)(entries >> 8), h[0x0B] = (uint8_t)entries;
    memset(h + 0x0C, 0, 4);
    if (levels != levels_of(old)) {
        h[0x16] = 0;
        h[0x17] = (uint8_t)((levels - 1) * 8);
        h[0x18] = (uint8_t)levels;
        /* NEAR/LIN_MIP_*: 2, 4 -> NEAR, 3, 5 -> LINEAR */
        if (levels == 1 && h[0x14] >= 2 && h[0x14] <= 5) h[0x14] = (uint8_t)((h[0x14] & 1) ? 1 : 0);
    }
    return GA_OK;
}

int ga_j3d_tex1_encode(const ga_model *m, const ga_tex1_image *images, uint32_t n, ga_buf *out, uint32_t *chunk,
                       ga_error *err)
{
    const ga_model_chunk *c;
    ga_reader rd;
    uint16_t count;
    int rc = ga_j3d_chunk_count(m, "TEX1", "TEX1 texture count", &rd, err, &c, &count);
    if (rc) return rc;
    const char *fmt = m->format ? m->format : "bmd";
    if (!c) return ga_fail(err, GA_ERR_ARG, fmt, "TEX1", -1, "the model has no TEX1 chunk (no textures)");
    for (uint32_t i = 0; i < n; i++) {
        if (images[i].index >= count)
            return ga_fail(err, GA_ERR_ARG, fmt, "TEX1", -1, "texture %u of a TEX1 of %u textures", images[i].index,
                           count);
        for (uint32_t j = 0; j < i; j++)
            if (images[j].index == images[i].index)
                return ga_fail(err, GA_ERR_ARG, fmt, "TEX1", -1, "texture %u replaced twice", images[i].index);
    }
    size_t headers, names;
    if ((rc = ga_j3d_table_at(&rd, c, 0x0C, "TEX1 header offset", &headers))) return rc;
    if ((rc = ga_j3d_names_table(&rd, c, 0x10, "TEX1 name table offset", &names))) return rc;
    if ((rc = ga_need(&rd, headers, (size_t)count * TEX1_HEADER, "TEX1 texture headers"))) return rc;
    if ((size_t)count * TEX1_HEADER > c->offset + c->size - headers)
        return ga_fail(err, GA_ERR_FORMAT, m->format, "TEX1 texture headers", (long long)headers,
                       "%u texture headers (0x20 bytes each) run past the TEX1 chunk's end", count);
    if (c->size < TEX1_HEADER)
        return ga_fail(err, GA_ERR_FORMAT, fmt, "TEX1", (long long)c->offset, "a TEX1 chunk of %zu bytes", c->size);
    record *rec = calloc(count, sizeof *rec);
    blob *bl = calloc((size_t)count * 4, sizeof *bl);
    uint32_t nb = 0;
    if (!rec || !bl) {
        free(rec);
        free(bl);
        return ga_nomem(err, fmt);
    }
    const size_t end = c->offset + c->size;
    size_t first_data = end;
    for (uint32_t i = 0; i < count && !rc; i++) {
        size_t h = headers + (size_t)i * TEX1_HEADER;
        record *r = &rec[i];
        memcpy(r->header, m->data + h, TEX1_HEADER);
        for (uint32_t k = 0; k < n; k++)
            if (images[k].index == i) r->image = &images[k];
        const uint8_t *p = r->header;
        size_t bytes;
        if (ga_gx_mip_size(p[0], ga_get_u16be(p + 2), ga_get_u16be(p + 4), levels_of(p), &bytes) < 0) {
            rc = ga_fail(err, GA_ERR_FORMAT, fmt, "TEX1 format", (long long)h, "texture format %u is not a GX format",
                         p[0]);
            break;
        }
        uint32_t rel = ga_get_u32be(p + 0x1C), prel = ga_get_u32be(p + 0x0C);
        size_t first;
        ga_gx_image_size(p[0], ga_get_u16be(p + 2), ga_get_u16be(p + 4), &first);
        if (rel > end - h || first > end - h - rel) {
            rc = ga_fail(err, GA_ERR_FORMAT, fmt, "TEX1 image data offset", (long long)h + 0x1C,
                         "the image of texture %u runs past the TEX1 chunk's end", i);
            break;
        }
        size_t at = h + rel;
        /* lower levels past the chunk's end are cut (the reader needs only level 0) */
        if (bytes > end - at) bytes = end - at;
        if (at < first_data) first_data = at;
        uint16_t pcount = ga_get_u16be(p + 0x0A);
        size_t pat = h + prel, plen = (size_t)pcount * 2;
        int has_pal = prel && pcount && prel <= end - h && plen <= end - pat;
        if (has_pal && pat < first_data) first_data = pat;
        if (!r->image) {
            r->image_blob = stored_blob(bl, &nb, at, bytes, m->data);
            r->palette_blob = has_pal ? stored_blob(bl, &nb, pat, plen, m->data) : -1;
            continue;
        }
        if ((rc = replace_record(m, r, err))) break;
        size_t nbytes;
        ga_gx_mip_size(r->header[0], ga_get_u16be(r->header + 2), ga_get_u16be(r->header + 4), levels_of(r->header),
                       &nbytes);
        r->palette_blob = -1;
        if (r->palette) {
            r->palette_blob = nb;
            bl[nb++] = (blob){has_pal ? pat : at, 1 + 2 * i, r->palette, (size_t)ga_gx_palette_entries(r->header[0]) * 2,
                              0};
        }
        r->image_blob = nb;
        bl[nb++] = (blob){at, 2 + 2 * i, r->encoded, nbytes, 0};
    }
    if (rc) goto done;
    /* the name table: its stored bytes up to the next data (or the end) */
    size_t names_len = 0;
    int names_first = 0;
    if (names) {
        size_t stop = end;
        for (uint32_t i = 0; i < nb; i++)
            if (bl[i].sub == 0 && bl[i].key > names && bl[i].key < stop) stop = bl[i].key;
        for (uint32_t i = 0; i < count; i++) {
            size_t h = headers + (size_t)i * TEX1_HEADER, at = h + ga_get_u32be(m->data + h + 0x1C);
            if (at > names && at < stop) stop = at;
        }
        names_len = stop - names;
        names_first = names < first_data;
    }
    /* blobs sorted, then laid out; rec's blob numbers follow the sort */
    long *where = malloc((size_t)(nb ? nb : 1) * sizeof *where);
    if (!where) {
        rc = ga_nomem(err, fmt);
        goto done;
    }
    for (uint32_t i = 0; i < nb; i++) bl[i].at = i; /* (remember the pre-sort number) */
    qsort(bl, nb, sizeof *bl, by_key);
    for (uint32_t i = 0; i < nb; i++) where[bl[i].at] = (long)i;
    size_t start = ga_j3d_chunk_begin(out, "TEX1");
    ga_buf_put(out, m->data + c->offset + 8, TEX1_HEADER - 8);
    ga_buf_set_u32be(out, start + 0x0C, TEX1_HEADER);
    for (uint32_t i = 0; i < count; i++) ga_buf_put(out, rec[i].header, TEX1_HEADER);
    size_t names_at = 0;
    if (names && names_first) {
        names_at = out->len - start;
        ga_buf_put(out, m->data + names, names_len);
    }
    for (uint32_t i = 0; i < nb; i++) {
        ga_j3d_pad_zero(out, start, 32);
        bl[i].at = out->len - start;
        ga_buf_put(out, bl[i].bytes, bl[i].len);
    }
    if (names && !names_first) {
        ga_j3d_pad_zero(out, start, 32);
        names_at = out->len - start;
        ga_buf_put(out, m->data + names, names_len);
    }
    if (!out->failed) {
        ga_buf_set_u32be(out, start + 0x10, (uint32_t)names_at);
        for (uint32_t i = 0; i < count; i++) {
            size_t h = start + TEX1_HEADER + (size_t)i * TEX1_HEADER, hrel = h - start;
            if (rec[i].image_blob >= 0)
                ga_buf_set_u32be(out, h + 0x1C, (uint32_t)(bl[where[rec[i].image_blob]].at - hrel));
            if (rec[i].palette_blob >= 0)
                ga_buf_set_u32be(out, h + 0x0C, (uint32_t)(bl[where[rec[i].palette_blob]].at - hrel));
        }
    }
    free(where);
    if (ga_j3d_chunk_end(out, start) != GA_OK) rc = ga_nomem(err, fmt);
    if (!rc) *chunk = (uint32_t)ga_j3d_find_chunk(m, "TEX1");
done:
    for (uint32_t i = 0; i < count; i++) {
        free(rec[i].encoded);
        free(rec[i].palette);
    }
    free(rec);
    free(bl);
    return rc;
}
