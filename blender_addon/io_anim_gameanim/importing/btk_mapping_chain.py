"""BTK import: the texture-mapping chain of a material's UV slot (built
between the UV source and the slot's image textures), its static values,
and the keys of one entry (shared/material_mapping.py says what goes
where).  add_texture_mapping builds the same chain for materials keyed by
hand."""
import re

from .. import compat
from ..shared.material_mapping import CALC_TYPE_PROP, NODE_PREFIX, channel_specs, entry_channels, node_names, \
    plan_entry
from . import curve_writer

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


WRAP_GROUP_PREFIX = "gameanim TEV wrap"  # a coordinate wrapped in nodes before an image (tev_graph.wrap_plan)


def images_for_slot(material, tree, slot):
    """[(image node, socket now linked to its vector input or None)]; an
    image whose coordinate is wrapped in nodes gives its wrap group node
    instead (the mapping goes before the wrap, as the GX wraps the
    transformed coordinate)."""
    out = []
    for node in tree.nodes:
        if node.type != "TEX_IMAGE":
            continue
        vec = node.inputs.get("Vector")
        if vec is None:
            continue
        if vec.is_linked:
            wrap = vec.links[0].from_node
            if wrap.type == "GROUP" and wrap.node_tree is not None and \
                    wrap.node_tree.name.startswith(WRAP_GROUP_PREFIX):
                node, vec = wrap, wrap.inputs["Vector"]
                if any(n is node for n, _s in out):
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
        y = _free_row(nodes, x - 950, x - 100, max((img.location.y for img, _ in images), default=0.0))
        if source is None:
            uvnode = nodes.new("ShaderNodeUVMap")
            uvnode.name = uvnode.label = f"{NODE_PREFIX}{slot} UV"
            uvnode.uv_map = _uv_name_for_slot(material, slot)
            uvnode.location = (x - 900, y)
            uvnode.select = False
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
            node.select = False  # the user's selection in the editor stays theirs
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


# the area a chain occupies left of its images (node locations are top-left
# corners; a background Blender has no drawn sizes, so heights are estimated)
CHAIN_HEIGHT = 420.0  # a Mapping node is about 400 high


def _free_row(nodes, x0, x1, y):
    """The highest y <= the given one where a chain spanning x0..x1 overlaps
    no existing node: the chains of two UV slots, or a chain and the
    user's nodes, are laid out apart."""
    taken = [(n.location.x, n.location.y) for n in nodes if n.type != "FRAME"]
    while any(x0 - 200 < nx < x1 and y - CHAIN_HEIGHT < ny <= y + 150 for nx, ny in taken):
        y -= CHAIN_HEIGHT
    return y


def slot_is_read(material, slot):
    """Whether an image texture of the material reads the UV slot."""
    return bool(images_for_slot(material, compat.material_node_tree(material), slot))


def _uv_name_for_slot(material, slot):
    for me in _meshes_using(material):
        if slot < len(me.uv_layers):
            return me.uv_layers[slot].name
    return ""  # the default UV map



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
        curve_writer.write_plan(sink, cp)
    return period_keys



def add_texture_mapping(mat, slot=0, calc_type="basic", center=(0.5, 0.5)):
    """Adds (or resets) the mapping chain of a UV slot, holding the identity
    mapping of the calc type, ready to be keyed by hand; returns its nodes
    {'centre', 'a', 'b'}."""
    notes = []
    _tree, centre, a, b = ensure_chain(mat, slot, notes)
    nodes = {"centre": centre, "a": a, "b": b}
    for node in (a, b):
        node.inputs["Rotation"].default_value = (0.0, 0.0, 0.0)
        node.inputs["Location"].default_value = (0.0, 0.0, 0.0)
        node.inputs["Scale"].default_value = (1.0, 1.0, 1.0)
    centre.inputs[1].default_value = (0.0, 0.0, 0.0)
    for key, inp, comp, _ch, _vs, _vo, const in channel_specs(calc_type, center[0], center[1]):
        socket = nodes[key].inputs[inp]
        value = list(socket.default_value)
        value[comp] = const
        socket.default_value = value
    b[CALC_TYPE_PROP] = calc_type
    return nodes
