"""Materials and images of a J3D model (Model.materials, Model.textures):
one Blender material per MAT3 material, named as in the file, that
computes what the TEV computes: the shared node group of its
configuration (importing/tev_nodes.py, shared/tev_graph.py) with its
colours as the group node's inputs, each stage's texture sampled outside
the group (packed, Non-Color, channel-packed alpha, the TEX1 wrap and
filter) through a *UV Map* node (the chain that the BTK import finds:
importing/material.py), each stage's rasterised colour from the CLR
colour attribute or the material colour register, and the end of the
pipeline (alpha test, blending) in front of an Emission shader
(docs/blender.md, Materials)."""
import json
from functools import lru_cache

from .. import compat
from ..shared import kind_mapping, model_rig, tev_graph
from . import tev_nodes

MATERIAL_PROP = model_rig.MESH_MATERIAL_PROP  # on a material: its MAT3 index
TEXTURE_PROP = model_rig.TEXTURE_PROP          # on an image: its TEX1 index
MODEL_PROP = model_rig.OWNER_MODEL_PROP        # on the images and materials of one model import: its name
TEXMAP_NODE = "gameanim texmap"      # + " <n>": the Image Texture node of texmap n (what a BTP switches)
GROUP_NODE = kind_mapping.TEV_GROUP_NODE  # the material's TEV group node
MAT_COLOR_INPUTS_PROP = kind_mapping.MAT_COLOR_INPUTS_PROP  # JSON: the inputs material colour 0 feeds
CULL_NODE = "gameanim cull"          # in an end group: the Mix Shader that hides the culled side
END_NODE = "gameanim end"            # the material's end group node (end_group)
SRGB_NODE = "gameanim sRGB"          # in an end group: the sRGB-to-linear group node
LIT_NODE = "gameanim lit"            # + " <k>": colour channel k's group node (lighting in nodes)
LIGHT_GROUP = "gameanim TEV light"   # the shared group of the light: its direction and colour
LIGHT_DIRECTION_NODE = "gameanim light direction"  # in LIGHT_GROUP: Combine XYZ, towards the light (world)
LIGHT_COLOR_NODE = "gameanim light color"          # in LIGHT_GROUP: Combine XYZ, the light's colour (0..1)
DEFAULT_LIGHT = (0.3, -0.7, 0.6)     # towards the light without a sun: front (-Y), above, right (normalised)
LIGHTING = ("NODES", "NONE")
DEPTH_TEST_OFF_PROP = "gameanim_depth_test_off"  # on a material drawn with the depth test off (z_mode.test)
_COMPARE = {"NEVER": lambda a, r: False, "LESS": lambda a, r: a < r, "EQUAL": lambda a, r: a == r,
            "LEQUAL": lambda a, r: a <= r, "GREATER": lambda a, r: a > r, "NEQUAL": lambda a, r: a != r,
            "GEQUAL": lambda a, r: a >= r, "ALWAYS": lambda a, r: True}
UNLIT = "lighting (unlit: a lit channel shows its material colour, an SRTG ramp its lit end)"
ATTENUATION = "light attenuation (none applied)"
_LOGIC = {"AND": lambda p, q: p and q, "OR": lambda p, q: p or q, "XOR": lambda p, q: p != q,
          "XNOR": lambda p, q: p == q}


def _image(bpy, tex, index, stem):
    """A packed image of a TEX1 record, rows bottom-up as Blender keeps
    them (Texture.pixels is top row first); Non-Color and channel-packed,
    so that the group reads the texture's own bytes."""
    name = tex.name or f"{stem}_tex_{index}"
    img = bpy.data.images.new(name, tex.width, tex.height, alpha=True)
    img.colorspace_settings.name = "Non-Color"
    img.alpha_mode = "CHANNEL_PACKED"  # (colour kept where alpha is 0)
    w4 = 4 * tex.width
    px = tex.pixels
    rows = [px[r * w4:(r + 1) * w4] for r in range(tex.height - 1, -1, -1)]
    flat = b"".join(rows)
    img.pixels.foreach_set([b / 255.0 for b in flat])
    img.update()
    img[TEXTURE_PROP] = index
    compat.pack_image(img)
    return img


def alpha_test_passes_always(mat):
    """True when the alpha test passes for every 8-bit alpha."""
    ac = mat.alpha_compare
    return True if ac is None else _passes_always(ac.comp0, ac.ref0, ac.op, ac.comp1, ac.ref1)


@lru_cache(maxsize=None)
def _passes_always(comp0, ref0, op, comp1, ref1):
    c0, c1, logic = _COMPARE[comp0], _COMPARE[comp1], _LOGIC[op]
    return all(logic(c0(a, ref0), c1(a, ref1)) for a in range(256))


def blend_kind(mat):
    """'ADD' (the framebuffer plus the colour), 'BLEND' (alpha blending)
    or None (opaque; also logic ops and subtraction, noted)."""
    b = mat.blend
    if b is None or b.type != "BLEND":
        return None
    if b.dst == "ONE":
        return "ADD"
    if b.src == "ONE" and b.dst == "ZERO":
        return None
    return "BLEND"


def _normalised(v):
    n = sum(x * x for x in v) ** 0.5
    return tuple(x / n for x in v) if n > 1e-12 else _normalised(DEFAULT_LIGHT)


def scene_sun_direction(scene):
    """The direction towards the scene's first sun (its local +Z in world
    space: a sun shines along its -Z), or None without one."""
    for ob in sorted(scene.objects, key=lambda o: o.name):
        if ob.type == "LIGHT" and ob.data is not None and ob.data.type == "SUN":
            m = ob.matrix_world
            return _normalised((m[0][2], m[1][2], m[2][2]))
    return None


def light_group(scene=None):
    """The shared group that every node-lit material reads (outputs Light:
    the unit direction towards the light in world space, and Light Color),
    made on first use with the direction of the scene's first sun, else
    DEFAULT_LIGHT; an import into a scene with a sun points it at that
    sun again.  Editing its two Combine XYZ nodes relights every
    material."""
    import bpy

    tree = bpy.data.node_groups.get(LIGHT_GROUP)
    sun = scene_sun_direction(scene) if scene is not None else None
    if tree is None or tree.nodes.get(LIGHT_DIRECTION_NODE) is None:
        tree = bpy.data.node_groups.new(LIGHT_GROUP, "ShaderNodeTree")
        compat.new_group_socket(tree, "Light", "OUTPUT", "NodeSocketVector")
        compat.new_group_socket(tree, "Light Color", "OUTPUT", "NodeSocketVector")
        out = tree.nodes.new("NodeGroupOutput")
        out.location = (200, 0)
        for name, socket, y in ((LIGHT_DIRECTION_NODE, "Light", 0), (LIGHT_COLOR_NODE, "Light Color", -200)):
            node = tree.nodes.new("ShaderNodeCombineXYZ")
            node.name = node.label = name
            node.location = (0, y)
            tree.links.new(node.outputs[0], out.inputs[socket])
        set_light(direction=sun or DEFAULT_LIGHT, color=(1.0, 1.0, 1.0))
    elif sun is not None:
        set_light(direction=sun)
    return tree


def set_light(direction=None, color=None):
    """Points the shared light (light_group) towards `direction` (world
    space, normalised here) and/or sets its colour (0..1)."""
    import bpy

    tree = bpy.data.node_groups[LIGHT_GROUP]
    for name, value in ((LIGHT_DIRECTION_NODE, direction and _normalised(direction)), (LIGHT_COLOR_NODE, color)):
        if value is not None:
            node = tree.nodes[name]
            for i in range(3):
                node.inputs[i].default_value = value[i]


def tex_matrix(mat, tg):
    """The TexMatrix record a texgen names (TEXMTX<n>), or None (identity,
    a position matrix, or no record)."""
    m = tg.matrix
    if not isinstance(m, str) or not m.startswith("TEXMTX"):
        return None
    n = int(m[6:])
    mats = mat.tex_matrices or ()
    return mats[n] if n < len(mats) else None


class _Builder:
    """The nodes of one material around its group node."""

    def __init__(self, tree, mat, textures, images, stem, approximated, lighting="NODES"):
        self.tree, self.mat, self.textures, self.images = tree, mat, textures, images
        self.stem, self.approximated, self.lighting = stem, approximated, lighting
        self._uv = {}
        self._samples = {}
        self._colour_attrs = {}
        self._lit = {}
        self._shared = {}

    def new(self, idname, x, y):
        node = self.tree.nodes.new(idname)
        node.location = (x, y)
        node.select = False
        return node

    def _vector(self, coord):
        """The texture coordinate a texgen gives, as a node output (None:
        the UV map the texgen names is absent)."""
        texgens = self.mat.texgens
        tg = texgens[coord] if coord is not None and 0 <= coord < len(texgens) else None
        if tg is not None and tg.type == "SRTG" and self.lighting == "NODES":
            # (s, t) = (R, G) / 255 of the channel's colour (notes 4): the
            # vector (R, 1 - G, 0), as v = 1 - t
            key = ("srtg", coord)
            if key not in self._uv:
                node = self.new("ShaderNodeVectorMath", -1200, -300 * len(self._uv))
                node.operation = "MULTIPLY_ADD"
                self.tree.links.new(self.lit(1 if tg.source == "COLOR1" else 0).outputs["Color"], node.inputs[0])
                node.inputs[1].default_value = (1.0, -1.0, 0.0)
                node.inputs[2].default_value = (0.0, 1.0, 0.0)
                self._uv[key] = node
            return self._uv[key], 0
        if tg is not None and tg.type == "SRTG":
            # unlit (notes 5.4 option 1): the lit end of the ramp, the
            # centre of its last texel in s and first row in t
            self.approximated.add(UNLIT)
            node = self.new("ShaderNodeCombineXYZ", -1200, -300 * len(self._uv))
            self._uv[("srtg", coord)] = node
            return node, 0
        if tg is not None and tg.source in ("NRM", "POS"):
            return self._from_geometry(coord, tg), "Vector"
        name = "UV0"
        if tg is not None and tg.source.startswith("TEX") and not tg.source.startswith("TEXCOORD"):
            name = "UV" + tg.source[3:]
        elif tg is not None:
            self.approximated.add(f"{tg.source} texgens (read UV0)")
        if name not in self._uv:
            node = self.new("ShaderNodeUVMap", -1200, -300 * len(self._uv))
            node.uv_map = name
            self._uv[name] = node
        return self._uv[name], "UV"

    def texture(self, stage):
        """The Image Texture node a stage samples, or None (a null texmap)."""
        slots = self.mat.textures
        tmap = stage.tex_map
        index = slots[tmap] if tmap is not None and 0 <= tmap < len(slots) else -1
        if not 0 <= index < len(self.textures):
            return None
        key = (index, stage.tex_coord)
        if key in self._samples:
            return self._samples[key]
        tex = self.textures[index]
        if index not in self.images:
            import bpy

            self.images[index] = _image(bpy, tex, index, self.stem)
        node = self.new("ShaderNodeTexImage", -700, -300 * len(self._samples))
        node.name = f"{TEXMAP_NODE} {tmap}"
        node.label = f"texmap {tmap}"
        node.image = self.images[index]
        node.interpolation = "Closest" if tex.mag_filter == 0 else "Linear"
        src, socket = self._vector(stage.tex_coord)
        if src.bl_idname == "ShaderNodeCombineXYZ":
            src.inputs[0].default_value = 1.0 - 0.5 / tex.width
            src.inputs[1].default_value = 0.5 / tex.height
        if compat.image_wraps_in_node(tex.wrap_s, tex.wrap_t):
            # (Linear filtering does not blend across a repeat seam here)
            node.extension = "EXTEND"
            wrap = self.new("ShaderNodeGroup", -950, node.location[1])
            wrap.node_tree = tev_nodes.ensure(tev_graph.wrap_plan(tex.wrap_s, tex.wrap_t))
            self.tree.links.new(src.outputs[socket], wrap.inputs["Vector"])
            src, socket = wrap, "Vector"
        else:
            node.extension = compat.image_extension(tex.wrap_s)
        self.tree.links.new(src.outputs[socket], node.inputs["Vector"])
        self._samples[key] = node
        return node

    def ras(self, stage):
        """(colour source, alpha source) of a stage's rasterised colour:
        each a node output or an RGBA tuple in 0..1; None for zero."""
        chan = stage.channel
        if chan not in ("COLOR0A0", "COLOR1A1", "COLOR0", "COLOR1", "ALPHA0", "ALPHA1"):
            return None
        k = int(chan[5])
        ctls = (self.mat.channels[2 * k], self.mat.channels[2 * k + 1])
        if self.lighting == "NODES" and any(c.lighting for c in ctls):
            node = self.lit(k)
            return [node, node]
        out = []
        for ctl, reg in ((ctls[0], self.mat.mat_colors[k]), (ctls[1], self.mat.mat_colors[k])):
            if ctl.lighting:
                self.approximated.add(UNLIT)
            if ctl.material_source == "VTX":
                out.append(self._colour_attr(k))
            else:
                out.append(tuple(v / 255.0 for v in reg))
        return out

    def _from_geometry(self, coord, tg):
        """A texgen from the normal or the position (notes 4): the normal in
        view space for the view-normal modes (1, 6, 7: env maps), else the
        object-space normal or position, through the texgen's texture
        matrix (mode and static SRT: tev_graph.texgen_plan)."""
        key = ("geometry", coord)
        if key in self._uv:
            return self._uv[key]
        tm = tex_matrix(self.mat, tg)
        mode = tm.mode if tm is not None else 0
        view = tg.source == "NRM" and mode in (1, 6, 7)
        if tg.source == "POS" or mode not in (0, 1, 6):
            self.approximated.add(f"{tg.source} texgens of mapping mode {mode} (the model-space x, y through "
                                  "the SRT; effect and projection matrices not applied)")
        y = -300 * len(self._uv)
        geometry = self._shared_node("ShaderNodeNewGeometry", -1600, y)
        transform = self.new("ShaderNodeVectorTransform", -1400, y)
        transform.vector_type = "NORMAL" if tg.source == "NRM" else "POINT"
        transform.convert_from = "WORLD"
        transform.convert_to = "CAMERA" if view else "OBJECT"
        self.tree.links.new(geometry.outputs["Normal" if tg.source == "NRM" else "Position"],
                            transform.inputs["Vector"])
        node = self.new("ShaderNodeGroup", -1200, y)
        node.node_tree = tev_nodes.ensure(tev_graph.texgen_plan(mode if view else 0, tev_graph.srt_of(tm)))
        self.tree.links.new(transform.outputs["Vector"], node.inputs["Vector"])
        self._uv[key] = node
        return node

    def lit(self, k):
        """The group node of colour channel k by the lighting equation
        (tev_graph.lit_plan), its outputs Color and Alpha: the channel's
        colour, lit or not."""
        if k in self._lit:
            return self._lit[k]
        ctls = (self.mat.channels[2 * k], self.mat.channels[2 * k + 1])
        lits = tuple(tev_graph.channel_lighting(c) for c in ctls)
        if any(c.lighting and c.attenuation not in (None, "NONE") for c in ctls):
            self.approximated.add(ATTENUATION)
        node = self.new("ShaderNodeGroup", -950, 300 + 250 * k)
        node.node_tree = tev_nodes.ensure(tev_graph.lit_plan(*lits))
        node.name = node.label = f"{LIT_NODE} {k}"
        names = {s.name for s in node.inputs}
        for part, ctl, source, reg in (("", ctls[0], ctls[0].material_source, self.mat.mat_colors[k]),
                                       (" Alpha", ctls[1], ctls[1].material_source, self.mat.mat_colors[k])):
            for what, src, value in (("Material", source, reg),
                                     ("Ambient", ctl.ambient_source, self.mat.amb_colors[k])):
                socket = what + part
                if socket not in names:
                    continue
                if src == "VTX":
                    self.tree.links.new(self._colour_attr(k).outputs["Alpha" if part else "Color"],
                                        node.inputs[socket])
                else:
                    node.inputs[socket].default_value = [v / 255.0 for v in value[:3]] if not part else value[3] / 255.0
        if "Normal" in names:
            self.tree.links.new(self._shared_node("ShaderNodeNewGeometry", -1200, 500).outputs["Normal"],
                                node.inputs["Normal"])
        for socket in ("Light", "Light Color"):
            if socket in names:
                light = self._shared_node("ShaderNodeGroup", -1200, 700)
                light.node_tree = light_group()
                self.tree.links.new(light.outputs[socket], node.inputs[socket])
        self._lit[k] = node
        return node

    def _shared_node(self, idname, x, y):
        if idname not in self._shared:
            self._shared[idname] = self.new(idname, x, y)
        return self._shared[idname]

    def _colour_attr(self, k):
        if k not in self._colour_attrs:
            node = self.new("ShaderNodeVertexColor", -700, 300 + 200 * k)
            node.layer_name = f"Col{k}"
            self._colour_attrs[k] = node
        return self._colour_attrs[k]


def _feed(tree, gnode, name, names, source, part):
    """Links or sets group input `name` (colour part 'rgb' or 'a')."""
    socket = name if part == "rgb" else name + " Alpha"
    if socket not in names or source is None:
        return
    if isinstance(source, tuple):
        gnode.inputs[socket].default_value = list(source[:3]) if part == "rgb" else source[3]
    else:
        tree.links.new(source.outputs["Color" if part == "rgb" else "Alpha"], gnode.inputs[socket])


def _end(tree, bm, mat, gnode, approximated):
    """The end of the pipeline after the TEV group: the shared end group of
    the material's blend mode, alpha test and cull mode (end_group), into
    the material output; the material's own blend and cull settings."""
    blend = blend_kind(mat)
    if mat.blend is not None and mat.blend.type in ("LOGIC", "SUBTRACT"):
        approximated.add(f"{mat.blend.type.lower()} blending (drawn opaque)")
    tested = not alpha_test_passes_always(mat)
    src_alpha = blend == "ADD" and mat.blend.src == "SRCALPHA"
    node = tree.nodes.new("ShaderNodeGroup")
    node.node_tree = end_group(blend, src_alpha, tested, mat.cull_mode)
    node.name = node.label = END_NODE
    node.location = (250, 0)
    for name in ("Color", "Alpha", "Pass"):
        tree.links.new(gnode.outputs[name], node.inputs[name])
    out = next((n for n in tree.nodes if n.type == "OUTPUT_MATERIAL"), None) or \
        tree.nodes.new("ShaderNodeOutputMaterial")
    out.location = (500, 0)
    tree.links.new(node.outputs["Shader"], out.inputs["Surface"])
    # (EEVEE culls by use_backface_culling before the group's Transparent BSDF matters)
    compat.set_material_alpha(bm, "BLEND" if blend else ("CLIP" if tested else None), 0.5)
    bm.use_backface_culling = mat.cull_mode in (2, 3)
    zm = mat.z_mode
    if zm is not None and not zm.test:
        # (the mesh objects using it draw In Front in the viewport:
        # model_mesh; renders keep the depth test)
        bm[DEPTH_TEST_OFF_PROP] = True
        approximated.add("depth test off (In Front in the viewport only)")


def end_group(blend, src_alpha, tested, cull):
    """The shared shader group (inputs Color, Alpha, Pass from the TEV
    group; output Shader) of one end of the pipeline, built on first use:
    the sRGB-to-linear group, the Emission shader, the alpha test (Pass:
    a 0/1 alpha, clipped at 0.5: exact in every line), blending (alpha
    blend: a Mix with a Transparent BSDF by alpha * Pass; additive: an Add
    Shader with it, the emission scaled by alpha for SRCALPHA) and culling
    that Cycles sees too (it ignores use_backface_culling: the culled side
    mixed to a Transparent BSDF by Backfacing)."""
    import bpy

    key = repr(("end", blend, src_alpha, tested, cull))
    name = f"{tev_graph.PREFIX} end {blend or 'opaque'}{' srcalpha' if src_alpha else ''}" \
        f"{' tested' if tested else ''} cull{cull}"
    tree = bpy.data.node_groups.get(name)
    if tree is not None and tree.get(tev_nodes.KEY_PROP) == key:
        return tree
    tree = bpy.data.node_groups.new(name, "ShaderNodeTree")
    tree[tev_nodes.KEY_PROP] = key
    for socket, kind in (("Color", "NodeSocketVector"), ("Alpha", "NodeSocketFloat"), ("Pass", "NodeSocketFloat")):
        compat.new_group_socket(tree, socket, "INPUT", kind)
    compat.new_group_socket(tree, "Shader", "OUTPUT", "NodeSocketShader")
    nodes, links = tree.nodes, tree.links
    where = {}  # node pointer -> (x, y), set in one foreach_set (each set runs an update)

    def new(idname, xy):
        node = nodes.new(idname)
        where[node.as_pointer()] = xy
        return node

    gin, gout = new("NodeGroupInput", (-400, 0)), new("NodeGroupOutput", (1000, 0))
    srgb = new("ShaderNodeGroup", (0, 0))
    srgb.node_tree = tev_nodes.ensure(tev_graph.srgb_plan())
    srgb.name = srgb.label = SRGB_NODE
    links.new(gin.outputs["Color"], srgb.inputs["Color"])
    emit = new("ShaderNodeEmission", (200, 0))
    links.new(srgb.outputs["Color"], emit.inputs["Color"])
    surface = emit.outputs[0]

    def times_pass(x, xy):
        both = new("ShaderNodeMath", xy)
        both.operation = "MULTIPLY"
        links.new(x, both.inputs[0])
        links.new(gin.outputs["Pass"], both.inputs[1])
        return both.outputs[0]

    def clear():
        node = new("ShaderNodeBsdfTransparent", (400, -250))
        return node.outputs[0]

    if blend == "ADD":
        if src_alpha:
            links.new(times_pass(gin.outputs["Alpha"], (0, -250)), emit.inputs["Strength"])
        elif tested:
            links.new(gin.outputs["Pass"], emit.inputs["Strength"])
        add = new("ShaderNodeAddShader", (600, 0))
        links.new(clear(), add.inputs[0])
        links.new(surface, add.inputs[1])
        surface = add.outputs[0]
    elif blend == "BLEND" or tested:
        fac = times_pass(gin.outputs["Alpha"], (0, -250)) if blend == "BLEND" else gin.outputs["Pass"]
        mix = new("ShaderNodeMixShader", (600, 0))
        links.new(fac, mix.inputs[0])
        links.new(clear(), mix.inputs[1])
        links.new(surface, mix.inputs[2])
        surface = mix.outputs[0]
    if cull == 3:
        surface = clear()
    elif cull in (1, 2):
        geometry = new("ShaderNodeNewGeometry", (600, 250))
        mix = new("ShaderNodeMixShader", (800, 0))
        mix.name = mix.label = CULL_NODE
        links.new(geometry.outputs["Backfacing"], mix.inputs[0])
        shown, hidden = (1, 2) if cull == 2 else (2, 1)
        links.new(surface, mix.inputs[shown])
        links.new(clear(), mix.inputs[hidden])
        surface = mix.outputs[0]
    links.new(surface, gout.inputs["Shader"])
    nodes.foreach_set("location", [c for n in nodes for c in where.get(n.as_pointer(), (0, 0))])
    return tree


_RAS_CHANNELS = ("COLOR0A0", "COLOR1A1", "COLOR0", "COLOR1", "ALPHA0", "ALPHA1")


def layout_key(mat, key=None, lighting="NODES"):
    """What a material's nodes depend on besides its colours: materials of
    one layout differ in their TEV colours, konst colours and material
    colours only, so a copy of the first one with those set is the same as
    building it (and Blender copies a node tree far faster than Python
    builds one)."""
    texgens, slots = mat.texgens, mat.textures
    stages = []
    for st in mat.tev_stages:
        coord = st.tex_coord
        tg = texgens[coord] if coord is not None and 0 <= coord < len(texgens) else None
        index = slots[st.tex_map] if st.tex_map is not None and 0 <= st.tex_map < len(slots) else -1
        k = int(st.channel[5]) if st.channel in _RAS_CHANNELS else None
        sources = None if k is None else tuple(_channel_layout(c, lighting)
                                               for c in (mat.channels[2 * k], mat.channels[2 * k + 1]))
        srtg = None
        if tg is not None and tg.type == "SRTG":
            j = 1 if tg.source == "COLOR1" else 0
            srtg = tuple(_channel_layout(c, lighting) for c in (mat.channels[2 * j], mat.channels[2 * j + 1]))
        geo = None
        if tg is not None and tg.source in ("NRM", "POS"):
            tm = tex_matrix(mat, tg)
            geo = (None if tm is None else tm.mode, tev_graph.srt_of(tm))
        stages.append((index, coord, None if tg is None else (tg.type, tg.source), st.channel, sources, srtg, geo))
    b, zm, ind, fog = mat.blend, mat.z_mode, mat.indirect, mat.fog
    return (lighting, key if key is not None else tev_graph.config(mat), tuple(stages), bool(texgens),
            None if b is None else (b.type, b.src, b.dst), alpha_test_passes_always(mat), mat.cull_mode,
            None if zm is None else bool(zm.test), bool(ind is not None and ind.enabled and ind.count),
            bool(fog is not None and fog.type != 0))


def _channel_layout(ctl, lighting):
    """What a material's nodes depend on of a channel control."""
    if lighting != "NODES" or not ctl.lighting:
        return (ctl.material_source, bool(ctl.lighting))
    return (ctl.material_source, True, ctl.ambient_source, tev_graph.channel_lighting(ctl), ctl.attenuation)


def _set_lit_colours(tree, mat):
    """The register inputs (material and ambient colours) of a copied
    material's channel group nodes."""
    for k in range(2):
        node = tree.nodes.get(f"{LIT_NODE} {k}")
        if node is None:
            continue
        names = {s.name for s in node.inputs}
        for part, ctl in (("", mat.channels[2 * k]), (" Alpha", mat.channels[2 * k + 1])):
            for what, src, value in (("Material", ctl.material_source, mat.mat_colors[k]),
                                     ("Ambient", ctl.ambient_source, mat.amb_colors[k])):
                if what + part in names and src != "VTX":
                    node.inputs[what + part].default_value = \
                        [v / 255.0 for v in value[:3]] if not part else value[3] / 255.0


def _set_colours(gnode, mat, layout=None):
    """The colour inputs of a material's TEV group node: registers, konst
    colours, and the rasterised colours read from the material colour
    registers (vertex colours are linked, not set), in one foreach_set
    (tev_nodes.set_inputs; layout: its input_layout)."""
    values = tev_nodes.colour_values(mat.konst_colors, mat.tev_colors)
    for i, st in enumerate(mat.tev_stages):
        if st.channel not in _RAS_CHANNELS:
            continue
        k = int(st.channel[5])
        reg = [v / 255.0 for v in mat.mat_colors[k]]
        if mat.channels[2 * k].material_source != "VTX":
            values[f"RAS{i}"] = reg[:3]
        if mat.channels[2 * k + 1].material_source != "VTX":
            values[f"RAS{i} Alpha"] = reg[3]
    tev_nodes.set_inputs(gnode, values, layout)


def build_material(bpy, mat, name, textures, images, stem, approximated, groups=None, lighting="NODES"):
    """One Blender material computing MAT3 material `mat`; groups: {TEV
    configuration: node group} found so far (planning a configuration
    again costs more than its nodes)."""
    bm = bpy.data.materials.new(name)
    tree = compat.material_node_tree(bm)
    for node in list(tree.nodes):
        if node.type != "OUTPUT_MATERIAL":
            tree.nodes.remove(node)
    gnode = tree.nodes.new("ShaderNodeGroup")
    groups = {} if groups is None else groups
    key = tev_graph.config(mat)
    if key not in groups:
        groups[key] = tev_nodes.group_for(key)
    gnode.node_tree = groups[key]
    gnode.name = gnode.label = GROUP_NODE
    tev_nodes.set_colour_inputs(gnode, mat.konst_colors, mat.tev_colors)
    names = {s.name for s in gnode.inputs}
    b = _Builder(tree, mat, textures, images, stem, approximated, lighting)
    register_fed = []
    for i, st in enumerate(mat.tev_stages):
        if f"TEX{i}" in names or f"TEX{i} Alpha" in names:
            node = b.texture(st)
            # a null texmap reads 255, or 0 when the material has no texgens
            null = (1.0,) * 4 if mat.texgens else (0.0,) * 4
            for part in ("rgb", "a"):
                _feed(tree, gnode, f"TEX{i}", names, node or null, part)
        if f"RAS{i}" in names or f"RAS{i} Alpha" in names:
            ras = b.ras(st)
            if ras is not None:
                _feed(tree, gnode, f"RAS{i}", names, ras[0], "rgb")
                _feed(tree, gnode, f"RAS{i}", names, ras[1], "a")
                if st.channel in ("COLOR0A0", "COLOR0", "ALPHA0"):  # (what a BPK animates)
                    for src, socket, chans in ((ras[0], f"RAS{i}", [0, 1, 2]), (ras[1], f"RAS{i} Alpha", [3])):
                        if isinstance(src, tuple) and socket in names:
                            register_fed.append([socket, chans])
            else:
                _feed(tree, gnode, f"RAS{i}", names, (0.0,) * 4, "rgb")
                _feed(tree, gnode, f"RAS{i}", names, (0.0,) * 4, "a")
    lit = b._lit.get(0)
    if lit is not None:  # (material colour 0 reaches the TEV through channel 0's lit group)
        for socket, chans in (("Material", [0, 1, 2]), ("Material Alpha", [3])):
            if socket in lit.inputs and not lit.inputs[socket].is_linked:
                register_fed.append([socket, chans, lit.name])
    if mat.indirect is not None and mat.indirect.enabled and mat.indirect.count:
        approximated.add("indirect texturing (offsets not applied)")
    if mat.fog is not None and mat.fog.type != 0:
        approximated.add("fog")
    bm[MAT_COLOR_INPUTS_PROP] = json.dumps(register_fed)
    _end(tree, bm, mat, gnode, approximated)
    return bm


def build_materials(model, stem, uv_channels=(0,), lighting="NODES", scene=None):
    """The Blender material of each MAT3 material (list, MAT3 order) and
    notes: one line naming what the materials approximate.  lighting:
    'NODES' (lit channels computed in nodes from the shared light,
    light_group; scene: the scene whose first sun it points at) or 'NONE'
    (unlit: what the file alone determines)."""
    import bpy

    if lighting not in LIGHTING:
        raise ValueError(f"lighting must be one of {LIGHTING}, not {lighting!r}")
    if lighting == "NODES":
        light_group(scene)

    textures = list(model.textures)
    # every TEX1 image, used by a material or not: a BTP switches to them
    images = {k: _image(bpy, tex, k, stem) for k, tex in enumerate(textures)}
    for img in images.values():
        img[MODEL_PROP] = stem
    approximated = set()
    groups, built = {}, {}
    out = []
    for i, mat in enumerate(model.materials):
        name = mat.name or f"{stem}_mat_{i}"
        layout = layout_key(mat, lighting=lighting)
        first = built.get(layout)
        if first is not None:  # (the same nodes: a copy, its colours set)
            bm = first[0].copy()
            bm.name = name
            _set_colours(bm.node_tree.nodes[GROUP_NODE], mat, first[1])
            _set_lit_colours(bm.node_tree, mat)
        else:
            bm = build_material(bpy, mat, name, textures, images, stem, approximated, groups, lighting)
            built[layout] = (bm, tev_nodes.input_layout(bm.node_tree.nodes[GROUP_NODE]))
        bm[MATERIAL_PROP] = i
        bm[MODEL_PROP] = stem
        out.append(bm)
    notes = [f"materials approximate: {', '.join(sorted(approximated))}"] if approximated else []
    return out, notes
