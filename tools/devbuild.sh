#!/bin/sh
# Builds the package (gameanim/ with its C core gameanim/_core*.so) into a
# private folder so that several builds (or developers) can work side by side:
#   tools/devbuild.sh /tmp/mybuild
# then run tests with:  PYTHONPATH=/tmp/mybuild python3 -m pytest tests
set -e
out="${1:-build/dev}"
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/tools/env.sh"   # python3 = .venv/main's when set up
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$here"
log="$out/build.log"
if ! python3 setup.py -q build_py --build-lib "$out" build_ext --build-temp "$out/tmp" --build-lib "$out" >"$log" 2>&1; then
    cat "$log" >&2
    echo "build failed" >&2
    exit 1
fi
# the compiler's own diagnostics, without setuptools' chatter
grep -E "\.(c|h):[0-9]+:[0-9]+: (warning|error)" -A3 "$log" || true
test -f "$out"/gameanim/_core*.so || { echo "build failed" >&2; exit 1; }
