/* rarezip wrapper: placeholder until the codec lands (see its issue). */
#include "gameanim.h"

static int rarezip_detect(const uint8_t *data, size_t size)
{
    (void)data;
    (void)size;
    return 0;
}

static int rarezip_unwrap(const uint8_t *data, size_t size, uint8_t **out, size_t *out_size, ga_error *err)
{
    (void)data;
    (void)size;
    (void)out;
    (void)out_size;
    return ga_fail(err, GA_ERR_FORMAT, "rarezip", "", -1, "not implemented yet");
}

static int rarezip_wrap(const uint8_t *data, size_t size, ga_buf *out, ga_error *err)
{
    (void)data;
    (void)size;
    (void)out;
    return ga_fail(err, GA_ERR_ENCODE, "rarezip", "", -1, "not implemented yet");
}

const ga_wrapper ga_wrapper_rarezip = {"rarezip", rarezip_detect, rarezip_unwrap, rarezip_wrap};
