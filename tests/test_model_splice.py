"""The splice under every model edit (issue 34): Model._replace_chunk puts a
whole new chunk in place, fixes the file size and every later chunk's
offset, and decodes the model afresh; bad chunks are refused and leave the
model as it was."""
import struct

import pytest

import gameanim
from model_fixtures import make_models


def _jnt1_with_translation(chunk: bytes, joint: int, x: float) -> bytes:
    # JNT1: u16 count at 8, record table offset at 0xC; 0x40-byte records,
    # translation x at 0x18 of a record (j3d_writer.md, JNT1)
    table = struct.unpack_from(">I", chunk, 0xC)[0]
    at = table + 0x40 * joint + 0x18
    return chunk[:at] + struct.pack(">f", x) + chunk[at + 4:]


def _grown(chunk: bytes, extra: int) -> bytes:
    body = chunk + b"\0" * extra
    return body[:4] + struct.pack(">I", len(body)) + body[8:]


def test_replacing_a_chunk_changes_what_decodes_and_nothing_else():
    data = make_models.mesh_model()
    model = gameanim.load_model(data)
    chunks = model.chunks
    index = [t for t, _ in chunks].index("JNT1")
    before = [b.translation for b in model.bones]
    model._replace_chunk(index, _jnt1_with_translation(chunks[index][1], 1, 123.5))
    assert model.bones[1].translation[0] == 123.5
    assert [b.translation for b in model.bones][2:] == before[2:]
    assert [c for c in model.chunks if c[0] != "JNT1"] == [c for c in chunks if c[0] != "JNT1"]


def test_a_longer_chunk_moves_the_later_chunks_and_the_file_size():
    data = make_models.mesh_model()
    model = gameanim.load_model(data)
    chunks = model.chunks
    index = [t for t, _ in chunks].index("VTX1")
    meshes = model.meshes
    model._replace_chunk(index, _grown(chunks[index][1], 64))
    assert model.chunks[index][1][:4] == b"VTX1" and len(model.chunks[index][1]) == len(chunks[index][1]) + 64
    again = model.meshes  # decoded afresh from the moved chunks
    assert [m.positions for m in again] == [m.positions for m in meshes]
    assert [m.triangles for m in again] == [m.triangles for m in meshes]


@pytest.mark.parametrize("bad", ["tag", "size", "unaligned"])
def test_a_bad_chunk_is_refused_and_the_model_is_unchanged(bad):
    model = gameanim.load_model(make_models.mesh_model())
    chunks = model.chunks
    index = [t for t, _ in chunks].index("JNT1")
    new = chunks[index][1]
    if bad == "tag":
        new = b"XXXX" + new[4:]
    elif bad == "size":
        new = new[:4] + struct.pack(">I", len(new) + 32) + new[8:]
    else:
        new = new[:-4]
        new = new[:4] + struct.pack(">I", len(new)) + new[8:]
    with pytest.raises(ValueError):
        model._replace_chunk(index, new)
    assert model.chunks == chunks


def test_a_chunk_that_does_not_decode_raises_formaterror_and_keeps_the_model():
    model = gameanim.load_model(make_models.mesh_model())
    chunks = model.chunks
    index = [t for t, _ in chunks].index("JNT1")
    broken = chunks[index][1][:8] + b"\xff\xff" + chunks[index][1][10:]  # 65535 joints
    with pytest.raises(gameanim.FormatError):
        model._replace_chunk(index, broken)
    assert model.chunks == chunks and len(model.bones) > 0
