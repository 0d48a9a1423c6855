"""Scripting API (stable): the same import and export as the operators,
for Blender scripts and batch jobs.

    from io_anim_gameanim import api          # or bl_ext.<repo>.io_anim_gameanim
    actions = api.import_files(["walk.bck", "scroll.btk"], armature=bpy.data.objects["Rig"],
                               bone_match="NAME", frame_offset=1)
    print(actions.report.text())

    result = api.export_action("out/walk.bck", bpy.data.actions["walk.bck"])   # format: as imported
    api.export_action("new.bca", my_action, format="bca", armature=rig, rate="FRAMES")
    api.export_materials("scroll.btk", [bpy.data.materials["water"]])
    for r in api.export_actions("out/"):                                    # every action of the .blend
        print(r.summary())

    api.import_archive("obj.szs", members=["obj.bdl", "bck/wait.bck"])     # RARC / CRAR: [] or None = all
    api.export_action("obj.szs", bpy.data.actions["wait"])                  # back into its member

Every keyword of ImportOptions / ExportOptions is accepted (see
docs/blender.md); unknown keywords raise TypeError, bad values ValueError.
Failed import files are listed in the report and never raise; a failed
export_action / export_materials raises ExportError and leaves any existing
file untouched; export_actions never raises for one action (its result has
.error).
"""
from .exporting import exporter
from .exporting.export_tracks import ExportError
from .exporting.exporter import ExportResult
from .importing import archive_import, importer
from .importing.importer import ImportResult, collect_files
from .importing.btk_mapping_chain import add_texture_mapping as _add_texture_mapping
from .importing.report import ImportReport
from .shared.imported_action import original_bytes
from .shared.options import ExportOptions, ImportOptions, make_export_options, make_options

__all__ = ["import_files", "import_file", "import_folder", "import_archive", "ImportOptions", "ImportResult", "ImportReport",
           "original_bytes", "collect_files", "export_action", "export_materials", "export_actions", "export_model",
           "ExportOptions", "ExportResult", "ExportError", "add_texture_mapping", "default_export_options"]


def import_files(paths, armature=None, materials=None, options=None, context=None, progress=None, **kw):
    """Imports animation files (any format the add-on maps, any compression
    wrapper, detected from the content).

    paths: a path or a list of paths.  armature: the armature object that
    receives skeletal animations (default: the active armature, or a new
    armature built from the animations, per option `target`; a BVA keys
    the shapes without an object on it).  materials: the materials BTK,
    BRK, BPK and BTP entries may animate (default: all of bpy.data).
    options: an ImportOptions or dict; keywords override it.
    progress: optional callable(index, count, path, stage).

    Returns an ImportResult: the list of created actions, with .report.
    """
    return importer.import_files(paths, armature_obj=armature, materials=materials, options=options,
                                 context=context, progress=progress, **kw)


def import_file(path, armature=None, materials=None, options=None, **kw):
    """One file; returns the ImportResult (the actions it made)."""
    return import_files([path], armature=armature, materials=materials, options=options, **kw)


def import_folder(folder, armature=None, materials=None, options=None, **kw):
    """Every animation file under a folder, recursively."""
    return import_files(collect_files([folder]), armature=armature, materials=materials, options=options, **kw)


def import_archive(path, members=None, armature=None, materials=None, options=None, context=None, progress=None,
                   **kw):
    """Imports members of a RARC / CRAR archive (.arc, .szs, ...; Yaz0 /
    Yay0 wrapped or not) as import_files imports loose files: model
    members build their armatures and each animation goes to the model it
    fits.  members: member paths as Archive.namelist() gives them; None or
    empty: every model and animation (animations of formats the add-on
    does not map yet are reported as failed).  An unknown member, or a
    file that is not an archive, is reported, never raised.  Each action
    remembers its archive and member, so that export_action(archive path,
    action) writes it back into that member."""
    return archive_import.import_archive(path, members, armature_obj=armature, materials=materials,
                                         options=options, context=context, progress=progress, **kw)


def default_options(**kw):
    return make_options(None, **kw)


# ---------------------------------------------------------------------------
# Export


def export_action(path, action=None, armature=None, materials=None, options=None, context=None, **kw):
    """Writes one action to `path` (atomically: a failure leaves an
    existing file untouched).

    action: default the active object's action.  format: 'bck', 'btk',
    'bca', 'bk', 'jba' or 'AUTO' (the format it was imported from).
    armature: the armature whose bones the action drives (default: the
    object using the action, else the active or only armature).
    materials: BTK only, the materials whose node trees the action animates
    (default: those using it).  options: an ExportOptions or dict; keywords
    override it (rate, frame_range, frame_start, frame_end, compression,
    tolerance, loop, layout, calc_type, translation_scale, up_axis,
    id_property, root_motion, archive_member).

    When `path` is an existing archive (.arc, .szs, ...: by content), the
    animation replaces one member and the archive is rewritten atomically,
    every other member kept: option archive_member, by default the member
    the action was imported from.  An unchanged member leaves the archive
    file untouched.

    An imported, unedited action gives back the original file's bytes;
    edited channels are re-encoded and every other track keeps its
    original data.  Returns an ExportResult (.ok, .notes, .warnings,
    .changed, .summary()); raises ExportError naming the bone and frame of
    what the format cannot hold.
    """
    return exporter.export_action(path, action, armature=armature, materials=materials, options=options,
                                  context=context, **kw)


def export_materials(path, materials=None, options=None, context=None, **kw):
    """Writes the node-tree actions of `materials` (default: the selected
    objects' materials) as one BTK.  Each material needs the texture-mapping
    chain the importer builds (or add_texture_mapping)."""
    return exporter.export_materials(path, materials, options=options, context=context, **kw)


def export_actions(folder, actions=None, armature=None, options=None, context=None, progress=None, **kw):
    """Writes many actions (default: every action with curves in the
    .blend) into `folder`, one file each, named after the imported source
    file or the action.  BTK actions imported from one file (one per
    material) go back into that one file.  progress: optional
    callable(index, count, label, result) called before (result None) and
    after each file.  Returns the list of ExportResult; a failing action is
    a result with .error, never an exception."""
    return exporter.export_actions(folder, actions, armature=armature, options=options, context=context,
                                   progress=progress, **kw)


def add_texture_mapping(material, uv_slot=0, calc_type="basic", center=(0.5, 0.5)):
    """Adds the BTK texture-mapping chain (UV -> centre -> Mapping A ->
    Mapping B -> the slot's image textures) to a material, holding the
    identity mapping, so that a texture animation can be keyed by hand and
    exported.  calc_type 'basic': key A's Rotation Z (= -angle), B's Scale
    X/Y and B's Location (= centre + (Tx, -Ty)); 'maya': key A's Scale X/Y,
    A's Location (= T - 0.5) and B's Rotation Z.  Returns the nodes
    {'centre', 'a', 'b'}."""
    return _add_texture_mapping(material, uv_slot, calc_type, center)


def default_export_options(**kw):
    return make_export_options(None, **kw)


def export_model(path, armature, member=""):
    """Writes the model `armature` was imported from, with its edits, to
    `path` (empty: over the source file or archive member; an archive:
    its member `member`, or the one the model came from).  Returns the
    result (what was re-encoded, notes, warnings); raises ExportError and
    leaves the file as it was when nothing can be written
    (docs/blender.md, Export a model)."""
    from .exporting import model_export

    return model_export.export_model(armature, path, member=member)
