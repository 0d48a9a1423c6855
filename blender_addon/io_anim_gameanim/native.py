"""Finds the gameanim package (its C core is gameanim._core).  The add-on
stays importable without it: the import operator then reports how to
install it.

Where the package comes from, in order:

1. already imported (`sys.modules`);
2. vendored in this package's `_native/gameanim/` folder: the legacy add-on
   zip for Blender 3.4 - 4.1 ships the package there (with its core
   `_core.abi3.so`); it is loaded from that folder, without touching
   sys.path, so that the package built with this add-on wins over any
   other copy;
3. an ordinary `import gameanim`: the extension zip (Blender 4.2+) carries
   the gameanim wheel, which Blender installs into its extensions'
   site-packages; a `pip install gameanim` into Blender's Python works too;
4. the folders named by the GAMEANIM_PATH environment variable, each holding
   the package folder `gameanim/` (developers: a build folder).

The core is built for the CPython 3.11 stable ABI: it is not loaded at
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
    "package in io_anim_gameanim/_native/gameanim); or `<blender python> -m pip install gameanim`, or point the "
    "GAMEANIM_PATH environment variable at the folder that holds the built package gameanim/ (with _core*.so / .pyd)"
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


def vendored_package():
    """The vendored package folder _native/gameanim/, or None."""
    d = os.path.join(vendored_dir(), MODULE)
    return d if os.path.isfile(os.path.join(d, "__init__.py")) else None


def _core_file(package):
    """The package's C core this Python would load (the first extension
    suffix that names a file), else any _core file there, else None."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(package, "_core" + suffix)
        if os.path.isfile(path):
            return path
    others = sorted(n for n in os.listdir(package) if n.startswith("_core.") and not n.endswith(".pyi"))
    return os.path.join(package, others[0]) if others else None


def _forget_package():
    for name in [n for n in sys.modules if n == MODULE or n.startswith(MODULE + ".")]:
        del sys.modules[name]


def _load_package(package):
    """Imports the package folder as `gameanim`: its submodules (the C core
    among them) are found through the spec's search location, so sys.path
    stays as it is."""
    spec = importlib.util.spec_from_file_location(
        MODULE, os.path.join(package, "__init__.py"), submodule_search_locations=[package])
    module = importlib.util.module_from_spec(spec)
    sys.modules[MODULE] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        _forget_package()
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
    package = vendored_package()
    if package:
        try:
            return _load_package(package)
        except ImportError as e:
            core = _core_file(package)
            what = os.path.relpath(core or package, _here()).replace(os.sep, "/")
            problems.append(f"{what} could not be loaded ({e})" if core else
                            f"{what} holds no C core (_core*.so / .pyd) for this platform ({e})")
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
