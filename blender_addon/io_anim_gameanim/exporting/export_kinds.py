"""BRK, BPK, BTP and BVA export (shared/kind_mapping.py says where each
track went): the actions imported from one file go back into it.  The
stored original is loaded, every recorded curve is rebuilt as the import
wrote it and compared with the action's; only the tracks whose curve was
edited are re-encoded (an untouched file comes back byte for byte).
Files of these kinds are not authored from scratch in Blender: an action
that was not imported from one is an ExportError."""
from array import array

import bpy

from .. import compat, native
from ..shared import formats
from ..shared.imported_action import ORIGINAL_PROP, Source, stored_format
from ..shared.kind_mapping import OWNER_PROP, OWNER_TYPE_PROP, plan_curves, read_curves
from . import readback
from .export_tracks import ExportError, direct_track, file_frames


def sibling_actions(action):
    """The actions imported from the same file as `action` (itself first):
    a BRK, BPK or BTP on several materials, a BVA on several objects."""
    data = action.get(ORIGINAL_PROP)
    fmt = stored_format(action)
    out = [action]
    if not data:
        return out
    for a in bpy.data.actions:
        if a != action and a.get(ORIGINAL_PROP) == data and stored_format(a) == fmt and a.get(OWNER_PROP):
            out.append(a)
    return out


def owner_of(action):
    """(owner ID, ID type) the import put the action on."""
    id_type = action.get(OWNER_TYPE_PROP) or "OBJECT"
    name = action.get(OWNER_PROP)
    coll = bpy.data.materials if id_type == "MATERIAL" else bpy.data.objects
    owner = coll.get(name) if name else None
    if owner is None:
        raise ExportError(f"action {action.name!r} animated {id_type.lower()} {name!r}, which is gone (renamed or "
                          "deleted?)")
    return owner, id_type


class KindExport:
    def __init__(self, actions, fmt, xopts, scene, notes):
        self.ga = native.require()
        self.actions = actions
        self.fmt = fmt
        self.xopts = xopts
        self.scene = scene
        self.notes = notes
        self.changed = []
        self.bone_of = {}  # target -> "material 'x'" / "object 'x'" (for the encoder's messages)
        self.tm = None
        # one value per frame (BTP, BVA), else Hermite keys (BRK, BPK)
        self.full_frame = formats.kind(fmt) in ("texture_index", "visibility")

    def run(self):
        sources = [Source(a) for a in self.actions]
        for a, s in zip(self.actions, sources):
            if not (s.usable and s.format == self.fmt and a.get(OWNER_PROP)):
                raise ExportError(f"action {a.name!r} was not imported from a {self.fmt.upper()} file: files of "
                                  f"this kind are written only from imported actions (edited or not)")
        if len({s.data for s in sources}) > 1:
            raise ExportError(f"the actions {', '.join(a.name for a in self.actions)} come from different "
                              f"{self.fmt.upper()} files: export them one file at a time")
        if self.xopts.frame_range != "AUTO":
            self.notes.append("option Frame Range ignored: the file keeps its imported range")
        ga = self.ga
        anim = ga.load(sources[0].data)
        rule = sources[0].time_map().frame_rule
        if rule:
            anim.frame_rule = rule
        tracks = list(anim.tracks)
        first, last = file_frames(self.fmt, anim.frame_count)
        times = array("f", readback.frames_array(first, last))
        for action, src in zip(self.actions, sources):
            owner, id_type = owner_of(action)
            where = f"{'material' if id_type == 'MATERIAL' else 'object'} {owner.name!r}"
            tm = self.tm = src.time_map()
            scene_frames = readback.frames_array(first, last, tm.scale, tm.offset)
            fcmap = compat.owner_fcurves(action, owner, id_type)
            plans, _added = plan_curves(anim, read_curves(action), tm, self.fmt.upper())
            for cp in plans:
                ti, vs, vo, primary = cp.source
                track = tracks[ti]
                self.bone_of.setdefault(track.target, where)
                if not primary:
                    continue
                fc = fcmap.get(cp.key)
                keys = readback.read_keys(fc) if fc is not None else None
                if keys is not None and readback.unchanged_curve(fc, cp, keys):
                    continue
                what = f"{where} {cp.path}[{cp.index}]"
                if fc is None or fc.mute or keys is None or len(keys) == 0:
                    raise ExportError(f"{what}: the curve the import made is gone or muted (track {ti}); "
                                      "key it again or re-import")
                t_times, t_scene = times, scene_frames
                if self.full_frame and len(track) > 1:
                    # (one value per frame the table held: its own length)
                    t_times = array("f", track.times)
                    t_scene = array("d", (tm.scene(x) for x in t_times))
                new = direct_track(ga, fc, track.target, track.channel, track.axis, vs, vo, tm, self.xopts.rate,
                                   t_scene, t_times, src.period_keys, 0.0)
                tracks[ti] = new
                self.changed.append(what)
        if self.changed:
            anim.tracks = tracks
        if self.xopts.loop != "AUTO":
            anim.loop = self.xopts.loop
        return anim


def is_kind_action(action):
    return bool(formats.kind(stored_format(action)))
