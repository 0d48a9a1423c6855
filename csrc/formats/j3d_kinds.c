/* The shared code of the other J3D kinds (brk_bpk.c, btp.c, bva.c,
 * j3d_bca.c): their raw record, opening and header edits, key-framed and
 * full-frame tracks, their sampling and the full-frame encoders' helpers.
 * docs/formats/j3d_kinds.md. */
#include "j3d_kinds.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void j3dk_free_raw(void *p)
{
    j3dk_raw *raw = p;
    if (!raw) return;
    free(raw->file);
    free(raw->types);
    free(raw->entry_pad);
    free(raw->remap);
    free(raw);
}

int j3dk_open(const uint8_t *data, size_t size, const char *fmt, const char *magic, const char *chunk,
              size_t hsize, size_t duration_at, j3dk_raw **out, ga_error *err)
{
    ga_reader r;
    ga_reader_init(&r, data, size, fmt, err);
    int rc = ga_need(&r, 0, 0x20, "file header");
    if (rc) return rc;
    if (memcmp(data, "J3D1", 4) != 0 || memcmp(data + 4, magic, 4) != 0)
        return ga_fail(err, GA_ERR_FORMAT, fmt, "magic", 0, "expected 'J3D1%s'", magic);
    rc = ga_need(&r, 0x20, hsize, "chunk header");
    if (rc) return rc;
    if (memcmp(data + 0x20, chunk, 4) != 0)
        return ga_fail(err, GA_ERR_FORMAT, fmt, "chunk magic", 0x20, "expected a '%s' block first", chunk);
    uint32_t blocks = ga_get_u32be(data + 0x0C);
    if (blocks == 0) return ga_fail(err, GA_ERR_FORMAT, fmt, "block count", 0x0C, "the file has no blocks");
    uint32_t csize = ga_get_u32be(data + 0x24);
    if (csize < hsize)
        return ga_fail(err, GA_ERR_FORMAT, fmt, "chunk size", 0x24, "%u bytes is smaller than the %zu-byte %s header",
                       csize, hsize, chunk);
    j3dk_raw *raw = calloc(1, sizeof *raw);
    if (!raw) return ga_nomem(err, fmt);
    snprintf(raw->fmt, sizeof raw->fmt, "%s", fmt);
    raw->size_field = ga_get_u32be(data + 8);
    raw->block_count = blocks;
    memcpy(raw->svr, data + 0x10, 16);
    raw->chunk_size_field = csize;
    raw->hsize = hsize;
    raw->loop_raw = data[0x28];
    raw->duration = (int16_t)ga_get_u16be(data + 0x20 + duration_at);
    raw->duration_at = duration_at;
    /* Some files end before the size their header (and chunk) claim: the
     * game reads only what its offsets reach, so they load, and the
     * difference is kept. */
    size_t end = raw->size_field < size ? raw->size_field : size;
    raw->chunk_delta = (long long)csize - (long long)(end - 0x20);
    raw->size = size;
    raw->file = malloc(size ? size : 1);
    if (!raw->file) {
        free(raw);
        return ga_nomem(err, fmt);
    }
    memcpy(raw->file, data, size);
    *out = raw;
    return GA_OK;
}

void j3dk_clip_init(ga_clip *clip, const j3dk_raw *raw)
{
    ga_clip_init(clip, raw->fmt);
    clip->frame_count = raw->duration;
    clip->loop = raw->loop_raw <= 4 ? raw->loop_raw : -1;
    clip->loop_raw_valid = 1;
    clip->loop_raw = raw->loop_raw;
}

int j3dk_key_track(ga_clip *clip, ga_track *t, const ga_reader *r, size_t desc_at, size_t table_at,
                   uint32_t table_n, const char *field, uint16_t *type, ga_error *err)
{
    int rc = ga_need(r, desc_at, 6, field);
    if (rc) return rc;
    uint16_t count = ga_get_u16be(r->data + desc_at), index = ga_get_u16be(r->data + desc_at + 2);
    *type = ga_get_u16be(r->data + desc_at + 4);
    uint32_t stride = *type == 0 ? 3 : 4;
    uint64_t need = count == 0 ? 0 : count == 1 ? (uint64_t)index + 1 : (uint64_t)index + (uint64_t)count * stride;
    if (need > table_n)
        return ga_fail(err, GA_ERR_FORMAT, r->format, field, (long long)desc_at,
                       "%u keys from element %u (tangent type %u) run past the value table of %u values", count,
                       index, *type, table_n);
    rc = ga_clip_track_alloc(clip, t, count, err);
    if (rc || count == 0) return rc;
    const uint8_t *v = r->data + table_at + (size_t)index * 2;
    if (count == 1) {
        t->time[0] = 0.0f;
        t->value[0] = (float)(int16_t)ga_get_u16be(v);
        t->interp[0] = GA_INTERP_CONSTANT;
        return GA_OK;
    }
    for (uint32_t k = 0; k < count; k++) {
        const uint8_t *e = v + (size_t)k * stride * 2;
        t->time[k] = (float)(int16_t)ga_get_u16be(e);
        t->value[k] = (float)(int16_t)ga_get_u16be(e + 2);
        t->in_slope[k] = (float)(int16_t)ga_get_u16be(e + 4);
        t->out_slope[k] = (float)(int16_t)ga_get_u16be(e + (stride == 4 ? 6 : 4));
        t->interp[k] = GA_INTERP_BEZIER;
    }
    return GA_OK;
}

int j3dk_frame_track(ga_clip *clip, ga_track *t, const uint8_t *at, uint32_t count, int elem, int sign,
                     double scale)
{
    ga_error e;
    int rc = ga_clip_track_alloc(clip, t, count, &e);
    if (rc) return rc;
    for (uint32_t k = 0; k < count; k++) {
        double v;
        if (elem == 1) v = at[k];
        else if (elem == 2) v = sign ? (double)(int16_t)ga_get_u16be(at + 2 * k) : (double)ga_get_u16be(at + 2 * k);
        else v = ga_get_f32be(at + 4 * k);
        t->time[k] = (float)k;
        t->value[k] = (float)(v * scale);
        t->interp[k] = GA_INTERP_CONSTANT;
    }
    return GA_OK;
}

int j3dk_frame_tracks(const ga_reader *r, const ga_decode_opts *opts, j3dk_raw *raw, ga_clip *clip, uint32_t n,
                      size_t table_at, j3dk_frames_fn where, const void *arg, ga_error *err)
{
    const char *fmt = r->format;
    uint64_t nkeys = 0;
    j3dk_frames_at f;
    char field[64];
    for (uint32_t i = 0; i < n; i++) {
        where(r->data, arg, i, &f, field, sizeof field);
        nkeys += f.count;
        /* bounded by the data, not the header's counts: the game reads what
         * the table points at */
        int rc = ga_need(r, f.at, (size_t)f.count * (size_t)f.elem, field);
        if (rc) return rc;
    }
    int rc = ga_check_decoded(opts, r->size, nkeys, GA_KEY_BYTES, "keys", fmt, "key count", (long long)table_at, err);
    if (rc) return rc;
    j3dk_clip_init(clip, raw);
    rc = ga_clip_alloc_tracks(clip, n, err);
    if (!rc) rc = ga_clip_reserve_keys(clip, nkeys, n, err);
    if (rc) return rc;
    raw->ntracks = n;
    for (uint32_t i = 0; i < n; i++) {
        where(r->data, arg, i, &f, NULL, 0);
        ga_track *t = &clip->tracks[i];
        t->target = f.target;
        t->channel = f.channel;
        t->axis = f.axis;
        if (j3dk_frame_track(clip, t, r->data + f.at, f.count, f.elem, f.sign, f.scale)) return ga_nomem(err, fmt);
    }
    return GA_OK;
}

int j3dk_entries_equal(const ga_clip *a, const ga_clip *b)
{
    if (a->nentries != b->nentries) return 0;
    for (uint32_t i = 0; i < a->nentries; i++) {
        const ga_entry *x = &a->entries[i], *y = &b->entries[i];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0) return 0;
        if (x->kind != y->kind || x->color_id != y->color_id || x->texmap != y->texmap) return 0;
    }
    return 1;
}

int j3dk_patch(const ga_encode_ctx *ctx, int entries_same, ga_buf *out, ga_error *err, int *done)
{
    const j3dk_raw *raw = ctx->raw;
    *done = 0;
    if (!raw || !ctx->orig || !entries_same || ctx->clip->ntracks != ctx->orig->ntracks) return GA_OK;
    for (uint32_t i = 0; i < ctx->clip->ntracks; i++)
        if (ctx->orig_track[i] != (int32_t)i) return GA_OK;
    uint8_t loop = 0;
    int16_t dur = 0;
    int rc = j3d_loop_byte(ctx, &loop, err, raw->fmt);
    if (!rc) rc = j3d_duration_field(ctx->clip, &dur, ctx->report, err, raw->fmt);
    if (rc) return rc;
    if (ga_buf_put(out, raw->file, raw->size)) return ga_nomem(err, raw->fmt);
    out->data[0x28] = loop;
    ga_buf_set_u16be(out, 0x20 + raw->duration_at, (uint16_t)dur);
    ctx->report->reused_tracks = ctx->clip->ntracks;
    *done = 1;
    return GA_OK;
}

size_t j3dk_begin(ga_buf *b, const ga_encode_ctx *ctx, const char *magic, const char *chunk, size_t hsize,
                  size_t duration_at, ga_error *err, int *rc)
{
    const j3dk_raw *raw = ctx->raw;
    const char *fmt = ctx->clip->format;
    uint8_t loop = 0;
    int16_t dur = 0;
    *rc = j3d_loop_byte(ctx, &loop, err, fmt);
    if (!*rc) *rc = j3d_duration_field(ctx->clip, &dur, ctx->report, err, fmt);
    if (*rc) return 0;
    ga_buf_put(b, "J3D1", 4);
    ga_buf_put(b, magic, 4);
    ga_buf_u32be(b, 0); /* file size, set by j3dk_finish */
    ga_buf_u32be(b, raw ? raw->block_count : 1);
    if (raw) {
        ga_buf_put(b, raw->svr, 16);
    } else {
        ga_buf_put(b, "SVR1", 4);
        ga_buf_fill(b, 0xFF, 12);
    }
    size_t c0 = b->len;
    ga_buf_put(b, chunk, 4);
    ga_buf_u32be(b, 0);
    /* the header's bytes the kind does not set stay as the file had them */
    if (raw && raw->hsize == hsize) ga_buf_put(b, raw->file + 0x28, hsize - 8);
    else ga_buf_fill(b, 0xFF, hsize - 8);
    if (!b->failed) {
        b->data[c0 + 8] = loop;
        ga_buf_set_u16be(b, c0 + duration_at, (uint16_t)dur);
    }
    return c0;
}

void j3dk_finish(ga_buf *b, const ga_encode_ctx *ctx, size_t c0)
{
    const j3dk_raw *raw = ctx->raw;
    j3d_put_padding(b, 32);
    size_t chunk_len = b->len - c0;
    long long csize = (long long)chunk_len + (raw ? raw->chunk_delta : 0);
    /* the file's odd chunk size is kept as a difference; where that would
     * leave less than the chunk's header (which a reader refuses), the
     * chunk's real length is written instead */
    if (csize < (long long)(raw ? raw->hsize : 8) || csize > 0xFFFFFFFFLL) csize = (long long)chunk_len;
    if (b->failed) return;
    ga_buf_set_u32be(b, c0 + 4, (uint32_t)csize);
    ga_buf_set_u32be(b, 8, (uint32_t)b->len);
    if (raw && raw->size > raw->size_field) ga_buf_put(b, raw->file + raw->size_field, raw->size - raw->size_field);
}

/* Whether a track's keys sit on frames 0, 1, ..., n-1 (as decoded). */
static int keys_on_frames(const ga_track *t)
{
    for (uint32_t k = 0; k < t->nkeys; k++)
        if (t->time[k] != (float)k) return 0;
    return 1;
}

uint32_t j3dk_frame_count(const ga_track *t)
{
    if (t->nkeys == 0) return 0;
    if (keys_on_frames(t)) return t->nkeys;
    double last = t->time[t->nkeys - 1];
    if (!(last >= 0.0)) return 1;
    if (last > 65534.0) return 65535;
    return (uint32_t)floor(last) + 1;
}

/* on: keys_on_frames(t), found once per track (it reads every key) */
static double frame_value(const ga_track *t, uint32_t k, int on)
{
    if (on) return t->value[k < t->nkeys ? k : t->nkeys - 1];
    return ga_track_eval(t, (double)k);
}

int j3dk_keys_on_frames(const ga_track *t) { return keys_on_frames(t); }

double j3dk_frame_value(const ga_track *t, uint32_t k, int on) { return frame_value(t, k, on); }

/* The game's reading of a full-frame table at a fractional frame. */
static float full_frame_eval(const ga_track *t, double frame, int rule, int on, uint32_t n)
{
    if (t->nkeys == 0) return ga_channel_default(t->channel, t->axis);
    float f = (float)frame;
    if (!(f >= 0.0f)) return (float)frame_value(t, 0, on); /* below 0 (and NaN): entry 0 */
    int32_t i = rule == GA_FRAME_NEAREST ? j3d_ppc_trunc_s32(f + 0.5f) : j3d_ppc_trunc_s32(f);
    uint32_t idx = (uint32_t)i;
    if (rule == GA_FRAME_LERP && (float)i != f) {
        uint32_t next = idx + 1;
        if (next >= n) return (float)frame_value(t, n - 1, on);
        float rate = f - (float)i;
        if (t->channel == GA_CH_ROTATION) {
            /* s16 angles, the short way round (J3DAnmTransformFullWithLerp) */
            double unit = j3d_rotation_unit(0);
            uint32_t r1 = (uint16_t)(int16_t)j3d_raw_of(frame_value(t, idx, on), unit);
            uint32_t r2 = (uint16_t)(int16_t)j3d_raw_of(frame_value(t, next, on), unit);
            int32_t delta = (int32_t)r2 - (int32_t)r1;
            if (delta > 0x8000) {
                r1 += 0x10000;
                delta -= 0x10000;
            } else if (-delta > 0x8000) {
                delta += 0x10000;
            }
            uint32_t v = (uint32_t)(int64_t)((float)r1 + rate * (float)delta);
            return (float)((int16_t)(uint16_t)v * unit);
        }
        float v0 = (float)frame_value(t, idx, on), v1 = (float)frame_value(t, next, on);
        return v0 + rate * (v1 - v0);
    }
    if (idx >= n) idx = n - 1;
    return (float)frame_value(t, idx, on);
}

static int frame_rule_of(const ga_track *t, int rule)
{
    /* BTP's getTexNo truncates in every version */
    return t->channel == GA_CH_TEXTURE_INDEX ? GA_FRAME_TRUNCATE : rule;
}

int j3dk_sample_frames(const ga_clip *clip, uint32_t ti, const double *frames, size_t n, float *out, ga_error *err)
{
    (void)err;
    const ga_track *t = &clip->tracks[ti];
    int rule = frame_rule_of(t, clip->frame_rule), on = keys_on_frames(t);
    uint32_t count = j3dk_frame_count(t);
    for (size_t i = 0; i < n; i++) out[i] = full_frame_eval(t, frames[i], rule, on, count);
    return GA_OK;
}

int j3dk_eval_frames(const ga_track *t, int rotation_frac, const double *frames, size_t n, float *out, ga_error *err)
{
    (void)rotation_frac;
    (void)err;
    int rule = frame_rule_of(t, GA_FRAME_NEAREST), on = keys_on_frames(t);
    uint32_t count = j3dk_frame_count(t);
    for (size_t i = 0; i < n; i++) out[i] = full_frame_eval(t, frames[i], rule, on, count);
    return GA_OK;
}

/* BRK / BPK: J3DGetKeyFrameInterpolationS on the stored s16 keys (the
 * curve before the game's conversion and clamp). */
int j3dk_eval_keys(const ga_track *t, int rotation_frac, const double *frames, size_t n, float *out,
                                  ga_error *err)
{
    (void)rotation_frac;
    if (t->nkeys <= 1) {
        float v = t->nkeys ? (float)nearbyint(t->value[0]) : ga_channel_default(t->channel, t->axis);
        for (size_t i = 0; i < n; i++) out[i] = v;
        return GA_OK;
    }
    ga_track q;
    int rc = ga_track_copy(&q, t, err);
    if (rc) return rc;
    for (uint32_t k = 0; k < q.nkeys; k++) {
        q.time[k] = (float)nearbyint(q.time[k]);
        q.value[k] = (float)nearbyint(q.value[k]);
        q.in_slope[k] = (float)nearbyint(q.in_slope[k]);
        q.out_slope[k] = (float)nearbyint(q.out_slope[k]);
    }
    j3d_game_eval_many(&q, frames, n, out, 1);
    ga_track_free(&q);
    return GA_OK;
}

int j3dk_sample_keys(const ga_clip *clip, uint32_t ti, const double *frames, size_t n, float *out, ga_error *err)
{
    return j3dk_eval_keys(&clip->tracks[ti], 0, frames, n, out, err);
}

int j3dk_info(const void *p, ga_info *info, ga_error *err)
{
    const j3dk_raw *raw = p;
    (void)err;
    int rc = 0;
    rc |= j3d_container_info(info, raw->size_field, raw->block_count, raw->svr, raw->chunk_size_field, raw->chunk_delta,
                         raw->loop_raw);
    rc |= ga_info_int(info, "duration", raw->duration);
    rc |= ga_info_bytes(info, "chunk_header", raw->file + 0x20, raw->hsize);
    /* a file shorter than its size field (the game reads only what its
     * offsets reach) has a negative value here */
    rc |= ga_info_int(info, "trailing_bytes", (long long)raw->size - (long long)raw->size_field);
    int identity = 1;
    for (uint32_t i = 0; raw->remap && i < raw->nentries; i++) {
        uint32_t set_first = (raw->counts[0] && i >= raw->counts[0] && raw->fmt[1] == 'r') ? raw->counts[0] : 0;
        if (raw->remap[i] != i - set_first) identity = 0;
    }
    rc |= ga_info_int(info, "material_ids_identity", identity);
    return rc ? GA_ERR_NOMEM : GA_OK;
}

/* A full-frame track's values at whole frames, rounded to integers of
 * lo..hi (u8 or u16 elements). */
int j3dk_frame_run(const ga_track *t, const char *fmt, double lo, double hi, int elem, j3d_seq *seq,
                     uint16_t *count, ga_report *rep, ga_error *err)
{
    uint32_t n = j3dk_frame_count(t);
    int on = keys_on_frames(t);
    *count = (uint16_t)n;
    for (uint32_t k = 0; k < n; k++) {
        double v = frame_value(t, k, on);
        double q = nearbyint(v);
        if (!(q >= lo && q <= hi))
            return ga_fail(err, GA_ERR_ENCODE, fmt, "track", -1, "target %d frame %u: value %g is not %g..%g",
                           t->target, k, v, lo, hi);
        if (q != v) {
            rep->nrounded++;
            ga_report_error(rep, v - q, "target %d frame %u", t->target, k);
        }
        uint32_t bits = elem == 1 ? (uint32_t)(uint8_t)q : (uint32_t)(uint16_t)q;
        if (j3d_seq_push(seq, bits)) return ga_nomem(err, fmt);
    }
    return GA_OK;
}

void j3dk_note_rounded(const ga_encode_ctx *ctx, uint32_t before, const char *what)
{
    ga_report *r = ctx->report;
    if (r->nrounded > before)
        ga_report_note(r, "%u %s; worst error %g at %s", (unsigned)(r->nrounded - before), what, r->max_error,
                       r->max_error_where[0] ? r->max_error_where : "-");
}

int j3dk_int_run(const ga_track *t, const char *fmt, const void *arg, j3d_seq *seq, uint16_t *count, ga_report *rep,
                 ga_error *err)
{
    const j3dk_int_range *range = arg;
    return j3dk_frame_run(t, fmt, 0, range->hi, range->elem, seq, count, rep, err);
}

/* Each slot's run placed in its pool (slot s in pools[s % npools]). */
static int place_runs(const ga_encode_ctx *ctx, const j3dk_layout *L, const int32_t *slot, uint32_t nslots,
                      j3dk_rebuild *rb, ga_error *err)
{
    const char *fmt = ctx->clip->format;
    j3d_seq seq = {0};
    int rc = GA_OK;
    uint32_t before = ctx->report->nrounded;
    for (uint32_t s = 0; s < nslots && !rc; s++) {
        if (slot[s] < 0) continue;
        ga_pool *pool = &rb->pools[s % (uint32_t)L->npools];
        const char *table = L->tables[s % (uint32_t)L->npools];
        seq.n = 0;
        rc = L->run(&ctx->clip->tracks[slot[s]], fmt, L->run_arg, &seq, &rb->desc[s].count, ctx->report, err);
        if (rc || !seq.n) continue;
        long long at = ga_pool_place(pool, seq.v, seq.n);
        if (at < 0) rc = ga_nomem(err, fmt);
        else if (at > 0xFFFF || pool->n > 0xFFFF)
            rc = ga_fail(err, GA_ERR_ENCODE, fmt, table, -1, "the %s outgrew the 65535 elements its count holds", table);
        else rb->desc[s].index = (uint16_t)at;
    }
    free(seq.v);
    if (!rc) j3dk_note_rounded(ctx, before, L->rounded);
    return rc;
}

int j3dk_rebuild_begin(const ga_encode_ctx *ctx, const j3dk_layout *L, int entries_same, int32_t *slot,
                       uint32_t nslots, ga_buf *out, j3dk_rebuild *rb, int *done, ga_error *err)
{
    memset(rb, 0, sizeof *rb);
    for (int i = 0; i < 3; i++) ga_pool_init(&rb->pools[i], SIZE_MAX);
    *done = 0;
    int rc = j3dk_patch(ctx, entries_same, out, err, done);
    if (!rc && !*done) {
        if (!(rb->desc = calloc((size_t)nslots + 1, sizeof *rb->desc))) rc = ga_nomem(err, ctx->clip->format);
        if (!rc) rc = place_runs(ctx, L, slot, nslots, rb, err);
        if (!rc) rb->c0 = j3dk_begin(out, ctx, L->magic, L->chunk, L->hsize, L->duration_at, err, &rc);
    }
    free(slot);
    return rc;
}

void j3dk_rebuild_free(j3dk_rebuild *rb)
{
    for (int i = 0; i < 3; i++) ga_pool_free(&rb->pools[i]);
    free(rb->desc);
    memset(rb, 0, sizeof *rb);
}
