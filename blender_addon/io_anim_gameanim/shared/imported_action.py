"""What an imported action stores so that a later export writes an
untouched animation back byte for byte (docs/blender.md, What an imported
action keeps): the custom properties the importer writes
(source_properties) and the export reads (Source), in one place.

On the action:
  gameanim_format, gameanim_fps (0 = none), gameanim_loop,
  gameanim_frame_count, gameanim_compression, gameanim_source (file name),
  gameanim_source_path (the file's absolute path: which file it came from),
  gameanim_original (the file's bytes, base64, wrapper included),
  gameanim_options (JSON: the options that shaped the curves and the time
  map), gameanim_bones (JSON: target -> [bone, 'exact' | 'baked']),
  gameanim_rotation_modes (JSON: bone -> mode, '' = the object),
  gameanim_period_keys, gameanim_root_rest (16 floats: the rig transform
  root motion was composed with), gameanim_model_file (option Model File: the
  model's path and the axes used), gameanim_archive and
  gameanim_archive_member (an action imported from an archive member: the
  archive's absolute path and the member's name); for BTK gameanim_material,
  gameanim_calc_type and gameanim_entries (JSON).
On the rig: gameanim_root_rest (ROOT_REST_PROP), and on the bones of an
armature the importer built: gameanim_index, gameanim_bone_id,
gameanim_name (and gameanim_name_utf8_hex for a name Blender cannot hold).
On node B of a mapping chain: gameanim_calc_type (material_mapping)."""
import base64
import json
import os

from .curve_plans import TimeMap
from .options import ImportOptions

FORMAT_PROP = "gameanim_format"
ORIGINAL_PROP = "gameanim_original"
SOURCE_PROP = "gameanim_source"
SOURCE_PATH_PROP = "gameanim_source_path"
MATERIAL_PROP = "gameanim_material"
ENTRIES_PROP = "gameanim_entries"
ROTATION_MODES_PROP = "gameanim_rotation_modes"
# The rig object's own transform that root motion is applied on top of,
# recorded (16 floats, row by row) by the first import that applies root
# motion to the object: later imports and exports use the same one even
# though the object's transform is then animated.
ROOT_REST_PROP = "gameanim_root_rest"
# An action imported with option Model File: JSON {file, format, axes (the
# 16 floats of A), axes_key} (shared/foreign_rig_retarget.py).
MODEL_FILE_PROP = "gameanim_model_file"
# An action imported from an archive member (shared/archive_members.py):
# the archive's absolute path and the member's name in it.
ARCHIVE_PROP = "gameanim_archive"
ARCHIVE_MEMBER_PROP = "gameanim_archive_member"


def source_properties(anim, path, opts, tm, extra):
    """The custom properties an import puts on an action, as a dict (taken
    before the decoded animation is let go).  extra: more properties, and
    under 'options' more entries of gameanim_options."""
    original = anim.original_bytes()
    props = {
        FORMAT_PROP: anim.format,
        "gameanim_fps": float(anim.fps or 0.0),
        "gameanim_loop": anim.loop or "",
        "gameanim_frame_count": float(anim.frame_count),
        "gameanim_compression": anim.compression or "",
        SOURCE_PROP: os.path.basename(str(path)),
        SOURCE_PATH_PROP: os.path.abspath(str(getattr(path, "archive", path))),
        ORIGINAL_PROP: base64.b64encode(original).decode("ascii") if original is not None else "",
    }
    values = {
        "translation_scale": opts.translation_scale,
        "up_axis": opts.up_axis,
        "keyless_rule": opts.keyless_rule,
        "curve_mode": opts.curve_mode,
        "root_motion": opts.root_motion,
    }
    values.update(tm.as_dict())
    extra = dict(extra)
    values.update(extra.pop("options", {}))
    props["gameanim_options"] = json.dumps(values, sort_keys=True)
    if getattr(path, "member", None) is not None:  # (an archive member: archive_members.MemberSource)
        props[ARCHIVE_PROP] = os.path.abspath(path.archive)
        props[ARCHIVE_MEMBER_PROP] = path.member
    props.update(extra)
    return props


def original_bytes(action):
    """The source file's bytes stored on an imported action (or None)."""
    raw = action.get(ORIGINAL_PROP)
    return base64.b64decode(raw) if raw else None


def archive_source(action):
    """(archive path, member) an action was imported from, or None."""
    archive = action.get(ARCHIVE_PROP) if action is not None else None
    member = action.get(ARCHIVE_MEMBER_PROP) if action is not None else None
    return (archive, member) if archive and member else None


def same_source(a, b):
    """Whether two imported actions came from the same file (or the same
    member of the same archive): the absolute paths, compared as the
    platform does (case-insensitively on Windows).  An action imported
    before the path was recorded matches by file name and format."""
    def where(action):
        path = action.get(SOURCE_PATH_PROP)
        return os.path.normcase(path) if path else None
    if where(a) and where(b):
        return where(a) == where(b) and a.get(ARCHIVE_MEMBER_PROP) == b.get(ARCHIVE_MEMBER_PROP)
    return (a.get(SOURCE_PROP), stored_format(a)) == (b.get(SOURCE_PROP), stored_format(b))


def stored_format(action):
    """The format an action was imported from (None: not imported)."""
    return action.get(FORMAT_PROP) or None if action is not None else None


def rotation_modes(action):
    """{bone name ('' = the object): rotation mode} the action was written for."""
    return json.loads(action.get(ROTATION_MODES_PROP) or "{}")


class Source:
    """The original file and import options stored on an imported action."""

    def __init__(self, action):
        self.format = stored_format(action)
        self.data = original_bytes(action)
        self.options = json.loads(action.get("gameanim_options") or "{}")
        self.bones = json.loads(action.get("gameanim_bones") or "{}")
        self.rotation_modes = rotation_modes(action)
        self.period_keys = bool(action.get("gameanim_period_keys", False))
        self.entries = json.loads(action.get(ENTRIES_PROP) or "[]")
        # the rig transform the import composed root motion with (absent:
        # none was applied, or an import from before it was recorded, which
        # composed with the identity)
        rest = action.get(ROOT_REST_PROP)
        self.root_rest = list(rest) if rest is not None else None
        self.model = json.loads(action.get(MODEL_FILE_PROP) or "null")

    @property
    def usable(self):
        return bool(self.format and self.data and self.options)

    def import_options(self):
        o = self.options
        return ImportOptions(translation_scale=o.get("translation_scale", 1.0), up_axis=o.get("up_axis", "NONE"),
                             keyless_rule=o.get("keyless_rule", "base"), curve_mode=o.get("curve_mode", "AUTO"),
                             root_motion=o.get("root_motion", "SKIP"),
                             bone_match=o.get("bone_match", "AUTO"),
                             id_property=o.get("id_property", "gameanim_bone_id"))

    def time_map(self):
        return TimeMap.from_dict(self.options)
