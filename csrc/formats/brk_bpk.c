/* BRK (J3D1brk1 / TRK1: key-framed TEV register C0..C2 and konst K0..K3
 * colours of materials) and BPK (J3D1bpk1 / PAK1: key-framed material
 * colours): the same colour entries, in two sets or one, s16 colour units,
 * one codec for both.  docs/formats/j3d_kinds.md. */
#include "j3d_kinds.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* BRK (TRK1) and BPK (PAK1): the same colour entries in one or two sets. */
typedef struct color_layout {
    const char *fmt, *magic, *chunk;
    int kind;              /* J3D_KIND_BRK / J3D_KIND_BPK */
    size_t hsize, duration_at;
    int nsets;             /* BRK: register and konst entries; BPK: one set */
    size_t entry_size;     /* 28 (4 descriptors, colour id, 3 bytes) or 24 */
    size_t count_at[2], nvals_at, table_at[2], remap_at[2], names_at[2], values_at;
} color_layout;

static const char *const color_set_names[2] = {"register", "konst"};

static int color_decode(const color_layout *L, const uint8_t *data, size_t size, const ga_decode_opts *opts,
                        void **out, ga_clip *clip, ga_error *err)
{
    j3dk_raw *raw = NULL;
    int rc = j3dk_open(data, size, L->fmt, L->magic, L->chunk, L->hsize, L->duration_at, &raw, err);
    if (rc) return rc;
    ga_reader r;
    ga_reader_init(&r, data, size, L->fmt, err);
    const uint8_t *h = data + 0x20;
    uint32_t nset[2] = {0, 0}, nvals[8], voff[8];
    uint32_t total = 0;
    for (int s = 0; s < L->nsets; s++) {
        nset[s] = ga_get_u16be(h + L->count_at[s]);
        total += nset[s];
    }
    char ***names = NULL;
    ga_clip_init(clip, L->fmt);
    for (int i = 0; i < 4 * L->nsets; i++) {
        nvals[i] = ga_get_u16be(h + L->nvals_at + 2 * (size_t)i);
        voff[i] = ga_get_u32be(h + L->values_at + 4 * (size_t)i);
        char field[48];
        snprintf(field, sizeof field, "%s%s %c value table", L->nsets > 1 ? color_set_names[i / 4] : "",
                 L->nsets > 1 ? "" : "colour", "RGBA"[i % 4]);
        if (nvals[i]) {
            rc = ga_need(&r, 0x20 + (size_t)voff[i], (size_t)nvals[i] * 2, field);
            if (rc) goto fail;
        }
    }
    raw->nentries = total;
    raw->counts[0] = nset[0];
    raw->counts[1] = nset[1];
    raw->types = malloc(((size_t)total * 4 + 1) * sizeof *raw->types);
    raw->entry_pad = malloc((size_t)total * 3 + 1);
    raw->remap = malloc(((size_t)total + 1) * sizeof *raw->remap);
    names = calloc(2, sizeof *names);
    if (!raw->types || !raw->entry_pad || !raw->remap || !names) {
        rc = ga_nomem(err, L->fmt);
        goto fail;
    }
    /* key count first: checked against the limits before anything is allocated for keys */
    uint64_t nkeys = 0;
    for (int s = 0; s < L->nsets; s++) {
        size_t tab = 0x20 + (size_t)ga_get_u32be(h + L->table_at[s]);
        char field[48];
        snprintf(field, sizeof field, "%s%sentry table", L->nsets > 1 ? color_set_names[s] : "", L->nsets > 1 ? " " : "");
        rc = ga_need(&r, tab, (size_t)nset[s] * L->entry_size, field);
        if (rc) goto fail;
        for (uint32_t e = 0; e < nset[s]; e++)
            for (int a = 0; a < 4; a++) nkeys += ga_get_u16be(data + tab + e * L->entry_size + 6 * (size_t)a);
        if (nset[s]) {
            size_t rm = 0x20 + (size_t)ga_get_u32be(h + L->remap_at[s]);
            rc = ga_need(&r, rm, (size_t)nset[s] * 2, L->nsets > 1 ? (s ? "konst remap table" : "register remap table")
                                                                 : "remap table");
            if (rc) goto fail;
            for (uint32_t e = 0; e < nset[s]; e++)
                raw->remap[(s ? nset[0] : 0) + e] = ga_get_u16be(data + rm + 2 * (size_t)e);
            rc = j3d_read_names(&r, 0x20 + (size_t)ga_get_u32be(h + L->names_at[s]), nset[s], &names[s], NULL, NULL,
                                err);
            if (rc) goto fail;
        }
    }
    rc = ga_check_decoded(opts, size, nkeys, GA_KEY_BYTES, "keys", L->fmt, "key count", 0x20, err);
    if (rc) goto fail;
    j3dk_clip_init(clip, raw);
    rc = ga_clip_alloc_tracks(clip, total * 4, err);
    if (!rc) rc = ga_clip_reserve_keys(clip, nkeys, total * 4, err);
    if (!rc) rc = ga_clip_alloc_entries(clip, total, err);
    if (rc) goto fail;
    raw->ntracks = total * 4;
    for (int s = 0; s < L->nsets; s++) {
        size_t tab = 0x20 + (size_t)ga_get_u32be(h + L->table_at[s]);
        for (uint32_t e = 0; e < nset[s]; e++) {
            uint32_t ei = (s ? nset[0] : 0) + e;
            size_t at = tab + e * L->entry_size;
            for (int a = 0; a < 4; a++) {
                ga_track *t = &clip->tracks[ei * 4 + (uint32_t)a];
                t->target = (int32_t)ei;
                t->channel = GA_CH_COLOR;
                t->axis = (uint8_t)a;
                char field[64];
                snprintf(field, sizeof field, "%s%sentry %u %c key table", L->nsets > 1 ? color_set_names[s] : "",
                         L->nsets > 1 ? " " : "", e, "RGBA"[a]);
                int vi = s * 4 + a;
                rc = j3dk_key_track(clip, t, &r, at + 6 * (size_t)a, 0x20 + (size_t)voff[vi], nvals[vi], field,
                                    &raw->types[ei * 4 + (uint32_t)a], err);
                if (rc) goto fail;
            }
            ga_entry *en = &clip->entries[ei];
            en->layout = L->nsets > 1 ? GA_ENTRY_TEV : GA_ENTRY_MATERIAL;
            en->kind = s;
            en->name = names[s][e];
            names[s][e] = NULL;
            if (L->entry_size > 24) {
                en->color_id = data[at + 24];
                memcpy(raw->entry_pad + 3 * (size_t)ei, data + at + 25, 3);
            }
        }
    }
    for (int s = 0; s < 2; s++) {
        if (names && names[s])
            for (uint32_t e = 0; e < nset[s]; e++) free(names[s][e]);
        if (names) free(names[s]);
    }
    free(names);
    *out = raw;
    return GA_OK;
fail:
    if (names) {
        for (int s = 0; s < 2; s++) {
            if (names[s])
                for (uint32_t e = 0; e < nset[s]; e++) free(names[s][e]);
            free(names[s]);
        }
        free(names);
    }
    ga_clip_free(clip);
    j3dk_free_raw(raw);
    return rc;
}

static int color_encode(const color_layout *L, const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    const ga_clip *clip = ctx->clip;
    const j3dk_raw *raw = ctx->raw;
    const char *fmt = L->fmt;
    uint32_t n = clip->nentries;
    for (uint32_t i = 0; i < clip->ntracks; i++) {
        const ga_track *t = &clip->tracks[i];
        if (t->target_name || t->channel != GA_CH_COLOR || t->axis > 3 || t->target < 0 || (uint32_t)t->target >= n)
            return ga_fail(err, GA_ERR_ENCODE, fmt, "track", -1,
                           "track %u: %s tracks are channel 'color', axis 0..3, on an entry index below %u", i, fmt,
                           n);
    }
    /* register entries first, then konst entries (BRK) */
    uint32_t nset[2] = {n, 0};
    if (L->nsets > 1) {
        nset[0] = 0;
        while (nset[0] < n && clip->entries[nset[0]].kind == 0) nset[0]++;
        for (uint32_t i = nset[0]; i < n; i++)
            if (clip->entries[i].kind == 0)
                return ga_fail(err, GA_ERR_ENCODE, fmt, "entries", -1,
                               "entry %u is a register entry after konst entries; register entries go first", i);
        nset[1] = n - nset[0];
    }
    for (int s = 0; s < L->nsets; s++)
        if (nset[s] > 0xFFFF) return ga_fail(err, GA_ERR_ENCODE, fmt, "entries", -1, "%u entries exceed 65535", nset[s]);
    for (uint32_t i = 0; i < n; i++)
        if (L->entry_size > 24 && (clip->entries[i].color_id < 0 || clip->entries[i].color_id > 255))
            return ga_fail(err, GA_ERR_ENCODE, fmt, "color id", -1, "entry %u: color id %d is not 0..255", i,
                           clip->entries[i].color_id);
    int32_t *slot = malloc(((size_t)n * 4 + 1) * sizeof *slot);
    if (!slot) return ga_nomem(err, fmt);
    for (size_t i = 0; i < (size_t)n * 4; i++) slot[i] = -1;
    for (uint32_t i = 0; i < clip->ntracks; i++) {
        size_t sl = (size_t)clip->tracks[i].target * 4 + clip->tracks[i].axis;
        if (slot[sl] >= 0) {
            int32_t first = slot[sl];
            free(slot);
            return ga_fail(err, GA_ERR_ENCODE, fmt, "track", -1, "two tracks (%d and %u) animate entry %d colour %c",
                           first, i, clip->tracks[i].target, "RGBA"[clip->tracks[i].axis]);
        }
        slot[sl] = (int32_t)i;
    }
    int done = 0;
    int rc = j3dk_patch(ctx, ctx->orig && j3dk_entries_equal(clip, ctx->orig), out, err, &done);
    if (rc || done) {
        free(slot);
        return rc;
    }
    ga_pool pools[8];
    j3d_desc *desc = calloc((size_t)n * 4 + 1, sizeof *desc);
    int npools = 4 * L->nsets;
    for (int i = 0; i < npools; i++) ga_pool_init(&pools[i], SIZE_MAX);
    j3d_seq seq = {0};
    uint32_t rounded_before = ctx->report->nrounded;
    if (!desc) rc = ga_nomem(err, fmt);
    for (uint32_t e = 0; e < n && !rc; e++) {
        int s = e >= nset[0];
        for (int a = 0; a < 4 && !rc; a++) {
            int32_t ti = slot[e * 4 + (uint32_t)a];
            j3d_desc d = {0, 0, 0};
            if (ti >= 0) {
                int32_t ot = ctx->orig_track ? ctx->orig_track[ti] : -1;
                int orig_type = (raw && ot >= 0 && (uint32_t)ot < raw->ntracks) ? raw->types[ot] : -1;
                seq.n = 0;
                rc = j3d_encode_keys(&clip->tracks[ti], L->kind, 0, orig_type, ctx->tolerance, &seq, &d.count, &d.type,
                                     ctx->report, err);
                if (rc) break;
                if (ot >= 0) ctx->report->reused_tracks++;
                else ctx->report->encoded_tracks++;
                if (d.count) {
                    long long at = ga_pool_place(&pools[s * 4 + a], seq.v, seq.n);
                    if (at < 0) {
                        rc = ga_nomem(err, fmt);
                        break;
                    }
                    if (at > 0xFFFF || pools[s * 4 + a].n > 0xFFFF) {
                        rc = ga_fail(err, GA_ERR_ENCODE, fmt, "value table", -1,
                                     "the colour %c value table outgrew the 65535 elements its count holds", "RGBA"[a]);
                        break;
                    }
                    d.index = (uint16_t)at;
                }
            }
            desc[e * 4 + (uint32_t)a] = d;
        }
    }
    free(seq.v);
    free(slot);
    /* values, slopes and times the s16 tables could not hold exactly: a
     * note, hence a PrecisionWarning */
    if (!rc) j3dk_note_rounded(ctx, rounded_before, "colour number(s) rounded to the 16-bit tables (whole units, "
                               "key times whole frames)");
    size_t c0 = 0;
    if (!rc) c0 = j3dk_begin(out, ctx, L->magic, L->chunk, L->hsize, L->duration_at, err, &rc);
    if (!rc) {
        ga_buf *b = out;
        for (int s = 0; s < L->nsets; s++) ga_buf_set_u16be(b, c0 + L->count_at[s], (uint16_t)nset[s]);
        for (int i = 0; i < npools; i++) ga_buf_set_u16be(b, c0 + L->nvals_at + 2 * (size_t)i, (uint16_t)pools[i].n);
        uint32_t first[2] = {0, nset[0]};
        for (int s = 0; s < L->nsets; s++) {
            ga_buf_set_u32be(b, c0 + L->table_at[s], (uint32_t)(b->len - c0));
            for (uint32_t e = first[s]; e < first[s] + nset[s]; e++) {
                for (int a = 0; a < 4; a++) {
                    ga_buf_u16be(b, desc[e * 4 + (uint32_t)a].count);
                    ga_buf_u16be(b, desc[e * 4 + (uint32_t)a].index);
                    ga_buf_u16be(b, desc[e * 4 + (uint32_t)a].type);
                }
                if (L->entry_size > 24) {
                    ga_buf_u8(b, (uint8_t)clip->entries[e].color_id);
                    int keep = raw && raw->nentries == n;
                    if (keep) ga_buf_put(b, raw->entry_pad + 3 * (size_t)e, 3);
                    else ga_buf_fill(b, 0xFF, 3);
                }
            }
            j3d_put_padding(b, 4);
        }
        for (int s = 0; s < L->nsets; s++) {
            ga_buf_set_u32be(b, c0 + L->remap_at[s], (uint32_t)(b->len - c0));
            int keep = raw && raw->counts[0] == nset[0] && raw->counts[1] == nset[1];
            for (uint32_t e = 0; e < nset[s]; e++) ga_buf_u16be(b, keep ? raw->remap[first[s] + e] : (uint16_t)e);
            j3d_put_padding(b, 4);
        }
        for (int s = 0; s < L->nsets; s++) {
            ga_buf_set_u32be(b, c0 + L->names_at[s], (uint32_t)(b->len - c0));
            const char **nm = malloc(((size_t)nset[s] + 1) * sizeof *nm);
            if (!nm) {
                b->failed = 1;
                break;
            }
            for (uint32_t e = 0; e < nset[s]; e++) nm[e] = clip->entries[first[s] + e].name;
            ga_jut_put_names(b, nm, nset[s]);
            free(nm);
            j3d_put_padding(b, 4);
        }
        for (int i = 0; i < npools; i++) {
            ga_buf_set_u32be(b, c0 + L->values_at + 4 * (size_t)i, (uint32_t)(b->len - c0));
            for (size_t k = 0; k < pools[i].n; k++) ga_buf_u16be(b, (uint16_t)pools[i].v[k]);
            j3d_put_padding(b, 4);
        }
        j3dk_finish(b, ctx, c0);
        if (b->failed) rc = ga_nomem(err, fmt);
    }
    for (int i = 0; i < npools; i++) ga_pool_free(&pools[i]);
    free(desc);
    return rc;
}

/* ------------------------------------------------------------------ */
/* BRK                                                                 */

static const color_layout brk_layout = {
    "brk", "brk1", "TRK1", J3D_KIND_BRK, 0x58, 0x0A, 2, 28,
    {0x0C, 0x0E}, 0x10, {0x20, 0x24}, {0x28, 0x2C}, {0x30, 0x34}, 0x38,
};

static int brk_probe(const uint8_t *data, size_t size) { return j3d_probe(data, size, "brk1"); }

static int brk_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **raw, ga_clip *clip,
                      ga_error *err)
{
    return color_decode(&brk_layout, data, size, opts, raw, clip, err);
}

static int brk_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    return color_encode(&brk_layout, ctx, out, err);
}

const ga_format ga_format_brk = {
    "brk",
    "J3D TEV register / konst colour animation (GameCube/Wii, TRK1)",
    brk_probe,
    brk_decode,
    brk_encode,
    j3dk_free_raw,
    j3dk_sample_keys,
    j3dk_info,
    NULL, /* every track applies */
    j3dk_eval_keys,
    {".brk", "material_entry", 1, NULL, NULL, "yaz0;yay0", "cp932", "color", NULL},
};

/* ------------------------------------------------------------------ */
/* BPK                                                                 */

static const color_layout bpk_layout = {
    "bpk", "bpk1", "PAK1", J3D_KIND_BPK, 0x34, 0x0C, 1, 24,
    {0x0E, 0}, 0x10, {0x18, 0}, {0x1C, 0}, {0x20, 0}, 0x24,
};

static int bpk_probe(const uint8_t *data, size_t size) { return j3d_probe(data, size, "bpk1"); }

static int bpk_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **raw, ga_clip *clip,
                      ga_error *err)
{
    return color_decode(&bpk_layout, data, size, opts, raw, clip, err);
}

static int bpk_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    return color_encode(&bpk_layout, ctx, out, err);
}

const ga_format ga_format_bpk = {
    "bpk",
    "J3D material colour animation (GameCube/Wii, PAK1)",
    bpk_probe,
    bpk_decode,
    bpk_encode,
    j3dk_free_raw,
    j3dk_sample_keys,
    j3dk_info,
    NULL, /* every track applies */
    j3dk_eval_keys,
    {".bpk", "material_entry", 1, NULL, NULL, "yaz0;yay0", "cp932", "color", NULL},
};
