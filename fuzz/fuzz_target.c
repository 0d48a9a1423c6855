/* libFuzzer targets, one binary per format and per decompressor (see
 * fuzz/build.sh):
 *   FORMAT targets: decode; on success also encode the clip from scratch
 *     (no original data to lean on), decode that, and require the same
 *     tracks; and encode through the raw record (partial edit path).
 *   WRAPPER targets: unwrap; on success wrap and unwrap again and require
 *     the same bytes.
 *   LOAD target: the whole detection path (gameanim.load in C).
 * Any crash, sanitizer report, leak or failed invariant aborts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gameanim.h"

void ga_fuzz_use_system_zlib(void);

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
        if (f->decode(b.data, b.len, NULL, &raw2, &c2, &err) != GA_OK) {
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
        if (f->decode(b.data, b.len, NULL, &raw3, &c3, &err) != GA_OK) {
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
    if (w->unwrap(data, size, &out, &n, &err) != GA_OK) return;
    ga_buf b;
    ga_buf_init(&b);
    if (w->wrap(out, n, &b, &err) == GA_OK) {
        uint8_t *back = NULL;
        size_t m = 0;
        if (w->unwrap(b.data, b.len, &back, &m, &err) != GA_OK || m != n || (n && memcmp(back, out, n) != 0)) {
            fprintf(stderr, "%s: unwrap(wrap(x)) != x\n", w->name);
            abort();
        }
        free(back);
    }
    ga_buf_free(&b);
    free(out);
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
#else
    ga_loaded l;
    ga_error err;
    if (ga_load(data, size, NULL, &l, &err) == GA_OK) ga_loaded_free(&l);
#endif
    return 0;
}
