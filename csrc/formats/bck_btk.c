/* BCK (J3D1bck1 / ANK1, joint animation) and BTK (J3D1btk1 / TTK1,
 * texture-matrix animation): one key-table codec for both.  This file
 * decodes, reports and samples them and binds both to the registry; the
 * encoder is bck_btk_encode.c, the container and key machinery j3d.c.
 *
 * Decoding keeps the whole file, so an unedited animation is written back
 * verbatim; an edit that only touches header fields patches those bytes;
 * anything else rebuilds the file, re-emitting the original element runs
 * of every unchanged track. */
#include "bck_btk.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define M_PI_J3D 3.14159265358979323846

static const char axis_letters[3] = {'X', 'Y', 'Z'};

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

typedef struct sec_offsets {
    uint32_t table, remap, names, texmtx, center, scale, rot, trans;
} sec_offsets;

void j3d_desc_field(char *buf, size_t cap, int btk, uint32_t entry, int post, uint32_t slot)
{
    /* slot is in file order: axis * 3 + channel */
    uint32_t axis = slot / 3, ch = slot % 3;
    if (btk) {
        static const char st[3] = {'S', 'T', 'Q'};
        snprintf(buf, cap, "%sentry %u %s %c key table", post ? "post " : "", entry,
                 j3d_channel_names[ch], st[axis]);
    } else {
        snprintf(buf, cap, "joint %u %s %c key table", entry, j3d_channel_names[ch], axis_letters[axis]);
    }
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
            j3d_desc_field(field, sizeof field, btk, i / 9, post, i % 9);
            return ga_fail(err, GA_ERR_FORMAT, fmt, field, (long long)(at + (size_t)i * 6),
                           "%u keys from element %u (tangent type %u) run past the %s table of %u values",
                           d->count, d->index, d->type, j3d_channel_names[ch], avail);
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

int j3d_info(const void *p, ga_info *info, ga_error *err)
{
    const j3d_raw *raw = p;
    (void)err;
    int rc = 0;
    rc |= j3d_container_info(info, raw->size_field, raw->block_count, raw->svr, raw->chunk_size_field,
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
                if (ga_get_u16be(raw->main.ntab + 4 + i * 4) != ga_jut_name_key(raw->main.names[i]))
                    hashes_ok = 0;
        rc |= ga_info_int(info, "name_hashes_valid", hashes_ok);
    }
    rc |= ga_info_int(info, "trailing_bytes", (long long)(raw->size - raw->size_field));
    return rc ? GA_ERR_NOMEM : GA_OK;
}

static int track_fits_frac(const ga_track *t, int frac)
{
    double unit = j3d_rotation_unit(frac);
    for (uint32_t k = 0; k < t->nkeys; k++) {
        double vals[3] = {t->value[k], t->in_slope[k], t->out_slope[k]};
        for (int j = 0; j < 3; j++) {
            if (!isfinite(vals[j])) return 0;
            double q = j3d_raw_of(vals[j], unit);
            if (q < -32768.0 || q > 32767.0) return 0;
        }
    }
    return 1;
}

/* Smallest shift (from `from`) at which every rotation track fits s16. */
int j3d_choose_frac(const ga_clip *clip, int from)
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
    int f = j3d_choose_frac(clip, 0);
    return f < 0 ? 15 : f;
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
            j3d_game_eval_many(t, frames, n, out, 0);
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
        q.value[k] = (float)j3d_raw_of(q.value[k], unit);
        q.in_slope[k] = (float)j3d_raw_of(q.in_slope[k], unit);
        q.out_slope[k] = (float)j3d_raw_of(q.out_slope[k], unit);
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
    if (q.nkeys > 1) j3d_game_eval_many(&q, frames, n, out, 1);
    for (size_t i = 0; i < n; i++) {
        double raw = q.nkeys == 1 ? q.value[0] : (double)j3d_ppc_trunc_s32(out[i]);
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
/* The registry                                                        */

static int bck_probe(const uint8_t *data, size_t size) { return j3d_probe(data, size, "bck1"); }

static int bck_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **raw,
                      ga_clip *clip, ga_error *err)
{
    j3d_raw *r = NULL;
    int rc = j3d_decode(data, size, 0, opts, &r, clip, err);
    if (!rc) *raw = r;
    return rc;
}

static int bck_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    return j3d_encode(ctx, 0, out, err);
}

const ga_format ga_format_bck = {
    "bck",
    "J3D joint animation (GameCube/Wii, ANK1)",
    bck_probe,
    bck_decode,
    bck_encode,
    j3d_free_raw,
    j3d_sample,
    j3d_info,
    NULL, /* every track applies */
    j3d_eval_track, /* Track.evaluate: as sample */
    {".bck", "joint", 1, "Y", "INDEX", "yaz0;yay0", "cp932", NULL, "j3d"},
};

static int btk_probe(const uint8_t *data, size_t size) { return j3d_probe(data, size, "btk1"); }

static int btk_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **raw,
                      ga_clip *clip, ga_error *err)
{
    j3d_raw *r = NULL;
    int rc = j3d_decode(data, size, 1, opts, &r, clip, err);
    if (!rc) *raw = r;
    return rc;
}

static int btk_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    return j3d_encode(ctx, 1, out, err);
}

const ga_format ga_format_btk = {
    "btk",
    "J3D texture-matrix animation (GameCube/Wii, TTK1)",
    btk_probe,
    btk_decode,
    btk_encode,
    j3d_free_raw,
    j3d_sample,
    j3d_info,
    NULL, /* every track applies */
    j3d_eval_track, /* Track.evaluate: as sample */
    {".btk", "material_entry", 1, NULL, NULL, "yaz0;yay0", "cp932", NULL, NULL},
};
