"""Model.world_matrices: the game's joint matrices (docs/skeleton.md),
compared with tests/model_reference.py, an independent statement of the
rules written from the format notes.  Models are written byte by byte by
tests/model_fixtures.py; animations are built with gameanim's own API and
sampled with Animation.sample (the samplers are tested elsewhere)."""
import math
import random

import pytest

import gameanim
import model_reference as ref
from model_fixtures import bk_model_bytes, j3d_bytes, keyed_bck_tracks, sm64ds_bytes

f32 = ref.f32

# ---------------------------------------------------------------- helpers


def matrices(flat, nbones):
    return [list(flat[i * 16:(i + 1) * 16]) for i in range(nbones)]


def assert_close(got, want, rel=1e-5, what=""):
    """Every element within rel of the larger magnitude (at least 1)."""
    assert len(got) == len(want)
    for b, (g, w) in enumerate(zip(got, want)):
        for e, (x, y) in enumerate(zip(g, w)):
            assert abs(x - y) <= rel * max(1.0, abs(x), abs(y)), f"{what} bone {b} element {e}: {x} != {y}"


def random_joints(rng, n, shuffled=True):
    parents = [-1] + [rng.randrange(i) for i in range(1, n)]
    perm = list(range(n))
    if shuffled:
        rng.shuffle(perm)
    new_of = {old: new for new, old in enumerate(perm)}
    joints = [None] * n
    for old in range(n):
        joints[new_of[old]] = dict(
            parent=new_of[parents[old]] if parents[old] >= 0 else -1,
            scale=[f32(rng.choice([1.0, 1.0, 2.0, 0.5, rng.uniform(0.3, 3.0)])) for _ in range(3)],
            rot=[rng.randrange(-32768, 32768) for _ in range(3)],
            trans=[f32(rng.uniform(-50, 50)) for _ in range(3)],
            ssc=rng.choice([0, 1, 0xFF]))
    return joints


def j3d_ref_bones(joints):
    return [dict(parent=j["parent"], scale_compensate=j.get("ssc", 0)) for j in joints]


def j3d_rest_pose(joints):
    return [(j["scale"], j["rot"], j["trans"]) for j in joints]


def j3d_pose_from_anim(joints, anim, frame):
    """The per-joint values the game uses at `frame`: the applied track of a
    component if the clip has one, else the rest value."""
    pose = [[list(j["scale"]), list(j["rot"]), list(j["trans"])] for j in joints]
    values = anim.sample([frame])
    seen = set()
    for i in anim.applied_tracks():
        t = anim.tracks[i]
        key = (t.target, t.channel, t.axis)
        if key in seen or not 0 <= t.target < len(joints):
            continue
        seen.add(key)
        ch = ["scale", "rotation", "translation"].index(t.channel)
        v = values[i]
        pose[t.target][ch][t.axis] = ref.radians_to_angle(v, 65536) if ch == 1 else v
    return pose


CHANNELS = ("scale", "rotation", "translation")


def random_bck(rng, njoints, frame_count=12, density=0.5):
    tracks = keyed_bck_tracks(gameanim, rng, njoints, lambda: [0.0, float(rng.randrange(3, 7)), float(frame_count)],
                              {"scale": (0.4, 2.5), "rotation": (-3.0, 3.0), "translation": (-30, 30)},
                              density=density)
    return gameanim.Animation("bck", tracks, frame_count=frame_count)


RULES = ("basic", "softimage", "maya")
FRAMES = [0.0, 1.0, 2.5, 4.25, 7.75, 11.0]

# ---------------------------------------------------------------- J3D


@pytest.mark.parametrize("rule", RULES)
def test_j3d_rest_pose_equals_reference_for_random_trees(rule):
    rng = random.Random(f"rest-{rule}")
    for n in (1, 2, 5, 17, 40):
        joints = random_joints(rng, n)
        model = gameanim.load_model(j3d_bytes(joints, rule))
        assert model.calc == rule
        got = matrices(model.world_matrices(), n)
        want = ref.j3d_world(j3d_ref_bones(joints), rule, j3d_rest_pose(joints))
        assert got == want, "C and the reference follow the same float32 order: equal bit for bit"


@pytest.mark.parametrize("rule", RULES)
def test_j3d_animation_replaces_rest_per_component_at_fractional_frames(rule):
    rng = random.Random(f"anim-{rule}")
    for n in (1, 6, 23):
        joints = random_joints(rng, n)
        model = gameanim.load_model(j3d_bytes(joints, rule))
        anim = gameanim.load(random_bck(rng, n).to_bytes())
        flat = model.world_matrices(anim, FRAMES)
        assert len(flat) == len(FRAMES) * n * 16
        for fi, frame in enumerate(FRAMES):
            got = matrices(flat[fi * n * 16:(fi + 1) * n * 16], n)
            want = ref.j3d_world(j3d_ref_bones(joints), rule, j3d_pose_from_anim(joints, anim, frame))
            assert_close(got, want, 1e-6, f"{rule} frame {frame}")
            assert got == want
        # one frame at a time agrees with the whole range in one call
        assert list(model.world_matrices(anim, 2.5)) == list(flat[2 * n * 16:3 * n * 16])


def test_j3d_remap_table_picks_the_records():
    rng = random.Random("remap")
    joints = random_joints(rng, 6, shuffled=False)
    remap = [3, 0, 5, 1, 4, 2]
    model = gameanim.load_model(j3d_bytes(joints, "basic", remap))
    got = matrices(model.world_matrices(), 6)
    assert got == ref.j3d_world(j3d_ref_bones(joints), "basic", j3d_rest_pose(joints))


def test_j3d_parent_numbered_after_child():
    # joint 0's parent is joint 2, joint 2's parent joint 1 (the root)
    joints = [dict(parent=2, scale=[1.0, 2.0, 1.0], rot=[4000, 0, 0], trans=[1.0, 0, 0]),
              dict(parent=-1, scale=[1.0, 1.0, 1.0], rot=[0, 8192, 0], trans=[0, 5.0, 0]),
              dict(parent=1, scale=[3.0, 1.0, 1.0], rot=[0, 0, 16384], trans=[0, 0, 2.0])]
    model = gameanim.load_model(j3d_bytes(joints, "basic"))
    assert [b.parent for b in model.bones] == [2, -1, 1]
    got = matrices(model.world_matrices(), 3)
    assert got == ref.j3d_world(j3d_ref_bones(joints), "basic", j3d_rest_pose(joints))
    # the child really sits under its parent: its origin is the parent's matrix applied to its translation
    p = got[2]
    origin = [p[r * 4] * 1.0 + p[r * 4 + 3] for r in range(3)]
    assert got[0][3] == pytest.approx(origin[0], rel=1e-6)
    assert got[0][7] == pytest.approx(origin[1], abs=1e-5)


def _chain(scales, rule, ssc=(0, 0, 0), rots=None):
    rots = rots or [[0, 0, 0]] * len(scales)
    joints = [dict(parent=i - 1, scale=list(s), rot=list(r), trans=[0.0, 1.0, 0.0], ssc=c)
              for i, (s, r, c) in enumerate(zip(scales, rots, ssc))]
    model = gameanim.load_model(j3d_bytes(joints, rule))
    return matrices(model.world_matrices(), len(joints)), joints


def column_lengths(m):
    return [math.sqrt(sum(m[r * 4 + c] ** 2 for r in range(3))) for c in range(3)]


def test_basic_quirk_drops_child_scale_when_accumulated_scale_is_one():
    got, joints = _chain([(2.0, 2.0, 2.0), (0.5, 0.5, 0.5)], "basic")
    # S_acc = 2 * 0.5 = 1: the child's own 0.5 is NOT applied, so the child
    # keeps the parent's scale 2 (full inheritance would give 1)
    assert column_lengths(got[1]) == pytest.approx([2.0, 2.0, 2.0])
    # where S_acc is not 1 the local scale is applied: 2 * 0.25
    got, _ = _chain([(2.0, 2.0, 2.0), (0.25, 0.25, 0.25)], "basic")
    assert column_lengths(got[1]) == pytest.approx([0.5, 0.5, 0.5])
    # and one axis off 1 is enough for the whole scale to apply
    got, _ = _chain([(2.0, 2.0, 2.0), (0.5, 0.5, 0.25)], "basic")
    assert column_lengths(got[1]) == pytest.approx([1.0, 1.0, 0.5])


def _softimage_and_basic(scales, rots):
    """The chain's matrices under Softimage (checked against the reference)
    and under Basic."""
    soft, joints = _chain(scales, "softimage", rots=rots)
    assert soft == ref.j3d_world(j3d_ref_bones(joints), "softimage", j3d_rest_pose(joints))
    basic, _ = _chain(scales, "basic", rots=rots)
    return soft, basic


def test_softimage_children_do_not_inherit_scale():
    # joint 0 scales (2, 3, 4); joint 1 turns 90 degrees about Z
    soft, basic = _softimage_and_basic([(2.0, 3.0, 4.0), (1.0, 1.0, 1.0), (1.0, 1.0, 1.0)],
                                       [[0, 0, 0], [0, 0, 0x4000], [0, 0, 0]])
    # the scaled joint's own matrix carries its scale
    assert column_lengths(soft[0]) == pytest.approx([2.0, 3.0, 4.0])
    # the child's frame is unscaled: the accumulated scale lands on its own
    # axes (x stays 2 after the turn) ...
    assert column_lengths(soft[1]) == pytest.approx([2.0, 3.0, 4.0])
    assert column_lengths(soft[2]) == pytest.approx([2.0, 3.0, 4.0])
    # ... where Basic passes the scaled matrix down: the turned child's x
    # axis is the parent's y, scaled by 3
    assert column_lengths(basic[1]) == pytest.approx([3.0, 2.0, 4.0])
    # translations are t * S_acc of the parent in both: 1 + 1 * 3
    assert soft[1][7] == pytest.approx(4.0) and basic[1][7] == pytest.approx(4.0)
    # the grandchild's step is along the turned child's y (the parent's -x),
    # scaled by S_acc.y = 3 under Softimage, by the parent's x scale 2 under Basic
    assert soft[2][3] == pytest.approx(-3.0, abs=1e-5)
    assert basic[2][3] == pytest.approx(-2.0, abs=1e-5)


def test_softimage_rotated_child_under_non_uniform_scale():
    # Basic shears a rotated child under a non-uniform parent scale (the
    # scale is in the inherited matrix); Softimage does not: its child's
    # output is an orthogonal frame with S_acc on the columns
    soft, basic = _softimage_and_basic([(1.0, 3.0, 1.0), (1.0, 1.0, 1.0), (1.0, 1.0, 1.0)],
                                       [[0, 0, 0], [0, 0, 5000], [0, 0, 0]])
    assert column_lengths(soft[2]) == pytest.approx([1.0, 3.0, 1.0])
    m = basic[2]
    cols = [[m[r * 4 + c] for r in range(3)] for c in range(3)]
    assert abs(sum(a * b for a, b in zip(cols[0], cols[1]))) > 0.5  # Basic: sheared
    m = soft[2]
    cols = [[m[r * 4 + c] for r in range(3)] for c in range(3)]
    assert abs(sum(a * b for a, b in zip(cols[0], cols[1]))) < 1e-5  # Softimage: not


def test_maya_compensates_only_the_direct_parent():
    # grandparent scale 2, parent scale 3, compensated child scale 1
    got, joints = _chain([(2.0, 2.0, 2.0), (3.0, 3.0, 3.0), (1.0, 1.0, 1.0)], "maya", ssc=(0, 0, 1))
    # the child removes the parent's 3 but keeps the grandparent's 2
    assert column_lengths(got[2]) == pytest.approx([2.0, 2.0, 2.0])
    # its translation stays in the parent's scaled space: 1 + 1 * 2 + 1 * (2 * 3)
    assert got[2][7] == pytest.approx(1.0 + 1.0 * 2 + 1.0 * 6)
    # without the compensate byte: full inheritance 2 * 3
    got, _ = _chain([(2.0, 2.0, 2.0), (3.0, 3.0, 3.0), (1.0, 1.0, 1.0)], "maya", ssc=(0, 0, 0))
    assert column_lengths(got[2]) == pytest.approx([6.0, 6.0, 6.0])
    # 0xFF means false
    got, _ = _chain([(2.0, 2.0, 2.0), (3.0, 3.0, 3.0), (1.0, 1.0, 1.0)], "maya", ssc=(0, 0, 0xFF))
    assert column_lengths(got[2]) == pytest.approx([6.0, 6.0, 6.0])


def test_maya_compensation_with_non_uniform_parent_scale_shears_like_the_game():
    # T * S_p^-1 * R * S with a non-uniform S_p and a non-axis-aligned R: the
    # compensation divides rows, so the result is not a rotation times a scale
    scales = [(1.0, 1.0, 1.0), (1.0, 4.0, 0.5), (1.5, 1.0, 0.75)]
    rots = [[1000, 2000, 3000], [-5000, 7000, 12000], [9000, -3000, 6000]]
    got, joints = _chain(scales, "maya", ssc=(0, 1, 1), rots=rots)
    want = ref.j3d_world(j3d_ref_bones(joints), "maya", j3d_rest_pose(joints))
    assert got == want
    naive = ref.j3d_world([dict(parent=j["parent"], scale_compensate=0) for j in joints], "maya",
                          j3d_rest_pose(joints))
    assert max(abs(a - b) for a, b in zip(got[2], naive[2])) > 0.1


def test_maya_compensation_under_animated_scales():
    rng = random.Random("maya-anim")
    joints = [dict(parent=i - 1, scale=[1.0, 1.0, 1.0], rot=[rng.randrange(-32768, 32768) for _ in range(3)],
                   trans=[0.0, 10.0, 0.0], ssc=1) for i in range(5)]
    tracks = [gameanim.Track(j, "scale", a, [0.0, 10.0], [1.0, rng.uniform(0.3, 3.0)], [0.0, 0.0], [0.0, 0.0])
              for j in range(5) for a in range(3)]
    anim = gameanim.load(gameanim.Animation("bck", tracks, frame_count=10).to_bytes())
    model = gameanim.load_model(j3d_bytes(joints, "maya"))
    for frame in (0.0, 3.3, 9.5):
        got = matrices(model.world_matrices(anim, frame), 5)
        assert got == ref.j3d_world(j3d_ref_bones(joints), "maya", j3d_pose_from_anim(joints, anim, frame))


def test_j3d_count_zero_track_gives_the_channel_default_not_the_rest_value():
    joints = [dict(parent=-1, scale=[2.0, 2.0, 2.0], rot=[0, 0, 0], trans=[5.0, 6.0, 7.0])]
    model = gameanim.load_model(j3d_bytes(joints, "basic"))
    anim = gameanim.Animation("bck", [gameanim.Track(0, "translation", 1)], frame_count=4)
    m = model.world_matrices(anim, 1.0)
    assert m[7] == 0.0  # keyless translation y: 0
    assert (m[3], m[11]) == (5.0, 7.0)  # untouched components: rest
    assert column_lengths(list(m))[0] == pytest.approx(2.0)


def test_j3d_uses_the_game_sine_table():
    # 0x1234 and 0x1237 fall in one 16-unit step of the table: same matrix
    def rest(rx):
        joints = [dict(parent=-1, scale=[1.0] * 3, rot=[rx, 0, 0], trans=[0.0] * 3)]
        return list(gameanim.load_model(j3d_bytes(joints, "basic")).world_matrices())
    assert rest(0x1230) == rest(0x123F)
    assert rest(0x1230) != rest(0x1240)
    # cos(0xC000) is the table's entry 4096, (f32)sin(2*pi), not 0
    m = rest(-0x4000)
    assert m[5] == ref.SIN_TABLE[4096] != 0.0
    assert rest(0x1230)[9] == ref.SIN_TABLE[0x123]
    assert abs(rest(0x123F)[9] - math.sin(0x123F * math.pi / 32768)) > 1e-4  # table step, not sin


# ---------------------------------------------------------------- SM64DS


def ds_bones(rng, n):
    out = []
    for i in range(n):
        out.append(dict(parent=rng.randrange(i) if i else -1,
                        scale_fixed=[rng.choice([4096, 8192, 2048, rng.randrange(1000, 9000)]) for _ in range(3)],
                        rot=[rng.randrange(-2048, 2048) for _ in range(3)],
                        trans_fixed=[rng.randrange(-200000, 200000) for _ in range(3)]))
    return out


def ds_rest_pose(bones):
    return [([b / 4096 for b in x["scale_fixed"]], x["rot"], [t / 4096 for t in x["trans_fixed"]]) for x in bones]


def test_sm64ds_rest_pose_equals_reference():
    rng = random.Random("ds")
    for n in (1, 3, 12):
        bones = ds_bones(rng, n)
        model = gameanim.load_model(sm64ds_bytes(bones))
        assert model.format == "sm64ds_bmd"
        got = matrices(model.world_matrices(), n)
        assert got == ref.sm64ds_world([dict(parent=b["parent"]) for b in bones], ds_rest_pose(bones))


def test_sm64ds_bca_replaces_the_rest_values():
    rng = random.Random("ds-bca")
    n = 5
    bones = ds_bones(rng, n)
    model = gameanim.load_model(sm64ds_bytes(bones))
    nf = 8
    tracks = []
    for j in range(n):
        for ch in CHANNELS:
            for a in range(3):
                if ch == "scale":
                    vals = [rng.randrange(2048, 12000) / 4096 for _ in range(nf)]
                elif ch == "rotation":
                    vals = [rng.randrange(-2048, 2048) * math.pi / 2048 for _ in range(nf)]
                else:
                    vals = [rng.randrange(-100000, 100000) / 4096 for _ in range(nf)]
                tracks.append(gameanim.Track(j, ch, a, [float(f) for f in range(nf)], vals))
    anim = gameanim.load(gameanim.Animation("bca", tracks, frame_count=nf).to_bytes())
    frames = [0.0, 1.0, 2.5, 3.0, 6.75]
    flat = model.world_matrices(anim, frames)
    values = anim.sample(frames)
    applied = anim.applied_tracks()
    for fi, frame in enumerate(frames):
        pose = [[list(p[0]), list(p[1]), list(p[2])] for p in ds_rest_pose(bones)]
        seen = set()
        for i in applied:
            t = anim.tracks[i]
            if (t.target, t.channel, t.axis) in seen:
                continue
            seen.add((t.target, t.channel, t.axis))
            v = values[i * len(frames) + fi]
            ch = CHANNELS.index(t.channel)
            pose[t.target][ch][t.axis] = ref.radians_to_angle(v, 4096) if ch == 1 else v
        got = matrices(flat[fi * n * 16:(fi + 1) * n * 16], n)
        assert got == ref.sm64ds_world([dict(parent=b["parent"]) for b in bones], pose)


# ---------------------------------------------------------------- Banjo-Kazooie


def bk_bones(rng, n):
    return [dict(parent=rng.randrange(i) if i else -1, pivot=[f32(rng.uniform(-100, 100)) for _ in range(3)],
                 bone_id=rng.choice([1, 2, 3, 3, 4, 5])) for i in range(n)]


def test_bk_rest_pose_is_identity():
    bones = bk_bones(random.Random("bk-rest"), 4)
    model = gameanim.load_model(bk_model_bytes(bones, 45.0))
    assert list(model.world_matrices()) == [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0] * 4


def test_bk_deltas_about_pivots_by_bone_id():
    rng = random.Random("bk")
    bones = bk_bones(rng, 7)  # bone ID 3 is likely shared; ID 9 below matches nothing
    k = 45.0
    model = gameanim.load_model(bk_model_bytes(bones, k))
    tracks = []
    for bid in (1, 3, 4, 9):
        for ch in CHANNELS:
            for a in range(3):
                if rng.random() < 0.3:
                    continue
                times = [0.0, 5.0, 10.0]
                if ch == "scale":
                    vals = [rng.randrange(40, 130) / 64 for _ in times]
                elif ch == "rotation":
                    vals = [math.radians(rng.randrange(-9000, 9000) / 64) for _ in times]
                else:
                    vals = [rng.randrange(-3000, 3000) / 64 for _ in times]
                tracks.append(gameanim.Track(bid, ch, a, times, vals))
    anim = gameanim.load(gameanim.Animation("bk", tracks, frame_count=10).to_bytes())
    frames = [0.0, 2.5, 7.0]
    flat = model.world_matrices(anim, frames)
    values = anim.sample(frames)
    for fi in range(len(frames)):
        by_id = {}
        seen = set()
        for i in anim.applied_tracks():
            t = anim.tracks[i]
            if (t.target, t.channel, t.axis) in seen:
                continue
            seen.add((t.target, t.channel, t.axis))
            s, r, tr = by_id.setdefault(t.target, ([1.0] * 3, [0.0] * 3, [0.0] * 3))
            [s, r, tr][CHANNELS.index(t.channel)][t.axis] = values[i * len(frames) + fi]
        got = matrices(flat[fi * 7 * 16:(fi + 1) * 7 * 16], 7)
        want = ref.bk_world(bones, k, by_id)
        assert_close(got, want, 1e-5, f"frame {frames[fi]}")
    # an entry whose ID no track names is its parent's matrix (identity delta)
    quiet = [i for i, b in enumerate(bones) if b["bone_id"] not in (1, 3, 4)]
    for i in quiet:
        p = bones[i]["parent"]
        mats = matrices(flat[:7 * 16], 7)
        want = mats[p] if p >= 0 else [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0]
        assert mats[i] == pytest.approx(want, abs=1e-4)


def test_bk_translation_is_scaled_by_k():
    bones = [dict(parent=-1, pivot=[1.0, 2.0, 3.0], bone_id=1)]
    tracks = [gameanim.Track(1, "translation", 0, [0.0], [1.0])]
    anim = gameanim.load(gameanim.Animation("bk", tracks, frame_count=2).to_bytes())
    for k in (1.0, 45.0):
        m = gameanim.load_model(bk_model_bytes(bones, k)).world_matrices(anim, 0.0)
        assert m[3] == pytest.approx(k * 1.0)


# ---------------------------------------------------------------- API


def test_many_frames_in_one_call_equal_single_frames():
    rng = random.Random("many")
    joints = random_joints(rng, 9)
    model = gameanim.load_model(j3d_bytes(joints, "softimage"))
    anim = gameanim.load(random_bck(rng, 9, frame_count=30).to_bytes())
    frames = [i * 0.37 for i in range(80)]
    flat = model.world_matrices(anim, frames)
    for fi in (0, 17, 79):
        assert list(model.world_matrices(anim, frames[fi])) == list(flat[fi * 9 * 16:(fi + 1) * 9 * 16])


def test_rest_pose_for_several_frames_repeats():
    joints = random_joints(random.Random("rep"), 4)
    model = gameanim.load_model(j3d_bytes(joints, "basic"))
    flat = model.world_matrices(None, [0.0, 1.0, 2.0])
    assert list(flat[:64]) == list(flat[64:128]) == list(flat[128:])


def test_straightforward_reference_agrees_loosely():
    # the float64 version (benchmark baseline) is the same Basic rule where
    # no scale quirk applies: within the table's angle step
    rng = random.Random("f64")
    joints = random_joints(rng, 12)
    for j in joints:
        j["scale"] = [1.0, 1.0, 1.0]
    order = sorted(range(12), key=lambda i: _depth(joints, i))
    model = gameanim.load_model(j3d_bytes(joints, "basic"))
    got = matrices(model.world_matrices(), 12)
    remap = {old: new for new, old in enumerate(order)}
    bones = [dict(parent=remap[joints[o]["parent"]] if joints[o]["parent"] >= 0 else -1) for o in order]
    pose = [(joints[o]["scale"], [a * math.pi / 32768 for a in joints[o]["rot"]], joints[o]["trans"]) for o in order]
    loose = ref.straightforward_world(bones, pose)
    for new, old in enumerate(order):
        assert got[old] == pytest.approx(loose[new], abs=0.5, rel=2e-2)


def _depth(joints, i):
    d = 0
    while joints[i]["parent"] >= 0:
        i = joints[i]["parent"]
        d += 1
    return d


def test_sin_table_header_is_current():
    import subprocess
    import sys
    from conftest import ROOT
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "make_sin_table.py"), "--check"])
    assert proc.returncode == 0, "csrc/core/sin_table.h is stale: run tools/make_sin_table.py"


def test_non_finite_and_huge_animation_values_give_matrices_not_crashes():
    joints = random_joints(random.Random("nan"), 3)
    for rule in RULES:
        model = gameanim.load_model(j3d_bytes(joints, rule))
        tracks = [gameanim.Track(0, "rotation", 0, [0.0], [float("nan")]),
                  gameanim.Track(1, "rotation", 2, [0.0], [1e30]),
                  gameanim.Track(1, "scale", 1, [0.0], [float("inf")]),
                  gameanim.Track(2, "translation", 0, [0.0], [-1e38]),
                  gameanim.Track(7, "scale", 0, [0.0], [2.0]),  # no such joint: ignored
                  gameanim.Track(2, "scale", 0, [0.0], [0.0])]  # a zero scale under Maya: 1/0
        anim = gameanim.Animation("bck", tracks, frame_count=3)
        out = model.world_matrices(anim, [0.0, 1.5])
        assert len(out) == 2 * 3 * 16
        m = matrices(out[:48], 3)
        # a NaN rotation counts as angle 0 (the game's s16 cannot hold one): joint 0 stays finite
        assert all(math.isfinite(x) for x in m[0])


def test_empty_frame_list_gives_an_empty_array():
    joints = random_joints(random.Random("empty"), 2)
    model = gameanim.load_model(j3d_bytes(joints, "basic"))
    assert len(model.world_matrices(None, [])) == 0
    anim = gameanim.Animation("bck", [gameanim.Track(0, "rotation", 0, [0.0], [1.0])], frame_count=2)
    assert len(model.world_matrices(anim, [])) == 0


def test_threads_share_models_and_animations():
    # the core runs without the GIL; its only shared data is the constant
    # sine table, so concurrent calls give the single-threaded answer
    from concurrent.futures import ThreadPoolExecutor
    rng = random.Random("threads")
    joints = random_joints(rng, 20)
    model = gameanim.load_model(j3d_bytes(joints, "maya"))
    anim = gameanim.load(random_bck(rng, 20, frame_count=40).to_bytes())
    frames = [i * 0.5 for i in range(80)]
    want = list(model.world_matrices(anim, frames))
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: list(model.world_matrices(anim, frames)), range(32)))
    assert all(r == want for r in results)


def test_bk_channel_named_twice_uses_the_track_the_game_applies():
    bones = [dict(parent=-1, pivot=[0.0, 0.0, 0.0], bone_id=1)]
    model = gameanim.load_model(bk_model_bytes(bones, 1.0))
    tracks = [gameanim.Track(1, "rotation", 2, [0.0], [0.5]), gameanim.Track(1, "rotation", 2, [0.0], [1.0])]
    anim = gameanim.Animation("bk", tracks, frame_count=2)
    applied = anim.applied_tracks()
    assert len(applied) == 1
    angle = anim.sample([0.0])[applied[0]]
    m = model.world_matrices(anim, 0.0)
    assert m[4] == pytest.approx(math.sin(angle), abs=1e-6)  # R = Rz: element (1, 0) = sin z
    other = 0.5 if angle == pytest.approx(1.0, abs=1e-3) else 1.0
    assert m[4] != pytest.approx(math.sin(other), abs=1e-3)
