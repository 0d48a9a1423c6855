"""The archive import in a real Blender window against the same import from
a script (issue 32: 85 s in a window against 0.05 s scripted, because the
window was repainted after every file).

    xvfb-run -a -s "-screen 0 1600x1000x24" blender --factory-startup \\
        --python bench/bench_gui_import.py -- --gameanim build/lib [--files 40] [--repeat 3] \\
        [--screenshot out.png] [--json out.json]

A window is needed (not -b): in the background Blender neither repaints nor
shows progress, which is what is measured.  The archive (made by
tools/make_archives.py from the project's samples, no game files) holds the
figure model of samples/models/j3d/ (armature and meshes) and --files - 1
animations of it.  Each round imports it twice into an emptied scene, in
turn:

* scripted: api.import_archive(path), as a script or the Python console;
* GUI: bpy.ops.import_anim.gameanim_archive with the dialog's rows ticked
  (from_dialog=True, what the dialog's OK runs) in the window's context, so
  that the progress cursor, the status text and the repaints run as when a
  user imports.  "shown" adds the event loop's next turn, when the window
  has drawn the result.

Prints the best time of each, the median ratio of the rounds and whether
the target holds: GUI <= 1.5 x scripted + 1 s (exit status 0 either way;
2 when the run failed).  --screenshot saves the
window (ImageMagick's `import -window root`) during a GUI import and after
it (name-mid.png, name-after.png).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    opts = {"gameanim": None, "files": 40, "repeat": 3, "screenshot": None, "json": None}
    for i in range(0, len(argv), 2):
        key = argv[i].lstrip("-").replace("-", "_")
        if key not in opts or i + 1 >= len(argv):
            raise SystemExit(f"bench_gui_import: bad option {argv[i]}")
        opts[key] = int(argv[i + 1]) if key in ("files", "repeat") else argv[i + 1]
    return opts


OPTS = _args()
if OPTS["gameanim"]:
    sys.path.insert(0, os.path.abspath(OPTS["gameanim"]))
for d in (os.path.join(ROOT, "blender_addon"), os.path.join(ROOT, "tools")):
    if d not in sys.path:
        sys.path.insert(0, d)

import bpy  # noqa: E402

import make_archives as mk  # noqa: E402

MODEL = os.path.join(ROOT, "samples", "models", "j3d", "figure_maya.bmd")
ANIMS = [os.path.join(ROOT, "samples", "models", "j3d", n) for n in ("figure_maya_walk.bck", "figure_maya_wave.bck")]


def make_archive(folder, files):
    """A Yaz0-wrapped .szs: the model and files - 1 animations of it (every
    third member Yaz0-compressed on its own, as archives mix them)."""
    anims = [open(p, "rb").read() for p in ANIMS]
    with open(MODEL, "rb") as fh:
        model = fh.read()
    members = [mk.File(f"anim_{i:02d}.bck", anims[i % len(anims)], compress="yaz0" if i % 3 == 0 else None)
               for i in range(files - 1)]
    data = mk.build(mk.Dir("figure", [mk.File("figure_maya.bmd", model), mk.Dir("bck", members)]))
    path = os.path.join(folder, "figure.szs")
    with open(path, "wb") as fh:
        fh.write(mk._compress("yaz0", data))
    return path


def window_context():
    """The window, its largest 3D view and that view's main region."""
    win = bpy.context.window_manager.windows[0]
    areas = [a for a in win.screen.areas if a.type == "VIEW_3D"] or list(win.screen.areas)
    area = max(areas, key=lambda a: a.width * a.height)
    region = next(r for r in area.regions if r.type == "WINDOW")
    return {"window": win, "screen": win.screen, "area": area, "region": region}


DATA = ("objects", "armatures", "meshes", "actions", "materials", "images", "textures", "node_groups")


def empty_scene():
    """Removes what an import made (everything of those kinds)."""
    for kind in DATA:
        coll = getattr(bpy.data, kind)
        if len(coll):
            bpy.data.batch_remove(list(coll))


def counts():
    return {k: len(getattr(bpy.data, k)) for k in ("objects", "meshes", "actions")}


class Bench:
    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="gameanim_gui_")
        self.path = make_archive(self.tmp, OPTS["files"])
        self.rounds = []
        self.steps = []
        for r in range(OPTS["repeat"]):
            # the order alternates so that neither always runs on a warm cache
            pair = ["scripted", "gui"] if r % 2 == 0 else ["gui", "scripted"]
            self.steps += [(r, kind) for kind in pair]
        self.pending = None
        self.result = {}

    def gui(self):
        from io_anim_gameanim import archive_dialog
        from io_anim_gameanim.shared import archive_members

        ctx = window_context()
        with bpy.context.temp_override(**ctx):
            st = archive_dialog.state(bpy.context)
            archive_dialog.fill_rows(st.rows, [archive_members.Listing(self.path)])
            t0 = time.perf_counter()
            status = bpy.ops.import_anim.gameanim_archive("EXEC_DEFAULT", filepath=self.path, from_dialog=True)
            t1 = time.perf_counter()
        assert status == {"FINISHED"}, status
        return t0, t1

    def scripted(self):
        from io_anim_gameanim import api

        t0 = time.perf_counter()
        res = api.import_archive(self.path)
        t1 = time.perf_counter()
        assert res.report.succeeded
        return t0, t1

    def step(self):
        """One timer call: finish the pending run (its 'shown' time is now,
        after the event loop drew the window), then start the next."""
        if self.pending is not None:
            r, kind, t0, t1 = self.pending
            shown = time.perf_counter()
            got = counts()
            self.rounds.append({"round": r, "kind": kind, "time": t1 - t0, "shown": shown - t0, **got})
            print(f"  round {r} {kind:8s} {t1 - t0:8.3f} s  shown after {shown - t0:8.3f} s  {got}", flush=True)
            self.pending = None
            if OPTS["screenshot"] and kind == "gui" and r == 0:
                screenshot(OPTS["screenshot"], "after")
            empty_scene()
            return 0.5  # (let the window settle before the next run)
        if not self.steps:
            self.finish()
            return None
        r, kind = self.steps.pop(0)
        t0, t1 = self.gui() if kind == "gui" else self.scripted()
        self.pending = (r, kind, t0, t1)
        return 0.0  # the next event-loop turn, after the window has drawn

    def finish(self):
        def times(kind, key="time"):
            return [x[key] for x in self.rounds if x["kind"] == kind]

        scripted, gui, shown = min(times("scripted")), min(times("gui")), min(times("gui", "shown"))
        ratios = [g / s for g, s in zip(times("gui"), times("scripted"))]
        limit = 1.5 * scripted + 1.0
        self.result = {"blender": bpy.app.version_string, "files": OPTS["files"], "repeat": OPTS["repeat"],
                       "scripted_s": scripted, "gui_s": gui, "gui_shown_s": shown,
                       "ratio_median": statistics.median(ratios), "limit_s": limit, "ok": gui <= limit,
                       "rounds": self.rounds}
        print(f"archive: {OPTS['files']} files ({os.path.getsize(self.path)} bytes), Blender "
              f"{bpy.app.version_string}, best of {OPTS['repeat']}")
        print(f"  scripted api.import_archive        {scripted:8.3f} s")
        print(f"  GUI operator in the window         {gui:8.3f} s   (window shows the result after {shown:.3f} s)")
        print(f"  ratio GUI / scripted (median)      {self.result['ratio_median']:8.2f}")
        print(f"  target GUI <= 1.5 x scripted + 1 s = {limit:.3f} s: {'met' if self.result['ok'] else 'NOT met'}")
        if OPTS["json"]:
            with open(OPTS["json"], "w") as fh:
                json.dump(self.result, fh, indent=1)
        shutil.rmtree(self.tmp, ignore_errors=True)
        sys.stdout.flush()
        os._exit(0)  # (the verdict is printed and in the JSON; a failed run exits 2)


def screenshot(base, tag):
    """The X screen (Xvfb) as a PNG, by ImageMagick's import."""
    out = f"{os.path.splitext(base)[0]}-{tag}.png"
    try:
        subprocess.run(["import", "-window", "root", out], check=True, timeout=60)
        print(f"  screenshot {out}", flush=True)
    except (OSError, subprocess.SubprocessError) as e:
        print(f"  screenshot failed: {e}", flush=True)


def mid_import_screenshot(bench):
    """A GUI import of an archive ten times as large, with the screen taken
    right after the first repaint during it (what the user sees then: the
    status text; the progress cursor is not in X's screen image).  Not
    timed."""
    from io_anim_gameanim import compat

    big = make_archive(tempfile.mkdtemp(prefix="gameanim_gui_big_", dir=bench.tmp), OPTS["files"] * 10)
    real = compat.redraw_window
    shots = []

    def redraw_and_shoot(context):
        real(context)
        if not shots:
            shots.append(screenshot(OPTS["screenshot"], "mid"))

    saved, bench.path, compat.redraw_window = bench.path, big, redraw_and_shoot
    try:
        bench.gui()
    finally:
        bench.path, compat.redraw_window = saved, real
    empty_scene()


def guarded(fn):
    """A timer callback that ends Blender on an error (a timer's exception
    would leave the window open for ever)."""
    def call():
        try:
            return fn()
        except BaseException:
            import traceback

            traceback.print_exc()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(2)
    return call


def main():
    import io_anim_gameanim

    if bpy.app.background:
        raise SystemExit("bench_gui_import: needs a window (run without -b, under xvfb-run)")
    bpy.context.preferences.view.show_splash = False  # (the screenshots show the window, not the splash)
    io_anim_gameanim.register()
    bench = Bench()
    empty_scene()

    def first():
        if OPTS["screenshot"]:
            mid_import_screenshot(bench)
        bpy.app.timers.register(guarded(bench.step), first_interval=0.5)
        return None

    bpy.app.timers.register(guarded(first), first_interval=2.0)


main()
