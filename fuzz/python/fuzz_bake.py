#!/usr/bin/env python3
"""Fuzz target: bake_pose (random rigs: bones with random matrices, None or
bad shapes, random frames and scales), evaluate_fcurve (random buffers,
interpolation codes, extrapolation) and local_from_basis (random pre / post
matrices, channels and rotation modes).  Checks the shapes of what they
return (fuzz/python/_fuzzlib.py says what a finding is).
    python3 fuzz/python/fuzz_bake.py -max_total_time=30      (atheris)
    python3 fuzz/python/fuzz_bake.py --plain 300              (no atheris)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _fuzzlib as F  # noqa: E402
import gameanim  # noqa: E402

SAMPLES = F.samples()
MODES = ("QUATERNION", "AXIS_ANGLE", "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "", "xyz", "XYZW", "QUATERNION\0")


def nframes(frames):
    if isinstance(frames, (int, float)):
        return 1
    return len(frames)


def frames_of(inp):
    return inp.floats(inp.size(6)) if inp.byte() % 4 else inp.float()


def bake(inp):
    if inp.bool() and SAMPLES:
        anim = gameanim.load(inp.choice(SAMPLES))
    else:
        tracks = []
        fmt = inp.choice(F.FORMATS)
        for _ in range(inp.int(0, 8)):
            try:
                tracks.append(inp.track(fmt))
            except F.ALLOWED:
                pass
        anim = gameanim.Animation(fmt, tracks, frame_count=inp.float())
    targets = [t.target for t in anim.tracks[:8]]
    bones = []
    for _ in range(inp.int(0, 5)):
        k = inp.byte() % 16
        target = inp.choice(targets) if targets and k < 8 else inp.target(anim.format)
        if k == 15:
            bones.append(inp.choice(((target,), (target, None), [target, None, None], target, None,
                                     (target, None, None, None))))
        else:
            bones.append((target, inp.matrix(), inp.matrix()))
    frames = frames_of(inp)
    args = [anim, bones, frames]
    for _ in range(inp.int(0, 3)):
        args.append(inp.float())
    collapse = inp.bool()
    out = gameanim.bake_pose(*args, collapse=collapse)
    F.check(isinstance(out, list) and len(out) == len(bones), "bake_pose: one result per bone")
    n = nframes(frames)
    for curves in out:
        F.check(len(curves) == 10, "bake_pose: ten buffers per bone")
        for c in curves:
            F.check(c.typecode == "f", "bake_pose: float buffers")
            if collapse:
                F.check(len(c) in (2, 2 * n), f"bake_pose collapse: {len(c)} floats for {n} frames")
            else:
                F.check(len(c) == 2 * n, f"bake_pose: {len(c)} floats for {n} frames")


def fcurve(inp):
    n = inp.size(6)
    co = inp.floats(2 * n if inp.byte() % 8 else inp.size(12))
    left = inp.floats(2 * n if inp.byte() % 8 else inp.size(12))
    right = inp.floats(2 * n if inp.byte() % 8 else inp.size(12))
    interp = inp.codes(n)
    frames = frames_of(inp)
    args = [co, left, right, interp, frames]
    if inp.bool():
        args.append(inp.choice(("CONSTANT", "LINEAR", "", "constant", None, 1, "LINEAR\0")))
    slopes = inp.bool()
    out = gameanim.evaluate_fcurve(*args, slopes=slopes)
    m = nframes(frames)
    if slopes:
        F.check(len(out) == 3 and all(len(o) == m for o in out), "evaluate_fcurve(slopes=True): shapes")
    else:
        F.check(len(out) == m, f"evaluate_fcurve: {len(out)} values for {m} frames")


def channels(inp, count, n):
    if inp.byte() % 16 == 0:
        count = inp.int(0, 5)
    return [inp.floats(n if inp.byte() % 8 else inp.size(6)) for _ in range(count)]


def local(inp):
    n = inp.size(6)
    mode = inp.choice(MODES) if inp.byte() % 8 else inp.text()
    rot = 4 if mode in ("QUATERNION", "AXIS_ANGLE") else 3
    args = [inp.matrix(), inp.matrix(), channels(inp, 3, n), channels(inp, rot, n), channels(inp, 3, n), mode]
    if inp.bool():
        args.append(inp.float())
    out = gameanim.local_from_basis(*args)
    F.check(set(out) == {"translation", "euler", "quaternion", "scale", "skew"}, f"keys {sorted(out)}")
    m = len(out["translation"][0])
    for key, parts in (("translation", 3), ("euler", 3), ("quaternion", 4), ("scale", 3)):
        F.check(len(out[key]) == parts and all(len(a) == m for a in out[key]), f"local_from_basis: {key} shape")
    F.check(len(out["skew"]) == 2, "skew is (difference, frame)")


def body(inp):
    k = inp.byte() % 3
    (bake, fcurve, local)[k](inp)


if __name__ == "__main__":
    F.main(body, "fuzz_bake")
