"""Round-trip editing: import -> move one key -> export -> the file shows
the moved key (read back independently: tests/j3d_reference.py for
BCK/BTK, the small readers in exphelpers.py for the others) and every
other channel keeps its original data byte for byte (decoded tracks
bit-identical, and the raw key runs / elements / quantisation records the
codecs keep).  Also: Bezier handles at one third map back to Hermite keys
and slopes; other handles are sampled and reduced within the tolerance;
baked bones re-encode only the edited group."""
import json
import math

import bpy
import j3d_reference as ref
import pytest
from blhelpers import make_rig, samples
from exphelpers import (bca_tracks, bk_elements, bk_keys, btk_materials, export_bytes, fcurve, import_sample,
                        jba32_channel_info, move_key, same_track, track_key)

from io_anim_gameanim.shared.rig_mapping import pose_path


def bones_of(action):
    return {k: v[0] for k, v in json.loads(action["gameanim_bones"]).items()}


def pick_key(fc, times):
    """A key of the curve that is one of the file's keys (times) and not the
    first or last key."""
    kps = fc.keyframe_points
    for i in range(1, len(kps) - 1):
        if kps[i].co.x in times and kps[i - 1].co.x != kps[i].co.x != kps[i + 1].co.x:
            return i
    raise AssertionError("no inner file key")


def others_unchanged(before, after, edited):
    """Every track except `edited` (track keys) is bit-identical."""
    a = {track_key(t): t for t in before.tracks}
    b = {track_key(t): t for t in after.tracks}
    assert set(a) == set(b)
    n = 0
    for key in a:
        if key in edited:
            continue
        assert same_track(a[key], b[key]), key
        n += 1
    return n


# ---------------------------------------------------------------------------
# BCK and BTK: raw key runs compared with an independent reader


def j3d_runs(data):
    info = ref.parse(data)
    out = {}
    for e in range(info["entries"]):
        for ch in range(3):
            for axis in range(3):
                d = info["descs"][e][axis * 3 + ch]
                out[(e, ch, axis)] = (d.type if d.count > 1 else None, ref.keys_of(info, e, ch, axis))
    return info, out


CH = {"scale": 0, "rotation": 1, "translation": 2}


@pytest.mark.parametrize("name", ["walk_type0.bck", "walk_cycle.yaz0.bck", "long_60x600.bck"])
def test_bck_moved_rotation_key(name, api, ga, tmp_path):
    path = samples(f"j3d/{name}")[0]
    before = ga.load(str(path))
    (action,) = import_sample(api, path)
    bones = bones_of(action)
    # a rotation track with inner keys
    track = next(t for t in before.tracks if t.channel == "rotation" and len(t) >= 3)
    bone = bones[str(track.target)]
    fc = fcurve(action, pose_path(bone, "rotation_euler"), track.axis)
    i = pick_key(fc, list(track.times))
    frame = fc.keyframe_points[i].co.x
    k = list(track.times).index(frame)
    delta = 0.3
    move_key(fc, i, delta)
    data, result = export_bytes(api, action)
    assert not result.original and len(result.changed) == 1, result.changed
    if name.endswith(".yaz0.bck"):
        assert data[:4] == b"Yaz0"  # as imported
        data = ga.decompress("yaz0", data)
    after = ga.load(data)
    assert others_unchanged(before, after, {track_key(track)}) == len(before.tracks) - 1
    # raw: the other runs are the original ones; the edited one has the
    # same keys, times and slopes, the moved value delta higher
    info0, runs0 = j3d_runs(ga.load(str(path)).to_bytes(compression=None))
    info1, runs1 = j3d_runs(data)
    key = (track.target, 1, track.axis)
    for r in runs0:
        if r != key:
            assert runs1[r] == runs0[r], r
    unit = (1 << info1["rotation_frac"]) * math.pi / 32768.0
    unit0 = (1 << info0["rotation_frac"]) * math.pi / 32768.0
    (_t0, (n0, keys0)), (_t1, (n1, keys1)) = runs0[key], runs1[key]
    assert n1 == n0  # Hermite keys map back to keys, not frames
    for j, (k0, k1) in enumerate(zip(keys0, keys1)):
        assert k1[0] == k0[0]
        want = k0[1] * unit0 + (delta if j == k else 0.0)
        assert abs(k1[1] * unit - want) <= unit, (j, k1, k0)
        for s in (2, 3):  # slopes (raw units per frame) unchanged
            assert abs(k1[s] * unit - k0[s] * unit0) <= unit
    # re-imported, the curve shows the moved key
    res = api.import_files([str(_write(tmp_path, data))], target="NEW")
    fc2 = fcurve(res[0], pose_path(bone, "rotation_euler"), track.axis)
    assert abs(fc2.evaluate(frame) - fc.evaluate(frame)) <= unit
    for f in (frame - 0.5, frame + 0.25, frame + 1.0):
        assert abs(fc2.evaluate(f) - fc.evaluate(f)) <= 2 * unit


def _write(folder, data, name="edited.bin"):
    p = folder / name
    p.write_bytes(data)
    return p


def test_btk_moved_scale_key(api, ga):
    path = samples("j3d/scroll_basic.btk")[0]
    before = ga.load(str(path))
    actions = import_sample(api, path)
    lava = next(a for a in actions if a["gameanim_material"] == "lava")
    entry = next(i for i, e in enumerate(before.entries) if e["material"] == "lava")
    track = before.find(entry, "scale", 0)
    assert len(track) >= 3
    # Basic: mapping B's Scale X is the S scale
    fc = fcurve(lava, 'nodes["gameanim tex0 B"].inputs[3].default_value', 0)
    i = pick_key(fc, list(track.times))
    frame = fc.keyframe_points[i].co.x
    k = list(track.times).index(frame)
    move_key(fc, i, 0.125)
    data, result = export_bytes(api, lava)
    assert len(result.changed) == 1
    after = ga.load(data)
    assert others_unchanged(before, after, {track_key(track)}) == len(before.tracks) - 1
    _i0, runs0 = j3d_runs(path.read_bytes())
    _i1, runs1 = j3d_runs(data)
    key = (entry, 0, 0)
    assert all(runs1[r] == runs0[r] for r in runs0 if r != key)
    keys0, keys1 = runs0[key][1][1], runs1[key][1][1]
    assert len(keys1) == len(keys0)
    assert [kk[1] for kk in keys1] == pytest.approx([kk[1] + (0.125 if j == k else 0.0)
                                                     for j, kk in enumerate(keys0)], abs=1e-6)
    # the water entries (another material, not exported from here) are untouched
    for w in (i for i, e in enumerate(before.entries) if e["material"] == "water"):
        assert all(runs1[(w, c, a)] == runs0[(w, c, a)] for c in range(3) for a in range(3))


# ---------------------------------------------------------------------------
# BCA: descriptors and value runs


def test_bca_moved_key_changes_one_frame_of_one_track(api, ga):
    path = samples("bca/swing_odd.bca")[0]
    before = ga.load(str(path))
    (action,) = import_sample(api, path)
    bones = bones_of(action)
    track = next(t for t in before.tracks if t.channel == "rotation" and len(t) > 5)
    bone = bones[str(track.target)]
    fc = fcurve(action, pose_path(bone, "rotation_euler"), track.axis)
    frame = 7.0
    i = next(j for j, kp in enumerate(fc.keyframe_points) if kp.co.x == frame)
    old = fc.keyframe_points[i].co.y
    move_key(fc, i, 0.2)
    data, result = export_bytes(api, action)
    after = ga.load(data)
    assert others_unchanged(before, after, {track_key(track)}) == len(before.tracks) - 1
    raw0, raw1 = bca_tracks(path.read_bytes()), bca_tracks(data)
    key = (track.target, 3 + track.axis)
    assert all(raw1[k] == raw0[k] for k in raw0 if k != key)
    # the game's value at each frame of the edited track: one frame moved
    turn = 2 * math.pi / 4096
    new = after.find(track.target, "rotation", track.axis)
    n = int(before.frame_count)
    for f in range(n):
        want = old + 0.2 if f == frame else track.evaluate(float(f))[0]
        assert abs(new.evaluate(float(f))[0] - want) <= turn / 2 + 1e-6, f


# ---------------------------------------------------------------------------
# Banjo-Kazooie: elements


def test_bk_moved_key_rewrites_one_element(api, ga, tmp_path):
    path = samples("bk/features.bin")[0]
    before = ga.load(str(path))
    (action,) = import_sample(api, path)
    bones = bones_of(action)
    # bone 2 rotation: the only channel of bone 2
    track = next(t for t in before.tracks if t.target == 2)
    bone = bones["2"]
    fc = fcurve(action, pose_path(bone, "rotation_euler"), track.axis)
    i = pick_key(fc, list(track.times))
    frame = fc.keyframe_points[i].co.x
    moved = fc.keyframe_points[i].co.y + math.radians(10.0)
    move_key(fc, i, math.radians(10.0))
    data, result = export_bytes(api, action)
    after = ga.load(data)
    assert others_unchanged(before, after, {track_key(track)}) == len(before.tracks) - 1
    el0, el1 = bk_elements(path.read_bytes()), bk_elements(data)
    assert list(el0) == list(el1)  # same elements, same order
    key = (2, track.axis)
    assert all(el1[k] == el0[k] for k in el0 if k != key)
    # the moved key, read independently: degrees * 64 at that frame
    keys = {fr: v for _f15, _f14, fr, v in bk_keys(el1[key])}
    assert abs(keys[int(frame)] - math.degrees(moved)) <= 1 / 128 + 1e-9
    res = api.import_files([str(_write(tmp_path, data))], target="NEW")
    fc2 = fcurve(res[0], pose_path(bone, "rotation_euler"), track.axis)
    assert abs(fc2.evaluate(frame) - moved) <= math.radians(1 / 128) + 1e-6


# ---------------------------------------------------------------------------
# JBA: channel records


def test_jba_moved_translation_key(api, ga):
    path = samples("jba/legacy_walk.jba")[0]
    before = ga.load(str(path))
    (action,) = import_sample(api, path)
    bones = bones_of(action)
    target = next(t.target for t in before.tracks if t.channel == "translation" and t.target != "__root_motion__"
                  and max(t.values) > min(t.values))
    bone = bones[target]
    fc = fcurve(action, pose_path(bone, "location"), 0)
    frame = 40.0
    i = next(j for j, kp in enumerate(fc.keyframe_points) if kp.co.x == frame)
    old = [fcurve(action, pose_path(bone, "location"), a).evaluate(frame) for a in range(3)]
    move_key(fc, i, 0.5)
    data, result = export_bytes(api, action)
    after = ga.load(data)
    edited = {(target, "translation", a) for a in range(3)}
    assert others_unchanged(before, after, edited) == len(before.tracks) - 3
    names = [t.target for t in before.tracks if t.channel == "translation" and t.axis == 0]
    info0, info1 = jba32_channel_info(path.read_bytes()), jba32_channel_info(data)
    order = list(dict.fromkeys(t.target for t in before.tracks if t.target != "__root_motion__"))
    for b, name in enumerate(order):
        if name != target:
            assert info1[b] == info0[b], name
    assert target in names
    stride = max(abs(x) for x in __import__("struct").unpack_from("<3f", info1[order.index(target)], 0))
    new = after.find(target, "translation", 0)
    assert abs(new.evaluate(frame)[0] - (old[0] + 0.5)) <= stride / 2 + 1e-4
    old_t = before.find(target, "translation", 0)
    for f in range(0, 100, 7):
        if f != frame:
            assert abs(new.evaluate(float(f))[0] - old_t.evaluate(float(f))[0]) <= stride / 2 + 1e-4


# ---------------------------------------------------------------------------
# How changed curves map back


def test_handles_off_one_third_are_sampled_and_reduced(api, ga):
    """A Bezier handle that is not one third of the way to its neighbour
    makes no Hermite segment: the channel is sampled per frame and fitted
    within the tolerance, with fewer keys than frames."""
    path = samples("j3d/jump_sound.bck")[0]
    before = ga.load(str(path))
    (action,) = import_sample(api, path)
    bones = bones_of(action)
    track = next(t for t in before.tracks if t.channel == "rotation" and len(t) >= 3)
    bone = bones[str(track.target)]
    fc = fcurve(action, pose_path(bone, "rotation_euler"), track.axis)
    kp = fc.keyframe_points[1]
    dt = fc.keyframe_points[2].co.x - kp.co.x
    kp.handle_right_type = "FREE"
    kp.handle_right = (kp.co.x + dt * 0.6, kp.co.y + 0.3)  # a longer, steeper handle: no Hermite segment
    tol = 1e-3
    data, _ = export_bytes(api, action, tolerance=tol)
    after = ga.load(data)
    assert others_unchanged(before, after, {track_key(track)}) == len(before.tracks) - 1
    new = after.find(track.target, "rotation", track.axis)
    n = int(before.frame_count)
    assert 2 <= len(new) < n  # keys, not frames (the fit's slopes are estimates: some extra keys)
    unit = (1 << after.rotation_frac) * math.pi / 32768.0  # J3D stores whole raw units
    for f in range(n + 1):
        assert abs(new.evaluate(float(f))[0] - fc.evaluate(float(f))) <= tol + unit, f


def test_rate_every_frame_writes_a_key_per_frame_without_tolerance(api, ga):
    path = samples("j3d/jump_sound.bck")[0]
    before = ga.load(str(path))
    (action,) = import_sample(api, path)
    track = next(t for t in before.tracks if t.channel == "rotation" and len(t) >= 3)
    fc = fcurve(action, pose_path(bones_of(action)[str(track.target)], "rotation_euler"), track.axis)
    move_key(fc, 1, 0.1)
    data, _ = export_bytes(api, action, rate="FRAMES", tolerance=0.0)
    new = ga.load(data).find(track.target, "rotation", track.axis)
    assert list(new.times) == [float(f) for f in range(int(before.frame_count) + 1)]


def test_baked_bone_reencodes_only_the_edited_group(api, ga, tmp_path):
    """On a rig with rest rotations every bone is baked; moving a location
    key re-encodes that bone's translation, its rotation and scale tracks
    keep the original keys."""
    path = samples("j3d/walk_type0.bck")[0]
    before = ga.load(str(path))
    rig = make_rig("Rig", [("a", None, (0, 0, 0), (1, 0.2, 0), 0.0), ("b", "a", (1, 0, 0), (1, 1, 0.3), 0.5),
                           ("c", "b", (1, 1, 0), (1, 1, 1), 0.2)])
    res = api.import_files([str(path)], armature=rig)
    action = res[0]
    assert len(res.report.files[0].baked) == 3
    fc = max((fcurve(action, pose_path("a", "location"), a) for a in range(3)), key=lambda c: len(c.keyframe_points))
    assert len(fc.keyframe_points) > 10  # per-frame keys of a baked bone
    i = 6
    frame = fc.keyframe_points[i].co.x
    move_key(fc, i, 0.25)
    want = [fcurve(action, pose_path("a", "location"), a).evaluate(frame) for a in range(3)]
    data, result = export_bytes(api, action, tolerance=1e-5)
    after = ga.load(data)
    edited = {(0, "translation", a) for a in range(3)}
    assert others_unchanged(before, after, edited) == len(before.tracks) - 3
    assert result.changed == ["bone 'a' (target 0) translation"]
    # re-imported onto the same rig, bone a's basis location at that frame
    # is the edited one
    res2 = api.import_files([str(_write(tmp_path, data))], armature=rig)
    got = [fcurve(res2[0], pose_path("a", "location"), a).evaluate(frame) for a in range(3)]
    assert got == pytest.approx(want, abs=1e-4)


def test_deleted_curve_exports_the_bones_current_value(api, ga):
    path = samples("j3d/walk_type0.bck")[0]
    before = ga.load(str(path))
    (action,) = import_sample(api, path)
    bones = bones_of(action)
    track = next(t for t in before.tracks if t.channel == "rotation" and len(t) >= 3)
    bone = bones[str(track.target)]
    rig = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    fc = fcurve(action, pose_path(bone, "rotation_euler"), track.axis)
    _remove_fcurve(action, fc)
    rig.pose.bones[bone].rotation_euler[track.axis] = 0.75
    data, result = export_bytes(api, action)
    new = ga.load(data).find(track.target, "rotation", track.axis)
    unit = (1 << before.rotation_frac) * math.pi / 32768.0
    assert len(new) == 1 and new.values[0] == pytest.approx(0.75, abs=unit)
    assert "curve deleted" in result.changed[0]


def _remove_fcurve(action, fc):
    if "slots" in bpy.types.Action.bl_rna.properties:
        for layer in action.layers:
            for strip in layer.strips:
                for bag in strip.channelbags:
                    if fc in list(bag.fcurves):
                        bag.fcurves.remove(fc)
                        return
    action.fcurves.remove(fc)


def test_new_bone_added_to_an_imported_file_is_reported(api, ga):
    """Keys on a bone the file did not animate add a target (BCK: the
    bone's index) and say so."""
    path = samples("j3d/walk_type0.bck")[0]
    rig = make_rig("Rig", [(n, None, (0, i, 0), (0, i + 0.5, 0), 0.0) for i, n in enumerate("abcd")])
    res = api.import_files([str(path)], armature=rig)
    pb = rig.pose.bones["d"]
    pb.rotation_mode = "XYZ"
    pb.rotation_euler = (0.0, 0.5, 0.0)
    pb.keyframe_insert("rotation_euler", frame=0)
    pb.rotation_euler = (0.0, 1.0, 0.0)
    pb.keyframe_insert("rotation_euler", frame=10)
    data, result = export_bytes(api, res[0])
    after = ga.load(data)
    assert ga.load(str(path)).tracks[0].target == 0
    t = after.find(3, "rotation", 1)
    assert t is not None and t.evaluate(10.0)[0] == pytest.approx(1.0, abs=1e-3)
    assert any("bone 'd' was not in the imported file" in n for n in result.notes)


def test_materials_partially_edited_keep_other_materials(api, ga, tmp_path):
    """Two material actions of one BTK edited: exported together (the batch
    groups them) into one file with both edits."""
    path = samples("j3d/glow_maya.btk")[0]
    btk_materials(path)
    actions = import_sample(api, path)
    for a in actions:
        fc = max((f for f in _curves(a)), key=lambda f: len(f.keyframe_points))
        move_key(fc, 1, 0.05)
    results = api.export_actions(str(tmp_path), actions)
    assert len(results) == 1 and results[0].ok
    after = ga.load(results[0].path)
    before = ga.load(str(path))
    changed = [track_key(t) for t, u in zip(before.tracks, after.tracks) if not same_track(t, u)]
    assert len(changed) == 2 and {c[0] for c in changed} == {0, 1}


def _curves(action):
    from blhelpers import fcurves_of

    return fcurves_of(action)


@pytest.mark.parametrize("interp, slopes", [("LINEAR", (0.0, 0.0)), ("CONSTANT", (0.0, 0.0)), ("BEZIER", (-3.0, 1.5))])
def test_a_lone_key_reads_back_with_the_slope_only_a_bezier_key_has(ga, interp, slopes):
    """A curve of one key: its handles shape the curve only when it is
    BEZIER (Blender extrapolates a lone LINEAR or CONSTANT key flat), and
    the import writes them only then.  Read back for export, a lone
    non-Bezier key has no slope whatever its handles hold; a Bezier one
    keeps the slopes of its handles (one third of a frame away)."""
    from array import array

    from io_anim_gameanim import bulk_keys
    from io_anim_gameanim.exporting import readback

    code = bulk_keys.INTERP[interp]
    # handles as keyframe_points.add() leaves them (nowhere near the key)
    # for the non-Bezier keys, at one third with slopes -3 / 1.5 otherwise
    if interp == "BEZIER":
        left, right = array("f", (10.0 - 1 / 3, 2.0 + 1.0)), array("f", (10.0 + 1 / 3, 2.0 + 0.5))
    else:
        left, right = array("f", (0.0, 0.0)), array("f", (10.0, 0.0))
    keys = readback.Keys(array("f", (10.0, 2.0)), left, right, array("i", (code,)))
    track = readback.keys_to_track(ga, keys, 0, "translation", 0)
    assert list(track.times) == [10.0] and list(track.values) == [2.0]
    assert (track.in_slopes[0], track.out_slopes[0]) == pytest.approx(slopes, abs=1e-4)


def test_a_modifier_is_an_edit_even_with_the_same_keys(api, ga):
    """The keys alone do not say a curve is unchanged: a Noise modifier
    shapes what Blender shows, so the channel is written from the curve
    (the file follows Blender), not from the original bytes."""
    path = samples("j3d/jump_sound.bck")[0]
    before = ga.load(str(path))
    (action,) = import_sample(api, path)
    n = int(before.frame_count)
    track = next(t for t in before.tracks if t.channel == "rotation" and len(t) >= 3)
    fc = fcurve(action, pose_path(bones_of(action)[str(track.target)], "rotation_euler"), track.axis)
    mod = fc.modifiers.new("NOISE")
    mod.strength = 0.5
    data, result = export_bytes(api, action, tolerance=1e-3)
    assert data != path.read_bytes() and not result.original
    after = ga.load(data)
    new = after.find(track.target, "rotation", track.axis)
    unit = (1 << after.rotation_frac) * math.pi / 32768.0
    for f in range(n):
        assert abs(new.evaluate(float(f))[0] - fc.evaluate(float(f))) <= 1e-3 + unit, f


def test_linear_extrapolation_is_an_edit_even_with_the_same_keys(api, ga):
    """A curve whose keys end before the file does, set to LINEAR
    extrapolation, keeps changing after its last key in Blender: the file
    follows it."""
    path = samples("bk/features.bin")[0]
    before = ga.load(str(path))
    (action,) = import_sample(api, path, use_cycles=False)
    track = next(t for t in before.tracks if len(t) >= 2 and t.times[-1] < before.info["end_frame"] - 2)
    bone = bones_of(action)[str(track.target)]
    fc = fcurve(action, pose_path(bone, {"scale": "scale", "rotation": "rotation_euler",
                                         "translation": "location"}[track.channel]), track.axis)
    last = fc.keyframe_points[-1].co.x
    fc.extrapolation = "LINEAR"
    data, result = export_bytes(api, action)
    assert data != path.read_bytes() and not result.original
    after = ga.load(data)
    new = after.find(track.target, track.channel, track.axis)
    later = [f for f in range(int(last) + 1, int(before.info["end_frame"]) + 1)]
    assert later and fc.evaluate(later[-1]) != fc.evaluate(last)  # it does move on
    got = after.sample([float(f) for f in later])
    i = after.tracks.index(new) if new in after.tracks else [
        k for k, t in enumerate(after.tracks) if (t.target, t.channel, t.axis) == (track.target, track.channel,
                                                                              track.axis)][0]
    for k, f in enumerate(later):
        assert abs(got[i * len(later) + k] - fc.evaluate(float(f))) <= 1.0 / 64, f


def test_rounding_to_the_format_grid_is_a_warning(api, ga):
    """Banjo-Kazooie stores 1/64: an authored value between steps is
    rounded, and the result says so even when the encoder raised no
    PrecisionWarning."""
    rig = make_rig("BKRig", [("bk_id_001", None, (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), 0.0)])
    pb = rig.pose.bones["bk_id_001"]
    pb.rotation_mode = "XYZ"
    for f, v in ((1, 0.0), (10, 0.123456)):
        pb.location = (v, 0.0, 0.0)
        pb.keyframe_insert("location", index=0, frame=f)
    action = rig.animation_data.action
    data, result = export_bytes(api, action, armature=rig, format="bk")
    assert result.report["max_error"] > 0
    assert any("rounded" in w for w in result.warnings), result.warnings
