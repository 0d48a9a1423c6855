#!/bin/sh
# Runs every Python-level fuzz target (fuzz/python/fuzz_*.py, atheris) for
# SECONDS seconds (default 30), one after the other.  A finding (an
# exception other than the documented ones, a broken invariant, a crash)
# fails the script and leaves the input as fuzz/build/py-<target>-crash-*;
# replay it with  python3 fuzz/python/fuzz_<target>.py --replay FILE
# Needs atheris (pip install atheris) and gameanim importable (PYTHONPATH).
#   sh fuzz/run_python.sh [SECONDS] [target ...]      (targets: api bake fit encode model archive)
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/tools/env.sh"   # python3 = .venv/main's when set up
secs="${1:-30}"; [ $# -gt 0 ] && shift
targets="$*"
[ -n "$targets" ] || targets="api bake fit encode model archive"
out="$here/fuzz/build"
mkdir -p "$out"
status=0
for t in $targets; do
    corpus="$out/corpus-py-$t"
    mkdir -p "$corpus"
    log="$out/py_$t.log"
    echo "== fuzz/python/fuzz_$t.py for ${secs}s"
    if python3 "$here/fuzz/python/fuzz_$t.py" -max_total_time="$secs" -max_len=4096 -rss_limit_mb=2048 \
        -timeout=20 -print_final_stats=1 -artifact_prefix="$out/py-$t-" "$corpus" >"$log" 2>&1; then
        echo "ok fuzz_$t: $(grep -E '^#[0-9]+' "$log" | tail -1 | sed 's/ *MS:.*//')"
        grep -E '^stat::number_of_executed_units' "$log" || true
    else
        echo "FAILED: fuzz/python/fuzz_$t.py (see fuzz/build/py_$t.log)"; tail -40 "$log"
        status=1
    fi
done
exit $status
