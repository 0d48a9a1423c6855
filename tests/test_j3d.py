"""BCK (ANK1) and BTK (TTK1): decoding, game-exact evaluation, encoding and
robustness.  Expected values come from tests/j3d_reference.py, a separate
plain-Python reading of the format, never from the extension itself."""
import math
import os
import struct
import warnings

import pytest

import gameanim
import j3d_reference as ref
from conftest import SAMPLES, decode_or_format_error, mutation_count, mutations

# bare files only (wrapped copies are covered by the wrapper tests)
J3D_SAMPLES = sorted(p for p in (SAMPLES / "j3d").glob("*.b[ct]k") if p.read_bytes()[:4] == b"J3D1")
CHANNELS = ("scale", "rotation", "translation")


def load(path):
    return gameanim.load(path)


def quiet_bytes(anim, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        return anim.to_bytes(**kw)


def test_samples_exist():
    names = {p.name for p in J3D_SAMPLES}
    assert any(n.endswith(".bck") for n in names) and any(n.endswith(".btk") for n in names)
    assert len(J3D_SAMPLES) >= 6


@pytest.mark.parametrize("path", J3D_SAMPLES, ids=lambda p: p.name)
def test_unedited_round_trip_is_byte_exact(path):
    data = path.read_bytes()
    anim = gameanim.load(data)
    assert anim.to_bytes() == data
    assert gameanim.load(str(path)).to_bytes() == data  # path as str
    assert gameanim.load(path).to_bytes() == data  # path as PathLike
    assert gameanim.load(bytearray(data)).to_bytes() == data
    assert gameanim.load(memoryview(data)).to_bytes() == data


@pytest.mark.parametrize("path", J3D_SAMPLES, ids=lambda p: p.name)
def test_header_fields(path):
    data = path.read_bytes()
    info = ref.parse(data)
    anim = load(path)
    assert anim.format == info["kind"][:3]
    assert anim.frame_count == info["duration"]
    assert anim.fps is None
    assert anim.loop == gameanim.LOOP_MODES[info["loop_mode"]]
    assert anim.rotation_frac == info["rotation_frac"]
    got = anim.info
    for key in ("file_size", "block_count", "header_0x10", "chunk_size", "loop_mode", "rotation_frac", "duration",
                "scale_count", "rotation_count", "translation_count"):
        assert got[key] == info[key], key
    if anim.format == "bck":
        assert got["joint_count"] == info["joint_count"]
        assert len(anim.tracks) == 9 * info["joint_count"]
    else:
        assert got["track_count"] == info["track_count"]
        assert got["calc_type"] == info["calc_type"]
        assert anim.calc_type == ("maya" if info["calc_type"] == 1 else "basic")
        assert len(anim.entries) == info["entries"]
        for i, e in enumerate(anim.entries):
            assert e["material"] == info["names"][i]
            assert e["texmtx_id"] == info["texmtx"][i]
            assert e["center"] == pytest.approx(info["center"][i], abs=0)
            assert info["name_hashes"][i] == ref.name_hash(info["names"][i])
        assert got["name_hashes_valid"] == 1
        assert info["remap"] == list(range(info["entries"]))
        assert got["material_ids"] == struct.pack(">%dH" % info["entries"], *info["remap"])


@pytest.mark.parametrize("path", J3D_SAMPLES, ids=lambda p: p.name)
def test_tracks_carry_the_raw_keys(path):
    info = ref.parse(path.read_bytes())
    anim = load(path)
    unit = (1 << info["rotation_frac"]) * math.pi / 32768.0
    i = 0
    for e in range(info["entries"]):
        for ch in range(3):
            for axis in range(3):
                t = anim.tracks[i]
                i += 1
                assert (t.target, t.channel, t.axis) == (e, CHANNELS[ch], axis)
                count, keys = ref.keys_of(info, e, ch, axis)
                assert len(t) == count
                scale = unit if ch == 1 else 1.0
                for k, (time, value, tin, tout) in enumerate(keys):
                    assert t.values[k] == pytest.approx(ref.f32(value * scale), rel=1e-7, abs=1e-12)
                    if count > 1:
                        assert t.times[k] == time
                        assert t.in_slopes[k] == pytest.approx(ref.f32(tin * scale), rel=1e-7, abs=1e-12)
                        assert t.out_slopes[k] == pytest.approx(ref.f32(tout * scale), rel=1e-7, abs=1e-12)
                        assert t.interpolation[k] == gameanim.BEZIER


def sample_frames(duration):
    frames = [-3.0, -0.5, 0.0]
    f = 0.0
    while f <= duration + 2:
        frames += [f, f + 0.25, f + 0.5, f + 0.8]
        f += 1.0
    return frames


@pytest.mark.parametrize("path", J3D_SAMPLES, ids=lambda p: p.name)
def test_sample_matches_the_game_at_integer_and_fractional_frames(path):
    """Bit for bit: the reference redoes the game's single-precision Hermite
    routines step by step (with fused multiply-adds) and the truncation of
    rotations, so the extension's float32 output must be identical."""
    info = ref.parse(path.read_bytes())
    anim = load(path)
    frames = sample_frames(info["duration"])
    if info["entries"] > 20:
        frames = frames[::13]
    out = anim.sample(frames)
    nf = len(frames)
    i = 0
    for e in range(info["entries"]):
        for ch in range(3):
            for axis in range(3):
                for k, f in enumerate(frames):
                    want = ref.f32(ref.game_value(info, e, ch, axis, f))
                    got = out[i * nf + k]
                    assert got == want, (e, CHANNELS[ch], axis, f, got, want)
                i += 1


def test_rotation_units_half_turn_is_exactly_pi():
    for frac in (0, 1, 3):
        raw = 0x4000 >> max(0, frac - 1) if frac else 0x4000
        value = raw * (1 << frac) * math.pi / 32768.0
        t = gameanim.Track(0, "rotation", 0, [0.0], [value], interpolation=gameanim.CONSTANT)
        anim = gameanim.Animation("bck", [t], frame_count=1, rotation_frac=frac)
        data = quiet_bytes(anim)
        info = ref.parse(data)
        count, keys = ref.keys_of(info, 0, 1, 0)
        assert count == 1 and keys[0][1] == raw
    # 0x8000 at shift 0 does not fit an s16 key, but 0x4000 << 1 is exactly pi
    t = gameanim.Track(0, "rotation", 0, [0.0], [math.pi], interpolation=gameanim.CONSTANT)
    anim = gameanim.Animation("bck", [t], frame_count=1, rotation_frac=1)
    data = quiet_bytes(anim)
    back = gameanim.load(data)
    assert back.sample([0.0])[3] == pytest.approx(math.pi, abs=1e-6)
    assert ref.keys_of(ref.parse(data), 0, 1, 0)[1][0][1] == 0x4000


def test_sample_truncates_rotation_before_the_shift():
    # two keys 0 -> 3 raw units over 4 frames, flat tangents, shift 2: the
    # raw curve is 0.46875, 1.5, 2.53125 at frames 1..3; the game truncates
    # toward zero, then shifts.
    unit = 4 * math.pi / 32768.0
    t = gameanim.Track(0, "rotation", 0, [0.0, 4.0], [0.0, 3 * unit], [0.0, 0.0], [0.0, 0.0],
                       interpolation=gameanim.BEZIER)
    anim = gameanim.Animation("bck", [t], frame_count=4, rotation_frac=2)
    out = anim.sample([1.0, 2.0, 3.0])
    assert [round(v / unit, 6) for v in out] == [0.0, 1.0, 2.0]
    # the smooth curve (what Blender draws) stays within one step of it
    smooth = t.evaluate([1.0, 2.0, 3.0])
    assert all(0 <= s - g < unit for s, g in zip(smooth, out))


def test_count_zero_tracks_use_component_defaults_not_rest():
    anim = gameanim.Animation("bck", [gameanim.Track(0, c, a) for c in CHANNELS for a in range(3)], frame_count=5)
    data = quiet_bytes(anim)
    back = gameanim.load(data)
    out = back.sample([0.0, 2.5])
    assert list(out) == [1.0] * 6 + [0.0] * 12
    info = ref.parse(data)
    assert all(d.count == 0 for d in info["descs"][0])


def test_tangent_type_zero_and_one_are_chosen_per_track():
    sym = gameanim.Track(0, "translation", 0, [0.0, 10.0], [0.0, 5.0], [0.5, 0.5], [0.5, 0.5])
    asym = gameanim.Track(0, "translation", 1, [0.0, 10.0], [0.0, 5.0], [0.1, 0.5], [0.5, 0.2])
    data = quiet_bytes(gameanim.Animation("bck", [sym, asym], frame_count=10))
    info = ref.parse(data)
    assert info["descs"][0][0 * 3 + 2].type == 0
    assert info["descs"][0][1 * 3 + 2].type == 1
    back = gameanim.load(data)
    t = back.find(0, "translation", 1)
    assert list(t.in_slopes) == [pytest.approx(0.1), 0.5] and list(t.out_slopes) == [0.5, pytest.approx(0.2)]


def test_identical_runs_are_reused_in_value_tables():
    keys = ([0.0, 5.0, 10.0], [1.0, 2.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    tracks = [gameanim.Track(j, "translation", 0, *keys) for j in range(4)]
    data = quiet_bytes(gameanim.Animation("bck", tracks, frame_count=10))
    info = ref.parse(data)
    assert info["translation_count"] == 9  # one run of 3 keys x 3 elements, shared by all four joints
    assert {info["descs"][j][2].index for j in range(4)} == {0}


def test_padding_and_alignment_of_new_files():
    data = bck_bytes = quiet_bytes(gameanim.Animation("bck", [gameanim.Track(0, "translation", 0, [0.0, 3.0], [0.0, 1.0])], frame_count=3))
    assert len(bck_bytes) % 32 == 0
    info = ref.parse(data)
    assert data[0x20 + 0x24 : 0x20 + 0x40] == b"This is padding data to alig"
    # tables start on 32-byte boundaries and gaps hold Nintendo's padding text
    o_tab, o_s, o_r, o_t = struct.unpack_from(">IIII", data, 0x34)
    for o in (o_tab, o_s, o_r, o_t):
        assert o % 32 == 0
    end_tab = 0x20 + o_tab + 0x36
    gap = data[end_tab : 0x20 + o_s]
    assert gap == b"This is padding data to alignment."[: len(gap)]
    assert info["sound_offset"] == 0xFFFFFFFF


def btk_entry(name, tex=0, center=(0.5, 0.5, 0.5)):
    return {"material": name, "texmtx_id": tex, "center": center}


def test_btk_layout_and_name_table():
    entries = [btk_entry("mat_a"), btk_entry("mat_b", 3, (0.25, 0.5, 0.75))]
    tracks = [gameanim.Track(1, "translation", 0, [0.0, 10.0], [0.0, 1.0], [0.1, 0.1], [0.1, 0.1])]
    data = quiet_bytes(gameanim.Animation("btk", tracks, frame_count=10, entries=entries, calc_type="maya"))
    assert data[0x10:0x14] == b"SVR1"
    info = ref.parse(data)
    assert info["names"] == ["mat_a", "mat_b"]
    assert info["name_hashes"] == [ref.name_hash("mat_a"), ref.name_hash("mat_b")]
    assert info["texmtx"] == [0, 3]
    assert info["calc_type"] == 1
    assert info["track_count"] == 6
    assert len(data) % 32 == 0
    # every table starts on a 4-byte boundary
    offsets = struct.unpack_from(">8I", data, 0x20 + 0x14)
    assert all(o % 4 == 0 for o in offsets)
    back = gameanim.load(data)
    assert back.calc_type == "maya"
    # the file's word (info['calc_type']) is taken too
    for word, name in ((1, "maya"), (0, "basic")):
        back.calc_type = word
        assert back.calc_type == name
    with pytest.raises(ValueError, match="calc_type"):
        back.calc_type = 2
    assert back.entries[1]["center"] == (0.25, 0.5, 0.75)


def test_a_signalling_nan_centre_survives_an_unedited_round_trip():
    marker = 0.123456  # found in the file, then replaced by a signalling NaN
    entries = [btk_entry("mat_a", 0, (0.5, marker, 0.5))]
    tracks = [gameanim.Track(0, "translation", 0, [0.0, 10.0], [0.0, 1.0], [0.1, 0.1], [0.1, 0.1])]
    data = bytearray(quiet_bytes(gameanim.Animation("btk", tracks, frame_count=10, entries=entries)))
    at = data.find(struct.pack(">f", marker))
    assert at > 0 and data.count(struct.pack(">f", marker)) == 1
    data[at:at + 4] = struct.pack(">I", 0x7F800001)  # sNaN: a Python float makes it quiet
    data = bytes(data)
    anim = gameanim.load(data)
    assert math.isnan(anim.entries[0]["center"][1])
    assert not anim.is_modified()
    assert anim.to_bytes() == data


def test_name_hash_treats_bytes_as_signed_chars():
    name = "\u30de\u30c6\u30ea\u30a2\u30eb"  # Shift-JIS bytes >= 0x80
    data = quiet_bytes(gameanim.Animation("btk", [], frame_count=1, entries=[btk_entry(name)]))
    info = ref.parse(data)
    assert info["names"] == [name]
    assert info["name_hashes"][0] == ref.name_hash(name)
    assert gameanim.load(data).entries[0]["material"] == name


def test_edit_one_key_then_encode_and_decode():
    path = SAMPLES / "j3d" / "swing_type1_shift2.bck"
    data = path.read_bytes()
    anim = gameanim.load(data)
    before = [(list(t.times), list(t.values), list(t.in_slopes), list(t.out_slopes)) for t in anim.tracks]
    t = anim.find(0, "translation", 2)
    t.values[1] = -6.5
    out = anim.to_bytes()
    assert out != data
    report = anim.encode_report
    assert report["encoded_tracks"] == 1 and report["reused_tracks"] == len(anim.tracks) - 1
    back = gameanim.load(out)
    for i, bt in enumerate(back.tracks):
        times, values, ins, outs = before[i]
        if bt.target == 0 and bt.channel == "translation" and bt.axis == 2:
            values = list(values)
            values[1] = -6.5
        assert (list(bt.times), list(bt.values), list(bt.in_slopes), list(bt.out_slopes)) == (times, values, ins, outs)
    # the unchanged tracks keep their raw key tables
    old, new = ref.parse(data), ref.parse(out)
    for e in range(old["entries"]):
        for ch in range(3):
            for axis in range(3):
                if (e, ch, axis) == (0, 2, 2):
                    continue
                assert ref.keys_of(old, e, ch, axis) == ref.keys_of(new, e, ch, axis)
                assert old["descs"][e][axis * 3 + ch].type == new["descs"][e][axis * 3 + ch].type


def test_edit_rotation_keeps_shift_and_quantises_to_s16():
    anim = gameanim.load(SAMPLES / "j3d" / "swing_type1_shift2.bck")
    t = anim.find(0, "rotation", 0)
    unit = 4 * math.pi / 32768
    t.values[1] = 1000.4 * unit
    out = quiet_bytes(anim)
    info = ref.parse(out)
    assert info["rotation_frac"] == 2
    assert ref.keys_of(info, 0, 1, 0)[1][1][1] == 1000
    assert anim.encode_report["max_error"] == pytest.approx(0.4 * unit, rel=1e-3)


def test_rotation_shift_grows_when_values_do_not_fit():
    t = gameanim.Track(0, "rotation", 1, [0.0, 10.0], [0.0, 3 * math.pi], [0.0, 0.0], [0.0, 0.0])
    anim = gameanim.Animation("bck", [t], frame_count=10)
    out = quiet_bytes(anim)
    info = ref.parse(out)
    assert info["rotation_frac"] == 2  # 3*pi needs 49152 raw units at shift 0
    back = gameanim.load(out)
    assert back.sample([10.0])[4 * 1] == pytest.approx(3 * math.pi, abs=4 * math.pi / 32768)
    anim.rotation_frac = 0
    with pytest.raises(gameanim.EncodeError, match="rotation"):
        anim.to_bytes()


def test_rotation_shift_of_a_decoded_file_grows_when_an_edit_does_not_fit():
    anim = gameanim.load(SAMPLES / "j3d" / "swing_type1_shift2.bck")
    assert anim.rotation_frac == 2
    t = anim.find(0, "rotation", 0)
    big = 40000 * 4 * math.pi / 32768  # 40000 raw units at shift 2: needs shift 3
    t.values[1] = big
    out = quiet_bytes(anim)
    assert ref.parse(out)["rotation_frac"] == 3
    assert any("rotation shift changed from 2 to 3" in n for n in anim.encode_report["notes"])
    back = gameanim.load(out)
    assert back.find(0, "rotation", 0).values[1] == pytest.approx(big, abs=8 * math.pi / 32768)
    # a shift the user sets stays: a value that does not fit it is an error
    anim.rotation_frac = 1
    with pytest.raises(gameanim.EncodeError, match="rotation"):
        anim.to_bytes()


def test_linear_then_constant_segments_encode_as_drawn():
    # 0 -> 10 linear over frames 0..10, then held at 10 (constant), then a jump to -5 at frame 20
    t = gameanim.Track(0, "translation", 0, [0.0, 10.0, 20.0], [0.0, 10.0, -5.0],
                       in_slopes=[0.0, 3.0, 7.0], out_slopes=[9.0, 4.0, 0.0],
                       interpolation=[gameanim.LINEAR, gameanim.CONSTANT, gameanim.CONSTANT])
    anim = gameanim.Animation("bck", [t], frame_count=25)
    back = gameanim.load(quiet_bytes(anim))
    frames = [0.0, 2.5, 5.0, 7.5, 10.0, 12.0, 19.5, 20.0, 24.0]
    want = [0.0, 2.5, 5.0, 7.5, 10.0, 10.0, 10.0, -5.0, -5.0]  # the segments drawn by hand
    got = back.sample(frames)
    idx = [i for i, u in enumerate(back.tracks) if (u.channel, u.axis) == ("translation", 0)][0]
    assert list(got[idx * len(frames):(idx + 1) * len(frames)]) == pytest.approx(want, abs=1e-5)


def test_new_animation_round_trips_within_precision():
    tracks = [
        gameanim.Track(0, "scale", 0, [0.0, 2.5, 7.0], [1.0, 1.25, 0.75], [0.0, 0.1, 0.0], [0.0, 0.2, 0.0]),
        gameanim.Track(0, "rotation", 2, [0.0, 4.0, 8.0], [0.1, -0.7, 2.0], [0.0, 0.05, 0.0], [0.0, 0.05, 0.0]),
        gameanim.Track(1, "translation", 1, [0.0, 8.0], [10.0, -10.0]),  # linear
        gameanim.Track(1, "translation", 2, [0.0, 3.0, 8.0], [0.0, 4.0, 1.0], interpolation=gameanim.CONSTANT),
    ]
    anim = gameanim.Animation("bck", tracks, frame_count=8, loop="once")
    out = quiet_bytes(anim)
    back = gameanim.load(out)
    frames = [i * 0.25 for i in range(0, 34)]
    want = [t.evaluate(frames) for t in tracks]
    got = back.sample(frames)
    nf = len(frames)
    order = [(0, "scale", 0), (0, "rotation", 2), (1, "translation", 1), (1, "translation", 2)]
    for key, w in zip(order, want):
        idx = [i for i, t in enumerate(back.tracks) if (t.target, t.channel, t.axis) == key][0]
        step = 2 * math.pi / 32768 if key[1] == "rotation" else 0.0
        for k in range(nf):
            assert abs(got[idx * nf + k] - w[k]) <= max(1e-5, step * 1.01), (key, frames[k])


def test_frame_at_follows_j3dframectrl():
    for mode in range(5):
        name = gameanim.LOOP_MODES[mode]
        for rate in (1.0, 0.5, 2.0):
            for ticks in range(0, 70):
                want = ref.frame_ctrl(ticks, 10.0, mode, rate)
                got = gameanim.frame_at(ticks, 10.0, name, rate)
                assert got == pytest.approx(want, abs=1e-6), (name, rate, ticks)
    # an end at or before the start: the once modes clamp at the start, then at the end
    for mode in range(5):
        for dur in (0.0, -4.0):
            for rate in (1.0, -1.0, -0.3):
                for ticks in (1, 2, 5):
                    want = ref.frame_ctrl(ticks, dur, mode, rate)
                    got = gameanim.frame_at(ticks, dur, gameanim.LOOP_MODES[mode], rate)
                    assert got == pytest.approx(want, abs=1e-6), (mode, dur, rate, ticks)
    assert gameanim.frame_at(3, 0.0, "once", -1.0) == pytest.approx(-0.001)
    assert gameanim.frame_at(12, 10.0, "once") == pytest.approx(9.999)
    assert gameanim.frame_at(12, 10.0, "once_reset") == 0.0
    assert gameanim.frame_at(12, 10.0, "loop") == 2.0
    assert gameanim.frame_at(11, 10.0, "mirror_loop") == pytest.approx(8.999)
    assert list(gameanim.frame_at([1, 2, 3], 10.0, "loop")) == [1.0, 2.0, 3.0]
    # the file's own loop-mode byte (info['loop_mode']) names the same modes
    for mode in range(5):
        assert gameanim.frame_at(23, 10.0, mode, 0.7) == gameanim.frame_at(23, 10.0, gameanim.LOOP_MODES[mode], 0.7)
    for bad in (5, -1, True):
        with pytest.raises(ValueError):
            gameanim.frame_at(1, 10.0, bad)


# ---------------------------------------------------------------------------
# unusual bytes: all kept on an unedited round trip


def test_trailing_bytes_and_odd_header_text_are_kept():
    base = bytearray((SAMPLES / "j3d" / "walk_type0.bck").read_bytes())
    base[0x10:0x20] = b"SuperBMD - Gamma"  # a writer's watermark, where 0x1C is the sound offset
    data = bytes(base) + b"\0" * 13
    anim = gameanim.load(data)
    assert anim.to_bytes() == data
    assert anim.info["trailing_bytes"] == 13
    assert anim.info["sound_offset"] == -1
    anim.find(1, "scale", 0).values[0] = 2.0  # edit forces a rebuild: header text and trailer survive
    out = quiet_bytes(anim)
    assert out[0x10:0x20] == b"SuperBMD - Gamma" and out.endswith(b"\0" * 13)


def test_chunk_size_quirk_is_kept_through_an_edit():
    path = SAMPLES / "j3d" / "scroll_chunk_quirk.btk"
    data = path.read_bytes()
    anim = gameanim.load(data)
    assert anim.info["chunk_size_delta"] == -4
    anim.find(0, "translation", 0).values[1] = 0.5
    out = quiet_bytes(anim)
    true_size = len(out) - 0x20
    assert struct.unpack_from(">I", out, 0x24)[0] == true_size - 4


def test_material_id_table_is_reported_as_stored():
    """The game ignores mUpdateMaterialID (notes 1.3); info gives the table
    as the file stores it and says whether it is the identity."""
    data = bytearray((SAMPLES / "j3d" / "glow_maya.btk").read_bytes())
    c = 0x20
    o_remap = struct.unpack_from(">I", data, c + 0x18)[0]
    n = ref.parse(bytes(data))["entries"]
    struct.pack_into(">%dH" % n, data, c + o_remap, *range(7, 7 + n))
    anim = gameanim.load(bytes(data))
    assert anim.info["material_ids"] == struct.pack(">%dH" % n, *range(7, 7 + n))
    assert anim.info["material_ids_identity"] == 0
    assert anim.to_bytes() == bytes(data)


def test_sound_block_is_kept_through_an_edit():
    data = (SAMPLES / "j3d" / "jump_sound.bck").read_bytes()
    info = ref.parse(data)
    sound = data[info["sound_offset"] :]
    anim = gameanim.load(data)
    assert anim.info["sound_entries"] == 2
    assert anim.info["sound_block"] == sound  # the block itself, as the reference parser finds it
    assert gameanim.load(SAMPLES / "j3d" / "walk_type0.bck").info["sound_block"] == b""
    anim.find(0, "translation", 0).values[1] = 50.0
    out = quiet_bytes(anim)
    new = ref.parse(out)
    assert out[new["sound_offset"] :] == sound
    assert new["file_size"] == len(out)


def test_bytes_between_tables_and_unreferenced_values_round_trip():
    data = bytearray((SAMPLES / "j3d" / "walk_type0.bck").read_bytes())
    # scribble over padding between the joint table and the scale table
    o_tab, o_s = struct.unpack_from(">II", data, 0x34)
    gap_start, gap_end = 0x20 + o_tab + 3 * 0x36, 0x20 + o_s
    assert gap_end > gap_start
    data[gap_start:gap_end] = bytes((i * 7) & 0xFF for i in range(gap_end - gap_start))
    data = bytes(data)
    assert gameanim.load(data).to_bytes() == data


def test_header_only_edit_patches_in_place():
    data = (SAMPLES / "j3d" / "long_60x600.bck").read_bytes()
    anim = gameanim.load(data)
    anim.loop = "once"
    out = anim.to_bytes()
    assert len(out) == len(data)
    diff = [i for i in range(len(data)) if data[i] != out[i]]
    assert diff == [0x28]
    assert out[0x28] == 0


def test_unknown_loop_byte_is_kept():
    data = bytearray((SAMPLES / "j3d" / "walk_type0.bck").read_bytes())
    data[0x28] = 9
    anim = gameanim.load(bytes(data))
    assert anim.loop is None and anim.info["loop_mode"] == 9
    anim.find(1, "scale", 0).values[0] = 3.0
    assert quiet_bytes(anim)[0x28] == 9


# ---------------------------------------------------------------------------
# errors


def test_format_error_carries_format_field_and_offset():
    data = bytearray((SAMPLES / "j3d" / "walk_type0.bck").read_bytes())
    o_tab = struct.unpack_from(">I", data, 0x34)[0]
    slot = 0x20 + o_tab + 0x36 + 1 * 6  # joint 1, descriptor 1 in file order = rotation X
    struct.pack_into(">HH", data, slot, 5, 60000)  # 5 keys from an index far past the table
    with pytest.raises(gameanim.FormatError) as ei:
        gameanim.load(bytes(data))
    e = ei.value
    assert isinstance(e, ValueError)
    assert e.format == "bck" and e.field == "joint 1 rotation X key table" and e.offset == slot
    assert "bck" in str(e) and "offset" in str(e) and "rotation" in str(e)


@pytest.mark.parametrize("cut", [0, 4, 0x1F, 0x30, 0x70])
def test_truncated_files_raise_format_error(cut):
    data = (SAMPLES / "j3d" / "scroll_basic.btk").read_bytes()
    with pytest.raises(gameanim.FormatError, match="btk|unknown"):
        gameanim.load(data[:cut])


def test_truncation_is_caught_by_the_size_field():
    data = (SAMPLES / "j3d" / "walk_type0.bck").read_bytes()
    with pytest.raises(gameanim.FormatError, match="truncated"):
        gameanim.load(data[:-8])


def test_oversized_counts_raise_format_error():
    data = bytearray((SAMPLES / "j3d" / "walk_type0.bck").read_bytes())
    struct.pack_into(">H", data, 0x2C, 0xFFFF)  # joint count
    with pytest.raises(gameanim.FormatError, match="joint table"):
        gameanim.load(bytes(data))
    data = bytearray((SAMPLES / "j3d" / "scroll_basic.btk").read_bytes())
    struct.pack_into(">H", data, 0x20 + 0x0E, 0xFFFF)  # scale table count
    with pytest.raises(gameanim.FormatError, match="scale table"):
        gameanim.load(bytes(data))


def test_not_an_animation():
    with pytest.raises(gameanim.FormatError, match="not a recognised animation file") as ei:
        gameanim.load(b"hello world, this is not an animation at all")
    assert ei.value.format == "unknown"
    with pytest.raises(gameanim.FormatError):
        gameanim.load(b"")


@pytest.mark.parametrize("path", J3D_SAMPLES, ids=lambda p: p.name)
def test_random_mutations_never_crash(path):
    data = path.read_bytes()
    n = mutation_count(1500 if len(data) < 100000 else 150)
    decoded = 0
    for m in mutations(data, n, seed=len(data)):
        decoded += decode_or_format_error(m)
    assert decoded > 0  # some mutations (padding, values) still decode


def test_every_single_byte_flip_of_a_small_sample():
    data = (SAMPLES / "j3d" / "glow_maya.btk").read_bytes()
    for i in range(len(data)):
        b = bytearray(data)
        b[i] ^= 0xFF
        decode_or_format_error(bytes(b))
        decode_or_format_error(data[:i])


# ---------------------------------------------------------------------------
# encode errors and atomic saves


def test_encode_errors_name_the_track():
    t = gameanim.Track(0, "rotation", 0, [0.0], [float("inf")], interpolation=gameanim.CONSTANT)
    with pytest.raises(gameanim.EncodeError, match="rotation"):
        gameanim.Animation("bck", [t], frame_count=1).to_bytes()
    dup = [gameanim.Track(0, "scale", 0), gameanim.Track(0, "scale", 0)]
    with pytest.raises(gameanim.EncodeError, match="same channel"):
        gameanim.Animation("bck", dup, frame_count=1).to_bytes()
    q = gameanim.Track(0, "rotation_quaternion", 0)
    with pytest.raises(gameanim.EncodeError, match="Euler"):
        gameanim.Animation("bck", [q], frame_count=1).to_bytes()
    with pytest.raises(gameanim.EncodeError, match="only 0 entries"):
        gameanim.Animation("btk", [gameanim.Track(0, "scale", 0)], frame_count=1).to_bytes()


def test_save_is_atomic(tmp_path, monkeypatch):
    target = tmp_path / "out.bck"
    target.write_bytes(b"precious")
    anim = gameanim.load(SAMPLES / "j3d" / "walk_type0.bck")
    bad = gameanim.Animation("bck", [gameanim.Track(0, "scale", 0), gameanim.Track(0, "scale", 0)], frame_count=1)
    with pytest.raises(gameanim.EncodeError):
        gameanim.save(bad, target)
    assert target.read_bytes() == b"precious"

    def boom(*a, **k):
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="simulated"):
        gameanim.save(anim, target)
    monkeypatch.undo()
    assert target.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bck"]  # no temporary file left behind
    anim.save(target)
    assert target.read_bytes() == (SAMPLES / "j3d" / "walk_type0.bck").read_bytes()


def test_tolerance_fits_hermite_keys_to_baked_tracks():
    frames = [float(i) for i in range(120)]
    values = [math.sin(f / 12.0) * 2.0 + f / 60.0 for f in frames]
    baked = gameanim.Track(0, "translation", 0, frames, values)  # one linear key per frame
    anim = gameanim.Animation("bck", [baked], frame_count=119)
    exact = gameanim.load(quiet_bytes(anim))
    reduced = gameanim.load(quiet_bytes(anim, tolerance=1e-3))
    assert len(exact.tracks[6]) == 120  # without a tolerance every frame is a key
    assert len(reduced.tracks[6]) < 30  # with one, Hermite keys
    info = ref.parse(quiet_bytes(anim, tolerance=1e-3))
    count, keys = ref.keys_of(info, 0, 2, 0)
    for f, want in zip(frames, values):
        assert abs(ref.game_value(info, 0, 2, 0, f) - want) <= 1e-3 * 1.01


def test_rotations_rounded_to_the_s16_table_warn_and_decoded_ones_do_not():
    """Issue 23: J3D warns as BCA and JBA do.  A rotation value moved off
    its 16-bit step is rounded (PrecisionWarning naming the count and the
    step); re-encoding decoded values in full (each the float32 of a step)
    rounds nothing and stays silent."""
    import warnings
    path = SAMPLES / "j3d" / "walk_type0.bck"
    anim = gameanim.load(path)
    track = next(t for t in anim.tracks if t.channel == "rotation" and len(t) >= 2)
    unit = math.pi / 32768 * 2 ** anim.rotation_frac
    values = list(track.values)
    values[0] += 0.4 * unit
    track.values = values
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = anim.to_bytes()
    msgs = [str(w.message) for w in caught if issubclass(w.category, gameanim.PrecisionWarning)]
    assert len(msgs) == 1 and "1 rotation number(s) rounded to the 16-bit rotation table" in msgs[0], msgs
    back = gameanim.load(data).tracks[anim.tracks.index(track)]
    assert abs(back.values[0] - values[0]) <= 0.5 * unit + 1e-7
    fresh = gameanim.load(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gameanim.PrecisionWarning)
        fresh.to_bytes(reencode="full")
