/* bk: Banjo-Kazooie (N64) skeletal animation files ("*.anim.bin").
 *
 * Layout (big-endian): an 8-byte header (s16 start frame, s16 end frame,
 * s16 element count, u16 padding), then the elements back to back: a u16
 * word (bone ID in bits 15..4, transform type in bits 3..0), an s16 key
 * count and that many 4-byte keys (bit 15 "smooth arrival", bit 14 "smooth
 * departure", a 14-bit frame, an s16 value in 1/64 units).
 *
 * The clip holds one track per element, in file order, whose Hermite keys
 * reproduce the game's curve exactly (see docs/formats/bk.md).  The raw
 * record keeps the whole file so that unchanged elements are written back
 * byte for byte; `bk_sample` evaluates the game's own rule in single
 * precision for the frames a Hermite curve cannot express. */
#include "gameanim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BK_HEADER 8u
#define BK_KEY_SIZE 4u
#define BK_MAX_FRAME 0x3FFF
#define BK_MAX_BONE 0xFFF
#define BK_GAME_MAX_BONE 0x6C /* the game's transform list has 0x6D entries */
#define BK_NTYPES 9
#define BK_MAX_COUNT 32767
#define BK_PI 3.14159265358979323846
#define BK_DEG2RAD (BK_PI / 180.0)

/* Slope matching tolerance, in value units per segment (the Catmull-Rom
 * tangent).  Neighbouring candidates differ by at least 1/128 once values
 * are on the 1/64 grid; float32 clip data is accurate to ~1e-4 here. */
#define BK_TANGENT_TOL 1e-3

typedef struct bk_raw {
    uint8_t *file; /* the whole decompressed file, verbatim */
    size_t size;
    int16_t start, end, count;
    uint16_t pad;
    uint32_t nelem;
    size_t *elem_off; /* byte offset of every element */
    uint64_t nkeys;
    int contiguous;   /* every bone's elements are adjacent */
    uint32_t duplicates; /* elements repeating an earlier (bone, type) */
    uint32_t nbones;
    uint32_t max_bone;
} bk_raw;

typedef struct bk_key {
    int32_t frame;
    int32_t value; /* the s16 raw value */
    uint8_t b15, b14;
} bk_key;

static const char *const type_names[BK_NTYPES] = {
    "rotation X", "rotation Y", "rotation Z", "scale X", "scale Y", "scale Z",
    "translation X", "translation Y", "translation Z",
};

/* ------------------------------------------------------------------ */
/* Channels                                                            */

static int type_channel(int type)
{
    return type < 3 ? GA_CH_ROTATION : type < 6 ? GA_CH_SCALE : GA_CH_TRANSLATION;
}

static int channel_type(int channel, int axis)
{
    if (axis < 0 || axis > 2) return -1;
    switch (channel) {
    case GA_CH_ROTATION: return axis;
    case GA_CH_SCALE: return 3 + axis;
    case GA_CH_TRANSLATION: return 6 + axis;
    default: return -1;
    }
}

/* clip value = file value (s16 / 64) * unit: degrees become radians */
static double type_unit(int type) { return type < 3 ? BK_DEG2RAD : 1.0; }

/* The game's per-type default (its table D_803709E0): scale 1, else 0. */
static float type_default(int type) { return (type >= 3 && type < 6) ? 1.0f : 0.0f; }

/* ------------------------------------------------------------------ */
/* The game's evaluation (func_8033AC38 and glspline's Catmull-Rom),    */
/* in single precision with the game's operation order.                 */

static int32_t game_trunc(float f)
{
    /* (s32)f, defined for every input (NaN gives NaN results later anyway) */
    if (!(f == f)) return 0;
    if (f >= 2147483648.0f) return INT32_MAX;
    if (f <= -2147483648.0f) return INT32_MIN;
    return (int32_t)f;
}

static float game_div(float a, float b)
{
    /* IEEE division, spelled out for b == 0 so no sanitizer complains */
    if (b != 0.0f) return a / b;
    if (a > 0.0f) return INFINITY;
    if (a < 0.0f) return -INFINITY;
    return NAN;
}

static float game_knot(int32_t raw) { return (float)raw / 64; }

static float game_spline(float u, const float k[4])
{
    /* clamp to [0, 1] first (NaN passes through) */
    float x = u < 0.0f ? 0.0f : (1.0f < u ? 1.0f : u);
    /* the coefficients are summed in double and stored as floats */
    float c3 = (float)(-0.5 * k[0] + 1.5 * k[1] + -1.5 * k[2] + 0.5 * k[3]);
    float c2 = (float)(1.0 * k[0] + -2.5 * k[1] + 2.0 * k[2] + -0.5 * k[3]);
    float c1 = (float)(-0.5 * k[0] + 0.0 * k[1] + 0.5 * k[2] + 0.0 * k[3]);
    float h = ((c3 * x + c2) * x + c1) * x;
    return (float)((double)h + 1.0 * k[1]);
}

static float game_eval(const bk_key *k, uint32_t n, int type, int32_t start, float f)
{
    float kn[4];
    int32_t T = game_trunc(f);
    if (T < k[0].frame) {
        /* pre-roll: from the default at the header's start frame */
        kn[0] = kn[1] = type_default(type);
        kn[2] = game_knot(k[0].value);
        kn[3] = (k[0].b15 && n >= 2) ? game_knot(k[1].value) : kn[2];
        return game_spline(game_div(f - (float)start, (float)(k[0].frame - start)), kn);
    }
    const bk_key *first = k, *last = k + n - 1;
    if (T >= last->frame) {
        /* post-roll: u is frames past the last key, so at most one frame */
        kn[1] = game_knot(last->value);
        kn[0] = (last->b14 && n >= 2) ? game_knot(last[-1].value) : kn[1];
        kn[2] = kn[3] = kn[1];
        return game_spline(f - (float)last->frame, kn);
    }
    while (first + 1 < last) {
        const bk_key *mid = first + (last - first) / 2;
        if (mid->frame <= T) first = mid;
        else last = mid;
    }
    float a = game_knot(first->value), b = game_knot(last->value);
    float u = game_div(f - (float)first->frame, (float)(last->frame - first->frame));
    if (!first->b14 && !last->b15) return a + (b - a) * u; /* not clamped */
    kn[0] = (first->b14 && first > k) ? game_knot(first[-1].value) : a;
    kn[1] = a;
    kn[2] = b;
    kn[3] = (last->b15 && last + 1 < k + n) ? game_knot(last[1].value) : b;
    return game_spline(u, kn);
}

/* ------------------------------------------------------------------ */
/* File keys -> clip keys (exact Hermite form)                          */

static int keys_to_track(const bk_key *k, uint32_t n, int type, int32_t start, ga_track *t, ga_error *err)
{
    double unit = type_unit(type), D = type_default(type);
    double *v = malloc((size_t)n * sizeof *v);
    if (!v) return ga_nomem(err, "bk");
    for (uint32_t i = 0; i < n; i++) v[i] = k[i].value / 64.0;
    int pre = k[0].frame > start;
    double plast = (k[n - 1].b14 && n >= 2) ? v[n - 2] : v[n - 1];
    double m_post = (v[n - 1] - plast) / 2.0;
    int post = m_post != 0.0;
    int rc = ga_track_alloc(t, n + (uint32_t)pre + (uint32_t)post, err);
    if (rc) {
        free(v);
        return rc;
    }
    uint32_t o = 0;
    double in0 = 0.0;
    if (pre) {
        double len = (double)k[0].frame - start;
        double p3 = (k[0].b15 && n >= 2) ? v[1] : v[0];
        t->time[o] = (float)start;
        t->value[o] = (float)(D * unit);
        t->in_slope[o] = 0.0f;
        t->out_slope[o] = (float)((v[0] - D) / 2.0 / len * unit);
        t->interp[o] = GA_INTERP_BEZIER;
        in0 = (p3 - D) / 2.0 / len;
        o++;
    }
    double in_next = in0;
    for (uint32_t i = 0; i < n; i++, o++) {
        t->time[o] = (float)k[i].frame;
        t->value[o] = (float)(v[i] * unit);
        t->in_slope[o] = (float)(in_next * unit);
        if (i + 1 == n) {
            t->out_slope[o] = (float)(m_post * unit);
            t->interp[o] = post ? GA_INTERP_BEZIER : GA_INTERP_LINEAR;
            break;
        }
        double len = (double)k[i + 1].frame - k[i].frame;
        double out;
        if (len == 0.0) {
            /* never evaluated: the search always lands past equal frames */
            out = in_next = 0.0;
            t->interp[o] = GA_INTERP_LINEAR;
        } else if (!k[i].b14 && !k[i + 1].b15) {
            out = in_next = (v[i + 1] - v[i]) / len;
            t->interp[o] = GA_INTERP_LINEAR;
        } else {
            double p0 = (k[i].b14 && i > 0) ? v[i - 1] : v[i];
            double p3 = (k[i + 1].b15 && i + 2 < n) ? v[i + 2] : v[i + 1];
            out = (v[i + 1] - p0) / 2.0 / len;
            in_next = (p3 - v[i]) / 2.0 / len;
            t->interp[o] = GA_INTERP_BEZIER;
        }
        t->out_slope[o] = (float)(out * unit);
    }
    if (post) {
        o++;
        t->time[o] = (float)((double)k[n - 1].frame + 1.0);
        t->value[o] = (float)(v[n - 1] * unit);
        t->in_slope[o] = 0.0f;
        t->out_slope[o] = 0.0f;
        t->interp[o] = GA_INTERP_LINEAR;
    }
    free(v);
    return GA_OK;
}

/* ------------------------------------------------------------------ */
/* Clip keys -> file keys + flags                                       */

enum { SEG_LINEAR, SEG_SMOOTH, SEG_FREE };

typedef struct wkey {
    double t, v;   /* frame, value in file units (before quantising) */
    int32_t q;     /* quantised value */
    int src;       /* clip key, -1 for a key we added */
    int hint15, hint14; /* flags of the original key at this frame, -1 none */
    uint8_t b15, b14;
} wkey;

typedef struct wseg {
    int kind;
    double m_out, m_in; /* SEG_SMOOTH: Catmull-Rom tangents (value per segment) */
} wseg;

typedef struct wlist {
    wkey *k;
    wseg *s; /* s[j] joins k[j] and k[j+1] */
    uint32_t n, cap;
} wlist;

static void wlist_free(wlist *w)
{
    free(w->k);
    free(w->s);
    memset(w, 0, sizeof *w);
}

static int wlist_push(wlist *w, double t, double v, int src)
{
    if (w->n == w->cap) {
        uint32_t cap = w->cap ? w->cap * 2 : 16;
        wkey *k = realloc(w->k, (size_t)cap * sizeof *k);
        if (!k) return GA_ERR_NOMEM;
        w->k = k;
        wseg *s = realloc(w->s, (size_t)cap * sizeof *s);
        if (!s) return GA_ERR_NOMEM;
        w->s = s;
        w->cap = cap;
    }
    wkey *k = &w->k[w->n];
    memset(k, 0, sizeof *k);
    k->t = t;
    k->v = v;
    k->src = src;
    k->hint15 = k->hint14 = -1;
    w->s[w->n].kind = SEG_FREE;
    w->s[w->n].m_out = w->s[w->n].m_in = 0.0;
    w->n++;
    return GA_OK;
}

static int tangent_ok(double want, double have)
{
    return fabs(want - have) <= BK_TANGENT_TOL + 1e-6 * fabs(want);
}

/* Chooses a flag the curve leaves open: the original file's, else the
 * same as the key's other flag when that one is fixed by the curve (so
 * linear tracks stay all clear and smooth ones all set), else 1 (what
 * vanilla files and the public writers use). */
static int pick(const int ok[2], int hint, int other)
{
    if (hint >= 0 && ok[hint]) return hint;
    if (other >= 0 && ok[other]) return other;
    if (ok[1]) return 1;
    if (ok[0]) return 0;
    return -1;
}

/* Sets every flag from the shape each segment must have.  Each flag
 * shapes exactly one piece of curve: b15 of the first key the pre-roll,
 * b14 of the last key the post-roll, and otherwise b14 the segment that
 * starts at its key and b15 the one that ends there.  Flags on linear and
 * smooth segments are settled first, the ones the curve leaves open
 * afterwards.  Returns 0 when some segment cannot be reproduced exactly. */
static int solve_flags(wlist *w, int pre_kind, double pre_m_in, int32_t start, double D, double m_post)
{
    wkey *K = w->k;
    uint32_t m = w->n;
    /* fixed[j][0] / [1]: b15 / b14 of key j settled by a segment */
    uint8_t(*fixed)[2] = calloc(m, sizeof *fixed);
    if (!fixed) return -1;
    int ok = 1;
    for (uint32_t j = 0; j + 1 < m && ok; j++) {
        wkey *A = &K[j], *B = &K[j + 1];
        const wseg *s = &w->s[j];
        if (s->kind == SEG_FREE) continue;
        fixed[j][1] = fixed[j + 1][0] = 1;
        if (s->kind == SEG_LINEAR) {
            A->b14 = 0;
            B->b15 = 0;
            continue;
        }
        int ok14[2], ok15[2];
        for (int f = 0; f < 2; f++) {
            double p0 = (f && j > 0) ? K[j - 1].v : A->v;
            double p3 = (f && j + 2 < m) ? K[j + 2].v : B->v;
            ok14[f] = tangent_ok(s->m_out, (B->v - p0) / 2.0);
            ok15[f] = tangent_ok(s->m_in, (p3 - A->v) / 2.0);
        }
        /* both flags clear would make the game draw a straight line */
        int best = -1, best_score = -1;
        static const int pairs[3][2] = {{1, 1}, {1, 0}, {0, 1}};
        for (int c = 0; c < 3; c++) {
            int f14 = pairs[c][0], f15 = pairs[c][1];
            if (!ok14[f14] || !ok15[f15]) continue;
            int score = (A->hint14 == f14) + (B->hint15 == f15);
            if (score > best_score) {
                best_score = score;
                best = c;
            }
        }
        if (best >= 0) {
            A->b14 = (uint8_t)pairs[best][0];
            B->b15 = (uint8_t)pairs[best][1];
            continue;
        }
        /* a Hermite segment that happens to be a straight line */
        double lin = B->v - A->v;
        if (tangent_ok(s->m_out, lin) && tangent_ok(s->m_in, lin)) {
            A->b14 = 0;
            B->b15 = 0;
            continue;
        }
        ok = 0;
    }
    /* pre-roll: knots [D, D, v0, b15 ? v1 : v0] */
    if (ok) {
        int okf[2];
        for (int f = 0; f < 2; f++) {
            double p3 = (f && m >= 2) ? K[1].v : K[0].v;
            okf[f] = pre_kind == SEG_FREE || K[0].t <= start || tangent_ok(pre_m_in, (p3 - D) / 2.0);
        }
        int b = pick(okf, K[0].hint15, fixed[0][1] ? K[0].b14 : -1);
        if (b < 0) ok = 0;
        else K[0].b15 = (uint8_t)b;
    }
    /* post-roll: knots [b14 ? v[m-2] : v, v, v, v] */
    if (ok) {
        int okf[2];
        for (int f = 0; f < 2; f++) {
            double p0 = (f && m >= 2) ? K[m - 2].v : K[m - 1].v;
            okf[f] = tangent_ok(m_post, (K[m - 1].v - p0) / 2.0);
        }
        int b = pick(okf, K[m - 1].hint14, fixed[m - 1][0] ? K[m - 1].b15 : -1);
        if (b < 0) ok = 0;
        else K[m - 1].b14 = (uint8_t)b;
    }
    /* zero-length segments: never evaluated */
    static const int any[2] = {1, 1};
    for (uint32_t j = 0; j + 1 < m && ok; j++) {
        if (w->s[j].kind != SEG_FREE) continue;
        K[j].b14 = (uint8_t)pick(any, K[j].hint14, fixed[j][0] || j == 0 ? K[j].b15 : -1);
        K[j + 1].b15 = (uint8_t)pick(any, K[j + 1].hint15, fixed[j + 1][1] || j + 2 == m ? K[j + 1].b14 : -1);
    }
    free(fixed);
    return ok;
}

/* Attaches the original element's flags, key by key at equal frames, so
 * that free choices keep the file's bits. */
static void attach_hints(wlist *w, const bk_key *hint, uint32_t nhint)
{
    uint32_t h = 0;
    for (uint32_t j = 0; j < w->n && hint; j++) {
        double t = w->k[j].t;
        while (h < nhint && (double)hint[h].frame < t) h++;
        if (h < nhint && (double)hint[h].frame == t) {
            w->k[j].hint15 = hint[h].b15;
            w->k[j].hint14 = hint[h].b14;
            h++;
        }
    }
}

typedef struct track_ctx {
    int bone, type;
    int32_t start;
    ga_report *rep; /* NULL when only sampling */
    const char *who; /* "bone 3 type 0 (rotation X)" */
} track_ctx;

static int quantise(wlist *w, const track_ctx *c, ga_error *err)
{
    double unit = type_unit(c->type);
    for (uint32_t j = 0; j < w->n; j++) {
        wkey *k = &w->k[j];
        double x = k->v * 64.0;
        double q = nearbyint(x);
        if (!(q >= -32768.0 && q <= 32767.0))
            return ga_fail(err, GA_ERR_ENCODE, "bk", "key value", -1,
                           "%s frame %g: value %g%s is outside the s16/64 range (-512 .. 511.984)", c->who, k->t,
                           k->v, c->type < 3 ? " degrees" : "");
        k->q = (int32_t)q;
        /* float32 radians cannot hold every 1/64 degree exactly: only a
         * difference above that representation error is a rounding */
        if (c->rep && k->src >= 0 && fabs(x - q) > 1e-6 * fmax(1.0, fabs(x))) {
            c->rep->nrounded++;
            ga_report_error(c->rep, fabs(x - q) / 64.0 * unit, "%s frame %g", c->who, k->t);
        }
    }
    return GA_OK;
}

/* The pre-roll of the keys in w when the clip has no pre-roll key of its
 * own: the clip holds its first value before the first key, the game
 * rises from the default at the start frame.  Either the first value is
 * the default (the pre-roll is flat) or a key at the start frame holds it.
 * Returns the pre-roll kind for solve_flags, or GA_ERR_NOMEM; *lost is set
 * when a negative start frame leaves frames the keys cannot cover. */
static int hold_before_first(wlist *w, const track_ctx *c, double D, double *pre_m_in, int *lost)
{
    *lost = 0;
    *pre_m_in = 0.0;
    if (w->k[0].t <= c->start) return SEG_FREE;
    if (nearbyint(w->k[0].v * 64.0) == D * 64.0) {
        /* flat from D: the arrival tangent of knots [D, D, v0, v0] */
        *pre_m_in = (w->k[0].v - D) / 2.0;
        return SEG_SMOOTH;
    }
    double at = c->start < 0 ? 0.0 : (double)c->start;
    *lost = c->start < 0;
    if (at >= w->k[0].t) return SEG_FREE;
    /* insert a key holding the first value, joined by a flat line */
    if (wlist_push(w, 0, 0, -1)) return GA_ERR_NOMEM;
    memmove(w->k + 1, w->k, (size_t)(w->n - 1) * sizeof *w->k);
    memmove(w->s + 1, w->s, (size_t)(w->n - 1) * sizeof *w->s);
    w->k[0] = w->k[1];
    w->k[0].t = at;
    w->k[0].src = -1;
    w->k[0].hint15 = w->k[0].hint14 = -1;
    w->s[0].kind = SEG_LINEAR;
    return SEG_FREE;
}

/* A clip track's keys in file units, computed once per track. */
typedef struct ckeys {
    uint32_t n;
    const uint8_t *interp;
    double *t, *v, *is, *os; /* one block */
    double *q;               /* nearbyint(v * 64) */
} ckeys;

#define V(i) (ck->v[i])
#define IS(i) (ck->is[i])
#define OS(i) (ck->os[i])
#define TM(i) (ck->t[i])
#define Q(i) (ck->q[i])

/* Maps clip keys r0..r1 to file keys with flags, `pre` / `post` telling
 * whether the clip keys before r0 / after r1 are the pre- and post-roll
 * the game draws by itself.  Returns 1 when the result reproduces the clip
 * curve exactly, 0 when it does not, GA_ERR_NOMEM on failure. */
static int build_exact(const ckeys *ck, const track_ctx *c, uint32_t r0, uint32_t r1, int pre, int post,
                       const bk_key *hint, uint32_t nhint, wlist *w, int *lost)
{
    double D = type_default(c->type);
    *lost = 0;
    for (uint32_t i = r0; i <= r1; i++)
        if (!(TM(i) >= 0.0 && TM(i) <= BK_MAX_FRAME) || TM(i) != (double)(int32_t)TM(i)) return 0;
    for (uint32_t i = r0; i <= r1; i++) {
        if (wlist_push(w, TM(i), V(i), (int)i)) return GA_ERR_NOMEM;
        if (i == r1) break;
        wseg *s = &w->s[w->n - 1];
        double len = TM(i + 1) - TM(i);
        if (len == 0.0) {
            s->kind = SEG_FREE;
        } else if (ck->interp[i] == GA_INTERP_LINEAR) {
            s->kind = SEG_LINEAR;
        } else if (ck->interp[i] == GA_INTERP_CONSTANT) {
            s->kind = SEG_LINEAR;
            if (Q(i) != Q(i + 1)) {
                /* a step: hold on a flat line, then a second key at the
                 * same frame (the game's search lands on the later one) */
                if (wlist_push(w, TM(i + 1), V(i), -1)) return GA_ERR_NOMEM;
                w->s[w->n - 1].kind = SEG_FREE;
            }
        } else {
            s->kind = SEG_SMOOTH;
            s->m_out = OS(i) * len;
            s->m_in = IS(i + 1) * len;
        }
    }
    double pre_m_in = 0.0;
    int pre_kind;
    if (pre) {
        pre_kind = SEG_SMOOTH;
        pre_m_in = IS(r0) * (TM(r0) - c->start);
    } else {
        pre_kind = hold_before_first(w, c, D, &pre_m_in, lost);
        if (pre_kind < 0) return pre_kind;
    }
    attach_hints(w, hint, nhint);
    int r = solve_flags(w, pre_kind, pre_m_in, c->start, D, post ? OS(r1) : 0.0);
    return r < 0 ? GA_ERR_NOMEM : r;
}

static int track_to_wlist(const ga_track *t, const ckeys *ck, const track_ctx *c, const bk_key *hint, uint32_t nhint,
                          bk_key **out, uint32_t *nout, int *sampled, ga_error *err);

/* Clip track -> file keys.  *sampled is set when the curve had to be
 * written as one key per frame.  Errors are GA_ERR_ENCODE. */
static int track_to_keys(const ga_track *t, const track_ctx *c, const bk_key *hint, uint32_t nhint, bk_key **out,
                         uint32_t *nout, int *sampled, ga_error *err)
{
    uint32_t n = t->nkeys;
    double unit = type_unit(c->type);
    *out = NULL;
    *nout = 0;
    *sampled = 0;
    if (n == 0)
        return ga_fail(err, GA_ERR_ENCODE, "bk", "key count", -1,
                       "%s has no keys; an element needs at least one (drop the track to leave the channel at "
                       "the model's pose)",
                       c->who);
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(t->time[i]) || !isfinite(t->value[i]) || !isfinite(t->in_slope[i]) ||
            !isfinite(t->out_slope[i]))
            return ga_fail(err, GA_ERR_ENCODE, "bk", "key", -1, "%s key %u is not finite", c->who, i);
        if (i && t->time[i] < t->time[i - 1])
            return ga_fail(err, GA_ERR_ENCODE, "bk", "key frame", -1,
                           "%s key %u at frame %g comes before key %u at frame %g (frames must not decrease)", c->who,
                           i, (double)t->time[i], i - 1, (double)t->time[i - 1]);
    }
    ckeys cks, *ck = &cks;
    ck->n = n;
    ck->interp = t->interp;
    ck->t = malloc((size_t)n * 5 * sizeof(double));
    if (!ck->t) return ga_nomem(err, "bk");
    ck->v = ck->t + n;
    ck->is = ck->v + n;
    ck->os = ck->is + n;
    ck->q = ck->os + n;
    for (uint32_t i = 0; i < n; i++) {
        ck->t[i] = t->time[i];
        ck->v[i] = (double)t->value[i] / unit;
        ck->is[i] = (double)t->in_slope[i] / unit;
        ck->os[i] = (double)t->out_slope[i] / unit;
        ck->q[i] = nearbyint(ck->v[i] * 64.0);
    }
    int rc = track_to_wlist(t, ck, c, hint, nhint, out, nout, sampled, err);
    free(ck->t);
    return rc;
}

/* The rest of track_to_keys, on the precomputed keys. */
static int track_to_wlist(const ga_track *t, const ckeys *ck, const track_ctx *c, const bk_key *hint, uint32_t nhint,
                          bk_key **out, uint32_t *nout, int *sampled, ga_error *err)
{
    uint32_t n = ck->n;
    double unit = type_unit(c->type), D = type_default(c->type);
    /* The clip's own pre-roll key: the default at the start frame, leaving
     * with the pre-roll's tangent. */
    int pre = n >= 2 && TM(0) == (double)c->start && ck->interp[0] == GA_INTERP_BEZIER && TM(1) > TM(0) &&
              Q(0) == D * 64.0 && tangent_ok((V(1) - D) / 2.0, OS(0) * (TM(1) - TM(0)));
    /* ... and its post-roll key: one frame after the last, same value,
     * arriving flat, after a departure that two real keys explain. */
    int post = 0;
    /* (with the pre-roll reading as well, it takes a fourth key: below) */
    if (n >= 3) {
        uint32_t L = n - 1;
        double m1 = OS(L - 1);
        post = TM(L) == TM(L - 1) + 1.0 && ck->interp[L - 1] == GA_INTERP_BEZIER && Q(L) == Q(L - 1) && tangent_ok(0.0, IS(L)) &&
               tangent_ok((V(L - 1) - V(L - 2)) / 2.0, m1) && !tangent_ok(0.0, m1);
    }
    /* Such keys can also be real keys of the file (a key at the start frame
     * is a neighbour the next segment may use): try the readings with the
     * fewest keys first and keep the first that is exact. */
    wlist w = {0};
    int exact = 0, lost = 0;
    /* with the original element at hand, prefer the reading that has its
     * keys (a real key at the start frame / one frame after the last) */
    int real_pre = pre && hint && nhint && hint[0].frame == c->start;
    int real_post = post && hint && nhint && (double)hint[nhint - 1].frame == TM(n - 1);
    for (int attempt = 0; attempt < 4 && !exact; attempt++) {
        if ((attempt & 1 && !pre) || (attempt & 2 && !post)) continue;
        int p = pre && !((attempt & 1) ^ real_pre), q = post && !(((attempt & 2) >> 1) ^ real_post);
        if (p && q && n < 4) continue; /* the pre-roll key cannot be the key the post-roll leaves */
        wlist_free(&w);
        int r = build_exact(ck, c, (uint32_t)p, n - 1 - (uint32_t)q, p, q, hint, nhint, &w, &lost);
        if (r < 0) {
            wlist_free(&w);
            return ga_nomem(err, "bk");
        }
        exact = r;
    }
    if (!exact) {
        /* One linear key per frame over the keyed range. */
        wlist_free(&w);
        double lo = floor(TM(0)), hi = ceil(TM(n - 1));
        /* the clip's own pre- and post-roll keys may sit just outside the
         * file's frame range; the game recreates those parts itself */
        if (pre && lo < 0.0) lo = 0.0;
        /* keys before frame 0 with a negative start frame (the clip's
         * pre-roll key after the start frame changed): a key cannot sit
         * there, so the keys start at 0 and the game draws frames
         * start..-1 from the default (hold_before_first notes it).  With a
         * start frame >= 0 such keys are an error below. */
        if (lo < 0.0 && hi >= 0.0 && c->start < 0) lo = 0.0;
        if (post && hi > BK_MAX_FRAME) hi = BK_MAX_FRAME;
        if (lo < 0.0 || hi > BK_MAX_FRAME)
            return ga_fail(err, GA_ERR_ENCODE, "bk", "key frame", -1,
                           "%s: keys span frames %g..%g; BK frames are 0..%d", c->who, TM(0), TM(n - 1),
                           BK_MAX_FRAME);
        double worst = 0.0;
        for (double f = lo; f <= hi; f += 1.0) {
            if (wlist_push(&w, f, ga_track_eval(t, f) / unit, (int)f)) {
                wlist_free(&w);
                return ga_nomem(err, "bk");
            }
            w.s[w.n - 1].kind = SEG_LINEAR;
            if (f > lo) {
                /* what the straight line misses halfway */
                double mid = ga_track_eval(t, f - 0.5) / unit;
                double lin = (w.k[w.n - 2].v + w.k[w.n - 1].v) / 2.0;
                if (fabs(mid - lin) > worst) worst = fabs(mid - lin);
            }
        }
        double pre_m_in = 0.0;
        int pre_kind = hold_before_first(&w, c, D, &pre_m_in, &lost);
        if (pre_kind < 0) {
            wlist_free(&w);
            return ga_nomem(err, "bk");
        }
        int r = solve_flags(&w, pre_kind, pre_m_in, c->start, D, 0.0);
        if (r <= 0) {
            /* r == 0 cannot happen: every piece is a line or flat */
            wlist_free(&w);
            if (r < 0) return ga_nomem(err, "bk");
            return ga_fail(err, GA_ERR_ENCODE, "bk", "", -1, "%s: internal error choosing key flags", c->who);
        }
        *sampled = 1;
        if (c->rep) {
            ga_report_note(c->rep, "%s: the curve is not expressible with BK keys; written as %u per-frame keys",
                           c->who, w.n);
            ga_report_error(c->rep, worst * unit, "%s between frames (per-frame keys)", c->who);
        }
    }
    if (lost && c->rep)
        ga_report_note(c->rep, "%s: frames %d..-1 rise from the default (a key cannot sit before frame 0)", c->who,
                       (int)c->start);
    if (w.n > BK_MAX_COUNT) {
        uint32_t nk = w.n;
        wlist_free(&w);
        return ga_fail(err, GA_ERR_ENCODE, "bk", "key count", -1, "%s needs %u keys; an element holds at most %d",
                       c->who, nk, BK_MAX_COUNT);
    }
    int rc = quantise(&w, c, err);
    if (rc) {
        wlist_free(&w);
        return rc;
    }
    bk_key *k = malloc((size_t)w.n * sizeof *k);
    if (!k) {
        wlist_free(&w);
        return ga_nomem(err, "bk");
    }
    for (uint32_t j = 0; j < w.n; j++) {
        k[j].frame = (int32_t)w.k[j].t;
        k[j].value = w.k[j].q;
        k[j].b15 = w.k[j].b15;
        k[j].b14 = w.k[j].b14;
    }
    *out = k;
    *nout = w.n;
    wlist_free(&w);
    return GA_OK;
}
#undef V
#undef IS
#undef OS
#undef TM
#undef Q

/* ------------------------------------------------------------------ */
/* Decoding                                                            */

static void bk_free_raw(void *p)
{
    bk_raw *raw = p;
    if (!raw) return;
    free(raw->file);
    free(raw->elem_off);
    free(raw);
}

static void read_keys(const uint8_t *p, uint32_t n, bk_key *k)
{
    for (uint32_t i = 0; i < n; i++) {
        uint16_t w = ga_get_u16be(p + (size_t)i * 4);
        k[i].b15 = (uint8_t)(w >> 15);
        k[i].b14 = (uint8_t)((w >> 14) & 1);
        k[i].frame = w & 0x3FFF;
        k[i].value = (int16_t)ga_get_u16be(p + (size_t)i * 4 + 2);
    }
}

/* Walks the elements.  With err == NULL it only reports success (probe). */
static int walk(const uint8_t *data, size_t size, ga_error *err, uint64_t *nkeys)
{
    int16_t count = (int16_t)ga_get_u16be(data + 4);
    if (count < 0)
        return ga_fail(err, GA_ERR_FORMAT, "bk", "element count", 4, "%d elements: the count is negative", count);
    size_t off = BK_HEADER;
    uint64_t total = 0;
    for (int e = 0; e < count; e++) {
        if (size - off < 4)
            return ga_fail(err, GA_ERR_FORMAT, "bk", "element header", (long long)off,
                           "element %d of %d starts past the end of the data (%zu bytes): the element count runs "
                           "past the end",
                           e, count, size);
        uint16_t word = ga_get_u16be(data + off);
        int16_t kc = (int16_t)ga_get_u16be(data + off + 2);
        unsigned bone = word >> 4, type = word & 0xF;
        if (type >= BK_NTYPES)
            return ga_fail(err, GA_ERR_FORMAT, "bk", "transform type", (long long)off,
                           "element %d (bone %u): transform type %u is not 0..8", e, bone, type);
        if (kc < 1)
            return ga_fail(err, GA_ERR_FORMAT, "bk", "key count", (long long)off + 2,
                           "element %d (bone %u, %s): key count %d; an element needs at least one key", e, bone,
                           type_names[type], kc);
        size_t avail = (size - off - 4) / BK_KEY_SIZE;
        if ((size_t)kc > avail)
            return ga_fail(err, GA_ERR_FORMAT, "bk", "key count", (long long)off + 2,
                           "element %d (bone %u, %s): %d keys need %zu bytes but only %zu remain: the key count "
                           "runs past the end",
                           e, bone, type_names[type], kc, (size_t)kc * BK_KEY_SIZE, size - off - 4);
        const uint8_t *p = data + off + 4;
        unsigned prev = 0;
        for (int i = 0; i < kc; i++) {
            unsigned fr = ga_get_u16be(p + (size_t)i * 4) & 0x3FFF;
            if (i && fr < prev)
                return ga_fail(err, GA_ERR_FORMAT, "bk", "key frame", (long long)(off + 4 + (size_t)i * 4),
                               "element %d (bone %u, %s): key %d is at frame %u, before frame %u of the key "
                               "before it",
                               e, bone, type_names[type], i, fr, prev);
            prev = fr;
        }
        total += (uint64_t)kc;
        off += 4 + (size_t)kc * BK_KEY_SIZE;
    }
    if (off != size)
        return ga_fail(err, GA_ERR_FORMAT, "bk", "trailing data", (long long)off,
                       "%zu bytes of trailing garbage after the last element (the elements end at 0x%zx)",
                       size - off, off);
    if (nkeys) *nkeys = total;
    return GA_OK;
}

static int bk_probe(const uint8_t *data, size_t size)
{
    if (size < BK_HEADER) return 0;
    int16_t start = (int16_t)ga_get_u16be(data), end = (int16_t)ga_get_u16be(data + 2);
    int16_t count = (int16_t)ga_get_u16be(data + 4);
    uint16_t pad = ga_get_u16be(data + 6);
    /* (a start frame past the last frame a key can have, or no element at
     * all, is legal but no animation: the bytes are more likely something
     * else, such as a bare Yaz0 / Yay0 header, whose own error is then the
     * one reported) */
    int plausible = pad == 0 && start <= end && start >= -BK_MAX_FRAME && start <= BK_MAX_FRAME &&
                    end <= 2 * BK_MAX_FRAME;
    if (walk(data, size, NULL, NULL) == GA_OK) return plausible && count > 0 ? 50 : 10;
    /* a believable header whose elements are broken: let the decoder say
     * exactly what is wrong (an all-zero buffer is not believable) */
    return plausible && count != 0 ? 5 : 0;
}

static void scan_bones(bk_raw *raw)
{
    /* contiguity, duplicates and distinct bones, over 4096 x 9 slots */
    uint8_t *seen = calloc((BK_MAX_BONE + 1) * BK_NTYPES, 1);
    uint8_t *bone_done = calloc(BK_MAX_BONE + 1, 1);
    raw->contiguous = 1;
    if (!seen || !bone_done) {
        free(seen);
        free(bone_done);
        return;
    }
    int prev = -1;
    for (uint32_t e = 0; e < raw->nelem; e++) {
        uint16_t word = ga_get_u16be(raw->file + raw->elem_off[e]);
        int bone = word >> 4, type = word & 0xF;
        if (bone != prev) {
            if (bone_done[bone]) raw->contiguous = 0;
            else raw->nbones++;
            bone_done[bone] = 1;
            prev = bone;
        }
        if (seen[bone * BK_NTYPES + type]) raw->duplicates++;
        seen[bone * BK_NTYPES + type] = 1;
        if ((uint32_t)bone > raw->max_bone) raw->max_bone = (uint32_t)bone;
    }
    free(seen);
    free(bone_done);
}

static int bk_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **rawp, ga_clip *clip,
                     ga_error *err)
{
    *rawp = NULL;
    if (size < BK_HEADER)
        return ga_fail(err, GA_ERR_FORMAT, "bk", "header", 0, "the data is %zu bytes; the header alone needs %u",
                       size, BK_HEADER);
    uint64_t nkeys = 0;
    int rc = walk(data, size, err, &nkeys);
    if (rc) return rc;
    int16_t count = (int16_t)ga_get_u16be(data + 4);
    /* the clip adds at most two keys per element */
    if (nkeys + 2u * (uint64_t)count > GA_MAX_KEYS_TOTAL)
        return ga_fail(err, GA_ERR_LIMIT, "bk", "key count", -1, "%llu keys exceed the limit of %u",
                       (unsigned long long)nkeys, GA_MAX_KEYS_TOTAL);
    rc = ga_check_decoded(opts, size, nkeys + 2u * (uint64_t)count, GA_KEY_BYTES, "keys", "bk", "key count",
                          BK_HEADER, err);
    if (rc) return rc;
    bk_raw *raw = calloc(1, sizeof *raw);
    if (!raw) return ga_nomem(err, "bk");
    raw->start = (int16_t)ga_get_u16be(data);
    raw->end = (int16_t)ga_get_u16be(data + 2);
    raw->count = count;
    raw->pad = ga_get_u16be(data + 6);
    raw->nelem = (uint32_t)count;
    raw->nkeys = nkeys;
    raw->size = size;
    raw->file = malloc(size);
    raw->elem_off = malloc(((size_t)raw->nelem + 1) * sizeof *raw->elem_off);
    if (!raw->file || !raw->elem_off) {
        bk_free_raw(raw);
        return ga_nomem(err, "bk");
    }
    memcpy(raw->file, data, size);
    size_t off = BK_HEADER;
    uint32_t maxk = 1;
    for (uint32_t e = 0; e < raw->nelem; e++) {
        raw->elem_off[e] = off;
        uint32_t kc = ga_get_u16be(data + off + 2);
        if (kc > maxk) maxk = kc;
        off += 4 + (size_t)kc * BK_KEY_SIZE;
    }
    scan_bones(raw);

    ga_clip_init(clip, "bk");
    clip->frame_count = (double)raw->end - raw->start + 1.0;
    clip->fps = 0.0;
    clip->loop = -1;
    clip->start_frame = raw->start;
    bk_key *keys = malloc((size_t)maxk * sizeof *keys);
    if (!keys) {
        bk_free_raw(raw);
        return ga_nomem(err, "bk");
    }
    rc = ga_clip_alloc_tracks(clip, raw->nelem, err);
    for (uint32_t e = 0; e < raw->nelem && !rc; e++) {
        const uint8_t *p = data + raw->elem_off[e];
        uint16_t word = ga_get_u16be(p);
        uint32_t kc = ga_get_u16be(p + 2);
        int type = word & 0xF;
        ga_track *t = &clip->tracks[e];
        t->target = word >> 4;
        t->channel = (uint8_t)type_channel(type);
        t->axis = (uint8_t)(type % 3);
        read_keys(p + 4, kc, keys);
        rc = keys_to_track(keys, kc, type, raw->start, t, err);
    }
    free(keys);
    if (rc) {
        ga_clip_free(clip);
        bk_free_raw(raw);
        return rc;
    }
    *rawp = raw;
    return GA_OK;
}

static int bk_info(const void *p, ga_info *info, ga_error *err)
{
    const bk_raw *raw = p;
    (void)err;
    int rc = 0;
    rc |= ga_info_int(info, "start_frame", raw->start);
    rc |= ga_info_int(info, "end_frame", raw->end);
    rc |= ga_info_int(info, "element_count", raw->count);
    rc |= ga_info_int(info, "pad", raw->pad);
    rc |= ga_info_int(info, "key_count", (long long)raw->nkeys);
    rc |= ga_info_int(info, "bone_count", raw->nbones);
    rc |= ga_info_int(info, "max_bone_id", raw->max_bone);
    rc |= ga_info_int(info, "bones_contiguous", raw->contiguous);
    rc |= ga_info_int(info, "duplicate_channels", raw->duplicates);
    rc |= ga_info_int(info, "file_size", (long long)raw->size);
    return rc ? GA_ERR_NOMEM : GA_OK;
}

/* ------------------------------------------------------------------ */
/* Sampling                                                            */

static int clip_start(const ga_clip *clip, int32_t *out)
{
    double s = nearbyint(clip->start_frame);
    if (!(s >= -32768.0 && s <= 32767.0)) return -1;
    *out = (int32_t)s;
    return 0;
}

static int bk_sample(const ga_clip *clip, uint32_t ti, const double *frames, size_t n, float *out, ga_error *err)
{
    const ga_track *t = &clip->tracks[ti];
    int type = channel_type(t->channel, t->axis);
    int32_t start;
    bk_key *k = NULL;
    uint32_t nk = 0;
    int sampled = 0;
    if (type >= 0 && t->nkeys > 0 && !t->target_name && clip_start(clip, &start) == 0) {
        /* errors are not shown when sampling: skip formatting a name */
        track_ctx c = {t->target, type, start, NULL, "track"};
        ga_error scratch;
        int rc = track_to_keys(t, &c, NULL, 0, &k, &nk, &sampled, &scratch);
        if (rc == GA_ERR_NOMEM) return ga_nomem(err, "bk");
        if (rc) k = NULL; /* not writable: show the clip's own curve */
    }
    if (!k) {
        for (size_t i = 0; i < n; i++) out[i] = (float)ga_track_eval(t, frames[i]);
        return GA_OK;
    }
    double unit = type_unit(type);
    for (size_t i = 0; i < n; i++) {
        float v = game_eval(k, nk, type, start, (float)frames[i]);
        out[i] = unit == 1.0 ? v : (float)((double)v * unit);
    }
    free(k);
    return GA_OK;
}

/* ------------------------------------------------------------------ */
/* Encoding                                                            */

typedef struct item {
    uint32_t track;
    int32_t orig;  /* original element, -1 for a new channel */
    int reuse;     /* write the original element's bytes */
    int bone, type;
    int32_t anchor; /* new channels: position after which they go */
} item;

static int cmp_new(const void *a, const void *b)
{
    const item *x = a, *y = b;
    /* anchored groups in anchor order, unanchored (-1) last */
    long long ax = x->anchor < 0 ? 0x7FFFFFFFLL : x->anchor, ay = y->anchor < 0 ? 0x7FFFFFFFLL : y->anchor;
    if (ax != ay) return ax < ay ? -1 : 1;
    if (x->bone != y->bone) return x->bone < y->bone ? -1 : 1;
    if (x->type != y->type) return x->type < y->type ? -1 : 1;
    return x->track < y->track ? -1 : x->track > y->track;
}

static int header_fields(const ga_encode_ctx *ctx, int32_t *start, int32_t *end, ga_error *err)
{
    const ga_clip *c = ctx->clip;
    const bk_raw *raw = ctx->raw;
    if (raw && c->start_frame == (double)raw->start) {
        *start = raw->start;
    } else {
        double s = c->start_frame;
        if (!isfinite(s) || nearbyint(s) < -32768.0 || nearbyint(s) > 32767.0)
            return ga_fail(err, GA_ERR_ENCODE, "bk", "start frame", 0, "start frame %g does not fit the s16 field",
                           s);
        if (nearbyint(s) != s)
            ga_report_note(ctx->report, "start frame %g rounded to %g (frames are whole numbers)", s, nearbyint(s));
        *start = (int32_t)nearbyint(s);
    }
    if (raw && ctx->orig && *start == raw->start && c->frame_count == ctx->orig->frame_count) {
        *end = raw->end;
        return GA_OK;
    }
    double fc = c->frame_count;
    if (!isfinite(fc) || fabs(fc) > 1e6)
        return ga_fail(err, GA_ERR_ENCODE, "bk", "end frame", 2, "frame count %g is not usable", fc);
    double e = (double)*start + nearbyint(fc) - 1.0;
    if (e < -32768.0 || e > 32767.0)
        return ga_fail(err, GA_ERR_ENCODE, "bk", "end frame", 2,
                       "start %d + frame count %g - 1 = %g does not fit the s16 end frame", (int)*start, fc, e);
    if (nearbyint(fc) != fc)
        ga_report_note(ctx->report, "frame count %g rounded to %g (frames are whole numbers)", fc, nearbyint(fc));
    *end = (int32_t)e;
    return GA_OK;
}

static int bk_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    const ga_clip *clip = ctx->clip;
    const bk_raw *raw = ctx->raw;
    uint32_t n = clip->ntracks;
    int32_t start = 0, end = 0;
    int rc = header_fields(ctx, &start, &end, err);
    if (rc) return rc;
    if (n > BK_MAX_COUNT)
        return ga_fail(err, GA_ERR_ENCODE, "bk", "element count", 4, "%u tracks; a file holds at most %d elements",
                       n, BK_MAX_COUNT);
    uint32_t norig = raw ? raw->nelem : 0;
    item *items = calloc((size_t)n + 1, sizeof *items);
    uint8_t *claimed = calloc((size_t)norig + 1, 1);
    uint8_t *taken = calloc((size_t)(BK_MAX_BONE + 1) * BK_NTYPES, 1);
    bk_key *hint = NULL, *keys = NULL;
    if (!items || !claimed || !taken) {
        rc = ga_nomem(err, "bk");
        goto done;
    }
    /* Which element every track is. */
    for (uint32_t i = 0; i < n; i++) {
        const ga_track *t = &clip->tracks[i];
        int type = channel_type(t->channel, t->axis);
        if (t->target_name) {
            rc = ga_fail(err, GA_ERR_ENCODE, "bk", "track target", -1,
                         "track %u targets '%s' by name; BK tracks target bone IDs (ints)", i, t->target_name);
            goto done;
        }
        if (type < 0) {
            rc = ga_fail(err, GA_ERR_ENCODE, "bk", "transform type", -1,
                         "track %u (bone %d): BK animates Euler rotation, scale and translation on axes 0..2, not "
                         "this channel",
                         i, t->target);
            goto done;
        }
        if (t->target < 0 || t->target > BK_MAX_BONE) {
            rc = ga_fail(err, GA_ERR_ENCODE, "bk", "bone id", -1, "track %u: bone ID %d is not 0..%d", i, t->target,
                         BK_MAX_BONE);
            goto done;
        }
        items[i].track = i;
        items[i].orig = -1;
        items[i].bone = t->target;
        items[i].type = type;
        items[i].anchor = -1;
    }
    uint16_t *owords = NULL;
    if (norig) {
        owords = malloc((size_t)norig * sizeof *owords);
        if (!owords) {
            rc = ga_nomem(err, "bk");
            goto done;
        }
        for (uint32_t j = 0; j < norig; j++) owords[j] = ga_get_u16be(raw->file + raw->elem_off[j]);
    }
    /* unchanged tracks first, then edits of an original channel */
    for (uint32_t i = 0; i < n && ctx->orig; i++) {
        int32_t j = ctx->orig_track ? ctx->orig_track[i] : -1;
        if (j < 0 || (uint32_t)j >= norig) continue;
        if (claimed[j]) {
            j = -1;
            for (uint32_t k = 0; k < norig && j < 0; k++)
                if (!claimed[k] && ga_track_equal(&clip->tracks[i], &ctx->orig->tracks[k])) j = (int32_t)k;
            if (j < 0) continue;
        }
        claimed[j] = 1;
        items[i].orig = j;
        items[i].reuse = start == raw->start;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (items[i].orig >= 0) continue;
        uint16_t word = (uint16_t)((items[i].bone << 4) | items[i].type);
        for (uint32_t j = 0; j < norig; j++)
            if (!claimed[j] && owords[j] == word) {
                claimed[j] = 1;
                items[i].orig = (int32_t)j;
                break;
            }
    }
    /* Order: original elements in file order; new channels after the last
     * element of their bone (the game needs a bone's elements adjacent),
     * or at the end, sorted by bone ID then type. */
    item *order = malloc(((size_t)n + 1) * sizeof *order);
    int32_t *pos_of_orig = malloc(((size_t)norig + 1) * sizeof *pos_of_orig);
    int32_t *last_of_bone = malloc((BK_MAX_BONE + 1) * sizeof *last_of_bone);
    if (!order || !pos_of_orig || !last_of_bone) {
        free(order);
        free(pos_of_orig);
        free(last_of_bone);
        free(owords);
        rc = ga_nomem(err, "bk");
        goto done;
    }
    for (uint32_t j = 0; j < norig; j++) pos_of_orig[j] = -1;
    for (uint32_t i = 0; i < n; i++)
        if (items[i].orig >= 0) pos_of_orig[items[i].orig] = (int32_t)i;
    for (int b = 0; b <= BK_MAX_BONE; b++) last_of_bone[b] = -1;
    uint32_t norder = 0;
    for (uint32_t j = 0; j < norig; j++) {
        if (pos_of_orig[j] < 0) continue;
        item *it = &items[pos_of_orig[j]];
        last_of_bone[it->bone] = (int32_t)j;
        taken[it->bone * BK_NTYPES + it->type] = 1;
    }
    uint32_t nnew = 0;
    item *news = malloc(((size_t)n + 1) * sizeof *news);
    if (!news) {
        free(order);
        free(pos_of_orig);
        free(last_of_bone);
        free(owords);
        rc = ga_nomem(err, "bk");
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (items[i].orig >= 0) continue;
        item it = items[i];
        size_t slot = (size_t)it.bone * BK_NTYPES + (size_t)it.type;
        if (taken[slot]) {
            rc = ga_fail(err, GA_ERR_ENCODE, "bk", "element", -1,
                         "two tracks animate bone %d type %d (%s); a channel can have only one", it.bone, it.type,
                         type_names[it.type]);
            break;
        }
        taken[slot] = 1;
        it.anchor = last_of_bone[it.bone];
        news[nnew++] = it;
    }
    if (!rc) {
        qsort(news, nnew, sizeof *news, cmp_new);
        uint32_t q = 0;
        for (uint32_t j = 0; j < norig; j++) {
            if (pos_of_orig[j] < 0) continue;
            order[norder++] = items[pos_of_orig[j]];
            while (q < nnew && news[q].anchor == (int32_t)j) order[norder++] = news[q++];
        }
        while (q < nnew) order[norder++] = news[q++];
    }
    free(news);
    free(pos_of_orig);
    free(last_of_bone);
    free(owords);
    if (rc) {
        free(order);
        goto done;
    }

    /* Header, then the elements. */
    ga_buf_u16be(out, (uint16_t)(int16_t)start);
    ga_buf_u16be(out, (uint16_t)(int16_t)end);
    ga_buf_u16be(out, (uint16_t)norder);
    ga_buf_u16be(out, raw ? raw->pad : 0);
    uint32_t maxh = 1;
    for (uint32_t j = 0; j < norig; j++) {
        uint32_t kc = ga_get_u16be(raw->file + raw->elem_off[j] + 2);
        if (kc > maxh) maxh = kc;
    }
    hint = malloc((size_t)maxh * sizeof *hint);
    if (!hint) {
        free(order);
        rc = ga_nomem(err, "bk");
        goto done;
    }
    int warned0 = 0, warned_big = 0;
    for (uint32_t p = 0; p < norder && !rc; p++) {
        const item *it = &order[p];
        const ga_track *t = &clip->tracks[it->track];
        if (it->bone == 0 && !warned0++)
            ga_report_note(ctx->report, "bone ID 0 is written, but the game never applies it (IDs start at 1)");
        if (it->bone > BK_GAME_MAX_BONE && !warned_big++)
            ga_report_note(ctx->report, "bone ID %d is above 0x%X, past the end of the game's bone table", it->bone,
                           BK_GAME_MAX_BONE);
        if (it->reuse) {
            size_t off = raw->elem_off[it->orig];
            uint32_t kc = ga_get_u16be(raw->file + off + 2);
            ga_buf_put(out, raw->file + off, 4 + (size_t)kc * BK_KEY_SIZE);
            ctx->report->reused_tracks++;
            continue;
        }
        uint32_t nh = 0;
        if (it->orig >= 0) {
            const uint8_t *e = raw->file + raw->elem_off[it->orig];
            nh = ga_get_u16be(e + 2);
            read_keys(e + 4, nh, hint);
        }
        char who[64];
        snprintf(who, sizeof who, "bone %d type %d (%s)", it->bone, it->type, type_names[it->type]);
        track_ctx c = {it->bone, it->type, start, ctx->report, who};
        uint32_t nk = 0;
        int sampled = 0;
        /* Key reduction (a tolerance was given): a LINEAR curve (per-frame
         * values from Blender) keeps only the keys its straight segments
         * need; both flags clear makes each a linear segment in the game. */
        ga_track reduced;
        int use_reduced = 0;
        if (ctx->tolerance > 0.0 && t->nkeys > 2 && ga_track_is_linear(t)) {
            rc = ga_reduce_linear(t, ctx->tolerance, &reduced, err);
            if (rc) break;
            use_reduced = 1;
        }
        rc = track_to_keys(use_reduced ? &reduced : t, &c, it->orig >= 0 ? hint : NULL, nh, &keys, &nk, &sampled,
                           err);
        if (use_reduced) ga_track_free(&reduced);
        if (rc) break;
        ga_buf_u16be(out, (uint16_t)((it->bone << 4) | it->type));
        ga_buf_u16be(out, (uint16_t)nk);
        for (uint32_t k = 0; k < nk; k++) {
            ga_buf_u16be(out, (uint16_t)((keys[k].b15 << 15) | (keys[k].b14 << 14) | (keys[k].frame & 0x3FFF)));
            ga_buf_u16be(out, (uint16_t)(int16_t)keys[k].value);
        }
        free(keys);
        keys = NULL;
        ctx->report->encoded_tracks++;
    }
    free(order);
    if (!rc && out->failed) rc = ga_nomem(err, "bk");
done:
    free(items);
    free(claimed);
    free(taken);
    free(hint);
    free(keys);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Pose assembly                                                       */

typedef struct bk_run_ref {
    int32_t target;
    uint32_t run, track;
} bk_run_ref;

static int cmp_run_ref(const void *pa, const void *pb)
{
    const bk_run_ref *a = pa, *b = pb;
    if (a->target != b->target) return a->target < b->target ? -1 : 1;
    if (a->run != b->run) return a->run < b->run ? -1 : 1;
    return a->track < b->track ? -1 : a->track > b->track;
}

/* animationFile_getBoneTransformList (notes 2.3): the elements are walked
 * in order; when the bone ID changes the previous bone is flushed (unless
 * its ID is 0) with the channels its run did not set back at their
 * defaults, and the last run is flushed at the end.  So a bone's pose is
 * its LAST run of adjacent elements, a later element of one (bone, type)
 * in that run overrides an earlier one, and bone 0 counts only when its
 * run is the last of the file.  Tracks are the file's elements in order. */
static int bk_applied(const ga_clip *clip, uint8_t *keep, ga_error *err)
{
    uint32_t n = clip->ntracks;
    memset(keep, 0, n);
    if (n == 0) return GA_OK;
    bk_run_ref *refs = malloc((size_t)n * sizeof *refs);
    uint32_t *last = malloc((size_t)n * sizeof *last);
    if (!refs || !last) {
        free(refs);
        free(last);
        return ga_nomem(err, "bk");
    }
    uint32_t run = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && clip->tracks[i].target != clip->tracks[i - 1].target) run++;
        refs[i].target = clip->tracks[i].target;
        refs[i].run = run;
        refs[i].track = i;
    }
    uint32_t final_run = run;
    qsort(refs, n, sizeof *refs, cmp_run_ref);
    for (uint32_t g = 0; g < n;) {
        uint32_t e = g;
        while (e < n && refs[e].target == refs[g].target) e++;
        for (uint32_t j = g; j < e; j++) last[refs[j].track] = refs[e - 1].run;
        g = e;
    }
    /* from the end of each last run back: the first element of a channel
     * seen is the one that wins (taken: the channels seen in this run) */
    uint32_t taken = 0;
    run = final_run;
    for (uint32_t i = n; i-- > 0;) {
        if (i + 1 < n && clip->tracks[i].target != clip->tracks[i + 1].target) {
            run--;
            taken = 0;
        }
        const ga_track *t = &clip->tracks[i];
        if (run != last[i]) continue;
        if (t->target == 0 && run != final_run) continue;
        unsigned slot = t->channel < 3 && t->axis < 3 ? t->channel * 3u + t->axis : 31u;
        if (taken & (1u << slot)) continue;
        taken |= 1u << slot;
        keep[i] = 1;
    }
    free(refs);
    free(last);
    return GA_OK;
}

const ga_format ga_format_bk = {
    "bk",
    "Banjo-Kazooie skeletal animation (N64, .anim.bin, optionally rarezip)",
    bk_probe,
    bk_decode,
    bk_encode,
    bk_free_raw,
    bk_sample,
    bk_info,
    bk_applied,
    NULL, /* Track.evaluate: generic */
    {".bin;.anim", "bone_id", 0, "Y", "ID", "rarezip", NULL, NULL, "bk"},
};
