"""Builds the TEV node groups that shared/tev_graph.py plans: one shader
node group per configuration (tev_graph.config), and the small groups it
runs (input bytes, one per combiner kind, the output with the alpha
test), each found again by its key so that materials and models share
them.  Group sockets go through compat (tree.interface from 4.0)."""
from .. import compat
from ..shared import tev_graph

KEY_PROP = "gameanim_tev_key"  # on a group: repr of its configuration
_SOCKET_TYPES = {"FLOAT": "NodeSocketFloat", "VECTOR": "NodeSocketVector"}
_COLUMN, _ROW = 180, 160


def group_for(material_config):
    """The node group of a configuration, built on first use."""
    return ensure(tev_graph.plan(material_config))


def ensure(plan):
    """The node group of a plan: the one already built (same name, or
    renamed, with the same key), else a new one."""
    import bpy

    key = repr(plan.key)
    tree = bpy.data.node_groups.get(plan.name)
    if tree is not None and tree.get(KEY_PROP) == key:
        return tree
    for tree in bpy.data.node_groups:
        if tree.get(KEY_PROP) == key:
            return tree
    return build(plan)


def build(plan):
    """A new shader node group from a plan (and the groups it runs, where
    they do not exist yet)."""
    import bpy

    subs = {name: ensure(sub) for name, sub in plan.groups.items()}
    tree = bpy.data.node_groups.new(plan.name, "ShaderNodeTree")
    tree[KEY_PROP] = repr(plan.key)
    for name, kind in plan.inputs:
        compat.new_group_socket(tree, name, "INPUT", _SOCKET_TYPES[kind])
    for name, kind in plan.outputs:
        compat.new_group_socket(tree, name, "OUTPUT", _SOCKET_TYPES[kind])
    nodes = {tev_graph.GROUP_INPUT: tree.nodes.new("NodeGroupInput"),
             tev_graph.GROUP_OUTPUT: tree.nodes.new("NodeGroupOutput")}
    # (nodes keep Blender's names: renaming each is a search of the tree)
    for p in plan.nodes:
        node = tree.nodes.new(p.bl_idname)
        if p.group is not None:
            node.node_tree = subs[p.group]
        if p.operation is not None:
            node.operation = p.operation
        for socket, value in p.defaults.items():
            node.inputs[socket].default_value = value
        nodes[p.name] = node
    links = tree.links
    for lk in plan.links:
        links.new(nodes[lk.src].outputs[lk.src_socket], nodes[lk.dst].inputs[lk.dst_socket])
    _lay_out(plan, nodes)
    return tree


def _lay_out(plan, nodes):
    """Columns by depth from the group input, so that the graph reads left
    to right (one foreach_set: setting each location runs an update)."""
    depth = {tev_graph.GROUP_INPUT: 0}
    feeds = {}
    for lk in plan.links:
        feeds.setdefault(lk.dst, []).append(lk.src)
    rows = {}
    where = {tev_graph.GROUP_INPUT: (-_COLUMN, 0)}
    for p in plan.nodes:
        d = 1 + max((depth.get(s, 0) for s in feeds.get(p.name, ())), default=0)
        depth[p.name] = d
        rows[d] = rows.get(d, 0) + 1
        where[p.name] = (d * _COLUMN, -rows[d] * _ROW)
    where[tev_graph.GROUP_OUTPUT] = ((1 + max(depth.values())) * _COLUMN, 0)
    by_node = {nodes[name].as_pointer(): xy for name, xy in where.items()}
    tree = nodes[tev_graph.GROUP_INPUT].id_data
    flat = [c for n in tree.nodes for c in by_node.get(n.as_pointer(), (0.0, 0.0))]
    tree.nodes.foreach_set("location", flat)


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
