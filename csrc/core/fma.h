/* ga_fmaf: a * b + c with one rounding (to nearest, ties to even), the
 * same bits on every platform.
 *
 * The C library's fmaf cannot be trusted for that: mingw-w64's (the
 * Windows builds) is not correctly rounded, and a wrong last bit in the
 * J3D Hermite replay (csrc/formats/j3d.c, j3d_hermite.h) changes sampled values and the
 * truncated s16 rotations.  So the core never calls fmaf / fma:
 *
 *   - where the compiler is told the target has a fused multiply-add
 *     instruction (x86 with -mfma / __FMA__, or a target clone compiled
 *     for it: GA_FMA_HW; AArch64 always), __builtin_fmaf, which is then
 *     that one IEEE 754 instruction, correctly rounded by definition;
 *   - elsewhere, in software: the product of two floats is exact in
 *     double (24 + 24 significant bits <= 53, and exponents from -298 to
 *     256 stay in double's normal range), the sum with c is rounded once
 *     in double and its exact error recovered by TwoSum (Knuth; exact for
 *     any two doubles barring overflow, impossible here); the double sum
 *     is then made round-to-odd (if inexact and its last bit is even, step
 *     one ulp towards the exact value), and rounding a round-to-odd value
 *     of >= 24 + 2 bits to float is the correctly rounded result (Boldo
 *     and Melquiond, "When double rounding is odd", 2005).  That avoids
 *     the double-rounding trap of (float)((double)a * b + c).
 *
 * Requires the double arithmetic to be IEEE binary64 rounded to nearest
 * with no excess precision (FLT_EVAL_METHOD 0: SSE2 on x86-64, every
 * AArch64) and no contraction (-ffp-contract=off), as the build does. */
#ifndef GA_FMA_H
#define GA_FMA_H

#include <stdint.h>
#include <string.h>

static inline float ga_fmaf_soft(float a, float b, float c)
{
    double p = (double)a * (double)b; /* exact */
    double dc = (double)c;
    double s = p + dc;
    /* non-finite inputs or results: the double sum already has the IEEE
     * result (inf * 0 and inf - inf are NaN; a float cannot overflow in
     * double, so an infinite s came from an infinite input) */
    if (!(s - s == 0.0)) return (float)s;
    /* TwoSum: err = (p + dc) - s exactly */
    double bb = s - p;
    double err = (p - (s - bb)) + (dc - bb);
    if (err != 0.0) {
        uint64_t u;
        memcpy(&u, &s, sizeof u);
        if ((u & 1) == 0) {
            /* s is even: its neighbour towards the exact value is odd;
             * bit patterns of doubles of one sign are ordered like their
             * magnitudes (s != 0 here: an exact sum that rounds to zero is
             * zero, these operands being multiples of 2^-298) */
            if ((err > 0.0) == (s > 0.0)) u += 1;
            else u -= 1;
            memcpy(&s, &u, sizeof s);
        }
    }
    return (float)s;
}

#if defined(__aarch64__) || defined(__FMA__) || defined(GA_FMA_HW)
#define ga_fmaf(a, b, c) __builtin_fmaf((a), (b), (c))
#else
#define ga_fmaf(a, b, c) ga_fmaf_soft((a), (b), (c))
#endif

#endif
