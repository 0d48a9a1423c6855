"""File > Import > Game Animation and File > Export > Game Animation (the
action's own kind; one operator per format for scripts, out of the menu):
the operators, their option panels, the menu entries and drag and drop
(4.1+).  Built when the add-on registers (__init__.register imports this
module), from the formats the C module has then (shared/formats.py);
without it, only the import entry, which explains how to install it."""
import os

import bpy
from bpy.props import BoolProperty, CollectionProperty, StringProperty
from bpy.types import Operator, OperatorFileListElement
from bpy_extras.io_utils import ExportHelper, ImportHelper

from . import archive_dialog, compat, native, option_sections, window_progress
from .exporting import export_archive, exporter
from .importing import importer
from .shared import archive_members, formats, options
from .shared.imported_action import stored_format

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
        toggles = option_sections.state(context)
        for section, title, closed in options.SECTIONS:
            body = compat.draw_section(layout, f"GAMEANIM_import_{section}", title, default_closed=closed,
                                       toggle=(toggles, option_sections.import_toggle(section)))
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
            status = window_progress.run_import(self, context, len(paths), lambda progress: importer.import_files(
                paths, options=opts, context=context, progress=progress))
        if archives:  # (after the files: the dialog shows once this operator is done)
            bpy.ops.import_anim.gameanim_archive("INVOKE_DEFAULT", filepath=archives[0],
                                                 more_archives=[{"name": p} for p in archives[1:]],
                                                 **opts.as_dict())
            if not paths:
                # this operator imported nothing itself: FINISHED would push
                # an empty undo step before the dialog's own (its OK is the
                # import, one step)
                return {"CANCELLED"}
        return status


# the menu names the formats (the filter takes each one's extensions, the
# compression wrappers', Banjo-Kazooie's .bin / .anim and the model files':
# too many to list)
IMPORT_LABEL = "Game Animation" + (f" ({', '.join(f.upper() for f in formats.names())}"
                                    + (", models" if formats.model_extensions() else "") + ")"
                                    if formats.names() else "")


def menu_func_import(self, context):
    self.layout.operator(IMPORT_ANIM_OT_gameanim.bl_idname, text=IMPORT_LABEL)


# ---------------------------------------------------------------------------
# Export: File > Export > Game Animation writes the chosen action in its own
# kind (export_anim.gameanim); one operator per format stays registered for
# scripts that ask for a kind (export_anim.gameanim_bck, ...), out of the menu.


def _action_changed(self, context):
    """Update of the Action property: Archive Member follows the action
    chosen in the dialog (a member pre-filled for another action would
    write this one into the wrong member).  `self` may be the operator's
    bare properties (set from a script), without the class's methods.  A
    member typed in (or passed by a script) after the last fill stays."""
    if not self.archive_member or self.archive_member == filled_member(self):
        follow_action(self, _fmt_of(self), context)


def _fmt_of(props):
    fmt = getattr(props, "fmt", None)
    if fmt is not None:
        return fmt
    cls = getattr(bpy.types, props.bl_rna.identifier, None)
    return getattr(cls, "fmt", "")


def chosen_action(props, fmt, context):
    """The action the export writes: the one named, else the active
    object's (BTK, or the Game Animation entry without one: the selected
    materials' node-tree action)."""
    if props.action:
        return bpy.data.actions.get(props.action)
    if formats.is_material(fmt):
        mats = exporter.selected_materials(context)
        return exporter.node_tree_action(mats[0]) if mats else None
    action = exporter.active_action(context)
    if action is None and not fmt:
        mats = exporter.selected_materials(context)
        return exporter.node_tree_action(mats[0]) if mats else None
    return action


def export_format(props, fmt, action):
    """The format the export writes (None: not known yet)."""
    return fmt or exporter.format_for(action, props.format, props.filepath)


def member_key(props, action, member):
    """What Archive Member was filled with, and for which action and path."""
    return "\n".join((action.name if action is not None else "", os.path.abspath(props.filepath or ""), member))


def filled_member(props):
    """The member the rule last filled in (None: never filled)."""
    return props.member_for.rsplit("\n", 1)[-1] if props.member_for else None


def follow_action(props, fmt, context):
    """Archive Member for the chosen action: the member it was imported
    from, else a member of the same name and kind, else empty."""
    action = chosen_action(props, fmt, context)
    member = export_archive.member_for(props.filepath, action, export_format(props, fmt, action)) or ""
    props.archive_member = member
    props.member_for = member_key(props, action, member)


class _ExportBase:
    """Shared by the export operators; `fmt` is set per class ("": the
    Game Animation entry, whose format is the action's own, option Format,
    or the one the file extension names)."""

    fmt = ""

    def export_format(self, action):
        return export_format(self, self.fmt, action)

    def _action(self, context):
        return chosen_action(self, self.fmt, context)

    def follow_action(self, context):
        follow_action(self, self.fmt, context)

    def invoke(self, context, event):
        action = self._action(context)
        fmt = self.export_format(action)
        src = export_archive.default_target(action) if action is not None else None
        if src is not None and not self.filepath and fmt == stored_format(action):
            # an action from an archive goes back into its member by default
            self.filepath = src[0]
        elif action is not None and not self.filepath:
            folder = os.path.dirname(bpy.data.filepath) if bpy.data.filepath else ""
            # (a format not known yet: the action's name, the user adds the extension that names one)
            name = exporter.default_file_name(action, fmt) if fmt else bpy.path.clean_name(action.name)
            self.filepath = os.path.join(folder, name)
        self.follow_action(context)
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def check(self, context):
        if export_archive.is_archive_name(self.filepath):
            return False  # (an archive keeps its name: the animation goes into one of its members)
        return ExportHelper.check(self, context)

    def draw(self, context):
        layout = _panel_layout(self.layout)
        layout.prop_search(self, "action", bpy.data, "actions")
        fmt = self.fmt or self.export_format(self._action(context))
        if not self.fmt:
            layout.prop(self, "format")
        fields = options.export_fields(fmt) if fmt else options.export_fields_all()
        for section, title in options.EXPORT_SECTIONS:
            names = [n for n in options.section_fields(section, options.EXPORT_SPECS) if n in fields]
            if not names:
                continue
            body = compat.draw_section(layout, f"GAMEANIM_export_{self.fmt or 'any'}_{section}", title,
                                       toggle=(option_sections.state(context), option_sections.export_toggle(section)))
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
        action = bpy.data.actions.get(self.action) if self.action else None
        if self.action and action is None:
            self.report({"ERROR"}, f"No action named {self.action!r}")
            return {"CANCELLED"}
        chosen = action if action is not None else self._action(context)
        if self.archive_member == filled_member(self) and \
                self.member_for != member_key(self, chosen, self.archive_member):
            # filled for another action or path, and not changed since: the same rule again
            self.follow_action(context)
        try:
            fmt = self.export_format(chosen)
            if fmt is None:
                raise exporter.ExportError(
                    f"action {getattr(chosen, 'name', None)!r} was not imported by gameanim: choose the format "
                    "(option Format) or a file name with the format's extension")
            fields = options.export_operator_fields(fmt)
            xopts = options.ExportOptions(format=fmt, **{n: getattr(self, n) for n in fields})
            if formats.is_material(fmt) and action is None:
                result = exporter.export_materials(self.filepath, options=xopts, context=context)
            else:
                result = exporter.export_action(self.filepath, action=action or chosen, options=xopts,
                                                context=context)
        except (exporter.ExportError, TypeError, ValueError, OSError) as e:
            self.report({"ERROR"}, f"Export failed, nothing written: {e}")
            return {"CANCELLED"}
        report_result(self, result)
        if result.member:
            show_archive_popup(context, result)
        return {"FINISHED"}


def report_result(op, result):
    """An export's notes, warnings and summary in the status bar (also
    File > Export > Game Model's, model_operator.py)."""
    for n in result.notes:
        op.report({"INFO"}, n)
    for w in result.warnings:
        op.report({"WARNING"}, w)
    op.report({"INFO"}, result.summary())


def show_archive_popup(context, result):
    """A popup saying which member an export into an archive replaced and
    whether every other member kept its bytes (an Info line in the status
    bar is easily missed, and a wrong member is data lost)."""
    lines = export_archive.popup_lines(result)
    if bpy.app.background or getattr(context, "window", None) is None:
        return lines

    def draw(menu, _context):
        for text in lines:
            menu.layout.label(text=text)

    icon = "INFO" if result.others_unchanged is not False else "ERROR"
    context.window_manager.popup_menu(draw, title="Exported into archive", icon=icon)
    return lines


def _export_annotations(fields, material):
    ann = options.operator_annotations(options.EXPORT_SPECS, skip=[s[0] for s in options.EXPORT_SPECS
                                                                    if s[0] not in fields])
    # (both follow the chosen action: never the last export's remembered value)
    ann["archive_member"] = StringProperty(
        name="Archive Member", options={"SKIP_SAVE"},
        description=options.EXPORT_SPEC_BY_NAME["archive_member"][4]
        + "; follows the chosen action: the member it was imported from, else one of its name and kind")
    ann["member_for"] = StringProperty(options={"HIDDEN", "SKIP_SAVE"})  # (what Archive Member was filled for)
    ann["action"] = StringProperty(
        name="Action", options={"SKIP_SAVE"}, update=_action_changed,
        description=("Action to export (empty: the node-tree actions of the selected objects' materials, "
                     "as one file)" if material == "material tree" else
                     "Action to export (empty: the active object's action, else its active material's; every "
                     "action imported from the same file goes into it)" if material == "kind" else
                     "Action to export (empty: the active object's action)"))
    return ann


def _make_export_operator(fmt):
    ext = formats.default_extension(fmt)
    ann = _export_annotations(options.export_operator_fields(fmt),
                              "material tree" if formats.is_material(fmt) else "kind" if formats.kind(fmt) else "")
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


def _make_export_any():
    ann = _export_annotations(("format",) + options.export_fields_all(), "")
    exts = dict.fromkeys("*" + e for f in formats.names() for e in formats.traits(f).get("extensions") or ())
    ann["filter_glob"] = StringProperty(default=";".join([*exts, *("*" + e for e in
                                                               archive_members.archive_extensions())]),
                                        options={"HIDDEN"})
    return type("EXPORT_ANIM_OT_gameanim", (_ExportBase, Operator, ExportHelper), {
        "__doc__": "Export the chosen action as a game animation of its own kind (the format it was imported "
                   "from, else the one the file extension names), or back into its archive member",
        "bl_idname": "export_anim.gameanim",
        "bl_label": "Export Game Animation",
        "bl_options": {"REGISTER", "PRESET"},
        "filename_ext": "",
        "fmt": "",
        "__annotations__": ann,
    })


EXPORT_OPERATORS = {fmt: _make_export_operator(fmt) for fmt in formats.names()}
EXPORT_ANY = _make_export_any() if EXPORT_OPERATORS else None


def menu_func_export(self, context):
    # one entry, as glTF has: the action's own kind decides the format
    if EXPORT_ANY is not None:
        self.layout.operator(EXPORT_ANY.bl_idname, text="Game Animation")


classes = [IMPORT_ANIM_OT_gameanim, *EXPORT_OPERATORS.values(), *([EXPORT_ANY] if EXPORT_ANY else [])]

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
    option_sections.register()
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
    option_sections.unregister()
