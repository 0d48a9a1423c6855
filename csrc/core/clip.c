/* The format-neutral clip: allocation, copying and comparison. */
#include "gameanim.h"

#include <stdlib.h>
#include <string.h>

char *ga_strdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

void ga_clip_init(ga_clip *c, const char *format)
{
    memset(c, 0, sizeof *c);
    if (format) {
        strncpy(c->format, format, sizeof c->format - 1);
    }
    c->loop = -1;
    c->rotation_frac = -1;
    c->calc_type = 0;
    c->layout = 32;
}

void ga_track_free(ga_track *t)
{
    free(t->target_name);
    if (!t->borrowed) free(t->time); /* the whole key block (ga_track_alloc) */
    t->borrowed = 0;
    t->target_name = NULL;
    t->time = t->value = t->in_slope = t->out_slope = NULL;
    t->interp = NULL;
    t->nkeys = 0;
}

void ga_clip_free(ga_clip *c)
{
    for (uint32_t i = 0; i < c->ntracks; i++) ga_track_free(&c->tracks[i]);
    free(c->tracks);
    free(c->key_block);
    c->key_block = NULL;
    c->key_block_size = c->key_block_used = 0;
    for (uint32_t i = 0; i < c->nentries; i++) free(c->entries[i].name);
    free(c->entries);
    c->tracks = NULL;
    c->entries = NULL;
    c->ntracks = c->nentries = 0;
}

int ga_clip_alloc_tracks(ga_clip *c, uint32_t ntracks, ga_error *err)
{
    if (ntracks > GA_MAX_TRACKS)
        return ga_fail(err, GA_ERR_LIMIT, c->format, "track count", -1,
                       "%u tracks exceed the limit of %u", ntracks, GA_MAX_TRACKS);
    c->tracks = calloc(ntracks ? ntracks : 1, sizeof *c->tracks);
    if (!c->tracks) return ga_nomem(err, c->format);
    c->ntracks = ntracks;
    return GA_OK;
}

int ga_clip_alloc_entries(ga_clip *c, uint32_t nentries, ga_error *err)
{
    if (nentries > GA_MAX_TRACKS)
        return ga_fail(err, GA_ERR_LIMIT, c->format, "entry count", -1,
                       "%u entries exceed the limit of %u", nentries, GA_MAX_TRACKS);
    c->entries = calloc(nentries ? nentries : 1, sizeof *c->entries);
    if (!c->entries) return ga_nomem(err, c->format);
    c->nentries = nentries;
    return GA_OK;
}

/* Points t's five key arrays into `block` (n * 17 bytes, n = nkeys or 1);
 * slopes and codes start at zero. */
static void track_in_block(ga_track *t, float *block, uint32_t nkeys, int borrowed)
{
    size_t n = nkeys ? nkeys : 1;
    t->borrowed = (uint8_t)borrowed;
    t->time = block;
    t->value = block + n;
    t->in_slope = block + 2 * n;
    t->out_slope = block + 3 * n;
    t->interp = (uint8_t *)(block + 4 * n);
    memset(t->in_slope, 0, n * (2 * sizeof(float) + 1));
    t->nkeys = nkeys;
}

int ga_track_alloc(ga_track *t, uint32_t nkeys, ga_error *err)
{
    if (nkeys > GA_MAX_KEYS_TOTAL)
        return ga_fail(err, GA_ERR_LIMIT, "", "key count", -1,
                       "%u keys exceed the limit of %u", nkeys, GA_MAX_KEYS_TOTAL);
    /* One block per track: times, values, in and out slopes, then the
     * interpolation codes (ga_track_free frees it through t->time). */
    size_t n = nkeys ? nkeys : 1;
    float *block = malloc(n * (4 * sizeof(float) + 1));
    if (!block) {
        t->time = t->value = t->in_slope = t->out_slope = NULL;
        t->interp = NULL;
        return ga_nomem(err, "");
    }
    track_in_block(t, block, nkeys, 0);
    return GA_OK;
}

/* Bytes of one track's keys in a key block (ga_track_alloc's layout),
 * rounded up so that the next track's floats stay aligned. */
static size_t block_bytes(uint32_t nkeys)
{
    size_t n = nkeys ? nkeys : 1;
    return (n * (4 * sizeof(float) + 1) + 7) & ~(size_t)7;
}

int ga_clip_reserve_keys(ga_clip *c, uint64_t nkeys, uint32_t ntracks, ga_error *err)
{
    if (nkeys > GA_MAX_KEYS_TOTAL)
        return ga_fail(err, GA_ERR_LIMIT, c->format, "key count", -1,
                       "%llu keys exceed the limit of %u", (unsigned long long)nkeys, GA_MAX_KEYS_TOTAL);
    /* every track at least one key, each rounded up to 8 bytes */
    size_t size = (size_t)(nkeys + ntracks) * (4 * sizeof(float) + 1) + (size_t)ntracks * 8;
    free(c->key_block);
    c->key_block = malloc(size);
    if (!c->key_block) {
        c->key_block_size = c->key_block_used = 0;
        return ga_nomem(err, c->format);
    }
    c->key_block_size = size;
    c->key_block_used = 0;
    return GA_OK;
}

int ga_clip_track_alloc(ga_clip *c, ga_track *t, uint32_t nkeys, ga_error *err)
{
    size_t need = block_bytes(nkeys);
    if (!c->key_block || c->key_block_size - c->key_block_used < need) return ga_track_alloc(t, nkeys, err);
    float *block = (float *)((uint8_t *)c->key_block + c->key_block_used);
    c->key_block_used += need;
    track_in_block(t, block, nkeys, 1); /* (a view: the clip frees the block) */
    return GA_OK;
}

int ga_track_copy(ga_track *dst, const ga_track *src, ga_error *err)
{
    memset(dst, 0, sizeof *dst);
    dst->target = src->target;
    dst->channel = src->channel;
    dst->axis = src->axis;
    if (src->target_name) {
        dst->target_name = ga_strdup(src->target_name);
        if (!dst->target_name) return ga_nomem(err, "");
    }
    int rc = ga_track_alloc(dst, src->nkeys, err);
    if (rc) {
        free(dst->target_name);
        dst->target_name = NULL;
        return rc;
    }
    size_t n = src->nkeys;
    if (n) {
        memcpy(dst->time, src->time, n * sizeof(float));
        memcpy(dst->value, src->value, n * sizeof(float));
        memcpy(dst->in_slope, src->in_slope, n * sizeof(float));
        memcpy(dst->out_slope, src->out_slope, n * sizeof(float));
        memcpy(dst->interp, src->interp, n);
    }
    return GA_OK;
}

int ga_clip_copy(ga_clip *dst, const ga_clip *src, ga_error *err)
{
    *dst = *src;
    dst->tracks = NULL;
    dst->entries = NULL;
    dst->ntracks = dst->nentries = 0;
    /* the copy's tracks own their keys: the source's block stays its own */
    dst->key_block = NULL;
    dst->key_block_size = dst->key_block_used = 0;
    int rc = ga_clip_alloc_tracks(dst, src->ntracks, err);
    if (rc) return rc;
    for (uint32_t i = 0; i < src->ntracks; i++) {
        rc = ga_track_copy(&dst->tracks[i], &src->tracks[i], err);
        if (rc) {
            ga_clip_free(dst);
            return rc;
        }
    }
    rc = ga_clip_alloc_entries(dst, src->nentries, err);
    if (rc) {
        ga_clip_free(dst);
        return rc;
    }
    for (uint32_t i = 0; i < src->nentries; i++) {
        dst->entries[i] = src->entries[i];
        dst->entries[i].name = NULL;
        if (src->entries[i].name) {
            dst->entries[i].name = ga_strdup(src->entries[i].name);
            if (!dst->entries[i].name) {
                ga_clip_free(dst);
                return ga_nomem(err, src->format);
            }
        }
    }
    return GA_OK;
}

static int same_name(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

int ga_track_equal(const ga_track *a, const ga_track *b)
{
    if (a->target != b->target || a->channel != b->channel || a->axis != b->axis) return 0;
    if (!same_name(a->target_name, b->target_name)) return 0;
    if (a->nkeys != b->nkeys) return 0;
    size_t n = a->nkeys;
    if (!n) return 1;
    /* views of the same keys (a loaded file's tracks): equal without a look */
    if (a->time == b->time && a->value == b->value && a->in_slope == b->in_slope && a->out_slope == b->out_slope &&
        a->interp == b->interp)
        return 1;
    /* Bit comparison: -0.0 and 0.0 are different edits, NaN equals itself. */
    return memcmp(a->time, b->time, n * 4) == 0 && memcmp(a->value, b->value, n * 4) == 0 &&
           memcmp(a->in_slope, b->in_slope, n * 4) == 0 &&
           memcmp(a->out_slope, b->out_slope, n * 4) == 0 && memcmp(a->interp, b->interp, n) == 0;
}

float ga_channel_default(int channel, int axis)
{
    if (channel == GA_CH_SCALE) return 1.0f;
    if (channel == GA_CH_ROTATION_QUATERNION && axis == 0) return 1.0f;
    if (channel == GA_CH_VISIBILITY) return 1.0f; /* a shape without a table stays shown */
    return 0.0f;
}

int ga_channel_max_axis(int channel)
{
    if (channel == GA_CH_ROTATION_QUATERNION || channel == GA_CH_COLOR) return 3;
    if (channel == GA_CH_TEXTURE_INDEX || channel == GA_CH_VISIBILITY) return 0;
    return 2;
}
