"""Yaz0 and Yay0 throughput: decompression and compression in MB/s.

    PYTHONPATH=<build dir> python3 bench/bench_compression.py [--seconds 0.5]

Throughput is counted in uncompressed (payload) bytes per second for both
directions, MB = 10**6 bytes.  Inputs: the payloads of the wrapped J3D
samples together, and the large synthetic BCK of tools/samples_yaz0.py.
The figures are printed only; docs/formats/yaz0.md keeps the latest ones.
"""
import argparse
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import gameanim  # noqa: E402
import samples_yaz0  # noqa: E402


def rate(fn, nbytes, seconds):
    """Best-of-5 MB/s, each round repeating fn for about seconds / 5."""
    fn()
    runs = 1
    while True:
        t = time.perf_counter()
        for _ in range(runs):
            fn()
        dt = time.perf_counter() - t
        if dt >= seconds / 5 or runs >= 1 << 20:
            break
        runs *= 2
    best = dt / runs
    for _ in range(4):
        t = time.perf_counter()
        for _ in range(runs):
            fn()
        best = min(best, (time.perf_counter() - t) / runs)
    return nbytes / best / 1e6


def inputs():
    samples = {}
    for p in sorted((ROOT / "samples" / "j3d").glob("*")):
        if ".yaz0." in p.name or ".yay0." in p.name:
            stem = p.name.replace(".yaz0.", ".").replace(".yay0.", ".")
            samples[stem] = gameanim.load(p).to_bytes(compression=None)
    samples = list(samples.values())
    return {
        f"samples ({len(samples)} files)": samples,
        "large synthetic BCK": [samples_yaz0.large_bck()],
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=1.0, help="time per measurement (default 1.0)")
    args = ap.parse_args(argv)
    print(f"gameanim {gameanim.__version__}, Python {platform.python_version()}, {platform.machine()}")
    print(f"{'input':28s} {'wrapper':7s} {'bytes':>9s} {'ratio':>6s} {'decompress MB/s':>16s} {'compress MB/s':>14s}")
    for label, payloads in inputs().items():
        total = sum(len(p) for p in payloads)
        for w in ("yaz0", "yay0"):
            packed = [gameanim.compress(w, p) for p in payloads]
            for p, c in zip(payloads, packed):
                assert gameanim.decompress(w, c) == p
            ratio = sum(len(c) for c in packed) / total

            def dec(packed=packed, w=w):
                for c in packed:
                    gameanim.decompress(w, c)

            def comp(payloads=payloads, w=w):
                for p in payloads:
                    gameanim.compress(w, p)

            d = rate(dec, total, args.seconds)
            c = rate(comp, total, args.seconds)
            print(f"{label:28s} {w:7s} {total:9d} {ratio:6.3f} {d:16.1f} {c:14.1f}")


if __name__ == "__main__":
    main()
