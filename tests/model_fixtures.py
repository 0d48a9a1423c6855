"""Small model files written byte by byte for the joint-matrix tests and
benchmark: the layouts of ../shared/formats/j3d_models.md sections 5.1-5.2
(J3D INF1 + JNT1) and 1.2-1.3 (SM64DS bone table, Banjo-Kazooie bone
table).  Only what a skeleton needs; no meshes."""
import struct


def _pad(b, n=4):
    return b + b"\0" * (-len(b) % n)


def j3d_bytes(joints, rule, remap=None):
    """A J3D2bmd3 with INF1 and JNT1.  joints: dicts with parent, scale,
    rot (s16), trans, ssc (the stored byte).  remap: joint -> record."""
    n = len(joints)
    remap = list(range(n)) if remap is None else remap
    records = [None] * n
    for j, jt in enumerate(joints):
        records[remap[j]] = struct.pack(">HBB3f3hH3f7f", 0, jt.get("ssc", 0), 0xFF, *jt["scale"], *jt["rot"], 0xFFFF,
                                        *jt["trans"], 0.0, *([0.0] * 6))
    kids = [[] for _ in joints]
    roots = []
    for j, jt in enumerate(joints):
        (kids[jt["parent"]] if jt["parent"] >= 0 else roots).append(j)
    nodes = []

    def emit(j):
        nodes.append((0x10, j))
        if kids[j]:
            nodes.append((1, 0))
            for k in kids[j]:
                emit(k)
            nodes.append((2, 0))

    for r in roots:
        emit(r)
    nodes.append((0, 0))
    hier = b"".join(struct.pack(">HH", t, v) for t, v in nodes)
    inf1 = _pad(struct.pack(">4sIHHIII", b"INF1", 0, {"basic": 0, "softimage": 1, "maya": 2}[rule], 0xFFFF, 1, 0, 0x18)
                + hier)
    inf1 = inf1[:4] + struct.pack(">I", len(inf1)) + inf1[8:]
    data = b"".join(records)
    remap_off = 0x18 + len(data)
    jnt1 = _pad(struct.pack(">4sIHHIII", b"JNT1", 0, n, 0xFFFF, 0x18, remap_off, 0) + data
                + b"".join(struct.pack(">H", r) for r in remap))
    jnt1 = jnt1[:4] + struct.pack(">I", len(jnt1)) + jnt1[8:]
    body = inf1 + jnt1
    return struct.pack(">8sII16x", b"J3D2bmd3", 0x20 + len(body), 2) + body


def sm64ds_bytes(bones):
    """An SM64DS BMD bone table: bones with parent (earlier index or -1),
    scale and trans in 20.12 fixed point (ints), rot (4096 per turn)."""
    header = 0x34
    table = header
    names_at = table + 0x40 * len(bones)
    out = struct.pack("<3I", 0, len(bones), table) + b"\0" * (header - 12)
    for i, b in enumerate(bones):
        rel = b["parent"] - i if b["parent"] >= 0 else 0
        has_kids = int(any(o["parent"] == i for o in bones))
        out += struct.pack("<IIhHi3i3hH3i", i, names_at, rel, has_kids, 0, *b["scale_fixed"], *b["rot"], 0,
                           *b["trans_fixed"])
        out += b"\0" * 0x10
    return out + b"b\0\0\0"


def bk_model_bytes(bones, k):
    """A Banjo-Kazooie model bin with only the bone table (header 0x38)."""
    table = 0x38
    header = bytearray(0x38)
    struct.pack_into(">I", header, 0, 0x0B)
    struct.pack_into(">I", header, 0x18, table)
    out = bytes(header) + struct.pack(">fhH", k, len(bones), 0)
    for b in bones:
        out += struct.pack(">3fhh", *b["pivot"], b["bone_id"], b["parent"])
    return out


def keyed_bck_tracks(gameanim, rng, njoints, key_times, ranges, slope=0.2, density=1.0):
    """Random Hermite tracks for a BCK: for each joint, channel and axis
    (kept with probability `density`), keys at key_times() with values in
    ranges[channel] = (low, high) and slopes within +-slope."""
    tracks = []
    for j in range(njoints):
        for ch in ("scale", "rotation", "translation"):
            for a in range(3):
                if density < 1.0 and rng.random() > density:
                    continue
                times = key_times()
                low, high = ranges[ch]
                vals = [rng.uniform(low, high) for _ in times]
                slopes = [rng.uniform(-slope, slope) for _ in times]
                tracks.append(gameanim.Track(j, ch, a, times, vals, slopes, slopes))
    return tracks
