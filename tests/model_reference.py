"""An independent, pure-Python statement of the games' joint-matrix rules,
written from the format notes (../shared/formats/j3d_models.md section 5.4,
j3d.md sections 2.3 and 6, bca.md section 2, bk.md section 2.5), not from
csrc/core/skeleton.c.  The tests compare gameanim's world_matrices with it.

Two versions:

* the game's arithmetic (``j3d_world``, ``sm64ds_world``, ``bk_world``):
  float32 after every operation, the sine table, and the game's structure
  (J3D: the recursive walk that saves and restores the current matrix and
  scales around each subtree);
* ``straightforward_world``: float64 with math.sin, a plain loop over the
  bones; the benchmark's Python baseline and a loose cross-check.

Bones are plain dicts; a pose gives each bone (scale, rotation, translation)
with the rotation in the game's integer angle units (J3D: 65536 per turn,
SM64DS: 4096 per turn) or in radians (Banjo-Kazooie).  Matrices are 16
floats, row-major, column-vector convention (translation in 3, 7, 11).
"""
import math
import struct

_F32 = struct.Struct("<f")


def f32(x):
    """x rounded to float32 (each game operation rounds so)."""
    return _F32.unpack(_F32.pack(x))[0]


# The sine table: JMANewSinTable(12) fills 4096 entries per turn with
# (f32)sin(2*pi*i/4096); the cosine is read a quarter turn (1024 entries)
# further on.  SM64DS indexes a 4096-entry table the same way.
SIN_TABLE = [f32(math.sin(2.0 * math.pi * i / 4096)) for i in range(4096 + 1024)]


def j3d_sin_cos(angle):
    """JMASSin / JMASCos of an s16 angle: index (u16)angle >> 4."""
    i = (angle & 0xFFFF) >> 4
    return SIN_TABLE[i], SIN_TABLE[i + 1024]


def sm64ds_sin_cos(angle):
    """The DS's lookup: (u16)(angle << 4) >> 4, i.e. the low 12 bits."""
    i = ((angle << 4) & 0xFFFF) >> 4
    return SIN_TABLE[i], SIN_TABLE[i + 1024]


def radians_to_angle(rad, units_per_turn):
    """A sampled rotation (radians) back to the game's integer angle."""
    return round(rad * units_per_turn / (2.0 * math.pi)) & 0xFFFF


# ---------------------------------------------------------------- float32 3x4


def rotate_translate(sc, t):
    """J3DGetTranslateRotateMtx: R = Rz*Ry*Rx, T in the last column, with the
    game's products and sums (each rounded to float32)."""
    (sx, cx), (sy, cy), (sz, cz) = sc
    m = [[0.0] * 4 for _ in range(3)]
    m[2][0] = -sy
    m[0][0] = f32(cz * cy)
    m[1][0] = f32(sz * cy)
    m[2][1] = f32(cy * sx)
    m[2][2] = f32(cy * cx)
    a, b = f32(cx * sz), f32(sx * cz)
    m[0][1] = f32(f32(b * sy) - a)
    m[1][2] = f32(f32(a * sy) - b)
    a, b = f32(sx * sz), f32(cx * cz)
    m[0][2] = f32(f32(b * sy) + a)
    m[1][1] = f32(f32(a * sy) + b)
    m[0][3], m[1][3], m[2][3] = t
    return m


def times_columns(m, s):
    """m * diag(s) on the 3x3 part (mtx[i][j] *= s[j])."""
    return [[f32(m[r][c] * s[c]) for c in range(3)] + [m[r][3]] for r in range(3)]


def mtx_concat(a, b):
    """a * b for 3x4 matrices (PSMTXConcat), summed left to right."""
    out = []
    for r in range(3):
        row = []
        for c in range(4):
            v = f32(a[r][0] * b[0][c])
            v = f32(v + f32(a[r][1] * b[1][c]))
            v = f32(v + f32(a[r][2] * b[2][c]))
            if c == 3:
                v = f32(v + a[r][3])
            row.append(v)
        out.append(row)
    return out


IDENTITY = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]


def flat(m):
    return m[0] + m[1] + m[2] + [0.0, 0.0, 0.0, 1.0]


def _children(bones):
    kids = [[] for _ in bones]
    roots = []
    for i, b in enumerate(bones):
        (kids[b["parent"]] if b["parent"] >= 0 else roots).append(i)
    return roots, kids


# ---------------------------------------------------------------- J3D


def j3d_world(bones, rule, pose):
    """The game's J3D joint matrices.  bones: dicts with 'parent' and
    'scale_compensate'; pose[i] = (scale xyz, s16 rotation xyz, translation
    xyz).  rule: 'basic', 'softimage' or 'maya'."""
    out = [None] * len(bones)
    roots, kids = _children(bones)
    # J3DSys's current state, saved and restored around each subtree as
    # recursiveCalc does
    sys = {"mtx": IDENTITY, "S": (1.0, 1.0, 1.0), "parentS": (1.0, 1.0, 1.0)}

    def calc(j):
        s, rot, t = pose[j]
        sc = [j3d_sin_cos(a) for a in rot]
        if rule == "basic":
            sys["S"] = tuple(f32(sys["S"][a] * s[a]) for a in range(3))
            m = rotate_translate(sc, t)
            if sys["S"] != (1.0, 1.0, 1.0):
                m = times_columns(m, s)
            sys["mtx"] = mtx_concat(sys["mtx"], m)
            out[j] = sys["mtx"]
        elif rule == "softimage":
            m = rotate_translate(sc, [f32(t[a] * sys["S"][a]) for a in range(3)])
            sys["mtx"] = mtx_concat(sys["mtx"], m)
            sys["S"] = tuple(f32(sys["S"][a] * s[a]) for a in range(3))
            out[j] = sys["mtx"] if sys["S"] == (1.0, 1.0, 1.0) else times_columns(sys["mtx"], sys["S"])
        elif rule == "maya":
            m = rotate_translate(sc, t)
            if tuple(s) != (1.0, 1.0, 1.0):
                m = times_columns(m, s)
            if bones[j]["scale_compensate"] == 1:
                inv = [f32(1.0 / sys["parentS"][r]) for r in range(3)]
                m = [[f32(m[r][c] * inv[r]) for c in range(3)] + [m[r][3]] for r in range(3)]
            sys["mtx"] = mtx_concat(sys["mtx"], m)
            sys["parentS"] = tuple(s)
            out[j] = sys["mtx"]
        else:
            raise ValueError(rule)
        for k in kids[j]:
            saved = dict(sys)
            calc(k)
            sys.update(saved)

    for r in roots:
        saved = dict(sys)
        calc(r)
        sys.update(saved)
    return [flat(m) for m in out]


# ---------------------------------------------------------------- SM64DS


def sm64ds_world(bones, pose):
    """SM64DS: world = parent * T * Rz*Ry*Rx * S, the parent's whole matrix
    inherited.  pose[i] = (scale, rotation in 4096-per-turn units, translation).
    The table lookup is the game's; the arithmetic is float32 (the DS's
    20.12 fixed point is not emulated)."""
    world = [None] * len(bones)
    roots, kids = _children(bones)
    todo = list(roots)
    while todo:
        i = todo.pop()
        s, rot, t = pose[i]
        m = times_columns(rotate_translate([sm64ds_sin_cos(a) for a in rot], t), s)
        p = bones[i]["parent"]
        world[i] = mtx_concat(world[p], m) if p >= 0 else mtx_concat(IDENTITY, m)
        todo.extend(kids[i])
    return [flat(m) for m in world]


# ---------------------------------------------------------------- Banjo-Kazooie


def bk_world(bones, k, values_by_id):
    """Banjo-Kazooie: M_i = M_parent * T(pivot + k*t) * R * S * T(-pivot),
    R = Rz*Ry*Rx.  values_by_id[bone_id] = (scale, rotation radians,
    translation) (defaults 1 / 0 / 0); bones need 'parent', 'pivot',
    'bone_id'; parents come first in the table."""
    world = []
    for b in bones:
        s, r, t = values_by_id.get(b["bone_id"], ((1.0, 1.0, 1.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)))
        piv = b["pivot"]
        sc = [(f32(math.sin(a)), f32(math.cos(a))) for a in r]
        moved = [f32(piv[a] + f32(k * t[a])) for a in range(3)]
        to_pivot = rotate_translate(sc, moved)
        to_pivot = times_columns(to_pivot, s)
        back = [[1.0, 0.0, 0.0, -piv[0]], [0.0, 1.0, 0.0, -piv[1]], [0.0, 0.0, 1.0, -piv[2]]]
        local = mtx_concat(to_pivot, back)
        p = b["parent"]
        world.append(mtx_concat(world[p], local) if p >= 0 else local)
    return [flat(m) for m in world]


# ---------------------------------------------------------------- float64


def _mat4_mul(a, b):
    return [sum(a[r * 4 + k] * b[k * 4 + c] for k in range(4)) for r in range(4) for c in range(4)]


def _trs64(t, r, s):
    sx, cx = math.sin(r[0]), math.cos(r[0])
    sy, cy = math.sin(r[1]), math.cos(r[1])
    sz, cz = math.sin(r[2]), math.cos(r[2])
    rot = [cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx,
           sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx,
           -sy, cy * sx, cy * cx]
    return [rot[0] * s[0], rot[1] * s[1], rot[2] * s[2], t[0],
            rot[3] * s[0], rot[4] * s[1], rot[5] * s[2], t[1],
            rot[6] * s[0], rot[7] * s[1], rot[8] * s[2], t[2],
            0.0, 0.0, 0.0, 1.0]


def straightforward_world(bones, pose):
    """Float64, math.sin, full inheritance (world = parent * T*R*S); pose[i]
    = (scale, rotation radians, translation).  Parents come first."""
    world = []
    for i, b in enumerate(bones):
        s, r, t = pose[i]
        local = _trs64(t, r, s)
        world.append(_mat4_mul(world[b["parent"]], local) if b["parent"] >= 0 else local)
    return world
