"""Reading F-curves back for the export: their key buffers in bulk
(foreach_get), the comparison with what the importer wrote (a CurvePlan),
the exact inverse of Track.bezier (Bezier keys whose handles sit one third
of the way to their neighbours are Hermite keys), and per-frame sampling
through gameanim.evaluate_fcurve.

There is no per-key or per-frame Python loop here: element-wise work goes
through array slicing, map() over operator functions and
itertools.compress, which iterate in C."""
from array import array
from itertools import chain, compress, repeat
from operator import add, eq, le, mul, sub, truediv

from .. import bulk_keys, native

BEZIER = bulk_keys.INTERP["BEZIER"]
LINEAR = bulk_keys.INTERP["LINEAR"]
CONSTANT = bulk_keys.INTERP["CONSTANT"]

# Two buffers are "the same curve" when every number agrees within a few
# float32 ulps of its magnitude: Blender stores keys in single precision and
# a value that went through a .blend file comes back bit for bit, so only
# genuine edits exceed this.
ULPS = 4.0 * 2.0 ** -23
# Handles count as "one third of the way" within this fraction of the
# segment (plus float32 rounding of the frame numbers).
THIRD_TOL = 1e-3


class Keys:
    """One F-curve's keyframes as flat buffers: co, left, right (x, y pairs,
    array('f')) and interp (array('i'))."""

    __slots__ = ("co", "left", "right", "interp")

    def __init__(self, co, left, right, interp):
        self.co = co
        self.left = left
        self.right = right
        self.interp = interp

    def __len__(self):
        return len(self.interp)

    @property
    def times(self):
        return self.co[0::2]

    @property
    def values(self):
        return self.co[1::2]

    def slice(self, first, last):
        """Keys first..last-1 (a new Keys)."""
        return Keys(self.co[2 * first:2 * last], self.left[2 * first:2 * last], self.right[2 * first:2 * last],
                    self.interp[first:last])


_CONSTANT_BYTES = array("i", (CONSTANT,)).tobytes()


def rejoin_steps(keys):
    """The steps the import separated (curve_plans.separate_steps): a holding
    key less than 0.01 frames before the next one is that key's frame
    again, its value carried along the arriving tangent (exact for a line,
    to the second order for a Bezier).  Modifies and returns keys."""
    co, interp, left, right = keys.co, keys.interp, keys.left, keys.right
    if _CONSTANT_BYTES not in interp.tobytes():
        return keys
    for i in [i for i, c in enumerate(interp[:-1]) if c == CONSTANT]:
        x, y = co[2 * i], co[2 * i + 1]
        dx = co[2 * i + 2] - x
        if not 0.0 < dx < 0.01:
            continue
        if i > 0 and interp[i - 1] != CONSTANT:
            tx, ty = (left[2 * i], left[2 * i + 1]) if interp[i - 1] == BEZIER else (co[2 * i - 2], co[2 * i - 1])
            if x - tx > 1e-9:
                y += (y - ty) / (x - tx) * dx
        co[2 * i], co[2 * i + 1] = x + dx, y
        left[2 * i] += dx
        right[2 * i], right[2 * i + 1] = x + dx, y
        interp[i] = LINEAR  # (a segment of no length, as the import's Track.bezier gives it)
    return keys


def read_keys(fc):
    """The key buffers of an F-curve (foreach_get; works on 3.4 to 5.x)."""
    kp = fc.keyframe_points
    n = len(kp)
    co = array("f", bytes(8 * n))
    left = array("f", bytes(8 * n))
    right = array("f", bytes(8 * n))
    interp = array("i", bytes(4 * n))
    if n:
        kp.foreach_get("co", co)
        kp.foreach_get("handle_left", left)
        kp.foreach_get("handle_right", right)
        kp.foreach_get("interpolation", interp)
    return Keys(co, left, right, interp)


# ---------------------------------------------------------------------------
# Comparison


def close(a, b):
    """Element-wise equality within a few float32 ulps (same length)."""
    if len(a) != len(b):
        return False
    if a == b:
        return True
    mags = map(max, map(abs, a), map(abs, b))
    return all(map(le, map(abs, map(sub, a, b)), map(mul, mags, repeat(ULPS))))


def _pairs(mask):
    """A per-key mask repeated for the two floats of each (x, y) pair."""
    return list(chain.from_iterable(zip(mask, mask)))


def handle_masks(interp):
    """(left, right) per-float masks of the handles a Bezier segment uses:
    the right handle of a key that starts a Bezier segment and the left
    handle of the key that ends it."""
    bez = list(map(BEZIER.__eq__, interp))
    n = len(bez)
    right = bez[:-1] + [False] if n else []
    left = [False] + bez[:-1] if n else []
    return _pairs(left), _pairs(right)


def same_curve(keys, plan):
    """True when the F-curve's keys are what the plan wrote: the same
    number of keys, times, values and interpolation, and the same handles
    wherever a Bezier segment uses them (Blender recomputes the others)."""
    if len(keys) != len(plan.interp) or keys.interp != plan.interp:
        return False
    if not close(keys.co, plan.co):
        return False
    if plan.left is None:
        return BEZIER not in plan.interp
    lm, rm = handle_masks(plan.interp)
    return (close(array("f", compress(keys.left, lm)), array("f", compress(plan.left, lm)))
            and close(array("f", compress(keys.right, rm)), array("f", compress(plan.right, rm))))


def plain_shape(fc, plan):
    """True when nothing but the keys shapes the F-curve, as the import
    made it: CONSTANT extrapolation and no modifier except the plan's own
    Cycles (both modes the plan's, no range, influence or cycle count).  A
    curve with anything else is not "unchanged" even with the same keys."""
    if fc.extrapolation != "CONSTANT":
        return False
    mods = fc.modifiers
    if len(mods) != (1 if plan.cycles else 0):
        return False
    if plan.cycles:
        m = mods[0]
        if (m.type != "CYCLES" or m.mute or m.mode_before != plan.cycles or m.mode_after != plan.cycles
                or m.use_restricted_range or m.use_influence or m.cycles_before != 0 or m.cycles_after != 0):
            return False
    return True


def unchanged_curve(fc, plan, keys=None):
    """The F-curve is exactly what the plan wrote: not muted, the same
    keys (same_curve) and a plain shape (plain_shape).  keys: the curve's
    read_keys() when the caller has them."""
    if fc is None or fc.mute or not plain_shape(fc, plan):
        return False
    keys = read_keys(fc) if keys is None else keys
    return keys is not None and same_curve(keys, plan)


def is_constant(keys, value=None):
    """One key (or several with one value), optionally equal to `value`."""
    if len(keys) == 0:
        return False
    vals = keys.values
    lo, hi = min(vals), max(vals)
    if not close(array("f", (lo,)), array("f", (hi,))):
        return False
    return value is None or close(array("f", (lo,)), array("f", (value,)))


# ---------------------------------------------------------------------------
# Bezier keys back to Hermite keys


def strip_period_keys(keys, tm):
    """Drops the held keys the importer adds for a Cycles period (a CONSTANT
    first key at the range start repeating the next value, a last key at the
    range end repeating the previous one).  Curve-preserving: the value is
    held outside the keys anyway."""
    n = len(keys)
    first, last = 0, n
    vals = keys.values
    times = keys.times
    eps = 1e-4
    if n >= 3 and abs(times[0] - tm.start) < eps and keys.interp[0] == CONSTANT and vals[0] == vals[1]:
        first = 1
    if (last - first >= 3 and abs(times[-1] - tm.end) < eps and keys.interp[-2] == CONSTANT
            and vals[-1] == vals[-2]):
        last -= 1
    if (first, last) == (0, n):
        return keys
    return keys.slice(first, last)


def _safe(den):
    """den with zeros replaced by 1 (bool adds as 1), so that divisions by
    handles of zero length give a finite, unused slope."""
    return map(add, den, map(eq, den, repeat(0.0)))


def keys_to_track(gameanim, keys, target, channel, axis, vs=1.0, vo=0.0, ts=1.0, to=0.0):
    """The Track whose bezier(vs, vo, ts, to) gives these keys: times and
    values mapped back, slopes read from the handles.  None when a segment
    is not a cubic Hermite (an easing mode other than constant, linear or
    Bezier, or Bezier handles not one third of the way to the neighbouring
    key); the caller then samples the curve per frame."""
    n = len(keys)
    if n == 0:
        return None
    interp = keys.interp
    if max(interp) > BEZIER or min(interp) < 0:
        return None
    xs, ys = keys.times, keys.values
    hlx, hly = keys.left[0::2], keys.left[1::2]
    hrx, hry = keys.right[0::2], keys.right[1::2]
    if n > 1:
        bez = list(map(BEZIER.__eq__, interp[:-1]))
        if any(bez):
            dts = list(map(sub, xs[1:], xs[:-1]))
            third = list(map(mul, dts, repeat(1.0 / 3.0)))
            mag = max(max(map(abs, xs)), 1.0) * ULPS
            tol = list(map(add, map(mul, map(abs, dts), repeat(THIRD_TOL)), repeat(mag)))
            out_err = map(abs, map(sub, map(sub, hrx[:-1], xs[:-1]), third))
            in_err = map(abs, map(sub, map(sub, xs[1:], hlx[1:]), third))
            if not all(compress(map(le, out_err, tol), bez)) or not all(compress(map(le, in_err, tol), bez)):
                return None
    # slopes in scene units, then in file units: value per file frame
    k = ts / vs
    if n == 1 and interp[0] != BEZIER:
        # a lone LINEAR or CONSTANT key: its handles shape nothing (the
        # import does not write them), so it has no slope
        out_s = in_s = (0.0,)
    else:
        out_s = map(mul, map(truediv, map(sub, hry, ys), _safe(list(map(sub, hrx, xs)))), repeat(k))
        in_s = map(mul, map(truediv, map(sub, ys, hly), _safe(list(map(sub, xs, hlx)))), repeat(k))
    times = array("f", map(mul, map(sub, xs, repeat(to)), repeat(1.0 / ts)))
    values = array("f", map(mul, map(sub, ys, repeat(vo)), repeat(1.0 / vs)))
    return gameanim.Track(target, channel, axis, times, values, array("f", in_s), array("f", out_s),
                          array("B", interp))


def linear_as_hermite(gameanim, track):
    """A track of LINEAR segments as the same curve in BEZIER segments whose
    slopes are the chords: the J3D encoder fits keys to all-LINEAR tracks
    when a tolerance is given (they look baked); keys the user placed by
    hand must stay where they are."""
    n = len(track)
    interp = track.interpolation
    if n < 3 or min(interp[:-1]) != LINEAR or max(interp[:-1]) != LINEAR:
        return track
    t, v = track.times, track.values
    chords = list(map(truediv, map(sub, v[1:], v[:-1]), _safe(list(map(sub, t[1:], t[:-1])))))
    out_s = array("f", chords + chords[-1:])
    in_s = array("f", chords[:1] + chords)
    return gameanim.Track(track.target, track.channel, track.axis, t, v, in_s, out_s,
                          array("B", repeat(BEZIER, n)))


# ---------------------------------------------------------------------------
# Per-frame sampling


def frames_array(first, last, scale=1.0, offset=0.0):
    """Scene frames for file frames first..last (whole, both included)."""
    base = range(int(first), int(last) + 1)
    if scale == 1.0 and offset == 0.0:
        return array("d", base)
    return array("d", map(add, map(mul, base, repeat(float(scale))), repeat(float(offset))))


def needs_blender_evaluation(fc, keys, frames):
    """True when evaluate_fcurve would not give Blender's value: an active
    modifier that matters (a Cycles modifier does not inside the key
    range, which is where imported curves are sampled), or an easing mode
    (SINE, BOUNCE, ...) beyond constant, linear and Bezier."""
    if len(keys) and (max(keys.interp) > BEZIER or min(keys.interp) < 0):
        return True
    mods = [m for m in fc.modifiers if not m.mute]
    if not mods:
        return False
    if any(m.type != "CYCLES" for m in mods):
        return True
    xs = keys.times
    return len(keys) < 2 or min(frames) < xs[0] - 1e-6 or max(frames) > xs[-1] + 1e-6


def sample(fc, keys, frames):
    """The F-curve at the scene frames (array('f')): in C from the key
    buffers, or by Blender itself where modifiers or easing modes matter."""
    gameanim = native.require()
    if needs_blender_evaluation(fc, keys, frames):
        return array("f", map(fc.evaluate, frames))
    extrap = fc.extrapolation if fc.extrapolation in ("CONSTANT", "LINEAR") else "CONSTANT"
    return gameanim.evaluate_fcurve(keys.co, keys.left, keys.right, keys.interp, frames, extrapolation=extrap)


def sample_with_slopes(fc, keys, frames):
    """(values, left slopes, right slopes) of the F-curve at the scene
    frames, per scene frame, in C; None where Blender must evaluate the
    curve itself (modifiers, easing modes)."""
    if needs_blender_evaluation(fc, keys, frames):
        return None
    extrap = fc.extrapolation if fc.extrapolation in ("CONSTANT", "LINEAR") else "CONSTANT"
    return native.require().evaluate_fcurve(keys.co, keys.left, keys.right, keys.interp, frames,
                                            extrapolation=extrap, slopes=True)


def constant(value, n):
    return array("f", (value,)) * n


def affine(values, scale, offset):
    """values * scale + offset, element-wise (array('f'))."""
    if scale == 1.0 and offset == 0.0:
        return array("f", values)
    return array("f", map(add, map(mul, values, repeat(float(scale))), repeat(float(offset))))


def value_range(values):
    return (min(values), max(values)) if len(values) else (0.0, 0.0)
