"""The actions an import makes, from their creation to their users: each
is made under its intended name, stores its source for a lossless export,
gives way to the action an earlier import of the same file made (option
Replace), is kept by an NLA strip or a fake user, and the chosen one of an
owner's actions is assigned.  Every writer (skeletal, BTK, the other J3D
kinds) makes its actions here, so none needs to call back into the
importer."""
import os
import re

import bpy

from .. import compat
from ..shared.imported_action import same_source, source_properties, stored_format

# the name each new action was meant to have (Blender adds .001 when an
# action of that name exists), by action pointer, until its file is done
_INTENDED_NAMES = {}


def new_action(name):
    action = compat.new_action(name)
    _INTENDED_NAMES[action.as_pointer()] = name
    return action


def store_source(action, anim, path, opts, tm, extra):
    """What a later export needs to write an untouched animation back byte
    for byte, and the options that shaped the curves."""
    for key, value in source_properties(anim, path, opts, tm, extra).items():
        action[key] = value


def replace_same_name(sink, opts, fr):
    """With the Replace option, the action an earlier import of the same
    file made under the intended name gives way to the new one (its users
    get the new one).  Another file of the same name (walk.bck of another
    character, in another folder or archive) adds name.001 instead."""
    action = sink.action
    name = _INTENDED_NAMES.pop(action.as_pointer(), None)
    if not opts.replace or name is None or action.name == name:
        return
    old = bpy.data.actions.get(name)
    if old is None or old == action or not stored_format(old):
        return  # only actions this importer made are ever replaced
    if not same_source(old, action):
        return
    compat.replace_action(old, sink)
    action.name = name
    fr.replaced.append(name)


def keep(owner, sink, opts, fr):
    """Keeps a new action in a saved file whether or not it is assigned."""
    if opts.others == "NLA":
        # every action, the one assigned too: picking another action
        # in the editor must not leave one with no user to be saved
        # (glTF does the same); the strip holds it: no fake user
        compat.stash(owner, sink, sink.action.frame_range[0])
        fr.kept[sink.action.name] = "on a muted NLA track"
    else:
        # nothing else holds it: a fake user keeps it in a saved file
        sink.action.use_fake_user = True
        fr.kept[sink.action.name] = "fake user"


# the words of an action name that mark a model's idle (case-insensitive,
# whole words: "Wait", "pl_wait", "IdleLoop", "default_01"; not "await")
IDLE_WORDS = ("wait", "idle", "default")
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def is_idle_name(name):
    return any(w.lower() in IDLE_WORDS for w in _WORDS.findall(os.path.splitext(name)[0]))


def pick_first(names):
    """Index of the action an owner is given after an import: the first
    whose name says it is the model's idle (IDLE_WORDS), else the first
    (the files' order, which is the dialog's for an archive)."""
    return next((i for i, n in enumerate(names) if is_idle_name(n)), 0)


def assign_first(owner, made):
    """Makes the chosen one of the actions made for owner ([(sink, post,
    file report)]) its active action (with its slot) and runs its post
    step (the pose bones' rotation modes of a skeletal action)."""
    sink, post, fr = made[pick_first([fr.path.replace("\\", "/").rsplit("/", 1)[-1] for _s, _p, fr in made])]
    kept = compat.assign(owner, sink)
    if kept is not None:
        fr.notes.append(f"{owner.name}'s previous action {kept.name!r} was replaced; it keeps a "
                        "fake user so that saving does not lose it")
    if post:
        post()
    name = sink.action.name
    fr.kept[name] = "assigned" + (f", {fr.kept[name]}" if name in fr.kept else "")
