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

Blender updates a node tree after every node, link and value set from
Python, so building one tree costs the square of its size (a flat
16-stage plan of 400 nodes took 2.6 s in 5.0).  A material's group is
therefore small: per stage it runs two shared groups, one per combiner
kind (combiner_plan: colour or alpha, op, bias, scale, clamp; ~17 nodes
each, built once for every material and model), with the stage's
operands linked in or set as constants on the group node; bytes_plan
rounds the inputs and output_plan wraps the last registers and runs the
alpha test.  Swap tables and konst channel selects stay in the
material's group.  A combiner or an output that its constants fold to
a few nodes (a stage that adds or passes values: a constant weight C of
0 or 255 picks A or B whole) is built in the material's group instead,
and a wrap or clamp that cannot change its value (a byte wrapped to 8
bits or clamped to 0..255: _Graph.ranges) is left out, so that a
simple material builds few groups.

The plan uses only nodes whose sockets have kept their order from
Blender 3.4 to 5.x: Math, Vector Math, Separate XYZ and Combine XYZ,
group nodes (sockets by name) and, in the sRGB group, Gamma.  Math
sockets are named by index; a float linked into a vector input is
replicated into x, y and z (Blender's implicit conversion), and no
vector is ever linked into a float input.
"""
import hashlib
import math
from dataclasses import dataclass, field
from functools import lru_cache

MATH = "ShaderNodeMath"
VMATH = "ShaderNodeVectorMath"
SEPARATE = "ShaderNodeSeparateXYZ"
COMBINE = "ShaderNodeCombineXYZ"
GAMMA = "ShaderNodeGamma"  # (the sRGB group only: Color, Gamma; output Color)
GROUP = "ShaderNodeGroup"
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
PREFIX = "gameanim TEV"


# ---------------------------------------------------------------------------
# The plan's data


@dataclass
class Node:
    name: str
    bl_idname: str
    operation: str = None
    defaults: dict = field(default_factory=dict)  # input index (name on a group node) -> float or (x, y, z)
    group: str = None  # a group node: the name of the sub-plan it runs


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
    groups: dict = field(default_factory=dict)  # name -> Plan of the groups its group nodes run
    ranges: dict = field(default_factory=dict)  # output name -> (lo, hi) that it holds (_Graph.ranges)


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
    return f"{PREFIX} {len(key[0])}s {digest}"


# ---------------------------------------------------------------------------
# Building the plan: values are constants (float, or a 3-tuple for
# vectors) or Refs; operations on constants are folded here.


def _fold(op, a, b, c):
    """Blender's Math semantics for the operations the plan uses."""
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
    if op == "POWER":
        return a ** b if a >= 0.0 else 0.0
    if op == "PINGPONG":
        return abs(((a - b) / (2 * b) - math.floor((a - b) / (2 * b))) * 2 * b - b) if b else 0.0
    raise ValueError(op)


def _vec(x):
    return x if isinstance(x, tuple) else (float(x),) * 3


_ANY = (-math.inf, math.inf)


class _Graph:
    """Nodes and links in the making.  ranges: what each node output can
    hold, for the inputs the plan assumes (a colour input 0..1), so that
    a wrap or a clamp that cannot change its value needs no node (every
    value is an integer held exactly in float32, and float operations are
    monotonic, so the bounds hold for the float results too)."""

    def __init__(self, prefix="n"):
        self.nodes = []
        self.links = []
        self.inputs = {}  # name -> kind
        self.groups = {}
        self.ranges = {}  # Ref -> (lo, hi)
        self._cache = {}
        self._prefix = prefix

    def bounds(self, x):
        if isinstance(x, Ref):
            return self.ranges.get(x, _ANY)
        if isinstance(x, tuple):
            return (min(x), max(x))
        return (x, x)

    def _node(self, bl_idname, operation=None):
        node = Node(f"{self._prefix}{len(self.nodes)}", bl_idname, operation)
        self.nodes.append(node)
        return node

    def _feed(self, node, index, value):
        if isinstance(value, Ref):
            self.links.append(Link(value.node, value.socket, node.name, index))
        else:
            node.defaults[index] = value

    def input(self, name, kind, bounds=_ANY):
        self.inputs[name] = "VECTOR" if kind == "V" else "FLOAT"
        ref = Ref(GROUP_INPUT, name, kind)
        self.ranges[ref] = bounds
        return ref

    def group(self, sub, values):
        """A group node running sub-plan `sub` with {input name: value}
        (inputs left out are unused); {output name: Ref}."""
        node = self._node(GROUP, None)
        node.group = sub.name
        self.groups[sub.name] = sub
        self.groups.update(sub.groups)
        kinds = dict(sub.inputs)
        for name, value in values.items():
            self._feed(node, name, _vec(value) if kinds[name] == "VECTOR" and not isinstance(value, Ref) else value)
        outs = {name: Ref(node.name, name, "V" if kind == "VECTOR" else "F") for name, kind in sub.outputs}
        for name, ref in outs.items():
            self.ranges[ref] = sub.ranges.get(name, _ANY)
        return outs

    def finish(self, key, name, outputs):
        """The plan of this graph; outputs {name: (kind, value)}."""
        ranges = {}
        for out, (kind, value) in outputs.items():
            ranges[out] = self.bounds(value)
            ref = self.emit(kind, value)
            self.links.append(Link(ref.node, ref.socket, GROUP_OUTPUT, out))
        kinds = [(n, "VECTOR" if k == "V" else "FLOAT") for n, (k, _) in outputs.items()]
        return Plan(key, name, list(self.inputs.items()), kinds, self.nodes, self.links, self.groups, ranges)

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
        spans = [self.bounds(x) for x in args]
        short = _within(operation, args, spans)
        if short is not None:
            return short
        memo = (kind, operation, args)
        if memo in self._cache:
            return self._cache[memo]
        node = self._node(MATH if kind == "F" else VMATH, operation)
        for i, x in enumerate(args[:_ARITY[operation]]):
            self._feed(node, i, x)
        ref = Ref(node.name, 0, "V" if kind == "V" else "F")
        self.ranges[ref] = _span(operation, spans)
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
          "MAXIMUM": 2, "ABSOLUTE": 1, "GREATER_THAN": 2, "LESS_THAN": 2, "COMPARE": 3,
          "POWER": 2, "PINGPONG": 2}


def _is(x, value):
    return not isinstance(x, Ref) and (x == value or x == (value,) * 3)


def _within(op, args, spans):
    """The input itself, where its range makes a wrap or a clamp a no-op
    (a byte wrapped to 8 bits, a byte clamped to 0..255)."""
    (a0, a1), (b0, b1), (c0, _c1) = spans
    if op == "WRAP" and not isinstance(args[1], Ref) and not isinstance(args[2], Ref) and c0 <= a0 and a1 < b0:
        return args[0]
    if op == "MAXIMUM":
        return args[0] if a0 >= b1 else args[1] if b0 >= a1 else None
    if op == "MINIMUM":
        return args[0] if a1 <= b0 else args[1] if b1 <= a0 else None
    return None


def _span(op, spans):
    """The range of a node's output from its inputs' ranges (_ANY where
    not worked out)."""
    (a0, a1), (b0, b1), (c0, c1) = spans

    def product(x0, x1, y0, y1):
        ps = [x * y for x in (x0, x1) for y in (y0, y1)]
        return _ANY if any(math.isnan(p) for p in ps) else (min(ps), max(ps))

    if op == "ADD":
        out = (a0 + b0, a1 + b1)
    elif op == "SUBTRACT":
        out = (a0 - b1, a1 - b0)
    elif op == "MULTIPLY":
        out = product(a0, a1, b0, b1)
    elif op == "MULTIPLY_ADD":
        p0, p1 = product(a0, a1, b0, b1)
        out = (p0 + c0, p1 + c1)
    elif op == "FLOOR":
        out = (math.floor(a0) if math.isfinite(a0) else a0, math.floor(a1) if math.isfinite(a1) else a1)
    elif op == "MINIMUM":
        out = (min(a0, b0), min(a1, b1))
    elif op == "MAXIMUM":
        out = (max(a0, b0), max(a1, b1))
    elif op == "WRAP" and b0 == b1 and c0 == c1 and b0 > c0:
        out = (c0, b0)  # (b itself excluded: closed bounds are a superset)
    elif op in ("GREATER_THAN", "LESS_THAN", "COMPARE"):
        out = (0.0, 1.0)
    else:
        out = _ANY
    return _ANY if any(math.isnan(x) for x in out) else out


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
# The combiner arithmetic (notes 2.2), in 0..255 units


def _regular(g, kind, op, bias, scale, a, b, c, d):
    """V = (D + bias) * 2^s +- floor((A * 256 + (B - A) * c') * 2^s + r) / 256),
    halved (floor) for DIVIDE_2."""
    s = 2.0 ** SCALE_SHIFT[scale]
    c1 = g.op(kind, "ADD", c, g.op(kind, "FLOOR", g.op(kind, "MULTIPLY", c, 1.0 / 128.0)))
    r = 0.0 if scale == "DIVIDE_2" else (128.0 if op == "ADD" else 127.0)
    if not isinstance(c1, Ref) and c1 in (0.0, 256.0):
        # a constant weight that picks A or B whole: floor((X * 256 * 2^s
        # + r) / 256) is X * 2^s for an integer X and r < 256
        lerp = g.op(kind, "MULTIPLY", b if c1 else a, s)
    else:
        lerp = g.op(kind, "MULTIPLY_ADD", a, 256.0, g.op(kind, "MULTIPLY", g.op(kind, "SUBTRACT", b, a), c1))
        lerp = g.op(kind, "FLOOR", g.op(kind, "MULTIPLY_ADD", lerp, s / 256.0, r / 256.0))
    base = g.op(kind, "MULTIPLY_ADD", d, s, BIAS[bias] * s)
    v = g.op(kind, "ADD" if op == "ADD" else "SUBTRACT", base, lerp)
    if scale == "DIVIDE_2":
        v = g.op(kind, "FLOOR", g.op(kind, "MULTIPLY", v, 0.5))
    return v


def _condition(g, kind, cmp, a, b):
    """1 or 0: A > B or A == B (kind 'V' for RGB8: one condition per
    channel), on integers."""
    if kind == "V":
        diff = g.op("V", "SUBTRACT", a, b)
        if cmp == "GT":
            return g.op("V", "MINIMUM", g.op("V", "MAXIMUM", diff, 0.0), 1.0)
        return g.op("V", "MAXIMUM", g.op("V", "MULTIPLY_ADD", g.op("V", "ABSOLUTE", diff), -1.0, 1.0), 0.0)
    return g.op("F", "GREATER_THAN" if cmp == "GT" else "COMPARE", a, b, 0.5)


def _low8(g, kind, value):
    return g.op(kind, "WRAP", value, 256.0, 0.0)


def _needs_colour_keys(part, op):
    """An alpha compare on R8, GR16 or BGR24 packs its keys from the
    colour combiner's A and B, as Dolphin's shader does."""
    return part == "alpha" and _is_compare(op) and op.split("_")[1] in KEY_WEIGHTS


@lru_cache(maxsize=None)
def combiner_plan(part, op, bias, scale, clamp):
    """One colour ('color': Vector sockets) or alpha ('alpha': Float)
    combiner: inputs A, B, C, D (any register value: A, B and C are
    wrapped to their low 8 bits here), plus Colour A and Colour B for an
    alpha compare on packed colour keys; output Out, clamped."""
    kind = "V" if part == "color" else "F"
    g = _Graph()
    values = {n: g.input(n, kind) for n in "ABCD"}
    if _needs_colour_keys(part, op):
        values.update({n: g.input(n, "V") for n in ("Colour A", "Colour B")})
    v = _combine(g, part, op, bias, scale, clamp, values)
    name = f"{PREFIX} {part} {op} {bias or ''} {scale or ''} {'clamp' if clamp else 's11'}"
    return g.finish(("combiner", part, op, bias, scale, clamp), " ".join(name.split()), {"Out": (kind, v)})


def _combine(g, part, op, bias, scale, clamp, values):
    """A combiner's output in graph g from its operands {A, B, C, D and,
    for an alpha compare on colour keys, Colour A and Colour B}."""
    kind = "V" if part == "color" else "F"
    d = values["D"]
    a8, b8, c8 = (_low8(g, kind, values[x]) for x in "ABC")
    if _is_compare(op):
        mode, cmp = op.split("_")[1:]
        if mode in KEY_WEIGHTS:
            ka, kb = (a8, b8) if part == "color" else \
                (_low8(g, "V", values["Colour A"]), _low8(g, "V", values["Colour B"]))
            cond = _condition(g, "F", cmp, g.dot(ka, KEY_WEIGHTS[mode]), g.dot(kb, KEY_WEIGHTS[mode]))
        else:  # RGB8 per channel, A8 on alpha
            cond = _condition(g, kind, cmp, a8, b8)
        v = g.op(kind, "MULTIPLY_ADD", c8, cond, d)
    else:
        v = _regular(g, kind, op, bias, scale, a8, b8, c8, d)
    lo, hi = (0.0, 255.0) if clamp else (-1024.0, 1023.0)
    return g.op(kind, "MINIMUM", g.op(kind, "MAXIMUM", v, lo), hi)


INLINE_NODES = 3  # a combiner or an output folded to this many nodes is built in the material's group


def _inline_size(g, build, values):
    """How many nodes build(graph, values) makes on a scratch copy of g's
    ranges (nothing is added to g)."""
    trial = _Graph(prefix="t")
    trial.ranges = dict(g.ranges)
    build(trial, values)
    return len(trial.nodes)


@lru_cache(maxsize=None)
def bytes_plan():
    """floor(x * 255 + 0.5) of a colour and an alpha in 0..1 units, then
    the low 11 bits, signed, as a register load (C0-C2, PREV) keeps
    them.  One group for every input: the wrap leaves a colour's byte
    (0..255, from a texture sample, a vertex colour, a konst or material
    colour in 0..1) as it is, and _Sources knows its range."""
    g = _Graph()
    rgb = g.op("V", "FLOOR", g.op("V", "MULTIPLY_ADD", g.input("Color", "V"), 255.0, 0.5))
    a = g.op("F", "FLOOR", g.op("F", "MULTIPLY_ADD", g.input("Alpha", "F"), 255.0, 0.5))
    rgb, a = g.op("V", "WRAP", rgb, 1024.0, -1024.0), g.op("F", "WRAP", a, 1024.0, -1024.0)
    return g.finish(("bytes", "s11"), f"{PREFIX} bytes", {"Color": ("V", rgb), "Alpha": ("F", a)})


# ---------------------------------------------------------------------------
# The alpha test (notes 2.4) and the output


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


@lru_cache(maxsize=None)
def output_plan(test):
    """The last registers & 255, as 0..1, and the alpha test's 0/1."""
    g = _Graph()
    outs = _output(g, test, {"Color": g.input("Color", "V"), "Alpha": g.input("Alpha", "F")})
    name = "always" if test is None else " ".join(str(x) for x in test)
    return g.finish(("out", test), f"{PREFIX} out {name}", {
        "Color": ("V", outs["Color"]), "Alpha": ("F", outs["Alpha"]), "Pass": ("F", outs["Pass"])})


def _output(g, test, values):
    rgb = _low8(g, "V", values["Color"])
    a = _low8(g, "F", values["Alpha"])
    return {"Color": g.op("V", "MULTIPLY", rgb, 1.0 / 255.0), "Alpha": g.op("F", "MULTIPLY", a, 1.0 / 255.0),
            "Pass": _alpha_test(g, a, test)}


# ---------------------------------------------------------------------------
# The material's group: inputs, operands, registers, stages


class _Sources:
    """What the stages read: group inputs made bytes (a bytes group node
    per colour, made on first use, its inputs linked as they are read) and
    the registers."""

    def __init__(self, g):
        self.g = g
        self.regs = {r: {"rgb": None, "a": None} for r in REGISTERS}
        self._bytes = {}  # colour name -> (group node, its outputs, parts linked)

    def _part(self, name, part):
        if name not in self._bytes:
            outs = self.g.group(bytes_plan(), {})
            if name not in REGISTER_INPUTS.values():
                for ref in outs.values():  # (a colour in 0..1: a byte)
                    self.g.ranges[ref] = (0.0, 255.0)
            self._bytes[name] = (self.g.nodes[-1], outs, set())
        node, outs, linked = self._bytes[name]
        socket = "Color" if part == "rgb" else "Alpha"
        if part not in linked:
            linked.add(part)
            self.g._feed(node, socket, self.g.input(name + ("" if part == "rgb" else " Alpha"),
                                                    "V" if part == "rgb" else "F"))
        return outs[socket]

    def colour(self, name, part, swap=IDENTITY_SWAP):
        """The rgb (part 'rgb') or alpha ('a') of an input colour, through
        a swap table: .rgb reads the swapped R, G, B and .a the swapped A."""
        if part == "a":
            if swap[3] == 3:
                return self._part(name, "a")
            return self.g.split(self._part(name, "rgb"))[swap[3]]
        if tuple(swap[:3]) == (0, 1, 2):
            return self._part(name, "rgb")
        chans = list(self.g.split(self._part(name, "rgb")))
        chans.append(self._part(name, "a") if 3 in swap[:3] else None)
        return self.g.join(*(chans[i] for i in swap[:3]))

    def register(self, reg, part):
        if self.regs[reg][part] is None:
            self.regs[reg][part] = self.colour(REGISTER_INPUTS[reg], part)
        return self.regs[reg][part]


def _konst(src, g, sel, alpha):
    """A konst select's value: a constant fraction, K0-K3's rgb, or one
    channel of one of them replicated (notes 2.3)."""
    if not isinstance(sel, str):
        return 0.0  # reserved selects 8-11
    if sel in KONST_FRACTIONS:
        return float(KONST_FRACTIONS[sel])
    if sel and sel[0] == "K" and len(sel) == 2 and not alpha:
        return src.colour(sel, "rgb")
    if sel and sel[0] == "K" and len(sel) == 4:
        if sel[3] == "A":
            return src.colour(sel[:2], "a")
        return g.split(src.colour(sel[:2], "rgb"))["RGB".index(sel[3])]
    return 0.0  # reserved selects, and K0-K3 for alpha: 0


def _operand(src, sel, stage, tex_swap, ras_swap, konst):
    """A combiner input (notes 2.1): colour names (CPREV, A0, TEXC, RASA,
    ONE, ...) and alpha names (APREV, A0, TEXA, ...) alike."""
    if sel in ("ZERO", "ONE", "HALF"):
        return {"ZERO": 0.0, "ONE": 255.0, "HALF": 128.0}[sel]
    if sel == "KONST":
        return konst
    if sel[:3] in ("TEX", "RAS"):
        swap = tex_swap if sel[:3] == "TEX" else ras_swap
        return src.colour(f"{sel[:3]}{stage}", "rgb" if sel[3] == "C" else "a", swap)
    reg = "PREV" if sel[1:] == "PREV" else "REG" + sel[1]
    return src.register(reg, "rgb" if sel[0] == "C" else "a")


def _stage(g, src, stage_index, st):
    col, alp, kc, ka, tex_swap, ras_swap = st
    kcol = _konst(src, g, kc, False) if kc is not None else 0.0
    kalp = _konst(src, g, ka, True) if ka is not None else 0.0
    cin = [_operand(src, s, stage_index, tex_swap, ras_swap, kcol) for s in col[:4]]
    ain = [_operand(src, s, stage_index, tex_swap, ras_swap, kalp) for s in alp[:4]]
    avalues = dict(zip("ABCD", ain))
    if _needs_colour_keys("alpha", alp[4]):
        avalues.update({"Colour A": cin[0], "Colour B": cin[1]})
    cv = _combiner_out(g, "color", col[4:8], dict(zip("ABCD", cin)))
    av = _combiner_out(g, "alpha", alp[4:8], avalues)
    # both combiners read the registers as they were before the stage
    src.regs[col[8]]["rgb"] = cv
    src.regs[alp[8]]["a"] = av


def _combiner_out(g, part, setting, values):
    """A combiner's output: its nodes in the material's group when its
    constant operands fold it to a few (a stage that adds or passes a
    value through), else a node of its shared group."""
    def build(graph, vals):
        return _combine(graph, part, *setting, vals)

    if _inline_size(g, build, values) <= INLINE_NODES:
        return build(g, values)
    return g.group(combiner_plan(part, *setting), values)["Out"]


def _input_order(name):
    """TEX/RAS per stage, then C0-C2, PREV, K0-K3; each colour before its
    alpha."""
    base, alpha = (name[:-6], 1) if name.endswith(" Alpha") else (name, 0)
    fixed = ["C0", "C1", "C2", "PREV", "K0", "K1", "K2", "K3"]
    if base in fixed:
        return (1, fixed.index(base), alpha)
    return (0, int(base[3:]), base[:3] != "TEX", alpha)


@lru_cache(maxsize=1024)
def plan(key):
    """The node group for a configuration (config()).  Cached like the
    sub-group plans: a plan is never changed after it is made, and a
    folder of one game's models repeats a few hundred configurations at
    most, so a bulk import (or the next import of a session) plans each
    once."""
    stages, test = key
    g = _Graph()
    src = _Sources(g)
    for i, st in enumerate(stages):
        _stage(g, src, i, st)
    last_col, last_alp = (stages[-1][0][8], stages[-1][1][8]) if stages else ("PREV", "PREV")
    values = {"Color": src.register(last_col, "rgb"), "Alpha": src.register(last_alp, "a")}
    if _inline_size(g, lambda graph, vals: _output(graph, test, vals), values) <= INLINE_NODES:
        outs = _output(g, test, values)  # (the last registers already bytes, the test always passing)
    else:
        outs = g.group(output_plan(test), values)
    g.inputs = dict(sorted(g.inputs.items(), key=lambda nk: _input_order(nk[0])))
    return g.finish(key, group_name(key), {"Color": ("V", outs["Color"]), "Alpha": ("F", outs["Alpha"]),
                                           "Pass": ("F", outs["Pass"])})


@lru_cache(maxsize=None)
def srgb_plan():
    """The sRGB transfer function undone (IEC 61966-2-1), per channel of
    a Vector in 0..1: the TEV's bytes are display values, and an Emission
    shader takes scene-linear ones, so that the Standard view transform
    shows the TEV's own bytes.  The curve runs on the three channels at
    once (a Gamma node is x ** 2.4 per channel, as the Math node's POWER
    for x >= 0); only the choice of the linear part is per channel."""
    g = _Graph()
    c = g.input("Color", "V")
    gamma = g._node(GAMMA)
    g._feed(gamma, 0, g.op("V", "MULTIPLY_ADD", c, 1.0 / 1.055, 0.055 / 1.055))
    g._feed(gamma, 1, 2.4)
    curve = Ref(gamma.name, 0, "V")
    low = g.join(*(g.op("F", "LESS_THAN", x, 0.04045) for x in g.split(c)))
    # low / 12.92 where low, else the curve: curve + low * (c / 12.92 - curve)
    linear = g.op("V", "MULTIPLY_ADD", low, g.op("V", "SUBTRACT", g.op("V", "MULTIPLY", c, 1.0 / 12.92), curve), curve)
    return g.finish(("srgb",), f"{PREFIX} sRGB to linear", {"Color": ("V", linear)})


# ---------------------------------------------------------------------------
# Colour channels lit in nodes (notes 3.1, 5.4 option 2)


def channel_lighting(ctl):
    """What the lit group of one channel part depends on: None (lighting
    off: the output is the material colour), else (diffuse function,
    number of lights in the mask).  Attenuation is not modelled (every
    light is the one scene light, undimmed)."""
    if ctl is None or not ctl.lighting:
        return None
    return (ctl.diffuse or "CLAMP", bin(int(ctl.light_mask) & 0xFF).count("1"))


def _lit_part(g, kind, lit, mat, amb, ndl, colour):
    """One part of the lighting equation in 0..255 units:
    l = clamp(floor(amb + lights * colour * diff), 0, 255) and
    (mat * (l + (l >> 7))) >> 8."""
    diffuse, lights = lit
    if diffuse == "NONE":
        d = 1.0
    elif diffuse == "SIGN":
        d = ndl
    else:
        d = g.op("F", "MAXIMUM", ndl, 0.0)
    total = g.op(kind, "MULTIPLY_ADD", g.op(kind, "MULTIPLY", colour, d), float(lights), amb)
    level = g.op(kind, "MINIMUM", g.op(kind, "MAXIMUM", g.op(kind, "FLOOR", total), 0.0), 255.0)
    level = g.op(kind, "ADD", level, g.op(kind, "FLOOR", g.op(kind, "MULTIPLY", level, 1.0 / 128.0)))
    return g.op(kind, "FLOOR", g.op(kind, "MULTIPLY", g.op(kind, "MULTIPLY", mat, level), 1.0 / 256.0))


@lru_cache(maxsize=None)
def lit_plan(color_lit, alpha_lit):
    """A colour channel (colour and alpha parts, each channel_lighting())
    by the GX lighting equation with one light: inputs Material, Ambient
    (0..1, the register or the vertex colour), Normal and Light (unit
    vectors: the shading normal and the direction towards the light, in
    one space) and Light Color (0..1); outputs Color and Alpha (0..1,
    whole bytes / 255).  N.L is per pixel, not per vertex."""
    g = _Graph()
    ndl = None
    if color_lit is not None and color_lit[0] != "NONE" or alpha_lit is not None and alpha_lit[0] != "NONE":
        node = g._node(VMATH, "DOT_PRODUCT")
        g._feed(node, 0, g.input("Normal", "V"))
        g._feed(node, 1, g.input("Light", "V"))
        ndl = Ref(node.name, 1, "F")

    def part(kind, suffix, lit):
        mat = g.input("Material" + suffix, kind)
        if lit is None:
            return mat
        to_bytes = lambda x: g.op(kind, "FLOOR", g.op(kind, "MULTIPLY_ADD", x, 255.0, 0.5))  # noqa: E731
        amb = to_bytes(g.input("Ambient" + suffix, kind))
        colour = 255.0 if kind == "F" else to_bytes(g.input("Light Color", "V"))
        out = _lit_part(g, kind, lit, to_bytes(mat), amb, ndl, colour)
        return g.op(kind, "MULTIPLY", out, 1.0 / 255.0)

    rgb = part("V", "", color_lit)
    a = part("F", " Alpha", alpha_lit)
    name = f"{PREFIX} lit {_lit_name(color_lit)} {_lit_name(alpha_lit)}"
    return g.finish(("lit", color_lit, alpha_lit), name, {"Color": ("V", rgb), "Alpha": ("F", a)})


def _lit_name(lit):
    return "off" if lit is None else f"{lit[0].lower()}x{lit[1]}"


# ---------------------------------------------------------------------------
# Texture wrap in nodes (notes 5.3)


@lru_cache(maxsize=None)
def wrap_plan(wrap_s, wrap_t):
    """A texture coordinate wrapped per axis as the GX wraps it ('clamp',
    'repeat', 'mirror'), for an Image Texture node with extension EXTEND:
    for Blender before 3.5 (no MIRROR extension) and for textures whose
    two axes wrap differently.  Repeat: WRAP(x, 1, 0); mirror: PINGPONG(x,
    1), the triangle wave that reflects every other repeat (symmetric, so
    v = 1 - t mirrors as t does); clamp: left to EXTEND."""
    g = _Graph()
    x, y, z = g.split(g.input("Vector", "V"))

    def axis(v, wrap):
        if wrap == "mirror":
            return g.op("F", "PINGPONG", v, 1.0)
        if wrap == "repeat":
            return g.op("F", "WRAP", v, 1.0, 0.0)
        return v

    return g.finish(("wrap", wrap_s, wrap_t), f"{PREFIX} wrap {wrap_s} {wrap_t}",
                    {"Vector": ("V", g.join(axis(x, wrap_s), axis(y, wrap_t), z))})


# ---------------------------------------------------------------------------
# Texgens from normals and positions (notes 4; j3d.md 5.4 and 5.5)

ENV_MODES = (6, 7)  # (s, t) = (1/2 + n.x / 2, 1/2 - n.y / 2) of the view normal


def srt_of(tm):
    """The static SRT of a TexMatrix record (None: identity): (maya, sx,
    sy, angle in radians, tx, ty, cx, cy), rounded so that equal matrices
    share a group."""
    import math

    if tm is None:
        return None
    values = (bool(tm.maya), float(tm.scale[0]), float(tm.scale[1]), tm.rotation * math.tau / 65536.0,
              float(tm.translation[0]), float(tm.translation[1]), float(tm.center[0]), float(tm.center[1]))
    return tuple(round(v, 6) if not isinstance(v, bool) else v for v in values)


def _rotate(g, u, v, angle):
    import math

    c, s = math.cos(angle), math.sin(angle)
    return (g.op("F", "MULTIPLY_ADD", u, c, g.op("F", "MULTIPLY", v, -s)),
            g.op("F", "MULTIPLY_ADD", u, s, g.op("F", "MULTIPLY", v, c)))


@lru_cache(maxsize=None)
def texgen_plan(mode, srt):
    """A texture coordinate from a normal or position (input Vector: the
    view-space normal for the env modes, else the model-space vector):
    the mapping mode's remap, then the texture matrix's static SRT, in
    Blender's (u, v) = (s, 1 - t) (j3d.md 5.5: Basic uv' = S R(-angle)
    (uv - c_b) + c_b + (tx, -ty) with c_b = (cx, 1 - cy); Maya uv' =
    R(angle) (S uv + T - 1/2) + 1/2).  Output Vector (u, v, 0)."""
    g = _Graph()
    x, y, _z = g.split(g.input("Vector", "V"))
    if mode in ENV_MODES:
        u, v = g.op("F", "MULTIPLY_ADD", x, 0.5, 0.5), g.op("F", "MULTIPLY_ADD", y, 0.5, 0.5)
    else:  # s = x, t = y
        u, v = x, g.op("F", "SUBTRACT", 1.0, y)
    if srt is not None:
        maya, sx, sy, angle, tx, ty, cx, cy = srt
        if maya:
            u, v = g.op("F", "MULTIPLY_ADD", u, sx, tx - 0.5), g.op("F", "MULTIPLY_ADD", v, sy, ty - 0.5)
            u, v = _rotate(g, u, v, angle)
            u, v = g.op("F", "ADD", u, 0.5), g.op("F", "ADD", v, 0.5)
        else:
            cbu, cbv = cx, 1.0 - cy
            u, v = _rotate(g, g.op("F", "SUBTRACT", u, cbu), g.op("F", "SUBTRACT", v, cbv), -angle)
            u, v = g.op("F", "MULTIPLY_ADD", u, sx, cbu + tx), g.op("F", "MULTIPLY_ADD", v, sy, cbv - ty)
    name = f"{PREFIX} texgen mode{mode} {hashlib.sha1(repr(srt).encode()).hexdigest()[:8] if srt else 'identity'}"
    return g.finish(("texgen", mode, srt), name, {"Vector": ("V", g.join(u, v, 0.0))})
