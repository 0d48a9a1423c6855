"""Animations authored in Blender (keyframe_insert, as a user keys by hand)
export to every format and, imported back onto the same rig, give the
authored pose at every frame within the format's precision: bones with
rest rotations and Euler XYZ, another Euler order, quaternion and
axis-angle rotations, for BCK, BCA, Banjo-Kazooie and JBA; texture
mappings keyed on the BTK chain (Basic and Maya) for BTK.

The comparison is per bone on the parent-relative transform Blender
computes (parent pose^-1 * pose), split into translation, rotation angle
and scale, with the tolerance each format's storage implies (stated per
format below)."""
import math

import bpy
import pytest
from blhelpers import make_rig
from mathutils import Euler, Quaternion

# Per format: (rotation angle, translation, scale) tolerances.  The angle
# of a rotation made of three Euler angles, each off by at most e, is off
# by at most 3e; a translation whose components are each off by at most e
# is off by at most sqrt(3) e.
#  bck: Hermite keys fitted within the export tolerance (default 1e-3) per
#       channel, rotations in whole raw units (pi/32768 at shift 0), f32
#       values: 1e-3 * sqrt(3) + a raw unit;
#  bca: 1/4096 turn and 1/4096 unit grids, half a step per component;
#  bk:  1/64 degree and 1/64 unit, half a step per component;
#  jba: 15/16-bit quaternion components and 11/10-bit translations over
#       each bone's range (here under 3 units: 3/1023/2).
R3 = math.sqrt(3.0)
TOL = {"bck": (3 * (1e-3 + math.pi / 65536) + 1e-5, R3 * 1e-3 + 1e-5, 1e-3 + 1e-5),
       "bca": (3 * math.pi / 4096 + 1e-5, R3 / 8192 + 1e-6, 1 / 8192 + 1e-6),
       "bk": (3 * math.radians(1 / 128) + 1e-5, R3 / 128 + 1e-4, 1 / 128 + 1e-4),
       "jba": (2e-3, R3 * 3 / 2046 + 1e-4, 1e-5)}
FIRST, LAST = 1, 41


def author_rig(modes, with_scale=True):
    """A chain whose bones have rest rotations, one per rotation mode,
    keyed by hand every 8 frames (Bezier keys with automatic handles)."""
    spec = [("root", None, (0, 0, 0), (0.2, 0.1, 1.0), 0.3),
            ("mid", "root", (0.2, 0.1, 1.0), (0.9, 0.4, 1.5), -0.7),
            ("tip", "mid", (0.9, 0.4, 1.5), (1.0, 1.3, 1.6), 1.1),
            ("side", "root", (0.2, 0.1, 1.0), (-0.5, 0.0, 1.2), 0.0)]
    rig = make_rig("Rig", spec[:len(modes)])
    for i, b in enumerate(rig.data.bones):
        b["gameanim_bone_id"] = i + 3
    for f in range(FIRST, LAST + 1, 8):
        for j, (pb, mode) in enumerate(zip(rig.pose.bones, modes)):
            pb.rotation_mode = mode
            e = Euler((0.6 * math.sin(f / 9 + j), 0.8 * math.cos(f / 7 - j), 0.4 * math.sin(f / 5)), "XYZ")
            if mode == "QUATERNION":
                pb.rotation_quaternion = e.to_quaternion()
                pb.keyframe_insert("rotation_quaternion", frame=f)
            elif mode == "AXIS_ANGLE":
                axis, angle = e.to_quaternion().to_axis_angle()
                pb.rotation_axis_angle = (angle, *axis)
                pb.keyframe_insert("rotation_axis_angle", frame=f)
            else:
                pb.rotation_euler = e.to_matrix().to_euler(mode)
                pb.keyframe_insert("rotation_euler", frame=f)
            pb.location = (0.3 * math.sin(f / 6 + j), 0.2 * j, -0.4 * math.cos(f / 8))
            pb.keyframe_insert("location", frame=f)
            if with_scale:
                s = 1.0 + 0.25 * math.sin(f / 10 + j)
                pb.scale = (s, s, s) if j else (s, 1.1, 0.9)
                pb.keyframe_insert("scale", frame=f)
    return rig


def local_poses(rig, frames):
    scene = bpy.context.scene
    out = {}
    for f in frames:
        scene.frame_set(f)
        per = {}
        for pb in rig.pose.bones:
            m = pb.matrix if pb.parent is None else pb.parent.matrix.inverted() @ pb.matrix
            per[pb.name] = m.decompose()
        out[f] = per
    return out


def compare(want, got, tol, label):
    rt, tt, st = tol
    worst = [0.0, 0.0, 0.0]
    for f in want:
        for bone, (t0, q0, s0) in want[f].items():
            t1, q1, s1 = got[f][bone]
            dt = (t1 - t0).length
            dq = q0.rotation_difference(q1).angle
            dq = min(dq, 2 * math.pi - dq)
            ds = max(abs(a - b) for a, b in zip(s0, s1))
            worst = [max(worst[0], dq), max(worst[1], dt), max(worst[2], ds)]
            assert dq <= rt and dt <= tt and ds <= st, (
                f"{label} {bone} frame {f}: rotation {dq:.3g}, translation {dt:.3g}, scale {ds:.3g}")
    return worst


def reimport(api, rig, path, fmt):
    """Removes the authored action and imports the file back onto the rig
    (file frame 0 = scene frame FIRST; Banjo-Kazooie keeps frame numbers)."""
    rig.animation_data.action = None
    offset = 0.0 if fmt == "bk" else float(FIRST)
    bm = {"bk": "ID", "jba": "NAME"}.get(fmt, "INDEX")
    res = api.import_files([str(path)], armature=rig, frame_offset=offset, bone_match=bm)
    fr = res.report.files[0]
    assert fr.ok and not fr.unmatched, (fr.error, fr.unmatched)
    return res[0]


MODES = [("XYZ", "ZXY", "QUATERNION", "AXIS_ANGLE"), ("YZX", "XYZ", "XZY", "QUATERNION")]


@pytest.mark.parametrize("fmt", ["bck", "bca", "bk", "jba"])
@pytest.mark.parametrize("modes", MODES, ids=["-".join(m) for m in MODES])
def test_authored_rig_round_trip(fmt, modes, api, ga, tmp_path):
    rig = author_rig(modes, with_scale=fmt != "jba")
    if fmt == "bk":
        # Banjo-Kazooie scales in model axes: a non-uniform scale on a bone
        # with a rest rotation is a skew it cannot hold; keep scales uniform
        pb = rig.pose.bones[0]
        for f in range(FIRST, LAST + 1, 8):
            s = 1.0 + 0.25 * math.sin(f / 10)
            pb.scale = (s, s, s)
            pb.keyframe_insert("scale", frame=f)
    action = rig.animation_data.action
    frames = list(range(FIRST, LAST + 1))
    want = local_poses(rig, frames)
    out = tmp_path / f"authored.{fmt}"
    result = api.export_action(str(out), action, format=fmt, armature=rig)
    assert result.ok and out.stat().st_size > 0
    anim = ga.load(str(out))
    assert anim.format == fmt
    n_bones = len({t.target for t in anim.tracks if t.target != "__root_motion__"})
    assert n_bones == len(modes)
    reimport(api, rig, out, fmt)
    got = local_poses(rig, frames)
    compare(want, got, TOL[fmt], fmt)
    if fmt == "bck":
        # key reduction: Hermite keys, not one key per frame
        animated = [t for t in anim.tracks if len(t) > 1]
        assert animated and all(len(t) < len(frames) for t in animated)
        assert sum(len(t) for t in animated) < 0.6 * len(animated) * len(frames)


def test_a_skew_the_file_cannot_hold_is_a_warning_with_the_bone(api, tmp_path):
    """Banjo-Kazooie scales in model axes: a non-uniform scale keyed on a
    bone whose rest is rotated is a skew that translation / rotation / scale
    cannot hold.  The export writes what it can and says so, naming the
    bone and a frame; a uniform scale (no skew) says nothing of the kind."""
    for scales, uniform in (((1, 1, 1), (2, 1, 1)), False), (((1, 1, 1), (2, 2, 2)), True):
        bpy.ops.wm.read_homefile(use_empty=True)
        rig = make_rig("Skew", [("root", None, (0, 0, 0), (0, 1, 0), 0.0), ("arm", "root", (0, 1, 0), (1, 1, 0), 0.5)])
        for i, b in enumerate(rig.data.bones):
            b["gameanim_bone_id"] = i + 1
        pb = rig.pose.bones["arm"]
        for f, sc in zip((1, 10), scales):
            pb.scale = sc
            pb.keyframe_insert("scale", frame=f)
        res = api.export_action(str(tmp_path / "skew.bin"), rig.animation_data.action, format="bk", armature=rig,
                                frame_range="CUSTOM", frame_start=1, frame_end=10)
        said = [w for w in res.warnings if "skewed scale" in w]
        if uniform:
            assert not said, said
        else:
            assert len(said) == 1 and "'arm'" in said[0] and "file frame" in said[0], res.warnings


def test_identity_rest_euler_keys_are_carried_exactly(api, ga, tmp_path):
    """Bones without rest rotations in Euler XYZ map one to one: the BCK
    holds the authored keys (same count and times), and the re-imported
    curves equal the authored ones between keys too."""
    rig = make_rig("Rig", [("a", None, (0, 0, 0), (0, 1, 0), 0.0), ("b", "a", (0, 1, 0), (0, 2, 0), 0.0)])
    for f, v in ((1, 0.0), (9, 0.8), (25, -0.4), (41, 0.1)):
        for pb in rig.pose.bones:
            pb.rotation_mode = "XYZ"
            pb.rotation_euler = (v, -v / 2, 0.3)
            pb.keyframe_insert("rotation_euler", frame=f)
            pb.location = (v, 0.0, -v)
            pb.keyframe_insert("location", frame=f)
    action = rig.animation_data.action
    from blhelpers import fcurve_map, pose_path

    authored = {k: fc for k, fc in fcurve_map(action).items()}
    out = tmp_path / "exact.bck"
    api.export_action(str(out), action, format="bck")
    anim = ga.load(str(out))
    rx = anim.find(1, "rotation", 0)
    assert list(rx.times) == [0.0, 8.0, 24.0, 40.0]
    back = reimport(api, rig, out, "bck")
    got = fcurve_map(back)
    unit = (1 << anim.rotation_frac) * math.pi / 32768.0
    for f in [1 + 0.25 * i for i in range(161)]:
        for prop, tol in (("rotation_euler", unit), ("location", 1e-5)):
            for axis in range(3):
                key = (pose_path("b", prop), axis)
                assert got[key].evaluate(f) == pytest.approx(authored[key].evaluate(f), abs=tol), (prop, axis, f)


# ---------------------------------------------------------------------------
# BTK


def keyed_material(api, calc_type):
    mat = bpy.data.materials.new("painted")
    if mat.node_tree is None:
        mat.use_nodes = True
    tree = mat.node_tree
    img = tree.nodes.new("ShaderNodeTexImage")
    nodes = api.add_texture_mapping(mat, 0, calc_type=calc_type, center=(0.25, 0.75))
    assert img.inputs["Vector"].links[0].from_node == nodes["b"]
    if calc_type == "basic":
        keyed = [(nodes["a"], "Rotation", 2, lambda f: 0.3 * math.sin(f / 6)),
                 (nodes["b"], "Scale", 0, lambda f: 1.0 + 0.5 * math.sin(f / 9)),
                 (nodes["b"], "Scale", 1, lambda f: 1.2 - 0.3 * math.cos(f / 5)),
                 (nodes["b"], "Location", 0, lambda f: 0.25 + 0.05 * f),
                 (nodes["b"], "Location", 1, lambda f: 0.25 - 0.02 * f)]
    else:
        keyed = [(nodes["b"], "Rotation", 2, lambda f: 0.3 * math.sin(f / 6)),
                 (nodes["a"], "Scale", 0, lambda f: 1.0 + 0.5 * math.sin(f / 9)),
                 (nodes["a"], "Scale", 1, lambda f: 1.2 - 0.3 * math.cos(f / 5)),
                 (nodes["a"], "Location", 0, lambda f: -0.5 + 0.05 * f),
                 (nodes["a"], "Location", 1, lambda f: -0.5 - 0.02 * f)]
    for f in range(FIRST, LAST + 1, 5):
        for node, inp, comp, fn in keyed:
            sock = node.inputs[inp]
            v = list(sock.default_value)
            v[comp] = fn(f)
            sock.default_value = v
            sock.keyframe_insert("default_value", index=comp, frame=f)
    return mat, nodes, keyed


@pytest.mark.parametrize("calc_type", ["basic", "maya"])
def test_authored_texture_mapping_round_trip(calc_type, api, ga, tmp_path):
    mat, nodes, keyed = keyed_material(api, calc_type)
    tree = mat.node_tree
    from blhelpers import fcurves_of

    slot = getattr(tree.animation_data, "action_slot", None)
    authored = {(fc.data_path, fc.array_index): fc for fc in fcurves_of(tree.animation_data.action, slot)}
    want = {}
    for node, inp, comp, _fn in keyed:
        key = (node.inputs[inp].path_from_id("default_value"), comp)
        want[key] = [authored[key].evaluate(f) for f in range(FIRST, LAST + 1)]
    out = tmp_path / "painted.btk"
    result = api.export_materials(str(out), [mat])
    assert result.ok, result.error
    anim = ga.load(str(out))
    assert anim.calc_type == calc_type and anim.entries[0]["material"] == "painted"
    assert anim.entries[0]["center"][:2] == pytest.approx((0.25, 0.75)) if calc_type == "basic" else True
    tree.animation_data.action = None
    res = api.import_files([str(out)], materials=[mat], frame_offset=float(FIRST))
    assert res.report.files[0].ok
    back = res[0]
    slot = getattr(tree.animation_data, "action_slot", None)
    got = {(fc.data_path, fc.array_index): fc for fc in fcurves_of(back, slot)}
    unit = (1 << anim.rotation_frac) * math.pi / 32768.0
    for key, values in want.items():
        tol = 1e-4 + (unit if "inputs[2]" in key[0] else 1e-5)
        for f, v in zip(range(FIRST, LAST + 1), values):
            assert got[key].evaluate(f) == pytest.approx(v, abs=tol), (key, f)


def test_btk_without_a_mapping_chain_is_an_error(api, tmp_path):
    mat = bpy.data.materials.new("plain")
    if mat.node_tree is None:
        mat.use_nodes = True
    mapping = mat.node_tree.nodes.new("ShaderNodeMapping")
    mapping.inputs["Location"].keyframe_insert("default_value", index=0, frame=1)
    from io_anim_gameanim.exporting.export_tracks import ExportError

    with pytest.raises(ExportError, match="no texture-mapping chain on material"):
        api.export_materials(str(tmp_path / "x.btk"), [mat])
    assert not (tmp_path / "x.btk").exists()


def test_root_motion_from_the_object_for_jba(api, ga, tmp_path):
    rig = author_rig(("XYZ", "QUATERNION"), with_scale=False)
    rig.rotation_mode = "QUATERNION"
    for f in (FIRST, 21, LAST):
        rig.location = (0.0, 0.05 * f, 0.0)
        rig.keyframe_insert("location", frame=f)
        rig.rotation_quaternion = Quaternion((0, 0, 1), 0.02 * f)
        rig.keyframe_insert("rotation_quaternion", frame=f)
    out = tmp_path / "walk.jba"
    api.export_action(str(out), rig.animation_data.action, format="jba")
    anim = ga.load(str(out))
    ty = anim.find("__root_motion__", "translation", 1)
    assert ty is not None
    assert ty.evaluate(20.0)[0] == pytest.approx(0.05 * 21, abs=2e-3)
    qz = anim.find("__root_motion__", "rotation_quaternion", 3)
    assert qz.evaluate(40.0)[0] == pytest.approx(math.sin(0.02 * LAST / 2), abs=1e-3)


def test_sampled_curves_carry_their_own_slopes_into_the_key_reduction(api, ga, tmp_path):
    """A Bezier curve whose handles are not one third of the way to the
    neighbouring key is sampled per frame for BCK; the samples go to the
    encoder with the curve's own derivatives, so the fitted file needs fewer
    keys than a fit that estimates slopes from the samples alone (the same
    samples, fitted here with Track.fit), and stays within the tolerance."""
    rig = make_rig("Rig", [("a", None, (0, 0, 0), (0, 1, 0), 0.0)])
    pb = rig.pose.bones[0]
    pb.rotation_mode = "XYZ"
    for f, v in ((1, 0.0), (31, 1.2), (61, -0.6), (91, 0.4), (121, 0.0)):
        pb.location = (v, 0.0, 0.0)
        pb.keyframe_insert("location", index=0, frame=f)
    action = rig.animation_data.action
    from blhelpers import fcurve_map, pose_path

    fc = fcurve_map(action)[(pose_path("a", "location"), 0)]
    for kp in fc.keyframe_points:  # long handles: not a Hermite key
        kp.handle_left_type = kp.handle_right_type = "FREE"
        kp.handle_left = (kp.co[0] - 14.0, kp.co[1] - 0.3)
        kp.handle_right = (kp.co[0] + 14.0, kp.co[1] + 0.3)
    fc.update()
    out = tmp_path / "slopes.bck"
    tol = 1e-3
    api.export_action(str(out), action, format="bck", tolerance=tol)
    anim = ga.load(str(out))
    got = anim.find(0, "translation", 0)
    frames = [float(f) for f in range(0, 121)]
    want = [fc.evaluate(f + 1) for f in frames]
    estimated = ga.Track(0, "translation", 0, frames, want, interpolation=[ga.LINEAR] * len(frames)).fit(tol)
    assert len(got) < len(estimated), (len(got), len(estimated))
    values = got.evaluate(frames)
    assert max(abs(a - b) for a, b in zip(values, want)) <= tol + 1e-5


@pytest.mark.parametrize("first", ["CONSTANT", "LINEAR", "BEZIER"])
@pytest.mark.parametrize("last", ["CONSTANT", "LINEAR", "BEZIER"])
@pytest.mark.parametrize("nkeys", [1, 3])
def test_linear_extrapolation_reads_back_as_blender_evaluates_it(first, last, nkeys, ga):
    """gameanim.evaluate_fcurve (what the export samples with) against
    Blender's own FCurve.evaluate, before and after the keys: the end key's
    own interpolation decides (CONSTANT holds, LINEAR continues the chord
    to its neighbour, BEZIER its outer handle)."""
    from array import array

    action = bpy.data.actions.new("extrap")
    from io_anim_gameanim import compat
    from io_anim_gameanim.exporting import readback

    sink = compat.CurveSink(action, "OBJECT", "Obj")
    fc = sink.new_fcurve("location", 0)
    kp = fc.keyframe_points
    pts = [(2.0, 1.0), (6.0, 3.0), (11.0, -2.0)][:nkeys]
    kp.add(len(pts))
    for k, (x, y) in zip(kp, pts):
        k.co = (x, y)
        k.handle_left_type = k.handle_right_type = "FREE"
        k.handle_left = (x - 1.5, y - 0.9)
        k.handle_right = (x + 2.0, y + 0.7)
    kp[0].interpolation = first
    kp[len(pts) - 1].interpolation = last
    if len(pts) > 2:
        kp[1].interpolation = "BEZIER"
    fc.extrapolation = "LINEAR"
    keys = readback.read_keys(fc)
    frames = [-3.0, 0.0, 1.5, 2.0, 4.0, 12.0, 15.5, 20.0]
    got = ga.evaluate_fcurve(keys.co, keys.left, keys.right, keys.interp, frames, extrapolation="LINEAR")
    want = array("f", [fc.evaluate(f) for f in frames])
    assert list(got) == pytest.approx(list(want), abs=1e-4)
    bpy.data.actions.remove(action)
