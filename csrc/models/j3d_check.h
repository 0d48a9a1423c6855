/* The game-acceptance lint of a J3D model (BMD / BDL): the problems the
 * game's loader or the GX hardware would hit, as text, read straight from
 * the chunks' bytes (issue 34; notes: ../shared/formats/j3d_writer.md
 * sections 0, 2 and 5.4; the list of checks and the fact behind each:
 * docs/model_writer.md, "check_model: what the game's loader needs").
 *
 * Only what the loader or the hardware requires is reported, never a
 * Nintendo convention, so that an unedited retail model gives no problem.
 * Every read is bounds-checked: a malformed chunk gives a problem naming
 * its chunk, field and byte offset, and the checks that need it are
 * skipped.  Plain C, no Python. */
#ifndef GAMEANIM_J3D_CHECK_H
#define GAMEANIM_J3D_CHECK_H

#include "model.h"

/* At most this many problems are listed; one more line then says that
 * more were left off. */
#define GA_CHECK_MAX_PROBLEMS 200

typedef struct ga_check_list {
    char **items;  /* NUL-terminated, malloc'ed; warnings start "warning:" */
    size_t count, cap;
    size_t dropped; /* problems past GA_CHECK_MAX_PROBLEMS */
} ga_check_list;

/* Checks m (a loaded J3D model, e.g. from ga_load_model) and appends each
 * problem to out (zeroed by the caller).  GA_OK with out->count 0: nothing
 * found.  Fails only when m is not a J3D model (GA_ERR_FORMAT) or memory
 * runs out; out is then freed. */
int ga_j3d_check(const ga_model *m, ga_check_list *out, ga_error *err);
void ga_check_list_free(ga_check_list *l);

#endif
