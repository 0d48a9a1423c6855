"""The command line: batch import and batch export, one entry point.

    blender -b rig.blend --python blender_addon/io_anim_gameanim/batch.py -- \\
        [import] <files or folders> [--armature Rig] [--save out.blend] [--bone-match NAME] ...
    blender -b scene.blend --python blender_addon/io_anim_gameanim/batch.py -- \\
        export --out DIR [--format bck] [--action walk --action run] [--armature Rig] ...

also with the `bpy` module:  python batch.py [import] <files or folders> --save out.blend
                             python batch.py export --blend scene.blend --out DIR

`import` is the default subcommand (so the command lines from before the
subcommands still work).

import: folders are searched recursively for the formats' and the
compression wrappers' file names (the command-line tool's list).  One
progress line per file, then a summary.  A bad file is reported and
skipped; the batch never stops for it.  Exit status: 0 when every file
imported, 1 when some failed (the .blend is still saved), 2 for bad
arguments or when nothing could be imported.

export: without --action every action with curves is exported: an
imported action to its own format under its source file's name (byte for
byte when unedited), an action made in Blender to --format (required for
those).  BTK actions imported from one file (one per material) go back
into that one file.  One progress line per file, one result line, then a
summary.  A failing action is reported and skipped.  Exit status: 0 when
every action was written, 1 when some failed, 2 for bad arguments or when
nothing was written.
"""
import argparse
import os
import sys

COMMANDS = ("import", "export")


def _package():
    """The add-on package this file belongs to.  Run as a script (blender
    --python batch.py), it is imported by path first, so that its relative
    imports work."""
    pkg = sys.modules.get(__package__) if __package__ else None
    if pkg is not None:
        return pkg
    here = os.path.dirname(os.path.abspath(__file__))
    parent, name = os.path.split(here)
    if parent not in sys.path:
        sys.path.insert(0, parent)
    import importlib

    return importlib.import_module(name)


def script_args(argv=None):
    """The arguments after Blender's `--` (or the script's own)."""
    if argv is not None:
        return list(argv)
    if "--" in sys.argv:
        return sys.argv[sys.argv.index("--") + 1:]
    return sys.argv[1:]


def to_bool(s):
    return s.lower() in ("1", "true", "yes", "on")


def add_option_arguments(ap, specs, enum_items):
    """One --flag per option spec (options.SPECS / EXPORT_SPECS)."""
    for name, kind, default, label, desc, extra, _section in specs:
        flag = "--" + name.replace("_", "-")
        if kind == "enum":
            ap.add_argument(flag, choices=[e[0] for e in enum_items(extra)], default=default,
                            help=f"{desc} ({label})")
        elif kind == "bool":
            ap.add_argument(flag, default=default, type=to_bool, metavar="BOOL", help=desc)
        elif kind == "float":
            ap.add_argument(flag, type=float, default=default, help=desc)
        else:
            ap.add_argument(flag, default=default, help=desc)


def build_parser(command, options_mod):
    """The parser of one subcommand."""
    if command == "import":
        ap = argparse.ArgumentParser(prog="batch.py [import]",
                                     description="Import game animations into a .blend in bulk.")
        ap.add_argument("inputs", nargs="+", help="files or folders (searched recursively)")
        ap.add_argument("--blend", metavar="IN.blend", help="open this .blend first (its armatures and materials "
                                                             "are the targets; with the Blender binary, giving the "
                                                             "file before --python does the same)")
        ap.add_argument("--save", metavar="OUT.blend", help="save the result here")
        ap.add_argument("--armature", metavar="NAME", help="armature object to animate (default: the active "
                                                             "armature, the only armature, or a new one)")
        specs = options_mod.SPECS
    else:
        ap = argparse.ArgumentParser(prog="batch.py export",
                                     description="Export the actions of a .blend as game animation files.")
        ap.add_argument("--out", required=True, metavar="DIR", help="folder to write into (created if missing)")
        ap.add_argument("--blend", metavar="FILE.blend", help="open this .blend first (with the bpy module)")
        ap.add_argument("--action", action="append", default=[], metavar="NAME",
                        help="export only this action (repeatable); default: every action with curves")
        ap.add_argument("--armature", metavar="NAME", help="armature object for skeletal actions (default: the "
                                                           "object using each action, else the only armature)")
        specs = options_mod.EXPORT_SPECS
    ap.add_argument("--gameanim-path", metavar="DIR", help="folder holding the gameanim module")
    add_option_arguments(ap, specs, options_mod.enum_items)
    return ap


def _gameanim_path(args):
    """--gameanim-path, looked at before the parser is built (the formats
    and compressions the options offer come from the C module)."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--gameanim-path")
    known, _rest = pre.parse_known_args(args)
    return known.gameanim_path


def main(argv=None, out=None):
    """Runs one subcommand; returns the exit status."""
    out = out or sys.stdout
    args = script_args(argv)
    command = args.pop(0) if args and args[0] in COMMANDS else "import"
    path = _gameanim_path(args)
    if path:
        sys.path.insert(0, os.path.abspath(path))
    pkg = _package()
    from importlib import import_module

    options_mod = import_module(pkg.__name__ + ".shared.options")
    native = import_module(pkg.__name__ + ".native")
    try:
        native.require()
    except native.GameanimMissing as e:
        print(f"error: {e}", file=out)
        return 2
    args = build_parser(command, options_mod).parse_args(args)
    if command == "import":
        importer = import_module(pkg.__name__ + ".importing.importer")
        return run_import(args, options_mod, importer, out)
    exporter = import_module(pkg.__name__ + ".exporting.exporter")
    return run_export(args, options_mod, exporter, out)


def _options(cls, specs, args, out):
    """The options object of the parsed flags, or None (message printed)."""
    try:
        return cls(**{s[0]: getattr(args, s[0]) for s in specs})
    except (TypeError, ValueError) as e:
        print(f"error: {e}", file=out)
        return None


def _open_blend(path, out):
    """Opens --blend; False (message printed) when it cannot."""
    import bpy

    path = os.path.abspath(path)
    if not os.path.isfile(path):
        print(f"error: no .blend file {path}", file=out)
        return False
    try:
        bpy.ops.wm.open_mainfile(filepath=path)
    except RuntimeError as e:
        print(f"error: could not open {path}: {e}", file=out)
        return False
    print(f"opened {path}", file=out)
    return True


def _named_armature(name, out):
    """(found, armature object or None) for --armature."""
    import bpy

    if not name:
        return True, None
    arm = bpy.data.objects.get(name)
    if arm is None or arm.type != "ARMATURE":
        print(f"error: no armature object named {name!r}", file=out)
        return False, None
    return True, arm


def run_import(args, options_mod, importer, out):
    import bpy

    opts = _options(options_mod.ImportOptions, options_mod.SPECS, args, out)
    if opts is None:
        return 2
    if args.blend and not _open_blend(args.blend, out):
        return 2
    found, arm = _named_armature(args.armature, out)
    if not found:
        return 2
    if arm is None and opts.target != "NEW":
        active = bpy.context.view_layer.objects.active
        arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
        if active is not None and active.type == "ARMATURE":
            arm = active
        elif len(arms) == 1:
            arm = arms[0]

    files = importer.collect_files(args.inputs)
    missing = [f for f in files if not os.path.exists(f)]
    print(f"gameanim batch: {len(files)} file(s)" + (f" onto {arm.name}" if arm else ""), file=out)
    n = len(files)

    def progress(i, count, path, stage):
        if stage == "load":
            print(f"[{i + 1}/{count}] {path}", file=out, flush=True)

    try:
        result = importer.import_files(files, armature_obj=arm, options=opts, progress=progress)
    except ValueError as e:  # an option that does not fit the scene (no active armature...)
        print(f"error: {e}", file=out)
        return 2
    rep = result.report
    for f in rep.files:
        print(("  ok: " if f.imported else "  ") + f.summary(), file=out)
        for w in f.warnings():
            print(f"    warning: {w}", file=out)
    print(rep.summary(), file=out)
    if missing:
        print(f"{len(missing)} path(s) do not exist", file=out)
    if args.save:
        path = os.path.abspath(args.save)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            bpy.ops.wm.save_as_mainfile(filepath=path, check_existing=False)
        except (OSError, RuntimeError) as e:
            print(f"error: could not save {path}: {e}", file=out)
            return 2
        print(f"saved {path}", file=out)
    if n == 0 or not rep.succeeded:
        return 2
    # a file that animated nothing (its bones or materials missing) was not
    # imported: it counts as a failure in the exit code as in the summary
    return 1 if rep.failed or rep.empty else 0


def run_export(args, options_mod, exporter, out):
    import bpy

    if args.blend and not _open_blend(args.blend, out):
        return 2
    xopts = _options(options_mod.ExportOptions, options_mod.EXPORT_SPECS, args, out)
    if xopts is None:
        return 2
    found, arm = _named_armature(args.armature, out)
    if not found:
        return 2
    if args.action:
        missing = [a for a in args.action if a not in bpy.data.actions]
        if missing:
            print(f"error: no action named {', '.join(repr(m) for m in missing)}", file=out)
            return 2
        actions = [bpy.data.actions[a] for a in args.action]
    else:
        actions = None
    folder = os.path.abspath(args.out)
    if os.path.exists(folder) and not os.path.isdir(folder):
        print(f"error: --out {folder} is a file, not a folder", file=out)
        return 2

    def progress(i, n, label, result):
        if result is None:
            print(f"[{i + 1}/{n}] {label}", file=out, flush=True)
            return
        print(("  ok: " if result.ok else "  ") + result.summary(), file=out, flush=True)
        for note in result.notes:
            print(f"    note: {note}", file=out)
        for w in result.warnings:
            print(f"    warning: {w}", file=out)

    try:
        results = exporter.export_actions(folder, actions, armature=arm, options=xopts, progress=progress)
    except OSError as e:  # the folder cannot be made
        print(f"error: {e}", file=out)
        return 2
    ok = [r for r in results if r.ok]
    failed = [r for r in results if not r.ok]
    summary = f"Exported {len(ok)} of {len(results)} file(s) to {folder}"
    if failed:
        summary += f"; {len(failed)} failed"
    print(summary, file=out)
    if not ok:
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.exit(code)
