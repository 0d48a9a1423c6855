"""Progress of an import run from the window (File > Import, the archive
dialog): the progress cursor, the status bar text and a few repaints.

Blender does not repaint while an operator runs, so the status text and
the cursor would stay frozen; the only way to show them is a forced
repaint of the whole window (compat.redraw_window), which costs about a
second in a software-rendered window (Xvfb, a remote desktop) and still
tens of milliseconds on a GPU.  Issue 32: one repaint per file made a
40-file archive take 85 s instead of 0.2 s.  So the repaints are throttled
by time (RedrawThrottle): none in the first second (a short import shows
none), then at most four a second, each after at least twice its cost of
work, so that repaints take at most a third of an import's time: in a
window it takes at most 1.5 times the scripted import (plus, in a
session's first long import, one repaint of a cost not known yet)."""
import os
import time

from . import compat


class RedrawThrottle:
    """When a repaint is due: `due()` before, `drawn(began, ended)` after
    each one.  clock: seconds (time.monotonic; a fake in tests)."""

    FIRST = 1.0        # no repaint before this much time has passed
    MIN_GAP = 0.25     # at most four repaints a second
    SHARE = 1.0 / 3.0  # repaints take at most this share of the time
    last_cost = 0.0    # the last repaint's seconds, kept from one import to the next

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        # (the first repaint too waits for the work to outweigh a repaint
        # as costly as the last one seen)
        self.next_at = clock() + max(self.FIRST, self._gap(RedrawThrottle.last_cost))

    def _gap(self, cost):
        return cost * (1.0 - self.SHARE) / self.SHARE

    def due(self):
        return self.clock() >= self.next_at

    def drawn(self, began, ended):
        cost = max(ended - began, 0.0)
        RedrawThrottle.last_cost = cost
        self.next_at = ended + max(self.MIN_GAP, self._gap(cost))


class WindowProgress:
    """progress(index, count, path, stage) for importer.import_files: the
    cursor advances on every call (cheap), the status text is set and the
    window repainted only when the throttle allows.  end() restores the
    cursor and clears the text.  redraw(context): the repaint (tests pass
    a recorder).

    The cursor runs over STEPS: half for the loading (models built, files
    decoded), half for the importing, each by the importer's own index and
    count (an archive picked whole is one path to the caller but many
    files to the importer), whether it loads everything first or loads
    and imports file by file; never backwards."""

    STEPS = 1000

    def __init__(self, context, clock=time.monotonic, redraw=None):
        self.context = context
        self.wm = context.window_manager
        self.value = 0
        self.done = {"load": 0.0, "import": 0.0}  # the share of each stage done
        self.clock = clock
        self.redraw = redraw or compat.redraw_window
        self.throttle = RedrawThrottle(clock)
        self.wm.progress_begin(0, self.STEPS)

    def __call__(self, index, count, path, stage):
        key = "import" if stage == "import" else "load"
        self.done[key] = max(self.done[key], min(index + 1, count) / max(count, 1))
        self.value = max(self.value, int(self.STEPS * (self.done["load"] + self.done["import"]) / 2))
        self.wm.progress_update(self.value)
        if not self.throttle.due():
            return
        compat.status_text(self.context, f"Game animation: {stage} {index + 1}/{count}: {os.path.basename(path)}")
        began = self.clock()
        self.redraw(self.context)
        self.throttle.drawn(began, self.clock())

    def end(self):
        self.wm.progress_end()
        compat.status_text(self.context, None)


def run_import(op, context, count, call):
    """Runs call(progress) with the progress cursor and status text
    (repaints throttled by time, never one per file: RedrawThrottle),
    then reports its ImportResult on op.  count: the files the caller
    picked (the cursor follows the importer's own counts, which see an
    archive's members)."""
    progress = WindowProgress(context)
    try:
        result = call(progress)
    except (TypeError, ValueError) as e:
        op.report({"ERROR"}, str(e))
        return {"CANCELLED"}
    finally:
        progress.end()
    result.report.emit(op)
    return {"FINISHED"} if result.report.succeeded else {"CANCELLED"}
