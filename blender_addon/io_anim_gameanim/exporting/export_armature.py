"""Skeletal actions (BCK, BCA, Banjo-Kazooie, JBA) back to a gameanim
Animation.

Two paths:

* **From the stored original** (an action imported by gameanim, exported to
  its own format over its own range): the original file is loaded, the
  importer's curve plans are rebuilt from it with the stored options
  (rig_mapping.plan_bones) and compared with the action's curves.  Unchanged
  curves leave their tracks as loaded (an unedited action gives back the
  original bytes; an edited one keeps the original data of every other
  track).  A changed curve of an exact Euler bone maps back to its own track
  (Bezier keys with handles at one third are Hermite keys), or is sampled
  per frame; a changed group (location, rotation, scale) of a baked or
  quaternion bone is sampled per frame and converted back from the pose
  basis in C (gameanim.local_from_basis).
* **Resampled** (an action made in Blender, or an imported one exported to
  another format or range): every bone's channels are sampled per frame
  (gameanim.evaluate_fcurve), converted to local transforms, and written as
  per-frame tracks that the encoder reduces within the tolerance (BCK);
  bones whose channels map one to one (an identity rest rotation, Euler
  XYZ) keep their keys with rate KEYS.
"""
import math
from array import array

from mathutils import Matrix

from .. import compat, native
from ..shared import curve_plans, formats, rig_mapping
from ..shared.imported_action import ROOT_REST_PROP, Source
from ..shared.options import ImportOptions
from ..shared.rest import UP_MATRICES, axis_basis, bake_spec, bone_rest, flat, matrix_of
from ..shared.rig_mapping import CHANNEL_PATH, bone_of_path, pose_path
from ..shared.rig_match import ROOT_MOTION, anim_targets, bone_target_rule, target_label
from . import foreign_rig_export, readback
from .export_tracks import (ExportError, action_cycles, direct_track, drop_default_tracks, file_frames, frame_range,
                            per_frame_track)

GROUP_CHANNEL = {"location": "translation", "rotation_quaternion": "rotation", "scale": "scale"}


# ---------------------------------------------------------------------------
# Tracks from per-frame values


class Sampler:
    """Per-frame sampling of one owner's curves (pose bones or the object)."""

    def __init__(self, fcmap, scene_frames):
        self.fcmap = fcmap
        self.frames = scene_frames
        self.n = len(scene_frames)

    def component(self, path, index, default):
        fc = self.fcmap.get((path, index))
        if fc is None or fc.mute or len(fc.keyframe_points) == 0:
            return readback.constant(default, self.n)
        return readback.sample(fc, readback.read_keys(fc), self.frames)

    def basis(self, struct, path_of, mode):
        """location (3), rotation (per mode), scale (3) per frame; channels
        without a curve hold the struct's current value."""
        loc = [self.component(path_of("location"), i, struct.location[i]) for i in range(3)]
        if mode == "QUATERNION":
            rot = [self.component(path_of("rotation_quaternion"), i, struct.rotation_quaternion[i]) for i in range(4)]
        elif mode == "AXIS_ANGLE":
            rot = [self.component(path_of("rotation_axis_angle"), i, struct.rotation_axis_angle[i]) for i in range(4)]
        else:
            rot = [self.component(path_of("rotation_euler"), i, struct.rotation_euler[i]) for i in range(3)]
        scale = [self.component(path_of("scale"), i, struct.scale[i]) for i in range(3)]
        return loc, rot, scale


def local_tracks(gameanim, fmt, target, local, times, groups=("translation", "rotation", "scale"), label=""):
    """Tracks of the format's channels from local_from_basis output."""
    out = []
    if "translation" in groups:
        for a in range(3):
            out.append(per_frame_track(gameanim, target, "translation", a, times, local["translation"][a]))
    if "rotation" in groups:
        if formats.quaternion_rotation(fmt):
            for a in range(4):
                out.append(per_frame_track(gameanim, target, "rotation_quaternion", a, times, local["quaternion"][a]))
        else:
            for a in range(3):
                out.append(per_frame_track(gameanim, target, "rotation", a, times, local["euler"][a]))
    if "scale" in groups:
        if not formats.stores_scale(fmt):
            check_unit_scale(local["scale"], times, label, fmt)
        else:
            for a in range(3):
                out.append(per_frame_track(gameanim, target, "scale", a, times, local["scale"][a]))
    return out


class ScaleNotHeld(ExportError):
    pass


def check_unit_scale(scale, times, label, fmt):
    """JBA stores no scale: a scale other than 1 is an error naming the bone
    and the frame (never dropped silently)."""
    for a in range(3):
        lo, hi = readback.value_range(scale[a])
        if lo < 1.0 - 1e-4 or hi > 1.0 + 1e-4:
            worst = lo if abs(lo - 1.0) > abs(hi - 1.0) else hi
            frame = times[scale[a].index(worst)]
            raise ScaleNotHeld(f"{label}: scale {'XYZ'[a]} is {worst:.6g} at frame {frame:g}; "
                               f"{fmt.upper()} stores no scale (only 1.0)")


# ---------------------------------------------------------------------------
# The export of one action


class SkeletalExport:
    def __init__(self, action, fmt, xopts, arm_obj, scene, notes):
        self.ga = native.require()
        self.action = action
        self.fmt = fmt
        self.xopts = xopts
        self.arm_obj = arm_obj
        self.scene = scene
        self.notes = notes
        self.warnings = []     # what the file cannot hold, with the bone and frame
        self.bone_of = {}      # target -> Blender bone name ('' = object)
        self.changed = []      # descriptions of re-encoded channels
        self.source = Source(action)
        self.fcmap = compat.owner_fcurves(action, arm_obj, "OBJECT")
        self.tm = None         # file frame -> scene frame of the export

    # -- helpers -------------------------------------------------------

    SKEW_LIMIT = 1e-4

    def check_skew(self, local, label, times_f):
        """A warning when a bone's pose has a part the file's translation /
        rotation / scale cannot hold (a non-uniform scale turned by a rest
        rotation, as Banjo-Kazooie's scale in model axes is on a rig whose
        rest is rotated): written without it, not silently."""
        skew, at = local.get("skew", (0.0, 0))  # (a gameanim older than the add-on has none)
        if skew > self.SKEW_LIMIT:
            frame = times_f[at]
            self.warnings.append(
                f"{label}: the pose has a skewed scale (a non-uniform scale turned by the bone's rest rotation) "
                f"that {self.fmt}'s translation, rotation and scale cannot hold; written without it, off by up to "
                f"{skew:.3g} (largest at file frame {frame:g})")

    def label(self, target):
        bone = self.bone_of.get(target)
        if target == ROOT_MOTION:
            return "root motion (armature object)"
        return f"bone {bone!r} (target {target_label(target)})" if bone else f"target {target_label(target)}"

    def pose_bone(self, name):
        pb = self.arm_obj.pose.bones.get(name)
        if pb is None:
            raise ExportError(f"bone {name!r} is not in armature {self.arm_obj.name!r}")
        return pb

    def run(self):
        src = self.source
        if src.usable and src.format == self.fmt and self.range_is_original():
            return self.from_original()
        if src.usable and src.format != self.fmt:
            self.notes.append(f"imported from {src.format}, written as {self.fmt}: every channel resampled")
        elif src.usable:
            self.notes.append("frame range differs from the imported file's: every channel resampled")
        return self.resampled()

    def range_is_original(self):
        if self.xopts.frame_range == "AUTO":
            return True
        tm = self.source.time_map()
        s, e = frame_range(self.action, self.xopts, self.scene)
        return round(s) == round(tm.start) and round(e) in (round(tm.end), round(tm.end) - 1)

    # -- path 1: the stored original -----------------------------------

    def from_original(self):
        ga = self.ga
        src = self.source
        opts = src.import_options()
        anim = ga.load(src.data, keyless_rule=opts.keyless_rule)
        tm = self.tm = src.time_map()
        if tm.frame_rule:
            anim.frame_rule = tm.frame_rule
        targets = {str(t): t for t in anim_targets(anim)}
        mapping, modes = {}, {}
        for key, (bone, mode) in src.bones.items():
            if key not in targets:
                continue
            if bone not in self.arm_obj.data.bones:
                raise ExportError(f"bone {bone!r}, which target {key} of {self.action.name!r} was imported onto, "
                                  f"is not in armature {self.arm_obj.name!r} (renamed or deleted?)")
            mapping[targets[key]] = bone
            modes[targets[key]] = mode
        self.bone_of = dict(mapping)
        self.bone_of[ROOT_MOTION] = ""
        rig = None
        if src.model:  # imported with option Model File
            rig = foreign_rig_export.model_rig(ga, src.model, self.arm_obj, opts.id_property)
            plans = foreign_rig_export.retarget_plans(anim, rig, tm)
        else:
            _res, plans = rig_mapping.plan_bones(anim, self.arm_obj, mapping, opts, tm, modes,
                                              root_rest=self.root_motion_rest())
        first, last = file_frames(self.fmt, anim.frame_count,
                                  anim.start_frame if formats.keeps_frame_numbers(self.fmt) else 0.0)
        times = readback.frames_array(first, last)
        times_f = array("f", times)
        scene_frames = readback.frames_array(first, last, tm.scale, tm.offset)
        tracks = list(anim.tracks)
        index = {(t.target, t.channel, t.axis): i for i, t in enumerate(tracks)}
        k = opts.translation_scale
        rate = self.xopts.rate
        tol = self.xopts.tolerance
        fmt = self.fmt

        def put(track):
            key = (track.target, track.channel, track.axis)
            i = index.get(key)
            if i is None:
                index[key] = len(tracks)
                tracks.append(track)
            else:
                tracks[i] = track

        edited = []  # (retarget plan, changed groups)
        for plan in plans:
            if plan.kind == "euler":
                for cp in plan.curves:
                    fc = self.fcmap.get(cp.key)
                    keys = readback.read_keys(fc) if fc is not None else None
                    if keys is not None and readback.unchanged_curve(fc, cp, keys):
                        continue
                    kind = cp.source[0]
                    if kind == "track":
                        t, vs, vo = cp.source[1:]
                        channel, axis = t.channel, t.axis
                    else:
                        channel, axis, vs, vo = cp.source[1:]
                    what = f"{self.label(plan.target)} {channel} {'XYZ'[axis]}"
                    if fc is None or fc.mute or len(keys) == 0:
                        # a deleted curve: the pose bone's value, as Blender shows it
                        pb = self.pose_bone(plan.bone)
                        value = getattr(pb, CHANNEL_PATH[channel])[axis]
                        new = ga.Track(plan.target, channel, axis, times_f[:1], array("f", ((value - vo) / vs,)))
                        self.changed.append(what + " (curve deleted: the bone's current value)")
                    else:
                        new = direct_track(ga, fc, plan.target, channel, axis, vs, vo, tm, rate, scene_frames,
                                           times_f, src.period_keys, tol if formats.fits_keys(fmt) else 0.0)
                        self.changed.append(what)
                    if kind == "default" and formats.sparse_channels(fmt) and drop_default_tracks([new]) == []:
                        continue  # still the default: the channel stays absent
                    put(new)
            else:
                groups = {}
                for cp in plan.curves:
                    prop = cp.path.rsplit(".", 1)[-1]
                    fc = self.fcmap.get(cp.key)
                    same = readback.unchanged_curve(fc, cp)
                    groups[prop] = groups.get(prop, True) and same
                changed = [GROUP_CHANNEL[p] for p, same in groups.items() if not same]
                if not changed:
                    continue
                if plan.kind == "retarget":
                    edited.append((plan, changed))
                    continue
                if plan.target == ROOT_MOTION:
                    struct, path_of, pre, post = self.arm_obj, (lambda p: p), self.root_motion_pre(), None
                    kk = k
                else:
                    struct = self.pose_bone(plan.bone)
                    path_of = (lambda p, b=plan.bone: pose_path(b, p))
                    pre, post = bake_spec(fmt, plan.rest_local, plan.rest_rot,
                                          axis_basis(fmt, opts.up_axis, self.arm_obj))
                    kk = k
                mode = src.rotation_modes.get(plan.bone, "QUATERNION")
                loc, rot, scale = Sampler(self.fcmap, scene_frames).basis(struct, path_of, mode)
                local = ga.local_from_basis(pre, post, loc, rot, scale, rotation_mode=mode, translation_scale=kk)
                self.check_skew(local, self.label(plan.target), times_f)
                for t in local_tracks(ga, fmt, plan.target, local, times_f, changed, self.label(plan.target)):
                    put(t)
                self.changed.append(f"{self.label(plan.target)} {', '.join(changed)}")
        if edited:
            self.retarget_tracks(rig, anim, plans, edited, put, times_f, scene_frames)
        # (a Model File action also keys the bones under a driven joint,
        # which the file has no tracks for: planned, so not new bones)
        planned = {**{plan.target: plan.bone for plan in plans}, **mapping}
        self.add_new_bones(anim, tracks, put, planned, opts, tm, times_f, scene_frames)
        if self.changed:
            anim.tracks = tracks
        self.apply_header(anim, imported=True)
        return anim

    def retarget_tracks(self, rig, anim, plans, edited, put, times_f, scene_frames):
        """The edited groups of an action imported with option Model File,
        read back through the model's joint chain (foreign_rig_export)."""
        sampler = Sampler(self.fcmap, scene_frames)

        def basis_of(plan):
            return sampler.basis(self.pose_bone(plan.bone), lambda p, b=plan.bone: pose_path(b, p), "QUATERNION")

        local = foreign_rig_export.local_channels(rig, anim, plans, basis_of, times_f)
        for plan, changed in edited:
            channels = dict(local[plan.target], quaternion=None)
            for t in local_tracks(self.ga, self.fmt, plan.target, channels, times_f, changed,
                                  self.label(plan.target)):
                put(t)
            self.changed.append(f"{self.label(plan.target)} {', '.join(changed)}")

    def add_new_bones(self, anim, tracks, put, mapping, opts, tm, times_f, scene_frames):
        """Bones the action animates that the file did not: added as new
        targets (by the format's rule), with a note."""
        animated = self.animated_bones()
        known = set(mapping.values())
        new = [b for b in animated if b not in known]
        if not new:
            return
        used = {t.target for t in tracks}
        rule = self.target_rule(opts)
        for bone_name in new:
            target = rule(bone_name)
            if target is None or target in used:
                self.notes.append(f"bone {bone_name!r} is animated but has no free target in this "
                                  f"{self.fmt} file (target {target!r}); not exported")
                continue
            self.bone_of[target] = bone_name
            for t in self.bone_tracks(bone_name, target, opts, tm, times_f, scene_frames):
                put(t)
            self.changed.append(f"{self.label(target)} (new bone)")
            self.notes.append(f"bone {bone_name!r} was not in the imported file: added as target "
                              f"{target_label(target)}")

    def animated_bones(self):
        """Bone names with curves in the action, in armature order."""
        names = {bone_of_path(path) for path, _i in self.fcmap}
        return [b.name for b in self.arm_obj.data.bones if b.name in names]

    def target_rule(self, opts):
        """bone name -> the format's target (index, ID or name)."""
        return bone_target_rule(self.arm_obj, self.fmt, opts.id_property)

    # -- path 2: resampled -----------------------------------------------

    def bone_tracks(self, bone_name, target, opts, tm, times_f, scene_frames):
        """Tracks of one bone from its curves: keys carried over where the
        channels map one to one (rate KEYS), else per-frame values."""
        ga = self.ga
        fmt = self.fmt
        up = UP_MATRICES[opts.up_axis]
        k = opts.translation_scale
        bone = self.arm_obj.data.bones[bone_name]
        pb = self.pose_bone(bone_name)
        rl, q_rest, identity = bone_rest(bone, fmt, up)
        label = self.label(target)
        mode = pb.rotation_mode
        if not formats.quaternion_rotation(fmt) and identity and mode == "XYZ" and self.xopts.rate == "KEYS":
            rest_t = rl.to_translation()
            out = []
            for channel, prop in (("scale", "scale"), ("rotation", "rotation_euler"), ("translation", "location")):
                for axis in range(3):
                    vs, vo = 1.0, 0.0
                    if channel == "translation":
                        vs = k
                        vo = 0.0 if formats.is_delta(fmt) else -rest_t[axis]
                    fc = self.fcmap.get((pose_path(bone_name, prop), axis))
                    t = direct_track(ga, fc, target, channel, axis, vs, vo, tm, "KEYS", scene_frames, times_f,
                                     False, self.xopts.tolerance if formats.fits_keys(fmt) else 0.0, inside=True)
                    if t is None:
                        value = getattr(pb, prop)[axis]
                        t = ga.Track(target, channel, axis, times_f[:1], array("f", ((value - vo) / vs,)))
                    out.append(t)
            return drop_default_tracks(out) if formats.sparse_channels(fmt) else out
        pre, post = bake_spec(fmt, rl, q_rest, axis_basis(fmt, opts.up_axis, self.arm_obj))
        loc, rot, scale = Sampler(self.fcmap, scene_frames).basis(pb, lambda p: pose_path(bone_name, p), mode)
        local = ga.local_from_basis(pre, post, loc, rot, scale, rotation_mode=mode, translation_scale=k)
        self.check_skew(local, label, times_f)
        out = local_tracks(ga, fmt, target, local, times_f, label=label)
        return drop_default_tracks(out) if formats.sparse_channels(fmt) else out

    def resampled(self):
        ga = self.ga
        fmt = self.fmt
        xo = self.xopts
        src = self.source
        same_format = src.usable and src.format == fmt
        if same_format:
            opts = src.import_options()
        else:
            opts = ImportOptions(translation_scale=xo.translation_scale, up_axis=xo.up_axis,
                                 id_property=xo.id_property)
        s, e = frame_range(self.action, xo, self.scene)
        s, e = int(math.floor(s + 1e-6)), int(math.ceil(e - 1e-6))
        if e < s:
            raise ExportError(f"frame range {s}..{e} is empty")
        own_frames = formats.keeps_frame_numbers(fmt)
        start_frame = float(s) if own_frames else 0.0
        offset = 0.0 if own_frames else float(s)
        frame_count = (e - s + 1) if formats.count_includes_end(fmt) else (e - s)
        tm = self.tm = curve_plans.TimeMap(start_frame, start_frame + frame_count, 1.0, offset)
        first, last = file_frames(fmt, frame_count, start_frame)
        times_f = array("f", readback.frames_array(first, last))
        scene_frames = readback.frames_array(first, last, 1.0, offset)

        if same_format:
            anim0 = ga.load(src.data, keyless_rule=opts.keyless_rule)
            targets = {str(t): t for t in anim_targets(anim0)}
            order = [(b, targets[key]) for key, (b, _m) in src.bones.items() if key in targets]
            dropped = [target_label(t) for t in targets.values() if str(t) not in src.bones
                       and t != ROOT_MOTION]
            if dropped:
                self.notes.append(f"target(s) {', '.join(dropped)} found no bone when imported: not exported")
        else:
            anim0 = None
            rule = self.target_rule(opts)
            if formats.sparse_channels(fmt):
                bones = self.animated_bones()
            else:
                bones = [b.name for b in self.arm_obj.data.bones]
            order = []
            missing = []
            for name in bones:
                t = rule(name)
                if t is None:
                    missing.append(name)
                else:
                    order.append((name, t))
            if missing:
                raise ExportError(f"bone(s) {', '.join(repr(m) for m in missing)} have no bone ID: Banjo-Kazooie "
                                  f"animates bones by ID; set the custom property {opts.id_property!r} on them")
            seen = {}
            for name, t in order:
                if t in seen:
                    raise ExportError(f"bones {seen[t]!r} and {name!r} both map to target "
                                      f"{target_label(t)}")
                seen[t] = name
        if not order:
            raise ExportError(f"action {self.action.name!r} animates no bone of armature {self.arm_obj.name!r}")
        tracks = []
        for name, target in order:
            self.bone_of[target] = name
            tracks.extend(self.bone_tracks(name, target, opts, tm, times_f, scene_frames))
        if formats.has_root_motion(fmt):
            root = self.root_motion_tracks(opts, times_f, scene_frames)
            tracks.extend(root)
            if not root and anim0 is not None and any(t.target == ROOT_MOTION for t in anim0.tracks):
                self.notes.append("the imported file's root motion was not applied to the armature object, so "
                                  "it cannot be resampled: the new file has none")
        kw = {}
        if own_frames:
            kw["start_frame"] = start_frame
        fixed_fps = formats.fixed_fps(fmt)
        if formats.uses_scene_fps(fmt):
            kw["fps"] = anim0.fps if anim0 is not None else compat.scene_fps(self.scene)
        elif fixed_fps:
            kw["fps"] = fixed_fps
            if abs(compat.scene_fps(self.scene) - fixed_fps) > 1e-6:
                self.notes.append(f"{fmt.upper()} plays at {fixed_fps:g} fps; the scene runs at "
                                  f"{compat.scene_fps(self.scene):g} fps (frames are written one to one)")
        anim = ga.Animation(fmt, tracks, frame_count=float(frame_count), **kw)
        if anim0 is not None:
            anim.loop = anim0.loop
            anim.layout = anim0.layout
            anim.compression = anim0.compression
        self.changed.append("every channel (resampled)")
        self.apply_header(anim, imported=anim0 is not None)
        return anim

    def root_motion_tracks(self, opts, times_f, scene_frames):
        mode = self.xopts.root_motion
        obj_paths = {p for p, _i in self.fcmap if p in ("location", "rotation_quaternion", "rotation_euler",
                                                         "rotation_axis_angle", "scale")}
        if mode == "SKIP" or (mode == "AUTO" and not obj_paths):
            return []
        obj = self.arm_obj
        loc, rot, scale = Sampler(self.fcmap, scene_frames).basis(obj, lambda p: p, obj.rotation_mode)
        local = self.ga.local_from_basis(self.root_motion_pre(), None, loc, rot, scale,
                                         rotation_mode=obj.rotation_mode,
                                         translation_scale=opts.translation_scale)
        self.bone_of[ROOT_MOTION] = ""
        return local_tracks(self.ga, self.fmt, ROOT_MOTION, local, times_f, ("translation", "rotation"))

    def root_motion_rest(self):
        """The rig transform the object's curves compose root motion with
        (object = rest @ trajectory): the one the import stored on the
        action; for a JBA import that stored none, the identity (imports
        before the rest was recorded composed with nothing); for other
        actions, the one recorded on the rig, else the identity."""
        src = self.source
        stored = src.root_rest
        if stored is None and not (src.usable and formats.has_root_motion(src.format)):
            stored = self.arm_obj.get(ROOT_REST_PROP)
        if stored is None:
            return Matrix.Identity(4)
        try:
            return matrix_of(stored)
        except (TypeError, ValueError):
            raise ExportError(f"the rig transform stored for root motion ({ROOT_REST_PROP}) is not 16 "
                              f"numbers") from None

    def root_motion_pre(self):
        """local_from_basis's `pre` for root motion (None: the identity)."""
        rest = self.root_motion_rest()
        return None if rest == Matrix.Identity(4) else flat(rest)

    # -- header ------------------------------------------------------------

    def apply_header(self, anim, imported):
        xo = self.xopts
        fmt = self.fmt
        loops = formats.loop_modes(fmt)
        if xo.loop != "AUTO":
            if loops is None:
                self.notes.append(f"{fmt} files store no loop mode; option Loop ignored")
            elif anim.loop != xo.loop:
                anim.loop = xo.loop
        elif not imported and loops is not None:
            cyc = action_cycles(self.fcmap.values())
            if loops == "flag":
                anim.loop = "loop" if cyc else "once"
            else:
                anim.loop = {"REPEAT": "loop", "MIRROR": "mirror_loop"}.get(cyc, "once")
        if formats.has_layouts(fmt) and xo.layout != "AS_IMPORTED" and anim.layout != int(xo.layout):
            anim.layout = int(xo.layout)


