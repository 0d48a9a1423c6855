"""Prints, as one JSON object, everything gameanim computes from the
project's samples and from a few generated animations: whether each file
writes back byte for byte, and SHA-256 digests of sample(), bake_pose(),
the encoders' output (reencode='full', and after an edit) and the model
files' world_matrices().  Run by the Linux build and by another platform's
build (tests/test_cross.py: the Windows one under wine) and the two outputs
must be identical: every computed value bit for bit.

    python value_check.py SAMPLES_DIR

Uses only the standard library and gameanim (on sys.path).  Inputs are
literal numbers (no math.sin etc. of the interpreter's C library)."""
import hashlib
import json
import os
import sys
import warnings

import gameanim

# a rest basis with every kind of entry (rotation, scale, translation), as literals
PRE = [[0.8, -0.6, 0.0, 1.5], [0.48, 0.64, -0.6, -2.0], [0.36, 0.48, 0.8, 0.25], [0.0, 0.0, 0.0, 1.0]]
POST = [[1.0, 0.0, 0.0, 0.0], [0.0, 0.6, -0.8, 0.0], [0.0, 0.8, 0.6, 0.0], [0.0, 0.0, 0.0, 1.0]]


def digest(data):
    if not isinstance(data, bytes):
        data = bytes(memoryview(data).cast("B"))
    return hashlib.sha256(data).hexdigest()


def frames_of(anim):
    fc = float(anim.frame_count)
    n = int((fc + 2.0) / 0.37) + 1
    return [-1.0 + 0.37 * i for i in range(n)] + [float(i) for i in range(int(fc) + 1)]


def attempt(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    except Exception as e:  # the same error on every platform is the same result
        return f"{type(e).__name__}: {e}"


def bake(anim, frames):
    targets = []
    for t in anim.tracks:
        if t.target not in targets:
            targets.append(t.target)
    bones = [(t, PRE, POST if i % 2 else None) for i, t in enumerate(targets)]
    out = gameanim.bake_pose(anim, bones, frames, translation_scale=0.01)
    return digest(b"".join(bytes(memoryview(buf).cast("B")) for bone in out for buf in bone))


def edited(anim):
    a = anim.copy()
    for t in a.tracks:
        if len(t) and t.channel in ("rotation", "translation", "scale"):
            t.values[0] = t.values[0] * 0.75 + 0.125
            break
    return digest(a.to_bytes())


def check_animation(path, raw):
    anim = gameanim.load(raw)
    fr = frames_of(anim)
    return {
        "roundtrip": anim.to_bytes() == raw,
        "sample": digest(anim.sample(fr)),
        "tracks": digest(b"".join(bytes(memoryview(t.evaluate(fr)).cast("B")) for t in anim.tracks)),
        "bake": attempt(lambda: bake(anim, fr[::3])),
        "encode_full": attempt(lambda: digest(anim.to_bytes(reencode="full"))),
        "encode_edit": attempt(lambda: edited(anim)),
    }


def generated():
    """Animations made here: Hermite keys with awkward fractions in every
    channel, encoded and sampled."""
    out = {}
    keys = ([0.0, 7.0, 13.0, 29.0], [0.1, -1.3, 2.7, 0.45], [0.0, 0.31, -0.77, 0.2], [0.5, -0.25, 0.125, 0.0])
    for fmt in ("bck", "bca", "bk", "jba"):
        def make():
            tracks = []
            for target in range(3):
                chans = (("translation", 3), ("rotation_quaternion", 4)) if fmt == "jba" else \
                    (("scale", 3), ("rotation", 3), ("translation", 3))
                for ch, naxes in chans:
                    for axis in range(naxes):
                        k = target * 9 + axis
                        times, values, ins, outs = (list(x) for x in keys)
                        values = [v * (1 + 0.1 * k) + (1.0 if ch == "scale" else 0.0) for v in values]
                        tgt = f"bone{target}" if fmt == "jba" else target + (1 if fmt == "bk" else 0)
                        tracks.append(gameanim.Track(tgt, ch, axis, times, values, ins, outs))
            a = gameanim.Animation(fmt, tracks, frame_count=29.0, fps=30.0 if fmt == "jba" else None)
            data = a.to_bytes()
            b = gameanim.load(data)
            return {"bytes": digest(data), "sample": digest(b.sample(frames_of(b))),
                    "bake": attempt(lambda: bake(b, frames_of(b)[::3]))}
        out[fmt] = attempt(make)
    return out


def check_model(path, raw, anims):
    m = gameanim.load_model(raw)
    res = {"rest": digest(m.world_matrices())}
    for name, data in anims:
        a = attempt(lambda: gameanim.load(data))
        if isinstance(a, str):
            continue
        res[name] = attempt(lambda: digest(m.world_matrices(a, frames_of(a)[::2])))
    return res


def main():
    root = sys.argv[1]
    files = []
    for d, _, names in os.walk(root):
        files += [os.path.join(d, n) for n in names]
    files.sort()
    result = {"animations": {}, "models": {}, "generated": generated()}
    for f in files:
        rel = os.path.relpath(f, root).replace(os.sep, "/")
        with open(f, "rb") as fh:
            raw = fh.read()
        if not isinstance(attempt(lambda: gameanim.detect(raw)), str):
            result["animations"][rel] = attempt(lambda: check_animation(f, raw))
            continue
        if isinstance(attempt(lambda: gameanim.load_model(raw)), str):
            continue
        folder = os.path.dirname(f)
        anims = []
        for g in sorted(os.listdir(folder)):
            p = os.path.join(folder, g)
            if p != f and os.path.isfile(p):
                with open(p, "rb") as fh:
                    anims.append((g, fh.read()))
        result["models"][rel] = attempt(lambda: check_model(f, raw, anims))
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
