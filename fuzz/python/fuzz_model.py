#!/usr/bin/env python3
"""Fuzz target: gameanim.load_model, Model.world_matrices and the J3D
geometry (Model.meshes, .textures, .materials) and the writer (Model.to_bytes,
regenerate=True) on models written by
tools/make_models.py (random joints, hierarchies, remap tables, names,
rules, random vertex formats, primitives, skinning and textures, optionally
compressed) and then damaged at random bytes.  A model that loads must have
parents in range with no cycle, as many bones as its world_matrices rows,
and world_matrices must take the animation of the model's family and refuse
the others; its meshes must index their own vertices and real joints, its
textures hold width x height RGBA texels (or raise FormatError) (fuzz/python/_fuzzlib.py says what a
finding is).
    python3 fuzz/python/fuzz_model.py -max_total_time=30      (atheris)
    python3 fuzz/python/fuzz_model.py --plain 300              (no atheris)
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import _fuzzlib as F  # noqa: E402
import gameanim  # noqa: E402
import make_models as mm  # noqa: E402

FAMILY_ANIMATION = {"j3d": "bck", "sm64ds": "bca", "bk": "bk"}


def random_parents(inp, n):
    """-1 or an earlier index for each bone (a valid tree)."""
    return [-1 if i == 0 or inp.int(0, 4) == 0 else inp.int(0, i - 1) for i in range(n)]


def random_geometry(inp, n):
    """VTX1 / SHP1 / MAT3 / TEX1 bodies, DRW1 entries and EVP1 envelopes for n joints."""
    nv = inp.int(1, 8)
    ranges = {"u8": (0, 255), "s8": (-128, 127), "u16": (0, 65535), "s16": (-32768, 32767), "f32": (-100, 100)}

    def array(k, ctype, shift=0):
        lo, hi = ranges[ctype]
        return mm.vertex_array([tuple(inp.int(lo, hi) / (1 << shift) for _ in range(k)) for _ in range(nv)], ctype,
                               shift)

    arrays = {mm.POS: array(inp.int(2, 3), inp.choice(tuple(ranges)), inp.int(0, 4))}
    if inp.bool():
        arrays[mm.NRM] = array(3, inp.choice(("s8", "s16", "f32")))
    if inp.bool():
        arrays[mm.CLR0 + inp.int(0, 1)] = mm.color_array([tuple(inp.int(0, 255) for _ in range(4))
                                                          for _ in range(nv)], inp.choice(tuple(mm.COLOR_TYPES)),
                                                         inp.bool())
    if inp.bool():
        arrays[mm.TEX0 + inp.int(0, 7)] = array(inp.int(1, 2), inp.choice(tuple(ranges)), inp.int(0, 8))
    envelopes = [[(inp.int(0, n - 1), 0.5), (inp.int(0, n - 1), 0.5)] for _ in range(inp.int(0, 2))]
    draw = [(0, inp.int(0, n - 1)) for _ in range(inp.int(1, 3))] + [(1, e) for e in range(len(envelopes))]
    attrs = [(a, inp.choice((mm.INDEX8, mm.INDEX16))) for a in sorted(arrays)]
    multi = inp.bool()
    if multi:
        attrs = [(mm.PNMTXIDX, mm.DIRECT)] + attrs
    shapes = []
    for _ in range(inp.int(1, 3)):
        packets = []
        for _ in range(inp.int(1, 2)):
            table = [inp.choice((inp.int(0, len(draw) - 1), 0xFFFF)) for _ in range(inp.int(1, 3))]
            table[0] = inp.int(0, len(draw) - 1) if not packets else table[0]
            prims = []
            for _ in range(inp.int(1, 3)):
                verts = [tuple(([3 * inp.int(0, len(table) - 1)] if multi else []) +
                               [inp.int(0, nv - 1) for _ in arrays]) for _ in range(inp.int(0, 9))]
                prims.append((inp.choice(tuple(mm.PRIMITIVES)), verts))
            packets.append(mm.packet(table, prims))
        shapes.append(mm.shape(attrs, packets, matrix_type=3 if multi else inp.int(0, 2)))
    fmt = inp.choice(tuple(mm.GX_FORMATS))
    w, h = inp.int(1, 20), inp.int(1, 20)
    size = {"RGBA8": 64}.get(fmt, 32) * -(-w // 8) * -(-h // 4)  # (at least the blocks any format needs)
    textures = [mm.texture("t", fmt, w, h, bytes(inp.int(0, 255) for _ in range(min(size, 64))) * (size // 64 + 1),
                           palette=bytes(inp.int(0, 255) for _ in range(2 * inp.int(0, 20))),
                           palette_format=inp.int(0, 2))]
    materials = [mm.material(textures=(0,), stages=((0, inp.int(0, 8), 4),))]
    extra = [("VTX1", mm.vtx1_body(arrays)), ("SHP1", mm.shp1_body(shapes)), ("MAT3", mm.mat3_body(materials)),
             ("TEX1", mm.tex1_body(textures))]
    binds = [[1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0]] * n
    return extra, draw, envelopes or None, binds if envelopes else None


def random_model(inp):
    family = inp.choice(("j3d", "sm64ds", "bk"))
    n = inp.int(1, 12)
    parents = random_parents(inp, n)
    if family == "j3d":
        joints = [mm.joint(f"j{i}", scale=tuple(inp.choice((1.0, 2.0, 0.5, -1.0, 0.0)) for _ in range(3)),
                           rotation_raw=tuple(inp.int(-32768, 32767) for _ in range(3)),
                           translation=tuple(inp.int(-100, 100) / 4 for _ in range(3)),
                           scale_compensate=inp.choice((0, 1, 0xFF)), kind=inp.int(0, 0x12))
                  for i in range(n)]
        remap = [inp.int(0, n - 1) for _ in range(n)] if inp.bool() else None
        geometry = {}
        if inp.bool():
            extra, draw, envelopes, binds = random_geometry(inp, n)
            geometry = dict(extra_chunks=extra, draw=draw, envelopes=envelopes, inverse_binds=binds)
        data = mm.write_j3d_model(joints, parents, calc=inp.choice(("basic", "softimage", "maya")), remap=remap,
                                  with_shapes=inp.bool(), kind=inp.choice(("bmd", "bdl")), **geometry)
        wrapper = inp.choice((None, "yaz0", "yay0"))
    elif family == "sm64ds":
        bones = [mm.sm64ds_bone(f"b{i}", parents[i], rotation_raw=tuple(inp.int(-4096, 4096) for _ in range(3)),
                                translation_fixed=tuple(inp.int(-40960, 40960) for _ in range(3)))
                 for i in range(n)]
        data = mm.write_sm64ds_bmd(bones, inp.int(0, 8))
        wrapper = inp.choice((None, "lz77"))
    else:
        data = mm.write_bk_model([(tuple(inp.int(-100, 100) for _ in range(3)), inp.int(0, 0x6C), parents[i])
                                  for i in range(n)], inp.choice((1.0, 45.0, 0.0)))
        wrapper = inp.choice((None, "rarezip"))
    return family, data, wrapper


def check_geometry(m, n):
    for attr in ("meshes", "textures", "materials"):
        try:
            items = getattr(m, attr)
        except gameanim.FormatError:
            continue
        if m.family != "j3d":
            F.check(items == (), f"a {m.family} model has {attr}")
        for it in items:
            if attr == "meshes":
                nv = len(it.positions) // 3
                F.check(all(t < nv for t in it.triangles), f"mesh {it.index}: a triangle past its {nv} vertices")
                F.check(all(j < n for j in it.joints), f"mesh {it.index}: a joint past the {n} bones")
                F.check(len(it.weights) == nv * it.influences, f"mesh {it.index}: weights of the wrong length")
            elif attr == "textures":
                F.check(len(it.pixels) == it.width * it.height * 4, f"texture {it.index}: wrong pixel count")
            else:  # the decoded state runs through the TEV evaluator
                ns = len(it.tev_stages)
                rgba, passed = it.evaluate([b"\x80\x40\x20\x10" * 3] * ns, [None] * ns)
                F.check(len(rgba) == 12 and len(passed) == 3 and set(passed) <= {0, 1}, f"material {it.index}: "
                        "evaluate's output")


def _skeleton(m):
    return [(b.name, b.parent, b.kind, b.scale_compensate_raw, b.rotation_raw, b.data_index) +
            tuple(struct.pack(">%df" % len(v), *v) for v in (b.scale, b.translation, b.bound_min, b.bound_max))
            if m.family == "j3d" else (b.name, b.parent) for b in m.bones]


def check_writer(m, blob):
    """to_bytes of the unedited model is its input; the unwrapped file loads
    as the same skeleton; a J3D model regenerates into a file that loads as
    the same skeleton and regenerates into itself (docs/model_writer.md)."""
    F.check(m.to_bytes() == blob, "an unedited model does not write back its input")
    plain = gameanim.load_model(m.to_bytes(compression=None))
    F.check(_skeleton(plain) == _skeleton(m), "the unwrapped file has another skeleton")
    if m.family != "j3d":
        try:
            m.to_bytes(regenerate=True)
        except ValueError:
            return
        F.check(False, f"a {m.family} model regenerated")
    try:
        out = m.to_bytes(compression=None, regenerate=True)
    except gameanim.FormatError:  # a limit (name table offsets, DRW1 count), a chunk that does not decode
        return
    except gameanim.EncodeError:  # geometry regenerate cannot write (NBT, texture matrix indices)
        return
    again = gameanim.load_model(out)
    F.check(_skeleton(again) == _skeleton(m), "the regenerated model has another skeleton")
    F.check(again.inverse_binds == m.inverse_binds or str(again.inverse_binds) == str(m.inverse_binds),
            "the regenerated model has other inverse binds")
    F.check(again.to_bytes(regenerate=True) == out, "regenerating a regenerated model changes it")


def body(inp):
    family, data, wrapper = random_model(inp)
    data = bytearray(data)
    for _ in range(inp.int(0, 2) if inp.int(0, 2) == 0 else 0):  # damage, in one input of three
        if data:
            data[inp.int(0, len(data) - 1)] = inp.int(0, 255)
    if inp.int(0, 15) == 15:  # (a run-out input, all zeros, keeps the whole file)
        data = data[:inp.int(0, len(data))]
    blob = bytes(data)
    if wrapper:
        blob = gameanim.compress(wrapper, blob)
    m = gameanim.load_model(blob)
    n = len(m.bones)
    for b in m.bones:
        F.check(-1 <= b.parent < n and b.parent != b.index, f"bone {b.index}: parent {b.parent} of {n}")
        p, steps = b.parent, 0
        while p >= 0:
            steps += 1
            F.check(steps <= n, f"bone {b.index}: parents form a cycle")
            p = m.bones[p].parent
    check_geometry(m, n)
    check_writer(m, blob)
    frames = [inp.float() for _ in range(inp.int(0, 3))] if inp.bool() else inp.float()
    own = FAMILY_ANIMATION[m.family]
    other = inp.choice(tuple(f for f in ("bck", "btk", "bca", "bk", "jba") if f != own))
    try:
        m.world_matrices(gameanim.Animation(other), frames)
    except ValueError:
        pass
    else:
        F.check(False, f"world_matrices took a {other} animation on a {m.format} model")
    tracks = [inp.track(own) for _ in range(inp.int(0, 3))]
    anim = gameanim.Animation(own, tracks, frame_count=inp.int(0, 60))
    out = m.world_matrices(anim if inp.bool() else None, frames)
    count = len(frames) if isinstance(frames, list) else 1
    F.check(len(out) == count * n * 16, f"world_matrices gave {len(out)} floats for {count} frames x {n} bones")


if __name__ == "__main__":
    F.main(body, "fuzz_model")
