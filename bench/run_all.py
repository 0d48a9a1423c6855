"""Runs every benchmark and writes bench/RESULTS.md: the figures, the
machine, the commit and the exact command of each part.

    sh tools/run_bench.sh            # sets up the machine, builds, then runs this
    python3 bench/run_all.py --gameanim build/lib [--quick] [--no-blender34] [--out bench/RESULTS.md]

Parts:
  1. bench/bench_codecs.py       decode / sample / encode throughput per format; C against pure Python
  2. bench/bench_compression.py  Yaz0 / Yay0 throughput
     bench/bench_archives.py     a 5 MB Yaz0 RARC opened, listed, read: C against pure Python
  3. bench/bench_blender.py      import (exact, baked, JBA) against keyframe_insert and the foreach_set
                                 floor, bulk import of 500 files, export, peak memory: in Blender 5.0 (bpy
                                 module) and in Debian's Blender 3.4.1 when `blender` is on PATH.
  4. bench/bench_gui_import.py   a 40-file archive imported in a real Blender 3.4.1 window (Xvfb) against
                                 the scripted import, when `blender` and `xvfb-run` are on PATH.
Each part's printed output is kept verbatim in the results file; the
summary table at the top is computed from the parts' JSON output.
"""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)


def run(cmd, env):
    """Runs one part, echoing its output as it comes; returns the output."""
    print("$ " + " ".join(cmd), flush=True)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
    lines = []
    for line in proc.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        lines.append(line)
    if proc.wait() != 0:
        raise SystemExit(f"benchmark failed ({proc.returncode}): {' '.join(cmd)}")
    return "".join(lines)


def rel(path):
    return os.path.relpath(path, ROOT)


def summary(codecs, blender):
    """Rows of (target, figure, verdict) for the issue's targets."""
    rows = []
    for r in codecs.get("versus_python", []):
        rows.append((f"decode + sample in C vs pure Python ({r['format'].upper()}, every frame)", ">= 100x",
                     f"{r['ratio']:.0f}x ({r['c_s'] * 1e3:.2f} ms vs {r['python_s'] * 1e3:.0f} ms)",
                     r["ratio"] >= 100))
    for variant, res in blender:
        for r in res.get("large", []):
            bound = r.get("floor_vs_naive")
            rows.append((f"{variant}: import {r['case']} {r['format'].upper()} ({r['keys']} keys, {r['curves']} curves)"
                         " vs keyframe_insert", ">= 50x",
                         f"{r['vs_naive']:.0f}x" + (f" (the floor itself: {bound:.0f}x)" if bound else ""),
                         r["vs_naive"] >= 50))
            rows.append((f"{variant}: import {r['case']} {r['format'].upper()} vs the foreach_set floor", "<= 2x",
                         f"{r['vs_floor']:.2f}x (best times {r['import_s'] * 1e3:.0f} ms vs {r['floor_s'] * 1e3:.0f} ms)",
                         r["vs_floor"] <= 2))
        b = res.get("bulk")
        if b:
            rows.append((f"{variant}: bulk import of {b['files']} files ({b['keys']} keys)", "<= 2x the floor",
                         f"{b['vs_floor']:.2f}x ({b['import_s']:.2f} s, {b['overhead_per_file_ms']:.2f} ms overhead "
                         "per file)", b["vs_floor"] <= 2))
        m = res.get("model")
        if m:
            rows.append((f"{variant}: import of a {m['joints']}-joint model file with {m['animations']} animations "
                         f"({m['keys']} keys, {m['curves']} curves)", "<= 2x the floor",
                         f"{m['vs_floor']:.2f}x (best times {m['import_s']:.2f} s vs {m['floor_s']:.2f} s)",
                         m["vs_floor"] <= 2))
        for m in res.get("memory", []):
            if "over_floor_vs_keys" in m:
                rows.append((f"{variant}: peak memory of the {m['case']} import beyond Blender's own (floor)",
                             "<= 3x the keys as float32",
                             f"{m['import_over_floor_mib']:.1f} MiB = {m['over_floor_vs_keys']:.2f}x of "
                             f"{m['keys_f32_mib']:.1f} MiB", m["over_floor_vs_keys"] <= 3))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gameanim", default=os.path.join(ROOT, "build", "lib"), help="folder of the built module")
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run; figures not meaningful)")
    ap.add_argument("--no-blender34", action="store_true", help="skip the Blender 3.4 binary")
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    args = ap.parse_args(argv)
    gdir = os.path.abspath(args.gameanim)
    sys.path.insert(0, gdir)
    import benchdata  # (imports gameanim)
    env = dict(os.environ)
    env["PYTHONPATH"] = gdir + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    tmp = tempfile.mkdtemp(prefix="gameanim-bench-")
    parts = []
    py = sys.executable
    try:
        codecs_json = os.path.join(tmp, "codecs.json")
        cmd = [py, rel(os.path.join(HERE, "bench_codecs.py")), "--json", codecs_json] + \
            (["--repeat", "2"] if args.quick else [])
        parts.append(("Codecs: throughput and C against pure Python", cmd, run(cmd, env)))
        with open(codecs_json) as f:
            codecs = json.load(f)
        cmd = [py, rel(os.path.join(HERE, "bench_compression.py"))] + (["--seconds", "0.2"] if args.quick else [])
        parts.append(("Yaz0 / Yay0 compression", cmd, run(cmd, env)))
        cmd = [py, rel(os.path.join(HERE, "bench_archives.py"))] + (["--mb", "0.5", "--repeat", "2"] if args.quick else [])
        parts.append(("Archives: open, list and read every member of a Yaz0 RARC", cmd, run(cmd, env)))
        blender = []
        variants = [("Blender 5.0 (bpy module)", [py])]
        exe = shutil.which("blender")
        if exe and not args.no_blender34:
            variants.append(("Blender binary (" + exe + ")",
                             [exe, "-b", "--factory-startup", "--python-exit-code", "1", "--python"]))
        for i, (label, prefix) in enumerate(variants):
            out_json = os.path.join(tmp, f"blender{i}.json")
            script = rel(os.path.join(HERE, "bench_blender.py"))
            tail = ["--gameanim", gdir, "--json", out_json] + (["--quick"] if args.quick else [])
            cmd = prefix + [script] + (["--"] if len(prefix) > 1 else []) + tail
            benv = dict(env)
            if len(prefix) > 1:
                # a Blender linked to the system Python finds that Python through
                # PATH: its own folder first (a venv or pyenv would hide its modules)
                benv["PATH"] = os.path.dirname(os.path.realpath(prefix[0])) + os.pathsep + env.get("PATH", "")
            text = run(cmd, benv)
            with open(out_json) as f:
                res = json.load(f)
            blender.append((res.get("variant", label), res))
            parts.append((f"Blender add-on: {res.get('variant', label)}", cmd, text))
        gui = None
        if exe and shutil.which("xvfb-run") and not args.no_blender34:
            out_json = os.path.join(tmp, "gui.json")
            cmd = ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", exe, "--factory-startup", "--python",
                   rel(os.path.join(HERE, "bench_gui_import.py")), "--", "--gameanim", gdir, "--json", out_json]
            benv = dict(env)
            benv["PATH"] = os.path.dirname(os.path.realpath(exe)) + os.pathsep + env.get("PATH", "")
            text = run(cmd, benv)
            with open(out_json) as f:
                gui = json.load(f)
            parts.append(("Import in a real window (Blender 3.4.1 under Xvfb)", cmd, text))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip() or "unknown"
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# Benchmark results", "",
             f"Measured {now} on {benchdata.machine()}, Python {sys.version.split()[0]}, commit {commit}"
             + (" (QUICK smoke run: sizes reduced, figures not meaningful)" if args.quick else "") + ".", "",
             "Reproduce everything with `sh tools/run_bench.sh` (sets up the machine like the tests do, builds, "
             "then runs `python3 bench/run_all.py`); each part's own command is given below.  Figures vary by a "
             "few tens of percent between runs on a shared virtual machine; ratios are measured within one run.",
             "", "## Targets", "", "| what | target | measured | met |", "|---|---|---|---|"]
    rows = summary(codecs, blender)
    if gui:
        rows.append((f"Blender {gui['blender']} window: import of a {gui['files']}-file archive vs scripted",
                     "<= 1.5x + 1 s", f"{gui['gui_s']:.2f} s vs {gui['scripted_s']:.2f} s "
                     f"(median ratio {gui['ratio_median']:.2f})", gui["ok"]))
    for what, target, got, ok in rows:
        lines.append(f"| {what} | {target} | {got} | {'yes' if ok else 'NO'} |")
    lines += ["", "Notes on reading the table:", "",
              "* *naive* is the importer older add-ons use (set the property, `keyframe_insert` per key, then "
              "interpolation and handles per key); it is timed on a subset of whole curves and scaled by the key "
              "count.  *floor* writes the same result from ready buffers with `foreach_set` and no decoding: the "
              "same F-curves, keys, handles, Cycles modifiers, the action's stored properties and its place "
              "(assigned or on an NLA track).  Import and floor take turns in each round; the best round of "
              "each gives the times, the median of the rounds' ratios gives the ratio (one lucky run can move a "
              "ratio of best times by 20% on this machine).",
              "* The exact BCK case holds few keys per curve (Hermite keys fitted within 1e-3: a J3D value table "
              "indexes at most 65536 values, so a 100-bone file holds at most ~70 keys per curve and cannot hold "
              "100 x 1000 dense keys).  Per-curve Blender work (creating 900 F-curves) then dominates both the "
              "import and the floor, and the floor itself is not 50x faster than keyframe_insert there (shown in "
              "brackets): no importer can meet that target on this file.  The dense cases (baked BCK, and JBA, "
              "whose exact mode keys every frame) are where per-key cost shows.",
              "* Memory figures are the peak resident set (VmHWM) of fresh processes over their resident set "
              "before the import; both processes first import a small file of the format and drop it, so the "
              "add-on's code and Blender's animation machinery are part of the baseline.  They move by a MiB or "
              "more between runs (allocator reuse, Blender's own buffers; the exact case's keys are 0.1 MiB, "
              "below that noise), and a negative difference means the import peaked below the floor's run.  "
              "See docs/performance.md for where the time and memory go.", ""]
    for title, cmd, text in parts:
        lines += [f"## {title}", "", "```", "$ " + " ".join(cmd).replace(gdir, "build/lib"), text.rstrip(), "```",
                  ""]
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {rel(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
