"""rarezip: Rare's N64 wrapper (11 72, big-endian u32 size, raw deflate,
0xAA padding to a multiple of 8) as Banjo-Kazooie stores animations.

Inflate and deflate are checked against Python's zlib module directly."""
import os
import shutil
import struct
import subprocess
import warnings
import zlib
from pathlib import Path

import pytest

import gameanim
from conftest import SAMPLES

ROOT = Path(__file__).resolve().parent.parent
FEATURES = (SAMPLES / "bk" / "features.bin").read_bytes()
MAX = gameanim.LIMITS["decompressed_size"] if hasattr(gameanim, "LIMITS") else 256 * 1024 * 1024


def raw_deflate(data, level=6):
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 8)
    return c.compress(data) + c.flush()


def wrap(payload, stream=None, size=None, pad=True):
    body = b"\x11\x72" + struct.pack(">I", len(payload) if size is None else size)
    body += raw_deflate(payload) if stream is None else stream
    if pad:
        body += b"\xaa" * (-len(body) % 8)
    return body


def test_compress_layout_is_header_raw_deflate_level_6_and_aa_padding():
    for data in (b"", b"x", FEATURES, bytes(range(256)) * 40):
        out = gameanim.compress("rarezip", data)
        assert out[:2] == b"\x11\x72"
        assert struct.unpack(">I", out[2:6])[0] == len(data)
        stream = raw_deflate(data, 6)
        assert out[6:6 + len(stream)] == stream  # zlib, raw, level 6
        pad = out[6 + len(stream):]
        assert len(out) % 8 == 0 and len(pad) < 8 and set(pad) <= {0xAA}
        assert zlib.decompressobj(-15).decompress(out[6:]) == data


def test_decompress_inflates_and_checks_the_size():
    for data in (b"", b"abc" * 1000, FEATURES):
        assert gameanim.decompress("rarezip", wrap(data)) == data
        # Rare's padding and any other bytes after the stream are ignored
        assert gameanim.decompress("rarezip", wrap(data, pad=False) + b"\x00\x01\x02") == data
        # a stream from another compressor (stored blocks, level 9) is fine
        assert gameanim.decompress("rarezip", wrap(data, stream=raw_deflate(data, 0))) == data


def test_size_field_larger_than_the_limit_is_refused():
    bad = b"\x11\x72" + struct.pack(">I", 0xFFFFFFFF) + raw_deflate(b"hello")
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.decompress("rarezip", bad)
    assert "exceed the decompression limit" in str(e.value)
    assert e.value.format == "rarezip" and e.value.field == "decompressed size" and e.value.offset == 2


def test_size_field_larger_than_deflate_can_produce_is_refused():
    stream = raw_deflate(b"hello")
    bad = b"\x11\x72" + struct.pack(">I", len(stream) * 1032 + 1) + stream
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.decompress("rarezip", bad)
    assert "expands at most 1032:1" in str(e.value)
    # the bound itself is not an error of its own (the stream decides)
    ok = b"\x11\x72" + struct.pack(">I", len(stream) * 1032) + stream
    with pytest.raises(gameanim.FormatError, match="declares"):
        gameanim.decompress("rarezip", ok)


@pytest.mark.parametrize("delta", [-1, 1, 100])
def test_size_field_must_match_exactly(delta):
    data = b"0123456789" * 50
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.decompress("rarezip", wrap(data, size=len(data) + delta))
    assert "declares %d bytes" % (len(data) + delta) in str(e.value) or "more data than the header" in str(e.value)


def test_truncated_and_corrupt_streams_are_format_errors():
    data = FEATURES
    full = wrap(data, pad=False)
    for cut in (6, 7, len(full) // 2, len(full) - 1):
        with pytest.raises(gameanim.FormatError) as e:
            gameanim.decompress("rarezip", full[:cut])
        assert e.value.format == "rarezip"
    with pytest.raises(gameanim.FormatError):
        gameanim.decompress("rarezip", b"\x11\x72\x00")
    corrupt = bytearray(full)
    corrupt[6] = 0xFF  # invalid block type 3
    with pytest.raises(gameanim.FormatError):
        gameanim.decompress("rarezip", bytes(corrupt))


def test_load_detects_and_inflates_transparently():
    a = gameanim.load(SAMPLES / "bk" / "features_rarezip.bin")
    b = gameanim.load(FEATURES)
    assert a.compression == "rarezip" and b.compression is None
    assert a.format == "bk" and a.info == b.info
    assert list(a.sample([0, 12.5, 40])) == list(b.sample([0, 12.5, 40]))
    assert gameanim.detect(SAMPLES / "bk" / "features_rarezip.bin") == ("bk", "rarezip")


def test_unedited_compressed_file_saves_its_original_bytes():
    # a stream zlib level 6 would not produce: stored blocks, odd padding
    original = wrap(FEATURES, stream=raw_deflate(FEATURES, 1), pad=False) + b"\xaa\xaa\x00"
    a = gameanim.load(original)
    assert a.compression == "rarezip"
    assert a.to_bytes() == original
    assert a.to_bytes(compression=None) == FEATURES


def test_an_edit_that_leaves_the_payload_as_it_was_keeps_the_compressed_bytes():
    # a stream zlib level 6 would not produce, so a recompression would show
    original = wrap(FEATURES, stream=raw_deflate(FEATURES, 1), pad=False) + b"\xaa\xaa\x00"
    assert wrap(FEATURES) != original
    a = gameanim.load(original)
    t = a.tracks[0]
    v = list(t.values)
    v[0] += 1e-7  # moves the value within its 1/64 step: the same s16 in the file
    t.values = v
    assert a.to_bytes(compression=None) == FEATURES  # the payload is the file's
    assert a.to_bytes() == original
    assert a.to_bytes(reencode="raw") == original
    # a real change is recompressed (test below)
    v[0] += 1.0
    t.values = v
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)  # (the edit's own rounding)
        assert a.to_bytes() == wrap(a.to_bytes(compression=None))


def test_edited_compressed_file_is_recompressed_with_zlib_level_6():
    original = wrap(FEATURES, stream=raw_deflate(FEATURES, 1))
    a = gameanim.load(original)
    a.frame_count = a.frame_count + 5
    out = a.to_bytes()
    bare = a.to_bytes(compression=None)
    assert bare[8:] == FEATURES[8:] and bare[:8] != FEATURES[:8]
    assert out == wrap(bare)  # 11 72 + size + zlib level 6 + 0xAA padding
    assert gameanim.load(out).frame_count == a.frame_count
    # and a bare file can be saved compressed
    assert gameanim.load(FEATURES).to_bytes(compression="rarezip") == wrap(FEATURES)


def test_a_bare_file_that_happens_to_start_with_11_72_still_loads():
    # start frame 0x1172 = 4466: the wrapper fails, the structure fits BK
    def key(frame, value):
        return struct.pack(">Hh", frame, value)

    data = struct.pack(">hhhH", 0x1172, 0x1180, 1, 0) + struct.pack(">Hh", 0x10, 2) + key(4470, 64) + key(4480, 0)
    a = gameanim.load(data)
    assert a.format == "bk" and a.compression is None and a.start_frame == 0x1172
    assert a.to_bytes() == data


def test_compressed_payload_that_is_not_bk_reports_the_problem():
    broken = FEATURES + b"\x00\x00"  # trailing garbage inside the wrapper
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.load(wrap(broken))
    assert "trailing garbage" in str(e.value)


HARNESS = r"""
#include <stdio.h>
#include <string.h>
#include "gameanim.h"
/* a core without zlib: nothing registered */
ga_inflate_fn ga_zlib_inflate = NULL;
ga_deflate_fn ga_zlib_deflate = NULL;
extern const ga_wrapper ga_wrapper_rarezip;
int main(void)
{
    static const uint8_t data[] = {0x11, 0x72, 0, 0, 0, 3, 0x4b, 0x4c, 0x4a, 0x06, 0x00};
    uint8_t *out = NULL;
    size_t n = 0;
    ga_error err;
    int a = ga_wrapper_rarezip.unwrap(data, sizeof data, NULL, &out, &n, &err);
    printf("%d %d|%s\n", a, err.code == GA_ERR_FORMAT, err.message);
    ga_buf b;
    ga_buf_init(&b);
    int c = ga_wrapper_rarezip.wrap(data, sizeof data, &b, &err);
    printf("%d %d|%s\n", c, err.code == GA_ERR_ENCODE, err.message);
    ga_buf_free(&b);
    return out != NULL;
}
"""


@pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc")), reason="needs a C compiler")
def test_missing_zlib_hooks_give_clean_errors(tmp_path):
    """The C core without zlib hooks (a standalone build that plugs none)
    reports 'zlib not available' instead of crashing."""
    cc = shutil.which("cc") or shutil.which("gcc")
    src = tmp_path / "harness.c"
    src.write_text(HARNESS)
    sources = [str(ROOT / "csrc" / name) for name in ("codecs/rarezip.c", "core/bytes.c", "core/error.c")]
    exe = tmp_path / "harness"
    subprocess.run([cc, "-std=c11", "-O0", "-I", str(ROOT / "csrc" / "core"), str(src), *sources, "-lm", "-o", str(exe)],
                   check=True, capture_output=True)
    res = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    lines = res.stdout.splitlines()
    assert lines[0].startswith("%d 1|" % -1) and "zlib not available" in lines[0] and "rarezip" in lines[0]
    assert lines[1].startswith("%d 1|" % -3) and "zlib not available" in lines[1]
