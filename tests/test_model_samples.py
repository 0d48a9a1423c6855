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
