"""The package `gameanim` around its C core: the type stubs describe exactly
the built module (names read from the .pyi with `ast`, compared with what
the module holds), the package marks itself typed, and, where mypy is
installed, a script using the whole API passes `mypy --strict` while a
wrong call does not."""
import ast
import inspect
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import gameanim
import gameanim._core as core
from conftest import ROOT

PACKAGE = Path(gameanim.__file__).resolve().parent  # the built package under test
STUB = PACKAGE / "_core.pyi"


def stub_tree():
    assert STUB.is_file(), f"{STUB} is missing: the build did not ship the stubs"
    return ast.parse(STUB.read_text(encoding="utf-8"))


def _is_typeddict(node):
    return isinstance(node, ast.ClassDef) and any(getattr(b, "id", None) == "TypedDict" for b in node.bases)


def _is_alias(node):
    return isinstance(node, ast.AnnAssign) and getattr(node.annotation, "id", None) == "TypeAlias"


def stub_names(tree):
    """(names the module must hold, names that exist only for type checkers)."""
    runtime, typing_only = set(), set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            # TypedDicts and private helper classes (descriptors) are types only
            (typing_only if _is_typeddict(node) or node.name.startswith("_") else runtime).add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            (typing_only if _is_alias(node) else runtime).add(node.target.id)
    return runtime, typing_only


def stub_class_members(tree, name):
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    out = set()
    for node in cls.body:
        if isinstance(node, ast.FunctionDef):
            out.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


def public(names):
    return {n for n in names if not n.startswith("_")} | ({"__version__"} & set(names))


def test_stubs_name_every_public_name_of_the_core_and_nothing_else():
    runtime, typing_only = stub_names(stub_tree())
    built = public(vars(core))
    assert built - runtime == set(), "in the module, not in _core.pyi"
    assert runtime - built == set(), "in _core.pyi, not in the module"
    # the types only a checker sees must not shadow anything real
    assert not typing_only & set(dir(core)), typing_only & set(dir(core))


@pytest.mark.parametrize("cls", ["Animation", "Track", "Model", "Bone", "Mesh", "Texture", "Material", "Archive",
                                 "ArchiveMember"])
def test_stubs_describe_every_attribute_and_method_of_the_classes(cls):
    members = stub_class_members(stub_tree(), cls)
    built = {n for n in dir(getattr(core, cls)) if not n.startswith("_")}
    assert built - members == set(), f"{cls}: in the module, not in _core.pyi"
    assert {n for n in members if not n.startswith("_")} - built == set(), f"{cls}: in _core.pyi, not in the module"
    if cls == "Track":
        assert "__len__" in members and hasattr(core.Track, "__len__")


@pytest.mark.parametrize("exc", ["FormatError", "EncodeError"])
def test_stubs_give_the_errors_their_location_attributes(exc):
    members = stub_class_members(stub_tree(), exc)
    assert members == {"format", "field", "offset"}
    err = getattr(core, exc)("x")
    assert all(hasattr(err, m) for m in members)
    assert issubclass(getattr(core, exc), ValueError) and issubclass(core.PrecisionWarning, UserWarning)


def documented_parameters(doc, name):
    """The parameter names of the signature a C docstring opens with
    ("name(a, b=1, *, c=None) -> ..."), **options spelled out as to_bytes'
    keywords; None when the docstring has no signature."""
    first = (doc or "").split("\n", 1)[0]
    if not first.startswith(name + "("):
        return None
    params, depth, word = [], 0, ""
    for ch in first[len(name) + 1:]:
        if depth == 0 and ch in ",)":
            params.append(word)
            word = ""
            if ch == ")":
                break
            continue
        depth += (ch in "([") - (ch in ")]")
        word += ch
    out = []
    for p in params:
        p = p.split("=")[0].strip()
        if p == "**options":
            out += ["compression", "tolerance", "reencode"]
        elif p and p != "*":
            out.append(p)
    return out


def stub_parameters(node):
    a = node.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg != "self"]


def test_stub_signatures_are_the_documented_ones():
    """Each function, method and constructor takes in the stub the
    parameters of the signature its docstring opens with (the C core's own
    description), in that order."""
    tree = stub_tree()
    checked = 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            documented = documented_parameters(getattr(core, node.name).__doc__, node.name)
            if documented is not None:
                assert stub_parameters(node) == documented, node.name
                checked += 1
        elif isinstance(node, ast.ClassDef) and node.name in ("Animation", "Track", "Archive"):
            cls = getattr(core, node.name)
            for member in node.body:
                if not isinstance(member, ast.FunctionDef) or member.decorator_list and not any(
                        getattr(d, "id", None) == "overload" for d in member.decorator_list):
                    continue
                name = node.name if member.name == "__init__" else member.name
                doc = cls.__doc__ if member.name == "__init__" else getattr(cls, member.name).__doc__
                documented = documented_parameters(doc, name)
                if documented is not None:
                    assert stub_parameters(member) == documented, f"{node.name}.{member.name}"
                    checked += 1
    assert checked >= 20, checked


def test_package_exports_the_core_and_its_own_helpers():
    runtime, _ = stub_names(stub_tree())
    assert set(gameanim.__all__) == public(runtime) | {"file_extensions"}
    for name in gameanim.__all__:
        assert hasattr(gameanim, name), name
    assert inspect.signature(gameanim.file_extensions).return_annotation == tuple[str, ...]


def test_package_is_marked_typed_and_ships_its_stubs():
    assert (PACKAGE / "py.typed").is_file()
    assert (ROOT / "gameanim" / "py.typed").is_file() and (ROOT / "gameanim" / "_core.pyi").is_file()
    assert STUB.read_bytes() == (ROOT / "gameanim" / "_core.pyi").read_bytes(), "the build's stubs are stale"


# A script that uses the whole API the way the README and the add-on do.
TYPED_EXAMPLE = '''
from array import array
import warnings

from typing import TYPE_CHECKING

import gameanim

if TYPE_CHECKING:  # the TypedDicts exist for type checkers only
    from gameanim._core import FormatTraits


def traits() -> "dict[str, FormatTraits]":
    return gameanim.formats()


def main(path: str) -> float:
    anim: gameanim.Animation = gameanim.load(path, keyless_rule="base")
    fmt, wrapper = gameanim.detect(open(path, "rb").read())
    assert fmt == anim.format and (wrapper is None or wrapper in gameanim.compressions())
    values: array[float] = anim.sample([0.0, 0.5, anim.frame_count])
    t = anim.find(0, "rotation", 1) or anim.tracks[0]
    t.values = [v + 0.1 for v in t.values]
    co, left, right, interp = t.bezier(value_scale=2.0)
    *_, increasing, has_bezier = t.bezier(flags=True)
    curve = gameanim.evaluate_fcurve(co, left, right, interp, range(10), "LINEAR")
    v, ls, rs = gameanim.evaluate_fcurve(co, left, right, interp, [1.0], slopes=True)
    fitted = t.fit(1e-3, use_slopes=True)
    new = gameanim.Animation("bck", [gameanim.Track(0, "translation", 1, times=[0, 10], values=[0, 5],
                                                    interpolation=[gameanim.LINEAR] * 2)],
                             frame_count=10, loop="loop")
    new.rotation_frac = None
    data: bytes = new.to_bytes(compression="yaz0", reencode="full")
    gameanim.write_atomic(path + ".out", data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        gameanim.save(new, path + ".out", compression=None)
        new.save(path + ".out")
    report = new.encode_report
    worst = report["max_error"] if report else 0.0
    bases = gameanim.bake_pose(anim, [(0, None, [float(i % 5 == 0) for i in range(16)])],
                               range(3), collapse=True)
    lx, ly, lz, qw, qx, qy, qz, sx, sy, sz = bases[0]
    local = gameanim.local_from_basis(None, None, [[0.0]] * 3, [[1.0], [0.0], [0.0], [0.0]], [[1.0]] * 3)
    skew, frame = local["skew"]
    clock: float = gameanim.frame_at(3, anim.frame_count, "mirror_loop")
    clocks = gameanim.frame_at(range(5), 10.0, 2, rate=0.5)
    raw = gameanim.decompress("yaz0", gameanim.compress("yaz0", b"abc"))
    exts: tuple[str, ...] = gameanim.file_extensions() + gameanim.compression_extensions()["yaz0"]
    try:
        gameanim.load(b"not an animation")
    except gameanim.FormatError as e:
        where: int | None = e.offset
        what: str | None = e.field
    loop_ok = anim.loop in gameanim.LOOP_MODES and gameanim.LIMITS["tracks"] > 0
    copy = anim.copy()
    orig = copy.original_bytes()
    return (values[0] + curve[0] + v[0] + fitted.values[0] + worst + skew + clock + clocks[0] + lx[0]
            + len(raw) + len(exts) + len(anim.info) + len(anim.applied_tracks()) + float(copy.is_modified())
            + float(increasing) + float(loop_ok) + (len(orig) if orig else 0) + gameanim.BEZIER + float(len(t)))


def archive(anim_bytes: bytes, path: str, tools: str) -> int:
    import sys
    sys.path.insert(0, tools)
    import make_archives  # type: ignore[import-not-found]
    data: bytes = make_archives.build(make_archives.Dir("r", [make_archives.File("a.bck", anim_bytes)]))
    arc: gameanim.Archive = gameanim.open_archive(gameanim.compress("yaz0", data), max_decoded_size=None)
    names: list[str] = arc.namelist()
    sizes = [(i.name, i.size, i.compression, i.id, i.attributes, i.offset, i.entry) for i in arc.infolist()]
    anim = gameanim.load(arc.read(names[0]))
    arc.replace(names[0], anim.to_bytes())
    arc.save(path, compression="yaz0")
    out: bytes = arc.to_bytes(compression=None)
    wrapper: str | None = arc.compression
    kind: str = arc.format + arc.root
    return len(sizes) + len(out) + len(arc) + int("a.bck" in arc) + int(arc.is_modified()) + len(kind) + int(
        wrapper is None) + len(gameanim.ARCHIVE_EXTENSIONS)
'''

# ... and calls the stubs must refuse (line number: the message expected)
TYPED_MISTAKES = '''
import gameanim

gameanim.load(3)
gameanim.Track(0, "rotate", 0)
gameanim.Animation("bck", loop="forever")
x: str = gameanim.load("a.bck").fps
gameanim.frame_at([1.0], 10.0, "loop") + 1.0
gameanim.open_archive("x.arc").read(3)
'''


def _mypy(tmp_path, name, code):
    pytest.importorskip("mypy", reason="mypy not installed (pip install mypy)")
    script = tmp_path / name
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ)
    # the built package under test, found as a typed package (py.typed)
    env["MYPYPATH"] = str(PACKAGE.parent)
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", os.devnull,
                        "--python-version", "3.11", str(script)], capture_output=True, text=True, env=env,
                       cwd=str(tmp_path))
    return r


def test_an_example_using_the_whole_api_passes_mypy_strict(tmp_path):
    r = _mypy(tmp_path, "example.py", TYPED_EXAMPLE)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_refuses_wrong_calls(tmp_path):
    r = _mypy(tmp_path, "mistakes.py", TYPED_MISTAKES)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = {int(line.split(":")[1]) for line in r.stdout.splitlines() if ": error:" in line}
    assert lines == {4, 5, 6, 7, 8, 9}, r.stdout


def test_the_typed_example_runs(tmp_path):
    """What mypy accepts above is also what the module does."""
    sample = tmp_path / "walk.bck"
    sample.write_bytes((ROOT / "samples" / "j3d" / "walk_type0.bck").read_bytes())
    namespace = {}
    exec(compile(TYPED_EXAMPLE, "example.py", "exec"), namespace)
    assert namespace["main"](str(sample)) > 0
    assert namespace["archive"](sample.read_bytes(), str(tmp_path / "a.szs"), str(ROOT / "tools")) > 0
    assert set(namespace["traits"]()) == set(gameanim.formats())
