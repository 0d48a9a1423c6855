"""The add-on's layers, read from its source (no Blender needed): the export
layer imports only the shared layer, compat, bulk_keys and native (never
the import layer); the shared layer imports only itself, compat, bulk_keys
and native; only compat tests Blender versions; only bulk_keys writes
memory (ctypes); the import's phases never import the importer that runs
them, and its plan imports none of the modules that build; format names
are compared only where the format knowledge lives (shared/formats.py);
imports are relative; the export path has no per-key Python loops.
docs/ARCHITECTURE.md describes the layers."""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ADDON = ROOT / "blender_addon" / "io_anim_gameanim"

# what each layer (a folder of the add-on) may import, by top-level name
ALLOWED = {
    "shared": {"shared", "compat", "bulk_keys", "native"},
    "exporting": {"exporting", "shared", "compat", "bulk_keys", "native"},
    "importing": {"importing", "shared", "compat", "bulk_keys", "native"},
}
# the import's phases, run in order by importing/importer.py (its caller
# archive_import.py is the only other module that imports it)
IMPORT_RUNNERS = {"importing/importer.py", "importing/archive_import.py"}
# what the import's plan decides with: nothing that writes to Blender
PLAN = "importing/import_plan.py"
BUILDERS = {"importing." + m for m in ("actions", "btk_import", "btk_mapping_chain", "curve_writer", "kinds",
                                       "materials_from_model", "model_import", "model_mesh", "rig_from_animations",
                                       "rig_from_model", "skeletal_import", "importer")} | {"compat", "bulk_keys"}
FORMAT_NAMES = ("bck", "btk", "bca", "bk", "jba")


def sources():
    return sorted(p for p in ADDON.rglob("*.py") if "__pycache__" not in p.parts)


def rel(p):
    return p.relative_to(ADDON).as_posix()


def module_parts(p, root=ADDON):
    parts = list(p.relative_to(root).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def imported_modules(p, root=ADDON):
    """(line, dotted name inside the add-on) of every relative import of a
    file; `from . import a, b` gives one name per imported module."""
    package = module_parts(p, root) if p.name == "__init__.py" else module_parts(p, root)[:-1]
    out = []
    for node in ast.walk(ast.parse(p.read_text(), str(p))):
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = package[:len(package) - (node.level - 1)] if node.level > 1 else list(package)
        assert node.level - 1 <= len(package), f"{p}:{node.lineno}: import above the add-on"
        mod = base + (node.module.split(".") if node.module else [])
        for a in node.names:
            sub = root.joinpath(*mod, a.name)
            is_module = sub.with_suffix(".py").is_file() or (sub / "__init__.py").is_file()
            out.append((node.lineno, ".".join(mod + [a.name] if is_module or not node.module else mod)))
    return out


def test_the_layers_exist():
    for folder in ALLOWED:
        assert (ADDON / folder / "__init__.py").is_file(), folder
    assert (ADDON / "compat.py").is_file() and (ADDON / "native.py").is_file()
    assert (ADDON / "bulk_keys.py").is_file()


def layer_violations(root, layer):
    bad = []
    files = sorted((root / layer).rglob("*.py"))
    assert files, layer
    for p in files:
        for line, name in imported_modules(p, root):
            if name.split(".")[0] not in ALLOWED[layer]:
                bad.append(f"{p.relative_to(root).as_posix()}:{line} imports {name}")
    return bad


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_layer_imports_only_what_it_may(layer):
    """exporting/ never imports importing/ (nor the UI at the top level):
    what both need lives in shared/."""
    assert layer_violations(ADDON, layer) == []


def test_the_import_direction_check_sees_a_violation(tmp_path):
    """(the check above is not vacuous)"""
    names = [n for _line, n in imported_modules(ADDON / "exporting" / "export_tracks.py")]
    assert "exporting.readback" in names and "shared.formats" in names
    (tmp_path / "exporting").mkdir()
    (tmp_path / "exporting" / "bad.py").write_text(
        "from .. import compat, api\nfrom ..importing.importer import import_files\nfrom ..importing import rig_from_animations\n"
        "from ..shared import formats\nfrom . import readback\n")
    assert layer_violations(tmp_path, "exporting") == [
        "exporting/bad.py:1 imports api", "exporting/bad.py:2 imports importing.importer",
        "exporting/bad.py:3 imports importing"]


def test_the_import_phases_never_import_the_importer():
    """The phases (plan, models, new rigs, the writers, curves, actions) are
    below importer.py: none imports it, so a file is followed from the
    operator to its F-curves without coming back to a module already
    left (no callbacks up)."""
    phases = sorted(p for p in (ADDON / "importing").glob("*.py") if rel(p) not in IMPORT_RUNNERS)
    assert len(phases) > 10 and (ADDON / PLAN).is_file()
    back = [f"{rel(p)}:{line}" for p in phases for line, name in imported_modules(p)
            if name == "importing.importer" or name == "importing.archive_import"]
    assert back == []


def test_the_import_plan_imports_nothing_that_builds():
    names = {name for _line, name in imported_modules(ADDON / PLAN)}
    assert "shared.formats" in names
    assert names & BUILDERS == set()


def test_only_bulk_keys_writes_memory():
    """The one ctypes write (handle types in 3.4.1) is in bulk_keys.py, with
    its probe and checks."""
    offenders = [rel(p) for p in sources() if rel(p) != "bulk_keys.py" and re.search(r"\bctypes\b", p.read_text())]
    assert offenders == []
    assert "ctypes" in (ADDON / "bulk_keys.py").read_text()


def test_only_compat_tests_blender_versions():
    offenders = [rel(p) for p in sources() if rel(p) != "compat.py" and re.search(r"bpy\.app\.version", p.read_text())]
    assert offenders == []
    assert "bpy.app.version" not in (ADDON / "compat.py").read_text()  # feature detection there too


def test_relative_imports_only():
    for p in sources():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                assert not (node.module or "").startswith("io_anim_gameanim"), f"{rel(p)}: absolute import"
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("io_anim_gameanim") for a in node.names), rel(p)


def test_format_names_are_compared_only_in_the_format_module():
    """Behaviour follows the registry's traits (shared/formats.py), not
    format names spread over the add-on."""
    names = "|".join(FORMAT_NAMES)
    pattern = re.compile(rf"""(?:==|!=|\bin)\s*\(?\s*["'](?:{names})["']|["'](?:{names})["']\s*(?:==|!=)""")
    offenders = []
    for p in sources():
        if rel(p) == "shared/formats.py":
            continue
        for i, line in enumerate(p.read_text().splitlines(), 1):
            if pattern.search(line.split("#")[0]):
                offenders.append(f"{rel(p)}:{i}: {line.strip()}")
    assert offenders == []


def test_export_path_has_no_per_key_python_loops():
    """The export reads keys with foreach_get and works on whole buffers
    (slicing, map over operator functions, the C helpers): no Python loop
    walks keyframe_points or per-frame values."""
    files = sorted((ADDON / "exporting").glob("*.py"))
    assert any(p.name == "readback.py" for p in files)
    for p in files:
        src = p.read_text()
        assert not re.search(r"for \w+ in (?:\w+\.)*keyframe_points", src), rel(p)
        assert not re.search(r"for \w+ in range\(\s*(?:len\()?(?:n|nf|frames|keys)\b", src), rel(p)
        assert "foreach_get" in src or p.name != "readback.py"


def test_one_batch_entry_point():
    """batch.py holds the command line (import and export subcommands):
    no other module of the add-on parses command-line arguments or runs as
    a script."""
    scripts = sorted(rel(p) for p in ADDON.rglob("*.py")
                     if re.search(r"^import argparse|__name__ == .__main__.", p.read_text(), re.M))
    assert scripts == ["batch.py"]
    assert 'COMMANDS = ("import", "export")' in (ADDON / "batch.py").read_text()
