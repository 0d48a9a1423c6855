"""Mesh objects of a J3D model (Model.meshes), under the armature that
build_model_armature made, deformed by an Armature modifier so that the
evaluated mesh is the game's skinning at every frame.

The skinning (docs/blender.md, Meshes).  The game draws a vertex with
weights w_k on joints k as  sum_k w_k * W_k(frame) * B_k * x,  where W_k is
the joint's world matrix, x the stored vertex and B_k the joint's inverse
bind (EVP1) for an envelope, the identity with x in joint space for a
rigid vertex.  Blender's Armature modifier computes  sum_k w_k * P_b * R_b^-1
* x  with P_b the deforming bone's pose matrix and R_b its rest matrix.
The joint bones have the identity rest orientation (R = T(head)) and their
pose matrix is W_k, so a joint bone deforms by W_k * T(-head): right only
when B_k = T(-head).  Elsewhere a hidden *skin bone* child of the joint,
with the same head, carries the constant pose basis N_k = B_k * T(head),
so that it deforms by exactly W_k * B_k; when N_k holds shear (one bone's
location / rotation / scale cannot), two skin bones split it by the
singular value decomposition N = (U S) V^T.  The mesh's coordinates are
x = (sum_k w_k W_k(rest) B_k)^-1 * rest position, which is the rest
position itself for an unedited model (rest x inverse bind = identity)."""
import math
from array import array
from itertools import chain

import bpy
from mathutils import Matrix, Vector

from .. import compat
from ..shared.model_rig import HELPER_PROP, SKIN_PROP

from .materials_from_model import DEPTH_TEST_OFF_PROP
from .rig_from_model import HELPER_COLLECTION

SKIN_PREFIX = "SKIN "
SHEAR_SUFFIX = " shear"
EPS = 1e-6


def shape_object_name(model_name, index):
    """The object of shape `index` (BVA maps visibility onto these)."""
    return f"{model_name}_shape_{index}"


def _m4(flat16):
    return Matrix([flat16[0:4], flat16[4:8], flat16[8:12], flat16[12:16]])


def _m34(t12):
    return Matrix([t12[0:4], t12[4:8], t12[8:12], (0.0, 0.0, 0.0, 1.0)])


def _near(a, b, tol):
    """Every element of the 4x4 matrices a and b within tol."""
    return max(map(abs, chain.from_iterable(a - b))) <= tol


def _scale_of(world):
    """Tolerance scale: the largest translation in the rest matrices."""
    return max([1.0] + [abs(m[r][3]) for m in world for r in range(3)])


def skin_binds(model, world):
    """B_k of every joint: the inverse bind when the model has an
    invertible one, else the inverse of the rest world matrix (a joint
    only rigid vertices use)."""
    ibs = list(getattr(model, "inverse_binds", ()) or ())
    out = []
    for k, w in enumerate(world):
        b = _m34(ibs[k]) if k < len(ibs) else None
        if b is None or abs(b.determinant()) < 1e-12:
            b = w.inverted_safe()
        out.append(b)
    return out


class Skin:
    """The deform bone of each joint and the bind data of a model.  The
    skin bones are made in the armature's own edit-mode pass when the
    import passes the Skin to build_model_armature (edit_bones, then
    finish), else by make_bones in a pass of their own."""

    def __init__(self, model, nbones=None, joints=None):
        w = model.world_matrices()
        if nbones is None:
            nbones = len(w) // 16
        self.world = [_m4(w[16 * i:16 * i + 16]) for i in range(nbones)]
        self.binds = skin_binds(model, self.world)
        scale = _scale_of(self.world)
        self.tol = 1e-6 * scale
        # C_k = W_k(rest) B_k: identity for an unedited model
        self.rest_skin = [wk @ bk for wk, bk in zip(self.world, self.binds)]
        identity = Matrix.Identity(4)
        self.identity = [_near(c, identity, 1e-5 * scale) for c in self.rest_skin]
        self.bones = {}  # joint -> deforming bone name
        self.joints = set(joints or ())  # the joints the meshes use (for edit_bones)
        self._made = {}

    def _plans(self, joints, names, heads):
        """N_k of each joint that needs skin bones; the others deform
        with their own bone."""
        plans = {}
        for j in sorted(joints):
            if j in self.bones or j not in names:
                continue
            n = self.binds[j] @ Matrix.Translation(heads[j])
            if _near(n, Matrix.Identity(4), self.tol):
                self.bones[j] = names[j]  # the joint's own bone deforms right
            else:
                plans[j] = n
        return plans

    def edit_bones(self, arm, names, heads, edit, ends):
        """In edit mode (build_model_armature's pass): the skin bones of
        the joints the meshes use, under their joint's edit bone.  edit:
        joint -> (edit bone, head, tail); the new bones' (head, tail) go on
        ends (build_model_armature writes them all at once)."""
        self._edit(arm, names, self._plans(self.joints, names, heads), edit, ends)

    def _edit(self, arm, names, plans, edit=None, ends=None):
        for j, n in plans.items():
            if edit is not None:
                parent, head, tail = edit[j]
            else:
                parent = arm.edit_bones[names[j]]
                head, tail = parent.head, parent.tail
            parts = _basis_chain(n)
            made = []
            for p in range(len(parts)):
                eb = arm.edit_bones.new(SKIN_PREFIX + names[j] + (SHEAR_SUFFIX if p else ""))
                if ends is not None:
                    ends.append((head, tail))
                else:
                    eb.head = head
                    eb.tail = tail
                eb.parent = parent  # (a new edit bone has roll 0 and no connection)
                made.append(eb.name)
                parent = eb
            self._made[j] = (made, parts)

    def finish(self, obj, names, pose=None):
        """In object mode, after edit_bones: the skin bones' properties and
        constant pose, hidden in the helper collection.  pose: the
        {property: {bone: value}} that build_model_armature writes at once
        (rig_from_model.write_new_pose), else the pose is set here."""
        arm = obj.data
        hidden = []
        for j, (made, parts) in self._made.items():
            for name, (loc, quat, scale) in zip(made, parts):
                bone = arm.bones[name]
                bone[HELPER_PROP] = names[j]  # (no file animates it)
                bone[SKIN_PROP] = j  # (inherit_scale: a new bone's FULL)
                # (a new pose bone's rotation mode: QUATERNION)
                if pose is not None:
                    pose.setdefault("location", {})[name] = loc
                    pose.setdefault("rotation_quaternion", {})[name] = quat
                    pose.setdefault("scale", {})[name] = scale
                else:
                    pb = obj.pose.bones[name]
                    pb.location = loc
                    pb.rotation_quaternion = quat
                    pb.scale = scale
                hidden.append(name)
            if pose is None:  # (a bone built just now deforms already)
                arm.bones[names[j]].use_deform = True
            self.bones[j] = made[-1]
        self._made = {}
        if hidden:
            compat.hide_bones(arm, hidden, HELPER_COLLECTION)

    def make_bones(self, built, joints, context):
        """The deforming bone of each joint in `joints` not made yet, in an
        edit-mode pass of their own (when build_model_armature did not
        make them)."""
        obj = built.obj
        arm = obj.data
        names = built.names
        heads = {i: arm.bones[name].head_local.copy() for i, name in names.items()}
        plans = self._plans(joints, names, heads)
        if not plans:
            return
        view_layer = context.view_layer
        prev_active = view_layer.objects.active
        view_layer.objects.active = obj
        if prev_active is not None and prev_active.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        bpy.ops.object.mode_set(mode="EDIT")
        try:
            self._edit(arm, names, plans)
        finally:
            bpy.ops.object.mode_set(mode="OBJECT")
        self.finish(obj, names)
        view_layer.objects.active = prev_active if prev_active is not None else obj


def _basis_chain(n):
    """Pose bases (location, quaternion, scale) whose product is n: one
    when n has no shear, else two by the singular value decomposition."""
    loc, rot, scale = n.decompose()
    if _near(Matrix.LocRotScale(loc, rot, scale), n, 1e-6 * max(1.0, loc.length)):
        return [(loc, rot, scale)]
    u, sv, vt = _svd3(n.to_3x3())
    return [(loc, u.to_quaternion(), Vector(sv)), (Vector(), vt.to_quaternion(), Vector((1.0, 1.0, 1.0)))]


def _svd3(lin):
    """lin = U * diag(s) * Vt with U and Vt proper rotations (a negative
    determinant goes into s): Jacobi on lin^T lin, in plain Python (Debian's
    Blender 3.4 has no numpy)."""
    a = [[sum(lin[k][i] * lin[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
    v = [[float(i == j) for j in range(3)] for i in range(3)]
    for _sweep in range(50):
        off = sum(a[i][j] ** 2 for i in range(3) for j in range(3) if i != j)
        if off < 1e-30 * max(1e-300, sum(a[i][i] ** 2 for i in range(3))):
            break
        for p, q in ((0, 1), (0, 2), (1, 2)):
            if abs(a[p][q]) < 1e-300:
                continue
            theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q])
            t = (1.0 if theta >= 0 else -1.0) / (abs(theta) + math.sqrt(theta * theta + 1.0))
            c = 1.0 / math.sqrt(t * t + 1.0)
            sn = t * c
            for k in range(3):  # a = J^T a J
                akp, akq = a[k][p], a[k][q]
                a[k][p], a[k][q] = c * akp - sn * akq, sn * akp + c * akq
            for k in range(3):
                apk, aqk = a[p][k], a[q][k]
                a[p][k], a[q][k] = c * apk - sn * aqk, sn * apk + c * aqk
            for k in range(3):
                vkp, vkq = v[k][p], v[k][q]
                v[k][p], v[k][q] = c * vkp - sn * vkq, sn * vkp + c * vkq
    vm = Matrix(v)  # columns: eigenvectors of lin^T lin
    if vm.determinant() < 0:
        vm.col[2] = -vm.col[2]
    lv = lin @ vm  # columns: s_i * u_i
    s = [lv.col[i].length for i in range(3)]
    um = Matrix.Identity(3)
    for i in range(3):
        um.col[i] = lv.col[i] / s[i] if s[i] > 1e-300 else Vector((0.0, 0.0, 0.0))
    if um.determinant() < 0:
        um.col[2] = -um.col[2]
        s[2] = -s[2]
    return um, s, vm.transposed()


# ---------------------------------------------------------------------------
# geometry


class _Part:
    """One mesh's arrays, ready for foreach_set (several shapes joined for
    the MODEL option)."""

    def __init__(self):
        self.co = array("f")
        self.normals = array("f")
        self.has_normals = True
        self.tris = array("i")
        self.mat_index = array("i")
        self.uvs = {}      # channel -> per-corner (s, 1 - t)
        self.colors = {}   # channel -> per-vertex RGBA
        self.groups = {}   # joint -> {weight: [vertex]}
        self.nv = 0
        self.materials = []  # model material index of each slot
        self.shared = False  # the arrays are Model.meshes' own (not to extend)


def _positions(mesh, skin):
    """Mesh coordinates x (module docstring), flat floats; the matrix of
    each distinct joints-and-weights combination is inverted once."""
    pos = mesh.positions
    nv = len(pos) // 3
    if all(skin.identity[j] for j, _w, _v in mesh.groups):
        return pos
    k = mesh.influences
    joints, weights = mesh.joints, mesh.weights
    out = array("f", bytes(12 * nv))
    inverse = {}
    for v in range(nv):
        key = (tuple(joints[v * k:v * k + k]), tuple(weights[v * k:v * k + k]))
        m = inverse.get(key)
        if m is None:
            e = Matrix(((0.0,) * 4,) * 4)
            for j, w in zip(*key):
                if w:
                    e += skin.rest_skin[j] * w
            m = inverse[key] = tuple(tuple(row) for row in e.inverted_safe()[:3])
        x, y, z = pos[3 * v], pos[3 * v + 1], pos[3 * v + 2]
        r0, r1, r2 = m
        out[3 * v] = r0[0] * x + r0[1] * y + r0[2] * z + r0[3]
        out[3 * v + 1] = r1[0] * x + r1[1] * y + r1[2] * z + r1[3]
        out[3 * v + 2] = r2[0] * x + r2[1] * y + r2[2] * z + r2[3]
    return out


def _as_int(tris):
    """array('I') as array('i') (what foreach_set takes for vertex_index;
    indices < 2**31), copied as bytes (a memoryview cast or frombytes of
    the array itself fails in Debian's Blender 3.4.1)."""
    out = array("i")
    out.frombytes(tris.tobytes())
    return out


def _append(part, mesh, skin, model_materials):
    if not part.nv and not part.tris:
        _first(part, mesh, skin)
    else:
        _join(part, mesh, skin)
    mat = mesh.material
    if mat not in part.materials:
        part.materials.append(mat)
    part.mat_index.extend(array("i", [part.materials.index(mat)]) * (len(mesh.triangles) // 3))


def _first(part, mesh, skin):
    """A part's first shape: its arrays as Model.meshes gives them (no copy;
    _join copies them before it extends them)."""
    part.co = _positions(mesh, skin)
    if mesh.normals is not None:
        part.normals = mesh.normals
    else:
        part.has_normals = False
    part.tris = _as_int(mesh.triangles)
    part.uvs = dict(zip(mesh.uv_channels, mesh.corner_uvs))
    part.colors = dict(zip(mesh.color_channels, mesh.colors))
    part.nv = len(mesh.positions) // 3
    _add_groups(part.groups, mesh, 0)
    part.shared = True


def _join(part, mesh, skin):
    """A later shape of a joined part (MODEL option): appended to copies."""
    if part.shared:
        part.co, part.normals, part.tris = array("f", part.co), array("f", part.normals), array("i", part.tris)
        part.uvs = {ch: array("f", a) for ch, a in part.uvs.items()}
        part.colors = {ch: array("f", a) for ch, a in part.colors.items()}
        part.shared = False
    base = part.nv
    corners = len(part.tris)
    nv = len(mesh.positions) // 3
    part.co.extend(_positions(mesh, skin))
    if mesh.normals is not None:
        part.normals.extend(mesh.normals)
    else:
        part.has_normals = False
    part.tris.extend(array("i", [t + base for t in mesh.triangles]))
    for ch, arr in zip(mesh.uv_channels, mesh.corner_uvs):
        dst = part.uvs.setdefault(ch, array("f", bytes(8 * corners)))
        dst.extend(arr)
    for ch, arr in zip(mesh.color_channels, mesh.colors):
        dst = part.colors.setdefault(ch, array("f", [1.0]) * (4 * base))
        dst.extend(arr)
    part.nv = base + nv
    for dst in part.uvs.values():
        dst.extend(array("f", bytes(4 * (2 * len(part.tris) - len(dst)))))
    for dst in part.colors.values():
        dst.extend(array("f", [1.0]) * (4 * part.nv - len(dst)))
    _add_groups(part.groups, mesh, base)


def _add_groups(groups, mesh, base):
    """groups[joint][weight] += the vertices (from base) with that joint
    and weight: Mesh.groups, grouped in C (no per-vertex Python, except
    the shift of a joined model's later shapes)."""
    for j, w, verts in mesh.groups:
        dst = groups.setdefault(j, {})
        verts = array("i", [v + base for v in verts]) if base else array("i", verts)  # (a copy: extended below)
        if w in dst:
            dst[w].extend(verts)
        else:
            dst[w] = verts


def _to_mesh(name, part):
    """A Blender mesh from a _Part, with foreach_set."""
    me = bpy.data.meshes.new(name)
    nt = len(part.tris) // 3
    me.vertices.add(part.nv)
    me.vertices.foreach_set("co", part.co)
    me.loops.add(3 * nt)
    me.loops.foreach_set("vertex_index", part.tris)
    me.polygons.add(nt)
    me.polygons.foreach_set("loop_start", array("i", range(0, 3 * nt, 3)))
    compat.set_loop_totals(me, nt)
    if len(part.materials) > 1:
        me.polygons.foreach_set("material_index", part.mat_index)
    me.update(calc_edges=True)
    for ch in sorted(part.uvs):
        src = part.uvs[ch]
        layer = me.uv_layers.new(name=f"UV{ch}")
        layer.data.foreach_set("uv", src)
    for ch in sorted(part.colors):
        attr = me.color_attributes.new(f"Col{ch}", "FLOAT_COLOR", "POINT")
        attr.data.foreach_set("color", part.colors[ch])
    if part.has_normals and part.normals:
        compat.set_custom_normals(me, part.normals)
    return me


def build_model_meshes(model, built, context, mode="SHAPE", materials=None, skin=None):
    """Makes the mesh objects of a J3D model under built.obj.  mode SHAPE:
    one object per SHP1 shape, MODEL: one for all, NONE: nothing.
    materials: the Blender material of each MAT3 material (or None).
    skin: the Skin that build_model_armature made the skin bones with
    (else they are made here).  Returns (objects, notes)."""
    notes = []
    if mode == "NONE":
        return [], notes
    meshes = list(model.meshes)
    if not meshes:
        return [], notes
    if skin is None:
        skin = Skin(model, len(built.rig["bones"]))
    arm_obj = built.obj
    stem = arm_obj.name
    billboards = [m.index for m in meshes if m.matrix_type in (1, 2)]
    if billboards:
        notes.append(f"billboard shape(s) {billboards}: imported rigid on their joint (the game turns them to "
                     "face the camera at draw time)")
    groups = [[m] for m in meshes] if mode == "SHAPE" else [meshes]
    parts = []
    for group in groups:
        part = _Part()
        for m in group:
            _append(part, m, skin, materials)
        parts.append(part)
    skin.make_bones(built, {j for part in parts for j in part.groups}, context)
    objects = []
    coll = arm_obj.users_collection[0] if arm_obj.users_collection else context.scene.collection
    for group, part in zip(groups, parts):
        name = shape_object_name(stem, group[0].index) if mode == "SHAPE" else f"{stem}_mesh"
        me = _to_mesh(name, part)
        for mi in part.materials:
            me.materials.append(materials[mi] if materials and 0 <= mi < len(materials) else None)
        obj = bpy.data.objects.new(name, me)
        # the closest Blender has to GX's depth test off (eyes drawn through
        # the face): the object In Front, in the viewport
        obj.show_in_front = any(m is not None and m.get(DEPTH_TEST_OFF_PROP) for m in me.materials)
        coll.objects.link(obj)
        obj.parent = arm_obj
        for j in sorted(part.groups):
            vg = obj.vertex_groups.new(name=skin.bones[j])
            for w, verts in part.groups[j].items():
                vg.add(verts, w, "REPLACE")
        mod = obj.modifiers.new("Armature", "ARMATURE")
        mod.object = arm_obj  # (a new one deforms by vertex groups, not by bone envelopes)
        obj["gameanim_shapes"] = [m.index for m in group]
        if mode == "SHAPE":
            obj["gameanim_shape"] = group[0].index  # (what the BVA import looks for)
        objects.append(obj)
    return objects, notes


def _mode(opts):
    return getattr(opts, "mesh_objects", "SHAPE") if opts is not None else "SHAPE"


def prepare_skin(ga, model, opts):
    """Before the armature: the Skin of a J3D model whose meshes the import
    makes, so build_model_armature adds the skin bones in its own
    edit-mode pass; None otherwise, or when the geometry does not decode
    (import_geometry then notes why)."""
    if _mode(opts) == "NONE" or getattr(model, "family", None) != "j3d":
        return None
    try:
        meshes = model.meshes
        if not meshes:
            return None
        return Skin(model, joints={j for m in meshes for j, _w, _v in m.groups})
    except (ga.FormatError, ValueError):
        return None


def import_geometry(ga, model, built, context, opts, fr, mats=None, skin=None):
    """The meshes and materials of a J3D model file, for the import
    (model_import.build_models): the report says what was made; a malformed
    geometry chunk is noted (the armature stays).  skin: what
    prepare_skin gave build_model_armature."""
    from . import materials_from_model

    mode = _mode(opts)
    if mode == "NONE" or getattr(model, "family", None) != "j3d":
        return []
    try:
        meshes = model.meshes
        if not meshes:
            return []
        channels = sorted({c for m in meshes for c in m.uv_channels})
        lighting = getattr(opts, "lighting", "NODES") if opts is not None else "NODES"
        materials, notes = materials_from_model.build_materials(model, built.obj.name, channels or [0], lighting,
                                                                context.scene if context is not None else None)
        objects, more = build_model_meshes(model, built, context, mode, materials, skin)
    except ga.FormatError as e:
        fr.notes.append(f"the model's geometry was not imported: {e}")
        return []
    except Exception as e:  # (the armature and the animations still import)
        fr.notes.append(f"could not build the model's meshes: {type(e).__name__}: {e}")
        return []
    fr.notes.extend(notes + more)
    if mats is not None:
        mats.extend(materials)
    fr.built += f", {len(objects)} mesh object(s), {len(materials)} material(s)"
    return objects
