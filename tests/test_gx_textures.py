"""GX texture decoding (csrc/models/gx_texture.c): every format equal to the
independent reference decoder tests/gx_reference.py (written from the GX
format description), through gameanim.decode_texture and through a model's
TEX1 (Model.textures); hand-checked texels for the CMPR blend rule and the
bit expansions; malformed TEX1 chunks raise FormatError."""
import random
import struct
import sys
from pathlib import Path

import pytest

import gameanim

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import gx_reference as gx  # noqa: E402
from tools import make_models as mm  # noqa: E402

FORMATS = ["I4", "I8", "IA4", "IA8", "RGB565", "RGB5A3", "RGBA8", "C4", "C8", "C14X2", "CMPR"]
INDEXED = {"C4": 16, "C8": 256, "C14X2": 300}
SIZES = [(8, 8), (13, 7), (1, 1), (32, 16), (5, 21)]


def random_texture(rng, fmt, width, height, palette_format="RGB5A3"):
    data = bytes(rng.getrandbits(8) for _ in range(gx.image_size(fmt, width, height)))
    palette = b""
    if fmt in INDEXED:
        # a palette shorter than the index range for C14X2: indices past it are transparent black
        palette = bytes(rng.getrandbits(8) for _ in range(2 * INDEXED[fmt]))
    return data, palette


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("size", SIZES)
def test_each_format_decodes_as_the_reference(fmt, size):
    rng = random.Random(f"{fmt}{size}")
    w, h = size
    for palette_format in (["IA8", "RGB565", "RGB5A3"] if fmt in INDEXED else ["IA8"]):
        data, palette = random_texture(rng, fmt, w, h)
        got = gameanim.decode_texture(data, fmt, w, h, palette=palette or None, palette_format=palette_format)
        assert len(got) == w * h * 4
        assert got == gx.decode(fmt, data, w, h, palette, palette_format), (fmt, size, palette_format)


def test_cmpr_blend_rule_by_hand():
    """c0 > c1: colours 2 and 3 are (5*c0 + 3*c1) >> 3 and (3*c0 + 5*c1) >> 3;
    c0 <= c1: colour 2 the average, colour 3 the average with alpha 0."""
    red, blue = 0xF800, 0x001F  # expanded: (255, 0, 0), (0, 0, 255)
    rows = bytes([0b00011011] * 4)  # per row: indices 0, 1, 2, 3
    sub_gt = struct.pack(">HH", red, blue) + rows
    sub_le = struct.pack(">HH", blue, red) + rows
    block = sub_gt + sub_le + sub_gt + sub_le
    px = gameanim.decode_texture(block, "CMPR", 8, 8)

    def texel(x, y):
        return tuple(px[(y * 8 + x) * 4:(y * 8 + x) * 4 + 4])

    assert [texel(x, 0) for x in range(4)] == [(255, 0, 0, 255), (0, 0, 255, 255), (159, 0, 95, 255),
                                               (95, 0, 159, 255)]
    # top-right sub-block: blue > red as integers is false (0x001F < 0xF800): the average rule
    assert [texel(4 + x, 0) for x in range(4)] == [(0, 0, 255, 255), (255, 0, 0, 255), (127, 0, 127, 255),
                                                   (127, 0, 127, 0)]
    assert texel(2, 5) == (159, 0, 95, 255) and texel(7, 7) == (127, 0, 127, 0)


def test_bit_expansion_by_hand():
    # RGB5A3: opaque 0x8000 | (31, 16, 1); translucent alpha 3, rgb (15, 8, 1)
    data = struct.pack(">HH", 0x8000 | 31 << 10 | 16 << 5 | 1, 3 << 12 | 15 << 8 | 8 << 4 | 1) + bytes(28)
    px = gameanim.decode_texture(data, "RGB5A3", 2, 1)
    assert px == bytes([255, 132, 8, 255, 255, 136, 17, 109])
    # RGB565 (1, 32, 31) -> (8, 130, 255)
    px = gameanim.decode_texture(struct.pack(">H", 1 << 11 | 32 << 5 | 31) + bytes(30), "RGB565", 1, 1)
    assert px == bytes([8, 130, 255, 255])
    # I4: high nibble is the left texel
    px = gameanim.decode_texture(bytes([0xF1]) + bytes(31), "I4", 2, 1)
    assert px == bytes([255] * 4 + [17] * 4)
    # RGBA8: A,R pairs then G,B pairs
    px = gameanim.decode_texture(bytes([10, 20]) + bytes(30) + bytes([30, 40]) + bytes(30), "RGBA8", 1, 1)
    assert px == bytes([20, 30, 40, 10])
    # IA8: first byte alpha, second intensity; IA4 high nibble alpha
    assert gameanim.decode_texture(bytes([7, 200]) + bytes(30), "IA8", 1, 1) == bytes([200, 200, 200, 7])
    assert gameanim.decode_texture(bytes([0x2F]) + bytes(31), "IA4", 1, 1) == bytes([255, 255, 255, 34])


def test_block_tiling_order_by_hand():
    """I8 blocks are 8x4: the second block is the texels x 8..15 of rows 0..3."""
    data = bytes(range(64))
    px = gameanim.decode_texture(data, "I8", 16, 4)
    assert px[(0 * 16 + 8) * 4] == 32  # first texel of block 1
    assert px[(1 * 16 + 0) * 4] == 8   # row 1 of block 0
    assert px[(3 * 16 + 15) * 4] == 63


def test_palette_index_past_the_palette_is_transparent_black():
    px = gameanim.decode_texture(bytes([5]) + bytes(31), "C8", 1, 1, palette=b"\xff\xff" * 2, palette_format="IA8")
    assert px == bytes(4)


def test_decode_texture_rejects_short_data_and_bad_arguments():
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.decode_texture(bytes(31), "I8", 8, 4)
    assert e.value.field == "texture data"
    with pytest.raises(ValueError):
        gameanim.decode_texture(bytes(32), "DXT1", 8, 4)
    with pytest.raises(ValueError):
        gameanim.decode_texture(bytes(32), "I8", 0, 4)
    with pytest.raises(ValueError):
        gameanim.decode_texture(bytes(32), "C8", 8, 4, palette=b"", palette_format="XYZ")


# ---------------------------------------------------------------- through TEX1


def model_with_textures(textures):
    return mm.write_j3d_model([mm.joint("root")], [-1], extra_chunks=[("TEX1", mm.tex1_body(textures))])


def test_tex1_records_decode_as_the_reference():
    rng = random.Random(7)
    textures, want = [], []
    for i, fmt in enumerate(FORMATS):
        w, h = SIZES[i % len(SIZES)]
        pf = i % 3
        data, palette = random_texture(rng, fmt, w, h)
        textures.append(mm.texture(f"tex{i}", fmt, w, h, data, palette=palette, palette_format=pf, wrap_s=i % 3,
                                   wrap_t=(i + 1) % 3, mag_filter=i % 2, mip_count=1 + i % 3))
        want.append(gx.decode(fmt, data, w, h, palette, ["IA8", "RGB565", "RGB5A3"][pf]))
    # a header sharing the first one's image with other sampler settings
    textures.append(mm.texture("shared", "I4", 8, 8, data_from=0, wrap_s=2, wrap_t=0))
    want.append(want[0])
    model = gameanim.load_model(model_with_textures(textures))
    got = model.textures
    assert len(got) == len(textures)
    wraps = ["clamp", "repeat", "mirror"]
    for i, (t, spec) in enumerate(zip(got, textures)):
        assert t.index == i
        assert t.name == spec["name"]
        assert t.format == spec["fmt"]
        assert (t.width, t.height) == (spec["width"], spec["height"])
        assert (t.wrap_s, t.wrap_t) == (wraps[spec["wrap_s"]], wraps[spec["wrap_t"]])
        assert t.mag_filter == spec["mag_filter"] and t.mip_count == spec["mip_count"]
        assert t.pixels == want[i], t.format
        if spec["fmt"] in INDEXED:
            assert t.palette_format == ["IA8", "RGB565", "RGB5A3"][spec["palette_format"]]
            assert t.palette_count == len(spec["palette"]) // 2
        else:
            assert t.palette_format is None and t.palette_count == 0
    assert model.textures is got  # decoded once


def test_models_without_tex1_and_other_families_have_no_textures():
    assert gameanim.load_model(mm.write_j3d_model([mm.joint("r")], [-1])).textures == ()
    assert gameanim.load_model(mm.write_bk_model([((0.0, 0.0, 0.0), 1, -1)])).textures == ()


def bad_tex1(mutate):
    tex = mm.texture("t", "C8", 8, 4, bytes(32), palette=bytes(32), palette_format=1)
    data = bytearray(model_with_textures([tex]))
    c = mm.find_chunk(data, b"TEX1")
    mutate(data, c, c + 0x20)  # chunk, first header
    return bytes(data)


@pytest.mark.parametrize("what, mutate, field", [
    ("format", lambda d, c, h: d.__setitem__(h, 7), "TEX1 format"),
    ("width 0", lambda d, c, h: struct.pack_into(">H", d, h + 2, 0), "TEX1 size"),
    ("too wide", lambda d, c, h: struct.pack_into(">H", d, h + 2, 2048), "TEX1 size"),
    ("huge", lambda d, c, h: struct.pack_into(">HH", d, h + 2, 1024, 1024), "TEX1 image data offset"),
    ("wrap", lambda d, c, h: d.__setitem__(h + 6, 3), "TEX1 wrap mode"),
    ("image offset", lambda d, c, h: struct.pack_into(">I", d, h + 0x1C, 0x7FFFFFF0), "TEX1 image data offset"),
    ("palette offset", lambda d, c, h: struct.pack_into(">I", d, h + 0x0C, 0xFFFFFFF0), "TEX1 palette offset"),
    ("palette count", lambda d, c, h: struct.pack_into(">H", d, h + 0x0A, 0xFFFF), "TEX1 palette offset"),
    ("palette format", lambda d, c, h: d.__setitem__(h + 9, 3), "TEX1 palette format"),
    ("header offset", lambda d, c, h: struct.pack_into(">I", d, c + 0x0C, 0x100000), "TEX1 header offset"),
    ("count", lambda d, c, h: struct.pack_into(">H", d, c + 8, 0xFFFF), "TEX1 texture headers"),
    ("name offset", lambda d, c, h: struct.pack_into(">I", d, c + 0x10, 0x7FFFFFFF), "TEX1 name table offset"),
])
def test_malformed_tex1_raises_format_error(what, mutate, field):
    model = gameanim.load_model(bad_tex1(mutate))  # the skeleton still loads
    with pytest.raises(gameanim.FormatError) as e:
        model.textures
    assert e.value.field == field, (what, str(e.value))
    assert e.value.format == "bmd" and e.value.offset is not None


def test_truncated_tex1_chunks_raise_format_error():
    tex = mm.texture("t", "CMPR", 16, 16, bytes(gx.image_size("CMPR", 16, 16)))
    data = model_with_textures([tex])
    c = mm.find_chunk(data, b"TEX1")
    size = struct.unpack_from(">I", data, c + 4)[0]
    for cut in range(8, size, 4):
        bad = bytearray(data[:c + cut])
        struct.pack_into(">I", bad, c + 4, cut)
        struct.pack_into(">I", bad, 8, len(bad))
        try:
            model = gameanim.load_model(bytes(bad))
        except gameanim.FormatError:
            continue
        with pytest.raises(gameanim.FormatError):
            model.textures


def test_decoded_texels_count_against_the_decoded_size_limit():
    """Every header decodes its own copy: 8 headers sharing one 64x64 image
    are 8 x 16 KiB of texels, checked before decoding."""
    data = bytes(gx.image_size("I8", 64, 64))
    textures = [mm.texture("a", "I8", 64, 64, data)] + [mm.texture(f"s{i}", "I8", 64, 64, data_from=0)
                                                        for i in range(7)]
    blob = model_with_textures(textures)
    assert len(gameanim.load_model(blob, max_decoded_size=8 * 64 * 64 * 4).textures) == 8
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load_model(blob, max_decoded_size=8 * 64 * 64 * 4 - 1).textures
    assert e.value.field == "TEX1 textures" and "max_decoded_size" in str(e.value)
