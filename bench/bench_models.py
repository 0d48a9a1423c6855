"""Benchmark of Model.world_matrices (docs/skeleton.md): the game's joint
matrices of a 100-joint model over 1,000 frames of a BCK (every one of its
900 tracks keyed every 25 frames), in one call, against a straightforward
Python implementation of the same work: the BCK's keys sampled in Python
(bench/pure_python.py, the codecs benchmark's baseline) and the matrices
composed in Python (tests/model_reference.py straightforward_world:
float64, math.sin, a loop over the bones per frame).

    python3 bench/bench_models.py --gameanim <build dir> [--joints 100] [--frames 1000] [--repeat 5] [--json out.json]

Target: at least 100x.  Also printed: the composition alone (Python given
the sampled values for free), a harder comparison than the target's.
"""
import argparse
import json
import math
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def build_inputs(gameanim, model_fixtures, njoints, nframes):
    rng = random.Random(19)
    joints = []
    for j in range(njoints):
        joints.append(dict(parent=rng.randrange(j) if j else -1,
                           scale=[1.0, 1.0, 1.0],
                           rot=[rng.randrange(-32768, 32768) for _ in range(3)],
                           trans=[rng.uniform(-20, 20) for _ in range(3)]))
    model = gameanim.load_model(model_fixtures.j3d_bytes(joints, "basic"))
    tracks = model_fixtures.keyed_bck_tracks(
        gameanim, rng, njoints, lambda: [float(t) for t in range(0, nframes + 1, 25)],
        {"scale": (0.8, 1.25), "rotation": (-3.0, 3.0), "translation": (-20, 20)}, slope=0.05)
    anim = gameanim.load(gameanim.Animation("bck", tracks, frame_count=nframes).to_bytes())
    return joints, model, anim


def python_sampled(data, njoints, frames, pure_python):
    """Per frame, per joint (scale, rotation radians, translation), sampled
    in Python from the file's bytes."""
    anim = pure_python.bck_decode(data)
    per_track = [[pure_python.bck_value(ch, keys, f, anim["frac"]) for f in frames] for ch, keys in anim["tracks"]]
    poses = []
    for f in range(len(frames)):
        pose = []
        for j in range(njoints):
            base = j * 9
            pose.append(tuple([per_track[base + ch * 3 + a][f] for a in range(3)] for ch in range(3)))
        poses.append(pose)
    return poses


def python_inputs(joints, anim, frames):
    """Per frame, per joint (scale, rotation radians, translation) from the
    game's sampler (in C), for the composition alone."""
    values = anim.sample(frames)
    nf = len(frames)
    first = {}
    for i in anim.applied_tracks():
        t = anim.tracks[i]
        first.setdefault((t.target, t.channel, t.axis), i)
    poses = []
    for f in range(nf):
        pose = []
        for j in range(len(joints)):
            comp = []
            for ch in ("scale", "rotation", "translation"):
                comp.append([values[first[(j, ch, a)] * nf + f] for a in range(3)])
            pose.append(tuple(comp))
        poses.append(pose)
    return poses


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gameanim", required=True, help="the build folder holding the gameanim package")
    ap.add_argument("--joints", type=int, default=100)
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.gameanim))
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    sys.path.insert(0, HERE)
    import gameanim
    import pure_python
    import model_fixtures
    import model_reference

    joints, model, anim = build_inputs(gameanim, model_fixtures, args.joints, args.frames)
    frames = [float(f) for f in range(args.frames)]

    c_times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        out = model.world_matrices(anim, frames)
        c_times.append(time.perf_counter() - t0)
    assert len(out) == args.frames * args.joints * 16
    c_s = min(c_times)

    bones = [dict(parent=j["parent"]) for j in joints]
    t0 = time.perf_counter()
    py_poses = python_sampled(anim.original_bytes(), args.joints, frames, pure_python)
    py_out = [model_reference.straightforward_world(bones, pose) for pose in py_poses]
    py_s = time.perf_counter() - t0

    poses = python_inputs(joints, anim, frames)
    t0 = time.perf_counter()
    for pose in poses:
        model_reference.straightforward_world(bones, pose)
    compose_s = time.perf_counter() - t0
    # a sanity check of what was timed: the same rig and values; the Basic
    # rule is full inheritance when no accumulated scale is exactly 1, so the
    # two differ only by the game's table sines and float32
    worst = max(abs(a - b) for a, b in zip(out[:args.joints * 16], [x for m in py_out[0] for x in m]))
    assert worst < 1.0 and math.isfinite(worst), worst

    matrices = args.joints * args.frames
    ratio = py_s / c_s
    compose_ratio = compose_s / c_s
    print(f"world_matrices of {args.joints} joints x {args.frames} frames (J3D Basic rule, a BCK animating "
          f"{len(anim.tracks)} tracks), one call")
    print(f"  C (samples every track and composes): {c_s * 1e3:8.2f} ms  ({c_s / matrices * 1e9:.0f} ns per joint "
          f"and frame; best of {args.repeat})")
    print(f"  straightforward Python (samples the keys, composes in float64): {py_s:8.2f} s")
    print(f"  -> {ratio:.0f}x faster (target >= 100x); largest difference at frame 0: {worst:.2g}")
    print(f"  the composition alone in Python (given the C's samples): {compose_s:8.2f} s -> {compose_ratio:.0f}x")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"joints": args.joints, "frames": args.frames, "c_s": c_s, "python_s": py_s, "ratio": ratio,
                       "python_compose_s": compose_s, "compose_ratio": compose_ratio}, f)
    return 0 if ratio >= 100 else 1


if __name__ == "__main__":
    sys.exit(main())
