"""Texture coordinates in the model import's materials.  Wrap modes: mirror (no MIRROR
extension before Blender 3.5) and textures whose axes wrap differently
are wrapped in nodes (tev_graph.wrap_plan) before an EXTEND image.  A
plane whose UV0 runs over [-1, 2] x [-1, 2] is baked with Cycles and each
texel compared with the texel the GX reads there (written here from the
wrap modes' meaning) through Material.evaluate."""
import random

import bpy
import pytest

from bl_material_bake import ROOT, _bake, _colour_source, _to_srgb_byte
from bl_tev_bake import _scene as cycles_bake_scene
from io_anim_gameanim import compat
from io_anim_gameanim.importing import materials_from_model as mfm

N = 8        # texture side
SPAN = 3     # the plane's UVs cover SPAN repeats per axis, from -1
SIDE = N * SPAN  # bake side: one bake texel per texture texel
WRAP = {"clamp": 0, "repeat": 1, "mirror": 2}


def _gx_index(texel, wrap):
    if wrap == "clamp":
        return min(max(texel, 0), N - 1)
    if wrap == "repeat":
        return texel % N
    period = texel % (2 * N)
    return period if period < N else 2 * N - 1 - period


def _model(ga, wrap_s, wrap_t):
    import sys

    if str(ROOT) not in sys.path:
        sys.path.append(str(ROOT))
    from tools import make_models as mm

    rng = random.Random(51)
    tex = mm.texture("w", "RGB5A3", N, N, bytes(rng.randrange(256) for _ in range(2 * N * N)),
                     wrap_s=WRAP[wrap_s], wrap_t=WRAP[wrap_t], mag_filter=0, min_filter=0)
    show_tex = ((15, 15, 15, 8, 0, 0, 0, 1, 0), (7, 7, 7, 4, 0, 0, 0, 1, 0))  # TEXC, TEXA
    mat = mm.material("wrapped", textures=(0,), stages=((0, 0, 0xFF),), tev=(show_tex,))
    data = mm.write_j3d_model([mm.joint("root")], [-1], extra_chunks=[("MAT3", mm.mat3_body([mat])),
                                                                      ("TEX1", mm.tex1_body([tex]))])
    return ga.load_model(data)


def _plane():
    mesh = bpy.data.meshes.new("wrap plane")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], [], [(0, 1, 2, 3)])
    lo, hi = -1.0, SPAN - 1.0
    mesh.uv_layers.new(name="UV0").data.foreach_set("uv", [lo, lo, hi, lo, hi, hi, lo, hi])
    # (the bake writes where the active UV map puts a point: [0, 1]^2; the
    # material reads UV0 by name)
    bake = mesh.uv_layers.new(name="bake")
    bake.data.foreach_set("uv", [0, 0, 1, 0, 1, 1, 0, 1])
    mesh.uv_layers.active = bake
    ob = bpy.data.objects.new("wrap plane", mesh)
    bpy.context.scene.collection.objects.link(ob)
    cycles_bake_scene()
    return ob


@pytest.mark.parametrize("wraps", [("mirror", "mirror"), ("mirror", "repeat"), ("clamp", "mirror"),
                                   ("repeat", "repeat")])
def test_wrap_modes_read_the_gxs_texels(ga, wraps):
    model = _model(ga, *wraps)
    (bm,), _notes = mfm.build_materials(model, "wrap")
    tree = bm.node_tree
    wrapped = [n for n in tree.nodes if n.type == "GROUP" and n.node_tree.name.startswith("gameanim TEV wrap")]
    assert bool(wrapped) == compat.image_wraps_in_node(*wraps)
    ob = _plane()
    ob.data.materials.append(bm)
    colour = _bake(ob, tree, _colour_source(tree), SIDE)
    t = model.textures[0]
    px = t.pixels
    texels = []
    for j in range(SIDE):  # bake row j (bottom first): v = -1 + (j + 0.5) / N, t = 1 - v
        # GX row: floor(t * N) with t = 1 - v, i.e. N - 1 - (j - N) for the bake row j
        gx_row = _gx_index(N - 1 - (j - N), wraps[1])
        for i in range(SIDE):
            gx_col = _gx_index(i - N, wraps[0])
            texels.append(bytes(px[4 * (gx_row * N + gx_col):][:4]))
    want, _ = model.materials[0].evaluate([b"".join(texels)], [None])
    got = [_to_srgb_byte(v) for k in range(SIDE * SIDE) for v in colour[4 * k:4 * k + 3]]
    exp = [want[4 * k + c] for k in range(SIDE * SIDE) for c in range(3)]
    bad = [k // 3 for k, (g, w) in enumerate(zip(got, exp)) if abs(g - w) > 1]
    assert not bad, f"{len(bad)} texels differ, first at {bad[:3]}"


# ---------------------------------------------------------------------------
# An environment map: a texgen from the normal (mapping mode 6)


def test_an_env_map_texgen_reads_the_view_space_normal(ga):
    """Texgen NRM through TEXMTX0 of mode 6 (with a Basic SRT: scale 0.5
    about the centre (0.5, 0.5), translation (0.1, 0)): a plane facing +Z
    seen by a tilted camera reads the texel at (s, t) = S ((1/2 + n.x / 2,
    1/2 - n.y / 2) - c) + c + T, n its normal in camera space (both Y up,
    -Z forward, as GX view space)."""
    import math
    import sys

    from mathutils import Vector

    if str(ROOT) not in sys.path:
        sys.path.append(str(ROOT))
    from tools import make_models as mm

    rng = random.Random(52)
    tex = mm.texture("env", "RGB5A3", N, N, bytes(rng.randrange(256) for _ in range(2 * N * N)),
                     wrap_s=0, wrap_t=0, mag_filter=0, min_filter=0)
    show_tex = ((15, 15, 15, 8, 0, 0, 0, 1, 0), (7, 7, 7, 4, 0, 0, 0, 1, 0))
    identity = tuple(float(k % 5 == 0) for k in range(16))
    mat = mm.material("env", textures=(0,), texgens=((1, 1, 30),), stages=((0, 0, 0xFF),), tev=(show_tex,),
                      tex_matrices=[(1, 6, (0.5, 0.5, 0.0), (0.5, 0.5), 0, (0.1, 0.0), identity)])
    data = mm.write_j3d_model([mm.joint("root")], [-1], extra_chunks=[("MAT3", mm.mat3_body([mat])),
                                                                      ("TEX1", mm.tex1_body([tex]))])
    model = ga.load_model(data)
    assert model.materials[0].texgens[0].source == "NRM" and model.materials[0].tex_matrices[0].mode == 6
    (bm,), notes = mfm.build_materials(model, "env")
    assert not any("NRM" in n for n in notes)  # (exact enough: not reported)
    cam = bpy.data.objects.new("cam", bpy.data.cameras.new("cam"))
    bpy.context.scene.collection.objects.link(cam)
    cam.rotation_euler = (0.5, -0.7, 0.2)
    bpy.context.scene.camera = cam
    bpy.context.view_layer.update()
    nv = cam.matrix_world.to_3x3().transposed() @ Vector((0.0, 0.0, 1.0))
    s, t = 0.5 + 0.5 * nv.x, 0.5 - 0.5 * nv.y
    s, t = 0.5 * (s - 0.5) + 0.5 + 0.1, 0.5 * (t - 0.5) + 0.5
    col, row = math.floor(s * N), math.floor(t * N)
    assert min(abs(s * N - round(s * N)), abs(t * N - round(t * N))) > 0.05  # (away from texel edges)
    ob = _plane()
    ob.data.materials.append(bm)
    colour = _bake(ob, bm.node_tree, _colour_source(bm.node_tree), 4)
    texel = bytes(model.textures[0].pixels)[4 * (row * N + col):][:4]
    want, _ = model.materials[0].evaluate([texel], [None])
    for k in range(16):
        got = [_to_srgb_byte(v) for v in colour[4 * k:4 * k + 3]]
        assert max(abs(g - w) for g, w in zip(got, want[:3])) <= 1, (k, got, list(want[:3]))
