/* rarezip: Rare's N64 compression wrapper as Banjo-Kazooie stores its
 * assets.  Layout: bytes 11 72, the decompressed size as a big-endian u32,
 * then a raw deflate stream (RFC 1951, no zlib or gzip framing).  Rare's
 * tool (gzip 1.2.4's deflate, level 6) pads the whole file with 0xAA to a
 * multiple of 8; we write the same padding.
 *
 * Deflate itself goes through the ga_zlib_inflate / ga_zlib_deflate hooks
 * (Python's zlib in the module, system zlib in standalone builds), so the
 * recompressed bytes of an edited file come from zlib, not from Rare's
 * compressor: they inflate to the same data but can differ byte for byte.
 * See docs/formats/bk.md. */
#include "gameanim.h"

#include <stdlib.h>
#include <string.h>

#define RAREZIP_HEADER 6u
/* Deflate cannot expand data by more than 1032:1 (a 258-byte match per two
 * bits); a size field above that is a lie we can refuse before allocating. */
#define RAREZIP_MAX_RATIO 1032u
#define RAREZIP_LEVEL 6
#define RAREZIP_PAD_BYTE 0xAA
#define RAREZIP_ALIGN 8u

static int rarezip_detect(const uint8_t *data, size_t size)
{
    return size >= RAREZIP_HEADER && data[0] == 0x11 && data[1] == 0x72;
}

static int rarezip_unwrap(const uint8_t *data, size_t size, const ga_decode_opts *opts, uint8_t **out,
                          size_t *out_size, ga_error *err)
{
    ga_reader r;
    ga_reader_init(&r, data, size, "rarezip", err);
    *out = NULL;
    *out_size = 0;
    int rc = ga_need(&r, 0, RAREZIP_HEADER, "header");
    if (rc) return rc;
    if (data[0] != 0x11 || data[1] != 0x72)
        return ga_fail(err, GA_ERR_FORMAT, "rarezip", "magic", 0, "expected the bytes 11 72, found %02x %02x",
                       data[0], data[1]);
    uint32_t declared = ga_get_u32be(data + 2);
    size_t stream = size - RAREZIP_HEADER;
    if ((size_t)declared > GA_MAX_DECOMPRESSED)
        return ga_fail(err, GA_ERR_LIMIT, "rarezip", "decompressed size", 2,
                       "%u bytes exceed the decompression limit of %zu bytes", declared, GA_MAX_DECOMPRESSED);
    /* stream <= 256 MiB here (the input limit), so the product fits 64 bits */
    if ((uint64_t)declared > (uint64_t)stream * RAREZIP_MAX_RATIO)
        return ga_fail(err, GA_ERR_FORMAT, "rarezip", "decompressed size", 2,
                       "%u bytes cannot come from a %zu-byte deflate stream (deflate expands at most %u:1)",
                       declared, stream, RAREZIP_MAX_RATIO);
    rc = ga_check_decoded(opts, size, declared, 1, "decompressed bytes", "rarezip", "decompressed size", 2, err);
    if (rc) return rc;
    if (!ga_zlib_inflate)
        return ga_fail(err, GA_ERR_FORMAT, "rarezip", "", -1,
                       "zlib not available: no inflate function was registered (ga_set_zlib)");
    uint8_t *buf = malloc(declared ? declared : 1);
    if (!buf) return ga_nomem(err, "rarezip");
    size_t consumed = 0, produced = 0;
    char msg[200] = "";
    rc = ga_zlib_inflate(data + RAREZIP_HEADER, stream, buf, declared, &consumed, &produced, msg, sizeof msg);
    if (rc) {
        free(buf);
        if (rc == GA_ERR_NOMEM) return ga_nomem(err, "rarezip");
        return ga_fail(err, GA_ERR_FORMAT, "rarezip", "deflate stream", RAREZIP_HEADER, "%s",
                       msg[0] ? msg : "the deflate stream is corrupt");
    }
    if (produced != declared) {
        free(buf);
        return ga_fail(err, GA_ERR_FORMAT, "rarezip", "decompressed size", 2,
                       "the header declares %u bytes but the deflate stream inflates to %zu", declared, produced);
    }
    /* Whatever follows the stream (Rare's 0xAA padding, or ROM alignment)
     * is ignored, as the game's inflate ignores it. */
    *out = buf;
    *out_size = produced;
    return GA_OK;
}

static int rarezip_wrap(const uint8_t *data, size_t size, ga_buf *out, ga_error *err)
{
    if (size > 0xFFFFFFFFu)
        return ga_fail(err, GA_ERR_ENCODE, "rarezip", "decompressed size", -1,
                       "%zu bytes do not fit the 32-bit size field", size);
    if (!ga_zlib_deflate)
        return ga_fail(err, GA_ERR_ENCODE, "rarezip", "", -1,
                       "zlib not available: no deflate function was registered (ga_set_zlib)");
    size_t start = out->len;
    if (ga_buf_u8(out, 0x11) || ga_buf_u8(out, 0x72) || ga_buf_u32be(out, (uint32_t)size))
        return ga_nomem(err, "rarezip");
    char msg[200] = "";
    int rc = ga_zlib_deflate(data, size, RAREZIP_LEVEL, out, msg, sizeof msg);
    if (rc) {
        if (rc == GA_ERR_NOMEM) return ga_nomem(err, "rarezip");
        return ga_fail(err, GA_ERR_ENCODE, "rarezip", "deflate stream", -1, "%s",
                       msg[0] ? msg : "deflate failed");
    }
    size_t len = out->len - start;
    size_t pad = (RAREZIP_ALIGN - len % RAREZIP_ALIGN) % RAREZIP_ALIGN;
    if (ga_buf_fill(out, RAREZIP_PAD_BYTE, pad) || out->failed) return ga_nomem(err, "rarezip");
    return GA_OK;
}

const ga_wrapper ga_wrapper_rarezip = {"rarezip", rarezip_detect, rarezip_unwrap, rarezip_wrap, ""};
