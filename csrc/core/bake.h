/* Baking: a clip's channels onto a rig's pose basis, and back (bake.c).
 * Plain C, no Python objects: the binding runs these without the GIL. */
#ifndef GAMEANIM_BAKE_H
#define GAMEANIM_BAKE_H

#include "gameanim.h"

/* One bone to bake: the pose basis is pre * L * post with L the clip's
 * local transform; track[] the clip tracks of its 13 channel components
 * (scale xyz, euler xyz, translation xyz, quaternion wxyz), -1 for none. */
typedef struct ga_bake_bone {
    double pre[16], post[16];
    int32_t track[13];
} ga_bake_bone;

/* Fills bone->track from the clip's tracks that target the bone (by name
 * when name != NULL, else by id), among those keep[] marks as applied;
 * the first track of a component wins. */
void ga_bake_find_tracks(const ga_clip *c, const uint8_t *keep, const char *name, long id, ga_bake_bone *bone);

/* Samples the bone's 13 channels into `samples` (13 x nf floats), then
 * writes the 10 basis channels (location xyz, quaternion wxyz with its
 * sign kept continuous, scale xyz) as (frame * time_scale + time_offset,
 * value) pairs into o[0..9] (2 x nf floats each). */
int ga_bake_one_bone(const ga_clip *c, const ga_format *fmt, const ga_bake_bone *bone, const double *frames,
                     size_t nf, double tscale, double time_scale, double time_offset, float *samples,
                     float *const o[10], ga_error *err);

/* Whether the values of n flat (x, y) pairs are one number: each equal to
 * the first bit for bit (a NaN too) or as a number (0.0 and -0.0). */
int ga_values_one_number(const float *co, size_t n);

/* How the rotation of a pose basis is given. */
typedef enum ga_rotation_kind {
    GA_ROT_QUATERNION = 0, /* w, x, y, z */
    GA_ROT_AXIS_ANGLE = 1, /* angle, x, y, z */
    GA_ROT_EULER = 2       /* three angles, applied in the order the order string names */
} ga_rotation_kind;

/* The inverse of baking for one bone: per-frame pose-basis channels
 * (loc[3], rot[3 or 4], scl[3], nf values each) become the local
 * transform ipre * basis * ipost.  out: 13 x nf floats (translation / tscale
 * xyz, Euler XYZ continuous from frame to frame, quaternion wxyz with a
 * continuous sign, scale xyz).  *skew: the largest difference of the local
 * 3x3 from its recomposition (what the channels cannot hold), at frame
 * *skew_at. */
void ga_local_from_basis(const double ipre[16], const double ipost[16], int rot_kind, const char *euler_order,
                         const float *const loc[3], const float *const rot[4], const float *const scl[3],
                         size_t nf, double tscale, float *out, double *skew, size_t *skew_at);

#endif
