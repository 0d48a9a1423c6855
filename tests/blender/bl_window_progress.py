"""Progress of an import run from the window (issue 32): the window is
repainted by time, never once per file (one repaint per file made a
40-file archive take 85 s in a window instead of 0.2 s), the progress
cursor advances on every file, and the status text is cleared after.  The
repaint and the clock are replaced by recorders: in the background (this
suite) Blender repaints nothing.  The real window's figures:
bench/bench_gui_import.py."""
import sys

import bpy
import pytest
from blhelpers import ROOT, samples

sys.path.insert(0, str(ROOT / "tools"))
import make_archives as mk  # noqa: E402  (the project's archive writer)

FILES = 24  # the model and 23 animations


class Clock:
    """Fake seconds: every reading advances `step`; a repaint adds `cost`."""

    def __init__(self, step):
        self.t, self.step = 0.0, step

    def __call__(self):
        self.t += self.step
        return self.t


@pytest.fixture
def archive(tmp_path):
    model, walk, wave = (p.read_bytes() for p in samples(
        "models/j3d/figure_maya.bmd", "models/j3d/figure_maya_walk.bck", "models/j3d/figure_maya_wave.bck"))
    anims = [mk.File(f"anim_{i:02d}.bck", (walk, wave)[i % 2]) for i in range(FILES - 1)]
    path = tmp_path / "figure.arc"
    path.write_bytes(mk.build(mk.Dir("figure", [mk.File("figure_maya.bmd", model), mk.Dir("bck", anims)])))
    return path


class RecordingWM:
    """The window manager's progress calls, recorded."""

    def __init__(self):
        self.calls = []

    def progress_begin(self, lo, hi):
        self.calls.append(("begin", lo, hi))

    def progress_update(self, value):
        self.calls.append(("update", value))

    def progress_end(self):
        self.calls.append(("end",))


class Context:
    def __init__(self, wm):
        self.window_manager, self.workspace, self.window = wm, None, None


def recording_progress(monkeypatch, clock, cost):
    """Makes window_progress.run_import use a WindowProgress on the fake clock whose repaint
    takes `cost` fake seconds; returns (repaints [(began, ended)], wm)."""
    from io_anim_gameanim import operators, window_progress as wp

    monkeypatch.setattr(wp.RedrawThrottle, "last_cost", 0.0)
    repaints, wm = [], RecordingWM()

    def repaint(_context):
        began = clock.t
        clock.t += cost
        repaints.append((began, clock.t))

    class Recorded(wp.WindowProgress):
        def __init__(self, context):
            super().__init__(Context(wm), clock=clock, redraw=repaint)
            self.start = clock.t

    made = []
    monkeypatch.setattr(operators.window_progress, "WindowProgress",
                        lambda context: made.append(Recorded(context)) or made[-1])
    return repaints, wm, made


def test_an_archive_import_repaints_by_time_not_per_file(archive, monkeypatch, addon):
    """The archive operator (what the dialog's OK runs) over 24 files whose
    loads and imports take 0.1 s each on the fake clock (4.8 s) with
    repaints of 0.4 s: a handful of repaints, none in the first second,
    each after at least twice its cost of work, the cursor advanced on
    every load and import and then restored."""
    clock = Clock(0.1)
    repaints, wm, made = recording_progress(monkeypatch, clock, cost=0.4)
    assert bpy.ops.import_anim.gameanim_archive(filepath=str(archive)) == {"FINISHED"}
    assert len([a for a in bpy.data.actions if a.name.startswith("anim_")]) == FILES - 1
    start = made[0].start
    assert 1 <= len(repaints) < FILES // 3, repaints
    assert repaints[0][0] >= start + 1.0
    for (_b0, e0), (b1, _e1) in zip(repaints, repaints[1:]):
        assert b1 - e0 >= 2 * 0.4 - 1e-9, repaints
    spent = clock.t - start
    assert sum(e - b for b, e in repaints) <= spent / 3 + 1e-9
    assert_cursor_ran(wm)


def assert_cursor_ran(wm):
    """One range; an update per load and per import, never backwards,
    ending at the range's end; then restored."""
    steps = 1000
    assert wm.calls[0] == ("begin", 0, steps) and wm.calls[-1] == ("end",)
    assert [c for c in wm.calls if c[0] == "begin"] == [wm.calls[0]]
    updates = [c[1] for c in wm.calls if c[0] == "update"]
    assert len(updates) >= 2 * (FILES - 1), len(updates)
    assert updates == sorted(updates) and updates[-1] == steps and updates[0] < steps // 2


def test_a_short_import_repaints_nothing(archive, monkeypatch, addon):
    """An import shorter than a second (as a 40-file archive is when
    scripted: 0.2 s) is never repainted during it."""
    clock = Clock(0.005)
    repaints, wm, _made = recording_progress(monkeypatch, clock, cost=1.0)
    members = [{"name": "figure_maya.bmd"}] + [{"name": f"bck/anim_{i:02d}.bck"} for i in range(FILES - 1)]
    assert bpy.ops.import_anim.gameanim_archive(filepath=str(archive), members=members) == {"FINISHED"}
    assert repaints == []
    assert_cursor_ran(wm)


def test_the_cursor_follows_files_loaded_and_imported_one_by_one():
    """Onto an existing rig the importer loads and imports file by file:
    the cursor then moves by one file's share each time (not to half way
    at the first import), and ends at its end."""
    from io_anim_gameanim.window_progress import WindowProgress

    wm = RecordingWM()
    progress = WindowProgress(Context(wm), clock=lambda: 0.0, redraw=lambda c: None)
    n = 10
    for i in range(n):
        progress(i, n, f"f{i}.bck", "load")
        progress(i, n, f"f{i}.bck", "import")
    progress.end()
    updates = [c[1] for c in wm.calls if c[0] == "update"]
    assert updates[:2] == [50, 100] and updates[-1] == 1000 and updates == sorted(updates), updates


def test_the_throttle_spaces_repaints_by_their_cost():
    """Four a second at most; a costly repaint waits twice its cost; the
    next import's first repaint waits as long for the last cost seen."""
    from io_anim_gameanim.window_progress import RedrawThrottle

    saved = RedrawThrottle.last_cost
    try:
        RedrawThrottle.last_cost = 0.0
        now = [0.0]
        th = RedrawThrottle(clock=lambda: now[0])
        now[0] = 0.99
        assert not th.due()
        now[0] = 1.0
        assert th.due()
        th.drawn(1.0, 1.01)               # a cheap repaint: the next one 0.25 s later
        now[0] = 1.25
        assert not th.due()
        now[0] = 1.26
        assert th.due()
        th.drawn(1.26, 2.26)              # a one-second repaint: two seconds of work first
        now[0] = 4.25
        assert not th.due()
        now[0] = 4.26
        assert th.due()
        now[0] = 10.0
        nxt = RedrawThrottle(clock=lambda: now[0])
        now[0] = 11.99
        assert not nxt.due()
        now[0] = 12.0
        assert nxt.due()
    finally:
        RedrawThrottle.last_cost = saved
