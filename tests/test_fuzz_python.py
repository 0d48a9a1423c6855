"""The Python-level fuzz targets (fuzz/python/fuzz_*.py) in their plain
random mode: a few hundred deterministic inputs each, without atheris.  A
failure prints the input's file under fuzz/python/findings/ and how to
replay it (`python3 fuzz/python/fuzz_<target>.py --replay FILE`)."""
import importlib.util
import sys

import pytest

from conftest import ROOT

HERE = ROOT / "fuzz" / "python"
TARGETS = ["fuzz_api", "fuzz_bake", "fuzz_fit", "fuzz_encode", "fuzz_model", "fuzz_archive"]


def load_target(name):
    sys.path.insert(0, str(HERE))
    try:
        spec = importlib.util.spec_from_file_location(f"_gameanim_{name}", HERE / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(HERE))
    return mod


@pytest.mark.parametrize("name", TARGETS)
def test_python_fuzz_target_plain_mode(name):
    mod = load_target(name)
    lib = mod.F
    lib.plain(lib.guarded(mod.body), name, 300, seed=24)


def test_plain_mode_reports_a_finding(tmp_path):
    """A body that raises something undocumented is a finding; a documented
    error is not."""
    mod = load_target("fuzz_api")
    lib = mod.F

    def fine(inp):
        raise ValueError("documented")

    def bad(inp):
        raise SystemError("undocumented")

    lib.guarded(fine)(b"")
    with pytest.raises(SystemError):
        lib.guarded(bad)(b"")
    with pytest.raises(AssertionError):
        lib.guarded(lambda inp: lib.check(False, "an invariant"))(b"")
    inp = lib.Input(b"")
    assert inp.int(0, 10) == 0 and inp.float() == 0.0 and inp.text() == ""  # exhausted: the smallest choices
