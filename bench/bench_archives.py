"""Archives: open a Yaz0-wrapped RARC archive of about 5 MB, list it and
read every member, in C (gameanim.open_archive) against a straightforward
pure-Python reader (a Yaz0 decompressor and a RARC table walk, below).

    PYTHONPATH=build/lib python3 bench/bench_archives.py [--repeat N] [--mb 5]

The archive is made by tools/make_archives.py (no game files): 40 folders of
animations and models with mildly compressible contents, Yaz0-wrapped as a
whole (as the games ship them).  MB/s counts the unwrapped archive's bytes.
The issue's target: the C path at least 50 times the pure-Python one.
"""
import argparse
import struct
import sys
from pathlib import Path

import gameanim

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import make_archives as M  # noqa: E402
from bench_codecs import best_of  # noqa: E402  (bench/ is the script's folder)


# --------------------------------------------------------------- the pure-Python reader


def yaz0_decompress_py(data):
    """Yaz0 as the notes describe it, one token at a time."""
    size = struct.unpack_from(">I", data, 4)[0]
    out = bytearray()
    ip = 16
    while len(out) < size:
        flags = data[ip]
        ip += 1
        for bit in range(7, -1, -1):
            if len(out) >= size:
                break
            if flags >> bit & 1:
                out.append(data[ip])
                ip += 1
            else:
                b1, b2 = data[ip], data[ip + 1]
                ip += 2
                dist = ((b1 & 0x0F) << 8 | b2) + 1
                n = b1 >> 4
                if n == 0:
                    n = data[ip] + 0x12
                    ip += 1
                else:
                    n += 2
                start = len(out) - dist
                for k in range(n):
                    out.append(out[start + k])
    return bytes(out)


def rarc_members_py(arc):
    """{path: bytes} of an unwrapped RARC, walking the tables."""
    e = ">" if arc[:4] == b"RARC" else "<"
    base, data_rel = struct.unpack_from(e + "II", arc, 8)
    nn, node_off, ne, ent_off, ssize, soff = struct.unpack_from(e + "6I", arc, base)
    strtab = arc[base + soff: base + soff + ssize]
    data_start = base + data_rel
    out = {}

    def name(o):
        return strtab[o: strtab.index(b"\0", o)].decode("cp932")

    def walk(node, prefix):
        _, _, _, count, first = struct.unpack_from(e + "4sIHHI", arc, base + node_off + 16 * node)
        for i in range(first, first + count):
            _, _, na, off, size, _ = struct.unpack_from(e + "HHIIII", arc, base + ent_off + 20 * i)
            nm = name(na & 0xFFFFFF)
            if nm in (".", ".."):
                continue
            if (na >> 24) & 0x02:
                walk(off, prefix + nm + "/")
            else:
                out[prefix + nm] = arc[data_start + off: data_start + off + size]

    walk(0, "")
    return out


def read_all_py(data):
    arc = yaz0_decompress_py(data) if data[:4] == b"Yaz0" else data
    members = rarc_members_py(arc)
    return len(arc), sum(len(v) for v in members.values()), len(members)


def read_all_c(data):
    arc = gameanim.open_archive(data)
    total = 0
    names = arc.namelist()
    for n in names:
        total += len(arc.read(n))
    return total, len(names)


# --------------------------------------------------------------- the archive


def big_archive(mb):
    """About `mb` MB once Yaz0-wrapped."""
    dirs = []
    target = int(mb * 1.6 * 1e6)  # (the blobs compress to about 0.6 of their size)
    per = target // 40
    for d in range(40):
        files = [M.File(f"{d:02d}_model.bdl", M._blob(d * 10 + 1, per // 2))]
        for k in range(8):
            files.append(M.File(f"anim_{k}.bck", M._blob(d * 10 + k + 2, per // 16)))
        dirs.append(M.Dir(f"obj{d:02d}", files))
    plain = M.build(M.Dir("bench", dirs))
    return plain, gameanim.compress("yaz0", plain)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--mb", type=float, default=5.0, help="size of the Yaz0 archive (default 5)")
    args = ap.parse_args(argv)
    plain, packed = big_archive(args.mb)
    # both readers see the same members
    arc = gameanim.open_archive(packed)
    total, count = read_all_c(packed)
    assert (len(plain), total, count) == read_all_py(packed)
    assert all(arc.read(n) == v for n, v in rarc_members_py(plain).items())
    t_c = best_of(lambda: read_all_c(packed), args.repeat)
    t_py = best_of(lambda: read_all_py(packed), 1)
    mb = len(plain) / 1e6
    print(f"archive: {len(packed) / 1e6:.2f} MB Yaz0-wrapped, {mb:.2f} MB unwrapped, {count} members")
    print(f"  C (open_archive, namelist, read each)  {t_c * 1e3:8.1f} ms  {mb / t_c:8.1f} MB/s")
    print(f"  pure Python (Yaz0 + table walk)        {t_py * 1e3:8.1f} ms  {mb / t_py:8.2f} MB/s")
    ratio = t_py / t_c
    print(f"  -> {ratio:.0f}x faster than pure Python (target: at least 50x): {'met' if ratio >= 50 else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
