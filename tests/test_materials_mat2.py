"""MAT2, the material chunk of "J3D2bmd2" model files (J3DMaterialBlock_v21,
which the game loads with J3DModelLoader_v21; notes j3d_materials.md 1.5):
MAT3 without the indirect, ambient colour and light tables.  gameanim reads
it as the same materials.

The MAT2 files here are written by tools/make_models.py (mat2_body /
as_mat2) from the notes' layout, independently of the C reader; the MAT3
twin of each is read by the MAT3 decoder, which tests/test_materials.py
checks table by table against what was written."""
import random
import struct
import sys
from pathlib import Path

import pytest

import gameanim

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_materials import full_state, random_material, rich  # noqa: E402
from tools import make_models as mm  # noqa: E402

ONE_JOINT = ([mm.joint("root")], [-1])
# what MAT2 cannot hold: the ambient colours (the game's default instead) and the indirect state
NOT_IN_MAT2 = {"amb_colors", "ambient_colors", "indirect"}


def model_with(body, tag):
    data = mm.write_j3d_model(*ONE_JOINT, extra_chunks=[(tag, body)])
    if tag == "MAT2":
        data = data[:4] + b"bmd2" + data[8:]
    return data


def fields(mat):
    return {a: getattr(mat, a) for a in dir(mat)
            if not a.startswith("_") and not callable(getattr(mat, a)) and a not in NOT_IN_MAT2}


def twins(materials):
    body = mm.mat3_body(materials)
    return (gameanim.load_model(model_with(body, "MAT3")).materials,
            gameanim.load_model(model_with(mm.mat2_body(body), "MAT2")).materials)


def test_the_mat2_writer_follows_the_notes_layout():
    """The fixture itself: a 0x78-byte header whose fields after the name
    table sit 4 (cull ... colour channels) or 12 bytes before MAT3's, and
    0x138-byte records with the texgen indices at 0x14, the texture slots
    at 0x70 and the fog index at 0x130."""
    m = mm.material("m", textures=(5,), texgens=((1, 4, 60),), fog=(2, 0, 320, 0.0, 1.0, 2.0, 3.0, (1, 2, 3, 4),
                                                                      tuple(range(10))))
    body3, body2 = mm.mat3_body([m, m]), mm.mat2_body(mm.mat3_body([m, m]))
    at3 = {f: struct.unpack_from(">I", body3, f - 8)[0] for f in range(0x0C, 0x84, 4)}
    at2 = {f: struct.unpack_from(">I", body2, f - 8)[0] for f in range(0x0C, 0x78, 4)}
    assert at2[0x0C] == 0x78 and at2[0x10] == 0x78 + 2 * 0x138
    for f3, f2 in ((0x1C, 0x18), (0x20, 0x1C), (0x28, 0x24), (0x34, 0x28), (0x48, 0x3C), (0x68, 0x5C), (0x80, 0x74)):
        assert (at2[f2] == 0) == (at3[f3] == 0), hex(f3)
    rec3, rec2 = body3[at3[0x0C] - 8:], body2[at2[0x0C] - 8:]
    for o3, o2 in ((0x28, 0x14), (0x84, 0x70), (0x144, 0x130), (0x146, 0x132), (0x148, 0x134)):
        assert rec2[o2:o2 + 2] == rec3[o3:o3 + 2], hex(o3)
    assert rec2[0x138 + 0x70:0x138 + 0x72] == rec3[0x14C + 0x84:0x14C + 0x86]  # the second record
    texno = struct.unpack_from(">H", body2, at2[0x3C] - 8 + 2 * struct.unpack_from(">H", rec2, 0x70)[0])[0]
    assert texno == 5


def test_every_mat3_table_reads_back_the_same_from_mat2():
    rng = random.Random(7)
    written = [full_state(rng, f"f{i}") for i in range(6)] + [random_material(rng, f"r{i}") for i in range(6)]
    mat3, mat2 = twins(written)
    assert len(mat2) == len(written)
    for a, b in zip(mat3, mat2):
        assert fields(b) == fields(a), a.name
        # MAT2 has no ambient colour table: the game's default; no indirect table
        assert b.amb_colors == ((50, 50, 50, 50),) * 2 and b.indirect is None
        assert a.indirect is not None or a.name.startswith("r")


def test_a_mat2_model_evaluates_as_its_mat3_twin():
    rng = random.Random(11)
    mat3, mat2 = twins([random_material(rng, f"e{i}") for i in range(4)])
    for a, b in zip(mat3, mat2):
        n = len(a.tev_stages)
        tex = [bytes(rng.randrange(256) for _ in range(64)) for _ in range(n)]
        ras = [bytes(rng.randrange(256) for _ in range(64)) for _ in range(n)]
        assert b.evaluate(tex, ras) == a.evaluate(tex, ras)


def test_a_j3d2bmd2_file_loads_with_its_materials_and_passes_the_game_check():
    data = mm.game_model()
    old = mm.as_mat2(data)
    assert old[:8] == b"J3D2bmd2"
    model, twin = gameanim.load_model(old), gameanim.load_model(data)
    assert [c[0] for c in model.chunks] == [c[0] for c in twin.chunks if c[0] != "MAT3"][:6] + ["MAT2", "TEX1"]
    assert [fields(m) for m in model.materials] == [fields(m) for m in twin.materials]
    assert [m.material for m in model.meshes] == [m.material for m in twin.meshes]
    assert gameanim.check_model(old) == []
    # untouched, it writes back byte for byte
    assert model.to_bytes() == old


def mat2_of(m):
    body = bytearray(mm.mat2_body(mm.mat3_body([m])))
    return body, struct.unpack_from(">I", body, 0x0C - 8)[0] - 8


@pytest.mark.parametrize("at,value,field", [
    (0x88, 32, "MAT2 konst colour select"),            # MAT3's 0x9C
    (0x98, 32, "MAT2 konst alpha select"),             # MAT3's 0xAC
    (0x04, 0xFF, "MAT2 TEV stage count index"),
    (0x01, 0x40, "MAT2 cull mode index"),
])
def test_malformed_mat2_names_the_mat2_field_and_offset(at, value, field):
    body, rec = mat2_of(rich())
    body[rec + at] = value
    data = model_with(bytes(body), "MAT2")
    chunk = mm.find_chunk(data, b"MAT2")
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load_model(data).materials
    assert e.value.field == field and "MAT3" not in str(e.value)
    assert e.value.offset == chunk + 8 + rec + at  # the byte of the MAT2 record that is wrong


@pytest.mark.parametrize("index_at,field", [
    (0xD0, "MAT2 TEV stage index"), (0x132, "MAT2 alpha compare index"), (0xA8, "MAT2 TEV order index"),
])
def test_out_of_range_mat2_indices_name_the_field(index_at, field):
    body, rec = mat2_of(rich())
    struct.pack_into(">H", body, rec + index_at, 0x4000)
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load_model(model_with(bytes(body), "MAT2")).materials
    assert e.value.field == field


def test_truncated_mat2_fails_cleanly():
    body = mm.mat2_body(mm.mat3_body([full_state(random.Random(1), "t")]))
    failed = 0
    for cut in range(8, len(body), 7):
        try:
            gameanim.load_model(model_with(body[:cut], "MAT2")).materials
        except gameanim.FormatError as e:
            assert e.field and e.field.startswith("MAT2"), e.field
            failed += 1
    assert failed > len(body) // 7 // 2


def test_material_edits_on_a_mat2_model_say_why_they_are_refused():
    model = gameanim.load_model(mm.as_mat2(mm.game_model()))
    mesh = model.meshes[0]
    for edit in (lambda: model.set_material_colors(0, colors=[(1, 2, 3, 4)]),
                 lambda: model.add_mesh(material=0, positions=mesh.positions, triangles=mesh.triangles)):
        with pytest.raises(ValueError, match="MAT2"):
            edit()
    # a mesh edit that leaves the materials alone still works, and the result still loads as the game's
    model.replace_mesh(0, positions=mesh.positions, triangles=mesh.triangles)
    assert gameanim.check_model(model.to_bytes()) == []
