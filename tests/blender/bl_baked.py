"""Baked bones: on rigs whose bones have rest rotations, every pose bone's
armature-space matrix equals the world matrix computed here from the clip
(Animation.sample values, composed in plain Python) and the rest pose, at
every frame, within 1e-4 (translations relative to their size)."""
import json
import math

import bpy
import pytest
from blhelpers import (euler_xyz, local_matrix, make_rig, mat_from_blender, mat_identity, mat_max_diff, mat_mul,
                       mat_translation, rot_x, sample_id, samples, samples_by_track)

TOL = 1e-4

# tail directions and rolls that give every bone a rest rotation (with
# mixed=True the first bone keeps the identity: an exact bone in a baked rig)
DIRECTIONS = [(1, 0.2, 0), (0, 0.3, 1), (-1, 0.5, 0.5), (0.2, -1, 0.3), (0.5, 0.5, -1), (-0.3, 0.2, -1),
              (1, 1, 1)]
ROLLS = [0.0, 0.4, -1.1, 2.0, 0.7, -0.3, 1.5, -2.5]


def file_range(anim):
    if anim.format == "bk":
        return int(anim.start_frame), int(anim.info["end_frame"])
    return 0, int(math.floor(anim.frame_count))


def rotated_rig(anim, name, root_up=None, mixed=False):
    """A chain rig (bone i's parent is bone i-1) with rest rotations.
    root_up: a matrix applied to the whole rig's rest, as an importer's
    axis conversion would (its root bones then carry that rotation)."""
    from io_anim_gameanim.shared.rig_match import anim_targets

    targets = anim_targets(anim)
    if anim.format == "bk":
        targets = sorted(targets)
    elif all(isinstance(t, int) for t in targets):
        targets = list(range(max(targets) + 1))
    spec, prev = [], None
    for i, t in enumerate(targets):
        d = DIRECTIONS[i % len(DIRECTIONS)]
        n = math.sqrt(sum(c * c for c in d))
        head = (0.4 * i - 0.5, 0.3 * i + 0.2, 0.25 * (i % 3))
        tail = tuple(h + 0.8 * c / n for h, c in zip(head, d))
        roll = ROLLS[i % len(ROLLS)]
        if i == 0 and mixed:
            tail, roll = (head[0], head[1] + 0.8, head[2]), 0.0
        bname = t if isinstance(t, str) else f"b{t}"
        spec.append((bname, prev, head, tail, roll))
        prev = bname
    rig = make_rig(name, spec)
    if root_up is not None:
        # convert the rest the way a Y-up -> Z-up importer does: rotate the
        # whole armature data
        from mathutils import Matrix

        rig.data.transform(Matrix([row for row in root_up]))
    for i, t in enumerate(targets):
        b = rig.data.bones[spec[i][0]]
        if anim.format == "bk":
            b["gameanim_bone_id"] = t
    return rig, [s[0] for s in spec], targets


def expected_worlds_absolute(anim, values, names, targets, fi, k, up):
    """World (armature space) of each chain bone: up * L_0 * L_1 * ... ."""
    out, parent = {}, up
    for bname, t in zip(names, targets):
        w = mat_mul(parent, local_matrix(values, t, fi, k))
        out[bname] = w
        parent = w
    return out


def expected_worlds_bk(anim, values, names, targets, fi, k, rig, up):
    """Banjo-Kazooie: M_i = M_parent * T(p_i + k t) * R * S * T(-p_i) in the
    game's model space, pivots p_i at the bone heads; Blender's pose is
    C * M_i * C^-1 * rest_i (C the rig's axis conversion)."""
    c = up
    c_inv = [[c[j][i] for j in range(3)] + [0.0] for i in range(3)] + [[0, 0, 0, 1]]
    out, parent_m = {}, mat_identity()
    for bname, t in zip(names, targets):
        rest = mat_from_blender(rig.data.bones[bname].matrix_local)
        head_arm = [rest[i][3] for i in range(3)]
        p = [sum(c_inv[i][j] * head_arm[j] for j in range(3)) for i in range(3)]
        loc = local_matrix(values, t, fi, k)  # T(k t) R S
        m = mat_mul(parent_m, mat_mul(mat_translation(p), mat_mul(loc, mat_translation([-x for x in p]))))
        out[bname] = mat_mul(mat_mul(c, mat_mul(m, c_inv)), rest)
        parent_m = m
    return out


CASES = ["j3d/walk_type0.bck", "j3d/dance_*.yaz0.bck", "bca/bones20_raw.bca", "bca/handmade_unusual.bca",
         "bk/features.bin", "bk/long.bin", "jba/legacy_walk.jba", "jba/jawb_unnamed.jba"]


def without_scale(ga, path, tmp_path):
    """A copy of a Banjo-Kazooie sample without its scale channels (written
    by gameanim's encoder), so that every bone of a rotated rig can be
    compared exactly."""
    anim = ga.load(str(path))
    tracks = [t for t in anim.tracks if t.channel != "scale"]
    copy = ga.Animation("bk", tracks, frame_count=anim.frame_count, start_frame=anim.start_frame)
    out = tmp_path / (path.stem + "_noscale.bin")
    out.write_bytes(copy.to_bytes())
    return out


@pytest.mark.parametrize("path", samples(*CASES), ids=sample_id)
@pytest.mark.parametrize("up_axis", ["NONE", "Y_TO_Z"])
def test_baked_pose_matrices_equal_game_world(path, up_axis, api, ga, tmp_path):
    if path.name == "long.bin":
        path = without_scale(ga, path, tmp_path)
    anim = ga.load(str(path))
    up = mat_identity() if up_axis == "NONE" else rot_x(math.pi / 2)
    rig, names, targets = rotated_rig(anim, "Rig", root_up=None if up_axis == "NONE" else up)
    kw = {"bone_match": "INDEX"} if anim.format == "jba" and isinstance(targets[0], int) else {}
    k = 1.5 if anim.format == "bk" else 1.0
    res = api.import_files([str(path)], armature=rig, up_axis=up_axis, translation_scale=k, **kw)
    fr = res.report.files[0]
    assert fr.ok, fr.error
    assert fr.unmatched == []
    modes = {b: m for b, m in json.loads(res[0]["gameanim_bones"]).values()}
    # every bone has a rest rotation: all are baked, and say why
    assert sorted(b for b, _ in fr.baked) == sorted(names)
    assert all("rest rotation" in why for _b, why in fr.baked)
    assert set(modes.values()) == {"baked"}
    skipped = set()
    checks = check_worlds(anim, rig, names, targets, k, up, skipped)
    assert checks > 0
    if anim.format == "bk":
        # Banjo-Kazooie's scale acts in model axes: on a bone with a rest
        # rotation a non-uniform scale is a skew Blender cannot hold.  Those
        # bones are reported (and left out of the comparison above).
        noted = " ".join(fr.notes)
        for bname in skipped:
            assert f"bone {bname!r}: non-uniform scale" in noted


@pytest.mark.parametrize("path", samples("bca/bones20_raw.bca", "jba/legacy_walk.jba", "bk/features.bin"),
                         ids=sample_id)
def test_exact_root_with_baked_children(path, api, ga):
    """A rig whose root has no rest rotation: the root keeps exact curves,
    its children are baked, and the chain still lands on the game's
    world matrices.  (Not with BCK: its exact root follows the smooth
    curve, the baked children the game's truncated angles.)"""
    anim = ga.load(str(path))
    rig, names, targets = rotated_rig(anim, "Rig", mixed=True)
    res = api.import_files([str(path)], armature=rig)
    modes = {b: m for b, m in json.loads(res[0]["gameanim_bones"]).values()}
    assert modes[names[0]] == "exact" and all(modes[n] == "baked" for n in names[1:])
    assert check_worlds(anim, rig, names, targets, 1.0, mat_identity()) > 0


def uniform(values, target, fi):
    s = [values[(target, "scale", a)][fi] if (target, "scale", a) in values else 1.0 for a in range(3)]
    return max(s) - min(s) <= 1e-7


def check_worlds(anim, rig, names, targets, k, up, skipped=None, time_scale=1.0):
    """Compares every pose bone with the game's world at every (scene)
    frame; returns the number of comparisons.  With `skipped` (a set),
    Banjo-Kazooie bones whose own or an ancestor's scale is non-uniform at a
    frame are not compared but collected, for bones with a rest rotation.
    time_scale: the import's (scene frame = file frame x time_scale)."""
    first, last = file_range(anim)
    frames = list(range(int(math.ceil(first * time_scale - 1e-9)), int(math.floor(last * time_scale + 1e-9)) + 1))
    if len(frames) > 60:
        frames = frames[:30] + frames[-30:]
    values = samples_by_track(anim, [f / time_scale for f in frames])
    scene = bpy.context.scene
    count = 0
    for fi, f in enumerate(frames):
        scene.frame_set(f)
        if anim.format == "bk":
            want = expected_worlds_bk(anim, values, names, targets, fi, k, rig, up)
        else:
            want = expected_worlds_absolute(anim, values, names, targets, fi, k, up)
        chain_uniform = True
        for bname, t in zip(names, targets):
            if skipped is not None and anim.format == "bk":
                if not uniform(values, t, fi):
                    skipped.add(bname)
                    chain_uniform = False
                if not chain_uniform:
                    continue
            got = mat_from_blender(rig.pose.bones[bname].matrix)
            err = mat_max_diff(got, want[bname])
            assert err <= TOL, f"{bname} at frame {f}: pose matrix differs from the game's world by {err}"
            count += 1
    return count


@pytest.mark.parametrize("path", samples("bca/walk_even_lz77.bca", "jba/legacy_walk.jba"), ids=sample_id)
def test_baked_bones_are_exact_at_scene_frames_with_scene_rate(path, api, ga):
    """Frame Rate = Scene: the baked keys sit on whole scene frames (their
    file frames are fractional), so Blender shows the game's pose at every
    frame it plays, not an interpolation between baked file frames."""
    anim = ga.load(str(path))
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 24, 1.0
    scale = 24.0 / anim.fps
    rig, names, targets = rotated_rig(anim, "Rig")
    kw = {"bone_match": "INDEX"} if anim.format == "jba" and isinstance(targets[0], int) else {}
    res = api.import_files([str(path)], armature=rig, frame_rate="SCENE", **kw)
    assert res.report.files[0].ok and {b for b, _ in res.report.files[0].baked} == set(names)
    assert check_worlds(anim, rig, names, targets, 1.0, mat_identity(), time_scale=scale) > 0


def test_baked_rig_moves_and_uses_quaternions(api, ga):
    path = samples("j3d/walk_type0.bck")[0]
    anim = ga.load(str(path))
    rig, names, _ = rotated_rig(anim, "Rig", mixed=True)
    res = api.import_files([str(path)], armature=rig)
    baked = [b for b, _ in res.report.files[0].baked]
    assert baked and all(rig.pose.bones[b].rotation_mode == "QUATERNION" for b in baked)
    exact = res.report.files[0].exact
    assert all(rig.pose.bones[b].rotation_mode == "XYZ" for b in exact)
    scene = bpy.context.scene
    scene.frame_set(0)
    a = [list(r) for r in rig.pose.bones[names[-1]].matrix]
    scene.frame_set(7)
    b = [list(r) for r in rig.pose.bones[names[-1]].matrix]
    assert mat_max_diff(a, b) > 1e-3


def test_curve_mode_baked_bakes_identity_bones_too(api, ga):
    path = samples("j3d/walk_type0.bck")[0]
    res = api.import_files([str(path)], target="NEW", curve_mode="BAKED")
    fr = res.report.files[0]
    assert fr.exact == [] and len(fr.baked) == 3
    assert all(why == "curve mode is Baked" for _b, why in fr.baked)


def test_euler_order_of_expected_maths():
    """The test's own Euler convention: X first, then Y, then Z."""
    m = euler_xyz([math.pi / 2, 0.0, math.pi / 2])
    # x axis -> (rotate about X: x stays) -> (about Z: y)
    assert [round(m[i][0], 9) for i in range(3)] == [0.0, 1.0, 0.0]
    # y axis -> about X: z -> about Z: z
    assert [round(m[i][1], 9) for i in range(3)] == [0.0, 0.0, 1.0]


# ---------------------------------------------------------------------------
# JBA onto a SWTOR GR2 rig: the axes change bone by bone


GR2_HIERARCHY = [("GOD", None), ("Bip01", "GOD"), ("Bip01 Pelvis", "Bip01"), ("Bip01 Spine", "Bip01 Pelvis"),
                 ("Bip01 L Thigh", "Bip01 Pelvis"), ("Bip01 R Thigh", "Bip01 Pelvis")]


@pytest.mark.parametrize("gr2_scale", [None, 2.5])
def test_jba_onto_a_gr2_rig_changes_axes_bone_by_bone(gr2_scale, api, ga, tmp_path):
    """Rig Up Axis = SWTOR GR2 Rig: a rig in GR2 axes (Y-up, 1/1000 of a
    JBA unit over the object's gr2_scale), its object turned +90 degrees
    about X as the Granny importer leaves it, bones with arbitrary rest
    rotations.  Then JBA axes are Blender's world axes over s = 1000 /
    gr2_scale (docs/formats/jba.md section 3): every bone's world matrix
    is S(1/s) @ M @ C, M the bone's Morpheme transform composed from the
    file's channels along the rig's hierarchy, C the GR2 -> Morpheme
    change of axes.  The export takes the axes back out."""
    from mathutils import Matrix, Quaternion, Vector

    from exphelpers import export_bytes

    path = samples("jba/legacy_walk.jba")[0]
    anim = ga.load(str(path))
    spec = []
    for i, (name, parent) in enumerate(GR2_HIERARCHY):
        head = (0.01 * i, 0.02 * i + 0.01, -0.005 * i)
        d = DIRECTIONS[i % len(DIRECTIONS)]
        tail = tuple(h + 0.03 * c for h, c in zip(head, d))
        spec.append((name, parent, head, tail, ROLLS[i % len(ROLLS)]))
    rig = make_rig("GR2Rig", spec)
    rig.rotation_euler = (math.pi / 2, 0.0, 0.0)
    if gr2_scale is not None:
        rig["gr2_scale"] = gr2_scale
    s = 1000.0 / (gr2_scale or 1.0)
    C = Matrix(((s, 0, 0, 0), (0, 0, -s, 0), (0, s, 0, 0), (0, 0, 0, 1)))
    shrink = Matrix.Diagonal((1 / s, 1 / s, 1 / s, 1.0))

    res = api.import_files([str(path)], armature=rig, up_axis="GR2", bone_match="NAME")
    fr = res.report.files[0]
    assert fr.ok and not fr.unmatched, (fr.error, fr.unmatched)
    opts = json.loads(res[0]["gameanim_options"])
    parents = dict(GR2_HIERARCHY)
    scene = bpy.context.scene

    def morpheme(name, f):
        t = Vector([anim.find(name, "translation", a).evaluate(float(f))[0] for a in range(3)])
        q = Quaternion([anim.find(name, "rotation_quaternion", a).evaluate(float(f))[0] for a in range(4)])
        local = Matrix.Translation(t) @ q.normalized().to_matrix().to_4x4()
        return local if parents[name] is None else morpheme(parents[name], f) @ local

    for f in (0, 41, 98):
        scene.frame_set(int(round(f * opts["time_scale"] + opts["frame_offset"])))
        for name, _parent in GR2_HIERARCHY:
            got = rig.matrix_world @ rig.pose.bones[name].matrix
            want = shrink @ morpheme(name, f) @ C
            assert mat_max_diff(got, want) < TOL, (f, name, got, want)

    data, _ = export_bytes(api, res[0])
    assert data == path.read_bytes()
    out = tmp_path / "short.jba"
    api.export_action(str(out), res[0], frame_range="CUSTOM", frame_start=opts["frame_offset"],
                      frame_end=opts["frame_offset"] + 60 * opts["time_scale"])
    short = ga.load(str(out))
    for f in (0, 30, 60):
        for name, _parent in GR2_HIERARCHY:
            for a in range(3):
                got = short.find(name, "translation", a).evaluate(float(f))[0]
                want = anim.find(name, "translation", a).evaluate(float(f))[0]
                assert got == pytest.approx(want, abs=0.05), (f, name, a)
            qg = Quaternion([short.find(name, "rotation_quaternion", a).evaluate(float(f))[0] for a in range(4)])
            qw = Quaternion([anim.find(name, "rotation_quaternion", a).evaluate(float(f))[0] for a in range(4)])
            assert abs(qg.normalized().dot(qw.normalized())) > 1 - 1e-5, (f, name, qg, qw)
