"""A small interpreter of shared/tev_graph.py's plans: what Blender's
Math, Vector Math, Separate XYZ and Combine XYZ nodes compute, written
from Blender's node definitions (Cycles svm_math_util.h, the GLSL node
library), with every node output rounded to float32 as the GPU and Cycles
keep it.  Also random stand-in materials with the attributes of issue
31's API contract, for tests that run before (or without) the C module.
"""
import math
import random
import struct
import sys
from pathlib import Path
from types import SimpleNamespace

_ADDON = str(Path(__file__).resolve().parent.parent / "blender_addon")
if _ADDON not in sys.path:  # (the add-on's shared layer imports without bpy)
    sys.path.insert(0, _ADDON)

from io_anim_gameanim.shared import tev_graph as tg  # noqa: E402


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _math(op, a, b, c):
    # (written again here rather than taken from tev_graph's constant
    # folding: the interpreter states Blender's semantics independently of
    # the module it checks)
    if op == "ADD":
        return a + b
    if op == "SUBTRACT":
        return a - b
    if op == "MULTIPLY":
        return a * b
    if op == "MULTIPLY_ADD":
        return a * b + c
    if op == "FLOOR":
        return math.floor(a)
    if op == "WRAP":  # wrapf(value, max, min)
        rng = b - c
        return a - rng * math.floor((a - c) / rng) if rng != 0 else c
    if op == "PINGPONG":  # pingpongf(value, scale)
        return abs(((a - b) / (2 * b) - math.floor((a - b) / (2 * b))) * 2 * b - b) if b else 0.0
    if op == "MINIMUM":
        return min(a, b)
    if op == "MAXIMUM":
        return max(a, b)
    if op == "ABSOLUTE":
        return abs(a)
    if op == "GREATER_THAN":
        return 1.0 if a > b else 0.0
    if op == "LESS_THAN":
        return 1.0 if a < b else 0.0
    if op == "COMPARE":
        return 1.0 if abs(a - b) <= max(c, 1e-5) else 0.0
    raise AssertionError(f"operation {op} is not modelled")


def _as_vector(v):
    return v if isinstance(v, tuple) else (v, v, v)  # float -> vector: replicated


def _as_float(v, where):
    assert not isinstance(v, tuple), f"{where}: a vector feeds a float input (Blender would average it)"
    return v


def run(plan, values):
    """The group's outputs {name: value} for {input name: float or (x, y, z)}."""
    out = {tg.GROUP_INPUT: {name: (tuple(map(f32, values[name])) if kind == "VECTOR" else f32(values[name]))
                            for name, kind in plan.inputs}}
    feeds = {}
    for lk in plan.links:
        feeds.setdefault(lk.dst, []).append(lk)
    for node in plan.nodes:
        assert node.name not in out
        # (a plan lists nodes after the nodes they read)
        got = {lk.dst_socket: out[lk.src][lk.src_socket] for lk in feeds.get(node.name, ())}
        ins = dict(node.defaults)
        ins.update(got)
        out[node.name] = _group(plan.groups[node.group], ins) if node.bl_idname == tg.GROUP else _eval(node, ins)
    kinds = dict(plan.outputs)
    res = {lk.dst_socket: out[lk.src][lk.src_socket] for lk in feeds.get(tg.GROUP_OUTPUT, ())}
    return {k: _as_vector(v) if kinds[k] == "VECTOR" else _as_float(v, k) for k, v in res.items()}


def _group(sub, ins):
    """A group node: its inputs converted to the sub-group's socket types
    (an unlinked socket without a value holds 0, as a new socket does)."""
    values = {}
    for name, kind in sub.inputs:
        v = ins.get(name, 0.0)
        values[name] = _as_vector(v) if kind == "VECTOR" else _as_float(v, sub.name + ": " + name)
    return run(sub, values)


def _eval(node, ins):
    if node.bl_idname == tg.MATH:
        a, b, c = (_as_float(ins.get(i, 0.5), node.name) for i in range(3))
        return {0: f32(_math(node.operation, a, b, c))}
    if node.bl_idname == tg.VMATH:
        a, b, c = (_as_vector(ins.get(i, (0.0, 0.0, 0.0))) for i in range(3))
        if node.operation == "DOT_PRODUCT":
            return {1: f32(sum(x * y for x, y in zip(a, b)))}
        return {0: tuple(f32(_math(node.operation, *xs)) for xs in zip(a, b, c))}
    if node.bl_idname == tg.SEPARATE:
        return dict(enumerate(_as_vector(ins[0])))
    if node.bl_idname == tg.COMBINE:
        return {0: tuple(_as_float(ins[i], node.name) for i in range(3))}
    raise AssertionError(node.bl_idname)


# ---------------------------------------------------------------------------
# Random stand-ins with the contract's names

COLOR_IN = ("CPREV", "APREV", "C0", "A0", "C1", "A1", "C2", "A2", "TEXC", "TEXA", "RASC", "RASA",
            "ONE", "HALF", "KONST", "ZERO")
ALPHA_IN = ("APREV", "A0", "A1", "A2", "TEXA", "RASA", "KONST", "ZERO")
OPS = ("ADD", "SUB")
COLOR_COMPARES = ("COMP_R8_GT", "COMP_R8_EQ", "COMP_GR16_GT", "COMP_GR16_EQ", "COMP_BGR24_GT",
                  "COMP_BGR24_EQ", "COMP_RGB8_GT", "COMP_RGB8_EQ")
ALPHA_COMPARES = COLOR_COMPARES[:6] + ("COMP_A8_GT", "COMP_A8_EQ")
KSEL = ("1", "7_8", "3_4", "5_8", "1_2", "3_8", "1_4", "1_8", "K0", "K1", "K2", "K3") + tuple(
    f"K{k}_{c}" for c in "RGBA" for k in range(4))
KASEL = ("1", "7_8", "3_4", "5_8", "1_2", "3_8", "1_4", "1_8") + tuple(f"K{k}_{c}" for c in "RGBA" for k in range(4))
COMPS = ("NEVER", "LESS", "EQUAL", "LEQUAL", "GREATER", "NEQUAL", "GEQUAL", "ALWAYS")


def _combiner(rng, inputs, compares, compare_rate):
    compare = rng.random() < compare_rate
    return SimpleNamespace(
        a=rng.choice(inputs), b=rng.choice(inputs), c=rng.choice(inputs), d=rng.choice(inputs),
        op=rng.choice(compares) if compare else rng.choice(OPS),
        bias=None if compare else rng.choice(("ZERO", "ADDHALF", "SUBHALF")),
        scale=rng.choice(("SCALE_1", "SCALE_2", "SCALE_4", "DIVIDE_2")),
        clamp=rng.random() < 0.6, out=rng.choice(("PREV", "REG0", "REG1", "REG2")))


def random_material(rng, stages=None, compare_rate=0.25):
    n = stages if stages is not None else rng.randint(1, 16)
    st = [SimpleNamespace(color=_combiner(rng, COLOR_IN, COLOR_COMPARES, compare_rate),
                          alpha=_combiner(rng, ALPHA_IN, ALPHA_COMPARES, compare_rate),
                          konst_color=rng.choice(KSEL), konst_alpha=rng.choice(KASEL),
                          tex_coord=0, tex_map=0, channel="COLOR0A0",
                          ras_swap=rng.randrange(4), tex_swap=rng.randrange(4)) for _ in range(n)]
    tables = [(0, 1, 2, 3)] + [tuple(rng.randrange(4) for _ in range(4)) for _ in range(3)]
    return SimpleNamespace(
        tev_stages=st, swap_tables=tables,
        konst_colors=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(4)],
        # (s16 in the file; a register load keeps 11 bits)
        tev_colors=[tuple(rng.randint(-2048, 2047) for _ in range(4)) for _ in range(4)],
        alpha_compare=SimpleNamespace(comp0=rng.choice(COMPS), ref0=rng.randrange(256),
                                      op=rng.choice(("AND", "OR", "XOR", "XNOR")),
                                      comp1=rng.choice(COMPS), ref1=rng.randrange(256)))


def group_values(material, tex, ras, konst=None, tev_colors=None):
    """The group's input values for one pixel: tex and ras are per stage
    RGBA bytes; registers and konst colours from the material unless
    given (all /255, as Blender holds them)."""
    konst = konst if konst is not None else material.konst_colors
    regs = tev_colors if tev_colors is not None else material.tev_colors
    vals = {}
    for i in range(len(material.tev_stages)):
        for name, px in (("TEX", tex[i]), ("RAS", ras[i])):
            if px is not None:
                vals[f"{name}{i}"] = tuple(px[j] / 255.0 for j in range(3))
                vals[f"{name}{i} Alpha"] = px[3] / 255.0
    for name, px in zip(("C0", "C1", "C2", "PREV"), regs):
        vals[name] = tuple(px[j] / 255.0 for j in range(3))
        vals[name + " Alpha"] = px[3] / 255.0
    for k, px in enumerate(konst):
        vals[f"K{k}"] = tuple(px[j] / 255.0 for j in range(3))
        vals[f"K{k} Alpha"] = px[3] / 255.0
    return vals


def bytes_of(result):
    """(r, g, b, a, passed) as ints from the group's outputs."""
    rgb = tuple(int(math.floor(v * 255.0 + 0.5)) for v in result["Color"])
    return rgb + (int(math.floor(result["Alpha"] * 255.0 + 0.5)), int(result["Pass"]))


def rng_for(seed):
    return random.Random(seed)


def real_material(rng, stages=None, compare_rate=0.25):
    """A gameanim.Material with a random TEV state, written into a model
    by tools/make_models.py and read back (the C side's Material, with
    evaluate())."""
    import gameanim

    root = str(Path(__file__).resolve().parent.parent)
    if root not in sys.path:
        sys.path.append(root)
    from tools import make_models as mm

    def half(alpha):
        op = rng.choice(range(8, 16)) if rng.random() < compare_rate else rng.randrange(2)
        n = 8 if alpha else 16
        return (rng.randrange(n), rng.randrange(n), rng.randrange(n), rng.randrange(n), op,
                rng.randrange(3), rng.randrange(4), rng.randrange(2), rng.randrange(4))

    n = stages if stages is not None else rng.randint(1, 16)
    m = mm.material(
        "m", stages=[(0, 0, 4)] * n, textures=(0,), texgens=((1, 4, 60),),
        tev=[(half(False), half(True)) for _ in range(n)],
        konst_sel=[(rng.randrange(32), rng.randrange(32)) for _ in range(n)],
        swap_modes=[(rng.randrange(4), rng.randrange(4)) for _ in range(n)],
        swap_tables=[tuple(rng.randrange(4) for _ in range(4)) for _ in range(4)],
        konst=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(4)],
        tev_colors=[tuple(rng.randint(-2048, 2047) for _ in range(4)) for _ in range(4)],
        alpha_compare=(rng.randrange(8), rng.randrange(256), rng.randrange(4), rng.randrange(8), rng.randrange(256)))
    data = mm.write_j3d_model([mm.joint("root")], [-1], extra_chunks=[("MAT3", mm.mat3_body([m]))])
    return gameanim.load_model(data).materials[0]
