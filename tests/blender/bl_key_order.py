"""Key times out of order (J3D files may store them so): Blender sorts
keyframes by time, so the importer bakes such a track's bone (or BTK
input) and Blender shows the game's values (Animation.sample, the game's
bisection over the keys as stored) instead of a curve through the sorted
keys."""
import json
import math
import sys
from pathlib import Path

import bpy
from blhelpers import fcurve_map, pose_path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_evaluators import build, patch  # noqa: E402  (the byte surgery of tests/test_evaluators.py)

# joint 0 translation X: times 0, 10, 4, 20.  The game's halving meets key 2
# (time 4) for frames 4..19 and interpolates 4 -> 20; frames 0..3 hold key 0
# (the search window never reaches key 1).  Sorted keys would draw 0 -> 4 -> 10 -> 20.
KEYS = [(0.0, 1.0, 0.0, 0.5), (10.0, 50.0, 0.0, 0.0), (4.0, -3.0, 1.0, 1.0), (20.0, 8.0, 0.0, 0.0)]


def out_of_order_bck(tmp_path):
    data, which = build("bck", [4, 4, 4, 4, 4, 4])
    assert which[0] == (0, "translation", 0) and which[3][0] == 1
    data = patch(data, *which[0], KEYS)
    path = tmp_path / "unordered.bck"
    path.write_bytes(data)
    return path


def test_a_bone_with_keys_out_of_order_is_baked_to_the_games_values(api, ga, tmp_path):
    path = out_of_order_bck(tmp_path)
    anim = ga.load(str(path))
    res = api.import_files([str(path)], target="NEW")
    action = res[0]
    bones = json.loads(action["gameanim_bones"])
    assert bones["0"][1] == "baked" and bones["1"][1] == "exact"
    arm_obj = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    bone_name = bones["0"][0]
    frames = [float(f) for f in range(0, 21)]
    want = list(anim.tracks[[i for i, t in enumerate(anim.tracks)
                             if (t.target, t.channel, t.axis) == (0, "translation", 0)][0]].evaluate(frames))
    nf = len(frames)
    idx = [i for i, t in enumerate(anim.tracks) if (t.target, t.channel, t.axis) == (0, "translation", 0)][0]
    assert want == list(anim.sample(frames)[idx * nf:(idx + 1) * nf])
    # not the sorted curve: frames 5..9 follow 4 -> 20, not 4 -> 10
    assert not any(math.isclose(w, 50.0) for w in want)
    pb = arm_obj.pose.bones[bone_name]
    bone = arm_obj.data.bones[bone_name]
    rest = bone.matrix_local if bone.parent is None else bone.parent.matrix_local.inverted() @ bone.matrix_local
    scene = bpy.context.scene
    k = json.loads(action["gameanim_options"]).get("translation_scale", 1.0)
    for f, w in zip(frames, want):
        scene.frame_set(int(f))
        local = rest @ pb.matrix_basis
        got = local.to_translation()[0]
        assert abs(got - w * k) <= 1e-4 * max(1.0, abs(w * k)), (f, got, w * k)


def test_ordered_bones_stay_exact_curves(api, ga, tmp_path):
    path = out_of_order_bck(tmp_path)
    res = api.import_files([str(path)], target="NEW")
    bones = json.loads(res[0]["gameanim_bones"])
    fmap = fcurve_map(res[0])
    # the exact bone keeps the file's keys (4 keys, Bezier)
    fc = fmap[(pose_path(bones["1"][0], "location"), 0)]
    assert len(fc.keyframe_points) == 4


def test_a_btk_input_with_keys_out_of_order_is_baked_to_the_games_values(api, ga, tmp_path):
    from bl_btk import plane_with, textured_material

    data, which = build("btk", [3, 3, 3])
    assert which[0] == (0, "translation", 0)
    # times 0, 9, 2: frames 0..2 take the segment 0 -> 9, later ones hold
    # the last key (sorted, the keys would draw 0 -> 2 -> 9)
    data = patch(data, *which[0], [(0.0, 0.5, 0.0, 1.0), (9.0, 5.0, 0.0, 0.0), (2.0, 0.25, 0.0, 0.0)])
    path = tmp_path / "unordered.btk"
    path.write_bytes(data)
    anim = ga.load(str(path))
    mat, images = textured_material("m0", [0])
    plane_with(mat, 1)
    api.import_files([str(path)])
    b = images[0].inputs["Vector"].links[0].from_node  # the chain's last Mapping node
    cx = anim.entries[0]["center"][0]
    frames = [float(f) for f in range(0, 31)]
    t = next(t for t in anim.tracks if (t.target, t.channel, t.axis) == (0, "translation", 0))
    want = list(t.evaluate(frames))
    assert want[1] != 0.5 and want[5] == want[30] == 0.25
    scene = bpy.context.scene
    for f, w in zip(frames, want):
        scene.frame_set(int(f))
        got = b.inputs["Location"].default_value[0]
        assert abs(got - (w + cx)) <= 1e-5, (f, got, w + cx)


def test_a_bone_whose_game_values_overflow_is_baked_to_them(api, ga, tmp_path):
    """Sorted keys, but the first spacing is a denormal (the game's
    1/(t1 - t0) is inf, its Hermite NaN at frame 0) and later values near
    the float maximum overflow.  A Blender Bezier through these keys would
    stay finite; the bone is baked, so that every whole frame shows exactly
    what the game computes: the finite values, and inf or NaN where the
    game's are.  (Onto a rig built from a clean file: a new rig built from
    this one would take its NaN first frame as its rest.)"""
    clean, which = build("bck", [4, 4, 4, 4, 4, 4])
    (tmp_path / "clean.bck").write_bytes(clean)
    api.import_files([str(tmp_path / "clean.bck")], target="NEW")
    arm_obj = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    data = patch(clean, *which[0], [(0.0, 1.0, 0.0, 0.0), (1.4e-45, 2.0, 0.0, 0.0), (10.0, 3.0e38, 0.0, 0.0),
                                    (20.0, -3.0e38, 0.0, 0.0)])
    path = tmp_path / "overflow.bck"
    path.write_bytes(data)
    anim = ga.load(str(path))
    res = api.import_files([str(path)], armature=arm_obj)
    action = res[0]
    bones = json.loads(action["gameanim_bones"])
    assert bones["0"][1] == "baked" and bones["1"][1] == "exact"
    idx = [i for i, t in enumerate(anim.tracks) if (t.target, t.channel, t.axis) == (0, "translation", 0)][0]
    frames = [float(f) for f in range(0, 21)]
    want = list(anim.sample(frames)[idx * len(frames):(idx + 1) * len(frames)])
    assert any(not math.isfinite(w) for w in want) and any(abs(w) > 1e36 for w in want if math.isfinite(w))
    bone_name = bones["0"][0]
    pb = arm_obj.pose.bones[bone_name]
    bone = arm_obj.data.bones[bone_name]
    rest = bone.matrix_local if bone.parent is None else bone.parent.matrix_local.inverted() @ bone.matrix_local
    k = json.loads(action["gameanim_options"]).get("translation_scale", 1.0)
    scene = bpy.context.scene
    for f, w in zip(frames, want):
        scene.frame_set(int(f))
        got = (rest @ pb.matrix_basis).to_translation()[0]
        if math.isfinite(w * k):
            assert abs(got - w * k) <= 1e-4 * max(1.0, abs(w * k)), (f, got, w * k)
        else:   # a frame the game makes inf or NaN is not finite in Blender either
            assert not math.isfinite(got), (f, got, w)
