"""The model import's materials (importing/materials_from_model.py) baked
with Cycles and compared texel by texel with Material.evaluate (notes
../shared/formats/j3d_materials.md section 6), for generated materials
and for every sample J3D model's materials:

* the imported material goes onto a plane with UV0 = [0,1]^2 and
  constant CLR0 / CLR1 colour attributes (Col0, Col1); the bake target
  has the side of the textures the material samples through UV0, so
  that each texel centre reads one texel of each (Closest or Linear);
* the TEV group's colour through the sRGB-to-linear group that the
  material's end group runs is baked (Cycles EMIT, 1 sample,
  margin 0), converted back to sRGB here and rounded; the group's Alpha
  and Pass in a second bake;
* the expected texels: Material.evaluate of the material with, per
  stage, the texel its texgen reads (UV0: the texel under the centre;
  SRTG: the lit end of the ramp, notes 5.4 option 1) and its rasterised
  colour (the channel's material source: the vertex colour or the
  material colour register).

The bound reached: colour within 1/255 after the sRGB round trip (float
pow in the shader); alpha and the alpha test exact."""
import math
import random
from array import array
from pathlib import Path

import bpy
import pytest

from bl_tev_bake import _scene as cycles_bake_scene
from io_anim_gameanim.importing import materials_from_model as mfm

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples" / "models" / "j3d"
VERTEX = [(200, 120, 40, 160), (30, 220, 90, 70)]  # Col0, Col1 of the plane
# towards the light in the bake (the plane's normal is +Z): N.L = LIGHT[2]
# normalised, 255 N.L about 135.1, away from a whole number
LIGHT = (0.6, -0.6, 0.53)
NDL = LIGHT[2] / math.sqrt(sum(x * x for x in LIGHT))


def _plane():
    mesh = bpy.data.meshes.new("bake plane")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], [], [(0, 1, 2, 3)])
    mesh.uv_layers.new(name="UV0").data.foreach_set("uv", [0, 0, 1, 0, 1, 1, 0, 1])
    for k, c in enumerate(VERTEX):
        attr = mesh.color_attributes.new(f"Col{k}", "FLOAT_COLOR", "POINT")
        attr.data.foreach_set("color", [v / 255.0 for v in c] * 4)
    ob = bpy.data.objects.new("bake plane", mesh)
    bpy.context.scene.collection.objects.link(ob)
    cycles_bake_scene()
    return ob


def _bake(ob, tree, source, side):
    """EMIT bake of `source` (a colour output) through a fresh Emission."""
    emit = tree.nodes.new("ShaderNodeEmission")
    out = next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL")
    tree.links.new(source, emit.inputs["Color"])
    tree.links.new(emit.outputs[0], out.inputs["Surface"])
    target = tree.nodes.new("ShaderNodeTexImage")
    img = bpy.data.images.new("bake target", side, side, alpha=True, float_buffer=True)
    img.colorspace_settings.name = "Non-Color"
    target.image = img
    tree.nodes.active = target
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    bpy.context.view_layer.objects.active = ob
    ob.select_set(True)
    bpy.ops.object.bake(type="EMIT", margin=0, use_clear=True)
    px = array("f", [0.0]) * (side * side * 4)
    img.pixels.foreach_get(px)
    tree.nodes.remove(target)
    tree.nodes.remove(emit)
    return px


def _colour_source(tree):
    """The TEV group's colour through the sRGB-to-linear group the
    material's end group runs (a node beside them in the material)."""
    group = tree.nodes[mfm.GROUP_NODE]
    inner = tree.nodes[mfm.END_NODE].node_tree.nodes[mfm.SRGB_NODE]
    srgb = tree.nodes.new("ShaderNodeGroup")
    srgb.node_tree = inner.node_tree
    tree.links.new(group.outputs["Color"], srgb.inputs["Color"])
    return srgb.outputs["Color"]


def _to_srgb_byte(v):
    v = max(0.0, min(1.0, v))
    s = 12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055
    return int(math.floor(s * 255.0 + 0.5))


def _side(model, mat):
    """The bake side: the size of the textures read through UV0."""
    sides = set()
    for st in mat.tev_stages:
        tex = _texture(model, mat, st)
        tg = _texgen(mat, st)
        if tex is not None and (tg is None or tg.type != "SRTG"):
            assert tex.width == tex.height, "a square texture (the bake target's side)"
            sides.add(tex.width)
    assert len(sides) <= 1, "one texture size per material"
    return sides.pop() if sides else 4


def _texture(model, mat, st, pattern=None):
    slots = mat.textures
    index = slots[st.tex_map] if st.tex_map is not None and 0 <= st.tex_map < len(slots) else -1
    index = (pattern or {}).get(st.tex_map, index)
    return model.textures[index] if 0 <= index < len(model.textures) else None


def _texgen(mat, st):
    return mat.texgens[st.tex_coord] if st.tex_coord is not None and st.tex_coord < len(mat.texgens) else None


def _channel(mat, k, light):
    """Colour channel k on the plane: unlit (light None: the material
    source, as Lighting None shows it) or by the lighting equation
    (Material.channel_color) with diffuse intensity N.L = light."""
    if light is not None:
        return tuple(mat.channel_color(k, VERTEX[k], light=light))
    ctl_c, ctl_a = mat.channels[2 * k], mat.channels[2 * k + 1]
    reg = mat.mat_colors[k]
    rgb = VERTEX[k][:3] if ctl_c.material_source == "VTX" else reg[:3]
    a = VERTEX[k][3] if ctl_a.material_source == "VTX" else reg[3]
    return tuple(rgb) + (a,)


def _srtg_texel(t, colour, wrap):
    """The texel an SRTG texgen reads at (s, t) = (R, G) / 255 (notes 4),
    nearest, clamped (wrap 0) or repeated."""
    def at(c, n, w):
        i = (c * n) // 255
        if w == "clamp":
            return min(i, n - 1)
        return (n - 1 - i % n if (i // n) % 2 else i % n) if w == "mirror" else i % n
    x, y = at(colour[0], t.width, wrap[0]), at(colour[1], t.height, wrap[1])
    return bytes(t.pixels[4 * (y * t.width + x):][:4])


def _inputs(model, mat, side, pattern=None, light=None):
    """Per stage the texel bytes and the rasterised colour, per bake
    texel (Blender's order: bottom row first); pattern: {texmap: TEX1
    index} that a BTP shows instead of the material's own; light: N.L
    on the plane (Lighting Nodes), or None (Lighting None: unlit)."""
    tex, ras = [], []
    n = side * side
    for st in mat.tev_stages:
        t = _texture(model, mat, st, pattern)
        if t is None:
            tex.append(None)
        else:
            w, h, px = t.width, t.height, t.pixels
            tg = _texgen(mat, st)
            if tg is not None and tg.type == "SRTG" and light is not None:  # the channel's (R, G)
                colour = _channel(mat, 1 if tg.source == "COLOR1" else 0, light)
                tex.append(_srtg_texel(t, colour, (t.wrap_s, t.wrap_t)) * n)
            elif tg is not None and tg.type == "SRTG":  # unlit: the lit end, s = 1, t = 1
                tex.append(bytes(px[4 * ((h - 1) * w + w - 1):][:4]) * n)
            else:
                rows = []
                for j in range(side):  # Blender row j is the texture's row h - 1 - j
                    y = h - 1 - (j * h) // side
                    rows.append(b"".join(px[4 * (y * w + (i * w) // side):][:4] for i in range(side)))
                tex.append(b"".join(rows))
        if st.channel in ("COLOR0A0", "COLOR1A1"):
            ras.append(bytes(_channel(mat, int(st.channel[5]), light)) * n)
        else:
            ras.append(None)
    return tex, ras


def bake_and_compare(model, index, bm, light=None):
    mat = model.materials[index]
    side = _side(model, mat)
    ob = _plane()
    ob.data.materials.append(bm)
    tree = bm.node_tree
    group = tree.nodes[mfm.GROUP_NODE]
    colour = _bake(ob, tree, _colour_source(tree), side)
    combine = tree.nodes.new("ShaderNodeCombineXYZ")
    tree.links.new(group.outputs["Alpha"], combine.inputs[0])
    tree.links.new(group.outputs["Pass"], combine.inputs[1])
    alpha = _bake(ob, tree, combine.outputs[0], side)
    tex, ras = _inputs(model, mat, side, light=light)
    want_rgba, want_pass = mat.evaluate(tex, ras)
    if len(want_rgba) == 4:  # (a material that samples nothing: one pixel)
        want_rgba, want_pass = want_rgba * (side * side), want_pass * (side * side)
    worst, bad = 0, []
    for i in range(side * side):
        got = [_to_srgb_byte(v) for v in colour[4 * i:4 * i + 3]]
        want = list(want_rgba[4 * i:4 * i + 3])
        worst = max(worst, max(abs(g - w) for g, w in zip(got, want)))
        a, p = int(math.floor(alpha[4 * i] * 255.0 + 0.5)), int(round(alpha[4 * i + 1]))
        if a != want_rgba[4 * i + 3] or p != want_pass[i]:
            bad.append((i, (a, p), (want_rgba[4 * i + 3], want_pass[i])))
    assert worst <= 1, f"{mat.name}: colour off by {worst}/255"
    print(f"{mat.name}: colour within {worst}/255, alpha and test exact")
    assert not bad, f"{mat.name}: {len(bad)} texels' alpha or test differ, first {bad[:3]}"
    return want_rgba


# ---------------------------------------------------------------------------
# Generated materials: random TEV states over random near-filtered textures


def _generated_model(ga, seed, count, recoloured=False):
    import sys

    if str(ROOT) not in sys.path:
        sys.path.append(str(ROOT))
    from tools import make_models as mm

    rng = random.Random(seed)

    def half(alpha):
        op = rng.choice(range(8, 16)) if rng.random() < 0.2 else rng.randrange(2)
        n = 8 if alpha else 16
        return (rng.randrange(n), rng.randrange(n), rng.randrange(n), rng.randrange(n), op,
                rng.randrange(3), rng.randrange(4), rng.randrange(2), rng.randrange(4))

    textures = [mm.texture(f"t{k}", "RGB5A3", 8, 8, bytes(rng.randrange(256) for _ in range(128)),
                           mag_filter=0, min_filter=0) for k in range(2)]
    mats = []
    for k in range(count):
        n = rng.randint(1, 4)
        mats.append(mm.material(
            f"gen{k}", stages=[(0, rng.choice([0, 1, 0xFF]), rng.choice([4, 5, 0xFF])) for _ in range(n)],
            textures=(0, 1), texgens=((1, 4, 60),), tev=[(half(False), half(True)) for _ in range(n)],
            konst_sel=[(rng.randrange(32), rng.randrange(32)) for _ in range(n)],
            swap_modes=[(rng.randrange(4), rng.randrange(4)) for _ in range(n)],
            swap_tables=[tuple(rng.randrange(4) for _ in range(4)) for _ in range(4)],
            konst=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(4)],
            tev_colors=[tuple(rng.randint(-1024, 1023) for _ in range(4)) for _ in range(4)],
            channels=[(0, rng.randrange(2), 0, 0, 2, 0) for _ in range(4)], channel_count=2,
            colors=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(2)],
            alpha_compare=(rng.randrange(8), rng.randrange(256), rng.randrange(4), rng.randrange(8),
                           rng.randrange(256))))
    if recoloured:  # each material again, with other colours only
        mats += [dict(m, name=m["name"] + "b", konst=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(4)],
                      tev_colors=[tuple(rng.randint(-1024, 1023) for _ in range(4)) for _ in range(4)],
                      colors=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(2)]) for m in mats]
    data = mm.write_j3d_model([mm.joint("root")], [-1], extra_chunks=[("MAT3", mm.mat3_body(mats)),
                                                                      ("TEX1", mm.tex1_body(textures))])
    return ga.load_model(data)


@pytest.mark.parametrize("seed", [31, 32])
def test_generated_materials_bake_as_evaluate(ga, seed):
    model = _generated_model(ga, seed, 3)
    built, _notes = mfm.build_materials(model, "gen")
    for i, bm in enumerate(built):
        bake_and_compare(model, i, bm)


def test_recoloured_materials_are_copies_that_bake_as_evaluate(ga):
    """Materials that differ in their colours only are copies of the first
    one's nodes (the same groups), their colours set: each bakes as its
    own evaluate."""
    model = _generated_model(ga, 33, 2, recoloured=True)
    built, _notes = mfm.build_materials(model, "gen")
    assert mfm.layout_key(model.materials[0]) == mfm.layout_key(model.materials[2])
    for a, b in ((0, 2), (1, 3)):
        ga_, gb = (built[k].node_tree.nodes[mfm.GROUP_NODE] for k in (a, b))
        assert ga_.node_tree == gb.node_tree
        assert len(built[a].node_tree.nodes) == len(built[b].node_tree.nodes)
    for i, bm in enumerate(built):
        bake_and_compare(model, i, bm)


def _sample_models():
    """The sample J3D models that carry materials (the skeleton-only
    figures carry opaque filler chunks instead of MAT3)."""
    import gameanim

    out = []
    for p in sorted(SAMPLES.glob("*.bmd")) + sorted(SAMPLES.glob("*.bdl")):
        try:
            if gameanim.load_model(str(p)).materials:
                out.append(p.name)
        except gameanim.FormatError:
            pass
    return out


SAMPLE_MODELS = _sample_models()


def test_the_sample_models_with_materials_are_known():
    assert SAMPLE_MODELS == ["tev_showcase.bmd", "figure_skinned-edited.bdl", "figure_skinned.bdl"]


@pytest.mark.parametrize("name", SAMPLE_MODELS)
def test_sample_model_materials_bake_as_evaluate(ga, name):
    model = ga.load_model(str(SAMPLES / name))
    built, _notes = mfm.build_materials(model, name)
    mfm.set_light(direction=LIGHT)
    for i, bm in enumerate(built):
        bake_and_compare(model, i, bm, light=NDL)


def test_groups_are_shared_across_materials_and_models(ga):
    """Materials of one configuration share one group, also when the
    model is built again."""
    model = ga.load_model(str(SAMPLES / "tev_showcase.bmd"))
    first, _ = mfm.build_materials(model, "a")
    again, _ = mfm.build_materials(model, "b")
    groups = [bm.node_tree.nodes[mfm.GROUP_NODE].node_tree for bm in first]
    assert len(set(groups)) == len(model.materials)  # (four configurations)
    assert [bm.node_tree.nodes[mfm.GROUP_NODE].node_tree for bm in again] == groups


def test_showcase_import_ends_each_pipeline_as_designed(api):
    """Imported with the add-on: the alpha test (cutout) is a clip on the
    group's Pass, the additive material adds its emission to a
    Transparent BSDF, opaque ones end in the Emission shader; the report
    has one line of approximations and no 'first stage' warning."""
    res = api.import_files([str(SAMPLES / "tev_showcase.bmd")])
    notes = res.report.files[0].notes
    assert not any("is shown" in n for n in notes)
    approx = [n for n in notes if n.startswith("materials approximate")]
    assert not approx  # (Lighting Nodes: the toon channel is lit in nodes)
    mats = {m.name: m for m in bpy.data.materials}

    def surface(name):
        """The shader in front of the end group's output, through the cull
        mix; the end group is fed by the TEV group."""
        tree = mats[name].node_tree
        out = next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL")
        end = out.inputs["Surface"].links[0].from_node
        assert end.name == mfm.END_NODE
        assert {lk.from_node.name for s in end.inputs for lk in s.links} == {mfm.GROUP_NODE}
        inner = end.node_tree
        node = next(n for n in inner.nodes if n.type == "GROUP_OUTPUT").inputs["Shader"].links[0].from_node
        if node.name == mfm.CULL_NODE:  # (cull back: the front is input 1, the back transparent)
            assert node.inputs[0].links[0].from_socket.name == "Backfacing"
            assert node.inputs[2].links[0].from_node.type == "BSDF_TRANSPARENT"
            node = node.inputs[1].links[0].from_node
        return node

    ends = {n: mats[n].node_tree.nodes[mfm.END_NODE].node_tree for n in ("toon", "konst", "cutout", "glow")}
    assert ends["toon"] == ends["konst"]  # (one shared end group: opaque, cull back)
    assert all(ends[n].nodes.get(mfm.CULL_NODE) for n in ("toon", "konst", "cutout"))
    assert ends["glow"].nodes.get(mfm.CULL_NODE) is None  # (cull none)
    assert surface("toon").type == "EMISSION" and surface("konst").type == "EMISSION"
    cut = surface("cutout")
    assert cut.type == "MIX_SHADER" and cut.inputs[0].links[0].from_socket.name == "Pass"
    glow = surface("glow")
    assert glow.type == "ADD_SHADER" and {glow.inputs[0].links[0].from_node.type,
                                          glow.inputs[1].links[0].from_node.type} == {"BSDF_TRANSPARENT",
                                                                                     "EMISSION"}
    if hasattr(mats["cutout"], "surface_render_method"):
        assert mats["cutout"].surface_render_method == "DITHERED"
        assert mats["glow"].surface_render_method == "BLENDED"
    else:
        assert (mats["cutout"].blend_method, mats["cutout"].alpha_threshold) == ("CLIP", 0.5)
        assert mats["glow"].blend_method == "BLEND"
    # Lighting None: the toon channel unlit, reported
    res = api.import_files([str(SAMPLES / "tev_showcase.bmd")], lighting="NONE")
    approx = [n for n in res.report.files[0].notes if n.startswith("materials approximate")]
    assert len(approx) == 1 and "lighting" in approx[0]


def test_brk_drives_the_groups_registers_and_konst_colours(api, ga, tmp_path):
    """A BRK imported with the model drives the TEV group's C0 and K0
    inputs (no RGB node, nothing 'feeds nothing'); baked at a frame, the
    material equals Material.evaluate with the BRK's values there."""
    # (even steps: whole values at frame 5)
    values = {("register", 0): [(-40, 300), (20, 0), (500, -100), (0, 254)],
              ("konst", 0): [(254, 0), (0, 254), (60, 200), (255, 255)]}
    tracks, entries = [], []
    for e, ((kind, cid), per_channel) in enumerate(values.items()):
        entries.append({"material": "konst", "kind": kind, "color_id": cid})
        for c, (a, b) in enumerate(per_channel):
            tracks.append(ga.Track(e, "color", c, [0.0, 10.0], [float(a), float(b)]))
    brk = tmp_path / "pulse.brk"
    ga.Animation("brk", tracks, frame_count=10.0, entries=entries).save(str(brk))
    res = api.import_files([str(SAMPLES / "tev_showcase.bmd"), str(brk)])
    notes = [n for f in res.report.files for n in f.notes]
    assert not any("feeds nothing" in n or "do not read" in n for n in notes), notes
    bm = bpy.data.materials["konst"]
    tree = bm.node_tree
    assert not [n for n in tree.nodes if n.type == "RGB"]
    bpy.context.scene.frame_set(5)
    reg = [(a + b) // 2 for a, b in values[("register", 0)]]
    konst = [(a + b) // 2 for a, b in values[("konst", 0)]]
    group = tree.nodes[mfm.GROUP_NODE]
    assert [round(v * 255.0) for v in group.inputs["K0"].default_value] == konst[:3]
    model = ga.load_model(str(SAMPLES / "tev_showcase.bmd"))
    index = [m.name for m in model.materials].index("konst")
    mat = model.materials[index]
    # the bake, against evaluate with the animated colours
    side = _side(model, mat)
    ob = _plane()
    ob.data.materials.append(bm)
    colour = _bake(ob, tree, _colour_source(tree), side)
    tex, ras = _inputs(model, mat, side)
    regs = [reg] + [list(c) for c in mat.tev_colors[1:]]
    ks = [konst] + [list(c) for c in mat.konst_colors[1:]]
    want, _ = mat.evaluate(tex, ras, konst=ks, tev_colors=regs)
    base, _ = mat.evaluate(tex, ras)
    assert want != base
    got = [_to_srgb_byte(v) for i in range(side * side) for v in colour[4 * i:4 * i + 3]]
    exp = [want[4 * i + c] for i in range(side * side) for c in range(3)]
    assert max(abs(g - w) for g, w in zip(got, exp)) <= 1


def test_btp_resolves_to_the_models_own_images(api, ga, tmp_path):
    """A BTP imported with the model switches the texmap between the
    model's TEX1 images by itself (no labelled nodes, nothing unmatched),
    colour and alpha: baked at each frame, the material equals evaluate
    with that texture; a BTP imported later onto the material does too."""
    import j3d_kinds_writer as kw

    frames = [2, 0, 3, 2]
    btp = tmp_path / "switch.btp"
    btp.write_bytes(kw.write_btp([{"name": b"cutout", "texmap": 0, "frames": frames}], len(frames)))
    res = api.import_files([str(SAMPLES / "tev_showcase.bmd"), str(btp)])
    assert all(f.ok and not f.unmatched for f in res.report.files), [(f.error, f.unmatched) for f in res.report.files]
    model = ga.load_model(str(SAMPLES / "tev_showcase.bmd"))
    mat = next(m for m in model.materials if m.name == "cutout")
    bm = bpy.data.materials["cutout"]
    tree = bm.node_tree
    group = tree.nodes[mfm.GROUP_NODE]
    ob = _plane()
    ob.data.materials.append(bm)
    side = _side(model, mat)
    source = _colour_source(tree)
    for f in (1, 2):
        bpy.context.scene.frame_set(f)
        colour = _bake(ob, tree, source, side)
        alpha = _bake(ob, tree, group.outputs["Alpha"], side)
        tex, ras = _inputs(model, mat, side, {0: frames[f]})
        want, _ = mat.evaluate(tex, ras)
        got = [_to_srgb_byte(v) for i in range(side * side) for v in colour[4 * i:4 * i + 3]]
        exp = [want[4 * i + c] for i in range(side * side) for c in range(3)]
        assert max(abs(g - w) for g, w in zip(got, exp)) <= 1, f"frame {f}"
        assert [int(math.floor(alpha[4 * i] * 255.0 + 0.5)) for i in range(side * side)] == \
            [want[4 * i + 3] for i in range(side * side)], f"frame {f}"
    # later, onto the material alone
    bpy.data.materials.remove(bpy.data.materials["konst"])
    res = api.import_files([str(SAMPLES / "tev_showcase.bmd")])
    konst = next(m for m in bpy.data.materials if m.name.startswith("konst"))
    btp2 = tmp_path / "later.btp"
    btp2.write_bytes(kw.write_btp([{"name": konst.name.encode(), "texmap": 0, "frames": [0, 3]}], 2))
    res = api.import_files([str(btp2)])
    assert res.report.files[0].ok and not res.report.files[0].unmatched
    assert konst.node_tree.nodes.get('gameanim_texmap0 mix 3') is not None


def test_the_showcase_btp_sample_switches_the_cutout(api):
    """samples/models/j3d/tev_showcase_cutout.btp with its model: nothing
    unmatched, and the cutout's colour and alpha come from the chain."""
    res = api.import_files([str(SAMPLES / "tev_showcase.bmd"), str(SAMPLES / "tev_showcase_cutout.btp")])
    assert all(f.ok and not f.unmatched for f in res.report.files)
    tree = bpy.data.materials["cutout"].node_tree
    group = tree.nodes[mfm.GROUP_NODE]
    assert group.inputs["TEX0"].links[0].from_node.name == "gameanim_texmap0 mix 3"
    assert group.inputs["TEX0 Alpha"].links[0].from_node.name == "gameanim_texmap0 alpha mix 3"
    shown = {tree.nodes[f"gameanim_texmap0 texture {k}"].image["gameanim_texture"] for k in (0, 2, 3)}
    assert shown == {0, 2, 3}
