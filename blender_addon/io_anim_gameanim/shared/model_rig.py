"""Rigs built from the games' model files (J3D BMD/BDL, SM64DS BMD, a
Banjo-Kazooie model bin): what the import stores on such a rig and the
rules that both the import and the export need.

Every joint becomes one bone with the identity rest orientation, its
head at the game's rest world position, in the game's own (Y-up) axes;
the armature object carries the turn to Z-up.  Then a bone's pose basis
is the joint's local transform with the rest offset taken off the
translation, so the file's keys map one to one to F-curves, and each
rule's parent chain is one of Blender's scale-inheritance modes:

* Basic, SM64DS, Banjo-Kazooie: W = W_parent * L, inherit_scale FULL.
  (Banjo-Kazooie's W is the skinning matrix, deltas about the pivots:
  the bone's frame is W * T(pivot).)
* Softimage: the frame children inherit carries no scale; the joint's
  output is that frame scaled by the accumulated scale, and a child's
  translation is scaled by its parent's accumulated scale.  Blender's
  ALIGNED is exactly that: the parent's scale is applied in the child's
  own axes after its basis, and its location goes through the parent's
  full matrix.
* Maya: a scale-compensated joint's local matrix is T * S_p^-1 * R * S
  (S_p: the direct parent's local scale), which is sheared when S_p is
  not uniform and R is not axis-aligned: no inherit mode holds it.  Such
  a joint gets a hidden helper bone between it and its parent (same
  head, FULL), whose location is the joint's location (a driver) and
  whose scale is 1 / the parent's scale (a driver); the joint's own
  location is cancelled by a Limit Location constraint in local space.
  The joint bone keeps all of its channels, so the export reads them as
  for any bone.
* Basic's quirk: where the accumulated scale is exactly (1, 1, 1) the
  game drops the joint's own scale.  No curve holds that, so such bones
  are baked (rule_fixes) and the report says so.  Softimage under a
  parent whose accumulated scale is negative needs its rotation channels
  negated (or baked when the sign changes): RuleFixes says why.
"""
import json
from array import array
from operator import mul

from . import formats

MODEL_PROP = "gameanim_model"        # on the armature object: JSON (rig_info)
HELPER_PROP = "gameanim_ssc_helper"  # on a helper bone: the joint bone's name
INDEX_PROP = "gameanim_index"
BONE_ID_PROP = "gameanim_bone_id"
SSC_PROP = "gameanim_scale_compensate"
SKIN_PROP = "gameanim_skin"          # on a skin bone (importing/model_mesh.py): the joint number it follows
MESH_MATERIAL_PROP = "gameanim_material"  # on a material a model import built: its MAT3 index
TEXTURE_PROP = "gameanim_texture"    # on an image a model import built: its TEX1 index
OWNER_MODEL_PROP = "gameanim_model"  # on those images and materials: the armature's name at import


def is_delta_family(model_format):
    """Banjo-Kazooie: bone IDs, deltas about the pivots."""
    return formats.model_by_bone_id(model_format)


def animation_format(model_format):
    """The animation format that animates the model's joints."""
    return formats.model_animation_format(model_format)


def bone_label(model_format, index, bone):
    """A joint's bone name when the file has none."""
    if is_delta_family(model_format):
        return f"bk_{index:02d}_id{int(bone.get('bone_id', -1)):03d}"
    return f"joint_{index:03d}"


def rig_info(model, path):
    """The JSON-able description of a model's skeleton that a built rig
    keeps (MODEL_PROP): what export and later imports need without the
    model file."""
    bones = []
    for i, b in enumerate(model.bones):
        bones.append({
            "name": b.name, "parent": int(b.parent), "index": i,
            "bone_id": int(b.bone_id) if b.bone_id is not None else -1,
            "scale_compensate": bool(b.scale_compensate),
            "scale": [float(x) for x in b.scale], "rotation": [float(x) for x in b.rotation],
            "translation": [float(x) for x in b.translation],
        })
    return {"format": model.format, "calc": model.calc or "", "path": str(path),
            "translation_scale": float(model_translation_scale(model)), "bones": bones}


def model_translation_scale(model):
    """Banjo-Kazooie's per-model translation factor k (Model.info
    'bk_scale'; 1 for the others)."""
    value = (getattr(model, "info", None) or {}).get("bk_scale")
    return float(value) if isinstance(value, (int, float)) else 1.0


_parsed_rig = (None, None)  # (the last stored text, its rig_info): an import asks once per file


def stored_rig(arm_obj):
    """rig_info of a model-built armature, or None.  Callers must not
    change the dict (the last one parsed is reused for the same text)."""
    global _parsed_rig
    raw = arm_obj.get(MODEL_PROP) if arm_obj is not None else None
    if not raw:
        return None
    if _parsed_rig[0] == raw:
        return _parsed_rig[1]
    try:
        rig = json.loads(raw)
    except (TypeError, ValueError):
        return None
    _parsed_rig = (raw, rig)
    return rig


def inherit_scale(calc, bone):
    """The bone's inherit_scale under the model's rule."""
    if calc == "softimage" and bone["parent"] >= 0:
        return "ALIGNED"
    return "FULL"


def needs_helper(calc, bone):
    """A Maya scale-compensated joint under a parent: T * S_p^-1 * R * S."""
    return calc == "maya" and bone["scale_compensate"] and bone["parent"] >= 0


def helper_name(joint_bone_name):
    return f"SSC {joint_bone_name}"


# ---------------------------------------------------------------------------
# Which model an animation belongs to


def animation_fits(rig, anim_format, targets):
    """Whether a file of anim_format animating `targets` (joint indices or
    bone IDs) belongs to the model: the family's animation format and the
    joint count (Banjo-Kazooie: every bone ID it animates is in the
    model's table)."""
    if anim_format not in formats.model_animation_formats(rig["format"]):
        return False
    if is_delta_family(rig["format"]):
        ids = {b["bone_id"] for b in rig["bones"]}
        return bool(targets) and all(t in ids for t in targets)
    return sum(1 for t in targets if isinstance(t, int)) == len(rig["bones"])


# ---------------------------------------------------------------------------
# What curves cannot say: per-frame corrections of a rule


def chain_scales(rig, anim, frames):
    """Each joint's own scale at each frame, [joint][axis] -> array('f')
    over the frames (constant ones shared).  A joint the file animates
    takes the file's scale (1 where it has no scale track); one it does
    not, the model's rest scale (as the game's calc does)."""
    bones = rig["bones"]
    n = len(bones)
    nf = len(frames)
    tracks = list(anim.tracks)
    animated = {t.target for t in tracks if isinstance(t.target, int)}
    constant = {}  # (value -> one shared array of it: most scales are constant)

    def const(v):
        got = constant.get(v)
        if got is None:
            got = constant[v] = array("f", [v]) * nf
        return got

    scale = [[const(1.0 if j in animated else float(b["scale"][a])) for a in range(3)] for j, b in enumerate(bones)]
    values = None
    for i, t in enumerate(tracks):
        if t.channel != "scale" or not isinstance(t.target, int) or not 0 <= t.target < n or t.axis > 2:
            continue
        keys = t.values
        if len(keys) == 0:
            continue  # (count 0: the default 1)
        if len(keys) == 1:
            scale[t.target][t.axis] = const(float(array("f", keys)[0]))
            continue
        if values is None:
            values = anim.sample(array("d", frames))
        scale[t.target][t.axis] = array("f", values[i * nf:(i + 1) * nf])
    return scale


def constant_scales(rig, anim):
    """Every joint's own scale components when none changes over time (the
    file's scale tracks hold at most one key, as most do), as one flat
    list; None when a scale track has keys (then chain_scales samples)."""
    bones = rig["bones"]
    n = len(bones)
    tracks = anim.tracks
    own = {}
    # (a joint the file leaves without a scale track holds 1 if the file
    # animates it, else its rest scale: the same when every rest scale is 1)
    rest_unit = all(v == 1.0 for b in bones for v in b["scale"])
    animated = () if rest_unit else {target for target in {t.target for t in tracks} if isinstance(target, int)}
    for t in [t for t in tracks if t.channel == "scale"]:
        target = t.target
        if not isinstance(target, int):
            continue
        if len(t) > 1:
            return None
        if 0 <= target < n and t.axis <= 2:
            own[(target, t.axis)] = t.values[0] if len(t) else 1.0  # (values: array('f'))
    return [own.get((j, a), 1.0 if rest_unit or j in animated else float(b["scale"][a])) for j, b in enumerate(bones)
            for a in range(3)]


def accumulated(bones, scale):
    """The accumulated scale of each joint (the product of the scales down
    the chain, the joint's own included) at each frame, in float32 as the
    game multiplies (array('f') rounds each product once), [joint][axis]."""
    acc = [None] * len(bones)
    for j in parents_first(bones):
        p = bones[j]["parent"]
        acc[j] = [array("f", map(mul, acc[p][a], scale[j][a])) if p >= 0 else scale[j][a] for a in range(3)]
    return acc


class RuleFixes:
    """Where a model's rule needs more than the file's keys on the built
    rig, per joint index (frames: the bake frames, file frames):

    * dropped[j]: frame indices where Basic drops the joint's own scale
      (the accumulated scale is exactly (1, 1, 1) and the joint's own is
      not): baked, with the scale 1 there;
    * flips[j]: per frame, the signs (fx, fy, fz) that Softimage's rotation
      channels take under Blender's ALIGNED inheritance when the parent's
      accumulated scale has negative components D: ALIGNED takes the
      parent's frame as F_p * D (the scale's lengths are positive), so the
      basis rotation must be D * R * D, which is Euler XYZ (fx rx, fy ry,
      fz rz) with fx = dy dz, fy = dx dz, fz = dx dy; the quaternion
      (w, fx x, fy y, fz z).  Constant signs: exact curves with negated
      channels; changing signs: baked.
    * negative_parents: joints with a compensated child (Maya) whose own
      scale is negative somewhere: the helper's driver reads their scale
      channel, which a baked decomposition may give another sign, so they
      stay on curves."""

    def __init__(self):
        self.dropped = {}
        self.flips = {}
        self.negative_parents = set()

    def __bool__(self):
        return bool(self.dropped or self.flips or self.negative_parents)

    def constant_flip(self, j):
        rows = self.flips.get(j)
        if not rows:
            return None
        first = rows[0]
        return first if all(r == first for r in rows) else None


def rule_fixes(rig, anim, frames):
    """RuleFixes of an animation on a rig (empty for rigs not built from a
    model and for rules that need none)."""
    fixes = RuleFixes()
    if not rig or not frames or is_delta_family(rig.get("format")):
        return fixes
    calc = rig.get("calc")
    if calc not in ("basic", "softimage", "maya"):
        return fixes
    bones = rig["bones"]
    constant = constant_scales(rig, anim)
    if constant is not None:
        # every scale is the same at every frame: only its values matter
        if calc == "basic" and all(v == 1.0 for v in constant):
            return fixes  # (nothing to drop when every scale is 1)
        if calc != "basic" and min(constant, default=1.0) >= 0.0:
            return fixes  # (Softimage and Maya need a negative scale)
    scale = chain_scales(rig, anim, frames)
    lowest = min((min(a) for rows in scale for a in rows), default=1.0)
    if calc == "basic":
        # nothing to drop when every scale is 1 at every frame
        if all(min(a) == max(a) == 1.0 for rows in scale for a in rows):
            return fixes
    elif lowest >= 0.0:
        return fixes  # (Softimage and Maya need a negative scale)
    acc = accumulated(bones, scale) if calc != "maya" else None
    for j, b in enumerate(bones):
        p = b["parent"]
        if calc == "basic":
            ax, ay, az = acc[j]
            sx, sy, sz = scale[j]
            hits = [f for f, (x, y, z, u, v, w) in enumerate(zip(ax, ay, az, sx, sy, sz))
                    if x == y == z == 1.0 and not u == v == w == 1.0]
            if hits:
                fixes.dropped[j] = hits
        elif calc == "softimage" and p >= 0:
            if min(min(acc[p][a]) for a in range(3)) >= 0.0:
                continue
            rows = []
            for x, y, z in zip(*acc[p]):
                dx, dy, dz = (-1 if x < 0 else 1), (-1 if y < 0 else 1), (-1 if z < 0 else 1)
                rows.append((dy * dz, dx * dz, dx * dy))
            if any(r != (1, 1, 1) for r in rows):
                fixes.flips[j] = rows
        elif calc == "maya" and b["scale_compensate"] and p >= 0:
            if min(min(scale[p][a]) for a in range(3)) < 0.0:
                fixes.negative_parents.add(p)
    return fixes


def parents_first(bones):
    """Bone indices with every parent before its children (the tables need
    not be in that order); a parent index out of range counts as a root,
    and a cycle (which the decoders refuse) is broken where it is met."""
    n = len(bones)
    order, state = [], [0] * n  # 0 new, 1 on the path, 2 placed
    for start in range(n):
        path = []
        j = start
        while 0 <= j < n and state[j] == 0:
            state[j] = 1
            path.append(j)
            j = bones[j]["parent"]
        for k in reversed(path):
            state[k] = 2
            order.append(k)
    return order
