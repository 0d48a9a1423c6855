/* Yay0: the sibling of Yaz0 (magic "Yay0") that keeps its three kinds of
 * data in separate streams: 32-bit flag words, 16-bit back-references and
 * a byte stream of literals and long-copy lengths.  The tokens are the
 * Yaz0 ones, so both share the parser and the back-reference copy of nlz.c.  See
 * docs/formats/yaz0.md. */
#include "nlz.h"

#include <stdlib.h>
#include <string.h>

#define YAY0_HEADER 16u

static int yay0_detect(const uint8_t *data, size_t size)
{
    return size >= 4 && memcmp(data, "Yay0", 4) == 0;
}

/* Where a stream that starts at `start` ends: at the next stream start
 * after it (the streams may come in any order) or at the end of the input.
 * Nintendo's files never read across, because each stream holds exactly
 * what the decoder takes from it. */
static size_t stream_end(size_t start, size_t other1, size_t other2, size_t size)
{
    size_t end = size;
    if (other1 > start && other1 < end) end = other1;
    if (other2 > start && other2 < end) end = other2;
    return end;
}

/* The most output the streams can produce: every back-reference costs one
 * 16-bit link (at most 0x111 bytes out), every literal one data byte, and
 * each operation one flag bit.  In Nintendo's layout 32 references cost 4
 * flag bytes + 32 x 3 = 100 bytes for 32 x 0x111 bytes out: at most 87.36
 * times the input, as for Yaz0. */
static uint64_t yay0_max_output(size_t mask_bytes, size_t link_bytes, size_t data_bytes)
{
    uint64_t by_streams = (uint64_t)(link_bytes / 2) * NLZ_MAX + data_bytes;
    uint64_t by_flags = (uint64_t)(mask_bytes / 4) * 32u * NLZ_MAX;
    return by_streams < by_flags ? by_streams : by_flags;
}

static int yay0_unwrap(const uint8_t *data, size_t size, const ga_decode_opts *opts, uint8_t **out,
                       size_t *out_size, ga_error *err)
{
    *out = NULL;
    *out_size = 0;
    ga_reader r;
    ga_reader_init(&r, data, size, "yay0", err);
    int rc = ga_need(&r, 0, YAY0_HEADER, "header");
    if (rc) return rc;
    if (memcmp(data, "Yay0", 4) != 0)
        return ga_fail(err, GA_ERR_FORMAT, "yay0", "magic", 0, "the data does not start with 'Yay0'");
    uint32_t dsize = ga_get_u32be(data + 4);
    uint32_t link_off = ga_get_u32be(data + 8);
    uint32_t data_off = ga_get_u32be(data + 12);
    if (dsize > GA_MAX_DECOMPRESSED)
        return ga_fail(err, GA_ERR_LIMIT, "yay0", "decompressed size", 4,
                       "%u bytes exceed the decompressed-size limit of %zu bytes", dsize, GA_MAX_DECOMPRESSED);
    if (link_off < YAY0_HEADER || link_off > size)
        return ga_fail(err, GA_ERR_FORMAT, "yay0", "link table offset", 8,
                       "0x%x lies outside the stream area 0x10..0x%zx", link_off, size);
    if (data_off < YAY0_HEADER || data_off > size)
        return ga_fail(err, GA_ERR_FORMAT, "yay0", "data offset", 12,
                       "0x%x lies outside the stream area 0x10..0x%zx", data_off, size);
    size_t mask_end = stream_end(YAY0_HEADER, link_off, data_off, size);
    size_t link_end = stream_end(link_off, data_off, data_off, size);
    size_t data_end = stream_end(data_off, link_off, link_off, size);
    uint64_t most = yay0_max_output(mask_end - YAY0_HEADER, link_end - link_off, data_end - data_off);
    if (dsize > most)
        return ga_fail(err, GA_ERR_FORMAT, "yay0", "decompressed size", 4,
                       "%u bytes cannot come from %zu flag, %zu link and %zu data bytes (at most %llu)", dsize,
                       mask_end - YAY0_HEADER, link_end - link_off, data_end - data_off,
                       (unsigned long long)most);
    rc = ga_check_decoded(opts, size, dsize, 1, "decompressed bytes", "yay0", "decompressed size", 4, err);
    if (rc) return rc;
    uint8_t *o = malloc(dsize ? dsize : 1);
    if (!o) return ga_nomem(err, "yay0");

    size_t mp = YAY0_HEADER, lp = link_off, dp = data_off, op = 0;
    uint32_t mask = 0;
    unsigned nbits = 0;
    while (op < dsize) {
        if (nbits == 0) {
            if (mask_end - mp < 4) {
                rc = ga_fail(err, GA_ERR_FORMAT, "yay0", "flag word", (long long)mp,
                             "the flag stream (0x10..0x%zx) ends after %zu of %u decompressed bytes", mask_end,
                             op, dsize);
                goto fail;
            }
            mask = ga_get_u32be(data + mp);
            mp += 4;
            nbits = 32;
        }
        if (mask & 0x80000000u) {
            if (dp >= data_end) {
                rc = ga_fail(err, GA_ERR_FORMAT, "yay0", "literal byte", (long long)dp,
                             "the data stream (0x%x..0x%zx) ends after %zu of %u decompressed bytes", data_off,
                             data_end, op, dsize);
                goto fail;
            }
            o[op++] = data[dp++];
        } else {
            size_t at = lp;
            if (link_end - lp < 2) {
                rc = ga_fail(err, GA_ERR_FORMAT, "yay0", "back-reference", (long long)at,
                             "the link stream (0x%x..0x%zx) ends after %zu of %u decompressed bytes", link_off,
                             link_end, op, dsize);
                goto fail;
            }
            uint32_t link = ga_get_u16be(data + lp);
            lp += 2;
            size_t dist = (link & 0x0FFFu) + 1u;
            size_t n = link >> 12;
            if (n == 0) {
                if (dp >= data_end) {
                    rc = ga_fail(err, GA_ERR_FORMAT, "yay0", "copy length byte", (long long)dp,
                                 "the data stream ends before the length of the back-reference at 0x%zx", at);
                    goto fail;
                }
                n = (size_t)data[dp++] + 0x12u;
            } else {
                n += 2;
            }
            rc = ga_nlz_copy(o, &op, dsize, dist, n, "yay0", at, err);
            if (rc) goto fail;
        }
        mask <<= 1;
        nbits--;
    }
    /* Bytes after the streams (padding) are ignored, as the game does. */
    *out = o;
    *out_size = dsize;
    return GA_OK;
fail:
    free(o);
    return rc;
}

static int yay0_wrap(const uint8_t *data, size_t size, ga_buf *out, ga_error *err)
{
    if (size > GA_MAX_DECOMPRESSED)
        return ga_fail(err, GA_ERR_ENCODE, "yay0", "decompressed size", -1,
                       "%zu bytes exceed the decompressed-size limit of %zu bytes", size, GA_MAX_DECOMPRESSED);
    /* Worst cases: one flag bit per input byte, one link per 3 input bytes,
     * one data byte per input byte. */
    size_t nwords = size / 32 + 1;
    uint8_t *masks = malloc(nwords * 4);
    uint8_t *links = malloc((size / 3) * 2 + 2);
    uint8_t *bytes = malloc(size + 1);
    ga_nlz *m = ga_nlz_new(data, size);
    int rc = GA_OK;
    if (!masks || !links || !bytes || !m) {
        rc = ga_nomem(err, "yay0");
        goto done;
    }
    size_t nm = 0, nl = 0, nb = 0, in = 0;
    uint32_t word = 0, len, dist;
    unsigned nbits = 0;
    while (ga_nlz_next(m, &len, &dist)) {
        if (len == 1) {
            word |= 1u << (31 - nbits);
            bytes[nb++] = data[in];
        } else {
            uint32_t dv = dist - 1;
            uint32_t code = len < 0x12 ? ((len - 2) << 12) | dv : dv;
            links[nl++] = (uint8_t)(code >> 8);
            links[nl++] = (uint8_t)(code & 0xFF);
            if (len >= 0x12) bytes[nb++] = (uint8_t)(len - 0x12);
        }
        in += len;
        if (++nbits == 32) {
            for (int k = 0; k < 4; k++) masks[nm++] = (uint8_t)(word >> (24 - 8 * k));
            word = 0;
            nbits = 0;
        }
    }
    if (nbits)
        for (int k = 0; k < 4; k++) masks[nm++] = (uint8_t)(word >> (24 - 8 * k));

    /* Nintendo's order: header, flag words, links, data bytes. */
    size_t link_off = YAY0_HEADER + nm, data_off = link_off + nl;
    if (ga_buf_reserve(out, data_off + nb)) {
        rc = ga_nomem(err, "yay0");
        goto done;
    }
    ga_buf_put(out, "Yay0", 4);
    ga_buf_u32be(out, (uint32_t)size);
    ga_buf_u32be(out, (uint32_t)link_off);
    ga_buf_u32be(out, (uint32_t)data_off);
    ga_buf_put(out, masks, nm);
    ga_buf_put(out, links, nl);
    ga_buf_put(out, bytes, nb);
    if (out->failed) rc = ga_nomem(err, "yay0");
done:
    ga_nlz_free(m);
    free(masks);
    free(links);
    free(bytes);
    return rc;
}

const ga_wrapper ga_wrapper_yay0 = {"yay0", yay0_detect, yay0_unwrap, yay0_wrap, ".yay0"};
