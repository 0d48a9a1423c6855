"""The import itself, free of operators: files in, actions and a report
out.  The operator, the scripting API and the batch entry point all call
import_files()."""
import json
import os
import re

import bpy

from .. import compat, native
from ..shared import archive_members, curve_plans, formats, model_rig
from ..shared.imported_action import ROOT_REST_PROP, same_source, source_properties, stored_format
from ..shared.material_mapping import describe_entries, matched_materials
from ..shared.options import make_options
from ..shared.rig_match import RigIndex, anim_targets
from . import (btk_mapping_chain, curve_writer, foreign_rig_import, kinds, model_mesh, rig_from_animations,
               rig_from_model, rig_layout)
from .import_scale import apply_import_scale
from .report import ImportReport


def file_extensions():
    """The file names a folder import takes (the command-line tool's list,
    from the C registry): the formats' own, Banjo-Kazooie's .bin / .anim,
    and compression wrappers around one file (Yaz0, Yay0, LZ77; a file that
    is not an animation, such as an archive, fails alone with the decoder's
    message)."""
    return formats.file_extensions()


LOOP_CYCLES = {"loop": "REPEAT", "mirror_loop": "MIRROR"}


LAST_REPORT = None  # the report of the latest import (for the UI and tests)


class ImportResult(list):
    """The actions created (a list), with .report (ImportReport)."""

    def __init__(self, actions=(), report=None):
        super().__init__(actions)
        self.report = report if report is not None else ImportReport()


_name_extensions = ()  # (".anim.bin",) + file_extensions(), once the C module lists them


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
        _name_extensions = (".anim.bin",) + file_extensions()
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


def _store_source(action, anim, path, opts, tm, extra):
    """What a later export needs to write an untouched animation back byte
    for byte, and the options that shaped the curves."""
    for key, value in source_properties(anim, path, opts, tm, extra).items():
        action[key] = value


def _collect_armature(armature_obj, opts, context):
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


def _kind_target(target_arm, context):
    """The object a BVA's shapes without an object are keyed on: the
    import's armature, else the active object (None: a new empty)."""
    if target_arm is not None:
        return target_arm
    return context.view_layer.objects.active if context.view_layer else None


def import_files(paths, armature_obj=None, materials=None, options=None, context=None, progress=None, **kw):
    """Imports animation files.  See api.import_files for the documented
    form."""
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
    paths = archive_members.expand(paths)  # an archive: all the members it can import

    target_arm = _collect_armature(armature_obj, opts, context)
    paths, opts = foreign_rig_import.paths_with_model_file(paths, opts, target_arm)
    mats = list(materials) if materials is not None else list(bpy.data.materials)

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
        return _Loaded(fr, anim, path)

    # model files build their armatures first; the animations then go to
    # the model they fit
    paths, rigs = _build_models(ga, paths, report, context, progress, opts, mats)
    for built in rigs or ():
        apply_import_scale(built.obj, opts)
    n = len(paths)
    loading = (x for x in (load_one(i, p) for i, p in enumerate(paths)) if x is not None)
    new_rigs = {}
    if rigs is not None or target_arm is None:
        # a new armature is built from all the files of its format at once,
        # and the files for models go to theirs: load everything first
        loaded = list(loading)
        if rigs is not None:
            model_opts = {}  # (one ImportOptions per model setting, shared by its files: never changed)
            loaded = [it for it in loaded if _dispatch(it, rigs, opts, model_opts)]
        count = len(loaded)
        # one new rig per bone set (or per file: option New Rigs)
        groups = rig_layout.group_files_for_new_rigs(
            [it for it in loaded if rig_layout.is_new_rig_file(it, target_arm)], opts)
        for fmt, items in groups:
            name = file_stem(items[0].path) + "_rig"
            try:
                obj = rig_from_animations.build_armature([it.anim for it in items], fmt, name, context, opts.translation_scale)
            except Exception as e:  # the files that needed this rig fail, the others go on
                for it in items:
                    it.report.error = f"could not build a {fmt} armature: {type(e).__name__}: {e}"
                    it.anim = None
                continue
            apply_import_scale(obj, opts)
            new_rigs[obj.as_pointer()] = obj
            for it in items:
                it.arm = obj
        loaded = [it for it in loaded if it.anim is not None]
        count = len(loaded)
    else:
        # one file at a time: only one decoded file is alive at once, so a
        # bulk import of a whole folder needs the memory of its largest file
        loaded = loading
        count = n
    # the rigs this import built stand side by side (before planning: root
    # motion composes with where the rig stands)
    rig_layout.place_new_rigs([b.obj for b in rigs or ()] + list(new_rigs.values()), context)

    candidates = {}  # owner pointer -> (owner, [(sink, post, file report)]): the actions it may be given
    animated = []  # the armatures that got actions, in order
    first_range = None
    rig_indexes = {}  # one RigIndex per armature for all the files
    for i, item in enumerate(loaded):
        fr, anim, path = item.report, item.anim, item.path
        item.anim = None  # (whatever still refers to the item must not keep the decoded file)
        if progress:
            progress(i, count, path, "import")
        file_opts = item.opts or opts
        tm = time_map_for(anim, file_opts, scene)
        loop = anim.loop
        if loop in ("once_reset", "mirror_once"):
            then = "jumps back to frame 0" if loop == "once_reset" else "plays back to the start"
            fr.notes.append(f"loop mode {loop!r}: the game then {then} and stops; Blender holds the last frame "
                            "(no F-curve modifier does this; the mode is kept for export)")
        try:
            if formats.kind(anim.format):
                made = kinds.import_kind(anim, path, action_name_for(path, anim.format), mats, file_opts, tm, fr,
                                         _kind_target(target_arm, context), _new_action,
                                         lambda action, extra: _store_source(action, anim, path, opts, tm, extra))
            elif formats.is_material(anim.format):
                made = _import_btk(anim, path, mats, opts, tm, fr)
            else:
                arm_obj = item.arm or target_arm
                index = rig_indexes.get(arm_obj.as_pointer())
                if index is None:
                    index = rig_indexes[arm_obj.as_pointer()] = RigIndex(arm_obj)
                write = _prepare_skeletal(anim, path, arm_obj, file_opts, tm, fr, index)
                anim = None  # the decoded keys go before Blender's are made
                made = write()
        except Exception as e:  # a broken file or rig must not stop the batch
            fr.error = f"{type(e).__name__}: {e}"
            continue
        for owner, sink, post in made:
            key = owner.as_pointer()
            _replace_same_name(sink, opts, fr)
            if opts.others == "NLA":
                # every action, the one assigned too: picking another action
                # in the editor must not leave one with no user to be saved
                # (glTF does the same); the strip holds it: no fake user
                compat.stash(owner, sink, sink.action.frame_range[0])
                fr.kept[sink.action.name] = "on a muted NLA track"
            else:
                # nothing else holds it: a fake user keeps it in a saved file
                sink.action.use_fake_user = True
                fr.kept[sink.action.name] = "fake user"
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
        _assign_first(owner, made)
    rig_layout.select_imported(list(dict.fromkeys(
        [b.obj for b in rigs or ()] + list(new_rigs.values()) + animated)), context)
    if opts.set_scene_range and first_range is not None:
        tm, loop = first_range
        scene.frame_start = int(round(tm.start))
        end = int(round(tm.end))
        if loop == "loop":
            end -= 1  # frame `duration` is frame 0 again
        scene.frame_end = max(end, scene.frame_start)
    return result


# the words of an action name that mark a model's idle (case-insensitive,
# whole words: "Wait", "pl_wait", "IdleLoop", "default_01"; not "await")
IDLE_WORDS = ("wait", "idle", "default")
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def is_idle_name(name):
    return any(w.lower() in IDLE_WORDS for w in _WORDS.findall(os.path.splitext(name)[0]))


def pick_first(names):
    """Index of the action an owner is given after an import: the first
    whose name says it is the model's idle (IDLE_WORDS), else the first
    (the files' order, which is the dialog's for an archive)."""
    return next((i for i, n in enumerate(names) if is_idle_name(n)), 0)


def _assign_first(owner, made):
    """Makes the chosen one of the actions made for owner its active
    action (with its slot) and the pose bones' rotation modes its own."""
    sink, post, fr = made[pick_first([fr.path.replace("\\", "/").rsplit("/", 1)[-1] for _s, _p, fr in made])]
    kept = compat.assign(owner, sink)
    if kept is not None:
        fr.notes.append(f"{owner.name}'s previous action {kept.name!r} was replaced; it keeps a "
                        "fake user so that saving does not lose it")
    if post:
        post()
    name = sink.action.name
    fr.kept[name] = "assigned" + (f", {fr.kept[name]}" if name in fr.kept else "")


class _Loaded:
    """A loaded file on its way through import_files.  The importer takes
    `anim` out (sets it to None) when it starts on the file, so that the
    loop's own references to the item (a generator, enumerate) do not keep
    the decoded file alive once its curves are planned.  arm / opts: the
    armature of the model the file goes to and the options for it (None:
    the import's target and options)."""

    __slots__ = ("report", "anim", "path", "arm", "opts")

    def __init__(self, report, anim, path):
        self.report = report
        self.anim = anim
        self.path = path
        self.arm = None
        self.opts = None


def _build_models(ga, paths, report, context, progress=None, opts=None, mats=None):
    """Builds an armature for every model file among paths (detected from
    the content by gameanim.load_model), with its meshes and materials
    (model_mesh; their materials are added to mats, for the BTK files).
    Returns (the other paths, the built rigs, or None when no file is a
    model)."""
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
        rigs.append(built)
        model_mesh.import_geometry(ga, model, built, context, opts, fr, mats, skin)
    if not rigs and len(others) == len(paths):
        return paths, None
    return others, rigs


def _dispatch(item, rigs, opts, model_opts=None):
    """Sends a skeletal file to the first model it fits (joint count;
    Banjo-Kazooie: bone IDs); a file that fits none of the models of its
    kind is reported and not imported.  Material files (BTK) and files
    with no model of their kind among the files go on as usual (the
    import's target armature, or a new one).  model_opts: a dict that
    keeps the options made for the models' files, for the next files."""
    anim = item.anim
    family = [b for b in rigs if anim.format in formats.model_animation_formats(b.rig["format"])]
    if not formats.is_skeletal(anim.format) or not family:
        return True  # (no model of its kind: the usual target)
    targets = anim_targets(anim)
    fits = [b for b in family if model_rig.animation_fits(b.rig, anim.format, targets)]
    if not fits:
        have = ", ".join(f"{b.obj.name} ({b.rig['format']}, {len(b.names)} joints)" for b in family)
        item.report.error = (f"no model among the files fits this {anim.format} file "
                             f"({len(targets)} target(s)); models: {have}")
        item.anim = None
        return False
    built = fits[0]
    if len(fits) > 1:
        item.report.notes.append(f"{len(fits)} models fit; animated {built.obj.name!r}, the first")
    item.arm = built.obj
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
    item.opts = made
    if k != 1.0:
        item.report.notes.append(f"translations scaled by the model's factor {k:g}")
    if ignored:
        item.report.notes.append(f"option(s) {', '.join(ignored)} ignored: the armature built from the model is "
                                 "in the model's own units and axes")
    return True


# the name each new action was meant to have (Blender adds .001 when an
# action of that name exists), by action pointer, until its file is done
_INTENDED_NAMES = {}


def _new_action(name):
    action = compat.new_action(name)
    _INTENDED_NAMES[action.as_pointer()] = name
    return action


def _replace_same_name(sink, opts, fr):
    """With the Replace option, the action an earlier import of the same
    file made under the intended name gives way to the new one (its users
    get the new one).  Another file of the same name (walk.bck of another
    character, in another folder or archive) adds name.001 instead."""
    action = sink.action
    name = _INTENDED_NAMES.pop(action.as_pointer(), None)
    if not opts.replace or name is None or action.name == name:
        return
    old = bpy.data.actions.get(name)
    if old is None or old == action or not stored_format(old):
        return  # only actions this importer made are ever replaced
    if not same_source(old, action):
        return
    compat.replace_action(old, sink)
    action.name = name
    fr.replaced.append(name)


def _prepare_skeletal(anim, path, arm_obj, opts, tm, fr, index=None):
    """Plans a skeletal file's curves and takes what its action stores;
    returns a function that creates the action and writes them.  In
    between, the caller lets go of the Animation: the baked curves need
    none of it, so Blender's keys reuse the decoded keys' memory (a large
    baked import peaks near Blender's own keys, not at those plus the
    decoded file); exact channels keep their Track until their curve is
    written (their buffers are made then, one at a time)."""
    planner = foreign_rig_import.plan_file if opts.model_file else rig_from_animations.plan_file
    res, plans = planner(anim, arm_obj, opts, tm, fr, index)
    props = source_properties(anim, path, opts, tm, {
        "options": {"bone_match": opts.bone_match_for(anim.format), "id_property": opts.id_property},
        "gameanim_bones": json.dumps(res.bones, sort_keys=True),
        "gameanim_rotation_modes": json.dumps(res.rotation_modes, sort_keys=True),
    })
    if res.root_rest is not None:
        props[ROOT_REST_PROP] = res.root_rest
    props.update(getattr(res, "source_extra", {}))
    name = action_name_for(path, anim.format)

    def write():
        action = _new_action(name)
        try:
            sink = compat.CurveSink(action, "OBJECT", arm_obj.name)
            # (empties the list: each plan's buffers go once written; the
            # exact channels' buffers are made there, one curve at a time)
            period_keys = curve_writer.write_plans(sink, plans, tm)
            props["gameanim_period_keys"] = bool(period_keys)
            for key, value in props.items():
                action[key] = value
        except BaseException:
            bpy.data.actions.remove(action)  # no half-written action is left behind
            raise
        if period_keys:
            fr.notes.append("held keys added at frame 0 / the duration so that the Cycles modifier loops over "
                            "the file's duration")
        if res.root_rest is not None and arm_obj.get(ROOT_REST_PROP) is None:
            # later imports compose with this, not with the animated transform
            arm_obj[ROOT_REST_PROP] = res.root_rest
        fr.owners.append(arm_obj.name)
        return [(arm_obj, sink, lambda: rig_from_animations.apply_rotation_modes(arm_obj, action))]

    return write


def _import_btk(anim, path, mats, opts, tm, fr):
    made = []
    for mat, entries, name in matched_materials(anim, mats, action_name_for(path, anim.format), fr,
                                                lambda e: f", UV {e['texmtx_id']}"):
        mat_name = entries[0][1]["material"]  # (the file's name)
        action = _new_action(name)
        tree = compat.material_node_tree(mat)
        sink = compat.CurveSink(action, compat.node_tree_id_type(), tree.name)
        notes, used, period_keys = [], set(), False
        kept = []
        for i, e in entries:
            slot = int(e["texmtx_id"])
            if slot == 0xFF or slot > 7:
                notes.append(f"entry {i} (material {mat_name!r}) has texture-matrix slot {slot}: skipped")
                continue
            if slot in used:
                notes.append(f"entry {i}: material {mat_name!r} UV {slot} is animated twice; the first wins")
                continue
            if not btk_mapping_chain.slot_is_read(mat, slot):
                # no image reads the slot: a chain there would animate nothing
                fr.unmatched.append(f"entry {i} (material {mat_name!r}, UV {slot}: no image texture reads it)")
                continue
            if e.get("post"):
                notes.append(f"entry {i} is a post-texgen matrix; mapped like a texture matrix")
            used.add(slot)
            kept.append((i, e))
            period_keys |= btk_mapping_chain.apply_entry(anim, i, e, mat, sink, tm, notes)
        fr.notes.extend(notes)
        if not kept:  # nothing of this material is read: no chain, no action
            bpy.data.actions.remove(action)
            continue
        fr.owners.append(mat.name)
        _store_source(action, anim, path, opts, tm, {
            "gameanim_material": mat.name,
            "gameanim_calc_type": anim.calc_type or "",
            "gameanim_entries": describe_entries(kept),
            "gameanim_period_keys": bool(period_keys),
        })
        made.append((tree, sink, None))
    return made


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
