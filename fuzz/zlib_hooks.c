/* System zlib behind the core's inflate/deflate hooks, for builds without
 * Python (the fuzz targets).  The extension uses Python's zlib instead. */
#include <string.h>
#include <zlib.h>

#include "gameanim.h"

static int sys_inflate(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *consumed, size_t *produced,
                       char *msg, size_t msgcap)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, -15) != Z_OK) {
        snprintf(msg, msgcap, "zlib: inflateInit2 failed");
        return GA_ERR_NOMEM;
    }
    uint8_t spare;
    s.next_in = (Bytef *)src;
    s.avail_in = (uInt)n;
    s.next_out = cap ? dst : &spare;
    s.avail_out = (uInt)cap;
    int rc = inflate(&s, Z_FINISH);
    int out = GA_ERR_FORMAT;
    if (rc == Z_STREAM_END) {
        *consumed = n - s.avail_in;
        *produced = cap - s.avail_out;
        out = GA_OK;
    } else if (rc == Z_BUF_ERROR && s.avail_out == 0) {
        snprintf(msg, msgcap, "the deflate stream produces more data than the header declares");
    } else if (rc == Z_BUF_ERROR || rc == Z_OK) {
        snprintf(msg, msgcap, "the deflate stream ends before its final block (truncated?)");
    } else {
        snprintf(msg, msgcap, "zlib: %s", s.msg ? s.msg : "corrupt deflate stream");
    }
    inflateEnd(&s);
    return out;
}

static int sys_deflate(const uint8_t *src, size_t n, int level, ga_buf *out, char *msg, size_t msgcap)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (deflateInit2(&s, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        snprintf(msg, msgcap, "zlib: deflateInit2 failed");
        return GA_ERR_NOMEM;
    }
    size_t bound = deflateBound(&s, (uLong)n);
    if (ga_buf_reserve(out, bound)) {
        deflateEnd(&s);
        return GA_ERR_NOMEM;
    }
    s.next_in = (Bytef *)src;
    s.avail_in = (uInt)n;
    s.next_out = out->data + out->len;
    s.avail_out = (uInt)bound;
    int rc = deflate(&s, Z_FINISH);
    if (rc != Z_STREAM_END) {
        deflateEnd(&s);
        snprintf(msg, msgcap, "zlib: deflate failed");
        return GA_ERR_ENCODE;
    }
    out->len += bound - s.avail_out;
    deflateEnd(&s);
    return GA_OK;
}

void ga_fuzz_use_system_zlib(void) { ga_set_zlib(sys_inflate, sys_deflate); }
