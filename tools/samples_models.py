"""Model samples: one small figure per model family, with animations for
it, made by the project's own writers (tools/make_models.py for the models,
gameanim's encoders for the animations).

* models/j3d/figure_maya.bmd: a 19-joint figure (hips, spine, chest, neck,
  head, two arms, two legs) under the Maya rule, with a non-uniformly scaled
  chest whose children compensate its scale; figure_maya_walk.bck and
  figure_maya_wave.bck.
* models/j3d/figure_basic.bdl: the same figure under the Basic rule with
  rest rotations on the shoulders and hips; figure_basic_walk.bck.
  These two are skeletons without a mesh, laid out as the game loads them
  (make_models.game_skeleton: every chunk in Nintendo's order, the
  geometry chunks empty, an MDL3 on the BDL), so check_model finds nothing.
* models/j3d/figure_skinned.bdl: the plain figure (Basic rule) with a
  textured, skinned mesh: a torso skinned by envelopes over hips, spine
  and chest (stored in bind space), a box on each limb joint and the head
  (rigid, stored in its joint's space), two CMPR textures;
  figure_skinned_walk.bck.
* models/j3d/figure_skinned-edited.bdl: figure_skinned.bdl edited by
  gameanim's model writer (issue 34): the head box half as large again
  (Model.replace_mesh), the cloth texture repainted (replace_texture, CMPR
  again) and the head material's colour tinted (set_material_colors).  The
  name keeps it beside the original in listings, and out of its
  animations (figure_skinned_*); figure_skinned-edited_walk.bck is the
  same walk, so that the demo shows it in the row above the original.
* models/sm64ds/figure.bmd: the figure as an SM64DS bone table;
  figure_walk.bca.
* models/bk/figure.bin: the figure as a Banjo-Kazooie model bone table
  (pivots, bone IDs 1..19); figure_walk.bin (deltas about the pivots).

Deterministic: integer arithmetic and exact fractions only (no libm), no
clocks.  Everything under samples/models/ goes together (a model with its
animations); the animation-only sample tests leave that folder out.
"""
import math
import os
import sys

import gameanim

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_models  # noqa: E402  (tools/make_models.py)

PI = math.pi
J3D_ROT = PI / 32768.0  # radians per s16 unit (65536 per turn)

# name, parent, translation (game units, Y up, Z forward), rest rotation
# (s16, 65536 per turn: X, Y, Z), rest scale
FIGURE = [
    ("hips", -1, (0, 95, 0), (0, 0, 0), (1, 1, 1)),
    ("spine", 0, (0, 12, 0), (0, 0, 0), (1, 1, 1)),
    ("chest", 1, (0, 18, 0), (0, 0, 0), (1, 1, 1)),
    ("neck", 2, (0, 16, 0), (0, 0, 0), (1, 1, 1)),
    ("head", 3, (0, 9, 0), (0, 0, 0), (1, 1, 1)),
    ("shoulder_L", 2, (7, 12, 0), (0, 0, 0), (1, 1, 1)),
    ("upperarm_L", 5, (9, 0, 0), (0, 0, -0x1800), (1, 1, 1)),
    ("forearm_L", 6, (24, 0, 0), (0, 0, 0), (1, 1, 1)),
    ("hand_L", 7, (20, 0, 0), (0, 0, 0), (1, 1, 1)),
    ("shoulder_R", 2, (-7, 12, 0), (0, 0, 0), (1, 1, 1)),
    ("upperarm_R", 9, (-9, 0, 0), (0, 0, 0x1800), (1, 1, 1)),
    ("forearm_R", 10, (-24, 0, 0), (0, 0, 0), (1, 1, 1)),
    ("hand_R", 11, (-20, 0, 0), (0, 0, 0), (1, 1, 1)),
    ("thigh_L", 0, (9, -4, 0), (0, 0, 0), (1, 1, 1)),
    ("shin_L", 13, (0, -42, 0), (0, 0, 0), (1, 1, 1)),
    ("foot_L", 14, (0, -40, 0), (0, 0, 0), (1, 1, 1)),
    ("thigh_R", 0, (-9, -4, 0), (0, 0, 0), (1, 1, 1)),
    ("shin_R", 16, (0, -42, 0), (0, 0, 0), (1, 1, 1)),
    ("foot_R", 17, (0, -40, 0), (0, 0, 0), (1, 1, 1)),
]
JOINT = {name: j for j, (name, *_rest) in enumerate(FIGURE)}


def figure(chest_scale=None, rest_turns=False):
    """The figure's joints as dicts: name, parent, translation, rot_raw (s16),
    scale, scale_compensate.  chest_scale: a rest scale on the chest (its
    children then compensate it, as Maya's segment-scale compensation
    does).  rest_turns: rest rotations on the shoulders and thighs too."""
    out = []
    for name, parent, t, r, s in FIGURE:
        r = list(r)
        if rest_turns and name.startswith("shoulder"):
            r[1] = 0x0400 if name.endswith("L") else -0x0400
        if rest_turns and name.startswith("thigh"):
            r[0] = 0x0200
        scale = tuple(chest_scale) if chest_scale and name == "chest" else s
        out.append({"name": name, "parent": parent, "translation": tuple(float(v) for v in t),
                    "rot_raw": tuple(r), "scale": tuple(float(v) for v in scale),
                    "scale_compensate": bool(chest_scale) and parent == JOINT["chest"]})
    return out


# ---------------------------------------------------------------------------
# Motions: (joint, channel, axis) -> [(frame, value)] keys; value in s16
# rotation units (65536 per turn) for rotations, game units / factors else.

def walk_keys(length):
    """A walk cycle: legs and arms swing about X in opposition, knees and
    elbows bend, the hips bob and sway, the head nods."""
    q = length // 4
    swing, knee, arm, elbow = 0x1400, 0x1800, 0x1000, 0x0C00
    keys = {
        (JOINT["thigh_L"], "rotation", 0): [(0, -swing), (2 * q, swing), (length, -swing)],
        (JOINT["thigh_R"], "rotation", 0): [(0, swing), (2 * q, -swing), (length, swing)],
        (JOINT["shin_L"], "rotation", 0): [(0, 0), (q, knee), (2 * q, 0), (length, 0)],
        (JOINT["shin_R"], "rotation", 0): [(0, 0), (2 * q, 0), (3 * q, knee), (length, 0)],
        (JOINT["upperarm_L"], "rotation", 1): [(0, arm), (2 * q, -arm), (length, arm)],
        (JOINT["upperarm_R"], "rotation", 1): [(0, arm), (2 * q, -arm), (length, arm)],
        (JOINT["forearm_L"], "rotation", 1): [(0, elbow), (2 * q, 0), (length, elbow)],
        (JOINT["forearm_R"], "rotation", 1): [(0, 0), (2 * q, -elbow), (length, 0)],
        (JOINT["hips"], "translation", 1): [(0, 95), (q, 98), (2 * q, 95), (3 * q, 98), (length, 95)],
        (JOINT["hips"], "rotation", 1): [(0, 0x0300), (2 * q, -0x0300), (length, 0x0300)],
        (JOINT["chest"], "rotation", 1): [(0, -0x0400), (2 * q, 0x0400), (length, -0x0400)],
        (JOINT["head"], "rotation", 0): [(0, 0), (q, 0x0300), (2 * q, 0), (3 * q, 0x0300), (length, 0)],
    }
    return keys


def wave_keys(length):
    """The right arm rises and the hand waves; the figure leans."""
    h = length // 2
    keys = {
        (JOINT["upperarm_R"], "rotation", 2): [(0, 0x1800), (h // 2, -0x2800), (length - h // 2, -0x2800),
                                              (length, 0x1800)],
        (JOINT["forearm_R"], "rotation", 2): [(0, 0), (h // 2, -0x1800), (h, -0x0800), (h + h // 2, -0x1800),
                                             (length, 0)],
        (JOINT["hand_R"], "rotation", 1): [(0, 0), (h // 2, 0x1000), (h, -0x1000), (h + h // 2, 0x1000),
                                          (length, 0)],
        (JOINT["spine"], "rotation", 2): [(0, 0), (h, 0x0400), (length, 0)],
        (JOINT["head"], "rotation", 1): [(0, 0), (h, -0x0800), (length, 0)],
    }
    return keys


def breathe_keys(length, chest_scale):
    """The chest's scale breathes (non-uniformly: what scale compensation
    is for)."""
    sx, sy, sz = chest_scale
    h = length // 2
    return {(JOINT["chest"], "scale", 0): [(0, sx), (h, sx * 1.125), (length, sx)],
            (JOINT["chest"], "scale", 2): [(0, sz), (h, sz * 1.25), (length, sz)],
            (JOINT["chest"], "scale", 1): [(0, sy), (length, sy)]}


def rest_value(joint, channel, axis):
    if channel == "scale":
        return joint["scale"][axis]
    if channel == "rotation":
        return joint["rot_raw"][axis]
    return joint["translation"][axis]


def hermite_slopes(keys):
    """Catmull-Rom-like slopes from the neighbours (exact fractions of the
    key values; flat at the ends)."""
    n = len(keys)
    out = []
    for i in range(n):
        if i == 0 or i == n - 1:
            out.append(0.0)
        else:
            (t0, v0), (t1, v1) = keys[i - 1], keys[i + 1]
            out.append((v1 - v0) / (t1 - t0))
    return out


def bck(joints, keys, length):
    """A BCK of every joint's nine channels: the animated ones from keys,
    the others constant at the rest values (a BCK replaces the rest)."""
    import warnings

    tracks = []
    for j, joint in enumerate(joints):
        for channel in ("scale", "rotation", "translation"):
            unit = J3D_ROT if channel == "rotation" else 1.0
            for axis in range(3):
                ks = keys.get((j, channel, axis))
                if ks is None:
                    tracks.append(gameanim.Track(j, channel, axis, [0.0], [rest_value(joint, channel, axis) * unit],
                                                 interpolation=gameanim.CONSTANT))
                    continue
                slopes = [s * unit for s in hermite_slopes(ks)]
                tracks.append(gameanim.Track(j, channel, axis, [float(t) for t, _v in ks], [v * unit for _t, v in ks],
                                             slopes, slopes, interpolation=gameanim.BEZIER))
    anim = gameanim.Animation("bck", tracks, frame_count=length, loop="loop", rotation_frac=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        return anim.to_bytes()


def per_frame(ks, length):
    """Integer values at every frame 0..length-1 from (frame, value) keys,
    by integer linear interpolation (floor)."""
    out = []
    for f in range(length):
        for (t0, v0), (t1, v1) in zip(ks, ks[1:]):
            if t0 <= f <= t1:
                out.append(v0 + (v1 - v0) * (f - t0) // (t1 - t0))
                break
        else:
            out.append(ks[-1][1])
    return out


def bca(joints, keys, length):
    """An SM64DS BCA of every bone: 20.12 scale and translation, 4096 per
    turn rotation (the figure's s16 rotations / 16), per frame."""
    tracks = []
    for j, joint in enumerate(joints):
        for channel in ("scale", "rotation", "translation"):
            for axis in range(3):
                ks = keys.get((j, channel, axis))
                if channel == "rotation":
                    unit = 2 * PI / 4096
                    ints = per_frame([(t, v // 16) for t, v in ks], length) if ks else \
                        [joint["rot_raw"][axis] // 16]
                else:
                    unit = 1 / 4096
                    fixed = (lambda v: int(v * 4096 // 16)) if channel == "translation" else \
                        (lambda v: int(v * 4096))
                    ints = per_frame([(t, fixed(v)) for t, v in ks], length) if ks else \
                        [fixed(rest_value(joint, channel, axis))]
                if len(set(ints)) == 1:
                    tracks.append(gameanim.Track(j, channel, axis, [0.0], [ints[0] * unit], interpolation=0))
                else:
                    tracks.append(gameanim.Track(j, channel, axis, list(range(len(ints))), [v * unit for v in ints],
                                                 interpolation=1))
    return gameanim.Animation("bca", tracks, frame_count=length, loop="loop").to_bytes()


def bk_anim(keys, length, bone_ids):
    """A Banjo-Kazooie animation: deltas from the rest (rotation in degrees
    / 64 steps on the file grid, translation in units), linear keys."""
    tracks = []
    for (j, channel, axis), ks in sorted(keys.items()):
        if channel == "scale":
            continue
        if channel == "rotation":
            # s16 units -> 1/64 degree steps (exact: 65536 / 360 is not an
            # integer, so round to the file's grid first)
            vals = [round(v * 360 * 64 / 65536) / 64 * PI / 180 for _t, v in ks]
        else:
            rest = FIGURE[j][2][axis]
            vals = [float(v - rest) for _t, v in ks]
        tracks.append(gameanim.Track(bone_ids[j], channel, axis, [float(t) for t, _v in ks], vals, interpolation=1))
    return gameanim.Animation("bk", tracks, frame_count=length + 1, start_frame=0).to_bytes()


def j3d_file(joints, calc, kind):
    """The figure as a skeleton-only model the game loads (no mesh: see
    make_models.game_skeleton for why none is needed): the joints' names,
    hierarchy, rest pose and Maya scale-compensation bytes, under calc."""
    return make_models.game_skeleton(
        [make_models.joint(j["name"], scale=j["scale"], rotation_raw=j["rot_raw"], translation=j["translation"],
                           scale_compensate=1 if j["scale_compensate"] else 0xFF) for j in joints],
        [j["parent"] for j in joints], calc=calc, kind=kind)


def _checker_cmpr(side, c0, c1):
    """A CMPR image of side x side texels: 4x4 sub-blocks alternating between
    colour c0 and c1 (RGB565, c0 > c1) like a checkerboard."""
    assert c0 > c1
    out = b""
    for by in range(side // 8):
        for bx in range(side // 8):
            for q in range(4):
                x, y = 2 * bx + (q & 1), 2 * by + (q >> 1)
                index = 0x00 if (x + y) % 2 == 0 else 0x55  # every texel colour 0, or every texel colour 1
                out += c0.to_bytes(2, "big") + c1.to_bytes(2, "big") + bytes([index] * 4)
    return out


def _box(lo, hi):
    """A box's 24 corners (4 per face) with their face normals and UVs, and
    its faces as quads of corner indices (GX order: clockwise from outside)."""
    faces = [  # axis, side, the corners of the face, counter-clockwise seen from outside
        (0, 1, [(1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)]), (0, 0, [(0, 0, 0), (0, 0, 1), (0, 1, 1), (0, 1, 0)]),
        (1, 1, [(0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 1, 0)]), (1, 0, [(0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1)]),
        (2, 1, [(0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]), (2, 0, [(0, 0, 0), (0, 1, 0), (1, 1, 0), (1, 0, 0)]),
    ]
    pos, nrm, quads = [], [], []
    for axis, side, corners in faces:
        n = [0, 0, 0]
        n[axis] = 1 if side else -1
        b = len(pos)
        quads.append([b, b + 3, b + 2, b + 1])  # (GX winds clockwise: the corners backwards)
        for c in corners:
            pos.append(tuple(float(hi[k] if c[k] else lo[k]) for k in range(3)))
            nrm.append(tuple(n))
    return pos, nrm, quads


def _rest_worlds(joints):
    """Each joint's rest world matrix (3x4 rows) under the Basic rule:
    parent . T . Rz . Ry . Rx (the figure has no rest scales)."""
    out = []
    for j in joints:
        rx, ry, rz = (v * J3D_ROT for v in j["rot_raw"])
        cx, sx, cy, sy, cz, sz = math.cos(rx), math.sin(rx), math.cos(ry), math.sin(ry), math.cos(rz), math.sin(rz)
        rot = [[cy * cz, sx * sy * cz - cx * sz, cx * sy * cz + sx * sz],
               [cy * sz, sx * sy * sz + cx * cz, cx * sy * sz - sx * cz],
               [-sy, sx * cy, cx * cy]]
        local = [rot[r] + [float(j["translation"][r])] for r in range(3)]
        if j["parent"] < 0:
            out.append(local)
            continue
        p = out[j["parent"]]
        out.append([[sum(p[r][k] * local[k][c] for k in range(3)) + (p[r][3] if c == 3 else 0.0)
                     for c in range(4)] for r in range(3)])
    return out


def _inverse_rigid(m):
    """The inverse of a 3x4 rotation + translation, as 12 floats."""
    rt = [[m[c][r] for c in range(3)] for r in range(3)]
    t = [-sum(rt[r][k] * m[k][3] for k in range(3)) for r in range(3)]
    return [v for r in range(3) for v in rt[r] + [t[r]]]


def skinned_j3d_file(joints):
    """The figure (no rest rotations on the torso) with a mesh: see the
    module's docstring.  Laid out as the game's loader needs it
    (gameanim.check_model, docs/model_writer.md): the chunks in
    Nintendo's order with INF1's counts, DRW1 as the joints, the envelopes
    and the envelopes again, one material instance per shape, normals as
    s16, each joint's box around its rigid geometry, an MDL3.  The torso is exact:
    its positions are integers, its joints' inverse binds are translations
    by minus their rest positions, its weights binary fractions."""
    mm = make_models
    worlds = _rest_worlds(joints)
    world = [tuple(w[r][3] for r in range(3)) for w in worlds]  # rest positions
    hips, spine, chest = JOINT["hips"], JOINT["spine"], JOINT["chest"]
    envelopes = [[(hips, 1.0)], [(hips, 0.5), (spine, 0.5)], [(spine, 0.5), (chest, 0.5)], [(chest, 1.0)]]
    inverse_binds = [_inverse_rigid(w) for w in worlds]
    njoints = len(joints)
    # Nintendo's DRW1: one rigid entry per joint, the envelopes, the envelopes again
    draw = [(0, j) for j in range(njoints)] + [(1, e) for e in range(len(envelopes))] * 2
    pos, nrm, uv = [], [], []
    # the torso: four rings (one per envelope) of 4 corners around Y, in model space
    ring_y = [world[hips][1] - 6, world[spine][1], world[chest][1], world[JOINT["neck"]][1]]
    corners = [(-9, -5), (9, -5), (9, 5), (-9, 5)]
    for r, y in enumerate(ring_y):
        for k, (x, z) in enumerate(corners + corners[:1]):
            pos.append((float(x), y, float(z)))
            nrm.append((x / math.hypot(x, z), 0.0, z / math.hypot(x, z)))
            uv.append((k / 4.0, r / 3.0))
    attrs = [(mm.PNMTXIDX, mm.DIRECT), (mm.POS, mm.INDEX16), (mm.NRM, mm.INDEX16), (mm.TEX0, mm.INDEX16)]
    strips = []
    for r in range(3):  # matrix slots: ring r -> slot r (envelope r), ring r + 1 -> slot r + 1
        strip = []
        for k in range(5):
            for rr in (r + 1, r):
                i = 5 * rr + k
                strip.append((3 * rr, i, i, i))
        strips.append(("strip", strip))
    torso = mm.shape(attrs, [mm.packet([njoints + e for e in range(len(envelopes))], strips)], matrix_type=3)
    # rigid boxes, each in its joint's space: limbs towards their child, the head upwards
    limbs = ["upperarm_L", "forearm_L", "upperarm_R", "forearm_R", "thigh_L", "shin_L", "thigh_R", "shin_R", "head"]
    rigid_attrs = [(mm.POS, mm.INDEX16), (mm.NRM, mm.INDEX16), (mm.TEX0, mm.INDEX16)]
    shapes = [torso]
    bounds = {}  # joint -> (min, max, radius) of its geometry in its space
    for name in limbs:
        j = JOINT[name]
        kids = [k for k, jj in enumerate(joints) if jj["parent"] == j]
        end = joints[kids[0]]["translation"] if kids else (0.0, 14.0, 0.0)
        lo = tuple(min(0.0, end[k]) - 3.0 for k in range(3))
        hi = tuple(max(0.0, end[k]) + 3.0 for k in range(3))
        bounds[j] = (lo, hi, max(math.hypot(*(max(abs(lo[k]), abs(hi[k])) for k in range(3))), 0.0))
        bpos, bnrm, quads = _box(lo, hi)
        base = len(pos)
        pos += bpos
        nrm += bnrm
        uv += [(float(c % 4 in (1, 2)), float(c % 4 in (2, 3))) for c in range(len(bpos))]
        verts = [(base + i,) * 3 for q in quads for i in q]
        shapes.append(mm.shape(rigid_attrs, [mm.packet([j], [("quads", verts)])]))
    # the hips' box holds the torso (model space, less the hips' rest position)
    lo = tuple(min(p[k] for p in pos[:20]) - world[hips][k] for k in range(3))
    hi = tuple(max(p[k] for p in pos[:20]) - world[hips][k] for k in range(3))
    bounds[hips] = (lo, hi, math.hypot(*(max(abs(lo[k]), abs(hi[k])) for k in range(3))))
    arrays = {mm.POS: mm.vertex_array(pos, "s16", 4),
              mm.NRM: mm.vertex_array([tuple(round(v * 16384) for v in n) for n in nrm], "s16", 14),
              mm.TEX0: mm.vertex_array(uv, "u16", 14)}
    textures = [mm.texture("cloth", "CMPR", 32, 32, _checker_cmpr(32, 0xFC00, 0x21A8), wrap_s=1, wrap_t=1),
                mm.texture("skin", "CMPR", 16, 16, _checker_cmpr(16, 0xFE8C, 0xF5A8), wrap_s=2, wrap_t=2)]
    # each texture times its material colour (white; the figure has no vertex colours); one
    # material instance per shape (a J3D material draws one shape), named after its part:
    # skin on the head and forearms, cloth elsewhere
    lit = dict(channel=(0, 0, 0, 0, 0, 0), stages=((0, 0, 4),), tev=(mm.TEV_MODULATE,))
    skin = {"head", "forearm_L", "forearm_R"}
    parts = ["torso"] + limbs
    materials = [mm.material(part, textures=(1 if part in skin else 0,), **lit) for part in parts]
    # INF1: the skeleton, with the torso under the hips and each box under its joint
    children = {i: [k for k, j in enumerate(joints) if j["parent"] == i] for i in range(-1, njoints)}
    shape_of = {JOINT[n]: 1 + i for i, n in enumerate(limbs)}
    nodes = []

    def visit(j):
        nodes.append((mm.JOINT, j))
        shapes_here = ([0] if j == hips else []) + ([shape_of[j]] if j in shape_of else [])
        if shapes_here or children[j]:
            nodes.append((mm.OPEN, 0))
            for sh in shapes_here:  # material instance i draws shape i
                nodes.extend([(mm.MATERIAL, sh), (mm.OPEN, 0), (mm.SHAPE, sh), (mm.CLOSE, 0)])
            for k in children[j]:
                visit(k)
            nodes.append((mm.CLOSE, 0))

    for r in children[-1]:
        visit(r)
    nodes.append((mm.END, 0))
    records = []
    for i, j in enumerate(joints):
        lo, hi, radius = bounds.get(i, ((0.0,) * 3, (0.0,) * 3, 0.0))
        records.append(mm.joint(j["name"], scale=j["scale"], rotation_raw=j["rot_raw"], translation=j["translation"],
                                bound_min=lo, bound_max=hi, bound_radius=radius))
    packets = len(shapes)
    # (a BDL: the materials' MDL3 display lists made from MAT3 and TEX1 by gameanim's encoder)
    data = mm.j3d_file([mm.inf1_chunk(nodes, "basic", packet_count=packets, vertex_count=len(pos)),
                        mm.chunk("VTX1", mm.vtx1_body(arrays)), mm.evp1_chunk(envelopes, inverse_binds),
                        mm.drw1_chunk(draw), mm.jnt1_chunk(records), mm.chunk("SHP1", mm.shp1_body(shapes)),
                        mm.chunk("MAT3", mm.mat3_body(materials)), mm.chunk("TEX1", mm.tex1_body(textures))], "bdl")
    return mm.with_mdl3(data)


def edited_skinned(data):
    """figure_skinned.bdl through the model writer (see the docstring)."""
    model = gameanim.load_model(data)
    head = JOINT["head"]
    shape = next(i for i, m in enumerate(model.meshes) if set(m.joints) == {head})
    mesh = model.meshes[shape]
    n = len(mesh.positions) // 3
    centre = [sum(mesh.positions[3 * v + k] for v in range(n)) / n for k in range(3)]
    grown = [centre[i % 3] + (x - centre[i % 3]) * 1.5 for i, x in enumerate(mesh.positions)]
    model.replace_mesh(shape, grown, mesh.triangles)
    cloth = model.textures[0]
    rgba = bytearray()
    for y in range(cloth.height):
        for x in range(cloth.width):
            on = (x // 4 + y // 4) % 2
            rgba += bytes((40, 90, 200, 255) if on else (230, 200, 60, 255))
    model.replace_texture(0, bytes(rgba), cloth.width, cloth.height)
    model.set_material_colors(next(i for i, m in enumerate(model.materials) if m.name == "head"),
                              colors=[(255, 190, 150, 255)])
    return model.to_bytes()


def sm64ds_file(joints):
    """The figure at 1/16 of the J3D size (SM64DS units are larger), its
    rotations at 4096 per turn."""
    return make_models.write_sm64ds_bmd([
        make_models.sm64ds_bone(j["name"], j["parent"], rotation_raw=tuple(r // 16 for r in j["rot_raw"]),
                                translation_fixed=tuple(int(v * 4096 // 16) for v in j["translation"]))
        for j in joints])


def pivots(joints):
    """Model-space joint positions of a figure without rest rotations."""
    out = []
    for j in joints:
        p = out[j["parent"]] if j["parent"] >= 0 else (0.0, 0.0, 0.0)
        out.append(tuple(a + b for a, b in zip(p, j["translation"])))
    return out


def bk_file(joints, bone_ids):
    return make_models.write_bk_model([(pivot, bone_ids[i], j["parent"])
                                       for i, (pivot, j) in enumerate(zip(pivots(joints), joints))])


def generate():
    out = {}
    chest = (1.25, 1.0, 1.125)
    maya = figure(chest_scale=chest)
    out["models/j3d/figure_maya.bmd"] = j3d_file(maya, "maya", "bmd")
    walk = {**walk_keys(40), **breathe_keys(40, chest)}
    out["models/j3d/figure_maya_walk.bck"] = bck(maya, walk, 40)
    out["models/j3d/figure_maya_wave.bck"] = bck(maya, wave_keys(48), 48)

    basic = figure(rest_turns=True)
    out["models/j3d/figure_basic.bdl"] = j3d_file(basic, "basic", "bdl")
    out["models/j3d/figure_basic_walk.bck"] = bck(basic, walk_keys(32), 32)

    plain = figure()
    out["models/j3d/figure_skinned.bdl"] = skinned_j3d_file(plain)
    out["models/j3d/figure_skinned_walk.bck"] = bck(plain, walk_keys(32), 32)
    out["models/j3d/figure_skinned-edited.bdl"] = edited_skinned(out["models/j3d/figure_skinned.bdl"])
    out["models/j3d/figure_skinned-edited_walk.bck"] = out["models/j3d/figure_skinned_walk.bck"]  # (its demo row)
    out["models/sm64ds/figure.bmd"] = sm64ds_file(plain)
    out["models/sm64ds/figure_walk.bca"] = bca(plain, walk_keys(32), 32)

    ids = [j + 1 for j in range(len(plain))]
    out["models/bk/figure.bin"] = bk_file(plain, ids)
    out["models/bk/figure_walk.bin"] = bk_anim(walk_keys(40), 40, ids)
    return out
