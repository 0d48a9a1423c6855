"""The mesh decoder's layout rules (docs/meshes.md "Layout rules"): what the
GX can draw decodes, whatever order or leftovers the file holds; only what
the hardware cannot draw is refused.  Expected meshes are computed by
tests/test_meshes.py's independent reference (check_shape) from what the
test wrote."""
import random
import struct
import sys
from pathlib import Path

import pytest

import gameanim

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import test_meshes as tm  # noqa: E402
from tools import make_models as mm  # noqa: E402
from tools.make_models import CLR0, DIRECT, INDEX16, NRM, PNMTXIDX, POS, TEX0  # noqa: E402

MESH_FIELDS = ("positions", "normals", "colors", "color_channels", "uvs", "uv_channels", "triangles", "influences",
               "joints", "weights", "position_indices", "draw_indices", "material", "matrix_type", "corner_uvs",
               "groups")


def descriptor_lists(data):
    """Each shape's vertex descriptor list as the file names it (attribute
    ids, read here with struct from the SHP1 layout in the notes)."""
    s = mm.find_chunk(data, b"SHP1")
    count, = struct.unpack_from(">H", data, s + 8)
    shapes, descs = (s + struct.unpack_from(">I", data, s + o)[0] for o in (0x0C, 0x18))
    out = []
    for i in range(count):
        at = descs + struct.unpack_from(">H", data, shapes + 0x28 * i + 4)[0]
        ids = []
        while struct.unpack_from(">I", data, at)[0] != 0xFF:
            ids.append(struct.unpack_from(">I", data, at)[0])
            at += 8
        out.append(ids)
    return out


def test_the_unordered_test_model_decodes_to_the_same_meshes_as_the_ordered_one():
    ordered, unordered = mm.mesh_model(), mm.mesh_model(unordered=True)
    lists = descriptor_lists(unordered)
    assert any(ids != sorted(ids) for ids in lists), lists  # the fixture really is out of order
    assert [sorted(ids) for ids in lists] == descriptor_lists(ordered)
    a, b = gameanim.load_model(ordered).meshes, gameanim.load_model(unordered).meshes
    assert len(a) == len(b) == 2
    for x, y in zip(a, b):
        for f in MESH_FIELDS:
            assert getattr(x, f) == getattr(y, f), f


@pytest.mark.parametrize("seed", range(4))
def test_any_list_order_reads_the_display_list_in_gx_order(seed):
    rng = random.Random(seed)
    scene = tm.scene_base(rng)
    attrs = [(PNMTXIDX, DIRECT)] + tm.STD_ATTRS
    listed = attrs[:]
    while listed == attrs:
        rng.shuffle(listed)
    strip = [(3 * (i % 3),) + tm.v4(i) for i in range(7)]
    scene["shapes"] = [mm.shape(attrs, [mm.packet([0, 3, 5], [("strip", strip)])], matrix_type=3, listed=listed)]
    tm.check_shape(gameanim.load_model(tm.build(scene)), scene, 0, 200.0)


def shape_scene():
    """A one-shape scene's bytes and the offset of its descriptor's end record."""
    scene = tm.scene_base(random.Random(3))
    scene["shapes"] = [mm.shape(tm.STD_ATTRS, [mm.packet([2], [("triangles", [tm.v4(i) for i in range(6)])])])]
    data = bytearray(tm.build(scene))
    s = mm.find_chunk(data, b"SHP1")
    descs = s + struct.unpack_from(">I", data, s + 0x18)[0]
    end = descs + 8 * len(tm.STD_ATTRS)
    assert struct.unpack_from(">I", data, end)[0] == 0xFF
    return scene, data, end


def test_an_attribute_listed_twice_is_refused():
    """The GX keeps one descriptor field per attribute: a list naming one
    twice does not say which of its two entries the hardware holds."""
    scene, data, end = shape_scene()
    struct.pack_into(">II", data, end - 8, NRM, INDEX16)  # TEX0's entry becomes a second NRM
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load_model(bytes(data)).meshes
    assert e.value.field == "SHP1 vertex attribute" and "listed twice" in str(e.value)
    assert e.value.offset == end - 8


def vtx1_mutated(fn):
    scene = tm.scene_base(random.Random(4))
    scene["shapes"] = [mm.shape([(POS, INDEX16), (CLR0, INDEX16)],
                                [mm.packet([1], [("strip", [(i, i) for i in range(5)])])])]
    data = bytearray(tm.build(scene))
    v = mm.find_chunk(data, b"VTX1")
    fn(data, v, v + struct.unpack_from(">I", data, v + 8)[0])
    return scene, bytes(data)


def slot_offset(slot):
    return 0x0C + 4 * slot  # VTX1 array offsets: POS, NRM, NBT, CLR0, CLR1, TEX0..7


@pytest.mark.parametrize("what, fn", [
    # NRM (listed in VTX1, unused by the shape) has a format but no array
    ("format without array", lambda d, v, f: struct.pack_into(">I", d, v + slot_offset(1), 0)),
    # unused slots' offsets point anywhere
    ("unused slot past the chunk", lambda d, v, f: struct.pack_into(">I", d, v + slot_offset(12), 0x7FFFFFF0)),
    # a format record for a matrix index (always inline: the GX has no format for it)
    ("matrix index format", lambda d, v, f: struct.pack_into(">I", d, f + 16, PNMTXIDX)),
])
def test_vtx1_leftovers_no_shape_reads_are_accepted(what, fn):
    scene, data = vtx1_mutated(fn)
    tm.check_shape(gameanim.load_model(data), scene, 0, 200.0)


def test_a_shape_using_an_attribute_without_array_is_refused():
    """The refusal moves to the shape that indexes the missing array."""
    scene, data = vtx1_mutated(lambda d, v, f: struct.pack_into(">I", d, v + slot_offset(3), 0))  # CLR0
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load_model(data).meshes
    assert e.value.field == "SHP1 vertex attribute" and "CLR0" in str(e.value)


def test_the_unordered_model_is_a_fuzz_seed():
    assert "j3d_mesh_unordered.bmd" in mm.seed_models()
    seed = Path(__file__).resolve().parents[1] / "fuzz" / "corpus" / "model" / "j3d_mesh_unordered.bmd"
    assert seed.read_bytes() == mm.mesh_model(unordered=True)
    assert TEX0 in descriptor_lists(seed.read_bytes())[1]
