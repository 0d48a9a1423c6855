"""The import itself, free of operators: files in, actions and a report
out.  The operator, the scripting API and the batch entry point all call
import_files(), which runs the import's phases in order (its docstring
lists them); each phase is a module below this one and none calls back
up."""
import os

import bpy

from .. import native
from ..shared import archive_members, formats
from ..shared.options import make_options
from ..shared.rig_match import RigIndex
from . import actions, btk_import, import_plan, kinds, model_import, rig_from_animations, rig_layout, skeletal_import
from .report import ImportReport


def file_extensions():
    """The file names a folder import takes (the command-line tool's list,
    from the C registry): the formats' own, Banjo-Kazooie's .bin / .anim,
    and compression wrappers around one file (Yaz0, Yay0, LZ77; a file that
    is not an animation, such as an archive, fails alone with the decoder's
    message)."""
    return formats.file_extensions()


LAST_REPORT = None  # the report of the latest import (for the UI and tests)


class ImportResult(list):
    """The actions created (a list), with .report (ImportReport)."""

    def __init__(self, actions=(), report=None):
        super().__init__(actions)
        self.report = report if report is not None else ImportReport()


def import_files(paths, armature_obj=None, materials=None, options=None, context=None, progress=None, **kw):
    """Imports animation files.  See api.import_files for the documented
    form.  The phases, in order: the plan of the sources (import_plan),
    the models' rigs and meshes (model_import), the plan of each animation
    file (import_plan), the new rigs (rig_from_animations), then each file
    through its writer (skeletal_import, btk_import, kinds) to its action
    and F-curves (curve_writer), and the actions kept and assigned
    (actions)."""
    global LAST_REPORT
    opts = make_options(options, **kw)
    context = context or bpy.context
    scene = context.scene
    report = LAST_REPORT = ImportReport()
    result = ImportResult(report=report)
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = [p if isinstance(p, str) else str(p) for p in paths]  # (archive members are str)
    try:
        ga = native.require()
    except native.GameanimMissing as e:
        for p in paths:
            report.add(p).error = str(e)
        return result
    plan = import_plan.plan_sources(paths, armature_obj, materials, opts, context)
    opts, target_arm = plan.opts, plan.target_arm

    # model files build their armatures first; the animations then go to
    # the model they fit
    paths, rigs = model_import.build_models(ga, plan.paths, report, context, progress, opts, plan.mats)
    import_plan.plan_files(ga, plan, paths, rigs, report, progress)
    new_rigs = []
    if plan.new_rigs:
        new_rigs = rig_from_animations.build_new_rigs(plan.new_rigs, context, opts)
        plan.drop_failed()
    # the rigs this import built stand side by side (before planning: root
    # motion composes with where the rig stands)
    rig_layout.place_new_rigs([b.obj for b in rigs or ()] + new_rigs, context)

    candidates = {}  # owner pointer -> (owner, [(sink, post, file report)]): the actions it may be given
    animated = []  # the armatures that got actions, in order
    first_range = None
    rig_indexes = {}  # one RigIndex per armature for all the files
    for i, fp in enumerate(plan.files):
        fr, anim, path = fp.report, fp.anim, fp.path
        fp.anim = None  # (whatever still refers to the plan must not keep the decoded file)
        if progress:
            progress(i, plan.count, path, "import")
        tm = import_plan.time_map_for(anim, fp.opts, scene)
        loop = anim.loop
        if loop in ("once_reset", "mirror_once"):
            then = "jumps back to frame 0" if loop == "once_reset" else "plays back to the start"
            fr.notes.append(f"loop mode {loop!r}: the game then {then} and stops; Blender holds the last frame "
                            "(no F-curve modifier does this; the mode is kept for export)")
        try:
            if fp.writer == import_plan.KIND:
                made = kinds.import_kind(anim, fp, tm, plan.mats, import_plan.kind_target(target_arm, context))
            elif fp.writer == import_plan.MATERIAL:
                made = btk_import.import_btk(anim, fp, tm, plan.mats)
            else:
                arm_obj = fp.arm or target_arm
                index = rig_indexes.get(arm_obj.as_pointer())
                if index is None:
                    index = rig_indexes[arm_obj.as_pointer()] = RigIndex(arm_obj)
                write = skeletal_import.prepare(anim, fp, arm_obj, tm, index)
                anim = None  # the decoded keys go before Blender's are made
                made = write()
        except Exception as e:  # a broken file or rig must not stop the batch
            fr.error = f"{type(e).__name__}: {e}"
            continue
        for owner, sink, post in made:
            key = owner.as_pointer()
            actions.replace_same_name(sink, opts, fr)
            actions.keep(owner, sink, opts, fr)
            if opts.assign:
                candidates.setdefault(key, (owner, []))[1].append((sink, post, fr))
            if getattr(owner, "type", None) == "ARMATURE" and owner not in animated:
                animated.append(owner)
            if sink.action not in result:  # (a BVA's one action has a slot per object)
                result.append(sink.action)
                fr.actions.append(sink.action.name)
        if first_range is None and made:
            first_range = (tm, loop)

    for owner, made in candidates.values():
        actions.assign_first(owner, made)
    rig_layout.select_imported(list(dict.fromkeys(
        [b.obj for b in rigs or ()] + new_rigs + animated)), context)
    if opts.set_scene_range and first_range is not None:
        tm, loop = first_range
        scene.frame_start = int(round(tm.start))
        end = int(round(tm.end))
        if loop == "loop":
            end -= 1  # frame `duration` is frame 0 again
        scene.frame_end = max(end, scene.frame_start)
    return result


def collect_files(items, extensions=None):
    """Files to import from files and folders (folders recursively, files
    with one of the extensions, sorted; default: file_extensions() and the
    archives', whose members import_files reads)."""
    if extensions is None:
        extensions = file_extensions() + archive_members.archive_extensions()
    extensions = tuple(extensions)
    out = []
    for item in items:
        item = str(item)
        if os.path.isdir(item):
            found = []
            for root, dirs, files in os.walk(item):
                dirs.sort()
                for f in files:
                    if f.lower().endswith(extensions) and not f.startswith("."):
                        found.append(os.path.join(root, f))
            out.extend(sorted(found))
        else:
            out.append(item)
    return out
