"""Finds the gameanim C module.  The add-on stays importable without it:
the import operator then reports how to install it.

Where the module comes from, in order:

1. already imported (`sys.modules`);
2. vendored in this package's `_native/` folder: the legacy add-on zip for
   Blender 3.4 - 4.1 ships it there; it is loaded from its file, without
   touching sys.path, so that the module built with this add-on wins over
   any other copy;
3. an ordinary `import gameanim`: the extension zip (Blender 4.2+) carries
   the gameanim wheel, which Blender installs into its extensions'
   site-packages; a `pip install gameanim` into Blender's Python works too;
4. the folders named by the GAMEANIM_PATH environment variable (developers:
   a build folder).

The module is built for the CPython 3.11 stable ABI: it is not loaded at
all in a Blender whose Python is older (official builds 3.4 - 4.0 bundle
3.10); the hint then says so.
"""
import importlib.machinery
import importlib.util
import os
import sys

MODULE = "gameanim"
MIN_PYTHON = (3, 11)

BASE_HINT = (
    "the gameanim C module is not installed: on Blender 4.2 or newer install the extension zip "
    "(io_anim_gameanim-<version>-<platform>.zip, which carries the gameanim wheel); on Blender 3.4 - 4.1 "
    "install the legacy zip (io_anim_gameanim-<version>-legacy-<platform>.zip, which carries the compiled "
    "module in io_anim_gameanim/_native); or `<blender python> -m pip install gameanim`, or point the "
    "GAMEANIM_PATH environment variable at the folder that holds gameanim*.so / .pyd"
)

# The hint shown to the user: BASE_HINT, plus why the last attempt failed
# (e.g. a vendored module for another platform, or a Blender whose Python is
# too old) once require() has failed.
INSTALL_HINT = BASE_HINT
_last_problem = None


class GameanimMissing(ImportError):
    pass


def _here():
    return os.path.dirname(os.path.abspath(__file__))


def vendored_dir():
    return os.path.join(_here(), "_native")


def vendored_files():
    """Module files in _native/ that this Python could load, best first."""
    d = vendored_dir()
    if not os.path.isdir(d):
        return []
    found = []
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(d, MODULE + suffix)
        if os.path.isfile(path) and path not in found:
            found.append(path)
    return found


def _load_file(path):
    """Loads the extension module at path as `gameanim`."""
    loader = importlib.machinery.ExtensionFileLoader(MODULE, path)
    spec = importlib.util.spec_from_file_location(MODULE, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE] = module
    try:
        loader.exec_module(module)
    except BaseException:
        sys.modules.pop(MODULE, None)
        raise
    return module


def _path_dirs():
    for d in os.environ.get("GAMEANIM_PATH", "").split(os.pathsep):
        if d:
            yield d


def _python_problem():
    if sys.version_info[:2] < MIN_PYTHON:
        return ("this Blender runs Python %d.%d; the gameanim module needs Python %d.%d or newer "
                "(Blender 4.1+, or a Blender built with the system Python 3.11 such as Debian's 3.4)"
                % (sys.version_info[0], sys.version_info[1], *MIN_PYTHON))
    return None


def _not_found(e):
    """True when an ImportError only says that there is no gameanim module."""
    return isinstance(e, ModuleNotFoundError) and e.name == MODULE


def require():
    """The gameanim module, or GameanimMissing with an install hint."""
    global _last_problem, INSTALL_HINT
    module = sys.modules.get(MODULE)
    if module is not None:
        return module
    problems = []
    too_old = _python_problem()
    if too_old:
        # built for the 3.11 stable ABI: an older Python may load it and then
        # misbehave, so it is not tried at all
        _last_problem = too_old
        INSTALL_HINT = hint()
        raise GameanimMissing(INSTALL_HINT)
    for path in vendored_files():
        try:
            return _load_file(path)
        except ImportError as e:
            problems.append(f"{os.path.relpath(path, _here())} could not be loaded ({e})")
    try:
        import gameanim

        return gameanim
    except ImportError as e:
        if not _not_found(e):
            problems.append(f"importing gameanim failed ({e})")
    for d in _path_dirs():
        if not os.path.isdir(d) or d in sys.path:
            continue
        sys.path.append(d)
        try:
            import gameanim

            return gameanim
        except ImportError as e:
            sys.path.remove(d)
            if not _not_found(e):
                problems.append(f"gameanim in GAMEANIM_PATH folder {d} could not be loaded ({e})")
    _last_problem = "; ".join(problems) or None
    INSTALL_HINT = hint()
    raise GameanimMissing(INSTALL_HINT)


def hint():
    """The install hint, with the reason of the last failed attempt."""
    if _last_problem:
        return f"{BASE_HINT} ({_last_problem})"
    return BASE_HINT


def available():
    try:
        require()
        return True
    except GameanimMissing:
        return False


def origin():
    """Where the loaded module came from: 'vendored', 'installed' or None."""
    module = sys.modules.get(MODULE)
    if module is None:
        return None
    path = os.path.abspath(getattr(module, "__file__", "") or "")
    return "vendored" if path.startswith(vendored_dir() + os.sep) else "installed"
