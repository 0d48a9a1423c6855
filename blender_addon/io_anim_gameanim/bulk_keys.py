"""Keys written in bulk into an empty F-curve (write_keys): positions,
interpolations and handles with one foreach_set each, then one update.

Handle types are the exception.  Blender 3.4.1's foreach_set on
handle_left_type / handle_right_type returns without writing anything,
and setting them per key through RNA is two Python calls per key, more
than the rest of the curve's write.  So the first Bezier curve written
probes which way works in this build (set_handles_free) and every later
curve uses it:

1. "foreach_set": the write took (every Blender but 3.4.1).
2. "memory": the bytes of the handle types are written directly with
   ctypes.  What this relies on, and how each part is checked:
   - FCurve.keyframe_points is one C array (FCurve.bezt) of DNA BezTriple
     structs, and Keyframe.as_pointer() is the address of its element.
     Checked on every curve: the last key's address must be the first's
     plus (n - 1) strides, with the stride measured between keys 0 and 1
     (and between 16 and 1024 bytes), else nothing is written.
   - BezTriple holds the two handle types as single bytes (h1, h2: after
     vec[3][3], alfa, weight, radius and ipo, offsets 49 and 50 in the
     builds seen), whose values are the RNA enum's (RNA reads and writes
     them as they are).  Not assumed: the probe sets key 0's types through
     RNA to (VECTOR, ALIGNED), then (ALIGNED, VECTOR), and takes as h1 / h2
     the one byte offset within the stride whose value follows each
     change; none or more than one such offset fails the probe.  Key 0's
     types are then put back.
   - Only bytes inside the array that keyframe_points.add() made for
     these n keys are written (n strides from key 0), and only the two
     offsets the probe found; nothing else of the struct changes.
   After each memory write the first and last keys' types are read back
   through RNA; if either is not FREE the mode falls to "per_key" for the
   rest of the session (the curve being written is finished per key).
3. "per_key": RNA per key, only on keys next to a Bezier segment (the
   only ones whose handles shape the curve): the mode for good when the
   probe fails.  (A curve of one key cannot be probed: it is written per
   key and the next curve probes again.)

handle_types_bulk_mode() says which mode this build uses (the tests and
bench/bench_blender.py report it)."""
from array import array

import bpy

_ENUM = bpy.types.Keyframe.bl_rna.properties
INTERP = {k: _ENUM["interpolation"].enum_items[k].value for k in ("CONSTANT", "LINEAR", "BEZIER")}
HANDLE_FREE = _ENUM["handle_left_type"].enum_items["FREE"].value

# How handle types are written in bulk, found on the first Bezier curve
# (None until then): "foreach_set"; "memory" (3.4.1, where foreach_set on
# handle types does nothing: the bytes of the keys' handle types are
# written directly, at offsets measured on that curve); "per_key" (the
# probe or a later check failed: RNA, one key at a time, for good).
_handle_mode = None
_handle_layout = None  # (stride, offset of h1, offset of h2) for "memory"



def _probe_memory_layout(kp, n):
    """(stride, h1, h2): where the handle types of keyframe_points[i] sit
    in memory, measured on this curve by setting them through RNA; None if
    the keys are not one array with a single byte per handle type."""
    import ctypes

    if n < 2:
        return None
    p0, p1, plast = kp[0].as_pointer(), kp[1].as_pointer(), kp[n - 1].as_pointer()
    stride = p1 - p0
    if not 16 <= stride <= 1024 or plast != p0 + (n - 1) * stride or not p0:
        return None
    items = _ENUM["handle_left_type"].enum_items
    a, b = items["VECTOR"].value, items["ALIGNED"].value
    k = kp[0]
    saved = (k.handle_left_type, k.handle_right_type)

    def snapshot(left, right):
        k.handle_left_type, k.handle_right_type = left, right
        return bytes((ctypes.c_ubyte * stride).from_address(p0))

    one = snapshot("VECTOR", "ALIGNED")
    two = snapshot("ALIGNED", "VECTOR")
    k.handle_left_type, k.handle_right_type = saved
    h1 = [i for i in range(stride) if one[i] == a and two[i] == b]
    h2 = [i for i in range(stride) if one[i] == b and two[i] == a]
    if len(h1) != 1 or len(h2) != 1:
        return None
    return stride, h1[0], h2[0]


def _write_handle_bytes(kp, n, value):
    import ctypes

    stride, h1, h2 = _handle_layout
    p0 = kp[0].as_pointer()
    if n > 1 and kp[n - 1].as_pointer() != p0 + (n - 1) * stride:
        return False
    mem = memoryview((ctypes.c_ubyte * (stride * n)).from_address(p0)).cast("B")
    fill = bytes((value,)) * n
    mem[h1::stride] = fill
    mem[h2::stride] = fill
    return True


def set_handles_free(kp, n, interpolation):
    """Sets the handle types of an F-curve's n keys to FREE (the handles a
    Bezier segment uses keep the positions written next).  foreach_set
    where it works; in 3.4.1, where foreach_set on handle types is a silent
    no-op, the handle-type bytes of the keys are written directly at
    offsets measured (and checked) once through RNA; per key only if both
    fail."""
    global _handle_mode, _handle_layout
    if n == 0:
        return
    if _handle_mode in (None, "foreach_set"):
        buf = array("i", [HANDLE_FREE]) * n
        kp.foreach_set("handle_left_type", buf)
        kp.foreach_set("handle_right_type", buf)
        if _handle_mode is None:
            # add() makes AUTO_CLAMPED keys: see whether the write took
            if kp[0].handle_left_type == "FREE" and kp[n - 1].handle_right_type == "FREE":
                _handle_mode = "foreach_set"
            elif n >= 2:
                _handle_layout = _probe_memory_layout(kp, n)
                _handle_mode = "memory" if _handle_layout else "per_key"
        if _handle_mode == "foreach_set":
            return
    if _handle_mode == "memory":
        if _write_handle_bytes(kp, n, HANDLE_FREE) and kp[0].handle_left_type == "FREE" \
                and kp[n - 1].handle_right_type == "FREE":
            return
        _handle_mode = "per_key"
    # per key, but only where a Bezier segment uses the handles
    bez = INTERP["BEZIER"]
    prev_bezier = False
    for i in range(n):
        bezier = interpolation[i] == bez
        if bezier or prev_bezier:
            k = kp[i]
            k.handle_left_type = "FREE"
            k.handle_right_type = "FREE"
        prev_bezier = bezier


_BEZIER_BYTES = array("i", [INTERP["BEZIER"]]).tobytes()


def has_bezier(interpolation):
    """Whether an array('i') of interpolation codes has a BEZIER segment
    (a byte search: the codes are 0..2, so a match is always aligned)."""
    return _BEZIER_BYTES in interpolation.tobytes()


def write_keys(fc, co, interpolation, left=None, right=None, distinct=None, bezier=None, cycles=None):
    """Fills an empty F-curve: co (flat x, y pairs), interpolation (ints),
    optional handles (flat pairs, FREE handle types).  Extrapolation is
    CONSTANT.  One update at the end.  distinct: whether no two keys share
    a time (computed when None); bezier: whether some segment is BEZIER
    (computed when None); cycles: None, 'REPEAT' or 'MIRROR' for a Cycles
    modifier."""
    n = len(co) // 2
    if distinct is None:
        distinct = times_distinct(co)
    if cycles and distinct:
        # before the keys: adding a Cycles modifier recalculates the
        # curve's handles, which update() below does anyway (same result)
        add_cycles(fc, mirror=cycles == "MIRROR")
    if n == 0:
        return
    # (new curves extrapolate CONSTANT already; setting it would run the
    # curve's RNA update, which (4.0+) merges keys that share a time)
    kp = fc.keyframe_points
    kp.add(n)
    kp.foreach_set("co", co)
    if interpolation.tobytes() != _added_interpolation(kp) * n:
        kp.foreach_set("interpolation", interpolation)
    if left is not None:
        if bezier is None:
            bezier = has_bezier(interpolation)
        if bezier:
            set_handles_free(kp, n, interpolation)
        # Without a BEZIER key no handle shapes the curve: update() below
        # recomputes the handles of two or more AUTO_CLAMPED keys (what
        # add() makes), and a lone LINEAR or CONSTANT key extrapolates flat
        # whatever its handles (Blender reads a lone key's handle only when
        # it is BEZIER).  They are written only where they count or stay.
        if bezier or not distinct:
            kp.foreach_set("handle_left", left)
            kp.foreach_set("handle_right", right)
    if distinct:
        fc.update()
    # else: two keys share a time (a step, as J3D and Banjo-Kazooie files
    # write them).  From 4.0 update() merges such keys and keeps only the
    # second value, which breaks the segment before the step; the keys are
    # already sorted and their handles set, so the curve is left as is.
    if cycles and not distinct:
        add_cycles(fc, mirror=cycles == "MIRROR")


_added_interp_bytes = None


def _added_interpolation(kp):
    """The interpolation code of the keys keyframe_points.add() makes
    (BEZIER), as the bytes of one array('i') item; measured once."""
    global _added_interp_bytes
    if _added_interp_bytes is None:
        code = _ENUM["interpolation"].enum_items[kp[len(kp) - 1].interpolation].value
        _added_interp_bytes = array("i", [code]).tobytes()
    return _added_interp_bytes


def times_distinct(co):
    """True when no two keys of flat (x, y) pairs share a time."""
    xs = co[0::2]
    return len(set(xs)) == len(xs)


def handle_types_bulk_supported():
    """After the first Bezier write: True if foreach_set wrote handle
    types, False if a fallback was needed, None if not probed."""
    return None if _handle_mode is None else _handle_mode == "foreach_set"


def handle_types_bulk_mode():
    """'foreach_set', 'memory', 'per_key', or None before the first Bezier
    curve was written."""
    return _handle_mode


def add_cycles(fc, mirror=False):
    mod = fc.modifiers.new("CYCLES")
    mode = "MIRROR" if mirror else "REPEAT"
    # (a new Cycles modifier repeats; each setting runs an update)
    if mod.mode_before != mode:
        mod.mode_before = mode
    if mod.mode_after != mode:
        mod.mode_after = mode
    return mod
