/* jba: placeholder until the codec lands (see its issue).  Probes as
 * "not this format" so detection skips it. */
#include "gameanim.h"

static int jba_probe(const uint8_t *data, size_t size)
{
    (void)data;
    (void)size;
    return 0;
}

static int jba_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **raw,
                      ga_clip *clip, ga_error *err)
{
    (void)data;
    (void)size;
    (void)opts;
    (void)raw;
    (void)clip;
    return ga_fail(err, GA_ERR_FORMAT, "jba", "", -1, "not implemented yet");
}

static int jba_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    (void)ctx;
    (void)out;
    return ga_fail(err, GA_ERR_ENCODE, "jba", "", -1, "not implemented yet");
}

static void jba_free_raw(void *raw) { (void)raw; }

const ga_format ga_format_jba = {
    "jba", "(not implemented yet)", jba_probe, jba_decode, jba_encode, jba_free_raw, NULL, NULL,
};
