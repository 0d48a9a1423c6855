"""samples/models/: one figure per model family with its animations
(tools/samples_models.py).  Each model reads as the figure it was written
as, and each animation drives that model's joints and moves them."""
import math

import pytest
from conftest import SAMPLES

import gameanim

MODELS = SAMPLES / "models"
FIGURE_JOINTS = ["hips", "spine", "chest", "neck", "head", "shoulder_L", "upperarm_L", "forearm_L", "hand_L",
                 "shoulder_R", "upperarm_R", "forearm_R", "hand_R", "thigh_L", "shin_L", "foot_L", "thigh_R",
                 "shin_R", "foot_R"]
FIGURE_PARENTS = [-1, 0, 1, 2, 3, 2, 5, 6, 7, 2, 9, 10, 11, 0, 13, 14, 0, 16, 17]

CASES = [
    ("j3d/figure_maya.bmd", "bmd", "maya", ["j3d/figure_maya_walk.bck", "j3d/figure_maya_wave.bck"]),
    ("j3d/figure_basic.bdl", "bdl", "basic", ["j3d/figure_basic_walk.bck"]),
    ("j3d/figure_skinned.bdl", "bdl", "basic", ["j3d/figure_skinned_walk.bck"]),
    ("sm64ds/figure.bmd", "sm64ds_bmd", None, ["sm64ds/figure_walk.bca"]),
    ("bk/figure.bin", "bk_model", None, ["bk/figure_walk.bin"]),
]


def positions(model, anim=None, frame=0.0):
    """Each joint's model-space position (Banjo-Kazooie: its pivot moved by
    its matrix, which moves model-space points)."""
    w = model.world_matrices(anim, frame)
    out = []
    for j, o in enumerate(range(0, len(w), 16)):
        p = model.bones[j].translation if model.format == "bk_model" else (0.0, 0.0, 0.0)
        out.append(tuple(sum(w[o + 4 * r + c] * p[c] for c in range(3)) + w[o + 4 * r + 3] for r in range(3)))
    return out


@pytest.mark.parametrize("model_rel, fmt, calc, anims", CASES, ids=[c[0] for c in CASES])
def test_model_sample_is_the_figure(model_rel, fmt, calc, anims):
    model = gameanim.load_model(MODELS / model_rel)
    assert model.format == fmt
    assert model.calc == calc
    assert [b.parent for b in model.bones] == FIGURE_PARENTS
    if fmt == "bk_model":
        assert [b.bone_id for b in model.bones] == list(range(1, 20))
    else:
        assert [b.name for b in model.bones] == FIGURE_JOINTS
    # it stands like a figure: the head above the hips above the feet, the
    # hands out to the sides (Y up)
    p = positions(model)
    j = {name: i for i, name in enumerate(FIGURE_JOINTS)}
    assert p[j["head"]][1] > p[j["hips"]][1] > p[j["foot_L"]][1]
    assert p[j["hand_L"]][0] > p[j["chest"]][0] > p[j["hand_R"]][0]


def test_maya_sample_has_a_scaled_chest_whose_children_compensate():
    model = gameanim.load_model(MODELS / "j3d" / "figure_maya.bmd")
    chest = model.bones[2]
    assert chest.scale[0] != chest.scale[2] and chest.scale[0] != 1.0
    kids = [b for b in model.bones if b.parent == 2]
    assert kids and all(b.scale_compensate for b in kids)


def test_skinned_sample_is_dressed_on_its_joints():
    """figure_skinned.bdl: an envelope-skinned torso between the hips and the
    neck, and a rigid box on each limb joint and the head that comes out of
    its joint's space onto the joint (the box spans the joint and its child
    at rest), textured with its two CMPR textures."""
    model = gameanim.load_model(MODELS / "j3d" / "figure_skinned.bdl")
    p = positions(model)
    j = {name: i for i, name in enumerate(FIGURE_JOINTS)}
    torso, *boxes = model.meshes
    assert torso.matrix_type == 3 and torso.influences == 2
    ys = torso.positions[1::3]
    assert min(ys) < p[j["hips"]][1] and max(ys) == pytest.approx(p[j["neck"]][1])
    assert set(torso.joints) <= {j["hips"], j["spine"], j["chest"], 0}
    limbs = ["upperarm_L", "forearm_L", "upperarm_R", "forearm_R", "thigh_L", "shin_L", "thigh_R", "shin_R", "head"]
    for box, name in zip(boxes, limbs):
        assert box.influences == 1 and set(box.joints) == {j[name]}
        child = [k for k, parent in enumerate(FIGURE_PARENTS) if parent == j[name]]
        ends = [p[j[name]]] + ([p[child[0]]] if child else [])
        for end in ends:  # the joint (and its child) lie inside the box, 3 units from its sides
            for axis in range(3):
                coords = box.positions[axis::3]
                assert min(coords) < end[axis] < max(coords), (name, axis)
        assert len(box.triangles) == 3 * 12 and box.normals is not None and len(box.uvs) == 1
    assert [t.format for t in model.textures] == ["CMPR", "CMPR"]
    assert all(len(set(t.pixels[i:i + 4] for i in range(0, len(t.pixels), 4))) == 2 for t in model.textures)
    # one material instance per shape (a J3D material draws one shape), named after its part:
    # the skin texture on the head and forearms, the cloth elsewhere
    parts = ["torso"] + limbs
    assert [m.name for m in model.materials] == parts
    assert [model.meshes[i].material for i in range(len(parts))] == list(range(len(parts)))
    skin = {"head", "forearm_L", "forearm_R"}
    assert [m.stage_textures for m in model.materials] == [(1,) if p in skin else (0,) for p in parts]


def test_model_samples_pass_the_game_check():
    """Every J3D model sample (all of samples/models/j3d, so that a new one is
    checked too: the skeleton-only figures, the skinned figure, its edited
    copy and the TEV showcase) is laid out as the game's loader needs it:
    gameanim.check_model finds nothing."""
    paths = sorted(p for p in (MODELS / "j3d").iterdir() if p.suffix in (".bmd", ".bdl"))
    assert {"figure_maya.bmd", "figure_basic.bdl", "figure_skinned.bdl", "figure_skinned-edited.bdl",
            "tev_showcase.bmd"} <= {p.name for p in paths}
    problems = {p.name: gameanim.check_model(p.read_bytes()) for p in paths}
    assert {name: found for name, found in problems.items() if found} == {}


@pytest.mark.parametrize("name", ["figure_maya.bmd", "figure_basic.bdl"])
def test_skeleton_samples_have_every_chunk_and_no_geometry(name):
    """The Maya and Basic figures are skeletons without a mesh, written with
    every chunk of a Nintendo file in the loader's order (j3d_writer.md 5.4:
    INF1, VTX1, EVP1, DRW1, JNT1, SHP1, MAT3, MDL3 on a BDL, TEX1), the
    geometry chunks empty."""
    model = gameanim.load_model(MODELS / "j3d" / name)
    order = ["INF1", "VTX1", "EVP1", "DRW1", "JNT1", "SHP1", "MAT3"] + (["MDL3"] if name.endswith(".bdl") else [])
    assert [tag for tag, _ in model.chunks] == order + ["TEX1"]
    assert (len(model.meshes), len(model.materials), len(model.textures)) == (0, 0, 0)


@pytest.mark.parametrize("model_rel, fmt, calc, anims", CASES, ids=[c[0] for c in CASES])
def test_sample_animations_move_their_model(model_rel, fmt, calc, anims):
    model = gameanim.load_model(MODELS / model_rel)
    for rel in anims:
        anim = gameanim.load(MODELS / rel)
        targets = {t.target for t in anim.tracks}
        if fmt == "bk_model":
            assert targets <= {b.bone_id for b in model.bones}
        else:
            assert targets == set(range(len(model.bones)))
        start = float(anim.start_frame or 0.0)
        still = positions(model, anim, start)
        mid = positions(model, anim, start + anim.frame_count / 4)
        travel = max(math.dist(a, b) for a, b in zip(still, mid))
        assert travel > 2.0, (rel, travel)


def test_skinned_sample_faces_point_outward():
    """Every triangle of the skinned figure, wound as Blender takes it
    (counter-clockwise seen from its front), faces the way its vertices'
    normals point: the sample's limbs are not inside out."""
    model = gameanim.load_model(str(SAMPLES / "models" / "j3d" / "figure_skinned.bdl"))
    assert model.meshes
    for k, mesh in enumerate(model.meshes):
        p, n, t = mesh.positions, mesh.normals, mesh.triangles
        assert len(t) > 0
        for i in range(0, len(t), 3):
            a, b, c = (3 * t[i + j] for j in range(3))
            u = [p[b + j] - p[a + j] for j in range(3)]
            v = [p[c + j] - p[a + j] for j in range(3)]
            face = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
            normal = [n[a + j] + n[b + j] + n[c + j] for j in range(3)]
            assert sum(face[j] * normal[j] for j in range(3)) > 0, (k, i // 3)
