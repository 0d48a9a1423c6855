/* The GX pixel pipeline's integer arithmetic: TEV stages, the alpha test
 * and the colour-channel lighting equation, evaluated for many pixels per
 * call.  Plain C, no J3D knowledge (j3d_materials.c fills the state from
 * MAT3; the binding from Python).  Rules: ../shared/formats/j3d_materials.md
 * sections 2.2-2.4 and 3.1; docs/materials.md. */
#ifndef GAMEANIM_GX_TEV_H
#define GAMEANIM_GX_TEV_H

#include <stddef.h>
#include <stdint.h>

#include "gx_tev_state.h" /* (core) the state types */

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
