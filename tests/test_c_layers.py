"""The C include directions (the C twin of tests/test_addon_layers.py):
csrc/core includes nothing above it; csrc/formats, models, codecs and
archives include core and their own folder only; csrc/python (the binding)
may include any.  Only csrc/core is on the include path (setup.py), so a
header of another folder is reached by its relative path and each quoted
include resolves to one file, which is checked here."""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"

LOWER = {"formats", "models", "codecs", "archives"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def allowed(src_layer, dst_layer):
    if src_layer == "python":
        return True
    if src_layer == "core":
        return dst_layer == "core"
    if src_layer in LOWER:
        return dst_layer in ("core", src_layer)
    return False  # a folder the rules do not know: name its layer here first


def violations(csrc, include_path=("core",)):
    """(file, include, why) for every quoted include under csrc that breaks
    the directions or resolves to no file (the preprocessor's order: the
    including file's folder, then the include path)."""
    csrc = Path(csrc).resolve()
    out = []
    for f in sorted(csrc.rglob("*")):
        if f.suffix not in (".c", ".h"):
            continue
        rel = f.relative_to(csrc)
        src_layer = rel.parts[0] if len(rel.parts) > 1 else "(top)"
        for name in INCLUDE.findall(f.read_text(encoding="utf-8", errors="replace")):
            target = None
            for base in [f.parent] + [csrc / d for d in include_path]:
                cand = (base / name).resolve()
                if cand.is_file():
                    target = cand
                    break
            if target is None:
                out.append((rel.as_posix(), name, "resolves to no file under the include path"))
                continue
            try:
                trel = target.relative_to(csrc)
            except ValueError:
                out.append((rel.as_posix(), name, "outside csrc/"))
                continue
            dst_layer = trel.parts[0] if len(trel.parts) > 1 else "(top)"
            if not allowed(src_layer, dst_layer):
                out.append((rel.as_posix(), name, f"{src_layer} includes {dst_layer}"))
    return out


def setup_include_dirs():
    """The include_dirs that setup.py assigns, as written (no setup run)."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "include_dirs" for t in node.targets):
            return ast.unparse(node.value)
    raise AssertionError("setup.py assigns no include_dirs")


def test_the_include_path_is_csrc_core_only():
    assert setup_include_dirs() == "[os.path.join('csrc', 'core')]"


def test_every_layer_includes_only_downward():
    assert violations(CSRC) == []


def test_every_folder_has_a_layer():
    folders = {p.name for p in CSRC.iterdir() if p.is_dir()}
    assert folders <= LOWER | {"core", "python"}, folders - LOWER - {"core", "python"}


def write(root, rel, text=""):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


@pytest.fixture
def tree(tmp_path):
    csrc = tmp_path / "csrc"
    write(csrc, "core/gameanim.h")
    write(csrc, "core/model.h", '#include "gameanim.h"\n')
    write(csrc, "formats/j3d.h", '#include "gameanim.h"\n')
    write(csrc, "formats/bck.c", '#include "j3d.h"\n#include <stdio.h>\n')
    write(csrc, "models/gx.h")
    write(csrc, "models/bmd.c", '#include "model.h"\n#include "gx.h"\n')
    write(csrc, "archives/archive.h", '#include "gameanim.h"\n')
    write(csrc, "python/binding.h", '#include "gameanim.h"\n')
    write(csrc, "python/module.c", '#include "../archives/archive.h"\n#include "../models/gx.h"\n#include "model.h"\n')
    return csrc


def test_a_clean_synthetic_tree_passes(tree):
    assert violations(tree) == []


@pytest.mark.parametrize("rel, text, why", [
    ("core/pool.c", '#include "../formats/j3d.h"\n', "core includes formats"),
    ("core/pool.c", '  #  include "../python/binding.h"\n', "core includes python"),
    ("formats/btk.c", '#include "../models/gx.h"\n', "formats includes models"),
    ("models/j3d.c", '#include "../formats/j3d.h"\n', "models includes formats"),
    ("codecs/yaz0.c", '#include "../archives/archive.h"\n', "codecs includes archives"),
    ("archives/rarc.c", '#include "../python/binding.h"\n', "archives includes python"),
    ("archives/rarc.c", '#include "gx.h"\n', "resolves to no file"),  # another folder's header needs its path
    ("newlayer/x.c", '#include "gameanim.h"\n', "newlayer includes core"),
])
def test_a_violation_in_a_synthetic_tree_is_reported(tree, rel, text, why):
    write(tree, rel, text)
    found = violations(tree)
    assert len(found) == 1 and found[0][0] == rel and why in found[0][2], found


def test_an_upward_include_through_the_include_path_is_reported(tree):
    """Were formats/ on the include path, "j3d.h" from core would resolve
    into formats: still reported (the check follows the real path)."""
    write(tree, "core/pool.c", '#include "j3d.h"\n')
    assert violations(tree, include_path=("core", "formats")) == [("core/pool.c", "j3d.h", "core includes formats")]


def test_module_c_only_assembles_the_module():
    """No file of the binding calls into module.c (no include/call cycle
    through it): module.c defines nothing but static functions and the
    module's init function."""
    text = (CSRC / "python" / "module.c").read_text()
    defs = re.findall(r"^(?!static\b)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*\{", text, re.M)
    assert defs == ["PyInit__core"], defs
