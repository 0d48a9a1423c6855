"""Option Model File: an animation onto a rig another tool made from the
model (blemd: the Y-up -> Z-up turn inside the bones, bones along the
joints' axes, inherit_scale NONE; a DAE import: the turn on the object,
bones pointing at their children with their own roll; fast64: Banjo-Kazooie
bones named its way carrying hm64_bk64_bone_id, in scaled units), and
option Scale on armatures built from model files.

The expected pose is built here from the model's world matrices (the
game's, from gameanim.Model.world_matrices, the C rules under their own
tests) and the rig's rest as the test made it: pose_i = A W_i C_i with
C_i = (A W_rest_i)^-1 matrix_local_i, A known from how the rig was built.
It is compared with Blender's evaluated pose bones, so neither the
add-on's maths nor its pose conversion is used to check itself."""
import math
import sys

import bpy
import pytest
from blhelpers import ROOT, SAMPLES, fcurve_map, mat_from_blender, mat_max_diff
from mathutils import Matrix, Vector

MODELS = SAMPLES / "models"
MAYA = MODELS / "j3d" / "figure_maya.bmd"
MAYA_WALK = MODELS / "j3d" / "figure_maya_walk.bck"
MAYA_WAVE = MODELS / "j3d" / "figure_maya_wave.bck"
BASIC = MODELS / "j3d" / "figure_basic.bdl"
BASIC_WALK = MODELS / "j3d" / "figure_basic_walk.bck"
SM64DS = MODELS / "sm64ds" / "figure.bmd"
SM64DS_WALK = MODELS / "sm64ds" / "figure_walk.bca"
BK = MODELS / "bk" / "figure.bin"
BK_WALK = MODELS / "bk" / "figure_walk.bin"

Y_TO_Z = Matrix.Rotation(math.pi / 2, 4, "X")
TOL = 2e-4  # float32 keys of poses up to ~100 units from the origin (relative, see mat_max_diff)


def world(model, anim=None, frame=0.0):
    """Each joint's model-space frame: the game's world matrix, times the
    translation to the pivot for Banjo-Kazooie (whose matrices move
    model-space points, deltas about the pivots)."""
    w = model.world_matrices(anim, frame)
    out = [Matrix([w[o:o + 4], w[o + 4:o + 8], w[o + 8:o + 12], w[o + 12:o + 16]])
           for o in range(0, 16 * len(model.bones), 16)]
    if model.format == "bk_model":
        out = [m @ Matrix.Translation(b.translation) for m, b in zip(out, model.bones)]
    return out


def children(model):
    out = {j: [] for j in range(len(model.bones))}
    for j, b in enumerate(model.bones):
        if b.parent >= 0:
            out[b.parent].append(j)
    return out


def build(name, model, bone_matrix, names=None, inherit_scale="FULL", object_turn=False, skip=()):
    """A rig of the model's joints: bone j's matrix_local = bone_matrix(j)
    (a rotation and translation), parented as in the model."""
    arm = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, arm)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    made = {}
    for j, b in enumerate(model.bones):
        if j in skip:
            continue
        eb = arm.edit_bones.new(names(j) if names else b.name)
        eb.head, eb.tail = (0, 0, 0), (0, 1, 0)
        eb.matrix = bone_matrix(j)
        eb.length = 4.0
        p = b.parent
        while p in skip:
            p = model.bones[p].parent
        if p >= 0:
            eb.parent = made[p]
        made[j] = eb
    names_of = {j: eb.name for j, eb in made.items()}  # (edit bones go with edit mode)
    bpy.ops.object.mode_set(mode="OBJECT")
    for bone in arm.bones:
        bone.inherit_scale = inherit_scale
    if object_turn:
        obj.rotation_euler = (math.pi / 2, 0.0, 0.0)
    return obj, names_of


def blemd_rig(model, name="blemd"):
    """As blemd makes them: Y-up -> Z-up inside the armature, each bone
    along its joint's X axis (rolled to the joint's axes), no scale
    inheritance."""
    rest = world(model)
    along_x = Matrix.Rotation(-math.pi / 2, 4, "Z")  # bone Y := joint X
    return build(name, model, lambda j: Y_TO_Z @ rest[j].normalized() @ along_x, inherit_scale="NONE")


def dae_rig(model, name="dae"):
    """As a Collada import leaves them: the game's axes in the armature and
    the turn on the object; bones point at their first child, with a roll
    of their own."""
    rest = world(model)
    kids = children(model)

    def matrix(j):
        head = rest[j].to_translation()
        target = rest[kids[j][0]].to_translation() if kids[j] else head + Vector((0.0, 1.0, 0.0))
        d = (target - head)
        if d.length < 1e-6:
            d = Vector((0.0, 1.0, 0.0))
        rot = Vector((0.0, 1.0, 0.0)).rotation_difference(d.normalized()).to_matrix().to_4x4()
        return Matrix.Translation(head) @ rot @ Matrix.Rotation(0.37 * j, 4, "Y")

    return build(name, model, matrix, object_turn=True)


def expected_pose(model, rest, frame_world, obj, bone_name, j, a):
    c = (a @ rest[j]).inverted() @ obj.data.bones[bone_name].matrix_local
    return a @ frame_world[j] @ c


def worst_pose_error(model, anim, obj, names, a, frames):
    rest = world(model)
    worst = (0.0, None)
    for f in frames:
        bpy.context.scene.frame_set(f)
        w = world(model, anim, float(f))
        for j, bone_name in names.items():
            want = expected_pose(model, rest, w, obj, bone_name, j, a)
            got = obj.pose.bones[bone_name].matrix
            d = mat_max_diff(mat_from_blender(got), mat_from_blender(want))
            if d > worst[0]:
                worst = (d, (f, bone_name))
    return worst


def moved(model, anim, frames):
    """The test's frames really move the figure (the comparison is not of
    rest poses only)."""
    w0 = world(model, anim, float(frames[0]))
    return max(max(abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb))
               for f in frames[1:] for a, b in zip(w0, world(model, anim, float(f))))


# ---------------------------------------------------------------------------
# Poses equal the game's up to each bone's own orientation


@pytest.mark.parametrize("model_path, anim_path, frames", [
    (MAYA, MAYA_WALK, (0, 7, 13, 20, 33)),
    (MAYA, MAYA_WAVE, (0, 11, 24, 40)),
    (BASIC, BASIC_WALK, (0, 5, 16, 27)),
    (SM64DS, SM64DS_WALK, (0, 9, 17, 30)),
], ids=["maya_walk", "maya_wave", "basic_walk", "sm64ds_walk"])
def test_blemd_rig_poses_are_the_games_world_matrices(api, ga, model_path, anim_path, frames):
    model = ga.load_model(model_path)
    anim = ga.load(anim_path)
    assert moved(model, anim, frames) > 1.0
    obj, names = blemd_rig(model)
    res = api.import_files([anim_path], armature=obj, model_file=str(model_path))
    fr = res.report.files[0]
    assert fr.ok and not fr.unmatched, fr.summary()
    assert any("turned Y-up to Z-up in its bones" in n for n in fr.notes), fr.notes
    worst, where = worst_pose_error(model, anim, obj, names, Y_TO_Z, frames)
    assert worst < TOL, (worst, where)


@pytest.mark.parametrize("model_path, anim_path, frames", [
    (BASIC, BASIC_WALK, (0, 5, 16, 27)),
    (MAYA, MAYA_WAVE, (0, 11, 24, 40)),
], ids=["basic_walk", "maya_wave"])
def test_dae_rig_with_the_turn_on_the_object(api, ga, model_path, anim_path, frames):
    model = ga.load_model(model_path)
    anim = ga.load(anim_path)
    obj, names = dae_rig(model)
    res = api.import_files([anim_path], armature=obj, model_file=str(model_path))
    fr = res.report.files[0]
    assert fr.ok and not fr.unmatched, fr.summary()
    assert any("game's axes as they are" in n for n in fr.notes), fr.notes
    worst, where = worst_pose_error(model, anim, obj, names, Matrix.Identity(4), frames)
    assert worst < TOL, (worst, where)
    # and in the world, the figure stands upright: the head is above the hips
    bpy.context.scene.frame_set(0)
    head = obj.matrix_world @ obj.pose.bones["head"].head
    hips = obj.matrix_world @ obj.pose.bones["hips"].head
    assert head.z > hips.z + 20.0


def softimage_figure(tmp_path):
    """The Maya sample's figure (a non-uniformly scaled, breathing chest)
    under the Softimage rule, written by the samples' own generator."""
    import sys

    tools = str(SAMPLES.parent / "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    import samples_models as sm

    chest = (1.25, 1.0, 1.125)
    joints = sm.figure(chest_scale=chest)
    model_path, anim_path = tmp_path / "figure_softimage.bmd", tmp_path / "figure_softimage_walk.bck"
    model_path.write_bytes(sm.j3d_file(joints, "softimage", "bmd"))
    anim_path.write_bytes(sm.bck(joints, {**sm.walk_keys(40), **sm.breathe_keys(40, chest)}, 40))
    return model_path, anim_path


@pytest.mark.parametrize("make_rig, a, exact", [(blemd_rig, Y_TO_Z, True), (dae_rig, Matrix.Identity(4), False)],
                         ids=["blemd", "dae"])
def test_softimage_rule_onto_another_tools_rig(api, ga, tmp_path, make_rig, a, exact):
    """blemd's bones lie along the joints' axes, so the chest's non-uniform
    scale stays a scale in them: exact.  The DAE rig's bones have rolls of
    their own, so that scale is a shear in their axes, which no location /
    rotation / scale holds: the nearest is keyed and the report names
    every bone it reaches."""
    model_path, anim_path = softimage_figure(tmp_path)
    model = ga.load_model(model_path)
    assert model.calc == "softimage"
    anim = ga.load(anim_path)
    obj, names = make_rig(model)
    res = api.import_files([anim_path], armature=obj, model_file=str(model_path))
    fr = res.report.files[0]
    assert fr.ok and not fr.unmatched, fr.summary()
    worst, where = worst_pose_error(model, anim, obj, names, a, (0, 7, 13, 20, 33))
    sheared = {n.split("'")[1] for n in fr.notes if "is sheared" in n}
    if exact:
        assert worst < TOL and not sheared, (worst, where, sheared)
        return
    assert "chest" in sheared
    # every bone that is off is a sheared one or below one
    rest = world(model)
    for f in (7, 20):
        bpy.context.scene.frame_set(f)
        w = world(model, anim, float(f))
        for j, bone_name in names.items():
            d = mat_max_diff(mat_from_blender(obj.pose.bones[bone_name].matrix),
                             mat_from_blender(expected_pose(model, rest, w, obj, bone_name, j, a)))
            if d >= TOL:
                chain = {bone_name} | {p.name for p in obj.data.bones[bone_name].parent_recursive}
                assert chain & sheared, (bone_name, d, sheared)


def test_without_model_file_the_same_rig_is_not_the_game_pose(api, ga):
    """The comparison above can fail: plain index matching onto a blemd rig
    (bones with their own rest orientation) is not the game's pose."""
    model = ga.load_model(BASIC)
    anim = ga.load(BASIC_WALK)
    obj, names = blemd_rig(model)
    api.import_files([BASIC_WALK], armature=obj)
    worst, _where = worst_pose_error(model, anim, obj, names, Y_TO_Z, (5, 16))
    assert worst > 1e-2


def test_axes_forced_wrong_gives_a_wrong_pose_and_auto_finds_them(api, ga):
    model = ga.load_model(BASIC)
    anim = ga.load(BASIC_WALK)
    obj, names = blemd_rig(model)
    res = api.import_files([BASIC_WALK], armature=obj, model_file=str(BASIC), model_axes="NONE")
    assert any("heads are" in n for n in res.report.files[0].notes), res.report.files[0].notes
    worst, _ = worst_pose_error(model, anim, obj, names, Y_TO_Z, (5, 16))
    assert worst > 1e-2
    res = api.import_files([BASIC_WALK], armature=obj, model_file=str(BASIC), model_axes="Y_TO_Z")
    worst, where = worst_pose_error(model, anim, obj, names, Y_TO_Z, (5, 16))
    assert worst < TOL, (worst, where)


def test_a_rig_in_other_units_is_found_with_its_scale(api, ga):
    """A converter that scaled the rig (here 1/100, as fast64 and FBX rigs
    may be): A holds the scale, the poses follow at that scale."""
    model = ga.load_model(BASIC)
    anim = ga.load(BASIC_WALK)
    rest = world(model)
    a = Matrix.Scale(0.01, 4) @ Y_TO_Z
    obj, names = build("scaled", model, lambda j: Matrix.Translation((a @ rest[j]).to_translation())
                       @ (Y_TO_Z @ rest[j]).to_quaternion().to_matrix().to_4x4())
    res = api.import_files([BASIC_WALK], armature=obj, model_file=str(BASIC))
    fr = res.report.files[0]
    assert any("scaled 0.01" in n for n in fr.notes), fr.notes
    worst, where = worst_pose_error(model, anim, obj, names, a, (0, 5, 16, 27))
    assert worst < TOL, (worst, where)


# ---------------------------------------------------------------------------
# Banjo-Kazooie: fast64's bone IDs


def fast64_rig(model, scale=0.1):
    """Bones named as fast64 names them (bk_{i:02}_id{bone_id}), carrying
    hm64_bk64_bone_id only, heads at the pivots in Z-up, scaled."""
    rest = world(model)
    a = Matrix.Scale(scale, 4) @ Y_TO_Z
    obj, names = build("fast64", model, lambda j: Matrix.Translation((a @ rest[j]).to_translation()),
                       names=lambda j: f"bk_{j:02}_id{model.bones[j].bone_id}")
    for j, bone_name in names.items():
        obj.data.bones[bone_name]["hm64_bk64_bone_id"] = model.bones[j].bone_id
    return obj, names, a


def test_fast64_bone_ids_match_banjo_kazooie_bones(api, ga):
    model = ga.load_model(BK)
    anim = ga.load(BK_WALK)
    assert model.format == "bk_model"
    obj, names, a = fast64_rig(model)
    res = api.import_files([BK_WALK], armature=obj, model_file=str(BK))
    fr = res.report.files[0]
    assert fr.ok and not fr.unmatched, fr.summary()
    frames = (0, 10, 20, 30)
    assert moved(model, anim, frames) > 1.0
    worst, where = worst_pose_error(model, anim, obj, names, a, frames)
    assert worst < TOL, (worst, where)


def test_fast64_bone_id_property_works_for_plain_id_matching(api, ga):
    model = ga.load_model(BK)
    obj, names, _a = fast64_rig(model)
    res = api.import_files([BK_WALK], armature=obj)
    fr = res.report.files[0]
    assert fr.ok and not fr.unmatched, fr.summary()
    animated = {k[0].split('"')[1] for k in fcurve_map(res[0])}
    assert animated and animated <= set(names.values())


# ---------------------------------------------------------------------------
# Reports


def test_unmatched_joints_are_reported(api, ga):
    model = ga.load_model(BASIC)
    anim = ga.load(BASIC_WALK)
    skip = {12, 15}  # hand_R, foot_L
    rest = world(model)
    obj, names = build("partial", model, lambda j: Y_TO_Z @ rest[j].normalized(), skip=skip)
    res = api.import_files([BASIC_WALK], armature=obj, model_file=str(BASIC))
    fr = res.report.files[0]
    assert fr.ok, fr.error
    assert sorted(fr.unmatched) == ["12", "15"]
    assert any("have no bone" in n and "hand_R" in n and "foot_L" in n for n in fr.notes), fr.notes
    worst, where = worst_pose_error(model, anim, obj, names, Y_TO_Z, (5, 16))
    assert worst < TOL, (worst, where)


def test_a_rig_of_another_model_and_a_wrong_format_are_errors(api, ga):
    model = ga.load_model(BASIC)
    obj, _names = blemd_rig(model)
    res = api.import_files([SM64DS_WALK], armature=obj, model_file=str(BASIC))
    assert "cannot play on a bdl model" in res.report.files[0].error
    res = api.import_files([BASIC_WALK], armature=obj, model_file=str(SAMPLES / "j3d" / "dance_8x48.bck"))
    assert "Model File" in res.report.files[0].error


# ---------------------------------------------------------------------------
# Export


def test_untouched_retargeted_action_exports_the_original_bytes(api, ga, tmp_path):
    model = ga.load_model(MAYA)
    obj, _names = blemd_rig(model)
    res = api.import_files([MAYA_WALK], armature=obj, model_file=str(MAYA))
    out = tmp_path / "walk.bck"
    api.export_action(out, action=res[0], armature=obj)
    assert out.read_bytes() == MAYA_WALK.read_bytes()


def test_edited_retargeted_bone_is_read_back_through_the_model(api, ga, tmp_path):
    model = ga.load_model(BASIC)
    obj, names = blemd_rig(model)
    res = api.import_files([BASIC_WALK], armature=obj, model_file=str(BASIC))
    action = res[0]
    # turn the head's keys further (a user's edit)
    fcs = fcurve_map(action)
    path = 'pose.bones["head"].rotation_quaternion'
    for index in (1, 2):
        fc = fcs[(path, index)]
        for kp in fc.keyframe_points:
            kp.co[1] += 0.08
        fc.update()
    out = tmp_path / "edited.bck"
    result = api.export_action(out, action=action, armature=obj, rate="FRAMES", tolerance=0.0)
    assert "re-encoded" in str(result)
    edited = ga.load(out)
    # the file's poses are the edited action's poses, up to the game's sine
    # table (4096 entries per turn: angles truncate to 2 pi / 4096, 1.5e-3)
    worst, where = worst_pose_error(model, edited, obj, names, Y_TO_Z, (0, 5, 16, 27))
    assert worst < 3e-3, (worst, where)
    # and the edit is in the file: the original head is off by far more
    assert worst_pose_error(model, ga.load(BASIC_WALK), obj, names, Y_TO_Z, (5,))[0] > 0.05
    # only the head's tracks changed
    before = ga.load(BASIC_WALK)
    head = next(j for j, b in enumerate(model.bones) if b.name == "head")
    for t0, t1 in zip(before.tracks, edited.tracks):
        if t0.target != head:
            assert (bytes(t0.times), bytes(t0.values)) == (bytes(t1.times), bytes(t1.values)), (t0.target, t0.channel)


def bk_model_with_scale(ga, tmp_path, k):
    """The BK figure again with the bone table's translation factor k (the
    sample's is 1, which would hide a missing factor), by the project's
    writer."""
    sys.path.insert(0, str(ROOT / "tools"))
    import make_models  # the project's model writer

    model = ga.load_model(BK)
    bones = [(tuple(b.translation), b.bone_id, b.parent) for b in model.bones]
    path = tmp_path / "figure_k.bin"
    path.write_bytes(make_models.write_bk_model(bones, scale=k))
    out = ga.load_model(path)
    assert out.info["bk_scale"] == k
    return path, out


def shift_keys(action, path, indices, delta):
    fcs = fcurve_map(action)
    for index in indices:
        fc = fcs[(path, index)]
        for kp in fc.keyframe_points:
            kp.co[1] += delta
            kp.handle_left[1] += delta
            kp.handle_right[1] += delta
        fc.update()


def test_untouched_banjo_kazooie_action_on_a_fast64_rig_exports_the_original_bytes(api, ga, tmp_path):
    """The rig keys bones the file has no tracks for (those under a driven
    bone): they are the file's, not new bones."""
    obj, _names, _a = fast64_rig(ga.load_model(BK))
    res = api.import_files([BK_WALK], armature=obj, model_file=str(BK))
    out = tmp_path / "walk.bin"
    api.export_action(out, action=res[0], armature=obj)
    assert out.read_bytes() == BK_WALK.read_bytes()


def test_edited_banjo_kazooie_action_on_a_fast64_rig_is_written_as_deltas_about_the_pivots(api, ga, tmp_path):
    """Banjo-Kazooie's channels are deltas about each bone's pivot, with
    translations in units of the table's factor k: an edited pose is
    written so that the game's matrices of the file are the edited poses."""
    path, model = bk_model_with_scale(ga, tmp_path, 2.5)
    obj, names, a = fast64_rig(model)
    res = api.import_files([BK_WALK], armature=obj, model_file=str(path))
    fr = res.report.files[0]
    assert fr.ok and not fr.unmatched, fr.summary()
    action = res[0]
    chest, thigh = 2, 13  # joints with children: bone IDs 3 and 14
    # a user's edits: the chest turned further, the left thigh moved
    shift_keys(action, f'pose.bones["{names[chest]}"].rotation_quaternion', (1, 3), 0.1)
    shift_keys(action, f'pose.bones["{names[thigh]}"].location', (0, 2), 0.6)
    out = tmp_path / "edited.bin"
    result = api.export_action(out, action=action, armature=obj, rate="FRAMES", tolerance=0.0)
    assert "re-encoded" in str(result)
    edited = ga.load(out)
    frames = (0, 7, 15, 26, 40)
    # the file's game matrices are the edited poses (Blender's evaluated
    # pose bones, through the rig's A and C_i), up to the file's 1/64
    # units: 1/128 degree (1.4e-4 rad) per angle, and k/128 model units
    # per translation (2e-3 of the rig's size at scale 0.1)
    worst, where = worst_pose_error(model, edited, obj, names, a, frames)
    assert worst < 2e-3, (worst, where)
    # the edits are in the file: the original is off by far more
    original = ga.load(BK_WALK)
    assert worst_pose_error(model, original, obj, names, a, frames)[0] > 0.05
    # the thigh's translation is (its translation about the pivot) / k: the
    # game's local delta of the edited pose, here from the game's matrices
    world_now = world(model, edited, 15.0)
    local = (world_now[0] @ Matrix.Translation(-Vector(model.bones[0].translation))).inverted() @ world_now[thigh]
    delta = (local.to_translation() - Vector(model.bones[thigh].translation)) / 2.5
    values = edited.sample([15.0])  # track-major: one value per track
    at = {(t.target, t.channel, t.axis): v for t, v in zip(edited.tracks, values)}
    got = [at[(model.bones[thigh].bone_id, "translation", axis)] for axis in range(3)]
    assert got == pytest.approx(list(delta), abs=1e-4)
    assert max(abs(x) for x in got) > 1.0  # (0.6 / 0.1 / 2.5 = 2.4 file units)
    # only the edited channels changed: every other track keeps its bytes
    before = {(t.target, t.channel, t.axis): t for t in original.tracks}
    after = {(t.target, t.channel, t.axis): t for t in edited.tracks}
    edited_groups = {(model.bones[chest].bone_id, "rotation"), (model.bones[thigh].bone_id, "translation")}
    kept = [key for key in before if key[:2] not in edited_groups]
    assert len(kept) >= 8
    for key in kept:
        t0, t1 = before[key], after.get(key)
        assert t1 is not None, key
        assert (bytes(t0.times), bytes(t0.values)) == (bytes(t1.times), bytes(t1.values)), key
    extra = {key for key in after if key[:2] not in edited_groups} - set(kept)
    assert not extra, sorted(extra)


# ---------------------------------------------------------------------------
# Option Scale


def test_scale_option_sets_the_object_scale_of_a_built_armature(api, ga, tmp_path):
    res = api.import_files([MAYA, MAYA_WALK], scale=0.01)
    fr = [f for f in res.report.files if f.path.endswith(".bck")][0]
    assert fr.ok, fr.error
    obj = bpy.data.objects[fr.owners[0]]
    assert tuple(obj.scale) == pytest.approx((0.01, 0.01, 0.01))
    out = tmp_path / "walk.bck"
    api.export_action(out, action=res[0], armature=obj)
    assert out.read_bytes() == MAYA_WALK.read_bytes()
    # the same import at scale 1: the same keys (scale is only the object's)
    res1 = api.import_files([MAYA, MAYA_WALK], scale=1.0, replace=False)  # keep res[0] to compare
    obj1 = bpy.data.objects[[f for f in res1.report.files if f.path.endswith(".bck")][0].owners[0]]
    assert obj1 != obj and tuple(obj1.scale) == pytest.approx((1.0, 1.0, 1.0))
    a, b = fcurve_map(res[0]), fcurve_map(res1[0])
    assert a.keys() == b.keys()
    for key in a:
        assert [tuple(k.co) for k in a[key].keyframe_points] == [tuple(k.co) for k in b[key].keyframe_points], key


def test_apply_import_scale_sets_only_the_object_scale():
    from io_anim_gameanim.importing.import_scale import apply_import_scale
    from io_anim_gameanim.shared.options import ImportOptions

    arm = bpy.data.armatures.new("s")
    obj = bpy.data.objects.new("s", arm)
    obj.rotation_euler = (math.pi / 2, 0, 0)
    apply_import_scale(obj, ImportOptions(scale=0.25))
    assert tuple(obj.scale) == pytest.approx((0.25, 0.25, 0.25))
    assert tuple(obj.rotation_euler) == pytest.approx((math.pi / 2, 0, 0))
    assert ImportOptions().scale == 0.01


def test_model_file_brings_a_model_from_another_folder(api, ga, tmp_path):
    """Issue 32: a model and its animations in different folders (which
    Blender's file browser cannot pick together): the animations picked,
    option Model File naming the model and no rig active import as if the
    model had been picked with them (its rig is built, they go onto it with
    the same keys); with that rig active, Model File changes nothing."""
    import shutil

    (tmp_path / "model").mkdir()
    (tmp_path / "anims").mkdir()
    model = tmp_path / "model" / MAYA.name
    shutil.copy(MAYA, model)
    anims = [tmp_path / "anims" / p.name for p in (MAYA_WALK, MAYA_WAVE)]
    for src, dst in zip((MAYA_WALK, MAYA_WAVE), anims):
        shutil.copy(src, dst)
    res = api.import_files([str(p) for p in anims], model_file=str(model))
    rigs = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    assert len(rigs) == 1 and rigs[0]["gameanim_model_path"] == str(model)
    bck = [f for f in res.report.files if f.path.endswith(".bck")]
    assert len(bck) == 2 and all(f.ok and f.owners == [rigs[0].name] for f in bck), [f.summary() for f in bck]
    # the reference: the model picked with its animations, in a new scene
    def keys(actions):
        return [{key: [tuple(k.co) for k in fc.keyframe_points] for key, fc in fcurve_map(a).items()}
                for a in actions]

    got = keys(res)
    bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
    ref = keys(api.import_files([str(MAYA), str(MAYA_WALK), str(MAYA_WAVE)]))
    assert len(got) == len(ref) == 2 and got == ref
    # the model's rig active: Model File names what it was built from
    rig = [o for o in bpy.data.objects if o.type == "ARMATURE"][0]
    bpy.context.view_layer.objects.active = rig
    again = api.import_files([str(anims[0])], model_file=str(model))
    assert again.report.files[0].ok and again.report.files[0].owners == [rig.name], again.report.files[0].summary()
    assert len([o for o in bpy.data.objects if o.type == "ARMATURE"]) == 1
