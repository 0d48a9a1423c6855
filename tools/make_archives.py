"""A RARC / CRAR writer in plain Python, independent of the C reader, for
the archives the tests and the benchmark use (never files from games).

    from make_archives import Dir, File, build
    data = build(Dir("root", [File("a.bck", b"..."), Dir("bck", [...])]))

Layout as the notes describe the games' own tool writing it
(../shared/formats/rarc.md): header, data header, node table (the root
first, then the directories depth-first), entry table (each node's entries
together: its files and sub-directories in the order given, then '.' and
'..'), string table starting with ".\\0..\\0", then the file data: MRAM
members first, then ARAM, then DVD, each member aligned to 32 bytes.

    python3 tools/make_archives.py OUT_DIR   writes the example archives
"""
from __future__ import annotations

import os
import struct
import sys
from dataclasses import dataclass, field

FILE, DIR, COMPRESSED, MRAM, ARAM, DVD, YAZ0 = 0x01, 0x02, 0x04, 0x10, 0x20, 0x40, 0x80
ALIGN = 32


@dataclass
class File:
    name: str
    data: bytes = b""
    load: int = MRAM            # MRAM, ARAM or DVD
    compress: str | None = None  # the member's own compression: None, "yaz0", "yay0"
    same_as: str | None = None   # path of an earlier member whose bytes this entry shares
    extra_attr: int = 0


@dataclass
class Dir:
    name: str
    items: list = field(default_factory=list)


def name_hash(name: bytes) -> int:
    h = 0
    for c in name:
        h = (h * 3 + c) & 0xFFFF
    return h


def _pad(n: int, a: int = ALIGN) -> int:
    return (n + a - 1) // a * a


def _compress(kind: str, data: bytes) -> bytes:
    import gameanim  # the payloads only: the archive layout is this file's own
    return gameanim.compress(kind, data)


def build(root: Dir, *, little: bool = False, dir_size: int | None = None, encoding: str = "cp932") -> bytes:
    """The archive's bytes (unwrapped)."""
    return build_with_manifest(root, little=little, dir_size=dir_size, encoding=encoding)[0]


def build_with_manifest(root: Dir, *, little: bool = False, dir_size: int | None = None,
                        encoding: str = "cp932"):
    """(bytes, manifest): manifest maps each file's path (relative to the
    root, '/'-separated) to a dict: data (as stored), raw (before its own
    compression), attr, id, offset (in the file data)."""
    e = "<" if little else ">"
    if dir_size is None:
        dir_size = 0 if little else 0x10
    # nodes depth-first (pre-order), each with its entries
    nodes: list[tuple[Dir, str]] = []

    def collect(d: Dir, path: str) -> None:
        nodes.append((d, path))
        for it in d.items:
            if isinstance(it, Dir):
                collect(it, path + it.name + "/")

    collect(root, "")
    node_index = {id(d): i for i, (d, _) in enumerate(nodes)}
    parent_of = {}
    for i, (d, _) in enumerate(nodes):
        for it in d.items:
            if isinstance(it, Dir):
                parent_of[id(it)] = i

    strings = bytearray(b".\0..\0")
    str_at: dict[bytes, int] = {b".": 0, b"..": 2}

    def string(s: str) -> int:
        b = s.encode(encoding)
        if b not in str_at:
            str_at[b] = len(strings)
            strings.extend(b + b"\0")
        return str_at[b]

    # entries; file IDs in entry order
    entries = []  # dicts: name, attr, node (dirs) or file
    firsts = []
    next_id = 0
    for d, path in nodes:
        firsts.append(len(entries))
        for it in d.items:
            if isinstance(it, Dir):
                entries.append(dict(name=it.name, attr=DIR, node=node_index[id(it)], id=0xFFFF))
            else:
                attr = FILE | it.load | it.extra_attr
                if it.compress:
                    attr |= COMPRESSED | (YAZ0 if it.compress == "yaz0" else 0)
                entries.append(dict(name=it.name, attr=attr, file=it, path=path + it.name, id=next_id))
                next_id += 1
        me = node_index[id(d)]
        entries.append(dict(name=".", attr=DIR, node=me, id=0xFFFF))
        entries.append(dict(name="..", attr=DIR, node=parent_of.get(id(d), 0xFFFFFFFF), id=0xFFFF))
    node_names = [string(d.name) for d, _ in nodes]
    for ent in entries:
        ent["name_off"] = string(ent["name"])

    # file data: MRAM, then ARAM, then DVD, each member aligned
    manifest = {}
    sections = {MRAM: bytearray(), ARAM: bytearray(), DVD: bytearray()}
    placed = []  # (load, entry, offset in section)
    for load in (MRAM, ARAM, DVD):
        sec = sections[load]
        for ent in entries:
            f = ent.get("file")
            if f is None or f.load != load or f.same_as:
                continue
            stored = _compress(f.compress, f.data) if f.compress else f.data
            placed.append((load, ent, len(sec)))
            ent["stored"] = stored
            sec.extend(stored)
            sec.extend(b"\0" * (_pad(len(sec)) - len(sec)))
    mram, aram, dvd = (len(sections[k]) for k in (MRAM, ARAM, DVD))
    section_start = {MRAM: 0, ARAM: mram, DVD: mram + aram}
    by_path = {}
    for load, ent, off in placed:
        ent["offset"] = section_start[load] + off
        by_path[ent["path"]] = ent
    for ent in entries:
        f = ent.get("file")
        if f is not None and f.same_as:
            src = by_path[f.same_as]
            ent["offset"], ent["stored"] = src["offset"], src["stored"]
            ent["attr"] = src["attr"] | f.extra_attr
    file_data = bytes(sections[MRAM] + sections[ARAM] + sections[DVD])

    # tables, offsets relative to 0x20
    node_off = 0x20
    entry_off = _pad(node_off + 0x10 * len(nodes))
    str_off = _pad(entry_off + 0x14 * len(entries))
    str_size = _pad(len(strings))
    data_off = _pad(str_off + str_size)
    out = bytearray()
    out += (b"CRAR" if little else b"RARC")
    out += struct.pack(e + "IIIIIII", 0x20 + data_off + len(file_data), 0x20, data_off, len(file_data),
                       mram, aram, 0)
    out += struct.pack(e + "IIIIIIHBBI", len(nodes), node_off, len(entries), entry_off, str_size, str_off,
                       next_id, 1, 0, 0)
    for i, (d, _) in enumerate(nodes):
        fourcc = b"ROOT" if i == 0 else d.name.upper().encode(encoding)[:4].ljust(4, b" ")
        name = d.name.encode(encoding)
        n_ent = sum(1 for _ in d.items) + 2
        out += fourcc + struct.pack(e + "IHHI", node_names[i], name_hash(name), n_ent, firsts[i])
    out += b"\0" * (0x20 + entry_off - len(out))
    for ent in entries:
        name = ent["name"].encode(encoding)
        if "file" in ent:
            off, size = ent["offset"], len(ent["stored"])
        else:
            off, size = ent["node"], dir_size
        out += struct.pack(e + "HHIIII", ent["id"], name_hash(name), (ent["attr"] << 24) | ent["name_off"],
                           off, size, 0)
    out += b"\0" * (0x20 + str_off - len(out))
    out += strings + b"\0" * (str_size - len(strings))
    out += b"\0" * (0x20 + data_off - len(out))
    out += file_data
    for ent in entries:
        if "file" in ent:
            f = ent["file"]
            manifest[ent["path"]] = dict(data=ent["stored"], raw=f.data, attr=ent["attr"], id=ent["id"],
                                         offset=ent["offset"])
    return bytes(out), manifest


# ---------------------------------------------------------------------------
# The example archives: every feature the tests check


def _blob(seed: int, n: int) -> bytes:
    """Deterministic, mildly compressible bytes."""
    out = bytearray()
    x = seed * 2654435761 & 0xFFFFFFFF
    while len(out) < n:
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out += bytes([(x >> 16) & 0x3F]) * (1 + (x & 3))
    return bytes(out[:n])


def example_tree(nested: bytes | None = None) -> Dir:
    """Nested directories, an empty directory, compressed members (Yaz0 and
    Yay0), MRAM / ARAM / DVD members, a shared data span and a nested
    archive."""
    items = [
        File("model.bdl", _blob(1, 300)),
        Dir("bck", [
            File("wait.bck", _blob(2, 100)),
            File("walk.bck", _blob(3, 64)),
            File("wait_copy.bck", same_as="bck/wait.bck"),
            Dir("deep", [File("run.bck", _blob(4, 33))]),
        ]),
        Dir("empty", []),
        Dir("btk", [
            File("glow.btk", _blob(5, 500), compress="yaz0"),
            File("blink.btk", _blob(6, 200), compress="yay0"),
        ]),
        File("sound.bin", _blob(7, 77), load=ARAM),
        File("movie.bin", _blob(8, 45), load=DVD),
        File("empty.bin", b""),
    ]
    if nested is not None:
        items.append(File("inner.arc", nested))
    return Dir("example", items)


def examples() -> dict[str, bytes]:
    inner = build(Dir("inner", [File("a.bck", _blob(9, 40)), Dir("sub", [File("b.btk", _blob(10, 50))])]))
    plain = build(example_tree(inner))
    return {
        "example.arc": plain,
        "example.szs": _compress("yaz0", plain),
        "example_crar.arc": build(example_tree(inner), little=True),
    }


def main(argv: list[str]) -> int:
    out = argv[1] if len(argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    for name, data in examples().items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        print(name, len(data))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
