"""File > Import > Game Animation: the operator, its options panel, the
menu entry and drag and drop (4.1+)."""
import os

import bpy
from bpy.props import CollectionProperty, StringProperty
from bpy.types import Operator, OperatorFileListElement
from bpy_extras.io_utils import ImportHelper

from . import compat, importer, native, options

FILTER_GLOB = "*.bck;*.btk;*.bca;*.jba;*.bin"


class _OptionsMixin:
    __annotations__ = options.operator_annotations()


class IMPORT_ANIM_OT_gameanim(Operator, ImportHelper, _OptionsMixin):
    """Import game animations (J3D BCK/BTK, SM64DS BCA, Banjo-Kazooie, SWTOR JBA) onto the active armature,
    a new armature, or material texture mappings"""

    bl_idname = "import_anim.gameanim"
    bl_label = "Import Game Animation"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ""
    filter_glob: StringProperty(default=FILTER_GLOB, options={"HIDDEN"})
    files: CollectionProperty(type=OperatorFileListElement, options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})

    def invoke(self, context, event):
        return compat.invoke_import(self, context, event, ImportHelper)

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        if not native.available():
            box = layout.box()
            box.alert = True
            box.label(text="gameanim C module missing", icon="ERROR")
        for section, title in options.SECTIONS:
            body = compat.draw_section(layout, f"GAMEANIM_import_{section}", title)
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
        wm = context.window_manager
        total = 2 * len(paths)
        wm.progress_begin(0, total)

        def progress(i, n, path, stage):
            step = i if stage == "load" else len(paths) + i
            wm.progress_update(step)
            compat.status_text(context, f"Game animation: {stage} {i + 1}/{n}: {os.path.basename(path)}")

        try:
            result = importer.import_files(paths, options=opts, context=context, progress=progress)
        except (TypeError, ValueError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        finally:
            wm.progress_end()
            compat.status_text(context, None)
        result.report.emit(self)
        return {"FINISHED"} if result.report.succeeded else {"CANCELLED"}


def menu_func_import(self, context):
    self.layout.operator(IMPORT_ANIM_OT_gameanim.bl_idname, text="Game Animation (.bck .btk .bca .jba .bin)")


classes = [IMPORT_ANIM_OT_gameanim]

if compat.HAS_FILE_HANDLER:

    class IMPORT_ANIM_FH_gameanim(bpy.types.FileHandler):
        bl_idname = "IMPORT_ANIM_FH_gameanim"
        bl_label = "Game Animation"
        bl_import_operator = "import_anim.gameanim"
        bl_file_extensions = ".bck;.btk;.bca;.jba;.bin"

        @classmethod
        def poll_drop(cls, context):
            return context.area is not None and context.area.type == "VIEW_3D"

    classes.append(IMPORT_ANIM_FH_gameanim)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_func_import)


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(menu_func_import)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
