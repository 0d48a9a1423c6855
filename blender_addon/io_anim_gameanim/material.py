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
import re

from . import compat, curves
from .armature import normalise_name

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


def _meshes_using(material):
    import bpy

    out = []
    for ob in bpy.data.objects:
        if ob.type == "MESH" and ob.data is not None and any(m == material for m in ob.data.materials):
            out.append(ob.data)
    return out


def _active_render_uv(material):
    for me in _meshes_using(material):
        for i, uv in enumerate(me.uv_layers):
            if uv.active_render:
                return i
    return 0


def uv_slot_of_name(material, uv_name):
    """Index of a UV map name on the meshes that use the material; without
    such a mesh, the number the name ends with (UVMap = 0, UVMap.001 = 1,
    UV2 = 2)."""
    if not uv_name:
        return _active_render_uv(material)
    for me in _meshes_using(material):
        i = me.uv_layers.find(uv_name)
        if i >= 0:
            return i
    m = re.search(r"(\d+)$", uv_name)
    return int(m.group(1)) if m else 0


def _slot_from_source(material, node, socket, depth=0):
    """UV slot an image's vector input comes from, following simple vector
    nodes upstream; None when unknown."""
    if node.name.startswith(NODE_PREFIX):
        m = re.match(re.escape(NODE_PREFIX) + r"(\d+) ", node.name)
        return int(m.group(1)) if m else None
    if node.type == "UVMAP":
        return uv_slot_of_name(material, node.uv_map)
    if node.type == "TEX_COORD":
        return _active_render_uv(material) if socket.identifier == "UV" else None
    if depth < 8 and node.inputs:
        sock = node.inputs[0]
        if sock.is_linked:
            link = sock.links[0]
            return _slot_from_source(material, link.from_node, link.from_socket, depth + 1)
    return None


def images_for_slot(material, tree, slot):
    """[(image node, socket now linked to its vector input or None)]."""
    out = []
    for node in tree.nodes:
        if node.type != "TEX_IMAGE":
            continue
        vec = node.inputs.get("Vector")
        if vec is None:
            continue
        if vec.is_linked:
            link = vec.links[0]
            s = _slot_from_source(material, link.from_node, link.from_socket)
            src = link.from_socket
        else:
            s = _active_render_uv(material)
            src = None
        if s == slot:
            out.append((node, src))
    return out


def ensure_chain(material, slot, notes):
    """The three chain nodes for a UV slot, created and linked between the
    UV source and the slot's image textures if missing."""
    tree = compat.material_node_tree(material)
    n_centre, n_a, n_b = node_names(slot)
    nodes, links = tree.nodes, tree.links
    images = images_for_slot(material, tree, slot)
    centre, a, b = nodes.get(n_centre), nodes.get(n_a), nodes.get(n_b)
    if centre is None or a is None or b is None:
        for n in (centre, a, b):
            if n is not None:
                nodes.remove(n)
        sources = [src for _img, src in images if src is not None]
        source = sources[0] if sources else None
        if len({s.as_pointer() for s in sources}) > 1:
            notes.append(f"material {material.name!r} UV slot {slot}: image textures with different vector "
                         f"inputs; the mapping takes the first one's")
        x = min((img.location.x for img, _ in images), default=0.0)
        y = max((img.location.y for img, _ in images), default=0.0)
        if source is None:
            uvnode = nodes.new("ShaderNodeUVMap")
            uvnode.name = uvnode.label = f"{NODE_PREFIX}{slot} UV"
            uvnode.uv_map = _uv_name_for_slot(material, slot)
            uvnode.location = (x - 900, y)
            source = uvnode.outputs["UV"]
        centre = nodes.new("ShaderNodeVectorMath")
        centre.operation = "SUBTRACT"
        a = nodes.new("ShaderNodeMapping")
        b = nodes.new("ShaderNodeMapping")
        for node, name, label, dx in ((centre, n_centre, "BTK centre", -700), (a, n_a, "BTK mapping A", -520),
                                      (b, n_b, "BTK mapping B", -300)):
            node.name = name
            node.label = f"{label} (UV {slot})"
            node.location = (x + dx, y)
        a.vector_type = "POINT"
        b.vector_type = "POINT"
        links.new(source, centre.inputs[0])
        links.new(centre.outputs[0], a.inputs["Vector"])
        links.new(a.outputs["Vector"], b.inputs["Vector"])
    out = b.outputs["Vector"]
    for img, src in images:
        if src is None or src.node != b:
            links.new(out, img.inputs["Vector"])
    if not images:
        notes.append(f"material {material.name!r}: no image texture reads UV slot {slot}; "
                     f"the mapping chain was added unconnected")
    return tree, centre, a, b


def _uv_name_for_slot(material, slot):
    for me in _meshes_using(material):
        if slot < len(me.uv_layers):
            return me.uv_layers[slot].name
    return ""  # the default UV map


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
        if track is None or len(track) == 0:
            plans.append(curves.plan_constant(path, comp, group, tm.start, const,
                                              ("btk", key, inp, comp, track, vs, vo, const)))
        else:
            cp, added = curves.plan_track(path, comp, group, track.bezier(vs, vo, tm.scale, tm.offset, flags=True), tm,
                                          ("btk", key, inp, comp, track, vs, vo, const))
            plans.append(cp)
            period_keys |= added
    return plans, period_keys


def set_static_values(anim, entry_index, entry, nodes):
    """Static values (z components, unanimated rotations) so that the chain
    is right even without the action."""
    # the values are gathered first and each socket is set once: every
    # set is an RNA update of the node tree
    values = {}
    for key in ("a", "b"):
        values[(key, "Rotation")] = [0.0, 0.0, 0.0]
        values[(key, "Location")] = [0.0, 0.0, 0.0]
        values[(key, "Scale")] = [1.0, 1.0, 1.0]
    values[("centre", 1)] = [0.0, 0.0, 0.0]
    for key, inp, comp, track, vs, vo, const in entry_channels(anim, entry_index, entry, anim.calc_type):
        value = values.get((key, inp))
        if value is None:
            value = values[(key, inp)] = list(nodes[key].inputs[inp].default_value)
        value[comp] = const if track is None or len(track) == 0 else track.evaluate(0.0)[0] * vs + vo
    for (key, inp), value in values.items():
        socket = nodes[key].inputs[inp]
        if list(socket.default_value) != value:
            socket.default_value = value


def apply_entry(anim, entry_index, entry, material, sink, tm, notes):
    """Builds / reuses the chain of the entry's slot and keys its inputs
    into sink (the action's channelbag of the material's node tree)."""
    slot = int(entry["texmtx_id"])
    tree, centre, a, b = ensure_chain(material, slot, notes)
    nodes = {"centre": centre, "a": a, "b": b}
    set_static_values(anim, entry_index, entry, nodes)
    b[CALC_TYPE_PROP] = anim.calc_type
    plans, period_keys = plan_entry(anim, entry_index, entry, tm, nodes)
    for cp in plans:
        curves.write_plan(sink, cp)
    return period_keys


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


def describe_entries(entries):
    return json.dumps([{"entry": i, "texmtx_id": e["texmtx_id"], "center": list(e["center"]),
                        "post": bool(e.get("post"))} for i, e in entries])
