"""Straightforward pure-Python decoders and samplers for BCK and BCA: the
baseline that bench_codecs.py compares the C extension against.  They
follow the same game rules (Hermite keys with hold for BCK; the SM64DS
sampler with the tail rule, floor lerp and rotation wrap for BCA) but are
written the obvious way: struct.unpack per field, Python loops per key and
per frame."""
import math
import struct

from lz10_py import lz10_decompress


# ---------------------------------------------------------------- BCK


def bck_decode(data):
    size = struct.unpack_from(">I", data, 8)[0]
    c = 0x20
    loop, frac, duration, joints, ns, nr, nt = struct.unpack_from(">BBhHHHH", data, c + 8)
    o_tab, o_s, o_r, o_t = struct.unpack_from(">IIII", data, c + 0x14)
    scale = [struct.unpack_from(">f", data, c + o_s + 4 * i)[0] for i in range(ns)]
    rot = [struct.unpack_from(">h", data, c + o_r + 2 * i)[0] for i in range(nr)]
    trans = [struct.unpack_from(">f", data, c + o_t + 4 * i)[0] for i in range(nt)]
    tables = (scale, rot, trans)
    tracks = []
    for j in range(joints):
        for ch in range(3):
            for axis in range(3):
                count, index, ttype = struct.unpack_from(">HHH", data, c + o_tab + j * 0x36 + (axis * 3 + ch) * 6)
                tab = tables[ch]
                keys = []
                if count == 1:
                    keys.append((0.0, tab[index], 0.0, 0.0))
                elif count > 1:
                    stride = 3 if ttype == 0 else 4
                    for k in range(count):
                        e = tab[index + k * stride : index + (k + 1) * stride]
                        keys.append((e[0], e[1], e[2], e[3] if stride == 4 else e[2]))
                tracks.append((ch, keys))
    return {"frac": frac, "duration": duration, "tracks": tracks, "size": size}


def bck_value(ch, keys, frame, frac):
    if not keys:
        return 1.0 if ch == 0 else 0.0
    if len(keys) == 1:
        v = keys[0][1]
    elif frame < keys[0][0]:
        v = keys[0][1]
    elif keys[-1][0] <= frame:
        v = keys[-1][1]
    else:
        i = 0
        while keys[i + 1][0] <= frame:
            i += 1
        t0, v0, _, s0 = keys[i]
        t1, v1, s1, _ = keys[i + 1]
        L = t1 - t0
        u = (frame - t0) / L
        m0, m1 = s0 * L, s1 * L
        v = (2 * v0 - 2 * v1 + m0 + m1) * u ** 3 + (-3 * v0 + 3 * v1 - 2 * m0 - m1) * u ** 2 + m0 * u + v0
        if ch == 1:
            v = math.trunc(v)
    if ch == 1:
        return v * (1 << frac) * math.pi / 32768.0
    return v


def bck_decode_and_sample(data, frames):
    anim = bck_decode(data)
    out = []
    for ch, keys in anim["tracks"]:
        for f in frames:
            out.append(bck_value(ch, keys, f, anim["frac"]))
    return out


# ---------------------------------------------------------------- BCA


def bca_decode(data):
    if data[:4] == b"LZ77":
        data = lz10_decompress(data[4:])
    bones, frames, loop = struct.unpack_from("<HHI", data, 0)
    o_s, o_r, o_t, o_b = struct.unpack_from("<IIII", data, 8)
    descs = []
    for b in range(bones):
        row = []
        for k in range(9):
            aa, bb, cc = struct.unpack_from("<BBH", data, o_b + b * 36 + k * 4)
            row.append((aa, bb, cc))
        descs.append(row)
    return {"data": data, "frames": frames, "offsets": (o_s, o_r, o_t), "descs": descs}


def bca_raw(anim, kind, cc, i):
    data = anim["data"]
    base = anim["offsets"][kind]
    if kind == 1:
        return struct.unpack_from("<h", data, base + 2 * (cc + i))[0]
    return struct.unpack_from("<i", data, base + 4 * (cc + i))[0]


def bca_value(anim, kind, desc, f):
    aa, bb, cc = desc
    n = anim["frames"]
    if bb == 0:
        return bca_raw(anim, kind, cc, 0)
    if aa == 0:
        return bca_raw(anim, kind, cc, f)
    last = ((n - 1) >> aa) << aa
    if f >= last:
        return bca_raw(anim, kind, cc, (f >> aa) + (f - last))
    k = f >> aa
    r = f - (k << aa)
    lo = bca_raw(anim, kind, cc, k)
    if r == 0:
        return lo
    hi = bca_raw(anim, kind, cc, k + 1)
    w = 1 << aa
    if kind == 1 and abs(lo - hi) >= 0x800:
        if lo < hi:
            lo += 0x1000
        else:
            hi += 0x1000
        return ((lo * (w - r) + hi * r) >> aa) & 0xFFF
    return (lo * (w - r) + hi * r) >> aa


def bca_decode_and_sample(data, frames):
    anim = bca_decode(data)
    out = []
    for row in anim["descs"]:
        scale_fast = all(row[k][1] == 0 and row[k][2] == 0 for k in range(3))
        for k in range(9):
            kind = k // 3
            for f in frames:
                if kind == 0 and scale_fast:
                    out.append(1.0)
                    continue
                v = bca_value(anim, kind, row[k], int(f))
                out.append(v * 2 * math.pi / 4096.0 if kind == 1 else v / 4096.0)
    return out
