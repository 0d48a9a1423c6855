"""Turning gameanim tracks into F-curve buffers (CurvePlan): the frame
mapping (file frame -> scene frame), the keys that make a Cycles modifier
loop over the file's duration, steps.  The importer writes the plans
(importing/curve_writer.py); the export builds the same plans from a stored
original and compares them with an action's curves."""
import math
from array import array

from .. import bulk_keys

LINEAR = bulk_keys.INTERP["LINEAR"]
CONSTANT = bulk_keys.INTERP["CONSTANT"]
EPS = 1e-4


class TimeMap:
    """scene frame = file frame * scale + offset.  The file's frames run
    from file_start to file_end (0 and the frame count, except for
    Banjo-Kazooie whose header holds its first and last frame).  cycles:
    None, 'REPEAT' or 'MIRROR' (one period = the file's range).
    frame_rule: None, or how the game picks whole frames of a full-frame
    file ('nearest', 'truncate', 'lerp'; frame_rule_keys)."""

    def __init__(self, file_start, file_end, scale=1.0, offset=0.0, cycles=None, frame_rule=None):
        self.file_start = float(file_start)
        self.file_end = float(file_end)
        self.scale = float(scale)
        self.offset = float(offset)
        self.cycles = cycles
        self.frame_rule = frame_rule or None

    def scene(self, frame):
        return frame * self.scale + self.offset

    @property
    def start(self):
        return self.scene(self.file_start)

    @property
    def end(self):
        return self.scene(self.file_end)

    def bake_frames(self, scene_frames=True):
        """File frames for baking, both ends included (a fractional end is
        added as is): with scene_frames, those of every whole SCENE frame
        of the range, so that keys sit where Blender plays and a baked bone
        is exact at every scene frame also when the file is rescaled to the
        scene's rate; else (and always at a time scale of 1) every whole
        file frame."""
        if self.scale == 1.0 or not scene_frames:
            lo, hi, at = self.file_start, self.file_end, float
        else:
            lo, hi, at = self.start, self.end, (lambda i: self.file(float(i)))
        first = int(math.ceil(lo - 1e-9))
        last = int(math.floor(hi + 1e-9))
        frames = [at(i) for i in range(first, max(last, first) + 1)]
        if lo < first - 1e-6:
            frames.insert(0, self.file_start)
        if hi - last > 1e-6:
            frames.append(self.file_end)
        return frames

    def as_dict(self):
        d = {"time_scale": self.scale, "frame_offset": self.offset, "cycles": self.cycles or "",
             "file_start": self.file_start, "file_end": self.file_end}
        if self.frame_rule:
            d["frame_rule"] = self.frame_rule
        return d

    @classmethod
    def from_dict(cls, d):
        """The time map an import stored (gameanim_options)."""
        return cls(d["file_start"], d["file_end"], d.get("time_scale", 1.0), d.get("frame_offset", 0.0),
                   d.get("cycles") or None, d.get("frame_rule"))

    def file(self, scene_frame):
        """The file frame shown at a scene frame (the inverse of scene())."""
        return (scene_frame - self.offset) / self.scale


_LITTLE = array("i", [1]).tobytes()[0] == 1


def _constant_values(co):
    """Whether the values of flat (x, y) pairs are all equal (as numbers:
    0.0 and -0.0 are equal), more than one key.  Works on the bytes: no
    Python object per key."""
    values = co[1::2]
    n = len(values)
    if n < 2:
        return False
    raw = values.tobytes()
    if raw == raw[:4] * n:
        return True
    # equal as numbers but not as bits: only zeros of both signs
    top = raw[3::4] if _LITTLE else raw[0::4]
    rest = raw[0::4] + raw[1::4] + raw[2::4] if _LITTLE else raw[1::4] + raw[2::4] + raw[3::4]
    return rest.count(0) == len(rest) and not top.translate(None, b"\x00\x80")


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


class CurvePlan:
    """One F-curve exactly as the importer writes it: the data path, the
    array index, the group, the final key buffers (co and handles as flat
    float32 pairs, interpolation codes; handles None when no segment is
    Bezier) and the Cycles mode (None for no modifier).  The export builds
    the same plans from the stored original file and compares them with the
    action's curves, so the two can never disagree about what "unchanged"
    means.  `source` says where the curve came from (for the export)."""

    __slots__ = ("path", "index", "group", "co", "left", "right", "interp", "cycles", "source", "distinct",
                 "bezier")

    def __init__(self, path, index, group, co, interp, left=None, right=None, cycles=None, source=None,
                 distinct=None, bezier=None):
        self.distinct = distinct  # no two keys share a time (None: not known yet)
        self.bezier = bezier      # some segment is BEZIER (None: not known yet)
        self.path = path
        self.index = index
        self.group = group
        self.co = co
        self.interp = interp
        self.left = left
        self.right = right
        self.cycles = cycles
        self.source = source

    @property
    def key(self):
        return (self.path, self.index)

    def __repr__(self):
        return f"<CurvePlan {self.path}[{self.index}] {len(self.interp)} keys>"


# A step (two keys on one frame, as J3D and Banjo-Kazooie files write
# them) is ambiguous in Blender: evaluated at that very frame, its binary
# search lands on either key (about half the time the value before the
# step, at a whole frame, where Blender plays).  Keys closer than 1e-4
# frames count as the same frame there, so the first key of a step moves
# this far (scene frames) before it and holds (CONSTANT): at the frame the
# curve has the later value, before it the earlier one, as the game.  Such
# keys are closer than FCurve.update()'s merge distance (0.01), so these
# curves are not updated (write_keys), and the export reads them back as
# the step (readback.rejoin_steps).
STEP_SEPARATION = 5e-4


def _f32_before(s, gap):
    """A float32 frame at least `gap` before float32 s (the one just below
    s - gap; far frames, whose float32 steps exceed gap: the next below s)."""
    x = array("f", (s - gap,))[0]
    if x > s - gap:
        x = array("f", (math.nextafter(x, -math.inf),))[0]
        while x > s - gap:  # (double -> float32 rounded up again)
            x = array("f", (math.nextafter(x - abs(x) * 1e-7, -math.inf),))[0]
    return x


def _cut_segment(co, left, right, interp, i, x):
    """Moves key i to time x (before it) on the curve of the segment that
    arrives there (CONSTANT, LINEAR or Bezier: the Bezier is split by de
    Casteljau at the parameter of x, so the part before x keeps its exact
    shape)."""
    j = i - 1
    x0, y0, x3, y3 = co[2 * j], co[2 * j + 1], co[2 * i], co[2 * i + 1]
    kind = interp[j]
    if kind == CONSTANT or x3 <= x0:
        y = y0 if kind == CONSTANT else y3
    elif kind == LINEAR or left is None:
        y = y0 + (y3 - y0) * (x - x0) / (x3 - x0)
    else:
        p = [(x0, y0), (right[2 * j], right[2 * j + 1]), (left[2 * i], left[2 * i + 1]), (x3, y3)]

        def at(u, k):
            v = 1.0 - u
            return v * v * v * p[0][k] + 3 * v * v * u * p[1][k] + 3 * v * u * u * p[2][k] + u * u * u * p[3][k]

        lo, hi = 0.0, 1.0
        for _ in range(60):  # x(u) increases on a Blender segment
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if at(mid, 0) < x else (lo, mid)
        u = 0.5 * (lo + hi)

        def lerp(a, b):
            return (a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u)

        p01, p12, p23 = lerp(p[0], p[1]), lerp(p[1], p[2]), lerp(p[2], p[3])
        p012, p123 = lerp(p01, p12), lerp(p12, p23)
        y = lerp(p012, p123)[1]
        right[2 * j], right[2 * j + 1] = p01
        left[2 * i], left[2 * i + 1] = p012
        co[2 * i], co[2 * i + 1] = x, y
        return
    co[2 * i], co[2 * i + 1] = x, y
    if left is not None:
        left[2 * i], left[2 * i + 1] = x, y


def separate_steps(co, left, right, interp):
    """Moves the first key of each step (two keys on one time) to just
    before it (STEP_SEPARATION, in float32) on the curve that arrives there,
    and makes it hold.  Returns whether any key moved."""
    xs = co[0::2]
    moved = False
    for i in [i for i in range(len(xs) - 1) if xs[i] == xs[i + 1]]:
        x = _f32_before(co[2 * i + 2], STEP_SEPARATION)
        if i > 0 and x <= co[2 * i - 2]:
            continue  # three keys on one frame: left as they are
        if i > 0:
            _cut_segment(co, left, right, interp, i, x)
        else:
            co[2 * i] = x
            if left is not None:
                left[2 * i], left[2 * i + 1] = x, co[2 * i + 1]
        if right is not None:
            right[2 * i], right[2 * i + 1] = co[2 * i], co[2 * i + 1]
        interp[i] = CONSTANT
        moved = True
    return moved


def game_curve_differs(track):
    """Why Blender's curve through the track's keys would not show the
    game's values, or None.  Blender sorts keyframes by time, while the
    game's key search (a bisection over the keys as stored,
    J3DGetKeyFrameInterpolation) takes J3D keys whose times go back as they
    are; and the game's float arithmetic overflows (inf, NaN) for key
    spacings near zero or values near the float maximum, where Blender's
    curve stays finite.  Such a track is baked: its values are the game's,
    frame by frame.  The checks run in C (Track.curve_issue: one pass over
    the keys, no buffers for Python), so that the common case costs little
    per curve."""
    return track.curve_issue()


def frame_rule_keys(co, interp, tm, period=None):
    """Full-frame keys (one CONSTANT key per whole file frame, as
    Track.bezier gives them) shaped by the game's frame rule (tm.frame_rule):
    'truncate' keeps them (the value of frame i from i on); 'nearest' moves
    every key but the first half a file frame earlier (the game's
    (int)(frame + 0.5) switches there); 'lerp' makes them LINEAR, and with
    a period (rotations: 2 pi in curve units) unwraps them, since the game
    interpolates the short way round.  In place."""
    rule = tm.frame_rule
    if rule == "nearest" and len(interp) > 1:
        half = 0.5 * tm.scale
        co[2::2] = array("f", (x - half for x in co[2::2]))
    elif rule == "lerp":
        interp[:] = array("i", (LINEAR,)) * len(interp)
        if period:
            co[1::2] = array("f", unwrap(co[1::2], period))


def unwrap(values, period):
    """Values shifted by whole periods so that each is within half a period
    of the one before (the short way round)."""
    out, shift, prev = [], 0.0, None
    for v in values:
        if prev is not None:
            shift -= period * round((v + shift - prev) / period)
        prev = v + shift
        out.append(prev)
    return out


def _period_of(source):
    """2 pi in curve units for a rotation track's curve (source ('track',
    Track, value scale, value offset)), else None."""
    if source and source[0] == "track" and source[1].channel == "rotation":
        return 2.0 * math.pi * abs(source[2])
    return None


def given_bounds(tm):
    """When plan_track writes Track.bezier's buffers unchanged (distinct=True;
    the Cycles modifier, if any, on the curve as is): for strictly
    increasing times (no steps to separate), no frame rule to shape them
    (else None), and no held period keys to add: fewer than two keys, or
    the first key's time co[0] <= lo and the last's co[-2] >= hi (the test
    of add_period_keys; no Cycles modifier: any times).  Returns (lo, hi)
    for that test (curve_writer.write_plans makes it, per curve, and writes
    such tracks without a plan object).  Keep in step with plan_track."""
    if tm.frame_rule:
        return None
    if tm.cycles is None:
        return math.inf, -math.inf
    return tm.start + EPS, tm.end - EPS


def plan_track(path, index, group, bez, tm, source=None):
    """bez: Track.bezier(..., flags=True) output (co, left, right,
    interpolation, increasing, has_bezier); steps separated
    (separate_steps); held keys for a Cycles period added; full-frame keys
    shaped by tm.frame_rule (frame_rule_keys)."""
    co, left, right, interp, increasing, bezier = bez
    if tm.frame_rule:
        frame_rule_keys(co, interp, tm, _period_of(source))
    # strictly increasing times are distinct; others are looked at when
    # written
    distinct = True if increasing else None
    if not increasing and separate_steps(co, left, right, interp):
        distinct = False  # (no update(): it would merge the separated keys)
    cycles = tm.cycles
    if cycles is None or len(interp) < 2:
        return CurvePlan(path, index, group, co, interp, left, right, None, source, distinct, bezier), False
    co, left, right, interp, added = add_period_keys(co, left, right, interp, tm)
    if added and distinct:
        # (the held keys lie outside the key range, but as float32 a far
        # frame could round onto the key next to it)
        distinct = co[0] < co[2] and co[-4] < co[-2]
    return CurvePlan(path, index, group, co, interp, left, right, cycles, source, distinct, bezier), added


def plan_constant(path, index, group, frame, value, source=None):
    return CurvePlan(path, index, group, array("f", (frame, value)), array("i", (CONSTANT,)), None, None, None,
                     source, True, False)


def plan_baked(path, index, group, co, tm, source=None, distinct=None, collapsed=False):
    """co: flat (frame, value) pairs from gameanim.bake_pose.  LINEAR keys;
    a channel that never changes becomes one key.  distinct: whether the
    frames are distinct (the same for every channel of one bake, so the
    caller finds it once).  collapsed: bake_pose already collapsed a
    constant channel to one key (collapse=True, several frames), so one
    key means constant."""
    n = len(co) // 2
    if n == 0:
        return None
    if collapsed:
        if n == 1:  # (bake_pose's one key is the constant plan's key already)
            return CurvePlan(path, index, group, co, array("i", (CONSTANT,)), None, None, None, source, True, False)
    elif _constant_values(co):
        return plan_constant(path, index, group, co[0], co[1], source)
    # a non-finite value (the game's arithmetic overflowed) would make a
    # LINEAR neighbour NaN too: CONSTANT keys show each frame's own value
    interp = array("i", (LINEAR if math.isfinite(sum(co)) else CONSTANT,)) * n
    if distinct is False:  # steps (a JBA jump: rig_mapping.with_jba_steps)
        separate_steps(co, None, None, interp)
    return CurvePlan(path, index, group, co, interp, None, None, tm.cycles or None, source, distinct, False)
