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


def entry_channels(anim, entry_index, entry, calc_type):
    """[(node key, input name, component, track or None, value scale, value
    offset, constant)] for the 13 keyed chain inputs of one entry."""
    cx, cy = entry["center"][0], entry["center"][1]
    find = anim.find
    sx, sy = find(entry_index, "scale", 0), find(entry_index, "scale", 1)
    rot = find(entry_index, "rotation", 2)
    tx, ty = find(entry_index, "translation", 0), find(entry_index, "translation", 1)
    if calc_type == "maya":
        return [
            ("centre", 1, 0, None, 1, 0, 0.0), ("centre", 1, 1, None, 1, 0, 0.0),
            ("a", "Scale", 0, sx, 1, 0, 1.0), ("a", "Scale", 1, sy, 1, 0, 1.0),
            ("a", "Location", 0, tx, 1, -0.5, -0.5), ("a", "Location", 1, ty, 1, -0.5, -0.5),
            ("a", "Rotation", 2, None, 1, 0, 0.0),
            ("b", "Rotation", 2, rot, 1, 0, 0.0),
            ("b", "Location", 0, None, 1, 0, 0.5), ("b", "Location", 1, None, 1, 0, 0.5),
            ("b", "Scale", 0, None, 1, 0, 1.0), ("b", "Scale", 1, None, 1, 0, 1.0),
        ]
    cbv = 1.0 - cy
    return [
        ("centre", 1, 0, None, 1, 0, cx), ("centre", 1, 1, None, 1, 0, cbv),
        ("a", "Rotation", 2, rot, -1, 0, 0.0),
        ("a", "Scale", 0, None, 1, 0, 1.0), ("a", "Scale", 1, None, 1, 0, 1.0),
        ("a", "Location", 0, None, 1, 0, 0.0), ("a", "Location", 1, None, 1, 0, 0.0),
        ("b", "Scale", 0, sx, 1, 0, 1.0), ("b", "Scale", 1, sy, 1, 0, 1.0),
        ("b", "Location", 0, tx, 1, cx, cx), ("b", "Location", 1, ty, -1, cbv, cbv),
        ("b", "Rotation", 2, None, 1, 0, 0.0),
    ]


def apply_entry(anim, entry_index, entry, material, sink, tm, notes):
    """Builds / reuses the chain of the entry's slot and keys its inputs
    into sink (the action's channelbag of the material's node tree)."""
    slot = int(entry["texmtx_id"])
    tree, centre, a, b = ensure_chain(material, slot, notes)
    nodes = {"centre": centre, "a": a, "b": b}
    # static values (z components, unanimated rotations) so that the chain
    # is right even without the action
    for node in (a, b):
        node.inputs["Rotation"].default_value = (0.0, 0.0, 0.0)
        node.inputs["Location"].default_value = (0.0, 0.0, 0.0)
        node.inputs["Scale"].default_value = (1.0, 1.0, 1.0)
    centre.inputs[1].default_value = (0.0, 0.0, 0.0)
    period_keys = False
    group = f"UV {slot}"
    for key, inp, comp, track, vs, vo, const in entry_channels(anim, entry_index, entry, anim.calc_type):
        socket = nodes[key].inputs[inp]
        value = list(socket.default_value)
        value[comp] = const if track is None or len(track) == 0 else track.evaluate(0.0)[0] * vs + vo
        socket.default_value = value
        fc = sink.new_fcurve(_socket_path(socket), comp, group)
        if track is None or len(track) == 0:
            curves.write_constant_curve(fc, tm.start, const)
        else:
            period_keys |= curves.write_track_curve(fc, track.bezier(vs, vo, tm.scale, tm.offset), tm)
    return period_keys


def entries_by_material(anim):
    """{material name: [(entry index, entry)]} in file order."""
    out = {}
    for i, e in enumerate(anim.entries or []):
        out.setdefault(e["material"], []).append((i, e))
    return out


def describe_entries(entries):
    return json.dumps([{"entry": i, "texmtx_id": e["texmtx_id"], "center": list(e["center"]),
                        "post": bool(e.get("post"))} for i, e in entries])
