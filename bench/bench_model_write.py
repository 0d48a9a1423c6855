"""Benchmark of the J3D geometry writer (issue 34, docs/model_writer.md
"Meshes"): Model.replace_mesh on bench/benchdata.py's mesh_model_file (40
joints, 5,000 vertices in 40 skinned shapes, F32 arrays).

* whole model: every shape written back with its own arrays (positions,
  triangles, normals, UVs, joints and weights given), 5,000 vertices in
  all, one replace_mesh per shape; also the best single call;
* one shape: shape 0 replaced by a 5,000-vertex grid skinned over all
  40 joints (new envelopes, packets split at 10 matrices);
* regenerate: Model.to_bytes(regenerate=True) of the whole model (every
  chunk with an encoder written afresh, VTX1 and SHP1 included: the
  shapes decoded, re-stripped and re-packed), and of the model with the
  5,000-vertex shape.

Each figure is the best of --repeat rounds, each on a freshly loaded model
(the arrays are read before the clock starts).  Target: 20 ms.

    python3 bench/bench_model_write.py --gameanim <build dir> [--repeat 5]
"""
import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def grid(nv_side, njoints):
    """A (nv_side x nv_side) grid in model space with two-joint weights
    that walk along the chain (joint j and j+1 by row)."""
    from array import array

    pos, uvs, joints, weights, tris = array("f"), array("f"), array("I"), array("f"), array("I")
    for r in range(nv_side):
        for c in range(nv_side):
            a = 2.0 * math.pi * c / (nv_side - 1)
            pos.extend((math.cos(a), 2.0 * njoints * r / nv_side, math.sin(a)))
            uvs.extend((c / (nv_side - 1), r / (nv_side - 1)))
            j = min(njoints - 2, r * (njoints - 1) // nv_side)
            f = (r * (njoints - 1) / nv_side) - j
            joints.extend((j, j + 1))
            weights.extend((1.0 - f * 0.5, f * 0.5))
    for r in range(nv_side - 1):
        for c in range(nv_side - 1):
            a, b = r * nv_side + c, r * nv_side + c + 1
            d, e = a + nv_side, b + nv_side
            tris.extend((a, b, e, a, e, d))
    return pos, tris, uvs, joints, weights


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gameanim", required=True, help="the build folder holding the gameanim package")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.abspath(args.gameanim))
    import gameanim
    from benchdata import mesh_model_file

    data = mesh_model_file()
    base = gameanim.load_model(data)
    meshes = base.meshes
    nverts = sum(len(m.positions) // 3 for m in meshes)
    best = float("inf")
    for _ in range(args.repeat):
        m = gameanim.load_model(data)
        t0 = time.perf_counter()
        for i, s in enumerate(meshes):
            m.replace_mesh(i, s.positions, s.triangles, s.normals, None, s.uvs, s.joints, s.weights)
        best = min(best, time.perf_counter() - t0)
    print(f"replace_mesh, whole model: {len(meshes)} shapes, {nverts} vertices: {best * 1e3:.2f} ms "
          f"({best * 1e3 / len(meshes):.3f} ms per shape)")
    # one call at a time (the load of a shared machine spreads over a 40-call round)
    m = gameanim.load_model(data)
    s = meshes[5]
    single = float("inf")
    for _ in range(40 * args.repeat):
        t0 = time.perf_counter()
        m.replace_mesh(5, s.positions, s.triangles, s.normals, None, s.uvs, s.joints, s.weights)
        single = min(single, time.perf_counter() - t0)
    print(f"  one {len(s.positions) // 3}-vertex shape alone: {single * 1e3:.3f} ms (x {len(meshes)} = "
          f"{single * 1e3 * len(meshes):.2f} ms)")

    side = 71  # 5,041 vertices
    pos, tris, uvs, joints, weights = grid(side, len(base.bones))
    best = float("inf")
    for _ in range(args.repeat):
        m = gameanim.load_model(data)
        t0 = time.perf_counter()
        m.replace_mesh(0, pos, tris, normals=pos, uvs=[uvs], joints=joints, weights=weights)
        best = min(best, time.perf_counter() - t0)
    print(f"replace_mesh, one shape of {len(pos) // 3} vertices, {len(tris) // 3} triangles: {best * 1e3:.2f} ms")

    for label, model in (("whole model", gameanim.load_model(data)), ("with the grid shape", m)):
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            model.to_bytes(regenerate=True)
            best = min(best, time.perf_counter() - t0)
        n = sum(len(s.positions) // 3 for s in model.meshes)
        print(f"to_bytes(regenerate=True), {label}: {len(model.meshes)} shapes, {n} vertices: {best * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
