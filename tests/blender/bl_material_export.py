"""Exports read the nodes of the materials the model import builds: colours
keyed by hand on the TEV group node's inputs (registers C0-C2 and konst
colours K0-K3, in bytes / 255) or on the inputs material colour 0 feeds
are what a new BRK or BPK holds (shared/kind_mapping.group_input_curves)."""
from pathlib import Path

import bpy
import pytest

from io_anim_gameanim.importing import materials_from_model as mfm

ROOT = Path(__file__).resolve().parents[2]
SHOWCASE = ROOT / "samples" / "models" / "j3d" / "tev_showcase.bmd"


def _key(node, socket, frame, value):
    sock = node.inputs[socket]
    sock.default_value = value
    sock.keyframe_insert("default_value", frame=frame)


def test_brk_export_reads_keys_on_the_group_inputs(api, ga, tmp_path):
    api.import_files([str(SHOWCASE)])
    mat = bpy.data.materials["konst"]
    group = mat.node_tree.nodes[mfm.GROUP_NODE]
    _key(group, "K0", 0, (1.0, 0.5, 0.0))
    _key(group, "K0", 10, (0.2, 0.4, 0.6))
    _key(group, "K0 Alpha", 0, 1.0)
    _key(group, "C0", 0, (-0.5, 2.0, 0.0))
    _key(group, "C0", 10, (0.0, 1.0, 0.25))
    out = tmp_path / "keyed.brk"
    result = api.export_action(str(out), format="brk", materials=[mat])
    assert result.ok, result.error
    anim = ga.load(str(out))
    entries = anim.entries
    by = {(e["kind"], e["color_id"]): i for i, e in enumerate(entries)}
    assert set(by) == {("register", 0), ("konst", 0)}
    assert all(e["material"] == "konst" for e in entries)

    def track(kind, axis):
        return next(t for t in anim.tracks if t.target == by[(kind, 0)] and t.axis == axis)

    # values in the file's units: the keyed input * 255
    assert [round(v) for v in track("konst", 0).values[:2]] == [255, 51]
    assert [round(v) for v in track("konst", 2).values[:2]] == [0, 153]
    assert [round(v) for v in track("konst", 3).values[:1]] == [255]
    assert [round(v) for v in track("register", 0).values[:2]] == [-128, 0]
    assert [round(v) for v in track("register", 1).values[:2]] == [510, 255]
    assert list(track("register", 0).times[:2]) == pytest.approx([0.0, 10.0])


def test_bpk_export_reads_the_material_colour_on_its_nodes(api, ga, tmp_path):
    """The toon material lights channel 0 in nodes: material colour 0 is
    the lit group's Material input; keyed there, a new BPK holds it."""
    api.import_files([str(SHOWCASE)])
    mat = bpy.data.materials["toon"]
    lit = mat.node_tree.nodes[f"{mfm.LIT_NODE} 0"]
    _key(lit, "Material", 0, (1.0, 0.0, 0.2))
    _key(lit, "Material", 5, (0.0, 1.0, 0.4))
    out = tmp_path / "keyed.bpk"
    assert api.export_action(str(out), format="bpk", materials=[mat]).ok
    anim = ga.load(str(out))
    assert [e["material"] for e in anim.entries] == ["toon"]
    red = next(t for t in anim.tracks if t.axis == 0)
    blue = next(t for t in anim.tracks if t.axis == 2)
    assert [round(v) for v in red.values[:2]] == [255, 0]
    assert [round(v) for v in blue.values[:2]] == [51, 102]
