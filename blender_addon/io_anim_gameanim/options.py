"""Import options: one table that defines both the plain ImportOptions
object used by scripts and the operator's properties shown in the file
browser, so the two can never drift apart."""

# Bone matching the format implies when the option is AUTO.
FORMAT_BONE_MATCH = {"bck": "INDEX", "bca": "INDEX", "bk": "ID", "jba": "NAME"}

# (name, kind, default, label, description, enum items or (min, max), section)
SPECS = [
    ("target", "enum", "AUTO", "Target",
     "Which armature receives skeletal animations",
     [("AUTO", "Active or New", "The active armature; a new armature built from the animation when none is active"),
      ("ACTIVE", "Active Armature", "Only the active armature (fails when none is active)"),
      ("NEW", "New Armature", "Always build a new armature from the animation")], "target"),
    ("assign", "bool", True, "Assign First",
     "Make the first imported action active on its armature or material", None, "target"),
    ("others", "enum", "NLA", "Other Files",
     "What happens to the actions of the second and later files",
     [("NLA", "NLA Tracks", "Stash each on a muted NLA track of its owner"),
      ("FAKE_USER", "Fake User", "Keep them as unassigned actions with a fake user")], "target"),
    ("bone_match", "enum", "AUTO", "Bone Matching",
     "How animation targets find their bones",
     [("AUTO", "Format Default", "Index for BCK and BCA, bone ID for Banjo-Kazooie, name for JBA"),
      ("INDEX", "Index", "The n-th bone of the armature's bone order"),
      ("NAME", "Name", "Bone name, tolerant of case, spaces and .001 suffixes"),
      ("ID", "Bone ID Property", "A custom property on each bone holding its ID")], "bones"),
    ("id_property", "str", "gameanim_bone_id", "ID Property",
     "Name of the bone custom property used by ID matching", None, "bones"),
    ("curve_mode", "enum", "AUTO", "Curves",
     "Exact per-channel curves or one baked key per frame",
     [("AUTO", "Automatic", "Exact where the bone's rest rotation relative to its parent is the identity, baked elsewhere"),
      ("EXACT", "Exact Channels", "Channels one to one even on bones with a rest rotation (the pose is then not the game's)"),
      ("BAKED", "Baked", "Quaternion keys on every frame for every bone")], "bones"),
    ("up_axis", "enum", "NONE", "Rig Up Axis",
     "Axis conversion that the rig's importer applied to the root bones",
     [("NONE", "As in File", "The rig is in the file's own axes"),
      ("Y_TO_Z", "Y-up to Z-up", "The root bones were turned +90 degrees about X (Y-up game rig converted to Z-up)"),
      ("Z_TO_Y", "Z-up to Y-up", "The root bones were turned -90 degrees about X")], "bones"),
    ("translation_scale", "float", 1.0, "Translation Scale",
     "Multiplies every translation: the model's factor k for Banjo-Kazooie, a unit change otherwise",
     (1e-6, 1e6), "bones"),
    ("keyless_rule", "enum", "base", "JBA Keyless Translation",
     "Value of JBA translations in blocks without keys",
     [("base", "Base", "The block's base value alone"),
      ("base_plus_span", "Base + Span", "Base plus the all-ones code times the stride")], "bones"),
    ("root_motion", "enum", "SKIP", "Root Motion",
     "JBA trajectory (root motion) channels",
     [("SKIP", "Keep in File Only", "Not applied (kept in the stored original bytes)"),
      ("OBJECT", "Armature Object", "Animate the armature object's location and rotation")], "bones"),
    ("frame_rate", "enum", "FILE", "Frame Rate",
     "How file frames become scene frames",
     [("FILE", "Keep Frames", "One file frame is one scene frame"),
      ("SCENE", "Scene Rate", "Rescale by scene fps / file fps (files that store an fps)")], "time"),
    ("frame_offset", "float", 0.0, "Frame Offset", "Scene frame of the file's frame 0", (-1e6, 1e6), "time"),
    ("set_scene_range", "bool", False, "Set Scene Range",
     "Set the scene's start and end frame to the first file's range", None, "time"),
    ("use_cycles", "bool", True, "Loop as Cycles Modifier",
     "Looping files get a Cycles F-modifier (mirrored for mirrored loops)", None, "time"),
]


class ImportOptions:
    """Plain options for scripts: ImportOptions(bone_match='NAME', ...)."""

    __slots__ = [s[0] for s in SPECS]

    def __init__(self, **kw):
        for name, kind, default, *_ in SPECS:
            setattr(self, name, default)
        self.update(**kw)

    def update(self, **kw):
        for key, value in kw.items():
            spec = _SPEC_BY_NAME.get(key)
            if spec is None:
                raise TypeError(f"unknown import option {key!r}; known: {', '.join(_SPEC_BY_NAME)}")
            _, kind, _, _, _, extra, _ = spec
            if kind == "enum":
                allowed = [item[0] for item in extra]
                if value not in allowed:
                    raise ValueError(f"option {key}={value!r}: must be one of {allowed}")
            elif kind == "bool":
                value = bool(value)
            elif kind == "float":
                value = float(value)
            elif kind == "str":
                value = str(value)
            setattr(self, key, value)
        return self

    def as_dict(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __repr__(self):
        return "ImportOptions(%s)" % ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items())

    @classmethod
    def from_operator(cls, op):
        return cls(**{name: getattr(op, name) for name in cls.__slots__})

    def bone_match_for(self, fmt):
        if self.bone_match != "AUTO":
            return self.bone_match
        return FORMAT_BONE_MATCH.get(fmt, "NAME")


_SPEC_BY_NAME = {s[0]: s for s in SPECS}


def make_options(options=None, **kw):
    """ImportOptions from an ImportOptions, a dict, keywords or nothing."""
    if options is None:
        opts = ImportOptions()
    elif isinstance(options, ImportOptions):
        opts = ImportOptions(**options.as_dict())
    elif isinstance(options, dict):
        opts = ImportOptions(**options)
    else:
        raise TypeError("options must be an ImportOptions or a dict")
    return opts.update(**kw)


def operator_annotations():
    """bpy properties for the operator, built from SPECS."""
    import bpy

    props = {}
    for name, kind, default, label, desc, extra, _section in SPECS:
        if kind == "enum":
            props[name] = bpy.props.EnumProperty(name=label, description=desc, items=extra, default=default)
        elif kind == "bool":
            props[name] = bpy.props.BoolProperty(name=label, description=desc, default=default)
        elif kind == "float":
            lo, hi = extra
            props[name] = bpy.props.FloatProperty(name=label, description=desc, default=default, min=lo, max=hi)
        elif kind == "str":
            props[name] = bpy.props.StringProperty(name=label, description=desc, default=default)
    return props


SECTIONS = [
    ("target", "Target"),
    ("bones", "Bones"),
    ("time", "Time"),
]


def section_fields(section):
    return [s[0] for s in SPECS if s[6] == section]
