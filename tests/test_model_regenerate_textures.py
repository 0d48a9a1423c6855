"""Model.to_bytes(regenerate=True) encodes TEX1 afresh (issue 34;
docs/model_writer.md "Regenerating TEX1"; notes
../shared/formats/j3d_writer.md "TEX1" and 5.2, j3d_meshes.md section 7).

Every texture is re-encoded from its decoded texels, every mip level, in
its own format, palette format and palette size.  Expected values come from
the original file: its chunk is parsed here and every level decoded with
tests/gx_reference.py (written from the notes, not from the C decoder), and
the regenerated chunk is parsed and decoded the same way.  Non-CMPR
formats must decode identically at every level; CMPR within a PSNR bound.
The layout expected (headers, palettes, images, names; j3dview's writer,
after Nintendo's files) is built here from the notes."""
import math
import random
import struct

import pytest

import gameanim
import gx_reference as gx
from model_fixtures import make_models as mm
from test_model_writer import GENERATED, REGENERATED, _opaque_mat3, _with_real_mat3

FORMAT_NAMES = {v: k for k, v in mm.GX_FORMATS.items()}
PALETTE_FORMATS = ["IA8", "RGB565", "RGB5A3"]
# CMPR re-fitted from its own decode: a block whose endpoints show among its
# texels comes back exact, the others are re-fitted (the encoder's fit on a
# block of at most four colours); 40 dB is far above what a re-fit of
# arbitrary blocks loses (random blocks measure > 45 dB, a smooth image is
# exact), and far below a wrong decode (< 20 dB).
CMPR_PSNR = 40.0


# ---------------------------------------------------------------- reference parsing

def tex1_of(data):
    """The TEX1 chunk of a J3D file."""
    at = mm.find_chunk(data, b"TEX1")
    return data[at:at + struct.unpack_from(">I", data, at + 4)[0]]


def textures_of(chunk):
    """[(header bytes, [level RGBA...], palette bytes, image bytes)] per
    texture, decoded with the reference decoder (j3d_meshes.md 7.1)."""
    count, _, headers = struct.unpack_from(">HHI", chunk, 8)
    out = []
    for i in range(count):
        h = headers + 0x20 * i
        hd = chunk[h:h + 0x20]
        fmt = FORMAT_NAMES[hd[0]]
        w, ht = struct.unpack_from(">HH", hd, 2)
        pf, np, poff = hd[9], struct.unpack_from(">H", hd, 0x0A)[0], struct.unpack_from(">I", hd, 0x0C)[0]
        levels = hd[0x18] or 1
        at = h + struct.unpack_from(">I", hd, 0x1C)[0]
        palette = chunk[h + poff:h + poff + 2 * np] if fmt in ("C4", "C8", "C14X2") and np else b""
        lw, lh, rgba, start = w, ht, [], at
        for _ in range(levels):
            size = gx.image_size(fmt, lw, lh)
            rgba.append(gx.decode(fmt, chunk[at:at + size], lw, lh, palette, PALETTE_FORMATS[pf] if pf < 3 else "IA8"))
            at += size
            lw, lh = max(lw // 2, 1), max(lh // 2, 1)
        out.append((hd, rgba, palette, chunk[start:at]))
    return out


def names_of(chunk):
    off = struct.unpack_from(">I", chunk, 0x10)[0]
    if not off:
        return None
    n = struct.unpack_from(">H", chunk, off)[0]
    return [chunk[off + struct.unpack_from(">H", chunk, off + 6 + 4 * i)[0]:].split(b"\0")[0] for i in range(n)]


def header_fields(hd):
    """A header without its two data offsets (0x0C palette, 0x1C image)."""
    return hd[:0x0C] + hd[0x10:0x1C]


def psnr(a, b):
    mse = sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)
    return math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def regenerate(data):
    return gameanim.load_model(data).to_bytes(regenerate=True)


def check_same_textures(data, out):
    """The regenerated TEX1 decodes like the original at every level
    (CMPR: PSNR >= CMPR_PSNR), with the same header fields and names.
    Returns (texels exact, texels in all) over CMPR levels."""
    old, new = textures_of(tex1_of(data)), textures_of(tex1_of(out))
    assert len(new) == len(old)
    assert names_of(tex1_of(out)) == names_of(tex1_of(data))
    exact = total = 0
    for i, ((ho, lo, _, _), (hn, ln, _, _)) in enumerate(zip(old, new)):
        assert header_fields(hn) == header_fields(ho), i
        assert len(ln) == len(lo)
        for a, b in zip(lo, ln):
            if FORMAT_NAMES[ho[0]] == "CMPR":
                assert psnr(a, b) >= CMPR_PSNR, (i, psnr(a, b))
                exact += sum(a[k:k + 4] == b[k:k + 4] for k in range(0, len(a), 4))
                total += len(a) // 4
            else:
                assert a == b, (i, FORMAT_NAMES[ho[0]])
    return exact, total


# ---------------------------------------------------------------- fixtures

def _words(words):
    return b"".join(struct.pack(">H", w) for w in words)


def _rgb5a3_word(rng):
    """A random RGB5A3 word of either mode, never an opaque 4443 word whose
    colour 555 also holds (channels 0 or 15: two encodings, one picked)."""
    while True:
        w = rng.randrange(0x10000)
        if w & 0x8000 or (w >> 12) != 7 or any(((w >> s) & 15) not in (0, 15) for s in (0, 4, 8)):
            return w


def _mips(fmt, w, h, levels, rng):
    n = 0
    for _ in range(levels):
        n += gx.image_size(fmt, w, h)
        w, h = max(w // 2, 1), max(h // 2, 1)
    return n


def _data(fmt, w, h, levels, rng, palette_count=0):
    n = _mips(fmt, w, h, levels, rng)
    if fmt == "RGB5A3":
        return _words(_rgb5a3_word(rng) for _ in range(n // 2))
    if fmt in ("C4", "C8", "C14X2"):  # indices below the palette size (no two encodings of a texel)
        if fmt == "C4":
            return bytes(rng.randrange(palette_count) << 4 | rng.randrange(palette_count) for _ in range(n))
        if fmt == "C8":
            return bytes(rng.randrange(palette_count) for _ in range(n))
        return _words(rng.randrange(palette_count) for _ in range(n // 2))
    return bytes(rng.randrange(256) for _ in range(n))


def _palette(pf, count, rng):
    """count distinct entries that decode to distinct colours."""
    if pf == 2:
        seen, out = set(), []
        while len(out) < count:
            w = _rgb5a3_word(rng)
            c = gx.rgb5a3(w)
            if c not in seen:
                seen.add(c)
                out.append(w)
        return _words(out)
    return _words(rng.sample(range(0x10000), count))


def exact_textures(rng):
    """One texture per non-CMPR format, whole blocks at every level, RGB5A3
    mixing both modes, palettes of 16 and 256 distinct entries, mip levels,
    a shared image and a palette swap sharing an index image: the layout
    and bytes regenerate reproduces exactly."""
    t = mm.texture
    pal16, pal256, pal256b = _palette(2, 16, rng), _palette(0, 256, rng), _palette(1, 256, rng)
    return [
        t("i4", "I4", 32, 32, _data("I4", 32, 32, 3, rng), mip_count=3, min_filter=5),
        t("i8", "I8", 16, 16, _data("I8", 16, 16, 2, rng), mip_count=2, min_filter=4),
        t("ia4", "IA4", 16, 8, _data("IA4", 16, 8, 1, rng)),
        t("ia8", "IA8", 8, 8, _data("IA8", 8, 8, 2, rng), mip_count=2),
        t("rgb565", "RGB565", 16, 16, _data("RGB565", 16, 16, 1, rng)),
        t("rgb5a3", "RGB5A3", 16, 16, _data("RGB5A3", 16, 16, 3, rng), mip_count=3, min_filter=5),
        t("rgba8", "RGBA8", 8, 8, _data("RGBA8", 8, 8, 2, rng), mip_count=2),
        t("c4", "C4", 16, 16, _data("C4", 16, 16, 2, rng, 16), palette=pal16, palette_format=2, mip_count=2),
        t("c8", "C8", 16, 8, _data("C8", 16, 8, 1, rng, 256), palette=pal256, palette_format=0),
        t("c14x2", "C14X2", 8, 8, _data("C14X2", 8, 8, 1, rng, 256), palette=pal256b, palette_format=1),
        t("i8_shared", "I8", 16, 16, data_from=1, wrap_s=2, wrap_t=0),
        t("c8_swap", "C8", 16, 8, data_from=8, palette=pal256b, palette_format=1),
    ]


def other_textures(rng):
    """What regenerate reproduces decoded but not byte for byte: partial
    blocks (padding texels re-encoded as zero), mip chains down to 1x1,
    indices past the palette (transparent black), a palette with repeated
    colours and opaque 4443 RGB5A3 texels 555 could also hold, CMPR."""
    t = mm.texture
    smooth = bytes(v for y in range(32) for x in range(32) for v in (x * 8, y * 8, (x * y) % 256, 255))
    cmpr_smooth = gameanim.encode_texture(smooth, 32, 32, "CMPR", mip_count=3)[0]
    dup = _words([0x1234] * 4 + list(range(0x8000, 0x8000 + 12)))
    return [
        t("ia8_chain", "IA8", 8, 8, _data("IA8", 8, 8, 4, rng), mip_count=4, min_filter=5),
        t("i4_small", "I4", 4, 4, _data("I4", 4, 4, 1, rng)),
        t("c8_short", "C8", 16, 4, bytes(rng.randrange(256) for _ in range(64)), palette=_palette(2, 40, rng),
          palette_format=2),
        t("c4_dup", "C4", 8, 8, bytes(rng.randrange(256) for _ in range(32)), palette=dup, palette_format=2),
        t("rgb5a3_both", "RGB5A3", 4, 4, _words([0x7000, 0x7FFF, 0x7F0F, 0xFFFF] * 4)),
        t("cmpr_random", "CMPR", 32, 32, bytes(rng.randrange(256) for _ in range(_mips("CMPR", 32, 32, 3, rng))),
          mip_count=3, min_filter=5),
        t("cmpr_smooth", "CMPR", 32, 32, cmpr_smooth, mip_count=3, min_filter=5),
        t("c14x2_past", "C14X2", 4, 4, _words(rng.randrange(0x4000) for _ in range(16)), palette=_palette(1, 256, rng),
          palette_format=1),
    ]


def with_tex1(textures, kind="bmd"):
    """The game-laid-out mesh model (check_model finds nothing) with its
    TEX1 replaced (its materials use textures 0 to 2)."""
    data = mm.mesh_model(kind, game=True)
    at = mm.find_chunk(data, b"TEX1")
    size = struct.unpack_from(">I", data, at + 4)[0]
    out = data[:at] + mm.chunk("TEX1", mm.tex1_body(textures)) + data[at + size:]
    return out[:8] + struct.pack(">I", len(out)) + out[12:]


@pytest.fixture(scope="module")
def exact_model():
    return with_tex1(exact_textures(random.Random(34)))


@pytest.fixture(scope="module")
def other_model():
    return with_tex1(other_textures(random.Random(35)))


# ---------------------------------------------------------------- tests

def expected_chunk(data):
    """The TEX1 regenerate writes for a model whose every texture encodes
    back to its stored bytes: built from the stored pieces in the layout of
    docs/model_writer.md (j3dview's writer): header padded with the padding
    text to 0x20, the headers, each palette then each image once (shared by
    stored offset) 32-aligned with zeros, the name table, padding text."""
    chunk = tex1_of(data)
    count, _, headers, _ = struct.unpack_from(">HHII", chunk, 8)
    hds = [bytearray(chunk[headers + 0x20 * i:headers + 0x20 * i + 0x20]) for i in range(count)]
    body = bytearray(struct.pack(">HHII", count, 0xFFFF, 0x20, 0))
    body += (mm.PADDING * 2)[:0x20 - 8 - len(body)]
    body += bytes(0x20 * count)
    placed = {}

    def place(kind, at, size):
        if (kind, at) not in placed:
            body.extend(bytes(-(len(body) + 8) % 32))
            placed[(kind, at)] = len(body) + 8
            body.extend(chunk[at:at + size])
        return placed[(kind, at)]

    for i, hd in enumerate(hds):
        rel = 0x20 + 0x20 * i
        fmt, np = FORMAT_NAMES[hd[0]], struct.unpack_from(">H", hd, 0x0A)[0]
        if fmt in ("C4", "C8", "C14X2") and np:
            at = place("palette", headers + 0x20 * i + struct.unpack_from(">I", hd, 0x0C)[0], 2 * np)
        else:
            at = len(body) + 8
        struct.pack_into(">I", hd, 0x0C, at - rel)
    for i, hd in enumerate(hds):
        rel = 0x20 + 0x20 * i
        w, h = struct.unpack_from(">HH", hd, 2)
        size = _mips(FORMAT_NAMES[hd[0]], w, h, hd[0x18] or 1, None)
        at = place("image", headers + 0x20 * i + struct.unpack_from(">I", hd, 0x1C)[0], size)
        struct.pack_into(">I", hd, 0x1C, at - rel)
    struct.pack_into(">I", body, 0x10 - 8, len(body) + 8)
    body += mm.name_table([n.decode("cp932") for n in names_of(chunk)])
    for i, hd in enumerate(hds):
        body[0x18 + 0x20 * i:0x18 + 0x20 * i + 0x20] = hd
    return mm.chunk("TEX1", bytes(body))


def test_regenerated_tex1_is_the_expected_layout_byte_for_byte(exact_model):
    out = regenerate(exact_model)
    assert tex1_of(out) == expected_chunk(exact_model)
    check_same_textures(exact_model, out)
    # shared data stays one copy: the I8 pair and the palette swap point at one image
    new = tex1_of(out)
    at = [0x20 + 0x20 * i + struct.unpack_from(">I", new, 0x20 + 0x20 * i + 0x1C)[0] for i in range(12)]
    assert at[10] == at[1] and at[11] == at[8] and len(set(at)) == 10


def test_every_non_cmpr_format_decodes_the_same_at_every_level(other_model):
    out = regenerate(other_model)
    exact, total = check_same_textures(other_model, out)
    assert total == 32 * 32 * 2 + 16 * 16 * 2 + 8 * 8 * 2  # two CMPR textures of three levels
    # the smooth CMPR (our encoder's output) comes back exact; random blocks mostly
    assert exact / total > 0.9, exact / total
    old, new = textures_of(tex1_of(other_model)), textures_of(tex1_of(out))
    # the opaque 4443 texels: white and black have two encodings (the opaque
    # 555 one is written), 0x7F0F (255, 0, 255) too; all decode the same
    assert new[4][1] == old[4][1]
    # the C8 palette of 40 entries keeps its size and order; indices past it stay past it
    assert new[2][2] == old[2][2] and len(new[2][2]) == 80
    # a palette with a repeated colour: the first entry of the colour is used
    assert new[3][2] == old[3][2]
    assert all(b >> 4 not in (1, 2, 3) and b & 15 not in (1, 2, 3) for b in new[3][3])


def test_cmpr_regenerates_exactly_where_its_endpoints_show():
    """Each CMPR sub-block whose two endpoints appear among its texels comes
    back with the same colours; counted over random blocks."""
    rng = random.Random(7)
    blocks = bytes(rng.randrange(256) for _ in range(32 * 64))
    data = with_tex1([mm.texture("c", "CMPR", 64, 64, blocks, wrap_s=0, wrap_t=0)] +
                     [mm.texture("i", "I8", 8, 4, bytes(32))] * 2)
    old = textures_of(tex1_of(data))[0][1][0]
    new = textures_of(tex1_of(regenerate(data)))[0][1][0]
    shows = same = 0
    for sb in range(len(blocks) // 8):
        tile, q = divmod(sb, 4)
        x0, y0 = (tile % 8) * 8 + 4 * (q & 1), (tile // 8) * 8 + 4 * (q >> 1)
        px = [(x0 + x, y0 + y) for y in range(4) for x in range(4)]
        sub = blocks[8 * sb:8 * sb + 8]
        codes = [(sub[4 + k // 4] >> (6 - 2 * (k % 4))) & 3 for k in range(16)]
        if 0 in codes and 1 in codes:
            shows += 1
            same += all(old[4 * (64 * y + x):4 * (64 * y + x) + 4] == new[4 * (64 * y + x):4 * (64 * y + x) + 4]
                        for x, y in px)
    assert shows > 200 and same == shows, (same, shows)
    assert psnr(old, new) >= CMPR_PSNR


@pytest.mark.parametrize("which", ["exact", "other"])
def test_regenerate_is_a_fixed_point_and_passes_check_model(which, exact_model, other_model):
    data = exact_model if which == "exact" else other_model
    assert gameanim.check_model(data) == []
    out = regenerate(data)
    assert gameanim.check_model(out) == []
    assert regenerate(out) == out
    # the chunks regenerate does not encode are untouched
    old, new = dict(gameanim.load_model(data).chunks), dict(gameanim.load_model(out).chunks)
    assert {t: b for t, b in old.items() if t not in REGENERATED} == \
        {t: b for t, b in new.items() if t not in REGENERATED}


def test_a_bdl_regenerates_its_textures():
    data = with_tex1(exact_textures(random.Random(34)), "bdl")
    out = regenerate(data)
    assert tex1_of(out) == expected_chunk(data)
    assert gameanim.check_model(out) == gameanim.check_model(data)  # (no MDL3 here: that one problem)


@pytest.mark.parametrize("name", sorted(n for n in GENERATED if b"TEX1" in GENERATED[n]()))
def test_every_generated_model_regenerates_its_textures(name):
    data = GENERATED[name]()
    if _opaque_mat3(data):
        data = _with_real_mat3(data)
    out = regenerate(data)
    check_same_textures(data, out)
    assert regenerate(out) == out
    if name.startswith("mesh") or name == "rich_materials":
        # the TEX1 regenerate adds no texture problem (the geometry's are re-laid out by its own
        # regenerate: tests/test_model_regenerate_geometry.py)
        def tex1_problems(d):
            return [p.split(" (offset")[0] for p in gameanim.check_model(d) if p.startswith("TEX1")]
        assert tex1_problems(out) == tex1_problems(data)


# ---------------------------------------------------------------- bad input

def _tex1_patched(data, rel, fmt, value):
    at = mm.find_chunk(data, b"TEX1") + rel
    b = bytearray(data)
    struct.pack_into(fmt, b, at, value)
    return bytes(b)


def test_a_mip_chain_past_the_chunk_is_a_format_error(exact_model):
    h = 0x20 + 0x20 * 2  # ia4, 16x8, one level
    data = _tex1_patched(exact_model, h + 0x18, ">B", 200)
    model = gameanim.load_model(data)
    assert len(model.textures) == 12  # the decoder needs only level 0
    with pytest.raises(gameanim.FormatError, match="TEX1 mip levels"):
        model.to_bytes(regenerate=True)
    assert model.to_bytes() == data


@pytest.mark.parametrize("rel, fmt, value, field", [
    (0x20 + 0x20 * 0, ">B", 7, "TEX1 format"),
    (0x20 + 0x20 * 3 + 0x1C, ">I", 0x7FFFFFF0, "TEX1 image data offset"),
    (0x20 + 0x20 * 7 + 0x0C, ">I", 0x7FFFFFF0, "TEX1 palette offset"),
    (0x08, ">H", 0x7FFF, "TEX1 texture headers"),
])
def test_a_bad_tex1_is_a_format_error_under_regenerate(exact_model, rel, fmt, value, field):
    model = gameanim.load_model(_tex1_patched(exact_model, rel, fmt, value))
    with pytest.raises(gameanim.FormatError, match=field):
        model.to_bytes(regenerate=True)


def test_corrupted_tex1_bytes_regenerate_or_raise_format_error(other_model):
    """Random byte changes in TEX1: regenerate gives a file or a FormatError,
    never a crash or another error."""
    rng = random.Random(1)
    at = mm.find_chunk(other_model, b"TEX1")
    size = struct.unpack_from(">I", other_model, at + 4)[0]
    outcomes = set()
    for _ in range(300):
        b = bytearray(other_model)
        for _ in range(rng.randint(1, 4)):
            b[at + 8 + rng.randrange(0x20 + 0x20 * 8 - 8)] = rng.randrange(256)
        try:
            model = gameanim.load_model(bytes(b))
            out = model.to_bytes(regenerate=True)
            outcomes.add("ok")
            gameanim.load_model(out).textures
        except gameanim.FormatError:
            outcomes.add("FormatError")
    assert outcomes == {"ok", "FormatError"}
    assert size > 0
