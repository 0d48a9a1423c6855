"""Material edits (issue 34): the MAT3 relayout engine, Model.set_material_colors
(a shared pool entry is never edited; a shared init record is split first),
the BDL MDL3 display-list patch, material copies for add_mesh and the
re-pooled MAT3 encoder.  The expected bytes and values come from the
layouts in ../shared/formats/j3d_materials.md (section 1) and the GX
register map, decoded here independently of the C code."""
import struct

import pytest

import gameanim
from model_fixtures import make_models as mm

# ---------------------------------------------------------------- fixtures


def _with_mat3(body):
    return mm.write_j3d_model([mm.joint("r")], [-1], extra_chunks=[("MAT3", body)])


def _chunk(data, tag):
    at = mm.find_chunk(data, tag.encode())
    return data[at:at + struct.unpack_from(">I", data, at + 4)[0]]


def _replace_body(data, tag, body):
    """data with chunk tag's body replaced (sizes fixed; body padded to 32)."""
    at = mm.find_chunk(data, tag.encode())
    old = struct.unpack_from(">I", data, at + 4)[0]
    new = mm.chunk(tag, body)
    out = data[:at] + new + data[at + old:]
    return out[:8] + struct.pack(">I", len(out)) + out[12:]


def _shared_mat3():
    """Three materials where 0 and 1 share init record 0 and record 1 (used by
    material 2) indexes record 0's material colour entry: a MAT3 as a
    Nintendo pool makes it."""
    mats = [mm.material("a", color=(10, 20, 30, 40)), mm.material("b", color=(10, 20, 30, 40)),
            mm.material("c", color=(1, 2, 3, 4))]
    body = bytearray(mm.mat3_body(mats))
    remap = struct.unpack_from(">I", body, 0x10 - 8)[0] - 8
    records = struct.unpack_from(">I", body, 0x0C - 8)[0] - 8
    struct.pack_into(">3H", body, remap, 0, 0, 1)          # materials 0, 1 -> record 0
    struct.pack_into(">H", body, records + 0x14C + 0x08, 0)  # record 1's colour 0 -> entry 0 (shared)
    return bytes(body)


GENERATED = {
    "mesh_model": lambda: mm.mesh_model(),
    "mesh_model_bdl": lambda: mm.mesh_model(kind="bdl"),
    "mesh_model_unordered": lambda: mm.mesh_model(unordered=True),
    "rich_materials": lambda: _with_mat3(mm.mat3_body(mm.rich_materials())),
    "rich_materials_7": lambda: _with_mat3(mm.mat3_body(mm.rich_materials(count=7, seed=5))),
    "mat3_body_default": lambda: _with_mat3(mm.mat3_body([mm.material()])),
    "shared": lambda: _with_mat3(_shared_mat3()),
}

ATTRS = None


def _attrs(mat):
    global ATTRS
    if ATTRS is None:
        ATTRS = [a for a in dir(mat) if not a.startswith("_") and not callable(getattr(mat, a))]
    return {a: getattr(mat, a) for a in ATTRS}


# what each colour kind shows up as on Material
KIND_ATTRS = {
    "colors": {"mat_colors", "colors"},
    "ambient_colors": {"amb_colors", "ambient_colors"},
    "tev_colors": {"tev_colors", "tev_colors_raw"},
    "konst_colors": {"konst_colors", "konst_colors_raw"},
}


# ---------------------------------------------------------------- MAT3 parsing (independent)


def _mat3_table(chunk, field):
    """(offset, bytes up to the next larger table offset) of a MAT3 table."""
    offs = [struct.unpack_from(">I", chunk, f)[0] for f in range(0x0C, 0x84, 4)]
    at = struct.unpack_from(">I", chunk, field)[0]
    nxt = min([o for o in offs if o > at] + [len(chunk)])
    return at, chunk[at:nxt]


def _record_of(chunk, i):
    _, remap = _mat3_table(chunk, 0x10)
    r = struct.unpack_from(">H", remap, 2 * i)[0]
    _, recs = _mat3_table(chunk, 0x0C)
    return r, recs[r * 0x14C:(r + 1) * 0x14C]


# ---------------------------------------------------------------- relayout


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_unedited_relayout_writes_the_stored_chunk(name):
    model = gameanim.load_model(GENERATED[name]())
    assert model._encode_mat3(regenerate=False) == dict(model.chunks)["MAT3"]


def test_relayout_keeps_unknown_prefix_and_aliased_tables():
    body = bytearray(mm.mat3_body([mm.material()]))
    # the light table (0x30, never read) aliases the ambient table: both
    # offsets equal; the engine must keep them aliased and the bytes intact
    struct.pack_into(">I", body, 0x30 - 8, struct.unpack_from(">I", body, 0x2C - 8)[0])
    model = gameanim.load_model(_with_mat3(bytes(body)))
    stored = dict(model.chunks)["MAT3"]
    assert model._encode_mat3(regenerate=False) == stored


# ---------------------------------------------------------------- set_material_colors


NEW = {
    "colors": [(201, 202, 203, 204), (5, 6, 7, 8)],
    "ambient_colors": [(11, 12, 13, 14), (21, 22, 23, 24)],
    "tev_colors": [(-1024, 1023, -1, 300), (0, 1, 2, 3), (-32768, 32767, 5, -5), (100, -100, 7, 9)],
    "konst_colors": [(1, 2, 3, 4), (50, 60, 70, 80), (255, 0, 255, 0), (9, 8, 7, 6)],
}

CURRENT = {"colors": "mat_colors", "ambient_colors": "amb_colors", "tev_colors": "tev_colors",
           "konst_colors": "konst_colors"}


@pytest.mark.parametrize("kind", sorted(NEW))
@pytest.mark.parametrize("name", ["rich_materials", "mesh_model", "shared"])
def test_each_colour_kind_is_set_and_nothing_else_moves(kind, name):
    model = gameanim.load_model(GENERATED[name]())
    before = [_attrs(m) for m in model.materials]
    target = 1
    model.set_material_colors(target, **{kind: NEW[kind]})
    after = [_attrs(m) for m in model.materials]
    assert len(after) == len(before)
    assert tuple(tuple(c) for c in getattr(model.materials[target], CURRENT[kind])) == \
        tuple(tuple(c) for c in NEW[kind])
    for i, (b, a) in enumerate(zip(before, after)):
        for attr in ATTRS:
            if i == target and (attr in KIND_ATTRS[kind] or attr == "entry"):
                continue
            assert a[attr] == b[attr], (i, attr)


def test_a_shorter_sequence_sets_the_first_entries():
    model = gameanim.load_model(GENERATED["rich_materials"]())
    old = model.materials[2].konst_colors
    model.set_material_colors(2, konst_colors=[(7, 7, 7, 7)])
    assert model.materials[2].konst_colors == ((7, 7, 7, 7),) + tuple(old[1:])


def test_a_shared_pool_entry_is_never_edited():
    model = gameanim.load_model(GENERATED["shared"]())
    old_chunk = dict(model.chunks)["MAT3"]
    at, colours = _mat3_table(old_chunk, 0x20)
    # material 2's record points at entry 0, as record 0 does
    assert struct.unpack_from(">H", _record_of(old_chunk, 2)[1], 0x08)[0] == 0
    model.set_material_colors(2, colors=[(99, 98, 97, 96)])
    chunk = dict(model.chunks)["MAT3"]
    _, new_colours = _mat3_table(chunk, 0x20)
    assert new_colours[:4] == colours[:4] == bytes((10, 20, 30, 40))
    r, rec = _record_of(chunk, 2)
    index = struct.unpack_from(">H", rec, 0x08)[0]
    assert new_colours[4 * index:4 * index + 4] == bytes((99, 98, 97, 96))
    assert model.materials[0].mat_colors[0] == model.materials[1].mat_colors[0] == (10, 20, 30, 40)
    assert model.materials[2].mat_colors[0] == (99, 98, 97, 96)


def test_an_identical_entry_is_reused():
    model = gameanim.load_model(GENERATED["shared"]())
    _, colours = _mat3_table(dict(model.chunks)["MAT3"], 0x20)
    model.set_material_colors(2, colors=[(10, 20, 30, 40)])  # entry 0's value
    chunk = dict(model.chunks)["MAT3"]
    assert struct.unpack_from(">H", _record_of(chunk, 2)[1], 0x08)[0] == 0
    assert _mat3_table(chunk, 0x20)[1].rstrip(b"\0")[:len(colours.rstrip(b"\0"))] == colours.rstrip(b"\0")


def test_a_shared_init_record_is_split_before_the_edit():
    model = gameanim.load_model(GENERATED["shared"]())
    assert model.materials[0].entry == model.materials[1].entry == 0
    before = [_attrs(m) for m in model.materials]
    _, recs = _mat3_table(dict(model.chunks)["MAT3"], 0x0C)
    nrec = 2
    model.set_material_colors(1, ambient_colors=[(1, 1, 1, 1)])
    mats = model.materials
    assert mats[0].entry == 0 and mats[1].entry == nrec  # its own copy, appended
    assert mats[1].amb_colors[0] == (1, 1, 1, 1)
    assert _attrs(mats[0]) == before[0] and _attrs(mats[2]) == before[2]
    chunk = dict(model.chunks)["MAT3"]
    # record 0 is byte-identical; the copy differs only in the ambient index
    _, new_recs = _mat3_table(chunk, 0x0C)
    assert new_recs[:0x14C] == recs[:0x14C]
    copy = new_recs[nrec * 0x14C:(nrec + 1) * 0x14C]
    diff = [k for k in range(0x14C) if copy[k] != recs[k]]
    assert diff and all(0x14 <= k < 0x16 for k in diff)
    # a second edit of material 1 reuses its own record
    model.set_material_colors(1, ambient_colors=[(2, 2, 2, 2)])
    assert model.materials[1].entry == nrec and model.materials[0].amb_colors == before[0]["amb_colors"]


def test_edited_model_writes_what_it_decodes():
    model = gameanim.load_model(GENERATED["rich_materials"]())
    model.set_material_colors(0, colors=[(1, 2, 3, 4)], tev_colors=[(5, 6, 7, 8)])
    chunk = dict(model.chunks)["MAT3"]
    assert len(chunk) % 32 == 0
    assert model._encode_mat3(regenerate=False) == chunk
    # grown tables are padded with Nintendo's text
    assert b"This is padding" in chunk or all(struct.unpack_from(">I", chunk, f)[0] % 4 == 0
                                              for f in range(0x0C, 0x84, 4))
    fresh = gameanim.load_model(_replace_body(GENERATED["rich_materials"](), "MAT3", chunk[8:]))
    assert [_attrs(m) for m in fresh.materials] == [_attrs(m) for m in model.materials]


# ---------------------------------------------------------------- errors


def test_errors_leave_the_model_as_it_was():
    model = gameanim.load_model(GENERATED["rich_materials"]())
    chunk = dict(model.chunks)["MAT3"]
    n = len(model.materials)
    with pytest.raises(IndexError):
        model.set_material_colors(n, colors=[(1, 2, 3, 4)])
    with pytest.raises(IndexError):
        model.set_material_colors(-1, colors=[(1, 2, 3, 4)])
    with pytest.raises(ValueError, match="colors holds 3"):
        model.set_material_colors(0, colors=[(1, 2, 3, 4)] * 3)
    with pytest.raises(ValueError, match="konst_colors holds 5"):
        model.set_material_colors(0, konst_colors=[(1, 2, 3, 4)] * 5)
    with pytest.raises(ValueError, match="outside 0..255"):
        model.set_material_colors(0, ambient_colors=[(1, 2, 3, 256)])
    with pytest.raises(ValueError, match="outside 0..255"):
        model.set_material_colors(0, konst_colors=[(-1, 2, 3, 4)])
    with pytest.raises(ValueError, match="outside -32768..32767"):
        model.set_material_colors(0, tev_colors=[(0, 0, 0, 32768)])
    with pytest.raises(ValueError, match="4 ints"):
        model.set_material_colors(0, colors=[(1, 2, 3)])
    with pytest.raises(TypeError):
        model.set_material_colors(0, colors="red")
    with pytest.raises(TypeError):
        model.set_material_colors(0, colors=[(1, 2, 3, "a")])
    assert dict(model.chunks)["MAT3"] == chunk


def test_models_without_materials_refuse():
    sm = gameanim.load_model(mm.write_sm64ds_bmd([mm.sm64ds_bone("r")]))
    with pytest.raises(ValueError, match="J3D"):
        sm.set_material_colors(0, colors=[(1, 2, 3, 4)])
    bare = gameanim.load_model(mm.write_j3d_model([mm.joint("r")], [-1], extra_chunks=()))
    with pytest.raises(IndexError):
        bare.set_material_colors(0, colors=[(1, 2, 3, 4)])


# ---------------------------------------------------------------- BDL MDL3

XF, BP = 0x10, 0x61


def _xf(addr, words):
    return struct.pack(">BHH", XF, len(words) - 1, addr) + b"".join(struct.pack(">I", w) for w in words)


def _bp(reg, value):
    return struct.pack(">BI", BP, reg << 24 | value & 0xFFFFFF)


def _rgba(c):
    return c[0] << 24 | c[1] << 16 | c[2] << 8 | c[3]


def _pair(x, y, konst):
    return (x & 0x7FF) | (y & 0x7FF) << 12 | (0x800000 if konst else 0)


def _material_dl(mat):
    """A material display list as J3D's load() writes it (texture, TEV,
    colour blocks), with its matColor and tevReg offsets."""
    dl = _bp(0x94, 0x123456)                       # a texture image register
    tev_at = len(dl)
    for s in range(3):                             # C0-C2 from slots 0-2
        r, g, b, a = mat.tev_colors[s]
        dl += _bp(0xE2 + 2 * s, _pair(r, a, 0)) + _bp(0xE3 + 2 * s, _pair(b, g, 0)) * 3
    for k in range(4):                             # K0-K3
        r, g, b, a = mat.konst_colors[k]
        dl += _bp(0xE0 + 2 * k, _pair(r, a, 1)) + _bp(0xE1 + 2 * k, _pair(b, g, 1))
    dl += _bp(0xF3, 0x3F0000)                      # alpha compare
    mat_at = len(dl)
    dl += _xf(0x100C, [_rgba(c) for c in mat.mat_colors])
    dl += _xf(0x100A, [_rgba(c) for c in mat.amb_colors])
    dl += _xf(0x100E, [0, 0, 0, 0])
    dl += b"\0" * (-len(dl) % 32)
    return dl, mat_at, tev_at


def _mdl3_body(mats, share=None):
    """MDL3 (tww J3DMaterialDLBlock): header, DL table {offset from the
    entry, size}, patch table (6 u16 + 4 pad), then the lists, 32-aligned.
    share=(i, j): material j's entry points at material i's list."""
    n = len(mats)
    lists = [_material_dl(m) for m in mats]
    head = 0x40
    dl_tab, patch_tab = head, head + 8 * n
    data_at = patch_tab + 16 * n
    data_at += -data_at % 32
    table, patches, blob = b"", b"", b""
    starts = []
    for i, (dl, mat_at, tev_at) in enumerate(lists):
        starts.append(data_at + len(blob))
        blob += dl
    for i, (dl, mat_at, tev_at) in enumerate(lists):
        src = share[0] if share and i == share[1] else i
        table += struct.pack(">II", starts[src] - (dl_tab + 8 * i), len(lists[src][0]))
        patches += struct.pack(">6H4x", lists[src][1], 0, 0, 0, lists[src][2], 0)
    body = struct.pack(">HH", n, 0xFFFF) + struct.pack(">6I", dl_tab, patch_tab, 0, 0, 0, 0)
    body += b"\xff" * (head - 8 - len(body))
    body += table + patches
    body += b"\0" * (data_at - 8 - len(body))
    return body + blob


def _bdl(share=None):
    data = mm.mesh_model(kind="bdl")
    mats = gameanim.load_model(data).materials
    mdl3 = mm.chunk("MDL3", _mdl3_body(mats, share))
    at = mm.find_chunk(data, b"TEX1")  # MDL3 sits between MAT3 and TEX1
    out = data[:at] + mdl3 + data[at:]
    count = struct.unpack_from(">I", out, 12)[0] + 1
    return out[:8] + struct.pack(">II", len(out), count) + out[16:]


def _decode_dl(chunk, i):
    """Register values the list of material i loads: {('xf', addr): word,
    ('bp', reg, konst): [values in order]}; and the list's span."""
    dl_tab = struct.unpack_from(">I", chunk, 0x0C)[0]
    off, size = struct.unpack_from(">II", chunk, dl_tab + 8 * i)
    start = dl_tab + 8 * i + off
    d, p, regs = chunk[start:start + size], 0, {}
    while p < len(d) and d[p] != 0:
        if d[p] == XF:
            n, addr = struct.unpack_from(">HH", d, p + 1)
            for q in range(n + 1):
                regs[("xf", addr + q)] = struct.unpack_from(">I", d, p + 5 + 4 * q)[0]
            p += 5 + 4 * (n + 1)
        elif d[p] == BP:
            v = struct.unpack_from(">I", d, p + 1)[0]
            reg = v >> 24
            regs.setdefault(("bp", reg, bool(v & 0x800000)), []).append(v & 0x7FF7FF)
            p += 5
        else:
            raise AssertionError("unknown command 0x%02x" % d[p])
    return regs, (start, start + size)


def _s11(v):
    return ((v & 0x7FF) ^ 0x400) - 0x400


def test_bdl_colour_edit_patches_the_material_display_list():
    model = gameanim.load_model(_bdl())
    old = dict(model.chunks)["MDL3"]
    regs0, span = _decode_dl(old, 1)
    other0, other_span = _decode_dl(old, 0)
    new = {"colors": [(1, 2, 3, 4)], "ambient_colors": [(9, 9, 9, 9), (5, 6, 7, 8)],
           "tev_colors": [(-5, 6, 1500, -1500), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)],
           "konst_colors": [(10, 20, 30, 40), (0, 0, 0, 0)]}
    model.set_material_colors(1, **new)
    chunk = dict(model.chunks)["MDL3"]
    assert len(chunk) == len(old)
    regs, _ = _decode_dl(chunk, 1)
    assert regs[("xf", 0x100C)] == 0x01020304 and regs[("xf", 0x100D)] == regs0[("xf", 0x100D)]
    assert regs[("xf", 0x100A)] == 0x09090909 and regs[("xf", 0x100B)] == 0x05060708
    for s in range(3):  # slots 0-2 -> registers C0-C2 (pairs 0xE2.. 0xE7)
        r, g, b, a = new["tev_colors"][s]
        ra, bg = regs[("bp", 0xE2 + 2 * s, False)], regs[("bp", 0xE3 + 2 * s, False)]
        assert ra == [(r & 0x7FF) | (a & 0x7FF) << 12] and bg == [(b & 0x7FF) | (g & 0x7FF) << 12] * 3
        assert (_s11(ra[0]), _s11(ra[0] >> 12)) == (_s11(r), _s11(a))
    for k, (r, g, b, a) in enumerate(new["konst_colors"]):
        assert regs[("bp", 0xE0 + 2 * k, True)] == [r | a << 12]
        assert regs[("bp", 0xE1 + 2 * k, True)] == [b | g << 12]
    for k in (2, 3):  # not set: as before
        assert regs[("bp", 0xE0 + 2 * k, True)] == regs0[("bp", 0xE0 + 2 * k, True)]
    # only bytes inside material 1's list changed, and only value bytes
    changed = [p for p in range(len(old)) if old[p] != chunk[p]]
    assert changed and all(span[0] <= p < span[1] for p in changed)
    assert _decode_dl(chunk, 0)[0] == other0
    # MAT3 agrees
    m = model.materials[1]
    assert m.mat_colors[0] == (1, 2, 3, 4) and m.amb_colors == ((9, 9, 9, 9), (5, 6, 7, 8))
    assert m.konst_colors[:2] == ((10, 20, 30, 40), (0, 0, 0, 0))


def test_bdl_unchanged_value_keeps_its_bytes():
    model = gameanim.load_model(_bdl())
    old = dict(model.chunks)["MDL3"]
    m = model.materials[0]
    r, g, b, a = m.mat_colors[1]
    model.set_material_colors(0, colors=[m.mat_colors[0], (r, g, b, a ^ 1)])
    new = dict(model.chunks)["MDL3"]
    changed = [p for p in range(len(old)) if old[p] != new[p]]
    regs, _ = _decode_dl(new, 0)
    assert regs[("xf", 0x100D)] == _rgba((r, g, b, a ^ 1))
    assert len(changed) == 1  # the one byte of the one changed component


def test_bdl_shared_display_list_is_refused():
    model = gameanim.load_model(_bdl(share=(0, 1)))
    mdl3, mat3 = dict(model.chunks)["MDL3"], dict(model.chunks)["MAT3"]
    with pytest.raises(ValueError, match="shares its display list"):
        model.set_material_colors(1, colors=[(1, 2, 3, 4)])
    assert dict(model.chunks)["MDL3"] == mdl3 and dict(model.chunks)["MAT3"] == mat3


def test_bdl_tev_slot_3_is_not_in_the_list_and_is_allowed():
    model = gameanim.load_model(_bdl())
    old = dict(model.chunks)["MDL3"]
    cur = model.materials[0].tev_colors
    model.set_material_colors(0, tev_colors=list(cur[:3]) + [(7, 7, 7, 7)])
    assert model.materials[0].tev_colors[3] == (7, 7, 7, 7)
    assert dict(model.chunks)["MDL3"] == old


def test_bdl_without_the_load_refuses():
    data = _bdl()
    chunk = _chunk(data, "MDL3")
    # material 0's matColor patch offset now points at the texture command
    patch_tab = struct.unpack_from(">I", chunk, 0x10)[0]
    body = bytearray(chunk[8:])
    struct.pack_into(">H", body, patch_tab - 8, 0)
    model = gameanim.load_model(_replace_body(data, "MDL3", bytes(body)))
    with pytest.raises(ValueError, match="no material colour 0 load"):
        model.set_material_colors(0, colors=[(1, 2, 3, 4)])
    model.set_material_colors(0, konst_colors=[(1, 2, 3, 4)])  # the tevReg loads are still found
    assert model.materials[0].konst_colors[0] == (1, 2, 3, 4)


def test_bdl_bad_mdl3_is_a_format_error():
    data = _bdl()
    chunk = _chunk(data, "MDL3")
    body = bytearray(chunk[8:])
    struct.pack_into(">I", body, 0x0C - 8, 0xFFFFFF00)
    model = gameanim.load_model(_replace_body(data, "MDL3", bytes(body)))
    with pytest.raises(gameanim.FormatError, match="MDL3"):
        model.set_material_colors(0, colors=[(1, 2, 3, 4)])


def test_bdl_bad_mdl3_errors_name_the_field_and_offset():
    """The colour patch reads MDL3's header (count at 0x08, the list table
    offset at 0x0C) and material 0's list entry {offset from the entry,
    size}; each failure names its field and file offset (the chunk's
    place + the field's)."""
    data = _bdl()
    at = mm.find_chunk(data, b"MDL3")
    chunk = _chunk(data, "MDL3")
    dl_tab = struct.unpack_from(">I", chunk, 0x0C)[0]
    cases = [
        (0x08, ">H", 0, "MDL3 material count", at + 8),
        (0x0C, ">I", 0xFFFFFF00, "MDL3 table offset", at + 0x0C),
        (dl_tab + 4, ">I", 0x7FFFFFFF, "MDL3 display list", at + dl_tab),  # material 0's list size
    ]
    for where, fmt, value, field, offset in cases:
        body = bytearray(chunk[8:])
        struct.pack_into(fmt, body, where - 8, value)
        model = gameanim.load_model(_replace_body(data, "MDL3", bytes(body)))
        with pytest.raises(gameanim.FormatError) as e:
            model.set_material_colors(0, colors=[(1, 2, 3, 4)])
        assert (e.value.field, e.value.offset) == (field, offset), str(e.value)


# ---------------------------------------------------------------- material copies (add_mesh)


@pytest.mark.parametrize("name", ["rich_materials", "mesh_model", "shared"])
def test_a_material_copy_is_a_new_instance_of_the_same_record(name):
    model = gameanim.load_model(GENERATED[name]())
    before = [_attrs(m) for m in model.materials]
    k = 1
    new = model._add_material_copy(k)
    assert new == len(before)
    mats = model.materials
    assert [_attrs(m) for m in mats[:new]] == before
    copy = _attrs(mats[new])
    assert copy["index"] == new
    assert {a: v for a, v in copy.items() if a != "index"} == {a: v for a, v in before[k].items() if a != "index"}
    # editing the copy leaves the original alone
    model.set_material_colors(new, konst_colors=[(3, 1, 4, 1)])
    assert model.materials[new].konst_colors[0] == (3, 1, 4, 1)
    assert _attrs(model.materials[k]) == before[k]


def test_a_material_copy_takes_a_name():
    model = gameanim.load_model(GENERATED["mesh_model"]())
    new = model._add_material_copy(0, "added")
    assert model.materials[new].name == "added"
    assert [m.name for m in model.materials[:new]] == ["body", "head"]
    _, names = _mat3_table(dict(model.chunks)["MAT3"], 0x14)
    assert struct.unpack_from(">H", names, 0)[0] == 3
    assert [struct.unpack_from(">H", names, 4 + 4 * q)[0] for q in range(3)] == \
        [mm.name_hash(n) for n in (b"body", b"head", b"added")]
    with pytest.raises(IndexError):
        model._add_material_copy(5)


# ---------------------------------------------------------------- regenerate


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_regenerated_mat3_decodes_to_equal_materials(name):
    data = GENERATED[name]()
    model = gameanim.load_model(data)
    chunk = model._encode_mat3()
    assert chunk[:4] == b"MAT3" and len(chunk) % 32 == 0
    fresh = gameanim.load_model(_replace_body(data, "MAT3", chunk[8:]))
    assert [_attrs(m) for m in fresh.materials] == [_attrs(m) for m in model.materials]
    # pooled: no table holds the same entry twice (colour tables checked)
    for field, size in ((0x20, 4), (0x54, 4), (0x50, 8)):
        at = struct.unpack_from(">I", chunk, field)[0]
        if not at:
            continue
        n = 0
        entries = set()
        _, blob = _mat3_table(chunk, field)
        while (n + 1) * size <= len(blob) and not blob[n * size:].startswith(b"This"):
            entries.add(blob[n * size:(n + 1) * size])
            n += 1
        assert len(entries) == n
