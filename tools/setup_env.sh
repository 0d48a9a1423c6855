#!/bin/sh
# Installs what gameanim's tests and demo need on a fresh Debian-like machine
# with Python >= 3.11 and pip:
#   - Debian's blender (3.4.1, the oldest Blender API we support) and pytest
#     for its system Python, clang and valgrind for the hardening jobs;
#   - pytest and the bpy module (Blender 5.0) from PyPI;
#   - the bpy modules of Blender 4.2 LTS and 4.5 LTS from PyPI, each with
#     pytest in its own virtualenv under .venv/ (git-ignored), since each
#     pins its own numpy and Python 3.11;
# then builds the extension into build/lib.  Safe to run repeatedly: what is
# present and importable is kept.
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
    if [ -n "$need" ]; then
        SUDO=""
        [ "$(id -u)" = "0" ] || SUDO="sudo"
        echo "== apt-get install$need"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
    fi
fi

echo "== pip install (pytest, setuptools, bpy 5.0) for $PY"
$PY -m pip install -q --disable-pip-version-check "pytest>=7" "setuptools>=61" wheel "mypy>=1.16" atheris
$PY -c "import bpy" >/dev/null 2>&1 || $PY -m pip install -q --disable-pip-version-check "bpy==5.0.*"

# bpy_venv NAME REQUIREMENT...: .venv/NAME with the bpy module and pytest,
# unless it is there and imports both.  The wheels are for CPython 3.11
# only (Requires-Python ==3.11.*).
bpy_venv() {
    name="$1"; shift
    venv="$here/.venv/$name"
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import bpy, pytest" >/dev/null 2>&1; then
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
    "$venv/bin/python" -c "import bpy, pytest" || { echo "error: .venv/$name: bpy does not import" >&2; exit 1; }
}
# Blender 4.2 bundles numpy 1.26, but its wheel does not pin it
bpy_venv bpy-4.2 "bpy==4.2.*" "numpy<2"
bpy_venv bpy-4.5 "bpy==4.5.*"

echo "== build the package into build/lib"
GAMEANIM_WERROR=1 sh tools/devbuild.sh build/lib
# and its core next to the package's sources (git-ignored), so that
# `python3 -m gameanim` works at the root of the clone without installing
cp build/lib/gameanim/_core*.so gameanim/
