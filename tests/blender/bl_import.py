"""Import behaviour: several files, the report, slots, new armatures, the
operator, what is stored on the action, loops, the scene range, bone
matching rules, and the add-on without the C module."""
import base64
import json
import math
import sys

import bpy
import pytest
from blhelpers import fcurve_map, fcurves_of, make_rig, mat_max_diff, pose_path, samples

HAS_SLOTS = "slots" in bpy.types.Action.bl_rna.properties


def chain_rig(names):
    spec, prev = [], None
    for i, n in enumerate(names):
        head = (0.0, float(i), 0.0)
        spec.append((n, prev, head, (0.0, i + 0.8, 0.0), 0.0))
        prev = n
    return make_rig("Rig", spec)


def matrices(rig):
    return {pb.name: [list(r) for r in pb.matrix] for pb in rig.pose.bones}


# ---------------------------------------------------------------------------
# several files


def test_several_files_one_action_each_first_assigned_rest_on_nla(api):
    files = samples("j3d/walk_type0.bck", "j3d/swing_type1_shift2.bck", "j3d/jump_sound.bck")
    rig = chain_rig(["a", "b", "c"])
    res = api.import_files([str(p) for p in files], armature=rig)
    assert [a.name for a in res] == ["walk_type0.bck", "swing_type1_shift2.bck", "jump_sound.bck"]
    assert rig.animation_data.action == res[0]
    tracks = rig.animation_data.nla_tracks
    # every action, the assigned one too, on a muted track (issue 32): muted, they change nothing that plays
    assert [t.strips[0].action for t in tracks] == [res[0], res[1], res[2]]
    assert all(t.mute for t in tracks)
    if HAS_SLOTS:
        assert [t.strips[0].action_slot for t in tracks] == [res[0].slots[0], res[1].slots[0], res[2].slots[0]]


def test_every_imported_action_survives_a_save_whatever_is_assigned(api, tmp_path):
    """Issue 32: the user picks another action for the rig (the first one
    imported then has no other user than its NLA strip), saves and
    reopens: every imported action is still there, with its keys; the
    pose the rig shows right after the import is the assigned action's
    alone (the muted strips add nothing).  With Other Files = Fake User
    every action, the assigned one too, has a fake user instead."""
    files = [str(p) for p in samples("j3d/walk_type0.bck", "j3d/swing_type1_shift2.bck", "j3d/jump_sound.bck")]
    rig = chain_rig(["a", "b", "c"])
    res = api.import_files(files, armature=rig)
    frame = 3
    bpy.context.scene.frame_set(frame)
    with_nla = matrices(rig)
    rig.animation_data.use_nla = False  # (the assigned action alone)
    bpy.context.scene.frame_set(frame)
    assert matrices(rig) == with_nla
    rig.animation_data.use_nla = True
    names = sorted(a.name for a in res)
    keys = {a.name: len(fcurves_of(a)) for a in res}
    rig.animation_data.action = res[2]
    assert not res[0].use_fake_user
    blend = tmp_path / "saved.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    assert sorted(a.name for a in bpy.data.actions) == names
    assert {a.name: len(fcurves_of(a)) for a in bpy.data.actions} == keys
    bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
    rig = chain_rig(["a", "b", "c"])
    res = api.import_files(files, armature=rig, others="FAKE_USER")
    assert [a.use_fake_user for a in res] == [True, True, True] and not rig.animation_data.nla_tracks
    rig.animation_data.action = res[2]
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    assert sorted(a.name for a in bpy.data.actions) == names


def test_several_files_as_fake_user_actions(api):
    files = samples("j3d/walk_type0.bck", "j3d/swing_type1_shift2.bck")
    rig = chain_rig(["a", "b", "c"])
    res = api.import_files([str(p) for p in files], armature=rig, others="FAKE_USER")
    assert rig.animation_data.action == res[0]
    assert len(rig.animation_data.nla_tracks) == 0
    assert res[1].use_fake_user and res[1].users == 1


def test_operator_imports_several_files(addon):
    files = samples("j3d/walk_type0.bck", "bca/swing_odd.bca")
    rig = chain_rig([f"j{i}" for i in range(6)])
    bpy.context.view_layer.objects.active = rig
    directory = str(files[0].parent.parent)
    result = bpy.ops.import_anim.gameanim(
        directory=directory, files=[{"name": f"{p.parent.name}/{p.name}"} for p in files])
    assert result == {"FINISHED"}
    assert rig.animation_data.action.name == "walk_type0.bck"
    assert "swing_odd.bca" in bpy.data.actions
    from io_anim_gameanim.importing import importer

    assert [f.format for f in importer.LAST_REPORT.files] == ["bck", "bca"]


# ---------------------------------------------------------------------------
# report


def test_missing_bones_are_reported_not_fatal(api):
    path = samples("j3d/walk_type0.bck")[0]
    rig = chain_rig(["only"])
    res = api.import_files([str(path)], armature=rig)
    fr = res.report.files[0]
    assert fr.ok and len(res) == 1
    assert fr.unmatched == ["1", "2"]
    text = res.report.text()
    assert "2 target(s) found no bone or material: 1, 2" in text
    assert "Imported 1 of 1 file(s)" in text


def test_bad_file_is_reported_and_the_others_import(api, tmp_path):
    bad = tmp_path / "broken.bck"
    good = samples("j3d/walk_type0.bck")[0]
    bad.write_bytes(good.read_bytes()[:100])
    res = api.import_files([str(bad), str(good)], target="NEW")
    assert [f.ok for f in res.report.files] == [False, True]
    assert "bck" in res.report.files[0].error and "offset" in res.report.files[0].error
    assert [a.name for a in res] == ["walk_type0.bck"]


def test_onto_a_given_armature_files_are_loaded_one_at_a_time(api, tmp_path):
    """With a target armature each file is loaded, imported and let go
    before the next is read (a folder import holds one decoded file at a
    time); a new armature needs every file first.  Seen through the
    progress callback's order."""
    files = [str(p) for p in samples("j3d/walk_type0.bck", "j3d/swing_type1_shift2.bck", "j3d/jump_sound.bck")]
    bad = tmp_path / "broken.bck"
    bad.write_bytes(b"J3D1bck1" + bytes(40))
    files.insert(1, str(bad))
    stages = []
    rig = chain_rig(["a", "b", "c"])
    res = api.import_files(files, armature=rig, progress=lambda i, n, path, stage: stages.append(stage[0]))
    assert "".join(stages) == "lillili", stages
    assert [f.ok for f in res.report.files] == [True, False, True, True]
    assert len(res) == 3
    stages.clear()
    api.import_files(files, target="NEW", progress=lambda i, n, path, stage: stages.append(stage[0]))
    assert "".join(stages) == "lllliii", stages


@pytest.mark.parametrize("target", ["given", "NEW"])
def test_the_decoded_file_is_let_go_before_blender_gets_its_keys(api, ga, monkeypatch, target):
    """Every curve is planned first; then the importer drops the Animation
    and only then creates the action and writes the keys.  Seen through
    the Animation's reference count while the keys are written: the
    test's own list is its only holder by then.  The baked curves (all of
    the JBA's) come with their buffers, so nothing keeps the decoded keys
    and Blender's keys can reuse their memory; exact channels (the BCK's)
    hold their Track until written, their buffers made one at a time."""
    from io_anim_gameanim.importing import curve_writer

    loaded, counts, lazy = [], [], []
    real_load, real_write = ga.load, curve_writer.write_plans

    def load(*a, **kw):
        anim = real_load(*a, **kw)
        loaded.append(anim)
        return anim

    def write_plans(sink, plans, *rest):
        # (the files are written in order, one write_plans call each)
        counts.append(sys.getrefcount(loaded[len(counts)]))
        lazy.append(sum(p.co is None for p in plans))
        return real_write(sink, plans, *rest)

    monkeypatch.setattr(ga, "load", load)
    monkeypatch.setattr(curve_writer, "write_plans", write_plans)
    files = [str(p) for p in samples("jba/legacy_humanoid_106x300.jba", "j3d/walk_type0.bck")]
    kw = {"armature": chain_rig(["a", "b", "c"])} if target == "given" else {"target": "NEW"}
    res = api.import_files(files, **kw)
    assert all(f.ok for f in res.report.files), res.report.text()
    assert len(counts) == 2
    # 2: the test's list and getrefcount's own argument (a reference the
    # importer still held would make it 3 or more)
    assert counts == [2, 2], counts
    assert lazy[0] == 0 and lazy[1] > 0, lazy  # JBA: every curve baked; BCK: exact channels


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_exact_channels_written_one_track_at_a_time_equal_the_exports_plans(api, ga, tmp_path):
    """The importer plans an exact bone's curves as it writes them and
    writes a track's keys as Track.bezier gives them where no plan would
    change them (rig_mapping.ExactChannels, curve_writer.write_plans).  A
    looping BCK with the cases that take the other way: keys spanning the
    period (Cycles, written as given), keys inside it (held keys at frame 0
    and at the duration), a step (two keys on one frame), channels the
    file leaves out (the defaults).  Every curve equals the plan the export
    makes of the same file (plan_bones without lazy: plan_track for each
    track) and the notes' rules checked directly."""
    from io_anim_gameanim.importing import import_plan
    from io_anim_gameanim.shared import options, rig_mapping, rig_match

    T, B, C = ga.Track, ga.BEZIER, ga.CONSTANT
    tracks = [
        T(0, "rotation", 0, [0.0, 10.0, 20.0, 30.0], [0.1, 0.5, -0.2, 0.1], [0.0, 0.02, 0.0, 0.0],
          [0.0, 0.02, 0.0, 0.0], interpolation=B),                                  # spans 0..30
        T(0, "scale", 0, [0.0], [1.5], interpolation=C),                             # one key
        T(1, "rotation", 2, [6.0, 18.0], [0.3, -0.4], [0.0, 0.0], [0.0, 0.0], interpolation=B),  # inside
        T(1, "translation", 1, [0.0, 12.0, 12.0, 30.0], [1.0, 1.0, 4.0, 4.0], interpolation=C),  # a step
    ]
    path = tmp_path / "cases.bck"
    path.write_bytes(ga.Animation("bck", tracks, frame_count=30, loop="loop").to_bytes())
    rig = chain_rig(["a", "b", "c"])
    res = api.import_files([str(path)], armature=rig)
    assert all(f.ok for f in res.report.files), res.report.text()
    assert sorted(res.report.files[0].exact) == ["a", "b"]
    curves = fcurve_map(res[0])

    opts = options.make_options()
    anim = ga.load(str(path))
    tm = import_plan.time_map_for(anim, opts, bpy.context.scene)
    mapping = rig_match.match_bones(anim, rig, opts.bone_match_for(anim.format), opts.id_property)[0]
    _, plans = rig_mapping.plan_bones(anim, rig, mapping, opts, tm)
    planned = [cp for plan in plans for cp in plan.curves]
    assert len(planned) == len(curves) == 18  # nine channels a bone

    def pairs(fc, prop):
        return [round(v, 4) for k in fc.keyframe_points for v in getattr(k, prop)]

    assert sum(cp.bezier for cp in planned) >= 2  # (the rotations at least)

    for cp in planned:
        fc = curves[(cp.path, cp.index)]
        assert pairs(fc, "co") == [round(v, 4) for v in cp.co], cp
        assert [k.interpolation for k in fc.keyframe_points] == [
            {0: "CONSTANT", 1: "LINEAR", 2: "BEZIER"}[i] for i in cp.interp], cp
        kps = fc.keyframe_points
        xs = cp.co[0::2]
        if any(b - a < 0.01 for a, b in zip(xs, xs[1:])):
            continue  # (a step's handles: bl_exact's value checks)
        for i in range(len(cp.interp) - 1):
            if cp.interp[i] == 2:  # the handles a Bezier segment uses (the others do not count)
                assert [round(v, 4) for v in (*kps[i].handle_right, *kps[i + 1].handle_left)] == [
                    round(v, 4) for v in (*cp.right[2 * i:2 * i + 2], *cp.left[2 * i + 2:2 * i + 4])], cp
        assert [m.type for m in fc.modifiers] == (["CYCLES"] if cp.cycles else []), cp

    # the rules, from the notes: a spanning curve keeps its keys under a
    # Cycles modifier; one inside the period gets held keys at 0 and 30; a
    # one-key curve has no modifier; the step's first key moves just before
    # frame 12 and holds (STEP_SEPARATION); a channel the file leaves out holds its default
    rx = curves[(pose_path("a", "rotation_euler"), 0)]
    assert [k.co[0] for k in rx.keyframe_points] == [0.0, 10.0, 20.0, 30.0]
    assert [m.type for m in rx.modifiers] == ["CYCLES"]
    rz = curves[(pose_path("b", "rotation_euler"), 2)]
    assert [round(k.co[0], 4) for k in rz.keyframe_points] == [0.0, 6.0, 18.0, 30.0]
    assert rz.keyframe_points[0].co[1] == pytest.approx(0.3, abs=1e-4) \
        and rz.keyframe_points[-1].co[1] == pytest.approx(-0.4, abs=1e-4)  # (the 16-bit rotation table)
    sx = curves[(pose_path("a", "scale"), 0)]
    assert [tuple(k.co) for k in sx.keyframe_points] == [(0.0, 1.5)] and not len(sx.modifiers)
    ty = curves[(pose_path("b", "location"), 1)]
    xs = [k.co[0] for k in ty.keyframe_points]
    before = [i for i, x in enumerate(xs) if 11.99 < x < 12.0]
    assert len(before) == 1 and xs[before[0] + 1] == 12.0, xs
    assert ty.keyframe_points[before[0]].interpolation == "CONSTANT"
    sy = curves[(pose_path("b", "scale"), 1)]
    assert [tuple(k.co) for k in sy.keyframe_points] == [(0.0, 1.0)]


def test_a_failed_write_leaves_no_half_written_action(api, monkeypatch):
    """An error while the keys are written removes that file's action (no
    half-filled action is left) and the other files still import."""
    from io_anim_gameanim import bulk_keys

    calls = []
    real = bulk_keys.write_keys

    def write_keys(*a, **kw):
        calls.append(1)
        if len(calls) == 5:
            raise RuntimeError("simulated failure")
        return real(*a, **kw)

    monkeypatch.setattr(bulk_keys, "write_keys", write_keys)
    files = [str(p) for p in samples("j3d/walk_type0.bck", "j3d/jump_sound.bck")]
    before = set(bpy.data.actions.keys())
    res = api.import_files(files, armature=chain_rig(["a", "b", "c"]))
    assert [f.ok for f in res.report.files] == [False, True]
    assert "simulated failure" in res.report.files[0].error
    assert set(bpy.data.actions.keys()) - before == {"jump_sound.bck"}
    assert [a.name for a in res] == ["jump_sound.bck"]


def test_operator_report_lists_baked_bones(addon, api):
    path = samples("j3d/walk_type0.bck")[0]
    rig = make_rig("Rig", [("a", None, (0, 0, 0), (1, 0, 0), 0.0), ("b", "a", (1, 0, 0), (1, 1, 0), 0.0),
                           ("c", "b", (1, 1, 0), (1, 1, 1), 0.0)])
    res = api.import_files([str(path)], armature=rig)
    text = res.report.text()
    assert "baked" in text and "rest rotation relative to the parent is not the identity" in text


# ---------------------------------------------------------------------------
# slots and motion


def test_slot_is_assigned_and_the_armature_moves(api):
    path = samples("j3d/walk_type0.bck")[0]
    rig = chain_rig(["a", "b", "c"])
    res = api.import_files([str(path)], armature=rig)
    ad = rig.animation_data
    assert ad.action == res[0]
    if HAS_SLOTS:
        assert ad.action_slot is not None
        assert ad.action_slot == res[0].slots[0]
        assert ad.action_slot.target_id_type == "OBJECT"
        assert len(fcurves_of(res[0], ad.action_slot)) == 27
    scene = bpy.context.scene
    scene.frame_set(0)
    m0 = matrices(rig)
    scene.frame_set(10)
    m1 = matrices(rig)
    moved = [n for n in m0 if mat_max_diff(m0[n], m1[n]) > 1e-3]
    assert moved, "nothing moved between frames 0 and 10"


# ---------------------------------------------------------------------------
# new armatures


@pytest.mark.parametrize("path,prefix,prop", [
    ("j3d/walk_type0.bck", "joint_", "gameanim_index"),
    ("bca/swing_odd.bca", "joint_", "gameanim_index"),
    ("bk/features.bin", "bk_id_", "gameanim_bone_id"),
    ("jba/legacy_walk.jba", None, "gameanim_name"),
])
def test_new_armature_has_identity_rests_and_named_bones(path, prefix, prop, api, ga):
    p = samples(path)[0]
    anim = ga.load(str(p))
    res = api.import_files([str(p)])
    arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    assert len(arms) == 1
    rig = arms[0]
    from io_anim_gameanim.shared.rig_match import anim_targets

    targets = anim_targets(anim)
    assert len(rig.data.bones) == len(targets)
    for b in rig.data.bones:
        assert b.parent is None  # the formats store no hierarchy
        r = b.matrix_local.to_3x3()
        assert max(abs(r[i][j] - (i == j)) for i in range(3) for j in range(3)) < 1e-6
        if prefix:
            assert b.name.startswith(prefix) and b[prop] == int(b.name[len(prefix):])
        else:
            assert b[prop] == b.name
    y_up = anim.format in ("bck", "bca", "bk")
    assert tuple(round(x, 6) for x in rig.rotation_euler) == ((round(math.pi / 2, 6), 0.0, 0.0) if y_up
                                                               else (0.0, 0.0, 0.0))
    assert res.report.files[0].baked == []
    assert rig.animation_data.action == res[0]


def test_active_armature_is_the_default_target(api):
    rig = chain_rig(["a", "b", "c"])
    res = api.import_files([str(samples("j3d/walk_type0.bck")[0])])
    assert res.report.files[0].owners == ["Rig"]
    assert len([o for o in bpy.data.objects if o.type == "ARMATURE"]) == 1


def test_target_active_without_armature_is_an_error(api):
    with pytest.raises(ValueError, match="no active armature"):
        api.import_files([str(samples("j3d/walk_type0.bck")[0])], target="ACTIVE")


def test_unknown_option_is_a_type_error(api):
    with pytest.raises(TypeError, match="unknown import option 'bone_matching'"):
        api.import_files([str(samples("j3d/walk_type0.bck")[0])], bone_matching="NAME")
    with pytest.raises(ValueError, match="bone_match='BY_NAME'"):
        api.import_files([str(samples("j3d/walk_type0.bck")[0])], bone_match="BY_NAME")


# ---------------------------------------------------------------------------
# what the action keeps


def test_action_stores_source_format_and_original_bytes(api, ga):
    path = samples("bca/walk_even_lz77.bca")[0]
    res = api.import_files([str(path)], target="NEW", frame_offset=3.0, translation_scale=2.0)
    act = res[0]
    assert act["gameanim_format"] == "bca"
    assert act["gameanim_fps"] == 30.0
    assert act["gameanim_loop"] == "loop"
    assert act["gameanim_compression"] == "lz77"
    assert act["gameanim_source"] == "walk_even_lz77.bca"
    raw = base64.b64decode(act["gameanim_original"])
    assert raw == path.read_bytes()
    assert api.original_bytes(act) == raw
    # the stored bytes load back to the same animation
    assert ga.load(raw).to_bytes() == path.read_bytes()
    opts = json.loads(act["gameanim_options"])
    assert opts["frame_offset"] == 3.0 and opts["translation_scale"] == 2.0 and opts["bone_match"] == "INDEX"
    bones = json.loads(act["gameanim_bones"])
    assert all(mode == "exact" for _b, mode in bones.values())


# ---------------------------------------------------------------------------
# loops and time


def test_loop_becomes_a_cycles_modifier_over_the_duration(api, ga):
    path = samples("j3d/walk_type0.bck")[0]  # loop, duration 20
    anim = ga.load(str(path))
    res = api.import_files([str(path)], target="NEW")
    animated = [fc for fc in fcurves_of(res[0]) if len(fc.keyframe_points) > 1]
    assert animated
    for fc in animated:
        assert [m.type for m in fc.modifiers] == ["CYCLES"]
        assert fc.modifiers[0].mode_after == "REPEAT"
        assert fc.keyframe_points[0].co[0] == 0.0
        assert fc.keyframe_points[-1].co[0] == anim.frame_count
        for f in (1.5, 7.0, 13.25):
            assert fc.evaluate(f + anim.frame_count) == pytest.approx(fc.evaluate(f), abs=1e-5)


def test_mirrored_loop_becomes_a_mirrored_cycle(api):
    res = api.import_files([str(samples("j3d/swing_type1_shift2.bck")[0])], target="NEW")
    mods = [m for fc in fcurves_of(res[0]) for m in fc.modifiers]
    assert mods and all(m.mode_after == "MIRROR" for m in mods)


def test_once_has_no_cycles_and_option_off_has_none(api):
    res = api.import_files([str(samples("j3d/jump_sound.bck")[0])], target="NEW")
    assert not any(fc.modifiers for fc in fcurves_of(res[0]))
    res = api.import_files([str(samples("j3d/walk_type0.bck")[0])], target="NEW", use_cycles=False)
    assert not any(fc.modifiers for fc in fcurves_of(res[0]))


def test_scene_range_and_frame_offset(api):
    scene = bpy.context.scene
    api.import_files([str(samples("j3d/walk_type0.bck")[0])], target="NEW", frame_offset=10, set_scene_range=True)
    assert (scene.frame_start, scene.frame_end) == (10, 29)  # a loop: frame 20 is frame 0 again
    api.import_files([str(samples("j3d/jump_sound.bck")[0])], target="NEW", frame_offset=5, set_scene_range=True)
    assert (scene.frame_start, scene.frame_end) == (5, 29)


def test_scene_range_untouched_by_default(api):
    scene = bpy.context.scene
    before = (scene.frame_start, scene.frame_end, scene.render.fps)
    api.import_files([str(samples("jba/legacy_walk.jba")[0])], target="NEW")
    assert (scene.frame_start, scene.frame_end, scene.render.fps) == before


# ---------------------------------------------------------------------------
# bone matching


def test_name_matching_is_tolerant_and_god_goes_to_the_root(api, ga):
    path = samples("jba/legacy_walk.jba")[0]
    names = ["Root", "bip01", "BIP01_PELVIS.001", "Bip01  Spine", "bip01 l thigh", "Bip01 R Thigh"]
    rig = chain_rig(names)
    res = api.import_files([str(path)], armature=rig)
    bones = json.loads(res[0]["gameanim_bones"])
    assert bones["GOD"][0] == "Root"
    assert bones["Bip01"][0] == "bip01"
    assert bones["Bip01 Pelvis"][0] == "BIP01_PELVIS.001"
    assert bones["Bip01 Spine"][0] == "Bip01  Spine"
    assert bones["Bip01 L Thigh"][0] == "bip01 l thigh"
    assert res.report.files[0].unmatched == []


def test_bone_id_matching_uses_the_custom_property(api):
    path = samples("bk/features.bin")[0]  # bone IDs 1, 2, 5
    rig = chain_rig(["x", "y", "z"])
    for name, bid in (("x", 5), ("y", 1), ("z", 2)):
        rig.data.bones[name]["gameanim_bone_id"] = bid
    res = api.import_files([str(path)], armature=rig)
    bones = json.loads(res[0]["gameanim_bones"])
    assert {k: v[0] for k, v in bones.items()} == {"1": "y", "2": "z", "5": "x"}


def test_index_matching_follows_bone_order(api):
    path = samples("j3d/walk_type0.bck")[0]
    rig = chain_rig(["first", "second", "third"])
    res = api.import_files([str(path)], armature=rig)
    bones = json.loads(res[0]["gameanim_bones"])
    assert {k: v[0] for k, v in bones.items()} == {"0": "first", "1": "second", "2": "third"}
    fmap = fcurve_map(res[0])
    assert (pose_path("second", "rotation_euler"), 2) in fmap


def test_root_motion_onto_the_armature_object(api):
    path = samples("jba/legacy_walk.jba")[0]
    res = api.import_files([str(path)], target="NEW", root_motion="OBJECT")
    fmap = fcurve_map(res[0])
    assert ("location", 0) in fmap and ("rotation_quaternion", 3) in fmap
    rig = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    assert rig.rotation_mode == "QUATERNION"
    res = api.import_files([str(path)], target="NEW")
    assert ("location", 0) not in fcurve_map(res[0])
    assert any("root motion" in n for n in res.report.files[0].notes)


def _trajectory(anim, frame, k):
    """The root-motion transform of a JBA file at a whole frame, from its
    tracks: T(k * translation) @ R(normalised quaternion)."""
    from mathutils import Matrix, Quaternion, Vector

    def value(channel, axis):
        return anim.find("__root_motion__", channel, axis).evaluate(float(frame))[0]

    t = Vector([value("translation", a) for a in range(3)]) * k
    q = Quaternion([value("rotation_quaternion", a) for a in range(4)]).normalized()
    return Matrix.Translation(t) @ q.to_matrix().to_4x4()


def test_root_motion_moves_the_rig_from_where_it_stands(api, ga, tmp_path):
    """Root Motion = Object: the object's transform is the rig's own
    transform @ the file's trajectory (a rig turned to stand upright stays
    upright), that transform is recorded on the rig so that a second import
    composes with it and not with the animated one, and the export takes it
    back out of the curves."""
    from exphelpers import export_bytes

    path = samples("jba/legacy_walk.jba")[0]
    anim = ga.load(str(path))
    api.import_files([str(path)], target="NEW")
    rig = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    rig.animation_data_clear()
    rig.rotation_mode = "XYZ"
    rig.rotation_euler = (math.pi / 2, 0.0, 0.3)
    rig.location = (1.0, 2.0, 3.0)
    rig.scale = (0.5, 0.5, 0.5)
    bpy.context.view_layer.update()
    rest = rig.matrix_basis.copy()
    k = 0.01
    scene = bpy.context.scene

    def check(action):
        opts = json.loads(action["gameanim_options"])
        for f in (0, 37, 98):
            scene.frame_set(int(round(f * opts["time_scale"] + opts["frame_offset"])))
            want = rest @ _trajectory(anim, f, k)
            assert mat_max_diff(rig.matrix_basis, want) < 1e-4, (f, rig.matrix_basis, want)

    res = api.import_files([str(path)], armature=rig, root_motion="OBJECT", translation_scale=k)
    assert res.report.files[0].ok, res.report.files[0].error
    check(res[0])
    assert list(rig["gameanim_root_rest"]) == pytest.approx([rest[i][j] for i in range(4) for j in range(4)])
    # the rig now walks: a second import still starts from the recorded rest
    scene.frame_set(90)
    assert mat_max_diff(rig.matrix_basis, rest) > 0.1
    res2 = api.import_files([str(path)], armature=rig, root_motion="OBJECT", translation_scale=k)
    check(res2[0])

    # unedited: the original bytes; resampled (a shorter range): the
    # trajectory without the rig's transform
    data, _ = export_bytes(api, res2[0])
    assert data == path.read_bytes()
    opts = json.loads(res2[0]["gameanim_options"])
    out = tmp_path / "short.jba"
    api.export_action(str(out), res2[0], frame_range="CUSTOM", frame_start=opts["frame_offset"],
                      frame_end=opts["frame_offset"] + 60 * opts["time_scale"])
    short = ga.load(str(out))
    for f in (0, 30, 60):
        got, want = _trajectory(short, f, 1.0), _trajectory(anim, f, 1.0)
        assert mat_max_diff(got.to_3x3().to_4x4(), want.to_3x3().to_4x4()) < 2e-3, f
        assert (got.to_translation() - want.to_translation()).length < 0.5, (f, got, want)


def test_a_broken_recorded_rig_transform_fails_the_file_with_a_message(api):
    path = samples("jba/legacy_walk.jba")[0]
    api.import_files([str(path)], target="NEW")
    rig = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    rig["gameanim_root_rest"] = [1.0, 2.0, 3.0]
    res = api.import_files([str(path)], armature=rig, root_motion="OBJECT")
    fr = res.report.files[0]
    assert not fr.ok and "gameanim_root_rest" in fr.error and "16 numbers" in fr.error


# ---------------------------------------------------------------------------
# without the C module


def test_without_gameanim_the_import_reports_how_to_install(api, monkeypatch):
    monkeypatch.setitem(sys.modules, "gameanim", None)  # makes `import gameanim` fail
    monkeypatch.delenv("GAMEANIM_PATH", raising=False)
    from io_anim_gameanim import native

    assert not native.available()
    res = api.import_files([str(samples("j3d/walk_type0.bck")[0])])
    assert not res and "gameanim C module is not installed" in res.report.files[0].error
    # the operator reports the same as an error (bpy.ops raises it)
    with pytest.raises(RuntimeError, match="gameanim C module is not installed"):
        bpy.ops.import_anim.gameanim(filepath=str(samples("j3d/walk_type0.bck")[0]))


# ---------------------------------------------------------------------------
# UI registration


def test_operator_has_every_option_and_a_menu_entry(addon):
    from io_anim_gameanim.shared.options import SPECS

    props = bpy.ops.import_anim.gameanim.get_rna_type().properties
    for name, *_ in SPECS:
        assert name in props, name
    assert "files" in props and "directory" in props
    funcs = [getattr(f, "__name__", "") for f in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize()]
    assert "menu_func_import" in funcs


def test_drag_and_drop_handler_where_blender_has_file_handlers(addon):
    if not hasattr(bpy.types, "FileHandler"):
        assert not hasattr(bpy.types, "IMPORT_ANIM_FH_gameanim")
        return
    fh = bpy.types.IMPORT_ANIM_FH_gameanim
    assert fh.bl_import_operator == "import_anim.gameanim"
    # issue 23: drag and drop claims only extensions no other kind of file
    # uses; .bin / .anim and the compression wrappers' stay with other
    # importers (the file browser and folder imports still take them)
    claimed = set(fh.bl_file_extensions.split(";"))
    assert {".bck", ".btk", ".bca", ".jba", ".bmd", ".bdl"} <= claimed  # (+ model files)
    assert not claimed & {".bin", ".anim", ".szs", ".yaz0", ".yay0", ".lz", ".lz77"}, claimed


def test_menu_label_file_filter_and_drop_handler_agree(addon):
    """Issue 23: the menu names every format, the filter takes every
    extension the import takes, and drag and drop claims a subset."""
    import gameanim
    from io_anim_gameanim import operators
    from io_anim_gameanim.shared import formats

    label = operators.IMPORT_LABEL
    for fmt in formats.names():
        assert fmt.upper() in label, (fmt, label)
    assert "." not in label  # no partial list of extensions
    globs = set(operators.FILTER_GLOB.split(";"))
    # every extension gameanim reads, less those only formats the add-on
    # does not import use, and the model files'
    refused = {e for f, t in gameanim.formats().items() if not formats.known(f) for e in t["extensions"]}
    imported = {e for f in formats.names() for e in formats.traits(f)["extensions"]}
    assert globs == ({"*" + e for e in gameanim.file_extensions() if e not in refused or e in imported}
                     | {"*" + e for e in formats.model_extensions()} | {"*" + e for e in gameanim.ARCHIVE_EXTENSIONS})
    assert {"*.brk", "*.bpk", "*.btp", "*.bva", "*.bck", "*.bmd"} <= globs  # (issue 21: the other J3D kinds)
    if hasattr(bpy.types, "IMPORT_ANIM_FH_gameanim"):
        claimed = bpy.types.IMPORT_ANIM_FH_gameanim.bl_file_extensions.split(";")
        assert {"*" + e for e in claimed} <= globs


def test_the_action_an_import_replaces_is_kept(api):
    """Importing onto a rig whose action nothing else uses: that action
    gets a fake user (saving the file would drop it otherwise) and the
    report says so; an action with other users is left as it is."""
    rig = chain_rig(["a", "b", "c"])
    mine = bpy.data.actions.new("my_handmade")
    ad = rig.animation_data_create()
    ad.action = mine
    assert mine.users == 1 and not mine.use_fake_user
    res = api.import_files([str(samples("j3d/walk_type0.bck")[0])], armature=rig)
    assert rig.animation_data.action == res[0]
    assert mine.use_fake_user and mine.users == 1
    assert any("'my_handmade' was replaced" in n for n in res.report.files[0].notes)
    # the import's own action, replaced by a second import, is held by its NLA strip (no fake user needed)
    res2 = api.import_files([str(samples("j3d/jump_sound.bck")[0])], armature=rig)
    assert rig.animation_data.action == res2[0] and not res[0].use_fake_user
    assert res[0] in [s.action for t in rig.animation_data.nla_tracks for s in t.strips]


def test_once_reset_and_mirror_once_are_noted(api, ga, tmp_path):
    anim = ga.load(str(samples("j3d/walk_type0.bck")[0]))
    for loop in ("once_reset", "mirror_once"):
        anim.loop = loop
        path = tmp_path / f"{loop}.bck"
        path.write_bytes(anim.to_bytes())
        res = api.import_files([str(path)], target="NEW")
        assert any(f"loop mode {loop!r}" in n for n in res.report.files[0].notes), res.report.text()


def test_a_bone_name_that_is_not_utf8_imports_and_exports_back(api, ga, tmp_path):
    """JBA names are bytes; one that is not UTF-8 reaches Python with
    surrogates, which Blender refuses as a bone name.  The new armature
    names the bone with \\xNN escapes, the other files of the import go on,
    and the export writes the original bytes."""
    anim = ga.load(str(samples("jba/legacy_walk.jba")[0]))
    odd = "Bip01 \udcecarm"  # the byte 0xEC alone
    name0 = anim.tracks[7].target
    for t in anim.tracks:
        if t.target == name0:
            t.target = odd
    path = tmp_path / "odd.jba"
    path.write_bytes(anim.to_bytes())
    assert odd.encode("utf-8", "surrogateescape") in path.read_bytes()
    other = samples("j3d/walk_type0.bck")[0]
    res = api.import_files([str(path), str(other)], target="NEW")
    assert all(f.ok for f in res.report.files), res.report.text()
    rig = next(o for o in bpy.data.objects if o.type == "ARMATURE" and o.get("gameanim_built_for") == "jba")
    assert "Bip01 \\xecarm" in rig.data.bones
    from exphelpers import export_bytes

    data, result = export_bytes(api, res[0], armature=rig)
    assert data == path.read_bytes()


def test_identical_warnings_of_many_files_are_one_line_and_the_summary_is_a_warning():
    """Issue 23: 40 files with the same warning give one line that counts
    them, and a summary with warnings is a WARNING that counts them."""
    from io_anim_gameanim.importing.report import ImportReport

    rep = ImportReport()
    for i in range(40):
        f = rep.add(f"/x/walk{i:02d}.bck")
        f.format = "bck"
        f.actions = [f"walk{i:02d}"]
        f.notes.append("root motion (7 tracks) not applied")
    odd = rep.add("/x/other.bck")
    odd.format, odd.actions = "bck", ["other"]
    odd.notes.append("something else")

    class Op:
        def __init__(self):
            self.lines = []

        def report(self, level, text):
            self.lines.append((set(level), text))

    op = Op()
    rep.emit(op)
    motion = [t for lv, t in op.lines if "root motion" in t]
    assert len(motion) == 1 and "(in 40 files: walk00.bck, walk01.bck, walk02.bck, ...)" in motion[0], op.lines
    assert [t for lv, t in op.lines if "something else" in t] == ["other.bck: something else"]
    level, summary = op.lines[-1]
    assert level == {"WARNING"} and "Imported 41 of 41 file(s)" in summary and "41 warning(s)" in summary, op.lines
    assert len(op.lines) < 10  # not one popup line per file
    clean = ImportReport()
    g = clean.add("/x/a.bck")
    g.format, g.actions = "bck", ["a"]
    op = Op()
    clean.emit(op)
    assert op.lines[-1][0] == {"INFO"}


def test_option_labels_fit_and_small_defaults_show_their_digits():
    """Issue 23: no option label is cut off in the file browser's sidebar
    (at most options.MAX_LABEL characters), a tolerance of 0.001 shows its
    digits, and the JBA-only options sit in their own section, closed."""
    from io_anim_gameanim import operators
    from io_anim_gameanim.shared import options

    ops = [bpy.ops.import_anim.gameanim] + [getattr(bpy.ops.export_anim, cls.bl_idname.split(".")[1])
                                            for cls in [*operators.EXPORT_OPERATORS.values(), operators.EXPORT_ANY]]
    for op in ops:
        for p in op.get_rna_type().properties:
            if p.identifier in ("rna_type", "filepath", "files", "directory", "filter_glob", "filename",
                                "check_existing", "action") or p.is_hidden:
                continue
            assert len(p.name) <= options.MAX_LABEL, (op.idname(), p.identifier, p.name)
            if p.type == "FLOAT" and p.default:
                shown = f"{p.default:.{p.precision}f}"
                assert float(shown) == pytest.approx(p.default, rel=1e-6), (p.identifier, shown)
    tol = bpy.ops.export_anim.gameanim_bck.get_rna_type().properties["tolerance"]
    assert f"{tol.default:.{tol.precision}f}" == "0.0010"
    sections = {s[0]: s for s in options.SECTIONS}
    assert sections["jba"][2] is True
    assert set(options.section_fields("jba")) == {"keyless_rule", "root_motion"}


def test_reimport_replaces_the_earlier_imports_action_of_the_same_name(api):
    """Issue 23: importing the same file again gives no .001 duplicate: the
    earlier import's action is replaced and its users (the rig, an NLA
    strip) get the new one; a hand-made action of that name is never
    replaced; Replace Earlier off keeps the old behaviour."""
    walk, jump = (str(p) for p in samples("j3d/walk_type0.bck", "j3d/jump_sound.bck"))
    rig = chain_rig(["a", "b", "c"])
    api.import_files([walk, jump], armature=rig)         # walk assigned, jump on an NLA track
    again = api.import_files([walk, jump], armature=rig)
    names = sorted(a.name for a in bpy.data.actions if a.name.startswith(("walk_type0", "jump_sound")))
    assert names == ["jump_sound.bck", "walk_type0.bck"], names
    assert rig.animation_data.action == again[0] and again[0].name == "walk_type0.bck"
    strips = [s for t in rig.animation_data.nla_tracks for s in t.strips]
    assert again[1] in [s.action for s in strips] and all(s.action is not None for s in strips)
    if HAS_SLOTS:
        assert all(s.action_slot is not None for s in strips)
    fr = again.report.files[0]
    assert "replaced the earlier import of 'walk_type0.bck'" in fr.summary(), fr.summary()
    # a hand-made action with the file's name stays; the import gets .001
    other = chain_rig(["a", "b", "c"])
    bpy.data.actions["walk_type0.bck"].name = "imported_walk"
    hand = bpy.data.actions.new("walk_type0.bck")
    res = api.import_files([walk], armature=other)
    assert hand.name == "walk_type0.bck" and res[0].name == "walk_type0.bck.001"
    res = api.import_files([walk], armature=other, replace=False)
    assert res[0].name == "walk_type0.bck.002"


def test_another_file_of_the_same_name_never_replaces_an_earlier_import(api, tmp_path):
    """Replace Earlier replaces only an earlier import of the same file:
    two characters' walk.bck (the same name in two folders, as in two
    games' archives) imported in turn onto their own rigs each keep their
    action (the second gets walk.bck.001); importing the first again replaces
    its own action only."""
    src = samples("j3d/walk_type0.bck")[0].read_bytes()
    (tmp_path / "link").mkdir()
    (tmp_path / "zelda").mkdir()
    a, b = tmp_path / "link" / "walk.bck", tmp_path / "zelda" / "walk.bck"
    a.write_bytes(src)
    b.write_bytes(src)
    rig_a, rig_b = chain_rig(["a", "b", "c"]), chain_rig(["a", "b", "c"])
    first = api.import_files([str(a)], armature=rig_a)[0]
    second = api.import_files([str(b)], armature=rig_b)
    assert second[0].name == "walk.bck.001" and not second.report.files[0].replaced
    assert rig_a.animation_data.action == first and first.name == "walk.bck"
    assert rig_b.animation_data.action == second[0]
    again = api.import_files([str(a)], armature=rig_a)
    assert again.report.files[0].replaced == ["walk.bck"] and again[0].name == "walk.bck"
    assert rig_a.animation_data.action == again[0] and rig_b.animation_data.action == second[0]
    assert second[0].name == "walk.bck.001"


def test_fake_users_only_for_actions_nothing_else_holds(api):
    """Issue 23: an action stashed on an NLA track is held by its strip and
    gets no fake user; with Other Files = Fake User it gets one; the
    report says how each is kept."""
    files = [str(p) for p in samples("j3d/walk_type0.bck", "j3d/swing_type1_shift2.bck")]
    rig = chain_rig(["a", "b", "c"])
    res = api.import_files(files, armature=rig)
    assert not res[1].use_fake_user and res[1].users == 1
    assert "(on a muted NLA track)" in res.report.files[1].summary()
    rig2 = chain_rig(["a", "b", "c"])
    res = api.import_files(files, armature=rig2, others="FAKE_USER", replace=False)
    assert res[1].use_fake_user
    assert "(fake user)" in res.report.files[1].summary()


# ---------------------------------------------------------------------------
# new rigs: one per bone set or file, side by side, selected (issue 23)


def _bone_x_span(obj):
    bpy.context.view_layer.update()
    xs = [(obj.matrix_world @ p).x for b in obj.data.bones for p in (b.head_local, b.tail_local)]
    return min(xs), max(xs)


def test_new_rigs_one_per_joint_count_never_a_shared_bigger_rig(api, ga):
    """Files with no rig get one armature per distinct joint count (index
    matching pairs bones by number, so no file lands on a bigger rig), and
    one per file with New Rigs = Per File."""
    files = [str(p) for p in samples("j3d/walk_type0.bck", "j3d/dance_8x48.bck", "j3d/swing_type1_shift2.bck",
                                     "j3d/jump_sound.bck")]
    counts = [len({t.target for t in ga.load(f).tracks}) for f in files]
    assert len(set(counts)) > 1  # (the samples must differ for the test to mean something)
    res = api.import_files(files)
    assert all(fr.ok for fr in res.report.files), [fr.error for fr in res.report.files]
    rigs = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    assert len(rigs) == len(set(counts))
    owner = {}
    for f, n, fr in zip(files, counts, res.report.files):
        rig = bpy.data.objects[fr.owners[0]]
        assert len(rig.data.bones) == n, (f, n, len(rig.data.bones))
        owner.setdefault(n, set()).add(rig.name)
    assert all(len(names) == 1 for names in owner.values())  # one rig per joint count
    assert not any("may pair the wrong bones" in note for fr in res.report.files for note in fr.notes)

    for o in rigs:
        bpy.data.objects.remove(o)
    res = api.import_files(files, new_rigs="FILE")
    rigs = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    assert len(rigs) == len(files)
    assert len({fr.owners[0] for fr in res.report.files}) == len(files)


def test_new_rigs_stand_side_by_side_scaled_and_right_of_the_scene_rigs(api):
    """New rigs get the Scale option and never overlap each other or an
    armature already in the scene."""
    existing = chain_rig(["a", "b", "c"])
    files = [str(p) for p in samples("j3d/walk_type0.bck", "j3d/dance_8x48.bck", "bca/swing_odd.bca")]
    res = api.import_files(files, target="NEW", scale=0.02)
    assert all(fr.ok for fr in res.report.files), [fr.error for fr in res.report.files]
    new = [o for o in bpy.data.objects if o.type == "ARMATURE" and o != existing]
    assert len(new) == 3
    assert all(tuple(o.scale) == pytest.approx((0.02,) * 3) for o in new)
    spans = sorted([_bone_x_span(o) for o in new] + [_bone_x_span(existing)])
    for (lo1, hi1), (lo2, hi2) in zip(spans, spans[1:]):
        assert hi1 < lo2, spans  # disjoint along X
    assert _bone_x_span(existing) == spans[0]  # the new ones stand to its right


def test_import_selects_what_it_made_and_deselects_the_rest(api):
    """As glTF: the armatures the import built (or animated) are selected,
    the first active, everything else deselected."""
    mesh = bpy.data.objects.new("Other", bpy.data.meshes.new("Other"))
    bpy.context.scene.collection.objects.link(mesh)
    mesh.select_set(True)
    bpy.context.view_layer.objects.active = mesh
    files = [str(p) for p in samples("j3d/walk_type0.bck", "j3d/dance_8x48.bck")]
    res = api.import_files(files)
    rigs = [bpy.data.objects[fr.owners[0]] for fr in res.report.files]
    assert not mesh.select_get()
    assert all(r.select_get() for r in rigs)
    assert bpy.context.view_layer.objects.active == rigs[0]
    # onto a given rig: that rig is what is selected
    rig = chain_rig(["a", "b", "c"])
    mesh.select_set(True)
    for r in rigs:
        r.select_set(True)
    api.import_files(files[:1], armature=rig)
    assert rig.select_get() and not mesh.select_get() and not any(r.select_get() for r in rigs)
    assert bpy.context.view_layer.objects.active == rig


def test_the_first_action_assigned_is_the_idle_when_a_name_says_so(api, tmp_path):
    """Issue 32: after an import the rig shows its idle (a name with the
    word wait, idle or default, any case), not whatever came first (an
    "appear from box" action turned the character sideways); without such
    a name, the first file.  Words, not letters: "await" is no idle."""
    from io_anim_gameanim.importing import actions

    src = samples("j3d/walk_type0.bck")[0].read_bytes()
    names = ["appear_box.bck", "await.bck", "pl_Wait.bck", "idle.bck"]
    for n in names:
        (tmp_path / n).write_bytes(src)
    rig = chain_rig(["a", "b", "c"])
    res = api.import_files([str(tmp_path / n) for n in names], armature=rig)
    assert rig.animation_data.action == res[2]
    assert "assigned" in res.report.files[2].summary()
    rig = chain_rig(["a", "b", "c"])
    res = api.import_files([str(tmp_path / n) for n in names[:2]], armature=rig, replace=False)
    assert rig.animation_data.action == res[0]
    assert [actions.is_idle_name(n) for n in ("Wait", "WaitLoop", "pl_IDLE_2", "default01", "await", "Waiting",
                                               "idler", "DefaultPose.bck")] == \
        [True, True, True, True, False, False, False, True]


def test_actions_of_one_set_are_named_with_their_kind(api, tmp_path):
    """Issue 32: Hit.bck and Hit.bva are "Hit.bck" and "Hit.bva", not Hit
    and Hit.001; a wrapped file is named by its kind (walk.szs holding a
    BCK: walk.bck); the armature built for a file keeps the bare name."""
    (tmp_path / "Hit.bck").write_bytes(samples("j3d/walk_type0.bck")[0].read_bytes())
    (tmp_path / "Hit.bva").write_bytes(samples("j3d/parts_blink.bva")[0].read_bytes())
    (tmp_path / "walk.szs").write_bytes(samples("j3d/walk_cycle.yaz0.bck")[0].read_bytes())
    res = api.import_files([str(tmp_path / n) for n in ("Hit.bck", "Hit.bva", "walk.szs")], target="NEW")
    assert [f.ok for f in res.report.files] == [True, True, True], res.report.text()
    names = sorted(a.name for a in res)
    assert names[:1] == ["Hit.bck"] and "walk.bck" in names and all(n.startswith("Hit.bva") or n in
                                                                    ("Hit.bck", "walk.bck") for n in names)
    assert not [n for n in names if n.endswith(".001")]
    assert {o.name for o in bpy.data.objects if o.type == "ARMATURE"} >= {"Hit_rig"}


def test_the_plan_decides_where_each_file_goes_and_builds_nothing(api, ga):
    """importing/import_plan: before anything is built, each file has its
    writer and action name, and the skeletal files with no rig are grouped
    onto new rigs named after their first file; deciding makes no object,
    armature or action.  Onto a given armature nothing is loaded until the
    importer asks for the file (one decoded file at a time)."""
    from io_anim_gameanim.importing import import_plan
    from io_anim_gameanim.importing.report import ImportReport
    from io_anim_gameanim.shared.options import make_options

    files = [str(p) for p in samples("j3d/walk_type0.bck", "j3d/jump_sound.bck", "j3d/water_scroll.btk",
                                     "j3d/tev_pulse.brk")]
    counts = lambda: (len(bpy.data.objects), len(bpy.data.armatures), len(bpy.data.actions))  # noqa: E731
    before = counts()
    plan = import_plan.plan_sources(files, None, None, make_options(target="NEW"), bpy.context)
    import_plan.plan_files(ga, plan, plan.paths, None, ImportReport())
    assert counts() == before
    assert [(fp.writer, fp.action_name, fp.arm) for fp in plan.files] == [
        ("skeletal", "walk_type0.bck", None), ("skeletal", "jump_sound.bck", None),
        ("material", "water_scroll.btk", None), ("kind", "tev_pulse.brk", None)]
    assert plan.count == 4
    grouped = [fp.path for _fmt, _name, items in plan.new_rigs for fp in items]
    assert sorted(grouped) == sorted(files[:2])  # each skeletal file once, nothing else
    assert {fmt for fmt, _n, _i in plan.new_rigs} == {"bck"}
    assert [name for _f, name, items in plan.new_rigs] == [
        import_plan.file_stem(items[0].path) + "_rig" for _f, _n, items in plan.new_rigs]
    assert plan.new_rigs[0][1] == "walk_type0_rig"

    stages = []
    plan = import_plan.plan_sources(files[:2], chain_rig(["a", "b", "c"]), None, make_options(), bpy.context)
    import_plan.plan_files(ga, plan, plan.paths, None, ImportReport(),
                           progress=lambda i, n, path, stage: stages.append(stage))
    assert stages == [] and plan.count == 2 and plan.new_rigs == []
    first = next(iter(plan.files))
    assert stages == ["load"] and first.anim is not None and first.arm is None
