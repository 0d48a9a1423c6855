/* The BCK / BTK encoder (bck_btk.c decodes): header-only edits patch the
 * original bytes; anything else rebuilds the file, re-emitting the
 * original element runs of every unchanged track and pooling the value
 * tables with run reuse. */
#include "bck_btk.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Original element run of a descriptor. */
static int raw_run(const j3d_section *s, uint32_t ch, const j3d_desc *d, j3d_seq *seq)
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
    j3d_seq seq = {0};
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
                rc = j3d_encode_keys(&clip->tracks[ti], btk, frac, orig_type, ctx->tolerance, &seq, &d.count,
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
                    j3d_desc_field(name, sizeof name, btk, e, rawsec == NULL ? 0 : 0, slot);
                    rc = ga_fail(err, GA_ERR_ENCODE, fmt, name, -1,
                                 "the %s value table outgrew the 65536 elements a u16 index reaches",
                                 j3d_channel_names[ch]);
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
                rc = ga_fail(err, GA_ERR_ENCODE, fmt, j3d_channel_names[i], -1,
                             "the %s value table has %zu elements; its count field holds 65535",
                             j3d_channel_names[i], out->tab[i].n);
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
    ga_jut_put_names(b, names, n);
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
    int rc = j3d_loop_byte(ctx, &loop, err, fmt);
    if (rc) return rc;
    rc = j3d_duration_field(ctx->clip, &dur, ctx->report, err, fmt);
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
        j3d_track_name(name, sizeof name, btk, t);
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
            j3d_track_name(name, sizeof name, btk, t);
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
            int grown = j3d_choose_frac(clip, frac);
            if (grown > frac) frac = grown;
        }
    } else {
        frac = j3d_choose_frac(clip, raw ? raw->frac : 0);
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
    rc = j3d_loop_byte(ctx, &loop, err, fmt);
    if (!rc) rc = j3d_duration_field(clip, &dur, ctx->report, err, fmt);
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
