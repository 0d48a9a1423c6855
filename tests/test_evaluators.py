"""Animation.sample() and Track.evaluate() agree on J3D tracks, and both
are the game's J3DGetKeyFrameInterpolation(S): its bisection even on key
times out of order, its single-precision Hermite even where that
overflows (key spacing of a denormal, values near the float maximum).
Files are made with the project's encoder and then given the odd keys by
byte surgery; the expected values come from tests/j3d_reference.py, a
plain-Python reading of the game's code."""
import math
import random
import struct
import warnings

import pytest

import gameanim
import j3d_reference as ref
from conftest import sample_paths

CHANNEL = {"scale": 0, "rotation": 1, "translation": 2}
DENORMAL = struct.unpack(">f", struct.pack(">I", 1))[0]  # 1.4e-45
FLT_MAX = ref.FLT_MAX


def bits(values):
    return [struct.pack("<f", v) for v in values]


def same(a, b):
    """Equal as float32, NaN equal to NaN (any NaN)."""
    return (math.isnan(a) and math.isnan(b)) or struct.pack("<f", a) == struct.pack("<f", b)


def build(kind, nkeys_list, seed=0):
    """A BCK / BTK with one track per entry of nkeys_list (joint / entry i,
    channel and axis cycling), every track with distinct in and out slopes
    (tangent type 1) and values no other track shares, so that each has a
    key run of its own to overwrite.  Returns (bytes, [(target, channel,
    axis)])."""
    rnd = random.Random(seed)
    tracks, which = [], []
    channels = ["translation", "scale", "rotation"]
    for i, n in enumerate(nkeys_list):
        ch = channels[i % 3]
        target = i // 3 if kind == "bck" else 0
        axis = (i // 9) % 3 if kind == "bck" else 2
        if kind == "btk":
            target, axis = i // 3, 2 if ch == "rotation" else 0
        times = [float(k * 3) for k in range(n)]
        if ch == "rotation":
            values = [rnd.randrange(-30000, 30000) * math.pi / 32768 for _ in range(n)]
            ins = [rnd.randrange(-300, 300) * math.pi / 32768 for _ in range(n)]
            outs = [v + math.pi / 32768 for v in ins]
        else:
            values = [rnd.uniform(-100, 100) for _ in range(n)]
            ins = [rnd.uniform(-5, 5) for _ in range(n)]
            outs = [v + 0.5 for v in ins]
        tracks.append(gameanim.Track(target, ch, axis, times, values, ins, outs, interpolation=gameanim.BEZIER))
        which.append((target, ch, axis))
    kw = {"rotation_frac": 0}
    if kind == "btk":
        kw["entries"] = [{"material": "m%d" % e, "texmtx_id": 0, "center": (0.5, 0.5, 0.5)}
                         for e in range(max(t for t, _, _ in which) + 1)]
    anim = gameanim.Animation(kind, tracks, frame_count=30, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return anim.to_bytes(), which


def table_offsets(data):
    c = 0x20
    kind = data[4:8]
    if kind == b"bck1":
        o_tab, o_s, o_r, o_t = struct.unpack_from(">IIII", data, c + 0x14)
    else:
        o_tab = struct.unpack_from(">I", data, c + 0x14)[0]
        o_s, o_r, o_t = struct.unpack_from(">III", data, c + 0x28)
    return c, o_tab, (o_s, o_r, o_t)


def patch(data, entry, channel, axis, keys):
    """Overwrites the keys of one track in place: keys are (time, value,
    in, out), as many as the track has (raw s16 units for rotations)."""
    data = bytearray(data)
    c, o_tab, tables = table_offsets(data)
    ch = CHANNEL[channel]
    count, index, ttype = struct.unpack_from(">HHH", data, c + o_tab + entry * 0x36 + (axis * 3 + ch) * 6)
    assert count == len(keys) and ttype != 0
    fmt, size = (">h", 2) if ch == 1 else (">f", 4)
    for k, key in enumerate(keys):
        for j, x in enumerate(key):
            struct.pack_into(fmt, data, c + tables[ch] + (index + 4 * k + j) * size, x)
    return bytes(data)


def check(data, frames):
    """sample() == evaluate() bit for bit (NaN where NaN) == the reference,
    for every track.  Returns {(target, channel, axis): sampled values}."""
    anim = gameanim.load(data)
    info = ref.parse(data)
    got = anim.sample(frames)
    nf = len(frames)
    out = {}
    for i, t in enumerate(anim.tracks):
        s = list(got[i * nf:(i + 1) * nf])
        e = list(t.evaluate(frames))
        want = [ref.f32(ref.game_value(info, t.target, CHANNEL[t.channel], t.axis, f)) for f in frames]
        for f, a, b, w in zip(frames, s, e, want):
            assert same(a, b), (t.target, t.channel, t.axis, f, a, b)
            assert same(a, w), (t.target, t.channel, t.axis, f, a, w)
        out[(t.target, t.channel, t.axis)] = s
    return out


FRAMES = [x * 0.25 for x in range(-8, 60)]


def test_out_of_order_times_take_the_segment_the_games_bisection_meets():
    data, which = build("bck", [4, 4, 4])
    # translation: times 0, 4, -4.15e19, 11.  For every frame in [0, 11)
    # the halving meets key 2 first (-4.15e19 <= frame), then key 3
    # (11 > frame): the segment from -4.15e19 to 11 (key 1 is never used),
    # whose float Hermite overflows (p * p).
    data = patch(data, 0, "translation", 0, [(0.0, 1.0, 0.0, 0.5), (4.0, 2.0, 0.0, 0.0),
                                             (-4.15e19, 3.0, 0.0, 0.0), (11.0, 4.0, 0.0, 0.0)])
    # rotation (s16): times 0, 9, 3, 12: frames 3..12 use the segment 3 -> 12
    assert which[2] == (0, "rotation", 0)
    data = patch(data, *which[2], [(0, 100, 0, 5), (9, 2000, 3, 3), (3, -1500, 7, 7), (12, 400, 0, 0)])
    vals = check(data, FRAMES)[which[0]]
    assert vals[FRAMES.index(-1.0)] == 1.0 and vals[FRAMES.index(11.0)] == 4.0
    assert not any(math.isfinite(vals[FRAMES.index(f)]) for f in (0.0, 2.0, 5.0, 10.75))
    rot = [t for t in gameanim.load(data).tracks if t.channel == "rotation"][0]
    # frames 3..12 follow the 3 -> 12 segment: at frame 3 its first key
    assert rot.evaluate([3.0])[0] == pytest.approx(-1500 * math.pi / 32768)


def test_denormal_key_spacing_gives_the_games_nan():
    data, which = build("bck", [3])
    data = patch(data, 0, "translation", 0, [(0.0, 5.0, 0.0, 1.0), (DENORMAL, 6.0, 1.0, 1.0),
                                             (10.0, 7.0, 0.0, 0.0)])
    vals = check(data, [-1.0, 0.0, DENORMAL, 1.0, 5.0, 10.0])[which[0]]
    # on the first key: p = 0 but 1 / length overflows, and inf * 0 is NaN
    assert math.isnan(vals[1])
    assert vals[0] == 5.0 and vals[5] == 7.0


def test_values_near_the_float_maximum():
    data, which = build("bck", [3, 3])
    data = patch(data, 0, "translation", 0, [(0.0, FLT_MAX, 0.0, FLT_MAX), (10.0, -FLT_MAX, -FLT_MAX, 0.0),
                                             (20.0, FLT_MAX, 0.0, 0.0)])
    data = patch(data, *which[1], [(0.0, 3e38, 0.0, 1e37), (10.0, 3.3e38, 1e37, 1e37), (20.0, 0.0, 0.0, 0.0)])
    vals = check(data, FRAMES)[which[0]]
    assert any(not math.isfinite(v) for v in vals)


def test_evaluate_keeps_the_games_rule_through_edits_and_copies():
    data, which = build("bck", [4])
    data = patch(data, 0, "translation", 0, [(0.0, 1.0, 0.0, 0.5), (4.0, 2.0, 0.0, 0.0),
                                             (-4.15e19, 3.0, 0.0, 0.0), (11.0, 4.0, 0.0, 0.0)])
    t = [t for t in gameanim.load(data).tracks if (t.target, t.channel, t.axis) == which[0]][0]
    assert math.isnan(t.evaluate([5.0])[0])
    assert math.isnan(t.copy().evaluate([5.0])[0])
    t.values = t.values  # (materialised arrays: the same track)
    assert math.isnan(t.evaluate([5.0])[0])
    # a Track made by hand follows the generic rules (double precision)
    mine = gameanim.Track(0, "translation", 0, list(t.times), list(t.values), list(t.in_slopes),
                          list(t.out_slopes), interpolation=gameanim.BEZIER)
    assert math.isfinite(mine.evaluate([5.0])[0])


def test_btk_tracks_agree_too():
    data, which = build("btk", [3, 3, 3])
    data = patch(data, *which[0], [(0.0, 0.5, 0.0, 1.0), (9.0, -1e30, 0.0, 0.0), (2.0, 0.25, 0.0, 0.0)])
    check(data, FRAMES)


SPECIAL_TIMES = [0.0, -0.0, 1.0, 2.5, 7.0, -3.0, 11.0, 30.0, DENORMAL, 2 * DENORMAL, 1e-40, -4.15e19, 1e30,
                 3e38, -FLT_MAX]
SPECIAL_VALUES = [0.0, 1.0, -2.5, 100.0, 1e30, -1e35, 3e38, FLT_MAX, -FLT_MAX, DENORMAL, 1e-38]


@pytest.mark.parametrize("seed", range(6))
def test_random_tracks_agree_with_each_other_and_the_game(seed):
    rnd = random.Random(1000 + seed)
    kind = "btk" if seed % 3 == 2 else "bck"
    counts = [rnd.randrange(2, 7) for _ in range(9)]
    data, which = build(kind, counts, seed)
    frames = set(FRAMES)
    for (target, ch, axis), n in zip(which, counts):
        keys = []
        for k in range(n):
            if ch == "rotation":
                keys.append((rnd.randrange(-40, 40), rnd.randrange(-32768, 32768), rnd.randrange(-3000, 3000),
                             rnd.randrange(-3000, 3000)))
            else:
                pick = (lambda pool: rnd.choice(pool) if rnd.random() < 0.4 else rnd.uniform(-20, 40))
                keys.append((ref.f32(pick(SPECIAL_TIMES)), ref.f32(pick(SPECIAL_VALUES)),
                             ref.f32(pick(SPECIAL_VALUES)), ref.f32(pick(SPECIAL_VALUES))))
        if rnd.random() < 0.5:
            keys.sort(key=lambda k: k[0])
        entry = target
        data = patch(data, entry, ch, axis, keys)
        frames.update(ref.f32(k[0]) for k in keys if abs(k[0]) < 1e6)
        frames.update(ref.f32(k[0] + d) for k in keys for d in (0.3, -0.3, 1.7) if abs(k[0]) < 1e6)
    check(data, sorted(frames))


@pytest.mark.parametrize("path", sample_paths(".bck", ".btk"), ids=lambda p: p.name)
def test_every_sample_track_evaluates_as_it_samples(path):
    """On the shipped samples too: evaluate() of each decoded track is
    sample()'s column, bit for bit (rotations in the game's steps)."""
    anim = gameanim.load(str(path))
    frames = [x * 0.375 for x in range(-4, int(anim.frame_count * 8 / 3) + 8)]
    got = anim.sample(frames)
    nf = len(frames)
    for i, t in enumerate(anim.tracks):
        assert bits(t.evaluate(frames)) == bits(got[i * nf:(i + 1) * nf]), (t.target, t.channel, t.axis)


def _curve_issue_reference(track):
    """The add-on's former Python check (independent of the C): why a curve
    through bezier()'s keys would not show the game's values."""
    if len(track) < 1:
        return None
    co, left, right, _interp, increasing, _bezier = track.bezier(1.0, 0.0, 1.0, 0.0, True)
    times = co[0::2]
    if not increasing and not all(a <= b for a, b in zip(times, times[1:])):
        return "key times out of order"
    if not all(math.isfinite(sum(buf)) for buf in (co, left, right)):
        return "a key or slope is not finite"
    if any(max(max(buf), -min(buf)) > 2.0 ** 100 for buf in (co[1::2], left[1::2], right[1::2])):
        return "values near the float maximum"
    if max(max(times), -min(times)) > 2.0 ** 40 or 0.0 < abs(min(times, key=abs)) < 2.0 ** -30:
        return "key spacing near zero"
    return None


def test_curve_issue_names_what_a_sorted_finite_curve_cannot_show():
    """Track.curve_issue (the add-on bakes such tracks) against the plain
    Python check, on the odd files above, hand-made key sets of each kind
    and random tracks."""
    made = []
    data, which = build("bck", [4, 4, 4])
    made += gameanim.load(patch(data, 0, "translation", 0, [(0.0, 1.0, 0.0, 0.5), (4.0, 2.0, 0.0, 0.0),
                                                            (-4.15e19, 3.0, 0.0, 0.0), (11.0, 4.0, 0.0, 0.0)])).tracks
    data, which = build("bck", [3])
    made += gameanim.load(patch(data, 0, "translation", 0, [(0.0, 5.0, 0.0, 1.0), (DENORMAL, 6.0, 1.0, 1.0),
                                                            (10.0, 7.0, 0.0, 0.0)])).tracks
    data, which = build("bck", [3, 3])
    made += gameanim.load(patch(data, 0, "translation", 0, [(0.0, FLT_MAX, 0.0, FLT_MAX),
                                                            (10.0, -FLT_MAX, -FLT_MAX, 0.0),
                                                            (20.0, FLT_MAX, 0.0, 0.0)])).tracks
    T = gameanim.Track
    hand = len(made)
    made += [
        T(0, "translation", 0, [0.0, 2.0 ** 41], [1.0, 2.0]),              # a time far out
        T(0, "translation", 0, [2.0 ** -31, 1.0], [1.0, 2.0]),             # the nearest time tiny, not 0
        T(0, "translation", 0, [0.0, 2.0 ** -31, 1.0], [1.0, 2.0, 3.0]),   # a tiny time after 0 (not flagged)
        T(0, "translation", 0, [-3.0, -1.0, 2.0], [1.0, 2.0, 3.0]),        # negative times
        T(0, "translation", 0, [0.0, 1.0], [2.0 ** 101, 0.0]),              # a huge value
        T(0, "translation", 0, [0.0, 1.0], [1.0, 2.0], [0.0, 2.0 ** 102], [0.0, 0.0]),  # a huge slope
        T(0, "translation", 0, [0.0, 1.0], [1.0, float("nan")]),
        T(0, "translation", 0, [0.0, 1.0], [1.0, float("inf")]),
        T(0, "translation", 0, [0.0], [1.0]),
        T(0, "translation", 0, [], []),
    ]
    rnd = random.Random(5)
    for _ in range(300):
        n = rnd.randint(1, 6)
        times = sorted(rnd.uniform(-5, 50) for _ in range(n)) if rnd.random() < 0.8 else \
            [rnd.uniform(-5, 50) for _ in range(n)]
        made.append(T(0, "rotation", 1, times, [rnd.uniform(-1e3, 1e3) for _ in range(n)],
                      [rnd.uniform(-9, 9) for _ in range(n)], [rnd.uniform(-9, 9) for _ in range(n)]))
    got = [t.curve_issue() for t in made]
    assert got == [_curve_issue_reference(t) for t in made]
    assert {"key times out of order", "a key or slope is not finite", "values near the float maximum",
            "key spacing near zero", None} <= set(got)
    # the cases the hand-made list pins down
    assert got[hand:hand + 8] == ["key spacing near zero", "key spacing near zero", None, None,
                           "values near the float maximum", "values near the float maximum",
                           "a key or slope is not finite", "a key or slope is not finite"]
