"""Regenerates samples/ with the project's own encoders.

Every tools/samples_<name>.py module defines generate() -> {relative path:
bytes}.  `python tools/make_samples.py` writes them; `--check` verifies
that the committed files are byte-identical to a fresh generation (the
samples are deterministic: no clocks, no unseeded randomness).
"""
import argparse
import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def generators():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    for path in sorted(Path(__file__).resolve().parent.glob("samples_*.py")):
        yield path.stem, importlib.import_module(path.stem)


def generate_all():
    files = {}
    for name, mod in generators():
        for rel, data in mod.generate().items():
            if rel in files:
                raise SystemExit(f"{name}: sample {rel} generated twice")
            files[rel] = data
    return files


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare with the committed samples instead of writing")
    ap.add_argument("--only", help="only generators whose module name contains this")
    args = ap.parse_args(argv)
    files = {}
    for name, mod in generators():
        if args.only and args.only not in name:
            continue
        for rel, data in mod.generate().items():
            files[rel] = data
    bad = 0
    for rel, data in sorted(files.items()):
        path = SAMPLES / rel
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                print(f"DIFFERS: {rel}")
                bad += 1
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            print(f"{len(data):8d}  {rel}")
    if args.check:
        print(f"{len(files) - bad}/{len(files)} samples identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
