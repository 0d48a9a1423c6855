"""Rigs built from model files (docs/blender.md, Rigs from model files):
the armature a model builds, and every pose bone's armature-space matrix
against the game's (Model.world_matrices, computed in C) for each J3D rule,
SM64DS and Banjo-Kazooie, on the exact-curve path and the baked path;
several models with several animations; the export of an action on such a
rig.  Models are written by tools/make_models.py, animations by gameanim's
encoders or taken from samples/.

Tolerances.  The game takes sine and cosine from a 4096-entry table (J3D:
the s16 angle's top 12 bits), Blender from the exact functions; BCK key
rotations here are whole table steps, so at the keys the two agree to
float32 (TIGHT, relative to the model's size).  Between keys the game's
angle is truncated to the table and to whole raw units: each angle may be
up to one table step (2 pi / 4096) off, which moves a joint by at most
what table_bound adds up along its chain.
Banjo-Kazooie uses the exact functions: TIGHT everywhere."""
import math
import sys
import bpy
import pytest
from mathutils import Matrix, Vector
from blhelpers import ROOT, samples
from exphelpers import export_bytes, fcurve, move_key, same_track, track_key

sys.path.insert(0, str(ROOT / "tools"))
import make_models  # noqa: E402  (the project's model writer)

TIGHT = 2e-5
STEP = 2.0 * math.pi / 4096  # one entry of the game's sine table
TURN16 = 65536 // 4096        # raw J3D units per table entry


def raw_angle(steps):
    """A J3D rotation of whole table steps, in radians and raw units."""
    return steps * TURN16 * math.pi / 32768.0, steps * TURN16


# ---------------------------------------------------------------------------
# Models and animations


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data)
    return str(p)


# (name, parent, translation, rotation in table steps, scale, scale-compensate)
CHAIN = [
    ("hips", -1, (0.0, 10.0, 0.0), (0, 0, 0), (1.0, 1.0, 1.0), False),
    ("spine", 0, (0.0, 6.0, 1.0), (40, 0, 100), (1.0, 1.0, 1.0), True),
    ("arm", 1, (4.0, 3.0, 0.0), (0, 300, 512), (1.0, 1.0, 1.0), True),
    ("hand", 2, (3.0, 0.0, 0.0), (100, 0, 0), (1.0, 1.0, 1.0), True),
    ("head", 1, (0.0, 5.0, 0.0), (0, 0, 0), (1.0, 1.0, 1.0), False),
]


def j3d_model(tmp_path, calc, chain=CHAIN, name=None):
    joints = [make_models.joint(n, translation=t, rotation_raw=tuple(r * TURN16 for r in rot), scale=s,
                                scale_compensate=1 if ssc else 0xFF)
              for n, _p, t, rot, s, ssc in chain]
    data = make_models.write_j3d_model(joints, parents=[c[1] for c in chain], calc=calc)
    return write(tmp_path, name or f"{calc}.bmd", data)


KEY_TIMES = [0.0, 4.0, 8.0]


def bck(ga, tmp_path, name, keys, n_joints):
    """A BCK: keys[(joint, channel)] = three key values per axis (rotations
    in table steps); channels not given hold their rest-like default.
    Hermite keys with slopes, so that curves between keys are not lines."""
    tracks = []
    for j in range(n_joints):
        for ch, default in (("scale", 1.0), ("rotation", 0.0), ("translation", 0.0)):
            per_axis = keys.get((j, ch))
            for a in range(3):
                if per_axis is None:
                    tracks.append(ga.Track(j, ch, a, [0.0], [default]))
                    continue
                vals = [raw_angle(v)[0] if ch == "rotation" else v for v in per_axis[a]]
                slopes = [0.05 * (a + 1), -0.02, 0.03]
                tracks.append(ga.Track(j, ch, a, KEY_TIMES, vals, slopes, slopes, [ga.BEZIER] * 3))
    anim = ga.Animation("bck", tracks, frame_count=8.0, loop="once")
    path = tmp_path / name
    anim.save(str(path))
    return str(path)


def moving_keys(chain, quirk=False, shear=False):
    """Every joint animated: rotations of whole table steps that are not
    axis-aligned, translations, non-uniform scales."""
    keys = {}
    for j, (_n, _p, t, rot, _s, _ssc) in enumerate(chain):
        keys[(j, "rotation")] = [[rot[a] + 37 * (j + 1) * (a + 1), rot[a] - 91 * (a + j), rot[a] + 200 * a]
                                 for a in range(3)]
        keys[(j, "translation")] = [[t[a], t[a] + 0.5 * (a - 1), t[a] - 0.25 * j] for a in range(3)]
        keys[(j, "scale")] = [[1.0 + 0.1 * j, 1.3 - 0.1 * a, 0.8 + 0.05 * (a + j)] for a in range(3)]
    if shear:  # the spine scales very non-uniformly: its compensated child shears
        keys[(1, "scale")] = [[2.0, 2.5, 1.5], [0.5, 0.4, 0.7], [1.0, 1.2, 3.0]]
    if quirk:
        # hips 1, spine 2 then arm 0.5: the accumulated scale is exactly 1 at
        # the arm, where the game drops its 0.5
        keys[(0, "scale")] = [[1.0] * 3 for _ in range(3)]
        keys[(1, "scale")] = [[2.0] * 3 for _ in range(3)]
        keys[(2, "scale")] = [[0.5] * 3 for _ in range(3)]
    return keys


# ---------------------------------------------------------------------------
# Poses against the game's matrices


def built_rig():
    rigs = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    assert len(rigs) == 1
    return rigs[0]


def joint_bones(obj):
    """{joint index: pose bone} (helper bones have no gameanim_index)."""
    out = {}
    for pb in obj.pose.bones:
        i = pb.bone.get("gameanim_index")
        if i is not None:
            out[int(i)] = pb
    return out


def game_frame(model, i, w, frame_index):
    """The game's matrix of joint i as a 4x4 list; Banjo-Kazooie's skinning
    matrix moved to the bone's pivot (the bone's own frame)."""
    n = len(model.bones)
    base = (frame_index * n + i) * 16
    m = [list(w[base + 4 * r: base + 4 * r + 4]) for r in range(4)]
    if model.format == "bk_model":
        p = model.bones[i].translation
        for r in range(3):
            m[r][3] += sum(m[r][c] * p[c] for c in range(3))
    return m


def model_size(model, w):
    n = len(model.bones)
    return max(1.0, max(abs(w[16 * i + k]) for i in range(n) for k in (3, 7, 11)))


def chain(model, i):
    out = [i]
    while model.bones[out[-1]].parent >= 0:
        out.append(model.bones[out[-1]].parent)
    return out


def table_bound(model, w, fi, i, size):
    """How far the game's sine table can move joint i's matrix: each of
    the three angles of each joint j up the chain may be up to one table
    step (plus J3D's truncation to whole raw units) below the exact angle,
    which turns joint i's axes by that much and moves its origin by that
    much times its distance from j, both scaled by j's matrix."""
    n = len(model.bones)
    base = fi * n * 16
    pos = lambda j: [w[base + 16 * j + 4 * r + 3] for r in range(3)]  # noqa: E731
    norm = lambda j: max(math.sqrt(sum(w[base + 16 * j + 4 * r + c] ** 2 for r in range(3)))  # noqa: E731
                         for c in range(3))
    p_i = pos(i)
    total = 0.0
    for j in chain(model, i):
        lever = math.sqrt(sum((a - b) ** 2 for a, b in zip(p_i, pos(j))))
        total += 3.0 * 1.01 * STEP * (norm(j) + lever)
    return total + TIGHT * size


def pose_errors(obj, model, anim, frames):
    """[(frame, joint, largest element difference, size, table_bound)] at
    scene frame = file frame."""
    if not frames:
        return []
    w = model.world_matrices(anim, frames)
    size = model_size(model, w)
    bones = joint_bones(obj)
    assert sorted(bones) == list(range(len(model.bones)))
    out = []
    for fi, f in enumerate(frames):
        bpy.context.scene.frame_set(int(math.floor(f)), subframe=f - math.floor(f))
        for i, pb in bones.items():
            want = game_frame(model, i, w, fi)
            got = pb.matrix
            err = max(abs(got[r][c] - want[r][c]) for r in range(4) for c in range(4))
            out.append((f, i, err, size, table_bound(model, w, fi, i, size)))
    return out


def assert_pose(obj, model, anim, key_frames, other_frames=()):
    for f, i, err, size, _bound in pose_errors(obj, model, anim, key_frames):
        assert err <= TIGHT * size, f"joint {i} at frame {f}: off by {err}"
    for f, i, err, _size, bound in pose_errors(obj, model, anim, other_frames):
        assert err <= bound, f"joint {i} at frame {f}: off by {err} (the table allows {bound})"


# ---------------------------------------------------------------------------
# The built armature


def test_import_takes_model_files():
    from io_anim_gameanim import operators
    from io_anim_gameanim.importing import importer

    for ext in (".bmd", ".bdl", ".bin"):
        assert ext in importer.file_extensions()
        assert "*" + ext in operators.FILTER_GLOB.split(";")
    assert "models" in operators.IMPORT_LABEL  # (formats named, extensions in the filter)


def test_model_alone_builds_the_armature(api, ga, tmp_path):
    path = j3d_model(tmp_path, "maya")
    res = api.import_files([path])
    fr = res.report.files[0]
    assert fr.ok and fr.format == "bmd" and list(res) == []
    assert "armature 'maya' (5 joint(s), maya rule, 3 hidden helper bone(s)" in fr.summary()
    obj = built_rig()
    model = ga.load_model(path)
    bones = joint_bones(obj)
    # one bone per joint, the model's names and parents; helpers hidden
    assert [bones[i].name for i in range(len(CHAIN))] == [c[0] for c in CHAIN]
    for i, (_n, parent, *_rest) in enumerate(CHAIN):
        bone = bones[i].bone
        assert bone.get("gameanim_scale_compensate") == CHAIN[i][5]
        up = bone.parent
        if up is not None and up.get("gameanim_ssc_helper") is not None:
            assert up.get("gameanim_ssc_helper") == bone.name and up.hide
            assert tuple(up.head_local) == pytest.approx(tuple(bone.head_local), abs=1e-6)
            up = up.parent
        assert (up.name if up else None) == (CHAIN[parent][0] if parent >= 0 else None)
    helpers = [b for b in obj.data.bones if b.get("gameanim_ssc_helper") is not None]
    assert len(helpers) == 3  # spine, arm, hand: compensated under a parent
    # identity rest orientation, upright object, the rule recorded
    for b in obj.data.bones:
        rot = b.matrix_local.to_3x3()
        assert max(abs(rot[r][c] - (r == c)) for r in range(3) for c in range(3)) < 1e-6
    assert tuple(obj.rotation_euler) == pytest.approx((math.pi / 2, 0.0, 0.0))
    assert obj["gameanim_calc"] == "maya" and obj["gameanim_model_format"] == "bmd"
    # drawn toward the first child (display only: a turned custom shape)
    if hasattr(bones[0], "custom_shape_rotation_euler"):
        for i, c in ((0, 1), (1, 2), (2, 3)):
            d = bones[c].bone.head_local - bones[i].bone.head_local
            y = bones[i].custom_shape_rotation_euler.to_matrix() @ Vector((0.0, 1.0, 0.0))
            assert (y * bones[i].custom_shape_scale_xyz[1] - d).length < 1e-4
    # heads at the game's rest positions, and posed as the game's rest pose
    w = model.world_matrices()
    for i, pb in bones.items():
        assert tuple(pb.bone.head_local) == pytest.approx((w[16 * i + 3], w[16 * i + 7], w[16 * i + 11]), abs=1e-4)
    bpy.context.view_layer.update()
    for f, i, err, size, bound in pose_errors(obj, model, None, [0.0]):
        assert err <= TIGHT * size, (i, err)


@pytest.mark.parametrize("calc", ["basic", "softimage", "maya"])
@pytest.mark.parametrize("curves", ["AUTO", "BAKED"])
def test_rule_pose_equals_world_matrices(api, ga, tmp_path, calc, curves):
    """Every pose bone's armature-space matrix is the game's world matrix,
    at the keys and between them (fractional frames on the curve path; the
    baked path is keyed at whole frames)."""
    mpath = j3d_model(tmp_path, calc)
    apath = bck(ga, tmp_path, "move.bck", moving_keys(CHAIN), len(CHAIN))
    res = api.import_files([mpath, apath], curve_mode=curves)
    assert all(f.ok for f in res.report.files), [f.error for f in res.report.files]
    fr = res.report.files[1]
    if curves == "AUTO":
        assert len(fr.exact) == len(CHAIN) and fr.baked == []
    else:
        assert len(fr.baked) == len(CHAIN)
    obj = built_rig()
    model, anim = ga.load_model(mpath), ga.load(apath)
    between = [2.0, 5.0, 7.0] + ([1.5, 2.25, 6.75] if curves == "AUTO" else [])
    assert_pose(obj, model, anim, KEY_TIMES, between)


def test_maya_sheared_compensation_is_exact(api, ga, tmp_path):
    """Non-uniform parent scale and a compensated child whose rotation is not
    axis-aligned: the game's matrix is sheared, and so is the pose."""
    mpath = j3d_model(tmp_path, "maya")
    apath = bck(ga, tmp_path, "shear.bck", moving_keys(CHAIN, shear=True), len(CHAIN))
    api.import_files([mpath, apath])
    obj = built_rig()
    model, anim = ga.load_model(mpath), ga.load(apath)
    w = model.world_matrices(anim, [0.0])
    # the arm's local matrix (the spine's world inverted, times the arm's)
    # really is sheared: no location / rotation / scale of one bone holds it
    local = Matrix(game_frame(model, 1, w, 0)).inverted() @ Matrix(game_frame(model, 2, w, 0))
    cols = [local.col[c][:3] for c in range(3)]
    cosines = [abs(sum(a * b for a, b in zip(cols[x], cols[y])))
               / math.sqrt(sum(a * a for a in cols[x]) * sum(b * b for b in cols[y]))
               for x, y in ((0, 1), (0, 2), (1, 2))]
    assert max(cosines) > 0.05
    assert_pose(obj, model, anim, KEY_TIMES, [1.5, 6.75])
    # without the helper (the joint straight under its parent, scale not
    # inherited) Blender could not show it: the construction matters
    joint = joint_bones(obj)[2]
    assert joint.parent.bone.get("gameanim_ssc_helper") == joint.name


@pytest.mark.parametrize("calc", ["basic", "softimage", "maya"])
@pytest.mark.parametrize("curves", ["AUTO", "BAKED"])
def test_negative_scales(api, ga, tmp_path, calc, curves):
    """A parent mirrored on one axis: Softimage's children show it through
    Blender's aligned inheritance only with their rotation channels negated
    (still one to one: the export gives the original bytes); Maya's helper
    reads the parent's scale channel, which stays on curves."""
    keys = moving_keys(CHAIN)
    keys[(1, "scale")] = [[0.5] * 3, [-2.0] * 3, [1.5] * 3]
    mpath = j3d_model(tmp_path, calc)
    apath = bck(ga, tmp_path, "mirror.bck", keys, len(CHAIN))
    res = api.import_files([mpath, apath], curve_mode=curves)
    fr = res.report.files[1]
    assert fr.ok, fr.error
    if calc == "softimage" and curves == "AUTO":
        assert fr.baked == []
        assert any("arm" in n and "negated" in n for n in fr.notes)
    if calc == "maya" and curves == "BAKED":
        assert "spine" in fr.exact and any("kept on curves" in n for n in fr.notes)
    obj = built_rig()
    model, anim = ga.load_model(mpath), ga.load(apath)
    assert_pose(obj, model, anim, KEY_TIMES, [2.0, 5.0] + ([2.25, 6.75] if curves == "AUTO" else []))
    data, result = export_bytes(api, res[0])
    assert data == open(apath, "rb").read() and result.changed == []


def test_softimage_scale_changing_sign_is_baked(api, ga, tmp_path):
    keys = moving_keys(CHAIN)
    keys[(1, "scale")] = [[1.0, -1.0, 1.5], [1.0] * 3, [1.0] * 3]
    mpath = j3d_model(tmp_path, "softimage")
    apath = bck(ga, tmp_path, "flip.bck", keys, len(CHAIN))
    res = api.import_files([mpath, apath])
    fr = res.report.files[1]
    assert sorted(b for b, _why in fr.baked) == ["arm", "hand", "head"]  # everything under the spine
    assert all("changes sign" in why for _b, why in fr.baked)
    obj = built_rig()
    assert_pose(obj, ga.load_model(mpath), ga.load(apath), KEY_TIMES, [1.0, 3.0, 5.0, 7.0])


def test_basic_dropped_scale_is_baked_and_reported(api, ga, tmp_path):
    mpath = j3d_model(tmp_path, "basic")
    apath = bck(ga, tmp_path, "quirk.bck", moving_keys(CHAIN, quirk=True), len(CHAIN))
    res = api.import_files([mpath, apath])
    fr = res.report.files[1]
    assert [b for b, _why in fr.baked] == ["arm"]
    assert "accumulated scale is exactly 1" in fr.baked[0][1]
    model, anim = ga.load_model(mpath), ga.load(apath)
    w = model.world_matrices(anim, [0.0])
    arm = game_frame(model, 2, w, 0)
    # the game really drops the arm's 0.5: its columns carry the spine's 2
    assert math.sqrt(sum(arm[r][0] ** 2 for r in range(3))) == pytest.approx(2.0, rel=1e-5)
    obj = built_rig()
    assert_pose(obj, model, anim, KEY_TIMES, [2.0, 5.0, 7.0])
    # Curves: Exact Channels keeps the arm's channels one to one, and says
    # that the pose is then not the game's
    bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
    fr = api.import_files([mpath, apath], curve_mode="EXACT").report.files[1]
    assert fr.baked == [] and any("'arm'" in n and "not the game's" in n for n in fr.notes)


def test_one_joint_and_joints_numbered_after_their_children(api, ga, tmp_path):
    """J3D numbers joints freely: a parent may come after its child.  And
    a model of one joint."""
    chain = [CHAIN[0], ("leg", 2, (1.0, -4.0, 0.0), (0, 0, 64), (1.0, 1.0, 1.0), False),
             ("thigh", 0, (2.0, -1.0, 0.0), (10, 0, 0), (1.0, 1.0, 1.0), False)]
    mpath = j3d_model(tmp_path, "basic", chain, name="odd.bmd")
    apath = bck(ga, tmp_path, "odd.bck", moving_keys(chain), 3)
    api.import_files([mpath, apath])
    obj = built_rig()
    bones = joint_bones(obj)
    assert bones[1].parent == bones[2] and bones[2].parent == bones[0]
    assert_pose(obj, ga.load_model(mpath), ga.load(apath), KEY_TIMES, [1.5, 6.75])
    bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
    one = j3d_model(tmp_path, "maya", CHAIN[:1], name="one.bmd")
    lone = samples("j3d/jump_sound.bck")[0]  # 1 joint
    res = api.import_files([one, str(lone)])
    assert res.report.files[1].owners == ["one"]
    model, anim = ga.load_model(one), ga.load(str(lone))
    for f, i, err, size, bound in pose_errors(built_rig(), model, anim, [0.0, 3.0, 7.5, 12.0]):
        assert err <= bound, (f, err, bound)


# ---------------------------------------------------------------------------
# SM64DS and Banjo-Kazooie


def test_sm64ds_model_with_bca(api, ga, tmp_path):
    path = samples("bca/walk_even_lz77.bca")[0]
    anim = ga.load(str(path))
    n = len({t.target for t in anim.tracks})
    bones = [make_models.sm64ds_bone(f"b{i}", i - 1 if i else -1, translation_fixed=(0, 4096 * 3, 4096 * i),
                                     rotation_raw=(0, 64 * i, 0)) for i in range(n)]
    mpath = write(tmp_path, "mario.bmd", make_models.write_sm64ds_bmd(bones))
    res = api.import_files([mpath, str(path)])
    assert all(f.ok for f in res.report.files), [f.error for f in res.report.files]
    assert res.report.files[0].format == "sm64ds_bmd"
    obj = built_rig()
    assert [joint_bones(obj)[i].name for i in range(n)] == [f"b{i}" for i in range(n)]
    model = ga.load_model(mpath)
    # BCA angles are whole table steps at every frame
    assert_pose(obj, model, anim, [0.0, 1.0, 5.0, 17.0], [2.5, 9.75])


def bk_model(tmp_path, ids=(1, 2, 5), k=2.5):
    pivots = [(0.0, 10.0, 0.0), (0.0, 20.0, 5.0), (4.0, 25.0, 5.0), (-3.0, 5.0, 0.0)]
    table = [(pivots[0], ids[0], -1), (pivots[1], ids[1], 0), (pivots[2], ids[2], 1), (pivots[3], 9, 0)]
    return write(tmp_path, "banjo.model.bin", make_models.write_bk_model(table, scale=k))


def test_bk_model_with_bk_animation(api, ga, tmp_path):
    path = samples("bk/features.bin")[0]
    anim = ga.load(str(path))
    mpath = bk_model(tmp_path)
    res = api.import_files([mpath, str(path)])
    assert all(f.ok for f in res.report.files), [f.error for f in res.report.files]
    assert any("2.5" in n for n in res.report.files[1].notes)
    obj = built_rig()
    names = sorted(b.name for b in obj.data.bones)
    assert names == ["bk_00_id001", "bk_01_id002", "bk_02_id005", "bk_03_id009"]
    model = ga.load_model(mpath)
    start = float(anim.start_frame or 0.0)
    frames = [start, start + 1.0, start + 2.5, start + 7.25, start + 13.0]
    for f, i, err, size, bound in pose_errors(obj, model, anim, frames):
        assert err <= TIGHT * size * 5, f"joint {i} at frame {f}: off by {err}"


@pytest.mark.parametrize("model,anims", [
    ("j3d/figure_maya.bmd", ["j3d/figure_maya_walk.bck", "j3d/figure_maya_wave.bck"]),
    ("j3d/figure_basic.bdl", ["j3d/figure_basic_walk.bck"]),
    ("sm64ds/figure.bmd", ["sm64ds/figure_walk.bca"]),
    ("bk/figure.bin", ["bk/figure_walk.bin"]),
], ids=["maya", "basic", "sm64ds", "bk"])
def test_sample_figures(api, ga, model, anims):
    """The samples' 19-joint figures with their animations: every action,
    assigned in turn, poses the rig as the game (within the sine table's
    resolution: the samples' angles are not whole table steps)."""
    mpath = samples("models/" + model)[0]
    apaths = [samples("models/" + a)[0] for a in anims]
    res = api.import_files([str(mpath)] + [str(a) for a in apaths])
    assert all(f.ok for f in res.report.files), [f.error for f in res.report.files]
    assert len(res) == len(apaths)
    obj = built_rig()
    m = ga.load_model(str(mpath))
    for action, apath in zip(res, apaths):
        obj.animation_data.action = action
        if hasattr(obj.animation_data, "action_slot") and len(getattr(action, "slots", ())):
            obj.animation_data.action_slot = action.slots[0]
        anim = ga.load(str(apath))
        start = float(anim.start_frame or 0.0) if anim.format == "bk" else 0.0
        frames = [start, start + 1.0, start + 2.5, start + 6.0, start + 9.75]
        for f, i, err, size, bound in pose_errors(obj, m, anim, frames):
            limit = TIGHT * size * 5 if m.format == "bk_model" else bound  # (BK: the exact sine)
            assert err <= limit, f"{apath.name}: joint {i} at frame {f}: off by {err} (allowed {limit})"


def test_unit_and_axis_options_do_not_apply_to_a_model(api, ga, tmp_path):
    """The built rig is in the model's units and axes: Translation Scale
    and Rig Up Axis are ignored (noted), the pose is still the game's."""
    path = samples("bk/features.bin")[0]
    mpath = bk_model(tmp_path)
    res = api.import_files([mpath, str(path)], translation_scale=3.0, up_axis="Y_TO_Z")
    fr = res.report.files[1]
    assert any("ignored" in n and "translation_scale" in n and "up_axis" in n for n in fr.notes)
    anim = ga.load(str(path))
    start = float(anim.start_frame or 0.0)
    for f, i, err, size, _b in pose_errors(built_rig(), ga.load_model(mpath), anim, [start, start + 4.5]):
        assert err <= TIGHT * size * 5, (f, i, err)


def test_import_operator_with_a_model(ga, tmp_path):
    """File > Import with a model and an animation selected."""
    mpath = j3d_model(tmp_path, "maya")
    apath = bck(ga, tmp_path, "move.bck", moving_keys(CHAIN), len(CHAIN))
    result = bpy.ops.import_anim.gameanim(directory=str(tmp_path), files=[{"name": "maya.bmd"}, {"name": "move.bck"}])
    assert result == {"FINISHED"}
    obj = built_rig()
    assert obj.animation_data.action.name == "move.bck"
    assert_pose(obj, ga.load_model(mpath), ga.load(apath), KEY_TIMES)


# ---------------------------------------------------------------------------
# Several models, several animations


def test_each_animation_goes_to_the_model_it_fits(api, ga, tmp_path):
    three = j3d_model(tmp_path, "basic", CHAIN[:3], name="three.bmd")
    five = j3d_model(tmp_path, "maya", CHAIN, name="five.bdl")
    bk = bk_model(tmp_path)
    walk3 = samples("j3d/walk_type0.bck")[0]  # 3 joints
    move5 = bck(ga, tmp_path, "move5.bck", moving_keys(CHAIN), 5)
    bkanim = samples("bk/features.bin")[0]
    lone = samples("j3d/jump_sound.bck")[0]  # 1 joint: no model fits
    jba = samples("jba/jawb_walk.jba")[0]  # no model of its kind: a new armature as usual
    res = api.import_files([three, str(walk3), five, move5, bk, str(bkanim), str(lone), str(jba)])
    by_name = {f.path.rsplit("/", 1)[-1]: f for f in res.report.files}
    assert by_name["walk_type0.bck"].owners == ["three"]
    assert by_name["move5.bck"].owners == ["five"]
    assert by_name["features.bin"].owners == ["banjo"]
    assert not by_name["jump_sound.bck"].ok
    assert "no model" in by_name["jump_sound.bck"].error
    assert by_name["jawb_walk.jba"].ok and by_name["jawb_walk.jba"].owners == ["jawb_walk_rig"]
    assert len([o for o in bpy.data.objects if o.type == "ARMATURE"]) == 4


# ---------------------------------------------------------------------------
# Export


@pytest.mark.parametrize("calc,quirk", [("maya", False), ("basic", True), ("softimage", False)])
def test_export_after_import(api, ga, tmp_path, calc, quirk):
    """Untouched: the original bytes.  One key of a compensated joint's
    location moved: only that track is re-encoded."""
    mpath = j3d_model(tmp_path, calc)
    apath = bck(ga, tmp_path, "move.bck", moving_keys(CHAIN, quirk=quirk), len(CHAIN))
    res = api.import_files([mpath, apath])
    action = res[0]
    original = open(apath, "rb").read()
    data, result = export_bytes(api, action)
    assert data == original and result.changed == []
    fc = fcurve(action, 'pose.bones["hand"].location', 1)
    move_key(fc, 1, 0.25)
    data, result = export_bytes(api, action)
    before, after = ga.load(apath), ga.load(data)
    changed = [track_key(t) for t, u in zip(before.tracks, after.tracks) if not same_track(t, u)]
    assert changed == [(3, "translation", 1)]
    assert after.find(3, "translation", 1).values[1] == pytest.approx(before.find(3, "translation", 1).values[1]
                                                                       + 0.25, abs=1e-5)


def test_bk_export_after_import_is_the_original(api, ga, tmp_path):
    path = samples("bk/features.bin")[0]
    res = api.import_files([bk_model(tmp_path), str(path)])
    data, result = export_bytes(api, res[0])
    assert data == path.read_bytes() and result.changed == []
