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


def run(*args, cwd=None):
    """`python -m gameanim ARGS` on the package under test (the built one:
    the default folder is not the repository root, whose source package
    would come first on sys.path)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([BUILD, env.get("PYTHONPATH", "")])
    p = subprocess.run([sys.executable, "-m", "gameanim", *map(str, args)], capture_output=True, text=True,
                       env=env, cwd=cwd or BUILD)
    return p.returncode, p.stdout, p.stderr


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
    code, out, _ = run("info", "-q", "-j", "2", tmp_path)
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
    assert rc == 0, err
    assert "link.bmd: OK (bmd, yaz0)" in out
    assert "name hashes that disagree with the name: joints [1]" in out
    assert "3 of 3 files valid" in out


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
