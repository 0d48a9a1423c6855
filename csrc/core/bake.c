/* Baking animation channels onto a rig's pose basis and back (bake.h).
 * The arithmetic is in the order the results were first published in:
 * keep it so, or baked curves stop matching earlier exports bit for bit. */
#include "bake.h"
#include "trig.h"

#include <math.h>
#include <string.h>

#include "pose.h"

static int target_matches(const ga_track *t, const char *name, long id)
{
    if (name) return t->target_name && strcmp(t->target_name, name) == 0;
    return !t->target_name && id == t->target;
}

void ga_bake_find_tracks(const ga_clip *c, const uint8_t *keep, const char *name, long id, ga_bake_bone *bone)
{
    for (int k = 0; k < 13; k++) bone->track[k] = -1;
    for (uint32_t i = 0; i < c->ntracks; i++) {
        const ga_track *t = &c->tracks[i];
        if (!keep[i] || !target_matches(t, name, id)) continue;
        if (t->channel > GA_CH_ROTATION_QUATERNION) continue; /* colours, texture numbers: not a pose */
        int slot = t->channel == GA_CH_ROTATION_QUATERNION ? 9 + t->axis : t->channel * 3 + t->axis;
        if (slot < 13 && bone->track[slot] < 0) bone->track[slot] = (int32_t)i;
    }
}

static int mat_is_identity(const double m[16])
{
    for (int i = 0; i < 16; i++)
        if (m[i] != (i % 5 == 0 ? 1.0 : 0.0)) return 0;
    return 1;
}

/* ga_mat_decompose with the quaternion kept on the side of `prev` (the
 * previous frame's, updated), so that Blender's per-component
 * interpolation between frames goes the short way. */
static void decompose_continuous(const double m[16], double prev[4], double t[3], double q[4], double s[3])
{
    ga_mat_decompose(m, t, q, s);
    double dot = q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3];
    if (dot < 0.0)
        for (int i = 0; i < 4; i++) q[i] = -q[i];
    memcpy(prev, q, 4 * sizeof *prev);
}

int ga_values_one_number(const float *co, size_t n)
{
    uint32_t first;
    memcpy(&first, &co[1], 4);
    for (size_t f = 1; f < n; f++) {
        uint32_t bits;
        memcpy(&bits, &co[2 * f + 1], 4);
        if (bits != first && !(co[2 * f + 1] == co[1])) return 0;
    }
    return 1;
}

int ga_bake_one_bone(const ga_clip *c, const ga_format *fmt, const ga_bake_bone *bone, const double *frames,
                     size_t nf, double tscale, double time_scale, double time_offset, float *samples,
                     float *const o[10], ga_error *err)
{
    int has_quat = bone->track[9] >= 0 || bone->track[10] >= 0 || bone->track[11] >= 0 || bone->track[12] >= 0;
    for (int k = 0; k < 13; k++) {
        float *dst = samples + (size_t)k * nf;
        int ti = bone->track[k];
        if (ti < 0) {
            float d = (k < 3 || k == 9) ? 1.0f : 0.0f;
            for (size_t f = 0; f < nf; f++) dst[f] = d;
        } else if (fmt->sample) {
            int rc = fmt->sample(c, (uint32_t)ti, frames, nf, dst, err);
            if (rc) return rc;
        } else {
            ga_track_eval_many(&c->tracks[ti], frames, nf, dst);
        }
    }
    const float *S = samples;
    /* multiplying by an identity matrix changes nothing (finite values):
     * skip it */
    int pre_id = mat_is_identity(bone->pre), post_id = mat_is_identity(bone->post);
    double prev[4] = {1, 0, 0, 0};
    for (size_t f = 0; f < nf; f++) {
        double sc[3], tr[3], q[4];
        for (int i = 0; i < 3; i++) {
            sc[i] = S[(size_t)i * nf + f];
            tr[i] = S[(size_t)(6 + i) * nf + f] * tscale;
        }
        if (has_quat) {
            for (int i = 0; i < 4; i++) q[i] = S[(size_t)(9 + i) * nf + f];
        } else {
            double e[3] = {S[(size_t)3 * nf + f], S[(size_t)4 * nf + f], S[(size_t)5 * nf + f]};
            ga_quat_from_euler_xyz(e, q);
        }
        double local[16], m[16], basis[16];
        ga_mat_from_trs(tr, q, sc, local);
        const double *cur = local;
        if (!pre_id) {
            ga_mat_mul(bone->pre, cur, m);
            cur = m;
        }
        if (!post_id) {
            ga_mat_mul(cur, bone->post, basis);
            cur = basis;
        }
        double bt[3], bq[4], bs[3];
        decompose_continuous(cur, prev, bt, bq, bs);
        double vals[10] = {bt[0], bt[1], bt[2], bq[0], bq[1], bq[2], bq[3], bs[0], bs[1], bs[2]};
        float x = (float)(frames[f] * time_scale + time_offset);
        for (int k = 0; k < 10; k++) {
            o[k][2 * f] = x;
            o[k][2 * f + 1] = (float)vals[k];
        }
    }
    return GA_OK;
}

void ga_local_from_basis(const double ipre[16], const double ipost[16], int rot_kind, const char *euler_order,
                         const float *const L[3], const float *const R[4], const float *const S[3],
                         size_t nf, double tscale, float *out, double *skew_out, size_t *skew_at_out)
{
    double skew = 0.0;
    size_t skew_at = 0;
    double prev_e[3] = {0, 0, 0}, prev_q[4] = {1, 0, 0, 0};
    for (size_t f = 0; f < nf; f++) {
        double t[3] = {L[0][f], L[1][f], L[2][f]}, s[3] = {S[0][f], S[1][f], S[2][f]}, q[4];
        if (rot_kind == GA_ROT_QUATERNION) {
            for (int k = 0; k < 4; k++) q[k] = R[k][f];
        } else if (rot_kind == GA_ROT_AXIS_ANGLE) {
            double ang = R[0][f], ax = R[1][f], ay = R[2][f], az = R[3][f];
            double len = sqrt(ax * ax + ay * ay + az * az);
            if (len > 0.0) {
                double sn = ga_sin(ang * 0.5) / len;
                q[0] = ga_cos(ang * 0.5);
                q[1] = ax * sn;
                q[2] = ay * sn;
                q[3] = az * sn;
            } else {
                q[0] = 1.0;
                q[1] = q[2] = q[3] = 0.0;
            }
        } else {
            double e[3] = {R[0][f], R[1][f], R[2][f]};
            ga_quat_from_euler(e, euler_order, q);
        }
        double basis[16], m[16], local[16];
        ga_mat_from_trs(t, q, s, basis);
        ga_mat_mul(ipre, basis, m);
        ga_mat_mul(m, ipost, local);
        double lt[3], lq[4], ls[3];
        decompose_continuous(local, prev_q, lt, lq, ls);
        /* What translation / rotation / scale cannot hold (a skew: a
         * non-uniform scale turned by a rest rotation): the largest
         * difference of the 3x3 part from its recomposition. */
        double back[16];
        ga_mat_from_trs(lt, lq, ls, back);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                double d = fabs(local[4 * r + c] - back[4 * r + c]);
                if (d > skew) {
                    skew = d;
                    skew_at = f;
                }
            }
        double rot[16], zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, e[3];
        ga_mat_from_trs(zero, lq, one, rot);
        ga_euler_xyz_from_mat(rot, prev_e, f > 0, e);
        memcpy(prev_e, e, sizeof prev_e);
        double vals[13] = {lt[0] / tscale, lt[1] / tscale, lt[2] / tscale, e[0], e[1], e[2],
                           lq[0], lq[1], lq[2], lq[3], ls[0], ls[1], ls[2]};
        for (int k = 0; k < 13; k++) out[(size_t)k * nf + f] = (float)vals[k];
    }
    *skew_out = skew;
    *skew_at_out = skew_at;
}
