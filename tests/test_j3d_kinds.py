"""BRK, BPK, BTP, BVA and J3D BCA (issue 21): files written by the
independent Python writer (j3d_kinds_writer.py) decode to what it wrote,
write back byte for byte, re-encode after edits, sample as the game does
(checked against plain-Python rules written here and in j3d_reference.py),
and refuse damaged input with FormatError."""
import math
import struct

import pytest

import gameanim
import j3d_kinds_writer as W
from conftest import decode_or_format_error, mutation_count, mutations
from j3d_reference import eval_keys, f32, fctiwz, hermite_s16_table

PI = math.pi
UNIT = PI / 32768.0

# ---------------------------------------------------------------------------
# Files covering the layout choices and edges

K0 = ("keys", 0, [(0, 10, 2, 2), (20, 300, -1, -1)])                  # one slope per key, value past 255
K1 = ("keys", 1, [(-5, -500, 0, 5), (10, 20, 3, 0), (40, 1023, 0, 0)])  # in/out slopes, negative time and value
REG = [
    {"name": b"mat0", "color_id": 1, "tracks": [K0, ("const", 255), None, K1]},
    {"name": b"mat1", "color_id": 2, "tracks": [K0, K0, ("const", -1024), ("const", 255)]},  # shared runs
]
KON = [{"name": "コ".encode("cp932"), "color_id": 3, "tracks": [("const", 255), ("const", 255), ("const", 7), None]}]


def brk_file(**kw):
    return W.write_color(b"brk1", [REG, KON], 30, 2, **kw)


def bpk_file(**kw):
    return W.write_color(b"bpk1", [REG], 30, 0, **kw)


BTP_ENTRIES = [
    {"name": b"eye", "texmap": 0, "frames": [0, 1, 2, 1, 0]},
    {"name": b"mouth", "texmap": 1, "frames": [3]},              # count 1
    {"name": b"eye", "texmap": 2, "frames": [1, 2]},              # shares the first run's elements
    {"name": b"blank", "texmap": 0, "frames": []},                # count 0
]


def btp_file(**kw):
    return W.write_btp(BTP_ENTRIES, 5, 2, **kw)


BVA_SHAPES = [[1, 1, 0, 0, 1], [], [0], [1, 0, 2]]  # show bytes beyond 1 are kept


def bva_file(**kw):
    return W.write_bva(BVA_SHAPES, 5, 0, **kw)


BCA_JOINTS = [
    {(0, 0): [1.0, 2.0, 0.5], (1, 2): [0, 16384, -16384, 32767], (2, 1): [5.5], (1, 0): [-32000, 32000]},
    {},                                                     # a joint without tables
    {(0, 1): [1.0, 2.0, 0.5], (2, 2): [0.25, -0.25]},       # shares the scale run
]


def bca_file(**kw):
    return W.write_j3d_bca(BCA_JOINTS, 4, 2, **kw)


VARIANTS = {
    "brk": brk_file(),
    "brk_unshared_align32": brk_file(share=False, align=32),
    "brk_remap_badhash_odd_chunk": brk_file(remap=[[1, 0], [5]], bad_hash=True, chunk_delta=4,
                                            pad_bytes=b"\0\0\0", trailing=bytes(32)),
    "bpk": bpk_file(),
    "bpk_svr_ff": bpk_file(svr=b"\xff" * 16, share=False),
    "btp": btp_file(),
    "btp_extra_indices": btp_file(extra_indices=[7, 7, 9], remap=[3, 2, 1, 0]),
    "bva": bva_file(),
    "bva_unshared": bva_file(share=False, align=32),
    "j3d_bca": bca_file(),
    "j3d_bca_unshared_align4": bca_file(share=False, align=4, byte9=0),
    # full-frame files that end before the size their header and chunk claim
    "bva_short": bva_file(truncate=2),
    "j3d_bca_short": bca_file(truncate=16),
}


def fmt_of(name):
    return "j3d_bca" if name.startswith("j3d_bca") else name.split("_")[0]


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_unedited_file_writes_back_byte_for_byte(name):
    data = VARIANTS[name]
    a = gameanim.load(data)
    assert a.format == fmt_of(name)
    assert a.to_bytes() == data
    # the encoder itself (not only the binding's copy of the input)
    assert a.to_bytes(reencode="raw") == data
    # loop and duration edits patch those fields only
    a.loop = "once"
    a.frame_count = 9
    out = a.to_bytes()
    assert len(out) == len(data) and out[0x28] == 0
    dur_at = 0x20 + (0x0C if a.format == "bpk" else 0x0A)
    assert struct.unpack_from(">H", out, dur_at)[0] == 9
    diff = [i for i in range(len(data)) if out[i] != data[i]]
    assert all(i == 0x28 or i in (dur_at, dur_at + 1) for i in diff)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_full_reencode_keeps_every_track_and_entry(name):
    a = gameanim.load(VARIANTS[name])
    b = gameanim.load(a.to_bytes(reencode="full"))
    assert b.format == a.format and b.entries == a.entries and b.frame_count == a.frame_count
    assert b.loop == a.loop
    got = {(t.target, t.channel, t.axis): (list(t.times), list(t.values), list(t.in_slopes), list(t.out_slopes))
           for t in b.tracks}
    want = {(t.target, t.channel, t.axis): (list(t.times), list(t.values), list(t.in_slopes), list(t.out_slopes))
            for t in a.tracks}
    assert got == want


def test_detection_by_magic():
    for name in ("brk", "bpk", "btp", "bva", "j3d_bca"):
        assert gameanim.detect(VARIANTS[name]) == (name, None)
    # a J3D BCA is not the SM64DS BCA any more
    assert gameanim.load(VARIANTS["j3d_bca"]).format == "j3d_bca"


@pytest.mark.parametrize("kind,chunk,label", [(b"bla1", "CLF1", "BLA"), (b"blk1", "CLK1", "BLK")])
def test_cluster_kinds_are_refused_by_name(kind, chunk, label):
    data = b"J3D1" + kind + struct.pack(">II", 0x60, 1) + b"\xff" * 16 + chunk.encode() + bytes(0x3C)
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(data)
    assert label in str(e.value) and "not supported" in str(e.value)
    assert e.value.format == label.lower()


# ---------------------------------------------------------------------------
# What the tracks hold


def keys(t):
    return [(a, b, c, d) for a, b, c, d in zip(t.times, t.values, t.in_slopes, t.out_slopes)]


def expect_keys(spec):
    if spec is None:
        return []
    if spec[0] == "const":
        return [(0.0, float(spec[1]), 0.0, 0.0)]
    _, ttype, ks = spec
    return [(float(t), float(v), float(i), float(i if ttype == 0 else o)) for t, v, i, o in ks]


@pytest.mark.parametrize("name", ["brk", "brk_unshared_align32", "brk_remap_badhash_odd_chunk"])
def test_brk_tracks_and_entries(name):
    a = gameanim.load(VARIANTS[name])
    entries = REG + KON
    assert a.entries == [
        {"material": e["name"].decode("cp932"), "kind": "register" if i < len(REG) else "konst",
         "color_id": e["color_id"]} for i, e in enumerate(entries)]
    assert len(a.tracks) == 4 * len(entries)
    for i, t in enumerate(a.tracks):
        assert (t.target, t.channel, t.axis) == (i // 4, "color", i % 4)
        assert keys(t) == expect_keys(entries[i // 4]["tracks"][i % 4])
    # the interpolation of key-framed colours: BEZIER between keys, CONSTANT for count 1
    assert list(a.tracks[0].interpolation) == [gameanim.BEZIER] * 2
    assert list(a.tracks[1].interpolation) == [gameanim.CONSTANT]


def test_brk_info_reports_remap_and_kept_quirks():
    info = gameanim.load(VARIANTS["brk_remap_badhash_odd_chunk"]).info
    assert info["material_ids_identity"] == 0 and info["chunk_size_delta"] == 4 and info["trailing_bytes"] == 32
    assert gameanim.load(VARIANTS["brk"]).info["material_ids_identity"] == 1


def test_bpk_tracks_and_entries():
    a = gameanim.load(VARIANTS["bpk"])
    assert a.entries == [{"material": "mat0"}, {"material": "mat1"}]
    for i, t in enumerate(a.tracks):
        assert (t.target, t.channel, t.axis) == (i // 4, "color", i % 4)
        assert keys(t) == expect_keys(REG[i // 4]["tracks"][i % 4])


@pytest.mark.parametrize("name", ["btp", "btp_extra_indices"])
def test_btp_tracks_and_entries(name):
    a = gameanim.load(VARIANTS[name])
    assert a.entries == [{"material": e["name"].decode(), "texmap": e["texmap"]} for e in BTP_ENTRIES]
    for i, t in enumerate(a.tracks):
        assert (t.target, t.channel, t.axis) == (i, "texture_index", 0)
        assert list(t.values) == [float(v) for v in BTP_ENTRIES[i]["frames"]]
        assert list(t.times) == [float(k) for k in range(len(BTP_ENTRIES[i]["frames"]))]
        assert all(x == gameanim.CONSTANT for x in t.interpolation)


def test_bva_tracks():
    a = gameanim.load(VARIANTS["bva"])
    assert not a.entries
    assert [(t.target, t.channel, t.axis) for t in a.tracks] == [(i, "visibility", 0) for i in range(4)]
    assert [list(t.values) for t in a.tracks] == [[float(v) for v in s] for s in BVA_SHAPES]


@pytest.mark.parametrize("name", ["j3d_bca", "j3d_bca_unshared_align4", "j3d_bca_short"])
def test_j3d_bca_tracks(name):
    a = gameanim.load(VARIANTS[name])
    assert len(a.tracks) == 9 * len(BCA_JOINTS)
    chans = ("scale", "rotation", "translation")
    for t in a.tracks:
        vals = BCA_JOINTS[t.target].get((chans.index(t.channel), t.axis), [])
        want = [f32(v * UNIT) if t.channel == "rotation" else f32(v) for v in vals]
        assert list(t.values) == want, (t.target, t.channel, t.axis)
        assert list(t.times) == [float(k) for k in range(len(vals))]


def test_short_full_frame_file_reports_its_shortfall():
    for name, cut in (("bva_short", 2), ("j3d_bca_short", 16)):
        info = gameanim.load(VARIANTS[name]).info
        assert info["trailing_bytes"] == -cut, name


# ---------------------------------------------------------------------------
# Sampling

FRAMES = [-10.0, -0.6, -0.4, 0.0, 0.3, 0.5, 0.7, 1.0, 1.49, 1.5, 2.25, 2.5, 3.0, 3.999, 4.0, 7.5, 100.0]


def sample_by_track(a, frames):
    out = a.sample(frames)
    n = len(frames)
    return [list(out[i * n:(i + 1) * n]) for i in range(len(a.tracks))]


@pytest.mark.parametrize("name", ["brk", "bpk"])
def test_color_sampling_is_the_s16_hermite_before_the_clamp(name):
    a = gameanim.load(VARIANTS[name])
    frames = [-20.0, -5.0, -1.0, 0.0, 3.3, 9.99, 10.0, 15.5, 20.0, 39.0, 40.0, 55.0]
    got = sample_by_track(a, frames)
    specs = [tr for e in (REG + (KON if name == "brk" else [])) for tr in e["tracks"]]
    for i, spec in enumerate(specs):
        ks = expect_keys(spec)
        want = [f32(eval_keys(len(ks), ks, f, 0.0, s16_table=True)) for f in frames]
        assert got[i] == want, (i, got[i], want)
    # unclamped: register values outside 0..255 come back as stored
    assert min(got[3]) == -500.0 and max(got[3]) == 1023.0


def test_btp_sampling_truncates_and_clamps():
    a = gameanim.load(VARIANTS["btp"])
    a.frame_rule = "nearest"  # BTP ignores the full-frame rule: getTexNo truncates
    got = sample_by_track(a, FRAMES)
    for i, e in enumerate(BTP_ENTRIES):
        fr = e["frames"]
        if not fr:
            assert got[i] == [0.0] * len(FRAMES)
            continue
        want = [float(fr[min(max(math.trunc(f), 0), len(fr) - 1)]) for f in FRAMES]
        assert got[i] == want


def full_frame_rule(vals, frame, rule, rot=False):
    """The JSystem full-frame readers, from the decompiled sources cited in
    docs/formats/j3d_kinds.md; vals are table elements (raw s16 for
    rotations)."""
    f = f32(frame)
    if f < 0:
        return vals[0]
    n = len(vals)
    if rule == "nearest":
        i = math.trunc(f32(f + 0.5))
    else:
        i = math.trunc(f)
    if rule == "lerp" and i != f:
        if i + 1 >= n:
            return vals[-1]
        rate = f32(f - i)
        if rot:
            r1, r2 = vals[i] & 0xFFFF, vals[i + 1] & 0xFFFF
            d = r2 - r1
            if d > 0x8000:
                r1 += 0x10000
                d -= 0x10000
            elif -d > 0x8000:
                d += 0x10000
            v = math.trunc(f32(f32(r1) + f32(rate * d))) & 0xFFFF
            return v - 0x10000 if v >= 0x8000 else v
        return f32(vals[i] + f32(rate * f32(vals[i + 1] - vals[i])))
    return vals[min(i, n - 1)]


@pytest.mark.parametrize("rule", ["nearest", "truncate", "lerp"])
def test_j3d_bca_sampling_rules(rule):
    a = gameanim.load(VARIANTS["j3d_bca"])
    assert a.frame_rule == "nearest"  # the default
    a.frame_rule = rule
    got = sample_by_track(a, FRAMES)
    chans = ("scale", "rotation", "translation")
    for i, t in enumerate(a.tracks):
        c = chans.index(t.channel)
        vals = BCA_JOINTS[t.target].get((c, t.axis))
        if not vals:
            assert got[i] == [1.0 if c == 0 else 0.0] * len(FRAMES)
            continue
        if c == 1:
            want = [f32(full_frame_rule(vals, f, rule, rot=True) * UNIT) for f in FRAMES]
        else:
            want = [full_frame_rule([f32(v) for v in vals], f, rule) for f in FRAMES]
        assert got[i] == pytest.approx(want, abs=1e-6), (t.target, t.channel, t.axis)
    if rule == "lerp":
        # the short way round: -32000 -> 32000 passes through +-32768
        rx = got[[(t.target, t.channel, t.axis) for t in a.tracks].index((0, "rotation", 0))]
        mid = rx[FRAMES.index(0.5)]
        assert abs(abs(mid) - PI) < 0.05


@pytest.mark.parametrize("rule", ["nearest", "truncate", "lerp"])
def test_bva_sampling_rules(rule):
    a = gameanim.load(VARIANTS["bva"], )
    a.frame_rule = rule
    got = sample_by_track(a, FRAMES)
    for i, s in enumerate(BVA_SHAPES):
        if not s:
            assert got[i] == [1.0] * len(FRAMES)  # no table: shown
        else:
            assert got[i] == pytest.approx([full_frame_rule([float(v) for v in s], f, rule) for f in FRAMES])


def test_frame_rule_is_a_parameter_not_stored():
    a = gameanim.load(VARIANTS["bva"])
    a.frame_rule = "lerp"
    assert a.to_bytes() == VARIANTS["bva"]
    assert a.copy().frame_rule == "lerp"
    assert gameanim.Animation("bva", frame_rule="truncate").frame_rule == "truncate"
    with pytest.raises(ValueError, match="frame_rule"):
        a.frame_rule = "cubic"


def test_track_evaluate_uses_the_game_rule():
    a = gameanim.load(VARIANTS["btp"])
    t = a.tracks[0]
    assert list(t.evaluate([0.9, 1.9, -3.0, 50.0])) == [0.0, 1.0, 0.0, 0.0]
    b = gameanim.load(VARIANTS["bva"])
    assert list(b.tracks[0].evaluate([1.4, 1.5, 1.6])) == [1.0, 0.0, 0.0]  # nearest by default


# ---------------------------------------------------------------------------
# Edits


def test_brk_edit_reencodes_only_what_changed():
    a = gameanim.load(VARIANTS["brk"])
    tr = a.tracks
    t = tr[2]
    tr[2] = gameanim.Track(t.target, "color", 2, [0, 10], [0, 600], [0, 0], [0, 0], interpolation=gameanim.BEZIER)
    a.tracks = tr
    b = gameanim.load(a.to_bytes())
    assert keys(b.tracks[2]) == [(0.0, 0.0, 0.0, 0.0), (10.0, 600.0, 0.0, 0.0)]
    for i in range(len(a.tracks)):
        if i != 2:
            assert keys(b.tracks[i]) == keys(gameanim.load(VARIANTS["brk"]).tracks[i])
    assert b.entries == gameanim.load(VARIANTS["brk"]).entries


def test_brk_new_file_and_entry_order():
    tracks = [gameanim.Track(0, "color", 0, [0], [300], interpolation=gameanim.CONSTANT),
              gameanim.Track(1, "color", 3, [0, 5], [0, 255], [0, 0], [0, 0], interpolation=gameanim.BEZIER)]
    ents = [{"material": "m", "kind": "register", "color_id": 0}, {"material": "n", "kind": "konst", "color_id": 2}]
    a = gameanim.Animation("brk", tracks, frame_count=5, entries=ents)
    b = gameanim.load(a.to_bytes())
    assert b.entries == ents and b.format == "brk"
    assert keys(b.tracks[0]) == [(0.0, 300.0, 0.0, 0.0)]
    assert keys(b.tracks[7]) == [(0.0, 0.0, 0.0, 0.0), (5.0, 255.0, 0.0, 0.0)]
    bad = gameanim.Animation("brk", tracks, frame_count=5, entries=ents[::-1])
    with pytest.raises(gameanim.EncodeError, match="register entries go first"):
        bad.to_bytes()


def test_full_frame_edits_and_new_files():
    a = gameanim.load(VARIANTS["btp"])
    tr = a.tracks
    tr[1] = gameanim.Track(1, "texture_index", 0, [0, 1, 2], [4, 5, 70000], interpolation=gameanim.CONSTANT)
    a.tracks = tr
    with pytest.raises(gameanim.EncodeError, match="70000"):
        a.to_bytes()
    tr[1] = gameanim.Track(1, "texture_index", 0, [0, 2], [4, 6], interpolation=gameanim.CONSTANT)
    a.tracks = tr
    b = gameanim.load(a.to_bytes())
    assert list(b.tracks[1].values) == [4.0, 4.0, 6.0]  # one number per frame
    v = gameanim.Animation("bva", [gameanim.Track(2, "visibility", 0, [0, 1], [0, 1])], frame_count=2)
    c = gameanim.load(v.to_bytes())
    assert [list(t.values) for t in c.tracks] == [[], [], [0.0, 1.0]]
    j = gameanim.Animation("j3d_bca", [gameanim.Track(0, "rotation", 1, [0, 1], [0.5, 4.0])], frame_count=2)
    with pytest.raises(gameanim.EncodeError, match="s16"):
        j.to_bytes()


def test_wrapped_files_round_trip():
    for name in ("brk", "bpk", "btp", "bva", "j3d_bca"):
        for comp in ("yaz0", "yay0"):
            data = gameanim.load(VARIANTS[name]).to_bytes(compression=comp)
            a = gameanim.load(data)
            assert a.format == name and a.compression == comp
            assert a.to_bytes() == data
            assert a.to_bytes(compression=None) == VARIANTS[name]


def test_empty_entry_lists():
    for data in (W.write_color(b"brk1", [[], []], 3), W.write_color(b"bpk1", [[]], 3), W.write_btp([], 3),
                 W.write_bva([], 3), W.write_j3d_bca([], 3)):
        a = gameanim.load(data)
        assert a.tracks == [] and a.entries == []
        assert a.to_bytes(reencode="raw") == data
        assert gameanim.load(a.to_bytes(reencode="full")).tracks == []


# ---------------------------------------------------------------------------
# BCK rotations at large rotation shifts


def bck_with_shift(frac, raws):
    unit = UNIT * (1 << frac)
    keys_ = [(10.0 * k, r * unit) for k, r in enumerate(raws)]
    t = gameanim.Track(0, "rotation", 0, [k[0] for k in keys_], [k[1] for k in keys_], [0.0] * len(raws),
                       [0.0] * len(raws), interpolation=gameanim.BEZIER)
    a = gameanim.Animation("bck", [t], frame_count=10 * len(raws), rotation_frac=frac)
    return a.to_bytes()


@pytest.mark.parametrize("frac", [0, 8, 15, 20, 40, 65])
def test_bck_rotation_sample_is_the_games_angle_at_any_shift(frac):
    raws = [30001, 30017, 29990, 30005]
    data = bytearray(bck_with_shift(min(frac, 15), raws))
    data[0x29] = frac  # the shift byte (over 15 only by editing the file: the game reads any u8)
    a = gameanim.load(bytes(data))
    frames = [x * 0.25 for x in range(0, 4 * 10 * len(raws))]
    ri = [(t.channel, t.axis) for t in a.tracks].index(("rotation", 0))
    got = sample_by_track(a, frames)[ri]
    ks = [(10.0 * k, float(r), 0.0, 0.0) for k, r in enumerate(raws)]
    prev = None
    for f, g in zip(frames, got):
        h = fctiwz(eval_keys(len(ks), ks, f, 0.0, s16_table=True))
        # PowerPC slw: the low 6 bits of the shift count, 32..63 give 0
        sh = frac & 63
        s = ((h << sh) & 0xFFFF) if sh < 32 else 0
        s = s - 0x10000 if s >= 0x8000 else s
        angle = s * UNIT
        d = (g - angle) % (2 * PI)
        assert min(d, 2 * PI - d) < 1e-5, (f, g, angle)
        if prev is not None and (frac & 63) <= 8:
            assert abs(g - prev) < 0.1  # continuous between quarter frames
        prev = g


# ---------------------------------------------------------------------------
# Damaged input


@pytest.mark.parametrize("name", ["brk", "bpk", "btp_extra_indices", "bva", "j3d_bca"])
def test_every_truncation_is_a_format_error(name):
    data = VARIANTS[name]
    # (full-frame files may end inside their last table's padding and still load)
    for n in range(len(data)):
        try:
            gameanim.load(data[:n])
        except gameanim.FormatError as e:
            assert e.format in (fmt_of(name), "unknown") and str(e)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_mutations_never_crash(name):
    for i, bad in enumerate(mutations(VARIANTS[name], mutation_count(300), seed=21)):
        decode_or_format_error(bad)


def test_errors_name_field_and_offset():
    data = bytearray(VARIANTS["brk"])
    struct.pack_into(">H", data, 0x20 + 0x10, 1)  # register R table: 1 value for runs of 6
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(bytes(data))
    assert e.value.format == "brk" and "register entry 0 R key table" == e.value.field and e.value.offset > 0x20
    data = bytearray(VARIANTS["btp"])
    struct.pack_into(">H", data, 0x20 + 0x0C, 0xFFFF)  # 65535 entries
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(bytes(data))
    assert e.value.format == "btp" and e.value.field == "entry table"
    data = bytearray(VARIANTS["j3d_bca"])
    struct.pack_into(">H", data, 0x20 + 0x40 + 2, 0xFFF0)  # joint 0 scale X index far past the data
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(bytes(data))
    assert e.value.format == "j3d_bca" and e.value.field == "joint 0 scale X values"


def test_huge_counts_are_refused_before_allocating():
    # every BVA shape points at the same 65535-byte run: 4 billion keys from a small file
    shapes = [list(range(256)) * 255 + list(range(255))] + [[]] * 0
    data = bytearray(W.write_bva(shapes, 5))
    tab = 0x20 + struct.unpack_from(">I", data, 0x20 + 0x10)[0]
    n = 65535
    body = struct.pack(">HH", 65535, 0) * n
    data = data[:tab] + body + data[tab + 4:]
    struct.pack_into(">H", data, 0x20 + 0x0C, n)
    show = struct.unpack_from(">I", data, 0x20 + 0x14)[0] + len(body) - 4
    struct.pack_into(">I", data, 0x20 + 0x14, show)
    struct.pack_into(">I", data, 8, len(data))
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(bytes(data))
    assert "limit" in str(e.value)


@pytest.mark.parametrize("name", ["brk", "bpk", "btp"])
def test_entries_given_back_as_dicts_are_not_an_edit(name):
    # (a BPK entry has no texture-matrix centre: its dict must not count as
    # one set to BTK's default; found by fuzz/python/fuzz_encode.py)
    a = gameanim.load(VARIANTS[name])
    a.entries = [dict(e) for e in a.entries]
    assert not a.is_modified()
    assert a.to_bytes(reencode="raw") == VARIANTS[name]
    a.entries = [dict(e, material=e["material"] + "x") for e in a.entries]
    assert a.is_modified()
    assert [e["material"] for e in gameanim.load(a.to_bytes()).entries] == [e["material"] for e in a.entries]


def test_colour_rounding_warns_and_overflow_is_an_encode_error():
    ents = [{"material": "m"}]
    a = gameanim.Animation("bpk", [gameanim.Track(0, "color", 0, [0, 10], [0.4, 200.6], [0, 0], [0, 0],
                                                  interpolation=gameanim.BEZIER)], frame_count=10, entries=ents)
    with pytest.warns(gameanim.PrecisionWarning, match="colour"):
        data = a.to_bytes()
    assert list(gameanim.load(data).tracks[0].values) == [0.0, 201.0]
    b = gameanim.Animation("bpk", [gameanim.Track(0, "color", 1, [0], [40000.0], interpolation=gameanim.CONSTANT)],
                           frame_count=1, entries=ents)
    with pytest.raises(gameanim.EncodeError, match="entry 0 color G.*colour 40000"):
        b.to_bytes()


def test_full_frame_rounding_warns():
    a = gameanim.Animation("btp", [gameanim.Track(0, "texture_index", 0, [0, 1], [1.0, 2.4])], frame_count=2,
                           entries=[{"material": "m", "texmap": 0}])
    with pytest.warns(gameanim.PrecisionWarning, match="rounded to whole numbers"):
        assert list(gameanim.load(a.to_bytes()).tracks[0].values) == [1.0, 2.0]
    b = gameanim.Animation("j3d_bca", [gameanim.Track(0, "rotation", 0, [0], [0.1234567])], frame_count=1)
    with pytest.warns(gameanim.PrecisionWarning, match="s16"):
        got = gameanim.load(b.to_bytes()).find(0, "rotation", 0).values[0]
    assert got == f32(round(0.1234567 / UNIT) * UNIT)


@pytest.mark.parametrize("kind", ["bpk", "brk"])
def test_a_kept_odd_chunk_size_never_falls_below_the_chunk_header(kind):
    """A file whose chunk size field is smaller than the chunk (here: just
    the header) keeps that difference when re-encoded; an edit that shortens
    the chunk would then write a size below the header, which no reader
    accepts (found by fuzz_edit): the real length is written instead."""
    data = bytearray(bpk_file() if kind == "bpk" else brk_file())
    hsize = {"bpk": 0x34, "brk": 0x58}[kind]
    struct.pack_into(">I", data, 0x24, hsize)
    a = gameanim.load(bytes(data))
    assert a.info["chunk_size_delta"] < 0
    assert a.to_bytes() == bytes(data)  # unedited: the odd field as it was
    # every track a constant already in the value table: a shorter chunk
    a.tracks = [gameanim.Track(t.target, t.channel, t.axis, [0], [255], [0], [0], interpolation=gameanim.BEZIER)
                for t in a.tracks]
    out = a.to_bytes()
    assert len(out) < len(data)
    assert struct.unpack_from(">I", out, 0x24)[0] >= hsize
    b = gameanim.load(out)
    assert all(keys(t) == [(0.0, 255.0, 0.0, 0.0)] for t in b.tracks) and len(b.tracks) == len(a.tracks)
