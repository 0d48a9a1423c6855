"""GX texture encoding and TEX1 writing (issue 34): gameanim.encode_texture
and Model.replace_texture.

The expected pixels come from a reference written here from the rules in
docs/model_writer.md ("Textures"): each format's nearest representable
value (bit replication, ties to the lower level, Rec. 601 luma for the
intensity formats, RGB5A3's nearer mode), a 2x2 box filter for mip levels;
the decoding is tests/gx_reference.py, written from the format notes.  CMPR
is checked against error bounds and against a plain DXT1-style fit (1/3
blend, the two most distant texels as endpoints: tests/dxt1_baseline.py)."""
import random
import struct

import pytest

import gameanim
import dxt1_baseline
import gx_reference as gx
from dxt1_baseline import mixed_image, psnr
from model_fixtures import make_models as mm

PALETTE_FORMATS = ["IA8", "RGB565", "RGB5A3"]
DIRECT = ["I4", "I8", "IA4", "IA8", "RGB565", "RGB5A3", "RGBA8"]
INDEXED = ["C4", "C8", "C14X2"]
ENTRIES = {"C4": 16, "C8": 256, "C14X2": 256}


# ---------------------------------------------------------------- reference


def _levels(bits):
    return [gx.expand(k, bits) for k in range(1 << bits)]


def _nearest_table(bits):
    levels = _levels(bits)
    # nearest level, the lower on a tie (min keeps the first)
    return [levels[min(range(len(levels)), key=lambda k: abs(levels[k] - v))] for v in range(256)]


Q3, Q4, Q5, Q6 = (_nearest_table(b) for b in (3, 4, 5, 6))


def luma(r, g, b):
    return (77 * r + 150 * g + 29 * b + 128) >> 8


def _err(a, b):
    return sum((x - y) ** 2 for x, y in zip(a, b))


def ref_rgb5a3(p):
    r, g, b, a = p
    opaque = (Q5[r], Q5[g], Q5[b], 255)
    translucent = (Q4[r], Q4[g], Q4[b], Q3[a])
    return opaque if _err(opaque, p) <= _err(translucent, p) else translucent


def ref_pixel(fmt, p):
    """The RGBA the format shows nearest p (docs/model_writer.md)."""
    r, g, b, a = p
    y = luma(r, g, b)
    if fmt == "I4":
        return (Q4[y],) * 4
    if fmt == "I8":
        return (y,) * 4
    if fmt == "IA4":
        return (Q4[y],) * 3 + (Q4[a],)
    if fmt in ("IA8", "pal-IA8"):
        return (y, y, y, a)
    if fmt in ("RGB565", "pal-RGB565"):
        return (Q5[r], Q6[g], Q5[b], 255)
    if fmt in ("RGB5A3", "pal-RGB5A3"):
        return ref_rgb5a3(p)
    return tuple(p)


def ref_image(fmt, rgba):
    out = bytearray()
    for i in range(0, len(rgba), 4):
        out += bytes(ref_pixel(fmt, rgba[i:i + 4]))
    return bytes(out)


def box(rgba, w, h):
    """The next mip level: rounded mean of each 2x2 square, the edge texel
    repeated once a side is 1."""
    nw, nh = max(1, w // 2), max(1, h // 2)
    out = bytearray()
    for y in range(nh):
        ys = (min(2 * y, h - 1), min(2 * y + 1, h - 1))
        for x in range(nw):
            xs = (min(2 * x, w - 1), min(2 * x + 1, w - 1))
            for k in range(4):
                s = sum(rgba[(yy * w + xx) * 4 + k] for yy in ys for xx in xs)
                out.append((s + 2) >> 2)
    return bytes(out), nw, nh


def random_image(rng, w, h, alpha=True):
    return bytes(rng.randrange(256) if (k < 3 or alpha) else 255 for _ in range(w * h) for k in range(4))


# ---------------------------------------------------------------- direct formats


@pytest.mark.parametrize("fmt", DIRECT)
@pytest.mark.parametrize("size", [(8, 8), (13, 7), (1, 1), (32, 4)])
def test_direct_formats_decode_to_the_nearest_representable_value(fmt, size):
    w, h = size
    rng = random.Random(hash((fmt, size)) & 0xFFFF)
    rgba = random_image(rng, w, h)
    data, palette = gameanim.encode_texture(rgba, w, h, fmt)
    assert palette is None
    assert len(data) == gx.image_size(fmt, w, h)
    assert gx.decode(fmt, data, w, h) == ref_image(fmt, rgba)


def test_rgb5a3_picks_the_nearer_mode():
    # (17, 34, 51) is exact in 4 bits, not in 5: the 4-4-4-3 mode with alpha 7 wins even when opaque
    px = bytes([17, 34, 51, 255, 16, 33, 49, 255, 200, 100, 50, 40, 255, 255, 255, 250])
    data, _ = gameanim.encode_texture(px, 4, 1, "RGB5A3")
    got = gx.decode("RGB5A3", data, 4, 1)
    assert got[0:4] == bytes([17, 34, 51, 255]) and data[0] & 0x80 == 0
    assert got[4:8] == bytes([16, 33, 49, 255]) and data[2] & 0x80
    assert got == ref_image("RGB5A3", px)


def test_intensity_is_the_luma_of_rgb():
    px = bytes([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 90, 90, 90, 7])
    data, _ = gameanim.encode_texture(px, 4, 1, "IA8")
    got = gx.decode("IA8", data, 4, 1)
    assert [got[i] for i in (0, 4, 8, 12)] == [77, 149, 29, 90]  # (77 * 255 + 128) >> 8 ...
    assert got[15] == 7


# ---------------------------------------------------------------- indexed formats


@pytest.mark.parametrize("fmt", INDEXED)
@pytest.mark.parametrize("pf", PALETTE_FORMATS)
def test_indexed_formats_keep_few_colours_exactly(fmt, pf):
    rng = random.Random(len(fmt) * 7 + len(pf))
    colours = [bytes(rng.randrange(256) for _ in range(4)) for _ in range(ENTRIES[fmt])]
    w, h = 16, 12
    rgba = b"".join(rng.choice(colours) for _ in range(w * h))
    data, palette = gameanim.encode_texture(rgba, w, h, fmt, palette_format=pf)
    assert len(palette) == 2 * ENTRIES[fmt]
    assert len(data) == gx.image_size(fmt, w, h)
    assert gx.decode(fmt, data, w, h, palette, pf) == ref_image("pal-" + pf, rgba)


@pytest.mark.parametrize("fmt", INDEXED)
def test_indexed_formats_quantise_many_colours_to_the_palette(fmt):
    w = h = 32
    rgba = mixed_image(w, h)
    data, palette = gameanim.encode_texture(rgba, w, h, fmt, palette_format="RGB565")
    assert len(palette) == 2 * ENTRIES[fmt]
    got = gx.decode(fmt, data, w, h, palette, "RGB565")
    entries = {palette[i:i + 2] for i in range(0, len(palette), 2)}
    assert len(entries) <= ENTRIES[fmt]
    # every texel shows a palette colour, and the fit is a fair one
    shown = {tuple(gx.rgb565(int.from_bytes(e, "big"))) for e in entries}
    assert {tuple(got[i:i + 4]) for i in range(0, len(got), 4)} <= shown
    assert psnr(got, rgba) > (22 if fmt == "C4" else 30)


def test_the_default_palette_format_is_rgb5a3():
    rgba = bytes([10, 20, 30, 100]) * 64
    data, palette = gameanim.encode_texture(rgba, 8, 8, "C4")
    assert gx.decode("C4", data, 8, 8, palette, "RGB5A3") == ref_image("pal-RGB5A3", rgba)


# ---------------------------------------------------------------- CMPR


def test_cmpr_fits_better_than_a_plain_dxt1_fit():
    w = h = 64
    rgba = mixed_image(w, h)
    ours, _ = gameanim.encode_texture(rgba, w, h, "CMPR")
    plain = dxt1_baseline.encode(rgba, w, h)
    p_ours, p_plain = psnr(gx.decode("CMPR", ours, w, h), rgba), psnr(gx.decode("CMPR", plain, w, h), rgba)
    assert p_ours > p_plain + 1.0, (p_ours, p_plain)
    assert p_ours > 34


def test_cmpr_models_the_gx_blend():
    # a block holding both endpoints and the GX's own 3/8 and 5/8 colours decodes exactly
    e0, e1 = (31 << 11) | (10 << 5) | 3, (2 << 11) | (60 << 5) | 30
    c0, c1 = gx.rgb565(e0), gx.rgb565(e1)
    c2 = tuple((5 * c0[k] + 3 * c1[k]) // 8 for k in range(3)) + (255,)
    c3 = tuple((3 * c0[k] + 5 * c1[k]) // 8 for k in range(3)) + (255,)
    rng = random.Random(3)
    rgba = b"".join(bytes(rng.choice([c0, c1, c2, c3])) for _ in range(64))
    data, _ = gameanim.encode_texture(rgba, 8, 8, "CMPR")
    assert gx.decode("CMPR", data, 8, 8) == rgba
    # (the 3/8 colours are not DXT1's 1/3 ones)
    assert c2[:3] != tuple(round((2 * c0[k] + c1[k]) / 3) for k in range(3))


def test_cmpr_error_bounds():
    rng = random.Random(11)
    # flat blocks: within half a 565 step per channel
    for _ in range(40):
        c = [rng.randrange(256) for _ in range(3)]
        data, _ = gameanim.encode_texture(bytes(c + [255]) * 16, 4, 4, "CMPR")
        got = gx.decode("CMPR", data, 4, 4)
        for i in range(0, 64, 4):
            assert all(abs(got[i + k] - c[k]) <= (2 if k == 1 else 4) for k in range(3)), (c, got[:4])
            assert got[i + 3] == 255
    # two 565 colours: exact
    for _ in range(20):
        a, b = gx.rgb565(rng.randrange(65536)), gx.rgb565(rng.randrange(65536))
        rgba = b"".join(bytes(rng.choice([a, b])) for _ in range(16))
        data, _ = gameanim.encode_texture(rgba, 4, 4, "CMPR")
        assert gx.decode("CMPR", data, 4, 4) == rgba
    # a smooth gradient
    w = h = 32
    rgba = bytes(v for y in range(h) for x in range(w) for v in (x * 8, y * 8, 255 - x * 4, 255))
    data, _ = gameanim.encode_texture(rgba, w, h, "CMPR")
    got = gx.decode("CMPR", data, w, h)
    # (a planar gradient is not a line in colour space: four colours of a line cannot show it exactly)
    assert max(abs(got[i] - rgba[i]) for i in range(len(rgba)) if i % 4 != 3) <= 16
    assert psnr(got, rgba) > 32


def test_cmpr_transparent_texels_use_the_three_colour_mode():
    rng = random.Random(2)
    w = h = 16
    rgba = bytearray(random_image(rng, w, h))
    got = gx.decode("CMPR", gameanim.encode_texture(bytes(rgba), w, h, "CMPR")[0], w, h)
    for i in range(3, len(rgba), 4):
        assert got[i] == (0 if rgba[i] < 128 else 255)
    # an opaque image never decodes transparent; a clear one all transparent
    for a in (255, 0):
        img = bytes(v if k < 3 else a for v, k in zip(rgba, [0, 1, 2, 3] * (w * h)))
        data = gameanim.encode_texture(img, w, h, "CMPR")[0]
        assert set(gx.decode("CMPR", data, w, h)[3::4]) == {a}


@pytest.mark.parametrize("size", [(5, 3), (12, 20), (1, 1)])
def test_cmpr_odd_sizes(size):
    w, h = size
    rgba = mixed_image(max(w, 2), max(h, 2))[:w * h * 4] if w * h > 1 else bytes([9, 99, 199, 255])
    rgba = rgba[:w * h * 4]
    data, _ = gameanim.encode_texture(rgba, w, h, "CMPR")
    assert len(data) == gx.image_size("CMPR", w, h)
    assert psnr(gx.decode("CMPR", data, w, h), rgba) > 30


# ---------------------------------------------------------------- mip levels


@pytest.mark.parametrize("fmt", ["I4", "IA8", "RGB565", "RGB5A3", "RGBA8", "C8", "CMPR"])
@pytest.mark.parametrize("size,count", [((16, 16), 5), ((32, 8), 4), ((8, 2), 4)])
def test_mip_levels_are_box_filtered_and_encoded_each(fmt, size, count):
    w, h = size
    rng = random.Random(w * 31 + h)
    colours = [bytes(rng.randrange(256) for _ in range(4)) for _ in range(6)]
    rgba = b"".join(rng.choice(colours) for _ in range(w * h)) if fmt != "CMPR" else mixed_image(w, h)
    data, palette = gameanim.encode_texture(rgba, w, h, fmt, mip_count=count)
    at, level, lw, lh = 0, rgba, w, h
    for n in range(count):
        size = gx.image_size(fmt, lw, lh)
        got = gx.decode(fmt, data[at:at + size], lw, lh, palette or b"", "RGB5A3")
        if fmt == "CMPR":
            assert psnr(got, level) > (30 if n == 0 else 20), n
        elif fmt == "C8":
            # level 0's few colours are kept exactly; the lower levels' blends fill the palette's room
            assert got == ref_image("pal-RGB5A3", level), n
        else:
            assert got == ref_image(fmt, level), n
        at += size
        level, lw, lh = box(level, lw, lh)
    assert at == len(data)


# ---------------------------------------------------------------- errors


def test_bad_arguments_raise_value_error():
    px = bytes(64)
    with pytest.raises(ValueError, match="GX texture format"):
        gameanim.encode_texture(px, 4, 4, "DXT1")
    with pytest.raises(ValueError, match="width \\* height \\* 4"):
        gameanim.encode_texture(px[:-1], 4, 4, "I8")
    with pytest.raises(ValueError, match="1..1024"):
        gameanim.encode_texture(bytes(2048 * 4), 2048, 1, "I8")
    with pytest.raises(ValueError, match="1..1024"):
        gameanim.encode_texture(b"", 0, 4, "I8")
    with pytest.raises(ValueError, match="mip levels"):
        gameanim.encode_texture(px, 4, 4, "I8", mip_count=4)  # 4x4 has 3
    with pytest.raises(ValueError, match="powers of two"):
        gameanim.encode_texture(bytes(6 * 4 * 4), 6, 4, "I8", mip_count=2)
    with pytest.raises(ValueError, match="palette_format"):
        gameanim.encode_texture(px, 4, 4, "C8", palette_format="RGBA8")
    with pytest.raises(ValueError, match="C4, C8 and C14X2"):
        gameanim.encode_texture(px, 4, 4, "I8", palette_format="IA8")
    with pytest.raises(ValueError, match="mip_count"):
        gameanim.encode_texture(px, 4, 4, "I8", mip_count=0)


# ---------------------------------------------------------------- TEX1: Model.replace_texture

HEADERS = 0x20  # TEX1 record headers start at 0x20 in the chunk (tools/make_models.py tex1_body)


def _fixture_textures(rng):
    mip_data = b"".join(bytes(rng.randrange(256) for _ in range(gx.image_size("RGBA8", s, s))) for s in (16, 8, 4, 2, 1))
    return [
        mm.texture("a", "I8", 16, 16, bytes(rng.randrange(256) for _ in range(256))),            # repeat wrap
        mm.texture("b", "CMPR", 16, 8, bytes(rng.randrange(256) for _ in range(64)), wrap_s=0, wrap_t=0),
        mm.texture("c", "C8", 8, 8, bytes(rng.randrange(4) for _ in range(64)),
                   palette=bytes(rng.randrange(256) for _ in range(8)), palette_format=1, wrap_s=0, wrap_t=0),
        mm.texture("shared", "I8", 16, 16, data_from=0, wrap_s=2, wrap_t=0),
        mm.texture("mips", "RGBA8", 16, 16, mip_data, mip_count=5, min_filter=5),
    ]


def textured_model(kind="bmd", mdl3=False, seed=1):
    """A model with MAT3 (rich_materials: every material uses textures 0
    and 1) and the TEX1 above; texture 4 has max LOD 4.0 (32 eighths)."""
    body = bytearray(mm.tex1_body(_fixture_textures(random.Random(seed))))
    body[HEADERS - 8 + 4 * 0x20 + 0x17] = 32
    extra = [("MAT3", mm.mat3_body(mm.rich_materials()))]
    if mdl3:
        extra.append(("MDL3", bytes(24)))
    extra.append(("TEX1", bytes(body)))
    return mm.write_j3d_model([mm.joint("root")], [-1], kind=kind, extra_chunks=extra)


def tex1(model):
    return dict(model.chunks)["TEX1"]


def header(chunk, i):
    return chunk[HEADERS + 0x20 * i:HEADERS + 0x20 * (i + 1)]


def image_at(chunk, i):
    return HEADERS + 0x20 * i + struct.unpack_from(">I", chunk, HEADERS + 0x20 * i + 0x1C)[0]


def without_offsets(h):
    return h[:0x0C] + h[0x10:0x1C]


def reread(model, original):
    """The edited model's file (its chunks behind the original header)
    loaded again."""
    body = b"".join(c for _, c in model.chunks)
    data = original[:8] + struct.pack(">II", 0x20 + len(body), len(model.chunks)) + original[0x10:0x20] + body
    return gameanim.load_model(data)


def _pixels_equal(model, other, skip=()):
    for a, b in zip(model.textures, other.textures):
        if a.index not in skip:
            assert (a.pixels, a.width, a.height, a.format) == (b.pixels, b.width, b.height, b.format), a.index


def test_a_same_size_replacement_changes_only_that_image():
    data = textured_model()
    model, before = gameanim.load_model(data), gameanim.load_model(data)
    old = tex1(model)
    rgba = mixed_image(16, 8, seed=9)
    model.replace_texture(1, rgba, 16, 8)
    new = tex1(model)
    assert len(new) == len(old)
    at = image_at(old, 1)
    assert new[:at] == old[:at] and new[at + 64:] == old[at + 64:]
    assert new[at:at + 64] == gameanim.encode_texture(rgba, 16, 8, "CMPR")[0]
    assert model.textures[1].pixels == gx.decode("CMPR", new[at:at + 64], 16, 8)
    _pixels_equal(model, before, skip=(1,))
    again = reread(model, data)
    assert [t.pixels for t in again.textures] == [t.pixels for t in model.textures]
    assert [c for t, c in model.chunks if t != "TEX1"] == [c for t, c in before.chunks if t != "TEX1"]


@pytest.mark.parametrize("fmt", DIRECT + INDEXED + ["CMPR"])
def test_replacing_in_each_format(fmt):
    data = textured_model()
    model, before = gameanim.load_model(data), gameanim.load_model(data)
    old = tex1(model)
    rng = random.Random(len(fmt))
    if fmt in INDEXED:
        colours = [bytes(rng.randrange(256) for _ in range(4)) for _ in range(12)]
        rgba = b"".join(rng.choice(colours) for _ in range(256))
    else:
        rgba = random_image(rng, 16, 16) if fmt != "CMPR" else mixed_image(16, 16)
    model.replace_texture(0, rgba, 16, 16, fmt)
    t = model.textures[0]
    assert (t.format, t.width, t.height) == (fmt, 16, 16)
    if fmt in INDEXED:
        assert t.palette_format == "RGB5A3" and t.palette_count == ENTRIES[fmt]
        assert t.pixels == ref_image("pal-RGB5A3", rgba)
    elif fmt == "CMPR":
        assert psnr(t.pixels, rgba) > 30
    else:
        assert t.pixels == ref_image(fmt, rgba)
        assert t.palette_count == 0
    # the header sharing texture 0's old image keeps it; every other header is kept but for its offsets
    assert model.textures[3].pixels == before.textures[3].pixels
    new = tex1(model)
    for i in (1, 2, 3, 4):
        assert header(new, i) == header(old, i) or without_offsets(header(new, i)) == without_offsets(header(old, i))
    h = header(new, 0)
    assert without_offsets(h)[0x10:] == without_offsets(header(old, 0))[0x10:]  # filters, LOD, bias kept
    assert image_at(new, 0) % 32 == 0
    _pixels_equal(model, before, skip=(0,))
    assert [t.pixels for t in reread(model, data).textures] == [t.pixels for t in model.textures]


def test_shared_image_data_stays_stored_once():
    data = textured_model()
    model = gameanim.load_model(data)
    old = tex1(model)
    assert image_at(old, 0) == image_at(old, 3)
    model.replace_texture(1, mixed_image(32, 32), 32, 32)  # grows: later data moves
    new = tex1(model)
    assert image_at(new, 0) == image_at(new, 3)
    grown = gx.image_size("CMPR", 32, 32) - gx.image_size("CMPR", 16, 8)
    assert len(new) - len(old) == grown
    # the untouched images' bytes moved whole
    for i, fmt, n in ((0, "I8", 256), (2, "C8", 64)):
        assert new[image_at(new, i):image_at(new, i) + n] == old[image_at(old, i):image_at(old, i) + n]
    assert model.textures[1].width == 32 and model.textures[0].pixels == model.textures[3].pixels


def test_replacing_a_texture_that_shares_its_image():
    data = textured_model()
    model, before = gameanim.load_model(data), gameanim.load_model(data)
    rgba = random_image(random.Random(4), 16, 16)
    model.replace_texture(3, rgba, 16, 16)
    new = tex1(model)
    assert image_at(new, 0) != image_at(new, 3)
    assert model.textures[0].pixels == before.textures[0].pixels
    assert model.textures[3].pixels == ref_image("I8", rgba)


def test_a_format_and_size_change_updates_the_header():
    data = textured_model()
    model = gameanim.load_model(data)
    rgba = random_image(random.Random(8), 12, 5)
    model.replace_texture(2, rgba, 12, 5, "RGB5A3")  # clamp wrap: any size
    t = model.textures[2]
    assert (t.format, t.width, t.height, t.palette_format, t.palette_count) == ("RGB5A3", 12, 5, None, 0)
    assert t.pixels == ref_image("RGB5A3", rgba)
    h = header(tex1(model), 2)
    assert h[8:0x10] == bytes(8)  # no palette flag, format, count or offset


def test_the_palette_format_can_change():
    model = gameanim.load_model(textured_model())
    rgba = bytes([30, 60, 90, 255, 200, 10, 10, 128]) * 32
    model.replace_texture(2, rgba, 8, 8, palette_format="IA8")
    t = model.textures[2]
    assert (t.format, t.palette_format, t.palette_count) == ("C8", "IA8", 256)
    assert t.pixels == ref_image("pal-IA8", rgba)


def test_mip_levels_are_regenerated_and_lod_kept():
    data = textured_model()
    model = gameanim.load_model(data)
    old = header(tex1(model), 4)
    rgba = random_image(random.Random(6), 16, 16)
    model.replace_texture(4, rgba, 16, 16)
    new = tex1(model)
    assert header(new, 4)[0x10:0x1C] == old[0x10:0x1C]  # filters, LOD 0..32, 5 levels, bias
    at = image_at(new, 4)
    levels = gameanim.encode_texture(rgba, 16, 16, "RGBA8", mip_count=5)[0]
    assert new[at:at + len(levels)] == levels
    # a smaller image has fewer levels: count and max LOD follow
    model.replace_texture(4, rgba[:4 * 4 * 4], 4, 4)
    h = header(tex1(model), 4)
    assert (h[0x16], h[0x17], h[0x18], h[0x14]) == (0, 16, 3, 5)
    assert model.textures[4].mip_count == 3
    model.replace_texture(4, bytes(4), 1, 1)
    h = header(tex1(model), 4)
    assert (h[0x17], h[0x18], h[0x14]) == (0, 1, 1)  # LIN_MIP_LIN -> LINEAR with one level


def test_replace_errors():
    model = gameanim.load_model(textured_model())
    before = tex1(model)
    with pytest.raises(ValueError, match="repeat or mirror"):
        model.replace_texture(0, bytes(12 * 16 * 4), 12, 16)
    with pytest.raises(ValueError, match="powers of two"):
        model.replace_texture(4, bytes(12 * 16 * 4), 12, 16)
    with pytest.raises(ValueError, match="1..1024"):
        model.replace_texture(1, bytes(2048 * 4), 2048, 1)
    with pytest.raises(ValueError, match="of 5 textures"):
        model.replace_texture(5, bytes(64), 4, 4)
    with pytest.raises(ValueError, match="width \\* height \\* 4"):
        model.replace_texture(1, bytes(63), 4, 4)
    with pytest.raises(ValueError, match="GX texture format"):
        model.replace_texture(1, bytes(64), 4, 4, "BC1")
    assert tex1(model) == before
    bare = gameanim.load_model(mm.write_j3d_model([mm.joint("root")], [-1]))
    with pytest.raises(ValueError, match="no TEX1"):
        bare.replace_texture(0, bytes(64), 4, 4)


def test_a_bdl_whose_mdl3_lacks_the_lists_refuses_header_changes():
    data = mm.mesh_model(kind="bdl", game=True, mdl3=False)  # texture 2: material 0 only
    at = mm.find_chunk(data, b"TEX1")
    data = data[:at] + mm.chunk("MDL3", bytes(24)) + data[at:]  # an MDL3 stub: no lists to keep
    data = data[:8] + struct.pack(">II", len(data), struct.unpack_from(">I", data, 12)[0] + 1) + data[16:]
    bdl = gameanim.load_model(data)
    before = tex1(bdl), dict(bdl.chunks)["MDL3"]
    with pytest.raises(gameanim.FormatError, match="MDL3"):  # material 1's list would have to be kept
        bdl.replace_texture(2, bytes(16 * 16 * 4), 16, 16)
    assert (tex1(bdl), dict(bdl.chunks)["MDL3"]) == before  # TEX1 put back
    # every material uses texture 0 here: each list is encoded afresh, none kept
    model = gameanim.load_model(textured_model("bdl", mdl3=True))
    model.replace_texture(0, bytes(8 * 8 * 4), 8, 8)
    assert struct.unpack_from(">H", dict(model.chunks)["MDL3"], 8)[0] == len(model.materials)
    # same size and format: MDL3 is not reached; a texture no material uses: anything
    rgba = random_image(random.Random(1), 16, 16)
    model.replace_texture(0, rgba, 16, 16)
    assert model.textures[0].pixels == ref_image("I8", rgba)
    model.replace_texture(2, bytes(4 * 4 * 4), 4, 4, "I4")
    assert model.textures[2].format == "I4"
    # a BMD (no MDL3) takes any change
    bmd = gameanim.load_model(textured_model())
    bmd.replace_texture(0, bytes(8 * 8 * 4), 8, 8)
    assert bmd.textures[0].width == 8


def test_a_bdl_whose_stored_mdl3_is_broken_names_the_field_and_offset():
    """Keeping material 1's stored list (texture 2 is material 0's alone)
    reads MDL3's header (0x24 bytes: count at 0x08, table offsets from
    0x0C: lists {offset, size}, patches 16 bytes, matrix words 8 bytes)
    and material 0's and 1's entries; each failure names its field and
    the file offset (the chunk's place + the field's)."""
    base = mm.mesh_model(kind="bdl", game=True, mdl3=False)
    at = mm.find_chunk(base, b"TEX1")  # MDL3 goes where TEX1 was

    def body(count, lists=0x28, patches=0x38, entry0=(0, 0)):
        b = struct.pack(">HH6I", count, 0xFFFF, lists, patches, lists, 0, 0, 0)
        b += bytes(0x28 - 8 - len(b)) + struct.pack(">4I", *entry0, 0, 0)
        return b + bytes(96 - 8 - len(b))  # a 96-byte chunk: no padding text

    cases = [
        (bytes(24), "MDL3 header", at),  # a 32-byte chunk
        (body(1), "MDL3 material count", at + 8),
        (body(2, patches=0x50), "MDL3 table offset", at + 0x0C),  # one 16-byte entry left
        (body(2, entry0=(0, 0x1000)), "MDL3 display list", at + 0x28),
    ]
    for chunk_body, field, offset in cases:
        data = base[:at] + mm.chunk("MDL3", chunk_body) + base[at:]
        data = data[:8] + struct.pack(">II", len(data), struct.unpack_from(">I", data, 12)[0] + 1) + data[16:]
        bdl = gameanim.load_model(data)
        with pytest.raises(gameanim.FormatError) as e:
            bdl.replace_texture(2, bytes(16 * 16 * 4), 16, 16)
        assert (e.value.field, e.value.offset) == (field, offset), str(e.value)


def _mdl3_list(chunk, i):
    """Material i's display list (MDL3 list table at 0x0C: {offset from the
    entry, size}) as BP writes {register: value} (opcode 0x61, u32 whose top
    byte is the register); XF (0x10) loads skipped."""
    dl_tab = struct.unpack_from(">I", chunk, 0x0C)[0]
    off, size = struct.unpack_from(">II", chunk, dl_tab + 8 * i)
    dl = chunk[dl_tab + 8 * i + off:][:size]
    p, bp = 0, {}
    while p < len(dl) and dl[p]:
        if dl[p] == 0x61:
            v = struct.unpack_from(">I", dl, p + 1)[0]
            bp.setdefault(v >> 24, v & 0xFFFFFF)
            p += 5
        else:
            p += 5 + 4 * (struct.unpack_from(">H", dl, p + 1)[0] + 1)
    return dl, bp


def test_a_bdl_texture_change_re_encodes_its_users_display_lists():
    model = gameanim.load_model(mm.mesh_model(kind="bdl", game=True))  # material 0 uses texture 2 in slot 1
    old = dict(model.chunks)["MDL3"]
    model.replace_texture(2, random_image(random.Random(2), 16, 16), 16, 16, "I8")
    new = dict(model.chunks)["MDL3"]
    dl, bp = _mdl3_list(new, 0)
    v = bp[0x89]  # TX_SETIMAGE0 of texture map 1: width - 1, height - 1 (10 bits each), format
    assert (v & 0x3FF, v >> 10 & 0x3FF, v >> 20 & 0xF) == (15, 15, 1)
    assert bp[0x95] == 2  # TX_SETIMAGE3: the texture number
    assert _mdl3_list(new, 1)[0] == _mdl3_list(old, 1)[0]  # the other material keeps its list
    assert [p for p in gameanim.check_model(model.to_bytes()) if not p.startswith("warning:")] == []
    # an image-only replacement leaves MDL3 alone
    model.replace_texture(2, random_image(random.Random(3), 16, 16), 16, 16)
    assert dict(model.chunks)["MDL3"] == new


def test_a_header_table_past_the_chunk_is_a_format_error():
    # TEX1 of 0x40 bytes claiming 2 records: record 1 would lie in the next chunk
    h = ">BBHHBBBBHIIBBbbBxhI"
    tex = struct.pack(">HHII", 2, 0xFFFF, 0x20, 0) + bytes(0x20 - 8 - 12) + \
        struct.pack(h, 1, 0, 8, 4, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0)
    data = mm.write_j3d_model([mm.joint("root")], [-1], extra_chunks=[("TEX1", tex), ("ZZZZ", bytes(88))])
    model = gameanim.load_model(data)
    with pytest.raises(gameanim.FormatError, match="TEX1 texture headers"):
        model.textures
    with pytest.raises(gameanim.FormatError, match="TEX1 texture headers"):
        model.replace_texture(0, bytes(8 * 4 * 4), 8, 4)
