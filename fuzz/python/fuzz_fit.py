#!/usr/bin/env python3
"""Fuzz target: the fitter, Track.fit(tolerance, use_slopes=...), on random
tracks with random tolerances.  On well-behaved input (finite, increasing
times, moderate values, a reasonable tolerance) the fitted curve must pass
within the tolerance of every sample, keep the first and last key and the
target / channel / axis; the fitted track must then encode (bck, bk, jba)
and reload (fuzz/python/_fuzzlib.py says what a finding is).
    python3 fuzz/python/fuzz_fit.py -max_total_time=30      (atheris)
    python3 fuzz/python/fuzz_fit.py --plain 300              (no atheris)
"""
import array
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _fuzzlib as F  # noqa: E402
import gameanim  # noqa: E402


def body(inp):
    if inp.bool():
        # a baked-like track: increasing times, a smooth or noisy signal
        n = inp.int(1, 300)
        step = inp.choice((1.0, 0.5, 2.0, 0.25, 1 / 3))
        times = [i * step for i in range(n)]
        a, b, c = (inp.int(-100, 100) / 10 for _ in range(3))
        noise = [inp.int(-128, 127) / inp.choice((1e2, 1e3, 1e5)) for _ in range(min(n, 64))]
        values = [a * math.sin(t / (1 + abs(b))) + c * t / n + noise[i % len(noise)] for i, t in enumerate(times)]
        kw = {}
        if inp.bool():
            kw = {"in_slopes": [a * math.cos(t) for t in times], "out_slopes": [a * math.cos(t) for t in times]}
        t = gameanim.Track(inp.int(0, 20), inp.choice(F.CHANNELS[:3]), inp.int(0, 2), times, values, **kw)
    else:
        t = inp.track()
    tol = inp.choice((1e-4, 1e-3, 1e-2, 0.1, 1.0)) if inp.bool() else inp.float()
    use_slopes = inp.bool()
    fitted = t.fit(tol, use_slopes=use_slopes)
    F.check(isinstance(fitted, gameanim.Track), "fit() returned no Track")
    F.check((fitted.target, fitted.channel, fitted.axis) == (t.target, t.channel, t.axis), "fit() changed the target")
    F.check(len(fitted) <= max(len(t), 2), f"fit() made {len(fitted)} keys of {len(t)}")
    times, values = list(t.times), list(t.values)
    well = (len(times) >= 1 and all(math.isfinite(x) for x in times + values)
            and all(0.01 <= b - a <= 1e4 for a, b in zip(times, times[1:]))
            and all(abs(v) <= 1e3 for v in values) and math.isfinite(tol) and 1e-4 <= tol <= 100
            and not use_slopes)
    if well:
        F.check(fitted.times[0] == times[0] and fitted.times[-1] == times[-1], "fit() moved the end keys")
        got = fitted.evaluate(array.array("f", times))
        worst = max(abs(g - v) for g, v in zip(got, values))
        F.check(worst <= tol * 1.01 + 1e-4 * (1 + max(abs(v) for v in values)),
                f"fit({tol}) misses a sample by {worst}")
    fmt = inp.choice(("bck", "bk", "jba"))
    if fmt == "jba" and isinstance(fitted.target, int):
        fitted.target = "bone"
    anim = gameanim.Animation(fmt, [fitted], frame_count=max(times) if times and math.isfinite(max(times)) else 0)
    F.encode_all(anim, inp)


if __name__ == "__main__":
    F.main(body, "fuzz_fit")
