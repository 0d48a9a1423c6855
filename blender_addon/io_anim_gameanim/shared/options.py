"""Import and export options: one table each that defines both the plain
ImportOptions / ExportOptions objects used by scripts (and the batch
command line) and the operators' properties shown in the file browser, so
they can never drift apart.  The formats and compressions an enum offers
come from the C registry (shared/formats.py) when the table is used, so
that the module loads without the C module."""
from . import formats

# (name, kind, default, label, description, enum items or (min, max), section)
SPECS = [
    ("target", "enum", "AUTO", "Target",
     "Which armature receives skeletal animations",
     [("AUTO", "Active or New", "The active armature; a new armature built from the animation when none is active"),
      ("ACTIVE", "Active Armature", "Only the active armature (fails when none is active)"),
      ("NEW", "New Armature", "Always build a new armature from the animation")], "target"),
    ("new_rigs", "enum", "SET", "New Rigs",
     "Files with no armature to go to get new ones (unparented bones, one per animated joint)",
     [("SET", "Per Bone Set", "One armature per distinct joint count (files matched by index) or bone set "
                              "(by ID or name: a file whose bones are all in another's shares its rig)"),
      ("FILE", "Per File", "One armature per file")], "target"),
    ("assign", "bool", True, "Assign First",
     "Make the first imported action active on its armature or material", None, "target"),
    ("replace", "bool", True, "Replace Earlier",
     "Importing a file again replaces the action an earlier import of that same file made (its users, the rig "
     "and NLA strips, get the new one) instead of adding name.001; another file of the same name, and actions "
     "not made by this importer, are never replaced", None, "target"),
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
      ("Z_TO_Y", "Z-up to Y-up", "The root bones were turned -90 degrees about X"),
      ("GR2", "SWTOR GR2 Rig (JBA)", "A rig from the SWTOR Granny importer: every bone is in GR2 axes (Y-up, "
                                     "1/1000 of a JBA unit, divided by the object's gr2_scale property), so each "
                                     "JBA channel changes axes bone by bone")], "bones"),
    ("translation_scale", "float", 1.0, "Location Scale",
     "Multiplies every translation: the model's factor k for Banjo-Kazooie, a unit change otherwise",
     (1e-6, 1e6), "bones"),
    ("keyless_rule", "enum", "base", "Keyless Blocks",
     "Value of JBA translations in blocks without keys",
     [("base", "Base", "The block's base value alone"),
      ("base_plus_span", "Base + Span", "Base plus the all-ones code times the stride")], "jba"),
    ("frame_rule", "enum", "nearest", "Frame Rule",
     "How the game picks whole frames of full-frame J3D files (J3D BCA; BVA keys switch at the same points)",
     [("nearest", "Nearest", "The nearest frame, (int)(frame + 0.5): Twilight Princess, Pikmin 2, Galaxy "
                             "(CONSTANT keys switching half a frame early)"),
      ("truncate", "Truncate", "The frame truncated: Wind Waker (CONSTANT keys on whole frames)"),
      ("lerp", "Linear", "J3DAnmTransformFullWithLerp: linear between whole frames (LINEAR keys)")], "j3d"),
    ("texture_folder", "path", "", "Texture Folder",
     "BTP: a folder of the pattern's images, each named by its texture number (0.png, eye_03.tga); images the "
     "material lacks are loaded from it (else the material needs Image Texture nodes labelled 'texture <number>')",
     None, "j3d"),
    ("root_motion", "enum", "SKIP", "Root Motion",
     "JBA trajectory (root motion) channels",
     [("SKIP", "Keep in File Only", "Not applied (kept in the stored original bytes)"),
      ("OBJECT", "Armature Object", "Animate the armature object's location and rotation")], "jba"),
    ("model_file", "path", "", "Model File",
     "A J3D BMD/BDL, SM64DS BMD or Banjo-Kazooie model file.  A model and its animations in different folders "
     "(the file browser picks files of one folder): pick the animations, name the model here, with no armature "
     "active: the model builds its rig and they go onto it.  Onto a rig another tool made from the model (blemd, "
     "fast64, a DAE or FBX converter): bones are matched by the model's joint names (Banjo-Kazooie: bone IDs) "
     "and every pose is the game's, re-based onto each bone's own rest orientation (baked per frame)",
     None, "model"),
    ("model_axes", "enum", "AUTO", "Model Axes",
     "Where the rig of option Model File holds the change from the game's Y-up axes",
     [("AUTO", "Automatic", "Found from the bone heads: the axes (and unit scale) that put the model's joints "
                            "on them"),
      ("Y_TO_Z", "In the Bones", "The bones are turned Y-up to Z-up inside the armature (blemd)"),
      ("NONE", "On the Object", "The bones are in the game's axes; any turn is on the object (DAE, FBX)")],
     "model"),
    ("scale", "float", 0.01, "Scale",
     "Scale of the armature objects the import builds, from model files or for animations with no rig (J3D "
     "and Banjo-Kazooie store about one unit per centimetre, so 0.01 gives metres).  Only the object's scale: "
     "stored values and exports are unchanged",
     (1e-6, 1e6), "model"),
    ("mesh_objects", "enum", "SHAPE", "Meshes",
     "Mesh objects made from a J3D model file's shapes, skinned to its armature",
     [("SHAPE", "Per Shape", "One mesh object per SHP1 shape (named <model>_shape_<i>)"),
      ("MODEL", "Per Model", "One mesh object for all the shapes of a model"),
      ("NONE", "None", "The armature only")], "j3d"),
    ("lighting", "enum", "NODES", "Lighting",
     "How the materials of a J3D model file light their lit colour channels",
     [("NODES", "Nodes", "N.L of the shading normal and one light (the scene's first sun at import, else a light "
                         "from the front; the shared node group 'gameanim TEV light'), computed in nodes: EEVEE "
                         "and Cycles agree"),
      ("NONE", "None", "Unlit: a lit channel shows its material colour, a toon ramp its lit end (the output is "
                       "fully determined by the file)")], "j3d"),
    ("frame_rate", "enum", "FILE", "Frame Rate",
     "How file frames become scene frames",
     [("FILE", "Keep Frames", "One file frame is one scene frame"),
      ("SCENE", "Scene Rate", "Rescale by scene fps / file fps (files that store an fps)")], "time"),
    ("frame_offset", "float", 0.0, "Frame Offset", "Scene frame of the file's frame 0", (-1e6, 1e6), "time"),
    ("set_scene_range", "bool", False, "Set Scene Range",
     "Set the scene's start and end frame to the first file's range", None, "time"),
    ("use_cycles", "bool", True, "Cycles Modifier",
     "Looping files get a Cycles F-modifier (mirrored for mirrored loops)", None, "time"),
]


class _Options:
    """Plain options built from a spec table (SPECS of the subclass)."""

    __slots__ = ()
    SPECS = ()
    KIND = "option"

    def __init__(self, **kw):
        for name, kind, default, *_ in self.SPECS:
            setattr(self, name, default)
        self.update(**kw)

    @classmethod
    def spec(cls, key):
        for s in cls.SPECS:
            if s[0] == key:
                return s
        return None

    def update(self, **kw):
        for key, value in kw.items():
            spec = self.spec(key)
            if spec is None:
                raise TypeError(f"unknown {self.KIND} {key!r}; known: {', '.join(s[0] for s in self.SPECS)}")
            _, kind, _, _, _, extra, _ = spec
            if kind == "enum":
                allowed = [item[0] for item in enum_items(extra)]
                if value not in allowed:
                    raise ValueError(f"option {key}={value!r}: must be one of {allowed}")
            elif kind == "bool":
                value = bool(value)
            elif kind == "float":
                value = float(value)
                lo, hi = extra
                if not lo <= value <= hi:
                    raise ValueError(f"option {key}={value!r}: must be in {lo} .. {hi}")
            elif kind in ("str", "path"):
                value = str(value)
            setattr(self, key, value)
        return self

    def as_dict(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items()))

    @classmethod
    def from_operator(cls, op):
        return cls(**{name: getattr(op, name) for name in cls.__slots__ if hasattr(op, name)})

    @classmethod
    def make(cls, options=None, **kw):
        """From an instance, a dict, keywords or nothing."""
        if options is None:
            opts = cls()
        elif isinstance(options, cls):
            opts = cls(**options.as_dict())
        elif isinstance(options, dict):
            opts = cls(**options)
        else:
            raise TypeError(f"options must be a {cls.__name__} or a dict")
        return opts.update(**kw)


class ImportOptions(_Options):
    """Plain options for scripts: ImportOptions(bone_match='NAME', ...)."""

    SPECS = SPECS
    KIND = "import option"
    __slots__ = [s[0] for s in SPECS]

    def bone_match_for(self, fmt):
        if self.bone_match != "AUTO":
            return self.bone_match
        return formats.bone_match(fmt)


def make_options(options=None, **kw):
    """ImportOptions from an ImportOptions, a dict, keywords or nothing."""
    return ImportOptions.make(options, **kw)


# ---------------------------------------------------------------------------
# Export

# The words the UI uses for a format: (enum label, export menu entry).  A
# format without an entry shows its name and the registry's description.
FORMAT_LABELS = {"bck": ("BCK", "J3D Joint Animation (.bck)"), "btk": ("BTK", "J3D Texture Animation (.btk)"),
                 "bca": ("BCA", "SM64DS Animation (.bca)"), "bk": ("Banjo-Kazooie", "Banjo-Kazooie Animation (.bin)"),
                 "jba": ("JBA", "SWTOR Animation (.jba)"),
                 "brk": ("BRK", "J3D Colour Animation (.brk)"), "bpk": ("BPK", "J3D Material Colour Animation (.bpk)"),
                 "btp": ("BTP", "J3D Texture Pattern (.btp)"), "bva": ("BVA", "J3D Visibility Animation (.bva)"),
                 "j3d_bca": ("J3D BCA", "J3D Full-Frame Joint Animation (.bca)")}


def format_label(fmt):
    return FORMAT_LABELS.get(fmt, (fmt.upper(),))[0]


def format_menu_label(fmt):
    got = FORMAT_LABELS.get(fmt)
    return got[1] if got else f"{formats.description(fmt)} ({formats.default_extension(fmt)})"


def format_items():
    """The format enum: as imported, or one of the registry's formats."""
    return [("AUTO", "As Imported", "The format the action was imported from")] + \
        [(f, format_label(f), formats.description(f)) for f in formats.names()]


def compression_items():
    return [("AS_IMPORTED", "As Imported", "The imported file's wrapper; none for new animations"),
            ("NONE", "None", "The bare file")] + [(c, c.upper() if c != "rarezip" else "rarezip", f"{c} wrapper")
                                                  for c in formats.compressions()]


def enum_items(extra):
    """An enum spec's items (a list, or a function that makes it)."""
    return extra() if callable(extra) else extra


EXPORT_SPECS = [
    ("format", "enum", "AUTO", "Format", "File format to write", format_items, "action"),
    ("frame_range", "enum", "AUTO", "Frame Range", "Which frames are exported",
     [("AUTO", "Automatic", "The imported file's range, else the action's frame range"),
      ("SCENE", "Scene", "The scene's start and end frame"),
      ("CUSTOM", "Custom", "Frame Start to Frame End")], "action"),
    ("frame_start", "float", 0.0, "Frame Start", "First exported frame (Custom range)", (-1e6, 1e6), "action"),
    ("frame_end", "float", 0.0, "Frame End", "Last exported frame (Custom range)", (-1e6, 1e6), "action"),
    ("archive_member", "str", "", "Archive Member",
     "When the path is an existing archive (.arc, .szs, ...): the member the animation replaces (empty: the member "
     "the action was imported from); other paths are loose files and ignore it", None, "action"),
    ("rate", "enum", "KEYS", "Rate", "How edited and new curves become keys",
     [("KEYS", "Keep Keys", "Curves map to the format's keys where they can (Bezier handles at one third are "
                            "Hermite keys); other curves are sampled every frame"),
      ("FRAMES", "Every Frame", "Every re-encoded curve is sampled every frame (then reduced within the tolerance "
                                "where the format has curve keys)")], "action"),
    ("compression", "enum", "AS_IMPORTED", "Compression", "Compression wrapper of the written file",
     compression_items, "encoding"),
    ("tolerance", "float", 1e-3, "Tolerance",
     "Key reduction: sampled curves become Hermite keys within this distance (radians for rotations, file units "
     "otherwise; BCK and BTK), or keep only the keys their straight segments need (Banjo-Kazooie, rate Every "
     "Frame).  0 keeps every sampled frame as a key", (0.0, 1e3), "encoding"),
    ("loop", "enum", "AUTO", "Loop", "Loop mode written to the file (formats that store one)",
     [("AUTO", "Automatic", "As imported; else 'loop' when every animated curve has a Cycles modifier"),
      ("once", "Once", ""), ("once_reset", "Once, Reset", ""), ("loop", "Loop", ""),
      ("mirror_once", "Mirror Once", ""), ("mirror_loop", "Mirror Loop", "")], "encoding"),
    ("layout", "enum", "AS_IMPORTED", "JBA Layout", "JBA: legacy 32-bit or JAWB 64-bit layout",
     [("AS_IMPORTED", "As Imported", "The imported file's layout; 32-bit for new animations"),
      ("32", "32-bit", "Legacy layout"), ("64", "64-bit (JAWB)", "JAWB version 2 layout")], "encoding"),
    ("calc_type", "enum", "AUTO", "BTK Calculation", "BTK texture-matrix calculation of new animations",
     [("AUTO", "Automatic", "As imported, else what the mapping chain was built for, else Basic"),
      ("basic", "Basic", ""), ("maya", "Maya", "")], "encoding"),
    ("translation_scale", "float", 1.0, "Location Scale",
     "Actions made in Blender: file translation = location / scale (imported actions use their import's value)",
     (1e-6, 1e6), "rig"),
    ("up_axis", "enum", "NONE", "Rig Up Axis",
     "Actions made in Blender: the axis conversion of the rig's root bones (imported actions use their import's)",
     [("NONE", "As in File", ""), ("Y_TO_Z", "Y-up to Z-up", ""), ("Z_TO_Y", "Z-up to Y-up", ""),
      ("GR2", "SWTOR GR2 Rig (JBA)", "")], "rig"),
    ("id_property", "str", "gameanim_bone_id", "ID Property",
     "Banjo-Kazooie: the bone custom property holding each bone's ID", None, "rig"),
    ("root_motion", "enum", "AUTO", "Root Motion", "JBA root motion (trajectory)",
     [("AUTO", "Automatic", "As imported; for new animations the armature object's curves when present"),
      ("SKIP", "None", "No root motion from Blender"),
      ("OBJECT", "Armature Object", "The armature object's location and rotation")], "rig"),
]


class ExportOptions(_Options):
    """Plain export options for scripts: ExportOptions(rate='FRAMES', ...)."""

    SPECS = EXPORT_SPECS
    KIND = "export option"
    __slots__ = [s[0] for s in EXPORT_SPECS]


def make_export_options(options=None, **kw):
    return ExportOptions.make(options, **kw)


def operator_annotations(specs=None, skip=()):
    """bpy properties for an operator, built from a spec table."""
    import bpy

    props = {}
    for name, kind, default, label, desc, extra, _section in (SPECS if specs is None else specs):
        if name in skip:
            continue
        if kind == "enum":
            props[name] = bpy.props.EnumProperty(name=label, description=desc, items=enum_items(extra),
                                                 default=default)
        elif kind == "bool":
            props[name] = bpy.props.BoolProperty(name=label, description=desc, default=default)
        elif kind == "float":
            lo, hi = extra
            props[name] = bpy.props.FloatProperty(name=label, description=desc, default=default, min=lo, max=hi,
                                                  precision=float_digits(default))
        elif kind == "str":
            props[name] = bpy.props.StringProperty(name=label, description=desc, default=default)
        elif kind == "path":
            props[name] = bpy.props.StringProperty(name=label, description=desc, default=default,
                                                   subtype="FILE_PATH")
    return props


def float_digits(default):
    """Digits a float option shows: enough for its default to read right
    (a tolerance of 0.001 shows 0.0010, not 0.00)."""
    digits, v = 3, abs(default)
    while v and v < 10.0 ** -(digits - 1) and digits < 6:
        digits += 1
    return digits


# the longest label the file browser's sidebar shows uncut beside its value
MAX_LABEL = 16

# (section, title, closed by default): the import panel's collapsible
# sections, every one closed at first (a short panel; each remembers being
# opened: compat.draw_section); the options of one format sit in that
# format's section
SECTIONS = [
    ("target", "Target", True),
    ("bones", "Bones", True),
    ("model", "Model", True),
    ("time", "Time", True),
    ("j3d", "J3D", True),
    ("jba", "SWTOR JBA", True),
]


EXPORT_SECTIONS = [
    ("action", "Action"),
    ("encoding", "Encoding"),
    ("rig", "Rig (actions made in Blender)"),
]

FRAME_FIELDS = ("frame_range", "frame_start", "frame_end")


def export_fields(fmt):
    """The export options that matter for a format (its operator shows
    only these), from its traits."""
    material = formats.is_material(fmt)
    keys = formats.fits_keys(fmt) or formats.drops_linear_keys(fmt)
    wanted = {
        "archive_member": True, "rate": keys, "tolerance": keys, "compression": True, "loop": formats.loop_modes(fmt) is not None,
        "layout": formats.has_layouts(fmt), "calc_type": material,
        "translation_scale": not material, "up_axis": not material,
        "id_property": formats.target_kind(fmt) == "bone_id", "root_motion": formats.has_root_motion(fmt),
    }
    return FRAME_FIELDS + tuple(name for name, *_ in EXPORT_SPECS if wanted.get(name))


# Options every export operator takes, shown or not: the per-frame formats
# (BCA, JBA) have no key rate or key reduction, but scripts may pass the same
# options to every format's operator, as the scripting API allows.
EXPORT_ACCEPTED = ("rate", "tolerance")


def export_operator_fields(fmt):
    """The properties of fmt's export operator: export_fields (drawn) and
    EXPORT_ACCEPTED."""
    fields = export_fields(fmt)
    return fields + tuple(n for n in EXPORT_ACCEPTED if n not in fields)


def export_fields_all():
    """The export options of every format (the Game Animation entry, whose
    format is known only once an action is chosen)."""
    out = {}
    for fmt in formats.names():
        out.update(dict.fromkeys(export_operator_fields(fmt)))
    return tuple(out)


EXPORT_SPEC_BY_NAME = {s[0]: s for s in EXPORT_SPECS}


def section_fields(section, specs=None):
    return [s[0] for s in (SPECS if specs is None else specs) if s[6] == section]
