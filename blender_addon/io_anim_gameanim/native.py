"""Finds the gameanim C module.  The add-on stays importable without it:
the import operator then reports how to install it."""
import os
import sys

INSTALL_HINT = (
    "the gameanim C module is not installed: install it into Blender's Python "
    "(e.g. `<blender python> -m pip install gameanim`), or copy the built "
    "gameanim*.so / .pyd into the add-on's _native folder, or point the "
    "GAMEANIM_PATH environment variable at the folder that holds it"
)


class GameanimMissing(ImportError):
    pass


def _candidate_dirs():
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "_native")
    for d in os.environ.get("GAMEANIM_PATH", "").split(os.pathsep):
        if d:
            yield d


def require():
    """The gameanim module, or GameanimMissing with an install hint."""
    try:
        import gameanim

        return gameanim
    except ImportError:
        pass
    for d in _candidate_dirs():
        if os.path.isdir(d) and d not in sys.path:
            sys.path.append(d)
            try:
                import gameanim

                return gameanim
            except ImportError:
                sys.path.remove(d)
    raise GameanimMissing(INSTALL_HINT)


def available():
    try:
        require()
        return True
    except GameanimMissing:
        return False
