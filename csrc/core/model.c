/* Model files: detection, loading (through the compression wrappers, as
 * ga_load does for animations) and the helpers the decoders in
 * csrc/models/ share.  See model.h and docs/models.md. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

const char *ga_rig_family_name(ga_rig_family f)
{
    return f == GA_RIG_J3D ? "j3d" : f == GA_RIG_SM64DS ? "sm64ds" : "bk";
}

void ga_model_init(ga_model *m)
{
    memset(m, 0, sizeof *m);
    m->calc = GA_CALC_NONE;
    m->bk_scale = 1.0f;
}

void ga_model_free(ga_model *m)
{
    if (m->bones)
        for (uint32_t i = 0; i < m->nbones; i++) free(m->bones[i].name);
    free(m->bones);
    free(m->chunks);
    free(m->inverse_binds);
    free(m->inf1_nodes);
    free(m->envelope_counts);
    free(m->envelope_joints);
    free(m->envelope_weights);
    free(m->draw_is_envelope);
    free(m->draw_index);
    free(m->data);
    ga_model_init(m);
}

int ga_model_start(ga_model *out, const char *format, ga_rig_family family, const uint8_t *data, size_t size,
                   ga_error *err)
{
    ga_model_init(out);
    out->format = format;
    out->family = family;
    out->data = malloc(size ? size : 1);
    if (!out->data) return ga_nomem(err, format);
    if (size) memcpy(out->data, data, size);
    out->size = size;
    return GA_OK;
}

int ga_model_alloc_bones(ga_model *m, uint32_t n, ga_error *err)
{
    m->bones = calloc(n ? n : 1, sizeof *m->bones);
    if (!m->bones) return ga_nomem(err, m->format);
    m->nbones = n;
    for (uint32_t i = 0; i < n; i++) {
        ga_model_bone *b = &m->bones[i];
        b->parent = -1;
        b->bone_id = -1;
        b->data_index = i;
        for (int k = 0; k < 3; k++) b->scale[k] = 1.0f;
    }
    return GA_OK;
}

int ga_model_read_name(const ga_reader *r, size_t off, const char *field, char **name, size_t *len)
{
    int rc = ga_need(r, off, 1, field);
    if (rc) return rc;
    /* (searched no further than the longest name allowed: a table of many
     * names at one far offset costs no more than its names' limit each) */
    size_t avail = r->size - off;
    if (avail > GA_MAX_STRING + 1) avail = GA_MAX_STRING + 1;
    const uint8_t *z = memchr(r->data + off, 0, avail);
    if (!z && avail > GA_MAX_STRING)
        return ga_fail(r->err, GA_ERR_LIMIT, r->format, field, (long long)off,
                       "the name is over the limit of %u bytes", GA_MAX_STRING);
    if (!z)
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, field, (long long)off,
                       "the name has no terminating NUL before the end of the data");
    size_t n = (size_t)(z - (r->data + off));
    *name = malloc(n + 1);
    if (!*name) return ga_nomem(r->err, r->format);
    memcpy(*name, r->data + off, n);
    (*name)[n] = 0;
    *len = n;
    return GA_OK;
}

static int best_model(const uint8_t *data, size_t size, const ga_model_format **out)
{
    int best = 0;
    *out = NULL;
    for (size_t i = 0; ga_model_formats[i]; i++) {
        int s = ga_model_formats[i]->probe(data, size);
        if (s > best) {
            best = s;
            *out = ga_model_formats[i];
        }
    }
    return best;
}

const ga_model_format *ga_detect_model_format(const uint8_t *data, size_t size)
{
    const ga_model_format *f;
    best_model(data, size, &f);
    return f;
}

/* Detects and decodes unwrapped bytes.  An animation format that claims
 * them at least as surely as the best model probe wins: then the bytes are
 * an animation, and the error says so. */
static int decode_payload(const uint8_t *data, size_t size, const ga_decode_opts *opts, const char *wrapper,
                          ga_model *out, ga_error *err)
{
    const ga_model_format *f;
    int score = best_model(data, size, &f);
    const ga_format *anim = ga_detect_format(data, size);
    if (anim && anim->probe(data, size) >= score)
        return ga_fail(err, GA_ERR_FORMAT, anim->name, "", -1,
                       "this is an animation file (%s%s%s), not a model: use gameanim.load to read it",
                       anim->description, wrapper ? ", compressed with " : "", wrapper ? wrapper : "");
    if (!f) {
        char magic[32];
        ga_describe_magic(data, size, magic, sizeof magic);
        return ga_fail(err, GA_ERR_FORMAT, wrapper ? wrapper : "unknown", "magic", 0,
                       "%s%zu bytes are not a recognised model file (first bytes %s); supported: J3D BMD/BDL, "
                       "SM64DS BMD, Banjo-Kazooie model bin, optionally wrapped in LZ77, Yaz0, Yay0 or rarezip",
                       wrapper ? "the decompressed " : "", size, magic[0] ? magic : "none");
    }
    return f->decode(data, size, opts, out, err);
}

int ga_load_model(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_model *out,
                  const ga_wrapper **wrapper, ga_error *err)
{
    ga_model_init(out);
    *wrapper = NULL;
    if (size > GA_MAX_INPUT_SIZE)
        return ga_fail(err, GA_ERR_LIMIT, "", "file size", 0, "%zu bytes exceed the input limit of %zu bytes",
                       size, GA_MAX_INPUT_SIZE);
    ga_decode_opts o = {0};
    if (opts) o = *opts;
    o.input_size = size;
    ga_unwrapped u;
    int rc = ga_unwrap_first(data, size, &o, &u, err);
    if (rc) return rc;
    if (u.wrapper) {
        rc = decode_payload(u.payload, u.size, &o, u.wrapper->name, out, err);
        free(u.payload);
        if (rc) return rc;
        *wrapper = u.wrapper;
        return GA_OK;
    }
    /* a wrapper's signature it could not unwrap: its error, unless a model
     * probe is sure of the bytes (as ga_load does) */
    const ga_model_format *f;
    if (u.wrap_failed && best_model(data, size, &f) < 50) {
        *err = u.wrap_err;
        return err->code;
    }
    return decode_payload(data, size, &o, NULL, out, err);
}
