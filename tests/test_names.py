"""Names keep the bytes the file stores them with (issue 24).

A name is bytes in the file and str in Python.  Its codec need not give the
same bytes back: CP932 (J3D) decodes FA 79 to U+5070, which it encodes as
ED 5D, FB 54 to U+7104 (ED F5) and 87 90 to U+2252 (81 E0).  A loaded file
must still be unmodified and write back byte for byte; an edit elsewhere
must leave every name as stored, and renaming one name encodes that one
only.  The files are made by the project's encoders, then their names
byte-edited; the names are read back here with a small reader of our own.
"""
import struct
import warnings

import pytest

import gameanim
from test_jba import small_file

# (stored bytes of a BTK material name, post-texgen section)
BTK_NAMES = [
    (b"mat\xfa\x79", False),  # FA 79 -> U+5070 -> ED 5D
    (b"\xfb\x54tex", False),  # FB 54 -> U+7104 -> ED F5
    (b"a\x87\x90b", False),   # 87 90 -> U+2252 -> 81 E0
    (b"plain", False),
    (b"bad\x81", False),      # a lead byte without its trail byte: does not decode
    (b"\xfa\x79post", True),  # the post-texgen section's own name table
]


def quiet_bytes(anim, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        return anim.to_bytes(**kw)


def j3d_hash(raw):
    """The J3D name hash over the stored bytes (signed chars)."""
    h = 0
    for byte in raw:
        h = (h * 3 + (byte - 256 if byte >= 128 else byte)) & 0xFFFF
    return h


def btk_name_tables(data):
    """[(hash, stored bytes, offset)] of the main then the post name table."""
    c = 0x20
    assert data[c:c + 4] == b"TTK1"
    out = []
    for count_at, names_at in ((0x0C, 0x1C), (0x34, 0x44)):
        n = struct.unpack_from(">H", data, c + count_at)[0] // 3
        if not n:
            continue
        table = c + struct.unpack_from(">I", data, c + names_at)[0]
        assert struct.unpack_from(">H", data, table)[0] == n
        for i in range(n):
            h, off = struct.unpack_from(">HH", data, table + 4 + 4 * i)
            end = data.index(b"\0", table + off)
            out.append((h, data[table + off:end], table + off))
    return out


def patch_names(data, stored):
    """Replaces the placeholder names (same length, unique) by the stored
    bytes, and their hashes, as a file made elsewhere would have them."""
    data = bytearray(data)
    for ph, raw in stored.items():
        assert len(ph) == len(raw) and data.count(ph) == 1
        at = data.index(ph)
        data[at:at + len(raw)] = raw
    # the hashes of the patched names, read back through our own reader
    c = 0x20
    for count_at, names_at in ((0x0C, 0x1C), (0x34, 0x44)):
        n = struct.unpack_from(">H", data, c + count_at)[0] // 3
        table = c + struct.unpack_from(">I", data, c + names_at)[0] if n else 0
        for i in range(n):
            off = struct.unpack_from(">H", data, table + 6 + 4 * i)[0]
            raw = bytes(data[table + off:data.index(b"\0", table + off)])
            struct.pack_into(">H", data, table + 4 + 4 * i, j3d_hash(raw))
    return bytes(data)


def placeholder(i, n):
    return (b"~%d" % i + b"~" * n)[:n]


@pytest.fixture(scope="module")
def btk_file():
    entries, tracks, stored = [], [], {}
    for i, (raw, post) in enumerate(BTK_NAMES):
        ph = placeholder(i, len(raw))
        stored[ph] = raw
        entries.append({"material": ph.decode(), "texmtx_id": i, "center": (0.5, 0.5, 0.5), "post": post})
        tracks.append(gameanim.Track(i, "translation", 0, [0.0, 10.0], [0.0, 1.0 + i]))
    data = quiet_bytes(gameanim.Animation("btk", tracks, frame_count=10, entries=entries))
    data = patch_names(data, stored)
    assert [raw for _, raw, _ in btk_name_tables(data)] == [raw for raw, _ in BTK_NAMES]
    return data


def test_btk_names_are_the_decoded_text(btk_file):
    anim = gameanim.load(btk_file)
    assert anim.info["name_hashes_valid"] == 1
    assert [e["material"] for e in anim.entries] == [
        raw.decode("cp932", "surrogateescape") for raw, _ in BTK_NAMES]
    # the three codes whose character encodes back to other bytes
    assert [e["material"].encode("cp932") for e in anim.entries[:3]] == [
        b"mat\xed\x5d", b"\xed\xf5tex", b"a\x81\xe0b"]


def test_btk_with_such_names_is_unmodified_and_writes_back_exactly(btk_file):
    anim = gameanim.load(btk_file)
    assert not anim.is_modified()
    assert anim.to_bytes() == btk_file
    assert anim.to_bytes(reencode="raw") == btk_file
    anim.tracks  # Track objects and entries both go through Python
    assert not anim.is_modified()
    assert anim.to_bytes() == btk_file
    # the same text given again is no change either
    for e in anim.entries:
        e["material"] = "".join(list(e["material"]))
    assert not anim.is_modified()
    assert anim.to_bytes() == btk_file


def test_btk_edit_of_another_track_keeps_every_name_as_stored(btk_file):
    before = btk_name_tables(btk_file)
    anim = gameanim.load(btk_file)
    t = anim.find(2, "translation", 0)
    t.values = [0.0, 7.25]
    assert anim.is_modified()
    out = quiet_bytes(anim)
    assert out != btk_file
    after = btk_name_tables(out)
    assert [(h, raw) for h, raw, _ in after] == [(h, raw) for h, raw, _ in before]
    for h, raw, at in after:
        assert out[at:at + len(raw) + 1] == raw + b"\0"
    back = gameanim.load(out)
    assert [e["material"] for e in back.entries] == [e["material"] for e in anim.entries]
    assert back.find(2, "translation", 0).values[1] == 7.25


def test_btk_renaming_one_name_encodes_only_that_one(btk_file):
    anim = gameanim.load(btk_file)
    anim.entries[3]["material"] = "\u5070new"  # U+5070 typed by the user: encoded as ED 5D
    assert anim.is_modified()
    out = quiet_bytes(anim)
    names = btk_name_tables(out)
    want = [raw for raw, _ in BTK_NAMES]
    want[3] = b"\xed\x5dnew"
    assert [raw for _, raw, _ in names] == want
    assert [h for h, _, _ in names] == [j3d_hash(raw) for raw in want]
    # and back to its text: the file again, byte for byte
    anim.entries[3]["material"] = "plain"
    assert not anim.is_modified()
    assert anim.to_bytes() == btk_file


def test_btk_moved_names_keep_their_stored_bytes(btk_file):
    anim = gameanim.load(btk_file)
    main = [e for e in anim.entries if not e["post"]]
    post = [e for e in anim.entries if e["post"]]
    anim.entries = main[::-1] + post
    out = quiet_bytes(anim)
    want = [raw for raw, post in BTK_NAMES if not post][::-1] + [raw for raw, post in BTK_NAMES if post]
    assert [raw for _, raw, _ in btk_name_tables(out)] == want


def test_a_new_btk_encodes_its_names():
    entries = [{"material": "\u5070", "texmtx_id": 0, "center": (0.5, 0.5, 0.5)}]
    data = quiet_bytes(gameanim.Animation("btk", [], frame_count=1, entries=entries))
    assert [raw for _, raw, _ in btk_name_tables(data)] == [b"\xed\x5d"]


# ---- JBA bone names ----------------------------------------------------

JBA_NAMES = [b"\x87\x90GOD", b"B\xed\xa0\x80\xff\xc0."]  # not UTF-8: a surrogate, FF, an overlong lead


def jba_name_table(data, layout):
    """{channel: (stored bytes, offset)} from the string table at the end."""
    nb = 2
    for p in range(len(data) - 20, 0, -1):
        if struct.unpack_from("<I", data, p)[0] != nb:
            continue
        strlen = struct.unpack_from("<I", data, p + 4)[0]
        fmt, hdr = ("<3I", 20) if layout == 32 else ("<3Q", 32)
        ids, offs, dat = struct.unpack_from(fmt, data, p + 8)
        if ids != hdr or offs != hdr + 4 * nb or dat != hdr + 8 * nb or p + dat + strlen != len(data):
            continue
        out = {}
        for i in range(nb):
            cid = struct.unpack_from("<I", data, p + ids + 4 * i)[0]
            so = struct.unpack_from("<I", data, p + offs + 4 * i)[0]
            at = p + dat + so
            out[cid] = (data[at:data.index(b"\0", at)], at)
        return out
    raise AssertionError("no name table")


def jba_file(layout):
    phs = [placeholder(i, len(raw)) for i, raw in enumerate(JBA_NAMES)]
    data = bytearray(small_file(layout, names=[ph.decode() for ph in phs]))
    for ph, raw in zip(phs, JBA_NAMES):
        assert data.count(ph) == 1
        at = data.index(ph)
        data[at:at + len(raw)] = raw
    data = bytes(data)
    assert [jba_name_table(data, layout)[i][0] for i in range(2)] == JBA_NAMES
    return data


@pytest.mark.parametrize("layout", [32, 64])
def test_jba_odd_bone_names_write_back_exactly(layout):
    data = jba_file(layout)
    anim = gameanim.load(data)
    assert not anim.is_modified()
    assert anim.to_bytes() == data
    targets = {t.target for t in anim.tracks}
    assert {raw.decode("utf-8", "surrogateescape") for raw in JBA_NAMES} <= targets
    assert not anim.is_modified()
    assert anim.to_bytes() == data


@pytest.mark.parametrize("layout", [32, 64])
def test_jba_edit_of_another_track_keeps_the_bone_names(layout):
    data = jba_file(layout)
    anim = gameanim.load(data)
    other = JBA_NAMES[0].decode("utf-8", "surrogateescape")
    t = anim.find(other, "translation", 0)
    vals = list(t.values)
    vals[1] += 0.5
    t.values = vals
    out = quiet_bytes(anim)
    assert out != data
    names = jba_name_table(out, layout)
    assert [names[i][0] for i in range(2)] == JBA_NAMES
    for raw, at in names.values():
        assert out[at:at + len(raw) + 1] == raw + b"\0"


@pytest.mark.parametrize("layout", [32, 64])
def test_jba_renaming_one_bone_encodes_only_that_one(layout):
    data = jba_file(layout)
    anim = gameanim.load(data)
    old = JBA_NAMES[1].decode("utf-8", "surrogateescape")
    for t in anim.tracks:
        if t.target == old:
            t.target = "Bip01 \u00e9"
    assert anim.is_modified()
    out = quiet_bytes(anim)
    names = jba_name_table(out, layout)
    assert [names[i][0] for i in range(2)] == [JBA_NAMES[0], "Bip01 \u00e9".encode()]
