"""Builds the TEV node groups that shared/tev_graph.py plans: one shader
node group per configuration (tev_graph.config), and the small groups it
runs (input bytes, one per combiner kind, the output with the alpha
test), each found again by its key so that materials and models share
them.  Group sockets go through compat (tree.interface from 4.0)."""
from array import array

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
    new = tree.nodes.new
    nodes = {tev_graph.GROUP_INPUT: new("NodeGroupInput"), tev_graph.GROUP_OUTPUT: new("NodeGroupOutput")}
    # (nodes keep Blender's names: renaming each is a search of the tree)
    layouts = {}  # bl_idname or sub-group name -> input_layout
    for p in plan.nodes:
        node = new(p.bl_idname)
        if p.group is not None:
            node.node_tree = subs[p.group]
        if p.operation is not None and p.operation != "ADD":  # (ADD: a new Math node's own)
            node.operation = p.operation
        if p.defaults:
            kind = p.group or p.bl_idname
            if kind not in layouts:
                layouts[kind] = input_layout(node)
            set_inputs(node, p.defaults, layouts[kind], tag=False)
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
    # (the tree lists its nodes in the order they were made: nodes' order)
    flat = [c for name in nodes for c in where[name]]
    nodes[tev_graph.GROUP_INPUT].id_data.nodes.foreach_set("location", flat)


def colour_values(konst_colors, tev_colors):
    """{group input: value} of the register (C0-C2, PREV from TEV colour
    slot 3) and konst (K0-K3) inputs, from RGBA values in 0..255
    (registers signed): byte / 255, as the group reads them."""
    values = {}
    pairs = list(zip(("C0", "C1", "C2", "PREV"), tev_colors or ())) + \
        list(zip(("K0", "K1", "K2", "K3"), konst_colors or ()))
    for name, rgba in pairs:
        values[name] = [v / 255.0 for v in rgba[:3]]
        values[name + " Alpha"] = rgba[3] / 255.0
    return values


def set_colour_inputs(node, konst_colors, tev_colors):
    """Sets a group node's register and konst inputs (colour_values)."""
    set_inputs(node, colour_values(konst_colors, tev_colors))


def input_layout(node):
    """[(name, offset, size)] of a group node's inputs in the order that
    foreach_get lists their values, and the number of values; None when
    an input is neither a float nor a vector."""
    layout, at = [], 0
    for socket in node.inputs:
        size = _SIZES.get(socket.type)
        if size is None:
            return None
        layout.append((socket.name, at, size))
        at += size
    return layout, at


_SIZES = {"VALUE": 1, "VECTOR": 3, "RGBA": 4}


def set_inputs(node, values, layout=None, tag=True):
    """Sets a node's inputs {name or index: float or 3 floats} (names the
    node lacks are left out) in one foreach_set: a value set per socket
    runs Blender's update of the whole tree, ~50 us each in 5.0 (setting
    a material's ~16 colours was most of its build).  tag: then tag the
    tree for the depsgraph (a tree being built is updated by its next
    link anyway).  layout: input_layout(node), the same for every node of
    one type or group."""
    layout = layout or input_layout(node)
    if layout is None:
        names = {s.name for s in node.inputs}
        for name, value in values.items():
            if isinstance(name, int) or name in names:
                node.inputs[name].default_value = value
        return
    entries, total = layout
    flat = array("f", bytes(4 * total))
    node.inputs.foreach_get("default_value", flat)
    for index, (name, at, size) in enumerate(entries):
        value = values.get(name, values.get(index))
        if value is None:
            continue
        if size == 1:
            flat[at] = value
        elif isinstance(value, (int, float)):
            flat[at:at + size] = array("f", [value] * size)
        else:
            flat[at:at + len(value)] = array("f", value)
    node.inputs.foreach_set("default_value", flat)
    if tag:
        node.id_data.update_tag()
