"""The armatures an import builds: which files share one (option New Rigs),
where each stands (side by side, never on top of each other or of the
scene's other armatures), and what is selected afterwards (what the import
made or animated, as Blender's glTF importer does)."""
from mathutils import Vector

from ..shared import formats
from ..shared.rig_match import anim_targets


def group_files_for_new_rigs(items, opts):
    """The files that go onto new armatures, grouped so that each group
    gets one rig: [(format, [items])] in the order of the groups' first
    files.

    Option New Rigs (opts.new_rigs):
    - 'SET' (default): one rig per distinct bone set of a format.  Formats
      matched by index (BCK, BCA: a file's targets are its joint numbers)
      share a rig only with files of the same joint count, so no smaller
      file is paired by index with the wrong bones of a bigger rig.  Formats
      matched by bone ID or name share a rig when a file's bones are all
      among the rig's (a subset is matched exactly by name or ID).
    - 'FILE': one rig per file."""
    groups = []  # [fmt, target set, items]
    for item in items:
        fmt = item.anim.format
        targets = frozenset(anim_targets(item.anim))
        home = None
        if opts.new_rigs != "FILE":
            by_index = opts.bone_match_for(fmt) == "INDEX"
            for g in groups:
                if g[0] == fmt and (g[1] == targets if by_index else targets <= g[1] or g[1] <= targets):
                    home = g
                    break
        if home is None:
            groups.append([fmt, targets, [item]])
        else:
            home[1] = home[1] | targets
            home[2].append(item)
    return [(fmt, group) for fmt, _targets, group in groups]


def _x_extent(obj, matrix):
    """(lowest X, highest X, largest size along any axis) of the rig's bone
    heads and tails under `matrix` (its world matrix)."""
    pts = [matrix @ Vector(p) for b in obj.data.bones for p in (b.head_local, b.tail_local)]
    pts = pts or [matrix.translation.copy()]
    size = max((max(p[i] for p in pts) - min(p[i] for p in pts)) for i in range(3))
    return min(p.x for p in pts), max(p.x for p in pts), size


def place_new_rigs(rigs, context):
    """Stands the armatures this import built side by side along +X: the
    first where it was built (the origin) unless the scene already holds
    armatures there, each next one to the right of the previous, with a gap
    of half the larger rig's size.  Only the objects' locations change
    (root motion composes with the object's transform, so placing a rig
    before its files are planned keeps the trajectory starting where the
    rig stands; exports are unaffected)."""
    if not rigs:
        return
    built = {o.as_pointer() for o in rigs}
    others = [o for o in context.view_layer.objects
              if o.type == "ARMATURE" and o.as_pointer() not in built and o.visible_get()]
    right = None
    if others:
        ext = [_x_extent(o, o.matrix_world) for o in others]
        right = (max(hi for _, hi, _ in ext), max(size for _, _, size in ext))
    for k, obj in enumerate(rigs):
        if right is None and k == len(rigs) - 1:
            break  # (alone, at the origin: no rig after it needs its extent)
        # (a rig built just now has no parent: its basis is its world matrix)
        lo, hi, size = _x_extent(obj, obj.matrix_basis)
        if right is not None:
            edge, prev_size = right
            gap = 0.5 * max(size, prev_size) or 1.0
            shift = edge + gap - lo
            obj.location.x += shift
            lo, hi = lo + shift, hi + shift
        right = (hi, size)


def select_imported(objects, context):
    """Selects exactly the armatures the import built or animated and
    makes the first of them active (nothing changes when there is none,
    e.g. an import of texture animations alone)."""
    objects = [o for o in objects if o is not None and o.name in context.view_layer.objects]
    if not objects:
        return
    for o in context.view_layer.objects:
        if o.select_get():
            o.select_set(False)
    for o in objects:
        o.select_set(True)
    context.view_layer.objects.active = objects[0]


def is_new_rig_file(item, target_arm):
    """True when the file goes onto a new armature: skeletal, no model of
    the import took it and the import has no target armature."""
    return target_arm is None and item.arm is None and formats.is_skeletal(item.anim.format)
