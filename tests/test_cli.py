"""The `gameanim` command line tool (gameanim/cli.py, `python -m gameanim`)."""
import csv
import io
import json
import os
import subprocess
import sys

import pytest

import gameanim
from conftest import ROOT, SAMPLES


BUILD = os.path.dirname(os.path.dirname(gameanim.__file__))   # the folder that holds the built package
# tests/test_cross.py runs this file with the Windows build in the embeddable
# CPython under wine; there the default is one worker (GAMEANIM_JOBS=1: see
# docs/cli.md) and the clone layout does not apply (its ._pth fixes sys.path)
UNDER_WINE = os.environ.get("GAMEANIM_UNDER_WINE", "") not in ("", "0")


def run(*args, cwd=None):
    """`python -m gameanim ARGS` on the package under test (the built one:
    the default folder is not the repository root, whose source package
    would come first on sys.path)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([BUILD, env.get("PYTHONPATH", "")])
    p = subprocess.run([sys.executable, "-m", "gameanim", *map(str, args)], capture_output=True, text=True,
                       env=env, cwd=cwd or BUILD)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.skipif(UNDER_WINE, reason="the embeddable CPython's ._pth file sets sys.path: no clone layout")
def test_python_m_gameanim_works_in_the_clone_after_the_test_command():
    """The README promises `python3 -m gameanim --help` at the root of a clone
    once `sh tools/run_tests.sh` has run (it puts the built core next to the
    package's sources): no PYTHONPATH, no install."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, "-m", "gameanim", "--help"], capture_output=True, text=True, env=env,
                       cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "validate" in p.stdout and "convert" in p.stdout
    p = subprocess.run([sys.executable, "-c", "import gameanim; print(gameanim.__file__)"], capture_output=True,
                       text=True, env=env, cwd=ROOT)
    assert p.returncode == 0 and os.path.samefile(p.stdout.strip(), ROOT / "gameanim" / "__init__.py"), p


WALK = SAMPLES / "j3d" / "walk_type0.bck"


def test_jobs_default_from_the_environment(monkeypatch, capsys):
    from gameanim import cli
    monkeypatch.setenv("GAMEANIM_JOBS", "3")
    assert cli.default_jobs() == 3
    assert cli.build_parser().parse_args(["info", "x"]).jobs == 3
    monkeypatch.setenv("GAMEANIM_JOBS", "many")
    assert cli.default_jobs() == (os.cpu_count() or 1)
    assert "ignoring GAMEANIM_JOBS='many'" in capsys.readouterr().err
    monkeypatch.delenv("GAMEANIM_JOBS")
    assert cli.default_jobs() == (os.cpu_count() or 1)


def test_help_and_usage_errors():
    code, out, err = run("--help")
    assert code == 0 and "info" in out and "validate" in out and "Exit codes" not in err
    for cmd in ("info", "dump", "build", "sample", "validate", "convert"):
        code, out, _ = run(cmd, "--help")
        assert code == 0 and "usage" in out
    assert run()[0] == 2
    assert run("frobnicate")[0] == 2
    assert run("info", "/nonexistent-folder-xyz/")[0] == 1  # a path that is neither file nor folder fails to read


def test_info_on_a_folder_and_a_bad_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.bck").write_bytes(WALK.read_bytes())
    (tmp_path / "bad.bck").write_bytes(b"not an animation")
    code, out, _ = run("info", "-q", "-j", "1" if UNDER_WINE else "2", tmp_path)
    assert code == 1
    assert "a.bck: bck" in out and "bad.bck: error" in out and "1 of 2 files read, 1 failed" in out
    code, out, _ = run("info", "-q", "-v", tmp_path / "sub" / "a.bck")
    assert code == 0 and "1/scale/0" in out and "info joint_count = 3" in out
    # a line per track by default (--brief: none), and the compression always
    code, out, _ = run("info", "-q", tmp_path / "sub" / "a.bck")
    assert code == 0 and "compression none" in out and "1/scale/0" in out and "info joint_count" not in out
    assert len([ln for ln in out.splitlines() if ln.startswith("    ")]) == len(gameanim.load(WALK).tracks)
    code, out, _ = run("info", "-q", "--brief", tmp_path / "sub" / "a.bck")
    assert code == 0 and "1/scale/0" not in out
    code, out, _ = run("info", "-q", SAMPLES / "j3d" / "walk_cycle.yaz0.bck")
    assert "compression yaz0" in out


def test_dump_then_build_is_byte_exact_and_edits_apply(tmp_path):
    js = tmp_path / "walk.json"
    assert run("dump", WALK, "-o", js)[0] == 0
    d = json.loads(js.read_text())
    assert d["gameanim_dump"] == 1 and d["format"] == "bck" and len(d["tracks"]) == 27
    out = tmp_path / "walk.bck"
    assert run("build", js, "-o", out)[0] == 0
    assert out.read_bytes() == WALK.read_bytes()
    # edit a value in the JSON: the rebuilt file carries it
    for t in d["tracks"]:
        if t["target"] == 1 and t["channel"] == "scale" and t["axis"] == 0:
            t["values"][0] = 2.25
    js.write_text(json.dumps(d))
    assert run("build", js, "-o", out)[0] == 0
    assert gameanim.load(out).find(1, "scale", 0).values[0] == 2.25
    # without the original bytes, build encodes a new file with the same tracks
    code, text, _ = run("dump", WALK, "--no-original")
    d2 = json.loads(text)
    assert "original" not in d2
    js.write_text(text)
    assert run("build", js, "-o", out)[0] == 0
    a, b = gameanim.load(WALK), gameanim.load(out)
    assert a.sample([0, 5.5, 10]) == b.sample([0, 5.5, 10])
    js.write_text("{}")
    assert run("build", js, "-o", out)[0] == 1


def test_sample_csv_matches_the_api(tmp_path):
    code, out, _ = run("sample", WALK, "--frames", "0:4:0.5")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    anim = gameanim.load(WALK)
    frames = [i * 0.5 for i in range(9)]
    want = anim.sample(frames)
    assert rows[0][0] == "frame" and len(rows[0]) == 1 + len(anim.tracks)
    assert [float(r[0]) for r in rows[1:]] == frames
    for k in range(len(frames)):
        for i in range(len(anim.tracks)):
            assert float(rows[1 + k][1 + i]) == want[i * len(frames) + k]
    assert run("sample", WALK, "--frames", "0:4:-1")[0] == 2


def test_validate_reports_round_trip_and_anomalies(tmp_path):
    code, out, _ = run("validate", "-q", SAMPLES / "j3d" / "scroll_chunk_quirk.btk", WALK)
    assert code == 0
    assert "byte-exact" in out and "chunk size field is off by -4" in out and "2 of 2 files valid" in out
    bad = tmp_path / "x.bck"
    bad.write_bytes(WALK.read_bytes()[:100])
    code, out, _ = run("validate", "-q", bad)
    assert code == 1 and "FAIL decode" in out


def test_validate_lists_each_formats_anomalies(tmp_path):
    """What the notes single out per format: a JBA seam whose two copies
    differ and non-zero padding in a 64-bit file; BK pad word, a bone split
    in two runs, a repeated channel, a bone ID past the game's table; BCA
    tracks whose BB is neither 0 nor 1.  Clean samples list none."""
    import struct

    from test_jba import small_file
    from test_bk import bk_file, element, key

    jba = bytearray(small_file(64))
    pad = gameanim.load(bytes(jba)).info["padding_bytes"]
    assert pad > 0
    at = 0x50 + 2 * 8 + 2 * 8  # header, section table, slot table: alignment padding follows
    assert jba[at] == 0
    jba[at] = 0x5A
    (tmp_path / "seam.jba").write_bytes(bytes(jba))
    bk = bk_file(0, 10, [element(1, 6, [key(0, 0)]), element(2, 6, [key(0, 0)]), element(1, 7, [key(0, 0)]),
                         element(2, 6, [key(0, 64)]), element(0x70, 3, [key(0, 64)])], pad=7)
    (tmp_path / "odd.bin").write_bytes(bk)
    bca = bytearray((SAMPLES / "bca" / "constant_pose.bca").read_bytes())
    blocks = struct.unpack_from("<I", bca, 20)[0]
    bca[blocks + 4 * 7 + 1] = 3  # bone 0 translation Y: BB 3, still animated one value a frame
    (tmp_path / "bb.bca").write_bytes(bytes(bca))
    code, out, _ = run("validate", "-q", tmp_path)
    assert "the two sections sharing frame 3 hold different values there" in out, out
    assert "non-zero padding bytes (64-bit readers reject them)" in out
    assert "pad word is 0x0007" in out and "elements are not adjacent" in out
    assert "1 elements repeat a bone and type" in out and "bone ID 112 is beyond" in out
    assert "interpolation flag (BB) other than 1" in out
    code, out, _ = run("validate", "-q", SAMPLES / "jba", SAMPLES / "bk" / "long.bin", SAMPLES / "bca" / "walk_even_lz77.bca")
    assert code == 0 and "anomaly" not in out, out


def test_convert_changes_the_wrapper(tmp_path):
    if "yaz0" not in gameanim.compressions():
        pytest.skip("no yaz0")
    src = tmp_path / "in"
    src.mkdir()
    (src / "w.bck").write_bytes(WALK.read_bytes())
    dst = tmp_path / "out"
    code, out, _ = run("convert", "-q", src, "-o", dst, "--compression", "yaz0")
    if code != 0 and "not implemented" in out:
        pytest.skip("yaz0 not implemented yet")
    assert code == 0, out
    conv = (dst / "w.bck").read_bytes()
    assert conv[:4] == b"Yaz0"
    assert gameanim.load(conv).compression == "yaz0"
    assert gameanim.decompress("yaz0", conv) == WALK.read_bytes()
    assert run("convert", "-q", src, "-o", dst, "--compression", "zip")[0] == 2


def test_write_and_read_failures_are_messages_with_exit_codes(tmp_path):
    # an output that cannot be written: a message, exit 1, no traceback
    for cmd in ("dump", "sample"):
        code, out, err = run(cmd, WALK, "-o", tmp_path / "missing-folder" / "x.out")
        assert code == 1 and "cannot write" in err and "Traceback" not in err, (cmd, err)
    code, _, err = run("sample", tmp_path / "nope.bck")
    assert code == 1 and "nope.bck" in err and "Traceback" not in err
    # bad --frames: a usage error
    for spec in ("0:inf", "5:1", "0:1:2:3", "0:5e9", "a,b", "nan,1", "0,inf"):
        code, _, err = run("sample", WALK, "--frames", spec)
        assert code == 2 and "--frames" in err and "Traceback" not in err, (spec, err)
    # build from JSON that is not a dump
    bad = tmp_path / "bad.json"
    for text in ("[1, 2]", '{"gameanim_dump": 1, "format": "bck"}'):
        bad.write_text(text)
        code, _, err = run("build", bad, "-o", tmp_path / "x.bck")
        assert code == 1 and "build:" in err and "Traceback" not in err, (text, err)
    assert not (tmp_path / "x.bck").exists()


def test_convert_refuses_two_inputs_for_one_output(tmp_path):
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "x.bck").write_bytes(WALK.read_bytes())
    code, _, err = run("convert", "-q", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "out")
    assert code == 2 and "would both be written" in err
    assert not (tmp_path / "out" / "x.bck").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_written_files_get_the_usual_mode(tmp_path):
    old = os.umask(0o022)
    try:
        out = tmp_path / "w.json"
        assert run("dump", WALK, "-o", out)[0] == 0
        assert (out.stat().st_mode & 0o777) == 0o644
        # a replaced file keeps its mode
        os.chmod(out, 0o640)
        assert run("dump", WALK, "-o", out)[0] == 0
        assert (out.stat().st_mode & 0o777) == 0o640
        anim = gameanim.load(WALK)
        anim.save(tmp_path / "n.bck")
        assert ((tmp_path / "n.bck").stat().st_mode & 0o777) == 0o644
    finally:
        os.umask(old)


def test_build_errors_are_sentences_not_python_text(tmp_path):
    """Issue 23: a non-JSON file, a binary file, a missing file and an -o
    that is a folder each get a message in the CLI's usual form."""
    cases = {}
    (tmp_path / "notes.txt").write_text("hello, not json\n")
    cases["notes.txt"] = "is not JSON (it stops making sense at line 1, column 1)"
    (tmp_path / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    cases["picture.png"] = "is not a text file"
    cases["missing.json"] = "does not exist"
    for name, expected in cases.items():
        code, out, err = run("build", tmp_path / name, "-o", tmp_path / "out.bck")
        assert code == 1, (name, err)
        assert err.startswith("gameanim: build: ") and expected in err, (name, err)
        assert "Traceback" not in err and "codec" not in err and "Expecting value" not in err, err
    dump = tmp_path / "walk.json"
    assert run("dump", WALK, "-o", dump)[0] == 0
    (tmp_path / "folder").mkdir()
    code, out, err = run("build", dump, "-o", tmp_path / "folder")
    assert code == 1 and "is a folder" in err and ".tmp" not in err and "gameanim-" not in err, err
    assert list((tmp_path / "folder").iterdir()) == []


def test_build_prints_rounding_as_a_note(tmp_path):
    """A value the format must round (a key time between two whole frames
    in J3D's 16-bit rotation table) is written and reported as a note, not
    silenced."""
    dump = tmp_path / "walk.json"
    assert run("dump", WALK, "--no-original", "-o", dump)[0] == 0
    d = json.loads(dump.read_text())
    rot = next(t for t in d["tracks"] if t["channel"] == "rotation" and len(t["times"]) >= 2)
    rot["times"][1] += 0.25   # s16 key times: rounded to a whole frame
    dump.write_text(json.dumps(d))
    code, out, err = run("build", dump, "-o", tmp_path / "edited.bck")
    assert code == 0, err
    assert "gameanim: build: note:" in err and "round" in err.lower(), err
    assert (tmp_path / "edited.bck").exists()


def test_validate_says_a_missing_file_does_not_exist(tmp_path):
    code, out, err = run("validate", tmp_path / "missing.bck")
    assert code == 1
    assert "does not exist" in out + err and "Errno" not in out + err


def test_convert_layout_on_a_bck_says_it_applies_to_jba_only(tmp_path):
    code, out, err = run("convert", WALK, "-o", tmp_path / "out", "--layout", "64")
    assert code == 0, err
    assert "--layout ignored: it applies to JBA files" in out
    assert (tmp_path / "out" / WALK.name).read_bytes() == WALK.read_bytes()


def test_frames_range_may_start_negative_and_includes_stop(tmp_path):
    code, out, err = run("sample", WALK, "--frames", "-5:2")
    assert code == 0, err
    frames = [float(r[0]) for r in list(csv.reader(io.StringIO(out)))[1:]]
    assert frames == [-5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0]
    code, out, err = run("sample", WALK, "--frames", "0:9:2")
    assert [float(r[0]) for r in list(csv.reader(io.StringIO(out)))[1:]] == [0.0, 2.0, 4.0, 6.0, 8.0]


# --------------------------------------------------------------- model files


@pytest.fixture
def model_dir(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    import make_models as mm

    (tmp_path / "link.bmd").write_bytes(gameanim.compress("yaz0", mm.write_j3d_model(
        [mm.joint("root"), mm.joint("arm", name_hash=5, scale_compensate=1, translation=(0, 7, 0))], [-1, 0],
        calc="maya")))
    (tmp_path / "mario.bmd").write_bytes(mm.write_sm64ds_bmd([mm.sm64ds_bone("r"), mm.sm64ds_bone("head", 0)]))
    (tmp_path / "banjo.bin").write_bytes(mm.write_bk_model([((0, 0, 0), 1, -1), ((1, 2, 3), 5, 0)], 45.0))
    return tmp_path


def test_info_shows_the_joints_of_model_files(model_dir):
    rc, out, err = run("info", model_dir, "-q")
    assert rc == 0, err
    assert "link.bmd: bmd model in yaz0" in out and "rule maya" in out
    assert "'arm'" in out and "parent    0" in out and "T (0, 7, 0)" in out and "ssc 0x01" in out
    assert "mario.bmd: sm64ds_bmd model" in out and "'head'" in out
    assert "banjo.bin: bk_model model" in out and "T (1, 2, 3)" in out and "id 5" in out
    assert "3 of 3 files read" in out


def test_validate_reads_model_files_and_reports_their_anomalies(model_dir):
    rc, out, err = run("validate", model_dir, "-q")
    assert rc == 1, err  # link.bmd is no game model: gameanim.check_model's problems fail it
    assert "link.bmd: FAIL game check" in out and "(bmd, yaz0)" in out
    assert "name hashes that disagree with the name: joints [1]" in out
    assert "problem: JNT1: joint name 1 has key 0x0005" in out
    assert "mario.bmd: OK" in out and "banjo.bin: OK" in out
    assert "2 of 3 files valid" in out


def test_dump_of_a_model_lists_its_joints(model_dir):
    rc, out, err = run("dump", model_dir / "link.bmd")
    assert rc == 0, err
    d = json.loads(out)
    assert d["format"] == "bmd" and d["compression"] == "yaz0" and d["calc"] == "maya"
    assert [(b["index"], b["name"], b["parent"]) for b in d["bones"]] == [(0, "root", -1), (1, "arm", 0)]
    assert d["bones"][1]["translation"] == [0.0, 7.0, 0.0] and d["bones"][1]["name_hash"] == 5


def test_a_damaged_model_reports_the_model_decoders_error(model_dir):
    bad = model_dir / "bad.bin"
    data = bytearray((model_dir / "banjo.bin").read_bytes())
    data[0x3C:0x3E] = b"\x7f\xff"  # a bone count the data cannot hold
    bad.write_bytes(bytes(data))
    rc, out, err = run("info", bad)
    assert rc == 1 and "bk_model" in out and "bone table entries" in out
# --------------------------------------------------------------- archives (issue 20)


def make_test_archive(tmp_path, wrap="yaz0"):
    """An archive of real samples (tools/make_archives.py writes it): a BCK,
    a Yaz0-compressed BTK member, a damaged BCK, a model, a file that is
    neither, a nested archive."""
    sys.path.insert(0, str(ROOT / "tools"))
    import make_archives as M

    bck = (SAMPLES / "j3d" / "walk_cycle.bck").read_bytes()
    btk = (SAMPLES / "j3d" / "water_scroll.btk").read_bytes()
    inner = M.build(M.Dir("inner", [M.File("a.bck", bck)]))
    tree = M.Dir("obj", [
        M.File("obj.bdl", (SAMPLES / "models" / "j3d" / "figure_basic.bdl").read_bytes()),
        M.File("notes.txt", b"not a game file"),
        M.Dir("bck", [M.File("wait.bck", bck), M.File("broken.bck", bck[:40])]),
        M.Dir("btk", [M.File("water.btk", btk, compress="yaz0")]),
        M.File("inner.arc", inner),
    ])
    data = M.build(tree)
    path = tmp_path / "obj.szs"
    path.write_bytes(gameanim.compress(wrap, data) if wrap else data)
    return path, bck, btk


def test_ls_shows_the_tree_sizes_kinds_and_what_decodes(tmp_path):
    path, bck, btk = make_test_archive(tmp_path)
    code, out, err = run("ls", path)
    assert code == 0, err
    lines = out.splitlines()
    assert "RARC archive 'obj' in yaz0, 6 files" in lines[0]
    assert lines[1] == "obj/"
    row = {l.split()[0]: l for l in lines[2:]}
    assert row["bck/"].startswith("  bck/") and row["wait.bck"].startswith("    wait.bck")
    anim = gameanim.load(bck)
    assert f" {len(bck)} " in row["wait.bck"] and " bck " in row["wait.bck"]
    assert f"{anim.frame_count:g} frames, {len(anim.tracks)} tracks" in row["wait.bck"]
    assert "damaged: bck:" in row["broken.bck"]
    assert " btk " in row["water.btk"] and "in yaz0" in row["water.btk"] and row["water.btk"].endswith("[yaz0]")
    assert " archive " in row["inner.arc"] and "archive, 1 files" in row["inner.arc"]
    assert "not a known format" in row["notes.txt"]
    assert " bdl " in row["obj.bdl"] and "model, 19 joints" in row["obj.bdl"]


def test_extract_as_stored_and_decompressed(tmp_path):
    path, bck, btk = make_test_archive(tmp_path)
    arc = gameanim.open_archive(path)
    code, out, err = run("extract", path, "-o", tmp_path / "x")
    assert code == 0, err
    for name in arc.namelist():
        assert (tmp_path / "x" / name).read_bytes() == arc.read(name)
    assert (tmp_path / "x" / "btk" / "water.btk").read_bytes()[:4] == b"Yaz0"
    code, out, err = run("extract", path, "-o", tmp_path / "y", "--decompress")
    assert code == 0, err
    assert (tmp_path / "y" / "btk" / "water.btk").read_bytes() == btk
    assert (tmp_path / "y" / "bck" / "wait.bck").read_bytes() == bck
    assert "decompressed from yaz0" in out


def test_extract_refuses_names_that_leave_the_folder(tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    import make_archives as M

    # a name holding '/' and '..' (an entry named '..' itself is skipped by the reader)
    data = M.build(M.Dir("r", [M.File("a/../../evil.bin", b"x"), M.File("ok.bin", b"y")]))
    (tmp_path / "bad.arc").write_bytes(data)
    code, out, err = run("extract", tmp_path / "bad.arc", "-o", tmp_path / "out")
    assert code == 1
    assert "bad.arc:a/../../evil.bin: the name leaves the output folder" in err
    assert (tmp_path / "out" / "ok.bin").read_bytes() == b"y"
    assert not (tmp_path / "evil.bin").exists()


def test_info_and_validate_go_into_archives(tmp_path):
    path, bck, btk = make_test_archive(tmp_path)
    code, out, err = run("info", "--brief", path)
    assert code == 1  # the damaged member
    assert f"{path}:bck/wait.bck: bck" in out
    assert f"{path}:btk/water.btk: btk in yaz0" in out
    assert f"{path}:bck/broken.bck: error: bck:" in out
    code, out, err = run("validate", path)
    assert code == 1
    assert f"{path}: FAIL (RARC archive, yaz0, 6 files)" in out
    assert f"{path}:bck/wait.bck: OK (bck)" in out
    assert f"{path}:btk/water.btk: OK (btk, yaz0)" in out
    assert f"{path}:bck/broken.bck: FAIL decode" in out
    assert f"{path}:notes.txt: skipped" in out
    # models are validated too, with gameanim.check_model: the sample is laid out for the game
    assert f"{path}:obj.bdl: OK (bdl)" in out
    # ... and a BDL without its MDL3 is not
    import make_models

    arc = gameanim.open_archive(path)
    arc.replace("obj.bdl", make_models.mesh_model(kind="bdl", game=True, mdl3=False))
    arc.save(tmp_path / "no_mdl3.szs")
    code, out, err = run("validate", tmp_path / "no_mdl3.szs")
    assert code == 1
    assert f"{tmp_path / 'no_mdl3.szs'}:obj.bdl: FAIL game check" in out and "without an MDL3 chunk" in out
    # without the damaged member, the archive validates
    arc = gameanim.open_archive(path)
    arc.replace("bck/broken.bck", bck)
    arc.save(tmp_path / "good.szs")
    code, out, err = run("validate", tmp_path / "good.szs")
    assert code == 0, out
    assert f"{tmp_path / 'good.szs'}: OK (RARC archive, yaz0, 6 files)" in out


def test_info_on_a_folder_finds_archives(tmp_path):
    path, bck, btk = make_test_archive(tmp_path, wrap=None)
    path.rename(tmp_path / "obj.arc")
    code, out, err = run("info", "--brief", tmp_path)
    assert f"{tmp_path / 'obj.arc'}:bck/wait.bck: bck" in out


def test_pack_replaces_members(tmp_path):
    path, bck, btk = make_test_archive(tmp_path)
    new = (SAMPLES / "j3d" / "dance_8x48.bck").read_bytes()
    (tmp_path / "new.bck").write_bytes(new)
    before = gameanim.open_archive(path)
    code, out, err = run("pack", path, f"bck/wait.bck={tmp_path / 'new.bck'}", "-o", tmp_path / "out.szs")
    assert code == 0, err
    assert f"{tmp_path / 'out.szs'}:bck/wait.bck <- " in out
    after = gameanim.open_archive(tmp_path / "out.szs")
    assert after.compression == "yaz0"
    assert after.read("bck/wait.bck") == new
    for name in before.namelist():
        if name != "bck/wait.bck":
            assert after.read(name) == before.read(name)
    assert gameanim.load(after.read("bck/wait.bck")).to_bytes() == new
    # in place, and errors
    code, out, err = run("pack", path, f"bck/nope.bck={tmp_path / 'new.bck'}")
    assert code == 1 and f"{path}:bck/nope.bck is not a member" in err
    code, out, err = run("pack", path, "bck/wait.bck")
    assert code == 2 and "is not MEMBER=FILE" in err
    code, out, err = run("pack", path, f"bck/wait.bck={tmp_path / 'new.bck'}")
    assert code == 0
    assert gameanim.open_archive(path).read("bck/wait.bck") == new
    code, out, err = run("pack", path, f"bck/wait.bck={tmp_path / 'new.bck'}", "--compression", "none",
                         "-o", tmp_path / "bare.arc")
    assert code == 0 and (tmp_path / "bare.arc").read_bytes()[:4] == b"RARC"
    code, out, err = run("pack", path, f"bck/wait.bck={tmp_path / 'missing.bck'}")
    assert code == 1 and "cannot read" in err and "does not exist" in err


def test_archive_commands_on_bad_input_say_why(tmp_path):
    path, bck, btk = make_test_archive(tmp_path, wrap=None)
    (tmp_path / "trunc.arc").write_bytes(path.read_bytes()[:100])
    code, out, err = run("ls", tmp_path / "trunc.arc")
    assert code == 1 and "rarc: field 'file data offset'" in err and "past the end" in err
    code, out, err = run("extract", SAMPLES / "j3d" / "walk_cycle.bck", "-o", tmp_path / "x")
    assert code == 1 and "does not start with 'RARC' or 'CRAR'" in err
    code, out, err = run("ls", tmp_path / "nope.arc")
    assert code == 1 and "nope.arc: the file does not exist" in err
