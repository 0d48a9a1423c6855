"""The archive import dialog (docs/blender.md, Archives): after an archive
is picked in File > Import > Game Animation, a dialog lists its models,
its animations grouped by base name with where each group goes, and the
members the add-on cannot import, greyed out with the reason in a few
words (the full message is the tooltip of the row's question mark).  The
user ticks rows (All / None act on the rows the text filter shows, as
io_scene_psk_psa's PSA import does); OK imports the ticked members.

The rows are drawn as plain layout rows, a page at a time, not through a
UIList: a UIList row's tooltip offers "Double click to rename", and these
rows name archive members, which are not renamed here.

The rows live on the window manager (GAMEANIM_PG_archive_list, never
saved in the .blend) so that the All / None buttons, separate operators,
can change them while the dialog is open.  Scripts skip the dialog:
bpy.ops.import_anim.gameanim_archive(filepath=..., members=[{"name": ...}])
with no members imports everything (the same as api.import_archive)."""
import os

import bpy
from bpy.props import BoolProperty, CollectionProperty, IntProperty, PointerProperty, StringProperty
from bpy.types import Operator, OperatorFileListElement, PropertyGroup

from . import native, window_progress
from .importing import archive_import
from .shared import archive_members, options


class GAMEANIM_PG_archive_row(PropertyGroup):
    archive: StringProperty()         # the archive's path
    members: StringProperty()         # the members this row imports, one per line
    label: StringProperty()
    info: StringProperty()            # where it goes, or why it cannot be imported (a few words)
    detail: StringProperty()          # why it cannot be imported, in full (the tooltip)
    kind: StringProperty()            # archive_members.MODEL / GROUP / UNSUPPORTED / OTHER
    importable: BoolProperty(default=True)
    selected: BoolProperty(name="Import", description="Import the members of this row", default=True)


class GAMEANIM_PG_archive_list(PropertyGroup):
    rows: CollectionProperty(type=GAMEANIM_PG_archive_row)
    active: IntProperty()
    # (no update callback resets it when the filter changes: the bpy module
    # of 4.2 crashes at exit after one on a window-manager property; a page
    # past the filtered rows shows the last page instead, page_of)
    page: IntProperty(min=0)
    filter_text: StringProperty(name="Filter", description="Show only rows whose name or members contain this text",
                                options={"TEXTEDIT_UPDATE"})


PAGE_ROWS = 20  # (a dialog does not scroll: longer lists turn pages)


def state(context):
    return context.window_manager.gameanim_archive


def row_visible(row, text):
    text = text.strip().lower()
    return not text or text in row.label.lower() or text in row.members.lower()


def fill_rows(rows, listings):
    """One row per model, per animation group and per member that cannot
    be imported (greyed, unticked); a row's label names its archive when
    there are several.  Models and groups start ticked, except a group
    that no model of its kind in the archive fits."""
    rows.clear()
    for listing in listings:
        prefix = os.path.basename(listing.path) + ": " if len(listings) > 1 else ""

        def add(kind, label, members, info, importable=True, selected=True, detail=""):
            r = rows.add()
            r.archive, r.kind, r.label, r.info, r.detail = listing.path, kind, prefix + label, info, detail
            r.members = "\n".join(members)
            r.importable = importable
            r.selected = importable and selected

        for m in listing.models:
            add(archive_members.MODEL, m.name, [m.name],
                f"model ({m.format}, {m.joints} joints): builds its armature")
        for g in listing.groups:
            # (a set no model fits starts unticked: with the model ticked it would fail)
            add(archive_members.GROUP, g.label, [e.name for e in g.members], g.describe(bool(listing.models)),
                selected=not g.misfits)
        for e in listing.unsupported():
            add(e.kind, e.name, [e.name], e.short or e.reason, importable=False, detail=e.reason)


def ticked(rows):
    """[(archive, [member, ...])] of the ticked rows, archives in row order."""
    out = {}
    for r in rows:
        if r.selected and r.importable:
            out.setdefault(r.archive, []).extend(m for m in r.members.split("\n") if m)
    return list(out.items())


def visible_rows(st):
    """Indices of the rows the filter shows."""
    return [i for i, r in enumerate(st.rows) if row_visible(r, st.filter_text)]


def page_of(st):
    """(indices of the rows on the shown page, page, pages)."""
    shown = visible_rows(st)
    pages = max(1, -(-len(shown) // PAGE_ROWS))
    page = min(st.page, pages - 1)
    return shown[page * PAGE_ROWS:(page + 1) * PAGE_ROWS], page, pages


KIND_ICONS = {archive_members.MODEL: "ARMATURE_DATA", archive_members.GROUP: "ACTION"}


def draw_row(layout, item, index):
    """One row: the tick, its name and where it goes; greyed, with the
    reason in a few words and a question mark whose tooltip (and click)
    gives the full message, for a member that cannot be imported."""
    row = layout.row(align=True)
    sub = row.row(align=True)
    sub.enabled = item.importable
    sub.prop(item, "selected", text="")
    split = sub.split(factor=0.35)
    split.label(text=item.label, icon=KIND_ICONS.get(item.kind, "ERROR"))
    split.label(text=item.info)
    if not item.importable and item.detail:
        why = row.operator(GAMEANIM_OT_archive_why.bl_idname, text="", icon="QUESTION", emboss=False)
        why.index = index
    else:
        row.label(text="", icon="BLANK1")  # (the columns line up with the greyed rows')


class GAMEANIM_OT_archive_why(Operator):
    """Why this member cannot be imported"""

    bl_idname = "import_anim.gameanim_archive_why"
    bl_label = "Why Not"
    bl_options = {"INTERNAL"}

    index: IntProperty()

    @classmethod
    def description(cls, context, properties):
        rows = state(context).rows
        return rows[properties.index].detail if 0 <= properties.index < len(rows) else cls.__doc__

    def execute(self, context):
        rows = state(context).rows
        if 0 <= self.index < len(rows):
            self.report({"INFO"}, f"{rows[self.index].label}: {rows[self.index].detail}")
        return {"FINISHED"}


class GAMEANIM_OT_archive_page(Operator):
    """Show the next or the previous rows"""

    bl_idname = "import_anim.gameanim_archive_page"
    bl_label = "Turn Page"
    bl_options = {"INTERNAL"}

    step: IntProperty(default=1)

    def execute(self, context):
        st = state(context)
        _rows, page, pages = page_of(st)
        st.page = min(max(page + self.step, 0), pages - 1)
        return {"FINISHED"}


class GAMEANIM_OT_archive_select(Operator):
    """Tick (All) or untick (None) every importable row the filter shows"""

    bl_idname = "import_anim.gameanim_archive_select"
    bl_label = "Select Archive Members"
    bl_options = {"INTERNAL"}

    select: BoolProperty(default=True)

    def execute(self, context):
        st = state(context)
        for r in st.rows:
            if r.importable and row_visible(r, st.filter_text):
                r.selected = self.select
        return {"FINISHED"}


class IMPORT_ANIM_OT_gameanim_archive(Operator):
    """Import models and animations from a RARC / CRAR archive (.arc, .szs): pick the members in a list"""

    bl_idname = "import_anim.gameanim_archive"
    bl_label = "Import from Archive"
    bl_options = {"REGISTER", "UNDO"}

    __annotations__ = {
        **options.operator_annotations(),
        "filepath": StringProperty(subtype="FILE_PATH", options={"SKIP_SAVE"}),
        # scripts: the members to import ([{"name": "bck/wait.bck"}, ...]); empty: all
        "members": CollectionProperty(type=OperatorFileListElement, options={"SKIP_SAVE"}),
        # more archives listed in the same dialog (several picked at once)
        "more_archives": CollectionProperty(type=OperatorFileListElement, options={"HIDDEN", "SKIP_SAVE"}),
        "from_dialog": BoolProperty(options={"HIDDEN", "SKIP_SAVE"}),
    }

    def archives(self):
        return [p for p in [self.filepath, *(f.name for f in self.more_archives)] if p]

    def invoke(self, context, event):
        if not native.available():
            self.report({"ERROR"}, native.INSTALL_HINT)
            return {"CANCELLED"}
        ga = native.require()
        listings = []
        for path in self.archives():
            try:
                listings.append(archive_members.Listing(path))
            except (ga.FormatError, OSError, ValueError) as e:
                self.report({"ERROR"}, f"{os.path.basename(path)}: {e}")
        if not listings:
            return {"CANCELLED"}
        st = state(context)
        fill_rows(st.rows, listings)
        st.filter_text = ""
        st.page = 0
        self.from_dialog = True
        return context.window_manager.invoke_props_dialog(self, width=700)

    def draw(self, context):
        st = state(context)
        layout = self.layout
        row = layout.row(align=True)
        row.prop(st, "filter_text", text="", icon="VIEWZOOM")
        row.operator(GAMEANIM_OT_archive_select.bl_idname, text="All").select = True
        row.operator(GAMEANIM_OT_archive_select.bl_idname, text="None").select = False
        rows, page, pages = page_of(st)
        col = layout.box().column(align=True)
        for i in rows:
            draw_row(col, st.rows[i], i)
        if not rows:
            col.label(text="No member matches the filter")
        if pages > 1:
            nav = layout.row(align=True)
            nav.operator(GAMEANIM_OT_archive_page.bl_idname, text="", icon="TRIA_LEFT").step = -1
            nav.label(text=f"Rows {page * PAGE_ROWS + 1}-{page * PAGE_ROWS + len(rows)} "
                           f"of {len(visible_rows(st))}")
            nav.operator(GAMEANIM_OT_archive_page.bl_idname, text="", icon="TRIA_RIGHT").step = 1

    def execute(self, context):
        if self.from_dialog:
            selection = ticked(state(context).rows)
            if not selection:
                self.report({"ERROR"}, "Nothing ticked: nothing imported")
                return {"CANCELLED"}
        else:
            selection = [(self.filepath, [m.name for m in self.members if m.name])]
            selection += [(f.name, []) for f in self.more_archives if f.name]
        count = sum(len(m) or 1 for _p, m in selection)
        opts = options.ImportOptions.from_operator(self)
        # (the rows stay until the next dialog: Adjust Last Operation runs this again)
        return window_progress.run_import(self, context, count, lambda progress: archive_import.import_archives(
            selection, options=opts, context=context, progress=progress))


classes = [GAMEANIM_PG_archive_row, GAMEANIM_PG_archive_list, GAMEANIM_OT_archive_why, GAMEANIM_OT_archive_page,
           GAMEANIM_OT_archive_select, IMPORT_ANIM_OT_gameanim_archive]


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.WindowManager.gameanim_archive = PointerProperty(type=GAMEANIM_PG_archive_list)


def unregister():
    del bpy.types.WindowManager.gameanim_archive
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
