"""Which option sections of the import and export panels are open, for
Blender before 4.1 (compat.draw_section): there a section is a box whose
header is a toggle with a disclosure triangle, and its state lives here,
on the window manager (never saved in the .blend, kept for the session;
not on the operator, where a toggle in Adjust Last Operation would be an
option change).  From 4.1 layout.panel keeps the state itself.  One
toggle per import section and one per export section name (shared by
every format's panel), each open by default unless options says closed."""
import bpy
from bpy.props import BoolProperty, PointerProperty
from bpy.types import PropertyGroup

from .shared import options


def import_toggle(section):
    return f"import_{section}"


def export_toggle(section):
    return f"export_{section}"


def _annotations():
    ann = {import_toggle(s): BoolProperty(name=title, description=f"Show the {title} options", default=not closed)
           for s, title, closed in options.SECTIONS}
    ann.update({export_toggle(s): BoolProperty(name=title, description=f"Show the {title} options", default=True)
                for s, title in options.EXPORT_SECTIONS})
    return ann


GAMEANIM_PG_option_sections = type("GAMEANIM_PG_option_sections", (PropertyGroup,),
                                   {"__annotations__": _annotations()})


def state(context):
    """The toggles, or None before register (the sections then are fixed
    boxes)."""
    return getattr(context.window_manager, "gameanim_option_sections", None)


def register():
    bpy.utils.register_class(GAMEANIM_PG_option_sections)
    bpy.types.WindowManager.gameanim_option_sections = PointerProperty(type=GAMEANIM_PG_option_sections)


def unregister():
    del bpy.types.WindowManager.gameanim_option_sections
    bpy.utils.unregister_class(GAMEANIM_PG_option_sections)
