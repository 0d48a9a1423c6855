/* The LZ coding that Yaz0 and Yay0 share (see nlz.h): both code the same
 * tokens (a literal byte, or a copy of 3..0x111 bytes from 1..0x1000 bytes
 * back) and only lay them out differently, so one parser and one
 * back-reference copy serve both. */
#include "nlz.h"

#include <stdlib.h>
#include <string.h>

#define NLZ_WINDOW 0x1000u  /* farthest back-reference distance */
#define NLZ_MIN 3u          /* shortest back-reference */
#define NLZ_HASH_BITS 15
#define NLZ_HASH_SIZE (1u << NLZ_HASH_BITS)

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

int ga_nlz_copy(uint8_t *o, size_t *op, size_t dsize, size_t dist, size_t n, const char *format, size_t at,
                ga_error *err)
{
    size_t done = *op;
    if (dist > done)
        return ga_fail(err, GA_ERR_FORMAT, format, "back-reference", (long long)at,
                       "distance %zu reaches before the start of the output (%zu bytes decoded)", dist, done);
    if (n > dsize - done)
        return ga_fail(err, GA_ERR_FORMAT, format, "back-reference", (long long)at,
                       "copies %zu bytes but only %zu of the declared %zu remain", n, dsize - done, dsize);
    const uint8_t *src = o + done - dist;
    if (dist >= n) {
        memcpy(o + done, src, n);
    } else {
        /* overlapping: each byte may be one this copy wrote (a run) */
        for (size_t k = 0; k < n; k++) o[done + k] = src[k];
    }
    *op = done + n;
    return GA_OK;
}
