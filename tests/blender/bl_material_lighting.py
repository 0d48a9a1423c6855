"""Lighting in nodes (import option Lighting, docs/blender.md): generated
materials whose colour channels are lit (every diffuse function, light
masks of 0-2 lights, material and ambient from the register or the
vertex colour), one stage reading a toon ramp through an SRTG texgen
from the lit colour, baked with Cycles (bl_material_bake) with the shared
light pointed in a fixed direction, and compared texel by texel with
Material.evaluate fed Material.channel_color at the same N.L: the
reference of the GX lighting equation.  With Lighting None the same
materials bake unlit (the output fully determined by the file).

The bound reached: as the unlit bakes (colour within 1/255 after the
sRGB round trip, alpha and the alpha test exact); N.L is chosen with
255 N.L away from a whole number, where float32 and double agree on the
floor."""
import random

import bpy
import pytest

from bl_material_bake import LIGHT, NDL, ROOT, bake_and_compare
from io_anim_gameanim.importing import materials_from_model as mfm


def _lit_model(ga, seed, count=3):
    import sys

    if str(ROOT) not in sys.path:
        sys.path.append(str(ROOT))
    from tools import make_models as mm

    rng = random.Random(seed)

    def half(alpha):
        n = 8 if alpha else 16
        return (rng.randrange(n), rng.randrange(n), rng.randrange(n), rng.randrange(n), rng.randrange(2),
                rng.randrange(3), rng.randrange(4), rng.randrange(2), rng.randrange(4))

    ramp = bytes(rng.randrange(256) for _ in range(32))
    textures = [mm.texture("t0", "RGB5A3", 8, 8, bytes(rng.randrange(256) for _ in range(128)),
                           mag_filter=0, min_filter=0),
                mm.texture("ramp", "I8", 8, 4, ramp, wrap_s=0, wrap_t=0, mag_filter=0, min_filter=0)]
    mats = []
    for k in range(count):
        n = rng.randint(2, 3)
        # stage 0: the ramp at the lit colour of channel 0 or 1; later
        # stages: the texture through UV0, the rasterised colour
        chan = rng.choice([4, 5])
        stages = [(1, 1, chan)] + [(0, 0, rng.choice([4, 5])) for _ in range(n - 1)]
        channels = [(1, rng.randrange(2), rng.choice([0, 1, 3, 0x81]), rng.randrange(3), rng.choice([0, 2]),
                     rng.randrange(2)) for _ in range(4)]
        mats.append(mm.material(
            f"lit{k}", stages=stages, textures=(0, 1), texgens=((1, 4, 60), (10, 19 if chan == 4 else 20, 60)),
            tev=[(half(False), half(True)) for _ in range(n)],
            konst_sel=[(rng.randrange(32), rng.randrange(32)) for _ in range(n)],
            konst=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(4)],
            tev_colors=[tuple(rng.randint(-1024, 1023) for _ in range(4)) for _ in range(4)],
            channels=channels, channel_count=2,
            colors=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(2)],
            ambients=[tuple(rng.randrange(256) for _ in range(4)) for _ in range(2)]))
    data = mm.write_j3d_model([mm.joint("root")], [-1], extra_chunks=[("MAT3", mm.mat3_body(mats)),
                                                                      ("TEX1", mm.tex1_body(textures))])
    return ga.load_model(data)


@pytest.mark.parametrize("seed,towards", [(41, 1.0), (42, -1.0)])
def test_lit_channels_bake_as_channel_color(ga, seed, towards):
    """towards -1: the light behind the plane (N.L < 0: CLAMP gives 0,
    SIGN a negative term, NONE full)."""
    model = _lit_model(ga, seed)
    assert all(c.lighting for m in model.materials for c in m.channels)
    built, notes = mfm.build_materials(model, "lit")
    direction = (LIGHT[0], LIGHT[1], towards * LIGHT[2])
    mfm.set_light(direction=direction)
    # (a material whose stages read neither its texture nor its RAS has none)
    assert sum(any(n.name.startswith(mfm.LIT_NODE) for n in bm.node_tree.nodes) for bm in built) >= 2
    for i, bm in enumerate(built):
        bake_and_compare(model, i, bm, light=towards * NDL)
    assert not any(mfm.UNLIT in n for n in notes)


def test_lighting_none_bakes_unlit(ga):
    model = _lit_model(ga, 43)
    built, notes = mfm.build_materials(model, "unlit", lighting="NONE")
    for i, bm in enumerate(built):
        assert not any(n.name.startswith(mfm.LIT_NODE) for n in bm.node_tree.nodes)
        bake_and_compare(model, i, bm, light=None)
    assert any(mfm.UNLIT in n for n in notes)


def test_the_light_follows_the_scenes_first_sun(ga):
    """Built in a scene with a sun: the shared light points towards it
    (the sun's local +Z); without one the default stays."""
    for ob in [o for o in bpy.data.objects if o.type == "LIGHT"]:
        bpy.data.objects.remove(ob)
    tree = bpy.data.node_groups.get(mfm.LIGHT_GROUP)
    if tree is not None:
        bpy.data.node_groups.remove(tree)
    model = _lit_model(ga, 44, 1)
    mfm.build_materials(model, "a", scene=bpy.context.scene)
    node = bpy.data.node_groups[mfm.LIGHT_GROUP].nodes[mfm.LIGHT_DIRECTION_NODE]
    n = sum(x * x for x in mfm.DEFAULT_LIGHT) ** 0.5
    assert [round(node.inputs[i].default_value, 5) for i in range(3)] == \
        [round(x / n, 5) for x in mfm.DEFAULT_LIGHT]
    sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
    bpy.context.scene.collection.objects.link(sun)
    sun.rotation_euler = (1.5707963, 0.0, 0.0)  # local +Z turned to world -Y
    bpy.context.view_layer.update()
    mfm.build_materials(model, "b", scene=bpy.context.scene)
    got = [node.inputs[i].default_value for i in range(3)]
    assert got == pytest.approx([0.0, -1.0, 0.0], abs=1e-5)


def test_depth_test_off_draws_the_object_in_front(api, tmp_path, monkeypatch):
    """The showcase with its 'konst' material drawn with the depth test off
    (as a game's eyes, through the face): that material's mesh object is
    In Front, the others are not; the report says so once."""
    import sys

    tools = str(ROOT / "tools")
    if tools not in sys.path:
        sys.path.append(tools)
    import samples_materials as sm

    mats = sm._materials()
    names = [m["name"] for m in mats]
    mats[names.index("konst")]["z_mode"] = (0, 3, 0)  # (test off, LEQUAL, no write)
    monkeypatch.setattr(sm, "_materials", lambda: mats)
    path = tmp_path / "eyes.bmd"
    path.write_bytes(sm.showcase())
    res = api.import_files([str(path)])
    shapes = [o for o in bpy.data.objects if o.type == "MESH" and "gameanim_shape" in o]
    assert len(shapes) == 4
    front = {o.name for o in shapes if o.show_in_front}
    assert front == {o.name for o in shapes if o.data.materials[0].name.startswith("konst")}
    assert len(front) == 1
    approx = [n for n in res.report.files[0].notes if n.startswith("materials approximate")]
    assert len(approx) == 1 and "depth test off" in approx[0]
