"""Benchmark animations, built with our own encoders (deterministic, no
random state shared with anything else).

The large animation: 100 bones x 1000 frames of smooth motion (sums of
sines with per-bone phases), so key reduction has something to reduce:

* every bone rotates on all three axes (radians, within +-1.2);
* every tenth bone (and the root) also translates; the others hold a
  constant offset; scale is 1 except on every twentieth bone, which
  pulses gently.

`large_tracks()` gives per-frame LINEAR tracks (frames 0..1000, both ends);
`large_file(fmt)` encodes them:

* bck: J3D joint animation, Hermite keys fitted within `BCK_TOLERANCE`
  (a dense per-frame BCK of this size cannot exist: J3D value tables hold
  at most 65536 elements);
* bca: SM64DS, one value per frame.  Its pools are indexed by u16, so at
  most 65536 rotation values: 300 animated rotation channels fit only up
  to 218 frames.  `large_file("bca")` therefore has `BCA_FRAMES` frames
  (100 bones x 200 frames) and the 1000-frame BCA is reported as an
  EncodeError;
* bk:  Banjo-Kazooie, LINEAR keys every `BK_STEP` frames (the game's linear
  segments: both key flags clear), values on its 1/64 grid;
* jba: SWTOR, one quaternion per frame (the Euler XYZ angles converted),
  translations per frame; JBA stores no scale.

`bulk_files(n)` makes the mixed set for the bulk import: small files of
every format (10-40 bones, 20-120 frames) cycling through bck, bca, bk,
jba and btk.
"""
import math
import os
import platform
import warnings

import gameanim

BONES = 100
FRAMES = 1000
BCK_TOLERANCE = 1e-3
BK_STEP = 10
BCA_FRAMES = 200
PI = math.pi


def _wave(b, ch, axis, f, frames):
    """The smooth value of bone b, channel ch, axis at frame f."""
    x = f / frames * 2.0 * PI
    ph = 0.37 * b + 1.3 * axis + 0.11 * ch
    if ch == 1:  # rotation, radians
        return 0.6 * math.sin(2 * x + ph) + 0.35 * math.sin(5 * x + 2 * ph) + 0.15 * math.sin(11 * x + ph * 0.5)
    if ch == 2:  # translation
        return 4.0 * math.sin(x + ph) + 1.5 * math.sin(3 * x + ph * 0.7)
    return 1.0 + 0.2 * math.sin(3 * x + ph)  # scale


def bone_channels(b):
    """{channel index: animated?} for bone b (0 scale, 1 rotation, 2 translation)."""
    return {0: b % 20 == 0, 1: True, 2: b % 10 == 0}


def bone_names(n):
    return [f"bone_{i:03d}" for i in range(n)]


def large_tracks(bones=BONES, frames=FRAMES, quaternions=False, named=False, scale=True):
    """Per-frame tracks (LINEAR keys at frames 0..frames).  Constant
    channels are one key.  quaternions: rotation as w, x, y, z (from the
    Euler XYZ angles, sign-continuous) instead of Euler angles."""
    names = bone_names(bones)
    times = [float(f) for f in range(frames + 1)]
    tracks = []
    for b in range(bones):
        target = names[b] if named else b
        anim = bone_channels(b)
        for ch, chname in ((0, "scale"), (1, "rotation"), (2, "translation")):
            if (ch == 1 and quaternions) or (ch == 0 and not scale):
                continue
            for axis in range(3):
                if anim[ch]:
                    vals = [_wave(b, ch, axis, f, frames) for f in range(frames + 1)]
                    tracks.append(gameanim.Track(target, chname, axis, times, vals,
                                                 interpolation=[1] * len(times)))
                else:
                    v = 1.0 if ch == 0 else (0.0 if ch == 1 else 2.0 * axis + 0.25 * b)
                    tracks.append(gameanim.Track(target, chname, axis, [0.0], [v], interpolation=[1]))
        if quaternions:
            qs = []
            prev = None
            for f in range(frames + 1):
                q = quat_from_euler_xyz([_wave(b, 1, a, f, frames) for a in range(3)])
                if prev is not None and sum(x * y for x, y in zip(q, prev)) < 0:
                    q = [-x for x in q]
                qs.append(q)
                prev = q
            for axis in range(4):
                tracks.append(gameanim.Track(target, "rotation_quaternion", axis, times, [q[axis] for q in qs],
                                             interpolation=[1] * len(times)))
    return tracks


def quat_from_euler_xyz(e):
    """Blender's XYZ Euler (X first) as a quaternion w, x, y, z."""
    cx, sx = math.cos(e[0] / 2), math.sin(e[0] / 2)
    cy, sy = math.cos(e[1] / 2), math.sin(e[1] / 2)
    cz, sz = math.cos(e[2] / 2), math.sin(e[2] / 2)
    # q = qz * qy * qx
    w = cz * cy * cx + sz * sy * sx
    x = cz * cy * sx - sz * sy * cx
    y = cz * sy * cx + sz * cy * sx
    z = sz * cy * cx - cz * sy * sx
    return [w, x, y, z]


def _bk_tracks(tracks, step, frames):
    """Banjo-Kazooie: LINEAR keys every `step` frames (and the last frame)
    on the 1/64 grid (degrees for rotations), bone IDs from 1."""
    out = []
    for t in tracks:
        idx = list(range(0, frames + 1, step)) if len(t) > 1 else [0]
        if idx[-1] != frames and len(t) > 1:
            idx.append(frames)
        unit = PI / 180.0 if t.channel == "rotation" else 1.0
        vs = [round(t.values[min(i, len(t) - 1)] / unit * 64) / 64 * unit for i in idx]
        sl = [0.0] * len(idx)
        for k in range(len(idx) - 1):
            sl[k] = (vs[k + 1] - vs[k]) / (idx[k + 1] - idx[k])
        out.append(gameanim.Track(t.target + 1, t.channel, t.axis, [float(i) for i in idx], vs, sl, sl,
                                  [1] * len(idx)))
    return out


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        return fn()


def large_animation(fmt, bones=BONES, frames=FRAMES):
    """The Animation to encode for fmt (not yet encoded)."""
    if fmt == "jba":
        return gameanim.Animation("jba", large_tracks(bones, frames, quaternions=True, named=True, scale=False),
                                  frame_count=frames, fps=30.0)
    tracks = large_tracks(bones, frames)
    if fmt == "bck":
        return gameanim.Animation("bck", tracks, frame_count=frames, loop="loop")
    if fmt == "bca":
        return gameanim.Animation("bca", tracks, frame_count=frames + 1, loop="loop")
    if fmt == "bk":
        return gameanim.Animation("bk", _bk_tracks(tracks, BK_STEP, frames), frame_count=frames + 1,
                                  start_frame=0.0)
    raise ValueError(fmt)


def large_frames(fmt):
    return BCA_FRAMES if fmt == "bca" else FRAMES


def large_file(fmt, bones=BONES, frames=None):
    """The encoded large animation (BCA: LZ77-wrapped, BCA_FRAMES frames)."""
    frames = large_frames(fmt) if frames is None else frames
    anim = large_animation(fmt, bones, frames)
    tol = BCK_TOLERANCE if fmt == "bck" else 0.0
    comp = "lz77" if fmt == "bca" else None
    return _quiet(lambda: anim.to_bytes(compression=comp, tolerance=tol))


def keys_of(data):
    """Keys stored in a file as decoded (sum of track lengths)."""
    return sum(len(t) for t in gameanim.load(data).tracks)


# ---------------------------------------------------------------------------
# The bulk set: many small files of every format

BULK_FORMATS = ("bck", "bca", "bk", "jba", "btk")
BULK_BONES = 40       # the rig of the bulk import has this many bones
BULK_MATERIALS = 10   # and BTK files animate these materials


def bulk_material(i):
    return f"mat_{i:02d}"


def _btk_file(i, frames):
    """A texture-matrix scroll/spin on one or two materials."""
    mats = [bulk_material(i % BULK_MATERIALS)]
    if i % 3 == 0:
        mats.append(bulk_material((i + 1) % BULK_MATERIALS))
    entries = [{"material": m, "texmtx_id": 0, "center": (0.5, 0.5, 0.5)} for m in mats]
    tracks = []
    for e in range(len(mats)):
        times = [float(f) for f in range(0, frames + 1, max(frames // 8, 1))]
        if times[-1] != frames:
            times.append(float(frames))
        for ch, axis, amp in (("translation", 0, 1.0), ("translation", 1, -0.5), ("rotation", 2, 1.0),
                              ("scale", 0, 0.3)):
            vals = [amp * math.sin(t / frames * 2 * PI + e + i) + (1.0 if ch == "scale" else 0.0) for t in times]
            sl = [amp * 2 * PI / frames * math.cos(t / frames * 2 * PI + e + i) for t in times]
            tracks.append(gameanim.Track(e, ch, axis, times, vals, sl, sl, [2] * len(times)))
    anim = gameanim.Animation("btk", tracks, frame_count=frames, loop="loop", entries=entries,
                              calc_type="basic")
    return _quiet(lambda: anim.to_bytes(compression="yaz0" if i % 2 else None))


def bulk_files(n=500):
    """[(file name, bytes)] of n small files cycling through the formats:
    10-40 bones (BCK, BCA, Banjo-Kazooie, JBA) or 1-2 materials (BTK),
    20-120 frames."""
    out = []
    for i in range(n):
        fmt = BULK_FORMATS[i % len(BULK_FORMATS)]
        bones = 10 + (i * 7) % (BULK_BONES - 9)
        frames = 20 + (i * 37) % 101
        if fmt == "btk":
            out.append((f"f{i:03d}.btk", _btk_file(i, frames)))
            continue
        anim = large_animation(fmt, bones, frames)
        tol = BCK_TOLERANCE if fmt == "bck" else 0.0
        comp = {"bca": "lz77", "bk": "rarezip" if i % 2 else None}.get(fmt)
        data = _quiet(lambda: anim.to_bytes(compression=comp, tolerance=tol))
        ext = {"bk": ".anim.bin"}.get(fmt, "." + fmt)
        out.append((f"f{i:03d}{ext}", data))
    return out


def machine():
    """The machine a figure was measured on: CPU, cores, RAM, OS."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f", {int(line.split()[1]) // 1024 // 1024} GiB RAM"
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores{mem}, {platform.system()} {platform.release()}"


# ---------------------------------------------------------------------------
# A model with many animations (issue 19: a rig from a model file)

MODEL_JOINTS = 42
MODEL_ANIMATIONS = 300
MODEL_FRAMES = 60


def model_parents(n=MODEL_JOINTS):
    """A figure-like tree: a spine of 6 from the root, then limbs of 4
    joints hanging from the spine in turn."""
    parents = [-1] + list(range(5))  # root + spine
    while len(parents) < n:
        base = 1 + (len(parents) // 4) % 5
        limb = min(4, n - len(parents))
        for k in range(limb):
            parents.append(base if k == 0 else len(parents) - 1)
    return parents


def model_rest_translation(j):
    return (0.0, 0.0, 0.0) if j == 0 else (float((j % 3) - 1) * 4.0, 10.0, float(j % 2) * 2.0)


def model_file(n=MODEL_JOINTS):
    """A J3D BMD (Basic rule, unit scales, no rest rotations) of n joints,
    written by tools/make_models.py."""
    import sys

    tools = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    import make_models

    parents = model_parents(n)
    joints = [make_models.joint(f"joint{j:02d}", translation=model_rest_translation(j)) for j in range(n)]
    return make_models.write_j3d_model(joints, parents=parents, calc="basic", kind="bmd")


def model_animation(i, n=MODEL_JOINTS, frames=MODEL_FRAMES):
    """The i-th BCK of the model: every joint rotates on three axes (5
    Hermite keys each); scale and translation hold the rest values."""
    tracks = []
    for j in range(n):
        for a in range(3):
            tracks.append(gameanim.Track(j, "scale", a, [0.0], [1.0], interpolation=gameanim.CONSTANT))
        for a in range(3):
            times = [0.0, frames * 0.25, frames * 0.5, frames * 0.75, float(frames)]
            values = [0.8 * math.sin(0.37 * i + 0.11 * j + 1.3 * a + 2.1 * k) for k in range(5)]
            values[-1] = values[0]
            tracks.append(gameanim.Track(j, "rotation", a, times, values, [0.0] * 5, [0.0] * 5,
                                         interpolation=gameanim.BEZIER))
        rest = model_rest_translation(j)
        for a in range(3):
            tracks.append(gameanim.Track(j, "translation", a, [0.0], [float(rest[a])],
                                         interpolation=gameanim.CONSTANT))
    anim = gameanim.Animation("bck", tracks, frame_count=frames, loop="loop")
    return _quiet(anim.to_bytes)


MESH_JOINTS = 40
MESH_ROWS, MESH_COLS = 5, 25  # a grid per joint: 40 x 125 = 5,000 vertices


def material_set(count=100, configs=10):
    """`count` 4-stage MAT3 materials of `configs` TEV configurations
    (materials of one configuration differ in their colours only) and the
    two 64x64 textures they sample: (materials, textures) for
    tools/make_models.py."""
    import random
    import sys

    tools = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    import make_models as mm

    rng = random.Random(31)

    def half(alpha):
        n = 8 if alpha else 16
        return (rng.randrange(n), rng.randrange(n), rng.randrange(n), rng.randrange(n), rng.randrange(2), 0,
                rng.randrange(3), 1, rng.randrange(4))

    shapes = [[(half(False), half(True)) for _ in range(4)] for _ in range(configs)]
    materials = []
    for i in range(count):
        materials.append(mm.material(
            f"mat{i:03d}", stages=[(0, k % 2, 4) for k in range(4)], textures=(0, 1), tev=shapes[i % configs],
            konst=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(4)],
            tev_colors=[tuple(rng.randint(-1024, 1023) for _ in range(4)) for _ in range(4)],
            colors=[tuple(rng.randrange(256) for _ in range(4)), None]))
    textures = [mm.texture(f"tex{k}", "I8", 64, 64, bytes((37 * i + k) & 0xFF for i in range(4096)))
                for k in range(2)]
    return materials, textures


def mesh_model_file(n=MESH_JOINTS, materials=None, textures=None):
    """A J3D BMD of n joints in a chain (Basic rule, some rest rotations)
    with a textured, skinned grid of 125 vertices per joint (strips): rows
    0-1 rigid on the joint, rows 2-4 an envelope of the joint and the next
    (the last joint: rigid throughout); inverse binds T(-rest head along
    the chain), so rotated joints get skin bones.  5,000 vertices for 40
    joints.  materials / textures: MAT3 and TEX1 instead of one textured
    material (the shapes draw with material 0)."""
    import sys

    tools = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    import make_models as mm

    joints = [mm.joint(f"joint{j:02d}", translation=(0.0, 0.0 if j == 0 else 2.0, 0.0),
                       rotation_raw=(0, 0, 512 * (j % 3))) for j in range(n)]
    parents = [j - 1 for j in range(n)]
    binds, c, s, ty, tx = [], 1.0, 0.0, 0.0, 0.0  # the inverse of each rest world matrix (Z turns)
    for j in range(n):
        if j:
            tx, ty = tx - 2.0 * s, ty + 2.0 * c  # T(0, 2, 0) in the parent's axes
        a = 2.0 * math.pi * (512 * (j % 3)) / 65536.0
        c, s = c * math.cos(a) - s * math.sin(a), s * math.cos(a) + c * math.sin(a)
        binds.append([c, s, 0.0, -(c * tx + s * ty), -s, c, 0.0, -(-s * tx + c * ty), 0.0, 0.0, 1.0, 0.0])
    envelopes = [[(j, 0.6), (j + 1, 0.4)] for j in range(n - 1)]
    draw = [(0, j) for j in range(n)] + [(1, j) for j in range(n - 1)]
    per = MESH_ROWS * MESH_COLS
    pos, nrm, uvs = [], [], []
    for j in range(n):
        for r in range(MESH_ROWS):
            for c in range(MESH_COLS):
                a = 2.0 * math.pi * c / (MESH_COLS - 1)
                pos.append((math.cos(a), 2.0 * j + 0.5 * r, math.sin(a)))
                nrm.append((math.cos(a), 0.0, math.sin(a)))
                uvs.append((c / (MESH_COLS - 1), r / (MESH_ROWS - 1)))
    arrays = {mm.POS: mm.vertex_array(pos), mm.NRM: mm.vertex_array(nrm), mm.TEX0: mm.vertex_array(uvs)}
    attrs = [(mm.PNMTXIDX, mm.DIRECT), (mm.POS, mm.INDEX16), (mm.NRM, mm.INDEX16), (mm.TEX0, mm.INDEX16)]
    shapes = []
    for j in range(n):
        table = [j] + ([n + j] if j < n - 1 else [])
        strips = []
        for r in range(MESH_ROWS - 1):
            verts = []
            for c in range(MESH_COLS):
                for rr in (r, r + 1):
                    slot = 1 if rr >= 2 and j < n - 1 else 0
                    i = j * per + rr * MESH_COLS + c
                    verts.append((3 * slot, i, i, i))
            strips.append(("strip", verts))
        shapes.append(mm.shape(attrs, [mm.packet(table, strips)], matrix_type=3))
    nodes = [(mm.JOINT, 0), (mm.OPEN, 0), (mm.MATERIAL, 0), (mm.OPEN, 0)] + [(mm.SHAPE, j) for j in range(n)]
    nodes += [(mm.CLOSE, 0)]
    for j in range(1, n):
        nodes += [(mm.JOINT, j), (mm.OPEN, 0)]
    nodes += [(mm.CLOSE, 0)] * n + [(mm.END, 0)]
    textures = textures or [mm.texture("grid", "I8", 8, 8, bytes((37 * i) & 0xFF for i in range(64)))]
    materials = materials or [mm.material("skin", textures=(0,))]
    extra = [("VTX1", mm.vtx1_body(arrays)), ("SHP1", mm.shp1_body(shapes)),
             ("MAT3", mm.mat3_body(materials)), ("TEX1", mm.tex1_body(textures))]
    return mm.write_j3d_model(joints, parents, nodes=nodes, calc="basic", envelopes=envelopes,
                              inverse_binds=binds, draw=draw, extra_chunks=extra)
