"""A skeletal file (BCK, BCA, BK, JBA, J3D BCA) onto its armature: the
plan of its curves with its report (onto a rig this add-on built or a
user's rig matched by index, ID or name; option Model File:
foreign_rig_import.plan_file), then the action and its F-curves
(curve_writer), and the pose bones' rotation modes the action was written
for."""
import json

import bpy

from .. import compat
from ..shared.imported_action import ROOT_REST_PROP, rotation_modes, source_properties
from ..shared.rig_mapping import plan_bones
from ..shared.rig_match import RigIndex, match_bones, target_label
from . import curve_writer, foreign_rig_import
from .actions import new_action


def plan_file(anim, arm_obj, opts, tm, fr, index=None):
    """Plans `anim` onto arm_obj without touching Blender data: matches
    the bones, fills the file report and returns (BoneWriteResult, the
    list of every CurvePlan in writing order).  The plans hold all the
    importer needs, so the caller can let go of the Animation before
    writing them: the baked curves' buffers are made here (then the
    decoded keys can go before Blender makes its own), the exact
    channels' buffers when each curve is written (lazy plans keep their
    Track, whose keys stay until then; write_plans, not res.period_keys,
    then says whether held period keys were added: baked curves add none).
    index: a RigIndex of arm_obj shared by the files of one import."""
    mode = opts.bone_match_for(anim.format)
    if index is None:
        index = RigIndex(arm_obj)
    mapping, unmatched, notes = match_bones(anim, arm_obj, mode, opts.id_property, index)
    fr.unmatched.extend(target_label(t) for t in unmatched)
    fr.notes.extend(notes)
    res, plans = plan_bones(anim, arm_obj, mapping, opts, tm, index=index, lazy=True)
    fr.exact.extend(res.exact)
    fr.baked.extend(res.baked)
    fr.notes.extend(res.notes)
    return res, [cp for plan in plans for cp in plan.curves]


def prepare(anim, fp, arm_obj, tm, index=None):
    """Plans the file's curves (fp: its FilePlan) onto arm_obj and takes
    what its action stores; returns a function that creates the action
    and writes them.  In between, the caller lets go of the Animation: the
    baked curves need none of it, so Blender's keys reuse the decoded
    keys' memory (a large baked import peaks near Blender's own keys, not
    at those plus the decoded file); exact channels keep their Track until
    their curve is written (their buffers are made then, one at a time)."""
    opts, fr, path = fp.opts, fp.report, fp.path
    planner = foreign_rig_import.plan_file if opts.model_file else plan_file
    res, plans = planner(anim, arm_obj, opts, tm, fr, index)
    props = source_properties(anim, path, opts, tm, {
        "options": {"bone_match": opts.bone_match_for(anim.format), "id_property": opts.id_property},
        "gameanim_bones": json.dumps(res.bones, sort_keys=True),
        "gameanim_rotation_modes": json.dumps(res.rotation_modes, sort_keys=True),
    })
    if res.root_rest is not None:
        props[ROOT_REST_PROP] = res.root_rest
    props.update(getattr(res, "source_extra", {}))
    name = fp.action_name

    def write():
        action = new_action(name)
        try:
            sink = compat.CurveSink(action, "OBJECT", arm_obj.name)
            # (empties the list: each plan's buffers go once written; the
            # exact channels' buffers are made there, one curve at a time)
            period_keys = curve_writer.write_plans(sink, plans, tm)
            props["gameanim_period_keys"] = bool(period_keys)
            for key, value in props.items():
                action[key] = value
        except BaseException:
            bpy.data.actions.remove(action)  # no half-written action is left behind
            raise
        if period_keys:
            fr.notes.append("held keys added at frame 0 / the duration so that the Cycles modifier loops over "
                            "the file's duration")
        if res.root_rest is not None and arm_obj.get(ROOT_REST_PROP) is None:
            # later imports compose with this, not with the animated transform
            arm_obj[ROOT_REST_PROP] = res.root_rest
        fr.owners.append(arm_obj.name)
        return [(arm_obj, sink, lambda: apply_rotation_modes(arm_obj, action))]

    return write


def apply_rotation_modes(arm_obj, action):
    """Sets the pose bones' rotation modes the action was written for
    (Euler XYZ for exact Euler channels, quaternion for baked ones)."""
    for bone_name, mode in rotation_modes(action).items():
        if bone_name == "":
            arm_obj.rotation_mode = mode
            continue
        pb = arm_obj.pose.bones.get(bone_name)
        if pb is not None:
            pb.rotation_mode = mode
