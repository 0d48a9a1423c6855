"""Option Model File on import: a skeletal file planned onto a rig another
tool made from the game's model (shared/foreign_rig_retarget.py has the maths).
The model is read once per rig and import (kept on the import's RigIndex)."""
import json
import os

from .. import native
from ..shared.imported_action import MODEL_FILE_PROP
from ..shared.foreign_rig_retarget import ModelRig, RetargetError, plan_onto_rig
from ..shared.rig_match import RigIndex, target_label


AXES_WORDS = {"Y_TO_Z": "turned Y-up to Z-up in its bones", "NONE": "as they are",
              "Z_TO_Y": "turned Z-up to Y-up in its bones"}


def model_rig(arm_obj, opts, index):
    """The ModelRig of arm_obj and option Model File, made on first use."""
    path = os.path.abspath(bpy_path(opts.model_file))
    cache = index.__dict__.setdefault("model_rigs", {})
    key = (path, opts.model_axes, opts.id_property)
    got = cache.get(key)
    if got is None:
        ga = native.require()
        try:
            model = ga.load_model(path)
        except (ga.FormatError, OSError, ValueError) as e:
            raise RetargetError(f"Model File {opts.model_file!r}: {e}") from None
        got = cache[key] = (ModelRig(model, arm_obj, opts.model_axes, opts.id_property, index), path)
    return got


def paths_with_model_file(paths, opts, target_arm):
    """(paths, options) for option Model File when no rig another tool made
    is the target: with no armature to go to, the model file joins the
    files, as if it had been picked with them, and builds its own rig
    (Rigs from model files; this is how a model and its animations in
    different folders, which Blender's file browser cannot pick together,
    are imported at once); onto a rig this importer built from a model
    (the game's joints already) the files go as they are.  Otherwise
    unchanged: the files are re-based onto the rig."""
    from ..shared.options import make_options

    if not opts.model_file:
        return paths, opts
    if target_arm is None:
        model = os.path.abspath(bpy_path(opts.model_file))
        others = [p for p in paths if os.path.abspath(p) != model]
        return [model] + others, make_options(opts, model_file="")
    if target_arm.get("gameanim_model_path"):
        return paths, make_options(opts, model_file="")
    return paths, opts


def bpy_path(path):
    """A path as Blender's file browser gives it ('//' = the .blend's folder)."""
    if path.startswith("//"):
        import bpy

        return bpy.path.abspath(path)
    return path


def plan_file(anim, arm_obj, opts, tm, fr, index=None):
    """skeletal_import.plan_file for option Model File: (BoneWriteResult, every
    CurvePlan); res.source_extra holds what the action stores besides."""
    if index is None:
        index = RigIndex(arm_obj)
    if arm_obj.get("gameanim_built_for"):
        raise RetargetError(f"Model File needs the rig the model was made into (by blemd, fast64 or a DAE/FBX "
                            f"import) as the active armature; {arm_obj.name!r} was built from animations alone. "
                            "To build a rig from the model, import the model file itself")
    rig, path = model_rig(arm_obj, opts, index)
    noted = index.__dict__.setdefault("model_rig_noted", set())
    if id(rig) not in noted:  # (once per import, on the first file's report)
        noted.add(id(rig))
        missing = [f"{j} ({rig.model.bones[j].name or rig.model.bones[j].bone_id})" for j in rig.missing]
        if missing:
            fr.notes.append(f"{len(missing)} joint(s) of the model have no bone in {arm_obj.name!r}: "
                            f"{', '.join(missing)}")
        fr.notes.extend(rig.notes)
    fr.notes.append(f"re-based onto {arm_obj.name!r} with the model's joint matrices; the rig holds the game's "
                    f"axes {AXES_WORDS.get(rig.axes_key, rig.axes_key)}"
                    + (f", scaled {rig.unit_scale:.6g}" if abs(rig.unit_scale - 1.0) > 1e-6 else ""))
    res, plans, unmatched = plan_onto_rig(anim, rig, tm)
    fr.unmatched.extend(target_label(t) for t in unmatched)
    fr.baked.extend(res.baked)
    fr.notes.extend(res.notes)
    record = dict(rig.record(), file=path, format=rig.model.format)
    res.source_extra = {MODEL_FILE_PROP: json.dumps(record, sort_keys=True)}
    return res, [cp for plan in plans for cp in plan.curves]
