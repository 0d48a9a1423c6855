"""An independent, plain-Python reading of BCK/BTK and of the J3D runtime's
curve evaluation, written from the format notes (not from the C code), for
checking the extension against."""
import math
import struct
from fractions import Fraction

PI = math.pi


def f32(x):
    """x rounded to float32 (round to nearest even; past the largest float
    it rounds to infinity, as IEEE single arithmetic does)."""
    try:
        return struct.unpack(">f", struct.pack(">f", x))[0]
    except OverflowError:  # (struct refuses what rounds to infinity)
        return math.copysign(math.inf, x)


class Desc:
    def __init__(self, count, index, ttype):
        self.count, self.index, self.type = count, index, ttype


def parse(data):
    """Returns a dict with every header field and, per entry, the nine raw
    key tables in file order (sx rx tx sy ry ty sz rz tz)."""
    magic, kind, size, blocks = struct.unpack_from(">4s4sII", data, 0)
    assert magic == b"J3D1"
    out = {"kind": kind.decode(), "file_size": size, "block_count": blocks, "header_0x10": data[0x10:0x20]}
    c = 0x20
    cmagic, csize, loop, frac, duration, count = struct.unpack_from(">4sIBBhH", data, c)
    out.update(chunk_magic=cmagic.decode(), chunk_size=csize, loop_mode=loop, rotation_frac=frac, duration=duration)
    ns, nr, nt = struct.unpack_from(">HHH", data, c + 0x0E)
    out.update(scale_count=ns, rotation_count=nr, translation_count=nt)
    btk = kind == b"btk1"
    if not btk:
        out["joint_count"] = count
        n = count
        o_tab, o_s, o_r, o_t = struct.unpack_from(">IIII", data, c + 0x14)
        out["sound_offset"] = struct.unpack_from(">I", data, 0x1C)[0]
    else:
        out["track_count"] = count
        n = count // 3
        (o_tab, o_remap, o_names, o_tex, o_center, o_s, o_r, o_t) = struct.unpack_from(">8I", data, c + 0x14)
        out["calc_type"] = struct.unpack_from(">I", data, c + 0x5C)[0]
        out["post_track_count"] = struct.unpack_from(">H", data, c + 0x34)[0]
        out["remap"] = list(struct.unpack_from(">%dH" % n, data, c + o_remap))
        out["texmtx"] = list(data[c + o_tex : c + o_tex + n])
        out["center"] = [struct.unpack_from(">3f", data, c + o_center + 12 * i) for i in range(n)]
        nt_at = c + o_names
        ncount = struct.unpack_from(">H", data, nt_at)[0]
        names, hashes = [], []
        for i in range(ncount):
            h, off = struct.unpack_from(">HH", data, nt_at + 4 + 4 * i)
            end = data.index(b"\0", nt_at + off)
            names.append(data[nt_at + off : end].decode("cp932"))
            hashes.append(h)
        out["names"], out["name_hashes"] = names, hashes
    out["entries"] = n
    scale = list(struct.unpack_from(">%df" % ns, data, c + o_s)) if ns else []
    rot = list(struct.unpack_from(">%dh" % nr, data, c + o_r)) if nr else []
    trans = list(struct.unpack_from(">%df" % nt, data, c + o_t)) if nt else []
    out["tables"] = (scale, rot, trans)
    descs = []
    for e in range(n):
        row = []
        for k in range(9):
            row.append(Desc(*struct.unpack_from(">HHH", data, c + o_tab + e * 0x36 + k * 6)))
        descs.append(row)
    out["descs"] = descs
    return out


def keys_of(info, entry, channel, axis):
    """Raw keys of one track: (count, [(time, value, in, out), ...])."""
    d = info["descs"][entry][axis * 3 + channel]
    table = info["tables"][channel]
    if d.count == 0:
        return 0, []
    if d.count == 1:
        return 1, [(0.0, table[d.index], 0.0, 0.0)]
    stride = 3 if d.type == 0 else 4
    keys = []
    for k in range(d.count):
        e = table[d.index + k * stride : d.index + (k + 1) * stride]
        keys.append((e[0], e[1], e[2], e[3] if stride == 4 else e[2]))
    return d.count, keys


# ---- IEEE single precision, exactly (the game computes in f32 with fused
# multiply-adds; Python floats are doubles, so every operation is done on
# exact fractions and rounded once to the nearest float32, ties to even).


def _bits(f):
    return struct.unpack("<I", struct.pack("<f", f))[0]


def _from_bits(u):
    return struct.unpack("<f", struct.pack("<I", u & 0xFFFFFFFF))[0]


def _next32(f, up):
    if f == 0.0:
        return _from_bits(1) if up else -_from_bits(1)
    u = _bits(f)
    if (f > 0) == up:
        return _from_bits(u + 1)
    return _from_bits(u - 1)


FLT_MAX = f32(3.4028234663852886e38)
_OVERFLOW = Fraction(2) ** 128 - Fraction(2) ** 103  # halfway past FLT_MAX: rounds to infinity


def r32(x):
    """Exact rational -> nearest float32 (infinity from halfway past the
    largest float on)."""
    x = Fraction(x)
    if abs(x) >= _OVERFLOW:
        return math.copysign(math.inf, x)
    f = f32(float(x))
    if math.isinf(f):
        f = math.copysign(FLT_MAX, x)
    best = f
    for c in (_next32(f, True), _next32(f, False)):
        if not math.isfinite(c):
            continue
        d, db = abs(Fraction(c) - x), abs(Fraction(best) - x)
        if d < db or (d == db and _bits(c) % 2 == 0 and _bits(best) % 2 == 1):
            best = c
    return best


# For +, -, * and / of two float32 values, rounding the correctly rounded
# double result to float32 gives the correctly rounded float32 result
# (53 >= 2 * 24 + 2), so plain doubles do; fused multiply-adds need the
# exact route.


def add32(a, b):
    return f32(a + b)


def sub32(a, b):
    return f32(a - b)


def mul32(a, b):
    return f32(a * b)


def div32(a, b):
    if b == 0.0:  # IEEE: a signed infinity, or NaN for 0 / 0 and NaN / 0
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return f32(a / b)


def fma32(a, b, c):
    """a * b + c rounded once (PowerPC fmadds).  With an infinite or NaN
    operand the double result is the IEEE one (a product of two floats is
    exact in double)."""
    if not all(math.isfinite(x) for x in (a, b, c)):
        return f32(a * b + c)
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:  # (an exact zero sum: +0, or -0 when both parts are -0)
        return f32(a * b + c)
    return r32(exact)


def hermite_f32_tables(frame, t0, v0, s0, t1, v1, s1):
    """JMAHermiteInterpolation, the routine for f32 tables, step by step:
    Wind Waker's C function (zeldaret/tww JMath.cpp) in the order of its
    compiled PowerPC code (fmadds / fmsubs / fnmsubs fused, the rest one
    rounding per operation)."""
    length = sub32(t1, t0)
    p = sub32(frame, t0)
    p2 = mul32(p, p)
    r = div32(1.0, length)
    a = mul32(r, p2)
    b = mul32(a, r)
    c = mul32(p, b)
    b3 = mul32(3.0, b)
    e = mul32(c, r)
    ts0 = -fma32(2.0, a, -c)
    ts1 = sub32(c, a)
    cv0 = fma32(2.0, e, -b3)
    cv1 = fma32(-2.0, e, b3)
    ts0 = add32(p, ts0)
    cv0 = add32(1.0, cv0)
    acc = mul32(v1, cv1)
    acc = fma32(v0, cv0, acc)
    acc = fma32(s0, ts0, acc)
    return fma32(s1, ts1, acc)


def hermite_s16_table(frame, t0, v0, s0, t1, v1, s1):
    """J3DHermiteInterpolationS (paired-single code for the s16 table)."""
    length = sub32(t1, t0)
    u = div32(sub32(frame, t0), length)
    dv = sub32(v1, v0)
    acc = fma32(s1, length, v0)
    u2 = mul32(u, u)
    e = -fma32(length, s0, -dv)
    acc = sub32(acc, v1)
    acc = sub32(acc, e)
    c = mul32(u2, acc)
    out = fma32(length, s0, c)
    out = fma32(out, u, v0)
    out = fma32(e, u2, out)
    return sub32(out, c)


def hermite(frame, t0, v0, s0, t1, v1, s1):
    """The standard cubic Hermite with per-frame slopes scaled by the key
    spacing (JMAHermiteInterpolation)."""
    L = t1 - t0
    u = (frame - t0) / L
    m0, m1 = s0 * L, s1 * L
    return ((2 * v0 - 2 * v1 + m0 + m1) * u ** 3 + (-3 * v0 + 3 * v1 - 2 * m0 - m1) * u ** 2 + m0 * u + v0)


def key_search(times, frame):
    """The segment J3DGetKeyFrameInterpolation(S) picks once the frame is
    neither before the first key nor at or after the last: it halves a
    window of keys, moving its start to the middle key whenever
    frame >= that key's time.  On sorted times this is the last key with
    time <= frame; on unsorted ones it is whatever the halving meets."""
    base, num = 0, len(times)
    while num > 1:
        mid = num // 2
        if frame >= times[base + mid]:
            base += mid
            num -= mid
        else:
            num = mid
    return base


def eval_keys(count, keys, frame, default, s16_table=False):
    """J3DGetKeyFrameInterpolation: hold before the first and from the last
    key on, otherwise the segment after the last key with time <= frame,
    in single precision like the game (the frame is an f32 too)."""
    if count == 0:
        return default
    if count == 1:
        return keys[0][1]
    frame = f32(frame)
    if frame < keys[0][0]:
        return keys[0][1]
    if keys[-1][0] <= frame:
        return keys[-1][1]
    i = key_search([k[0] for k in keys], frame)
    a, b = keys[i], keys[i + 1]
    fn = hermite_s16_table if s16_table else hermite_f32_tables
    return fn(frame, a[0], a[1], a[3], b[0], b[1], b[2])


def fctiwz(x):
    """PowerPC fctiwz (the float -> s32 conversion before the shift):
    toward zero, saturating, NaN -> -2^31."""
    if math.isnan(x):
        return -(1 << 31)
    if x >= 2147483647.0:
        return (1 << 31) - 1
    if x <= -2147483648.0:
        return -(1 << 31)
    return math.trunc(x)


def game_value(info, entry, channel, axis, frame):
    """The value the game computes; rotations in radians (s16 angle, 0x8000
    = pi, truncated toward zero before the shift, not wrapped)."""
    count, keys = keys_of(info, entry, channel, axis)
    if channel == 1:
        frac = info["rotation_frac"]
        if count == 0:
            return 0.0
        if count == 1:
            raw = keys[0][1]
        else:
            raw = fctiwz(eval_keys(count, keys, frame, 0.0, s16_table=True))
        return raw * (1 << frac) * PI / 32768.0
    return eval_keys(count, keys, frame, 1.0 if channel == 0 else 0.0)


def name_hash(name):
    h = 0
    for byte in name.encode("cp932"):
        c = byte - 256 if byte >= 128 else byte
        h = (h * 3 + c) & 0xFFFF
    return h


def frame_ctrl(ticks, end, mode, rate=1.0):
    """J3DFrameCtrl::update() applied `ticks` times from frame 0, start and
    loop point 0, single precision."""
    frame, r = 0.0, f32(rate)
    end = f32(end)
    for _ in range(ticks):
        frame = f32(frame + r)
        if mode in (0, 1):
            # both checks run (an end at or before 0 clamps twice), then it stops
            stop = False
            if frame < 0:
                frame, stop = 0.0, True
            if frame >= end:
                frame, stop = (f32(end - f32(0.001)) if mode == 0 else 0.0), True
            if stop:
                return frame
        elif mode == 2:
            # below the start nothing wraps: the loop point equals the start
            while frame >= end and end > 0:
                frame = f32(frame - end)
        elif mode in (3, 4):
            if frame >= end:
                frame = f32(end - f32(0.001))
                r = -r
            if frame < 0:
                if mode == 3:
                    return 0.0
                frame = 0.0
                r = -r
    return frame
