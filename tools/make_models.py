"""Writers for test models: J3D BMD/BDL (JNT1, INF1, optional EVP1/DRW1 and
opaque filler chunks), Super Mario 64 DS BMD bone tables and Banjo-Kazooie
model bins.  Pure Python (struct only), independent of gameanim's C
decoders, so that tests can check the decoders against what was written.
Only the parts a skeleton needs are meaningful; everything else is zeros
or opaque filler.  Layouts: docs/models.md.

    from tools.make_models import joint, write_j3d_model
    data = write_j3d_model([joint("root"), joint("arm", translation=(0, 10, 0))],
                           parents=[-1, 0], calc="maya")
"""
import struct

CALC_RULES = {"basic": 0, "softimage": 1, "maya": 2}

# INF1 hierarchy node types
END, OPEN, CLOSE, JOINT, MATERIAL, SHAPE = 0x00, 0x01, 0x02, 0x10, 0x11, 0x12


def name_hash(name: bytes) -> int:
    """JUTNameTab's hash: h = h * 3 + c over the bytes as signed chars, 16 bits."""
    h = 0
    for c in name:
        h = (h * 3 + (c - 256 if c >= 128 else c)) & 0xFFFF
    return h


def _name_bytes(name):
    return name.encode("cp932") if isinstance(name, str) else bytes(name)


def _pad(data: bytes, align: int, fill: bytes = b"\0") -> bytes:
    n = -len(data) % align
    return data + (fill * n)[:n]


def joint(name="joint", *, scale=(1.0, 1.0, 1.0), rotation_raw=(0, 0, 0), translation=(0.0, 0.0, 0.0), kind=0,
          scale_compensate=0xFF, bound_radius=0.0, bound_min=(0.0, 0.0, 0.0), bound_max=(0.0, 0.0, 0.0),
          name_hash=None):
    """One J3D joint record's values.  rotation_raw: s16, 65536 per turn.
    scale_compensate: the stored byte (1 = yes; 0 and 0xFF = no).
    name_hash: the hash to store (None: the right one)."""
    return dict(name=name, scale=scale, rotation_raw=rotation_raw, translation=translation, kind=kind,
                scale_compensate=scale_compensate, bound_radius=bound_radius, bound_min=bound_min,
                bound_max=bound_max, name_hash=name_hash)


def joint_record(j) -> bytes:
    """The 0x40-byte JNT1 record of a joint() dict."""
    return struct.pack(">HBB3f3hH3ff3f3f", j["kind"], j["scale_compensate"], 0xFF, *j["scale"], *j["rotation_raw"],
                       0xFFFF, *j["translation"], j["bound_radius"], *j["bound_min"], *j["bound_max"])


def name_table(names, hashes=None) -> bytes:
    """A JUTNameTab: {u16 count; u16 0xFFFF; count x {u16 hash, u16 offset}} + NUL-terminated strings."""
    raw = [_name_bytes(n) for n in names]
    hashes = hashes or [None] * len(raw)
    head = struct.pack(">HH", len(raw), 0xFFFF)
    strings = b""
    entries = b""
    base = 4 + 4 * len(raw)
    for n, h in zip(raw, hashes):
        entries += struct.pack(">HH", name_hash(n) if h is None else h, base + len(strings))
        strings += n + b"\0"
    return head + entries + strings


def hierarchy_from_parents(parents, with_shapes=False):
    """INF1 nodes (type, value) for a parent list (-1 = root): depth first,
    children in index order.  with_shapes: each joint also opens a material
    node holding a shape node, with its child joints inside that scope (as
    real models nest them); the parents stay the same."""
    children = {i: [] for i in range(-1, len(parents))}
    for i, p in enumerate(parents):
        children[p].append(i)
    nodes = []

    def visit(j):
        nodes.append((JOINT, j))
        kids = children[j]
        if with_shapes:
            nodes.extend([(OPEN, 0), (MATERIAL, j), (OPEN, 0), (SHAPE, j)])
            for k in kids:
                visit(k)
            nodes.extend([(CLOSE, 0), (CLOSE, 0)])
        elif kids:
            nodes.append((OPEN, 0))
            for k in kids:
                visit(k)
            nodes.append((CLOSE, 0))

    for r in children[-1]:
        visit(r)
    nodes.append((END, 0))
    return nodes


def chunk(tag: str, body: bytes) -> bytes:
    """A J3D chunk: tag, u32 size, body, padded to 32 bytes."""
    size = 8 + len(body)
    size += -size % 32
    return _pad(tag.encode("ascii") + struct.pack(">I", size) + body, 32)


def jnt1_chunk(joints, remap=None, names=True) -> bytes:
    """JNT1 with the joints' records in record order: joint j uses record
    remap[j] (default: j).  A record several joints share holds the first
    such joint's values; a record no joint uses is zeros.  names: False for
    no name table (offset 0)."""
    remap = list(range(len(joints))) if remap is None else list(remap)
    nrec = max(remap) + 1 if remap else 0
    records = [bytes(0x40)] * nrec
    done = set()
    for j, r in enumerate(remap):
        if r not in done:
            records[r] = joint_record(joints[j])
            done.add(r)
    data_off = 0x18
    body_records = b"".join(records)
    remap_off = data_off + len(body_records)
    remap_bytes = _pad(struct.pack(">%dH" % len(remap), *remap), 4)
    names_off = remap_off + len(remap_bytes)
    table = name_table([j["name"] for j in joints], [j["name_hash"] for j in joints]) if names else b""
    head = struct.pack(">HHIII", len(joints), 0xFFFF, data_off, remap_off, names_off if names else 0)
    return chunk("JNT1", head + body_records + remap_bytes + table)


def inf1_chunk(nodes, calc="basic", flags_extra=0, packet_count=0, vertex_count=0) -> bytes:
    """INF1: flags = calc rule | flags_extra, then the hierarchy nodes."""
    rule = CALC_RULES[calc] if isinstance(calc, str) else calc
    head = struct.pack(">HHIII", rule | flags_extra, 0xFFFF, packet_count, vertex_count, 0x18)
    return chunk("INF1", head + b"".join(struct.pack(">HH", t, v) for t, v in nodes))


def evp1_chunk(envelopes, inverse_binds) -> bytes:
    """EVP1: envelopes = [[(joint, weight), ...], ...]; inverse_binds =
    one sequence of 12 floats (3x4 row-major) per joint."""
    counts = bytes(len(e) for e in envelopes)
    idx = b"".join(struct.pack(">H", j) for e in envelopes for j, _ in e)
    wts = b"".join(struct.pack(">f", w) for e in envelopes for _, w in e)
    o_counts = 0x1C
    o_idx = o_counts + len(_pad(counts, 2))
    o_wts = o_idx + len(_pad(idx, 4))
    o_binds = o_wts + len(wts)
    binds = b"".join(struct.pack(">12f", *m) for m in inverse_binds)
    head = struct.pack(">HHIIII", len(envelopes), 0xFFFF, o_counts, o_idx, o_wts, o_binds)
    return chunk("EVP1", head + _pad(counts, 2) + _pad(idx, 4) + wts + binds)


def drw1_chunk(entries) -> bytes:
    """DRW1: entries = [(kind, index), ...], kind 0 = joint, 1 = envelope (True/False work)."""
    kinds = _pad(bytes(int(e) for e, _ in entries), 2)
    idx = b"".join(struct.pack(">H", i) for _, i in entries)
    head = struct.pack(">HHII", len(entries), 0xFFFF, 0x14, 0x14 + len(kinds))
    return chunk("DRW1", head + kinds + idx)


def write_j3d_model(joints, parents=None, *, nodes=None, calc="basic", flags_extra=0, remap=None, names=True,
                    kind="bmd", with_shapes=False, envelopes=None, inverse_binds=None, draw=None,
                    extra_chunks=(("SHP1", b"opaque shape data"), ("MAT3", b"opaque material data"))):
    """A J3D model file (kind 'bmd' -> J3D2bmd3, 'bdl' -> J3D2bdl4).
    joints: joint() dicts in joint-number order.  parents: -1 or the parent
    joint per joint (default: a chain); nodes: explicit INF1 nodes instead.
    envelopes / inverse_binds: an EVP1 chunk (see evp1_chunk); draw: a DRW1
    chunk (see drw1_chunk).  extra_chunks: (tag, body) chunks kept opaque,
    written after JNT1.  Chunk order: INF1, EVP1, DRW1, JNT1, extras."""
    if nodes is None:
        if parents is None:
            parents = [i - 1 for i in range(len(joints))]
        nodes = hierarchy_from_parents(parents, with_shapes)
    chunks = [inf1_chunk(nodes, calc, flags_extra)]
    if envelopes is not None:
        chunks.append(evp1_chunk(envelopes, inverse_binds or []))
    if draw is not None:
        chunks.append(drw1_chunk(draw))
    chunks.append(jnt1_chunk(joints, remap, names))
    chunks += [chunk(t, b) for t, b in extra_chunks]
    body = b"".join(chunks)
    magic = {"bmd": b"J3D2bmd3", "bdl": b"J3D2bdl4"}[kind]
    header = magic + struct.pack(">II", 0x20 + len(body), len(chunks)) + b"SVR3" + b"\xff" * 12
    return header + body


def sm64ds_bone(name="bone", parent=-1, *, scale_fixed=(4096, 4096, 4096), rotation_raw=(0, 0, 0),
                translation_fixed=(0, 0, 0), bone_id=None):
    """One SM64DS bone: parent = index of an earlier bone or -1; 20.12
    fixed-point scale and translation; rotation 4096 per turn; bone_id
    defaults to the bone's index."""
    return dict(name=name, parent=parent, scale_fixed=scale_fixed, rotation_raw=rotation_raw,
                translation_fixed=translation_fixed, bone_id=bone_id)


def write_sm64ds_bmd(bones, scale_shift=0):
    """An SM64DS BMD holding only a bone table (no display lists,
    textures or materials: their counts are 0 and offsets point past the
    table).  Header 13 x u32 (0x34 bytes), table at 0x34, 0x40 per bone,
    the names after it."""
    n = len(bones)
    table = 0x34
    names_at = table + 0x40 * n
    name_blob = b""
    name_offs = []
    for b in bones:
        name_offs.append(names_at + len(name_blob))
        name_blob += _name_bytes(b["name"]) + b"\0"
    end = names_at + len(_pad(name_blob, 4))
    records = b""
    for i, b in enumerate(bones):
        rel_parent = 0 if b["parent"] < 0 else b["parent"] - i
        kids = [k for k in range(n) if bones[k]["parent"] == i]
        later = [k for k in range(i + 1, n) if bones[k]["parent"] == b["parent"]]
        sibling = later[0] - i if later else 0
        records += struct.pack("<IIhHi3i3hH3i", i if b["bone_id"] is None else b["bone_id"], name_offs[i],
                               rel_parent, 1 if kids else 0, sibling, *b["scale_fixed"], *b["rotation_raw"], 0,
                               *b["translation_fixed"])
        records += bytes(0x40 - 0x30)
    header = struct.pack("<13I", scale_shift, n, table, 0, end, 0, end, 0, end, 0, end, end, end)
    return header + records + _pad(name_blob, 4)


def write_bk_model(bones, scale=1.0, *, table=True, extra=b""):
    """A Banjo-Kazooie model bin with only a bone table: bones = [(pivot
    (x, y, z), bone_id, parent), ...] with parent -1 or an earlier index;
    scale: the table's translation scale k.  table False: offset 0 (no
    table).  The 0x38-byte header is zeros apart from the magic 0x0B, the
    geometry layout offset (0x04, pointing at 8 opaque bytes after the
    table: real models always have one) and the table offset (0x18); extra
    bytes follow."""
    header = bytearray(0x38)
    struct.pack_into(">I", header, 0, 0x0B)
    body = b""
    if table:
        struct.pack_into(">I", header, 0x18, 0x38)
        body = struct.pack(">fhH", scale, len(bones), 0)
        for pivot, bone_id, parent in bones:
            body += struct.pack(">3fhh", *pivot, bone_id, parent)
        body = _pad(body, 8)
    struct.pack_into(">I", header, 0x04, 0x38 + len(body))
    return bytes(header) + body + b"GEOLAYOU" + extra


def seed_models():
    """A few small models of each family, bare and compressed: the fuzz
    corpus seeds (fuzz/corpus/model/, python3 tools/make_models.py --seeds DIR)."""
    joints = [joint("root", bound_radius=10.0), joint("spine", scale=(2.0, 1.0, 0.5), rotation_raw=(8192, 0, -8192),
                                                      translation=(0.0, 5.0, 0.0), scale_compensate=1),
              joint("arm", translation=(3.0, 0.0, 0.0)), joint("leg", scale_compensate=0)]
    parents = [-1, 0, 1, 0]
    out = {
        "j3d_basic.bmd": write_j3d_model(joints, parents),
        "j3d_maya_shapes.bmd": write_j3d_model(joints, parents, calc="maya", with_shapes=True, remap=[3, 2, 1, 0]),
        "j3d_skinned.bdl": write_j3d_model(joints, parents, kind="bdl", calc="softimage",
                                           envelopes=[[(1, 0.5), (2, 0.5)], [(3, 1.0)]],
                                           inverse_binds=[[1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0]] * 4,
                                           draw=[(0, 0), (1, 0), (1, 1)]),
        "sm64ds.bmd": write_sm64ds_bmd([sm64ds_bone("r"), sm64ds_bone("body", 0, rotation_raw=(1024, 0, 0)),
                                        sm64ds_bone("head", 1, translation_fixed=(0, 4096, 0))], scale_shift=2),
        "bk_model.bin": write_bk_model([((0.0, 0.0, 0.0), 1, -1), ((0.0, 10.0, 0.0), 2, 0), ((1.0, 2.0, 3.0), 3, 1)],
                                       45.0),
    }
    return out


if __name__ == "__main__":
    import os
    import sys

    if len(sys.argv) != 3 or sys.argv[1] != "--seeds":
        sys.exit("usage: python3 tools/make_models.py --seeds DIR")
    os.makedirs(sys.argv[2], exist_ok=True)
    try:  # compressed copies too, in the wrapper each family ships in, when gameanim is importable
        import gameanim
    except ImportError:
        gameanim = None
    wrappers = {".bmd": "yaz0", ".bdl": "yaz0", ".bin": "rarezip"}
    for name, data in seed_models().items():
        with open(os.path.join(sys.argv[2], name), "wb") as f:
            f.write(data)
        if gameanim is not None:
            wrapper = "lz77" if name.startswith("sm64ds") else wrappers[os.path.splitext(name)[1]]
            with open(os.path.join(sys.argv[2], name + "." + wrapper), "wb") as f:
                f.write(gameanim.compress(wrapper, data))
