"""SM64DS BCA: decoding, game-exact sampling, encoding, compression wrapper.

Expected values come from an independent reading of the file and of the
game's samplers written here in Python (tangosdev/sm64ds-decomp
src/func_020457f0.c for scale/translation, src/func_020456a0.c for
rotation, src/func_0204547c.c for the per-bone scale fast path); the C
code is only the thing under test.  Integer frames are compared exactly
(float32); between frames the clip interpolates linearly (tolerance 1e-6
relative).
"""
import math
import random
import struct
import warnings
from array import array

import pytest

import gameanim
from conftest import SAMPLES, decode_or_format_error, mutation_count, mutations, sample_paths

TURN = 2 * math.pi / 4096
CHANNELS = ("scale", "rotation", "translation")


# ---------------------------------------------------------------------------
# Independent reference: LZ10, file layout, the game's samplers.


def lz10_decompress(blob):
    assert blob[:5] == b"LZ77\x10"
    size = int.from_bytes(blob[5:8], "little")
    out, ip = bytearray(), 8
    while len(out) < size:
        flags = blob[ip]
        ip += 1
        for bit in range(8):
            if len(out) >= size:
                break
            if flags & (0x80 >> bit):
                length, dist = (blob[ip] >> 4) + 3, ((blob[ip] & 0xF) << 8 | blob[ip + 1]) + 1
                ip += 2
                for _ in range(length):
                    out.append(out[-dist])
            else:
                out.append(blob[ip])
                ip += 1
    return bytes(out)


def payload_of(data):
    return lz10_decompress(data) if data[:4] == b"LZ77" else data


def s16(x):
    x &= 0xFFFF
    return x - 0x10000 if x & 0x8000 else x


def s32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


WEIGHT = (1, 2, 4)  # the game's per-shift weight table


def needed(n, aa, bb):
    if bb == 0:
        return 1
    if aa == 0:
        return n
    last = ((n - 1) >> aa) << aa
    return (last >> aa) + n - last


def game_s32(n, f, aa, bb, p):
    """func_020457f0: scale and translation (20.12)."""
    if bb == 0:
        return p[0]
    if aa == 0:
        return p[f]
    last = ((n - 1) >> aa) << aa
    k = f >> aa
    if f >= last:
        return p[k + (f - last)]
    r = f - (k << aa)
    if r == 0:
        return p[k]
    return s32(p[k] * (WEIGHT[aa] - r) + p[k + 1] * r) >> aa


def game_angle(n, f, aa, bb, p):
    """func_020456a0: rotation in 1/4096 turn, raw s16 pool values."""
    if bb == 0:
        return p[0]
    if aa == 0:
        return p[f]
    last = ((n - 1) >> aa) << aa
    k = f >> aa
    if f >= last:
        return p[k + (f - last)]
    r = f - (k << aa)
    if r == 0:
        return p[k]
    lo, hi = p[k], p[k + 1]
    if abs(lo - hi) >= 0x800:
        if lo > hi:
            hi = s16(hi + 0x1000)
        else:
            lo = s16(lo + 0x1000)
        return ((hi * r + lo * (WEIGHT[aa] - r)) >> aa) & 0xFFF
    return s16((lo * (WEIGHT[aa] - r) + hi * r) >> aa)


class Bca:
    """A plain reading of a BCA payload."""

    def __init__(self, data):
        self.data = data
        self.nbones, self.n, self.loop, *self.off = struct.unpack_from("<HHI4I", data)
        self.desc = [
            [struct.unpack_from("<BBH", data, self.off[3] + 36 * b + 4 * s) for s in range(9)]
            for b in range(self.nbones)
        ]

    def fast(self, b):
        return all(bb == 0 and cc == 0 for _, bb, cc in self.desc[b][:3])

    def run(self, b, s):
        aa, bb, cc = self.desc[b][s]
        ch = s // 3
        m = needed(self.n, aa, bb)
        if ch == 1:
            return [struct.unpack_from("<h", self.data, self.off[1] + 2 * (cc + i))[0] for i in range(m)]
        return [struct.unpack_from("<i", self.data, self.off[ch] + 4 * (cc + i))[0] for i in range(m)]

    def ints(self, b, s):
        """The game's integer result at every frame, None for the fast path."""
        if s < 3 and self.fast(b):
            return None
        aa, bb, _ = self.desc[b][s]
        p = self.run(b, s)
        fn = game_angle if s // 3 == 1 else game_s32
        return [fn(self.n, f, aa, bb, p) for f in range(self.n)]

    def values(self, b, s):
        ints = self.ints(b, s)
        if ints is None:
            return [1.0] * self.n
        unit = TURN if s // 3 == 1 else 1 / 4096
        return [v * unit for v in ints]


def f32(values):
    return list(array("f", values))


def sampled(anim, frames):
    """{(bone, slot): values at frames} from Animation.sample."""
    out = anim.sample(frames)
    res = {}
    for i, t in enumerate(anim.tracks):
        res[(t.target, CHANNELS.index(t.channel) * 3 + t.axis)] = list(out[i * len(frames) : (i + 1) * len(frames)])
    return res


def check_against_game(data):
    ref = Bca(payload_of(data))
    anim = gameanim.load(data)
    assert anim.format == "bca"
    assert anim.frame_count == ref.n and anim.fps == 30.0
    assert len(anim.tracks) == 9 * ref.nbones
    frames = [float(f) for f in range(ref.n)]
    got = sampled(anim, frames)
    for b in range(ref.nbones):
        for s in range(9):
            assert got[(b, s)] == f32(ref.values(b, s)), f"bone {b} slot {s}"
    # between integer frames: linear between the neighbouring frames
    if ref.n > 1:
        half = [f + 0.5 for f in range(ref.n - 1)]
        mid = sampled(anim, half)
        for key, vals in got.items():
            for f, v in enumerate(mid[key]):
                want = (vals[f] + vals[f + 1]) / 2
                assert v == pytest.approx(want, rel=1e-6, abs=1e-6)
    return ref, anim


# ---------------------------------------------------------------------------
# A byte writer for hand-built fixtures.


def make_bca(n, blocks, scale=(), rot=(), trans=(), loop=1, order="SRTB", gaps=None, trailing=b"", nbones=None):
    gaps = gaps or {}
    parts = {
        "S": b"".join(struct.pack("<i", v) for v in scale),
        "R": b"".join(struct.pack("<h", v) for v in rot),
        "T": b"".join(struct.pack("<i", v) for v in trans),
        "B": b"".join(struct.pack("<BBH", *d) for blk in blocks for d in blk),
    }
    body, offs = bytearray(), {}
    for i, sec in enumerate(order):
        offs[sec] = 0x18 + len(body)
        body += parts[sec]
        if sec in gaps:
            body += gaps[sec]
        elif i + 1 < len(order):
            body += bytes(-len(body) % 4)  # zero padding to 4, as the writers do
    head = struct.pack(
        "<HHI4I", len(blocks) if nbones is None else nbones, n, loop, offs["S"], offs["R"], offs["T"], offs["B"]
    )
    return head + bytes(body) + trailing


CONST = (0, 0, 0)


def one_bone(n, slot, desc, scale=(0x1000,), rot=(0,), trans=(0,), **kw):
    blk = [CONST] * 9
    blk[slot] = desc
    return make_bca(n, [blk], scale, rot, trans, **kw)


def fixtures():
    """(name, bytes) covering the rules the issue lists."""
    out = []
    for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 17):
        for aa in (0, 1, 2):
            m = needed(n, aa, 1)
            rot = [((i * 0x3A1) % 0x2400) - 0x1200 for i in range(m)]
            trans = [(i * 7919) % 20011 - 10000 for i in range(m)]
            scale = [0x1000] + [0x800 + 97 * i for i in range(m)]
            blk = [(aa, 1, 1), (aa, 2, 1), (aa, 0, 1), (aa, 1, 0), (aa, 255, 0), (aa, 0, 0),
                   (aa, 1, 0), (aa, 3, 0), (aa, 0, m - 1)]
            out.append((f"n{n}_aa{aa}", make_bca(n, [blk], scale, rot, trans)))
    # wrap-around pairs, both directions, exactly half a turn, raw values
    # beyond one turn and negative, results below zero (floor)
    pairs = [(0xF00, 0x100), (0x100, 0xF00), (0, 0x800), (0x800, 0), (0, 0x7FF), (-0x100, 0x700),
             (0x1100, 0x100), (0x1000, 0), (-3, 0), (-0x7FF, 0x7FF), (0x7FFF, -0x8000), (-0x8000, 0x7FFF),
             (0x7800, 0x0), (0x0, 0x7800), (-0x400, -0xC01)]
    for aa in (1, 2):
        for i, (lo, hi) in enumerate(pairs):
            n = (1 << aa) + 1  # frames between the two keys, last frame = hi
            blk = [CONST] * 9
            blk[3] = (aa, 1, 0)
            blk[4] = (aa, 1, 1)  # shifted pair: hi -> next
            out.append((f"pair{i}_aa{aa}", make_bca(n, [blk], (0x1000,), (lo, hi, lo), (0,))))
    # scale fast path with P[0] != 1.0, and a bone that reads P[0] for real
    out.append(("fast_path", make_bca(
        6, [[(1, 0, 0), (2, 0, 0), (0, 0, 0)] + [CONST] * 6,
            [(0, 0, 0), (0, 0, 1), (0, 0, 0)] + [CONST] * 6,
            [(0, 0, 0), (0, 0, 0), (0, 1, 0)] + [CONST] * 6],
        (0x2000, 0x3000, 1, 2, 3, 4), (0,), (0,))))
    # 32-bit lerp that wraps like the ARM multiply does
    out.append(("lerp_overflow", one_bone(3, 6, (1, 1, 0), trans=(0x7FFFFFF0, 0x7FFFFFF0, -5))))
    return out


FIXTURES = fixtures()


# ---------------------------------------------------------------------------
# Samples


def bca_samples():
    # (samples/j3d holds J3D BCAs, another format with the same extension)
    return [p for p in sample_paths(".bca") if gameanim.detect(p)[0] == "bca"]


def test_samples_cover_the_issue():
    paths = bca_samples()
    assert len(paths) >= 8
    stats = {"lz77": 0, "raw": 0, "odd": 0, "even": 0, "rates": set(), "bones30": 0, "long600": 0, "b16_31": 0}
    for p in paths:
        data = p.read_bytes()
        stats["lz77" if data[:4] == b"LZ77" else "raw"] += 1
        ref = Bca(payload_of(data))
        stats["odd" if ref.n % 2 else "even"] += 1
        stats["bones30"] += ref.nbones >= 30
        stats["long600"] += ref.n == 600
        stats["b16_31"] += data[:4] != b"LZ77" and 0x10 <= data[0] <= 0x1F
        for blk in ref.desc:
            for aa, bb, _ in blk:
                stats["rates"].add("const" if bb == 0 else aa)
    assert stats["lz77"] >= 2 and stats["raw"] >= 2
    assert stats["odd"] and stats["even"]
    assert stats["rates"] == {"const", 0, 1, 2}
    assert stats["bones30"] and stats["long600"] and stats["b16_31"]


@pytest.mark.parametrize("path", bca_samples(), ids=lambda p: p.name)
def test_sample_sampling_matches_game(path):
    check_against_game(path.read_bytes())


@pytest.mark.parametrize("name,data", FIXTURES, ids=[f[0] for f in FIXTURES])
def test_fixture_sampling_matches_game(name, data):
    check_against_game(data)


@pytest.mark.parametrize("path", bca_samples(), ids=lambda p: p.name)
def test_unedited_round_trip_is_byte_exact(path):
    data = path.read_bytes()
    anim = gameanim.load(data)
    assert anim.to_bytes() == data
    assert anim.to_bytes(compression=None) == payload_of(data)
    assert anim.compression == ("lz77" if data[:4] == b"LZ77" else None)


# ---------------------------------------------------------------------------
# The game's rules, pinned by hand-computed values


def angles(data, slot=3):
    anim = gameanim.load(data)
    got = sampled(anim, [float(f) for f in range(int(anim.frame_count))])
    return [round(v / TURN) for v in got[(0, slot)]]


def units(data, slot):
    anim = gameanim.load(data)
    got = sampled(anim, [float(f) for f in range(int(anim.frame_count))])
    return [round(v * 4096) for v in got[(0, slot)]]


def desc_offset(data, bone, slot):
    return struct.unpack_from("<I", data, 0x14)[0] + 36 * bone + 4 * slot


@pytest.mark.parametrize(
    "lo,hi,want",
    [
        (0xF00, 0x100, 0),  # hi gets 0x1000: (0xF00 + 0x1100) >> 1 = 0x1000, masked 0
        (0x100, 0xF00, 0),  # the smaller (lo, 0x100) gets 0x1000 added
        (0, 0x800, 0xC00),  # exactly half a turn takes the wrap branch: (0x1000 + 0x800) >> 1
        (0, 0x7FF, 0x3FF),  # just under: plain floor lerp, no mask
        (-3, 0, -2),  # floor, not truncation
        (0x1000, 0, 0),  # same angle, raw values a turn apart
        (-0x100, 0x700, 0xB00),  # (0xF00 + 0x700) >> 1
        (0x7800, 0, 0x400),  # hi becomes 0x1000: (0x7800 + 0x1000) >> 1 = 0x4400, masked
    ],
)
def test_rotation_half_turn_rule(lo, hi, want):
    data = one_bone(3, 3, (1, 1, 0), rot=(lo, hi))
    assert angles(data) == [lo, want, hi]


def test_rotation_short_wrap_in_s16():
    # 0x7800 + 0x1000 overflows the game's short: -0x7800
    data = one_bone(3, 3, (1, 1, 0), rot=(0x7FFF, 0x7000))
    # 0xFFF apart: hi + 0x1000 overflows to -0x8000; (-0x8000 + 0x7FFF) >> 1 = -1 -> 0xFFF
    assert angles(data) == [0x7FFF, 0xFFF, 0x7000]
    data = one_bone(3, 3, (1, 1, 0), rot=(0x7FFF, 0x7800))
    assert angles(data) == [0x7FFF, (0x7FFF + 0x7800) >> 1, 0x7800]  # under half a turn: plain lerp
    data = one_bone(3, 3, (1, 1, 0), rot=(0x7FF0, 0x7000))
    # 0xFF0 apart: hi wraps to -0x8000; (-0x8000 + 0x7FF0) >> 1 = -8 -> 0xFF8
    assert angles(data)[1] == 0xFF8
    data = one_bone(3, 3, (1, 1, 0), rot=(0x7FFF, 0x0))
    # hi (0) is smaller: 0x1000; (0x7FFF + 0x1000) >> 1 = 0x47FF -> 0x7FF
    assert angles(data)[1] == 0x7FF
    data = one_bone(3, 3, (1, 1, 0), rot=(0x0, 0x7800))
    # lo (0) is smaller: 0x1000; (0x1000 + 0x7800) >> 1 = 0x4400 -> 0x400
    assert angles(data)[1] == 0x400
    data = one_bone(3, 3, (1, 1, 0), rot=(0x7900, -0x100))
    # hi = -0x100 + 0x1000 = 0xF00; (0x7900 + 0xF00) >> 1 = 0x4400 -> 0x400
    assert angles(data)[1] == 0x400
    data = one_bone(3, 3, (1, 1, 0), rot=(0x7000, 0x7F00))
    # diff 0xF00: lo gets 0x1000 and wraps to -0x8000 as a short
    assert angles(data)[1] == ((s16(0x8000) + 0x7F00) >> 1) & 0xFFF


def test_tail_rule_even_and_odd():
    # AA=1, N=6: L=4; frames 4 and 5 read values 2 and 3 directly.
    assert units(one_bone(6, 6, (1, 1, 0), trans=(0, 100, 200, 1000)), 6) == [0, 50, 100, 150, 200, 1000]
    # N=5: L=4, no extra value, frame 3 is a midpoint
    assert units(one_bone(5, 6, (1, 1, 0), trans=(0, 101, 201)), 6) == [0, 50, 101, 151, 201]
    # AA=2, N=10: keys at 0, 4, 8; frames 8, 9 read the tail
    assert units(one_bone(10, 6, (2, 1, 0), trans=(0, 7, 15, -4)), 6) == [0, 1, 3, 5, 7, 9, 11, 13, 15, -4]
    # AA=2, N=7: L=4; frames 4, 5, 6 read values 1, 2, 3
    assert units(one_bone(7, 6, (2, 1, 0), trans=(0, 9, 20, 30)), 6) == [0, 2, 4, 6, 9, 20, 30]
    # negative lerp rounds down
    assert units(one_bone(3, 6, (1, 1, 0), trans=(0, -3)), 6) == [0, -2, -3]


def test_constant_ignores_aa_and_any_nonzero_bb_animates():
    assert units(one_bone(4, 7, (7, 0, 1), trans=(5, 3)), 7) == [3, 3, 3, 3]
    assert units(one_bone(4, 7, (0, 200, 0), trans=(0, 4096, 8192, 12288)), 7) == [0, 4096, 8192, 12288]


def test_scale_fast_path():
    data = dict(FIXTURES)["fast_path"]
    anim = gameanim.load(data)
    v = anim.sample([0.0, 5.0])
    assert v[0:6].tolist() == [1.0] * 6  # bone 0: P[0] is 2.0 but never read
    assert v[18:24].tolist() == [2.0, 2.0, 3.0, 3.0, 2.0, 2.0]  # bone 1 reads P[0] for X and Z
    assert anim.info["fast_path_bones"] == 1
    # a bone with AA set but CC/BB zero still takes the fast path
    assert anim.tracks[0].values.tolist() == [1.0]


def test_clip_shape():
    data = dict(FIXTURES)["n10_aa1"]
    anim = gameanim.load(data)
    t = anim.tracks
    assert [(x.target, x.channel, x.axis) for x in t] == [(0, c, a) for c in CHANNELS for a in range(3)]
    assert list(t[0].times) == list(range(10)) and list(t[0].interpolation) == [1] * 10  # animated: a key per frame
    assert list(t[2].times) == [0.0] and list(t[2].interpolation) == [0]  # constant: one key


# ---------------------------------------------------------------------------
# Loop word, fps, info


def test_loop_word_kept_verbatim_and_patched():
    path = SAMPLES / "bca" / "handmade_unusual.bca"
    data = path.read_bytes()
    assert struct.unpack_from("<I", data, 4)[0] == 7
    anim = gameanim.load(data)
    assert anim.loop == "loop" and anim.fps == 30.0 and anim.info["loop_word"] == 7
    anim.loop = "once"
    out = anim.to_bytes()
    assert out[:4] == data[:4] and out[4:8] == b"\0\0\0\0" and out[8:] == data[8:]
    assert anim.encode_report["reused_tracks"] == 27
    anim.loop = "loop"
    assert anim.to_bytes() == data  # back to the original: the word is 7 again
    anim.fps = 60.0  # a header change that leaves the loop alone keeps the word
    with pytest.warns(gameanim.PrecisionWarning, match="30 frames per second"):
        assert anim.to_bytes() == data
    anim.loop = "mirror_loop"
    with pytest.raises(gameanim.EncodeError, match="loop word"):
        anim.to_bytes()
    once = gameanim.load(SAMPLES / "bca" / "bones34_lz77.bca")
    assert once.loop == "once"
    once.loop = "loop"
    assert struct.unpack_from("<I", payload_of(once.to_bytes()), 4)[0] == 1


def test_new_animation_loop_word():
    tr = [gameanim.Track(0, "translation", 0, [0.0], [1.0])]
    for loop, word in (("loop", 1), ("once", 0), (None, 1)):
        data = gameanim.Animation("bca", tr, frame_count=4, loop=loop).to_bytes()
        assert struct.unpack_from("<I", data, 4)[0] == word
    with pytest.raises(gameanim.EncodeError):
        gameanim.Animation("bca", tr, frame_count=4, loop="once_reset").to_bytes()


def test_info_fields():
    info = gameanim.load(SAMPLES / "bca" / "handmade_unusual.bca").info
    assert info["bone_count"] == 3 and info["frame_count"] == 10
    assert info["trailing_bytes"] == 8
    assert info["constant_with_shift"] == 2  # (3,0,2) and (5,0,6); the fast-path bone's scale is not counted
    assert info["animated_bb_not_1"] == 6
    assert info["quarter_rate_tracks"] == 5 and info["half_rate_tracks"] == 6
    assert info["scale_index0"] == 0x2000


# ---------------------------------------------------------------------------
# Malformed input


def _format_error(data, **match):
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(data)
    for k, v in match.items():
        if k == "text":
            assert v in str(e.value), str(e.value)
        else:
            assert getattr(e.value, k) == v, (k, getattr(e.value, k), str(e.value))
    return e.value


@pytest.mark.parametrize("aa", [0, 1, 2])
@pytest.mark.parametrize("n", [1, 6, 7, 10])
def test_pool_overrun_is_format_error(aa, n):
    m = needed(n, aa, 1)
    # translation pool last: exactly m values decode, m-1 do not
    ok = make_bca(n, [[CONST] * 7 + [(aa, 1, 0), CONST]], (0x1000,), (0,), list(range(m)), order="SRBT")
    check_against_game(ok)
    if m > 1:
        bad = make_bca(n, [[CONST] * 7 + [(aa, 1, 0), CONST]], (0x1000,), (0,), list(range(m - 1)), order="SRBT")
    else:  # the constant tracks need index 0: start the one-value run past the end instead
        bad = make_bca(n, [[CONST] * 7 + [(aa, 1, 1), CONST]], (0x1000,), (0,), [0], order="SRBT")
    e = _format_error(bad, format="bca", field="bone 0 translation Y")
    assert e.offset == desc_offset(bad, 0, 7)
    assert "pool" in str(e) and "values" in str(e)
    # The same for rotation, with the bone blocks right after the pool (no
    # padding, so the pool holds exactly the values given).
    blk = [[CONST] * 4 + [(aa, 1, 0)] + [CONST] * 4]
    check_against_game(make_bca(n, blk, (0x1000,), list(range(m)), (0,), order="STRB", gaps={"R": b""}))
    if m > 1:
        bad = make_bca(n, blk, (0x1000,), list(range(m - 1)), (0,), order="STRB", gaps={"R": b""})
    else:
        blk = [[CONST] * 4 + [(aa, 1, 1)] + [CONST] * 4]
        bad = make_bca(n, blk, (0x1000,), [0], (0,), order="STRB", gaps={"R": b""})
    e = _format_error(bad, field="bone 0 rotation Y")
    assert e.offset == desc_offset(bad, 0, 4)


def test_constant_and_scale_reads_checked():
    # constant reading one past the pool
    _format_error(one_bone(4, 8, (0, 0, 1), trans=(0,), order="SRBT"), field="bone 0 translation Z")
    # a non-fast-path bone reads scale P[0]: an empty scale pool fails
    blk = [(0, 1, 0)] + [CONST] * 8
    data = make_bca(1, [blk], (), (0,), (0,), order="RTBS")
    _format_error(data, field="bone 0 scale X")
    blk = [CONST, (0, 0, 1), CONST] + [CONST] * 6
    _format_error(make_bca(1, [blk], (0x1000,), (0,), (0,), order="RTBS"), field="bone 0 scale Y")
    # the fast path reads nothing: an empty scale pool is fine
    data = make_bca(1, [[CONST] * 9], (), (0,), (0,), order="RTBS")
    assert gameanim.load(data).sample([0.0])[0] == 1.0
    # pools that start at the same offset share its span
    data = make_bca(1, [blk], (), (0x1000, 0x2000, 0x3000, 0x4000), (0,))
    assert gameanim.load(data).sample([0.0])[1] == 0x40003000 / 4096


def test_aa_above_two():
    data = one_bone(8, 5, (3, 1, 0), rot=tuple(range(8)))
    e = _format_error(data, field="bone 0 rotation Z")
    assert "AA = 3" in str(e) and e.offset == desc_offset(data, 0, 5)
    # with BB = 0 the game never looks at AA
    check_against_game(one_bone(8, 5, (3, 0, 0), rot=tuple(range(8))))


def test_header_errors():
    good = one_bone(4, 6, (0, 1, 0), trans=(1, 2, 3, 4))
    with pytest.raises(gameanim.FormatError):
        gameanim.load(good[:0x17])  # too short to tell what it is
    bad = bytearray(good)
    bad[2:4] = b"\0\0"
    _format_error(bytes(bad), field="frame count", offset=2)
    bad = bytearray(good)
    bad[0:2] = b"\0\0"
    with pytest.raises(gameanim.FormatError):
        gameanim.load(bytes(bad))  # (a structural probe of another format may claim it)
    for field_off, name in ((8, "scale pool offset"), (0xC, "rotation pool offset"), (0x10, "translation pool offset"),
                            (0x14, "bone block offset")):
        bad = bytearray(good)
        struct.pack_into("<I", bad, field_off, len(good) + 4)
        _format_error(bytes(bad), field=name, offset=field_off, text="past the end")
        if name != "bone block offset":
            struct.pack_into("<I", bad, field_off, struct.unpack_from("<I", good, 0x14)[0] + 8)
            _format_error(bytes(bad), field=name, offset=field_off, text="inside the bone blocks")
        if name in ("scale pool offset", "translation pool offset"):
            struct.pack_into("<I", bad, field_off, 0x1A)
            _format_error(bytes(bad), field=name, offset=field_off, text="aligned")
        struct.pack_into("<I", bad, field_off, 0x10)
        with pytest.raises(gameanim.FormatError):  # not a plausible BCA any more
            gameanim.load(bytes(bad))
    _format_error(good[:-1], field="bone blocks", text="1 bones need 36 bytes")
    # truncated anywhere: a FormatError that names the BCA field
    for cut in range(0x18, len(good)):
        e = _format_error(good[:cut], format="bca")
        assert e.field


def test_other_formats_named():
    # a J3D BCA (ANF1) is its own format now: its decoder, not the SM64DS
    # one, reports the broken file
    _format_error(b"J3D1bca1" + bytes(0x40), format="j3d_bca")
    e = _format_error(b"BCA0\xff\xfe\x00\x01" + bytes(0x40), format="bca", field="magic")
    assert "nsbca" in str(e)


def test_key_limit_refused_before_allocating():
    # 65535 bones whose 9 descriptors all share one 65535-frame run:
    # 38 billion keys from a 2.6 MB file.
    n = 65535
    blk = struct.pack("<BBH", 0, 1, 0) * 9
    head = struct.pack("<HHI4I", 65535, n, 1, 0x18, 0x18, 0x18, 0x18 + 4 * n)
    data = head + bytes(4 * n) + blk * 65535
    e = _format_error(data, format="bca", field="bone blocks")
    assert "over the limit" in str(e)


def test_bare_lz10_is_not_guessed():
    data = (SAMPLES / "bca" / "walk_even_lz77.bca").read_bytes()
    with pytest.raises(gameanim.FormatError):
        gameanim.load(data[4:])  # the stream without its tag is not a BCA
    raw = (SAMPLES / "bca" / "bones20_raw.bca").read_bytes()
    assert 0x10 <= raw[0] <= 0x1F
    anim = gameanim.load(raw)
    assert anim.compression is None and anim.info["bone_count"] == 20


@pytest.mark.parametrize("path", bca_samples(), ids=lambda p: p.name)
def test_mutations_never_crash(path):
    data = path.read_bytes()
    count = mutation_count(300)
    decoded = 0
    for i, m in enumerate(mutations(data, count, seed=len(data))):
        decoded += decode_or_format_error(m)
    if data[:4] == b"LZ77":
        payload = payload_of(data)
        for m in mutations(payload, count, seed=len(payload) + 1):
            decoded += decode_or_format_error(m)
    assert decoded > 0


def test_mutated_descriptors_decode_or_fail_cleanly():
    # Mutations aimed at the bone blocks and header of the unusual sample.
    data = (SAMPLES / "bca" / "handmade_unusual.bca").read_bytes()
    ref = Bca(data)
    rng = random.Random(77)
    ok = 0
    count = mutation_count(1500)
    for _ in range(count):
        b = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            p = rng.choice([rng.randrange(0x18), ref.off[3] + rng.randrange(36 * ref.nbones)])
            b[p] = rng.choice([0, 1, 2, 3, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        b = bytes(b)
        if decode_or_format_error(b):
            ok += 1
            check_against_game(b)
    assert ok > count // 15  # many damaged descriptors still decode (and then match the game)


# ---------------------------------------------------------------------------
# Encoding


def encode(tracks, n, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", gameanim.PrecisionWarning)
        return gameanim.Animation("bca", tracks, frame_count=n, **kw).to_bytes(compression=None)


def ints_track(bone, channel, axis, ints):
    unit = TURN if channel == "rotation" else 1 / 4096
    return gameanim.Track(bone, channel, axis, list(range(len(ints))), [v * unit for v in ints], interpolation=1)


def expand(n, aa, keys, tail, rot=False):
    """Per-frame values the game makes from keys every 2**aa frames."""
    ref_run = keys + tail
    fn = game_angle if rot else game_s32
    return [fn(n, f, aa, 1, ref_run) for f in range(n)]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 9, 10, 11, 33, 40])
def test_encoder_chooses_smallest_exact_rate(n):
    rng = random.Random(n)
    tracks, want = [], {}
    for slot in range(9):
        ch, axis = CHANNELS[slot // 3], slot % 3
        rot = ch == "rotation"
        kind = slot % 4  # 0 constant, 1 quarter, 2 half, 3 per frame
        if kind == 0:
            ints = [rng.randrange(-5000, 5000)] * n
        elif kind == 3:
            ints = [rng.randrange(-3000, 3000) for _ in range(n)]
        else:
            aa = 2 if kind == 1 else 1
            run = [rng.randrange(-3000, 3000) for _ in range(needed(n, aa, 1))]
            ints = expand(n, aa, run, [], rot)
        tracks.append(ints_track(0, ch, axis, ints))
        want[slot] = ints
    data = encode(tracks, n)
    ref = Bca(data)
    for slot in range(9):
        aa, bb, _ = ref.desc[0][slot]
        ints = want[slot]
        if slot < 3 and ref.fast(0):
            assert set(ints) == {0x1000}
            continue
        assert ref.ints(0, slot) == ints
        # the smallest exact representation by the reference sampler
        if len(set(ints)) == 1:
            best = ("const",)
        else:
            best, size = (0,), n
            for s in (1, 2):
                m = needed(n, s, 1)
                if m >= size:
                    continue
                last = ((n - 1) >> s) << s
                run = [ints[k << s] for k in range((last >> s) + 1)] + ints[last + 1 :]
                fn = game_angle if slot // 3 == 1 else game_s32
                if [fn(n, f, s, 1, run) for f in range(n)] == ints:
                    best, size = (s,), m
        assert (("const",) if bb == 0 else (aa,)) == best, (slot, aa, bb, best)
    check_against_game(data)


def test_encoder_rate_examples():
    n = 9
    ramp = [100 * f for f in range(n)]  # exact at every 4th frame
    halves = expand(n, 1, [0, 10, 3, 50, 7], [])  # needs every 2nd frame
    noisy = [0, 5, 1, 9, 2, 8, 3, 7, 4]
    data = encode([ints_track(0, "translation", 0, ramp), ints_track(0, "translation", 1, halves),
                   ints_track(0, "translation", 2, noisy), ints_track(0, "rotation", 0, [0x123] * n)], n)
    ref = Bca(data)
    assert [d[:2] for d in ref.desc[0][6:9]] == [(2, 1), (1, 1), (0, 1)]
    assert ref.desc[0][3][:2] == (0, 0)
    assert ref.run(0, 6) == [0, 400, 800]
    # rotation keys across the half-turn rule are still found exactly
    keys = [0xF00, 0x100, 0xF80, 0x080, 0x800]
    wrap = expand(n, 1, keys, [], rot=True)
    assert wrap[1] == 0
    data = encode([ints_track(0, "rotation", 1, wrap)], n)
    ref = Bca(data)
    assert ref.desc[0][4][:2] == (1, 1) and ref.run(0, 4) == keys


def test_encoder_exact_on_random_data():
    rng = random.Random(2024)
    for trial in range(20):
        n = rng.randrange(1, 70)
        bones = rng.randrange(1, 5)
        tracks, want = [], {}
        for b in range(bones):
            for slot in range(9):
                if rng.random() < 0.2:
                    continue
                ch = CHANNELS[slot // 3]
                aa = rng.choice([0, 1, 2, None])
                if aa is None:
                    ints = [rng.randrange(-30000, 30000)] * n
                else:
                    lo, hi = (-0x8000, 0x7FFF) if ch == "rotation" else (-(1 << 30), 1 << 30)
                    run = [rng.randrange(lo, hi) for _ in range(needed(n, aa, 1))]
                    ints = expand(n, aa, run, [], ch == "rotation")
                    if ch != "rotation":
                        ints = [max(-(1 << 24), min(1 << 24, v)) for v in ints]
                tracks.append(ints_track(b, ch, slot % 3, ints))
                want[(b, slot)] = ints
        data = encode(tracks, n)
        ref = Bca(data)
        for (b, slot), ints in want.items():
            got = ref.ints(b, slot)
            assert (got if got is not None else [0x1000] * n) == ints
        for b in range(ref.nbones):
            for slot in range(9):
                if (b, slot) not in want:
                    default = 0x1000 if slot < 3 else 0
                    assert (ref.ints(b, slot) or [0x1000] * n) == [default] * n
        check_against_game(data)


def test_pools_reuse_runs_and_layout():
    n = 12
    noisy = [0, 9, 1, 8, 2, 7, 3, 6, 4, 5, 11, 10]
    tracks = [
        ints_track(0, "scale", 0, [0x1000] * n),
        ints_track(0, "rotation", 0, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13]),  # quarter rate + tail
        ints_track(0, "rotation", 1, [0x10] * n),
        ints_track(0, "rotation", 2, [3 * f for f in range(n)]),
        ints_track(0, "translation", 0, noisy),
        ints_track(0, "translation", 1, noisy[4:] + [99, 98, 97, 96]),  # starts inside the end of the last run
        ints_track(1, "scale", 1, [0x2000] * n),
        ints_track(1, "translation", 2, noisy),  # identical run: same index
    ]
    data = encode(tracks, n)
    # What the game needs, laid out as the notes describe: header, scale
    # (1.0 first), rotation, zero padding to 4, translation, bone blocks.
    scale = [0x1000, 0x2000]
    rot = [1, 5, 9, 10, 11, 13, 0x10, 0, 12, 24, 27, 30, 33]
    trans = noisy + [99, 98, 97, 96]
    blocks = [
        [CONST, CONST, CONST, (2, 1, 0), (0, 0, 6), (2, 1, 7), (0, 1, 0), (0, 1, 4), (0, 0, 0)],
        [CONST, (0, 0, 1), CONST, (0, 0, 7), (0, 0, 7), (0, 0, 7), (0, 0, 0), (0, 0, 0), (0, 1, 0)],
    ]
    want = make_bca(n, blocks, scale, rot, trans)
    assert data == want
    assert struct.unpack_from("<4I", data, 8) == (0x18, 0x20, 0x3C, 0x7C)
    assert data[0x3A:0x3C] == b"\0\0"
    check_against_game(data)


def test_missing_tracks_get_defaults_and_bone_count():
    data = encode([ints_track(3, "translation", 1, [5, 6, 7])], 3)
    ref = Bca(data)
    assert ref.nbones == 4
    for b in range(4):
        assert ref.fast(b)
        for s in range(3, 9):
            if (b, s) != (3, 7):
                assert ref.ints(b, s) == [0, 0, 0]
    with pytest.raises(gameanim.EncodeError, match="at least one bone"):
        gameanim.Animation("bca", [], frame_count=3).to_bytes()


def test_frame_count_and_target_errors():
    tr = [ints_track(0, "translation", 0, [1])]
    for bad in (0, 0.4, 65536, float("nan")):
        with pytest.raises(gameanim.EncodeError, match="frame count"):
            gameanim.Animation("bca", tr, frame_count=bad).to_bytes()
    with pytest.warns(gameanim.PrecisionWarning, match="rounded to 5"):
        data = gameanim.Animation("bca", tr, frame_count=5.25).to_bytes()
    assert Bca(data).n == 5
    with pytest.raises(gameanim.EncodeError, match="by name"):
        gameanim.Animation("bca", [gameanim.Track("hip", "rotation", 0, [0.0], [0.0])], frame_count=2).to_bytes()
    with pytest.raises(gameanim.EncodeError, match="Euler rotation"):
        gameanim.Animation("bca", [gameanim.Track(0, "rotation_quaternion", 0, [0.0], [1.0])], frame_count=2).to_bytes()
    with pytest.raises(gameanim.EncodeError, match="same channel"):
        gameanim.Animation("bca", tr + tr, frame_count=2).to_bytes()


def test_rounding_is_reported():
    tr = [gameanim.Track(0, "translation", 0, [0.0, 4.0], [0.0, 1.0]),  # 1/4 per frame: on the grid
          gameanim.Track(0, "rotation", 2, [0.0, 2.0], [0.0, 0.3])]  # radians: off the grid
    anim = gameanim.Animation("bca", tr, frame_count=3)
    with pytest.warns(gameanim.PrecisionWarning, match="rounded to the BCA grid") as rec:
        data = anim.to_bytes()
    assert len([r for r in rec if "rounded to the BCA grid" in str(r.message)]) == 1
    rep = anim.encode_report
    assert rep["rounded"] == 2  # frames 1 and 2 of the rotation (frame 0 is 0.0)
    assert "bone 0 rotation Z" in rep["max_error_at"]
    ref = Bca(data)
    assert ref.ints(0, 5) == [0, round(0.15 / TURN), round(0.3 / TURN)]
    assert ref.ints(0, 6) == [0, 1024, 2048]
    assert rep["max_error"] <= TURN / 2


def test_range_errors_and_rotation_wrap():
    with pytest.raises(gameanim.EncodeError) as e:
        encode([gameanim.Track(2, "translation", 1, [0.0, 2.0], [0.0, 1e6])], 3)
    assert "bone 2 translation Y" in str(e.value) and "frame 2" in str(e.value)  # frame 1 (5e5) still fits
    with pytest.raises(gameanim.EncodeError, match="not finite"):
        encode([gameanim.Track(0, "scale", 0, [0.0], [float("inf")])], 3)
    turns = 10 * 2 * math.pi  # 40960 units: beyond s16
    anim = gameanim.Animation("bca", [gameanim.Track(0, "rotation", 0, [0.0, 2.0], [0.0, turns])], frame_count=3)
    with pytest.warns(gameanim.PrecisionWarning, match="wrapped by whole turns"):
        data = anim.to_bytes()
    got = Bca(data).ints(0, 3)
    assert [v % 4096 for v in got] == [0, 20480 % 4096, 40960 % 4096]
    assert all(-0x8000 <= v <= 0x7FFF for v in got)


def game_ints_equal(a, b):
    assert (a.nbones, a.n, a.loop) == (b.nbones, b.n, b.loop)
    for bone in range(a.nbones):
        for s in range(9):
            assert (a.ints(bone, s) or [0x1000] * a.n) == (b.ints(bone, s) or [0x1000] * b.n), (bone, s)


@pytest.mark.parametrize("path", bca_samples(), ids=lambda p: p.name)
def test_rebuilt_and_reencoded_files_are_game_identical(path):
    data = path.read_bytes()
    orig = Bca(payload_of(data))
    # Reordered tracks: a rebuild that reuses every original run.
    anim = gameanim.load(data)
    anim.tracks = list(reversed(anim.tracks))
    out = anim.to_bytes(compression=None)
    assert anim.encode_report["reused_tracks"] == 9 * orig.nbones
    game_ints_equal(orig, Bca(out))
    # Every track changed in a way that does not touch frames 0..N-1 (an
    # extra key after the end): a full re-encode from the curves.
    anim = gameanim.load(data)
    tracks = []
    for t in anim.tracks:
        last = t.values[-1]
        tracks.append(gameanim.Track(t.target, t.channel, t.axis, list(t.times) + [orig.n + 5.0],
                                     list(t.values) + [last], interpolation=list(t.interpolation) + [0]))
    anim.tracks = tracks
    with warnings.catch_warnings():
        warnings.simplefilter("error", gameanim.PrecisionWarning)
        out = anim.to_bytes(compression=None)
    assert anim.encode_report["encoded_tracks"] == 9 * orig.nbones
    assert anim.encode_report["rounded"] == 0
    game_ints_equal(orig, Bca(out))
    check_against_game(out)


@pytest.mark.parametrize("name,data", FIXTURES, ids=[f[0] for f in FIXTURES])
def test_loop_edit_patches_only_the_loop_word(name, data):
    anim = gameanim.load(data)
    anim.loop = "once" if anim.loop == "loop" else "loop"
    out = anim.to_bytes()
    assert out[:4] == data[:4] and out[8:] == data[8:]
    assert struct.unpack_from("<I", out, 4)[0] == (0 if anim.loop == "once" else 1)


def test_partial_edit_keeps_unchanged_tracks_original_data():
    path = SAMPLES / "bca" / "handmade_unusual.bca"
    data = path.read_bytes()
    orig = Bca(data)
    anim = gameanim.load(data)
    i = [(t.target, t.channel, t.axis) for t in anim.tracks].index((1, "translation", 1))
    new = ints_track(1, "translation", 1, [40 * f for f in range(10)])
    tracks = anim.tracks
    tracks[i] = new
    anim.tracks = tracks
    out = anim.to_bytes()
    rep = anim.encode_report
    assert rep["encoded_tracks"] == 1 and rep["reused_tracks"] == 26
    ref = Bca(out)
    assert ref.loop == 7 and out.endswith(b"\xDE\xAD\xBE\xEF\x00\x00\x00\x01")
    for b in range(3):
        for s in range(9):
            if (b, s) == (1, 7):
                assert ref.ints(b, s) == [40 * f for f in range(10)]
                assert ref.desc[b][s][:2] == (2, 1)
                continue
            if s < 3 and orig.fast(b):
                assert ref.desc[b][s][:2] == (orig.desc[b][s][0], 0)
                continue
            assert ref.desc[b][s][:2] == orig.desc[b][s][:2], (b, s)  # AA and BB bytes as they were
            assert ref.run(b, s) == orig.run(b, s), (b, s)  # the same values
            assert ref.ints(b, s) == orig.ints(b, s)
    assert struct.unpack_from("<i", out, ref.off[0])[0] == 0x1000
    check_against_game(out)


def test_frame_count_change_reencodes_everything():
    anim = gameanim.load(SAMPLES / "bca" / "handmade_unusual.bca")
    before = {(t.target, t.channel, t.axis): list(t.values) for t in anim.tracks}
    anim.frame_count = 12
    out = anim.to_bytes()
    ref = Bca(out)
    assert ref.n == 12 and anim.encode_report["reused_tracks"] == 0
    for b in range(3):
        for s in range(9):
            vals = before[(b, CHANNELS[s // 3], s % 3)]
            held = vals + [vals[-1]] * (12 - len(vals)) if len(vals) > 1 else vals * 12
            got = ref.values(b, s)
            assert f32(got) == f32(held), (b, s)


# ---------------------------------------------------------------------------
# Compression


def test_lz77_samples_and_recompression():
    path = SAMPLES / "bca" / "walk_even_lz77.bca"
    data = path.read_bytes()
    assert data[:5] == b"LZ77\x10"
    anim = gameanim.load(data)
    assert anim.compression == "lz77"
    assert anim.to_bytes() == data
    raw = anim.to_bytes(compression=None)
    assert raw == lz10_decompress(data) and raw[:4] != b"LZ77"
    # edit: recompressed with our compressor, valid LZ10 of the new payload
    t = anim.tracks
    t[20] = ints_track(t[20].target, t[20].channel, t[20].axis, [7] * 40)
    anim.tracks = t
    packed = anim.to_bytes()
    plain = anim.to_bytes(compression=None)
    assert packed[:5] == b"LZ77\x10" and len(packed) % 4 == 0
    assert lz10_decompress(packed) == plain
    assert gameanim.load(packed).to_bytes(compression=None) == plain
    anim.compression = None
    assert anim.to_bytes() == plain
    # a raw file saved compressed on request
    raw_anim = gameanim.load(SAMPLES / "bca" / "swing_odd.bca")
    packed = raw_anim.to_bytes(compression="lz77")
    assert lz10_decompress(packed) == (SAMPLES / "bca" / "swing_odd.bca").read_bytes()
