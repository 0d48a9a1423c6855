"""An animation onto a rig that another tool made from the game's model
(blemd, fast64, a DAE or FBX from SuperBMD / SM64DSe): option Model File.

Such a rig has its own rest orientation per bone (blemd rolls bones to the
joint's axes, a Collada import points them at their children), so the
file's channels cannot be written as they are.  The model file gives the
game's joint matrices (gameanim.Model.world_matrices, model space, Y-up);
each bone's armature-space pose is made to equal them up to the bone's own
orientation:

    pose_i = A @ W_i(frame) @ C_i      C_i = (A @ W_rest_i)^-1 @ matrix_local_i

A is the change from the game's model space to the armature space of the
rig: a turn Y-up -> Z-up when the tool turned the bones themselves (blemd),
none when the turn is on the object (a DAE import), and in both cases a
uniform unit scale (fast64 and some converters scale the rig).  At the
rest pose pose_i = matrix_local_i: the rig stands as it was made.  The pose
bases come from Blender's own parent rules (Bone.convert_local_to_pose,
which honours each bone's inherit-scale mode, so a blemd rig with
inherit_scale NONE is posed right too) and are keyed per frame as
location / quaternion / scale.

Plans only: nothing here writes to Blender data."""
import math
from array import array
from itertools import chain

from mathutils import Matrix

from . import formats
from .rest import UP_MATRICES, flat, matrix_of
from .rig_mapping import BoneWriteResult, BonePlan, _plan_trs, pose_path
from .rig_match import RigIndex, anim_targets, bone_id_value, normalise_name

AXES_CHOICES = ("Y_TO_Z", "NONE", "Z_TO_Y")
# a pose basis whose location / rotation / scale recomposes further off
# than this (a shear) is reported
SHEAR_TOL = 1e-4


class RetargetError(ValueError):
    """The model and the rig or the animation do not go together."""


# ---------------------------------------------------------------------------
# The model's matrices


def matrices_of(flat16, count):
    """Matrices from 16 floats each, row by row."""
    return [Matrix((flat16[o:o + 4], flat16[o + 4:o + 8], flat16[o + 8:o + 12], flat16[o + 12:o + 16]))
            for o in range(0, 16 * count, 16)]


def model_world(model, anim=None, frame=0.0):
    """The game's model-space frame of every joint at one file frame: its
    world matrix, times the translation to the pivot for Banjo-Kazooie
    (whose matrices move model-space points: deltas about the pivots)."""
    out = matrices_of(model.world_matrices(anim, frame), len(model.bones))
    if formats.model_by_bone_id(model.format):
        out = [m @ Matrix.Translation(b.translation) for m, b in zip(out, model.bones)]
    return out


# ---------------------------------------------------------------------------
# Which rig bone is which model joint


def bone_id_of(bone, pose_bone, id_property):
    """The Banjo-Kazooie bone ID a rig bone carries: option ID Property,
    else fast64's hm64_bk64_bone_id; None if none."""
    try:
        return int(bone_id_value(bone, pose_bone, id_property))
    except (TypeError, ValueError):
        return None


def match_joints(model, arm_obj, id_property, index=None):
    """{model joint index: rig bone name} and the joints that found no bone.
    J3D and SM64DS joints match by name (exactly, else ignoring case, spaces
    and .001 suffixes); Banjo-Kazooie bones by bone ID."""
    if index is None:
        index = RigIndex(arm_obj)
    out, missing = {}, []
    if formats.model_by_bone_id(model.format):
        pose_bones = arm_obj.pose.bones
        by_id = {}
        for b in index.bones:
            key = bone_id_of(b, pose_bones.get(b.name), id_property)
            if key is not None:
                by_id.setdefault(key, b.name)
        for j, mb in enumerate(model.bones):
            name = by_id.get(mb.bone_id)
            if name is None:
                missing.append(j)
            else:
                out[j] = name
        return out, missing
    exact, tolerant, _root = index.names()
    for j, mb in enumerate(model.bones):
        name = mb.name or ""
        got = exact.get(name) or tolerant.get(normalise_name(name)) if name else None
        if got is None:
            missing.append(j)
        else:
            out[j] = got
    return out, missing


def joint_of_target(model, fmt):
    """target -> model joint index: the joint number (BCK, BCA) or the
    joint with that bone ID (Banjo-Kazooie)."""
    if formats.target_kind(fmt) == "bone_id":
        by_id = {}
        for j, mb in enumerate(model.bones):
            by_id.setdefault(mb.bone_id, j)
        return by_id.get
    n = len(model.bones)
    return lambda t: t if isinstance(t, int) and 0 <= t < n else None


# ---------------------------------------------------------------------------
# The rig's axes


def fit_axes(rest_world, heads, choice="AUTO"):
    """(A, axes key, scale, residual): the change from model space to the
    rig's armature space that puts the model's rest joint positions on the
    rig's bone heads (least squares over the matched joints, a uniform scale
    included).  rest_world / heads: {joint: Matrix} / {joint: Vector}.
    residual: the RMS distance left, relative to the rig's size (None when
    the joints give no positions to fit: then scale 1)."""
    pairs = [(rest_world[j].to_translation(), heads[j]) for j in heads]
    den = sum(p.length_squared for p, _h in pairs)
    size = math.sqrt(sum(h.length_squared for _p, h in pairs) / len(pairs)) if pairs else 0.0
    keys = AXES_CHOICES if choice == "AUTO" else (choice,)
    fits = []
    for key in keys:
        r = UP_MATRICES[key].to_3x3()
        if den <= 1e-20 or size <= 1e-20:
            fits.append((0.0, key, 1.0, None))
            continue
        s = sum((r @ p).dot(h) for p, h in pairs) / den
        if s <= 0.0:
            s = 1.0 if choice != "AUTO" else s
            if s <= 0.0:
                continue
        err = math.sqrt(sum(((r @ p) * s - h).length_squared for p, h in pairs) / len(pairs)) / size
        fits.append((err, key, s, err))
    if not fits:
        return None
    fits.sort(key=lambda f: f[0])
    _err, key, s, residual = fits[0]
    return Matrix.Scale(s, 4) @ UP_MATRICES[key], key, s, residual


def axes_by_object(arm_obj):
    """Without positions to fit (one joint at the origin): a rig whose
    object is turned about X holds the game's axes in its bones."""
    angle = arm_obj.matrix_basis.to_euler("XYZ").x
    return "NONE" if abs(abs(angle) - math.pi / 2) < 1e-3 else "Y_TO_Z"


# ---------------------------------------------------------------------------
# The per-rig data, made once per (rig, model)


class ModelRig:
    """A rig matched to a model: which bone each joint drives, A, each
    matched bone's correction C_i, and the rig's bones in parent-first order
    with their rest matrices.  notes: what the match found."""

    def __init__(self, model, arm_obj, choice="AUTO", id_property="gameanim_bone_id", index=None, axes=None):
        self.model = model
        self.arm_obj = arm_obj
        self.notes = []
        bones = arm_obj.data.bones
        self.bone_of, self.missing = match_joints(model, arm_obj, id_property, index)
        if not self.bone_of:
            raise RetargetError(f"no bone of {arm_obj.name!r} matches a joint of the model (by "
                                f"{'bone ID' if formats.model_by_bone_id(model.format) else 'joint name'})")
        rest = model_world(model)
        heads = {j: bones[name].head_local.copy() for j, name in self.bone_of.items()}
        if axes is not None:  # (the export: the A the import used)
            fit = (axes.copy(), choice, axes.to_scale()[0], 0.0)
        else:
            fit = fit_axes({j: rest[j] for j in heads}, heads, choice)
        if fit is None or fit[3] is None:
            key = choice if choice != "AUTO" else axes_by_object(arm_obj)
            fit = (UP_MATRICES[key].copy(), key, 1.0, None)
        self.axes, self.axes_key, self.unit_scale, residual = fit
        if residual is not None and residual > 1e-2:
            self.notes.append(f"the rig's bone heads are {residual:.2%} of its size off the model's joints "
                              f"(best fit: {self.axes_key}, scale {self.unit_scale:.6g}): it may not be this model's "
                              "rig; poses are the game's re-based onto its rest")
        self.correction = {}
        for j, name in list(self.bone_of.items()):
            m = self.axes @ rest[j]
            if abs(m.determinant()) < 1e-12:
                self.notes.append(f"joint {j} ({name!r}) has a degenerate rest matrix: not driven")
                del self.bone_of[j]
                continue
            self.correction[j] = m.inverted() @ bones[name].matrix_local
        self.joint_of_bone = {name: j for j, name in self.bone_of.items()}
        self.order = []  # parent-first

        def walk(b):
            self.order.append(b)
            for c in b.children:
                walk(c)
        for b in bones:
            if b.parent is None:
                walk(b)
        self.rest = {b.name: b.matrix_local.copy() for b in self.order}
        connected = [n for n in self.bone_of.values() if bones[n].use_connect]
        if connected:
            self.notes.append(f"{len(connected)} matched bone(s) are connected to their parent, so Blender "
                              f"keeps their heads on the parent's tail: {', '.join(connected)}")

    def record(self):
        """What an action stores so that the export can plan the same curves."""
        return {"axes": flat(self.axes), "axes_key": self.axes_key}

    @classmethod
    def from_record(cls, model, arm_obj, record, id_property):
        """The ModelRig an import made, again (the export's side)."""
        return cls(model, arm_obj, record.get("axes_key", "AUTO"), id_property, axes=matrix_of(record["axes"]))

    def world_from_poses(self, poses):
        """{joint: the game's world matrix} that armature-space poses
        {bone name: Matrix} stand for (the inverse of A @ W @ C)."""
        a_inv = self.axes.inverted()
        return {j: a_inv @ poses[name] @ self.correction[j].inverted() for j, name in self.bone_of.items()}

    def convert(self, b, matrix, posed, invert=False):
        """Bone.convert_local_to_pose of b under its parent's pose in posed:
        basis -> armature-space pose, or back with invert."""
        parent = b.parent
        if parent is None:
            return b.convert_local_to_pose(matrix, self.rest[b.name], invert=invert)
        return b.convert_local_to_pose(matrix, self.rest[b.name], parent_matrix=posed[parent.name],
                                       parent_matrix_local=self.rest[parent.name], invert=invert)

    def pose_chain(self, bases):
        """{bone name: armature-space pose} of every rig bone from
        {bone name: basis Matrix} (others at rest), by Blender's rules."""
        ident = Matrix.Identity(4)
        posed = {}
        for b in self.order:
            posed[b.name] = self.convert(b, bases.get(b.name, ident), posed)
        return posed

    def poses(self, world):
        """{bone name: (location, quaternion, scale, shear)} of the matched
        bones for one frame's world matrices {joint: Matrix}: the pose basis
        that gives A @ W_i @ C_i, the others keeping a rest basis.  shear:
        how far the basis is from what location / rotation / scale hold."""
        ident = Matrix.Identity(4)
        posed, out = {}, {}
        a = self.axes
        for b in self.order:
            name = b.name
            j = self.joint_of_bone.get(name)
            if j is None:
                posed[name] = self.convert(b, ident, posed)
                continue
            want = a @ world[j] @ self.correction[j]
            basis = self.convert(b, want, posed, invert=True)
            loc, rot, scale = basis.decompose()
            kept = Matrix.LocRotScale(loc, rot, scale)
            off = max(map(abs, chain.from_iterable(kept - basis)))
            # the pose Blender makes from the keys is what the children
            # inherit: the one wanted, unless the basis held a shear (lost)
            posed[name] = want if off <= SHEAR_TOL else self.convert(b, kept, posed)
            out[name] = (loc, rot, scale, off)
        return out


def check_pairing(model, fmt):
    """Raises RetargetError when the animation's format is not one the
    model's family plays."""
    wanted = formats.model_animation_formats(model.format)
    if fmt not in wanted:
        raise RetargetError(f"a {fmt} animation cannot play on a {model.format} model (Model File); "
                            f"its animations are {', '.join(wanted) or 'none'}")


def plan_onto_rig(anim, rig, tm):
    """(BoneWriteResult, [BonePlan], [unmatched targets]) of `anim` on the
    rig of a ModelRig: every matched joint the animation drives (and every
    matched joint under one, whose world matrix moves with it) baked at
    tm.bake_frames() file frames."""
    model = rig.model
    check_pairing(model, anim.format)
    res = BoneWriteResult()
    joint_of = joint_of_target(model, anim.format)
    unmatched, driven = [], set()
    for t in anim_targets(anim):
        j = joint_of(t)
        if j is None or j not in rig.bone_of:
            unmatched.append(t)
        else:
            driven.add(j)
    # a joint's world matrix moves with its parents: bake every matched
    # joint below a driven one too (the rig's own parenting may differ)
    parents = [mb.parent for mb in model.bones]
    keep = set()
    for j in rig.bone_of:
        k = j
        while k is not None and k >= 0:
            if k in driven:
                keep.add(j)
                break
            k = parents[k]
    frames = tm.bake_frames(scene_frames=True)
    times = [f * tm.scale + tm.offset for f in frames]
    names = {rig.bone_of[j]: j for j in keep}
    rows = {name: [] for name in names}  # per frame: location, quaternion, scale
    sheared = {}
    previous = {}
    for f in frames:
        got = rig.poses(model_world(model, anim, f))
        for name in names:
            loc, rot, scale, off = got[name]
            q = previous.get(name)
            if q is not None and q.dot(rot) < 0.0:  # keep the keys continuous
                rot.negate()
            previous[name] = rot
            if off > SHEAR_TOL:
                sheared[name] = max(sheared.get(name, 0.0), off)
            rows[name].append((*loc, *rot, *scale))
    bufs = {}
    for name, per_frame in rows.items():
        # (frame, value) pairs of each of the ten channels
        bufs[name] = [array("f", chain.from_iterable(zip(times, column))) for column in zip(*per_frame)]
    del rows
    distinct = len(set(times)) == len(times)
    plans = []
    target_of = {}
    for t in anim_targets(anim):
        j = joint_of(t)
        if j is not None:
            target_of.setdefault(j, t)
    for name, j in sorted(names.items(), key=lambda kv: kv[1]):
        target = target_of.get(j, j if formats.target_kind(anim.format) != "bone_id" else model.bones[j].bone_id)
        plan = BonePlan(target, name, "bake", None, None, "re-based onto the rig's rest (Model File)")
        plan.curves = _plan_trs(bufs.pop(name), pose_path(name, ""), name, tm, distinct)
        plans.append(plan)
        res.rotation_modes[name] = "QUATERNION"
        res.baked.append((name, plan.reason))
        res.bones[str(target)] = [name, "baked"]
    for name, off in sheared.items():
        res.notes.append(f"bone {name!r}: the game's matrix is sheared in the bone's axes (up to {off:.3g}), which "
                         "location / rotation / scale cannot hold; the nearest pose is keyed")
    return res, plans, unmatched
