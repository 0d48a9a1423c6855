/* Yaz0: Nintendo's byte-oriented LZ77 wrapper (magic "Yaz0"), used for most
 * GameCube and Wii files (SZS archives, loose BCK/BTK).  See
 * docs/formats/yaz0.md.
 * The tokens and their parser are shared with Yay0 (nlz.c). */
#include "nlz.h"

#include <stdlib.h>
#include <string.h>

#define YAZ0_HEADER 16u
/* ------------------------------------------------------------------ */
/* Yaz0                                                                */

static int yaz0_detect(const uint8_t *data, size_t size)
{
    return size >= 4 && memcmp(data, "Yaz0", 4) == 0;
}

/* The most output `n` stream bytes can produce (exact): a group of one
 * flag byte and eight 3-byte references yields 8 x 0x111 bytes from 25
 * bytes (ratio 87.36); the bytes of a last, partial group after its flag
 * byte yield 0x111 per 3, and then 17 for 2 left over (a 2-byte reference)
 * or 1 for 1 (a literal). */
static uint64_t yaz0_max_output(size_t n)
{
    uint64_t groups = n / 25, rest = n % 25;
    uint64_t max = groups * 8u * NLZ_MAX;
    if (rest > 1) {
        uint64_t b = rest - 1;
        max += b / 3 * NLZ_MAX + (b % 3 == 2 ? 17u : b % 3);
    }
    return max;
}

static int yaz0_unwrap(const uint8_t *data, size_t size, const ga_decode_opts *opts, uint8_t **out,
                       size_t *out_size, ga_error *err)
{
    *out = NULL;
    *out_size = 0;
    ga_reader r;
    ga_reader_init(&r, data, size, "yaz0", err);
    int rc = ga_need(&r, 0, YAZ0_HEADER, "header");
    if (rc) return rc;
    if (memcmp(data, "Yaz0", 4) != 0)
        return ga_fail(err, GA_ERR_FORMAT, "yaz0", "magic", 0, "the data does not start with 'Yaz0'");
    uint32_t dsize = ga_get_u32be(data + 4);
    if (dsize > GA_MAX_DECOMPRESSED)
        return ga_fail(err, GA_ERR_LIMIT, "yaz0", "decompressed size", 4,
                       "%u bytes exceed the decompressed-size limit of %zu bytes", dsize, GA_MAX_DECOMPRESSED);
    uint64_t most = yaz0_max_output(size - YAZ0_HEADER);
    if (dsize > most)
        return ga_fail(err, GA_ERR_FORMAT, "yaz0", "decompressed size", 4,
                       "%u bytes cannot come from %zu bytes of compressed data (at most %llu; Yaz0 expands at "
                       "most 2184/25 times)",
                       dsize, size - YAZ0_HEADER, (unsigned long long)most);
    rc = ga_check_decoded(opts, size, dsize, 1, "decompressed bytes", "yaz0", "decompressed size", 4, err);
    if (rc) return rc;
    uint8_t *o = malloc(dsize ? dsize : 1);
    if (!o) return ga_nomem(err, "yaz0");

    size_t ip = YAZ0_HEADER, op = 0;
    unsigned flags = 0, nbits = 0;
    while (op < dsize) {
        if (nbits == 0) {
            if (ip >= size) {
                rc = ga_fail(err, GA_ERR_FORMAT, "yaz0", "flag byte", (long long)ip,
                             "the stream ends after %zu of %u decompressed bytes", op, dsize);
                goto fail;
            }
            flags = data[ip++];
            nbits = 8;
        }
        if (flags & 0x80u) {
            if (ip >= size) {
                rc = ga_fail(err, GA_ERR_FORMAT, "yaz0", "literal byte", (long long)ip,
                             "the stream ends after %zu of %u decompressed bytes", op, dsize);
                goto fail;
            }
            o[op++] = data[ip++];
        } else {
            size_t at = ip;
            if (size - ip < 2) {
                rc = ga_fail(err, GA_ERR_FORMAT, "yaz0", "back-reference", (long long)at,
                             "the stream ends inside a back-reference after %zu of %u decompressed bytes", op,
                             dsize);
                goto fail;
            }
            uint32_t b0 = data[ip], b1 = data[ip + 1];
            ip += 2;
            size_t dist = (((b0 & 0x0Fu) << 8) | b1) + 1u;
            size_t n = b0 >> 4;
            if (n == 0) {
                if (ip >= size) {
                    rc = ga_fail(err, GA_ERR_FORMAT, "yaz0", "back-reference", (long long)at,
                                 "the stream ends before the length byte of a back-reference after %zu of %u "
                                 "decompressed bytes",
                                 op, dsize);
                    goto fail;
                }
                n = (size_t)data[ip++] + 0x12u;
            } else {
                n += 2;
            }
            rc = ga_nlz_copy(o, &op, dsize, dist, n, "yaz0", at, err);
            if (rc) goto fail;
        }
        flags = (flags << 1) & 0xFFu;
        nbits--;
    }
    /* Bytes after the last chunk (archive padding) are ignored, as the
     * game does; an unedited file keeps them because the binding returns
     * the original bytes. */
    *out = o;
    *out_size = dsize;
    return GA_OK;
fail:
    free(o);
    return rc;
}

static int yaz0_wrap(const uint8_t *data, size_t size, ga_buf *out, ga_error *err)
{
    if (size > GA_MAX_DECOMPRESSED)
        return ga_fail(err, GA_ERR_ENCODE, "yaz0", "decompressed size", -1,
                       "%zu bytes exceed the decompressed-size limit of %zu bytes", size, GA_MAX_DECOMPRESSED);
    /* Worst case: every byte a literal, plus one flag byte per eight. */
    size_t worst = YAZ0_HEADER + size + size / 8 + 1;
    if (ga_buf_reserve(out, worst)) return ga_nomem(err, "yaz0");
    ga_nlz *m = ga_nlz_new(data, size);
    if (!m) return ga_nomem(err, "yaz0");

    uint8_t *base = out->data + out->len;
    memcpy(base, "Yaz0", 4);
    base[4] = (uint8_t)(size >> 24);
    base[5] = (uint8_t)(size >> 16);
    base[6] = (uint8_t)(size >> 8);
    base[7] = (uint8_t)size;
    memset(base + 8, 0, 8); /* reserved; written as zero (docs/formats/yaz0.md) */
    uint8_t *p = base + YAZ0_HEADER;
    uint8_t *flag = NULL;
    unsigned nbits = 0;
    size_t in = 0;
    uint32_t len, dist;
    while (ga_nlz_next(m, &len, &dist)) {
        if (nbits == 0) {
            flag = p++;
            *flag = 0;
            nbits = 8;
        }
        nbits--;
        if (len == 1) {
            *flag |= (uint8_t)(1u << nbits);
            *p++ = data[in];
        } else {
            uint32_t dv = dist - 1;
            if (len < 0x12) {
                *p++ = (uint8_t)(((len - 2) << 4) | (dv >> 8));
                *p++ = (uint8_t)(dv & 0xFF);
            } else {
                *p++ = (uint8_t)(dv >> 8);
                *p++ = (uint8_t)(dv & 0xFF);
                *p++ = (uint8_t)(len - 0x12);
            }
        }
        in += len;
    }
    ga_nlz_free(m);
    out->len += (size_t)(p - base);
    return GA_OK;
}

const ga_wrapper ga_wrapper_yaz0 = {"yaz0", yaz0_detect, yaz0_unwrap, yaz0_wrap, ".szs;.yaz0"};
