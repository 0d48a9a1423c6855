"""Writing models back (issue 34; docs/model_writer.md, "Writing: to_bytes,
save, regenerate"): an unedited model is the bytes it was loaded from, in
any wrapper it is asked for; an edited one is its new file; save is
atomic; regenerate=True encodes INF1, EVP1, DRW1 and JNT1 afresh from the
decoded model, byte for byte the chunks tools/make_models.py writes in
Nintendo's layout (../shared/formats/j3d_writer.md 5.2) but for INF1's
packet count, MAT3 re-pooled (compared decoded: every Material attribute
equal), VTX1 / SHP1 re-stripped (compared decoded: the same triangles;
more in test_model_regenerate_geometry.py) and TEX1 (compared decoded
here; tests/test_model_regenerate_textures.py), or refuses with a
FormatError naming MAT3 when the stored MAT3 does not decode; the re-read
model equals the original.  Expected bytes come from the pure
Python fixture writer or from references written here from the notes."""
import errno
import os
import struct

import pytest

import gameanim
import gameanim._save
from model_fixtures import make_models as mm, mesh_triangles

SKELETON = ("INF1", "EVP1", "DRW1", "JNT1")
REGENERATED = SKELETON + ("MAT3", "MDL3", "TEX1", "VTX1", "SHP1")  # the chunks regenerate re-encodes
# compared decoded (re-pooled, re-stripped, TEX1 laid out otherwise), MDL3 in test_model_mdl3.py; the others byte for byte
DECODED = ("MAT3", "MDL3", "TEX1", "VTX1", "SHP1")
PADDING = b"This is padding data to alignment."  # j3d_writer.md section 2


def _unwrap(data):
    """A Yaz0 / Yay0 file's payload (the wrapper named by its magic)."""
    return gameanim.decompress({b"Yaz0": "yaz0", b"Yay0": "yay0"}[bytes(data[:4])], data)


def _seed_j3d():
    return {n: d for n, d in mm.seed_models().items() if n.startswith("j3d_")}


def _joints():
    return [mm.joint("root", bound_radius=4.0, bound_min=(-1.0, -2.0, -3.0), bound_max=(1.0, 2.0, 3.0)),
            mm.joint("spine", scale=(2.0, 1.0, 0.5), rotation_raw=(8192, 0, -8192), translation=(0.0, 5.0, 0.0),
                     scale_compensate=1, kind=2),
            mm.joint("\u8155", translation=(3.0, 0.0, 0.0)),  # a cp932 name
            mm.joint("leg", scale_compensate=0)]


# Every generated model: the mesh model's variants, the fuzz seeds (write_j3d_model
# cases and the rich_materials model) and more write_j3d_model cases.
GENERATED = {
    "mesh": lambda: mm.mesh_model(),
    "mesh_bdl": lambda: mm.mesh_model("bdl"),
    "mesh_maya": lambda: mm.mesh_model(calc="maya", scale_compensate=1),
    "mesh_softimage": lambda: mm.mesh_model(calc="softimage", scale_compensate=0),
    "mesh_billboard": lambda: mm.mesh_model(rigid_matrix_type=1),
    "mesh_y_billboard": lambda: mm.mesh_model(rigid_matrix_type=2),
    "mesh_unordered": lambda: mm.mesh_model(unordered=True),
    "mesh_binds": lambda: mm.mesh_model(binds=[[2.0, 0, 0, 1.0, 0, 2.0, 0, -3.0, 0, 0, 2.0, 0.5]] * 3),
    "no_names": lambda: mm.write_j3d_model(_joints(), [-1, 0, 1, 0], names=False),
    "flags_extra": lambda: mm.write_j3d_model(_joints(), [-1, 0, 1, 1], calc="maya", flags_extra=0x10),
    "shapes_remap": lambda: mm.write_j3d_model(_joints(), [-1, 0, 0, 2], with_shapes=True, remap=[1, 0, 3, 2]),
    "rigid_evp1": lambda: mm.write_j3d_model(_joints(), envelopes=[], draw=[(0, 0), (0, 1), (0, 3)]),
    "rich_materials": lambda: mm.write_j3d_model(_joints(), extra_chunks=[("MAT3", mm.mat3_body(mm.rich_materials(6, 7)))]),
}
GENERATED.update({"seed_" + n: (lambda d=d: d) for n, d in _seed_j3d().items()})


def _record(o):
    """The public attributes of a read-only record (Bone, Mesh, Material,
    Texture) as plain values."""
    out = {}
    for name in dir(o):
        if name.startswith("_"):
            continue
        v = getattr(o, name)
        if callable(v):
            continue
        if hasattr(v, "tobytes"):
            v = (v.typecode, v.tobytes())
        elif isinstance(v, (list, tuple)):
            v = repr([(x.typecode, x.tobytes()) if hasattr(x, "tobytes") else x for x in v])
        out[name] = v if isinstance(v, (int, float, str, bytes, bool, type(None), tuple)) else repr(v)
    return out


def _same_model(a, b, restripped=False):
    """restripped: b's shapes are a's re-stripped and re-packed (regenerate):
    their triangles compared as multisets of corners, INF1's packet count
    free to follow."""
    assert (a.format, a.calc) == (b.format, b.calc)
    assert [_record(x) for x in a.bones] == [_record(x) for x in b.bones]
    assert a.inverse_binds == b.inverse_binds
    ia, ib = a.info, b.info
    for k in ("inf1_flags", "inf1_packet_count", "inf1_vertex_count", "envelopes", "envelope_weights",
              "inverse_binds", "draw_matrices"):
        assert ia[k] == ib[k] or (restripped and k == "inf1_packet_count"), k
    for kind in ("materials", "textures") + (() if restripped else ("meshes",)):
        assert _records(a, kind) == _records(b, kind), kind
    if restripped:
        assert _geometry(a) == _geometry(b)


def _geometry(model):
    """Each shape's material and triangles (a multiset of corners)."""
    try:
        return [(m.material, mesh_triangles(m)) for m in model.meshes]
    except gameanim.FormatError as e:
        return ("FormatError", str(e))


def _records(model, kind):
    """model.<kind> as records, or the error when the kind does not decode
    (the opaque filler chunks of the skeleton-only fixtures)."""
    try:
        return [_record(x) for x in getattr(model, kind)]
    except gameanim.FormatError as e:
        return ("FormatError", str(e))


def _opaque_mat3(data):
    """Whether the model's MAT3 is an opaque filler that does not decode
    (write_j3d_model's default extra chunks)."""
    return _records(gameanim.load_model(data), "materials")[0] == "FormatError"


def _real_mat3():
    return mm.mat3_body(mm.rich_materials(3, 5))


def _with_chunk(data, tag, body):
    """data with its chunk `tag` replaced by one of body (file size updated)."""
    at = mm.find_chunk(data, tag.encode())
    size = struct.unpack_from(">I", data, at + 4)[0]
    out = data[:at] + mm.chunk(tag, body) + data[at + size:]
    return out[:8] + struct.pack(">I", len(out)) + out[12:]


def _with_real_mat3(data):
    return _with_chunk(data, "MAT3", _real_mat3())


def _opaque_shp1(data):
    """Whether the model's SHP1 is write_j3d_model's opaque filler."""
    at = 0x20
    while at + 8 <= len(data) and data[at:at + 4] != b"SHP1":
        at += struct.unpack_from(">I", data, at + 4)[0]
    return data[at + 8:at + 25] == b"opaque shape data"


def _with_real_shp1(data):
    """data with an opaque SHP1 replaced by a real one without shapes."""
    return _with_chunk(data, "SHP1", mm.shp1_body([])) if _opaque_shp1(data) else data


def _same_regenerated(model, again):
    """Every chunk regenerate does not re-encode kept byte for byte, the
    skeleton chunks byte for byte (the fixtures are in Nintendo's layout),
    MAT3 and TEX1 compared decoded (TEX1: the fixtures lay the data out
    otherwise; tests/test_model_regenerate_textures.py), MDL3 left to
    tests/test_model_mdl3.py (it is made from MAT3 and TEX1; the seeds' MDL3
    is a stub), and the whole
    model equal."""
    before, after = model.chunks, again.chunks
    assert [t for t, _ in after] == [t for t, _ in before]
    restripped = "SHP1" in dict(before)
    for (tag, old), (_, new) in zip(before, after):
        if tag not in DECODED and not (tag == "INF1" and restripped):
            assert new == old, tag
    if restripped:  # INF1: the same but for its packet count, SHP1's
        inf1_old, inf1_new = dict(before)["INF1"], dict(after)["INF1"]
        assert inf1_new[:0x0C] + inf1_new[0x10:] == inf1_old[:0x0C] + inf1_old[0x10:]
        assert struct.unpack_from(">I", inf1_new, 0x0C)[0] == _shp1_packets(dict(after)["SHP1"])
    assert [_record(x) for x in again.materials] == [_record(x) for x in model.materials]
    _same_model(model, again, restripped)


def _shp1_packets(c):
    """The packet count of an SHP1 chunk (j3d_meshes.md 3.1-3.2)."""
    n, records = struct.unpack_from(">H", c, 8)[0], struct.unpack_from(">I", c, 0x0C)[0]
    return sum(struct.unpack_from(">H", c, records + 0x28 * i + 2)[0] for i in range(n))


# ---------------------------------------------------------------- to_bytes

@pytest.mark.parametrize("name", sorted(GENERATED))
def test_an_unedited_model_writes_back_its_bytes(name):
    data = GENERATED[name]()
    model = gameanim.load_model(data)
    assert model.to_bytes() == data
    assert model.to_bytes(None) == data and model.to_bytes(compression="none") == data


@pytest.mark.parametrize("wrapper", ["yaz0", "yay0"])
@pytest.mark.parametrize("name", ["mesh", "mesh_bdl", "seed_j3d_skinned.bdl", "rich_materials"])
def test_wrapped_models_keep_their_wrapper_bytes_and_switch_wrappers(name, wrapper):
    data = GENERATED[name]()
    packed = gameanim.compress(wrapper, data)
    model = gameanim.load_model(packed)
    assert model.compression == wrapper
    assert model.to_bytes() == packed  # the input itself, not a recompression
    assert model.to_bytes(compression=None) == data
    other = "yay0" if wrapper == "yaz0" else "yaz0"
    switched = model.to_bytes(compression=other)
    assert _unwrap(switched) == data
    there = gameanim.load_model(switched)
    assert there.compression == other
    back = there.to_bytes(compression=wrapper)
    assert _unwrap(back) == data
    again = gameanim.load_model(back)
    assert again.compression == wrapper
    _same_model(gameanim.load_model(data), gameanim.load_model(again.to_bytes(compression=None)))


def test_a_plain_model_can_be_written_wrapped():
    data = mm.mesh_model()
    model = gameanim.load_model(data)
    for wrapper in ("yaz0", "yay0"):
        out = model.to_bytes(wrapper)
        assert out[:4] == wrapper.capitalize().encode() and _unwrap(out) == data


def test_a_bad_compression_is_refused():
    model = gameanim.load_model(mm.mesh_model())
    with pytest.raises(ValueError, match="compression"):
        model.to_bytes(compression="zip")
    with pytest.raises(TypeError):
        model.to_bytes(None, True)  # regenerate is keyword-only


@pytest.mark.parametrize("data", [
    mm.write_sm64ds_bmd([mm.sm64ds_bone("r"), mm.sm64ds_bone("b", 0)], scale_shift=1),
    mm.write_bk_model([((0.0, 0.0, 0.0), 1, -1), ((0.0, 1.0, 0.0), 2, 0)], 2.0),
], ids=["sm64ds", "bk"])
def test_other_families_write_back_as_loaded_and_refuse_regenerate(data):
    model = gameanim.load_model(data)
    assert model.to_bytes() == data
    assert _unwrap(model.to_bytes(compression="yaz0")) == data
    with pytest.raises(ValueError, match="J3D"):
        model.to_bytes(regenerate=True)


def _jnt1_translated(chunk, joint, x):
    table = struct.unpack_from(">I", chunk, 0xC)[0]  # JNT1 record table offset; translation x at +0x18
    at = table + 0x40 * joint + 0x18
    return chunk[:at] + struct.pack(">f", x) + chunk[at + 4:]


@pytest.mark.parametrize("wrapper", [None, "yaz0"])
def test_after_an_edit_to_bytes_is_the_new_file(wrapper):
    data = mm.mesh_model()
    model = gameanim.load_model(gameanim.compress(wrapper, data) if wrapper else data)
    index = [t for t, _ in model.chunks].index("JNT1")
    new_chunk = _jnt1_translated(model.chunks[index][1], 2, 42.5)
    model._replace_chunk(index, new_chunk)
    out = model.to_bytes()
    plain = _unwrap(out) if wrapper else out
    assert plain != data and len(plain) == len(data)
    # the reference: the input with that chunk's bytes swapped (same size)
    at = mm.find_chunk(data, b"JNT1")
    assert plain == data[:at] + new_chunk + data[at + len(new_chunk):]
    again = gameanim.load_model(out)
    assert again.bones[2].translation[0] == 42.5
    assert again.chunks == model.chunks and again.compression == wrapper


# ---------------------------------------------------------------- save

def test_save_writes_the_file(tmp_path):
    data = mm.mesh_model("bdl")
    model = gameanim.load_model(gameanim.compress("yaz0", data))
    model.save(tmp_path / "m.bdl")
    assert (tmp_path / "m.bdl").read_bytes() == model.to_bytes()
    model.save(tmp_path / "plain.bdl", compression=None)
    assert (tmp_path / "plain.bdl").read_bytes() == data
    model.save(str(tmp_path / "regen.bdl"), compression=None, regenerate=True)
    _same_model(model, gameanim.load_model(tmp_path / "regen.bdl"), restripped=True)
    with pytest.raises(TypeError):
        model.save(tmp_path / "a", tmp_path / "b")


def test_a_failing_save_leaves_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "m.bmd"
    target.write_bytes(b"old")
    model = gameanim.load_model(mm.mesh_model())

    def disk_full(fd, view):  # the temporary file's write fails half-way
        os.write(fd, bytes(view[:100]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(gameanim._save, "_write_all", disk_full)
    with pytest.raises(OSError) as e:
        model.save(target)
    assert e.value.errno == errno.ENOSPC and e.value.filename == os.fspath(target)
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["m.bmd"]


def test_a_failing_encode_writes_nothing(tmp_path):
    model = gameanim.load_model(mm.write_sm64ds_bmd([mm.sm64ds_bone("r")]))
    target = tmp_path / "m.bmd"
    target.write_bytes(b"old")
    with pytest.raises(ValueError):
        model.save(target, regenerate=True)
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["m.bmd"]


# ---------------------------------------------------------------- regenerate

@pytest.mark.parametrize("name", sorted(GENERATED))
def test_regenerate_reproduces_the_skeleton_chunks_and_the_model(name):
    data = _with_real_shp1(GENERATED[name]())  # see test_regenerate_refuses_a_mat3_that_does_not_decode
    if _opaque_mat3(data):
        data = _with_real_mat3(data)
    model = gameanim.load_model(data)
    out = model.to_bytes(regenerate=True)
    assert out[:8] == data[:8] and out[0x10:0x20] == b"SVR3" + b"\xff" * 12
    assert struct.unpack_from(">II", out, 8) == (len(out), len(model.chunks))
    again = gameanim.load_model(out)
    _same_regenerated(model, again)
    assert again.to_bytes(regenerate=True) == out  # a fixed point


@pytest.mark.parametrize("name", sorted(n for n in GENERATED if _opaque_mat3(GENERATED[n]())))
def test_regenerate_refuses_a_mat3_that_does_not_decode(name, tmp_path):
    """regenerate never keeps the stored bytes of a chunk it re-encodes: a
    MAT3 that does not decode is a FormatError naming MAT3, and save writes
    nothing."""
    data = _with_real_shp1(GENERATED[name]())  # (an opaque SHP1 is refused first: test_model_regenerate_geometry)
    model = gameanim.load_model(data)
    with pytest.raises(gameanim.FormatError, match="MAT3"):
        model.to_bytes(regenerate=True)
    with pytest.raises(gameanim.FormatError, match="MAT3"):
        model.save(tmp_path / "m.bmd", regenerate=True)
    assert os.listdir(tmp_path) == []
    assert model.to_bytes() == data  # the plain write is unaffected


def test_regenerate_covers_the_skeleton_chunks_and_ignores_their_stored_bytes():
    """A stored INF1/EVP1/DRW1/JNT1 laid out otherwise (zero padding, aligned
    EVP1 tables, no DRW1 duplicate, a wrong name key) comes out in
    Nintendo's layout, built here from the notes."""
    joints = _joints()
    joints[3]["name_hash"] = 0x1234
    envelopes = [[(0, 0.25), (1, 0.75)], [(2, 1.0 / 3), (3, 2.0 / 3)], [(1, 0.5), (3, 0.5)]]
    binds = [[float(j + k) for k in range(12)] for j in range(4)]
    draw = [(0, 1), (0, 3), (1, 0), (1, 1), (1, 2)]
    nodes = mm.hierarchy_from_parents([-1, 0, 1, 0])

    def zero_chunk(tag, body):
        size = 8 + len(body)
        size += -size % 32
        return (tag.encode() + struct.pack(">I", size) + body).ljust(size, b"\0")

    # the same content in a non-Nintendo layout: zero fill, tables aligned
    inf1 = zero_chunk("INF1", struct.pack(">HHIII", 2, 0xFFFF, 7, 9, 0x18) +
                      b"".join(struct.pack(">HH", t, v) for t, v in nodes))
    counts = bytes(len(e) for e in envelopes)
    idx = b"".join(struct.pack(">H", j) for e in envelopes for j, _ in e)
    wts = b"".join(struct.pack(">f", w) for e in envelopes for _, w in e)
    evp1 = zero_chunk("EVP1", struct.pack(">HHIIII", 3, 0xFFFF, 0x1C, 0x20, 0x2C, 0x44) + counts + b"\0" + idx +
                      wts + b"".join(struct.pack(">12f", *m) for m in binds))
    drw1 = zero_chunk("DRW1", struct.pack(">HHII", 5, 0xFFFF, 0x14, 0x1A) + bytes(e for e, _ in draw) + b"\0" +
                      b"".join(struct.pack(">H", i) for _, i in draw))
    jnt1 = mm.jnt1_chunk(joints)
    jnt1 = jnt1[:jnt1.index(PADDING[:2], 0x18 + 0x40 * 4)] + b"\0\0"
    jnt1 = zero_chunk("JNT1", jnt1[8:] + mm.name_table([j["name"] for j in joints], [j["name_hash"] for j in joints]))
    body = inf1 + evp1 + drw1 + jnt1
    data = b"J3D2bmd3" + struct.pack(">II", 0x20 + len(body), 4) + b"SVR3" + b"\xff" * 12 + body
    model = gameanim.load_model(data)
    regen = dict(gameanim.load_model(model.to_bytes(regenerate=True)).chunks)

    def key(name):  # JUTNameTab: key * 3 + signed char, 16 bits (j3d_writer.md fact 10)
        h = 0
        for c in name:
            h = (h * 3 + (c - 256 if c >= 128 else c)) & 0xFFFF
        return h

    def padded(tag, body, fill=PADDING * 2):
        size = 8 + len(body)
        return tag.encode() + struct.pack(">I", size + (-size % 32)) + body + fill[:-size % 32]

    assert regen["INF1"] == padded("INF1", inf1[8:0x18] + b"".join(struct.pack(">HH", t, v) for t, v in nodes))
    tables = counts + idx
    tables += (PADDING * 2)[:-(0x1C + len(tables)) % 8]
    o_w = 0x1C + len(tables)
    assert regen["EVP1"] == padded("EVP1", struct.pack(">HHIIII", 3, 0xFFFF, 0x1C, 0x1C + 3, o_w, o_w + len(wts)) +
                                   tables + wts + b"".join(struct.pack(">12f", *m) for m in binds))
    nintendo = draw + [e for e in draw if e[0] == 1]  # J + N + N
    kinds = bytes(e for e, _ in nintendo)
    kinds += PADDING[:-(0x14 + len(kinds)) % 2]
    assert regen["DRW1"] == padded("DRW1", struct.pack(">HHII", len(nintendo), 0xFFFF, 0x14, 0x14 + len(kinds)) +
                                   kinds + b"".join(struct.pack(">H", i) for _, i in nintendo))
    names = [j["name"].encode("cp932") for j in joints]
    records = b"".join(mm.joint_record(j) for j in joints)
    remap = struct.pack(">4H", 0, 1, 2, 3)
    o_names = 0x18 + len(records) + len(remap)
    table = struct.pack(">HH", 4, 0xFFFF)
    at = 4 + 16
    for n in names:
        table += struct.pack(">HH", key(n), at)
        at += len(n) + 1
    table += b"".join(n + b"\0" for n in names)
    assert regen["JNT1"] == padded("JNT1", struct.pack(">HHIII", 4, 0xFFFF, 0x18, 0x18 + len(records), o_names) +
                                   records + remap + table)
    # the semantics stay: the draw entries the shapes can use, the envelopes
    again = gameanim.load_model(model.to_bytes(regenerate=True))
    assert again.info["draw_matrices"] == 5 + 3
    assert again.inverse_binds == model.inverse_binds
    assert [b.name_hash for b in again.bones] == [key(n) for n in names]


def test_regenerate_of_an_edited_model_encodes_the_edit():
    data = mm.mesh_model()
    model = gameanim.load_model(data)
    index = [t for t, _ in model.chunks].index("JNT1")
    model._replace_chunk(index, _jnt1_translated(model.chunks[index][1], 1, -7.25))
    out = gameanim.load_model(model.to_bytes(regenerate=True))
    assert out.bones[1].translation[0] == -7.25
    _same_regenerated(model, out)


def test_regenerate_is_wrapped_as_asked():
    data = mm.mesh_model()
    model = gameanim.load_model(gameanim.compress("yay0", data))
    out = model.to_bytes(regenerate=True)
    plain = model.to_bytes(compression=None, regenerate=True)
    assert out[:4] == b"Yay0" and _unwrap(out) == plain
    assert plain[:8] == data[:8] and struct.unpack_from(">I", plain, 8)[0] == len(plain)
    _same_regenerated(gameanim.load_model(data), gameanim.load_model(plain))


@pytest.mark.parametrize("draw", [
    [(0, 0), (1, 0), (1, 1), (1, 1), (1, 0)],  # found by fuzz_model: no Nintendo tail, envelopes repeated
    [(1, 1), (0, 2), (1, 0)],
    [(0, 0), (0, 1)],
    [(0, 3), (1, 0), (1, 1), (1, 0), (1, 1)],  # Nintendo's: kept as it is
])
def test_regenerated_draw_tables_are_nintendos_and_stable(draw):
    data = mm.write_j3d_model(_joints(), envelopes=[[(0, 0.5), (1, 0.5)], [(2, 1.0)]],
                              inverse_binds=[[1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0]] * 4, draw=draw,
                              extra_chunks=[("SHP1", mm.shp1_body([])), ("MAT3", _real_mat3())])
    # reference: the entries, then their envelope entries again, unless the
    # table already ends with that copy (j3d_writer.md fact 4)
    env = [e for e in draw if e[0] == 1]
    used = draw[:-len(env) // 2] if draw == [(0, 3), (1, 0), (1, 1), (1, 0), (1, 1)] else draw
    expected = used + [e for e in used if e[0] == 1]
    first = gameanim.load_model(data).to_bytes(regenerate=True)
    drw1 = dict(gameanim.load_model(first).chunks)["DRW1"]
    n = struct.unpack_from(">H", drw1, 8)[0]
    kinds_at, index_at = struct.unpack_from(">II", drw1, 0xC)
    got = [(drw1[kinds_at + i], struct.unpack_from(">H", drw1, index_at + 2 * i)[0]) for i in range(n)]
    assert got == expected
    assert gameanim.load_model(first).to_bytes(regenerate=True) == first


def test_regenerate_re_pools_mat3():
    """MAT3 is encoded afresh, not copied: two materials with the same
    colour, stored in two entries (make_models writes no sharing), share
    one entry after regenerate (j3d_writer.md section 1 "MAT3")."""
    colour = (10, 20, 30, 40)
    data = mm.write_j3d_model(_joints(), extra_chunks=[
        ("MAT3", mm.mat3_body([mm.material("a", color=colour), mm.material("b", color=colour)]))])

    def colour_indices(out):
        mat3 = dict(gameanim.load_model(out).chunks)["MAT3"]
        records, colours = struct.unpack_from(">I", mat3, 0x0C)[0], struct.unpack_from(">I", mat3, 0x20)[0]
        index = [struct.unpack_from(">H", mat3, records + 0x14C * i + 0x08)[0] for i in range(2)]
        return index, [mat3[colours + 4 * i:colours + 4 * i + 4] for i in index]

    assert colour_indices(data) == ([0, 1], [bytes(colour)] * 2)  # the stored layout
    model = gameanim.load_model(data)
    out = model.to_bytes(regenerate=True)
    assert colour_indices(out) == ([0, 0], [bytes(colour)] * 2)
    again = gameanim.load_model(out)
    assert [m.name for m in again.materials] == ["a", "b"]
    _same_regenerated(model, again)
