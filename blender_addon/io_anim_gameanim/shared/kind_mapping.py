"""The other J3D kinds in Blender: where the tracks of BRK and BPK
(colours), BTP (texture numbers) and BVA (shape visibility) go, shared by
the import (importing/kinds.py) and the export (exporting/export_kinds.py).
docs/blender.md, "Colours, texture patterns and visibility", says it for
users.

Every track becomes one F-curve (BVA on a shape object: two) of a keyed
property with the track's values as stored:

  BRK  material["gameanim_color_C<id>"] / ["gameanim_color_K<id>"] (4 floats:
       register / konst colour <id>, R G B A in the file's s16 units)
  BPK  material["gameanim_color"] (4 floats)
  BTP  material["gameanim_texmap<n>"] (int: the texture number of texmap n)
  BVA  object.hide_viewport / hide_render (= not shown) on the object of
       the shape, else object["gameanim_shape<i>"] (int, the show byte) on
       the import's target object

An imported action records its curves (CURVES_PROP: JSON [track index,
data path, array index, value scale, value offset, primary]) and the owner
it animates (OWNER_PROP, OWNER_TYPE_PROP); the export rebuilds each curve
from the stored original and re-encodes only the tracks whose curve was
edited.  A curve holds track value * scale + offset; a curve that is not
primary (hide_render beside hide_viewport) is written but not read back."""
import json
import re
from array import array

from . import curve_plans, formats

CURVES_PROP = "gameanim_kind_curves"
OWNER_PROP = "gameanim_owner"
OWNER_TYPE_PROP = "gameanim_owner_type"
# A BVA imported where actions have slots (4.4+) is one action with a slot
# per object: JSON [{"owner", "type", "slot" (the slot's identifier),
# "curves" (as CURVES_PROP)}]; OWNER_PROP / CURVES_PROP then name the first.
SLOTS_PROP = "gameanim_kind_slots"
# on an object: the BVA shape index it shows (else its name: shape_<i>)
SHAPE_INDEX_PROP = "gameanim_shape"
SHAPE_NAME = re.compile(r"^shape[ _]?0*(\d+)(?:\.\d{3})?$", re.IGNORECASE)
# the game clamps a colour before it is shown (registers to -1024..1023,
# konst and material colours to 0..255); the viewport shows 0..255 of both
DISPLAY_CLAMP = (0, 255)


def prop_path(name):
    return f'["{name}"]'


def color_prop(entry):
    """The colour property of a BRK or BPK entry."""
    kind = entry.get("kind")
    if kind is None:
        return "gameanim_color"
    return f"gameanim_color_{'C' if kind == 'register' else 'K'}{int(entry['color_id'])}"


# Materials the model import built (importing/materials_from_model.py): the
# TEV group node, whose colour inputs hold register and konst colours in
# bytes / 255 (C0-C2: BRK registers 0-2; K0-K3: BRK konst colours), and
# the group inputs that material colour 0 feeds (BPK): JSON [[socket,
# [channels]] or [socket, [channels], node name]] on the material
TEV_GROUP_NODE = "gameanim TEV"
MAT_COLOR_INPUTS_PROP = "gameanim_mat_color_inputs"
_NODE_INPUT = re.compile(r'^nodes\["((?:[^"\\]|\\.)*)"\]\.inputs\[(\d+)\]\.default_value$')
_TEV_COLOUR_INPUT = re.compile(r"^([CK])(\d)( Alpha)?$")


def group_input_curves(material, fcmap):
    """{(property path, axis): F-curve} of the curves keyed on the colour
    inputs of a model-built material's nodes (fcmap: its node tree's
    curves), as the colour property each stands for (a curve holds the
    property's value / 255); colours no BRK or BPK carries are left out."""
    tree = material.node_tree
    fed = {}
    for t in json.loads(material.get(MAT_COLOR_INPUTS_PROP) or "[]"):
        fed[(t[2] if len(t) > 2 else TEV_GROUP_NODE, t[0])] = list(t[1])
    out = {}
    for (path, index), fc in sorted(fcmap.items()):
        m = _NODE_INPUT.match(path)
        node = tree.nodes.get(m.group(1)) if m and tree is not None else None
        if node is None or int(m.group(2)) >= len(node.inputs):
            continue
        name = node.inputs[int(m.group(2))].name
        reg = _TEV_COLOUR_INPUT.match(name) if node.name == TEV_GROUP_NODE else None
        if reg and (reg.group(1) == "K" or int(reg.group(2)) < 3):
            axis = 3 if reg.group(3) else index
            out.setdefault((prop_path(f"gameanim_color_{reg.group(1)}{reg.group(2)}"), axis), fc)
        elif (node.name, name) in fed:
            chans = fed[(node.name, name)]
            if index < len(chans):
                out.setdefault((prop_path("gameanim_color"), chans[index]), fc)
    return out


def pattern_prop(entry):
    return f"gameanim_texmap{int(entry['texmap'])}"


def shape_prop(index):
    return f"gameanim_shape{int(index):03d}"


def shape_index_of(obj):
    """The BVA shape an object shows (its gameanim_shape property, else a
    name shape_<i> / shape<i>), or None."""
    v = obj.get(SHAPE_INDEX_PROP)
    if isinstance(v, int):
        return v
    m = SHAPE_NAME.match(obj.name)
    return int(m.group(1)) if m else None


def material_curves(anim, entries, notes=None):
    """[(track index, data path, array index, scale, offset, primary)] of
    material entries [(entry index, entry)] (BRK, BPK, BTP).  A second
    entry of one material with the same property (the same colour or
    texture map) is left out, and said in notes: the first wins (the
    export keeps the other's tracks as they are)."""
    kind = formats.kind(anim.format)
    wanted, seen = {}, {}
    for i, e in entries:
        prop = color_prop(e) if kind == "color" else pattern_prop(e)
        if prop in seen:
            if notes is not None:
                notes.append(f"entry {i} (material {e['material']!r}) animates {prop} as entry {seen[prop]} does: "
                             "the first wins")
            continue
        seen[prop] = i
        wanted[i] = e
    out = []
    for ti, t in enumerate(anim.tracks):
        e = wanted.get(t.target)
        if e is None:
            continue
        if kind == "color":
            out.append((ti, prop_path(color_prop(e)), int(t.axis), 1.0, 0.0, True))
        else:
            out.append((ti, prop_path(pattern_prop(e)), 0, 1.0, 0.0, True))
    return out


def shape_curves(anim, shapes, on_object):
    """The curves of BVA shapes (a set of shape indices): on the shape's own
    object (on_object) hide_viewport (read back) and hide_render, = 1 - show;
    else the shape's property."""
    out = []
    for ti, t in enumerate(anim.tracks):
        if t.target not in shapes:
            continue
        if on_object:
            out.append((ti, "hide_viewport", 0, -1.0, 1.0, True))
            out.append((ti, "hide_render", 0, -1.0, 1.0, False))
        else:
            out.append((ti, prop_path(shape_prop(t.target)), 0, 1.0, 0.0, True))
    return out


def plan_curve(track, path, index, group, vs, vo, tm, source):
    """The curve of one track: its keys (CONSTANT keys per frame for the
    full-frame kinds, shaped by tm.frame_rule), or the game's values per
    frame where a Blender curve would differ (curve_plans.game_curve_differs).
    Returns (CurvePlan, held period keys added)."""
    if len(track) == 0:
        value = track.evaluate([tm.file_start])[0]
        return curve_plans.plan_constant(path, index, group, tm.start, value * vs + vo, source), False
    if curve_plans.game_curve_differs(track):
        frames = tm.bake_frames()
        values = track.evaluate(frames)
        co = array("f", [x for f, v in zip(frames, values) for x in (f * tm.scale + tm.offset, v * vs + vo)])
        return curve_plans.plan_baked(path, index, group, co, tm, source), False
    return curve_plans.plan_track(path, index, group, track.bezier(vs, vo, tm.scale, tm.offset, True), tm, source)


def plan_curves(anim, curves, tm, group):
    """Plans for the stored curve list; (plans, period keys added)."""
    tracks = anim.tracks
    plans, added = [], False
    for ti, path, index, vs, vo, primary in curves:
        cp, a = plan_curve(tracks[ti], path, index, group, vs, vo, tm, (ti, vs, vo, primary))
        plans.append(cp)
        added |= a
    return plans, added


def describe_curves(curves):
    return json.dumps([list(c) for c in curves])


def read_curves(action):
    return [tuple(c) for c in json.loads(action.get(CURVES_PROP) or "[]")]


def slot_records(action):
    """[(owner name, ID type, slot identifier or None, curves)] of an
    imported kind action: one per slot (SLOTS_PROP), else its one owner."""
    raw = action.get(SLOTS_PROP)
    if raw:
        return [(r["owner"], r["type"], r["slot"], [tuple(c) for c in r["curves"]]) for r in json.loads(raw)]
    return [(action.get(OWNER_PROP), action.get(OWNER_TYPE_PROP) or "OBJECT", None, read_curves(action))]


def describe_slots(records):
    """SLOTS_PROP of [(owner name, ID type, slot identifier, curves)]."""
    return json.dumps([{"owner": o, "type": t, "slot": s, "curves": [list(c) for c in curves]}
                       for o, t, s, curves in records])
