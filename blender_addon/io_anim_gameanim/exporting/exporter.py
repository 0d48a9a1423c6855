"""The export itself, free of operators: an action (or a BTK's material
actions) in, a file out, written atomically.  The operators, the scripting
API and the batch entry point all call export_action() /
export_materials().

What a format cannot hold is an ExportError (or, for rounding the format
forces, a warning in the result) naming the Blender bone and the frame;
nothing is clamped silently.  A failed export leaves an existing file
untouched: the bytes are encoded completely before gameanim.write_atomic
writes them to a temporary file in the same folder and renames it."""
import os
import re
import warnings

import bpy

from .. import compat, native
from ..shared import formats
from ..shared.imported_action import MATERIAL_PROP, ORIGINAL_PROP, SOURCE_PROP, stored_format
from ..shared.options import make_export_options
from . import export_archive
from .export_armature import SkeletalExport
from .export_kinds import KindExport, is_kind_action, new_owners, sibling_actions
from .export_material import BtkExport
from .export_tracks import ExportError, wrap_full_frame_rotations

LAST_RESULT = None  # the latest export's result (for the UI and tests)


class ExportResult:
    """What one export did."""

    def __init__(self, path, action_names, fmt):
        self.path = str(path)
        self.actions = list(action_names)
        self.format = fmt
        self.compression = None
        self.size = 0
        self.error = None
        self.notes = []           # things the user should know (not failures)
        self.warnings = []        # precision warnings of the encoder, with bone names
        self.changed = []         # re-encoded channels
        self.original = False     # the stored original bytes came back unchanged
        self.report = None        # Animation.encode_report
        self.archive = None       # written into a member of this archive (export_archive) ...
        self.member = None        # ... this one
        self.others_unchanged = None  # every other member kept its bytes (checked after the write; None: no archive)
        self.other_members = 0    # how many other members the archive holds
        self.archive_rewritten = False

    @property
    def ok(self):
        return self.error is None

    @property
    def name(self):
        base = os.path.basename(self.path)
        return f"{base}:{self.member}" if self.member else base

    def summary(self):
        who = ", ".join(self.actions) or "?"
        if not self.ok:
            return f"{who}: FAILED: {self.error}"
        what = self.format + (f" in {self.compression}" if self.compression else "")
        if self.original:
            how = "unchanged, original bytes"
        elif self.changed:
            how = f"{len(self.changed)} channel group(s) re-encoded"
            if self.report:
                how += f", {self.report.get('reused_tracks', 0)} track(s) kept"
        else:
            how = "re-encoded"
        return f"{who} -> {self.name}: {what}, {self.size} bytes ({how})"

    def lines(self):
        out = [self.summary()]
        out.extend(f"  note: {n}" for n in self.notes)
        out.extend(f"  warning: {w}" for w in self.warnings)
        return out

    def text(self):
        return "\n".join(self.lines())

    def __repr__(self):
        return f"<ExportResult {self.summary()}>"


# ---------------------------------------------------------------------------
# Choosing what to export


def resolve_format(action, fmt):
    if fmt and fmt != "AUTO":
        if not formats.known(fmt):
            raise ExportError(f"unknown format {fmt!r}; one of {', '.join(formats.names())}")
        return fmt
    stored = stored_format(action)
    if not stored:
        raise ExportError(f"action {getattr(action, 'name', None)!r} was not imported by gameanim: "
                          f"choose the format to write")
    return stored


def format_for(action, fmt="AUTO", path=""):
    """The format an export of `action` writes: fmt unless AUTO, else the
    format the action was imported from, else the one the file extension
    names (the first format of that extension); None when none says."""
    if fmt and fmt != "AUTO":
        return fmt
    stored = stored_format(action)
    if stored:
        return stored
    name = os.path.basename(str(path or "")).lower()
    for f in formats.names():
        if any(name.endswith(ext) for ext in formats.traits(f).get("extensions") or ()):
            return f
    return None


def active_action(context):
    """The active object's action, else (BRK, BPK, BTP) its active
    material's."""
    obj = context.view_layer.objects.active if context.view_layer else None
    ad = obj.animation_data if obj is not None else None
    if ad is not None and ad.action is not None:
        return ad.action
    mat = getattr(obj, "active_material", None) if obj is not None else None
    ad = mat.animation_data if mat is not None else None
    return ad.action if ad is not None else None


def find_armature(action, armature, context):
    if armature is not None:
        if getattr(armature, "type", None) != "ARMATURE":
            raise TypeError(f"{armature!r} is not an armature object")
        return armature
    users = [o for o in compat.users_of(action, "OBJECT") if o.type == "ARMATURE"]
    active = context.view_layer.objects.active if context.view_layer else None
    if active is not None and active in users:
        return active
    if users:
        return users[0]
    if active is not None and active.type == "ARMATURE":
        return active
    arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    if len(arms) == 1:
        return arms[0]
    raise ExportError(f"no armature to export action {action.name!r} from: assign it to an armature, make one "
                      f"active, or pass armature=")


def materials_using(action):
    """Materials whose node tree animates with `action` (active or NLA), and
    for an imported BTK action the material it was imported onto."""
    out = []
    trees = {t.as_pointer() for t in compat.users_of(action, compat.node_tree_id_type())}
    for m in bpy.data.materials:
        if m.node_tree is not None and m.node_tree.as_pointer() in trees:
            out.append(m)
    stored = action.get(MATERIAL_PROP)
    if stored and stored in bpy.data.materials and bpy.data.materials[stored] not in out:
        out.append(bpy.data.materials[stored])
    return out


def selected_materials(context):
    """Materials of the selected objects (every slot) with a node-tree
    action."""
    out = []
    for ob in context.selected_objects or ():
        for slot in getattr(ob, "material_slots", ()):
            m = slot.material
            if m is not None and m not in out and node_tree_action(m) is not None:
                out.append(m)
    return out


def node_tree_action(mat):
    tree = mat.node_tree
    ad = tree.animation_data if tree is not None else None
    return ad.action if ad is not None else None


# ---------------------------------------------------------------------------
# Encoding and writing


TARGET_PATTERNS = (re.compile(r"\b(?:joint|entry|bone) (-?\d+)\b"), re.compile(r"\bbone '([^']*)'"))
TRACK_PATTERN = re.compile(r"\btracks?(?: |\[)(\d+)\b")


def with_bone_names(message, anim, bone_of, fmt):
    """Adds the Blender bone (or material slot) to a codec message that
    names a target by index, ID or file name."""
    def name(target):
        bone = bone_of.get(target)
        if bone is None:
            return None
        plain = formats.is_material(fmt) or formats.kind(fmt)
        return "the armature object" if bone == "" else (bone if plain else repr(bone))

    found = []
    for pat in TARGET_PATTERNS:
        for m in pat.finditer(message):
            raw = m.group(1)
            target = int(raw) if raw.lstrip("-").isdigit() and pat is TARGET_PATTERNS[0] else raw
            n = name(target)
            if n and n not in found:
                found.append(n)
    for m in TRACK_PATTERN.finditer(message):
        i = int(m.group(1))
        tracks = anim.tracks
        if 0 <= i < len(tracks):
            n = name(tracks[i].target)
            if n and n not in found:
                found.append(n)
    if not found:
        return message
    if formats.kind(fmt):
        return f"{', '.join(found)}: {message}"
    what = "material slot" if formats.is_material(fmt) else "Blender bone"
    return f"{what} {', '.join(found)}: {message}"


def _largest_rotation(anim, bone_of):
    """The rotation key with the largest magnitude (value or slope): for
    the J3D message that no rotation shift fits."""
    best = None
    for t in anim.tracks:
        if t.channel != "rotation" or len(t) == 0:
            continue
        for arr in (t.values, t.in_slopes, t.out_slopes):
            hi, lo = max(arr), min(arr)
            v = hi if abs(hi) >= abs(lo) else lo
            if best is None or not abs(v) <= abs(best[0]):
                best = (v, t, arr.index(v))
    if best is None:
        return ""
    v, t, i = best
    bone = bone_of.get(t.target, t.target)
    return f" (largest: bone {bone!r} rotation {'XYZ'[t.axis % 3]} = {v:g} at frame {t.times[i]:g})"


def encode(anim, xopts, exp, result):
    ga = native.require()
    comp = xopts.compression
    if comp == "AS_IMPORTED":
        comp = anim.compression
    elif comp == "NONE":
        comp = None
    tol = xopts.tolerance
    if formats.drops_linear_keys(anim.format) and xopts.rate != "FRAMES":
        tol = 0.0  # (that encoder drops collinear LINEAR keys; Keep Keys keeps the user's keys)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ga.PrecisionWarning)
        try:
            data = anim.to_bytes(compression=comp, tolerance=tol)
        except (ga.EncodeError, ValueError) as e:
            msg = with_bone_names(str(e), anim, exp.bone_of, anim.format)
            if "rotation shift" in msg and "joint" not in msg:
                msg += _largest_rotation(anim, exp.bone_of)
            err = ExportError(msg + frames_note(exp))
            err.located = True
            raise err from e
    for w in caught:
        if issubclass(w.category, ga.PrecisionWarning):
            result.warnings.append(with_bone_names(str(w.message), anim, exp.bone_of, anim.format)
                                   + frames_note(exp))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    rep = result.report = anim.encode_report or {}
    if not result.warnings and rep.get("rounded") and rep.get("max_error", 0.0) > 0.0:
        # rounding the encoder reports without a PrecisionWarning (values on
        # the format's grid to within its step): still said, as the docs promise
        where = rep.get("max_error_at") or ""
        result.warnings.append(with_bone_names(
            f"{rep['rounded']} value(s) rounded to what {anim.format} stores (worst error {rep['max_error']:.3g}"
            + (f" at {where}" if where else "") + ")", anim, exp.bone_of, anim.format))
    result.compression = comp
    original = anim.original_bytes()
    result.original = original is not None and data == original
    return data


def write(path, data):
    ga = native.require()
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ExportError(f"folder {folder!r} does not exist")
    try:
        ga.write_atomic(path, data)
    except OSError as e:  # (the target is untouched: write_atomic replaces it only when all is written)
        raise ExportError(f"could not write {path!r}: {e.strerror or e}") from e


# ---------------------------------------------------------------------------
# Entry points


def frames_note(exp):
    """Messages count file frames; say how they sit in the scene when the
    two differ."""
    tm = getattr(exp, "tm", None)
    if tm is None or (tm.scale == 1.0 and tm.offset == 0.0):
        return ""
    if tm.scale == 1.0:
        return f" (file frames: file frame 0 is scene frame {tm.offset:g})"
    return f" (file frames: scene frame = file frame x {tm.scale:g} + {tm.offset:g})"


class _Located:
    """Adds the frame note to an ExportError raised while building or
    encoding."""

    def __init__(self, exp):
        self.exp = exp

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is not None and issubclass(kind, ExportError) and not getattr(value, "located", False):
            err = ExportError(f"{value}{frames_note(self.exp)}")
            err.located = True
            raise err from value
        return False


def build_skeletal(action, fmt, xopts, armature, context, result):
    arm = find_armature(action, armature, context)
    exp = SkeletalExport(action, fmt, xopts, arm, context.scene, result.notes)
    with _Located(exp):
        anim = exp.run()
    if formats.full_frame(fmt):
        wrap_full_frame_rotations(native.require(), anim)
    result.changed = exp.changed
    result.warnings.extend(exp.warnings)
    return anim, exp


def build_btk(pairs, xopts, context, result):
    exp = BtkExport(pairs, xopts, context.scene, result.notes)
    with _Located(exp):
        anim = exp.run()
    result.changed = exp.changed
    return anim, exp


def export_action(path, action=None, armature=None, materials=None, options=None, context=None, **kw):
    """Writes one action to `path`; see api.export_action."""
    global LAST_RESULT
    native.require()
    xopts = make_export_options(options, **kw)
    context = context or bpy.context
    if action is None:
        action = active_action(context)
        if action is None and materials:
            action = node_tree_action(materials[0])
        if action is None:
            raise ExportError("nothing to export: select the animated armature (or, for a texture animation, an "
                              "object whose material is animated) and make it active; scripts can pass action=")
    fmt = resolve_format(action, xopts.format)
    result = LAST_RESULT = ExportResult(path, [action.name], fmt)
    into = export_archive.target(path, xopts.archive_member, action, result.notes, fmt)  # (None: a loose file)
    if formats.kind(fmt):
        if stored_format(action) == fmt and action.get(ORIGINAL_PROP):
            return export_kind(path, sibling_actions(action), fmt, xopts, context, into=into, notes=result.notes)
        return export_kind(path, [action], fmt, xopts, context, new_owners(action, fmt, materials, context),
                           into=into, notes=result.notes)
    if formats.is_material(fmt):
        mats = list(materials) if materials is not None else materials_using(action)
        if not mats:
            raise ExportError(f"action {action.name!r} animates no material's node tree: pass materials=")
        anim, exp = build_btk([(m, action) for m in mats], xopts, context, result)
    else:
        anim, exp = build_skeletal(action, fmt, xopts, armature, context, result)
    return _write_encoded(path, anim, xopts, exp, result, into)


def _write_encoded(path, anim, xopts, exp, result, into=None):
    """Encodes anim, writes the file (or, into: the archive member)
    atomically and completes the result."""
    if into is not None and xopts.compression == "AS_IMPORTED":
        # (as the member it replaces is stored, which the game expects)
        xopts = make_export_options(xopts, compression=export_archive.member_compression(into) or "NONE")
    data = encode(anim, xopts, exp, result)
    if into is not None:
        export_archive.write_member(into, data, result)
    else:
        write(path, data)
    result.size = len(data)
    return result


def export_kind(path, actions, fmt, xopts, context, owners=None, into=None, notes=()):
    """Writes the actions imported from one BRK, BPK, BTP or BVA file back
    into one file, or (owners) a new file from keyed properties
    (export_kinds).  into: the archive member to write instead of a loose
    file (export_archive.target); notes: the caller's notes so far."""
    global LAST_RESULT
    names = [a.name for a in actions] if owners is None else sorted({a.name for _o, a in owners} or {actions[0].name})
    result = LAST_RESULT = ExportResult(path, names, fmt)
    result.notes.extend(notes)
    exp = KindExport(actions, fmt, xopts, context.scene, result.notes, owners)
    with _Located(exp):
        anim = exp.run()
    result.changed = exp.changed
    return _write_encoded(path, anim, xopts, exp, result, into)


def export_materials(path, materials=None, options=None, context=None, **kw):
    """Writes the node-tree actions of materials as one BTK; see
    api.export_materials."""
    native.require()
    xopts = make_export_options(options, **kw)
    context = context or bpy.context
    mats = list(materials) if materials is not None else selected_materials(context)
    pairs = [(m, node_tree_action(m)) for m in mats]
    missing = [m.name for m, a in pairs if a is None]
    if missing:
        raise ExportError(f"material(s) {', '.join(repr(n) for n in missing)} have no node-tree action")
    if not pairs:
        raise ExportError("no material with a node-tree action selected")
    return export_pairs(path, pairs, xopts, context)


def default_file_name(action, fmt):
    """A file name for an action: its imported source name when the format
    is the same, else the action's name with the format's extension."""
    src = action.get(SOURCE_PROP)
    if src and stored_format(action) == fmt:
        return src
    return default_file_name_from_action(action, fmt)


# ---------------------------------------------------------------------------
# Many actions at once


def action_id_type(action):
    """'NODETREE' for material (BTK) actions, else 'OBJECT'."""
    if formats.is_material(stored_format(action)):
        return "NODETREE"
    if is_kind_action(action):
        return action.get("gameanim_owner_type") or "OBJECT"
    if compat.action_id_types(action) == {"NODETREE"}:
        return "NODETREE"
    return "OBJECT"


class ExportJob:
    """One file of a batch: the actions (several for a BTK imported onto
    several materials), the format, the materials (BTK) and the path."""

    def __init__(self, actions, fmt, path, materials=None):
        self.actions = actions
        self.format = fmt
        self.path = path
        self.materials = materials


def plan_jobs(actions, folder, fmt=None):
    """Groups actions into files.  BTK actions imported from one file (one
    per material) go back into that one file; every other action is a file
    of its own, named after its source file (same format) or itself."""
    jobs, used, errors = [], set(), []
    btk_groups = {}
    for action in actions:
        try:
            f = resolve_format(action, fmt or "AUTO")
        except ExportError as e:
            errors.append((action, str(e)))
            continue
        material = formats.is_material(f)
        if (material or formats.kind(f)) and action.get(ORIGINAL_PROP) and stored_format(action) == f:
            btk_groups.setdefault((f, action[ORIGINAL_PROP]), []).append(action)
            continue
        if material != (action_id_type(action) == "NODETREE"):
            errors.append((action, f"action {action.name!r} animates "
                                   f"{'objects' if material else 'materials'}; it cannot be written as {f}"))
            continue
        jobs.append(ExportJob([action], f, None))
    for (f, _data), group in btk_groups.items():
        jobs.append(ExportJob(group, f, None))
    for job in jobs:
        name = default_file_name(job.actions[0], job.format)
        if name in used:
            name = default_file_name_from_action(job.actions[0], job.format)
        base, ext = os.path.splitext(name)
        if name.endswith(".anim.bin"):
            base, ext = name[:-len(".anim.bin")], ".anim.bin"
        i = 2
        while name in used:
            name = f"{base}_{i}{ext}"
            i += 1
        used.add(name)
        job.path = os.path.join(folder, name)
    return jobs, errors


def default_file_name_from_action(action, fmt):
    name = re.sub(r'[\\/:*?"<>|]+', "_", action.name).strip() or "action"
    base, ext = os.path.splitext(name)
    if base and ext.lower() in {e for f in formats.names() for e in formats.traits(f).get("extensions") or ()}:
        name = base  # (an imported action is named with its kind: Hit.bck)
    return name + formats.default_extension(fmt)


def run_job(job, xopts, context, armature=None):
    if formats.kind(job.format) and job.actions[0].get(ORIGINAL_PROP):
        return export_kind(job.path, job.actions, job.format, xopts, context)
    if formats.kind(job.format):
        return export_action(job.path, job.actions[0], options=xopts, context=context)
    if not formats.is_material(job.format):
        return export_action(job.path, job.actions[0], armature=armature, options=xopts, context=context)
    mats = []
    for action in job.actions:
        for m in materials_using(action):
            if m not in mats:
                mats.append(m)
    if len(job.actions) == 1:
        return export_action(job.path, job.actions[0], materials=mats, options=xopts, context=context)
    by_mat = [(m, a) for a in job.actions for m in materials_using(a)]
    if not by_mat:
        raise ExportError(f"none of the materials of {', '.join(a.name for a in job.actions)} exists")
    return export_pairs(job.path, by_mat, xopts, context)


def export_pairs(path, pairs, xopts, context):
    global LAST_RESULT
    result = LAST_RESULT = ExportResult(path, sorted({a.name for _m, a in pairs}), formats.material_format())
    into = export_archive.target(path, xopts.archive_member, pairs[0][1], result.notes,
                                 formats.material_format())  # (None: a loose file)
    anim, exp = build_btk(pairs, xopts, context, result)
    return _write_encoded(path, anim, xopts, exp, result, into)


def export_actions(folder, actions=None, armature=None, options=None, context=None, progress=None, **kw):
    """Writes many actions into a folder, one file each; see
    api.export_actions.  Never raises for one action: failures are results
    with .error set (the other files are still written)."""
    native.require()
    xopts = make_export_options(options, **kw)
    context = context or bpy.context
    if actions is None:
        actions = [a for a in bpy.data.actions if len(compat.action_fcurves(a))]
    os.makedirs(folder, exist_ok=True)
    fmt = xopts.format if xopts.format != "AUTO" else None
    jobs, errors = plan_jobs(list(actions), folder, fmt)
    results = []
    n = len(jobs) + len(errors)
    for i, (action, msg) in enumerate(errors):
        r = ExportResult(os.path.join(folder, action.name), [action.name], fmt or "?")
        r.error = msg
        if progress:
            progress(i, n, action.name, None)
            progress(i, n, action.name, r)
        results.append(r)
    for j, job in enumerate(jobs):
        i = len(errors) + j
        label = f"{', '.join(a.name for a in job.actions)} -> {job.path}"
        if progress:
            progress(i, n, label, None)
        try:
            r = run_job(job, make_export_options(xopts, format=job.format), context, armature)
        except (ExportError, TypeError, ValueError, OSError) as e:
            r = ExportResult(job.path, [a.name for a in job.actions], job.format)
            r.error = str(e) or type(e).__name__
        if progress:
            progress(i, n, label, r)
        results.append(r)
    return results
