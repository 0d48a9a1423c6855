"""File > Import > Game Animation and File > Export > one entry per format:
the operators, their option panels, the menu entries and drag and drop
(4.1+).  Built when the add-on registers (__init__.register imports this
module), from the formats the C module has then (shared/formats.py);
without it, only the import entry, which explains how to install it."""
import os

import bpy
from bpy.props import BoolProperty, CollectionProperty, StringProperty
from bpy.types import Operator, OperatorFileListElement
from bpy_extras.io_utils import ExportHelper, ImportHelper

from . import archive_dialog, compat, native
from .exporting import export_archive, exporter
from .importing import importer
from .shared import archive_members, formats, options

# the files' extensions and the archives' (.arc, .szs, ...: decided by
# content, since .szs is also one Yaz0-wrapped animation)
FILTER_GLOB = ";".join(dict.fromkeys("*" + ext for ext in importer.file_extensions()
                                     + archive_members.archive_extensions()))


def _panel_layout(layout):
    """The file browser sidebar's layout, with a warning when the C module
    is missing."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    if not native.available():
        box = layout.box()
        box.alert = True
        box.label(text="gameanim C module missing", icon="ERROR")
    return layout


class _OptionsMixin:
    __annotations__ = options.operator_annotations()


class IMPORT_ANIM_OT_gameanim(Operator, ImportHelper, _OptionsMixin):
    """Import game animations (J3D BCK/BTK/BRK/BPK/BTP/BVA/BCA, SM64DS BCA, Banjo-Kazooie, SWTOR JBA) onto the
    active armature, a new armature, materials or shapes"""

    bl_idname = "import_anim.gameanim"
    bl_label = "Import Game Animation"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ""
    filter_glob: StringProperty(default=FILTER_GLOB, options={"HIDDEN"})
    files: CollectionProperty(type=OperatorFileListElement, options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})
    # set by invoke: archives among the files open the member dialog
    # (archive_dialog.py) instead of importing all their members
    pick_members: BoolProperty(options={"HIDDEN", "SKIP_SAVE"})

    def invoke(self, context, event):
        self.pick_members = True
        return compat.invoke_import(self, context, event, ImportHelper)

    def draw(self, context):
        layout = _panel_layout(self.layout)
        for section, title, closed in options.SECTIONS:
            body = compat.draw_section(layout, f"GAMEANIM_import_{section}", title, default_closed=closed)
            if body is None:
                continue
            for name in options.section_fields(section):
                body.prop(self, name)

    def selected_paths(self):
        paths = [os.path.join(self.directory, f.name) for f in self.files if f.name]
        if not paths and self.filepath:
            paths = [self.filepath]
        return paths

    def execute(self, context):
        paths = self.selected_paths()
        if not paths:
            self.report({"ERROR"}, "No file selected")
            return {"CANCELLED"}
        if not native.available():
            self.report({"ERROR"}, native.INSTALL_HINT)
            return {"CANCELLED"}
        opts = options.ImportOptions.from_operator(self)
        archives = [p for p in paths if archive_members.open_if_archive(p) is not None] if self.pick_members else []
        paths = [p for p in paths if p not in archives]
        status = {"FINISHED"}
        if paths:
            status = run_import(self, context, len(paths), lambda progress: importer.import_files(
                paths, options=opts, context=context, progress=progress))
        if archives:  # (after the files: the dialog shows once this operator is done)
            bpy.ops.import_anim.gameanim_archive("INVOKE_DEFAULT", filepath=archives[0],
                                                 more_archives=[{"name": p} for p in archives[1:]],
                                                 **opts.as_dict())
        return status


def run_import(op, context, count, call):
    """Runs call(progress) with the progress cursor and status text (a load
    and an import per file), then reports its ImportResult on op."""
    wm = context.window_manager
    total = 2 * count
    wm.progress_begin(0, total)

    events = [0]  # a load and an import per file, in whichever order they come

    def progress(i, n, path, stage):
        events[0] += 1
        wm.progress_update(min(events[0], total))
        compat.status_text(context, f"Game animation: {stage} {i + 1}/{n}: {os.path.basename(path)}",
                           redraw=True)

    try:
        result = call(progress)
    except (TypeError, ValueError) as e:
        op.report({"ERROR"}, str(e))
        return {"CANCELLED"}
    finally:
        wm.progress_end()
        compat.status_text(context, None)
    result.report.emit(op)
    return {"FINISHED"} if result.report.succeeded else {"CANCELLED"}


# the menu names the formats (the filter takes each one's extensions, the
# compression wrappers', Banjo-Kazooie's .bin / .anim and the model files':
# too many to list)
IMPORT_LABEL = "Game Animation" + (f" ({', '.join(f.upper() for f in formats.names())}"
                                    + (", models" if formats.model_extensions() else "") + ")"
                                    if formats.names() else "")


def menu_func_import(self, context):
    self.layout.operator(IMPORT_ANIM_OT_gameanim.bl_idname, text=IMPORT_LABEL)


# ---------------------------------------------------------------------------
# Export: one operator per format


class _ExportBase:
    """Shared by the export operators (one per registered format); `fmt` is set per class."""

    fmt = ""

    def invoke(self, context, event):
        action = self._action(context)
        src = export_archive.default_target(action) if action is not None else None
        if src is not None and not self.filepath and exporter.resolve_format(action, "AUTO") == self.fmt:
            # an action from an archive goes back into its member by default
            self.filepath, self.archive_member = src
        elif action is not None and not self.filepath:
            folder = os.path.dirname(bpy.data.filepath) if bpy.data.filepath else ""
            self.filepath = os.path.join(folder, exporter.default_file_name(action, self.fmt))
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def check(self, context):
        if export_archive.is_archive_name(self.filepath):
            return False  # (an archive keeps its name: the animation goes into one of its members)
        return ExportHelper.check(self, context)

    def _action(self, context):
        if self.action:
            return bpy.data.actions.get(self.action)
        if formats.is_material(self.fmt):
            mats = exporter.selected_materials(context)
            return exporter.node_tree_action(mats[0]) if mats else None
        return exporter.active_action(context)

    def draw(self, context):
        layout = _panel_layout(self.layout)
        layout.prop_search(self, "action", bpy.data, "actions")
        fields = options.export_fields(self.fmt)
        for section, title in options.EXPORT_SECTIONS:
            names = [n for n in options.section_fields(section, options.EXPORT_SPECS) if n in fields]
            if not names:
                continue
            body = compat.draw_section(layout, f"GAMEANIM_export_{self.fmt}_{section}", title)
            if body is None:
                continue
            for name in names:
                if name in ("frame_start", "frame_end") and self.frame_range != "CUSTOM":
                    continue
                body.prop(self, name)

    def execute(self, context):
        if not native.available():
            self.report({"ERROR"}, native.hint() if hasattr(native, "hint") else native.INSTALL_HINT)
            return {"CANCELLED"}
        fields = options.export_operator_fields(self.fmt)
        xopts = options.ExportOptions(format=self.fmt, **{n: getattr(self, n) for n in fields})
        action = bpy.data.actions.get(self.action) if self.action else None
        if self.action and action is None:
            self.report({"ERROR"}, f"No action named {self.action!r}")
            return {"CANCELLED"}
        try:
            if formats.is_material(self.fmt) and action is None:
                result = exporter.export_materials(self.filepath, options=xopts, context=context)
            else:
                result = exporter.export_action(self.filepath, action=action, options=xopts, context=context)
        except (exporter.ExportError, TypeError, ValueError, OSError) as e:
            self.report({"ERROR"}, f"Export failed, nothing written: {e}")
            return {"CANCELLED"}
        for n in result.notes:
            self.report({"INFO"}, n)
        for w in result.warnings:
            self.report({"WARNING"}, w)
        self.report({"INFO"}, result.summary())
        return {"FINISHED"}


def _make_export_operator(fmt):
    ext = formats.default_extension(fmt)
    fields = options.export_operator_fields(fmt)
    ann = options.operator_annotations(options.EXPORT_SPECS, skip=[s[0] for s in options.EXPORT_SPECS
                                                                    if s[0] not in fields])
    ann["action"] = StringProperty(
        name="Action",
        description=("Action to export (empty: the node-tree actions of the selected objects' materials, "
                     "as one file)" if formats.is_material(fmt) else
                     "Action to export (empty: the active object's action, else its active material's; every "
                     "action imported from the same file goes into it)" if formats.kind(fmt) else
                     "Action to export (empty: the active object's action)"))
    ann["filter_glob"] = StringProperty(default="*" + ext, options={"HIDDEN"})
    name = f"EXPORT_ANIM_OT_gameanim_{fmt}"
    label = options.format_menu_label(fmt)
    doc = f"Export {label} with gameanim (an imported action comes back byte for byte when unedited)"
    return type(name, (_ExportBase, Operator, ExportHelper), {
        "__doc__": doc,
        "bl_idname": f"export_anim.gameanim_{fmt}",
        "bl_label": f"Export {label.split(' (')[0]}",
        "bl_options": {"REGISTER", "PRESET"},
        "filename_ext": ext,
        "fmt": fmt,
        "__annotations__": ann,
    })


EXPORT_OPERATORS = {fmt: _make_export_operator(fmt) for fmt in formats.names()}


def menu_func_export(self, context):
    for fmt, cls in EXPORT_OPERATORS.items():
        self.layout.operator(cls.bl_idname, text=f"Game Animation: {options.format_menu_label(fmt)}")


classes = [IMPORT_ANIM_OT_gameanim, *EXPORT_OPERATORS.values()]

if compat.HAS_FILE_HANDLER and formats.drop_extensions():

    class IMPORT_ANIM_FH_gameanim(bpy.types.FileHandler):
        bl_idname = "IMPORT_ANIM_FH_gameanim"
        bl_label = "Game Animation"
        bl_import_operator = "import_anim.gameanim"
        # only extensions no other kind of file uses (formats.drop_extensions)
        bl_file_extensions = ";".join(formats.drop_extensions())

        @classmethod
        def poll_drop(cls, context):
            return context.area is not None and context.area.type == "VIEW_3D"

    classes.append(IMPORT_ANIM_FH_gameanim)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    archive_dialog.register()
    bpy.types.TOPBAR_MT_file_import.append(menu_func_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_func_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_func_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_func_import)
    archive_dialog.unregister()
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
