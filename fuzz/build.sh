#!/bin/sh
# Builds one libFuzzer binary per format, per decompressor, for archives (rarc), for the whole
# load path, for baking, for the edit policy and for the model loader, with AddressSanitizer and UndefinedBehaviorSanitizer:
#   sh fuzz/build.sh            -> fuzz/build/fuzz_<name>
# Needs clang (with libFuzzer: Debian's clang + libclang-rt-14-dev) and zlib.
set -e
here="$(cd "$(dirname "$0")/.." && pwd)"
out="$here/fuzz/build"
mkdir -p "$out"
CC="${CC:-clang}"
COMMON="-g -O1 -fno-sanitize-recover=undefined -fno-omit-frame-pointer -ffp-contract=off -std=c11 -Wall -Wextra"
# the core without its Python binding (csrc/python/)
# (only csrc/core on the include path, as in setup.py: other folders'
# headers are included by relative path)
COMMON="$COMMON -I$here/csrc/core"
# The core is compiled once, instrumented for the fuzzer but without its
# main (fuzzer-no-link), two files at a time, into one archive; each
# target then compiles only fuzz_target.c with its -D and links.  (The
# GA_FUZZ_* macros reach fuzz_target.c alone.)
objs="$out/core_objs"
rm -rf "$objs"
mkdir -p "$objs"
for d in core formats codecs models archives; do
    for f in "$here"/csrc/$d/*.c; do printf '%s\n' "$f"; done
done | xargs -P "${FUZZ_JOBS:-2}" -I{} sh -c '
    f="$1"; rel="${f#'"$here"'/csrc/}"
    '"$CC"' '"$COMMON"' -fsanitize=fuzzer-no-link,address,undefined -c "$f" -o "'"$objs"'/$(echo "$rel" | tr / _).o"
' _ {}
rm -f "$out/libgamecore.a"
ar rcs "$out/libgamecore.a" "$objs"/*.o
build() {
    name="$1"; shift
    $CC $COMMON -fsanitize=fuzzer,address,undefined "$@" -o "$out/fuzz_$name" "$here/fuzz/fuzz_target.c" \
        "$here/fuzz/zlib_hooks.c" "$out/libgamecore.a" -lz -lm
    echo "built fuzz/build/fuzz_$name"
}
for fmt in bck btk bca bk jba brk bpk btp bva j3d_bca; do build "$fmt" "-DGA_FUZZ_FORMAT=\"$fmt\""; done
for w in lz77 yaz0 yay0 rarezip; do build "$w" "-DGA_FUZZ_WRAPPER=\"$w\""; done
build load
build bake -DGA_FUZZ_BAKE
build edit -DGA_FUZZ_EDIT
build model -DGA_FUZZ_MODEL
build rarc -DGA_FUZZ_ARCHIVE
