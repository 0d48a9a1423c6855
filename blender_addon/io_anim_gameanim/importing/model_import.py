"""The model files among an import's files (J3D BMD/BDL, SM64DS BMD,
Banjo-Kazooie model bin), built before anything else: a model file is
known only by loading it, and which animation goes to which model
(import_plan) depends on the rig built from it.  Each gets its armature
(rig_from_model), then its meshes and materials (model_mesh)."""
from ..shared import archive_members
from . import model_mesh, rig_from_model
from .import_scale import apply_import_scale


def build_models(ga, paths, report, context, progress=None, opts=None, mats=None):
    """Builds an armature for every model file among paths (detected from
    the content by gameanim.load_model), with its meshes and materials
    (model_mesh; their materials are added to mats, for the BTK files),
    at option Scale.  Returns (the other paths, the built rigs
    (rig_from_model.BuiltRig), or None when no file is a model)."""
    load_model = getattr(ga, "load_model", None)
    if load_model is None:
        return paths, None
    others, rigs = [], []
    for i, path in enumerate(paths):
        try:
            model = load_model(archive_members.content_of(path))
        except (ga.FormatError, OSError, ValueError):
            others.append(path)  # (not a model: the animation loader says what it is)
            continue
        if progress:
            progress(i, len(paths), path, "model")
        fr = report.add(path)
        fr.format = model.format
        fr.compression = getattr(model, "compression", None)
        skin = model_mesh.prepare_skin(ga, model, opts)  # (its skin bones: in the armature's edit pass)
        try:
            built = rig_from_model.build_model_armature(model, path, context, skin=skin)
        except Exception as e:  # the other files still import
            fr.error = f"could not build the armature of this model: {type(e).__name__}: {e}"
            continue
        calc = f", {built.rig['calc']} rule" if built.rig["calc"] else ""
        helpers = f", {len(built.helpers)} hidden helper bone(s) for scale compensation" if built.helpers else ""
        fr.built = f"armature {built.obj.name!r} ({len(built.names)} joint(s){calc}{helpers})"
        fr.owners.append(built.obj.name)
        _record_source(built.obj, path)
        rigs.append(built)
        model_mesh.import_geometry(ga, model, built, context, opts, fr, mats, skin)
    if not rigs and len(others) == len(paths):
        return paths, None
    for built in rigs:
        apply_import_scale(built.obj, opts)
    return others, rigs


def _record_source(obj, path):
    """What File > Export > Game Model needs to load the model again
    (exporting/model_export.py): the archive and member it came from, and
    the armature's name at import (the images and materials carry it)."""
    obj["gameanim_model_stem"] = obj.name
    if isinstance(path, archive_members.MemberSource):
        obj["gameanim_model_archive"] = path.archive
        obj["gameanim_model_member"] = path.member
