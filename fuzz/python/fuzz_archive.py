#!/usr/bin/env python3
"""Fuzz target: archives through the binding (gameanim.open_archive,
Archive).  A random tree (nested and empty directories, members compressed
or not, MRAM / ARAM / DVD, a shared span, CRAR), written by
tools/make_archives.py and wrapped or not, must open, list exactly the
writer's files, read their bytes and write back exactly; random replaces
must leave every other member's bytes and the names as they were, also
after the archive is opened again from its bytes; damaged copies open or
raise FormatError (fuzz/python/_fuzzlib.py says what a finding is).
    python3 fuzz/python/fuzz_archive.py -max_total_time=30      (atheris)
    python3 fuzz/python/fuzz_archive.py --plain 300              (no atheris)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import _fuzzlib as F  # noqa: E402
import gameanim  # noqa: E402
import make_archives as M  # noqa: E402

# (the writer encodes names as CP932)
NAMES = ("", "a", "wait", "Wait", "偰", "ｱ", "~x", "long_name_" * 8, "..x", ".")
SIZES = (0, 1, 5, 31, 32, 33, 100, 700)


def random_tree(inp, depth, prefix, files):
    items = []
    for i in range(inp.int(0, 4)):
        if depth < 3 and inp.int(0, 3) == 0:
            name = f"d{i}{inp.choice(NAMES)}"
            items.append(M.Dir(name, random_tree(inp, depth + 1, prefix + name + "/", files)))
        else:
            n = inp.choice(SIZES)
            seed = bytes(inp.byte() for _ in range(8)) or b"\0"
            data = (seed * (n // len(seed) + 1))[:n]
            name = f"f{i}{inp.choice(NAMES)}.bin"
            items.append(M.File(name, data, load=inp.choice((M.MRAM, M.MRAM, M.ARAM, M.DVD)),
                                compress=inp.choice((None, None, "yaz0", "yay0"))))
            files.append(prefix + name)
    return items


def check_members(arc, expect, what):
    F.check(sorted(arc.namelist()) == sorted(expect), f"{what}: the member names changed")
    for name, data in expect.items():
        F.check(arc.read(name) == data, f"{what}: member {name!r} reads other bytes")


def body(inp):
    files = []
    items = random_tree(inp, 0, "", files)
    if files and inp.bool():
        items.append(M.File("shared.bin", same_as=inp.choice(files)))  # a second entry on one span
    data, manifest = M.build_with_manifest(M.Dir("root", items), little=inp.bool())
    wrap = inp.choice((None, "yaz0", "yay0"))
    src = gameanim.compress(wrap, data) if wrap else data
    arc = gameanim.open_archive(src)
    F.check(arc.compression == wrap, "the outer wrapper is not the one written")
    expect = {name: m["data"] for name, m in manifest.items()}
    check_members(arc, expect, "open")
    F.check(arc.to_bytes() == src, "an unchanged archive does not write back its bytes")
    for _ in range(inp.int(0, 4)):
        if not expect:
            break
        name = inp.choice(sorted(expect))
        new = bytes(inp.byte() for _ in range(inp.choice(SIZES)))
        arc.replace(name, new)
        expect[name] = new
        check_members(arc, expect, f"replace {name!r}")
        check_members(gameanim.open_archive(arc.to_bytes()), expect, f"reopen after replace {name!r}")
    # damaged copies: open or FormatError, and then everything reads
    bad = bytearray(data)
    for _ in range(inp.int(1, 8)):
        bad[inp.int(0, len(bad) - 1)] = inp.byte()
    if inp.bool():
        del bad[inp.int(0, len(bad)):]
    try:
        broken = gameanim.open_archive(bytes(bad))
    except gameanim.FormatError:
        return
    for name in broken.namelist():
        broken.read(name)
    broken.infolist()


if __name__ == "__main__":
    F.main(body, "fuzz_archive")
