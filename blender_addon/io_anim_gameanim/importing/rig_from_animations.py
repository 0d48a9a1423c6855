"""New armatures for animations without a rig (no target armature, no
model among the files): one per group of files that import_plan decided
(option New Rigs), built before any file is written."""
import math

import bpy
from mathutils import Vector

from ..shared import formats
from ..shared.rig_match import anim_targets, blender_name
from .import_scale import apply_import_scale


def build_new_rigs(new_rigs, context, opts):
    """Builds the armature of each group of the plan ([(format, name,
    [FilePlan])]) and sends its files to it (FilePlan.arm).  A rig that
    cannot be built fails its own files (their anim is dropped), the
    others go on.  Returns the objects built."""
    built = []
    for fmt, name, items in new_rigs:
        try:
            obj = build_armature([it.anim for it in items], fmt, name, context, opts.translation_scale)
        except Exception as e:  # the files that needed this rig fail, the others go on
            for it in items:
                it.report.error = f"could not build a {fmt} armature: {type(e).__name__}: {e}"
                it.anim = None
            continue
        apply_import_scale(obj, opts)
        built.append(obj)
        for it in items:
            it.arm = obj
    return built


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
