"""Banjo-Kazooie animation (.anim.bin): decoding, the game's evaluation,
the exact Bezier form, encoding and robustness.

The game's channel evaluation is re-implemented below in Python, written
from the decompiled rule (func_8033AC38 / animationfilebin_func_8033AC38
and glspline_catmull_rom_interpolate in the Banjo-Kazooie decompilation),
with float32 rounding after every single-precision operation.  The C code
is never used as its own reference.
"""
import bisect
import math
import random
import struct
import warnings
from pathlib import Path

import pytest

import gameanim
from conftest import SAMPLES, decode_or_format_error, mutation_count, mutations

BK_SAMPLES = sorted((SAMPLES / "bk").glob("*.bin"))
RAD = math.pi / 180.0


# ---------------------------------------------------------------------------
# building files by hand


def key(frame, value, b15=0, b14=0):
    return struct.pack(">Hh", (b15 << 15) | (b14 << 14) | frame, value)


def element(bone, typ, keys, count=None):
    return struct.pack(">Hh", (bone << 4) | typ, len(keys) if count is None else count) + b"".join(keys)


def bk_file(start, end, elements, pad=0, count=None):
    n = len(elements) if count is None else count
    return struct.pack(">hhhH", start, end, n, pad) + b"".join(elements)


def parse(data):
    """Independent parser: header and [(bone, type, [(b15, b14, frame, raw)])]."""
    start, end, count, pad = struct.unpack_from(">hhhH", data, 0)
    off = 8
    els = []
    for _ in range(count):
        word, n = struct.unpack_from(">Hh", data, off)
        keys = []
        for i in range(n):
            w, v = struct.unpack_from(">Hh", data, off + 4 + 4 * i)
            keys.append((w >> 15, (w >> 14) & 1, w & 0x3FFF, v))
        els.append((word >> 4, word & 15, keys))
        off += 4 + 4 * n
    assert off == len(data)
    return start, end, pad, els


# ---------------------------------------------------------------------------
# the game's rule, in float32


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_div(a, b):
    if b == 0.0:
        if a == 0.0 or a != a:
            return math.nan
        return math.inf if a > 0 else -math.inf
    return f32(a / b)


def catmull_rom(u, p):
    """glspline_catmull_rom_interpolate with four knots: u is clamped to
    [0, 1]; the coefficient sums are double expressions stored in float
    variables, the cubic is evaluated in float, and the final addition of
    the second knot is done in double (1.0 * knot)."""
    x = 0.0 if u < 0.0 else (1.0 if 1.0 < u else u)
    c3 = f32(-0.5 * p[0] + 1.5 * p[1] + -1.5 * p[2] + 0.5 * p[3])
    c2 = f32(1.0 * p[0] + -2.5 * p[1] + 2.0 * p[2] + -0.5 * p[3])
    c1 = f32(-0.5 * p[0] + 0.0 * p[1] + 0.5 * p[2] + 0.0 * p[3])
    h = f32(f32(f32(f32(f32(c3 * x) + c2) * x) + c1) * x)
    return f32(h + 1.0 * p[1])


class Channel:
    """One element's keys, ready for the game's rule."""

    def __init__(self, keys, typ, start):
        self.keys, self.typ, self.start = keys, typ, start
        self.default = 1.0 if 3 <= typ <= 5 else 0.0
        self.frames = [k[2] for k in keys]
        self.vals = [f32(k[3] / 64) for k in keys]

    def __call__(self, frame):
        """The channel at `frame` (file units: degrees / factor / units)."""
        keys, frames, vals, n = self.keys, self.frames, self.vals, len(self.keys)
        f = f32(frame)
        sel = math.trunc(f)  # (s32)f selects the piece
        if sel < frames[0]:
            p3 = vals[1] if keys[0][0] and n >= 2 else vals[0]
            u = f32_div(f32(f - self.start), float(frames[0] - self.start))
            return catmull_rom(u, [self.default, self.default, vals[0], p3])
        if sel >= frames[-1]:
            p0 = vals[-2] if keys[-1][1] and n >= 2 else vals[-1]
            return catmull_rom(f32(f - frames[-1]), [p0, vals[-1], vals[-1], vals[-1]])
        i = bisect.bisect_right(frames, sel) - 1  # frames[i] <= sel < frames[i+1]
        a, b = vals[i], vals[i + 1]
        u = f32_div(f32(f - frames[i]), float(frames[i + 1] - frames[i]))
        if not keys[i][1] and not keys[i + 1][0]:
            return f32(a + f32(f32(b - a) * u))  # linear: u is not clamped
        p0 = vals[i - 1] if keys[i][1] and i > 0 else a
        p3 = vals[i + 2] if keys[i + 1][0] and i + 2 < n else b
        return catmull_rom(u, [p0, a, b, p3])


def game_value(keys, typ, start, frame):
    return Channel(keys, typ, start)(frame)


def clip_value(typ, v):
    """File units -> clip units (degrees -> radians, like math.radians)."""
    return f32(v * RAD) if typ < 3 else v


def reference(data, frames):
    start, _, _, els = parse(data)
    out = []
    for _, typ, keys in els:
        ch = Channel(keys, typ, start)
        out.append([clip_value(typ, ch(fr)) for fr in frames])
    return out


def sampled(anim, frames):
    out = anim.sample(frames)
    n = len(frames)
    return [list(out[i * n:(i + 1) * n]) for i in range(len(anim.tracks))]


def same(a, b):
    return a == b or (a != a and b != b)


class Hermite:
    """Generic evaluation of a track's keys (hold outside, LINEAR, cubic
    Hermite for BEZIER), written independently of the C curve code."""

    def __init__(self, track):
        self.t, self.v = list(track.times), list(track.values)
        self.ins, self.outs = list(track.in_slopes), list(track.out_slopes)
        self.ip = list(track.interpolation)

    def __call__(self, frame):
        t, v = self.t, self.v
        if frame <= t[0]:
            return v[0]
        if frame >= t[-1]:
            return v[-1]
        i = bisect.bisect_right(t, frame) - 1
        d = t[i + 1] - t[i]
        u = (frame - t[i]) / d
        if self.ip[i] == 1:
            return v[i] + (v[i + 1] - v[i]) * u
        if self.ip[i] == 0:
            return v[i]
        h00, h10 = 2 * u**3 - 3 * u**2 + 1, u**3 - 2 * u**2 + u
        h01, h11 = -2 * u**3 + 3 * u**2, u**3 - u**2
        return h00 * v[i] + h10 * d * self.outs[i] + h01 * v[i + 1] + h11 * d * self.ins[i + 1]


def hermite(track, frame):
    return Hermite(track)(frame)


def smooth_file():
    """Every piece of the rule in one small file (start 10, end 40)."""
    return bk_file(10, 40, [
        element(1, 0, [key(14, 64 * 30, 1, 1), key(20, 64 * 90, 1, 1), key(30, -64 * 45, 1, 1), key(40, 640, 1, 1)]),
        element(1, 2, [key(10, 0, 0, 1), key(16, 1280, 0, 0), key(22, 320, 1, 1), key(28, 2560, 1, 0),
                       key(34, 2560, 0, 1), key(40, -768, 1, 1)]),
        element(1, 4, [key(20, 80, 1, 1)]),
        element(1, 5, [key(30, 32, 1, 0), key(35, 128, 1, 1)]),
        element(2, 6, [key(10, 0), key(20, 640), key(20, -640), key(40, 0)]),
        element(2, 7, [key(5, 100, 1, 1), key(15, 300, 1, 1), key(38, -200, 1, 1)]),
        element(2, 8, [key(0, 0, 0, 0), key(39, 1000, 0, 1), key(40, 5000, 0, 1)]),
        element(3, 1, [key(0, 64), key(7, 6400)]),
        element(3, 3, [key(0, 64, 1, 1), key(9, 32, 1, 1)]),
    ])


ALL_FILES = [smooth_file()] + [p.read_bytes() for p in BK_SAMPLES if "rarezip" not in p.name]
ALL_IDS = ["smooth_file"] + [p.name for p in BK_SAMPLES if "rarezip" not in p.name]


# ---------------------------------------------------------------------------
# decoding


def test_header_elements_and_keys_decode():
    data = bk_file(-3, 27, [
        element(0x123, 5, [key(0x3FFF, -32768, 1, 0), ]),
        element(7, 0, [key(2, 64 * 90, 0, 1), key(9, -64, 1, 1)]),
    ], pad=0)
    a = gameanim.load(data)
    assert a.format == "bk"
    assert a.fps is None and a.loop is None
    assert a.frame_count == 27 - (-3) + 1
    assert a.start_frame == -3.0
    assert a.compression is None
    assert [(t.target, t.channel, t.axis) for t in a.tracks] == [(0x123, "scale", 2), (7, "rotation", 0)]
    info = a.info
    assert (info["start_frame"], info["end_frame"], info["element_count"], info["pad"]) == (-3, 27, 2, 0)
    assert info["key_count"] == 3
    # the 14-bit frame and the s16 value, flags stripped
    sc = a.tracks[0]
    assert 0x3FFF in list(sc.times)
    assert list(sc.values)[list(sc.times).index(0x3FFF)] == -512.0
    rot = a.tracks[1]
    assert list(rot.times)[1:3] == [2.0, 9.0]
    assert list(rot.values)[1:3] == pytest.approx([math.radians(90), math.radians(-1)], rel=1e-7)


def test_channels_from_type_and_only_present_channels():
    types = list(range(9))
    data = bk_file(0, 10, [element(4, t, [key(0, 64 + t)]) for t in types] + [element(9, 1, [key(0, 64)])])
    a = gameanim.load(data)
    got = [(t.target, t.channel, t.axis) for t in a.tracks]
    want = [(4, ("rotation", "scale", "translation")[t // 3], t % 3) for t in types] + [(9, "rotation", 1)]
    assert got == want
    # bone 9 has only rotation Y: no other track exists for it
    assert [t for t in a.tracks if t.target == 9][0].channel == "rotation"
    assert len([t for t in a.tracks if t.target == 9]) == 1


def test_values_are_s16_over_64_rotation_in_radians():
    data = bk_file(0, 0, [element(1, 0, [key(0, 64 * 45)]), element(1, 3, [key(0, 96)]),
                          element(1, 6, [key(0, -100)])])
    a = gameanim.load(data)
    assert a.tracks[0].values[0] == f32(45 * RAD)
    assert a.tracks[1].values[0] == 1.5
    assert a.tracks[2].values[0] == -100 / 64


@pytest.mark.parametrize("typ", range(9, 16))
def test_transform_type_over_8_is_format_error(typ):
    data = bk_file(0, 10, [element(1, 0, [key(0, 0)]), element(2, typ, [key(0, 0)])])
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(data)
    assert "transform type %d is not 0..8" % typ in str(e.value)
    assert e.value.format == "bk" and e.value.field == "transform type" and e.value.offset == 16


def test_key_count_running_past_the_end_is_format_error():
    data = bk_file(0, 10, [element(1, 0, [key(0, 0), key(5, 5)], count=3)])
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(data)
    assert "runs past the end" in str(e.value) and "3 keys" in str(e.value)
    assert e.value.field == "key count" and e.value.offset == 10


def test_element_count_running_past_the_end_is_format_error():
    data = bk_file(0, 10, [element(1, 0, [key(0, 0)])], count=2)
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(data)
    assert "element count runs past the end" in str(e.value)
    assert e.value.field == "element header" and e.value.offset == 16


def test_trailing_garbage_is_format_error():
    data = bk_file(0, 10, [element(1, 0, [key(0, 0)])]) + b"\x00\x00\x00\x01"
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(data)
    assert "4 bytes of trailing garbage" in str(e.value)
    assert e.value.field == "trailing data" and e.value.offset == 16


def test_a_last_key_on_frame_16383_keeps_the_game_curve():
    """The clip's post-roll key then sits at 16384, past what a key can
    hold, and the first key (the default, at the start frame) reads as a
    pre-roll as well: sample() must still follow the game (not fall back to
    the clip's own Hermite), and a re-encode as new must read back the same."""
    data = bk_file(0, 100, [element(1, 5, [key(0, 64, 0, 1), key(16383, -32768, 0, 1)])])
    anim = gameanim.load(data)
    assert list(anim.tracks[0].times) == [0.0, 16383.0, 16384.0]
    frames = [i / 4 for i in range(0, 4 * 16384, 7)] + [16383.5, 16384.0, 16390.0]
    assert sampled(anim, frames) == reference(data, frames)
    out = anim.to_bytes(reencode="full")
    assert reference(out, frames) == reference(data, frames)


def test_moving_a_negative_start_frame_writes_the_keys_from_frame_0():
    """A channel whose first key is after a negative start frame S gets the
    clip's own pre-roll key at S; after S moves (still negative) that key is
    an ordinary key before frame 0, where a BK key cannot sit.  The file is
    written from frame 0 on (the game draws S..-1 from the default itself,
    which the encoder notes) and reads back as the clip's curve at every
    whole frame from 0."""
    data = bk_file(-3, 47, [element(1, 7, [key(13, 640, 1, 1), key(30, -300, 1, 1)])])
    assert gameanim.load(data).tracks[0].times[0] == -3.0
    for new_start in (-2, -4, -1):
        anim = gameanim.load(data)
        anim.start_frame = new_start
        with pytest.warns(gameanim.PrecisionWarning):
            out = anim.to_bytes()
        assert "frames %d..-1 rise from the default" % new_start in " ".join(anim.encode_report["notes"])
        start, _, _, els = parse(out)
        assert start == new_start and min(k[2] for k in els[0][2]) == 0
        frames = list(range(0, 48))
        want = list(anim.tracks[0].evaluate(frames))
        assert reference(out, frames)[0] == pytest.approx(want, abs=1 / 128 + 1e-6), new_start
    # from a start frame >= 0 the key before frame 0 is the user's: an error
    anim = gameanim.load(data)
    anim.start_frame = 0
    with pytest.raises(gameanim.EncodeError, match="BK frames are 0..16383"):
        anim.to_bytes()


@pytest.mark.parametrize("count", [0, -1, -32768])
def test_key_count_below_one_is_format_error(count):
    data = bk_file(0, 10, [element(1, 0, [key(0, 0)]), element(2, 3, [], count=count)])
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(data)
    assert "key count %d" % count in str(e.value)


def test_negative_element_count_and_short_header():
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(b"\x00\x00\x00\x0a\xff\xff\x00\x00" + key(0, 0))
    assert "count is negative" in str(e.value)
    for short in (b"", b"\x00\x00\x00\x0a\x00"):
        with pytest.raises(gameanim.FormatError):
            gameanim.load(short)


def test_decreasing_key_frames_are_format_error():
    data = bk_file(0, 10, [element(1, 0, [key(0, 0), key(8, 5), key(4, 5)])])
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(data)
    assert "key 2 is at frame 4, before frame 8" in str(e.value)
    assert e.value.field == "key frame" and e.value.offset == 8 + 4 + 8


def test_bare_file_is_recognised_by_structure():
    data = smooth_file()
    assert gameanim.detect(data) == ("bk", None)
    # one byte more or less and the walk no longer fits: not claimed as a
    # clean BK file (the decoder then explains why)
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(data + b"\x00")
    assert "trailing" in str(e.value)
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(data[:-1])
    assert "runs past the end" in str(e.value)


def test_nonzero_pad_word_is_kept():
    data = bk_file(0, 5, [element(1, 0, [key(0, 64), key(5, 128)])], pad=0xBEEF)
    a = gameanim.load(data)
    assert a.info["pad"] == 0xBEEF
    a.frame_count = 7
    out = a.to_bytes()
    assert struct.unpack(">hhhH", out[:8]) == (0, 6, 1, 0xBEEF)
    assert out[8:] == data[8:]


def test_j3d_and_other_samples_are_not_claimed_by_bk():
    others = [p for p in SAMPLES.rglob("*") if p.is_file() and "bk" not in p.parts]
    for p in others:
        data = p.read_bytes()
        try:
            fmt, _ = gameanim.detect(data)
        except (gameanim.FormatError, ValueError):
            continue
        assert fmt != "bk", p


# ---------------------------------------------------------------------------
# evaluation


def frames_for(data):
    start, end, _, els = parse(data)
    fr = {start, end, start - 1, start - 0.5, end + 1.5, -0.5, -0.25, -1.0, -1.5, 0.0, 0.3}
    for _, _, keys in els:
        for k in keys:
            for d in (-1, -0.5, -0.125, 0, 0.1, 0.5, 0.75, 1, 1.25, 2):
                fr.add(k[2] + d)
    return sorted(fr)


@pytest.mark.parametrize("data", ALL_FILES, ids=ALL_IDS)
def test_sample_matches_the_game_rule_exactly(data):
    """sample() is the game's float32 result at integer and fractional
    frames, before S, between keys, in the post-roll and at negative
    frames; compared exactly."""
    a = gameanim.load(data)
    frames = frames_for(data)
    if len(a.tracks) > 60:
        frames = frames[::7] + [-0.5, -0.25]
    got = sampled(a, frames)
    want = reference(data, frames)
    for ti, (g, w) in enumerate(zip(got, want)):
        for fr, x, y in zip(frames, g, w):
            assert same(x, y), (ti, fr, x, y)


def test_float32_matters():
    """The game computes in float32: the reference with double arithmetic
    differs from sample() somewhere, the float32 one never does."""
    data = bk_file(0, 40, [element(1, 0, [key(0, 1, 1, 1), key(13, 64 * 77 + 5, 1, 1), key(29, -64 * 3 + 1, 1, 1),
                                          key(40, 7, 1, 1)])])
    a = gameanim.load(data)
    frames = [i / 7 for i in range(0, 40 * 7)]
    got = sampled(a, frames)[0]
    keys = parse(data)[3][0][2]
    assert got == [clip_value(0, game_value(keys, 0, 0, f)) for f in frames]

    def double_value(f):
        i = bisect.bisect_right([k[2] for k in keys], f) - 1
        v = [k[3] / 64 for k in keys]
        p = [v[max(i - 1, 0)], v[i], v[i + 1], v[min(i + 2, 3)]]
        u = (f - keys[i][2]) / (keys[i + 1][2] - keys[i][2])
        return p[1] + u * (p[2] - p[0]) / 2 + u * u * (p[0] - 2.5 * p[1] + 2 * p[2] - 0.5 * p[3]) + \
            u ** 3 * (-0.5 * p[0] + 1.5 * p[1] - 1.5 * p[2] + 0.5 * p[3])

    assert any(f32(double_value(f) * RAD) != g for f, g in zip(frames, got))


def test_segment_is_chosen_by_the_truncated_frame_and_linear_u_is_not_clamped():
    # keys from frame 0, start -4: at -0.5 the game truncates to frame 0 and
    # evaluates the first segment with u < 0 (a linear one extrapolates),
    # not the pre-roll
    data = bk_file(-4, 10, [element(1, 6, [key(0, 640), key(10, 1280)]),
                            element(1, 7, [key(0, 640, 0, 1), key(10, 1280, 1, 1)]),
                            element(1, 8, [key(0, 640)])])
    a = gameanim.load(data)
    out = sampled(a, [-0.5, -1.0, -2.0])
    lin, smooth, single = out
    assert lin[0] == f32(10 + 10 * f32(-0.5 / 10))  # extrapolated: 9.5
    assert smooth[0] == 10.0  # Catmull-Rom clamps u to 0
    assert single[0] == 10.0  # post-roll, clamped
    # at -1.0 and -2.0 (truncated below the first key): the pre-roll from 0
    # at frame -4, u = (f - S) / (t0 - S)
    for got, f in zip((lin[1], lin[2]), (-1.0, -2.0)):
        u = f32_div(f32(f + 4), 4.0)
        assert got == catmull_rom(u, [0, 0, 10, 10])
    # a continuous (generic Hermite) evaluation would use the pre-roll at
    # -0.5, which is not what the game does
    assert hermite(a.tracks[0], -0.5) != pytest.approx(lin[0])


def test_pre_roll_runs_from_the_default_at_the_header_start():
    data = bk_file(10, 40, [element(1, 3, [key(20, 128, 0, 0), key(30, 192)]),
                            element(1, 0, [key(20, 64 * 90, 1, 0), key(30, 0)])])
    a = gameanim.load(data)
    sc, rot = sampled(a, [5, 10, 12.5, 15, 20])
    assert sc[0] == 1.0 and sc[1] == 1.0  # default scale at and before S
    assert sc[4] == 2.0
    # pre-roll knots [1, 1, 2, 2] (bit 15 clear), u = (f - 10) / 10
    assert sc[2] == catmull_rom(f32(2.5 / 10), [1, 1, 2, 2])
    assert sc[3] == catmull_rom(0.5, [1, 1, 2, 2]) == 1.5
    # bit 15 of the first key makes the pre-roll aim at the second key
    assert rot[3] == f32(catmull_rom(0.5, [0, 0, 90, 0]) * RAD)


def test_keys_before_the_start_frame_hold_the_first_value():
    # first key before S: the pre-roll parameter is above 1 and clamps
    data = bk_file(10, 20, [element(1, 6, [key(4, 320, 1, 1), key(15, 640, 1, 1)])])
    a = gameanim.load(data)
    out = sampled(a, [0, 2, 3.5, 4, 10, 15, 30])[0]
    assert out[:4] == [5.0, 5.0, 5.0, 5.0]
    assert out[-2:] == [10.0, 10.0]


def test_frames_before_start_when_first_key_is_at_start_give_the_default():
    # t0 == S: the pre-roll parameter is -inf, clamped to 0 -> the default
    data = bk_file(10, 20, [element(1, 6, [key(10, 320), key(15, 640)])])
    a = gameanim.load(data)
    out = sampled(a, [9.5, 5, 10])[0]
    assert out == [0.0, 0.0, 5.0]
    # the generic curve holds the first key instead: only sample() is exact here
    assert a.tracks[0].evaluate([5.0])[0] == 5.0


def test_post_roll_is_at_most_one_frame():
    data = bk_file(0, 20, [element(1, 6, [key(0, 0), key(10, 640), key(20, 64, 1, 1)])])
    a = gameanim.load(data)
    out = sampled(a, [20, 20.25, 20.5, 21, 22, 100])[0]
    # knots [10, 1, 1, 1] (bit 14 of the last key), u = f - 20
    assert out[1] == catmull_rom(0.25, [10, 1, 1, 1])
    assert out[1] < 1.0  # the wiggle dips below the last value
    assert out[0] == out[3] == out[4] == out[5] == 1.0


def test_linear_when_both_flags_clear_else_catmull_rom():
    base = [key(0, 0), key(10, 640), key(20, 0), key(30, 640)]
    variants = {}
    for b14 in (0, 1):
        for b15 in (0, 1):
            ks = list(base)
            ks[1] = key(10, 640, 0, b14)  # left end of the middle segment
            ks[2] = key(20, 0, b15, 0)  # right end
            variants[(b14, b15)] = bk_file(0, 30, [element(1, 6, ks)])
    mids = {}
    for flags, data in variants.items():
        a = gameanim.load(data)
        mids[flags] = sampled(a, [12.5])[0][0]
    assert mids[(0, 0)] == 7.5  # straight line
    assert mids[(1, 0)] == catmull_rom(0.25, [0, 10, 0, 0])
    assert mids[(0, 1)] == catmull_rom(0.25, [10, 10, 0, 10])
    assert mids[(1, 1)] == catmull_rom(0.25, [0, 10, 0, 10])
    assert len(set(mids.values())) == 4
    assert list(gameanim.load(variants[(0, 0)]).tracks[0].interpolation)[1] == 1  # LINEAR
    assert list(gameanim.load(variants[(1, 1)]).tracks[0].interpolation)[1] == 2  # BEZIER


# ---------------------------------------------------------------------------
# the exact Bezier (Hermite) form


@pytest.mark.parametrize("data", ALL_FILES, ids=ALL_IDS)
def test_bezier_form_reproduces_the_game_curve(data):
    """Generic Hermite evaluation of the clip's keys equals the game's curve
    within 1e-4 at 50 points per segment (pre-roll and post-roll included),
    from the start frame on."""
    a = gameanim.load(data)
    start, _, _, els = parse(data)
    pairs = list(zip(a.tracks, els))
    if len(pairs) > 100:
        pairs = pairs[::7]  # the long sample: every type, a seventh of the bones
    for track, (_, typ, keys) in pairs:
        t = list(track.times)
        curve, game = Hermite(track), Channel(keys, typ, start)
        pts = [start - 2.0, start - 0.5]
        for i in range(len(t) - 1):
            pts += [t[i] + (t[i + 1] - t[i]) * j / 50 for j in range(50)]
        pts += [t[-1], t[-1] + 0.5, t[-1] + 3]
        for fr in map(f32, pts):  # the game's frames are float32
            if fr < max(start, 0) and fr < keys[0][2]:
                continue  # before S only sample() is exact (see other tests)
            want = clip_value(typ, game(fr))
            assert abs(curve(fr) - want) <= 1e-4, (track, fr)


def test_bezier_handles_sit_at_thirds():
    a = gameanim.load(smooth_file())
    tr = a.tracks[0]
    co, left, right, ip = tr.bezier()
    t, v, outs = list(tr.times), list(tr.values), list(tr.out_slopes)
    for i in range(len(t) - 1):
        assert right[2 * i] == pytest.approx(t[i] + (t[i + 1] - t[i]) / 3)
        assert right[2 * i + 1] == pytest.approx(v[i] + outs[i] * (t[i + 1] - t[i]) / 3, abs=1e-6)


def test_pre_and_post_roll_keys_in_the_clip():
    data = bk_file(10, 40, [element(1, 0, [key(14, 64 * 30, 1, 1), key(20, 64 * 90, 1, 1), key(30, 64 * 45, 1, 1)])])
    tr = gameanim.load(data).tracks[0]
    # a key at S holding the default, the file's keys, a key one frame after
    assert list(tr.times) == [10, 14, 20, 30, 31]
    assert tr.values[0] == 0.0 and tr.values[-1] == tr.values[-2]
    assert list(tr.interpolation)[:4] == [2, 2, 2, 2]
    # no extra keys when the first key is at S and the post-roll is flat
    flat = bk_file(10, 40, [element(1, 0, [key(10, 64), key(30, 128, 0, 0)])])
    assert list(gameanim.load(flat).tracks[0].times) == [10, 30]


# ---------------------------------------------------------------------------
# round trips and encoding


@pytest.mark.parametrize("path", BK_SAMPLES, ids=[p.name for p in BK_SAMPLES])
def test_unedited_samples_round_trip_byte_exact(path):
    data = path.read_bytes()
    a = gameanim.load(path)
    assert a.to_bytes() == data
    assert gameanim.load(data).to_bytes(compression=None) == (
        gameanim.decompress("rarezip", data) if a.compression else data)


@pytest.mark.parametrize("path", BK_SAMPLES, ids=[p.name for p in BK_SAMPLES])
def test_encoder_writes_unchanged_elements_verbatim(path):
    # reencode='raw' runs the encoder instead of returning the input
    data = path.read_bytes()
    a = gameanim.load(data)
    assert a.to_bytes(reencode="raw") == data
    assert a.encode_report["reused_tracks"] == len(a.tracks)


@pytest.mark.parametrize("data", ALL_FILES, ids=ALL_IDS)
def test_full_reencode_keeps_the_game_curve(data):
    # every track from its keys alone, as for a new animation
    a = gameanim.load(data)
    out = a.to_bytes(reencode="full")
    frames = [x / 4 for x in range(-8, 4 * 60)] + [499.5, 500]
    words = [(b, t) for b, t, _ in parse(data)[3]]
    order = sorted(range(len(words)), key=lambda i: words[i])
    want, got = reference(data, frames), reference(out, frames)
    for k, i in enumerate(order):
        assert all(same(x, y) for x, y in zip(got[k], want[i])), i


def test_partial_edit_keeps_unchanged_elements_byte_for_byte():
    data = smooth_file()
    a = gameanim.load(data)
    tracks = list(a.tracks)
    t = tracks[4]  # bone 2 translation X, linear: keys 10, 20, 20 (a step), 40
    vals = list(t.values)
    vals[-1] = 5.0
    t.values = vals
    a.tracks = tracks
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = a.to_bytes()
    assert a.encode_report["reused_tracks"] == len(tracks) - 1
    assert a.encode_report["encoded_tracks"] == 1
    _, _, _, els_in = parse(data)
    _, _, _, els_out = parse(out)
    assert [e for i, e in enumerate(els_out) if i != 4] == [e for i, e in enumerate(els_in) if i != 4]
    assert len(out) == len(data)
    assert els_out[4][2] == els_in[4][2][:3] + [(0, 0, 40, 320)]


def test_edited_element_keeps_flags_the_curve_leaves_free():
    # segment 0 is smooth through bit 15 of key 1; bit 14 of key 0 has no
    # neighbour to use, so the curve does not say which value it had
    els = [element(1, 6, [key(0, 0, 0, 0), key(10, 640, 1, 0), key(20, 0, 0, 0), key(30, 64, 0, 0)])]
    data = bk_file(0, 30, els)
    a = gameanim.load(data)
    t = a.tracks[0]
    vals = list(t.values)
    vals[-1] = 2.0  # only the last linear segment changes
    t.values = vals
    out = a.to_bytes()
    assert parse(out)[3][0][2] == [(0, 0, 0, 0), (1, 0, 10, 640), (0, 0, 20, 0), (0, 0, 30, 128)]
    assert a.encode_report["encoded_tracks"] == 1
    # without the original file, the key holding the default at the start
    # frame reads as the game's own pre-roll and is left out: same curve
    b = gameanim.Animation("bk", [t.copy()], frame_count=31)
    out2 = b.to_bytes()
    assert parse(out2)[3][0][2] == [(1, 0, 10, 640), (0, 0, 20, 0), (0, 0, 30, 128)]
    frames = [x / 8 for x in range(-8, 33 * 8)]
    assert reference(out2, frames) == reference(out, frames)


def test_recovering_keys_and_flags_from_the_clip():
    """A new animation built from decoded tracks (no raw data to copy)
    encodes to the same bytes when every key carries both flags, as vanilla
    files do: the inverse mapping finds the file's keys and flags."""
    data = bk_file(10, 40, [
        element(1, 0, [key(14, 64 * 30, 1, 1), key(20, 64 * 90, 1, 1), key(30, -64 * 45, 1, 1), key(40, 640, 1, 1)]),
        element(1, 3, [key(10, 64, 1, 1), key(25, 96, 1, 1), key(40, 64, 1, 1)]),
        element(2, 2, [key(12, 100, 1, 1), key(13, 90, 1, 1), key(16, 90, 1, 1), key(33, -100, 1, 1)]),
        element(2, 7, [key(0, 100, 1, 1), key(50, 300, 1, 1)]),
    ])
    a = gameanim.load(data)
    b = gameanim.Animation("bk", [t.copy() for t in a.tracks], frame_count=a.frame_count, start_frame=a.start_frame)
    assert b.to_bytes() == data
    assert b.encode_report["encoded_tracks"] == 4
    assert b.encode_report["rounded"] == 0  # float32 radians are not a rounding


def random_file(rng):
    start = rng.choice([0, 0, 5, 10, -3, 20])
    els = []
    for _ in range(rng.randint(1, 6)):
        n = rng.randint(1, 6)
        frames = sorted(rng.choice([rng.randint(0, 50), max(start, 0)]) for _ in range(n))
        vals = [rng.choice([0, 64, rng.randint(-2000, 2000), rng.choice([-32768, 32767])]) for _ in range(n)]
        keys = [key(f, v, rng.randint(0, 1), rng.randint(0, 1)) for f, v in zip(frames, vals)]
        els.append(element(rng.randint(1, 8), rng.randint(0, 8), keys))
    return bk_file(start, start + rng.randint(0, 40), els)


def test_random_files_sample_exactly_and_reencode_from_the_clip():
    """Random valid files (random flags, values, repeated frames, keys at
    and around S): sample() is the game's result, and a new animation built
    from the decoded tracks alone makes the game draw the same curves."""
    rng = random.Random(1234)
    frames = sorted({x / 4 for x in range(-12, 60 * 4)} | {-0.5, -0.25, 2.5, 4.5, 9.5})
    checked = 0
    for _ in range(150):
        data = random_file(rng)
        a = gameanim.load(data)
        want = reference(data, frames)
        for g, w in zip(sampled(a, frames), want):
            assert all(same(x, y) for x, y in zip(g, w)), data.hex()
        words = [(b, t) for b, t, _ in parse(data)[3]]
        if len(set(words)) < len(words):
            continue  # a channel twice: a new animation may not do that
        b = gameanim.Animation("bk", [t.copy() for t in a.tracks], frame_count=a.frame_count,
                               start_frame=a.start_frame)
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*per-frame")
            warnings.filterwarnings("ignore", category=gameanim.PrecisionWarning)
            out = b.to_bytes()
        order = sorted(range(len(words)), key=lambda i: words[i])
        again = reference(out, frames)
        for k, i in enumerate(order):
            assert all(same(x, y) for x, y in zip(again[k], want[i])), (data.hex(), i)
        checked += 1
    assert checked > 100


def test_changed_start_frame_keeps_the_curve():
    data = smooth_file()
    a = gameanim.load(data)
    frames = [f / 4 for f in range(12 * 4, 45 * 4)]
    before = sampled(a, frames)
    a.start_frame = 12
    out = a.to_bytes()
    b = gameanim.load(out)
    assert b.start_frame == 12 and b.frame_count == a.frame_count
    assert reference(out, frames) == before


def test_new_linear_and_smooth_tracks():
    lin = gameanim.Track(3, "translation", 1, [0, 10, 20], [0.0, 5.0, -2.5])  # LINEAR by default
    # Catmull-Rom tangents as the game builds them with both flags set
    v = [0.0, 1.0, 0.5, 0.75]
    t = [0, 4, 10, 12]
    outs = [(v[1] - v[0]) / 2 / 4, (v[2] - v[0]) / 2 / 6, (v[3] - v[1]) / 2 / 2, 0.0]
    ins = [0.0, (v[2] - v[0]) / 2 / 4, (v[3] - v[1]) / 2 / 6, (v[3] - v[2]) / 2 / 2]
    smooth = gameanim.Track(3, "rotation", 2, t, [math.radians(x) for x in v],
                            [math.radians(x) for x in ins], [math.radians(x) for x in outs], 2)
    anim = gameanim.Animation("bk", [smooth, lin], frame_count=21)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = anim.to_bytes()
    start, end, pad, els = parse(out)
    assert (start, end, pad) == (0, 20, 0)
    # sorted by bone then type: translation Y (7) after rotation Z (2)
    assert [(b, ty) for b, ty, _ in els] == [(3, 2), (3, 7)]
    assert els[1][2] == [(0, 0, 0, 0), (0, 0, 10, 320), (0, 0, 20, -160)]  # linear: both flags clear
    assert [k[2:] for k in els[0][2]] == [(0, 0), (4, 64), (10, 32), (12, 48)]
    assert all(k[0] or k[1] for k in els[0][2][1:])  # smooth segments carry flags
    # and the game draws the curve that was asked for
    frames = [x / 10 for x in range(0, 121)]
    ref = reference(out, frames)[0]
    for f, g in zip(frames, ref):
        assert g == pytest.approx(hermite(smooth, f), abs=1e-6)


def test_pre_roll_is_flattened_for_new_tracks_not_starting_at_s():
    # the clip holds 5.0 before frame 10; the game would rise from 0 at S=0
    tr = gameanim.Track(1, "translation", 0, [10, 20], [5.0, 6.0])
    out = gameanim.Animation("bk", [tr], frame_count=21).to_bytes()
    keys = parse(out)[3][0][2]
    assert [k[2:] for k in keys] == [(0, 320), (10, 320), (20, 384)]
    assert reference(out, [0, 5, 10, 15])[0] == [5.0, 5.0, 5.0, 5.5]


def test_constant_interpolation_becomes_a_step():
    tr = gameanim.Track(1, "translation", 0, [0, 10, 20], [1.0, 2.0, 3.0], interpolation=0)
    out = gameanim.Animation("bk", [tr], frame_count=21).to_bytes()
    keys = parse(out)[3][0][2]
    assert [k[2:] for k in keys] == [(0, 64), (10, 64), (10, 128), (20, 128), (20, 192)]
    assert reference(out, [0, 9.99, 10, 19.5, 20, 25])[0] == [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]


def test_values_are_rounded_to_the_64th_and_reported():
    tr = gameanim.Track(1, "scale", 0, [0, 10], [1.0 + 0.3 / 64, 2.0 - 0.5 / 64])
    anim = gameanim.Animation("bk", [tr], frame_count=11)
    out = anim.to_bytes()
    assert [k[3] for k in parse(out)[3][0][2]] == [64, 128]  # round half to even for the tie
    rep = anim.encode_report
    assert rep["rounded"] == 2
    assert rep["max_error"] == pytest.approx(0.5 / 64)


def test_values_out_of_range_raise_encode_error():
    tr = gameanim.Track(7, "rotation", 1, [0, 3], [0.0, math.radians(513)])
    with pytest.raises(gameanim.EncodeError) as e:
        gameanim.Animation("bk", [tr], frame_count=4).to_bytes()
    msg = str(e.value)
    assert "bone 7 type 1 (rotation Y)" in msg and "frame 3" in msg and "s16/64" in msg
    tr = gameanim.Track(7, "translation", 2, [0], [512.0])
    with pytest.raises(gameanim.EncodeError, match="bone 7 type 8"):
        gameanim.Animation("bk", [tr], frame_count=4).to_bytes()
    # -512 and 511.984375 are the ends of the range
    tr = gameanim.Track(7, "translation", 2, [0, 1], [-512.0, 32767 / 64])
    out = gameanim.Animation("bk", [tr], frame_count=2).to_bytes()
    assert [k[3] for k in parse(out)[3][0][2]] == [-32768, 32767]


def test_frames_and_bones_out_of_range_raise_encode_error():
    for times in ([0, 0x4000], [-1, 5]):
        tr = gameanim.Track(1, "translation", 0, times, [0.0, 1.0])
        with pytest.raises(gameanim.EncodeError, match="BK frames are 0..16383"):
            gameanim.Animation("bk", [tr], frame_count=4).to_bytes()
    with pytest.raises(gameanim.EncodeError, match="bone ID 4096"):
        gameanim.Animation("bk", [gameanim.Track(4096, "scale", 0, [0], [1.0])]).to_bytes()
    with pytest.raises(gameanim.EncodeError, match="Euler rotation"):
        gameanim.Animation("bk", [gameanim.Track(1, "rotation_quaternion", 0, [0], [1.0])]).to_bytes()
    with pytest.raises(gameanim.EncodeError, match="no keys"):
        gameanim.Animation("bk", [gameanim.Track(1, "scale", 0)]).to_bytes()
    with pytest.raises(gameanim.EncodeError, match="by name"):
        gameanim.Animation("bk", [gameanim.Track("spine", "scale", 0, [0], [1.0])]).to_bytes()
    two = [gameanim.Track(2, "scale", 0, [0], [1.0]), gameanim.Track(2, "scale", 0, [0], [2.0])]
    with pytest.raises(gameanim.EncodeError, match="two tracks animate bone 2 type 3"):
        gameanim.Animation("bk", two).to_bytes()


def test_bone_ids_the_game_cannot_use_warn():
    for bone in (0, 0x6D):
        with pytest.warns(gameanim.PrecisionWarning, match="bone ID"):
            gameanim.Animation("bk", [gameanim.Track(bone, "scale", 0, [0], [1.0])], frame_count=1).to_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gameanim.Animation("bk", [gameanim.Track(0x6C, "scale", 0, [0], [1.0])], frame_count=1).to_bytes()


def test_unexpressible_curve_is_written_per_frame():
    # Hermite slopes no Catmull-Rom knot choice can give
    tr = gameanim.Track(1, "translation", 0, [0, 6], [0.0, 3.0], [0.0, 5.0], [4.0, 0.0], 2)
    anim = gameanim.Animation("bk", [tr], frame_count=7)
    with pytest.warns(gameanim.PrecisionWarning, match="per-frame keys"):
        out = anim.to_bytes()
    keys = parse(out)[3][0][2]
    assert [k[2] for k in keys] == list(range(7))
    assert all(k[0] == 0 and k[1] == 0 for k in keys)
    assert [k[3] for k in keys] == [round(hermite(tr, f) * 64) for f in range(7)]
    # sample() shows what the game will draw from those keys
    assert sampled(anim, [2.5])[0][0] == reference(out, [2.5])[0][0]


def test_new_channels_go_after_their_bone_and_order_is_kept():
    data = bk_file(0, 10, [element(5, 6, [key(0, 1)]), element(5, 0, [key(0, 2)]),
                           element(2, 3, [key(0, 64)])])
    a = gameanim.load(data)
    tracks = list(a.tracks)
    tracks.append(gameanim.Track(9, "scale", 0, [0], [1.0]))
    tracks.append(gameanim.Track(5, "scale", 2, [0], [2.0]))
    tracks.append(gameanim.Track(5, "rotation", 1, [0], [0.0]))
    tracks.append(gameanim.Track(1, "scale", 1, [0], [1.0]))
    a.tracks = tracks
    out = a.to_bytes()
    got = [(b, t) for b, t, _ in parse(out)[3]]
    assert got == [(5, 6), (5, 0), (5, 1), (5, 5), (2, 3), (1, 4), (9, 3)]
    assert out[8:20] == data[8:20]  # the original elements of bone 5, verbatim


def test_removed_track_drops_its_element():
    data = smooth_file()
    a = gameanim.load(data)
    a.tracks = list(a.tracks)[1:]
    out = a.to_bytes()
    assert parse(out)[3] == parse(data)[3][1:]
    assert struct.unpack(">h", out[4:6])[0] == len(parse(data)[3]) - 1


def test_frame_count_and_start_write_the_header():
    tr = gameanim.Track(1, "scale", 0, [5], [1.0])
    out = gameanim.Animation("bk", [tr], frame_count=30, start_frame=5).to_bytes()
    assert struct.unpack(">hhhH", out[:8]) == (5, 34, 1, 0)
    with pytest.raises(gameanim.EncodeError, match="start frame"):
        gameanim.Animation("bk", [tr], frame_count=30, start_frame=40000).to_bytes()


# ---------------------------------------------------------------------------
# robustness


@pytest.mark.parametrize("data", ALL_FILES[:2], ids=ALL_IDS[:2])
def test_mutated_inputs_decode_or_raise_format_error(data):
    decoded = 0
    for m in mutations(data, mutation_count(300), seed=len(data)):
        decoded += decode_or_format_error(m)
    assert decoded > 0


def test_mutated_compressed_sample():
    path = SAMPLES / "bk" / "features_rarezip.bin"
    for m in mutations(path.read_bytes(), mutation_count(200), seed=4):
        decode_or_format_error(m)


def test_tolerance_reduces_linear_keys_within_tolerance_plus_quantisation():
    """Per-frame LINEAR curves (what Blender exports) keep only the keys their
    straight segments need: every original frame stays within the tolerance
    plus half a 1/64 step (degrees for rotation), and tolerance 0 keeps all."""
    frames = [float(f) for f in range(301)]
    rot = [0.6 * math.sin(f / 20.0) for f in frames]
    tra = [3.0 * math.cos(f / 15.0) + 0.02 * f for f in frames]
    tracks = [gameanim.Track(1, "rotation", 0, frames, rot, interpolation=[gameanim.LINEAR] * 301),
              gameanim.Track(1, "translation", 2, frames, tra, interpolation=[gameanim.LINEAR] * 301)]
    anim = gameanim.Animation("bk", tracks, frame_count=301)
    tol = 0.01
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = gameanim.load(anim.to_bytes(compression=None))
        reduced = gameanim.load(anim.to_bytes(compression=None, tolerance=tol))
    assert [len(t) for t in full.tracks] == [301, 301]
    assert all(len(t) < 200 for t in reduced.tracks), [len(t) for t in reduced.tracks]
    half_step = {"rotation": math.radians(1.0 / 64) / 2, "translation": 1.0 / 128}
    for track, want in zip(sorted(reduced.tracks, key=lambda t: t.channel), (rot, tra)):
        got = reduced.sample(frames)
        idx = [t.channel for t in reduced.tracks].index(track.channel)
        got = got[idx * len(frames):(idx + 1) * len(frames)]
        worst = max(abs(g - w) for g, w in zip(got, want))
        assert worst <= tol + half_step[track.channel] + 1e-6, (track.channel, worst)


# ---------------------------------------------------------------------------
# the game's per-bone assembly (notes 2.3): which elements reach the pose


def assembly_file():
    """bone 1: location X twice in its first run (10.0, then 2.0), then
    bone 2, then bone 1 again with only scale X (2.0): the game keeps bone
    1's last run, so its location is back at 0 and its scale X is 2.
    bone 3: a duplicate inside one run (rotation Y 30 deg, then 45 deg).
    bone 0 (not the last run) is never flushed."""
    return bk_file(0, 10, [
        element(0, 6, [key(0, 5 * 64)]),
        element(1, 6, [key(0, 10 * 64)]),
        element(1, 6, [key(0, 2 * 64)]),
        element(2, 7, [key(0, 64)]),
        element(3, 1, [key(0, 30 * 64)]),
        element(3, 1, [key(0, 45 * 64)]),
        element(1, 3, [key(0, 2 * 64)]),
    ])


def test_applied_tracks_follow_the_games_bone_assembly():
    anim = gameanim.load(assembly_file())
    assert [(t.target, t.channel, t.axis) for t in anim.tracks] == [
        (0, "translation", 0), (1, "translation", 0), (1, "translation", 0), (2, "translation", 1),
        (3, "rotation", 1), (3, "rotation", 1), (1, "scale", 0)]
    # bone 0 not last: none; bone 1: only its last run; bone 3: the later duplicate
    assert anim.applied_tracks() == [3, 5, 6]
    assert anim.info["bones_contiguous"] == 0 and anim.info["duplicate_channels"] == 2
    # a file whose last run is bone 0 flushes it
    last0 = gameanim.load(bk_file(0, 10, [element(1, 6, [key(0, 64)]), element(0, 6, [key(0, 64)])]))
    assert last0.applied_tracks() == [0, 1]
    # other formats: every track
    bck = gameanim.load(SAMPLES / "j3d" / "walk_type0.bck")
    assert bck.applied_tracks() == list(range(len(bck.tracks)))


def test_bake_pose_assembles_bones_as_the_game_does():
    anim = gameanim.load(assembly_file())
    ident = None
    out = gameanim.bake_pose(anim, [(1, ident, ident), (2, ident, ident), (3, ident, ident)], [5.0])
    loc = lambda b: [out[b][k][1] for k in range(3)]
    quat = lambda b: [out[b][k][1] for k in range(3, 7)]
    scale = lambda b: [out[b][k][1] for k in range(7, 10)]
    assert loc(0) == pytest.approx([0.0, 0.0, 0.0]) and scale(0) == pytest.approx([2.0, 1.0, 1.0])
    assert loc(1) == pytest.approx([0.0, 1.0, 0.0])
    h = math.radians(45.0) / 2  # rotation Y of 45 degrees, the later element
    q = quat(2)
    assert [abs(x) for x in q] == pytest.approx([math.cos(h), 0.0, math.sin(h), 0.0], abs=1e-6)
