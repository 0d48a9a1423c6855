"""Blender benchmarks of the add-on: import of the large animation (exact
and baked), bulk import of many files, export in every format, and the
peak memory of the large import.

    python3 bench/bench_blender.py --gameanim <build dir> [--json out.json]      # bpy module (Blender 5.0)
    blender -b --factory-startup --python-exit-code 1 --python bench/bench_blender.py -- \\
        --gameanim <build dir> [--json out.json]                                  # a Blender binary

Options: --only large,bulk,model,mesh,export,memory (default all); --repeat N (best of
N rounds, default 5); --bulk N (files, default 500); --naive-keys K (keys the
keyframe_insert baseline writes before it is scaled, default 120000; 0 =
every key); --quick (small sizes, for a smoke run).

What is compared (each ratio in one run: the runs compared take turns in
--repeat rounds, more for a short import; the ratio is the median of the
rounds' ratios, the best times are printed too):

* import: api.import_files() of one file onto a 100-bone rig (identity
  rest rotations, so the automatic mode is exact);
* floor: the same F-curves written with no decoding at all: the key
  buffers are read back (foreach_get) from the imported action beforehand;
  the floor makes the action, its curves (fcurves.new), keys
  (keyframe_points.add), foreach_set of co, interpolation, handles and
  handle types where the import writes them, update(), the same Cycles
  modifiers, the action's custom properties (the stored original file and
  options) and its place (assigned, or stashed on an NLA track as the bulk
  import does) — the Blender work the same result needs;
* naive: what older add-ons do: per key, set the pose bone's property and
  keyframe_insert(); then per key interpolation and FREE handles; the
  same curves and modifiers.  It is run on every n-th curve (whole curves,
  at least --naive-keys keys) and scaled by the key count (stated in the
  output) unless --naive-keys 0.
"""
import gc
import json
import os
import platform
import re
import subprocess
import sys
import time
from array import array

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")


def _args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    opts = {"only": "large,bulk,model,mesh,export,memory", "repeat": 5, "bulk": 500, "naive_keys": 120000, "json": None,
            "gameanim": None, "quick": False, "child": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        key = a.lstrip("-").replace("-", "_")
        if key == "quick":
            opts["quick"] = True
            i += 1
            continue
        if key not in opts:
            raise SystemExit(f"unknown option {a}")
        val = argv[i + 1]
        opts[key] = int(val) if key in ("repeat", "bulk", "naive_keys") else val
        i += 2
    return opts


OPTS = _args()
if OPTS["gameanim"]:
    sys.path.insert(0, os.path.abspath(OPTS["gameanim"]))
for d in (os.path.join(ROOT, "blender_addon"), HERE):
    if d not in sys.path:
        sys.path.insert(0, d)

import bpy  # noqa: E402

import benchdata  # noqa: E402
import gameanim  # noqa: E402
from io_anim_gameanim import api, bulk_keys, compat  # noqa: E402

IS_MODULE = not os.path.basename(bpy.app.binary_path or "").startswith("blender") or bpy.app.binary_path == ""
VARIANT = f"Blender {bpy.app.version_string} ({'bpy module' if IS_MODULE else 'binary'})"


# ---------------------------------------------------------------------------
# Scene helpers


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    gc.collect()


def make_rig(nbones, name="Rig"):
    """nbones unparented bones along +Y with identity rest rotations:
    bone_000 ... in index order, gameanim_bone_id = index + 1 (the
    Banjo-Kazooie files use IDs from 1), names as the JBA files use."""
    arm = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, arm)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    for i, n in enumerate(benchdata.bone_names(nbones)):
        eb = arm.edit_bones.new(n)
        eb.head = (0.3 * i, 0.0, 0.0)
        eb.tail = (0.3 * i, 0.2, 0.0)
    bpy.ops.object.mode_set(mode="OBJECT")
    for i, b in enumerate(arm.bones):
        b["gameanim_bone_id"] = i + 1
    return obj


def make_materials(n):
    mats = []
    for i in range(n):
        m = bpy.data.materials.new(benchdata.bulk_material(i))
        tree = compat.material_node_tree(m)
        tex = tree.nodes.new("ShaderNodeTexImage")
        bsdf = next((nd for nd in tree.nodes if nd.type == "BSDF_PRINCIPLED"), None)
        if bsdf is not None:
            tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
        mats.append(m)
    return mats


def remove_actions(actions):
    for a in list(actions):
        bpy.data.actions.remove(a)


def interleaved(runs, repeat):
    """Times of each (fn, before, after) in `runs`, the runs taking turns
    round after round, so that a slow spell of the machine falls on all of
    them alike.  Returns (best time of each, the times of each round)."""
    rounds = []
    for _ in range(repeat):
        times = []
        for fn, before, after in runs:
            arg = before() if before else None
            gc.collect()
            t0 = time.perf_counter()
            got = fn(arg) if before else fn()
            times.append(time.perf_counter() - t0)
            if after:
                after(got)
        rounds.append(times)
    return [min(r[i] for r in rounds) for i in range(len(runs))], rounds


def median_ratio(rounds):
    """The median over rounds of first time / second time: each ratio of
    two runs made one right after the other (steadier than the ratio of
    two best times, which one lucky run can move)."""
    ratios = sorted(r[0] / r[1] for r in rounds)
    n = len(ratios)
    return ratios[n // 2] if n % 2 else (ratios[n // 2 - 1] + ratios[n // 2]) / 2


def rss_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def reset_peak():
    """Resets VmHWM (Linux >= 4.0): the peak from here on."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


# ---------------------------------------------------------------------------
# Reading curves back (the floor's ready buffers)


class CurveData:
    __slots__ = ("path", "index", "group", "co", "interp", "left", "right", "bezier", "cycles", "update", "n")


class ActionData(list):
    """An action's curves (CurveData) and, in .props, the custom properties
    the import put on it (the stored original file, the options): part of
    the same result, so the floor writes them too."""

    props = {}


def read_action(action, owner_type="OBJECT"):
    """Every curve of an action as ready buffers, and its properties."""
    out = ActionData()
    out.props = {k: action[k] for k in action.keys() if k.startswith("gameanim_")}
    for fc in compat.action_fcurves(action):
        kp = fc.keyframe_points
        n = len(kp)
        c = CurveData()
        c.path, c.index = fc.data_path, fc.array_index
        c.group = fc.group.name if fc.group is not None else ""
        c.n = n
        c.co = array("f", bytes(8 * n))
        kp.foreach_get("co", c.co)
        c.interp = array("i", bytes(4 * n))
        kp.foreach_get("interpolation", c.interp)
        c.bezier = bulk_keys.INTERP["BEZIER"] in c.interp
        c.left = c.right = None
        if c.bezier:
            c.left = array("f", bytes(8 * n))
            c.right = array("f", bytes(8 * n))
            kp.foreach_get("handle_left", c.left)
            kp.foreach_get("handle_right", c.right)
        mods = [m for m in fc.modifiers if m.type == "CYCLES"]
        c.cycles = mods[0].mode_before if mods else None
        xs = c.co[0::2]
        c.update = len(set(xs)) == n
        out.append(c)
    return out


def keys_in(curves):
    return sum(c.n for c in curves)


def floor_write(curves, owner, id_type="OBJECT", name="floor", place="ASSIGN"):
    """The same curves from ready buffers: the least Blender work for the
    same result (no decoding, no planning).  place: what the import does
    with the action: 'ASSIGN' it to the owner, stash it on an 'NLA'
    track, or keep it as a 'FAKE_USER'."""
    action = bpy.data.actions.new(name)
    sink = compat.CurveSink(action, id_type, owner.name)
    if place == "ASSIGN":
        compat.assign(owner, sink)
    elif place == "NLA":
        compat.stash(owner, sink, 0)
        action.use_fake_user = True
    else:
        action.use_fake_user = True
    for c in curves:
        fc = sink.new_fcurve(c.path, c.index, c.group)
        if c.cycles:
            mod = fc.modifiers.new("CYCLES")
            mod.mode_before = mod.mode_after = c.cycles
        kp = fc.keyframe_points
        kp.add(c.n)
        kp.foreach_set("co", c.co)
        kp.foreach_set("interpolation", c.interp)
        if c.bezier:
            bulk_keys.set_handles_free(kp, c.n, c.interp)
            kp.foreach_set("handle_left", c.left)
            kp.foreach_set("handle_right", c.right)
        if c.update:
            fc.update()
    for key, value in getattr(curves, "props", {}).items():
        action[key] = value
    return action


_PATH = re.compile(r'^pose\.bones\["((?:[^"\\]|\\.)*)"\]\.(\w+)$')


def naive_write(curves, obj, name="naive"):
    """Older add-ons: per key, set the property and keyframe_insert, then
    per key the interpolation and FREE handles (as they did for tangents)."""
    action = bpy.data.actions.new(name)
    ad = obj.animation_data or obj.animation_data_create()
    ad.action = action
    names = {"CONSTANT": 0, "LINEAR": 1, "BEZIER": 2}
    inv = {v: k for k, v in bulk_keys.INTERP.items()}
    for c in curves:
        m = _PATH.match(c.path)
        if m:
            pb = obj.pose.bones[m.group(1).replace('\\"', '"').replace("\\\\", "\\")]
            prop = m.group(2)
        else:
            pb, prop = obj, c.path
        vec = getattr(pb, prop)
        for i in range(c.n):
            vec[c.index] = c.co[2 * i + 1]
            pb.keyframe_insert(prop, index=c.index, frame=c.co[2 * i], group=c.group)
        fc = find_fcurve(action, obj, pb, prop, c.index)
        kps = fc.keyframe_points
        for i in range(c.n):
            k = kps[i]
            k.interpolation = inv[c.interp[i]]
            if c.bezier:
                k.handle_left_type = "FREE"
                k.handle_right_type = "FREE"
                k.handle_left = (c.left[2 * i], c.left[2 * i + 1])
                k.handle_right = (c.right[2 * i], c.right[2 * i + 1])
        if c.cycles:
            mod = fc.modifiers.new("CYCLES")
            mod.mode_before = mod.mode_after = c.cycles
    del names
    return action


def find_fcurve(action, obj, pb, prop, index):
    path = pb.path_from_id(prop) if pb is not obj else prop
    for fc in compat.action_fcurves(action):
        if fc.data_path == path and fc.array_index == index:
            return fc
    raise LookupError(path)


def stride_subset(curves, min_keys):
    """Every k-th curve, k as large as possible with at least min_keys keys."""
    total = keys_in(curves)
    if min_keys <= 0 or total <= min_keys:
        return curves, 1
    step = max(1, total // min_keys)
    while step > 1 and keys_in(curves[::step]) < min_keys:
        step -= 1
    return curves[::step], step


# ---------------------------------------------------------------------------
# Benchmarks


def write_file(name, data):
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


LARGE_CASES = [
    # (label, format, import options)
    ("exact", "bck", {}),
    ("baked", "bck", {"curve_mode": "BAKED"}),
    ("jba", "jba", {}),
]


def large_paths(quick):
    bones, frames = (20, 200) if quick else (benchdata.BONES, None)
    paths = {}
    for fmt in ("bck", "jba", "bk", "bca"):
        data = benchdata.large_file(fmt, bones=bones, frames=frames)
        paths[fmt] = write_file(f"large{'_quick' if quick else ''}.{fmt if fmt != 'bk' else 'anim.bin'}", data)
    return paths, bones


def bench_large(repeat, naive_keys, quick):
    paths, bones = large_paths(quick)
    rows = []
    for label, fmt, kw in LARGE_CASES:
        reset()
        rig = make_rig(bones)
        path = paths[fmt]
        opts = dict(armature=rig, others="FAKE_USER", **kw)

        def run():
            return api.import_files([path], **opts)

        def drop(result):
            assert result.report.files[0].ok, result.report.text()
            remove_actions(result)

        api.import_files([path], **opts)  # warm-up (and the curves for the floor)
        action = bpy.data.actions[-1] if not compat.HAS_SLOTS else rig.animation_data.action
        curves = read_action(action)
        nkeys, ncurves = keys_in(curves), len(curves)
        remove_actions([action])
        # a short import gets more rounds (about a second of imports, at
        # most 30): one slow spell decides less of a best-of-few
        t0 = time.perf_counter()
        drop(run())
        rounds = max(repeat, min(30, int(1.0 / max(time.perf_counter() - t0, 1e-3))))
        (t_imp, t_floor), times = interleaved([(run, None, drop),
                                               (lambda: floor_write(curves, rig), None,
                                                lambda a: remove_actions([a]))], rounds)
        subset, step = stride_subset(curves, naive_keys)
        sub_keys = keys_in(subset)
        t0 = time.perf_counter()
        a = naive_write(subset, rig)
        t_naive_sub = time.perf_counter() - t0
        assert sum(len(fc.keyframe_points) for fc in compat.action_fcurves(a)) == sub_keys
        remove_actions([a])
        t_naive = t_naive_sub * nkeys / sub_keys
        row = {"case": label, "format": fmt, "file": os.path.relpath(path, ROOT), "bytes": os.path.getsize(path),
               "curves": ncurves, "keys": nkeys, "import_s": t_imp, "floor_s": t_floor, "rounds": rounds,
               "floor_vs_naive": t_naive / t_floor,
               "naive_s": t_naive, "naive_measured_keys": sub_keys, "naive_measured_s": t_naive_sub,
               "naive_scaled": sub_keys != nkeys, "keys_per_s": nkeys / t_imp,
               "vs_naive": t_naive / t_imp, "vs_floor": median_ratio(times), "vs_floor_best": t_imp / t_floor}
        rows.append(row)
        print(f"  {label:6} {fmt:4} {ncurves:5d} curves {nkeys:8d} keys  import {t_imp * 1e3:8.1f} ms  "
              f"floor {t_floor * 1e3:8.1f} ms  naive {t_naive:8.2f} s"
              f"{' (scaled from %d keys)' % sub_keys if sub_keys != nkeys else ''}  "
              f"-> {row['vs_naive']:6.0f}x faster than naive (the floor: {row['floor_vs_naive']:.0f}x), "
              f"{row['vs_floor']:.2f}x the floor (median of {rounds} rounds; best times: "
              f"{row['vs_floor_best']:.2f}x)", flush=True)
    return rows


def files_folder(name, want, files):
    """OUT/name holding files() ((name, bytes) pairs), written again only
    when its stamp differs from `want` (the inputs that made it)."""
    folder = os.path.join(OUT, name)
    stamp = os.path.join(folder, ".stamp")
    if not (os.path.exists(stamp) and open(stamp).read() == want):
        os.makedirs(folder, exist_ok=True)
        for f in os.listdir(folder):
            os.remove(os.path.join(folder, f))
        for fname, data in files():
            with open(os.path.join(folder, fname), "wb") as f:
                f.write(data)
        with open(stamp, "w") as f:
            f.write(want)
    return folder


def bench_bulk(nfiles, repeat):
    folder = files_folder(f"bulk{nfiles}", f"{nfiles} {gameanim.__version__} 2",
                          lambda: benchdata.bulk_files(nfiles))
    paths = api.collect_files([folder])
    assert len(paths) == nfiles, len(paths)
    total_bytes = sum(os.path.getsize(p) for p in paths)

    def setup():
        reset()
        rig = make_rig(benchdata.BULK_BONES)
        make_materials(benchdata.BULK_MATERIALS)
        return rig

    def run_import(rig):
        res = api.import_files(paths, armature=rig)
        failed = [f.path for f in res.report.files if not f.ok]
        assert not failed, res.report.text()[:2000]
        return res

    # the first import (untimed) gives the floor its ready buffers
    rig = setup()
    res = run_import(rig)
    curves_by_action = []
    for a in res:
        if a.get("gameanim_format") == "btk":
            mat = bpy.data.materials[a["gameanim_material"]]
            curves_by_action.append((read_action(a), "NODETREE", mat.node_tree.name))
        else:
            curves_by_action.append((read_action(a), "OBJECT", rig.name))
    del res
    nkeys = sum(keys_in(c) for c, _, _ in curves_by_action)
    ncurves = sum(len(c) for c, _, _ in curves_by_action)

    def setup_floor():
        rig = setup()
        return rig, {m.node_tree.name: m.node_tree for m in bpy.data.materials}

    def run_floor(arg):
        # like the import: the first action of each owner assigned, the
        # others stashed on NLA tracks
        rig, trees = arg
        seen = set()
        for curves, id_type, owner in curves_by_action:
            place = "NLA" if (id_type, owner) in seen else "ASSIGN"
            seen.add((id_type, owner))
            floor_write(curves, rig if id_type == "OBJECT" else trees[owner], id_type, place=place)

    (best_imp, best_floor), times = interleaved([(run_import, setup, None), (run_floor, setup_floor, None)], repeat)
    reset()
    row = {"files": nfiles, "bytes": total_bytes, "actions": len(curves_by_action), "curves": ncurves,
           "keys": nkeys, "import_s": best_imp, "floor_s": best_floor, "vs_floor": median_ratio(times),
           "vs_floor_best": best_imp / best_floor, "rounds": repeat,
           "per_file_ms": best_imp / nfiles * 1e3, "overhead_per_file_ms": (best_imp - best_floor) / nfiles * 1e3}
    print(f"  {nfiles} files ({total_bytes / 1e6:.1f} MB, {len(curves_by_action)} actions, {ncurves} curves, "
          f"{nkeys} keys): import {best_imp:.2f} s ({row['per_file_ms']:.1f} ms per file), floor {best_floor:.2f} s "
          f"-> {row['vs_floor']:.2f}x the floor (median of {repeat} rounds; best times: {row['vs_floor_best']:.2f}x), "
          f"overhead {row['overhead_per_file_ms']:.2f} ms per file", flush=True)
    return row


def bench_model(nanims, repeat):
    """A 42-joint model file selected with its animations (File > Import of
    them all: the armature is built from the model, the first action
    assigned, the others on NLA tracks) against the floor: the same curves
    written from ready buffers onto the same armature (built beforehand,
    untimed)."""
    def files():
        yield "figure.bmd", benchdata.model_file()
        for i in range(nanims):
            yield f"anim{i:03d}.bck", benchdata.model_animation(i)

    folder = files_folder(f"model{nanims}", f"{nanims} {benchdata.MODEL_JOINTS} {gameanim.__version__} 1", files)
    model = os.path.join(folder, "figure.bmd")
    anims = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".bck"))
    assert len(anims) == nanims

    def run_import(_arg):
        res = api.import_files([model] + anims)
        failed = [f.path for f in res.report.files if not f.ok]
        assert not failed, res.report.text()[:2000]
        return res

    reset()
    res = run_import(None)
    rig_name = res.report.files[0].owners[0]
    baked = sum(len(f.baked) for f in res.report.files)
    curves_by_action = [read_action(a) for a in res]
    del res
    nkeys = sum(keys_in(c) for c in curves_by_action)
    ncurves = sum(len(c) for c in curves_by_action)
    # the floor's ready buffers (113400 curve records) are the bench's, not
    # the import's: out of the cyclic collector's sight, so that its passes
    # during either run do not scan them
    gc.collect()
    gc.freeze()

    def setup_floor():
        reset()
        res = api.import_files([model])  # the same armature, untimed
        return bpy.data.objects[res.report.files[0].owners[0]]

    def run_floor(rig):
        for i, curves in enumerate(curves_by_action):
            floor_write(curves, rig, place="ASSIGN" if i == 0 else "NLA")

    (best_imp, best_floor), times = interleaved([(run_import, reset, None), (run_floor, setup_floor, None)], repeat)
    gc.unfreeze()
    reset()
    row = {"joints": benchdata.MODEL_JOINTS, "animations": nanims, "curves": ncurves, "keys": nkeys,
           "baked_bones": baked, "rig": rig_name, "import_s": best_imp, "floor_s": best_floor,
           "vs_floor": median_ratio(times), "vs_floor_best": best_imp / best_floor, "rounds": repeat}
    print(f"  model ({benchdata.MODEL_JOINTS} joints) + {nanims} animations ({ncurves} curves, {nkeys} keys, "
          f"{baked} baked bone(s)): import {best_imp:.2f} s, floor {best_floor:.2f} s -> {row['vs_floor']:.2f}x the "
          f"floor (median of {repeat} rounds; best times: {row['vs_floor_best']:.2f}x)", flush=True)
    return row


def bench_mesh(repeat):
    """Import of a 5,000-vertex, 40-joint J3D model file (armature, skin
    bones, 40 shape objects with UVs, custom normals, vertex groups and the
    Armature modifier, one material with its packed image) against the
    floor: the same meshes written from ready buffers (foreach_set of the
    vertices, loops, polygons, UVs, normals, vertex groups by add) as
    objects under the same armature with the same modifier; the armature
    (with its skin bones) is built beforehand, untimed."""
    folder = files_folder("mesh", f"{benchdata.MESH_JOINTS} {gameanim.__version__} 1",
                          lambda: [("figure_mesh.bmd", benchdata.mesh_model_file())])
    path = os.path.join(folder, "figure_mesh.bmd")

    def run_import(_arg):
        res = api.import_files([path])
        failed = [f.path for f in res.report.files if not f.ok]
        assert not failed, res.report.text()[:2000]
        return res

    reset()
    run_import(None)
    model = gameanim.load_model(path)
    normals = {m.index: list(m.normals) for m in model.meshes}
    ready = []  # (name, co, loop vertices, uv per loop, normals, [(group, weight, [vertices])])
    for obj in sorted((o for o in bpy.data.objects if "gameanim_shapes" in o), key=lambda o: o.name):
        me = obj.data
        co = array("f", bytes(12 * len(me.vertices)))
        me.vertices.foreach_get("co", co)
        lv = array("i", bytes(4 * len(me.loops)))
        me.loops.foreach_get("vertex_index", lv)
        uv = array("f", bytes(8 * len(me.loops)))
        me.uv_layers[0].data.foreach_get("uv", uv)
        groups = []
        for vg in obj.vertex_groups:
            by_w = {}
            for v in me.vertices:
                for g in v.groups:
                    if g.group == vg.index:
                        by_w.setdefault(g.weight, []).append(v.index)
            groups += [(vg.name, w, vs) for w, vs in by_w.items()]
        ready.append((obj.name, co, lv, uv, normals[obj["gameanim_shapes"][0]], groups))
    nverts = sum(len(r[1]) // 3 for r in ready)

    def setup_floor():
        reset()
        res = api.import_files([path])  # the same armature and skin bones, untimed
        for obj in [o for o in bpy.data.objects if "gameanim_shapes" in o]:
            me = obj.data
            bpy.data.objects.remove(obj)
            bpy.data.meshes.remove(me)
        return bpy.data.objects[res.report.files[0].owners[0]]

    def run_floor(arm):
        coll = bpy.context.scene.collection
        for name, co, lv, uv, nrm, groups in ready:
            me = bpy.data.meshes.new(name)
            nt = len(lv) // 3
            me.vertices.add(len(co) // 3)
            me.vertices.foreach_set("co", co)
            me.loops.add(len(lv))
            me.loops.foreach_set("vertex_index", lv)
            me.polygons.add(nt)
            me.polygons.foreach_set("loop_start", range(0, 3 * nt, 3))
            compat.set_loop_totals(me, nt)
            me.update(calc_edges=True)
            me.uv_layers.new(name="UV0").data.foreach_set("uv", uv)
            compat.set_custom_normals(me, nrm)
            obj = bpy.data.objects.new(name, me)
            coll.objects.link(obj)
            obj.parent = arm
            for gname, w, vs in groups:
                vg = obj.vertex_groups.get(gname) or obj.vertex_groups.new(name=gname)
                vg.add(vs, w, "REPLACE")
            mod = obj.modifiers.new("Armature", "ARMATURE")
            mod.object = arm

    def run_rig_only(_arg):
        api.import_files([path], mesh_objects="NONE")

    (best_imp, best_floor, best_rig), times = interleaved(
        [(run_import, reset, None), (run_floor, setup_floor, None), (run_rig_only, reset, None)], repeat)
    reset()
    geometry = sorted((r[0] - r[2]) / r[1] for r in times)
    row = {"joints": benchdata.MESH_JOINTS, "vertices": nverts, "objects": len(ready), "import_s": best_imp,
           "floor_s": best_floor, "armature_only_s": best_rig, "vs_floor": median_ratio(times),
           "vs_floor_best": best_imp / best_floor, "geometry_vs_floor": geometry[len(geometry) // 2],
           "rounds": repeat}
    print(f"  mesh model ({benchdata.MESH_JOINTS} joints, {nverts} vertices, {len(ready)} objects): import "
          f"{best_imp:.3f} s, floor {best_floor:.3f} s -> {row['vs_floor']:.2f}x the floor (median of {repeat} "
          f"rounds; best times: {row['vs_floor_best']:.2f}x); the armature alone {best_rig:.3f} s, so the "
          f"geometry (import - armature alone) is {row['geometry_vs_floor']:.2f}x the floor", flush=True)
    return row


EXPORT_FORMATS = ("bck", "bk", "jba", "bca")


def bench_export(repeat, quick):
    """The large animation as made in Blender (Euler XYZ, one LINEAR key
    per frame on every animated channel) exported to every format with
    rate Every Frame and tolerance 1e-3."""
    bones = 20 if quick else benchdata.BONES
    frames = 200 if quick else benchdata.FRAMES
    reset()
    rig = make_rig(bones)
    # Made in Blender: Euler XYZ bones, one LINEAR key per frame on every
    # animated channel, written with foreach_set (no gameanim properties:
    # the exporter treats it as new).  No scale channels: JBA stores none.
    names = benchdata.bone_names(bones)
    for pb in rig.pose.bones:
        pb.rotation_mode = "XYZ"
    action = bpy.data.actions.new("made_in_blender")
    sink = compat.CurveSink(action, "OBJECT", rig.name)
    props = {"rotation": "rotation_euler", "translation": "location"}
    for t in benchdata.large_tracks(bones, frames, scale=False):
        name = names[t.target]
        fc = sink.new_fcurve(f'pose.bones["{name}"].{props[t.channel]}', t.axis, name)
        n = len(t)
        co = array("f", bytes(8 * n))
        co[0::2] = t.times
        co[1::2] = t.values
        kp = fc.keyframe_points
        kp.add(n)
        kp.foreach_set("co", co)
        kp.foreach_set("interpolation", array("i", [bulk_keys.INTERP["LINEAR"]]) * n)
        fc.update()
    compat.assign(rig, sink)
    src_keys = sum(len(fc.keyframe_points) for fc in compat.action_fcurves(action))
    rows = []
    os.makedirs(os.path.join(OUT, "export"), exist_ok=True)
    for fmt in EXPORT_FORMATS:
        path = os.path.join(OUT, "export", "large" + (".anim.bin" if fmt == "bk" else "." + fmt))
        err = None
        best = float("inf")
        result = None
        for _ in range(repeat):
            gc.collect()
            t0 = time.perf_counter()
            try:
                result = api.export_action(path, action, armature=rig, format=fmt, rate="FRAMES", tolerance=1e-3,
                                           compression="NONE")
            except api.ExportError as e:
                err = str(e)
                break
            best = min(best, time.perf_counter() - t0)
        row = {"format": fmt, "source_keys": src_keys, "curves": len(compat.action_fcurves(action))}
        if err:
            row.update({"error": err})
            print(f"  {fmt:4} cannot hold it: {err[:160]}", flush=True)
        else:
            out_keys = benchdata.keys_of(open(path, "rb").read())
            row.update({"export_s": best, "bytes": result.size, "file_keys": out_keys,
                        "source_keys_per_s": src_keys / best})
            print(f"  {fmt:4} {best * 1e3:8.1f} ms  {result.size:9d} bytes  {out_keys:8d} keys in the file "
                  f"({src_keys} keys in Blender, {src_keys / best / 1e6:.2f} M keys/s)", flush=True)
        rows.append(row)
    reset()
    return rows


def _save_curves(curves, path):
    import pickle

    with open(path, "wb") as f:
        pickle.dump(([{k: getattr(c, k) for k in CurveData.__slots__} for c in curves], dict(curves.props)), f)


def _load_curves(path):
    import pickle

    out = ActionData()
    with open(path, "rb") as f:
        curves, out.props = pickle.load(f)
    for d in curves:
        c = CurveData()
        for k, v in d.items():
            setattr(c, k, v)
        out.append(c)
    return out


def memory_child(label):
    """Runs in a fresh process: peak RSS of one import (or the floor) of the
    large animation over the RSS after Blender's startup and the rig.  The
    floor's ready buffers come from a file the parent wrote (an import here
    first would leave freed memory behind for the floor to reuse)."""
    paths, bones = large_paths(OPTS["quick"])
    case = {c[0]: c for c in LARGE_CASES}[label.split(":")[0]]
    _, fmt, kw = case
    reset()
    rig = make_rig(bones)
    floor = label.endswith(":floor")
    # both children first import a small file of the format (and drop it):
    # the add-on's code and Blender's animation machinery are then loaded
    # and warm in both, so the baseline holds them and the peak measures
    # the large animation only
    small, _ = large_paths(True)
    remove_actions(api.import_files([small[fmt]], armature=rig, **kw))
    curves = _load_curves(os.path.join(OUT, f"memory_{case[0]}.curves")) if floor else None
    gc.collect()
    base = rss_kib("VmRSS")
    if not reset_peak():
        return {"error": "cannot reset VmHWM"}
    if floor:
        floor_write(curves, rig)
        nkeys = keys_in(curves)
    else:
        res = api.import_files([paths[fmt]], armature=rig, **kw)
        assert res.report.files[0].ok
        nkeys = sum(len(fc.keyframe_points) for fc in compat.action_fcurves(res[0]))
    peak = rss_kib("VmHWM")
    return {"label": label, "base_kib": base, "peak_kib": peak, "keys": nkeys}


def bench_memory():
    rows = []
    script = os.path.abspath(__file__)
    paths, bones = large_paths(OPTS["quick"])
    for label, fmt, kw in LARGE_CASES:
        reset()
        rig = make_rig(bones)
        res = api.import_files([paths[fmt]], armature=rig, **kw)
        _save_curves(read_action(res[0]), os.path.join(OUT, f"memory_{label}.curves"))
        reset()
        got = {}
        for which in ("import", "floor"):
            child = f"{label}:{which}"
            args = ["--child", child] + (["--gameanim", OPTS["gameanim"]] if OPTS["gameanim"] else []) + \
                   (["--quick"] if OPTS["quick"] else [])
            if IS_MODULE:
                cmd = [sys.executable, script, *args]
            else:
                cmd = [bpy.app.binary_path, "-b", "--factory-startup", "--python-exit-code", "1", "--python", script,
                       "--", *args]
            env = dict(os.environ)
            r = subprocess.run(cmd, capture_output=True, text=True, env=env)
            m = re.search(r"^CHILD (.*)$", r.stdout, re.M)
            if r.returncode != 0 or not m:
                raise RuntimeError(f"memory child {child} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
            got[which] = json.loads(m.group(1))
        imp, flo = got["import"], got["floor"]
        keys = imp["keys"]
        f32 = keys * 2 * 4  # (frame, value) per key as float32
        row = {"case": label, "format": fmt, "keys": keys, "keys_f32_mib": f32 / 2**20,
               "startup_mib": imp["base_kib"] / 1024, "import_peak_mib": imp["peak_kib"] / 1024,
               "import_over_startup_mib": (imp["peak_kib"] - imp["base_kib"]) / 1024,
               "floor_over_startup_mib": (flo["peak_kib"] - flo["base_kib"]) / 1024}
        row["import_over_floor_mib"] = row["import_over_startup_mib"] - row["floor_over_startup_mib"]
        row["over_floor_vs_keys"] = row["import_over_floor_mib"] / row["keys_f32_mib"]
        rows.append(row)
        print(f"  {label:6} {keys:8d} keys ({row['keys_f32_mib']:.1f} MiB as float32 pairs): startup "
              f"{row['startup_mib']:.0f} MiB; peak over startup: import {row['import_over_startup_mib']:.1f} MiB, "
              f"floor {row['floor_over_startup_mib']:.1f} MiB -> import - floor = "
              f"{row['import_over_floor_mib']:.1f} MiB = {row['over_floor_vs_keys']:.2f}x the keys", flush=True)
    return rows


def main():
    if OPTS["child"]:
        print("CHILD " + json.dumps(memory_child(OPTS["child"])), flush=True)
        return 0
    only = set(OPTS["only"].split(","))
    quick = OPTS["quick"]
    res = {"variant": VARIANT, "machine": benchdata.machine(), "python": platform.python_version(),
           "gameanim": gameanim.__version__, "command": " ".join(sys.argv), "quick": quick}
    print(f"{VARIANT}, Python {platform.python_version()}; {res['machine']}", flush=True)
    if "large" in only:
        print("import of the large animation (100 bones x 1000 frames) onto a 100-bone rig", flush=True)
        res["large"] = bench_large(OPTS["repeat"], OPTS["naive_keys"], quick)
    if "bulk" in only:
        n = 25 if quick else OPTS["bulk"]
        print(f"bulk import of {n} files (mixed formats) into one session", flush=True)
        res["bulk"] = bench_bulk(n, OPTS["repeat"] if not quick else 1)
    if "model" in only:
        n = 20 if quick else benchdata.MODEL_ANIMATIONS
        print(f"import of a {benchdata.MODEL_JOINTS}-joint model file with {n} animations into one session",
              flush=True)
        res["model"] = bench_model(n, OPTS["repeat"] if not quick else 1)
    if "mesh" in only:
        print(f"import of a {benchdata.MESH_JOINTS}-joint, 5,000-vertex J3D model with meshes", flush=True)
        res["mesh"] = bench_mesh(OPTS["repeat"] if not quick else 1)
    if "export" in only:
        print("export of the large animation in each format (rate Every Frame, tolerance 1e-3)", flush=True)
        res["export"] = bench_export(OPTS["repeat"], quick)
    if "memory" in only:
        print("peak memory of the large import (fresh process each)", flush=True)
        res["memory"] = bench_memory()
    res["handle_types"] = bulk_keys.handle_types_bulk_mode()
    print(f"handle types written with: {res['handle_types']}", flush=True)
    if OPTS["json"]:
        with open(OPTS["json"], "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
