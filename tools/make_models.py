"""Writers for test models: J3D BMD/BDL (JNT1, INF1, optional EVP1/DRW1,
the geometry chunks VTX1/SHP1/MAT3/TEX1 (their bodies: vtx1_body,
shp1_body, mat3_body, tex1_body, passed as extra chunks) and opaque filler
chunks), Super Mario 64 DS BMD bone tables and Banjo-Kazooie model bins.  Pure Python (struct only), independent of gameanim's C
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


# Nintendo's fill between the tables of a chunk and at its end, repeated and
# cut to length (../shared/formats/j3d_writer.md, section 2)
PADDING = b"This is padding data to alignment."


def _pad_text(data: bytes, align: int, at: int = 0) -> bytes:
    """data padded with PADDING until at + len(data) is a multiple of align
    (at: where data starts, relative to the chunk)."""
    return data + (PADDING * 2)[:-(at + len(data)) % align]


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
    """A J3D chunk: tag, u32 size, body, padded to 32 bytes with Nintendo's
    padding text."""
    size = 8 + len(body)
    size += -size % 32
    return _pad_text(tag.encode("ascii") + struct.pack(">I", size) + body, 32)


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
    remap_bytes = _pad_text(struct.pack(">%dH" % len(remap), *remap), 4)
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
    one sequence of 12 floats (3x4 row-major) per joint.  Nintendo's
    layout: the joint indices straight after the u8 counts (unaligned), the
    weights 8-aligned, the inverse binds after them; no envelopes: every
    offset 0 and no tables."""
    if not envelopes:
        return chunk("EVP1", struct.pack(">HHIIII", 0, 0xFFFF, 0, 0, 0, 0))
    counts = bytes(len(e) for e in envelopes)
    idx = b"".join(struct.pack(">H", j) for e in envelopes for j, _ in e)
    wts = b"".join(struct.pack(">f", w) for e in envelopes for _, w in e)
    o_counts = 0x1C
    o_idx = o_counts + len(counts)
    tables = _pad_text(counts + idx, 8, o_counts)
    o_wts = o_counts + len(tables)
    o_binds = o_wts + len(wts)
    binds = b"".join(struct.pack(">12f", *m) for m in inverse_binds)
    head = struct.pack(">HHIIII", len(envelopes), 0xFFFF, o_counts, o_idx, o_wts, o_binds)
    return chunk("EVP1", head + tables + wts + binds)


def drw1_chunk(entries) -> bytes:
    """DRW1: entries = [(kind, index), ...], kind 0 = joint, 1 = envelope
    (True/False work), as given (Nintendo's tables are J joint entries, the
    N envelopes, the N envelopes again: see MESH_DRAW)."""
    kinds = _pad_text(bytes(int(e) for e, _ in entries), 2)
    idx = b"".join(struct.pack(">H", i) for _, i in entries)
    head = struct.pack(">HHII", len(entries), 0xFFFF, 0x14, 0x14 + len(kinds))
    return chunk("DRW1", head + kinds + idx)


def find_chunk(data, tag):
    """File offset of the first chunk `tag` (b"TEX1") of a written J3D file."""
    at = 0x20
    while data[at:at + 4] != tag:
        at += struct.unpack_from(">I", data, at + 4)[0]
    return at


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
    return j3d_file(chunks, kind)


def j3d_file(chunks, kind="bmd") -> bytes:
    """The file header (magic, size, chunk count, SVR3) before whole chunks."""
    body = b"".join(chunks)
    magic = {"bmd": b"J3D2bmd3", "bdl": b"J3D2bdl4"}[kind]
    header = magic + struct.pack(">II", 0x20 + len(body), len(chunks)) + b"SVR3" + b"\xff" * 12
    return header + body


# ---------------------------------------------------------------- J3D geometry
# Bodies (everything after a chunk's tag and size) for write_j3d_model's
# extra_chunks; offsets inside are relative to the chunk start, so the body
# starts at 8.  Layouts: ../shared/formats/j3d_meshes.md, docs/meshes.md.

# GX attribute ids
PNMTXIDX, POS, NRM, CLR0, CLR1, TEX0 = 0, 9, 10, 11, 12, 13
COMP_TYPES = {"u8": (0, "B"), "s8": (1, "b"), "u16": (2, "H"), "s16": (3, "h"), "f32": (4, "f")}
COLOR_TYPES = {"RGB565": 0, "RGB8": 1, "RGBX8": 2, "RGBA4": 3, "RGBA6": 4, "RGBA8": 5}
PRIMITIVES = {"quads": 0x80, "triangles": 0x90, "strip": 0x98, "fan": 0xA0, "lines": 0xA8, "points": 0xB8}
INDEX8, INDEX16, DIRECT = 2, 3, 1


def vertex_array(values, comp_type="f32", shift=0, comp_count=None):
    """A VTX1 array of POS / NRM / TEXn: values = tuples of numbers (2 or 3
    for POS, 3 for NRM, 1 or 2 for TEXn); integer types store
    round(v * 2**shift) (normals: the value itself, as the caller gives
    it).  comp_count: the stored component-count code (default: from the
    tuple length)."""
    return dict(kind="vector", values=[tuple(v) for v in values], comp_type=comp_type, shift=shift,
                comp_count=comp_count)


def color_array(rgba, color_type="RGBA8", has_alpha=True):
    """A VTX1 colour array: rgba = tuples of 4 bytes (0..255), stored as
    color_type (the stored value is the colour's top bits in that
    format's layout)."""
    return dict(kind="color", values=[tuple(v) for v in rgba], color_type=color_type, has_alpha=has_alpha)


def _encode_vector(a, attr):
    code, fmt = COMP_TYPES[a["comp_type"]]
    out = b""
    for v in a["values"]:
        if code == 4:
            out += struct.pack(">%df" % len(v), *v)
        elif attr == NRM:
            out += struct.pack(">%d%s" % (len(v), fmt), *[int(x) for x in v])
        else:
            out += struct.pack(">%d%s" % (len(v), fmt), *[int(round(x * (1 << a["shift"]))) for x in v])
    return out


def encode_color(rgba, color_type):
    """One vertex colour in a VTX1 colour format (the top bits of each channel)."""
    r, g, b, a = rgba
    if color_type == "RGB565":
        return struct.pack(">H", (r >> 3) << 11 | (g >> 2) << 5 | b >> 3)
    if color_type == "RGB8":
        return bytes((r, g, b))
    if color_type == "RGBX8":
        return bytes((r, g, b, 0))
    if color_type == "RGBA4":
        return struct.pack(">H", (r >> 4) << 12 | (g >> 4) << 8 | (b >> 4) << 4 | a >> 4)
    if color_type == "RGBA6":
        v = (r >> 2) << 18 | (g >> 2) << 12 | (b >> 2) << 6 | a >> 2
        return v.to_bytes(3, "big")
    return bytes((r, g, b, a))


def vtx1_body(arrays):
    """VTX1: arrays = {attr id: vertex_array() or color_array()}; each
    array padded to 32 bytes.  Format list at 0x40, arrays after it."""
    slot_of = {POS: 0, NRM: 1, CLR0: 3, CLR1: 4}
    slot_of.update({TEX0 + n: 5 + n for n in range(8)})
    fmt = b""
    for attr in sorted(arrays):
        a = arrays[attr]
        if a["kind"] == "color":
            count, ctype, shift = (1 if a["has_alpha"] else 0), COLOR_TYPES[a["color_type"]], 0
        else:
            n = len(a["values"][0]) if a["values"] else (3 if attr != TEX0 else 2)
            count = a["comp_count"]
            if count is None:
                count = {POS: n - 2, NRM: 0}.get(attr, n - 1)
            ctype, shift = COMP_TYPES[a["comp_type"]][0], a["shift"]
        fmt += struct.pack(">IIIB3x", attr, count, ctype, shift)
    fmt += struct.pack(">IIIB3x", 0xFF, 0, 0, 0)
    offsets = [0] * 13
    data = b""
    base = 8 + 0x38 + len(fmt)
    base += -base % 32
    for attr in sorted(arrays):
        a = arrays[attr]
        blob = b"".join(encode_color(v, a["color_type"]) for v in a["values"]) if a["kind"] == "color" \
            else _encode_vector(a, attr)
        offsets[slot_of[attr]] = base + len(data)
        data += _pad(blob, 32)
    head = struct.pack(">I13I", 0x40, *offsets) + fmt
    head += bytes(-(8 + len(head)) % 32)
    return head + data


def packet(matrix_table, primitives, use_matrix=None):
    """One SHP1 packet: matrix_table = DRW1 entries for GX slots 0.. (0xFFFF:
    keep the slot); primitives = [(kind, [vertex, ...]), ...], kind a name
    of PRIMITIVES, vertex = one value per descriptor attribute in ascending
    attribute order (PNMTXIDX: the row address 3 * slot)."""
    return dict(matrix_table=list(matrix_table), primitives=primitives,
                use_matrix=matrix_table[0] if use_matrix is None else use_matrix)


def shape(attrs, packets, matrix_type=0, listed=None):
    """One SHP1 shape: attrs = [(attr id, INDEX8 / INDEX16 / DIRECT), ...]
    in ascending attribute order (the order of each vertex's values in the
    display list); packets: packet() dicts.  listed: the same attributes in
    the order the descriptor list names them (default: attrs' order); the
    GX reads the display list in ascending order whatever this order is."""
    if listed is not None:
        assert sorted(listed) == sorted(attrs), (listed, attrs)
    return dict(attrs=list(attrs), packets=packets, matrix_type=matrix_type,
                listed=list(attrs if listed is None else listed))


def display_list(attrs, primitives):
    out = b""
    for kind, verts in primitives:
        out += struct.pack(">BH", PRIMITIVES[kind] if isinstance(kind, str) else kind, len(verts))
        for v in verts:
            for (attr, typ), x in zip(attrs, v):
                out += struct.pack(">H", x) if typ == INDEX16 else struct.pack(">B", x)
    return _pad(out, 32)


def shp1_body(shapes):
    """SHP1 for shape() dicts.  Header 0x2C (offsets at 0x0C..0x28, names
    0), then shape records, remap, descriptors, matrix table, display lists,
    matrix data and packet locations."""
    records, descs, mtable, dls, mdata, plocs = b"", b"", [], b"", b"", b""
    npk = 0
    for s in shapes:
        desc_off = len(descs)
        listed = s.get("listed", s["attrs"])
        descs += b"".join(struct.pack(">II", a, t) for a, t in listed) + struct.pack(">II", 0xFF, 0)
        records += struct.pack(">BBHHHHH7f", s["matrix_type"], 0xFF, len(s["packets"]), desc_off, npk, npk, 0xFFFF,
                               0.0, 0, 0, 0, 0, 0, 0)
        for p in s["packets"]:
            dl = display_list(s["attrs"], p["primitives"])
            mdata += struct.pack(">HHI", p["use_matrix"], len(p["matrix_table"]), len(mtable))
            mtable += p["matrix_table"]
            plocs += struct.pack(">II", len(dl), len(dls))
            dls += dl
            npk += 1
    o_shapes = 0x2C
    remap = _pad(struct.pack(">%dH" % len(shapes), *range(len(shapes))), 4)
    o_remap = o_shapes + len(records)
    o_desc = o_remap + len(remap)
    mt = _pad(struct.pack(">%dH" % len(mtable), *mtable), 4)
    o_mtable = o_desc + len(descs)
    o_dl = o_mtable + len(mt)
    o_dl += -o_dl % 32
    o_mdata = o_dl + len(dls)
    o_ploc = o_mdata + len(mdata)
    head = struct.pack(">HHIIIIIIII", len(shapes), 0xFFFF, o_shapes, o_remap, 0, o_desc, o_mtable, o_dl, o_mdata,
                       o_ploc)
    body = head + bytes(o_shapes - 8 - len(head)) + records + remap + descs + mt
    body += bytes(o_dl - 8 - len(body))
    return body + dls + mdata + plocs


# TEV stage records (colour, alpha), each (a, b, c, d, op, bias, scale,
# clamp, out) in GX's numbering (colour: CPREV 0, C0 2, TEXC 8, TEXA 9,
# RASC 10, RASA 11, ONE 12, HALF 13, KONST 14, ZERO 15; alpha: APREV 0,
# A0 1, TEXA 4, RASA 5, KONST 6, ZERO 7)
TEV_MODULATE = ((15, 8, 10, 15, 0, 0, 0, 1, 0), (7, 4, 5, 7, 0, 0, 0, 1, 0))  # TEX * RAS
TEV_PREV_TIMES_TEX = ((15, 0, 8, 15, 0, 0, 0, 1, 0), (7, 7, 7, 0, 0, 0, 0, 1, 0))  # PREV * TEX, alpha kept


def material(name="mat", *, mode=1, cull=2, color=(255, 255, 255, 255), ambient=(50, 50, 50, 255),
             channel=(0, 1, 0, 0, 0, 0), texgens=((1, 4, 60),), textures=(0,), stages=((0, 0, 0),),
             tev_colors=(), konst=(), alpha_compare=(7, 0, 0, 7, 0), blend=(0, 1, 0, 0), z_mode=(1, 3, 1), **more):
    """One MAT3 material: textures = TEX1 index per texture slot; stages =
    TEV orders (texcoord, texmap, colour channel); None for an unused table
    index (cull, colours, alpha compare, blend, z mode).

    The rest of the GX state, each optional (absent: not written, so the
    decoder applies the game's default), in `more`:
      tev: per stage, None or (colour, alpha), each (a, b, c, d, op, bias,
        scale, clamp, out) -- the TEV stage record;
      konst_sel: per stage (colour select, alpha select), 0xFF for none;
      swap_modes: per stage None or (ras table, tex table);
      swap_tables: up to 4, None or (r, g, b, a);
      colors, ambients: 2 each, None or RGBA (instead of color / ambient);
      channels: 4 channel controls, None or 6 bytes (instead of channel);
      channel_count: the byte (default 1); stage_count: the byte (default
        len(stages)), None for 0xFF;
      post_texgens: per slot None or (type, source, matrix);
      tex_matrices: per slot None or (projection, info, centre3, scale2,
        rotation, translation2, effect16);
      fog: (type, adjust, centre, start z, end z, near z, far z, RGBA,
        adj10); nbt: (enabled, (x, y, z)); z_comp_loc, dither: the byte;
      indirect: (enabled, count, orders 4x2, matrices 3 x (6 floats,
        exponent), scales 4x2, stages 16 x 9 bytes)."""
    return dict(name=name, mode=mode, cull=cull, color=color, ambient=ambient, channel=channel, texgens=texgens,
                textures=textures, stages=stages, tev_colors=tev_colors, konst=konst, alpha_compare=alpha_compare,
                blend=blend, z_mode=z_mode, **more)


MAT2_GONE = (0x18, 0x2C, 0x30)  # MAT3 header fields of the indirect, ambient colour and light tables


def mat2_field(field):
    """The MAT2 header field holding MAT3 header field `field`'s table
    (notes j3d_materials.md 1.5, J3DMaterialBlock_v21), None for the three
    tables MAT2 lacks."""
    if field in MAT2_GONE:
        return None
    return field if field < 0x18 else field - 4 if field < 0x2C else field - 0x0C


def mat2_body(mat3):
    """The MAT2 of a "J3D2bmd2" file (J3DMaterialBlock_v21) holding what a
    MAT3 body (mat3_body's result: the chunk from its count on) holds: the
    same tables in the same order without the indirect, ambient colour and
    light tables, a 0x78-byte header, and each 0x14C-byte init record
    without its ambient colour and light indices (0x14-0x27): 0x138 bytes,
    texgen indices at 0x14, texture slots at 0x70, fog at 0x130."""
    count = struct.unpack_from(">H", mat3, 0)[0]
    size = 8 + len(mat3)
    offs = {f: struct.unpack_from(">I", mat3, f - 8)[0] for f in range(0x0C, 0x84, 4)}
    starts = sorted({o for o in offs.values() if o})
    remap = struct.unpack_from(">%dH" % count, mat3, offs[0x10] - 8) if count else ()
    records = max(remap) + 1 if remap else 0
    head = bytearray(0x78 - 8)
    head[0:4] = mat3[0:4]  # count, pad
    body = b""
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else size
        fields = [f for f, o in offs.items() if o == start]
        kept = [f for f in fields if f not in MAT2_GONE]
        if not kept:
            continue
        blob = mat3[start - 8:end - 8]
        if 0x0C in fields:
            recs = [blob[k * 0x14C:(k + 1) * 0x14C] for k in range(records)]
            blob = b"".join(r[:0x14] + r[0x28:] for r in recs) + blob[records * 0x14C:]
        for f in kept:
            struct.pack_into(">I", head, mat2_field(f) - 8, 0x78 + len(body))
        body += blob
    return bytes(head) + body


def as_mat2(data):
    """A J3D2bmd3 model file as the J3D2bmd2 file of the same model: its
    MAT3 chunk rewritten as MAT2 (mat2_body), every other chunk as it is."""
    at = find_chunk(data, b"MAT3")
    size = struct.unpack_from(">I", data, at + 4)[0]
    out = data[:at] + chunk("MAT2", mat2_body(data[at + 8:at + size])) + data[at + size:]
    return out[:4] + b"bmd2" + struct.pack(">I", len(out)) + out[12:]


def _tex_matrix_record(m):
    proj, info, centre, scale, rot, trans, effect = m
    return (struct.pack(">BBH3f2fhH2f", proj, info, 0xFFFF, *centre, *scale, rot, 0xFFFF, *trans) +
            struct.pack(">16f", *effect))


def _indirect_record(ind):
    if ind is None:
        return bytes(0x138)
    enabled, count, orders, matrices, scales, stages = ind
    out = struct.pack(">BBH", enabled, count, 0xFFFF)
    out += b"".join(struct.pack(">BBH", t, m, 0xFFFF) for t, m in orders)
    out += b"".join(struct.pack(">6fb3x", *mtx, e) for mtx, e in matrices)
    out += b"".join(struct.pack(">BBH", a, b, 0xFFFF) for a, b in scales)
    out += b"".join(bytes(st) + b"\xff\xff\xff" for st in stages)
    assert len(out) == 0x138
    return out


def mat3_body(materials):
    """MAT3 for material() dicts: each value in its own table entry (no
    sharing), entry i for material i (identity remap)."""
    sizes = {0x1C: 4, 0x20: 4, 0x24: 1, 0x28: 8, 0x2C: 4, 0x34: 1, 0x38: 4, 0x3C: 4, 0x40: 0x64, 0x48: 2, 0x4C: 4,
             0x50: 8, 0x54: 4, 0x58: 1, 0x5C: 0x14, 0x60: 4, 0x64: 4, 0x68: 0x2C, 0x6C: 8, 0x70: 4, 0x74: 4,
             0x78: 1, 0x7C: 1, 0x80: 0x10}
    tables = {k: b"" for k in sizes}

    def add(table, item):
        assert len(item) == sizes[table]
        i = len(tables[table]) // sizes[table]
        tables[table] += item
        return i

    entries = b""
    for m in materials:
        e = bytearray(b"\xff" * 0x14C)
        e[0] = m["mode"]
        if m["cull"] is not None:
            e[1] = add(0x1C, struct.pack(">I", m["cull"]))
        e[2] = add(0x24, bytes((m.get("channel_count", 1),)))
        e[3] = add(0x34, bytes((len(m["texgens"]),)))
        count = m.get("stage_count", len(m["stages"]))
        if count is not None:
            e[4] = add(0x58, bytes((count,)))
        if m.get("z_comp_loc") is not None:
            e[5] = add(0x78, bytes((m["z_comp_loc"],)))
        if m["z_mode"] is not None:
            e[6] = add(0x74, bytes(m["z_mode"]) + b"\0")
        if m.get("dither") is not None:
            e[7] = add(0x7C, bytes((m["dither"],)))
        for k, c in enumerate(m.get("colors", (m["color"],))):
            if c is not None:
                struct.pack_into(">H", e, 0x08 + 2 * k, add(0x20, bytes(c)))
        for k, c in enumerate(m.get("channels", (m["channel"],))):
            if c is not None:
                struct.pack_into(">H", e, 0x0C + 2 * k, add(0x28, bytes(c) + b"\0\0"))
        for k, c in enumerate(m.get("ambients", (m["ambient"],))):
            if c is not None:
                struct.pack_into(">H", e, 0x14 + 2 * k, add(0x2C, bytes(c)))
        for k, tg in enumerate(m["texgens"]):
            struct.pack_into(">H", e, 0x28 + 2 * k, add(0x38, bytes(tg) + b"\0"))
        for k, tg in enumerate(m.get("post_texgens", ())):
            if tg is not None:
                struct.pack_into(">H", e, 0x38 + 2 * k, add(0x3C, bytes(tg) + b"\0"))
        for k, tm in enumerate(m.get("tex_matrices", ())):
            if tm is not None:
                struct.pack_into(">H", e, 0x48 + 2 * k, add(0x40, _tex_matrix_record(tm)))
        for k, t in enumerate(m["textures"]):
            struct.pack_into(">H", e, 0x84 + 2 * k, add(0x48, struct.pack(">H", t)))
        for k, c in enumerate(m["konst"]):
            if c is not None:
                struct.pack_into(">H", e, 0x94 + 2 * k, add(0x54, bytes(c)))
        for k, (kc, ka) in enumerate(m.get("konst_sel", ())):
            e[0x9C + k], e[0xAC + k] = kc, ka
        for k, st in enumerate(m["stages"]):
            struct.pack_into(">H", e, 0xBC + 2 * k, add(0x4C, bytes(st) + b"\xff"))
        for k, c in enumerate(m["tev_colors"]):
            if c is not None:
                struct.pack_into(">H", e, 0xDC + 2 * k, add(0x50, struct.pack(">4h", *c)))
        for k, st in enumerate(m.get("tev", ())):
            if st is not None:
                struct.pack_into(">H", e, 0xE4 + 2 * k, add(0x5C, b"\xff" + bytes(st[0]) + bytes(st[1]) + b"\xff"))
        for k, sw in enumerate(m.get("swap_modes", ())):
            if sw is not None:
                struct.pack_into(">H", e, 0x104 + 2 * k, add(0x60, bytes(sw) + b"\xff\xff"))
        for k, sw in enumerate(m.get("swap_tables", ())):
            if sw is not None:
                struct.pack_into(">H", e, 0x124 + 2 * k, add(0x64, bytes(sw)))
        if m.get("fog") is not None:
            ty, adj, centre, sz, ez, nz, fz, rgba, table = m["fog"]
            struct.pack_into(">H", e, 0x144, add(0x68, struct.pack(">BBH4f4B10H", ty, adj, centre, sz, ez, nz, fz,
                                                                   *rgba, *table)))
        if m["alpha_compare"] is not None:
            struct.pack_into(">H", e, 0x146, add(0x6C, bytes(m["alpha_compare"]) + b"\0\0\0"))
        if m["blend"] is not None:
            struct.pack_into(">H", e, 0x148, add(0x70, bytes(m["blend"])))
        if m.get("nbt") is not None:
            on, xyz = m["nbt"]
            struct.pack_into(">H", e, 0x14A, add(0x80, struct.pack(">B3x3f", on, *xyz)))
        entries += bytes(e)
    n = len(materials)
    layout = [(0x0C, entries), (0x10, _pad(struct.pack(">%dH" % n, *range(n)), 4)),
              (0x14, _pad(name_table([m["name"] for m in materials]), 4))]
    if any(m.get("indirect") is not None for m in materials):
        layout.append((0x18, b"".join(_indirect_record(m.get("indirect")) for m in materials)))
    layout += [(k, _pad(tables[k], 4)) for k in sorted(tables) if tables[k]]
    head = bytearray(0x84 - 8)
    struct.pack_into(">HH", head, 0, n, 0xFFFF)
    body = b""
    pos = 0x84
    for field, blob in layout:
        struct.pack_into(">I", head, field - 8, pos + len(body))
        body += blob
    return bytes(head) + body


def texture(name="tex", fmt="I8", width=8, height=4, data=b"", *, palette=b"", palette_format=0, wrap_s=1, wrap_t=1,
            alpha=0, min_filter=1, mag_filter=1, mip_count=1, data_from=None):
    """One TEX1 texture: data = the tiled texels as stored; palette = u16
    entries (bytes) for C4/C8/C14X2; data_from: index of an earlier texture
    whose image this header points at (shared data)."""
    return dict(name=name, fmt=fmt, width=width, height=height, data=data, palette=palette,
                palette_format=palette_format, wrap_s=wrap_s, wrap_t=wrap_t, alpha=alpha, min_filter=min_filter,
                mag_filter=mag_filter, mip_count=mip_count, data_from=data_from)


GX_FORMATS = {"I4": 0, "I8": 1, "IA4": 2, "IA8": 3, "RGB565": 4, "RGB5A3": 5, "RGBA8": 6, "C4": 8, "C8": 9,
              "C14X2": 10, "CMPR": 14}


def tex1_body(textures):
    """TEX1: headers (0x20 each) at 0x20, the name table, then each palette
    and image (32-byte aligned); header offsets are relative to the header."""
    n = len(textures)
    o_headers = 0x20
    names = _pad(name_table([t["name"] for t in textures]), 32)
    o_names = o_headers + 0x20 * n
    pos = o_names + len(names)
    blobs = b""
    at = []  # (palette offset, image offset) in the chunk
    for t in textures:
        p_off = pos + len(blobs) if t["palette"] else 0
        blobs += _pad(t["palette"], 32)
        if t["data_from"] is not None:
            i_off = at[t["data_from"]][1]
        else:
            i_off = pos + len(blobs)
            blobs += _pad(t["data"], 32)
        at.append((p_off, i_off))
    headers = b""
    for i, t in enumerate(textures):
        h = o_headers + 0x20 * i
        p_off, i_off = at[i]
        headers += struct.pack(">BBHHBBBBHIIBBbbBxhI", GX_FORMATS[t["fmt"]], t["alpha"], t["width"], t["height"],
                               t["wrap_s"], t["wrap_t"], 1 if t["palette"] else 0, t["palette_format"],
                               len(t["palette"]) // 2, (p_off - h) if p_off else 0, 0, t["min_filter"],
                               t["mag_filter"], 0, 0, t["mip_count"], 0, i_off - h)
    head = struct.pack(">HHII", n, 0xFFFF, o_headers, o_names) + bytes(o_headers - 8 - 12)
    return head + headers + names + blobs



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


# mesh_model's skinning data, as written (tests compute the game's skinning
# from these): inverse binds (3x4 row-major), envelopes [(joint, weight)],
# DRW1 entries (kind 0 joint / 1 envelope, index) and VTX1 positions
# (exact in s16 with 8 fraction bits)
MESH_BINDS = [[1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0], [1.0, 0, 0, 0, 0, 1.0, 0, -10.0, 0, 0, 1.0, 0],
              [1.0, 0, 0, 0, 0, 1.0, 0, -16.0, 0, 0, 1.0, 0]]
MESH_ENVELOPES = [[(0, 0.5), (1, 0.5)], [(1, 0.75), (2, 0.25)]]
# Nintendo's DRW1 layout: the joints, the envelopes, the envelopes again
# (j3d_writer.md fact 4); shapes use entries 0..4 only
MESH_DRAW = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 0), (1, 1)]
_RING = [(2.0 * c, y, 2.0 * s) for y in (0.0, 8.0, 16.0) for c, s in ((1, 0), (0, 1), (-1, 0), (0, -1))]
MESH_POSITIONS = _RING + [(0.0, 20.0, 0.0), (-1.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 2.0, 0.0), (0.0, 0.0, 1.0)]


def mesh_model(kind="bmd", calc="basic", scale_compensate=0xFF, binds=None, rigid_matrix_type=0, unordered=False,
               game=False, mdl3=True):
    """A small skinned, textured J3D model: three joints, a rigid shape, an
    envelope-skinned multi-matrix shape (strips, a fan, triangles and
    quads), colours and UVs, two materials and three textures (CMPR, C8
    with an RGB5A3 palette, I4 sharing nothing).  Deterministic bytes.
    calc: the INF1 rule; scale_compensate: the head joint's byte; binds:
    other inverse binds than MESH_BINDS; rigid_matrix_type: the rigid
    shape's SHP1 matrix type (1, 2: billboards); unordered: each shape's
    vertex descriptor list names its attributes out of ascending order
    (reversed, as a real model's may), the display lists unchanged.
    game: laid out as the game's loader needs (see game_model); a game
    BDL also gets its MDL3 (with_mdl3) unless mdl3 is False."""
    joints = [joint("root"), joint("body", translation=(0.0, 10.0, 0.0), rotation_raw=(0, 0, 4096)),
              joint("head", translation=(0.0, 6.0, 0.0), scale=(1.0, 1.5, 1.0), scale_compensate=scale_compensate)]
    if game:  # MESH_BINDS are then the joints' inverse rest matrices; boxes hold the rigid geometry
        joints = [joint("root", bound_min=(-2.0, 0.0, -2.0), bound_max=(2.0, 20.0, 2.0), bound_radius=20.2),
                  joint("body", translation=(0.0, 10.0, 0.0)),
                  joint("head", translation=(0.0, 6.0, 0.0), bound_min=(-1.0, 0.0, 0.0), bound_max=(1.0, 2.0, 1.0),
                        bound_radius=2.0)]
    parents = [-1, 0, 1]
    binds, envelopes, draw = binds or MESH_BINDS, MESH_ENVELOPES, MESH_DRAW
    ring, pos = _RING, MESH_POSITIONS
    nrm = [(x / 2, 0.0, z / 2) for x, _, z in ring] + [(0.0, 1.0, 0.0)] * 5
    colors = [((37 * i) % 256, (91 * i) % 256, (53 * i) % 256, 255) for i in range(len(pos))]
    uvs = [((i % 4) / 4.0, (i // 4) / 3.0) for i in range(len(pos))]
    arrays = {POS: vertex_array(pos, "s16", 8), NRM: vertex_array([tuple(int(v * 64) for v in n) for n in nrm], "s8"),
              CLR0: color_array(colors, "RGBA8"), TEX0: vertex_array(uvs, "u16", 14)}
    attrs = [(POS, INDEX16), (NRM, INDEX16), (CLR0, INDEX16), (TEX0, INDEX16)]
    body_strip = []
    for k in range(5):
        a, b = k % 4, (k + 1) % 4
        body_strip += [(0, a), (3, 4 + a)] if k < 4 else [(0, 0), (3, 4)]
    upper = [(3 if k % 2 else 6, (4 if k % 2 == 0 else 8) + k // 2 % 4) for k in range(10)]
    def listed(a):
        return list(reversed(a)) if unordered else None

    multi = shape([(PNMTXIDX, DIRECT)] + attrs, [
        packet([0, 3], [("strip", [(m, i, i, i, i) for m, i in body_strip])]),
        packet([0xFFFF, 4, 1], [("strip", [(m, i, i, i, i) for m, i in upper]),
                                ("fan", [(6, 12, 12, 12, 12)] + [(3, 8 + k, 8 + k, 8 + k, 8 + k) for k in (0, 1, 2, 3, 0)])]),
    ], matrix_type=3, listed=listed([(PNMTXIDX, DIRECT)] + attrs))
    rigid = shape(attrs, [packet([2], [("triangles", [(13 + k,) * 4 for k in range(3)]),
                                       ("quads", [(13,) * 4, (14,) * 4, (16,) * 4, (15,) * 4])])],
                  matrix_type=rigid_matrix_type, listed=listed(attrs))
    nodes = [(JOINT, 0), (OPEN, 0), (MATERIAL, 0), (OPEN, 0), (SHAPE, 0), (CLOSE, 0), (JOINT, 1), (OPEN, 0),
             (JOINT, 2), (OPEN, 0), (MATERIAL, 1), (OPEN, 0), (SHAPE, 1), (CLOSE, 0), (CLOSE, 0), (CLOSE, 0),
             (CLOSE, 0), (END, 0)]
    checker = b"".join(struct.pack(">HH", 0xF800, 0x001F) + bytes([0x1B, 0xE4, 0x1B, 0xE4]) for _ in range(16))
    palette = b"".join(struct.pack(">H", 0x8000 | (i * 1057) & 0x7FFF) for i in range(16))
    textures = [texture("skin", "CMPR", 16, 16, checker, wrap_s=1, wrap_t=2),
                texture("eyes", "C8", 8, 4, bytes(i % 16 for i in range(32)), palette=palette, palette_format=2,
                        wrap_s=0, wrap_t=0),
                texture("mask", "I4", 8, 8, bytes((17 * i) & 0xFF for i in range(32)))]
    # body: skin * vertex colour, then * mask; head: eyes * vertex colour, alpha blended where alpha >= 128
    materials = [material("body", textures=(0, 2), stages=((0, 0, 4), (0, 1, 0xFF)),
                          tev=(TEV_MODULATE, TEV_PREV_TIMES_TEX)),
                 material("head", mode=4, cull=0, textures=(1,), stages=((0, 0, 4),), tev=(TEV_MODULATE,),
                          blend=(1, 4, 5, 0), alpha_compare=(6, 128, 0, 7, 0))]
    if game:  # normals as s16 (fact 2); (MESH_DRAW is already joints + envelopes + envelopes again, fact 4)
        arrays[NRM] = vertex_array([tuple(int(v * 16384) for v in n) for n in nrm], "s16", 14)
    extra = [("VTX1", vtx1_body(arrays)), ("SHP1", shp1_body([multi, rigid])), ("MAT3", mat3_body(materials)),
             ("TEX1", tex1_body(textures))]
    if game:  # the chunk order INF1, VTX1, EVP1, DRW1, JNT1, SHP1, MAT3, TEX1 and INF1's counts
        data = j3d_file([inf1_chunk(nodes, calc, packet_count=3, vertex_count=len(pos)), chunk(*extra[0]),
                         evp1_chunk(envelopes, binds), drw1_chunk(draw), jnt1_chunk(joints)] +
                        [chunk(t, b) for t, b in extra[1:]], kind)
        return with_mdl3(data) if kind == "bdl" and mdl3 else data
    return write_j3d_model(joints, parents, nodes=nodes, calc=calc, kind=kind, envelopes=envelopes,
                           inverse_binds=binds, draw=draw, extra_chunks=extra)


def with_mdl3(data):
    """A BDL without MDL3 given an MDL3 chunk made by gameanim's encoder
    (regenerate) from its MAT3 and TEX1, inserted before TEX1; every other
    chunk keeps these bytes.  Needs gameanim importable; the tests check
    the MDL3 independently (tests/test_model_mdl3.py)."""
    import gameanim

    count = struct.unpack_from(">H", data, find_chunk(data, b"MAT3") + 8)[0]
    at = find_chunk(data, b"TEX1")

    def insert(mdl3):
        out = data[:at] + mdl3 + data[at:]
        return out[:8] + struct.pack(">II", len(out), struct.unpack_from(">I", out, 12)[0] + 1) + out[16:]

    stub = insert(chunk("MDL3", struct.pack(">HH", count, 0xFFFF) + bytes(24)))
    regenerated = gameanim.load_model(stub).to_bytes(regenerate=True)
    return insert(dict(gameanim.load_model(regenerated).chunks)["MDL3"])


def game_model():
    """mesh_model laid out as the game's loader needs it (j3d_writer.md
    5.4, docs/model_writer.md "check_model"): gameanim.check_model finds
    nothing.  The joints have no rotation, so MESH_BINDS are their inverse
    rest matrices."""
    return mesh_model(game=True)


def game_skeleton(joints, parents, *, calc="basic", kind="bmd"):
    """A skeleton-only J3D model laid out as the game's loader needs it
    (gameanim.check_model finds nothing): joints and hierarchy, no geometry.

    Why no mesh: the loader reads whichever chunks a file has
    (j3d_models.md 5.3: a skeleton needs only INF1 and JNT1) and nothing in
    j3d_writer.md 5.4 asks for a shape or a material.  Nintendo's files still
    carry every chunk (8 in a BMD, 9 in a BDL, j3d_writer.md section 1), so
    the geometry chunks are here and empty, in Nintendo's order:
    VTX1 with only its end record, EVP1 with no envelopes and zero offsets
    (a rigid-only model, section 1 "EVP1/DRW1"), SHP1, MAT3 and TEX1 of
    none, and on a BDL the MDL3 of no materials (with_mdl3; the game builds
    BDL materials from MDL3, section 0 fact 9).  DRW1 keeps one rigid entry
    per joint (the J joint entries of fact 4, as the skinned figure has
    them), so that the game never sizes its draw matrices at zero.  INF1
    counts no packets and no vertices."""
    nodes = hierarchy_from_parents(parents)
    data = j3d_file([inf1_chunk(nodes, calc), chunk("VTX1", vtx1_body({})), evp1_chunk([], []),
                     drw1_chunk([(0, j) for j in range(len(joints))]), jnt1_chunk(joints),
                     chunk("SHP1", shp1_body([])), chunk("MAT3", mat3_body([])), chunk("TEX1", tex1_body([]))], kind)
    return with_mdl3(data) if kind == "bdl" else data


def rich_materials(count=4, seed=31):
    """Materials that use every MAT3 table with seeded random TEV states
    (a fuzz seed: the evaluator runs on whatever decodes)."""
    import random

    rng = random.Random(seed)

    def half(alpha):
        return (rng.randrange(8 if alpha else 16), rng.randrange(8 if alpha else 16), rng.randrange(8 if alpha else 16),
                rng.randrange(8 if alpha else 16), rng.choice([0, 1] + list(range(8, 16))), rng.randrange(3),
                rng.randrange(4), rng.randrange(2), rng.randrange(4))

    out = []
    for i in range(count):
        n = rng.randint(1, 16)
        out.append(material(
            f"rich{i}", stages=[(rng.choice([0, 1, 0xFF]), rng.choice([0, 1, 0xFF]), rng.choice([4, 5, 0xFF]))
                                for _ in range(n)],
            textures=(0, 1), texgens=((1, 4, 60), (10, 19, 60)), tev=[(half(False), half(True)) for _ in range(n)],
            konst_sel=[(rng.randrange(32), rng.randrange(32)) for _ in range(n)],
            swap_modes=[(rng.randrange(4), rng.randrange(4)) for _ in range(n)],
            swap_tables=[tuple(rng.randrange(4) for _ in range(4)) for _ in range(4)],
            konst=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(4)],
            tev_colors=[tuple(rng.randint(-1024, 1023) for _ in range(4)) for _ in range(4)],
            alpha_compare=(rng.randrange(8), rng.randrange(256), rng.randrange(4), rng.randrange(8), rng.randrange(256)),
            channels=[(1, 0, 1, 2, 2, 0xFF), (0, 1, 0, 1, 0, 1), None, None], channel_count=2,
            colors=[(200, 100, 50, 255), None], ambients=[(50, 50, 50, 255), None],
            post_texgens=[(1, 4, 125)], tex_matrices=[(1, 0, (0.5, 0.5, 0.0), (1.0, 1.0), 0, (0.0, 0.0),
                                                       tuple(float(k % 5 == 0) for k in range(16)))],
            fog=(2, 0, 320, 0.0, 100.0, 1.0, 1000.0, (255, 255, 255, 255), tuple(range(10))),
            nbt=(0, (1.0, 1.0, 1.0)), z_comp_loc=1, dither=1,
            indirect=(1, 1, ((0, 1),) * 4, (((0.5, 0.0, 0.0, 0.0, 0.5, 0.0), 1),) * 3, ((0, 0),) * 4,
                      [(0, 0, 0, 1, 0, 0, 0, 0, 0)] * 16)))
    return out


def seed_textures():
    """TEX1 records of several formats, one sharing another's image and one
    with five mip levels (a fuzz seed for the TEX1 reader and writer)."""
    def fill(n, k):
        return bytes((i * k + 7) % 256 for i in range(n))

    return [texture("i8", "I8", 16, 16, fill(256, 3)),
            texture("cmpr", "CMPR", 16, 8, fill(64, 5), wrap_s=0, wrap_t=0),
            texture("c8", "C8", 8, 8, bytes(i % 4 for i in range(64)), palette=fill(8, 11), palette_format=1),
            texture("shared", "I8", 16, 16, data_from=0, wrap_s=2),
            texture("mips", "RGBA8", 16, 16, fill(64 * (16 + 4 + 1 + 1 + 1), 13), mip_count=5, min_filter=5)]


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
                                           draw=[(0, 0), (1, 0), (1, 1), (1, 0), (1, 1)]),
        "j3d_mesh.bmd": mesh_model(),
        "j3d_materials.bmd": write_j3d_model(joints, parents, extra_chunks=[("MAT3", mat3_body(rich_materials()))]),
        "j3d_mesh_unordered.bmd": mesh_model(unordered=True),
        "j3d_game.bmd": game_model(),
        "j3d_mat2.bmd": as_mat2(write_j3d_model(joints, parents, extra_chunks=[("MAT3", mat3_body(rich_materials()))])),
        "j3d_textures.bdl": write_j3d_model(joints, parents, kind="bdl", extra_chunks=[
            ("MAT3", mat3_body(rich_materials())), ("MDL3", bytes(24)), ("TEX1", tex1_body(seed_textures()))]),
        "sm64ds.bmd": write_sm64ds_bmd([sm64ds_bone("r"), sm64ds_bone("body", 0, rotation_raw=(1024, 0, 0)),
                                        sm64ds_bone("head", 1, translation_fixed=(0, 4096, 0))], scale_shift=2),
        "bk_model.bin": write_bk_model([((0.0, 0.0, 0.0), 1, -1), ((0.0, 10.0, 0.0), 2, 0), ((1.0, 2.0, 3.0), 3, 1)],
                                       45.0),
    }
    try:  # a game BDL with the MDL3 gameanim's encoder makes from its MAT3 and TEX1
        out["j3d_game.bdl"] = mesh_model(kind="bdl", game=True)
    except ImportError:
        pass
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
