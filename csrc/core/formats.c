/* The registry of formats and compression wrappers, and content-based
 * detection.  Adding a format: write csrc/formats/<name>.c defining
 * `const ga_format ga_format_<name>` and list it here. */
#include "gameanim.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>

extern const ga_format ga_format_bck;
extern const ga_format ga_format_btk;
extern const ga_format ga_format_bca;
extern const ga_format ga_format_bk;
extern const ga_format ga_format_jba;
extern const ga_format ga_format_brk;
extern const ga_format ga_format_bpk;
extern const ga_format ga_format_btp;
extern const ga_format ga_format_bva;
extern const ga_format ga_format_j3d_bca;

const ga_format *const ga_formats[] = {
    &ga_format_bck,
    &ga_format_btk,
    &ga_format_bca,
    &ga_format_bk,
    &ga_format_jba,
    &ga_format_brk,
    &ga_format_bpk,
    &ga_format_btp,
    &ga_format_bva,
    &ga_format_j3d_bca,
    NULL,
};

extern const ga_model_format ga_model_format_bmd;
extern const ga_model_format ga_model_format_sm64ds_bmd;
extern const ga_model_format ga_model_format_bk_model;

/* Model files (csrc/models/): read for their skeletons only. */
const ga_model_format *const ga_model_formats[] = {
    &ga_model_format_bmd,
    &ga_model_format_sm64ds_bmd,
    &ga_model_format_bk_model,
    NULL,
};

extern const ga_wrapper ga_wrapper_lz77;
extern const ga_wrapper ga_wrapper_yaz0;
extern const ga_wrapper ga_wrapper_yay0;
extern const ga_wrapper ga_wrapper_rarezip;

/* Tried in this order; each recognises its own signature. */
const ga_wrapper *const ga_wrappers[] = {
    &ga_wrapper_lz77,
    &ga_wrapper_yaz0,
    &ga_wrapper_yay0,
    &ga_wrapper_rarezip,
    NULL,
};

ga_inflate_fn ga_zlib_inflate = NULL;
ga_deflate_fn ga_zlib_deflate = NULL;

void ga_set_zlib(ga_inflate_fn inflate_fn, ga_deflate_fn deflate_fn)
{
    ga_zlib_inflate = inflate_fn;
    ga_zlib_deflate = deflate_fn;
}

const ga_format *ga_format_by_name(const char *name)
{
    for (size_t i = 0; ga_formats[i]; i++)
        if (strcmp(ga_formats[i]->name, name) == 0) return ga_formats[i];
    return NULL;
}

const ga_format *ga_rig_animation(const char *rig)
{
    for (size_t i = 0; ga_formats[i]; i++)
        if (ga_format_drives(ga_formats[i], rig)) return ga_formats[i];
    return NULL;
}

int ga_format_drives(const ga_format *fmt, const char *rig)
{
    return rig && fmt->traits.rig && strcmp(fmt->traits.rig, rig) == 0;
}

const ga_wrapper *ga_wrapper_by_name(const char *name)
{
    for (size_t i = 0; ga_wrappers[i]; i++)
        if (strcmp(ga_wrappers[i]->name, name) == 0) return ga_wrappers[i];
    return NULL;
}

const ga_format *ga_detect_format(const uint8_t *data, size_t size)
{
    const ga_format *best = NULL;
    int best_score = 0;
    for (size_t i = 0; ga_formats[i]; i++) {
        int s = ga_formats[i]->probe(data, size);
        if (s > best_score) {
            best_score = s;
            best = ga_formats[i];
        }
    }
    return best;
}

void ga_loaded_free(ga_loaded *l)
{
    if (l->format && l->raw) l->format->free_raw(l->raw);
    ga_clip_free(&l->clip);
    free(l->payload);
    memset(l, 0, sizeof *l);
}

void ga_describe_magic(const uint8_t *data, size_t size, char *buf, size_t cap)
{
    size_t n = size < 8 ? size : 8;
    size_t pos = 0;
    for (size_t i = 0; i < n && pos + 3 < cap; i++) pos += (size_t)snprintf(buf + pos, cap - pos, "%02x ", data[i]);
    if (pos) buf[pos - 1] = 0;
    else buf[0] = 0;
}

int ga_unwrap_first(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_unwrapped *out, ga_error *err)
{
    memset(out, 0, sizeof *out);
    /* A wrapper that recognises its signature and decompresses cleanly
     * wins; if it fails, the bytes may still be a bare file that happens to
     * start with the same bytes, so its error is only reported when nothing
     * else fits. */
    for (size_t i = 0; ga_wrappers[i]; i++) {
        const ga_wrapper *w = ga_wrappers[i];
        if (!w->detect(data, size)) continue;
        int rc = w->unwrap(data, size, opts, &out->payload, &out->size, &out->wrap_err);
        if (rc) {
            out->payload = NULL;
            if (rc == GA_ERR_NOMEM) {
                *err = out->wrap_err;
                return rc;
            }
            out->wrap_failed = 1;
            continue;
        }
        out->wrapper = w;
        return GA_OK;
    }
    return GA_OK;
}

/* The best model probe score of the bytes (0: none claims them). */
static int model_score(const uint8_t *data, size_t size)
{
    int best = 0;
    for (size_t i = 0; ga_model_formats[i]; i++) {
        int s = ga_model_formats[i]->probe(data, size);
        if (s > best) best = s;
    }
    return best;
}

/* A model file given to the animation loader: the error that says so. */
static int refuse_model(const uint8_t *data, size_t size, const char *wrapper, ga_error *err)
{
    const ga_model_format *m = ga_detect_model_format(data, size);
    return ga_fail(err, GA_ERR_FORMAT, m->name, "", -1,
                   "this is a model file (%s%s%s), not an animation: use gameanim.load_model to read its skeleton",
                   m->description, wrapper ? ", compressed with " : "", wrapper ? wrapper : "");
}

int ga_load(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_loaded *out,
            ga_error *err)
{
    memset(out, 0, sizeof *out);
    if (size > GA_MAX_INPUT_SIZE)
        return ga_fail(err, GA_ERR_LIMIT, "", "file size", 0,
                       "%zu bytes exceed the input limit of %zu bytes", size, GA_MAX_INPUT_SIZE);
    /* The decoders see the options with the size of what the caller gave:
     * a wrapped file's default limit follows its compressed size. */
    ga_decode_opts o = {0};
    if (opts) o = *opts;
    o.input_size = size;
    opts = &o;

    ga_unwrapped u;
    int rc = ga_unwrap_first(data, size, opts, &u, err);
    if (rc) return rc;
    if (u.wrapper) {
        const ga_wrapper *w = u.wrapper;
        uint8_t *payload = u.payload;
        size_t psize = u.size;
        const ga_format *f = ga_detect_format(payload, psize);
        if (!f || model_score(payload, psize) > f->probe(payload, psize)) {
            if (model_score(payload, psize)) rc = refuse_model(payload, psize, w->name, err);
            else {
                char magic[32];
                ga_describe_magic(payload, psize, magic, sizeof magic);
                rc = ga_fail(err, GA_ERR_FORMAT, w->name, "payload", 0,
                             "decompressed %zu bytes, but they are not a known animation format (first bytes %s)",
                             psize, magic);
            }
            free(payload);
            return rc;
        }
        rc = f->decode(payload, psize, opts, &out->raw, &out->clip, err);
        if (rc) {
            free(payload);
            return rc;
        }
        out->wrapper = w;
        out->payload = payload;
        out->payload_size = psize;
        out->format = f;
        return GA_OK;
    }
    const ga_format *f = ga_detect_format(data, size);
    /* A wrapper recognised its magic but could not unwrap: only a clean
     * match of another format (a magic, or a structure that fits exactly:
     * score >= 50) may still claim the bytes, so that a bare Banjo-Kazooie
     * file starting with 11 72 loads; a weak guess does not, and the
     * wrapper's error is the useful one. */
    if (f && u.wrap_failed && f->probe(data, size) < 50) f = NULL;
    int mscore = model_score(data, size);
    if (mscore && (!f || mscore > f->probe(data, size))) return refuse_model(data, size, NULL, err);
    if (!f) {
        if (u.wrap_failed) {
            *err = u.wrap_err;
            return err->code;
        }
        char magic[32];
        ga_describe_magic(data, size, magic, sizeof magic);
        return ga_fail(err, GA_ERR_FORMAT, "unknown", "magic", 0,
                       "not a recognised animation file (%zu bytes, first bytes %s); supported: BCK, BTK, BRK, "
                       "BPK, BTP, BVA, J3D and SM64DS BCA, Banjo-Kazooie animation, JBA, optionally wrapped in LZ77, Yaz0, Yay0 or rarezip",
                       size, magic[0] ? magic : "none");
    }
    rc = f->decode(data, size, opts, &out->raw, &out->clip, err);
    if (rc) return rc;
    out->format = f;
    return GA_OK;
}

int ga_applied_tracks(const ga_format *fmt, const ga_clip *clip, uint8_t *keep, ga_error *err)
{
    if (fmt && fmt->applied) return fmt->applied(clip, keep, err);
    memset(keep, 1, clip->ntracks);
    return GA_OK;
}
