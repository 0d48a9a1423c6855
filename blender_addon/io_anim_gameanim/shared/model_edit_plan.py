"""What an export of an imported model changes (docs/blender.md, Export a
model), free of bpy: Blender's per-corner and per-vertex data turned back
into the layouts of Model.meshes (docs/meshes.md), the comparisons that
decide whether a shape, a texture or a material changed, and the limits of
the format that are reported rather than dropped.  exporting/model_export.py
reads Blender into these plain arrays and calls the Model's edit methods
with what comes out."""
from array import array

MAX_UV_CHANNELS = 8      # TEX0-TEX7
MAX_COLOR_CHANNELS = 2   # CLR0, CLR1
MAX_TEXTURE_SIDE = 1024  # GX's largest texture side
WEIGHT_EPS = 1e-4        # what replace_mesh drops


def channel_of(name, prefix):
    """The channel number of a layer the import named '<prefix><n>' (UV0,
    Col1), else None."""
    if name.startswith(prefix) and name[len(prefix):].isdigit():
        return int(name[len(prefix):])
    return None


def same_floats(a, b, tol=0.0):
    """Two float sequences equal in length and within tol element-wise."""
    if len(a) != len(b):
        return False
    if tol == 0.0:
        return array("f", a) == array("f", b)
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def vertex_weights(joints, weights, influences, nv):
    """[{joint: weight}] of each vertex from a mesh's fixed-width tables,
    weights below WEIGHT_EPS left out."""
    out = []
    for v in range(nv):
        d = {}
        for k in range(influences):
            w = weights[v * influences + k]
            if w > WEIGHT_EPS:
                j = joints[v * influences + k]
                d[j] = d.get(j, 0.0) + w
        out.append(d)
    return out


def same_weights(a, b, tol=1e-6):
    """Two lists of {joint: weight} equal (within tol, after normalising
    each vertex's weights to sum 1)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        sx, sy = sum(x.values()) or 1.0, sum(y.values()) or 1.0
        if set(x) != set(y) or any(abs(x[j] / sx - y[j] / sy) > tol for j in x):
            return False
    return True


def fixed_width(per_vertex):
    """(joints, weights, width) in the fixed-width layout of Model.meshes
    from [{joint: weight}] (unused slots joint 0, weight 0)."""
    width = max([1] + [len(d) for d in per_vertex])
    joints, weights = array("I"), array("f")
    for d in per_vertex:
        items = sorted(d.items(), key=lambda jw: (-jw[1], jw[0]))
        items += [(0, 0.0)] * (width - len(items))
        joints.extend(j for j, _w in items)
        weights.extend(w for _j, w in items)
    return joints, weights, width


def skin_matrix(d, rest_skin):
    """E = sum_k w_k C_k (rows of 4 floats, 3 rows) of one vertex's
    weights (normalised) with C_k the joints' rest skinning matrices
    (model_mesh.Skin.rest_skin, as row tuples); None when all are the
    identity or the vertex has no weights."""
    total = sum(d.values())
    if not total:
        return None
    e = [[0.0] * 4 for _ in range(3)]
    for j, w in d.items():
        c = rest_skin[j]
        for r in range(3):
            for col in range(4):
                e[r][col] += w / total * c[r][col]
    return e


def to_model_space(co, per_vertex, rest_skin, identity):
    """The import's mesh coordinates x back to model-space rest positions
    p = E x (model_mesh's module docstring); identity[j]: C_j is the
    identity (then nothing is computed for a vertex on such joints only)."""
    out = array("f", co)
    for v, d in enumerate(per_vertex):
        if all(identity[j] for j in d):
            continue
        e = skin_matrix(d, rest_skin)
        if e is None:
            continue
        x, y, z = co[3 * v], co[3 * v + 1], co[3 * v + 2]
        for r in range(3):
            out[3 * v + r] = e[r][0] * x + e[r][1] * y + e[r][2] * z + e[r][3]
    return out


def wedges(corner_verts, corner_uvs, corner_colors, corner_normals):
    """Blender's corners back to the per-vertex layout of Model.meshes: a
    vertex whose corners carry different UVs (or corner-domain colours)
    is split, one output vertex per distinct combination, in order of
    first use.  corner_uvs / corner_colors: {channel: flat per-corner
    arrays}, UVs as Blender's (s, 1 - t).  Returns (source vertex of each
    output vertex, triangles, {channel: per-vertex (s, t)}, {channel:
    per-vertex RGBA or None (the caller fills per-vertex colours)},
    per-vertex normals or None)."""
    uv_ch = sorted(corner_uvs)
    col_ch = sorted(corner_colors)
    index = {}
    source, tris = [], array("I")
    uvs = {ch: array("f") for ch in uv_ch}
    cols = {ch: array("f") for ch in col_ch}
    normals = array("f") if corner_normals is not None else None
    for c, v in enumerate(corner_verts):
        key = (v,) + tuple(tuple(corner_uvs[ch][2 * c:2 * c + 2]) for ch in uv_ch) + \
            tuple(tuple(corner_colors[ch][4 * c:4 * c + 4]) for ch in col_ch)
        out = index.get(key)
        if out is None:
            out = index[key] = len(source)
            source.append(v)
            for ch in uv_ch:
                s, t = corner_uvs[ch][2 * c:2 * c + 2]
                uvs[ch].extend((s, 1.0 - t))
            for ch in col_ch:
                cols[ch].extend(corner_colors[ch][4 * c:4 * c + 4])
            if normals is not None:
                normals.extend(corner_normals[3 * c:3 * c + 3])
        tris.append(out)
    return source, tris, uvs, cols, normals


def gather(values, source, size):
    """values (size per vertex) picked at the source vertices."""
    out = array("f")
    for v in source:
        out.extend(values[size * v:size * v + size])
    return out


def image_rgba(pixels, width, height):
    """RGBA8 bytes, top row first (Texture.pixels), from Blender's float
    pixels (bottom row first)."""
    w4 = 4 * width
    b = bytes(min(255, max(0, int(round(p * 255.0)))) for p in pixels)
    return b"".join(b[r * w4:(r + 1) * w4] for r in range(height - 1, -1, -1))


def to_bytes_colour(values):
    """0..1 floats to 0..255 ints (rounded, clamped)."""
    return [min(255, max(0, int(round(v * 255.0)))) for v in values]


def to_register_colour(values):
    """TEV register inputs (byte / 255, signed) to ints -32768..32767."""
    return [min(32767, max(-32768, int(round(v * 255.0)))) for v in values]


def group_colours(inputs, konst, tev):
    """(konst_colors, tev_colors) read from a TEV group node's inputs
    ({name: 3 floats or float}: K0-K3, C0-C2, PREV and their ' Alpha'),
    starting from the material's own; an input the group lacks keeps the
    model's value."""
    konst = [list(c) for c in konst]
    tev = [list(c) for c in tev]
    for names, dst, conv in ((("K0", "K1", "K2", "K3"), konst, to_bytes_colour),
                             (("C0", "C1", "C2", "PREV"), tev, to_register_colour)):
        for i, name in enumerate(names):
            if i >= len(dst):
                break
            if name in inputs:
                dst[i][:3] = conv(inputs[name][:3])
            if name + " Alpha" in inputs:
                dst[i][3] = conv([inputs[name + " Alpha"]])[0]
    return [tuple(c) for c in konst], [tuple(c) for c in tev]


def material_colour0(fed, values, colour):
    """Material colour 0 from the inputs it feeds (materials_from_model's
    MAT_COLOR_INPUTS_PROP: [[socket, channels, node?]]; values: {(node,
    socket): 3 floats or float}), starting from the stored colour."""
    out = list(colour)
    for t in fed:
        key = (t[2] if len(t) > 2 else None, t[0])
        v = values.get(key)
        if v is None:
            continue
        v = [v] if isinstance(v, (int, float)) else list(v)
        for k, ch in enumerate(t[1]):
            if k < len(v):
                out[ch] = to_bytes_colour([v[k]])[0]
    return tuple(out)


def _affine_inverse(m):
    """Inverse of a 3x4 affine matrix (rows), or None when singular."""
    a = [row[:3] for row in m]
    det = (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    if abs(det) < 1e-12:
        return None
    inv = [[(a[(c + 1) % 3][(r + 1) % 3] * a[(c + 2) % 3][(r + 2) % 3] -
             a[(c + 1) % 3][(r + 2) % 3] * a[(c + 2) % 3][(r + 1) % 3]) / det for c in range(3)] for r in range(3)]
    t = [row[3] for row in m]
    return [inv[r] + [-sum(inv[r][k] * t[k] for k in range(3))] for r in range(3)]


def _affine_mul(a, b):
    return [[sum(a[r][k] * b[k][c] for k in range(3)) + (a[r][3] if c == 3 else 0.0) for c in range(4)]
            for r in range(3)]


def rest_skin(model):
    """(C_k, identity_k) of every joint: C_k = W_k(rest) B_k, the rest
    skinning of the import (importing/model_mesh.Skin, in plain Python):
    B_k the inverse bind when the model has an invertible one, else the
    inverse of the rest world matrix; identity_k: C_k is the identity
    within 1e-5 of the model's size."""
    w = model.world_matrices()
    world = [[list(w[16 * i + 4 * r:16 * i + 4 * r + 4]) for r in range(3)] for i in range(len(w) // 16)]
    ibs = list(getattr(model, "inverse_binds", ()) or ())
    scale = max([1.0] + [abs(m[r][3]) for m in world for r in range(3)])
    out, identity = [], []
    for k, wk in enumerate(world):
        b = [list(ibs[k][4 * r:4 * r + 4]) for r in range(3)] if k < len(ibs) else None
        if b is None or _affine_inverse(b) is None:
            b = _affine_inverse(wk) or [[float(r == c) for c in range(4)] for r in range(3)]
        c = _affine_mul(wk, b)
        out.append(c)
        identity.append(all(abs(c[r][col] - (1.0 if r == col else 0.0)) <= 1e-5 * scale
                            for r in range(3) for col in range(4)))
    return out, identity
