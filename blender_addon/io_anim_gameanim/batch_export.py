"""Batch export from the command line: many actions, or a whole .blend, to
a folder.

    blender -b scene.blend --python blender_addon/io_anim_gameanim/batch_export.py -- \\
        --out DIR [--format bck] [--action walk --action run] [--armature Rig] [--compression NONE] ...

also with the `bpy` module:  python batch_export.py --blend scene.blend --out DIR

Without --action every action with curves is exported: an imported action
to its own format under its source file's name (byte for byte when
unedited), an action made in Blender to --format (required for those).
BTK actions imported from one file (one per material) go back into that
one file.  One progress line per file, one result line, then a summary.  A
failing action is reported and skipped.  Exit status: 0 when every action
was written, 1 when some failed, 2 for bad arguments or when nothing was
written.
"""
import argparse
import os
import sys


try:  # the command line helpers of the import batch
    from .batch import _bootstrap, _script_args, add_option_arguments
except ImportError:  # run as a script: load the sibling batch.py by path
    import importlib.util

    _spec = importlib.util.spec_from_file_location(
        "_gameanim_batch", os.path.join(os.path.dirname(os.path.abspath(__file__)), "batch.py"))
    _batch = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_batch)
    _bootstrap, _script_args, add_option_arguments = _batch._bootstrap, _batch._script_args, \
        _batch.add_option_arguments


def build_parser(specs):
    ap = argparse.ArgumentParser(prog="batch_export.py",
                                 description="Export the actions of a .blend as game animation files.")
    ap.add_argument("--out", required=True, metavar="DIR", help="folder to write into (created if missing)")
    ap.add_argument("--blend", metavar="FILE.blend", help="open this .blend first (with the bpy module)")
    ap.add_argument("--action", action="append", default=[], metavar="NAME",
                    help="export only this action (repeatable); default: every action with curves")
    ap.add_argument("--armature", metavar="NAME", help="armature object for skeletal actions (default: the "
                                                       "object using each action, else the only armature)")
    ap.add_argument("--gameanim-path", metavar="DIR", help="folder holding the gameanim module")
    add_option_arguments(ap, specs)
    return ap


def main(argv=None, out=None):
    out = out or sys.stdout
    pkg = sys.modules.get(__package__) if __package__ else None
    if pkg is None:
        pkg = _bootstrap()
    from importlib import import_module

    options_mod = import_module(pkg.__name__ + ".options")
    exporter = import_module(pkg.__name__ + ".exporter")
    native = import_module(pkg.__name__ + ".native")
    import bpy

    ap = build_parser(options_mod.EXPORT_SPECS)
    args = ap.parse_args(_script_args(argv))
    if args.gameanim_path:
        sys.path.insert(0, os.path.abspath(args.gameanim_path))
    try:
        native.require()
    except native.GameanimMissing as e:
        print(f"error: {e}", file=out)
        return 2
    if args.blend:
        if not os.path.isfile(args.blend):
            print(f"error: no such .blend: {args.blend}", file=out)
            return 2
        bpy.ops.wm.open_mainfile(filepath=os.path.abspath(args.blend))
    try:
        xopts = options_mod.ExportOptions(**{s[0]: getattr(args, s[0]) for s in options_mod.EXPORT_SPECS})
    except (TypeError, ValueError) as e:
        print(f"error: {e}", file=out)
        return 2
    arm = None
    if args.armature:
        arm = bpy.data.objects.get(args.armature)
        if arm is None or arm.type != "ARMATURE":
            print(f"error: no armature object named {args.armature!r}", file=out)
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
