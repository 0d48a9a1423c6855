"""Bulk import of a folder (recursively, every format) through the batch
entry point: a progress line per file, a summary, a corrupt file reported
and skipped, the .blend saved."""
import io
import shutil

import bpy
from blhelpers import samples


def build_folder(tmp_path):
    root = tmp_path / "anims"
    (root / "j3d").mkdir(parents=True)
    (root / "more" / "deeper").mkdir(parents=True)
    picks = {
        "j3d/walk_type0.bck": root / "j3d",
        "j3d/scroll_basic.btk": root / "j3d",
        "bca/swing_odd.bca": root / "more",
        "bk/features_rarezip.bin": root / "more" / "deeper",
        "jba/legacy_walk.jba": root / "more" / "deeper",
    }
    for rel, dest in picks.items():
        shutil.copy(samples(rel)[0], dest)
    good = samples("j3d/walk_type0.bck")[0].read_bytes()
    (root / "more" / "corrupt.bck").write_bytes(good[:-37])
    (root / "notes.txt").write_text("not an animation")
    return root


def test_batch_imports_a_folder_and_skips_the_corrupt_file(tmp_path):
    from io_anim_gameanim import batch

    root = build_folder(tmp_path)
    out_blend = tmp_path / "out" / "result.blend"
    buf = io.StringIO()
    code = batch.main([str(root), "--save", str(out_blend), "--target", "NEW"], out=buf)
    text = buf.getvalue()
    assert code == 1, text  # some file failed, the rest imported and saved
    lines = text.splitlines()
    progress = [line for line in lines if line.startswith("[")]
    assert len(progress) == 6  # the .txt is not an animation file name
    assert progress[0].startswith("[1/6] ") and progress[-1].startswith("[6/6] ")
    failed = [line for line in lines if "FAILED" in line]
    assert len(failed) == 1 and "corrupt.bck" in failed[0] and "bck" in failed[0]
    # the BTK finds no material here: read, but it animated nothing
    assert "Imported 4 of 6 file(s)" in text and "1 animated nothing; 1 failed" in text, text
    assert out_blend.exists()
    for name in ("walk_type0.bck", "swing_odd.bca", "features_rarezip.bin", "legacy_walk.jba"):
        assert name in bpy.data.actions


def test_batch_onto_a_named_armature(tmp_path):
    from io_anim_gameanim import batch

    from blhelpers import make_rig

    make_rig("Rig", [(f"j{i}", None, (0, i, 0), (0, i + 0.5, 0), 0.0) for i in range(3)])
    buf = io.StringIO()
    code = batch.main([str(samples("j3d/walk_type0.bck")[0]), "--armature", "Rig", "--frame-offset", "4"], out=buf)
    assert code == 0, buf.getvalue()
    rig = bpy.data.objects["Rig"]
    assert rig.animation_data.action.name == "walk_type0.bck"
    assert "onto Rig" in buf.getvalue()


def test_batch_bad_arguments(tmp_path):
    from io_anim_gameanim import batch

    buf = io.StringIO()
    assert batch.main([str(samples("j3d/walk_type0.bck")[0]), "--armature", "Nope"], out=buf) == 2
    assert "no armature object named 'Nope'" in buf.getvalue()
    # option values out of range, a target the scene lacks, a --save that
    # cannot be written: a message and exit code 2, no traceback
    walk = str(samples("j3d/walk_type0.bck")[0])
    for argv, text in (([walk, "--translation-scale", "0"], "translation_scale"),
                       ([walk, "--target", "ACTIVE"], "no active armature"),
                       ([walk, "--save", str(tmp_path / "file.txt" / "x.blend")], "could not save")):
        for o in [o for o in bpy.data.objects if o.type == "ARMATURE"]:
            bpy.data.objects.remove(o)
        if "could not save" in text:
            (tmp_path / "file.txt").write_text("not a folder")
        buf = io.StringIO()
        assert batch.main(argv, out=buf) == 2, (argv, buf.getvalue())
        assert text in buf.getvalue(), buf.getvalue()


def test_batch_opens_a_blend_and_animates_its_armature(tmp_path):
    """--blend opens a .blend first (the bpy module has no file argument):
    its armature is the target and the result is saved elsewhere."""
    from io_anim_gameanim import batch

    from blhelpers import make_rig

    make_rig("Hero", [(f"j{i}", None, (0, i, 0), (0, i + 0.5, 0), 0.0) for i in range(3)])
    scene_blend = tmp_path / "scene.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(scene_blend))
    bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
    assert "Hero" not in bpy.data.objects
    out_blend = tmp_path / "out.blend"
    buf = io.StringIO()
    code = batch.main([str(samples("j3d/walk_type0.bck")[0]), "--blend", str(scene_blend), "--armature", "Hero",
                       "--save", str(out_blend)], out=buf)
    assert code == 0, buf.getvalue()
    rig = bpy.data.objects["Hero"]
    assert rig.animation_data.action.name.startswith("walk_type0")
    assert out_blend.exists() and scene_blend.exists()
    buf = io.StringIO()
    assert batch.main([str(samples("j3d/walk_type0.bck")[0]), "--blend", str(tmp_path / "none.blend")],
                      out=buf) == 2
    assert "no .blend file" in buf.getvalue()


def test_a_folder_import_takes_compressed_and_banjo_file_names(api, ga, tmp_path):
    """The folder import takes the names the command-line tool takes:
    .szs / .yaz0 / .yay0 / .lz / .lz77 wrappers and Banjo-Kazooie's .anim."""
    root = tmp_path / "anims"
    root.mkdir()
    bck = samples("j3d/walk_type0.bck")[0].read_bytes()
    (root / "walk.szs").write_bytes(ga.compress("yaz0", bck))
    (root / "walk2.yay0").write_bytes(ga.compress("yay0", bck))
    (root / "swing.lz77").write_bytes(ga.compress("lz77", samples("bca/swing_odd.bca")[0].read_bytes()))
    shutil.copy(samples("bk/features_rarezip.bin")[0], root / "features.anim")
    res = api.import_folder(str(root), target="NEW")
    files = res.report.files
    assert len(files) == 4 and all(f.ok for f in files), [f.summary() for f in files]


def test_a_file_that_animated_nothing_is_not_counted_as_imported(tmp_path):
    """Issue 23: a BTK whose materials are missing makes no action: it is
    not 'ok', not counted in 'Imported N of M', and the exit code says so."""
    from io_anim_gameanim import batch

    for m in list(bpy.data.materials):
        bpy.data.materials.remove(m)
    buf = io.StringIO()
    code = batch.main([str(samples("j3d/scroll_basic.btk")[0])], out=buf)
    text = buf.getvalue()
    assert code == 1, text
    assert "Imported 0 of 1 file(s)" in text and "1 animated nothing" in text, text
    assert "  ok: " not in text and "nothing imported" in text, text
