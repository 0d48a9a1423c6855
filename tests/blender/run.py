"""Runs the in-Blender test suite (tests/blender/bl_*.py) with pytest.

Blender binary (3.4.1 Debian, or any other):
    blender -b --factory-startup --python-exit-code 1 --python tests/blender/run.py -- \\
        --gameanim /path/to/build [pytest args]
bpy module from PyPI (Blender 5.0; 4.2 and 4.5 in .venv/bpy-4.2, .venv/bpy-4.5):
    python3 tests/blender/run.py --gameanim /path/to/build [pytest args]

--gameanim names the folder that holds the built gameanim*.so (it is put
first on sys.path; Blender ignores PYTHONPATH).  The exit status is
pytest's.

GAMEANIM_BL_PROGRESS names a file where the runner records the test that
is running ("running <node id>"), then "exiting" once pytest is done, so
that a caller that has to kill a hung Blender can say where it hung.

The process always ends with os._exit: the bpy modules of 4.2 and 4.5
crash (SIGSEGV) or hang at interpreter exit while a class is registered.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class Progress:
    """pytest plugin: the running test's node id, written to a file."""

    def __init__(self, path):
        self.path = path

    def note(self, text):
        with open(self.path, "w") as fh:
            fh.write(text + "\n")

    def pytest_runtest_logstart(self, nodeid, location):
        self.note("running " + nodeid)


def main():
    args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    rest = []
    i = 0
    while i < len(args):
        if args[i] == "--gameanim":
            sys.path.insert(0, os.path.abspath(args[i + 1]))
            i += 2
            continue
        rest.append(args[i])
        i += 1
    for d in (os.path.join(ROOT, "blender_addon"), HERE, os.path.join(ROOT, "tests")):
        if d not in sys.path:
            sys.path.insert(0, d)
    import bpy  # noqa: F401  (the bpy module, or Blender's own)
    import pytest

    progress = os.environ.get("GAMEANIM_BL_PROGRESS")
    plugins = [Progress(progress)] if progress else []
    code = pytest.main([
        "-p", "no:cacheprovider",
        "-p", "blhelpers",
        "--rootdir", HERE,
        "--confcutdir", HERE,
        "-o", "python_files=bl_*.py",
        "-o", "addopts=",
        "-o", "testpaths=",
        *([HERE] if not any(a.endswith(".py") or "::" in a for a in rest) else []),
        *rest,
    ], plugins=plugins)
    for p in plugins:
        p.note(f"exiting (pytest exit status {int(code)})")
    sys.stdout.flush()
    sys.stderr.flush()
    return int(code)


if __name__ == "__main__":
    try:
        code = main()
    except BaseException:  # noqa: B036  (still end through os._exit)
        import traceback

        traceback.print_exc()
        code = 3
    sys.stdout.flush()
    sys.stderr.flush()
    # Blender keeps running after a --python script unless told to stop;
    # os._exit also spares the bpy module's slow teardown.
    os._exit(code)
