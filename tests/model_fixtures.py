"""The joint-matrix tests' and benchmark's inputs: models written by the
project's writer (tools/make_models.py) from the dicts the tests and
tests/model_reference.py share, and random keyed BCK tracks."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))

import make_models  # noqa: E402


def j3d_bytes(joints, rule, remap=None):
    """A J3D BMD.  joints: dicts with parent, scale, rot (s16), trans and
    ssc (the stored scale-compensate byte, default 0); remap: joint ->
    record."""
    records = [make_models.joint(f"j{i}", scale=j["scale"], rotation_raw=j["rot"], translation=j["trans"],
                                 scale_compensate=j.get("ssc", 0)) for i, j in enumerate(joints)]
    return make_models.write_j3d_model(records, [j["parent"] for j in joints], calc=rule, remap=remap)


def sm64ds_bytes(bones):
    """An SM64DS BMD bone table: bones with parent (an earlier index or
    -1), scale_fixed and trans_fixed (20.12) and rot (4096 per turn)."""
    return make_models.write_sm64ds_bmd([
        make_models.sm64ds_bone(f"b{i}", b["parent"], scale_fixed=b["scale_fixed"], rotation_raw=b["rot"],
                                translation_fixed=b["trans_fixed"]) for i, b in enumerate(bones)])


def bk_model_bytes(bones, k):
    """A Banjo-Kazooie model bin's bone table: bones with pivot, bone_id and
    parent (an earlier index or -1); k the translation factor."""
    return make_models.write_bk_model([(b["pivot"], b["bone_id"], b["parent"]) for b in bones], k)


def keyed_bck_tracks(gameanim, rng, njoints, key_times, ranges, slope=0.2, density=1.0):
    """Random Hermite tracks for a BCK: for each joint, channel and axis
    (kept with probability `density`), keys at key_times() with values in
    ranges[channel] = (low, high) and slopes within +-slope."""
    tracks = []
    for j in range(njoints):
        for ch in ("scale", "rotation", "translation"):
            for a in range(3):
                if density < 1.0 and rng.random() > density:
                    continue
                times = key_times()
                low, high = ranges[ch]
                vals = [rng.uniform(low, high) for _ in times]
                slopes = [rng.uniform(-slope, slope) for _ in times]
                tracks.append(gameanim.Track(j, ch, a, times, vals, slopes, slopes))
    return tracks


def mesh_triangles(mesh):
    """A decoded Mesh's triangles as a sorted list (a multiset), each the
    tuple of its three corners rotated to start at the smallest (the
    winding kept); a corner is (position, normal or (), colours, UVs,
    ((joint, weight) for weights > 0, sorted by joint)), numbers as the
    decoder gives them.  Independent of vertex order and strip layout."""
    k = mesh.influences
    nrm = mesh.normals

    def corner(v):
        skin = sorted((mesh.joints[v * k + i], mesh.weights[v * k + i]) for i in range(k) if mesh.weights[v * k + i] > 0)
        return (tuple(mesh.positions[3 * v:3 * v + 3]), tuple(nrm[3 * v:3 * v + 3]) if nrm is not None else (),
                tuple(tuple(c[4 * v:4 * v + 4]) for c in mesh.colors), tuple(tuple(u[2 * v:2 * v + 2]) for u in mesh.uvs),
                tuple(skin))

    tris = []
    t = mesh.triangles
    for i in range(0, len(t), 3):
        c = [corner(t[i]), corner(t[i + 1]), corner(t[i + 2])]
        f = c.index(min(c))
        tris.append(tuple(c[f:] + c[:f]))
    return sorted(tris)
