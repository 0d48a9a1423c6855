/* The GX TEV arithmetic, the alpha test and the lighting equation
 * (gx_tev.h).  Literal to ../shared/formats/j3d_materials.md 2.2-2.4 and
 * 3.1: 8-bit A/B/C operands (wrapped), the full s11 D, c' = C + (C >> 7),
 * the lerp's rounding terms, bias and scale, compares on packed keys, the
 * clamp, the final & 255.  Pixels go through in blocks, stage by stage, so
 * a stage's settings are decoded once per block. */
#include "gx_tev.h"

#include <string.h>

#define BLOCK 256

/* Konst selector -> value: 0-7 fixed fractions, 8-11 zero, 12-15 K0-K3
 * rgb (zero for alpha), 16-31 one component of K0-K3 replicated
 * (component-major: K0_R K1_R K2_R K3_R K0_G ...). */
static int konst_value(const uint8_t k[4][4], int sel, int comp, int alpha)
{
    static const uint8_t fixed[8] = {255, 223, 191, 159, 128, 96, 64, 32};
    if (sel < 8) return fixed[sel];
    if (sel < 12) return 0;
    if (sel < 16) return alpha ? 0 : k[sel - 12][comp];
    return k[(sel - 16) & 3][((sel - 16) >> 2) & 3];
}

static int floor_half(int v) { return v >= 0 ? v / 2 : -((1 - v) / 2); }

static int clamp_out(int v, int clamp)
{
    int lo = clamp ? 0 : -1024, hi = clamp ? 255 : 1023;
    return v < lo ? lo : v > hi ? hi : v;
}

/* A regular (add / sub) stage on one component. */
static int tev_regular(const ga_tev_op *o, int a, int b, int c, int d)
{
    static const int shift[4] = {0, 1, 2, 0};
    static const int bias[4] = {0, 128, -128, 0};
    a &= 255;
    b &= 255;
    c &= 255;
    int s = shift[o->scale & 3];
    int cp = c + (c >> 7);
    int lerp = (a * (256 - cp) + b * cp) * (1 << s);
    int round = (o->scale & 3) == 3 ? 0 : o->op == GA_TEV_SUB ? 127 : 128;
    lerp = (lerp + round) >> 8;
    int v = (d + bias[o->bias & 3]) * (1 << s);
    v = o->op == GA_TEV_SUB ? v - lerp : v + lerp;
    if ((o->scale & 3) == 3) v = floor_half(v);
    return clamp_out(v, o->clamp);
}

static int compare(int op, uint32_t ka, uint32_t kb) { return (op & 1) ? ka == kb : ka > kb; }

/* The packed key of an op's compare (R8, GR16, BGR24) from 8-bit r, g, b. */
static uint32_t key_of(int op, const int v[3])
{
    uint32_t r = (uint32_t)v[0] & 255, g = (uint32_t)v[1] & 255, b = (uint32_t)v[2] & 255;
    if (op < GA_TEV_COMP_GR16_GT) return r;
    if (op < GA_TEV_COMP_BGR24_GT) return g << 8 | r;
    return b << 16 | g << 8 | r;
}

/* Colour operand `sel`, component k (0..2) of one pixel. */
static int color_in(int sel, int k, int16_t reg[4][4][BLOCK], int i, const int t[4], const int r[4],
                    const int kc[3])
{
    switch (sel) {
    case GA_CC_CPREV: case GA_CC_C0: case GA_CC_C1: case GA_CC_C2: return reg[sel >> 1][k][i];
    case GA_CC_APREV: case GA_CC_A0: case GA_CC_A1: case GA_CC_A2: return reg[sel >> 1][3][i];
    case GA_CC_TEXC: return t[k];
    case GA_CC_TEXA: return t[3];
    case GA_CC_RASC: return r[k];
    case GA_CC_RASA: return r[3];
    case GA_CC_ONE: return 255;
    case GA_CC_HALF: return 128;
    case GA_CC_KONST: return kc[k];
    default: return 0;
    }
}

static int alpha_in(int sel, int16_t reg[4][4][BLOCK], int i, const int t[4], const int r[4], int ka)
{
    switch (sel) {
    case GA_CA_APREV: case GA_CA_A0: case GA_CA_A1: case GA_CA_A2: return reg[sel][3][i];
    case GA_CA_TEXA: return t[3];
    case GA_CA_RASA: return r[3];
    case GA_CA_KONST: return ka;
    default: return 0;
    }
}

static void run_stage(const ga_tev_state *st, const ga_tev_stage *sg, const uint8_t *tex, uint8_t tex_default,
                      const uint8_t *ras, size_t n, int16_t reg[4][4][BLOCK])
{
    int kc[3], ka = konst_value(st->konst, sg->konst_alpha, 3, 1);
    for (int k = 0; k < 3; k++) kc[k] = konst_value(st->konst, sg->konst_color, k, 0);
    const uint8_t *tsw = st->swap[sg->tex_swap & 3], *rsw = st->swap[sg->ras_swap & 3];
    const ga_tev_op *co = &sg->color, *ao = &sg->alpha;
    int cout = co->out & 3, aout = ao->out & 3;
    for (size_t i = 0; i < n; i++) {
        int t[4], r[4];
        for (int k = 0; k < 4; k++) {
            t[k] = tex ? tex[4 * i + (tsw[k] & 3)] : tex_default;
            r[k] = ras ? ras[4 * i + (rsw[k] & 3)] : 0;
        }
        int a[3], b[3], c[3], d[3], res[4];
        for (int k = 0; k < 3; k++) {
            a[k] = color_in(co->a, k, reg, (int)i, t, r, kc);
            b[k] = color_in(co->b, k, reg, (int)i, t, r, kc);
            c[k] = color_in(co->c, k, reg, (int)i, t, r, kc);
            d[k] = color_in(co->d, k, reg, (int)i, t, r, kc);
        }
        if (co->op < GA_TEV_COMP_R8_GT) {
            for (int k = 0; k < 3; k++) res[k] = tev_regular(co, a[k], b[k], c[k], d[k]);
        } else if (co->op >= GA_TEV_COMP_RGB8_GT) {
            for (int k = 0; k < 3; k++)
                res[k] = clamp_out(d[k] + (compare(co->op, a[k] & 255, b[k] & 255) ? c[k] & 255 : 0), co->clamp);
        } else {
            int cond = compare(co->op, key_of(co->op, a), key_of(co->op, b));
            for (int k = 0; k < 3; k++) res[k] = clamp_out(d[k] + (cond ? c[k] & 255 : 0), co->clamp);
        }
        int aa = alpha_in(ao->a, reg, (int)i, t, r, ka), ab = alpha_in(ao->b, reg, (int)i, t, r, ka);
        int ac = alpha_in(ao->c, reg, (int)i, t, r, ka), ad = alpha_in(ao->d, reg, (int)i, t, r, ka);
        if (ao->op < GA_TEV_COMP_R8_GT) {
            res[3] = tev_regular(ao, aa, ab, ac, ad);
        } else {
            /* A8 compares the alpha operands; R8, GR16 and BGR24 compare the
             * colour half's A and B (Dolphin's Tev.cpp does the same). */
            int cond = ao->op >= GA_TEV_COMP_RGB8_GT ? compare(ao->op, (uint32_t)aa & 255, (uint32_t)ab & 255)
                                                      : compare(ao->op, key_of(ao->op, a), key_of(ao->op, b));
            res[3] = clamp_out(ad + (cond ? ac & 255 : 0), ao->clamp);
        }
        for (int k = 0; k < 3; k++) reg[cout][k][i] = (int16_t)res[k];
        reg[aout][3][i] = (int16_t)res[3];
    }
}

static int alpha_compare(int comp, int alpha, int ref)
{
    switch (comp & 7) {
    case 0: return 0;
    case 1: return alpha < ref;
    case 2: return alpha == ref;
    case 3: return alpha <= ref;
    case 4: return alpha > ref;
    case 5: return alpha != ref;
    case 6: return alpha >= ref;
    default: return 1;
    }
}

int ga_tev_alpha_test(const uint8_t c[5], int alpha)
{
    int p0 = alpha_compare(c[0], alpha, c[1]), p1 = alpha_compare(c[3], alpha, c[4]);
    switch (c[2] & 3) {
    case 0: return p0 && p1;
    case 1: return p0 || p1;
    case 2: return p0 != p1;
    default: return p0 == p1;
    }
}

void ga_tev_eval(const ga_tev_state *st, const uint8_t *const *tex, const uint8_t *tex_default,
                 const uint8_t *const *ras, size_t n, uint8_t *rgba, uint8_t *passed)
{
    int16_t reg[4][4][BLOCK];
    uint32_t ns = st->nstages > GA_TEV_STAGES ? GA_TEV_STAGES : st->nstages;
    for (size_t at = 0; at < n; at += BLOCK) {
        size_t m = n - at < BLOCK ? n - at : BLOCK;
        /* register r <- slot: PREV from slot 3, C0-C2 from slots 0-2 */
        for (int rg = 0; rg < 4; rg++)
            for (int k = 0; k < 4; k++) {
                int16_t v = st->regs[rg == 0 ? 3 : rg - 1][k];
                for (size_t i = 0; i < m; i++) reg[rg][k][i] = v;
            }
        for (uint32_t s = 0; s < ns; s++)
            run_stage(st, &st->stages[s], tex && tex[s] ? tex[s] + 4 * at : NULL, tex_default ? tex_default[s] : 255,
                      ras && ras[s] ? ras[s] + 4 * at : NULL, m, reg);
        int cout = ns ? st->stages[ns - 1].color.out & 3 : 0, aout = ns ? st->stages[ns - 1].alpha.out & 3 : 0;
        for (size_t i = 0; i < m; i++) {
            uint8_t *o = rgba + 4 * (at + i);
            for (int k = 0; k < 3; k++) o[k] = (uint8_t)(reg[cout][k][i] & 255);
            o[3] = (uint8_t)(reg[aout][3][i] & 255);
            passed[at + i] = (uint8_t)ga_tev_alpha_test(st->alpha_compare, o[3]);
        }
    }
}

int ga_gx_channel_component(int lighting, int mat, int amb, double light_sum)
{
    if (!lighting) return mat;
    double sum = amb + light_sum;
    int l = sum <= 0.0 ? 0 : sum >= 255.0 ? 255 : (int)sum;
    return (mat * (l + (l >> 7))) >> 8;
}
