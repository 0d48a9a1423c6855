"""Export of an action imported with option Model File (re-based onto a
rig another tool made: shared/foreign_rig_retarget.py).  The stored original is
planned again with the same model and axes; unchanged curves keep the
file's tracks (an untouched action gives the original bytes), and the
edited bones' channels are read back from the poses: the game's world
matrix W_i = A^-1 @ pose_i @ C_i^-1, and the joint's local transform
W_parent^-1 @ W_i as translation, Euler XYZ rotation and scale.

Banjo-Kazooie composes M_i = M_parent @ T(pivot_i + k t) @ R @ S @
T(-pivot_i) (docs/skeleton.md), and W_i (model_world) is M_i @ T(pivot_i):
so M_parent = W_parent @ T(-pivot_parent), the local transform
M_parent^-1 @ W_i = T(pivot_i + k t) @ R @ S, and the channel's
translation delta is t = (its translation - pivot_i) / k."""
from array import array

from mathutils import Matrix, Quaternion, Vector

from ..shared import formats
from ..shared.foreign_rig_retarget import ModelRig, RetargetError, model_world, plan_onto_rig
from ..shared.model_rig import model_translation_scale
from .export_tracks import ExportError


def model_rig(ga, record, arm_obj, id_property):
    """The ModelRig the import used, from the action's record."""
    path = record.get("file", "")
    try:
        model = ga.load_model(path)
    except (ga.FormatError, OSError, ValueError) as e:
        raise ExportError(f"the action was imported with Model File {path!r}, which cannot be read now ({e}); "
                          "its poses need that model to be written back") from None
    try:
        return ModelRig.from_record(model, arm_obj, record, id_property)
    except RetargetError as e:
        raise ExportError(str(e)) from None


def retarget_plans(anim, rig, tm):
    """The BonePlans the import made (kind 'retarget')."""
    _res, plans, _unmatched = plan_onto_rig(anim, rig, tm)
    for plan in plans:
        plan.kind = "retarget"
    return plans


def local_channels(rig, anim, plans, basis_of, times_f):
    """{target: {'translation', 'euler', 'scale': 3 arrays}} of the plans'
    joints at the file frames times_f, from basis_of(plan) -> (location,
    quaternion, scale) lists of per-frame arrays (the action's curves)."""
    model = rig.model
    if formats.model_by_bone_id(model.format):  # deltas about the pivots
        pivots = [Vector(b.translation) for b in model.bones]
        unpivot = [Matrix.Translation(-p) for p in pivots]
        k = model_translation_scale(model)
        if k == 0.0:
            raise ExportError("the Banjo-Kazooie model's translation factor is 0: its bones' translations "
                              "cannot be written back")
    else:
        pivots = unpivot = None
    sampled = {plan.bone: basis_of(plan) for plan in plans}
    joint = {plan.target: rig.joint_of_bone[plan.bone] for plan in plans}
    out = {plan.target: {k: [array("f") for _ in range(3)] for k in ("translation", "euler", "scale")}
           for plan in plans}
    previous = {}
    parents = [mb.parent for mb in model.bones]
    for i, f in enumerate(times_f):
        bases = {}
        for name, (loc, rot, scale) in sampled.items():
            q = Quaternion([rot[a][i] for a in range(4)])
            q.normalize()
            bases[name] = Matrix.LocRotScale([loc[a][i] for a in range(3)], q, [scale[a][i] for a in range(3)])
        world = rig.world_from_poses(rig.pose_chain(bases))
        original = None
        for target, j in joint.items():
            p = parents[j]
            if p < 0:
                parent = Matrix.Identity(4)
            elif p in world:
                parent = world[p]
            else:  # a joint the rig lacks moves as the file says
                if original is None:
                    original = model_world(model, anim, float(f))
                parent = original[p]
            if unpivot is not None and p >= 0:
                parent = parent @ unpivot[p]
            loc, rot, scale = (parent.inverted() @ world[j]).decompose()
            if pivots is not None:
                loc = (loc - pivots[j]) / k
            euler = rot.to_euler("XYZ", previous[target]) if target in previous else rot.to_euler("XYZ")
            previous[target] = euler
            got = out[target]
            for a in range(3):
                got["translation"][a].append(loc[a])
                got["euler"][a].append(euler[a])
                got["scale"][a].append(scale[a])
    return out
