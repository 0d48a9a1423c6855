/* J3D models (BMD "J3D2bmd3" / "J3D2bmd2", BDL "J3D2bdl4"), read for their
 * skeleton: every chunk is kept raw; JNT1 (joints through the remap table,
 * the name table with its stored hashes), INF1 (the matrix-calc rule and
 * the hierarchy), EVP1 (inverse binds) and DRW1 are parsed.  Big-endian.
 * Layout: ../shared/formats/j3d_models.md 5.1-5.3; choices: docs/models.md. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define J3D_FILE_HEADER 0x20
#define JOINT_RECORD 0x40

static int bmd_kind(const uint8_t *data, size_t size)
{
    if (size < 8 || memcmp(data, "J3D2", 4) != 0) return 0;
    if (memcmp(data + 4, "bmd3", 4) == 0 || memcmp(data + 4, "bmd2", 4) == 0) return 1;
    if (memcmp(data + 4, "bdl4", 4) == 0) return 2;
    return 0;
}

static int bmd_probe(const uint8_t *data, size_t size) { return bmd_kind(data, size) ? 100 : 0; }

long ga_j3d_find_chunk(const ga_model *m, const char *tag)
{
    for (uint32_t i = 0; i < m->nchunks; i++)
        if (memcmp(m->chunks[i].tag, tag, 4) == 0) return (long)i;
    return -1;
}

int ga_j3d_chunk_count(const ga_model *m, const char *tag, const char *count_field, ga_reader *r, ga_error *err,
                       const ga_model_chunk **c, uint16_t *count)
{
    *c = NULL;
    *count = 0;
    ga_reader_init(r, m->data, m->size, m->format, err);
    long ci = m->family == GA_RIG_J3D ? ga_j3d_find_chunk(m, tag) : -1;
    if (ci < 0) return GA_OK;
    *c = &m->chunks[ci];
    return ga_rd_u16be(r, (*c)->offset + 8, count_field, count);
}

static int read_chunks(const ga_reader *r, ga_model *m)
{
    uint32_t count;
    int rc = ga_rd_u32be(r, 0x0C, "chunk count", &count);
    if (rc) return rc;
    if (r->size < J3D_FILE_HEADER || count > (r->size - J3D_FILE_HEADER) / 8)
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "chunk count", 0x0C,
                       "%u chunks cannot fit in %zu bytes", count, r->size);
    m->chunks = calloc(count ? count : 1, sizeof *m->chunks);
    if (!m->chunks) return ga_nomem(r->err, r->format);
    size_t off = J3D_FILE_HEADER;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t csize;
        if ((rc = ga_rd_u32be(r, off + 4, "chunk size", &csize))) return rc;
        if (csize < 8 || csize > r->size - off)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "chunk size", (long long)off + 4,
                           "chunk %u (%.4s) claims %u bytes; %zu remain", i, (const char *)r->data + off, csize,
                           r->size - off);
        ga_model_chunk *c = &m->chunks[i];
        memcpy(c->tag, r->data + off, 4);
        for (int k = 0; k < 4; k++)
            if ((unsigned char)c->tag[k] < 0x20 || (unsigned char)c->tag[k] > 0x7E) c->tag[k] = '?';
        c->tag[4] = 0;
        c->offset = off;
        c->size = csize;
        m->nchunks = i + 1;
        off += csize;
    }
    return GA_OK;
}

/* A sub-table of a chunk: chunk start + the u32 offset stored at field_at. */
int ga_j3d_table_at(const ga_reader *r, const ga_model_chunk *c, size_t field_at, const char *field, size_t *out)
{
    uint32_t rel;
    int rc = ga_rd_u32be(r, c->offset + field_at, field, &rel);
    if (rc) return rc;
    if (rel >= c->size)
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, field, (long long)(c->offset + field_at),
                       "offset 0x%x lies outside its %s chunk (%zu bytes)", rel, c->tag, c->size);
    *out = c->offset + rel;
    return GA_OK;
}

static int read_names(const ga_reader *r, size_t at, ga_model *m)
{
    uint16_t count;
    int rc = ga_rd_u16be(r, at, "JNT1 name table count", &count);
    if (rc) return rc;
    if (count < m->nbones)
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "JNT1 name table count", (long long)at,
                       "%u names for %u joints", count, m->nbones);
    if ((rc = ga_need(r, at + 4, (size_t)count * 4, "JNT1 name table entries"))) return rc;
    for (uint32_t j = 0; j < m->nbones; j++) {
        size_t e = at + 4 + (size_t)j * 4;
        m->bones[j].name_hash = ga_get_u16be(r->data + e);
        size_t soff = at + ga_get_u16be(r->data + e + 2);
        if ((rc = ga_model_read_name(r, soff, "JNT1 joint name", &m->bones[j].name, &m->bones[j].name_len)))
            return rc;
    }
    return GA_OK;
}

static int read_jnt1(const ga_reader *r, const ga_model_chunk *c, ga_model *m)
{
    uint16_t count;
    int rc = ga_rd_u16be(r, c->offset + 8, "JNT1 joint count", &count);
    if (rc) return rc;
    if (count == 0)
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "JNT1 joint count", (long long)c->offset + 8,
                       "the model has no joints");
    size_t records, remap, names = 0;
    if ((rc = ga_j3d_table_at(r, c, 0x0C, "JNT1 joint data offset", &records))) return rc;
    if ((rc = ga_j3d_table_at(r, c, 0x10, "JNT1 remap table offset", &remap))) return rc;
    if ((rc = ga_need(r, remap, (size_t)count * 2, "JNT1 remap table"))) return rc;
    uint32_t name_rel;
    if ((rc = ga_rd_u32be(r, c->offset + 0x14, "JNT1 name table offset", &name_rel))) return rc;
    if (name_rel && (rc = ga_j3d_table_at(r, c, 0x14, "JNT1 name table offset", &names))) return rc;
    if ((rc = ga_model_alloc_bones(m, count, r->err))) return rc;
    for (uint32_t j = 0; j < count; j++) {
        ga_model_bone *b = &m->bones[j];
        b->data_index = ga_get_u16be(r->data + remap + 2 * (size_t)j);
        size_t at = records + (size_t)b->data_index * JOINT_RECORD;
        if ((rc = ga_need(r, at, JOINT_RECORD, "JNT1 joint record"))) return rc;
        const uint8_t *p = r->data + at;
        b->kind = ga_get_u16be(p);
        b->scale_compensate_raw = p[2];
        b->scale_compensate = p[2] == 1;
        for (int k = 0; k < 3; k++) {
            b->scale[k] = ga_get_f32be(p + 0x04 + 4 * k);
            b->rot_raw[k] = (int16_t)ga_get_u16be(p + 0x10 + 2 * k);
            b->rotation[k] = (float)(b->rot_raw[k] * (3.14159265358979323846 / 32768.0));
            b->translation[k] = ga_get_f32be(p + 0x18 + 4 * k);
            b->bound_min[k] = ga_get_f32be(p + 0x28 + 4 * k);
            b->bound_max[k] = ga_get_f32be(p + 0x34 + 4 * k);
        }
        b->bound_radius = ga_get_f32be(p + 0x24);
    }
    return name_rel ? read_names(r, names, m) : GA_OK;
}

/* The hierarchy's nodes as stored (n of them from `at`, the end node
 * included, already read), for the INF1 encoder. */
static int keep_inf1_nodes(const ga_reader *r, size_t at, size_t n, ga_model *m)
{
    m->inf1_nodes = malloc(n * sizeof *m->inf1_nodes);
    if (!m->inf1_nodes) return ga_nomem(r->err, r->format);
    for (size_t i = 0; i < n; i++) {
        m->inf1_nodes[i][0] = ga_get_u16be(r->data + at + 4 * i);
        m->inf1_nodes[i][1] = ga_get_u16be(r->data + at + 4 * i + 2);
    }
    m->n_inf1_nodes = (uint32_t)n;
    return GA_OK;
}

/* INF1's hierarchy: a joint's parent is the nearest enclosing joint (a
 * material or shape node passes its enclosing joint on to what it opens).
 * A joint listed twice or out of range is refused; a joint the hierarchy
 * never lists stays a root (parent -1); opens left unclosed at the end node
 * are accepted, as the game stops there. */
static int read_inf1(const ga_reader *r, const ga_model_chunk *c, ga_model *m)
{
    int rc;
    uint16_t flags;
    if ((rc = ga_rd_u16be(r, c->offset + 8, "INF1 flags", &flags))) return rc;
    if ((rc = ga_rd_u32be(r, c->offset + 0x0C, "INF1 packet count", &m->inf1_packet_count))) return rc;
    if ((rc = ga_rd_u32be(r, c->offset + 0x10, "INF1 vertex count", &m->inf1_vertex_count))) return rc;
    m->inf1_flags = flags;
    switch (flags & 0xF) {
    case 0: m->calc = GA_CALC_BASIC; break;
    case 1: m->calc = GA_CALC_SOFTIMAGE; break;
    case 2: m->calc = GA_CALC_MAYA; break;
    default:
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "INF1 flags", (long long)c->offset + 8,
                       "matrix-calc rule %u (flags 0x%04x) is not 0 (basic), 1 (softimage) or 2 (maya)", flags & 0xF,
                       flags);
    }
    size_t at;
    if ((rc = ga_j3d_table_at(r, c, 0x14, "INF1 hierarchy offset", &at))) return rc;
    size_t end = c->offset + c->size;
    size_t cap = (end - at) / 4 + 1;
    int32_t *stack = malloc(cap * sizeof *stack);
    uint8_t *seen = calloc(m->nbones, 1);
    if (!stack || !seen) {
        free(stack);
        free(seen);
        return ga_nomem(r->err, r->format);
    }
    size_t depth = 0, first = at;
    int32_t enclosing = -1, last = -1; /* last: the joint the next open encloses */
    rc = GA_OK;
    for (;; at += 4) {
        if (at + 4 > end) {
            rc = ga_fail(r->err, GA_ERR_FORMAT, r->format, "INF1 hierarchy", (long long)at,
                         "the hierarchy runs to the end of its chunk without an end node (type 0)");
            break;
        }
        uint16_t type = ga_get_u16be(r->data + at), value = ga_get_u16be(r->data + at + 2);
        if (type == 0x00) break;
        if (type == 0x01) {
            stack[depth++] = enclosing;
            enclosing = last;
        } else if (type == 0x02) {
            if (depth == 0) {
                rc = ga_fail(r->err, GA_ERR_FORMAT, r->format, "INF1 hierarchy", (long long)at,
                             "a close node (type 2) with nothing open");
                break;
            }
            last = enclosing;
            enclosing = stack[--depth];
        } else if (type == 0x10) {
            if (value >= m->nbones) {
                rc = ga_fail(r->err, GA_ERR_FORMAT, r->format, "INF1 hierarchy joint", (long long)at + 2,
                             "joint %u of a model with %u joints", value, m->nbones);
                break;
            }
            if (seen[value]) {
                rc = ga_fail(r->err, GA_ERR_FORMAT, r->format, "INF1 hierarchy joint", (long long)at + 2,
                             "joint %u is listed twice", value);
                break;
            }
            seen[value] = 1;
            m->bones[value].parent = enclosing;
            last = value;
        } else if (type == 0x11 || type == 0x12) {
            last = enclosing;
        } else {
            rc = ga_fail(r->err, GA_ERR_FORMAT, r->format, "INF1 hierarchy node type", (long long)at,
                         "node type 0x%02x is not 0 (end), 1 (open), 2 (close), 0x10 (joint), 0x11 (material) or "
                         "0x12 (shape)",
                         type);
            break;
        }
    }
    free(stack);
    free(seen);
    return rc ? rc : keep_inf1_nodes(r, first, (at - first) / 4 + 1, m);
}

static int read_evp1(const ga_reader *r, const ga_model_chunk *c, ga_model *m)
{
    uint16_t count;
    int rc = ga_rd_u16be(r, c->offset + 8, "EVP1 envelope count", &count);
    if (rc || count == 0) return rc;
    size_t wcounts, indices, weights, binds;
    if ((rc = ga_j3d_table_at(r, c, 0x0C, "EVP1 weight count table offset", &wcounts))) return rc;
    if ((rc = ga_j3d_table_at(r, c, 0x10, "EVP1 joint index table offset", &indices))) return rc;
    if ((rc = ga_j3d_table_at(r, c, 0x14, "EVP1 weight table offset", &weights))) return rc;
    if ((rc = ga_j3d_table_at(r, c, 0x18, "EVP1 inverse bind table offset", &binds))) return rc;
    if ((rc = ga_need(r, wcounts, count, "EVP1 weight count table"))) return rc;
    size_t total = 0;
    for (uint32_t i = 0; i < count; i++) total += r->data[wcounts + i];
    if ((rc = ga_need(r, indices, total * 2, "EVP1 joint index table"))) return rc;
    if ((rc = ga_need(r, weights, total * 4, "EVP1 weight table"))) return rc;
    m->envelope_counts = malloc(count);
    m->envelope_joints = malloc((total ? total : 1) * sizeof *m->envelope_joints);
    m->envelope_weights = malloc((total ? total : 1) * sizeof *m->envelope_weights);
    if (!m->envelope_counts || !m->envelope_joints || !m->envelope_weights) return ga_nomem(r->err, r->format);
    memcpy(m->envelope_counts, r->data + wcounts, count);
    uint32_t used = 0; /* joints an envelope refers to: 1 + the highest index */
    for (size_t i = 0; i < total; i++) {
        uint16_t j = ga_get_u16be(r->data + indices + 2 * i);
        if (j >= m->nbones)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "EVP1 joint index", (long long)(indices + 2 * i),
                           "joint %u of a model with %u joints", j, m->nbones);
        if (j + 1u > used) used = j + 1u;
        m->envelope_joints[i] = j;
        m->envelope_weights[i] = ga_get_f32be(r->data + weights + 4 * i);
    }
    /* one 3x4 matrix per joint, as far as the chunk holds them (at least
     * for every joint an envelope uses) */
    size_t avail = (c->offset + c->size - binds) / 0x30;
    if (avail < used)
        return ga_fail(r->err, GA_ERR_FORMAT, r->format, "EVP1 inverse bind table", (long long)binds,
                       "room for %zu matrices, but envelopes use joints up to %u", avail, used - 1);
    uint32_t n = avail < m->nbones ? (uint32_t)avail : m->nbones;
    m->inverse_binds = malloc((n ? n : 1) * sizeof *m->inverse_binds);
    if (!m->inverse_binds) return ga_nomem(r->err, r->format);
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 12; k++) m->inverse_binds[i][k] = ga_get_f32be(r->data + binds + 0x30 * (size_t)i + 4 * k);
    m->n_inverse_binds = n;
    m->n_envelopes = count;
    m->n_envelope_weights = (uint32_t)total;
    return GA_OK;
}

static int read_drw1(const ga_reader *r, const ga_model_chunk *c, ga_model *m)
{
    uint16_t count;
    int rc = ga_rd_u16be(r, c->offset + 8, "DRW1 count", &count);
    if (rc || count == 0) return rc;
    size_t kinds, indices;
    if ((rc = ga_j3d_table_at(r, c, 0x0C, "DRW1 kind table offset", &kinds))) return rc;
    if ((rc = ga_j3d_table_at(r, c, 0x10, "DRW1 index table offset", &indices))) return rc;
    if ((rc = ga_need(r, kinds, count, "DRW1 kind table"))) return rc;
    if ((rc = ga_need(r, indices, (size_t)count * 2, "DRW1 index table"))) return rc;
    m->draw_is_envelope = malloc(count);
    m->draw_index = malloc((size_t)count * 2);
    if (!m->draw_is_envelope || !m->draw_index) return ga_nomem(r->err, r->format);
    for (uint32_t i = 0; i < count; i++) {
        uint8_t kind = r->data[kinds + i];
        uint16_t index = ga_get_u16be(r->data + indices + 2 * (size_t)i);
        if (kind > 1)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "DRW1 kind", (long long)(kinds + i),
                           "kind %u is not 0 (joint) or 1 (envelope)", kind);
        uint32_t limit = kind ? m->n_envelopes : m->nbones;
        if (index >= limit)
            return ga_fail(r->err, GA_ERR_FORMAT, r->format, "DRW1 index", (long long)(indices + 2 * (size_t)i),
                           "%s %u of %u", kind ? "envelope" : "joint", index, limit);
        m->draw_is_envelope[i] = kind;
        m->draw_index[i] = index;
    }
    m->n_draw = count;
    return GA_OK;
}

static int bmd_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, ga_model *out, ga_error *err)
{
    int kind = bmd_kind(data, size);
    const char *name = kind == 2 ? "bdl" : "bmd";
    if (!kind) return ga_fail(err, GA_ERR_FORMAT, "bmd", "magic", 0, "not a J3D2bmd3 / J3D2bdl4 file");
    int rc = ga_model_start(out, name, GA_RIG_J3D, data, size, err);
    if (rc) return rc;
    if (opts) out->opts = *opts;
    ga_reader r;
    ga_reader_init(&r, out->data, out->size, name, err);
    if ((rc = read_chunks(&r, out))) goto fail;
    long jnt1 = ga_j3d_find_chunk(out, "JNT1"), inf1 = ga_j3d_find_chunk(out, "INF1");
    if (jnt1 < 0 || inf1 < 0) {
        rc = ga_fail(err, GA_ERR_FORMAT, name, jnt1 < 0 ? "JNT1" : "INF1", -1,
                     "the model has no %s chunk (a skeleton needs JNT1 and INF1)", jnt1 < 0 ? "JNT1" : "INF1");
        goto fail;
    }
    if ((rc = read_jnt1(&r, &out->chunks[jnt1], out))) goto fail;
    if ((rc = read_inf1(&r, &out->chunks[inf1], out))) goto fail;
    long evp1 = ga_j3d_find_chunk(out, "EVP1"), drw1 = ga_j3d_find_chunk(out, "DRW1");
    if (evp1 >= 0 && (rc = read_evp1(&r, &out->chunks[evp1], out))) goto fail;
    if (drw1 >= 0 && (rc = read_drw1(&r, &out->chunks[drw1], out))) goto fail;
    return GA_OK;
fail:
    ga_model_free(out);
    return rc;
}

const ga_model_format ga_model_format_bmd = {
    "bmd",
    "J3D model (BMD / BDL)",
    ".bmd;.bdl",
    bmd_probe,
    bmd_decode,
};
