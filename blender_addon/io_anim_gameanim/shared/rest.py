"""Rest poses and axes: a bone's rest relative to its parent (the root's
parent frame is the up-axis conversion), its armature-space rest rotation,
whether the rotation that matters for a format is the identity, the GR2
change of axes, and the (pre, post) matrices of gameanim.bake_pose /
local_from_basis.  Pure mathutils; reads bones, never writes them."""
import math

from mathutils import Matrix

from . import formats
from .imported_action import ROOT_REST_PROP

ROT_TOL = 1e-5

UP_MATRICES = {
    "NONE": Matrix.Identity(4),
    "Y_TO_Z": Matrix.Rotation(math.pi / 2, 4, "X"),
    "Z_TO_Y": Matrix.Rotation(-math.pi / 2, 4, "X"),
    "GR2": Matrix.Identity(4),  # (the axes change bone by bone: see gr2_basis)
}


# ---------------------------------------------------------------------------
# Rest poses


def rest_local(bone, up):
    """Bone rest transform relative to its parent (the root's parent frame
    is the up-axis conversion)."""
    if bone.parent is None:
        return up.inverted() @ bone.matrix_local
    return bone.parent.matrix_local.inverted() @ bone.matrix_local


def rotation_angle(m):
    """Angle (radians) of the rotation part of a matrix without scale."""
    q = m.to_3x3().normalized().to_quaternion()
    return 2.0 * math.acos(min(1.0, abs(q.w)))


def is_identity_rotation(m, tol=ROT_TOL):
    r = m.to_3x3()
    ident = Matrix.Identity(3)
    return all(abs(r[i][j] - ident[i][j]) <= tol for i in range(3) for j in range(3))


def flat(m):
    return [m[i][j] for i in range(4) for j in range(4)]



def bone_rest(bone, fmt, up):
    """(rest_local, Q, identity): the bone's rest relative to its parent, its
    armature-space rest rotation (Banjo-Kazooie), and whether the rotation
    that matters for the format is the identity."""
    rl = rest_local(bone, up)
    q_rest = (up.inverted() @ bone.matrix_local).to_3x3().normalized().to_4x4()
    if not formats.is_delta(fmt):
        return rl, q_rest, is_identity_rotation(rl)
    return rl, q_rest, is_identity_rotation(q_rest)


def gr2_basis(arm_obj):
    """C, from a SWTOR GR2 rig's axes to the JBA's (Morpheme) axes:
    (x, y, z) -> (s x, -s z, s y) with s = 1000 / the object's gr2_scale
    property (1 when absent), the factor the Granny importer scaled the rig
    by (docs/formats/jba.md, Axes and units in Blender).  A bone's pose is then
    rest_local^-1 @ C^-1 @ T(t) @ R(q) @ C."""
    try:
        scale = float(arm_obj.get("gr2_scale", 1.0))
    except (TypeError, ValueError):
        scale = 1.0
    if not math.isfinite(scale) or scale <= 0.0:
        scale = 1.0
    s = 1000.0 / scale
    return Matrix(((s, 0.0, 0.0, 0.0), (0.0, 0.0, -s, 0.0), (0.0, s, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)))


def axis_basis(fmt, up_axis, arm_obj):
    """The per-bone change of axes of option Rig Up Axis (None: none)."""
    return gr2_basis(arm_obj) if up_axis == "GR2" and formats.has_gr2_rig(fmt) else None


def bake_spec(fmt, rl, q_rest, basis=None):
    """(pre, post) of gameanim.bake_pose / local_from_basis for one bone.
    basis: axis_basis(), conjugating every bone's channels."""
    if basis is not None:
        return flat(rl.inverted() @ basis.inverted()), flat(basis)
    if not formats.is_delta(fmt):
        return flat(rl.inverted()), None
    return flat(q_rest.inverted()), flat(q_rest)


def root_rest_of(arm_obj):
    """The transform root motion is applied on top of: the one recorded on
    the rig (ROOT_REST_PROP), else the object's own transform now."""
    raw = arm_obj.get(ROOT_REST_PROP)
    if raw is not None:
        try:
            return matrix_of(raw)
        except (TypeError, ValueError):
            raise ValueError(f"custom property {ROOT_REST_PROP!r} of {arm_obj.name!r} must hold 16 numbers (the "
                             f"rig's transform, row by row); delete it to use the object's transform") from None
    return arm_obj.matrix_basis.copy()


def matrix_of(rows):
    """A 4x4 Matrix from 16 floats row by row (flat's inverse)."""
    values = [float(v) for v in rows]
    if len(values) != 16:
        raise ValueError(f"a transform needs 16 values, not {len(values)}")
    return Matrix([values[0:4], values[4:8], values[8:12], values[12:16]])


