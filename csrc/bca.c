/* bca: placeholder until the codec lands (see its issue).  Probes as
 * "not this format" so detection skips it. */
#include "gameanim.h"

static int bca_probe(const uint8_t *data, size_t size)
{
    (void)data;
    (void)size;
    return 0;
}

static int bca_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **raw,
                      ga_clip *clip, ga_error *err)
{
    (void)data;
    (void)size;
    (void)opts;
    (void)raw;
    (void)clip;
    return ga_fail(err, GA_ERR_FORMAT, "bca", "", -1, "not implemented yet");
}

static int bca_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    (void)ctx;
    (void)out;
    return ga_fail(err, GA_ERR_ENCODE, "bca", "", -1, "not implemented yet");
}

static void bca_free_raw(void *raw) { (void)raw; }

const ga_format ga_format_bca = {
    "bca", "(not implemented yet)", bca_probe, bca_decode, bca_encode, bca_free_raw, NULL, NULL,
};
