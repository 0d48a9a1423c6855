/* ga_j3d_splice / ga_j3d_splice_chunks: chunks of a J3D model replaced by new bytes
 * (j3d_writer.h).  The new file is decoded afresh by the loader's own
 * decoder, so every check of a loaded file holds for an edited one. */
#include "j3d_writer.h"

#include <stdlib.h>
#include <string.h>

extern const ga_model_format ga_model_format_bmd;

int ga_j3d_splice(ga_model *m, uint32_t index, const uint8_t *chunk, size_t size, ga_error *err)
{
    const char *fmt = m->format ? m->format : "bmd";
    if (m->family != GA_RIG_J3D || index >= m->nchunks)
        return ga_fail(err, GA_ERR_ARG, fmt, "chunk", -1, "chunk %u of a model of %u chunks", index, m->nchunks);
    const ga_model_chunk *c = &m->chunks[index];
    if (size < 8 || size % 32 || memcmp(chunk, c->tag, 4) != 0 || ga_get_u32be(chunk + 4) != size)
        return ga_fail(err, GA_ERR_ARG, fmt, c->tag, -1,
                       "the new %s chunk must be %s-tagged, sized in its header and a multiple of 32 bytes", c->tag,
                       c->tag);
    ga_buf b = {(uint8_t *)chunk, size, size, 0};
    return ga_j3d_splice_chunks(m, 1, &index, &b, err);
}

int ga_j3d_splice_chunks(ga_model *m, uint32_t n, const uint32_t *index, const ga_buf *chunks, ga_error *err)
{
    const char *fmt = m->format ? m->format : "bmd";
    size_t nsize = m->size;
    for (uint32_t k = 0; k < n; k++) {
        if (index[k] >= m->nchunks || (k && index[k] <= index[k - 1]))
            return ga_fail(err, GA_ERR_ARG, fmt, "chunk", -1, "chunk indices must ascend within the model's chunks");
        nsize = nsize - m->chunks[index[k]].size + chunks[k].len;
    }
    if (nsize > UINT32_MAX) return ga_fail(err, GA_ERR_LIMIT, fmt, "file size", -1, "the file would exceed 4 GiB");
    uint8_t *data = malloc(nsize ? nsize : 1);
    if (!data) return ga_nomem(err, fmt);
    size_t at = 0, from = 0;
    for (uint32_t k = 0; k < n; k++) {
        const ga_model_chunk *c = &m->chunks[index[k]];
        memcpy(data + at, m->data + from, c->offset - from);
        at += c->offset - from;
        memcpy(data + at, chunks[k].data, chunks[k].len);
        at += chunks[k].len;
        from = c->offset + c->size;
    }
    memcpy(data + at, m->data + from, m->size - from);
    for (int k = 0; k < 4; k++) data[8 + k] = (uint8_t)(nsize >> (24 - 8 * k));
    ga_model fresh;
    ga_model_init(&fresh);
    int rc = ga_model_format_bmd.decode(data, nsize, &m->opts, &fresh, err);
    free(data);
    if (rc != GA_OK) return rc;
    ga_model_free(m);
    *m = fresh;
    return GA_OK;
}
