"""JBA samples (SWTOR skeletal animation), made by gameanim's own encoder.

Every file is synthetic: smooth made-up motion on made-up skeletons.  The
set covers both layouts (legacy 32-bit and JAWB v2), several sections,
bones with and without translation keys, root motion, a file without
channel names, a one-frame clip, sections where a bone's translation has
keys in some sections only, and a 106-bone x 300-frame clip.
"""
import math

import gameanim

T = gameanim.Track


def _axis_angle(axis, angle):
    n = math.sqrt(sum(c * c for c in axis))
    s = math.sin(angle / 2.0)
    return (math.cos(angle / 2.0), axis[0] / n * s, axis[1] / n * s, axis[2] / n * s)


def _qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


def _bone_tracks(target, frames, rot, trans):
    """rot(f) -> (w, x, y, z); trans(f) -> (x, y, z)."""
    times = list(range(frames))
    qs = [rot(f) for f in times]
    ts = [trans(f) for f in times]
    out = [T(target, "rotation_quaternion", a, times, [q[a] for q in qs]) for a in range(4)]
    out += [T(target, "translation", a, times, [t[a] for t in ts]) for a in range(3)]
    return out


def _walk(frames, fps, bones, seed, moving=None):
    """A made-up cycle: every bone swings about its own axis; some bones
    move (translation keys), the others hold a rest offset (no keys).
    moving(i) says which bones move (default: all but every third)."""
    tracks = []
    span = max(frames - 1, 1)
    for i, name in enumerate(bones):
        phase = 0.37 * i + seed
        axis = (math.sin(1.3 * i + seed) + 1.2, math.cos(0.7 * i) * 0.8, 0.45 + 0.1 * (i % 5))
        amp = 0.35 + 0.05 * (i % 7)
        rest = (0.0, 1.5 * (i % 4), 12.0 + 2.0 * (i % 3)) if i else (0.0, 0.0, 0.0)

        def rot(f, axis=axis, amp=amp, phase=phase, i=i):
            q = _axis_angle(axis, amp * math.sin(2.0 * math.pi * f / span * 1.5 + phase))
            if i == 0:
                # the root channel ("GOD") turns the character round: w < 0 half the time
                q = _qmul(_axis_angle((0.0, 0.0, 1.0), math.pi * (1.0 + 0.8 * f / span)), q)
            return q

        if not (moving(i) if moving else i % 3 != 1):
            def trans(f, rest=rest):  # constant: no translation keys in the file
                return rest
        else:
            def trans(f, rest=rest, phase=phase):
                s = math.sin(2.0 * math.pi * f / span + phase)
                return (rest[0] + 3.0 * s, rest[1] + 1.5 * math.cos(phase + f * 0.11), rest[2] + 0.75 * s * s)
        tracks += _bone_tracks(name, frames, rot, trans)
    # root motion: walking forward along -Y (Morpheme, cm) while turning a little
    tracks += _bone_tracks(
        "__root_motion__",
        frames,
        lambda f: _axis_angle((0.0, 0.0, 1.0), 0.4 * f / span),
        lambda f: (2.0 * math.sin(f * 0.05), -140.0 * f / fps, 0.0),
    )
    return tracks


def _encode(tracks, frames, fps, layout):
    anim = gameanim.Animation("jba", tracks, frame_count=frames - 1, fps=fps, layout=layout)
    return anim.to_bytes()


SKELETON = ["GOD", "Bip01", "Bip01 Pelvis", "Bip01 Spine", "Bip01 L Thigh", "Bip01 R Thigh"]


def _humanoid_names(n):
    names = ["GOD", "Bip01", "Bip01 Pelvis", "Bip01 Spine", "Bip01 Spine1", "Bip01 Spine2", "Bip01 Neck",
             "Bip01 Head"]
    sides = ["L", "R"]
    parts = ["Clavicle", "UpperArm", "Forearm", "Hand", "Finger0", "Finger01", "Finger02", "Finger1", "Finger11",
             "Finger12", "Finger2", "Finger21", "Finger22", "Thigh", "Calf", "Foot", "Toe0"]
    for side in sides:
        for p in parts:
            names.append(f"Bip01 {side} {p}")
    i = 0
    while len(names) < n:
        names.append(f"fc_bone{i:02d}")
        i += 1
    return names[:n]


def _mixed_keyless():
    """A bone whose translation has keys in one section only, with a
    non-zero stride: the value of the other sections depends on the keyless
    rule (here 'base', the default)."""
    frames, fps = 97, 30  # 96 steps: sections start at 0, 32, 64
    tracks = _walk(frames, fps, SKELETON[:4], 0.5)
    anim = gameanim.load(_encode(tracks, frames, fps, 32))
    t = anim.find("Bip01", "translation", 0)  # constant in the file: no keys anywhere
    values = list(t.values)
    for f in range(41, 56):  # inside the second section only (frames 32..64)
        values[f] += 4.0 * math.sin(math.pi * (f - 40) / 16.0)
    t.values = values
    return anim.to_bytes()


def generate():
    out = {}
    walk = _walk(100, 30, SKELETON, 0.0)
    out["jba/legacy_walk.jba"] = _encode(walk, 100, 30, 32)
    out["jba/jawb_walk.jba"] = _encode(walk, 100, 30, 64)
    # 64-bit without a name table: channels are indices
    unnamed = []
    for t in _walk(46, 15, ["a", "b", "c", "d", "e"], 1.0):
        target = t.target if t.target == "__root_motion__" else "abcde".index(t.target)
        unnamed.append(T(target, t.channel, t.axis, t.times, t.values))
    out["jba/jawb_unnamed.jba"] = _encode(unnamed, 46, 15, 64)
    out["jba/legacy_single_frame.jba"] = _encode(_walk(1, 30, SKELETON[:2], 2.0), 1, 30, 32)
    out["jba/legacy_mixed_keyless.jba"] = _mixed_keyless()
    # as in game clips, most bones only rotate: translation keys for the
    # root, pelvis and every eighth bone
    humanoid = _walk(300, 30, _humanoid_names(106), 0.25, moving=lambda i: i < 3 or i % 8 == 5)
    out["jba/legacy_humanoid_106x300.jba"] = _encode(humanoid, 300, 30, 32)
    return out
