"""Batch import from the command line:

    blender -b rig.blend --python blender_addon/io_anim_gameanim/batch.py -- \\
        <files or folders> [--armature Rig] [--save out.blend] [--bone-match NAME] ...

also with the `bpy` module:  python batch.py <files or folders> --save out.blend

Folders are searched recursively for .bck .btk .bca .jba .bin .anim files
and the wrappers .szs .yaz0 .yay0 .lz .lz77.  One progress line per file,
then a summary.  A bad file is reported and
skipped; the batch never stops for it.  Exit status: 0 when every file
imported, 1 when some failed (the .blend is still saved), 2 for bad
arguments or when nothing could be imported.
"""
import argparse
import os
import sys


def _bootstrap():
    """Run as a script (blender --python batch.py / batch_export.py): import
    the package this file belongs to, so that its relative imports work."""
    here = os.path.dirname(os.path.abspath(__file__))
    parent, pkg = os.path.split(here)
    if parent not in sys.path:
        sys.path.insert(0, parent)
    import importlib

    return importlib.import_module(pkg)


def _script_args(argv):
    if argv is not None:
        return list(argv)
    if "--" in sys.argv:
        return sys.argv[sys.argv.index("--") + 1:]
    return sys.argv[1:]


def to_bool(s):
    return s.lower() in ("1", "true", "yes", "on")


def add_option_arguments(ap, specs):
    """One --flag per option spec (options.SPECS / EXPORT_SPECS)."""
    for name, kind, default, label, desc, extra, _section in specs:
        flag = "--" + name.replace("_", "-")
        if kind == "enum":
            ap.add_argument(flag, choices=[e[0] for e in extra], default=default, help=f"{desc} ({label})")
        elif kind == "bool":
            ap.add_argument(flag, default=default, type=to_bool, metavar="BOOL", help=desc)
        elif kind == "float":
            ap.add_argument(flag, type=float, default=default, help=desc)
        else:
            ap.add_argument(flag, default=default, help=desc)


def build_parser(option_specs):
    ap = argparse.ArgumentParser(prog="batch.py", description="Import game animations into a .blend in bulk.")
    ap.add_argument("inputs", nargs="+", help="files or folders (searched recursively)")
    ap.add_argument("--blend", metavar="IN.blend", help="open this .blend first (its armatures and materials "
                                                         "are the targets; with the Blender binary, giving the "
                                                         "file before --python does the same)")
    ap.add_argument("--save", metavar="OUT.blend", help="save the result here")
    ap.add_argument("--armature", metavar="NAME", help="armature object to animate (default: the active "
                                                         "armature, the only armature, or a new one)")
    ap.add_argument("--gameanim-path", metavar="DIR", help="folder holding the gameanim module")
    add_option_arguments(ap, option_specs)
    return ap


def main(argv=None, out=None):
    out = out or sys.stdout
    pkg = sys.modules.get(__package__) if __package__ else None
    if pkg is None:
        pkg = _bootstrap()
    from importlib import import_module

    options_mod = import_module(pkg.__name__ + ".options")
    importer = import_module(pkg.__name__ + ".importer")
    native = import_module(pkg.__name__ + ".native")
    import bpy

    ap = build_parser(options_mod.SPECS)
    args = ap.parse_args(_script_args(argv))
    if args.gameanim_path:
        sys.path.insert(0, os.path.abspath(args.gameanim_path))
    try:
        native.require()
    except native.GameanimMissing as e:
        print(f"error: {e}", file=out)
        return 2
    try:
        opts = options_mod.ImportOptions(**{s[0]: getattr(args, s[0]) for s in options_mod.SPECS})
    except (TypeError, ValueError) as e:
        print(f"error: {e}", file=out)
        return 2

    if args.blend:
        path = os.path.abspath(args.blend)
        if not os.path.isfile(path):
            print(f"error: no .blend file {path}", file=out)
            return 2
        try:
            bpy.ops.wm.open_mainfile(filepath=path)
        except RuntimeError as e:
            print(f"error: could not open {path}: {e}", file=out)
            return 2
        print(f"opened {path}", file=out)

    arm = None
    if args.armature:
        arm = bpy.data.objects.get(args.armature)
        if arm is None or arm.type != "ARMATURE":
            print(f"error: no armature object named {args.armature!r}", file=out)
            return 2
    elif opts.target != "NEW":
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
        print(("  ok: " if f.ok else "  ") + f.summary(), file=out)
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
    return 1 if rep.failed else 0


if __name__ == "__main__":
    code = main()
    out_stream = sys.stdout
    out_stream.flush()
    sys.exit(code)
