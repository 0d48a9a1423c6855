#!/bin/sh
# Runs the thread tests (tests/test_threads.py) against a ThreadSanitizer
# build of the extension:
#   sh tools/run_tsan.sh [pytest arguments]      (default: tests/test_threads.py and the archive threads test)
#
# The extension is built with clang -fsanitize=thread.  CPython is not, and
# preloading the TSan runtime into it (LD_PRELOAD, as tools/run_sanitized.sh
# does for ASan) crashes at start-up on kernels with more mmap randomisation
# than the runtime expects, even under `setarch -R`.  So the interpreter runs
# as a small launcher linked with the TSan runtime (tools/tsan_python.c:
# Py_BytesMain over the same libpython); it is sys.executable, so the tests'
# child processes run under TSan too.  The runtime's interceptors see the GIL
# (a pthread mutex and condition variable): accesses of our C code that the
# GIL orders are not reported; what is reported is our code touching memory
# that another thread uses without the GIL.  CPython's own code is not
# instrumented, so races inside it cannot be reported except through
# intercepted libc calls; tools/tsan.supp would list those (it is empty).
# Any report makes the process exit with status 66, so the test fails.
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
. "$here/tools/env.sh"   # python3 = .venv/main's when set up
cd "$here"
out="$here/build/tsan"
CC=clang GAMEANIM_SANITIZE=thread sh tools/devbuild.sh "$out"
py="$out/python3-tsan"
eval "$(python3 -c '
import sysconfig
v = sysconfig.get_config_var
print("inc=%s libdir=%s ver=%s shared=%s" % (sysconfig.get_paths()["include"], v("LIBDIR"), v("LDVERSION"),
                                              v("Py_ENABLE_SHARED") or 0))')"
if [ "$shared" = 1 ]; then
    link="-L$libdir -lpython$ver -Wl,-rpath,$libdir"
else
    link="-Wl,--whole-archive $libdir/libpython$ver.a -Wl,--no-whole-archive -rdynamic -lpthread -ldl -lutil -lm"
fi
# shellcheck disable=SC2086
clang -fsanitize=thread -O1 -g -I"$inc" tools/tsan_python.c -o "$py" $link -lm
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$here/tools/tsan.supp${GAMEANIM_TSAN_LOG:+:log_path=$GAMEANIM_TSAN_LOG}"
export PYTHONMALLOC=malloc       # every allocation through the intercepted malloc
export GAMEANIM_SANITIZED=1
export GAMEANIM_THREAD_SECONDS="${GAMEANIM_THREAD_SECONDS:-4}"
export PYTHONPATH="$out${PYTHONPATH:+:$PYTHONPATH}"
cd "$out"
if [ $# -eq 0 ]; then
    set -- "$here/tests/test_threads.py" "$here/tests/test_rarc.py::test_threads_reading_and_replacing_one_archive"
fi
# --capture=sys: a report on file descriptor 2 reaches the terminal
exec "$py" -m pytest -q -p no:cacheprovider --capture=sys "$@"
