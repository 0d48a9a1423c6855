/* J3D key-frame animation core shared by BCK (ANK1) and BTK (TTK1):
 * the JSYSTEM file header, key tables, value tables with run reuse, the
 * name table, game-exact rotation sampling and the encoder.
 *
 * Decoding keeps the whole file, so an unedited animation is written back
 * verbatim; an edit that only touches header fields patches those bytes;
 * anything else rebuilds the file, re-emitting the original element runs
 * of every unchanged track. */
#include "j3d.h"
#include "pool.h"
#include "fma.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define M_PI_J3D 3.14159265358979323846

const char j3d_padding_text[] = "This is padding data to alignment.";

#define ANK1_HEADER 0x40u
#define TTK1_HEADER 0x60u
#define ENTRY_SIZE 0x36u
#define NO_SOUND 0xFFFFFFFFu

static const char *const channel_names[3] = {"scale", "rotation", "translation"};
static const char axis_letters[3] = {'X', 'Y', 'Z'};

double j3d_rotation_unit(int frac)
{
    /* raw << frac is an s16 angle with 0x8000 = pi */
    return ldexp(3.14159265358979323846 / 32768.0, frac);
}

uint16_t j3d_name_hash(const char *s)
{
    /* JUTNameTab: h = h * 3 + c over the bytes, as signed chars, 16 bits. */
    uint16_t h = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (uint16_t)(h * 3 + (int)(signed char)*p);
    return h;
}

int j3d_probe(const uint8_t *data, size_t size, const char *kind)
{
    if (size < 8) return 0;
    if (memcmp(data, "J3D1", 4) != 0) return 0;
    if (memcmp(data + 4, kind, 4) != 0) return 0;
    return 100;
}

/* ------------------------------------------------------------------ */
/* Freeing                                                             */

static void section_free(j3d_section *s)
{
    free(s->desc);
    free(s->scale);
    free(s->rot);
    free(s->trans);
    free(s->remap);
    free(s->texmtx);
    free(s->center);
    if (s->names)
        for (uint32_t i = 0; i < s->nentries; i++) free(s->names[i]);
    free(s->names);
    free(s->ntab);
    memset(s, 0, sizeof *s);
}

void j3d_free_raw(void *p)
{
    j3d_raw *raw = p;
    if (!raw) return;
    free(raw->file);
    section_free(&raw->main);
    section_free(&raw->post);
    free(raw->sound);
    free(raw->extra);
    free(raw);
}

/* ------------------------------------------------------------------ */
/* Decoding                                                            */

typedef struct sec_offsets {
    uint32_t table, remap, names, texmtx, center, scale, rot, trans;
} sec_offsets;

static void desc_field(char *buf, size_t cap, int btk, uint32_t entry, int post, uint32_t slot)
{
    /* slot is in file order: axis * 3 + channel */
    uint32_t axis = slot / 3, ch = slot % 3;
    if (btk) {
        static const char st[3] = {'S', 'T', 'Q'};
        snprintf(buf, cap, "%sentry %u %s %c key table", post ? "post " : "", entry,
                 channel_names[ch], st[axis]);
    } else {
        snprintf(buf, cap, "joint %u %s %c key table", entry, channel_names[ch], axis_letters[axis]);
    }
}

int j3d_read_names(const ga_reader *r, size_t at, uint32_t need, char ***names_out, uint8_t **ntab_out,
                   size_t *ntab_len, ga_error *err)
{
    uint16_t count;
    int rc = ga_rd_u16be(r, at, "name table count", &count);
    if (rc) return rc;
    if (count < need)
        return ga_fail(err, GA_ERR_FORMAT, r->format, "name table count", (long long)at,
                       "%u names for %u animations", count, need);
    rc = ga_need(r, at, 4 + (size_t)count * 4, "name table entries");
    if (rc) return rc;
    char **names = calloc(need ? need : 1, sizeof *names);
    if (!names) return ga_nomem(err, r->format);
    *names_out = names; /* (the caller frees need strings, NULL or not) */
    size_t end = at + 4 + (size_t)count * 4;
    for (uint32_t i = 0; i < count; i++) {
        size_t eoff = at + 4 + (size_t)i * 4;
        uint16_t soff = ga_get_u16be(r->data + eoff + 2);
        size_t p = at + soff;
        if (p >= r->size)
            return ga_fail(err, GA_ERR_FORMAT, r->format, "name table string offset",
                           (long long)eoff + 2, "string %u starts past the end of the data", i);
        const uint8_t *z = memchr(r->data + p, 0, r->size - p);
        if (!z)
            return ga_fail(err, GA_ERR_FORMAT, r->format, "name table string", (long long)p,
                           "string %u has no terminating NUL before the end of the data", i);
        size_t len = (size_t)(z - (r->data + p));
        if (len > GA_MAX_STRING)
            return ga_fail(err, GA_ERR_LIMIT, r->format, "name table string", (long long)p,
                           "string %u is %zu bytes, over the limit of %u", i, len, GA_MAX_STRING);
        if (p + len + 1 > end) end = p + len + 1;
        if (i < need) {
            names[i] = malloc(len + 1);
            if (!names[i]) return ga_nomem(err, r->format);
            memcpy(names[i], r->data + p, len);
            names[i][len] = 0;
        }
    }
    if (ntab_out) {
        *ntab_len = end - at;
        *ntab_out = malloc(*ntab_len);
        if (!*ntab_out) return ga_nomem(err, r->format);
        memcpy(*ntab_out, r->data + at, *ntab_len);
    }
    return GA_OK;
}

static int read_name_table(const ga_reader *r, size_t at, uint32_t need, j3d_section *s, ga_error *err)
{
    int rc = j3d_read_names(r, at, need, &s->names, &s->ntab, &s->ntab_len, err);
    if (!rc) s->has_ntab = 1;
    return rc;
}

static int read_section(const ga_reader *r, size_t base, int btk, int post, uint32_t n,
                        uint32_t nscale, uint32_t nrot, uint32_t ntrans, const sec_offsets *o,
                        int names_optional, j3d_section *s, ga_error *err)
{
    const char *fmt = r->format;
    s->nentries = n;
    s->nscale = nscale;
    s->nrot = nrot;
    s->ntrans = ntrans;
    int rc;
    size_t at = base + o->table;
    rc = ga_need(r, at, (size_t)n * ENTRY_SIZE, post ? "post animation table" : (btk ? "animation table" : "joint table"));
    if (rc) return rc;
    s->desc = malloc(((size_t)n * 9 + 1) * sizeof *s->desc);
    s->scale = malloc(((size_t)nscale + 1) * 4);
    s->rot = malloc(((size_t)nrot + 1) * 2);
    s->trans = malloc(((size_t)ntrans + 1) * 4);
    if (!s->desc || !s->scale || !s->rot || !s->trans) return ga_nomem(err, fmt);
    for (size_t i = 0; i < (size_t)n * 9; i++) {
        const uint8_t *p = r->data + at + i * 6;
        s->desc[i].count = ga_get_u16be(p);
        s->desc[i].index = ga_get_u16be(p + 2);
        s->desc[i].type = ga_get_u16be(p + 4);
    }
    if (nscale) {
        rc = ga_need(r, base + o->scale, (size_t)nscale * 4, post ? "post scale table" : "scale table");
        if (rc) return rc;
        for (uint32_t i = 0; i < nscale; i++) s->scale[i] = ga_get_u32be(r->data + base + o->scale + i * 4);
    }
    if (nrot) {
        rc = ga_need(r, base + o->rot, (size_t)nrot * 2, post ? "post rotation table" : "rotation table");
        if (rc) return rc;
        for (uint32_t i = 0; i < nrot; i++) s->rot[i] = (int16_t)ga_get_u16be(r->data + base + o->rot + i * 2);
    }
    if (ntrans) {
        rc = ga_need(r, base + o->trans, (size_t)ntrans * 4, post ? "post translation table" : "translation table");
        if (rc) return rc;
        for (uint32_t i = 0; i < ntrans; i++) s->trans[i] = ga_get_u32be(r->data + base + o->trans + i * 4);
    }
    /* Every key table must stay inside its value table. */
    for (uint32_t i = 0; i < n * 9; i++) {
        const j3d_desc *d = &s->desc[i];
        uint32_t ch = i % 3;
        uint32_t avail = ch == 0 ? nscale : ch == 1 ? nrot : ntrans;
        uint64_t need;
        if (d->count == 0) continue;
        if (d->count == 1) need = (uint64_t)d->index + 1;
        else need = (uint64_t)d->index + (uint64_t)d->count * (d->type == 0 ? 3u : 4u);
        if (need > avail) {
            char field[96];
            desc_field(field, sizeof field, btk, i / 9, post, i % 9);
            return ga_fail(err, GA_ERR_FORMAT, fmt, field, (long long)(at + (size_t)i * 6),
                           "%u keys from element %u (tangent type %u) run past the %s table of %u values",
                           d->count, d->index, d->type, channel_names[ch], avail);
        }
    }
    if (!btk) return GA_OK;

    s->remap = malloc(((size_t)n + 1) * 2);
    s->texmtx = malloc((size_t)n + 1);
    s->center = malloc(((size_t)n * 3 + 1) * 4);
    if (!s->remap || !s->texmtx || !s->center) return ga_nomem(err, fmt);
    rc = ga_need(r, base + o->remap, (size_t)n * 2, post ? "post material id table" : "material id table");
    if (rc) return rc;
    for (uint32_t i = 0; i < n; i++) s->remap[i] = ga_get_u16be(r->data + base + o->remap + i * 2);
    rc = ga_need(r, base + o->texmtx, n, post ? "post texture matrix id table" : "texture matrix id table");
    if (rc) return rc;
    memcpy(s->texmtx, r->data + base + o->texmtx, n);
    rc = ga_need(r, base + o->center, (size_t)n * 12, post ? "post centre table" : "centre table");
    if (rc) return rc;
    for (uint32_t i = 0; i < n * 3; i++) s->center[i] = ga_get_u32be(r->data + base + o->center + i * 4);
    if (o->names == 0 && names_optional) return GA_OK;
    return read_name_table(r, base + o->names, n, s, err);
}

/* Keys the tracks of a section claim, summed. */
static uint64_t section_keys(const j3d_section *s)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < s->nentries * 9; i++) n += s->desc[i].count;
    return n;
}

/* Builds the nine tracks of each entry of a section. */
static int section_tracks(ga_clip *clip, const j3d_section *s, int frac, uint32_t first_target, ga_track *tracks,
                          ga_error *err)
{
    double unit = j3d_rotation_unit(frac);
    for (uint32_t e = 0; e < s->nentries; e++) {
        for (uint32_t c = 0; c < 3; c++) {
            for (uint32_t a = 0; a < 3; a++) {
                const j3d_desc *d = &s->desc[e * 9 + a * 3 + c];
                ga_track *t = &tracks[e * 9 + c * 3 + a];
                t->target = (int32_t)(first_target + e);
                t->channel = (uint8_t)c;
                t->axis = (uint8_t)a;
                uint32_t nk = d->count;
                int rc = ga_clip_track_alloc(clip, t, nk, err);
                if (rc) return rc;
                if (nk == 0) continue;
                if (nk == 1) {
                    t->time[0] = 0.0f;
                    t->interp[0] = GA_INTERP_CONSTANT;
                    if (c == 1) t->value[0] = (float)(s->rot[d->index] * unit);
                    else t->value[0] = ga_bits_f32(c == 0 ? s->scale[d->index] : s->trans[d->index]);
                    continue;
                }
                uint32_t stride = d->type == 0 ? 3 : 4;
                for (uint32_t k = 0; k < nk; k++) {
                    uint32_t at = d->index + k * stride;
                    double v[4];
                    for (uint32_t j = 0; j < stride; j++) {
                        if (c == 1) v[j] = s->rot[at + j];
                        else v[j] = ga_bits_f32(c == 0 ? s->scale[at + j] : s->trans[at + j]);
                    }
                    double in = v[2], out = stride == 4 ? v[3] : v[2];
                    if (c == 1) {
                        t->time[k] = (float)v[0];
                        t->value[k] = (float)(v[1] * unit);
                        t->in_slope[k] = (float)(in * unit);
                        t->out_slope[k] = (float)(out * unit);
                    } else {
                        t->time[k] = (float)v[0];
                        t->value[k] = (float)v[1];
                        t->in_slope[k] = (float)in;
                        t->out_slope[k] = (float)out;
                    }
                    t->interp[k] = GA_INTERP_BEZIER;
                }
            }
        }
    }
    return GA_OK;
}

static int section_entries(const j3d_section *s, int post, ga_entry *entries, ga_error *err)
{
    for (uint32_t e = 0; e < s->nentries; e++) {
        ga_entry *en = &entries[e];
        en->name = ga_strdup(s->names && s->names[e] ? s->names[e] : "");
        if (!en->name) return ga_nomem(err, "btk");
        en->texmtx_id = s->texmtx[e];
        for (int i = 0; i < 3; i++) en->center[i] = ga_bits_f32(s->center[e * 3 + i]);
        en->post = post;
    }
    return GA_OK;
}

int j3d_decode(const uint8_t *data, size_t size, int btk, const ga_decode_opts *opts, j3d_raw **out,
               ga_clip *clip, ga_error *err)
{
    const char *fmt = btk ? "btk" : "bck";
    ga_reader r;
    ga_reader_init(&r, data, size, fmt, err);
    int rc = ga_need(&r, 0, 0x20, "file header");
    if (rc) return rc;
    if (memcmp(data, "J3D1", 4) != 0 || memcmp(data + 4, btk ? "btk1" : "bck1", 4) != 0)
        return ga_fail(err, GA_ERR_FORMAT, fmt, "magic", 0, "expected 'J3D1%s'", btk ? "btk1" : "bck1");
    j3d_raw *raw = calloc(1, sizeof *raw);
    if (!raw) return ga_nomem(err, fmt);
    raw->btk = btk;
    raw->size_field = ga_get_u32be(data + 8);
    raw->block_count = ga_get_u32be(data + 0x0C);
    memcpy(raw->svr, data + 0x10, 16);
    size_t hsize = btk ? TTK1_HEADER : ANK1_HEADER;
    if (raw->size_field > size) {
        rc = ga_fail(err, GA_ERR_FORMAT, fmt, "file size", 8,
                     "the header says %u bytes but only %zu are present (truncated file?)",
                     raw->size_field, size);
        goto fail;
    }
    if (raw->size_field < 0x20 + hsize) {
        rc = ga_fail(err, GA_ERR_FORMAT, fmt, "file size", 8,
                     "%u bytes is too small for the file and chunk headers", raw->size_field);
        goto fail;
    }
    if (raw->block_count == 0) {
        rc = ga_fail(err, GA_ERR_FORMAT, fmt, "block count", 0x0C, "the file has no blocks");
        goto fail;
    }
    /* Everything the game reads lies inside the size the header states;
     * any bytes after it (archive padding) are kept as a trailer. */
    r.size = raw->size_field;
    const char *cmagic = btk ? "TTK1" : "ANK1";
    if (memcmp(data + 0x20, cmagic, 4) != 0) {
        rc = ga_fail(err, GA_ERR_FORMAT, fmt, "chunk magic", 0x20, "expected a '%s' block first", cmagic);
        goto fail;
    }
    raw->chunk_size_field = ga_get_u32be(data + 0x24);
    const uint8_t *h = data + 0x20;
    raw->loop_raw = h[8];
    raw->frac = h[9];
    raw->duration = (int16_t)ga_get_u16be(h + 0x0A);
    raw->count_field = ga_get_u16be(h + 0x0C);
    uint32_t nscale = ga_get_u16be(h + 0x0E), nrot = ga_get_u16be(h + 0x10), ntrans = ga_get_u16be(h + 0x12);
    sec_offsets o = {0};
    uint32_t n;
    if (!btk) {
        n = raw->count_field;
        o.table = ga_get_u32be(h + 0x14);
        o.scale = ga_get_u32be(h + 0x18);
        o.rot = ga_get_u32be(h + 0x1C);
        o.trans = ga_get_u32be(h + 0x20);
        memcpy(raw->pad24, h + 0x24, 0x1C);
    } else {
        n = raw->count_field / 3u;
        o.table = ga_get_u32be(h + 0x14);
        o.remap = ga_get_u32be(h + 0x18);
        o.names = ga_get_u32be(h + 0x1C);
        o.texmtx = ga_get_u32be(h + 0x20);
        o.center = ga_get_u32be(h + 0x24);
        o.scale = ga_get_u32be(h + 0x28);
        o.rot = ga_get_u32be(h + 0x2C);
        o.trans = ga_get_u32be(h + 0x30);
        raw->post_count_field = ga_get_u16be(h + 0x34);
        raw->calc_type_raw = ga_get_u32be(h + 0x5C);
    }
    rc = read_section(&r, 0x20, btk, 0, n, nscale, nrot, ntrans, &o, 0, &raw->main, err);
    if (rc) goto fail;
    if (btk && raw->post_count_field / 3u > 0) {
        sec_offsets po = {0};
        po.table = ga_get_u32be(h + 0x3C);
        po.remap = ga_get_u32be(h + 0x40);
        po.names = ga_get_u32be(h + 0x44);
        po.texmtx = ga_get_u32be(h + 0x48);
        po.center = ga_get_u32be(h + 0x4C);
        po.scale = ga_get_u32be(h + 0x50);
        po.rot = ga_get_u32be(h + 0x54);
        po.trans = ga_get_u32be(h + 0x58);
        rc = read_section(&r, 0x20, 1, 1, raw->post_count_field / 3u, ga_get_u16be(h + 0x36),
                          ga_get_u16be(h + 0x38), ga_get_u16be(h + 0x3A), &po, 1, &raw->post, err);
        if (rc) goto fail;
        raw->has_post = 1;
    }

    /* Where the chunk ends: the sound block (BCK), the next block, or the
     * end of the file.  The chunk's own size field may be off (the TTK1
     * quirk), so the difference is kept and re-applied on encode. */
    size_t end = raw->size_field;
    if (!btk) {
        uint32_t so = ga_get_u32be(data + 0x1C);
        if (so != NO_SOUND && so >= 0x20 + hsize && so + 8u <= raw->size_field && so <= raw->size_field) {
            uint16_t cnt = ga_get_u16be(data + so);
            if ((size_t)so + 8 + (size_t)cnt * 0x20 <= raw->size_field) {
                raw->sound_len = raw->size_field - so;
                raw->sound = malloc(raw->sound_len);
                if (!raw->sound) { rc = ga_nomem(err, fmt); goto fail; }
                memcpy(raw->sound, data + so, raw->sound_len);
                end = so;
            }
        }
    }
    size_t chunk_end = end;
    if (raw->block_count > 1 && (size_t)0x20 + raw->chunk_size_field >= 0x20 + hsize &&
        (size_t)0x20 + raw->chunk_size_field <= end) {
        chunk_end = 0x20 + (size_t)raw->chunk_size_field;
        raw->extra_len = end - chunk_end;
        raw->extra = malloc(raw->extra_len ? raw->extra_len : 1);
        if (!raw->extra) { rc = ga_nomem(err, fmt); goto fail; }
        memcpy(raw->extra, data + chunk_end, raw->extra_len);
    }
    raw->chunk_size_delta = (long long)raw->chunk_size_field - (long long)(chunk_end - 0x20);
    /* ANK1 value-table alignment the file used: the largest of 32/16/8/4
     * that divides every table offset (32 when there is nothing to judge). */
    raw->align = 32;
    if (!btk) {
        uint32_t offs[3] = {o.scale, o.rot, o.trans};
        uint32_t counts[3] = {nscale, nrot, ntrans};
        uint32_t align = 32;
        for (int i = 0; i < 3; i++) {
            if (!counts[i]) continue;
            while (align > 1 && offs[i] % align) align /= 2;
        }
        raw->align = align < 4 ? 4 : align;
    }
    raw->size = size;
    raw->file = malloc(size ? size : 1);
    if (!raw->file) { rc = ga_nomem(err, fmt); goto fail; }
    memcpy(raw->file, data, size);

    /* The clip */
    ga_clip_init(clip, fmt);
    clip->frame_count = raw->duration;
    clip->fps = 0.0;
    clip->loop = raw->loop_raw <= 4 ? raw->loop_raw : -1;
    clip->loop_raw_valid = 1;
    clip->loop_raw = raw->loop_raw;
    clip->rotation_frac = raw->frac;
    clip->calc_type = btk ? (raw->calc_type_raw == 1 ? 1 : 0) : 0;
    uint32_t total = raw->main.nentries + (raw->has_post ? raw->post.nentries : 0);
    rc = ga_clip_alloc_tracks(clip, total * 9, err);
    if (rc) goto fail_clip;
    /* (tracks may share table values: the sum is checked before decoding,
     * against the absolute limit and then the decoded-size limit) */
    uint64_t nkeys = section_keys(&raw->main) + (raw->has_post ? section_keys(&raw->post) : 0);
    if (nkeys <= GA_MAX_KEYS_TOTAL)
        rc = ga_check_decoded(opts, size, nkeys, GA_KEY_BYTES, "keys", fmt, "key count", 0x20 + (long long)o.table,
                              err);
    if (!rc) rc = ga_clip_reserve_keys(clip, nkeys, total * 9, err);
    if (rc) goto fail_clip;
    rc = section_tracks(clip, &raw->main, raw->frac, 0, clip->tracks, err);
    if (rc) goto fail_clip;
    if (raw->has_post) {
        rc = section_tracks(clip, &raw->post, raw->frac, raw->main.nentries,
                            clip->tracks + (size_t)raw->main.nentries * 9, err);
        if (rc) goto fail_clip;
    }
    if (btk) {
        rc = ga_clip_alloc_entries(clip, total, err);
        if (rc) goto fail_clip;
        rc = section_entries(&raw->main, 0, clip->entries, err);
        if (rc) goto fail_clip;
        if (raw->has_post) {
            rc = section_entries(&raw->post, 1, clip->entries + raw->main.nentries, err);
            if (rc) goto fail_clip;
        }
    }
    *out = raw;
    return GA_OK;

fail_clip:
    ga_clip_free(clip);
fail:
    j3d_free_raw(raw);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Info                                                                */

/* The JSYSTEM header fields every kind reports, in this order. */
static int container_info(ga_info *info, uint32_t size_field, uint32_t blocks, const uint8_t *svr, uint32_t chunk_size,
                          long long chunk_delta, uint8_t loop)
{
    int rc = 0;
    rc |= ga_info_int(info, "file_size", size_field);
    rc |= ga_info_int(info, "block_count", blocks);
    rc |= ga_info_bytes(info, "header_0x10", svr, 16);
    rc |= ga_info_int(info, "chunk_size", chunk_size);
    rc |= ga_info_int(info, "chunk_size_delta", chunk_delta);
    rc |= ga_info_int(info, "loop_mode", loop);
    return rc;
}

int j3d_info(const void *p, ga_info *info, ga_error *err)
{
    const j3d_raw *raw = p;
    (void)err;
    int rc = 0;
    rc |= container_info(info, raw->size_field, raw->block_count, raw->svr, raw->chunk_size_field,
                         raw->chunk_size_delta, raw->loop_raw);
    rc |= ga_info_int(info, "rotation_frac", raw->frac);
    rc |= ga_info_int(info, "duration", raw->duration);
    rc |= ga_info_int(info, raw->btk ? "track_count" : "joint_count", raw->count_field);
    rc |= ga_info_int(info, "scale_count", raw->main.nscale);
    rc |= ga_info_int(info, "rotation_count", raw->main.nrot);
    rc |= ga_info_int(info, "translation_count", raw->main.ntrans);
    if (!raw->btk) {
        uint32_t so = ga_get_u32be(raw->svr + 12);
        rc |= ga_info_int(info, "sound_offset", raw->sound ? (long long)so : -1);
        rc |= ga_info_int(info, "sound_entries", raw->sound ? ga_get_u16be(raw->sound) : 0);
        /* the block itself, verbatim (the game copies it whole; its entries
         * are the sound ids and frames of notes 1.6) */
        rc |= ga_info_bytes(info, "sound_block", raw->sound ? raw->sound : (const uint8_t *)"", raw->sound_len);
        rc |= ga_info_int(info, "table_alignment", raw->align);
    } else {
        rc |= ga_info_int(info, "calc_type", raw->calc_type_raw);
        rc |= ga_info_int(info, "post_track_count", raw->post_count_field);
        const uint8_t *h = raw->file + 0x20;
        rc |= ga_info_bytes(info, "post_header", h + 0x34, 0x28);
        int identity = 1;
        for (uint32_t i = 0; i < raw->main.nentries; i++)
            if (raw->main.remap[i] != i) identity = 0;
        rc |= ga_info_int(info, "material_ids_identity", identity);
        /* the material id table (mUpdateMaterialID) as the file stores it:
         * big-endian u16, one per texture-matrix animation */
        uint8_t *ids = malloc((size_t)raw->main.nentries * 2 + 1);
        if (!ids) return GA_ERR_NOMEM;
        for (uint32_t i = 0; i < raw->main.nentries; i++) {
            ids[2 * i] = (uint8_t)(raw->main.remap[i] >> 8);
            ids[2 * i + 1] = (uint8_t)raw->main.remap[i];
        }
        rc |= ga_info_bytes(info, "material_ids", ids, (size_t)raw->main.nentries * 2);
        free(ids);
        int hashes_ok = 1;
        if (raw->main.ntab)
            for (uint32_t i = 0; i < raw->main.nentries; i++)
                if (ga_get_u16be(raw->main.ntab + 4 + i * 4) != j3d_name_hash(raw->main.names[i]))
                    hashes_ok = 0;
        rc |= ga_info_int(info, "name_hashes_valid", hashes_ok);
    }
    rc |= ga_info_int(info, "trailing_bytes", (long long)(raw->size - raw->size_field));
    return rc ? GA_ERR_NOMEM : GA_OK;
}

/* ------------------------------------------------------------------ */
/* Sampling                                                            */

/* Raw s16 range a rotation value needs at a given unit. */
static double raw_of(double v, double unit) { return nearbyint(v / unit); }

static int track_fits_frac(const ga_track *t, int frac)
{
    double unit = j3d_rotation_unit(frac);
    for (uint32_t k = 0; k < t->nkeys; k++) {
        double vals[3] = {t->value[k], t->in_slope[k], t->out_slope[k]};
        for (int j = 0; j < 3; j++) {
            if (!isfinite(vals[j])) return 0;
            double q = raw_of(vals[j], unit);
            if (q < -32768.0 || q > 32767.0) return 0;
        }
    }
    return 1;
}

/* Smallest shift (from `from`) at which every rotation track fits s16. */
static int choose_frac(const ga_clip *clip, int from)
{
    for (int frac = from; frac < 16; frac++) {
        int ok = 1;
        for (uint32_t i = 0; i < clip->ntracks && ok; i++)
            if (clip->tracks[i].channel == GA_CH_ROTATION && !track_fits_frac(&clip->tracks[i], frac))
                ok = 0;
        if (ok) return frac;
    }
    return -1;
}

static int clip_frac(const ga_clip *clip)
{
    if (clip->rotation_frac >= 0) return clip->rotation_frac;
    int f = choose_frac(clip, 0);
    return f < 0 ? 15 : f;
}

/* The runtime's two Hermite routines, operation for operation in single
 * precision with the fused multiply-adds of the PowerPC code, so that
 * sampled values are bit-identical to the game's (and rotations truncate
 * exactly where the game's do).  Both evaluate the same cubic; only the
 * order of operations (and so the rounding) differs.  (setup.py compiles
 * with -ffp-contract=off: the compiler must not fuse or split anything
 * else.)
 *
 * The fused multiply-adds are exact (core/fma.h: never the C library's
 * fmaf, which mingw-w64 gets wrong), in one of two builds of the routines
 * (j3d_hermite.h, included twice): with the FMA instruction, picked at run
 * time on x86-64 CPUs that have it (GCC or Clang, not macOS), and the
 * exact software fused multiply-add for the rest.  Their results are
 * bit-identical; the instruction is about three times faster. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__FMA__) && !defined(__APPLE__) && \
    !defined(GA_NO_FMA_DISPATCH)
#define J3D_FMA_DISPATCH 1
#endif

#define J3D_V(name) name##_sw
#define J3D_FMA(a, b, c) ga_fmaf(a, b, c)
#define J3D_ATTR
#include "j3d_hermite.h"
#undef J3D_V
#undef J3D_FMA
#undef J3D_ATTR
#ifdef J3D_FMA_DISPATCH
#define J3D_V(name) name##_hw
#define J3D_FMA(a, b, c) __builtin_fmaf(a, b, c)
#define J3D_ATTR __attribute__((target("fma")))
#include "j3d_hermite.h"
#undef J3D_V
#undef J3D_FMA
#undef J3D_ATTR
#endif

/* out[i]: the game's evaluation of the track (keys as the game stores
 * them) at frames[i]; s16_table: J3DHermiteInterpolationS. */
static void game_eval_many(const ga_track *t, const double *frames, size_t n, float *out, int s16_table)
{
#ifdef J3D_FMA_DISPATCH
    if (__builtin_cpu_supports("fma")) {
        game_eval_many_hw(t, frames, n, out, s16_table);
        return;
    }
#endif
    game_eval_many_sw(t, frames, n, out, s16_table);
}

/* PowerPC fctiwz: truncation toward zero, saturating, NaN -> INT32_MIN. */
static inline int32_t ppc_trunc_s32(float x)
{
    if (isnan(x)) return INT32_MIN;
    if (x >= 2147483647.0f) return INT32_MAX;
    if (x <= -2147483648.0f) return INT32_MIN;
    return (int32_t)x;
}

int j3d_sample(const ga_clip *clip, uint32_t ti, const double *frames, size_t n, float *out,
                              ga_error *err)
{
    const ga_track *t = &clip->tracks[ti];
    if (t->nkeys == 0) {
        float d = ga_channel_default(t->channel, t->axis);
        for (size_t i = 0; i < n; i++) out[i] = d;
        return GA_OK;
    }
    if (t->channel != GA_CH_ROTATION) {
        if (t->nkeys == 1)
            for (size_t i = 0; i < n; i++) out[i] = t->value[0];
        else
            game_eval_many(t, frames, n, out, 0);
        return GA_OK;
    }
    /* Rotations: the keys as the file stores them (whole raw units), the
     * raw curve truncated toward zero, then shifted (0x8000 = pi). */
    int frac = clip_frac(clip);
    double unit = j3d_rotation_unit(frac);
    ga_track q;
    int rc = ga_track_copy(&q, t, err);
    if (rc) return rc;
    for (uint32_t k = 0; k < q.nkeys; k++) {
        q.time[k] = (float)nearbyint(q.time[k]);
        q.value[k] = (float)raw_of(q.value[k], unit);
        q.in_slope[k] = (float)raw_of(q.in_slope[k], unit);
        q.out_slope[k] = (float)raw_of(q.out_slope[k], unit);
    }
    /* The game keeps (s16)(raw << shift): the angle modulo one turn.  The
     * unwrapped raw x unit is that angle plus whole turns, continuous along
     * the curve, but at large shifts it is so large that float32 loses the
     * angle (0.02 rad at shift 15).  So the track's curve is returned less a
     * whole number of turns fixed for the track (the first key's), exact in
     * double: still continuous, and small wherever the curve stays near its
     * first key.  The PowerPC shift (slw) counts with the low 6 bits of
     * the shift byte: shifts 16..63 leave no bits in the s16 (the game's
     * angle is always 0), and 64 and up act as their low 6 bits. */
    int eff = frac & 63;
    double gunit = j3d_rotation_unit(eff);
    double turns = 0.0;
    if (eff < 16 && fabs(q.value[0] * gunit) >= 64.0) turns = nearbyint(q.value[0] * gunit / (2.0 * M_PI_J3D));
    if (q.nkeys > 1) game_eval_many(&q, frames, n, out, 1);
    for (size_t i = 0; i < n; i++) {
        double raw = q.nkeys == 1 ? q.value[0] : (double)ppc_trunc_s32(out[i]);
        out[i] = eff >= 16 ? 0.0f : (float)(raw * gunit - turns * (2.0 * M_PI_J3D));
    }
    ga_track_free(&q);
    return GA_OK;
}

/* Track.evaluate of a track decoded from a BCK / BTK: the same game
 * evaluation as j3d_sample (so the two agree bit for bit, non-finite
 * results included), with the rotation shift of the track's file. */
int j3d_eval_track(const ga_track *t, int rotation_frac, const double *frames, size_t n, float *out,
                   ga_error *err)
{
    ga_clip one;
    memset(&one, 0, sizeof one);
    one.tracks = (ga_track *)t; /* (only read) */
    one.ntracks = 1;
    one.rotation_frac = rotation_frac;
    return j3d_sample(&one, 0, frames, n, out, err);
}

/* ------------------------------------------------------------------ */
/* Encoding                                                            */

typedef j3d_seq seq_buf;

int j3d_seq_push(seq_buf *s, uint32_t x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        uint32_t *v = realloc(s->v, cap * 4);
        if (!v) return GA_ERR_NOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return GA_OK;
}

/* Original element run of a descriptor. */
static int raw_run(const j3d_section *s, uint32_t ch, const j3d_desc *d, seq_buf *seq)
{
    size_t len = d->count == 0 ? 0 : d->count == 1 ? 1 : (size_t)d->count * (d->type == 0 ? 3 : 4);
    for (size_t i = 0; i < len; i++) {
        uint32_t x = ch == 0 ? s->scale[d->index + i]
                   : ch == 1 ? (uint16_t)s->rot[d->index + i]
                             : s->trans[d->index + i];
        if (j3d_seq_push(seq, x)) return GA_ERR_NOMEM;
    }
    return GA_OK;
}

typedef struct jkey {
    double t, v, in, out;
} jkey;

/* The encoder's `btk` argument names the kind: 0 BCK, 1 BTK, or the
 * colour kinds J3D_KIND_BRK / J3D_KIND_BPK (s16 tables in colour units). */
static const char *kind_fmt(int btk)
{
    return btk == J3D_KIND_BRK ? "brk" : btk == J3D_KIND_BPK ? "bpk" : btk ? "btk" : "bck";
}

static void track_name(char *buf, size_t cap, int btk, const ga_track *t)
{
    /* called before the channel is validated: name a quaternion too */
    const char *ch = t->channel < 3 ? channel_names[t->channel] : t->channel == GA_CH_COLOR ? "color" : "rotation_quaternion";
    if (t->channel == GA_CH_COLOR)
        snprintf(buf, cap, "entry %d color %c", t->target, "RGBA"[t->axis % 4]);
    else if (btk)
        snprintf(buf, cap, "entry %d %s %c", t->target, ch, "STQW"[t->axis % 4]);
    else
        snprintf(buf, cap, "joint %d %s %c", t->target, ch, "XYZW"[t->axis % 4]);
}

/* Converts a track into J3D keys: linear segments become Hermite segments
 * with matching slopes, constant segments get a step key. */
static int track_keys(const ga_track *t, jkey **out, size_t *nout)
{
    size_t n = t->nkeys;
    jkey *k = malloc((2 * n + 1) * sizeof *k);
    if (!k) return GA_ERR_NOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        jkey *ki = &k[m++]; /* key i (a step key may follow it) */
        ki->t = t->time[i];
        ki->v = t->value[i];
        ki->in = t->in_slope[i];
        ki->out = t->out_slope[i];
        if (i > 0 && t->interp[i - 1] == GA_INTERP_LINEAR) {
            double dt = (double)t->time[i] - t->time[i - 1];
            ki->in = dt != 0.0 ? ((double)t->value[i] - t->value[i - 1]) / dt : 0.0;
        } else if (i > 0 && t->interp[i - 1] == GA_INTERP_CONSTANT) {
            ki->in = 0.0;
        }
        if (i + 1 < n) {
            double dt = (double)t->time[i + 1] - t->time[i];
            if (t->interp[i] == GA_INTERP_LINEAR) {
                ki->out = dt != 0.0 ? ((double)t->value[i + 1] - t->value[i]) / dt : 0.0;
            } else if (t->interp[i] == GA_INTERP_CONSTANT) {
                ki->out = 0.0;
                jkey *step = &k[m++]; /* holds the value up to the next key */
                step->t = t->time[i + 1];
                step->v = t->value[i];
                step->in = 0.0;
                step->out = 0.0;
            }
        }
    }
    *out = k;
    *nout = m;
    return GA_OK;
}

/* Encodes one track into an element run; sets count and tangent type. */
static int encode_track_keys(const ga_track *t, int btk, int frac, int orig_type, seq_buf *seq,
                             uint16_t *count, uint16_t *type, ga_report *rep, ga_error *err);

/* Key reduction for baked data: a track whose keys are all joined by
 * straight lines (one key per frame, as a bake produces) is replaced by
 * Hermite keys fitted within the tolerance. */
static int encode_track(const ga_track *t, int btk, int frac, int orig_type, double tolerance, seq_buf *seq,
                        uint16_t *count, uint16_t *type, ga_report *rep, ga_error *err)
{
    int dense = tolerance > 0.0 && t->nkeys >= 3;
    for (uint32_t k = 0; dense && k + 1 < t->nkeys; k++)
        if (t->interp[k] != GA_INTERP_LINEAR || !(t->time[k + 1] > t->time[k])) dense = 0;
    if (!dense) return encode_track_keys(t, btk, frac, orig_type, seq, count, type, rep, err);
    /* A sampled track may carry the slopes of the curve it was sampled
     * from (an exporter knows them); then they guide the fit. */
    int has_slopes = 0;
    for (uint32_t k = 0; k < t->nkeys && !has_slopes; k++)
        if (t->in_slope[k] != 0.0f || t->out_slope[k] != 0.0f) has_slopes = 1;
    size_t nb = t->nkeys * sizeof(double);
    double *tt = malloc(nb), *vv = malloc(nb), *si = malloc(nb), *so = malloc(nb);
    if (!tt || !vv || !si || !so) {
        free(tt);
        free(vv);
        free(si);
        free(so);
        return ga_nomem(err, kind_fmt(btk));
    }
    for (uint32_t k = 0; k < t->nkeys; k++) {
        tt[k] = t->time[k];
        vv[k] = t->value[k];
        si[k] = t->in_slope[k];
        so[k] = t->out_slope[k];
    }
    ga_track fitted;
    memset(&fitted, 0, sizeof fitted);
    int rc = ga_fit_hermite(tt, vv, has_slopes ? si : NULL, has_slopes ? so : NULL, t->nkeys, tolerance, &fitted,
                            err);
    free(tt);
    free(vv);
    free(si);
    free(so);
    if (rc) return rc;
    fitted.target = t->target;
    fitted.channel = t->channel;
    fitted.axis = t->axis;
    rc = encode_track_keys(&fitted, btk, frac, orig_type, seq, count, type, rep, err);
    ga_track_free(&fitted);
    return rc;
}

/* Whether storing `back` for the value v rounds it beyond float noise: a
 * decoded value (the float32 of its step) or one computed in float32 from
 * whole steps lies within a few float32 ulps of the step, and is not
 * reported as rounded. */
static int beyond_float_noise(double v, double back)
{
    return fabs(v - back) > 4.0 * FLT_EPSILON * fmax(fabs(back), fabs(v));
}

static int encode_track_keys(const ga_track *t, int btk, int frac, int orig_type, seq_buf *seq,
                             uint16_t *count, uint16_t *type, ga_report *rep, ga_error *err)
{
    const char *fmt = kind_fmt(btk);
    char name[96];
    track_name(name, sizeof name, btk, t);
    /* rotations and colours live in s16 tables (colours in their own units) */
    int rot = t->channel == GA_CH_ROTATION || t->channel == GA_CH_COLOR;
    double unit = t->channel == GA_CH_COLOR ? 1.0 : j3d_rotation_unit(frac);
    *type = 0;
    if (t->nkeys == 0) {
        *count = 0;
        return GA_OK;
    }
    if (t->nkeys == 1) {
        *count = 1;
        if (rot) {
            double q = raw_of(t->value[0], unit);
            if (!(q >= -32768.0 && q <= 32767.0)) {
                if (t->channel == GA_CH_COLOR)
                    return ga_fail(err, GA_ERR_ENCODE, fmt, name, -1, "colour %g does not fit an s16", t->value[0]);
                return ga_fail(err, GA_ERR_ENCODE, fmt, name, -1,
                               "rotation %g rad does not fit an s16 at rotation shift %d", t->value[0], frac);
            }
            if (beyond_float_noise(t->value[0], q * unit)) rep->nrounded++;
            ga_report_error(rep, t->value[0] - q * unit, "%s frame 0", name);
            return j3d_seq_push(seq, (uint16_t)(int16_t)q);
        }
        return j3d_seq_push(seq, ga_f32_bits(t->value[0]));
    }
    jkey *k;
    size_t n;
    if (track_keys(t, &k, &n)) return ga_nomem(err, fmt);
    if (n > 65535) {
        free(k);
        return ga_fail(err, GA_ERR_ENCODE, fmt, name, -1, "%zu keys exceed the 65535 a key table holds", n);
    }
    int symmetric = 1;
    for (size_t i = 0; i < n; i++)
        if (ga_f32_bits((float)k[i].in) != ga_f32_bits((float)k[i].out) &&
            !(rot && raw_of(k[i].in, unit) == raw_of(k[i].out, unit)))
            symmetric = 0;
    /* Tangent type: keep a file's type 1; otherwise 0 when one tangent per
     * key says everything. */
    int tt = (orig_type > 0 || !symmetric) ? 1 : 0;
    *type = (uint16_t)(orig_type > 0 ? orig_type : tt);
    *count = (uint16_t)n;
    int rc = GA_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        double e[4] = {k[i].t, k[i].v, k[i].in, k[i].out};
        int ne = tt ? 4 : 3;
        for (int j = 0; j < ne && !rc; j++) {
            if (rot) {
                double q = j == 0 ? nearbyint(e[j]) : raw_of(e[j], unit);
                if (!(q >= -32768.0 && q <= 32767.0)) {
                    if (t->channel == GA_CH_COLOR)
                        rc = ga_fail(err, GA_ERR_ENCODE, fmt, name, -1, "key %zu at frame %g: %s %g does not fit an s16",
                                     i, k[i].t, j == 0 ? "time" : j == 1 ? "value" : "slope", e[j]);
                    else
                        rc = ga_fail(err, GA_ERR_ENCODE, fmt, name, -1,
                                     "key %zu at frame %g: %s %g does not fit an s16 at rotation shift %d", i, k[i].t,
                                     j == 0 ? "time" : j == 1 ? "value" : "slope", e[j], frac);
                    break;
                }
                double back = j == 0 ? q : q * unit;
                if (beyond_float_noise(e[j], back)) {
                    rep->nrounded++;
                    if (j == 0)
                        ga_report_note(rep, "%s: key time %g rounded to the whole frame %g (rotation keys store s16 frames)",
                                       name, e[j], q);
                }
                if (j == 1) ga_report_error(rep, e[j] - back, "%s frame %g", name, k[i].t);
                rc = j3d_seq_push(seq, (uint16_t)(int16_t)q);
            } else {
                rc = j3d_seq_push(seq, ga_f32_bits((float)e[j]));
            }
        }
    }
    free(k);
    if (rc == GA_ERR_NOMEM) return ga_nomem(err, fmt);
    return rc;
}

void j3d_put_padding(ga_buf *b, size_t align)
{
    size_t pad = (align - (b->len % align)) % align;
    /* Nintendo's tools pad with the first bytes of this sentence; pads
     * longer than it repeat it. */
    size_t textlen = sizeof j3d_padding_text - 1;
    for (size_t i = 0; i < pad; i++) ga_buf_u8(b, (uint8_t)j3d_padding_text[i % textlen]);
}

typedef struct built_section {
    uint32_t n;
    j3d_desc *desc;
    ga_pool tab[3];
} built_section;

static void built_free(built_section *b)
{
    free(b->desc);
    for (int i = 0; i < 3; i++) ga_pool_free(&b->tab[i]);
    memset(b, 0, sizeof *b);
}

static int build_section(const ga_encode_ctx *ctx, int btk, const j3d_section *rawsec,
                         uint32_t first_target, uint32_t n, const int32_t *slot_track,
                         int frac, int frac_changed, built_section *out, ga_error *err)
{
    const char *fmt = btk ? "btk" : "bck";
    const ga_clip *clip = ctx->clip;
    memset(out, 0, sizeof *out);
    out->n = n;
    out->desc = calloc((size_t)n * 9 + 1, sizeof *out->desc);
    if (!out->desc) return ga_nomem(err, fmt);
    for (int i = 0; i < 3; i++)
        if (ga_pool_init(&out->tab[i], SIZE_MAX)) return ga_nomem(err, fmt);
    seq_buf seq = {0};
    int rc = GA_OK;
    for (uint32_t e = 0; e < n && !rc; e++) {
        for (uint32_t slot = 0; slot < 9 && !rc; slot++) {
            uint32_t axis = slot / 3, ch = slot % 3;
            int32_t ti = slot_track[(size_t)(first_target + e) * 9 + ch * 3 + axis];
            j3d_desc d = {0, 0, 0};
            const j3d_desc *od = NULL;
            if (rawsec && e < rawsec->nentries) od = &rawsec->desc[e * 9 + slot];
            seq.n = 0;
            int reuse = 0;
            if (ti >= 0 && ctx->raw && ctx->orig_track[ti] >= 0 && od &&
                (ch != GA_CH_ROTATION || !frac_changed)) {
                /* the original track of this very slot, unchanged */
                const ga_track *ot = &ctx->orig->tracks[ctx->orig_track[ti]];
                if ((uint32_t)ot->target == first_target + e && ot->channel == ch && ot->axis == axis)
                    reuse = 1;
            }
            if (ti < 0) {
                d.count = 0;
                d.index = od && od->count == 0 ? od->index : 0;
                d.type = od && od->count == 0 ? od->type : 0;
            } else if (reuse) {
                d = *od;
                rc = raw_run(rawsec, ch, od, &seq);
                if (rc) { rc = ga_nomem(err, fmt); break; }
                ctx->report->reused_tracks++;
            } else {
                int orig_type = od && od->count >= 2 ? od->type : -1;
                rc = encode_track(&clip->tracks[ti], btk, frac, orig_type, ctx->tolerance, &seq, &d.count,
                                  &d.type, ctx->report, err);
                if (rc) break;
                if (d.count == 1 && od && od->count == 1) d.type = od->type; /* ignored by the game; keep */
                ctx->report->encoded_tracks++;
            }
            if (d.count > 0) {
                long long at = ga_pool_place(&out->tab[ch], seq.v, seq.n);
                if (at < 0) { rc = ga_nomem(err, fmt); break; }
                if (at > 0xFFFF) {
                    char name[96];
                    desc_field(name, sizeof name, btk, e, rawsec == NULL ? 0 : 0, slot);
                    rc = ga_fail(err, GA_ERR_ENCODE, fmt, name, -1,
                                 "the %s value table outgrew the 65536 elements a u16 index reaches",
                                 channel_names[ch]);
                    break;
                }
                d.index = (uint16_t)at;
            }
            out->desc[e * 9 + slot] = d;
        }
    }
    free(seq.v);
    if (!rc) {
        for (int i = 0; i < 3; i++)
            if (out->tab[i].n > 0xFFFF) {
                rc = ga_fail(err, GA_ERR_ENCODE, fmt, channel_names[i], -1,
                             "the %s value table has %zu elements; its count field holds 65535",
                             channel_names[i], out->tab[i].n);
                break;
            }
    }
    return rc;
}

static void put_desc_table(ga_buf *b, const built_section *s)
{
    for (size_t i = 0; i < (size_t)s->n * 9; i++) {
        ga_buf_u16be(b, s->desc[i].count);
        ga_buf_u16be(b, s->desc[i].index);
        ga_buf_u16be(b, s->desc[i].type);
    }
}

static void put_value_table(ga_buf *b, const ga_pool *t, int is_rot)
{
    for (size_t i = 0; i < t->n; i++) {
        if (is_rot) ga_buf_u16be(b, (uint16_t)t->v[i]);
        else ga_buf_u32be(b, t->v[i]);
    }
}

static int names_equal(const j3d_section *s, const ga_clip *clip, uint32_t first, uint32_t n)
{
    if (!s || s->nentries != n || !s->names) return 0;
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(s->names[i], clip->entries[first + i].name ? clip->entries[first + i].name : "") != 0)
            return 0;
    return 1;
}

void j3d_put_names(ga_buf *b, const char *const *names, uint32_t n)
{
    ga_buf_u16be(b, (uint16_t)n);
    ga_buf_u16be(b, 0xFFFF);
    size_t off = 4 + (size_t)n * 4;
    for (uint32_t i = 0; i < n; i++) {
        const char *nm = names[i] ? names[i] : "";
        ga_buf_u16be(b, j3d_name_hash(nm));
        ga_buf_u16be(b, (uint16_t)off);
        off += strlen(nm) + 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *nm = names[i] ? names[i] : "";
        ga_buf_put(b, nm, strlen(nm) + 1);
    }
}

static void put_name_table(ga_buf *b, const j3d_section *rawsec, const ga_clip *clip, uint32_t first,
                           uint32_t n)
{
    if (names_equal(rawsec, clip, first, n) && rawsec->ntab) {
        ga_buf_put(b, rawsec->ntab, rawsec->ntab_len);
        return;
    }
    const char **names = malloc(((size_t)n + 1) * sizeof *names);
    if (!names) {
        b->failed = 1;
        return;
    }
    for (uint32_t i = 0; i < n; i++) names[i] = clip->entries[first + i].name;
    j3d_put_names(b, names, n);
    free(names);
}

static int entries_equal(const ga_clip *a, const ga_clip *b)
{
    if (a->nentries != b->nentries) return 0;
    for (uint32_t i = 0; i < a->nentries; i++) {
        const ga_entry *x = &a->entries[i], *y = &b->entries[i];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0) return 0;
        if (x->texmtx_id != y->texmtx_id || x->post != y->post) return 0;
        if (memcmp(x->center, y->center, sizeof x->center) != 0) return 0;
    }
    return 1;
}

static int loop_byte(const ga_encode_ctx *ctx, uint8_t *out, ga_error *err, const char *fmt)
{
    const ga_clip *c = ctx->clip;
    if (ctx->orig && c->loop == ctx->orig->loop && c->loop_raw_valid) {
        *out = (uint8_t)c->loop_raw;
        return GA_OK;
    }
    if (c->loop < 0) {
        *out = 0;
        return GA_OK;
    }
    if (c->loop > 4) return ga_fail(err, GA_ERR_ENCODE, fmt, "loop mode", -1, "loop mode %d is not 0..4", c->loop);
    *out = (uint8_t)c->loop;
    return GA_OK;
}

static int duration_field(const ga_clip *c, int16_t *out, ga_report *rep, ga_error *err, const char *fmt)
{
    double d = c->frame_count;
    if (!isfinite(d) || nearbyint(d) < -32768.0 || nearbyint(d) > 32767.0)
        return ga_fail(err, GA_ERR_ENCODE, fmt, "duration", -1,
                       "frame count %g does not fit the s16 duration field", d);
    if (nearbyint(d) != d) ga_report_note(rep, "frame count %g rounded to %g (the duration is whole frames)", d, nearbyint(d));
    *out = (int16_t)nearbyint(d);
    return GA_OK;
}

static uint32_t calc_type_field(const ga_encode_ctx *ctx)
{
    const j3d_raw *raw = ctx->raw;
    if (raw && ctx->orig && ctx->clip->calc_type == ctx->orig->calc_type) return raw->calc_type_raw;
    return (uint32_t)(ctx->clip->calc_type ? 1 : 0);
}

/* Header-only edits: patch the original bytes. */
static int encode_patch(const ga_encode_ctx *ctx, int btk, ga_buf *out, ga_error *err)
{
    const j3d_raw *raw = ctx->raw;
    const char *fmt = btk ? "btk" : "bck";
    uint8_t loop = 0;
    int16_t dur = 0;
    int rc = loop_byte(ctx, &loop, err, fmt);
    if (rc) return rc;
    rc = duration_field(ctx->clip, &dur, ctx->report, err, fmt);
    if (rc) return rc;
    if (ga_buf_put(out, raw->file, raw->size)) return ga_nomem(err, fmt);
    out->data[0x28] = loop;
    ga_buf_set_u16be(out, 0x2A, (uint16_t)dur);
    if (btk) ga_buf_set_u32be(out, 0x20 + 0x5C, calc_type_field(ctx));
    ctx->report->reused_tracks = ctx->clip->ntracks;
    return GA_OK;
}

int j3d_encode(const ga_encode_ctx *ctx, int btk, ga_buf *out, ga_error *err)
{
    const char *fmt = btk ? "btk" : "bck";
    const ga_clip *clip = ctx->clip;
    const j3d_raw *raw = ctx->raw;
    int rc;

    /* Which slot every track fills. */
    uint32_t n_total = 0;
    for (uint32_t i = 0; i < clip->ntracks; i++) {
        const ga_track *t = &clip->tracks[i];
        char name[96];
        track_name(name, sizeof name, btk, t);
        if (t->target_name)
            return ga_fail(err, GA_ERR_ENCODE, fmt, "track target", -1,
                           "track %u targets '%s' by name; %s targets are %s indices", i, t->target_name,
                           fmt, btk ? "entry" : "joint");
        if (t->target < 0 || t->target > 0xFFFE)
            return ga_fail(err, GA_ERR_ENCODE, fmt, "track target", -1, "track %u: target %d is out of range",
                           i, t->target);
        if (t->channel > GA_CH_TRANSLATION || t->axis > 2)
            return ga_fail(err, GA_ERR_ENCODE, fmt, name, -1,
                           "track %u: %s holds scale, Euler rotation and translation on axes 0..2", i, fmt);
        if ((uint32_t)t->target + 1 > n_total) n_total = (uint32_t)t->target + 1;
    }
    uint32_t n_main = n_total, n_post = 0;
    if (btk) {
        if (n_total > clip->nentries)
            return ga_fail(err, GA_ERR_ENCODE, fmt, "entries", -1,
                           "a track targets entry %u but only %u entries (materials) are defined",
                           n_total - 1, clip->nentries);
        n_total = clip->nentries;
        n_main = 0;
        while (n_main < n_total && !clip->entries[n_main].post) n_main++;
        for (uint32_t i = n_main; i < n_total; i++)
            if (!clip->entries[i].post)
                return ga_fail(err, GA_ERR_ENCODE, fmt, "entries", -1,
                               "entry %u is a main entry after post-texgen entries; post entries go last", i);
        n_post = n_total - n_main;
        for (uint32_t i = 0; i < n_total; i++)
            if (clip->entries[i].texmtx_id < 0 || clip->entries[i].texmtx_id > 255)
                return ga_fail(err, GA_ERR_ENCODE, fmt, "texture matrix id", -1,
                               "entry %u: texture matrix id %d is not 0..255", i, clip->entries[i].texmtx_id);
        if (n_main > 0xFFFF / 3 || n_post > 0xFFFF / 3)
            return ga_fail(err, GA_ERR_ENCODE, fmt, "entries", -1, "too many texture-matrix animations");
    } else if (raw && raw->main.nentries > n_total) {
        n_total = n_main = raw->main.nentries; /* keep the joint count when trailing joints lost their tracks */
    }
    if (!btk && n_total > 0xFFFF)
        return ga_fail(err, GA_ERR_ENCODE, fmt, "joint count", -1, "%u joints exceed 65535", n_total);

    int32_t *slot = malloc(((size_t)n_total * 9 + 1) * sizeof *slot);
    if (!slot) return ga_nomem(err, fmt);
    for (size_t i = 0; i < (size_t)n_total * 9; i++) slot[i] = -1;
    for (uint32_t i = 0; i < clip->ntracks; i++) {
        const ga_track *t = &clip->tracks[i];
        size_t s = (size_t)t->target * 9 + (size_t)t->channel * 3 + t->axis;
        if (slot[s] >= 0) {
            char name[96];
            track_name(name, sizeof name, btk, t);
            int32_t first = slot[s];
            free(slot);
            return ga_fail(err, GA_ERR_ENCODE, fmt, name, -1, "two tracks (%d and %u) animate the same channel",
                           first, i);
        }
        slot[s] = (int32_t)i;
    }

    /* Unchanged tracks and entries: patch the header fields in place. */
    int frac_same = !raw || clip->rotation_frac == raw->frac;
    if (raw && frac_same && clip->ntracks == ctx->orig->ntracks && (!btk || entries_equal(clip, ctx->orig))) {
        int same = 1;
        for (uint32_t i = 0; i < clip->ntracks && same; i++)
            if (ctx->orig_track[i] != (int32_t)i) same = 0;
        if (same) {
            free(slot);
            return encode_patch(ctx, btk, out, err);
        }
    }

    /* Rotation shift */
    int frac;
    int frac_changed = 0;
    if (clip->rotation_frac >= 0) {
        frac = clip->rotation_frac;
        if (frac > 15) {
            free(slot);
            return ga_fail(err, GA_ERR_ENCODE, fmt, "rotation shift", -1, "rotation shift %d is over 15", frac);
        }
        if (raw && frac == (int)raw->frac) {
            /* The file's own shift grows when an edited value no longer
             * fits (the note below reports it); a shift the user chose
             * stays, and a value that does not fit it is an error. */
            int grown = choose_frac(clip, frac);
            if (grown > frac) frac = grown;
        }
    } else {
        frac = choose_frac(clip, raw ? raw->frac : 0);
        if (frac < 0) {
            free(slot);
            return ga_fail(err, GA_ERR_ENCODE, fmt, "rotation", -1,
                           "a rotation value or slope is too large (or not finite) for any rotation shift");
        }
    }
    if (raw && frac != raw->frac) {
        frac_changed = 1;
        ga_report_note(ctx->report, "rotation shift changed from %u to %d; all rotation tracks were re-quantised",
                       raw->frac, frac);
    }

    uint8_t loop = 0;
    int16_t dur = 0;
    rc = loop_byte(ctx, &loop, err, fmt);
    if (!rc) rc = duration_field(clip, &dur, ctx->report, err, fmt);
    if (rc) {
        free(slot);
        return rc;
    }

    built_section bm, bp;
    memset(&bp, 0, sizeof bp);
    uint32_t rounded_before = ctx->report ? ctx->report->nrounded : 0;
    rc = build_section(ctx, btk, raw ? &raw->main : NULL, 0, n_main, slot, frac, frac_changed, &bm, err);
    if (!rc && n_post)
        rc = build_section(ctx, btk, raw && raw->has_post ? &raw->post : NULL, n_main, n_post, slot, frac,
                           frac_changed, &bp, err);
    free(slot);
    if (rc) {
        built_free(&bm);
        built_free(&bp);
        return rc;
    }
    /* Rotations (values, slopes, key times) that the s16 table could not
     * hold: a note, hence a PrecisionWarning, as BCA and JBA give. */
    if (ctx->report && ctx->report->nrounded > rounded_before)
        ga_report_note(ctx->report,
                       "%u rotation number(s) rounded to the 16-bit rotation table (one step is %g rad at rotation "
                       "shift %d; key times to whole frames); worst error %g at %s",
                       (unsigned)(ctx->report->nrounded - rounded_before), j3d_rotation_unit(frac), frac,
                       ctx->report->max_error, ctx->report->max_error_where[0] ? ctx->report->max_error_where : "-");

    /* ---- layout ---- */
    ga_buf *b = out;
    ga_buf_put(b, "J3D1", 4);
    ga_buf_put(b, btk ? "btk1" : "bck1", 4);
    ga_buf_u32be(b, 0); /* file size, patched */
    ga_buf_u32be(b, raw ? raw->block_count : 1);
    if (raw) {
        ga_buf_put(b, raw->svr, 16);
    } else if (btk) {
        ga_buf_put(b, "SVR1", 4);
        ga_buf_fill(b, 0xFF, 12);
    } else {
        ga_buf_fill(b, 0xFF, 16);
    }
    size_t c0 = b->len; /* 0x20 */
    ga_buf_put(b, btk ? "TTK1" : "ANK1", 4);
    ga_buf_u32be(b, 0); /* chunk size, patched */
    ga_buf_u8(b, loop);
    ga_buf_u8(b, (uint8_t)frac);
    ga_buf_u16be(b, (uint16_t)dur);
    uint16_t count_field;
    if (btk) count_field = (raw && raw->main.nentries == n_main) ? raw->count_field : (uint16_t)(n_main * 3);
    else count_field = (uint16_t)n_main;
    ga_buf_u16be(b, count_field);
    ga_buf_u16be(b, (uint16_t)bm.tab[0].n);
    ga_buf_u16be(b, (uint16_t)bm.tab[1].n);
    ga_buf_u16be(b, (uint16_t)bm.tab[2].n);
    size_t hdr_offsets = b->len; /* 0x14 */
    if (!btk) {
        ga_buf_fill(b, 0, 16);
        if (raw) ga_buf_put(b, raw->pad24, 0x1C);
        else ga_buf_put(b, j3d_padding_text, 0x1C);
        uint32_t align = raw ? raw->align : 32;
        size_t o_table = b->len - c0;
        put_desc_table(b, &bm);
        j3d_put_padding(b, align);
        size_t o_scale = b->len - c0;
        put_value_table(b, &bm.tab[0], 0);
        j3d_put_padding(b, align);
        size_t o_rot = b->len - c0;
        put_value_table(b, &bm.tab[1], 1);
        j3d_put_padding(b, align);
        size_t o_trans = b->len - c0;
        put_value_table(b, &bm.tab[2], 0);
        j3d_put_padding(b, 32);
        ga_buf_set_u32be(b, hdr_offsets, (uint32_t)o_table);
        ga_buf_set_u32be(b, hdr_offsets + 4, (uint32_t)o_scale);
        ga_buf_set_u32be(b, hdr_offsets + 8, (uint32_t)o_rot);
        ga_buf_set_u32be(b, hdr_offsets + 12, (uint32_t)o_trans);
    } else {
        ga_buf_fill(b, 0, 0x60 - 0x14);
        ga_buf_set_u32be(b, c0 + 0x5C, calc_type_field(ctx));
        const built_section *secs[2] = {&bm, &bp};
        const j3d_section *rsecs[2] = {raw ? &raw->main : NULL, raw && raw->has_post ? &raw->post : NULL};
        uint32_t firsts[2] = {0, n_main};
        for (int si = 0; si < 2; si++) {
            const built_section *s = secs[si];
            if (si == 1 && n_post == 0) break;
            const j3d_section *rs = rsecs[si];
            uint32_t nn = s->n;
            size_t o[8];
            o[0] = b->len - c0;
            put_desc_table(b, s);
            j3d_put_padding(b, 4);
            o[1] = b->len - c0;
            int same_count = rs && rs->nentries == nn;
            for (uint32_t i = 0; i < nn; i++) ga_buf_u16be(b, same_count ? rs->remap[i] : (uint16_t)i);
            j3d_put_padding(b, 4);
            o[2] = b->len - c0;
            int with_names = !(si == 1 && rs && !rs->has_ntab && names_equal(rs, clip, firsts[si], nn));
            if (si == 1 && rs && !rs->has_ntab) {
                /* post set without names in the file: write one only if names were given */
                with_names = 0;
                for (uint32_t i = 0; i < nn; i++)
                    if (clip->entries[firsts[si] + i].name && clip->entries[firsts[si] + i].name[0]) with_names = 1;
            }
            if (with_names) {
                put_name_table(b, rs, clip, firsts[si], nn);
                j3d_put_padding(b, 4);
            } else {
                o[2] = 0;
            }
            o[3] = b->len - c0;
            for (uint32_t i = 0; i < nn; i++) ga_buf_u8(b, (uint8_t)clip->entries[firsts[si] + i].texmtx_id);
            j3d_put_padding(b, 4);
            o[4] = b->len - c0;
            for (uint32_t i = 0; i < nn; i++)
                for (int a = 0; a < 3; a++) ga_buf_f32be(b, clip->entries[firsts[si] + i].center[a]);
            j3d_put_padding(b, 4);
            o[5] = b->len - c0;
            put_value_table(b, &s->tab[0], 0);
            j3d_put_padding(b, 4);
            o[6] = b->len - c0;
            put_value_table(b, &s->tab[1], 1);
            j3d_put_padding(b, 4);
            o[7] = b->len - c0;
            put_value_table(b, &s->tab[2], 0);
            j3d_put_padding(b, 4);
            size_t hb = si == 0 ? c0 + 0x14 : c0 + 0x3C;
            for (int i = 0; i < 8; i++) ga_buf_set_u32be(b, hb + 4 * (size_t)i, (uint32_t)o[i]);
            if (si == 1) {
                ga_buf_set_u16be(b, c0 + 0x34, (uint16_t)(nn * 3));
                ga_buf_set_u16be(b, c0 + 0x36, (uint16_t)s->tab[0].n);
                ga_buf_set_u16be(b, c0 + 0x38, (uint16_t)s->tab[1].n);
                ga_buf_set_u16be(b, c0 + 0x3A, (uint16_t)s->tab[2].n);
            }
        }
        if (n_post == 0 && raw && !raw->has_post && !b->failed) {
            /* no post set: keep whatever the file had in 0x34..0x5B */
            memcpy(b->data + c0 + 0x34, raw->file + 0x20 + 0x34, 0x28);
        }
        j3d_put_padding(b, 32);
    }
    size_t chunk_len = b->len - c0;
    long long csize = (long long)chunk_len + (raw ? raw->chunk_size_delta : 0);
    if (csize < 0 || csize > 0xFFFFFFFFLL) csize = (long long)chunk_len;
    ga_buf_set_u32be(b, c0 + 4, (uint32_t)csize);
    if (raw && raw->extra_len) ga_buf_put(b, raw->extra, raw->extra_len);
    if (!btk) {
        if (raw && raw->sound) {
            ga_buf_set_u32be(b, 0x1C, (uint32_t)b->len);
            ga_buf_put(b, raw->sound, raw->sound_len);
        } else if (!raw) {
            ga_buf_set_u32be(b, 0x1C, NO_SOUND);
        }
    }
    ga_buf_set_u32be(b, 8, (uint32_t)b->len);
    if (raw && raw->size > raw->size_field) ga_buf_put(b, raw->file + raw->size_field, raw->size - raw->size_field);
    built_free(&bm);
    built_free(&bp);
    if (b->failed) return ga_nomem(err, fmt);
    return GA_OK;
}

int j3d_encode_keys(const ga_track *t, int kind, int orig_type, double tolerance, j3d_seq *seq, uint16_t *count,
                    uint16_t *type, ga_report *rep, ga_error *err)
{
    return encode_track(t, kind, 0, orig_type, tolerance, seq, count, type, rep, err);
}

/* ------------------------------------------------------------------ */
/* The other kinds (brk.c, bpk.c, btp.c, bva.c, j3d_bca.c)             */

void j3dk_free_raw(void *p)
{
    j3dk_raw *raw = p;
    if (!raw) return;
    free(raw->file);
    free(raw->types);
    free(raw->entry_pad);
    free(raw->remap);
    free(raw);
}

int j3dk_open(const uint8_t *data, size_t size, const char *fmt, const char *magic, const char *chunk,
              size_t hsize, size_t duration_at, j3dk_raw **out, ga_error *err)
{
    ga_reader r;
    ga_reader_init(&r, data, size, fmt, err);
    int rc = ga_need(&r, 0, 0x20, "file header");
    if (rc) return rc;
    if (memcmp(data, "J3D1", 4) != 0 || memcmp(data + 4, magic, 4) != 0)
        return ga_fail(err, GA_ERR_FORMAT, fmt, "magic", 0, "expected 'J3D1%s'", magic);
    rc = ga_need(&r, 0x20, hsize, "chunk header");
    if (rc) return rc;
    if (memcmp(data + 0x20, chunk, 4) != 0)
        return ga_fail(err, GA_ERR_FORMAT, fmt, "chunk magic", 0x20, "expected a '%s' block first", chunk);
    uint32_t blocks = ga_get_u32be(data + 0x0C);
    if (blocks == 0) return ga_fail(err, GA_ERR_FORMAT, fmt, "block count", 0x0C, "the file has no blocks");
    uint32_t csize = ga_get_u32be(data + 0x24);
    if (csize < hsize)
        return ga_fail(err, GA_ERR_FORMAT, fmt, "chunk size", 0x24, "%u bytes is smaller than the %zu-byte %s header",
                       csize, hsize, chunk);
    j3dk_raw *raw = calloc(1, sizeof *raw);
    if (!raw) return ga_nomem(err, fmt);
    snprintf(raw->fmt, sizeof raw->fmt, "%s", fmt);
    raw->size_field = ga_get_u32be(data + 8);
    raw->block_count = blocks;
    memcpy(raw->svr, data + 0x10, 16);
    raw->chunk_size_field = csize;
    raw->hsize = hsize;
    raw->loop_raw = data[0x28];
    raw->duration = (int16_t)ga_get_u16be(data + 0x20 + duration_at);
    raw->duration_at = duration_at;
    /* Some files end before the size their header (and chunk) claim: the
     * game reads only what its offsets reach, so they load, and the
     * difference is kept. */
    size_t end = raw->size_field < size ? raw->size_field : size;
    raw->chunk_delta = (long long)csize - (long long)(end - 0x20);
    raw->size = size;
    raw->file = malloc(size ? size : 1);
    if (!raw->file) {
        free(raw);
        return ga_nomem(err, fmt);
    }
    memcpy(raw->file, data, size);
    *out = raw;
    return GA_OK;
}

void j3dk_clip_init(ga_clip *clip, const j3dk_raw *raw)
{
    ga_clip_init(clip, raw->fmt);
    clip->frame_count = raw->duration;
    clip->loop = raw->loop_raw <= 4 ? raw->loop_raw : -1;
    clip->loop_raw_valid = 1;
    clip->loop_raw = raw->loop_raw;
}

int j3dk_key_track(ga_clip *clip, ga_track *t, const ga_reader *r, size_t desc_at, size_t table_at,
                   uint32_t table_n, const char *field, uint16_t *type, ga_error *err)
{
    int rc = ga_need(r, desc_at, 6, field);
    if (rc) return rc;
    uint16_t count = ga_get_u16be(r->data + desc_at), index = ga_get_u16be(r->data + desc_at + 2);
    *type = ga_get_u16be(r->data + desc_at + 4);
    uint32_t stride = *type == 0 ? 3 : 4;
    uint64_t need = count == 0 ? 0 : count == 1 ? (uint64_t)index + 1 : (uint64_t)index + (uint64_t)count * stride;
    if (need > table_n)
        return ga_fail(err, GA_ERR_FORMAT, r->format, field, (long long)desc_at,
                       "%u keys from element %u (tangent type %u) run past the value table of %u values", count,
                       index, *type, table_n);
    rc = ga_clip_track_alloc(clip, t, count, err);
    if (rc || count == 0) return rc;
    const uint8_t *v = r->data + table_at + (size_t)index * 2;
    if (count == 1) {
        t->time[0] = 0.0f;
        t->value[0] = (float)(int16_t)ga_get_u16be(v);
        t->interp[0] = GA_INTERP_CONSTANT;
        return GA_OK;
    }
    for (uint32_t k = 0; k < count; k++) {
        const uint8_t *e = v + (size_t)k * stride * 2;
        t->time[k] = (float)(int16_t)ga_get_u16be(e);
        t->value[k] = (float)(int16_t)ga_get_u16be(e + 2);
        t->in_slope[k] = (float)(int16_t)ga_get_u16be(e + 4);
        t->out_slope[k] = (float)(int16_t)ga_get_u16be(e + (stride == 4 ? 6 : 4));
        t->interp[k] = GA_INTERP_BEZIER;
    }
    return GA_OK;
}

int j3dk_frame_track(ga_clip *clip, ga_track *t, const uint8_t *at, uint32_t count, int elem, int sign,
                     double scale)
{
    ga_error e;
    int rc = ga_clip_track_alloc(clip, t, count, &e);
    if (rc) return rc;
    for (uint32_t k = 0; k < count; k++) {
        double v;
        if (elem == 1) v = at[k];
        else if (elem == 2) v = sign ? (double)(int16_t)ga_get_u16be(at + 2 * k) : (double)ga_get_u16be(at + 2 * k);
        else v = ga_get_f32be(at + 4 * k);
        t->time[k] = (float)k;
        t->value[k] = (float)(v * scale);
        t->interp[k] = GA_INTERP_CONSTANT;
    }
    return GA_OK;
}

int j3dk_entries_equal(const ga_clip *a, const ga_clip *b)
{
    if (a->nentries != b->nentries) return 0;
    for (uint32_t i = 0; i < a->nentries; i++) {
        const ga_entry *x = &a->entries[i], *y = &b->entries[i];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0) return 0;
        if (x->kind != y->kind || x->color_id != y->color_id || x->texmap != y->texmap) return 0;
    }
    return 1;
}

int j3dk_patch(const ga_encode_ctx *ctx, int entries_same, ga_buf *out, ga_error *err, int *done)
{
    const j3dk_raw *raw = ctx->raw;
    *done = 0;
    if (!raw || !ctx->orig || !entries_same || ctx->clip->ntracks != ctx->orig->ntracks) return GA_OK;
    for (uint32_t i = 0; i < ctx->clip->ntracks; i++)
        if (ctx->orig_track[i] != (int32_t)i) return GA_OK;
    uint8_t loop = 0;
    int16_t dur = 0;
    int rc = loop_byte(ctx, &loop, err, raw->fmt);
    if (!rc) rc = duration_field(ctx->clip, &dur, ctx->report, err, raw->fmt);
    if (rc) return rc;
    if (ga_buf_put(out, raw->file, raw->size)) return ga_nomem(err, raw->fmt);
    out->data[0x28] = loop;
    ga_buf_set_u16be(out, 0x20 + raw->duration_at, (uint16_t)dur);
    ctx->report->reused_tracks = ctx->clip->ntracks;
    *done = 1;
    return GA_OK;
}

size_t j3dk_begin(ga_buf *b, const ga_encode_ctx *ctx, const char *magic, const char *chunk, size_t hsize,
                  size_t duration_at, ga_error *err, int *rc)
{
    const j3dk_raw *raw = ctx->raw;
    const char *fmt = ctx->clip->format;
    uint8_t loop = 0;
    int16_t dur = 0;
    *rc = loop_byte(ctx, &loop, err, fmt);
    if (!*rc) *rc = duration_field(ctx->clip, &dur, ctx->report, err, fmt);
    if (*rc) return 0;
    ga_buf_put(b, "J3D1", 4);
    ga_buf_put(b, magic, 4);
    ga_buf_u32be(b, 0); /* file size, set by j3dk_finish */
    ga_buf_u32be(b, raw ? raw->block_count : 1);
    if (raw) {
        ga_buf_put(b, raw->svr, 16);
    } else {
        ga_buf_put(b, "SVR1", 4);
        ga_buf_fill(b, 0xFF, 12);
    }
    size_t c0 = b->len;
    ga_buf_put(b, chunk, 4);
    ga_buf_u32be(b, 0);
    /* the header's bytes the kind does not set stay as the file had them */
    if (raw && raw->hsize == hsize) ga_buf_put(b, raw->file + 0x28, hsize - 8);
    else ga_buf_fill(b, 0xFF, hsize - 8);
    if (!b->failed) {
        b->data[c0 + 8] = loop;
        ga_buf_set_u16be(b, c0 + duration_at, (uint16_t)dur);
    }
    return c0;
}

void j3dk_finish(ga_buf *b, const ga_encode_ctx *ctx, size_t c0)
{
    const j3dk_raw *raw = ctx->raw;
    j3d_put_padding(b, 32);
    size_t chunk_len = b->len - c0;
    long long csize = (long long)chunk_len + (raw ? raw->chunk_delta : 0);
    /* the file's odd chunk size is kept as a difference; where that would
     * leave less than the chunk's header (which a reader refuses), the
     * chunk's real length is written instead */
    if (csize < (long long)(raw ? raw->hsize : 8) || csize > 0xFFFFFFFFLL) csize = (long long)chunk_len;
    if (b->failed) return;
    ga_buf_set_u32be(b, c0 + 4, (uint32_t)csize);
    ga_buf_set_u32be(b, 8, (uint32_t)b->len);
    if (raw && raw->size > raw->size_field) ga_buf_put(b, raw->file + raw->size_field, raw->size - raw->size_field);
}

/* Whether a track's keys sit on frames 0, 1, ..., n-1 (as decoded). */
static int keys_on_frames(const ga_track *t)
{
    for (uint32_t k = 0; k < t->nkeys; k++)
        if (t->time[k] != (float)k) return 0;
    return 1;
}

uint32_t j3dk_frame_count(const ga_track *t)
{
    if (t->nkeys == 0) return 0;
    if (keys_on_frames(t)) return t->nkeys;
    double last = t->time[t->nkeys - 1];
    if (!(last >= 0.0)) return 1;
    if (last > 65534.0) return 65535;
    return (uint32_t)floor(last) + 1;
}

/* on: keys_on_frames(t), found once per track (it reads every key) */
static double frame_value(const ga_track *t, uint32_t k, int on)
{
    if (on) return t->value[k < t->nkeys ? k : t->nkeys - 1];
    return ga_track_eval(t, (double)k);
}

int j3dk_keys_on_frames(const ga_track *t) { return keys_on_frames(t); }

double j3dk_frame_value(const ga_track *t, uint32_t k, int on) { return frame_value(t, k, on); }

/* The game's reading of a full-frame table at a fractional frame. */
static float full_frame_eval(const ga_track *t, double frame, int rule, int on, uint32_t n)
{
    if (t->nkeys == 0) return ga_channel_default(t->channel, t->axis);
    float f = (float)frame;
    if (!(f >= 0.0f)) return (float)frame_value(t, 0, on); /* below 0 (and NaN): entry 0 */
    int32_t i = rule == GA_FRAME_NEAREST ? ppc_trunc_s32(f + 0.5f) : ppc_trunc_s32(f);
    uint32_t idx = (uint32_t)i;
    if (rule == GA_FRAME_LERP && (float)i != f) {
        uint32_t next = idx + 1;
        if (next >= n) return (float)frame_value(t, n - 1, on);
        float rate = f - (float)i;
        if (t->channel == GA_CH_ROTATION) {
            /* s16 angles, the short way round (J3DAnmTransformFullWithLerp) */
            double unit = j3d_rotation_unit(0);
            uint32_t r1 = (uint16_t)(int16_t)raw_of(frame_value(t, idx, on), unit);
            uint32_t r2 = (uint16_t)(int16_t)raw_of(frame_value(t, next, on), unit);
            int32_t delta = (int32_t)r2 - (int32_t)r1;
            if (delta > 0x8000) {
                r1 += 0x10000;
                delta -= 0x10000;
            } else if (-delta > 0x8000) {
                delta += 0x10000;
            }
            uint32_t v = (uint32_t)(int64_t)((float)r1 + rate * (float)delta);
            return (float)((int16_t)(uint16_t)v * unit);
        }
        float v0 = (float)frame_value(t, idx, on), v1 = (float)frame_value(t, next, on);
        return v0 + rate * (v1 - v0);
    }
    if (idx >= n) idx = n - 1;
    return (float)frame_value(t, idx, on);
}

static int frame_rule_of(const ga_track *t, int rule)
{
    /* BTP's getTexNo truncates in every version */
    return t->channel == GA_CH_TEXTURE_INDEX ? GA_FRAME_TRUNCATE : rule;
}

int j3dk_sample_frames(const ga_clip *clip, uint32_t ti, const double *frames, size_t n, float *out, ga_error *err)
{
    (void)err;
    const ga_track *t = &clip->tracks[ti];
    int rule = frame_rule_of(t, clip->frame_rule), on = keys_on_frames(t);
    uint32_t count = j3dk_frame_count(t);
    for (size_t i = 0; i < n; i++) out[i] = full_frame_eval(t, frames[i], rule, on, count);
    return GA_OK;
}

int j3dk_eval_frames(const ga_track *t, int rotation_frac, const double *frames, size_t n, float *out, ga_error *err)
{
    (void)rotation_frac;
    (void)err;
    int rule = frame_rule_of(t, GA_FRAME_NEAREST), on = keys_on_frames(t);
    uint32_t count = j3dk_frame_count(t);
    for (size_t i = 0; i < n; i++) out[i] = full_frame_eval(t, frames[i], rule, on, count);
    return GA_OK;
}

/* BRK / BPK: J3DGetKeyFrameInterpolationS on the stored s16 keys (the
 * curve before the game's conversion and clamp). */
int j3dk_eval_keys(const ga_track *t, int rotation_frac, const double *frames, size_t n, float *out,
                                  ga_error *err)
{
    (void)rotation_frac;
    if (t->nkeys <= 1) {
        float v = t->nkeys ? (float)nearbyint(t->value[0]) : ga_channel_default(t->channel, t->axis);
        for (size_t i = 0; i < n; i++) out[i] = v;
        return GA_OK;
    }
    ga_track q;
    int rc = ga_track_copy(&q, t, err);
    if (rc) return rc;
    for (uint32_t k = 0; k < q.nkeys; k++) {
        q.time[k] = (float)nearbyint(q.time[k]);
        q.value[k] = (float)nearbyint(q.value[k]);
        q.in_slope[k] = (float)nearbyint(q.in_slope[k]);
        q.out_slope[k] = (float)nearbyint(q.out_slope[k]);
    }
    game_eval_many(&q, frames, n, out, 1);
    ga_track_free(&q);
    return GA_OK;
}

int j3dk_sample_keys(const ga_clip *clip, uint32_t ti, const double *frames, size_t n, float *out, ga_error *err)
{
    return j3dk_eval_keys(&clip->tracks[ti], 0, frames, n, out, err);
}

int j3dk_info(const void *p, ga_info *info, ga_error *err)
{
    const j3dk_raw *raw = p;
    (void)err;
    int rc = 0;
    rc |= container_info(info, raw->size_field, raw->block_count, raw->svr, raw->chunk_size_field, raw->chunk_delta,
                         raw->loop_raw);
    rc |= ga_info_int(info, "duration", raw->duration);
    rc |= ga_info_bytes(info, "chunk_header", raw->file + 0x20, raw->hsize);
    /* a file shorter than its size field (the game reads only what its
     * offsets reach) has a negative value here */
    rc |= ga_info_int(info, "trailing_bytes", (long long)raw->size - (long long)raw->size_field);
    int identity = 1;
    for (uint32_t i = 0; raw->remap && i < raw->nentries; i++) {
        uint32_t set_first = (raw->counts[0] && i >= raw->counts[0] && raw->fmt[1] == 'r') ? raw->counts[0] : 0;
        if (raw->remap[i] != i - set_first) identity = 0;
    }
    rc |= ga_info_int(info, "material_ids_identity", identity);
    return rc ? GA_ERR_NOMEM : GA_OK;
}

/* ------------------------------------------------------------------ */
/* BRK / BPK colour entries                                            */

static const char *const color_set_names[2] = {"register", "konst"};

int j3dk_color_decode(const j3dk_color_layout *L, const uint8_t *data, size_t size, const ga_decode_opts *opts,
                      void **out, ga_clip *clip, ga_error *err)
{
    j3dk_raw *raw = NULL;
    int rc = j3dk_open(data, size, L->fmt, L->magic, L->chunk, L->hsize, L->duration_at, &raw, err);
    if (rc) return rc;
    ga_reader r;
    ga_reader_init(&r, data, size, L->fmt, err);
    const uint8_t *h = data + 0x20;
    uint32_t nset[2] = {0, 0}, nvals[8], voff[8];
    uint32_t total = 0;
    for (int s = 0; s < L->nsets; s++) {
        nset[s] = ga_get_u16be(h + L->count_at[s]);
        total += nset[s];
    }
    char ***names = NULL;
    ga_clip_init(clip, L->fmt);
    for (int i = 0; i < 4 * L->nsets; i++) {
        nvals[i] = ga_get_u16be(h + L->nvals_at + 2 * (size_t)i);
        voff[i] = ga_get_u32be(h + L->values_at + 4 * (size_t)i);
        char field[48];
        snprintf(field, sizeof field, "%s%s %c value table", L->nsets > 1 ? color_set_names[i / 4] : "",
                 L->nsets > 1 ? "" : "colour", "RGBA"[i % 4]);
        if (nvals[i]) {
            rc = ga_need(&r, 0x20 + (size_t)voff[i], (size_t)nvals[i] * 2, field);
            if (rc) goto fail;
        }
    }
    raw->nentries = total;
    raw->counts[0] = nset[0];
    raw->counts[1] = nset[1];
    raw->types = malloc(((size_t)total * 4 + 1) * sizeof *raw->types);
    raw->entry_pad = malloc((size_t)total * 3 + 1);
    raw->remap = malloc(((size_t)total + 1) * sizeof *raw->remap);
    names = calloc(2, sizeof *names);
    if (!raw->types || !raw->entry_pad || !raw->remap || !names) {
        rc = ga_nomem(err, L->fmt);
        goto fail;
    }
    /* key count first: checked against the limits before anything is allocated for keys */
    uint64_t nkeys = 0;
    for (int s = 0; s < L->nsets; s++) {
        size_t tab = 0x20 + (size_t)ga_get_u32be(h + L->table_at[s]);
        char field[48];
        snprintf(field, sizeof field, "%s%sentry table", L->nsets > 1 ? color_set_names[s] : "", L->nsets > 1 ? " " : "");
        rc = ga_need(&r, tab, (size_t)nset[s] * L->entry_size, field);
        if (rc) goto fail;
        for (uint32_t e = 0; e < nset[s]; e++)
            for (int a = 0; a < 4; a++) nkeys += ga_get_u16be(data + tab + e * L->entry_size + 6 * (size_t)a);
        if (nset[s]) {
            size_t rm = 0x20 + (size_t)ga_get_u32be(h + L->remap_at[s]);
            rc = ga_need(&r, rm, (size_t)nset[s] * 2, L->nsets > 1 ? (s ? "konst remap table" : "register remap table")
                                                                 : "remap table");
            if (rc) goto fail;
            for (uint32_t e = 0; e < nset[s]; e++)
                raw->remap[(s ? nset[0] : 0) + e] = ga_get_u16be(data + rm + 2 * (size_t)e);
            rc = j3d_read_names(&r, 0x20 + (size_t)ga_get_u32be(h + L->names_at[s]), nset[s], &names[s], NULL, NULL,
                                err);
            if (rc) goto fail;
        }
    }
    rc = ga_check_decoded(opts, size, nkeys, GA_KEY_BYTES, "keys", L->fmt, "key count", 0x20, err);
    if (rc) goto fail;
    j3dk_clip_init(clip, raw);
    rc = ga_clip_alloc_tracks(clip, total * 4, err);
    if (!rc) rc = ga_clip_reserve_keys(clip, nkeys, total * 4, err);
    if (!rc) rc = ga_clip_alloc_entries(clip, total, err);
    if (rc) goto fail;
    raw->ntracks = total * 4;
    for (int s = 0; s < L->nsets; s++) {
        size_t tab = 0x20 + (size_t)ga_get_u32be(h + L->table_at[s]);
        for (uint32_t e = 0; e < nset[s]; e++) {
            uint32_t ei = (s ? nset[0] : 0) + e;
            size_t at = tab + e * L->entry_size;
            for (int a = 0; a < 4; a++) {
                ga_track *t = &clip->tracks[ei * 4 + (uint32_t)a];
                t->target = (int32_t)ei;
                t->channel = GA_CH_COLOR;
                t->axis = (uint8_t)a;
                char field[64];
                snprintf(field, sizeof field, "%s%sentry %u %c key table", L->nsets > 1 ? color_set_names[s] : "",
                         L->nsets > 1 ? " " : "", e, "RGBA"[a]);
                int vi = s * 4 + a;
                rc = j3dk_key_track(clip, t, &r, at + 6 * (size_t)a, 0x20 + (size_t)voff[vi], nvals[vi], field,
                                    &raw->types[ei * 4 + (uint32_t)a], err);
                if (rc) goto fail;
            }
            ga_entry *en = &clip->entries[ei];
            en->layout = L->nsets > 1 ? GA_ENTRY_TEV : GA_ENTRY_MATERIAL;
            en->kind = s;
            en->name = names[s][e];
            names[s][e] = NULL;
            if (L->entry_size > 24) {
                en->color_id = data[at + 24];
                memcpy(raw->entry_pad + 3 * (size_t)ei, data + at + 25, 3);
            }
        }
    }
    for (int s = 0; s < 2; s++) {
        if (names && names[s])
            for (uint32_t e = 0; e < nset[s]; e++) free(names[s][e]);
        if (names) free(names[s]);
    }
    free(names);
    *out = raw;
    return GA_OK;
fail:
    if (names) {
        for (int s = 0; s < 2; s++) {
            if (names[s])
                for (uint32_t e = 0; e < nset[s]; e++) free(names[s][e]);
            free(names[s]);
        }
        free(names);
    }
    ga_clip_free(clip);
    j3dk_free_raw(raw);
    return rc;
}

int j3dk_color_encode(const j3dk_color_layout *L, const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    const ga_clip *clip = ctx->clip;
    const j3dk_raw *raw = ctx->raw;
    const char *fmt = L->fmt;
    uint32_t n = clip->nentries;
    for (uint32_t i = 0; i < clip->ntracks; i++) {
        const ga_track *t = &clip->tracks[i];
        if (t->target_name || t->channel != GA_CH_COLOR || t->axis > 3 || t->target < 0 || (uint32_t)t->target >= n)
            return ga_fail(err, GA_ERR_ENCODE, fmt, "track", -1,
                           "track %u: %s tracks are channel 'color', axis 0..3, on an entry index below %u", i, fmt,
                           n);
    }
    /* register entries first, then konst entries (BRK) */
    uint32_t nset[2] = {n, 0};
    if (L->nsets > 1) {
        nset[0] = 0;
        while (nset[0] < n && clip->entries[nset[0]].kind == 0) nset[0]++;
        for (uint32_t i = nset[0]; i < n; i++)
            if (clip->entries[i].kind == 0)
                return ga_fail(err, GA_ERR_ENCODE, fmt, "entries", -1,
                               "entry %u is a register entry after konst entries; register entries go first", i);
        nset[1] = n - nset[0];
    }
    for (int s = 0; s < L->nsets; s++)
        if (nset[s] > 0xFFFF) return ga_fail(err, GA_ERR_ENCODE, fmt, "entries", -1, "%u entries exceed 65535", nset[s]);
    for (uint32_t i = 0; i < n; i++)
        if (L->entry_size > 24 && (clip->entries[i].color_id < 0 || clip->entries[i].color_id > 255))
            return ga_fail(err, GA_ERR_ENCODE, fmt, "color id", -1, "entry %u: color id %d is not 0..255", i,
                           clip->entries[i].color_id);
    int32_t *slot = malloc(((size_t)n * 4 + 1) * sizeof *slot);
    if (!slot) return ga_nomem(err, fmt);
    for (size_t i = 0; i < (size_t)n * 4; i++) slot[i] = -1;
    for (uint32_t i = 0; i < clip->ntracks; i++) {
        size_t sl = (size_t)clip->tracks[i].target * 4 + clip->tracks[i].axis;
        if (slot[sl] >= 0) {
            int32_t first = slot[sl];
            free(slot);
            return ga_fail(err, GA_ERR_ENCODE, fmt, "track", -1, "two tracks (%d and %u) animate entry %d colour %c",
                           first, i, clip->tracks[i].target, "RGBA"[clip->tracks[i].axis]);
        }
        slot[sl] = (int32_t)i;
    }
    int done = 0;
    int rc = j3dk_patch(ctx, ctx->orig && j3dk_entries_equal(clip, ctx->orig), out, err, &done);
    if (rc || done) {
        free(slot);
        return rc;
    }
    ga_pool pools[8];
    j3d_desc *desc = calloc((size_t)n * 4 + 1, sizeof *desc);
    int npools = 4 * L->nsets;
    for (int i = 0; i < npools; i++) ga_pool_init(&pools[i], SIZE_MAX);
    j3d_seq seq = {0};
    uint32_t rounded_before = ctx->report->nrounded;
    if (!desc) rc = ga_nomem(err, fmt);
    for (uint32_t e = 0; e < n && !rc; e++) {
        int s = e >= nset[0];
        for (int a = 0; a < 4 && !rc; a++) {
            int32_t ti = slot[e * 4 + (uint32_t)a];
            j3d_desc d = {0, 0, 0};
            if (ti >= 0) {
                int32_t ot = ctx->orig_track ? ctx->orig_track[ti] : -1;
                int orig_type = (raw && ot >= 0 && (uint32_t)ot < raw->ntracks) ? raw->types[ot] : -1;
                seq.n = 0;
                rc = j3d_encode_keys(&clip->tracks[ti], L->kind, orig_type, ctx->tolerance, &seq, &d.count, &d.type,
                                     ctx->report, err);
                if (rc) break;
                if (ot >= 0) ctx->report->reused_tracks++;
                else ctx->report->encoded_tracks++;
                if (d.count) {
                    long long at = ga_pool_place(&pools[s * 4 + a], seq.v, seq.n);
                    if (at < 0) {
                        rc = ga_nomem(err, fmt);
                        break;
                    }
                    if (at > 0xFFFF || pools[s * 4 + a].n > 0xFFFF) {
                        rc = ga_fail(err, GA_ERR_ENCODE, fmt, "value table", -1,
                                     "the colour %c value table outgrew the 65535 elements its count holds", "RGBA"[a]);
                        break;
                    }
                    d.index = (uint16_t)at;
                }
            }
            desc[e * 4 + (uint32_t)a] = d;
        }
    }
    free(seq.v);
    free(slot);
    /* values, slopes and times the s16 tables could not hold exactly: a
     * note, hence a PrecisionWarning */
    if (!rc) j3dk_note_rounded(ctx, rounded_before, "colour number(s) rounded to the 16-bit tables (whole units, "
                               "key times whole frames)");
    size_t c0 = 0;
    if (!rc) c0 = j3dk_begin(out, ctx, L->magic, L->chunk, L->hsize, L->duration_at, err, &rc);
    if (!rc) {
        ga_buf *b = out;
        for (int s = 0; s < L->nsets; s++) ga_buf_set_u16be(b, c0 + L->count_at[s], (uint16_t)nset[s]);
        for (int i = 0; i < npools; i++) ga_buf_set_u16be(b, c0 + L->nvals_at + 2 * (size_t)i, (uint16_t)pools[i].n);
        uint32_t first[2] = {0, nset[0]};
        for (int s = 0; s < L->nsets; s++) {
            ga_buf_set_u32be(b, c0 + L->table_at[s], (uint32_t)(b->len - c0));
            for (uint32_t e = first[s]; e < first[s] + nset[s]; e++) {
                for (int a = 0; a < 4; a++) {
                    ga_buf_u16be(b, desc[e * 4 + (uint32_t)a].count);
                    ga_buf_u16be(b, desc[e * 4 + (uint32_t)a].index);
                    ga_buf_u16be(b, desc[e * 4 + (uint32_t)a].type);
                }
                if (L->entry_size > 24) {
                    ga_buf_u8(b, (uint8_t)clip->entries[e].color_id);
                    int keep = raw && raw->nentries == n;
                    if (keep) ga_buf_put(b, raw->entry_pad + 3 * (size_t)e, 3);
                    else ga_buf_fill(b, 0xFF, 3);
                }
            }
            j3d_put_padding(b, 4);
        }
        for (int s = 0; s < L->nsets; s++) {
            ga_buf_set_u32be(b, c0 + L->remap_at[s], (uint32_t)(b->len - c0));
            int keep = raw && raw->counts[0] == nset[0] && raw->counts[1] == nset[1];
            for (uint32_t e = 0; e < nset[s]; e++) ga_buf_u16be(b, keep ? raw->remap[first[s] + e] : (uint16_t)e);
            j3d_put_padding(b, 4);
        }
        for (int s = 0; s < L->nsets; s++) {
            ga_buf_set_u32be(b, c0 + L->names_at[s], (uint32_t)(b->len - c0));
            const char **nm = malloc(((size_t)nset[s] + 1) * sizeof *nm);
            if (!nm) {
                b->failed = 1;
                break;
            }
            for (uint32_t e = 0; e < nset[s]; e++) nm[e] = clip->entries[first[s] + e].name;
            j3d_put_names(b, nm, nset[s]);
            free(nm);
            j3d_put_padding(b, 4);
        }
        for (int i = 0; i < npools; i++) {
            ga_buf_set_u32be(b, c0 + L->values_at + 4 * (size_t)i, (uint32_t)(b->len - c0));
            for (size_t k = 0; k < pools[i].n; k++) ga_buf_u16be(b, (uint16_t)pools[i].v[k]);
            j3d_put_padding(b, 4);
        }
        j3dk_finish(b, ctx, c0);
        if (b->failed) rc = ga_nomem(err, fmt);
    }
    for (int i = 0; i < npools; i++) ga_pool_free(&pools[i]);
    free(desc);
    return rc;
}

/* A full-frame track's values at whole frames, rounded to integers of
 * lo..hi (u8 or u16 elements). */
int j3dk_frame_run(const ga_track *t, const char *fmt, double lo, double hi, int elem, j3d_seq *seq,
                     uint16_t *count, ga_report *rep, ga_error *err)
{
    uint32_t n = j3dk_frame_count(t);
    int on = keys_on_frames(t);
    *count = (uint16_t)n;
    for (uint32_t k = 0; k < n; k++) {
        double v = frame_value(t, k, on);
        double q = nearbyint(v);
        if (!(q >= lo && q <= hi))
            return ga_fail(err, GA_ERR_ENCODE, fmt, "track", -1, "target %d frame %u: value %g is not %g..%g",
                           t->target, k, v, lo, hi);
        if (q != v) {
            rep->nrounded++;
            ga_report_error(rep, v - q, "target %d frame %u", t->target, k);
        }
        uint32_t bits = elem == 1 ? (uint32_t)(uint8_t)q : (uint32_t)(uint16_t)q;
        if (j3d_seq_push(seq, bits)) return ga_nomem(err, fmt);
    }
    return GA_OK;
}

void j3dk_note_rounded(const ga_encode_ctx *ctx, uint32_t before, const char *what)
{
    ga_report *r = ctx->report;
    if (r->nrounded > before)
        ga_report_note(r, "%u %s; worst error %g at %s", (unsigned)(r->nrounded - before), what, r->max_error,
                       r->max_error_where[0] ? r->max_error_where : "-");
}

int j3dk_place_frames(const ga_encode_ctx *ctx, const int32_t *slot, uint32_t n, double hi, int elem,
                      const char *table, ga_pool *pool, j3d_desc *desc, ga_error *err)
{
    const char *fmt = ctx->clip->format;
    j3d_seq seq = {0};
    int rc = GA_OK;
    uint32_t before = ctx->report->nrounded;
    for (uint32_t e = 0; e < n && !rc; e++) {
        if (slot[e] < 0) continue;
        seq.n = 0;
        rc = j3dk_frame_run(&ctx->clip->tracks[slot[e]], fmt, 0, hi, elem, &seq, &desc[e].count, ctx->report, err);
        if (rc || !seq.n) continue;
        long long at = ga_pool_place(pool, seq.v, seq.n);
        if (at < 0) rc = ga_nomem(err, fmt);
        else if (at > 0xFFFF || pool->n > 0xFFFF)
            rc = ga_fail(err, GA_ERR_ENCODE, fmt, table, -1, "the %s outgrew the 65535 elements its count holds", table);
        else desc[e].index = (uint16_t)at;
    }
    free(seq.v);
    if (!rc) j3dk_note_rounded(ctx, before, "value(s) rounded to whole numbers (one per frame)");
    return rc;
}
