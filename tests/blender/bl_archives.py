"""Import from RARC archives and export back into them (docs/blender.md,
Archives).  The archives are written by tools/make_archives.py (the
project's own writer, independent of the C reader) from the samples: the
figure model of samples/models/ with its animations, a BTK of the same
base name, a member that is not an animation, a nested archive, an empty
folder and, while the add-on does not map every J3D kind, a member of a
kind it does not map yet.  Expected members, groups and pairings are
written out here from how the archive was built; "other members
untouched" is checked against the writer's own manifest."""
import math
import sys

import bpy
import pytest
from blhelpers import ROOT, samples
from bl_models import built_rig, pose_errors
from exphelpers import btk_materials, fcurve, move_key, same_track, track_key

sys.path.insert(0, str(ROOT / "tools"))
import make_archives as mk  # noqa: E402  (the project's archive writer)

FIGURE = "models/j3d/figure_maya.bmd"
WALK, WAVE = "models/j3d/figure_maya_walk.bck", "models/j3d/figure_maya_wave.bck"
STRAY = "j3d/walk_type0.bck"  # 3 joints: fits no model of the archive
NOT_ANIM = b"neither an animation nor a model. " * 4


def raw(sample):
    return samples(sample)[0].read_bytes()


def unmapped_kind():
    """(member name, bytes, message) of a J3D kind the add-on does not map
    yet, or None once it maps them all."""
    import gameanim
    from io_anim_gameanim.shared import formats

    for p in samples("j3d/*.brk", "j3d/*.bpk", "j3d/*.btp", "j3d/*.bva"):
        why = formats.unsupported_message(gameanim.detect(str(p))[0])
        if why:
            return f"{p.suffix[1:]}/wait{p.suffix}", p.read_bytes(), why
    return None


def figure_tree():
    extra = unmapped_kind()
    items = [
        mk.File("figure_maya.bmd", raw(FIGURE)),
        mk.Dir("bck", [
            mk.File("Wait.bck", raw(WALK)),
            mk.File("wave.bck", raw(WAVE), compress="yaz0"),
            mk.File("stray.bck", raw(STRAY)),
        ]),
        mk.Dir("btk", [mk.File("wait.btk", raw("j3d/scroll_basic.btk"))]),
        mk.Dir("empty", []),
        mk.File("sound.bin", NOT_ANIM),
        mk.File("inner.arc", mk.build(mk.Dir("inner", [mk.File("a.bck", raw(STRAY))]))),
    ]
    if extra is not None:
        items.append(mk.File(extra[0], extra[1]))
    return mk.Dir("figure", items)


def yaz0_literal(data):
    """Yaz0 of literal bytes only (from the notes: 'Yaz0', the u32 size,
    8 zero bytes, then per 8 bytes a flag byte of 0xFF): a valid stream
    that gameanim's own encoder, which finds matches, never writes."""
    out = bytearray(b"Yaz0" + len(data).to_bytes(4, "big") + bytes(8))
    for i in range(0, len(data), 8):
        out += b"\xff" + data[i:i + 8]
    return bytes(out)


@pytest.fixture
def archive(tmp_path):
    """A Yaz0-wrapped .szs (a wrapper gameanim would not write itself, so
    a rewrite shows); returns (path, manifest)."""
    data, manifest = mk.build_with_manifest(figure_tree())
    path = tmp_path / "figure.szs"
    path.write_bytes(yaz0_literal(data))
    return path, manifest


def by_member(report, path):
    """{member: FileReport}; a member's report is labelled ARCHIVE/MEMBER."""
    return {f.path[len(str(path)) + 1:] if f.path.startswith(str(path) + "/") else f.path: f for f in report.files}


# ---------------------------------------------------------------------------
# The listing the dialog shows


def test_listing_groups_pairs_and_greys(archive):
    from io_anim_gameanim.shared import archive_members as am

    path, _m = archive
    listing = am.Listing(str(path))
    assert [(m.name, m.joints) for m in listing.models] == [("figure_maya.bmd", 19)]
    groups = {g.key: g for g in listing.groups}
    assert list(groups) == ["wait", "wave", "stray"]
    # Wait.bck and btk/wait.btk are one set, whatever the folder and case
    assert [e.name for e in groups["wait"].members] == ["bck/Wait.bck", "btk/wait.btk"]
    assert groups["wait"].models == ["figure_maya.bmd"] and groups["wave"].models == ["figure_maya.bmd"]
    assert groups["stray"].models == [] and groups["stray"].misfits == ["bck/stray.bck (3 targets)"]
    grey = {e.name: e for e in listing.unsupported()}
    assert "magic" in grey["sound.bin"].reason and grey["sound.bin"].kind == am.OTHER
    assert "nested archive" in grey["inner.arc"].reason
    extra = unmapped_kind()
    if extra is not None:
        assert grey[extra[0]].kind == am.UNSUPPORTED and grey[extra[0]].reason == extra[2]
    assert set(grey) == {"sound.bin", "inner.arc"} | ({extra[0]} if extra else set())


def test_dialog_rows_filter_all_none_and_ticked(archive, addon):
    from io_anim_gameanim import archive_dialog as dlg
    from io_anim_gameanim.shared import archive_members as am

    path, _m = archive
    st = dlg.state(bpy.context)
    dlg.fill_rows(st.rows, [am.Listing(str(path))])
    rows = {r.label: r for r in st.rows}
    assert rows["figure_maya.bmd"].kind == am.MODEL and rows["figure_maya.bmd"].selected
    assert rows["Wait"].members.split("\n") == ["bck/Wait.bck", "btk/wait.btk"]
    assert "-> figure_maya.bmd" in rows["Wait"].info
    assert not rows["sound.bin"].importable and not rows["sound.bin"].selected
    assert rows["stray"].importable and not rows["stray"].selected  # (no model fits it: unticked at first)
    # None on the rows the filter shows, then All on another filter
    st.filter_text = "wa"
    bpy.ops.import_anim.gameanim_archive_select(select=False)
    picked = {r.label: r.selected for r in st.rows if r.importable}
    assert picked == {"figure_maya.bmd": True, "Wait": False, "wave": False, "stray": False}
    st.filter_text = "WAVE"
    bpy.ops.import_anim.gameanim_archive_select(select=True)
    st.filter_text = "sound"  # (All never ticks a greyed row)
    bpy.ops.import_anim.gameanim_archive_select(select=True)
    assert not rows["sound.bin"].selected
    st.filter_text = ""
    assert dlg.ticked(st.rows) == [(str(path), ["figure_maya.bmd", "bck/wave.bck"])]
    # OK in the dialog imports the ticked rows
    assert bpy.ops.import_anim.gameanim_archive(filepath=str(path), from_dialog=True) == {"FINISHED"}
    assert sorted(a.name for a in bpy.data.actions) == ["wave.bck"]


class _DialogContext:
    """Stands in for the context of a window: records the dialog asked for
    (headless Blender runs an operator's execute instead of its invoke)."""

    def __init__(self):
        self.window_manager = self
        self.gameanim_archive = bpy.context.window_manager.gameanim_archive
        self.dialogs = []

    def invoke_props_dialog(self, op, width=300):
        self.dialogs.append(op)
        return {"RUNNING_MODAL"}


class _Op:
    def __init__(self, path):
        self.filepath, self.more_archives, self.from_dialog, self.reports = str(path), [], False, []

    def report(self, kind, text):
        self.reports.append((kind, text))


def test_dialog_invoke_lists_the_archive(archive, addon):
    from io_anim_gameanim.archive_dialog import IMPORT_ANIM_OT_gameanim_archive as Dialog

    path, _m = archive
    op, ctx = _Op(path), _DialogContext()
    op.archives = lambda: Dialog.archives(op)
    assert Dialog.invoke(op, ctx, None) == {"RUNNING_MODAL"}
    assert ctx.dialogs == [op] and op.from_dialog
    assert [r.label for r in ctx.gameanim_archive.rows if r.selected] == ["figure_maya.bmd", "Wait", "wave"]
    bad = _Op(path.parent / "missing.arc")
    bad.archives = lambda: Dialog.archives(bad)
    assert Dialog.invoke(bad, _DialogContext(), None) == {"CANCELLED"}
    assert bad.reports and "missing.arc" in bad.reports[0][1]


class _Layout:
    """Records the UI calls a draw makes (headless Blender draws nothing)."""

    def __init__(self, calls):
        self.calls = calls

    def __getattr__(self, name):
        def call(*args, **kw):
            self.calls.append((name, args, kw))
            return _Layout(self.calls)
        return call


def test_dialog_draws_the_filter_buttons_and_rows(archive, addon):
    """Issue 32: the rows are plain layout rows (no UIList, whose rows offer
    "Double click to rename"); a greyed row says in a few plain words why,
    and its question mark's tooltip is the full message; animations that
    go to materials say so, not "the active or a new armature"."""
    from io_anim_gameanim import archive_dialog as dlg
    from io_anim_gameanim.shared import archive_members as am

    path, _m = archive
    st = dlg.state(bpy.context)
    dlg.fill_rows(st.rows, [am.Listing(str(path))])
    op, calls = _Op(path), []
    op.layout = _Layout(calls)
    dlg.IMPORT_ANIM_OT_gameanim_archive.draw(op, bpy.context)
    names = [(c[0], c[2].get("text")) for c in calls]
    assert ("operator", "All") in names and ("operator", "None") in names
    assert not [c for c in calls if c[0] == "template_list"]
    labels = [c[2].get("text") for c in calls if c[0] == "label"]
    assert [r.label for r in st.rows] == [lb for lb in labels if lb in {r.label for r in st.rows}]
    rows = {r.label: r for r in st.rows}
    grey = rows["sound.bin"]
    assert grey.info == "not an animation or a model" and "magic" in grey.detail
    assert rows["inner.arc"].info == "an archive inside the archive: extract it first"
    assert "gameanim extract" in rows["inner.arc"].detail
    why = [c for c in calls if c[0] == "operator" and c[1] and c[1][0] == "import_anim.gameanim_archive_why"]
    assert len(why) == 2  # (the two greyed rows)
    index = [i for i, r in enumerate(st.rows) if r.label == "sound.bin"][0]
    props = type("P", (), {"index": index})()
    assert dlg.GAMEANIM_OT_archive_why.description(bpy.context, props) == grey.detail
    assert bpy.ops.import_anim.gameanim_archive_why(index=index) == {"FINISHED"}
    # where each member of a set goes, in words
    assert rows["Wait"].info == "bck/Wait.bck -> figure_maya.bmd; btk/wait.btk -> the model's materials"
    assert rows["stray"].info == "bck/stray.bck -> no model in the archive fits it (3 targets)"
    assert "armature" not in rows["Wait"].info.split(";")[1]


def test_dialog_turns_pages_of_a_long_list(tmp_path, addon):
    from io_anim_gameanim import archive_dialog as dlg
    from io_anim_gameanim.shared import archive_members as am

    members = [mk.File(f"a{i:02d}.bck", raw(STRAY)) for i in range(45)]
    path = tmp_path / "long.arc"
    path.write_bytes(mk.build(mk.Dir("long", members)))
    st = dlg.state(bpy.context)
    dlg.fill_rows(st.rows, [am.Listing(str(path))])
    st.page = 0
    rows, page, pages = dlg.page_of(st)
    assert (len(rows), page, pages) == (dlg.PAGE_ROWS, 0, 3)
    bpy.ops.import_anim.gameanim_archive_page(step=1)
    bpy.ops.import_anim.gameanim_archive_page(step=1)
    bpy.ops.import_anim.gameanim_archive_page(step=1)  # (stays on the last page)
    rows, page, _n = dlg.page_of(st)
    assert page == 2 and [st.rows[i].label for i in rows] == [f"a{i:02d}" for i in range(40, 45)]
    st.filter_text = "a1"  # (fewer rows: the last page there is, the first)
    rows, page, pages = dlg.page_of(st)
    assert (page, pages) == (0, 1) and [st.rows[i].label for i in rows] == [f"a{i}" for i in range(10, 20)]
    calls = []
    op = _Op(path)
    op.layout = _Layout(calls)
    dlg.IMPORT_ANIM_OT_gameanim_archive.draw(op, bpy.context)
    st.filter_text = ""
    calls.clear()
    dlg.IMPORT_ANIM_OT_gameanim_archive.draw(op, bpy.context)
    assert ("label", "Rows 41-45 of 45") in [(c[0], c[2].get("text")) for c in calls]  # (the page it was on)


def test_file_import_sends_archives_to_the_dialog(tmp_path, addon):
    """File > Import with an archive and a loose file picked: the loose
    file imports at once, on its own (its 3 joints fit no model of the
    archive, and it is not matched against them), the archive goes to the
    member dialog (which headless Blender runs without showing: every
    member)."""
    data = mk.build(mk.Dir("fig", [mk.File("figure_maya.bmd", raw(FIGURE)),
                                   mk.Dir("bck", [mk.File("wave.bck", raw(WAVE))])]))
    (tmp_path / "fig.arc").write_bytes(data)
    (tmp_path / "walk.bck").write_bytes(raw(STRAY))
    assert bpy.ops.import_anim.gameanim(directory=str(tmp_path), files=[{"name": "fig.arc"}, {"name": "walk.bck"}],
                                        pick_members=True) == {"FINISHED"}
    owners = {a.name: [o.name for o in bpy.data.objects if o.animation_data and o.animation_data.action == a]
              for a in bpy.data.actions}
    assert owners == {"walk.bck": ["walk_rig"], "wave.bck": ["figure_maya"]}


def test_dialog_with_nothing_ticked_imports_nothing(archive, addon):
    from io_anim_gameanim import archive_dialog as dlg
    from io_anim_gameanim.shared import archive_members as am

    path, _m = archive
    st = dlg.state(bpy.context)
    dlg.fill_rows(st.rows, [am.Listing(str(path))])
    bpy.ops.import_anim.gameanim_archive_select(select=False)
    with pytest.raises(RuntimeError, match="Nothing ticked"):
        bpy.ops.import_anim.gameanim_archive(filepath=str(path), from_dialog=True)
    assert len(bpy.data.actions) == 0 and not [o for o in bpy.data.objects if o.type == "ARMATURE"]


# ---------------------------------------------------------------------------
# Import


def test_members_chosen_by_script_and_the_models_rig(archive, api, ga):
    """Two members: the model builds its armature, the animation plays on
    it as the game poses it (Model.world_matrices), as from loose files."""
    path, _m = archive
    res = api.import_archive(str(path), members=["bck/wave.bck", "figure_maya.bmd"])
    assert [f.ok for f in res.report.files] == [True, True], [f.error for f in res.report.files]
    assert [a.name for a in res] == ["wave.bck"]
    obj = built_rig()
    assert obj.name == "figure_maya" and obj.animation_data.action == res[0]
    assert res[0]["gameanim_archive"] == str(path) and res[0]["gameanim_archive_member"] == "bck/wave.bck"
    model, anim = ga.load_model(raw(FIGURE)), ga.load(raw(WAVE))
    for f, i, err, _size, bound in pose_errors(obj, model, anim, [0.0, 1.0, 2.5, 6.0]):
        assert err <= bound, f"joint {i} at frame {f}: off by {err}"


def test_empty_member_list_means_all(archive, api):
    path, _m = archive
    res = api.import_archive(str(path), members=[])
    files = by_member(res.report, path)
    extra = unmapped_kind()
    expected = {"figure_maya.bmd", "bck/Wait.bck", "bck/wave.bck", "bck/stray.bck", "btk/wait.btk"}
    assert set(files) == expected | ({extra[0]} if extra else set())  # (not sound.bin, inner.arc)
    assert files["figure_maya.bmd"].built
    assert files["bck/Wait.bck"].owners == ["figure_maya"] and files["bck/wave.bck"].owners == ["figure_maya"]
    assert not files["bck/stray.bck"].ok and "no model" in files["bck/stray.bck"].error
    assert files["btk/wait.btk"].ok and not files["btk/wait.btk"].imported  # (no material of its name here)
    if extra:
        assert files[extra[0]].error == extra[2]
    assert sorted(a.name for a in res) == ["Wait.bck", "wave.bck"]


def test_unknown_member_and_not_an_archive_are_reported(archive, api, tmp_path):
    path, _m = archive
    res = api.import_archive(str(path), members=["bck/nope.bck"])
    (f,) = res.report.files
    assert not f.ok and "bck/nope.bck" in f.error and "bck/wave.bck" in f.error
    loose = tmp_path / "walk.szs"
    loose.write_bytes(raw("j3d/walk_cycle.yaz0.bck"))
    res = api.import_archive(str(loose))
    assert not res.report.files[0].ok and "rarc" in res.report.files[0].error


def test_szs_is_decided_by_content(api, tmp_path, archive):
    """.szs names archives and single Yaz0-wrapped animations alike."""
    from io_anim_gameanim import operators

    assert "*.arc" in operators.FILTER_GLOB.split(";") and "*.szs" in operators.FILTER_GLOB.split(";")
    loose = tmp_path / "walk.szs"
    loose.write_bytes(raw("j3d/walk_cycle.yaz0.bck"))
    (f,) = api.import_files([str(loose)]).report.files
    assert f.format == "bck" and f.compression == "yaz0" and f.ok
    files = by_member(api.import_files([str(archive[0])]).report, archive[0])
    assert "bck/wave.bck" in files and "figure_maya.bmd" in files  # (the archive: all its members)


def test_import_operator_takes_an_archive(archive, addon):
    path, _m = archive
    assert bpy.ops.import_anim.gameanim_archive(filepath=str(path), members=[{"name": "bck/Wait.bck"}]) \
        == {"FINISHED"}
    assert [a.name for a in bpy.data.actions] == ["Wait.bck"]
    # without the dialog (a script), the file import operator reads every member (and reports those that fail)
    bpy.ops.wm.read_homefile(use_empty=True, use_factory_startup=True)
    with pytest.raises(RuntimeError, match="stray.bck: FAILED: no model among the files fits"):
        bpy.ops.import_anim.gameanim(filepath=str(path))
    assert sorted(a.name for a in bpy.data.actions) == ["Wait.bck", "wave.bck"]


# ---------------------------------------------------------------------------
# Export back into the archive


def imported_wave(api, path):
    res = api.import_archive(str(path), members=["figure_maya.bmd", "bck/wave.bck"])
    return res[0]


def test_untouched_export_leaves_the_archive_byte_identical(archive, api):
    path, _m = archive
    before = path.read_bytes()
    action = imported_wave(api, path)
    result = api.export_action(str(path), action)
    assert result.member == "bck/wave.bck" and result.original
    assert any("not rewritten" in n for n in result.notes)
    assert path.read_bytes() == before


def test_edited_export_replaces_only_the_member(archive, api, ga, tmp_path):
    path, manifest = archive
    order = ga.open_archive(str(path)).namelist()
    action = imported_wave(api, path)
    bone = next(pb.name for pb in built_rig().pose.bones if pb.bone.get("gameanim_index") == 1)
    fc = fcurve(action, f'pose.bones["{bone}"].rotation_euler', 2)
    move_key(fc, 1, 0.125)
    result = api.export_action(str(path), action)
    assert result.ok and result.member == "bck/wave.bck"
    arc = ga.open_archive(str(path))
    assert arc.compression == "yaz0" and arc.namelist() == order and sorted(order) == sorted(manifest)
    for name, m in manifest.items():
        if name != "bck/wave.bck":
            assert arc.read(name) == m["data"], name  # (the writer's bytes, untouched)
    stored = arc.read("bck/wave.bck")
    assert stored[:4] == b"Yaz0"  # (the member's own compression is kept: its attribute bit says Yaz0)
    info = {i.name: i for i in arc.infolist()}
    assert info["bck/wave.bck"].attributes == manifest["bck/wave.bck"]["attr"]
    before, after = ga.load(raw(WAVE)), ga.load(stored)
    changed = [track_key(t) for t, u in zip(before.tracks, after.tracks) if not same_track(t, u)]
    assert changed == [(1, "rotation", 2)]
    t0, t1 = before.find(1, "rotation", 2), after.find(1, "rotation", 2)
    step = math.pi / 32768 * 2 ** (before.rotation_frac or 0)
    assert t1.values[1] == pytest.approx(t0.values[1] + 0.125, abs=step)
    # the same edit to a loose file still works, and gives the member's bytes
    loose = tmp_path / "wave.bck"
    api.export_action(str(loose), action)
    assert loose.read_bytes() == stored


def test_operator_exports_into_the_member(archive, api, ga):
    path, manifest = archive
    action = imported_wave(api, path)
    move_key(fcurve(action, _first_path(action), 0), 0, 0.0625)
    assert bpy.ops.export_anim.gameanim_bck(filepath=str(path), action=action.name) == {"FINISHED"}
    arc = ga.open_archive(str(path))
    assert arc.read("bck/wave.bck") != manifest["bck/wave.bck"]["data"]
    assert arc.read("bck/Wait.bck") == manifest["bck/Wait.bck"]["data"]


def _first_path(action):
    from blhelpers import fcurves_of

    return fcurves_of(action)[0].data_path


@pytest.mark.parametrize("how", ["encode", "compression", "member", "no member", "write"])
def test_failed_export_leaves_the_archive(archive, api, how, monkeypatch):
    from io_anim_gameanim.api import ExportError

    path, _m = archive
    before = path.read_bytes()
    action = imported_wave(api, path)
    kw = {}
    if how == "encode":
        bone = next(pb.name for pb in built_rig().pose.bones if pb.bone.get("gameanim_index") == 4)
        move_key(fcurve(action, f'pose.bones["{bone}"].rotation_euler', 1), 1, 1e6)
        match = "rotation"
    elif how == "compression":
        kw["compression"] = "NONE"
        move_key(fcurve(action, _first_path(action), 0), 0, 0.5)
        match = "yaz0-compressed"
    elif how == "member":
        kw["archive_member"] = "bck/nope.bck"
        match = "no member 'bck/nope.bck'"
    elif how == "no member":
        del action["gameanim_archive_member"]  # (an action that did not come from this archive)
        match = "name the member"
    else:  # the rename at the end of the atomic write fails
        import os

        move_key(fcurve(action, _first_path(action), 0), 0, 0.5)

        def boom(*a, **k):
            raise OSError("forced failure in os.replace")

        monkeypatch.setattr(os, "replace", boom)
        match = "could not write archive .*figure.szs.*forced failure"
    with pytest.raises(ExportError, match=match):
        api.export_action(str(path), action, **kw)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["figure.szs"]  # (no temporary file left)


def test_into_another_member_and_crar(tmp_path, api, ga):
    """CRAR (little-endian) archives too; archive_member names the member
    an action goes into."""
    data, manifest = mk.build_with_manifest(figure_tree(), little=True)
    path = tmp_path / "figure_crar.arc"
    path.write_bytes(data)
    action = imported_wave(api, path)
    result = api.export_action(str(path), action, archive_member="bck/Wait.bck")
    assert result.member == "bck/Wait.bck"
    arc = ga.open_archive(str(path))
    assert arc.format == "CRAR"
    # compressed as the member it replaces is stored (not at all): the wave's file, unwrapped
    assert arc.read("bck/Wait.bck") == raw(WAVE)
    assert arc.read("bck/wave.bck") == manifest["bck/wave.bck"]["data"]


def test_folder_import_takes_archives(tmp_path, api):
    data = mk.build(mk.Dir("fig", [mk.File("figure_maya.bmd", raw(FIGURE)),
                                   mk.Dir("bck", [mk.File("wave.bck", raw(WAVE))])]))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "fig.arc").write_bytes(data)
    res = api.import_folder(str(tmp_path))
    assert [a.name for a in res] == ["wave.bck"] and built_rig().name == "figure_maya"


def test_btk_goes_back_into_its_member(archive, api, ga):
    """A texture animation from an archive: onto the materials, and the
    BTK export of those materials goes back into its member."""
    path, manifest = archive
    before = path.read_bytes()
    mats = btk_materials(samples("j3d/scroll_basic.btk")[0])
    res = api.import_archive(str(path), members=["btk/wait.btk"])
    assert res and all(a["gameanim_archive_member"] == "btk/wait.btk" for a in res)
    result = api.export_materials(str(path), list(mats.values()))
    assert result.member == "btk/wait.btk" and result.original and path.read_bytes() == before
    from blhelpers import fcurves_of

    fc = next(f for f in fcurves_of(res[0]) if "centre" not in f.data_path)  # (the centre is no channel)
    move_key(fc, 0, 0.25)
    result = api.export_materials(str(path), list(mats.values()))
    arc = ga.open_archive(str(path))
    assert arc.read("btk/wait.btk") != manifest["btk/wait.btk"]["data"]
    assert ga.load(arc.read("btk/wait.btk")).format == "btk"
    assert all(arc.read(n) == m["data"] for n, m in manifest.items() if n != "btk/wait.btk")


def test_several_archives_in_one_dialog(archive, tmp_path, addon):
    from io_anim_gameanim import archive_dialog as dlg
    from io_anim_gameanim.shared import archive_members as am

    path, _m = archive
    other = tmp_path / "other.arc"
    other.write_bytes(mk.build(mk.Dir("o", [mk.File("walk.bck", raw(STRAY))])))
    st = dlg.state(bpy.context)
    dlg.fill_rows(st.rows, [am.Listing(str(path)), am.Listing(str(other))])
    assert [r.label for r in st.rows if r.archive == str(other)] == ["other.arc: walk"]
    assert "figure.szs: wave" in [r.label for r in st.rows]
    for r in st.rows:
        r.selected = r.label in ("other.arc: walk", "figure.szs: wave")
    assert dlg.ticked(st.rows) == [(str(path), ["bck/wave.bck"]), (str(other), ["walk.bck"])]
    # a script: the first archive's members, and every member of the more archives, in one import
    fig = tmp_path / "fig.arc"
    fig.write_bytes(mk.build(mk.Dir("f", [mk.File("figure_maya.bmd", raw(FIGURE)), mk.File("wave.bck", raw(WAVE))])))
    third = tmp_path / "third.arc"
    third.write_bytes(mk.build(mk.Dir("t", [mk.File("walk.bca", raw("bca/walk_even_lz77.bca"))])))
    assert bpy.ops.import_anim.gameanim_archive(filepath=str(fig), members=[{"name": "wave.bck"},
                                                                            {"name": "figure_maya.bmd"}],
                                                more_archives=[{"name": str(third)}]) == {"FINISHED"}
    owners = {a.name: [o.name for o in bpy.data.objects if o.animation_data and o.animation_data.action == a]
              for a in bpy.data.actions}
    assert owners == {"wave.bck": ["figure_maya"], "walk.bca": ["walk_rig"]}


# ---------------------------------------------------------------------------
# The export dialog's Archive Member follows the chosen action (issue 32)


@pytest.fixture
def export_dialog(addon):
    """The Game Animation export operator's properties on a property group,
    with its own methods and its Action property's update callback: setting
    holder.action runs the update through RNA, as the dialog's field does
    (headless Blender shows no file browser to hold an operator)."""
    from io_anim_gameanim import operators

    cls = operators.EXPORT_ANY
    ann = dict(cls.__annotations__)
    ann["filepath"] = bpy.props.StringProperty()
    holder = type("GAMEANIM_PG_test_export_dialog", (operators._ExportBase, bpy.types.PropertyGroup),
                  {"__annotations__": ann, "fmt": cls.fmt})
    bpy.utils.register_class(holder)
    bpy.types.WindowManager.gameanim_test_export = bpy.props.PointerProperty(type=holder)
    yield bpy.context.window_manager.gameanim_test_export
    del bpy.types.WindowManager.gameanim_test_export
    bpy.utils.unregister_class(holder)


def test_archive_member_follows_the_action_chosen_in_the_dialog(archive, api, ga, export_dialog):
    """The issue's case: the dialog was filled for one action (its member),
    the user picks another action: Archive Member follows it, and the export
    writes that action into its own member; every other member keeps its
    bytes, and the popup says so."""
    from io_anim_gameanim import operators

    path, manifest = archive
    res = api.import_archive(str(path), members=["figure_maya.bmd", "bck/Wait.bck", "bck/wave.bck"])
    wait, wave = (next(a for a in res if a["gameanim_archive_member"] == m) for m in ("bck/Wait.bck", "bck/wave.bck"))
    dlg = export_dialog
    dlg.filepath = str(path)
    dlg.action = wave.name
    assert dlg.archive_member == "bck/wave.bck"
    dlg.action = wait.name  # (the update runs: the member follows)
    assert dlg.archive_member == "bck/Wait.bck"
    move_key(fcurve(wait, _first_path(wait), 0), 0, 0.0625)
    assert bpy.ops.export_anim.gameanim(filepath=dlg.filepath, action=dlg.action, archive_member=dlg.archive_member,
                                        member_for=dlg.member_for) == {"FINISHED"}
    arc = ga.open_archive(str(path))
    assert arc.read("bck/Wait.bck") != manifest["bck/Wait.bck"]["data"]
    assert ga.load(arc.read("bck/Wait.bck")).format == "bck"
    assert all(arc.read(n) == m["data"] for n, m in manifest.items() if n != "bck/Wait.bck")
    from io_anim_gameanim.exporting import exporter

    lines = operators.show_archive_popup(bpy.context, exporter.LAST_RESULT)
    assert "replaced member bck/Wait.bck" in lines[0] and wait.name in lines[0]
    assert lines[1] == f"The other {len(manifest) - 1} member(s) are byte for byte as before"


def test_a_stale_member_is_chosen_again_in_execute(archive, api, ga):
    """A member filled for another action (member_for says which) is not
    used: execute applies the rule again; a member a script names itself
    is used as given, whichever order the properties are set in."""
    path, manifest = archive
    res = api.import_archive(str(path), members=["figure_maya.bmd", "bck/Wait.bck", "bck/wave.bck"])
    wait = next(a for a in res if a["gameanim_archive_member"] == "bck/Wait.bck")
    move_key(fcurve(wait, _first_path(wait), 0), 0, 0.0625)
    before = path.read_bytes()
    import os

    stale = f"wave\n{os.path.abspath(str(path))}\nbck/wave.bck"
    assert bpy.ops.export_anim.gameanim(filepath=str(path), action=wait.name, archive_member="bck/wave.bck",
                                        member_for=stale) == {"FINISHED"}
    arc = ga.open_archive(str(path))
    assert arc.read("bck/wave.bck") == manifest["bck/wave.bck"]["data"]
    assert arc.read("bck/Wait.bck") != manifest["bck/Wait.bck"]["data"]
    for kw in ({"action": wait.name, "archive_member": "bck/wave.bck"},
               {"archive_member": "bck/wave.bck", "action": wait.name}):
        path.write_bytes(before)
        assert bpy.ops.export_anim.gameanim(filepath=str(path), **kw) == {"FINISHED"}
        arc = ga.open_archive(str(path))
        assert arc.read("bck/wave.bck") != manifest["bck/wave.bck"]["data"], kw  # (the member the script named)
        assert arc.read("bck/Wait.bck") == manifest["bck/Wait.bck"]["data"], kw


def test_member_of_the_same_name_and_kind_else_nothing(archive, api, export_dialog, tmp_path):
    """An action not from this archive: the member of its name and kind
    (folder, case and extension aside), else Archive Member stays empty."""
    path, _m = archive
    res = api.import_files([str(samples(WAVE)[0])], target="NEW")
    dlg = export_dialog
    dlg.filepath = str(path)
    dlg.action = res[0].name  # figure_maya_wave: no member of that name
    assert dlg.archive_member == ""
    res[0]["gameanim_source"] = "WAIT.bck"  # (as if imported from a loose wait.bck)
    dlg.action = ""
    dlg.action = res[0].name
    assert dlg.archive_member == "bck/Wait.bck"
    dlg.filepath = str(tmp_path / "loose.bck")  # (not an archive: nothing to fill)
    dlg.action = ""
    dlg.action = res[0].name
    assert dlg.archive_member == ""


def test_a_member_of_another_kind_is_refused(archive, api, ga):
    from io_anim_gameanim.exporting.exporter import ExportError

    path, _m = archive
    before = path.read_bytes()
    action = imported_wave(api, path)
    move_key(fcurve(action, _first_path(action), 0), 0, 0.0625)
    with pytest.raises(ExportError, match=r"member 'btk/wait.btk' of figure.szs is a BTK animation, and this export "
                                          r"writes BCK"):
        api.export_action(str(path), action, archive_member="btk/wait.btk")
    with pytest.raises(ExportError, match=r"member 'sound.bin' of figure.szs is not an animation"):
        api.export_action(str(path), action, archive_member="sound.bin")
    assert path.read_bytes() == before


def test_an_archive_alone_leaves_the_undo_step_to_the_dialog(tmp_path, addon):
    """Issue 32: with only archives picked, File > Import's operator imports
    nothing itself and ends CANCELLED (Blender pushes an undo step only for
    FINISHED), so the dialog's OK is the import's one undo step (in a
    window: tests/test_blender.py runs gui_undo_steps.py); with a loose file
    too it imports that file, a step of its own."""
    path = tmp_path / "fig.arc"
    path.write_bytes(mk.build(mk.Dir("fig", [mk.File("figure_maya.bmd", raw(FIGURE)),
                                             mk.Dir("bck", [mk.File("wave.bck", raw(WAVE))])])))
    assert bpy.ops.import_anim.gameanim(filepath=str(path), pick_members=True) == {"CANCELLED"}
    assert sorted(a.name for a in bpy.data.actions) == ["wave.bck"]  # (headless: the dialog ran at once)
