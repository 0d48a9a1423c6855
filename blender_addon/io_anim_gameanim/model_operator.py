"""File > Export > Game Model (.bmd/.bdl): the operator over
exporting/model_export.py (docs/blender.md, Export a model).  The
armature is the active object, or the parent of the active mesh."""
import bpy
from bpy.props import StringProperty
from bpy.types import Operator
from bpy_extras.io_utils import ExportHelper

from . import native, operators


def _armature(context):
    obj = context.view_layer.objects.active if context.view_layer else None
    if obj is not None and obj.type != "ARMATURE" and obj.parent is not None:
        obj = obj.parent
    return obj if obj is not None and obj.type == "ARMATURE" and obj.get("gameanim_model_path") else None


class EXPORT_SCENE_OT_gameanim_model(Operator, ExportHelper):
    """Write the model the active armature was imported from, with the edits of its meshes, images and
    material colours (an untouched model comes back byte for byte)"""
    bl_idname = "export_scene.gameanim_model"
    bl_label = "Export Game Model"
    bl_options = {"REGISTER"}
    filename_ext = ""
    filter_glob: StringProperty(default="*.bmd;*.bdl;*.szs;*.arc;*.rarc", options={"HIDDEN"})
    armature: StringProperty(name="Armature", description="The imported model's armature (empty: the active one)")
    archive_member: StringProperty(name="Archive Member", description="When the file is an archive: the member "
                                   "to replace (empty: the one the model came from)")

    def invoke(self, context, event):
        arm = _armature(context)
        if arm is not None:
            self.armature = arm.name
            if not self.filepath:
                self.filepath = arm.get("gameanim_model_archive") or arm.get("gameanim_model_path") or ""
                self.archive_member = arm.get("gameanim_model_member") or ""
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def check(self, context):
        return False  # (the file keeps the name it has: .bmd, .bdl or an archive)

    def execute(self, context):
        from .exporting import model_export
        from .exporting.export_tracks import ExportError

        if not native.available():
            self.report({"ERROR"}, native.INSTALL_HINT)
            return {"CANCELLED"}
        arm = bpy.data.objects.get(self.armature) if self.armature else _armature(context)
        if arm is None:
            self.report({"ERROR"}, "Export failed: no armature imported from a model (select it)")
            return {"CANCELLED"}
        try:
            result = model_export.export_model(arm, self.filepath, member=self.archive_member)
        except (ExportError, TypeError, ValueError, OSError) as e:
            self.report({"ERROR"}, f"Export failed, nothing written: {e}")
            return {"CANCELLED"}
        operators.report_result(self, result)
        if result.member:
            operators.show_archive_popup(context, result)
        return {"FINISHED"}


def menu_func_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_gameanim_model.bl_idname, text="Game Model (.bmd/.bdl)")


def register():
    bpy.utils.register_class(EXPORT_SCENE_OT_gameanim_model)
    bpy.types.TOPBAR_MT_file_export.append(menu_func_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_func_export)
    bpy.utils.unregister_class(EXPORT_SCENE_OT_gameanim_model)
