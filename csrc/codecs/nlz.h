/* The Nintendo LZ tokens that Yaz0 and Yay0 share (nlz.c). */
#ifndef GAMEANIM_NLZ_H
#define GAMEANIM_NLZ_H

#include "gameanim.h"

#define NLZ_MAX 0x111u /* longest copy: 0xFF + 0x12 */

/* The Nintendo-style parse: the longest match in a 0x1000-byte window,
 * lengths 3..0x111, with a one-byte lookahead.  ga_nlz_next returns 0 at
 * the end; len 1 = a literal. */
typedef struct ga_nlz ga_nlz;
ga_nlz *ga_nlz_new(const uint8_t *data, size_t size);
int ga_nlz_next(ga_nlz *m, uint32_t *len, uint32_t *dist);
void ga_nlz_free(ga_nlz *m);

/* Decoding: copies n bytes from dist back into o at *op (advanced), after
 * checking that the copy stays inside the dsize bytes of output; an error
 * names the back-reference at input offset `at`. */
int ga_nlz_copy(uint8_t *o, size_t *op, size_t dsize, size_t dist, size_t n, const char *format, size_t at,
                ga_error *err);

#endif
