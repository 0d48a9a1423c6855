"""Issue 21 in Blender: J3D BCA onto armatures (the frame rules), BRK and
BPK colours, BTP texture patterns and BVA visibility.  The game's values
come from gameanim's sample() of the file (the codec, not the add-on's
curve code) and from the rules of docs/formats/j3d_kinds.md written out
here; Blender's side is read from the F-curves and from the values Blender
evaluates at a frame (drivers, node sockets)."""
import math
import os

import bpy
import pytest
from blhelpers import fcurves_of, pose_path, samples

from exphelpers import export_bytes

BCA = samples("j3d/kart_object.bca")[0]
BRK = samples("j3d/tev_pulse.brk")[0]
BPK = samples("j3d/material_fade.bpk")[0]
BTP = samples("j3d/eye_mouth.btp")[0]
BVA = samples("j3d/parts_blink.bva")[0]


HAS_SLOTS = "slots" in bpy.types.Action.bl_rna.properties


def fcurve(action, path, index=0, owner=None):
    """The curve of `action` at path[index]; with owner (4.4+), in the slot
    the owner is given."""
    slot = owner.animation_data.action_slot if owner is not None and HAS_SLOTS else None
    for fc in fcurves_of(action, slot):
        if fc.data_path == path and fc.array_index == index:
            return fc
    raise AssertionError(f"{action.name}: no curve {path}[{index}]")


def mesh_with(*names):
    """A mesh object using materials of these names (so that the depsgraph
    evaluates them and their drivers)."""
    me = bpy.data.meshes.new("m")
    ob = bpy.data.objects.new("holder", me)
    bpy.context.scene.collection.objects.link(ob)
    mats = {}
    for n in names:
        m = bpy.data.materials.new(n)
        if m.node_tree is None:
            m.use_nodes = True
        me.materials.append(m)
        mats[n] = m
    return mats


def game_full_frame(values, frame, rule):
    """The full-frame rules of j3d_kinds.md: nearest (int)(f + 0.5), truncate
    (int)f, lerp between whole frames; clamped to the table."""
    n = len(values)
    if frame <= 0:
        return values[0]
    if rule == "lerp":
        i = int(frame)
        if i >= n - 1:
            return values[-1]
        return values[i] + (frame - i) * (values[i + 1] - values[i])
    i = int(frame + 0.5) if rule == "nearest" else int(frame)
    return values[min(i, n - 1)]


def sampled(anim, frames):
    vals = anim.sample(frames)
    n = len(frames)
    return {(t.target, t.channel, t.axis): vals[i * n:(i + 1) * n] for i, t in enumerate(anim.tracks)}


# ---------------------------------------------------------------------------
# J3D BCA


@pytest.mark.parametrize("rule", ["nearest", "truncate", "lerp"])
def test_j3d_bca_curves_show_the_frame_rule(api, ga, rule):
    """The rotation and scale curves (the bones of a new rig have no rest
    rotation: exact channels) give sample() under the chosen frame rule at
    quarter frames, and the plain-Python rule from the notes agrees: the
    nearest rule switches half a frame early, truncate on whole frames,
    lerp interpolates."""
    res = api.import_files([str(BCA)], target="NEW", frame_rule=rule)
    fr = res.report.files[0]
    assert fr.ok and fr.exact and not fr.baked, (fr.error, fr.baked)
    anim = ga.load(str(BCA))
    anim.frame_rule = rule
    frames = [k * 0.25 for k in range(int(anim.frame_count) * 4)]
    got = sampled(anim, frames)
    bones = [b.name for b in bpy.data.objects[fr.owners[0]].data.bones]
    checked = 0
    for t in anim.tracks:
        if t.channel not in ("rotation", "scale") or len(t) < 2:
            continue
        prop = "rotation_euler" if t.channel == "rotation" else "scale"
        fc = fcurve(res[0], pose_path(bones[t.target], prop), t.axis)
        values = list(t.values)
        tol = 2e-4 if (rule == "lerp" and t.channel == "rotation") else 1e-5  # (the game truncates lerped s16)
        for f, g in zip(frames, got[(t.target, t.channel, t.axis)]):
            assert abs(fc.evaluate(f) - g) <= tol, (t.target, t.channel, t.axis, f, fc.evaluate(f), g)
            assert abs(game_full_frame(values, f, rule) - g) <= tol
        kinds = {k.interpolation for k in list(fc.keyframe_points)[:-2]}  # (a held period key ends it)
        assert kinds == ({"LINEAR"} if rule == "lerp" else {"CONSTANT"})
        checked += 1
    assert checked >= 2


def test_j3d_bca_edited_export_reloads_with_the_edit(api, ga):
    """Nearest rule: moving the value of one key (the switch to frame 3, at
    2.5) re-encodes that track with the new value at frame 3; the other
    frames keep theirs."""
    res = api.import_files([str(BCA)], target="NEW")
    anim0 = ga.load(str(BCA))
    t = next(t for t in anim0.tracks if t.channel == "translation" and len(t) > 4)
    bones = [b.name for b in bpy.data.objects[res.report.files[0].owners[0]].data.bones]
    fc = fcurve(res[0], pose_path(bones[t.target], "location"), t.axis)
    key = next(k for k in fc.keyframe_points if abs(k.co.x - 2.5) < 1e-6)
    key.co.y += 4.0
    data, result = export_bytes(api, res[0])
    assert not result.original and result.changed
    got = ga.load(data).find(t.target, t.channel, t.axis)
    assert list(got.values)[3] == pytest.approx(list(t.values)[3] + 4.0)
    assert list(got.values)[:3] == pytest.approx(list(t.values)[:3])
    assert list(got.values)[4:] == pytest.approx(list(t.values)[4:])


# ---------------------------------------------------------------------------
# BRK and BPK


def color_at(mat, node, frame):
    bpy.context.scene.frame_set(int(frame))
    return list(mat.node_tree.nodes[node].outputs[0].default_value)


@pytest.mark.parametrize("path", [BRK, BPK], ids=lambda p: p.name)
def test_colours_keep_the_stored_values_and_show_the_clamped_colour(api, ga, path):
    """Per entry, the material's property holds the curve as stored (s16
    units, beyond 255 too), and the RGB node the add-on drives shows it
    clamped to 0..255 / 255 at every frame."""
    anim = ga.load(str(path))
    mats = mesh_with(*{e["material"] for e in anim.entries})
    res = api.import_files([str(path)])
    fr = res.report.files[0]
    assert fr.ok and not fr.unmatched and len(res) == len(mats)
    frames = [float(f) for f in range(int(anim.frame_count) + 1)] + [2.5, 14.5]
    got = sampled(anim, frames)
    above = False
    for i, e in enumerate(anim.entries):
        mat = mats[e["material"]]
        name = ("gameanim_color" if path.suffix == ".bpk" else
                f"gameanim_color_{'C' if e['kind'] == 'register' else 'K'}{e['color_id']}")
        action = mat.animation_data.action
        for f_i, f in enumerate(frames):
            shown = color_at(mat, name, f) if f == int(f) else None
            for c in range(4):
                g = got[(i, "color", c)][f_i] if (i, "color", c) in got else 0.0
                assert fcurve(action, f'["{name}"]', c).evaluate(f) == pytest.approx(g, abs=1e-3)
                if shown is not None:
                    assert mat[name][c] == pytest.approx(g, abs=1e-3)
                    assert shown[c] == pytest.approx(min(max(g, 0.0), 255.0) / 255.0, abs=1e-5)
                    above |= g > 255.0
    if path.suffix == ".brk":
        assert above  # (the sample's registers pass 255: the clamp was exercised)


def test_colour_node_feeds_the_base_color(api):
    mats = mesh_with("fade")
    api.import_files([str(BPK)])
    tree = mats["fade"].node_tree
    links = [(lnk.from_node.name, lnk.to_socket.name) for lnk in tree.links]
    assert ("gameanim_color", "Base Color") in links
    # four drivers, simple expressions: evaluated without Python, so shown
    # also where scripts may not auto-run
    drivers = tree.animation_data.drivers
    assert len(drivers) == 4
    assert all(d.driver.is_valid and d.driver.is_simple_expression for d in drivers)


def test_missing_materials_are_reported_and_nothing_is_made(api):
    res = api.import_files([str(BRK)])
    fr = res.report.files[0]
    assert fr.ok and not fr.imported and len(res) == 0
    assert sorted(fr.missing_materials) == ["body", "eye", "glow"]
    assert len(fr.unmatched) == 3


@pytest.mark.parametrize("path", [BRK, BPK, BTP, BVA], ids=lambda p: p.name)
def test_edited_kind_exports_the_edit(api, ga, path):
    """One key of the first curve moved: that track is re-encoded with the
    new value at that frame; every other track comes back as it was."""
    anim0 = ga.load(str(path))
    mesh_with(*{e["material"] for e in anim0.entries or []})
    if path.suffix == ".bva":
        for i in range(3):
            o = bpy.data.objects.new(f"shape_{i}", None)
            bpy.context.scene.collection.objects.link(o)
    res = api.import_files([str(path)])
    assert res.report.files[0].ok
    first = res[0]
    fc = next(fc for fc in fcurves_of(first) if len(fc.keyframe_points) > 1 and fc.data_path != "hide_render")
    key = fc.keyframe_points[1]
    frame = key.co.x
    if path.suffix == ".bva":  # (hide_viewport: 1 - show; nearest rule: the key is the switch to frame + 0.5)
        key.co.y = 1.0 - key.co.y
        frame += 0.5
    else:
        key.co.y += 1.0
    data, result = export_bytes(api, first)
    assert not result.original and len(result.changed) == 1, result.changed
    anim = ga.load(data)
    a, b = sampled(anim0, [frame]), sampled(anim, [frame])
    diff = [k for k in a if abs(a[k][0] - b[k][0]) > 1e-3]
    assert len(diff) == 1, diff
    k = diff[0]
    assert abs(a[k][0] - b[k][0]) == pytest.approx(1.0, abs=1e-3)
    for t0, t1 in zip(anim0.tracks, anim.tracks):
        if (t0.target, t0.channel, t0.axis) != k:
            assert list(t0.values) == list(t1.values) and list(t0.times) == list(t1.times)


def test_each_kind_is_offered_and_comes_back_byte_for_byte(api):
    """The file lists take the kinds' extensions; an untouched import of
    each writes the original bytes (all the file's actions go back into one
    file)."""
    from io_anim_gameanim.importing import importer

    for path in (BRK, BPK, BTP, BVA, BCA):
        assert path.suffix in importer.file_extensions()
    mesh_with("body", "eye", "glow", "fade", "eyeL", "mouth")
    for path in (BRK, BPK, BTP, BVA):
        res = api.import_files([str(path)])
        for action in res:
            data, result = export_bytes(api, action)
            assert data == path.read_bytes() and result.original, result.summary()


def test_new_brk_from_keyed_material_properties(api, ga, tmp_path):
    """A material keyed by hand (no import): gameanim_color_C1 with three
    keys, gameanim_color_K0 held; the new BRK has a register entry C1 then
    a konst entry K0 of that material, the keys as keyed (300 stays 300),
    the held colour as one key."""
    mat = bpy.data.materials.new("mat")
    mat["gameanim_color_K0"] = [10.0, 20.0, 30.0, 40.0]
    mat["gameanim_color_C1"] = [0.0, 0.0, 0.0, 255.0]
    for f, v in ((0, 0.0), (10, 300.0), (20, 0.0)):
        mat["gameanim_color_C1"][0] = v
        mat.keyframe_insert('["gameanim_color_C1"]', index=0, frame=f)
    mat.keyframe_insert('["gameanim_color_K0"]', frame=0)
    out = tmp_path / "new.brk"
    result = api.export_action(str(out), mat.animation_data.action, format="brk", materials=[mat])
    assert result.ok
    anim = ga.load(str(out))
    assert anim.entries == [{"material": "mat", "kind": "register", "color_id": 1},
                            {"material": "mat", "kind": "konst", "color_id": 0}]
    assert anim.frame_count == 20.0
    r = anim.find(0, "color", 0)
    assert list(r.times) == [0.0, 10.0, 20.0] and list(r.values) == [0.0, 300.0, 0.0]
    assert [list(anim.find(1, "color", c).values) for c in range(4)] == [[10.0], [20.0], [30.0], [40.0]]
    assert list(anim.find(0, "color", 3).values) == [255.0]


def test_new_btp_and_bva_from_keys(api, ga, tmp_path):
    """BTP from a keyed integer property (CONSTANT keys): one texture
    number per frame, the value Blender holds at that frame.  BVA from
    shape objects' hide_viewport keys: show = not hidden, per frame, one
    shape per object."""
    mat = bpy.data.materials.new("eye")
    mat["gameanim_texmap0"] = 0
    for f, v in ((0, 0), (3, 1), (6, 2), (8, 2)):
        mat["gameanim_texmap0"] = v
        mat.keyframe_insert('["gameanim_texmap0"]', frame=f)
    for kp in fcurve(mat.animation_data.action, '["gameanim_texmap0"]').keyframe_points:
        kp.interpolation = "CONSTANT"
    out = tmp_path / "new.btp"
    assert api.export_action(str(out), mat.animation_data.action, format="btp", materials=[mat]).ok
    anim = ga.load(str(out))
    assert anim.entries == [{"material": "eye", "texmap": 0}]
    assert list(anim.tracks[0].values) == [0, 0, 0, 1, 1, 1, 2, 2]
    obs = []
    for i in range(2):
        o = bpy.data.objects.new(f"shape_{i}", None)
        bpy.context.scene.collection.objects.link(o)
        for f, h in ((0, False), (2 + i, True), (5, False)):
            o.hide_viewport = h
            o.keyframe_insert("hide_viewport", frame=f)
        obs.append(o)
    out = tmp_path / "new.bva"
    assert api.export_action(str(out), obs[0].animation_data.action, format="bva").ok
    anim = ga.load(str(out))
    assert [(t.target, list(t.values)) for t in anim.tracks] == [(0, [1, 1, 0, 0, 0]), (1, [1, 1, 1, 0, 0])]


def test_nothing_to_write_is_an_error_and_writes_nothing(api, tmp_path):
    from io_anim_gameanim.exporting.export_tracks import ExportError

    ob = bpy.data.objects.new("o", None)
    bpy.context.scene.collection.objects.link(ob)
    ob["x"] = 1.0
    ob.keyframe_insert('["x"]', frame=1)
    with pytest.raises(ExportError, match="gameanim_color_C"):
        api.export_action(str(tmp_path / "x.brk"), ob.animation_data.action, format="brk")
    assert not os.path.exists(tmp_path / "x.brk")


# ---------------------------------------------------------------------------
# BTP


def mix_factors(mat, name):
    out = {}
    for node in mat.node_tree.nodes:
        if node.name.startswith(name + " mix "):
            fac = next(s for s in node.inputs if s.type == "VALUE")
            out[int(node.name.rsplit(" ", 1)[1])] = fac.default_value
    return out


def test_texture_pattern_switches_the_image_and_reports_missing_textures(api, ga):
    """eyeL has Image Texture nodes labelled 'texture 0..2': the property
    holds getTexNo (the frame truncated) and the Mix chain selects exactly
    that image; mouth has none of 3..5: reported, still keyed."""
    mats = mesh_with("eyeL", "mouth")
    tree = mats["eyeL"].node_tree
    for k in range(3):
        node = tree.nodes.new("ShaderNodeTexImage")
        node.label = f"texture {k}"
    res = api.import_files([str(BTP)])
    fr = res.report.files[0]
    assert fr.ok and len(res) == 2
    assert len(fr.unmatched) == 1 and "'mouth'" in fr.unmatched[0] and "3, 4, 5" in fr.unmatched[0]
    anim = ga.load(str(BTP))
    values = list(anim.tracks[0].values)
    frames = [k * 0.5 for k in range(2 * int(anim.frame_count))]
    got = sampled(anim, frames)[(0, "texture_index", 0)]
    action = mats["eyeL"].animation_data.action
    fc = fcurve(action, '["gameanim_texmap0"]')
    assert {k.interpolation for k in fc.keyframe_points} == {"CONSTANT"}
    for f, g in zip(frames, got):
        assert g == values[min(int(f), len(values) - 1)]
        assert fc.evaluate(f) == g
        if f == int(f):
            bpy.context.scene.frame_set(int(f))
            assert mats["eyeL"]["gameanim_texmap0"] == g
            # the chain: image 0, then Mix k takes image k where the factor is 1
            facs = mix_factors(mats["eyeL"], "gameanim_texmap0")
            assert sorted(facs) == [1, 2]
            shown = 0
            for k in sorted(facs):
                if facs[k] == pytest.approx(1.0):
                    shown = k
                else:
                    assert facs[k] == pytest.approx(0.0)
            assert shown == g
    base = [lnk for lnk in tree.links if lnk.to_socket.name == "Base Color"]
    assert base and base[0].from_node.name == "gameanim_texmap0 mix 2"
    assert all(d.driver.is_valid and d.driver.is_simple_expression for d in tree.animation_data.drivers)


def test_texture_folder_supplies_the_images(api, tmp_path):
    """Option Texture Folder: files named by number become the pattern's
    Image Texture nodes; nothing is reported missing."""
    for k in range(6):
        img = bpy.data.images.new(f"t{k}", 4, 4)
        img.filepath_raw = str(tmp_path / f"eye_{k:02d}.png")
        img.file_format = "PNG"
        img.save()
    mats = mesh_with("eyeL", "mouth")
    res = api.import_files([str(BTP)], texture_folder=str(tmp_path))
    fr = res.report.files[0]
    assert fr.ok and fr.unmatched == []
    labels = {n.label for n in mats["mouth"].node_tree.nodes if n.type == "TEX_IMAGE"}
    assert labels == {"texture 3", "texture 4", "texture 5"}


# ---------------------------------------------------------------------------
# BVA


def test_visibility_keys_shape_objects_and_properties_for_the_others(api, ga):
    """Shape 0 is an object named shape_0, shape 2 an object with the
    property gameanim_shape = 2: their hide_viewport / hide_render are keyed
    (CONSTANT, hidden where the show byte is 0, nearest rule); shape 1 has no
    object: the property gameanim_shape001 on the active object holds the
    show bytes."""
    s0 = bpy.data.objects.new("shape_0", None)
    s2 = bpy.data.objects.new("lid", None)
    s2["gameanim_shape"] = 2
    holder = bpy.data.objects.new("holder", None)
    for o in (s0, s2, holder):
        bpy.context.scene.collection.objects.link(o)
    bpy.context.view_layer.objects.active = holder
    res = api.import_files([str(BVA)])
    fr = res.report.files[0]
    assert fr.ok and sorted(fr.owners) == ["holder", "lid", "shape_0"], fr.owners
    assert any("shape(s) 1 have no object" in n for n in fr.notes)
    anim = ga.load(str(BVA))
    frames = [k * 0.25 for k in range(4 * int(anim.frame_count))]
    got = sampled(anim, frames)
    for shape, ob in ((0, s0), (2, s2)):
        action = ob.animation_data.action
        vp, rd = fcurve(action, "hide_viewport", owner=ob), fcurve(action, "hide_render", owner=ob)
        values = list(anim.find(shape, "visibility", 0).values)
        for f, g in zip(frames, got[(shape, "visibility", 0)]):
            assert g == game_full_frame(values, f, "nearest")
            assert vp.evaluate(f) == rd.evaluate(f) == (0.0 if g else 1.0), (shape, f)
        assert {k.interpolation for k in vp.keyframe_points} == {"CONSTANT"}
    prop = fcurve(holder.animation_data.action, '["gameanim_shape001"]', owner=holder)
    for f, g in zip(frames, got[(1, "visibility", 0)]):
        assert prop.evaluate(f) == g
    assert any(not v for v in got[(1, "visibility", 0)])  # (shape 1 blinks: the test sees a change)
    bpy.context.scene.frame_set(3)
    assert s0.hide_viewport == (got[(0, "visibility", 0)][12] == 0)
    assert s2.hide_viewport == (got[(2, "visibility", 0)][12] == 0)
    assert not math.isnan(prop.evaluate(3))
    # issue 32: one action for the file, a slot per object (4.4+); before, one action per object
    if HAS_SLOTS:
        assert [a.name for a in res] == ["parts_blink.bva"]
        assert {ob.animation_data.action_slot.identifier for ob in (s0, s2, holder)} == \
            {"OBshape_0", "OBlid", "OBholder"}
    else:
        assert sorted(a.name for a in res) == ["parts_blink.bva [properties]", "parts_blink.bva [shape 0]",
                                               "parts_blink.bva [shape 2]"]


# ---------------------------------------------------------------------------
# Lossless under options, after a reload, in batch and from the operator


def import_kinds(api, **kw):
    """Every kind's sample onto materials of its names (on a mesh) and, for
    BVA, onto shape objects shape_0..2; {file name: actions}."""
    mesh_with("body", "eye", "glow", "fade", "eyeL", "mouth")
    for i in range(3):
        o = bpy.data.objects.new(f"shape_{i}", None)
        bpy.context.scene.collection.objects.link(o)
    out = {}
    for path in (BRK, BPK, BTP, BVA):
        res = api.import_files([str(path)], **kw)
        assert res.report.files[0].ok and len(res), res.report.files[0].error
        out[path.name] = [a.name for a in res]
    return out


@pytest.mark.parametrize("rule", ["nearest", "truncate", "lerp"])
def test_frame_offset_scene_rate_and_rules_still_give_the_original(api, rule):
    """A frame offset and a time scale (the scene's rate; J3D files store
    none, so the rate is 1: a frame offset it is) and each frame rule: the
    export rebuilds the import's curves and finds them unchanged."""
    bpy.context.scene.render.fps = 24
    names = import_kinds(api, frame_offset=7.0, frame_rate="SCENE", frame_rule=rule)
    res = api.import_files([str(BCA)], target="NEW", frame_offset=7.0, frame_rule=rule)
    names[BCA.name] = [res[0].name]
    for path in (BRK, BPK, BTP, BVA, BCA):
        for name in names[path.name]:
            data, result = export_bytes(api, bpy.data.actions[name])
            assert data == path.read_bytes(), (name, result.summary())


def test_j3d_bca_on_baked_bones_gives_the_original(api, ga):
    """Bones with rest rotations are baked (the game's values per frame):
    an untouched export still writes the original."""
    from blhelpers import make_rig

    anim = ga.load(str(BCA))
    n = 1 + max(t.target for t in anim.tracks)
    spec, prev = [], None
    for i in range(n):
        spec.append((f"b{i}", prev, (0.2 * i, 0.0, 0.0), (0.2 * i + 0.3, 0.2, 0.4), 0.5))
        prev = f"b{i}"
    rig = make_rig("Rig", spec)
    res = api.import_files([str(BCA)], armature=rig)
    assert res.report.files[0].baked
    data, _ = export_bytes(api, res[0])
    assert data == BCA.read_bytes()


def test_saved_and_reloaded_blend_gives_the_original_and_shows_the_values(api, tmp_path):
    """The properties, drivers and curves survive a save and reload: every
    kind's untouched actions write the original bytes, and a driven colour
    still shows its clamped value."""
    names = import_kinds(api)
    blend = tmp_path / "kinds.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    for path in (BRK, BPK, BTP, BVA):
        for name in names[path.name]:
            data, _ = export_bytes(api, bpy.data.actions[name])
            assert data == path.read_bytes(), name
    mat = bpy.data.materials["body"]
    shown = color_at(mat, "gameanim_color_C1", 15)
    assert mat["gameanim_color_C1"][0] == pytest.approx(300.0) and shown[0] == pytest.approx(1.0)


def test_batch_export_writes_one_file_per_imported_file(api, tmp_path):
    """export_actions: the actions of one BRK (one per material) go back
    into one file, byte for byte, named after the source."""
    import_kinds(api)
    results = api.export_actions(str(tmp_path), actions=[a for a in bpy.data.actions if a.get("gameanim_owner")])
    assert all(r.ok for r in results), [r.error for r in results]
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in (BRK, BPK, BTP, BVA))
    for path in (BRK, BPK, BTP, BVA):
        assert (tmp_path / path.name).read_bytes() == path.read_bytes()


def test_export_operator_takes_the_active_objects_material_action(addon, api, tmp_path):
    """File > Export > J3D Colour Animation with no action named: the
    active object's active material's action, and its file's other
    actions with it."""
    mats = mesh_with("body", "eye", "glow")
    api.import_files([str(BRK)])
    holder = bpy.data.objects["holder"]
    bpy.context.view_layer.objects.active = holder
    holder.active_material_index = list(mats).index("eye")
    out = tmp_path / "op.brk"
    assert bpy.ops.export_anim.gameanim_brk(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == BRK.read_bytes()


def test_importing_again_reuses_the_nodes_and_replaces_the_action(api):
    """A second import of the same BRK and BTP: the same nodes (no
    duplicates), the earlier actions replaced, no note, still lossless."""
    mats = mesh_with("body", "eye", "glow", "eyeL", "mouth")
    tree = mats["eyeL"].node_tree
    for k in range(3):
        tree.nodes.new("ShaderNodeTexImage").label = f"texture {k}"
    for path in (BRK, BTP):
        api.import_files([str(path)])
    before = {n: sorted(m.node_tree.nodes.keys()) for n, m in mats.items()}
    for path in (BRK, BTP):
        res = api.import_files([str(path)])
        fr = res.report.files[0]
        assert fr.ok and fr.notes == [] and fr.replaced, (fr.notes, fr.replaced)
        for action in res:
            data, _ = export_bytes(api, action)
            assert data == path.read_bytes()
    assert {n: sorted(m.node_tree.nodes.keys()) for n, m in mats.items()} == before
    assert [lnk.from_node.name for lnk in tree.links if lnk.to_socket.name == "Base Color"] == \
        ["gameanim_texmap0 mix 2"]


# ---------------------------------------------------------------------------
# J3D BCA on a model's rig


@pytest.mark.parametrize("calc", ["basic", "softimage", "maya"])
def test_j3d_bca_plays_on_the_bmd_it_is_selected_with(api, ga, tmp_path, calc):
    """A BMD and a J3D BCA selected together: the BCA goes onto the rig
    built from the model (not a new rig), and every pose bone's matrix is
    the game's world matrix (Model.world_matrices, nearest rule) at whole
    and fractional frames, within the sine table's bound; an untouched
    export writes the original."""
    import bl_models as bm

    n = len(bm.CHAIN)
    src = ga.load(bm.bck(ga, tmp_path, "move.bck", bm.moving_keys(bm.CHAIN), n))
    frames = [float(f) for f in range(9)]
    per = sampled(src, frames)
    tracks = [ga.Track(j, ch, a, frames, per[(j, ch, a)], interpolation=[ga.CONSTANT] * len(frames))
              for (j, ch, a) in sorted(per)]
    path = tmp_path / "move.bca"
    ga.Animation("j3d_bca", tracks, frame_count=9.0, loop="once").save(str(path))
    mpath = bm.j3d_model(tmp_path, calc)
    res = api.import_files([mpath, str(path)])
    assert all(f.ok for f in res.report.files), [f.error for f in res.report.files]
    assert len([o for o in bpy.data.objects if o.type == "ARMATURE"]) == 1
    obj = bm.built_rig()
    assert res.report.files[1].owners == [obj.name]
    model, anim = ga.load_model(mpath), ga.load(str(path))
    bm.assert_pose(obj, model, anim, [], [0.0, 1.0, 2.4, 2.6, 5.0, 7.5, 8.0])
    data, _ = export_bytes(api, res[0])
    assert data == path.read_bytes()


def test_two_entries_of_one_colour_the_first_wins(api, ga, tmp_path):
    """A BRK whose two register entries name the same material and colour
    C1: the first is keyed, the second noted, and the export still writes
    the original bytes."""
    tracks = [ga.Track(e, "color", c, [0.0, 10.0], [10.0 * (e + 1), 200.0]) for e in range(2) for c in range(4)]
    entries = [{"material": "m", "kind": "register", "color_id": 1}] * 2
    path = tmp_path / "twice.brk"
    ga.Animation("brk", tracks, frame_count=10.0, entries=entries).save(str(path))
    mats = mesh_with("m")
    res = api.import_files([str(path)])
    fr = res.report.files[0]
    assert fr.ok and any("entry 1" in n and "the first wins" in n for n in fr.notes), (fr.error, fr.notes)
    assert fcurve(mats["m"].animation_data.action, '["gameanim_color_C1"]', 0).evaluate(0.0) == pytest.approx(10.0)
    data, _ = export_bytes(api, res[0])
    assert data == path.read_bytes()


def angle_diff(a, b):
    return abs((a - b + math.pi) % (2.0 * math.pi) - math.pi)


def test_lerp_rotations_go_the_short_way_and_export_back_into_the_s16_range(api, ga, tmp_path):
    """Rotations 3.0 -> -3.0 -> -2.5 rad: the game (lerp) turns the short
    way round through pi; the curve is unwrapped so that Blender's LINEAR
    keys do the same.  An untouched export is the original; an edit writes
    the unwrapped values back wrapped into the s16 range (no error)."""
    tracks = [ga.Track(0, "rotation", 0, [0.0, 1.0, 2.0], [3.0, -3.0, -2.5], interpolation=[ga.CONSTANT] * 3)]
    path = tmp_path / "wrap.bca"
    ga.Animation("j3d_bca", tracks, frame_count=3.0, loop="once").save(str(path))
    res = api.import_files([str(path)], target="NEW", frame_rule="lerp")
    fr = res.report.files[0]
    assert fr.ok and fr.exact, fr.error
    anim = ga.load(str(path))
    anim.frame_rule = "lerp"
    fc = fcurve(res[0], pose_path(fr.exact[0], "rotation_euler"), 0)
    frames = [0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0]
    got = sampled(anim, frames)[(0, "rotation", 0)]
    for f, g in zip(frames, got):
        assert angle_diff(fc.evaluate(f), g) <= 2e-4, (f, fc.evaluate(f), g)
    assert abs(fc.evaluate(0.5)) > 3.0  # (through pi, not through 0)
    data, _ = export_bytes(api, res[0])
    assert data == path.read_bytes()
    key = fc.keyframe_points[2]
    key.co.y += 0.25  # (an unwrapped value past -pi... moved on)
    data, result = export_bytes(api, res[0])
    vals = list(ga.load(data).find(0, "rotation", 0).values)
    want = list(anim.find(0, "rotation", 0).values)
    want[2] += 0.25
    assert all(-math.pi <= v < math.pi for v in vals)
    assert all(angle_diff(a, b) <= 1e-4 for a, b in zip(vals, want)), (vals, want)


def test_new_j3d_bca_with_a_rotation_past_pi(api, ga, tmp_path):
    """A rig keyed by hand past pi (continuous Euler angles) writes a J3D
    BCA whose s16 rotations are the same angles wrapped."""
    from blhelpers import make_rig

    rig = make_rig("R", [("a", None, (0, 0, 0), (0, 1, 0), 0.0)])
    pb = rig.pose.bones["a"]
    pb.rotation_mode = "XYZ"
    for f, v in ((0, 2.5), (4, 4.0)):
        pb.rotation_euler = (0.0, 0.0, v)
        pb.keyframe_insert("rotation_euler", frame=f)
    out = tmp_path / "new.bca"
    result = api.export_action(str(out), rig.animation_data.action, armature=rig, format="j3d_bca")
    assert result.ok
    anim = ga.load(str(out))
    vals = list(anim.find(0, "rotation", 2).values)
    assert all(-math.pi <= v < math.pi for v in vals)
    assert angle_diff(vals[-1], fcurve(rig.animation_data.action, pose_path("a", "rotation_euler"), 2).evaluate(3)) \
        <= 1e-3


def test_bva_is_one_action_with_a_slot_per_object_and_exports_each_slots_edit(api, ga):
    """Issue 32: a BVA on shapes 0..2 is one action (4.4+: a slot per
    object; before, an action per object); importing it again replaces it
    and every object keeps its own slot; an edit on the third object's
    curve changes that shape's track alone."""
    obs = []
    for i in range(3):
        o = bpy.data.objects.new(f"shape_{i}", None)
        bpy.context.scene.collection.objects.link(o)
        obs.append(o)
    res = api.import_files([str(BVA)])
    assert len(res) == (1 if HAS_SLOTS else 3)
    again = api.import_files([str(BVA)])
    assert again.report.files[0].replaced and len(bpy.data.actions) == len(res)
    if HAS_SLOTS:
        assert [o.animation_data.action_slot.identifier for o in obs] == [f"OBshape_{i}" for i in range(3)]
        strips = [s for o in obs for t in o.animation_data.nla_tracks for s in t.strips]
        assert [s.action_slot.identifier for s in strips] == [f"OBshape_{i}" for i in range(3)]
    action = obs[2].animation_data.action
    fc = fcurve(action, "hide_viewport", owner=obs[2])
    key = fc.keyframe_points[1]
    key.co.y = 1.0 - key.co.y
    data, result = export_bytes(api, action)
    assert len(result.changed) == 1 and "shape_2" in result.changed[0], result.changed
    before, after = ga.load(str(BVA)), ga.load(data)
    changed = [t0.target for t0, t1 in zip(before.tracks, after.tracks) if list(t0.values) != list(t1.values)]
    assert changed == [2]
