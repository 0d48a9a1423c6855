/* The GX pixel pipeline's integer arithmetic: TEV stages, the alpha test
 * and the colour-channel lighting equation, evaluated for many pixels per
 * call.  Plain C, no J3D knowledge (j3d_materials.c fills the state from
 * MAT3; the binding from Python).  Rules: ../shared/formats/j3d_materials.md
 * sections 2.2-2.4 and 3.1; docs/materials.md. */
#ifndef GAMEANIM_GX_TEV_H
#define GAMEANIM_GX_TEV_H

#include <stddef.h>
#include <stdint.h>

#define GA_TEV_STAGES 16

/* Input selectors (GX_CC_* / GX_CA_*), ops (GX_TEV_*), and what a konst
 * selector picks. */
enum {
    GA_CC_CPREV = 0, GA_CC_APREV, GA_CC_C0, GA_CC_A0, GA_CC_C1, GA_CC_A1, GA_CC_C2, GA_CC_A2, GA_CC_TEXC,
    GA_CC_TEXA, GA_CC_RASC, GA_CC_RASA, GA_CC_ONE, GA_CC_HALF, GA_CC_KONST, GA_CC_ZERO
};
enum { GA_CA_APREV = 0, GA_CA_A0, GA_CA_A1, GA_CA_A2, GA_CA_TEXA, GA_CA_RASA, GA_CA_KONST, GA_CA_ZERO };
enum {
    GA_TEV_ADD = 0, GA_TEV_SUB = 1, GA_TEV_COMP_R8_GT = 8, GA_TEV_COMP_R8_EQ, GA_TEV_COMP_GR16_GT,
    GA_TEV_COMP_GR16_EQ, GA_TEV_COMP_BGR24_GT, GA_TEV_COMP_BGR24_EQ, GA_TEV_COMP_RGB8_GT, GA_TEV_COMP_RGB8_EQ
};

/* One half (colour or alpha) of a stage, the file's codes. */
typedef struct ga_tev_op {
    uint8_t a, b, c, d;
    uint8_t op;      /* 0 add, 1 sub, 8..15 compares */
    uint8_t bias;    /* 0 zero, 1 +128, 2 -128 (ignored by compares) */
    uint8_t scale;   /* 0 x1, 1 x2, 2 x4, 3 x1/2 (ignored by compares) */
    uint8_t clamp;   /* non-zero: clamp to 0..255, else to -1024..1023 */
    uint8_t out;     /* 0 PREV, 1 REG0 (C0), 2 REG1, 3 REG2 */
} ga_tev_op;

typedef struct ga_tev_stage {
    ga_tev_op color, alpha;
    uint8_t konst_color, konst_alpha; /* konst selectors 0..31 */
    uint8_t ras_swap, tex_swap;       /* swap table indices 0..3 */
} ga_tev_stage;

typedef struct ga_tev_state {
    uint32_t nstages;                /* 1..16 */
    ga_tev_stage stages[GA_TEV_STAGES];
    uint8_t swap[4][4];              /* per table: the source channel of R, G, B, A */
    /* Register start values, s11, in the file's slot order: slots 0-2
     * load C0-C2 (REG0-REG2) and PREV starts from slot 3 (section 2.2). */
    int16_t regs[4][4];
    uint8_t konst[4][4];
    uint8_t alpha_compare[5];        /* comp0, ref0, op, comp1, ref1 */
} ga_tev_state;

/* Evaluates n pixels.  tex[s] / ras[s]: stage s's texture sample (before
 * the swap tables) and rasterised colour, RGBA8, n pixels each; a NULL
 * entry reads tex_default[s] / 0 in every component (a stage without a
 * texture or colour).  Writes rgba (4n bytes: the last stage's colour and
 * alpha destinations, & 255) and passed (n bytes, the alpha test, 0/1). */
void ga_tev_eval(const ga_tev_state *st, const uint8_t *const *tex, const uint8_t *tex_default,
                 const uint8_t *const *ras, size_t n, uint8_t *rgba, uint8_t *passed);

/* The alpha test of one 8-bit alpha (section 2.4). */
int ga_tev_alpha_test(const uint8_t compare[5], int alpha);

/* One colour channel component by the lighting equation (section 3.1):
 * mat = the material register or vertex colour, amb likewise for the
 * ambient; light_sum = the summed light colour x diffuse x attenuation of
 * the lights in the mask (0..255 units).  Lighting off: mat. */
int ga_gx_channel_component(int lighting, int mat, int amb, double light_sum);

#endif
