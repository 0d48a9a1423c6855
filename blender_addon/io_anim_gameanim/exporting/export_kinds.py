"""BRK, BPK, BTP and BVA export (shared/kind_mapping.py says where each
track went): the actions imported from one file go back into it.  The
stored original is loaded, every recorded curve is rebuilt as the import
wrote it and compared with the action's; only the tracks whose curve was
edited are re-encoded (an untouched file comes back byte for byte).
Actions no import made are written as a new file (KindExport.new_file)
from the properties kind_mapping names."""
import re
from array import array

import bpy

from .. import compat, native
from ..shared import formats
from ..shared.imported_action import ORIGINAL_PROP, Source, stored_format
from ..shared.kind_mapping import OWNER_PROP, OWNER_TYPE_PROP, group_input_curves, plan_curves, shape_index_of, \
    slot_records
from . import readback
from .export_tracks import ExportError, action_cycles, direct_track, file_frames, new_file_frames


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


def owner_of(action, name=None, id_type=None):
    """(owner ID, ID type) the import put the action (or one of its slots:
    name, id_type) on."""
    id_type = id_type or action.get(OWNER_TYPE_PROP) or "OBJECT"
    name = name or action.get(OWNER_PROP)
    coll = bpy.data.materials if id_type == "MATERIAL" else bpy.data.objects
    owner = coll.get(name) if name else None
    if owner is None:
        raise ExportError(f"action {action.name!r} animated {id_type.lower()} {name!r}, which is gone (renamed or "
                          "deleted?)")
    return owner, id_type


class KindExport:
    def __init__(self, actions, fmt, xopts, scene, notes, owners=None):
        """actions: imported from one file (written back into it); or
        owners [(ID, action)] for a new file (new_owners)."""
        self.ga = native.require()
        self.actions = actions
        self.owners = owners
        self.fmt = fmt
        self.xopts = xopts
        self.scene = scene
        self.notes = notes
        self.changed = []
        self.bone_of = {}  # target -> "material 'x'" / "object 'x'" (for the encoder's messages)
        self.tm = None
        # one value per frame (BTP, BVA), else Hermite keys (BRK, BPK)
        self.full_frame = formats.value_per_frame(fmt)

    def run(self):
        if self.owners is not None:
            return self.new_file()
        sources = [Source(a) for a in self.actions]
        for a, s in zip(self.actions, sources):
            if not (s.usable and s.format == self.fmt and a.get(OWNER_PROP)):
                raise ExportError(f"action {a.name!r} was not imported from a {self.fmt.upper()} file: mixed "
                                  f"with the actions imported from one, it cannot go into that file")
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
        units = [(action, src, record) for action, src in zip(self.actions, sources) for record in slot_records(action)]
        for action, src, (owner_name, owner_type, slot_id, curves) in units:
            owner, id_type = owner_of(action, owner_name, owner_type)
            where = f"{'material' if id_type == 'MATERIAL' else 'object'} {owner.name!r}"
            tm = self.tm = src.time_map()
            scene_frames = readback.frames_array(first, last, tm.scale, tm.offset)
            fcmap = compat.owner_fcurves(action, owner, id_type, slot_id)
            plans, _added = plan_curves(anim, curves, tm, self.fmt.upper())
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

    # -- a new file ------------------------------------------------------

    def new_file(self):
        """A file from keyed properties (and, for BVA, shape objects' hide
        keys) that no import made: kind_mapping's names give the entries
        (BRK: register colours, then konst colours), each curve its track
        (colours: the keys; texture numbers and show bytes: the value at
        every whole frame, rounded by the encoder)."""
        ga, xo, kind = self.ga, self.xopts, formats.kind(self.fmt)
        if not self.owners:
            raise ExportError(f"nothing to write as {self.fmt.upper()}: {NEW_FILE_HELP[kind]}")
        frame_count, tm, times, scene_frames = new_file_frames(self.fmt, [a for _o, a in self.owners], xo,
                                                               self.scene)
        self.tm = tm
        rate = xo.rate if kind == "color" else "FRAMES"
        found = []  # (sort key, owner, curves {(path, index): F-curve}, entry, path)
        scales = {}  # F-curve -> value scale (keys on a group node's input: value / 255)
        for owner, action in self.owners:
            fcmap = {}
            if kind == "visibility" or owner.animation_data is None or action == owner.animation_data.action:
                fcmap = compat.owner_fcurves(action, owner, "MATERIAL" if kind != "visibility" else "OBJECT")
            if kind == "color":  # (a material the model import built: colours keyed on its nodes)
                for key, fc in group_input_curves(owner, node_tree_curves(owner)).items():
                    if key not in fcmap:
                        fcmap[key] = fc
                        scales[fc] = 1.0 / 255.0
            for path in dict.fromkeys(p for p, _i in fcmap):
                got = new_curve_target(self.fmt, owner, path)
                if got is not None:
                    found.append((got[0], owner, fcmap, got[1], path))
        if not found:
            raise ExportError(f"nothing to write as {self.fmt.upper()}: {NEW_FILE_HELP[kind]}")
        found.sort(key=lambda x: x[0])
        tracks, entries, all_curves = [], [], []
        for i, (key, owner, fcmap, entry, path) in enumerate(found):
            all_curves.extend(fcmap.values())
            if kind == "visibility":
                target, axes = key[1], (0,)
                vs, vo = (-1.0, 1.0) if path == "hide_viewport" else (1.0, 0.0)
                self.bone_of[target] = f"object {owner.name!r}"
            else:
                target, axes, vs, vo = i, (range(4) if kind == "color" else (0,)), 1.0, 0.0
                entries.append(entry)
                self.bone_of[target] = f"material {owner.name!r}"
            channel = CHANNEL[kind]
            for axis in axes:
                fc = fcmap.get((path, axis))
                t = direct_track(ga, fc, target, channel, axis, scales.get(fc, vs), vo, tm, rate, scene_frames,
                                 times, False, 0.0, inside=True)
                if t is None:
                    t = ga.Track(target, channel, axis, times[:1], array("f", (property_value(owner, path, axis),)))
                tracks.append(t)
        if kind == "visibility":
            have = {t.target for t in tracks}
            for shape in range(max(have) + 1):
                if shape not in have:  # (a shape between the animated ones: shown)
                    tracks.append(ga.Track(shape, "visibility", 0, times[:1], array("f", (1.0,))))
            tracks.sort(key=lambda t: t.target)
            if len({k[0][1] for k in found}) < len(found):
                raise ExportError("two objects or properties give the same BVA shape: "
                                  + ", ".join(f"{o.name!r} ({p})" for _k, o, _f, _e, p in found))
        try:
            anim = ga.Animation(self.fmt, tracks, frame_count=float(frame_count), entries=entries or None)
        except ValueError as exc:
            raise ExportError(f"{self.fmt}: {exc}") from exc
        self.changed.append("every entry (new file)")
        if xo.loop != "AUTO":
            anim.loop = xo.loop
        else:
            cyc = action_cycles(all_curves)
            anim.loop = {"REPEAT": "loop", "MIRROR": "mirror_loop"}.get(cyc, "once")
        return anim


CHANNEL = {"color": "color", "texture_index": "texture_index", "visibility": "visibility"}
NEW_FILE_HELP = {
    "color": "key the material property gameanim_color_C<id> / gameanim_color_K<id> (BRK) or gameanim_color "
             "(BPK), 4 numbers R G B A in 0..255 units",
    "texture_index": "key the material property gameanim_texmap<n> (an integer: the texture number)",
    "visibility": "key hide_viewport of objects named shape_<index> (or with the property gameanim_shape), or "
                  "the integer properties gameanim_shape<index> of an object",
}
_COLOR = re.compile(r'^\["gameanim_color(?:_([CK])(\d+))?"\]$')
_TEXMAP = re.compile(r'^\["gameanim_texmap(\d+)"\]$')
_SHAPE = re.compile(r'^\["gameanim_shape(\d+)"\]$')


def new_curve_target(fmt, owner, path):
    """(sort key, entry) of a curve a new file takes, or None: BRK register
    colours first, then konst colours (by material, then colour id)."""
    kind = formats.kind(fmt)
    if kind == "color":
        m = _COLOR.match(path)
        tev = formats.tev_colors(fmt)
        if m is None or (m.group(1) is None) == tev:
            return None
        if not tev:
            return (0, owner.name, 0), {"material": owner.name}
        konst = m.group(1) == "K"
        return ((1 if konst else 0, owner.name, int(m.group(2))),
                {"material": owner.name, "kind": "konst" if konst else "register", "color_id": int(m.group(2))})
    if kind == "texture_index":
        m = _TEXMAP.match(path)
        if m is None:
            return None
        return (0, owner.name, int(m.group(1))), {"material": owner.name, "texmap": int(m.group(1))}
    if path == "hide_viewport":
        i = shape_index_of(owner)
        return None if i is None else ((0, i), None)
    m = _SHAPE.match(path)
    return None if m is None else ((0, int(m.group(1))), None)


def node_tree_curves(material):
    """{(data path, index): F-curve} of a material's node tree action."""
    tree = getattr(material, "node_tree", None)
    ad = tree.animation_data if tree is not None else None
    if ad is None or ad.action is None:
        return {}
    return compat.owner_fcurves(ad.action, tree, "NODETREE")


def _keys_colours(fmt, material):
    """Whether a material's node tree keys colours a file of fmt takes."""
    return any(new_curve_target(fmt, material, p) for p, _a in group_input_curves(material, node_tree_curves(material)))


def property_value(owner, path, axis):
    """The current value of a curve's property (a curve without keys)."""
    if path == "hide_viewport":
        return 0.0 if owner.hide_viewport else 1.0
    v = owner.get(path[2:-2], 0.0)
    try:
        return float(v[axis])
    except TypeError:
        return float(v)


def new_owners(action, fmt, materials, context):
    """[(ID, action)] a new file is written from: BVA: every object that
    shows a shape (shape_index_of) with an action, and the action's own
    objects (properties); BRK, BPK, BTP: `materials` (their actions), else
    the selected objects' materials whose action keys the format's
    properties, else the materials whose action is `action`."""
    out = []

    def add(owner, act):
        if act is not None and all(o != owner for o, _a in out):
            out.append((owner, act))

    def act_of(idb):
        ad = idb.animation_data
        return ad.action if ad is not None else None

    if formats.kind(fmt) == "visibility":
        for ob in compat.users_of(action, "OBJECT"):
            add(ob, action)
        for ob in bpy.data.objects:
            if shape_index_of(ob) is not None:
                add(ob, act_of(ob))
        return out
    colour = formats.kind(fmt) == "color"
    if materials:
        for m in materials:
            add(m, act_of(m) or (act_of(m.node_tree) if colour and _keys_colours(fmt, m) else None))
        return out
    for ob in context.selected_objects or ():
        for slot in getattr(ob, "material_slots", ()):
            m = slot.material
            act = act_of(m) if m is not None else None
            if act is not None and any(new_curve_target(fmt, m, fc.data_path) for fc in compat.action_fcurves(act)):
                add(m, act)
            elif m is not None and colour and _keys_colours(fmt, m):
                add(m, act_of(m.node_tree))
    if not out:
        for m in compat.users_of(action, "MATERIAL"):
            add(m, action)
        if colour:
            trees = set(compat.users_of(action, "NODETREE"))
            for m in bpy.data.materials:
                if m.node_tree in trees and _keys_colours(fmt, m):
                    add(m, action)
    return out


def is_kind_action(action):
    return bool(formats.kind(stored_format(action)))
