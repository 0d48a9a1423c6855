"""The plain DXT1-style CMPR fit the encoder is measured against (tests
and bench/bench_texture_encode.py): per 4x4 sub-block, the two most
distant texels (squared RGB distance) as endpoints, rounded to the nearest
RGB565 levels, indices chosen for DXT1's 1/3 - 2/3 blend, as tools that
ignore the GX's 3/8 - 5/8 blend do.  No refinement.  Opaque images only.

encode(rgba, width, height) -> CMPR bytes; image helpers for the tests and
the bench: mixed_image (gradients, noise, hard edges) and psnr.
"""
import math
import random
import struct

import gx_reference as gx


def _level(v, bits):
    levels = [gx.expand(k, bits) for k in range(1 << bits)]
    return min(range(len(levels)), key=lambda k: abs(levels[k] - v))


def _dist(a, b):
    return sum((x - y) ** 2 for x, y in zip(a, b))


def _sub_block(rgba, w, h, x0, y0):
    def texel(x, y):
        at = ((y0 + y) * w + x0 + x) * 4
        return tuple(rgba[at:at + 3])

    inside = [(x, y) for y in range(4) for x in range(4) if x0 + x < w and y0 + y < h]
    if not inside:
        return bytes(8)
    texels = [texel(x, y) for x, y in inside]
    a, b = max(((p, q) for p in texels for q in texels), key=lambda pq: _dist(*pq))
    e0, e1 = (_level(c[0], 5) << 11 | _level(c[1], 6) << 5 | _level(c[2], 5) for c in (a, b))
    if e0 < e1:
        e0, e1 = e1, e0
    c0, c1 = gx.rgb565(e0)[:3], gx.rgb565(e1)[:3]
    pal = [c0] if e0 == e1 else [c0, c1, tuple((2 * c0[k] + c1[k]) / 3 for k in range(3)),
                                 tuple((c0[k] + 2 * c1[k]) / 3 for k in range(3))]
    codes = [0] * 16
    for x, y in inside:
        p = texel(x, y)
        codes[4 * y + x] = min(range(len(pal)), key=lambda i: _dist(pal[i], p))
    rows = bytes(codes[4 * y] << 6 | codes[4 * y + 1] << 4 | codes[4 * y + 2] << 2 | codes[4 * y + 3]
                 for y in range(4))
    return struct.pack(">HH", e0, e1) + rows


def encode(rgba, w, h):
    out = bytearray()
    for by in range(0, h, 8):
        for bx in range(0, w, 8):
            for q in range(4):
                out += _sub_block(rgba, w, h, bx + 4 * (q & 1), by + 4 * (q >> 1))
    return bytes(out)


def mixed_image(w=64, h=64, seed=5):
    """Gradients, noise and hard edges, opaque."""
    rng = random.Random(seed)
    out = bytearray()
    for y in range(h):
        for x in range(w):
            if (x // 16 + y // 16) % 3 == 0:  # a checker of flat colours with hard edges
                c = (230, 40, 30) if (x // 4 + y // 4) % 2 else (20, 60, 200)
            else:
                c = (x * 255 // max(1, w - 1), y * 255 // max(1, h - 1), (x + 2 * y) * 255 // (w + 2 * h))
            n = rng.randint(-10, 10)
            out += bytes([max(0, min(255, v + n)) for v in c] + [255])
    return bytes(out)


def psnr(a, b, channels=3):
    se = n = 0
    for i in range(0, len(a), 4):
        for k in range(channels):
            se += (a[i + k] - b[i + k]) ** 2
            n += 1
    return 99.0 if se == 0 else 10 * math.log10(255 ** 2 * n / se)
