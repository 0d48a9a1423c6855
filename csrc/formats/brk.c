/* BRK: J3D TEV colour animation (J3D1brk1 / TRK1): key-framed register
 * (C0..C2) and konst (K0..K3) colours of materials, s16 colour units.  The
 * work is shared with BPK in j3d.c; docs/formats/j3d_kinds.md. */
#include "j3d.h"

static const j3dk_color_layout brk_layout = {
    "brk", "brk1", "TRK1", J3D_KIND_BRK, 0x58, 0x0A, 2, 28,
    {0x0C, 0x0E}, 0x10, {0x20, 0x24}, {0x28, 0x2C}, {0x30, 0x34}, 0x38,
};

static int brk_probe(const uint8_t *data, size_t size) { return j3d_probe(data, size, "brk1"); }

static int brk_decode(const uint8_t *data, size_t size, const ga_decode_opts *opts, void **raw, ga_clip *clip,
                      ga_error *err)
{
    return j3dk_color_decode(&brk_layout, data, size, opts, raw, clip, err);
}

static int brk_encode(const ga_encode_ctx *ctx, ga_buf *out, ga_error *err)
{
    return j3dk_color_encode(&brk_layout, ctx, out, err);
}

const ga_format ga_format_brk = {
    "brk",
    "J3D TEV register / konst colour animation (GameCube/Wii, TRK1)",
    brk_probe,
    brk_decode,
    brk_encode,
    j3dk_free_raw,
    j3dk_sample_keys,
    j3dk_info,
    NULL, /* every track applies */
    j3dk_eval_keys,
    {".brk", "material_entry", 1, NULL, NULL, "yaz0;yay0", "cp932", "color", NULL},
};
