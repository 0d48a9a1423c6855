"""The plan of one shader node group that computes a material's TEV in
exact mode (../shared/formats/j3d_materials.md sections 2 and 5.2), as
plain data: no bpy here, so that the plan is tested without Blender and
importing/tev_nodes.py only builds what it says.

Exact mode works in 0..255 units on integers, which float32 holds
exactly below 2^24 (every node here keeps to that):

* inputs (0..1, as Blender samples a Non-Color image or holds a colour)
  become bytes by floor(x * 255 + 0.5);
* the A, B and C operands are their low 8 bits: WRAP(x, 256, 0);
* the lerp is A * 256 + (B - A) * c' with c' = C + floor(C / 128), and
  >> 8 is FLOOR(x / 256) (divisions only by powers of two, which are exact
  in float32 on every GPU and in Cycles);
* compares are made on the packed keys R, G * 256 + R, B * 65536 + G *
  256 + R (a DOT_PRODUCT with (1, 256, 65536));
* the last stage's registers are wrapped to 8 bits and divided by 255.

Colours travel as Vector sockets (colour sockets clamp below 0) and
alphas as Float sockets.  Each stage's TEX and RAS, the registers C0-C2,
PREV's start value (TEV colour slot 3) and the konst colours K0-K3 are
group inputs: colours are never part of the key, so materials that
differ only in colours share one group (config()).

The outputs are Color (0..1), Alpha (0..1) and Pass (the alpha test,
0 or 1).

The plan uses only nodes whose sockets have kept their order from
Blender 3.4 to 5.x: Math, Vector Math, Separate XYZ and Combine XYZ.
Sockets are named by index; a float linked into a vector input is
replicated into x, y and z (Blender's implicit conversion), and no
vector is ever linked into a float input.
"""
import hashlib
from dataclasses import dataclass, field

MATH = "ShaderNodeMath"
VMATH = "ShaderNodeVectorMath"
SEPARATE = "ShaderNodeSeparateXYZ"
COMBINE = "ShaderNodeCombineXYZ"
GROUP_INPUT = "Group Input"    # node names of the group's own input and
GROUP_OUTPUT = "Group Output"  # output nodes (sockets named, not indexed)

IDENTITY_SWAP = (0, 1, 2, 3)
COMPARES = ("COMP_R8_GT", "COMP_R8_EQ", "COMP_GR16_GT", "COMP_GR16_EQ", "COMP_BGR24_GT",
            "COMP_BGR24_EQ", "COMP_RGB8_GT", "COMP_RGB8_EQ", "COMP_A8_GT", "COMP_A8_EQ")
KEY_WEIGHTS = {"R8": (1.0, 0.0, 0.0), "GR16": (1.0, 256.0, 0.0), "BGR24": (1.0, 256.0, 65536.0)}
KONST_FRACTIONS = {"1": 255, "7_8": 223, "3_4": 191, "5_8": 159, "1_2": 128, "3_8": 96, "1_4": 64, "1_8": 32}
BIAS = {None: 0, "ZERO": 0, "ADDHALF": 128, "SUBHALF": -128}
SCALE_SHIFT = {None: 0, "SCALE_1": 0, "SCALE_2": 1, "SCALE_4": 2, "DIVIDE_2": 0}
REGISTERS = ("PREV", "REG0", "REG1", "REG2")
REGISTER_INPUTS = {"PREV": "PREV", "REG0": "C0", "REG1": "C1", "REG2": "C2"}


# ---------------------------------------------------------------------------
# The plan's data


@dataclass
class Node:
    name: str
    bl_idname: str
    operation: str = None
    defaults: dict = field(default_factory=dict)  # input index -> float or (x, y, z)


@dataclass
class Link:
    src: str         # node name
    src_socket: object  # output index, or a socket name on the group input
    dst: str
    dst_socket: object  # input index, or a socket name on the group output


@dataclass
class Plan:
    key: tuple
    name: str
    inputs: list   # [(socket name, 'FLOAT' or 'VECTOR')], in the group's order
    outputs: list  # the same for the outputs
    nodes: list
    links: list


@dataclass(frozen=True)
class Ref:
    """A node output inside the plan: kind 'F' (float) or 'V' (vector)."""
    node: str
    socket: object
    kind: str


# ---------------------------------------------------------------------------
# The configuration that a group depends on (its key)


def _is_compare(op):
    return op in COMPARES


def _combiner_key(c):
    compare = _is_compare(c.op)
    # J3D ignores bias and scale for compare ops (notes 2.1)
    return (c.a, c.b, c.c, c.d, c.op, None if compare else (c.bias or "ZERO"),
            None if compare else (c.scale or "SCALE_1"), bool(c.clamp), c.out or "PREV")


def _swap_table(material, index):
    tables = list(getattr(material, "swap_tables", None) or ())
    if index is None or not 0 <= index < len(tables):
        return IDENTITY_SWAP
    return tuple(int(x) for x in tables[index])


def config(material):
    """The hashable configuration the group of `material` depends on:
    per stage the colour and alpha combiners, the konst selects and the
    swap tables it uses (resolved, so that equal tables in other slots
    share), and the alpha test.  Colours are not part of it."""
    stages = []
    for st in material.tev_stages:
        col, alp = _combiner_key(st.color), _combiner_key(st.alpha)
        operands = col[:4] + alp[:4]
        uses = {s for s in operands}
        kc = st.konst_color if "KONST" in col[:4] else None
        ka = st.konst_alpha if "KONST" in alp[:4] else None
        tex = _swap_table(material, st.tex_swap) if uses & {"TEXC", "TEXA"} else None
        ras = _swap_table(material, st.ras_swap) if uses & {"RASC", "RASA"} else None
        stages.append((col, alp, kc, ka, tex, ras))
    ac = getattr(material, "alpha_compare", None)
    test = None if ac is None else (ac.comp0, int(ac.ref0), ac.op, ac.comp1, int(ac.ref1))
    return (tuple(stages), test)


def group_name(key):
    """A short, stable name per configuration."""
    digest = hashlib.sha1(repr(key).encode()).hexdigest()[:10]
    return f"gameanim TEV {len(key[0])}s {digest}"


# ---------------------------------------------------------------------------
# Building the plan: values are constants (float, or a 3-tuple for
# vectors) or Refs; operations on constants are folded here.


def _fold(op, a, b, c):
    """Blender's Math semantics for the operations the plan uses."""
    import math

    if op == "ADD":
        return a + b
    if op == "SUBTRACT":
        return a - b
    if op == "MULTIPLY":
        return a * b
    if op == "MULTIPLY_ADD":
        return a * b + c
    if op == "FLOOR":
        return float(math.floor(a))
    if op == "WRAP":
        return a - (b - c) * math.floor((a - c) / (b - c)) if b != c else c
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
    raise ValueError(op)


def _vec(x):
    return x if isinstance(x, tuple) else (float(x),) * 3


class _Graph:
    def __init__(self):
        self.nodes = []
        self.links = []
        self.inputs = {}  # name -> kind
        self._cache = {}

    def _node(self, bl_idname, operation=None):
        node = Node(f"n{len(self.nodes)}", bl_idname, operation)
        self.nodes.append(node)
        return node

    def _feed(self, node, index, value):
        if isinstance(value, Ref):
            self.links.append(Link(value.node, value.socket, node.name, index))
        else:
            node.defaults[index] = value

    def input(self, name, kind):
        self.inputs[name] = "VECTOR" if kind == "V" else "FLOAT"
        return Ref(GROUP_INPUT, name, kind)

    def op(self, kind, operation, a, b=0.0, c=0.0):
        """A Math (kind 'F') or Vector Math ('V') node, folded when its
        inputs are constants or neutral."""
        args = (a, b, c)
        assert kind == "V" or not any(isinstance(x, Ref) and x.kind == "V" for x in args), \
            "a vector never feeds a float input"
        if kind == "V" and all(x.kind == "F" if isinstance(x, Ref) else _vec(x)[0] == _vec(x)[1] == _vec(x)[2]
                               for x in args):
            # every input is one float replicated: a Math node gives the
            # same, replicated where a vector reads it
            kind, args = "F", tuple(x if isinstance(x, Ref) else _vec(x)[0] for x in args)
        if kind == "V":
            args = tuple(x if isinstance(x, Ref) else _vec(x) for x in args)
        if not any(isinstance(x, Ref) for x in args):
            if kind == "F":
                return _fold(operation, *args)
            return tuple(_fold(operation, *xs) for xs in zip(*args))
        short = _simplify(operation, *args)
        if short is not None:
            return short
        memo = (kind, operation, args)
        if memo in self._cache:
            return self._cache[memo]
        node = self._node(MATH if kind == "F" else VMATH, operation)
        for i, x in enumerate(args[:_ARITY[operation]]):
            self._feed(node, i, x)
        ref = Ref(node.name, 0, "V" if kind == "V" else "F")
        self._cache[memo] = ref
        return ref

    def dot(self, v, weights):
        """x * w0 + y * w1 + z * w2 of a vector (a float)."""
        if not isinstance(v, Ref):
            return sum(x * w for x, w in zip(_vec(v), weights))
        if v.kind == "F":
            return self.op("F", "MULTIPLY", v, sum(weights))
        node = self._node(VMATH, "DOT_PRODUCT")
        self._feed(node, 0, v)
        self._feed(node, 1, tuple(weights))
        return Ref(node.name, 1, "F")

    def split(self, v):
        """(x, y, z) floats of a vector."""
        if not isinstance(v, Ref):
            return tuple(v)
        if v.kind == "F":
            return (v, v, v)
        memo = ("split", v)
        if memo not in self._cache:
            node = self._node(SEPARATE)
            self._feed(node, 0, v)
            self._cache[memo] = tuple(Ref(node.name, i, "F") for i in range(3))
        return self._cache[memo]

    def join(self, x, y, z):
        if not any(isinstance(v, Ref) for v in (x, y, z)):
            return (x, y, z)
        if x == y == z:
            return x  # (one float, replicated where a vector is read)
        node = self._node(COMBINE)
        for i, v in enumerate((x, y, z)):
            self._feed(node, i, v)
        return Ref(node.name, 0, "V")

    def emit(self, kind, value):
        """A value as a node output (the group output takes links only)."""
        if isinstance(value, Ref) and value.node != GROUP_INPUT:
            return value
        node = self._node(MATH if kind == "F" else VMATH, "ADD")
        self._feed(node, 0, value if isinstance(value, Ref) or kind == "F" else _vec(value))
        self._feed(node, 1, 0.0 if kind == "F" else (0.0, 0.0, 0.0))
        return Ref(node.name, 0, kind)


_ARITY = {"ADD": 2, "SUBTRACT": 2, "MULTIPLY": 2, "MULTIPLY_ADD": 3, "FLOOR": 1, "WRAP": 3, "MINIMUM": 2,
          "MAXIMUM": 2, "ABSOLUTE": 1, "GREATER_THAN": 2, "LESS_THAN": 2, "COMPARE": 3}


def _is(x, value):
    return not isinstance(x, Ref) and (x == value or x == (value,) * 3)


def _simplify(op, a, b, c):
    """x + 0, x - 0, x * 1, x * 0, 0 * y + c, x * 1 + 0: no node needed."""
    if op == "ADD" and _is(b, 0.0):
        return a
    if op == "ADD" and _is(a, 0.0):
        return b
    if op == "SUBTRACT" and _is(b, 0.0):
        return a
    if op == "MULTIPLY" and (_is(a, 0.0) or _is(b, 0.0)):
        return 0.0
    if op == "MULTIPLY" and _is(b, 1.0):
        return a
    if op == "MULTIPLY" and _is(a, 1.0):
        return b
    if op == "MULTIPLY_ADD" and (_is(a, 0.0) or _is(b, 0.0)):
        return c
    if op == "MULTIPLY_ADD" and _is(b, 1.0) and _is(c, 0.0):
        return a
    return None


# ---------------------------------------------------------------------------
# Inputs, operands and registers


class _Sources:
    """What the stages read: rounded group inputs (made on first use) and
    the registers, with whether each is known to be a byte already (no
    8-bit wrap needed)."""

    def __init__(self, g):
        self.g = g
        self.regs = {r: {"rgb": None, "a": None, "rgb_byte": False, "a_byte": False} for r in REGISTERS}

    def byte_input(self, name, kind):
        """floor(x * 255 + 0.5) of a group input in 0..1 units."""
        memo = ("byte", name)
        if memo not in self.g._cache:
            x = self.g.input(name, kind)
            self.g._cache[memo] = self.g.op(kind, "FLOOR", self.g.op(kind, "MULTIPLY_ADD", x, 255.0, 0.5))
        return self.g._cache[memo]

    def colour(self, name, part, swap=IDENTITY_SWAP):
        """The rgb (part 'rgb') or alpha ('a') of an input colour, through
        a swap table: .rgb reads the swapped R, G, B and .a the swapped A."""
        if part == "a":
            if swap[3] == 3:
                return self.byte_input(name + " Alpha", "F")
            return self.g.split(self.byte_input(name, "V"))[swap[3]]
        if tuple(swap[:3]) == (0, 1, 2):
            return self.byte_input(name, "V")
        chans = list(self.g.split(self.byte_input(name, "V")))
        chans.append(self.byte_input(name + " Alpha", "F") if 3 in swap[:3] else None)
        return self.g.join(*(chans[i] for i in swap[:3]))

    def register(self, reg, part):
        r = self.regs[reg]
        if r[part] is None:
            name = REGISTER_INPUTS[reg] + ("" if part == "rgb" else " Alpha")
            r[part] = self.byte_input(name, "V" if part == "rgb" else "F")
        return r[part], r[part + "_byte"]

    def write(self, reg, part, value, is_byte):
        self.regs[reg][part] = value
        self.regs[reg][part + "_byte"] = is_byte


def _konst(src, g, sel, alpha):
    """A konst select's value: a constant fraction, K0-K3's rgb, or one
    channel of one of them replicated (notes 2.3)."""
    if sel in KONST_FRACTIONS:
        return float(KONST_FRACTIONS[sel])
    if sel and sel[0] == "K" and len(sel) == 2 and not alpha:
        return src.colour(sel, "rgb")
    if sel and sel[0] == "K" and len(sel) == 4:
        if sel[3] == "A":
            return src.colour(sel[:2], "a")
        return g.split(src.colour(sel[:2], "rgb"))["RGB".index(sel[3])]
    return 0.0  # reserved selects, and K0-K3 for alpha: 0


def _colour_operand(src, g, sel, stage, tex_swap, ras_swap, konst):
    """(value, is a byte) of a colour combiner input (notes 2.1)."""
    if sel in ("ZERO", "ONE", "HALF"):
        return {"ZERO": 0.0, "ONE": 255.0, "HALF": 128.0}[sel], True
    if sel == "KONST":
        return konst, True
    if sel[:3] in ("TEX", "RAS"):
        swap = tex_swap if sel[:3] == "TEX" else ras_swap
        return src.colour(f"{sel[:3]}{stage}", "rgb" if sel[3] == "C" else "a", swap), True
    reg = "PREV" if sel[1:] == "PREV" else "REG" + sel[1]
    return src.register(reg, "rgb" if sel[0] == "C" else "a")


def _alpha_operand(src, g, sel, stage, tex_swap, ras_swap, konst):
    if sel == "ZERO":
        return 0.0, True
    if sel == "KONST":
        return konst, True
    if sel in ("TEXA", "RASA"):
        return src.colour(f"{sel[:3]}{stage}", "a", tex_swap if sel == "TEXA" else ras_swap), True
    return src.register("PREV" if sel == "APREV" else "REG" + sel[1], "a")


def _low8(g, kind, value, is_byte):
    return value if is_byte else g.op(kind, "WRAP", value, 256.0, 0.0)


# ---------------------------------------------------------------------------
# The combiner arithmetic (notes 2.2)


def _regular(g, kind, comb, a, b, c, d):
    """V = (D + bias) * 2^s +- floor((A * 256 + (B - A) * c') * 2^s + r) / 256),
    halved (floor) for DIVIDE_2."""
    _, _, _, _, op, bias, scale, _, _ = comb
    s = 2.0 ** SCALE_SHIFT[scale]
    c1 = g.op(kind, "ADD", c, g.op(kind, "FLOOR", g.op(kind, "MULTIPLY", c, 1.0 / 128.0)))
    lerp = g.op(kind, "MULTIPLY_ADD", a, 256.0, g.op(kind, "MULTIPLY", g.op(kind, "SUBTRACT", b, a), c1))
    r = 0.0 if scale == "DIVIDE_2" else (128.0 if op == "ADD" else 127.0)
    lerp = g.op(kind, "FLOOR", g.op(kind, "MULTIPLY_ADD", lerp, s / 256.0, r / 256.0))
    base = g.op(kind, "MULTIPLY_ADD", d, s, BIAS[bias] * s)
    v = g.op(kind, "ADD" if op == "ADD" else "SUBTRACT", base, lerp)
    if scale == "DIVIDE_2":
        v = g.op(kind, "FLOOR", g.op(kind, "MULTIPLY", v, 0.5))
    return v


def _condition(g, kind, cmp, a, b):
    """1 or 0: A > B or A == B on the compare's key (kind 'V' for RGB8:
    one condition per channel)."""
    if kind == "V":  # RGB8, per channel, on integers
        diff = g.op("V", "SUBTRACT", a, b)
        if cmp == "GT":
            return g.op("V", "MINIMUM", g.op("V", "MAXIMUM", diff, 0.0), 1.0)
        return g.op("V", "MAXIMUM", g.op("V", "MULTIPLY_ADD", g.op("V", "ABSOLUTE", diff), -1.0, 1.0), 0.0)
    return g.op("F", "GREATER_THAN" if cmp == "GT" else "COMPARE", a, b, 0.5)


def _compare(g, kind, comb, keys, c, d):
    """V = D + (condition ? C : 0).  keys: (key A, key B, kind of the
    condition)."""
    cmp = comb[4].rsplit("_", 1)[1]
    cond = _condition(g, keys[2], cmp, keys[0], keys[1])
    return g.op(kind, "MULTIPLY_ADD", c, cond, d)


def _compare_keys(g, op, col_a, col_b, alp_a, alp_b, for_alpha):
    """The keys the compare op reads: packed from the colour operands
    (R8, GR16, BGR24; alpha stages too, as Dolphin's shader does), the
    channels themselves (RGB8), or the alpha operands (A8)."""
    mode = op.split("_")[1]
    if mode == "A8" or (for_alpha and mode == "RGB8"):
        return alp_a, alp_b, "F"
    if mode == "RGB8":
        return col_a, col_b, "V"
    w = KEY_WEIGHTS[mode]
    return g.dot(col_a, w), g.dot(col_b, w), "F"


def _clamp(g, kind, comb, v):
    lo, hi = (0.0, 255.0) if comb[7] else (-1024.0, 1023.0)
    return g.op(kind, "MINIMUM", g.op(kind, "MAXIMUM", v, lo), hi)


def _stage(g, src, stage_index, st):
    col, alp, kc, ka, tex_swap, ras_swap = st
    kcol = _konst(src, g, kc, False) if kc is not None else 0.0
    kalp = _konst(src, g, ka, True) if ka is not None else 0.0
    cin = [_colour_operand(src, g, s, stage_index, tex_swap, ras_swap, kcol) for s in col[:4]]
    ain = [_alpha_operand(src, g, s, stage_index, tex_swap, ras_swap, kalp) for s in alp[:4]]
    ca, cb, cc = (_low8(g, "V", v, byte) for v, byte in cin[:3])
    aa, ab, ac = (_low8(g, "F", v, byte) for v, byte in ain[:3])
    if _is_compare(col[4]):
        cv = _compare(g, "V", col, _compare_keys(g, col[4], ca, cb, aa, ab, False), cc, cin[3][0])
    else:
        cv = _regular(g, "V", col, ca, cb, cc, cin[3][0])
    if _is_compare(alp[4]):
        av = _compare(g, "F", alp, _compare_keys(g, alp[4], ca, cb, aa, ab, True), ac, ain[3][0])
    else:
        av = _regular(g, "F", alp, aa, ab, ac, ain[3][0])
    # both combiners read the registers as they were before the stage
    src.write(col[8], "rgb", _clamp(g, "V", col, cv), col[7])
    src.write(alp[8], "a", _clamp(g, "F", alp, av), alp[7])


# ---------------------------------------------------------------------------
# The alpha test (notes 2.4)


def _alpha_compare(g, func, alpha, ref):
    if func == "NEVER":
        return 0.0
    if func == "ALWAYS":
        return 1.0
    if func == "LESS":
        return g.op("F", "LESS_THAN", alpha, ref)
    if func == "LEQUAL":
        return g.op("F", "LESS_THAN", alpha, ref + 0.5)
    if func == "GREATER":
        return g.op("F", "GREATER_THAN", alpha, ref)
    if func == "GEQUAL":
        return g.op("F", "GREATER_THAN", alpha, ref - 0.5)
    eq = g.op("F", "COMPARE", alpha, ref, 0.5)
    return eq if func == "EQUAL" else g.op("F", "SUBTRACT", 1.0, eq)


def _alpha_test(g, alpha, test):
    if test is None:
        return 1.0
    comp0, ref0, op, comp1, ref1 = test
    p = _alpha_compare(g, comp0, alpha, float(ref0))
    q = _alpha_compare(g, comp1, alpha, float(ref1))
    if op == "AND":
        return g.op("F", "MULTIPLY", p, q)
    if op == "OR":
        return g.op("F", "MAXIMUM", p, q)
    if op == "XOR":
        return g.op("F", "ABSOLUTE", g.op("F", "SUBTRACT", p, q))
    return g.op("F", "COMPARE", p, q, 0.5)  # XNOR


# ---------------------------------------------------------------------------


def _input_order(name):
    """TEX/RAS per stage, then C0-C2, PREV, K0-K3; each colour before its
    alpha."""
    base, alpha = (name[:-6], 1) if name.endswith(" Alpha") else (name, 0)
    fixed = ["C0", "C1", "C2", "PREV", "K0", "K1", "K2", "K3"]
    if base in fixed:
        return (1, fixed.index(base), alpha)
    return (0, int(base[3:]), base[:3] != "TEX", alpha)


OUTPUTS = [("Color", "VECTOR"), ("Alpha", "FLOAT"), ("Pass", "FLOAT")]


def plan(key):
    """The node group for a configuration (config())."""
    stages, test = key
    g = _Graph()
    src = _Sources(g)
    for i, st in enumerate(stages):
        _stage(g, src, i, st)
    if stages:
        last_col, last_alp = stages[-1][0][8], stages[-1][1][8]
    else:
        last_col = last_alp = "PREV"
    rgb, rgb_byte = src.register(last_col, "rgb")
    a, a_byte = src.register(last_alp, "a")
    rgb = _low8(g, "V", rgb, rgb_byte)  # the output's & 255
    a = _low8(g, "F", a, a_byte)
    passed = _alpha_test(g, a, test)
    outs = {"Color": g.emit("V", g.op("V", "MULTIPLY", rgb, 1.0 / 255.0)),
            "Alpha": g.emit("F", g.op("F", "MULTIPLY", a, 1.0 / 255.0)),
            "Pass": g.emit("F", passed)}
    for name, ref in outs.items():
        g.links.append(Link(ref.node, ref.socket, GROUP_OUTPUT, name))
    inputs = sorted(((n, k) for n, k in g.inputs.items()), key=lambda nk: _input_order(nk[0]))
    return Plan(key, group_name(key), inputs, list(OUTPUTS), g.nodes, g.links)
