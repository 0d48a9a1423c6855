/* Key reduction: cubic Hermite keys fitted to per-frame samples within a
 * tolerance.  Used when a baked or hand-made curve is exported to a format
 * with Hermite keys (BCK, BTK), so that the file holds keys, not frames.
 *
 * The method is a recursive subdivision (as Douglas-Peucker does for
 * polylines): start with the first and last sample as keys, evaluate the
 * Hermite segment between two keys at every sample in between, and when the
 * worst one is off by more than the tolerance make it a key and split
 * there.  Slopes come from the samples (a five-point stencil on even spacing,
 * the parabola through three samples otherwise, one-sided at the ends).  Keys at neighbouring samples reproduce both samples exactly,
 * so the process always ends, at worst with every sample a key. */
#include "gameanim.h"

#include <math.h>
#include <stdlib.h>

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

int ga_fit_hermite(const double *time, const double *value, size_t n, double tol, ga_track *out,
                   ga_error *err)
{
    if (n > GA_MAX_KEYS_TOTAL)
        return ga_fail(err, GA_ERR_LIMIT, "", "samples", -1, "%zu samples exceed the key limit", n);
    if (!(tol >= 0.0)) return ga_fail(err, GA_ERR_ARG, "", "tolerance", -1, "tolerance must be >= 0");
    for (size_t i = 1; i < n; i++)
        if (!(time[i] > time[i - 1]))
            return ga_fail(err, GA_ERR_ARG, "", "times", -1, "sample times must increase (sample %zu)", i);
    uint8_t *key = calloc(n ? n : 1, 1);
    double *slope = malloc((n ? n : 1) * sizeof *slope);
    size_t *stack = malloc((2 * n + 2) * sizeof *stack);
    if (!key || !slope || !stack) {
        free(key);
        free(slope);
        free(stack);
        return ga_nomem(err, "");
    }
    for (size_t i = 0; i < n; i++) slope[i] = slope_at(time, value, n, i);
    if (n == 2) slope[0] = slope[1] = (value[1] - value[0]) / (time[1] - time[0]);
    size_t nkeys = 0;
    if (n) {
        key[0] = key[n - 1] = 1;
        size_t sp = 0;
        if (n > 2) {
            stack[sp++] = 0;
            stack[sp++] = n - 1;
        }
        while (sp) {
            size_t b = stack[--sp], a = stack[--sp];
            double worst = 0.0;
            size_t at = 0;
            for (size_t i = a + 1; i < b; i++) {
                double h = ga_hermite(time[i], time[a], value[a], slope[a], time[b], value[b], slope[b]);
                double e = fabs(h - value[i]);
                if (!(e <= worst)) { /* also catches NaN */
                    worst = e;
                    at = i;
                }
            }
            if (at && !(worst <= tol)) {
                key[at] = 1;
                stack[sp++] = a;
                stack[sp++] = at;
                stack[sp++] = at;
                stack[sp++] = b;
            }
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
            out->in_slope[k] = out->out_slope[k] = (float)slope[i];
            out->interp[k] = nkeys == 1 ? GA_INTERP_CONSTANT : GA_INTERP_BEZIER;
            k++;
        }
    }
    free(key);
    free(slope);
    free(stack);
    return rc;
}
