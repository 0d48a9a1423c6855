"""The 'lz77' wrapper: the "LZ77" tag + Nintendo LZ10 stream of SM64DS.

Compressed output is checked with two decompressors written here, not the
C one: a plain LZ10 decoder, and an emulation of the game's DecompressLZ16
(tangosdev/sm64ds-decomp src/DecompressLZ16.c), which writes 16 bits at a
time and reads back-references as halfwords from the destination.
"""
import random
import struct

import pytest

import gameanim


def lz10_tokens(blob):
    """Parses a tagged stream: returns (size, tokens, stream end) where a
    token is ('lit', byte) or ('ref', length, distance)."""
    assert blob[:4] == b"LZ77" and blob[4] == 0x10
    size = blob[5] | blob[6] << 8 | blob[7] << 16
    ip, produced, tokens = 8, 0, []
    while produced < size:
        flags = blob[ip]
        ip += 1
        for bit in range(8):
            if produced >= size:
                break
            if flags & (0x80 >> bit):
                b0, b1 = blob[ip], blob[ip + 1]
                ip += 2
                length, dist = (b0 >> 4) + 3, ((b0 & 0xF) << 8 | b1) + 1
                tokens.append(("ref", length, dist))
                produced += length
            else:
                tokens.append(("lit", blob[ip]))
                ip += 1
                produced += 1
    return size, tokens, ip


def lz10_decompress(blob):
    size, tokens, _ = lz10_tokens(blob)
    out = bytearray()
    for t in tokens:
        if t[0] == "lit":
            out.append(t[1])
        else:
            assert t[2] <= len(out), "back-reference before the start"
            for _ in range(t[1]):
                out.append(out[-t[2]])
    assert len(out) == size
    return bytes(out)


def game_decompress16(blob, seed=0):
    """Follows DecompressLZ16 register by register: bytes are gathered in
    pairs and stored as halfwords; a reference reads the halfword holding
    its source byte from the destination, which starts out as garbage.
    An odd final byte is never stored (the routine's own behaviour)."""
    assert blob[:4] == b"LZ77"
    src = blob[4:]
    remaining = struct.unpack_from("<I", src)[0] >> 8
    size = remaining
    rng = random.Random(seed)
    mem = bytearray(rng.randrange(256) for _ in range(size + 4))
    r1 = 0  # next halfword to store
    r3 = 0  # pending low byte
    r2 = 0  # 0 or 8: bit position of the next byte in r3
    ip = 4

    def put(byte):
        nonlocal r3, r2, r1
        r3 |= byte << r2
        r2 ^= 8
        if r2 == 0:
            mem[r1], mem[r1 + 1] = r3 & 0xFF, r3 >> 8
            r1 += 2
            r3 = 0

    while remaining > 0:
        flags = src[ip]
        ip += 1
        for _ in range(8):
            if flags & 0x80 == 0:
                put(src[ip])
                ip += 1
                remaining -= 1
            else:
                length = (src[ip] >> 4) + 3
                dist = ((src[ip] & 0xF) << 8 | src[ip + 1]) + 1
                ip += 2
                remaining -= length
                lane = (8 - r2) ^ ((dist & 1) << 3)
                for _ in range(length):
                    lane ^= 8
                    back = ((dist + ((8 - r2) >> 3)) >> 1) << 1
                    half = mem[r1 - back] | mem[r1 - back + 1] << 8
                    put((half >> lane) & 0xFF)
            if remaining <= 0:
                break
            flags <<= 1
    return bytes(mem[:size])


def check_compressed(data, blob):
    assert blob[:5] == b"LZ77\x10"
    assert len(blob) % 4 == 0, "the tagged file is padded to 4 bytes"
    size, tokens, end = lz10_tokens(blob)
    assert size == len(data)
    assert set(blob[end:]) <= {0}, "padding is zeros"
    assert len(blob) - end < 4
    assert all(t[2] >= 2 for t in tokens if t[0] == "ref"), "distance 1 breaks the game's 16-bit decompressor"
    assert all(3 <= t[1] <= 18 and t[2] <= 4096 for t in tokens if t[0] == "ref")
    assert lz10_decompress(blob) == data
    game = game_decompress16(blob)
    if len(data) % 2:
        assert game[:-1] == data[:-1]
    else:
        assert game == data
    assert gameanim.decompress("lz77", blob) == data
    return tokens


def _random(n, seed):
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(n))


def _texty(n, seed):
    rng = random.Random(seed)
    words = [b"bone", b"frame", b"\x00\x10\x00\x00", b"\xff\xff", b"rotation", b"LZ77"]
    out = bytearray()
    while len(out) < n:
        out += rng.choice(words) if rng.random() < 0.7 else bytes([rng.randrange(256)])
    return bytes(out[:n])


@pytest.mark.parametrize("size", [0, 1, 2, 3, 17, 18, 19, 255, 4096, 4097, 20000])
@pytest.mark.parametrize("kind", ["random", "texty"])
def test_round_trip(size, kind):
    data = (_random if kind == "random" else _texty)(size, size * 7 + len(kind))
    check_compressed(data, gameanim.compress("lz77", data))


def test_round_trip_many_random_sizes():
    rng = random.Random(1234)
    for i in range(200):
        n = rng.randrange(0, 600)
        alphabet = rng.randrange(1, 257)
        data = bytes(rng.randrange(alphabet) for _ in range(n))
        check_compressed(data, gameanim.compress("lz77", data))


def test_long_runs_use_distance_two_and_max_length():
    for data in (b"\x00" * 100000, b"\xAB" * 4097, b"xy" * 5000):
        blob = gameanim.compress("lz77", data)
        tokens = check_compressed(data, blob)
        refs = [t for t in tokens if t[0] == "ref"]
        assert refs and all(t[1] == 18 for t in refs[:-1]), "runs compress with maximum-length copies"
        assert len(blob) < len(data) // 8


def test_no_matches_stays_literal():
    # A de Bruijn-like sequence: no 3-byte string repeats.
    seen, data = set(), bytearray(b"\x00\x00")
    rng = random.Random(5)
    while len(data) < 3000:
        for _ in range(256):
            c = rng.randrange(256)
            if (data[-2], data[-1], c) not in seen:
                break
        else:
            break
        seen.add((data[-2], data[-1], c))
        data.append(c)
    data = bytes(data)
    blob = gameanim.compress("lz77", data)
    tokens = check_compressed(data, blob)
    assert all(t[0] == "lit" for t in tokens)
    assert len(blob) == (8 + len(data) + (len(data) + 7) // 8 + 3) // 4 * 4


def test_max_distance_4096_is_used():
    head = _random(18, 99)
    data = head + _random(4096 - 18, 100) + head
    tokens = check_compressed(data, gameanim.compress("lz77", data))
    assert ("ref", 18, 4096) in tokens
    # one byte further and the repeat is out of reach
    data = head + _random(4097 - 18, 100) + head
    tokens = check_compressed(data, gameanim.compress("lz77", data))
    assert all(t[2] <= 4096 for t in tokens if t[0] == "ref")
    assert tokens[-18:] == [("lit", b) for b in head]


def test_distance_one_is_never_emitted_but_accepted_on_input():
    data = b"a" + b"b" * 50
    tokens = check_compressed(data, gameanim.compress("lz77", data))
    assert ("ref", 18, 1) not in tokens
    # A stream that does use distance 1 decodes with the usual LZ10 meaning.
    blob = b"LZ77\x10" + (10).to_bytes(3, "little") + bytes([0b01000000, ord("a"), 0x50, 0x00, ord("z")])
    assert gameanim.decompress("lz77", blob) == b"a" * 9 + b"z"


def test_output_is_deterministic():
    data = _texty(50000, 3)
    assert gameanim.compress("lz77", data) == gameanim.compress("lz77", data)


def test_trailing_bytes_after_stream_are_allowed():
    blob = gameanim.compress("lz77", b"hello hello hello")
    assert gameanim.decompress("lz77", blob + b"\x00" * 12 + b"junk") == b"hello hello hello"


def _err(blob):
    with pytest.raises(gameanim.FormatError) as e:
        gameanim.decompress("lz77", blob)
    assert e.value.format == "lz77"
    return e.value


def test_missing_tag_and_wrong_type():
    e = _err(b"\x10\x04\x00\x00abcd")
    assert "'LZ77' tag" in str(e) and e.offset == 0
    e = _err(b"LZ77\x11\x04\x00\x00\x00abcd")
    assert e.field == "type" and e.offset == 4 and "0x11" in str(e)
    e = _err(b"LZ77\x10\x04")
    assert e.field == "header"


def test_reference_before_start():
    # literal 'a', then a reference 2 bytes back
    e = _err(b"LZ77\x10\x05\x00\x00" + bytes([0x40, ord("a"), 0x00, 0x01]))
    assert e.field == "back-reference" and e.offset == 10
    assert "before the start" in str(e)


def test_stream_ends_early():
    blob = gameanim.compress("lz77", _random(100, 1))
    _, _, end = lz10_tokens(blob)
    e = _err(blob[: end - 1])
    assert e.offset == end - 1 and "ends" in str(e)
    e = _err(b"LZ77\x10\x05\x00\x00" + bytes([0x00]) + b"abc")
    assert e.offset == 12 and "3 of the 5" in str(e)
    e = _err(b"LZ77\x10\x09\x00\x00" + bytes([0x08]) + b"abcd" + b"\x10")
    assert e.field == "back-reference" and "inside a back-reference" in str(e)


def test_reference_past_declared_size():
    e = _err(b"LZ77\x10\x05\x00\x00" + bytes([0x20, ord("a"), ord("b"), 0x10, 0x01]))
    assert e.field == "back-reference" and "only 3 remain" in str(e)


def test_declared_size_beyond_expansion_is_refused_before_allocating():
    # 12 bytes claiming 16 MiB: refused by the expansion bound, not by
    # running out of stream (which would mean the output was allocated).
    e = _err(b"LZ77\x10\xFF\xFF\xFF" + b"\x00" * 4)
    assert e.field == "decompressed size" and e.offset == 5
    assert "at most 36" in str(e)
    with pytest.raises(gameanim.FormatError) as e2:
        gameanim.load(b"LZ77\x10\xFF\xFF\xFF" + b"\xFF" * 8)
    assert "at most" in str(e2.value)
    # exactly at the bound is allowed: 2 bytes can make 18
    assert gameanim.decompress("lz77", b"LZ77\x10\x02\x00\x00\x00ab") == b"ab"


def test_too_large_to_compress():
    with pytest.raises(gameanim.EncodeError) as e:
        gameanim.compress("lz77", bytes(0x1000000))
    assert "16777215" in str(e.value)


def test_empty_payload():
    blob = gameanim.compress("lz77", b"")
    assert blob == b"LZ77\x10\x00\x00\x00"
    assert gameanim.decompress("lz77", blob) == b""
