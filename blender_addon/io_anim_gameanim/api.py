"""Scripting API (stable): the same import as the operator, for Blender
scripts and batch jobs.

    from io_anim_gameanim import api          # or bl_ext.<repo>.io_anim_gameanim
    actions = api.import_files(["walk.bck", "scroll.btk"], armature=bpy.data.objects["Rig"],
                               bone_match="NAME", frame_offset=1)
    print(actions.report.text())

Every keyword of ImportOptions is accepted (see docs/blender.md); unknown
keywords raise TypeError, bad values ValueError.  Failed files are listed
in the report and never raise.
"""
from . import importer
from .importer import ImportResult, collect_files, original_bytes
from .options import ImportOptions, make_options
from .report import ImportReport

__all__ = ["import_files", "import_file", "import_folder", "ImportOptions", "ImportResult", "ImportReport",
           "original_bytes", "collect_files"]


def import_files(paths, armature=None, materials=None, options=None, context=None, progress=None, **kw):
    """Imports animation files (any of the five formats, any compression
    wrapper, detected from the content).

    paths: a path or a list of paths.  armature: the armature object that
    receives skeletal animations (default: the active armature, or a new
    armature built from the animations, per option `target`).  materials:
    the materials BTK entries may animate (default: all of bpy.data).
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


def default_options(**kw):
    return make_options(None, **kw)
