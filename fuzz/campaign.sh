#!/bin/sh
# A long fuzzing campaign: each target for MINUTES minutes (default 30),
# JOBS targets at a time (default 1; on a 2-core machine JOBS=2 halves the
# wall time and each target gets one core), keeping its corpus in
# fuzz/build/corpus-<target>.  Prints and appends to fuzz/build/campaign.txt
# the executions, coverage, features and corpus size each target reached,
# and the CPU seconds it used.  A target that finds a crash is reported and
# the others go on; the script fails at the end if any did.  Record the
# figures in docs/fuzzing.md.
#   [JOBS=N] sh fuzz/campaign.sh [MINUTES] [target ...]
here="$(cd "$(dirname "$0")/.." && pwd)"
mins="${1:-30}"; [ $# -gt 0 ] && shift
targets="$*"
[ -n "$targets" ] || targets="bck btk bca bk jba brk bpk btp bva j3d_bca lz77 yaz0 yay0 rarezip load bake edit"
jobs="${JOBS:-1}"
secs=$((mins * 60))

one() {
    t="$1"
    start=$(date +%s)
    if JOBS=1 sh "$here/fuzz/run.sh" "$secs" "$t" > "$here/fuzz/build/campaign_$t.out" 2>&1; then
        verdict=ok
    else
        verdict=CRASH
    fi
    log="$here/fuzz/build/fuzz_$t.log"
    execs=$(grep "stat::number_of_executed_units" "$log" | awk '{print $2}')
    last=$(grep -E "^#[0-9]+" "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p')
    wall=$(( $(date +%s) - start ))
    line="$(date -u +%Y-%m-%dT%H:%MZ) fuzz_$t $verdict ${wall}s-wall jobs=$jobs executions=$execs cov=$cov features=$ft corpus=$corp"
    echo "$line"
    echo "$line" >> "$here/fuzz/build/campaign.txt"
    [ "$verdict" = ok ]
}

status=0
set -- $targets
while [ $# -gt 0 ]; do
    pids=""
    i=0
    while [ $# -gt 0 ] && [ "$i" -lt "$jobs" ]; do
        one "$1" &
        pids="$pids $!"
        shift
        i=$((i + 1))
    done
    for p in $pids; do
        wait "$p" || status=1
    done
done
[ "$status" = 0 ] || echo "campaign: at least one target FAILED (see fuzz/build/campaign_*.out)"
exit $status
