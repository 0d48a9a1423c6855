"""BTK: the node chain the importer builds, evaluated numerically from its
F-curves, maps UVs as the game's texture matrix does (Basic and Maya calc
types).  The game side is an independent reading of the file
(tests/j3d_reference.py) and the matrices of J3DGetTextureMtxOld /
J3DGetTextureMtxMayaOld written out here."""
import math

import bpy
import j3d_reference as ref
import pytest
from blhelpers import fcurves_of, samples

TOL = 1e-5
UVS = [(0.0, 0.0), (1.0, 0.0), (0.3, 0.8), (0.9, 0.25), (-0.4, 1.7)]


# ---------------------------------------------------------------------------
# The game


def game_srt(info, entry, frame, truncate=True):
    """Sx, Sy, theta (radians), Tx, Ty as the game computes them; with
    truncate=False the angle is the smooth Hermite value (what a Blender
    curve can hold)."""
    sx = ref.game_value(info, entry, 0, 0, frame)
    sy = ref.game_value(info, entry, 0, 1, frame)
    if truncate:
        theta = ref.game_value(info, entry, 1, 2, frame)
    else:
        count, keys = ref.keys_of(info, entry, 1, 2)
        raw = ref.eval_keys(count, keys, frame, 0.0)
        theta = raw * (1 << info["rotation_frac"]) * math.pi / 32768.0
    tx = ref.game_value(info, entry, 2, 0, frame)
    ty = ref.game_value(info, entry, 2, 1, frame)
    return sx, sy, theta, tx, ty


def game_uv(info, entry, frame, uv, truncate=True):
    """Blender UV (u, v-up) -> the game's transformed UV, in Blender UV."""
    sx, sy, th, tx, ty = game_srt(info, entry, frame, truncate)
    s, t = uv[0], 1.0 - uv[1]
    c, si = math.cos(th), math.sin(th)
    if info["calc_type"] == 0:
        cx, cy = info["center"][entry][0], info["center"][entry][1]
        m = [[sx * c, -sx * si, -sx * c * cx + sx * si * cy + cx + tx],
             [sy * si, sy * c, -sy * si * cx - sy * c * cy + cy + ty]]
    else:
        ax, ay = tx - 0.5, ty - 0.5
        m = [[sx * c, sy * si, ax * c - si * (ay + sy) + 0.5],
             [-sx * si, sy * c, -ax * si - c * (ay + sy) + 0.5]]
    s2 = m[0][0] * s + m[0][1] * t + m[0][2]
    t2 = m[1][0] * s + m[1][1] * t + m[1][2]
    return s2, 1.0 - t2


# ---------------------------------------------------------------------------
# Blender's nodes, evaluated from the action


def rot_xyz(v, e):
    x, y, z = v
    c, s = math.cos(e[0]), math.sin(e[0])
    y, z = c * y - s * z, s * y + c * z
    c, s = math.cos(e[1]), math.sin(e[1])
    x, z = c * x + s * z, -s * x + c * z
    c, s = math.cos(e[2]), math.sin(e[2])
    x, y = c * x - s * y, s * x + c * y
    return [x, y, z]


class ChainEval:
    def __init__(self, material, image_node):
        tree = material.node_tree
        self.curves = {(fc.data_path, fc.array_index): fc
                       for fc in fcurves_of(tree.animation_data.action, _slot(tree))}
        link = image_node.inputs["Vector"].links[0]
        self.b = link.from_node
        self.a = self.b.inputs["Vector"].links[0].from_node
        self.centre = self.a.inputs["Vector"].links[0].from_node
        self.source = self.centre.inputs[0].links[0].from_node
        assert self.b.type == "MAPPING" and self.a.type == "MAPPING"
        assert self.b.vector_type == "POINT" and self.a.vector_type == "POINT"
        assert self.centre.type == "VECT_MATH" and self.centre.operation == "SUBTRACT"

    def value(self, socket, frame):
        path = socket.path_from_id("default_value")
        out = list(socket.default_value)
        for i in range(len(out)):
            fc = self.curves.get((path, i))
            if fc is not None:
                out[i] = fc.evaluate(frame)
        return out

    def mapping(self, node, v, frame):
        loc = self.value(node.inputs["Location"], frame)
        rot = self.value(node.inputs["Rotation"], frame)
        scale = self.value(node.inputs["Scale"], frame)
        p = rot_xyz([v[i] * scale[i] for i in range(3)], rot)
        return [p[i] + loc[i] for i in range(3)]

    def __call__(self, uv, frame):
        c = self.value(self.centre.inputs[1], frame)
        v = [uv[0] - c[0], uv[1] - c[1], 0.0 - c[2]]
        v = self.mapping(self.a, v, frame)
        v = self.mapping(self.b, v, frame)
        return v[0], v[1]


def _slot(tree):
    ad = tree.animation_data
    return getattr(ad, "action_slot", None)


# ---------------------------------------------------------------------------
# Scene


def textured_material(name, slots, source="unlinked"):
    """A material with one image texture per UV slot; slot 0 reads the
    default UV (unlinked vector), others a UV Map node; `source`
    'texcoord' makes slot 0 read Texture Coordinate.UV instead."""
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:
        mat.use_nodes = True
    tree = mat.node_tree
    images = {}
    for i, slot in enumerate(slots):
        img = tree.nodes.new("ShaderNodeTexImage")
        img.location = (-300, -300 * i)
        if slot == 0 and source == "texcoord":
            tc = tree.nodes.new("ShaderNodeTexCoord")
            tree.links.new(tc.outputs["UV"], img.inputs["Vector"])
        elif slot != 0:
            uvn = tree.nodes.new("ShaderNodeUVMap")
            uvn.uv_map = f"UV{slot}"
            tree.links.new(uvn.outputs["UV"], img.inputs["Vector"])
        images[slot] = img
    return mat, images


def plane_with(material, n_uv):
    bpy.ops.mesh.primitive_plane_add()
    ob = bpy.context.active_object
    for i in range(1, n_uv):
        ob.data.uv_layers.new(name=f"UV{i}")
    ob.data.materials.append(material)
    return ob


FRAMES = {"scroll_basic.btk": [0.0, 3.5, 10.0, 17.25, 29.0, 44.0, 59.5],
          "glow_maya.btk": [0.0, 5.5, 12.0, 20.0, 33.25, 39.0]}


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_node_chain_maps_uvs_like_the_game(name, api):
    path = samples(f"j3d/{name}")[0]
    info = ref.parse(path.read_bytes())
    calc = "basic" if info["calc_type"] == 0 else "maya"
    mats = {}
    if name == "scroll_basic.btk":
        # exact name with two UV slots, and a tolerant match ("lava" -> "LAVA.001")
        mats["water"] = textured_material("water", [0, 1])
        mats["lava"] = textured_material("LAVA.001", [0], source="texcoord")
        plane_with(mats["water"][0], 2)
        plane_with(mats["lava"][0], 1)
    else:
        mats["glow"] = textured_material("glow", [0])  # "rim" is missing on purpose
        plane_with(mats["glow"][0], 1)
    res = api.import_files([str(path)])
    fr = res.report.files[0]
    assert fr.ok, fr.error
    if name == "glow_maya.btk":
        assert fr.missing_materials == ["rim"]
        assert any("rim" in u for u in fr.unmatched)
    else:
        assert fr.missing_materials == []
    checked = expected = 0
    for entry in range(info["entries"]):
        mat_name = info["names"][entry]
        if mat_name not in mats:
            continue
        mat, images = mats[mat_name]
        slot = info["texmtx"][entry]
        chain = ChainEval(mat, images[slot])
        if slot:
            assert chain.source.type == "UVMAP" and chain.source.uv_map == f"UV{slot}"
        step = (1 << info["rotation_frac"]) * math.pi / 32768.0
        expected += len(FRAMES[name]) * len(UVS)
        for frame in FRAMES[name]:
            for uv in UVS:
                got = chain(uv, frame)
                smooth = game_uv(info, entry, frame, uv, truncate=False)
                game = game_uv(info, entry, frame, uv, truncate=True)
                # the chain is the game's matrix with the smooth angle ...
                assert max(abs(got[0] - smooth[0]), abs(got[1] - smooth[1])) <= TOL, (
                    f"{calc} {mat_name} UV{slot} frame {frame} uv {uv}: chain {got} vs game {smooth}")
                # ... and the game's own (truncated) angle differs by less
                # than one rotation step (the documented J3D exception): an
                # angle error d moves a point by at most d times its distance
                # from the rotation centre
                sx, sy, _th, tx, ty = game_srt(info, entry, frame)
                reach = max(abs(sx), abs(sy), 1.0) * (abs(uv[0]) + abs(uv[1]) + 2.0) + abs(tx) + abs(ty)
                assert max(abs(got[0] - game[0]), abs(got[1] - game[1])) <= TOL + step * reach
                checked += 1
    assert checked == expected > 0


def test_chain_is_exact_where_one_mapping_node_is_not(api):
    """The reason for the chain: with different S/T scales and a rotation
    (Basic), a single Mapping node (scale before rotation) cannot be right.
    The sample's lava entry has such frames; the chain is right there and
    the best single node is not."""
    path = samples("j3d/scroll_basic.btk")[0]
    info = ref.parse(path.read_bytes())
    mat, images = textured_material("lava", [0])
    plane_with(mat, 1)
    api.import_files([str(path)])
    entry = info["names"].index("lava")
    chain = ChainEval(mat, images[0])
    cx, cy = info["center"][entry][0], 1.0 - info["center"][entry][1]
    found = 0
    for frame in range(0, 60, 3):
        sx, sy, th, tx, ty = game_srt(info, entry, frame, truncate=False)
        if abs(sx - sy) < 1e-3 or abs(math.sin(th)) < 1e-3:
            continue
        found += 1
        uv = (0.9, 0.25)
        want = game_uv(info, entry, frame, uv, truncate=False)
        got = chain(uv, frame)
        assert max(abs(got[0] - want[0]), abs(got[1] - want[1])) <= TOL
        # one Mapping node: R(-theta) * (S * (uv - c)) + c + (Tx, -Ty)
        single = rot_xyz([sx * (uv[0] - cx), sy * (uv[1] - cy), 0.0], [0.0, 0.0, -th])
        single = (single[0] + cx + tx, single[1] + cy - ty)
        assert max(abs(single[0] - want[0]), abs(single[1] - want[1])) > 1e-3
    assert found > 3


def test_material_animation_is_assigned_and_scrolls(api):
    path = samples("j3d/scroll_basic.btk")[0]
    mat, images = textured_material("water", [0, 1])
    plane_with(mat, 2)
    res = api.import_files([str(path)])
    tree = mat.node_tree
    assert tree.animation_data.action == res[0]
    if "slots" in bpy.types.Action.bl_rna.properties:
        slot = tree.animation_data.action_slot
        assert slot is not None and slot.target_id_type == "NODETREE"
    b = images[0].inputs["Vector"].links[0].from_node
    scene = bpy.context.scene
    seen = set()
    for f in (0, 15, 30):
        scene.frame_set(f)
        seen.add(tuple(round(x, 5) for x in b.inputs["Location"].default_value))
    assert len(seen) == 3, "the mapping location does not change with the frame"


def test_reimport_reuses_the_chain(api):
    path = samples("j3d/scroll_basic.btk")[0]
    mat, images = textured_material("water", [0, 1])
    api.import_files([str(path)])
    n = len(mat.node_tree.nodes)
    api.import_files([str(path)])
    assert len(mat.node_tree.nodes) == n
    # and the image still reads through one chain
    b = images[0].inputs["Vector"].links[0].from_node
    assert b.type == "MAPPING" and b.inputs["Vector"].links[0].from_node.type == "MAPPING"


def test_material_without_image_gets_no_chain_and_the_entry_is_reported(api):
    """Issue 23: a slot that no image reads gets no (unconnected, empty-UV)
    chain: the entry is reported as finding nothing, and no action is made."""
    path = samples("j3d/glow_maya.btk")[0]
    mat = bpy.data.materials.new("glow")
    if mat.node_tree is None:   # before 5.0 a new material has no node tree
        mat.use_nodes = True
    before = len(mat.node_tree.nodes)
    res = api.import_files([str(path)])
    fr = res.report.files[0]
    assert any("no image texture reads it" in u for u in fr.unmatched), fr.unmatched
    assert len(mat.node_tree.nodes) == before
    assert mat.node_tree.animation_data is None or mat.node_tree.animation_data.action is None
    assert not fr.actions and not fr.imported


def test_chains_of_two_slots_are_laid_out_apart_and_left_unselected(api):
    """Issue 23: the slot-1 chain does not overlap the slot-0 chain (nor the
    user's nodes), and no imported node is left selected."""
    path = samples("j3d/scroll_basic.btk")[0]
    mat, images = textured_material("water", [0, 1])
    for img in images.values():     # both images in one spot: the worst case
        img.location = (-300, 0)
    plane_with(mat, 2)
    for n in mat.node_tree.nodes:
        n.select = False
    res = api.import_files([str(path)])
    assert res.report.files[0].ok
    tree = mat.node_tree
    ours = [n for n in tree.nodes if n.name.startswith("gameanim")]
    assert len(ours) >= 6, [n.name for n in tree.nodes]
    assert not [n.name for n in tree.nodes if n.select]
    by_slot = {}
    for n in ours:
        by_slot.setdefault(n.name.split(" ")[1], []).append(n)  # "gameanim tex<slot> ..."
    assert len(by_slot) == 2, sorted(by_slot)
    (s0, s1) = by_slot.values()

    def box(nodes):
        return (min(n.location.x for n in nodes), max(n.location.x for n in nodes) + 200,
                min(n.location.y for n in nodes) - 300, max(n.location.y for n in nodes))

    a, b = box(s0), box(s1)
    overlap_x = a[0] < b[1] and b[0] < a[1]
    overlap_y = a[2] < b[3] and b[2] < a[3]
    assert not (overlap_x and overlap_y), (a, b)
