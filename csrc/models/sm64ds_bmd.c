/* Super Mario 64 DS models (BMD, little-endian, no magic), read for their
 * bone table.  Header (13 u32): 0x00 scale shift (vertices are scaled by
 * 2^shift), 0x04 bone count, 0x08 bone table offset, then display lists,
 * textures, palettes, materials, the transform map and the texture data.
 * Bone records, 0x40 bytes: u32 ID, u32 name offset, s16 parent offset (in
 * records, relative; 0 = root), u16 has-children, s32 next-sibling offset,
 * 3 x s32 scale (20.12), 3 x s16 rotation (4096 per turn), u16 count,
 * 3 x s32 translation (20.12), ...  Notes: ../shared/formats/j3d_models.md
 * 1.2 (Arisotura/SM64DSe Documentation/bmd_format.txt); docs/models.md. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#define HEADER 0x34
#define RECORD 0x40
#define MAX_BONES 4096u
#define MAX_OFFSET 0x1000000u

/* A header that could be a model's: small shift, a bone count, aligned
 * offsets that fit the data (the table itself may not: the decoder says
 * where it is broken). */
static int header_plausible(const uint8_t *d, size_t size)
{
    if (size < HEADER) return 0;
    uint32_t shift = ga_get_u32le(d), count = ga_get_u32le(d + 4), table = ga_get_u32le(d + 8);
    if (shift >= 32 || count == 0 || count > MAX_BONES) return 0;
    if (table < HEADER || (table & 3) || table >= MAX_OFFSET) return 0;
    for (size_t f = 0x10; f <= 0x30; f += 8) {
        uint32_t o = ga_get_u32le(d + f);
        if (o >= MAX_OFFSET || (o & 3)) return 0;
    }
    return 1;
}

/* Parent offset of record i: 0 (root) or a negative step to an earlier
 * record; bone 0 is a root. */
static int parent_ok(int32_t i, int16_t rel) { return rel == 0 || (rel < 0 && i + rel >= 0); }

static int sm64ds_probe(const uint8_t *d, size_t size)
{
    if (!header_plausible(d, size)) return 0;
    uint32_t count = ga_get_u32le(d + 4), table = ga_get_u32le(d + 8);
    /* (6: a damaged model still beats the weak guesses of the animation
     * probes, 5, so that its decoder names the broken field) */
    if ((uint64_t)table + (uint64_t)count * RECORD > size) return 6;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *p = d + table + (size_t)i * RECORD;
        uint32_t id = ga_get_u32le(p), name = ga_get_u32le(p + 4);
        int16_t parent = (int16_t)ga_get_u16le(p + 8);
        uint16_t has_children = ga_get_u16le(p + 0x0A);
        int32_t sibling = (int32_t)ga_get_u32le(p + 0x0C);
        if (id > 0xFFFF || has_children > 1 || !parent_ok((int32_t)i, parent) || (i == 0 && parent != 0)) return 6;
        if (sibling != 0 && ((int64_t)i + sibling < 0 || (int64_t)i + sibling >= count)) return 6;
        if (name >= size) return 6;
        size_t room = size - name < GA_MAX_STRING + 1 ? size - name : GA_MAX_STRING + 1;
        if (!memchr(d + name, 0, room)) return 6;
    }
    return 40;
}

static int sm64ds_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_model *out, ga_error *err)
{
    (void)opts;
    const char *fmt = "sm64ds_bmd";
    int rc = ga_model_start(out, fmt, GA_RIG_SM64DS, data, size, err);
    if (rc) return rc;
    ga_reader r;
    ga_reader_init(&r, out->data, out->size, fmt, err);
    uint32_t shift, count, table;
    if ((rc = ga_rd_u32le(&r, 0, "scale shift", &shift)) || (rc = ga_rd_u32le(&r, 4, "bone count", &count)) ||
        (rc = ga_rd_u32le(&r, 8, "bone table offset", &table)))
        goto fail;
    if (shift >= 32) {
        rc = ga_fail(err, GA_ERR_FORMAT, fmt, "scale shift", 0, "shift %u is not below 32", shift);
        goto fail;
    }
    if (count == 0 || count > MAX_BONES) {
        rc = ga_fail(err, GA_ERR_FORMAT, fmt, "bone count", 4, "%u bones (1 to %u expected)", count, MAX_BONES);
        goto fail;
    }
    if ((rc = ga_need(&r, table, (size_t)count * RECORD, "bone table"))) goto fail;
    if ((rc = ga_model_alloc_bones(out, count, err))) goto fail;
    out->sm64ds_scale_shift = (int32_t)shift;
    for (uint32_t i = 0; i < count; i++) {
        size_t at = table + (size_t)i * RECORD;
        const uint8_t *p = out->data + at;
        ga_model_bone *b = &out->bones[i];
        int16_t rel = (int16_t)ga_get_u16le(p + 8);
        if (!parent_ok((int32_t)i, rel)) {
            rc = ga_fail(err, GA_ERR_FORMAT, fmt, "bone parent offset", (long long)at + 8,
                         "bone %u: parent offset %d does not lead to an earlier bone", i, rel);
            goto fail;
        }
        b->parent = rel ? (int32_t)i + rel : -1;
        b->bone_id = (int32_t)ga_get_u32le(p);
        if ((rc = ga_model_read_name(&r, ga_get_u32le(p + 4), "bone name", &b->name, &b->name_len))) goto fail;
        for (int k = 0; k < 3; k++) {
            b->scale_fixed[k] = (int32_t)ga_get_u32le(p + 0x10 + 4 * k);
            b->rot_raw[k] = (int16_t)ga_get_u16le(p + 0x1C + 2 * k);
            b->translation_fixed[k] = (int32_t)ga_get_u32le(p + 0x24 + 4 * k);
            b->scale[k] = (float)(b->scale_fixed[k] / 4096.0);
            b->rotation[k] = (float)(b->rot_raw[k] * (3.14159265358979323846 / 2048.0));
            b->translation[k] = (float)(b->translation_fixed[k] / 4096.0);
        }
    }
    return GA_OK;
fail:
    ga_model_free(out);
    return rc;
}

const ga_model_format ga_model_format_sm64ds_bmd = {
    "sm64ds_bmd",
    "Super Mario 64 DS model (BMD)",
    ".bmd",
    sm64ds_probe,
    sm64ds_decode,
};
