/* The regenerate registry and the whole-file writer (j3d_regenerate.h). */
#include "j3d_regenerate.h"

#include "j3d_mat3.h"
#include "j3d_mdl3.h"
#include "j3d_tex1_writer.h"

#include <string.h>

/* One line per chunk that regenerate re-encodes; the rest keep their
 * stored bytes until their encoders land (docs/model_writer.md). */
const ga_j3d_chunk_codec ga_j3d_regenerators[] = {
    {"INF1", ga_j3d_encode_inf1},
    {"VTX1", ga_j3d_encode_vtx1},
    {"EVP1", ga_j3d_encode_evp1},
    {"DRW1", ga_j3d_encode_drw1},
    {"JNT1", ga_j3d_encode_jnt1},
    {"SHP1", ga_j3d_encode_shp1},
    {"MAT3", ga_j3d_encode_mat3},
    {"MDL3", ga_j3d_encode_mdl3},
    {"TEX1", ga_j3d_encode_tex1},
    {NULL, NULL},
};

ga_j3d_chunk_encoder ga_j3d_regenerator(const char *tag)
{
    for (const ga_j3d_chunk_codec *c = ga_j3d_regenerators; c->tag; c++)
        if (memcmp(c->tag, tag, 4) == 0) return c->encode;
    return NULL;
}

int ga_j3d_regenerate(const ga_model *m, ga_buf *out, ga_error *err)
{
    const char *fmt = m->format ? m->format : "bmd";
    if (m->family != GA_RIG_J3D || m->size < 0x20)
        return ga_fail(err, GA_ERR_ARG, fmt, "regenerate", -1, "only J3D models (BMD / BDL) can be regenerated");
    size_t start = out->len;
    ga_buf_put(out, m->data, 8); /* the magic: J3D2bmd3 / J3D2bdl4 */
    ga_buf_u32be(out, 0);        /* the file size, set at the end */
    ga_buf_u32be(out, m->nchunks);
    ga_buf_put(out, "SVR3", 4);
    ga_buf_fill(out, 0xFF, 12);
    for (uint32_t i = 0; i < m->nchunks; i++) {
        const ga_model_chunk *c = &m->chunks[i];
        ga_j3d_chunk_encoder enc = ga_j3d_regenerator(c->tag);
        if (enc) {
            int rc = enc(m, out, err);
            if (rc != GA_OK) return rc;
        } else {
            ga_buf_put(out, m->data + c->offset, c->size);
        }
    }
    if (out->failed) return ga_nomem(err, fmt);
    size_t size = out->len - start;
    if (size > UINT32_MAX) return ga_fail(err, GA_ERR_LIMIT, fmt, "file size", -1, "the file would exceed 4 GiB");
    ga_buf_set_u32be(out, start + 8, (uint32_t)size);
    return GA_OK;
}
