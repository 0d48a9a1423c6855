"""What an import does, decided before any animation is written (glTF's
way: decide what goes where, then build): which files there are (archive
members, option Model File's model), the armature they go to (the given
or active one, the rig of a model among the files, or a new rig shared by
a group of files), their writer (skeletal, BTK, or another J3D kind),
their action's name, options and time map.  Plain data: nothing here
writes to Blender (the models' rigs, which the animations are sent to,
are built before: model_import)."""
import os

import bpy

from ..shared import archive_members, curve_plans, formats, model_rig
from ..shared.options import make_options
from ..shared.rig_match import anim_targets
from . import foreign_rig_import, rig_layout

LOOP_CYCLES = {"loop": "REPEAT", "mirror_loop": "MIRROR"}

SKELETAL, MATERIAL, KIND = "skeletal", "material", "kind"  # FilePlan.writer


_name_extensions = ()  # (".anim.bin",) + the registry's extensions, once the C module lists them


def action_name_for(path, fmt=None):
    """An imported action's name: its file's name without extensions and
    wrappers, then the extension of its kind ("Hit.bck", "Hit.btp",
    "walk.szs" holding a BCK: "walk.bck"), so that the actions of one set
    do not collide as Hit / Hit.001.  Without fmt: the bare stem."""
    stem = file_stem(path)
    return stem + formats.default_extension(fmt) if fmt else stem


def file_stem(path):
    """A file's name without its format's and wrappers' extensions
    (walk.bck, walk.szs -> walk; x.anim.bin -> x): armatures built for
    files are named after it."""
    global _name_extensions
    if len(_name_extensions) < 2:
        _name_extensions = (".anim.bin",) + formats.file_extensions()
    name = os.path.basename(str(path))
    for ext in _name_extensions:
        if name.lower().endswith(ext) and len(name) > len(ext):
            return name[: -len(ext)]
    return os.path.splitext(name)[0] or name


def time_map_for(anim, opts, scene):
    scale = 1.0
    if opts.frame_rate == "SCENE" and anim.fps:
        scene_fps = scene.render.fps / scene.render.fps_base
        scale = scene_fps / anim.fps
    cycles = LOOP_CYCLES.get(anim.loop) if opts.use_cycles else None
    start, end = file_range(anim)
    rule = opts.frame_rule if formats.full_frame(anim.format) else None
    return curve_plans.TimeMap(start, end, scale, opts.frame_offset, cycles, rule)


def file_range(anim):
    """(first, last) file frame.  Banjo-Kazooie keeps the file's own frame
    numbers (its header has a start and an end frame; the frame count is
    end - start + 1); every other format runs from 0 to its frame count."""
    if formats.keeps_frame_numbers(anim.format):
        start = float(anim.start_frame or 0.0)
        end = (anim.info or {}).get("end_frame")
        if end is None:
            end = start + max(anim.frame_count - 1.0, 0.0)
        return start, float(end)
    return 0.0, float(anim.frame_count)


class FilePlan:
    """One loaded animation file and where it goes.  The importer takes
    `anim` out (sets it to None) when it starts on the file, so that the
    loop's own references to the plan (a generator, enumerate) do not keep
    the decoded file alive once its curves are planned.  arm: the
    armature of the model (or new rig) the file goes to, None for the
    import's target; opts: the options for this file (a model's rig sets
    its own units and axes); writer: SKELETAL, MATERIAL or KIND."""

    __slots__ = ("report", "anim", "path", "arm", "opts", "writer", "action_name")

    def __init__(self, report, anim, path, opts):
        self.report = report
        self.anim = anim
        self.path = path
        self.arm = None
        self.opts = opts
        self.writer = KIND if formats.kind(anim.format) else MATERIAL if formats.is_material(anim.format) \
            else SKELETAL
        self.action_name = action_name_for(path, anim.format)


class ImportPlan:
    """The import's decisions.  paths: the files (after the models are
    taken out: files_of); files: the FilePlans in import order (a
    generator when the files are loaded one at a time), count: how many;
    new_rigs: [(format, armature name, [FilePlan])], the armatures to
    build for files with no rig."""

    def __init__(self, opts, target_arm, mats, paths):
        self.opts = opts
        self.target_arm = target_arm
        self.mats = mats
        self.paths = paths
        self.files = ()
        self.count = 0
        self.new_rigs = []

    def drop_failed(self):
        """Leaves out the files that lost their decoded animation once
        planned (their new rig could not be built)."""
        self.files = [fp for fp in self.files if fp.anim is not None]
        self.count = len(self.files)


def plan_sources(paths, armature_obj, materials, opts, context):
    """The import's files (each archive: the members it can import), its
    target armature and the materials BTK and the other kinds go to."""
    paths = archive_members.expand(paths)  # an archive: all the members it can import
    target_arm = collect_armature(armature_obj, opts, context)
    paths, opts = foreign_rig_import.paths_with_model_file(paths, opts, target_arm)
    mats = list(materials) if materials is not None else list(bpy.data.materials)
    return ImportPlan(opts, target_arm, mats, paths)


def collect_armature(armature_obj, opts, context):
    if armature_obj is not None:
        if getattr(armature_obj, "type", None) != "ARMATURE":
            raise TypeError(f"{armature_obj!r} is not an armature object")
        return armature_obj
    if opts.target == "NEW":
        return None
    active = context.view_layer.objects.active if context.view_layer else None
    if active is not None and active.type == "ARMATURE":
        return active
    if opts.target == "ACTIVE":
        raise ValueError("no active armature (option Target is Active Armature)")
    return None


def kind_target(target_arm, context):
    """The object a BVA's shapes without an object are keyed on: the
    import's armature, else the active object (None: a new empty).  Asked
    when the file is written: a rig the import built is active by then."""
    if target_arm is not None:
        return target_arm
    return context.view_layer.objects.active if context.view_layer else None


def plan_files(ga, plan, paths, rigs, report, progress=None):
    """Loads the animation files (paths: the import's files that are not
    models) and decides where each goes (plan.files, plan.count,
    plan.new_rigs).  rigs: the rigs built from the models among the files,
    or None.  Onto a given armature the files are loaded one at a time as
    the importer asks for them (plan.files is a generator): only one
    decoded file is alive at once, so a bulk import of a whole folder needs
    the memory of its largest file.  A new armature is built from all the
    files of its format at once, and the files for models go to theirs:
    then every file is loaded first."""
    opts, target_arm = plan.opts, plan.target_arm
    plan.paths = paths
    n = len(paths)

    def load_one(i, path):
        if progress:
            progress(i, n, path, "load")
        fr = report.add(path)
        try:
            anim = ga.load(archive_members.content_of(path), keyless_rule=opts.keyless_rule)
        except (ga.FormatError, OSError, ValueError) as e:
            fr.error = str(e) or type(e).__name__
            return None
        fr.format = anim.format
        fr.compression = anim.compression
        if formats.full_frame(anim.format):
            anim.frame_rule = opts.frame_rule  # (the baked bones sample by it too)
        why = formats.unsupported_message(anim.format)
        if why:
            fr.error = why
            return None
        return FilePlan(fr, anim, path, opts)

    loading = (x for x in (load_one(i, p) for i, p in enumerate(paths)) if x is not None)
    if rigs is None and target_arm is not None:
        plan.files, plan.count = loading, n
        return plan
    loaded = list(loading)
    if rigs is not None:
        model_opts = {}  # (one ImportOptions per model setting, shared by its files: never changed)
        loaded = [fp for fp in loaded if _to_model(fp, rigs, opts, model_opts)]
    plan.files, plan.count = loaded, len(loaded)
    # one new rig per bone set (or per file: option New Rigs)
    groups = rig_layout.group_files_for_new_rigs(
        [fp for fp in loaded if rig_layout.is_new_rig_file(fp, target_arm)], opts)
    plan.new_rigs = [(fmt, file_stem(items[0].path) + "_rig", items) for fmt, items in groups]
    return plan


def _to_model(fp, rigs, opts, model_opts=None):
    """Sends a skeletal file to the first model it fits (joint count;
    Banjo-Kazooie: bone IDs); a file that fits none of the models of its
    kind is reported and not imported.  Material files (BTK) and files
    with no model of their kind among the files go on as usual (the
    import's target armature, or a new one).  model_opts: a dict that
    keeps the options made for the models' files, for the next files."""
    anim = fp.anim
    family = [b for b in rigs if anim.format in formats.model_animation_formats(b.rig["format"])]
    if not formats.is_skeletal(anim.format) or not family:
        return True  # (no model of its kind: the usual target)
    targets = anim_targets(anim)
    fits = [b for b in family if model_rig.animation_fits(b.rig, anim.format, targets)]
    if not fits:
        have = ", ".join(f"{b.obj.name} ({b.rig['format']}, {len(b.names)} joints)" for b in family)
        fp.report.error = (f"no model among the files fits this {anim.format} file "
                           f"({len(targets)} target(s)); models: {have}")
        fp.anim = None
        return False
    built = fits[0]
    if len(fits) > 1:
        fp.report.notes.append(f"{len(fits)} models fit; animated {built.obj.name!r}, the first")
    fp.arm = built.obj
    # the rig is in the model's own units and axes: Translation Scale is
    # the model's (Banjo-Kazooie's k, else 1), Rig Up Axis and Model File
    # do not apply
    k = built.rig.get("translation_scale", 1.0) if formats.is_delta(anim.format) else 1.0
    set_by_model = {"translation_scale": k, "up_axis": "NONE"}
    if hasattr(opts, "model_file"):
        set_by_model["model_file"] = ""
    ignored = [name for name, value in set_by_model.items() if name != "translation_scale" and
               getattr(opts, name) != value]
    if opts.translation_scale != 1.0:
        ignored.append("translation_scale")
    key = tuple(set_by_model.items())
    made = model_opts.get(key) if model_opts is not None else None
    if made is None:
        made = make_options(opts, **set_by_model)
        if model_opts is not None:
            model_opts[key] = made
    fp.opts = made
    if k != 1.0:
        fp.report.notes.append(f"translations scaled by the model's factor {k:g}")
    if ignored:
        fp.report.notes.append(f"option(s) {', '.join(ignored)} ignored: the armature built from the model is "
                               "in the model's own units and axes")
    return True
