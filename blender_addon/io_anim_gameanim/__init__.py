"""Game animation import and export: J3D BCK/BTK (GameCube/Wii), SM64DS BCA,
Banjo-Kazooie and SWTOR JBA onto armatures, material texture mappings and
F-curves.  The decoding is done by the `gameanim` C module; this add-on
maps its clips onto Blender data and back (docs/blender.md).

Works as a legacy add-on (bl_info, Blender 3.4 - 4.1) and as an extension
(blender_manifest.toml, 4.2+).  Relative imports only: the package may be
installed under any name (e.g. bl_ext.user_default.io_anim_gameanim).
"""

bl_info = {
    "name": "Game Animation Import-Export (gameanim)",
    "author": "The gameanim developers",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import > Game Animation; File > Export > Game Animation",
    "description": "Import and export J3D BCK/BTK/BRK/BPK/BTP/BVA/BCA, SM64DS BCA, Banjo-Kazooie and SWTOR JBA "
                   "animations: armatures, materials, shape visibility and F-curves",
    "category": "Import-Export",
}


def register():
    from . import model_operator, operators

    operators.register()
    model_operator.register()


def unregister():
    from . import model_operator, operators

    model_operator.unregister()
    operators.unregister()
