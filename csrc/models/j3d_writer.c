/* The shared pieces of the J3D chunk encoders: padding and chunk framing
 * (j3d_writer.h).  The splice itself is in j3d_splice.c. */
#include "j3d_writer.h"

#include <string.h>

const char GA_J3D_PADDING[] = "This is padding data to alignment.";

int ga_j3d_pad(ga_buf *b, size_t start, size_t align)
{
    return ga_buf_pad_text(b, start, align, GA_J3D_PADDING);
}

int ga_j3d_pad_zero(ga_buf *b, size_t start, size_t align)
{
    size_t n = (align - ((b->len - start) & (align - 1))) & (align - 1);
    return n ? ga_buf_fill(b, 0, n) : GA_OK;
}

size_t ga_j3d_chunk_begin(ga_buf *b, const char tag[4])
{
    size_t start = b->len;
    ga_buf_put(b, tag, 4);
    ga_buf_u32be(b, 0);
    return start;
}

int ga_j3d_chunk_end(ga_buf *b, size_t start)
{
    if (ga_j3d_pad(b, start, 32) != GA_OK || b->failed) return GA_ERR_NOMEM;
    ga_buf_set_u32be(b, start + 4, (uint32_t)(b->len - start));
    return GA_OK;
}
