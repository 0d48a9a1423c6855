#!/bin/sh
# Runs every fuzz target for SECONDS seconds (default 60) on a corpus seeded
# from samples/ (and fuzz/corpus/<name>/ if present).  A crash, sanitizer
# report or broken invariant fails the script and leaves the input in
# fuzz/build/crash-*; copy it to tests/fuzz_regressions/ to keep it.
#   sh fuzz/run.sh [SECONDS] [target ...]
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
secs="${1:-60}"; [ $# -gt 0 ] && shift
targets="$*"
[ -n "$targets" ] || targets="bck btk bca bk jba lz77 yaz0 yay0 rarezip load"
cd "$here/fuzz/build"
status=0
for t in $targets; do
    corpus="$here/fuzz/build/corpus-$t"
    mkdir -p "$corpus"
    # seeds: every sample (each target rejects what is not its own quickly)
    find "$here/samples" -type f -exec cp {} "$corpus/" \; 2>/dev/null || true
    [ -d "$here/fuzz/corpus/$t" ] && cp "$here/fuzz/corpus/$t"/* "$corpus/" 2>/dev/null || true
    [ -d "$here/tests/fuzz_regressions" ] && cp "$here/tests/fuzz_regressions"/* "$corpus/" 2>/dev/null || true
    echo "== fuzz_$t for ${secs}s"
    if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ./fuzz_$t -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
        "$corpus" 2>"fuzz_$t.log"; then
        echo "FAILED: fuzz_$t (see fuzz/build/fuzz_$t.log)"; tail -40 "fuzz_$t.log"; status=1
    else
        grep -E "stat::number_of_executed_units|cov:" "fuzz_$t.log" | tail -2
    fi
done
exit $status
