"""BRK, BPK, BTP and BVA import (shared/kind_mapping.py says where each
track goes): one action per material (BRK, BPK, BTP) or per shape object
(BVA; the shapes without an object share one action of properties on the
import's target object), and the nodes that show the keyed values in the
viewport:

- colours: an RGB node per colour (named as the property) whose output is
  driven by the property, clamped to 0..255 and divided by 255; the first
  one feeds the Base Color of a shader whose Base Color is not linked;
- texture patterns: a chain of Mix nodes ("<property> mix <k>")
  over the pattern's Image Texture nodes, each factor driven to 1 where the
  property equals the texture number, its output where the images fed
  (else an unlinked Base Color)."""
import json
import os
import re

import bpy

from .. import compat
from ..shared import formats
from ..shared.kind_mapping import (CURVES_PROP, DISPLAY_CLAMP, OWNER_PROP, OWNER_TYPE_PROP, SLOTS_PROP,
                                   describe_curves, describe_slots,
                                   material_curves, pattern_prop, plan_curves, shape_curves, shape_index_of,
                                   shape_prop)
from ..shared.material_mapping import matched_materials
from . import curve_writer
from .actions import new_action, store_source
from .materials_from_model import GROUP_NODE, MAT_COLOR_INPUTS_PROP, MODEL_PROP, TEXMAP_NODE, TEXTURE_PROP

# an Image Texture node showing texture number k of a pattern: label (or
# name) "texture k"
TEXTURE_LABEL = re.compile(r"^\s*tex(?:ture)?\s*#?\s*0*(\d+)\s*$", re.IGNORECASE)
IMAGE_EXTENSIONS = (".png", ".tga", ".bmp", ".jpg", ".jpeg", ".tif", ".tiff", ".dds", ".exr")
FILE_NUMBER = re.compile(r"(?:^|[^0-9])0*(\d+)$")


def import_kind(anim, fp, tm, mats, target):
    """The actions of one file (fp: its FilePlan): [(owner, sink, post)] as
    the other writers return them.  target: the import's target object
    (BVA shapes without an object), or None.  A BVA is one action with a
    slot per object where actions have slots (4.4+); before, an action's
    curves act on every ID it is assigned to, so each object needs its own
    action (`file [shape i]`)."""
    stem, opts, fr = fp.action_name, fp.opts, fp.report

    def store(action, extra):
        store_source(action, anim, fp.path, opts, tm, extra)

    if formats.kind(anim.format) == "visibility":
        groups = _shape_groups(anim, stem, target, fr)
    else:
        groups = _material_groups(anim, stem, mats, fr)
    shared = new_action(stem) if compat.HAS_SLOTS and formats.kind(anim.format) == "visibility" and groups \
        else None
    made, records, any_period = [], [], False
    try:
        for owner, id_type, curves, name in groups:
            action = shared or new_action(name)
            try:
                sink = compat.CurveSink(action, id_type, owner.name)
                _init_properties(owner, anim, curves)
                plans, period_keys = plan_curves(anim, curves, tm, _group(anim.format))
                curve_writer.write_plans(sink, plans, tm)
            except BaseException:
                if shared is None:
                    bpy.data.actions.remove(action)
                raise
            any_period |= bool(period_keys)
            if shared is None:
                store(action, {CURVES_PROP: describe_curves(curves), OWNER_PROP: owner.name,
                               OWNER_TYPE_PROP: id_type, "gameanim_period_keys": bool(period_keys)})
            records.append((owner.name, id_type, compat.slot_identifier(sink.slot), curves))
            if id_type == "MATERIAL":
                _show_material(anim, owner, curves, opts, fr)
            fr.owners.append(owner.name)
            made.append((owner, sink, None))
    except BaseException:
        if shared is not None:
            bpy.data.actions.remove(shared)  # (no half-written action is left behind)
        raise
    if shared is not None:
        first = records[0]
        store(shared, {CURVES_PROP: describe_curves(first[3]), OWNER_PROP: first[0], OWNER_TYPE_PROP: first[1],
                       SLOTS_PROP: describe_slots(records), "gameanim_period_keys": any_period})
    return made


def _group(fmt):
    return fmt.upper()


def _material_groups(anim, stem, mats, fr):
    return [(mat, "MATERIAL", material_curves(anim, entries, fr.notes), name)
            for mat, entries, name in matched_materials(anim, mats, stem, fr)]


def shape_objects():
    """{shape index: object} of the scene's objects (shape_index_of)."""
    out = {}
    for ob in bpy.data.objects:
        i = shape_index_of(ob)
        if i is not None and i not in out:
            out[i] = ob
    return out


def _shape_groups(anim, stem, target, fr):
    shapes = sorted({t.target for t in anim.tracks})
    objects = shape_objects()
    out = []
    rest = []
    for i in shapes:
        ob = objects.get(i)
        if ob is None:
            rest.append(i)
            continue
        out.append((ob, "OBJECT", shape_curves(anim, {i}, True), f"{stem} [shape {i}]"))
    if rest:
        holder = target
        if holder is None:
            holder = bpy.data.objects.new(f"{os.path.splitext(stem)[0]}_shapes", None)
            bpy.context.scene.collection.objects.link(holder)
            fr.built = f"empty {holder.name!r} holding the shapes' visibility"
        fr.notes.append(f"shape(s) {', '.join(map(str, rest))} have no object (custom property "
                        f"gameanim_shape or name shape_<index>): keyed as properties "
                        f"{', '.join(shape_prop(i) for i in rest[:3])}{', ...' if len(rest) > 3 else ''} "
                        f"on {holder.name!r}")
        name = stem if not out else f"{stem} [properties]"
        out.append((holder, "OBJECT", shape_curves(anim, set(rest), False), name))
    return out


def _init_properties(owner, anim, curves):
    """The keyed custom properties exist (drivers and the UI need them),
    holding the value at the file's first frame: colours as 4 floats,
    texture numbers and show bytes as ints."""
    sizes = {}
    for ti, path, index, _vs, _vo, _p in curves:
        if path.startswith('["'):
            name = path[2:-2]
            sizes[name] = max(sizes.get(name, 0), index + 1)
    for name, size in sizes.items():
        if owner.get(name) is not None:
            continue
        if formats.kind(anim.format) == "color":
            owner[name] = [0.0] * max(size, 4)
        else:
            owner[name] = 0


# ---------------------------------------------------------------------------
# Showing the values


def _add_driver(tree, node, socket, index, material, prop_path_index, expression):
    """Drives socket[index] (default_value) of node by material's property."""
    path = socket.path_from_id("default_value")
    fc = tree.driver_add(path, index) if index is not None else tree.driver_add(path)
    drv = fc.driver
    drv.type = "SCRIPTED"
    while drv.variables:
        drv.variables.remove(drv.variables[0])
    var = drv.variables.new()
    var.name = "v"
    var.type = "SINGLE_PROP"
    var.targets[0].id_type = "MATERIAL"
    var.targets[0].id = material
    var.targets[0].data_path = prop_path_index
    drv.expression = expression
    for m in list(fc.modifiers):
        fc.modifiers.remove(m)
    return fc


def color_expression():
    lo, hi = DISPLAY_CLAMP
    return f"min(max(v, {lo:.1f}), {hi:.1f}) / {float(hi):.1f}"


def pattern_expression(k):
    return f"1.0 - min(abs(v - {int(k)}.0), 1.0)"


def _base_color_input(tree):
    for node in tree.nodes:
        if node.type in ("BSDF_PRINCIPLED", "EMISSION", "BSDF_DIFFUSE"):
            for name in ("Base Color", "Color"):
                sock = node.inputs.get(name)
                if sock is not None:
                    return sock
    return None


def _show_material(anim, mat, curves, opts, fr):
    tree = compat.material_node_tree(mat)
    if tree is None:
        fr.notes.append(f"material {mat.name!r} has no node tree: the values are keyed, not shown")
        return
    props = []
    for _ti, path, _i, _vs, _vo, _p in curves:
        name = path[2:-2]
        if name not in props:
            props.append(name)
    if formats.kind(anim.format) == "color":
        for n, name in enumerate(props):
            _show_color(tree, mat, name, n, fr)
    else:
        by_prop = {pattern_prop(e): e for e in anim.entries or []}
        for name in props:
            numbers = sorted({int(v) for ti, path, *_r in curves if path[2:-2] == name
                              for v in anim.tracks[ti].values} or {0})
            if tree.nodes.get(GROUP_NODE) is not None and mat.get(MODEL_PROP) is not None:
                _show_model_pattern(tree, mat, name, numbers, by_prop.get(name), fr)
            else:
                _show_pattern(tree, mat, name, numbers, by_prop.get(name), opts, fr)


REGISTER_INPUTS = ("C0", "C1", "C2", "PREV")  # TEV colour slot i (the TEV group's inputs)


def _group_targets(mat, name):
    """[(TEV group input, colour channels)] that a colour property drives
    on a material the model import built, and whether it is a register
    (signed, wrapped by the group) rather than a clamped colour."""
    m = re.match(r"^gameanim_color_([CK])(\d+)$", name)
    if m:
        k = int(m.group(2))
        base = (REGISTER_INPUTS[k] if k < 4 else None) if m.group(1) == "C" else f"K{k}"
        return ([(base, [0, 1, 2]), (base + " Alpha", [3])] if base else []), m.group(1) == "C"
    # ([socket, channels] on the TEV group node, or [socket, channels, node]
    # on another node: channel 0's lit group)
    return [(t[0], list(t[1])) + tuple(t[2:]) for t in json.loads(mat.get(MAT_COLOR_INPUTS_PROP) or "[]")], False


def _drive_group(tree, mat, group, name, fr):
    """Drives the TEV group's colour inputs by the property, in the group's
    units (bytes / 255)."""
    targets, register = _group_targets(mat, name)
    expression = "v / 255.0" if register else color_expression()
    driven = 0
    for socket, chans, *where in targets:
        node = tree.nodes.get(where[0]) if where else group
        sock = None if node is None else node.inputs.get(socket)
        if sock is None:
            continue
        for c in chans:
            _add_driver(tree, node, sock, c if len(chans) > 1 else None, mat, f'["{name}"][{c}]', expression)
        driven += 1
    if not driven:
        fr.notes.append(f"material {mat.name!r}: {name} animates a colour its TEV stages do not read")


def _show_color(tree, mat, name, n, fr):
    group = tree.nodes.get(GROUP_NODE)
    if group is not None and group.type == "GROUP":
        _drive_group(tree, mat, group, name, fr)
        return
    node_name = name
    node = tree.nodes.get(node_name)
    if node is None:
        node = tree.nodes.new("ShaderNodeRGB")
        node.name = node.label = node_name
        node.location = (-600, 300 - 220 * n)
    out = node.outputs[0]
    for c in range(4):
        _add_driver(tree, node, out, c, mat, f'["{name}"][{c}]', color_expression())
    if n == 0 and not out.links:
        sock = _base_color_input(tree)
        if sock is not None and not sock.is_linked:
            tree.links.new(out, sock)
        else:
            fr.notes.append(f"material {mat.name!r}: node {node_name!r} shows the colour but feeds nothing (no "
                            "unlinked Base Color); link it where the colour belongs")


def pattern_images(tree):
    """{texture number: Image Texture node} labelled (or named) 'texture k'."""
    out = {}
    for node in tree.nodes:
        if node.type != "TEX_IMAGE":
            continue
        for text in (node.label, node.name):
            m = TEXTURE_LABEL.match(text or "")
            if m:
                out.setdefault(int(m.group(1)), node)
                break
    return out


def folder_images(folder):
    """{texture number: file} of a folder: files whose name (without the
    extension) is or ends with the number (0.png, eye_03.tga)."""
    out = {}
    if not folder or not os.path.isdir(folder):
        return out
    for f in sorted(os.listdir(folder)):
        base, ext = os.path.splitext(f)
        if ext.lower() not in IMAGE_EXTENSIONS:
            continue
        m = FILE_NUMBER.search(base)
        if m:
            out.setdefault(int(m.group(1)), os.path.join(folder, f))
    return out


def _show_pattern(tree, mat, name, numbers, entry, opts, fr):
    images = pattern_images(tree)
    files = folder_images(bpy.path.abspath(opts.texture_folder)) if opts.texture_folder else {}
    for k in numbers:
        if k in images or k not in files:  # (the material's own image nodes win)
            continue
        img_node = tree.nodes.new("ShaderNodeTexImage")
        img_node.image = bpy.data.images.load(files[k], check_existing=True)
        img_node.label = f"texture {k}"
        img_node.location = (-900, -260 * k)
        images[k] = img_node
    missing = [k for k in numbers if k not in images]
    if missing:
        texmap = f" texmap {int(entry['texmap'])}" if entry is not None else ""
        fr.unmatched.append(f"material {mat.name!r}{texmap}: texture(s) {', '.join(map(str, missing))} of the "
                            f"pattern not found (Image Texture nodes labelled 'texture <number>', or option "
                            f"Texture Folder with files named by number)")
    shown = [k for k in numbers if k in images]
    if not shown:
        return
    # where the images fed: the chain goes there instead
    targets = [link.to_socket for k in shown for link in images[k].outputs["Color"].links
               if not link.to_node.name.startswith(name + " mix ")]
    out = images[shown[0]].outputs["Color"]
    for j, k in enumerate(shown[1:]):
        mix_name = f"{name} mix {k}"
        mix = tree.nodes.get(mix_name)
        if mix is None:
            mix = compat.new_color_mix(tree)
            mix.name = mix.label = mix_name
            mix.location = (-600 + 180 * j, -260 * k)
        fac, a, b, res = compat.color_mix_sockets(mix)
        tree.links.new(out, a)
        tree.links.new(images[k].outputs["Color"], b)
        _add_driver(tree, mix, fac, None, mat, f'["{name}"]', pattern_expression(k))
        out = res
    if not targets and out.links:
        return  # (built by an earlier import: already in place)
    if not targets:
        sock = _base_color_input(tree)
        if sock is not None and not sock.is_linked:
            targets = [sock]
    for sock in targets:
        if not any(link.from_socket == out for link in sock.links):
            tree.links.new(out, sock)
    if not targets:
        fr.notes.append(f"material {mat.name!r}: the texture pattern chain feeds nothing (no unlinked Base Color)")


def _show_model_pattern(tree, mat, name, numbers, entry, fr):
    """A BTP on a material the model import built: its numbers are the
    model's TEX1 indices, so the images are the model's own (MODEL_PROP,
    TEXTURE_PROP); one Image Texture node per number beside the texmap's
    node (its vector and sampling), chained by Mix nodes for the colour and
    for the alpha into the TEV group inputs the texmap's node fed."""
    texmap = int(entry["texmap"]) if entry is not None else 0
    base = tree.nodes.get(f"{TEXMAP_NODE} {texmap}")
    if base is None:
        fr.notes.append(f"material {mat.name!r}: its TEV stages sample no texmap {texmap}; the pattern is keyed, "
                        "not shown")
        return
    model = mat.get(MODEL_PROP)
    by_number = {}
    for img in bpy.data.images:
        if img.get(MODEL_PROP) == model and img.get(TEXTURE_PROP) is not None:
            by_number.setdefault(int(img[TEXTURE_PROP]), img)
    missing = [k for k in numbers if k not in by_number]
    if missing:
        fr.unmatched.append(f"material {mat.name!r} texmap {texmap}: texture(s) {', '.join(map(str, missing))} of "
                            f"the pattern are not in the model's TEX1")
    shown = [k for k in numbers if k in by_number]
    if not shown:
        return
    vector = base.inputs["Vector"].links[0].from_socket if base.inputs["Vector"].is_linked else None
    nodes = {}
    for j, k in enumerate(shown):
        node = tree.nodes.get(f"{name} texture {k}")
        if node is None:
            node = tree.nodes.new("ShaderNodeTexImage")
            node.name, node.label = f"{name} texture {k}", f"texture {k}"
            node.image = by_number[k]
            node.extension, node.interpolation = base.extension, base.interpolation
            node.location = (base.location.x - 250, base.location.y - 260 * (j + 1))
            if vector is not None:
                tree.links.new(vector, node.inputs["Vector"])
        nodes[k] = node
    targets = {part: [lk.to_socket for lk in base.outputs[part].links] for part in ("Color", "Alpha")}
    if not targets["Color"] and not targets["Alpha"]:
        return  # (built by an earlier import: already in place)
    colour, alpha = nodes[shown[0]].outputs["Color"], nodes[shown[0]].outputs["Alpha"]
    for j, k in enumerate(shown[1:]):
        mix = compat.new_color_mix(tree)
        mix.name = mix.label = f"{name} mix {k}"
        mix.location = (base.location.x + 180 * (j + 1), base.location.y)
        fac, a, b, res = compat.color_mix_sockets(mix)
        tree.links.new(colour, a)
        tree.links.new(nodes[k].outputs["Color"], b)
        _add_driver(tree, mix, fac, None, mat, f'["{name}"]', pattern_expression(k))
        colour = res
        amix = compat.new_float_mix(tree)
        amix.name = amix.label = f"{name} alpha mix {k}"
        amix.location = (base.location.x + 180 * (j + 1), base.location.y - 220)
        fac, a, b, res = compat.float_mix_sockets(amix)
        tree.links.new(alpha, a)
        tree.links.new(nodes[k].outputs["Alpha"], b)
        _add_driver(tree, amix, fac, None, mat, f'["{name}"]', pattern_expression(k))
        alpha = res
    for part, out in (("Color", colour), ("Alpha", alpha)):
        for sock in targets[part]:
            tree.links.new(out, sock)
