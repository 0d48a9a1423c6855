"""Materials and images of a J3D model (Model.materials, Model.textures):
one Blender material per MAT3 material, named as in the file, with the
first TEV stage's texture as a packed image read through a *UV Map* node
(the chain that the BTK import finds: importing/material.py), its alpha
per the material's mode (docs/blender.md, Meshes)."""
from .. import compat

MATERIAL_PROP = "gameanim_material"  # on a material: its MAT3 index
TEXTURE_PROP = "gameanim_texture"    # on an image: its TEX1 index


def _image(bpy, tex, index, stem):
    """A packed image of a TEX1 record, rows bottom-up as Blender keeps
    them (Texture.pixels is top row first)."""
    name = tex.name or f"{stem}_tex_{index}"
    img = bpy.data.images.new(name, tex.width, tex.height, alpha=True)
    w4 = 4 * tex.width
    px = tex.pixels
    rows = [px[r * w4:(r + 1) * w4] for r in range(tex.height - 1, -1, -1)]
    flat = b"".join(rows)
    img.pixels.foreach_set([b / 255.0 for b in flat])
    img.update()
    img[TEXTURE_PROP] = index
    compat.pack_image(img)
    return img


def _uv_name(mat, stage, uv_channels):
    """The UV map a stage reads: its texgen's source TEXn (source 4 + n)."""
    texgens = mat.texgens_raw or ()
    coord = stage[0] if stage else 0
    if coord is not None and 0 <= coord < len(texgens) and texgens[coord]:
        src = texgens[coord][1]
        if 4 <= src <= 11:
            return f"UV{src - 4}"
    return f"UV{uv_channels[0]}" if uv_channels else "UV0"


def _alpha(mat):
    """'BLEND' (translucent, mode 4 or a blend type 1), 'CLIP' (alpha test:
    a compare that can fail) or None (opaque), and the clip threshold."""
    blend = mat.blend_raw
    if mat.mode == 4 or (blend is not None and blend[0] == 1):
        return "BLEND", 0.5
    ac = mat.alpha_compare_raw
    if ac is not None and not (ac[0] == 7 and ac[3] == 7):  # 7: always
        refs = [ac[1] / 255.0] if ac[0] != 7 else []
        refs += [ac[4] / 255.0] if ac[3] != 7 else []
        return "CLIP", max(refs) if refs else 0.5
    return None, 0.5


def build_materials(model, stem, uv_channels=(0,)):
    """The Blender material of each MAT3 material (list, MAT3 order) and
    notes."""
    import bpy

    notes = []
    textures = list(model.textures)
    images = {}
    out = []
    for i, mat in enumerate(model.materials):
        bm = bpy.data.materials.new(mat.name or f"{stem}_mat_{i}")
        bm[MATERIAL_PROP] = i
        tree = compat.material_node_tree(bm)
        nodes, links = tree.nodes, tree.links
        bsdf = next((n for n in nodes if n.type == "BSDF_PRINCIPLED"), None)
        if mat.colors and mat.colors[0] is not None and bsdf is not None:
            bsdf.inputs["Base Color"].default_value = [c / 255.0 for c in mat.colors[0]]
        bm.use_backface_culling = mat.cull_mode in (2, 3)
        stages = [s for s in (mat.stages or ()) if s is not None and s[3] is not None and s[3] >= 0]
        alpha, threshold = _alpha(mat)
        if stages:
            stage = stages[0]
            t = stage[3]
            if t < len(textures):
                if t not in images:
                    images[t] = _image(bpy, textures[t], t, stem)
                tex = textures[t]
                node = nodes.new("ShaderNodeTexImage")
                node.image = images[t]
                node.location = (-400, 300)
                node.extension = compat.image_extension(tex.wrap_s)
                if tex.wrap_s != tex.wrap_t:
                    notes.append(f"material {bm.name!r}: texture {tex.name!r} wraps {tex.wrap_s} in S and "
                                 f"{tex.wrap_t} in T; Blender has one mode: {tex.wrap_s}")
                uv = nodes.new("ShaderNodeUVMap")
                uv.uv_map = _uv_name(mat, stage, uv_channels)
                uv.location = (-700, 300)
                links.new(uv.outputs["UV"], node.inputs["Vector"])
                if bsdf is not None:
                    links.new(node.outputs["Color"], bsdf.inputs["Base Color"])
                    if alpha:
                        links.new(node.outputs["Alpha"], bsdf.inputs["Alpha"])
            if len(stages) > 1:
                notes.append(f"material {bm.name!r}: {len(stages)} textured TEV stages; the first is shown")
        compat.set_material_alpha(bm, alpha, threshold)
        out.append(bm)
    return out, notes
