"""An archive's members as the add-on sees them (docs/blender.md, Archives):
which are models, which are animations the add-on imports, grouped by base
name and paired with a model by joint count, and which it cannot import,
with the reason.  No bpy here: the import dialog (archive_dialog.py), the
importer and the tests all read the same listing.

A member given to the importer is a MemberSource: a str (its label,
so reports and action names read as for a loose file)
that carries the archive's path, the member's name and its bytes as
stored.  The label is 'ARCHIVE/MEMBER', as if the archive were a folder,
so that its last component is the member's file name wherever the member
sits.  content_of() gives the importer what gameanim.load takes."""
import os

from .. import native
from . import formats, model_rig
from .rig_match import anim_targets

MODEL, GROUP, UNSUPPORTED, OTHER = "MODEL", "GROUP", "UNSUPPORTED", "OTHER"


class MemberSource(str):
    """One archive member standing where import_files takes a path."""

    def __new__(cls, archive, member, data):
        self = super().__new__(cls, f"{archive}/{member}")
        self.archive = str(archive)
        self.member = member
        self.data = data
        return self


def content_of(source):
    """What gameanim.load / load_model read: a member's bytes, else the path."""
    return getattr(source, "data", source)


def archive_extensions():
    """The archives' file name extensions (gameanim.ARCHIVE_EXTENSIONS)."""
    try:
        return tuple(native.require().ARCHIVE_EXTENSIONS)
    except (native.GameanimMissing, AttributeError):
        return ()


def open_if_archive(path):
    """The Archive when `path` is a file with an archive extension whose
    content opens as one, else None.  .szs also names a single Yaz0-wrapped
    animation: the content decides, never the extension alone."""
    if isinstance(path, MemberSource) or not str(path).lower().endswith(archive_extensions()):
        return None
    if not os.path.isfile(path):
        return None
    ga = native.require()
    try:
        return ga.open_archive(str(path))
    except (ga.FormatError, OSError, ValueError):
        return None


def group_key(member):
    """Animations of one set share a base name whatever their folder and
    kind: Wait.bck, Wait.brk, btk/wait.btk -> 'wait'."""
    base = member.rsplit("/", 1)[-1]
    return (base.split(".")[0] or base).lower()


class Entry:
    """One member: kind (MODEL, GROUP = an animation the add-on imports,
    UNSUPPORTED = an animation of a format it does not map yet, OTHER =
    not an animation or model), format, joints (a model's joint count),
    targets (a skeletal animation's targets), reason (UNSUPPORTED / OTHER)."""

    __slots__ = ("name", "size", "kind", "format", "joints", "targets", "reason", "short", "rig", "model")

    def __init__(self, name, size):
        self.name, self.size = name, size
        self.kind = OTHER
        self.format = None
        self.joints = 0
        self.targets = None
        self.reason = ""      # why it cannot be imported, in full (the decoder's message)
        self.short = ""       # the same in a few plain words (the dialog's row; the full reason is its tooltip)
        self.rig = None
        self.model = None  # (animations) the model member it goes to, or None


class Group:
    """Animations sharing a base name, with the model(s) their skeletal
    members fit (by joint count; Banjo-Kazooie by bone ID)."""

    def __init__(self, key):
        self.key = key
        self.members = []     # Entry, in archive order
        self.models = []      # model member names the skeletal members go to
        self.misfits = []     # skeletal members no model of their kind fits

    @property
    def label(self):
        return self.members[0].name.rsplit("/", 1)[-1].split(".")[0]

    def describe(self, models=True):
        """Where the members go, in plain words: skeletal ones to their
        model's armature (or the active or a new one), colours, texture
        patterns and texture matrices to the materials, visibility to the
        shapes.  models: whether the archive has a model (its materials
        and shapes are then the ones animated)."""
        where = {}
        for e in self.members:
            where.setdefault(destination(e, self.misfits, models), []).append(e.name)
        return "; ".join(f"{', '.join(names)} {dest}" for dest, names in where.items())


def destination(entry, misfits=(), models=True):
    """'-> ...': where an importable member goes."""
    kind = formats.kind(entry.format)
    owner = "the model's" if models else "the scene's"
    if formats.is_material(entry.format) or kind in ("color", "texture_index"):
        return f"-> {owner} materials"
    if kind == "visibility":
        return f"-> {owner} shape objects"
    if entry.model:
        return "-> " + entry.model
    for m in misfits:
        if m.startswith(entry.name + " ("):
            return f"-> no model in the archive fits it {m[len(entry.name) + 1:]}"
    return "-> the active or a new armature"


def _classify(ga, entry, data):
    # a model first, as the importer tries each file (importing/model_import.py)
    try:
        model = ga.load_model(data)
    except (ga.FormatError, ValueError):
        model = None
    if model is not None:
        entry.kind, entry.format = MODEL, model.format
        entry.rig = model_rig.rig_info(model, entry.name)
        entry.joints = len(entry.rig["bones"])
        return
    try:
        fmt, _comp = ga.detect(data)
    except (ga.FormatError, ValueError) as e:
        try:
            ga.open_archive(data)
            entry.reason = "a nested archive (not opened here: extract it with gameanim extract, then import it)"
            entry.short = "an archive inside the archive: extract it first"
        except (ga.FormatError, ValueError):
            entry.reason = str(e)
            entry.short = "not an animation or a model"
        return
    entry.format = fmt
    why = formats.unsupported_message(fmt)
    if why:
        entry.kind, entry.reason = UNSUPPORTED, why
        entry.short = f"{fmt.upper()} animations are not supported in Blender yet"
        return
    try:
        anim = ga.load(data)
    except (ga.FormatError, ValueError) as e:
        entry.reason = str(e)
        entry.short = f"a damaged {fmt.upper()} file: it does not decode"
        return
    entry.kind = GROUP
    if formats.is_skeletal(fmt):
        entry.targets = anim_targets(anim)


class Listing:
    """Every member of one archive, classified; the groups and models in
    archive order."""

    def __init__(self, path, arc=None):
        ga = native.require()
        self.path = str(path)
        self.archive = arc if arc is not None else ga.open_archive(self.path)
        self.entries = []
        for info in self.archive.infolist():
            entry = Entry(info.name, info.size)
            _classify(ga, entry, self.archive.read(info.name))
            self.entries.append(entry)
        self.models = [e for e in self.entries if e.kind == MODEL]
        self.groups = []
        by_key = {}
        for e in self.entries:
            if e.kind != GROUP:
                continue
            g = by_key.get(group_key(e.name))
            if g is None:
                g = by_key[group_key(e.name)] = Group(group_key(e.name))
                self.groups.append(g)
            g.members.append(e)
            self._pair(e, g)

    def _pair(self, entry, group):
        """The first model that fits, as the importer dispatches
        (importing/import_plan.py); animations with no model of their kind in
        the archive go to the import's target."""
        if entry.targets is None:
            return
        family = [m for m in self.models if model_rig.animation_format(m.format) == entry.format]
        fit = next((m for m in family if model_rig.animation_fits(m.rig, entry.format, entry.targets)), None)
        if fit is not None:
            entry.model = fit.name
            if fit.name not in group.models:
                group.models.append(fit.name)
        elif family:
            group.misfits.append(f"{entry.name} ({len(entry.targets)} targets)")

    def unsupported(self):
        return [e for e in self.entries if e.kind in (UNSUPPORTED, OTHER)]

    def importable(self):
        """The members an import of 'all' reads: models, then the
        animations, in archive order; animations of formats the add-on
        does not map yet come too, so that the report names them."""
        first = [e.name for e in self.models]
        return first + [e.name for e in self.entries if e.kind in (GROUP, UNSUPPORTED)]

    def sources(self):
        """MemberSources of importable()."""
        return member_sources(self.path, self.archive, self.importable())


def member_sources(path, arc, members):
    """MemberSources of the named members (in archive order, each once; an
    unknown name raises KeyError naming the archive's members)."""
    names = arc.namelist()
    missing = [n for n in members if n not in names]
    if missing:
        raise KeyError(f"not in archive {path}: {', '.join(missing)} (members: {', '.join(names)})")
    wanted = set(members)
    return [MemberSource(str(path), n, arc.read(n)) for n in dict.fromkeys(names) if n in wanted]


def expand(paths):
    """Paths with each archive (by content: open_if_archive) replaced by
    the members an import of all of it reads."""
    out = []
    for p in paths:
        arc = open_if_archive(p)
        out.extend(Listing(p, arc).sources() if arc is not None else [p])
    return out
