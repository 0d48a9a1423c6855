"""Yaz0- and Yay0-wrapped BCK/BTK samples (issue 11).

The animations are built here with gameanim.Animation/Track (values from
integer arithmetic only, so every machine produces the same bytes) and
wrapped with the project's own Yaz0 and Yay0 encoders.  `large_bck()` is
the large synthetic animation the tests and bench/bench_compression.py use.
"""
import warnings

import gameanim

T = gameanim.Track
PI = 3.141592653589793


class Lcg:
    """Deterministic pseudo-random integers (Numerical Recipes constants)."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def next(self, n):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return (self.state >> 8) % n


def rot_unit(frac):
    return (PI / 32768.0) * (1 << frac)


def tri(t, period, amp):
    """Triangle wave in [-amp, amp] from integer frame t (exact arithmetic)."""
    p = t % period
    half = period // 2
    x = p if p <= half else period - p  # 0..half
    return amp * (2 * x - half) / half


def encode(anim):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        return anim.to_bytes(compression=None)


def baked_track(target, channel, axis, frames, step, fn):
    """Keys every `step` frames with slopes from neighbouring differences,
    the way exporters bake curves."""
    times = list(range(0, frames + 1, step))
    if times[-1] != frames:
        times.append(frames)
    vals = [fn(t) for t in times]
    slopes = []
    for i in range(len(times)):
        a, b = max(i - 1, 0), min(i + 1, len(times) - 1)
        slopes.append((vals[b] - vals[a]) / (times[b] - times[a]) if b > a else 0.0)
    return T(target, channel, axis, [float(t) for t in times], vals, slopes, slopes,
             interpolation=gameanim.BEZIER)


def walk_cycle():
    """8 joints, 32 frames, keys every 2 frames on the limbs."""
    frac = 1
    u = rot_unit(frac)
    frames = 32
    tracks = []
    for j in range(8):
        for ch in ("scale", "rotation", "translation"):
            for a in range(3):
                if ch == "scale":
                    tracks.append(T(j, ch, a, [0.0], [1.0], interpolation=gameanim.CONSTANT))
                elif ch == "rotation" and a == (j % 3) and j > 0:
                    amp = 2000 * (1 + j % 4)
                    tracks.append(baked_track(j, ch, a, frames, 2,
                                              lambda t, amp=amp, j=j: round(tri(t + 4 * j, frames, amp)) * u))
                elif ch == "translation" and j == 0 and a == 1:
                    tracks.append(baked_track(j, ch, a, frames, 2, lambda t: 40.0 + tri(t, frames // 2, 3.0)))
                elif ch == "translation":
                    tracks.append(T(j, ch, a, [0.0], [float(10 * j if a == 0 else 0)],
                                    interpolation=gameanim.CONSTANT))
                else:
                    tracks.append(T(j, ch, a, [0.0], [0.0], interpolation=gameanim.CONSTANT))
    return encode(gameanim.Animation("bck", tracks, frame_count=frames, loop="loop", rotation_frac=frac))


def dance(joints=8, frames=48, seed=0xDA7CE, step=1):
    """8 joints x 48 frames, keys on every frame for most channels (the
    shape of a baked export, which is what Yaz0 usually wraps).  Kept small:
    the robustness tests flip every byte of every sample."""
    rng = Lcg(seed)
    frac = 1
    u = rot_unit(frac)
    tracks = []
    for j in range(joints):
        for ch in ("scale", "rotation", "translation"):
            for a in range(3):
                kind = rng.next(4)
                if ch == "scale" or kind == 0:
                    v = 1.0 if ch == "scale" else 0.0
                    tracks.append(T(j, ch, a, [0.0], [v], interpolation=gameanim.CONSTANT))
                    continue
                period = 8 * (2 + rng.next(6))
                amp = 500 + rng.next(8000)
                phase = rng.next(period)
                if ch == "rotation":
                    fn = lambda t, p=period, A=amp, ph=phase: round(tri(t + ph, p, A)) * u
                else:
                    fn = lambda t, p=period, A=amp, ph=phase: tri(t + ph, p, A / 256.0)
                tracks.append(baked_track(j, ch, a, frames, step, fn))
    return encode(gameanim.Animation("bck", tracks, frame_count=frames, loop="loop", rotation_frac=frac))


def water_scroll():
    """BTK: three texture matrices scrolling and pulsing over 90 frames."""
    u = rot_unit(0)
    frames = 90
    entries = [
        {"material": "water_surface", "texmtx_id": 0, "center": (0.5, 0.5, 0.5)},
        {"material": "water_surface", "texmtx_id": 1, "center": (0.5, 0.5, 0.5)},
        {"material": "waterfall", "texmtx_id": 0, "center": (0.5, 0.5, 0.5)},
    ]
    tracks = []
    for e in range(3):
        for ch in ("scale", "rotation", "translation"):
            for a in range(3):
                if ch == "translation" and a < 2:
                    speed = (e + 1) * (1 if a == 0 else -1)
                    tracks.append(T(e, ch, a, [0.0, float(frames)], [0.0, speed * 1.0],
                                    [speed / frames] * 2, [speed / frames] * 2, interpolation=gameanim.BEZIER))
                elif ch == "scale" and a < 2 and e == 2:
                    tracks.append(baked_track(e, ch, a, frames, 3, lambda t: 1.0 + tri(t, 30, 0.25)))
                elif ch == "rotation" and a == 2 and e == 1:
                    tracks.append(baked_track(e, ch, a, frames, 5, lambda t: round(tri(t, 90, 4096)) * u))
                else:
                    tracks.append(T(e, ch, a, [0.0], [1.0 if ch == "scale" else 0.0],
                                    interpolation=gameanim.CONSTANT))
    return encode(gameanim.Animation("btk", tracks, frame_count=frames, loop="loop", entries=entries,
                                     calc_type="maya", rotation_frac=0))


def large_bck(joints=50, frames=600, seed=0x1A26E):
    """The large synthetic animation (about 300 KB of BCK): 50 joints x 600
    frames with a key every 4 frames (a u16 value-table index keeps a BCK
    under about 650 KB)."""
    return dance(joints=joints, frames=frames, seed=seed, step=4)


def bare_animations():
    """{name with extension: bare file bytes} for the wrapped samples."""
    return {
        "walk_cycle.bck": walk_cycle(),
        "dance_8x48.bck": dance(),
        "water_scroll.btk": water_scroll(),
    }


def generate():
    files = {}
    for name, data in bare_animations().items():
        stem, ext = name.rsplit(".", 1)
        files[f"j3d/{name}"] = data  # the bare file the wrapped copies hold
        for wrapper in ("yaz0", "yay0"):
            files[f"j3d/{stem}.{wrapper}.{ext}"] = gameanim.compress(wrapper, data)
    return files
