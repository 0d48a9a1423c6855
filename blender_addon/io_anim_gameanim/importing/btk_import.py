"""A BTK file onto the materials it names: one action per matched
material, one texture-mapping chain per animated UV slot
(btk_mapping_chain.py builds the chain and writes an entry's keys;
shared/material_mapping.py says which material and what goes where)."""
import bpy

from .. import compat
from ..shared.material_mapping import describe_entries, matched_materials
from . import btk_mapping_chain
from .actions import new_action, store_source


def import_btk(anim, fp, tm, mats):
    """The actions of one BTK file (fp: its FilePlan) on the materials
    among mats: [(node tree, sink, None)]."""
    path, opts, fr = fp.path, fp.opts, fp.report
    made = []
    for mat, entries, name in matched_materials(anim, mats, fp.action_name, fr,
                                                lambda e: f", UV {e['texmtx_id']}"):
        mat_name = entries[0][1]["material"]  # (the file's name)
        action = new_action(name)
        tree = compat.material_node_tree(mat)
        sink = compat.CurveSink(action, compat.node_tree_id_type(), tree.name)
        notes, used, period_keys = [], set(), False
        kept = []
        for i, e in entries:
            slot = int(e["texmtx_id"])
            if slot == 0xFF or slot > 7:
                notes.append(f"entry {i} (material {mat_name!r}) has texture-matrix slot {slot}: skipped")
                continue
            if slot in used:
                notes.append(f"entry {i}: material {mat_name!r} UV {slot} is animated twice; the first wins")
                continue
            if not btk_mapping_chain.slot_is_read(mat, slot):
                # no image reads the slot: a chain there would animate nothing
                fr.unmatched.append(f"entry {i} (material {mat_name!r}, UV {slot}: no image texture reads it)")
                continue
            if e.get("post"):
                notes.append(f"entry {i} is a post-texgen matrix; mapped like a texture matrix")
            used.add(slot)
            kept.append((i, e))
            period_keys |= btk_mapping_chain.apply_entry(anim, i, e, mat, sink, tm, notes)
        fr.notes.extend(notes)
        if not kept:  # nothing of this material is read: no chain, no action
            bpy.data.actions.remove(action)
            continue
        fr.owners.append(mat.name)
        store_source(action, anim, path, opts, tm, {
            "gameanim_material": mat.name,
            "gameanim_calc_type": anim.calc_type or "",
            "gameanim_entries": describe_entries(kept),
            "gameanim_period_keys": bool(period_keys),
        })
        made.append((tree, sink, None))
    return made
