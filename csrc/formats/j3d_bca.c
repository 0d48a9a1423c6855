/* J3D BCA: full-frame joint animation (J3D1bca1 / ANF1), one value per
 * frame for each of a joint's nine channels.  Not the SM64DS BCA (bca.c):
 * the J3D magic tells them apart.  Also recognises the cluster-weight
 * kinds BLA / BLK only to refuse them by name.  Shares the J3D container
 * with the other kinds (j3d.c); docs/formats/j3d_kinds.md. */
#include "j3d_kinds.h"
#include "pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ANF1_HEADER 0x40u

static const char *const ch_names[3] = {"scale", "rotation", "translation"};

static int j3d_bca_probe(const uint8_t *data, size_t size)
{
    if (j3d_probe(data, size, "bca1")) return 100;
    /* cluster weights: claimed so that the decoder refuses them by name */
    if (j3d_probe(data, size, "bla1") || j3d_probe(data, size, "blk1")) return 100;
    return 0;
}

/* Track i (joint i / 9, channel, axis: clip order) of the joint table
 * (file order: axis * 3 + channel); arg: the joint table and the three
 * value tables. */
static void joint_values(const uint8_t *data, const void *arg, uint32_t i, j3dk_frames_at *f, char *field, size_t cap)
{
    const size_t *where = arg;
    uint32_t j = i / 9, c = i % 9 / 3, a = i % 3;
    const uint8_t *p = data + where[0] + 36 * (size_t)j + 4 * (size_t)(a * 3 + c);
    int elem = c == 1 ? 2 : 4;
    *f = (j3dk_frames_at){where[1 + c] + (size_t)ga_get_u16be(p + 2) * (size_t)elem, ga_get_u16be(p), elem, 1,
                         c == 1 ? j3d_rotation_unit(0) : 1.0, (int32_t)j, (uint8_t)c, (uint8_t)a};
    if (field) snprintf(field, cap, "joint %u %s %c values", j, ch_names[c], "XYZ"[a]);
}

static int j3d_bca_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **out, ga_clip *clip,
                          ga_error *err)
{
    if (size >= 8 && (memcmp(data, "J3D1bla1", 8) == 0 || memcmp(data, "J3D1blk1", 8) == 0))
        return ga_fail(err, GA_ERR_FORMAT, data[6] == 'a' ? "bla" : "blk", "magic", 4,
                       "%s (J3D cluster-weight animation, %s) is recognised but not supported yet",
                       data[6] == 'a' ? "BLA" : "BLK", data[6] == 'a' ? "CLF1" : "CLK1");
    j3dk_raw *raw = NULL;
    int rc = j3dk_open(data, size, "j3d_bca", "bca1", "ANF1", ANF1_HEADER, 0x0A, &raw, err);
    if (rc) return rc;
    ga_reader r;
    ga_reader_init(&r, data, size, "j3d_bca", err);
    const uint8_t *h = data + 0x20;
    uint32_t n = ga_get_u16be(h + 0x0C);
    size_t tab = 0x20 + (size_t)ga_get_u32be(h + 0x14);
    size_t voff[3] = {0x20 + (size_t)ga_get_u32be(h + 0x18), 0x20 + (size_t)ga_get_u32be(h + 0x1C),
                      0x20 + (size_t)ga_get_u32be(h + 0x20)};
    ga_clip_init(clip, "j3d_bca");
    raw->nentries = n;
    rc = ga_need(&r, tab, (size_t)n * 36, "joint table");
    if (!rc) {
        size_t where[4] = {tab, voff[0], voff[1], voff[2]};
        rc = j3dk_frame_tracks(&r, opts, raw, clip, n * 9, tab, joint_values, where, err);
    }
    if (rc) goto fail;
    *out = raw;
    return GA_OK;
fail:
    ga_clip_free(clip);
    j3dk_free_raw(raw);
    return rc;
}

/* One track's values at whole frames, as table elements (f32 bits or s16). */
static int bca_run(const ga_track *t, const char *fmt, const void *arg, j3d_seq *seq, uint16_t *count, ga_report *rep,
                   ga_error *err)
{
    (void)fmt;
    (void)arg;
    uint32_t nf = j3dk_frame_count(t);
    *count = (uint16_t)nf;
    double unit = j3d_rotation_unit(0);
    int on = j3dk_keys_on_frames(t);
    for (uint32_t k = 0; k < nf; k++) {
        double v = j3dk_frame_value(t, k, on);
        uint32_t bits;
        if (t->channel == GA_CH_ROTATION) {
            double q = nearbyint(v / unit);
            if (!(q >= -32768.0 && q <= 32767.0))
                return ga_fail(err, GA_ERR_ENCODE, "j3d_bca", "rotation", -1,
                               "joint %d rotation %c frame %u: %g rad is outside the s16 range (+-pi)", t->target,
                               "XYZ"[t->axis], k, v);
            if ((float)(q * unit) != (float)v) {
                rep->nrounded++;
                ga_report_error(rep, v - q * unit, "joint %d rotation %c frame %u", t->target, "XYZ"[t->axis], k);
            }
            bits = (uint16_t)(int16_t)q;
        } else {
            bits = ga_f32_bits((float)v);
        }
        if (j3d_seq_push(seq, bits)) return ga_nomem(err, "j3d_bca");
    }
    return GA_OK;
}

/* slot s = joint * 9 + axis * 3 + channel (file order): table s % 3 */
static const j3dk_layout anf1_layout = {
    "bca1", "ANF1", ANF1_HEADER, 0x0A, 3, {"scale table", "rotation table", "translation table"}, bca_run, NULL,
    "rotation(s) rounded to the s16 table (pi / 32768 steps)",
};

static int j3d_bca_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    const ga_clip *clip = ctx->clip;
    const j3dk_raw *raw = ctx->raw;
    uint32_t n = 0;
    for (uint32_t i = 0; i < clip->ntracks; i++) {
        const ga_track *t = &clip->tracks[i];
        if (t->target_name || t->channel > GA_CH_TRANSLATION || t->axis > 2 || t->target < 0 || t->target > 0xFFFE)
            return ga_fail(err, GA_ERR_ENCODE, "j3d_bca", "track", -1,
                           "track %u: J3D BCA tracks are scale, Euler rotation or translation, axis 0..2, on a joint "
                           "index 0..65534", i);
        if ((uint32_t)t->target + 1 > n) n = (uint32_t)t->target + 1;
    }
    if (raw && raw->nentries > n) n = raw->nentries;
    int32_t *slot = malloc(((size_t)n * 9 + 1) * sizeof *slot);
    if (!slot) return ga_nomem(err, "j3d_bca");
    for (size_t i = 0; i < (size_t)n * 9; i++) slot[i] = -1;
    int rc = GA_OK;
    for (uint32_t i = 0; i < clip->ntracks && !rc; i++) {
        const ga_track *t = &clip->tracks[i];
        size_t s = (size_t)t->target * 9 + t->axis * 3u + t->channel; /* file order */
        if (slot[s] >= 0)
            rc = ga_fail(err, GA_ERR_ENCODE, "j3d_bca", "track", -1, "two tracks (%d and %u) animate the same channel",
                         slot[s], i);
        slot[s] = (int32_t)i;
    }
    if (rc) {
        free(slot);
        return rc;
    }
    j3dk_rebuild rb;
    int done;
    rc = j3dk_rebuild_begin(ctx, &anf1_layout, 1, slot, n * 9, out, &rb, &done, err);
    const j3d_desc *desc = rb.desc;
    const ga_pool *pools = rb.pools;
    size_t c0 = rb.c0;
    if (!rc && !done) {
        ga_buf *b = out;
        if (!raw && !b->failed) memcpy(b->data + c0 + 0x24, j3d_padding_text, ANF1_HEADER - 0x24);
        ga_buf_set_u16be(b, c0 + 0x0C, (uint16_t)n);
        for (int i = 0; i < 3; i++) ga_buf_set_u16be(b, c0 + 0x0E + 2 * (size_t)i, (uint16_t)pools[i].n);
        ga_buf_set_u32be(b, c0 + 0x14, (uint32_t)(b->len - c0));
        for (size_t s = 0; s < (size_t)n * 9; s++) {
            ga_buf_u16be(b, desc[s].count);
            ga_buf_u16be(b, desc[s].index);
        }
        for (int i = 0; i < 3; i++) {
            j3d_put_padding(b, 32);
            ga_buf_set_u32be(b, c0 + 0x18 + 4 * (size_t)i, (uint32_t)(b->len - c0));
            for (size_t k = 0; k < pools[i].n; k++) {
                if (i == 1) ga_buf_u16be(b, (uint16_t)pools[i].v[k]);
                else ga_buf_u32be(b, pools[i].v[k]);
            }
        }
        j3dk_finish(b, ctx, c0);
        if (b->failed) rc = ga_nomem(err, "j3d_bca");
    }
    j3dk_rebuild_free(&rb);
    return rc;
}

const ga_format ga_format_j3d_bca = {
    "j3d_bca",
    "J3D full-frame joint animation (GameCube/Wii, ANF1)",
    j3d_bca_probe,
    j3d_bca_decode,
    j3d_bca_encode,
    j3dk_free_raw,
    j3dk_sample_frames,
    j3dk_info,
    NULL, /* every track applies */
    j3dk_eval_frames,
    {".bca", "joint", 1, "Y", "INDEX", "yaz0;yay0", NULL, NULL, "j3d"},
};
