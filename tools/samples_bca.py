"""SM64DS BCA samples, made by gameanim's own encoder and, for the layouts
our encoder never writes, by a small byte writer below.

Every value is on the file's grid (1/4096 units, 1/4096 turns), so the
encoder reproduces them exactly and picks each track's rate itself:
tracks are built per frame from keys with the game's integer rule (floor
lerp, half-turn wrap, per-frame tail), which is what makes them exactly
representable at half or quarter rate.  No clocks and no unseeded
randomness: regeneration is byte-identical.
"""
import math
import struct

import gameanim

TURN = 2 * math.pi / 4096


class Lcg:
    """Deterministic integers (no dependence on random's implementation)."""

    def __init__(self, seed):
        self.x = seed & 0xFFFFFFFF

    def next(self, lo, hi):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return lo + (self.x >> 8) % (hi - lo + 1)


def game_rule(n, shift, keys, tail, rot):
    """Per-frame values the game produces from keys every 2**shift frames
    (keys[k] at frame k << shift, up to L) plus tail values for L+1..N-1."""
    if shift == 0:
        return list(keys[:n])
    last = ((n - 1) >> shift) << shift
    out = []
    for f in range(n):
        k = f >> shift
        if f >= last:
            out.append(keys[k] if f == last else tail[f - last - 1])
            continue
        r = f - (k << shift)
        lo, hi = keys[k], keys[k + 1]
        w = 1 << shift
        if r == 0:
            out.append(lo)
        elif rot and abs(lo - hi) >= 0x800:
            if lo > hi:
                hi += 0x1000
            else:
                lo += 0x1000
            out.append(((hi * r + lo * (w - r)) >> shift) & 0xFFF)
        else:
            out.append((lo * (w - r) + hi * r) >> shift)
    return out


def key_count(n, shift):
    last = ((n - 1) >> shift) << shift
    return (last >> shift) + 1, n - 1 - last


def track(bone, channel, axis, ints):
    unit = TURN if channel == "rotation" else 1 / 4096
    if len(set(ints)) == 1:
        return gameanim.Track(bone, channel, axis, [0.0], [ints[0] * unit], interpolation=0)
    return gameanim.Track(bone, channel, axis, list(range(len(ints))), [v * unit for v in ints], interpolation=1)


def rated(rng, n, shift, rot, lo, hi, step):
    """A random walk sampled at key frames, expanded by the game rule."""
    nk, nt = key_count(n, shift) if shift else (n, 0)
    keys, v = [], rng.next(lo, hi)
    for _ in range(nk):
        keys.append(v)
        v = max(lo, min(hi, v + rng.next(-step, step)))
    tail = [max(lo, min(hi, keys[-1] + rng.next(-step, step))) for _ in range(nt)]
    return game_rule(n, shift, keys, tail, rot)


def animation(n, tracks, compression=None, loop="loop"):
    anim = gameanim.Animation("bca", tracks, frame_count=n, loop=loop)
    return anim.to_bytes(compression=compression)


def mixed(seed, bones, n, compression=None, loop="loop"):
    """Every bone gets a mix: per-frame, half rate, quarter rate, constant."""
    rng = Lcg(seed)
    tracks = []
    for b in range(bones):
        kind = b % 4
        for axis in range(3):
            if kind == 0:
                ints = [0x1000] * n  # scale 1: the fast path
            else:
                ints = rated(rng, n, (b + axis) % 3, False, 0x800, 0x1800, 0x40)
            tracks.append(track(b, "scale", axis, ints))
        for axis in range(3):
            shift = (b + axis + 1) % 3
            ints = rated(rng, n, shift, True, -0x1800, 0x1800, 0x300)
            tracks.append(track(b, "rotation", axis, ints))
        for axis in range(3):
            if (b + axis) % 5 == 4:
                ints = [rng.next(-0x40000, 0x40000)] * n
            else:
                ints = rated(rng, n, (b + 2 * axis) % 3, False, -0x80000, 0x80000, 0x2000)
            tracks.append(track(b, "translation", axis, ints))
    return animation(n, tracks, compression, loop)


def constant_pose():
    rng = Lcg(7)
    tracks = []
    for b in range(6):
        for axis in range(3):
            s = 0x1000 if b % 2 == 0 else [0x1800, 0x1000, 0xC00][axis]
            tracks.append(track(b, "scale", axis, [s] * 12))
            tracks.append(track(b, "rotation", axis, [rng.next(-0x800, 0x17FF)] * 12))
            tracks.append(track(b, "translation", axis, [rng.next(-0x20000, 0x20000)] * 12))
    return animation(12, tracks, loop="once")


def wrap_pairs_odd():
    """N = 33; half- and quarter-rate rotations whose key pairs cross the
    half-turn rule (0xF00 -> 0x100, 0x100 -> 0xF00, exactly 0x800 apart,
    negative and >= 0x1000 raw values)."""
    n = 33
    tracks = []
    rows = [
        (1, [0xF00, 0x100] * 8 + [0xF00], []),
        (1, [0x100, 0xF00, -0x100, 0x700, 0x1100, 0x100, 0, 0x800] * 2 + [0x7FF], []),
        (2, [0xF00, 0x100, 0x1F00, -0x300, 0x900, 0x100, 0xFFF, 0x000, 0x123], [-5]),
        (2, [-0x7F0, 0x10, 0x820, -0x20, 0x7E0, 0x1800, 0x1000, -0x1000, 0x0], [0x42]),
    ]
    for b, (shift, keys, tail) in enumerate(rows):
        nk, nt = key_count(n, shift)
        keys = keys[:nk]
        tail = (tail + [keys[-1]] * nt)[:nt]
        ints = game_rule(n, shift, keys, tail, True)
        for axis in range(3):
            tracks.append(track(b, "rotation", axis, ints if axis == b % 3 else [axis * 0x155] * n))
        tracks.append(track(b, "translation", 1, game_rule(n, shift, [k * 16 for k in keys], [t * 16 for t in tail], False)))
    return animation(n, tracks)


# ---------------------------------------------------------------------------
# Hand-built files: layouts and descriptor values our encoder never writes.


def write_bca(n, loop, blocks, scale, rot, trans, order, gaps=None, trailing=b""):
    """blocks: per bone nine (AA, BB, CC).  order: section letters in file
    order from 'S', 'R', 'T', 'B'.  gaps: bytes inserted after a section."""
    gaps = gaps or {}
    data = {
        "S": b"".join(struct.pack("<i", v) for v in scale),
        "R": b"".join(struct.pack("<h", v) for v in rot),
        "T": b"".join(struct.pack("<i", v) for v in trans),
        "B": b"".join(struct.pack("<BBH", *d) for blk in blocks for d in blk),
    }
    body = bytearray()
    offs = {}
    for s in order:
        offs[s] = 0x18 + len(body)
        body += data[s] + gaps.get(s, b"")
    head = struct.pack("<HHI4I", len(blocks), n, loop, offs["S"], offs["R"], offs["T"], offs["B"])
    return head + bytes(body) + trailing


def unusual():
    """AA = 2, BB > 1, AA with BB = 0, a fast-path bone whose scale pool
    index 0 is not 1.0, a bone that reads index 0 for real, shared and
    overlapping runs, non-zero padding, trailing bytes and an odd loop word."""
    n = 10  # AA=1: 6 values; AA=2: L=8 -> 3 values + 1 tail = 4
    scale = [0x2000, 0x1000, 0x1400, 0x1800, 0x1C00, 0x2000, 0x0800]
    rot = [0xF00, 0x100, 0xF00, 0x100, -0x200, 0x1100, 0x300, 0x7FF, -0x7FF, 0x400, 0x0]
    trans = [0, 0x1000, 0x2000, -0x3000, 0x4000, 0x4800, -7, 0x10000, 123456, -0x8000]
    blocks = [
        # bone 0: scale fast path (CC and BB all 0, AA ignored) although P[0] = 2.0
        [(1, 0, 0), (0, 0, 0), (2, 0, 0), (2, 1, 0), (1, 2, 3), (0, 0, 10), (2, 2, 0), (0, 0, 4), (5, 0, 6)],
        # bone 1: constant scale reading P[0] = 2.0 for X, animated AA=1 for Y
        [(0, 0, 0), (1, 1, 1), (3, 0, 2), (0, 1, 0), (1, 1, 5), (2, 3, 7), (1, 7, 2), (0, 0, 9), (0, 1, 0)],
        # bone 2: overlapping runs with bone 1, BB = 255
        [(2, 255, 2), (0, 0, 6), (0, 0, 1), (1, 255, 1), (0, 0, 5), (0, 0, 8), (2, 1, 3), (1, 1, 4), (0, 0, 7)],
    ]
    return write_bca(
        n, 7, blocks, scale, rot, trans, "SRTB", gaps={"R": b"\xAA\xBB", "T": b"\x11\x22\x33\x44"},
        trailing=b"\xDE\xAD\xBE\xEF\x00\x00\x00\x01",
    )


def reordered():
    """Sections in reverse order (blocks first), N = 7 (odd), loop word 0."""
    n = 7  # AA=1: L=6 -> 4 values; AA=2: L=4 -> 2 keys + 2 tail = 4
    scale = [0x1000, 0x1100, 0x1200, 0x1300, 0x1400, 0x1500, 0x1600, 0x1700]
    rot = [-0x800, 0x7FF, 0x800, 0x0, 0xFFF, 0x1000, 0x2000, -0x1]
    trans = [v * 0x155 for v in range(-4, 5)]
    blocks = [
        [(0, 1, 1), (1, 1, 2), (2, 1, 3), (1, 1, 0), (2, 1, 2), (0, 1, 1), (0, 1, 0), (1, 1, 2), (2, 1, 5)],
        [(0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 7), (1, 0, 6), (0, 1, 0), (0, 0, 8), (1, 1, 1), (2, 0, 0)],
    ]
    return write_bca(n, 0, blocks, scale, rot, trans, "BTRS")


def generate():
    return {
        "bca/constant_pose.bca": constant_pose(),
        "bca/walk_even_lz77.bca": mixed(11, 8, 40, "lz77"),
        "bca/swing_odd.bca": mixed(23, 5, 33),
        "bca/wrap_pairs_odd.bca": wrap_pairs_odd(),
        "bca/bones20_raw.bca": mixed(31, 20, 16),
        "bca/bones34_lz77.bca": mixed(37, 34, 24, "lz77", loop="once"),
        "bca/long600_lz77.bca": mixed(41, 12, 600, "lz77"),
        "bca/handmade_unusual.bca": unusual(),
        "bca/handmade_reordered_lz77.bca": gameanim.compress("lz77", reordered()),
    }
