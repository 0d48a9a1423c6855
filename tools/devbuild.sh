#!/bin/sh
# Builds the extension into a private folder so that several builds (or
# developers) can work side by side:  tools/devbuild.sh /tmp/mybuild
# then run tests with:  PYTHONPATH=/tmp/mybuild python3 -m pytest tests
set -e
out="${1:-build/dev}"
here="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$here"
python3 setup.py -q build_ext --build-temp "$out/tmp" --build-lib "$out" 2>&1 | grep -Ev "^\s*warnings.warn|_BetaConfiguration|cannot be found|running build_ext" || true
test -f "$out"/gameanim*.so || { echo "build failed" >&2; exit 1; }
