"""BTK texture-matrix animations onto material node trees.

Each BTK entry names a material and a texture-matrix slot (= the UV
channel index).  The game transforms UVs (s, t), t pointing down, with

  Basic: (s', t') = S * R(theta) * ((s, t) - c) + c + T
  Maya:  (s', t') in v-up form: uv' = R(theta) * (S * uv + T - 1/2) + 1/2

(docs/blender.md and the J3D notes, section 5.4/5.5).  With Blender's
u = s, v = 1 - t, Basic becomes uv' = S * R(-theta) * (uv - c_b) + c_b +
(Tx, -Ty) with c_b = (cx, 1 - cy).  Blender's Mapping node (POINT) does
R * (scale * v) + location, scale before rotation, so one node is not
exact when the scales differ and there is a rotation.  Every slot gets
the same three-node chain, exact for both calc types:

  UV -> [Vector Math: subtract centre] -> [Mapping A] -> [Mapping B] -> images

  Basic: centre = c_b; A: rotation z = -theta; B: scale S, location c_b + (Tx, -Ty)
  Maya:  centre = 0;   A: scale S, location T - 1/2; B: rotation z = theta, location 1/2

Every input of the chain is keyed (constants as one key) so that each
action fully defines the mapping when actions are switched.
"""
import json
from array import array

from . import curve_plans
from .rig_match import normalise_name

NODE_PREFIX = "gameanim tex"
CALC_TYPE_PROP = "gameanim_calc_type"  # on node B: the convention the chain follows


def node_names(slot):
    p = f"{NODE_PREFIX}{slot}"
    return p + " centre", p + " A", p + " B"


def find_material(name, materials):
    """Exact name, then tolerant of case, spaces and .001 suffixes."""
    for m in materials:
        if m.name == name:
            return m
    key = normalise_name(name)
    for m in materials:
        if normalise_name(m.name) == key:
            return m
    return None



def _socket_path(socket):
    return socket.path_from_id("default_value")


def channel_specs(calc_type, cx=0.5, cy=0.5):
    """[(node key, input name, component, (channel, axis) or None, value
    scale, value offset, constant)] for the 12 keyed chain inputs of one
    entry: input = channel value * scale + offset; inputs without a channel
    hold `constant`.  Only the five channels the game reads appear: scale
    S and T, rotation of the third (Q) slot, translation S and T."""
    if calc_type == "maya":
        return [
            ("centre", 1, 0, None, 1, 0, 0.0), ("centre", 1, 1, None, 1, 0, 0.0),
            ("a", "Scale", 0, ("scale", 0), 1, 0, 1.0), ("a", "Scale", 1, ("scale", 1), 1, 0, 1.0),
            ("a", "Location", 0, ("translation", 0), 1, -0.5, -0.5),
            ("a", "Location", 1, ("translation", 1), 1, -0.5, -0.5),
            ("a", "Rotation", 2, None, 1, 0, 0.0),
            ("b", "Rotation", 2, ("rotation", 2), 1, 0, 0.0),
            ("b", "Location", 0, None, 1, 0, 0.5), ("b", "Location", 1, None, 1, 0, 0.5),
            ("b", "Scale", 0, None, 1, 0, 1.0), ("b", "Scale", 1, None, 1, 0, 1.0),
        ]
    cbv = 1.0 - cy
    return [
        ("centre", 1, 0, None, 1, 0, cx), ("centre", 1, 1, None, 1, 0, cbv),
        ("a", "Rotation", 2, ("rotation", 2), -1, 0, 0.0),
        ("a", "Scale", 0, None, 1, 0, 1.0), ("a", "Scale", 1, None, 1, 0, 1.0),
        ("a", "Location", 0, None, 1, 0, 0.0), ("a", "Location", 1, None, 1, 0, 0.0),
        ("b", "Scale", 0, ("scale", 0), 1, 0, 1.0), ("b", "Scale", 1, ("scale", 1), 1, 0, 1.0),
        ("b", "Location", 0, ("translation", 0), 1, cx, cx), ("b", "Location", 1, ("translation", 1), -1, cbv, cbv),
        ("b", "Rotation", 2, None, 1, 0, 0.0),
    ]


def entry_channels(anim, entry_index, entry, calc_type):
    """channel_specs with the entry's tracks in place of (channel, axis)."""
    cx, cy = entry["center"][0], entry["center"][1]
    out = []
    for key, inp, comp, ch, vs, vo, const in channel_specs(calc_type, cx, cy):
        track = anim.find(entry_index, ch[0], ch[1]) if ch is not None else None
        out.append((key, inp, comp, track, vs, vo, const))
    return out


def plan_entry(anim, entry_index, entry, tm, nodes):
    """The curves of one entry's chain inputs (CurvePlan), nodes = {'centre':
    node, 'a': node, 'b': node}.  Returns (plans, period keys added)."""
    plans, period_keys = [], False
    group = f"UV {int(entry['texmtx_id'])}"
    for key, inp, comp, track, vs, vo, const in entry_channels(anim, entry_index, entry, anim.calc_type):
        path = _socket_path(nodes[key].inputs[inp])
        source = ("entry", key, inp, comp, track, vs, vo, const)
        if track is None or len(track) == 0:
            plans.append(curve_plans.plan_constant(path, comp, group, tm.start, const, source))
        elif curve_plans.game_curve_differs(track):
            # (Blender would sort the keys, or stay finite where the game
            # overflows: the game's values, frame by frame)
            frames = tm.bake_frames()
            values = track.evaluate(frames)
            co = array("f", [x for f, v in zip(frames, values) for x in (f * tm.scale + tm.offset, v * vs + vo)])
            plans.append(curve_plans.plan_baked(path, comp, group, co, tm, source))
        else:
            bez = track.bezier(vs, vo, tm.scale, tm.offset, flags=True)
            cp, added = curve_plans.plan_track(path, comp, group, bez, tm, source)
            plans.append(cp)
            period_keys |= added
    return plans, period_keys



def chain_nodes(material, slot):
    """The existing chain of a UV slot ({'centre', 'a', 'b'}) or None."""
    tree = material.node_tree
    if tree is None:
        return None
    found = {key: tree.nodes.get(name) for key, name in zip(("centre", "a", "b"), node_names(slot))}
    return found if all(found.values()) else None


def entries_by_material(anim):
    """{material name: [(entry index, entry)]} in file order."""
    out = {}
    for i, e in enumerate(anim.entries or []):
        out.setdefault(e["material"], []).append((i, e))
    return out


def matched_materials(anim, mats, stem, fr, detail=None):
    """[(material, [(entry index, entry)], action name)] for the materials
    the entries name that exist among mats (find_material); the others go
    to the report fr (missing_materials, unmatched; detail(entry) adds to
    an entry's text).  The action is named stem, or "stem [material]"
    when the file names several materials."""
    groups = entries_by_material(anim)
    out = []
    for mat_name, entries in groups.items():
        mat = find_material(mat_name, mats)
        if mat is None:
            fr.missing_materials.append(mat_name)
            fr.unmatched.extend(f"entry {i} (material {mat_name!r}{detail(e) if detail else ''})"
                                for i, e in entries)
            continue
        out.append((mat, entries, stem if len(groups) == 1 else f"{stem} [{mat_name}]"))
    return out


def describe_entries(entries):
    return json.dumps([{"entry": i, "texmtx_id": e["texmtx_id"], "center": list(e["center"]),
                        "post": bool(e.get("post"))} for i, e in entries])

