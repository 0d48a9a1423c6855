/* Deterministic sine, cosine and arctangent (trig.c): the same bits on
 * every platform, unlike the C library's.  Use these, not <math.h>'s
 * sin / cos / atan2, wherever a result can reach a user. */
#ifndef GA_TRIG_H
#define GA_TRIG_H

void ga_sincos(double x, double *s, double *c);
double ga_sin(double x);
double ga_cos(double x);
double ga_atan2(double y, double x);

#endif
