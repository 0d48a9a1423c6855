/* The edit policy (edit.c): which tracks of an edited clip keep the bytes
 * they had in the file, and whether the file's own bytes are the answer.
 * Plain C; the binding and the fuzz targets drive it. */
#ifndef GAMEANIM_EDIT_H
#define GAMEANIM_EDIT_H

#include "gameanim.h"

typedef enum ga_reencode {
    GA_REENCODE_NONE = 0, /* the original bytes when nothing changed */
    GA_REENCODE_RAW = 1,  /* always encode, reusing the original data of unchanged tracks */
    GA_REENCODE_FULL = 2  /* encode every track from its values, as for a new animation */
} ga_reencode;

typedef struct ga_edit {
    int32_t *orig_track; /* per clip track: an identical original track, or -1 (malloc'ed) */
    int header_changed;  /* loop / frame_count / fps / params / entries differ */
    int unchanged;       /* nothing changed: the file's own bytes are the answer */
} ga_edit;

/* Plans an encode of clip, decoded from orig (NULL for a new animation). */
int ga_edit_plan(const ga_clip *clip, const ga_clip *orig, int reencode, ga_edit *plan, ga_error *err);
void ga_edit_free(ga_edit *plan);
/* Runs the format's encoder as planned (raw: the record orig came with). */
int ga_edit_encode(const ga_format *fmt, const ga_edit *plan, const void *raw, const ga_clip *orig,
                   const ga_clip *clip, int reencode, double tolerance, ga_report *rep, ga_buf *out, ga_error *err);
/* Whether clip differs from orig in anything an encode would write. */
int ga_clip_modified(const ga_clip *clip, const ga_clip *orig);
/* Whether an encode's payload is byte for byte the file's. */
int ga_same_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

#endif
