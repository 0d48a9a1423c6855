"""An independent, straightforward Python decoder of the GX texture formats,
written from the format description (../shared/formats/j3d_meshes.md
section 7: block tiling, bit replication, the palette formats and the CMPR
rule), not from csrc/models/gx_texture.c.  The tests compare gameanim's
decoder with it; the benchmark uses it as the Python baseline.

decode(fmt, data, width, height, palette=b"", palette_format="IA8") ->
bytes of RGBA8, top row first.
"""

# (block width, block height, bytes per block)
BLOCKS = {
    "I4": (8, 8, 32), "I8": (8, 4, 32), "IA4": (8, 4, 32), "IA8": (4, 4, 32), "RGB565": (4, 4, 32),
    "RGB5A3": (4, 4, 32), "RGBA8": (4, 4, 64), "C4": (8, 8, 32), "C8": (8, 4, 32), "C14X2": (4, 4, 32),
    "CMPR": (8, 8, 32),
}


def expand(v, bits):
    """Bit replication to 8 bits."""
    if bits == 3:
        return (v << 5) | (v << 2) | (v >> 1)
    if bits == 4:
        return v * 17
    if bits == 5:
        return (v << 3) | (v >> 2)
    if bits == 6:
        return (v << 2) | (v >> 4)
    return v


def rgb565(v):
    return (expand(v >> 11, 5), expand((v >> 5) & 0x3F, 6), expand(v & 0x1F, 5), 255)


def rgb5a3(v):
    if v & 0x8000:
        return (expand((v >> 10) & 0x1F, 5), expand((v >> 5) & 0x1F, 5), expand(v & 0x1F, 5), 255)
    return (expand((v >> 8) & 0xF, 4), expand((v >> 4) & 0xF, 4), expand(v & 0xF, 4), expand((v >> 12) & 7, 3))


def ia8(v):
    i = v & 0xFF
    return (i, i, i, v >> 8)


def image_size(fmt, width, height):
    bw, bh, nb = BLOCKS[fmt]
    return -(-width // bw) * -(-height // bh) * nb


def _palette(palette, palette_format):
    conv = {"IA8": ia8, "RGB565": rgb565, "RGB5A3": rgb5a3}[palette_format]
    return [conv(int.from_bytes(palette[i:i + 2], "big")) for i in range(0, len(palette) - 1, 2)]


def _cmpr_sub(block):
    c0, c1 = int.from_bytes(block[0:2], "big"), int.from_bytes(block[2:4], "big")
    a, b = rgb565(c0), rgb565(c1)
    if c0 > c1:
        third = tuple((5 * a[k] + 3 * b[k]) // 8 for k in range(3)) + (255,)
        fourth = tuple((3 * a[k] + 5 * b[k]) // 8 for k in range(3)) + (255,)
    else:
        third = tuple((a[k] + b[k]) // 2 for k in range(3)) + (255,)
        fourth = third[:3] + (0,)
    colours = [a, b, third, fourth]
    texels = []
    for row in range(4):
        byte = block[4 + row]
        for col in range(4):
            texels.append(colours[(byte >> (6 - 2 * col)) & 3])
    return texels  # 16, row by row


def block_texels(fmt, block, pal):
    """The texels of one block, row by row (block width x height)."""
    bw, bh, _ = BLOCKS[fmt]
    n = bw * bh
    if fmt == "CMPR":
        subs = [_cmpr_sub(block[8 * q:8 * q + 8]) for q in range(4)]
        out = []
        for y in range(8):
            for x in range(8):
                q = (y // 4) * 2 + (x // 4)
                out.append(subs[q][(y % 4) * 4 + (x % 4)])
        return out
    if fmt in ("I4", "C4"):
        vals = []
        for byte in block:
            vals += [byte >> 4, byte & 0xF]
        if fmt == "I4":
            return [(expand(v, 4),) * 4 for v in vals]
        return [pal[v] if v < len(pal) else (0, 0, 0, 0) for v in vals]
    if fmt == "I8":
        return [(v, v, v, v) for v in block]
    if fmt == "IA4":
        return [(expand(v & 0xF, 4),) * 3 + (expand(v >> 4, 4),) for v in block]
    if fmt == "C8":
        return [pal[v] if v < len(pal) else (0, 0, 0, 0) for v in block]
    if fmt == "RGBA8":
        return [(block[2 * i + 1], block[32 + 2 * i], block[32 + 2 * i + 1], block[2 * i]) for i in range(16)]
    words = [int.from_bytes(block[2 * i:2 * i + 2], "big") for i in range(n)]
    if fmt == "IA8":
        return [ia8(w) for w in words]
    if fmt == "RGB565":
        return [rgb565(w) for w in words]
    if fmt == "RGB5A3":
        return [rgb5a3(w) for w in words]
    if fmt == "C14X2":
        return [pal[w & 0x3FFF] if (w & 0x3FFF) < len(pal) else (0, 0, 0, 0) for w in words]
    raise ValueError(fmt)


def decode(fmt, data, width, height, palette=b"", palette_format="IA8"):
    bw, bh, nb = BLOCKS[fmt]
    pal = _palette(palette, palette_format) if palette else []
    out = [[(0, 0, 0, 0)] * width for _ in range(height)]
    pos = 0
    for by in range(0, height, bh):
        for bx in range(0, width, bw):
            texels = block_texels(fmt, data[pos:pos + nb], pal)
            pos += nb
            for i, t in enumerate(texels):
                x, y = bx + i % bw, by + i // bw
                if x < width and y < height:
                    out[y][x] = t
    return bytes(c for row in out for t in row for c in t)
