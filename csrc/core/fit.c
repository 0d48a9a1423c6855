/* Key reduction: cubic Hermite keys fitted to per-frame samples within a
 * tolerance.  Used when a baked or hand-made curve is exported to a format
 * with Hermite keys (BCK, BTK), so that the file holds keys, not frames.
 *
 * The method walks forward: from each key, the next key is the farthest
 * sample that a single Hermite segment reaches while passing within the
 * tolerance of every sample in between.  Slopes are the caller's (the curve's own derivatives) or come from the samples (a five-point stencil on even spacing,
 * the parabola through three samples otherwise, one-sided at the ends).  Keys at neighbouring samples reproduce both samples exactly,
 * so the process always ends, at worst with every sample a key. */
#include "gameanim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double slope_at(const double *t, const double *v, size_t n, size_t i)
{
    if (n < 2) return 0.0;
    if (i == 0) return (v[1] - v[0]) / (t[1] - t[0]);
    if (i == n - 1) return (v[n - 1] - v[n - 2]) / (t[n - 1] - t[n - 2]);
    double h0 = t[i] - t[i - 1], h1 = t[i + 1] - t[i];
    /* five-point stencil on evenly spaced samples (error O(h^4)) */
    if (i >= 2 && i + 2 < n) {
        double hm = t[i - 1] - t[i - 2], hp = t[i + 2] - t[i + 1];
        if (fabs(h0 - h1) <= 1e-9 * h1 && fabs(hm - h1) <= 1e-9 * h1 && fabs(hp - h1) <= 1e-9 * h1)
            return (v[i - 2] - 8.0 * v[i - 1] + 8.0 * v[i + 1] - v[i + 2]) / (12.0 * h1);
    }
    /* derivative of the parabola through the three samples */
    return (-h1 / (h0 * (h0 + h1))) * v[i - 1] + ((h1 - h0) / (h0 * h1)) * v[i] + (h0 / (h1 * (h0 + h1))) * v[i + 1];
}

/* Does the Hermite segment from sample a to sample b pass within tol of
 * every sample in between? */
static int segment_fits(const double *t, const double *v, const double *sin, const double *sout, size_t a, size_t b,
                        double tol)
{
    for (size_t i = a + 1; i < b; i++) {
        double h = ga_hermite(t[i], t[a], v[a], sout[a], t[b], v[b], sin[b]);
        if (!(fabs(h - v[i]) <= tol)) return 0; /* NaN fails too */
    }
    return 1;
}

int ga_fit_hermite(const double *time, const double *value, const double *in_slope, const double *out_slope,
                   size_t n, double tol, ga_track *out, ga_error *err)
{
    if (n > GA_MAX_KEYS_TOTAL)
        return ga_fail(err, GA_ERR_LIMIT, "", "samples", -1, "%zu samples exceed the key limit", n);
    if (!(tol >= 0.0)) return ga_fail(err, GA_ERR_ARG, "", "tolerance", -1, "tolerance must be >= 0");
    for (size_t i = 1; i < n; i++)
        if (!(time[i] > time[i - 1]))
            return ga_fail(err, GA_ERR_ARG, "", "times", -1, "sample times must increase (sample %zu)", i);
    uint8_t *key = calloc(n ? n : 1, 1);
    double *sin = malloc((n ? n : 1) * sizeof *sin), *sout = malloc((n ? n : 1) * sizeof *sout);
    if (!key || !sin || !sout) {
        free(key);
        free(sin);
        free(sout);
        return ga_nomem(err, "");
    }
    /* Slopes the caller knows (the derivatives of the curve being reduced,
     * one-sided at corners) beat estimates from the samples. */
    for (size_t i = 0; i < n; i++) {
        double est = slope_at(time, value, n, i);
        sin[i] = in_slope ? in_slope[i] : est;
        sout[i] = out_slope ? out_slope[i] : est;
    }
    if (n == 2 && !in_slope && !out_slope) sin[0] = sin[1] = sout[0] = sout[1] = (value[1] - value[0]) / (time[1] - time[0]);
    size_t nkeys = 0;
    if (n) {
        /* Greedy forward: from each key, reach as far as a single Hermite
         * segment stays within the tolerance (galloping, then bisecting),
         * and put the next key there.  A segment between neighbouring
         * samples has nothing to miss, so the walk always advances. */
        key[0] = 1;
        size_t a = 0;
        while (a + 1 < n) {
            size_t good = a + 1, probe = a + 2;
            while (probe < n && segment_fits(time, value, sin, sout, a, probe, tol)) {
                good = probe;
                probe = a + 2 * (probe - a);
            }
            size_t bad = probe < n ? probe : n;
            while (bad - good > 1) {
                size_t mid = good + (bad - good) / 2;
                if (segment_fits(time, value, sin, sout, a, mid, tol)) good = mid;
                else bad = mid;
            }
            key[good] = 1;
            a = good;
        }
        for (size_t i = 0; i < n; i++) nkeys += key[i];
    }
    int rc = ga_track_alloc(out, (uint32_t)nkeys, err);
    if (!rc) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (!key[i]) continue;
            out->time[k] = (float)time[i];
            out->value[k] = (float)value[i];
            out->in_slope[k] = (float)sin[i];
            out->out_slope[k] = (float)sout[i];
            out->interp[k] = nkeys == 1 ? GA_INTERP_CONSTANT : GA_INTERP_BEZIER;
            k++;
        }
    }
    free(key);
    free(sin);
    free(sout);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Linear key reduction                                                */

/* Whether every segment of t is LINEAR and its times strictly increase
 * (the only tracks ga_reduce_linear takes). */
int ga_track_is_linear(const ga_track *t)
{
    for (uint32_t k = 0; k + 1 < t->nkeys; k++)
        if (t->interp[k] != GA_INTERP_LINEAR || !(t->time[k] < t->time[k + 1])) return 0;
    return t->nkeys > 0;
}

/* Drops keys of a LINEAR track while the straight line between the kept
 * neighbours passes within tol of every dropped key.  Kept keys keep their
 * exact values.  From each kept key the method keeps the set of slopes
 * that pass every key so far within tol (a cone that only narrows) and
 * ends the segment at the farthest key whose own slope lies in that cone:
 * linear time per segment.  out gets a new track (LINEAR keys). */
int ga_reduce_linear(const ga_track *t, double tol, ga_track *out, ga_error *err)
{
    uint32_t n = t->nkeys;
    uint32_t *keep = malloc(((size_t)n + 1) * sizeof *keep);
    if (!keep) return ga_nomem(err, "");
    uint32_t nk = 0;
    uint32_t a = 0;
    keep[nk++] = 0;
    while (a + 1 < n) {
        double ta = t->time[a], va = t->value[a];
        double lo = -INFINITY, hi = INFINITY;
        uint32_t end = a + 1;
        for (uint32_t j = a + 1; j < n; j++) {
            double dt = (double)t->time[j] - ta;
            double s = ((double)t->value[j] - va) / dt;
            if (s >= lo && s <= hi) end = j; /* the line a -> j passes every key between */
            double l = ((double)t->value[j] - tol - va) / dt, h = ((double)t->value[j] + tol - va) / dt;
            if (l > lo) lo = l;
            if (h < hi) hi = h;
            if (!(lo <= hi)) break; /* (NaN ends it too) */
        }
        keep[nk++] = end;
        a = end;
    }
    memset(out, 0, sizeof *out);
    int rc = ga_track_alloc(out, nk, err);
    if (rc) {
        free(keep);
        return rc;
    }
    out->target = t->target;
    out->channel = t->channel;
    out->axis = t->axis;
    for (uint32_t i = 0; i < nk; i++) {
        out->time[i] = t->time[keep[i]];
        out->value[i] = t->value[keep[i]];
        out->interp[i] = GA_INTERP_LINEAR;
    }
    free(keep);
    return GA_OK;
}
