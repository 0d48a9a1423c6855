"""MAT3's whole GX state through gameanim.Material, and Material.evaluate /
channel_color against the independent per-pixel reference
(tests/tev_reference.py, written from the notes)."""
import random
import struct
import sys
from pathlib import Path

import pytest

import gameanim

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import tev_reference as ref  # noqa: E402
from tools import make_models as mm  # noqa: E402

ONE_JOINT = ([mm.joint("root")], [-1])


def load(materials, body=None):
    body = body if body is not None else mm.mat3_body(materials)
    data = mm.write_j3d_model(*ONE_JOINT, extra_chunks=[("MAT3", body)])
    return gameanim.load_model(data).materials


def random_half(rng, alpha):
    ops = [0, 1] + list(range(8, 16))
    op = rng.choice(ops)
    inputs = 8 if alpha else 16
    return (rng.randrange(inputs), rng.randrange(inputs), rng.randrange(inputs), rng.randrange(inputs), op,
            rng.randrange(3), rng.randrange(4), rng.randrange(2), rng.randrange(4))


def random_material(rng, name="m", nstages=None):
    n = nstages or rng.randint(1, 16)
    return mm.material(
        name, stages=[(rng.choice([0, 1, 0xFF]), rng.choice([0, 1, 0xFF]), rng.choice([4, 5, 6, 0xFF]))
                      for _ in range(n)],
        textures=(0, 1), texgens=((1, 4, 60), (1, 5, 30)),
        tev=[(random_half(rng, False), random_half(rng, True)) for _ in range(n)],
        konst_sel=[(rng.randrange(32), rng.randrange(32)) for _ in range(n)],
        swap_modes=[(rng.randrange(4), rng.randrange(4)) for _ in range(n)],
        swap_tables=[tuple(rng.randrange(4) for _ in range(4)) for _ in range(4)],
        konst=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(4)],
        tev_colors=[tuple(rng.randint(-1024, 1023) for _ in range(4)) for _ in range(4)],
        alpha_compare=(rng.randrange(8), rng.randrange(256), rng.randrange(4), rng.randrange(8), rng.randrange(256)))


# ---------------------------------------------------------------- evaluate


def check_against_reference(mat, rng, npix=24, konst=None, tev_colors=None):
    ns = len(mat.tev_stages)
    tex = [None if rng.random() < 0.15 else bytes(rng.randrange(256) for _ in range(4 * npix)) for _ in range(ns)]
    ras = [None if rng.random() < 0.15 else bytes(rng.randrange(256) for _ in range(4 * npix)) for _ in range(ns)]
    if all(t is None for t in tex + ras):
        tex[0] = bytes(rng.randrange(256) for _ in range(4 * npix))
    rgba, passed = mat.evaluate(tex, ras, konst=konst, tev_colors=tev_colors)
    assert len(rgba) == 4 * npix and len(passed) == npix
    for p in range(npix):
        t = [None if x is None else list(x[4 * p:4 * p + 4]) for x in tex]
        r = [None if x is None else list(x[4 * p:4 * p + 4]) for x in ras]
        want, ok = ref.evaluate_pixel(mat, t, r, konst=konst, tev_colors=tev_colors)
        assert tuple(rgba[4 * p:4 * p + 4]) == want, (mat.name, p)
        assert passed[p] == ok


def test_evaluate_matches_the_reference_on_random_configurations():
    rng = random.Random(31)
    mats = load([random_material(rng, f"m{i}") for i in range(48)])
    seen = {k: set() for k in ("ca", "aa", "cop", "aop", "bias", "scale", "clamp", "out", "ksel", "swap", "n")}
    for mat in mats:
        seen["n"].add(len(mat.tev_stages))
        for st in mat.tev_stages:
            seen["ca"].update((st.color.a, st.color.b, st.color.c, st.color.d))
            seen["aa"].update((st.alpha.a, st.alpha.b, st.alpha.c, st.alpha.d))
            seen["cop"].add(st.color.op)
            seen["aop"].add(st.alpha.op)
            seen["bias"].update((st.color.bias, st.alpha.bias))
            seen["scale"].update((st.color.scale, st.alpha.scale))
            seen["clamp"].update((st.color.clamp, st.alpha.clamp))
            seen["out"].update((st.color.out, st.alpha.out))
            seen["ksel"].update((st.konst_color, st.konst_alpha))
            seen["swap"].update((st.ras_swap, st.tex_swap))
        check_against_reference(mat, rng)
    # the configurations covered every input, op, bias, scale, clamp, dest, konst select and swap
    assert seen["ca"] == set(ref.COLOR_IN) and seen["aa"] == set(ref.ALPHA_IN)
    assert seen["cop"] == set(ref.COLOR_OP.values()) and seen["aop"] == set(ref.ALPHA_OP.values())
    assert seen["bias"] - {None} == set(ref.BIAS) and seen["scale"] - {None} == set(ref.SCALE)
    assert seen["clamp"] == {True, False} and seen["out"] == set(ref.REG)
    assert seen["ksel"] == set(ref.KSEL.values()) and seen["swap"] == {0, 1, 2, 3}
    assert 1 in seen["n"] and 16 in seen["n"]


def test_evaluate_overrides_konst_and_tev_colours():
    rng = random.Random(7)
    mats = load([random_material(rng, f"m{i}", nstages=4) for i in range(6)])
    for mat in mats:
        konst = [tuple(rng.randrange(256) for _ in range(4)) for _ in range(4)]
        regs = [tuple(rng.randint(-3000, 3000) for _ in range(4)) for _ in range(4)]  # s16, loaded as s11
        check_against_reference(mat, rng, konst=konst, tev_colors=regs)
        a = mat.evaluate([None] * 4, [b"\x10\x20\x30\x40"] * 4)
        b = mat.evaluate([None] * 4, [b"\x10\x20\x30\x40"] * 4, konst=mat.konst_colors, tev_colors=mat.tev_colors)
        assert a == b


def half(a, b, c, d, op=0, bias=0, scale=0, clamp=1, out=0):
    return (a, b, c, d, op, bias, scale, clamp, out)


CC = {n: i for i, n in enumerate(ref.COLOR_IN)}
CA = {n: i for i, n in enumerate(ref.ALPHA_IN)}
PASS_ALPHA = half(CA["ZERO"], CA["ZERO"], CA["ZERO"], CA["ZERO"])


def one_stage(color, alpha=PASS_ALPHA, konst=((100, 100, 100, 100),), tev_colors=(), ksel=(12, 28)):
    m = mm.material("hand", stages=((0xFF, 0xFF, 0xFF),), texgens=(), textures=(), tev=[(color, alpha)],
                    konst_sel=[ksel], konst=konst, tev_colors=tev_colors)
    return load([m])[0]


def rgb_of(mat, tex=None):
    return tuple(mat.evaluate([tex], [None])[0][:3])


def test_hand_derived_cases():
    # c = 128 -> c' = 129: 255 * (256 - 129) = 32385, + 128 = 32513, >> 8 = 127 (c' = 128 would give 128)
    mat = one_stage(half(CC["ONE"], CC["ZERO"], CC["HALF"], CC["ZERO"]))
    assert rgb_of(mat) == (127, 127, 127)
    # rounding: 128 * 129 = 16512 (= 128 mod 256): add rounds with 128 -> 65; sub with 127 -> 64; x1/2 with 0
    lerp = (CC["ZERO"], CC["HALF"], CC["HALF"], CC["KONST"])
    assert rgb_of(one_stage(half(*lerp, op=0))) == (165,) * 3          # 100 + 65
    assert rgb_of(one_stage(half(*lerp, op=1))) == (36,) * 3           # 100 - 64
    assert rgb_of(one_stage(half(*lerp, op=0, scale=3))) == (82,) * 3  # (100 + 64) / 2
    # bias and scale: (100 + 128) * 2 + ((16512 * 2 + 128) >> 8 = 129) = 585, clamped to 255; unclamped & 255 = 73
    assert rgb_of(one_stage(half(*lerp, bias=1, scale=1))) == (255,) * 3
    assert rgb_of(one_stage(half(*lerp, bias=1, scale=1, clamp=0))) == (73,) * 3
    # s11 register values: as A, B or C only the low 8 bits (300 -> 44); as D the whole value (300 -> 255 clamped)
    regs = ((300, 300, 300, 300),)
    assert rgb_of(one_stage(half(CC["C0"], CC["ZERO"], CC["ZERO"], CC["ZERO"]), tev_colors=regs)) == (44,) * 3
    assert rgb_of(one_stage(half(CC["ZERO"], CC["ZERO"], CC["ZERO"], CC["C0"]), tev_colors=regs)) == (255,) * 3
    # a stored 1500 loads as s11 -548; unclamped, the final & 255 gives 220; clamped, 0
    regs = ((1500, 1500, 1500, 1500),)
    assert rgb_of(one_stage(half(CC["ZERO"], CC["ZERO"], CC["ZERO"], CC["C0"], clamp=0), tev_colors=regs)) == (220,) * 3
    assert rgb_of(one_stage(half(CC["ZERO"], CC["ZERO"], CC["ZERO"], CC["C0"]), tev_colors=regs)) == (0,) * 3
    # -1 as an operand reads 255: lerp(255, 0, 0) = 255
    regs = ((-1, -1, -1, -1),)
    assert rgb_of(one_stage(half(CC["C0"], CC["ZERO"], CC["ZERO"], CC["ZERO"]), tev_colors=regs)) == (255,) * 3
    # PREV starts from TEV colour slot 3
    regs = ((0,) * 4, (0,) * 4, (0,) * 4, (7, 8, 9, 10))
    assert rgb_of(one_stage(half(CC["ZERO"], CC["ZERO"], CC["ZERO"], CC["CPREV"]), tev_colors=regs)) == (7, 8, 9)
    # compare on a packed key: GR16 of (1, 2) > (255, 1) since 2 * 256 + 1 > 1 * 256 + 255
    mat = one_stage(half(CC["TEXC"], CC["KONST"], CC["ONE"], CC["ZERO"], op=10), konst=((255, 1, 0, 0),))
    assert rgb_of(mat, b"\x01\x02\x00\x00") == (255,) * 3
    mat = one_stage(half(CC["TEXC"], CC["KONST"], CC["ONE"], CC["ZERO"], op=8), konst=((255, 1, 0, 0),))
    assert rgb_of(mat, b"\x01\x02\x00\x00") == (0,) * 3  # R8: 1 > 255 is false


def test_a_material_without_samples_evaluates_one_pixel():
    mat = one_stage(half(CC["ZERO"], CC["ZERO"], CC["ZERO"], CC["KONST"]), konst=((9, 8, 7, 6),))
    rgba, passed = mat.evaluate([None], [None])
    assert rgba == bytes((9, 8, 7, 0)) and passed == b"\x01"


@pytest.mark.parametrize("compare,alphas", [
    ((6, 128, 0, 3, 255), {0: 0, 127: 0, 128: 1, 255: 1}),   # >= 128 and <= 255
    ((1, 10, 1, 4, 200), {5: 1, 10: 0, 150: 0, 201: 1}),     # < 10 or > 200
    ((2, 50, 2, 7, 0), {50: 0, 49: 1}),                      # == 50 xor always
    ((5, 50, 3, 0, 0), {50: 1, 51: 0}),                      # != 50 xnor never
    ((0, 0, 0, 7, 0), {0: 0, 255: 0}),                       # never
    ((7, 0, 0, 7, 0), {0: 1, 255: 1}),                       # always
])
def test_alpha_test_forms(compare, alphas):
    m = mm.material("at", stages=((0xFF, 0xFF, 0xFF),), texgens=(), textures=(), alpha_compare=compare,
                    tev=[(half(CC["ZERO"], CC["ZERO"], CC["ZERO"], CC["ZERO"]),
                          half(CA["TEXA"], CA["ZERO"], CA["ZERO"], CA["ZERO"]))])
    mat = load([m])[0]
    tex = bytes(b for a in alphas for b in (0, 0, 0, a))
    rgba, passed = mat.evaluate([tex], [None])
    assert list(passed) == list(alphas.values())
    assert list(rgba[3::4]) == list(alphas)  # the alpha is lerp(TEXA, 0, 0) = TEXA
    assert all(ref.alpha_test(mat.alpha_compare, a) == bool(p) for a, p in zip(alphas, passed))


def test_evaluate_rejects_wrong_inputs():
    mat = one_stage(half(CC["ZERO"], CC["ZERO"], CC["ZERO"], CC["KONST"]))
    with pytest.raises(ValueError, match="one entry per TEV stage"):
        mat.evaluate([None, None], [None])
    with pytest.raises(ValueError, match="RGBA8"):
        mat.evaluate([b"\0" * 5], [None])
    with pytest.raises(ValueError, match="RGBA8"):
        mat.evaluate([b"\0" * 8], [b"\0" * 4])
    with pytest.raises(TypeError):
        mat.evaluate(None, [None])
    with pytest.raises(ValueError, match="konst"):
        mat.evaluate([None], [None], konst=[(1, 2, 3, 4)])
    with pytest.raises(ValueError, match="outside"):
        mat.evaluate([None], [None], konst=[(1, 2, 3, 256)] * 4)


def test_channel_color_follows_the_lighting_equation():
    rng = random.Random(4)
    for _ in range(40):
        ctrl = [(rng.randrange(2), rng.randrange(2), rng.randrange(256), rng.randrange(3), rng.choice([0, 2]),
                 rng.choice([0, 1, 0xFF])) for _ in range(4)]
        m = mm.material("lit", channels=ctrl, channel_count=2,
                        colors=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(2)],
                        ambients=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(2)])
        mat = load([m])[0]
        for ch in (0, 1):
            vc = tuple(rng.randrange(256) for _ in range(4))
            light = rng.choice([0.0, 0.25, 0.5, 1.0, -0.5])
            assert mat.channel_color(ch, vc, light) == ref.channel_color(mat, ch, vc, light)
    # by hand: register 200, ambient 0x32 (the default), light 0 at 0.5: l = int(50 + 127.5) = 177,
    # 200 * (177 + 1) >> 8 = 139; lighting off gives the material colour, or the vertex colour
    m = mm.material("hand", colors=[(200, 200, 200, 200)], ambients=[None],
                    channels=[(1, 0, 1, 2, 2, 0xFF), (0, 0, 0, 2, 2, 0xFF)])
    mat = load([m])[0]
    assert mat.channel_color(0, (9, 9, 9, 9), 0.5) == (139, 139, 139, 200)
    m = mm.material("vtx", channels=[(0, 1, 0, 2, 2, 0xFF), (0, 0, 0, 2, 2, 0xFF)])
    assert load([m])[0].channel_color("COLOR0A0", (1, 2, 3, 4)) == (1, 2, 3, 255)
    with pytest.raises(ValueError):
        mat.channel_color(2, (0, 0, 0, 0))


# ---------------------------------------------------------------- decoding


def full_state(rng, name):
    m = random_material(rng, name, nstages=rng.randint(1, 16))
    m.update(
        channels=[(rng.randrange(2), rng.randrange(2), rng.randrange(256), rng.randrange(3), rng.randrange(4),
                   rng.choice([0, 1, 0xFF])) for _ in range(4)],
        colors=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(2)],
        ambients=[tuple(rng.randrange(256) for _ in range(4)), None], channel_count=2,
        texgens=[(rng.randrange(11), rng.randrange(21), rng.choice([0, 27, 30, 33, 57, 60])) for _ in range(8)],
        post_texgens=[None, (1, 4, 64), None, (0, 1, 125)],
        tex_matrices=[None, (1, 0x86, (0.5, 0.25, 0.0), (2.0, 3.0), -16384, (0.125, -1.0),
                             tuple(float(i) for i in range(16)))],
        textures=(3, 0xFFFF, 1),
        fog=(2, 1, 320, 1.0, 2.0, 3.0, 4.0, (1, 2, 3, 4), tuple(range(10))),
        nbt=(1, (0.5, 1.5, 2.5)), z_comp_loc=1, dither=0, z_mode=(0, 7, 0), blend=(3, 6, 7, 15), cull=1,
        indirect=(1, 2, ((0, 1), (2, 3), (4, 5), (6, 7)), (((0.5, 0, 0, 0, 0.5, 0), 1),) * 3,
                  ((1, 2), (3, 4), (0, 0), (0, 0)), [tuple(range(s, s + 9)) for s in range(16)]))
    return m


def test_every_table_reads_back_as_written():
    rng = random.Random(99)
    written = [full_state(rng, f"f{i}") for i in range(6)]
    mats = load(written)
    for w, mat in zip(written, mats):
        n = len(w["stages"])
        assert len(mat.tev_stages) == n
        for s, st in enumerate(mat.tev_stages):
            for got, raw, names, ops in ((st.color, w["tev"][s][0], ref.COLOR_IN, ref.COLOR_OP),
                                         (st.alpha, w["tev"][s][1], ref.ALPHA_IN, ref.ALPHA_OP)):
                a, b, c, d, op, bias, scale, clamp, out = raw
                assert (got.a, got.b, got.c, got.d) == tuple(names[v] for v in (a, b, c, d))
                assert got.op == ops[op] and got.clamp == bool(clamp) and got.out == ref.REG[out]
                compare = op >= 8
                assert (got.bias, got.scale) == ((None, None) if compare else (ref.BIAS[bias], ref.SCALE[scale]))
            assert (st.konst_color, st.konst_alpha) == tuple(ref.KSEL[v] for v in w["konst_sel"][s])
            assert (st.ras_swap, st.tex_swap) == w["swap_modes"][s]
            tc, tm, ch = w["stages"][s]
            assert (st.tex_coord, st.tex_map, st.channel) == (None if tc == 0xFF else tc, None if tm == 0xFF else tm,
                                                              ref.CHANNEL[ch])
            assert st.texture == (None if tm == 0xFF or tm >= len(w["textures"]) or w["textures"][tm] == 0xFFFF
                                  else w["textures"][tm])
        assert mat.swap_tables == tuple(w["swap_tables"])
        assert mat.konst_colors == tuple(w["konst"]) and mat.tev_colors == tuple(w["tev_colors"])
        ac = w["alpha_compare"]
        assert mat.alpha_compare == (ref.ALPHA_COMPARE[ac[0]], ac[1], ref.ALPHA_LOGIC[ac[2]],
                                     ref.ALPHA_COMPARE[ac[3]], ac[4])
        assert mat.blend == ("SUBTRACT", "DSTALPHA", "INVDSTALPHA", "SET")
        assert mat.cull_mode == 1 and mat.channel_count == 2
        for got, raw in zip(mat.channels, w["channels"]):
            src = {0: "REG", 1: "VTX", 0xFF: "REG"}
            assert got == (bool(raw[0]), src[raw[1]], src[raw[5]], raw[2], ("NONE", "SIGN", "CLAMP")[raw[3]],
                           ("NONE", "SPEC", "NONE", "SPOT")[raw[4]])
        assert mat.mat_colors == tuple(w["colors"]) and mat.amb_colors == (w["ambients"][0], (50, 50, 50, 50))
        types = ["MTX3x4", "MTX2x4"] + [f"BUMP{i}" for i in range(8)] + ["SRTG"]
        sources = ["POS", "NRM", "BINRM", "TANGENT"] + [f"TEX{i}" for i in range(8)] + \
            [f"TEXCOORD{i}" for i in range(7)] + ["COLOR0", "COLOR1"]
        mtx = {0: "PNMTX0", 27: "PNMTX9", 30: "TEXMTX0", 33: "TEXMTX1", 57: "TEXMTX9", 60: "IDENTITY"}
        assert mat.texgens == tuple((types[t], sources[s], mtx[x]) for t, s, x in w["texgens"])
        assert mat.post_texgens[:4] == (None, ("MTX2x4", "TEX0", 64), None, ("MTX3x4", "NRM", 125))
        assert mat.tex_matrices[0] is None and mat.tex_matrices[2:] == (None,) * 6
        tmx = mat.tex_matrices[1]
        assert tmx == ("MTX2x4", 6, True, (0.5, 0.25, 0.0), (2.0, 3.0), -16384, (0.125, -1.0),
                       tuple(float(i) for i in range(16)))
        assert mat.textures == (3, -1, 1, -1, -1, -1, -1, -1)
        assert mat.fog == (2, True, 320, 1.0, 2.0, 3.0, 4.0, (1, 2, 3, 4), tuple(range(10)))
        assert mat.nbt_scale == (True, (0.5, 1.5, 2.5)) and mat.z_comp_loc == 1 and mat.dither == 0
        assert mat.z_mode == (False, "ALWAYS", False)
        ind = mat.indirect
        assert ind.enabled and ind.count == 2 and ind.orders == ((0, 1), (2, 3), (4, 5), (6, 7))
        assert ind.matrices == (((0.5, 0.0, 0.0, 0.0, 0.5, 0.0), 1),) * 3 and ind.scales[:2] == ((1, 2), (3, 4))
        assert ind.stages[3] == (3, 4, 5, 6, 7, 8, True, True, 11)


def test_absent_entries_take_the_games_defaults():
    m = mm.material("bare", stages=((0xFF, 0xFF, 0xFF), (0xFF, 0xFF, 0xFF)), texgens=(), textures=(), color=None,
                    ambient=None, channel=None, blend=None, z_mode=None, channel_count=0)
    mat = load([m])[0]
    for st in mat.tev_stages:  # RAS + PREV, clamped, to PREV; konst K0 / K0.a; swap 0
        assert st.color == ("RASC", "ZERO", "ZERO", "CPREV", "ADD", "ZERO", "SCALE_1", True, "PREV")
        assert st.alpha == ("RASA", "ZERO", "ZERO", "APREV", "ADD", "ZERO", "SCALE_1", True, "PREV")
        assert (st.konst_color, st.konst_alpha, st.ras_swap, st.tex_swap) == ("K0", "K0_A", 0, 0)
        assert (st.tex_coord, st.tex_map, st.channel, st.texture) == (None, None, "COLOR_NULL", None)
    assert mat.swap_tables == ((0, 1, 2, 3),) * 4
    assert mat.konst_colors == ((255,) * 4,) * 4 and mat.tev_colors == ((0,) * 4,) * 4
    assert mat.mat_colors == ((255,) * 4,) * 2 and mat.amb_colors == ((50,) * 4,) * 2
    assert mat.channels == ((False, "REG", "REG", 0, "CLAMP", "NONE"),) * 4
    assert mat.blend == ("BLEND", "SRCALPHA", "INVSRCALPHA", "NOOP")
    assert mat.z_mode == (True, "LEQUAL", True) and mat.z_comp_loc == 0 and mat.dither == 1
    assert mat.fog is None and mat.indirect is None and mat.nbt_scale == (False, (1.0, 1.0, 1.0))
    assert mat.tex_matrices == (None,) * 8 and mat.texgens == ()
    # two stages of RAS + PREV with no RAS: PREV (slot 3 = 0) stays 0
    assert mat.evaluate([None, None], [None, None]) == (b"\0\0\0\0", b"\1")


# ---------------------------------------------------------------- malformed


def entry_offset(body):
    return struct.unpack_from(">I", body, 0x0C - 8 + 8)[0] - 8  # (body lacks the 8-byte chunk header)


def patched(m, at, value, fmt=">B"):
    body = bytearray(mm.mat3_body([m]))
    struct.pack_into(fmt, body, at, value)
    return bytes(body)


def table(body, field):
    return struct.unpack_from(">I", body, field - 8)[0] - 8


def rich():
    return mm.material("r", stages=((0, 0, 4),), tev=[(half(0, 1, 2, 3), half(0, 1, 2, 3))], konst_sel=[(0, 0)],
                       swap_modes=[(0, 0)], swap_tables=[(0, 1, 2, 3)])


@pytest.mark.parametrize("where,value,field", [
    (lambda b: table(b, 0x5C) + 0x0A + 1, 8, "MAT3 TEV stage alpha"),        # alpha input 8
    (lambda b: table(b, 0x5C) + 5, 4, "MAT3 TEV stage colour"),             # op 4
    (lambda b: table(b, 0x5C) + 9, 4, "MAT3 TEV stage colour"),             # register 4
    (lambda b: table(b, 0x5C) + 6, 3, "MAT3 TEV stage colour"),             # bias 3 on an add
    (lambda b: table(b, 0x0C) + 0x9C, 32, "MAT3 konst colour select"),
    (lambda b: table(b, 0x64) + 2, 4, "MAT3 swap table"),
    (lambda b: table(b, 0x60), 4, "MAT3 swap mode"),
    (lambda b: table(b, 0x6C), 8, "MAT3 alpha compare"),
    (lambda b: table(b, 0x70), 4, "MAT3 blend mode"),
    (lambda b: table(b, 0x4C) + 2, 9, "MAT3 TEV order channel"),
    (lambda b: table(b, 0x38) + 2, 61, "MAT3 texgen matrix"),
    (lambda b: table(b, 0x58), 17, "MAT3 TEV stage count"),
    (lambda b: table(b, 0x0C) + 4, 0xFF, "MAT3 TEV stage count index"),    # absent: no default
    (lambda b: table(b, 0x0C) + 1, 0xFF, "MAT3 cull mode index"),
    (lambda b: table(b, 0x0C) + 1, 0x40, "MAT3 cull mode index"),          # out of range
])
def test_malformed_mat3_names_the_field(where, value, field):
    body = bytearray(mm.mat3_body([rich()]))
    body[where(body)] = value
    with pytest.raises(gameanim.FormatError) as e:
        load(None, bytes(body))
    assert e.value.field == field


@pytest.mark.parametrize("index_at,field", [
    (0xE4, "MAT3 TEV stage index"), (0x146, "MAT3 alpha compare index"), (0x104, "MAT3 swap mode index"),
    (0x124, "MAT3 swap table index"), (0x94, "MAT3 konst colour index"), (0xBC, "MAT3 TEV order index"),
])
def test_out_of_range_indices_name_the_field(index_at, field):
    body = bytearray(mm.mat3_body([rich()]))
    struct.pack_into(">H", body, table(body, 0x0C) + index_at, 0x4000)
    with pytest.raises(gameanim.FormatError) as e:
        load(None, bytes(body))
    assert e.value.field == field


def test_truncated_mat3_fails_cleanly():
    body = mm.mat3_body([full_state(random.Random(1), "t")])
    failed = 0
    for cut in range(8, len(body), 7):
        try:
            load(None, body[:cut])
        except gameanim.FormatError as e:
            assert e.field and e.field.startswith("MAT3")
            failed += 1
    assert failed > len(body) // 7 // 2
