"""Builds the TEV node groups that shared/tev_graph.py plans: one shader
node group per configuration (tev_graph.config), found again by name and
key so that materials and models with the same configuration share it.
Group sockets go through compat (tree.interface from 4.0)."""
from .. import compat
from ..shared import tev_graph

KEY_PROP = "gameanim_tev_key"  # on a group: repr of its configuration
_SOCKET_TYPES = {"FLOAT": "NodeSocketFloat", "VECTOR": "NodeSocketVector"}
_COLUMN, _ROW = 180, 160


def group_for(material_config):
    """The node group of a configuration, built on first use."""
    import bpy

    name = tev_graph.group_name(material_config)
    key = repr(material_config)
    tree = bpy.data.node_groups.get(name)
    if tree is not None and tree.get(KEY_PROP) == key:
        return tree
    return build(tev_graph.plan(material_config))


def build(plan):
    """A new shader node group from a plan."""
    import bpy

    tree = bpy.data.node_groups.new(plan.name, "ShaderNodeTree")
    tree[KEY_PROP] = repr(plan.key)
    for name, kind in plan.inputs:
        compat.new_group_socket(tree, name, "INPUT", _SOCKET_TYPES[kind])
    for name, kind in plan.outputs:
        compat.new_group_socket(tree, name, "OUTPUT", _SOCKET_TYPES[kind])
    nodes = {tev_graph.GROUP_INPUT: tree.nodes.new("NodeGroupInput"),
             tev_graph.GROUP_OUTPUT: tree.nodes.new("NodeGroupOutput")}
    for p in plan.nodes:
        node = tree.nodes.new(p.bl_idname)
        node.name = node.label = p.name
        if p.operation is not None:
            node.operation = p.operation
        for index, value in p.defaults.items():
            node.inputs[index].default_value = value
        nodes[p.name] = node
    links = tree.links
    for lk in plan.links:
        links.new(nodes[lk.src].outputs[lk.src_socket], nodes[lk.dst].inputs[lk.dst_socket])
    _lay_out(plan, nodes)
    return tree


def _lay_out(plan, nodes):
    """Columns by depth from the group input, so that the graph reads left
    to right."""
    depth = {tev_graph.GROUP_INPUT: 0}
    feeds = {}
    for lk in plan.links:
        feeds.setdefault(lk.dst, []).append(lk.src)
    rows = {}
    for p in plan.nodes:
        d = 1 + max((depth.get(s, 0) for s in feeds.get(p.name, ())), default=0)
        depth[p.name] = d
        rows[d] = rows.get(d, 0) + 1
        nodes[p.name].location = (d * _COLUMN, -rows[d] * _ROW)
    last = 1 + max(depth.values())
    nodes[tev_graph.GROUP_OUTPUT].location = (last * _COLUMN, 0)
    nodes[tev_graph.GROUP_INPUT].location = (-_COLUMN, 0)


def set_colour_inputs(node, konst_colors, tev_colors):
    """Sets a group node's register (C0-C2, PREV from TEV colour slot 3)
    and konst (K0-K3) inputs from RGBA values in 0..255 (registers
    signed): byte / 255, as the group reads them."""
    names = {s.name for s in node.inputs}
    pairs = list(zip(("C0", "C1", "C2", "PREV"), tev_colors or ())) + \
        list(zip(("K0", "K1", "K2", "K3"), konst_colors or ()))
    for name, rgba in pairs:
        if name in names:
            node.inputs[name].default_value = [v / 255.0 for v in rgba[:3]]
        if name + " Alpha" in names:
            node.inputs[name + " Alpha"].default_value = rgba[3] / 255.0
