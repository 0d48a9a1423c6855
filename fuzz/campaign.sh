#!/bin/sh
# A long fuzzing campaign: each target for MINUTES minutes (default 30), one
# after the other, keeping its corpus in fuzz/build/corpus-<target>.  Prints
# and appends to fuzz/build/campaign.txt the executions, coverage and corpus
# size each target reached.  Record the figures in docs/fuzzing.md.
#   sh fuzz/campaign.sh [MINUTES] [target ...]
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
mins="${1:-30}"; [ $# -gt 0 ] && shift
targets="$*"
[ -n "$targets" ] || targets="bck btk bca bk jba lz77 yaz0 yay0 rarezip load"
secs=$((mins * 60))
for t in $targets; do
    JOBS=1 sh "$here/fuzz/run.sh" "$secs" "$t" || { echo "campaign: fuzz_$t FAILED"; exit 1; }
    log="$here/fuzz/build/fuzz_$t.log"
    execs=$(grep "stat::number_of_executed_units" "$log" | awk '{print $2}')
    last=$(grep -E "^#[0-9]+" "$log" | tail -1)
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p')
    line="$(date -u +%Y-%m-%dT%H:%MZ) fuzz_$t ${mins}min executions=$execs cov=$cov features=$ft corpus=$corp"
    echo "$line"
    echo "$line" >> "$here/fuzz/build/campaign.txt"
done
