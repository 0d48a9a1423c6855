/* GX texture encoding (gx_texture.h): RGBA8 into the tiled texel formats,
 * the inverse of gx_texture.c.
 *
 * Every non-CMPR format picks, texel by texel, the stored value whose
 * decoding is nearest the input (sum of squared channel errors), so that
 * decode(encode(x)) is the closest the format can show:
 *   - a channel of n bits: the level k whose bit-replicated value is
 *     nearest; ties go to the lower level;
 *   - intensity formats take the Rec. 601 luma of RGB,
 *     Y = (77 R + 150 G + 29 B + 128) >> 8, then that rule; I4 and I8 have
 *     no alpha of their own (the GX reads the intensity as alpha), IA4 and
 *     IA8 take A;
 *   - RGB565 ignores alpha (it decodes opaque);
 *   - RGB5A3 takes whichever of its two modes (opaque 5-5-5, or 4-4-4 with
 *     3-bit alpha) is nearer over the four channels, opaque on a tie.
 * Indexed formats quantise each texel to the palette format by the same
 * rules; when the distinct values fit the palette (16 entries for C4, 256
 * for C8 and C14X2: J3D loads only those sizes) the palette holds them
 * exactly, else a median cut and k-means refinement choose the entries.
 * CMPR fits each 4x4 sub-block along its principal axis and refines the
 * endpoints by least squares, scored with the GX blend (3/8, 5/8); blocks
 * with a texel of alpha < 128 use the three-colour mode with transparency;
 * a block the fit leaves inexact tries its own exactly representable
 * colours as endpoints (cmpr_exact), so decoded CMPR re-encodes exactly
 * wherever its endpoints show.
 * Mip level l+1 is the 2x2 box filter of level l (rounded mean, (sum+2)>>2,
 * the edge texel repeated once a side is 1), each level encoded alone. */
#include "gameanim.h"
#include "gx_texture.h"



#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Levels and sizes                                                     */

uint32_t ga_gx_max_levels(uint32_t width, uint32_t height)
{
    uint32_t side = width > height ? width : height, n = 1;
    while (side > 1) {
        side >>= 1;
        n++;
    }
    return n;
}

int ga_gx_mip_size(int format, uint32_t width, uint32_t height, uint32_t levels, size_t *bytes)
{
    size_t total = 0, one;
    for (uint32_t l = 0; l < levels; l++) {
        if (ga_gx_image_size(format, width, height, &one) < 0) return -1;
        total += one;
        width = width > 1 ? width >> 1 : 1;
        height = height > 1 ? height >> 1 : 1;
    }
    *bytes = total;
    return 0;
}

uint32_t ga_gx_palette_entries(int format)
{
    return format == GA_GX_C4 ? 16u : ga_gx_is_indexed(format) ? 256u : 0u;
}

/* ------------------------------------------------------------------ */
/* Channel quantisation                                                 */

static inline unsigned expand(unsigned k, unsigned bits)
{
    switch (bits) {
    case 3: return (k << 5) | (k << 2) | (k >> 1);
    case 4: return k * 17u;
    case 5: return (k << 3) | (k >> 2);
    case 6: return (k << 2) | (k >> 4);
    default: return k;
    }
}

/* The level k of `bits` bits whose expansion is nearest v (lower on a tie). */
static inline unsigned nearest(int v, unsigned bits)
{
    if (v <= 0) return 0;
    unsigned maxk = (1u << bits) - 1u;
    if (v >= 255) return maxk;
    unsigned k = ((unsigned)v * maxk + 127u) / 255u, best = k;
    int berr = abs((int)expand(k, bits) - v);
    for (unsigned c = k > 0 ? k - 1 : 0; c <= k + 1 && c <= maxk; c++) {
        int e = abs((int)expand(c, bits) - v);
        if (e < berr || (e == berr && c < best)) {
            berr = e;
            best = c;
        }
    }
    return best;
}

static inline unsigned luma(const uint8_t *p) { return (77u * p[0] + 150u * p[1] + 29u * p[2] + 128u) >> 8; }

static inline int sq(int v) { return v * v; }

static inline uint16_t enc565(const uint8_t *p)
{
    return (uint16_t)(nearest(p[0], 5) << 11 | nearest(p[1], 6) << 5 | nearest(p[2], 5));
}

static uint16_t enc5a3(const uint8_t *p)
{
    unsigned r5 = nearest(p[0], 5), g5 = nearest(p[1], 5), b5 = nearest(p[2], 5);
    int eo = sq((int)expand(r5, 5) - p[0]) + sq((int)expand(g5, 5) - p[1]) + sq((int)expand(b5, 5) - p[2]) +
             sq(255 - p[3]);
    unsigned r4 = nearest(p[0], 4), g4 = nearest(p[1], 4), b4 = nearest(p[2], 4), a3 = nearest(p[3], 3);
    int et = sq((int)expand(r4, 4) - p[0]) + sq((int)expand(g4, 4) - p[1]) + sq((int)expand(b4, 4) - p[2]) +
             sq((int)expand(a3, 3) - p[3]);
    if (eo <= et) return (uint16_t)(0x8000u | r5 << 10 | g5 << 5 | b5);
    return (uint16_t)(a3 << 12 | r4 << 8 | g4 << 4 | b4);
}

static inline uint16_t enc_ia8(const uint8_t *p) { return (uint16_t)(p[3] << 8 | luma(p)); }

/* A palette entry's value for a texel. */
static inline uint16_t enc_entry(int pf, const uint8_t *p)
{
    return pf == GA_GX_TLUT_IA8 ? enc_ia8(p) : pf == GA_GX_TLUT_RGB565 ? enc565(p) : enc5a3(p);
}

/* A palette entry's RGBA (the decoder's rule). */
static void dec_entry(int pf, uint16_t v, int *c)
{
    uint8_t p[4];
    uint8_t raw[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    ga_gx_decode(GA_GX_C14X2, (const uint8_t[32]){0}, 1, 1, raw, 1, pf, p);
    for (int k = 0; k < 4; k++) c[k] = p[k];
}

/* ------------------------------------------------------------------ */
/* Palettes (C4, C8, C14X2)                                             */

typedef struct colour_set {
    uint32_t n;
    uint16_t *value;  /* distinct entry values */
    uint32_t *count;  /* texels having each */
    int (*rgba)[4];   /* each decoded */
} colour_set;

typedef struct box {
    uint32_t lo, hi; /* a range of the set's entries (sorted within the box) */
} box;

/* Sorts order[lo, hi) by one channel of the entries (counting sort: no
 * shared state, so encodes may run on several threads). */
static int sort_by_channel(const colour_set *s, uint32_t *order, box bx, int ch)
{
    uint32_t n = bx.hi - bx.lo, start[257] = {0};
    uint32_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp) return -1;
    for (uint32_t i = bx.lo; i < bx.hi; i++) start[s->rgba[order[i]][ch] + 1]++;
    for (int v = 0; v < 256; v++) start[v + 1] += start[v];
    for (uint32_t i = bx.lo; i < bx.hi; i++) tmp[start[s->rgba[order[i]][ch]]++] = order[i];
    memcpy(order + bx.lo, tmp, n * sizeof *tmp);
    free(tmp);
    return 0;
}

static void channel_range(const colour_set *s, const uint32_t *order, box bx, int *widest, int *span)
{
    int lo[4] = {255, 255, 255, 255}, hi[4] = {0, 0, 0, 0};
    for (uint32_t i = bx.lo; i < bx.hi; i++)
        for (int k = 0; k < 4; k++) {
            int v = s->rgba[order[i]][k];
            if (v < lo[k]) lo[k] = v;
            if (v > hi[k]) hi[k] = v;
        }
    *widest = 0;
    *span = -1;
    for (int k = 0; k < 4; k++)
        if (hi[k] - lo[k] > *span) {
            *span = hi[k] - lo[k];
            *widest = k;
        }
}

/* Chooses up to `want` palette values for the set (median cut on texel
 * counts, then k-means steps), into pal; returns how many. */
static uint32_t choose_palette(colour_set *s, int pf, uint32_t want, uint16_t *pal)
{
    uint32_t *order = malloc(s->n * sizeof *order);
    box *boxes = malloc(want * sizeof *boxes);
    double (*sum)[5] = malloc(want * sizeof *sum);
    int (*cent)[4] = malloc(want * sizeof *cent);
    uint32_t nb = 0;
    if (!order || !boxes || !sum || !cent) goto done;
    for (uint32_t i = 0; i < s->n; i++) order[i] = i;
    boxes[nb++] = (box){0, s->n};
    while (nb < want) {
        /* split the box of widest channel span with more than one entry */
        int best = -1, bspan = 0, bch = 0;
        for (uint32_t b = 0; b < nb; b++) {
            if (boxes[b].hi - boxes[b].lo < 2) continue;
            int ch, span;
            channel_range(s, order, boxes[b], &ch, &span);
            if (span > bspan) {
                bspan = span;
                best = (int)b;
                bch = ch;
            }
        }
        if (best < 0) break;
        box *bx = &boxes[best];
        if (sort_by_channel(s, order, *bx, bch) < 0) {
            nb = 0;
            goto done;
        }
        uint64_t total = 0, half = 0;
        for (uint32_t i = bx->lo; i < bx->hi; i++) total += s->count[order[i]];
        uint32_t cut = bx->lo + 1;
        for (uint32_t i = bx->lo; i < bx->hi - 1; i++) {
            half += s->count[order[i]];
            cut = i + 1;
            if (half * 2 >= total) break;
        }
        boxes[nb++] = (box){cut, bx->hi};
        bx->hi = cut;
    }
    /* centroids of the boxes, then k-means over the entries */
    uint32_t *label = malloc(s->n * sizeof *label);
    if (!label) {
        nb = 0;
        goto done;
    }
    for (uint32_t b = 0; b < nb; b++)
        for (uint32_t i = boxes[b].lo; i < boxes[b].hi; i++) label[order[i]] = b;
    for (int iter = 0; iter < 4; iter++) {
        memset(sum, 0, nb * sizeof *sum);
        for (uint32_t i = 0; i < s->n; i++) {
            double w = s->count[i];
            for (int k = 0; k < 4; k++) sum[label[i]][k] += w * s->rgba[i][k];
            sum[label[i]][4] += w;
        }
        for (uint32_t b = 0; b < nb; b++) {
            uint8_t p[4];
            for (int k = 0; k < 4; k++)
                p[k] = sum[b][4] > 0 ? (uint8_t)lrint(sum[b][k] / sum[b][4]) : 0;
            pal[b] = enc_entry(pf, p);
            dec_entry(pf, pal[b], cent[b]);
        }
        for (uint32_t i = 0; i < s->n; i++) {
            int be = 1 << 30;
            for (uint32_t b = 0; b < nb; b++) {
                int e = 0;
                for (int k = 0; k < 4; k++) e += sq(cent[b][k] - s->rgba[i][k]);
                if (e < be) {
                    be = e;
                    label[i] = b;
                }
            }
        }
    }
    free(label);
done:
    free(order);
    free(boxes);
    free(sum);
    free(cent);
    return nb;
}

/* Palette lookup: the palette's decoded colours and, per entry value a
 * texel quantises to, its nearest palette index (filled on first use). */
typedef struct indexer {
    int pf;
    uint32_t np;
    int pc[256][4];
    uint16_t *map; /* 65536, 0xFFFF = not yet known */
} indexer;

static uint16_t index_of(indexer *ix, uint16_t v)
{
    if (ix->map[v] != 0xFFFF) return ix->map[v];
    int c[4], be = 1 << 30;
    uint16_t bi = 0;
    dec_entry(ix->pf, v, c);
    for (uint32_t b = 0; b < ix->np && be; b++) {
        int e = sq(ix->pc[b][0] - c[0]) + sq(ix->pc[b][1] - c[1]) + sq(ix->pc[b][2] - c[2]) +
                sq(ix->pc[b][3] - c[3]);
        if (e < be) {
            be = e;
            bi = (uint16_t)b;
        }
    }
    return ix->map[v] = bi;
}

/* The distinct values of hist (texel counts per entry value), skipping
 * those marked in `skip`, as a colour set. */
static int set_of(const uint32_t *hist, const uint8_t *skip, int pf, colour_set *s)
{
    s->n = 0;
    for (uint32_t v = 0; v < 65536; v++) s->n += hist[v] && !(skip && skip[v]);
    s->value = malloc((s->n ? s->n : 1) * sizeof *s->value);
    s->count = malloc((s->n ? s->n : 1) * sizeof *s->count);
    s->rgba = malloc((s->n ? s->n : 1) * sizeof *s->rgba);
    if (!s->value || !s->count || !s->rgba) return -1;
    s->n = 0;
    for (uint32_t v = 0; v < 65536; v++)
        if (hist[v] && !(skip && skip[v])) {
            s->value[s->n] = (uint16_t)v;
            s->count[s->n] = hist[v];
            dec_entry(pf, (uint16_t)v, s->rgba[s->n]);
            s->n++;
        }
    return 0;
}

static void set_free(colour_set *s)
{
    free(s->value);
    free(s->count);
    free(s->rgba);
}

/* Up to `want` palette values for the set into pal: all of them when they
 * fit, else chosen (median cut, k-means); -1 when out of memory. */
static long pick(colour_set *s, int pf, uint32_t want, uint16_t *pal)
{
    if (want == 0) return 0;
    if (s->n <= want) {
        for (uint32_t i = 0; i < s->n; i++) pal[i] = s->value[i];
        return s->n;
    }
    uint32_t np = choose_palette(s, pf, want, pal);
    return np ? (long)np : -1;
}

/* The palette of an indexed texture (`want` entries written, unused ones
 * zero) and ix set up for it.  Level 0 (n0 texels) comes first: when its
 * values fit they are all kept, so level 0 is exact, and the room left
 * goes to the values of the lower levels (rest, nrest texels). */
static int build_palette(const uint8_t *level0, size_t n0, const uint8_t *rest, size_t nrest, int pf, uint32_t want,
                         uint8_t *palette, indexer *ix, ga_error *err)
{
    uint32_t *hist = calloc(65536, sizeof *hist);
    uint8_t *taken = calloc(65536, 1);
    colour_set s = {0}, r = {0};
    uint16_t pal[256];
    long np = -1;
    if (!hist || !taken) goto done;
    for (size_t i = 0; i < n0; i++) hist[enc_entry(pf, level0 + 4 * i)]++;
    if (set_of(hist, NULL, pf, &s) < 0) goto done;
    if (s.n > want) { /* level 0 alone overflows: choose from every level */
        for (size_t i = 0; i < nrest; i++) hist[enc_entry(pf, rest + 4 * i)]++;
        set_free(&s);
        if (set_of(hist, NULL, pf, &s) < 0) goto done;
        np = pick(&s, pf, want, pal);
    } else {
        np = pick(&s, pf, want, pal);
        for (long i = 0; i < np; i++) taken[pal[i]] = 1;
        memset(hist, 0, 65536 * sizeof *hist);
        for (size_t i = 0; i < nrest; i++) hist[enc_entry(pf, rest + 4 * i)]++;
        if (nrest && np < (long)want) {
            if (set_of(hist, taken, pf, &r) < 0) {
                np = -1;
                goto done;
            }
            long more = pick(&r, pf, want - (uint32_t)np, pal + np);
            np = more < 0 ? -1 : np + more;
        }
    }
done:
    free(hist);
    free(taken);
    set_free(&s);
    set_free(&r);
    if (np < 0) return ga_nomem(err, "gx");
    ix->pf = pf;
    ix->np = (uint32_t)np;
    memset(ix->map, 0xFF, 65536 * sizeof *ix->map);
    memset(palette, 0, (size_t)want * 2);
    for (long b = 0; b < np; b++) {
        dec_entry(pf, pal[b], ix->pc[b]);
        palette[2 * b] = (uint8_t)(pal[b] >> 8);
        palette[2 * b + 1] = (uint8_t)pal[b];
    }
    return GA_OK;
}

/* ------------------------------------------------------------------ */
/* CMPR                                                                 */

/* The four colours of a sub-block with endpoints e0, e1 (RGB565) as the
 * GX decodes them (gx_texture.c cmpr_block); n: how many are usable
 * opaque colours (4, or 3 in the three-colour mode). */
static int cmpr_palette(uint16_t e0, uint16_t e1, int pal[4][3])
{
    uint16_t v[2] = {e0, e1};
    for (int i = 0; i < 2; i++) {
        pal[i][0] = (int)expand(v[i] >> 11, 5);
        pal[i][1] = (int)expand((v[i] >> 5) & 63, 6);
        pal[i][2] = (int)expand(v[i] & 31, 5);
    }
    if (e0 > e1) {
        for (int k = 0; k < 3; k++) {
            pal[2][k] = (5 * pal[0][k] + 3 * pal[1][k]) >> 3;
            pal[3][k] = (3 * pal[0][k] + 5 * pal[1][k]) >> 3;
        }
        return 4;
    }
    for (int k = 0; k < 3; k++) pal[2][k] = pal[3][k] = (pal[0][k] + pal[1][k]) >> 1;
    return 3;
}

typedef struct cmpr_fit {
    uint16_t e0, e1;
    uint8_t idx[16];
    long err;
} cmpr_fit;

/* Indices and error of endpoints (e0, e1) for the n texels px (opaque). */
static long cmpr_eval(uint16_t e0, uint16_t e1, const int (*px)[3], int n, uint8_t *idx)
{
    int pal[4][3];
    int nc = cmpr_palette(e0, e1, pal);
    long total = 0;
    for (int i = 0; i < n; i++) {
        int be = 1 << 30, bi = 0;
        for (int c = 0; c < nc; c++) {
            int e = sq(pal[c][0] - px[i][0]) + sq(pal[c][1] - px[i][1]) + sq(pal[c][2] - px[i][2]);
            if (e < be) {
                be = e;
                bi = c;
            }
        }
        idx[i] = (uint8_t)bi;
        total += be;
    }
    return total;
}

static inline uint16_t to565(const double *c)
{
    uint8_t p[3];
    for (int k = 0; k < 3; k++) p[k] = (uint8_t)(c[k] < 0 ? 0 : c[k] > 255 ? 255 : lrint(c[k]));
    return (uint16_t)(nearest(p[0], 5) << 11 | nearest(p[1], 6) << 5 | nearest(p[2], 5));
}

/* Endpoints ordered for the mode: four colours need e0 > e1, three
 * (transparency) e0 <= e1. */
static void order_ends(uint16_t *a, uint16_t *b, int four)
{
    if (four ? *a < *b : *a > *b) {
        uint16_t t = *a;
        *a = *b;
        *b = t;
    }
}

static void try_ends(cmpr_fit *best, uint16_t a, uint16_t b, int four, const int (*px)[3], int n)
{
    order_ends(&a, &b, four);
    uint8_t idx[16];
    long e = cmpr_eval(a, b, px, n, idx);
    if (e < best->err) {
        best->err = e;
        best->e0 = a;
        best->e1 = b;
        memcpy(best->idx, idx, (size_t)n);
    }
}

/* A block of one colour in the four-colour mode: each channel's best pair
 * of levels for the 3/8 blend (colour 2), often nearer than one level. */
static void cmpr_solid(cmpr_fit *best, const int *c, const int (*px)[3], int n)
{
    unsigned lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        unsigned bits = k == 1 ? 6 : 5, maxk = (1u << bits) - 1, m = nearest(c[k], bits);
        int be = abs((int)expand(m, bits) - c[k]);
        lo[k] = hi[k] = m;
        for (unsigned a = m > 2 ? m - 2 : 0; a <= m + 2 && a <= maxk; a++)
            for (unsigned b = a > 8 ? a - 8 : 0; b <= a + 8 && b <= maxk; b++) {
                int e = abs((int)((5 * expand(a, bits) + 3 * expand(b, bits)) >> 3) - c[k]);
                if (e < be) {
                    be = e;
                    lo[k] = a;
                    hi[k] = b;
                }
            }
    }
    try_ends(best, (uint16_t)(lo[0] << 11 | lo[1] << 5 | lo[2]), (uint16_t)(hi[0] << 11 | hi[1] << 5 | hi[2]), 1,
             px, n);
}

/* Fits endpoints to n opaque texels: principal axis, then least squares
 * on the chosen indices (weights of the GX blend), keeping the best. */
static cmpr_fit cmpr_fit_block(const int (*px)[3], int n, int four)
{
    cmpr_fit best = {0, 0, {0}, 1L << 40};
    double mean[3] = {0, 0, 0}, cov[6] = {0};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) mean[k] += px[i][k];
    for (int k = 0; k < 3; k++) mean[k] /= n;
    for (int i = 0; i < n; i++) {
        double d[3] = {px[i][0] - mean[0], px[i][1] - mean[1], px[i][2] - mean[2]};
        cov[0] += d[0] * d[0], cov[1] += d[0] * d[1], cov[2] += d[0] * d[2];
        cov[3] += d[1] * d[1], cov[4] += d[1] * d[2], cov[5] += d[2] * d[2];
    }
    if (cov[0] + cov[3] + cov[5] < 1e-9) {
        int c[3] = {px[0][0], px[0][1], px[0][2]};
        uint16_t e = to565(mean);
        try_ends(&best, e, e, four, px, n);
        if (four) cmpr_solid(&best, c, px, n);
        return best;
    }
    double axis[3] = {cov[0], cov[3], cov[5]};
    /* start from the widest channel, then power iteration */
    int wide = axis[0] >= axis[1] && axis[0] >= axis[2] ? 0 : axis[1] >= axis[2] ? 1 : 2;
    axis[0] = axis[1] = axis[2] = 0;
    axis[wide] = 1;
    for (int it = 0; it < 8; it++) {
        double v[3] = {cov[0] * axis[0] + cov[1] * axis[1] + cov[2] * axis[2],
                       cov[1] * axis[0] + cov[3] * axis[1] + cov[4] * axis[2],
                       cov[2] * axis[0] + cov[4] * axis[1] + cov[5] * axis[2]};
        double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (len < 1e-12) break;
        for (int k = 0; k < 3; k++) axis[k] = v[k] / len;
    }
    double tmin = 1e30, tmax = -1e30;
    for (int i = 0; i < n; i++) {
        double t = (px[i][0] - mean[0]) * axis[0] + (px[i][1] - mean[1]) * axis[1] + (px[i][2] - mean[2]) * axis[2];
        if (t < tmin) tmin = t;
        if (t > tmax) tmax = t;
    }
    double a[3], b[3];
    for (int k = 0; k < 3; k++) {
        a[k] = mean[k] + tmin * axis[k];
        b[k] = mean[k] + tmax * axis[k];
    }
    try_ends(&best, to565(a), to565(b), four, px, n);
    /* least squares: colour(i) = (1 - t) * e0 + t * e1 with t the blend
     * weight of the index chosen */
    static const double T4[4] = {0.0, 1.0, 3.0 / 8.0, 5.0 / 8.0}, T3[4] = {0.0, 1.0, 0.5, 0.5};
    for (int it = 0; it < 3; it++) {
        const double *T = best.e0 > best.e1 ? T4 : T3;
        double A = 0, B = 0, C = 0, X0[3] = {0}, X1[3] = {0};
        for (int i = 0; i < n; i++) {
            double t = T[best.idx[i]], s = 1.0 - t;
            A += s * s, B += s * t, C += t * t;
            for (int k = 0; k < 3; k++) X0[k] += s * px[i][k], X1[k] += t * px[i][k];
        }
        double det = A * C - B * B;
        if (fabs(det) < 1e-9) break;
        for (int k = 0; k < 3; k++) {
            a[k] = (C * X0[k] - B * X1[k]) / det;
            b[k] = (A * X1[k] - B * X0[k]) / det;
        }
        long before = best.err;
        try_ends(&best, to565(a), to565(b), four, px, n);
        if (best.err >= before) break;
    }
    return best;
}

/* A block that came from a CMPR decode holds at most four distinct colours,
 * usually its two endpoints among them: when the fit is not exact, try
 * every ordered pair of the block's distinct colours that RGB565 holds
 * exactly as endpoints, in the four-colour mode (when allowed) and the
 * three-colour one, keeping an exact result (so a decoded CMPR image
 * encodes back to itself wherever its endpoints show). */
static void cmpr_exact(cmpr_fit *best, const int (*px)[3], int n, int four)
{
    uint16_t c[4];
    int nc = 0;
    for (int i = 0; i < n; i++) {
        uint8_t p[3] = {(uint8_t)px[i][0], (uint8_t)px[i][1], (uint8_t)px[i][2]};
        uint16_t v = enc565(p);
        if ((int)expand(v >> 11, 5) != px[i][0] || (int)expand((v >> 5) & 63, 6) != px[i][1] ||
            (int)expand(v & 31, 5) != px[i][2])
            continue; /* not an endpoint */
        int seen = 0;
        for (int k = 0; k < nc; k++) seen |= c[k] == v;
        if (seen) continue;
        if (nc == 4) return; /* not a decoded CMPR block: leave the fit */
        c[nc++] = v;
    }
    for (int a = 0; a < nc && best->err; a++)
        for (int b = 0; b < nc && best->err; b++) {
            if (four && a != b) try_ends(best, c[a], c[b], 1, px, n);
            try_ends(best, c[a], c[b], 0, px, n);
        }
}

/* One 4x4 sub-block at texel (x0, y0) of a w x h image into 8 bytes. */
static void cmpr_sub(const uint8_t *img, uint32_t w, uint32_t h, uint32_t x0, uint32_t y0, uint8_t *out)
{
    int px[16][3], n = 0, pos[16];
    int transparent = 0;
    uint8_t code[16];
    memset(code, 0, sizeof code);
    for (uint32_t y = 0; y < 4; y++)
        for (uint32_t x = 0; x < 4; x++) {
            if (x0 + x >= w || y0 + y >= h) continue;
            const uint8_t *p = img + ((size_t)(y0 + y) * w + x0 + x) * 4;
            if (p[3] < 128) {
                transparent = 1;
                code[y * 4 + x] = 3;
                continue;
            }
            px[n][0] = p[0], px[n][1] = p[1], px[n][2] = p[2];
            pos[n++] = (int)(y * 4 + x);
        }
    uint16_t e0 = 0, e1 = 0;
    if (n) {
        cmpr_fit f = cmpr_fit_block((const int(*)[3])px, n, !transparent);
        if (f.err) cmpr_exact(&f, (const int(*)[3])px, n, !transparent);
        e0 = f.e0;
        e1 = f.e1;
        for (int i = 0; i < n; i++) code[pos[i]] = f.idx[i];
    }
    out[0] = (uint8_t)(e0 >> 8), out[1] = (uint8_t)e0, out[2] = (uint8_t)(e1 >> 8), out[3] = (uint8_t)e1;
    for (int y = 0; y < 4; y++)
        out[4 + y] = (uint8_t)(code[4 * y] << 6 | code[4 * y + 1] << 4 | code[4 * y + 2] << 2 | code[4 * y + 3]);
}

/* ------------------------------------------------------------------ */
/* Blocks                                                               */

typedef struct fmt_block {
    int format;
    uint8_t bw, bh, bytes;
} fmt_block;

static const fmt_block BLOCKS[] = {
    {GA_GX_I4, 8, 8, 32},     {GA_GX_I8, 8, 4, 32},   {GA_GX_IA4, 8, 4, 32}, {GA_GX_IA8, 4, 4, 32},
    {GA_GX_RGB565, 4, 4, 32}, {GA_GX_RGB5A3, 4, 4, 32}, {GA_GX_RGBA8, 4, 4, 64}, {GA_GX_C4, 8, 8, 32},
    {GA_GX_C8, 8, 4, 32},     {GA_GX_C14X2, 4, 4, 32}, {GA_GX_CMPR, 8, 8, 32},
};

/* One block (not CMPR) of texels t (bw * bh, row by row; padding texels
 * are transparent black) into out. */
static void encode_block(int format, const uint8_t (*t)[4], uint32_t n, indexer *ix, uint8_t *out)
{
    uint32_t i;
    switch (format) {
    case GA_GX_I4:
        for (i = 0; i < n; i += 2)
            out[i >> 1] = (uint8_t)(nearest((int)luma(t[i]), 4) << 4 | nearest((int)luma(t[i + 1]), 4));
        break;
    case GA_GX_I8:
        for (i = 0; i < n; i++) out[i] = (uint8_t)luma(t[i]);
        break;
    case GA_GX_IA4:
        for (i = 0; i < n; i++) out[i] = (uint8_t)(nearest(t[i][3], 4) << 4 | nearest((int)luma(t[i]), 4));
        break;
    case GA_GX_IA8:
        for (i = 0; i < n; i++) out[2 * i] = t[i][3], out[2 * i + 1] = (uint8_t)luma(t[i]);
        break;
    case GA_GX_RGB565:
    case GA_GX_RGB5A3:
        for (i = 0; i < n; i++) {
            uint16_t v = format == GA_GX_RGB565 ? enc565(t[i]) : enc5a3(t[i]);
            out[2 * i] = (uint8_t)(v >> 8), out[2 * i + 1] = (uint8_t)v;
        }
        break;
    case GA_GX_RGBA8:
        for (i = 0; i < n; i++) {
            out[2 * i] = t[i][3], out[2 * i + 1] = t[i][0];
            out[32 + 2 * i] = t[i][1], out[32 + 2 * i + 1] = t[i][2];
        }
        break;
    case GA_GX_C4:
        for (i = 0; i < n; i += 2)
            out[i >> 1] = (uint8_t)(index_of(ix, enc_entry(ix->pf, t[i])) << 4 |
                                    index_of(ix, enc_entry(ix->pf, t[i + 1])));
        break;
    case GA_GX_C8:
        for (i = 0; i < n; i++) out[i] = (uint8_t)index_of(ix, enc_entry(ix->pf, t[i]));
        break;
    default: /* C14X2 */
        for (i = 0; i < n; i++) {
            uint16_t v = index_of(ix, enc_entry(ix->pf, t[i]));
            out[2 * i] = (uint8_t)(v >> 8), out[2 * i + 1] = (uint8_t)v;
        }
        break;
    }
}

static void encode_level(const fmt_block *f, const uint8_t *img, uint32_t w, uint32_t h, indexer *ix, uint8_t *out)
{
    uint8_t block[64][4];
    for (uint32_t by = 0; by < h; by += f->bh)
        for (uint32_t bx = 0; bx < w; bx += f->bw, out += f->bytes) {
            if (f->format == GA_GX_CMPR) {
                for (uint32_t q = 0; q < 4; q++)
                    cmpr_sub(img, w, h, bx + 4 * (q & 1), by + 4 * (q >> 1), out + 8 * q);
                continue;
            }
            memset(block, 0, sizeof block);
            uint32_t cols = w - bx < f->bw ? w - bx : f->bw;
            for (uint32_t y = 0; y < f->bh && by + y < h; y++)
                memcpy(block[y * f->bw], img + ((size_t)(by + y) * w + bx) * 4, (size_t)cols * 4);
            encode_block(f->format, (const uint8_t(*)[4])block, (uint32_t)f->bw * f->bh, ix, out);
        }
}

/* Level l+1 from level l (w x h): the rounded mean of each 2x2 square,
 * the last row or column repeated once a side is 1. */
static void box_filter(const uint8_t *src, uint32_t w, uint32_t h, uint8_t *dst)
{
    uint32_t nw = w > 1 ? w >> 1 : 1, nh = h > 1 ? h >> 1 : 1;
    for (uint32_t y = 0; y < nh; y++) {
        uint32_t y0 = 2 * y < h ? 2 * y : h - 1, y1 = 2 * y + 1 < h ? 2 * y + 1 : h - 1;
        for (uint32_t x = 0; x < nw; x++) {
            uint32_t x0 = 2 * x < w ? 2 * x : w - 1, x1 = 2 * x + 1 < w ? 2 * x + 1 : w - 1;
            const uint8_t *a = src + ((size_t)y0 * w + x0) * 4, *b = src + ((size_t)y0 * w + x1) * 4,
                          *c = src + ((size_t)y1 * w + x0) * 4, *d = src + ((size_t)y1 * w + x1) * 4;
            for (int k = 0; k < 4; k++)
                dst[((size_t)y * nw + x) * 4 + k] = (uint8_t)((a[k] + b[k] + c[k] + d[k] + 2u) >> 2);
        }
    }
}

static int is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

int ga_gx_encode_check(int format, uint32_t width, uint32_t height, uint32_t levels, int palette_format,
                       ga_error *err)
{
    const char *name = ga_gx_format_name(format);
    if (!name) return ga_fail(err, GA_ERR_ARG, "gx", "format", -1, "format %d is not a GX texture format", format);
    if (width < 1 || height < 1 || width > GA_GX_MAX_SIDE || height > GA_GX_MAX_SIDE)
        return ga_fail(err, GA_ERR_ARG, "gx", "size", -1, "a %ux%u texture (the GX takes 1 to %u texels a side)",
                       width, height, GA_GX_MAX_SIDE);
    uint32_t most = ga_gx_max_levels(width, height);
    if (levels < 1 || levels > most)
        return ga_fail(err, GA_ERR_ARG, "gx", "mip count", -1,
                       "%u mip levels for a %ux%u texture (it has 1 to %u)", levels, width, height, most);
    if (levels > 1 && (!is_pow2(width) || !is_pow2(height)))
        return ga_fail(err, GA_ERR_ARG, "gx", "size", -1,
                       "a %ux%u texture with mip levels: both sides must be powers of two", width, height);
    if (ga_gx_is_indexed(format) && !ga_gx_palette_format_name(palette_format))
        return ga_fail(err, GA_ERR_ARG, "gx", "palette format", -1,
                       "palette format %d is not 0 (IA8), 1 (RGB565) or 2 (RGB5A3)", palette_format);
    return GA_OK;
}

int ga_gx_encode(int format, const uint8_t *rgba, uint32_t width, uint32_t height, uint32_t levels,
                 int palette_format, uint8_t *out, uint8_t *palette, ga_error *err)
{
    int rc = ga_gx_encode_check(format, width, height, levels, palette_format, err);
    if (rc) return rc;
    const fmt_block *f = NULL;
    for (size_t i = 0; i < sizeof BLOCKS / sizeof BLOCKS[0]; i++)
        if (BLOCKS[i].format == format) f = &BLOCKS[i];
    indexer *ix = NULL;
    /* levels 1.. one after the other (each at most a quarter of the last) */
    size_t lower = 0;
    for (uint32_t l = 1, w = width, h = height; l < levels; l++) {
        w = w > 1 ? w >> 1 : 1;
        h = h > 1 ? h >> 1 : 1;
        lower += (size_t)w * h;
    }
    uint8_t *pyramid = lower ? malloc(lower * 4) : NULL;
    if (lower && !pyramid) {
        rc = ga_nomem(err, "gx");
        goto done;
    }
    const uint8_t *img = rgba;
    uint8_t *next = pyramid;
    for (uint32_t l = 1, w = width, h = height; l < levels; l++) {
        box_filter(img, w, h, next);
        w = w > 1 ? w >> 1 : 1;
        h = h > 1 ? h >> 1 : 1;
        img = next;
        next += (size_t)w * h * 4;
    }
    if (ga_gx_is_indexed(format)) {
        ix = malloc(sizeof *ix);
        if (ix) ix->map = malloc(65536 * sizeof *ix->map);
        if (!ix || !ix->map) {
            rc = ga_nomem(err, "gx");
            goto done;
        }
        rc = build_palette(rgba, (size_t)width * height, pyramid, lower, palette_format,
                           ga_gx_palette_entries(format), palette, ix, err);
        if (rc) goto done;
    }
    img = rgba;
    for (uint32_t l = 0; l < levels; l++) {
        size_t bytes;
        ga_gx_image_size(format, width, height, &bytes);
        encode_level(f, img, width, height, ix, out);
        out += bytes;
        img = l ? img + (size_t)width * height * 4 : pyramid;
        width = width > 1 ? width >> 1 : 1;
        height = height > 1 ? height >> 1 : 1;
    }
done:
    if (ix) free(ix->map);
    free(ix);
    free(pyramid);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Palettes and indices given by the caller (regenerate)                */

void ga_gx_palette_decode(int palette_format, const uint8_t *entries, uint32_t n, uint8_t *rgba)
{
    for (uint32_t i = 0; i < n; i++) {
        int c[4];
        dec_entry(palette_format, (uint16_t)(entries[2 * i] << 8 | entries[2 * i + 1]), c);
        for (int k = 0; k < 4; k++) rgba[4 * i + k] = (uint8_t)c[k];
    }
}

void ga_gx_palette_encode(int palette_format, const uint8_t *rgba, uint32_t n, uint8_t *entries)
{
    for (uint32_t i = 0; i < n; i++) {
        uint16_t v = enc_entry(palette_format, rgba + 4 * i);
        entries[2 * i] = (uint8_t)(v >> 8), entries[2 * i + 1] = (uint8_t)v;
    }
}

int ga_gx_encode_indices(int format, const uint16_t *index, uint32_t width, uint32_t height, uint8_t *out)
{
    const fmt_block *f = NULL;
    for (size_t i = 0; i < sizeof BLOCKS / sizeof BLOCKS[0]; i++)
        if (BLOCKS[i].format == format && ga_gx_is_indexed(format)) f = &BLOCKS[i];
    if (!f) return -1;
    uint32_t limit = format == GA_GX_C4 ? 16u : format == GA_GX_C8 ? 256u : 16384u;
    for (uint32_t by = 0; by < height; by += f->bh)
        for (uint32_t bx = 0; bx < width; bx += f->bw, out += f->bytes) {
            memset(out, 0, f->bytes);
            for (uint32_t y = 0; y < f->bh; y++)
                for (uint32_t x = 0; x < f->bw; x++) {
                    if (bx + x >= width || by + y >= height) continue;
                    uint32_t v = index[(size_t)(by + y) * width + bx + x], t = y * f->bw + x;
                    if (v >= limit) return -1;
                    if (format == GA_GX_C4)
                        out[t >> 1] |= (uint8_t)(t & 1 ? v : v << 4);
                    else if (format == GA_GX_C8)
                        out[t] = (uint8_t)v;
                    else
                        out[2 * t] = (uint8_t)(v >> 8), out[2 * t + 1] = (uint8_t)v;
                }
        }
    return 0;
}
