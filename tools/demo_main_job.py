"""The main job: every bundled sample imported in headless Blender.

    blender -b --factory-startup --python-exit-code 1 --python tools/demo_main_job.py -- \\
        --gameanim <build dir> [--out out] [--columns 4] [--cell 192x128] [--samples N]
or with the bpy module:  python3 tools/demo_main_job.py --gameanim <build dir> ...
(tools/run_demo.sh builds the C module first and picks a Blender.)

For each skeletal sample it builds a demo rig (a chain of bones with
identity rest rotations, so every channel imports exactly, with visible
sticks and joints parented to the bones); each model of samples/models/
is imported with each of its animations (File > Import selects both: the
add-on builds the model's armature, at option Scale's 0.01, and a J3D
model's skinned, textured meshes, which then show it) or, without meshes,
drawn as a figure: a stick from every joint to each of its children and a
box at each joint, parented to the bones; for each BTK sample, demo
materials with the names its entries ask for (a generated grid texture on
every UV slot, one plane per material).  Then it imports the sample onto
them through the add-on's scripting API, saves out/demo.blend and renders
out/contact_sheet.png: one row per sample, a few frames across, so that a
person sees the rigs move and the textures scroll.  out/demo_summary.txt
lists what was imported and how much each row changes between frames.
"""
import argparse
import contextlib
import math
import os
import sys
import time
from array import array

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    ap = argparse.ArgumentParser(description="gameanim demo: import every sample, save a .blend, render a sheet")
    ap.add_argument("--gameanim", help="folder holding the built gameanim module")
    ap.add_argument("--out", default=os.path.join(ROOT, "out"))
    ap.add_argument("--samples-dir", default=os.path.join(ROOT, "samples"))
    ap.add_argument("--columns", type=int, default=4, help="frames per sample on the sheet")
    ap.add_argument("--cell", default="192x128", help="size of one frame on the sheet")
    ap.add_argument("--render-samples", type=int, default=8, help="Cycles samples per cell")
    ap.add_argument("--limit", type=int, default=0, help="only the first N samples (0 = all)")
    ap.add_argument("--only", default="", help="comma-separated file names: only these samples")
    return ap.parse_args(argv)


ARGS = parse_args()
if ARGS.gameanim:
    sys.path.insert(0, os.path.abspath(ARGS.gameanim))
sys.path.insert(0, os.path.join(ROOT, "blender_addon"))

import bpy  # noqa: E402
from mathutils import Matrix, Vector  # noqa: E402

import gameanim  # noqa: E402
import io_anim_gameanim  # noqa: E402
from io_anim_gameanim import api  # noqa: E402
from io_anim_gameanim.importing.import_plan import file_range  # noqa: E402
from io_anim_gameanim.importing.importer import file_extensions  # noqa: E402
from io_anim_gameanim.shared import formats  # noqa: E402
from io_anim_gameanim.shared.rig_match import anim_targets  # noqa: E402

COLORS = {"bck": (0.9, 0.45, 0.15, 1), "bca": (0.2, 0.6, 0.95, 1), "bk": (0.95, 0.8, 0.15, 1),
          "jba": (0.6, 0.35, 0.9, 1)}


# ---------------------------------------------------------------------------
# scene pieces


def flat_material(name, color):
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:
        mat.use_nodes = True
    bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = color
    return mat


def box_mesh(name, p0, p1, radius):
    """A square prism from p0 to p1 (world space)."""
    p0, p1 = Vector(p0), Vector(p1)
    axis = p1 - p0
    if axis.length < 1e-6:
        axis = Vector((0, radius * 2, 0))
        p1 = p0 + axis
    d = axis.normalized()
    side = d.cross(Vector((0, 0, 1)))
    if side.length < 1e-3:
        side = d.cross(Vector((1, 0, 0)))
    side.normalize()
    up = d.cross(side).normalized()
    verts = []
    for p in (p0, p1):
        for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
            verts.append(p + (side * sx + up * sy) * radius)
    faces = [(0, 1, 2, 3), (7, 6, 5, 4), (0, 4, 5, 1), (1, 5, 6, 2), (2, 6, 7, 3), (3, 7, 4, 0)]
    me = bpy.data.meshes.new(name)
    me.from_pydata([tuple(v) for v in verts], [], faces)
    me.update()
    return me


def parent_to_bone(obj, rig, bone_name):
    bone = rig.data.bones[bone_name]
    world = obj.matrix_world.copy()
    obj.parent = rig
    obj.parent_type = "BONE"
    obj.parent_bone = bone_name
    # children of a bone hang from its tail, in rest pose here
    tail = rig.matrix_world @ bone.matrix_local @ Matrix.Translation((0, bone.length, 0))
    obj.matrix_parent_inverse = tail.inverted() @ Matrix.Identity(4)
    obj.matrix_world = world


def demo_rig(anim, name, collection, origin):
    """A chain (each bone's parent is the previous target) with identity
    rest rotations: rest translations are the frame-0 translations, so the
    absolute formats import exactly; Banjo-Kazooie gets pivots one bone
    length apart (its values are deltas)."""
    fmt = anim.format
    absolute = not formats.is_delta(fmt)
    by_id = formats.target_kind(fmt) == "bone_id"
    targets = anim_targets(anim)
    if all(isinstance(t, int) for t in targets):
        targets = sorted(targets)
    t0 = {}
    if absolute:
        values = anim.sample([file_range(anim)[0]])
        for i, t in enumerate(anim.tracks):
            if t.channel == "translation" and t.target in targets:
                t0.setdefault(t.target, [0.0, 0.0, 0.0])[t.axis] = values[i]
    extent = max((Vector(v).length for v in t0.values()), default=0.0)
    if absolute:
        step = max(extent * 0.15, 1.0)
    else:
        # deltas: space the pivots by the size of the motion so both show
        moves = [abs(v) for t in anim.tracks if t.channel == "translation" for v in t.values]
        step = max(12.0, 0.5 * max(moves, default=0.0))
    heads, prev = [], Vector((0, 0, 0))
    for i, t in enumerate(targets):
        if absolute:
            head = (prev + Vector(t0.get(t, (0, 0, 0)))) if i else Vector(t0.get(t, (0, 0, 0)))
        else:
            head = Vector((0, step * i, 0))
        heads.append(head)
        prev = head
    length = max(step * 0.5, 0.5)
    arm = bpy.data.armatures.new(name)
    rig = bpy.data.objects.new(name, arm)
    collection.objects.link(rig)
    if formats.is_y_up(fmt):
        rig.rotation_euler = (math.pi / 2, 0, 0)  # Y-up game data, Z-up Blender
    rig.location = origin
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    names = []
    for i, (t, head) in enumerate(zip(targets, heads)):
        bname = t if isinstance(t, str) else (f"bk_id_{t:03d}" if by_id else f"joint_{t:03d}")
        eb = arm.edit_bones.new(bname)
        eb.head = head
        eb.tail = head + Vector((0, length, 0))
        eb.roll = 0.0
        if i:
            eb.parent = arm.edit_bones[names[-1]]
        names.append(eb.name)
    bpy.ops.object.mode_set(mode="OBJECT")
    for t, n in zip(targets, names):
        if by_id:
            arm.bones[n]["gameanim_bone_id"] = t
    bpy.context.view_layer.update()
    mat = flat_material(name + " sticks", COLORS.get(fmt, (0.8, 0.8, 0.8, 1)))
    joint_mat = flat_material(name + " joints", (0.95, 0.95, 0.95, 1))
    lo = Vector(map(min, *heads)) if len(heads) > 1 else heads[0] - Vector((1, 1, 1))
    hi = Vector(map(max, *heads)) if len(heads) > 1 else heads[0] + Vector((1, 1, 1))
    radius = max((hi - lo).length * 0.02, length * 0.08, 0.05)
    for i, n in enumerate(names):
        head_w = rig.matrix_world @ heads[i]
        nxt = heads[i + 1] if i + 1 < len(heads) else heads[i] + Vector((0, length, 0))
        stick = bpy.data.objects.new(f"{name} {n} stick", box_mesh(f"{n} stick", head_w, rig.matrix_world @ nxt,
                                                                    radius))
        stick.data.materials.append(mat)
        # a joint at the same place as earlier ones gets a smaller box: two
        # coincident boxes render as black noise in Cycles
        same = sum(1 for h in heads[:i] if (h - heads[i]).length < radius)
        r = radius * 1.8 * 0.7 ** same
        joint = bpy.data.objects.new(f"{name} {n} joint", box_mesh(
            f"{n} joint", head_w - Vector((0, 0, r)), head_w + Vector((0, 0, r)), r))
        joint.data.materials.append(joint_mat)
        for ob in (stick, joint):
            collection.objects.link(ob)
            parent_to_bone(ob, rig, n)
    return rig


def model_figure(rig, name, collection, origin):
    """Sticks and joints on an armature built from a model: one stick from
    each joint to each child (so the figure shows its parented chains),
    parented to the joint's bone, and one joint box per bone."""
    from io_anim_gameanim.shared.model_rig import HELPER_PROP

    rig.location = origin
    # parented at the rest pose (the import already assigned an action:
    # parent_to_bone's inverse is taken from the rest tail)
    rig.data.pose_position = "REST"
    bpy.context.view_layer.update()
    bones = [b for b in rig.data.bones if b.get(HELPER_PROP) is None]

    def joint_parent(b):
        p = b.parent
        while p is not None and p.get(HELPER_PROP) is not None:
            p = p.parent
        return p

    heads = {b.name: rig.matrix_world @ b.head_local for b in bones}
    kids = {b.name: [] for b in bones}
    for b in bones:
        p = joint_parent(b)
        if p is not None:
            kids[p.name].append(b.name)
    size = max(((heads[a] - heads[c]).length for a in kids for c in kids[a]), default=0.1)
    radius = max(size * 0.06, 1e-3)
    stick_mat = flat_material(name + " sticks", (0.3, 0.8, 0.4, 1))
    joint_mat = flat_material(name + " joints", (0.95, 0.95, 0.95, 1))
    for b in bones:
        ends = [heads[c] for c in kids[b.name]] or [rig.matrix_world @ b.tail_local]
        for k, end in enumerate(ends):
            stick = bpy.data.objects.new(f"{name} {b.name} stick {k}", box_mesh(f"{b.name} stick", heads[b.name],
                                                                                 end, radius))
            stick.data.materials.append(stick_mat)
            collection.objects.link(stick)
            parent_to_bone(stick, rig, b.name)
        h = heads[b.name]
        joint = bpy.data.objects.new(f"{name} {b.name} joint", box_mesh(
            f"{b.name} joint", h - Vector((0, 0, radius * 1.6)), h + Vector((0, 0, radius * 1.6)), radius * 1.6))
        joint.data.materials.append(joint_mat)
        collection.objects.link(joint)
        parent_to_bone(joint, rig, b.name)
    bpy.context.view_layer.update()
    rig.data.pose_position = "POSE"


def model_sets(folder):
    """[(model path, [its animation paths])] under samples/models/: a
    model's animations are the files beside it named after it
    (figure_maya.bmd: figure_maya_*.bck)."""
    out = []
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        paths = [os.path.join(root, n) for n in sorted(names)]
        for p in paths:
            try:
                gameanim.load_model(p)
            except (gameanim.FormatError, OSError, ValueError):
                continue
            stem = os.path.splitext(os.path.basename(p))[0] + "_"
            anims = [q for q in paths if os.path.basename(q).startswith(stem)]
            out.append((p, anims))
    return out


def grid_image(name, kind):
    img = bpy.data.images.get(name)
    if img is None:
        img = bpy.data.images.new(name, 256, 256)
        img.generated_type = kind
    return img


def demo_materials(anim, collection, origin):
    """One material per material name of the BTK (Blender suffixes
    repeated names with .001, which the importer's tolerant matching
    accepts), with a grid image on every UV slot, each on a plane."""
    by_name = {}
    for e in anim.entries:
        by_name.setdefault(e["material"], set()).add(int(e["texmtx_id"]))
    mats = []
    for i, (mname, slots) in enumerate(sorted(by_name.items())):
        mat = bpy.data.materials.new(mname)
        if mat.node_tree is None:
            mat.use_nodes = True
        tree = mat.node_tree
        bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
        out_socket = None
        nslots = max(slots) + 1
        for j, slot in enumerate(sorted(slots)):
            img = tree.nodes.new("ShaderNodeTexImage")
            img.image = grid_image("demo grid" if j == 0 else "demo colour grid", "UV_GRID" if j == 0 else
                                   "COLOR_GRID")
            img.location = (-400, -300 * j)
            if slot:
                uvn = tree.nodes.new("ShaderNodeUVMap")
                uvn.uv_map = f"UV{slot}"
                uvn.location = (-700, -300 * j)
                tree.links.new(uvn.outputs["UV"], img.inputs["Vector"])
            if out_socket is None:
                out_socket = img.outputs["Color"]
            else:
                mix = tree.nodes.new("ShaderNodeMixRGB")
                mix.inputs["Fac"].default_value = 0.35
                tree.links.new(out_socket, mix.inputs[1])
                tree.links.new(img.outputs["Color"], mix.inputs[2])
                out_socket = mix.outputs["Color"]
        tree.links.new(out_socket, bsdf.inputs["Base Color"])
        demo_plane(f"{mname} plane", mat, nslots, collection, Vector(origin) + Vector((2.3 * i, 0, 0)))
        mats.append(mat)
    return mats


def demo_plane(name, mat, nslots, collection, location):
    """A 2 x 2 plane with nslots UV maps (UVMap, UV1, ...) and the material."""
    me = bpy.data.meshes.new(name)
    me.from_pydata([(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)], [], [(0, 1, 2, 3)])
    uv0 = me.uv_layers.new(name="UVMap")
    for s in range(1, nslots):
        me.uv_layers.new(name=f"UV{s}")
    coords = array("f", [0, 0, 1, 0, 1, 1, 0, 1])
    for layer in me.uv_layers:
        layer.data.foreach_set("uv", coords)
    uv0.active_render = True
    if mat is not None:
        me.materials.append(mat)
    ob = bpy.data.objects.new(name, me)
    ob.location = location
    collection.objects.link(ob)
    return ob


def demo_kind_owners(anim, collection, origin):
    """BRK, BPK, BTP: a plane per material the file names (BTP: an Image
    Texture node per texture number the pattern uses, labelled 'texture
    <number>', each a plain colour), returned as the materials; BVA: a plane
    per shape, named shape_<index> (the add-on keys its visibility)."""
    if formats.kind(anim.format) == "visibility":
        for i in sorted({t.target for t in anim.tracks}):
            demo_plane(f"shape_{i}", None, 1, collection, Vector(origin) + Vector((2.3 * i, 0, 0)))
        return []
    mats = []
    for i, mname in enumerate(sorted({e["material"] for e in anim.entries})):
        mat = bpy.data.materials.new(mname)
        if mat.node_tree is None:
            mat.use_nodes = True
        if formats.kind(anim.format) == "texture_index":
            numbers = sorted({int(v) for t in anim.tracks for v in t.values})
            for j, k in enumerate(numbers):
                img = bpy.data.images.new(f"demo texture {k}", 16, 16)
                hue = (0.17 * k) % 1.0
                img.generated_color = (abs(hue * 6 - 3) - 1, 2 - abs(hue * 6 - 2), 2 - abs(hue * 6 - 4), 1.0)
                node = mat.node_tree.nodes.new("ShaderNodeTexImage")
                node.image = img
                node.label = f"texture {k}"
                node.location = (-900, -260 * j)
        demo_plane(f"{mname} plane", mat, 1, collection, Vector(origin) + Vector((2.3 * i, 0, 0)))
        mats.append(mat)
    return mats


# ---------------------------------------------------------------------------
# framing and rendering


@contextlib.contextmanager
def quiet_output():
    """Blender's own output (fd 1 and 2, written by C code) goes to
    /dev/null for the duration: the demo's summary is not buried."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + [null]:
            os.close(fd)


def row_holder(coll, origin):
    """An empty at the row's origin that the row's top-level objects are
    parented to (keeping where they are), so that the row can be moved to
    the world origin to render and back."""
    holder = bpy.data.objects.new(f"row {coll.name}", None)
    coll.objects.link(holder)
    holder.location = origin
    holder["gameanim_demo_origin"] = origin
    back = Matrix.Translation(Vector(origin)).inverted()
    for ob in coll.all_objects:
        if ob.parent is None and ob is not holder:
            ob.parent = holder
            ob.matrix_parent_inverse = back
    return holder


def bounds(objects, frames):
    scene = bpy.context.scene
    lo = Vector((1e30, 1e30, 1e30))
    hi = -lo
    for f in frames:
        scene.frame_set(f)
        for ob in objects:
            if ob.type != "MESH":
                continue
            for c in ob.bound_box:
                w = ob.matrix_world @ Vector(c)
                lo = Vector(map(min, lo, w))
                hi = Vector(map(max, hi, w))
    return lo, hi


VIEW_ROTATION = (math.radians(65), 0.0, math.radians(25))  # a three-quarter view of the rigs


def frame_camera(cam, lo, hi, aspect, top_view):
    """Orthographic camera that fits the box lo..hi (over all shown frames)."""
    from mathutils import Euler

    centre = (lo + hi) / 2
    rot = Euler((0.0, 0.0, 0.0) if top_view else VIEW_ROTATION).to_matrix()
    inv = rot.inverted()
    corners = [inv @ (Vector((x, y, z)) - centre) for x in (lo.x, hi.x) for y in (lo.y, hi.y) for z in (lo.z, hi.z)]
    w = max(c.x for c in corners) - min(c.x for c in corners)
    h = max(c.y for c in corners) - min(c.y for c in corners)
    depth = max(c.z for c in corners) - min(c.z for c in corners)
    cam.data.type = "ORTHO"
    cam.rotation_euler = rot.to_euler()
    cam.location = centre + rot @ Vector((0.0, 0.0, depth + 10.0))
    cam.data.ortho_scale = max(w, h * aspect, 1e-3) * 1.3
    cam.data.clip_end = depth * 2 + 100.0


def label(cam, text, aspect):
    curve = bpy.data.curves.new(f"label {text}", "FONT")
    curve.body = text
    curve.align_x = "LEFT"
    ob = bpy.data.objects.new(f"label {text}", curve)
    bpy.context.scene.collection.objects.link(ob)
    ob.parent = cam
    ob.data.materials.append(flat_material(f"label {text}", (1, 1, 1, 1)))
    place_label(ob, cam, aspect)
    return ob


# the default font's advance is about 0.55 of its size
CHAR_WIDTH = 0.55


def place_label(ob, cam, aspect):
    """Bottom left of the camera's view, at a size that fits the whole text
    (the frame number included) into the cell's width."""
    s = cam.data.ortho_scale
    ob.location = (-s / 2 + s * 0.03, -s / (2 * aspect) + s * 0.03, -1.0)
    size = min(0.07, 0.94 / (CHAR_WIDTH * max(len(ob.data.body), 1)))
    ob.scale = (s * size,) * 3


def read_pixels(path, w, h):
    img = bpy.data.images.load(path)
    buf = array("f", [0.0]) * (w * h * 4)
    img.pixels.foreach_get(buf)
    bpy.data.images.remove(img)
    return buf


def main():
    t_start = time.time()
    out = os.path.abspath(ARGS.out)
    os.makedirs(out, exist_ok=True)
    cell_w, cell_h = (int(x) for x in ARGS.cell.lower().split("x"))
    aspect = cell_w / cell_h
    bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
    io_anim_gameanim.register()
    scene = bpy.context.scene

    models_dir = os.path.join(ARGS.samples_dir, "models")
    files = []
    for root, dirs, names in os.walk(ARGS.samples_dir):
        dirs.sort()
        if os.path.abspath(root) == os.path.abspath(ARGS.samples_dir) and "models" in dirs:
            dirs.remove("models")  # (models with their animations: below)
        files += [os.path.join(root, n) for n in sorted(names) if n.lower().endswith(file_extensions())]
    # a model with one of its animations per row
    files += [(model, anim) for model, anims in model_sets(models_dir) for anim in anims]
    if ARGS.only:
        wanted = set(ARGS.only.split(","))
        files = [f for f in files if os.path.basename(f if isinstance(f, str) else f[1]) in wanted]
    if ARGS.limit:
        files = files[:ARGS.limit]

    # the sun first: the model imports light their materials from the
    # scene's first sun (Lighting: Nodes)
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.data.energy = 3.0
    sun.rotation_euler = (0.6, 0.2, 0.4)
    scene.collection.objects.link(sun)
    bpy.context.view_layer.update()
    # the Standard view transform shows the TEV's bytes as they are (AgX
    # and Filmic shift the colours of the emission materials)
    scene.view_settings.view_transform = "Standard"

    rows, summary = [], []
    for i, path in enumerate(files):
        model, shapes = None, []
        if not isinstance(path, str):
            model, path = path
        name = os.path.relpath(path, ARGS.samples_dir)
        anim = gameanim.load(path)
        coll = bpy.data.collections.new(name)
        scene.collection.children.link(coll)
        origin = (0.0, 0.0, -1000.0 * i)  # rows far apart: each is rendered alone anyway
        if model is not None:
            res = api.import_files([model, path])
            built = res.report.files[0]
            rig = bpy.data.objects[built.owners[0]]
            shapes = [o for o in rig.children if "gameanim_shapes" in o]  # (a J3D model's meshes)
            for ob in [rig] + shapes:
                for c in list(ob.users_collection):
                    c.objects.unlink(ob)
                coll.objects.link(ob)
            if shapes:
                rig.location = origin  # the skinned, textured meshes show the model
            else:
                model_figure(rig, os.path.basename(name), coll, origin)
            res.report.files = [f for f in res.report.files if f.path == path] + [built]
        elif formats.kind(anim.format):
            mats = demo_kind_owners(anim, coll, origin)
            res = api.import_files([path], materials=mats or None)
        elif formats.is_material(anim.format):
            mats = demo_materials(anim, coll, origin)
            res = api.import_files([path], materials=mats)
        else:
            rig = demo_rig(anim, os.path.basename(name), coll, origin)
            res = api.import_files([path], armature=rig)
        fr = res.report.files[0]
        line = ("ok   " if fr.ok else "FAIL ") + fr.summary() + (f" [{len(shapes)} mesh objects]" if shapes else "")
        print(f"[{i + 1}/{len(files)}] {line}", flush=True)
        summary.append(line)
        start, end = file_range(anim)
        cols = max(ARGS.columns, 1)
        span = end - start
        frames = [int(round(start + span * c / cols)) for c in range(cols)] if span > 0 else [int(start)] * cols
        # (a model's meshes: seen from the front three-quarter, as rigs)
        rows.append((name, coll, anim.format, frames, row_holder(coll, origin), bool(shapes)))

    # one camera and light for all; collections shown one at a time
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(cam)
    scene.camera = cam
    world = bpy.data.worlds.new("World")
    scene.world = world
    world.color = (0.05, 0.05, 0.06)
    if world.node_tree is None and "use_nodes" in world.bl_rna.properties:
        world.use_nodes = True
    bg = next((n for n in world.node_tree.nodes if n.type == "BACKGROUND"), None) if world.node_tree else None
    if bg is not None:
        bg.inputs["Color"].default_value = (0.35, 0.37, 0.42, 1)
        bg.inputs["Strength"].default_value = 0.6
    scene.render.engine = "CYCLES"
    scene.cycles.samples = ARGS.render_samples
    scene.cycles.use_denoising = False
    scene.cycles.device = "CPU"
    scene.render.resolution_x, scene.render.resolution_y = cell_w, cell_h
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGBA"
    scene.render.film_transparent = False

    api_blend = os.path.join(out, "demo.blend")
    sheet_w, sheet_h = cell_w * cols, cell_h * len(rows)
    sheet = array("f", [0.0]) * (sheet_w * sheet_h * 4)
    tmp = os.path.join(out, "_cell.png")
    motion_report = []
    for r, (name, coll, fmt, frames, holder, meshes) in enumerate(rows):
        for c2 in rows:
            c2[1].hide_render = c2[1] is not coll
        # rendered at the world origin: rows lie up to 44 km apart, where a
        # float's step (4 mm) garbles a figure a few centimetres tall
        holder.location = (0.0, 0.0, 0.0)
        objs = list(coll.all_objects)
        lab = label(cam, name, aspect)
        cells = []
        for c, f in enumerate(frames):
            # each cell framed on its own frame: a rig that spreads out on
            # one frame does not shrink to a speck on the others
            lo, hi = bounds(objs, [f])
            frame_camera(cam, lo, hi, aspect,
                         top_view=not meshes and (formats.is_material(fmt) or bool(formats.kind(fmt))))
            scene.frame_set(f)
            lab.data.body = f"{name}  f{f}"
            place_label(lab, cam, aspect)
            scene.render.filepath = tmp
            with quiet_output():  # Cycles prints a progress line per tile and sample
                bpy.ops.render.render(write_still=True)
            px = read_pixels(tmp, cell_w, cell_h)
            cells.append(px)
            # the sheet's first row is at the top: image rows run bottom-up
            y0 = sheet_h - (r + 1) * cell_h
            for y in range(cell_h):
                src = y * cell_w * 4
                dst = ((y0 + y) * sheet_w + c * cell_w) * 4
                sheet[dst:dst + cell_w * 4] = px[src:src + cell_w * 4]
        bpy.data.objects.remove(lab)
        holder.location = holder["gameanim_demo_origin"]
        # how many pixel values change by more than 2% between the first
        # frame and the others (Cycles' noise is the same on every frame),
        # above the label (the bottom fifth; image rows run bottom-up)
        skip = (cell_h // 5) * cell_w * 4
        diff = max((sum(1 for a, b in zip(cells[0][skip:], cells[k][skip:]) if abs(a - b) > 0.02)
                    for k in range(1, len(cells))), default=0)
        motion_report.append(f"{name}: {diff} pixel values change between frames "
                             f"({'moves' if diff > 8 else 'still'})")
        print(f"rendered {r + 1}/{len(rows)} {name} frames {frames}", flush=True)
    for c2 in rows:
        c2[1].hide_render = False
    if os.path.exists(tmp):
        os.remove(tmp)

    img = bpy.data.images.new("contact_sheet", sheet_w, sheet_h, alpha=True)
    img.pixels.foreach_set(sheet)
    img.filepath_raw = os.path.join(out, "contact_sheet.png")
    img.file_format = "PNG"
    img.save()
    bpy.data.images.remove(img)
    scene.frame_set(0)
    bpy.ops.wm.save_as_mainfile(filepath=api_blend, check_existing=False)
    with open(os.path.join(out, "demo_summary.txt"), "w") as fh:
        fh.write("\n".join(["imports:"] + summary + ["", "motion on the contact sheet:"] + motion_report) + "\n")
    print("\n".join(motion_report))
    print(f"saved {api_blend}\nrendered {os.path.join(out, 'contact_sheet.png')} ({sheet_w}x{sheet_h}, "
          f"{len(rows)} samples x {cols} frames) in {time.time() - t_start:.0f} s")
    failed = [s for s in summary if s.startswith("FAIL")]
    return 1 if failed else 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)
