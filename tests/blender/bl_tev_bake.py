"""The TEV node groups (importing/tev_nodes.py) baked with Cycles and
compared texel by texel with the per-pixel result (notes
../shared/formats/j3d_materials.md section 6):

* a plane with UV [0,1]^2; per stage a TEX and a RAS image of random
  bytes (Closest, Non-Color, channel-packed alpha), the size of the bake
  target, so that each texel centre reads one texel of each;
* the group's Color into an Emission shader (no sRGB conversion), Cycles
  EMIT bake into a float Non-Color image (1 sample, margin 0); a second
  bake carries (Alpha, Pass, 0);
* read back, round(v * 255), compared with Material.evaluate of the
  material (random MAT3 states written by tools/make_models.py).

The bound reached is exact equality on every texel."""
import math
import random
from array import array
from types import SimpleNamespace

import bpy
import pytest

import tev_plan_interpreter as ti
from io_anim_gameanim.importing import tev_nodes
from io_anim_gameanim.shared import tev_graph as tg

SIZE = 16


def _image(name, data, is_float=False):
    img = bpy.data.images.new(name, SIZE, SIZE, alpha=True, float_buffer=is_float)
    img.colorspace_settings.name = "Non-Color"
    if not is_float:
        img.alpha_mode = "CHANNEL_PACKED"  # (colour kept where alpha is 0)
        img.pixels.foreach_set(array("f", [b / 255.0 for b in data]))
        img.update()
    return img


def _plane():
    mesh = bpy.data.meshes.new("tev plane")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], [], [(0, 1, 2, 3)])
    uv = mesh.uv_layers.new(name="UV0")
    uv.data.foreach_set("uv", [0, 0, 1, 0, 1, 1, 0, 1])
    ob = bpy.data.objects.new("tev plane", mesh)
    bpy.context.scene.collection.objects.link(ob)
    return ob


def _scene():
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 1
    scene.cycles.use_denoising = False
    scene.render.bake.margin = 0
    return scene


def _material(group, mat, tex_imgs, ras_imgs):
    bm = bpy.data.materials.new("tev bake")
    if bm.node_tree is None:
        bm.use_nodes = True
    tree = bm.node_tree
    for n in list(tree.nodes):
        tree.nodes.remove(n)
    node = tree.nodes.new("ShaderNodeGroup")
    node.node_tree = group
    tev_nodes.set_colour_inputs(node, mat.konst_colors, mat.tev_colors)
    names = {s.name for s in node.inputs}
    uv = tree.nodes.new("ShaderNodeUVMap")
    uv.uv_map = "UV0"
    for kind, imgs in (("TEX", tex_imgs), ("RAS", ras_imgs)):
        for i, img in enumerate(imgs):
            if f"{kind}{i}" not in names and f"{kind}{i} Alpha" not in names:
                continue
            t = tree.nodes.new("ShaderNodeTexImage")
            t.image = img
            t.interpolation = "Closest"
            tree.links.new(uv.outputs["UV"], t.inputs["Vector"])
            if f"{kind}{i}" in names:
                tree.links.new(t.outputs["Color"], node.inputs[f"{kind}{i}"])
            if f"{kind}{i} Alpha" in names:
                tree.links.new(t.outputs["Alpha"], node.inputs[f"{kind}{i} Alpha"])
    emit = tree.nodes.new("ShaderNodeEmission")
    out = tree.nodes.new("ShaderNodeOutputMaterial")
    tree.links.new(emit.outputs[0], out.inputs["Surface"])
    target = tree.nodes.new("ShaderNodeTexImage")
    tree.nodes.active = target
    return bm, node, emit, target


def _bake(ob, target_node, emit, source):
    tree = target_node.id_data
    for lk in list(emit.inputs["Color"].links):
        tree.links.remove(lk)
    tree.links.new(source, emit.inputs["Color"])
    img = _image("bake target", None, is_float=True)
    target_node.image = img
    bpy.ops.object.bake(type="EMIT", margin=0, use_clear=True)
    px = array("f", [0.0]) * (SIZE * SIZE * 4)
    img.pixels.foreach_get(px)
    return [int(math.floor(v * 255.0 + 0.5)) for v in px]


def _expected(mat, tex, ras):
    """Per texel (r, g, b, a, passed), from Material.evaluate."""
    rgba, passed = mat.evaluate(tex, ras)
    return [tuple(rgba[4 * i:4 * i + 4]) + (passed[i],) for i in range(SIZE * SIZE)]


def bake_and_compare(mat, seed):
    rng = random.Random(seed)
    n = len(mat.tev_stages)
    tex = [bytes(rng.randrange(256) for _ in range(SIZE * SIZE * 4)) for _ in range(n)]
    ras = [bytes(rng.randrange(256) for _ in range(SIZE * SIZE * 4)) for _ in range(n)]
    _scene()
    ob = _plane()
    key = tg.config(mat)
    group = tev_nodes.group_for(key)
    bm, node, emit, target = _material(group, mat, [_image(f"tex{i}", t) for i, t in enumerate(tex)],
                                       [_image(f"ras{i}", r) for i, r in enumerate(ras)])
    ob.data.materials.append(bm)
    bpy.context.view_layer.objects.active = ob
    ob.select_set(True)
    colour = _bake(ob, target, emit, node.outputs["Color"])
    tree = bm.node_tree
    combine = tree.nodes.new("ShaderNodeCombineXYZ")
    tree.links.new(node.outputs["Alpha"], combine.inputs[0])
    tree.links.new(node.outputs["Pass"], combine.inputs[1])
    alpha = _bake(ob, target, emit, combine.outputs[0])
    want = _expected(mat, tex, ras)
    bad = []
    for i in range(SIZE * SIZE):
        passed = {0: 0, 255: 1}.get(alpha[4 * i + 1], alpha[4 * i + 1])
        got = tuple(colour[4 * i:4 * i + 3]) + (alpha[4 * i], passed)
        if got != tuple(want[i]):
            bad.append((i, got, tuple(want[i])))
    assert not bad, f"{len(bad)} of {SIZE * SIZE} texels differ, first {bad[:3]}"
    return want


# (seed, stages): random MAT3 materials whose colour, alpha and alpha test
# all vary over the texels, with regular ops and compares (R8, GR16,
# BGR24, A8, RGB8) among them
CONFIGS = [(17, 1), (18, 2), (10, 4), (7, 8)]


@pytest.mark.parametrize("seed, stages", CONFIGS)
def test_random_configurations_bake_exactly(seed, stages):
    mat = ti.real_material(ti.rng_for(seed), stages=stages, compare_rate=0.3)
    want = bake_and_compare(mat, seed)
    assert len({w[:3] for w in want}) >= 32 and len({w[3] for w in want}) >= 16
    assert {w[4] for w in want} == {0, 1}


def _one_stage(a, b, c, d):
    comb = SimpleNamespace(a=a, b=b, c=c, d=d, op="ADD", bias="ZERO", scale="SCALE_1", clamp=True, out="PREV")
    alpha = SimpleNamespace(a="ZERO", b="ZERO", c="ZERO", d="TEXA", op="ADD", bias="ZERO", scale="SCALE_1",
                            clamp=True, out="PREV")
    st = SimpleNamespace(color=comb, alpha=alpha, konst_color="1", konst_alpha="1", ras_swap=0, tex_swap=0)
    return SimpleNamespace(tev_stages=[st], swap_tables=[(0, 1, 2, 3)] * 4, alpha_compare=None)


def test_groups_are_shared_by_configuration():
    """The same configuration gives the same group; another configuration
    another group, which runs the same combiner groups when its ops,
    bias, scale and clamp agree."""
    a = _one_stage("ZERO", "TEXC", "RASC", "ZERO")
    b = _one_stage("TEXC", "RASC", "HALF", "ONE")
    ga = tev_nodes.group_for(tg.config(a))
    assert tev_nodes.group_for(tg.config(a)) == ga
    gb = tev_nodes.group_for(tg.config(b))
    assert gb != ga
    subs = [{n.node_tree for n in g.nodes if n.type == "GROUP"} for g in (ga, gb)]
    # (bytes and colour; the alpha passes TEXA and the output is folded into the group)
    assert subs[0] == subs[1] and len(subs[0]) == 2
