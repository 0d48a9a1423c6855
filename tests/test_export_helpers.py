"""C helpers for exporting from Blender: F-curve evaluation, Hermite key
fitting, and turning pose bases back into local transforms."""
import array
import math
import random

import pytest

import gameanim


# ---------------------------------------------------------------- F-curves


def py_fcurve(co, left, right, interp, frame, linear=False):
    """Blender's F-curve evaluation written out in Python: Bezier segment
    handles shortened when they overlap in time, the parameter found by
    bisection on x(s)."""
    n = len(interp)
    pts = lambda b, k: (b[2 * k], b[2 * k + 1])
    if n == 1:
        return co[1]
    if frame <= co[0]:
        if linear and frame < co[0]:
            if interp[0] == 2:
                dx = co[0] - left[0]
                return co[1] + (co[1] - left[1]) / dx * (frame - co[0]) if dx else co[1]
            return co[1] + (co[3] - co[1]) / (co[2] - co[0]) * (frame - co[0])
        return co[1]
    if frame >= co[2 * (n - 1)]:
        return co[2 * (n - 1) + 1] if not linear or frame == co[2 * (n - 1)] else None
    k = max(i for i in range(n) if co[2 * i] <= frame)
    (x0, y0), (x3, y3) = pts(co, k), pts(co, k + 1)
    if interp[k] == 0:
        return y0
    if interp[k] == 1:
        return y0 + (y3 - y0) * (frame - x0) / (x3 - x0)
    (x1, y1), (x2, y2) = pts(right, k), pts(left, k + 1)
    h1, h2 = (x0 - x1, y0 - y1), (x3 - x2, y3 - y2)
    l1, l2 = abs(h1[0]), abs(h2[0])
    if l1 + l2 > x3 - x0:
        fac = (x3 - x0) / (l1 + l2)
        x1, y1 = x0 - fac * h1[0], y0 - fac * h1[1]
        x2, y2 = x3 - fac * h2[0], y3 - fac * h2[1]
    bez = lambda p0, p1, p2, p3, s: (1 - s) ** 3 * p0 + 3 * (1 - s) ** 2 * s * p1 + 3 * (1 - s) * s * s * p2 + s ** 3 * p3
    lo, hi = 0.0, 1.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if bez(x0, x1, x2, x3, mid) < frame:
            lo = mid
        else:
            hi = mid
    return bez(y0, y1, y2, y3, (lo + hi) / 2)


def test_evaluate_fcurve_matches_blenders_rules():
    rng = random.Random(11)
    xs = [0.0, 4.0, 5.0, 12.0, 20.0]
    co, left, right = [], [], []
    for x in xs:
        y = rng.uniform(-3, 3)
        co += [x, y]
        # handles of random length, some overlapping the neighbour in time
        left += [x - rng.uniform(0.1, 6.0), y + rng.uniform(-2, 2)]
        right += [x + rng.uniform(0.1, 6.0), y + rng.uniform(-2, 2)]
    interp = [2, 1, 2, 0, 2]
    frames = [-2.0] + [i * 0.37 for i in range(60)] + [25.0]
    got = gameanim.evaluate_fcurve(array.array("f", co), array.array("f", left), array.array("f", right),
                                   array.array("i", interp), frames)
    f32 = lambda v: array.array("f", v)
    for f, g in zip(frames, got):
        want = py_fcurve(f32(co), f32(left), f32(right), interp, f)
        assert g == pytest.approx(want, abs=1e-4), f
    # plain lists are accepted too, and linear extrapolation extends the ends
    ext = gameanim.evaluate_fcurve(co, left, right, interp, [-2.0], extrapolation="LINEAR")
    assert ext[0] == pytest.approx(py_fcurve(f32(co), f32(left), f32(right), interp, -2.0, linear=True), abs=1e-4)
    with pytest.raises(ValueError):
        gameanim.evaluate_fcurve(co, left, right, [2, 2], [0.0])


def test_evaluate_fcurve_reads_back_what_bezier_wrote():
    t = gameanim.Track(0, "translation", 0, [0, 3, 10, 11], [0, 2, -1, 4], [0, 1, 0.5, 0], [0.2, -1, 0.3, 0])
    co, left, right, interp = t.bezier()
    frames = [i * 0.25 for i in range(50)]
    assert list(gameanim.evaluate_fcurve(co, left, right, interp, frames)) == pytest.approx(list(t.evaluate(frames)), abs=1e-5)


# ---------------------------------------------------------------- fitting


def test_fit_keeps_every_sample_within_tolerance_with_fewer_keys():
    frames = [float(i) for i in range(200)]
    values = [math.sin(f / 15.0) * 3 + 0.002 * f * f for f in frames]
    dense = gameanim.Track(4, "rotation", 1, frames, values)  # one LINEAR key per frame, as a bake gives
    for tol in (1e-2, 1e-3, 1e-4):
        fitted = dense.fit(tol)
        assert (fitted.target, fitted.channel, fitted.axis) == (4, "rotation", 1)
        assert fitted.times[0] == 0 and fitted.times[-1] == 199
        assert all(c == gameanim.BEZIER for c in fitted.interpolation)
        got = fitted.evaluate(frames)
        worst = max(abs(g - v) for g, v in zip(got, array.array("f", values)))
        assert worst <= tol * 1.01 + 1e-6, (tol, worst)
        assert len(fitted) < len(frames) // 3
    assert len(dense.fit(1e-2)) < len(dense.fit(1e-4))


def test_fit_corner_cases():
    ramp = gameanim.Track(0, "translation", 0, [0, 1, 2, 3, 4], [0, 2, 4, 6, 8])
    f = ramp.fit(1e-6)
    assert list(f.times) == [0, 4] and list(f.values) == [0, 8]  # a straight line needs two keys
    step = gameanim.Track(0, "translation", 0, [0, 1, 2, 3, 4, 5], [0, 0, 0, 5, 5, 5])
    f = step.fit(1e-3)
    got = f.evaluate([0, 1, 2, 3, 4, 5])
    assert list(got) == pytest.approx([0, 0, 0, 5, 5, 5], abs=1e-3)
    one = gameanim.Track(0, "scale", 0, [3.0], [2.0]).fit(0.1)
    assert list(one.values) == [2.0]
    with pytest.raises(ValueError, match="increase"):
        gameanim.Track(0, "scale", 0, [0, 0], [1, 2]).fit(0.1)


# ---------------------------------------------------------------- local from basis


def test_local_from_basis_inverts_bake_pose():
    rng = random.Random(5)
    frames = [float(i) for i in range(0, 41)]
    tracks = []
    for axis in range(3):
        # a turn that passes beyond +-pi: the Euler result must stay continuous
        tracks.append(gameanim.Track(0, "rotation", axis, [0, 40], [rng.uniform(-1, 1), rng.uniform(-1, 1) + (4.0 if axis == 2 else 0)]))
        tracks.append(gameanim.Track(0, "translation", axis, [0, 40], [rng.uniform(-5, 5), rng.uniform(-5, 5)]))
        tracks.append(gameanim.Track(0, "scale", axis, [0, 40], [0.5, 1.5]))  # uniform: no shear with a rotated post
    anim = gameanim.Animation("bck", tracks, frame_count=40)
    pre = [[0, -1, 0, 1.0], [1, 0, 0, 2.0], [0, 0, 1, -0.5], [0, 0, 0, 1]]
    post = [[1, 0, 0, 0], [0, 0, -1, 0.25], [0, 1, 0, 0], [0, 0, 0, 1]]
    (c,) = gameanim.bake_pose(anim, [(0, pre, post)], frames, translation_scale=2.0)
    values = lambda arr: arr[1::2]
    loc = [values(c[i]) for i in range(3)]
    quat = [values(c[3 + i]) for i in range(4)]
    scale = [values(c[7 + i]) for i in range(3)]
    back = gameanim.local_from_basis(pre, post, loc, quat, scale, translation_scale=2.0)
    sampled = anim.sample(frames)
    nf = len(frames)
    idx = {(t.channel, t.axis): i for i, t in enumerate(anim.tracks)}
    for axis in range(3):
        for k in range(nf):
            assert back["translation"][axis][k] == pytest.approx(sampled[idx[("translation", axis)] * nf + k], abs=1e-4)
            assert back["scale"][axis][k] == pytest.approx(sampled[idx[("scale", axis)] * nf + k], abs=1e-4)
    # Euler angles equal the originals up to whole turns, and never jump
    for axis in range(3):
        e = back["euler"][axis]
        for k in range(1, nf):
            assert abs(e[k] - e[k - 1]) < 0.5
    for k in range(nf):
        got = [back["euler"][a][k] for a in range(3)]
        want = [sampled[idx[("rotation", a)] * nf + k] for a in range(3)]
        qa = quat_xyz(*got)
        qb = quat_xyz(*want)
        assert abs(sum(x * y for x, y in zip(qa, qb))) == pytest.approx(1.0, abs=1e-5)
    # Euler input in another order gives the same result as the quaternion
    eul = gameanim.local_from_basis(None, None, [[0.0]] * 3, [[0.3], [0.2], [0.1]], [[1.0]] * 3, rotation_mode="ZYX")
    q = eul["quaternion"]
    want = quat_order((0.3, 0.2, 0.1), "ZYX")
    assert abs(sum(q[i][0] * want[i] for i in range(4))) == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(ValueError, match="rotation_mode"):
        gameanim.local_from_basis(None, None, [[0.0]] * 3, [[0.0]] * 3, [[1.0]] * 3, rotation_mode="XXY")


def test_local_from_basis_measures_what_trs_cannot_hold():
    """pre = Q^-1, post = Q (Banjo-Kazooie's model-axis channels on a bone
    whose rest Q turns 45 degrees about Z): local = Q S Q^-1.  A uniform
    scale has no skew; scale (2, 1, 1) gives the symmetric matrix
    [[1.5, 0.5], [0.5, 1.5]] in XY, whose best rotation-times-scale form
    misses the off-diagonal 0.5 entirely (the frame where it is largest is
    reported)."""
    c = s = math.sqrt(0.5)
    q = [[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    qi = [[c, s, 0, 0], [-s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    zero, one = [[0.0, 0.0]] * 3, [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    uniform = gameanim.local_from_basis(qi, q, zero, one, [[2.0, 3.0]] * 3)
    assert uniform["skew"][0] < 1e-6
    skewed = gameanim.local_from_basis(qi, q, zero, one, [[1.0, 2.0], [1.0, 1.0], [1.0, 1.0]])
    amount, at = skewed["skew"]
    assert at == 1 and amount == pytest.approx(0.5, abs=1e-6)


def qmul(a, b):
    return (a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0])


def quat_order(e, order):
    q = (1.0, 0.0, 0.0, 0.0)
    for ax in order:
        i = "XYZ".index(ax)
        r = [math.cos(e[i] / 2), 0.0, 0.0, 0.0]
        r[1 + i] = math.sin(e[i] / 2)
        q = qmul(r, q)
    return q


def quat_xyz(x, y, z):
    return quat_order((x, y, z), "XYZ")


def test_fit_with_the_curves_own_slopes_needs_fewer_keys():
    frames = [float(i) for i in range(121)]
    values = [math.sin(f / 9.0) for f in frames]
    slopes = [math.cos(f / 9.0) / 9.0 for f in frames]
    dense = gameanim.Track(0, "translation", 0, frames, values, slopes, slopes, interpolation=gameanim.LINEAR)
    est = dense.fit(1e-4)
    known = dense.fit(1e-4, use_slopes=True)
    assert len(known) < len(est)
    assert list(known.in_slopes) == pytest.approx([math.cos(t / 9.0) / 9.0 for t in known.times], abs=1e-6)
    got = known.evaluate(frames)
    assert max(abs(g - v) for g, v in zip(got, array.array("f", values))) <= 1.01e-4
    # a corner: different slopes on each side are kept as in/out slopes
    corner = gameanim.Track(0, "translation", 0, [0, 1, 2, 3, 4], [0, 1, 2, 1, 0], [1, 1, 1, -1, -1],
                            [1, 1, -1, -1, -1], interpolation=gameanim.LINEAR)
    f = corner.fit(1e-6, use_slopes=True)
    assert list(f.times) == [0, 2, 4]
    assert (f.in_slopes[1], f.out_slopes[1]) == (1.0, -1.0)


def test_evaluate_fcurve_slopes_are_the_curves_derivatives():
    t = gameanim.Track(0, "translation", 0, [0, 8, 16, 24], [0, 1, -0.5, 2], [0, 0.1, 0.2, -0.1], [0.3, 0.1, 0.2, 0],
                       interpolation=[gameanim.BEZIER, gameanim.LINEAR, gameanim.BEZIER, gameanim.BEZIER])
    co, left, right, interp = t.bezier()
    frames = [float(i) for i in range(25)]
    values, sl, sr = gameanim.evaluate_fcurve(co, left, right, interp, frames, slopes=True)
    eps = 1e-3
    fwd = gameanim.evaluate_fcurve(co, left, right, interp, [f + eps for f in frames])
    back = gameanim.evaluate_fcurve(co, left, right, interp, [f - eps for f in frames])
    for k, f in enumerate(frames):
        if 0 < f < 24:
            assert sl[k] == pytest.approx((values[k] - back[k]) / eps, abs=2e-3)
        if f < 24:
            assert sr[k] == pytest.approx((fwd[k] - values[k]) / eps, abs=2e-3)
    # at the key at frame 8 the curve has a corner: Hermite slope in, chord slope out
    assert sl[8] == pytest.approx(0.1, abs=1e-5) and sr[8] == pytest.approx((-0.5 - 1) / 8, abs=1e-5)
    # outside the keys, constant extrapolation: flat
    assert sl[0] == 0.0 and sr[24] == 0.0
    # sampled with its slopes, a piecewise cubic curve reduces to about its own keys
    dense = gameanim.Track(0, "translation", 0, frames, values, sl, sr)
    assert len(dense.fit(1e-4, use_slopes=True)) <= 6
