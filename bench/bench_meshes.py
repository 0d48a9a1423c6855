"""Benchmark of the J3D geometry decoders (docs/meshes.md):

* model decode: load_model plus Model.meshes, .materials and .textures of a
  written model (tools/make_models.py) with 40 joints, 5,000 positions in
  strips through rigid and envelope matrices and 256x256 textures, in MB/s
  of the file (each round loads the file again: the geometry is cached
  per Model);
* texture decode per GX format: gameanim.decode_texture in Mpixel/s,
  against the straightforward Python decoder tests/gx_reference.py (the
  tests' reference) on the same texels (target: at least 100x);
* TEV evaluation: Material.evaluate of a 1024x1024 texel grid through a
  4-stage material (two textures, a konst colour, a compare, a x2 scale;
  target: well under a second).

    python3 bench/bench_meshes.py --gameanim <build dir> [--repeat 5] [--json out.json]
"""
import argparse
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def big_model(mm, njoints=40, npos=5000, ntex=4, side=256):
    rng = random.Random(22)
    joints = [mm.joint(f"j{i}", rotation_raw=tuple(rng.randrange(-32768, 32768) for _ in range(3)),
                       translation=tuple(rng.uniform(-10, 10) for _ in range(3))) for i in range(njoints)]
    parents = [rng.randrange(i) if i else -1 for i in range(njoints)]
    ident = [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0]
    envelopes = [[(rng.randrange(njoints), 0.5), (rng.randrange(njoints), 0.3), (rng.randrange(njoints), 0.2)]
                 for _ in range(60)]
    draw = [(0, j) for j in range(njoints)] + [(1, e) for e in range(len(envelopes))]
    arrays = {mm.POS: mm.vertex_array([tuple(rng.randint(-30000, 30000) / 256 for _ in range(3)) for _ in range(npos)],
                                      "s16", 8),
              mm.NRM: mm.vertex_array([tuple(rng.randint(-60, 60) or 1 for _ in range(3)) for _ in range(npos)], "s8"),
              mm.CLR0: mm.color_array([tuple(rng.randrange(256) for _ in range(4)) for _ in range(npos)]),
              mm.TEX0: mm.vertex_array([tuple(rng.randint(0, 60000) / 16384 for _ in range(2)) for _ in range(npos)],
                                       "u16", 14)}
    attrs = [(mm.PNMTXIDX, mm.DIRECT), (mm.POS, mm.INDEX16), (mm.NRM, mm.INDEX16), (mm.CLR0, mm.INDEX16),
             (mm.TEX0, mm.INDEX16)]
    shapes = []
    per_shape = 500
    for s in range(npos // per_shape):
        packets = []
        for p in range(10):
            table = [rng.randrange(len(draw)) for _ in range(10)]
            base = s * per_shape + p * (per_shape // 10)
            strip = []
            for k in range(per_shape // 10 * 2):
                i = base + (k // 2 if k % 2 == 0 else k // 2 + 1) % (per_shape // 10)
                strip.append((3 * rng.randrange(10), i, i, i, i))
            packets.append(mm.packet(table, [("strip", strip)]))
        shapes.append(mm.shape(attrs, packets, matrix_type=3))
    textures = [mm.texture(f"t{i}", "CMPR", side, side, bytes(rng.getrandbits(8) for _ in range(side * side // 2)))
                for i in range(ntex)]
    extra = [("VTX1", mm.vtx1_body(arrays)), ("SHP1", mm.shp1_body(shapes)),
             ("MAT3", mm.mat3_body([mm.material(f"m{i}") for i in range(4)])), ("TEX1", mm.tex1_body(textures))]
    return mm.write_j3d_model(joints, parents, envelopes=envelopes, inverse_binds=[ident] * njoints, draw=draw,
                              extra_chunks=extra)


def bench_tev(gameanim, mm, rng, repeat):
    """Best time of Material.evaluate on 1024x1024 pixels, 4 stages."""
    def half(a, b, c, d, op=0, bias=0, scale=0, clamp=1, out=0):
        return (a, b, c, d, op, bias, scale, clamp, out)

    mat = mm.material("toon", stages=((0, 0, 4), (1, 1, 4), (0xFF, 0xFF, 4), (0, 0, 4)), textures=(0, 1),
                      texgens=((1, 4, 60), (1, 5, 60)), konst=((200, 120, 40, 255),),
                      tev=[(half(2, 14, 8, 15), half(7, 7, 7, 4)),            # lerp(C0, K0, TEXC)
                           (half(15, 8, 0, 15, scale=1), half(7, 4, 0, 7)),   # TEXC * CPREV * 2
                           (half(0, 10, 1, 15, op=14), half(7, 7, 7, 0)),     # compare RGB8
                           (half(15, 0, 10, 15, op=1), half(0, 7, 5, 7))],    # -(CPREV * RASC)
                      konst_sel=[(12, 28)] * 4, tev_colors=((40, 30, 20, 255),))
    data = mm.write_j3d_model([mm.joint("r")], [-1], extra_chunks=[("MAT3", mm.mat3_body([mat]))])
    material = gameanim.load_model(data).materials[0]
    n = 1024 * 1024
    planes = [bytes(rng.getrandbits(8) for _ in range(4096)) * (4 * n // 4096) for _ in range(3)]
    tex = [planes[0], planes[1], None, planes[0]]
    ras = [planes[2]] * 4
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        rgba, passed = material.evaluate(tex, ras)
        best = min(best, time.perf_counter() - t0)
    assert len(rgba) == 4 * n and len(passed) == n
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gameanim", required=True, help="the build folder holding the gameanim package")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    sys.path.insert(0, ROOT)  # (tools.make_models)
    sys.path.insert(0, os.path.abspath(args.gameanim))  # before ROOT: the built package, not the source tree's
    import gameanim
    assert os.path.dirname(os.path.dirname(os.path.abspath(gameanim.__file__))) == os.path.abspath(args.gameanim)
    import gx_reference
    from tools import make_models as mm

    data = big_model(mm)
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        m = gameanim.load_model(data)
        meshes, mats, texs = m.meshes, m.materials, m.textures
        times.append(time.perf_counter() - t0)
    best = min(times)
    nverts = sum(len(s.positions) // 3 for s in meshes)
    ntris = sum(len(s.triangles) // 3 for s in meshes)
    texels = sum(t.width * t.height for t in texs)
    print(f"model decode: {len(data)} bytes, {len(meshes)} shapes, {nverts} vertices, {ntris} triangles, "
          f"{len(mats)} materials, {len(texs)} textures ({texels} texels)")
    print(f"  load_model + meshes + materials + textures: {best * 1e3:.2f} ms  -> {len(data) / best / 1e6:.1f} MB/s "
          f"(best of {args.repeat})")
    result = {"model_bytes": len(data), "model_s": best, "model_mb_s": len(data) / best / 1e6, "textures": {}}

    print("texture decode, C (decode_texture, 512x512) vs straightforward Python (tests/gx_reference.py, 64x64): "
          "best rates, ratio the median of interleaved rounds")
    rng = random.Random(5)
    worst = None
    for fmt in gx_reference.BLOCKS:
        pal = bytes(rng.getrandbits(8) for _ in range(512)) if fmt in ("C4", "C8", "C14X2") else b""
        big = bytes(rng.getrandbits(8) for _ in range(gx_reference.image_size(fmt, 512, 512)))
        small = bytes(rng.getrandbits(8) for _ in range(gx_reference.image_size(fmt, 64, 64)))
        # C and Python take turns, so that both see the same load on a shared machine; each round's C time
        # is the best of 6 decodes (one takes about a millisecond); the ratio is the median of the rounds'
        c_best, py_best, ratios = float("inf"), float("inf"), []
        for _ in range(args.repeat):
            ct = []
            for _ in range(6):
                t0 = time.perf_counter()
                gameanim.decode_texture(big, fmt, 512, 512, palette=pal or None, palette_format="RGB5A3")
                ct.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            want = gx_reference.decode(fmt, small, 64, 64, pal, "RGB5A3")
            pt = time.perf_counter() - t0
            ratios.append((512 * 512 / min(ct)) / (64 * 64 / pt))
            c_best, py_best = min(c_best, min(ct)), min(py_best, pt)
        c_px, py_px = 512 * 512 / c_best, 64 * 64 / py_best
        assert want == gameanim.decode_texture(small, fmt, 64, 64, palette=pal or None, palette_format="RGB5A3")
        ratio = sorted(ratios)[len(ratios) // 2]
        worst = ratio if worst is None else min(worst, ratio)
        print(f"  {fmt:7s} C {c_px / 1e6:8.1f} Mpixel/s   Python {py_px / 1e6:7.3f} Mpixel/s   ratio {ratio:6.0f}x")
        result["textures"][fmt] = {"c_mpx_s": c_px / 1e6, "python_mpx_s": py_px / 1e6, "ratio": ratio}
    print(f"  -> slowest ratio {worst:.0f}x (target >= 100x)")
    result["worst_ratio"] = worst

    tev_s = bench_tev(gameanim, mm, rng, args.repeat)
    print(f"TEV evaluate: 1024x1024 pixels through a 4-stage material: {tev_s * 1e3:.1f} ms "
          f"({1024 * 1024 / tev_s / 1e6:.1f} Mpixel/s, best of {args.repeat}; target well under 1 s)")
    result["tev_1024_s"] = tev_s
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f)
    return 0 if worst >= 100 else 1


if __name__ == "__main__":
    sys.exit(main())
