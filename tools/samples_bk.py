"""Banjo-Kazooie animation samples, written by the project's own code.

* bk/features.bin: every feature of the format in one small file: all nine
  transform types, linear segments (both flags clear), Catmull-Rom segments
  with every combination of the two flags, a pre-roll from the default at the
  header's start frame, keys before the start and after the end frame, a
  post-roll wiggle, a bone with only rotation, duplicate frames (a step).
* bk/features_rarezip.bin: the same file wrapped in rarezip (gameanim.compress,
  so zlib level 6 raw deflate plus the 0xAA padding).
* bk/long.bin: 60 bones x 500 frames (rotation on every bone, all nine
  channels on every tenth), built as gameanim Tracks and written by the
  encoder (a new animation, so the encoder picks the flags from the curves).

Deterministic: integer arithmetic only (no libm), no clocks.
"""
import struct

import gameanim


def key(frame, value, b15=0, b14=0):
    return struct.pack(">Hh", (b15 << 15) | (b14 << 14) | frame, value)


def element(bone, typ, keys):
    return struct.pack(">Hh", (bone << 4) | typ, len(keys)) + b"".join(keys)


def bk_file(start, end, elements, pad=0):
    return struct.pack(">hhhH", start, end, len(elements), pad) + b"".join(elements)


def features():
    start, end = 10, 40
    els = []
    # bone 1: all nine types
    # rotation X: smooth with both flags on every key (what vanilla files do),
    # first key after the start frame (pre-roll from 0 at frame 10)
    els.append(element(1, 0, [key(14, 64 * 30, 1, 1), key(20, 64 * 90, 1, 1), key(30, -64 * 45, 1, 1),
                              key(40, 64 * 10, 1, 1)]))
    # rotation Y: linear everywhere, keys before the start and after the end
    els.append(element(1, 1, [key(0, 0), key(12, 64 * 180), key(25, -64 * 180), key(50, 64 * 360)]))
    # rotation Z: every flag combination on consecutive segments
    els.append(element(1, 2, [key(10, 0, 0, 1), key(16, 64 * 20, 0, 0), key(22, 64 * 5, 1, 1),
                              key(28, 64 * 40, 1, 0), key(34, 64 * 40, 0, 1), key(40, -64 * 12, 1, 1)]))
    # scale X/Y/Z (64 = 1.0); Y has a single key, Z a pre-roll from 1.0
    els.append(element(1, 3, [key(10, 64), key(25, 96, 1, 1), key(40, 64, 1, 1)]))
    els.append(element(1, 4, [key(20, 80, 1, 1)]))
    els.append(element(1, 5, [key(30, 32, 1, 0), key(35, 128, 1, 1)]))
    # translation X/Y/Z: a step (two keys on one frame), a post-roll wiggle
    els.append(element(1, 6, [key(10, 0), key(20, 640), key(20, -640), key(40, 0)]))
    els.append(element(1, 7, [key(5, 100, 1, 1), key(15, 300, 1, 1), key(38, -200, 1, 1)]))
    els.append(element(1, 8, [key(10, 0, 0, 0), key(39, 1000, 0, 1), key(40, 5000, 0, 1)]))
    # bone 2: only rotation
    els.append(element(2, 0, [key(10, 0, 1, 1), key(25, 64 * 60, 1, 1), key(40, 0, 1, 1)]))
    els.append(element(2, 1, [key(10, 64 * 15), key(40, -64 * 15)]))
    els.append(element(2, 2, [key(0, 64 * 2, 1, 1), key(45, 64 * 3, 1, 1)]))
    # bone 5: extreme values
    els.append(element(5, 6, [key(10, -32768), key(40, 32767)]))
    return bk_file(start, end, els)


def lcg(seed):
    state = seed & 0xFFFFFFFF
    while True:
        state = (state * 1664525 + 1013904223) & 0xFFFFFFFF
        yield state >> 8


def long_animation():
    rnd = lcg(0x6B616E)
    frames = 500
    tracks = []
    for bone in range(1, 61):
        # rotation for every bone; scale and translation on every tenth
        for typ in range(9) if bone % 10 == 1 else range(3):
            channel = ("rotation", "scale", "translation")[typ // 3]
            step = 10 + (bone + typ) % 4 * 5  # keys every 10..25 frames
            times = list(range(0, frames, step)) + [frames - 1]
            raw = []
            for _ in times:
                r = next(rnd) % 2001 - 1000  # -1000..1000
                if channel == "rotation":
                    raw.append(r * 8)  # +-125 degrees in 1/64 units
                elif channel == "scale":
                    raw.append(64 + r // 40)
                else:
                    raw.append(r * 2)
            vals = [v / 64.0 for v in raw]
            if channel == "rotation":
                unit = 3.141592653589793 / 180.0
                vals = [v * unit for v in vals]
            else:
                unit = 1.0
            if typ % 2 == 0:
                # Catmull-Rom through the keys (tangents from the neighbours,
                # as the game computes them with both flags set)
                n = len(times)
                ins, outs = [], []
                for i in range(n):
                    prev = vals[i - 1] if i > 0 else vals[i]
                    nxt = vals[i + 1] if i + 1 < n else vals[i]
                    if i + 1 < n:
                        outs.append((vals[i + 1] - prev) / 2 / (times[i + 1] - times[i]))
                    else:
                        outs.append(0.0)
                    if i > 0:
                        ins.append((nxt - vals[i - 1]) / 2 / (times[i] - times[i - 1]))
                    else:
                        ins.append(0.0)
                # the last key: the post-roll the game draws with its flag set
                outs[-1] = (vals[-1] - vals[-2]) / 2
                tr = gameanim.Track(bone, channel, typ % 3, times + [times[-1] + 1], vals + [vals[-1]],
                                    ins + [0.0], outs + [0.0], [2] * n + [1])
                if times[0] > 0:
                    raise AssertionError("keys start at frame 0")
            else:
                tr = gameanim.Track(bone, channel, typ % 3, times, vals, interpolation=1)
            tracks.append(tr)
    anim = gameanim.Animation("bk", tracks, frame_count=frames, start_frame=0)
    return anim.to_bytes()


def generate():
    feat = features()
    return {
        "bk/features.bin": feat,
        "bk/features_rarezip.bin": gameanim.compress("rarezip", feat),
        "bk/long.bin": long_animation(),
    }
