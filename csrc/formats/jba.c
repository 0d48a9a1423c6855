/* JBA: Star Wars: The Old Republic skeletal animation (morpheme-style
 * sectioned, quantised animation source), in the legacy 32-bit layout and
 * the 64-bit `JAWB` version 2 layout.  See docs/formats/jba.md.
 *
 * Decoding keeps the whole file and the offset of every piece, so that the
 * encoder can write back, byte for byte, everything that did not change:
 * header and pointer slots, section start frames and size fields, the
 * per-channel floats, the integer codes (W sign bits included), the keyless
 * state of translation blocks, the root-motion section, the name table,
 * padding and trailing bytes.  Channels that changed are quantised anew. */
#include "gameanim.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FMT "jba"
#define ROOT_NAME "__root_motion__"
#define BLOCK_INTERVALS 32u    /* frame intervals per section in new files */
#define MARKER 0x0FFFFFFFu     /* trajectory pointer slot of the files seen */
#define ROT_NOTE_LIMIT 0.02    /* worst normal rotation error (quaternion component) */

/* ------------------------------------------------------------------ */
/* The two layouts                                                     */

typedef struct jba_lay {
    int bits;
    size_t hdr;                         /* header bytes */
    size_t f_length, f_fps, f_nsec, f_nbones;
    size_t slot;                        /* run-time DataRef slot per section */
    size_t sechdr;                      /* section header: bone count + pointer slot */
    size_t desc;                        /* per-bone key layout record */
    size_t desc_tc;                     /* translation key count inside it */
    size_t trajhdr;                     /* trajectory header */
    size_t traj_fps, traj_par, traj_rc, traj_tc;
    size_t namehdr;                     /* name table header */
} jba_lay;

static const jba_lay LAY32 = {32, 0x28, 0x04, 0x08, 0x0C, 0x18, 4, 8, 16, 8, 0x48, 4, 8, 0x38, 0x40, 20};
static const jba_lay LAY64 = {64, 0x50, 0x10, 0x14, 0x18, 0x30, 8, 16, 32, 16, 0x60, 8, 12, 64, 80, 32};

/* 128-byte alignment; relative to the 8-byte JAWB wrapper in 64-bit files. */
static size_t lay_align(const jba_lay *L, size_t p)
{
    size_t base = L->bits == 64 ? 8 : 0;
    if (p <= base) return base;
    return base + (((p - base) + 127u) & ~(size_t)127u);
}

/* double -> float without undefined behaviour beyond the float range */
static float to_f32(double v)
{
    if (v > (double)FLT_MAX) return INFINITY;
    if (v < -(double)FLT_MAX) return -INFINITY;
    return (float)v;
}

static void set32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ------------------------------------------------------------------ */
/* The raw record                                                      */

typedef struct jba_bb { /* one bone in one section */
    size_t desc;        /* key layout record */
    size_t rot;         /* rotation codes (6 bytes a frame) */
    size_t trans;       /* translation codes (4 bytes a frame), if tcount */
    uint32_t tcount;
} jba_bb;

typedef struct jba_sec {
    uint32_t start, size; /* the header table entry, verbatim */
    uint32_t nframes;
    size_t off, end, next; /* start, end of data, start of what follows */
} jba_sec;

typedef struct jba_raw {
    const jba_lay *L;
    uint8_t *file;
    size_t size;
    uint32_t nsec, nbones, N;
    size_t slots_end, ci, ci_end;
    jba_sec *sec;
    jba_bb *bb; /* nsec x nbones, section-major */
    size_t traj, traj_rot, traj_trans, traj_end;
    uint32_t traj_tcount;
    int has_names;
    int rule;           /* the keyless rule the clip was decoded with */
    size_t names_off, names_end;
    char **names;
    size_t trail;
} jba_raw;

static void jba_free_raw(void *p)
{
    jba_raw *raw = p;
    if (!raw) return;
    if (raw->names)
        for (uint32_t i = 0; i < raw->nbones; i++) free(raw->names[i]);
    free(raw->names);
    free(raw->sec);
    free(raw->bb);
    free(raw->file);
    free(raw);
}

/* ------------------------------------------------------------------ */
/* Dequantisation (the game's rule, in double precision)               */

/* Channel parameters: 12 floats, translation stride and base, rotation
 * stride and base, x y z each. */
typedef struct jba_par {
    float ts[3], tb[3], rs[3], rb[3];
} jba_par;

static void par_read(const uint8_t *p, jba_par *o)
{
    for (int i = 0; i < 3; i++) {
        o->ts[i] = ga_get_f32le(p + 4 * i);
        o->tb[i] = ga_get_f32le(p + 12 + 4 * i);
        o->rs[i] = ga_get_f32le(p + 24 + 4 * i);
        o->rb[i] = ga_get_f32le(p + 36 + 4 * i);
    }
}

static int par_finite(const uint8_t *p)
{
    for (int i = 0; i < 12; i++)
        if (!isfinite(ga_get_f32le(p + 4 * i))) return 0;
    return 1;
}

/* Quaternion (w, x, y, z) from three u16 codes; bit 15 of x is the sign
 * of w.  Returns 1 when x^2 + y^2 + z^2 exceeded 1 (w clamped to 0). */
static int quat_decode(const float rs[3], const float rb[3], uint16_t cx, uint16_t cy, uint16_t cz,
                       double q[4])
{
    double x = (double)rb[0] + (double)(cx & 0x7FFFu) * rs[0];
    double y = (double)rb[1] + (double)cy * rs[1];
    double z = (double)rb[2] + (double)cz * rs[2];
    double s = x * x + y * y + z * z;
    int over = s > 1.0;
    double w = over ? 0.0 : sqrt(1.0 - s);
    if (cx & 0x8000u) w = -w;
    double n = sqrt(s + w * w);
    q[0] = w / n;
    q[1] = x / n;
    q[2] = y / n;
    q[3] = z / n;
    return over;
}

/* Translation from a u32 code: x bits 21..31, y bits 10..20, z bits 0..9. */
static void trans_decode(const float ts[3], const float tb[3], uint32_t code, double v[3])
{
    v[0] = (double)tb[0] + (double)(code >> 21) * ts[0];
    v[1] = (double)tb[1] + (double)((code >> 10) & 0x7FFu) * ts[1];
    v[2] = (double)tb[2] + (double)(code & 0x3FFu) * ts[2];
}

/* Value of a translation in a block without keys. */
static void trans_keyless(const float ts[3], const float tb[3], int rule, double v[3])
{
    if (rule) {
        trans_decode(ts, tb, 0xFFFFFFFFu, v);
    } else {
        for (int i = 0; i < 3; i++) v[i] = tb[i];
    }
}

/* ------------------------------------------------------------------ */
/* Name map (open addressing)                                          */

typedef struct nmap {
    size_t cap;
    const char **key;
    int32_t *val;
} nmap;

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= 1099511628211ULL;
    }
    return h;
}

static int nmap_init(nmap *m, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n + 2) cap *= 2;
    m->cap = cap;
    m->key = calloc(cap, sizeof *m->key);
    m->val = calloc(cap, sizeof *m->val);
    if (!m->key || !m->val) {
        free(m->key);
        free(m->val);
        m->key = NULL;
        m->val = NULL;
        return GA_ERR_NOMEM;
    }
    return GA_OK;
}

static void nmap_free(nmap *m)
{
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

static size_t nmap_slot(const nmap *m, const char *k)
{
    size_t i = (size_t)str_hash(k) & (m->cap - 1);
    while (m->key[i] && strcmp(m->key[i], k) != 0) i = (i + 1) & (m->cap - 1);
    return i;
}

static int32_t nmap_get(const nmap *m, const char *k)
{
    size_t i = nmap_slot(m, k);
    return m->key[i] ? m->val[i] : -1;
}

/* Inserts k unless present; returns the value already there or -1. */
static int32_t nmap_put(nmap *m, const char *k, int32_t v)
{
    size_t i = nmap_slot(m, k);
    if (m->key[i]) return m->val[i];
    m->key[i] = k;
    m->val[i] = v;
    return -1;
}

/* ------------------------------------------------------------------ */
/* Probe                                                               */

static int jba_probe(const uint8_t *d, size_t size)
{
    if (size >= 8 && memcmp(d, "JAWB", 4) == 0) return ga_get_u32le(d + 4) == 2 ? 100 : 40;
    /* Legacy files have no magic: check that the header, the section table
     * and the 128-byte layout hang together. */
    if (size < 0x28 || ga_get_u32le(d) != 0) return 0;
    float length = ga_get_f32le(d + 4), fps = ga_get_f32le(d + 8);
    if (!isfinite(length) || !(length >= 0.0f) || !isfinite(fps) || !(fps > 0.0f)) return 0;
    double prod = (double)length * fps;
    if (!(prod < (double)GA_MAX_FRAMES)) return 0;
    uint32_t N = (uint32_t)floor(prod + 0.5) + 1u;
    uint32_t nsec = ga_get_u32le(d + 0x0C), nb = ga_get_u32le(d + 0x18);
    if (nsec == 0 || nsec > N || (uint64_t)nsec * 12u > size - 0x28) return 0;
    if ((uint64_t)nb * 48u > size) return 0;
    uint64_t ci = (0x28u + (uint64_t)nsec * 12u + 127u) & ~(uint64_t)127u;
    uint64_t s0 = (ci + (uint64_t)nb * 48u + 127u) & ~(uint64_t)127u;
    for (uint32_t i = 0; i < nsec; i++) {
        uint32_t st = ga_get_u32le(d + 0x28 + (size_t)i * 8), sz = ga_get_u32le(d + 0x2C + (size_t)i * 8);
        if (i == 0 ? st != 0 : st <= ga_get_u32le(d + 0x28 + (size_t)(i - 1) * 8)) return 0;
        if (st >= N) return 0;
        if (sz % 128u || sz == 0) return 0;
    }
    /* (a truncated file still probes as JBA, so that decoding says where it ends) */
    if (s0 + 4 > size || ga_get_u32le(d + s0) != nb) return 0;
    return 50;
}

/* ------------------------------------------------------------------ */
/* Decoding                                                            */

static int fail_alloc(ga_error *err) { return ga_nomem(err, FMT); }

static int read_names(const ga_reader *r, jba_raw *raw, ga_error *err)
{
    const jba_lay *L = raw->L;
    size_t at = raw->traj_end;
    uint32_t n = raw->nbones;
    int rc = ga_need(r, at, L->namehdr, "name table header");
    if (rc) return rc;
    uint32_t len = ga_get_u32le(r->data + at + 4);
    uint64_t ids, offs, dat;
    if (L->bits == 64) {
        ids = ga_get_u64le(r->data + at + 8);
        offs = ga_get_u64le(r->data + at + 16);
        dat = ga_get_u64le(r->data + at + 24);
    } else {
        ids = ga_get_u32le(r->data + at + 8);
        offs = ga_get_u32le(r->data + at + 12);
        dat = ga_get_u32le(r->data + at + 16);
    }
    uint64_t e_ids = L->namehdr, e_offs = L->namehdr + 4ull * n, e_dat = L->namehdr + 8ull * n;
    if (ids != e_ids || offs != e_offs || dat != e_dat)
        return ga_fail(err, GA_ERR_FORMAT, FMT, "name table offsets", (long long)at + 8,
                       "ids, string offsets and strings at %llu, %llu, %llu; %u names put them at %llu, %llu, "
                       "%llu",
                       (unsigned long long)ids, (unsigned long long)offs, (unsigned long long)dat, n,
                       (unsigned long long)e_ids, (unsigned long long)e_offs, (unsigned long long)e_dat);
    rc = ga_need(r, at, (size_t)dat, "name table ids and offsets");
    if (rc) return rc;
    size_t sdata = at + (size_t)dat;
    rc = ga_need(r, sdata, len, "name table strings");
    if (rc) return rc;
    raw->names = calloc(n, sizeof *raw->names);
    if (!raw->names) return fail_alloc(err);
    for (uint32_t i = 0; i < n; i++) {
        size_t io = at + (size_t)ids + (size_t)i * 4;
        uint32_t id = ga_get_u32le(r->data + io);
        if (id >= n)
            return ga_fail(err, GA_ERR_FORMAT, FMT, "name table ids", (long long)io,
                           "entry %u has id %u; ids must be channel indices below %u", i, id, n);
        if (raw->names[id])
            return ga_fail(err, GA_ERR_FORMAT, FMT, "name table ids", (long long)io,
                           "entry %u repeats id %u", i, id);
        size_t oo = at + (size_t)offs + (size_t)i * 4;
        uint32_t so = ga_get_u32le(r->data + oo);
        if (so >= len)
            return ga_fail(err, GA_ERR_FORMAT, FMT, "name table string offset", (long long)oo,
                           "name %u starts at %u, past the %u bytes of string data", i, so, len);
        const uint8_t *s = r->data + sdata + so;
        const uint8_t *z = memchr(s, 0, len - so);
        if (!z)
            return ga_fail(err, GA_ERR_FORMAT, FMT, "name table string", (long long)(sdata + so),
                           "name %u has no terminating NUL inside the string data", i);
        size_t sl = (size_t)(z - s);
        if (sl > GA_MAX_STRING)
            return ga_fail(err, GA_ERR_LIMIT, FMT, "name table string", (long long)(sdata + so),
                           "name %u is %zu bytes, over the limit of %u", i, sl, GA_MAX_STRING);
        if (sl == strlen(ROOT_NAME) && memcmp(s, ROOT_NAME, sl) == 0)
            return ga_fail(err, GA_ERR_FORMAT, FMT, "name table string", (long long)(sdata + so),
                           "channel name '%s' is reserved for the root-motion tracks", ROOT_NAME);
        raw->names[id] = malloc(sl + 1);
        if (!raw->names[id]) return fail_alloc(err);
        memcpy(raw->names[id], s, sl);
        raw->names[id][sl] = 0;
    }
    nmap m;
    if (nmap_init(&m, n)) return fail_alloc(err);
    for (uint32_t i = 0; i < n; i++) {
        int32_t prev = nmap_put(&m, raw->names[i], (int32_t)i);
        if (prev >= 0) {
            rc = ga_fail(err, GA_ERR_FORMAT, FMT, "name table string", (long long)sdata,
                         "channels %d and %u are both named '%.64s'; names must be unique", prev, i, raw->names[i]);
            nmap_free(&m);
            return rc;
        }
    }
    nmap_free(&m);
    raw->has_names = 1;
    raw->names_off = at;
    raw->names_end = sdata + len;
    return GA_OK;
}

static int check_par(const ga_reader *r, size_t at, const char *field, ga_error *err)
{
    if (!par_finite(r->data + at))
        return ga_fail(err, GA_ERR_FORMAT, FMT, field, (long long)at,
                       "a quantisation stride or base is not a finite number");
    return GA_OK;
}

/* Reads the layout of the file into raw (offsets only). */
static int parse(const ga_reader *r, jba_raw *raw, ga_error *err)
{
    const uint8_t *d = r->data;
    size_t size = r->size;
    const jba_lay *L = raw->L;
    int rc = ga_need(r, 0, L->hdr, "header");
    if (rc) return rc;
    if (L->bits == 64) {
        uint32_t ver = ga_get_u32le(d + 4);
        if (ver != 2)
            return ga_fail(err, GA_ERR_FORMAT, FMT, "version", 4, "JAWB version %u is not supported (only 2)", ver);
    } else if (ga_get_u32le(d) != 0) {
        return ga_fail(err, GA_ERR_FORMAT, FMT, "header", 0,
                       "not a JAWB file, and a legacy JBA starts with a zero word (found 0x%08x)", ga_get_u32le(d));
    }
    float length = ga_get_f32le(d + L->f_length), fps = ga_get_f32le(d + L->f_fps);
    if (!isfinite(fps) || !(fps > 0.0f))
        return ga_fail(err, GA_ERR_FORMAT, FMT, "fps", (long long)L->f_fps, "fps %g is not a positive number",
                       (double)fps);
    if (!isfinite(length) || !(length >= 0.0f))
        return ga_fail(err, GA_ERR_FORMAT, FMT, "length", (long long)L->f_length,
                       "length %g s is not a non-negative number", (double)length);
    double prod = (double)length * fps;
    if (!(prod < (double)GA_MAX_FRAMES))
        return ga_fail(err, GA_ERR_LIMIT, FMT, "length", (long long)L->f_length,
                       "%g s at %g fps is over the limit of %u frames", (double)length, (double)fps, GA_MAX_FRAMES);
    uint32_t N = (uint32_t)floor(prod + 0.5) + 1u;
    raw->N = N;
    uint32_t nsec = ga_get_u32le(d + L->f_nsec), nb = ga_get_u32le(d + L->f_nbones);
    if (nsec == 0)
        return ga_fail(err, GA_ERR_FORMAT, FMT, "section count", (long long)L->f_nsec, "the file has no sections");
    if (nsec > N)
        return ga_fail(err, GA_ERR_FORMAT, FMT, "section count", (long long)L->f_nsec,
                       "%u sections for %u frames (each section starts at its own frame)", nsec, N);
    if ((uint64_t)nsec * (8u + L->slot) > size - L->hdr)
        return ga_fail(err, GA_ERR_FORMAT, FMT, "section count", (long long)L->f_nsec,
                       "the table of %u sections does not fit in the %zu-byte file", nsec, size);
    if ((uint64_t)nb * 48u > size)
        return ga_fail(err, GA_ERR_FORMAT, FMT, "bone count", (long long)L->f_nbones,
                       "%u bones do not fit in the %zu-byte file", nb, size);
    uint64_t ntracks = 7ull * ((uint64_t)nb + 1u);
    if (ntracks > GA_MAX_TRACKS)
        return ga_fail(err, GA_ERR_LIMIT, FMT, "bone count", (long long)L->f_nbones,
                       "%u bones make %llu tracks, over the limit of %u", nb, (unsigned long long)ntracks,
                       GA_MAX_TRACKS);
    if (ntracks * N > GA_MAX_KEYS_TOTAL)
        return ga_fail(err, GA_ERR_LIMIT, FMT, "bone count", (long long)L->f_nbones,
                       "%llu tracks of %u frames are over the limit of %u keys", (unsigned long long)ntracks, N,
                       GA_MAX_KEYS_TOTAL);
    if ((uint64_t)nsec * nb * L->desc > size)
        return ga_fail(err, GA_ERR_FORMAT, FMT, "section count", (long long)L->f_nsec,
                       "%u sections of %u bones do not fit in the %zu-byte file", nsec, nb, size);
    raw->nsec = nsec;
    raw->nbones = nb;
    raw->sec = calloc(nsec, sizeof *raw->sec);
    raw->bb = calloc((size_t)nsec * nb + 1, sizeof *raw->bb);
    if (!raw->sec || !raw->bb) return fail_alloc(err);

    size_t tab = L->hdr;
    for (uint32_t k = 0; k < nsec; k++) {
        jba_sec *s = &raw->sec[k];
        s->start = ga_get_u32le(d + tab + (size_t)k * 8);
        s->size = ga_get_u32le(d + tab + (size_t)k * 8 + 4);
        if (k == 0 && s->start != 0)
            return ga_fail(err, GA_ERR_FORMAT, FMT, "section start frame", (long long)tab,
                           "the first section starts at frame %u, not 0", s->start);
        if (k > 0 && s->start <= raw->sec[k - 1].start)
            return ga_fail(err, GA_ERR_FORMAT, FMT, "section start frame", (long long)(tab + (size_t)k * 8),
                           "section %u starts at frame %u, not after section %u (frame %u)", k, s->start, k - 1,
                           raw->sec[k - 1].start);
        if (s->start >= N)
            return ga_fail(err, GA_ERR_FORMAT, FMT, "section start frame", (long long)(tab + (size_t)k * 8),
                           "section %u starts at frame %u; the clip has %u frames", k, s->start, N);
    }
    for (uint32_t k = 0; k < nsec; k++)
        raw->sec[k].nframes = k + 1 < nsec ? raw->sec[k + 1].start - raw->sec[k].start + 1 : N - raw->sec[k].start;
    raw->slots_end = tab + (size_t)nsec * (8 + L->slot);
    raw->ci = lay_align(L, raw->slots_end);
    rc = ga_need(r, raw->ci, (size_t)nb * 48, "channel info");
    if (rc) return rc;
    raw->ci_end = raw->ci + (size_t)nb * 48;
    for (uint32_t b = 0; b < nb; b++) {
        rc = check_par(r, raw->ci + (size_t)b * 48, "channel info", err);
        if (rc) return rc;
    }

    size_t pos = lay_align(L, raw->ci_end);
    char field[96];
    for (uint32_t k = 0; k < nsec; k++) {
        jba_sec *s = &raw->sec[k];
        if (k > 0) pos = raw->sec[k - 1].next;
        s->off = pos;
        snprintf(field, sizeof field, "section %u header", k);
        rc = ga_need(r, pos, L->sechdr + (size_t)nb * L->desc, field);
        if (rc) return rc;
        uint32_t hb = ga_get_u32le(d + pos);
        if (hb != nb)
            return ga_fail(err, GA_ERR_FORMAT, FMT, "section bone count", (long long)pos,
                           "section %u lists %u bones; the header says %u", k, hb, nb);
        uint32_t nf = s->nframes;
        for (uint32_t b = 0; b < nb; b++) {
            jba_bb *e = &raw->bb[(size_t)k * nb + b];
            e->desc = pos + L->sechdr + (size_t)b * L->desc;
            uint32_t rcnt = ga_get_u32le(d + e->desc), tcnt = ga_get_u32le(d + e->desc + L->desc_tc);
            if (rcnt != nf)
                return ga_fail(err, GA_ERR_FORMAT, FMT, "rotation key count", (long long)e->desc,
                               "section %u bone %u has %u rotation keys; the section has %u frames", k, b, rcnt, nf);
            if (tcnt != 0 && tcnt != nf)
                return ga_fail(err, GA_ERR_FORMAT, FMT, "translation key count", (long long)(e->desc + L->desc_tc),
                               "section %u bone %u has %u translation keys; it must be 0 or the section's %u frames",
                               k, b, tcnt, nf);
            e->tcount = tcnt;
        }
        size_t p = pos + L->sechdr + (size_t)nb * L->desc;
        for (uint32_t b = 0; b < nb; b++) {
            jba_bb *e = &raw->bb[(size_t)k * nb + b];
            e->rot = p;
            size_t pad = (size_t)(-(p + (size_t)nf * 6)) & 3u;
            if (size - p < (size_t)nf * 6 + pad) { /* (the field name is only built on failure) */
                snprintf(field, sizeof field, "section %u bone %u rotation keys", k, b);
                return ga_need(r, p, (size_t)nf * 6 + pad, field);
            }
            p += (size_t)nf * 6 + pad;
            if (e->tcount) {
                e->trans = p;
                if (size - p < (size_t)nf * 4) {
                    snprintf(field, sizeof field, "section %u bone %u translation keys", k, b);
                    return ga_need(r, p, (size_t)nf * 4, field);
                }
                p += (size_t)nf * 4;
            }
        }
        s->end = p;
        if (L->bits == 32) {
            /* Legacy readers go from section to section by the size field. */
            if ((uint64_t)s->size < (uint64_t)(s->end - s->off))
                return ga_fail(err, GA_ERR_FORMAT, FMT, "section size", (long long)(tab + (size_t)k * 8 + 4),
                               "section %u is %u bytes by its size field but its data takes %zu", k, s->size,
                               s->end - s->off);
            if ((s->off + s->size) % 128u)
                return ga_fail(err, GA_ERR_FORMAT, FMT, "section size", (long long)(tab + (size_t)k * 8 + 4),
                               "section %u size %u does not end on a 128-byte boundary", k, s->size);
            s->next = s->off + s->size;
        } else {
            s->next = lay_align(L, s->end);
        }
        if (s->next > size)
            return ga_fail(err, GA_ERR_FORMAT, FMT, "section padding", (long long)s->end,
                           "section %u ends at %zu, past the end of the data (%zu bytes; truncated?)", k, s->next,
                           size);
    }

    /* Trajectory (root motion): one channel, every frame of the clip. */
    size_t t = raw->sec[nsec - 1].next;
    raw->traj = t;
    rc = ga_need(r, t, L->trajhdr, "trajectory header");
    if (rc) return rc;
    rc = check_par(r, t + L->traj_par, "trajectory quantisation", err);
    if (rc) return rc;
    uint32_t trc = ga_get_u32le(d + t + L->traj_rc), ttc = ga_get_u32le(d + t + L->traj_tc);
    if (trc != N)
        return ga_fail(err, GA_ERR_FORMAT, FMT, "trajectory rotation key count", (long long)(t + L->traj_rc),
                       "%u keys; the clip has %u frames", trc, N);
    if (ttc != 0 && ttc != N)
        return ga_fail(err, GA_ERR_FORMAT, FMT, "trajectory translation key count", (long long)(t + L->traj_tc),
                       "%u keys; it must be 0 or the clip's %u frames", ttc, N);
    raw->traj_tcount = ttc;
    raw->traj_rot = t + L->trajhdr;
    size_t tpad = (size_t)(-(raw->traj_rot + (size_t)N * 6)) & 3u;
    rc = ga_need(r, raw->traj_rot, (size_t)N * 6 + tpad, "trajectory rotation keys");
    if (rc) return rc;
    raw->traj_trans = raw->traj_rot + (size_t)N * 6 + tpad;
    rc = ga_need(r, raw->traj_trans, (size_t)ttc * 4, "trajectory translation keys");
    if (rc) return rc;
    raw->traj_end = raw->traj_trans + (size_t)ttc * 4;

    /* Channel names: a string table right after the trajectory, when the
     * bytes there start with the bone count. */
    raw->trail = raw->traj_end;
    if (nb > 0 && size - raw->traj_end >= 4 && ga_get_u32le(d + raw->traj_end) == nb) {
        rc = read_names(r, raw, err);
        if (rc) return rc;
        raw->trail = raw->names_end;
    }
    return GA_OK;
}

static int fill_track(ga_clip *clip, ga_track *t, const char *name, int32_t index, int ch, int axis, uint32_t N,
                      ga_error *err)
{
    t->channel = (uint8_t)ch;
    t->axis = (uint8_t)axis;
    if (name) {
        t->target = -1;
        t->target_name = ga_strdup(name);
        if (!t->target_name) return fail_alloc(err);
    } else {
        t->target = index;
    }
    int rc = ga_clip_track_alloc(clip, t, N, err);
    if (rc) return rc;
    for (uint32_t i = 0; i < N; i++) {
        t->time[i] = (float)i;
        t->interp[i] = GA_INTERP_LINEAR;
    }
    return GA_OK;
}

static void put_quat(ga_track *tr, uint32_t f, const double q[4])
{
    for (int a = 0; a < 4; a++) tr[a].value[f] = (float)q[a];
}

static int put_trans(ga_track *tr, uint32_t f, const double v[3], size_t at, const char *who, ga_error *err)
{
    for (int a = 0; a < 3; a++) {
        if (!(fabs(v[a]) <= (double)FLT_MAX))
            return ga_fail(err, GA_ERR_FORMAT, FMT, "translation", (long long)at,
                           "%s frame %u: translation %g overflows a float", who, f, v[a]);
        tr[4 + a].value[f] = (float)v[a];
    }
    return GA_OK;
}

static int build_clip(const jba_raw *raw, int rule, ga_clip *clip, ga_error *err)
{
    const uint8_t *d = raw->file;
    uint32_t nb = raw->nbones, N = raw->N;
    int rc = ga_clip_alloc_tracks(clip, 7u * (nb + 1u), err);
    if (!rc) rc = ga_clip_reserve_keys(clip, (uint64_t)7u * (nb + 1u) * N, 7u * (nb + 1u), err);
    if (rc) return rc;
    char who[64];
    for (uint32_t b = 0; b <= nb; b++) {
        ga_track *tr = &clip->tracks[(size_t)b * 7];
        const char *name = b == nb ? ROOT_NAME : (raw->has_names ? raw->names[b] : NULL);
        for (int a = 0; a < 4; a++) {
            rc = fill_track(clip, &tr[a], name, (int32_t)b, GA_CH_ROTATION_QUATERNION, a, N, err);
            if (rc) return rc;
        }
        for (int a = 0; a < 3; a++) {
            rc = fill_track(clip, &tr[4 + a], name, (int32_t)b, GA_CH_TRANSLATION, a, N, err);
            if (rc) return rc;
        }
        jba_par par;
        double q[4], v[3];
        if (b == nb) {
            snprintf(who, sizeof who, "root motion");
            par_read(d + raw->traj + raw->L->traj_par, &par);
            for (uint32_t f = 0; f < N; f++) {
                const uint8_t *c = d + raw->traj_rot + (size_t)f * 6;
                quat_decode(par.rs, par.rb, ga_get_u16le(c), ga_get_u16le(c + 2), ga_get_u16le(c + 4), q);
                put_quat(tr, f, q);
                size_t at = raw->traj_trans + (size_t)f * 4;
                if (raw->traj_tcount) trans_decode(par.ts, par.tb, ga_get_u32le(d + at), v);
                else trans_keyless(par.ts, par.tb, rule, v);
                rc = put_trans(tr, f, v, raw->traj + raw->L->traj_par, who, err);
                if (rc) return rc;
            }
            continue;
        }
        snprintf(who, sizeof who, "bone %u", b);
        par_read(d + raw->ci + (size_t)b * 48, &par);
        /* Later sections overwrite the boundary frame they share with the
         * section before: a frame belongs to the section that starts there. */
        for (uint32_t k = 0; k < raw->nsec; k++) {
            const jba_sec *s = &raw->sec[k];
            const jba_bb *e = &raw->bb[(size_t)k * nb + b];
            for (uint32_t i = 0; i < s->nframes; i++) {
                uint32_t f = s->start + i;
                const uint8_t *c = d + e->rot + (size_t)i * 6;
                quat_decode(par.rs, par.rb, ga_get_u16le(c), ga_get_u16le(c + 2), ga_get_u16le(c + 4), q);
                put_quat(tr, f, q);
                size_t at = e->tcount ? e->trans + (size_t)i * 4 : raw->ci + (size_t)b * 48;
                if (e->tcount) trans_decode(par.ts, par.tb, ga_get_u32le(d + at), v);
                else trans_keyless(par.ts, par.tb, rule, v);
                rc = put_trans(tr, f, v, at, who, err);
                if (rc) return rc;
            }
        }
    }
    return GA_OK;
}

/* Bone b's values (rotation w x y z, translation x y z, as the clip stores
 * them: float) at frame i of section k, with the keyless rule `rule`. */
static void section_frame(const jba_raw *raw, uint32_t b, uint32_t k, uint32_t i, int rule, float out[7])
{
    const jba_bb *e = &raw->bb[(size_t)k * raw->nbones + b];
    jba_par par;
    par_read(raw->file + raw->ci + (size_t)b * 48, &par);
    const uint8_t *c = raw->file + e->rot + (size_t)i * 6;
    double q[4], v[3];
    quat_decode(par.rs, par.rb, ga_get_u16le(c), ga_get_u16le(c + 2), ga_get_u16le(c + 4), q);
    if (e->tcount) trans_decode(par.ts, par.tb, ga_get_u32le(raw->file + e->trans + (size_t)i * 4), v);
    else trans_keyless(par.ts, par.tb, rule, v);
    for (int a = 0; a < 4; a++) out[a] = (float)q[a];
    for (int a = 0; a < 3; a++) out[4 + a] = (float)v[a];
}

/* Bone b's values at the end of section k - 1: the earlier section's copy
 * of the frame section k (>= 1) starts at. */
static void earlier_frame(const jba_raw *raw, uint32_t b, uint32_t k, int rule, float out[7])
{
    section_frame(raw, b, k - 1, raw->sec[k - 1].nframes - 1, rule, out);
}

/* Whether the two copies of the frame section k (>= 1) starts at differ
 * for some bone: there the clip jumps (see jba_sample). */
static int seam_jumps(const jba_raw *raw, uint32_t k, int rule)
{
    for (uint32_t b = 0; b < raw->nbones; b++) {
        float before[7], after[7];
        earlier_frame(raw, b, k, rule, before);
        section_frame(raw, b, k, 0, rule, after);
        for (int a = 0; a < 7; a++)
            if (memcmp(&before[a], &after[a], sizeof(float)) != 0 && !(before[a] == after[a])) return 1;
    }
    return 0;
}

static int jba_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **rawp, ga_clip *clip,
                      ga_error *err)
{
    ga_reader r;
    ga_reader_init(&r, data, size, FMT, err);
    jba_raw *raw = calloc(1, sizeof *raw);
    if (!raw) return fail_alloc(err);
    raw->L = (size >= 4 && memcmp(data, "JAWB", 4) == 0) ? &LAY64 : &LAY32;
    ga_clip_init(clip, FMT);
    int rc = parse(&r, raw, err);
    if (rc) goto fail;
    raw->size = size;
    raw->file = malloc(size ? size : 1);
    if (!raw->file) {
        rc = fail_alloc(err);
        goto fail;
    }
    memcpy(raw->file, data, size);
    int rule = opts ? (opts->keyless_rule ? 1 : 0) : 0;
    float length = ga_get_f32le(data + raw->L->f_length), fps = ga_get_f32le(data + raw->L->f_fps);
    double prod = (double)length * fps;
    double shown = (double)(float)prod; /* what a float runtime computes */
    clip->frame_count = floor(shown + 0.5) + 1.0 == (double)raw->N ? shown : prod;
    clip->fps = fps;
    clip->loop = -1;
    clip->layout = raw->L->bits;
    clip->keyless_rule = rule;
    raw->rule = rule;
    /* Every channel gets a key per frame.  The file holds at least 6 bytes
     * per bone and frame (119 decoded), so the default ratio trips only on
     * a compressed file or a caller's lower limit. */
    rc = ga_check_decoded(opts, size, 7ull * (raw->nbones + 1ull) * raw->N, GA_KEY_BYTES, "keys", FMT, "length",
                          (long long)raw->L->f_length, err);
    if (!rc) rc = build_clip(raw, rule, clip, err);
    if (rc) goto fail_clip;
    *rawp = raw;
    return GA_OK;
fail_clip:
    ga_clip_free(clip);
fail:
    jba_free_raw(raw);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Info                                                                */

static int jba_info(const void *p, ga_info *info, ga_error *err)
{
    const jba_raw *raw = p;
    const jba_lay *L = raw->L;
    const uint8_t *d = raw->file;
    (void)err;
    int rc = 0;
    rc |= ga_info_int(info, "layout", L->bits);
    if (L->bits == 64) rc |= ga_info_int(info, "version", ga_get_u32le(d + 4));
    rc |= ga_info_float(info, "length", ga_get_f32le(d + L->f_length));
    rc |= ga_info_float(info, "fps", ga_get_f32le(d + L->f_fps));
    rc |= ga_info_int(info, "frames", raw->N);
    rc |= ga_info_int(info, "section_count", raw->nsec);
    rc |= ga_info_int(info, "bone_count", raw->nbones);
    rc |= ga_info_bytes(info, "section_table", d + L->hdr, (size_t)raw->nsec * 8);
    rc |= ga_info_int(info, "trajectory_slot",
                      L->bits == 64 ? (long long)ga_get_u64le(d + 0x40) : (long long)ga_get_u32le(d + 0x20));
    rc |= ga_info_int(info, "trajectory_translation_keys", raw->traj_tcount);
    size_t keyless = 0;
    for (size_t i = 0; i < (size_t)raw->nsec * raw->nbones; i++)
        if (!raw->bb[i].tcount) keyless++;
    rc |= ga_info_int(info, "keyless_translation_blocks", (long long)keyless);
    rc |= ga_info_int(info, "has_names", raw->has_names);
    /* section starts where the two copies of the shared frame differ (u32
     * little-endian each): the clip jumps there */
    uint8_t *jumps = malloc((size_t)raw->nsec * 4 + 1);
    if (!jumps) return GA_ERR_NOMEM;
    size_t nj = 0;
    for (uint32_t k = 1; k < raw->nsec; k++)
        if (seam_jumps(raw, k, raw->rule)) set32(jumps + 4 * nj++, raw->sec[k].start);
    rc |= ga_info_bytes(info, "jump_frames", jumps, nj * 4);
    free(jumps);
    /* bytes the layout does not use (alignment gaps), and how many are not zero */
    size_t gaps = 0, nonzero = 0;
    for (uint32_t g = 0; g < raw->nsec + 2; g++) {
        size_t from = g == 0 ? raw->slots_end : g == 1 ? raw->ci_end : raw->sec[g - 2].end;
        size_t to = g == 0 ? raw->ci : g == 1 ? raw->sec[0].off : raw->sec[g - 2].next;
        gaps += to - from;
        for (size_t i = from; i < to; i++) nonzero += d[i] != 0;
    }
    rc |= ga_info_int(info, "padding_bytes", (long long)gaps);
    rc |= ga_info_int(info, "nonzero_padding_bytes", (long long)nonzero);
    rc |= ga_info_int(info, "trailing_bytes", (long long)(raw->size - raw->trail));
    return rc ? GA_ERR_NOMEM : GA_OK;
}

/* ------------------------------------------------------------------ */
/* Sampling: nlerp (shortest path) for quaternions, lerp for the rest,  */
/* between the values at whole frames, as the runtime does.            */

static int same_target(const ga_track *a, const ga_track *b)
{
    if (a->target_name || b->target_name) {
        if (!a->target_name || !b->target_name) return 0;
        return strcmp(a->target_name, b->target_name) == 0;
    }
    return a->target == b->target;
}

static void find_quat_group(const ga_clip *clip, uint32_t ti, const ga_track *g[4])
{
    const ga_track *t = &clip->tracks[ti];
    for (int a = 0; a < 4; a++) g[a] = NULL;
    /* Decoded clips keep the four tracks together: look nearby first. */
    uint32_t lo = ti >= 3 ? ti - 3 : 0, hi = ti + 3 < clip->ntracks ? ti + 3 : clip->ntracks - 1;
    int found = 0;
    for (int pass = 0; pass < 2 && found < 4; pass++) {
        uint32_t a0 = pass ? 0 : lo, a1 = pass ? clip->ntracks - 1 : hi;
        for (uint32_t i = a0; i <= a1 && found < 4; i++) {
            const ga_track *u = &clip->tracks[i];
            if (u->channel != GA_CH_ROTATION_QUATERNION || u->axis > 3 || g[u->axis]) continue;
            if (!same_target(u, t)) continue;
            g[u->axis] = u;
            found++;
        }
    }
    g[t->axis] = t;
}

static double eval_or_default(const ga_track *t, int axis, double f)
{
    return t ? ga_track_eval(t, f) : ga_channel_default(GA_CH_ROTATION_QUATERNION, axis);
}

/* ---- the earlier section's copy of a shared frame ----
 * Sections share their boundary frame and the runtime interpolates inside
 * one section, so between frames s - 1 and s (s a section's start) it
 * reaches the copy of frame s that ENDS the earlier section, while the
 * clip holds the later section's copy (the one played from s on).  Both
 * copies are equal in well-formed files; where they differ, sample() takes
 * the earlier copy from the decoded file for a track that is still as
 * decoded (an edited track has one value per frame, which an encode writes
 * into both copies). */

/* Index of the decoded track a clip track still equals, or -1. */
static int32_t decoded_track(const ga_clip *clip, uint32_t ti)
{
    const ga_clip *o = clip->decoded;
    const ga_track *t = &clip->tracks[ti];
    if (!o || !clip->decoded_raw || clip->keyless_rule != o->keyless_rule) return -1;
    if (ti < o->ntracks && ga_track_equal(t, &o->tracks[ti])) return (int32_t)ti;
    for (uint32_t j = 0; j < o->ntracks; j++)
        if (ga_track_equal(t, &o->tracks[j])) return (int32_t)j;
    return -1;
}

/* The section (>= 1) that starts at frame s, or 0 when none does. */
static uint32_t section_starting(const jba_raw *raw, double s)
{
    for (uint32_t k = 1; k < raw->nsec; k++)
        if ((double)raw->sec[k].start == s) return k;
    return 0;
}

static int jba_sample(const ga_clip *clip, uint32_t ti, const double *frames, size_t n, float *out, ga_error *err)
{
    (void)err;
    const ga_track *t = &clip->tracks[ti];
    int quat = t->channel == GA_CH_ROTATION_QUATERNION && t->axis <= 3;
    const ga_track *g[4] = {NULL, NULL, NULL, NULL};
    if (quat) find_quat_group(clip, ti, g);
    /* seams: the decoded bone of this track (and of its whole quaternion) */
    const jba_raw *raw = clip->decoded_raw;
    int32_t seam_bone = -1, seam_slot[4] = {-1, -1, -1, -1};
    if (raw && raw->nsec > 1 && (quat || (t->channel == GA_CH_TRANSLATION && t->axis <= 2))) {
        int ok = 1;
        for (int k = 0; k < (quat ? 4 : 1) && ok; k++) {
            const ga_track *u = quat ? g[k] : t;
            int32_t j = u ? decoded_track(clip, (uint32_t)(u - clip->tracks)) : -1;
            uint32_t b = j >= 0 ? (uint32_t)j / 7 : 0;
            if (j < 0 || b >= raw->nbones || (seam_bone >= 0 && (uint32_t)seam_bone != b)) ok = 0;
            else {
                seam_bone = (int32_t)b;
                seam_slot[k] = j % 7;
            }
        }
        if (!ok) seam_bone = -1;
    }
    /* Whole frames and the ends are the track's own values: one pass that
     * walks the keys (the keys are floats, so no value overflows); the
     * frames between keys are interpolated below. */
    ga_track_eval_many(t, frames, n, out);
    for (size_t i = 0; i < n; i++) {
        double f = frames[i];
        if (!isfinite(f)) {
            out[i] = to_f32(ga_track_eval(t, f));
            continue;
        }
        if (t->nkeys < 2 || f <= (double)t->time[0] || f >= (double)t->time[t->nkeys - 1] || floor(f) == f)
            continue;
        double f0 = floor(f), a = f - f0;
        uint32_t sk = seam_bone >= 0 ? section_starting(raw, f0 + 1.0) : 0;
        float seam[7]; /* frame f0 + 1 as the section holding f0 stores it */
        if (sk) earlier_frame(raw, (uint32_t)seam_bone, sk, clip->keyless_rule, seam);
        if (!quat) {
            double v0 = ga_track_eval(t, f0);
            double v1 = sk ? (double)seam[seam_slot[0]] : ga_track_eval(t, f0 + 1.0);
            out[i] = to_f32(v0 + (v1 - v0) * a);
            continue;
        }
        double q0[4], q1[4], dot = 0.0;
        for (int k = 0; k < 4; k++) {
            q0[k] = eval_or_default(g[k], k, f0);
            q1[k] = sk ? (double)seam[seam_slot[k]] : eval_or_default(g[k], k, f0 + 1.0);
            dot += q0[k] * q1[k];
        }
        double s1 = dot < 0.0 ? -a : a, q[4], nn = 0.0;
        for (int k = 0; k < 4; k++) {
            q[k] = q0[k] * (1.0 - a) + q1[k] * s1;
            nn += q[k] * q[k];
        }
        nn = sqrt(nn);
        out[i] = to_f32(nn > 0.0 && isfinite(nn) ? q[t->axis] / nn : q[t->axis]);
    }
    return GA_OK;
}

/* ------------------------------------------------------------------ */
/* Encoding                                                            */

typedef struct ech {
    const char *name;   /* target name, or NULL for an index target */
    int32_t index;
    int32_t trk[7];     /* clip track of rotation w x y z, translation x y z; -1 none */
    int32_t orig;       /* original channel, -1 none (the trajectory: 0) */
    int root;
    int reuse_rot, reuse_trans;
    jba_par par;
    uint16_t *rc;       /* 3 codes a frame */
    uint32_t *tc;       /* 1 code a frame */
    uint8_t *keyless;   /* per section */
    /* The earlier section's copy of the frame section k (>= 1) starts at,
     * where it differs from the later copy in the original and the edit
     * left that frame alone (a jump the file had: kept, see keep_jumps);
     * bit 1 of early[k]: erc[3k..] holds rotation codes, bit 2: etc[k]
     * holds a translation code.  NULL: every copy is the frame's code. */
    uint8_t *early;
    uint16_t *erc;
    uint32_t *etc;
} ech;

typedef struct enc {
    const ga_encode_ctx *ctx;
    const jba_raw *raw;
    const jba_lay *L;
    int same;           /* the original is in the same layout: its raw pieces apply */
    int same_blocks;    /* same frames, same sections */
    int rule;
    uint32_t N, nsec, nb;
    uint32_t *start;
    ech *ch;            /* nb bones then the trajectory */
    int named;
} enc;

static const char *const axis_names[7] = {"w", "x", "y", "z", "x", "y", "z"};

static void chan_name(char *buf, size_t cap, const ech *c)
{
    if (c->root) snprintf(buf, cap, "root motion");
    else if (c->name) snprintf(buf, cap, "bone '%.80s'", c->name);
    else snprintf(buf, cap, "bone %d", c->index);
}

static float f32_down(double v)
{
    float f = (float)v;
    if ((double)f > v) f = nextafterf(f, -INFINITY);
    return f;
}

static float f32_up(double v)
{
    float f = (float)v;
    if ((double)f < v) f = nextafterf(f, INFINITY);
    return f;
}

/* Whether stored stride/base still cover every value (within half a step). */
static int comp_fits(float stride, float base, const double *v, size_t n, size_t step, uint32_t maxcode)
{
    for (size_t i = 0; i < n; i++) {
        double x = v[i * step];
        if (stride == 0.0f) {
            if (x != (double)base) return 0;
        } else {
            double t = (x - (double)base) / stride;
            if (!(t >= -0.5 && t <= (double)maxcode + 0.5)) return 0;
        }
    }
    return 1;
}

/* New stride and base from the data range: base at (or just below) the
 * minimum, stride so that the all-ones code reaches the maximum, never
 * finer than 2^-20 of the magnitude (so decoded floats re-quantise to
 * their codes). */
static void comp_new(const double *v, size_t n, size_t step, uint32_t maxcode, float *stride, float *base)
{
    double mn = v[0], mx = v[0];
    for (size_t i = 1; i < n; i++) {
        double x = v[i * step];
        if (x < mn) mn = x;
        if (x > mx) mx = x;
    }
    if (mn == mx) {
        *base = (float)mn;
        *stride = 0.0f;
        return;
    }
    float b = f32_down(mn);
    double mag = fabs(mn) > fabs(mx) ? fabs(mn) : fabs(mx);
    double s = (mx - (double)b) / maxcode;
    double floor_s = ldexp(mag, -20);
    if (s < floor_s) s = floor_s;
    *base = b;
    *stride = f32_up(s);
}

static uint32_t quant(double x, float stride, float base, uint32_t maxcode)
{
    if (stride == 0.0f) return 0;
    double t = nearbyint((x - (double)base) / stride);
    if (!(t >= 0.0)) return 0;
    if (t > (double)maxcode) return maxcode;
    return (uint32_t)t;
}

/* Codes of one quaternion: among the floor/ceil neighbours of x, y, z,
 * the set whose decoded quaternion (w rebuilt from them) is closest to q,
 * preferring sets that keep x^2 + y^2 + z^2 <= 1. */
static void quat_codes(const jba_par *p, const double q[4], uint16_t out[3])
{
    static const uint32_t maxc[3] = {0x7FFFu, 0xFFFFu, 0xFFFFu};
    uint32_t lo[3], hi[3];
    for (int c = 0; c < 3; c++) {
        if (p->rs[c] == 0.0f) {
            lo[c] = hi[c] = 0;
            continue;
        }
        double t = (q[c + 1] - (double)p->rb[c]) / p->rs[c];
        if (!(t >= 0.0)) t = 0.0;
        if (t > (double)maxc[c]) t = (double)maxc[c];
        lo[c] = (uint32_t)floor(t);
        hi[c] = lo[c] < maxc[c] ? lo[c] + 1 : lo[c];
    }
    uint16_t sign = signbit(q[0]) ? 0x8000u : 0u;
    int best_over = 2;
    double best_e = 0.0;
    for (int m = 0; m < 8; m++) {
        uint32_t c3[3];
        int dup = 0;
        for (int c = 0; c < 3; c++) {
            int up = (m >> c) & 1;
            if (up && hi[c] == lo[c]) dup = 1;
            c3[c] = up ? hi[c] : lo[c];
        }
        if (dup) continue;
        double d[4];
        int over = quat_decode(p->rs, p->rb, (uint16_t)(c3[0] | sign), (uint16_t)c3[1], (uint16_t)c3[2], d);
        double e = 0.0;
        for (int k = 0; k < 4; k++) e += (d[k] - q[k]) * (d[k] - q[k]);
        if (over < best_over || (over == best_over && e < best_e)) {
            best_over = over;
            best_e = e;
            out[0] = (uint16_t)(c3[0] | sign);
            out[1] = (uint16_t)c3[1];
            out[2] = (uint16_t)c3[2];
        }
    }
}

static const ga_track *slot_track(const enc *E, const ech *c, int s)
{
    return c->trk[s] >= 0 ? &E->ctx->clip->tracks[c->trk[s]] : NULL;
}

static int slot_unchanged(const enc *E, const ech *c, int s)
{
    return c->trk[s] >= 0 && E->ctx->orig_track && E->ctx->orig_track[c->trk[s]] >= 0;
}

/* Values of slots [s0, s0+n) at every frame, as floats widened to double. */
static int eval_slots(const enc *E, const ech *c, int s0, int n, double *v, ga_error *err)
{
    char who[128];
    for (int s = 0; s < n; s++) {
        const ga_track *t = slot_track(E, c, s0 + s);
        int ch = s0 + s < 4 ? GA_CH_ROTATION_QUATERNION : GA_CH_TRANSLATION;
        int axis = s0 + s < 4 ? s0 + s : s0 + s - 4;
        for (uint32_t f = 0; f < E->N; f++) {
            double x = t ? ga_track_eval(t, (double)f) : ga_channel_default(ch, axis);
            if (!(fabs(x) <= (double)FLT_MAX)) {
                chan_name(who, sizeof who, c);
                return ga_fail(err, GA_ERR_ENCODE, FMT, ch == GA_CH_TRANSLATION ? "translation" : "rotation", -1,
                               "%s %s %s at frame %u is %g; JBA stores finite floats", who,
                               ch == GA_CH_TRANSLATION ? "translation" : "rotation_quaternion",
                               axis_names[s0 + s], f, x);
            }
            v[(size_t)f * n + s] = (double)(float)x;
        }
        if (t && t->nkeys && (double)t->time[t->nkeys - 1] > (double)(E->N - 1) + 1e-6) {
            chan_name(who, sizeof who, c);
            ga_report_note(E->ctx->report, "%s %s %s has keys after frame %u, the last frame the file stores", who,
                           ch == GA_CH_TRANSLATION ? "translation" : "rotation", axis_names[s0 + s], E->N - 1);
        }
    }
    return GA_OK;
}

static const jba_par *orig_par(const enc *E, const ech *c, jba_par *tmp)
{
    if (!E->raw || c->orig < 0) return NULL;
    const jba_raw *raw = E->raw;
    const uint8_t *p = c->root ? raw->file + raw->traj + raw->L->traj_par : raw->file + raw->ci + (size_t)c->orig * 48;
    par_read(p, tmp);
    return tmp;
}

/* The rotation code the decoded clip holds at frame f of the channel's
 * original (the later section's copy at a shared frame, as build_clip
 * reads it); 0 if there is none.  Only with the original's sections. */
static int orig_rot_code(const enc *E, const ech *c, uint32_t f, uint16_t out[3])
{
    const jba_raw *raw = E->raw;
    if (!raw || c->orig < 0 || f >= raw->N) return 0;
    size_t at;
    if (c->root) {
        at = raw->traj_rot + (size_t)f * 6;
    } else {
        if ((uint32_t)c->orig >= raw->nbones) return 0;
        uint32_t k = 0;
        while (k + 1 < raw->nsec && raw->sec[k + 1].start <= f) k++;
        at = raw->bb[(size_t)k * raw->nbones + (size_t)c->orig].rot + (size_t)(f - raw->sec[k].start) * 6;
    }
    for (int i = 0; i < 3; i++) out[i] = ga_get_u16le(raw->file + at + 2 * (size_t)i);
    return 1;
}

/* Whether codes decode (as floats) to exactly the quaternion v. */
static int decodes_to(const jba_par *p, const uint16_t code[3], const double v[4])
{
    double d[4];
    quat_decode(p->rs, p->rb, code[0], code[1], code[2], d);
    for (int k = 0; k < 4; k++)
        if ((double)(float)d[k] != v[k]) return 0;
    return 1;
}

static int keep_jumps(const enc *E, ech *c, const double *rot_given, const double *tr_given, ga_error *err);

static int encode_rotation(enc *E, ech *c, ga_error *err)
{
    uint32_t N = E->N;
    ga_report *rep = E->ctx->report;
    double *given = malloc((size_t)N * 4 * sizeof *given);
    double *q = malloc((size_t)N * 4 * sizeof *q);
    c->rc = malloc((size_t)N * 3 * sizeof *c->rc);
    if (!given || !q || !c->rc) {
        free(given);
        free(q);
        return fail_alloc(err);
    }
    int rc = eval_slots(E, c, 0, 4, given, err);
    char who[128];
    chan_name(who, sizeof who, c);
    for (uint32_t f = 0; f < N && !rc; f++) {
        const double *g = given + (size_t)f * 4;
        double n2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2] + g[3] * g[3];
        if (!(n2 > 0.0) || !isfinite(n2)) {
            rc = ga_fail(err, GA_ERR_ENCODE, FMT, "rotation", -1,
                         "%s rotation at frame %u is a zero (or non-finite) quaternion", who, f);
            break;
        }
        /* Unit within float precision: keep the values, so that decoded data
         * quantises back to its own codes; otherwise normalise. */
        double s = fabs(n2 - 1.0) <= 1e-6 ? 1.0 : 1.0 / sqrt(n2);
        for (int k = 0; k < 4; k++) q[(size_t)f * 4 + k] = g[k] * s;
    }
    if (!rc) {
        jba_par op;
        const jba_par *o = orig_par(E, c, &op);
        static const uint32_t maxc[3] = {0x7FFFu, 0xFFFFu, 0xFFFFu};
        for (int k = 0; k < 3; k++) {
            if (o && comp_fits(o->rs[k], o->rb[k], q + 1 + k, N, 4, maxc[k])) {
                c->par.rs[k] = o->rs[k];
                c->par.rb[k] = o->rb[k];
            } else {
                comp_new(q + 1 + k, N, 4, maxc[k], &c->par.rs[k], &c->par.rb[k]);
            }
        }
        /* With the stored base and stride, a frame whose value is the one
         * its original code decodes to keeps that code: quat_codes would
         * not find it when x^2 + y^2 + z^2 of the code exceeds 1 (w was
         * rebuilt as 0 and the quaternion normalised). */
        int keep = E->same_blocks && o && memcmp(c->par.rs, o->rs, sizeof o->rs) == 0 &&
                   memcmp(c->par.rb, o->rb, sizeof o->rb) == 0;
        double worst = 0.0;
        uint32_t worst_f = 0;
        for (uint32_t f = 0; f < N; f++) {
            uint16_t *code = c->rc + (size_t)f * 3;
            if (keep && orig_rot_code(E, c, f, code) && decodes_to(&c->par, code, given + (size_t)f * 4)) {
                /* (the error below is 0 for this frame) */
            } else {
                quat_codes(&c->par, q + (size_t)f * 4, code);
            }
            double dq[4];
            quat_decode(c->par.rs, c->par.rb, code[0], code[1], code[2], dq);
            int rounded = 0;
            for (int k = 0; k < 4; k++) {
                double e = fabs((double)(float)dq[k] - given[(size_t)f * 4 + k]);
                if (e > 0.0) rounded = 1;
                if (e > worst) {
                    worst = e;
                    worst_f = f;
                }
            }
            rep->nrounded += (uint32_t)rounded;
        }
        ga_report_error(rep, worst, "%s rotation frame %u", who, worst_f);
        if (keep) rc = keep_jumps(E, c, given, NULL, err);
        if (worst > ROT_NOTE_LIMIT)
            ga_report_note(rep, "%s rotation is off by up to %g at frame %u (not a unit quaternion, or beyond what "
                           "15/16-bit codes hold)", who, worst, worst_f);
    }
    free(given);
    free(q);
    return rc;
}

static int encode_translation(enc *E, ech *c, ga_error *err)
{
    uint32_t N = E->N;
    ga_report *rep = E->ctx->report;
    size_t nk = c->root ? 1 : E->nsec;
    double *v = malloc((size_t)N * 3 * sizeof *v);
    c->tc = malloc((size_t)N * sizeof *c->tc);
    c->keyless = calloc(nk, 1);
    if (!v || !c->tc || !c->keyless) {
        free(v);
        return fail_alloc(err);
    }
    int rc = eval_slots(E, c, 4, 3, v, err);
    if (rc) {
        free(v);
        return rc;
    }
    char who[128];
    chan_name(who, sizeof who, c);
    static const uint32_t maxc[3] = {0x7FFu, 0x7FFu, 0x3FFu};
    int constant = 1;
    for (uint32_t f = 1; f < N && constant; f++)
        for (int k = 0; k < 3; k++)
            if (v[(size_t)f * 3 + k] != v[k]) constant = 0;
    jba_par op;
    const jba_par *o = orig_par(E, c, &op);
    for (int k = 0; k < 3; k++) {
        if (constant) {
            c->par.ts[k] = 0.0f;
            c->par.tb[k] = (float)v[k];
        } else if (o && comp_fits(o->ts[k], o->tb[k], v + k, N, 3, maxc[k])) {
            c->par.ts[k] = o->ts[k];
            c->par.tb[k] = o->tb[k];
        } else {
            comp_new(v + k, N, 3, maxc[k], &c->par.ts[k], &c->par.tb[k]);
        }
    }
    for (uint32_t f = 0; f < N; f++) {
        const double *x = v + (size_t)f * 3;
        c->tc[f] = (quant(x[0], c->par.ts[0], c->par.tb[0], 0x7FF) << 21) |
                   (quant(x[1], c->par.ts[1], c->par.tb[1], 0x7FF) << 10) |
                   quant(x[2], c->par.ts[2], c->par.tb[2], 0x3FF);
    }
    /* Blocks without keys: a constant bone channel (stride 0, the same under
     * both keyless rules), or a block that had none in the original file and
     * still holds exactly the keyless value. */
    double kv[3];
    trans_keyless(c->par.ts, c->par.tb, E->rule, kv);
    for (size_t k = 0; k < nk; k++) {
        int cand;
        if (c->root) cand = E->raw && c->orig >= 0 && E->raw->traj_tcount == 0;
        else cand = constant || (E->same_blocks && c->orig >= 0 &&
                                 E->raw->bb[k * E->raw->nbones + (size_t)c->orig].tcount == 0);
        if (!cand) continue;
        uint32_t f0 = c->root ? 0 : E->start[k];
        uint32_t nf = c->root ? N : (k + 1 < nk ? E->start[k + 1] - f0 + 1 : N - f0);
        int ok = 1;
        for (uint32_t i = 0; i < nf && ok; i++)
            for (int a = 0; a < 3; a++)
                if (to_f32(v[(size_t)(f0 + i) * 3 + a]) != to_f32(kv[a])) ok = 0;
        c->keyless[k] = (uint8_t)ok;
    }
    /* Errors, from what a reader decodes (the later section wins at a shared frame). */
    double worst = 0.0, worst_step = 0.0;
    uint32_t worst_f = 0;
    for (uint32_t f = 0; f < N; f++) {
        size_t k = 0;
        if (!c->root)
            while (k + 1 < nk && E->start[k + 1] <= f) k++;
        double d[3];
        if (c->keyless[k]) trans_keyless(c->par.ts, c->par.tb, E->rule, d);
        else trans_decode(c->par.ts, c->par.tb, c->tc[f], d);
        int rounded = 0;
        for (int a = 0; a < 3; a++) {
            double e = fabs((double)to_f32(d[a]) - v[(size_t)f * 3 + a]);
            if (e > 0.0) rounded = 1;
            double lim = 0.5 * fabs((double)c->par.ts[a]) * (1.0 + 1e-6) + 1e-6 * fabs(v[(size_t)f * 3 + a]) + 1e-30;
            if (e > worst) {
                worst = e;
                worst_f = f;
            }
            if (e - lim > worst_step) worst_step = e - lim;
        }
        rep->nrounded += (uint32_t)rounded;
    }
    ga_report_error(rep, worst, "%s translation frame %u", who, worst_f);
    if (worst_step > 0.0)
        ga_report_note(rep, "%s translation is off by more than half a quantisation step (up to %g)", who, worst);
    int rc2 = GA_OK;
    if (o && !constant && memcmp(c->par.ts, o->ts, sizeof o->ts) == 0 && memcmp(c->par.tb, o->tb, sizeof o->tb) == 0)
        rc2 = keep_jumps(E, c, NULL, v, err);
    free(v);
    return rc2;
}

static void ech_free(ech *c)
{
    free(c->rc);
    free(c->tc);
    free(c->keyless);
    free(c->early);
    free(c->erc);
    free(c->etc);
}

static int early_alloc(const enc *E, ech *c)
{
    if (c->early) return 1;
    c->early = calloc(E->nsec, 1);
    c->erc = calloc((size_t)E->nsec * 3, sizeof *c->erc);
    c->etc = calloc(E->nsec, sizeof *c->etc);
    return c->early && c->erc && c->etc;
}

/* An edited channel of a loaded file whose sections share a frame with
 * different copies (a jump: section k's copy is what the clip holds at
 * start[k], section k-1's is what the runtime reaches before it): where
 * the edit left that frame at the later copy's value, the earlier copy
 * keeps its original codes, so that untouched jumps survive an edit of
 * other frames (the codes of one frame otherwise go into both copies).
 * Only with the original's sections and stored base/stride for the part
 * concerned (rot / trans say which parts qualify). */
static int keep_jumps(const enc *E, ech *c, const double *rot_given, const double *tr_given, ga_error *err)
{
    const jba_raw *raw = E->raw;
    if (!raw || !E->same_blocks || c->root || c->orig < 0 || (uint32_t)c->orig >= raw->nbones) return GA_OK;
    for (uint32_t k = 1; k < E->nsec; k++) {
        uint32_t f = E->start[k];
        const jba_bb *before = &raw->bb[(size_t)(k - 1) * raw->nbones + (size_t)c->orig];
        const jba_bb *after = &raw->bb[(size_t)k * raw->nbones + (size_t)c->orig];
        uint32_t last = raw->sec[k - 1].nframes - 1;
        if (rot_given) {
            const uint8_t *a = raw->file + after->rot, *e = raw->file + before->rot + (size_t)last * 6;
            uint16_t later[3], earlier[3];
            for (int i = 0; i < 3; i++) {
                later[i] = ga_get_u16le(a + 2 * (size_t)i);
                earlier[i] = ga_get_u16le(e + 2 * (size_t)i);
            }
            if (memcmp(later, earlier, sizeof later) != 0 && memcmp(c->rc + (size_t)f * 3, later, sizeof later) == 0 &&
                decodes_to(&c->par, later, rot_given + (size_t)f * 4)) {
                if (!early_alloc(E, c)) return fail_alloc(err);
                memcpy(c->erc + (size_t)k * 3, earlier, sizeof earlier);
                c->early[k] |= 1;
            }
        }
        if (tr_given && before->tcount && !c->keyless[k - 1]) {
            double later[3];
            if (after->tcount) trans_decode(c->par.ts, c->par.tb, ga_get_u32le(raw->file + after->trans), later);
            else trans_keyless(c->par.ts, c->par.tb, E->rule, later);
            uint32_t earlier = ga_get_u32le(raw->file + before->trans + (size_t)last * 4);
            int same = 1;
            for (int a = 0; a < 3; a++)
                if (to_f32(later[a]) != to_f32(tr_given[(size_t)f * 3 + a])) same = 0;
            if (same && earlier != c->tc[f]) {
                if (!early_alloc(E, c)) return fail_alloc(err);
                c->etc[k] = earlier;
                c->early[k] |= 2;
            }
        }
    }
    return GA_OK;
}

/* Groups the clip's tracks into channels. */
static int gather(enc *E, ga_error *err)
{
    const ga_clip *clip = E->ctx->clip;
    const jba_raw *raw = E->raw;
    uint32_t nt = clip->ntracks;
    int named = -1; /* -1 unknown, 1 names, 0 indices */
    int32_t max_index = -1;
    for (uint32_t i = 0; i < nt; i++) {
        const ga_track *t = &clip->tracks[i];
        char what[96];
        snprintf(what, sizeof what, "track %u", i);
        if (t->channel != GA_CH_ROTATION_QUATERNION && t->channel != GA_CH_TRANSLATION)
            return ga_fail(err, GA_ERR_ENCODE, FMT, what, -1,
                           "channel %u: JBA stores only rotation_quaternion and translation", t->channel);
        if (t->axis > (t->channel == GA_CH_TRANSLATION ? 2 : 3))
            return ga_fail(err, GA_ERR_ENCODE, FMT, what, -1, "axis %u is out of range", t->axis);
        if (t->target_name && strcmp(t->target_name, ROOT_NAME) == 0) continue;
        int is_named = t->target_name != NULL;
        if (named >= 0 && named != is_named)
            return ga_fail(err, GA_ERR_ENCODE, FMT, what, -1,
                           "bone targets must be all names or all channel indices, not a mix");
        named = is_named;
        if (!is_named) {
            if (t->target < 0)
                return ga_fail(err, GA_ERR_ENCODE, FMT, what, -1, "target %d is not a channel index", t->target);
            if ((uint32_t)t->target >= GA_MAX_TRACKS / 7)
                return ga_fail(err, GA_ERR_ENCODE, FMT, what, -1, "channel index %d is over the limit of %u", t->target,
                               GA_MAX_TRACKS / 7);
            if (t->target > max_index) max_index = t->target;
        }
    }
    E->named = named == 1;
    /* Channel list */
    uint32_t nb = 0;
    nmap m = {0, NULL, NULL};
    if (E->named) {
        if (nmap_init(&m, nt)) return fail_alloc(err);
        for (uint32_t i = 0; i < nt; i++) {
            const ga_track *t = &clip->tracks[i];
            if (!t->target_name || strcmp(t->target_name, ROOT_NAME) == 0) continue;
            if (nmap_put(&m, t->target_name, (int32_t)nb) < 0) nb++;
        }
    } else {
        nb = (uint32_t)(max_index + 1);
        if (raw && !raw->has_names && raw->nbones > nb) nb = raw->nbones; /* keep trailing channels */
    }
    E->nb = nb;
    E->ch = calloc((size_t)nb + 1, sizeof *E->ch);
    if (!E->ch) {
        nmap_free(&m);
        return fail_alloc(err);
    }
    for (uint32_t b = 0; b <= nb; b++) {
        for (int s = 0; s < 7; s++) E->ch[b].trk[s] = -1;
        E->ch[b].orig = -1;
        E->ch[b].index = (int32_t)b;
    }
    E->ch[nb].root = 1;
    for (uint32_t i = 0; i < nt; i++) {
        const ga_track *t = &clip->tracks[i];
        ech *c;
        if (t->target_name && strcmp(t->target_name, ROOT_NAME) == 0) c = &E->ch[nb];
        else if (E->named) c = &E->ch[nmap_get(&m, t->target_name)];
        else c = &E->ch[t->target];
        if (E->named && !c->root) c->name = t->target_name;
        int s = t->channel == GA_CH_TRANSLATION ? 4 + t->axis : t->axis;
        if (c->trk[s] >= 0) {
            char who[128];
            chan_name(who, sizeof who, c);
            int32_t first = c->trk[s];
            nmap_free(&m);
            return ga_fail(err, GA_ERR_ENCODE, FMT, "tracks", -1, "tracks %d and %u both animate %s %s %s", first, i,
                           who, t->channel == GA_CH_TRANSLATION ? "translation" : "rotation_quaternion",
                           axis_names[s]);
        }
        c->trk[s] = (int32_t)i;
    }
    nmap_free(&m);
    /* Original channel of each */
    if (raw) {
        E->ch[nb].orig = 0;
        if (E->named && raw->has_names) {
            nmap om;
            if (nmap_init(&om, raw->nbones)) return fail_alloc(err);
            for (uint32_t b = 0; b < raw->nbones; b++) nmap_put(&om, raw->names[b], (int32_t)b);
            for (uint32_t b = 0; b < nb; b++) E->ch[b].orig = nmap_get(&om, E->ch[b].name);
            nmap_free(&om);
        } else if (!E->named && !raw->has_names) {
            for (uint32_t b = 0; b < nb; b++) E->ch[b].orig = b < raw->nbones ? (int32_t)b : -1;
        }
    }
    return GA_OK;
}

/* Length and fps fields. */
static int timing(enc *E, uint32_t *length_bits, uint32_t *fps_bits, ga_error *err)
{
    const ga_clip *c = E->ctx->clip;
    const ga_clip *o = E->ctx->orig;
    const jba_raw *raw = E->raw;
    if (!(c->fps > 0.0) || !isfinite(c->fps) || c->fps > (double)FLT_MAX)
        return ga_fail(err, GA_ERR_ENCODE, FMT, "fps", -1,
                       "the clip has no usable fps (%g); JBA stores one (SWTOR uses 15 or 30)", c->fps);
    double fc = c->frame_count;
    if (!isfinite(fc) || fc < 0.0 || fc >= (double)GA_MAX_FRAMES - 1.0)
        return ga_fail(err, GA_ERR_ENCODE, FMT, "frame count", -1, "frame count %g is not 0..%u", fc,
                       GA_MAX_FRAMES - 2);
    uint32_t N = (uint32_t)floor(fc + 0.5) + 1u;
    int fps_same = raw && o && c->fps == o->fps;
    float fps32 = fps_same ? ga_get_f32le(raw->file + raw->L->f_fps) : (float)c->fps;
    if (!(fps32 > 0.0f) || !(fc / fps32 <= (double)FLT_MAX))
        return ga_fail(err, GA_ERR_ENCODE, FMT, "fps", -1, "fps %g is too small for a float length", c->fps);
    *fps_bits = fps_same ? ga_get_u32le(raw->file + raw->L->f_fps) : ga_f32_bits(fps32);
    if (fps_same && memcmp(&fc, &o->frame_count, sizeof fc) == 0) {
        *length_bits = ga_get_u32le(raw->file + raw->L->f_length);
        E->N = raw->N;
        return GA_OK;
    }
    /* A length whose product with fps rounds to the same number of frames. */
    float len = (float)(fc / fps32);
    for (int i = 0; i < 64; i++) {
        double p = (double)len * fps32;
        double r = floor(p + 0.5);
        if (r == (double)(N - 1)) break;
        len = nextafterf(len, r < (double)(N - 1) ? INFINITY : -INFINITY);
    }
    if (!(len >= 0.0f) || floor((double)len * fps32 + 0.5) != (double)(N - 1))
        return ga_fail(err, GA_ERR_ENCODE, FMT, "length", -1,
                       "no float length gives %u frames at %g fps", N, (double)fps32);
    *length_bits = ga_f32_bits(len);
    E->N = N;
    return GA_OK;
}

static void put_gap(ga_buf *b, const enc *E, size_t n, size_t raw_from, size_t raw_to)
{
    if (E->same && raw_to >= raw_from && raw_to - raw_from == n) ga_buf_put(b, E->raw->file + raw_from, n);
    else ga_buf_fill(b, 0, n);
}

static void put_par(ga_buf *b, const jba_par *p)
{
    for (int i = 0; i < 3; i++) ga_buf_f32le(b, p->ts[i]);
    for (int i = 0; i < 3; i++) ga_buf_f32le(b, p->tb[i]);
    for (int i = 0; i < 3; i++) ga_buf_f32le(b, p->rs[i]);
    for (int i = 0; i < 3; i++) ga_buf_f32le(b, p->rb[i]);
}

/* Rotation codes, alignment pad and translation codes of one channel for
 * frames [f0, f0+nf); the original bytes where the data was reused. */
static void put_keys(ga_buf *b, const enc *E, const ech *c, uint32_t f0, uint32_t nf, const jba_bb *ob,
                     size_t raw_rot, size_t raw_trans, int keyless, uint32_t next)
{
    const uint8_t *file = E->raw ? E->raw->file : NULL;
    /* next: the section after this one (0: none), whose first frame is
     * this section's last (c->early: that copy differs) */
    uint8_t early = c->early && next ? c->early[next] : 0;
    if (c->reuse_rot) {
        ga_buf_put(b, file + raw_rot, (size_t)nf * 6);
    } else {
        for (uint32_t i = 0; i < nf; i++) {
            const uint16_t *code = (early & 1) && i + 1 == nf ? c->erc + (size_t)next * 3 : c->rc + (size_t)(f0 + i) * 3;
            for (int k = 0; k < 3; k++) ga_buf_u16le(b, code[k]);
        }
    }
    size_t pad = (size_t)(-b->len) & 3u;
    if (E->same && E->same_blocks && (ob || c->root) && raw_rot) ga_buf_put(b, file + raw_rot + (size_t)nf * 6, pad);
    else ga_buf_fill(b, 0, pad);
    if (keyless) return;
    if (c->reuse_trans) {
        ga_buf_put(b, file + raw_trans, (size_t)nf * 4);
    } else {
        for (uint32_t i = 0; i < nf; i++) ga_buf_u32le(b, (early & 2) && i + 1 == nf ? c->etc[next] : c->tc[f0 + i]);
    }
}

static int write_file(enc *E, uint32_t length_bits, uint32_t fps_bits, ga_buf *b, ga_error *err)
{
    const jba_lay *L = E->L;
    const jba_raw *raw = E->raw;
    uint32_t nb = E->nb, nsec = E->nsec, N = E->N;
    /* header */
    uint8_t h[0x50];
    memset(h, 0, sizeof h);
    if (E->same) {
        memcpy(h, raw->file, L->hdr);
    } else if (L->bits == 64) {
        memcpy(h, "JAWB", 4);
        set32(h + 4, 2);
        set32(h + 0x40, MARKER);
    } else {
        set32(h + 0x20, MARKER);
    }
    set32(h + L->f_length, length_bits);
    set32(h + L->f_fps, fps_bits);
    set32(h + L->f_nsec, nsec);
    set32(h + L->f_nbones, nb);
    ga_buf_put(b, h, L->hdr);
    size_t tab = b->len;
    ga_buf_fill(b, 0, (size_t)nsec * 8);
    if (E->same && raw->nsec == nsec) ga_buf_put(b, raw->file + raw->L->hdr + (size_t)nsec * 8, (size_t)nsec * L->slot);
    else ga_buf_fill(b, 0, (size_t)nsec * L->slot);
    put_gap(b, E, lay_align(L, b->len) - b->len, raw ? raw->slots_end : 0, raw ? raw->ci : 0);
    for (uint32_t i = 0; i < nb; i++) put_par(b, &E->ch[i].par);
    put_gap(b, E, lay_align(L, b->len) - b->len, raw ? raw->ci_end : 0, raw ? raw->sec[0].off : 0);
    /* sections */
    for (uint32_t k = 0; k < nsec; k++) {
        uint32_t f0 = E->start[k];
        uint32_t nf = k + 1 < nsec ? E->start[k + 1] - f0 + 1 : N - f0;
        const jba_sec *os = E->same_blocks ? &raw->sec[k] : NULL;
        size_t off = b->len;
        uint8_t sh[16];
        memset(sh, 0, sizeof sh);
        if (E->same && os) memcpy(sh, raw->file + os->off, L->sechdr);
        set32(sh, nb);
        ga_buf_put(b, sh, L->sechdr);
        for (uint32_t i = 0; i < nb; i++) {
            const ech *c = &E->ch[i];
            uint8_t dsc[32];
            memset(dsc, 0, sizeof dsc);
            if (E->same && os && c->orig >= 0)
                memcpy(dsc, raw->file + raw->bb[(size_t)k * raw->nbones + (size_t)c->orig].desc, L->desc);
            set32(dsc, nf);
            set32(dsc + L->desc_tc, c->keyless[k] ? 0 : nf);
            ga_buf_put(b, dsc, L->desc);
        }
        for (uint32_t i = 0; i < nb; i++) {
            const ech *c = &E->ch[i];
            const jba_bb *ob = os && c->orig >= 0 ? &raw->bb[(size_t)k * raw->nbones + (size_t)c->orig] : NULL;
            put_keys(b, E, c, f0, nf, ob, ob ? ob->rot : 0, ob ? ob->trans : 0, c->keyless[k],
                     k + 1 < nsec ? k + 1 : 0);
        }
        size_t end = b->len, content = end - off;
        uint32_t size_field;
        if (E->same && os && content == os->end - os->off) {
            size_field = os->size;
            ga_buf_put(b, raw->file + os->end, os->next - os->end);
        } else {
            size_t data = content - L->sechdr - (size_t)nb * L->desc;
            size_t legacy = (8 + (size_t)nb * 16 + data + 127u) & ~(size_t)127u;
            size_t aligned = lay_align(L, end);
            size_field = (uint32_t)(L->bits == 32 ? aligned - off : legacy);
            if ((L->bits == 32 ? aligned - off : legacy) > 0xFFFFFFFFu)
                return ga_fail(err, GA_ERR_ENCODE, FMT, "section size", -1, "section %u is over 4 GiB", k);
            ga_buf_fill(b, 0, aligned - end);
        }
        if (!b->failed) {
            set32(b->data + tab + (size_t)k * 8, f0);
            set32(b->data + tab + (size_t)k * 8 + 4, size_field);
        }
    }
    /* trajectory */
    const ech *tr = &E->ch[nb];
    uint8_t th[0x60];
    memset(th, 0, sizeof th);
    if (E->same) memcpy(th, raw->file + raw->traj, L->trajhdr);
    if (!E->same || ga_get_u32le(raw->file + raw->L->f_fps) != fps_bits) set32(th + L->traj_fps, fps_bits);
    for (int i = 0; i < 3; i++) {
        set32(th + L->traj_par + 4 * i, ga_f32_bits(tr->par.ts[i]));
        set32(th + L->traj_par + 12 + 4 * i, ga_f32_bits(tr->par.tb[i]));
        set32(th + L->traj_par + 24 + 4 * i, ga_f32_bits(tr->par.rs[i]));
        set32(th + L->traj_par + 36 + 4 * i, ga_f32_bits(tr->par.rb[i]));
    }
    set32(th + L->traj_rc, N);
    set32(th + L->traj_tc, tr->keyless[0] ? 0 : N);
    ga_buf_put(b, th, L->trajhdr);
    put_keys(b, E, tr, 0, N, NULL, raw && E->same_blocks ? raw->traj_rot : 0, raw ? raw->traj_trans : 0,
             tr->keyless[0], 0);
    /* names */
    if (E->named && nb > 0) {
        int keep = E->same && raw->has_names && raw->nbones == nb;
        for (uint32_t i = 0; i < nb && keep; i++)
            if (strcmp(raw->names[i], E->ch[i].name) != 0) keep = 0;
        if (keep) {
            ga_buf_put(b, raw->file + raw->names_off, raw->names_end - raw->names_off);
        } else {
            size_t total = 0;
            for (uint32_t i = 0; i < nb; i++) total += strlen(E->ch[i].name) + 1;
            if (total > 0xFFFFFFFFu)
                return ga_fail(err, GA_ERR_ENCODE, FMT, "name table", -1, "the bone names exceed 4 GiB");
            ga_buf_u32le(b, nb);
            ga_buf_u32le(b, (uint32_t)total);
            uint64_t o[3] = {L->namehdr, L->namehdr + 4ull * nb, L->namehdr + 8ull * nb};
            for (int i = 0; i < 3; i++) {
                if (L->bits == 64) ga_buf_u64le(b, o[i]);
                else ga_buf_u32le(b, (uint32_t)o[i]);
            }
            for (uint32_t i = 0; i < nb; i++) ga_buf_u32le(b, i);
            size_t so = 0;
            for (uint32_t i = 0; i < nb; i++) {
                ga_buf_u32le(b, (uint32_t)so);
                so += strlen(E->ch[i].name) + 1;
            }
            for (uint32_t i = 0; i < nb; i++) ga_buf_put(b, E->ch[i].name, strlen(E->ch[i].name) + 1);
        }
    }
    if (raw) ga_buf_put(b, raw->file + raw->trail, raw->size - raw->trail);
    if (b->failed) return fail_alloc(err);
    return GA_OK;
}

static int jba_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    const ga_clip *clip = ctx->clip;
    enc E;
    memset(&E, 0, sizeof E);
    E.ctx = ctx;
    E.raw = ctx->orig ? ctx->raw : NULL;
    E.rule = clip->keyless_rule ? 1 : 0;
    if (clip->layout != 32 && clip->layout != 64)
        return ga_fail(err, GA_ERR_ENCODE, FMT, "layout", -1, "layout %d is not 32 or 64", clip->layout);
    E.L = clip->layout == 64 ? &LAY64 : &LAY32;
    E.same = E.raw && E.raw->L == E.L;
    uint32_t length_bits = 0, fps_bits = 0;
    int rc = timing(&E, &length_bits, &fps_bits, err);
    if (rc) return rc;
    rc = gather(&E, err);
    if (rc) goto done;
    if ((uint64_t)(E.nb + 1) * 7u * E.N > GA_MAX_KEYS_TOTAL) {
        rc = ga_fail(err, GA_ERR_ENCODE, FMT, "frame count", -1,
                     "%u channels x %u frames exceed the limit of %u values", E.nb + 1, E.N, GA_MAX_KEYS_TOTAL);
        goto done;
    }
    /* Sections: the original start frames while the frame count is the
     * same; otherwise at most BLOCK_INTERVALS frame steps each, split evenly. */
    E.same_blocks = E.raw && E.raw->N == E.N;
    if (E.same_blocks) {
        E.nsec = E.raw->nsec;
    } else {
        uint32_t steps = E.N - 1;
        E.nsec = steps ? (steps + BLOCK_INTERVALS - 1) / BLOCK_INTERVALS : 1;
    }
    E.start = malloc((size_t)E.nsec * sizeof *E.start);
    if (!E.start) {
        rc = fail_alloc(err);
        goto done;
    }
    for (uint32_t k = 0; k < E.nsec; k++)
        E.start[k] = E.same_blocks ? E.raw->sec[k].start : (uint32_t)(((uint64_t)k * (E.N - 1)) / E.nsec);
    for (uint32_t b = 0; b <= E.nb && !rc; b++) {
        ech *c = &E.ch[b];
        int rot_same = E.same_blocks && c->orig >= 0, tr_same = rot_same;
        for (int s = 0; s < 4; s++) rot_same = rot_same && slot_unchanged(&E, c, s);
        for (int s = 4; s < 7; s++) tr_same = tr_same && slot_unchanged(&E, c, s);
        jba_par op;
        const jba_par *o = orig_par(&E, c, &op);
        c->reuse_rot = rot_same;
        c->reuse_trans = tr_same;
        int present_rot = 0, present_tr = 0;
        for (int s = 0; s < 4; s++) present_rot += c->trk[s] >= 0;
        for (int s = 4; s < 7; s++) present_tr += c->trk[s] >= 0;
        if (rot_same) {
            memcpy(c->par.rs, o->rs, sizeof c->par.rs);
            memcpy(c->par.rb, o->rb, sizeof c->par.rb);
            ctx->report->reused_tracks += 4;
        } else {
            rc = encode_rotation(&E, c, err);
            ctx->report->encoded_tracks += (uint32_t)present_rot;
        }
        if (rc) break;
        if (tr_same) {
            memcpy(c->par.ts, o->ts, sizeof c->par.ts);
            memcpy(c->par.tb, o->tb, sizeof c->par.tb);
            size_t nk = c->root ? 1 : E.nsec;
            c->keyless = calloc(nk, 1);
            if (!c->keyless) {
                rc = fail_alloc(err);
                break;
            }
            for (size_t k = 0; k < nk; k++)
                c->keyless[k] = (uint8_t)(c->root ? E.raw->traj_tcount == 0
                                                  : E.raw->bb[k * E.raw->nbones + (size_t)c->orig].tcount == 0);
            ctx->report->reused_tracks += 3;
        } else {
            rc = encode_translation(&E, c, err);
            ctx->report->encoded_tracks += (uint32_t)present_tr;
        }
    }
    if (!rc) rc = write_file(&E, length_bits, fps_bits, out, err);
done:
    if (E.ch)
        for (uint32_t b = 0; b <= E.nb; b++) ech_free(&E.ch[b]);
    free(E.ch);
    free(E.start);
    return rc;
}

const ga_format ga_format_jba = {
    "jba",
    "SWTOR skeletal animation (legacy 32-bit and JAWB v2 64-bit)",
    jba_probe,
    jba_decode,
    jba_encode,
    jba_free_raw,
    jba_sample,
    jba_info,
    NULL, /* every track applies */
    NULL, /* Track.evaluate: generic */
    {".jba", "bone_name", 1, "Z", "NAME", "", "utf-8", NULL, NULL},
};
