/* BTK: J3D texture-matrix animation (J3D1btk1 / TTK1).  The work is
 * shared with BCK in j3d.c; this file binds it to the format registry. */
#include "j3d.h"

static int btk_probe(const uint8_t *data, size_t size) { return j3d_probe(data, size, "btk1"); }

static int btk_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **raw,
                      ga_clip *clip, ga_error *err)
{
    j3d_raw *r = NULL;
    int rc = j3d_decode(data, size, 1, opts, &r, clip, err);
    if (!rc) *raw = r;
    return rc;
}

static int btk_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    return j3d_encode(ctx, 1, out, err);
}

const ga_format ga_format_btk = {
    "btk",
    "J3D texture-matrix animation (GameCube/Wii, TTK1)",
    btk_probe,
    btk_decode,
    btk_encode,
    j3d_free_raw,
    j3d_sample,
    j3d_info,
    NULL, /* every track applies */
    j3d_eval_track, /* Track.evaluate: as sample */
    {".btk", "material_entry", 1, NULL, NULL, "yaz0;yay0", "cp932", NULL, NULL},
};
