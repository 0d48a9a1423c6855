"""Decode, sample and encode throughput of every format on its long sample,
and decode + sample in C against a straightforward pure-Python decoder
(bench/pure_python.py) for BCK and BCA.

    PYTHONPATH=build/lib python3 bench/bench_codecs.py [--repeat N] [--json out.json]

Prints one line per format: file size, keys, MB/s decoded, keys/s sampled,
MB/s encoded (a re-encode of every track).  Figures depend on the machine;
bench/RESULTS.md records them with the command and the machine.
"""
import argparse
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import gameanim

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"

LONG_SAMPLES = {
    "bck": "j3d/long_60x600.bck",
    "btk": "j3d/water_scroll.yaz0.btk",
    "bca": "bca/long600_lz77.bca",
    "bk": "bk/long.bin",
    "jba": "jba/legacy_humanoid_106x300.jba",
    # the other J3D kinds (issue 21): their only samples, small
    "brk": "j3d/tev_pulse.brk",
    "bpk": "j3d/material_fade.bpk",
    "btp": "j3d/eye_mouth.btp",
    "bva": "j3d/parts_blink.bva",
    "j3d_bca": "j3d/kart_object.bca",
}


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_file(fmt, path, repeat):
    data = path.read_bytes()
    anim = gameanim.load(data)
    keys = sum(len(t) for t in anim.tracks)
    frames = [i * 0.5 for i in range(int(max(anim.frame_count, 1) * 2) + 1)]
    t_dec = best_of(lambda: gameanim.load(data), repeat)
    t_smp = best_of(lambda: anim.sample(frames), repeat)
    # a new Animation from the same tracks has no original data to reuse
    fresh = gameanim.Animation(fmt, [t.copy() for t in anim.tracks], frame_count=anim.frame_count,
                               fps=anim.fps, loop=anim.loop, entries=anim.entries,
                               rotation_frac=anim.rotation_frac, calc_type=anim.calc_type,
                               start_frame=anim.start_frame, layout=anim.layout)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_enc = best_of(lambda: fresh.to_bytes(compression=None), max(1, repeat // 2))
    values = len(anim.tracks) * len(frames)
    return {
        "format": fmt,
        "file": str(path.relative_to(ROOT)),
        "bytes": len(data),
        "tracks": len(anim.tracks),
        "keys": keys,
        "decode_MBps": len(data) / t_dec / 1e6,
        "decode_keys_per_s": keys / t_dec,
        "sample_values_per_s": values / t_smp,
        "encode_MBps": len(data) / t_enc / 1e6,
    }


def versus_python(repeat):
    """decode + sample of the whole clip at every frame: C against Python."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import pure_python

    rows = []
    for fmt, rel, py in (("bck", LONG_SAMPLES["bck"], pure_python.bck_decode_and_sample),
                         ("bca", LONG_SAMPLES["bca"], pure_python.bca_decode_and_sample)):
        data = (SAMPLES / rel).read_bytes()
        anim = gameanim.load(data)
        frames = [float(i) for i in range(int(anim.frame_count))]
        c_out = gameanim.load(data).sample(frames)
        py_out = py(data, frames)
        worst = max(abs(a - b) for a, b in zip(c_out, py_out))
        # same results (up to one rotation step where a Hermite value lands on a whole raw unit)
        assert len(c_out) == len(py_out) and worst < 2e-4, (fmt, worst)
        # The machine's speed drifts (shared hosts): measure C and Python
        # side by side in rounds and report the median of the rounds' ratios.
        ratios, t_cs, t_pys = [], [], []
        for _ in range(max(9, repeat)):
            t_c = best_of(lambda: gameanim.load(data).sample(frames), 5)
            t_py = best_of(lambda: py(data, frames), 1)
            t_cs.append(t_c)
            t_pys.append(t_py)
            ratios.append(t_py / t_c)
        ratios.sort()
        rows.append((fmt, rel, len(c_out), min(t_cs), min(t_pys), ratios[len(ratios) // 2]))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args(argv)
    results = {"throughput": [], "versus_python": []}
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import benchdata

    print(f"machine: {benchdata.machine()}, Python {platform.python_version()}")
    print(f"{'format':6} {'file':34} {'bytes':>9} {'keys':>8} {'decode MB/s':>12} {'decode keys/s':>14} "
          f"{'sample values/s':>16} {'encode MB/s':>12}")
    for fmt, rel in LONG_SAMPLES.items():
        path = SAMPLES / rel
        if not path.exists():
            print(f"{fmt:6} (no sample {rel})")
            continue
        r = bench_file(fmt, path, args.repeat)
        results["throughput"].append(r)
        print(f"{fmt:6} {r['file']:34} {r['bytes']:9d} {r['keys']:8d} {r['decode_MBps']:12.1f} "
              f"{r['decode_keys_per_s']:14.3g} {r['sample_values_per_s']:16.3g} {r['encode_MBps']:12.1f}")
    print()
    print("decode + sample every frame, C extension vs a straightforward pure-Python decoder (target: >= 100x)")
    for fmt, rel, values, t_c, t_py, ratio in versus_python(args.repeat):
        results["versus_python"].append({"format": fmt, "file": rel, "values": values, "c_s": t_c, "python_s": t_py,
                                         "ratio": ratio})
        print(f"{fmt:6} {rel:34} {values:9d} values  C {t_c * 1e3:8.2f} ms  Python {t_py * 1e3:9.1f} ms  "
              f"ratio {ratio:7.0f}x (median of the rounds)")
    if args.json:
        import json

        results["machine"] = benchdata.machine()
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
