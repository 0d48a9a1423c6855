"""Skeletal animations (BCK, BCA, Banjo-Kazooie, JBA) onto armatures.

Blender poses a bone as  pose = parent_pose * rest_local * basis  with
rest_local = parent.matrix_local^-1 * bone.matrix_local.  The formats give
either the absolute parent-relative local transform L (BCK, BCA, JBA), so
basis = rest_local^-1 * L, or a delta from a rest pose without rotation
(Banjo-Kazooie), so basis = Q^-1 * L * Q with Q the bone's armature-space
rest rotation.  When the rest rotation involved is the identity, basis is
L with the rest translation taken off (absolute) or L itself (deltas): the
channels map one to one and keys and Bezier handles are carried exactly.
Any other bone is baked: the C module computes the basis for every frame
and the add-on writes quaternion keys."""
import json
import math
import re
import struct
from array import array

import bpy
from mathutils import Matrix, Vector

from . import compat, curves, native

ROOT_MOTION = "__root_motion__"
# The rig object's own transform that root motion is applied on top of,
# recorded (16 floats, row by row) by the first import that applies root
# motion to the object: later imports and exports use the same one even
# though the object's transform is then animated.
ROOT_REST_PROP = "gameanim_root_rest"
ABSOLUTE_FORMATS = ("bck", "bca", "jba")
Y_UP_FORMATS = ("bck", "bca", "bk")
ROT_TOL = 1e-5

UP_MATRICES = {
    "NONE": Matrix.Identity(4),
    "Y_TO_Z": Matrix.Rotation(math.pi / 2, 4, "X"),
    "Z_TO_Y": Matrix.Rotation(-math.pi / 2, 4, "X"),
    "GR2": Matrix.Identity(4),  # (the axes change bone by bone: see gr2_basis)
}

CHANNEL_PATH = {"scale": "scale", "rotation": "rotation_euler", "translation": "location",
                "rotation_quaternion": "rotation_quaternion"}
CHANNEL_DEFAULT = {"scale": 1.0, "rotation": 0.0, "translation": 0.0}


# ---------------------------------------------------------------------------
# Bone matching


def normalise_name(name):
    """Case-, space- and .001-insensitive form of a bone or material name."""
    name = re.sub(r"\.\d{3,}$", "", str(name))
    return re.sub(r"[\s_]+", "", name).casefold()


def blender_name(name):
    """A name Blender can hold.  A file's name that is not valid UTF-8
    comes from the decoder with its odd bytes as surrogates, which Blender
    refuses; those bytes become \\xNN escapes (the original bytes are kept
    on the bone, see build_armature, for the export)."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def target_of_bone(bone, name):
    """The file's target name of a bone build_armature made (or its own
    name): the exact original bytes where the name had to be escaped."""
    raw = bone.get("gameanim_name_utf8_hex")
    if raw:
        try:
            return bytes.fromhex(str(raw)).decode("utf-8", "surrogateescape")
        except ValueError:
            pass
    return str(bone.get("gameanim_name") or name)


def target_label(target):
    return repr(target) if isinstance(target, str) else str(target)


def index_bone_names(fmt, target):
    if fmt == "bk":
        return [f"bk_id_{target:03d}"]
    return [f"joint_{target:03d}", f"bone_{target:03d}", f"{target}"]


def anim_targets(anim):
    """Targets in the order they first appear (root motion excluded)."""
    seen, out = set(), []
    for t in anim.tracks:
        if t.target == ROOT_MOTION or t.target in seen:
            continue
        seen.add(t.target)
        out.append(t.target)
    return out


def _root_bone(arm):
    roots = [b for b in arm.bones if b.parent is None]
    if not roots:
        return None
    with_children = [b for b in roots if b.children]
    return (with_children or roots)[0]


class RigIndex:
    """What the importer reads from one armature, once for all the files
    of an import: the bones in order, the tables of each matching mode and
    each bone's rest data (built on first use).  The armature must not
    change while the index is in use."""

    def __init__(self, arm_obj):
        self.arm_obj = arm_obj
        self.bones = list(arm_obj.data.bones)
        self._by_id = {}
        self._names = None
        self._rest = {}

    def by_id(self, id_property):
        """({id: bone name}, notes about IDs shared by several bones)."""
        got = self._by_id.get(id_property)
        if got is None:
            by_id, notes = {}, []
            pose_bones = self.arm_obj.pose.bones
            for b in self.bones:
                value = b.get(id_property)
                if value is None:
                    pb = pose_bones.get(b.name)
                    value = pb.get(id_property) if pb is not None else None
                try:
                    key = int(value)
                except (TypeError, ValueError):
                    continue
                if key in by_id:
                    notes.append(f"bones {by_id[key]!r} and {b.name!r} share {id_property} = {key}; using the first")
                    continue
                by_id[key] = b.name
            got = self._by_id[id_property] = (by_id, notes)
        return got

    def names(self):
        """(exact {name: name}, tolerant {normalised: name}, root bone or None)."""
        if self._names is None:
            exact = {b.name: b.name for b in self.bones}
            tolerant = {}
            for b in self.bones:
                tolerant.setdefault(normalise_name(b.name), b.name)
            self._names = (exact, tolerant, _root_bone(self.arm_obj.data))
        return self._names

    def rest(self, bone_name, fmt, up_axis):
        """bone_rest() of a bone, cached."""
        key = (bone_name, fmt in ABSOLUTE_FORMATS, up_axis)
        got = self._rest.get(key)
        if got is None:
            got = self._rest[key] = bone_rest(self.arm_obj.data.bones[bone_name], fmt, UP_MATRICES[up_axis])
        return got


def match_bones(anim, arm_obj, mode, id_property="gameanim_bone_id", index=None):
    """{target: bone name} for the targets that found a bone, the list of
    targets that did not, and notes (duplicates).  index: a RigIndex of
    arm_obj to reuse (one is made when None)."""
    if index is None:
        index = RigIndex(arm_obj)
    bones = index.bones
    targets = anim_targets(anim)
    mapping, unmatched, notes = {}, [], []
    if mode == "INDEX":
        n_file = sum(1 for t in targets if isinstance(t, int))
        if n_file != len(bones):
            notes.append(f"the file animates {n_file} bone(s) by index but the armature has {len(bones)}: "
                         "index matching may pair the wrong bones")
        for t in targets:
            if isinstance(t, int) and 0 <= t < len(bones):
                mapping[t] = bones[t].name
            else:
                unmatched.append(t)
    elif mode == "ID":
        by_id, id_notes = index.by_id(id_property)
        notes.extend(id_notes)
        for t in targets:
            name = by_id.get(t) if isinstance(t, int) else None
            if name is None:
                unmatched.append(t)
            else:
                mapping[t] = name
    else:  # NAME
        exact, tolerant, root = index.names()
        gods = []
        for t in targets:
            candidates = [blender_name(t)] if isinstance(t, str) else index_bone_names(anim.format, t)
            name = next((exact[c] for c in candidates if c in exact), None)
            if name is None:
                name = next((tolerant[normalise_name(c)] for c in candidates if normalise_name(c) in tolerant), None)
            if name is None and isinstance(t, str) and normalise_name(t) == "god":
                gods.append(t)
            elif name is None:
                unmatched.append(t)
            else:
                mapping[t] = name
        # JBA's root channel: Bip01 in the GR2 rigs, else the rig's root,
        # unless another channel already drives that bone
        taken = set(mapping.values())
        for t in gods:
            name = tolerant.get("bip01")
            if name is None or name in taken:
                name = root.name if root is not None and root.name not in taken else None
            if name is None:
                unmatched.append(t)
            else:
                mapping[t] = name
                taken.add(name)
    # two targets on one bone: keep the first
    used = {}
    for t in list(mapping):
        b = mapping[t]
        if b in used:
            notes.append(f"targets {target_label(used[b])} and {target_label(t)} both match bone {b!r}; "
                         f"using {target_label(used[b])}")
            del mapping[t]
            unmatched.append(t)
        else:
            used[b] = t
    return mapping, unmatched, notes


# ---------------------------------------------------------------------------
# Rest poses


def rest_local(bone, up):
    """Bone rest transform relative to its parent (the root's parent frame
    is the up-axis conversion)."""
    if bone.parent is None:
        return up.inverted() @ bone.matrix_local
    return bone.parent.matrix_local.inverted() @ bone.matrix_local


def rotation_angle(m):
    """Angle (radians) of the rotation part of a matrix without scale."""
    q = m.to_3x3().normalized().to_quaternion()
    return 2.0 * math.acos(min(1.0, abs(q.w)))


def is_identity_rotation(m, tol=ROT_TOL):
    r = m.to_3x3()
    ident = Matrix.Identity(3)
    return all(abs(r[i][j] - ident[i][j]) <= tol for i in range(3) for j in range(3))


def flat(m):
    return [m[i][j] for i in range(4) for j in range(4)]


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

    arm = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, arm)
    collection = context.collection if getattr(context, "collection", None) else context.scene.collection
    collection.objects.link(obj)
    view_layer = context.view_layer
    prev_active = view_layer.objects.active
    try:
        if fmt in Y_UP_FORMATS:
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
                elif fmt == "bk":
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
            elif fmt == "bk":
                bone["gameanim_bone_id"] = t
            else:
                bone["gameanim_index"] = t
    except Exception:
        # no half-built armature left behind (the importer reports the files)
        bpy.data.objects.remove(obj)
        bpy.data.armatures.remove(arm)
        if prev_active is not None:
            view_layer.objects.active = prev_active
        raise
    obj["gameanim_built_for"] = fmt
    if prev_active is not None:
        view_layer.objects.active = prev_active
    view_layer.objects.active = obj
    return obj


def _first_frame_heads(anim, targets, fmt, k):
    """Rest heads of a new armature: the translation at frame 0 for the
    absolute formats (locations then start near zero), the origin for
    Banjo-Kazooie's deltas."""
    heads = {}
    if fmt not in ABSOLUTE_FORMATS:
        return heads
    values = anim.sample([0.0])
    for i, t in enumerate(anim.tracks):
        if t.channel == "translation" and t.target in targets and t.axis < 3:
            heads.setdefault(t.target, Vector((0.0, 0.0, 0.0)))[t.axis] = values[i] * k
    return heads


# ---------------------------------------------------------------------------
# Writing an animation onto an armature


def pose_path(bone_name, prop):
    return f'pose.bones["{compat.escape(bone_name)}"].{prop}'


class BoneWriteResult:
    def __init__(self):
        self.root_rest = None  # the 16 floats root motion was composed with (None: not applied)
        self.exact = []
        self.baked = []       # (bone, reason)
        self.bones = {}       # str(target) -> [bone, 'exact' | 'baked']
        self.rotation_modes = {}
        self.period_keys = False
        self.notes = []


class BonePlan:
    """What the importer writes for one target: its bone, how (kind 'euler':
    the file's keys channel for channel; 'bake': per-frame pose bases from
    gameanim.bake_pose, also for JBA's quaternions), the matrices the bake
    used and the curves (CurvePlan).  Root motion is a BonePlan with target
    ROOT_MOTION and bone '' (the armature object)."""

    __slots__ = ("target", "bone", "kind", "rest_local", "rest_rot", "reason", "curves")

    def __init__(self, target, bone, kind, rest_local, rest_rot, reason=None):
        self.target = target
        self.bone = bone
        self.kind = kind
        self.rest_local = rest_local
        self.rest_rot = rest_rot
        self.reason = reason
        self.curves = []

    @property
    def exact(self):
        return self.reason is None


def bone_rest(bone, fmt, up):
    """(rest_local, Q, identity): the bone's rest relative to its parent, its
    armature-space rest rotation (Banjo-Kazooie), and whether the rotation
    that matters for the format is the identity."""
    rl = rest_local(bone, up)
    q_rest = (up.inverted() @ bone.matrix_local).to_3x3().normalized().to_4x4()
    if fmt in ABSOLUTE_FORMATS:
        return rl, q_rest, is_identity_rotation(rl)
    return rl, q_rest, is_identity_rotation(q_rest)


def gr2_basis(arm_obj):
    """C, from a SWTOR GR2 rig's axes to the JBA's (Morpheme) axes:
    (x, y, z) -> (s x, -s z, s y) with s = 1000 / the object's gr2_scale
    property (1 when absent), the factor the Granny importer scaled the rig
    by (docs/formats/jba.md, Axes and units in Blender).  A bone's pose is then
    rest_local^-1 @ C^-1 @ T(t) @ R(q) @ C."""
    try:
        scale = float(arm_obj.get("gr2_scale", 1.0))
    except (TypeError, ValueError):
        scale = 1.0
    if not math.isfinite(scale) or scale <= 0.0:
        scale = 1.0
    s = 1000.0 / scale
    return Matrix(((s, 0.0, 0.0, 0.0), (0.0, 0.0, -s, 0.0), (0.0, s, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)))


def axis_basis(fmt, up_axis, arm_obj):
    """The per-bone change of axes of option Rig Up Axis (None: none)."""
    return gr2_basis(arm_obj) if up_axis == "GR2" and fmt == "jba" else None


def bake_spec(fmt, rl, q_rest, basis=None):
    """(pre, post) of gameanim.bake_pose / local_from_basis for one bone.
    basis: axis_basis(), conjugating every bone's channels."""
    if basis is not None:
        return flat(rl.inverted() @ basis.inverted()), flat(basis)
    if fmt in ABSOLUTE_FORMATS:
        return flat(rl.inverted()), None
    return flat(q_rest.inverted()), flat(q_rest)


def root_rest_of(arm_obj):
    """The transform root motion is applied on top of: the one recorded on
    the rig (ROOT_REST_PROP), else the object's own transform now."""
    raw = arm_obj.get(ROOT_REST_PROP)
    if raw is not None:
        try:
            return matrix_of(raw)
        except (TypeError, ValueError):
            raise ValueError(f"custom property {ROOT_REST_PROP!r} of {arm_obj.name!r} must hold 16 numbers (the "
                             f"rig's transform, row by row); delete it to use the object's transform") from None
    return arm_obj.matrix_basis.copy()


def matrix_of(rows):
    """A 4x4 Matrix from 16 floats row by row (flat's inverse)."""
    values = [float(v) for v in rows]
    if len(values) != 16:
        raise ValueError(f"a transform needs 16 values, not {len(values)}")
    return Matrix([values[0:4], values[4:8], values[8:12], values[12:16]])


def plan_bones(anim, arm_obj, mapping, opts, tm, modes=None, index=None, lazy=False, root_rest=None):
    """Plans every curve of `anim` on arm_obj: {target: bone} in mapping.
    modes: optional {target: 'exact' | 'baked'} that overrides the choice
    (the export passes what the import chose).  index: a RigIndex of
    arm_obj to reuse.  lazy: the key buffers of an exact channel's track
    are left to curves.write_plans (the plan holds the track; see
    curves.lazy_plan), so that they exist one curve at a time.
    root_rest: the Matrix root motion is composed with (the object's
    transform = root_rest @ trajectory); None: root_rest_of(arm_obj).
    Returns (BoneWriteResult, [BonePlan]) without touching Blender data."""
    gameanim = native.require()

    res = BoneWriteResult()
    fmt = anim.format
    k = opts.translation_scale
    is_delta = fmt not in ABSOLUTE_FORMATS
    arm = arm_obj.data

    # the tracks the game applies (a Banjo-Kazooie bone whose elements are
    # not adjacent, or name a channel twice, takes its last run and the
    # later element: the rule bake_pose follows too)
    by_target = {}
    tracks = anim.tracks
    applied = anim.applied_tracks()
    for i in applied:
        t = tracks[i]
        by_target.setdefault(t.target, []).append(t)
    if len(applied) < len(tracks):
        res.notes.append(f"{len(tracks) - len(applied)} track(s) are not applied, as in the game: a bone's "
                         "elements are not adjacent or name a channel twice (the last run of a bone and the "
                         "later element count)")

    if opts.up_axis == "GR2" and fmt != "jba":
        res.notes.append("Rig Up Axis 'SWTOR GR2 Rig' is for JBA files: this file is taken in the rig's axes")
    plans = []
    euler, bake = [], []
    if index is None:
        index = RigIndex(arm_obj)
    for target, bone_name in mapping.items():
        bone = arm.bones[bone_name]
        rl, q_rest, identity = index.rest(bone_name, fmt, opts.up_axis)
        m = q_rest if is_delta else rl
        why = ("armature-space rest rotation is not the identity" if is_delta
               else "rest rotation relative to the parent is not the identity")
        if bone.use_connect and not is_delta:
            res.notes.append(f"bone {bone_name!r} is connected to its parent: Blender ignores its location keys")
        has_quat = any(t.channel == "rotation_quaternion" for t in by_target.get(target, ()))
        forced = (modes or {}).get(target)
        if forced == "baked" or (forced is None and opts.curve_mode == "BAKED"):
            reason = "curve mode is Baked" if forced is None else "baked when imported"
            bake.append(BonePlan(target, bone_name, "bake", rl, q_rest, reason))
        elif forced == "exact" or identity or opts.curve_mode == "EXACT":
            if not identity and forced is None:
                res.notes.append(f"bone {bone_name!r}: channels written as is although its "
                                 f"{why.split(' is ')[0]} is {math.degrees(rotation_angle(m)):.3g} degrees")
            plan = BonePlan(target, bone_name, "bake" if has_quat else "euler", rl, q_rest)
            (bake if has_quat else euler).append(plan)
        else:
            bake.append(BonePlan(target, bone_name, "bake", rl, q_rest,
                                 f"{why} ({math.degrees(rotation_angle(m)):.3g} degrees)"))

    # exact Euler bones: the file's keys, one curve per channel
    t_scale, t_offset, t_start = tm.scale, tm.offset, tm.start
    plan_track, plan_constant = curves.plan_track, curves.plan_constant
    for plan in euler:
        bone_name = plan.bone
        rest_t = plan.rest_local.to_translation()
        prefix = pose_path(bone_name, "")
        paths = {ch: prefix + prop for ch, prop in CHANNEL_PATH.items()}
        out = plan.curves
        have = set()
        for t in by_target.get(plan.target, ()):
            ch, axis = t.channel, t.axis
            if axis > 2 or ch not in paths:
                continue
            have.add((ch, axis))
            if ch == "translation":
                vs, vo = k, (0.0 if is_delta else -rest_t[axis])
            else:
                vs, vo = 1.0, 0.0
            source = ("track", t, vs, vo)
            if len(t) == 0:
                cp = plan_constant(paths[ch], axis, bone_name, t_start, CHANNEL_DEFAULT[ch] * vs + vo, source)
            elif lazy:
                cp = curves.lazy_plan(paths[ch], axis, bone_name, source)
            else:
                # (flags: C says whether times are distinct and a segment is Bezier)
                cp, added = plan_track(paths[ch], axis, bone_name, t.bezier(vs, vo, t_scale, t_offset, True),
                                       tm, source)
                res.period_keys |= added
            out.append(cp)
        # channels the file does not animate hold the format's default
        for ch in ("scale", "rotation", "translation"):
            for axis in range(3):
                if (ch, axis) in have:
                    continue
                value, vs, vo = CHANNEL_DEFAULT[ch], 1.0, 0.0
                if ch == "translation":
                    vs = k
                    vo = 0.0 if is_delta else -rest_t[axis]
                out.append(curves.plan_constant(paths[ch], axis, bone_name, t_start, value * vs + vo,
                                                ("default", ch, axis, vs, vo)))
        res.rotation_modes[bone_name] = "XYZ"
        res.exact.append(bone_name)
        res.bones[str(plan.target)] = [bone_name, "exact"]
        plans.append(plan)

    # everything else (and quaternion formats) through one bake_pose call:
    # basis = pre * T(t*k) * R * S * post for all bones and frames in C,
    # a channel that never changes coming back as one key
    root_motion = opts.root_motion == "OBJECT" and ROOT_MOTION in by_target
    if bake or root_motion:
        # (JBA: the game blends whole frames, nlerp for rotations, which
        # LINEAR quaternion keys at whole file frames reproduce at every
        # time; the Euler formats' baked quaternions do not, so they are
        # keyed where Blender plays: at whole scene frames)
        frames = tm.bake_frames(scene_frames=fmt != "jba")
        if fmt == "jba":
            frames = with_jba_steps(anim, frames)
        basis = axis_basis(fmt, opts.up_axis, arm_obj)
        spec = [(p.target, *bake_spec(fmt, p.rest_local, p.rest_rot, basis)) for p in bake]
        if root_motion:
            # the trajectory moves the rig from where it stands: a rig
            # turned to stand Y-up data upright stays upright
            rest = root_rest_of(arm_obj) if root_rest is None else root_rest
            res.root_rest = flat(rest)
            spec.append((ROOT_MOTION, None if rest == Matrix.Identity(4) else res.root_rest, None))
        baked = gameanim.bake_pose(anim, spec, frames, translation_scale=k, time_scale=tm.scale,
                                   time_offset=tm.offset, collapse=True)
        # every buffer has these times (one key when collapsed)
        times = array("f", [f * tm.scale + tm.offset for f in frames])  # (as keys hold them)
        distinct = len(set(times)) == len(times)
        collapsed = len(frames) > 1
        for plan, bufs in zip(bake, baked):
            plan.curves = _plan_trs(bufs, pose_path(plan.bone, ""), plan.bone, tm, distinct, collapsed)
            res.rotation_modes[plan.bone] = "QUATERNION"
            if plan.exact:
                res.exact.append(plan.bone)
                res.bones[str(plan.target)] = [plan.bone, "exact"]
            else:
                res.baked.append((plan.bone, plan.reason))
                res.bones[str(plan.target)] = [plan.bone, "baked"]
            plans.append(plan)
        if root_motion:
            plan = BonePlan(ROOT_MOTION, "", "bake", None, None)
            plan.curves = _plan_trs(baked[-1], "", "Object Transforms", tm, distinct, collapsed)
            res.rotation_modes[""] = "QUATERNION"
            plans.append(plan)
        del baked
    if ROOT_MOTION in by_target and not root_motion:
        res.notes.append(f"root motion ({len(by_target[ROOT_MOTION])} tracks) not applied "
                         "(option Root Motion); it stays in the stored original file")
    if is_delta:
        for plan in bake:
            if not plan.exact and not _uniform_scale(by_target.get(plan.target, ())):
                res.notes.append(
                    f"bone {plan.bone!r}: non-uniform scale on a bone with a rest rotation is a skewed scale in "
                    f"the bone's axes, which Blender's location/rotation/scale cannot hold; the baked pose "
                    f"approximates it (give the bone an identity rest rotation for an exact result)")
    return res, plans


def jba_steps(anim):
    """Frames where a JBA clip jumps: two sections share their boundary
    frame, and where their copies of it differ the game reaches the earlier
    copy from the left and plays the later one from that frame on
    (docs/formats/jba.md, The boundary frame; Animation.info
    'jump_frames').  Well-formed files have none."""
    raw = (anim.info or {}).get("jump_frames") or b""
    return list(struct.unpack(f"<{len(raw) // 4}I", raw[: len(raw) // 4 * 4]))


def with_jba_steps(anim, frames):
    """The bake frames plus, just before every jump (jba_steps), a frame
    whose sample is the earlier copy and whose key lands on the jump's own
    frame (float32): a step, which the curves then hold as the game does
    (curves.separate_steps)."""
    steps = set(jba_steps(anim))
    if not steps:
        return frames
    out = []
    for f in frames:
        if f in steps:
            out.append(f - 1e-9)
        out.append(f)
    return out


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


def _uniform_scale(tracks):
    """True when the three scale channels are the same curve (or all
    absent): only then does a scale survive conjugation by a rotation."""
    curves_ = []
    for axis in range(3):
        t = next((t for t in tracks if t.channel == "scale" and t.axis == axis), None)
        if t is None or len(t) == 0:
            curves_.append(None)
        elif len(t) == 1 or (min(t.values) == max(t.values)):
            curves_.append(("const", t.values[0]))
        else:
            curves_.append((bytes(t.times), bytes(t.values), bytes(t.in_slopes), bytes(t.out_slopes),
                            bytes(t.interpolation)))
    curves_ = [("const", 1.0) if c is None else c for c in curves_]
    return curves_[0] == curves_[1] == curves_[2]


TRS_PATHS = [("location", 3), ("rotation_quaternion", 4), ("scale", 3)]


def _plan_trs(bufs, prefix, group, tm, distinct=None, collapsed=False):
    """The 10 curves of one bone's bake_pose buffers; prefix: the data path
    before the property name.  collapsed: the bake collapsed constant
    channels to one key (bake_pose(collapse=True) of several frames)."""
    out = []
    i = 0
    plan_baked = curves.plan_baked
    for prop, n in TRS_PATHS:
        path = prefix + prop
        for axis in range(n):
            cp = plan_baked(path, axis, group, bufs[i], tm, ("baked", prop, axis), distinct, collapsed)
            if cp is not None:
                out.append(cp)
            i += 1
    return out


def apply_rotation_modes(arm_obj, action):
    """Sets the pose bones' rotation modes the action was written for
    (Euler XYZ for exact Euler channels, quaternion for baked ones)."""
    raw = action.get("gameanim_rotation_modes")
    if not raw:
        return
    for bone_name, mode in json.loads(raw).items():
        if bone_name == "":
            arm_obj.rotation_mode = mode
            continue
        pb = arm_obj.pose.bones.get(bone_name)
        if pb is not None:
            pb.rotation_mode = mode
