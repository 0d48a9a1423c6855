"""Shared test helpers: sample paths and input mutation for robustness tests."""
import os
import random
import struct
from pathlib import Path

import pytest

import gameanim

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def is_model_sample(p):
    """Under samples/models/: a model with its animations (the model files
    are not animations; tests/test_model_samples.py covers the folder)."""
    return "models" in p.relative_to(SAMPLES).parts


def sample_paths(*exts):
    """Animation sample files whose name ends with one of exts (all if none);
    samples/models/ is left out (is_model_sample)."""
    files = sorted(p for p in SAMPLES.rglob("*") if p.is_file() and not p.name.startswith(".")
                   and not is_model_sample(p))
    if exts:
        files = [p for p in files if any(p.name.endswith(e) for e in exts)]
    return files


def mutations(data, count, seed):
    """Yields `count` damaged copies of data: truncations, flipped bits,
    overwritten bytes, huge count-like values, insertions and deletions."""
    rng = random.Random(seed)
    n = len(data)
    for i in range(count):
        b = bytearray(data)
        kind = i % 6
        if kind == 0 and n:
            b = b[: rng.randrange(n)]
        elif kind == 1 and n:
            for _ in range(rng.randint(1, 4)):
                p = rng.randrange(n)
                b[p] ^= 1 << rng.randrange(8)
        elif kind == 2 and n:
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(n)] = rng.randrange(256)
        elif kind == 3 and n >= 4:
            p = rng.randrange(n - 3) & ~1
            big = rng.choice([0xFFFF, 0x7FFF, 0x8000, 0xFFFFFFFF, 0x7FFFFFFF, 0x10000, len(data) * 4])
            if rng.random() < 0.5:
                b[p : p + 2] = struct.pack(">H", big & 0xFFFF)
            else:
                b[p : p + 4] = struct.pack(">I", big & 0xFFFFFFFF)
        elif kind == 4:
            p = rng.randrange(n + 1)
            b[p:p] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif n:
            p = rng.randrange(n)
            del b[p : p + rng.randint(1, 16)]
        yield bytes(b)


def decode_or_format_error(data):
    """Loads damaged data: it must either decode (and then sample and encode
    without crashing) or raise gameanim.FormatError.  Returns True if it
    decoded."""
    try:
        anim = gameanim.load(data)
    except gameanim.FormatError as e:
        assert str(e), "FormatError without a message"
        return False
    anim.sample([0.0, 0.5, 1.0, anim.frame_count])
    assert anim.to_bytes() == data or anim.to_bytes(compression=None)
    return True


@pytest.fixture
def tmp_dir(tmp_path):
    return tmp_path


def mutation_count(default):
    """How many mutations per sample (GAMEANIM_MUTATIONS overrides)."""
    return int(os.environ.get("GAMEANIM_MUTATIONS", default))
