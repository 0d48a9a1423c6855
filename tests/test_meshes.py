"""J3D meshes (csrc/models/j3d_geometry.c): models written by
tools/make_models.py (pure Python) come back as written.  Every expected
value is computed here from what the test wrote and from the notes
(../shared/formats/j3d_meshes.md): positions after the rigid / envelope
transform with the joints' rest matrices from tests/model_reference.py,
normals through the inverse transpose and normalised, the vertex formats'
decoding, the triangulation and reversed winding; malformed geometry raises
FormatError and never crashes."""
import math
import random
import struct
import sys
from pathlib import Path

import pytest

import gameanim

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import model_reference as ref  # noqa: E402
from tools import make_models as mm  # noqa: E402
from tools.make_models import CLR0, CLR1, DIRECT, INDEX8, INDEX16, NRM, PNMTXIDX, POS, TEX0  # noqa: E402

f32 = ref.f32

# ---------------------------------------------------------------- the independent reference


def rest_world(joints, parents, calc):
    bones = [dict(parent=p, scale_compensate=j["scale_compensate"]) for j, p in zip(joints, parents)]
    pose = [(tuple(j["scale"]), tuple(j["rotation_raw"]), tuple(j["translation"])) for j in joints]
    return ref.j3d_world(bones, calc, pose)  # 16 floats row-major per joint


def mat_mul34(a, b):
    """(3x4) * (3x4) as affine matrices, in double."""
    out = []
    for r in range(3):
        for c in range(4):
            v = sum(a[4 * r + k] * b[4 * k + c] for k in range(3)) + (a[4 * r + 3] if c == 3 else 0.0)
            out.append(v)
    return out


def draw_matrices(scene):
    """Per DRW1 entry: (3x4 matrix, [(joint, weight)]): rigid -> the joint's
    rest world W_j; envelope -> sum_k w_k W_k IB_k (notes section 4)."""
    world = rest_world(scene["joints"], scene["parents"], scene["calc"])
    out = []
    for kind, index in scene["draw"]:
        if kind == 0:
            out.append((world[index][:12], [(index, 1.0)]))
        else:
            m = [0.0] * 12
            env = scene["envelopes"][index]
            for j, w in env:
                p = mat_mul34(world[j][:12], scene["inverse_binds"][j])
                m = [m[k] + f32(w) * p[k] for k in range(12)]
            out.append((m, [(j, f32(w)) for j, w in env]))
    return out


def inverse_transpose3(m):
    a, b, c, d, e, f, g, h, i = m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]
    co = [e * i - f * h, f * g - d * i, d * h - e * g, c * h - b * i, a * i - c * g, b * g - a * h,
          b * f - c * e, c * d - a * f, a * e - b * d]
    det = a * co[0] + b * co[1] + c * co[2]
    return [x / det for x in co]


def normalised(v):
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v] if n else [0.0, 0.0, 0.0]


def expand(v, bits):
    return {3: (v << 5) | (v << 2) | (v >> 1), 4: v * 17, 5: (v << 3) | (v >> 2), 6: (v << 2) | (v >> 4)}.get(bits, v)


def color_value(rgba, color_type, has_alpha):
    """What the colour written by make_models.encode_color reads back as (0..1)."""
    r, g, b, a = rgba
    if color_type == "RGB565":
        out = (expand(r >> 3, 5), expand(g >> 2, 6), expand(b >> 3, 5), 255)
    elif color_type in ("RGB8", "RGBX8"):
        out = (r, g, b, 255)
    elif color_type == "RGBA4":
        out = tuple(expand(x >> 4, 4) for x in rgba)
    elif color_type == "RGBA6":
        out = tuple(expand(x >> 2, 6) for x in rgba)
    else:
        out = tuple(rgba)
    if not has_alpha:
        out = out[:3] + (255,)
    return [x / 255.0 for x in out]


def triangulate(kind, verts):
    """The notes' triangulation (GX order), then reversed (a, c, b);
    triangles with two equal corners dropped."""
    n = len(verts)
    tris = []
    if kind == "triangles":
        tris = [(i, i + 1, i + 2) for i in range(0, n - 2, 3)]
    elif kind == "strip":
        tris = [(i, i + 1, i + 2) if i % 2 == 0 else (i + 1, i, i + 2) for i in range(n - 2)]
    elif kind == "fan":
        tris = [(0, i + 1, i + 2) for i in range(n - 2)]
    elif kind == "quads":
        for i in range(0, n - 3, 4):
            tris += [(i, i + 1, i + 2), (i, i + 2, i + 3)]
    out = []
    for a, b, c in tris:
        va, vb, vc = verts[a], verts[b], verts[c]
        if va == vb or vb == vc or va == vc:
            continue
        out.append((va, vc, vb))
    return out


def expected_corners(scene, shape_index):
    """Per triangle corner of the shape, in order: dict of the expected
    position, normal, colours, uvs, joints/weights, position index, draw entry."""
    sh = scene["shapes"][shape_index]
    arrays = scene["values"]  # attr -> decoded values
    mats = draw_matrices(scene)
    attrs = [a for a, _ in sh["attrs"]]
    corners = []
    slots = [None] * 10
    for p in sh["packets"]:
        for k, e in enumerate(p["matrix_table"]):
            if e != 0xFFFF:
                slots[k] = e
        for kind, verts in p["primitives"]:
            keyed = []
            for v in verts:
                vals = dict(zip(attrs, v))
                slot = vals.get(PNMTXIDX, 0) // 3
                keyed.append((slots[slot],) + tuple(v))
            for tri in triangulate(kind, keyed):
                for key in tri:
                    draw = key[0]
                    vals = dict(zip(attrs, key[1:]))
                    m, influences = mats[draw]
                    pos = list(arrays[POS][vals[POS]]) + [0.0] * (3 - len(arrays[POS][vals[POS]]))
                    c = dict(draw=draw, pos_index=vals[POS], influences=influences,
                             position=[sum(m[4 * r + k] * pos[k] for k in range(3)) + m[4 * r + 3] for r in range(3)])
                    if NRM in vals:
                        n = arrays[NRM][vals[NRM]]
                        it = inverse_transpose3(m)
                        c["normal"] = normalised([sum(it[3 * r + k] * n[k] for k in range(3)) for r in range(3)])
                    c["colors"] = [arrays[a][vals[a]] for a in (CLR0, CLR1) if a in vals]
                    c["uvs"] = [list(arrays[a][vals[a]]) + [0.0] * (2 - len(arrays[a][vals[a]]))
                                for a in range(TEX0, TEX0 + 8) if a in vals]
                    corners.append(c)
    return corners


def expected_vertex_keys(scene, shape_index):
    sh = scene["shapes"][shape_index]
    attrs = [a for a, _ in sh["attrs"]]
    slots = [None] * 10
    keys = set()
    for p in sh["packets"]:
        for k, e in enumerate(p["matrix_table"]):
            if e != 0xFFFF:
                slots[k] = e
        for kind, verts in p["primitives"]:
            if kind in ("lines", "points"):
                continue
            for v in verts:
                keys.add((slots[dict(zip(attrs, v)).get(PNMTXIDX, 0) // 3],) +
                         tuple(x for a, x in zip(attrs, v) if a != PNMTXIDX))
    return keys


def actual_corners(mesh):
    out = []
    K = mesh.influences
    for v in mesh.triangles:
        c = dict(draw=mesh.draw_indices[v], pos_index=mesh.position_indices[v],
                 position=list(mesh.positions[3 * v:3 * v + 3]),
                 colors=[list(s[4 * v:4 * v + 4]) for s in mesh.colors],
                 uvs=[list(s[2 * v:2 * v + 2]) for s in mesh.uvs],
                 influences=[(mesh.joints[v * K + k], mesh.weights[v * K + k]) for k in range(K)
                             if mesh.weights[v * K + k] != 0.0])
        if mesh.normals is not None:
            c["normal"] = list(mesh.normals[3 * v:3 * v + 3])
        out.append(c)
    return out


def assert_close(got, want, tol, what):
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        assert abs(g - w) <= tol, (what, got, want)


def check_shape(model, scene, i, size=1.0):
    mesh = model.meshes[i]
    want = expected_corners(scene, i)
    got = actual_corners(mesh)
    assert len(got) == len(want), f"shape {i}: {len(got)} corners, {len(want)} expected"
    tol = 1e-4 * max(size, 1.0)
    for n, (g, w) in enumerate(zip(got, want)):
        assert g["draw"] == w["draw"] and g["pos_index"] == w["pos_index"], n
        assert_close(g["position"], w["position"], tol, f"corner {n} position")
        assert ("normal" in g) == ("normal" in w)
        if "normal" in w:
            assert_close(g["normal"], w["normal"], 1e-5, f"corner {n} normal")
        assert len(g["colors"]) == len(w["colors"]) and len(g["uvs"]) == len(w["uvs"])
        for a, b in zip(g["colors"], w["colors"]):
            assert_close(a, b, 1e-6, f"corner {n} colour")
        for a, b in zip(g["uvs"], w["uvs"]):
            assert_close(a, b, 1e-6, f"corner {n} uv")
        assert [j for j, _ in g["influences"]] == [j for j, _ in w["influences"]], n
        assert_close([x for _, x in g["influences"]], [x for _, x in w["influences"]], 1e-7, "weights")
    # one vertex per distinct (draw entry, attribute indices) of the triangle primitives
    assert len(mesh.positions) == 3 * len(expected_vertex_keys(scene, i))
    return mesh


# ---------------------------------------------------------------- scenes


def build(scene, kind="bmd"):
    """Writes the scene: arrays = {attr: make_models array}; values = the
    decoded values the test expects for them."""
    nodes = scene.get("nodes")
    extra = [("VTX1", mm.vtx1_body(scene["arrays"])), ("SHP1", mm.shp1_body(scene["shapes"]))]
    if scene.get("materials"):
        extra.append(("MAT3", mm.mat3_body(scene["materials"])))
    return mm.write_j3d_model(scene["joints"], scene["parents"], nodes=nodes, calc=scene["calc"], kind=kind,
                              envelopes=scene.get("envelopes"), inverse_binds=scene.get("inverse_binds"),
                              draw=scene["draw"], extra_chunks=extra)


def skeleton(calc="basic"):
    joints = [mm.joint("root", translation=(1.0, 2.0, 3.0)),
              mm.joint("body", rotation_raw=(4096, -8192, 12000), translation=(0.0, 10.0, 0.0), scale=(1.0, 2.0, 0.5),
                       scale_compensate=1),
              mm.joint("arm", rotation_raw=(0, 16384, 3000), translation=(4.0, 0.0, -2.0), scale=(1.5, 1.5, 1.5)),
              mm.joint("leg", rotation_raw=(-20000, 0, 0), translation=(-3.0, -5.0, 0.0))]
    return joints, [-1, 0, 1, 0]


def random_ib(rng):
    """An arbitrary affine 3x4 (the game blends A_k * IB_k whatever IB is)."""
    return [f32(rng.uniform(-1.5, 1.5)) if c < 3 else f32(rng.uniform(-5, 5)) for r in range(3) for c in range(4)]


def scene_base(rng, calc="basic", n=12):
    joints, parents = skeleton(calc)
    pos_raw = [tuple(rng.randint(-3000, 3000) for _ in range(3)) for _ in range(n)]
    nrm_raw = [tuple(rng.randint(-60, 60) for _ in range(3)) for _ in range(n)]
    nrm_raw = [v if any(v) else (0, 0, 1) for v in nrm_raw]
    rgba = [tuple(rng.randint(0, 255) for _ in range(4)) for _ in range(n)]
    uv_raw = [tuple(rng.randint(-2000, 2000) for _ in range(2)) for _ in range(n)]
    scene = dict(
        joints=joints, parents=parents, calc=calc,
        envelopes=[[(1, 0.25), (2, 0.75)], [(0, 0.5), (2, 0.25), (3, 0.25)], [(3, 1.0)]],
        inverse_binds=[random_ib(rng) for _ in range(4)],
        draw=[(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (0, 3), (1, 2)],
        arrays={POS: mm.vertex_array([tuple(x / 64 for x in v) for v in pos_raw], "s16", 6),
                NRM: mm.vertex_array(nrm_raw, "s8", 6),
                CLR0: mm.color_array(rgba, "RGBA8"),
                TEX0: mm.vertex_array([tuple(x / 256 for x in v) for v in uv_raw], "s16", 8)},
        values={POS: [tuple(x / 64 for x in v) for v in pos_raw], NRM: nrm_raw,
                CLR0: [color_value(c, "RGBA8", True) for c in rgba],
                TEX0: [tuple(x / 256 for x in v) for v in uv_raw]},
    )
    return scene


STD_ATTRS = [(POS, INDEX16), (NRM, INDEX16), (CLR0, INDEX16), (TEX0, INDEX16)]


def v4(i):
    return (i, i, i, i)


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("calc", ["basic", "softimage", "maya"])
def test_rigid_and_envelope_vertices_come_out_at_rest_in_model_space(calc):
    rng = random.Random(calc)
    scene = scene_base(rng, calc)
    scene["shapes"] = [
        mm.shape(STD_ATTRS, [mm.packet([1], [("strip", [v4(i) for i in range(6)])])]),          # rigid on body
        mm.shape(STD_ATTRS, [mm.packet([3], [("fan", [v4(i) for i in range(2, 8)])])]),         # envelope 0
        mm.shape([(PNMTXIDX, DIRECT)] + STD_ATTRS, [                                            # multi-matrix
            mm.packet([2, 4, 0], [("triangles", [(0,) + v4(0), (3,) + v4(1), (6,) + v4(2),
                                                 (3,) + v4(3), (3,) + v4(4), (0,) + v4(5)])]),
            # slot 0 carried over (0xFFFF), slot 1 reloaded with envelope 2 (DRW1 6), slot 2 keeps entry 0
            mm.packet([0xFFFF, 6], [("strip", [(0,) + v4(6), (3,) + v4(7), (6,) + v4(8), (3,) + v4(9)])]),
        ], matrix_type=3),
    ]
    model = gameanim.load_model(build(scene))
    assert len(model.meshes) == 3
    for i in range(3):
        check_shape(model, scene, i, size=200.0)
    multi = model.meshes[2]
    assert multi.matrix_type == 3 and multi.influences == 3
    assert set(multi.draw_indices) == {2, 4, 0, 6}


def test_rigid_vertices_are_moved_by_their_joint_by_hand():
    """One vertex at (1, 0, 0) on a joint turned 90 degrees about Z and moved
    to (0, 10, 0) under a root at (1, 2, 3): model space (1, 13, 3)."""
    joints = [mm.joint("root", translation=(1.0, 2.0, 3.0)),
              mm.joint("j", rotation_raw=(0, 0, 16384), translation=(0.0, 10.0, 0.0))]
    arrays = {POS: mm.vertex_array([(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)], "f32")}
    sh = mm.shape([(POS, INDEX8)], [mm.packet([1], [("triangles", [(0,), (1,), (2,)])])])
    data = mm.write_j3d_model(joints, [-1, 0], draw=[(0, 0), (0, 1)],
                              extra_chunks=[("VTX1", mm.vtx1_body(arrays)), ("SHP1", mm.shp1_body([sh]))])
    mesh = gameanim.load_model(data).meshes[0]
    got = {tuple(round(x, 5) for x in mesh.positions[3 * v:3 * v + 3]) for v in range(3)}
    assert got == {(1.0, 13.0, 3.0), (0.0, 12.0, 3.0), (1.0, 12.0, 4.0)}
    assert mesh.normals is None and mesh.colors == [] and mesh.uvs == []
    assert list(mesh.joints) == [1, 1, 1] and list(mesh.weights) == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("kind", ["triangles", "strip", "fan", "quads"])
def test_each_primitive_type_triangulates_and_is_wound_for_blender(kind):
    rng = random.Random(kind)
    scene = scene_base(rng)
    verts = [v4(i) for i in range(8)]
    scene["shapes"] = [mm.shape(STD_ATTRS, [mm.packet([0], [(kind, verts), ("lines", verts[:4]),
                                                             ("points", verts[:3])])])]
    model = gameanim.load_model(build(scene))
    mesh = check_shape(model, scene, 0, size=100.0)
    ntri = {"triangles": 2, "strip": 6, "fan": 6, "quads": 4}[kind]
    assert len(mesh.triangles) == 3 * ntri


def test_winding_by_hand():
    """A GX triangle (0, 1, 2) is clockwise from the front; Blender gets (0, 2, 1)."""
    joints = [mm.joint("root")]
    arrays = {POS: mm.vertex_array([(0.0, 0.0, 0.0), (0.0, 1.0, 0.0), (1.0, 0.0, 0.0)], "f32")}
    sh = mm.shape([(POS, INDEX16)], [mm.packet([0], [("triangles", [(0,), (1,), (2,)])])])
    data = mm.write_j3d_model(joints, [-1], draw=[(0, 0)],
                              extra_chunks=[("VTX1", mm.vtx1_body(arrays)), ("SHP1", mm.shp1_body([sh]))])
    mesh = gameanim.load_model(data).meshes[0]
    pos = [tuple(mesh.positions[3 * v:3 * v + 3]) for v in mesh.triangles]
    assert pos == [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]  # counter-clockwise seen from +Z


def test_degenerate_strip_triangles_are_dropped():
    rng = random.Random(3)
    scene = scene_base(rng)
    # a strip joining two runs with repeated vertices, as strippers write them
    strip = [v4(i) for i in (0, 1, 2, 3, 3, 4, 4, 5, 6, 7)]
    scene["shapes"] = [mm.shape(STD_ATTRS, [mm.packet([1], [("strip", strip)])])]
    mesh = check_shape(gameanim.load_model(build(scene)), scene, 0, size=100.0)
    tris = list(mesh.triangles)
    assert len(tris) == 3 * 4
    assert all(len({tris[i], tris[i + 1], tris[i + 2]}) == 3 for i in range(0, len(tris), 3))


POS_FORMATS = [("u8", 0, 3), ("u8", 3, 2), ("s8", 2, 3), ("u16", 7, 3), ("s16", 12, 2), ("s16", 0, 3), ("f32", 0, 3),
               ("f32", 0, 2)]


@pytest.mark.parametrize("ctype, shift, ncomp", POS_FORMATS)
def test_position_formats(ctype, shift, ncomp):
    rng = random.Random(f"{ctype}{shift}{ncomp}")
    scene = scene_base(rng)
    lo, hi = {"u8": (0, 255), "s8": (-128, 127), "u16": (0, 65535), "s16": (-32768, 32767), "f32": (-1000, 1000)}[ctype]
    if ctype == "f32":
        vals = [tuple(f32(rng.uniform(lo, hi)) for _ in range(ncomp)) for _ in range(12)]
    else:
        vals = [tuple(rng.randint(lo, hi) / (1 << shift) for _ in range(ncomp)) for _ in range(12)]
    scene["arrays"][POS] = mm.vertex_array(vals, ctype, shift)
    scene["values"][POS] = vals
    scene["shapes"] = [mm.shape(STD_ATTRS, [mm.packet([2], [("strip", [v4(i) for i in range(12)])])]),
                       mm.shape(STD_ATTRS, [mm.packet([4], [("fan", [v4(i) for i in range(12)])])])]
    model = gameanim.load_model(build(scene))
    size = max(abs(x) for v in vals for x in v) * 10
    check_shape(model, scene, 0, size)
    check_shape(model, scene, 1, size)


@pytest.mark.parametrize("ctype, ncomp", [("s8", 3), ("s16", 3), ("f32", 3), ("s16", 9), ("u8", 3)])
def test_normal_formats_are_normalised(ctype, ncomp):
    """The stored shift is ignored (the GX uses a fixed exponent) and normals
    come out unit length; NBT arrays (9 values) give their first three."""
    rng = random.Random(f"n{ctype}{ncomp}")
    scene = scene_base(rng)
    lo, hi = {"s8": (-100, 100), "s16": (-20000, 20000), "f32": (-3, 3), "u8": (1, 250)}[ctype]
    vals = [tuple((f32(rng.uniform(lo, hi)) if ctype == "f32" else rng.randint(lo, hi)) for _ in range(ncomp))
            for _ in range(12)]
    scene["arrays"][NRM] = mm.vertex_array(vals, ctype, 14, comp_count=1 if ncomp == 9 else 0)
    scene["values"][NRM] = [v[:3] for v in vals]
    scene["shapes"] = [mm.shape(STD_ATTRS, [mm.packet([3], [("strip", [v4(i) for i in range(12)])])])]
    mesh = check_shape(gameanim.load_model(build(scene)), scene, 0, 200.0)
    for v in range(len(mesh.normals) // 3):
        assert abs(math.hypot(*mesh.normals[3 * v:3 * v + 3]) - 1.0) < 1e-6


@pytest.mark.parametrize("ctype", list(mm.COLOR_TYPES))
@pytest.mark.parametrize("has_alpha", [True, False])
def test_colour_formats(ctype, has_alpha):
    rng = random.Random(f"{ctype}{has_alpha}")
    scene = scene_base(rng)
    rgba = [tuple(rng.randint(0, 255) for _ in range(4)) for _ in range(12)]
    scene["arrays"][CLR1] = mm.color_array(rgba, ctype, has_alpha)
    scene["values"][CLR1] = [color_value(c, ctype, has_alpha) for c in rgba]
    attrs = STD_ATTRS[:3] + [(CLR1, INDEX8), (TEX0, INDEX16)]
    scene["shapes"] = [mm.shape(attrs, [mm.packet([0], [("strip", [(i,) * 5 for i in range(12)])])])]
    mesh = check_shape(gameanim.load_model(build(scene)), scene, 0, 200.0)
    assert mesh.color_channels == (0, 1)


@pytest.mark.parametrize("ctype, shift, ncomp", [("u8", 7, 2), ("s8", 5, 1), ("u16", 15, 2), ("s16", 10, 2),
                                                 ("f32", 0, 2), ("f32", 0, 1)])
def test_uv_formats_and_several_sets(ctype, shift, ncomp):
    rng = random.Random(f"uv{ctype}{shift}{ncomp}")
    scene = scene_base(rng)
    lo, hi = {"u8": (0, 255), "s8": (-128, 127), "u16": (0, 65535), "s16": (-32768, 32767), "f32": (-4, 4)}[ctype]
    if ctype == "f32":
        vals = [tuple(f32(rng.uniform(lo, hi)) for _ in range(ncomp)) for _ in range(12)]
    else:
        vals = [tuple(rng.randint(lo, hi) / (1 << shift) for _ in range(ncomp)) for _ in range(12)]
    scene["arrays"][TEX0 + 3] = mm.vertex_array(vals, ctype, shift)
    scene["values"][TEX0 + 3] = vals
    attrs = STD_ATTRS + [(TEX0 + 3, INDEX16)]
    scene["shapes"] = [mm.shape(attrs, [mm.packet([5], [("fan", [(i,) * 5 for i in range(12)])])])]
    mesh = check_shape(gameanim.load_model(build(scene)), scene, 0, 200.0)
    assert mesh.uv_channels == (0, 3)


def test_index8_attributes_and_vertex_sharing():
    rng = random.Random(11)
    scene = scene_base(rng)
    attrs = [(POS, INDEX8), (NRM, INDEX8), (TEX0, INDEX8)]
    # the same (position, normal, uv) used by two triangles and through two draw matrices
    prims = [("triangles", [(0, 0, 0), (1, 1, 1), (2, 2, 2), (2, 2, 2), (1, 1, 1), (3, 3, 3)])]
    scene["shapes"] = [mm.shape([(PNMTXIDX, DIRECT)] + attrs, [
        mm.packet([0, 1], [(k, [(0,) + v for v in vs]) for k, vs in prims] +
                  [(k, [(3,) + v for v in vs]) for k, vs in prims])], matrix_type=3)]
    mesh = check_shape(gameanim.load_model(build(scene)), scene, 0, 200.0)
    assert len(mesh.positions) == 3 * 8  # 4 attribute tuples x 2 draw matrices
    assert sorted(zip(mesh.draw_indices, mesh.position_indices)) == sorted((d, p) for d in (0, 1) for p in range(4))


def test_bdl_files_decode_the_same_meshes():
    rng = random.Random(5)
    scene = scene_base(rng)
    scene["shapes"] = [mm.shape(STD_ATTRS, [mm.packet([3], [("strip", [v4(i) for i in range(5)])])])]
    a = gameanim.load_model(build(scene, "bmd")).meshes[0]
    b = gameanim.load_model(build(scene, "bdl")).meshes[0]
    assert a.positions == b.positions and a.triangles == b.triangles


def test_shapes_take_the_material_node_before_them():
    rng = random.Random(9)
    scene = scene_base(rng)
    scene["shapes"] = [mm.shape(STD_ATTRS, [mm.packet([0], [("strip", [v4(i) for i in range(4)])])])
                       for _ in range(3)]
    J, O, C, M, S, E = mm.JOINT, mm.OPEN, mm.CLOSE, mm.MATERIAL, mm.SHAPE, mm.END
    scene["nodes"] = [(J, 0), (O, 0), (M, 1), (O, 0), (S, 2), (C, 0), (J, 1), (O, 0), (J, 2), (O, 0), (M, 0), (O, 0),
                      (S, 0), (C, 0), (C, 0), (J, 3), (C, 0), (C, 0), (E, 0)]
    scene["materials"] = [mm.material("m0"), mm.material("m1")]
    model = gameanim.load_model(build(scene))
    assert [m.material for m in model.meshes] == [0, -1, 1]


def test_materials_read_back_as_written():
    rng = random.Random(10)
    scene = scene_base(rng)
    scene["shapes"] = [mm.shape(STD_ATTRS, [mm.packet([0], [("strip", [v4(i) for i in range(4)])])])]
    scene["materials"] = [
        mm.material("body", mode=1, cull=2, color=(10, 20, 30, 40), ambient=(1, 2, 3, 4), textures=(2, 0),
                    stages=((0, 1, 4), (1, 0xFF, 4), (0, 0, 0)), texgens=((1, 4, 60), (1, 5, 30)),
                    tev_colors=((-5, 300, 0, 255),), konst=((9, 8, 7, 6),), alpha_compare=(6, 128, 0, 3, 0),
                    blend=(1, 4, 5, 0), z_mode=(1, 3, 0)),
        mm.material("eyes", mode=4, cull=0, color=None, blend=None, z_mode=None, textures=(),
                    stages=((0xFF, 0xFF, 4),), texgens=()),
    ]
    mats = gameanim.load_model(build(scene)).materials
    a, b = mats
    assert (a.index, a.name, a.entry, a.mode, a.cull_mode) == (0, "body", 0, 1, 2)
    assert a.textures == (2, 0, -1, -1, -1, -1, -1, -1)
    assert a.stages == ((0, 1, 4, 0), (1, 0xFF, 4, -1), (0, 0, 0, 2))
    assert a.stage_textures == (0, -1, 2)
    # the first release's tuples, kept under *_raw names (docs/materials.md)
    assert a.texgens_raw == ((1, 4, 60), (1, 5, 30))
    assert a.colors == ((10, 20, 30, 40), None) and a.ambient_colors == ((1, 2, 3, 4), None)
    assert a.channels_raw == ((0, 1, 0, 0, 0, 0), None, None, None) and a.channel_count == 1
    assert a.tev_colors_raw == ((-5, 300, 0, 255), None, None, None)
    assert a.konst_colors_raw == ((9, 8, 7, 6), None, None, None)
    assert (a.alpha_compare_raw, a.blend_raw, a.z_mode_raw) == ((6, 128, 0, 3, 0), (1, 4, 5, 0), (1, 3, 0))
    assert (b.name, b.mode, b.cull_mode, b.colors[0], b.blend_raw, b.z_mode_raw) == (
        "eyes", 4, 0, None, None, None)
    assert b.stages == ((0xFF, 0xFF, 4, -1),) and b.texgens_raw == ()


def test_models_without_geometry_and_other_families_have_no_meshes():
    assert gameanim.load_model(mm.write_j3d_model([mm.joint("r")], [-1], extra_chunks=())).meshes == ()
    assert gameanim.load_model(mm.write_sm64ds_bmd([mm.sm64ds_bone("r")])).meshes == ()
    assert gameanim.load_model(mm.write_bk_model([((0.0, 0.0, 0.0), 1, -1)])).materials == ()


def test_arrays_are_the_types_blender_takes():
    rng = random.Random(12)
    scene = scene_base(rng)
    scene["shapes"] = [mm.shape(STD_ATTRS, [mm.packet([4], [("strip", [v4(i) for i in range(6)])])])]
    mesh = gameanim.load_model(build(scene)).meshes[0]
    assert mesh.positions.typecode == "f" and mesh.normals.typecode == "f" and mesh.uvs[0].typecode == "f"
    assert mesh.triangles.typecode == "I" and mesh.joints.typecode == "I" and mesh.weights.typecode == "f"
    assert mesh.colors[0].typecode == "f" and mesh.position_indices.typecode == "I"
    assert len(mesh.joints) == len(mesh.weights) == mesh.influences * len(mesh.positions) // 3



def mixed_scene(rng):
    """Rigid, envelope and multi-matrix shapes, with two UV sets."""
    scene = scene_base(rng)
    vals = [(rng.randint(-512, 512) / 256, rng.randint(-512, 512) / 256) for _ in range(12)]
    scene["arrays"][TEX0 + 2] = mm.vertex_array(vals, "s16", 8)
    scene["values"][TEX0 + 2] = vals
    attrs = STD_ATTRS + [(TEX0 + 2, INDEX16)]
    scene["shapes"] = [
        mm.shape(attrs, [mm.packet([1], [("strip", [v4(i) + (i,) for i in range(6)])])]),
        mm.shape(attrs, [mm.packet([3], [("fan", [v4(i) + (11 - i,) for i in range(2, 8)])])]),
        mm.shape([(PNMTXIDX, DIRECT)] + attrs, [
            mm.packet([2, 4, 0], [("triangles", [(0,) + v4(0) + (1,), (3,) + v4(1) + (2,), (6,) + v4(2) + (3,),
                                                 (3,) + v4(3) + (4,), (3,) + v4(4) + (5,), (0,) + v4(5) + (6,)])]),
            mm.packet([0xFFFF, 6], [("strip", [(0,) + v4(6) + (7,), (3,) + v4(7) + (8,), (6,) + v4(8) + (9,),
                                               (3,) + v4(9) + (10,)])]),
        ], matrix_type=3),
    ]
    return scene


def test_corner_uvs_are_s_and_one_minus_t_per_triangle_corner():
    """Mesh.corner_uvs: the UV of each triangle corner, in the order of
    triangles, flipped to (s, 1 - t) (Blender's UV loop data)."""
    scene = mixed_scene(random.Random("corner uvs"))
    model = gameanim.load_model(build(scene))
    for i, mesh in enumerate(model.meshes):
        want = expected_corners(scene, i)
        assert len(mesh.corner_uvs) == len(mesh.uvs) == 2
        for n, arr in enumerate(mesh.corner_uvs):
            assert arr.typecode == "f" and len(arr) == 2 * len(want)
            flipped = [x for c in want for x in (c["uvs"][n][0], 1.0 - c["uvs"][n][1])]
            assert_close(list(arr), flipped, 1e-6, f"shape {i} set {n}")


def test_corner_uvs_by_hand():
    """One triangle whose vertices have UVs (0, 0), (1, 0), (0.25, 0.75)."""
    arrays = {POS: mm.vertex_array([(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)], "f32"),
              TEX0: mm.vertex_array([(0.0, 0.0), (1.0, 0.0), (0.25, 0.75)], "f32")}
    sh = mm.shape([(POS, INDEX8), (TEX0, INDEX8)], [mm.packet([0], [("triangles", [(0, 0), (1, 1), (2, 2)])])])
    data = mm.write_j3d_model([mm.joint("root")], [-1], draw=[(0, 0)],
                              extra_chunks=[("VTX1", mm.vtx1_body(arrays)), ("SHP1", mm.shp1_body([sh]))])
    mesh = gameanim.load_model(data).meshes[0]
    uv_of = {(0.0, 0.0, 0.0): (0.0, 1.0), (1.0, 0.0, 0.0): (1.0, 1.0), (0.0, 1.0, 0.0): (0.25, 0.25)}
    want = [x for v in mesh.triangles for x in uv_of[tuple(mesh.positions[3 * v:3 * v + 3])]]
    assert list(mesh.corner_uvs[0]) == want


def test_groups_list_the_vertices_of_each_joint_and_weight():
    """Mesh.groups: (joint, weight, array('i') of vertices) per distinct
    joint and non-zero weight, by joint then weight, vertices ascending;
    the reference comes from the scene's DRW1 / EVP1 through the corners."""
    scene = mixed_scene(random.Random("groups"))
    model = gameanim.load_model(build(scene))
    for i, mesh in enumerate(model.meshes):
        ref = {}
        for c, corner in zip(mesh.triangles, expected_corners(scene, i)):
            for j, w in corner["influences"]:
                if w:
                    ref.setdefault((j, w), set()).add(c)
        got = list(mesh.groups)
        assert [(j, w) for j, w, _ in got] == sorted(ref), i
        for j, w, verts in got:
            assert verts.typecode == "i" and list(verts) == sorted(ref[(j, w)]), (i, j, w)
        # every vertex is in a group
        assert {v for _, _, vs in got for v in vs} == set(range(len(mesh.positions) // 3))


def test_groups_by_hand():
    """Three vertices rigid on joint 1: one group (1, 1.0, [0, 1, 2])."""
    joints = [mm.joint("root"), mm.joint("j", translation=(0.0, 1.0, 0.0))]
    arrays = {POS: mm.vertex_array([(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)], "f32")}
    sh = mm.shape([(POS, INDEX8)], [mm.packet([1], [("triangles", [(0,), (1,), (2,)])])])
    data = mm.write_j3d_model(joints, [-1, 0], draw=[(0, 0), (0, 1)],
                              extra_chunks=[("VTX1", mm.vtx1_body(arrays)), ("SHP1", mm.shp1_body([sh]))])
    mesh = gameanim.load_model(data).meshes[0]
    assert [(j, w, list(v)) for j, w, v in mesh.groups] == [(1, 1.0, [0, 1, 2])]
    assert mesh.corner_uvs == []


# ---------------------------------------------------------------- malformed geometry


def good_scene():
    rng = random.Random(1)
    scene = scene_base(rng)
    scene["shapes"] = [mm.shape([(PNMTXIDX, DIRECT)] + STD_ATTRS, [
        mm.packet([0, 3], [("strip", [(3 * (i % 2),) + v4(i) for i in range(6)])]),
        mm.packet([0xFFFF, 1], [("fan", [(3 * (i % 2),) + v4(i) for i in range(6)])])], matrix_type=3)]
    scene["materials"] = [mm.material()]
    return scene


def shp1_offsets(data):
    s = mm.find_chunk(data, b"SHP1")
    names = ["shapes", "remap", "names", "descs", "mtable", "dl", "mdata", "ploc"]
    return s, {n: s + struct.unpack_from(">I", data, s + 0x0C + 4 * k)[0] for k, n in enumerate(names)}


def mutate_shp1(fn):
    data = bytearray(build(good_scene()))
    s, o = shp1_offsets(data)
    fn(data, s, o)
    return bytes(data)


MALFORMED = [
    ("shape count", lambda d, s, o: struct.pack_into(">H", d, s + 8, 0xFFFF), "SHP1 shape count"),
    ("matrix type", lambda d, s, o: d.__setitem__(o["shapes"], 9), "SHP1 matrix type"),
    ("descriptor attr", lambda d, s, o: struct.pack_into(">I", d, o["descs"], 77), "SHP1 vertex attribute"),
    ("descriptor type", lambda d, s, o: struct.pack_into(">I", d, o["descs"] + 4, 9), "SHP1 attribute type"),
    ("direct position", lambda d, s, o: struct.pack_into(">I", d, o["descs"] + 12, 1), "SHP1 attribute type"),
    ("packet count", lambda d, s, o: struct.pack_into(">H", d, o["shapes"] + 2, 5000), "SHP1 packet"),
    ("matrix count", lambda d, s, o: struct.pack_into(">H", d, o["mdata"] + 2, 11), "SHP1 matrix count"),
    ("matrix table index", lambda d, s, o: struct.pack_into(">I", d, o["mdata"] + 4, 0x7FFFFFFF),
     "SHP1 matrix table index"),
    ("drw1 entry", lambda d, s, o: struct.pack_into(">H", d, o["mtable"], 500), "SHP1 matrix table"),
    ("unset slot", lambda d, s, o: struct.pack_into(">H", d, o["mtable"] + 2, 0xFFFF), "SHP1 matrix table"),
    ("packet size", lambda d, s, o: struct.pack_into(">I", d, o["ploc"], 0x7FFFFFF0), "SHP1 packet location"),
    ("packet offset", lambda d, s, o: struct.pack_into(">I", d, o["ploc"] + 4, 0xFFFFFF00), "SHP1 packet location"),
    ("command", lambda d, s, o: d.__setitem__(o["dl"], 0x77), "SHP1 display list command"),
    ("vertex count", lambda d, s, o: struct.pack_into(">H", d, o["dl"] + 1, 0xFFFF), "SHP1 display list"),
    ("pnmtx", lambda d, s, o: d.__setitem__(o["dl"] + 3, 4), "SHP1 position matrix index"),
    ("pnmtx slot", lambda d, s, o: d.__setitem__(o["dl"] + 3, 30), "SHP1 position matrix index"),
    ("position index", lambda d, s, o: struct.pack_into(">H", d, o["dl"] + 4, 5000), "SHP1 vertex index"),
    ("dl offset", lambda d, s, o: struct.pack_into(">I", d, s + 0x20, 0x7FFFFFFF), "SHP1 display list offset"),
    ("shape table", lambda d, s, o: struct.pack_into(">I", d, s + 0x0C, 0xFFFFFFF0), "SHP1 shape table offset"),
]


@pytest.mark.parametrize("what, fn, field", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_shp1_raises_format_error(what, fn, field):
    model = gameanim.load_model(mutate_shp1(fn))
    with pytest.raises(gameanim.FormatError) as e:
        model.meshes
    assert e.value.field == field, (what, str(e.value))
    assert e.value.offset is not None and e.value.format == "bmd"


def mutate_vtx1(fn):
    data = bytearray(build(good_scene()))
    v = mm.find_chunk(data, b"VTX1")
    fn(data, v, v + struct.unpack_from(">I", data, v + 8)[0])
    return bytes(data)


@pytest.mark.parametrize("what, fn, field", [
    ("attribute", lambda d, v, f: struct.pack_into(">I", d, f, 40), "VTX1 attribute"),
    ("component type", lambda d, v, f: struct.pack_into(">I", d, f + 8, 7), "VTX1 component format"),
    ("component count", lambda d, v, f: struct.pack_into(">I", d, f + 4, 5), "VTX1 component format"),
    ("shift", lambda d, v, f: d.__setitem__(f + 12, 40), "VTX1 fraction shift"),
    ("array offset", lambda d, v, f: struct.pack_into(">I", d, v + 0x0C, 0xFFFFFF), "VTX1 array offset"),
    ("missing array", lambda d, v, f: struct.pack_into(">I", d, v + 0x10, 0), "VTX1 array offset"),
    ("format list", lambda d, v, f: struct.pack_into(">I", d, v + 8, 0x7FFFFFFF), "VTX1 format list offset"),
    ("no end", lambda d, v, f: struct.pack_into(">I", d, v + 8, struct.unpack_from(">I", d, v + 4)[0] - 8),
     "VTX1 format list"),
])
def test_malformed_vtx1_raises_format_error(what, fn, field):
    model = gameanim.load_model(mutate_vtx1(fn))
    with pytest.raises(gameanim.FormatError) as e:
        model.meshes
    assert e.value.field == field, (what, str(e.value))


def test_index_past_a_short_array_is_an_error_not_padding():
    """Arrays run to the next array; an index into the padding after the
    last real entry is refused only when it passes the array's room."""
    scene = good_scene()
    data = build(scene)
    model = gameanim.load_model(data)
    assert len(model.meshes) == 1
    vals = scene["values"][POS]
    scene["arrays"][POS] = mm.vertex_array(vals[:2], "s16", 6)  # 12 bytes, padded to 32: 5 entries fit
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load_model(build(scene)).meshes
    assert e.value.field == "SHP1 vertex index" and "POS index 5" in str(e.value)


def test_no_vtx1_and_malformed_mat3():
    scene = good_scene()
    data = mm.write_j3d_model(scene["joints"], scene["parents"], draw=scene["draw"], envelopes=scene["envelopes"],
                              inverse_binds=scene["inverse_binds"],
                              extra_chunks=[("SHP1", mm.shp1_body(scene["shapes"]))])
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load_model(data).meshes
    assert e.value.field == "VTX1"
    data = bytearray(build(scene))
    m = mm.find_chunk(data, b"MAT3")
    entries = m + struct.unpack_from(">I", data, m + 0x0C)[0]
    data[entries + 1] = 200  # cull mode index past its table
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load_model(bytes(data)).materials
    assert e.value.field == "MAT3 cull mode index"
    struct.pack_into(">H", data, m + 8, 0x7FFF)  # material count past the remap table
    with pytest.raises(gameanim.FormatError):
        gameanim.load_model(bytes(data)).materials


def test_truncated_and_random_geometry_never_crashes():
    """Every truncation of the geometry chunks, and random byte flips, give
    meshes / materials / textures or FormatError."""
    base = build(good_scene())
    rng = random.Random(2)
    v = mm.find_chunk(base, b"VTX1")
    cases = []
    for cut in range(v + 8, len(base), 7):
        bad = bytearray(base[:cut])
        struct.pack_into(">I", bad, 8, len(bad))
        cases.append(bytes(bad))
    for _ in range(300):
        bad = bytearray(base)
        for _ in range(rng.randint(1, 6)):
            bad[rng.randrange(v, len(bad))] = rng.getrandbits(8)
        cases.append(bytes(bad))
    errors = 0
    for data in cases:
        try:
            model = gameanim.load_model(data)
        except gameanim.FormatError:
            errors += 1
            continue
        for attr in ("meshes", "materials", "textures"):
            try:
                getattr(model, attr)
            except gameanim.FormatError:
                errors += 1
    assert errors > 0


def test_threads_reading_the_geometry_at_once_share_one_result():
    """The geometry decodes without the GIL; threads that ask at the same time
    all get the one tuple the Model keeps."""
    import threading

    data = mm.mesh_model()
    for attr in ("meshes", "textures", "materials"):
        model = gameanim.load_model(data)
        got, barrier = [], threading.Barrier(6)

        def read():
            barrier.wait()
            got.append(getattr(model, attr))

        threads = [threading.Thread(target=read) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(got) == 6 and all(g is got[0] for g in got) and len(got[0]) > 0
