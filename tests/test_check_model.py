"""gameanim.check_model, the game-acceptance lint (issue 34; notes
../shared/formats/j3d_writer.md 5.4; docs/model_writer.md "check_model").

A model laid out as the game's loader needs it (make_models.game_model)
gives []; each test then breaks it in exactly one way, by editing bytes or
replacing one chunk with one built here from the notes, and expects exactly
the problem of that rule (so each rule is shown to fire, and only it)."""
import struct

import pytest

import gameanim
from model_fixtures import make_models as mm
from test_cli import run

PNMTXIDX, POS, NRM, CLR0, TEX0 = mm.PNMTXIDX, mm.POS, mm.NRM, mm.CLR0, mm.TEX0
I16, DIRECT = mm.INDEX16, mm.DIRECT
ATTRS = [(POS, I16), (NRM, I16), (CLR0, I16), (TEX0, I16)]


def chunks(data):
    """[(tag, whole chunk bytes)] of a J3D file."""
    out, at = [], 0x20
    for _ in range(struct.unpack_from(">I", data, 0x0C)[0]):
        size = struct.unpack_from(">I", data, at + 4)[0]
        out.append((data[at:at + 4].decode(), data[at:at + size]))
        at += size
    return out


def rebuild(data, replace=None, order=None):
    """The file with some chunks replaced ({tag: whole chunk}) or put in
    another order (a list of tags)."""
    cs = dict(chunks(data))
    cs.update(replace or {})
    tags = order or [t for t, _ in chunks(data)]
    return mm.j3d_file([cs[t] for t in tags], "bmd")


def at(data, tag, rel=0):
    return mm.find_chunk(data, tag.encode()) + rel


def u32(data, off):
    return struct.unpack_from(">I", data, off)[0]


def patch(data, off, fmt, *values):
    b = bytearray(data)
    struct.pack_into(fmt, b, off, *values)
    return bytes(b)


@pytest.fixture(scope="module")
def game():
    return mm.game_model()


def only(data, *needles):
    """The one problem check_model reports, which must contain every needle."""
    problems = gameanim.check_model(data)
    assert len(problems) == 1, problems
    assert all(n in problems[0] for n in needles), problems
    return problems[0]


# ---------------------------------------------------------------- clean models


@pytest.mark.parametrize("calc", ["basic", "softimage", "maya"])
def test_game_models_have_no_problems(calc):
    data = mm.mesh_model(calc=calc, game=True)
    assert gameanim.check_model(data) == []
    assert gameanim.check_model(gameanim.compress("yaz0", data)) == []  # wrapped
    assert gameanim.check_model(gameanim.load_model(data)) == []  # a Model


def test_every_generated_model_checks_without_crashing():
    """Every J3D model make_models writes gives a list of problem strings;
    game_model none.  The others are test fixtures, not game models: the
    mesh model's departures are each named here from how it is written
    (chunk order INF1, EVP1, DRW1, JNT1, VTX1...; s8 normals; INF1 counts 0; inverse binds ignoring the body
    joint's rotation; zero joint boxes)."""
    for name, data in mm.seed_models().items():
        if name.endswith((".bmd", ".bdl")) and not name.startswith("sm64ds"):
            problems = gameanim.check_model(data)
            assert all(isinstance(p, str) and p for p in problems)
            if name == "j3d_game.bmd":
                assert problems == [], problems
    problems = gameanim.check_model(mm.mesh_model())
    for needle in ["VTX1: chunk order", "NRM format count 0 type 1", "INF1: packet count 0", "INF1: vertex count 0", "joint 1's inverse bind", "warning: SHP1"]:
        assert any(needle in p for p in problems), (needle, problems)


def test_a_model_without_shapes_has_no_shape_problems():
    """An SHP1 of no shapes, its empty tables at the chunk's end (offsets
    equal to its size, as make_models writes them): nothing is drawn, so
    nothing is wrong with it."""
    body = mm.shp1_body([])
    assert struct.unpack_from(">I", body, 0x20 - 8)[0] == len(body) + 8  # the display-list table at the end
    data = mm.write_j3d_model([mm.joint("root")], [-1],
                              extra_chunks=[("SHP1", body), ("MAT3", mm.mat3_body([]))])
    assert [p for p in gameanim.check_model(data) if p.startswith("SHP1")] == []


def test_a_model_without_materials_or_textures_has_no_table_problems():
    """A MAT3 of no materials and a TEX1 of no textures: the loader reads
    none of their tables, so neither an entry-table offset of 0 (what
    regenerate writes for no materials) nor a TEX1 header offset anywhere
    is a problem; and a skeleton BDL whose TEX1 header offset is wild
    regenerates (the MDL3 encoder reads no header; a fuzz find) to a model
    the check passes."""
    data = bytearray(mm.game_skeleton([mm.joint("a"), mm.joint("b")], [-1, 0], kind="bdl"))
    tex1 = mm.find_chunk(bytes(data), b"TEX1")
    struct.pack_into(">I", data, tex1 + 0x0C, 0x5A373710)
    assert gameanim.check_model(bytes(data)) == []
    again = gameanim.load_model(bytes(data)).to_bytes(regenerate=True)
    mat3 = mm.find_chunk(again, b"MAT3")
    assert struct.unpack_from(">HxxI", again, mat3 + 8) == (0, 0)  # (no materials: no entry table)
    assert gameanim.check_model(again) == []
    assert gameanim.load_model(again).to_bytes(regenerate=True) == again


def test_not_a_j3d_model_is_a_format_error():
    with pytest.raises(gameanim.FormatError):
        gameanim.check_model(mm.seed_models()["sm64ds.bmd"])
    with pytest.raises(gameanim.FormatError):
        gameanim.check_model(b"J3D2bmd3" + bytes(8))


# ---------------------------------------------------------------- layout and names


def test_header_file_size(game):
    only(patch(game, 8, ">I", len(game) + 32), "header: file size field says")


def test_chunk_size_multiple_of_32(game):
    t = at(game, "TEX1")
    data = patch(game + bytes(4), t + 4, ">I", u32(game, t + 4) + 4)
    data = patch(data, 8, ">I", len(data))
    only(data, "TEX1: chunk size", "not a multiple of 32")


def test_chunk_order(game):
    order = ["INF1", "VTX1", "DRW1", "EVP1", "JNT1", "SHP1", "MAT3", "TEX1"]
    only(rebuild(game, order=order), "EVP1: chunk order: EVP1 comes after DRW1")


def test_bdl_needs_mdl3():
    only(mm.mesh_model(kind="bdl", game=True, mdl3=False), "without an MDL3 chunk")


def test_game_bdl_with_its_mdl3_passes():
    assert gameanim.check_model(gameanim.load_model(mm.mesh_model(kind="bdl", game=True))) == []


def test_bdl_mdl3_header_and_tables():
    """MDL3's header (count at 0x08, list table offset at 0x0C, patch table
    at 0x10; lists {offset from the entry, size}): a count that is not
    MAT3's is reported and the tables still read; a table past the chunk
    stops the MDL3 rules; a list past the chunk is reported by material."""
    data = mm.mesh_model(kind="bdl", game=True)
    mdl3 = at(data, "MDL3")
    n = struct.unpack_from(">H", data, mdl3 + 8)[0]
    assert n == len(gameanim.load_model(data).materials) >= 1
    problems = gameanim.check_model(patch(patch(data, mdl3 + 8, ">H", n + 1), mdl3 + 0x10, ">I", 0xFFFFFF00))
    assert len(problems) == 2, problems
    assert "MDL3: %d display lists for %d MAT3 materials" % (n + 1, n) in problems[0]
    assert "patch (0xffffff00) table overruns the chunk" in problems[1]
    lists = u32(data, mdl3 + 0x0C)
    only(patch(data, mdl3 + lists + 4, ">I", 0x7FFFFFE0), "MDL3: material 0's display list", "overruns the chunk")
    size = u32(data, mdl3 + 4)
    cut = data[:mdl3 + 4] + struct.pack(">I", 32) + data[mdl3 + 8:mdl3 + 32] + data[mdl3 + size:]
    cut = cut[:8] + struct.pack(">I", len(cut)) + cut[12:]
    only(cut, "MDL3: the chunk is 32 bytes, too short for its header (offset 0x%x)" % mdl3)


def test_name_table_key(game):
    names = at(game, "JNT1", u32(game, at(game, "JNT1", 0x14)))
    key = struct.unpack_from(">H", game, names + 4 + 4)[0]
    only(patch(game, names + 4 + 4, ">H", key ^ 1), "JNT1: joint name 1 has key")


def test_name_key_reference():
    """JUTNameTab's key, written out from the notes (fact 10)."""
    def key(s):
        k = 0
        for c in s:
            k = (k * 3 + c) & 0xFFFF
        return k
    assert key(b"root") == mm.name_hash(b"root")


# ---------------------------------------------------------------- INF1

NODES = [(mm.JOINT, 0), (mm.OPEN, 0), (mm.MATERIAL, 0), (mm.OPEN, 0), (mm.SHAPE, 0), (mm.CLOSE, 0), (mm.JOINT, 1),
         (mm.OPEN, 0), (mm.JOINT, 2), (mm.OPEN, 0), (mm.MATERIAL, 1), (mm.OPEN, 0), (mm.SHAPE, 1), (mm.CLOSE, 0),
         (mm.CLOSE, 0), (mm.CLOSE, 0), (mm.CLOSE, 0), (mm.END, 0)]


def inf1(nodes, packets=3, vertices=len(mm.MESH_POSITIONS)):
    return mm.inf1_chunk(nodes, "basic", packet_count=packets, vertex_count=vertices)


def test_inf1_reference_is_clean(game):
    assert rebuild(game, {"INF1": inf1(NODES)}) == game


def test_inf1_second_root(game):
    # body (at the root's origin, so no matrix moves) closed out of the root
    nodes = NODES[:6] + [(mm.CLOSE, 0)] + NODES[6:16] + [(mm.END, 0)]
    only(rebuild(game, {"INF1": inf1(nodes)}), "INF1: joint 1 is a second top-level joint")


def test_inf1_balance(game):
    only(rebuild(game, {"INF1": inf1(NODES[:-2] + [(mm.END, 0)])}), "INF1: the hierarchy ends with 1 node(s) left open")


def test_inf1_shape_needs_its_own_material(game):
    # shape 0 moved under material 1, which already draws shape 1
    nodes = [(mm.JOINT, 0), (mm.OPEN, 0), (mm.MATERIAL, 0), (mm.JOINT, 1), (mm.OPEN, 0), (mm.JOINT, 2), (mm.OPEN, 0),
             (mm.MATERIAL, 1), (mm.OPEN, 0), (mm.SHAPE, 1), (mm.SHAPE, 0), (mm.CLOSE, 0), (mm.CLOSE, 0), (mm.CLOSE, 0),
             (mm.CLOSE, 0), (mm.END, 0)]
    only(rebuild(game, {"INF1": inf1(nodes)}), "INF1: shape 0 binds to material 1, which already holds shape 1")


def test_inf1_material_under_a_joint(game):
    nodes = [(mm.MATERIAL, 0), (mm.OPEN, 0), (mm.CLOSE, 0)] + NODES
    only(rebuild(game, {"INF1": inf1(nodes)}), "INF1: material 0 is not under a joint")


def test_inf1_packet_count(game):
    only(rebuild(game, {"INF1": inf1(NODES, packets=4)}), "INF1: packet count 4, but the shapes have 3 packets")


def test_inf1_vertex_count(game):
    only(rebuild(game, {"INF1": inf1(NODES, vertices=10)}), "INF1: vertex count 10, but the shapes use position 16")


# ---------------------------------------------------------------- VTX1


def vtx1_format_at(data, attr):
    v = at(data, "VTX1")
    f = v + u32(data, v + 8)
    while u32(data, f) != attr:
        f += 16
    return f


def test_vtx1_runtime_formats(game):
    # CLR0 as RGBA6 (3 bytes): the runtime strides colours by 4
    only(patch(game, vtx1_format_at(game, CLR0) + 8, ">I", 4), "VTX1: CLR0 format count 1 type 4")


def test_vtx1_array_order(game):
    v = at(game, "VTX1")
    clr0 = u32(game, v + 0x0C + 4 * 3)
    # an NBT offset equal to CLR0's: CLR0 no longer after the array before it
    only(patch(game, v + 0x0C + 4 * 2, ">I", clr0), "VTX1: the CLR0 array", "is not after the NBT array")


def test_vtx1_gap_length_covers_the_indices(game):
    v = at(game, "VTX1")
    clr0 = u32(game, v + 0x0C + 4 * 3)
    data = patch(game, v + 0x0C + 4 * 5, ">I", clr0 + 4 * 10)  # TEX0 right after 10 colours
    problems = gameanim.check_model(data)
    assert len(problems) == 2 and all("CLR0 index" in p and "holds 10" in p for p in problems), problems


# ---------------------------------------------------------------- EVP1 / DRW1

BINDS, ENVELOPES = mm.MESH_BINDS, mm.MESH_ENVELOPES


def test_evp1_weight_above_zero(game):
    envelopes = [[(0, 1.0), (1, 0.0)], ENVELOPES[1]]
    only(rebuild(game, {"EVP1": mm.evp1_chunk(envelopes, BINDS)}), "EVP1: envelope 0 weight 1 is 0")


def test_evp1_weights_sum_to_one(game):
    envelopes = [[(0, 0.5), (1, 0.6)], ENVELOPES[1]]
    only(rebuild(game, {"EVP1": mm.evp1_chunk(envelopes, BINDS)}), "EVP1: envelope 0 weights sum to 1.1")


def test_evp1_inverse_bind_count(game):
    envelopes = [[(0, 0.5), (1, 0.5)], [(1, 1.0)]]
    only(rebuild(game, {"EVP1": mm.evp1_chunk(envelopes, BINDS[:2])}), "EVP1: room for 2 inverse binds",
         "3 joints")


def test_evp1_inverse_bind_times_world(game):
    # the head joint's rest moved (JNT1) without a new inverse bind
    rec = at(game, "JNT1", u32(game, at(game, "JNT1", 0x0C))) + 2 * 0x40
    only(patch(game, rec + 0x18 + 4, ">f", 7.0), "EVP1: joint 2's inverse bind times its rest world matrix")


def test_drw1_envelopes_in_order(game):
    draw = mm.MESH_DRAW[:3] + [(1, 1), (1, 0), (1, 0), (1, 1)]
    only(rebuild(game, {"DRW1": mm.drw1_chunk(draw)}), "DRW1: entry 3 is envelope 1")


def test_drw1_envelopes_twice(game):
    once = [e for e in mm.MESH_DRAW[:5]]  # the joints and the envelopes, without the envelopes again
    assert once == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]
    only(rebuild(game, {"DRW1": mm.drw1_chunk(once)}), "DRW1: 5 entries for 3 joint entries and 2 envelopes")


# ---------------------------------------------------------------- SHP1
# A small SHP1 of the same layout as game_model's (a multi-matrix shape of
# two packets under the root, a rigid one under the head), written here.


def multi_shape(p0=None, p1=None, table0=(0, 3), table1=(0xFFFF, 4, 1), attrs=None, matrix_type=3):
    p0 = p0 if p0 is not None else [("strip", [(0, 0, 0, 0, 0), (3, 4, 4, 4, 4), (0, 1, 1, 1, 1)])]
    p1 = p1 if p1 is not None else [("triangles", [(0, 2, 2, 2, 2), (3, 5, 5, 5, 5), (6, 9, 9, 9, 9)])]
    attrs = attrs if attrs is not None else [(PNMTXIDX, DIRECT)] + ATTRS
    return mm.shape(attrs, [mm.packet(list(table0), p0), mm.packet(list(table1), p1)], matrix_type=matrix_type)


def rigid_shape(attrs=ATTRS, matrix_type=0, use=None, prims=None):
    n = len(attrs)
    prims = prims or [("triangles", [(13,) * n, (14,) * n, (15,) * n])]
    return mm.shape(attrs, [mm.packet([2], prims, use_matrix=use)], matrix_type=matrix_type)


def shp1(multi=None, rigid=None):
    return mm.chunk("SHP1", mm.shp1_body([multi or multi_shape(), rigid or rigid_shape()]))


def with_shp1(game, multi=None, rigid=None):
    return rebuild(game, {"SHP1": shp1(multi, rigid)})


def test_shp1_reference_is_clean(game):
    assert gameanim.check_model(with_shp1(game)) == []


def test_shp1_strip_of_two(game):
    p0 = [("strip", [(0, 0, 0, 0, 0), (3, 4, 4, 4, 4), (0, 1, 1, 1, 1)]), ("strip", [(0, 0, 0, 0, 0), (0, 1, 1, 1, 1)])]
    only(with_shp1(game, multi_shape(p0=p0)), "shape 0 packet 0: a strip of 2 vertices")


def test_shp1_triangle_list_of_four(game):
    p1 = [("triangles", [(0, 2, 2, 2, 2), (3, 5, 5, 5, 5), (6, 9, 9, 9, 9), (6, 9, 9, 9, 9)])]
    only(with_shp1(game, multi_shape(p1=p1)), "shape 0 packet 1: a triangle list of 4 vertices")


def test_shp1_vertex_format_zero(game):
    p0 = [(0x99, [(0, 0, 0, 0, 0), (3, 4, 4, 4, 4), (0, 1, 1, 1, 1)])]
    only(with_shp1(game, multi_shape(p0=p0)), "primitive 0x99 uses vertex format 1")


def test_shp1_unknown_command(game):
    data = with_shp1(game)
    s = at(data, "SHP1")
    dl = s + u32(data, s + 0x20)
    # the last padding byte of packet 0's display list
    only(patch(data, dl + 31, ">B", 0x50), "shape 0 packet 0: byte 0x50 is not a GX display-list command")


def test_shp1_position_index_skips(game):
    p0 = [("strip", [(0, 0xFFFF, 0, 0, 0), (3, 4, 4, 4, 4), (0, 1, 1, 1, 1)])]
    only(with_shp1(game, multi_shape(p0=p0)), "position index 0xffff makes the GX skip the vertex")


def test_shp1_index_in_range(game):
    p0 = [("strip", [(0, 0, 40, 0, 0), (3, 4, 4, 4, 4), (0, 1, 1, 1, 1)])]
    only(with_shp1(game, multi_shape(p0=p0)), "shape 0 packet 0: NRM index 40, but the VTX1 array holds")


def test_shp1_matrix_index_multiple_of_three(game):
    p0 = [("strip", [(4, 0, 0, 0, 0), (3, 4, 4, 4, 4), (0, 1, 1, 1, 1)])]
    only(with_shp1(game, multi_shape(p0=p0)), "matrix index 4 is not 3 x a slot below the packet's 2")


def test_shp1_matrix_slot_within_the_table(game):
    p1 = [("triangles", [(0, 2, 2, 2, 2), (3, 5, 5, 5, 5), (9, 9, 9, 9, 9)])]
    only(with_shp1(game, multi_shape(p1=p1)), "shape 0 packet 1: matrix index 9 is not 3 x a slot below the packet's 3")


def test_shp1_carried_slot_must_be_loaded(game):
    only(with_shp1(game, multi_shape(table0=(0xFFFF, 3))),
         "shape 0 packet 0: a vertex uses matrix slot 0, which 0xFFFF carries but no earlier packet")


def test_shp1_at_most_ten_matrices(game):
    only(with_shp1(game, multi_shape(table1=(0xFFFF, 4, 1) + (0,) * 8)), "shape 0 packet 1 loads 11 matrices")


def test_shp1_table_not_in_the_duplicate_region(game):
    only(with_shp1(game, multi_shape(table1=(0xFFFF, 5, 1))), "matrix table entry 1 names DRW1 entry 5; only 5")


def test_shp1_single_matrix_in_range(game):
    only(with_shp1(game, rigid=rigid_shape(use=6)), "shape 1 packet 0 uses DRW1 entry 6; only 5")


def test_shp1_matrix_type_3_iff_pnmtxidx(game):
    only(with_shp1(game, rigid=rigid_shape(matrix_type=3)), "shape 1 has matrix type 3 without a position matrix")


def test_shp1_texgen_sources(game):
    only(with_shp1(game, rigid=rigid_shape(attrs=ATTRS[:3])), "shape 1 has no TEX0, which texgen 0 of its material 1")


def test_shp1_display_list_alignment(game):
    data = with_shp1(game)
    s = at(data, "SHP1")
    ploc = s + u32(data, s + 0x28) + 2 * 8  # packet 2: the rigid shape's
    only(patch(data, ploc, ">I", 28), "shape 1 packet 0: display list at", "of 28 bytes")


def test_joint_box_warning(game):
    rec = at(game, "JNT1", u32(game, at(game, "JNT1", 0x0C))) + 2 * 0x40
    warning = only(patch(game, rec + 0x34, ">f", 0.5), "warning: SHP1: shape 1 has position")
    assert warning.startswith("warning:")


# ---------------------------------------------------------------- MAT3


def mat3_table(data, field):
    m = at(data, "MAT3")
    return m + u32(data, m + field)


def material_record(data, i):
    m = at(data, "MAT3")
    remap = mat3_table(data, 0x10)
    return mat3_table(data, 0x0C) + 0x14C * struct.unpack_from(">H", data, remap + 2 * i)[0]


def test_mat3_pool_index(game):
    # material 1's TEV colour index, past the TEV colour table (8-byte items)
    e = material_record(game, 1)
    only(patch(game, e + 0xDC, ">H", 60), "MAT3: material 1's TEV colour index 60 lies past its table")


def test_mat3_texture_slot(game):
    slots = mat3_table(game, 0x48)
    only(patch(game, slots, ">H", 7), "MAT3: material 0's texture slot 0 names texture 7 of 3")


def test_mat3_unit_limits(game):
    counts = mat3_table(game, 0x34)  # the texgen count table
    only(patch(game, counts, ">B", 9), "texgen count is 9 (the GX has 8)")


# ---------------------------------------------------------------- TEX1


def tex_header(data, i):
    return mat3_tex(data) + 0x20 * i


def mat3_tex(data):
    t = at(data, "TEX1")
    return t + u32(data, t + 0x0C)


def test_tex1_power_of_two_wrap(game):
    only(patch(game, tex_header(game, 0) + 2, ">H", 24), "TEX1: texture 0 is 24x16 with repeat or mirror wrap")


def test_tex1_mipmaps_need_power_of_two(game):
    h = tex_header(game, 1)
    only(patch(patch(game, h + 2, ">H", 6), h + 0x18, ">B", 2), "texture 1 is 6x4 with 2 mipmap levels")


def test_tex1_palette_size(game):
    only(patch(game, tex_header(game, 1) + 0x0A, ">H", 300), "TEX1: texture 1 has a 300-entry palette")


def test_tex1_data_size(game):
    only(patch(game, tex_header(game, 2) + 0x18, ">B", 4), "TEX1: texture 2 needs 128 bytes of image data")


def test_tex1_data_alignment(game):
    h = tex_header(game, 0)
    only(patch(game, h + 0x1C, ">I", u32(game, h + 0x1C) + 4), "TEX1: texture 0's image data", "not 32-byte aligned")


def test_tex1_format(game):
    only(patch(game, tex_header(game, 2), ">B", 7), "TEX1: texture 2 has format 7")


def test_tex1_size_limit(game):
    h = tex_header(game, 1)
    only(patch(game, h + 2, ">H", 2048), "TEX1: texture 1 is 2048x4; each side must be 1 to 1024")


# ---------------------------------------------------------------- robustness and the CLI


def test_truncated_and_mangled_chunks_give_problems_not_crashes(game):
    """Bytes overwritten at each chunk's tables: a list of strings or a
    FormatError, never a crash."""
    for tag, _ in chunks(game):
        c = at(game, tag)
        for rel in range(8, 0x40, 4):
            for value in (0, 0xFFFFFFFF, 0x7FFF, 3):
                data = patch(game, c + rel, ">I", value)
                try:
                    problems = gameanim.check_model(data)
                except gameanim.FormatError:
                    continue
                assert all(isinstance(p, str) for p in problems)
                assert len(problems) <= 200


def test_problem_list_is_capped():
    """300 joints, one in the hierarchy: 299 problems, listed up to 200."""
    joints = [mm.joint(f"j{i}") for i in range(300)]
    data = mm.write_j3d_model(joints, nodes=[(mm.JOINT, 0), (mm.END, 0)], extra_chunks=())
    problems = gameanim.check_model(data)
    assert len(problems) == 200
    assert problems[-1] == "... and 100 more problems"
    assert problems[0] == "INF1: joint 1 is not in the hierarchy, so the game never places it"


def test_cli_validate_reports_problems(tmp_path, game):
    good, bad = tmp_path / "good.bmd", tmp_path / "bad.bmd"
    good.write_bytes(game)
    bad.write_bytes(patch(game, 8, ">I", len(game) + 32))
    rc, out, err = run("validate", good)
    assert rc == 0, out + err
    rc, out, err = run("validate", good, bad)
    assert rc == 1, out + err
    assert "header: file size field says" in out
    assert "bad.bmd" in out


def test_cli_validate_model_inside_an_archive(tmp_path, game):
    from test_cli import make_test_archive

    path, bck, _ = make_test_archive(tmp_path)
    arc = gameanim.open_archive(path)
    arc.replace("bck/broken.bck", bck)
    arc.replace("obj.bdl", patch(game, 8, ">I", len(game) + 32))
    arc.save(tmp_path / "bad.szs")
    rc, out, err = run("validate", tmp_path / "bad.szs")
    assert rc == 1, out + err
    assert f"{tmp_path / 'bad.szs'}:obj.bdl: FAIL game check, 1 problem (bmd)" in out
    assert "problem: header: file size field says" in out


def test_inf1_shape_index_in_range(game):
    nodes = NODES[:4] + [(mm.SHAPE, 5)] + NODES[5:]
    problems = gameanim.check_model(rebuild(game, {"INF1": inf1(nodes)}))
    assert problems == [p for p in problems if "INF1: shape 5 of 2" in p] and len(problems) == 1, problems


def test_evp1_envelope_needs_a_joint(game):
    envelopes = [[], ENVELOPES[1]]
    only(rebuild(game, {"EVP1": mm.evp1_chunk(envelopes, BINDS)}), "EVP1: envelope 0 has no joints")


def test_shp1_vertex_attributes_are_indexed(game):
    attrs = [(POS, DIRECT)] + ATTRS[1:]
    only(with_shp1(game, rigid=rigid_shape(attrs=attrs)), "shape 1's POS is direct; J3D indexes its vertex arrays")
