/* Curve evaluation shared by every format, Bezier handle generation for
 * Blender, and the J3D frame clock. */
#include "gameanim.h"

#include <math.h>

uint32_t ga_bisect(const float *time, uint32_t nkeys, double frame)
{
    /* The J3D runtime halves a window [base, base+num) and moves the base
     * whenever frame >= time[base + mid].  On sorted keys this is "the last
     * key with time <= frame"; on unsorted keys it is still what the game
     * picks, so mimic it step for step. */
    uint32_t base = 0, num = nkeys;
    while (num > 1) {
        uint32_t mid = num / 2;
        if (frame >= (double)time[base + mid]) {
            base += mid;
            num -= mid;
        } else {
            num = mid;
        }
    }
    /* Callers first return the end values for frame < time[0] and
     * time[nkeys-1] <= frame, so the key right of the window was always
     * compared and found greater: time[base] <= frame < time[base + 1],
     * even on unsorted times, and base <= nkeys - 2.  (A guard for other
     * callers and NaN frames.) */
    if (nkeys >= 2 && base > nkeys - 2) base = nkeys - 2;
    return base;
}

double ga_hermite(double frame, double t0, double v0, double s0, double t1, double v1, double s1)
{
    double len = t1 - t0;
    if (!(len != 0.0)) return v0; /* zero-length (or NaN) segment: a step */
    double u = (frame - t0) / len;
    double m0 = s0 * len, m1 = s1 * len;
    double u2 = u * u, u3 = u2 * u;
    return (2.0 * v0 - 2.0 * v1 + m0 + m1) * u3 + (-3.0 * v0 + 3.0 * v1 - 2.0 * m0 - m1) * u2 +
           m0 * u + v0;
}

/* The generic evaluator (any format without its own, Tracks made by
 * hand): the segment as ga_bisect finds it, also on unsorted times (the
 * J3D runtime's rule), the Hermite in double precision. */
double ga_track_eval(const ga_track *t, double frame)
{
    uint32_t n = t->nkeys;
    if (n == 0) return ga_channel_default(t->channel, t->axis);
    if (n == 1) return t->value[0];
    if (frame < (double)t->time[0]) return t->value[0];
    if ((double)t->time[n - 1] <= frame) return t->value[n - 1];
    uint32_t k = ga_bisect(t->time, n, frame);
    double t0 = t->time[k], t1 = t->time[k + 1];
    double v0 = t->value[k], v1 = t->value[k + 1];
    switch (t->interp[k]) {
    case GA_INTERP_CONSTANT:
        return v0;
    case GA_INTERP_LINEAR: {
        double len = t1 - t0;
        if (!(len != 0.0) || frame == t0) return v0; /* on the key: its value, even next to an infinite one */
        return v0 + (v1 - v0) * ((frame - t0) / len);
    }
    default:
        return ga_hermite(frame, t0, v0, t->out_slope[k], t1, v1, t->in_slope[k + 1]);
    }
}

void ga_track_bezier(const ga_track *t, double vs, double vo, double ts, double to, float *co,
                     float *left, float *right)
{
    uint32_t n = t->nkeys;
    for (uint32_t k = 0; k < n; k++) {
        double tk = t->time[k], vk = t->value[k];
        /* A handle reaches one third of the way to the neighbouring key;
         * the end keys mirror their only neighbour (their outer handle
         * never shapes the curve because extrapolation is constant). */
        double dl, dr;
        if (n == 1) {
            dl = dr = 1.0 / 3.0;
        } else {
            dl = (k > 0 ? tk - t->time[k - 1] : t->time[1] - tk) / 3.0;
            dr = (k + 1 < n ? t->time[k + 1] - tk : tk - t->time[k - 1]) / 3.0;
        }
        co[2 * k] = (float)(tk * ts + to);
        co[2 * k + 1] = (float)(vk * vs + vo);
        left[2 * k] = (float)((tk - dl) * ts + to);
        left[2 * k + 1] = (float)((vk - t->in_slope[k] * dl) * vs + vo);
        right[2 * k] = (float)((tk + dr) * ts + to);
        right[2 * k + 1] = (float)((vk + t->out_slope[k] * dr) * vs + vo);
    }
}

/* One J3DFrameCtrl::update() step with start = loop point = 0, in single
 * precision like the game.  Returns 1 when playback has stopped. */
static int j3d_tick(float *frame, float *rate, float end, int loop)
{
    const float start = 0.0f, loop_point = 0.0f;
    *frame += *rate;
    switch (loop) {
    /* (the once modes run both checks, as the game does: with an end at
     * or before the start, a frame clamped to the start is then clamped
     * again at the end) */
    case GA_LOOP_ONCE: {
        int stop = 0;
        if (*frame < start) { *frame = start; *rate = 0.0f; stop = 1; }
        if (*frame >= end) { *frame = end - 0.001f; *rate = 0.0f; stop = 1; }
        return stop;
    }
    case GA_LOOP_ONCE_RESET: {
        int stop = 0;
        if (*frame < start) { *frame = start; *rate = 0.0f; stop = 1; }
        if (*frame >= end) { *frame = start; *rate = 0.0f; stop = 1; }
        return stop;
    }
    case GA_LOOP_REPEAT:
        while (*frame < start) {
            if (loop_point - start <= 0.0f) break;
            *frame += loop_point - start;
        }
        while (*frame >= end) {
            if (end - loop_point <= 0.0f) break;
            *frame -= end - loop_point;
        }
        return 0;
    case GA_LOOP_MIRROR_ONCE:
        if (*frame >= end) { *frame = end - 0.001f; *rate = -*rate; }
        if (*frame < start) { *frame = start; *rate = 0.0f; return 1; }
        return 0;
    case GA_LOOP_MIRROR_REPEAT:
        if (*frame >= end) { *frame = end - 0.001f; *rate = -*rate; }
        if (*frame < start) { *frame = start; *rate = -*rate; }
        return 0;
    default:
        return 1;
    }
}

double ga_j3d_frame_at(double ticks, double duration, int loop, double rate)
{
    float frame = 0.0f, r = (float)rate, end = (float)duration;
    if (!(ticks > 0.0)) return 0.0;
    double whole = floor(ticks);
    double part = ticks - whole;
    for (double i = 0; i < whole; i += 1.0) {
        if (j3d_tick(&frame, &r, end, loop)) return frame;
    }
    if (part > 0.0) {
        /* A fraction of a tick advances by that fraction of the rate, with
         * the same end-of-range rules. */
        float pr = (float)(r * part);
        float saved = r;
        j3d_tick(&frame, &pr, end, loop);
        (void)saved;
    }
    return frame;
}

/* ------------------------------------------------------------------ */
/* Blender F-curve evaluation, for export: keyframes as read with
 * foreach_get (co, handle_left, handle_right as x, y pairs; interpolation
 * codes), evaluated the way Blender does: Bezier segments with their handles
 * first shortened so the curve stays a function of time, the parameter found
 * from the frame, constant or linear extrapolation. */

static double bezier_1d(double p0, double p1, double p2, double p3, double s)
{
    double u = 1.0 - s;
    return u * u * u * p0 + 3.0 * u * u * s * p1 + 3.0 * u * s * s * p2 + s * s * s * p3;
}

/* Slope of the linear extrapolation before the first key (after = 0) or
 * after the last (after = 1; `last` is the last key's index), as Blender's
 * fcurve_eval_keyframes_extrapolate: by the END KEY's own interpolation --
 * CONSTANT holds its value, LINEAR continues the chord to its neighbour (a
 * lone key holds), BEZIER follows its outer handle. */
static double extrapolation_slope(const float *co, const float *left, const float *right, const int32_t *interp,
                                  size_t last, int after)
{
    size_t e = after ? last : 0;              /* the end key */
    size_t nb = after ? last - 1 : 1;         /* its neighbour (when there is one) */
    double dx, dy;
    if (interp[e] == GA_INTERP_CONSTANT) return 0.0;
    if (interp[e] == GA_INTERP_LINEAR) {
        if (last == 0) return 0.0;
        dx = (double)co[2 * nb] - co[2 * e];
        dy = (double)co[2 * nb + 1] - co[2 * e + 1];
    } else if (!after) {
        dx = (double)co[0] - left[0];
        dy = (double)co[1] - left[1];
    } else {
        dx = (double)right[2 * e] - co[2 * e];
        dy = (double)right[2 * e + 1] - co[2 * e + 1];
    }
    return dx != 0.0 ? dy / dx : 0.0;
}

/* The Bezier segment from key lo to key hi as Blender evaluates it: the
 * handles shortened where they overlap in time (correct_bezpart). */
typedef struct bez_seg {
    double x0, x1, x2, x3, y0, y1, y2, y3;
} bez_seg;

static bez_seg bez_segment(const float *co, const float *left, const float *right, size_t lo, size_t hi)
{
    bez_seg b = {co[2 * lo], right[2 * lo], left[2 * hi], co[2 * hi],
                 co[2 * lo + 1], right[2 * lo + 1], left[2 * hi + 1], co[2 * hi + 1]};
    double h1x = b.x0 - b.x1, h1y = b.y0 - b.y1, h2x = b.x3 - b.x2, h2y = b.y3 - b.y2;
    double len = b.x3 - b.x0, len1 = fabs(h1x), len2 = fabs(h2x);
    if (len1 + len2 > 0.0 && len1 + len2 > len) {
        double fac = len / (len1 + len2);
        b.x1 = b.x0 - fac * h1x;
        b.y1 = b.y0 - fac * h1y;
        b.x2 = b.x3 - fac * h2x;
        b.y2 = b.y3 - fac * h2y;
    }
    return b;
}

/* The parameter s of the segment where x(s) = frame, within rel_tol:
 * x(s) is monotonic once the handles are shortened, so bisection with a
 * Newton polish. */
static double bez_solve(const bez_seg *b, double frame, double rel_tol)
{
    double len = b->x3 - b->x0;
    double lo = 0.0, hi = 1.0, s = (frame - b->x0) / (len != 0.0 ? len : 1.0);
    if (s < 0.0) s = 0.0;
    if (s > 1.0) s = 1.0;
    for (int it = 0; it < 60; it++) {
        double x = bezier_1d(b->x0, b->x1, b->x2, b->x3, s);
        if (fabs(x - frame) < rel_tol * (1.0 + fabs(frame))) break;
        if (x < frame) lo = s;
        else hi = s;
        double u = 1.0 - s;
        double dx = 3.0 * (u * u * (b->x1 - b->x0) + 2.0 * u * s * (b->x2 - b->x1) + s * s * (b->x3 - b->x2));
        double ns = dx > 0.0 ? s - (x - frame) / dx : -1.0;
        s = (ns > lo && ns < hi) ? ns : 0.5 * (lo + hi);
    }
    return s;
}

double ga_fcurve_eval(const float *co, const float *left, const float *right, const int32_t *interp,
                      size_t n, double frame, int linear_extrapolation)
{
    if (n == 0) return 0.0;
    if (frame <= co[0]) {  /* (also a lone key: it holds, or follows a BEZIER handle) */
        if (linear_extrapolation && frame < co[0])
            return co[1] + extrapolation_slope(co, left, right, interp, n - 1, 0) * (frame - co[0]);
        return co[1];
    }
    size_t last = n - 1;
    if (frame >= co[2 * last]) {
        if (linear_extrapolation && frame > co[2 * last])
            return co[2 * last + 1] + extrapolation_slope(co, left, right, interp, last, 1) * (frame - co[2 * last]);
        return co[2 * last + 1];
    }
    /* last key with x <= frame */
    size_t lo = 0, hi = last;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (co[2 * mid] <= frame) lo = mid;
        else hi = mid;
    }
    double x0 = co[2 * lo], y0 = co[2 * lo + 1], x3 = co[2 * hi], y3 = co[2 * hi + 1];
    if (frame == x0) return y0;
    switch (interp[lo]) {
    case GA_INTERP_CONSTANT:
        return y0;
    case GA_INTERP_LINEAR:
        return x3 != x0 ? y0 + (y3 - y0) * (frame - x0) / (x3 - x0) : y0;
    default:
        break;
    }
    bez_seg b = bez_segment(co, left, right, lo, hi);
    double s = bez_solve(&b, frame, 1e-9);
    return bezier_1d(b.y0, b.y1, b.y2, b.y3, s);
}

/* ga_track_eval over many frames.  Sorted keys let each frame start its
 * search from the previous frame's segment, which makes ascending frame
 * lists (the usual case) cost O(1) per frame; results are identical to
 * ga_track_eval. */
void ga_track_eval_many(const ga_track *t, const double *frames, size_t n, float *out)
{
    uint32_t nk = t->nkeys;
    int sorted = 1, strict = 1;
    for (uint32_t k = 1; k < nk && sorted; k++) {
        if (!(t->time[k - 1] <= t->time[k])) sorted = 0;
        if (!(t->time[k - 1] < t->time[k])) strict = 0;
    }
    if (nk < 3 || !sorted) {
        for (size_t i = 0; i < n; i++) out[i] = (float)ga_track_eval(t, frames[i]);
        return;
    }
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double f = frames[i];
        /* Per-frame keys (key j at frame j) sampled at whole frames: with
         * strictly increasing times key j is the segment start, so the
         * value is the key's own (what the search below would find). */
        if (strict && f >= 0.0 && f < (double)nk) {
            uint32_t j = (uint32_t)f;
            if ((double)j == f && (double)t->time[j] == f && t->interp[j] != GA_INTERP_BEZIER) {
                out[i] = t->value[j];
                k = j;
                continue;
            }
        }
        if (!(f >= (double)t->time[0])) {
            out[i] = t->value[0];
            continue;
        }
        if ((double)t->time[nk - 1] <= f) {
            out[i] = t->value[nk - 1];
            continue;
        }
        /* the last key with time <= f (what the bisection finds on sorted keys) */
        if ((double)t->time[k] > f) k = 0;
        while (k + 1 < nk && (double)t->time[k + 1] <= f) {
            if (k + 9 < nk && (double)t->time[k + 8] <= f) {
                k = ga_bisect(t->time, nk, f);
                break;
            }
            k++;
        }
        double t0 = t->time[k];
        if (f == t0 && t->interp[k] != GA_INTERP_BEZIER) {
            /* on a key (per-frame tracks sampled at their frames): v0 + 0 */
            out[i] = t->value[k];
            continue;
        }
        double t1 = t->time[k + 1], v0 = t->value[k], v1 = t->value[k + 1];
        switch (t->interp[k]) {
        case GA_INTERP_CONSTANT:
            out[i] = (float)v0;
            break;
        case GA_INTERP_LINEAR: {
            double len = t1 - t0;
            out[i] = (float)(len != 0.0 ? v0 + (v1 - v0) * ((f - t0) / len) : v0);
            break;
        }
        default:
            out[i] = (float)ga_hermite(f, t0, v0, t->out_slope[k], t1, v1, t->in_slope[k + 1]);
        }
    }
}

/* Slope of a Blender F-curve at a frame, from the left (side < 0) or the
 * right (side > 0): the derivative of the segment that ends or starts there
 * (dy/dx of the Bezier, shortened handles included), 0 outside the keys
 * with constant extrapolation. */
double ga_fcurve_slope(const float *co, const float *left, const float *right, const int32_t *interp, size_t n,
                       double frame, int side, int linear_extrapolation)
{
    if (n == 0) return 0.0;
    size_t last = n - 1;
    double first_x = co[0], last_x = co[2 * last];
    if (n == 1) {
        if (!linear_extrapolation || (frame == first_x && side == 0)) return 0.0;
        return extrapolation_slope(co, left, right, interp, 0, frame > first_x || (frame == first_x && side > 0));
    }
    if (frame < first_x || (frame == first_x && side < 0))
        return linear_extrapolation ? extrapolation_slope(co, left, right, interp, last, 0) : 0.0;
    if (frame > last_x || (frame == last_x && side > 0))
        return linear_extrapolation ? extrapolation_slope(co, left, right, interp, last, 1) : 0.0;
    /* the segment: the one starting at the last key <= frame (right side),
     * or ending at the first key >= frame (left side) */
    size_t lo = 0, hi = last;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (co[2 * mid] < frame || (co[2 * mid] == frame && side > 0)) lo = mid;
        else hi = mid;
    }
    double x0 = co[2 * lo], y0 = co[2 * lo + 1], x3 = co[2 * hi], y3 = co[2 * hi + 1];
    if (interp[lo] == GA_INTERP_CONSTANT) return 0.0;
    if (interp[lo] == GA_INTERP_LINEAR || x3 == x0) return x3 != x0 ? (y3 - y0) / (x3 - x0) : 0.0;
    bez_seg b = bez_segment(co, left, right, lo, hi);
    double s = bez_solve(&b, frame, 1e-12);
    double u = 1.0 - s;
    double dxs = 3.0 * (u * u * (b.x1 - b.x0) + 2.0 * u * s * (b.x2 - b.x1) + s * s * (b.x3 - b.x2));
    double dys = 3.0 * (u * u * (b.y1 - b.y0) + 2.0 * u * s * (b.y2 - b.y1) + s * s * (b.y3 - b.y2));
    return dxs != 0.0 ? dys / dxs : 0.0;
}
