"""The Blender add-on, tested inside Blender: the in-Blender suite
(tests/blender/bl_*.py) runs in every supported Blender line, each in a
subprocess:

    blender   Debian's Blender 3.4.1 binary (the oldest API we support)
    bpy-4.2   the bpy module of Blender 4.2 LTS, in .venv/bpy-4.2
    bpy-4.5   the bpy module of Blender 4.5 LTS, in .venv/bpy-4.5
    bpy       the bpy module of this interpreter (Blender 5.0)

(tools/setup_env.sh installs all four); then the batch command lines and
the demo in each, and static rules of the add-on's source.

A missing Blender skips its variant, unless GAMEANIM_REQUIRE_BLENDER=1
(CI), where it is a failure.  GAMEANIM_BLENDER names the Blender binary
(default: `blender` on PATH).  Each Blender process is killed after
GAMEANIM_BLENDER_TIMEOUT seconds (default 900): the bpy modules of 4.2 and
4.5 crash or hang at exit while a class is still registered, and a hang
must fail the test, naming the in-Blender test that was running, instead
of stalling CI."""
import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gameanim

ROOT = Path(__file__).resolve().parent.parent
ADDON = ROOT / "blender_addon" / "io_anim_gameanim"
RUNNER = ROOT / "tests" / "blender" / "run.py"
BUILD = str(Path(gameanim.__file__).resolve().parent.parent)  # the folder that holds the built package gameanim/
REQUIRE = os.environ.get("GAMEANIM_REQUIRE_BLENDER", "") not in ("", "0")
TIMEOUT = float(os.environ.get("GAMEANIM_BLENDER_TIMEOUT") or 900)
# the bpy modules in their own virtualenvs (tools/setup_env.sh), by variant
VENV_LINES = {"bpy-4.2": "4.2", "bpy-4.5": "4.5"}
VARIANTS = ["blender", "bpy-4.2", "bpy-4.5", "bpy"]
BPY_VARIANTS = [v for v in VARIANTS if v.startswith("bpy")]


def _missing(what):
    if REQUIRE:
        pytest.fail(f"{what} is required (GAMEANIM_REQUIRE_BLENDER=1) but not available")
    pytest.skip(f"{what} not available")


def _clean_env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


_probe_cache = {}


def _venv_python(venv):
    for rel in ("bin/python", "Scripts/python.exe"):
        if (venv / rel).exists():
            return str(venv / rel)
    return None


def bpy_module_python(variant="bpy"):
    """The interpreter of a bpy variant, if it imports the bpy module (of
    the right Blender line): this one for "bpy", .venv/<variant>'s
    otherwise."""
    if variant not in _probe_cache:
        exe = sys.executable if variant == "bpy" else _venv_python(ROOT / ".venv" / variant)
        version = None
        if exe:
            try:
                r = subprocess.run([exe, "-c", "import bpy; print(bpy.app.version_string)"],
                                   capture_output=True, text=True, env=_clean_env(), timeout=300)
                if r.returncode == 0 and r.stdout.strip():
                    version = r.stdout.strip().splitlines()[-1]
            except subprocess.TimeoutExpired:
                pass
        want = VENV_LINES.get(variant)
        ok = version is not None and (want is None or version.startswith(want + "."))
        _probe_cache[variant] = (exe if ok else None, version)
    exe, version = _probe_cache[variant]
    if exe is None:
        if variant == "bpy":
            _missing("the bpy module (pip install bpy)")
        _missing(f"the bpy module of Blender {VENV_LINES[variant]} in .venv/{variant} "
                 f"(sh tools/setup_env.sh; found: {version})")
    return exe


def blender_binary():
    exe = os.environ.get("GAMEANIM_BLENDER") or shutil.which("blender")
    if not exe:
        _missing("a Blender binary")
    return exe


def _run(cmd, env, what, progress=None):
    """subprocess.run with the Blender timeout; a timeout fails the test
    with what was running (the runner's progress file) and the output so
    far."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        where = ""
        if progress and os.path.exists(progress):
            where = "; last recorded: " + Path(progress).read_text().strip()
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        pytest.fail(f"{what} killed after {TIMEOUT:.0f} s (GAMEANIM_BLENDER_TIMEOUT){where}\n"
                    f"--- stdout ---\n{out[-20000:]}\n--- stderr ---\n{err[-5000:]}")


def run_in(variant, script, args, progress=None):
    """Runs a script under one Blender variant; returns CompletedProcess.
    progress: a file for the in-Blender runner to record the running test."""
    env = _clean_env()
    if progress:
        env["GAMEANIM_BL_PROGRESS"] = str(progress)
    if variant.startswith("bpy"):
        cmd = [bpy_module_python(variant), str(script), *args]
    else:
        exe = blender_binary()
        cmd = [exe, "-b", "--factory-startup", "--python-exit-code", "1", "--python", str(script), "--", *args]
        # A Blender built against the system Python finds that Python's home
        # through the first python3.x on PATH; a virtualenv or pyenv earlier
        # on PATH would hide the system site-packages (pytest).  Its own
        # folder first keeps the Python it was built with.
        env["PATH"] = os.path.dirname(os.path.realpath(exe)) + os.pathsep + env.get("PATH", "")
    return _run(cmd, env, f"{Path(script).name} in {variant}", progress)


def _show(r):
    return f"exit {r.returncode}\n--- stdout ---\n{r.stdout[-20000:]}\n--- stderr ---\n{r.stderr[-5000:]}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_in_blender_suite(variant, tmp_path):
    """Every in-Blender test passes in every Blender line (blender = the
    Blender binary, Debian's 3.4.1 here; bpy-4.2, bpy-4.5 = those modules
    in .venv; bpy = this interpreter's module, Blender 5.0)."""
    r = run_in(variant, RUNNER, ["--gameanim", BUILD, "-q", "-rfEs"], progress=tmp_path / "progress.txt")
    assert r.returncode == 0, _show(r)
    summary = [line for line in r.stdout.splitlines() if " passed" in line]
    assert summary and "failed" not in summary[-1] and "error" not in summary[-1], _show(r)
    assert "skipped" not in summary[-1], _show(r)


def test_archive_import_from_the_menu_is_one_undo_step(tmp_path):
    """Issue 32: undo steps are pushed only in a window, so the Blender
    binary runs with one under Xvfb (tests/blender/gui_undo_steps.py says
    how it drives the menu's path and reads Blender's undo log)."""
    exe = blender_binary()
    xvfb = shutil.which("xvfb-run")
    if not xvfb:
        _missing("xvfb-run (Debian package xvfb)")
    log = tmp_path / "blender.log"
    env = _clean_env()
    env.update(GAMEANIM_UNDO_LOG=str(log), GAMEANIM_UNDO_DIR=str(tmp_path))
    env["PATH"] = os.path.dirname(os.path.realpath(exe)) + os.pathsep + env.get("PATH", "")
    cmd = [xvfb, "-a", "-s", "-screen 0 1280x800x24", exe, "--factory-startup", "--enable-event-simulate",
           "--log", "bke.undosys", "--log-level", "1", "--python", str(ROOT / "tests" / "blender" / "gui_undo_steps.py"),
           "--", "--gameanim", BUILD]
    with open(log, "w") as out:
        r = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, text=True, env=env, cwd=str(ROOT), timeout=300)
    text = log.read_text(errors="replace")
    assert r.returncode == 0 and "UNDO-PROBE: PASS" in text, f"exit {r.returncode}\n{text[-5000:]}\n{r.stderr[-3000:]}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_batch_command_line(variant, tmp_path):
    """`blender -b --python batch.py -- <folder> --save out.blend` imports
    a folder recursively, reports a corrupt file and carries on."""
    folder = tmp_path / "anims"
    (folder / "sub").mkdir(parents=True)
    walk = ROOT / "samples" / "j3d" / "walk_type0.bck"
    shutil.copy(walk, folder)
    shutil.copy(ROOT / "samples" / "bca" / "swing_odd.bca", folder / "sub")
    (folder / "sub" / "bad.bck").write_bytes(walk.read_bytes()[:60])
    out = tmp_path / "out.blend"
    r = run_in(variant, ADDON / "batch.py", [str(folder), "--save", str(out), "--gameanim-path", BUILD])
    assert r.returncode == 1, _show(r)  # one file failed
    assert "[1/3]" in r.stdout and "[3/3]" in r.stdout, _show(r)
    assert re.search(r"bad\.bck: FAILED: .*bck", r.stdout), _show(r)
    assert "Imported 2 of 3 file(s), 2 action(s); 1 failed" in r.stdout, _show(r)
    assert out.exists() and out.stat().st_size > 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_batch_export_command_line(variant, tmp_path):
    """A whole .blend to a folder: samples imported with the batch importer
    and saved, then `batch.py -- export --out DIR` writes every action back
    byte for byte, one progress line per file and a summary."""
    folder = tmp_path / "anims"
    folder.mkdir()
    picks = [ROOT / "samples" / "j3d" / "walk_cycle.yaz0.bck", ROOT / "samples" / "bca" / "walk_even_lz77.bca",
             ROOT / "samples" / "bk" / "features_rarezip.bin", ROOT / "samples" / "jba" / "legacy_walk.jba"]
    for p in picks:
        shutil.copy(p, folder)
    blend = tmp_path / "scene.blend"
    r = run_in(variant, ADDON / "batch.py", [str(folder), "--save", str(blend), "--target", "NEW",
                                             "--gameanim-path", BUILD])
    assert r.returncode == 0, _show(r)
    out = tmp_path / "out"
    args = ["export", "--out", str(out), "--gameanim-path", BUILD]
    if variant.startswith("bpy"):
        args += ["--blend", str(blend)]
        r = run_in(variant, ADDON / "batch.py", args)
    else:
        r = run_blend(blend, ADDON / "batch.py", args)
    assert r.returncode == 0, _show(r)
    assert "[1/4]" in r.stdout and "[4/4]" in r.stdout, _show(r)
    assert "Exported 4 of 4 file(s)" in r.stdout, _show(r)
    for p in picks:
        assert (out / p.name).read_bytes() == p.read_bytes(), p.name


def run_blend(blend, script, args):
    """The Blender binary on a .blend (blender -b FILE --python script)."""
    exe = blender_binary()
    env = _clean_env()
    env["PATH"] = os.path.dirname(os.path.realpath(exe)) + os.pathsep + env.get("PATH", "")
    cmd = [exe, "-b", str(blend), "--factory-startup", "--python-exit-code", "1", "--python", str(script), "--",
           *args]
    return _run(cmd, env, f"{Path(script).name} in blender on {Path(blend).name}")


@pytest.mark.parametrize("variant", VARIANTS)
def test_demo_main_job_renders_motion(variant, tmp_path):
    """The main job on a few samples: the .blend and the contact sheet are
    written, the rig moves, the texture scrolls, the colour pulses and the
    shapes blink between the rendered frames, a constant pose stays still,
    and a model's meshes walk."""
    out = tmp_path / "out"
    r = run_in(variant, ROOT / "tools" / "demo_main_job.py",
               ["--gameanim", BUILD, "--out", str(out), "--only",
                "walk_type0.bck,scroll_basic.btk,constant_pose.bca,tev_pulse.brk,parts_blink.bva,"
                "figure_skinned_walk.bck",
                "--columns", "3", "--cell", "96x64", "--render-samples", "2"])
    assert r.returncode == 0, _show(r)
    # issue 23: quiet output (Cycles' per-sample progress lines are not shown)
    lines = r.stdout.splitlines()
    assert not [line for line in lines if line.startswith("Fra:") or "| Sample " in line], r.stdout[-3000:]
    assert len(lines) < 80, len(lines)
    sheet = out / "contact_sheet.png"
    assert sheet.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "demo.blend").stat().st_size > 0
    summary = (out / "demo_summary.txt").read_text()
    assert "j3d/walk_type0.bck:" in summary and "(moves)" in summary.split("j3d/walk_type0.bck:")[-1].split("\n")[0]
    assert "(moves)" in summary.split("j3d/scroll_basic.btk:")[-1].split("\n")[0]
    assert "(still)" in summary.split("bca/constant_pose.bca:")[-1].split("\n")[0]
    # issue 21: a driven colour and keyed visibility change the picture too
    assert "(moves)" in summary.split("j3d/tev_pulse.brk:")[-1].split("\n")[0]
    assert "(moves)" in summary.split("j3d/parts_blink.bva:")[-1].split("\n")[0]
    # a J3D model's skinned, textured meshes walk (issue 22)
    assert "(moves)" in summary.split("j3d/figure_skinned_walk.bck:")[-1].split("\n")[0]
    imported = [line for line in summary.split("motion on the contact sheet:")[0].splitlines()
                if "figure_skinned_walk.bck" in line]
    assert imported and "[10 mesh objects]" in imported[0], imported


@pytest.mark.parametrize("variant", BPY_VARIANTS)
def test_addon_registers_without_gameanim(variant, tmp_path):
    """The add-on loads (menu, operator) when the C module is missing, and
    its operator explains how to install it."""
    code = (
        "import sys, os; sys.path.insert(0, %r); import bpy\n"
        "import io_anim_gameanim as a; a.register()\n"
        "from io_anim_gameanim import native\n"
        "print('available', native.available())\n"
        "try:\n"
        "    bpy.ops.import_anim.gameanim(filepath=%r)\n"
        "except RuntimeError as e:\n"
        "    print('error:', e)\n"
        "a.unregister()\n"  # the bpy module of 4.2 crashes at exit, 4.5's hangs, while registered
    ) % (str(ADDON.parent), str(ROOT / "samples" / "j3d" / "walk_type0.bck"))
    env = _clean_env()
    env.pop("GAMEANIM_PATH", None)
    exe = bpy_module_python(variant)
    try:
        r = subprocess.run([exe, "-c", code], capture_output=True, text=True, env=env, cwd=str(tmp_path),
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"killed after {TIMEOUT:.0f} s: {e.stdout!r} {e.stderr!r}")
    assert r.returncode == 0, _show(r)
    assert "available False" in r.stdout, _show(r)
    assert "gameanim C module is not installed" in r.stdout, _show(r)


# ---------------------------------------------------------------------------
# static rules of the add-on's source


# (the layers' import directions, version checks, relative imports and the
# export path's loops: tests/test_addon_layers.py)
def addon_sources():
    return sorted(ADDON.rglob("*.py"))


def test_no_keyframe_insert_in_the_addon():
    offenders = [p.name for p in addon_sources()
                 if re.search(r"keyframe_insert|keyframe_points\.insert", p.read_text())]
    assert offenders == []


def test_bl_info_and_manifest():
    tree = ast.parse((ADDON / "__init__.py").read_text())
    bl_info = next(ast.literal_eval(n.value) for n in tree.body
                   if isinstance(n, ast.Assign) and n.targets[0].id == "bl_info")
    assert bl_info["blender"] == (3, 4, 0) and bl_info["category"] == "Import-Export"
    import tomllib

    manifest = tomllib.loads((ADDON / "blender_manifest.toml").read_text())
    for key in ("schema_version", "id", "version", "name", "tagline", "maintainer", "type", "license",
                "blender_version_min"):
        assert manifest.get(key), key
    assert manifest["id"] == ADDON.name and manifest["type"] == "add-on"
    assert len(manifest["tagline"]) <= 64 and not manifest["tagline"].endswith((".", "!"))
    assert tuple(int(x) for x in manifest["blender_version_min"].split(".")) >= (4, 2, 0)
    assert manifest["version"] == ".".join(map(str, bl_info["version"]))
