"""Model files read for their skeletons (gameanim.load_model): J3D BMD/BDL,
Super Mario 64 DS BMD and Banjo-Kazooie model bins.  Every model is made
by tools/make_models.py (pure Python, independent of the C decoders); the
expected values are the writer's inputs, converted here by the documented
units (docs/models.md), never the decoder's own output."""
import math
import struct
import sys

import pytest

import gameanim
from conftest import ROOT, SAMPLES, mutations

sys.path.insert(0, str(ROOT / "tools"))
import make_models as mm  # noqa: E402

J3D_TURN = math.pi / 32768  # radians per s16 unit (65536 per turn)
DS_TURN = 2 * math.pi / 4096  # SM64DS: 4096 per turn


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def approx3(v):
    return pytest.approx(tuple(f32(x) for x in v), rel=1e-6, abs=1e-7)


def sample_j3d_joints():
    return [
        mm.joint("root", scale=(1.0, 1.0, 1.0), translation=(0.0, 0.0, 0.0), bound_radius=50.0,
                 bound_min=(-1.0, -2.0, -3.0), bound_max=(1.0, 2.0, 3.0)),
        mm.joint("spine", scale=(2.0, 0.5, 1.25), rotation_raw=(16384, -8192, 32767), translation=(0.0, 10.5, -3.0),
                 kind=0x12, scale_compensate=1),
        mm.joint("arm_L", rotation_raw=(-32768, 1, -1), translation=(5.0, 0.0, 0.25), scale_compensate=0),
        mm.joint("arm_R", translation=(-5.0, 0.0, 0.25), scale_compensate=0xFF),
    ]


SAMPLE_PARENTS = [-1, 0, 1, 1]


def check_joints(model, joints, parents):
    assert len(model.bones) == len(joints)
    for i, (b, j, p) in enumerate(zip(model.bones, joints, parents)):
        assert b.index == i
        assert b.name == j["name"]
        assert b.parent == p
        assert b.scale == approx3(j["scale"])
        assert b.translation == approx3(j["translation"])
        assert b.rotation_raw == tuple(j["rotation_raw"])
        assert b.rotation == approx3([r * J3D_TURN for r in j["rotation_raw"]])
        assert b.kind == j["kind"]
        assert b.scale_compensate_raw == j["scale_compensate"]
        assert b.scale_compensate is (j["scale_compensate"] == 1)
        assert b.bone_id is None and b.scale_fixed is None
        assert b.bound_radius == pytest.approx(j["bound_radius"])
        assert b.bound_min == approx3(j["bound_min"]) and b.bound_max == approx3(j["bound_max"])


# ------------------------------------------------------------------ J3D


@pytest.mark.parametrize("with_shapes", [False, True])
def test_j3d_joints_and_hierarchy_are_the_written_ones(with_shapes):
    joints = sample_j3d_joints()
    m = gameanim.load_model(mm.write_j3d_model(joints, SAMPLE_PARENTS, with_shapes=with_shapes))
    assert m.format == "bmd" and m.family == "j3d" and m.compression is None
    check_joints(m, joints, SAMPLE_PARENTS)
    assert m.info["roots"] == 1 and m.info["bones"] == 4


def test_bdl_is_read_as_bdl():
    m = gameanim.load_model(mm.write_j3d_model(sample_j3d_joints(), SAMPLE_PARENTS, kind="bdl"))
    assert m.format == "bdl"
    check_joints(m, sample_j3d_joints(), SAMPLE_PARENTS)


@pytest.mark.parametrize("calc,rule", [("basic", 0), ("softimage", 1), ("maya", 2)])
def test_each_calc_rule_flag(calc, rule):
    m = gameanim.load_model(mm.write_j3d_model([mm.joint("a")], [-1], calc=calc, flags_extra=0x100))
    assert m.calc == calc
    assert m.info["inf1_flags"] == 0x100 | rule  # the whole flags word is kept


def test_an_unknown_calc_rule_is_refused():
    with pytest.raises(gameanim.FormatError, match="calc rule 3") as e:
        gameanim.load_model(mm.write_j3d_model([mm.joint("a")], [-1], calc=3))
    assert e.value.field == "INF1 flags"


@pytest.mark.parametrize("raw,flag", [(0, False), (1, True), (0xFF, False)])
def test_scale_compensate_byte(raw, flag):
    m = gameanim.load_model(mm.write_j3d_model([mm.joint("a", scale_compensate=raw)], [-1]))
    assert m.bones[0].scale_compensate is flag and m.bones[0].scale_compensate_raw == raw


def test_non_unit_rest_scale():
    m = gameanim.load_model(mm.write_j3d_model([mm.joint("a", scale=(0.1, 3.0, -2.0))], [-1]))
    assert m.bones[0].scale == approx3((0.1, 3.0, -2.0))


def test_one_joint_model():
    m = gameanim.load_model(mm.write_j3d_model([mm.joint("only", translation=(1, 2, 3))], [-1]))
    assert len(m.bones) == 1 and m.bones[0].parent == -1 and m.bones[0].translation == (1.0, 2.0, 3.0)


def test_a_non_identity_remap_table_picks_each_joints_record():
    joints = sample_j3d_joints()
    remap = [2, 3, 0, 1]
    m = gameanim.load_model(mm.write_j3d_model(joints, SAMPLE_PARENTS, remap=remap))
    check_joints(m, joints, SAMPLE_PARENTS)  # names by joint number, values through remap
    assert [b.data_index for b in m.bones] == remap
    # the records really are in remap order in the file: record 0 holds joint 2
    jnt1 = dict(m.chunks)["JNT1"]
    assert jnt1[0x18:0x18 + 0x40] == mm.joint_record(joints[2])


def test_joints_sharing_a_record_read_the_same_values():
    joints = [mm.joint("a", translation=(1, 2, 3)), mm.joint("b", translation=(9, 9, 9))]
    m = gameanim.load_model(mm.write_j3d_model(joints, [-1, 0], remap=[0, 0]))
    assert m.bones[1].name == "b" and m.bones[1].translation == (1.0, 2.0, 3.0) and m.bones[1].data_index == 0


def test_names_with_their_stored_hashes():
    # "root": h = ((114*3 + 111)*3 + 111)*3 + 116 = 4526
    assert mm.name_hash(b"root") == 4526
    joints = [mm.joint("root"), mm.joint("bad", name_hash=0x1234), mm.joint("腕")]
    m = gameanim.load_model(mm.write_j3d_model(joints, [-1, 0, 0]))
    assert [b.name for b in m.bones] == ["root", "bad", "腕"]
    assert m.bones[0].name_hash == 4526
    assert m.bones[1].name_hash == 0x1234  # a mismatched hash is kept as stored
    assert m.bones[2].name_hash == mm.name_hash("腕".encode("cp932"))


def test_undecodable_name_bytes_survive_as_surrogates():
    m = gameanim.load_model(mm.write_j3d_model([mm.joint(b"\x81\xff")], [-1]))
    assert m.bones[0].name.encode("cp932", "surrogateescape") == b"\x81\xff"


def test_a_model_without_a_name_table_has_no_names():
    m = gameanim.load_model(mm.write_j3d_model(sample_j3d_joints(), SAMPLE_PARENTS, names=False))
    assert all(b.name is None and b.name_hash is None for b in m.bones)


def test_chunks_are_kept_raw_in_file_order():
    data = mm.write_j3d_model(sample_j3d_joints(), SAMPLE_PARENTS, envelopes=[[(0, 1.0)]],
                              inverse_binds=[[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]] * 4, draw=[(0, 0)],
                              extra_chunks=[("SHP1", b"shape!"), ("MAT3", b"\x00\x01\x02"), ("TEX1", b"t")])
    m = gameanim.load_model(data)
    assert [t for t, _ in m.chunks] == ["INF1", "EVP1", "DRW1", "JNT1", "SHP1", "MAT3", "TEX1"]
    assert b"".join(b for _, b in m.chunks) == data[0x20:]
    assert dict(m.chunks)["SHP1"] == mm.chunk("SHP1", b"shape!")
    assert m.info["chunks"] == [(t, len(b)) for t, b in m.chunks]


def test_evp1_inverse_binds_and_drw1():
    binds = [[float(i * 12 + k) for k in range(12)] for i in range(4)]
    m = gameanim.load_model(mm.write_j3d_model(sample_j3d_joints(), SAMPLE_PARENTS,
                                               envelopes=[[(1, 0.25), (2, 0.75)], [(3, 1.0)]],
                                               inverse_binds=binds, draw=[(0, 0), (1, 1), (0, 3)]))
    assert m.inverse_binds == [tuple(b) for b in binds]
    assert m.info["envelopes"] == 2 and m.info["envelope_weights"] == 3 and m.info["draw_matrices"] == 3
    plain = gameanim.load_model(mm.write_j3d_model(sample_j3d_joints(), SAMPLE_PARENTS))
    assert plain.inverse_binds == [] and plain.info["envelopes"] == 0


@pytest.mark.parametrize("draw,what", [([(0, 4)], "joint 4 of 4"), ([(1, 1)], "envelope 1 of 1"),
                                       ([(2, 0)], "kind 2")])
def test_drw1_out_of_range_is_refused(draw, what):
    with pytest.raises(gameanim.FormatError, match=what):
        gameanim.load_model(mm.write_j3d_model(sample_j3d_joints(), SAMPLE_PARENTS, envelopes=[[(0, 1.0)]],
                                               inverse_binds=[[0.0] * 12] * 4, draw=draw))


def test_evp1_joint_out_of_range_is_refused():
    with pytest.raises(gameanim.FormatError, match="joint 7 of a model with 4"):
        gameanim.load_model(mm.write_j3d_model(sample_j3d_joints(), SAMPLE_PARENTS, envelopes=[[(7, 1.0)]],
                                               inverse_binds=[[0.0] * 12] * 8))


J, O, C, E = mm.JOINT, mm.OPEN, mm.CLOSE, mm.END


def test_material_and_shape_nodes_pass_the_enclosing_joint_on():
    nodes = [(J, 0), (O, 0), (mm.MATERIAL, 0), (O, 0), (mm.SHAPE, 0), (J, 1), (O, 0), (J, 2), (C, 0), (J, 3), (C, 0),
             (C, 0), (E, 0)]
    m = gameanim.load_model(mm.write_j3d_model(sample_j3d_joints(), nodes=nodes))
    assert [b.parent for b in m.bones] == [-1, 0, 1, 0]


def test_a_parent_may_have_a_higher_joint_number():
    nodes = [(J, 3), (O, 0), (J, 0), (O, 0), (J, 1), (J, 2), (C, 0), (C, 0), (E, 0)]
    m = gameanim.load_model(mm.write_j3d_model(sample_j3d_joints(), nodes=nodes))
    assert [b.parent for b in m.bones] == [3, 0, 0, -1]


def test_joints_the_hierarchy_never_reaches_are_roots():
    nodes = [(J, 0), (O, 0), (J, 2), (C, 0), (E, 0)]
    m = gameanim.load_model(mm.write_j3d_model(sample_j3d_joints(), nodes=nodes))
    assert [b.parent for b in m.bones] == [-1, -1, 0, -1] and m.info["roots"] == 3


def test_unclosed_opens_at_the_end_node_are_accepted():
    nodes = [(J, 0), (O, 0), (J, 1), (O, 0), (J, 2), (J, 3), (E, 0)]
    m = gameanim.load_model(mm.write_j3d_model(sample_j3d_joints(), nodes=nodes))
    assert [b.parent for b in m.bones] == [-1, 0, 1, 1]


@pytest.mark.parametrize("nodes,what", [
    ([(J, 0), (O, 0), (J, 1), (J, 1), (C, 0), (E, 0)], "joint 1 is listed twice"),
    ([(J, 0), (J, 4), (E, 0)], "joint 4 of a model with 4"),
    ([(J, 0), (C, 0), (E, 0)], "close node"),
    ([(J, 0), (0x13, 0), (E, 0)], "node type 0x13"),
    # ten nodes fill the chunk to its 32-byte end: no room for the end node
    ([(J, 0), (O, 0), (J, 1), (O, 0), (J, 2), (C, 0), (J, 3), (C, 0), (mm.MATERIAL, 0), (mm.SHAPE, 0)],
     "without an end node"),
])
def test_hierarchy_errors_are_refused(nodes, what):
    with pytest.raises(gameanim.FormatError, match=what) as e:
        gameanim.load_model(mm.write_j3d_model(sample_j3d_joints(), nodes=nodes))
    assert e.value.format == "bmd" and e.value.field.startswith("INF1") and e.value.offset > 0


def test_missing_skeleton_chunks_are_refused():
    data = mm.write_j3d_model([mm.joint("a")], [-1])
    for tag in (b"JNT1", b"INF1"):
        with pytest.raises(gameanim.FormatError, match=f"no {tag.decode()} chunk"):
            gameanim.load_model(data.replace(tag, b"XXXX"))


def test_bad_counts_and_offsets_are_refused():
    data = bytearray(mm.write_j3d_model(sample_j3d_joints(), SAMPLE_PARENTS))
    bad_chunks = bytearray(data)
    struct.pack_into(">I", bad_chunks, 0x0C, 0xFFFFFFFF)
    with pytest.raises(gameanim.FormatError, match="chunk count"):
        gameanim.load_model(bytes(bad_chunks))
    jnt1 = data.index(b"JNT1")
    for field, value, what in [(8, 0, "no joints"), (0x0C, 0xFFFFF, "JNT1 joint data offset"),
                               (0x14, 0x7FFFFFFF, "JNT1 name table offset")]:
        bad = bytearray(data)
        if field == 8:
            struct.pack_into(">H", bad, jnt1 + field, value)
        else:
            struct.pack_into(">I", bad, jnt1 + field, value)
        with pytest.raises(gameanim.FormatError, match=what):
            gameanim.load_model(bytes(bad))
    many = bytearray(data)
    struct.pack_into(">H", many, jnt1 + 8, 0xFFFF)  # 65535 joints: the remap table does not fit
    with pytest.raises(gameanim.FormatError):
        gameanim.load_model(bytes(many))


# ------------------------------------------------------------------ SM64DS


def sample_ds_bones():
    return [
        mm.sm64ds_bone("r0", scale_fixed=(4096, 8192, 2048), translation_fixed=(0, 0, 0)),
        mm.sm64ds_bone("body", 0, rotation_raw=(1024, -512, 4095), translation_fixed=(4096 * 3, -100, 1)),
        mm.sm64ds_bone("head", 1, rotation_raw=(0, 2048, 0), translation_fixed=(0, 4096 * 10, 0), bone_id=1),
        mm.sm64ds_bone("arm", 1, scale_fixed=(-4096, 1, 0x7FFFFFFF)),
    ]


def test_sm64ds_bones_are_the_written_ones():
    bones = sample_ds_bones()
    m = gameanim.load_model(mm.write_sm64ds_bmd(bones, scale_shift=3))
    assert m.format == "sm64ds_bmd" and m.family == "sm64ds" and m.calc is None
    assert m.info["scale_shift"] == 3 and m.chunks == [] and m.inverse_binds == []
    for i, (b, w) in enumerate(zip(m.bones, bones)):
        assert b.name == w["name"] and b.parent == w["parent"]
        assert b.bone_id == (i if w["bone_id"] is None else w["bone_id"])
        assert b.scale_fixed == w["scale_fixed"] and b.translation_fixed == w["translation_fixed"]
        assert b.rotation_raw == w["rotation_raw"]
        assert b.scale == approx3([v / 4096 for v in w["scale_fixed"]])
        assert b.translation == approx3([v / 4096 for v in w["translation_fixed"]])
        assert b.rotation == approx3([v * DS_TURN for v in w["rotation_raw"]])
        assert b.name_hash is None and b.kind is None and b.bound_min is None
    # 0x0400 = 90 degrees
    assert m.bones[1].rotation[0] == pytest.approx(math.pi / 2)


def test_sm64ds_one_bone():
    m = gameanim.load_model(mm.write_sm64ds_bmd([mm.sm64ds_bone("only")]))
    assert len(m.bones) == 1 and m.bones[0].parent == -1 and m.bones[0].scale == (1.0, 1.0, 1.0)


def test_sm64ds_parent_offsets_must_lead_to_an_earlier_bone():
    data = bytearray(mm.write_sm64ds_bmd(sample_ds_bones()))
    struct.pack_into("<h", data, 0x34 + 0x40 * 2 + 8, 1)  # bone 2's parent -> bone 3 (later)
    with pytest.raises(gameanim.FormatError, match="parent offset 1"):
        gameanim.load_model(bytes(data))


def test_sm64ds_bone_count_is_checked_before_allocation():
    data = bytearray(mm.write_sm64ds_bmd(sample_ds_bones()))
    struct.pack_into("<I", data, 4, 4000)
    with pytest.raises(gameanim.FormatError, match="bone table"):
        gameanim.load_model(bytes(data))


# ------------------------------------------------------------------ Banjo-Kazooie


BK_BONES = [((0.0, 0.0, 0.0), 1, -1), ((0.0, 100.5, -2.0), 3, 0), ((7.0, 8.0, 9.0), 0x6C, 1),
            ((-1.0, 0.0, 0.0), 2, 0)]


def test_bk_bones_are_the_written_ones():
    m = gameanim.load_model(mm.write_bk_model(BK_BONES, scale=45.0))
    assert m.format == "bk_model" and m.family == "bk" and m.calc is None and m.info["bk_scale"] == 45.0
    for b, (pivot, bone_id, parent) in zip(m.bones, BK_BONES):
        assert b.translation == approx3(pivot) and b.bone_id == bone_id and b.parent == parent
        assert b.scale == (1.0, 1.0, 1.0) and b.rotation == (0.0, 0.0, 0.0) and b.name is None


def test_bk_without_a_bone_table_has_no_bones():
    m = gameanim.load_model(mm.write_bk_model([], table=False))
    assert m.bones == () and m.info["bones"] == 0


def test_bk_parents_must_come_earlier():
    with pytest.raises(gameanim.FormatError, match="parent 2 is not -1 or an earlier entry"):
        gameanim.load_model(mm.write_bk_model([((0, 0, 0), 1, -1), ((0, 0, 0), 2, 2), ((0, 0, 0), 3, 0)]))
    with pytest.raises(gameanim.FormatError, match="parent -2"):
        gameanim.load_model(mm.write_bk_model([((0, 0, 0), 1, -2)]))


def test_bk_bad_counts_are_refused():
    data = bytearray(mm.write_bk_model(BK_BONES))
    struct.pack_into(">h", data, 0x38 + 4, 0x7FFF)
    with pytest.raises(gameanim.FormatError, match="bone table entries"):
        gameanim.load_model(bytes(data))
    struct.pack_into(">h", data, 0x38 + 4, -1)
    with pytest.raises(gameanim.FormatError, match="negative count"):
        gameanim.load_model(bytes(data))
    struct.pack_into(">I", data, 0x18, 0x10)
    with pytest.raises(gameanim.FormatError, match="into the header"):
        gameanim.load_model(bytes(data))


# ------------------------------------------------------------------ all families


def family_models():
    return {
        "bmd": mm.write_j3d_model(sample_j3d_joints(), SAMPLE_PARENTS, with_shapes=True, envelopes=[[(0, 1.0)]],
                                  inverse_binds=[[0.0] * 12] * 4, draw=[(0, 0), (1, 0)]),
        "sm64ds_bmd": mm.write_sm64ds_bmd(sample_ds_bones()),
        "bk_model": mm.write_bk_model(BK_BONES, 3.0),
    }


def bone_facts(m):
    return [(b.name, b.parent, b.scale, b.rotation, b.translation, b.bone_id) for b in m.bones]


COMPRESSIONS = [("bmd", "yaz0"), ("bmd", "yay0"), ("sm64ds_bmd", "lz77"), ("bk_model", "rarezip")]


@pytest.mark.parametrize("fmt,wrapper", COMPRESSIONS)
def test_compressed_models(fmt, wrapper):
    data = family_models()[fmt]
    m = gameanim.load_model(gameanim.compress(wrapper, data))
    assert m.format == fmt and m.compression == wrapper
    assert bone_facts(m) == bone_facts(gameanim.load_model(data))


@pytest.mark.parametrize("fmt,wrapper", [(f, None) for f in family_models()] + COMPRESSIONS)
def test_load_on_a_model_file_says_to_use_load_model(fmt, wrapper):
    data = family_models()[fmt]
    if wrapper:
        data = gameanim.compress(wrapper, data)
    with pytest.raises(gameanim.FormatError, match="model file.*use gameanim.load_model") as e:
        gameanim.load(data)
    assert e.value.format == fmt


@pytest.mark.parametrize("path", sorted(p for p in SAMPLES.rglob("*") if p.is_file() and not p.name.startswith(".")),
                         ids=lambda p: p.relative_to(SAMPLES).as_posix())
def test_every_sample_is_either_an_animation_or_a_model_and_the_other_loader_says_so(path):
    try:
        gameanim.load(path)
    except gameanim.FormatError as e:
        assert "use gameanim.load_model" in str(e), e
        gameanim.load_model(path)
        return
    with pytest.raises(gameanim.FormatError, match="animation file.*use gameanim.load"):
        gameanim.load_model(path)


def test_load_model_reads_paths_and_buffers(tmp_path):
    data = family_models()["bmd"]
    p = tmp_path / "m.bmd"
    p.write_bytes(data)
    ref = bone_facts(gameanim.load_model(data))
    for source in (p, str(p), bytearray(data), memoryview(data)):
        assert bone_facts(gameanim.load_model(source)) == ref


def test_max_decoded_size_applies_to_compressed_models():
    data = gameanim.compress("yaz0", family_models()["bmd"])
    with pytest.raises(gameanim.FormatError, match="max_decoded_size"):
        gameanim.load_model(data, max_decoded_size=16)
    assert gameanim.load_model(data, max_decoded_size=1 << 20).format == "bmd"


def test_unknown_bytes_are_not_a_model():
    with pytest.raises(gameanim.FormatError, match="not a recognised model file"):
        gameanim.load_model(b"hello world, not a model at all!!" * 3)


def meaningful_end(fmt, data):
    """The length below which every prefix must fail: past it only padding
    follows (names and tables are padded to 4 or 8 bytes)."""
    if fmt == "bmd":
        return len(data)
    if fmt == "bk_model":  # the probe wants the geometry layout offset inside the data
        return struct.unpack(">I", data[4:8])[0] + 1
    return len(data.rstrip(b"\0"))


@pytest.mark.parametrize("fmt", ["bmd", "sm64ds_bmd", "bk_model"])
def test_every_truncation_raises_format_error(fmt):
    data = family_models()[fmt]
    ref = bone_facts(gameanim.load_model(data))
    end = meaningful_end(fmt, data)
    for n in range(len(data)):
        try:
            m = gameanim.load_model(data[:n])
        except gameanim.FormatError as e:
            assert str(e)
            continue
        assert n >= end, f"a {n}-byte prefix of {len(data)} bytes decoded"
        assert bone_facts(m) == ref


@pytest.mark.parametrize("fmt", ["bmd", "sm64ds_bmd", "bk_model"])
def test_damaged_models_never_crash(fmt):
    data = family_models()[fmt]
    decoded = 0
    for bad in mutations(data, 600, seed=19):
        try:
            m = gameanim.load_model(bad)
        except gameanim.FormatError as e:
            assert str(e)
            continue
        decoded += 1
        n = len(m.bones)
        assert all(-1 <= b.parent < n and b.parent != b.index for b in m.bones)
        m.info, m.chunks, m.inverse_binds  # noqa: B018 (built without error)
    assert decoded < 600


def test_world_matrices_refuses_an_animation_of_another_family():
    j3d = gameanim.load_model(family_models()["bmd"])
    bk = gameanim.load_model(family_models()["bk_model"])
    btk = gameanim.Animation("btk")
    bca = gameanim.Animation("bca")
    for model, anim in ((j3d, btk), (j3d, bca), (bk, gameanim.Animation("bck"))):
        with pytest.raises(ValueError, match="does not drive"):
            model.world_matrices(anim)
    with pytest.raises(TypeError):
        j3d.world_matrices("not an animation")


def test_world_matrices_take_a_j3d_bca_on_a_j3d_model_by_its_frame_rule():
    """J3D BCA (full-frame joints) drives J3D models as BCK does: at frame f
    the matrices are those of a one-key BCK holding the values of the
    frame the rule picks (nearest: (int)(f + 0.5); truncate: (int)f)."""
    j3d = gameanim.load_model(family_models()["bmd"])
    n = len(j3d.bones)
    base = {("rotation", 2): [0.0, 0.4, 0.9, -0.3], ("translation", 0): [0.0, 1.5, -2.0, 4.0]}
    per_frame = {(j, ch, a): [v * (j + 1) for v in vals] for j in range(n) for (ch, a), vals in base.items()}
    frames = [0.0, 1.0, 2.0, 3.0]
    tracks = [gameanim.Track(j, ch, a, frames, vals, interpolation=[gameanim.CONSTANT] * 4)
              for (j, ch, a), vals in per_frame.items()]
    bca = gameanim.Animation("j3d_bca", tracks, frame_count=4.0)
    for rule, pick in (("nearest", lambda f: int(f + 0.5)), ("truncate", int)):
        bca.frame_rule = rule
        for f in (0.4, 0.6, 1.5, 2.49, 2.7):
            held = gameanim.Animation("bck", [gameanim.Track(j, ch, a, [0.0], [vals[pick(f)]])
                                              for (j, ch, a), vals in per_frame.items()], frame_count=4.0)
            assert list(j3d.world_matrices(bca, f)) == list(j3d.world_matrices(held, 0.0)), (rule, f)


def test_model_repr_and_read_only():
    m = gameanim.load_model(family_models()["bk_model"])
    assert repr(m) == "<gameanim.Model bk_model, 4 bones>"
    with pytest.raises(AttributeError):
        m.bones = ()
    with pytest.raises(AttributeError):
        m.bones[0].parent = 3


def test_world_matrices_shapes_and_a_translation_chain():
    # a chain of pure translations: each joint's world translation is the sum down the chain
    joints = [mm.joint("a", translation=(1, 0, 0)), mm.joint("b", translation=(0, 2, 0)),
              mm.joint("c", translation=(0, 0, 3))]
    m = gameanim.load_model(mm.write_j3d_model(joints, [-1, 0, 1]))
    rest = m.world_matrices()
    assert len(rest) == 3 * 16
    for i, want in enumerate([(1, 0, 0), (1, 2, 0), (1, 2, 3)]):
        mat = rest[16 * i:16 * i + 16]
        assert (mat[3], mat[7], mat[11]) == want
        assert [mat[k] for k in (0, 5, 10, 15)] == [1, 1, 1, 1]
    frames = [0.0, 1.0, 2.5]
    many = m.world_matrices(None, frames)
    assert len(many) == len(frames) * 3 * 16
    for k, f in enumerate(frames):  # frame-major
        assert many[k * 48:(k + 1) * 48] == m.world_matrices(frame=f)


def test_names_over_the_string_limit_are_refused():
    long = "n" * (gameanim.LIMITS["string_length"] + 1)
    with pytest.raises(gameanim.FormatError, match="over the limit"):
        gameanim.load_model(mm.write_j3d_model([mm.joint(long)], [-1]))
    with pytest.raises(gameanim.FormatError, match="over the limit"):
        gameanim.load_model(mm.write_sm64ds_bmd([mm.sm64ds_bone(long)]))
    ok = "n" * gameanim.LIMITS["string_length"]
    assert gameanim.load_model(mm.write_j3d_model([mm.joint(ok)], [-1])).bones[0].name == ok


def test_a_bk_animation_that_starts_like_a_model_bin_is_still_an_animation():
    # start 0, end 11: the file begins 00 00 00 0B, the model bin's magic, and holds zeros at 0x18
    tracks = [gameanim.Track(b, "rotation", 0, [0.0, 11.0], [0.0, 0.0]) for b in range(1, 12)]
    data = gameanim.Animation("bk", tracks, frame_count=12, start_frame=0).to_bytes()
    assert data[:4] == b"\0\0\0\x0b" and data[0x18:0x1C] == bytes(4)
    assert gameanim.load(data).format == "bk"
    with pytest.raises(gameanim.FormatError, match="animation file"):
        gameanim.load_model(data)


def test_a_bk_model_bin_needs_its_section_offsets_inside_the_data():
    data = bytearray(mm.write_bk_model(BK_BONES))
    struct.pack_into(">I", data, 4, len(data))  # the geometry layout past the end
    with pytest.raises(gameanim.FormatError, match="not a recognised model file"):
        gameanim.load_model(bytes(data))


def test_which_formats_drive_which_family_comes_from_the_registry():
    """Every registered format against every model family: the skeleton
    formats of the family (and J3D's full-frame BCA) are taken, every other
    format is refused naming the family's own (the binding names none)."""
    drives = {"bmd": {"bck", "j3d_bca"}, "sm64ds_bmd": {"bca"}, "bk_model": {"bk"}}
    own = {"bmd": "bck", "sm64ds_bmd": "bca", "bk_model": "bk"}
    models = family_models()
    for family, takes in drives.items():
        model = gameanim.load_model(models[family])
        for name in gameanim.formats():
            anim = gameanim.Animation(name)
            if name in takes:
                assert len(model.world_matrices(anim)) == 16 * len(model.bones), (family, name)
            else:
                with pytest.raises(ValueError, match=f"its skeleton animations are {own[family]} files"):
                    model.world_matrices(anim)
