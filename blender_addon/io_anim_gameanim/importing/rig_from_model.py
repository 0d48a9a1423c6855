"""An armature built from a game's model file (J3D BMD/BDL, SM64DS BMD,
Banjo-Kazooie model bin): one bone per joint, parented as in the model,
heads at the game's rest positions, identity rest orientations, the
object turned Y-up -> Z-up, and each rule's parent chain made exact
(shared/model_rig.py says how and why)."""
import json
import math
import os
from array import array
from itertools import chain

import bpy
from mathutils import Matrix, Vector

from .. import compat
from ..shared import model_rig
from ..shared.model_rig import BONE_ID_PROP, HELPER_PROP, INDEX_PROP, MODEL_PROP, SSC_PROP
from ..shared.rest import rest_local
from ..shared.rig_match import blender_name
from .rig_from_animations import discard_armature, new_armature_object

HELPER_COLLECTION = "gameanim helpers"


class BuiltRig:
    """What build_model_armature made: the object, its rig_info, the bone
    name of each joint and the helper bone of each compensated joint."""

    def __init__(self, obj, rig, names, helpers):
        self.obj = obj
        self.rig = rig
        self.names = names
        self.helpers = helpers


def rest_heads(model, rig):
    """Each joint's head: the translation of its rest world matrix (the
    game's own, Model.world_matrices()); Banjo-Kazooie: its pivot."""
    if model_rig.is_delta_family(rig["format"]):
        return [Vector(b["translation"]) for b in rig["bones"]]
    n = len(rig["bones"])
    w = model.world_matrices()
    return [Vector((w[16 * i + 3], w[16 * i + 7], w[16 * i + 11])) for i in range(n)]


def _lengths(rig, heads):
    """Display lengths along +Y: the distance to the first child, else
    half the parent's, with a floor from the model's size (a bone of
    length 0 is deleted by Blender)."""
    bones = rig["bones"]
    lo = [min((h[a] for h in heads), default=0.0) for a in range(3)]
    hi = [max((h[a] for h in heads), default=0.0) for a in range(3)]
    extent = max((hi[a] - lo[a] for a in range(3)), default=0.0)
    floor = max(extent * 0.02, 1e-3) if extent > 0 else 0.1
    first_child = {}
    for i, b in enumerate(bones):
        if b["parent"] >= 0:
            first_child.setdefault(b["parent"], i)
    lengths = [None] * len(bones)
    for i in _order(bones):
        c = first_child.get(i)
        length = (heads[c] - heads[i]).length if c is not None else 0.0
        if length < floor:
            p = bones[i]["parent"]
            length = max(lengths[p] * 0.5 if p >= 0 and lengths[p] else floor * 5, floor)
        lengths[i] = length
    return lengths


def _order(bones):
    return model_rig.parents_first(bones)


def build_model_armature(model, path, context, name=None, skin=None):
    """Builds the armature of a loaded Model; returns a BuiltRig.  skin: a
    model_mesh.Skin whose skin bones are made in the same edit-mode pass
    (model_mesh.prepare_skin), or None."""
    rig = model_rig.rig_info(model, path)
    bones = rig["bones"]
    calc = rig["calc"]
    heads = rest_heads(model, rig)
    lengths = _lengths(rig, heads)
    if name is None:
        name = _stem(path)
    obj = new_armature_object(name, context)
    arm = obj.data
    view_layer = context.view_layer
    prev_active = view_layer.objects.active
    names, helpers = {}, {}
    try:
        obj.rotation_euler = (math.pi / 2, 0.0, 0.0)  # the games are Y-up
        if prev_active is not None and prev_active.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        view_layer.objects.active = obj
        bpy.ops.object.mode_set(mode="EDIT")
        try:
            edit = {}  # joint -> (edit bone, head, tail)
            ends = []  # (head, tail) of each new edit bone in the order made: write_new_ends
            for i in _order(bones):
                b = bones[i]
                label = blender_name(b["name"]) if b["name"] else model_rig.bone_label(rig["format"], i, b)
                eb = arm.edit_bones.new(label)  # (roll 0, not connected: not set again)
                tail = heads[i] + Vector((0.0, lengths[i], 0.0))
                edit[i] = (eb, heads[i], tail)
                ends.append((heads[i], tail))
                names[i] = eb.name
                parent = edit[b["parent"]][0] if b["parent"] >= 0 and b["parent"] in edit else None
                if parent is not None and model_rig.needs_helper(calc, b):
                    hb = arm.edit_bones.new(model_rig.helper_name(eb.name))
                    ends.append((heads[i], tail))
                    hb.parent = parent
                    helpers[i] = hb.name
                    parent = hb
                eb.parent = parent
            if skin is not None:
                skin.edit_bones(arm, names, heads, edit, ends)
            write_new_ends(arm, ends)
        finally:
            bpy.ops.object.mode_set(mode="OBJECT")
        delta = model_rig.is_delta_family(rig["format"])
        arm_bones, pose_bones = arm.bones, obj.pose.bones
        for i, bone_name in names.items():
            b = bones[i]
            bone = arm_bones[bone_name]
            bone[INDEX_PROP] = i
            if delta:
                bone[BONE_ID_PROP] = b["bone_id"]
            bone[SSC_PROP] = bool(b["scale_compensate"])
            if b["name"] and blender_name(b["name"]) != b["name"]:
                bone["gameanim_name_utf8_hex"] = b["name"].encode("utf-8", "surrogateescape").hex()
            inherit = model_rig.inherit_scale(calc, b)
            if inherit != "FULL":  # (a new bone's)
                bone.inherit_scale = inherit
            pose_bones[bone_name].rotation_mode = "XYZ"
        for i, helper in helpers.items():
            bone = arm.bones[helper]
            bone[HELPER_PROP] = names[i]
            bone.inherit_scale = "FULL"
            _drive_helper(obj, helper, names[i], names[bones[i]["parent"]])
        if helpers:
            compat.hide_bones(arm, list(helpers.values()), HELPER_COLLECTION)
        pose = {}  # property -> {bone name: value}: written at once (write_new_pose)
        if skin is not None:
            skin.finish(obj, names, pose)
        _point_at_children(obj, rig, names, heads, pose)
        _pose_rest(obj, rig, names, pose)
        write_new_pose(obj, pose)
    except Exception:
        discard_armature(obj, prev_active, view_layer)
        raise
    obj[MODEL_PROP] = json.dumps(rig, sort_keys=True)
    obj["gameanim_model_format"] = rig["format"]
    obj["gameanim_model_path"] = rig["path"]
    obj["gameanim_calc"] = calc
    obj["gameanim_built_for"] = model_rig.animation_format(rig["format"]) or ""
    view_layer.objects.active = obj
    return BuiltRig(obj, rig, names, helpers)


SHAPE_NAME = "gameanim joint"


def joint_shape():
    """The custom shape of a joint: an octahedral bone from (0, 0, 0) to
    (0, 1, 0), as Blender draws bones (one mesh object shared by every
    built rig, not linked to a scene)."""
    obj = bpy.data.objects.get(SHAPE_NAME)
    if obj is not None and obj.type == "MESH":
        return obj
    w = 0.1
    verts = [(0.0, 0.0, 0.0), (w, w, 0.0), (0.0, w, w), (-w, w, 0.0), (0.0, w, -w), (0.0, 1.0, 0.0)]
    faces = [(0, 2, 1), (0, 3, 2), (0, 4, 3), (0, 1, 4), (5, 1, 2), (5, 2, 3), (5, 3, 4), (5, 4, 1)]
    mesh = bpy.data.meshes.new(SHAPE_NAME)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    return bpy.data.objects.new(SHAPE_NAME, mesh)


def write_new_ends(arm, ends):
    """In edit mode, on an armature whose edit bones were all made just
    now: their heads and tails (ends: (head, tail) of each, in the order
    they were made, which is the collection's), one foreach_set each
    (no bone is connected or mirrored, so the per-bone update a single
    assignment runs has nothing to do)."""
    arm.edit_bones.foreach_set("head", array("f", chain.from_iterable(h for h, _t in ends)))
    arm.edit_bones.foreach_set("tail", array("f", chain.from_iterable(t for _h, t in ends)))


# the value of each property write_new_pose writes on a new pose bone
_NEW_POSE = {"location": (0.0, 0.0, 0.0), "rotation_euler": (0.0, 0.0, 0.0),
             "rotation_quaternion": (1.0, 0.0, 0.0, 0.0), "scale": (1.0, 1.0, 1.0),
             "custom_shape_scale_xyz": (1.0, 1.0, 1.0), "custom_shape_rotation_euler": (0.0, 0.0, 0.0)}


def write_new_pose(obj, pose):
    """pose: {property: {bone name: value}} of an armature built just now:
    one foreach_set per property over all its pose bones, the bones not
    listed getting a new pose bone's value (_NEW_POSE), which they hold:
    far fewer Blender calls than a property at a time."""
    pbs = obj.pose.bones
    order = pbs.keys()
    for prop, by_name in pose.items():
        if by_name:
            new = _NEW_POSE[prop]
            pbs.foreach_set(prop, array("f", chain.from_iterable(by_name.get(n, new) for n in order)))
    obj.update_tag(refresh={"DATA"})  # (what setting a pose bone's property tags; foreach_set tags nothing)


def _point_at_children(obj, rig, names, heads, pose):
    """Display only: each joint with a child is drawn as a bone from its
    head to its first child's (a custom shape turned and scaled inside the
    bone), while the bone itself keeps the identity rest orientation that
    keeps the channels one to one.  Blender before 3.0 (no shape
    transform) draws the bones along +Y."""
    if not compat.HAS_SHAPE_TRANSFORM:
        return
    shape = joint_shape()
    first_child = {}
    for i, b in enumerate(rig["bones"]):
        if b["parent"] >= 0:
            first_child.setdefault(b["parent"], i)
    for i, bone_name in names.items():
        pb = obj.pose.bones[bone_name]
        c = first_child.get(i)
        d = heads[c] - heads[i] if c is not None else None
        if d is None or d.length < 1e-6:
            continue  # (drawn as Blender draws it: along +Y)
        pb.custom_shape = shape
        pb.use_custom_shape_bone_size = False
        pose.setdefault("custom_shape_scale_xyz", {})[bone_name] = (d.length,) * 3
        pose.setdefault("custom_shape_rotation_euler", {})[bone_name] = \
            Vector((0.0, 1.0, 0.0)).rotation_difference(d).to_euler("XYZ")


def _stem(path):
    base = os.path.basename(str(path))
    return base.split(".")[0] or base


def _drive_helper(obj, helper, joint, parent):
    """Helper bone of a Maya scale-compensated joint: location = the
    joint's location minus the helper's rest offset, scale = 1 / the
    parent's scale.  Simple expressions, which Blender evaluates without
    Python (so they work with auto-run scripts off)."""
    arm = obj.data
    offset = rest_local(arm.bones[helper], Matrix.Identity(4)).to_translation()
    pb = obj.pose.bones[helper]
    for axis in range(3):
        _driver(pb, obj, "location", axis, f'pose.bones["{compat.escape(joint)}"].location[{axis}]',
                f"var - {offset[axis]!r}" if offset[axis] else "var")
        _driver(pb, obj, "scale", axis, f'pose.bones["{compat.escape(parent)}"].scale[{axis}]', "1 / var")
    lim = obj.pose.bones[joint].constraints.new("LIMIT_LOCATION")
    lim.name = "gameanim: location on the helper"
    for a in "xyz":
        setattr(lim, f"use_min_{a}", True)
        setattr(lim, f"use_max_{a}", True)
    lim.owner_space = "LOCAL"


def _driver(pb, obj, prop, axis, path, expression):
    fc = pb.driver_add(prop, axis)
    d = fc.driver
    d.type = "SCRIPTED"
    var = d.variables.new()
    var.name = "var"
    var.type = "SINGLE_PROP"
    var.targets[0].id = obj
    var.targets[0].data_path = path
    d.expression = expression


def _pose_rest(obj, rig, names, pose):
    """Poses the bones at the model's rest transform (the game's pose
    without an animation): rest rotation and scale, and the translation
    less the bone's rest offset (into pose, for write_new_pose).
    Banjo-Kazooie's rest is the identity."""
    if model_rig.is_delta_family(rig["format"]):
        return
    arm = obj.data
    loc, rot, scale = (pose.setdefault(p, {}) for p in ("location", "rotation_euler", "scale"))
    identity = Matrix.Identity(4)
    for i, bone_name in names.items():
        b = rig["bones"][i]
        offset = rest_local(arm.bones[bone_name], identity).to_translation()
        loc[bone_name] = Vector(b["translation"]) - offset
        rot[bone_name] = b["rotation"]
        scale[bone_name] = b["scale"]
