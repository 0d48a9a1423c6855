"""`batch.py export` under its old name, so that existing command lines keep
working:

    blender -b scene.blend --python blender_addon/io_anim_gameanim/batch_export.py -- --out DIR ...
    python batch_export.py --blend scene.blend --out DIR

is the same as `batch.py -- export --out DIR ...` (see batch.py)."""
import os
import sys


def main(argv=None, out=None):
    from .batch import main as batch_main, script_args

    return batch_main(["export", *script_args(argv)], out)


if __name__ == "__main__":
    import runpy

    at = sys.argv.index("--") + 1 if "--" in sys.argv else 1
    sys.argv[at:at] = ["export"]
    runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "batch.py"), run_name="__main__")
