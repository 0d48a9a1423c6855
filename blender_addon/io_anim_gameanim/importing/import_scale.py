"""Option Scale: the size a built armature shows in Blender.  Only the
object's scale changes; the bones, the keys and what an action stores stay
in the file's units, so an export is the same at any Scale."""


def apply_import_scale(arm_obj, opts):
    """Sets the object scale of an armature the import built (from a model
    file, or a new rig for animations) to option Scale (uniform)."""
    s = float(opts.scale)
    arm_obj.scale = (s, s, s)
    return arm_obj
