/* JUTNameTab, the name table of every J3D file (animations and models):
 * u16 count, u16 0xFFFF, count x {u16 key, u16 string offset from the
 * table start}, the NUL-terminated names.  Shared by the animation
 * writers (formats/) and the model writer (models/).  Plain C. */
#ifndef GAMEANIM_JUT_NAMES_H
#define GAMEANIM_JUT_NAMES_H

#include "gameanim.h"

/* The key the game looks names up by: h = h * 3 + c over the bytes as
 * signed chars, 16 bits. */
uint16_t ga_jut_name_key(const char *s);
/* Appends the table of n names (NULL: ""), keys computed; no padding
 * after it.  The caller keeps the string offsets within 16 bits. */
void ga_jut_put_names(ga_buf *b, const char *const *names, uint32_t n);

#endif
