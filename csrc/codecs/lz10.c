/* lz77: the container SM64DS wraps most of its files in, the four-byte tag
 * "LZ77" followed by a Nintendo LZ10 stream (type byte 0x10, 24-bit
 * decompressed size, then groups of one flag byte and eight tokens).
 *
 * Detection needs the tag AND the type byte: the game only decompresses
 * tagged files, and a bare stream cannot be told from data (a raw BCA with
 * 16-31 bones starts with byte 0x10 too).
 *
 * The compressor is our own (hash chains, one-step lazy matching).  It
 * never emits a copy from distance 1: the game decompresses with a routine
 * that writes 16 bits at a time, and for distance 1 at an odd output
 * position it reads the halfword it has not stored yet. */
#include "gameanim.h"

#include <stdlib.h>
#include <string.h>

#define LZ_FMT "lz77"
#define LZ_HEADER 8u    /* "LZ77", type byte, 24-bit size */
#define LZ_TYPE 0x10u
#define LZ_MAX_SIZE 0xFFFFFFu
#define LZ_WINDOW 4096u
#define LZ_MIN_MATCH 3u
#define LZ_MAX_MATCH 18u
#define LZ_MIN_DIST 2u
#define LZ_HASH_BITS 15
#define LZ_MAX_CANDIDATES 1024u

static int lz77_detect(const uint8_t *data, size_t size)
{
    return size >= 5 && memcmp(data, "LZ77", 4) == 0 && data[4] == LZ_TYPE;
}

static int lz77_unwrap(const uint8_t *data, size_t size, const ga_decode_opts *opts, uint8_t **out,
                       size_t *out_size, ga_error *err)
{
    *out = NULL;
    *out_size = 0;
    if (size < 4 || memcmp(data, "LZ77", 4) != 0)
        return ga_fail(err, GA_ERR_FORMAT, LZ_FMT, "tag", 0, "the data does not start with the 'LZ77' tag");
    if (size < LZ_HEADER)
        return ga_fail(err, GA_ERR_FORMAT, LZ_FMT, "header", 4,
                       "the LZ10 header needs 4 bytes after the tag but only %zu are present", size - 4);
    if (data[4] != LZ_TYPE)
        return ga_fail(err, GA_ERR_FORMAT, LZ_FMT, "type", 4,
                       "compression type 0x%02x is not LZ10 (0x10)", data[4]);
    size_t dsize = (size_t)data[5] | ((size_t)data[6] << 8) | ((size_t)data[7] << 16);
    size_t avail = size - LZ_HEADER;
    /* A reference takes at least two input bytes and yields at most 18
     * output bytes, so the stream can never expand beyond 9x.  A size over
     * that is a lie; refuse it before allocating anything. */
    if (dsize > avail * 9)
        return ga_fail(err, GA_ERR_LIMIT, LZ_FMT, "decompressed size", 5,
                       "the header declares %zu bytes, but %zu bytes of stream can produce at most %zu",
                       dsize, avail, avail * 9);
    if (dsize > GA_MAX_DECOMPRESSED)
        return ga_fail(err, GA_ERR_LIMIT, LZ_FMT, "decompressed size", 5,
                       "%zu bytes exceed the decompression limit of %zu", dsize, GA_MAX_DECOMPRESSED);
    int lim = ga_check_decoded(opts, size, dsize, 1, "decompressed bytes", LZ_FMT, "decompressed size", 5, err);
    if (lim) return lim;
    uint8_t *o = malloc(dsize ? dsize : 1);
    if (!o) return ga_nomem(err, LZ_FMT);
    size_t ip = LZ_HEADER, op = 0;
    int rc = GA_OK;
    while (op < dsize && !rc) {
        if (ip >= size) {
            rc = ga_fail(err, GA_ERR_FORMAT, LZ_FMT, "stream", (long long)ip,
                         "the stream ends after producing %zu of the %zu declared bytes", op, dsize);
            break;
        }
        unsigned flags = data[ip++];
        if (flags == 0 && size - ip >= 8 && dsize - op >= 8) {
            /* eight literals (most of a poorly compressible file) */
            memcpy(o + op, data + ip, 8);
            op += 8;
            ip += 8;
            continue;
        }
        for (unsigned bit = 0; bit < 8 && op < dsize; bit++, flags <<= 1) {
            if (!(flags & 0x80u)) {
                if (ip >= size) {
                    rc = ga_fail(err, GA_ERR_FORMAT, LZ_FMT, "stream", (long long)ip,
                                 "the stream ends after producing %zu of the %zu declared bytes", op, dsize);
                    break;
                }
                o[op++] = data[ip++];
                continue;
            }
            if (size - ip < 2) {
                rc = ga_fail(err, GA_ERR_FORMAT, LZ_FMT, "back-reference", (long long)ip,
                             "the stream ends inside a back-reference after producing %zu of %zu bytes", op,
                             dsize);
                break;
            }
            size_t len = (size_t)(data[ip] >> 4) + LZ_MIN_MATCH;
            size_t dist = (((size_t)(data[ip] & 0x0F) << 8) | data[ip + 1]) + 1;
            if (dist > op) {
                rc = ga_fail(err, GA_ERR_FORMAT, LZ_FMT, "back-reference", (long long)ip,
                             "copies from %zu bytes back, before the start of the output (%zu bytes so far)",
                             dist, op);
                break;
            }
            if (len > dsize - op) {
                rc = ga_fail(err, GA_ERR_FORMAT, LZ_FMT, "back-reference", (long long)ip,
                             "copies %zu bytes but only %zu remain of the %zu declared", len, dsize - op, dsize);
                break;
            }
            if (dist >= len)
                memcpy(o + op, o + op - dist, len);
            else /* the copy overlaps its own output: byte by byte, as the game does */
                for (size_t i = 0; i < len; i++) o[op + i] = o[op + i - dist];
            op += len;
            ip += 2;
        }
    }
    if (rc) {
        free(o);
        return rc;
    }
    /* Bytes after the stream (alignment padding) are allowed and ignored. */
    *out = o;
    *out_size = dsize;
    return GA_OK;
}

static uint32_t lz_hash(const uint8_t *p)
{
    uint32_t x = ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
    return (x * 2654435761u) >> (32 - LZ_HASH_BITS);
}

typedef struct lz_state {
    const uint8_t *data;
    size_t size;
    int32_t *head; /* hash -> most recent position, -1 = none */
    int32_t *prev; /* position -> previous position with the same hash */
    size_t inserted; /* positions [0, inserted) are in the chains */
} lz_state;

static void lz_insert_upto(lz_state *s, size_t pos)
{
    while (s->inserted < pos && s->inserted + LZ_MIN_MATCH <= s->size) {
        uint32_t h = lz_hash(s->data + s->inserted);
        s->prev[s->inserted] = s->head[h];
        s->head[h] = (int32_t)s->inserted;
        s->inserted++;
    }
    if (s->inserted < pos) s->inserted = pos;
}

/* Longest match for position p at a distance of 2..4096 bytes; the
 * nearest one wins among equals.  Returns the length (0 if under 3). */
static size_t lz_longest(lz_state *s, size_t p, size_t *dist)
{
    size_t best = 0;
    if (p + LZ_MIN_MATCH > s->size) return 0;
    lz_insert_upto(s, p);
    size_t limit = s->size - p < LZ_MAX_MATCH ? s->size - p : LZ_MAX_MATCH;
    unsigned tries = 0;
    for (int32_t c = s->head[lz_hash(s->data + p)]; c >= 0 && tries < LZ_MAX_CANDIDATES;
         c = s->prev[c], tries++) {
        size_t d = p - (size_t)c;
        if (d > LZ_WINDOW) break;
        if (d < LZ_MIN_DIST) continue;
        size_t n = 0;
        while (n < limit && s->data[(size_t)c + n] == s->data[p + n]) n++;
        if (n > best) {
            best = n;
            *dist = d;
            if (n == limit) break;
        }
    }
    return best >= LZ_MIN_MATCH ? best : 0;
}

static int lz77_wrap(const uint8_t *data, size_t size, ga_buf *out, ga_error *err)
{
    if (size > LZ_MAX_SIZE)
        return ga_fail(err, GA_ERR_ENCODE, LZ_FMT, "decompressed size", -1,
                       "%zu bytes exceed the %u bytes an LZ10 header can state", size, LZ_MAX_SIZE);
    size_t start = out->len;
    ga_buf_put(out, "LZ77", 4);
    ga_buf_u8(out, LZ_TYPE);
    ga_buf_u8(out, (uint8_t)(size & 0xFF));
    ga_buf_u8(out, (uint8_t)((size >> 8) & 0xFF));
    ga_buf_u8(out, (uint8_t)((size >> 16) & 0xFF));
    lz_state s;
    s.data = data;
    s.size = size;
    s.inserted = 0;
    s.head = malloc(((size_t)1 << LZ_HASH_BITS) * sizeof *s.head);
    s.prev = malloc((size ? size : 1) * sizeof *s.prev);
    if (!s.head || !s.prev) {
        free(s.head);
        free(s.prev);
        return ga_nomem(err, LZ_FMT);
    }
    for (size_t i = 0; i < ((size_t)1 << LZ_HASH_BITS); i++) s.head[i] = -1;

    size_t p = 0;
    size_t flag_at = 0;
    unsigned ntok = 8;
    size_t pend_len = 0, pend_dist = 0; /* lazy match carried from the previous position */
    int have_pend = 0;
    while (p < size && !out->failed) {
        if (ntok == 8) {
            flag_at = out->len;
            ga_buf_u8(out, 0);
            ntok = 0;
            if (out->failed) break;
        }
        size_t dist = 0, len;
        if (have_pend) {
            len = pend_len;
            dist = pend_dist;
            have_pend = 0;
        } else {
            len = lz_longest(&s, p, &dist);
        }
        if (len && len < LZ_MAX_MATCH) {
            /* One-step lazy matching: a longer match starting at the next
             * byte is worth a literal here. */
            size_t d2 = 0;
            size_t l2 = lz_longest(&s, p + 1, &d2);
            if (l2 > len) {
                pend_len = l2;
                pend_dist = d2;
                have_pend = 1;
                len = 0;
            }
        }
        if (len) {
            out->data[flag_at] |= (uint8_t)(0x80u >> ntok);
            size_t code = dist - 1;
            ga_buf_u8(out, (uint8_t)(((len - LZ_MIN_MATCH) << 4) | (code >> 8)));
            ga_buf_u8(out, (uint8_t)(code & 0xFF));
            p += len;
        } else {
            ga_buf_u8(out, data[p]);
            p++;
        }
        ntok++;
    }
    free(s.head);
    free(s.prev);
    /* The tagged file is padded with zeros to a multiple of 4 bytes, as the
     * usual DS tools do; the decompressor ignores what follows the stream. */
    size_t pad = (4 - ((out->len - start) & 3)) & 3;
    ga_buf_fill(out, 0, pad);
    if (out->failed) return ga_nomem(err, LZ_FMT);
    return GA_OK;
}

const ga_wrapper ga_wrapper_lz77 = {"lz77", lz77_detect, lz77_unwrap, lz77_wrap, ".lz;.lz77"};
