"""How a skeletal clip maps onto a rig: which curves the importer writes
for each bone (plan_bones), which the export compares an imported action
with.  Plans only: nothing here writes to Blender.

Blender poses a bone as  pose = parent_pose * rest_local * basis  with
rest_local = parent.matrix_local^-1 * bone.matrix_local.  The formats give
either the absolute parent-relative local transform L (BCK, BCA, JBA), so
basis = rest_local^-1 * L, or a delta from a rest pose without rotation
(Banjo-Kazooie), so basis = Q^-1 * L * Q with Q the bone's armature-space
rest rotation.  When the rest rotation involved is the identity, basis is
L with the rest translation taken off (absolute) or L itself (deltas): the
channels map one to one and keys and Bezier handles are carried exactly.
Any other bone is baked: the C module computes the basis for every frame
and the add-on writes quaternion keys (importing/curve_writer.py)."""
import functools
import math
import re
import struct
from array import array

from mathutils import Matrix

from .. import compat, native
from . import curve_plans, formats, model_rig
from .rest import axis_basis, bake_spec, flat, root_rest_of, rotation_angle
from .rig_match import ROOT_MOTION, RigIndex

CHANNEL_PATH = {"scale": "scale", "rotation": "rotation_euler", "translation": "location",
                "rotation_quaternion": "rotation_quaternion"}
CHANNEL_DEFAULT = {"scale": 1.0, "rotation": 0.0, "translation": 0.0}


POSE_PATH = re.compile(r'^pose\.bones\["((?:[^"\\]|\\.)*)"\]\.(\w+)$')


# ---------------------------------------------------------------------------
# Planning an animation onto an armature


def pose_path(bone_name, prop):
    return f'pose.bones["{compat.escape(bone_name)}"].{prop}'


@functools.lru_cache(maxsize=4096)
def channel_paths(bone_name):
    """{channel: the pose bone's data path} (CHANNEL_PATH), made once per
    bone name (callers must not change the dict)."""
    prefix = pose_path(bone_name, "")
    return {ch: prefix + prop for ch, prop in CHANNEL_PATH.items()}


def bone_of_path(path):
    """The bone name of a pose-bone data path (pose_path's inverse), or None."""
    m = POSE_PATH.match(path)
    return re.sub(r"\\(.)", r"\1", m.group(1)) if m else None


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



_UNIT = ((1.0, 0.0),) * 3


class ExactChannels:
    """The curves of an exact Euler bone: one per channel the file animates
    (the track's keys; its value scale and offset per channel and axis:
    `scales`), then one constant key for each channel it does not (the
    format's default), in that order.  co is None: a lazy plan whose
    curves curve_writer.write_plans plans as it writes them (the keys as given when no plan would change
    them), so that the import makes no plan object per curve; plan_into
    makes the same curves' plans (for the export)."""

    __slots__ = ("bone", "paths", "tracks", "scales", "start", "have")
    co = None

    def __init__(self, bone_name, tracks, k, rest_t, is_delta, flip, start):
        self.bone = bone_name
        self.paths = channel_paths(bone_name)
        self.tracks = tracks
        if is_delta:
            moved = ((k, 0.0),) * 3
        else:
            x, y, z = rest_t
            moved = ((k, -x), (k, -y), (k, -z))
        self.scales = {"scale": _UNIT, "rotation": _UNIT if flip is None else tuple((float(f), 0.0) for f in flip),
                       "translation": moved}
        self.start = start
        self.have = set()

    def channels(self):
        """(track, path, axis, value scale, value offset, channel) for each
        track the bone's curves take, in order."""
        paths, scales, have = self.paths, self.scales, self.have
        for t in self.tracks:
            ch, axis = t.channel, t.axis
            path = paths.get(ch)
            if path is None or axis > 2:
                continue
            have.add((ch, axis))
            vs, vo = scales[ch][axis]
            yield t, path, axis, vs, vo, ch

    def constant(self, t, path, axis, vs, vo, ch):
        """The plan of a track without keys: the channel's default."""
        return curve_plans.plan_constant(path, axis, self.bone, self.start, CHANNEL_DEFAULT[ch] * vs + vo,
                                         ("track", t, vs, vo))

    def defaults(self):
        """The plans of the channels no track animates (after channels():
        an Euler bone has no quaternion channel, so nine seen are all)."""
        have, out = self.have, []
        for ch in (("scale", "rotation", "translation") if len(have) < 9 else ()):
            for axis in range(3):
                if (ch, axis) in have:
                    continue
                vs, vo = (1.0, 0.0) if ch != "translation" else self.scales[ch][axis]
                out.append(curve_plans.plan_constant(self.paths[ch], axis, self.bone, self.start,
                                                     CHANNEL_DEFAULT[ch] * vs + vo, ("default", ch, axis, vs, vo)))
        return out

    def plan_into(self, out, tm):
        """Appends every curve's plan to out; returns whether held period
        keys were added."""
        added_any = False
        for t, path, axis, vs, vo, ch in self.channels():
            if len(t) == 0:
                out.append(self.constant(t, path, axis, vs, vo, ch))
                continue
            # (flags: C says whether times are distinct and a segment is Bezier)
            cp, added = curve_plans.plan_track(path, axis, self.bone, t.bezier(vs, vo, tm.scale, tm.offset, True),
                                               tm, ("track", t, vs, vo))
            added_any |= added
            out.append(cp)
        out.extend(self.defaults())
        return added_any


def plan_bones(anim, arm_obj, mapping, opts, tm, modes=None, index=None, lazy=False, root_rest=None):
    """Plans every curve of `anim` on arm_obj: {target: bone} in mapping.
    modes: optional {target: 'exact' | 'baked'} that overrides the choice
    (the export passes what the import chose).  index: a RigIndex of
    arm_obj to reuse.  lazy: an exact bone's curves are planned by
    curve_writer.write_plans as it writes them (its BonePlan's curves are
    one ExactChannels, which holds the tracks), so that their buffers exist
    one curve at a time.
    root_rest: the Matrix root motion is composed with (the object's
    transform = root_rest @ trajectory); None: root_rest_of(arm_obj).
    Returns (BoneWriteResult, [BonePlan]) without touching Blender data."""
    gameanim = native.require()

    res = BoneWriteResult()
    fmt = anim.format
    k = opts.translation_scale
    is_delta = formats.is_delta(fmt)
    arm = arm_obj.data

    # the tracks the game applies (a Banjo-Kazooie bone whose elements are
    # not adjacent, or name a channel twice, takes its last run and the
    # later element: the rule bake_pose follows too)
    by_target = {}
    quat_targets = set()  # (targets with a quaternion channel)
    tracks = anim.tracks
    applied = anim.applied_tracks()
    for i in applied:
        t = tracks[i]
        target = t.target
        by_target.setdefault(target, []).append(t)
        if t.channel == "rotation_quaternion":
            quat_targets.add(target)
    if len(applied) < len(tracks):
        res.notes.append(f"{len(tracks) - len(applied)} track(s) are not applied, as in the game: a bone's "
                         "elements are not adjacent or name a channel twice (the last run of a bone and the "
                         "later element count)")

    if opts.up_axis == "GR2" and not formats.has_gr2_rig(fmt):
        res.notes.append("Rig Up Axis 'SWTOR GR2 Rig' is for JBA files: this file is taken in the rig's axes")
    plans = []
    euler, bake = [], []
    if index is None:
        index = RigIndex(arm_obj)
    # a rig built from a model: what its rule needs beyond the file's keys
    # (model_rig.RuleFixes), by joint index
    fixes = model_rig.rule_fixes(model_rig.stored_rig(arm_obj), anim, tm.bake_frames(scene_frames=True))
    any_fixes = bool(fixes)
    modes = modes or {}
    joint_of = {}
    curve_issue = gameanim.Track.curve_issue  # (curve_plans.game_curve_differs, one call less a track)
    for target, bone_name in mapping.items():
        bone = arm.bones[bone_name]
        rl, q_rest, identity = index.rest(bone_name, fmt, opts.up_axis)
        m = q_rest if is_delta else rl
        why = ("armature-space rest rotation is not the identity" if is_delta
               else "rest rotation relative to the parent is not the identity")
        if bone.use_connect and not is_delta:
            res.notes.append(f"bone {bone_name!r} is connected to its parent: Blender ignores its location keys")
        has_quat = target in quat_targets
        forced = modes.get(target)
        j = joint_of[target] = bone.get(model_rig.INDEX_PROP) if any_fixes else None
        wants_bake = forced == "baked" or (forced is None and opts.curve_mode == "BAKED")
        if wants_bake and j in fixes.negative_parents:
            wants_bake = False
            res.notes.append(f"bone {bone_name!r} kept on curves: its scale, negative in places, drives the helper "
                             "of its scale-compensated child (a baked decomposition may move the sign)")
        if forced is None and opts.curve_mode == "EXACT" and (j in fixes.dropped or j in fixes.flips):
            res.notes.append(f"bone {bone_name!r}: channels written one to one (Curves: Exact Channels) although "
                             f"the model's {'Basic' if j in fixes.dropped else 'Softimage'} rule needs a bake: "
                             "the pose is not the game's at some frames")
        if forced is None and j in fixes.dropped and opts.curve_mode == "AUTO":
            bake.append(BonePlan(target, bone_name, "bake", rl, q_rest,
                                 f"Basic rule: the accumulated scale is exactly 1 at {len(fixes.dropped[j])} baked "
                                 "frame(s), where the game drops the joint's own scale (no curve holds that)"))
        elif forced is None and j in fixes.flips and fixes.constant_flip(j) is None and opts.curve_mode == "AUTO":
            bake.append(BonePlan(target, bone_name, "bake", rl, q_rest,
                                 "Softimage rule: the parent's accumulated scale changes sign, which mirrors the "
                                 "rotation Blender's aligned scale inheritance shows (no curve holds that)"))
        elif wants_bake:
            reason = "curve mode is Baked" if forced is None else "baked when imported"
            bake.append(BonePlan(target, bone_name, "bake", rl, q_rest, reason))
        elif forced is None and (differs := next(filter(None, map(curve_issue, by_target.get(target, ()))),
                                                 None)):
            bake.append(BonePlan(target, bone_name, "bake", rl, q_rest,
                                 f"{differs} (a Blender curve would not show the game's values, which are baked)"))
        elif forced in ("exact", "baked") or identity or opts.curve_mode == "EXACT":
            if not identity and forced is None:
                res.notes.append(f"bone {bone_name!r}: channels written as is although its "
                                 f"{why.split(' is ')[0]} is {math.degrees(rotation_angle(m)):.3g} degrees")
            plan = BonePlan(target, bone_name, "bake" if has_quat else "euler", rl, q_rest)
            (bake if has_quat else euler).append(plan)
        else:
            bake.append(BonePlan(target, bone_name, "bake", rl, q_rest,
                                 f"{why} ({math.degrees(rotation_angle(m)):.3g} degrees)"))

    # exact Euler bones: the file's keys, one curve per channel
    t_start = tm.start
    for plan in euler:
        bone_name = plan.bone
        rest_t = plan.rest_local.to_translation()
        flip = fixes.constant_flip(joint_of.get(plan.target)) if any_fixes else None
        if flip is not None and flip != (1, 1, 1):
            res.notes.append(f"bone {bone_name!r}: rotation {''.join('XYZ'[a] for a in range(3) if flip[a] < 0)} "
                             "written negated (Softimage rule: the parent's accumulated scale is negative, which "
                             "Blender's aligned scale inheritance mirrors)")
        channels = ExactChannels(bone_name, by_target.get(plan.target, ()), k, rest_t, is_delta, flip, t_start)
        if lazy:
            plan.curves.append(channels)  # (planned one track at a time when written)
        else:
            res.period_keys |= channels.plan_into(plan.curves, tm)
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
        quaternions = formats.quaternion_rotation(fmt)
        frames = tm.bake_frames(scene_frames=not quaternions)
        if quaternions:
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
        if fixes:
            _apply_rule_fixes(gameanim, anim, bake, spec, baked, fixes, joint_of, frames, k, tm)
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


def _apply_rule_fixes(gameanim, anim, bake, spec, baked, fixes, joint_of, frames, k, tm):
    """Baked bones of a model-built rig whose rule needs a per-frame
    correction (model_rig.RuleFixes): baked again per frame (not
    collapsed), with Basic's dropped scale 1 and Softimage's mirrored
    quaternion components at the frames where they apply."""
    which = [i for i, p in enumerate(bake)
             if joint_of.get(p.target) in fixes.dropped or joint_of.get(p.target) in fixes.flips]
    if not which:
        return
    again = gameanim.bake_pose(anim, [spec[i] for i in which], frames, translation_scale=k, time_scale=tm.scale,
                               time_offset=tm.offset, collapse=False)
    for i, bufs in zip(which, again):
        j = joint_of[bake[i].target]
        bufs = [array("f", b) for b in bufs]  # ((frame, value) pairs)
        for f in fixes.dropped.get(j, ()):
            for axis in range(3):
                bufs[7 + axis][2 * f + 1] = 1.0
        for f, signs in enumerate(fixes.flips.get(j, ())):
            for axis in range(3):
                bufs[4 + axis][2 * f + 1] *= signs[axis]
        baked[i] = bufs


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
    (curve_plans.separate_steps)."""
    steps = set(jba_steps(anim))
    if not steps:
        return frames
    out = []
    for f in frames:
        if f in steps:
            out.append(f - 1e-9)
        out.append(f)
    return out


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
    plan_baked = curve_plans.plan_baked
    for prop, n in TRS_PATHS:
        path = prefix + prop
        for axis in range(n):
            cp = plan_baked(path, axis, group, bufs[i], tm, ("baked", prop, axis), distinct, collapsed)
            if cp is not None:
                out.append(cp)
            i += 1
    return out


