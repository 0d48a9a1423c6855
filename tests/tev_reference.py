"""An independent per-pixel model of the GX TEV, alpha test and lighting
equation, written from ../shared/formats/j3d_materials.md sections 2.2-2.4
and 3.1 (not from the C code): one pixel, one component at a time, on the
GX names that gameanim.Material reports.  The tests compare
Material.evaluate and Material.channel_color with it."""

# GX enumerations by value (GXEnum.h order; prefixes dropped)
COLOR_IN = ["CPREV", "APREV", "C0", "A0", "C1", "A1", "C2", "A2", "TEXC", "TEXA", "RASC", "RASA", "ONE", "HALF",
            "KONST", "ZERO"]
ALPHA_IN = ["APREV", "A0", "A1", "A2", "TEXA", "RASA", "KONST", "ZERO"]
COMPARES = ["COMP_R8_GT", "COMP_R8_EQ", "COMP_GR16_GT", "COMP_GR16_EQ", "COMP_BGR24_GT", "COMP_BGR24_EQ"]
COLOR_OP = {0: "ADD", 1: "SUB", **{8 + i: n for i, n in enumerate(COMPARES + ["COMP_RGB8_GT", "COMP_RGB8_EQ"])}}
ALPHA_OP = {0: "ADD", 1: "SUB", **{8 + i: n for i, n in enumerate(COMPARES + ["COMP_A8_GT", "COMP_A8_EQ"])}}
BIAS = ["ZERO", "ADDHALF", "SUBHALF"]
SCALE = ["SCALE_1", "SCALE_2", "SCALE_4", "DIVIDE_2"]
REG = ["PREV", "REG0", "REG1", "REG2"]
KSEL = {0: "1", 1: "7_8", 2: "3_4", 3: "5_8", 4: "1_2", 5: "3_8", 6: "1_4", 7: "1_8", 8: 8, 9: 9, 10: 10, 11: 11,
        12: "K0", 13: "K1", 14: "K2", 15: "K3",
        **{16 + 4 * c + k: f"K{k}_{'RGBA'[c]}" for c in range(4) for k in range(4)}}
CHANNEL = {0: "COLOR0", 1: "COLOR1", 2: "ALPHA0", 3: "ALPHA1", 4: "COLOR0A0", 5: "COLOR1A1", 6: "COLOR_ZERO",
           7: "ALPHA_BUMP", 8: "ALPHA_BUMPN", 0xFF: "COLOR_NULL"}
ALPHA_COMPARE = ["NEVER", "LESS", "EQUAL", "LEQUAL", "GREATER", "NEQUAL", "GEQUAL", "ALWAYS"]
ALPHA_LOGIC = ["AND", "OR", "XOR", "XNOR"]

FRACTION = {"1": 255, "7_8": 223, "3_4": 191, "5_8": 159, "1_2": 128, "3_8": 96, "1_4": 64, "1_8": 32}
MULT = {"SCALE_1": 1, "SCALE_2": 2, "SCALE_4": 4, "DIVIDE_2": 1}
BIAS_VALUE = {"ZERO": 0, "ADDHALF": 128, "SUBHALF": -128}


def s11(v):
    """A register load keeps the low 11 bits, signed."""
    return (v + 1024) % 2048 - 1024


def konst_value(sel, konst, comp, alpha):
    if isinstance(sel, int):          # 8-11: zero
        return 0
    if sel in FRACTION:
        return FRACTION[sel]
    if len(sel) == 2:                 # K0-K3: the rgb; zero as an alpha
        return 0 if alpha else konst[int(sel[1])][comp]
    return konst[int(sel[1])]["RGBA".index(sel[3])]


def color_input(name, comp, regs, tex, ras, kc):
    if name == "ZERO":
        return 0
    if name == "ONE":
        return 255
    if name == "HALF":
        return 128
    if name == "KONST":
        return kc[comp]
    if name in ("TEXC", "TEXA"):
        return tex[comp if name == "TEXC" else 3]
    if name in ("RASC", "RASA"):
        return ras[comp if name == "RASC" else 3]
    reg = {"PREV": "PREV", "0": "REG0", "1": "REG1", "2": "REG2"}[name[1:]]
    return regs[reg][comp if name[0] == "C" else 3]


def alpha_input(name, regs, tex, ras, ka):
    return {"ZERO": 0, "KONST": ka, "TEXA": tex[3], "RASA": ras[3], "APREV": regs["PREV"][3], "A0": regs["REG0"][3],
            "A1": regs["REG1"][3], "A2": regs["REG2"][3]}[name]


def clamp(v, on):
    lo, hi = (0, 255) if on else (-1024, 1023)
    return max(lo, min(hi, v))


def regular(half, a, b, c, d):
    a, b, c = a % 256, b % 256, c % 256      # the 8-bit operands wrap
    cc = c + (c >> 7)                       # 0..255 -> 0..256
    m = MULT[half.scale]
    lerp = (a * (256 - cc) + b * cc) * m
    if half.scale == "DIVIDE_2":
        rounding = 0
    else:
        rounding = 127 if half.op == "SUB" else 128
    lerp = (lerp + rounding) // 256
    v = (d + BIAS_VALUE[half.bias]) * m
    v = v - lerp if half.op == "SUB" else v + lerp
    if half.scale == "DIVIDE_2":
        v = v // 2                          # floor
    return clamp(v, half.clamp)


def key(op, rgb):
    r, g, b = (x % 256 for x in rgb[:3])
    if "R8" in op and "RGB8" not in op:
        return r
    if "GR16" in op:
        return g * 256 + r
    return b * 65536 + g * 256 + r


def test(op, x, y):
    return x > y if op.endswith("_GT") else x == y


def stage(st, regs, konst, swap_tables, tex_raw, ras_raw):
    """One stage on one pixel; regs is updated."""
    tex = [tex_raw[swap_tables[st.tex_swap][k]] for k in range(4)]
    ras = [ras_raw[swap_tables[st.ras_swap][k]] for k in range(4)]
    kc = [konst_value(st.konst_color, konst, k, False) for k in range(3)]
    ka = konst_value(st.konst_alpha, konst, 3, True)
    co, ao = st.color, st.alpha
    ins = {n: [color_input(getattr(co, n), k, regs, tex, ras, kc) for k in range(3)] for n in "abcd"}
    if co.op in ("ADD", "SUB"):
        rgb = [regular(co, ins["a"][k], ins["b"][k], ins["c"][k], ins["d"][k]) for k in range(3)]
    elif co.op.startswith("COMP_RGB8"):
        rgb = [clamp(ins["d"][k] + (ins["c"][k] % 256 if test(co.op, ins["a"][k] % 256, ins["b"][k] % 256) else 0),
                     co.clamp) for k in range(3)]
    else:
        hit = test(co.op, key(co.op, ins["a"]), key(co.op, ins["b"]))
        rgb = [clamp(ins["d"][k] + (ins["c"][k] % 256 if hit else 0), co.clamp) for k in range(3)]
    a, b, c, d = (alpha_input(getattr(ao, n), regs, tex, ras, ka) for n in "abcd")
    if ao.op in ("ADD", "SUB"):
        alpha = regular(ao, a, b, c, d)
    elif ao.op.startswith("COMP_A8"):
        alpha = clamp(d + (c % 256 if test(ao.op, a % 256, b % 256) else 0), ao.clamp)
    else:
        # R8 / GR16 / BGR24 on the alpha half compare the colour half's A and B
        alpha = clamp(d + (c % 256 if test(ao.op, key(ao.op, ins["a"]), key(ao.op, ins["b"])) else 0), ao.clamp)
    regs[co.out][:3] = rgb
    regs[ao.out][3] = alpha


def alpha_test(ac, alpha):
    def one(comp, ref):
        return {"NEVER": False, "LESS": alpha < ref, "EQUAL": alpha == ref, "LEQUAL": alpha <= ref,
                "GREATER": alpha > ref, "NEQUAL": alpha != ref, "GEQUAL": alpha >= ref, "ALWAYS": True}[comp]
    p0, p1 = one(ac.comp0, ac.ref0), one(ac.comp1, ac.ref1)
    return {"AND": p0 and p1, "OR": p0 or p1, "XOR": p0 != p1, "XNOR": p0 == p1}[ac.op]


def evaluate_pixel(mat, tex, ras, konst=None, tev_colors=None, tex_default=255):
    """(r, g, b, a), passed for one pixel: tex[s] / ras[s] are 4 bytes or
    None per stage."""
    konst = konst or mat.konst_colors
    slots = tev_colors or mat.tev_colors
    regs = {"PREV": [s11(v) for v in slots[3]], "REG0": [s11(v) for v in slots[0]],
            "REG1": [s11(v) for v in slots[1]], "REG2": [s11(v) for v in slots[2]]}
    for s, st in enumerate(mat.tev_stages):
        t = tex[s] if tex[s] is not None else [tex_default] * 4
        r = ras[s] if ras[s] is not None else [0] * 4
        stage(st, regs, konst, mat.swap_tables, t, r)
    last = mat.tev_stages[-1] if mat.tev_stages else None
    rgb = regs[last.color.out if last else "PREV"][:3]
    a = regs[last.alpha.out if last else "PREV"][3]
    out = tuple(v % 256 for v in rgb + [a])  # the final & 255
    return out, alpha_test(mat.alpha_compare, out[3])


def channel_color(mat, channel, vertex, light):
    """Section 3.1 for white lights of intensity `light`, no attenuation."""
    out = []
    for k in range(4):
        ctrl = mat.channels[2 * channel + (1 if k == 3 else 0)]
        m = vertex[k] if ctrl.material_source == "VTX" else mat.mat_colors[channel][k]
        if not ctrl.lighting:
            out.append(m)
            continue
        amb = vertex[k] if ctrl.ambient_source == "VTX" else mat.amb_colors[channel][k]
        diff = {"NONE": 1.0, "SIGN": light, "CLAMP": max(light, 0.0)}[ctrl.diffuse]
        total = amb + bin(ctrl.light_mask).count("1") * 255 * diff
        lit = int(max(0, min(255, total)))
        out.append(m * (lit + (lit >> 7)) >> 8)
    return tuple(out)
