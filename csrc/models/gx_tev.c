/* The GX TEV arithmetic, the alpha test and the lighting equation
 * (gx_tev.h).  Literal to ../shared/formats/j3d_materials.md 2.2-2.4 and
 * 3.1: 8-bit A/B/C operands (wrapped), the full s11 D, c' = C + (C >> 7),
 * the lerp's rounding terms, bias and scale, compares on packed keys, the
 * clamp, the final & 255.  Pixels go through in blocks, stage by stage, so
 * a stage's settings are decoded once per block. */
#include "gx_tev.h"

#include <stdlib.h>
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

static int clamp_out(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* A regular (add / sub) stage on one component of n pixels. */
static void tev_regular(const ga_tev_op *o, const int16_t *A, const int16_t *B, const int16_t *C, const int16_t *D,
                        int16_t *out, size_t n)
{
    static const int mult[4] = {1, 2, 4, 1};
    static const int bias_of[4] = {0, 128, -128, 0};
    int m = mult[o->scale & 3], half = (o->scale & 3) == 3, sign = o->op == GA_TEV_SUB ? -1 : 1;
    int round = half ? 0 : o->op == GA_TEV_SUB ? 127 : 128, bias = bias_of[o->bias & 3];
    int lo = o->clamp ? 0 : -1024, hi = o->clamp ? 255 : 1023;
    for (size_t i = 0; i < n; i++) {
        int a = A[i] & 255, b = B[i] & 255, c = C[i] & 255; /* the 8-bit operands wrap */
        int cp = c + (c >> 7);                                 /* 0..255 -> 0..256 */
        int lerp = ((a * (256 - cp) + b * cp) * m + round) >> 8;
        int v = (D[i] + bias) * m + sign * lerp;
        if (half) v = (v - (v & 1)) / 2;                       /* floor(v / 2) */
        out[i] = (int16_t)clamp_out(v, lo, hi);
    }
}

/* The packed key of a compare (R8, GR16, BGR24) from 8-bit r, g, b. */
static uint32_t key_of(int op, int r, int g, int b)
{
    uint32_t ur = (uint32_t)r & 255, ug = (uint32_t)g & 255, ub = (uint32_t)b & 255;
    if (op < GA_TEV_COMP_GR16_GT) return ur;
    if (op < GA_TEV_COMP_BGR24_GT) return ug << 8 | ur;
    return ub << 16 | ug << 8 | ur;
}

static int compare(int op, uint32_t ka, uint32_t kb) { return (op & 1) ? ka == kb : ka > kb; }

/* What a stage reads, per component, as arrays of the block: the registers,
 * the swapped TEX and RAS, and constant rows. */
typedef struct block {
    int16_t reg[4][4][BLOCK];
    int16_t tex[4][BLOCK], ras[4][BLOCK];
    int16_t konst[4][BLOCK]; /* the stage's konst r, g, b (colour select) and a (alpha select) */
    int16_t one[BLOCK], half[BLOCK], zero[BLOCK];
    int16_t res[4][BLOCK];
} block;

static const int16_t *color_in(block *bk, int sel, int k)
{
    switch (sel) {
    case GA_CC_CPREV: case GA_CC_C0: case GA_CC_C1: case GA_CC_C2: return bk->reg[sel >> 1][k];
    case GA_CC_APREV: case GA_CC_A0: case GA_CC_A1: case GA_CC_A2: return bk->reg[sel >> 1][3];
    case GA_CC_TEXC: return bk->tex[k];
    case GA_CC_TEXA: return bk->tex[3];
    case GA_CC_RASC: return bk->ras[k];
    case GA_CC_RASA: return bk->ras[3];
    case GA_CC_ONE: return bk->one;
    case GA_CC_HALF: return bk->half;
    case GA_CC_KONST: return bk->konst[k];
    default: return bk->zero;
    }
}

static const int16_t *alpha_in(block *bk, int sel)
{
    switch (sel) {
    case GA_CA_APREV: case GA_CA_A0: case GA_CA_A1: case GA_CA_A2: return bk->reg[sel][3];
    case GA_CA_TEXA: return bk->tex[3];
    case GA_CA_RASA: return bk->ras[3];
    case GA_CA_KONST: return bk->konst[3];
    default: return bk->zero;
    }
}

/* Fills a row from n RGBA8 pixels through a swap table (or a constant). */
static void load_swapped(int16_t row[4][BLOCK], const uint8_t *px, const uint8_t swap[4], int fallback, size_t n)
{
    for (int k = 0; k < 4; k++) {
        int src = swap[k] & 3;
        if (!px)
            for (size_t i = 0; i < n; i++) row[k][i] = (int16_t)fallback;
        else
            for (size_t i = 0; i < n; i++) row[k][i] = px[4 * i + src];
    }
}

static void run_stage(const ga_tev_state *st, const ga_tev_stage *sg, const uint8_t *tex, uint8_t tex_default,
                      const uint8_t *ras, size_t n, block *bk)
{
    load_swapped(bk->tex, tex, st->swap[sg->tex_swap & 3], tex_default, n);
    load_swapped(bk->ras, ras, st->swap[sg->ras_swap & 3], 0, n);
    for (int k = 0; k < 4; k++) {
        int v = konst_value(st->konst, k < 3 ? sg->konst_color : sg->konst_alpha, k, k == 3);
        for (size_t i = 0; i < n; i++) bk->konst[k][i] = (int16_t)v;
    }
    const ga_tev_op *co = &sg->color, *ao = &sg->alpha;
    const int16_t *A[3], *B[3], *C[3], *D[3];
    for (int k = 0; k < 3; k++) {
        A[k] = color_in(bk, co->a, k);
        B[k] = color_in(bk, co->b, k);
        C[k] = color_in(bk, co->c, k);
        D[k] = color_in(bk, co->d, k);
    }
    int clo = co->clamp ? 0 : -1024, chi = co->clamp ? 255 : 1023;
    if (co->op < GA_TEV_COMP_R8_GT) {
        for (int k = 0; k < 3; k++) tev_regular(co, A[k], B[k], C[k], D[k], bk->res[k], n);
    } else if (co->op >= GA_TEV_COMP_RGB8_GT) {
        for (int k = 0; k < 3; k++)
            for (size_t i = 0; i < n; i++)
                bk->res[k][i] = (int16_t)clamp_out(
                    D[k][i] + (compare(co->op, (uint32_t)A[k][i] & 255, (uint32_t)B[k][i] & 255) ? C[k][i] & 255 : 0),
                    clo, chi);
    } else {
        for (size_t i = 0; i < n; i++) {
            int hit = compare(co->op, key_of(co->op, A[0][i], A[1][i], A[2][i]),
                              key_of(co->op, B[0][i], B[1][i], B[2][i]));
            for (int k = 0; k < 3; k++)
                bk->res[k][i] = (int16_t)clamp_out(D[k][i] + (hit ? C[k][i] & 255 : 0), clo, chi);
        }
    }
    const int16_t *aa = alpha_in(bk, ao->a), *ab = alpha_in(bk, ao->b), *ac = alpha_in(bk, ao->c),
                  *ad = alpha_in(bk, ao->d);
    int alo = ao->clamp ? 0 : -1024, ahi = ao->clamp ? 255 : 1023;
    if (ao->op < GA_TEV_COMP_R8_GT) {
        tev_regular(ao, aa, ab, ac, ad, bk->res[3], n);
    } else if (ao->op >= GA_TEV_COMP_RGB8_GT) {
        for (size_t i = 0; i < n; i++)
            bk->res[3][i] = (int16_t)clamp_out(
                ad[i] + (compare(ao->op, (uint32_t)aa[i] & 255, (uint32_t)ab[i] & 255) ? ac[i] & 255 : 0), alo, ahi);
    } else {
        /* R8, GR16 and BGR24 on the alpha half compare the colour half's A
         * and B (Dolphin's Tev.cpp does the same) */
        for (size_t i = 0; i < n; i++) {
            int hit = compare(ao->op, key_of(ao->op, A[0][i], A[1][i], A[2][i]),
                              key_of(ao->op, B[0][i], B[1][i], B[2][i]));
            bk->res[3][i] = (int16_t)clamp_out(ad[i] + (hit ? ac[i] & 255 : 0), alo, ahi);
        }
    }
    /* every read is done: write the destinations */
    for (int k = 0; k < 3; k++) memcpy(bk->reg[co->out & 3][k], bk->res[k], n * sizeof(int16_t));
    memcpy(bk->reg[ao->out & 3][3], bk->res[3], n * sizeof(int16_t));
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
    block *bk = malloc(sizeof *bk);
    if (!bk) { /* (about 60 KB: past the stack a caller may have) */
        memset(rgba, 0, 4 * n);
        memset(passed, 0, n);
        return;
    }
    for (size_t i = 0; i < BLOCK; i++) bk->one[i] = 255, bk->half[i] = 128, bk->zero[i] = 0;
    uint32_t ns = st->nstages > GA_TEV_STAGES ? GA_TEV_STAGES : st->nstages;
    for (size_t at = 0; at < n; at += BLOCK) {
        size_t m = n - at < BLOCK ? n - at : BLOCK;
        /* register r <- slot: PREV from slot 3, C0-C2 from slots 0-2 */
        for (int rg = 0; rg < 4; rg++)
            for (int k = 0; k < 4; k++) {
                int16_t v = st->regs[rg == 0 ? 3 : rg - 1][k];
                for (size_t i = 0; i < m; i++) bk->reg[rg][k][i] = v;
            }
        for (uint32_t s = 0; s < ns; s++)
            run_stage(st, &st->stages[s], tex && tex[s] ? tex[s] + 4 * at : NULL, tex_default ? tex_default[s] : 255,
                      ras && ras[s] ? ras[s] + 4 * at : NULL, m, bk);
        int cout = ns ? st->stages[ns - 1].color.out & 3 : 0, aout = ns ? st->stages[ns - 1].alpha.out & 3 : 0;
        for (size_t i = 0; i < m; i++) {
            uint8_t *o = rgba + 4 * (at + i);
            for (int k = 0; k < 3; k++) o[k] = (uint8_t)(bk->reg[cout][k][i] & 255); /* the final & 255 */
            o[3] = (uint8_t)(bk->reg[aout][3][i] & 255);
            passed[at + i] = (uint8_t)ga_tev_alpha_test(st->alpha_compare, o[3]);
        }
    }
    free(bk);
}

int ga_gx_channel_component(int lighting, int mat, int amb, double light_sum)
{
    if (!lighting) return mat;
    double sum = amb + light_sum;
    int l = sum <= 0.0 ? 0 : sum >= 255.0 ? 255 : (int)sum;
    return (mat * (l + (l >> 7))) >> 8;
}
