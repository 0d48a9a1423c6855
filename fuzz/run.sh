#!/bin/sh
# Runs every fuzz target for SECONDS seconds (default 60) on a corpus seeded
# from samples/ (and fuzz/corpus/<name>/ and tests/fuzz_regressions/ if
# present), JOBS targets at a time (default: the number of cores).  A
# crash, sanitizer report or broken invariant fails the script and leaves
# the input in fuzz/build/crash-*; copy it to tests/fuzz_regressions/ to keep
# it as a regression test.
#   sh fuzz/run.sh [SECONDS] [target ...]
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
secs="${1:-60}"; [ $# -gt 0 ] && shift
targets="$*"
[ -n "$targets" ] || targets="bck btk bca bk jba brk bpk btp bva j3d_bca lz77 yaz0 yay0 rarezip load bake edit model rarc"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
cd "$here/fuzz/build"

run_one() {
    t="$1"
    corpus="$here/fuzz/build/corpus-$t"
    mkdir -p "$corpus"
    # seeds: every sample (each target rejects what is not its own quickly)
    find "$here/samples" -type f -exec cp {} "$corpus/" \; 2>/dev/null || true
    [ -d "$here/fuzz/corpus/$t" ] && cp "$here/fuzz/corpus/$t"/* "$corpus/" 2>/dev/null || true
    [ -d "$here/tests/fuzz_regressions" ] && cp "$here/tests/fuzz_regressions"/* "$corpus/" 2>/dev/null || true
    if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ./fuzz_$t -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
        -artifact_prefix="$here/fuzz/build/$t-" "$corpus" >"fuzz_$t.log" 2>&1; then
        echo "ok fuzz_$t: $(grep -E '^#[0-9]+' "fuzz_$t.log" | tail -1 | sed 's/ *MS:.*//')"
    else
        echo "FAILED: fuzz_$t (see fuzz/build/fuzz_$t.log)"; tail -40 "fuzz_$t.log"
        return 1
    fi
}

status=0
running=0
pids=""
for t in $targets; do
    echo "== fuzz_$t for ${secs}s"
    run_one "$t" > "status_$t.txt" 2>&1 &
    pids="$pids $!:$t"
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        for p in $pids; do
            wait "${p%%:*}" || status=1
            cat "status_${p#*:}.txt"
        done
        pids=""
        running=0
    fi
done
for p in $pids; do
    wait "${p%%:*}" || status=1
    cat "status_${p#*:}.txt"
done
exit $status
