"""Every difference between the Blender versions the add-on supports
(3.4 to 5.x) lives here, found by feature detection, never by version
number.  The rest of the add-on calls only these functions.  (The keys'
bulk writer, with its probe of how handle types can be written in this
Blender build, is bulk_keys.py.)

What differs:

* Slotted actions (4.4+): curves live in a channelbag of a slot of a
  layer's strip; the slot must be assigned to the animated ID explicitly.
  ``Action.fcurves`` / ``Action.groups`` are first-slot proxies in 4.4/4.5
  and gone in 5.0.
* ``ActionChannelbagFCurves.new`` takes ``group_name`` from 5.0 only.
* NLA strips carry an ``action_slot`` from 4.4.
* ``UILayout.panel`` and ``bpy.types.FileHandler`` from 4.1;
  ``ImportHelper.invoke_popup`` from 4.2.
* ``Material.use_nodes`` is deprecated in 5.0 (materials always have a
  node tree); only touched when a material has no tree.
* Bone collections (4.0+) replaced the 32 bone layers.
"""
from array import array

import bpy

HAS_SLOTS = "slots" in bpy.types.Action.bl_rna.properties
HAS_FILE_HANDLER = hasattr(bpy.types, "FileHandler")
HAS_LAYOUT_PANEL = "panel" in bpy.types.UILayout.bl_rna.functions
HAS_STRIP_SLOT = "action_slot" in bpy.types.NlaStrip.bl_rna.properties


def _fcurves_new_takes_group():
    if not HAS_SLOTS:
        return False
    fn = bpy.types.ActionChannelbagFCurves.bl_rna.functions["new"]
    return "group_name" in fn.parameters


FCURVES_NEW_TAKES_GROUP = _fcurves_new_takes_group()

def escape(name):
    return bpy.utils.escape_identifier(name)


# ---------------------------------------------------------------------------
# Actions, slots, channelbags


class CurveSink:
    """Where the curves of one animated ID go inside an action: the slot's
    channelbag (4.4+) or the action itself (legacy).  Keeps the groups it
    created so that each is made once."""

    def __init__(self, action, id_type, id_name):
        self.action = action
        self.id_type = id_type
        self.slot = None
        self._groups = {}
        if HAS_SLOTS:
            self.slot = action.slots.new(id_type=id_type, name=id_name or id_type.title())
            layer = action.layers[0] if len(action.layers) else action.layers.new("Layer")
            if len(layer.strips):
                strip = layer.strips[0]
            else:
                strip = layer.strips.new(type="KEYFRAME")
            self.bag = strip.channelbag(self.slot, ensure=True)
        else:
            action.id_root = id_type  # legacy actions animate one ID type
            self.bag = action
        self._new = self.bag.fcurves.new  # (one lookup for all the curves)

    def new_fcurve(self, data_path, index=0, group=""):
        """Creates a curve (once: callers keep their own table)."""
        if not HAS_SLOTS:
            if group:
                return self._new(data_path, index=index, action_group=group)
            return self._new(data_path, index=index)
        if FCURVES_NEW_TAKES_GROUP:
            return self._new(data_path, index=index, group_name=group)
        fc = self._new(data_path, index=index)
        if group:
            grp = self._groups.get(group)
            if grp is None:
                grp = self.bag.groups.get(group) or self.bag.groups.new(group)
                self._groups[group] = grp
            fc.group = grp
        return fc


def new_action(name, fake_user=False):
    action = bpy.data.actions.new(name)
    action.use_fake_user = fake_user
    return action


def replace_action(old, sink):
    """Every user of `old` (active actions, NLA strips) gets sink's action
    instead, with its slot where users have one (the new action's slot of
    the same identifier as the user's old one, else sink's); then `old` is
    removed."""
    new = sink.action
    had = {}  # user's pointer -> the identifier of the old slot it used
    if HAS_SLOTS:
        for user in _slot_users(old):
            if user.action_slot is not None:
                had[user.as_pointer()] = user.action_slot.identifier
    old.user_remap(new)
    if HAS_SLOTS and sink.slot is not None:
        by_id = {s.identifier: s for s in new.slots}
        for user in _slot_users(new):
            user.action_slot = by_id.get(had.get(user.as_pointer()), sink.slot)
    bpy.data.actions.remove(old)


def _slot_users(action):
    """The animation data and NLA strips (4.4+) that use `action`."""
    for ob in bpy.data.objects:
        for ad in _animation_datas(ob):
            if ad.action == action:
                yield ad
            if HAS_STRIP_SLOT:
                for track in ad.nla_tracks:
                    for strip in track.strips:
                        if strip.action == action:
                            yield strip


def slot_identifier(slot):
    """A slot's identifier (None: no slots before 4.4)."""
    return slot.identifier if slot is not None else None


def slot_named(action, identifier):
    """The slot of `action` with that identifier (None: none, or no slots)."""
    if not HAS_SLOTS or not identifier:
        return None
    return next((s for s in action.slots if s.identifier == identifier), None)


def _animation_datas(ob):
    """The animation data of an object and of its materials' node trees."""
    if ob.animation_data is not None:
        yield ob.animation_data
    for slot in getattr(ob, "material_slots", ()):
        tree = slot.material.node_tree if slot.material is not None else None
        if tree is not None and tree.animation_data is not None:
            yield tree.animation_data


def assign(owner, sink):
    """Makes `sink`'s action (and slot) the active animation of owner.
    Returns the action it replaced when nothing else kept that one (it
    then gets a fake user, so that saving the file does not drop it), else
    None."""
    ad = owner.animation_data or owner.animation_data_create()
    prev = ad.action
    kept = None
    if prev is not None and prev != sink.action and not prev.use_fake_user and prev.users <= 1:
        prev.use_fake_user = True
        kept = prev
    ad.action = sink.action
    if HAS_SLOTS and sink.slot is not None:
        # never rely on automatic slot picking: it can leave the action
        # assigned but animating nothing
        ad.action_slot = sink.slot
    return kept


def assigned_slot(owner):
    ad = owner.animation_data
    if ad is None or not HAS_SLOTS:
        return None
    return ad.action_slot


def stash(owner, sink, start_frame, name=None):
    """Puts the action on a new muted NLA track of owner (the glTF
    importer's "stash"), with its slot where strips have one; an action
    already on one of owner's strips keeps that one."""
    ad = owner.animation_data or owner.animation_data_create()
    for track in ad.nla_tracks:
        for strip in track.strips:
            if strip.action == sink.action:  # (a re-import took over the strip of the action it replaced)
                if HAS_STRIP_SLOT and sink.slot is not None:
                    strip.action_slot = sink.slot
                return track
    track = ad.nla_tracks.new()
    track.name = name or sink.action.name
    strip = track.strips.new(sink.action.name, int(round(start_frame)), sink.action)
    if HAS_STRIP_SLOT and sink.slot is not None:
        strip.action_slot = sink.slot
    track.mute = True
    return track


def action_fcurves(action, slot=None):
    """All F-curves of an action (of one slot when given)."""
    if not HAS_SLOTS:
        return list(action.fcurves)
    out = []
    for layer in action.layers:
        for strip in layer.strips:
            for bag in strip.channelbags:
                if slot is None or bag.slot == slot:
                    out.extend(bag.fcurves)
    return out


def action_slots(action):
    return list(action.slots) if HAS_SLOTS else []


def action_id_types(action):
    """The ID types an action is for: its slots' target types (4.4+),
    else its `id_root` (before 4.4; removed in 5.0)."""
    if HAS_SLOTS:
        return {s.target_id_type for s in action.slots}
    return {getattr(action, "id_root", "OBJECT")}


def slot_for(action, owner=None, id_type="OBJECT"):
    """The slot of `action` that animates `owner` (4.4+; None before): the
    owner's assigned slot when the action is its active action, else the
    slot named after the owner, else the first slot of that ID type."""
    if not HAS_SLOTS:
        return None
    ad = getattr(owner, "animation_data", None) if owner is not None else None
    if ad is not None and ad.action == action and ad.action_slot is not None:
        return ad.action_slot
    slots = [s for s in action.slots if s.target_id_type in (id_type, "UNSPECIFIED")]
    if owner is not None:
        named = [s for s in slots if s.name_display == owner.name]
        if named:
            return named[0]
    return slots[0] if slots else None


def owner_fcurves(action, owner=None, id_type="OBJECT", slot_id=None):
    """{(data_path, index): F-curve} of the curves that animate `owner`
    (every curve of a legacy action); slot_id: the slot's identifier, when
    the action records which slot is the owner's."""
    if HAS_SLOTS:
        slot = slot_named(action, slot_id) or slot_for(action, owner, id_type)
        fcs = action_fcurves(action, slot) if slot is not None else []
    else:
        fcs = list(action.fcurves)
    return {(fc.data_path, fc.array_index): fc for fc in fcs}


def users_of(action, id_type="OBJECT"):
    """IDs whose active action or NLA strips use `action` (objects, or the
    node trees of materials for NODETREE)."""
    import bpy

    if id_type == "NODETREE":
        owners = [m.node_tree for m in bpy.data.materials if m.node_tree is not None]
    elif id_type == "MATERIAL":
        owners = list(bpy.data.materials)
    else:
        owners = list(bpy.data.objects)
    active, stashed = [], []
    for owner in owners:
        ad = owner.animation_data
        if ad is None:
            continue
        if ad.action == action:
            active.append(owner)
        elif any(s.action == action for t in ad.nla_tracks for s in t.strips):
            stashed.append(owner)
    return active + stashed


def scene_fps(scene):
    return scene.render.fps / scene.render.fps_base


# ---------------------------------------------------------------------------
# Materials and node trees


def material_node_tree(material):
    """The material's shader node tree, creating it on versions where a
    material can be without one."""
    if material.node_tree is None and "use_nodes" in material.bl_rna.properties:
        material.use_nodes = True
    return material.node_tree


def node_tree_id_type():
    return "NODETREE"


def new_color_mix(tree):
    """A Mix node mixing colours (ShaderNodeMix, 3.4 and later)."""
    node = tree.nodes.new("ShaderNodeMix")
    node.data_type = "RGBA"
    node.blend_type = "MIX"
    return node


def color_mix_sockets(node):
    """(factor, A, B, result) of a colour Mix node: the sockets of the
    colour variant (the node holds one set per data type)."""
    fac = next(s for s in node.inputs if s.type == "VALUE" and s.name in ("Factor", "Fac"))
    a, b = [s for s in node.inputs if s.type == "RGBA"][:2]
    res = next(s for s in node.outputs if s.type == "RGBA")
    return fac, a, b, res


def new_float_mix(tree):
    """A Mix node mixing floats (ShaderNodeMix, 3.4 and later)."""
    node = tree.nodes.new("ShaderNodeMix")
    node.data_type = "FLOAT"
    return node


def float_mix_sockets(node):
    """(factor, A, B, result) of a float Mix node (sockets by identifier:
    the node holds one set per data type)."""
    ins = {s.identifier: s for s in node.inputs}
    outs = {s.identifier: s for s in node.outputs}
    return ins["Factor_Float"], ins["A_Float"], ins["B_Float"], outs["Result_Float"]


# ---------------------------------------------------------------------------
# Armatures

HAS_BONE_COLLECTIONS = hasattr(bpy.types, "BoneCollection")
# (3.0+: a custom shape's own rotation, offset and scale in the bone)
HAS_SHAPE_TRANSFORM = "custom_shape_rotation_euler" in bpy.types.PoseBone.bl_rna.properties
HIDDEN_LAYER = 31  # (3.x: the bone layer that hidden helper bones go to)


def hide_bones(arm, bone_names, collection_name):
    """Hides bones from the user: bone.hide, and a hidden bone collection
    (4.0+) or the last bone layer, switched off (3.x)."""
    if HAS_BONE_COLLECTIONS:
        coll = arm.collections.get(collection_name) or arm.collections.new(collection_name)
        coll.is_visible = False
        for name in bone_names:
            bone = arm.bones[name]
            for other in list(bone.collections):
                other.unassign(bone)  # (a bone in any visible collection shows)
            coll.assign(bone)
    else:
        layers = [i == HIDDEN_LAYER for i in range(32)]
        for name in bone_names:
            arm.bones[name].layers = layers
        arm.layers[HIDDEN_LAYER] = False
    for name in bone_names:
        arm.bones[name].hide = True


# ---------------------------------------------------------------------------
# UI


def draw_section(layout, idname, title, default_closed=False, toggle=None):
    """A collapsible section: layout.panel (4.1+, which keeps its open
    state per idname), else a box whose header is the boolean
    toggle = (holder, property name) drawn with a disclosure triangle (its
    default says whether the section starts open; default_closed is then
    not used); a fixed box without one.  Returns the layout to draw into,
    or None when closed."""
    if HAS_LAYOUT_PANEL:
        header, body = layout.panel(idname, default_closed=default_closed)
        header.label(text=title)
        return body
    box = layout.box()
    if toggle is None or toggle[0] is None:
        box.label(text=title)
        return box.column()
    holder, name = toggle
    is_open = bool(getattr(holder, name))
    row = box.row(align=True)
    row.alignment = "LEFT"
    row.use_property_split = False  # (else the title sits in the label column, the triangle apart)
    row.prop(holder, name, text=title, emboss=False, icon="DISCLOSURE_TRI_DOWN" if is_open else "DISCLOSURE_TRI_RIGHT")
    return box.column() if is_open else None


def invoke_import(op, context, event, helper_cls):
    """File browser for the menu entry; a dialog for drag and drop
    (directory and files already filled in, 4.1+)."""
    if getattr(op, "directory", "") and len(getattr(op, "files", ())) and hasattr(helper_cls, "invoke_popup"):
        return helper_cls.invoke_popup(op, context)
    return helper_cls.invoke(op, context, event)


def status_text(context, text):
    """Sets (None: clears) the status bar text; it shows at the window's
    next repaint (window_progress.py decides when to force one)."""
    ws = getattr(context, "workspace", None)
    if ws is None or bpy.app.background:
        return
    try:
        ws.status_text_set(text)
    except (AttributeError, RuntimeError):
        pass


def redraw_window(context):
    """Repaints the window now, from inside an operator (the one way to:
    redraw_timer): the regions tagged for it, such as the status bar after
    status_text, then the swap.  With no area and region in the context it
    tags none of its own (with them, DRAW_SWAP would redraw the 3D view
    too; DRAW_WIN_SWAP redraws every region: twice the cost).  Still costly
    (about a second in a software-rendered window): callers throttle it."""
    if bpy.app.background or getattr(context, "window", None) is None:
        return
    try:
        with context.temp_override(window=context.window, area=None, region=None):
            bpy.ops.wm.redraw_timer(type="DRAW_SWAP", iterations=1)
    except (RuntimeError, TypeError, AttributeError):
        pass


# ---------------------------------------------------------------------------
# Meshes

_LOOP_TOTAL_WRITABLE = not bpy.types.MeshPolygon.bl_rna.properties["loop_total"].is_readonly


def set_loop_totals(mesh, count, size=3):
    """Polygon sizes after loop_start (3.x: written; 4.0+: read-only,
    derived from the starts)."""
    if _LOOP_TOTAL_WRITABLE:
        mesh.polygons.foreach_set("loop_total", array("i", [size]) * count)


def corner_normals(mesh):
    """The mesh's normal at each face corner, flat xyz (array 'f'), custom
    normals included: corner_normals from 4.1; before, loops' normals after
    calc_normals_split."""
    if hasattr(mesh, "corner_normals"):
        flat = array("f", bytes(12 * len(mesh.corner_normals)))
        mesh.corner_normals.foreach_get("vector", flat)
    else:
        mesh.calc_normals_split()
        flat = array("f", bytes(12 * len(mesh.loops)))
        mesh.loops.foreach_get("normal", flat)
    return flat


def set_custom_normals(mesh, normals):
    """Per-vertex custom normals (flat xyz): 3.x-4.0 need auto smooth on;
    4.1+ have custom normals without it."""
    if hasattr(mesh, "use_auto_smooth"):
        mesh.use_auto_smooth = True
    mesh.polygons.foreach_set("use_smooth", array("b", [1]) * len(mesh.polygons))
    it = iter(normals)
    mesh.normals_split_custom_set_from_vertices(list(zip(it, it, it)))


# ---------------------------------------------------------------------------
# Materials and images

_EXTENSIONS = set(bpy.types.ShaderNodeTexImage.bl_rna.properties["extension"].enum_items.keys())
_WRAP = {"repeat": "REPEAT", "clamp": "EXTEND", "mirror": "MIRROR"}


def image_extension(wrap):
    """Image texture extension of a GX wrap mode (MIRROR: Blender 3.5+;
    REPEAT before)."""
    ext = _WRAP.get(wrap, "REPEAT")
    return ext if ext in _EXTENSIONS else "REPEAT"


def image_wraps_in_node(wrap_s, wrap_t):
    """True when an Image Texture node's extension cannot wrap a texture as
    the GX does: the two axes differ, or mirror before Blender 3.5 (no
    MIRROR extension); the coordinate is then wrapped in nodes."""
    return wrap_s != wrap_t or _WRAP.get(wrap_s, "REPEAT") not in _EXTENSIONS


def pack_image(image):
    """Packs a generated image into the .blend (3.x needs as_png)."""
    try:
        image.pack()
    except (RuntimeError, TypeError):
        image.pack(as_png=True)


def set_material_alpha(material, mode, threshold=0.5):
    """mode 'BLEND', 'CLIP' or None (opaque).  4.2+: surface_render_method
    (blended or dithered: clipping comes from the alpha itself); before:
    blend_method and alpha_threshold."""
    if hasattr(material, "surface_render_method"):
        material.surface_render_method = "BLENDED" if mode == "BLEND" else "DITHERED"
        return
    material.blend_method = {"BLEND": "BLEND", "CLIP": "CLIP"}.get(mode, "OPAQUE")
    if mode == "CLIP":
        material.alpha_threshold = threshold


# ---------------------------------------------------------------------------
# Node groups

# (4.0+: a node tree's sockets live in tree.interface; before, in
# tree.inputs and tree.outputs)
HAS_TREE_INTERFACE = "interface" in bpy.types.NodeTree.bl_rna.properties


def new_group_socket(tree, name, in_out, socket_type):
    """Adds an input ('INPUT') or output ('OUTPUT') socket of type
    socket_type ('NodeSocketFloat', 'NodeSocketVector', ...) to a node
    group's interface; returns the interface socket."""
    if HAS_TREE_INTERFACE:
        return tree.interface.new_socket(name=name, in_out=in_out, socket_type=socket_type)
    sockets = tree.inputs if in_out == "INPUT" else tree.outputs
    return sockets.new(socket_type, name)
