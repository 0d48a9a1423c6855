#!/bin/sh
# Runs the pytest suite under valgrind memcheck (a debug build of the
# extension, Python's own allocator switched off) and fails if valgrind
# reports any error whose stack passes through our module.  Slow: by default
# the mutation and sweep tests are thinned out.
#   sh tools/run_valgrind.sh [pytest arguments]
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/tools/env.sh"   # python3 = .venv/main's when set up
cd "$here"
out="$here/build/valgrind"
sh tools/devbuild.sh "$out"   # Python builds extensions with -g
log="$out/memcheck.log"
rm -f "$log"
export PYTHONMALLOC=malloc
export PYTHONPATH="$out${PYTHONPATH:+:$PYTHONPATH}"
export GAMEANIM_MUTATIONS="${GAMEANIM_MUTATIONS:-40}"
export GAMEANIM_SWEEP_STRIDE="${GAMEANIM_SWEEP_STRIDE:-211}"
export GAMEANIM_SANITIZED=1
# (the C sweep of test_hardening.py, fuzz/sweep.c, runs as a child process outside valgrind;
# the fuzz targets cover it with ASan)
cd "$out"
if [ $# -eq 0 ]; then
    set -- "$here/tests" --ignore="$here/tests/test_blender.py" --ignore="$here/tests/test_distribution.py" \
        --ignore="$here/tests/test_cli.py"
fi
status=0
py="$(python3 -c 'import sys; print(sys.executable)')"   # the interpreter itself, not a launcher script
valgrind --tool=memcheck --error-limit=no --track-origins=no --leak-check=full --show-leak-kinds=definite \
    --errors-for-leak-kinds=definite --num-callers=30 --log-file="$log" \
    "$py" -m pytest -q -p no:cacheprovider "$@" || status=$?
# errors that involve our code (frames in gameanim*.so or csrc/)
python3 - "$log" <<'PY' || status=1
import re, sys
text = open(sys.argv[1]).read()
records = re.split(r"\n==\d+== \n", text)
ours = [r for r in records if ("gameanim" in r or "csrc/" in r) and re.search(
    r"(Invalid (read|write)|uninitialised|Conditional jump|definitely lost|Mismatched free|Invalid free)", r)]
summary = re.findall(r"ERROR SUMMARY: (\d+) errors", text)
print(f"valgrind: {summary[-1] if summary else '?'} errors in total, {len(ours)} involving gameanim")
for r in ours[:10]:
    print(r)
sys.exit(1 if ours else 0)
PY
exit $status
