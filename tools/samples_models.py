"""Model samples: one small figure per model family, with animations for
it, made by the project's own writers (tools/make_models.py for the models,
gameanim's encoders for the animations).

* models/j3d/figure_maya.bmd: a 19-joint figure (hips, spine, chest, neck,
  head, two arms, two legs) under the Maya rule, with a non-uniformly scaled
  chest whose children compensate its scale; figure_maya_walk.bck and
  figure_maya_wave.bck.
* models/j3d/figure_basic.bdl: the same figure under the Basic rule with
  rest rotations on the shoulders and hips; figure_basic_walk.bck.
* models/sm64ds/figure.bmd: the figure as an SM64DS bone table;
  figure_walk.bca.
* models/bk/figure.bin: the figure as a Banjo-Kazooie model bone table
  (pivots, bone IDs 1..19); figure_walk.bin (deltas about the pivots).

Deterministic: integer arithmetic and exact fractions only (no libm), no
clocks.  Everything under samples/models/ goes together (a model with its
animations); the animation-only sample tests leave that folder out.
"""
import math
import os
import sys

import gameanim

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_models  # noqa: E402  (tools/make_models.py)

PI = math.pi
J3D_ROT = PI / 32768.0  # radians per s16 unit (65536 per turn)

# name, parent, translation (game units, Y up, Z forward), rest rotation
# (s16, 65536 per turn: X, Y, Z), rest scale
FIGURE = [
    ("hips", -1, (0, 95, 0), (0, 0, 0), (1, 1, 1)),
    ("spine", 0, (0, 12, 0), (0, 0, 0), (1, 1, 1)),
    ("chest", 1, (0, 18, 0), (0, 0, 0), (1, 1, 1)),
    ("neck", 2, (0, 16, 0), (0, 0, 0), (1, 1, 1)),
    ("head", 3, (0, 9, 0), (0, 0, 0), (1, 1, 1)),
    ("shoulder_L", 2, (7, 12, 0), (0, 0, 0), (1, 1, 1)),
    ("upperarm_L", 5, (9, 0, 0), (0, 0, -0x1800), (1, 1, 1)),
    ("forearm_L", 6, (24, 0, 0), (0, 0, 0), (1, 1, 1)),
    ("hand_L", 7, (20, 0, 0), (0, 0, 0), (1, 1, 1)),
    ("shoulder_R", 2, (-7, 12, 0), (0, 0, 0), (1, 1, 1)),
    ("upperarm_R", 9, (-9, 0, 0), (0, 0, 0x1800), (1, 1, 1)),
    ("forearm_R", 10, (-24, 0, 0), (0, 0, 0), (1, 1, 1)),
    ("hand_R", 11, (-20, 0, 0), (0, 0, 0), (1, 1, 1)),
    ("thigh_L", 0, (9, -4, 0), (0, 0, 0), (1, 1, 1)),
    ("shin_L", 13, (0, -42, 0), (0, 0, 0), (1, 1, 1)),
    ("foot_L", 14, (0, -40, 0), (0, 0, 0), (1, 1, 1)),
    ("thigh_R", 0, (-9, -4, 0), (0, 0, 0), (1, 1, 1)),
    ("shin_R", 16, (0, -42, 0), (0, 0, 0), (1, 1, 1)),
    ("foot_R", 17, (0, -40, 0), (0, 0, 0), (1, 1, 1)),
]
JOINT = {name: j for j, (name, *_rest) in enumerate(FIGURE)}


def figure(chest_scale=None, rest_turns=False):
    """The figure's joints as dicts: name, parent, translation, rot_raw (s16),
    scale, scale_compensate.  chest_scale: a rest scale on the chest (its
    children then compensate it, as Maya's segment-scale compensation
    does).  rest_turns: rest rotations on the shoulders and thighs too."""
    out = []
    for name, parent, t, r, s in FIGURE:
        r = list(r)
        if rest_turns and name.startswith("shoulder"):
            r[1] = 0x0400 if name.endswith("L") else -0x0400
        if rest_turns and name.startswith("thigh"):
            r[0] = 0x0200
        scale = tuple(chest_scale) if chest_scale and name == "chest" else s
        out.append({"name": name, "parent": parent, "translation": tuple(float(v) for v in t),
                    "rot_raw": tuple(r), "scale": tuple(float(v) for v in scale),
                    "scale_compensate": bool(chest_scale) and parent == JOINT["chest"]})
    return out


# ---------------------------------------------------------------------------
# Motions: (joint, channel, axis) -> [(frame, value)] keys; value in s16
# rotation units (65536 per turn) for rotations, game units / factors else.

def walk_keys(length):
    """A walk cycle: legs and arms swing about X in opposition, knees and
    elbows bend, the hips bob and sway, the head nods."""
    q = length // 4
    swing, knee, arm, elbow = 0x1400, 0x1800, 0x1000, 0x0C00
    keys = {
        (JOINT["thigh_L"], "rotation", 0): [(0, -swing), (2 * q, swing), (length, -swing)],
        (JOINT["thigh_R"], "rotation", 0): [(0, swing), (2 * q, -swing), (length, swing)],
        (JOINT["shin_L"], "rotation", 0): [(0, 0), (q, knee), (2 * q, 0), (length, 0)],
        (JOINT["shin_R"], "rotation", 0): [(0, 0), (2 * q, 0), (3 * q, knee), (length, 0)],
        (JOINT["upperarm_L"], "rotation", 1): [(0, arm), (2 * q, -arm), (length, arm)],
        (JOINT["upperarm_R"], "rotation", 1): [(0, arm), (2 * q, -arm), (length, arm)],
        (JOINT["forearm_L"], "rotation", 1): [(0, elbow), (2 * q, 0), (length, elbow)],
        (JOINT["forearm_R"], "rotation", 1): [(0, 0), (2 * q, -elbow), (length, 0)],
        (JOINT["hips"], "translation", 1): [(0, 95), (q, 98), (2 * q, 95), (3 * q, 98), (length, 95)],
        (JOINT["hips"], "rotation", 1): [(0, 0x0300), (2 * q, -0x0300), (length, 0x0300)],
        (JOINT["chest"], "rotation", 1): [(0, -0x0400), (2 * q, 0x0400), (length, -0x0400)],
        (JOINT["head"], "rotation", 0): [(0, 0), (q, 0x0300), (2 * q, 0), (3 * q, 0x0300), (length, 0)],
    }
    return keys


def wave_keys(length):
    """The right arm rises and the hand waves; the figure leans."""
    h = length // 2
    keys = {
        (JOINT["upperarm_R"], "rotation", 2): [(0, 0x1800), (h // 2, -0x2800), (length - h // 2, -0x2800),
                                              (length, 0x1800)],
        (JOINT["forearm_R"], "rotation", 2): [(0, 0), (h // 2, -0x1800), (h, -0x0800), (h + h // 2, -0x1800),
                                             (length, 0)],
        (JOINT["hand_R"], "rotation", 1): [(0, 0), (h // 2, 0x1000), (h, -0x1000), (h + h // 2, 0x1000),
                                          (length, 0)],
        (JOINT["spine"], "rotation", 2): [(0, 0), (h, 0x0400), (length, 0)],
        (JOINT["head"], "rotation", 1): [(0, 0), (h, -0x0800), (length, 0)],
    }
    return keys


def breathe_keys(length, chest_scale):
    """The chest's scale breathes (non-uniformly: what scale compensation
    is for)."""
    sx, sy, sz = chest_scale
    h = length // 2
    return {(JOINT["chest"], "scale", 0): [(0, sx), (h, sx * 1.125), (length, sx)],
            (JOINT["chest"], "scale", 2): [(0, sz), (h, sz * 1.25), (length, sz)],
            (JOINT["chest"], "scale", 1): [(0, sy), (length, sy)]}


def rest_value(joint, channel, axis):
    if channel == "scale":
        return joint["scale"][axis]
    if channel == "rotation":
        return joint["rot_raw"][axis]
    return joint["translation"][axis]


def hermite_slopes(keys):
    """Catmull-Rom-like slopes from the neighbours (exact fractions of the
    key values; flat at the ends)."""
    n = len(keys)
    out = []
    for i in range(n):
        if i == 0 or i == n - 1:
            out.append(0.0)
        else:
            (t0, v0), (t1, v1) = keys[i - 1], keys[i + 1]
            out.append((v1 - v0) / (t1 - t0))
    return out


def bck(joints, keys, length):
    """A BCK of every joint's nine channels: the animated ones from keys,
    the others constant at the rest values (a BCK replaces the rest)."""
    import warnings

    tracks = []
    for j, joint in enumerate(joints):
        for channel in ("scale", "rotation", "translation"):
            unit = J3D_ROT if channel == "rotation" else 1.0
            for axis in range(3):
                ks = keys.get((j, channel, axis))
                if ks is None:
                    tracks.append(gameanim.Track(j, channel, axis, [0.0], [rest_value(joint, channel, axis) * unit],
                                                 interpolation=gameanim.CONSTANT))
                    continue
                slopes = [s * unit for s in hermite_slopes(ks)]
                tracks.append(gameanim.Track(j, channel, axis, [float(t) for t, _v in ks], [v * unit for _t, v in ks],
                                             slopes, slopes, interpolation=gameanim.BEZIER))
    anim = gameanim.Animation("bck", tracks, frame_count=length, loop="loop", rotation_frac=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        return anim.to_bytes()


def per_frame(ks, length):
    """Integer values at every frame 0..length-1 from (frame, value) keys,
    by integer linear interpolation (floor)."""
    out = []
    for f in range(length):
        for (t0, v0), (t1, v1) in zip(ks, ks[1:]):
            if t0 <= f <= t1:
                out.append(v0 + (v1 - v0) * (f - t0) // (t1 - t0))
                break
        else:
            out.append(ks[-1][1])
    return out


def bca(joints, keys, length):
    """An SM64DS BCA of every bone: 20.12 scale and translation, 4096 per
    turn rotation (the figure's s16 rotations / 16), per frame."""
    tracks = []
    for j, joint in enumerate(joints):
        for channel in ("scale", "rotation", "translation"):
            for axis in range(3):
                ks = keys.get((j, channel, axis))
                if channel == "rotation":
                    unit = 2 * PI / 4096
                    ints = per_frame([(t, v // 16) for t, v in ks], length) if ks else \
                        [joint["rot_raw"][axis] // 16]
                else:
                    unit = 1 / 4096
                    fixed = (lambda v: int(v * 4096 // 16)) if channel == "translation" else \
                        (lambda v: int(v * 4096))
                    ints = per_frame([(t, fixed(v)) for t, v in ks], length) if ks else \
                        [fixed(rest_value(joint, channel, axis))]
                if len(set(ints)) == 1:
                    tracks.append(gameanim.Track(j, channel, axis, [0.0], [ints[0] * unit], interpolation=0))
                else:
                    tracks.append(gameanim.Track(j, channel, axis, list(range(len(ints))), [v * unit for v in ints],
                                                 interpolation=1))
    return gameanim.Animation("bca", tracks, frame_count=length, loop="loop").to_bytes()


def bk_anim(keys, length, bone_ids):
    """A Banjo-Kazooie animation: deltas from the rest (rotation in degrees
    / 64 steps on the file grid, translation in units), linear keys."""
    tracks = []
    for (j, channel, axis), ks in sorted(keys.items()):
        if channel == "scale":
            continue
        if channel == "rotation":
            # s16 units -> 1/64 degree steps (exact: 65536 / 360 is not an
            # integer, so round to the file's grid first)
            vals = [round(v * 360 * 64 / 65536) / 64 * PI / 180 for _t, v in ks]
        else:
            rest = FIGURE[j][2][axis]
            vals = [float(v - rest) for _t, v in ks]
        tracks.append(gameanim.Track(bone_ids[j], channel, axis, [float(t) for t, _v in ks], vals, interpolation=1))
    return gameanim.Animation("bk", tracks, frame_count=length + 1, start_frame=0).to_bytes()


def j3d_file(joints, calc, kind):
    return make_models.write_j3d_model(
        [make_models.joint(j["name"], scale=j["scale"], rotation_raw=j["rot_raw"], translation=j["translation"],
                           scale_compensate=1 if j["scale_compensate"] else 0xFF) for j in joints],
        parents=[j["parent"] for j in joints], calc=calc, kind=kind)


def sm64ds_file(joints):
    """The figure at 1/16 of the J3D size (SM64DS units are larger), its
    rotations at 4096 per turn."""
    return make_models.write_sm64ds_bmd([
        make_models.sm64ds_bone(j["name"], j["parent"], rotation_raw=tuple(r // 16 for r in j["rot_raw"]),
                                translation_fixed=tuple(int(v * 4096 // 16) for v in j["translation"]))
        for j in joints])


def pivots(joints):
    """Model-space joint positions of a figure without rest rotations."""
    out = []
    for j in joints:
        p = out[j["parent"]] if j["parent"] >= 0 else (0.0, 0.0, 0.0)
        out.append(tuple(a + b for a, b in zip(p, j["translation"])))
    return out


def bk_file(joints, bone_ids):
    return make_models.write_bk_model([(pivot, bone_ids[i], j["parent"])
                                       for i, (pivot, j) in enumerate(zip(pivots(joints), joints))])


def generate():
    out = {}
    chest = (1.25, 1.0, 1.125)
    maya = figure(chest_scale=chest)
    out["models/j3d/figure_maya.bmd"] = j3d_file(maya, "maya", "bmd")
    walk = {**walk_keys(40), **breathe_keys(40, chest)}
    out["models/j3d/figure_maya_walk.bck"] = bck(maya, walk, 40)
    out["models/j3d/figure_maya_wave.bck"] = bck(maya, wave_keys(48), 48)

    basic = figure(rest_turns=True)
    out["models/j3d/figure_basic.bdl"] = j3d_file(basic, "basic", "bdl")
    out["models/j3d/figure_basic_walk.bck"] = bck(basic, walk_keys(32), 32)

    plain = figure()
    out["models/sm64ds/figure.bmd"] = sm64ds_file(plain)
    out["models/sm64ds/figure_walk.bca"] = bca(plain, walk_keys(32), 32)

    ids = [j + 1 for j in range(len(plain))]
    out["models/bk/figure.bin"] = bk_file(plain, ids)
    out["models/bk/figure_walk.bin"] = bk_anim(walk_keys(40), 40, ids)
    return out
