"""Lossless export: an action imported by gameanim and not edited writes
back exactly the original file's bytes, for every sample of every format
(compression wrappers included), whatever import options shaped its
curves (new or existing rig, baked bones, root motion on the object,
frame offset, translation scale, scene rate), and after a save and reload
of the .blend.  The compression option picks the wrapper."""
import bpy
import pytest
from blhelpers import make_rig, sample_id, samples

from exphelpers import all_samples, btk_materials, export_bytes, import_sample


@pytest.mark.parametrize("path", all_samples(), ids=sample_id)
def test_unedited_import_exports_the_original_bytes(path, api):
    """Every sample, every format: import onto a new rig (BTK: onto
    materials of the file's names), export as imported -> the same bytes."""
    actions = import_sample(api, path)
    original = path.read_bytes()
    for action in actions:
        data, result = export_bytes(api, action)
        assert data == original, f"{action.name}: {result.summary()} {result.changed[:3]}"
        assert result.original and result.changed == []


BAKED_CASES = ["j3d/walk_type0.bck", "j3d/dance_8x48.yaz0.bck", "bca/bones20_raw.bca", "bca/walk_even_lz77.bca",
               "bk/features.bin", "bk/features_rarezip.bin", "jba/legacy_walk.jba", "jba/jawb_unnamed.jba"]


def rotated_rig(api, ga, path):
    """A chain with rest rotations: every bone is baked on import."""
    from io_anim_gameanim.shared.rig_match import anim_targets

    anim = ga.load(str(path))
    targets = anim_targets(anim)
    if anim.format == "bk":
        targets = sorted(targets)
    elif all(isinstance(t, int) for t in targets):
        targets = list(range(max(targets) + 1))
    spec, prev = [], None
    for i, t in enumerate(targets):
        head = (0.3 * i, 0.2 * i, 0.1 * i)
        tail = (head[0] + 0.5, head[1] + 0.1 * (i % 3), head[2] + 0.4)
        name = t if isinstance(t, str) else f"b{t}"
        spec.append((name, prev, head, tail, 0.3 * i))
        prev = name
    rig = make_rig("Rig", spec)
    if anim.format == "bk":
        for (name, *_r), t in zip(spec, targets):
            rig.data.bones[name]["gameanim_bone_id"] = t
    kw = {"bone_match": "INDEX"} if anim.format == "jba" and isinstance(targets[0], int) else {}
    return rig, kw


@pytest.mark.parametrize("path", samples(*BAKED_CASES), ids=sample_id)
def test_baked_bones_and_import_options_still_give_the_original(path, api, ga):
    """Baked bones (rest rotations), a frame offset, a translation scale,
    the scene rate and root motion on the object: the export rebuilds the
    importer's curves from the stored options and finds them unchanged."""
    rig, kw = rotated_rig(api, ga, path)
    bpy.context.scene.render.fps = 24
    res = api.import_files([str(path)], armature=rig, frame_offset=5.0, translation_scale=2.0,
                           frame_rate="SCENE", root_motion="OBJECT", **kw)
    fr = res.report.files[0]
    assert fr.ok and fr.baked, fr.error
    data, result = export_bytes(api, res[0])
    assert data == path.read_bytes(), result.changed[:3]


@pytest.mark.parametrize("mode", ["EXACT", "BAKED"])
def test_curve_modes_give_the_original(mode, api):
    path = samples("j3d/long_60x600.bck")[0]
    res = api.import_files([str(path)], target="NEW", curve_mode=mode)
    data, _ = export_bytes(api, res[0])
    assert data == path.read_bytes()


def test_saved_and_reloaded_blend_still_gives_the_original(api, tmp_path):
    paths = samples("j3d/walk_cycle.yaz0.bck", "bk/features_rarezip.bin", "jba/jawb_walk.jba",
                    "j3d/scroll_basic.btk")
    btk_materials(paths[-1])
    actions = []
    for p in paths:
        actions.extend(a.name for a in import_sample(api, p))
    blend = tmp_path / "saved.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    originals = {p.stem.split(".")[0]: p.read_bytes() for p in paths}
    for name in actions:
        data, _ = export_bytes(api, bpy.data.actions[name])
        key = next(k for k in originals if name.startswith(k))
        assert data == originals[key], name


def test_compression_option_chooses_the_wrapper(api, ga):
    path = samples("bca/walk_even_lz77.bca")[0]
    res = api.import_files([str(path)], target="NEW")
    payload = ga.decompress("lz77", path.read_bytes())
    bare, result = export_bytes(api, res[0], compression="NONE")
    assert bare == payload and result.compression is None
    yaz0, result = export_bytes(api, res[0], compression="yaz0")
    assert yaz0[:4] == b"Yaz0" and ga.decompress("yaz0", yaz0) == payload and result.compression == "yaz0"
    again, _ = export_bytes(api, res[0], compression="AS_IMPORTED")
    assert again == path.read_bytes()


def test_wrapped_btk_and_bk_as_imported_keep_their_compressed_bytes(api):
    for p in samples("j3d/water_scroll.yay0.btk", "bk/features_rarezip.bin"):
        for action in import_sample(api, p):
            data, result = export_bytes(api, action)
            assert data == p.read_bytes() and result.compression in ("yay0", "rarezip")


def test_operator_writes_the_original_bytes(addon, api, tmp_path):
    """File > Export > BCK, run as the operator with its defaults."""
    path = samples("j3d/walk_type0.bck")[0]
    res = api.import_files([str(path)], target="NEW")
    out = tmp_path / "op.bck"
    assert bpy.ops.export_anim.gameanim_bck(filepath=str(out), action=res[0].name) == {"FINISHED"}
    assert out.read_bytes() == path.read_bytes()


# ---------------------------------------------------------------------------
# options that change the header only


def test_jba_layout_option_converts_to_jawb(api):
    """legacy_walk.jba in the 64-bit layout is jawb_walk.jba (the sample
    generator writes the same clip both ways)."""
    (action,) = import_sample(api, samples("jba/legacy_walk.jba")[0])
    data, _ = export_bytes(api, action, layout="64")
    assert data == samples("jba/jawb_walk.jba")[0].read_bytes()
    data, _ = export_bytes(api, action, layout="32")
    assert data == samples("jba/legacy_walk.jba")[0].read_bytes()


def test_loop_option_patches_only_the_loop_byte(api):
    path = samples("j3d/walk_type0.bck")[0]
    (action,) = import_sample(api, path)
    data, _ = export_bytes(api, action, loop="once")
    orig = path.read_bytes()
    assert len(data) == len(orig)
    assert [i for i in range(len(orig)) if data[i] != orig[i]] == [0x28]  # ANK1 + 8: the loop mode
    assert data[0x28] == 0  # once


def test_scene_range_equal_to_the_import_keeps_the_original(api):
    path = samples("bca/swing_odd.bca")[0]  # 33 frames, a loop
    scene = bpy.context.scene
    (action,) = import_sample(api, path, frame_offset=10.0, set_scene_range=True)
    assert (scene.frame_start, scene.frame_end) == (10, 42)
    data, result = export_bytes(api, action, frame_range="SCENE")
    assert data == path.read_bytes() and result.notes == []


def test_another_range_resamples_the_action(api, ga):
    path = samples("j3d/walk_type0.bck")[0]
    (action,) = import_sample(api, path)
    data, result = export_bytes(api, action, frame_range="CUSTOM", frame_start=5, frame_end=15)
    assert any("every channel resampled" in n for n in result.notes)
    anim, orig = ga.load(data), ga.load(str(path))
    assert anim.frame_count == 10.0 and anim.loop == orig.loop
    # file frame f is the old frame f + 5
    frames = [float(f) for f in range(11)]
    got, want = anim.sample(frames), orig.sample([f + 5 for f in frames])
    unit = (1 << anim.rotation_frac) * 3.141592653589793 / 32768.0
    assert max(abs(a - b) for a, b in zip(got, want)) <= 1e-3 + 2 * unit
