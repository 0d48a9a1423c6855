/* BTP: J3D texture pattern animation (J3D1btp1 / TPT1): per material
 * entry, one texture number per frame.  Shares the J3D container with the
 * other kinds (j3d_kinds.c); docs/formats/j3d_kinds.md. */
#include "j3d_kinds.h"
#include "pool.h"

#include <stdlib.h>
#include <string.h>

#define TPT1_HEADER 0x20u
#define TPT1_ENTRY 8u

static int btp_probe(const uint8_t *data, size_t size) { return j3d_probe(data, size, "btp1"); }

static int btp_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **out, ga_clip *clip,
                      ga_error *err)
{
    j3dk_raw *raw = NULL;
    int rc = j3dk_open(data, size, "btp", "btp1", "TPT1", TPT1_HEADER, 0x0A, &raw, err);
    if (rc) return rc;
    ga_reader r;
    ga_reader_init(&r, data, size, "btp", err);
    const uint8_t *h = data + 0x20;
    uint32_t n = ga_get_u16be(h + 0x0C);
    size_t tab = 0x20 + (size_t)ga_get_u32be(h + 0x10), idx = 0x20 + (size_t)ga_get_u32be(h + 0x14);
    size_t rm = 0x20 + (size_t)ga_get_u32be(h + 0x18), nt = 0x20 + (size_t)ga_get_u32be(h + 0x1C);
    char **names = NULL;
    ga_clip_init(clip, "btp");
    raw->nentries = n;
    raw->counts[0] = ga_get_u16be(h + 0x0E);
    raw->types = NULL;
    raw->entry_pad = malloc((size_t)n * 3 + 1);
    raw->remap = malloc(((size_t)n + 1) * 2);
    if (!raw->entry_pad || !raw->remap) {
        rc = ga_nomem(err, "btp");
        goto fail;
    }
    rc = ga_need(&r, tab, (size_t)n * TPT1_ENTRY, "entry table");
    if (rc) goto fail;
    uint64_t nkeys = 0;
    for (uint32_t e = 0; e < n; e++) {
        size_t at = tab + (size_t)e * TPT1_ENTRY;
        uint32_t count = ga_get_u16be(data + at), first = ga_get_u16be(data + at + 2);
        nkeys += count;
        /* The index table may hold more numbers than the header counts
         * (the game reads what the entries point at): bounded by the data. */
        char field[48];
        snprintf(field, sizeof field, "entry %u texture indices", e);
        rc = ga_need(&r, idx + (size_t)first * 2, (size_t)count * 2, field);
        if (rc) goto fail;
    }
    if (n) {
        rc = ga_need(&r, rm, (size_t)n * 2, "remap table");
        if (rc) goto fail;
        for (uint32_t e = 0; e < n; e++) raw->remap[e] = ga_get_u16be(data + rm + 2 * (size_t)e);
        rc = j3d_read_names(&r, nt, n, &names, NULL, NULL, err);
        if (rc) goto fail;
    }
    rc = ga_check_decoded(opts, size, nkeys, GA_KEY_BYTES, "keys", "btp", "key count", (long long)tab, err);
    if (rc) goto fail;
    j3dk_clip_init(clip, raw);
    rc = ga_clip_alloc_tracks(clip, n, err);
    if (!rc) rc = ga_clip_reserve_keys(clip, nkeys, n, err);
    if (!rc) rc = ga_clip_alloc_entries(clip, n, err);
    if (rc) goto fail;
    raw->ntracks = n;
    for (uint32_t e = 0; e < n; e++) {
        size_t at = tab + (size_t)e * TPT1_ENTRY;
        uint32_t count = ga_get_u16be(data + at), first = ga_get_u16be(data + at + 2);
        ga_track *t = &clip->tracks[e];
        t->target = (int32_t)e;
        t->channel = GA_CH_TEXTURE_INDEX;
        rc = j3dk_frame_track(clip, t, data + idx + (size_t)first * 2, count, 2, 0, 1.0);
        if (rc) {
            rc = ga_nomem(err, "btp");
            goto fail;
        }
        ga_entry *en = &clip->entries[e];
        en->layout = GA_ENTRY_TEXMAP;
        en->texmap = data[at + 4];
        memcpy(raw->entry_pad + 3 * (size_t)e, data + at + 5, 3);
        en->name = names[e];
        names[e] = NULL;
    }
    if (names)
        for (uint32_t e = 0; e < n; e++) free(names[e]);
    free(names);
    *out = raw;
    return GA_OK;
fail:
    if (names)
        for (uint32_t e = 0; e < n; e++) free(names[e]);
    free(names);
    ga_clip_free(clip);
    j3dk_free_raw(raw);
    return rc;
}

static const j3dk_int_range btp_indices = {65535, 2};
static const j3dk_layout btp_layout = {
    "btp1", "TPT1", TPT1_HEADER, 0x0A, 1, {"index table"}, j3dk_int_run, &btp_indices,
    "value(s) rounded to whole numbers (one per frame)",
};

static int btp_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    const ga_clip *clip = ctx->clip;
    const j3dk_raw *raw = ctx->raw;
    uint32_t n = clip->nentries;
    if (n > 0xFFFF) return ga_fail(err, GA_ERR_ENCODE, "btp", "entries", -1, "%u entries exceed 65535", n);
    int32_t *slot = malloc(((size_t)n + 1) * sizeof *slot);
    if (!slot) return ga_nomem(err, "btp");
    for (uint32_t i = 0; i < n; i++) slot[i] = -1;
    int rc = GA_OK;
    for (uint32_t i = 0; i < clip->ntracks && !rc; i++) {
        const ga_track *t = &clip->tracks[i];
        if (t->target_name || t->channel != GA_CH_TEXTURE_INDEX || t->axis != 0 || t->target < 0 ||
            (uint32_t)t->target >= n)
            rc = ga_fail(err, GA_ERR_ENCODE, "btp", "track", -1,
                         "track %u: BTP tracks are channel 'texture_index', axis 0, on an entry index below %u", i, n);
        else if (slot[t->target] >= 0)
            rc = ga_fail(err, GA_ERR_ENCODE, "btp", "track", -1, "two tracks (%d and %u) animate entry %d",
                         slot[t->target], i, t->target);
        else
            slot[t->target] = (int32_t)i;
    }
    for (uint32_t i = 0; i < n && !rc; i++)
        if (clip->entries[i].texmap < 0 || clip->entries[i].texmap > 255)
            rc = ga_fail(err, GA_ERR_ENCODE, "btp", "texmap", -1, "entry %u: texmap %d is not 0..255", i,
                         clip->entries[i].texmap);
    if (rc) {
        free(slot);
        return rc;
    }
    j3dk_rebuild rb;
    int done;
    rc = j3dk_rebuild_begin(ctx, &btp_layout, ctx->orig && j3dk_entries_equal(clip, ctx->orig), slot, n, out, &rb,
                            &done, err);
    const j3d_desc *desc = rb.desc;
    const ga_pool pool = rb.pools[0];
    size_t c0 = rb.c0;
    if (!rc && !done) {
        ga_buf *b = out;
        ga_buf_set_u16be(b, c0 + 0x0C, (uint16_t)n);
        ga_buf_set_u16be(b, c0 + 0x0E, (uint16_t)pool.n);
        ga_buf_set_u32be(b, c0 + 0x10, (uint32_t)(b->len - c0));
        int keep = raw && raw->nentries == n;
        for (uint32_t e = 0; e < n; e++) {
            ga_buf_u16be(b, desc[e].count);
            ga_buf_u16be(b, desc[e].index);
            ga_buf_u8(b, (uint8_t)clip->entries[e].texmap);
            if (keep) ga_buf_put(b, raw->entry_pad + 3 * (size_t)e, 3);
            else ga_buf_fill(b, 0xFF, 3);
        }
        j3d_put_padding(b, 4);
        ga_buf_set_u32be(b, c0 + 0x14, (uint32_t)(b->len - c0));
        for (size_t k = 0; k < pool.n; k++) ga_buf_u16be(b, (uint16_t)pool.v[k]);
        j3d_put_padding(b, 4);
        ga_buf_set_u32be(b, c0 + 0x18, (uint32_t)(b->len - c0));
        for (uint32_t e = 0; e < n; e++) ga_buf_u16be(b, keep ? raw->remap[e] : (uint16_t)e);
        j3d_put_padding(b, 4);
        ga_buf_set_u32be(b, c0 + 0x1C, (uint32_t)(b->len - c0));
        const char **nm = malloc(((size_t)n + 1) * sizeof *nm);
        if (nm) {
            for (uint32_t e = 0; e < n; e++) nm[e] = clip->entries[e].name;
            ga_jut_put_names(b, nm, n);
            free(nm);
        } else {
            b->failed = 1;
        }
        j3d_put_padding(b, 4);
        j3dk_finish(b, ctx, c0);
        if (b->failed) rc = ga_nomem(err, "btp");
    }
    j3dk_rebuild_free(&rb);
    return rc;
}

const ga_format ga_format_btp = {
    "btp",
    "J3D texture pattern animation (GameCube/Wii, TPT1)",
    btp_probe,
    btp_decode,
    btp_encode,
    j3dk_free_raw,
    j3dk_sample_frames,
    j3dk_info,
    NULL, /* every track applies */
    j3dk_eval_frames,
    {".btp", "material_entry", 1, NULL, NULL, "yaz0;yay0", "cp932", "texture_index", NULL},
};
