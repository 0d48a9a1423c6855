/* The game's joint matrices for a model's skeleton (model.h).
 * STUB: filled in by the world-matrices work of issue 19. */
#include "model.h"

int ga_model_world_matrices(const ga_model *m, const ga_clip *clip, const ga_format *fmt, const double *frames,
                            size_t nframes, float *out, ga_error *err)
{
    (void)m; (void)clip; (void)fmt; (void)frames; (void)nframes; (void)out;
    return ga_fail(err, GA_ERR_ARG, "model", "world_matrices", 0, "not implemented yet");
}
