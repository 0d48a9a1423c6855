#!/bin/sh
# Every benchmark in one command: sets the machine up like the tests do
# (tools/setup_env.sh, unless GAMEANIM_SKIP_SETUP=1), builds the module into
# build/lib, then runs bench/run_all.py, which prints the figures and writes
# them with the machine and the commands to bench/RESULTS.md.
#   sh tools/run_bench.sh [bench/run_all.py options, e.g. --quick]
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/tools/env.sh"   # python3 = .venv/main's when set up
if [ "${GAMEANIM_SKIP_SETUP:-0}" != "1" ]; then
    sh "$here/tools/setup_env.sh"
fi
sh "$here/tools/devbuild.sh" "$here/build/lib"
exec python3 "$here/bench/run_all.py" --gameanim "$here/build/lib" "$@"
