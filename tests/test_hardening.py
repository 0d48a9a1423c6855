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
    dirs = [ROOT / "csrc" / d for d in ("core", "formats", "codecs")]
    sources = [ROOT / "fuzz" / "sweep.c", ROOT / "fuzz" / "zlib_hooks.c"]
    sources += sorted(f for d in dirs for f in d.glob("*.c"))
    flags = ["-std=c11", "-O2", "-ffp-contract=off", *(f"-I{d}" for d in dirs)]
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


@pytest.mark.skipif(os.environ.get("GAMEANIM_SANITIZED") == "1", reason="ASan's quarantine grows the resident set")
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
