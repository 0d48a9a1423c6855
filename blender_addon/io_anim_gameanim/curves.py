"""Turning gameanim tracks into F-curve buffers: the frame mapping (file
frame -> scene frame), the keys that make a Cycles modifier loop over the
file's duration, and the bulk write through compat."""
import math
from array import array

from . import compat

LINEAR = compat.INTERP["LINEAR"]
CONSTANT = compat.INTERP["CONSTANT"]
EPS = 1e-4


class TimeMap:
    """scene frame = file frame * scale + offset.  The file's frames run
    from file_start to file_end (0 and the frame count, except for
    Banjo-Kazooie whose header holds its first and last frame).  cycles:
    None, 'REPEAT' or 'MIRROR' (one period = the file's range)."""

    def __init__(self, file_start, file_end, scale=1.0, offset=0.0, cycles=None):
        self.file_start = float(file_start)
        self.file_end = float(file_end)
        self.scale = float(scale)
        self.offset = float(offset)
        self.cycles = cycles

    def scene(self, frame):
        return frame * self.scale + self.offset

    @property
    def start(self):
        return self.scene(self.file_start)

    @property
    def end(self):
        return self.scene(self.file_end)

    def bake_frames(self):
        """File frames for baking: every whole frame of the range, both
        ends included (a fractional end is added as is)."""
        first = int(math.ceil(self.file_start - 1e-9))
        last = int(math.floor(self.file_end + 1e-9))
        frames = [float(i) for i in range(first, max(last, first) + 1)]
        if self.file_start < first - 1e-6:
            frames.insert(0, self.file_start)
        if self.file_end - last > 1e-6:
            frames.append(self.file_end)
        return frames

    def as_dict(self):
        return {"time_scale": self.scale, "frame_offset": self.offset, "cycles": self.cycles or "",
                "file_start": self.file_start, "file_end": self.file_end}


def _constant_values(co):
    values = co[1::2]
    return len(values) > 1 and min(values) == max(values)


def add_period_keys(co, left, right, interp, tm):
    """For a Cycles modifier the period is the key range, so a curve whose
    keys do not start at frame 0 and end at the duration gets held keys
    there.  Exact: the curve is constant before its first key and after
    its last.  Returns the new buffers and whether keys were added."""
    n = len(interp)
    if n < 2 or tm.cycles is None:
        return co, left, right, interp, False
    added = False
    start, end = tm.start, tm.end
    if co[0] > start + EPS:
        v = co[1]
        key = array("f", (start, v))
        co = key + co
        if left is not None:
            left = key + left
            right = key + right
        interp = array("i", (CONSTANT,)) + interp
        added = True
    if co[-2] < end - EPS:
        v = co[-1]
        key = array("f", (end, v))
        interp = array("i", interp)
        interp[-1] = CONSTANT  # the value is held after the last key anyway
        co = co + key
        if left is not None:
            left = left + key
            right = right + key
        interp = interp + array("i", (CONSTANT,))
        added = True
    return co, left, right, interp, added


def write_track_curve(fc, bez, tm, notes=None):
    """bez: Track.bezier(...) output (co, left, right, interpolation)."""
    co, left, right, interp = bez
    co, left, right, interp, added = add_period_keys(co, left, right, interp, tm)
    compat.write_keys(fc, co, interp, left, right)
    if tm.cycles and len(interp) > 1:
        compat.add_cycles(fc, mirror=tm.cycles == "MIRROR")
    return added


def write_constant_curve(fc, frame, value):
    compat.write_keys(fc, array("f", (frame, value)), array("i", (CONSTANT,)))


def write_baked_curve(fc, co, tm):
    """co: flat (frame, value) pairs from gameanim.bake_pose.  LINEAR keys;
    a channel that never changes becomes one key."""
    n = len(co) // 2
    if n == 0:
        return
    if _constant_values(co):
        write_constant_curve(fc, co[0], co[1])
        return
    compat.write_keys(fc, co, array("i", (LINEAR,)) * n)
    if tm.cycles:
        compat.add_cycles(fc, mirror=tm.cycles == "MIRROR")
