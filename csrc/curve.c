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
    /* The game would read one key past the track here (possible only with
     * unsorted times); stay inside the track instead. */
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
        if (!(len != 0.0)) return v0;
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
    case GA_LOOP_ONCE:
        if (*frame < start) { *frame = start; *rate = 0.0f; return 1; }
        if (*frame >= end) { *frame = end - 0.001f; *rate = 0.0f; return 1; }
        return 0;
    case GA_LOOP_ONCE_RESET:
        if (*frame < start) { *frame = start; *rate = 0.0f; return 1; }
        if (*frame >= end) { *frame = start; *rate = 0.0f; return 1; }
        return 0;
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
