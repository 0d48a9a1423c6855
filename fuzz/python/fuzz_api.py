#!/usr/bin/env python3
"""Fuzz target: the Python layer.  Names (track targets, BTK material
names), info dicts, Track construction from random arguments, edits of a
loaded or made-up Animation (key arrays, target / channel / axis, entries,
format parameters, loop, frame_count, fps, the track list), then to_bytes()
in each reencode mode and a reload (fuzz/python/_fuzzlib.py says what a
finding is).
    python3 fuzz/python/fuzz_api.py -max_total_time=30      (atheris)
    python3 fuzz/python/fuzz_api.py --plain 300              (no atheris)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _fuzzlib as F  # noqa: E402
import gameanim  # noqa: E402

SAMPLES = F.samples()
PARAMS = {
    "rotation_frac": lambda i: i.int(-1, 17) if i.bool() else i.choice((None, i.any_int(), 1.5, "3")),
    "calc_type": lambda i: i.choice(("basic", "maya", None, "", "Maya", 1)),
    "start_frame": lambda i: i.float() if i.bool() else i.choice((None, "0", 2**70)),
    "layout": lambda i: i.choice((32, 64, 0, 16, -32, None, 2**64, "32", 32.0)),
    "keyless_rule": lambda i: i.choice(("base", "base_plus_span", None, "", "span", 0)),
    "loop": lambda i: i.choice(gameanim.LOOP_MODES + (None, "forever", "", 2, "loop\0")),
    "frame_count": lambda i: i.float() if i.bool() else i.choice((0, -1, 2**40, None, "1")),
    "fps": lambda i: i.float() if i.bool() else i.choice((None, 0, 30, -30, "30")),
    "compression": lambda i: i.choice((None, "yaz0", "yay0", "lz77", "rarezip", "zip", "", "YAZ0")),
}


def entry(inp):
    k = inp.byte() % 16
    if k == 15:
        return inp.choice((None, "m", {"material": 5}, {"material": b"m"}, {}, {"texmtx_id": 1}, [("material", "m")]))
    d = {"material": inp.text()}
    if inp.bool():
        d["texmtx_id"] = inp.int(0, 20) if inp.bool() else inp.any_int()
    if inp.bool():
        d["center"] = tuple(inp.float() for _ in range(inp.choice((3, 3, 3, 2, 4))))
    if inp.bool():
        d["post"] = inp.choice((True, False, 0, 1, None, "yes"))
    return d


def check_names(anim):
    for t in anim.tracks:
        check_type = isinstance(t.target, (int, str))
        F.check(check_type, f"a track target of type {type(t.target).__name__}")


def check_info(anim):
    info = anim.info
    F.check(isinstance(info, dict), "info is not a dict")
    for k, v in info.items():
        F.check(isinstance(k, str), f"info key {k!r} is not str")
        F.check(isinstance(v, (int, float, str, bytes, type(None), tuple, list, bool)), f"info[{k!r}] is {type(v).__name__}")
    info["__fuzz__"] = 1
    F.check("__fuzz__" not in anim.info, "info is not a copy")


def edit_track(inp, t, fmt):
    n = len(t.times)
    k = inp.byte() % 12
    if k == 0:
        name = F.choice_attr(inp)
        value = inp.floats(n if inp.bool() else inp.size(6)) if name != "interpolation" else inp.codes(n)
        setattr(t, name, value)
        # what was stored reads back as a float32 / byte array of the same length
        got = getattr(t, name)
        F.check(got.typecode == ("B" if name == "interpolation" else "f"), f"{name} typecode {got.typecode}")
    elif k == 1:
        new = inp.target(fmt)
        t.target = new
        F.check(t.target == new and type(t.target) is type(new) or isinstance(new, bool),
                f"target {new!r} reads back as {t.target!r}")
    elif k == 2:
        t.channel = inp.choice(F.CHANNELS) if inp.byte() % 8 else inp.text()
    elif k == 3:
        t.axis = inp.int(-1, 4) if inp.bool() else inp.any_int()
    elif k == 4:
        getattr(t, F.choice_attr(inp)).append(inp.float())  # lengths disagree until use
    elif k == 5 and n:
        arr = getattr(t, F.choice_attr(inp))
        if len(arr):
            arr[inp.int(0, len(arr) - 1)] = inp.float() if arr.typecode == "f" else inp.int(0, 255)
    elif k == 6:
        del getattr(t, F.choice_attr(inp))[: inp.int(0, 2)]
    elif k == 7:
        t.evaluate(inp.floats(inp.size(4)) if inp.bool() else inp.float())
    elif k == 8:
        t.bezier(inp.float(), inp.float(), inp.float(), inp.float(), flags=inp.bool())
    elif k == 9:
        c = t.copy()
        F.check(len(c) == len(t) and c.channel == t.channel and c.axis == t.axis, "copy differs")
    else:
        setattr(t, inp.choice(("times", "values")), F.sorted_times(inp, n))


def body(inp):
    # 1. a Track from random arguments
    if inp.bool():
        t = None
        try:
            t = inp.track()
        except F.ALLOWED:
            pass
        if t is not None:
            F.check(isinstance(t.target, (int, str)), "a Track target of another type")
            repr(t)
            len(t)
    # 2. an Animation: a small sample, or made up
    if inp.bool() and SAMPLES:
        anim = gameanim.load(inp.choice(SAMPLES), keyless_rule=inp.choice(("base", "base_plus_span", None)))
        check_info(anim)
        F.check(not anim.is_modified(), "a loaded sample counts as modified")
    else:
        fmt = inp.choice(F.FORMATS)
        tracks = []
        for _ in range(inp.int(0, 6)):
            try:
                tracks.append(inp.track(fmt))
            except F.ALLOWED:
                pass
        kw = {}
        for name, gen in PARAMS.items():
            if inp.byte() % 4 == 0:
                kw[name] = gen(inp)
        if fmt == "btk" or inp.byte() % 8 == 0:
            kw["entries"] = [entry(inp) for _ in range(inp.int(0, 4))]
        anim = gameanim.Animation(fmt, tracks, **kw)
        F.check(anim.info == {}, "a made-up animation has info")
    fmt = anim.format
    # 3. edits
    for _ in range(inp.int(0, 8)):
        k = inp.byte() % 8
        try:
            if k < 3 and anim.tracks:
                edit_track(inp, inp.choice(anim.tracks), fmt)
            elif k == 3:
                name = inp.choice(list(PARAMS))
                setattr(anim, name, PARAMS[name](inp))
            elif k == 4:
                anim.entries = [entry(inp) for _ in range(inp.int(0, 4))]
            elif k == 5:
                tr = anim.tracks
                if tr and inp.bool():
                    del tr[inp.int(0, len(tr) - 1)]
                else:
                    tr.append(inp.track(fmt))
                if inp.byte() % 4 == 0:
                    tr = tr + tr[:1]  # a duplicate
                anim.tracks = tr
            elif k == 6:
                anim.sample(inp.floats(inp.size(4)) if inp.bool() else inp.float())
            else:
                anim.find(inp.target(fmt), inp.choice(F.CHANNELS), inp.int(0, 3))
        except F.ALLOWED:
            pass
    check_names(anim)
    check_info(anim)
    anim.copy()
    anim.encode_report
    # 4. encode in each mode; every success reloads and round-trips
    for again in F.encode_all(anim, inp):
        names = {t.target for t in anim.tracks if isinstance(t.target, str)}
        for t in again.tracks:
            if isinstance(t.target, str) and t.target != "__root_motion__":  # JBA: the trajectory
                F.check(t.target in names, f"bone name {t.target!r} was not in the written tracks")
        # entries are kept as given and checked when written: a file that
        # was written had a dict with a str material in each
        # (compared as the stored bytes: two texts may store the same bytes,
        # e.g. '\udc80' kept through surrogateescape and '\x80', which is
        # what cp932 reads those bytes back as)
        materials = {stored_name(e["material"]) for e in anim.entries}
        for e in again.entries:
            # (BTK, BRK, BPK, BTP entries)
            F.check(set(e) in ({"material", "texmtx_id", "center", "post"}, {"material", "kind", "color_id"},
                               {"material"}, {"material", "texmap"}), f"entry keys {sorted(e)}")
            F.check(stored_name(e["material"]) in materials,
                    f"material {e['material']!r} was not in the written entries")


def stored_name(text, codec="cp932"):
    """A J3D name's bytes as the encoder stores them."""
    return text.encode(codec, "surrogateescape")


if __name__ == "__main__":
    F.main(body, "fuzz_api")
