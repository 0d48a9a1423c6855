"""Writing curve plans (shared/curve_plans.py) into an action: one F-curve
each, keys in bulk through bulk_keys.write_keys."""
from .. import bulk_keys
from ..shared.curve_plans import given_bounds, plan_track


def write_plans(sink, plans, tm=None):
    """write_plan for a list of plans (one sink).  The list is emptied as
    the curves are written, so that each plan's buffers are freed as soon
    as Blender holds its keys (the peak memory of a large import is then
    Blender's keys plus what is not written yet, not both in full).  Lazy
    plans (co None: rig_mapping.ExactChannels, a bone's exact channels) are
    planned here, one track at a time, with tm (the TimeMap): a track whose
    keys plan_track would keep as Track.bezier gives them
    (curve_plans.given_bounds) is written straight from those buffers.
    Returns whether a lazy plan added held period keys."""
    write_keys = bulk_keys.write_keys
    new = sink.new_fcurve
    plans.reverse()
    pop = plans.pop
    added_any = False
    if tm is not None:
        scale, offset, cycles = tm.scale, tm.offset, tm.cycles
        bounds = given_bounds(tm)
        lo, hi = bounds or (0.0, 0.0)

    def put(cp):
        write_keys(new(cp.path, cp.index, cp.group), cp.co, cp.interp, cp.left, cp.right, cp.distinct, cp.bezier,
                   cp.cycles)

    while plans:
        plan = pop()
        if plan.co is not None:
            put(plan)
            continue
        bone = plan.bone
        for t, path, axis, vs, vo, ch in plan.channels():
            if not len(t):
                put(plan.constant(t, path, axis, vs, vo, ch))
                continue
            co, left, right, interp, increasing, bezier = bez = t.bezier(vs, vo, scale, offset, True)
            n = len(interp)
            # the keys as given (no plan object) where plan_track keeps them
            if increasing and bounds and (n < 2 or (co[0] <= lo and co[-2] >= hi)):
                write_keys(new(path, axis, bone), co, interp, left, right, True, bezier, cycles if n > 1 else None)
                continue
            cp, added = plan_track(path, axis, bone, bez, tm, ("track", t, vs, vo))
            added_any |= added
            put(cp)
        plans.extend(reversed(plan.defaults()))  # (written next, in order)
    return added_any


def write_plan(sink, plan):
    """Creates the plan's F-curve in sink and fills it (and its Cycles
    modifier)."""
    fc = sink.new_fcurve(plan.path, plan.index, plan.group)
    bulk_keys.write_keys(fc, plan.co, plan.interp, plan.left, plan.right, distinct=plan.distinct, bezier=plan.bezier,
                      cycles=plan.cycles)
    return fc
