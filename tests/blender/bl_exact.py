"""Exact-mode bones: every F-curve evaluates to the game's value
(Animation.sample) at integer and fractional frames.

Tolerances: 1e-5 (translation relative to its size, scale, quaternion
components), 1e-4 rad for Euler rotations.  The one documented exception:
J3D (BCK) angles, which the game truncates to whole raw units before the
rotation shift, so the smooth Blender curve may differ from `sample` by
less than one step of 2^frac * pi / 32768."""
import json
import math

import bpy
import pytest
from blhelpers import (fcurve_map, make_rig, pose_path, sample_id, samples, samples_by_track, skeletal_samples)

TOL = 1e-5
TOL_ROT = 1e-4


def file_range(anim):
    if anim.format == "bk":
        return float(anim.start_frame), float(anim.info["end_frame"])
    return 0.0, float(anim.frame_count)


def test_frames(anim, max_whole=120):
    start, end = file_range(anim)
    first, last = int(math.ceil(start)), int(math.floor(end))
    step = max(1, int(math.ceil((last - first) / max_whole)))
    frames = []
    for f in range(first, last + 1, step):
        frames.append(float(f))
        # dyadic fractions: exact in float32, as Blender evaluates, so the
        # comparison measures the curve and not the rounding of the frame
        for d in (0.25, 0.5, 0.875):
            if f + d <= end:
                frames.append(f + d)
    return frames


test_frames.__test__ = False


def rest_translation(bone, up=None):
    m = bone.matrix_local if bone.parent is None else bone.parent.matrix_local.inverted() @ bone.matrix_local
    if up is not None and bone.parent is None:
        m = up.inverted() @ m
    return m.to_translation()


def check_exact(anim, action, arm_obj, k=1.0, time_scale=1.0, offset=0.0, frames=None):
    """Compares every exact bone's curves with Animation.sample; returns
    the number of comparisons."""
    frames = frames or test_frames(anim)
    values = samples_by_track(anim, frames)
    fmap = fcurve_map(action)
    bones = json.loads(action["gameanim_bones"])
    is_delta = anim.format == "bk"
    step = 0.0
    if anim.format == "bck":
        step = (1 << anim.rotation_frac) * math.pi / 32768.0
    by_target = {}
    for t in anim.tracks:
        by_target.setdefault(t.target, []).append(t)
    count = 0
    for target_key, (bone_name, mode) in bones.items():
        assert mode == "exact", (bone_name, mode)
        target = next(t for t in by_target if str(t) == target_key)
        bone = arm_obj.data.bones[bone_name]
        rest_t = rest_translation(bone)
        tracks = by_target[target]
        quat = [t for t in tracks if t.channel == "rotation_quaternion"]
        scene = [f * time_scale + offset for f in frames]
        if quat:
            fcs = [fmap[(pose_path(bone_name, "rotation_quaternion"), a)] for a in range(4)]
            exp = [values[(target, "rotation_quaternion", a)] for a in range(4)]
            for i, sf in enumerate(scene):
                got = [fc.evaluate(sf) for fc in fcs]
                want = [e[i] for e in exp]
                ng = math.sqrt(sum(x * x for x in got))
                nw = math.sqrt(sum(x * x for x in want))
                got = [x / ng for x in got]
                want = [x / nw for x in want]
                if sum(a * b for a, b in zip(got, want)) < 0:  # q and -q are one rotation
                    want = [-x for x in want]
                err = max(abs(a - b) for a, b in zip(got, want))
                assert err <= TOL, f"{bone_name} quaternion at file frame {frames[i]}: {got} vs {want}"
                count += 1
        for t in tracks:
            if t.channel == "rotation_quaternion":
                continue
            prop = {"scale": "scale", "rotation": "rotation_euler", "translation": "location"}[t.channel]
            fc = fmap[(pose_path(bone_name, prop), t.axis)]
            exp = values[(t.target, t.channel, t.axis)]
            # Blender stores and evaluates keys in float32: the tolerance is
            # relative to the size of the channel's keys (and rest offset)
            size = max([1.0] + [abs(v) for v in t.values])
            if t.channel == "translation":
                size = max(size * abs(k), abs(rest_t[t.axis]), 1.0)
            for i, sf in enumerate(scene):
                got = fc.evaluate(sf)
                want = exp[i]
                if t.channel == "translation":
                    want = want * k - (0.0 if is_delta else rest_t[t.axis])
                    tol = TOL * size
                elif t.channel == "rotation":
                    tol = TOL_ROT * size + step
                else:
                    tol = TOL * size
                assert abs(got - want) <= tol, (
                    f"{bone_name} {t.channel}[{t.axis}] at file frame {frames[i]}: blender {got} vs game {want}")
                count += 1
    return count


@pytest.mark.parametrize("path", skeletal_samples(), ids=sample_id)
def test_new_armature_curves_equal_sample(path, api, ga):
    anim = ga.load(str(path))
    res = api.import_files([str(path)], target="NEW")
    fr = res.report.files[0]
    assert fr.ok, fr.error
    assert fr.baked == []
    arm_obj = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    assert check_exact(anim, res[0], arm_obj) > 0


def _identity_rig(anim, name):
    """Chain rig with identity rest rotations and non-zero rest translations
    (bones along +Y, roll 0), bones named / numbered as the format matches
    them."""
    from io_anim_gameanim.shared.rig_match import anim_targets

    targets = anim_targets(anim)
    if all(isinstance(t, int) for t in targets):
        targets = list(range(max(targets) + 1)) if anim.format != "bk" else sorted(targets)
    spec = []
    prev = None
    for i, t in enumerate(targets):
        bname = t if isinstance(t, str) else (f"b{t}" if anim.format != "bk" else f"bone id {t}")
        head = (0.3 * i, 1.0 + 0.5 * i, -0.2 * i)
        spec.append((bname, prev, head, (head[0], head[1] + 0.7, head[2]), 0.0))
        prev = bname
    rig = make_rig(name, spec)
    if anim.format == "bk":
        for t in targets:
            rig.data.bones[f"bone id {t}"]["gameanim_bone_id"] = t
    return rig


@pytest.mark.parametrize("path", samples("j3d/walk_type0.bck", "j3d/swing_type1_shift2.bck", "bca/bones20_raw.bca",
                                         "bk/features.bin", "jba/legacy_walk.jba", "jba/jawb_unnamed.jba"),
                         ids=sample_id)
def test_existing_identity_rig_stays_exact_with_offsets(path, api, ga):
    """Identity rest rotations on a user rig: channels one to one, the
    location offset by the rest translation, nothing baked."""
    anim = ga.load(str(path))
    rig = _identity_rig(anim, "Rig")
    kw = {}
    if anim.format == "jba" and isinstance(anim.tracks[0].target, int):
        kw["bone_match"] = "INDEX"
    res = api.import_files([str(path)], armature=rig, translation_scale=2.5, frame_offset=7.0, **kw)
    fr = res.report.files[0]
    assert fr.ok, fr.error
    assert fr.baked == [] and fr.unmatched == []
    assert check_exact(anim, res[0], rig, k=2.5, offset=7.0) > 0


def test_frame_rate_rescaled_to_scene(api, ga):
    path = samples("jba/legacy_walk.jba")[0]
    anim = ga.load(str(path))
    bpy.context.scene.render.fps = 24
    bpy.context.scene.render.fps_base = 1.0
    res = api.import_files([str(path)], target="NEW", frame_rate="SCENE")
    arm_obj = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    scale = 24.0 / anim.fps
    assert json.loads(res[0]["gameanim_options"])["time_scale"] == pytest.approx(scale)
    assert check_exact(anim, res[0], arm_obj, time_scale=scale) > 0
    # the last key sits at the scaled duration
    fc = fcurve_map(res[0])[(pose_path("GOD", "location"), 0)]
    assert fc.keyframe_points[-1].co[0] == pytest.approx(anim.frame_count * scale, abs=1e-4)


def test_bezier_keys_have_free_handles(api, ga):
    """Hermite segments are only exact with FREE handles (AUTO / ALIGNED
    handles move); 3.4.1 needs the per-key fallback for this."""
    path = samples("j3d/long_60x600.bck")[0]
    res = api.import_files([str(path)], target="NEW")
    checked = 0
    for fc in fcurve_map(res[0]).values():
        kps = fc.keyframe_points
        for i, kp in enumerate(kps):
            if kp.interpolation == "BEZIER" or (i and kps[i - 1].interpolation == "BEZIER"):
                assert kp.handle_left_type == "FREE" and kp.handle_right_type == "FREE"
                checked += 1
        assert fc.extrapolation == "CONSTANT"
    assert checked > 1000


def test_j3d_truncation_exception_is_real_and_bounded(api, ga):
    """The documented exception exists (sample truncates, the curve does
    not) and stays below one rotation step."""
    path = samples("j3d/long_60x600.bck")[0]
    anim = ga.load(str(path))
    res = api.import_files([str(path)], target="NEW")
    fmap = fcurve_map(res[0])
    bones = json.loads(res[0]["gameanim_bones"])
    step = (1 << anim.rotation_frac) * math.pi / 32768.0
    frames = [f + 0.375 for f in range(0, 200)]
    values = samples_by_track(anim, frames)
    worst = 0.0
    for t in anim.tracks:
        if t.channel != "rotation" or len(t) < 2:
            continue
        fc = fmap[(pose_path(bones[str(t.target)][0], "rotation_euler"), t.axis)]
        for i, f in enumerate(frames):
            worst = max(worst, abs(fc.evaluate(f) - values[(t.target, t.channel, t.axis)][i]))
    assert 1e-4 < worst < step + 1e-4


def test_jba_keyless_rule_option_reaches_the_decoder(api, ga):
    """The JBA translation-without-keys rule changes the values, and the
    curves follow the rule chosen."""
    path = samples("jba/legacy_mixed_keyless.jba")[0]
    base = ga.load(str(path), keyless_rule="base")
    span = ga.load(str(path), keyless_rule="base_plus_span")
    frames = [float(f) for f in range(0, int(base.frame_count) + 1)]
    assert list(base.sample(frames)) != list(span.sample(frames))
    res = api.import_files([str(path)], target="NEW", keyless_rule="base_plus_span")
    arm_obj = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    assert check_exact(span, res[0], arm_obj) > 0
    assert json.loads(res[0]["gameanim_options"])["keyless_rule"] == "base_plus_span"


def test_a_jba_seam_whose_copies_differ_is_a_step_in_blender(api, ga):
    """Read with the other keyless rule, legacy_mixed_keyless's bone Bip01
    jumps where sections start (frames 32 and 64): the game reaches the
    earlier section's copy from the left and plays the later one from the
    frame on.  The curves hold that as a step (a key 5e-4 frames before
    each jump that holds the earlier copy, as for J3D steps): exact at the
    whole frames and the game's values between (check_exact's fractions
    too)."""
    path = samples("jba/legacy_mixed_keyless.jba")[0]
    span = ga.load(str(path), keyless_rule="base_plus_span")
    res = api.import_files([str(path)], target="NEW", keyless_rule="base_plus_span")
    fc = fcurve_map(res[0])[(pose_path("Bip01", "location"), 0)]
    n = int(span.frame_count) + 1
    assert len(fc.keyframe_points) == n + 2
    times = [k.co[0] for k in fc.keyframe_points]
    assert times[32:34] == [pytest.approx(31.9995, abs=1e-4), 32.0]
    assert times[65:67] == [pytest.approx(63.9995, abs=1e-4), 64.0]
    assert [k.interpolation for k in fc.keyframe_points][32] == "CONSTANT"
    i = next(i for i, t in enumerate(span.tracks) if (t.target, t.channel, t.axis) == ("Bip01", "translation", 0))
    rest = span.tracks[i].values[0] - fc.keyframe_points[0].co[1]  # location = value - rest
    frames = [31.0, 31.5, 31.9, 31.99, 32.0, 32.5, 63.5, 63.99, 64.0]
    want = span.sample(frames)[i * len(frames):(i + 1) * len(frames)]
    for f, w in zip(frames, want):
        assert fc.evaluate(f) + rest == pytest.approx(w, abs=1e-4), f
    # the jump is real: the left limit is not the value at the frame
    assert abs(want[3] - want[4]) > 1.0
    # and the export still finds the curves as imported: the original bytes
    from exphelpers import export_bytes

    data, _ = export_bytes(api, res[0])
    assert data == path.read_bytes()


def test_steps_hold_the_later_value_at_their_frame(api, ga, tmp_path):
    """Two keys on one frame (a step): Blender's evaluation at that frame
    lands on either key of such a pair, so the import moves the first key
    5e-4 frames before it (on the curve arriving there) and holds it.  At
    every step frame the curve then has the game's value (the later key),
    before it the earlier one, and the segments between keep their shape;
    the export reads the steps back."""
    times = [0.0, 3.0, 3.0, 7.0, 7.0, 8.0, 11.0, 11.0, 16.0, 16.0, 19.0, 19.0, 24.0]
    values = [0.0, 1.0, 5.0, 2.0, -3.0, 0.5, 4.0, -1.0, 2.5, 7.0, 1.0, 0.0, 3.0]
    interp = [ga.LINEAR, ga.LINEAR, ga.BEZIER, ga.LINEAR, ga.BEZIER, ga.BEZIER, ga.LINEAR, ga.BEZIER, ga.LINEAR,
              ga.LINEAR, ga.LINEAR, ga.LINEAR, ga.LINEAR]
    slopes = [0.0, 0.0, 0.4, 0.0, 0.8, -0.6, 0.0, 0.9, 0.0, 0.0, 0.0, 0.0, 0.0]
    track = ga.Track(0, "translation", 0, times, values, slopes, slopes, interp)
    anim = ga.Animation("bck", [track], frame_count=24.0)
    path = tmp_path / "steps.bck"
    path.write_bytes(anim.to_bytes())
    game = ga.load(str(path))
    res = api.import_files([str(path)], target="NEW")
    fc = fcurve_map(res[0])[(pose_path("joint_000", "location"), 0)]
    i = next(i for i, t in enumerate(game.tracks) if (t.target, t.channel, t.axis) == (0, "translation", 0))
    rest = game.tracks[i].values[0] - fc.evaluate(0.0)  # (location = value - the new joint's rest)
    frames = [f + d for f in range(0, 24) for d in (0.0, 0.25, 0.5, 0.999)] + [24.0]
    want = game.sample(frames)[i * len(frames):(i + 1) * len(frames)]
    for f, w in zip(frames, want):
        assert fc.evaluate(f) + rest == pytest.approx(w, abs=2e-3), f
    for f in (3.0, 7.0, 11.0, 16.0, 19.0):
        assert fc.evaluate(f) + rest == pytest.approx(want[frames.index(f)], abs=1e-5), f
    # an edit elsewhere: the export still writes the steps
    from exphelpers import export_bytes

    kp = fc.keyframe_points[-1]
    kp.co[1] += 1.0
    kp.handle_left[1] += 1.0
    kp.handle_right[1] += 1.0
    data, _ = export_bytes(api, res[0])
    back = ga.load(data).find(0, "translation", 0)
    assert list(back.times) == times
    assert list(back.values)[:-1] == pytest.approx(values[:-1], abs=1e-5) and back.values[-1] == pytest.approx(4.0)


def test_banjo_bone_assembly_imports_as_the_game_poses_it(api, ga, tmp_path):
    """A Banjo-Kazooie file whose bone 1 has two runs of elements (the
    game keeps the last: location back at 0, scale X 2) and names
    location X twice in the first; bone 3 names rotation Y twice (the
    later, 45 degrees, wins).  Both curve modes import it (the exact mode
    used to fail on the repeated channel) and agree with the game."""
    import struct

    def key(frame, value):
        return struct.pack(">Hh", frame, value)

    def element(bone, typ, keys):
        return struct.pack(">Hh", (bone << 4) | typ, len(keys)) + b"".join(keys)

    elements = [element(1, 6, [key(0, 640)]), element(1, 6, [key(0, 128)]), element(2, 7, [key(0, 64)]),
                element(3, 1, [key(0, 30 * 64)]), element(3, 1, [key(0, 45 * 64)]), element(1, 3, [key(0, 128)])]
    path = tmp_path / "assembly.anim.bin"
    path.write_bytes(struct.pack(">hhhH", 0, 10, len(elements), 0) + b"".join(elements))
    for mode in ("AUTO", "BAKED"):
        res = api.import_files([str(path)], target="NEW", curve_mode=mode)
        assert res.report.files[0].ok, res.report.text()
        assert "not applied, as in the game" in res.report.text()
        arm_obj = next(o for o in bpy.data.objects if o.type == "ARMATURE" and o.animation_data
                       and o.animation_data.action == res[0])
        bpy.context.scene.frame_set(5)
        pb = arm_obj.pose.bones
        b1, b2, b3 = (next(p for p in pb if p.name.endswith(f"{i:03d}")) for i in (1, 2, 3))
        assert tuple(b1.location) == pytest.approx((0.0, 0.0, 0.0), abs=1e-6), mode
        assert tuple(b1.scale) == pytest.approx((2.0, 1.0, 1.0), abs=1e-6), mode
        assert tuple(b2.location) == pytest.approx((0.0, 1.0, 0.0), abs=1e-6), mode
        rot = b3.matrix_basis.to_quaternion()
        assert abs(rot.w) == pytest.approx(math.cos(math.radians(22.5)), abs=1e-6), mode
        assert abs(rot.y) == pytest.approx(math.sin(math.radians(22.5)), abs=1e-6), mode
        for o in [o for o in bpy.data.objects if o.type == "ARMATURE"]:
            bpy.data.objects.remove(o)


def _bezier_curve(name, n=6):
    """An empty F-curve and keys for bulk_keys.write_keys: key 3 LINEAR,
    the others BEZIER with handles a third of a frame away."""
    from array import array

    from io_anim_gameanim import bulk_keys, compat

    action = bpy.data.actions.new(name)
    fc = compat.CurveSink(action, "OBJECT", "Obj").new_fcurve("location", 0)
    co = array("f", [v for i in range(n) for v in (float(4 * i), float(i % 3))])
    interp = array("i", [bulk_keys.INTERP["LINEAR" if i == 3 else "BEZIER"] for i in range(n)])
    left = array("f", [v for i in range(n) for v in (4 * i - 1 / 3, float(i % 3))])
    right = array("f", [v for i in range(n) for v in (4 * i + 1 / 3, float(i % 3))])
    return fc, co, interp, left, right


def test_the_handle_type_probe_finds_the_bytes_rna_reads():
    """bulk_keys' probe (the layout its 3.4.1 memory write relies on),
    checked on this Blender build: the two offsets it finds hold, in every
    key of the curve, the byte values of the handle types RNA reads."""
    import ctypes

    from io_anim_gameanim import bulk_keys

    fc, co, _interp, _l, _r = _bezier_curve("probe")
    kp = fc.keyframe_points
    kp.add(len(co) // 2)
    kp.foreach_set("co", co)
    types = ["FREE", "VECTOR", "ALIGNED", "AUTO", "AUTO_CLAMPED", "VECTOR"]
    for i, k in enumerate(kp):
        k.handle_left_type, k.handle_right_type = types[i], types[-1 - i]
    stride, h1, h2 = bulk_keys._probe_memory_layout(kp, len(kp))
    assert [(k.handle_left_type, k.handle_right_type) for k in kp] == list(zip(types, reversed(types)))
    items = bpy.types.Keyframe.bl_rna.properties["handle_left_type"].enum_items
    base = kp[0].as_pointer()
    for i, k in enumerate(kp):
        raw = (ctypes.c_ubyte * stride).from_address(base + i * stride)
        assert (raw[h1], raw[h2]) == (items[k.handle_left_type].value, items[k.handle_right_type].value), i


def test_handle_types_fall_back_per_key_when_the_memory_write_fails(monkeypatch):
    """When the memory write cannot be used (here: refused), the writer
    sets the handle types through RNA per key (FREE on every key next to
    a Bezier segment) and stays per key."""
    from io_anim_gameanim import bulk_keys

    fc, co, interp, left, right = _bezier_curve("fallback")
    monkeypatch.setattr(bulk_keys, "_handle_mode", "memory")
    monkeypatch.setattr(bulk_keys, "_handle_layout", None)
    monkeypatch.setattr(bulk_keys, "_write_handle_bytes", lambda kp, n, value: False)
    bulk_keys.write_keys(fc, co, interp, left, right)
    assert bulk_keys.handle_types_bulk_mode() == "per_key"
    assert all(k.handle_left_type == "FREE" and k.handle_right_type == "FREE" for k in fc.keyframe_points)
    assert [tuple(k.handle_right) for k in fc.keyframe_points] == [
        pytest.approx((right[2 * i], right[2 * i + 1])) for i in range(len(co) // 2)]
