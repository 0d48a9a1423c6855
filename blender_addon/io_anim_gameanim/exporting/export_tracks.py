"""Pieces every export path shares: the error type, tracks from per-frame
values or from one curve, the frame range and the loop mode of an action.
(What an import stored on an action: shared/imported_action.py.)"""
import math
from array import array

from ..shared import formats
from ..shared.curve_plans import TimeMap
from ..shared.rig_mapping import CHANNEL_DEFAULT
from . import readback

CONST_REL = 1e-6


class ExportError(Exception):
    """An action that cannot be written (the file is left untouched)."""


def is_constant(values):
    lo, hi = readback.value_range(values)
    return hi - lo <= CONST_REL * max(1.0, abs(lo), abs(hi))


def per_frame_track(gameanim, target, channel, axis, times, values):
    """One LINEAR key per frame, or one key when the channel never moves."""
    if is_constant(values):
        return gameanim.Track(target, channel, axis, times[:1], values[:1])
    return gameanim.Track(target, channel, axis, times, values)


def file_frames(fmt, frame_count, start=0.0):
    """(first, last) whole file frames the format stores."""
    n = int(round(frame_count))
    if formats.keeps_frame_numbers(fmt):
        s = int(round(start))
        return s, s + max(n - 1, 0)
    if formats.count_includes_end(fmt) or formats.value_per_frame(fmt):
        # (full-frame tables: one value per frame 0..n-1; frame n is frame 0
        # of a loop, or held)
        return 0, max(n - 1, 0)
    return 0, n


def drop_default_tracks(tracks):
    """Banjo-Kazooie writes only the channels it animates: a channel that
    holds its default (rotation 0, scale 1, translation 0) is left out,
    which the game treats the same for a bone with other channels."""
    out = []
    for t in tracks:
        vals = t.values
        d = CHANNEL_DEFAULT.get(t.channel, 0.0)
        if is_constant(vals) and abs(vals[0] - d) <= CONST_REL * max(1.0, abs(d)):
            continue
        out.append(t)
    return out


# ---------------------------------------------------------------------------
# One curve mapped directly to one track


def direct_track(gameanim, fc, target, channel, axis, vs, vo, tm, rate, frames_scene, times, strip_period,
                 tolerance, inside=False):
    """An exact channel's curve as its track: the keys themselves (rate
    KEYS, Hermite-compatible keys), else per-frame values.  inside: keys
    are only carried over when they all lie in the exported range (a range
    chosen by the user cuts the curve; per-frame values do that exactly).
    Full-frame formats read with the nearest-frame rule (tm.frame_rule):
    file frame i takes the curve half a frame earlier, where the import put
    the game's switch to it (curve_plans.frame_rule_keys)."""
    if tm.frame_rule == "nearest":
        rate = "FRAMES"
        half = 0.5 * tm.scale
        frames_scene = array("d", (max(f - half, tm.start) for f in frames_scene))
    keys = readback.read_keys(fc) if fc is not None and not fc.mute else None
    if keys is None or len(keys) == 0:
        return None
    keys = readback.rejoin_steps(keys)  # (the import separates a step's two keys)
    if rate == "KEYS" and not readback.needs_blender_evaluation(fc, keys, frames_scene):
        k = readback.strip_period_keys(keys, tm) if strip_period else keys
        lo, hi = min(frames_scene), max(frames_scene)
        holds = fc.extrapolation == "CONSTANT" or len(k) == 1 or (
            k.times[0] <= lo + 1e-6 and k.times[-1] >= hi - 1e-6)
        if inside and (k.times[0] < lo - 1e-6 or k.times[-1] > hi + 1e-6):
            holds = False
        if holds:
            track = readback.keys_to_track(gameanim, k, target, channel, axis, vs, vo, tm.scale, tm.offset)
            if track is not None:
                if tolerance > 0:
                    track = readback.linear_as_hermite(gameanim, track)
                return track
    if tolerance > 0:
        # per-frame values with the curve's own slopes: the key reduction
        # then places Hermite keys with the true derivatives (fewer keys)
        got = readback.sample_with_slopes(fc, keys, frames_scene)
        if got is not None:
            values = readback.affine(got[0], 1.0 / vs, -vo / vs)
            if is_constant(values):
                return gameanim.Track(target, channel, axis, times[:1], values[:1])
            k = tm.scale / vs  # per scene frame -> per file frame, file units
            return gameanim.Track(target, channel, axis, times, values, readback.affine(got[1], k, 0.0),
                                  readback.affine(got[2], k, 0.0), array("B", (gameanim.LINEAR,)) * len(values))
    values = readback.affine(readback.sample(fc, keys, frames_scene), 1.0 / vs, -vo / vs)
    return per_frame_track(gameanim, target, channel, axis, times, values)


def action_cycles(fcurves):
    """'REPEAT' / 'MIRROR' when every animated curve has an active Cycles
    modifier (of that mode), else None."""
    modes = set()
    for fc in fcurves:
        if len(fc.keyframe_points) < 2:
            continue
        mod = next((m for m in fc.modifiers if m.type == "CYCLES" and not m.mute), None)
        if mod is None:
            return None
        modes.add("MIRROR" if mod.mode_after == "MIRROR" else "REPEAT")
    if len(modes) == 1:
        return modes.pop()
    return "REPEAT" if modes else None


def frame_range(action, xopts, scene):
    """(start, end) scene frames of the export (both included)."""
    if xopts.frame_range == "SCENE":
        return float(scene.frame_start), float(scene.frame_end)
    if xopts.frame_range == "CUSTOM":
        if xopts.frame_end < xopts.frame_start:
            raise ExportError(f"frame range {xopts.frame_start:g}..{xopts.frame_end:g} is empty")
        return float(xopts.frame_start), float(xopts.frame_end)
    r = action.frame_range
    return float(r[0]), float(r[1])


def new_file_frames(fmt, actions, xopts, scene):
    """The frames of a new file written from several actions: (frame
    count, TimeMap, file frames array('f'), scene frames).  The range is
    frame_range's for the first action, with option Frame Range AUTO the
    union of the actions' ranges; scene frame s is file frame 0."""
    s, e = frame_range(actions[0], xopts, scene)
    if xopts.frame_range == "AUTO" and len(actions) > 1:
        ranges = [a.frame_range for a in actions]
        s, e = min(r[0] for r in ranges), max(r[1] for r in ranges)
    s, e = int(round(s)), int(round(e))
    if e < s:
        raise ExportError(f"frame range {s}..{e} is empty")
    frame_count = e - s
    first, last = file_frames(fmt, frame_count)
    return (frame_count, TimeMap(0.0, frame_count, 1.0, float(s)), array("f", readback.frames_array(first, last)),
            readback.frames_array(first, last, 1.0, float(s)))


# the s16 angle range: -0x8000 is -pi (float32: a hair below), and values
# from 32767.5 units on would round to +0x8000, which an s16 cannot hold
_F32_PI_NEG = array("f", (-math.pi,))[0]
_S16_TOP = math.pi * 32767.5 / 32768.0


def _wrap(v):
    w = math.remainder(v, 2.0 * math.pi)
    return w - 2.0 * math.pi if w > _S16_TOP else w


def wrap_full_frame_rotations(gameanim, anim):
    """Full-frame joint tables hold rotations as s16 angles (-pi .. pi):
    rotation tracks with values outside are replaced by the same angles
    wrapped into [-pi, pi) (curves made continuous on import, or keyed past
    pi by hand).  Tracks within the range are left as they are, so an
    untouched file stays the original."""
    tracks = list(anim.tracks)
    changed = False
    for i, t in enumerate(tracks):
        if t.channel != "rotation" or len(t) == 0:
            continue
        vals = t.values
        if max(vals) <= _S16_TOP and min(vals) >= _F32_PI_NEG:
            continue
        wrapped = array("f", (_wrap(v) for v in vals))
        tracks[i] = gameanim.Track(t.target, t.channel, t.axis, t.times, wrapped, t.in_slopes, t.out_slopes,
                                   t.interpolation)
        changed = True
    if changed:
        anim.tracks = tracks

