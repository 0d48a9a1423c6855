/* The game's joint matrices for a model's skeleton (model.h,
 * ga_model_world_matrices).  The rules and every arithmetic choice are in
 * docs/skeleton.md; the notes behind them are
 * ../shared/formats/j3d_models.md section 5.4, bca.md section 2 and bk.md
 * section 2.5.
 *
 * Plan of one call: the bones are put in an order where parents come
 * before children (J3D numbers joints freely), each animated channel
 * component of each bone is given the clip track that drives it, every
 * such track is sampled once for a block of frames with the format's
 * game-exact sampler, and then each frame walks the bones in that order.
 * Everything is float32 in the game's order of operations, unfused (the
 * project builds with -ffp-contract=off). */
#include "model.h"
#include "trig.h"
#include "sin_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI_D 3.14159265358979323846

/* Samples held at once (floats): a block of frames times the animated
 * tracks; longer frame ranges are done block by block. */
#define SAMPLE_BUDGET ((size_t)1 << 22)

/* Channel components of a bone: scale xyz, rotation xyz, translation xyz. */
#define NCOMP 9

/* Entry i < 5120 of the game's table (one turn and a quarter, so that the
 * cosine is the sine a quarter on): past the turn it repeats the first
 * quarter except at 2*pi (sin_table.h). */
static float table_value(uint32_t i)
{
    uint32_t bits = i < GA_SIN_TABLE_TURN ? ga_sin_table_bits[i]
                    : i == GA_SIN_TABLE_TURN ? GA_SIN_2PI_BITS
                                             : ga_sin_table_bits[i - GA_SIN_TABLE_TURN];
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Sine and cosine of a table index (0..4095). */
typedef struct sincos3 {
    float s[3], c[3];
} sincos3;

static void sincos_from_indices(const uint32_t idx[3], sincos3 *sc)
{
    for (int a = 0; a < 3; a++) {
        sc->s[a] = table_value(idx[a]);
        sc->c[a] = table_value(idx[a] + GA_SIN_TABLE_QUARTER);
    }
}

/* A J3D angle (65536 per turn) to its table index: (u16)angle >> 4. */
static uint32_t j3d_index(uint32_t angle16) { return (angle16 & 0xFFFFu) >> 4; }

/* An SM64DS angle (4096 per turn) to its table index: the game shifts it
 * into a u16 (<< 4) and back (>> 4), which keeps the low 12 bits. */
static uint32_t ds_index(uint32_t angle12) { return angle12 & 0xFFFu; }

/* Radians (a sampled rotation) back to the game's integer angle with
 * `per_half_turn` units per pi, wrapped to 16 bits.  The samplers produce
 * exact multiples of the unit, so rounding recovers the integer; a value
 * that is not finite (only a hand-made clip has one) counts as 0. */
static uint32_t angle_units(float rad, double per_half_turn)
{
    double x = (double)rad * (per_half_turn / PI_D);
    if (!(fabs(x) < 1e9)) { /* far outside a turn, or not finite */
        if (!isfinite(x)) return 0;
        x = fmod(x, 65536.0);
    }
    return (uint32_t)(int64_t)lround(x) & 0xFFFFu;
}

/* ------------------------------------------------------------------ */
/* 3x4 matrices, row-major (m[r*4+c]), column vectors                  */

/* The rotation Rz*Ry*Rx with T in the last column, each element computed
 * as J3DGetTranslateRotateMtx does (the same products and sums in the same
 * order, float32). */
static void translate_rotate(const sincos3 *sc, const float t[3], float m[12])
{
    float sx = sc->s[0], cx = sc->c[0], sy = sc->s[1], cy = sc->c[1], sz = sc->s[2], cz = sc->c[2];
    m[8] = -sy;
    m[0] = cz * cy;
    m[4] = sz * cy;
    m[9] = cy * sx;
    m[10] = cy * cx;
    float cx_sz = cx * sz, sx_cz = sx * cz;
    m[1] = sx_cz * sy - cx_sz;
    m[6] = cx_sz * sy - sx_cz;
    float sx_sz = sx * sz, cx_cz = cx * cz;
    m[2] = cx_cz * sy + sx_sz;
    m[5] = sx_sz * sy + cx_cz;
    m[3] = t[0];
    m[7] = t[1];
    m[11] = t[2];
}

/* Columns 0..2 multiplied by s (m * diag(s)). */
static void scale_columns(float m[12], const float s[3])
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) m[r * 4 + c] *= s[c];
}

/* out = a * b (out may be a or b), summed left to right as PSMTXConcat. */
static void concat(const float a[12], const float b[12], float out[12])
{
    float o[12];
    for (int r = 0; r < 3; r++) {
        const float *ar = a + r * 4;
        for (int c = 0; c < 4; c++) {
            float v = ar[0] * b[c];
            v = v + ar[1] * b[4 + c];
            v = v + ar[2] * b[8 + c];
            if (c == 3) v = v + ar[3];
            o[r * 4 + c] = v;
        }
    }
    memcpy(out, o, sizeof o);
}

static int is_one(const float s[3]) { return s[0] == 1.0f && s[1] == 1.0f && s[2] == 1.0f; }

static void write_4x4(const float m[12], float *out)
{
    memcpy(out, m, 12 * sizeof *out);
    out[12] = 0.0f;
    out[13] = 0.0f;
    out[14] = 0.0f;
    out[15] = 1.0f;
}

/* ------------------------------------------------------------------ */
/* Bone order                                                          */

/* order[] lists every bone after its parent.  A parent index out of
 * range or a cycle is an error (a decoder should not produce one). */
static int parents_first(const ga_model *m, uint32_t *order, uint32_t *stack, uint8_t *state, ga_error *err)
{
    uint32_t n = m->nbones, k = 0;
    memset(state, 0, n); /* 0 new, 1 on the current path, 2 placed */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t depth = 0;
        int32_t j = (int32_t)i;
        while (j >= 0 && state[j] != 2) {
            if (state[j] == 1)
                return ga_fail(err, GA_ERR_ARG, m->format, "parent", -1, "bone %ld is its own ancestor", (long)j);
            state[j] = 1;
            stack[depth++] = (uint32_t)j;
            int32_t p = m->bones[j].parent;
            if (p < -1 || (p >= 0 && (uint32_t)p >= n))
                return ga_fail(err, GA_ERR_ARG, m->format, "parent", -1, "bone %ld has parent %ld, not a bone", (long)j,
                               (long)p);
            j = p;
        }
        while (depth > 0) {
            uint32_t b = stack[--depth];
            state[b] = 2;
            order[k++] = b;
        }
    }
    return GA_OK;
}

/* ------------------------------------------------------------------ */
/* Which track drives which channel component                          */

typedef struct id_bone {
    int32_t id;
    uint32_t bone;
} id_bone;

static int compare_id_bone(const void *a, const void *b)
{
    const id_bone *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->bone < y->bone ? -1 : (x->bone > y->bone);
}

/* First entry of sorted[0..n) with id >= want. */
static size_t lower_bound_id(const id_bone *sorted, size_t n, int32_t want)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid].id < want) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void assign(int32_t *comp, int32_t *track_row, uint32_t *nrows, uint32_t bone, const ga_track *t, uint32_t ti)
{
    int32_t *slot = &comp[(size_t)bone * NCOMP + t->channel * 3u + t->axis];
    if (*slot >= 0) return; /* the first applied track of a component wins */
    if (track_row[ti] < 0) track_row[ti] = (int32_t)(*nrows)++;
    *slot = track_row[ti];
}

/* comp[bone*9 + k]: the sample row of the track driving component k of the
 * bone, or -1.  Tracks address bones by index (J3D, BCA) or by bone ID
 * (Banjo-Kazooie: every table entry with that ID; an ID no entry has is
 * ignored).  track_row[i]: the row track i is sampled into, or -1. */
static int map_tracks(const ga_model *m, const ga_clip *clip, const ga_format *fmt, int32_t *comp, int32_t *track_row,
                      uint32_t *nrows, ga_error *err)
{
    uint8_t *keep = malloc(clip->ntracks ? clip->ntracks : 1);
    if (!keep) return ga_nomem(err, m->format);
    int rc = ga_applied_tracks(fmt, clip, keep, err);
    id_bone *by_id = NULL;
    if (rc == GA_OK && m->family == GA_RIG_BK) {
        by_id = malloc((size_t)m->nbones * sizeof *by_id);
        if (!by_id) rc = ga_nomem(err, m->format);
        else {
            for (uint32_t b = 0; b < m->nbones; b++) {
                by_id[b].id = m->bones[b].bone_id;
                by_id[b].bone = b;
            }
            qsort(by_id, m->nbones, sizeof *by_id, compare_id_bone);
        }
    }
    for (uint32_t i = 0; rc == GA_OK && i < clip->ntracks; i++) {
        const ga_track *t = &clip->tracks[i];
        if (!keep[i] || t->target_name || t->channel > GA_CH_TRANSLATION || t->axis > 2) continue;
        if (by_id) {
            for (size_t k = lower_bound_id(by_id, m->nbones, t->target); k < m->nbones && by_id[k].id == t->target; k++)
                assign(comp, track_row, nrows, by_id[k].bone, t, i);
        } else if (t->target >= 0 && (uint32_t)t->target < m->nbones) {
            assign(comp, track_row, nrows, (uint32_t)t->target, t, i);
        }
    }
    free(by_id);
    free(keep);
    return rc;
}

/* Samples every mapped track at frames[0..n) into rows of `n` floats. */
static int sample_rows(const ga_clip *clip, const ga_format *fmt, const int32_t *track_row, const double *frames,
                       size_t n, float *rows, ga_error *err)
{
    for (uint32_t i = 0; i < clip->ntracks; i++) {
        if (track_row[i] < 0) continue;
        const ga_track *t = &clip->tracks[i];
        float *dst = rows + (size_t)track_row[i] * n;
        if (t->nkeys == 0) { /* the game's count-0 track: the channel default */
            float d = ga_channel_default(t->channel, t->axis);
            for (size_t f = 0; f < n; f++) dst[f] = d;
        } else if (fmt && fmt->sample) {
            int rc = fmt->sample(clip, i, frames, n, dst, err);
            if (rc) return rc;
        } else {
            ga_track_eval_many(t, frames, n, dst);
        }
    }
    return GA_OK;
}

/* ------------------------------------------------------------------ */
/* One bone at one frame                                               */

/* What a bone passes to its children. */
typedef struct bone_state {
    float frame[12]; /* the matrix children multiply onto */
    float scale_acc[3]; /* J3D Basic / Softimage: accumulated scale */
    float scale[3];  /* J3D Maya: this joint's own local scale */
} bone_state;

static const bone_state root_state = {
    {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, {1, 1, 1}, {1, 1, 1}};

/* The bone's channel values at this frame: scale, rotation as raw units
 * (J3D / SM64DS angle units, BK radians kept in rot_rad) and translation. */
typedef struct bone_values {
    float s[3], t[3], rot_rad[3];
    uint32_t rot_index[3]; /* sine-table index (J3D, SM64DS) */
} bone_values;

static void j3d_basic(const bone_state *p, const bone_values *v, bone_state *me, float out[12])
{
    float L[12];
    sincos3 sc;
    sincos_from_indices(v->rot_index, &sc);
    for (int a = 0; a < 3; a++) me->scale_acc[a] = p->scale_acc[a] * v->s[a];
    translate_rotate(&sc, v->t, L);
    /* the quirk: an accumulated scale of exactly 1 leaves the joint's own
     * scale out (parent 2, child 0.5 drops the 0.5) */
    if (!is_one(me->scale_acc)) scale_columns(L, v->s);
    concat(p->frame, L, me->frame);
    memcpy(out, me->frame, sizeof me->frame);
}

static void j3d_softimage(const bone_state *p, const bone_values *v, bone_state *me, float out[12])
{
    float L[12], t[3];
    sincos3 sc;
    sincos_from_indices(v->rot_index, &sc);
    for (int a = 0; a < 3; a++) t[a] = v->t[a] * p->scale_acc[a];
    translate_rotate(&sc, t, L);
    concat(p->frame, L, me->frame); /* children inherit the unscaled frame */
    for (int a = 0; a < 3; a++) me->scale_acc[a] = p->scale_acc[a] * v->s[a];
    memcpy(out, me->frame, sizeof me->frame);
    if (!is_one(me->scale_acc)) scale_columns(out, me->scale_acc);
}

static void j3d_maya(const bone_state *p, const bone_values *v, int compensate, bone_state *me, float out[12])
{
    float L[12];
    sincos3 sc;
    sincos_from_indices(v->rot_index, &sc);
    translate_rotate(&sc, v->t, L);
    if (!is_one(v->s)) scale_columns(L, v->s);
    if (compensate) { /* rows of the 3x3 times 1/(the direct parent's own scale) */
        for (int r = 0; r < 3; r++) {
            float inv = 1.0f / p->scale[r];
            for (int c = 0; c < 3; c++) L[r * 4 + c] *= inv;
        }
    }
    concat(p->frame, L, me->frame);
    memcpy(me->scale, v->s, sizeof me->scale);
    memcpy(out, me->frame, sizeof me->frame);
}

static void sm64ds_srt(const bone_state *p, const bone_values *v, bone_state *me, float out[12])
{
    float L[12];
    sincos3 sc;
    sincos_from_indices(v->rot_index, &sc);
    translate_rotate(&sc, v->t, L);
    scale_columns(L, v->s);
    concat(p->frame, L, me->frame);
    memcpy(out, me->frame, sizeof me->frame);
}

/* M = M_parent * T(pivot + k*t) * R * S * T(-pivot). */
static void bk_pivot(const bone_state *p, const bone_values *v, const float pivot[3], float k, bone_state *me,
                     float out[12])
{
    float L[12], moved[3];
    sincos3 sc;
    for (int a = 0; a < 3; a++) {
        sc.s[a] = (float)ga_sin((double)v->rot_rad[a]);
        sc.c[a] = (float)ga_cos((double)v->rot_rad[a]);
        moved[a] = pivot[a] + k * v->t[a];
    }
    translate_rotate(&sc, moved, L);
    scale_columns(L, v->s);
    for (int r = 0; r < 3; r++) { /* the last column picks up (R*S) * -pivot */
        const float *lr = L + r * 4;
        float rp = lr[0] * pivot[0];
        rp = rp + lr[1] * pivot[1];
        rp = rp + lr[2] * pivot[2];
        L[r * 4 + 3] = moved[r] - rp;
    }
    concat(p->frame, L, me->frame);
    memcpy(out, me->frame, sizeof me->frame);
}

/* ------------------------------------------------------------------ */

typedef struct rig_walk {
    const ga_model *m;
    const uint32_t *order;
    const int32_t *comp; /* NULL for the rest pose */
    bone_state *state;
} rig_walk;

static void bone_values_at(const rig_walk *w, uint32_t b, const float *rows, size_t blk, size_t f, bone_values *v)
{
    const ga_model *m = w->m;
    const ga_model_bone *bone = &m->bones[b];
    const int32_t *comp = w->comp ? w->comp + (size_t)b * NCOMP : NULL;
    int bk = m->family == GA_RIG_BK;
    for (int a = 0; a < 3; a++) {
        int32_t rs = comp ? comp[a] : -1, rr = comp ? comp[3 + a] : -1, rt = comp ? comp[6 + a] : -1;
        /* BK's values are deltas from an identity rest */
        v->s[a] = rs >= 0 ? rows[(size_t)rs * blk + f] : bk ? 1.0f : bone->scale[a];
        v->t[a] = rt >= 0 ? rows[(size_t)rt * blk + f] : bk ? 0.0f : bone->translation[a];
        v->rot_rad[a] = rr >= 0 ? rows[(size_t)rr * blk + f] : 0.0f;
        if (m->family == GA_RIG_J3D)
            v->rot_index[a] = j3d_index(rr >= 0 ? angle_units(v->rot_rad[a], 32768.0) : (uint32_t)(uint16_t)bone->rot_raw[a]);
        else if (m->family == GA_RIG_SM64DS)
            v->rot_index[a] = ds_index(rr >= 0 ? angle_units(v->rot_rad[a], 2048.0) : (uint32_t)(uint16_t)bone->rot_raw[a]);
        else
            v->rot_index[a] = 0;
    }
}

static void walk_frame(const rig_walk *w, const float *rows, size_t blk, size_t f, float *out)
{
    const ga_model *m = w->m;
    for (uint32_t k = 0; k < m->nbones; k++) {
        uint32_t b = w->order[k];
        const ga_model_bone *bone = &m->bones[b];
        const bone_state *p = bone->parent >= 0 ? &w->state[bone->parent] : &root_state;
        bone_state *me = &w->state[b];
        bone_values v;
        float W[12];
        bone_values_at(w, b, rows, blk, f, &v);
        switch (m->family) {
        case GA_RIG_J3D:
            if (m->calc == GA_CALC_SOFTIMAGE) j3d_softimage(p, &v, me, W);
            else if (m->calc == GA_CALC_MAYA) j3d_maya(p, &v, bone->scale_compensate == 1, me, W);
            else j3d_basic(p, &v, me, W);
            break;
        case GA_RIG_SM64DS:
            sm64ds_srt(p, &v, me, W);
            break;
        default:
            if (!w->comp) { /* Banjo-Kazooie rests at identity */
                memcpy(me->frame, root_state.frame, sizeof W);
                memcpy(W, root_state.frame, sizeof W);
            } else {
                bk_pivot(p, &v, bone->translation, m->bk_scale, me, W);
            }
            break;
        }
        write_4x4(W, out + (size_t)b * 16);
    }
}

int ga_model_world_matrices(const ga_model *m, const ga_clip *clip, const ga_format *fmt, const double *frames,
                            size_t nframes, float *out, ga_error *err)
{
    if (!m || (nframes && (!frames || !out)))
        return ga_fail(err, GA_ERR_ARG, "model", "world_matrices", -1, "no model, frames or output");
    const char *who = m->format ? m->format : "model";
    if (m->family == GA_RIG_J3D && m->calc != GA_CALC_BASIC && m->calc != GA_CALC_SOFTIMAGE && m->calc != GA_CALC_MAYA)
        return ga_fail(err, GA_ERR_ARG, who, "calc", -1, "matrix-calc rule %d is none of basic, softimage, maya",
                       m->calc);
    if (m->family != GA_RIG_J3D && m->family != GA_RIG_SM64DS && m->family != GA_RIG_BK)
        return ga_fail(err, GA_ERR_ARG, who, "family", -1, "unknown rig family %d", (int)m->family);
    size_t per_frame, total;
    if (ga_mul_size(m->nbones, 16, &per_frame) || ga_mul_size(per_frame, nframes, &total))
        return ga_fail(err, GA_ERR_ARG, who, "frames", -1, "too many frames at once (%zu frames of %lu bones)", nframes,
                       (unsigned long)m->nbones);
    if (m->nbones == 0 || nframes == 0) return GA_OK;

    int rc = GA_OK;
    uint32_t n = m->nbones;
    uint32_t *order = malloc((size_t)n * 2 * sizeof *order);
    uint8_t *mark = malloc(n);
    bone_state *state = malloc((size_t)n * sizeof *state);
    int32_t *comp = NULL, *track_row = NULL;
    float *rows = NULL;
    if (!order || !mark || !state) {
        rc = ga_nomem(err, who);
        goto done;
    }
    rc = parents_first(m, order, order + n, mark, err);
    if (rc) goto done;

    rig_walk w = {m, order, NULL, state};
    if (!clip) {
        walk_frame(&w, NULL, 0, 0, out); /* the rest pose is one pose */
        for (size_t f = 1; f < nframes; f++) memcpy(out + f * per_frame, out, per_frame * sizeof *out);
        goto done;
    }

    uint32_t nrows = 0;
    comp = malloc((size_t)n * NCOMP * sizeof *comp);
    track_row = malloc((clip->ntracks ? clip->ntracks : 1) * sizeof *track_row);
    if (!comp || !track_row) {
        rc = ga_nomem(err, who);
        goto done;
    }
    for (size_t i = 0; i < (size_t)n * NCOMP; i++) comp[i] = -1;
    for (uint32_t i = 0; i < clip->ntracks; i++) track_row[i] = -1;
    rc = map_tracks(m, clip, fmt, comp, track_row, &nrows, err);
    if (rc) goto done;
    w.comp = comp;

    /* frames per block: all of them when the samples fit the budget */
    size_t blk = nrows ? SAMPLE_BUDGET / nrows : nframes;
    if (blk == 0) blk = 1;
    if (blk > nframes) blk = nframes;
    if (nrows) {
        rows = malloc((size_t)nrows * blk * sizeof *rows); /* nrows * blk <= SAMPLE_BUDGET or blk == 1 */
        if (!rows) {
            rc = ga_nomem(err, who);
            goto done;
        }
    }
    for (size_t f0 = 0; f0 < nframes; f0 += blk) {
        size_t nb = nframes - f0 < blk ? nframes - f0 : blk;
        rc = sample_rows(clip, fmt, track_row, frames + f0, nb, rows, err);
        if (rc) goto done;
        for (size_t f = 0; f < nb; f++) walk_frame(&w, rows, nb, f, out + (f0 + f) * per_frame);
    }

done:
    free(rows);
    free(track_row);
    free(comp);
    free(state);
    free(mark);
    free(order);
    return rc;
}
