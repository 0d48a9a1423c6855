#!/bin/sh
# Runs the pytest suite against an AddressSanitizer + UndefinedBehaviorSanitizer
# build of the extension (gcc's runtimes preloaded into Python):
#   sh tools/run_sanitized.sh [pytest arguments]      (default: tests/, without the Blender suites, the distribution and the cross builds)
# Any sanitizer report aborts the test process, so the run fails.
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/tools/env.sh"   # python3 = .venv/main's when set up
cd "$here"
out="$here/build/asan"
GAMEANIM_SANITIZE=address,undefined sh tools/devbuild.sh "$out"
asan="$(gcc -print-file-name=libasan.so)"
ubsan="$(gcc -print-file-name=libubsan.so)"
export LD_PRELOAD="$asan $ubsan"
# CPython itself leaks at exit by design; leaks in our code are covered by the
# fuzzers (LeakSanitizer) and the memory-stability test.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:allocator_may_return_null=1${GAMEANIM_ASAN_LOG:+:log_path=$GAMEANIM_ASAN_LOG}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export PYTHONMALLOC=malloc
export GAMEANIM_SANITIZED=1   # resident-memory checks do not hold under ASan
# (it also makes tests/test_hardening.py build its C sweep, fuzz/sweep.c, with the sanitizers)
export PYTHONPATH="$out${PYTHONPATH:+:$PYTHONPATH}"
export GAMEANIM_MUTATIONS="${GAMEANIM_MUTATIONS:-300}"
export GAMEANIM_SWEEP_STRIDE="${GAMEANIM_SWEEP_STRIDE:-5}"
cd "$out"
if [ $# -eq 0 ]; then
    # (not the cross builds' tests either: they build and run the Windows and
    # macOS binaries, under wine, which the sanitized Linux module has no
    # part in; the README test command runs them)
    set -- "$here/tests" --ignore="$here/tests/test_blender.py" --ignore="$here/tests/test_distribution.py" \
        --ignore="$here/tests/test_cross.py"
fi
# --capture=sys: a sanitizer report on file descriptor 2 reaches the terminal
exec python3 -m pytest -q -p no:cacheprovider --capture=sys "$@"
