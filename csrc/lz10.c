/* lz77 wrapper: placeholder until the codec lands (see its issue). */
#include "gameanim.h"

static int lz77_detect(const uint8_t *data, size_t size)
{
    (void)data;
    (void)size;
    return 0;
}

static int lz77_unwrap(const uint8_t *data, size_t size, uint8_t **out, size_t *out_size, ga_error *err)
{
    (void)data;
    (void)size;
    (void)out;
    (void)out_size;
    return ga_fail(err, GA_ERR_FORMAT, "lz77", "", -1, "not implemented yet");
}

static int lz77_wrap(const uint8_t *data, size_t size, ga_buf *out, ga_error *err)
{
    (void)data;
    (void)size;
    (void)out;
    return ga_fail(err, GA_ERR_ENCODE, "lz77", "", -1, "not implemented yet");
}

const ga_wrapper ga_wrapper_lz77 = {"lz77", lz77_detect, lz77_unwrap, lz77_wrap};
