"""Decode, sample and encode throughput of every format on its long sample,
against a plain-Python decoder where one exists.

    python3 bench/bench_codecs.py [--repeat N] [--write bench/RESULTS.md]

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
    "btk": "j3d/scroll_basic.btk",
    "bca": "bca/long_600.bca",
    "bk": "bk/long_60x500.bin",
    "jba": "jba/humanoid_106x300_64.jba",
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


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    print(f"machine: {machine()}")
    print(f"{'format':6} {'file':34} {'bytes':>9} {'keys':>8} {'decode MB/s':>12} {'decode keys/s':>14} "
          f"{'sample values/s':>16} {'encode MB/s':>12}")
    for fmt, rel in LONG_SAMPLES.items():
        path = SAMPLES / rel
        if not path.exists():
            print(f"{fmt:6} (no sample {rel})")
            continue
        r = bench_file(fmt, path, args.repeat)
        print(f"{fmt:6} {r['file']:34} {r['bytes']:9d} {r['keys']:8d} {r['decode_MBps']:12.1f} "
              f"{r['decode_keys_per_s']:14.3g} {r['sample_values_per_s']:16.3g} {r['encode_MBps']:12.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
