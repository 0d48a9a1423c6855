"""Export into a member of an archive (docs/blender.md, Archives): when the
export's path is an existing RARC / CRAR archive, the encoded animation
replaces one member (Archive.replace) and the archive is saved atomically
(Archive.save: a temporary file renamed into place), so a failure leaves
it as it was and every other member keeps its bytes.  Any other path is a
loose file, written as before."""
import os

from .. import native
from ..shared import archive_members
from ..shared.imported_action import SOURCE_PROP, archive_source
from .export_tracks import ExportError


class ArchiveTarget:
    """An archive opened for the export and the member to replace."""

    def __init__(self, path, archive, member):
        self.path = path
        self.archive = archive
        self.member = member


def default_target(action):
    """(archive path, member) the action was imported from, when that
    archive still exists; else None."""
    src = archive_source(action)
    if src is None or not os.path.isfile(src[0]):
        return None
    return src


def member_format(arc, member):
    """The animation format of a member's bytes (None: not an animation)."""
    ga = native.require()
    try:
        return ga.detect(arc.read(member))[0]
    except (ga.FormatError, ValueError, KeyError):
        return None


def member_for(path, action, fmt):
    """The member of the archive at `path` an export of `action` as fmt
    replaces by default (the export dialog's Archive Member): the member it
    was imported from when `path` is that archive, else the one member of
    the same base name (archive_members.group_key: folder, case and
    extension aside) and of kind fmt; None when the path is no archive or
    no member fits."""
    if action is None or not path:
        return None
    arc = archive_members.open_if_archive(path)
    if arc is None:
        return None
    names = arc.namelist()
    src = archive_source(action)
    if src is not None and src[1] in names and _same_file(src[0], path):
        return src[1]
    key = archive_members.group_key(action.get(SOURCE_PROP) or action.name)
    fits = [n for n in names if archive_members.group_key(n) == key and member_format(arc, n) == fmt]
    return fits[0] if len(fits) == 1 else None


def is_archive_name(path):
    return str(path).lower().endswith(archive_members.archive_extensions())


def target(path, member, action, notes, fmt=None):
    """The ArchiveTarget for an export to `path`, or None for a loose file.
    member: option Archive Member; empty means the member the action was
    imported from, when `path` is that archive.  fmt: the format written; a
    member of another kind is refused (the game would read the bytes as
    its own kind)."""
    arc = archive_members.open_if_archive(path)
    if arc is None:
        ext = os.path.splitext(str(path))[1].lower()
        if is_archive_name(path) and ext != ".szs":  # (.szs may name one Yaz0-wrapped animation)
            raise ExportError(f"{path!r} is not an existing archive: an export goes into a member of an "
                              "existing archive (a new archive is made with gameanim pack)")
        if member:
            notes.append(f"option Archive Member ({member}) ignored: {os.path.basename(str(path))} is not an "
                         "archive, so a loose file is written")
        return None
    if not member:
        src = archive_source(action)
        if src is None or not _same_file(src[0], path):
            raise ExportError(f"{path!r} is an archive: name the member to replace (option Archive Member); "
                              f"its members: {', '.join(arc.namelist())}")
        member = src[1]
    if member not in arc.namelist():
        raise ExportError(f"archive {path!r} has no member {member!r}; its members: {', '.join(arc.namelist())}")
    kind = member_format(arc, member)
    if fmt and kind != fmt:
        what = f"a {kind.upper()} animation" if kind else "not an animation"
        raise ExportError(f"member {member!r} of {os.path.basename(str(path))} is {what}, and this export writes "
                          f"{fmt.upper()}: a member is only replaced by an animation of its own kind (choose a "
                          f"{fmt.upper()} member in Archive Member, or export to a loose file)")
    return ArchiveTarget(str(path), arc, member)


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def member_compression(tgt):
    """How the member is stored: its own compression (attribute bits), else
    the wrapper its bytes carry (None: plain)."""
    ga = native.require()
    info = _info(tgt)
    if info.compression:
        return info.compression
    try:
        return ga.detect(tgt.archive.read(tgt.member))[1]
    except (ga.FormatError, ValueError):
        return None


def _info(tgt):
    return next(i for i in tgt.archive.infolist() if i.name == tgt.member)


def write_member(tgt, data, result):
    """Replaces the member with `data` and saves the archive atomically;
    an unchanged member leaves the archive file untouched (its outer
    wrapper is not recompressed)."""
    ga = native.require()
    info = _info(tgt)
    if info.compression and result.compression != info.compression:
        raise ExportError(f"member {tgt.member!r} is stored {info.compression}-compressed (its attribute bits "
                          f"say so and the game decompresses it): export with compression As Imported or "
                          f"{info.compression}, not {result.compression or 'none'}")
    result.archive, result.member = tgt.path, tgt.member
    others = {n: tgt.archive.read(n) for n in tgt.archive.namelist() if n != tgt.member}
    result.other_members = len(others)
    if tgt.archive.read(tgt.member) == data:
        result.others_unchanged, result.archive_rewritten = True, False
        result.notes.append(f"member {tgt.member} of {os.path.basename(tgt.path)} is unchanged: the archive was "
                            "not rewritten")
        return
    tgt.archive.replace(tgt.member, data)
    try:
        tgt.archive.save(tgt.path)
    except (OSError, ValueError, ga.FormatError) as e:  # (save is atomic: the archive is as it was)
        raise ExportError(f"could not write archive {tgt.path!r}: {getattr(e, 'strerror', None) or e}") from e
    # read back what was written: the popup says what is true of the file
    written = ga.open_archive(tgt.path)
    changed = [n for n, b in others.items() if n not in written.namelist() or written.read(n) != b]
    result.others_unchanged, result.archive_rewritten = not changed, True
    result.notes.append(f"replaced member {tgt.member} of {os.path.basename(tgt.path)}")
    if changed:
        result.warnings.append(f"other member(s) of {os.path.basename(tgt.path)} changed: {', '.join(changed)}")
    else:
        result.notes.append(f"the other {len(others)} member(s) are byte for byte as before")


def popup_lines(result):
    """The lines of the operator's popup after an export into an archive."""
    arc = os.path.basename(result.archive or result.path)
    if not result.archive_rewritten:
        head = f"{arc}: member {result.member} unchanged (the archive was not rewritten)"
    else:
        head = f"{arc}: replaced member {result.member} with {', '.join(result.actions)}"
    if result.others_unchanged:
        tail = f"The other {result.other_members} member(s) are byte for byte as before"
    else:
        tail = "Other members changed: " + "; ".join(w for w in result.warnings if "other member" in w)
    return [head, tail]
