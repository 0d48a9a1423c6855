"""The option sections of the import and export panels (issue 32): every
section collapsible on every Blender line (layout.panel from 4.1; before
it a toggle with a disclosure triangle kept on the window manager), the
import sections closed at first, and the options of one format in that
format's section.  The panels are drawn into a recording layout, through
both branches on every line (the toggle branch is the one 3.4 - 4.0 use)."""
import bpy
import pytest

# The options that concern one format only, written out here from their
# meaning (docs/blender.md, Options), not read from the section table.
FORMAT_ONLY = {"frame_rule": "j3d", "texture_folder": "j3d", "mesh_objects": "j3d", "lighting": "j3d",
               "keyless_rule": "jba", "root_motion": "jba"}


ICONS = set(bpy.types.UILayout.bl_rna.functions["prop"].parameters["icon"].enum_items.keys())


class Layout:
    """Records what a draw method asks for; panel() opens the idnames in
    `opened` (layout.panel's own state)."""

    def __init__(self, log, opened=()):
        self.log, self.opened = log, opened

    def _child(self, **_kw):
        return Layout(self.log, self.opened)

    box = row = column = _child

    def label(self, text="", **kw):
        self.log.append(("label", text))

    def prop(self, data, name, **kw):
        if "icon" in kw:  # (a name Blender does not have is an error in a real panel)
            assert kw["icon"] in ICONS, kw["icon"]
        self.log.append(("prop", data, name, kw))

    def prop_search(self, data, name, *args, **kw):
        self.log.append(("prop", data, name, kw))

    def panel(self, idname, default_closed=False):
        self.log.append(("panel", idname, default_closed))
        return self._child(), (self._child() if idname in self.opened else None)


class Op:
    def __init__(self, layout, **values):
        self.layout = layout
        self.__dict__.update(values)


def drawn(cls, op_values=None, opened=(), panels=True, monkeypatch=None):
    from io_anim_gameanim import compat

    monkeypatch.setattr(compat, "HAS_LAYOUT_PANEL", panels)
    log = []
    cls.draw(Op(Layout(log, opened), **(op_values or {})), bpy.context)
    return log


def option_props(log):
    return [e[2] for e in log if e[0] == "prop" and isinstance(e[1], Op)]


def test_import_sections_start_closed_and_open_one_by_one(addon, monkeypatch):
    from io_anim_gameanim.operators import IMPORT_ANIM_OT_gameanim as Import
    from io_anim_gameanim.shared import options

    # 4.1+: one layout.panel per section, each closed by default
    log = drawn(Import, monkeypatch=monkeypatch)
    panels = [e for e in log if e[0] == "panel"]
    assert [p[1] for p in panels] == [f"GAMEANIM_import_{s[0]}" for s in options.SECTIONS]
    assert all(p[2] is True for p in panels) and option_props(log) == []
    log = drawn(Import, opened={"GAMEANIM_import_jba"}, monkeypatch=monkeypatch)
    assert option_props(log) == ["keyless_rule", "root_motion"]

    # before 4.1: a triangle toggle per section on the window manager, closed
    toggles = bpy.context.window_manager.gameanim_option_sections
    log = drawn(Import, panels=False, monkeypatch=monkeypatch)
    heads = [e for e in log if e[0] == "prop" and e[1] == toggles]
    assert [h[2] for h in heads] == [f"import_{s[0]}" for s in options.SECTIONS]
    assert all(h[3]["icon"] == "DISCLOSURE_TRI_RIGHT" and h[3]["emboss"] is False for h in heads)
    assert [h[3]["text"] for h in heads] == [s[1] for s in options.SECTIONS]
    assert option_props(log) == []
    toggles.import_j3d = True
    try:
        log = drawn(Import, panels=False, monkeypatch=monkeypatch)
        assert option_props(log) == ["frame_rule", "texture_folder", "mesh_objects", "lighting"]
        assert [h[3]["icon"] for h in log if h[0] == "prop" and h[1] == toggles and h[2] == "import_j3d"] == \
            ["DISCLOSURE_TRI_DOWN"]
    finally:
        toggles.import_j3d = False


def test_every_import_option_is_in_one_section_and_format_options_in_their_formats():
    from io_anim_gameanim.shared import options

    placed = [n for s in options.SECTIONS for n in options.section_fields(s[0])]
    assert sorted(placed) == sorted(s[0] for s in options.SPECS)
    for name, fmt in FORMAT_ONLY.items():
        assert name in options.section_fields(fmt), name
    general = {s[0] for s in options.SECTIONS} - set(FORMAT_ONLY.values())
    assert not {n for g in general for n in options.section_fields(g)} & set(FORMAT_ONLY)


def test_export_sections_collapse_before_4_1_too(addon, monkeypatch):
    from io_anim_gameanim import operators

    cls = operators.EXPORT_OPERATORS["bck"]
    values = {"fmt": "bck", "frame_range": "AUTO", "action": ""}
    toggles = bpy.context.window_manager.gameanim_option_sections
    log = drawn(cls, values, panels=False, monkeypatch=monkeypatch)
    heads = [e[2] for e in log if e[0] == "prop" and e[1] == toggles]
    assert heads == ["export_action", "export_encoding", "export_rig"]
    assert "rate" in option_props(log)  # (export sections start open, as in 4.1+)
    toggles.export_action = False
    try:
        log = drawn(cls, values, panels=False, monkeypatch=monkeypatch)
        assert "rate" not in option_props(log) and "compression" in option_props(log)
    finally:
        toggles.export_action = True


@pytest.mark.parametrize("section", ["target", "jba"])
def test_a_section_toggle_is_not_saved_with_the_operator(section, addon):
    """The toggles live on the window manager, not on the operator: a
    preset or Adjust Last Operation never sees them."""
    props = bpy.ops.import_anim.gameanim.get_rna_type().properties
    assert f"import_{section}" not in props and "show_" + section not in props


def test_the_model_file_tooltip_says_it_brings_a_model_from_another_folder(addon):
    """Issue 32: where a user looks first (the option's tooltip) says how a
    model and its animations in different folders are imported together
    (the import itself: bl_model_retarget.py)."""
    for op in (bpy.ops.import_anim.gameanim, bpy.ops.import_anim.gameanim_archive):
        desc = op.get_rna_type().properties["model_file"].description
        assert "different folders" in desc and "no armature active" in desc, desc
