/* Banjo-Kazooie model bins (big-endian, magic u32 0x0000000B, header 0x38
 * bytes), read for their bone table (BKAnimationList) at the u32 at 0x18:
 * {f32 k (translation scale); s16 count; 2 pad; count x {f32 pivot[3];
 * s16 bone_id; s16 parent (-1 root)}}.  No table (offset 0): a model with
 * no bones.  The game computes entries in table order, so a parent must be
 * an earlier entry (refused otherwise).  Notes: ../shared/formats/bk.md 2.5
 * and 3, j3d_models.md 1.3; docs/models.md. */
#include "model.h"

#include <string.h>

#define HEADER 0x38
#define MAGIC 0x0000000Bu
#define ENTRY 16

/* An offset field of the header: 0 (absent) or inside the data after the
 * header. */
static int offset_ok(uint32_t o, size_t size) { return o == 0 || (o >= HEADER && o < size); }

/* The magic is only a small number, which a Banjo-Kazooie animation's
 * header (s16 start 0, s16 end 11) also begins with: the probe also wants
 * every section offset of the header (0x04 geometry layout, 0x0C, 0x10,
 * 0x1C .. 0x2C) absent (0) or inside the data after the header, and a bone
 * table (0x18) that fits.  An animation's s16 count and zero pad word at
 * 0x04 read as an offset of count x 64 KiB: past the end of any animation
 * of its length, unless it has no elements at all (count 0), which is no
 * animation (its own probe only guesses). */
static int bk_model_probe(const uint8_t *d, size_t size)
{
    if (size < HEADER || ga_get_u32be(d) != MAGIC) return 0;
    static const uint8_t fields[] = {0x04, 0x0C, 0x10, 0x1C, 0x20, 0x24, 0x28, 0x2C};
    for (size_t i = 0; i < sizeof fields; i++)
        if (!offset_ok(ga_get_u32be(d + fields[i]), size)) return 0;
    uint32_t table = ga_get_u32be(d + 0x18);
    if (table == 0) return 60;
    /* a believable header whose table is broken: the decoder says where */
    if (table < HEADER || table > size - 8) return 10;
    int16_t count = (int16_t)ga_get_u16be(d + table + 4);
    if (count < 0 || (uint64_t)table + 8 + (uint64_t)count * ENTRY > size) return 10;
    return 60;
}

static int bk_model_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_model *out,
                           ga_error *err)
{
    (void)opts;
    const char *fmt = "bk_model";
    int rc = ga_model_start(out, fmt, GA_RIG_BK, data, size, err);
    if (rc) return rc;
    ga_reader r;
    ga_reader_init(&r, out->data, out->size, fmt, err);
    uint32_t magic, table;
    if ((rc = ga_need(&r, 0, HEADER, "header")) || (rc = ga_rd_u32be(&r, 0, "magic", &magic))) goto fail;
    if (magic != MAGIC) {
        rc = ga_fail(err, GA_ERR_FORMAT, fmt, "magic", 0, "0x%08x is not 0x0000000B", magic);
        goto fail;
    }
    table = ga_get_u32be(out->data + 0x18);
    if (table == 0) {
        if ((rc = ga_model_alloc_bones(out, 0, err))) goto fail;
        return GA_OK;
    }
    if (table < HEADER) {
        rc = ga_fail(err, GA_ERR_FORMAT, fmt, "bone table offset", 0x18, "0x%x points into the header", table);
        goto fail;
    }
    int16_t count;
    float k;
    if ((rc = ga_rd_f32be(&r, table, "bone table scale", &k)) ||
        (rc = ga_rd_s16be(&r, table + 4, "bone table count", &count)))
        goto fail;
    if (count < 0) {
        rc = ga_fail(err, GA_ERR_FORMAT, fmt, "bone table count", (long long)table + 4, "negative count %d", count);
        goto fail;
    }
    if ((rc = ga_need(&r, table + 8, (size_t)count * ENTRY, "bone table entries"))) goto fail;
    if ((rc = ga_model_alloc_bones(out, (uint32_t)count, err))) goto fail;
    out->bk_scale = k;
    for (int32_t i = 0; i < count; i++) {
        size_t at = table + 8 + (size_t)i * ENTRY;
        const uint8_t *p = out->data + at;
        ga_model_bone *b = &out->bones[i];
        for (int c = 0; c < 3; c++) b->translation[c] = ga_get_f32be(p + 4 * c);
        b->bone_id = (int16_t)ga_get_u16be(p + 12);
        int16_t parent = (int16_t)ga_get_u16be(p + 14);
        if (parent < -1 || parent >= i) {
            rc = ga_fail(err, GA_ERR_FORMAT, fmt, "bone parent", (long long)at + 14,
                         "entry %d: parent %d is not -1 or an earlier entry (the game computes in table order)",
                         i, parent);
            goto fail;
        }
        b->parent = parent;
    }
    return GA_OK;
fail:
    ga_model_free(out);
    return rc;
}

const ga_model_format ga_model_format_bk_model = {
    "bk_model",
    "Banjo-Kazooie model bin",
    ".bin",
    bk_model_probe,
    bk_model_decode,
};
