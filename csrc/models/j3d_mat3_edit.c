/* MAT3 edits on the relayout engine (j3d_mat3.h): a material's own init
 * record, its colours, a copy of a material as a new instance.  A shared
 * pool entry is never edited (../shared/formats/j3d_writer.md, MAT3). */
#include "j3d_mat3.h"

#include <string.h>

#include "jut_names.h"

int ga_mat3_own_record(ga_mat3 *x, uint32_t i, ga_error *err)
{
    uint16_t r = ga_mat3_remap(x, i);
    int shared = 0;
    for (uint32_t j = 0; j < x->count && !shared; j++) shared = j != i && ga_mat3_remap(x, j) == r;
    if (!shared) return GA_OK;
    ga_mat3_table *rec = ga_mat3_tab(x, GA_MAT3_T_RECORDS);
    uint8_t copy[GA_MAT3_RECORD];
    memcpy(copy, rec->data.data + (size_t)r * GA_MAT3_RECORD, GA_MAT3_RECORD);
    uint32_t own;
    int rc = ga_mat3_append(x, GA_MAT3_T_RECORDS, copy, 0, &own, err);
    if (rc) return rc;
    ga_buf_set_u16be(&ga_mat3_tab(x, GA_MAT3_T_REMAP)->data, 2 * (size_t)i, (uint16_t)own);
    return GA_OK;
}

/* Points u16 slot `slot` of material i's record at an entry holding item. */
static int repoint(ga_mat3 *x, uint32_t i, uint32_t field, size_t slot, const uint8_t *item, ga_error *err)
{
    uint32_t index;
    int rc = ga_mat3_append(x, field, item, 1, &index, err);
    if (rc) return rc;
    uint8_t *e = ga_mat3_record(x, i); /* after the append: the records may have moved */
    e[slot] = (uint8_t)(index >> 8);
    e[slot + 1] = (uint8_t)index;
    return GA_OK;
}

int ga_mat3_set_colors(ga_mat3 *x, uint32_t i, const ga_mat3_colors *c, ga_error *err)
{
    if (i >= x->count)
        return ga_fail(err, GA_ERR_ARG, x->format, "material", -1, "material %u of %u", i, x->count);
    if (c->ncolor > 2 || c->nambient > 2 || c->ntev > 4 || c->nkonst > 4)
        return ga_fail(err, GA_ERR_ARG, x->format, "colours", -1, "at most 2 material / ambient and 4 TEV / konst");
    int rc = ga_mat3_own_record(x, i, err);
    for (uint32_t k = 0; k < c->ncolor && !rc; k++)
        rc = repoint(x, i, GA_MAT3_T_MAT_COLOR, 0x08 + 2 * k, c->color[k], err);
    for (uint32_t k = 0; k < c->nambient && !rc; k++)
        rc = repoint(x, i, GA_MAT3_T_AMB_COLOR, 0x14 + 2 * k, c->ambient[k], err);
    for (uint32_t k = 0; k < c->nkonst && !rc; k++)
        rc = repoint(x, i, GA_MAT3_T_KONST, 0x94 + 2 * k, c->konst[k], err);
    for (uint32_t k = 0; k < c->ntev && !rc; k++) {
        uint8_t item[8];
        for (int q = 0; q < 4; q++) {
            uint16_t v = (uint16_t)c->tev[k][q];
            item[2 * q] = (uint8_t)(v >> 8), item[2 * q + 1] = (uint8_t)v;
        }
        rc = repoint(x, i, GA_MAT3_T_TEV_COLOR, 0xDC + 2 * k, item, err);
    }
    return rc;
}

/* The name table with `name` appended: the stored names, hashes and
 * strings kept, their offsets moved past the new entry. */
static int append_name(ga_mat3 *x, const char *name, ga_error *err)
{
    ga_mat3_table *t = ga_mat3_tab(x, GA_MAT3_T_NAMES);
    const uint8_t *d = t->data.data;
    size_t len = t->data.len;
    uint16_t n = len >= 4 ? ga_get_u16be(d) : 0;
    if (len < 4 + 4 * (size_t)n || n != x->count)
        return ga_fail(err, GA_ERR_ARG, x->format, "MAT3 name table", (long long)(x->base + t->at),
                       "the table names %u of %u materials; a material cannot be added to it", n, x->count);
    size_t strings = 4 + 4 * (size_t)n, end = strings;
    for (uint16_t q = 0; q < n; q++) {
        size_t off = ga_get_u16be(d + 6 + 4 * (size_t)q);
        const uint8_t *nul = off < len ? memchr(d + off, 0, len - off) : NULL;
        if (off < strings || !nul)
            return ga_fail(err, GA_ERR_FORMAT, x->format, "MAT3 name table", (long long)(x->base + t->at + 6 + 4 * q),
                           "name %u lies outside the table", q);
        if ((size_t)(nul - d) + 1 > end) end = (size_t)(nul - d) + 1;
    }
    size_t nlen = strlen(name);
    if (end + 4 + nlen + 1 > 0xFFFF)
        return ga_fail(err, GA_ERR_LIMIT, x->format, "MAT3 name table", -1, "the names exceed 64 KiB");
    ga_buf b;
    ga_buf_init(&b);
    ga_buf_u16be(&b, (uint16_t)(n + 1));
    ga_buf_put(&b, d + 2, 2);
    for (uint16_t q = 0; q < n; q++) {
        ga_buf_put(&b, d + 4 + 4 * (size_t)q, 2);
        ga_buf_u16be(&b, (uint16_t)(ga_get_u16be(d + 6 + 4 * (size_t)q) + 4));
    }
    ga_buf_u16be(&b, ga_jut_name_key(name));
    ga_buf_u16be(&b, (uint16_t)(end + 4));
    ga_buf_put(&b, d + strings, end - strings);
    ga_buf_put(&b, name, nlen + 1);
    if (b.failed) {
        ga_buf_free(&b);
        return ga_nomem(err, x->format);
    }
    ga_buf_free(&t->data);
    t->data = b;
    t->grown = 1;
    return GA_OK;
}

/* Name i of the (stored) name table, or NULL. */
static const char *name_of(ga_mat3 *x, uint32_t i)
{
    ga_mat3_table *t = ga_mat3_tab(x, GA_MAT3_T_NAMES);
    const uint8_t *d = t->data.data;
    if (t->data.len < 4 || i >= ga_get_u16be(d) || 8 + 4 * (size_t)i > t->data.len) return NULL;
    size_t off = ga_get_u16be(d + 6 + 4 * (size_t)i);
    if (off >= t->data.len || !memchr(d + off, 0, t->data.len - off)) return NULL;
    return (const char *)d + off;
}

int ga_mat3_add_copy(ga_mat3 *x, uint32_t k, const char *name, uint32_t *index, ga_error *err)
{
    if (k >= x->count)
        return ga_fail(err, GA_ERR_ARG, x->format, "material", -1, "material %u of %u", k, x->count);
    if (x->count >= 0xFFFF)
        return ga_fail(err, GA_ERR_LIMIT, x->format, "MAT3 material count", -1, "65535 materials already");
    ga_mat3_table *names = ga_mat3_tab(x, GA_MAT3_T_NAMES), *ind = ga_mat3_tab(x, GA_MAT3_T_INDIRECT);
    int rc = GA_OK;
    if (names->at) {
        char copied[256];
        if (!name) {
            const char *old = name_of(x, k);
            size_t n = old ? strlen(old) : 0;
            if (n >= sizeof copied) n = sizeof copied - 1;
            memcpy(copied, old ? old : "", n);
            copied[n] = 0;
            name = copied;
        }
        if ((rc = append_name(x, name, err))) return rc;
    }
    /* the game reads the indirect table only past the names (j3d_materials.md 1.1) */
    if (ind->at && ind->at > names->at + 4 && ind->count == x->count) {
        uint8_t rec[GA_MAT3_INDIRECT];
        memcpy(rec, ind->data.data + (size_t)k * GA_MAT3_INDIRECT, GA_MAT3_INDIRECT);
        uint32_t at;
        if ((rc = ga_mat3_append(x, GA_MAT3_T_INDIRECT, rec, 0, &at, err))) return rc;
    }
    uint8_t r[2] = {(uint8_t)(ga_mat3_remap(x, k) >> 8), (uint8_t)ga_mat3_remap(x, k)};
    ga_mat3_table *remap = ga_mat3_tab(x, GA_MAT3_T_REMAP);
    if (ga_buf_put(&remap->data, r, 2) != GA_OK) return ga_nomem(err, x->format);
    remap->count++;
    remap->grown = 1;
    *index = x->count++;
    return GA_OK;
}

/* The engine over m's MAT3 (count 0 and no chunk: a GA_ERR_ARG). */
static int open_model(const ga_model *m, ga_mat3 *x, ga_error *err)
{
    long c = m->family == GA_RIG_J3D ? ga_j3d_find_chunk(m, "MAT3") : -1;
    if (c < 0) {
        memset(x, 0, sizeof *x);
        if (m->family == GA_RIG_J3D && ga_j3d_find_chunk(m, "MAT2") >= 0)
            return ga_fail(err, GA_ERR_ARG, m->format ? m->format : "bmd", "MAT2", -1,
                           "the model's materials are a MAT2 (a J3D2bmd2 file): they are read, not edited");
        return ga_fail(err, GA_ERR_ARG, m->format ? m->format : "bmd", "MAT3", -1, "the model has no MAT3 chunk");
    }
    const ga_model_chunk *ch = &m->chunks[c];
    return ga_mat3_open(x, m->data + ch->offset, ch->size, ch->offset, m->format, err);
}

int ga_j3d_mat3_relayout(const ga_model *m, ga_buf *out, ga_error *err)
{
    ga_mat3 x;
    int rc = open_model(m, &x, err);
    if (!rc) rc = ga_mat3_write(&x, out, err);
    ga_mat3_close(&x);
    return rc;
}

int ga_j3d_mat3_colors(const ga_model *m, uint32_t i, const ga_mat3_colors *c, ga_buf *out, ga_error *err)
{
    ga_mat3 x;
    int rc = open_model(m, &x, err);
    if (!rc) rc = ga_mat3_set_colors(&x, i, c, err);
    if (!rc) rc = ga_mat3_write(&x, out, err);
    ga_mat3_close(&x);
    return rc;
}

int ga_j3d_mat3_add_copy(const ga_model *m, uint32_t k, const char *name, uint32_t *index, ga_buf *out,
                         ga_error *err)
{
    ga_mat3 x;
    int rc = open_model(m, &x, err);
    if (!rc) rc = ga_mat3_add_copy(&x, k, name, index, err);
    if (!rc) rc = ga_mat3_write(&x, out, err);
    ga_mat3_close(&x);
    return rc;
}
