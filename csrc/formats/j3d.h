/* The J3D container, shared by every J3D animation kind (j3d.c): the
 * JSYSTEM header, name tables, padding, the header fields every kind
 * reports, and the key-frame machinery of the key-framed kinds (BCK, BTK,
 * BRK, BPK): the runtime's Hermite evaluation and the key encoder.
 * The kinds: bck_btk.h (BCK, BTK), j3d_kinds.h (BRK, BPK, BTP, BVA, J3D
 * BCA).  docs/formats/j3d_kinds.md. */
#ifndef GAMEANIM_J3D_H
#define GAMEANIM_J3D_H

#include "gameanim.h"
#include "jut_names.h" /* name tables: ga_jut_put_names, ga_jut_name_key */
#include "pool.h"

#include <math.h>
#include <stdint.h>

/* J3DAnmKeyTableBase: key count, first element index, tangent type. */
typedef struct j3d_desc {
    uint16_t count;
    uint16_t index;
    uint16_t type;
} j3d_desc;

/* The key encoder's `kind` argument: 0 BCK, 1 BTK, or a colour kind
 * (s16 tables in colour units). */
#define J3D_KIND_BRK 'r'
#define J3D_KIND_BPK 'p'

extern const char j3d_padding_text[];
extern const char *const j3d_channel_names[3]; /* "scale", "rotation", "translation" */

int j3d_probe(const uint8_t *data, size_t size, const char *kind);
/* The rotation unit (radians per raw step) at a rotation shift. */
double j3d_rotation_unit(int frac);

typedef struct j3d_seq {
    uint32_t *v;
    size_t n, cap;
} j3d_seq;
int j3d_seq_push(j3d_seq *s, uint32_t x);

/* JUTNameTab: `need` names (bytes as stored) and, if ntab is given, the
 * table's raw bytes. */
int j3d_read_names(const ga_reader *r, size_t at, uint32_t need, char ***names, uint8_t **ntab, size_t *ntab_len,
                   ga_error *err);
void j3d_put_padding(ga_buf *b, size_t align);

/* The JSYSTEM header fields every kind reports (Animation.info), in order. */
int j3d_container_info(ga_info *info, uint32_t size_field, uint32_t blocks, const uint8_t *svr, uint32_t chunk_size,
                       long long chunk_delta, uint8_t loop);
/* The loop byte and s16 duration a rebuilt or patched file stores. */
int j3d_loop_byte(const ga_encode_ctx *ctx, uint8_t *out, ga_error *err, const char *fmt);
int j3d_duration_field(const ga_clip *c, int16_t *out, ga_report *rep, ga_error *err, const char *fmt);

/* Raw s16 steps of a value at a unit. */
static inline double j3d_raw_of(double v, double unit) { return nearbyint(v / unit); }
/* PowerPC fctiwz: truncation toward zero, saturating, NaN -> INT32_MIN. */
static inline int32_t j3d_ppc_trunc_s32(float x)
{
    if (isnan(x)) return INT32_MIN;
    if (x >= 2147483647.0f) return INT32_MAX;
    if (x <= -2147483648.0f) return INT32_MIN;
    return (int32_t)x;
}
/* out[i]: the game's evaluation of the track (keys as the game stores
 * them) at frames[i]; s16_table: J3DHermiteInterpolationS. */
void j3d_game_eval_many(const ga_track *t, const double *frames, size_t n, float *out, int s16_table);

/* The key encoder's format name of a kind, and a track's name in its
 * messages. */
const char *j3d_kind_fmt(int kind);
void j3d_track_name(char *buf, size_t cap, int kind, const ga_track *t);
/* Encodes a key-framed track (rotations at shift frac; colours as s16
 * colour units) into an element run, setting count and tangent type;
 * tolerance > 0 fits dense linear keys (a bake) with Hermite keys. */
int j3d_encode_keys(const ga_track *t, int kind, int frac, int orig_type, double tolerance, j3d_seq *seq,
                    uint16_t *count, uint16_t *type, ga_report *rep, ga_error *err);

#endif
