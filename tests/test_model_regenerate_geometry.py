"""Model.to_bytes(regenerate=True) for the geometry chunks, VTX1 and SHP1
(issue 34; docs/model_writer.md "Regenerating the geometry").

On every generated model the regenerated file, re-read by load_model, has
the original's triangles as a multiset of corners (rest-pose positions,
normals, colours, UVs, joints / weights, material), within each VTX1
array's quantum; the expected corners come from the original model's
decoded meshes.  Regenerating twice is a fixed point, the regenerated
game models pass check_model, the display lists are no larger than the
generator's, and bad VTX1 / SHP1 bytes are a FormatError, never a crash.
Reference layouts are written here from the notes
(../shared/formats/j3d_meshes.md section 2, j3d_writer.md sections 0-2)."""
import math
import os
import struct
import sys
from array import array

import pytest

import gameanim
from model_fixtures import make_models as mm, mesh_triangles

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
from benchdata import mesh_model_file  # noqa: E402

PADDING = b"This is padding data to alignment."  # j3d_writer.md section 2
TEX1, TEX3 = mm.TEX0 + 1, mm.TEX0 + 3


def _chunk(data, tag):
    return dict(gameanim.load_model(data).chunks)[tag]


def sets_model(kind="bmd"):
    """Rigid shapes on four joints with two colour sets (RGBA8, RGB565 without
    alpha) and three UV sets (f32, s16 shift 10, u8 shift 7), f32 positions,
    s16 normals, INDEX8 and INDEX16 indices, a triangle list and strips."""
    joints = [mm.joint("root"), mm.joint("a", translation=(0.0, 4.0, 0.0), rotation_raw=(0, 0, 8192)),
              mm.joint("b", translation=(2.0, 0.0, 0.0), scale=(1.0, 2.0, 1.0)), mm.joint("c")]
    pos = [(0.25 * x, 0.5 * y, 0.125 * x * y) for y in range(3) for x in range(4)]
    nrm = [(0, 0, 16384)] * 6 + [(0, 16384, 0)] * 6
    c0 = [(20 * i, 255 - 20 * i, 7 * i, 100 + i) for i in range(12)]
    c1 = [(8 * i, 4 * i, 255 - 8 * i, 255) for i in range(12)]
    uv0 = [(x / 3.0, y / 2.0) for y in range(3) for x in range(4)]
    uv1 = [(x * 1.5, -y * 0.75) for y in range(3) for x in range(4)]
    uv3 = [(x / 4.0, y / 8.0) for y in range(3) for x in range(4)]
    arrays = {mm.POS: mm.vertex_array(pos, "f32"), mm.NRM: mm.vertex_array(nrm, "s16", 14),
              mm.CLR0: mm.color_array(c0, "RGBA8"), mm.CLR1: mm.color_array(c1, "RGB565", has_alpha=False),
              mm.TEX0: mm.vertex_array(uv0, "f32"), TEX1: mm.vertex_array(uv1, "s16", 10),
              TEX3: mm.vertex_array(uv3, "u8", 7)}
    full = [(mm.POS, mm.INDEX8), (mm.NRM, mm.INDEX16), (mm.CLR0, mm.INDEX8), (mm.CLR1, mm.INDEX8),
            (mm.TEX0, mm.INDEX16), (TEX1, mm.INDEX8), (TEX3, mm.INDEX8)]
    tris = []
    for y in range(2):
        for x in range(3):
            a, b = 4 * y + x, 4 * y + x + 1
            tris += [a, b, b + 4, a, b + 4, a + 4]
    listed = mm.shape(full, [mm.packet([0], [("triangles", [(i,) * 7 for i in tris])])])
    strip = [(i, (i + 5) % 12) for i in (0, 4, 1, 5, 2, 6, 3, 7)]
    strips = mm.shape([(mm.POS, mm.INDEX16), (TEX1, mm.INDEX16)],
                      [mm.packet([1], [("strip", strip)]), mm.packet([2], [("fan", [(8, 1), (4, 2), (5, 3), (9, 4)])])])
    nodes = [(mm.JOINT, 0), (mm.OPEN, 0), (mm.MATERIAL, 0), (mm.OPEN, 0), (mm.SHAPE, 0), (mm.CLOSE, 0),
             (mm.JOINT, 1), (mm.OPEN, 0), (mm.MATERIAL, 1), (mm.OPEN, 0), (mm.SHAPE, 1), (mm.CLOSE, 0),
             (mm.CLOSE, 0), (mm.CLOSE, 0), (mm.END, 0)]
    extra = [("VTX1", mm.vtx1_body(arrays)), ("SHP1", mm.shp1_body([listed, strips])),
             ("MAT3", mm.mat3_body([mm.material("a"), mm.material("b")]))]
    return mm.write_j3d_model(joints, [-1, 0, 1, 0], nodes=nodes, envelopes=[], inverse_binds=[],
                              draw=[(0, 0), (0, 1), (0, 2), (0, 3)], extra_chunks=extra, kind=kind)


def degenerate_model():
    """A rigid shape whose triangle list holds a degenerate triangle (two
    corners on one vertex) through far vertices: they decode but draw
    nothing, so regenerate writes neither them nor their place in the
    shape's bounds (else regenerating twice would differ)."""
    pos = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (90.0, 90.0, 90.0), (-90.0, 0.0, 0.0)]
    arrays = {mm.POS: mm.vertex_array(pos, "s16", 7)}
    shp = mm.shape([(mm.POS, mm.INDEX8)], [mm.packet([0], [("triangles", [(0,), (2,), (1,), (3,), (3,), (4,)])])])
    nodes = [(mm.JOINT, 0), (mm.OPEN, 0), (mm.MATERIAL, 0), (mm.OPEN, 0), (mm.SHAPE, 0), (mm.CLOSE, 0),
             (mm.CLOSE, 0), (mm.END, 0)]
    extra = [("VTX1", mm.vtx1_body(arrays)), ("SHP1", mm.shp1_body([shp])), ("MAT3", mm.mat3_body([mm.material("m")]))]
    return mm.write_j3d_model([mm.joint("root")], [-1], nodes=nodes, envelopes=[], inverse_binds=[], draw=[(0, 0)],
                              extra_chunks=extra)


def many_matrices_model():
    """bench's 16-joint chain with shape 0 replaced (by our writer) by a grid
    skinned over all the joints: more than 10 matrices, several packets."""
    model = gameanim.load_model(mesh_model_file(16))
    pos, uvs, tris = array("f"), array("f"), array("I")
    for r in range(6):
        for c in range(12):
            pos.extend((0.5 * c, 2.0 * r, 0.0)), uvs.extend((c / 11.0, r / 5.0))
    for r in range(5):
        for c in range(11):
            a = 12 * r + c
            tris.extend((a, a + 1, a + 13, a, a + 13, a + 12))
    joints, weights = array("I"), array("f")
    for v in range(72):
        c, r = v % 12, v // 12
        joints.extend((c, (c + 3 + r) % 16)), weights.extend((0.7, 0.3) if r % 2 else (1.0, 0.0))
    model.replace_mesh(0, pos, tris, uvs=[uvs], joints=joints, weights=weights, normals=array("f", [0, 0, 1] * 72))
    return model.to_bytes()


MODELS = {
    "mesh": lambda: mm.mesh_model(),
    "mesh_bdl": lambda: mm.mesh_model("bdl"),
    "mesh_maya": lambda: mm.mesh_model(calc="maya", scale_compensate=1),
    "mesh_billboard": lambda: mm.mesh_model(rigid_matrix_type=1),
    "mesh_y_billboard": lambda: mm.mesh_model(rigid_matrix_type=2),
    "mesh_unordered": lambda: mm.mesh_model(unordered=True),
    "mesh_binds": lambda: mm.mesh_model(binds=[[2.0, 0, 0, 1.0, 0, 2.0, 0, -3.0, 0, 0, 2.0, 0.5]] * 3),
    "game": mm.game_model,
    "game_maya": lambda: mm.mesh_model(calc="maya", game=True),
    "sets": sets_model,
    "degenerate": degenerate_model,
    "sets_bdl": lambda: sets_model("bdl"),
    "chain": lambda: mesh_model_file(4),
    "many_matrices": many_matrices_model,
}
GAME = ("game", "game_maya")


def vtx1_formats(data):
    """{attr: (count, type, shift)} from VTX1's format list (j3d_meshes.md 2)."""
    c = _chunk(data, "VTX1")
    at, out = struct.unpack_from(">I", c, 8)[0], {}
    while struct.unpack_from(">I", c, at)[0] != 0xFF:
        attr, count, typ, shift = struct.unpack_from(">IIIB", c, at)
        out[attr] = (count, typ, shift)
        at += 16
    return out


def quanta(data):
    """Per corner field, the tolerance of its array: 2^-shift for integer
    types, a float32 ulp-scale for f32, 1/255 for colours; normals the GX's
    fixed 6 / 14 bits."""
    f = vtx1_formats(data)

    def q(attr):
        count, typ, shift = f.get(attr, (0, 4, 0))
        return 1e-6 if typ == 4 else 2.0 ** -shift

    nrm = f.get(mm.NRM, (0, 3, 0))[1]
    return {"pos": q(mm.POS) * 4, "nrm": 1e-6 if nrm == 4 else 4 * 2.0 ** -(6 if nrm <= 1 else 14),
            "uv": [q(mm.TEX0 + k) for k in range(8)], "clr": 1.0 / 255}


def close(a, b, tol):
    return len(a) == len(b) and all(math.isclose(x, y, rel_tol=1e-6, abs_tol=tol) for x, y in zip(a, b))


def assert_same_geometry(original, regenerated, q):
    """Shape by shape: the material and the triangles as a multiset of
    corners, each field within its quantum."""
    assert len(original.meshes) == len(regenerated.meshes)
    for i, (a, b) in enumerate(zip(original.meshes, regenerated.meshes)):
        assert a.material == b.material, i
        assert a.color_channels == b.color_channels and a.uv_channels == b.uv_channels, i
        ta, tb = mesh_triangles(a), mesh_triangles(b)
        assert len(ta) == len(tb), i
        uvq = [q["uv"][k] for k in a.uv_channels]
        for x, y in zip(ta, tb):
            for ca, cb in zip(x, y):
                assert close(ca[0], cb[0], q["pos"] * (1 + max(map(abs, ca[0])))), (i, ca, cb)
                assert close(ca[1], cb[1], q["nrm"]), (i, ca, cb)
                assert all(close(u, v, q["clr"]) for u, v in zip(ca[2], cb[2])), (i, ca, cb)
                assert all(close(u, v, t) for u, v, t in zip(ca[3], cb[3], uvq)), (i, ca, cb)
                assert [j for j, _ in ca[4]] == [j for j, _ in cb[4]], (i, ca, cb)
                assert close([w for _, w in ca[4]], [w for _, w in cb[4]], 1e-6), (i, ca, cb)


def dl_bytes(data):
    """The sum of SHP1's display-list sizes (packet locations, j3d_meshes.md 3.1)."""
    c = _chunk(data, "SHP1")
    n = struct.unpack_from(">H", c, 8)[0]
    off = struct.unpack_from(">8I", c, 0x0C)
    total = 0
    for i in range(n):
        npk, _, _, fp = struct.unpack_from(">HHHH", c, off[0] + 0x28 * i + 2)
        total += sum(struct.unpack_from(">I", c, off[7] + 8 * (fp + p))[0] for p in range(npk))
    return total


@pytest.fixture(scope="module", params=sorted(MODELS))
def case(request):
    data = MODELS[request.param]()
    return request.param, data, gameanim.load_model(data).to_bytes(regenerate=True)


def test_regenerated_models_have_the_original_triangles(case):
    name, data, out = case
    assert_same_geometry(gameanim.load_model(data), gameanim.load_model(out), quanta(data))
    assert vtx1_formats(out) == vtx1_formats(data)  # the stored formats kept


def test_regenerating_twice_is_a_fixed_point(case):
    name, data, out = case
    assert gameanim.load_model(out).to_bytes(regenerate=True) == out


def test_regenerated_display_lists_are_no_larger(case):
    name, data, out = case
    before, after = dl_bytes(data), dl_bytes(out)
    print(f"\n{name}: display lists {before} -> {after} bytes")
    assert after <= before


@pytest.mark.parametrize("name", GAME)
def test_regenerated_game_models_pass_check_model(name):
    data = MODELS[name]()
    assert gameanim.check_model(data) == []
    assert gameanim.check_model(gameanim.load_model(data).to_bytes(regenerate=True)) == []


def test_regenerated_inf1_counts_the_new_packets():
    """The mesh model's multi-matrix shape (two packets, four matrices) fits
    one packet: INF1's packet count follows SHP1 (docs: check_model)."""
    out = gameanim.load_model(mm.game_model()).to_bytes(regenerate=True)
    shp1, inf1 = _chunk(out, "SHP1"), _chunk(out, "INF1")
    records = struct.unpack_from(">I", shp1, 0x0C)[0]
    packets = [struct.unpack_from(">H", shp1, records + 0x28 * i + 2)[0] for i in range(2)]
    assert packets == [1, 1]
    assert struct.unpack_from(">I", inf1, 0x0C)[0] == 2


def test_regenerated_vtx1_is_the_notes_layout():
    """VTX1 written afresh: header (format list at 0x40, 13 array offsets),
    one 16-byte record per array {attr, count, type, shift, 0xFF x3} in
    attribute order and the end record, then each array in the loader's
    slot order (POS, NRM, NBT, CLR0, CLR1, TEX0-7), every entry the loader
    counts (gap / stride) in the stored format, Nintendo's padding text to
    32 after each.  A stored RGBX8 colour's X byte is written as 0."""
    data = sets_model()
    stored = _chunk(data, "VTX1")
    fmts = vtx1_formats(data)
    offsets = struct.unpack_from(">13I", stored, 0x0C)
    slot = {mm.POS: 0, mm.NRM: 1, mm.CLR0: 3, mm.CLR1: 4}
    slot.update({mm.TEX0 + k: 5 + k for k in range(8)})
    size = {4: 4, 3: 2, 2: 2, 1: 1, 0: 1}

    def stride(attr, count, typ):
        if attr in (mm.CLR0, mm.CLR1):
            return (2, 3, 4, 2, 3, 4)[typ]
        n = {mm.POS: 2 + count, mm.NRM: 3}.get(attr, 1 + count)
        return n * size[typ]

    def pad(body, start=0):
        return body + (PADDING * 2)[:-(start + len(body)) % 32]

    head = b"".join(struct.pack(">IIIB3s", a, *fmts[a], b"\xff\xff\xff") for a in sorted(fmts))
    head += struct.pack(">IIIB3s", 0xFF, 0, 0, 0, b"\xff\xff\xff")
    body = pad(struct.pack(">I", 0x40) + bytes(52) + head, 8)
    new_offsets = [0] * 13
    ends = sorted(o for o in offsets if o) + [len(stored)]
    for attr in sorted(fmts, key=lambda a: slot[a]):
        o = offsets[slot[attr]]
        gap = ends[ends.index(o) + 1] - o
        s = stride(attr, fmts[attr][0], fmts[attr][1])
        new_offsets[slot[attr]] = 8 + len(body)
        body += pad(stored[o:o + gap // s * s], 8 + len(body))
    body = body[:4] + struct.pack(">13I", *new_offsets) + body[56:]
    expected = b"VTX1" + struct.pack(">I", 8 + len(body)) + body
    assert len(expected) % 32 == 0
    assert _chunk(gameanim.load_model(data).to_bytes(regenerate=True), "VTX1") == expected


def _replace(data, tag, new):
    at = mm.find_chunk(data, tag.encode())
    size = struct.unpack_from(">I", data, at + 4)[0]
    out = data[:at] + new + data[at + size:]
    count = struct.unpack_from(">I", data, 12)[0] - (not new)
    return out[:8] + struct.pack(">II", len(out), count) + out[16:]


def _patched(data, tag, at, value):
    """data with bytes at offset `at` of chunk `tag` replaced (size kept)."""
    start = mm.find_chunk(data, tag.encode())
    return data[:start + at] + value + data[start + at + len(value):]


def test_regenerate_refuses_what_it_cannot_write():
    """NBT normals and texture-matrix indices have no decoded form to write
    from: an EncodeError naming them, never their stored bytes."""
    data = mm.mesh_model()
    nrm_at = mm.find_chunk(data, b"VTX1") + 0x40 + 16  # the NRM record (POS first)
    nbt = data[:nrm_at + 4] + struct.pack(">I", 1) + data[nrm_at + 8:]
    with pytest.raises(gameanim.EncodeError, match="NBT"):
        gameanim.load_model(nbt).to_bytes(regenerate=True)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from test_replace_mesh import tex_matrix_model
    with pytest.raises(gameanim.EncodeError, match="texture matrix"):
        gameanim.load_model(tex_matrix_model()).to_bytes(regenerate=True)


def test_shapes_without_packets_regenerate_to_a_fixed_point():
    """Shapes of no packets (the u16 at shape record + 2 set to 0) draw
    nothing; regenerate writes their empty per-packet tables (SHP1 0x1C
    matrix table, 0x20 display lists, 0x24 matrix data, 0x28 packet
    locations) at the chunk's end, and that loads again and regenerates to
    the same bytes (a fuzz find)."""
    data = mm.mesh_model()
    shp1 = _chunk(data, "SHP1")
    count, records = struct.unpack_from(">H", shp1, 8)[0], struct.unpack_from(">I", shp1, 0x0C)[0]
    for i in range(count):
        data = _patched(data, "SHP1", records + 0x28 * i + 2, struct.pack(">H", 0))
    assert [len(m.positions) for m in gameanim.load_model(data).meshes] == [0] * count
    out = gameanim.load_model(data).to_bytes(regenerate=True)
    shp1 = _chunk(out, "SHP1")
    assert struct.unpack_from(">I", shp1, 0x20)[0] == len(shp1)  # the empty display-list table at the end
    again = gameanim.load_model(out)
    assert [len(m.positions) for m in again.meshes] == [0] * count
    assert again.to_bytes(regenerate=True) == out


def test_a_vertex_attribute_of_no_entries_regenerates_to_a_fixed_point():
    """A VTX1 attribute of no entries (a CLR1 format record, attribute 12,
    RGBA8, whose array, at offset 0x1C, starts 2 bytes before TEX0's: no
    whole entry) has nothing to write: regenerate leaves it out (no record,
    offset 0), the shapes keep their vertices, and regenerating again gives
    the same bytes (a fuzz find: an empty array written at the next array's
    offset, or at the chunk's end, did not read back as written)."""
    data = mm.mesh_model()
    v = _chunk(data, "VTX1")
    fmt_at = struct.unpack_from(">I", v, 8)[0]
    offs = list(struct.unpack_from(">13I", v, 0x0C))
    assert offs[4] == 0 and offs[5]  # no CLR1 array; a TEX0 one
    records, at = [], fmt_at
    while struct.unpack_from(">I", v, at)[0] != 0xFF:
        records.append(v[at:at + 16])
        at += 16
    records += [struct.pack(">III4B", 12, 1, 5, 0, 0xFF, 0xFF, 0xFF), v[at:at + 16]]
    first = min(o for o in offs if o)
    new_first = -(-(fmt_at + 16 * len(records)) // 32) * 32
    offs = [o + new_first - first if o else 0 for o in offs]
    offs[4] = offs[5] - 2  # CLR1's array (4-byte entries): 2 bytes before TEX0's, so no entry
    head = v[:4] + struct.pack(">II13I", new_first + len(v) - first, fmt_at, *offs)
    body = head + bytes(fmt_at - len(head)) + b"".join(records)
    data = _replace(data, "VTX1", body + bytes(new_first - len(body)) + v[first:])
    before = [len(m.positions) for m in gameanim.load_model(mm.mesh_model()).meshes]
    out = gameanim.load_model(data).to_bytes(regenerate=True)
    vtx1 = _chunk(out, "VTX1")
    assert struct.unpack_from(">I", vtx1, 0x1C)[0] == 0
    assert 12 not in struct.unpack_from(">%dI" % (len(records) * 4), vtx1, 0x40)[::4]
    again = gameanim.load_model(out)
    assert [len(m.positions) for m in again.meshes] == before
    assert again.to_bytes(regenerate=True) == out


def _bad_cases():
    data = mm.mesh_model()
    shp1, vtx1 = mm.find_chunk(data, b"SHP1"), mm.find_chunk(data, b"VTX1")
    size, vsize = struct.unpack_from(">I", data, shp1 + 4)[0], struct.unpack_from(">I", data, vtx1 + 4)[0]
    return {
        "opaque SHP1": (mm.write_j3d_model([mm.joint("a")], extra_chunks=[("SHP1", b"opaque shape data")]), "SHP1"),
        "SHP1 display lists past the chunk": (_patched(data, "SHP1", 0x20, struct.pack(">I", 0xFFFF00)), "SHP1"),
        "SHP1 truncated": (_replace(data, "SHP1", b"SHP1" + struct.pack(">I", 0x40) + data[shp1 + 8:shp1 + 0x40]),
                           "SHP1"),
        "VTX1 without its end record": (_patched(data, "VTX1", 0x40, b"\x00\x00\x00\x09" * ((vsize - 0x40) // 4)), "VTX1"),
        "VTX1 truncated": (_replace(data, "VTX1", b"VTX1" + struct.pack(">I", 0x20) + bytes(24)), "VTX1"),
        "VTX1 bad component type": (_patched(data, "VTX1", 0x48, struct.pack(">I", 9)), "VTX1"),
        "shapes without VTX1": (_replace(data, "VTX1", b""), "VTX1"),
    }


@pytest.mark.parametrize("name", sorted(_bad_cases()))
def test_bad_geometry_is_a_format_error(name):
    data, field = _bad_cases()[name]
    model = gameanim.load_model(data)
    with pytest.raises(gameanim.FormatError, match=field):
        model.to_bytes(regenerate=True)


def test_corrupt_geometry_bytes_never_crash():
    """Every byte of VTX1 and SHP1 set to 0xFF or 0x7F in turn: regenerate
    writes a file or raises a gameanim error, never crashes (and the file
    it writes reads back)."""
    data = mm.game_model()
    for tag in ("VTX1", "SHP1"):
        start = mm.find_chunk(data, tag.encode())
        size = struct.unpack_from(">I", data, start + 4)[0]
        for at in range(8, size):
            for v in (0xFF, 0x7F):
                bad = data[:start + at] + bytes([v]) + data[start + at + 1:]
                try:
                    out = gameanim.load_model(bad).to_bytes(regenerate=True)
                except (gameanim.FormatError, gameanim.EncodeError):
                    continue
                gameanim.load_model(out)


def test_an_array_gap_off_the_32_byte_grid_reads_back_as_written():
    """The loader counts an array's entries from the gap to the next one
    (fact 3).  A stored NRM array 48 bytes after POS (7 s16 positions, 42
    bytes, then 6 bytes) is written 32-aligned with zero entries to its
    32-byte end, so the count read back is the count written and
    regenerating again changes nothing (found by fuzz_model)."""
    pos = [(i, -i, 2 * i) for i in range(7)]
    fmt = struct.pack(">IIIB3x", mm.POS, 1, 3, 0) + struct.pack(">IIIB3x", mm.NRM, 0, 3, 14)
    fmt += struct.pack(">IIIB3x", 0xFF, 0, 0, 0)
    o_pos = 0x80
    offsets = [o_pos, o_pos + 48] + [0] * 11
    head = struct.pack(">I13I", 0x40, *offsets) + fmt
    body = head.ljust(o_pos - 8, b"\0") + b"".join(struct.pack(">3h", *p) for p in pos) + b"\1\2\3\4\5\6"
    body += struct.pack(">3h", 0, 0, 16384) * 4
    data = mm.write_j3d_model([mm.joint("a")], envelopes=[], inverse_binds=[], draw=[(0, 0)], extra_chunks=[
        ("VTX1", body), ("SHP1", mm.shp1_body([])), ("MAT3", mm.mat3_body([mm.material("m")]))])
    out = gameanim.load_model(data).to_bytes(regenerate=True)
    assert gameanim.load_model(out).to_bytes(regenerate=True) == out
    vtx1 = _chunk(out, "VTX1")
    p, n = struct.unpack_from(">2I", vtx1, 0x0C)
    assert p % 32 == 0 and n - p == 64  # 8 entries (48 bytes), 8 zero-filled, then text to 64
    assert vtx1[p:p + 48] == body[o_pos - 8:o_pos + 40] and vtx1[p + 48:p + 60] == bytes(12)
    assert vtx1[p + 60:p + 64] == PADDING[:4]
