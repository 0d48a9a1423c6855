"""The `gameanim` command: inspect, dump, build, sample, validate and convert
game animation files.

    gameanim info FILE|FOLDER...            summary per file and per track (--brief: per file)
    gameanim dump FILE [-o OUT.json]        the whole decoded file as JSON
    gameanim build IN.json -o OUT           a file from such JSON
    gameanim sample FILE --frames A:B[:STEP] [-o OUT.csv]
    gameanim validate FILE|FOLDER...        decode, re-encode, report round trip and anomalies
    gameanim convert FILE|FOLDER... -o DIR [--compression NAME|none] [--layout 32|64]
    gameanim ls X.arc                       an archive's tree: sizes, kinds, what decodes
    gameanim extract X.arc -o DIR [--decompress]
    gameanim pack X.arc MEMBER=FILE... [-o OUT]   replaces members (atomically)

info and validate go into archives (RARC / CRAR, .arc / .szs) and name a
member as X.arc:bck/wait.bck.

info, dump and validate also read model files (J3D BMD/BDL, SM64DS BMD,
Banjo-Kazooie model bins) and show their joints.

Folders are searched recursively for files gameanim can read; work runs on
all cores (-j to change); a progress bar is shown on a terminal.

Exit codes: 0 success, 1 at least one file failed (bad file, encode error,
or validate found a problem), 2 usage error (bad arguments, nothing to do).
"""
import argparse
import base64
import concurrent.futures
import csv
import io
import json
import math
import os
import sys
import warnings

import gameanim

DUMP_VERSION = 1
# what the C registry knows of each format (gameanim.formats()): nothing
# below names a format, so one added in C is handled here too
FORMATS = gameanim.formats()
MODEL_FORMATS = gameanim.model_formats()
# folders are searched for animation and model files
_MODEL_EXTENSIONS = tuple(dict.fromkeys(e for m in MODEL_FORMATS.values() for e in m["extensions"]))
EXTENSIONS = gameanim.file_extensions() + tuple(
    e for e in _MODEL_EXTENSIONS + gameanim.ARCHIVE_EXTENSIONS if e not in gameanim.file_extensions())


# --------------------------------------------------------------- helpers


def iter_files(paths, all_files=False):
    """Files given directly, plus files under given folders (recursively)
    whose extension is one gameanim reads (any file with --all)."""
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                for name in sorted(files):
                    if all_files or name.lower().endswith(EXTENSIONS):
                        yield os.path.join(root, name)
        else:
            yield p


class Progress:
    """A one-line progress bar on stderr when it is a terminal."""

    def __init__(self, total, enabled=None):
        self.total = total
        self.done = 0
        self.enabled = sys.stderr.isatty() if enabled is None else enabled

    def step(self, label=""):
        self.done += 1
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        bar = "#" * filled + "-" * (width - filled)
        sys.stderr.write(f"\r[{bar}] {self.done}/{self.total} {label[-40:]:40}")
        sys.stderr.flush()

    def close(self):
        if self.enabled:
            sys.stderr.write("\r" + " " * 90 + "\r")
            sys.stderr.flush()


def run_parallel(func, files, jobs, progress=True):
    """Runs func(path) -> (ok, text) on every file; yields results in order."""
    files = list(files)
    bar = Progress(len(files), None if progress else False)
    label = lambda item: os.path.basename(item[0] if isinstance(item, tuple) else item)
    results = [None] * len(files)
    if jobs <= 1 or len(files) <= 1:
        for i, f in enumerate(files):
            results[i] = func(f)
            bar.step(label(f))
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as ex:
            futs = {ex.submit(func, f): i for i, f in enumerate(files)}
            for fut in concurrent.futures.as_completed(futs):
                i = futs[fut]
                try:
                    results[i] = fut.result()
                except Exception as e:  # a worker crash must not lose the batch
                    results[i] = (False, f"{files[i]}: error: {e}")
                bar.step(label(files[i]))
    bar.close()
    return files, results


def quiet_to_bytes(anim, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gameanim.PrecisionWarning)
        return anim.to_bytes(**kw)


def target_label(t):
    return str(t.target)


def track_label(t):
    return f"{target_label(t)}/{t.channel}/{t.axis}"


def load_any(path):
    """An Animation, or a Model when the file is a model file (then the
    animation loader's error says so).  `path` may also be bytes (an
    archive member)."""
    try:
        return gameanim.load(path)
    except gameanim.FormatError as e:
        if e.format not in MODEL_FORMATS:
            raise
    return gameanim.load_model(path)


# --------------------------------------------------------------- models


def bone_line(b):
    """One joint: index, name, parent and the rest transform as stored."""
    name = "-" if b.name is None else repr(b.name)
    extra = []
    if b.bone_id is not None:
        extra.append(f"id {b.bone_id}")
    if b.scale_compensate_raw is not None:
        extra.append(f"ssc {b.scale_compensate_raw:#04x}")
    if b.data_index != b.index:
        extra.append(f"record {b.data_index}")
    fmt3 = lambda v: "(" + ", ".join(f"{x:.6g}" for x in v) + ")"  # noqa: E731
    return (f"    {b.index:4d} {name:24} parent {b.parent:4d}  T {fmt3(b.translation)} R {b.rotation_raw} "
            f"S {fmt3(b.scale)}" + (f"  [{', '.join(extra)}]" if extra else ""))


def describe_model(path, model, verbose=False, brief=False):
    lines = [
        f"{path}: {model.format} model" + (f" in {model.compression}" if model.compression else ""),
        f"  {len(model.bones)} joints, {model.info['roots']} roots, rule {model.calc or '-'}, "
        f"compression {model.compression or 'none'}",
    ]
    if not brief:
        lines += [bone_line(b) for b in model.bones]
    if verbose:
        for k, v in sorted(model.info.items()):
            lines.append(f"    info {k} = {v}")
    return True, "\n".join(lines)


def model_dump(model):
    """A model's skeleton as JSON (docs/cli.md): read-only, no 'build'."""
    return {
        "gameanim_model_dump": DUMP_VERSION,
        "format": model.format,
        "compression": model.compression,
        "calc": model.calc,
        "info": {k: jsonable(v) for k, v in sorted(model.info.items())},
        "bones": [
            {k: jsonable(getattr(b, k)) for k in ("index", "name", "name_hash", "parent", "scale", "rotation",
                                                 "translation", "rotation_raw", "scale_compensate",
                                                 "scale_compensate_raw", "kind", "bone_id", "data_index",
                                                 "scale_fixed", "translation_fixed")}
            for b in model.bones
        ],
        "inverse_binds": [list(m) for m in model.inverse_binds],
    }


def model_anomalies(model):
    """What is legal but worth a look in a model: names whose stored hash
    disagrees, several roots (joints the hierarchy never reaches), J3D
    scale-compensate bytes other than 0, 1 and 0xFF."""
    out = []
    wrong = [b.index for b in model.bones if b.name_hash is not None and b.name is not None
             and b.name_hash != name_hash(b.name.encode("cp932", "surrogateescape"))]
    if wrong:
        out.append(f"name hashes that disagree with the name: joints {wrong}")
    if model.info["roots"] > 1:
        out.append(f"{model.info['roots']} roots: " + str([b.index for b in model.bones if b.parent < 0]))
    odd = [b.index for b in model.bones if b.scale_compensate_raw not in (None, 0, 1, 0xFF)]
    if odd:
        out.append(f"scale-compensate bytes other than 0, 1, 0xFF: joints {odd}")
    return out


def name_hash(raw):
    """JUTNameTab's hash of stored name bytes (h = h * 3 + c as signed chars, 16 bits)."""
    h = 0
    for c in raw:
        h = (h * 3 + (c - 256 if c >= 128 else c)) & 0xFFFF
    return h


def validate_model(path, model):
    """J3D models also go through gameanim.check_model: a problem the game's
    loader would hit fails the file; a warning is listed only."""
    found = gameanim.check_model(model) if model.family == "j3d" else []
    problems = [p for p in found if not p.startswith("warning:")]
    status = "OK" if not problems else f"FAIL game check, {len(problems)} problem{'s' if len(problems) > 1 else ''}"
    text = [f"{path}: {status} ({model.format}{', ' + model.compression if model.compression else ''})",
            f"  {len(model.bones)} joints decoded, rule {model.calc or '-'}"]
    text += [f"  anomaly: {x}" for x in model_anomalies(model)]
    text += [f"  problem: {p}" for p in problems] + [f"  {w}" for w in found if w.startswith("warning:")]
    return not problems, "\n".join(text)


# --------------------------------------------------------------- info


def describe(path, verbose=False, brief=False, source=None):
    arc = open_archive_or_none(path) if source is None else None
    if arc is not None:  # archives: describe_archive
        return describe_archive(path, arc, verbose, brief)
    try:
        anim = load_any(path if source is None else source)
    except (gameanim.FormatError, OSError) as e:
        return False, f"{path}: error: {e}"
    if isinstance(anim, gameanim.Model):
        return describe_model(path, anim, verbose, brief)
    keys = sum(len(t) for t in anim.tracks)
    targets = len({(type(t.target).__name__, t.target) for t in anim.tracks})
    lines = [
        f"{path}: {anim.format}" + (f" in {anim.compression}" if anim.compression else ""),
        f"  frames {anim.frame_count:g}, fps {anim.fps if anim.fps is not None else '-'}, "
        f"loop {anim.loop or '-'}, compression {anim.compression or 'none'}, "
        f"{len(anim.tracks)} tracks on {targets} targets, {keys} keys",
    ]
    if anim.entries and "texmtx_id" in anim.entries[0]:
        lines.append(f"  calc type {anim.calc_type}, {len(anim.entries)} texture-matrix animations")
        for i, e in enumerate(anim.entries):
            lines.append(f"    entry {i}: material {e['material']!r} texmtx {e['texmtx_id']} "
                         f"center {tuple(round(c, 6) for c in e['center'])}{' (post)' if e.get('post') else ''}")
    elif anim.entries:  # the other material kinds: their entries' own fields
        lines.append(f"  {len(anim.entries)} material entries")
        for i, e in enumerate(anim.entries):
            rest = " ".join(f"{k} {v}" for k, v in e.items() if k != "material")
            lines.append(f"    entry {i}: material {e['material']!r}" + (f" {rest}" if rest else ""))
    if "rotation_frac" in anim.info:  # a header field of the formats that have the parameter
        lines.append(f"  rotation shift {anim.rotation_frac}")
    if not brief:
        for t in anim.tracks:
            if len(t):
                lo, hi = min(t.values), max(t.values)
                lines.append(f"    {track_label(t):28} {len(t):6d} keys  frames {t.times[0]:g}..{t.times[-1]:g}  "
                             f"values {lo:.6g}..{hi:.6g}")
            else:
                lines.append(f"    {track_label(t):28}      0 keys  (default)")
    if verbose:
        for k, v in sorted(anim.info.items()):
            if isinstance(v, bytes):
                v = v.hex()
            lines.append(f"    info {k} = {v}")
    return True, "\n".join(lines)


# --------------------------------------------------------------- dump / build


def jsonable(v):
    if isinstance(v, bytes):
        return {"base64": base64.b64encode(v).decode("ascii")}
    if isinstance(v, tuple):
        return list(v)
    return v


def to_dump(anim, include_original=True):
    """The documented JSON form (docs/cli.md).  Floats are the exact float32
    values; interpolation uses Blender's numbers (0 constant, 1 linear,
    2 Bezier)."""
    d = {
        "gameanim_dump": DUMP_VERSION,
        "format": anim.format,
        "compression": anim.compression,
        "frame_count": anim.frame_count,
        "fps": anim.fps,
        "loop": anim.loop,
        "params": {
            "rotation_frac": anim.rotation_frac,
            "calc_type": anim.calc_type,
            "start_frame": anim.start_frame,
            "layout": anim.layout,
            "keyless_rule": anim.keyless_rule,
        },
        "entries": [{k: jsonable(v) for k, v in e.items()} for e in anim.entries],
        "info": {k: jsonable(v) for k, v in sorted(anim.info.items())},
        "tracks": [
            {
                "target": t.target,
                "channel": t.channel,
                "axis": t.axis,
                "times": list(t.times),
                "values": list(t.values),
                "in_slopes": list(t.in_slopes),
                "out_slopes": list(t.out_slopes),
                "interpolation": list(t.interpolation),
            }
            for t in anim.tracks
        ],
    }
    orig = anim.original_bytes()
    if include_original and orig is not None:
        d["original"] = base64.b64encode(orig).decode("ascii")
    return d


def from_dump(d):
    if d.get("gameanim_dump") != DUMP_VERSION:
        raise ValueError(f"not a gameanim dump (version {DUMP_VERSION}): missing or different 'gameanim_dump'")
    tracks = [
        gameanim.Track(t["target"], t["channel"], t["axis"], t["times"], t["values"], t["in_slopes"], t["out_slopes"],
                       t["interpolation"])
        for t in d["tracks"]
    ]
    entries = [{k: (tuple(v) if k == "center" else v) for k, v in e.items()} for e in d.get("entries", [])]
    p = d.get("params", {})
    if d.get("original"):
        anim = gameanim.load(base64.b64decode(d["original"]), keyless_rule=p.get("keyless_rule") or "base")
        anim.tracks = tracks
        anim.entries = entries
        anim.frame_count = d["frame_count"]
        anim.fps = d.get("fps")
        anim.loop = d.get("loop")
        anim.compression = d.get("compression")
        for k in ("rotation_frac", "calc_type", "start_frame", "layout", "keyless_rule"):
            if k in p:
                setattr(anim, k, p[k])
        return anim
    kw = {k: p[k] for k in ("rotation_frac", "calc_type", "start_frame", "layout", "keyless_rule") if k in p}
    return gameanim.Animation(d["format"], tracks, frame_count=d["frame_count"], fps=d.get("fps"),
                              loop=d.get("loop"), compression=d.get("compression"), entries=entries, **kw)


# --------------------------------------------------------------- validate


def anomalies(anim):
    """What the format notes say is worth reporting in an otherwise valid file.
    Each check reads a header field of anim.info that only the formats
    concerned report (absent, it is skipped), so none names a format."""
    info = anim.info
    out = []
    if info.get("trailing_bytes"):
        out.append(f"{info['trailing_bytes']} bytes after the end the header states")
    # J3D (BCK, BTK)
    if info.get("chunk_size_delta"):
        out.append(f"chunk size field is off by {info['chunk_size_delta']} (a known writer quirk)")
    if info.get("loop_mode", 0) > 4:
        out.append(f"loop mode {info['loop_mode']} is not 0..4")
    # BTK
    if info.get("calc_type", 0) not in (0, 1):
        out.append(f"calc type {info['calc_type']} is neither Basic nor Maya (the game reads it as Basic)")
    if not info.get("material_ids_identity", 1):
        out.append("material id table is not the identity (the game ignores it)")
    if not info.get("name_hashes_valid", 1):
        out.append("name table hashes do not match their strings")
    if info.get("post_track_count"):
        out.append("post-texgen matrix animations present (never seen in retail files)")
    # BCA
    if info.get("animated_bb_not_1"):
        out.append(f"{info['animated_bb_not_1']} animated tracks have an interpolation flag (BB) other than 1 "
                   "(the game only tests it for zero)")
    if info.get("constant_with_shift"):
        out.append(f"{info['constant_with_shift']} constant tracks carry a rate shift (AA), which the game ignores")
    # (one unread scale value is the 1.0 writers keep at index 0 for the
    # fast path; one unread rotation value can be the 2 bytes that align
    # the next section)
    for ch, usual in (("scale", 1), ("rotation", 1), ("translation", 0)):
        if info.get(f"unreferenced_{ch}_values", 0) > usual:
            out.append(f"{info[f'unreferenced_{ch}_values']} {ch} pool values no track reads")
    # Banjo-Kazooie
    if info.get("pad"):
        out.append(f"header pad word is 0x{info['pad']:04x}, not 0")
    if not info.get("bones_contiguous", 1):
        out.append("a bone's elements are not adjacent (the game re-defaults its other channels)")
    if info.get("duplicate_channels"):
        out.append(f"{info['duplicate_channels']} elements repeat a bone and type (the later one wins)")
    if info.get("max_bone_id", 0) > 0x6C:
        out.append(f"bone ID {info['max_bone_id']} is beyond the game's 109-entry bone table")
    # JBA
    jumps = info.get("jump_frames", b"")
    if jumps:
        frames = [int.from_bytes(jumps[i:i + 4], "little") for i in range(0, len(jumps), 4)]
        out.append("the two sections sharing frame" + ("s " if len(frames) > 1 else " ")
                   + ", ".join(map(str, frames[:8])) + (" ..." if len(frames) > 8 else "")
                   + " hold different values there (the notes' seam check)")
    if info.get("nonzero_padding_bytes"):
        out.append(f"{info['nonzero_padding_bytes']} non-zero padding bytes"
                   + (" (64-bit readers reject them)" if info.get("layout") == 64 else ""))
    for k, v in sorted(info.items()):
        if k.startswith("anomaly") and v:
            out.append(f"{k}: {v}")
    return out


def validate(path, raw=None):
    try:
        if raw is None:
            with open(path, "rb") as f:
                raw = f.read()
            arc = open_archive_or_none(path, raw)
            if arc is not None:  # archives: validate_archive
                return validate_archive(path, arc, raw)
    except OSError as e:
        return False, f"{path}: FAIL: cannot read: {os_error_text(e)}"
    try:
        anim = load_any(raw)
    except gameanim.FormatError as e:
        return False, f"{path}: FAIL decode: {e}"
    if isinstance(anim, gameanim.Model):
        return validate_model(path, anim)
    problems, notes = [], []
    try:
        if anim.to_bytes() != raw:
            problems.append("unedited to_bytes() differs from the input")
        rebuilt = quiet_to_bytes(anim, reencode="raw")
        exact = rebuilt == raw
        again = gameanim.load(rebuilt)
        same_tracks = all(
            (list(a.times), list(a.values), list(a.interpolation)) == (list(b.times), list(b.values), list(b.interpolation))
            for a, b in zip(anim.tracks, again.tracks)
        ) and len(anim.tracks) == len(again.tracks)
        if not same_tracks:
            problems.append("re-encoding through the encoder changed the decoded tracks")
        full = quiet_to_bytes(anim, reencode="full", compression=None)
        fresh = gameanim.load(full)
        worst = 0.0
        frames = [i * 0.5 for i in range(int(max(anim.frame_count, 1)) * 2 + 1)][:400]
        a, b = anim.sample(frames), fresh.sample(frames)
        if len(a) == len(b):
            worst = max((abs(x - y) for x, y in zip(a, b)), default=0.0)
        else:
            problems.append("a fresh encode has a different number of tracks")
        notes.append(f"encoder round trip {'byte-exact' if exact else 're-encodes to different bytes (same tracks)' if same_tracks else 'LOSSY'}")
        notes.append(f"fresh encode {len(full)} bytes, worst sample difference {worst:.3g}")
    except (gameanim.EncodeError, gameanim.FormatError, ValueError) as e:
        problems.append(f"re-encode failed: {e}")
    text = [f"{path}: {'OK' if not problems else 'FAIL'} ({anim.format}{', ' + anim.compression if anim.compression else ''})"]
    text += [f"  {n}" for n in notes]
    text += [f"  anomaly: {x}" for x in anomalies(anim)]
    text += [f"  problem: {x}" for x in problems]
    return not problems, "\n".join(text)


def os_error_text(e):
    """An OSError as a sentence for the user (no errno numbers, no Python
    class names)."""
    if isinstance(e, FileNotFoundError):
        return "the file does not exist"
    if isinstance(e, IsADirectoryError):
        return "it is a folder, not a file"
    if isinstance(e, PermissionError):
        return "permission denied"
    return e.strerror or str(e)


# --------------------------------------------------------------- convert


def convert_target(path, outdir, root):
    """Where convert writes `path`: its place under `root` (the folder
    argument it came from) mirrored into outdir, or its name for a file
    argument."""
    return os.path.join(outdir, os.path.relpath(path, root) if root else os.path.basename(path))


def convert_one(args):
    path, outdir, compression, layout, root = args
    try:
        anim = gameanim.load(path)
        note = ""
        if layout and "layout" in anim.info:  # only the formats whose header has a layout (JBA)
            anim.layout = int(layout)
        elif layout:
            note = f" (--layout ignored: it applies to JBA files, this is {anim.format.upper()})"
        kw = {}
        if compression is not None:
            kw["compression"] = None if compression == "none" else compression
        out = convert_target(path, outdir, root)
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gameanim.PrecisionWarning)
            gameanim.save(anim, out, **kw)
        return True, f"{path} -> {out}{note}"
    except OSError as e:
        return False, f"{path}: error: {os_error_text(e)}"
    except (gameanim.FormatError, gameanim.EncodeError, ValueError) as e:
        return False, f"{path}: error: {e}"


# --------------------------------------------------------------- commands


def cmd_info(a):
    files = list(iter_files(a.paths, a.all))
    if not files:
        print("gameanim: no files found", file=sys.stderr)
        return 2
    import functools

    _, results = run_parallel(functools.partial(describe, verbose=a.verbose, brief=a.brief), files, a.jobs,
                              not a.quiet)
    ok = sum(1 for r in results if r[0])
    for r in results:
        print(r[1])
    print(f"{ok} of {len(files)} files read" + (f", {len(files) - ok} failed" if ok < len(files) else ""))
    return 0 if ok == len(files) else 1


def cmd_dump(a):
    try:
        anim = load_any(a.file)
    except (gameanim.FormatError, OSError) as e:
        print(f"gameanim: {a.file}: {e}", file=sys.stderr)
        return 1
    dump = model_dump(anim) if isinstance(anim, gameanim.Model) else to_dump(anim, not a.no_original)
    text = json.dumps(dump, indent=a.indent)
    return write_output(a.output, (text + "\n").encode("utf-8", "surrogateescape"))


def write_output(path, data):
    """data (bytes) to the file (atomically) or to stdout; 1 with a message
    when it cannot be written."""
    if path and path != "-":
        try:
            gameanim.write_atomic(path, data)
        except OSError as e:
            print(f"gameanim: cannot write {path}: {e.strerror or e}", file=sys.stderr)
            return 1
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    return 0


def read_dump(name):
    """The JSON dump named on the command line ('-' for stdin), or raises
    ValueError with a sentence saying what is wrong with it."""
    what = "standard input" if name == "-" else name
    try:
        if name == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(name, "rb") as f:
                text = f.read()
    except OSError as e:
        raise ValueError(f"cannot read {what}: {os_error_text(e)}") from None
    try:
        text = text.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{what} is not a text file: give the JSON that 'gameanim dump' writes") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{what} is not JSON (it stops making sense at line {e.lineno}, column {e.colno}): "
                         "give the JSON that 'gameanim dump' writes") from None


def cmd_build(a):
    if os.path.isdir(a.output):
        print(f"gameanim: build: -o {a.output} is a folder; give the name of the file to write", file=sys.stderr)
        return 1
    try:
        d = read_dump(a.json)
        if not isinstance(d, dict):
            raise AttributeError
        anim = from_dump(d)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", gameanim.PrecisionWarning)
            gameanim.save(anim, a.output)
    except KeyError as e:
        print(f"gameanim: build: the dump has no {e} entry", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"gameanim: build: cannot write {a.output}: {os_error_text(e)}", file=sys.stderr)
        return 1
    except (ValueError, TypeError, AttributeError) as e:
        if isinstance(e, AttributeError):
            e = "the dump's structure is not what 'gameanim dump' writes (an object with 'tracks', 'params', ...)"
        print(f"gameanim: build: {e}", file=sys.stderr)
        return 1
    # values the format cannot hold exactly were rounded: say so (a note,
    # the file is written)
    for w in caught:
        if issubclass(w.category, gameanim.PrecisionWarning):
            print(f"gameanim: build: note: {w.message}", file=sys.stderr)
    print(f"{a.output}: {anim.format}, {len(anim.tracks)} tracks")
    return 0


MAX_SAMPLE_FRAMES = 1_000_000


def parse_frames(spec, anim):
    if spec is None:
        return [float(i) for i in range(int(round(anim.frame_count)) + 1)]
    ranged = ":" in spec
    numbers = [float(x) for x in spec.split(":" if ranged else ",")]
    if not all(math.isfinite(x) for x in numbers):
        raise ValueError("frames must be finite numbers")
    if not ranged:
        if len(numbers) > MAX_SAMPLE_FRAMES:
            raise ValueError(f"{len(numbers)} frames; at most {MAX_SAMPLE_FRAMES} at once")
        return numbers
    if len(numbers) not in (2, 3):
        raise ValueError("a range is START:STOP or START:STOP:STEP")
    start, stop = numbers[0], numbers[1]
    step = numbers[2] if len(numbers) > 2 else 1.0
    if step <= 0:
        raise ValueError("step must be positive")
    if stop < start:
        raise ValueError("STOP is before START")
    n = int((stop - start) / step + 1e-9)
    if n + 1 > MAX_SAMPLE_FRAMES:
        raise ValueError(f"{n + 1} frames; at most {MAX_SAMPLE_FRAMES} at once")
    return [start + i * step for i in range(n + 1)]


def cmd_sample(a):
    try:
        anim = gameanim.load(a.file)
    except (gameanim.FormatError, OSError) as e:
        print(f"gameanim: {a.file}: {e}", file=sys.stderr)
        return 1
    try:
        frames = parse_frames(a.frames, anim)
    except (ValueError, OverflowError) as e:
        print(f"gameanim: --frames {a.frames}: {e}", file=sys.stderr)
        return 2
    values = anim.sample(frames)
    nf = len(frames)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["frame"] + [track_label(t) for t in anim.tracks])
    for k, f in enumerate(frames):
        w.writerow([repr(f)] + [repr(values[i * nf + k]) for i in range(len(anim.tracks))])
    return write_output(a.output, buf.getvalue().encode("utf-8", "surrogateescape"))


def cmd_validate(a):
    files = list(iter_files(a.paths, a.all))
    if not files:
        print("gameanim: no files found", file=sys.stderr)
        return 2
    _, results = run_parallel(validate, files, a.jobs, not a.quiet)
    ok = sum(1 for r in results if r[0])
    for r in results:
        print(r[1])
    print(f"{ok} of {len(files)} files valid" + (f", {len(files) - ok} with problems" if ok < len(files) else ""))
    return 0 if ok == len(files) else 1


def cmd_convert(a):
    files = list(iter_files(a.paths, a.all))
    if not files:
        print("gameanim: no files found", file=sys.stderr)
        return 2
    if a.compression not in (None, "none") and a.compression not in gameanim.compressions():
        print(f"gameanim: unknown compression {a.compression!r}; one of: none, {', '.join(gameanim.compressions())}",
              file=sys.stderr)
        return 2
    roots = {p: p for p in a.paths if os.path.isdir(p)}

    def root_of(f):
        for r in roots:
            if os.path.abspath(f).startswith(os.path.abspath(r) + os.sep):
                return r
        return None

    jobs = [(f, a.output, a.compression, a.layout, root_of(f)) for f in files]
    # two inputs that would land on one output (same name from two folders
    # or file arguments): refuse rather than let one overwrite the other
    seen = {}
    for f, _o, _c, _l, r in jobs:
        dest = os.path.normcase(os.path.abspath(convert_target(f, a.output, r)))
        if dest in seen:
            print(f"gameanim: {seen[dest]} and {f} would both be written to {dest}; convert them separately",
                  file=sys.stderr)
            return 2
        seen[dest] = f
    _, results = run_parallel(convert_one, jobs, a.jobs, not a.quiet)
    ok = sum(1 for r in results if r[0])
    for r in results:
        print(r[1])
    print(f"{ok} of {len(files)} files converted" + (f", {len(files) - ok} failed" if ok < len(files) else ""))
    return 0 if ok == len(files) else 1


# --------------------------------------------------------------- archives (ls, extract, pack; info and validate
# go into archives through the hooks in describe() and validate())


def open_archive_or_none(path, data=None):
    """The archive at path (RARC / CRAR, bare or wrapped as a whole), or
    None when it is not one (then it is read as an animation).  A wrapped
    file is only tried as an archive when its extension names an archive."""
    try:
        if data is None:
            with open(path, "rb") as f:
                head = f.read(4)
        else:
            head = data[:4]
        if head not in (b"RARC", b"CRAR") and not str(path).lower().endswith(gameanim.ARCHIVE_EXTENSIONS):
            return None
        return gameanim.open_archive(path if data is None else data)
    except (OSError, gameanim.FormatError):
        return None


def member_label(path, name):
    return f"{path}:{name}"


def decode_member(data, name=""):
    """(kind, what decodes, status) of one member's bytes.  status:
    'animation' or 'model' (it loads), 'damaged' (an animation or model
    format recognised its bytes, then found them broken) or 'other'; kind
    is the format, 'archive', or else the name's extension."""
    try:
        anim = gameanim.load(data)
        return anim.format, (f"animation, {anim.frame_count:g} frames, {len(anim.tracks)} tracks"
                             + (f", in {anim.compression}" if anim.compression else "")), "animation"
    except gameanim.FormatError as e:
        if e.format in FORMATS:
            return e.format, f"damaged: {e}", "damaged"
    try:
        model = gameanim.load_model(data)
        return model.format, (f"model, {len(model.bones)} joints"
                              + (f", in {model.compression}" if model.compression else "")), "model"
    except gameanim.FormatError as e:
        if e.format in MODEL_FORMATS:
            return e.format, f"damaged: {e}", "damaged"
    try:
        inner = gameanim.open_archive(data)
        return ("archive", f"archive, {len(inner)} files" + (f", in {inner.compression}" if inner.compression else ""),
                "other")
    except gameanim.FormatError:
        pass
    return os.path.splitext(name)[1][1:].lower() or "-", "not a known format", "other"


def archive_header(path, arc):
    return (f"{path}: {arc.format} archive {arc.root!r}" + (f" in {arc.compression}" if arc.compression else "")
            + f", {len(arc)} files")


def describe_archive(path, arc, verbose=False, brief=False):
    lines = [archive_header(path, arc)]
    ok = True
    for info in arc.infolist():
        data = arc.read(info.name)
        kind, what, status = decode_member(data, info.name)
        if status in ("animation", "model"):
            good, text = describe(member_label(path, info.name), verbose, brief, source=data)
            lines.append(text)
            ok &= good
        elif status == "damaged":
            lines.append(f"{member_label(path, info.name)}: error: {what[len('damaged: '):]}")
            ok = False
        else:
            lines.append(f"{member_label(path, info.name)}: {what}")
    return ok, "\n".join(lines)


def validate_archive(path, arc, raw):
    """The archive writes back exactly, every member that is an animation
    or a model validates, and none is one its format cannot decode."""
    problems, lines = [], []
    if arc.to_bytes() != raw:
        problems.append("unedited to_bytes() differs from the input")
    for info in arc.infolist():
        label = member_label(path, info.name)
        data = arc.read(info.name)
        kind, what, status = decode_member(data, info.name)
        if status in ("animation", "model"):
            good, text = validate(label, raw=data)
            lines.append(text)
            if not good:
                problems.append(f"{label} has problems")
        elif status == "damaged":
            lines.append(f"{label}: FAIL decode: {what}")
            problems.append(f"{label} does not decode")
        else:
            lines.append(f"{label}: skipped ({what})")
    head = (f"{path}: {'OK' if not problems else 'FAIL'} ({arc.format} archive"
            + (f", {arc.compression}" if arc.compression else "") + f", {len(arc)} files)")
    return not problems, "\n".join([head] + lines + [f"  problem: {x}" for x in problems])


def open_archive_or_message(path):
    """The archive, or None after saying on stderr why it cannot be read."""
    try:
        return gameanim.open_archive(path)
    except OSError as e:
        print(f"gameanim: {path}: {os_error_text(e)}", file=sys.stderr)
    except gameanim.FormatError as e:
        print(f"gameanim: {path}: {e}", file=sys.stderr)
    return None


def cmd_ls(a):
    status = 0
    for path in a.archives:
        arc = open_archive_or_message(path)
        if arc is None:
            status = 1
            continue
        print(archive_header(path, arc))
        print(f"{arc.root}/")
        shown = set()
        for info in arc.infolist():
            parts = info.name.split("/")
            for d in range(1, len(parts)):
                folder = "/".join(parts[:d])
                if folder not in shown:
                    shown.add(folder)
                    print("  " * d + parts[d - 1] + "/")
            kind, what, _ = decode_member(arc.read(info.name), info.name)
            own = f" [{info.compression}]" if info.compression else ""
            print(f"{'  ' * len(parts)}{parts[-1]:<{max(1, 32 - 2 * len(parts))}} {info.size:>10}  "
                  f"{kind:<8} {what}{own}")
    return status


def safe_member_path(outdir, name):
    """Where extract writes a member, or None for a name that would leave
    outdir (an absolute path, '..', an empty part)."""
    parts = name.split("/")
    if any(p in ("", ".", "..") or os.sep in p or (os.altsep and os.altsep in p) or ":" in p for p in parts):
        return None
    return os.path.join(outdir, *parts)


def cmd_extract(a):
    arc = open_archive_or_message(a.archive)
    if arc is None:
        return 1
    status = 0
    for info in arc.infolist():
        label = member_label(a.archive, info.name)
        dest = safe_member_path(a.output, info.name)
        if dest is None:
            print(f"gameanim: {label}: the name leaves the output folder; not extracted", file=sys.stderr)
            status = 1
            continue
        data = arc.read(info.name)
        note = ""
        if a.decompress and info.compression:
            try:
                data = gameanim.decompress(info.compression, data)
                note = f" (decompressed from {info.compression})"
            except gameanim.FormatError as e:
                print(f"gameanim: {label}: {e}; written as stored", file=sys.stderr)
                status = 1
        try:
            os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
            gameanim.write_atomic(dest, data)
        except OSError as e:
            print(f"gameanim: {label}: cannot write {dest}: {os_error_text(e)}", file=sys.stderr)
            status = 1
            continue
        if not a.quiet:
            print(f"{label} -> {dest}{note}")
    return status


def cmd_pack(a):
    pairs = []
    for spec in a.members:
        member, sep, src = spec.partition("=")
        if not sep or not member or not src:
            print(f"gameanim: pack: {spec!r} is not MEMBER=FILE", file=sys.stderr)
            return 2
        pairs.append((member, src))
    out = a.output or a.archive
    arc = open_archive_or_message(a.archive)
    if arc is None:
        return 1
    for member, src in pairs:
        if member not in arc:
            print(f"gameanim: pack: {member_label(a.archive, member)} is not a member (see gameanim ls)",
                  file=sys.stderr)
            return 1
        try:
            with open(src, "rb") as f:
                data = f.read()
            arc.replace(member, data)
        except OSError as e:
            print(f"gameanim: pack: cannot read {src}: {os_error_text(e)}", file=sys.stderr)
            return 1
        except ValueError as e:
            print(f"gameanim: pack: {member_label(a.archive, member)}: {e}", file=sys.stderr)
            return 1
        print(f"{member_label(out, member)} <- {src} ({len(data)} bytes)")
    kw = {}
    if a.compression is not None:
        kw["compression"] = None if a.compression == "none" else a.compression
    try:
        arc.save(out, **kw)
    except OSError as e:
        print(f"gameanim: pack: cannot write {out}: {os_error_text(e)}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"gameanim: pack: {e}", file=sys.stderr)
        return 2
    print(f"{out}: {len(pairs)} members replaced")
    return 0


def add_archive_commands(sub):
    sp = sub.add_parser("ls", help="an archive's tree (.arc, .szs): sizes, kinds and what decodes")
    sp.add_argument("archives", nargs="+", metavar="ARCHIVE")
    sp.set_defaults(func=cmd_ls)

    sp = sub.add_parser("extract", help="an archive's members into a folder, as stored")
    sp.add_argument("archive")
    sp.add_argument("-o", "--output", required=True, help="output folder")
    sp.add_argument("--decompress", action="store_true",
                    help="undo each member's own compression (attribute bits), not nested archives' wrappers")
    sp.add_argument("-q", "--quiet", action="store_true", help="no line per member")
    sp.set_defaults(func=cmd_extract)

    sp = sub.add_parser("pack", help="replace members of an archive with files (an atomic rewrite)")
    sp.add_argument("archive")
    sp.add_argument("members", nargs="+", metavar="MEMBER=FILE")
    sp.add_argument("-o", "--output", help="write here instead of over the archive")
    sp.add_argument("--compression", help="the archive's outer compression: none, " + ", ".join(gameanim.compressions())
                    + " (default: as read)")
    sp.set_defaults(func=cmd_pack)


def default_jobs():
    """--jobs when not given: the environment's GAMEANIM_JOBS (a whole
    number; a machine whose process pools misbehave, such as wine, whose
    named pipes stall concurrent.futures' pool, sets it to 1), else every
    core."""
    text = os.environ.get("GAMEANIM_JOBS", "").strip()
    if text:
        try:
            return int(text)
        except ValueError:
            print(f"gameanim: ignoring GAMEANIM_JOBS={text!r} (not a whole number)", file=sys.stderr)
    return os.cpu_count() or 1


def build_parser():
    p = argparse.ArgumentParser(prog="gameanim", description=__doc__.split("\n\n")[0],
                                epilog="Run 'gameanim COMMAND --help' for the options of a command.")
    p.add_argument("--version", action="version", version=f"gameanim {gameanim.__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def add_batch(sp):
        sp.add_argument("paths", nargs="+", metavar="FILE|FOLDER")
        sp.add_argument("-j", "--jobs", type=int, default=default_jobs(),
                        help="parallel worker processes (default: $GAMEANIM_JOBS, else all cores)")
        sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
        sp.add_argument("--all", action="store_true", help="in folders, try every file, not only known extensions")

    sp = sub.add_parser("info", help="format, frames, fps, loop, tracks, compression of each file")
    add_batch(sp)
    sp.add_argument("-v", "--verbose", action="store_true", help="also every header field")
    sp.add_argument("--brief", action="store_true", help="one summary per file, no line per track")
    sp.set_defaults(func=cmd_info)

    sp = sub.add_parser("dump", help="the whole decoded file as JSON (see docs/cli.md)")
    sp.add_argument("file")
    sp.add_argument("-o", "--output", help="write to this file instead of stdout")
    sp.add_argument("--no-original", action="store_true", help="leave out the original bytes (then build re-encodes)")
    sp.add_argument("--indent", type=int, default=None)
    sp.set_defaults(func=cmd_dump)

    sp = sub.add_parser("build", help="write a file from dump JSON (byte-exact when nothing was changed)")
    sp.add_argument("json", help="dump JSON, or - for stdin")
    sp.add_argument("-o", "--output", required=True)
    sp.set_defaults(func=cmd_build)

    sp = sub.add_parser("sample", help="CSV of every track's value at the given frames, as the game evaluates it")
    sp.add_argument("file")
    sp.add_argument("--frames", help="START:STOP[:STEP] (STOP included when a step lands on it; START may be negative) "
                    "or a comma list (default: every whole frame)")
    sp.add_argument("-o", "--output")
    sp.set_defaults(func=cmd_sample)

    sp = sub.add_parser("validate", help="decode, re-encode, and report the round trip and anomalies")
    add_batch(sp)
    sp.set_defaults(func=cmd_validate)

    sp = sub.add_parser("convert", help="re-encode files, changing the compression wrapper or JBA layout")
    add_batch(sp)
    sp.add_argument("-o", "--output", required=True, help="output folder (mirrors input folders)")
    sp.add_argument("--compression", help="none, " + ", ".join(gameanim.compressions()) + " (default: as read)")
    sp.add_argument("--layout", choices=("32", "64"), help="JBA: legacy 32-bit or 64-bit JAWB layout")
    sp.set_defaults(func=cmd_convert)
    add_archive_commands(sub)
    return p


# options whose value may start with '-' (a negative frame): argparse would
# take "--frames -5:2" for two options, so the value is attached first
VALUE_OPTIONS = ("--frames",)


def attach_values(argv):
    out, i = [], 0
    while i < len(argv):
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if argv[i] in VALUE_OPTIONS and value[:1] == "-" and (value[1:2].isdigit() or value[1:2] == "."):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def main(argv=None):
    parser = build_parser()
    try:
        args = parser.parse_args(attach_values(list(sys.argv[1:] if argv is None else argv)))
    except SystemExit as e:
        return 2 if e.code not in (0, None) else 0
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    if getattr(args, "jobs", 1) < 1:
        print("gameanim: --jobs must be at least 1", file=sys.stderr)
        return 2
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("gameanim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
