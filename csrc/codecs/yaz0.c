/* Yaz0: Nintendo's byte-oriented LZ77 wrapper (magic "Yaz0"), used for most
 * GameCube and Wii files (SZS archives, loose BCK/BTK).  See
 * docs/formats/yaz0.md.
 *
 * This file also holds the match finder shared with Yay0 (yay0.c): both
 * formats code the same tokens (literal byte, or a copy of 3..0x111 bytes
 * from 1..0x1000 bytes back) and only lay them out differently, so one
 * parser serves both. */
#include "gameanim.h"

#include <stdlib.h>
#include <string.h>

#define YAZ0_HEADER 16u
#define NLZ_WINDOW 0x1000u  /* farthest back-reference distance */
#define NLZ_MIN 3u          /* shortest back-reference */
#define NLZ_MAX 0x111u      /* longest: 0xFF + 0x12 */
#define NLZ_HASH_BITS 15
#define NLZ_HASH_SIZE (1u << NLZ_HASH_BITS)

/* ------------------------------------------------------------------ */
/* Shared Nintendo-style parser (also used by yay0.c)                  */

/* Declared in gameanim.h (yay0.c uses it too). */

struct ga_nlz {
    const uint8_t *data;
    size_t size;
    size_t pos;      /* next byte to code */
    size_t inserted; /* positions < inserted are in the hash chains */
    int32_t *head;   /* newest position per hash, -1 for none */
    int32_t *prev;   /* per position (mod window): the previous one with the same hash */
    int pending;     /* a look-ahead match found for pos is waiting */
    uint32_t pending_len, pending_dist;
};

static uint32_t nlz_hash(const uint8_t *p)
{
    uint32_t v = ((uint32_t)p[0] << 16) | ((uint32_t)p[1] << 8) | p[2];
    return (v * 2654435761u) >> (32 - NLZ_HASH_BITS);
}

ga_nlz *ga_nlz_new(const uint8_t *data, size_t size)
{
    /* Positions are kept as int32; inputs are capped far below that. */
    if (size > GA_MAX_DECOMPRESSED) return NULL;
    ga_nlz *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->head = malloc(NLZ_HASH_SIZE * sizeof *m->head);
    m->prev = malloc(NLZ_WINDOW * sizeof *m->prev);
    if (!m->head || !m->prev) {
        ga_nlz_free(m);
        return NULL;
    }
    memset(m->head, 0xFF, NLZ_HASH_SIZE * sizeof *m->head); /* all -1 */
    m->data = data;
    m->size = size;
    return m;
}

void ga_nlz_free(ga_nlz *m)
{
    if (!m) return;
    free(m->head);
    free(m->prev);
    free(m);
}

/* Longest match for position pos among the 0x1000 bytes before it (the copy
 * may run on past pos, which is how runs are coded).  Returns its length,
 * or 1 when nothing of at least NLZ_MIN bytes matches.  Every position
 * before pos must be in the chains first, and pos itself must not be: the
 * chain slot of a position 0x1000 back is reused by pos. */
static uint32_t nlz_longest(ga_nlz *m, size_t pos, uint32_t *dist)
{
    const uint8_t *d = m->data;
    size_t avail = m->size - pos;
    if (avail < NLZ_MIN) return 1;
    uint32_t maxlen = avail < NLZ_MAX ? (uint32_t)avail : NLZ_MAX;
    const uint8_t *cur = d + pos;
    uint32_t best = NLZ_MIN - 1;
    int32_t cand = m->head[nlz_hash(cur)];
    while (cand >= 0 && pos - (size_t)cand <= NLZ_WINDOW) {
        const uint8_t *c = d + cand;
        /* Only a candidate that also matches at offset `best` can beat the
         * best so far; checking that byte first skips most of them.  It is
         * in bounds: cand < pos and best < maxlen <= size - pos. */
        if (c[best] == cur[best]) {
            uint32_t l = 0;
            while (l < maxlen && c[l] == cur[l]) l++;
            if (l > best) {
                best = l;
                *dist = (uint32_t)(pos - (size_t)cand);
                if (l == maxlen) break;
            }
        }
        int32_t next = m->prev[(size_t)cand & (NLZ_WINDOW - 1)];
        if (next >= cand) break; /* cannot happen while cand is in the window; guards the walk */
        cand = next;
    }
    return best >= NLZ_MIN ? best : 1;
}

static void nlz_insert_upto(ga_nlz *m, size_t end)
{
    while (m->inserted < end) {
        size_t i = m->inserted++;
        if (m->size - i < NLZ_MIN) continue;
        uint32_t h = nlz_hash(m->data + i);
        m->prev[i & (NLZ_WINDOW - 1)] = m->head[h];
        m->head[h] = (int32_t)i;
    }
}

/* The next token: *len == 1 is a literal (the byte at the current
 * position), otherwise a copy of *len bytes from *dist back.  Returns 0
 * when the input is used up.
 *
 * The choice is the one Nintendo's encoder is known for: the longest match
 * at the current position, unless the match starting one byte later is at
 * least two bytes longer, in which case one literal goes first and that
 * later match follows. */
int ga_nlz_next(ga_nlz *m, uint32_t *len, uint32_t *dist)
{
    if (m->pos >= m->size) return 0;
    uint32_t l, dd = 0;
    if (m->pending) {
        m->pending = 0;
        l = m->pending_len;
        dd = m->pending_dist;
    } else {
        nlz_insert_upto(m, m->pos);
        l = nlz_longest(m, m->pos, &dd);
        if (l >= NLZ_MIN && m->pos + 1 < m->size) {
            uint32_t d1 = 0;
            nlz_insert_upto(m, m->pos + 1);
            uint32_t l1 = nlz_longest(m, m->pos + 1, &d1);
            if (l1 >= l + 2) {
                m->pending = 1;
                m->pending_len = l1;
                m->pending_dist = d1;
                l = 1;
            }
        }
    }
    *len = l;
    *dist = l > 1 ? dd : 0;
    m->pos += l;
    return 1;
}

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

static int yaz0_unwrap(const uint8_t *data, size_t size, uint8_t **out, size_t *out_size, ga_error *err)
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
            if (dist > op) {
                rc = ga_fail(err, GA_ERR_FORMAT, "yaz0", "back-reference", (long long)at,
                             "distance %zu reaches before the start of the output (%zu bytes decoded)", dist, op);
                goto fail;
            }
            if (n > dsize - op) {
                rc = ga_fail(err, GA_ERR_FORMAT, "yaz0", "back-reference", (long long)at,
                             "copies %zu bytes but only %zu of the declared %u remain", n, dsize - op, dsize);
                goto fail;
            }
            const uint8_t *src = o + op - dist;
            if (dist >= n) {
                memcpy(o + op, src, n);
            } else {
                for (size_t k = 0; k < n; k++) o[op + k] = src[k];
            }
            op += n;
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
