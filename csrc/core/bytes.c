/* Bounds-checked big/little-endian reader and a growable writer. */
#include "gameanim.h"

#include <stdlib.h>
#include <string.h>

/* ---- checked arithmetic ---- */

int ga_mul_size(size_t a, size_t b, size_t *out)
{
    if (a && b > (size_t)-1 / a) return -1;
    *out = a * b;
    return 0;
}

int ga_add_size(size_t a, size_t b, size_t *out)
{
    if (b > (size_t)-1 - a) return -1;
    *out = a + b;
    return 0;
}

/* ---- raw accessors ---- */

uint16_t ga_get_u16be(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
uint32_t ga_get_u32be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
uint16_t ga_get_u16le(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
uint32_t ga_get_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
uint64_t ga_get_u64le(const uint8_t *p)
{
    return (uint64_t)ga_get_u32le(p) | ((uint64_t)ga_get_u32le(p + 4) << 32);
}
uint32_t ga_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
float ga_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
float ga_get_f32be(const uint8_t *p) { return ga_bits_f32(ga_get_u32be(p)); }
float ga_get_f32le(const uint8_t *p) { return ga_bits_f32(ga_get_u32le(p)); }

/* ---- reader ---- */

void ga_reader_init(ga_reader *r, const uint8_t *data, size_t size, const char *format, ga_error *err)
{
    r->data = data;
    r->size = size;
    r->format = format;
    r->err = err;
}

int ga_need(const ga_reader *r, size_t off, size_t n, const char *field)
{
    if (off > r->size || n > r->size - off) {
        if (off > r->size)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, field, (long long)off,
                           "offset lies past the end of the data (%zu bytes)", r->size);
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, field, (long long)off,
                       "needs %zu bytes but only %zu remain (data is %zu bytes; truncated?)", n,
                       r->size - off, r->size);
    }
    return GA_OK;
}

#define GA_READER(name, type, n, expr)                                                   \
    int name(const ga_reader *r, size_t off, const char *field, type *out)               \
    {                                                                                    \
        int rc = ga_need(r, off, n, field);                                              \
        if (rc) return rc;                                                               \
        const uint8_t *p = r->data + off;                                                \
        *out = (type)(expr);                                                             \
        return GA_OK;                                                                    \
    }

GA_READER(ga_rd_u8, uint8_t, 1, p[0])
GA_READER(ga_rd_u16be, uint16_t, 2, ga_get_u16be(p))
GA_READER(ga_rd_s16be, int16_t, 2, (int16_t)ga_get_u16be(p))
GA_READER(ga_rd_u32be, uint32_t, 4, ga_get_u32be(p))
GA_READER(ga_rd_f32be, float, 4, ga_get_f32be(p))
GA_READER(ga_rd_u16le, uint16_t, 2, ga_get_u16le(p))
GA_READER(ga_rd_s16le, int16_t, 2, (int16_t)ga_get_u16le(p))
GA_READER(ga_rd_u32le, uint32_t, 4, ga_get_u32le(p))
GA_READER(ga_rd_s32le, int32_t, 4, (int32_t)ga_get_u32le(p))
GA_READER(ga_rd_u64le, uint64_t, 8, ga_get_u64le(p))
GA_READER(ga_rd_f32le, float, 4, ga_get_f32le(p))

/* ---- writer ---- */

void ga_buf_init(ga_buf *b) { memset(b, 0, sizeof *b); }

void ga_buf_free(ga_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

int ga_buf_reserve(ga_buf *b, size_t extra)
{
    if (b->failed) return GA_ERR_NOMEM;
    size_t need;
    if (ga_add_size(b->len, extra, &need) || need > GA_MAX_DECOMPRESSED * 2) {
        b->failed = 1;
        return GA_ERR_NOMEM;
    }
    if (need <= b->cap) return GA_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    uint8_t *d = realloc(b->data, cap);
    if (!d) {
        b->failed = 1;
        return GA_ERR_NOMEM;
    }
    b->data = d;
    b->cap = cap;
    return GA_OK;
}

int ga_buf_put(ga_buf *b, const void *src, size_t n)
{
    if (ga_buf_reserve(b, n)) return GA_ERR_NOMEM;
    if (n) memcpy(b->data + b->len, src, n);
    b->len += n;
    return GA_OK;
}

int ga_buf_fill(ga_buf *b, uint8_t byte, size_t n)
{
    if (ga_buf_reserve(b, n)) return GA_ERR_NOMEM;
    memset(b->data + b->len, byte, n);
    b->len += n;
    return GA_OK;
}

int ga_buf_pad_text(ga_buf *b, size_t start, size_t align, const char *text)
{
    size_t n = (align - ((b->len - start) % align)) % align;
    size_t len = strlen(text);
    while (n > 0) {
        size_t k = n < len ? n : len;
        if (ga_buf_put(b, text, k) != GA_OK) return GA_ERR_NOMEM;
        n -= k;
    }
    return GA_OK;
}

int ga_buf_u8(ga_buf *b, uint8_t v) { return ga_buf_put(b, &v, 1); }

int ga_buf_u16be(ga_buf *b, uint16_t v)
{
    uint8_t p[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    return ga_buf_put(b, p, 2);
}

int ga_buf_u32be(ga_buf *b, uint32_t v)
{
    uint8_t p[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    return ga_buf_put(b, p, 4);
}

int ga_buf_f32be(ga_buf *b, float v) { return ga_buf_u32be(b, ga_f32_bits(v)); }

int ga_buf_u16le(ga_buf *b, uint16_t v)
{
    uint8_t p[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    return ga_buf_put(b, p, 2);
}

int ga_buf_u32le(ga_buf *b, uint32_t v)
{
    uint8_t p[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    return ga_buf_put(b, p, 4);
}

int ga_buf_u64le(ga_buf *b, uint64_t v)
{
    if (ga_buf_u32le(b, (uint32_t)v)) return GA_ERR_NOMEM;
    return ga_buf_u32le(b, (uint32_t)(v >> 32));
}

int ga_buf_f32le(ga_buf *b, float v) { return ga_buf_u32le(b, ga_f32_bits(v)); }

void ga_buf_set_u16be(ga_buf *b, size_t at, uint16_t v)
{
    if (b->failed || at + 2 > b->len) return;
    b->data[at] = (uint8_t)(v >> 8);
    b->data[at + 1] = (uint8_t)v;
}

void ga_buf_set_u32be(ga_buf *b, size_t at, uint32_t v)
{
    if (b->failed || at + 4 > b->len) return;
    b->data[at] = (uint8_t)(v >> 24);
    b->data[at + 1] = (uint8_t)(v >> 16);
    b->data[at + 2] = (uint8_t)(v >> 8);
    b->data[at + 3] = (uint8_t)v;
}

void ga_buf_set_u32le(ga_buf *b, size_t at, uint32_t v)
{
    if (b->failed || at + 4 > b->len) return;
    b->data[at] = (uint8_t)v;
    b->data[at + 1] = (uint8_t)(v >> 8);
    b->data[at + 2] = (uint8_t)(v >> 16);
    b->data[at + 3] = (uint8_t)(v >> 24);
}

void ga_buf_set_u64le(ga_buf *b, size_t at, uint64_t v)
{
    ga_buf_set_u32le(b, at, (uint32_t)v);
    ga_buf_set_u32le(b, at + 4, (uint32_t)(v >> 32));
}
