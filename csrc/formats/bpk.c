/* BPK: J3D material colour animation (J3D1bpk1 / PAK1): key-framed
 * material colours, s16 colour units.  The work is shared with BRK in
 * j3d.c; docs/formats/j3d_kinds.md. */
#include "j3d.h"

static const j3dk_color_layout bpk_layout = {
    "bpk", "bpk1", "PAK1", J3D_KIND_BPK, 0x34, 0x0C, 1, 24,
    {0x0E, 0}, 0x10, {0x18, 0}, {0x1C, 0}, {0x20, 0}, 0x24,
};

static int bpk_probe(const uint8_t *data, size_t size) { return j3d_probe(data, size, "bpk1"); }

static int bpk_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **raw, ga_clip *clip,
                      ga_error *err)
{
    return j3dk_color_decode(&bpk_layout, data, size, opts, raw, clip, err);
}

static int bpk_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    return j3dk_color_encode(&bpk_layout, ctx, out, err);
}

const ga_format ga_format_bpk = {
    "bpk",
    "J3D material colour animation (GameCube/Wii, PAK1)",
    bpk_probe,
    bpk_decode,
    bpk_encode,
    j3dk_free_raw,
    j3dk_sample_keys,
    j3dk_info,
    NULL, /* every track applies */
    j3dk_eval_keys,
    {".bpk", "material_entry", 1, NULL, NULL, "yaz0;yay0", "cp932", "color", NULL},
};
