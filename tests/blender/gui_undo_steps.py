"""Issue 32: an archive import from the menu is ONE undo step, not two
(the first of them empty).  Undo steps are pushed only in a real window
(background Blender keeps no undo stack), so this runs Blender with a
window under Xvfb, with Blender's own undo log on, and is no pytest file:

    xvfb-run -a -s "-screen 0 1280x800x24" blender --factory-startup \\
        --enable-event-simulate --log "bke.undosys" --log-level 1 \\
        --python tests/blender/gui_undo_steps.py -- --gameanim build/lib > "$GAMEANIM_UNDO_LOG"

It does what the menu does: the file import operator with an archive
picked (pick_members, as its invoke sets), called with undo as the file
browser calls it; the member dialog opens; a simulated Return presses its
OK.  Then it counts the undo pushes the log printed since the import
started (Blender prints its log to stdout: send it to the file named by GAMEANIM_UNDO_LOG), and
exits 0 when exactly one step ("Import from Archive") was pushed and the
import made its actions, else 1."""
import os
import sys

import bpy

args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.abspath(args[args.index("--gameanim") + 1]), os.path.join(ROOT, "blender_addon"),
                os.path.join(ROOT, "tools")]

import make_archives as mk  # noqa: E402  (the project's archive writer)
import io_anim_gameanim  # noqa: E402

io_anim_gameanim.register()
LOG = os.environ.get("GAMEANIM_UNDO_LOG", "")
SAMPLES = os.path.join(ROOT, "samples", "models", "j3d")
OUT = os.environ.get("GAMEANIM_UNDO_DIR", "/tmp")


def read(name):
    with open(os.path.join(SAMPLES, name), "rb") as fh:
        return fh.read()


state = {"mark": 0}


def log_size():
    return os.path.getsize(LOG) if LOG and os.path.exists(LOG) else 0


def step_import():
    path = os.path.join(OUT, "undo_figure.arc")
    with open(path, "wb") as fh:
        fh.write(mk.build(mk.Dir("fig", [mk.File("figure_maya.bmd", read("figure_maya.bmd")),
                                         mk.Dir("bck", [mk.File("wave.bck", read("figure_maya_wave.bck")),
                                                        mk.File("wait.bck", read("figure_maya_walk.bck"))])])))
    sys.stderr.flush()
    state["mark"] = log_size()
    print("UNDO-PROBE: import", flush=True)
    win = bpy.context.window_manager.windows[0]
    area = next(a for a in win.screen.areas if a.type == "VIEW_3D")
    region = next(r for r in area.regions if r.type == "WINDOW")
    with bpy.context.temp_override(window=win, screen=win.screen, area=area, region=region):
        bpy.ops.import_anim.gameanim("EXEC_DEFAULT", True, filepath=path, pick_members=True)
    bpy.app.timers.register(step_ok, first_interval=1.0)


def step_ok():
    win = bpy.context.window_manager.windows[0]
    win.event_simulate(type="RET", value="PRESS")
    win.event_simulate(type="RET", value="RELEASE")
    bpy.app.timers.register(step_check, first_interval=1.5)


def step_check():
    sys.stderr.flush()
    with open(LOG, "rb") as fh:
        fh.seek(state["mark"])
        text = fh.read().decode("utf-8", "replace")
    pushes = [ln for ln in text.splitlines() if "bke.undosys" in ln and "BKE_undosys_step_push" in ln
              and "name=" in ln]
    names = [ln.split("name='", 1)[1].split("'", 1)[0] for ln in pushes]
    actions = sorted(a.name for a in bpy.data.actions)
    print(f"UNDO-PROBE: pushes {names}; actions {actions}", flush=True)
    ok = names == ["Import from Archive"] and len(actions) == 2
    print("UNDO-PROBE: " + ("PASS" if ok else "FAIL"), flush=True)
    os._exit(0 if ok else 1)


bpy.app.timers.register(step_import, first_interval=1.0)
