"""Distribution (issue 10): `sh tools/build_dist.sh` builds, once per test
session into a temporary folder, the sdist, the abi3 wheel, the Blender
extension zip and the legacy add-on zip; the tests install each the way a
user would:

* the wheel into fresh virtual environments (python3 -m venv) of every
  CPython >= 3.11 found (one abi3 binary), refused by 3.10; `gameanim
  --help`, `python -m gameanim --help`, `gameanim info/validate` and
  `import gameanim` from there;
* the sdist built from source in a fresh venv (pip, build isolation);
* the extension zip into Blender 5.0 (the bpy module) with
  bpy.ops.extensions.package_install_files, into a temporary user
  extensions folder (BLENDER_USER_* variables), enabled, and a sample
  imported onto an armature;
* the legacy zip into Debian's Blender 3.4.1 with
  bpy.ops.preferences.addon_install (temporary BLENDER_USER_SCRIPTS /
  CONFIG), enabled, and a sample imported onto an armature.

Imported curves are compared with the cubic Hermite written out below, not
with the C module.  A missing Blender skips its test unless
GAMEANIM_REQUIRE_BLENDER=1.  The tool environment of build_dist.sh
(build/dist-venv) and the sdist test need PyPI on first use.
"""
import ast
import base64
import glob
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import gameanim

ROOT = Path(__file__).resolve().parent.parent
ADDON = ROOT / "blender_addon" / "io_anim_gameanim"
SAMPLE = ROOT / "samples" / "j3d" / "walk_type0.bck"
REQUIRE_BLENDER = os.environ.get("GAMEANIM_REQUIRE_BLENDER", "") not in ("", "0")
WHEEL_RE = re.compile(r"gameanim-(?P<version>[^-]+)-cp311-abi3-(?P<plat>[^-]+)\.whl")
PACKAGE = ROOT / "gameanim"
CORE = "_core.abi3.so"


def package_files():
    """What the package gameanim/ ships: its Python modules, the stubs,
    py.typed, and the built core."""
    return sorted([p.name for p in PACKAGE.iterdir() if p.is_file() and p.name.endswith((".py", ".pyi"))]
                  + ["py.typed", CORE])


def _missing_blender(what):
    if REQUIRE_BLENDER:
        pytest.fail(f"{what} is required (GAMEANIM_REQUIRE_BLENDER=1) but not available")
    pytest.skip(f"{what} not available")


def clean_env(**extra):
    """The environment without anything that would let the repository's
    build be imported instead of the installed one."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "GAMEANIM_PATH", "PYTHONHOME", "VIRTUAL_ENV")
           and not k.startswith("BLENDER_USER_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("env", clean_env())
    return subprocess.run([str(c) for c in cmd], **kw)


def show(r):
    return f"exit {r.returncode}\n--- stdout ---\n{r.stdout[-12000:]}\n--- stderr ---\n{r.stderr[-6000:]}"


def project_version():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


# ---------------------------------------------------------------------------
# the artefacts, built once


# the cross-built platforms: (wheel platform tag, Blender platform, zip suffix, core file name)
CROSS = [("win_amd64", "windows-x64", "windows_x64", "_core.pyd"),
         ("macosx_11_0_arm64", "macos-arm64", "macos_arm64", "_core.abi3.so"),
         ("macosx_10_13_x86_64", "macos-x64", "macos_x64", "_core.abi3.so")]
REQUIRE_CROSS = os.environ.get("GAMEANIM_REQUIRE_CROSS", "") not in ("", "0")


def cross_toolchains_missing():
    """None when tools/setup_cross.sh's toolchains are there, else why not."""
    r = run([sys.executable, ROOT / "tools" / "cross" / "build.py", "--check-toolchains", "--out", "."])
    return None if r.returncode == 0 else r.stderr.strip()


@pytest.fixture(scope="session")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    missing = cross_toolchains_missing()
    if missing and REQUIRE_CROSS:
        pytest.fail(f"the cross toolchains are required (GAMEANIM_REQUIRE_CROSS=1): {missing}")
    # (the test command has set the machine up: build_dist.sh must not run
    # the setup again, which rebuilds build/lib under the running tests)
    env = clean_env(GAMEANIM_SKIP_SETUP="1", **({"GAMEANIM_DIST_PLATFORMS": ""} if missing else {}))
    r = run(["sh", ROOT / "tools" / "build_dist.sh", out], cwd=str(ROOT), env=env)
    assert r.returncode == 0, show(r)
    version = project_version()

    def one(pattern):
        found = sorted(out.glob(pattern))
        assert len(found) == 1, (pattern, sorted(p.name for p in out.iterdir()))
        return found[0]

    cross = {}
    if not missing:
        for plat, blender, suffix, core in CROSS:
            cross[plat] = {"wheel": one(f"gameanim-{version}-cp311-abi3-{plat}.whl"),
                           "extension": one(f"io_anim_gameanim-{version}-{suffix}.zip"),
                           "legacy": one(f"io_anim_gameanim-{version}-legacy-{suffix}.zip"),
                           "blender": blender, "core": core}
    return {
        "dir": out,
        "log": r.stdout,
        "sdist": one(f"gameanim-{version}.tar.gz"),
        "wheel": one(f"gameanim-{version}-cp311-abi3-manylinux*.whl"),
        "extension": one(f"io_anim_gameanim-{version}-linux_x64.zip"),
        "legacy": one(f"io_anim_gameanim-{version}-legacy-linux_x64.zip"),
        "sums": one("SHA256SUMS"),
        "cross": cross,
        "cross_missing": missing,
    }


def cross_or_skip(dist):
    if not dist["cross"]:
        pytest.skip(f"no cross toolchains (sh tools/setup_cross.sh): {dist['cross_missing']}")
    return dist["cross"]


def test_one_command_builds_every_artefact_with_checksums(dist):
    """The sdist, the wheel and the two zips of Linux and (with the cross
    toolchains) of Windows x64, macOS arm64 and macOS x86-64, and checksums
    of them all; nothing else."""
    names = sorted(p.name for p in dist["dir"].iterdir())
    kinds = [dist[k].name for k in ("sdist", "wheel", "extension", "legacy")]
    kinds += [c[k].name for c in dist["cross"].values() for k in ("wheel", "extension", "legacy")]
    assert names == sorted(kinds + ["SHA256SUMS"])  # nothing else is left behind (staging, logs)
    sums = {}
    for line in dist["sums"].read_text().splitlines():
        digest, name = line.split()
        sums[name.lstrip("*")] = digest
    assert sorted(sums) == sorted(kinds)
    for name, digest in sums.items():
        assert hashlib.sha256((dist["dir"] / name).read_bytes()).hexdigest() == digest, name


def test_both_blender_zips_carry_the_license(dist):
    text = (ROOT / "LICENSE").read_bytes()
    with zipfile.ZipFile(dist["extension"]) as zf:
        assert zf.read("LICENSE") == text
    with zipfile.ZipFile(dist["legacy"]) as zf:
        assert zf.read("io_anim_gameanim/LICENSE") == text


def test_two_builds_of_one_commit_are_identical(dist, tmp_path):
    """A second checkout of the same tree (same commit and contents, other
    path, every file written now, so other mtimes) builds byte-identical
    artefacts: SOURCE_DATE_EPOCH comes from the last commit."""
    if not (ROOT / ".git").exists() or not shutil.which("git"):
        pytest.skip("not a git checkout")
    other = tmp_path / "checkout"
    r = run(["git", "clone", "-q", "--no-hardlinks", ROOT, other])
    assert r.returncode == 0, show(r)
    # the working tree's own state (uncommitted edits, new files) on top
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=str(ROOT))
    assert listed.returncode == 0, show(listed)
    for rel in filter(None, listed.stdout.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (other / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, other / rel)
            shutil.copymode(src, other / rel)
    gone = run(["git", "ls-files", "-z", "--deleted"], cwd=str(ROOT))
    for rel in filter(None, gone.stdout.split("\0")):
        (other / rel).unlink(missing_ok=True)
    out = tmp_path / "dist2"
    env = clean_env(GAMEANIM_DIST_VENV=str(ROOT / "build" / "dist-venv"), GAMEANIM_SKIP_SETUP="1",
                    GAMEANIM_CROSS_DIR=os.environ.get("GAMEANIM_CROSS_DIR", str(ROOT / "build" / "cross")),
                    **({"GAMEANIM_DIST_PLATFORMS": ""} if dist["cross_missing"] else {}))
    env.pop("SOURCE_DATE_EPOCH", None)
    r = run(["sh", other / "tools" / "build_dist.sh", out], cwd=str(other), env=env)
    assert r.returncode == 0, show(r)
    assert (out / "SHA256SUMS").read_text() == dist["sums"].read_text()


# ---------------------------------------------------------------------------
# the wheel


def _elf_requirements(so_path):
    """(NEEDED libraries, GLIBC symbol versions) of an ELF file, read with
    binutils' readelf (independently of auditwheel)."""
    if not shutil.which("readelf"):
        pytest.skip("readelf (binutils) not available")
    dyn = run(["readelf", "-d", "-W", so_path])
    assert dyn.returncode == 0, show(dyn)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn.stdout)
    syms = run(["readelf", "--dyn-syms", "-W", so_path])
    assert syms.returncode == 0, show(syms)
    versions = {tuple(int(x) for x in v.split(".")) for v in re.findall(r"@GLIBC_([0-9.]+)", syms.stdout)}
    return needed, versions


# libraries every manylinux policy guarantees (PEP 599 / 600)
MANYLINUX_LIBS = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
                  "libgcc_s.so.1", "libstdc++.so.6", "ld-linux-x86-64.so.2"}


def test_wheel_is_one_abi3_manylinux_wheel(dist, tmp_path):
    """cp311-abi3 with manylinux tags (name and WHEEL agree); the module is
    an .abi3.so that needs no libpython and no glibc newer than its tag;
    RECORD hashes match; the package (core, CLI, stubs, py.typed) and the
    console script are in it."""
    wheel = dist["wheel"]
    m = WHEEL_RE.fullmatch(wheel.name)
    assert m and m["version"] == project_version(), wheel.name
    plats = m["plat"].split(".")
    assert all(re.fullmatch(r"manylinux(2014|_2_\d+)_x86_64", p) for p in plats), plats
    glibc = [tuple(map(int, re.fullmatch(r"manylinux_(\d+)_(\d+)_x86_64", p).groups()))
             for p in plats if p.startswith("manylinux_")]
    glibc += [(2, 17) for p in plats if p.startswith("manylinux2014")]
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        info = f"gameanim-{m['version']}.dist-info"
        wheel_meta = zf.read(f"{info}/WHEEL").decode()
        assert sorted(re.findall(r"^Tag: (.+)$", wheel_meta, re.M)) == sorted(f"cp311-abi3-{p}" for p in plats)
        assert "Root-Is-Purelib: false" in wheel_meta
        files = sorted(n for n in names if not n.startswith(info) and not n.endswith("/"))  # (auditwheel adds folders)
        # (compared by name: the tree may be edited while the tests run)
        assert files == [f"gameanim/{n}" for n in package_files()]
        entry = zf.read(f"{info}/entry_points.txt").decode()
        assert re.search(r"^gameanim\s*=\s*gameanim\.cli:main$", entry, re.M), entry
        metadata = zf.read(f"{info}/METADATA").decode()
        assert "Requires-Python: >=3.11" in metadata
        assert any(n.startswith(f"{info}/") and "LICENSE" in n for n in names)
        for line in zf.read(f"{info}/RECORD").decode().splitlines():
            name, digest, size = line.rsplit(",", 2)
            if name.endswith("/RECORD"):
                continue
            data = zf.read(name)
            expected = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert digest == expected and int(size) == len(data), name
        so = tmp_path / CORE
        so.write_bytes(zf.read(f"gameanim/{CORE}"))
    needed, versions = _elf_requirements(so)
    assert not [n for n in needed if n.startswith("libpython")], needed  # an extension never links libpython
    assert set(needed) <= MANYLINUX_LIBS, needed
    assert versions and max(versions) <= (min(glibc)[0], min(glibc)[1]), (sorted(versions), glibc)
    # stripped by auditwheel: no debug sections
    sections = run(["readelf", "-S", "-W", so]).stdout
    assert ".debug_info" not in sections


@pytest.mark.parametrize("name,message", [
    ("gameanim-{v}-cp311-abi3-linux_x86_64.whl", "are not manylinux tags"),
    ("gameanim-{v}-cp311-cp311-manylinux_2_17_x86_64.whl", "expected the stable-ABI tags cp311-abi3"),
    ("gameanim-{v}-cp311-abi3-manylinux_2_28_x86_64.whl", "do not match the file name"),
])
def test_packer_refuses_a_wheel_that_is_not_the_abi3_manylinux_one(dist, tmp_path, name, message):
    """tools/dist_blender.py checks the tags before it packs anything: the
    built wheel under a wrong name (its WHEEL file then disagrees too)."""
    bad = tmp_path / name.format(v=project_version())
    shutil.copy(dist["wheel"], bad)
    r = run([sys.executable, ROOT / "tools" / "dist_blender.py", "--wheel", bad, "--out", tmp_path / "out"])
    assert r.returncode == 1, show(r)
    assert message in r.stderr, show(r)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def _python(minor):
    """A CPython 3.<minor> interpreter, or None."""
    if minor == sys.version_info[1]:
        return sys.executable
    candidates = [shutil.which(f"python3.{minor}"), f"/usr/bin/python3.{minor}"]
    pyenv_root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates += sorted(glob.glob(os.path.join(pyenv_root, "versions", f"3.{minor}.*", "bin", f"python3.{minor}")),
                         reverse=True)
    for c in candidates:
        if c and os.path.exists(c):
            r = run([c, "-c", "import sys, venv; print(sys.version_info[:2])"])
            if r.returncode == 0 and r.stdout.strip() == f"(3, {minor})":
                return c
    return None


def _host_pip_targets_other_pythons():
    """pip >= 22.3 installs into another interpreter's environment with
    --python: a venv then needs no pip of its own (ensurepip is slow)."""
    try:
        from pip import __version__ as v
    except ImportError:
        return False
    return tuple(int(x) for x in re.findall(r"\d+", v)[:2]) >= (22, 3)


def make_venv(python, where):
    """A fresh venv (python -m venv); returns its bin folder."""
    light = _host_pip_targets_other_pythons()
    r = run([python, "-m", "venv", *(["--without-pip"] if light else []), where])
    assert r.returncode == 0, show(r)
    return Path(where) / "bin"


def pip_install(bindir, *args, **kw):
    """pip install into the venv of bindir."""
    if _host_pip_targets_other_pythons():
        cmd = [sys.executable, "-m", "pip", "--python", bindir / "python"]
    else:
        cmd = [bindir / "python", "-m", "pip"]
    return run([*cmd, "install", "--disable-pip-version-check", *args], **kw)


def _check_installed(bindir, tmp_path):
    """The installed command (`gameanim` and `python -m gameanim`) and
    package work from a neutral folder and come from the venv, not from the
    repository."""
    exe = bindir / "python"
    for command in ([bindir / "gameanim"], [exe, "-m", "gameanim"]):
        r = run([*command, "--help"], cwd=str(tmp_path))
        assert r.returncode == 0, show(r)
        assert r.stdout.startswith("usage: gameanim "), show(r)
        for cmd in ("info", "dump", "build", "sample", "validate", "convert"):
            assert cmd in r.stdout, (command, cmd, r.stdout)
    r = run([bindir / "gameanim", "info", SAMPLE], cwd=str(tmp_path))
    assert r.returncode == 0 and "bck" in r.stdout, show(r)
    r = run([bindir / "gameanim", "validate", SAMPLE], cwd=str(tmp_path))
    assert r.returncode == 0, show(r)
    code = (
        "import json, sys, gameanim\n"
        "a = gameanim.load(sys.argv[1])\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "print(json.dumps({'file': gameanim.__file__, 'core': gameanim._core.__file__,\n"
        "                  'version': gameanim.__version__, 'format': a.format,\n"
        "                  'frames': a.frame_count, 'tracks': len(a.tracks), 'same': a.to_bytes() == data,\n"
        "                  'formats': sorted(gameanim.formats())}))\n"
    )
    r = run([exe, "-c", code, SAMPLE], cwd=str(tmp_path))
    assert r.returncode == 0, show(r)
    got = json.loads(r.stdout.strip().splitlines()[-1])
    for f in (got["file"], got["core"]):
        assert Path(f).resolve().is_relative_to(bindir.parent.resolve()), f
    assert Path(got["file"]).name == "__init__.py" and Path(got["core"]) == Path(got["file"]).parent / CORE, got
    # the stubs and py.typed next to the core, for type checkers
    assert (Path(got["file"]).parent / "py.typed").is_file() and (Path(got["file"]).parent / "_core.pyi").is_file()
    assert got["version"] == project_version()
    data = SAMPLE.read_bytes()
    # the sample's header read here: J3D1bck1 magic, ANK1 duration (s16 at 0x2A)
    assert data[:8] == b"J3D1bck1" and data[0x20:0x24] == b"ANK1"
    assert got["format"] == "bck" and got["frames"] == struct.unpack(">h", data[0x2A:0x2C])[0]
    assert got["same"] is True
    assert got["formats"] == ["bca", "bck", "bk", "bpk", "brk", "btk", "btp", "bva", "j3d_bca", "jba"]


@pytest.mark.parametrize("minor", [11, 12, 13])
def test_wheel_installs_into_a_fresh_venv_and_works(dist, tmp_path, minor):
    """The one abi3 wheel installs (offline, no dependencies) into a fresh
    venv of CPython 3.11 and of every newer CPython found, and the command
    and module work there."""
    python = _python(minor)
    if python is None:
        pytest.skip(f"no CPython 3.{minor} on this machine")
    bindir = make_venv(python, tmp_path / "venv")
    r = pip_install(bindir, "--no-index", "-q", dist["wheel"])
    assert r.returncode == 0, show(r)
    _check_installed(bindir, tmp_path)


def test_wheel_is_refused_by_python_310(dist, tmp_path):
    """The cp311 tag keeps the wheel off interpreters older than the limited
    API it was built for."""
    python = _python(10)
    if python is None:
        pytest.skip("no CPython 3.10 on this machine")
    bindir = make_venv(python, tmp_path / "venv")
    r = pip_install(bindir, "--no-index", dist["wheel"])
    assert r.returncode != 0
    assert "is not a supported wheel on this platform" in r.stdout + r.stderr, show(r)


# ---------------------------------------------------------------------------
# the sdist


def test_sdist_holds_the_sources_and_nothing_built(dist):
    version = project_version()
    with tarfile.open(dist["sdist"]) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    # every C source and header, in whatever folders csrc/ has
    csrc = {p.relative_to(ROOT).as_posix() for p in (ROOT / "csrc").rglob("*") if p.suffix in (".c", ".h")}
    assert csrc and csrc <= names, sorted(csrc - names)
    package = {f"gameanim/{n}" for n in package_files() if n != CORE}
    assert package <= names, sorted(package - names)
    for need in ("README.md", "LICENSE", "pyproject.toml", "setup.py", "PKG-INFO", "MANIFEST.in"):
        assert need in names, need
    assert not [n for n in names if n.endswith((".so", ".pyd", ".o", ".pyc", ".whl", ".zip"))]
    assert not [n for n in names if n.startswith(("build/", "dist/", "samples/", "fuzz/", "bench/"))]
    assert dist["sdist"].name == f"gameanim-{version}.tar.gz"


def test_sdist_builds_from_source_in_a_fresh_venv(dist, tmp_path):
    """pip builds the sdist in isolation (setuptools from PyPI, the C
    compiler here) and installs a working abi3 module and command."""
    bindir = make_venv(sys.executable, tmp_path / "venv")
    r = pip_install(bindir, "--no-binary", "gameanim", dist["sdist"], cwd=str(tmp_path))
    assert r.returncode == 0, show(r)
    assert re.search(r"Building wheel for gameanim|Successfully built gameanim", r.stdout + r.stderr), show(r)
    _check_installed(bindir, tmp_path)


# ---------------------------------------------------------------------------
# the Blender zips


def addon_modules():
    """The add-on's .py files, relative to its folder (its layers are
    subfolders)."""
    return sorted(p.relative_to(ADDON).as_posix() for p in ADDON.rglob("*.py") if "__pycache__" not in p.parts)


def test_extension_zip_lists_its_wheel(dist):
    """The manifest at the zip root lists, under `wheels`, the wheel the zip
    holds (path relative to the manifest), byte-identical to the dist
    wheel; platforms, version and minimum Blender are right; Blender's own
    validator accepts the zip when the bpy module is there."""
    with zipfile.ZipFile(dist["extension"]) as zf:
        names = zf.namelist()
        manifest = tomllib.loads(zf.read("blender_manifest.toml").decode())
        assert manifest["wheels"] == [f"./wheels/{dist['wheel'].name}"]
        assert zf.read(f"wheels/{dist['wheel'].name}") == dist["wheel"].read_bytes()
        packed = {n: zf.read(n) for n in names if n.endswith(".py")}
    # every module of the add-on (compared by name: the tree may be edited
    # while the tests run), identical to the legacy zip's copy
    assert sorted(packed) == addon_modules()
    with zipfile.ZipFile(dist["legacy"]) as lz:
        for name, data in packed.items():
            assert lz.read(f"io_anim_gameanim/{name}") == data, name
    assert [n for n in names if n.endswith(".whl")] == [f"wheels/{dist['wheel'].name}"]
    assert not [n for n in names if "__pycache__" in n or n.endswith((".so", ".pyc")) or "_native" in n]
    assert manifest["id"] == "io_anim_gameanim" and manifest["type"] == "add-on"
    assert manifest["version"] == project_version()
    assert tuple(int(x) for x in manifest["blender_version_min"].split(".")) >= (4, 2, 0)
    assert manifest["platforms"] == ["linux-x64"]
    assert manifest["permissions"]["files"]
    validator = _blender_ext_cli()
    if validator:
        r = run([sys.executable, validator, "validate", dist["extension"]])
        assert r.returncode == 0, show(r)


def _blender_ext_cli():
    r = run([sys.executable, "-c", "import bpy, os; print(os.path.dirname(bpy.__file__))"])
    if r.returncode != 0:
        return None
    found = glob.glob(os.path.join(r.stdout.strip().splitlines()[-1], "*", "scripts", "addons_core", "bl_pkg",
                                   "cli", "blender_ext.py"))
    return found[0] if found else None


def test_repository_manifest_names_the_wheel_that_is_built(dist):
    """The committed blender_manifest.toml lists the same wheel file name and
    platform as the Linux build, and every version agrees (pyproject,
    manifest, bl_info, the module)."""
    manifest = tomllib.loads((ADDON / "blender_manifest.toml").read_text())
    assert manifest["wheels"] == [f"./wheels/{dist['wheel'].name}"]
    assert manifest["platforms"] == ["linux-x64"]
    tree = ast.parse((ADDON / "__init__.py").read_text())
    bl_info = next(ast.literal_eval(n.value) for n in tree.body
                   if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "bl_info")
    version = project_version()
    assert manifest["version"] == version == ".".join(map(str, bl_info["version"])) == gameanim.__version__
    assert bl_info["blender"] <= (3, 4, 0)


def test_legacy_zip_vendors_the_package_from_the_wheel(dist):
    """The add-on's modules, and the package gameanim/ of the wheel (core,
    CLI, stubs) byte for byte in _native/gameanim/."""
    vendored = "io_anim_gameanim/_native/gameanim/"
    with zipfile.ZipFile(dist["legacy"]) as zf:
        names = zf.namelist()
        package = {n[len(vendored):]: zf.read(n) for n in names if n.startswith(vendored)}
        init = zf.read("io_anim_gameanim/__init__.py").decode()
    assert "bl_info" in init
    assert sorted(n.split("/", 1)[1] for n in names if n.endswith(".py") and not n.startswith(vendored)) \
        == addon_modules()
    assert sorted(package) == package_files()
    with zipfile.ZipFile(dist["wheel"]) as wz:
        for n, data in package.items():
            assert data == wz.read(f"gameanim/{n}"), n
    assert not [n for n in names if "/_native/" in n and not n.startswith(vendored)], names
    assert all(n.startswith("io_anim_gameanim/") for n in names), names
    assert "io_anim_gameanim/blender_manifest.toml" not in names  # a legacy add-on, not an extension
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".whl"))]


NATIVE_PROBE = r"""
import importlib.util, json, sys
path = sys.argv[1]
before = list(sys.path)
spec = importlib.util.spec_from_file_location("native_under_test", path)
native = importlib.util.module_from_spec(spec)
spec.loader.exec_module(native)
out = {"path_unchanged": None}
try:
    ga = native.require()
    out.update(ok=True, file=ga.__file__, core=ga._core.__file__, origin=native.origin(),
               load=ga.load(sys.argv[2]).format, registered=sys.modules["gameanim"] is ga,
               extensions=list(ga.file_extensions()))
except native.GameanimMissing as e:
    out.update(ok=False, message=str(e), available=native.available(), hint=native.INSTALL_HINT,
               leftover=sorted(n for n in sys.modules if n.split(".")[0] == "gameanim"))
out["path_unchanged"] = sys.path == before
print(json.dumps(out))
"""


def test_native_loads_the_vendored_module_and_explains_a_broken_one(dist, tmp_path):
    """native.py (as unpacked from the legacy zip, without Blender) loads
    the package _native/gameanim/ (its core _core.abi3.so) as `gameanim`
    without touching sys.path; a damaged vendored core gives the install
    hint with the reason."""
    with zipfile.ZipFile(dist["legacy"]) as zf:
        zf.extractall(tmp_path / "good")
    probe = tmp_path / "probe.py"
    probe.write_text(NATIVE_PROBE)
    native = tmp_path / "good" / "io_anim_gameanim" / "native.py"
    r = run([sys.executable, probe, native, SAMPLE], cwd=str(tmp_path))
    assert r.returncode == 0, show(r)
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["ok"] and got["origin"] == "vendored" and got["load"] == "bck" and got["registered"], got
    assert Path(got["file"]) == native.parent / "_native" / "gameanim" / "__init__.py"
    assert Path(got["core"]) == native.parent / "_native" / "gameanim" / CORE
    assert ".bck" in got["extensions"], got  # the package's own Python, not only the core
    assert got["path_unchanged"], got

    shutil.copytree(tmp_path / "good", tmp_path / "bad")
    (tmp_path / "bad" / "io_anim_gameanim" / "_native" / "gameanim" / CORE).write_bytes(b"\x7fELF not really")
    r = run([sys.executable, probe, tmp_path / "bad" / "io_anim_gameanim" / "native.py", SAMPLE], cwd=str(tmp_path))
    assert r.returncode == 0, show(r)
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["ok"] is False and got["available"] is False, got
    assert "the gameanim C module is not installed" in got["message"]
    assert f"_native/gameanim/{CORE} could not be loaded" in got["message"], got["message"]
    assert "file too short" in got["message"].split("could not be loaded", 1)[1], got["message"]  # and why
    assert got["hint"] == got["message"]  # what the import operator reports
    assert got["leftover"] == [], got  # no half-imported package stays behind
    assert got["path_unchanged"], got

    # a Python older than the stable ABI's 3.11 is told so; the module is not tried
    old = _python(10)
    if old is None:
        pytest.skip("no CPython 3.10 to check the too-old-Python message")
    r = run([old, probe, native, SAMPLE], cwd=str(tmp_path))
    assert r.returncode == 0, show(r)
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["ok"] is False and "this Blender runs Python 3.10" in got["message"], got
    assert "needs Python 3.11 or newer" in got["message"], got


# ---------------------------------------------------------------------------
# installing the zips in Blender


# Runs inside Blender (the bpy module or the binary): installs the zip,
# enables the add-on, imports two files onto armatures and prints a JSON
# line.  Argument after "--" (or the first): a JSON object.
IN_BLENDER = r'''
import json, os, sys
argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
args = json.loads(argv[0])
import bpy, addon_utils
out = {"blender": bpy.app.version_string}
if args["mode"] == "extension":
    r = bpy.ops.extensions.package_install_files(filepath=args["zip"], repo="user_default", enable_on_install=True)
    module = "bl_ext.user_default.io_anim_gameanim"
else:
    r = bpy.ops.preferences.addon_install(filepath=args["zip"])
    out["enable"] = sorted(bpy.ops.preferences.addon_enable(module="io_anim_gameanim"))
    module = "io_anim_gameanim"
out["install"] = sorted(r)
out["check"] = list(addon_utils.check(module))
out["in_prefs"] = module in bpy.context.preferences.addons
pkg = sys.modules[module]
out["addon_file"] = pkg.__file__
native = sys.modules[module + ".native"] if module + ".native" in sys.modules else __import__(module + ".native", fromlist=["x"])
ga = native.require()
out["gameanim_file"] = ga.__file__
out["origin"] = native.origin()
out["operator"] = hasattr(bpy.types, "IMPORT_ANIM_OT_gameanim")

scene = bpy.context.scene
arm = bpy.data.armatures.new("Rig")
rig = bpy.data.objects.new("Rig", arm)
scene.collection.objects.link(rig)
bpy.context.view_layer.objects.active = rig
rig.select_set(True)
bpy.ops.object.mode_set(mode="EDIT")
for name in ("a", "b"):
    eb = arm.edit_bones.new(name)
    eb.head = (0.0, 0.0, 0.0)
    eb.tail = (0.0, 1.0, 0.0)
bpy.ops.object.mode_set(mode="OBJECT")
out["import"] = sorted(bpy.ops.import_anim.gameanim(filepath=args["made"], target="ACTIVE", bone_match="INDEX"))
out["action"] = rig.animation_data.action.name if rig.animation_data and rig.animation_data.action else None
values = []
for f in args["frames"]:
    scene.frame_set(int(f // 1), subframe=f - f // 1)
    a, b = rig.pose.bones["a"], rig.pose.bones["b"]
    values.append([a.location[0], a.scale[0], b.location[1]])
out["values"] = values

out["sample_import"] = sorted(bpy.ops.import_anim.gameanim(filepath=args["sample"], target="NEW"))
new = [o for o in bpy.data.objects if o.type == "ARMATURE" and o is not rig]
out["new_rigs"] = len(new)
if new:
    scene.frame_set(0)
    m0 = [[list(r) for r in pb.matrix] for pb in new[0].pose.bones]
    scene.frame_set(10)
    m1 = [[list(r) for r in pb.matrix] for pb in new[0].pose.bones]
    out["moved"] = any(abs(x - y) > 1e-3 for p, q in zip(m0, m1) for r, s in zip(p, q) for x, y in zip(r, s))
    out["sample_action"] = new[0].animation_data.action.name if new[0].animation_data.action else None
print("RESULT:" + json.dumps(out))
sys.stdout.flush()
'''

# The file the test makes and imports: joint 0 translation X (Hermite,
# three keys), joint 0 scale X (a straight line written as Hermite keys),
# joint 1 translation Y (linear).  (times, values, in_slopes, out_slopes)
MADE_TRACKS = [
    (0, "translation", 0, [0.0, 10.0, 20.0], [0.0, 5.0, -2.0], [0.0, 0.5, 0.0], [0.3, -0.2, 0.0], [2, 2, 2]),
    (0, "scale", 0, [0.0, 20.0], [1.0, 2.0], [0.05, 0.05], [0.05, 0.05], [2, 2]),
    (1, "translation", 1, [0.0, 8.0], [1.0, -3.0], [0.0, 0.0], [0.0, 0.0], [1, 1]),
]
FRAMES = [0.0, 2.5, 5.0, 8.0, 10.0, 13.25, 20.0]


def hermite(times, values, ins, outs, interp, f):
    """Cubic Hermite between keys with the left key's out-slope and the right
    key's in-slope (value units per frame); straight lines for LINEAR; held
    outside the keys."""
    if f <= times[0]:
        return values[0]
    if f >= times[-1]:
        return values[-1]
    k = max(i for i in range(len(times) - 1) if times[i] <= f)
    t0, t1, v0, v1 = times[k], times[k + 1], values[k], values[k + 1]
    d = t1 - t0
    s = (f - t0) / d
    if interp[k] == 1:
        return v0 + (v1 - v0) * s
    m0, m1 = outs[k] * d, ins[k + 1] * d
    return ((2 * s**3 - 3 * s**2 + 1) * v0 + (s**3 - 2 * s**2 + s) * m0
            + (-2 * s**3 + 3 * s**2) * v1 + (s**3 - s**2) * m1)


def expected_values():
    return [[hermite(*MADE_TRACKS[i][3:], f) for i in range(3)] for f in FRAMES]


def make_file(path):
    tracks = [gameanim.Track(t, ch, ax, times=tm, values=v, in_slopes=i, out_slopes=o, interpolation=ip)
              for t, ch, ax, tm, v, i, o, ip in MADE_TRACKS]
    path.write_bytes(gameanim.Animation("bck", tracks, frame_count=20, loop="once").to_bytes())
    return path


def _bpy_python():
    r = run([sys.executable, "-c", "import bpy; print(bpy.app.version_string)"])
    if r.returncode != 0 or not r.stdout.strip():
        _missing_blender("the bpy module (pip install bpy)")
    return r.stdout.strip().splitlines()[-1]


def _blender_binary():
    exe = os.environ.get("GAMEANIM_BLENDER") or shutil.which("blender")
    if not exe:
        _missing_blender("a Blender binary (Debian's blender 3.4.1)")
    return exe


def _check_blender_result(r, user_dir, mode):
    assert r.returncode == 0, show(r)
    lines = [line for line in r.stdout.splitlines() if line.startswith("RESULT:")]
    assert lines, show(r)
    got = json.loads(lines[-1][len("RESULT:"):])
    user = Path(user_dir).resolve()
    # the add-on and the module come from the installed zip, not the repository
    assert Path(got["addon_file"]).resolve().is_relative_to(user), got["addon_file"]
    assert Path(got["gameanim_file"]).resolve().is_relative_to(user), got["gameanim_file"]
    assert got["origin"] == ("installed" if mode == "extension" else "vendored"), got
    assert got["check"][1] is True, got  # addon_utils.check: (loaded by default, loaded now)
    assert got["in_prefs"] and got["operator"], got
    assert got["install"] == ["FINISHED"] and got["import"] == ["FINISHED"], got
    assert got["action"] == "made.bck", got  # (named after its file with its kind)
    for f, want, have in zip(FRAMES, expected_values(), got["values"]):
        assert have == pytest.approx(want, abs=1e-4), (f, want, have)
    assert got["sample_import"] == ["FINISHED"] and got["new_rigs"] == 1, got
    assert got["sample_action"] == SAMPLE.name and got["moved"], got  # (walk_type0.bck: its file name with its kind)
    return got


def test_extension_zip_installs_enables_and_imports_in_blender_5(dist, tmp_path):
    version = _bpy_python()
    assert version.startswith("5."), f"the bpy module is Blender {version}, expected 5.x"
    made = make_file(tmp_path / "made.bck")
    script = tmp_path / "in_blender.py"
    script.write_text(IN_BLENDER)
    user = tmp_path / "user"
    env = clean_env(BLENDER_USER_RESOURCES=str(user), BLENDER_USER_CONFIG=str(user / "config"),
                    BLENDER_USER_SCRIPTS=str(user / "scripts"), BLENDER_USER_EXTENSIONS=str(user / "extensions"),
                    BLENDER_USER_DATAFILES=str(user / "datafiles"))
    args = {"mode": "extension", "zip": str(dist["extension"]), "made": str(made), "sample": str(SAMPLE),
            "frames": FRAMES}
    r = run([sys.executable, script, json.dumps(args)], env=env, cwd=str(tmp_path))
    got = _check_blender_result(r, user, "extension")
    assert got["blender"].startswith("5.")
    # Blender put the wheel's module into the extensions' site-packages
    assert "/extensions/.local/lib/python3" in got["gameanim_file"], got["gameanim_file"]
    assert (user / "extensions" / "user_default" / "io_anim_gameanim" / "blender_manifest.toml").is_file()


def test_legacy_zip_installs_enables_and_imports_in_blender_341(dist, tmp_path):
    exe = _blender_binary()
    made = make_file(tmp_path / "made.bck")
    script = tmp_path / "in_blender.py"
    script.write_text(IN_BLENDER)
    user = tmp_path / "user"
    env = clean_env(BLENDER_USER_SCRIPTS=str(user / "scripts"), BLENDER_USER_CONFIG=str(user / "config"))
    # Debian's Blender uses the system Python: its own folder first on PATH
    # keeps a pyenv or venv python from hiding it (as in test_blender.py).
    env["PATH"] = os.path.dirname(os.path.realpath(exe)) + os.pathsep + env.get("PATH", "")
    args = {"mode": "legacy", "zip": str(dist["legacy"]), "made": str(made), "sample": str(SAMPLE),
            "frames": FRAMES}
    r = run([exe, "-b", "--factory-startup", "--python-exit-code", "1", "--python", script, "--", json.dumps(args)],
            env=env, cwd=str(tmp_path))
    got = _check_blender_result(r, user, "legacy")
    if not os.environ.get("GAMEANIM_BLENDER"):
        assert got["blender"].startswith("3.4"), got["blender"]  # Debian's package
    assert got["enable"] == ["FINISHED"], got
    assert (user / "scripts" / "addons" / "io_anim_gameanim" / "_native" / "gameanim" / CORE).is_file()


# ---------------------------------------------------------------------------
# user documentation


# ---------------------------------------------------------------------------
# the cross-built platforms (Windows x64, macOS arm64 / x86-64)


def _record_ok(zf):
    """RECORD lists every file of the wheel once with its right hash and
    size (itself without)."""
    info = [n for n in zf.namelist() if n.endswith(".dist-info/RECORD")]
    assert len(info) == 1
    listed = set()
    for line in zf.read(info[0]).decode().splitlines():
        name, digest, size = line.rsplit(",", 2)
        listed.add(name)
        if name == info[0]:
            assert digest == size == ""
            continue
        data = zf.read(name)
        expected = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert digest == expected and int(size) == len(data), name
    assert listed == {n for n in zf.namelist() if not n.endswith("/")}


@pytest.mark.parametrize("plat", [c[0] for c in CROSS])
def test_cross_wheel_tags_record_and_package(dist, plat):
    """Each cross-built wheel: its file name and WHEEL Tag say
    cp311-abi3-<platform>, not purelib; RECORD is complete and right; the
    package holds the platform's core (_core.pyd on Windows, _core.abi3.so
    on macOS) for the right CPU, and every other file byte-identical to the
    Linux wheel's; `wheel unpack` (which verifies RECORD) accepts it."""
    c = cross_or_skip(dist)[plat]
    from cross_binaries import read_macho, read_pe
    m = WHEEL_RE.fullmatch(c["wheel"].name)
    assert m and m["version"] == project_version() and m["plat"] == plat
    info = f"gameanim-{m['version']}.dist-info"
    with zipfile.ZipFile(c["wheel"]) as zf, zipfile.ZipFile(dist["wheel"]) as lz:
        meta = zf.read(f"{info}/WHEEL").decode()
        assert re.findall(r"^Tag: (.+)$", meta, re.M) == [f"cp311-abi3-{plat}"]
        assert "Root-Is-Purelib: false" in meta
        _record_ok(zf)
        names = sorted(n for n in zf.namelist() if not n.endswith("/"))
        linux = sorted(n for n in lz.namelist() if not n.endswith("/"))
        assert names == sorted(n.replace(f"gameanim/{CORE}", f"gameanim/{c['core']}") for n in linux)
        for n in names:
            if not n.startswith(f"gameanim/{c['core']}") and not n.endswith(("/RECORD", "/WHEEL")):
                assert zf.read(n) == lz.read(n), n
        core = zf.read(f"gameanim/{c['core']}")
    if plat.startswith("win"):
        pe = read_pe(core)
        assert pe["machine"] == 0x8664 and pe["exports"] == ["PyInit__core"] and "python3.dll" in pe["imports"]
    else:
        mo = read_macho(core)
        assert mo["arch"] == ("arm64" if plat.endswith("arm64") else "x86_64") and "_PyInit__core" in mo["defined"]
    unpack = ROOT / "build" / "dist-venv" / "bin" / "python"
    if unpack.exists():
        r = run([unpack, "-m", "wheel", "unpack", "-d", dist["dir"].parent / f"unpacked-{plat}", c["wheel"]])
        assert r.returncode == 0, show(r)


@pytest.mark.parametrize("plat", [c[0] for c in CROSS])
def test_cross_zips_hold_the_platforms_wheel_and_binary(dist, plat):
    """Each platform's extension zip: the add-on, LICENSE, its manifest
    (platforms = that platform only, wheels = its one wheel, byte-identical
    to the dist wheel) and nothing else, Blender's validator accepting it
    when the bpy module is there; its legacy zip: the add-on, LICENSE and the
    wheel's package in _native/gameanim/ with that platform's core only."""
    c = cross_or_skip(dist)[plat]
    wheel = c["wheel"]
    with zipfile.ZipFile(c["extension"]) as zf:
        names = set(zf.namelist())
        manifest = tomllib.loads(zf.read("blender_manifest.toml").decode())
        assert manifest["platforms"] == [c["blender"]]
        assert manifest["wheels"] == [f"./wheels/{wheel.name}"]
        assert zf.read(f"wheels/{wheel.name}") == wheel.read_bytes()
        assert zf.read("LICENSE") == (ROOT / "LICENSE").read_bytes()
    assert names == set(addon_modules()) | {"LICENSE", "blender_manifest.toml", f"wheels/{wheel.name}"}
    validator = _blender_ext_cli()
    if validator:
        r = run([sys.executable, validator, "validate", c["extension"]])
        assert r.returncode == 0, show(r)
    vendored = "io_anim_gameanim/_native/gameanim/"
    with zipfile.ZipFile(c["legacy"]) as lz, zipfile.ZipFile(wheel) as wz:
        names = lz.namelist()
        assert lz.read("io_anim_gameanim/LICENSE") == (ROOT / "LICENSE").read_bytes()
        package = sorted(n[len(vendored):] for n in names if n.startswith(vendored))
        assert package == sorted(p.replace(CORE, c["core"]) for p in package_files())
        assert lz.read(vendored + c["core"]) == wz.read(f"gameanim/{c['core']}")
    assert sorted(n[len("io_anim_gameanim/"):] for n in names if not n.startswith(vendored)) \
        == sorted(addon_modules() + ["LICENSE"])


def test_readme_links_resolve_and_cover_install_and_troubleshooting():
    """Every relative link of README.md exists; it has the install routes,
    the CLI, the Python API and a troubleshooting section naming the errors
    users meet, with messages that match what the code says."""
    text = (ROOT / "README.md").read_text()
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in target:
            continue
        assert (ROOT / target).exists(), f"README links {target}, which does not exist"
    headings = re.findall(r"^#{2,3} (.+)$", text, re.M)
    for h in ("Install", "Command line", "Python API", "Troubleshooting"):
        assert any(x.startswith(h) for x in headings), (h, headings)
    trouble = text.split("## Troubleshooting", 1)[1].split("\n## ", 1)[0]
    for needle in ("FormatError", "EncodeError", "PrecisionWarning", "gameanim C module is not installed",
                   "found no bone or material", "slot", "extension", "legacy", "pip install"):
        assert needle in trouble, needle
    native_src = (ADDON / "native.py").read_text()
    assert "the gameanim C module is not installed" in native_src
    # the FormatError shape quoted in the README is the module's
    try:
        gameanim.load(SAMPLE.read_bytes()[:60])
    except gameanim.FormatError as e:
        msg = str(e)
    assert re.match(r"bck: field 'file size' at offset 0x8 \(8\): ", msg), msg
    assert "bck: field 'file size' at offset 0x8 (8): " in trouble
    assert "found no bone or material" in (ADDON / "importing" / "report.py").read_text()


def test_every_format_and_wrapper_has_a_format_note():
    """docs/formats has a page for every format (named in its file name or
    title) and names every compression wrapper."""
    pages = {p: p.read_text() for p in (ROOT / "docs" / "formats").glob("*.md")}
    assert pages
    for fmt in gameanim.formats():
        assert any(p.stem == fmt or re.search(rf"\b{fmt}\b", t.splitlines()[0], re.I) for p, t in pages.items()), fmt
    for wrapper in gameanim.compressions():
        assert any(re.search(rf"\b{wrapper}\b", t, re.I) for t in pages.values()), wrapper
    readme = (ROOT / "README.md").read_text()
    for p in pages:
        assert f"docs/formats/{p.name}" in readme, f"README does not link docs/formats/{p.name}"


# ---------------------------------------------------------------------------
# build_dist.sh on a fresh clone (issue 32), with the setup scripts and the
# interpreter stubbed: each records its call; the stub interpreter answers
# the toolchain check (ready once the stub setup_cross.sh has run) and fails
# anything else, so the build stops right after the setup.

FAKE_PY = """#!/bin/sh
case "$*" in
  *--check-toolchains*) echo check >> "$LOG"; [ -e "$READY" ] && exit 0; echo "zig is missing" >&2; exit 1 ;;
esac
echo "python $1 $2" >> "$LOG"; exit 3
"""


def stub_tree(tmp_path, cross_installs=True):
    tree = tmp_path / "tree"
    (tree / "tools").mkdir(parents=True)
    shutil.copy(ROOT / "tools" / "build_dist.sh", tree / "tools" / "build_dist.sh")
    (tree / "tools" / "setup_env.sh").write_text('echo setup_env >> "$LOG"\n')
    (tree / "tools" / "setup_cross.sh").write_text('echo setup_cross >> "$LOG"\n'
                                                   + ('touch "$READY"\n' if cross_installs else "exit 1\n"))
    py = tmp_path / "fakepy"
    py.write_text(FAKE_PY)
    py.chmod(0o755)
    return tree, py


@pytest.mark.parametrize("case, extra, cross_installs, calls, stops_for_toolchains", [
    ("fresh", {}, True, ["setup_env", "check", "setup_cross", "check", "python -m venv"], False),
    ("linux only", {"GAMEANIM_DIST_PLATFORMS": ""}, True, ["setup_env", "python -m venv"], False),
    ("no apt rights", {}, False, ["setup_env", "check", "setup_cross", "check"], True),
    ("skip setup", {"GAMEANIM_SKIP_SETUP": "1"}, True, ["check"], True),
])
def test_build_dist_sets_the_machine_up_before_building(tmp_path, case, extra, cross_installs, calls,
                                                        stops_for_toolchains):
    """One command on a fresh clone: setup_env.sh, then setup_cross.sh when
    the toolchains are missing, then the build (here the stub interpreter
    stops it at the tool venv); a Linux-only build checks no toolchain;
    toolchains still missing stop it with the message naming
    GAMEANIM_DIST_PLATFORMS=."""
    tree, py = stub_tree(tmp_path, cross_installs)
    log, ready = tmp_path / "log", tmp_path / "ready"
    env = clean_env(PYTHON=str(py), LOG=str(log), READY=str(ready), GAMEANIM_DIST_VENV=str(tmp_path / "venv"))
    for name in ("GAMEANIM_SKIP_SETUP", "GAMEANIM_DIST_PLATFORMS"):  # (the caller's own settings)
        env.pop(name, None)
    env.update(extra)
    r = run(["sh", tree / "tools" / "build_dist.sh", tmp_path / "out"], cwd=str(tree), env=env)
    assert r.returncode != 0, show(r)
    assert log.read_text().split("\n")[:-1] == calls, show(r)
    if stops_for_toolchains:
        assert "zig is missing" in r.stderr and "GAMEANIM_DIST_PLATFORMS= builds Linux only" in r.stderr, show(r)


def test_readme_names_the_addon_as_blender_shows_it_and_the_linux_only_build():
    init = ast.parse((ROOT / "blender_addon" / "io_anim_gameanim" / "__init__.py").read_text())
    bl_info = next(ast.literal_eval(n.value) for n in init.body
                   if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "bl_info")
    manifest = tomllib.loads((ROOT / "blender_addon" / "io_anim_gameanim" / "blender_manifest.toml").read_text())
    readme = (ROOT / "README.md").read_text()
    # the legacy add-ons list shows "<category>: <name>"; the extensions list the manifest's name
    assert f"*{bl_info['category']}: {bl_info['name']}*" in readme
    assert f"*{manifest['name']}*" in readme
    assert "`GAMEANIM_DIST_PLATFORMS= sh tools/build_dist.sh`" in readme
