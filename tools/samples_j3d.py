"""BCK and BTK samples, made with gameanim's own encoder.

Values come from integer arithmetic (a small LCG and exact fractions) so
that every machine produces the same bytes: no transcendental functions.
A few samples are then edited at byte level to carry what the encoder does
not write for new files (a sound block, the TTK1 chunk-size quirk).
"""
import math
import struct

import gameanim

T = gameanim.Track
PI = math.pi


class Lcg:
    """Deterministic pseudo-random integers (Numerical Recipes constants)."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def next(self, n):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return (self.state >> 8) % n


def rot_unit(frac):
    return (PI / 32768.0) * (1 << frac)


def joint_tracks(j, keys_by_channel):
    """Nine tracks of joint j; keys_by_channel maps (channel, axis) to
    (times, values, in_slopes, out_slopes) or to a single constant."""
    out = []
    for ch in ("scale", "rotation", "translation"):
        for a in range(3):
            spec = keys_by_channel.get((ch, a))
            if spec is None:
                out.append(T(j, ch, a))
            elif isinstance(spec, (int, float)):
                out.append(T(j, ch, a, [0.0], [spec], interpolation=gameanim.CONSTANT))
            else:
                times, values, ins, outs = spec
                out.append(T(j, ch, a, times, values, ins, outs, interpolation=gameanim.BEZIER))
    return out


def quiet(anim, **kw):
    """Encode; rounding notes are expected for hand-made radians."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        return anim.to_bytes(**kw)


def bck_type0():
    # tangent type 0 everywhere (in == out), count 0 / 1 / n, rotation shift 0
    u = rot_unit(0)
    tracks = []
    tracks += joint_tracks(0, {
        ("translation", 1): ([0.0, 10.0, 20.0], [0.0, 12.5, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        ("rotation", 1): ([0, 10, 20], [0.0, 8192 * u, 16384 * u], [0.0, 819 * u, 0.0], [0.0, 819 * u, 0.0]),
    })
    tracks += joint_tracks(1, {
        ("scale", 0): 1.5,
        ("rotation", 2): ([0, 5, 15, 20], [0.0, -4096 * u, 4096 * u, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]),
        ("translation", 0): 30.0,
    })
    tracks += joint_tracks(2, {
        ("scale", 1): ([0.0, 20.0], [1.0, 2.0], [0.05, 0.05], [0.05, 0.05]),
    })
    return quiet(gameanim.Animation("bck", tracks, frame_count=20, loop="loop", rotation_frac=0))


def bck_type1_shift():
    # tangent type 1 (in != out), rotation shift 2 for turns beyond 180 degrees
    frac = 2
    u = rot_unit(frac)
    tracks = []
    tracks += joint_tracks(0, {
        ("rotation", 0): ([0, 15, 30], [0.0, 12000 * u, -3000 * u], [0.0, 40 * u, 0.0], [100 * u, -60 * u, 0.0]),
        ("rotation", 2): 9000 * u,
        ("translation", 2): ([0.0, 7.5, 30.0], [0.0, -4.25, 3.0], [0.0, 0.5, -0.25], [1.0, -0.5, 0.0]),
    })
    tracks += joint_tracks(1, {
        ("scale", 2): ([0.0, 10.0, 30.0], [1.0, 0.5, 1.0], [0.0, -0.125, 0.0], [0.0, 0.125, 0.0]),
        ("rotation", 1): ([0, 30], [-20000 * u, 20000 * u], [0.0, 0.0], [2000 * u, 0.0]),
    })
    return quiet(gameanim.Animation("bck", tracks, frame_count=30, loop="mirror_loop", rotation_frac=frac))


def sound_block(entries):
    """A BCK sound block: u16 count, u8 0x0C, 5 zero bytes, 0x20-byte entries,
    then 0x18 zero bytes (pads 8 + 32n to a 32-byte boundary)."""
    out = struct.pack(">HB5x", len(entries), 0x0C)
    for sid, start, end, pitch, flags, vol, fine, loops, pan in entries:
        out += struct.pack(">IfffIBBBBB7x", sid, start, end, pitch, flags, vol, fine, loops, pan, 0)
    return out + bytes(0x18)


def with_sound(bck, entries):
    data = bytearray(bck)
    off = len(data)
    assert off % 32 == 0
    data += sound_block(entries)
    struct.pack_into(">I", data, 0x08, len(data))
    struct.pack_into(">I", data, 0x1C, off)
    return bytes(data)


def bck_sound():
    u = rot_unit(1)
    tracks = joint_tracks(0, {
        ("rotation", 1): ([0, 12, 24], [0.0, 6000 * u, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        ("translation", 0): ([0.0, 24.0], [0.0, 48.0], [2.0, 2.0], [2.0, 2.0]),
    })
    base = quiet(gameanim.Animation("bck", tracks, frame_count=24, loop="once", rotation_frac=1))
    return with_sound(base, [
        (0x1001, 3.0, 3.0, 1.0, 0, 127, 0, 0, 64),
        (0x2002, 15.0, 18.0, 1.25, 1, 100, 8, 1, 32),
    ])


def bck_long(joints=60, frames=600, seed=0x5EED):
    """60 joints x 600 frames: keys every few frames, tangent type 1."""
    rng = Lcg(seed)
    frac = 1
    u = rot_unit(frac)
    tracks = []
    for j in range(joints):
        spec = {}
        for ch in ("scale", "rotation", "translation"):
            for a in range(3):
                kind = rng.next(10)
                if kind == 0:
                    continue  # count 0
                if kind == 1:
                    spec[(ch, a)] = 1.0 if ch == "scale" else (rng.next(2000) - 1000) / 8.0 if ch == "translation" else (rng.next(60000) - 30000) * u
                    continue
                step = 10 + rng.next(21)  # a u16 index limits each value table to 65536 elements
                times = list(range(0, frames + 1, step))
                if times[-1] != frames:
                    times.append(frames)
                vals, ins, outs = [], [], []
                for t in times:
                    if ch == "scale":
                        vals.append(1.0 + (rng.next(512) - 256) / 1024.0)
                        ins.append((rng.next(64) - 32) / 512.0)
                        outs.append((rng.next(64) - 32) / 512.0)
                    elif ch == "rotation":
                        vals.append((rng.next(40000) - 20000) * u)
                        ins.append((rng.next(2000) - 1000) * u)
                        outs.append((rng.next(2000) - 1000) * u)
                    else:
                        vals.append((rng.next(4000) - 2000) / 16.0)
                        ins.append((rng.next(256) - 128) / 32.0)
                        outs.append((rng.next(256) - 128) / 32.0)
                spec[(ch, a)] = ([float(t) for t in times], vals, ins, outs)
        tracks += joint_tracks(j, spec)
    return quiet(gameanim.Animation("bck", tracks, frame_count=frames, loop="loop", rotation_frac=frac))


def btk_entries(spec):
    return [{"material": m, "texmtx_id": tex, "center": c} for m, tex, c in spec]


def entry_tracks(e, keys_by_channel):
    return joint_tracks(e, keys_by_channel)


def btk_basic():
    # two materials; "water" has two animated texture matrices (slots 0 and 1)
    u = rot_unit(0)
    entries = btk_entries([
        ("water", 0, (0.5, 0.5, 0.5)),
        ("water", 1, (0.5, 0.5, 0.5)),
        ("lava", 0, (0.25, 0.75, 0.5)),
    ])
    tracks = []
    tracks += entry_tracks(0, {  # scroll S
        ("translation", 0): ([0.0, 60.0], [0.0, 1.0], [1 / 60.0, 1 / 60.0], [1 / 60.0, 1 / 60.0]),
    })
    tracks += entry_tracks(1, {  # scroll T the other way, scaled
        ("translation", 1): ([0.0, 60.0], [0.0, -2.0], [-2 / 60.0, -2 / 60.0], [-2 / 60.0, -2 / 60.0]),
        ("scale", 0): 2.0,
        ("scale", 1): 0.5,
    })
    tracks += entry_tracks(2, {  # spin about the centre (rotation from the Q slot)
        ("rotation", 2): ([0, 60], [0.0, 32767 * u], [32767 * u / 60, 32767 * u / 60], [32767 * u / 60, 32767 * u / 60]),
        ("scale", 0): ([0.0, 30.0, 60.0], [1.0, 1.5, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
    })
    return quiet(gameanim.Animation("btk", tracks, frame_count=60, loop="loop", entries=entries,
                                    calc_type="basic", rotation_frac=0))


def btk_maya():
    u = rot_unit(1)
    entries = btk_entries([("glow", 0, (0.5, 0.5, 0.5)), ("rim", 2, (0.0, 0.0, 0.0))])
    tracks = []
    tracks += entry_tracks(0, {
        ("rotation", 2): ([0, 20, 40], [0.0, 8000 * u, 0.0], [0.0, 0.0, 0.0], [300 * u, 0.0, -300 * u]),
        ("scale", 0): ([0.0, 40.0], [1.0, 3.0], [0.0, 0.0], [0.1, 0.0]),
        ("scale", 1): ([0.0, 40.0], [1.0, 0.5], [0.0, 0.0], [0.0, 0.0]),
        ("translation", 0): ([0.0, 40.0], [0.25, -0.25], [0.0, 0.0], [0.0, 0.0]),
    })
    tracks += entry_tracks(1, {
        ("translation", 1): ([0.0, 10.0, 40.0], [0.0, 0.5, 0.125], [0.05, 0.0, -0.01], [0.05, 0.0, -0.01]),
        ("rotation", 2): 4096 * u,
    })
    return quiet(gameanim.Animation("btk", tracks, frame_count=40, loop="once_reset", entries=entries,
                                    calc_type="maya", rotation_frac=1))


def btk_chunk_quirk():
    """A BTK whose TTK1 size field is 4 less than the chunk (one writer's
    quirk); decoders must keep it."""
    data = bytearray(btk_basic())
    size = struct.unpack_from(">I", data, 0x24)[0]
    struct.pack_into(">I", data, 0x24, size - 4)
    return bytes(data)


def generate():
    return {
        "j3d/walk_type0.bck": bck_type0(),
        "j3d/swing_type1_shift2.bck": bck_type1_shift(),
        "j3d/jump_sound.bck": bck_sound(),
        "j3d/long_60x600.bck": bck_long(),
        "j3d/scroll_basic.btk": btk_basic(),
        "j3d/glow_maya.btk": btk_maya(),
        "j3d/scroll_chunk_quirk.btk": btk_chunk_quirk(),
    }
