/* The J3D runtime's Hermite evaluation, included twice by j3d.c (see
 * there) with J3D_V(name) (the build's name), J3D_FMA(a, b, c) (an exact
 * fused multiply-add) and J3D_ATTR (the build's target attribute).  No
 * include guard on purpose. */

/* JMAHermiteInterpolation: f32 value tables (scale, translation), Wind
 * Waker's C function (zeldaret/tww JMath.cpp) in the order its compiled
 * code runs it (the same function in Super Mario Sunshine's disassembly):
 * with p = frame - t0 and r = 1 / (t1 - t0) the powers a = p^2 r,
 * b = a r, c = p b, e = c r, then
 *   v0 (1 + 2e - 3b) + v1 (3b - 2e) + s0 (p + c - 2a) + s1 (c - a),
 * fused where the PowerPC code fuses. */
J3D_ATTR static inline float J3D_V(hermite_f32_tables)(float frame, float t0, float v0, float s0, float t1, float v1, float s1)
{
    float len = t1 - t0;
    float p = frame - t0;
    float p2 = p * p;
    float r = 1.0f / len;
    float a = r * p2;                          /* p^2 / L */
    float b = a * r;                           /* p^2 / L^2 */
    float c = p * b;                           /* p^3 / L^2 */
    float b3 = 3.0f * b;
    float e = c * r;                           /* p^3 / L^3 */
    float ts0 = -J3D_FMA(2.0f, a, -c);            /* c - 2a */
    float ts1 = c - a;
    float cv0 = J3D_FMA(2.0f, e, -b3);            /* 2e - 3b */
    float cv1 = J3D_FMA(-2.0f, e, b3);            /* 3b - 2e */
    ts0 = p + ts0;
    cv0 = 1.0f + cv0;
    float acc = v1 * cv1;
    acc = J3D_FMA(v0, cv0, acc);
    acc = J3D_FMA(s0, ts0, acc);
    return J3D_FMA(s1, ts1, acc);
}

/* J3DHermiteInterpolationS: the s16 rotation table (values converted to
 * float exactly). */
J3D_ATTR static inline float J3D_V(hermite_s16_table)(float frame, float t0, float v0, float s0, float t1, float v1, float s1)
{
    float len = t1 - t0;
    float u = (frame - t0) / len;
    float dv = v1 - v0;
    float acc = J3D_FMA(s1, len, v0);             /* s1 L + v0 */
    float u2 = u * u;
    float e = -J3D_FMA(len, s0, -dv);             /* (v1 - v0) - L s0 */
    acc = acc - v1;
    acc = acc - e;                             /* L (s0 + s1) + 2 v0 - 2 v1 */
    float c = u2 * acc;
    float out = J3D_FMA(len, s0, c);
    out = J3D_FMA(out, u, v0);
    out = J3D_FMA(e, u2, out);
    return out - c;
}

/* One track at one frame, as J3DGetKeyFrameInterpolation(S) computes it;
 * raw: rotation keys already in raw units.  Segments a user made LINEAR or
 * CONSTANT (which the encoder turns into Hermite keys) use their own rule. */
J3D_ATTR static inline float J3D_V(game_eval)(const ga_track *t, float frame, int s16_table)
{
    uint32_t n = t->nkeys;
    if (frame < t->time[0]) return t->value[0];
    if (t->time[n - 1] <= frame) return t->value[n - 1];
    uint32_t k = ga_bisect(t->time, n, frame);
    if (t->interp[k] != GA_INTERP_BEZIER) return (float)ga_track_eval(t, frame);
    if (s16_table)
        return J3D_V(hermite_s16_table)(frame, t->time[k], t->value[k], t->out_slope[k], t->time[k + 1],
                                 t->value[k + 1], t->in_slope[k + 1]);
    return J3D_V(hermite_f32_tables)(frame, t->time[k], t->value[k], t->out_slope[k], t->time[k + 1], t->value[k + 1],
                              t->in_slope[k + 1]);
}

/* out[i] = game_eval(t, frames[i] as float, s16_table) */
J3D_ATTR static void J3D_V(game_eval_many)(const ga_track *t, const double *frames, size_t n, float *out,
                                           int s16_table)
{
    for (size_t i = 0; i < n; i++) out[i] = J3D_V(game_eval)(t, (float)frames[i], s16_table);
}
