"""Yaz0 and Yay0 compression wrappers (issue 11).

Everything the C code produces is checked with a plain-Python "standard
decoder" written here, and the size of our output is compared with a
plain-Python Nintendo-style encoder (greedy longest match in a 0x1000-byte
window with the one-step look-ahead); neither calls the extension."""
import functools
import os
import random
import struct
import sys
import warnings
import zlib

import pytest

import gameanim
from conftest import ROOT, SAMPLES, decode_or_format_error, mutation_count, mutations, sample_paths

sys.path.insert(0, str(ROOT / "tools"))
import samples_yaz0  # noqa: E402

WRAPPERS = ("yaz0", "yay0")
WINDOW = 0x1000
MAX_LEN = 0x111
LIMIT = gameanim.LIMITS["decompressed_size"]

WRAPPED = sorted(p for p in (SAMPLES / "j3d").glob("*") if ".yaz0." in p.name or ".yay0." in p.name)


# ---------------------------------------------------------------------------
# Independent reference: decoders and the Nintendo-style encoder


class RefError(Exception):
    pass


def _copy(out, dist, n):
    if dist > len(out):
        raise RefError("reference before start")
    for _ in range(n):
        out.append(out[-dist])


def ref_yaz0_decode(data):
    """Returns (payload, tokens); tokens are (length, distance), (1, 0) for a literal."""
    if data[:4] != b"Yaz0" or len(data) < 16:
        raise RefError("not yaz0")
    size = struct.unpack_from(">I", data, 4)[0]
    out = bytearray()
    tokens = []
    src = 16
    while len(out) < size:
        code = data[src]
        src += 1
        for bit in range(7, -1, -1):
            if len(out) >= size:
                break
            if code >> bit & 1:
                out.append(data[src])
                src += 1
                tokens.append((1, 0))
            else:
                hi, lo = data[src], data[src + 1]
                src += 2
                dist = (hi & 0x0F) * 256 + lo + 1
                n = hi >> 4
                if n == 0:
                    n = data[src] + 0x12
                    src += 1
                else:
                    n += 2
                _copy(out, dist, n)
                tokens.append((n, dist))
    if len(out) != size:
        raise RefError("overrun")
    return bytes(out), tokens


def ref_yay0_decode(data):
    if data[:4] != b"Yay0" or len(data) < 16:
        raise RefError("not yay0")
    size, link, chunk = struct.unpack_from(">III", data, 4)
    out = bytearray()
    tokens = []
    mask_at = 16
    while len(out) < size:
        mask = struct.unpack_from(">I", data, mask_at)[0]
        mask_at += 4
        for bit in range(31, -1, -1):
            if len(out) >= size:
                break
            if mask >> bit & 1:
                out.append(data[chunk])
                chunk += 1
                tokens.append((1, 0))
            else:
                word = struct.unpack_from(">H", data, link)[0]
                link += 2
                dist = (word & 0xFFF) + 1
                n = word >> 12
                if n == 0:
                    n = data[chunk] + 0x12
                    chunk += 1
                else:
                    n += 2
                _copy(out, dist, n)
                tokens.append((n, dist))
    if len(out) != size:
        raise RefError("overrun")
    return bytes(out), tokens


REF_DECODE = {"yaz0": ref_yaz0_decode, "yay0": ref_yay0_decode}


def ref_longest(data, pos):
    """Longest match for pos within the window, earliest start on ties (what
    a brute-force scan finds); (1, 0) when shorter than 3 bytes."""
    n = min(MAX_LEN, len(data) - pos)
    if n < 3:
        return 1, 0
    lo = max(0, pos - WINDOW)
    best, best_at, want = 0, -1, 3
    while want <= n:
        # the first start at or after lo matching `want` bytes (start < pos)
        at = data.find(data[pos:pos + want], lo, pos + want - 1)
        if at < 0:
            break
        m = want
        while m < n and data[at + m] == data[pos + m]:
            m += 1
        best, best_at, want, lo = m, at, m + 1, at + 1
    return (best, pos - best_at) if best >= 3 else (1, 0)


@functools.lru_cache(maxsize=None)
def ref_nintendo_tokens(data):
    """Greedy longest match with the one-step look-ahead: when the match one
    byte later is at least 2 bytes longer, emit a literal and take it."""
    pos, out = 0, []
    while pos < len(data):
        length, dist = ref_longest(data, pos)
        if length >= 3:
            nlen, ndist = ref_longest(data, pos + 1)
            if nlen >= length + 2:
                out += [(1, 0), (nlen, ndist)]
                pos += 1 + nlen
                continue
        out.append((length, dist))
        pos += length
    return out


def ref_yaz0_encode(data):
    out = bytearray(b"Yaz0" + struct.pack(">I", len(data)) + bytes(8))
    pos = 0
    toks = ref_nintendo_tokens(data)
    for g in range(0, len(toks), 8):
        flag_at = len(out)
        out.append(0)
        for i, (n, dist) in enumerate(toks[g:g + 8]):
            if n == 1:
                out[flag_at] |= 0x80 >> i
                out.append(data[pos])
            elif n < 0x12:
                out += bytes([(n - 2) << 4 | (dist - 1) >> 8, (dist - 1) & 0xFF])
            else:
                out += bytes([(dist - 1) >> 8, (dist - 1) & 0xFF, n - 0x12])
            pos += n
    return bytes(out)


def ref_yay0_encode(data):
    masks, links, chunks = bytearray(), bytearray(), bytearray()
    pos = 0
    toks = ref_nintendo_tokens(data)
    for g in range(0, len(toks), 32):
        word = 0
        for i, (n, dist) in enumerate(toks[g:g + 32]):
            if n == 1:
                word |= 0x80000000 >> i
                chunks.append(data[pos])
            elif n < 0x12:
                links += struct.pack(">H", (n - 2) << 12 | (dist - 1))
            else:
                links += struct.pack(">H", dist - 1)
                chunks.append(n - 0x12)
            pos += n
        masks += struct.pack(">I", word)
    link = 16 + len(masks)
    return b"Yay0" + struct.pack(">III", len(data), link, link + len(links)) + bytes(masks + links + chunks)


REF_ENCODE = {"yaz0": ref_yaz0_encode, "yay0": ref_yay0_encode}


def test_reference_longest_match_equals_a_brute_force_scan():
    rng = random.Random(7)
    data = bytes(rng.choice(b"ab") for _ in range(600)) + bytes(300) + bytes(rng.randrange(4) for _ in range(400))
    for pos in range(0, len(data), 7):
        best, at = 1, 0
        for i in range(max(0, pos - WINDOW), pos):
            j = 0
            while j < min(MAX_LEN, len(data) - pos) and data[i + j] == data[pos + j]:
                j += 1
            if j > best:
                best, at = j, i
        expect = (best, pos - at) if best >= 3 else (1, 0)
        assert ref_longest(data, pos) == expect, pos


# ---------------------------------------------------------------------------
# Data sets


def random_data(n, seed):
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(n))


def mixed_data():
    rng = random.Random(11)
    parts = []
    for _ in range(300):
        kind = rng.randrange(4)
        if kind == 0:
            parts.append(bytes([rng.randrange(256)]) * rng.randrange(1, 600))
        elif kind == 1:
            parts.append(random_data(rng.randrange(1, 50), rng.randrange(1 << 30)))
        elif kind == 2 and parts:
            parts.append(parts[rng.randrange(len(parts))])
        else:
            parts.append(bytes(rng.choice(b"\x00\x01\x3f\x80") for _ in range(rng.randrange(1, 100))))
    return b"".join(parts)


def high_block():
    """40 bytes from 0x80..0xFF; the filler around it uses 0x00..0x7F, so the
    block can only match another copy of itself."""
    rng = random.Random(1)
    return bytes(0x80 | rng.randrange(128) for _ in range(40))


def low_filler(n):
    rng = random.Random(2)
    return bytes(rng.randrange(128) for _ in range(n))


def far_match_data():
    """The block repeated exactly 0x1000 bytes later: its only match is
    0x1000 back."""
    return high_block() + low_filler(WINDOW - 40) + high_block()


def beyond_window_data():
    """The same block 0x1001 bytes later: out of reach."""
    return high_block() + low_filler(WINDOW - 39) + high_block()


DATASETS = {
    "empty": b"",
    "one_byte": b"\x42",
    "two_bytes": b"\x42\x42",
    "random": random_data(20000, 3),
    "incompressible": os.urandom(9000),
    "long_run": bytes(70000),
    "run_of_0x111": b"\x05" + b"\x07" * (MAX_LEN + 1) + b"\x09",
    "runs_and_repeats": mixed_data(),
    "far_match": far_match_data(),
    "beyond_window": beyond_window_data(),
}


# ---------------------------------------------------------------------------
# Round trips of the codec


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("name", sorted(DATASETS))
def test_decompress_compress_round_trip(wrapper, name):
    data = DATASETS[name]
    packed = gameanim.compress(wrapper, data)
    assert packed[:4] == wrapper.capitalize().encode()
    assert struct.unpack_from(">I", packed, 4)[0] == len(data)
    assert gameanim.decompress(wrapper, packed) == data
    # any standard decoder reads it
    assert REF_DECODE[wrapper](packed)[0] == data


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_maximum_match_length_is_used(wrapper):
    data = DATASETS["long_run"]
    packed = gameanim.compress(wrapper, data)
    _, tokens = REF_DECODE[wrapper](packed)
    lengths = [n for n, _ in tokens]
    assert max(lengths) == MAX_LEN
    # 70000 zero bytes: one literal, then 0x111-byte copies (about 87x smaller)
    assert len(packed) < len(data) // 80
    # exactly 0x111 after one literal: a single copy of maximum length
    _, tokens = REF_DECODE[wrapper](gameanim.compress(wrapper, DATASETS["run_of_0x111"]))
    assert (MAX_LEN, 1) in tokens


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_maximum_match_distance_is_used_and_never_exceeded(wrapper):
    _, tokens = REF_DECODE[wrapper](gameanim.compress(wrapper, DATASETS["far_match"]))
    assert (40, WINDOW) in tokens
    _, tokens = REF_DECODE[wrapper](gameanim.compress(wrapper, DATASETS["beyond_window"]))
    pos, starts = 0, []
    for n, d in tokens:
        starts.append((pos, n))
        pos += n
    # the second block is out of reach: coded as literals
    assert [n for p, n in starts if p >= WINDOW + 1] == [1] * 40
    for name in ("random", "runs_and_repeats", "long_run"):
        _, tokens = REF_DECODE[wrapper](gameanim.compress(wrapper, DATASETS[name]))
        assert max(d for _, d in tokens) <= WINDOW
        assert all(n == 1 or 3 <= n <= MAX_LEN for n, _ in tokens)


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_incompressible_data_grows_only_by_the_flag_bits(wrapper):
    data = DATASETS["incompressible"]
    packed = gameanim.compress(wrapper, data)
    # 16-byte header, the bytes, one flag bit per byte (rounded to the flag unit)
    unit = 1 if wrapper == "yaz0" else 4
    flag_bytes = -(-len(data) // (8 * unit)) * unit
    assert len(packed) <= 16 + len(data) + flag_bytes


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_empty_input(wrapper):
    packed = gameanim.compress(wrapper, b"")
    expect = b"Yaz0" + bytes(12) if wrapper == "yaz0" else b"Yay0" + struct.pack(">III", 0, 16, 16)
    assert packed == expect
    assert gameanim.decompress(wrapper, packed) == b""


def test_header_reserved_bytes_are_zero():
    packed = gameanim.compress("yaz0", DATASETS["random"])
    assert packed[8:16] == bytes(8)


def test_yay0_streams_are_in_nintendo_order():
    data = DATASETS["runs_and_repeats"]
    packed = gameanim.compress("yay0", data)
    size, link, chunk = struct.unpack_from(">III", packed, 4)
    _, tokens = ref_yay0_decode(packed)
    nlinks = sum(1 for n, _ in tokens if n > 1)
    nchunk = sum(1 for n, _ in tokens if n == 1 or n >= 0x12)
    assert link == 16 + 4 * -(-len(tokens) // 32)
    assert chunk == link + 2 * nlinks
    assert len(packed) == chunk + nchunk


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("name", ["random", "runs_and_repeats", "long_run", "far_match"])
def test_decoder_reads_the_reference_encoders_output(wrapper, name):
    # another encoder's choices (earliest match on ties) decode the same way
    data = DATASETS[name]
    assert gameanim.decompress(wrapper, REF_ENCODE[wrapper](data)) == data


# ---------------------------------------------------------------------------
# Size against the Nintendo-style encoder


def j3d_payloads():
    """Every BCK/BTK sample's bare bytes (wrapped ones unwrapped) plus the
    large synthetic animation."""
    out = {}
    for p in sample_paths(".bck", ".btk"):
        try:
            anim = gameanim.load(p)
        except gameanim.FormatError:
            continue  # another codec's sample in the making; its own tests report it
        out[p.name] = anim.to_bytes(compression=None)
    out["large_synthetic.bck"] = samples_yaz0.large_bck()
    return out


PAYLOADS = j3d_payloads()


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_size_within_ten_percent_of_nintendo_style_encoder(wrapper, name):
    data = PAYLOADS[name]
    ours = gameanim.compress(wrapper, data)
    ref = REF_ENCODE[wrapper](data)
    assert REF_DECODE[wrapper](ref)[0] == data
    assert REF_DECODE[wrapper](ours)[0] == data
    assert len(ours) <= 1.10 * len(ref), (len(ours), len(ref))


def test_large_synthetic_animation_is_large_and_compresses():
    data = PAYLOADS["large_synthetic.bck"]
    assert len(data) > 250_000
    assert gameanim.load(data).format == "bck"
    assert len(gameanim.compress("yaz0", data)) < 0.6 * len(data)


# ---------------------------------------------------------------------------
# Samples and gameanim.load


def test_wrapped_samples_exist():
    names = [p.name for p in WRAPPED]
    for w in WRAPPERS:
        assert any(n.endswith(f".{w}.bck") for n in names)
        assert any(n.endswith(f".{w}.btk") for n in names)
    # each is a wrapped copy of a bare sample next to it (X.yaz0.bck holds X.bck)
    for p in WRAPPED:
        stem, wrapper, ext = p.name.rsplit(".", 2)
        bare = p.with_name(f"{stem}.{ext}")
        assert bare.is_file(), bare
        assert gameanim.decompress(wrapper, p.read_bytes()) == bare.read_bytes()


def test_samples_are_made_by_our_encoder():
    made = samples_yaz0.generate()
    wrapped = {k: v for k, v in made.items() if ".yaz0." in k or ".yay0." in k}
    assert sorted(wrapped) == sorted(f"j3d/{p.name}" for p in WRAPPED)
    for p in WRAPPED:
        data = p.read_bytes()
        assert made[f"j3d/{p.name}"] == data
        w = p.name.split(".")[-2]
        payload = REF_DECODE[w](data)[0]
        assert gameanim.compress(w, payload) == data


@pytest.mark.parametrize("path", WRAPPED, ids=lambda p: p.name)
def test_wrapped_sample_loads_and_reports_its_wrapper(path):
    data = path.read_bytes()
    wrapper, ext = path.name.split(".")[-2:]
    anim = gameanim.load(path)
    assert anim.compression == wrapper
    assert anim.format == ext
    assert gameanim.detect(data) == (ext, wrapper)
    payload = REF_DECODE[wrapper](data)[0]
    bare = gameanim.load(payload)
    assert bare.compression is None
    assert len(anim.tracks) == len(bare.tracks) > 0
    frames = [0.0, 1.5, anim.frame_count / 2, anim.frame_count]
    assert list(anim.sample(frames)) == list(bare.sample(frames))


@pytest.mark.parametrize("path", WRAPPED, ids=lambda p: p.name)
def test_unedited_wrapped_sample_round_trip_is_byte_exact(path):
    data = path.read_bytes()
    wrapper = path.name.split(".")[-2]
    assert gameanim.load(data).to_bytes() == data
    assert gameanim.load(path).to_bytes(compression=wrapper) == data
    payload = REF_DECODE[wrapper](data)[0]
    bare = gameanim.load(data).to_bytes(compression=None)
    assert bare == payload and bare[:4] == b"J3D1"
    other = "yay0" if wrapper == "yaz0" else "yaz0"
    rewrapped = gameanim.load(data).to_bytes(compression=other)
    assert rewrapped[:4] == other.capitalize().encode()
    assert REF_DECODE[other](rewrapped)[0] == payload


def test_unedited_file_keeps_foreign_compressed_bytes():
    # Data compressed by another encoder (and padded like archive members)
    # saves back to exactly those bytes, not to our re-compression.
    payload = gameanim.load(WRAPPED[0]).to_bytes(compression=None)
    for w in WRAPPERS:
        foreign = REF_ENCODE[w](payload) + bytes(32 - len(REF_ENCODE[w](payload)) % 32)
        anim = gameanim.load(foreign)
        assert anim.compression == w
        assert anim.to_bytes() == foreign
        assert anim.to_bytes(compression=None) == payload


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_edited_wrapped_file_is_recompressed(wrapper):
    path = next(p for p in WRAPPED if p.name.endswith(f".{wrapper}.bck"))
    data = path.read_bytes()
    anim = gameanim.load(data)
    idx = next(i for i, t in enumerate(anim.tracks) if t.channel == "translation" and len(t.values) > 1)
    t = anim.tracks[idx]
    vals = list(t.values)
    vals[1] += 2.5
    t.values = vals
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        out = anim.to_bytes()
        bare = anim.to_bytes(compression=None)
    assert out != data
    assert out[:4] == wrapper.capitalize().encode()
    assert REF_DECODE[wrapper](out)[0] == bare
    assert bare[:4] == b"J3D1"
    again = gameanim.load(out)
    assert again.compression == wrapper
    assert list(again.tracks[idx].values) == list(gameanim.load(bare).tracks[idx].values)
    assert again.tracks[idx].values[1] == pytest.approx(vals[1], abs=1e-3)


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_new_animation_saved_with_a_wrapper(wrapper, tmp_path):
    tracks = [gameanim.Track(0, "translation", 1, [0.0, 10.0], [0.0, 5.0], [0.5, 0.5], [0.5, 0.5])]
    anim = gameanim.Animation("bck", tracks, frame_count=10, loop="loop", compression=wrapper)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        out = anim.to_bytes()
        bare = anim.to_bytes(compression=None)
        gameanim.save(anim, tmp_path / "x.bck")
    assert out[:4] == wrapper.capitalize().encode()
    assert REF_DECODE[wrapper](out)[0] == bare
    assert (tmp_path / "x.bck").read_bytes() == out
    back = gameanim.load(tmp_path / "x.bck")
    assert back.compression == wrapper and back.format == "bck"
    assert list(back.sample([5.0])) == list(gameanim.load(bare).sample([5.0]))


def test_wrappers_are_offered_as_save_options():
    names = gameanim.compressions()
    assert "yaz0" in names and "yay0" in names
    anim = gameanim.load(WRAPPED[0])
    anim.compression = "yay0"
    assert anim.compression == "yay0"
    with pytest.raises(ValueError, match="compression must be None or one of"):
        anim.compression = "yaz1"


# ---------------------------------------------------------------------------
# Other formats in the same wrapper

OTHER_FORMATS = ("bca", "bk", "jba")


@pytest.mark.parametrize("fmt", OTHER_FORMATS)
@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_any_format_can_be_wrapped(fmt, wrapper):
    if gameanim.formats()[fmt]["description"].startswith("(not implemented"):
        pytest.skip(f"the {fmt} codec is still a placeholder")
    payload = None
    for p in sample_paths():
        try:
            anim = gameanim.load(p)
        except gameanim.FormatError:
            continue
        if anim.format == fmt:
            payload = anim.to_bytes(compression=None)
            break
    if payload is None:
        pytest.skip(f"no {fmt} sample yet")
    packed = REF_ENCODE[wrapper](payload)
    anim = gameanim.load(packed)
    assert anim.format == fmt and anim.compression == wrapper
    assert anim.to_bytes() == packed
    assert anim.to_bytes(compression=None) == payload
    assert REF_DECODE[wrapper](gameanim.compress(wrapper, payload))[0] == payload


# ---------------------------------------------------------------------------
# Malformed streams


def yaz0(size, body, reserved=bytes(8)):
    return b"Yaz0" + struct.pack(">I", size) + reserved + bytes(body)


def yay0(size, masks, links, chunks, link_off=None, chunk_off=None):
    m = b"".join(struct.pack(">I", w) for w in masks)
    lk = b"".join(struct.pack(">H", w) for w in links)
    lo = 16 + len(m) if link_off is None else link_off
    co = 16 + len(m) + len(lk) if chunk_off is None else chunk_off
    return b"Yay0" + struct.pack(">III", size, lo, co) + m + lk + bytes(chunks)


def expect_error(wrapper, data, field, offset, text):
    # (gameanim.load falls back to the bare formats when a wrapper fails;
    # the Banjo-Kazooie walk of a short header must not claim it: see
    # docs/formats/yaz0.md)
    calls = [lambda: gameanim.decompress(wrapper, data), lambda: gameanim.load(data)]
    for call in calls:
        with pytest.raises(gameanim.FormatError) as ei:
            call()
        e = ei.value
        assert e.format == wrapper and e.field == field and e.offset == offset, str(e)
        assert text in str(e)
        assert f"offset 0x{offset:x}" in str(e)


def test_hand_made_streams_are_valid_when_intact():
    # the building blocks of the malformed cases below, unbroken
    assert gameanim.decompress("yaz0", yaz0(5, [0b10000000, ord("a"), 0x20, 0x00])) == b"aaaaa"
    assert gameanim.decompress("yaz0", yaz0(0x13, [0b10000000, ord("a"), 0x00, 0x00, 0x00])) == b"a" * 0x13
    assert gameanim.decompress("yay0", yay0(5, [0x80000000], [0x2000], b"a")) == b"aaaaa"
    assert gameanim.decompress("yay0", yay0(0x13, [0x80000000], [0x0000], b"a\x00")) == b"a" * 0x13


MALFORMED_YAZ0 = {
    "short_header": (b"Yaz0\x00\x00\x00\x05", "header", 0, "needs 16 bytes"),
    # 8 bytes that also walk as an empty Banjo-Kazooie file: the wrapper's error wins
    "header_of_8_zero_bytes": (b"Yaz0\x00\x00\x00\x00", "header", 0, "needs 16 bytes"),
    "over_limit": (yaz0(LIMIT + 1, [0xFF] + [0] * 64), "decompressed size", 4, "limit"),
    "impossible_size": (yaz0(1_000_000, [0x80, 1, 0x00, 0x00, 0xFF]), "decompressed size", 4, "cannot come from"),
    "reference_before_start": (yaz0(2, [0x00, 0x10, 0x00]), "back-reference", 17, "before the start"),
    "reference_too_far_back": (yaz0(8, [0x80, ord("a"), 0x20, 0x01]), "back-reference", 18, "before the start"),
    "copy_past_declared_size": (yaz0(4, [0x80, ord("a"), 0xF0, 0x00]), "back-reference", 18, "remain"),
    "long_copy_past_size": (yaz0(20, [0x80, ord("a"), 0x00, 0x00, 0x02]), "back-reference", 18, "remain"),
    "ends_in_literal": (yaz0(10, [0xFF, 1, 2, 3]), "literal byte", 20, "ends after 3 of 10"),
    "ends_before_flag_byte": (yaz0(9, [0xFF] + list(range(8))), "flag byte", 25, "ends after 8 of 9"),
    "ends_in_reference": (yaz0(9, [0x80, ord("a"), 0x30]), "back-reference", 18, "ends inside"),
    "ends_before_length_byte": (yaz0(40, [0x80, ord("a"), 0x00, 0x00]), "back-reference", 18, "length byte"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_YAZ0))
def test_malformed_yaz0_raises_format_error(case):
    data, field, offset, text = MALFORMED_YAZ0[case]
    expect_error("yaz0", data, field, offset, text)


MALFORMED_YAY0 = {
    "short_header": (b"Yay0" + bytes(8), "header", 0, "needs 16 bytes"),
    "header_of_8_zero_bytes": (b"Yay0" + bytes(4), "header", 0, "needs 16 bytes"),
    "over_limit": (yay0(LIMIT + 1, [0], [0] * 32, b""), "decompressed size", 4, "limit"),
    "impossible_size": (yay0(100_000, [0x80000000], [0x0000] * 4, b"a\xff"), "decompressed size", 4,
                        "cannot come from"),
    "link_offset_outside": (yay0(1, [0x80000000], [], b"a", link_off=0x400), "link table offset", 8, "outside"),
    "link_offset_in_header": (yay0(1, [0x80000000], [], b"a", link_off=4), "link table offset", 8, "outside"),
    "data_offset_outside": (yay0(1, [0x80000000], [], b"a", chunk_off=0x400), "data offset", 12, "outside"),
    "reference_before_start": (yay0(3, [0x00000000], [0x1000], b"xx"), "back-reference", 20, "before the start"),
    "copy_past_declared_size": (yay0(4, [0x80000000], [0xF000], b"a"), "back-reference", 20, "remain"),
    "ends_in_flag_stream": (yay0(33, [0xFFFFFFFF], [], bytes(range(33))), "flag word", 20, "ends after 32 of 33"),
    "ends_in_data_stream": (yay0(5, [0xA0000000], [0x1000], b"a"), "literal byte", 23, "ends after 4 of 5"),
    "ends_in_link_stream": (yay0(9, [0x80000000], [0x2000], b"a"), "back-reference", 22,
                            "link stream (0x14..0x16) ends after 5 of 9"),
    "ends_before_length_byte": (yay0(40, [0x80000000], [0x0000], b"a"), "copy length byte", 23, "length"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_YAY0))
def test_malformed_yay0_raises_format_error(case):
    data, field, offset, text = MALFORMED_YAY0[case]
    expect_error("yay0", data, field, offset, text)


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_wrong_payload_is_a_format_error_naming_the_wrapper(wrapper):
    packed = gameanim.compress(wrapper, b"not an animation at all")
    with pytest.raises(gameanim.FormatError, match="not a known animation format") as ei:
        gameanim.load(packed)
    assert ei.value.format == wrapper


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_unknown_wrapper_name_is_a_value_error(wrapper):
    with pytest.raises(ValueError, match="unknown compression"):
        gameanim.compress(wrapper + "x", b"abc")


@pytest.mark.parametrize("path", WRAPPED, ids=lambda p: p.name)
def test_random_mutations_never_crash(path):
    data = path.read_bytes()
    for bad in mutations(data, mutation_count(120), seed=zlib.crc32(path.name.encode())):
        decode_or_format_error(bad)


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_random_streams_decode_or_fail_cleanly(wrapper):
    rng = random.Random(99)
    for i in range(400):
        size = rng.choice([0, 1, 7, 100, 1000, 5000])
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))
        if wrapper == "yaz0":
            data = yaz0(size, body)
        else:
            data = b"Yay0" + struct.pack(">III", size, rng.randrange(16, 16 + len(body) + 1),
                                         rng.randrange(16, 16 + len(body) + 1)) + body
        try:
            out = gameanim.decompress(wrapper, data)
        except gameanim.FormatError as e:
            assert e.format == wrapper and e.offset is not None
            continue
        assert out == REF_DECODE[wrapper](data)[0]
