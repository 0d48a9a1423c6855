"""BTK: the material node-tree actions back to texture-matrix entries.

Each entry is a (material, UV slot) whose mapping chain (material_mapping:
centre -> Mapping A -> Mapping B) carries the game's five channels, each a
linear function of one chain input (channel_specs).  Imported actions
(several materials of one BTK make one action each) are compared with what
the importer wrote from the stored original: unchanged inputs keep their
tracks; a changed input maps back to its track (keys with handles at one
third are Hermite keys, others are sampled per frame).  Materials made in
Blender need the chain (api.add_texture_mapping builds it); their inputs
become the entries' tracks the same way.  Chain inputs that are not a
game channel (the Basic rotation of B, ...) must keep their fixed values:
otherwise the export warns that the change cannot be written."""
from array import array

from .. import compat, native
from ..shared import formats
from ..shared.imported_action import Source
from ..shared.material_mapping import CALC_TYPE_PROP, chain_nodes, channel_specs, node_names, plan_entry
from . import readback
from .export_tracks import ExportError, action_cycles, direct_track, file_frames, new_file_frames

SLOTS = range(8)
CHANNELS = ("scale", "rotation", "translation")


def _fcurves_of(action, mat):
    return compat.owner_fcurves(action, mat.node_tree, compat.node_tree_id_type())


def _socket_value(nodes, key, inp, comp):
    return nodes[key].inputs[inp].default_value[comp]


class BtkExport:
    def __init__(self, pairs, xopts, scene, notes):
        """pairs: [(material, action)]."""
        self.ga = native.require()
        self.fmt = formats.material_format()
        self.pairs = pairs
        self.xopts = xopts
        self.scene = scene
        self.notes = notes
        self.changed = []
        self.bone_of = {}  # entry index -> "material 'x' UV n"
        self.tm = None     # file frame -> scene frame of the export

    def run(self):
        sources = [Source(a) for _m, a in self.pairs]
        usable = [s.usable and s.format == self.fmt for s in sources]
        if all(usable) and len({s.data for s in sources}) == 1 and self.xopts.frame_range == "AUTO":
            return self.from_original(sources[0])
        if any(usable):
            if len({s.data for s in sources if s.usable}) > 1:
                self.notes.append("the materials' actions come from different BTK files: written as one new file")
            else:
                self.notes.append("written as a new BTK (mixed with actions made in Blender, or a new frame range)")
        return self.new_file()

    # -- the stored original -------------------------------------------

    def from_original(self, src):
        ga = self.ga
        anim = ga.load(src.data)
        tracks = list(anim.tracks)
        index = {(t.target, t.channel, t.axis): i for i, t in enumerate(tracks)}
        tol = self.xopts.tolerance
        for mat, action in self.pairs:
            s = Source(action)
            tm = self.tm = s.time_map()
            fcmap = _fcurves_of(action, mat)
            kept = s.entries
            first, last = file_frames(self.fmt, anim.frame_count)
            times = array("f", readback.frames_array(first, last))
            scene_frames = readback.frames_array(first, last, tm.scale, tm.offset)
            for e in kept:
                i = int(e["entry"])
                entry = anim.entries[i]
                slot = int(entry["texmtx_id"])
                nodes = chain_nodes(mat, slot)
                where = f"material {mat.name!r} UV {slot}"
                self.bone_of[i] = where
                if nodes is None:
                    raise ExportError(f"{where}: the texture-mapping chain the import built is gone "
                                      f"(nodes {', '.join(node_names(slot))})")
                plans, _added = plan_entry(anim, i, entry, tm, nodes)
                for cp in plans:
                    fc = fcmap.get(cp.key)
                    keys = readback.read_keys(fc) if fc is not None else None
                    if keys is not None and readback.unchanged_curve(fc, cp, keys):
                        continue
                    _k, key, inp, comp, track, vs, vo, const = cp.source
                    what = f"{where} {node_names(slot)[('centre', 'a', 'b').index(key)]!r} {inp}[{comp}]"
                    if track is None:
                        self.not_a_channel(what, fc, keys, nodes, key, inp, comp, const)
                        continue
                    if fc is None or fc.mute or len(keys) == 0:
                        value = _socket_value(nodes, key, inp, comp)
                        new = ga.Track(i, track.channel, track.axis, times[:1], array("f", ((value - vo) / vs,)))
                    else:
                        new = direct_track(ga, fc, i, track.channel, track.axis, vs, vo, tm, self.xopts.rate,
                                           scene_frames, times, s.period_keys, tol)
                    tracks[index[(i, track.channel, track.axis)]] = new
                    self.changed.append(f"{where} {track.channel} {'STQ'[track.axis]}")
        if self.changed:
            anim.tracks = tracks
        self.apply_loop(anim, imported=True)
        return anim

    def not_a_channel(self, what, fc, keys, nodes, key, inp, comp, const):
        """An input with no game channel changed: warn unless it still holds
        its fixed value."""
        if fc is None or fc.mute or len(keys) == 0:
            value_ok = abs(_socket_value(nodes, key, inp, comp) - const) <= 1e-6
        else:
            value_ok = readback.is_constant(keys, const)
        if not value_ok:
            self.notes.append(f"{what} changed, but it is not one of the game's texture-matrix channels "
                              f"(it must stay {const:g}); the change is not written")

    # -- materials made in Blender ---------------------------------------

    def calc_type(self, chains):
        if self.xopts.calc_type != "AUTO":
            return self.xopts.calc_type
        tags = {nodes["b"].get(CALC_TYPE_PROP) for _m, _a, _s, nodes in chains}
        tags.discard(None)
        if len(tags) > 1:
            raise ExportError("the mapping chains were built for different calculation types "
                              f"({', '.join(sorted(tags))}); a BTK has one: choose it with option calc_type")
        return tags.pop() if tags else "basic"

    def new_file(self):
        ga = self.ga
        xo = self.xopts
        chains = []
        for mat, action in self.pairs:
            for slot in SLOTS:
                nodes = chain_nodes(mat, slot)
                if nodes is not None:
                    chains.append((mat, action, slot, nodes))
        if not chains:
            names = ", ".join(repr(m.name) for m, _a in self.pairs)
            raise ExportError(f"no texture-mapping chain on material(s) {names}: a BTK is written from the "
                              f"chain the importer builds (api.add_texture_mapping adds one)")
        calc = self.calc_type(chains)
        frame_count, tm, times, scene_frames = new_file_frames(self.fmt, [a for _m, a in self.pairs], xo, self.scene)
        self.tm = tm
        s = int(tm.offset)  # (the scene frame of file frame 0)
        tracks, entries, all_curves = [], [], []
        for i, (mat, action, slot, nodes) in enumerate(chains):
            where = f"material {mat.name!r} UV {slot}"
            self.bone_of[i] = where
            fcmap = _fcurves_of(action, mat)
            all_curves.extend(fcmap.values())

            def value_at_start(key, inp, comp):
                fc = fcmap.get((nodes[key].inputs[inp].path_from_id("default_value"), comp))
                if fc is None or fc.mute or len(fc.keyframe_points) == 0:
                    return _socket_value(nodes, key, inp, comp)
                keys = readback.read_keys(fc)
                if not readback.is_constant(keys):
                    self.notes.append(f"{where}: the centre is animated; a BTK centre is fixed, the value at "
                                      f"frame {s} is written")
                return readback.sample(fc, keys, array("d", (float(s),)))[0]

            if calc == "basic":
                cx = value_at_start("centre", 1, 0)
                cy = 1.0 - value_at_start("centre", 1, 1)
            else:
                cx = cy = 0.5
            for key, inp, comp, ch, vs, vo, const in channel_specs(calc, cx, cy):
                path = nodes[key].inputs[inp].path_from_id("default_value")
                fc = fcmap.get((path, comp))
                if ch is None:
                    if key != "centre":
                        keys = readback.read_keys(fc) if fc is not None else None
                        self.not_a_channel(f"{where} {nodes[key].name!r} {inp}[{comp}]", fc, keys, nodes, key, inp,
                                           comp, const)
                    continue
                channel, axis = ch
                t = direct_track(ga, fc, i, channel, axis, vs, vo, tm, xo.rate, scene_frames, times, False,
                                 xo.tolerance, inside=True)
                if t is None:
                    value = _socket_value(nodes, key, inp, comp)
                    t = ga.Track(i, channel, axis, times[:1], array("f", ((value - vo) / vs,)))
                tracks.append(t)
            entries.append({"material": mat.name, "texmtx_id": slot, "center": (cx, cy, 0.5), "post": False})
        try:
            anim = ga.Animation(self.fmt, tracks, frame_count=float(frame_count), entries=entries, calc_type=calc)
        except ValueError as exc:
            raise ExportError(f"{self.fmt}: {exc}") from exc
        self.all_curves = all_curves
        self.changed.append("every entry (new file)")
        self.apply_loop(anim, imported=False)
        return anim

    def apply_loop(self, anim, imported):
        xo = self.xopts
        if xo.loop != "AUTO":
            anim.loop = xo.loop
        elif not imported:
            cyc = action_cycles(getattr(self, "all_curves", []))
            anim.loop = {"REPEAT": "loop", "MIRROR": "mirror_loop"}.get(cyc, "once")
