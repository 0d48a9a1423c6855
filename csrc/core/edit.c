/* The edit policy (edit.h).  An unedited file must come back byte for
 * byte, and a partly edited one as close to the file as the format
 * allows, so an encoder is told which tracks are still the file's. */
#include "edit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The same float bits; a NaN also matches the NaN it became through a
 * Python float (a signalling NaN comes back quiet: bit 22 set). */
static int same_f32(float x, float y)
{
    uint32_t a = ga_f32_bits(x), b = ga_f32_bits(y);
    if (a == b) return 1;
    return isnan(x) && isnan(y) && (a | 0x00400000u) == (b | 0x00400000u);
}

static int entries_same(const ga_clip *a, const ga_clip *b)
{
    if (a->nentries != b->nentries) return 0;
    for (uint32_t i = 0; i < a->nentries; i++) {
        const ga_entry *x = &a->entries[i], *y = &b->entries[i];
        if (strcmp(x->name ? x->name : "", y->name ? y->name : "") != 0 || x->kind != y->kind ||
            x->color_id != y->color_id || x->texmap != y->texmap)
            return 0;
        /* the texture-matrix fields belong to BTK entries (the other
         * kinds' entries have none, and their dicts give none) */
        if (x->layout != GA_ENTRY_TEXMTX && y->layout != GA_ENTRY_TEXMTX) continue;
        if (x->texmtx_id != y->texmtx_id || x->post != y->post || !same_f32(x->center[0], y->center[0]) ||
            !same_f32(x->center[1], y->center[1]) || !same_f32(x->center[2], y->center[2]))
            return 0;
    }
    return 1;
}

static int params_same(const ga_clip *c, const ga_clip *o)
{
    return memcmp(&c->frame_count, &o->frame_count, sizeof(double)) == 0 && c->fps == o->fps &&
           c->loop == o->loop && c->rotation_frac == o->rotation_frac && c->calc_type == o->calc_type &&
           c->start_frame == o->start_frame && c->layout == o->layout && c->keyless_rule == o->keyless_rule;
}

int ga_edit_plan(const ga_clip *c, const ga_clip *orig, int reencode, ga_edit *plan, ga_error *err)
{
    memset(plan, 0, sizeof *plan);
    int32_t *map = malloc(((size_t)c->ntracks + 1) * sizeof *map);
    if (!map) return ga_nomem(err, c->format);
    int unchanged = 0;
    int header_changed = 1;
    if (orig) {
        unchanged = c->ntracks == orig->ntracks;
        for (uint32_t i = 0; i < c->ntracks; i++) {
            map[i] = -1;
            if (i < orig->ntracks && ga_track_equal(&c->tracks[i], &orig->tracks[i])) {
                map[i] = (int32_t)i;
                continue;
            }
            unchanged = 0;
            for (uint32_t j = 0; j < orig->ntracks; j++)
                if (ga_track_equal(&c->tracks[i], &orig->tracks[j])) {
                    map[i] = (int32_t)j;
                    break;
                }
        }
        header_changed = !params_same(c, orig) || !entries_same(c, orig);
        if (header_changed) unchanged = 0;
    } else {
        for (uint32_t i = 0; i < c->ntracks; i++) map[i] = -1;
    }
    if (reencode != GA_REENCODE_NONE) unchanged = 0;
    if (reencode == GA_REENCODE_FULL) {
        for (uint32_t i = 0; i < c->ntracks; i++) map[i] = -1;
        header_changed = 1;
    }
    plan->orig_track = map;
    plan->header_changed = header_changed;
    plan->unchanged = unchanged;
    return GA_OK;
}

void ga_edit_free(ga_edit *plan)
{
    free(plan->orig_track);
    plan->orig_track = NULL;
}

int ga_edit_encode(const ga_format *fmt, const ga_edit *plan, const void *raw, const ga_clip *orig,
                   const ga_clip *clip, int reencode, double tolerance, ga_report *rep, ga_buf *out, ga_error *err)
{
    int fresh = !orig || reencode == GA_REENCODE_FULL;
    ga_encode_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.raw = fresh ? NULL : raw;
    ctx.orig = fresh ? NULL : orig;
    ctx.clip = clip;
    ctx.orig_track = plan->orig_track;
    ctx.header_changed = plan->header_changed;
    ctx.tolerance = tolerance;
    ctx.report = rep;
    return fmt->encode(&ctx, out, err);
}

int ga_clip_modified(const ga_clip *c, const ga_clip *orig)
{
    int same = c->ntracks == orig->ntracks && params_same(c, orig) && entries_same(c, orig);
    for (uint32_t i = 0; i < c->ntracks && same; i++)
        if (!ga_track_equal(&c->tracks[i], &orig->tracks[i])) same = 0;
    return !same;
}

int ga_same_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}
