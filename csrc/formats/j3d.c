/* The J3D container, shared by every J3D animation kind (bck_btk.c,
 * brk_bpk.c, btp.c, bva.c, j3d_bca.c): the JSYSTEM file header and
 * probe, name tables (JUTNameTab), padding, the header fields every kind
 * reports, and the key-frame machinery of the key-framed kinds: the
 * runtime's Hermite evaluation and the key encoder. */
#include "j3d.h"
#include "fma.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char j3d_padding_text[] = "This is padding data to alignment.";

const char *const j3d_channel_names[3] = {"scale", "rotation", "translation"};

double j3d_rotation_unit(int frac)
{
    /* raw << frac is an s16 angle with 0x8000 = pi */
    return ldexp(3.14159265358979323846 / 32768.0, frac);
}

int j3d_probe(const uint8_t *data, size_t size, const char *kind)
{
    if (size < 8) return 0;
    if (memcmp(data, "J3D1", 4) != 0) return 0;
    if (memcmp(data + 4, kind, 4) != 0) return 0;
    return 100;
}

int j3d_read_names(const ga_reader *r, size_t at, uint32_t need, char ***names_out, uint8_t **ntab_out,
                   size_t *ntab_len, ga_error *err)
{
    uint16_t count;
    int rc = ga_rd_u16be(r, at, "name table count", &count);
    if (rc) return rc;
    if (count < need)
        return ga_fail(err, GA_ERR_FORMAT, r->format, "name table count", (long long)at,
                       "%u names for %u animations", count, need);
    rc = ga_need(r, at, 4 + (size_t)count * 4, "name table entries");
    if (rc) return rc;
    char **names = calloc(need ? need : 1, sizeof *names);
    if (!names) return ga_nomem(err, r->format);
    *names_out = names; /* (the caller frees need strings, NULL or not) */
    size_t end = at + 4 + (size_t)count * 4;
    for (uint32_t i = 0; i < count; i++) {
        size_t eoff = at + 4 + (size_t)i * 4;
        uint16_t soff = ga_get_u16be(r->data + eoff + 2);
        size_t p = at + soff;
        if (p >= r->size)
            return ga_fail(err, GA_ERR_FORMAT, r->format, "name table string offset",
                           (long long)eoff + 2, "string %u starts past the end of the data", i);
        const uint8_t *z = memchr(r->data + p, 0, r->size - p);
        if (!z)
            return ga_fail(err, GA_ERR_FORMAT, r->format, "name table string", (long long)p,
                           "string %u has no terminating NUL before the end of the data", i);
        size_t len = (size_t)(z - (r->data + p));
        if (len > GA_MAX_STRING)
            return ga_fail(err, GA_ERR_LIMIT, r->format, "name table string", (long long)p,
                           "string %u is %zu bytes, over the limit of %u", i, len, GA_MAX_STRING);
        if (p + len + 1 > end) end = p + len + 1;
        if (i < need) {
            names[i] = malloc(len + 1);
            if (!names[i]) return ga_nomem(err, r->format);
            memcpy(names[i], r->data + p, len);
            names[i][len] = 0;
        }
    }
    if (ntab_out) {
        *ntab_len = end - at;
        *ntab_out = malloc(*ntab_len);
        if (!*ntab_out) return ga_nomem(err, r->format);
        memcpy(*ntab_out, r->data + at, *ntab_len);
    }
    return GA_OK;
}

void j3d_put_padding(ga_buf *b, size_t align)
{
    /* Nintendo's tools pad with the first bytes of this sentence; pads
     * longer than it repeat it. */
    ga_buf_pad_text(b, 0, align, j3d_padding_text);
}

int j3d_seq_push(j3d_seq *s, uint32_t x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        uint32_t *v = realloc(s->v, cap * 4);
        if (!v) return GA_ERR_NOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return GA_OK;
}

/* ------------------------------------------------------------------ */
/* Header fields and edits every kind shares                           */

/* The JSYSTEM header fields every kind reports, in this order. */
int j3d_container_info(ga_info *info, uint32_t size_field, uint32_t blocks, const uint8_t *svr, uint32_t chunk_size,
                       long long chunk_delta, uint8_t loop)
{
    int rc = 0;
    rc |= ga_info_int(info, "file_size", size_field);
    rc |= ga_info_int(info, "block_count", blocks);
    rc |= ga_info_bytes(info, "header_0x10", svr, 16);
    rc |= ga_info_int(info, "chunk_size", chunk_size);
    rc |= ga_info_int(info, "chunk_size_delta", chunk_delta);
    rc |= ga_info_int(info, "loop_mode", loop);
    return rc;
}

int j3d_loop_byte(const ga_encode_ctx *ctx, uint8_t *out, ga_error *err, const char *fmt)
{
    const ga_clip *c = ctx->clip;
    if (ctx->orig && c->loop == ctx->orig->loop && c->loop_raw_valid) {
        *out = (uint8_t)c->loop_raw;
        return GA_OK;
    }
    if (c->loop < 0) {
        *out = 0;
        return GA_OK;
    }
    if (c->loop > 4) return ga_fail(err, GA_ERR_ENCODE, fmt, "loop mode", -1, "loop mode %d is not 0..4", c->loop);
    *out = (uint8_t)c->loop;
    return GA_OK;
}

int j3d_duration_field(const ga_clip *c, int16_t *out, ga_report *rep, ga_error *err, const char *fmt)
{
    double d = c->frame_count;
    if (!isfinite(d) || nearbyint(d) < -32768.0 || nearbyint(d) > 32767.0)
        return ga_fail(err, GA_ERR_ENCODE, fmt, "duration", -1,
                       "frame count %g does not fit the s16 duration field", d);
    if (nearbyint(d) != d) ga_report_note(rep, "frame count %g rounded to %g (the duration is whole frames)", d, nearbyint(d));
    *out = (int16_t)nearbyint(d);
    return GA_OK;
}

/* ------------------------------------------------------------------ */
/* The runtime's key evaluation                                         */

/* The runtime's two Hermite routines, operation for operation in single
 * precision with the fused multiply-adds of the PowerPC code, so that
 * sampled values are bit-identical to the game's (and rotations truncate
 * exactly where the game's do).  Both evaluate the same cubic; only the
 * order of operations (and so the rounding) differs.  (setup.py compiles
 * with -ffp-contract=off: the compiler must not fuse or split anything
 * else.)
 *
 * The fused multiply-adds are exact (core/fma.h: never the C library's
 * fmaf, which mingw-w64 gets wrong), in one of two builds of the routines
 * (j3d_hermite.h, included twice): with the FMA instruction, picked at run
 * time on x86-64 CPUs that have it (GCC or Clang, not macOS), and the
 * exact software fused multiply-add for the rest.  Their results are
 * bit-identical; the instruction is about three times faster. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__FMA__) && !defined(__APPLE__) && \
    !defined(GA_NO_FMA_DISPATCH)
#define J3D_FMA_DISPATCH 1
#endif

#define J3D_V(name) name##_sw
#define J3D_FMA(a, b, c) ga_fmaf(a, b, c)
#define J3D_ATTR
#include "j3d_hermite.h"
#undef J3D_V
#undef J3D_FMA
#undef J3D_ATTR
#ifdef J3D_FMA_DISPATCH
#define J3D_V(name) name##_hw
#define J3D_FMA(a, b, c) __builtin_fmaf(a, b, c)
#define J3D_ATTR __attribute__((target("fma")))
#include "j3d_hermite.h"
#undef J3D_V
#undef J3D_FMA
#undef J3D_ATTR
#endif

/* out[i]: the game's evaluation of the track (keys as the game stores
 * them) at frames[i]; s16_table: J3DHermiteInterpolationS. */
void j3d_game_eval_many(const ga_track *t, const double *frames, size_t n, float *out, int s16_table)
{
#ifdef J3D_FMA_DISPATCH
    if (__builtin_cpu_supports("fma")) {
        game_eval_many_hw(t, frames, n, out, s16_table);
        return;
    }
#endif
    game_eval_many_sw(t, frames, n, out, s16_table);
}

/* ------------------------------------------------------------------ */
/* The key encoder (BCK, BTK, BRK, BPK)                                 */

typedef struct jkey {
    double t, v, in, out;
} jkey;

/* The encoder's `btk` argument names the kind: 0 BCK, 1 BTK, or the
 * colour kinds J3D_KIND_BRK / J3D_KIND_BPK (s16 tables in colour units). */
const char *j3d_kind_fmt(int btk)
{
    return btk == J3D_KIND_BRK ? "brk" : btk == J3D_KIND_BPK ? "bpk" : btk ? "btk" : "bck";
}

void j3d_track_name(char *buf, size_t cap, int btk, const ga_track *t)
{
    /* called before the channel is validated: name a quaternion too */
    const char *ch = t->channel < 3 ? j3d_channel_names[t->channel] : t->channel == GA_CH_COLOR ? "color" : "rotation_quaternion";
    if (t->channel == GA_CH_COLOR)
        snprintf(buf, cap, "entry %d color %c", t->target, "RGBA"[t->axis % 4]);
    else if (btk)
        snprintf(buf, cap, "entry %d %s %c", t->target, ch, "STQW"[t->axis % 4]);
    else
        snprintf(buf, cap, "joint %d %s %c", t->target, ch, "XYZW"[t->axis % 4]);
}

/* Converts a track into J3D keys: linear segments become Hermite segments
 * with matching slopes, constant segments get a step key. */
static int track_keys(const ga_track *t, jkey **out, size_t *nout)
{
    size_t n = t->nkeys;
    jkey *k = malloc((2 * n + 1) * sizeof *k);
    if (!k) return GA_ERR_NOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        jkey *ki = &k[m++]; /* key i (a step key may follow it) */
        ki->t = t->time[i];
        ki->v = t->value[i];
        ki->in = t->in_slope[i];
        ki->out = t->out_slope[i];
        if (i > 0 && t->interp[i - 1] == GA_INTERP_LINEAR) {
            double dt = (double)t->time[i] - t->time[i - 1];
            ki->in = dt != 0.0 ? ((double)t->value[i] - t->value[i - 1]) / dt : 0.0;
        } else if (i > 0 && t->interp[i - 1] == GA_INTERP_CONSTANT) {
            ki->in = 0.0;
        }
        if (i + 1 < n) {
            double dt = (double)t->time[i + 1] - t->time[i];
            if (t->interp[i] == GA_INTERP_LINEAR) {
                ki->out = dt != 0.0 ? ((double)t->value[i + 1] - t->value[i]) / dt : 0.0;
            } else if (t->interp[i] == GA_INTERP_CONSTANT) {
                ki->out = 0.0;
                jkey *step = &k[m++]; /* holds the value up to the next key */
                step->t = t->time[i + 1];
                step->v = t->value[i];
                step->in = 0.0;
                step->out = 0.0;
            }
        }
    }
    *out = k;
    *nout = m;
    return GA_OK;
}

/* Encodes one track into an element run; sets count and tangent type. */
static int encode_track_keys(const ga_track *t, int btk, int frac, int orig_type, j3d_seq *seq,
                             uint16_t *count, uint16_t *type, ga_report *rep, ga_error *err);

/* Key reduction for baked data: a track whose keys are all joined by
 * straight lines (one key per frame, as a bake produces) is replaced by
 * Hermite keys fitted within the tolerance. */
static int encode_track(const ga_track *t, int btk, int frac, int orig_type, double tolerance, j3d_seq *seq,
                        uint16_t *count, uint16_t *type, ga_report *rep, ga_error *err)
{
    int dense = tolerance > 0.0 && t->nkeys >= 3;
    for (uint32_t k = 0; dense && k + 1 < t->nkeys; k++)
        if (t->interp[k] != GA_INTERP_LINEAR || !(t->time[k + 1] > t->time[k])) dense = 0;
    if (!dense) return encode_track_keys(t, btk, frac, orig_type, seq, count, type, rep, err);
    /* A sampled track may carry the slopes of the curve it was sampled
     * from (an exporter knows them); then they guide the fit. */
    int has_slopes = 0;
    for (uint32_t k = 0; k < t->nkeys && !has_slopes; k++)
        if (t->in_slope[k] != 0.0f || t->out_slope[k] != 0.0f) has_slopes = 1;
    size_t nb = t->nkeys * sizeof(double);
    double *tt = malloc(nb), *vv = malloc(nb), *si = malloc(nb), *so = malloc(nb);
    if (!tt || !vv || !si || !so) {
        free(tt);
        free(vv);
        free(si);
        free(so);
        return ga_nomem(err, j3d_kind_fmt(btk));
    }
    for (uint32_t k = 0; k < t->nkeys; k++) {
        tt[k] = t->time[k];
        vv[k] = t->value[k];
        si[k] = t->in_slope[k];
        so[k] = t->out_slope[k];
    }
    ga_track fitted;
    memset(&fitted, 0, sizeof fitted);
    int rc = ga_fit_hermite(tt, vv, has_slopes ? si : NULL, has_slopes ? so : NULL, t->nkeys, tolerance, &fitted,
                            err);
    free(tt);
    free(vv);
    free(si);
    free(so);
    if (rc) return rc;
    fitted.target = t->target;
    fitted.channel = t->channel;
    fitted.axis = t->axis;
    rc = encode_track_keys(&fitted, btk, frac, orig_type, seq, count, type, rep, err);
    ga_track_free(&fitted);
    return rc;
}

/* Whether storing `back` for the value v rounds it beyond float noise: a
 * decoded value (the float32 of its step) or one computed in float32 from
 * whole steps lies within a few float32 ulps of the step, and is not
 * reported as rounded. */
static int beyond_float_noise(double v, double back)
{
    return fabs(v - back) > 4.0 * FLT_EPSILON * fmax(fabs(back), fabs(v));
}

static int encode_track_keys(const ga_track *t, int btk, int frac, int orig_type, j3d_seq *seq,
                             uint16_t *count, uint16_t *type, ga_report *rep, ga_error *err)
{
    const char *fmt = j3d_kind_fmt(btk);
    char name[96];
    j3d_track_name(name, sizeof name, btk, t);
    /* rotations and colours live in s16 tables (colours in their own units) */
    int rot = t->channel == GA_CH_ROTATION || t->channel == GA_CH_COLOR;
    double unit = t->channel == GA_CH_COLOR ? 1.0 : j3d_rotation_unit(frac);
    *type = 0;
    if (t->nkeys == 0) {
        *count = 0;
        return GA_OK;
    }
    if (t->nkeys == 1) {
        *count = 1;
        if (rot) {
            double q = j3d_raw_of(t->value[0], unit);
            if (!(q >= -32768.0 && q <= 32767.0)) {
                if (t->channel == GA_CH_COLOR)
                    return ga_fail(err, GA_ERR_ENCODE, fmt, name, -1, "colour %g does not fit an s16", t->value[0]);
                return ga_fail(err, GA_ERR_ENCODE, fmt, name, -1,
                               "rotation %g rad does not fit an s16 at rotation shift %d", t->value[0], frac);
            }
            if (beyond_float_noise(t->value[0], q * unit)) rep->nrounded++;
            ga_report_error(rep, t->value[0] - q * unit, "%s frame 0", name);
            return j3d_seq_push(seq, (uint16_t)(int16_t)q);
        }
        return j3d_seq_push(seq, ga_f32_bits(t->value[0]));
    }
    jkey *k;
    size_t n;
    if (track_keys(t, &k, &n)) return ga_nomem(err, fmt);
    if (n > 65535) {
        free(k);
        return ga_fail(err, GA_ERR_ENCODE, fmt, name, -1, "%zu keys exceed the 65535 a key table holds", n);
    }
    int symmetric = 1;
    for (size_t i = 0; i < n; i++)
        if (ga_f32_bits((float)k[i].in) != ga_f32_bits((float)k[i].out) &&
            !(rot && j3d_raw_of(k[i].in, unit) == j3d_raw_of(k[i].out, unit)))
            symmetric = 0;
    /* Tangent type: keep a file's type 1; otherwise 0 when one tangent per
     * key says everything. */
    int tt = (orig_type > 0 || !symmetric) ? 1 : 0;
    *type = (uint16_t)(orig_type > 0 ? orig_type : tt);
    *count = (uint16_t)n;
    int rc = GA_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        double e[4] = {k[i].t, k[i].v, k[i].in, k[i].out};
        int ne = tt ? 4 : 3;
        for (int j = 0; j < ne && !rc; j++) {
            if (rot) {
                double q = j == 0 ? nearbyint(e[j]) : j3d_raw_of(e[j], unit);
                if (!(q >= -32768.0 && q <= 32767.0)) {
                    if (t->channel == GA_CH_COLOR)
                        rc = ga_fail(err, GA_ERR_ENCODE, fmt, name, -1, "key %zu at frame %g: %s %g does not fit an s16",
                                     i, k[i].t, j == 0 ? "time" : j == 1 ? "value" : "slope", e[j]);
                    else
                        rc = ga_fail(err, GA_ERR_ENCODE, fmt, name, -1,
                                     "key %zu at frame %g: %s %g does not fit an s16 at rotation shift %d", i, k[i].t,
                                     j == 0 ? "time" : j == 1 ? "value" : "slope", e[j], frac);
                    break;
                }
                double back = j == 0 ? q : q * unit;
                if (beyond_float_noise(e[j], back)) {
                    rep->nrounded++;
                    if (j == 0)
                        ga_report_note(rep, "%s: key time %g rounded to the whole frame %g (rotation keys store s16 frames)",
                                       name, e[j], q);
                }
                if (j == 1) ga_report_error(rep, e[j] - back, "%s frame %g", name, k[i].t);
                rc = j3d_seq_push(seq, (uint16_t)(int16_t)q);
            } else {
                rc = j3d_seq_push(seq, ga_f32_bits((float)e[j]));
            }
        }
    }
    free(k);
    if (rc == GA_ERR_NOMEM) return ga_nomem(err, fmt);
    return rc;
}

int j3d_encode_keys(const ga_track *t, int kind, int frac, int orig_type, double tolerance, j3d_seq *seq,
                    uint16_t *count, uint16_t *type, ga_report *rep, ga_error *err)
{
    return encode_track(t, kind, frac, orig_type, tolerance, seq, count, type, rep, err);
}
