"""File > Export > Game Model (.bmd/.bdl): the model an armature was
imported from, written back with the user's edits through the Model's edit
methods (docs/blender.md, Export a model; docs/model_writer.md).

The model is loaded again from the file (or archive member) the armature
records; each edit Blender holds is compared with what the import made of
that model and only what differs is re-encoded: a shape's mesh
(replace_mesh), a new skinned mesh object (add_mesh), a repainted image
(replace_texture, in its own format), a material's colour inputs
(set_material_colors).  Nothing changed: the source bytes come back.  What
the format cannot hold is reported in the result, never dropped silently.
The plain-array work is shared/model_edit_plan.py; this module reads
Blender."""
import json
import os
from array import array

from .. import compat, native
from ..shared import archive_members, kind_mapping
from ..shared import model_edit_plan as plan
from ..shared.model_rig import (HELPER_PROP, INDEX_PROP, MESH_MATERIAL_PROP, OWNER_MODEL_PROP, SKIN_PROP,
                                TEXTURE_PROP)
from . import export_archive
from .export_tracks import ExportError

ARCHIVE_PROP = "gameanim_model_archive"         # on the armature: the archive the model came from
ARCHIVE_MEMBER_PROP = "gameanim_model_member"   # ... and its member
STEM_PROP = "gameanim_model_stem"               # the armature's name at import (MODEL_PROP of its images)
SHAPES_PROP = "gameanim_shapes"
POS_TOL = 1e-5                                  # of the model's size: a vertex that moved less did not move

LAST_RESULT = None


class ModelExportResult:
    """What one model export did (the attributes export_archive reads)."""

    def __init__(self, path, armature):
        self.path = str(path)
        self.actions = [armature]
        self.format = None
        self.compression = None
        self.size = 0
        self.error = None
        self.notes = []
        self.warnings = []
        self.changed = []      # what was re-encoded: "shape 1", "texture 0", ...
        self.original = False  # the source bytes came back unchanged
        self.archive = self.member = None
        self.others_unchanged = None
        self.other_members = 0
        self.archive_rewritten = False

    @property
    def ok(self):
        return self.error is None

    def summary(self):
        name = os.path.basename(self.path) + (f":{self.member}" if self.member else "")
        if not self.ok:
            return f"{self.actions[0]}: FAILED: {self.error}"
        how = "unchanged, original bytes" if self.original else "re-encoded: " + ", ".join(self.changed)
        return f"{self.actions[0]} -> {name}: {self.format}, {self.size} bytes ({how})"

    def lines(self):
        return [self.summary()] + [f"  note: {n}" for n in self.notes] + [f"  warning: {w}" for w in self.warnings]

    def text(self):
        return "\n".join(self.lines())


def source_of(arm):
    """(path or MemberSource, description) of the model `arm` was imported
    from; ExportError when it records none or the file is gone."""
    path = arm.get("gameanim_model_path")
    if not path:
        raise ExportError(f"armature {arm.name!r} was not imported from a model file")
    archive, member = arm.get(ARCHIVE_PROP), arm.get(ARCHIVE_MEMBER_PROP)
    if archive:
        arc = archive_members.open_if_archive(archive)
        if arc is None or member not in arc.namelist():
            raise ExportError(f"the model's archive member {archive}/{member} is gone")
        return archive_members.MemberSource(archive, member, arc.read(member))
    if not os.path.isfile(path):
        raise ExportError(f"the model file {path!r} the armature was imported from is gone")
    return path


def _joint_of_bones(arm):
    """{bone name: joint} for joint bones and skin bones; helper bones are
    no joints."""
    out = {}
    for b in arm.data.bones:
        if SKIN_PROP in b:
            out[b.name] = int(b[SKIN_PROP])
        elif INDEX_PROP in b and HELPER_PROP not in b:
            out[b.name] = int(b[INDEX_PROP])
    return out


class _Read:
    """One mesh object's data in the import's layouts."""

    def __init__(self, obj, joints_of, notes, matrix=None):
        me = obj.data
        self.nv = len(me.vertices)
        co = array("f", bytes(12 * self.nv))
        me.vertices.foreach_get("co", co)
        if matrix is not None:
            co = array("f", [c for i in range(self.nv) for c in matrix @ _vec(co, i)])
        self.co = co
        me.calc_loop_triangles()
        nt = len(me.loop_triangles)
        self.tri_loops = array("i", bytes(12 * nt))
        me.loop_triangles.foreach_get("loops", self.tri_loops)
        loop_verts = array("i", bytes(4 * len(me.loops)))
        me.loops.foreach_get("vertex_index", loop_verts)
        self.corner_verts = array("I", [loop_verts[c] for c in self.tri_loops])
        self.uvs = {}
        for layer in me.uv_layers:
            ch = plan.channel_of(layer.name, "UV")
            if ch is None or ch >= plan.MAX_UV_CHANNELS:
                notes.append(f"{obj.name}: UV map {layer.name!r} not written (the format has UV channels "
                             f"UV0-UV{plan.MAX_UV_CHANNELS - 1} only)")
                continue
            flat = array("f", bytes(8 * len(me.loops)))
            layer.data.foreach_get("uv", flat)
            self.uvs[ch] = array("f", [x for c in self.tri_loops for x in flat[2 * c:2 * c + 2]])
        self.colors, self.corner_colors = {}, {}
        for attr in me.color_attributes:
            ch = plan.channel_of(attr.name, "Col")
            if ch is None or ch >= plan.MAX_COLOR_CHANNELS:
                notes.append(f"{obj.name}: colour attribute {attr.name!r} not written (the format has two colour "
                             "sets, Col0 and Col1)")
                continue
            n = len(attr.data)
            flat = array("f", bytes(16 * n))
            attr.data.foreach_get("color", flat)
            if attr.domain == "CORNER":
                self.corner_colors[ch] = array("f", [x for c in self.tri_loops for x in flat[4 * c:4 * c + 4]])
            else:
                self.colors[ch] = flat
        self.normals = _corner_normals(me, self.tri_loops)
        self.weights = [{} for _ in range(self.nv)]
        names = {g.index: g.name for g in obj.vertex_groups}
        strays = set()
        for v in me.vertices:
            for g in v.groups:
                name = names.get(g.group)
                if g.weight <= plan.WEIGHT_EPS or name is None:
                    continue
                j = joints_of.get(name)
                if j is None:
                    strays.add(name)
                    continue
                d = self.weights[v.index]
                d[j] = d.get(j, 0.0) + g.weight
        if strays:
            notes.append(f"{obj.name}: weights on vertex group(s) {', '.join(sorted(strays))} not written (no "
                         "joint of the model)")


def _vec(co, i):
    from mathutils import Vector
    return Vector(co[3 * i:3 * i + 3])


def _corner_normals(me, tri_loops):
    try:
        flat = compat.corner_normals(me)
    except (AttributeError, RuntimeError):
        return None
    return array("f", [x for c in tri_loops for x in flat[3 * c:3 * c + 3]])


def _changed_shape(mesh, r, skin, size):
    """What differs between a shape as the import built it and the object
    (a list of words; empty: unchanged)."""
    what = []
    nv = len(mesh.positions) // 3
    if r.nv != nv or array("I", mesh.triangles) != r.corner_verts:
        return ["topology"]
    # (compared in model space: p = E x, the import's x = E^-1 p inverted)
    if not plan.same_floats(mesh.positions, plan.to_model_space(r.co, r.weights, *skin), POS_TOL * size):
        what.append("positions")
    cu = dict(zip(mesh.uv_channels, mesh.corner_uvs))
    if set(cu) != set(r.uvs) or any(not plan.same_floats(cu[ch], r.uvs[ch], 1e-6) for ch in cu):
        what.append("UVs")
    cc = dict(zip(mesh.color_channels, mesh.colors))
    if r.corner_colors or set(cc) != set(r.colors) or any(not plan.same_floats(cc[ch], r.colors[ch], 1e-6)
                                                          for ch in cc):
        what.append("colours")
    old = plan.vertex_weights(mesh.joints, mesh.weights, mesh.influences, nv)
    if not plan.same_weights(old, r.weights):
        what.append("weights")
    return what


def _mesh_arrays(r, skin, name, shape=None):
    """replace_mesh / add_mesh arguments from a _Read: corners split into
    vertices (model_edit_plan.wedges), positions back in model space,
    the shape's own channels."""
    empty = [i for i, d in enumerate(r.weights) if not d]
    if empty:
        raise ExportError(f"{name}: {len(empty)} vertex(es) have no weight on a joint of the model (vertex "
                          f"{empty[0]} first): weight every vertex to a joint bone")
    pos = plan.to_model_space(r.co, r.weights, *skin)
    uv_ch = list(shape.uv_channels) if shape is not None else sorted(r.uvs)
    col_ch = list(shape.color_channels) if shape is not None else sorted(set(r.colors) | set(r.corner_colors))
    missing = [f"UV{c}" for c in uv_ch if c not in r.uvs] + \
        [f"Col{c}" for c in col_ch if c not in r.colors and c not in r.corner_colors]
    if missing:
        raise ExportError(f"{name}: the shape has {', '.join(missing)} and the object does not")
    source, tris, uvs, cols, normals = plan.wedges(r.corner_verts, {c: r.uvs[c] for c in uv_ch},
                                                   {c: r.corner_colors[c] for c in col_ch if c in r.corner_colors},
                                                   r.normals)
    for c in col_ch:
        if c in r.colors:
            cols[c] = plan.gather(r.colors[c], source, 4)
    weights = [r.weights[v] for v in source]
    joints, wts, _width = plan.fixed_width(weights)
    has_normals = shape.normals is not None if shape is not None else normals is not None
    return dict(positions=plan.gather(pos, source, 3), triangles=tris,
                normals=normals if has_normals else None,
                colors=[cols[c] for c in col_ch] or None, uvs=[uvs[c] for c in uv_ch] or None,
                joints=joints, weights=wts)


def _model_materials(model_stem):
    import bpy
    return {int(m[MESH_MATERIAL_PROP]): m for m in bpy.data.materials
            if MESH_MATERIAL_PROP in m and m.get(OWNER_MODEL_PROP) == model_stem}


def _node_values(node):
    out = {}
    for s in node.inputs:
        if s.is_linked or not hasattr(s, "default_value"):
            continue
        v = s.default_value
        out[s.name] = float(v) if isinstance(v, float) else tuple(v)
    return out


def _material_edits(model, stem, result):
    for i, bm in sorted(_model_materials(stem).items()):
        if i >= len(model.materials) or bm.node_tree is None:
            continue
        mat = model.materials[i]
        gnode = bm.node_tree.nodes.get(kind_mapping.TEV_GROUP_NODE)
        if gnode is None:
            continue
        inputs = _node_values(gnode)
        konst, tev = plan.group_colours(inputs, mat.konst_colors, mat.tev_colors)
        fed = json.loads(bm.get(kind_mapping.MAT_COLOR_INPUTS_PROP) or "[]")
        values = {}
        for t in fed:
            node = bm.node_tree.nodes.get(t[2]) if len(t) > 2 else gnode
            if node is not None and t[0] in node.inputs and not node.inputs[t[0]].is_linked:
                v = node.inputs[t[0]].default_value
                values[(t[2] if len(t) > 2 else None, t[0])] = float(v) if isinstance(v, float) else tuple(v)
        colour0 = plan.material_colour0(fed, values, mat.mat_colors[0]) if mat.mat_colors else None
        kw = {}
        if [tuple(c) for c in mat.konst_colors] != konst:
            kw["konst_colors"] = konst
        if [tuple(c) for c in mat.tev_colors] != tev:
            kw["tev_colors"] = tev
        if colour0 is not None and tuple(mat.mat_colors[0]) != colour0:
            kw["colors"] = [colour0]
        if kw:
            try:
                model.set_material_colors(i, **kw)
            except ValueError as e:
                result.warnings.append(f"material {bm.name!r}: colours not written: {e}")
                continue
            result.changed.append(f"material {i} ({', '.join(sorted(kw))})")


def _texture_edits(model, stem, result):
    import bpy
    for img in bpy.data.images:
        if TEXTURE_PROP not in img or img.get(OWNER_MODEL_PROP) != stem:
            continue
        k = int(img[TEXTURE_PROP])
        if k >= len(model.textures):
            continue
        tex = model.textures[k]
        w, h = img.size
        if w > plan.MAX_TEXTURE_SIDE or h > plan.MAX_TEXTURE_SIDE:
            result.warnings.append(f"image {img.name!r} is {w}x{h}: larger than the format's "
                                   f"{plan.MAX_TEXTURE_SIDE}; texture {k} not written")
            continue
        px = array("f", bytes(16 * w * h))
        img.pixels.foreach_get(px)
        rgba = plan.image_rgba(px, w, h)
        if (w, h) == (tex.width, tex.height) and rgba == bytes(tex.pixels):
            continue
        try:
            model.replace_texture(k, rgba, w, h)
        except ValueError as e:
            result.warnings.append(f"image {img.name!r}: texture {k} not written: {e}")
            continue
        result.changed.append(f"texture {k} ({tex.format})")


def _mesh_edits(model, arm, stem, result):
    import bpy
    meshes = list(model.meshes)
    if not meshes:
        return
    skin = plan.rest_skin(model)
    size = max([1.0] + [abs(c) for m in meshes for c in m.positions])
    joints_of = _joint_of_bones(arm)
    mats = {bm: i for i, bm in _model_materials(stem).items()}
    replaced = {}
    bpy.context.view_layer.update()
    for obj in bpy.data.objects:
        if obj.type != "MESH" or not _skinned_to(obj, arm):
            continue
        shapes = list(obj.get(SHAPES_PROP) or ())
        if len(shapes) > 1:
            result.warnings.append(f"{obj.name}: one object for shapes {shapes} (Mesh Objects: Model): not "
                                   "written (export needs one object per shape)")
            continue
        # (the armature's own space: file units, Y up; matrix_local may be stale before a depsgraph update)
        local = obj.matrix_parent_inverse @ obj.matrix_basis if obj.parent is arm and obj.parent_type == "OBJECT" \
            else arm.matrix_world.inverted() @ obj.matrix_world
        moved = not _is_identity(local)
        r = _Read(obj, joints_of, result.notes, local if moved else None)
        if shapes:
            i = shapes[0]
            if i >= len(meshes) or i in replaced:
                continue
            what = _changed_shape(meshes[i], r, skin, size)
            if not what:
                continue
            model.replace_mesh(i, **_mesh_arrays(r, skin, obj.name, meshes[i]))
            replaced[i] = obj.name
            result.changed.append(f"shape {i} ({', '.join(what)})")
            continue
        used = [mats[m] for m in obj.data.materials if m in mats]
        if not used:
            result.notes.append(f"{obj.name}: not written (a new mesh needs one of the model's materials)")
            continue
        if len(set(used)) > 1:
            result.notes.append(f"{obj.name}: uses several of the model's materials; written with "
                                f"material {used[0]} only")
        model.add_mesh(used[0], **_mesh_arrays(r, skin, obj.name))
        result.changed.append(f"new shape {len(model.meshes) - 1} from {obj.name} (material {used[0]})")


def _is_identity(m):
    return all(abs(m[r][c] - (1.0 if r == c else 0.0)) < 1e-9 for r in range(4) for c in range(4))


def _skinned_to(obj, arm):
    if obj.parent is arm:
        return True
    return any(md.type == "ARMATURE" and md.object is arm for md in obj.modifiers)


def export_model(arm, path="", *, member=""):
    """Writes the model `arm` was imported from, with the edits, to `path`
    (empty: over the source; an archive: its member, `member` or the
    source's).  Returns a ModelExportResult; ExportError when nothing can
    be written (the file is left as it was)."""
    global LAST_RESULT
    ga = native.require()
    if getattr(arm, "type", None) != "ARMATURE":
        raise ExportError(f"{getattr(arm, 'name', arm)!r} is not an armature")
    src = source_of(arm)
    if not path:
        path = getattr(src, "archive", None) or str(src)
        member = member or getattr(src, "member", "")
    result = ModelExportResult(path, arm.name)
    try:
        model = ga.load_model(archive_members.content_of(src))
    except (ga.FormatError, OSError, ValueError) as e:
        raise ExportError(f"could not read the source model {str(src)!r}: {e}") from e
    if getattr(model, "family", None) != "j3d":
        raise ExportError(f"{str(src)!r} is a {model.format} model: only J3D models (BMD/BDL) are written")
    result.format = model.format
    stem = arm.get(STEM_PROP) or arm.name
    try:
        _mesh_edits(model, arm, stem, result)
        _texture_edits(model, stem, result)
        _material_edits(model, stem, result)
        data = model.to_bytes()
    except (ga.FormatError, ValueError, getattr(ga, "EncodeError", ValueError)) as e:
        raise ExportError(f"could not write the model: {e}") from e
    result.compression = model.compression
    result.size = len(data)
    result.original = not result.changed
    problems = ga.check_model(data) if hasattr(ga, "check_model") and result.changed else []
    result.warnings.extend(f"check_model: {p}" for p in problems)
    tgt = _archive_target(path, member or getattr(src, "member", ""), src)
    if tgt is not None:
        export_archive.write_member(tgt, data, result)
    else:
        ga.write_atomic(path, data)
    LAST_RESULT = result
    return result


def _archive_target(path, member, src):
    arc = archive_members.open_if_archive(path)
    if arc is None:
        if export_archive.is_archive_name(path) and not str(path).lower().endswith(".szs"):
            raise ExportError(f"{path!r} is not an existing archive")
        return None
    if not member:
        raise ExportError(f"{path!r} is an archive: name the member to replace (option Archive Member)")
    if member not in arc.namelist():
        raise ExportError(f"archive {path!r} has no member {member!r}")
    return export_archive.ArchiveTarget(str(path), arc, member)
