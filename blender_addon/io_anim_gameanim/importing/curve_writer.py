"""Writing curve plans (shared/curve_plans.py) into an action: one F-curve
each, keys in bulk through compat.write_keys."""
from .. import compat
from ..shared.curve_plans import given_bounds, realise


def write_plans(sink, plans, tm=None):
    """write_plan for a list of plans (one sink).  The list is emptied as
    the curves are written, so that each plan's buffers are freed as soon
    as Blender holds its keys (the peak memory of a large import is then
    Blender's keys plus what is not written yet, not both in full).  Lazy
    plans (lazy_plan) get their buffers here, from tm (the TimeMap).
    Returns whether a lazy plan added held period keys."""
    write_keys = compat.write_keys
    new = sink.new_fcurve
    plans.reverse()
    pop = plans.pop
    added_any = False
    if tm is not None:
        scale, offset, cycles = tm.scale, tm.offset, tm.cycles
        bounds = given_bounds(tm)
        lo, hi = bounds or (0.0, 0.0)
    while plans:
        plan = pop()
        if plan.co is None:  # a LazyPlan: (path, index, group, Track, value scale, value offset)
            path, index, group, track, vs, vo = plan
            bez = track.bezier(vs, vo, scale, offset, True)
            co, left, right, interp, increasing, bezier = bez
            n = len(interp)
            # (the keys as given: no second plan needed; see given_bounds)
            if increasing and bounds and (n < 2 or (co[0] <= lo and co[-2] >= hi)):
                write_keys(new(path, index, group), co, interp, left, right, True, bezier,
                           cycles if n > 1 else None)
                continue
            plan, added = realise(plan, tm, bez)
            added_any |= added
        write_keys(new(plan.path, plan.index, plan.group), plan.co, plan.interp, plan.left, plan.right,
                   plan.distinct, plan.bezier, plan.cycles)
    return added_any


def write_plan(sink, plan):
    """Creates the plan's F-curve in sink and fills it (and its Cycles
    modifier)."""
    fc = sink.new_fcurve(plan.path, plan.index, plan.group)
    compat.write_keys(fc, plan.co, plan.interp, plan.left, plan.right, distinct=plan.distinct, bezier=plan.bezier,
                      cycles=plan.cycles)
    return fc
