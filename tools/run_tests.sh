#!/bin/sh
# Sets up a fresh machine (tools/setup_env.sh) and runs every test:
# the C core and Python API, every format, the samples' determinism and the
# Blender add-on in Debian's Blender 3.4.1 and in Blender 4.2, 4.5 and 5.0
# (bpy modules; 4.2 and 4.5 in .venv/).
#   sh tools/run_tests.sh [extra pytest arguments]
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
PY="${PYTHON:-python3}"
sh tools/setup_env.sh
# the Windows / macOS cross toolchains and the Windows test bed (wine, the
# embeddable CPython) for tests/test_cross.py; where they cannot be
# installed (no apt-get rights) those tests skip, unless
# GAMEANIM_REQUIRE_CROSS=1 (CI) makes that a failure
if ! sh tools/setup_cross.sh; then
    [ "${GAMEANIM_REQUIRE_CROSS:-0}" = "1" ] && { echo "tools/setup_cross.sh failed" >&2; exit 1; }
    echo "== cross toolchains not installed: tests/test_cross.py will skip" >&2
fi
. "$here/tools/env.sh"   # python3 = .venv/main's (pytest, bpy 5.0, mypy, atheris)
export GAMEANIM_TEST_COMMAND=1   # (tests/test_setup.py checks the interpreter)
export PYTHONPATH="$here/build/lib${PYTHONPATH:+:$PYTHONPATH}"
echo "== samples regenerate byte-identically"
$PY tools/make_samples.py --check
echo "== pytest"
cd "$here/build"   # not the repo root, so that the built module is the one imported
$PY -m pytest "$here/tests" -q "$@"
