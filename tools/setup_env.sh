#!/bin/sh
# Installs what gameanim's tests and demo need on a fresh Debian-like machine
# with Python >= 3.11 and pip:
#   - from Debian (apt): blender (3.4.1, the oldest Blender API we support)
#     and python3-pytest for its system Python, clang, valgrind, the clang
#     sanitizer runtimes and zlib headers for the hardening jobs, Xvfb (and
#     xauth) for the tests in a real Blender window;
#   - from PyPI, into virtual environments under .venv/ (git-ignored; nothing
#     goes into the system's Python):
#       .venv/main     pytest, setuptools, wheel, mypy, atheris and the bpy
#                      module of Blender 5.0 (tools/env.sh puts it first on
#                      PATH for the other scripts);
#       .venv/bpy-4.2  the bpy module of Blender 4.2 LTS (with numpy < 2) and pytest;
#       .venv/bpy-4.5  the bpy module of Blender 4.5 LTS and pytest;
#     each bpy wheel pins its own numpy and CPython 3.11;
# then builds the extension into build/lib.  About 1.5 GB of downloads and
# 5-10 minutes on a fresh machine; seconds when everything is there (what is
# present and importable is kept).
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
PY="${PYTHON:-python3}"

if [ "${GAMEANIM_SKIP_APT:-0}" != "1" ] && command -v apt-get >/dev/null 2>&1; then
    need=""
    command -v blender >/dev/null 2>&1 || need="$need blender"
    /usr/bin/python3 -c "import pytest" >/dev/null 2>&1 || need="$need python3-pytest"
    command -v clang >/dev/null 2>&1 || need="$need clang"
    command -v valgrind >/dev/null 2>&1 || need="$need valgrind"
    dpkg -s libclang-rt-14-dev >/dev/null 2>&1 || need="$need libclang-rt-14-dev"
    dpkg -s zlib1g-dev >/dev/null 2>&1 || need="$need zlib1g-dev"
    # a virtual X server for the tests that drive Blender 3.4.1 in a real window
    # (tests/blender/gui_undo_steps.py); xvfb-run needs xauth, only recommended
    command -v xvfb-run >/dev/null 2>&1 || need="$need xvfb"
    command -v xauth >/dev/null 2>&1 || need="$need xauth"
    if [ -n "$need" ]; then
        SUDO=""
        [ "$(id -u)" = "0" ] || SUDO="sudo"
        echo "== apt-get install$need"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
    fi
fi

# bpy_venv NAME MODULES REQUIREMENT...: .venv/NAME with the bpy module,
# pytest and the requirements, unless it is there and imports MODULES (a
# comma list).  The bpy wheels are for CPython 3.11 only (Requires-Python
# ==3.11.*).
bpy_venv() {
    name="$1"; modules="$2"; shift 2
    venv="$here/.venv/$name"
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import $modules" >/dev/null 2>&1; then
        return 0
    fi
    echo "== .venv/$name: $*"
    rm -rf "$venv"
    mkdir -p "$here/.venv"
    # venv needs ensurepip (Debian: python3-venv); virtualenv from pip otherwise
    if ! $PY -m venv "$venv" >/dev/null 2>&1; then
        rm -rf "$venv"
        $PY -m pip install -q --disable-pip-version-check virtualenv
        $PY -m virtualenv -q "$venv"
    fi
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "pytest>=7" "$@"
    "$venv/bin/python" -c "import $modules" || { echo "error: .venv/$name: $modules do not import" >&2; exit 1; }
}
bpy_venv main "bpy, pytest, setuptools, wheel, mypy, atheris" \
    "bpy==5.0.*" "setuptools>=61" wheel "mypy==2.4.*" atheris
# Blender 4.2 bundles numpy 1.26, but its wheel does not pin it
bpy_venv bpy-4.2 "bpy, pytest" "bpy==4.2.*" "numpy<2"
bpy_venv bpy-4.5 "bpy, pytest" "bpy==4.5.*"
. "$here/tools/env.sh"

echo "== build the package into build/lib"
GAMEANIM_WERROR=1 sh tools/devbuild.sh build/lib
# and its core next to the package's sources (git-ignored), so that
# `python3 -m gameanim` works at the root of the clone without installing
cp build/lib/gameanim/_core*.so gameanim/
