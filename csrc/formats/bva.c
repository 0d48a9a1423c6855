/* BVA: J3D shape visibility animation (J3D1bva1 / VAF1): per shape, one
 * show byte per frame.  Shares the J3D container with the other kinds
 * (j3d_kinds.c); docs/formats/j3d_kinds.md. */
#include "j3d_kinds.h"
#include "pool.h"

#include <stdlib.h>
#include <string.h>

#define VAF1_HEADER 0x18u

static int bva_probe(const uint8_t *data, size_t size) { return j3d_probe(data, size, "bva1"); }

/* Shape i's show bytes (arg: the shape table and the show table). */
static void show_table(const uint8_t *data, const void *arg, uint32_t i, j3dk_frames_at *f, char *field, size_t cap)
{
    const size_t *where = arg;
    const uint8_t *p = data + where[0] + 4 * (size_t)i;
    *f = (j3dk_frames_at){where[1] + ga_get_u16be(p + 2), ga_get_u16be(p), 1, 0, 1.0, (int32_t)i, GA_CH_VISIBILITY, 0};
    if (field) snprintf(field, cap, "shape %u show table", i);
}

static int bva_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **out, ga_clip *clip,
                      ga_error *err)
{
    j3dk_raw *raw = NULL;
    int rc = j3dk_open(data, size, "bva", "bva1", "VAF1", VAF1_HEADER, 0x0A, &raw, err);
    if (rc) return rc;
    ga_reader r;
    ga_reader_init(&r, data, size, "bva", err);
    const uint8_t *h = data + 0x20;
    uint32_t n = ga_get_u16be(h + 0x0C);
    size_t tab = 0x20 + (size_t)ga_get_u32be(h + 0x10), show = 0x20 + (size_t)ga_get_u32be(h + 0x14);
    ga_clip_init(clip, "bva");
    raw->nentries = n;
    raw->counts[0] = ga_get_u16be(h + 0x0E);
    rc = ga_need(&r, tab, (size_t)n * 4, "shape table");
    if (!rc) {
        size_t where[2] = {tab, show};
        rc = j3dk_frame_tracks(&r, opts, raw, clip, n, tab, show_table, where, err);
    }
    if (rc) goto fail;
    *out = raw;
    return GA_OK;
fail:
    ga_clip_free(clip);
    j3dk_free_raw(raw);
    return rc;
}

static const j3dk_int_range bva_shows = {255, 1};
static const j3dk_layout bva_layout = {
    "bva1", "VAF1", VAF1_HEADER, 0x0A, 1, {"show table"}, j3dk_int_run, &bva_shows,
    "value(s) rounded to whole numbers (one per frame)",
};

static int bva_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    const ga_clip *clip = ctx->clip;
    uint32_t n = 0;
    int rc = GA_OK;
    for (uint32_t i = 0; i < clip->ntracks; i++) {
        const ga_track *t = &clip->tracks[i];
        if (t->target_name || t->channel != GA_CH_VISIBILITY || t->axis != 0 || t->target < 0 || t->target > 0xFFFE)
            return ga_fail(err, GA_ERR_ENCODE, "bva", "track", -1,
                           "track %u: BVA tracks are channel 'visibility', axis 0, on a shape index 0..65534", i);
        if ((uint32_t)t->target + 1 > n) n = (uint32_t)t->target + 1;
    }
    const j3dk_raw *raw = ctx->raw;
    if (raw && raw->nentries > n) n = raw->nentries; /* keep the shape count when trailing shapes lost their tracks */
    int32_t *slot = malloc(((size_t)n + 1) * sizeof *slot);
    if (!slot) return ga_nomem(err, "bva");
    for (uint32_t i = 0; i < n; i++) slot[i] = -1;
    for (uint32_t i = 0; i < clip->ntracks && !rc; i++) {
        int32_t tg = clip->tracks[i].target;
        if (slot[tg] >= 0)
            rc = ga_fail(err, GA_ERR_ENCODE, "bva", "track", -1, "two tracks (%d and %u) animate shape %d", slot[tg],
                         i, tg);
        slot[tg] = (int32_t)i;
    }
    if (rc) {
        free(slot);
        return rc;
    }
    j3dk_rebuild rb;
    int done;
    rc = j3dk_rebuild_begin(ctx, &bva_layout, 1, slot, n, out, &rb, &done, err);
    const j3d_desc *desc = rb.desc;
    const ga_pool pool = rb.pools[0];
    size_t c0 = rb.c0;
    if (!rc && !done) {
        ga_buf *b = out;
        ga_buf_set_u16be(b, c0 + 0x0C, (uint16_t)n);
        ga_buf_set_u16be(b, c0 + 0x0E, (uint16_t)pool.n);
        j3d_put_padding(b, 32);
        ga_buf_set_u32be(b, c0 + 0x10, (uint32_t)(b->len - c0));
        for (uint32_t e = 0; e < n; e++) {
            ga_buf_u16be(b, desc[e].count);
            ga_buf_u16be(b, desc[e].index);
        }
        j3d_put_padding(b, 4);
        ga_buf_set_u32be(b, c0 + 0x14, (uint32_t)(b->len - c0));
        for (size_t k = 0; k < pool.n; k++) ga_buf_u8(b, (uint8_t)pool.v[k]);
        j3d_put_padding(b, 4);
        j3dk_finish(b, ctx, c0);
        if (b->failed) rc = ga_nomem(err, "bva");
    }
    j3dk_rebuild_free(&rb);
    return rc;
}

const ga_format ga_format_bva = {
    "bva",
    "J3D shape visibility animation (GameCube/Wii, VAF1)",
    bva_probe,
    bva_decode,
    bva_encode,
    j3dk_free_raw,
    j3dk_sample_frames,
    j3dk_info,
    NULL, /* every track applies */
    j3dk_eval_frames,
    {".bva", "shape", 1, NULL, NULL, "yaz0;yay0", NULL, "visibility", NULL},
};
