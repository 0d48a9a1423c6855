#!/bin/sh
# The main job (README's first command): builds the C module, imports every
# bundled sample in headless Blender onto a demo rig / demo materials, saves
# out/demo.blend and renders out/contact_sheet.png (a few frames per sample).
#
#   tools/run_demo.sh [out dir] [extra demo_main_job.py options]
#
# First it sets the machine up (tools/setup_env.sh: Debian's Blender, the
# bpy module, pytest, and the C module built into build/lib) unless
# GAMEANIM_SKIP_SETUP=1.  GAMEANIM_BLENDER=/path/to/blender picks the Blender
# binary (default: the `blender` on PATH); GAMEANIM_DEMO_WITH=bpy uses the
# bpy module instead; GAMEANIM_BUILD sets the build folder.
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$here/out}"
[ $# -gt 0 ] && shift
build="${GAMEANIM_BUILD:-$here/build/lib}"
if [ "${GAMEANIM_SKIP_SETUP:-0}" != "1" ]; then
    sh "$here/tools/setup_env.sh"
fi
. "$here/tools/env.sh"   # python3 = .venv/main's (the bpy module)
sh "$here/tools/devbuild.sh" "$build"
blender="${GAMEANIM_BLENDER:-$(command -v blender || true)}"
if [ "${GAMEANIM_DEMO_WITH:-}" != "bpy" ] && [ -n "$blender" ]; then
    # a Blender linked to the system Python finds that Python through PATH:
    # keep its own folder first (a virtualenv or pyenv would hide its modules)
    PATH="$(dirname "$(readlink -f "$blender")"):$PATH" exec "$blender" -b --factory-startup \
        --python-exit-code 1 --python "$here/tools/demo_main_job.py" -- --gameanim "$build" --out "$out" "$@"
elif python3 -c "import bpy" >/dev/null 2>&1; then
    exec python3 "$here/tools/demo_main_job.py" --gameanim "$build" --out "$out" "$@"
else
    echo "run_demo.sh: no Blender: install one (apt-get install blender) or the bpy module (pip install bpy)" >&2
    exit 2
fi
