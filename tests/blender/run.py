"""Runs the in-Blender test suite (tests/blender/bl_*.py) with pytest.

Blender binary (3.4.1 Debian, or any other):
    blender -b --factory-startup --python-exit-code 1 --python tests/blender/run.py -- \\
        --gameanim /path/to/build [pytest args]
bpy module from PyPI (Blender 5.0):
    python3 tests/blender/run.py --gameanim /path/to/build [pytest args]

--gameanim names the folder that holds the built gameanim*.so (it is put
first on sys.path; Blender ignores PYTHONPATH).  The exit status is
pytest's.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


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
    ])
    sys.stdout.flush()
    sys.stderr.flush()
    return int(code)


if __name__ == "__main__":
    code = main()
    # Blender keeps running after a --python script unless told to stop;
    # os._exit also spares the bpy module's slow teardown.
    os._exit(code)
