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
  the bone's frame is W * T(pivot), see joint_frame.)
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
  are baked (basic_quirk_frames) and the report says so.
"""
import json
from array import array

MODEL_PROP = "gameanim_model"        # on the armature object: JSON (rig_info)
HELPER_PROP = "gameanim_ssc_helper"  # on a helper bone: the joint bone's name
INDEX_PROP = "gameanim_index"
BONE_ID_PROP = "gameanim_bone_id"
SSC_PROP = "gameanim_scale_compensate"

# The animation formats that animate each model family's joints, and how
# a file picks its model: by joint count or by bone IDs.
MODEL_ANIMATIONS = {"bmd": "bck", "bdl": "bck", "sm64ds_bmd": "bca", "bk_model": "bk"}


def is_delta_family(model_format):
    return model_format == "bk_model"


def bone_label(model_format, index, bone):
    """A joint's bone name when the file has none."""
    if model_format == "bk_model":
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


def stored_rig(arm_obj):
    """rig_info of a model-built armature, or None."""
    raw = arm_obj.get(MODEL_PROP) if arm_obj is not None else None
    if not raw:
        return None
    try:
        return json.loads(raw)
    except (TypeError, ValueError):
        return None


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


def joint_frame(rig, index, world):
    """The pose-bone matrix (armature space, mathutils Matrix) that a
    joint's game world matrix `world` corresponds to: the matrix itself,
    or for Banjo-Kazooie (whose matrices move model-space points) the
    matrix times the translation to the bone's pivot."""
    if is_delta_family(rig["format"]):
        from mathutils import Matrix
        return world @ Matrix.Translation(rig["bones"][index]["translation"])
    return world


def world_matrix(values, frame_index, bone_index, nbones):
    """One 4x4 row-major matrix (list of rows) out of world_matrices()."""
    base = (frame_index * nbones + bone_index) * 16
    return [list(values[base + 4 * r: base + 4 * r + 4]) for r in range(4)]


# ---------------------------------------------------------------------------
# Which model an animation belongs to


def animation_fits(rig, anim_format, targets):
    """Whether a file of anim_format animating `targets` (joint indices or
    bone IDs) belongs to the model: the family's animation format and the
    joint count (Banjo-Kazooie: every bone ID it animates is in the
    model's table)."""
    if MODEL_ANIMATIONS.get(rig["format"]) != anim_format:
        return False
    if is_delta_family(rig["format"]):
        ids = {b["bone_id"] for b in rig["bones"]}
        return bool(targets) and all(t in ids for t in targets)
    return sum(1 for t in targets if isinstance(t, int)) == len(rig["bones"])


# ---------------------------------------------------------------------------
# Basic's quirk


def _f32(x):
    return array("f", (x,))[0]


def basic_quirk_frames(rig, anim, frames):
    """{joint index: [i for frames[i] where the game drops the joint's own
    scale]}: under the Basic rule the accumulated scale (the product of
    the scales down the chain, in float32 as the game multiplies) being
    exactly (1, 1, 1) makes the game skip the local scale; only joints
    whose own scale is not 1 there are affected.  Joints the file does not
    animate take the model's rest scale (as the game's calc does)."""
    if not rig or rig.get("calc") != "basic" or not frames:
        return {}
    bones = rig["bones"]
    n = len(bones)
    nf = len(frames)
    scale = [[list(b["scale"]) for _ in range(nf)] for b in bones]
    tracks = list(anim.tracks)
    want = [i for i, t in enumerate(tracks)
            if t.channel == "scale" and isinstance(t.target, int) and 0 <= t.target < n and t.axis < 3]
    animated = set()
    if want:
        values = anim.sample(array("d", frames))
        for i in want:
            t = tracks[i]
            animated.add(t.target)
            for f in range(nf):
                scale[t.target][f][t.axis] = values[i * nf + f]
    # a joint the file animates takes the file's scale, the default 1 where
    # it has no scale track (count 0)
    for j in range(n):
        if j not in animated and any(isinstance(t.target, int) and t.target == j for t in tracks):
            scale[j] = [[1.0, 1.0, 1.0] for _ in range(nf)]
    order = parents_first(bones)
    acc = [None] * n
    out = {}
    for j in order:
        p = bones[j]["parent"]
        rows = []
        for f in range(nf):
            base = acc[p][f] if p >= 0 else (1.0, 1.0, 1.0)
            s = scale[j][f]
            a = tuple(_f32(base[k] * s[k]) for k in range(3))
            rows.append(a)
            if a == (1.0, 1.0, 1.0) and tuple(s) != (1.0, 1.0, 1.0):
                out.setdefault(j, []).append(f)
        acc[j] = rows
    return out


def parents_first(bones):
    order, seen = [], set()

    def visit(j, depth=0):
        if j in seen or depth > len(bones):
            return
        p = bones[j]["parent"]
        if 0 <= p < len(bones) and p not in seen:
            visit(p, depth + 1)
        seen.add(j)
        order.append(j)

    for j in range(len(bones)):
        visit(j)
    return order
