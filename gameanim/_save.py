"""Atomic saving: what `Animation.save`, `gameanim.save` and
`gameanim.write_atomic` do (the C binding calls `write_atomic` here).

The bytes go to a temporary file in the folder of the real target (a
symlink is followed, so the file it points to is replaced and the link
stays a link), are synced, and the temporary file is renamed over the
target; then the folder is synced.  A failure or a kill at any point leaves
the target as it was, old content or new, never partial.

* Linux: the temporary file has no name while it is written
  (``open(folder, O_TMPFILE)``); it gets one only when complete
  (``linkat`` through ``/proc/self/fd``), just before the rename, so a
  killed save leaves nothing behind.
* Elsewhere, or where the file system has no ``O_TMPFILE``: a named
  temporary file ``.<name>.<8 random characters>.tmp``, locked (``flock``)
  while its writer lives.  Every save first removes the temporary files of
  the same target that no live writer holds (on Windows, where there is no
  ``flock``: that no program has open and that are older than a minute).

Errors are `OSError`s of the usual subclasses whose ``filename`` is the
path the caller gave and whose ``strerror`` says what is wrong with it; the
temporary name never appears.  See docs/saving.md.
"""
import base64
import errno
import hashlib
import os
import re
import stat
import sys
import time

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

# module attributes so that tests can take the fallback paths
_O_TMPFILE = getattr(os, "O_TMPFILE", 0)
_PROC_FD = "/proc/self/fd"
_STALE_SECONDS = 60.0  # only without flock (Windows)
_CHUNK = 1 << 24

_FALLBACK_ERRNOS = {errno.EOPNOTSUPP, errno.EINVAL, errno.EISDIR, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}


def write_atomic(path, data):
    """Writes data (bytes-like) to path atomically; see the module text."""
    user = os.fspath(path)
    real = _real_path(os.fsdecode(user))
    folder, base = os.path.split(real)
    if os.path.isdir(real):
        raise _error(errno.EISDIR, user, folder, "check")
    try:
        st = os.stat(real)
        mode = stat.S_IMODE(st.st_mode)
    except OSError:
        mode = None
    try:
        _remove_stale(folder, base)
    except OSError:
        pass  # a folder we cannot list: the write below says why
    view = memoryview(data).cast("B")
    fd, tmpname = _open_unnamed(folder, mode, user)
    try:
        stage = "write"
        try:
            if fd is not None:
                _write_all(fd, view)
                _sync(fd)
                tmpname = _link(fd, folder, base)
                if tmpname is None:  # this system cannot name it: a named temporary file then
                    os.close(fd)
                    fd = None
            if fd is None:
                stage = "create"
                fd, tmpname = _open_named(folder, base, mode)
                stage = "write"
                _write_all(fd, view)
                _sync(fd)
            if sys.platform == "win32":  # a file cannot be renamed while open
                os.close(fd)
                fd = None
            stage = "replace"
            os.replace(tmpname, real)
            tmpname = None
        except OSError as e:
            raise _error(e.errno, user, folder, stage, mode is not None, _reason(e)) from None
        _sync_folder(folder)
    finally:
        if fd is not None:  # closed first: Windows cannot remove an open file
            os.close(fd)
        if tmpname is not None:
            try:
                os.unlink(tmpname)
            except OSError:
                pass


def _real_path(path):
    """The absolute path with symlinks resolved.  Windows' realpath can fail
    on a long name (ERROR_MORE_DATA from GetFinalPathNameByHandle); the
    plain absolute path serves then, as a link is rare there."""
    path = os.path.abspath(path)
    try:
        return os.path.realpath(path)
    except OSError:
        return path


def _quote(path):
    """A path in quotes as the user would type it: repr() only when it holds
    a quote or an unprintable character (repr doubles Windows' backslashes)."""
    return f"'{path}'" if path.isprintable() and "'" not in path else repr(path)


def _temp_prefix(base):
    """'.<name>.' (a digest of the name when the name is so long that the
    temporary name would exceed the file system's 255 bytes)."""
    if len(os.fsencode(base)) > 230:
        base = hashlib.sha1(os.fsencode(base)).hexdigest()[:16]
    return "." + base + "."


def _temp_pattern(base):
    return re.compile(re.escape(_temp_prefix(base)) + r"[a-z0-9_]{8}\.tmp\Z")


def _temp_name(folder, base):
    tag = base64.b32encode(os.urandom(5)).decode("ascii").lower()
    return os.path.join(folder, _temp_prefix(base) + tag + ".tmp")


def _open_unnamed(folder, mode, user):
    """(fd, None) for an unnamed temporary file in folder, or (None, None)
    when this system or file system has none."""
    if not _O_TMPFILE:
        return None, None
    try:
        fd = os.open(folder, _O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC, 0o600 if mode is not None else 0o666)
    except OSError as e:
        if e.errno in _FALLBACK_ERRNOS:
            return None, None
        raise _error(e.errno, user, folder, "create", mode is not None, _reason(e)) from None
    try:
        _give_mode(fd, mode)
        fcntl.flock(fd, fcntl.LOCK_EX)  # held until closed: the linked name is live
    except BaseException:
        os.close(fd)
        raise
    return fd, None


def _open_named(folder, base, mode):
    """(fd, name) of a new named temporary file in folder, locked."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOINHERIT", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    while True:
        name = _temp_name(folder, base)
        try:
            fd = os.open(name, flags, 0o600 if mode is not None else 0o666)
        except FileExistsError:
            continue
        try:
            _give_mode(fd, mode)
            if fcntl is None:
                return fd, name
            fcntl.flock(fd, fcntl.LOCK_EX)
            # a cleaner may have removed the file between its creation and
            # the lock: then start again with a new name
            if _same_file(name, fd):
                return fd, name
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def _link(fd, folder, base):
    """Gives the unnamed temporary file fd a temporary name in folder and
    returns it; None when linkat through /proc is not possible here."""
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None
    try:
        while True:
            name = _temp_name(folder, base)
            try:
                # linkat(AT_FDCWD, "/proc/self/fd/N", dfd, name, AT_SYMLINK_FOLLOW): unprivileged,
                # unlike AT_EMPTY_PATH (a dst_dir_fd makes Python call linkat, not link)
                os.link(f"{_PROC_FD}/{fd}", os.path.basename(name), dst_dir_fd=dfd, follow_symlinks=True)
                return name
            except FileExistsError:
                continue
            except OSError as e:
                if e.errno in (errno.ENOENT, errno.EXDEV, errno.EPERM, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTDIR):
                    return None
                raise
    finally:
        os.close(dfd)


def _give_mode(fd, mode):
    """A replaced file's mode goes to its replacement (a new file has the
    mode open() gives: 0666 less the umask).  Best effort, as chmod by
    someone who is not the owner fails."""
    if mode is not None and hasattr(os, "fchmod"):
        try:
            os.fchmod(fd, mode)
        except OSError:
            pass


def _write_all(fd, view):
    done = 0
    while done < len(view):
        done += os.write(fd, view[done:done + _CHUNK])


def _sync(fd):
    if fcntl is not None and hasattr(fcntl, "F_FULLFSYNC"):  # macOS: fsync does not flush the disk
        try:
            fcntl.fcntl(fd, fcntl.F_FULLFSYNC)
            return
        except OSError:
            pass
    os.fsync(fd)


def _sync_folder(folder):
    """Makes the rename durable.  Not on Windows (a folder cannot be
    opened); file systems that cannot sync a folder are ignored."""
    if sys.platform == "win32":
        return
    try:
        dfd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def _same_file(name, fd):
    try:
        a = os.stat(name, follow_symlinks=False)
    except OSError:
        return False
    b = os.fstat(fd)
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _remove_stale(folder, base):
    """Removes the temporary files of this target (our own name pattern)
    whose writer is gone: killed saves.  A live writer holds an flock on its
    file, so a save running in another process or thread keeps its file."""
    pattern = _temp_pattern(base)
    for entry in os.listdir(folder):
        if pattern.match(entry):
            _remove_if_stale(os.path.join(folder, entry))


def _remove_if_stale(name):
    if fcntl is None:
        # Windows: a file that a program has open cannot be removed; the age
        # covers the moment between a writer's close and its rename
        try:
            if time.time() - os.stat(name, follow_symlinks=False).st_mtime > _STALE_SECONDS:
                os.unlink(name)
        except OSError:
            pass
        return
    try:
        fd = os.open(name, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # a live writer holds it
        # holding the lock, nobody renames it: remove it if the name is
        # still this file
        if _same_file(name, fd):
            os.unlink(name)
    except OSError:
        pass
    finally:
        os.close(fd)


def _describe(err, folder, stage, exists):
    """What is wrong, in words, for errno err at stage ('check', 'create'
    the temporary file, 'write' it, 'replace' the target)."""
    if err == errno.ENOENT:
        if stage == "replace":
            return "the file was removed from the folder while it was being saved"
        missing = folder
        while True:
            up = os.path.dirname(missing)
            if up == missing or os.path.isdir(up):
                break
            missing = up
        if missing != folder:
            return f"the folder {_quote(folder)} does not exist ({_quote(missing)} is missing)"
        return f"the folder {_quote(folder)} does not exist"
    if err == errno.ENOTDIR:
        part = _file_in_the_way(folder)
        return f"{_quote(part)} is a file, not a folder" if part else f"{_quote(folder)} is not a folder"
    if err == errno.EISDIR:
        return "it is a folder, not a file"
    if err in (errno.EACCES, errno.EPERM):
        if stage == "replace":
            return (f"permission denied: the folder {_quote(folder)} does not allow replacing this file "
                    "(or it is read-only or open in another program)")
        if stage == "create" and exists:
            return (f"the folder {_quote(folder)} is not writable, so the file cannot be replaced atomically "
                    "(saving writes a new file next to it and renames it over the old one; the file's own "
                    "permissions do not matter)")
        return f"permission denied: the folder {_quote(folder)} is not writable"
    if err == errno.EROFS:
        return f"the folder {_quote(folder)} is on a read-only file system"
    if err == errno.ENOSPC:
        return "no space left on the disk; the file is unchanged"
    if err == getattr(errno, "EDQUOT", None):
        return "disk quota exceeded; the file is unchanged"
    if err == errno.ELOOP:
        return "too many levels of symbolic links"
    if err == errno.ENAMETOOLONG:
        return "the file name is too long"
    if err == errno.EXDEV:
        return "the file and its folder are on different file systems"
    return None


def _reason(e):
    """An OSError's own words without its file names (a temporary name)."""
    return e.strerror if e.errno is not None else (str(e.args[0]) if e.args else type(e).__name__)


def _file_in_the_way(folder):
    """The nearest part of folder's path that exists and is not a folder,
    or None."""
    part = folder
    while True:
        if os.path.lexists(part) and not os.path.isdir(part):
            return part
        up = os.path.dirname(part)
        if up == part:
            return None
        part = up


def _error(err, user, folder, stage, exists=True, strerror=None):
    """The OSError to raise: errno err, the user's path as filename."""
    if err == errno.ENOENT and stage != "replace" and _file_in_the_way(folder):
        err = errno.ENOTDIR  # Windows says "not found" where POSIX says "not a folder"
    text = (_describe(err, folder, stage, exists) if err else None) or strerror or os.strerror(err or 0)
    if err is None:  # an OSError without errno (raised by Python code): its words and the path
        return OSError(f"{text}: {_quote(user) if isinstance(user, str) else repr(user)}")
    return OSError(err, text, user)
