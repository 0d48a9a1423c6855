"""The Python API contract: Track and Animation objects, sampling layout,
Bezier buffers, baking, detection, errors."""
import array
import math
import random
import sys
import warnings

import pytest

import gameanim
from conftest import SAMPLES, is_model_sample

T = gameanim.Track


def quiet_bytes(anim, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        return anim.to_bytes(**kw)


# ---------------------------------------------------------------- Track


def test_track_defaults_and_buffers():
    t = T(3, "translation", 1, [0, 1, 2], [5, 6, 7])
    assert (t.target, t.channel, t.axis, len(t)) == (3, "translation", 1, 3)
    for name in ("times", "values", "in_slopes", "out_slopes"):
        arr = getattr(t, name)
        assert isinstance(arr, array.array) and arr.typecode == "f" and len(arr) == 3
    assert list(t.in_slopes) == [0.0, 0.0, 0.0]
    assert t.interpolation.typecode == "B"
    assert list(t.interpolation) == [gameanim.LINEAR] * 3  # no slopes given: straight lines
    s = T(0, "scale", 0, [0, 1], [1, 2], [0.5, 0.5], [0.5, 0.5])
    assert list(s.interpolation) == [gameanim.BEZIER] * 2  # slopes given: Hermite
    assert (gameanim.CONSTANT, gameanim.LINEAR, gameanim.BEZIER) == (0, 1, 2)  # Blender's enum numbers


def test_track_validation():
    with pytest.raises(ValueError, match="channel"):
        T(0, "position", 0)
    with pytest.raises(ValueError, match="axis"):
        T(0, "rotation", 3)
    T(0, "rotation_quaternion", 3)
    with pytest.raises(TypeError, match="target"):
        T(1.5, "scale", 0)
    with pytest.raises(ValueError, match="target"):
        T(-1, "scale", 0)
    with pytest.raises(ValueError, match="keys"):
        T(0, "scale", 0, [0, 1], [1])
    with pytest.raises(ValueError, match="in_slopes"):
        T(0, "scale", 0, [0, 1], [1, 2], [0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="interpolation"):
        T(0, "scale", 0, [0, 1], [1, 2], interpolation=7)
    with pytest.raises(TypeError):
        T(0, "scale", 0, "abc", "def")
    t = T("GOD", "translation", 0)
    assert t.target == "GOD"
    t.target = 5
    t.channel = "rotation"
    with pytest.raises(ValueError):
        t.axis = 5
    t.values = [1.0]  # lists are converted
    assert isinstance(t.values, array.array)


def test_mismatched_lengths_are_caught_at_use():
    t = T(0, "scale", 0, [0, 1], [1, 2])
    t.values.append(3.0)
    anim = gameanim.Animation("bck", [t], frame_count=1)
    with pytest.raises(ValueError, match="values has 3 keys but times has 2"):
        anim.sample([0.0])
    with pytest.raises(ValueError, match="keys"):
        anim.to_bytes()


def bezier_point(p0, p1, p2, p3, s):
    a = [(1 - s) * p0[i] + s * p1[i] for i in range(2)]
    b = [(1 - s) * p1[i] + s * p2[i] for i in range(2)]
    c = [(1 - s) * p2[i] + s * p3[i] for i in range(2)]
    d = [(1 - s) * a[i] + s * b[i] for i in range(2)]
    e = [(1 - s) * b[i] + s * c[i] for i in range(2)]
    return [(1 - s) * d[i] + s * e[i] for i in range(2)]


def hermite(f, t0, v0, s0, t1, v1, s1):
    L = t1 - t0
    u = (f - t0) / L
    h00, h10, h01, h11 = 2 * u**3 - 3 * u**2 + 1, u**3 - 2 * u**2 + u, -2 * u**3 + 3 * u**2, u**3 - u**2
    return h00 * v0 + h10 * L * s0 + h01 * v1 + h11 * L * s1


def test_bezier_buffers_reproduce_the_hermite_curve():
    rng = random.Random(7)
    times = [0.0, 3.0, 4.5, 10.0, 11.0]
    values = [rng.uniform(-5, 5) for _ in times]
    ins = [rng.uniform(-2, 2) for _ in times]
    outs = [rng.uniform(-2, 2) for _ in times]
    t = T(0, "translation", 0, times, values, ins, outs, interpolation=gameanim.BEZIER)
    co, left, right, interp = t.bezier(value_scale=2.0, value_offset=1.0, time_scale=0.5, time_offset=10.0)
    assert interp.typecode == "i" and list(interp) == [2] * 5
    assert len(co) == len(left) == len(right) == 10
    pts = lambda buf, k: (buf[2 * k], buf[2 * k + 1])
    for k in range(4):
        p0, p1, p2, p3 = pts(co, k), pts(right, k), pts(left, k + 1), pts(co, k + 1)
        # handles at one third in time: x(s) is linear, so y(x) is the cubic
        for i in range(1, 20):
            s = i / 20
            x, y = bezier_point(p0, p1, p2, p3, s)
            f = (x - 10.0) / 0.5
            want = 2.0 * hermite(f, times[k], values[k], outs[k], times[k + 1], values[k + 1], ins[k + 1]) + 1.0
            assert y == pytest.approx(want, abs=2e-4)
            assert f == pytest.approx(times[k] + s * (times[k + 1] - times[k]), abs=1e-4)


@pytest.mark.parametrize("times, interp, increasing, has_bezier", [
    ([0, 3, 4.5, 10], [gameanim.BEZIER] * 4, True, True),
    ([0, 3, 4.5, 10], [gameanim.LINEAR, gameanim.BEZIER, gameanim.LINEAR, gameanim.LINEAR], True, True),
    ([0, 3, 4.5, 10], [gameanim.LINEAR, gameanim.CONSTANT, gameanim.LINEAR, gameanim.LINEAR], True, False),
    ([0, 3, 3, 10], [gameanim.LINEAR] * 4, False, False),          # a step: two keys share frame 3
    ([0, 5, 2, 10], [gameanim.CONSTANT] * 4, False, False),        # out of order
    ([7], [gameanim.BEZIER], True, True),
])
def test_bezier_flags_say_whether_times_increase_and_a_segment_is_bezier(times, interp, increasing, has_bezier):
    t = T(0, "rotation", 2, times, [1.0] * len(times), interpolation=interp)
    plain = t.bezier(2.0, 1.0, 0.5, 3.0)
    got = t.bezier(2.0, 1.0, 0.5, 3.0, flags=True)
    assert len(plain) == 4 and len(got) == 6
    assert [bytes(b) for b in got[:4]] == [bytes(b) for b in plain]  # the same buffers
    co = got[0]
    xs = co[0::2]
    # independently: strictly increasing scene times; a BEZIER code anywhere
    assert got[4] is (all(b > a for a, b in zip(xs, xs[1:]))) is increasing
    assert got[5] is (gameanim.BEZIER in list(got[3])) is has_bezier
    assert t.bezier(flags=False) == t.bezier()


def test_evaluate_holds_outside_and_honours_interpolation():
    t = T(0, "translation", 0, [0, 10, 20], [0, 10, 0], interpolation=[gameanim.LINEAR, gameanim.CONSTANT, 0])
    got = list(t.evaluate([-5, 0, 5, 10, 15, 19.9, 20, 30]))
    assert got == [0, 0, 5, 10, 10, 10, 0, 0]
    assert list(T(0, "scale", 1).evaluate([0, 5])) == [1.0, 1.0]  # no keys: channel default
    assert list(T(0, "rotation_quaternion", 0).evaluate([0])) == [1.0]


def test_track_copy_is_deep():
    t = T("a", "scale", 0, [0, 1], [1, 2])
    c = t.copy()
    c.values[0] = 9
    assert t.values[0] == 1 and c.target == "a"


# ---------------------------------------------------------------- Animation


def test_animation_construction_and_attributes():
    a = gameanim.Animation("btk", [], frame_count=12, loop="mirror_once", entries=[{"material": "m"}],
                           calc_type="maya", rotation_frac=3)
    assert (a.format, a.frame_count, a.fps, a.loop, a.calc_type, a.rotation_frac) == ("btk", 12.0, None, "mirror_once", "maya", 3)
    assert a.compression is None and a.encode_report is None and a.info == {}
    a.loop = None
    a.fps = 30
    assert a.loop is None and a.fps == 30.0
    with pytest.raises(ValueError, match="loop"):
        a.loop = "forever"
    with pytest.raises(ValueError, match="compression"):
        a.compression = "zip"
    with pytest.raises(ValueError, match="unknown format"):
        gameanim.Animation("fbx")
    with pytest.raises(TypeError, match="Track"):
        gameanim.Animation("bck", [1, 2])
    with pytest.raises(TypeError, match="Track"):
        a.tracks = ["x"]
    with pytest.raises(ValueError, match="rotation_frac"):
        a.rotation_frac = 16
    assert set(gameanim.formats()) == {"bck", "btk", "bca", "bk", "jba", "brk", "bpk", "btp", "bva", "j3d_bca"}
    assert set(gameanim.compressions()) == {"lz77", "yaz0", "yay0", "rarezip"}
    assert gameanim.LOOP_MODES == ("once", "once_reset", "loop", "mirror_once", "mirror_loop")


def test_sample_layout_is_track_major():
    tracks = [T(0, "translation", 0, [0, 10], [0, 10]), T(0, "translation", 1, [0, 10], [100, 0])]
    a = gameanim.Animation("bck", tracks, frame_count=10)
    out = a.sample([0, 2.5, 10, 20])
    assert isinstance(out, array.array) and out.typecode == "f"
    assert list(out) == [0, 2.5, 10, 10, 100, 75, 0, 0]
    assert list(a.sample(5)) == [5, 50]  # a single number is one frame
    assert list(a.sample(array.array("d", [1.0]))) == [1, 90]


def test_find_copy_and_is_modified():
    a = gameanim.load(SAMPLES / "j3d" / "walk_type0.bck")
    assert a.is_modified() is False
    t = a.find(1, "scale", 0)
    assert t is not None and list(t.values) == [1.5]
    assert a.find(9, "scale", 0) is None
    b = a.copy()
    b.find(1, "scale", 0).values[0] = 2.0
    assert a.is_modified() is False and b.is_modified() is True
    assert b.original_bytes() == a.original_bytes() == a.to_bytes()
    assert gameanim.Animation("bck").original_bytes() is None


def test_detect():
    assert gameanim.detect(SAMPLES / "j3d" / "walk_type0.bck") == ("bck", None)
    assert gameanim.detect((SAMPLES / "j3d" / "glow_maya.btk").read_bytes()) == ("btk", None)
    with pytest.raises(gameanim.FormatError):
        gameanim.detect(b"\0" * 64)


def test_errors_are_value_errors_with_attributes():
    assert issubclass(gameanim.FormatError, ValueError)
    assert issubclass(gameanim.EncodeError, ValueError)
    assert issubclass(gameanim.PrecisionWarning, UserWarning)
    with pytest.raises(gameanim.FormatError) as ei:
        gameanim.load(b"J3D1bck1" + b"\0" * 8)
    assert ei.value.format == "bck" and ei.value.field == "file header" and ei.value.offset == 0
    with pytest.raises(TypeError, match="path"):
        gameanim.load(12)
    with pytest.raises(FileNotFoundError):
        gameanim.load("/nonexistent/file.bck")


def test_encode_report_and_precision_warning():
    t = T(0, "rotation", 0, [0.5, 4.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0])  # fractional time on an s16 table
    a = gameanim.Animation("bck", [t], frame_count=4)
    with pytest.warns(gameanim.PrecisionWarning, match="rounded"):
        a.to_bytes()
    r = a.encode_report
    assert r["encoded_tracks"] == 1 and r["rounded"] >= 1 and r["notes"]
    assert r["max_error"] < 2 * math.pi / 32768


def test_reference_counts_do_not_leak():
    data = (SAMPLES / "j3d" / "walk_type0.bck").read_bytes()
    a = gameanim.load(data)
    base = sys.getrefcount(data)
    for _ in range(100):
        gameanim.load(data).to_bytes()
    assert sys.getrefcount(data) == base
    tracks = a.tracks
    before = sys.getrefcount(tracks)
    for _ in range(100):
        a.tracks
        a.sample([0.0, 1.0])
        a.to_bytes()
    assert sys.getrefcount(tracks) == before
    out = a.to_bytes()  # the original bytes object, shared with the animation
    held = sys.getrefcount(out)
    for _ in range(100):
        a.to_bytes()
    assert sys.getrefcount(out) == held
    a.find(1, "scale", 0).values[0] = 2.0
    fresh = a.to_bytes()
    assert sys.getrefcount(fresh) == 2  # a newly encoded file is ours alone


# ---------------------------------------------------------------- baking


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def euler_xyz(x, y, z):
    cx, sx, cy, sy, cz, sz = math.cos(x), math.sin(x), math.cos(y), math.sin(y), math.cos(z), math.sin(z)
    rx = [[1, 0, 0], [0, cx, -sx], [0, sx, cx]]
    ry = [[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]]
    rz = [[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]
    m3 = lambda a, b: [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
    return m3(rz, m3(ry, rx))


def trs(t, r3, s):
    return [[r3[i][0] * s[0], r3[i][1] * s[1], r3[i][2] * s[2], t[i]] for i in range(3)] + [[0, 0, 0, 1]]


def quat_to_mat3(q):
    w, x, y, z = q
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


@pytest.mark.parametrize("uniform_scale", [False, True])
def test_bake_pose_matches_matrix_maths(uniform_scale):
    rng = random.Random(3)
    tracks = []
    for axis in range(3):
        tracks.append(T(0, "rotation", axis, [0, 10, 20], [rng.uniform(-3, 3) for _ in range(3)]))
        tracks.append(T(0, "translation", axis, [0, 20], [rng.uniform(-5, 5), rng.uniform(-5, 5)]))
        if uniform_scale:
            tracks.append(T(0, "scale", axis, [0, 20], [0.75, 1.5]))
        else:
            tracks.append(T(0, "scale", axis, [0, 20], [rng.uniform(0.5, 2), rng.uniform(0.5, 2)]))
    anim = gameanim.Animation("bck", tracks, frame_count=20, rotation_frac=2)
    pre = trs([0.3, -1.0, 2.0], euler_xyz(0.4, -0.2, 1.1), [1, 1, 1])
    # (pre * L * post) has no shear when post has no rotation or the scale is
    # uniform: the two cases the importer uses (absolute formats, BK deltas)
    if uniform_scale:
        post = trs([0.0, 0.5, 0.0], euler_xyz(-0.3, 0.0, 0.2), [1, 1, 1])
    else:
        post = trs([0.0, 0.5, 0.0], euler_xyz(0, 0, 0), [1, 1, 1])
    frames = [0.0, 3.0, 7.5, 10.0, 20.0]
    (curves,) = gameanim.bake_pose(anim, [(0, pre, [v for row in post for v in row])], frames,
                                   translation_scale=2.0, time_scale=2.0, time_offset=1.0)
    assert len(curves) == 10 and all(len(c) == 2 * len(frames) for c in curves)
    sampled = anim.sample(frames)
    nf = len(frames)
    order = [(t.channel, t.axis) for t in anim.tracks]
    prev = None
    for k, f in enumerate(frames):
        val = {key: sampled[i * nf + k] for i, key in enumerate(order)}
        L = trs([2.0 * val[("translation", a)] for a in range(3)],
                euler_xyz(*[val[("rotation", a)] for a in range(3)]), [val[("scale", a)] for a in range(3)])
        want = mat_mul(mat_mul(pre, L), post)
        loc = [curves[i][2 * k + 1] for i in range(3)]
        q = [curves[3 + i][2 * k + 1] for i in range(4)]
        sc = [curves[7 + i][2 * k + 1] for i in range(3)]
        got = trs(loc, quat_to_mat3(q), sc)
        for i in range(3):
            for j in range(4):
                assert got[i][j] == pytest.approx(want[i][j], abs=1e-4)
        assert curves[0][2 * k] == pytest.approx(f * 2.0 + 1.0)
        assert abs(math.sqrt(sum(c * c for c in q)) - 1) < 1e-5
        if prev is not None:
            assert sum(a * b for a, b in zip(prev, q)) >= 0  # continuous sign
        prev = q


def test_bake_pose_defaults_for_missing_channels_and_named_targets():
    anim = gameanim.Animation("bck", [], frame_count=1)
    (curves,) = gameanim.bake_pose(anim, [(5, None, None)], [0.0, 1.0])
    assert [c[1] for c in curves] == [0, 0, 0, 1, 0, 0, 0, 1, 1, 1]
    with pytest.raises(ValueError, match="4x4"):
        gameanim.bake_pose(anim, [(0, [1, 2, 3], None)], [0.0])


def test_bake_pose_collapse_keeps_one_key_of_a_constant_channel():
    """collapse=True: a buffer whose values are all one number keeps its
    first key; the others are exactly the uncollapsed buffers.  -0.0 and
    0.0 count as one number; NaN never equals a different value."""
    frames = [0.0, 1.0, 2.0, 3.0]
    tracks = [
        T(0, "translation", 0, [0, 3], [1.0, 4.0], interpolation=gameanim.LINEAR),   # moves
        T(0, "translation", 1, [0, 3], [2.5, 2.5], interpolation=gameanim.LINEAR),   # constant
        T(0, "translation", 2, [0, 1, 3], [0.0, -0.0, 0.0], interpolation=gameanim.LINEAR),  # zeros of both signs
        T(0, "scale", 0, [0, 2], [1.0, 3.0], interpolation=gameanim.CONSTANT),      # a step
    ]
    anim = gameanim.Animation("bck", tracks, frame_count=3)
    (full,) = gameanim.bake_pose(anim, [(0, None, None)], frames, time_scale=2.0, time_offset=1.0)
    (short,) = gameanim.bake_pose(anim, [(0, None, None)], frames, time_scale=2.0, time_offset=1.0, collapse=True)
    assert len(full) == len(short) == 10
    for f, c in zip(full, short):
        values = f[1::2]
        one_number = all(v == values[0] for v in values)
        if one_number:
            assert list(c) == list(f[:2])   # the first key: (frame 0 -> 1.0, the value)
        else:
            assert bytes(c) == bytes(f)
    # location x and scale x move, y and z do not; rotation (identity) and
    # scale y, z are constant
    assert [len(c) // 2 for c in short] == [4, 1, 1, 1, 1, 1, 1, 4, 1, 1]
    assert list(short[1]) == [1.0, 2.5]
    # one frame: nothing to collapse, the buffers are as without collapse
    (one,) = gameanim.bake_pose(anim, [(0, None, None)], [2.0], collapse=True)
    assert [len(c) for c in one] == [2] * 10


def test_tracks_of_a_loaded_file_outlive_their_animation():
    """Tracks read their keys from the loaded Animation's decoded data (no
    copy); they keep those keys alive when the Animation is gone, and a
    track whose arrays were replaced no longer depends on them."""
    import gc

    data = (SAMPLES / "jba" / "legacy_humanoid_106x300.jba").read_bytes()
    anim = gameanim.load(data)
    want = [(list(t.times), list(t.values)) for t in gameanim.load(data).tracks[:8]]
    tracks = anim.tracks[:8]
    sampled = [list(t.evaluate([0.0, 0.5, 7.0])) for t in tracks]
    del anim
    gc.collect()
    for t, (times, values), s in zip(tracks, want, sampled):
        assert list(t.evaluate([0.0, 0.5, 7.0])) == s
        assert list(t.times) == times and list(t.values) == values
    new = array.array("f", [v + 1.0 for v in want[0][1]])
    tracks[0].values = new
    assert tracks[0].values == new
    assert list(tracks[1].values) == want[1][1]


# ---------------------------------------------------------------- format traits

# What the format notes (docs/formats/*.md) and the games say, written here
# independently of the C registry: (first extension, target kind, values,
# up axis, bone matching, a compression the games ship it in or None)
KNOWN_TRAITS = {
    "bck": (".bck", "joint", "absolute", "Y", "INDEX", "yaz0"),       # J3D joints by index, Y up
    "btk": (".btk", "material_entry", "absolute", None, None, "yay0"),  # texture matrices: no rig, not spatial
    "bca": (".bca", "joint", "absolute", "Y", "INDEX", "lz77"),        # SM64DS bones by index, LZ77 wrapped
    "bk": (".bin", "bone_id", "delta", "Y", "ID", "rarezip"),          # applied on the rest pose, bones by ID
    "jba": (".jba", "bone_name", "absolute", "Z", "NAME", None),       # SWTOR: named bones, Z up, never wrapped
    "brk": (".brk", "material_entry", "absolute", None, None, "yaz0"),  # TEV colours of materials
    "bpk": (".bpk", "material_entry", "absolute", None, None, "yaz0"),  # material colours
    "btp": (".btp", "material_entry", "absolute", None, None, "yaz0"),  # texture numbers of materials
    "bva": (".bva", "shape", "absolute", None, None, "yaz0"),           # shape visibility: no rig
    "j3d_bca": (".bca", "joint", "absolute", "Y", "INDEX", "yaz0"),     # J3D full-frame joints, as BCK
}


def test_format_traits_match_what_the_formats_are():
    formats = gameanim.formats()
    assert set(formats) == set(KNOWN_TRAITS)
    for name, (ext, kind, values, up, match, wrapper) in KNOWN_TRAITS.items():
        t = formats[name]
        assert t["name"] == name and t["description"]
        assert (t["extensions"][0], t["target_kind"], t["values"], t["up_axis"], t["bone_match"]) == \
            (ext, kind, values, up, match), name
        assert (wrapper in t["compressions"]) if wrapper else t["compressions"] == (), name
        # a rig is matched exactly when the format animates bones
        assert (t["bone_match"] is None) == (t["target_kind"] in ("material_entry", "shape")), name
    assert formats["bk"]["extensions"] == (".bin", ".anim")  # `.anim.bin`: either suffix


def test_every_sample_agrees_with_its_formats_traits():
    """Each sample's own name ends with one of its format's extensions, its
    wrapper is one the format's traits list, and its targets are of the
    declared kind (names for JBA, entries for BTK)."""
    formats = gameanim.formats()
    seen = set()
    for path in sorted(SAMPLES.rglob("*")):
        if not path.is_file() or is_model_sample(path):
            continue
        fmt, wrapper = gameanim.detect(path)
        t = formats[fmt]
        seen.add(fmt)
        assert path.name.lower().endswith(t["extensions"]), path
        assert wrapper is None or wrapper in t["compressions"], (path, wrapper)
        anim = gameanim.load(path)
        if t["target_kind"] == "material_entry":
            assert anim.entries and all(0 <= tr.target < len(anim.entries) for tr in anim.tracks), path
        elif t["target_kind"] == "bone_name":
            assert any(isinstance(tr.target, str) for tr in anim.tracks), path
        else:
            assert all(isinstance(tr.target, int) for tr in anim.tracks) and not anim.entries, path
    assert seen == set(formats)


def test_extensions_cover_every_format_and_wrapper():
    formats, wrappers = gameanim.formats(), gameanim.compression_extensions()
    assert list(wrappers) == gameanim.compressions()
    for t in formats.values():
        assert set(t["compressions"]) <= set(gameanim.compressions()), t["name"]
    exts = gameanim.file_extensions()
    assert len(set(exts)) == len(exts) and all(e.startswith(".") and e == e.lower() for e in exts)
    assert set(exts) == {e for t in formats.values() for e in t["extensions"]} | {e for w in wrappers.values() for e in w}
    assert {".szs", ".yaz0", ".lz"} <= set(exts)  # Nintendo's usual names for wrapped files


def test_the_cli_finds_files_by_the_registry_extensions(tmp_path):
    """`gameanim info FOLDER` takes exactly the files whose extension is in
    file_extensions(), a model family's (model_formats()) or names an
    archive (ARCHIVE_EXTENSIONS; any case); --all takes every file."""
    from gameanim import cli

    model_exts = {e for m in gameanim.model_formats().values() for e in m["extensions"]}
    assert {".bmd", ".bdl"} <= model_exts and ".arc" in gameanim.ARCHIVE_EXTENSIONS
    assert set(cli.EXTENSIONS) == set(gameanim.file_extensions()) | model_exts | set(gameanim.ARCHIVE_EXTENSIONS)
    assert len(set(cli.EXTENSIONS)) == len(cli.EXTENSIONS)
    assert cli.EXTENSIONS[:len(gameanim.file_extensions())] == gameanim.file_extensions()
    wanted = []
    for i, ext in enumerate(cli.EXTENSIONS):
        p = tmp_path / ("sub" if i % 2 else "") / f"f{i}{ext.upper() if i % 3 == 0 else ext}"
        p.parent.mkdir(exist_ok=True)
        p.write_bytes(b"")
        wanted.append(str(p))
    for other in ("notes.txt", "model.obj", "noext"):
        (tmp_path / other).write_bytes(b"")
    assert sorted(cli.iter_files([str(tmp_path)])) == sorted(wanted)
    assert len(list(cli.iter_files([str(tmp_path)], all_files=True))) == len(wanted) + 3
