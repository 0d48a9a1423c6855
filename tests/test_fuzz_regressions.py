"""Every input kept in tests/fuzz_regressions/ still behaves."""
import warnings

import pytest

import gameanim
from conftest import ROOT, decode_or_format_error

CASES = sorted(p for p in (ROOT / "tests" / "fuzz_regressions").iterdir() if p.name != "README.md")


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_regression_input(path):
    data = path.read_bytes()
    if decode_or_format_error(data):
        anim = gameanim.load(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                again = gameanim.load(anim.to_bytes(reencode="full"))
            except gameanim.EncodeError:
                return
        frames = [0.0, 0.5, 1.0, anim.frame_count]
        a, b = anim.sample(frames), again.sample(frames)
        assert len(a) == len(b)
