/* Error records, the decoded-size limit check, encode reports and the
 * Animation.info key/value list. */
#include "gameanim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_str(char *dst, size_t cap, const char *src)
{
    if (!src) src = "";
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int ga_fail(ga_error *err, int code, const char *format, const char *field,
            long long offset, const char *fmt, ...)
{
    if (!err) return code;
    char detail[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    err->code = code;
    copy_str(err->format, sizeof err->format, format);
    copy_str(err->field, sizeof err->field, field);
    err->offset = offset;
    /* One uniform shape: "<format>: <field> at offset 0x..: <detail>" */
    char where[160] = "";
    if (field && *field && offset >= 0)
        snprintf(where, sizeof where, "field '%.80s' at offset 0x%llx (%lld)", field, offset, offset);
    else if (field && *field)
        snprintf(where, sizeof where, "field '%.80s'", field);
    else if (offset >= 0)
        snprintf(where, sizeof where, "offset 0x%llx (%lld)", offset, offset);
    if (where[0])
        snprintf(err->message, sizeof err->message, "%.15s: %.159s: %.200s",
                 (format && *format) ? format : "gameanim", where, detail);
    else
        snprintf(err->message, sizeof err->message, "%.15s: %.200s",
                 (format && *format) ? format : "gameanim", detail);
    return code;
}

/* The decoded-size limit of a load (docs/limits.md). */
uint64_t ga_decoded_limit(const ga_decode_opts *opts, size_t size)
{
    if (opts && opts->max_decoded_size) return opts->max_decoded_size;
    uint64_t in = opts && opts->input_size ? (uint64_t)opts->input_size : (uint64_t)size;
    /* in <= GA_MAX_INPUT_SIZE for ga_load; saturate for anyone else */
    uint64_t prop = in > UINT64_MAX / GA_DECODED_RATIO ? UINT64_MAX : in * GA_DECODED_RATIO;
    return prop > GA_DECODED_FLOOR ? prop : GA_DECODED_FLOOR;
}

int ga_check_decoded(const ga_decode_opts *opts, size_t size, uint64_t count, unsigned unit, const char *what,
                     const char *format, const char *field, long long offset, ga_error *err)
{
    uint64_t limit = ga_decoded_limit(opts, size);
    uint64_t bytes = count > UINT64_MAX / (unit ? unit : 1) ? UINT64_MAX : count * (unit ? unit : 1);
    if (bytes <= limit) return GA_OK;
    char amount[96];
    if (unit > 1)
        snprintf(amount, sizeof amount, "%llu %s (%llu bytes decoded)", (unsigned long long)count, what,
                 (unsigned long long)bytes);
    else
        snprintf(amount, sizeof amount, "%llu %s", (unsigned long long)count, what);
    if (opts && opts->max_decoded_size)
        return ga_fail(err, GA_ERR_LIMIT, format, field, offset,
                       "%s exceed the decoded-size limit max_decoded_size=%llu; pass a larger one to allow more",
                       amount, (unsigned long long)limit);
    size_t in = opts && opts->input_size ? opts->input_size : size;
    return ga_fail(err, GA_ERR_LIMIT, format, field, offset,
                   "%s exceed the decoded-size limit of %llu bytes (%u x the %zu-byte input, at least %llu MiB); "
                   "load(..., max_decoded_size=N) allows more",
                   amount, (unsigned long long)limit, GA_DECODED_RATIO, in,
                   (unsigned long long)(GA_DECODED_FLOOR >> 20));
}

int ga_nomem(ga_error *err, const char *format)
{
    return ga_fail(err, GA_ERR_NOMEM, format, "", -1, "out of memory");
}

void ga_report_init(ga_report *r)
{
    memset(r, 0, sizeof *r);
}

void ga_report_note(ga_report *r, const char *fmt, ...)
{
    if (!r) return;
    r->nnotes_total++;
    if (r->nnotes >= GA_REPORT_MAX_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes[r->nnotes], sizeof r->notes[0], fmt, ap);
    va_end(ap);
    r->nnotes++;
}

void ga_report_error(ga_report *r, double e, const char *fmt, ...)
{
    if (!r) return;
    if (e < 0) e = -e;
    if (e > r->max_error || (r->max_error_where[0] == '\0' && e >= r->max_error)) {
        r->max_error = e;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->max_error_where, sizeof r->max_error_where, fmt, ap);
        va_end(ap);
    }
}

/* ---- info list ---- */

void ga_info_free(ga_info *info)
{
    for (size_t i = 0; i < info->n; i++) free(info->items[i].bytes);
    free(info->items);
    info->items = NULL;
    info->n = info->cap = 0;
}

static ga_info_item *info_add(ga_info *info, const char *key, int type)
{
    if (info->n == info->cap) {
        size_t cap = info->cap ? info->cap * 2 : 16;
        ga_info_item *items = realloc(info->items, cap * sizeof *items);
        if (!items) return NULL;
        info->items = items;
        info->cap = cap;
    }
    ga_info_item *it = &info->items[info->n++];
    memset(it, 0, sizeof *it);
    copy_str(it->key, sizeof it->key, key);
    it->type = type;
    return it;
}

int ga_info_int(ga_info *info, const char *key, long long v)
{
    ga_info_item *it = info_add(info, key, GA_INFO_INT);
    if (!it) return GA_ERR_NOMEM;
    it->i = v;
    return GA_OK;
}

int ga_info_float(ga_info *info, const char *key, double v)
{
    ga_info_item *it = info_add(info, key, GA_INFO_FLOAT);
    if (!it) return GA_ERR_NOMEM;
    it->f = v;
    return GA_OK;
}

static int info_blob(ga_info *info, const char *key, int type, const uint8_t *p, size_t n)
{
    ga_info_item *it = info_add(info, key, type);
    if (!it) return GA_ERR_NOMEM;
    it->bytes = malloc(n + 1);
    if (!it->bytes) {
        info->n--;
        return GA_ERR_NOMEM;
    }
    if (n) memcpy(it->bytes, p, n);
    it->bytes[n] = 0;
    it->len = n;
    return GA_OK;
}

int ga_info_str(ga_info *info, const char *key, const char *s)
{
    return info_blob(info, key, GA_INFO_STR, (const uint8_t *)s, strlen(s));
}

int ga_info_bytes(ga_info *info, const char *key, const uint8_t *p, size_t n)
{
    return info_blob(info, key, GA_INFO_BYTES, p, n);
}
