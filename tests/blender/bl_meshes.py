"""Meshes of J3D models (docs/blender.md, Meshes from model files): the
evaluated mesh (depsgraph, to_mesh) against the game's skinning computed
here from the notes (../shared/formats/j3d_meshes.md): a rigid vertex is
drawn at W_j(frame) * p with p stored in joint j's space; an envelope
vertex at sum_k w_k * W_k(frame) * IB_k * p with p stored in bind space.
W comes from Model.world_matrices(anim, frame); the stored positions, DRW1
entries, envelopes and inverse binds are make_models' own MESH_* tables,
which the model was written from.  Compared at the BCK's keys (rotations
of whole table steps: the game's sine table and Blender agree there)."""
import struct
import sys

import bpy
import pytest
from mathutils import Matrix, Vector
from blhelpers import ROOT
from bl_models import KEY_TIMES, bck, moving_keys, write

sys.path.insert(0, str(ROOT / "tools"))
import make_models as mm  # noqa: E402  (the project's model writer)

SIZE_TOL = 1e-4  # of the model's size


# the head's inverse bind sheared: its skin matrix needs two bones
SHEARED = mm.MESH_BINDS[:2] + [[1.0, 0.3, 0, 0, 0, 1.0, 0, -16.0, 0.2, 0, 1.0, 0]]


def mesh_file(tmp_path, calc="basic", ssc=0xFF, binds=None, **kw):
    return write(tmp_path, f"mesh_{calc}.bmd", mm.mesh_model(calc=calc, scale_compensate=ssc, binds=binds, **kw))


def walk(ga, tmp_path, name="walk.bck"):
    chain = [(None, None, (0.0, 0.0, 0.0), (0, 0, 0), None, None),
             (None, None, (0.0, 10.0, 0.0), (0, 0, 256), None, None),
             (None, None, (0.0, 6.0, 0.0), (0, 0, 0), None, None)]
    return bck(ga, tmp_path, name, moving_keys(chain), 3)


def m4(flat, base=0):
    return Matrix([flat[base + 4 * r: base + 4 * r + 4] for r in range(4)])


def game_vertex(w, pos_index, draw_index, binds):
    """The game's skinning of one vertex (module docstring)."""
    p = Vector(mm.MESH_POSITIONS[pos_index])
    kind, index = mm.MESH_DRAW[draw_index]
    if kind == 0:
        return w[index] @ p
    out = Vector((0.0, 0.0, 0.0))
    for j, wt in mm.MESH_ENVELOPES[index]:
        ib = Matrix([binds[j][0:4], binds[j][4:8], binds[j][8:12], (0, 0, 0, 1)])
        out += wt * (w[j] @ ib @ p)
    return out


def shape_objects():
    return sorted((o for o in bpy.data.objects if o.type == "MESH" and "gameanim_shapes" in o),
                  key=lambda o: list(o["gameanim_shapes"]))


def skin_errors(model, anim, frames, binds=mm.MESH_BINDS):
    """Largest distance between the evaluated vertices and the game's, per
    frame, and the model's size; and which kinds of vertex were seen."""
    n = len(model.bones)
    meshes = {m.index: m for m in model.meshes}
    out, kinds = [], set()
    size = max(abs(c) for p in mm.MESH_POSITIONS for c in p)
    for f in frames:
        wf = model.world_matrices(anim, f)
        w = [m4(wf, 16 * i) for i in range(n)]
        bpy.context.scene.frame_set(int(f))
        dg = bpy.context.evaluated_depsgraph_get()
        worst = 0.0
        for obj in shape_objects():
            ev = obj.evaluated_get(dg)
            me = ev.to_mesh()
            try:
                v0 = 0
                for si in obj["gameanim_shapes"]:
                    mesh = meshes[si]
                    for v in range(len(mesh.positions) // 3):
                        want = game_vertex(w, mesh.position_indices[v], mesh.draw_indices[v], binds)
                        kinds.add(mm.MESH_DRAW[mesh.draw_indices[v]][0])
                        worst = max(worst, (me.vertices[v0 + v].co - want).length)
                    v0 += len(mesh.positions) // 3
                assert v0 == len(me.vertices)
            finally:
                ev.to_mesh_clear()
        out.append((f, worst))
    return out, size, kinds


@pytest.mark.parametrize("calc,ssc,mode,binds", [
    ("basic", 0xFF, "SHAPE", None), ("softimage", 0xFF, "SHAPE", None), ("maya", 1, "SHAPE", None),
    ("basic", 0xFF, "MODEL", None), ("basic", 0xFF, "SHAPE", SHEARED), ("maya", 1, "MODEL", SHEARED)])
def test_evaluated_mesh_is_the_games_skinning(api, ga, tmp_path, calc, ssc, mode, binds):
    model_path = mesh_file(tmp_path, calc, ssc, binds)
    anim_path = walk(ga, tmp_path)
    api.import_files([model_path, anim_path], mesh_objects=mode)
    model, anim = ga.load_model(model_path), ga.load(anim_path)
    objs = shape_objects()
    assert len(objs) == (len(model.meshes) if mode == "SHAPE" else 1)
    errs, size, kinds = skin_errors(model, anim, KEY_TIMES, binds or mm.MESH_BINDS)
    assert kinds == {0, 1}  # rigid and envelope vertices both checked
    for f, err in errs:
        assert err <= SIZE_TOL * size, f"frame {f}: a vertex is off by {err}"


def test_rest_pose_without_animation(api, ga, tmp_path):
    """With the model alone the meshes stand where the game draws them
    at rest (Model.world_matrices() without an animation)."""
    model_path = mesh_file(tmp_path)
    api.import_files([model_path])
    model = ga.load_model(model_path)
    errs, size, _ = skin_errors(model, None, [0])
    assert errs[0][1] <= SIZE_TOL * size


def test_skinning_fails_without_the_skin_bones(api, ga, tmp_path):
    """The skin bones carry the inverse binds: with their pose cleared the
    mesh is no longer the game's (so the comparison above can fail)."""
    model_path = mesh_file(tmp_path)
    anim_path = walk(ga, tmp_path)
    api.import_files([model_path, anim_path])
    arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    skins = [pb for pb in arm.pose.bones if "gameanim_skin" in pb.bone]
    assert skins, "the head's inverse bind is not T(-head): it needs a skin bone"
    for pb in skins:
        pb.location = (0.0, 0.0, 0.0)
        pb.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
        pb.scale = (1.0, 1.0, 1.0)
    model, anim = ga.load_model(model_path), ga.load(anim_path)
    errs, size, _ = skin_errors(model, anim, [4])
    assert errs[0][1] > 10 * SIZE_TOL * size


def test_shear_uses_two_skin_bones(api, ga, tmp_path):
    """A sheared inverse bind cannot be one bone's location, rotation and
    scale: that joint gets two skin bones; a joint whose inverse bind is
    T(-head) deforms with its own bone."""
    api.import_files([mesh_file(tmp_path, binds=SHEARED)])
    arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    head = [b.name for b in arm.data.bones if b.get("gameanim_skin") == 2]
    assert len(head) == 2
    # the body's inverse bind is T(-head): its own bone deforms right
    assert not [b for b in arm.data.bones if b.get("gameanim_skin") == 1]
    assert "body" in bpy.data.objects[f"{arm.name}_shape_0"].vertex_groups
    assert not any(b.name.startswith("SKIN ") for b in arm.data.bones if b.get("gameanim_skin") is None)


def test_mesh_data(api, ga, tmp_path):
    """Objects per shape under the armature with an Armature modifier;
    UVs (s, 1 - t), colours, custom normals, vertex groups and weights,
    materials by MAT3 name."""
    model_path = mesh_file(tmp_path)
    api.import_files([model_path])
    model = ga.load_model(model_path)
    arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    objs = shape_objects()
    assert [o.name for o in objs] == [f"{arm.name}_shape_{m.index}" for m in model.meshes]
    for obj, mesh in zip(objs, model.meshes):
        assert obj.parent == arm
        assert obj["gameanim_shape"] == mesh.index  # (BVA keys the object showing shape i)
        mod = [m for m in obj.modifiers if m.type == "ARMATURE"]
        assert len(mod) == 1 and mod[0].object == arm
        me = obj.data
        assert len(me.vertices) == len(mesh.positions) // 3
        assert len(me.polygons) == len(mesh.triangles) // 3
        for t, poly in enumerate(me.polygons):
            assert list(poly.vertices) == list(mesh.triangles[3 * t:3 * t + 3])
            assert poly.use_smooth
        uv = me.uv_layers[0].data
        for li, loop in enumerate(me.loops):
            s, t = mesh.uvs[0][2 * loop.vertex_index:2 * loop.vertex_index + 2]
            assert uv[li].uv[0] == pytest.approx(s, abs=1e-6)
            assert uv[li].uv[1] == pytest.approx(1.0 - t, abs=1e-6)
        col = me.color_attributes[0]
        for v in range(len(me.vertices)):
            assert list(col.data[v].color) == pytest.approx(list(mesh.colors[0][4 * v:4 * v + 4]), abs=1e-6)
        if hasattr(me, "calc_normals_split"):
            me.calc_normals_split()
        normals = me.corner_normals if hasattr(me, "corner_normals") else None
        for li, loop in enumerate(me.loops):
            got = normals[li].vector if normals is not None else loop.normal
            want = Vector(mesh.normals[3 * loop.vertex_index:3 * loop.vertex_index + 3])
            assert (Vector(got) - want).length < 1e-3
        # weights: each vertex's groups carry the joints' weights
        bone_joint = {}
        for b in arm.data.bones:
            j = b.get("gameanim_skin", b.get("gameanim_index"))
            if b.get("gameanim_skin") is not None or b.get("gameanim_ssc_helper") is None:
                bone_joint[b.name] = int(j)
        k = mesh.influences
        for v, vert in enumerate(me.vertices):
            got = {}
            for g in vert.groups:
                j = bone_joint[obj.vertex_groups[g.group].name]
                got[j] = got.get(j, 0.0) + g.weight
            want = {}
            for s in range(k):
                if mesh.weights[v * k + s]:
                    want[mesh.joints[v * k + s]] = mesh.weights[v * k + s]
            assert got == pytest.approx(want)
        assert [m.name for m in me.materials] == [model.materials[mesh.material].name]


# ---------------------------------------------------------------------------
# Materials and images


def test_materials_and_packed_images(api, ga, tmp_path):
    """One material per MAT3 material (names) around its TEV group; each
    texture its stages sample as a packed Non-Color image, rows bottom-up
    (Texture.pixels is top row first), read through a UV Map node; wrap
    modes and filtering; alpha per the blend mode."""
    model_path = mesh_file(tmp_path)
    api.import_files([model_path])
    model = ga.load_model(model_path)
    for mat in model.materials:
        bm = bpy.data.materials[mat.name]
        tree = bm.node_tree
        group = tree.nodes["gameanim TEV"]
        assert group.node_tree.name.startswith("gameanim TEV ")
        imgs = [n for n in tree.nodes if n.type == "TEX_IMAGE"]
        used = sorted({mat.textures[st.tex_map] for st in mat.tev_stages if st.tex_map is not None})
        assert sorted(n.image["gameanim_texture"] for n in imgs) == used
        for node in imgs:
            tex = model.textures[node.image["gameanim_texture"]]
            img = node.image
            assert img.packed_file is not None and img.colorspace_settings.name == "Non-Color"
            assert tuple(img.size) == (tex.width, tex.height)
            px = list(img.pixels)
            w = tex.width
            for y in (0, tex.height - 1):          # Blender row y is the texture's row height-1-y
                for x in (0, w - 1):
                    src = tex.pixels[4 * ((tex.height - 1 - y) * w + x):][:4]
                    got = px[4 * (y * w + x):4 * (y * w + x) + 4]
                    assert got == pytest.approx([c / 255.0 for c in src], abs=1e-6)
            src = node.inputs["Vector"].links[0].from_node
            if tex.wrap_s != tex.wrap_t or (tex.wrap_s == "mirror" and node.extension != "MIRROR"):
                # (wrapped in nodes: per-axis modes, or mirror before 3.5)
                assert node.extension == "EXTEND" and src.node_tree.name.startswith("gameanim TEV wrap")
                src = src.inputs["Vector"].links[0].from_node
            else:
                assert node.extension == {"repeat": "REPEAT", "clamp": "EXTEND", "mirror": "MIRROR"}[tex.wrap_s]
            assert node.interpolation == ("Closest" if tex.mag_filter == 0 else "Linear")
            assert src.type == "UVMAP" and src.uv_map == "UV0"
            assert any(lk.to_node == group for lk in node.outputs["Color"].links)
        translucent = mat.blend.type == "BLEND"
        if hasattr(bm, "surface_render_method"):
            assert bm.surface_render_method == ("BLENDED" if translucent else "DITHERED")
        else:
            assert bm.blend_method == ("BLEND" if translucent else "OPAQUE")
        assert bm.use_backface_culling == (mat.cull_mode == 2)
    # the vertex colours feed the rasterised colour of the body's first stage
    ras = bpy.data.materials["body"].node_tree.nodes["gameanim TEV"].inputs["RAS0"]
    assert ras.links[0].from_node.type == "VERTEX_COLOR" and ras.links[0].from_node.layer_name == "Col0"


def test_btk_with_the_model_animates_its_materials(api, ga, tmp_path):
    """A BTK selected with the model finds the new material's image
    through its UV Map node and keys the chain in front of it."""
    model_path = mesh_file(tmp_path)
    tracks = [ga.Track(0, "translation", 0, [0.0, 10.0], [0.0, 1.0], [0.1, 0.1], [0.1, 0.1])]
    entries = [{"material": "body", "texmtx_id": 0, "center": (0.5, 0.5, 0.5)}]
    btk = tmp_path / "scroll.btk"
    ga.Animation("btk", tracks, frame_count=10, entries=entries).save(str(btk))
    api.import_files([model_path, str(btk)])
    bm = bpy.data.materials["body"]
    image = next(n for n in bm.node_tree.nodes if n.type == "TEX_IMAGE")
    b = image.inputs["Vector"].links[0].from_node
    if b.type == "GROUP":  # (a coordinate wrapped in nodes: the chain goes before the wrap)
        assert b.node_tree.name.startswith("gameanim TEV wrap")
        b = b.inputs["Vector"].links[0].from_node
    assert b.type == "MAPPING"
    assert bm.node_tree.animation_data is not None and bm.node_tree.animation_data.action is not None
    seen = set()
    for f in (0, 5, 10):
        bpy.context.scene.frame_set(f)
        seen.add(round(b.inputs["Location"].default_value[0], 5))
    assert len(seen) == 3


@pytest.mark.parametrize("matrix_type", [1, 2])
def test_billboards_are_rigid_on_their_joint_and_noted(api, ga, tmp_path, matrix_type):
    """A billboard shape (the game turns it to the camera at draw time)
    follows its joint rigidly, and the report says so; the action is
    named after its file."""
    model_path = mesh_file(tmp_path, rigid_matrix_type=matrix_type)
    anim_path = walk(ga, tmp_path)
    res = api.import_files([model_path, anim_path])
    model, anim = ga.load_model(model_path), ga.load(anim_path)
    assert [m.matrix_type for m in model.meshes] == [3, matrix_type]
    notes = " ".join(res.report.files[0].notes)
    assert "billboard shape(s) [1]" in notes
    assert res[0].name == "walk.bck"
    errs, size, _ = skin_errors(model, anim, KEY_TIMES)
    for f, err in errs:
        assert err <= SIZE_TOL * size, f"frame {f}: a vertex is off by {err}"


def test_one_object_per_model_keeps_each_shapes_material(api, ga, tmp_path):
    """Option Meshes = Per Model: one object, a material slot per
    material, each triangle on its shape's material; None: no mesh."""
    model_path = mesh_file(tmp_path)
    api.import_files([model_path], mesh_objects="MODEL")
    model = ga.load_model(model_path)
    (obj,) = shape_objects()
    me = obj.data
    assert [m.name for m in me.materials] == [model.materials[m.material].name for m in model.meshes]
    want = []
    for slot, mesh in enumerate(model.meshes):
        want += [slot] * (len(mesh.triangles) // 3)
    assert [p.material_index for p in me.polygons] == want
    assert "gameanim_shape" not in obj
    bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
    api.import_files([model_path], mesh_objects="NONE")
    assert not shape_objects() and not [o for o in bpy.data.objects if o.type == "MESH" and o.parent]


def test_export_skips_the_skin_bones(api, ga, tmp_path):
    """The skin bones are helpers no file animates: an untouched action on
    a rig with meshes (and a sheared skin pair) exports as the original
    file."""
    from exphelpers import export_bytes

    model_path = mesh_file(tmp_path, binds=SHEARED)
    anim_path = walk(ga, tmp_path)
    res = api.import_files([model_path, anim_path])
    arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    assert len([b for b in arm.data.bones if "gameanim_skin" in b]) == 2
    data, result = export_bytes(api, res[0])
    assert data == open(anim_path, "rb").read() and result.changed == []


def test_skin_bones_are_made_in_the_armatures_own_edit_pass(ga, tmp_path):
    """prepare_skin hands build_model_armature the skin bones to make in its
    edit-mode pass (one pass for the import): they exist, posed with the
    sheared inverse bind, before any mesh; the meshes then add no bone;
    with Meshes: None there is no Skin."""
    from io_anim_gameanim.importing import model_mesh, rig_from_model

    path = mesh_file(tmp_path, binds=SHEARED)
    model = ga.load_model(path)
    skin = model_mesh.prepare_skin(ga, model, None)
    assert skin is not None and skin.joints == {j for m in model.meshes for j, _w, _v in m.groups}
    built = rig_from_model.build_model_armature(model, str(path), bpy.context, skin=skin)
    arm = built.obj
    head = [b.name for b in arm.data.bones if b.get("gameanim_skin") == 2]
    assert len(head) == 2
    # the two bones' pose bases multiply to N = B * T(head)
    top, shear = arm.pose.bones[head[0]], arm.pose.bones[head[1]]
    if top.parent == shear:
        top, shear = shear, top
    n = skin.binds[2] @ Matrix.Translation(arm.data.bones[built.names[2]].head_local)
    got = top.matrix_basis @ shear.matrix_basis
    assert max(abs(got[r][c] - n[r][c]) for r in range(4) for c in range(4)) < 1e-5
    # every joint the meshes use has its deforming bone already: make_bones has nothing left to plan
    assert set(skin.bones) == skin.joints and skin.bones[2] in head
    nbones = len(arm.data.bones)
    objects, _ = model_mesh.build_model_meshes(model, built, bpy.context, skin=skin)
    assert objects and len(arm.data.bones) == nbones
    assert model_mesh.prepare_skin(ga, model, type("O", (), {"mesh_objects": "NONE"})()) is None


def test_a_j3d2bmd2_models_materials_are_built_as_its_mat3_twins(api, ga, tmp_path):
    """A "J3D2bmd2" file keeps its materials in MAT2 (J3DMaterialBlock_v21):
    the import builds each on the same TEV group as the same model's MAT3
    twin, with the same images and the same group input values."""
    data = mm.mesh_model()
    api.import_files([write(tmp_path, "twin.bmd", data)])
    before = {m.name: m for m in bpy.data.materials}
    res = api.import_files([write(tmp_path, "old.bmd", mm.as_mat2(data))])
    assert all(f.ok for f in res.report.files), res.report.text()
    made = [m for m in bpy.data.materials if m.name not in before]
    assert sorted(m.name.rsplit(".", 1)[0] for m in made) == sorted(m.name for m in ga.load_model(data).materials)
    for bm in made:
        twin = before[bm.name.rsplit(".", 1)[0]]
        group, twin_group = bm.node_tree.nodes["gameanim TEV"], twin.node_tree.nodes["gameanim TEV"]
        assert group.node_tree == twin_group.node_tree
        def value(socket):
            v = socket.default_value
            return tuple(v) if hasattr(v, "__len__") else v

        for a, b in zip(group.inputs, twin_group.inputs):
            assert a.is_linked == b.is_linked, a.name
            if not a.is_linked and hasattr(a, "default_value"):
                assert value(a) == value(b), a.name
        images = sorted(n.image["gameanim_texture"] for n in bm.node_tree.nodes if n.type == "TEX_IMAGE")
        assert images == sorted(n.image["gameanim_texture"] for n in twin.node_tree.nodes if n.type == "TEX_IMAGE")
        assert images  # (textured: not the grey of a model without materials)
