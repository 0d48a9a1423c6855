#!/usr/bin/env python3
"""Fuzz target: gameanim.load_model and Model.world_matrices on models
written by tools/make_models.py (random joints, hierarchies, remap tables,
names, rules, optionally compressed) and then damaged at random bytes.  A
model that loads must have parents in range with no cycle, as many bones as
its world_matrices rows, and world_matrices must take the animation of the
model's family and refuse the others (fuzz/python/_fuzzlib.py says what a
finding is).
    python3 fuzz/python/fuzz_model.py -max_total_time=30      (atheris)
    python3 fuzz/python/fuzz_model.py --plain 300              (no atheris)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import _fuzzlib as F  # noqa: E402
import gameanim  # noqa: E402
import make_models as mm  # noqa: E402

FAMILY_ANIMATION = {"j3d": "bck", "sm64ds": "bca", "bk": "bk"}


def random_parents(inp, n):
    """-1 or an earlier index for each bone (a valid tree)."""
    return [-1 if i == 0 or inp.int(0, 4) == 0 else inp.int(0, i - 1) for i in range(n)]


def random_model(inp):
    family = inp.choice(("j3d", "sm64ds", "bk"))
    n = inp.int(1, 12)
    parents = random_parents(inp, n)
    if family == "j3d":
        joints = [mm.joint(f"j{i}", scale=tuple(inp.choice((1.0, 2.0, 0.5, -1.0, 0.0)) for _ in range(3)),
                           rotation_raw=tuple(inp.int(-32768, 32767) for _ in range(3)),
                           translation=tuple(inp.int(-100, 100) / 4 for _ in range(3)),
                           scale_compensate=inp.choice((0, 1, 0xFF)), kind=inp.int(0, 0x12))
                  for i in range(n)]
        remap = [inp.int(0, n - 1) for _ in range(n)] if inp.bool() else None
        data = mm.write_j3d_model(joints, parents, calc=inp.choice(("basic", "softimage", "maya")), remap=remap,
                                  with_shapes=inp.bool(), kind=inp.choice(("bmd", "bdl")))
        wrapper = inp.choice((None, "yaz0", "yay0"))
    elif family == "sm64ds":
        bones = [mm.sm64ds_bone(f"b{i}", parents[i], rotation_raw=tuple(inp.int(-4096, 4096) for _ in range(3)),
                                translation_fixed=tuple(inp.int(-40960, 40960) for _ in range(3)))
                 for i in range(n)]
        data = mm.write_sm64ds_bmd(bones, inp.int(0, 8))
        wrapper = inp.choice((None, "lz77"))
    else:
        data = mm.write_bk_model([(tuple(inp.int(-100, 100) for _ in range(3)), inp.int(0, 0x6C), parents[i])
                                  for i in range(n)], inp.choice((1.0, 45.0, 0.0)))
        wrapper = inp.choice((None, "rarezip"))
    return family, data, wrapper


def body(inp):
    family, data, wrapper = random_model(inp)
    data = bytearray(data)
    for _ in range(inp.int(0, 2) if inp.int(0, 2) == 0 else 0):  # damage, in one input of three
        if data:
            data[inp.int(0, len(data) - 1)] = inp.int(0, 255)
    if inp.int(0, 15) == 15:  # (a run-out input, all zeros, keeps the whole file)
        data = data[:inp.int(0, len(data))]
    blob = bytes(data)
    if wrapper:
        blob = gameanim.compress(wrapper, blob)
    m = gameanim.load_model(blob)
    n = len(m.bones)
    for b in m.bones:
        F.check(-1 <= b.parent < n and b.parent != b.index, f"bone {b.index}: parent {b.parent} of {n}")
        p, steps = b.parent, 0
        while p >= 0:
            steps += 1
            F.check(steps <= n, f"bone {b.index}: parents form a cycle")
            p = m.bones[p].parent
    frames = [inp.float() for _ in range(inp.int(0, 3))] if inp.bool() else inp.float()
    own = FAMILY_ANIMATION[m.family]
    other = inp.choice(tuple(f for f in ("bck", "btk", "bca", "bk", "jba") if f != own))
    try:
        m.world_matrices(gameanim.Animation(other), frames)
    except ValueError:
        pass
    else:
        F.check(False, f"world_matrices took a {other} animation on a {m.format} model")
    tracks = [inp.track(own) for _ in range(inp.int(0, 3))]
    anim = gameanim.Animation(own, tracks, frame_count=inp.int(0, 60))
    out = m.world_matrices(anim if inp.bool() else None, frames)
    count = len(frames) if isinstance(frames, list) else 1
    F.check(len(out) == count * n * 16, f"world_matrices gave {len(out)} floats for {count} frames x {n} bones")


if __name__ == "__main__":
    F.main(body, "fuzz_model")
