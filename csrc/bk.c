/* bk: placeholder until the codec lands (see its issue).  Probes as
 * "not this format" so detection skips it. */
#include "gameanim.h"

static int bk_probe(const uint8_t *data, size_t size)
{
    (void)data;
    (void)size;
    return 0;
}

static int bk_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **raw,
                      ga_clip *clip, ga_error *err)
{
    (void)data;
    (void)size;
    (void)opts;
    (void)raw;
    (void)clip;
    return ga_fail(err, GA_ERR_FORMAT, "bk", "", -1, "not implemented yet");
}

static int bk_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    (void)ctx;
    (void)out;
    return ga_fail(err, GA_ERR_ENCODE, "bk", "", -1, "not implemented yet");
}

static void bk_free_raw(void *raw) { (void)raw; }

const ga_format ga_format_bk = {
    "bk", "(not implemented yet)", bk_probe, bk_decode, bk_encode, bk_free_raw, NULL, NULL,
};
