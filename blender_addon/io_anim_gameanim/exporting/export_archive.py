"""Export into a member of an archive (docs/blender.md, Archives): when the
export's path is an existing RARC / CRAR archive, the encoded animation
replaces one member (Archive.replace) and the archive is saved atomically
(Archive.save: a temporary file renamed into place), so a failure leaves
it as it was and every other member keeps its bytes.  Any other path is a
loose file, written as before."""
import os

from .. import native
from ..shared import archive_members
from ..shared.imported_action import archive_source
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


def is_archive_name(path):
    return str(path).lower().endswith(archive_members.archive_extensions())


def target(path, member, action, notes):
    """The ArchiveTarget for an export to `path`, or None for a loose file.
    member: option Archive Member; empty means the member the action was
    imported from, when `path` is that archive."""
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
    if tgt.archive.read(tgt.member) == data:
        result.notes.append(f"member {tgt.member} of {os.path.basename(tgt.path)} is unchanged: the archive was "
                            "not rewritten")
        return
    tgt.archive.replace(tgt.member, data)
    try:
        tgt.archive.save(tgt.path)
    except (OSError, ValueError, ga.FormatError) as e:  # (save is atomic: the archive is as it was)
        raise ExportError(f"could not write archive {tgt.path!r}: {getattr(e, 'strerror', None) or e}") from e
    result.notes.append(f"written into member {tgt.member} of {os.path.basename(tgt.path)} (the other members "
                        "keep their bytes)")
