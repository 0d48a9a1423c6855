"""Helpers of the export tests (bl_export_*.py), and small independent
readers of the Banjo-Kazooie, BCA and JBA layouts written from the format
notes (docs/formats), to compare the raw bytes of unchanged channels."""
import struct

import bpy
from blhelpers import SAMPLES, fcurves_of


def all_samples():
    """Every animation sample of a format the add-on imports (formats.known;
    samples/models/ holds model files too: bl_model_retarget.py and
    bl_models.py take those)."""
    import gameanim
    from io_anim_gameanim.shared import formats

    return sorted(p for p in SAMPLES.rglob("*") if p.is_file() and not p.name.startswith(".")
                  and "models" not in p.relative_to(SAMPLES).parts and formats.known(gameanim.detect(p)[0]))


def btk_materials(path):
    """Materials named as the BTK's entries, each with an image texture
    reading every UV slot its entries animate (the importer adds a mapping
    chain only where an image reads the slot)."""
    import gameanim

    anim = gameanim.load(str(path))
    mats = {}
    for e in anim.entries:
        name = e["material"]
        mat = bpy.data.materials.get(name) or bpy.data.materials.new(name)
        if mat.node_tree is None:
            mat.use_nodes = True
        mat.use_fake_user = True  # kept by a save without a mesh using it
        mats[name] = mat
        slot = int(e["texmtx_id"])
        tree = mat.node_tree
        tag = f"test image UV{slot}"
        if slot <= 7 and tree.nodes.get(tag) is None:
            img = tree.nodes.new("ShaderNodeTexImage")
            img.name = tag
            img.location = (-300, -300 * slot)
            if slot:   # slot 0 reads the default UV map (vector unlinked)
                uvn = tree.nodes.new("ShaderNodeUVMap")
                uvn.uv_map = f"UV{slot}"
                tree.links.new(uvn.outputs["UV"], img.inputs["Vector"])
    return mats


def kind_materials(path):
    """Materials named as the entries of a BRK, BPK or BTP (none for BVA)."""
    import gameanim

    mats = {}
    for e in gameanim.load(str(path)).entries or []:
        name = e["material"]
        mat = bpy.data.materials.get(name) or bpy.data.materials.new(name)
        mat.use_fake_user = True
        mats[name] = mat
    return mats


def import_sample(api, path, **kw):
    """Imports a sample the simple way: BTK, BRK, BPK, BTP onto materials of
    its names, BVA onto properties of a new empty, skeletal formats onto a
    new armature.  Returns the actions."""
    if path.name.endswith(".btk"):
        btk_materials(path)
        res = api.import_files([str(path)], **kw)
    elif path.name.endswith((".brk", ".bpk", ".btp", ".bva")):
        kind_materials(path)
        res = api.import_files([str(path)], **kw)
    else:
        kw.setdefault("target", "NEW")
        res = api.import_files([str(path)], **kw)
    assert res.report.files[0].ok, res.report.files[0].error
    return list(res)


def export_bytes(api, action, tmp=None, **kw):
    """Exports to a temporary file and returns (bytes, result)."""
    import os
    import tempfile

    fd, out = tempfile.mkstemp(suffix=".bin", dir=tmp)
    os.close(fd)
    try:
        result = api.export_action(out, action, **kw)
        with open(out, "rb") as f:
            return f.read(), result
    finally:
        os.unlink(out)


def fcurve(action, path, index):
    for fc in fcurves_of(action):
        if fc.data_path == path and fc.array_index == index:
            return fc
    raise KeyError((path, index))


def move_key(fc, i, dy):
    """Moves key i up by dy with its handles, as grabbing it in the Graph
    Editor does."""
    kp = fc.keyframe_points[i]
    kp.co.y += dy
    kp.handle_left.y += dy
    kp.handle_right.y += dy


def track_key(t):
    return (t.target, t.channel, t.axis)


def same_track(a, b):
    return (track_key(a) == track_key(b) and bytes(a.times) == bytes(b.times) and bytes(a.values) == bytes(b.values)
            and bytes(a.in_slopes) == bytes(b.in_slopes) and bytes(a.out_slopes) == bytes(b.out_slopes)
            and bytes(a.interpolation) == bytes(b.interpolation))


# ---------------------------------------------------------------------------
# Independent raw readers (from the notes in docs/formats)


def bk_elements(data):
    """Banjo-Kazooie: {(bone id, type): element bytes} of a bare file."""
    count = struct.unpack_from(">h", data, 4)[0]
    at, out = 8, {}
    for _ in range(count):
        word, nkeys = struct.unpack_from(">Hh", data, at)
        size = 4 + 4 * nkeys
        out[(word >> 4, word & 15)] = data[at:at + size]
        at += size
    return out


def bk_keys(element):
    """[(flag15, flag14, frame, value/64)] of one element."""
    n = struct.unpack_from(">h", element, 2)[0]
    out = []
    for k in range(n):
        w, v = struct.unpack_from(">Hh", element, 4 + 4 * k)
        out.append((w >> 15, (w >> 14) & 1, w & 0x3FFF, v / 64.0))
    return out


def bca_tracks(data):
    """BCA: {(bone, channel index 0..8 = sx sy sz rx ry rz tx ty tz):
    (AA, BB, values consumed)} of a bare file; values are the raw pool
    integers the game reads."""
    nbones, n = struct.unpack_from("<HH", data, 0)
    offs = struct.unpack_from("<IIII", data, 8)
    out = {}
    for b in range(nbones):
        for k in range(9):
            aa, bb, cc = struct.unpack_from("<BBH", data, offs[3] + 36 * b + 4 * k)
            kind = k // 3
            fmt, size, base = ("<i", 4, offs[0]) if kind == 0 else (("<h", 2, offs[1]) if kind == 1 else
                                                                    ("<i", 4, offs[2]))
            if bb == 0:
                count = 1
            elif aa == 0:
                count = n
            else:
                last = ((n - 1) >> aa) << aa
                count = (last >> aa) + (n - last)
            vals = [struct.unpack_from(fmt, data, base + size * (cc + i))[0] for i in range(count)]
            out[(b, k)] = (aa, bb if bb == 0 else 1, vals)
    return out


def jba32_channel_info(data):
    """Legacy JBA: the 48-byte channel-info record of each bone (stride
    and base of translation and rotation)."""
    nsections = struct.unpack_from("<I", data, 0x0C)[0]
    nbones = struct.unpack_from("<I", data, 0x18)[0]
    at = 0x28 + 8 * nsections + 4 * nsections
    at = (at + 127) // 128 * 128
    return [data[at + 48 * b:at + 48 * (b + 1)] for b in range(nbones)]
