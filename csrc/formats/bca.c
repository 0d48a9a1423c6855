/* BCA: Super Mario 64 DS bone animation (little-endian).
 *
 * A 24-byte header (bone count, frame count N, a loop word, the offsets of
 * the scale, rotation and translation value pools and of the bone blocks),
 * then one 36-byte block per bone: nine descriptors (AA, BB, CC) for scale
 * XYZ, rotation XYZ and translation XYZ.  BB == 0 means a constant P[CC];
 * otherwise AA is a shift: keys every 2^AA frames from P[CC], linearly
 * interpolated with the game's integer arithmetic, plus one value per frame
 * for the tail from the last key frame to N-1.
 *
 * The clip gets the game's exact result at every integer frame (one key
 * per frame for animated tracks, one key for constant ones), so generic
 * evaluation is game-exact at integer frames and linear in between.
 *
 * The raw record keeps the whole file: an unedited file is written back
 * verbatim, a loop change patches one word, and any other edit rebuilds the
 * file, re-emitting the original descriptor bytes and value runs of every
 * unchanged track. */
#include "gameanim.h"
#include "pool.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BCA_FMT "bca"
#define BCA_HEADER 0x18u
#define BCA_BLOCK 0x24u
#define BCA_ONE 0x1000  /* 1.0 in 20.12 fixed point */
#define BCA_FPS 30.0
#define BCA_MAX_SHIFT 2u /* the game's weight table has entries for shifts 0..2 */
#define BCA_MAX_CC 0xFFFFu

static const char *const ch_names[3] = {"scale", "rotation", "translation"};
/* The longest pool tail a new run may share (a bound on the search
 * time; the layout of files written so far depends on it). */
#define BCA_POOL_MAX_OVERLAP 4096u

static const char *const pool_fields[4] = {"scale pool offset", "rotation pool offset",
                                           "translation pool offset", "bone block offset"};
static const unsigned elem_size[3] = {4, 2, 4};
/* One rotation unit is 1/4096 of a turn. */
#define BCA_TURN_UNIT (2.0 * 3.14159265358979323846 / 4096.0)

/* ------------------------------------------------------------------ */
/* Integer helpers with the game's (ARM) semantics, free of UB          */

static int32_t s32_of(uint32_t u)
{
    return u <= 0x7FFFFFFFu ? (int32_t)u : (int32_t)(u - 0x80000000u) - 0x7FFFFFFF - 1;
}

static int32_t s16_of(uint32_t u)
{
    u &= 0xFFFFu;
    return u <= 0x7FFFu ? (int32_t)u : (int32_t)u - 0x10000;
}

/* Arithmetic shift right (floor division by 2^s) without shifting a
 * negative number. */
static int64_t asr64(int64_t x, unsigned s)
{
    return x >= 0 ? x >> s : -(((-(x + 1)) >> s)) - 1;
}

/* Frames of a track animated with shift s: keys at multiples of 2^s up to
 * L, then one value per frame from L to N-1. */
static uint32_t tail_start(uint32_t n, unsigned s) { return ((n - 1) >> s) << s; }

static uint32_t values_needed(uint32_t n, unsigned aa, unsigned bb)
{
    if (bb == 0) return 1;
    if (aa == 0) return n;
    uint32_t l = tail_start(n, aa);
    return (l >> aa) + (n - l);
}

/* The game's 32-bit sampler (scale, translation) at integer frame f,
 * p pointing at the track's first value.  The weighted sum wraps at 32
 * bits as the ARM multiply does. */
static int32_t game_s32(uint32_t n, uint32_t f, unsigned aa, unsigned bb, const int32_t *p)
{
    if (bb == 0) return p[0];
    if (aa == 0) return p[f];
    uint32_t l = tail_start(n, aa);
    uint32_t k = f >> aa;
    if (f >= l) return p[k + (f - l)];
    uint32_t r = f - (k << aa);
    if (r == 0) return p[k];
    int64_t w = (int64_t)1 << aa;
    int64_t sum = (int64_t)p[k] * (w - (int64_t)r) + (int64_t)p[k + 1] * (int64_t)r;
    int32_t wrapped = s32_of((uint32_t)(uint64_t)sum);
    return (int32_t)asr64(wrapped, aa);
}

/* The game's 16-bit sampler (rotation, 1/4096 turn).  Values are the s16
 * pool entries; the result is the sampler's 16 bits read as signed.  When
 * the two keys are half a turn or more apart (compared as raw signed
 * values) 0x1000 is added to the smaller one, and the lerp is masked to
 * 12 bits. */
static int32_t game_rot(uint32_t n, uint32_t f, unsigned aa, unsigned bb, const int32_t *p)
{
    if (bb == 0) return p[0];
    if (aa == 0) return p[f];
    uint32_t l = tail_start(n, aa);
    uint32_t k = f >> aa;
    if (f >= l) return p[k + (f - l)];
    int32_t r = (int32_t)(f - (k << aa));
    if (r == 0) return p[k];
    int32_t rest = (1 << aa) - r;
    int32_t lo = p[k], hi = p[k + 1];
    int32_t diff = lo - hi;
    if (diff >= 0x800 || diff <= -0x800) {
        if (lo > hi) hi = s16_of((uint32_t)(hi + 0x1000));
        else lo = s16_of((uint32_t)(lo + 0x1000));
        int64_t v = asr64((int64_t)hi * r + (int64_t)lo * rest, aa);
        return (int32_t)((uint32_t)(uint64_t)v & 0xFFFu);
    }
    return (int32_t)asr64((int64_t)lo * rest + (int64_t)hi * r, aa);
}

static int32_t game_sample(int ch, uint32_t n, uint32_t f, unsigned aa, unsigned bb, const int32_t *p)
{
    return ch == GA_CH_ROTATION ? game_rot(n, f, aa, bb, p) : game_s32(n, f, aa, bb, p);
}

static float value_of(int ch, int32_t q)
{
    if (ch == GA_CH_ROTATION) return (float)((double)q * BCA_TURN_UNIT);
    return (float)((double)q / 4096.0);
}

/* ------------------------------------------------------------------ */
/* Header and layout                                                   */

typedef struct bca_layout {
    uint32_t nbones, nframes, loop_word;
    uint32_t off[4];      /* scale, rotation, translation pools; bone blocks */
    size_t pool_end[3];   /* a pool runs to the next section start */
    uint32_t pool_n[3];   /* whole values in [off, pool_end) */
    size_t blocks_end;
    size_t trailing;      /* bytes after the bone blocks when they come last */
} bca_layout;

typedef struct bca_raw {
    uint8_t *file;
    size_t size;
    bca_layout lay;
    uint8_t *fast;        /* per bone: 1 when the scale fast path applies */
    /* statistics for info() */
    uint32_t n_const, n_rate[3], n_const_aa, n_bb_other, fast_bones;
    uint32_t unref[3];
} bca_raw;

static void bca_free_raw(void *p)
{
    bca_raw *raw = p;
    if (!raw) return;
    free(raw->file);
    free(raw->fast);
    free(raw);
}

/* Checks the header, the section offsets and that the bone blocks fit.
 * err may be NULL (probing, which does not insist on alignment). */
static int read_layout(const uint8_t *d, size_t size, int probing, bca_layout *lay, ga_error *err)
{
    memset(lay, 0, sizeof *lay);
    if (size >= 4 && memcmp(d, "J3D1", 4) == 0)
        return ga_fail(err, GA_ERR_FORMAT, BCA_FMT, "magic", 0,
                       "this is a GameCube/Wii J3D file ('J3D1%.4s'); J3D .bca 'joint all' animations are a "
                       "different format from the Super Mario 64 DS .bca",
                       size >= 8 ? (const char *)d + 4 : "");
    if (size >= 4 && memcmp(d, "BCA0", 4) == 0)
        return ga_fail(err, GA_ERR_FORMAT, BCA_FMT, "magic", 0,
                       "this is a NITRO .nsbca ('BCA0') animation, a different format from the Super Mario 64 DS "
                       ".bca");
    if (size < BCA_HEADER)
        return ga_fail(err, GA_ERR_FORMAT, BCA_FMT, "file header", 0,
                       "%zu bytes is too short for the 24-byte header", size);
    lay->nbones = ga_get_u16le(d);
    lay->nframes = ga_get_u16le(d + 2);
    lay->loop_word = ga_get_u32le(d + 4);
    if (lay->nbones == 0)
        return ga_fail(err, GA_ERR_FORMAT, BCA_FMT, "bone count", 0, "the file animates no bones");
    if (lay->nframes == 0)
        return ga_fail(err, GA_ERR_FORMAT, BCA_FMT, "frame count", 2,
                       "0 frames; the game's frame clock divides by the frame count");
    for (int i = 0; i < 4; i++) {
        uint32_t o = ga_get_u32le(d + 8 + 4 * i);
        lay->off[i] = o;
        if (o < BCA_HEADER)
            return ga_fail(err, GA_ERR_FORMAT, BCA_FMT, pool_fields[i], 8 + 4 * i,
                           "0x%x points into the 24-byte header", o);
        if (o > size)
            return ga_fail(err, GA_ERR_FORMAT, BCA_FMT, pool_fields[i], 8 + 4 * i,
                           "0x%x lies past the end of the data (%zu bytes)", o, size);
        unsigned align = i == 1 || i == 3 ? 2 : 4;
        if (o % align && !probing) /* the decoder explains it better than "unknown format" */
            return ga_fail(err, GA_ERR_FORMAT, BCA_FMT, pool_fields[i], 8 + 4 * i,
                           "0x%x is not a multiple of %u; the DS reads this section with aligned loads", o, align);
    }
    size_t blocks = (size_t)lay->nbones * BCA_BLOCK;
    if (blocks > size - lay->off[3])
        return ga_fail(err, GA_ERR_FORMAT, BCA_FMT, "bone blocks", lay->off[3],
                       "%u bones need %zu bytes of blocks but only %zu remain (data is %zu bytes)", lay->nbones,
                       blocks, size - lay->off[3], size);
    lay->blocks_end = lay->off[3] + blocks;
    for (int i = 0; i < 3; i++) {
        uint32_t o = lay->off[i];
        if (o > lay->off[3] && o < lay->blocks_end)
            return ga_fail(err, GA_ERR_FORMAT, BCA_FMT, pool_fields[i], 8 + 4 * i,
                           "the pool at 0x%x starts inside the bone blocks (0x%x..0x%zx)", o, lay->off[3],
                           lay->blocks_end);
    }
    /* A pool runs from its offset to the next section that starts after it
     * (or the end of the data); pools at the same offset share that span;
     * a pool at the bone-block offset is empty. */
    for (int i = 0; i < 3; i++) {
        uint32_t o = lay->off[i];
        size_t end = size;
        if (o == lay->off[3]) {
            end = o;
        } else {
            for (int j = 0; j < 4; j++)
                if (lay->off[j] > o && lay->off[j] < end) end = lay->off[j];
        }
        lay->pool_end[i] = end;
        lay->pool_n[i] = (uint32_t)((end - o) / elem_size[i]);
    }
    int blocks_last = 1;
    for (int i = 0; i < 3; i++)
        if (lay->off[i] >= lay->blocks_end && lay->off[i] > lay->off[3]) blocks_last = 0;
    lay->trailing = blocks_last ? size - lay->blocks_end : 0;
    return GA_OK;
}

static int bca_probe(const uint8_t *data, size_t size)
{
    bca_layout lay;
    if (size >= 4 && (memcmp(data, "J3D1", 4) == 0 || memcmp(data, "BCA0", 4) == 0)) {
        /* Not ours, but claim it weakly when nobody else does, so that the
         * decoder can say what the file is instead of "unknown format". */
        if (memcmp(data, "BCA0", 4) == 0) return 1;
        return 0;
    }
    if (read_layout(data, size, 1, &lay, NULL) == GA_OK) return 50;
    /* A damaged BCA (truncated, zero counts, offsets past the end) still
     * has four small, even section offsets; claim it weakly so that the
     * decoder names the broken field instead of "unknown format" (5, as
     * the other structural probes score a believable but broken header).
     * Random data passes this with odds of about 2^-36. */
    if (size < BCA_HEADER) return 0;
    for (int i = 0; i < 4; i++) {
        uint32_t o = ga_get_u32le(data + 8 + 4 * i);
        if (o < BCA_HEADER || o >= 0x1000000u || (o & 1)) return 0;
    }
    return 5;
}

static void desc_name(char *buf, size_t cap, uint32_t bone, unsigned slot)
{
    snprintf(buf, cap, "bone %u %s %c", bone, ch_names[slot / 3], "XYZ"[slot % 3]);
}

/* ------------------------------------------------------------------ */
/* Decoding                                                            */

static int bca_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **rawp,
                      ga_clip *clip, ga_error *err)
{
    bca_layout lay;
    int rc = read_layout(data, size, 0, &lay, err);
    if (rc) return rc;
    const uint32_t nb = lay.nbones, n = lay.nframes;
    bca_raw *raw = calloc(1, sizeof *raw);
    if (!raw) return ga_nomem(err, BCA_FMT);
    raw->lay = lay;
    raw->size = size;
    raw->file = malloc(size);
    raw->fast = calloc(nb, 1);
    uint8_t *ref[3] = {NULL, NULL, NULL};
    int32_t *run = NULL;
    if (!raw->file || !raw->fast) {
        rc = ga_nomem(err, BCA_FMT);
        goto fail;
    }
    memcpy(raw->file, data, size);
    for (int i = 0; i < 3; i++) {
        ref[i] = calloc((size_t)lay.pool_n[i] + 1, 1);
        if (!ref[i]) {
            rc = ga_nomem(err, BCA_FMT);
            goto fail;
        }
    }

    /* Validate every descriptor the game would use before allocating keys. */
    uint64_t total_keys = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const uint8_t *blk = data + lay.off[3] + (size_t)b * BCA_BLOCK;
        unsigned flag = blk[1] | blk[5] | blk[9] | ga_get_u16le(blk + 2) | ga_get_u16le(blk + 6) |
                        ga_get_u16le(blk + 10);
        raw->fast[b] = flag == 0;
        if (flag == 0) raw->fast_bones++;
        for (unsigned s = 0; s < 9; s++) {
            unsigned ch = s / 3, aa = blk[4 * s], bb = blk[4 * s + 1];
            uint32_t cc = ga_get_u16le(blk + 4 * s + 2);
            size_t at = lay.off[3] + (size_t)b * BCA_BLOCK + 4 * s;
            if (ch == 0 && raw->fast[b]) {
                total_keys += 1;
                continue;
            }
            char name[48];
            if (bb != 0 && aa > BCA_MAX_SHIFT) {
                desc_name(name, sizeof name, b, s);
                rc = ga_fail(err, GA_ERR_FORMAT, BCA_FMT, name, (long long)at,
                             "AA = %u with BB = %u: the game interpolates only with AA = 0, 1 or 2 (keys every "
                             "1, 2 or 4 frames); a larger shift reads past its weight table",
                             aa, bb);
                goto fail;
            }
            uint32_t cnt = values_needed(n, aa, bb);
            if ((uint64_t)cc + cnt > lay.pool_n[ch]) {
                desc_name(name, sizeof name, b, s);
                rc = ga_fail(err, GA_ERR_FORMAT, BCA_FMT, name, (long long)at,
                             "(AA %u, BB %u) reads %s values %u..%llu, but the pool at 0x%x holds %u values "
                             "(it ends at 0x%zx)",
                             aa, bb, ch_names[ch], cc, (unsigned long long)cc + cnt - 1, lay.off[ch],
                             lay.pool_n[ch], lay.pool_end[ch]);
                goto fail;
            }
            total_keys += bb == 0 ? 1 : n;
            if (bb == 0) {
                raw->n_const++;
                if (aa) raw->n_const_aa++;
            } else {
                raw->n_rate[aa]++;
                if (bb != 1) raw->n_bb_other++;
            }
        }
    }
    if (total_keys > GA_MAX_KEYS_TOTAL) {
        rc = ga_fail(err, GA_ERR_LIMIT, BCA_FMT, "bone blocks", lay.off[3],
                     "%u bones x %u frames make %llu keys, over the limit of %u", nb, n,
                     (unsigned long long)total_keys, GA_MAX_KEYS_TOTAL);
        goto fail;
    }
    /* An animated track is a key per frame, whatever its pool holds (pool
     * ranges may be shared): bones x frames against the decoded size. */
    rc = ga_check_decoded(opts, size, total_keys, GA_KEY_BYTES, "keys", BCA_FMT, "bone blocks", lay.off[3], err);
    if (rc) goto fail;
    /* Which pool values some descriptor reads (bounded by the key count). */
    for (uint32_t b = 0; b < nb; b++) {
        const uint8_t *blk = data + lay.off[3] + (size_t)b * BCA_BLOCK;
        for (unsigned s = 0; s < 9; s++) {
            unsigned ch = s / 3;
            if (ch == 0 && raw->fast[b]) continue;
            uint32_t cc = ga_get_u16le(blk + 4 * s + 2);
            memset(ref[ch] + cc, 1, values_needed(n, blk[4 * s], blk[4 * s + 1]));
        }
    }
    for (int i = 0; i < 3; i++) {
        uint32_t unref = 0;
        for (uint32_t k = 0; k < lay.pool_n[i]; k++) unref += ref[i][k] == 0; /* (vectorises) */
        raw->unref[i] = unref;
    }

    run = malloc(((size_t)n + 1) * sizeof *run);
    if (!run) {
        rc = ga_nomem(err, BCA_FMT);
        goto fail;
    }
    ga_clip_init(clip, BCA_FMT);
    clip->frame_count = n;
    clip->fps = BCA_FPS;
    clip->loop = lay.loop_word ? GA_LOOP_REPEAT : GA_LOOP_ONCE;
    clip->loop_raw_valid = 1;
    clip->loop_raw = lay.loop_word;
    rc = ga_clip_alloc_tracks(clip, nb * 9, err);
    if (!rc) rc = ga_clip_reserve_keys(clip, total_keys, nb * 9, err);
    if (rc) goto fail_clip;
    for (uint32_t b = 0; b < nb; b++) {
        const uint8_t *blk = data + lay.off[3] + (size_t)b * BCA_BLOCK;
        for (unsigned s = 0; s < 9; s++) {
            ga_track *t = &clip->tracks[(size_t)b * 9 + s];
            unsigned ch = s / 3, aa = blk[4 * s], bb = blk[4 * s + 1];
            uint32_t cc = ga_get_u16le(blk + 4 * s + 2);
            t->target = (int32_t)b;
            t->channel = (uint8_t)ch;
            t->axis = (uint8_t)(s % 3);
            if (ch == 0 && raw->fast[b]) {
                rc = ga_clip_track_alloc(clip, t, 1, err);
                if (rc) goto fail_clip;
                t->time[0] = 0.0f;
                t->value[0] = 1.0f;
                t->interp[0] = GA_INTERP_CONSTANT;
                continue;
            }
            uint32_t cnt = values_needed(n, aa, bb);
            const uint8_t *p = data + lay.off[ch] + (size_t)cc * elem_size[ch];
            for (uint32_t k = 0; k < cnt; k++)
                run[k] = ch == 1 ? s16_of(ga_get_u16le(p + 2 * (size_t)k)) : s32_of(ga_get_u32le(p + 4 * (size_t)k));
            uint32_t nk = bb == 0 ? 1 : n;
            rc = ga_clip_track_alloc(clip, t, nk, err);
            if (rc) goto fail_clip;
            for (uint32_t f = 0; f < nk; f++) t->time[f] = (float)f;
            memset(t->interp, bb == 0 ? GA_INTERP_CONSTANT : GA_INTERP_LINEAR, nk);
            if (bb != 0 && aa == 0) /* a value per frame: the sampler reads run[f] */
                for (uint32_t f = 0; f < nk; f++) t->value[f] = value_of((int)ch, run[f]);
            else
                for (uint32_t f = 0; f < nk; f++) t->value[f] = value_of((int)ch, game_sample((int)ch, n, f, aa, bb, run));
        }
    }
    for (int i = 0; i < 3; i++) free(ref[i]);
    free(run);
    *rawp = raw;
    return GA_OK;

fail_clip:
    ga_clip_free(clip);
fail:
    for (int i = 0; i < 3; i++) free(ref[i]);
    free(run);
    bca_free_raw(raw);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Info                                                                */

static int bca_info(const void *p, ga_info *info, ga_error *err)
{
    const bca_raw *raw = p;
    const bca_layout *l = &raw->lay;
    (void)err;
    int rc = 0;
    rc |= ga_info_int(info, "bone_count", l->nbones);
    rc |= ga_info_int(info, "frame_count", l->nframes);
    rc |= ga_info_int(info, "loop_word", l->loop_word);
    rc |= ga_info_int(info, "scale_offset", l->off[0]);
    rc |= ga_info_int(info, "rotation_offset", l->off[1]);
    rc |= ga_info_int(info, "translation_offset", l->off[2]);
    rc |= ga_info_int(info, "bone_offset", l->off[3]);
    rc |= ga_info_int(info, "scale_values", l->pool_n[0]);
    rc |= ga_info_int(info, "rotation_values", l->pool_n[1]);
    rc |= ga_info_int(info, "translation_values", l->pool_n[2]);
    rc |= ga_info_int(info, "scale_index0", l->pool_n[0] ? (long long)s32_of(ga_get_u32le(raw->file + l->off[0])) : -1);
    rc |= ga_info_int(info, "unreferenced_scale_values", raw->unref[0]);
    rc |= ga_info_int(info, "unreferenced_rotation_values", raw->unref[1]);
    rc |= ga_info_int(info, "unreferenced_translation_values", raw->unref[2]);
    rc |= ga_info_int(info, "fast_path_bones", raw->fast_bones);
    rc |= ga_info_int(info, "constant_tracks", raw->n_const);
    rc |= ga_info_int(info, "per_frame_tracks", raw->n_rate[0]);
    rc |= ga_info_int(info, "half_rate_tracks", raw->n_rate[1]);
    rc |= ga_info_int(info, "quarter_rate_tracks", raw->n_rate[2]);
    rc |= ga_info_int(info, "constant_with_shift", raw->n_const_aa);
    rc |= ga_info_int(info, "animated_bb_not_1", raw->n_bb_other);
    rc |= ga_info_int(info, "trailing_bytes", (long long)l->trailing);
    return rc ? GA_ERR_NOMEM : GA_OK;
}

/* ------------------------------------------------------------------ */
/* Encoding                                                            */

typedef struct enc_stats {
    uint32_t rounded, wrapped;
} enc_stats;

static void track_label(char *buf, size_t cap, int32_t bone, unsigned ch, unsigned axis)
{
    snprintf(buf, cap, "bone %d %s %c", bone, ch_names[ch], "XYZ"[axis]);
}

/* Evaluates a track at frames 0..N-1 and quantises to the stored units. */
static int quantise(const ga_track *t, uint32_t n, int32_t *q, enc_stats *st, ga_report *rep, ga_error *err)
{
    char name[48];
    track_label(name, sizeof name, t->target, t->channel, t->axis);
    for (uint32_t f = 0; f < n; f++) {
        double v = ga_track_eval(t, (double)f);
        if (!isfinite(v))
            return ga_fail(err, GA_ERR_ENCODE, BCA_FMT, name, -1, "frame %u: the value is not finite", f);
        double back;
        if (t->channel == GA_CH_ROTATION) {
            double r = nearbyint(v / BCA_TURN_UNIT);
            back = r * BCA_TURN_UNIT;
            if (r < -32768.0 || r > 32767.0) {
                /* Only the low 12 bits reach the game: whole turns can go. */
                double w = fmod(r, 4096.0);
                if (w < 0) w += 4096.0;
                r = w;
                st->wrapped++;
            }
            q[f] = (int32_t)r;
        } else {
            double r = nearbyint(v * 4096.0);
            if (r < -2147483648.0 || r > 2147483647.0)
                return ga_fail(err, GA_ERR_ENCODE, BCA_FMT, name, -1,
                               "frame %u: %g does not fit the signed 20.12 fixed point the file stores "
                               "(|value| < 524288)",
                               f, v);
            back = r / 4096.0;
            q[f] = (int32_t)r;
        }
        if ((float)back != (float)v) {
            st->rounded++;
            rep->nrounded++;
            ga_report_error(rep, v - back, "%s frame %u", name, f);
        }
    }
    return GA_OK;
}

/* Smallest exact representation of per-frame values: constant, or keys
 * every 4, 2 or 1 frames, checked with the game's own sampler.  Ties go to
 * the smaller shift. */
static void choose_rate(int ch, const int32_t *v, uint32_t n, int32_t *run, uint32_t *runlen, uint8_t *aa,
                        uint8_t *bb)
{
    int same = 1;
    for (uint32_t f = 1; f < n && same; f++)
        if (v[f] != v[0]) same = 0;
    if (same) {
        run[0] = v[0];
        *runlen = 1;
        *aa = 0;
        *bb = 0;
        return;
    }
    unsigned best = 0;
    uint32_t best_n = n;
    for (unsigned s = 1; s <= BCA_MAX_SHIFT; s++) {
        uint32_t cnt = values_needed(n, s, 1);
        if (cnt >= best_n) continue;
        uint32_t l = tail_start(n, s);
        for (uint32_t k = 0; k <= (l >> s); k++) run[k] = v[k << s];
        for (uint32_t f = l + 1; f < n; f++) run[(l >> s) + (f - l)] = v[f];
        int ok = 1;
        for (uint32_t f = 0; f < n && ok; f++)
            if (game_sample(ch, n, f, s, 1, run) != v[f]) ok = 0;
        if (ok) {
            best = s;
            best_n = cnt;
        }
    }
    if (best) {
        uint32_t l = tail_start(n, best);
        for (uint32_t k = 0; k <= (l >> best); k++) run[k] = v[k << best];
        for (uint32_t f = l + 1; f < n; f++) run[(l >> best) + (f - l)] = v[f];
    } else {
        memcpy(run, v, (size_t)n * sizeof *run);
    }
    *runlen = best_n;
    *aa = (uint8_t)best;
    *bb = 1;
}

static int loop_word(const ga_encode_ctx *ctx, uint32_t *out, ga_error *err)
{
    const ga_clip *c = ctx->clip;
    if (ctx->orig && c->loop == ctx->orig->loop && c->loop_raw_valid) {
        *out = (uint32_t)c->loop_raw;
        return GA_OK;
    }
    switch (c->loop) {
    case GA_LOOP_REPEAT:
    case -1: *out = 1; return GA_OK;
    case GA_LOOP_ONCE: *out = 0; return GA_OK;
    default:
        return ga_fail(err, GA_ERR_ENCODE, BCA_FMT, "loop", 4,
                       "loop mode %d cannot be stored: the BCA loop word means 'loop' (non-zero) or 'once' (0)",
                       c->loop);
    }
}

static int bca_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    const ga_clip *clip = ctx->clip;
    const bca_raw *raw = ctx->raw;
    ga_report *rep = ctx->report;
    int rc = GA_OK;

    uint32_t nb = 0;
    for (uint32_t i = 0; i < clip->ntracks; i++) {
        const ga_track *t = &clip->tracks[i];
        if (t->target_name)
            return ga_fail(err, GA_ERR_ENCODE, BCA_FMT, "track target", -1,
                           "track %u targets '%s' by name; BCA targets are bone indices", i, t->target_name);
        if (t->target < 0 || t->target > 0xFFFE)
            return ga_fail(err, GA_ERR_ENCODE, BCA_FMT, "track target", -1,
                           "track %u: bone %d is outside 0..65534", i, t->target);
        if (t->channel > GA_CH_TRANSLATION || t->axis > 2)
            return ga_fail(err, GA_ERR_ENCODE, BCA_FMT, "track channel", -1,
                           "track %u: BCA stores scale, Euler rotation and translation on axes x, y, z", i);
        if ((uint32_t)t->target + 1 > nb) nb = (uint32_t)t->target + 1;
    }
    if (raw && raw->lay.nbones > nb) nb = raw->lay.nbones;
    if (nb == 0)
        return ga_fail(err, GA_ERR_ENCODE, BCA_FMT, "bone count", -1,
                       "no tracks: a BCA animates at least one bone");

    double fc = clip->frame_count;
    if (!isfinite(fc) || nearbyint(fc) < 1.0 || nearbyint(fc) > 65535.0)
        return ga_fail(err, GA_ERR_ENCODE, BCA_FMT, "frame count", -1,
                       "frame count %g: a BCA holds 1..65535 whole frames", fc);
    uint32_t n = (uint32_t)nearbyint(fc);
    uint32_t lw = 1;
    rc = loop_word(ctx, &lw, err);
    if (rc) return rc;
    if (nearbyint(fc) != fc) ga_report_note(rep, "frame count %g rounded to %u (BCA stores whole frames)", fc, n);
    if (clip->fps != 0.0 && clip->fps != BCA_FPS)
        ga_report_note(rep, "fps %g is not stored: SM64DS plays BCA animations at 30 frames per second", clip->fps);

    int same_frames = raw && raw->lay.nframes == n;
    /* Only the header changed: patch the loop word in the original bytes. */
    if (raw && same_frames && ctx->orig && clip->ntracks == ctx->orig->ntracks) {
        int same = 1;
        for (uint32_t i = 0; i < clip->ntracks && same; i++)
            if (ctx->orig_track[i] != (int32_t)i) same = 0;
        if (same) {
            if (ga_buf_put(out, raw->file, raw->size)) return ga_nomem(err, BCA_FMT);
            ga_buf_set_u32le(out, out->len - raw->size + 4, lw);
            rep->reused_tracks = clip->ntracks;
            return GA_OK;
        }
    }

    size_t nslots = (size_t)nb * 9;
    int32_t *slot = malloc(nslots * sizeof *slot);
    uint8_t *daa = calloc(nslots, 1), *dbb = calloc(nslots, 1);
    uint16_t *dcc = calloc(nslots, sizeof *dcc);
    int32_t *vals = malloc(((size_t)n + 1) * sizeof *vals);
    int32_t *run = malloc(((size_t)n + 1) * sizeof *run);
    uint32_t *elems = malloc(((size_t)n + 1) * sizeof *elems);
    ga_pool pools[3];
    memset(pools, 0, sizeof pools);
    if (!slot || !daa || !dbb || !dcc || !vals || !run || !elems) {
        rc = ga_nomem(err, BCA_FMT);
        goto done;
    }
    for (int i = 0; i < 3; i++)
        if (ga_pool_init(&pools[i], BCA_POOL_MAX_OVERLAP)) {
            rc = ga_nomem(err, BCA_FMT);
            goto done;
        }
    for (size_t i = 0; i < nslots; i++) slot[i] = -1;
    for (uint32_t i = 0; i < clip->ntracks; i++) {
        const ga_track *t = &clip->tracks[i];
        size_t s = (size_t)t->target * 9 + (size_t)t->channel * 3 + t->axis;
        if (slot[s] >= 0) {
            char name[48];
            track_label(name, sizeof name, t->target, t->channel, t->axis);
            rc = ga_fail(err, GA_ERR_ENCODE, BCA_FMT, name, -1, "two tracks (%d and %u) animate the same channel",
                         slot[s], i);
            goto done;
        }
        slot[s] = (int32_t)i;
    }

    /* 1.0 at scale index 0, so that all-zero scale descriptors (the game's
     * fast path to exactly 1.0) agree with what the pool says. */
    {
        uint32_t one = BCA_ONE;
        if (ga_pool_place(&pools[0], &one, 1) != 0) {
            rc = ga_nomem(err, BCA_FMT);
            goto done;
        }
    }
    enc_stats st = {0, 0};
    for (uint32_t b = 0; b < nb && !rc; b++) {
        for (unsigned s = 0; s < 9 && !rc; s++) {
            unsigned ch = s / 3, axis = s % 3;
            size_t si = (size_t)b * 9 + s;
            int32_t ti = slot[si];
            uint32_t len = 0;
            uint8_t aa = 0, bb = 0;
            int reuse = 0;
            if (ti >= 0 && raw && same_frames && ctx->orig && ctx->orig_track[ti] >= 0 && b < raw->lay.nbones) {
                const ga_track *ot = &ctx->orig->tracks[ctx->orig_track[ti]];
                if ((uint32_t)ot->target == b && ot->channel == ch && ot->axis == axis) reuse = 1;
            }
            if (reuse) {
                const uint8_t *blk = raw->file + raw->lay.off[3] + (size_t)b * BCA_BLOCK;
                aa = blk[4 * s];
                bb = blk[4 * s + 1];
                if (ch == 0 && raw->fast[b]) {
                    /* the game gave exactly 1.0 without reading the pool */
                    bb = 0;
                    len = 1;
                    elems[0] = BCA_ONE;
                } else {
                    uint32_t cc = ga_get_u16le(blk + 4 * s + 2);
                    len = values_needed(n, aa, bb);
                    const uint8_t *p = raw->file + raw->lay.off[ch] + (size_t)cc * elem_size[ch];
                    for (uint32_t k = 0; k < len; k++)
                        elems[k] = ch == 1 ? ga_get_u16le(p + 2 * (size_t)k) : ga_get_u32le(p + 4 * (size_t)k);
                }
                rep->reused_tracks++;
            } else {
                if (ti >= 0) {
                    rc = quantise(&clip->tracks[ti], n, vals, &st, rep, err);
                    if (rc) break;
                    choose_rate((int)ch, vals, n, run, &len, &aa, &bb);
                    rep->encoded_tracks++;
                } else {
                    run[0] = ch == 0 ? BCA_ONE : 0;
                    len = 1;
                }
                for (uint32_t k = 0; k < len; k++)
                    elems[k] = ch == 1 ? (uint32_t)(run[k] & 0xFFFF) : (uint32_t)run[k];
            }
            long long at = ga_pool_place(&pools[ch], elems, len);
            if (at < 0) {
                rc = ga_nomem(err, BCA_FMT);
                break;
            }
            if (at > (long long)BCA_MAX_CC) {
                char name[48];
                track_label(name, sizeof name, (int32_t)b, ch, axis);
                rc = ga_fail(err, GA_ERR_ENCODE, BCA_FMT, name, -1,
                             "the %s pool outgrew the 65536 start positions a u16 index reaches", ch_names[ch]);
                break;
            }
            daa[si] = aa;
            dbb[si] = bb;
            dcc[si] = (uint16_t)at;
        }
    }
    if (rc) goto done;
    if (st.rounded)
        ga_report_note(rep,
                       "%u value(s) rounded to the BCA grid (1/4096 for scale and translation, 1/4096 turn for "
                       "rotation); worst error %g at %s",
                       st.rounded, rep->max_error, rep->max_error_where);
    if (st.wrapped)
        ga_report_note(rep,
                       "%u rotation value(s) beyond the s16 range were wrapped by whole turns (the game uses only "
                       "the low 12 bits)",
                       st.wrapped);

    /* Layout: header, scale pool, rotation pool, zero padding to 4,
     * translation pool, bone blocks. */
    size_t start = out->len;
    size_t o_scale = BCA_HEADER;
    size_t o_rot = o_scale + pools[0].n * 4;
    size_t o_trans = (o_rot + pools[1].n * 2 + 3) & ~(size_t)3;
    size_t o_bones = o_trans + pools[2].n * 4;
    if (o_bones + nslots * 4 > 0xFFFFFFFFu) {
        rc = ga_fail(err, GA_ERR_ENCODE, BCA_FMT, "file size", -1, "the file would exceed 4 GiB");
        goto done;
    }
    ga_buf_u16le(out, (uint16_t)nb);
    ga_buf_u16le(out, (uint16_t)n);
    ga_buf_u32le(out, lw);
    ga_buf_u32le(out, (uint32_t)o_scale);
    ga_buf_u32le(out, (uint32_t)o_rot);
    ga_buf_u32le(out, (uint32_t)o_trans);
    ga_buf_u32le(out, (uint32_t)o_bones);
    for (size_t i = 0; i < pools[0].n; i++) ga_buf_u32le(out, pools[0].v[i]);
    for (size_t i = 0; i < pools[1].n; i++) ga_buf_u16le(out, (uint16_t)pools[1].v[i]);
    ga_buf_fill(out, 0, o_trans - (out->len - start));
    for (size_t i = 0; i < pools[2].n; i++) ga_buf_u32le(out, pools[2].v[i]);
    for (size_t i = 0; i < nslots; i++) {
        ga_buf_u8(out, daa[i]);
        ga_buf_u8(out, dbb[i]);
        ga_buf_u16le(out, dcc[i]);
    }
    /* Bytes that followed the bone blocks in the original file stay. */
    if (raw && raw->lay.trailing) ga_buf_put(out, raw->file + raw->size - raw->lay.trailing, raw->lay.trailing);
    if (out->failed) rc = ga_nomem(err, BCA_FMT);

done:
    for (int i = 0; i < 3; i++) ga_pool_free(&pools[i]);
    free(slot);
    free(daa);
    free(dbb);
    free(dcc);
    free(vals);
    free(run);
    free(elems);
    return rc;
}

const ga_format ga_format_bca = {
    "bca",
    "Super Mario 64 DS bone animation (.bca, optionally LZ77-wrapped)",
    bca_probe,
    bca_decode,
    bca_encode,
    bca_free_raw,
    NULL,
    bca_info,
    NULL, /* every track applies */
    NULL, /* Track.evaluate: generic */
    {".bca", "joint", 1, "Y", "INDEX", "lz77", NULL, NULL, "sm64ds"},
};
