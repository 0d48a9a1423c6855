#!/usr/bin/env python3
"""Fuzz target: the encoders on user-made tracks.  gameanim.Animation(fmt,
tracks, ...) for each format from tracks that make sense for it (targets of
its kind, its channels, sorted or unsorted times, any values, slopes and
interpolation) and random format parameters, then to_bytes() in each
reencode mode with a random compression and tolerance; each success must
reload and write back byte for byte.  Also compress / decompress of random
data must round-trip (fuzz/python/_fuzzlib.py says what a finding is).
    python3 fuzz/python/fuzz_encode.py -max_total_time=30      (atheris)
    python3 fuzz/python/fuzz_encode.py --plain 300              (no atheris)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _fuzzlib as F  # noqa: E402
import gameanim  # noqa: E402

CHANNELS = {"bck": F.CHANNELS[:3], "btk": F.CHANNELS[:3], "bca": F.CHANNELS[:3], "bk": F.CHANNELS[:3],
            "jba": ("rotation_quaternion", "translation"), "brk": ("color",), "bpk": ("color",),
            "btp": ("texture_index",), "bva": ("visibility",), "j3d_bca": F.CHANNELS[:3]}


def good_track(inp, fmt):
    n = inp.int(0, 12) if inp.byte() % 16 else inp.size(40)
    if fmt == "jba":
        target = inp.choice(("Root", "Spine", "bone_01")) if inp.byte() % 4 else inp.text()
    else:
        target = inp.int(0, 12)
    channel = inp.choice(CHANNELS[fmt])
    axis = inp.int(0, 3 if channel in ("rotation_quaternion", "color") else 0 if channel in (
        "texture_index", "visibility") else 2)
    times = F.sorted_times(inp, n) if inp.byte() % 4 else inp.floats(n)
    if inp.bool():
        values = [inp.int(-1000, 1000) / 64 for _ in range(min(n, 4096))]
    else:
        values = inp.floats(n)
    kw = {}
    if inp.bool():
        kw["in_slopes"] = [inp.int(-100, 100) / 16 for _ in range(min(n, 4096))]
        kw["out_slopes"] = [inp.int(-100, 100) / 16 for _ in range(min(n, 4096))] if inp.bool() else kw["in_slopes"]
    if inp.bool():
        kw["interpolation"] = [inp.int(0, 2) for _ in range(min(n, 4096))]
    return gameanim.Track(target, channel, axis, times, values, **kw)


def body(inp):
    if inp.byte() % 8 == 0:
        name = inp.choice(gameanim.compressions())
        data = inp.take(inp.int(0, 2048))
        packed = gameanim.compress(name, data)
        F.check(gameanim.decompress(name, packed) == data, f"{name}: decompress(compress(x)) != x")
        return
    fmt = inp.choice(F.FORMATS)
    tracks = []
    for _ in range(inp.int(0, 10)):
        try:
            tracks.append(good_track(inp, fmt) if inp.byte() % 8 else inp.track(fmt))
        except F.ALLOWED:
            pass
    kw = {"frame_count": inp.int(0, 100) if inp.byte() % 4 else inp.float()}
    if inp.bool():
        kw["loop"] = inp.choice(gameanim.LOOP_MODES)
    if inp.bool():
        kw["fps"] = inp.choice((30.0, 60.0, 24.0)) if inp.bool() else inp.float()
    if fmt in ("bck", "btk") and inp.bool():
        kw["rotation_frac"] = inp.int(0, 15)
    if fmt == "btk":
        kw["calc_type"] = inp.choice(("basic", "maya"))
        kw["entries"] = [{"material": inp.choice(("m", "mat_01", "")) if inp.bool() else inp.text(),
                          "texmtx_id": inp.int(0, 9), "center": (inp.float(), inp.float(), inp.float()),
                          "post": inp.bool()} for _ in range(inp.int(0, 14))]
    if fmt in ("brk", "bpk", "btp"):
        n = inp.int(0, 14)
        kw["entries"] = [{"material": inp.choice(("m", "mat_01", "")) if inp.bool() else inp.text()} for _ in range(n)]
        for e in kw["entries"]:
            if fmt == "brk":
                e["kind"] = inp.choice(("register", "konst"))
                e["color_id"] = inp.int(0, 3) if inp.bool() else inp.int(-5, 300)
            elif fmt == "btp":
                e["texmap"] = inp.int(0, 7) if inp.bool() else inp.int(-5, 300)
    if fmt in ("bva", "j3d_bca") and inp.bool():
        kw["frame_rule"] = inp.choice(("nearest", "truncate", "lerp"))
    if fmt == "bk" and inp.bool():
        kw["start_frame"] = float(inp.int(0, 100)) if inp.bool() else inp.float()
    if fmt == "jba":
        if inp.bool():
            kw["layout"] = inp.choice((32, 64))
        if inp.bool():
            kw["keyless_rule"] = inp.choice(("base", "base_plus_span"))
    if inp.bool():
        kw["compression"] = inp.choice(tuple(gameanim.compressions()) + (None,))
    anim = gameanim.Animation(fmt, tracks, **kw)
    F.encode_all(anim, inp)


if __name__ == "__main__":
    F.main(body, "fuzz_encode")
