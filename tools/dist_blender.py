"""Packs the Blender add-on around a built gameanim wheel (called by
tools/build_dist.sh; usable alone):

    python3 tools/dist_blender.py --wheel dist/gameanim-...whl --out dist/

writes two zips for the wheel's platform (build_dist.sh calls it once per
platform's wheel: linux_x64, windows_x64, macos_arm64, macos_x64):

* the extension (Blender 4.2+): the add-on's files at the zip root, its
  blender_manifest.toml with `wheels` and `platforms` filled in for the
  wheel, and the wheel itself under wheels/.  Blender installs the wheel
  into its extensions' site-packages, where native.py finds `gameanim`.
* the legacy add-on (Blender 3.4 - 4.1, Python 3.11+): the package folder
  io_anim_gameanim/ with the package gameanim/ taken out of the wheel (its
  C core _core.abi3.so, the CLI, the stubs) and vendored in
  io_anim_gameanim/_native/gameanim/ (native.py loads it from there).

Before packing it checks the wheel: name and WHEEL tags agree, the tags are
cp311-abi3 (one binary for every CPython >= 3.11), a Linux wheel carries a
manylinux tag, the core's file name suits the platform (_core.pyd on
Windows, _core.abi3.so elsewhere), and the versions of the wheel, the manifest and bl_info are
the same.  Zips are reproducible: sorted entries, fixed timestamps
(SOURCE_DATE_EPOCH if set), fixed permissions.
"""
import argparse
import ast
import os
import re
import sys
import time
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADDON = ROOT / "blender_addon" / "io_anim_gameanim"
# never packed: caches, the vendored module of a developer's tree, build
# leftovers, editor and VCS files
EXCLUDE_DIRS = {"__pycache__", "_native", ".git", "wheels"}
EXCLUDE_SUFFIXES = (".pyc", ".pyo", ".zip", ".so", ".pyd", ".whl", ".blend1", "~")
PACKAGE = "gameanim"
# what the wheel's package must hold besides its C core: the sources of the
# package folder that the wheel ships (Python modules, stubs, py.typed)
PACKAGE_SOURCES = ("*.py", "*.pyi", "py.typed")


class DistError(Exception):
    pass


# ---------------------------------------------------------------------------
# wheel checks


def parse_wheel_name(name):
    """(distribution, version, python tags, abi tags, platform tags) of a
    wheel file name (PEP 427, compressed tag sets split on '.')."""
    if not name.endswith(".whl"):
        raise DistError(f"{name}: not a wheel file name")
    parts = name[:-4].split("-")
    if len(parts) not in (5, 6):
        raise DistError(f"{name}: a wheel name has 5 or 6 dash-separated parts")
    dist, version = parts[0], parts[1]
    py, abi, plat = parts[-3:]
    return dist, version, py.split("."), abi.split("."), plat.split(".")


def wheel_tags(zf):
    """The Tag: lines of the wheel's WHEEL file."""
    names = [n for n in zf.namelist() if re.fullmatch(r"[^/]+\.dist-info/WHEEL", n)]
    if len(names) != 1:
        raise DistError("the wheel has no single *.dist-info/WHEEL file")
    text = zf.read(names[0]).decode("utf-8")
    return sorted(line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:"))


def blender_platforms(plat_tags):
    """Blender's platform names (linux-x64, windows-x64, macos-arm64...) for
    wheel platform tags."""
    out = []
    for tag in plat_tags:
        if tag == "any":
            continue
        m = re.fullmatch(r"(manylinux\d*|musllinux|linux)(?:_\d+_\d+)?_(x86_64|aarch64|i686)", tag)
        if m:
            arch = {"x86_64": "x64", "aarch64": "arm64", "i686": "x86"}[m.group(2)]
            names = [f"linux-{arch}"]
        elif tag in ("win_amd64", "win_arm64", "win32"):
            names = [{"win_amd64": "windows-x64", "win_arm64": "windows-arm64", "win32": "windows-x86"}[tag]]
        elif tag.startswith("macosx_"):
            arch = re.fullmatch(r"macosx_\d+_\d+_(\w+)", tag)
            arch = arch.group(1) if arch else None
            names = {"arm64": ["macos-arm64"], "x86_64": ["macos-x64"],
                     "universal2": ["macos-x64", "macos-arm64"]}.get(arch)
            if names is None:
                raise DistError(f"unknown macOS wheel architecture in {tag!r}")
        else:
            raise DistError(f"unknown wheel platform tag {tag!r}")
        out.extend(n for n in names if n not in out)
    return out


def package_sources(package_dir=ROOT / PACKAGE):
    """The file names the package folder ships besides its C core."""
    return sorted({p.name for pattern in PACKAGE_SOURCES for p in Path(package_dir).glob(pattern)})


def check_wheel(path):
    """Checks a built gameanim wheel; returns (version, platform tags,
    {name inside the package folder: bytes} of the package gameanim/)."""
    path = Path(path)
    dist, version, pys, abis, plats = parse_wheel_name(path.name)
    if dist != "gameanim":
        raise DistError(f"{path.name}: not a gameanim wheel")
    if pys != ["cp311"] or abis != ["abi3"]:
        raise DistError(f"{path.name}: expected the stable-ABI tags cp311-abi3, found {'.'.join(pys)}-{'.'.join(abis)}")
    if any("linux" in p for p in plats):
        bad = [p for p in plats if not re.fullmatch(r"manylinux(2014|_\d+_\d+)_\w+", p)]
        if bad:
            raise DistError(f"{path.name}: platform tag(s) {bad} are not manylinux tags "
                            "(repair the wheel with auditwheel)")
    with zipfile.ZipFile(path) as zf:
        expected = sorted(f"cp311-abi3-{p}" for p in plats)
        found = wheel_tags(zf)
        if found != expected:
            raise DistError(f"{path.name}: WHEEL tags {found} do not match the file name {expected}")
        package = {n.split("/", 1)[1]: zf.read(n) for n in zf.namelist()
                   if n.startswith(PACKAGE + "/") and not n.endswith("/")}
    cores = [n for n in package if n.startswith("_core.") and not n.endswith(".pyi")]
    if len(cores) != 1 or "/" in cores[0]:
        raise DistError(f"{path.name}: expected one compiled core {PACKAGE}/_core.* in the wheel, found {cores}")
    if not cores[0].endswith((".abi3.so", ".pyd")):
        raise DistError(f"{path.name}: {PACKAGE}/{cores[0]} is not a stable-ABI module file name")
    # the binary's file name is the one CPython looks for on the wheel's platform
    want = ".pyd" if all(p.startswith("win") for p in plats) else ".abi3.so"
    if not cores[0].endswith(want):
        raise DistError(f"{path.name}: {PACKAGE}/{cores[0]} is not a {want} module, as {'.'.join(plats)} needs")
    missing = [n for n in package_sources() if n not in package]
    if missing:
        raise DistError(f"{path.name}: {', '.join(PACKAGE + '/' + n for n in missing)} missing from the wheel")
    return version, plats, package


# ---------------------------------------------------------------------------
# the add-on's metadata


def addon_versions(addon):
    manifest_text = (addon / "blender_manifest.toml").read_text(encoding="utf-8")
    manifest = tomllib.loads(manifest_text)
    tree = ast.parse((addon / "__init__.py").read_text(encoding="utf-8"))
    bl_info = next((ast.literal_eval(n.value) for n in tree.body
                    if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "bl_info"), None)
    if bl_info is None:
        raise DistError("__init__.py has no bl_info")
    return manifest_text, manifest, ".".join(map(str, bl_info["version"]))


def set_manifest_list(text, key, values):
    """The manifest text with the top-level `key = [...]` (one line) set to
    values; added before the first table when absent."""
    line = f"{key} = [{', '.join(repr_toml(v) for v in values)}]"
    head, sep, tables = text.partition("\n[")
    pattern = re.compile(rf"^{re.escape(key)}\s*=.*$", re.M)
    if pattern.search(head):
        if len(pattern.findall(head)) != 1 or re.search(rf"^{re.escape(key)}\s*=\s*\[[^\]]*$", head, re.M):
            raise DistError(f"blender_manifest.toml: write `{key}` on one line")
        head = pattern.sub(line, head)
    else:
        head = head.rstrip("\n") + "\n" + line + "\n"
    return head + sep + tables


def repr_toml(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# ---------------------------------------------------------------------------
# zips


def zip_time():
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01, the zip minimum
    return time.gmtime(max(epoch, 315532800))[:6]


def addon_files(addon):
    out = []
    for p in sorted(addon.rglob("*")):
        rel = p.relative_to(addon)
        if not p.is_file() or any(part in EXCLUDE_DIRS or part.startswith(".") for part in rel.parts):
            continue
        if p.name.endswith(EXCLUDE_SUFFIXES):
            continue
        out.append((rel.as_posix(), p.read_bytes()))
    return out


def write_zip(path, entries, keep_order=False):
    """A reproducible zip of (name, bytes, mode) entries, sorted by name
    unless keep_order (a wheel keeps its RECORD last), written atomically."""
    stamp = zip_time()
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, data, mode in (entries if keep_order else sorted(entries)):
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100000 | mode) << 16
            info.create_system = 3
            zf.writestr(info, data)
    os.replace(tmp, path)


def build(wheel, out, addon=ADDON):
    wheel, out, addon = Path(wheel), Path(out), Path(addon)
    version, plats, package = check_wheel(wheel)
    manifest_text, manifest, bl_version = addon_versions(addon)
    if not (manifest["version"] == bl_version == version):
        raise DistError(f"versions differ: wheel {version}, blender_manifest.toml {manifest['version']}, "
                        f"bl_info {bl_version}")
    platforms = blender_platforms(plats)
    addon_id = manifest["id"]
    suffix = "_".join(p.replace("-", "_") for p in platforms) or "any"
    files = addon_files(addon)
    names = {n for n, _ in files}
    if "__init__.py" not in names:
        raise DistError(f"{addon}: no __init__.py")
    out.mkdir(parents=True, exist_ok=True)
    # the project's licence travels in both zips (MIT asks for the notice)
    license_text = (ROOT / "LICENSE").read_bytes()

    # the extension
    wheel_rel = f"./wheels/{wheel.name}"
    text = set_manifest_list(manifest_text, "wheels", [wheel_rel])
    if platforms:
        text = set_manifest_list(text, "platforms", platforms)
    check = tomllib.loads(text)
    assert check["wheels"] == [wheel_rel] and check.get("platforms", []) == platforms
    entries = [(n, d, 0o644) for n, d in files if n != "blender_manifest.toml"]
    entries.append(("blender_manifest.toml", text.encode("utf-8"), 0o644))
    entries.append(("LICENSE", license_text, 0o644))
    entries.append((wheel_rel[2:], wheel.read_bytes(), 0o644))
    ext_zip = out / f"{addon_id}-{version}-{suffix}.zip"
    write_zip(ext_zip, entries)

    # the legacy add-on: the add-on folder, no manifest, the package gameanim
    # vendored in _native/
    pkg = addon.name
    entries = [(f"{pkg}/{n}", d, 0o644) for n, d in files if n != "blender_manifest.toml"]
    entries.append((f"{pkg}/LICENSE", license_text, 0o644))
    entries += [(f"{pkg}/_native/{PACKAGE}/{n}", d, 0o755 if n.startswith("_core.") else 0o644)
                for n, d in package.items()]
    legacy_zip = out / f"{addon_id}-{version}-legacy-{suffix}.zip"
    write_zip(legacy_zip, entries)
    return ext_zip, legacy_zip


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wheel", required=True, help="the built (manylinux-repaired) gameanim wheel")
    ap.add_argument("--out", required=True, help="folder for the two zips")
    ap.add_argument("--addon", default=str(ADDON), help="the add-on package folder (default: %(default)s)")
    ap.add_argument("--check-only", action="store_true", help="only check the wheel's tags and versions")
    args = ap.parse_args(argv)
    try:
        if args.check_only:
            version, plats, package = check_wheel(args.wheel)
            print(f"{Path(args.wheel).name}: gameanim {version}, cp311-abi3, {'.'.join(plats)}, "
                  f"{PACKAGE}/ with {', '.join(sorted(package))}")
            return 0
        for z in build(args.wheel, args.out, args.addon):
            print(z)
    except DistError as e:
        print(f"dist_blender: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
