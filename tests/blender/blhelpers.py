"""Fixtures and helpers for the in-Blender tests (loaded with -p by run.py,
so that the ordinary test run never imports bpy through a conftest).

The maths here is written out in plain Python on purpose: expected poses
and UV transforms are computed independently of both the C module and
Blender's mathutils."""
import math
from pathlib import Path

import bpy
import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLES = ROOT / "samples"
SKELETAL_DIRS = {"bck": "j3d", "bca": "bca", "bk": "bk", "jba": "jba"}


# ---------------------------------------------------------------------------
# Session and state


@pytest.fixture(scope="session", autouse=True)
def addon():
    import io_anim_gameanim

    io_anim_gameanim.register()
    yield io_anim_gameanim
    io_anim_gameanim.unregister()


@pytest.fixture(autouse=True)
def fresh_file():
    """Every test starts from an empty factory-settings file."""
    bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
    yield


@pytest.fixture
def ga():
    import gameanim

    return gameanim


@pytest.fixture
def api():
    from io_anim_gameanim import api as mod

    return mod


# ---------------------------------------------------------------------------
# Samples


def samples(*patterns):
    """Sample files matching the glob patterns; a pattern that matches
    nothing is an error (a renamed sample must not shrink a test quietly)."""
    out = []
    for pat in patterns:
        found = sorted(p for p in SAMPLES.glob(pat) if p.is_file())
        if not found:
            raise FileNotFoundError(f"no sample matches {pat!r} under {SAMPLES}")
        out.extend(found)
    return out


def skeletal_samples():
    """Every animation sample of every skeletal format present: bones with
    pose channels (not BTK's material entries, nor the kinds whose colours,
    texture numbers or visibility the add-on does not map; samples/models/,
    which holds model files, neither)."""
    import gameanim
    from io_anim_gameanim.shared import formats

    files = []
    for p in sorted(SAMPLES.rglob("*")):
        if not p.is_file() or p.name.startswith(".") or "models" in p.relative_to(SAMPLES).parts:
            continue
        if not formats.is_skeletal(gameanim.detect(p)[0]):  # (the add-on's view: known, not material)
            continue
        files.append(p)
    return files


def sample_id(p):
    return f"{p.parent.name}/{p.name}"


# ---------------------------------------------------------------------------
# F-curves, independent of the add-on's compat module


def fcurves_of(action, slot=None):
    if "slots" not in bpy.types.Action.bl_rna.properties:
        return list(action.fcurves)
    out = []
    for layer in action.layers:
        for strip in layer.strips:
            for bag in strip.channelbags:
                if slot is None or bag.slot == slot:
                    out.extend(bag.fcurves)
    return out


def fcurve_map(action):
    return {(fc.data_path, fc.array_index): fc for fc in fcurves_of(action)}


def pose_path(bone, prop):
    return f'pose.bones["{bpy.utils.escape_identifier(bone)}"].{prop}'


# ---------------------------------------------------------------------------
# Plain-Python 4x4 maths (row-major lists, column vectors)


def mat_identity():
    return [[1.0 if i == j else 0.0 for j in range(4)] for i in range(4)]


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def mat_translation(t):
    m = mat_identity()
    for i in range(3):
        m[i][3] = t[i]
    return m


def mat_scale(s):
    m = mat_identity()
    for i in range(3):
        m[i][i] = s[i]
    return m


def rot_x(a):
    c, s = math.cos(a), math.sin(a)
    return [[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1]]


def rot_y(a):
    c, s = math.cos(a), math.sin(a)
    return [[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1]]


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return [[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]


def euler_xyz(e):
    """X applied first, then Y, then Z: Rz * Ry * Rx (J3D, BCA, BK, and
    Blender's 'XYZ' mode)."""
    return mat_mul(rot_z(e[2]), mat_mul(rot_y(e[1]), rot_x(e[0])))


def quat_matrix(q):
    w, x, y, z = q
    n = math.sqrt(w * w + x * x + y * y + z * z) or 1.0
    w, x, y, z = w / n, x / n, y / n, z / n
    return [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y), 0],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x), 0],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y), 0],
        [0, 0, 0, 1],
    ]


def trs(t, r, s):
    return mat_mul(mat_translation(t), mat_mul(r, mat_scale(s)))


def mat_from_blender(m):
    return [[m[i][j] for j in range(4)] for i in range(4)]


def mat_max_diff(a, b):
    """Largest element difference; the translation column is measured
    relative to the length of b's translation (float32 poses far from the
    origin carry proportionally larger absolute errors)."""
    size = max(1.0, math.sqrt(sum(b[i][3] ** 2 for i in range(3))))
    worst = 0.0
    for i in range(4):
        for j in range(4):
            d = abs(a[i][j] - b[i][j])
            if j == 3:
                d /= size
            worst = max(worst, d)
    return worst


# ---------------------------------------------------------------------------
# Rigs


def make_rig(name, bones, up=None):
    """bones: list of (name, parent name or None, head, tail, roll).  Returns
    the armature object, active and selected."""
    arm = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, arm)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    made = {}
    for bname, parent, head, tail, roll in bones:
        eb = arm.edit_bones.new(bname)
        eb.head = head
        eb.tail = tail
        eb.roll = roll
        if parent is not None:
            eb.parent = made[parent]
            eb.use_connect = False
        made[bname] = eb
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def samples_by_track(anim, frames):
    """{(target, channel, axis): [value per frame]} from Animation.sample."""
    vals = anim.sample(frames)
    n = len(frames)
    return {(t.target, t.channel, t.axis): vals[i * n:(i + 1) * n] for i, t in enumerate(anim.tracks)}


def local_matrix(values, target, f_index, k=1.0):
    """The game's local transform T(t*k) * R * S of one target at one frame
    from sampled channel values (missing channels take their defaults)."""
    def get(ch, axis, default):
        v = values.get((target, ch, axis))
        return default if v is None else v[f_index]

    t = [get("translation", a, 0.0) * k for a in range(3)]
    s = [get("scale", a, 1.0) for a in range(3)]
    if (target, "rotation_quaternion", 0) in values:
        r = quat_matrix([get("rotation_quaternion", a, 1.0 if a == 0 else 0.0) for a in range(4)])
    else:
        r = euler_xyz([get("rotation", a, 0.0) for a in range(3)])
    return trs(t, r, s)

