/* BCK: J3D joint animation (J3D1bck1 / ANK1).  The work is shared with
 * BTK in j3d.c; this file binds it to the format registry. */
#include "j3d.h"

static int bck_probe(const uint8_t *data, size_t size) { return j3d_probe(data, size, "bck1"); }

static int bck_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **raw,
                      ga_clip *clip, ga_error *err)
{
    j3d_raw *r = NULL;
    int rc = j3d_decode(data, size, 0, opts, &r, clip, err);
    if (!rc) *raw = r;
    return rc;
}

static int bck_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    return j3d_encode(ctx, 0, out, err);
}

const ga_format ga_format_bck = {
    "bck",
    "J3D joint animation (GameCube/Wii, ANK1)",
    bck_probe,
    bck_decode,
    bck_encode,
    j3d_free_raw,
    j3d_sample,
    j3d_info,
    NULL, /* every track applies */
    j3d_eval_track, /* Track.evaluate: as sample */
    {".bck", "joint", 1, "Y", "INDEX", "yaz0;yay0", "cp932", NULL, "j3d"},
};
