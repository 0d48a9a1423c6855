"""JBA (SWTOR skeletal animation): decoding against an independent reader
written here, byte-exact round trips, the encoder's quantisation, sampling,
and bad input.

The reader and the small writer in this file follow docs/formats/jba.md
and the research notes; they share no code with csrc/formats/jba.c."""
import math
import random
import struct
import warnings

import pytest

import gameanim
from conftest import SAMPLES, decode_or_format_error, mutation_count, mutations, sample_paths

T = gameanim.Track
ROOT = "__root_motion__"
JBA_SAMPLES = sample_paths(".jba")


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def align(p, layout):
    base = 8 if layout == 64 else 0
    return base + ((p - base + 127) // 128) * 128


def quiet_bytes(anim, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        return anim.to_bytes(**kw)


# --------------------------------------------------------------------------
# Independent reader


class Ref:
    """Everything a JBA file holds, read with struct from the layout notes."""

    def __init__(self, data):
        u32 = lambda o: struct.unpack_from("<I", data, o)[0]
        f = lambda o: struct.unpack_from("<f", data, o)[0]
        self.data = data
        if data[:4] == b"JAWB":
            self.layout = 64
            assert u32(4) == 2
            self.length, self.fps, nsec, nb = f(0x10), f(0x14), u32(0x18), u32(0x30)
            table, slot, sechdr, desc, dtc = 0x50, 8, 16, 32, 16
        else:
            self.layout = 32
            assert u32(0) == 0
            self.length, self.fps, nsec, nb = f(4), f(8), u32(0x0C), u32(0x18)
            table, slot, sechdr, desc, dtc = 0x28, 4, 8, 16, 8
        L = self.layout
        self.N = math.floor(self.length * self.fps + 0.5) + 1
        self.nbones = nb
        self.starts = [u32(table + 8 * k) for k in range(nsec)]
        self.sizes = [u32(table + 8 * k + 4) for k in range(nsec)]
        self.nframes = [
            (self.starts[k + 1] - self.starts[k] + 1) if k + 1 < nsec else self.N - self.starts[k] for k in range(nsec)
        ]
        ci = align(table + nsec * (8 + slot), L)
        self.params = [struct.unpack_from("<12f", data, ci + 48 * b) for b in range(nb)]
        self.param_offsets = [ci + 48 * b for b in range(nb)]
        pos = align(ci + 48 * nb, L)
        self.sections = []
        for k in range(nsec):
            if k:
                prev = self.sections[-1]
                pos = prev["off"] + self.sizes[k - 1] if L == 32 else align(prev["end"], L)
            assert u32(pos) == nb
            nf = self.nframes[k]
            descs = [(u32(pos + sechdr + desc * b), u32(pos + sechdr + desc * b + dtc)) for b in range(nb)]
            p = pos + sechdr + desc * nb
            bones = []
            for b, (rc, tc) in enumerate(descs):
                assert rc == nf and tc in (0, nf)
                rot = [struct.unpack_from("<3H", data, p + 6 * i) for i in range(nf)]
                rot_off = p
                p += 6 * nf
                p += -p % 4
                trans = [u32(p + 4 * i) for i in range(tc)] if tc else None
                trans_off = p if tc else None
                p += 4 * tc
                bones.append({"rot": rot, "trans": trans, "rot_off": rot_off, "trans_off": trans_off})
            self.sections.append({"off": pos, "end": p, "bones": bones})
        last = self.sections[-1]
        t = last["off"] + self.sizes[-1] if L == 32 else align(last["end"], L)
        self.traj_off = t
        if L == 32:
            self.traj_fps, tpar, trc, ttc, hdr = f(t + 4), t + 8, u32(t + 0x38), u32(t + 0x40), 0x48
        else:
            self.traj_fps, tpar, trc, ttc, hdr = f(t + 8), t + 12, u32(t + 64), u32(t + 80), 0x60
        assert trc == self.N and ttc in (0, self.N)
        self.traj_params = struct.unpack_from("<12f", data, tpar)
        p = t + hdr
        self.traj_rot = [struct.unpack_from("<3H", data, p + 6 * i) for i in range(self.N)]
        p += 6 * self.N
        p += -p % 4
        self.traj_trans = [u32(p + 4 * i) for i in range(ttc)] if ttc else None
        p += 4 * ttc
        self.traj_end = p
        self.names = None
        if nb and len(data) - p >= 4 and u32(p) == nb:
            n = nb
            strlen = u32(p + 4)
            if L == 64:
                ids, offs, dat = struct.unpack_from("<3Q", data, p + 8)
            else:
                ids, offs, dat = struct.unpack_from("<3I", data, p + 8)
            names = [None] * n
            for i in range(n):
                cid = u32(p + ids + 4 * i)
                so = u32(p + offs + 4 * i)
                s = data[p + dat + so : data.index(b"\0", p + dat + so)]
                names[cid] = s.decode("utf-8")
            self.names = names
            p = p + dat + strlen
        self.end = p

    # ---- dequantisation (the game's rule) ----

    @staticmethod
    def quat(par, codes):
        rs, rb = par[6:9], par[9:12]
        cx, cy, cz = codes
        x = rb[0] + (cx & 0x7FFF) * rs[0]
        y = rb[1] + cy * rs[1]
        z = rb[2] + cz * rs[2]
        s = x * x + y * y + z * z
        w = 0.0 if s > 1.0 else math.sqrt(1.0 - s)
        if cx & 0x8000:
            w = -w
        n = math.sqrt(s + w * w)
        return (w / n, x / n, y / n, z / n)

    @staticmethod
    def trans(par, code, rule="base"):
        ts, tb = par[0:3], par[3:6]
        if code is None:  # no keys in this section
            if rule == "base":
                return tuple(tb)
            code = 0xFFFFFFFF
        return (
            tb[0] + (code >> 21) * ts[0],
            tb[1] + ((code >> 10) & 0x7FF) * ts[1],
            tb[2] + (code & 0x3FF) * ts[2],
        )

    def channel(self, b, rule="base"):
        """(quaternions, translations) per frame; a frame shared by two
        sections takes the later section's sample."""
        qs, ts = [None] * self.N, [None] * self.N
        for k, sec in enumerate(self.sections):
            bone = sec["bones"][b]
            for i in range(self.nframes[k]):
                fr = self.starts[k] + i
                qs[fr] = self.quat(self.params[b], bone["rot"][i])
                ts[fr] = self.trans(self.params[b], bone["trans"][i] if bone["trans"] else None, rule)
        return qs, ts

    def root(self, rule="base"):
        qs = [self.quat(self.traj_params, c) for c in self.traj_rot]
        ts = [self.trans(self.traj_params, self.traj_trans[i] if self.traj_trans else None, rule) for i in range(self.N)]
        return qs, ts

    def target(self, b):
        return self.names[b] if self.names else b


def check_decoded(anim, ref, rule):
    """Every track equals the reference dequantisation (float32, 1e-7)."""
    assert len(anim.tracks) == 7 * (ref.nbones + 1)
    for b in range(ref.nbones + 1):
        qs, ts = ref.root(rule) if b == ref.nbones else ref.channel(b, rule)
        target = ROOT if b == ref.nbones else ref.target(b)
        for a in range(7):
            tr = anim.tracks[7 * b + a]
            ch = "rotation_quaternion" if a < 4 else "translation"
            assert (tr.target, tr.channel, tr.axis) == (target, ch, a if a < 4 else a - 4)
            assert list(tr.times) == [float(i) for i in range(ref.N)]
            assert set(tr.interpolation) <= {gameanim.LINEAR}
            want = [q[a] for q in qs] if a < 4 else [t[a - 4] for t in ts]
            got = list(tr.values)
            for fr, (g, w) in enumerate(zip(got, want)):
                assert abs(g - w) <= 1e-7 * max(1.0, abs(w)), (target, ch, a, fr, g, w)


# --------------------------------------------------------------------------
# Independent writer (hand-made files with chosen codes and odd bytes)


def write_jba(layout, length, fps, starts, bones, traj, names=None, *, gap=0, slot=0, size_extra=None,
              trailing=b"", header_patch=None, desc_slot=0, ids=None, sizes=None):
    """bones: list of (params12, rot[k] = [(cx, cy, cz)] * nf_k, trans[k] = [codes] or None).
    traj: (params12, rot codes N, trans codes N or None).  gap: fill byte of
    alignment gaps; slot: value of the run-time pointer slots."""
    N = math.floor(f32(length) * f32(fps) + 0.5) + 1
    nsec = len(starts)
    nb = len(bones)
    nfs = [(starts[k + 1] - starts[k] + 1) if k + 1 < nsec else N - starts[k] for k in range(nsec)]
    out = bytearray()
    L = layout

    def pad_to(n):
        out.extend(bytes([gap]) * (n - len(out)))

    if L == 32:
        out += struct.pack("<IffIIIIIII", 0, length, fps, nsec, slot, slot, nb, slot, 0x0FFFFFFF, slot)
        sechdr_fmt, dfmt = "<II", "<IIII"
    else:
        out += b"JAWB" + struct.pack("<IQffIIQQIIQQQ", 2, slot, length, fps, nsec, 0, slot, slot, nb, 0, slot,
                                       0x0FFFFFFF, slot)
        sechdr_fmt, dfmt = "<IIQ", "<IIQIIQ"
    assert len(out) == (0x28 if L == 32 else 0x50)
    if header_patch:
        for off, b in header_patch.items():
            out[off : off + len(b)] = b
    table = len(out)
    out += bytes(8 * nsec)
    out += struct.pack("<I" if L == 32 else "<Q", slot) * nsec
    pad_to(align(len(out), L))
    for par, _, _ in bones:
        out += struct.pack("<12f", *par)
    pad_to(align(len(out), L))
    for k in range(nsec):
        off = len(out)
        out += struct.pack(sechdr_fmt, nb, slot, *([slot] if L == 64 else []))
        for par, rot, trans in bones:
            tc = nfs[k] if trans[k] is not None else 0
            if L == 32:
                out += struct.pack(dfmt, nfs[k], desc_slot, tc, desc_slot)
            else:
                out += struct.pack(dfmt, nfs[k], desc_slot, desc_slot, tc, desc_slot, desc_slot)
        for par, rot, trans in bones:
            assert len(rot[k]) == nfs[k]
            for c in rot[k]:
                out += struct.pack("<3H", *c)
            out += bytes([gap]) * (-len(out) % 4)
            if trans[k] is not None:
                assert len(trans[k]) == nfs[k]
                for c in trans[k]:
                    out += struct.pack("<I", c)
        extra = size_extra[k] if size_extra else 0
        pad_to(align(len(out), L) + extra)
        size = len(out) - off if L == 32 else (sizes[k] if sizes else 1234)
        struct.pack_into("<II", out, table + 8 * k, starts[k], size)
    tpar, trot, ttrans = traj
    if L == 32:
        out += struct.pack("<If12fIIII", slot, fps, *tpar, N, slot, N if ttrans else 0, slot)
    else:
        out += struct.pack("<Qf12fIIIQIIQ", slot, fps, *tpar, slot, N, slot, slot, N if ttrans else 0, slot, slot)
    for c in trot:
        out += struct.pack("<3H", *c)
    out += bytes([gap]) * (-len(out) % 4)
    for c in ttrans or []:
        out += struct.pack("<I", c)
    if names is not None:
        n = len(names)
        order = ids if ids is not None else list(range(n))  # entry i names channel order[i]
        strings = b""
        offs = []
        for i in range(n):
            offs.append(len(strings))
            strings += names[order[i]].encode() + b"\0"
        hdr = 20 if L == 32 else 32
        if L == 32:
            out += struct.pack("<5I", n, len(strings), hdr, hdr + 4 * n, hdr + 8 * n)
        else:
            out += struct.pack("<IIQQQ", n, len(strings), hdr, hdr + 4 * n, hdr + 8 * n)
        out += struct.pack(f"<{n}I", *order) + struct.pack(f"<{n}I", *offs) + strings
    out += trailing
    return bytes(out)


# stride and base values as the file stores them (float32)
PAR_A = tuple(map(f32, (0.01, 0.02, 0.04, -10.0, 5.0, 2.0, 6.1e-5, 3.1e-5, 3.1e-5, -0.5, -0.5, -0.5)))
PAR_B = tuple(map(f32, (0.0, 0.0, 0.0, 1.5, -2.5, 30.0, 1.0e-5, 2.0e-5, 1.5e-5, -0.2, -0.3, -0.1)))
PAR_T = tuple(map(f32, (0.1, 0.2, 0.0, -50.0, -100.0, 0.0, 0.0, 0.0, 2.0e-5, 0.0, 0.0, -0.5)))


def small_file(layout=32, seam=True, **kw):
    """Two sections (frames 0..3 and 3..5 of 6), two bones; bone 1 has no
    translation keys in section 0; with seam, bone 0 has different codes in
    the two samples of the shared frame 3."""
    starts = [0, 3]
    rot0 = [[(0x8000 | 100, 200, 300), (1000, 20000, 40000), (32767, 65535, 0), (5, 6, 7) if seam else (9, 10, 11)],
            [(9, 10, 11), (12, 13, 14), (0x8000 | 15, 16, 17)]]
    tr0 = [[0xFFE00000, 0x001FFC00, 0x000003FF, 0x12345678 if seam else 0], [0, 1, 0xFFFFFFFF]]
    rot1 = [[(0, 0, 0)] * 4, [(40000 & 0x7FFF, 60000, 10), (1, 2, 3), (4, 5, 6)]]
    tr1 = [None, [7 << 21, 9 << 10, 3]]
    traj = (PAR_T, [(0, 0, c) for c in range(6)], [(i << 21) | (2 * i << 10) for i in range(6)])
    kw.setdefault("names", ["GOD", "Bip01"])
    return write_jba(layout, 5 / 30, 30.0, starts, [(PAR_A, rot0, tr0), (PAR_B, rot1, tr1)], traj, **kw)


# --------------------------------------------------------------------------
# Samples


def test_samples_cover_the_issue():
    refs = {p.name: Ref(p.read_bytes()) for p in JBA_SAMPLES}
    assert {r.layout for r in refs.values()} == {32, 64}
    assert any(len(r.starts) >= 3 for r in refs.values() if r.layout == 32)
    assert any(len(r.starts) >= 3 for r in refs.values() if r.layout == 64)
    # bones with translation keys and bones without, in both layouts
    for layout in (32, 64):
        states = {(s["bones"][b]["trans"] is None) for r in refs.values() if r.layout == layout
                  for s in r.sections for b in range(r.nbones)}
        assert states == {True, False}
    assert all(r.traj_rot for r in refs.values())  # root motion everywhere
    assert any(r.nbones == 106 and r.N == 300 for r in refs.values())
    assert any(r.layout == 64 and r.names is None for r in refs.values())
    assert any(r.layout == 32 and r.names and r.names[0] == "GOD" for r in refs.values())
    # a bone with keys in some sections and none in others, with a non-zero stride
    mixed = refs["legacy_mixed_keyless.jba"]
    assert any(
        len({s["bones"][b]["trans"] is None for s in mixed.sections}) == 2 and any(mixed.params[b][0:3])
        for b in range(mixed.nbones)
    )


@pytest.mark.parametrize("path", JBA_SAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize("rule", ["base", "base_plus_span"])
def test_samples_decode_like_the_reference(path, rule):
    data = path.read_bytes()
    anim = gameanim.load(data, keyless_rule=rule)
    ref = Ref(data)
    assert anim.format == "jba" and anim.layout == ref.layout and anim.keyless_rule == rule
    assert anim.fps == ref.fps and anim.loop is None
    assert round(anim.frame_count) + 1 == ref.N
    check_decoded(anim, ref, rule)


@pytest.mark.parametrize("path", JBA_SAMPLES, ids=lambda p: p.name)
def test_samples_round_trip_byte_exact(path):
    data = path.read_bytes()
    anim = gameanim.load(data)
    assert anim.to_bytes() == data
    # a parameter change forces the encoder; with every track unchanged it
    # must rebuild the very same bytes from what it kept
    anim.keyless_rule = "base_plus_span"
    assert anim.to_bytes() == data
    assert anim.encode_report["reused_tracks"] == len(anim.tracks)
    assert anim.encode_report["encoded_tracks"] == 0


@pytest.mark.parametrize("path", JBA_SAMPLES, ids=lambda p: p.name)
def test_requantising_decoded_values_gives_the_stored_codes(path):
    data = path.read_bytes()
    anim = gameanim.load(data)
    ref = Ref(data)
    for b in range(ref.nbones + 1):
        par = ref.traj_params if b == ref.nbones else ref.params[b]
        tr = anim.tracks[7 * b : 7 * b + 7]
        if b == ref.nbones:
            per_frame = [(0, i, ref.traj_rot[i], ref.traj_trans[i] if ref.traj_trans else None) for i in range(ref.N)]
        else:
            per_frame = [
                (k, ref.starts[k] + i, s["bones"][b]["rot"][i], s["bones"][b]["trans"][i] if s["bones"][b]["trans"] else None)
                for k, s in enumerate(ref.sections) for i in range(ref.nframes[k])
                # a shared frame decodes from the later section
                if k + 1 == len(ref.sections) or ref.starts[k] + i < ref.starts[k + 1]
            ]
        for _, fr, rc, tc in per_frame:
            w = tr[0].values[fr]
            sign = 0x8000 if math.copysign(1.0, w) < 0 else 0
            for c in range(3):
                stride, base = par[6 + c], par[9 + c]
                if stride:
                    code = round((tr[1 + c].values[fr] - base) / stride)
                    assert code == (rc[c] & 0x7FFF if c == 0 else rc[c]), (path.name, b, fr, c)
            assert rc[0] & 0x8000 == sign
            if tc is not None:
                codes = (tc >> 21, (tc >> 10) & 0x7FF, tc & 0x3FF)
                for c in range(3):
                    stride, base = par[c], par[3 + c]
                    if stride:
                        assert round((tr[4 + c].values[fr] - base) / stride) == codes[c]


def test_targets_are_names_or_channel_indices():
    named = gameanim.load(SAMPLES / "jba" / "legacy_walk.jba")
    assert named.tracks[0].target == "GOD"  # the root channel keeps its file name
    assert [t.target for t in named.tracks[::7]] == ["GOD", "Bip01", "Bip01 Pelvis", "Bip01 Spine", "Bip01 L Thigh",
                                                      "Bip01 R Thigh", ROOT]
    plain = gameanim.load(SAMPLES / "jba" / "jawb_unnamed.jba")
    assert [t.target for t in plain.tracks[::7]] == [0, 1, 2, 3, 4, ROOT]
    assert [t.channel for t in plain.tracks[:7]] == ["rotation_quaternion"] * 4 + ["translation"] * 3
    assert [t.axis for t in plain.tracks[:7]] == [0, 1, 2, 3, 0, 1, 2]


# --------------------------------------------------------------------------
# Bit layouts, hand-made files


@pytest.mark.parametrize("layout", [32, 64])
def test_bit_layouts_w_sign_and_boundary_frames(layout):
    data = small_file(layout)
    anim = gameanim.load(data)
    assert anim.layout == layout and anim.frame_count == pytest.approx(5.0) and anim.fps == 30.0
    assert [t.target for t in anim.tracks[::7]] == ["GOD", "Bip01", ROOT]
    q = lambda b, fr: tuple(anim.tracks[7 * b + a].values[fr] for a in range(4))
    tv = lambda b, fr: tuple(anim.tracks[7 * b + 4 + a].values[fr] for a in range(3))
    rs, rb = PAR_A[6:9], PAR_A[9:12]
    # frame 0: x code 100 with bit 15 set -> w negative
    x, y, z = rb[0] + 100 * rs[0], rb[1] + 200 * rs[1], rb[2] + 300 * rs[2]
    w = -math.sqrt(1 - x * x - y * y - z * z)
    assert q(0, 0) == pytest.approx((w, x, y, z), abs=1e-7)
    assert q(0, 0)[0] < 0
    # frame 2: codes at their maximum; x^2+y^2+z^2 > 1, so w = 0 and the vector is normalised
    x, y, z = rb[0] + 32767 * rs[0], rb[1] + 65535 * rs[1], rb[2]
    n = math.sqrt(x * x + y * y + z * z)
    assert n > 1
    assert q(0, 2) == pytest.approx((0.0, x / n, y / n, z / n), abs=1e-7)
    # translations: x in bits 21..31, y in bits 10..20, z in bits 0..9
    ts, tb = PAR_A[0:3], PAR_A[3:6]
    assert tv(0, 0) == pytest.approx((tb[0] + 2047 * ts[0], tb[1], tb[2]), abs=1e-5)
    assert tv(0, 1) == pytest.approx((tb[0], tb[1] + 2047 * ts[1], tb[2]), abs=1e-5)
    assert tv(0, 2) == pytest.approx((tb[0], tb[1], tb[2] + 1023 * ts[2]), abs=1e-5)
    # frame 3 is in both sections: the later section's sample wins
    rs_b = PAR_A[6:9]
    assert q(0, 3)[1] == pytest.approx(rb[0] + 9 * rs_b[0], abs=1e-6)
    assert tv(0, 3) == pytest.approx(tb, abs=1e-6)
    # bone 1 has no translation keys in section 0 (frames 0..2; frame 3 comes from section 1)
    tsb, tbb = PAR_B[0:3], PAR_B[3:6]
    for fr in range(3):
        assert tv(1, fr) == pytest.approx(tbb, abs=1e-6)
    assert tv(1, 3) == pytest.approx((tbb[0] + 7 * tsb[0], tbb[1], tbb[2]), abs=1e-6)
    check_decoded(anim, Ref(data), "base")
    check_decoded(gameanim.load(data, keyless_rule="base_plus_span"), Ref(data), "base_plus_span")


KEYLESS_PAR = (0.5, 0.25, 0.125, 1.0, 2.0, 3.0, 0, 0, 0, 0, 0, 0)


def seam_file(rule):
    """One bone, sections 0..3 and 3..5; no translation keys in section 0,
    keys in section 1 whose first sample (the shared frame 3) is continuous
    with section 0 under `rule`."""
    first = 0 if rule == "base" else 0xFFFFFFFF
    bones = [(KEYLESS_PAR, [[(0, 0, 0)] * 4, [(0, 0, 0)] * 3], [None, [first, (5 << 21) | (6 << 10) | 7, first]])]
    traj = ((0,) * 12, [(0, 0, 0)] * 6, [0] * 6)
    return write_jba(32, 5 / 30, 30.0, [0, 3], bones, traj, names=["b"])


@pytest.mark.parametrize("rule", ["base", "base_plus_span"])
def test_jump_frames_are_where_the_copies_differ_under_the_rule_read_with(rule):
    """seam_file(rule) is continuous at frame 3 under `rule` only."""
    other = "base_plus_span" if rule == "base" else "base"
    data = seam_file(rule)
    assert gameanim.load(data, keyless_rule=rule).info["jump_frames"] == b""
    assert gameanim.load(data, keyless_rule=other).info["jump_frames"] == struct.pack("<I", 3)


def test_keyless_rule_option():
    data = seam_file("base")
    base = gameanim.load(data)
    span = gameanim.load(data, keyless_rule="base_plus_span")
    assert base.keyless_rule == "base" and span.keyless_rule == "base_plus_span"
    tb, ts = KEYLESS_PAR[3:6], KEYLESS_PAR[0:3]
    for a in range(3):
        assert list(base.tracks[4 + a].values[:3]) == [tb[a]] * 3
        full = tb[a] + (2047, 2047, 1023)[a] * ts[a]
        assert list(span.tracks[4 + a].values[:3]) == [full] * 3
        assert base.tracks[4 + a].values[3:] == span.tracks[4 + a].values[3:]  # frames with keys: same
    check_decoded(base, Ref(data), "base")
    check_decoded(span, Ref(data), "base_plus_span")
    with pytest.raises(ValueError, match="keyless_rule"):
        gameanim.load(data, keyless_rule="span")


@pytest.mark.parametrize("rule", ["base", "base_plus_span"])
def test_keyless_sections_stay_keyless_after_an_edit(rule):
    """An edit inside section 1 re-encodes the channel; section 0 still holds
    exactly the keyless value of the rule in use, so it keeps no keys."""
    data = seam_file(rule)
    anim = gameanim.load(data, keyless_rule=rule)
    t = anim.tracks[4]
    vals = list(t.values)
    vals[4] += 1.0  # frame 4 is only in section 1
    t.values = vals
    out = anim.to_bytes()
    ref = Ref(out)
    assert ref.sections[0]["bones"][0]["trans"] is None
    assert ref.params[0] == KEYLESS_PAR  # stored stride and base still cover the data
    assert ref.sections[1]["bones"][0]["trans"][1] == (7 << 21) | (6 << 10) | 7
    assert [list(x.values) for x in gameanim.load(out, keyless_rule=rule).tracks] == [
        list(x.values) for x in anim.tracks]
    # read with the other rule, the seam is broken: section 0 gets keys on re-encoding
    other = "base" if rule == "base_plus_span" else "base_plus_span"
    anim = gameanim.load(data, keyless_rule=other)
    anim.tracks[4].values = list(anim.tracks[4].values[:4]) + vals[4:]
    ref = Ref(quiet_bytes(anim))
    assert ref.sections[0]["bones"][0]["trans"] is not None


@pytest.mark.parametrize("layout", [32, 64])
def test_kept_bytes_survive_a_rebuild(layout):
    """Non-zero padding and pointer slots, a different marker, a section
    size with an extra 128 bytes (32-bit) or an arbitrary one (64-bit),
    permuted name ids and trailing bytes all come back from the encoder."""
    kw = dict(gap=0xAB, slot=0x11, desc_slot=0x22, trailing=b"TRAILER\x01", ids=[1, 0])
    if layout == 32:
        kw["size_extra"] = [128, 0]
        kw["header_patch"] = {0x20: struct.pack("<I", 0x0BADBEEF)}
    else:
        kw["sizes"] = [0x1111, 0x2222]
    data = small_file(layout, **kw)
    anim = gameanim.load(data)
    assert [t.target for t in anim.tracks[::7]] == ["GOD", "Bip01", ROOT]
    assert anim.info["nonzero_padding_bytes"] > 0 and anim.info["trailing_bytes"] == 8
    check_decoded(anim, Ref(data), "base")
    anim.keyless_rule = "base_plus_span"  # forces the encoder, changes no bytes
    assert anim.to_bytes() == data
    # layout change and back: the other layout's defaults, then ours again
    anim.layout = 96 - layout
    other = anim.to_bytes()
    back = gameanim.load(other)
    assert back.layout == 96 - layout
    assert [list(t.values) for t in back.tracks] == [list(t.values) for t in anim.tracks]


def test_rebuild_of_one_bone_keeps_other_sections_and_padding():
    """Editing one frame of one bone re-encodes that bone only; sections the
    edit does not reach keep their bytes, padding included."""
    data = small_file(32, seam=False, gap=0x5A)
    anim = gameanim.load(data)
    t = anim.tracks[4]  # GOD translation x
    vals = list(t.values)
    vals[4] = vals[4] + 0.03  # inside the stored range: stored stride and base are kept
    t.values = vals
    out = quiet_bytes(anim)
    a, b = Ref(data), Ref(out)
    assert a.params == b.params
    s0a, s0b = a.sections[0], b.sections[0]
    assert data[s0a["off"] : a.sections[1]["off"]] == out[s0b["off"] : b.sections[1]["off"]]
    ta, tb = a.sections[1]["bones"][0]["trans"], b.sections[1]["bones"][0]["trans"]
    assert (tb[0], tb[2]) == (ta[0], ta[2]) and tb[1] == ta[1] + (3 << 21)
    assert a.sections[1]["bones"][1] == b.sections[1]["bones"][1]
    assert out[b.traj_off :] == data[a.traj_off :]


# --------------------------------------------------------------------------
# Edits and new files


def test_partial_edit_keeps_every_unchanged_track():
    path = SAMPLES / "jba" / "legacy_humanoid_106x300.jba"
    data = path.read_bytes()
    anim = gameanim.load(data)
    bone = 13  # a bone with translation keys
    tr = anim.tracks[7 * bone + 4]
    ref = Ref(data)
    assert all(s["bones"][bone]["trans"] is not None for s in ref.sections)
    vals = list(tr.values)
    vals[100] += 0.3
    tr.values = vals
    out = anim.to_bytes()
    rep = anim.encode_report
    assert rep["encoded_tracks"] == 3 and rep["reused_tracks"] == len(anim.tracks) - 3
    new = Ref(out)
    assert len(out) == len(data)
    for b in range(ref.nbones):
        if b == bone:
            continue
        assert new.params[b] == ref.params[b]
        for sa, sb in zip(ref.sections, new.sections):
            assert sa["bones"][b] == sb["bones"][b]
    # the edited bone: rotations untouched; translations re-quantised with the
    # stored stride and base, so every other frame keeps its code
    assert new.params[bone] == ref.params[bone]
    changed = []
    for k, (sa, sb) in enumerate(zip(ref.sections, new.sections)):
        assert sa["bones"][bone]["rot"] == sb["bones"][bone]["rot"]
        for i, (ca, cb) in enumerate(zip(sa["bones"][bone]["trans"], sb["bones"][bone]["trans"])):
            if ca != cb:
                changed.append(ref.starts[k] + i)
    assert changed == [100]
    _, ts = new.channel(bone)
    step = new.params[bone][0]
    assert abs(ts[100][0] - vals[100]) <= step / 2 + 1e-5
    assert rep["max_error"] == pytest.approx(max(
        abs(f32(t[a]) - v) for a in range(3) for t, v in zip(ts, anim.tracks[7 * bone + 4 + a].values)), abs=1e-9)
    assert gameanim.load(out).tracks[7 * bone + 4].values[100] == pytest.approx(vals[100], abs=step / 2 + 1e-5)


def test_an_untouched_frame_keeps_a_code_whose_w_was_rebuilt_as_zero():
    # x = 1 and y > 0 (a half turn, as round() quantisation can store it):
    # x^2 + y^2 + z^2 > 1, so the reader sets w = 0 and normalises.  An edit
    # of another frame of the channel must not move that frame's code.
    par = tuple(map(f32, (0, 0, 0, 0, 0, 0, 1 / 32767, 1 / 65535, 1 / 65535, 0, 0, 0)))
    over = (32767, 30, 0)
    codes = [(0, 0, 0), over, (16000, 0, 0)]
    data = write_jba(32, f32(2 / 30), 30.0, [0], [(par, [codes], [None])], (par, [(0, 0, 0)] * 3, None),
                     names=["b"])
    anim = gameanim.load(data)
    w = anim.find("b", "rotation_quaternion", 0)
    assert w.values[1] == 0.0  # the reader's rebuilt w
    vals = list(w.values)
    vals[2] *= 0.999
    w.values = vals
    new = Ref(quiet_bytes(anim))
    old = Ref(data)
    assert new.params[0] == old.params[0]
    got = new.sections[0]["bones"][0]["rot"]
    assert got[0] == codes[0] and got[1] == over
    assert got[2] != codes[2]


def smooth_clip(n_frames, bones, seed=1, constant=()):
    rng = random.Random(seed)
    tracks = []
    for name in bones:
        ax = [rng.uniform(-1, 1) for _ in range(3)]
        amp, ph = rng.uniform(0.2, 2.5), rng.uniform(0, 6)
        n = math.sqrt(sum(c * c for c in ax))
        qs = []
        for f in range(n_frames):
            a = amp * math.sin(0.07 * f + ph)
            s = math.sin(a / 2)
            qs.append((math.cos(a / 2), ax[0] / n * s, ax[1] / n * s, ax[2] / n * s))
        times = list(range(n_frames))
        for a in range(4):
            tracks.append(T(name, "rotation_quaternion", a, times, [q[a] for q in qs]))
        for a in range(3):
            if name in constant:
                vals = [2.5 * (a + 1)] * n_frames
            else:
                base, amp2 = rng.uniform(-30, 30), rng.uniform(1, 40)
                vals = [base + amp2 * math.sin(0.05 * f * (a + 1) + ph) for f in times]
            tracks.append(T(name, "translation", a, times, vals))
    return tracks


@pytest.mark.parametrize("layout", [32, 64])
def test_new_file_quantisation_and_layout(layout):
    nf = 150
    tracks = smooth_clip(nf, ["GOD", "Bip01", "Bip01 Spine", "prop"], constant=("prop",))
    anim = gameanim.Animation("jba", tracks, frame_count=nf - 1, fps=30.0, layout=layout)
    out = anim.to_bytes()
    rep = anim.encode_report
    assert rep["encoded_tracks"] == len(tracks) and rep["reused_tracks"] == 0
    ref = Ref(out)
    assert ref.layout == layout and ref.N == nf and ref.fps == 30.0
    assert ref.names == ["GOD", "Bip01", "Bip01 Spine", "prop"]
    # sections of at most 32 frame steps, split evenly, 128-byte aligned
    nsec = math.ceil((nf - 1) / 32)
    assert ref.starts == [k * (nf - 1) // nsec for k in range(nsec)]
    base = 8 if layout == 64 else 0
    for k, s in enumerate(ref.sections):
        assert (s["off"] - base) % 128 == 0
        hdr, dsc = (8, 16) if layout == 32 else (16, 32)
        legacy = -(-(8 + 16 * ref.nbones + (s["end"] - s["off"] - hdr - dsc * ref.nbones)) // 128) * 128
        assert ref.sizes[k] == (legacy if layout == 64 else align(s["end"], 32) - s["off"])
    assert (ref.traj_off - base) % 128 == 0 and ref.end == len(out)
    worst_rot = worst_trans = 0.0
    for b in range(ref.nbones + 1):
        par = ref.traj_params if b == ref.nbones else ref.params[b]
        qs, ts = ref.root() if b == ref.nbones else ref.channel(b)
        given = [tracks[7 * b + a].values if b < ref.nbones else None for a in range(7)]
        if b == ref.nbones:
            continue
        for c, bits in zip(range(3), (15, 16, 16)):
            vals = given[1 + c]
            stride, bse = par[6 + c], par[9 + c]
            assert bse <= min(vals) and bse + (2 ** bits - 1) * stride >= max(vals) - 1e-7
            assert stride == pytest.approx((max(vals) - min(vals)) / (2 ** bits - 1), rel=1e-5)
        for c, bits in zip(range(3), (11, 11, 10)):
            vals = given[4 + c]
            stride, bse = par[c], par[3 + c]
            if len(set(vals)) == 1:
                assert stride == 0 and bse == vals[0]
                continue
            assert bse <= min(vals) and bse + (2 ** bits - 1) * stride >= max(vals)
            assert stride == pytest.approx((max(vals) - min(vals)) / (2 ** bits - 1), rel=1e-5)
            for t, v in zip(ts, vals):
                assert abs(f32(t[c]) - v) <= stride / 2 * (1 + 1e-6) + 1e-6 * abs(v)
        for fr in range(nf):
            for a in range(4):
                worst_rot = max(worst_rot, abs(f32(qs[fr][a]) - given[a][fr]))
            for a in range(3):
                worst_trans = max(worst_trans, abs(f32(ts[fr][a]) - given[4 + a][fr]))
    # the constant bone has no translation keys anywhere
    assert all(s["bones"][3]["trans"] is None for s in ref.sections)
    assert all(s["bones"][0]["trans"] is not None for s in ref.sections)
    assert 0 < worst_rot < 1e-3  # well inside the documented normal bound (0.02)
    assert rep["max_error"] == pytest.approx(max(worst_rot, worst_trans), abs=1e-12)
    assert rep["notes"] == []
    check_decoded(gameanim.load(out), ref, "base")


def test_negative_w_and_hemisphere_are_kept():
    nf = 20
    qs = []
    for f in range(nf):
        a = 0.05 * f
        q = (math.cos(a), 0.0, math.sin(a), 0.0)
        qs.append(q if f % 2 == 0 else tuple(-c for c in q))  # every other key in the far hemisphere
    tr = [T("b", "rotation_quaternion", a, list(range(nf)), [q[a] for q in qs]) for a in range(4)]
    out = gameanim.Animation("jba", tr, frame_count=nf - 1, fps=30.0).to_bytes()
    ref = Ref(out)
    codes = [c for s in ref.sections for c in s["bones"][0]["rot"]]
    assert [bool(c[0] & 0x8000) for c in codes] == [f % 2 == 1 for f in range(nf)]
    back = gameanim.load(out)
    for fr in range(nf):
        for a in range(4):
            assert back.tracks[a].values[fr] == pytest.approx(qs[fr][a], abs=2e-4)


def test_tracks_off_the_frame_grid_are_sampled_at_whole_frames():
    tr = [
        T("b", "rotation_quaternion", 0, [0.0], [1.0]),
        T("b", "translation", 0, [0.0, 2.5, 10.0], [0.0, 5.0, 20.0]),
        T("b", "translation", 1, [0.5, 9.5], [1.0, 3.0], [0.0, 0.0], [0.0, 0.0], interpolation=gameanim.BEZIER),
    ]
    anim = gameanim.Animation("jba", tr, frame_count=10.0, fps=30.0)
    out = anim.to_bytes()
    back = gameanim.load(out)
    ref = Ref(out)
    assert ref.N == 11
    x = back.find("b", "translation", 0)
    y = back.find("b", "translation", 1)
    z = back.find("b", "translation", 2)
    w = back.find("b", "rotation_quaternion", 0)
    step = ref.params[0][0]
    for fr in range(11):
        want = fr * 2.0  # the piecewise line through (0,0), (2.5,5), (10,20)
        assert abs(x.values[fr] - want) <= step / 2 + 1e-5
        u = min(max((fr - 0.5) / 9.0, 0.0), 1.0)
        want_y = 1.0 + 2.0 * (3 * u * u - 2 * u ** 3)  # Hermite with zero slopes
        assert abs(y.values[fr] - want_y) <= ref.params[0][1] / 2 + 1e-5
        assert z.values[fr] == 0.0 and w.values[fr] == 1.0  # missing tracks: channel defaults


def test_layout_conversion_round_trip():
    data = (SAMPLES / "jba" / "legacy_walk.jba").read_bytes()
    anim = gameanim.load(data)
    anim.layout = 64
    wide = anim.to_bytes()
    assert wide[:8] == b"JAWB\x02\x00\x00\x00"
    a64 = gameanim.load(wide)
    assert [list(t.values) for t in a64.tracks] == [list(t.values) for t in anim.tracks]
    r32, r64 = Ref(data), Ref(wide)
    assert r64.params == r32.params and r64.starts == r32.starts
    assert r64.sizes == r32.sizes  # 64-bit files carry the 32-bit section sizes
    for sa, sb in zip(r32.sections, r64.sections):
        assert [(b["rot"], b["trans"]) for b in sa["bones"]] == [(b["rot"], b["trans"]) for b in sb["bones"]]
    a64.layout = 32
    assert a64.to_bytes() == data
    assert (SAMPLES / "jba" / "jawb_walk.jba").read_bytes() == wide


def test_frame_count_and_fps_edits():
    data = (SAMPLES / "jba" / "legacy_walk.jba").read_bytes()
    anim = gameanim.load(data)
    assert anim.frame_count == 99.0 and anim.fps == 30.0
    anim.fps = 15.0  # same frames, new rate: only the timing fields change
    out = anim.to_bytes()
    r = Ref(out)
    assert r.fps == 15.0 and r.N == 100 and r.traj_fps == 15.0
    assert f32(r.length) == f32(99.0 / 15.0)
    a = Ref(data)
    assert [[(x["rot"], x["trans"]) for x in s["bones"]] for s in a.sections] == [
        [(x["rot"], x["trans"]) for x in s["bones"]] for s in r.sections]
    assert r.params == a.params and r.traj_rot == a.traj_rot
    # fewer frames: everything is sampled again over the new frame range
    anim = gameanim.load(data)
    anim.frame_count = 49.0
    out = quiet_bytes(anim)
    r = Ref(out)
    assert r.N == 50 and r.starts == [0, 24]
    back = gameanim.load(out)
    for t0, t1 in zip(anim.tracks, back.tracks):
        assert len(t1.values) == 50
        tol = 0.02 if t0.channel == "rotation_quaternion" else 0.05
        assert max(abs(p - q) for p, q in zip(t0.values[:50], t1.values)) <= tol


def test_keys_after_the_last_frame_are_reported():
    tr = [T("b", "translation", 0, [0, 5, 10], [0.0, 1.0, 2.0])]
    anim = gameanim.Animation("jba", tr, frame_count=5.0, fps=30.0)
    with pytest.warns(gameanim.PrecisionWarning, match="after frame 5"):
        anim.to_bytes()


def test_non_unit_quaternion_is_normalised_and_reported():
    tr = [T("b", "rotation_quaternion", a, [0, 1], [2.0 if a == 0 else 0.0, 0.5 if a == 0 else 0.0]) for a in range(4)]
    anim = gameanim.Animation("jba", tr, frame_count=1.0, fps=30.0)
    with pytest.warns(gameanim.PrecisionWarning, match="rotation is off by up to"):
        out = anim.to_bytes()
    assert anim.encode_report["max_error"] == pytest.approx(1.0, abs=1e-6)  # 2 -> 1
    back = gameanim.load(out)
    assert list(back.tracks[0].values) == [1.0, 1.0]


def test_encode_errors():
    ok = [T("b", "translation", 0, [0, 1], [0.0, 1.0])]
    with pytest.raises(gameanim.EncodeError, match="fps"):
        gameanim.Animation("jba", ok, frame_count=1.0).to_bytes()
    with pytest.raises(gameanim.EncodeError, match="only rotation_quaternion and translation"):
        gameanim.Animation("jba", [T("b", "scale", 0, [0], [1.0])], frame_count=1.0, fps=30.0).to_bytes()
    with pytest.raises(gameanim.EncodeError, match="all names or all channel indices"):
        gameanim.Animation("jba", ok + [T(3, "translation", 0, [0], [0.0])], frame_count=1.0, fps=30.0).to_bytes()
    with pytest.raises(gameanim.EncodeError, match="both animate bone 'b' translation x"):
        gameanim.Animation("jba", ok + ok, frame_count=1.0, fps=30.0).to_bytes()
    zero = [T("b", "rotation_quaternion", a, [0], [0.0]) for a in range(4)]
    with pytest.raises(gameanim.EncodeError, match="zero"):
        gameanim.Animation("jba", zero, frame_count=1.0, fps=30.0).to_bytes()
    nan = [T("b", "translation", 0, [0, 1], [0.0, float("nan")])]
    with pytest.raises(gameanim.EncodeError, match="finite"):
        gameanim.Animation("jba", nan, frame_count=1.0, fps=30.0).to_bytes()
    with pytest.raises(gameanim.EncodeError, match="frame count"):
        gameanim.Animation("jba", ok, frame_count=-1.0, fps=30.0).to_bytes()


def test_root_motion_only_clip_and_index_targets():
    rm = [T(ROOT, "translation", 1, [0, 1, 2], [0.0, -4.0, -8.0])]
    out = gameanim.Animation("jba", rm, frame_count=2.0, fps=30.0, layout=64).to_bytes()
    ref = Ref(out)
    assert ref.nbones == 0 and ref.names is None
    assert [t[1] for t in ref.root()[1]] == pytest.approx([0.0, -4.0, -8.0], abs=0.01)
    idx = [T(2, "translation", 0, [0, 1], [1.0, 2.0])]
    out = gameanim.Animation("jba", idx, frame_count=1.0, fps=30.0).to_bytes()
    back = gameanim.load(out)
    assert [t.target for t in back.tracks[::7]] == [0, 1, 2, ROOT]  # channels 0, 1 hold identity
    assert list(back.tracks[0].values) == [1.0, 1.0] and list(back.tracks[18].values) == [1.0, 2.0]


# --------------------------------------------------------------------------
# Sampling


def nlerp(q0, q1, a):
    if sum(x * y for x, y in zip(q0, q1)) < 0:
        q1 = [-x for x in q1]
    q = [x * (1 - a) + y * a for x, y in zip(q0, q1)]
    n = math.sqrt(sum(x * x for x in q))
    return [x / n for x in q]


def test_sample_nlerps_quaternions_and_lerps_translations():
    anim = gameanim.load(SAMPLES / "jba" / "legacy_walk.jba")
    frames = [0.0, 0.25, 3.5, 31.999, 32.0, 32.5, 50.75, 98.5, 99.0]
    out = anim.sample(frames)
    nt, nfr = len(anim.tracks), len(frames)
    for b in range(nt // 7):
        tr = anim.tracks[7 * b : 7 * b + 7]
        for j, fr in enumerate(frames):
            i0 = math.floor(fr)
            a = fr - i0
            if a == 0:
                want = [tr[k].values[i0] for k in range(7)]
            else:
                q = nlerp([tr[k].values[i0] for k in range(4)], [tr[k].values[i0 + 1] for k in range(4)], a)
                t = [tr[4 + k].values[i0] * (1 - a) + tr[4 + k].values[i0 + 1] * a for k in range(3)]
                want = q + t
            got = [out[(7 * b + k) * nfr + j] for k in range(7)]
            if a == 0:
                assert got == want  # exact at whole frames
            else:
                for g, w in zip(got, want):
                    assert abs(g - w) <= 1e-6 * max(1.0, abs(w))  # float32 results


def test_sample_takes_the_shortest_path():
    q0 = (math.cos(0.2), math.sin(0.2), 0.0, 0.0)
    q1 = tuple(-c for c in (math.cos(0.4), math.sin(0.4), 0.0, 0.0))  # same rotation family, far hemisphere
    tr = [T("b", "rotation_quaternion", a, [0, 1], [q0[a], q1[a]]) for a in range(4)]
    anim = gameanim.Animation("jba", tr, frame_count=1.0, fps=30.0)
    got = list(anim.sample([0.5]))
    want = nlerp(q0, q1, 0.5)
    assert got == pytest.approx(want, abs=1e-6)
    assert got[0] == pytest.approx(math.cos(0.3), abs=1e-6)  # halfway between 0.4 and 0.8 rad
    naive = [(x + y) / 2 for x, y in zip(q0, q1)]
    assert abs(got[0] - naive[0] / math.sqrt(sum(c * c for c in naive))) > 0.5
    # outside the keys: held
    assert list(anim.sample([-3.0, 7.5])) == [f32(q0[0]), f32(q1[0]), f32(q0[1]), f32(q1[1]), 0.0, 0.0, 0.0, 0.0]


def section_sample(ref, b, fr, rule="base"):
    """The game's value of bone b at a fractional frame: it interpolates
    inside the section that holds both whole frames around fr (the earlier
    section's own copy of a shared frame), nlerp / lerp, in float32 like
    the clip's values."""
    i0 = math.floor(fr)
    k = max(k for k in range(len(ref.starts)) if ref.starts[k] <= i0)
    bone = ref.sections[k]["bones"][b]
    par = ref.params[b]

    def at(i):
        q = ref.quat(par, bone["rot"][i - ref.starts[k]])
        t = ref.trans(par, bone["trans"][i - ref.starts[k]] if bone["trans"] else None, rule)
        return [f32(x) for x in q], [f32(x) for x in t]

    (q0, t0), (q1, t1) = at(i0), at(i0 + 1)
    a = fr - i0
    return nlerp(q0, q1, a) + [x * (1 - a) + y * a for x, y in zip(t0, t1)]


@pytest.mark.parametrize("rule", ["base", "base_plus_span"])
@pytest.mark.parametrize("layout", [32, 64])
def test_sample_before_a_shared_frame_reaches_the_earlier_sections_copy(layout, rule):
    """Frame 3 is in both sections of small_file with different codes (and
    bone 1 has no translation keys in section 0): between frames 2 and 3 the
    game interpolates inside section 0, towards section 0's copy; from 3 on
    inside section 1.  An edited bone has one value per frame (the value an
    encode writes into both copies) and is sampled from it."""
    data = small_file(layout)
    ref = Ref(data)
    anim = gameanim.load(data, keyless_rule=rule)
    frames = [1.5, 2.25, 2.5, 2.999, 3.0, 3.5, 4.75]
    out = anim.sample(frames)
    nf = len(frames)
    for b in range(2):
        for j, fr in enumerate(frames):
            got = [out[(7 * b + s) * nf + j] for s in range(7)]
            want = section_sample(ref, b, fr, rule)
            if fr == 3.0:
                qs, ts = ref.channel(b, rule)
                want = list(qs[3]) + list(ts[3])  # a whole frame: the later section's copy, as the clip holds
            assert got == pytest.approx(want, abs=2e-6), (b, fr)
    # info names the frames where the copies differ (bone 0's codes at frame 3)
    assert anim.info["jump_frames"] == struct.pack("<I", 3)
    # the two copies differ, so this is not what the clip's own keys give
    qs, ts = ref.channel(0, rule)
    assert abs(out[4 * nf + 2] - (ts[2][0] + ts[3][0]) / 2) > 1e-3
    # Track objects taken out and put back unchanged: still the file's copies
    anim.tracks = [t.copy() for t in anim.tracks]
    assert list(anim.sample(frames)) == list(out)
    # an edited bone 0: its own values on both sides; bone 1 untouched
    t = anim.tracks[4]
    vals = list(t.values)
    vals[0] += 0.5
    anim.tracks[4] = gameanim.Track(t.target, t.channel, t.axis, t.times, vals)
    edited = anim.sample([2.5])
    v2, v3 = anim.tracks[4].values[2], anim.tracks[4].values[3]
    assert edited[4] == pytest.approx((v2 + v3) / 2, abs=1e-6)
    assert edited[7 + 4] == pytest.approx(out[11 * nf + 2], abs=0)


@pytest.mark.parametrize("rule", ["base", "base_plus_span"])
@pytest.mark.parametrize("layout", [32, 64])
def test_an_edit_elsewhere_keeps_the_earlier_copy_of_a_jump(layout, rule):
    """small_file's bone 0 has different codes in the two copies of frame 3.
    Editing frame 1 re-encodes the bone; the untouched frame 3 keeps BOTH
    copies (the earlier one is what the game reaches between frames 2 and
    3), so the file still jumps there.  An edit of frame 3 itself puts the
    new value into both copies."""
    data = small_file(layout)
    ref = Ref(data)
    old0, old1 = ref.sections[0]["bones"][0], ref.sections[1]["bones"][0]
    assert old0["rot"][3] != old1["rot"][0] and old0["trans"][3] != old1["trans"][0]
    anim = gameanim.load(data, keyless_rule=rule)
    qs, ts = ref.channel(0, rule)
    for s in range(5):  # frame 1 takes frame 0's rotation and translation x
        vals = list(anim.tracks[s].values)
        vals[1] = vals[0]
        anim.tracks[s].values = vals
    out = quiet_bytes(anim)
    new = Ref(out)
    assert new.params[0] == ref.params[0]  # the stored ranges still hold the data
    b0, b1 = new.sections[0]["bones"][0], new.sections[1]["bones"][0]
    assert b0["rot"][1] == old0["rot"][0] and b0["trans"][1] >> 21 == old0["trans"][0] >> 21  # the edit
    assert b0["rot"][3] == old0["rot"][3] and b0["trans"][3] == old0["trans"][3]  # the earlier copy
    assert b1["rot"][0] == old1["rot"][0] and b1["trans"][0] == old1["trans"][0]  # the later copy
    back = gameanim.load(out, keyless_rule=rule)
    assert back.info["jump_frames"] == struct.pack("<I", 3)
    for b in range(2):
        want = section_sample(new, b, 2.5, rule)
        got = back.sample([2.5])[7 * b:7 * b + 7]
        assert list(got) == pytest.approx(want, abs=2e-6)
    # an edit of the shared frame itself: one value, in both copies
    vals = list(anim.tracks[4].values)
    vals[3] = vals[0]
    anim.tracks[4].values = vals
    new = Ref(quiet_bytes(anim))
    assert new.sections[0]["bones"][0]["trans"][3] == new.sections[1]["bones"][0]["trans"][0]
    assert new.sections[0]["bones"][0]["trans"][3] >> 21 == old0["trans"][0] >> 21 != old1["trans"][0] >> 21
    assert new.sections[0]["bones"][0]["rot"][3] == old0["rot"][3]  # (rotation untouched there)


# --------------------------------------------------------------------------
# Bad input


def expect_error(data, field, legacy_header=False):
    """A FormatError naming the field.  A legacy file has no magic: damage
    to the header fields its detection checks makes it no JBA at all."""
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(data)
    if legacy_header:
        assert "not a recognised animation file" in str(e.value)
        return e.value
    assert e.value.format == "jba" and field in str(e.value), str(e.value)
    assert str(e.value).startswith("jba: field '")
    return e.value


def patch(data, off, fmt, *vals):
    b = bytearray(data)
    struct.pack_into(fmt, b, off, *vals)
    return bytes(b)


@pytest.mark.parametrize("layout", [32, 64])
def test_malformed_files_raise_format_error(layout):
    data = small_file(layout)
    r = Ref(data)
    f_fps, f_len, f_nsec, f_nb, tab = (0x08, 0x04, 0x0C, 0x18, 0x28) if layout == 32 else (0x14, 0x10, 0x18, 0x30, 0x50)
    lh = layout == 32
    expect_error(patch(data, f_fps, "<f", 0.0), "fps", lh)
    expect_error(patch(data, f_fps, "<f", float("nan")), "fps", lh)
    expect_error(patch(data, f_len, "<f", -1.0), "length", lh)
    e = expect_error(patch(data, f_len, "<f", 1e30), "length", lh)
    assert lh or "limit" in str(e)
    expect_error(patch(data, f_nsec, "<I", 0), "section count", lh)
    expect_error(patch(data, f_nsec, "<I", 0x7FFFFFFF), "section count", lh)
    expect_error(patch(data, f_nb, "<I", 0xFFFFFFF), "bone count", lh)
    expect_error(patch(data, tab, "<I", 1), "section start frame", lh)
    expect_error(patch(data, tab + 8, "<I", 0), "section start frame", lh)
    expect_error(patch(data, tab + 8, "<I", 6), "section start frame", lh)
    expect_error(patch(data, r.param_offsets[1] + 4, "<f", float("inf")), "channel info")
    s0 = r.sections[0]["off"]
    expect_error(patch(data, s0, "<I", 3), "section bone count", lh)
    sechdr, desc, dtc = (8, 16, 8) if layout == 32 else (16, 32, 16)
    expect_error(patch(data, s0 + sechdr, "<I", 5), "rotation key count")
    expect_error(patch(data, s0 + sechdr + dtc, "<I", 2), "translation key count")
    if layout == 32:
        expect_error(patch(data, tab + 4, "<I", 16), "section size", True)
        expect_error(patch(data, tab + 4, "<I", r.sizes[0] + 4), "section size", True)
        # a size that is aligned but too small for the data: detected, then rejected
        walk = (SAMPLES / "jba" / "legacy_walk.jba").read_bytes()
        assert Ref(walk).sizes[0] > 128
        e = expect_error(patch(walk, tab + 4, "<I", 128), "section size")
        assert "its data takes" in str(e)
    t = r.traj_off
    expect_error(patch(data, t + (0x38 if layout == 32 else 64), "<I", 5), "trajectory rotation key count")
    expect_error(patch(data, t + (0x40 if layout == 32 else 80), "<I", 2), "trajectory translation key count")
    n = r.traj_end
    expect_error(patch(data, n + 8, "<I", 99), "name table offsets")
    ids = n + (20 if layout == 32 else 32)
    expect_error(patch(data, ids, "<I", 7), "name table ids")
    expect_error(patch(data, ids + 4, "<I", 0), "name table ids")
    expect_error(patch(data, ids + 8, "<I", 100), "name table string offset")
    expect_error(data[:-1], "name table strings")
    expect_error(data[: r.traj_off + 10], "trajectory header")
    expect_error(data[: r.sections[1]["off"] + 3], "section 1 header")
    dup = small_file(layout, names=["GOD", "GOD"])
    expect_error(dup, "name table string")
    reserved = small_file(layout, names=["GOD", ROOT])
    assert "reserved" in str(expect_error(reserved, "name table string"))
    # a translation far beyond float range
    big = write_jba(layout, 0.0, 30.0, [0], [((3e38, 0, 0, 3e38, 0, 0) + (0,) * 6, [[(0, 0, 0)]], [[0xFFFFFFFF]])],
                    ((0,) * 12, [(0, 0, 0)], [0]), names=["b"])
    assert "overflows" in str(expect_error(big, "translation"))


def test_jawb_version_and_header_errors():
    data = small_file(64)
    e = expect_error(patch(data, 4, "<I", 3), "version")
    assert "JAWB version 3" in str(e)
    legacy = small_file(32)
    assert gameanim.detect(legacy) == ("jba", None) and gameanim.detect(data) == ("jba", None)
    with pytest.raises(gameanim.FormatError):
        gameanim.load(patch(legacy, 0, "<I", 1))  # not a JBA any more: nothing claims it
    with pytest.raises(gameanim.FormatError, match="jba"):
        gameanim.load(b"JAWB\x02\x00\x00\x00" + bytes(16))


@pytest.mark.parametrize("path", JBA_SAMPLES, ids=lambda p: p.name)
def test_mutated_samples_never_crash(path):
    data = path.read_bytes()
    count = mutation_count(60 if len(data) > 100000 else 300)
    decoded = 0
    for bad in mutations(data, count, seed=len(data)):
        decoded += decode_or_format_error(bad)
    assert decoded < count  # some damage must be noticed


@pytest.mark.parametrize("layout", [32, 64])
def test_mutated_hand_made_files_never_crash(layout):
    data = small_file(layout, gap=0x33, trailing=b"xy")
    for bad in mutations(data, mutation_count(600), seed=layout):
        decode_or_format_error(bad)


def test_probe_claims_jba_only():
    for p in sample_paths():
        data = p.read_bytes()
        try:
            fmt, _ = gameanim.detect(data)
        except gameanim.FormatError:
            fmt = None
        if p.suffix == ".jba":
            assert fmt == "jba"
        else:
            assert fmt != "jba", p
    rng = random.Random(5)
    for n in (0, 8, 0x28, 0x100, 4096):
        for blob in (bytes(n), bytes(rng.randrange(256) for _ in range(n))):
            try:
                fmt, _ = gameanim.detect(blob)
            except gameanim.FormatError:
                continue
            assert fmt != "jba"


def test_info_reports_header_fields():
    anim = gameanim.load(SAMPLES / "jba" / "jawb_walk.jba")
    info = anim.info
    ref = Ref((SAMPLES / "jba" / "jawb_walk.jba").read_bytes())
    assert info["layout"] == 64 and info["version"] == 2
    assert info["frames"] == ref.N and info["section_count"] == len(ref.starts) and info["bone_count"] == ref.nbones
    assert struct.unpack(f"<{2 * len(ref.starts)}I", info["section_table"]) == tuple(
        x for pair in zip(ref.starts, ref.sizes) for x in pair)
    assert info["trajectory_slot"] == 0x0FFFFFFF
    keyless = sum(s["bones"][b]["trans"] is None for s in ref.sections for b in range(ref.nbones))
    assert info["keyless_translation_blocks"] == keyless
    assert info["has_names"] == 1 and info["trailing_bytes"] == 0


def test_a_name_that_is_not_utf8_goes_through_encode_messages():
    # a name with a lone byte 0xEC: the decoder gives it as a surrogate;
    # warnings, the report and errors quote it as \xec instead of failing
    anim = gameanim.load(SAMPLES / "jba" / "legacy_walk.jba")
    odd = "Bip01 \udcecarm"
    name0 = anim.tracks[7].target
    for t in anim.tracks:
        if t.target == name0:
            t.target = odd
    t = anim.find(odd, "translation", 0)
    vals = list(t.values)
    vals[1] += 12345.678  # far outside the stored range: re-quantised, reported
    t.values = vals
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        data = anim.to_bytes()
    assert b"Bip01 \xecarm" in data
    assert anim.encode_report["max_error_at"].startswith("bone 'Bip01 \\xecarm'")
    # an error message quotes it the same way
    t.values = [float("nan")] * len(vals)
    with pytest.raises(gameanim.EncodeError, match=r"Bip01 \\xecarm"):
        anim.to_bytes()
    assert gameanim.load(data).find(odd, "translation", 0) is not None
