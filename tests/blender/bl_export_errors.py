"""What a format cannot hold is an error (or a warning) naming the Blender
bone and the frame, never a silent clamp; a failed export leaves an
existing file untouched (failures forced in the encoder, in the middle of
writing and at the rename); the operators and menu entries exist; the
Python API and the batch entry point export many actions to a folder,
reporting and skipping a failing one."""
import io
import os

import bpy
import pytest
from blhelpers import make_rig, samples
from exphelpers import import_sample

from io_anim_gameanim.exporting.export_tracks import ExportError


def one_bone_rig(name="Rig", bone="arm", rest_rotated=False):
    tail = (0.3, 0.2, 1.0) if rest_rotated else (0.0, 1.0, 0.0)
    rig = make_rig(name, [(bone, None, (0, 0, 0), tail, 0.0)])
    rig.data.bones[bone]["gameanim_bone_id"] = 7
    return rig


def key_location(rig, bone, values):
    pb = rig.pose.bones[bone]
    for f, v in values:
        pb.location = v
        pb.keyframe_insert("location", frame=f)
    return rig.animation_data.action


PREVIOUS = b"previous file contents"


@pytest.fixture
def existing(tmp_path):
    def make(name):
        p = tmp_path / name
        p.write_bytes(PREVIOUS)
        return p
    return make


def leftovers(folder):
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


# ---------------------------------------------------------------------------
# values a format cannot hold


def test_bk_value_beyond_s16_over_64_names_bone_and_frame(api, existing):
    rig = one_bone_rig()
    action = key_location(rig, "arm", [(1, (0.0, 0.0, 0.0)), (5, (0.0, 600.0, 0.0)), (9, (0.0, 0.0, 0.0))])
    out = existing("big.bin")
    with pytest.raises(ExportError) as e:
        api.export_action(str(out), action, format="bk")
    msg = str(e.value)
    assert "'arm'" in msg and "frame 5" in msg and "s16/64" in msg and "translation Y" in msg
    assert out.read_bytes() == PREVIOUS and leftovers(out.parent) == []


def test_bca_value_beyond_20_12_names_bone_and_frame(api, existing):
    rig = one_bone_rig()
    action = key_location(rig, "arm", [(1, (0.0, 0.0, 0.0)), (4, (600000.0, 0.0, 0.0))])
    out = existing("big.bca")
    with pytest.raises(ExportError) as e:
        api.export_action(str(out), action, format="bca")
    msg = str(e.value)
    assert "'arm'" in msg and "frame 3" in msg and "20.12" in msg  # file frame 3 = scene frame 4
    assert out.read_bytes() == PREVIOUS


def test_jba_has_no_scale(api, existing):
    rig = one_bone_rig()
    pb = rig.pose.bones["arm"]
    pb.scale = (1.0, 1.0, 1.0)
    pb.keyframe_insert("scale", frame=1)
    pb.scale = (1.0, 2.0, 1.0)
    pb.keyframe_insert("scale", frame=11)
    out = existing("scaled.jba")
    with pytest.raises(ExportError, match=r"'arm'.*scale Y is 2 at frame 10; JBA stores no scale"):
        api.export_action(str(out), rig.animation_data.action, format="jba")
    assert out.read_bytes() == PREVIOUS


def test_bk_bone_without_id_is_an_error(api, tmp_path):
    rig = one_bone_rig(bone="hand")
    del rig.data.bones["hand"]["gameanim_bone_id"]
    action = key_location(rig, "hand", [(1, (0.0, 0.0, 0.0)), (5, (0.0, 1.0, 0.0))])
    with pytest.raises(ExportError, match=r"'hand' have no bone ID.*gameanim_bone_id"):
        api.export_action(str(tmp_path / "noid.bin"), action, format="bk")
    assert not (tmp_path / "noid.bin").exists()


def test_bk_bone_id_out_of_range_names_the_bone(api, tmp_path, existing):
    rig = one_bone_rig(bone="tail")
    rig.data.bones["tail"]["gameanim_bone_id"] = 5000
    action = key_location(rig, "tail", [(1, (0.0, 0.0, 0.0)), (5, (0.0, 1.0, 0.0))])
    out = existing("id.bin")
    with pytest.raises(ExportError, match=r"Blender bone 'tail'.*bone ID 5000 is not 0\.\.4095"):
        api.export_action(str(out), action, format="bk")
    assert out.read_bytes() == PREVIOUS


def test_bk_frames_beyond_the_format_name_the_bone(api, tmp_path):
    rig = one_bone_rig()
    action = key_location(rig, "arm", [(1, (0.0, 0.0, 0.0)), (20000, (0.0, 1.0, 0.0))])
    with pytest.raises(ExportError, match=r"Blender bone 'arm'.*BK frames are 0\.\.16383"):
        api.export_action(str(tmp_path / "long.bin"), action, format="bk", rate="FRAMES")


def test_bck_too_many_frames(api, tmp_path):
    rig = one_bone_rig()
    action = key_location(rig, "arm", [(0, (0.0, 0.0, 0.0)), (40000, (0.0, 1.0, 0.0))])
    with pytest.raises(ExportError, match="frame count 40000 does not fit the s16 duration"):
        api.export_action(str(tmp_path / "long.bck"), action, format="bck")


def test_jba_name_too_long_names_the_bone(api, tmp_path):
    rig = one_bone_rig(bone="spine")
    rig.data.bones["spine"]["gameanim_name"] = "x" * 5000
    action = key_location(rig, "spine", [(1, (0.0, 0.0, 0.0)), (3, (1.0, 0.0, 0.0))])
    with pytest.raises(ExportError, match=r"'spine'.*name is too long"):
        api.export_action(str(tmp_path / "n.jba"), action, format="jba")


def test_rounding_is_a_warning_with_the_bone(api, tmp_path):
    """BCA's grid rounds hand-made values: written, with a warning that
    names the Blender bone and the frame."""
    rig = one_bone_rig()
    action = key_location(rig, "arm", [(1, (0.0, 0.0, 0.0)), (5, (0.12345, 0.0, 0.0))])
    result = api.export_action(str(tmp_path / "r.bca"), action, format="bca")
    assert result.ok and result.warnings
    assert "Blender bone 'arm'" in result.warnings[0] and "frame" in result.warnings[0]


def test_unimported_action_needs_a_format(api, tmp_path):
    rig = one_bone_rig()
    action = key_location(rig, "arm", [(1, (0.0, 0.0, 0.0)), (5, (1.0, 0.0, 0.0))])
    with pytest.raises(ExportError, match="was not imported by gameanim: choose the format"):
        api.export_action(str(tmp_path / "x.bck"), action)


def test_unknown_option_and_bad_value(api, tmp_path):
    (action,) = import_sample(api, samples("j3d/walk_type0.bck")[0])
    with pytest.raises(TypeError, match="unknown export option 'tolerence'"):
        api.export_action(str(tmp_path / "x.bck"), action, tolerence=0.1)
    with pytest.raises(ValueError, match="compression='zip'"):
        api.export_action(str(tmp_path / "x.bck"), action, compression="zip")


def test_unhandled_chain_input_is_reported_not_dropped(api, ga, tmp_path):
    """Keys on a chain input that is no BTK channel (Basic: B's rotation)
    cannot be written: the export says so instead of dropping them
    quietly."""
    from exphelpers import btk_materials

    path = samples("j3d/scroll_basic.btk")[0]
    btk_materials(path)
    actions = import_sample(api, path)
    water = next(a for a in actions if a["gameanim_material"] == "water")
    mat = bpy.data.materials["water"]
    sock = mat.node_tree.nodes["gameanim tex0 B"].inputs["Rotation"]
    from exphelpers import fcurve

    fc = fcurve(water, sock.path_from_id("default_value"), 2)
    fc.keyframe_points[0].co.y = 0.5
    result = api.export_action(str(tmp_path / "w.btk"), water)
    assert any("not one of the game's texture-matrix channels" in n and "UV 0" in n for n in result.notes)


# ---------------------------------------------------------------------------
# atomic writes


def test_encoder_failure_leaves_the_file(api, existing):
    rig = one_bone_rig()
    action = key_location(rig, "arm", [(1, (0.0, 0.0, 0.0)), (5, (0.0, 600.0, 0.0))])
    out = existing("keep.bin")
    with pytest.raises(ExportError):
        api.export_action(str(out), action, format="bk")
    assert out.read_bytes() == PREVIOUS


@pytest.mark.parametrize("where", ["fsync", "replace"])
def test_failure_while_writing_leaves_the_file(where, api, existing, monkeypatch):
    """A failure in the middle of writing (after the data went to the
    temporary file) or at the final rename: the existing file keeps its
    bytes and no temporary file is left behind."""
    (action,) = import_sample(api, samples("j3d/walk_type0.bck")[0])
    out = existing("walk.bck")

    def boom(*a, **k):
        raise OSError(f"forced failure in os.{where}")

    monkeypatch.setattr(os, where, boom)
    # (the API's one exception: an ExportError naming the file and the cause)
    with pytest.raises(ExportError, match=f"could not write .*walk.bck.*forced failure in os.{where}"):
        api.export_action(str(out), action)
    monkeypatch.undo()
    assert out.read_bytes() == PREVIOUS
    assert leftovers(out.parent) == []
    api.export_action(str(out), action)  # and it works once the disk is fine
    assert out.read_bytes() == samples("j3d/walk_type0.bck")[0].read_bytes()


def test_operator_failure_reports_and_leaves_the_file(addon, existing):
    rig = one_bone_rig()
    action = key_location(rig, "arm", [(1, (0.0, 0.0, 0.0)), (5, (0.0, 600.0, 0.0))])
    out = existing("op.bin")
    with pytest.raises(RuntimeError, match=r"Export failed, nothing written: .*'arm'.*frame 5"):
        bpy.ops.export_anim.gameanim_bk(filepath=str(out), action=action.name)
    assert out.read_bytes() == PREVIOUS


# ---------------------------------------------------------------------------
# UI


def test_one_export_entry_per_format_with_its_options(addon):
    from io_anim_gameanim.shared.options import export_fields

    expected = {"bck": ".bck", "btk": ".btk", "bca": ".bca", "bk": ".bin", "jba": ".jba"}
    for fmt, ext in expected.items():
        op = getattr(bpy.ops.export_anim, f"gameanim_{fmt}")
        props = op.get_rna_type().properties
        assert "action" in props and "filepath" in props
        for name in export_fields(fmt):
            assert name in props, (fmt, name)
    props = bpy.ops.export_anim.gameanim_jba.get_rna_type().properties
    assert [i.identifier for i in props["layout"].enum_items] == ["AS_IMPORTED", "32", "64"]
    comp = [i.identifier for i in bpy.ops.export_anim.gameanim_bck.get_rna_type().properties["compression"].enum_items]
    assert comp == ["AS_IMPORTED", "NONE", "lz77", "yaz0", "yay0", "rarezip"]
    funcs = [getattr(f, "__name__", "") for f in bpy.types.TOPBAR_MT_file_export._dyn_ui_initialize()]
    assert "menu_func_export" in funcs


class _Menu:
    """Records the entries a menu function draws (headless Blender draws nothing)."""

    def __init__(self):
        self.entries = []
        self.layout = self

    def operator(self, idname, text=""):
        self.entries.append((idname, text))


def test_file_export_has_one_game_animation_entry(addon):
    """Issue 32: File > Export lists one Game Animation entry (as glTF has
    one), not one per format; the per-format operators stay for scripts."""
    from io_anim_gameanim import operators

    menu = _Menu()
    operators.menu_func_export(menu, bpy.context)
    assert menu.entries == [("export_anim.gameanim", "Game Animation")]
    for fmt in ("bck", "btk", "bca", "bk", "jba", "brk", "bpk", "btp", "bva", "j3d_bca"):
        assert hasattr(bpy.types, f"EXPORT_ANIM_OT_gameanim_{fmt}"), fmt
    props = bpy.ops.export_anim.gameanim.get_rna_type().properties
    assert props["format"].default == "AUTO"
    assert {"layout", "calc_type", "root_motion", "id_property", "tolerance"} <= set(props.keys())


def test_game_animation_entry_writes_each_action_in_its_own_kind(addon, api, tmp_path):
    """An imported action goes out in the format it was imported from
    (whatever the file name says), byte for byte; an action made in Blender
    in the format its file extension names; option Format overrides both;
    an action with neither is refused, saying what to choose."""
    from io_anim_gameanim.exporting import exporter

    for sample in ("j3d/walk_type0.bck", "bca/walk_even_lz77.bca", "jba/jawb_walk.jba"):
        path = samples(sample)[0]
        bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
        (action,) = import_sample(api, path)
        out = tmp_path / f"x_{path.name}.anim"
        assert bpy.ops.export_anim.gameanim(filepath=str(out), action=action.name) == {"FINISHED"}
        assert exporter.LAST_RESULT.format == path.suffix[1:] and out.read_bytes() == path.read_bytes(), sample
    bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
    rig = one_bone_rig()
    action = key_location(rig, "arm", [(0, (0.0, 0.0, 0.0)), (5, (0.0, 2.0, 0.0))])
    out = tmp_path / "hand.bin"
    assert bpy.ops.export_anim.gameanim(filepath=str(out), action=action.name) == {"FINISHED"}
    assert exporter.LAST_RESULT.format == "bk"
    out = tmp_path / "hand.jba"
    assert bpy.ops.export_anim.gameanim(filepath=str(tmp_path / "hand.bck"), action=action.name, format="jba") \
        == {"FINISHED"}
    assert exporter.LAST_RESULT.format == "jba"
    with pytest.raises(RuntimeError, match="was not imported by gameanim: choose the format"):
        bpy.ops.export_anim.gameanim(filepath=str(tmp_path / "hand.xyz"), action=action.name)


@pytest.mark.parametrize("fmt", ["bca", "jba"])
def test_per_frame_formats_take_rate_and_tolerance_too(addon, api, fmt, tmp_path):
    """BCA and JBA store a value every frame, so their export panels show
    no key rate or tolerance; their operators still take both (scripts pass
    one set of options to every format), and an unedited action still
    comes back byte for byte."""
    path = sorted(samples(f"{fmt}/*.{fmt}"))[0]
    (action,) = import_sample(api, path)
    out = tmp_path / f"x.{fmt}"
    op = getattr(bpy.ops.export_anim, f"gameanim_{fmt}")
    assert op(filepath=str(out), action=action.name, rate="FRAMES", tolerance=0.01) == {"FINISHED"}
    assert out.read_bytes() == path.read_bytes()


def test_btk_operator_exports_the_selected_materials(addon, api, tmp_path):
    from exphelpers import btk_materials

    path = samples("j3d/glow_maya.btk")[0]
    mats = btk_materials(path)
    import_sample(api, path)
    bpy.ops.mesh.primitive_plane_add()
    ob = bpy.context.active_object
    ob.data.materials.append(mats["rim"])
    ob.select_set(True)
    out = tmp_path / "sel.btk"
    assert bpy.ops.export_anim.gameanim_btk(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == path.read_bytes()


# ---------------------------------------------------------------------------
# many actions


def test_export_actions_writes_a_folder_and_skips_a_failure(api, tmp_path):
    from exphelpers import btk_materials

    picks = samples("j3d/walk_type0.bck", "bca/swing_odd.bca", "bk/features_rarezip.bin", "jba/jawb_walk.jba",
                    "j3d/scroll_basic.btk")
    btk_materials(picks[-1])
    for p in picks:
        import_sample(api, p)
    rig = one_bone_rig("Hand")
    key_location(rig, "arm", [(1, (0.0, 0.0, 0.0)), (5, (0.0, 600.0, 0.0))])  # made in Blender: no format
    seen = []
    results = api.export_actions(str(tmp_path / "out"), progress=lambda i, n, label, r: seen.append((i, n, r)))
    by_name = {os.path.basename(r.path): r for r in results}
    for p in picks:
        assert by_name[p.name].ok and (tmp_path / "out" / p.name).read_bytes() == p.read_bytes(), p.name
    failed = [r for r in results if not r.ok]
    assert len(failed) == 1 and "not imported by gameanim" in failed[0].error
    assert len(results) == len(picks) + 1 and len(seen) == 2 * len(results)


def test_batch_export_entry_point(api, tmp_path):
    from io_anim_gameanim import batch

    for p in samples("j3d/walk_type0.bck", "bca/swing_odd.bca"):
        import_sample(api, p)
    rig = one_bone_rig("Hand")
    key_location(rig, "arm", [(1, (0.0, 0.0, 0.0)), (5, (0.0, 600000.0, 0.0))])
    buf = io.StringIO()
    code = batch.main(["export", "--out", str(tmp_path / "out"), "--format", "bca"], out=buf)
    text = buf.getvalue()
    # as BCA: the BCK is resampled, the BCA comes back as it was, the
    # hand-made action holds a value BCA cannot store
    assert code == 1, text
    assert "[1/3]" in text and "[3/3]" in text
    assert "FAILED" in text and "'arm'" in text and "20.12" in text
    assert "Exported 2 of 3 file(s)" in text
    out = tmp_path / "out"
    assert (out / "swing_odd.bca").read_bytes() == samples("bca/swing_odd.bca")[0].read_bytes()
    assert (out / "walk_type0.bca").exists() and not (out / "HandAction.bca").exists()
    buf = io.StringIO()
    assert batch.main(["export", "--out", str(tmp_path / "o2"), "--action", "nope"], out=buf) == 2
    assert "no action named 'nope'" in buf.getvalue()


def test_nothing_selected_tells_the_user_what_to_select(api, tmp_path):
    """Issue 23: the message for an export with nothing to export says
    what to select, in the user's words."""
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    with pytest.raises(ExportError) as e:
        api.export_action(str(tmp_path / "x.bck"))
    text = str(e.value)
    assert "select the animated armature" in text and "make it active" in text, text
    assert not (tmp_path / "x.bck").exists()


class _FileBrowserContext:
    """Stands in for a window's context: records the file browser asked for."""

    def __init__(self):
        self.window_manager = self
        self.view_layer = bpy.context.view_layer
        self.selected_objects = bpy.context.selected_objects
        self.opened = []

    def fileselect_add(self, op):
        self.opened.append(op)


class _ExportProps:
    """The Game Animation operator's properties as invoke sees them."""

    fmt = ""

    def __init__(self):
        self.action = self.filepath = self.archive_member = self.member_for = ""
        self.format = "AUTO"


def test_game_animation_entry_prefills_the_file_name(addon, api):
    """File > Export > Game Animation on the active action: an imported
    action gets its source's name (its own kind), one made in Blender its
    own name without an extension (the extension the user types names the
    kind)."""
    from io_anim_gameanim import operators

    (action,) = import_sample(api, samples("j3d/walk_type0.bck")[0])
    ctx, props = _FileBrowserContext(), _ExportProps()
    for name in ("export_format", "_action", "follow_action"):
        setattr(props, name, getattr(operators._ExportBase, name).__get__(props))
    assert operators._ExportBase.invoke(props, ctx, None) == {"RUNNING_MODAL"} and ctx.opened == [props]
    assert os.path.basename(props.filepath) == "walk_type0.bck" and props.archive_member == ""
    rig = one_bone_rig()
    hand = key_location(rig, "arm", [(0, (0.0, 0.0, 0.0)), (5, (0.0, 2.0, 0.0))])
    bpy.context.view_layer.objects.active = rig
    props = _ExportProps()
    for name in ("export_format", "_action", "follow_action"):
        setattr(props, name, getattr(operators._ExportBase, name).__get__(props))
    operators._ExportBase.invoke(props, _FileBrowserContext(), None)
    assert os.path.basename(props.filepath) == bpy.path.clean_name(hand.name)
