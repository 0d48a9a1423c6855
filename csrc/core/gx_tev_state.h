/* The GX pixel pipeline's state as the TEV evaluator takes it (the
 * selectors, ops, swap tables, register and konst start values, alpha
 * test): plain data, part of the model contract (model.h: a material's
 * decoded state) and of the evaluator's (models/gx_tev.h, which holds the
 * arithmetic).  Codes: ../shared/formats/j3d_materials.md section 2. */
#ifndef GAMEANIM_GX_TEV_STATE_H
#define GAMEANIM_GX_TEV_STATE_H

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

#endif
