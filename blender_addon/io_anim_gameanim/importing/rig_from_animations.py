"""Skeletal import: a new armature for animations without a rig, the
plan of one file onto a rig with its report, and the pose bones' rotation
modes an action was written for."""
import math

import bpy
from mathutils import Vector

from ..shared import formats
from ..shared.imported_action import rotation_modes
from ..shared.rig_mapping import plan_bones
from ..shared.rig_match import RigIndex, anim_targets, blender_name, match_bones, target_label


# ---------------------------------------------------------------------------
# New armatures


def build_armature(anims, fmt, name, context, translation_scale=1.0):
    """A new armature for animations without a rig: one bone per target
    (the formats store no hierarchy, so bones are unparented), every rest
    rotation the identity so that every channel stays exact.  Bones carry
    their index or ID as a custom property.  Y-up formats get the Y-up ->
    Z-up turn on the object, not in the bones."""
    targets = []
    seen = set()
    for anim in anims:
        for t in anim_targets(anim):
            if t not in seen:
                seen.add(t)
                targets.append(t)
    if all(isinstance(t, int) for t in targets):
        targets.sort()
    heads = _first_frame_heads(anims[0], targets, fmt, translation_scale) if anims else {}
    extent = max((v.length for v in heads.values()), default=0.0)
    length = max(extent * 0.1, 0.1) if extent > 0 else 1.0

    obj = new_armature_object(name, context)
    arm = obj.data
    view_layer = context.view_layer
    by_id = formats.target_kind(fmt) == "bone_id"
    prev_active = view_layer.objects.active
    try:
        if formats.is_y_up(fmt):
            obj.rotation_euler = (math.pi / 2, 0.0, 0.0)
        names = {}
        prev_mode = prev_active.mode if prev_active is not None else "OBJECT"
        if prev_active is not None and prev_mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        view_layer.objects.active = obj
        bpy.ops.object.mode_set(mode="EDIT")
        try:
            for t in targets:
                if isinstance(t, str):
                    bone_name = blender_name(t)
                elif by_id:
                    bone_name = f"bk_id_{t:03d}"
                else:
                    bone_name = f"joint_{t:03d}"
                eb = arm.edit_bones.new(bone_name)
                head = heads.get(t, Vector((0.0, 0.0, 0.0)))
                eb.head = head
                eb.tail = head + Vector((0.0, length, 0.0))
                eb.roll = 0.0
                names[t] = eb.name
        finally:
            bpy.ops.object.mode_set(mode="OBJECT")
        for t, bone_name in names.items():
            bone = arm.bones[bone_name]
            if isinstance(t, str):
                safe = blender_name(t)
                bone["gameanim_name"] = safe
                if safe != t:  # (escaped: keep the file's bytes for the export)
                    bone["gameanim_name_utf8_hex"] = t.encode("utf-8", "surrogateescape").hex()
            elif by_id:
                bone["gameanim_bone_id"] = t
            else:
                bone["gameanim_index"] = t
    except Exception:
        discard_armature(obj, prev_active, view_layer)
        raise
    obj["gameanim_built_for"] = fmt
    if prev_active is not None:
        view_layer.objects.active = prev_active
    view_layer.objects.active = obj
    return obj


def new_armature_object(name, context):
    """An empty armature object linked to the context's collection."""
    arm = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, arm)
    collection = context.collection if getattr(context, "collection", None) else context.scene.collection
    collection.objects.link(obj)
    return obj


def discard_armature(obj, prev_active, view_layer):
    """Removes a half-built armature (the importer reports the files that
    needed it) and gives the previous object back its activity."""
    arm = obj.data
    bpy.data.objects.remove(obj)
    bpy.data.armatures.remove(arm)
    if prev_active is not None:
        view_layer.objects.active = prev_active


def _first_frame_heads(anim, targets, fmt, k):
    """Rest heads of a new armature: the translation at frame 0 for the
    absolute formats (locations then start near zero), the origin for
    Banjo-Kazooie's deltas."""
    heads = {}
    if formats.is_delta(fmt):
        return heads
    values = anim.sample([0.0])
    for i, t in enumerate(anim.tracks):
        if t.channel == "translation" and t.target in targets and t.axis < 3:
            heads.setdefault(t.target, Vector((0.0, 0.0, 0.0)))[t.axis] = values[i] * k
    return heads



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

