"""Which bone each animation target drives: by index, by bone ID (a
custom property) or by name (tolerant of case, spaces and .001
suffixes), and the other way, a bone's target for the export
(bone_target_rule).  Reads the armature, never writes it."""
import re

from . import formats
from .model_rig import HELPER_PROP, INDEX_PROP
from .rest import UP_MATRICES, bone_rest

# The target of root-motion tracks (the armature object, not a bone).
ROOT_MOTION = "__root_motion__"

# fast64's Banjo-Kazooie rigs (hm64/bk64) keep each bone's ID here: ID
# matching accepts it where a bone lacks the ID Property
FAST64_BONE_ID = "hm64_bk64_bone_id"


def bone_id_value(bone, pose_bone, id_property):
    """The raw ID a bone (or its pose bone) holds under id_property, else
    under fast64's FAST64_BONE_ID; None when neither is there."""
    for prop in (id_property, FAST64_BONE_ID):
        for holder in (bone, pose_bone):
            value = holder.get(prop) if holder is not None else None
            if value is not None:
                return value
    return None


# ---------------------------------------------------------------------------
# Bone matching


def normalise_name(name):
    """Case-, space- and .001-insensitive form of a bone or material name."""
    name = re.sub(r"\.\d{3,}$", "", str(name))
    return re.sub(r"[\s_]+", "", name).casefold()


def blender_name(name):
    """A name Blender can hold.  A file's name that is not valid UTF-8
    comes from the decoder with its odd bytes as surrogates, which Blender
    refuses; those bytes become \\xNN escapes (the original bytes are kept
    on the bone, see build_armature, for the export)."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def target_of_bone(bone, name):
    """The file's target name of a bone build_armature made (or its own
    name): the exact original bytes where the name had to be escaped."""
    raw = bone.get("gameanim_name_utf8_hex")
    if raw:
        try:
            return bytes.fromhex(str(raw)).decode("utf-8", "surrogateescape")
        except ValueError:
            pass
    return str(bone.get("gameanim_name") or name)


def target_label(target):
    return repr(target) if isinstance(target, str) else str(target)


def index_bone_names(fmt, target):
    if formats.target_kind(fmt) == "bone_id":
        return [f"bk_id_{target:03d}"]
    return [f"joint_{target:03d}", f"bone_{target:03d}", f"{target}"]


def anim_targets(anim):
    """Targets in the order they first appear (root motion excluded)."""
    return [target for target in dict.fromkeys([t.target for t in anim.tracks]) if target != ROOT_MOTION]


def _root_bone(arm):
    roots = [b for b in arm.bones if b.parent is None]
    if not roots:
        return None
    with_children = [b for b in roots if b.children]
    return (with_children or roots)[0]


class RigIndex:
    """What the importer reads from one armature, once for all the files
    of an import: the bones in order, the tables of each matching mode and
    each bone's rest data (built on first use).  The armature must not
    change while the index is in use."""

    def __init__(self, arm_obj):
        self.arm_obj = arm_obj
        self.bones = joint_bones(arm_obj)
        self._by_id = {}
        self._names = None
        self._by_index = None
        self._rest = {}

    def by_id(self, id_property):
        """({id: bone name}, notes about IDs shared by several bones)."""
        got = self._by_id.get(id_property)
        if got is None:
            by_id, notes = {}, []
            pose_bones = self.arm_obj.pose.bones
            for b in self.bones:
                value = bone_id_value(b, pose_bones.get(b.name), id_property)
                try:
                    key = int(value)
                except (TypeError, ValueError):
                    continue
                if key in by_id:
                    notes.append(f"bones {by_id[key]!r} and {b.name!r} share {id_property} = {key}; using the first")
                    continue
                by_id[key] = b.name
            got = self._by_id[id_property] = (by_id, notes)
        return got

    def by_index(self):
        """index_of_bones of the bones (made once)."""
        if self._by_index is None:
            self._by_index = index_of_bones(self.bones)
        return self._by_index

    def names(self):
        """(exact {name: name}, tolerant {normalised: name}, root bone or None)."""
        if self._names is None:
            exact = {b.name: b.name for b in self.bones}
            tolerant = {}
            for b in self.bones:
                tolerant.setdefault(normalise_name(b.name), b.name)
            self._names = (exact, tolerant, _root_bone(self.arm_obj.data))
        return self._names

    def rest(self, bone_name, fmt, up_axis):
        """bone_rest() of a bone, cached."""
        key = (bone_name, fmt, up_axis)  # (the format decides bone_rest's is_delta)
        got = self._rest.get(key)
        if got is None:
            got = self._rest[key] = bone_rest(self.arm_obj.data.bones[bone_name], fmt, UP_MATRICES[up_axis])
        return got


def joint_bones(arm_obj):
    """The armature's bones in bone order, without the helper bones of a
    rig built from a model (model_rig.HELPER_PROP), which no file
    animates."""
    return [b for b in arm_obj.data.bones if b.get(HELPER_PROP) is None]


def index_of_bones(bones):
    """{joint index: bone name} of index matching: gameanim_index when
    every bone has one (the importer's rigs: a model's bones are not in
    joint order), else the bone order."""
    if bones and all(isinstance(b.get(INDEX_PROP), int) for b in bones):
        out = {}
        for b in bones:
            out.setdefault(b[INDEX_PROP], b.name)
        return out
    return {i: b.name for i, b in enumerate(bones)}


def match_bones(anim, arm_obj, mode, id_property="gameanim_bone_id", index=None):
    """{target: bone name} for the targets that found a bone, the list of
    targets that did not, and notes (duplicates).  index: a RigIndex of
    arm_obj to reuse (one is made when None)."""
    if index is None:
        index = RigIndex(arm_obj)
    bones = index.bones
    targets = anim_targets(anim)
    mapping, unmatched, notes = {}, [], []
    if mode == "INDEX":
        n_file = sum(1 for t in targets if isinstance(t, int))
        if n_file != len(bones):
            notes.append(f"the file animates {n_file} bone(s) by index but the armature has {len(bones)}: "
                         "index matching may pair the wrong bones")
        by_index = index.by_index()
        for t in targets:
            name = by_index.get(t) if isinstance(t, int) else None
            if name is None:
                unmatched.append(t)
            else:
                mapping[t] = name
    elif mode == "ID":
        by_id, id_notes = index.by_id(id_property)
        notes.extend(id_notes)
        for t in targets:
            name = by_id.get(t) if isinstance(t, int) else None
            if name is None:
                unmatched.append(t)
            else:
                mapping[t] = name
    else:  # NAME
        exact, tolerant, root = index.names()
        gods = []
        for t in targets:
            candidates = [blender_name(t)] if isinstance(t, str) else index_bone_names(anim.format, t)
            name = next((exact[c] for c in candidates if c in exact), None)
            if name is None:
                name = next((tolerant[normalise_name(c)] for c in candidates if normalise_name(c) in tolerant), None)
            if name is None and isinstance(t, str) and normalise_name(t) == "god":
                gods.append(t)
            elif name is None:
                unmatched.append(t)
            else:
                mapping[t] = name
        # JBA's root channel: Bip01 in the GR2 rigs, else the rig's root,
        # unless another channel already drives that bone
        taken = set(mapping.values())
        for t in gods:
            name = tolerant.get("bip01")
            if name is None or name in taken:
                name = root.name if root is not None and root.name not in taken else None
            if name is None:
                unmatched.append(t)
            else:
                mapping[t] = name
                taken.add(name)
    # two targets on one bone: keep the first
    used = {}
    for t in list(mapping):
        b = mapping[t]
        if b in used:
            notes.append(f"targets {target_label(used[b])} and {target_label(t)} both match bone {b!r}; "
                         f"using {target_label(used[b])}")
            del mapping[t]
            unmatched.append(t)
        else:
            used[b] = t
    return mapping, unmatched, notes




def bone_target_rule(arm_obj, fmt, id_property="gameanim_bone_id"):
    """bone name -> the format's target for that bone (the export's side of
    match_bones): its index in bone order (or gameanim_index when every
    bone has one, as the importer's new armatures do), its ID property
    (else a bk_id_### name; None when it has none) or its name
    (gameanim_name when present, the file's original bytes when escaped)."""
    bones = joint_bones(arm_obj)
    kind = formats.target_kind(fmt)
    if kind == "joint":
        order = {name: i for i, name in index_of_bones(bones).items()}
        return lambda name: order[name]
    if kind == "bone_id":
        def bone_id(name):
            b = arm_obj.data.bones[name]
            value = bone_id_value(b, arm_obj.pose.bones.get(name), id_property)
            if value is None:
                m = re.fullmatch(r"bk_id_(\d+)", name)
                return int(m.group(1)) if m else None
            try:
                return int(value)
            except (TypeError, ValueError):
                return None
        return bone_id
    return lambda name: target_of_bone(arm_obj.data.bones[name], name)
