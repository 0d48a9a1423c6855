/* Sine, cosine and arctangent for the core's pose math (bake_pose,
 * Euler <-> quaternion, the model files' rest rotations), computed with
 * + - * / and sqrt only: IEEE 754 makes each of those correctly rounded, so
 * with -ffp-contract=off and no excess precision every platform gets the
 * same bits.  The C library's sin / cos / atan2 differ between glibc,
 * mingw-w64 and Apple's libm in the last bit now and then, and that could
 * change a baked float (issue 25).  Accuracy: within a few units in the
 * last place of double (tests/test_cross.py against exact references), far
 * below float32's resolution, where the results end up.
 *
 * Argument reduction: x - k pi/2 with pi/2 in three parts (33, 33 and 53
 * significant bits; k pi/2_1 and k pi/2_2 are exact for |k| < 2^20, i.e.
 * |x| < 1.6e6 rad; larger angles stay deterministic, less accurate).
 * Kernels: Taylor polynomials on |r| <= pi/4 (sine to r^25, cosine to
 * r^26; remainders below 1e-30), arctangent to u^43 on |u| <= tan(pi/8)
 * after atan z = pi/4 + atan((z - 1) / (z + 1)).  Coefficients are the
 * exact series terms rounded to double (hex literals, exact in C). */
#include "trig.h"

#include <math.h>

#define PIO2_1 0x1.921fb54400000p+0   /* pi/2, first 33 bits */
#define PIO2_2 0x1.0b4611a600000p-34  /* the next 33 bits */
#define PIO2_3 0x1.3198a2e037073p-69  /* the next 53 bits */
#define PIO2 0x1.921fb54442d18p+0
#define PIO4 0x1.921fb54442d18p-1
#define PI_HI 0x1.921fb54442d18p+1
#define PI_LO 0x1.1a62633145c07p-53
#define TWO_OVER_PI 0x1.45f306dc9c883p-1
#define TAN_PI_8 0x1.a827999fcef32p-2

/* (-1)^k / (2k+1)!, k = 1..12 */
static const double SIN_C[12] = {
    -0x1.5555555555555p-3, 0x1.1111111111111p-7, -0x1.a01a01a01a01ap-13,
    0x1.71de3a556c734p-19, -0x1.ae64567f544e4p-26, 0x1.6124613a86d09p-33,
    -0x1.ae7f3e733b81fp-41, 0x1.952c77030ad4ap-49, -0x1.2f49b46814157p-57,
    0x1.71b8ef6dcf572p-66, -0x1.761b41316381ap-75, 0x1.3f3ccdd165fa9p-84};

/* (-1)^k / (2k)!, k = 1..13 */
static const double COS_C[13] = {
    -0x1.0000000000000p-1, 0x1.5555555555555p-5, -0x1.6c16c16c16c17p-10,
    0x1.a01a01a01a01ap-16, -0x1.27e4fb7789f5cp-22, 0x1.1eed8eff8d898p-29,
    -0x1.93974a8c07c9dp-37, 0x1.ae7f3e733b81fp-45, -0x1.6827863b97d97p-53,
    0x1.e542ba4020225p-62, -0x1.0ce396db7f853p-70, 0x1.f2cf01972f578p-80,
    -0x1.88e85fc6a4e5ap-89};

/* (-1)^k / (2k+1), k = 1..21 */
static const double ATAN_C[21] = {
    -0x1.5555555555555p-2, 0x1.999999999999ap-3, -0x1.2492492492492p-3,
    0x1.c71c71c71c71cp-4, -0x1.745d1745d1746p-4, 0x1.3b13b13b13b14p-4,
    -0x1.1111111111111p-4, 0x1.e1e1e1e1e1e1ep-5, -0x1.af286bca1af28p-5,
    0x1.8618618618618p-5, -0x1.642c8590b2164p-5, 0x1.47ae147ae147bp-5,
    -0x1.2f684bda12f68p-5, 0x1.1a7b9611a7b96p-5, -0x1.0842108421084p-5,
    0x1.f07c1f07c1f08p-6, -0x1.d41d41d41d41dp-6, 0x1.bacf914c1bad0p-6,
    -0x1.a41a41a41a41ap-6, 0x1.8f9c18f9c18fap-6, -0x1.7d05f417d05f4p-6};

static double poly(const double *c, int n, double x2)
{
    double p = c[n - 1];
    for (int i = n - 2; i >= 0; i--) p = c[i] + x2 * p;
    return p;
}

static double k_sin(double r)
{
    double r2 = r * r;
    return r + r * (r2 * poly(SIN_C, 12, r2));
}

static double k_cos(double r)
{
    double r2 = r * r;
    return 1.0 + r2 * poly(COS_C, 13, r2);
}

/* r = x - k pi/2 with |r| <= ~pi/4; returns k mod 4 */
static int reduce(double x, double *r)
{
    double k = nearbyint(x * TWO_OVER_PI);
    *r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    return (int)(fmod(k, 4.0) + 4.0) & 3;
}

void ga_sincos(double x, double *s, double *c)
{
    if (!isfinite(x)) {
        *s = *c = x - x; /* NaN */
        return;
    }
    if (fabs(x) <= PIO4) {
        *s = x == 0.0 ? x : k_sin(x); /* keeps -0 */
        *c = k_cos(x);
        return;
    }
    double r;
    int q = reduce(x, &r);
    double sr = k_sin(r), cr = k_cos(r);
    switch (q) {
    case 0: *s = sr; *c = cr; break;
    case 1: *s = cr; *c = -sr; break;
    case 2: *s = -sr; *c = -cr; break;
    default: *s = -cr; *c = sr; break;
    }
}

double ga_sin(double x)
{
    double s, c;
    ga_sincos(x, &s, &c);
    return s;
}

double ga_cos(double x)
{
    double s, c;
    ga_sincos(x, &s, &c);
    return c;
}

/* atan z for 0 <= z <= 1 */
static double atan01(double z)
{
    double base = 0.0;
    if (z > TAN_PI_8) {
        z = (z - 1.0) / (z + 1.0);
        base = PIO4;
    }
    double z2 = z * z;
    return base + (z + z * (z2 * poly(ATAN_C, 21, z2)));
}

double ga_atan2(double y, double x)
{
    if (isnan(x) || isnan(y)) return x + y;
    double sy = signbit(y) ? -1.0 : 1.0;
    if (y == 0.0) {
        if (signbit(x)) return sy * PI_HI; /* x < 0 or x = -0 */
        return y;                          /* +-0 */
    }
    if (isinf(x)) {
        if (isinf(y)) return sy * (x > 0 ? PIO4 : 3.0 * PIO4);
        return x > 0 ? sy * 0.0 : sy * PI_HI;
    }
    if (x == 0.0 || isinf(y)) return sy * PIO2;
    double ax = fabs(x), ay = fabs(y), a;
    if (ay <= ax) a = atan01(ay / ax);
    else a = (PIO2 - atan01(ax / ay));
    if (x < 0) a = (PI_HI - a) + PI_LO;
    return sy * a;
}
