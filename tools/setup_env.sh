#!/bin/sh
# Installs what gameanim's tests and demo need on a fresh Debian-like machine
# with Python >= 3.11 and pip:
#   - Debian's blender (3.4.1, the oldest Blender API we support) and pytest
#     for its system Python, clang and valgrind for the hardening jobs;
#   - pytest and the bpy module (Blender 5.0) from PyPI;
# then builds the extension into build/lib.  Safe to run repeatedly.
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

echo "== pip install (pytest, setuptools, bpy 5.0)"
$PY -m pip install -q --disable-pip-version-check "pytest>=7" "setuptools>=61" wheel
$PY -c "import bpy" >/dev/null 2>&1 || $PY -m pip install -q --disable-pip-version-check "bpy==5.0.*"

echo "== build the package into build/lib"
GAMEANIM_WERROR=1 sh tools/devbuild.sh build/lib
# and its core next to the package's sources (git-ignored), so that
# `python3 -m gameanim` works at the root of the clone without installing
cp build/lib/gameanim/_core*.so gameanim/
