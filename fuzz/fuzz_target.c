/* libFuzzer targets, one binary per format and per decompressor (see
 * fuzz/build.sh):
 *   FORMAT targets: decode; on success also encode the clip from scratch
 *     (no original data to lean on), decode that, and require the same
 *     tracks; and encode through the raw record (partial edit path).
 *   WRAPPER targets: unwrap; on success wrap and unwrap again and require
 *     the same bytes.
 *   LOAD target: the whole detection path (gameanim.load in C).
 *   BAKE target: baking (core/bake.c) of a loaded file's clip, or of a clip
 *     made from the bytes, onto random bones, and the way back
 *     (ga_local_from_basis) from the baked channels under random matrices.
 *   MODEL target: ga_load_model (models/, through the wrappers): on
 *     success every parent is -1 or another bone and following parents
 *     ends at a root, names, chunks and tables lie inside what was
 *     decoded, and the rest-pose matrices are computed (rules of
 *     core/skeleton.c) without a memory error.  Then the writer: the
 *     file written back (to_bytes: m->data, in the wrapper it came in)
 *     loads again; a J3D model regenerates (models/j3d_regenerate.h), the
 *     result loads with the same skeleton, envelopes and draw table, and
 *     regenerating that gives the same bytes.
 *     core/skeleton.c) without a memory error; J3D models go through
 *     the game-acceptance lint (models/j3d_check.h), which must return
 *     at most its limit of NUL-terminated problems.
 *   ARCHIVE target (rarc): open an archive (RARC / CRAR, wrapped or
 *     not), read every member, replace members with bytes of the input
 *     (growing, shrinking); every rewrite must parse again with the same
 *     members, the replaced one holding the new bytes and every other its
 *     old bytes.
 *   EDIT target: the edit policy (core/edit.c): a loaded file, its clip
 *     edited at random, planned and encoded in every reencode mode; an
 *     unedited clip must plan as unchanged, and whatever encodes must
 *     decode again.
 * Any crash, sanitizer report, leak or failed invariant aborts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gameanim.h"
#ifdef GA_FUZZ_MODEL
#include "model.h"
#include "../csrc/models/gx_tev.h"
#include "../csrc/models/j3d_mesh_write.h"
#include "../csrc/models/j3d_regenerate.h"
#include "../csrc/models/j3d_mat3.h"
#include "../csrc/models/j3d_mdl3.h"
#include "../csrc/models/j3d_writer.h"
#include "../csrc/models/j3d_check.h"
#include "../csrc/models/j3d_tex1_writer.h"
#include "../csrc/models/gx_texture.h"
#endif
#ifdef GA_FUZZ_ARCHIVE
#include "../csrc/archives/archive.h"
#endif
#if defined(GA_FUZZ_BAKE) || defined(GA_FUZZ_EDIT)
#include "bake.h"
#include "edit.h"
#include "pose.h"
#endif

void ga_fuzz_use_system_zlib(void);

#if defined(GA_FUZZ_FORMAT) || defined(GA_FUZZ_WRAPPER) || defined(GA_FUZZ_EDIT) || defined(GA_FUZZ_ARCHIVE)
/* The first decode of the fuzzer's bytes runs under the default
 * decoded-size limit (NULL options); what they encode to may be smaller
 * than they were, so the checks that decode it again lift the limit. */
static const ga_decode_opts lifted = {.max_decoded_size = UINT64_MAX};
#endif

#if defined(GA_FUZZ_BAKE) || defined(GA_FUZZ_EDIT)
/* Random choices that depend on the input alone (libFuzzer replays an
 * input exactly): splitmix64 seeded from the bytes. */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static rng rng_from(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 0x100000001b3ULL;
    rng r = {h};
    return r;
}

/* Mostly ordinary numbers, sometimes any bit pattern (NaN, infinities,
 * subnormals), as a Python caller may pass. */
static float rng_float(rng *r)
{
    uint64_t v = rng_next(r);
    if ((v & 7) == 0) {
        uint32_t bits = (uint32_t)(v >> 32);
        float f;
        memcpy(&f, &bits, 4);
        return f;
    }
    return (float)((double)(int32_t)(v >> 32) / 2147483648.0 * 4.0);
}
#endif

#ifdef GA_FUZZ_FORMAT
/* Equal within tol relative to the magnitude, plus an absolute allowance
 * (the quantisation error an encoder reported for a lossy re-encode). */
static int same_float(float a, float b, double tol, double abs_tol)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b)) return a == b;
    double d = fabs((double)a - (double)b);
    return d <= tol * (1.0 + fabs((double)a)) + abs_tol;
}

static int track_key_cmp(const ga_track *x, const ga_track *y)
{
    int xn = x->target_name != NULL, yn = y->target_name != NULL;
    if (xn != yn) return xn - yn;
    if (xn) {
        int c = strcmp(x->target_name, y->target_name);
        if (c) return c;
    } else if (x->target != y->target) {
        return x->target < y->target ? -1 : 1;
    }
    if (x->channel != y->channel) return x->channel - y->channel;
    return x->axis - y->axis;
}

static const ga_track *sort_base;
static int idx_cmp(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    int c = track_key_cmp(&sort_base[i], &sort_base[j]);
    return c ? c : (i < j ? -1 : i > j);
}

static uint32_t *sorted_order(const ga_clip *c)
{
    uint32_t *o = malloc(((size_t)c->ntracks + 1) * sizeof *o);
    if (!o) abort();
    for (uint32_t i = 0; i < c->ntracks; i++) o[i] = i;
    sort_base = c->tracks;
    qsort(o, c->ntracks, sizeof *o, idx_cmp);
    return o;
}

/* Same tracks, compared in (target, channel, axis) order: an encoder may
 * write channels in its own canonical order (BK sorts new files). */
static void check_same_tracks(const ga_clip *a, const ga_clip *b, const char *what, double abs_tol)
{
    if (a->ntracks != b->ntracks) {
        fprintf(stderr, "%s: %u tracks became %u\n", what, a->ntracks, b->ntracks);
        abort();
    }
    uint32_t *oa = sorted_order(a), *ob = sorted_order(b);
    for (uint32_t n = 0; n < a->ntracks; n++) {
        const ga_track *x = &a->tracks[oa[n]], *y = &b->tracks[ob[n]];
        int same = track_key_cmp(x, y) == 0;
        /* An encoder may store the same curve with other keys (BCA writes
         * a flat animated track as a constant): compare the curves at every
         * key time of both, between them and outside them. */
        for (int pass = 0; same && pass < 2; pass++) {
            const ga_track *src = pass ? y : x;
            for (uint32_t k = 0; same && k <= src->nkeys; k++) {
                double f0 = k < src->nkeys ? src->time[k] : (src->nkeys ? src->time[src->nkeys - 1] + 1.0 : 0.0);
                double fs[3] = {f0, f0 + 0.5, f0 - 0.25};
                for (int j = 0; same && j < 3; j++)
                    same = same_float((float)ga_track_eval(x, fs[j]), (float)ga_track_eval(y, fs[j]), 1e-4, abs_tol);
            }
        }
        if (!same) {
            fprintf(stderr, "%s: track %u differs after decode -> encode -> decode\n", what, oa[n]);
            abort();
        }
    }
    free(oa);
    free(ob);
}

#endif

#ifdef GA_FUZZ_FORMAT
static void fuzz_format(const uint8_t *data, size_t size)
{
    const ga_format *f = ga_format_by_name(GA_FUZZ_FORMAT);
    if (!f) abort();
    ga_error err;
    ga_clip clip;
    void *raw = NULL;
    if (f->decode(data, size, NULL, &raw, &clip, &err) != GA_OK) return;
    /* sampling never fails on a decoded clip, also where a sampler reads
     * the decoded file (JBA's shared frames: the half frames) */
    double frames[37] = {-1.5, 0.0, 0.5, clip.frame_count, clip.frame_count + 2.0};
    for (int k = 5; k < 37; k++) frames[k] = (double)(k - 5) + 0.5;
    float out[37];
    clip.decoded_raw = raw;
    clip.decoded = &clip;
    for (uint32_t i = 0; i < clip.ntracks && i < 64; i++) {
        if (f->sample) {
            if (f->sample(&clip, i, frames, 37, out, &err) != GA_OK) abort();
        } else {
            for (int k = 0; k < 37; k++) out[k] = (float)ga_track_eval(&clip.tracks[i], frames[k]);
        }
    }
    clip.decoded_raw = NULL;
    clip.decoded = NULL;
    int32_t *map = malloc(((size_t)clip.ntracks + 1) * sizeof *map);
    if (!map) abort();
    ga_report rep;
    /* 1. through the raw record with every track unchanged */
    for (uint32_t i = 0; i < clip.ntracks; i++) map[i] = (int32_t)i;
    ga_report_init(&rep);
    ga_encode_ctx ctx = {raw, &clip, &clip, map, 0, 0.0, &rep};
    ga_buf b;
    ga_buf_init(&b);
    if (f->encode(&ctx, &b, &err) == GA_OK) {
        ga_clip c2;
        void *raw2 = NULL;
        if (f->decode(b.data, b.len, &lifted, &raw2, &c2, &err) != GA_OK) {
            fprintf(stderr, "re-decode of a raw-record encode failed: %s\n", err.message);
            abort();
        }
        check_same_tracks(&clip, &c2, "raw-record encode", 0.0);
        f->free_raw(raw2);
        ga_clip_free(&c2);
    }
    ga_buf_free(&b);
    /* 2. from scratch: the encoder must write what it decoded */
    for (uint32_t i = 0; i < clip.ntracks; i++) map[i] = -1;
    ga_report_init(&rep);
    ga_encode_ctx fresh = {NULL, NULL, &clip, map, 1, 0.0, &rep};
    ga_buf_init(&b);
    if (f->encode(&fresh, &b, &err) == GA_OK) {
        ga_clip c3;
        void *raw3 = NULL;
        if (f->decode(b.data, b.len, &lifted, &raw3, &c3, &err) != GA_OK) {
            fprintf(stderr, "re-decode of a fresh encode failed: %s\n", err.message);
            abort();
        }
        /* A quantised format (JBA) may put decoded values on another grid
         * when it encodes from scratch: allow exactly the error the
         * encoder reported, so an encoder that misreports still fails. */
        check_same_tracks(&clip, &c3, "fresh encode", rep.max_error * (1.0 + 1e-6));
        f->free_raw(raw3);
        ga_clip_free(&c3);
    }
    ga_buf_free(&b);
    free(map);
    f->free_raw(raw);
    ga_clip_free(&clip);
}
#endif

#ifdef GA_FUZZ_WRAPPER
static void fuzz_wrapper(const uint8_t *data, size_t size)
{
    const ga_wrapper *w = ga_wrapper_by_name(GA_FUZZ_WRAPPER);
    if (!w) abort();
    ga_error err;
    uint8_t *out = NULL;
    size_t n = 0;
    if (w->unwrap(data, size, NULL, &out, &n, &err) != GA_OK) return;
    ga_buf b;
    ga_buf_init(&b);
    if (w->wrap(out, n, &b, &err) == GA_OK) {
        uint8_t *back = NULL;
        size_t m = 0;
        if (w->unwrap(b.data, b.len, &lifted, &back, &m, &err) != GA_OK || m != n ||
            (n && memcmp(back, out, n) != 0)) {
            fprintf(stderr, "%s: unwrap(wrap(x)) != x\n", w->name);
            abort();
        }
        free(back);
    }
    ga_buf_free(&b);
    free(out);
}
#endif

#ifdef GA_FUZZ_ARCHIVE
static const uint8_t *member_bytes(const ga_archive *a, size_t i)
{
    return a->data + a->data_start + a->members[i].data_off;
}

/* After replacing member m of `before` with new[0..n): `after` lists the
 * same paths, m reads the new bytes, every other member its old ones. */
static void check_rewrite(const ga_archive *before, const ga_archive *after, size_t m, const uint8_t *new, size_t n)
{
    if (after->nmembers != before->nmembers) abort();
    for (size_t i = 0; i < before->nmembers; i++) {
        const ga_arc_member *x = &before->members[i], *y = &after->members[i];
        if (x->path_len != y->path_len || memcmp(before->paths + x->path_off, after->paths + y->path_off, x->path_len))
            abort();
        if (i == m) {
            if (y->size != n || (n && memcmp(member_bytes(after, i), new, n))) abort();
        } else if (x->size != y->size || x->id != y->id ||
                   (x->size && memcmp(member_bytes(before, i), member_bytes(after, i), x->size))) {
            fprintf(stderr, "rarc: replacing member %zu changed member %zu\n", m, i);
            abort();
        }
    }
}

static void fuzz_archive(const uint8_t *data, size_t size)
{
    ga_archive a;
    ga_error err;
    if (ga_archive_open(data, size, NULL, &a, &err) != GA_OK) return;
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < a.nmembers; i++)
        if (a.members[i].size) sink ^= member_bytes(&a, i)[a.members[i].size - 1];
    (void)sink;
    /* a few members, each replaced by a slice of the input of a length
     * the input chooses: longer, shorter, empty */
    for (size_t k = 0; k < a.nmembers && k < 4; k++) {
        size_t m = (k * 7 + size) % a.nmembers;
        size_t n = (size_t)data[(k * 13) % size] * (k + 1) * 3 % (size + 1);
        ga_buf out;
        ga_buf_init(&out);
        if (ga_archive_replace(&a, m, data, n, &out, &err) == GA_OK) {
            ga_archive b;
            if (ga_archive_parse(out.data, out.len, &lifted, &b, &err) != GA_OK) {
                fprintf(stderr, "rarc: a rewrite does not parse: %s\n", err.message);
                abort();
            }
            check_rewrite(&a, &b, m, data, n);
            ga_archive_free(&b);
        }
        ga_buf_free(&out);
    }
    ga_archive_free(&a);
}
#endif

#ifdef GA_FUZZ_BAKE
/* A clip of the given format made from the bytes: up to 12 tracks of up
 * to 8 keys on targets 0..3 (or names "b0".."b3" for JBA). */
static void clip_from_bytes(rng *r, const ga_format *f, ga_clip *c)
{
    ga_error err;
    ga_clip_init(c, f->name);
    c->frame_count = (double)(rng_next(r) % 64);
    uint32_t nt = (uint32_t)(rng_next(r) % 13);
    if (ga_clip_alloc_tracks(c, nt, &err)) abort();
    int named = f->traits.target_kind && strcmp(f->traits.target_kind, "bone_name") == 0;
    for (uint32_t i = 0; i < nt; i++) {
        ga_track *t = &c->tracks[i];
        uint64_t v = rng_next(r);
        t->channel = (uint8_t)(v % 4);
        t->axis = (uint8_t)((v >> 8) % (t->channel == GA_CH_ROTATION_QUATERNION ? 4 : 3));
        int bone = (int)((v >> 16) % 4);
        if (named) {
            char name[8];
            snprintf(name, sizeof name, "b%d", bone);
            t->target_name = ga_strdup(name);
            if (!t->target_name) abort();
            t->target = -1;
        } else {
            t->target = bone;
        }
        uint32_t nk = (uint32_t)((v >> 24) % 9);
        if (ga_track_alloc(t, nk, &err)) abort();
        float time = 0.0f;
        for (uint32_t k = 0; k < nk; k++) {
            /* mostly increasing times, as files hold them */
            time += (rng_next(r) & 3) ? 1.0f + (float)(rng_next(r) % 8) : rng_float(r);
            t->time[k] = time;
            t->value[k] = rng_float(r);
            t->in_slope[k] = rng_float(r);
            t->out_slope[k] = rng_float(r);
            t->interp[k] = (uint8_t)(rng_next(r) % 3);
        }
    }
}

static void random_matrix(rng *r, double m[16])
{
    switch (rng_next(r) % 4) {
    case 0:
        ga_mat_identity(m);
        break;
    case 1: {
        /* a rest transform: translation, rotation, positive scale */
        double t[3], e[3], s[3], q[4];
        for (int i = 0; i < 3; i++) {
            t[i] = rng_float(r);
            e[i] = rng_float(r);
            s[i] = 0.25 + (double)(rng_next(r) % 8) / 4.0;
        }
        ga_quat_from_euler_xyz(e, q);
        ga_mat_from_trs(t, q, s, m);
        break;
    }
    default:
        for (int i = 0; i < 16; i++) m[i] = rng_float(r);
        break;
    }
}

static void fuzz_bake(const uint8_t *data, size_t size)
{
    rng r = rng_from(data, size);
    ga_loaded l;
    ga_error err;
    const ga_format *f;
    ga_clip synth;
    const ga_clip *c;
    int loaded = ga_load(data, size, NULL, &l, &err) == GA_OK;
    if (loaded) {
        f = l.format;
        c = &l.clip;
    } else {
        size_t nf = 0;
        while (ga_formats[nf]) nf++;
        f = ga_formats[size ? data[0] % nf : 0];
        clip_from_bytes(&r, f, &synth);
        c = &synth;
    }
    uint8_t *keep = malloc((size_t)c->ntracks + 1);
    if (!keep) abort();
    if (ga_applied_tracks(f, c, keep, &err) != GA_OK) abort();
    size_t nf = 1 + (size_t)(rng_next(&r) % 24);
    double *frames = malloc(nf * sizeof *frames);
    float *samples = malloc(nf * 13 * sizeof *samples);
    float *baked = malloc(nf * 20 * sizeof *baked);
    float *chan = malloc(nf * 10 * sizeof *chan);
    float *back = malloc(nf * 13 * sizeof *back);
    if (!frames || !samples || !baked || !chan || !back) abort();
    for (size_t i = 0; i < nf; i++)
        frames[i] = (rng_next(&r) & 7) ? (double)i * (c->frame_count + 1.0) / (double)nf - 0.5 : rng_float(&r);
    for (int b = 0; b < 4; b++) {
        ga_bake_bone bone;
        random_matrix(&r, bone.pre);
        random_matrix(&r, bone.post);
        const char *name = NULL;
        char nm[8];
        if (loaded && c->ntracks && c->tracks[0].target_name) {
            /* a bone the file names */
            name = c->tracks[rng_next(&r) % c->ntracks].target_name;
        } else if (!loaded && c->ntracks && c->tracks[0].target_name) {
            snprintf(nm, sizeof nm, "b%d", b);
            name = nm;
        }
        ga_bake_find_tracks(c, keep, name, b, &bone);
        float *o[10];
        for (int k = 0; k < 10; k++) o[k] = baked + (size_t)k * 2 * nf;
        if (ga_bake_one_bone(c, f, &bone, frames, nf, 1.0 + (double)(rng_next(&r) % 4), 1.0, 0.0, samples, o,
                             &err) != GA_OK) {
            /* only a sampler may fail, and only with a format error */
            if (err.code != GA_ERR_FORMAT) abort();
            continue;
        }
        for (int k = 0; k < 10; k++) {
            (void)ga_values_one_number(o[k], nf);
            for (size_t i = 0; i < nf; i++) chan[(size_t)k * nf + i] = o[k][2 * i + 1];
        }
        /* and back, as an exporter does: location, quaternion, scale */
        double ipre[16], ipost[16];
        if (!ga_mat_invert(bone.pre, ipre)) ga_mat_identity(ipre);
        if (!ga_mat_invert(bone.post, ipost)) ga_mat_identity(ipost);
        const float *L[3] = {chan, chan + nf, chan + 2 * nf};
        const float *R[4] = {chan + 3 * nf, chan + 4 * nf, chan + 5 * nf, chan + 6 * nf};
        const float *S[3] = {chan + 7 * nf, chan + 8 * nf, chan + 9 * nf};
        static const char *const orders[6] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};
        int kind = (int)(rng_next(&r) % 3);
        double skew;
        size_t skew_at;
        ga_local_from_basis(ipre, ipost, kind, orders[rng_next(&r) % 6], L, R, S, nf, 1.0, back, &skew, &skew_at);
        if (skew_at >= nf) abort();
    }
    free(frames);
    free(samples);
    free(baked);
    free(chan);
    free(back);
    free(keep);
    if (loaded) ga_loaded_free(&l);
    else ga_clip_free(&synth);
}
#endif

#ifdef GA_FUZZ_EDIT
/* Edits a clip the way a user of the binding can: key values, times and
 * slopes, interpolation, dropped or duplicated tracks, header fields. */
static int perturb(rng *r, ga_clip *c)
{
    ga_error err;
    int nops = (int)(rng_next(r) % 4);
    for (int op = 0; op < nops; op++) {
        uint64_t v = rng_next(r);
        uint32_t i = c->ntracks ? (uint32_t)((v >> 8) % c->ntracks) : 0;
        ga_track *t = c->ntracks ? &c->tracks[i] : NULL;
        switch (v % 6) {
        case 0:
        case 1:
            if (t && t->nkeys) {
                uint32_t k = (uint32_t)((v >> 40) % t->nkeys);
                float *arr[4] = {t->value, t->time, t->in_slope, t->out_slope};
                float *a = arr[(v >> 32) % 4];
                a[k] = (v >> 36) & 1 ? rng_float(r) : a[k] + 1.0f;
                if ((v >> 37) & 1) t->interp[k] = (uint8_t)((v >> 38) % 3);
            }
            break;
        case 2:
            if (t) {
                /* drop the track */
                ga_track_free(t);
                memmove(t, t + 1, (size_t)(c->ntracks - i - 1) * sizeof *t);
                c->ntracks--;
            }
            break;
        case 3:
            if (t && c->ntracks < 4096) {
                /* duplicate a track at the end */
                ga_track *nt = realloc(c->tracks, ((size_t)c->ntracks + 1) * sizeof *nt);
                if (!nt) abort();
                c->tracks = nt;
                if (ga_track_copy(&c->tracks[c->ntracks], &c->tracks[i], &err)) abort();
                c->ntracks++;
            }
            break;
        case 4:
            c->frame_count += 1.0;
            break;
        default:
            c->loop = (int)((v >> 8) % 6) - 1;
            break;
        }
    }
    return nops;
}

static void fuzz_edit(const uint8_t *data, size_t size)
{
    ga_loaded l;
    ga_error err;
    if (ga_load(data, size, NULL, &l, &err) != GA_OK) return;
    rng r = rng_from(data, size);
    const ga_format *f = l.format;
    ga_clip c;
    if (ga_clip_copy(&c, &l.clip, &err)) abort();
    if (ga_clip_modified(&c, &l.clip)) {
        fprintf(stderr, "an unedited copy counts as modified\n");
        abort();
    }
    int edited = perturb(&r, &c) > 0;
    c.decoded_raw = l.raw;
    c.decoded = &l.clip;
    for (int mode = GA_REENCODE_NONE; mode <= GA_REENCODE_FULL; mode++) {
        ga_edit plan;
        if (ga_edit_plan(&c, &l.clip, mode, &plan, &err)) abort();
        if (!edited && mode == GA_REENCODE_NONE && !plan.unchanged) {
            fprintf(stderr, "an unedited clip plans an encode\n");
            abort();
        }
        if (!plan.unchanged) {
            ga_report rep;
            ga_report_init(&rep);
            ga_buf b;
            ga_buf_init(&b);
            int rc = ga_edit_encode(f, &plan, l.raw, &l.clip, &c, mode, 0.0, &rep, &b, &err);
            if (rc == GA_OK && !b.failed) {
                ga_clip c2;
                void *raw2 = NULL;
                if (f->decode(b.data, b.len, &lifted, &raw2, &c2, &err) != GA_OK) {
                    fprintf(stderr, "%s: an encode (reencode mode %d) does not decode: %s\n", f->name, mode,
                            err.message);
                    abort();
                }
                if (!edited && mode == GA_REENCODE_RAW && c2.ntracks != c.ntracks) {
                    fprintf(stderr, "%s: a raw re-encode of an unedited clip has %u tracks, not %u\n", f->name,
                            c2.ntracks, c.ntracks);
                    abort();
                }
                f->free_raw(raw2);
                ga_clip_free(&c2);
            } else if (rc != GA_OK && rc == GA_ERR_FORMAT) {
                /* an encoder reports what it cannot write as an encode error */
                fprintf(stderr, "%s: encode failed with a format error: %s\n", f->name, err.message);
                abort();
            }
            ga_buf_free(&b);
        }
        ga_edit_free(&plan);
    }
    c.decoded_raw = NULL;
    c.decoded = NULL;
    ga_clip_free(&c);
    ga_loaded_free(&l);
}
#endif

#ifdef GA_FUZZ_MODEL
static void geometry_error(int rc, const ga_error *err, const char *what)
{
    if (rc != GA_ERR_FORMAT && rc != GA_ERR_LIMIT && rc != GA_ERR_NOMEM) {
        fprintf(stderr, "%s: unexpected error %d: %s\n", what, rc, err->message);
        abort();
    }
}

/* Meshes, textures and materials: what decodes holds together (indices in
 * range, buffers of their sizes); anything else is a FormatError. */
static void fuzz_geometry(const ga_model *m)
{
    ga_error err;
    ga_mesh *meshes;
    uint32_t n;
    int rc = ga_model_meshes(m, &meshes, &n, &err);
    if (rc) geometry_error(rc, &err, "meshes");
    for (uint32_t i = 0; !rc && i < n; i++) {
        const ga_mesh *s = &meshes[i];
        for (size_t t = 0; t < (size_t)s->ntris * 3; t++)
            if (s->triangles[t] >= s->nverts) abort();
        for (size_t v = 0; v < (size_t)s->nverts * s->influences; v++)
            if (s->joints[v] >= m->nbones) abort();
        for (uint32_t v = 0; v < s->nverts; v++)
            if (s->draw_index[v] >= m->n_draw) abort();
        if (s->ncolors > 2 || s->nuvs > 8 || s->influences < 1) abort();
    }
    if (!rc) ga_meshes_free(meshes, n);
    ga_texture *tex;
    rc = ga_model_textures(m, &tex, &n, &err);
    if (rc) geometry_error(rc, &err, "textures");
    for (uint32_t i = 0; !rc && i < n; i++) {
        volatile uint8_t last = tex[i].pixels[(size_t)tex[i].width * tex[i].height * 4 - 1];
        (void)last;
    }
    if (!rc) ga_textures_free(tex, n);
    ga_material *mats;
    rc = ga_model_materials(m, &mats, &n, &err);
    if (rc) geometry_error(rc, &err, "materials");
    for (uint32_t i = 0; !rc && i < n; i++) {
        const ga_material *mt = &mats[i];
        if (mt->nstages > GA_MAT_STAGES || mt->tev.nstages != mt->nstages) abort();
        /* the whole decoded state runs through the evaluator: every stage
         * samples a few pixels of the model's own bytes */
        enum { NPIX = 5 };
        const uint8_t *tex[GA_TEV_STAGES], *ras[GA_TEV_STAGES];
        uint8_t tex_default[GA_TEV_STAGES], rgba[4 * NPIX], passed[NPIX];
        for (int s = 0; s < GA_TEV_STAGES; s++) {
            size_t at = (size_t)(s * 37 + i * 11) % (m->size > 4 * NPIX ? m->size - 4 * NPIX : 1);
            tex[s] = m->size >= 4 * NPIX && (s & 1) ? m->data + at : NULL;
            ras[s] = m->size >= 4 * NPIX && (s & 2) ? m->data + m->size - 4 * NPIX : NULL;
            tex_default[s] = mt->ntexgens ? 255 : 0;
        }
        ga_tev_eval(&mt->tev, tex, tex_default, ras, NPIX, rgba, passed);
        for (int p = 0; p < NPIX; p++)
            if (passed[p] > 1) abort();
        for (int k = 0; k < 4; k++) {
            int v = ga_gx_channel_component(mt->channel[k][0], mt->color[0][k], mt->ambient[0][k], 127.5);
            if (v < 0 || v > 255) abort();
        }
    }
    if (!rc) ga_materials_free(mats, n);
}

/* The skeleton state the regenerated file must keep (floats compared as
 * bits: a NaN stays the same NaN). */
static int same_skeleton(const ga_model *a, const ga_model *b)
{
    if (a->nbones != b->nbones || a->n_envelopes != b->n_envelopes || a->n_envelope_weights != b->n_envelope_weights ||
        a->n_inverse_binds != b->n_inverse_binds || a->inf1_flags != b->inf1_flags ||
        a->n_inf1_nodes != b->n_inf1_nodes || a->nchunks != b->nchunks)
        return 0;
    for (uint32_t i = 0; i < a->nbones; i++) {
        const ga_model_bone *x = &a->bones[i], *y = &b->bones[i];
        if (x->parent != y->parent || x->kind != y->kind || x->data_index != y->data_index ||
            x->scale_compensate_raw != y->scale_compensate_raw || memcmp(x->rot_raw, y->rot_raw, sizeof x->rot_raw) ||
            memcmp(x->scale, y->scale, sizeof x->scale) || memcmp(x->translation, y->translation, sizeof x->translation) ||
            memcmp(x->bound_min, y->bound_min, sizeof x->bound_min) ||
            memcmp(x->bound_max, y->bound_max, sizeof x->bound_max) ||
            memcmp(&x->bound_radius, &y->bound_radius, sizeof x->bound_radius) || !x->name != !y->name ||
            (x->name && strcmp(x->name, y->name)))
            return 0;
    }
    if (a->n_envelopes &&
        (memcmp(a->envelope_counts, b->envelope_counts, a->n_envelopes) ||
         memcmp(a->envelope_joints, b->envelope_joints, a->n_envelope_weights * sizeof *a->envelope_joints) ||
         memcmp(a->envelope_weights, b->envelope_weights, a->n_envelope_weights * sizeof *a->envelope_weights)))
        return 0;
    if (a->n_inverse_binds && memcmp(a->inverse_binds, b->inverse_binds, a->n_inverse_binds * sizeof *a->inverse_binds))
        return 0;
    /* the draw entries are kept; Nintendo's copy of the envelope entries
     * may be added at the end */
    if (b->n_draw < a->n_draw) return 0;
    if (a->n_draw && (memcmp(a->draw_is_envelope, b->draw_is_envelope, a->n_draw) ||
                      memcmp(a->draw_index, b->draw_index, a->n_draw * sizeof *a->draw_index)))
        return 0;
    return 1;
}

/* Whether a model's materials decode (a model without MAT3 has none). */
static int materials_decode(const ga_model *m)
{
    ga_error err;
    ga_material *mats = NULL;
    uint32_t n = 0;
    if (ga_model_materials(m, &mats, &n, &err) != GA_OK) return 0;
    ga_materials_free(mats, n);
    return 1;
}

/* Whether a model's textures decode and their mip chains fit TEX1 (what
 * the TEX1 regenerate needs; a model without TEX1 has none). */
static int textures_decode(const ga_model *m, const ga_error *failed)
{
    ga_error err;
    ga_texture *t = NULL;
    uint32_t n = 0;
    if (strcmp(failed->field, "TEX1 mip levels") == 0) return 0;
    if (ga_model_textures(m, &t, &n, &err) != GA_OK) return 0;
    ga_textures_free(t, n);
    return 1;
}

/* Whether r1 and r2 (regenerated once and twice, of equal length) differ
 * only inside the TEX1 chunk of a model with a CMPR texture: CMPR is
 * re-fitted from its decode, which need not give the same endpoints. */
static int only_cmpr_differs(const ga_model *again, const ga_buf *r1, const ga_buf *r2)
{
    long c = ga_j3d_find_chunk(again, "TEX1");
    ga_error err;
    ga_texture *t = NULL;
    uint32_t n = 0;
    int cmpr = 0;
    if (c < 0 || r1->len != r2->len || ga_model_textures(again, &t, &n, &err) != GA_OK) return 0;
    for (uint32_t i = 0; i < n; i++) cmpr |= t[i].format == GA_GX_CMPR;
    ga_textures_free(t, n);
    size_t lo = again->chunks[c].offset, hi = lo + again->chunks[c].size;
    for (size_t i = 0; i < r1->len; i++)
        if (r1->data[i] != r2->data[i] && (i < lo || i >= hi)) return 0;
    return cmpr;
}

static int no_mesh(void *ctx, uint32_t i, uint32_t count, ga_mesh *mesh)
{
    (void)ctx, (void)i, (void)count, (void)mesh;
    return GA_OK;
}

/* Whether regenerate can read the geometry: the shapes decode and VTX1's
 * arrays load (j3d_regen_geometry.c). */
static int geometry_decodes(const ga_model *m)
{
    ga_error err;
    if (ga_model_meshes_each(m, no_mesh, NULL, &err) != GA_OK) return 0;
    if (ga_j3d_find_chunk(m, "VTX1") < 0) return 1;
    ga_vtx1_edit v;
    int ok = ga_vtx1_load(m, &v, &err) == GA_OK;
    ga_vtx1_free(&v);
    return ok;
}

/* Whether the MDL3 encoder refused what a BDL's loader could not draw
 * either (j3d_encode_mdl3.c): a material's texture slot naming a texture
 * TEX1 does not hold, or a TEX1 header field outside what the GX takes. */
static int mdl3_refuses(const ga_error *failed)
{
    return strcmp(failed->field, "MAT3 texture slot") == 0 || strcmp(failed->field, "TEX1 texture header") == 0;
}

/* The writer on a model that loaded (Model.to_bytes, regenerate=True). */
static void fuzz_write(const ga_model *m, const ga_wrapper *w)
{
    ga_error err;
    ga_model again;
    const ga_wrapper *w2;
    if (w) { /* to_bytes(compression=<own>) of an edited model: m->data re-wrapped */
        ga_buf b;
        ga_buf_init(&b);
        if (w->wrap(m->data, m->size, &b, &err) == GA_OK) {
            if (ga_load_model(b.data, b.len, NULL, &again, &w2, &err) != GA_OK || w2 != w ||
                again.size != m->size || memcmp(again.data, m->data, m->size)) {
                fprintf(stderr, "model written back in %s does not load as itself\n", w->name);
                abort();
            }
            ga_model_free(&again);
        }
        ga_buf_free(&b);
    }
    if (m->family != GA_RIG_J3D) return;
    ga_buf r1, r2;
    ga_buf_init(&r1);
    ga_buf_init(&r2);
    int rc = ga_j3d_regenerate(m, &r1, &err);
    if (rc) {
        /* a MAT3, TEX1, VTX1 or SHP1 that does not decode is a FormatError
         * (it is never copied), as is what MDL3 cannot encode (mdl3_refuses);
         * what geometry regenerate cannot write (NBT,
         * texture matrix indices) or past the format's limits an
         * EncodeError; any other failure is a bug */
        if (rc != GA_ERR_LIMIT && rc != GA_ERR_NOMEM && rc != GA_ERR_ENCODE &&
            !(rc == GA_ERR_FORMAT &&
              (!materials_decode(m) || !textures_decode(m, &err) || !geometry_decodes(m) || mdl3_refuses(&err)))) {
            fprintf(stderr, "regenerate: unexpected error %d: %s\n", rc, err.message);
            abort();
        }
        ga_buf_free(&r1);
        return;
    }
    rc = ga_load_model(r1.data, r1.len, NULL, &again, &w2, &err);
    if (rc) {
        fprintf(stderr, "the regenerated model does not load: %s\n", err.message);
        abort();
    }
    if (!same_skeleton(m, &again)) {
        fprintf(stderr, "the regenerated model has another skeleton\n");
        abort();
    }
    if (ga_j3d_regenerate(&again, &r2, &err) != GA_OK || r2.len != r1.len ||
        (memcmp(r1.data, r2.data, r1.len) && !only_cmpr_differs(&again, &r1, &r2))) {
        fprintf(stderr, "regenerating a regenerated model changes it\n");
        abort();
    }
    ga_model_free(&again);
    ga_buf_free(&r1);
    ga_buf_free(&r2);
}

/* MAT3 edits (issue 34): the relayout engine writes a decodable MAT3 back
 * byte for byte; a colour edit of material 0 splices and decodes with the
 * new colour, or fails cleanly. */
static void fuzz_mat3_edit(ga_model *m)
{
    ga_error err;
    ga_material *mats;
    uint32_t n;
    long c = ga_j3d_find_chunk(m, "MAT3");
    if (c < 0 || ga_model_materials(m, &mats, &n, &err) != GA_OK) return;
    ga_materials_free(mats, n);
    ga_buf b;
    ga_buf_init(&b);
    int rc = ga_j3d_mat3_relayout(m, &b, &err);
    if (rc) geometry_error(rc, &err, "MAT3 relayout");
    else if (m->chunks[c].size % 32 == 0 &&
             (b.len != m->chunks[c].size || memcmp(b.data, m->data + m->chunks[c].offset, b.len) != 0)) {
        fprintf(stderr, "MAT3 relayout: the unedited chunk did not come back byte for byte\n");
        abort();
    }
    b.len = 0;
    ga_mat3_colors col;
    memset(&col, 0, sizeof col);
    col.ncolor = 1, col.nkonst = 1;
    memcpy(col.color[0], "\x12\x34\x56\x78", 4);
    memcpy(col.konst[0], "\x9a\xbc\xde\xf0", 4);
    long d = ga_j3d_find_chunk(m, "MDL3");
    if (n && d >= 0) { /* the BDL display-list patch, on a copy */
        ga_buf l;
        ga_buf_init(&l);
        if (ga_buf_put(&l, m->data + m->chunks[d].offset, m->chunks[d].size) == GA_OK) {
            int pr = ga_j3d_mdl3_patch_colors(l.data, l.len, m->chunks[d].offset, 0, &col, "bdl", &err);
            if (pr && pr != GA_ERR_FORMAT && pr != GA_ERR_ARG) abort();
        }
        ga_buf_free(&l);
    }
    if (n && !rc && (rc = ga_j3d_mat3_colors(m, 0, &col, &b, &err)) == GA_OK) {
        rc = ga_j3d_splice(m, (uint32_t)c, b.data, b.len, &err);
        if (rc == GA_OK && ga_model_materials(m, &mats, &n, &err) == GA_OK) {
            if (memcmp(mats[0].color[0], col.color[0], 4) || memcmp(mats[0].konst[0], col.konst[0], 4)) abort();
            ga_materials_free(mats, n);
        }
    }
    if (rc && rc != GA_ERR_FORMAT && rc != GA_ERR_LIMIT && rc != GA_ERR_NOMEM) abort();
    ga_buf_free(&b);
}

/* The MDL3 writer that keeps stored lists (add_mesh's new instance;
 * replace_texture's users) reads the stored chunk (j3d_mdl3_read.c): a
 * chunk whose every list lies inside it, or a clean error. */
static void fuzz_mdl3_keep(const ga_model *m)
{
    if (m->family != GA_RIG_J3D || ga_j3d_find_chunk(m, "MDL3") < 0) return;
    ga_buf b;
    ga_error err;
    ga_buf_init(&b);
    int rc = ga_j3d_mdl3_add_copy(m, 0, &b, &err);
    if (rc == GA_OK) {
        ga_mdl3_view v;
        ga_mdl3_list l;
        unsigned tables = 1u << GA_MDL3_T_LISTS | 1u << GA_MDL3_T_PATCHES | 1u << GA_MDL3_T_MATRICES;
        if (b.len % 32 || memcmp(b.data, "MDL3", 4) || !ga_mdl3_open(b.data, b.len, 0, &v) ||
            !ga_mdl3_tables_hold(&v, tables, v.count))
            abort();
        for (uint32_t i = 0; i < v.count; i++)
            if (!ga_mdl3_list_at(&v, i, &l) || l.at % 32 || l.len % 32) abort();
    } else if (rc != GA_ERR_FORMAT && rc != GA_ERR_ARG && rc != GA_ERR_LIMIT && rc != GA_ERR_NOMEM) {
        abort();
    }
    ga_buf_free(&b);
}

/* The lint reads every chunk itself: whatever the bytes, a list of
 * problems (or out of memory), never a memory error. */
static void fuzz_check(const ga_model *m)
{
    if (m->family != GA_RIG_J3D) return;
    ga_check_list l;
    ga_error err;
    int rc = ga_j3d_check(m, &l, &err);
    if (rc) {
        if (rc != GA_ERR_NOMEM) {
            fprintf(stderr, "check_model: unexpected error %d: %s\n", rc, err.message);
            abort();
        }
        return;
    }
    if (l.count > GA_CHECK_MAX_PROBLEMS) abort();
    for (size_t i = 0; i < l.count; i++)
        if (!l.items[i] || !l.items[i][0]) abort();
    ga_check_list_free(&l);
}

/* The TEX1 writer (issue 34) on whatever loaded: texture 0 replaced by a
 * 4x4 image in its own format, then in CMPR; a chunk written must splice
 * and decode again. */
static void fuzz_tex1_write(ga_model *m)
{
    uint8_t rgba[4 * 4 * 4];
    for (int i = 0; i < 64; i++) rgba[i] = (uint8_t)(i * 37);
    for (int pass = 0; pass < 2; pass++) {
        ga_tex1_image im = {0, rgba, 4, 4, pass ? 14 : -1, -1};
        ga_buf out;
        ga_buf_init(&out);
        ga_error err;
        uint32_t chunk;
        int rc = ga_j3d_tex1_encode(m, &im, 1, &out, &chunk, &err);
        if (rc && rc != GA_ERR_FORMAT && rc != GA_ERR_ARG && rc != GA_ERR_LIMIT && rc != GA_ERR_NOMEM) abort();
        if (!rc) {
            if (out.len % 32 || out.len < 0x40) abort();
            rc = ga_j3d_splice(m, chunk, out.data, out.len, &err);
            if (rc && rc != GA_ERR_FORMAT && rc != GA_ERR_LIMIT && rc != GA_ERR_NOMEM) abort();
            ga_texture *tex;
            uint32_t n;
            if (!rc && ga_model_textures(m, &tex, &n, &err) == GA_OK) {
                if (n == 0 || tex[0].width != 4 || tex[0].height != 4) abort();
                ga_textures_free(tex, n);
            }
        }
        ga_buf_free(&out);
    }
}

static void fuzz_model(const uint8_t *data, size_t size)
{
    ga_model m;
    const ga_wrapper *w;
    ga_error err;
    int rc = ga_load_model(data, size, NULL, &m, &w, &err);
    if (rc) {
        if (rc != GA_ERR_FORMAT && rc != GA_ERR_LIMIT) {
            fprintf(stderr, "load_model: unexpected error %d: %s\n", rc, err.message);
            abort();
        }
        return;
    }
    for (uint32_t i = 0; i < m.nbones; i++) {
        const ga_model_bone *b = &m.bones[i];
        if (b->parent < -1 || b->parent >= (int32_t)m.nbones || b->parent == (int32_t)i) abort();
        /* a root is reached within nbones steps: no cycle */
        int32_t p = b->parent;
        for (uint32_t steps = 0; p >= 0; steps++) {
            if (steps > m.nbones) {
                fprintf(stderr, "load_model: bone %u's parents form a cycle\n", i);
                abort();
            }
            p = m.bones[p].parent;
        }
        if (b->name && strlen(b->name) != b->name_len) abort();
    }
    for (uint32_t i = 0; i < m.nchunks; i++)
        if (m.chunks[i].offset > m.size || m.chunks[i].size > m.size - m.chunks[i].offset) abort();
    if (m.n_inverse_binds > m.nbones) abort();
    size_t n = (size_t)m.nbones * 16u;
    float *out = malloc((n ? n : 1) * sizeof *out);
    double frame = 0.0;
    if (out) {
        rc = ga_model_world_matrices(&m, NULL, NULL, &frame, 1, out, &err);
        (void)rc; /* any error code is fine: what matters is no memory error */
        free(out);
    }
    fuzz_geometry(&m);
    fuzz_write(&m, w);
    fuzz_mat3_edit(&m);
    fuzz_mdl3_keep(&m);
    fuzz_check(&m);
    fuzz_tex1_write(&m);
    ga_model_free(&m);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int init = 0;
    if (!init) {
        ga_fuzz_use_system_zlib();
        init = 1;
    }
#if defined(GA_FUZZ_FORMAT)
    fuzz_format(data, size);
#elif defined(GA_FUZZ_WRAPPER)
    fuzz_wrapper(data, size);
#elif defined(GA_FUZZ_BAKE)
    fuzz_bake(data, size);
#elif defined(GA_FUZZ_EDIT)
    fuzz_edit(data, size);
#elif defined(GA_FUZZ_MODEL)
    fuzz_model(data, size);
#elif defined(GA_FUZZ_ARCHIVE)
    fuzz_archive(data, size);
#else
    ga_loaded l;
    ga_error err;
    if (ga_load(data, size, NULL, &l, &err) == GA_OK) ga_loaded_free(&l);
#endif
    return 0;
}
