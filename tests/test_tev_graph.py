"""shared/tev_graph.py: the plan of a material's TEV node group, run by a
small interpreter of Blender's node maths (tests/tev_plan_interpreter.py,
float32 at every node), compared with hand-derived cases from the notes
(../shared/formats/j3d_materials.md 2.2-2.4), and on random
configurations with the independent per-pixel reference
(tests/tev_reference.py) and with Material.evaluate."""
from types import SimpleNamespace

import pytest

import tev_plan_interpreter as ti
import tev_reference as ref
from io_anim_gameanim.shared import tev_graph as tg


def comb(a="ZERO", b="ZERO", c="ZERO", d="ZERO", op="ADD", bias="ZERO", scale="SCALE_1", clamp=True, out="PREV"):
    return SimpleNamespace(a=a, b=b, c=c, d=d, op=op, bias=bias, scale=scale, clamp=clamp, out=out)


def material(*stages, test=None, konst=((0, 0, 0, 0),) * 4, regs=((0, 0, 0, 0),) * 4, tables=None):
    st = [SimpleNamespace(color=c, alpha=a, konst_color=kc, konst_alpha=ka, ras_swap=0, tex_swap=0)
          for c, a, kc, ka in stages]
    ac = SimpleNamespace(comp0=test[0], ref0=test[1], op=test[2], comp1=test[3], ref1=test[4]) if test else None
    return SimpleNamespace(tev_stages=st, swap_tables=tables or [(0, 1, 2, 3)] * 4, konst_colors=list(konst),
                           tev_colors=list(regs), alpha_compare=ac)


def run(mat, tex=None, ras=None):
    n = len(mat.tev_stages)
    tex = tex or [(0, 0, 0, 0)] * n
    ras = ras or [(0, 0, 0, 0)] * n
    plan = tg.plan(tg.config(mat))
    return ti.bytes_of(ti.run(plan, ti.group_values(mat, tex, ras)))


def one_stage(color, alpha=None, **kw):
    return material((color, alpha or comb(a="ZERO"), "1", "1"), **kw)


# ---------------------------------------------------------------------------
# Hand-derived cases


def test_the_weight_is_c_plus_c_shifted_by_7():
    """B = 200, C = 128: c' = 129, (200 * 129 + 128) >> 8 = 101 (100 with
    c' = c)."""
    mat = one_stage(comb(b="TEXC", c="RASC"))
    assert run(mat, [(200, 200, 200, 0)], [(128, 128, 128, 0)])[:3] == (101, 101, 101)


def test_a_full_weight_gives_b_exactly():
    mat = one_stage(comb(a="TEXC", b="RASC", c="ONE"))
    assert run(mat, [(10, 20, 30, 0)], [(255, 254, 0, 0)])[:3] == (255, 254, 0)


def test_add_rounds_with_128_and_sub_with_127():
    """L = 128 * 129 = 64 * 256 + 128: ADD gives 65, SUB takes 64."""
    add = one_stage(comb(b="TEXC", c="RASC"))
    sub = one_stage(comb(b="TEXC", c="RASC", d="ONE", op="SUB"))
    px = ([(128, 128, 128, 0)], [(128, 128, 128, 0)])
    assert run(add, *px)[:3] == (65,) * 3
    assert run(sub, *px)[:3] == (255 - 64,) * 3


def test_bias_scale_and_the_s11_clamp():
    """(D + 128) * 4 + A * 4 = (100 + 128) * 4 + 40 * 4 = 1072, clamped to
    1023 (unclamped stage), then & 255 at the output = 255; with the
    0..255 clamp, 255 too, but (50 + 128) * 2 + 0 = 356 wraps to 100."""
    big = one_stage(comb(a="TEXC", d="RASC", bias="ADDHALF", scale="SCALE_4", clamp=False))
    assert run(big, [(40, 40, 40, 0)], [(100, 100, 100, 0)])[:3] == (1023 & 255,) * 3
    wraps = one_stage(comb(d="RASC", bias="ADDHALF", scale="SCALE_2", clamp=False))
    assert run(wraps, None, [(50, 50, 50, 0)])[:3] == (356 & 255,) * 3
    clamped = one_stage(comb(d="RASC", bias="ADDHALF", scale="SCALE_2", clamp=True))
    assert run(clamped, None, [(50, 50, 50, 0)])[:3] == (255,) * 3


def test_divide_by_two_floors():
    """(D - 128) / 2 with D = 1: floor(-127 / 2) = -64, & 255 = 192."""
    mat = one_stage(comb(d="RASC", bias="SUBHALF", scale="DIVIDE_2", clamp=False))
    assert run(mat, None, [(1, 1, 1, 0)])[:3] == ((-64) & 255,) * 3


def test_operands_a_b_c_are_the_low_8_bits_of_a_register():
    """Stage 0 writes 300 into REG0 (unclamped).  Stage 1 reads it as B
    with C = 255: 300 & 255 = 44.  As D it reads all of it: 300 + 10,
    clamped to 255 (44 + 10 = 54 if D were wrapped too)."""
    s0 = (comb(d="TEXC", bias="ADDHALF", clamp=False, out="REG0"), comb(), "1", "1")
    s1 = (comb(b="C0", c="ONE"), comb(), "1", "1")
    s1d = (comb(d="C0", a="RASC"), comb(), "1", "1")
    tex = [(172, 172, 172, 0)] * 2
    assert run(material(s0, s1), tex)[:3] == (44,) * 3
    assert run(material(s0, s1d), tex, [(0,) * 4, (10, 10, 10, 0)])[:3] == (255,) * 3


def test_compare_keys_are_packed_little_end_first():
    """GR16: A = (1, 2, .) vs B = (2, 1, .): keys 513 > 258, so D + C;
    R8 on the same says 1 < 2, so D."""
    gr = one_stage(comb(a="TEXC", b="RASC", c="HALF", d="ZERO", op="COMP_GR16_GT"))
    r8 = one_stage(comb(a="TEXC", b="RASC", c="HALF", d="ZERO", op="COMP_R8_GT"))
    px = ([(1, 2, 9, 0)], [(2, 1, 9, 0)])
    assert run(gr, *px)[:3] == (128,) * 3
    assert run(r8, *px)[:3] == (0,) * 3
    eq = one_stage(comb(a="TEXC", b="RASC", c="HALF", op="COMP_RGB8_EQ"))
    assert run(eq, [(5, 6, 7, 0)], [(5, 0, 7, 0)])[:3] == (128, 0, 128)


def test_konst_selects_and_swaps():
    mat = material((comb(d="KONST"), comb(d="KONST"), "K1_G", "K2_A"), konst=[(0,) * 4, (1, 77, 3, 4),
                                                                              (5, 6, 7, 99), (0,) * 4])
    assert run(mat)[:4] == (77, 77, 77, 99)
    frac = material((comb(d="KONST"), comb(d="KONST"), "7_8", "3_8"))
    assert run(frac)[:4] == (223, 223, 223, 96)
    swapped = material((comb(d="TEXC"), comb(d="TEXA"), "1", "1"), tables=[(3, 0, 0, 2)] * 4)
    assert run(swapped, [(10, 20, 30, 40)])[:4] == (40, 10, 10, 30)


def test_the_alpha_test_is_exact_at_its_thresholds():
    test = ("GEQUAL", 128, "AND", "LEQUAL", 200)
    mat = one_stage(comb(), comb(d="TEXA"), test=test)
    assert [run(mat, [(0, 0, 0, a)])[4] for a in (127, 128, 200, 201)] == [0, 1, 1, 0]
    xor = one_stage(comb(), comb(d="TEXA"), test=("LESS", 10, "XOR", "GREATER", 5))
    assert [run(xor, [(0, 0, 0, a)])[4] for a in (3, 7, 12)] == [1, 0, 1]


def test_prev_starts_from_slot_3():
    mat = one_stage(comb(d="CPREV"), comb(d="APREV"), regs=[(0,) * 4] * 3 + [(9, 8, 7, 6)])
    assert run(mat)[:4] == (9, 8, 7, 6)


# ---------------------------------------------------------------------------
# Keys and the plan's form


def test_colours_are_not_part_of_the_key():
    rng = ti.rng_for(1)
    a = ti.random_material(rng, 4)
    b = SimpleNamespace(**vars(a))
    b.konst_colors = [(1, 2, 3, 4)] * 4
    b.tev_colors = [(-5, 6, 7, 8)] * 4
    assert tg.config(a) == tg.config(b)
    assert tg.plan(tg.config(a)).name == tg.plan(tg.config(b)).name


def test_unused_konst_selects_do_not_split_groups():
    a = one_stage(comb(d="TEXC"))
    b = material((comb(d="TEXC"), comb(), "K3", "K1_A"))
    assert tg.config(a) == tg.config(b)
    c = one_stage(comb(d="TEXC", op="SUB"))
    assert tg.config(a) != tg.config(c)


def _check_form(plan):
    names = [n.name for n in plan.nodes]
    assert len(set(names)) == len(names)
    order = {n: i for i, n in enumerate(names)}
    for lk in plan.links:
        if lk.dst != tg.GROUP_OUTPUT:
            assert lk.src == tg.GROUP_INPUT or order[lk.src] < order[lk.dst]
    read = {lk.src_socket for lk in plan.links if lk.src == tg.GROUP_INPUT}
    assert read == {name for name, _ in plan.inputs}, plan.name
    assert {lk.dst_socket for lk in plan.links if lk.dst == tg.GROUP_OUTPUT} == {n for n, _ in plan.outputs}
    for node in plan.nodes:
        if node.bl_idname == tg.GROUP:
            assert node.group in plan.groups


@pytest.mark.parametrize("seed", range(20))
def test_plans_are_well_formed(seed):
    """Nodes only read earlier nodes (vectors never feed float inputs:
    checked by the interpreter), every input socket is read, every output
    written, in the material's group and in the groups it runs."""
    mat = ti.random_material(ti.rng_for(seed))
    plan = tg.plan(tg.config(mat))
    assert [name for name, _ in plan.outputs] == ["Color", "Alpha", "Pass"]
    for p in [plan, *plan.groups.values()]:
        _check_form(p)


def test_groups_stay_small():
    """Blender updates a tree per node and link set from Python (building
    costs the square of its size): a material's group holds a few nodes
    per stage, and each shared group under 25."""
    for seed in range(10):
        for stages in (4, 16):
            plan = tg.plan(tg.config(ti.random_material(ti.rng_for(seed), stages)))
            assert len(plan.nodes) <= 8 * stages + 8, (seed, stages, len(plan.nodes))
            assert all(len(sub.nodes) < 25 for sub in plan.groups.values())


# ---------------------------------------------------------------------------
# Random configurations against an independent reference


@pytest.mark.parametrize("seed", range(40))
def test_random_configurations_match_the_reference(seed):
    """Stand-in materials (every input, op, bias, scale, clamp, dest, konst
    select, swap, alpha test; registers beyond 11 bits) against
    tests/tev_reference.py, the C side's per-pixel reference written from
    the notes."""
    rng = ti.rng_for(1000 + seed)
    mat = ti.random_material(rng)
    plan = tg.plan(tg.config(mat))
    n = len(mat.tev_stages)
    for _ in range(8):
        tex = [tuple(rng.randrange(256) for _ in range(4)) for _ in range(n)]
        ras = [tuple(rng.randrange(256) for _ in range(4)) for _ in range(n)]
        want = ref_pixel(mat, tex, ras)
        got = ti.bytes_of(ti.run(plan, ti.group_values(mat, tex, ras)))
        assert got == want, (seed, tex, ras)


def ref_pixel(mat, tex, ras):
    rgba, passed = ref.evaluate_pixel(mat, [list(t) for t in tex], [list(r) for r in ras])
    return tuple(rgba) + (int(passed),)


@pytest.mark.parametrize("seed", range(30))
def test_random_materials_match_material_evaluate(seed):
    """Materials read by the C side (written by tools/make_models.py),
    every texel of a 16-pixel row against Material.evaluate."""
    rng = ti.rng_for(2000 + seed)
    mat = ti.real_material(rng)
    plan = tg.plan(tg.config(mat))
    n, npix = len(mat.tev_stages), 16
    tex = [bytes(rng.randrange(256) for _ in range(4 * npix)) for _ in range(n)]
    ras = [bytes(rng.randrange(256) for _ in range(4 * npix)) for _ in range(n)]
    rgba, passed = mat.evaluate(tex, ras)
    for p in range(npix):
        vals = ti.group_values(mat, [t[4 * p:4 * p + 4] for t in tex], [r[4 * p:4 * p + 4] for r in ras])
        assert ti.bytes_of(ti.run(plan, vals)) == tuple(rgba[4 * p:4 * p + 4]) + (passed[p],), (seed, p)


# ---------------------------------------------------------------------------
# Colour channels lit in nodes (notes 3.1): lit_plan against the reference


def _channel(lighting, source, mask, diffuse, ambient):
    return SimpleNamespace(lighting=lighting, material_source=source, light_mask=mask, diffuse=diffuse,
                           ambient_source=ambient, attenuation="NONE")


@pytest.mark.parametrize("seed", range(8))
def test_lit_plan_matches_the_lighting_equation(seed):
    """Random channel controls, colours and N.L (the normal and the light
    as unit vectors): the plan's Color and Alpha are the reference's
    channel colour with white lights, off by at most 1 where float32 and
    double N.L floor either side of a whole number."""
    import math

    rng = ti.rng_for(100 + seed)
    worst = 0
    for _ in range(60):
        ctl = [_channel(rng.random() < 0.8, rng.choice(["REG", "VTX"]), rng.choice([0, 1, 3, 0x81, 0xFF]),
                        rng.choice(["NONE", "SIGN", "CLAMP"]), rng.choice(["REG", "VTX"])) for _ in range(2)]
        mat = SimpleNamespace(channels=ctl + ctl, mat_colors=[tuple(rng.randrange(256) for _ in range(4))] * 2,
                              amb_colors=[tuple(rng.randrange(256) for _ in range(4))] * 2)
        vertex = tuple(rng.randrange(256) for _ in range(4))
        theta = rng.uniform(0.0, math.pi)
        light = (math.sin(theta), 0.0, math.cos(theta))
        plan = tg.lit_plan(tg.channel_lighting(ctl[0]), tg.channel_lighting(ctl[1]))
        _check_form(plan)
        values = {}
        for part, c, k in (("", ctl[0], slice(0, 3)), (" Alpha", ctl[1], 3)):
            m = vertex if c.material_source == "VTX" else mat.mat_colors[0]
            a = vertex if c.ambient_source == "VTX" else mat.amb_colors[0]
            values["Material" + part] = tuple(v / 255.0 for v in m[k]) if not part else m[3] / 255.0
            values["Ambient" + part] = tuple(v / 255.0 for v in a[k]) if not part else a[3] / 255.0
        values.update({"Normal": (0.0, 0.0, 1.0), "Light": light, "Light Color": (1.0, 1.0, 1.0)})
        out = ti.run(plan, {n: values[n] for n, _ in plan.inputs})
        got = tuple(int(math.floor(v * 255.0 + 0.5)) for v in out["Color"]) + \
            (int(math.floor(out["Alpha"] * 255.0 + 0.5)),)
        want = ref.channel_color(mat, 0, vertex, math.cos(theta))
        worst = max(worst, max(abs(g - w) for g, w in zip(got, want)))
    assert worst <= 1


def test_an_unlit_channel_passes_its_material_colour_and_reads_no_light():
    plan = tg.lit_plan(None, None)
    assert {n for n, _ in plan.inputs} == {"Material", "Material Alpha"}
    lit = tg.lit_plan(("CLAMP", 1), None)
    assert {n for n, _ in lit.inputs} == {"Material", "Material Alpha", "Ambient", "Normal", "Light", "Light Color"}


# ---------------------------------------------------------------------------
# Texture wrap in nodes (Blender before 3.5, per-axis modes)


def _gx_texel(coord, n, wrap):
    """The texel index the GX reads at coordinate `coord` (nearest) for
    texture side n, written from the wrap modes' meaning."""
    import math

    i = math.floor(coord * n)
    if wrap == "clamp":
        return min(max(i, 0), n - 1)
    if wrap == "repeat":
        return i % n
    period = i % (2 * n)  # mirror: every other repeat reflected
    return period if period < n else 2 * n - 1 - period


@pytest.mark.parametrize("wraps", [("mirror", "mirror"), ("mirror", "repeat"), ("repeat", "clamp"),
                                   ("clamp", "mirror")])
def test_wrap_plan_reads_the_gxs_texel(wraps):
    """Through wrap_plan then EXTEND (clamp to [0, 1]) and Blender's
    nearest texel (floor(u * n), v = 1 - t, rows bottom up), each
    coordinate reads the texel the GX reads, away from texel edges."""
    import math

    n = 8
    plan = wrap_plan = tg.wrap_plan(*wraps)
    _check_form(plan)
    rng = ti.rng_for(7)
    for _ in range(300):
        s, t = rng.uniform(-3.0, 3.0), rng.uniform(-3.0, 3.0)
        if min(abs(s * n - round(s * n)), abs(t * n - round(t * n))) < 1e-3:
            continue
        u, v, _z = ti.run(wrap_plan, {"Vector": (s, 1.0 - t, 0.0)})["Vector"]
        col = min(max(math.floor(u * n), 0), n - 1)
        row = n - 1 - min(max(math.floor(v * n), 0), n - 1)  # (Blender row from the bottom -> GX row)
        assert (col, row) == (_gx_texel(s, n, wraps[0]), _gx_texel(t, n, wraps[1])), (s, t)


# ---------------------------------------------------------------------------
# Texgens from normals (env maps) and positions


@pytest.mark.parametrize("mode", [0, 1, 6])
@pytest.mark.parametrize("srt", [None, (False, 2.0, 0.5, 0.7, 0.1, -0.3, 0.5, 0.25),
                                 (True, 1.5, 0.75, -0.4, 0.2, 0.1, 0.0, 0.0)])
def test_texgen_plan_is_the_mode_then_the_srt(mode, srt):
    """(s, t) of the notes in GX coordinates (t down the image): env mode
    6 (1/2 + n.x / 2, 1/2 - n.y / 2), modes 0 and 1 (n.x, n.y); then Basic
    (s', t') = S R(angle) ((s, t) - c) + c + T (j3d.md 5.4, in s, t), or
    Maya, written in v-up: uv' = R(angle) (S uv + T - 1/2) + 1/2; the plan
    gives (u, v) = (s', 1 - t')."""
    import math

    plan = tg.texgen_plan(mode, srt)
    _check_form(plan)
    rng = ti.rng_for(mode)
    for _ in range(20):
        n = (rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1))
        s, t = (0.5 + 0.5 * n[0], 0.5 - 0.5 * n[1]) if mode == 6 else (n[0], n[1])
        if srt is not None and not srt[0]:
            _maya, sx, sy, a, tx, ty, cx, cy = srt
            ds, dt = s - cx, t - cy
            s, t = sx * (math.cos(a) * ds - math.sin(a) * dt) + cx + tx, \
                sy * (math.sin(a) * ds + math.cos(a) * dt) + cy + ty
        want = (s, 1.0 - t)
        if srt is not None and srt[0]:
            _maya, sx, sy, a, tx, ty, _cx, _cy = srt
            pu, pv = sx * s + tx - 0.5, sy * (1.0 - t) + ty - 0.5
            want = (math.cos(a) * pu - math.sin(a) * pv + 0.5, math.sin(a) * pu + math.cos(a) * pv + 0.5)
        got = ti.run(plan, {"Vector": n})["Vector"]
        assert got[:2] == pytest.approx(want, abs=1e-5)


# ---------------------------------------------------------------------------
# Folded stages (issue 31, Speed): constant operands that fold a combiner
# to a few nodes build them in the material's group, and wraps or clamps
# that cannot change a value are left out


def test_a_pass_through_stage_runs_no_combiner_or_output_group():
    """The model's default stage, RAS + PREV clamped (C = 0 picks A
    whole): RAS is a byte, so A needs no wrap; only the clamp (PREV is
    11 bits) and the output's / 255 stay; the only group built is the
    one that makes the inputs bytes.  PREV = 300 and -20 check the
    clamp both ways."""
    mat = one_stage(comb(a="RASC", d="CPREV"), comb(a="RASA", d="APREV"),
                    regs=[(0,) * 4] * 3 + [(300, -20, 7, 100)])
    plan = tg.plan(tg.config(mat))
    assert sorted(sub.name for sub in plan.groups.values()) == ["gameanim TEV bytes"]
    assert len(plan.nodes) <= 11
    assert run(mat, None, [(10, 30, 200, 100)]) == (255, 10, 207, 200, 1)


def _trivial_combiner(rng, inputs, compare_rate):
    c = ti._combiner(rng, inputs, ti.COLOR_COMPARES if "CPREV" in inputs else ti.ALPHA_COMPARES, compare_rate)
    c.c = rng.choice(("ZERO", "ONE") if "ONE" in inputs else ("ZERO", "ZERO", "KONST"))
    if rng.random() < 0.5:
        c.a = "ZERO"
    return c


@pytest.mark.parametrize("seed", range(30))
def test_folded_stages_match_the_reference(seed):
    """Stand-in materials whose weights C are mostly constants (0 or 255:
    the stage adds or passes a value) and whose A is often zero, so that
    most combiners fold into the material's group, against
    tests/tev_reference.py; registers beyond 11 bits and unclamped stages
    included."""
    rng = ti.rng_for(3000 + seed)
    mat = ti.random_material(rng, compare_rate=0.1)
    for st in mat.tev_stages:
        st.color = _trivial_combiner(rng, ti.COLOR_IN, 0.1)
        st.alpha = _trivial_combiner(rng, ti.ALPHA_IN, 0.1)
    plan = tg.plan(tg.config(mat))
    for p in [plan, *plan.groups.values()]:
        _check_form(p)
    n = len(mat.tev_stages)
    for _ in range(8):
        tex = [tuple(rng.randrange(256) for _ in range(4)) for _ in range(n)]
        ras = [tuple(rng.randrange(256) for _ in range(4)) for _ in range(n)]
        got = ti.bytes_of(ti.run(plan, ti.group_values(mat, tex, ras)))
        assert got == ref_pixel(mat, tex, ras), (seed, tex, ras)
