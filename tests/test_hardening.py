"""Robustness across every sample of every format: truncation at every byte
offset, every single byte flipped, limits, memory stability and threads."""
import concurrent.futures
import gc
import os
import shutil
import subprocess
import threading
import warnings
from pathlib import Path

import pytest

import gameanim
from conftest import sample_paths

ALL = sample_paths()
ROOT = Path(__file__).resolve().parent.parent
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def check(data):
    """Decodes (then samples and encodes) or raises FormatError; anything
    else fails the test."""
    try:
        anim = gameanim.load(data)
    except gameanim.FormatError:
        return False
    anim.sample([0.0, 0.5, anim.frame_count])
    return True


@pytest.fixture(scope="session")
def sweeper(tmp_path_factory):
    """fuzz/sweep.c built against the C core (no Python: one case costs a
    decode, not a Python call), with the sanitizers of a sanitized run."""
    if not CC:
        pytest.skip("needs a C compiler")
    out = tmp_path_factory.mktemp("sweep")
    dirs = [ROOT / "csrc" / d for d in ("core", "formats", "codecs", "models")]
    sources = [ROOT / "fuzz" / "sweep.c", ROOT / "fuzz" / "zlib_hooks.c"]
    sources += sorted(f for d in dirs for f in d.glob("*.c"))
    flags = ["-std=c11", "-O2", "-ffp-contract=off", f"-I{ROOT / 'csrc' / 'core'}"]
    if os.environ.get("GAMEANIM_SANITIZED"):
        flags += ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g"]

    def compile_one(k):
        obj = out / f"{k}.o"
        subprocess.run([CC, *flags, "-c", str(sources[k]), "-o", str(obj)], check=True, capture_output=True)
        return str(obj)

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        objs = list(ex.map(compile_one, range(len(sources))))
    exe = out / "sweep"
    subprocess.run([CC, *flags, *objs, "-lz", "-lm", "-o", str(exe)], check=True, capture_output=True)
    return exe


def sweep(exe, path, first, last, stride, truncate, flip):
    """The C sweep over [first, last), split over all cores.  Returns the
    number of cases run."""
    workers = os.cpu_count() or 1
    span = last - first
    chunk = -(-span // workers)
    chunk += (-chunk) % stride
    jobs = [(first + k * chunk, min(last, first + (k + 1) * chunk)) for k in range(workers) if first + k * chunk < last]

    def run(r):
        p = subprocess.run([str(exe), str(path), str(stride), str(r[0]), str(r[1]), str(int(truncate)),
                            str(int(flip))], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        decoded, rejected = map(int, p.stdout.split())
        return decoded + rejected

    with concurrent.futures.ThreadPoolExecutor(workers) as ex:
        cases = sum(ex.map(run, jobs))
    assert cases == len(range(first, last, stride)) * (int(truncate) + int(flip))
    return cases


# Flipping a byte makes most files decode in full, which costs a few
# milliseconds for the largest samples: flips cover every byte of files up to
# 64 KiB and, in larger ones, every byte of the first and last 4 KiB (headers,
# tables, names) and every 16th byte in between.  GAMEANIM_EXHAUSTIVE=1 flips
# every byte of every sample (see docs/fuzzing.md for the last full run).
# GAMEANIM_SWEEP_STRIDE thins everything out for slow sanitizer builds.
FULL_FLIP_LIMIT = 64 * 1024


@pytest.mark.parametrize("path", ALL, ids=lambda p: str(p.relative_to(p.parent.parent)))
def test_every_truncation_and_byte_flip(path, sweeper):
    """Every prefix and flipped bytes (xor 0xFF) either decode or raise
    FormatError.  The sweep runs in C; a stride of cases also goes through
    the public Python API."""
    data = path.read_bytes()
    n = len(data)
    assert check(data)
    base = int(os.environ.get("GAMEANIM_SWEEP_STRIDE", "1"))
    sweep(sweeper, path, 0, n, base, True, False)  # every truncation
    if n <= FULL_FLIP_LIMIT or os.environ.get("GAMEANIM_EXHAUSTIVE") == "1":
        sweep(sweeper, path, 0, n, base, False, True)
    else:
        edge = 4096
        sweep(sweeper, path, 0, edge, base, False, True)
        sweep(sweeper, path, edge, n - edge, 16 * base, False, True)
        sweep(sweeper, path, n - edge, n, base, False, True)
    step = max(1, n // 300)
    for i in range(0, n, step):
        check(data[:i])
        b = bytearray(data)
        b[i] ^= 0xFF
        check(bytes(b))


def test_input_size_limit_is_checked_before_decoding():
    big = bytes(gameanim.LIMITS["input_size"] + 1)
    with pytest.raises(gameanim.FormatError, match="limit"):
        gameanim.load(big)


def shared_table_bck(njoints, count):
    """A BCK whose joints' 9 tracks all read the same value-table entries:
    0.8 MB that claims njoints * 9 * count keys (J3D tracks index their
    tables, so nothing in the file bounds the sum)."""
    import struct

    desc = struct.pack(">27H", *([count, 0, 0] * 9)) * njoints
    joint_off = 0x40
    scale_off = (joint_off + len(desc) + 31) & ~31
    rot_off = (scale_off + 65535 * 4 + 31) & ~31
    trans_off = (rot_off + 65535 * 2 + 31) & ~31
    size = (trans_off + 65535 * 4 + 31) & ~31
    chunk = bytearray(size)
    struct.pack_into(">4sIBBhHHHHIIII", chunk, 0, b"ANK1", size, 0, 0, 30, njoints, 65535, 65535, 65535,
                     joint_off, scale_off, rot_off, trans_off)
    chunk[joint_off:joint_off + len(desc)] = desc
    chunk[scale_off:scale_off + 65535 * 4] = struct.pack(">f", 1.0) * 65535
    return b"J3D1bck1" + struct.pack(">II", 0x20 + size, 1) + b"SVR1" + b"\xff" * 12 + bytes(chunk)


def test_keys_shared_through_j3d_value_tables_count_against_the_key_limit():
    """590 million keys (10 GB of decoded keys, 45 s) from a 0.8 MB file
    used to be decoded; the sum over the tracks is checked first."""
    data = shared_table_bck(3000, 21845)
    assert len(data) < 1 << 20
    with pytest.raises(gameanim.FormatError, match="keys exceed the limit") as e:
        gameanim.load(data)
    assert e.value.field == "key count"
    # the same layout within the limit decodes
    small = gameanim.load(shared_table_bck(2, 100))
    assert len(small.tracks) == 18 and all(len(t) == 100 for t in small.tracks)


# ---------------------------------------------------------------- decoded-size limit
# A load may decode at most max(LIMITS['decoded_size_floor'],
# LIMITS['decoded_size_ratio'] x the input's size) bytes: keys count
# LIMITS['decoded_key_size'] bytes each, a wrapper's payload its length
# (docs/limits.md).  load(..., max_decoded_size=N) sets another bound.

MIB = 1 << 20
KEY = gameanim.LIMITS.get("decoded_key_size", 17)


def default_limit(nbytes):
    return max(gameanim.LIMITS.get("decoded_size_floor", 64 * MIB), gameanim.LIMITS.get("decoded_size_ratio", 64) * nbytes)


def test_the_default_decoded_size_limit_is_published():
    limits = gameanim.LIMITS
    assert (limits["decoded_size_floor"], limits["decoded_size_ratio"], limits["decoded_key_size"]) == (64 * MIB, 64, 17)


def shared_pool_bca(nbones, nframes=65535):
    """A BCA whose bones' 9 tracks all read the same per-frame run: one pool
    of nframes values (the three pools share it) claims nbones * 9 * nframes
    keys, a key per frame of every track."""
    import struct

    pool = 24
    blocks = pool + 4 * nframes
    head = struct.pack("<HHIIIII", nbones, nframes, 1, pool, pool, pool, blocks)
    desc = struct.pack("<BBH", 0, 1, 0) * 9  # AA 0, BB 1 (per frame), CC 0
    return head + bytes(4 * nframes) + desc * nbones


def peak_growth_of_load(data, **kw):
    """Loads data in a fresh interpreter: (how much the peak resident set
    grew during the load, in bytes; the FormatError's message or 'loaded').
    tracemalloc cannot see the C core's allocations; ru_maxrss can."""
    import sys
    import tempfile

    code = (
        "import resource, sys, gameanim\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "try:\n"
        f"    gameanim.load(data, **{kw!r})\n"
        "    what = 'loaded'\n"
        "except gameanim.FormatError as e:\n"
        "    what = str(e)\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print((after - before) * 1024)\n"
        "print(what)\n"
    )
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(data)
        f.flush()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        p = subprocess.run([sys.executable, "-c", code, f.name], capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    grown, what = p.stdout.split("\n", 1)
    return int(grown), what.strip()


def test_a_small_bck_cannot_claim_hundreds_of_megabytes_through_shared_value_tables():
    """0.67 MB that claims 47 million keys (800 MB decoded, under the
    absolute key limit) is refused before anything is allocated."""
    data = shared_table_bck(240, 21845)
    nkeys = 240 * 9 * 21845
    assert len(data) < 700_000 and gameanim.LIMITS["keys"] > nkeys > 40_000_000
    with pytest.raises(gameanim.FormatError, match="decoded-size limit") as e:
        gameanim.load(data)
    msg = str(e.value)
    assert e.value.format == "bck" and e.value.field == "key count" and e.value.offset == 0x60
    assert f"{nkeys} keys ({nkeys * KEY} bytes decoded)" in msg
    assert f"limit of {default_limit(len(data))} bytes" in msg and "max_decoded_size" in msg
    grown, what = peak_growth_of_load(data)
    assert "decoded-size limit" in what
    assert grown < 16 * MIB, f"the refused load grew the peak resident set by {grown} bytes"
    # detect() decodes as well, under the same limit
    with pytest.raises(gameanim.FormatError, match="decoded-size limit"):
        gameanim.detect(data)


def test_a_raised_limit_loads_what_the_default_refuses():
    data = shared_table_bck(24, 21845)  # 4.7 million keys, 80 MB decoded, from 0.67 MB
    need = 24 * 9 * 21845 * KEY
    assert need > default_limit(len(data))
    with pytest.raises(gameanim.FormatError, match="decoded-size limit"):
        gameanim.load(data)
    with pytest.raises(gameanim.FormatError, match="max_decoded_size=1000000; pass a larger"):
        gameanim.load(data, max_decoded_size=10**6)
    assert gameanim.detect(data, max_decoded_size=need) == ("bck", None)
    a = gameanim.load(data, max_decoded_size=need)  # the bound is inclusive
    assert sum(len(t) for t in a.tracks) == 24 * 9 * 21845
    assert a.copy().tracks[0].values[0] == 1.0  # a copy decodes the accepted bytes again
    del a
    for bad in (0, -1):
        with pytest.raises(ValueError, match="positive"):
            gameanim.load(data, max_decoded_size=bad)
    with pytest.raises(TypeError):
        gameanim.load(data, max_decoded_size=1.5e9)


def test_a_small_bca_cannot_multiply_frames_by_tracks():
    """A pool of 65,535 values shared by every track: 0.27 MB claims
    70 x 9 x 65,535 = 41 million keys (700 MB)."""
    data = shared_pool_bca(70)
    nkeys = 70 * 9 * 65535
    assert len(data) < 300_000 and gameanim.LIMITS["keys"] > nkeys
    with pytest.raises(gameanim.FormatError, match="decoded-size limit") as e:
        gameanim.load(data)
    assert e.value.format == "bca" and e.value.field == "bone blocks" and e.value.offset == 24 + 4 * 65535
    assert f"{nkeys} keys" in str(e.value) and "max_decoded_size" in str(e.value)
    grown, what = peak_growth_of_load(data)
    assert "decoded-size limit" in what
    assert grown < 16 * MIB, f"the refused load grew the peak resident set by {grown} bytes"
    small = shared_pool_bca(8)  # 4.7 million keys, 80 MB
    with pytest.raises(gameanim.FormatError, match="decoded-size limit"):
        gameanim.load(small)
    a = gameanim.load(small, max_decoded_size=8 * 9 * 65535 * KEY)
    assert len(a.tracks) == 72 and all(len(t) == 65535 for t in a.tracks)


def test_a_compressed_payload_counts_against_the_limit():
    """rarezip (deflate) expands up to 1032:1: 70 KB that declares 70 MiB
    of payload is refused before the payload is allocated."""
    import struct
    import zlib

    size = 70 * MIB
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = bytes(MIB)
    stream = b"".join(z.compress(chunk) for _ in range(size // MIB)) + z.flush()
    data = b"\x11\x72" + struct.pack(">I", size) + stream
    assert len(data) < 100_000
    with pytest.raises(gameanim.FormatError, match="decoded-size limit") as e:
        gameanim.decompress("rarezip", data)
    assert (e.value.format, e.value.field, e.value.offset) == ("rarezip", "decompressed size", 2)
    assert f"{size} decompressed bytes" in str(e.value)
    with pytest.raises(gameanim.FormatError, match="decoded-size limit"):
        gameanim.load(data)
    assert len(gameanim.decompress("rarezip", data, max_decoded_size=size)) == size


def test_a_callers_lower_limit_applies_to_every_format():
    """JBA (a key per frame of every channel, at least 6 file bytes per bone
    and frame) and Banjo-Kazooie stay far below the default ratio by their
    structure; a caller's own limit still bounds them, key for key (Banjo-
    Kazooie plans for the two keys per element its clip may add)."""
    for name, field in (("jba/legacy_humanoid_106x300.jba", "length"), ("bk/long.bin", "key count"),
                        ("j3d/long_60x600.bck", "key count"), ("bca/long600_lz77.bca", "bone blocks")):
        data = (ROOT / "samples" / name).read_bytes()
        a = gameanim.load(data)
        need = sum(len(t) for t in a.tracks) * KEY
        if name.startswith("bk/"):
            planned = (a.info["key_count"] + 2 * a.info["element_count"]) * KEY
            assert planned >= need
        else:
            planned = need
        assert len(gameanim.load(data, max_decoded_size=planned).tracks)
        with pytest.raises(gameanim.FormatError, match=f"max_decoded_size={planned - 1};"):
            gameanim.load(data, max_decoded_size=planned - 1)
        with pytest.raises(gameanim.FormatError, match=f"max_decoded_size={need - 1};") as e:
            gameanim.load(data, max_decoded_size=need - 1)
        assert e.value.field == field, name


@pytest.mark.parametrize("path", ALL, ids=lambda p: str(p.relative_to(p.parent.parent)))
def test_every_sample_decodes_to_a_tenth_of_its_default_limit_or_less(path):
    data = path.read_bytes()
    limit = default_limit(len(data))
    a = gameanim.load(data)
    keys = sum(len(t) for t in a.tracks)
    assert keys * KEY * 10 < limit
    if a.compression:
        assert len(gameanim.decompress(a.compression, data)) * 10 < limit


@pytest.mark.skipif(os.environ.get("GAMEANIM_SANITIZED") == "1", reason="ASan's quarantine grows the resident set")
def test_memory_stays_flat_over_many_loads_samples_edits_and_encodes():
    files = [p.read_bytes() for p in ALL if p.stat().st_size < 64 * 1024]
    assert files

    def cycle():
        for data in files:
            a = gameanim.load(data)
            a.sample([0.0, 1.5, 3.0])
            b = a.copy()
            for t in b.tracks:
                if len(t):
                    t.values[0] = t.values[0] + 0.25
                    break
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    b.to_bytes()
                except gameanim.EncodeError:
                    pass
            a.to_bytes()

    for _ in range(30):  # warm up allocator pools
        cycle()
    gc.collect()
    before = rss_bytes()
    for _ in range(300):
        cycle()
    gc.collect()
    grown = rss_bytes() - before
    assert grown < 8 * 1024 * 1024, f"resident memory grew by {grown} bytes"


def test_threads_on_separate_animations():
    files = [p.read_bytes() for p in ALL]
    errors = []
    expected = {}
    for i, data in enumerate(files):
        a = gameanim.load(data)
        expected[i] = (a.sample([0.0, 2.5, 7.0]), a.to_bytes())

    def work(seed):
        try:
            for rep in range(20):
                for i, data in enumerate(files):
                    a = gameanim.load(data)
                    if a.sample([0.0, 2.5, 7.0]) != expected[i][0] or a.to_bytes() != expected[i][1]:
                        errors.append(f"thread {seed}: results differ for file {i}")
        except Exception as e:  # pragma: no cover - reported below
            errors.append(f"thread {seed}: {e!r}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:5]


def test_the_memory_test_is_the_one_that_skips_under_sanitizers():
    """A mark on a helper does nothing: the skip belongs on the test."""
    marks = [m for m in getattr(test_memory_stays_flat_over_many_loads_samples_edits_and_encodes, "pytestmark", [])
             if m.name == "skipif"]
    assert marks, "the memory test has no skipif"
    assert "ASan" in marks[0].kwargs["reason"]
    assert not hasattr(shared_table_bck, "pytestmark")
