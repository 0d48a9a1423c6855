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
    assert "Imported 5 of 6 file(s)" in text
    assert out_blend.exists()
    for name in ("walk_type0", "swing_odd", "features_rarezip", "legacy_walk"):
        assert name in bpy.data.actions


def test_batch_onto_a_named_armature(tmp_path):
    from io_anim_gameanim import batch

    from blhelpers import make_rig

    make_rig("Rig", [(f"j{i}", None, (0, i, 0), (0, i + 0.5, 0), 0.0) for i in range(3)])
    buf = io.StringIO()
    code = batch.main([str(samples("j3d/walk_type0.bck")[0]), "--armature", "Rig", "--frame-offset", "4"], out=buf)
    assert code == 0, buf.getvalue()
    rig = bpy.data.objects["Rig"]
    assert rig.animation_data.action.name == "walk_type0"
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
