"""Model.replace_mesh (issue 34, docs/model_writer.md "Meshes"): a new mesh
for one SHP1 shape, written back (VTX1 append-only, EVP1/DRW1, SHP1
packets and strips, JNT1 boxes, INF1 counts) and re-read with our parser.

The expectations are the arrays the test gives (model space at the rest
pose, counter-clockwise triangles) compared corner by corner within the
stored quantisation; the chunk layouts are checked with small parsers
written here from the notes (../shared/formats/j3d_writer.md, j3d_meshes.md),
not with the code under test."""
import math
import os
import random
import struct
import sys
from array import array

import pytest

import gameanim
from model_fixtures import make_models as mm

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
from benchdata import mesh_model_file  # noqa: E402

# ---------------------------------------------------------------- parsers (from the notes)


def chunk(model, tag):
    return [c for t, c in model.chunks if t == tag][0]


def parse_shp1(c):
    """Per shape: matrix type, descriptor [(attr, type)], packets [(use, table, dl bytes)]."""
    n = struct.unpack_from(">H", c, 8)[0]
    off = struct.unpack_from(">8I", c, 0x0C)
    shapes = []
    for i in range(n):
        mtype, _, npk, desc, fm, fp = struct.unpack_from(">BBHHHH", c, off[0] + 0x28 * i)
        attrs, at = [], off[3] + desc
        while True:
            a, t = struct.unpack_from(">II", c, at)
            if a == 0xFF:
                break
            attrs.append((a, t))
            at += 8
        packets = []
        for p in range(npk):
            use, cnt, first = struct.unpack_from(">HHI", c, off[6] + 8 * (fm + p))
            size, dlo = struct.unpack_from(">II", c, off[7] + 8 * (fp + p))
            table = list(struct.unpack_from(">%dH" % cnt, c, off[4] + 2 * first))
            assert (off[5] + dlo) % 32 == 0 and size % 32 == 0, "display lists start 32-aligned, padded to 32"
            packets.append((use, table, c[off[5] + dlo:off[5] + dlo + size]))
        shapes.append((mtype, attrs, packets))
    return shapes


def parse_drw1(c):
    n = struct.unpack_from(">H", c, 8)[0]
    ko, io = struct.unpack_from(">II", c, 0x0C)
    return [(c[ko + k], struct.unpack_from(">H", c, io + 2 * k)[0]) for k in range(n)]


def evp1_count(c):
    return struct.unpack_from(">H", c, 8)[0]


def vtx1_formats(c):
    """{attr: (count, type, shift)} from the format list."""
    at, out = struct.unpack_from(">I", c, 8)[0], {}
    while True:
        a, cnt, typ, shift = struct.unpack_from(">IIIB", c, at)
        if a == 0xFF:
            return out
        out[a] = (cnt, typ, shift)
        at += 16


def dl_vertex_count(dl, vsize):
    """Walks a display list (primitives only, then zero padding): the vertices drawn."""
    at, n = 0, 0
    while at < len(dl) and dl[at] != 0:
        op, cnt = dl[at], struct.unpack_from(">H", dl, at + 1)[0]
        assert op in (0x90, 0x98, 0xA0), hex(op)
        assert cnt >= 3 and (op != 0x90 or cnt % 3 == 0)
        at += 3 + cnt * vsize
        n += cnt
    assert not any(dl[at:]), "only zero padding after the primitives"
    return n


# ---------------------------------------------------------------- corner multisets


def corner_data(mesh, v, uv=True, color=True, weights=True):
    out = [tuple(mesh.positions[3 * v:3 * v + 3])]
    if uv:
        out += [tuple(u[2 * v:2 * v + 2]) for u in mesh.uvs]
    if color:
        out += [tuple(c[4 * v:4 * v + 4]) for c in mesh.colors]
    if weights:
        k = mesh.influences
        w = {}
        for j, x in zip(mesh.joints[v * k:(v + 1) * k], mesh.weights[v * k:(v + 1) * k]):
            if x:
                w[j] = w.get(j, 0.0) + x
        out.append(tuple(sorted(w.items())))
    return out


def triangles(mesh, **kw):
    T = mesh.triangles
    return [tuple(corner_data(mesh, T[t + k], **kw) for k in range(3)) for t in range(0, len(T), 3)]


def close(a, b, tol):
    if isinstance(a, tuple) and a and isinstance(a[0], tuple):  # weights
        return len(a) == len(b) and all(x[0] == y[0] and abs(x[1] - y[1]) <= 1e-5 for x, y in zip(a, b))
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b))


def corners_close(c, d, tol):
    return all(close(x, y, tol) for x, y in zip(c, d))


def assert_same_triangles(expected, got, tol):
    """Multisets of triangles equal within tol, winding kept (cyclic rotations only)."""
    assert len(expected) == len(got), (len(expected), len(got))
    left = list(got)
    for t in expected:
        for i, g in enumerate(left):
            if any(all(corners_close(t[k], g[(k + r) % 3], tol) for k in range(3)) for r in range(3)):
                del left[i]
                break
        else:
            raise AssertionError(f"triangle {t} not found")


class Given:
    """The arrays given to replace_mesh, as a mesh-like object."""

    def __init__(self, positions, triangles, uvs=(), colors=(), joints=None, weights=None, influences=1):
        self.positions, self.triangles, self.uvs, self.colors = positions, triangles, list(uvs), list(colors)
        self.joints, self.weights, self.influences = joints, weights, influences


def mesh_arrays(mesh):
    return dict(normals=mesh.normals, colors=mesh.colors, uvs=mesh.uvs, joints=mesh.joints, weights=mesh.weights)


def same_mesh(a, b):
    names = ("positions", "normals", "colors", "uvs", "triangles", "joints", "weights", "influences", "matrix_type",
             "material")
    return all(getattr(a, n) == getattr(b, n) for n in names)


# ---------------------------------------------------------------- fixtures


def rigid_only_model():
    """Three joints, no envelopes (EVP1 empty), one multi-matrix shape
    drawn through the three rigid DRW1 entries (positions in joint space)."""
    joints = [mm.joint("root"), mm.joint("a", translation=(0.0, 4.0, 0.0), rotation_raw=(0, 0, 8192)),
              mm.joint("b", translation=(2.0, 0.0, 0.0))]
    pos = [(x, y, 0.0) for y in (0.0, 1.0) for x in (0.0, 1.0, 2.0)]
    arrays = {mm.POS: mm.vertex_array(pos, "s16", 8), mm.TEX0: mm.vertex_array([(p[0] / 2, p[1]) for p in pos])}
    attrs = [(mm.PNMTXIDX, mm.DIRECT), (mm.POS, mm.INDEX8), (mm.TEX0, mm.INDEX8)]
    verts = [(3 * (i % 3), i, i) for i in (0, 3, 1, 4, 2, 5)]
    shp = mm.shape(attrs, [mm.packet([0, 1, 2], [("strip", verts)])], matrix_type=3)
    nodes = [(mm.JOINT, 0), (mm.OPEN, 0), (mm.MATERIAL, 0), (mm.OPEN, 0), (mm.SHAPE, 0), (mm.CLOSE, 0),
             (mm.JOINT, 1), (mm.OPEN, 0), (mm.JOINT, 2), (mm.CLOSE, 0), (mm.CLOSE, 0), (mm.END, 0)]
    extra = [("VTX1", mm.vtx1_body(arrays)), ("SHP1", mm.shp1_body([shp])),
             ("MAT3", mm.mat3_body([mm.material("m")]))]
    return mm.write_j3d_model(joints, [-1, 0, 1], nodes=nodes, envelopes=[], inverse_binds=[],
                              draw=[(0, 0), (0, 1), (0, 2)], extra_chunks=extra)


def tex_matrix_model():
    """The rigid-only model's shape with a TEX0MTXIDX (attribute 1) per vertex."""
    joints = [mm.joint("root"), mm.joint("a", translation=(0.0, 4.0, 0.0), rotation_raw=(0, 0, 8192)),
              mm.joint("b", translation=(2.0, 0.0, 0.0))]
    pos = [(x, y, 0.0) for y in (0.0, 1.0) for x in (0.0, 1.0, 2.0)]
    arrays = {mm.POS: mm.vertex_array(pos, "s16", 8)}
    attrs = [(mm.PNMTXIDX, mm.DIRECT), (1, mm.DIRECT), (mm.POS, mm.INDEX8)]
    verts = [(3 * (i % 3), 30, i) for i in (0, 3, 1, 4, 2, 5)]
    shp = mm.shape(attrs, [mm.packet([0, 1, 2], [("strip", verts)])], matrix_type=3)
    nodes = [(mm.JOINT, 0), (mm.OPEN, 0), (mm.MATERIAL, 0), (mm.OPEN, 0), (mm.SHAPE, 0), (mm.CLOSE, 0),
             (mm.CLOSE, 0), (mm.END, 0)]
    extra = [("VTX1", mm.vtx1_body(arrays)), ("SHP1", mm.shp1_body([shp])),
             ("MAT3", mm.mat3_body([mm.material("m")]))]
    return mm.write_j3d_model(joints, [-1, 0, 1], nodes=nodes, envelopes=[], inverse_binds=[],
                              draw=[(0, 0), (0, 1), (0, 2)], extra_chunks=extra)


FIXTURES = {
    "skinned": lambda: mm.mesh_model(),
    "billboard": lambda: mm.mesh_model(rigid_matrix_type=1),
    "unordered": lambda: mm.mesh_model(unordered=True),
    "maya": lambda: mm.mesh_model(calc="maya", scale_compensate=1),
    "rigid_only": rigid_only_model,
    "chain": lambda: mesh_model_file(4),
}


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_each_shape_written_back_reads_the_same(name):
    data = FIXTURES[name]()
    for i in range(len(gameanim.load_model(data).meshes)):
        model = gameanim.load_model(data)
        before = model.meshes
        old_shp1 = parse_shp1(chunk(model, "SHP1"))
        s = before[i]
        model.replace_mesh(i, s.positions, s.triangles, **mesh_arrays(s))
        after = model.meshes
        assert_same_triangles(triangles(s), triangles(after[i]), 1e-4)
        for k, other in enumerate(before):
            if k != i:
                assert same_mesh(other, after[k]), k
        new_shp1 = parse_shp1(chunk(model, "SHP1"))
        # strips, not lists: no larger than the file's own display lists
        assert sum(len(p[2]) for p in new_shp1[i][2]) <= sum(len(p[2]) for p in old_shp1[i][2])
        for k in range(len(old_shp1)):
            if k != i:
                assert [p[2] for p in new_shp1[k][2]] == [p[2] for p in old_shp1[k][2]]
        # append-only VTX1 and nothing new to append: every array where it was, as long as it was
        assert chunk(model, "VTX1")[:0x40] == chunk(gameanim.load_model(data), "VTX1")[:0x40]


def test_moved_vertices():
    model = gameanim.load_model(mm.mesh_model())
    s = model.meshes[0]
    moved = array("f", [x + d for k, x in enumerate(s.positions) for d in [(0.25, -0.5, 0.125)[k % 3]]])
    model.replace_mesh(0, moved, s.triangles)
    want = Given(moved, s.triangles, s.uvs, s.colors, s.joints, s.weights, s.influences)
    assert_same_triangles(triangles(want), triangles(model.meshes[0]), 0.01)


def test_omitted_arrays_keep_the_shapes_own():
    model = gameanim.load_model(mm.mesh_model())
    s = model.meshes[1]
    model.replace_mesh(1, s.positions, s.triangles)
    t = model.meshes[1]
    assert_same_triangles(triangles(s), triangles(t), 1e-4)
    # the normals went back through the same matrices: the same within the s8 quantum
    pairs = {tuple(round(x, 3) for x in s.positions[3 * v:3 * v + 3]): s.normals[3 * v:3 * v + 3]
             for v in range(len(s.positions) // 3)}
    for v in range(len(t.positions) // 3):
        n = pairs[tuple(round(x, 3) for x in t.positions[3 * v:3 * v + 3])]
        assert all(abs(a - b) < 0.02 for a, b in zip(n, t.normals[3 * v:3 * v + 3]))


def grid(cols, rows, scale=1.0, y0=0.0):
    pos, uvs, tris = array("f"), array("f"), array("I")
    for r in range(rows):
        for c in range(cols):
            pos.extend((scale * (c - cols / 2), y0 + scale * r, 0.3 * math.sin(c)))
            uvs.extend((c / (cols - 1), r / (rows - 1)))
    for r in range(rows - 1):
        for c in range(cols - 1):
            a = r * cols + c
            tris.extend((a, a + 1, a + cols + 1, a, a + cols + 1, a + cols))
    return pos, uvs, tris


def test_new_topology_colours_uvs_and_weights_need_new_envelopes():
    model = gameanim.load_model(mm.mesh_model())
    untouched = model.meshes[1]
    env_before = evp1_count(chunk(model, "EVP1"))
    pos, uvs, tris = grid(7, 5, 2.0, 4.0)
    nv = len(pos) // 3
    rng = random.Random(34)
    sets = [[(0, 1.0)], [(1, 0.5), (2, 0.5)], [(0, 0.2), (2, 0.8)], [(0, 0.3), (1, 0.3), (2, 0.4)],
            [(1, 0.75), (2, 0.25)]]
    joints, weights = array("I"), array("f")
    for v in range(nv):
        ws = sets[v % len(sets)] + [(0, 0.0)] * 3
        joints.extend(j for j, _ in ws[:3])
        weights.extend(w for _, w in ws[:3])
    colors = array("f", [rng.randrange(256) / 255.0 for _ in range(4 * nv)])
    normals = array("f", [0.0, 0.0, 1.0] * nv)
    model.replace_mesh(0, pos, tris, normals, [colors], [uvs], joints, weights)
    got = model.meshes[0]
    assert_same_triangles(triangles(Given(pos, tris, [uvs], [colors], joints, weights, 3)), triangles(got), 0.01)
    assert same_mesh(untouched, model.meshes[1])
    # three sets were new (the file has (0 .5, 1 .5) and (1 .75, 2 .25); joint 0 alone is rigid):
    # appended to EVP1; DRW1 = joints, envelopes, envelopes again
    n = evp1_count(chunk(model, "EVP1"))
    assert n == env_before + 3
    drw = parse_drw1(chunk(model, "DRW1"))
    nj = sum(1 for k, _ in drw if k == 0)
    assert drw == [(0, j) for j in range(nj)] + [(1, e) for e in range(n)] * 2
    for mtype, _, packets in parse_shp1(chunk(model, "SHP1")):
        for _, table, _ in packets:
            assert all(e == 0xFFFF or e < nj + n for e in table)  # never the duplicate region


def test_more_than_ten_matrices_split_packets():
    data = mesh_model_file(16)
    model = gameanim.load_model(data)
    others = model.meshes[1:]
    pos, uvs, tris = grid(12, 6, 0.5)
    nv = len(pos) // 3
    joints, weights = array("I"), array("f")
    for v in range(nv):
        c, r = v % 12, v // 12
        if r % 2:  # rigid on one joint (each has a rigid DRW1 entry)
            joints.extend(((c + r) % 16, 0)), weights.extend((1.0, 0.0))
        else:  # a pair the model has no envelope for
            joints.extend((c, (c + 3) % 16)), weights.extend((0.7, 0.3))
    model.replace_mesh(0, pos, tris, uvs=[uvs], joints=joints, weights=weights, normals=array("f", [0, 0, 1] * nv))
    got = model.meshes[0]
    assert_same_triangles(triangles(Given(pos, tris, [uvs], [], joints, weights, 2)), triangles(got), 1e-4)
    for k, o in enumerate(others):
        assert same_mesh(o, model.meshes[k + 1])
    mtype, attrs, packets = parse_shp1(chunk(model, "SHP1"))[0]
    assert mtype == 3 and attrs[0] == (0, 1) and len(packets) > 1
    vsize = 1 + sum(2 if t == 3 else 1 for a, t in attrs[1:])
    slots = [None] * 10
    for n, (use, table, dl) in enumerate(packets):
        assert len(table) <= 10
        if n == 0:
            assert 0xFFFF not in table  # the first packet loads every slot it uses
        for k, e in enumerate(table):
            if e != 0xFFFF:
                slots[k] = e
        assert len({e for e in slots if e is not None}) <= 10
        # the PNMTXIDX of every vertex is 3 * a loaded slot
        at = 0
        while at < len(dl) and dl[at]:
            cnt = struct.unpack_from(">H", dl, at + 1)[0]
            for v in range(cnt):
                idx = dl[at + 3 + v * vsize]
                assert idx % 3 == 0 and slots[idx // 3] is not None
            at += 3 + cnt * vsize
        dl_vertex_count(dl, vsize)


def test_rigid_only_model_gets_inverse_binds_for_every_joint():
    model = gameanim.load_model(rigid_only_model())
    assert model.inverse_binds == [] or len(model.inverse_binds) == 0
    s = model.meshes[0]
    nv = len(s.positions) // 3
    joints = array("I", [0, 1] * nv)
    weights = array("f", [0.5, 0.5] * nv)
    model.replace_mesh(0, s.positions, s.triangles, uvs=s.uvs, joints=joints, weights=weights)
    ib = model.inverse_binds
    world = model.world_matrices()
    assert len(ib) == len(model.bones)
    for j, b in enumerate(ib):  # IB_j * W_j = identity (3x4 * 4x4, row-major)
        W = world[16 * j:16 * j + 16]
        for r in range(3):
            for c in range(4):
                v = sum(b[4 * r + k] * W[4 * k + c] for k in range(3)) + (b[4 * r + 3] if c == 3 else 0.0)
                assert abs(v - (1.0 if r == c else 0.0)) < 1e-5
    assert_same_triangles(triangles(Given(s.positions, s.triangles, s.uvs, [], joints, weights, 2)),
                          triangles(model.meshes[0]), 0.01)


def vtx1_pos_format(model):
    return vtx1_formats(chunk(model, "VTX1"))[mm.POS]


def test_positions_past_the_shift_lower_it_and_past_s16_go_f32():
    model = gameanim.load_model(mm.mesh_model())
    assert vtx1_pos_format(model) == (1, 3, 8)  # XYZ, s16, 8 fraction bits: +-128
    s, other = model.meshes[0], model.meshes[1]
    big = array("f", [6.0 * x for x in s.positions])  # past 128
    model.replace_mesh(0, big, s.triangles)
    cnt, typ, shift = vtx1_pos_format(model)
    assert typ == 3 and shift < 8 and max(abs(x) for x in model.meshes[0].positions) * 2 ** shift <= 32768
    want = Given(big, s.triangles, s.uvs, s.colors, s.joints, s.weights, s.influences)
    assert_same_triangles(triangles(want), triangles(model.meshes[0]), 2.0 ** -shift * 2)
    # the other shape's stored values went through the coarser shift
    assert all(abs(a - b) <= 2.0 ** -shift * 2 for a, b in zip(other.positions, model.meshes[1].positions))
    huge = array("f", [2000.0 * x for x in s.positions])  # past 32768 at shift 0
    model.replace_mesh(0, huge, s.triangles)
    assert vtx1_pos_format(model)[1] == 4  # F32
    want = Given(huge, s.triangles, s.uvs, s.colors, s.joints, s.weights, s.influences)
    assert_same_triangles(triangles(want), triangles(model.meshes[0]), 0.01)


def test_index_width_follows_the_entry_count():
    model = gameanim.load_model(mm.mesh_model())
    _, attrs, _ = parse_shp1(chunk(model, "SHP1"))[1]
    assert all(t == 3 for a, t in attrs)  # the fixture's INDEX16
    s = model.meshes[1]
    model.replace_mesh(1, s.positions, s.triangles)
    _, attrs, _ = parse_shp1(chunk(model, "SHP1"))[1]
    assert all(t == 2 for a, t in attrs)  # 17 positions: INDEX8
    pos, uvs, tris = grid(20, 15, 0.1)  # 300 new positions: past 255 entries
    nv = len(pos) // 3
    model.replace_mesh(1, pos, tris, normals=array("f", [0, 1, 0] * nv), colors=[array("f", [1.0] * 4 * nv)],
                       uvs=[uvs], joints=array("I", [2] * nv), weights=array("f", [1.0] * nv))
    _, attrs, _ = parse_shp1(chunk(model, "SHP1"))[1]
    assert dict(attrs)[mm.POS] == 3 and dict(attrs)[mm.CLR0] == 2  # positions INDEX16; one new colour: INDEX8


def test_joint_box_grows_to_hold_the_new_geometry():
    model = gameanim.load_model(mm.mesh_model())
    s = model.meshes[1]  # the rigid shape, under joint 2 (head) in INF1
    b0 = model.bones[2]
    far = array("f", [x + (6.0 if k % 3 == 0 else 0.0) for k, x in enumerate(s.positions)])
    model.replace_mesh(1, far, s.triangles)
    b = model.bones[2]
    W = model.world_matrices()[32:48]
    # the joint frame: inverse of the rest world matrix (solve W p_j = p by Cramer's rule)
    A = [[W[4 * r + c] for c in range(3)] for r in range(3)]
    det = (A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0])
           + A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]))
    for v in range(len(far) // 3):
        rhs = [far[3 * v + r] - W[4 * r + 3] for r in range(3)]
        pj = []
        for c in range(3):
            M = [[rhs[r] if k == c else A[r][k] for k in range(3)] for r in range(3)]
            pj.append((M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1])
                       - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0])
                       + M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) / det)
        assert all(b.bound_min[k] - 1e-4 <= pj[k] <= b.bound_max[k] + 1e-4 for k in range(3))
        assert math.dist(pj, (0, 0, 0)) <= b.bound_radius + 1e-4
    # grown, never shrunk
    assert all(b.bound_min[k] <= b0.bound_min[k] and b.bound_max[k] >= b0.bound_max[k] for k in range(3))


def test_inf1_counts_follow_vtx1_and_shp1():
    model = gameanim.load_model(mm.mesh_model())
    pos, uvs, tris = grid(5, 4)
    nv = len(pos) // 3
    model.replace_mesh(1, pos, tris, normals=array("f", [0, 1, 0] * nv), colors=[array("f", [0.5] * 4 * nv)],
                       uvs=[uvs], joints=array("I", [2] * nv), weights=array("f", [1.0] * nv))
    c = chunk(model, "VTX1")
    offs = struct.unpack_from(">13I", c, 0x0C)
    nxt = min([o for o in offs if o > offs[0]] + [len(c)])
    cnt, typ, shift = vtx1_formats(c)[mm.POS]
    stride = (2 + cnt) * (4 if typ == 4 else 2 if typ >= 2 else 1)
    # the position array runs to the next array: the padding after it is fewer than one entry... or
    # whole entries of padding text; INF1 counts the entries written
    assert model.info["inf1_vertex_count"] <= (nxt - offs[0]) // stride < model.info["inf1_vertex_count"] + 32 // stride + 1
    shp = parse_shp1(chunk(model, "SHP1"))
    assert model.info["inf1_packet_count"] == sum(len(p) for _, _, p in shp)


@pytest.mark.parametrize("call, message", [
    (lambda m, s: m.replace_mesh(0, s.positions[:-1], s.triangles), "3 items"),
    (lambda m, s: m.replace_mesh(0, s.positions, array("I", [0, 1, 999])), "past the vertices"),
    (lambda m, s: m.replace_mesh(0, s.positions[:-3], s.triangles[:3]), "omitted array"),
    (lambda m, s: m.replace_mesh(0, s.positions, s.triangles, **dict(mesh_arrays(s), colors=[])), "colour channels"),
    (lambda m, s: m.replace_mesh(0, s.positions, s.triangles, **dict(mesh_arrays(s), uvs=[s.uvs[0][:-2]])), "uvs"),
    (lambda m, s: m.replace_mesh(0, s.positions, s.triangles, normals=s.normals[:-3]), "normals"),
    (lambda m, s: m.replace_mesh(0, s.positions, s.triangles, joints=s.joints), "together"),
    (lambda m, s: m.replace_mesh(0, s.positions, s.triangles, joints=array("I", [7] * len(s.weights)),
                                 weights=s.weights), "past the skeleton"),
    (lambda m, s: m.replace_mesh(0, s.positions, s.triangles, joints=s.joints,
                                 weights=array("f", [-1.0] * len(s.weights))), "negative"),
    (lambda m, s: m.replace_mesh(0, s.positions, s.triangles, joints=s.joints,
                                 weights=array("f", [0.0] * len(s.weights))), "no weight"),
    (lambda m, s: m.replace_mesh(9, s.positions, s.triangles), "no shape"),
    (lambda m, s: m.replace_mesh(0, array("f", [math.nan] * len(s.positions)), s.triangles), "non-finite"),
    (lambda m, s: m.replace_mesh(0, s.positions, s.triangles,
                                 uvs=[array("f", [math.inf] * len(s.uvs[0]))]), "non-finite"),
])
def test_bad_arguments_raise_and_leave_the_model_unchanged(call, message):
    model = gameanim.load_model(mm.mesh_model())
    chunks = model.chunks
    with pytest.raises(ValueError, match=message):
        call(model, model.meshes[0])
    assert model.chunks == chunks


def test_meshes_of_other_families_cannot_be_replaced():
    model = gameanim.load_model(mm.write_bk_model([((0.0, 0.0, 0.0), 1, -1)], 1.0))
    with pytest.raises(ValueError):
        model.replace_mesh(0, array("f", [0, 0, 0] * 3), array("I", [0, 1, 2]))


def test_shapes_with_texture_matrix_indices_are_refused():
    model = gameanim.load_model(tex_matrix_model())
    s = model.meshes[0]
    chunks = model.chunks
    with pytest.raises(ValueError, match="texture matrix"):
        model.replace_mesh(0, s.positions, s.triangles)
    assert model.chunks == chunks


# ---------------------------------------------------------------- add_mesh (INF1 / SHP1 / DRW1 side)


def inf1_nodes(model):
    c = chunk(model, "INF1")
    at, out = struct.unpack_from(">I", c, 0x14)[0], []
    while True:
        t, v = struct.unpack_from(">HH", c, at)
        out.append((t, v))
        if t == 0:
            return out
        at += 4


def test_add_mesh_appends_a_shape_under_the_first_joint():
    model = gameanim.load_model(mm.mesh_model())
    before, materials = model.meshes, model.materials
    pos, uvs, tris = grid(4, 3)
    nv = len(pos) // 3
    colors = array("f", [0.25, 0.5, 0.75, 1.0] * nv)
    joints, weights = array("I", [1, 2] * nv), array("f", [0.4, 0.6] * nv)
    model.add_mesh(1, pos, tris, normals=array("f", [0, 0, 1] * nv), colors=[colors], uvs=[uvs], joints=joints,
                   weights=weights)
    after = model.meshes
    assert len(after) == len(before) + 1
    for a, b in zip(before, after):
        assert same_mesh(a, b)
    new = after[-1]
    # its own material instance (the runtime keeps one per shape), a copy of material 1
    assert new.material == len(materials) and len(model.materials) == len(materials) + 1
    copy, source = model.materials[-1], materials[1]
    assert copy.name == source.name and copy.entry == source.entry
    assert [m.entry for m in model.materials[:-1]] == [m.entry for m in materials]
    assert_same_triangles(triangles(Given(pos, tris, [uvs], [colors], joints, weights, 2)), triangles(new), 0.01)
    nodes = inf1_nodes(model)
    k = nodes.index((0x12, len(before)))  # the shape node, right after its material node and an open
    assert nodes[k - 2:k + 2] == [(0x11, len(materials)), (0x01, 0), (0x12, len(before)), (0x02, 0)]
    assert nodes[:2] == [(0x10, 0), (0x01, 0)] and nodes[2:6] == nodes[k - 2:k + 2]  # inside the first joint
    assert model.info["inf1_packet_count"] == sum(len(p) for _, _, p in parse_shp1(chunk(model, "SHP1")))


def test_add_mesh_without_weights_is_rigid_on_the_first_joint_and_checks_the_material():
    model = gameanim.load_model(mm.mesh_model())
    pos, uvs, tris = grid(3, 3)
    nv = len(pos) // 3
    with pytest.raises(ValueError, match="material"):
        model.add_mesh(7, pos, tris, normals=array("f", [0, 0, 1] * nv), colors=[array("f", [1.0] * 4 * nv)],
                       uvs=[uvs])
    model.add_mesh(0, pos, tris, normals=array("f", [0, 0, 1] * nv), colors=[array("f", [1.0] * 4 * nv)], uvs=[uvs])
    new = model.meshes[-1]
    assert set(new.joints) == {0} and set(new.weights) == {1.0}
    assert_same_triangles(triangles(Given(pos, tris), uv=False, color=False, weights=False),
                          triangles(new, uv=False, color=False, weights=False), 0.01)


def test_a_game_model_with_an_added_and_a_replaced_mesh_passes_the_loader_checks():
    model = gameanim.load_model(mm.game_model())
    assert gameanim.check_model(model) == []
    pos, uvs, tris = grid(3, 3)
    nv = len(pos) // 3
    model.add_mesh(1, pos, tris, normals=array("f", [0, 0, 1] * nv), colors=[array("f", [1.0] * 4 * nv)], uvs=[uvs])
    old = model.meshes[0]
    moved = array("f", (v + 0.5 for v in old.positions))
    model.replace_mesh(0, moved, old.triangles)
    problems = [p for p in gameanim.check_model(model.to_bytes()) if not p.startswith("warning:")]
    assert problems == []


def _mdl3_lists(chunk):
    """MDL3's lists, patch entries and matrix words (tww J3DMaterialDLBlock:
    list table at 0x0C as {offset from the entry, size}, patches at 0x10,
    16 bytes each, matrix words at 0x14, 8 bytes each)."""
    n = struct.unpack_from(">H", chunk, 8)[0]
    dl_tab, patch_tab, mtx_tab = struct.unpack_from(">3I", chunk, 0x0C)
    out = []
    for i in range(n):
        off, size = struct.unpack_from(">II", chunk, dl_tab + 8 * i)
        start = dl_tab + 8 * i + off
        out.append((chunk[start:start + size], chunk[patch_tab + 16 * i:patch_tab + 16 * i + 16],
                    chunk[mtx_tab + 8 * i:mtx_tab + 8 * i + 8]))
    return out


def test_add_mesh_on_a_bdl_gives_the_new_material_its_mdl3_list():
    model = gameanim.load_model(mm.mesh_model(kind="bdl", game=True))
    before = _mdl3_lists(chunk(model, "MDL3"))
    pos, uvs, tris = grid(3, 3)
    nv = len(pos) // 3
    model.add_mesh(1, pos, tris, normals=array("f", [0, 0, 1] * nv), colors=[array("f", [1.0] * 4 * nv)], uvs=[uvs])
    after = _mdl3_lists(chunk(model, "MDL3"))
    assert len(after) == len(model.materials) == 3
    assert after[:2] == before  # the stored lists keep their bytes
    assert after[2] == before[1]  # the copy of material 1 draws with material 1's registers
    assert [p for p in gameanim.check_model(model.to_bytes()) if not p.startswith("warning:")] == []


def test_add_mesh_refuses_a_bdl_whose_mdl3_lacks_the_lists():
    data = mm.mesh_model(kind="bdl")
    at = mm.find_chunk(data, b"TEX1")  # an MDL3 stub (no lists) before TEX1
    mdl3 = mm.chunk("MDL3", bytes(24))
    data = data[:at] + mdl3 + data[at:]
    count = struct.unpack_from(">I", data, 12)[0]
    data = data[:8] + struct.pack(">II", len(data), count + 1) + data[16:]
    model = gameanim.load_model(data)
    assert "MDL3" in [t for t, _ in model.chunks]
    before = model.to_bytes()
    pos, uvs, tris = grid(2, 2)
    with pytest.raises(gameanim.FormatError, match="MDL3"):
        model.add_mesh(0, pos, tris)
    assert model.to_bytes() == before


def test_a_drw1_out_of_order_is_rewritten_and_only_the_other_shapes_tables_renumbered(monkeypatch):
    # envelope 0 first, then the joints: DRW1 is rewritten as joints, envelopes, envelopes again
    monkeypatch.setattr(mm, "MESH_DRAW", [(1, 0), (0, 0), (0, 1), (0, 2), (1, 1)])
    model = gameanim.load_model(mm.mesh_model())
    before, shp_before = model.meshes, parse_shp1(chunk(model, "SHP1"))
    s = before[0]
    nv = len(s.positions) // 3
    joints, weights = array("I", [0, 2] * nv), array("f", [0.5, 0.5] * nv)  # a set the file lacks
    model.replace_mesh(0, s.positions, s.triangles, joints=joints, weights=weights)
    assert parse_drw1(chunk(model, "DRW1")) == [(0, 0), (0, 1), (0, 2)] + [(1, 0), (1, 1), (1, 2)] * 2
    assert same_mesh(before[1], model.meshes[1])
    _, attrs, packets = parse_shp1(chunk(model, "SHP1"))[1]
    assert [p[2] for p in packets] == [p[2] for p in shp_before[1][2]]  # the display list as it was
    assert [p[1] for p in shp_before[1][2]] == [[2]] and [p[1] for p in packets] == [[1]]  # joint 1: entry 2 -> 1
