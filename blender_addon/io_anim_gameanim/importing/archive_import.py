"""Import from RARC / CRAR archives (docs/blender.md, Archives): the chosen
members of one or more archives go through import_files together, as if
they were loose files selected at once (models build their armatures, the
animations go to the model they fit).  The dialog that lets a user tick
members is archive_dialog.py; this module is what it and scripts call."""
from .. import native
from ..shared import archive_members
from ..shared.options import make_options
from .importer import ImportResult, import_files
from .report import ImportReport


def import_archives(selection, armature_obj=None, materials=None, options=None, context=None, progress=None,
                    **kw):
    """selection: [(archive path, [member, ...]), ...]; an empty member
    list means every member the add-on can import (models and animations;
    animations of formats it does not map yet are reported as failed).
    An archive that does not open, or a member it does not hold, is
    reported, and the rest still imports.  Returns an ImportResult."""
    make_options(options, **kw)  # (bad options raise here, even when no member imports)
    try:
        ga = native.require()
    except native.GameanimMissing:
        return import_files([p for p, _m in selection], armature_obj, materials, options, context, progress, **kw)
    sources, failed = [], []
    for path, members in selection:
        try:
            arc = ga.open_archive(str(path))
            if members:
                sources.extend(archive_members.member_sources(path, arc, list(members)))
            else:
                sources.extend(archive_members.Listing(path, arc).sources())
        except (ga.FormatError, OSError, ValueError, KeyError) as e:
            msg = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
            failed.append((str(path), f"archive: {msg}"))
    result = import_files(sources, armature_obj, materials, options, context, progress, **kw) if sources else \
        ImportResult(report=ImportReport())
    for path, msg in failed:
        result.report.add(path).error = msg
    return result


def import_archive(path, members=None, armature_obj=None, materials=None, options=None, context=None,
                   progress=None, **kw):
    """One archive; see import_archives."""
    return import_archives([(path, list(members or ()))], armature_obj, materials, options, context, progress,
                           **kw)
