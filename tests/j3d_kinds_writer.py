"""A pure-Python writer of the J3D kinds BRK, BPK, BTP, BVA and J3D BCA
(ANF1), independent of gameanim's C encoder: the tests and the samples
describe a file here, decode it with gameanim and compare with what they
wrote.  Each writer takes the layout choices real files differ in (table
sharing, padding, alignment, tangent types, remap tables, odd chunk sizes,
claimed sizes beyond the data) as arguments.  The layouts follow
docs/formats/j3d_kinds.md.

Track specs of the key-framed kinds (BRK, BPK):
  None                      no keys (count 0)
  ("const", v)              count 1
  ("keys", type, [(t, v, in, out), ...])   type 0 (one slope, in is used)
                                           or 1 (in and out)
Full-frame tracks (BTP, BVA, J3D BCA) are lists of per-frame values (for
BCA rotations: raw s16 units).
"""
import struct

PAD = b"This is padding data to alignment."


def pad(buf, align, fill=None):
    n = (-len(buf)) % align
    if fill is None:
        buf += bytes(PAD[i % len(PAD)] for i in range(n))
    else:
        buf += bytes([fill]) * n


def name_hash(name):
    h = 0
    for c in name:
        h = (h * 3 + (c - 256 if c >= 128 else c)) & 0xFFFF
    return h


def name_table(names, bad_hash=False):
    out = bytearray(struct.pack(">HH", len(names), 0xFFFF))
    off = 4 + 4 * len(names)
    for n in names:
        out += struct.pack(">HH", (name_hash(n) ^ (1 if bad_hash else 0)) & 0xFFFF, off)
        off += len(n) + 1
    for n in names:
        out += n + b"\0"
    return bytes(out)


class Table:
    """A value table: runs placed at the first match (share) or appended."""

    def __init__(self, share=True):
        self.v = []
        self.share = share

    def place(self, run):
        if not run:
            return 0
        if self.share:
            for i in range(len(self.v) - len(run) + 1):
                if self.v[i:i + len(run)] == run:
                    return i
        at = len(self.v)
        self.v += run
        return at


def key_run(spec):
    """(count, type, elements) of a key-framed track spec."""
    if spec is None:
        return 0, 0, []
    if spec[0] == "const":
        return 1, 0, [spec[1]]
    _, ttype, keys = spec
    run = []
    for t, v, i, o in keys:
        run += [t, v, i] if ttype == 0 else [t, v, i, o]
    return len(keys), ttype, run


class Chunk:
    """A chunk under construction: a header of fixed size, then blocks whose
    offsets (from the chunk start) are written into the header."""

    def __init__(self, magic, hsize, fill=0xFF):
        self.magic = magic
        self.buf = bytearray(magic + b"\0\0\0\0" + bytes([fill]) * (hsize - 8))

    def u8(self, at, v):
        self.buf[at] = v

    def u16(self, at, v):
        struct.pack_into(">H", self.buf, at, v & 0xFFFF)

    def u32(self, at, v):
        struct.pack_into(">I", self.buf, at, v)

    def block(self, data, align=4, at=None):
        pad(self.buf, align)
        off = len(self.buf)
        self.buf += data
        if at is not None:
            self.u32(at, off)
        return off


def container(kind, chunk, *, chunk_delta=0, size_delta=0, svr=b"SVR1" + b"\xff" * 12, trailing=b"",
              blocks=1, truncate=0):
    """The JSYSTEM file around a chunk.  chunk_delta: added to the chunk's
    size field; size_delta: added to the file's size field; truncate:
    bytes cut from the end (a file ending before its claimed size)."""
    pad(chunk.buf, 32)
    body = bytes(chunk.buf)
    struct.pack_into(">I", chunk.buf, 4, len(body) + chunk_delta)
    body = bytes(chunk.buf)
    size = 0x20 + len(body)
    head = b"J3D1" + kind + struct.pack(">II", size + size_delta, blocks) + svr
    data = head + body
    if truncate:
        data = data[:-truncate]
    return data + trailing


def s16(v):
    return struct.pack(">h", v)


def write_color(kind, sets, duration, loop=0, *, share=True, align=4, remap=None, pad_bytes=b"\xff\xff\xff",
                chunk_delta=0, bad_hash=False, **kw):
    """BRK (two sets: register, konst) or BPK (one set).  sets: list of
    lists of entries {'name': bytes, 'color_id': int, 'tracks': [R, G, B, A]}."""
    brk = kind == b"brk1"
    hsize = 0x58 if brk else 0x34
    c = Chunk(b"TRK1" if brk else b"PAK1", hsize)
    c.u8(8, loop)
    c.u16(0x0A if brk else 0x0C, duration)
    if not brk:
        c.u16(0x0A, 0xFFFF)
    count_at = [0x0C, 0x0E] if brk else [0x0E]
    table_at = [0x20, 0x24] if brk else [0x18]
    remap_at = [0x28, 0x2C] if brk else [0x1C]
    names_at = [0x30, 0x34] if brk else [0x20]
    values_at = 0x38 if brk else 0x24
    tables = [Table(share) for _ in range(4 * len(sets))]
    entry_tables = []
    for s, entries in enumerate(sets):
        c.u16(count_at[s], len(entries))
        et = bytearray()
        for e in entries:
            for a, spec in enumerate(e["tracks"]):
                count, ttype, run = key_run(spec)
                idx = tables[s * 4 + a].place(run)
                et += struct.pack(">HHH", count, idx, ttype)
            if brk:
                et += bytes([e.get("color_id", 0)]) + pad_bytes
        entry_tables.append(bytes(et))
    for i, t in enumerate(tables):
        c.u16(0x10 + 2 * i, len(t.v))
    for s in range(len(sets)):
        c.block(entry_tables[s], align, table_at[s])
    for s, entries in enumerate(sets):
        rm = remap[s] if remap else list(range(len(entries)))
        c.block(b"".join(struct.pack(">H", x) for x in rm), align, remap_at[s])
    for s, entries in enumerate(sets):
        c.block(name_table([e["name"] for e in entries], bad_hash), align, names_at[s])
    for i, t in enumerate(tables):
        c.block(b"".join(s16(x) for x in t.v), align, values_at + 4 * i)
    return container(kind, c, chunk_delta=chunk_delta, **kw)


def write_btp(entries, duration, loop=0, *, share=True, extra_indices=(), remap=None, align=4, **kw):
    """entries: {'name': bytes, 'texmap': int, 'frames': [u16, ...]};
    extra_indices: numbers after the counted ones (the header counts fewer)."""
    c = Chunk(b"TPT1", 0x20)
    c.u8(8, loop)
    c.u16(0x0A, duration)
    c.u16(0x0C, len(entries))
    t = Table(share)
    et = bytearray()
    for e in entries:
        idx = t.place(list(e["frames"]))
        et += struct.pack(">HHB", len(e["frames"]), idx, e.get("texmap", 0)) + b"\xff\xff\xff"
    c.u16(0x0E, len(t.v))
    values = t.v + list(extra_indices)
    c.block(bytes(et), align, 0x10)
    c.block(b"".join(struct.pack(">H", x) for x in values), align, 0x14)
    rm = remap if remap else list(range(len(entries)))
    c.block(b"".join(struct.pack(">H", x) for x in rm), align, 0x18)
    c.block(name_table([e["name"] for e in entries]), align, 0x1C)
    return container(b"btp1", c, **kw)


def write_bva(shapes, duration, loop=0, *, share=True, align=4, **kw):
    """shapes: lists of show bytes per frame (or [] for count 0)."""
    c = Chunk(b"VAF1", 0x18)
    c.u8(8, loop)
    c.u16(0x0A, duration)
    c.u16(0x0C, len(shapes))
    t = Table(share)
    et = bytearray()
    for frames in shapes:
        et += struct.pack(">HH", len(frames), t.place(list(frames)))
    c.u16(0x0E, len(t.v))
    c.block(bytes(et), 32, 0x10)
    c.block(bytes(t.v), align, 0x14)
    return container(b"bva1", c, **kw)


def f32bits(x):
    return struct.unpack(">I", struct.pack(">f", x))[0]


def write_j3d_bca(joints, duration, loop=0, *, share=True, align=32, byte9=0xFF, **kw):
    """joints: per joint a dict {(channel, axis): [values per frame]} with
    channel 0 scale (floats), 1 rotation (raw s16), 2 translation (floats);
    missing channels have count 0."""
    c = Chunk(b"ANF1", 0x40)
    c.buf[0x24:0x40] = PAD[:0x1C]
    c.u8(8, loop)
    c.u8(9, byte9)
    c.u16(0x0A, duration)
    c.u16(0x0C, len(joints))
    tabs = [Table(share) for _ in range(3)]
    jt = bytearray()
    for j in joints:
        for a in range(3):
            for ch in range(3):
                vals = j.get((ch, a), [])
                run = list(vals) if ch == 1 else [f32bits(v) for v in vals]
                jt += struct.pack(">HH", len(vals), tabs[ch].place(run))
    for i in range(3):
        c.u16(0x0E + 2 * i, len(tabs[i].v))
    c.block(bytes(jt), 32, 0x14)
    c.block(b"".join(struct.pack(">I", x) for x in tabs[0].v), align, 0x18)
    c.block(b"".join(s16(x) for x in tabs[1].v), align, 0x1C)
    c.block(b"".join(struct.pack(">I", x) for x in tabs[2].v), align, 0x20)
    return container(b"bca1", c, **kw)
