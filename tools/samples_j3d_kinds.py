"""Samples of the other J3D kinds (issue 21), made with gameanim's own
encoders: one small file per kind, from integer arithmetic only, so every
machine produces the same bytes.  The BTP sample carries more texture
numbers than its header counts and the J3D BCA sample ends before its
claimed size, quirks real files have (edited at byte level, since the
encoder writes neither)."""
import struct

import gameanim

T = gameanim.Track
UNIT = 3.14159265358979323846 / 32768.0


def brk():
    tracks, entries = [], []
    for e, (name, kind, cid) in enumerate([("body", "register", 1), ("eye", "register", 2), ("glow", "konst", 0)]):
        entries.append({"material": name, "kind": kind, "color_id": cid})
        for a in range(4):
            if a == 3:
                tracks.append(T(e, "color", a, [0], [255], interpolation=gameanim.CONSTANT))
                continue
            peak = (300 + 97 * e + 41 * a) if kind == "register" else 200 + 10 * a  # registers pass 255
            tracks.append(T(e, "color", a, [0, 15, 30], [0, peak, 0], [0, 0, 0], [0, 0, 0] if a else [0, 2, 0],
                            interpolation=gameanim.BEZIER))
    return gameanim.Animation("brk", tracks, frame_count=30, loop="loop", entries=entries).to_bytes()


def bpk():
    tracks = []
    for a in range(4):
        tracks.append(T(0, "color", a, [0, 20], [255, 64 * a], [0, -3], [-3, 0], interpolation=gameanim.BEZIER))
    return gameanim.Animation("bpk", tracks, frame_count=20, loop="once", entries=[{"material": "fade"}]).to_bytes()


def btp():
    blink = [0, 0, 0, 1, 2, 1, 0, 0]
    talk = [3, 4, 5, 4, 3]
    tracks = [T(0, "texture_index", 0, range(len(blink)), blink, interpolation=gameanim.CONSTANT),
              T(1, "texture_index", 0, range(len(talk)), talk, interpolation=gameanim.CONSTANT)]
    entries = [{"material": "eyeL", "texmap": 0}, {"material": "mouth", "texmap": 1}]
    data = bytearray(gameanim.Animation("btp", tracks, frame_count=8, loop="loop", entries=entries).to_bytes())
    # the header counts two texture numbers fewer than the table holds
    count_at = 0x20 + 0x0E
    struct.pack_into(">H", data, count_at, struct.unpack_from(">H", data, count_at)[0] - 2)
    return bytes(data)


def bva():
    shows = [[1] * 10, [1, 1, 1, 0, 0, 0, 0, 1, 1, 1], [0] * 5 + [1] * 5]
    tracks = [T(i, "visibility", 0, range(len(s)), s, interpolation=gameanim.CONSTANT) for i, s in enumerate(shows)]
    return gameanim.Animation("bva", tracks, frame_count=10, loop="loop").to_bytes()


def j3d_bca():
    n = 12
    tracks = []
    for j in range(2):
        rot = [((k * 2731 * (j + 1)) % 65536 - 32768) * UNIT for k in range(n)]
        tracks.append(T(j, "rotation", 1, range(n), rot, interpolation=gameanim.CONSTANT))
        tracks.append(T(j, "translation", 2, range(n), [k * 0.5 for k in range(n)], interpolation=gameanim.CONSTANT))
        tracks.append(T(j, "scale", 0, [0], [1.0], interpolation=gameanim.CONSTANT))
    data = gameanim.Animation("j3d_bca", tracks, frame_count=n, loop="loop").to_bytes()
    # ends 8 bytes (of table padding) before the size its header claims
    return data[:-8]


def generate():
    return {
        "j3d/tev_pulse.brk": brk(),
        "j3d/material_fade.bpk": bpk(),
        "j3d/eye_mouth.btp": btp(),
        "j3d/parts_blink.bva": bva(),
        "j3d/kart_object.bca": j3d_bca(),
    }
