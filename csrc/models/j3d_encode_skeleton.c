/* The skeleton chunks encoded from a decoded J3D model: INF1, EVP1, DRW1,
 * JNT1 (j3d_regenerate.h).  Layouts follow Nintendo's files as the public
 * tools reproduce them (j3d_writer.md sections 1, 2 and 5.2; sources:
 * blank63/j3dview j3d/{inf1,evp1,drw1,jnt1,string_table}.py, RiiStudio
 * EVP1DRW1.cpp, SuperBMD EVP1.cs): each chunk starts with its header,
 * sub-tables follow in header order, gaps and the chunk's end are filled
 * with Nintendo's padding text.  Every value comes from the decoded model
 * (ga_model), none from the stored chunk. */
#include "j3d_regenerate.h"

#include "jut_names.h"

#include <stdlib.h>
#include <string.h>

#define JOINT_RECORD 0x40

static int done(const ga_model *m, ga_buf *out, size_t start, ga_error *err)
{
    if (ga_j3d_chunk_end(out, start) != GA_OK || out->failed) return ga_nomem(err, m->format);
    return GA_OK;
}

/* JUTNameTab (fact 10) with the keys computed, written by the animation
 * writers' table writer (core/jut_names.h); its u16 offsets must hold
 * (j3d_writer.h). */
int ga_j3d_put_names(ga_buf *out, const char *const *names, uint32_t n, const char *format, ga_error *err)
{
    size_t at = 4 + 4 * (size_t)n;
    for (uint32_t i = 0; i + 1 < n; i++) at += strlen(names[i] ? names[i] : "") + 1;
    if (n > 0xFFFF || at > 0xFFFF)
        return ga_fail(err, GA_ERR_LIMIT, format, "name table", -1,
                       "%u names do not fit a name table's u16 string offsets", n);
    ga_jut_put_names(out, names, n);
    return out->failed ? ga_nomem(err, format) : GA_OK;
}

/* INF1: flags, 0xFFFF, packet count (SHP1's, regenerated), vertex count, hierarchy offset 0x18,
 * then the hierarchy nodes through the end node. */
int ga_j3d_encode_inf1(const ga_model *m, ga_buf *out, ga_error *err)
{
    uint32_t packets; /* as the regenerated SHP1 packs its shapes */
    int rc = ga_j3d_regen_packet_count(m, &packets, err);
    if (rc) return rc;
    size_t start = ga_j3d_chunk_begin(out, "INF1");
    ga_buf_u16be(out, m->inf1_flags);
    ga_buf_u16be(out, 0xFFFF);
    ga_buf_u32be(out, packets);
    ga_buf_u32be(out, m->inf1_vertex_count);
    ga_buf_u32be(out, 0x18);
    for (uint32_t i = 0; i < m->n_inf1_nodes; i++) {
        ga_buf_u16be(out, m->inf1_nodes[i][0]);
        ga_buf_u16be(out, m->inf1_nodes[i][1]);
    }
    if (!m->n_inf1_nodes) ga_buf_u32be(out, 0); /* (a decoded model always has its end node) */
    return done(m, out, start, err);
}

/* EVP1: count, 0xFFFF, four offsets (weight counts, joint indices,
 * weights, inverse binds); all zero without envelopes (a rigid model).
 * The joint indices follow the u8 counts unaligned (as in Nintendo's
 * files; RiiStudio notes the misalignment), the weights start 8-aligned,
 * the inverse binds (one 3x4 per joint) follow the weights. */
int ga_j3d_put_evp1(ga_buf *out, uint32_t n, const uint8_t *counts, const uint16_t *joints, const float *weights,
                    size_t nw, uint32_t nbinds, const float (*binds)[12])
{
    size_t start = ga_j3d_chunk_begin(out, "EVP1");
    ga_buf_u16be(out, (uint16_t)n);
    ga_buf_u16be(out, 0xFFFF);
    size_t offsets = out->len;
    ga_buf_fill(out, 0, 16);
    if (n) { /* (a model without envelopes keeps zero offsets) */
        ga_buf_set_u32be(out, offsets, (uint32_t)(out->len - start));
        ga_buf_put(out, counts, n);
        ga_buf_set_u32be(out, offsets + 4, (uint32_t)(out->len - start));
        for (size_t i = 0; i < nw; i++) ga_buf_u16be(out, joints[i]);
        ga_j3d_pad(out, start, 8);
        ga_buf_set_u32be(out, offsets + 8, (uint32_t)(out->len - start));
        for (size_t i = 0; i < nw; i++) ga_buf_f32be(out, weights[i]);
        ga_buf_set_u32be(out, offsets + 12, (uint32_t)(out->len - start));
        for (uint32_t i = 0; i < nbinds; i++)
            for (int k = 0; k < 12; k++) ga_buf_f32be(out, binds[i][k]);
    }
    return ga_j3d_chunk_end(out, start);
}

int ga_j3d_encode_evp1(const ga_model *m, ga_buf *out, ga_error *err)
{
    int rc = ga_j3d_put_evp1(out, m->n_envelopes, m->envelope_counts, m->envelope_joints, m->envelope_weights,
                             m->n_envelope_weights, m->n_inverse_binds, (const float (*)[12])m->inverse_binds);
    if (rc != GA_OK || out->failed) return ga_nomem(err, m->format);
    return GA_OK;
}

/* The DRW1 entries the runtime uses: all of them, less a trailing copy
 * of their envelope entries when the table ends with one (Nintendo's: J
 * joints, envelopes 0..N-1, the same N again).  The u with "entries from u
 * on = the envelope entries before u" is unique, as total - u - (envelope
 * entries before u) falls strictly with u; so the encoder's own output
 * reads back as itself. */
static uint32_t drw1_used(const ga_model *m)
{
    uint32_t total = m->n_draw, env = 0, u = 0;
    while (u < total && total - u > env) env += m->draw_is_envelope[u++];
    if (total - u != env || env == 0) return total;
    uint32_t k = u;
    for (uint32_t i = 0; i < u; i++) {
        if (!m->draw_is_envelope[i]) continue;
        if (!m->draw_is_envelope[k] || m->draw_index[k] != m->draw_index[i]) return total;
        k++;
    }
    return u;
}

/* DRW1: count, 0xFFFF, kind table offset 0x14, index table offset; the
 * u8 kinds, padded to 2, then the u16 indices.  Nintendo's layout: the
 * entries used (J joints, then the N envelopes), then the envelope
 * entries once more (j3d_writer.md fact 4: TP sizes its table by
 * count - N). */
int ga_j3d_encode_drw1(const ga_model *m, ga_buf *out, ga_error *err)
{
    uint32_t used = drw1_used(m), extra = 0;
    for (uint32_t i = 0; i < used; i++) extra += m->draw_is_envelope[i];
    uint32_t total = used + extra;
    if (total > 0xFFFF)
        return ga_fail(err, GA_ERR_LIMIT, m->format, "DRW1 count", -1, "%u draw entries (at most 65535)", total);
    size_t start = ga_j3d_chunk_begin(out, "DRW1");
    ga_buf_u16be(out, (uint16_t)total);
    ga_buf_u16be(out, 0xFFFF);
    ga_buf_u32be(out, 0x14);
    size_t index_field = out->len;
    ga_buf_u32be(out, 0);
    for (int pass = 0; pass < 2; pass++) /* kinds: the entries, then the envelope copies */
        for (uint32_t i = 0; i < used; i++)
            if (pass == 0 || m->draw_is_envelope[i]) ga_buf_u8(out, m->draw_is_envelope[i]);
    ga_j3d_pad(out, start, 2);
    ga_buf_set_u32be(out, index_field, (uint32_t)(out->len - start));
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < used; i++)
            if (pass == 0 || m->draw_is_envelope[i]) ga_buf_u16be(out, m->draw_index[i]);
    return done(m, out, start, err);
}

static void joint_record(ga_buf *out, const ga_model_bone *b)
{
    ga_buf_u16be(out, b->kind);
    ga_buf_u8(out, b->scale_compensate_raw);
    ga_buf_u8(out, 0xFF);
    for (int k = 0; k < 3; k++) ga_buf_f32be(out, b->scale[k]);
    for (int k = 0; k < 3; k++) ga_buf_u16be(out, (uint16_t)b->rot_raw[k]);
    ga_buf_u16be(out, 0xFFFF);
    for (int k = 0; k < 3; k++) ga_buf_f32be(out, b->translation[k]);
    ga_buf_f32be(out, b->bound_radius);
    for (int k = 0; k < 3; k++) ga_buf_f32be(out, b->bound_min[k]);
    for (int k = 0; k < 3; k++) ga_buf_f32be(out, b->bound_max[k]);
}

/* JNT1: count, 0xFFFF, offsets of the records (0x18), the remap table
 * and the name table (0 without names); the 0x40-byte records in record
 * order (a record several joints share holds the first such joint's
 * values; one no joint uses is zeros), the u16 remap, padding to 4, the
 * name table with the keys computed from the names. */
int ga_j3d_encode_jnt1(const ga_model *m, ga_buf *out, ga_error *err)
{
    uint32_t nrec = 0;
    for (uint32_t j = 0; j < m->nbones; j++)
        if (m->bones[j].data_index + 1 > nrec) nrec = m->bones[j].data_index + 1;
    int named = m->nbones && m->bones[0].name != NULL;
    int32_t *owner = malloc((nrec ? nrec : 1) * sizeof *owner); /* record -> first joint using it */
    if (!owner) return ga_nomem(err, m->format);
    for (uint32_t r = 0; r < nrec; r++) owner[r] = -1;
    for (uint32_t j = m->nbones; j-- > 0;) owner[m->bones[j].data_index] = (int32_t)j;
    size_t start = ga_j3d_chunk_begin(out, "JNT1");
    ga_buf_u16be(out, (uint16_t)m->nbones);
    ga_buf_u16be(out, 0xFFFF);
    ga_buf_u32be(out, 0x18);
    size_t fields = out->len;
    ga_buf_fill(out, 0, 8);
    for (uint32_t r = 0; r < nrec; r++) {
        if (owner[r] >= 0) joint_record(out, &m->bones[owner[r]]);
        else ga_buf_fill(out, 0, JOINT_RECORD);
    }
    free(owner);
    ga_buf_set_u32be(out, fields, (uint32_t)(out->len - start));
    for (uint32_t j = 0; j < m->nbones; j++) ga_buf_u16be(out, (uint16_t)m->bones[j].data_index);
    ga_j3d_pad(out, start, 4);
    if (named) {
        ga_buf_set_u32be(out, fields + 4, (uint32_t)(out->len - start));
        const char **names = malloc(m->nbones * sizeof *names);
        if (!names) return ga_nomem(err, m->format);
        for (uint32_t j = 0; j < m->nbones; j++) names[j] = m->bones[j].name;
        int rc = ga_j3d_put_names(out, names, m->nbones, m->format, err);
        free(names);
        if (rc != GA_OK) return rc;
    }
    return done(m, out, start, err);
}
