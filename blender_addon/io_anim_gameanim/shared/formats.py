"""What the add-on knows about the formats, read from the C registry
(gameanim.formats(), gameanim.compressions()) once, when first asked, so
that a format added in C shows up in the menus, options and file lists.

The add-on stays importable without the C module: until native.require()
finds it, every list here is empty (and nothing is cached, so a module
found later is read then).

The registry's traits:  target_kind ('joint' | 'bone_id' | 'bone_name' |
'material_entry'), values ('absolute' | 'delta'), up_axis ('Y' | 'Z' |
None), bone_match ('INDEX' | 'ID' | 'NAME' | None), extensions,
compressions.  Behaviour that only one format has, and that no trait
describes, is named in QUIRKS below (one table, the reasons in
docs/blender.md), never compared by format name elsewhere."""
from .. import native

_registry = None
_compressions = None
_unsupported = {}

# What the add-on maps: bones (by index, ID or name) with the pose
# channels, material entries with texture-matrix channels (BTK), and the
# other J3D kinds (KIND_CHANNELS: BRK / BPK colours and BTP texture numbers
# on materials, BVA visibility on shapes; shared/kind_mapping.py).  A
# format whose traits name other target kinds or channels is read by
# gameanim but not imported here: it is left out of the menus and a file of
# one gets unsupported_message().
MAPPED_TARGETS = ("joint", "bone_id", "bone_name", "material_entry", "shape")
POSE_CHANNELS = ("scale", "rotation", "translation", "rotation_quaternion")
KIND_CHANNELS = ("color", "texture_index", "visibility")


def _kind_of(t):
    chans = tuple(t.get("channels", ()))
    return chans[0] if len(chans) == 1 and chans[0] in KIND_CHANNELS else None


def _mapped(t):
    chans = t.get("channels", POSE_CHANNELS)
    return (t.get("target_kind") in MAPPED_TARGETS
            and (all(c in POSE_CHANNELS for c in chans) or _kind_of(t) is not None)
            and not quirk(t.get("name"), "not_mapped_yet"))


def _load():
    global _registry, _compressions
    if _registry is None:
        try:
            ga = native.require()
        except native.GameanimMissing:
            return {}, []
        every = dict(ga.formats())
        _registry = {f: t for f, t in every.items() if _mapped(t)}
        _unsupported.clear()
        _unsupported.update({f: t for f, t in every.items() if not _mapped(t)})
        _compressions = list(ga.compressions())
    return _registry, _compressions


def unsupported_message(fmt):
    """Why a file of a format gameanim reads is not imported (None when it is)."""
    _load()
    t = _unsupported.get(fmt)
    if t is None:
        return None
    return (f"{fmt.upper()} ({t.get('description', fmt)}) is not supported in Blender yet; gameanim reads and "
            f"writes it outside Blender (python -m gameanim info FILE)")


def names():
    """Every format the C module reads and writes, in registry order."""
    return list(_load()[0])


def traits(fmt):
    """The registry's traits of one format ({} when unknown)."""
    return _load()[0].get(fmt, {})


def known(fmt):
    return fmt in _load()[0]


def compressions():
    """The compression wrappers' names, in registry order."""
    return list(_load()[1])


def file_extensions():
    """Every extension a folder import takes: the formats' own and the
    compression wrappers', lower case (gameanim.file_extensions()), and
    the model files' (model_extensions())."""
    try:
        ga = native.require()
    except native.GameanimMissing:
        return ()
    # (gameanim.file_extensions() less those only formats the add-on does
    # not import use)
    mapped = {e for t in _load()[0].values() for e in t["extensions"]}
    wrapped = {e for exts in ga.compression_extensions().values() for e in exts}
    ours = tuple(e for e in ga.file_extensions() if e in mapped or e in wrapped)
    return ours + tuple(e for e in model_extensions() if e not in ours)


# Model files' extensions when the C module does not list them (model_formats()).
MODEL_EXTENSIONS = (".bmd", ".bdl", ".bin")

# Model files (Model.format): the animation format that animates the
# family's joints, and how it addresses them: by joint number, or by bone
# ID with deltas about the pivots (Banjo-Kazooie, whose model-space
# matrices move points, not bone frames).
MODEL_FAMILIES = {"bmd": ("bck", "joint"), "bdl": ("bck", "joint"), "sm64ds_bmd": ("bca", "joint"),
                  "bk_model": ("bk", "bone_id")}
# Other formats that animate a family's joints as its own format does
# (J3D BCA: full-frame joints of J3D models, Mario Kart: Double Dash).
MODEL_ALSO = {"bck": ("j3d_bca",)}


def model_animation_format(model_format):
    """The animation format of a model family (None when unknown)."""
    return MODEL_FAMILIES.get(model_format, (None, None))[0]


def model_animation_formats(model_format):
    """Every animation format that plays on a model family: its own
    (model_animation_format) and MODEL_ALSO's."""
    own = model_animation_format(model_format)
    return (own,) + MODEL_ALSO.get(own, ()) if own else ()


def model_by_bone_id(model_format):
    """True for Banjo-Kazooie models: animations address bone IDs, as
    deltas about each bone's pivot."""
    return MODEL_FAMILIES.get(model_format, (None, None))[1] == "bone_id"


def model_extensions():
    """The model files' extensions: gameanim.model_formats() when the C
    module has it, else MODEL_EXTENSIONS (none without load_model)."""
    try:
        ga = native.require()
    except native.GameanimMissing:
        return ()
    if not hasattr(ga, "load_model"):
        return ()
    registry = getattr(ga, "model_formats", None)
    if registry is None:
        return MODEL_EXTENSIONS
    out = []
    for traits_ in dict(registry()).values():
        exts = traits_.get("extensions", ()) if isinstance(traits_, dict) else ()
        if isinstance(exts, str):
            exts = exts.split(";")
        out.extend(e.lower() for e in exts if e and e.lower() not in out)
    return tuple(out) or MODEL_EXTENSIONS


# Extensions that many other kinds of file share (a Banjo-Kazooie animation
# is a .bin; compression wrappers name nothing but the compression): a
# folder import and the file browser take them, but drag and drop does not
# claim them, so other importers keep their files.
SHARED_EXTENSIONS = (".bin", ".anim")


def drop_extensions():
    """The extensions drag and drop claims: the formats' own extensions
    that only their files use."""
    wrappers = set()
    try:
        for exts in native.require().compression_extensions().values():
            wrappers.update(exts)
    except native.GameanimMissing:
        return ()
    return tuple(e for e in file_extensions() if e not in SHARED_EXTENSIONS and e not in wrappers)


def default_extension(fmt):
    """The extension an exported file of fmt gets."""
    exts = traits(fmt).get("extensions") or ()
    return exts[0] if exts else "." + fmt


def description(fmt):
    return traits(fmt).get("description", fmt)


def target_kind(fmt):
    return traits(fmt).get("target_kind")


def kind(fmt):
    """'color' (BRK, BPK), 'texture_index' (BTP) or 'visibility' (BVA):
    the one channel of a kind shared/kind_mapping.py maps; None for bones
    and BTK."""
    return _kind_of(traits(fmt))


def is_material(fmt):
    """The format animates material texture mappings (BTK), not bones."""
    return target_kind(fmt) == "material_entry" and kind(fmt) is None


def is_skeletal(fmt):
    return known(fmt) and not is_material(fmt) and kind(fmt) is None


def skeletal_names():
    return [f for f in names() if is_skeletal(f)]


def material_format():
    """The format that animates materials (None without the C module)."""
    return next((f for f in names() if is_material(f)), None)


def is_delta(fmt):
    """Values are deltas from a rest without rotation (else absolute
    parent-relative transforms)."""
    return traits(fmt).get("values") == "delta"


def is_y_up(fmt):
    return traits(fmt).get("up_axis") == "Y"


def bone_match(fmt):
    """The bone matching the format implies (option Bone Matching AUTO)."""
    return traits(fmt).get("bone_match") or "NAME"


# ---------------------------------------------------------------------------
# Behaviour the registry's traits do not describe

_NONE = {}
QUIRKS = {
    # J3D: Hermite keys fitted within the tolerance; a loop mode with mirroring
    "bck": {"fit_keys": True, "loop_modes": "full"},
    "btk": {"fit_keys": True, "loop_modes": "full"},
    # SM64DS: a frame count that includes the last frame; plays at 30 fps;
    # a loop flag only
    "bca": {"count_includes_end": True, "fixed_fps": 30.0, "loop_modes": "flag"},
    # Banjo-Kazooie: the file's own frame numbers (a start frame), only the
    # channels it animates, no loop mode; its encoder drops collinear
    # LINEAR keys (so a tolerance only with rate Every Frame)
    "bk": {"count_includes_end": True, "keeps_frame_numbers": True, "sparse_channels": True,
           "drops_linear_keys": True},
    # SWTOR: per-frame quaternions (the game nlerps whole frames), no scale,
    # root motion, two layouts, the scene's fps, GR2 rigs, jumps between
    # sections
    "jba": {"quaternions": True, "no_scale": True, "root_motion": True, "layouts": True, "scene_fps": True,
            "gr2_rig": True},
    # J3D full-frame joints: the game picks whole frames by a rule (nearest,
    # truncate or lerp: Animation.frame_rule, option Frame Rule): CONSTANT
    # keys at the game's switch points, or LINEAR keys for lerp
    "j3d_bca": {"full_frame": True, "loop_modes": "full"},
    # BVA: full-frame show bytes, the same frame rules
    "bva": {"full_frame": True, "loop_modes": "full"},
    # colour entries: TEV register and konst colours (C<id>, K<id>), or one
    # material colour per entry
    "brk": {"loop_modes": "full", "color_entries": "tev"},
    "bpk": {"loop_modes": "full", "color_entries": "material"},
    "btp": {"loop_modes": "full"},
}


def quirk(fmt, name):
    return QUIRKS.get(fmt, _NONE).get(name, False)


def full_frame(fmt):
    """One value per whole frame, picked by the game's frame rule
    (Animation.frame_rule, option Frame Rule)."""
    return quirk(fmt, "full_frame")


def tev_colors(fmt):
    """The colour entries are TEV register / konst colours (BRK), else one
    material colour each (BPK)."""
    return quirk(fmt, "color_entries") == "tev"


def value_per_frame(fmt):
    """The file holds one value per frame 0 .. count - 1 (J3D BCA, BVA,
    BTP), read at whole frames: a full-frame rule, or BTP's truncation."""
    return full_frame(fmt) or kind(fmt) == "texture_index"


def quaternion_rotation(fmt):
    """Rotations are per-frame quaternions, keyed at whole file frames
    (the game's nlerp), else Euler XYZ."""
    return quirk(fmt, "quaternions")


def stores_scale(fmt):
    return not quirk(fmt, "no_scale")


def has_root_motion(fmt):
    return quirk(fmt, "root_motion")


def root_motion_format():
    return next((f for f in names() if has_root_motion(f)), None)


def has_layouts(fmt):
    return quirk(fmt, "layouts")


def has_gr2_rig(fmt):
    """Option Rig Up Axis 'GR2' (SWTOR Granny rigs) applies."""
    return quirk(fmt, "gr2_rig")


def fits_keys(fmt):
    """The encoder fits Hermite keys to per-frame values within the
    tolerance (the export passes it one)."""
    return quirk(fmt, "fit_keys")


def keeps_frame_numbers(fmt):
    """The file holds its own first frame (the scene's frame numbers are
    kept), else it starts at 0."""
    return quirk(fmt, "keeps_frame_numbers")


def count_includes_end(fmt):
    """Frame count = end - start + 1, else end - start."""
    return quirk(fmt, "count_includes_end")


def sparse_channels(fmt):
    """Only animated channels are written: one that holds its default is
    left out."""
    return quirk(fmt, "sparse_channels")


def drops_linear_keys(fmt):
    """The encoder takes a tolerance to drop collinear LINEAR keys."""
    return quirk(fmt, "drops_linear_keys")


def fixed_fps(fmt):
    """The rate the format plays at (None: it stores its own)."""
    return quirk(fmt, "fixed_fps") or None


def uses_scene_fps(fmt):
    return quirk(fmt, "scene_fps")


def loop_modes(fmt):
    """'full' (once, loop, mirror), 'flag' (once or loop) or None (the
    file stores no loop mode)."""
    return quirk(fmt, "loop_modes") or None
