"""Saving (Animation.save, gameanim.save, gameanim.write_atomic; the CLI and
the Blender export go through them): killed saves leave no temporary files
and never a partial target, errors name the caller's path and say what is
wrong, the file and then its folder are synced, a symlink's target is
replaced through the link.  The logic is gameanim/_save.py (docs/saving.md)."""
import errno
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import gameanim
import gameanim._save as _save
from conftest import SAMPLES

LONG = SAMPLES / "j3d" / "long_60x600.bck"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="O_TMPFILE, flock and /proc are Linux")


def temps(folder):
    """Every temporary-looking file in folder: hidden names ending .tmp."""
    return sorted(n for n in os.listdir(folder) if n.startswith(".") and n.endswith(".tmp"))


@pytest.fixture(params=["unnamed", "named"])
def scheme(request, monkeypatch):
    """Runs a test with the O_TMPFILE path (where the OS has it) and with
    the named-temporary-file fallback (other OSes and file systems)."""
    if request.param == "named":
        monkeypatch.setattr(_save, "_O_TMPFILE", 0)
    elif not _save._O_TMPFILE:
        pytest.skip("no O_TMPFILE here")
    return request.param


# ---------------------------------------------------------------------------
# Killed saves

CHILD = r"""
import sys, gameanim, gameanim._save
scheme, how, target, sample = sys.argv[1:5]
if scheme == "named":
    gameanim._save._O_TMPFILE = 0
if how == "save":
    a = gameanim.load(sample)
    b = a.copy()
    t = b.tracks[0]
    t.values = [v + 1.0 for v in t.values]
    jobs = [lambda: a.save(target), lambda: gameanim.save(b, target)]
else:
    data = [open(p, "rb").read() for p in sys.argv[5:7]]
    jobs = [lambda: gameanim.write_atomic(target, data[0]), lambda: gameanim.write_atomic(target, data[1])]
print("ready", flush=True)
i = 0
while True:
    jobs[i % 2]()
    i += 1
"""


def big_contents(folder):
    """Two different contents of 4-5 MB made from the sample's encoding."""
    enc = gameanim.load(LONG).to_bytes()
    a = enc * 24
    b = bytes(reversed(enc)) * 22
    pa, pb = folder / "A.src", folder / "B.src"
    pa.write_bytes(a)
    pb.write_bytes(b)
    return a, b, pa, pb


@linux_only
@pytest.mark.parametrize("scheme_name,how", [("unnamed", "write_atomic"), ("named", "write_atomic"), ("unnamed", "save")])
def test_killed_saves_leave_no_temp_files_and_no_partial_target(tmp_path, scheme_name, how):
    if scheme_name == "unnamed" and not _save._O_TMPFILE:
        pytest.skip("no O_TMPFILE here")
    src = tmp_path / "src"
    src.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    target = out / "anim.bck"
    if how == "save":
        a = gameanim.load(LONG)
        b = a.copy()
        t = b.tracks[0]
        t.values = [v + 1.0 for v in t.values]
        contents = {a.to_bytes(), b.to_bytes()}
        extra = []
    else:
        a_bytes, b_bytes, pa, pb = big_contents(src)
        contents = {a_bytes, b_bytes}
        extra = [str(pa), str(pb)]
    first = next(iter(contents))
    target.write_bytes(first)
    env = dict(os.environ)
    pkg_root = str(Path(gameanim.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
    rng = random.Random(24)
    seen_temps = 0
    for _ in range(30):
        p = subprocess.Popen([sys.executable, "-c", CHILD, scheme_name, how, str(target), str(LONG), *extra],
                             stdout=subprocess.PIPE, env=env)
        try:
            assert p.stdout.readline() == b"ready\n"
            time.sleep(rng.uniform(0.0, 0.25))
        finally:
            p.send_signal(signal.SIGKILL)
            p.wait()
            p.stdout.close()
        assert target.read_bytes() in contents, "a killed save left a partial target"
        seen_temps += len(temps(out))
    if scheme_name == "named":
        # the fallback does leave files when killed: the next save removes them
        assert seen_temps > 0
    else:
        # O_TMPFILE: a temporary file has a name only between its link and the rename
        assert seen_temps <= 3
    new = b"the last save"
    gameanim.write_atomic(target, new)
    assert sorted(os.listdir(out)) == ["anim.bck"]
    assert target.read_bytes() == new


# ---------------------------------------------------------------------------
# Concurrent writers and stale temporary files

@linux_only
def test_stale_temp_files_of_the_target_only_are_removed(tmp_path, scheme):
    target = tmp_path / "walk.bck"
    target.write_bytes(b"old")
    stale = [tmp_path / ".walk.bck.abcd1234.tmp", tmp_path / ".walk.bck.zz_9zz_9.tmp"]
    kept = [tmp_path / ".walk.bck.tmp", tmp_path / ".walk.bck.abcd123.tmp", tmp_path / ".run.bck.abcd1234.tmp",
            tmp_path / "walk.bck.abcd1234.tmp", tmp_path / ".walk.bckx.abcd1234.tmp"]
    for f in stale + kept:
        f.write_bytes(b"partial")
    gameanim.write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert all(not f.exists() for f in stale)
    assert all(f.exists() for f in kept)


@linux_only
def test_a_live_writers_temp_file_is_kept(tmp_path, scheme):
    import fcntl
    target = tmp_path / "walk.bck"
    live = tmp_path / ".walk.bck.live0001.tmp"
    fd = os.open(live, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as a save in progress in another process holds it
        gameanim.write_atomic(target, b"one")
        assert live.exists()
    finally:
        os.close(fd)
    gameanim.write_atomic(target, b"two")  # its writer is gone: now it is stale
    assert not live.exists()
    assert sorted(os.listdir(tmp_path)) == ["walk.bck"]


def test_long_names_get_a_short_temp_name(tmp_path, scheme):
    name = "a" * 250 + ".bck"
    gameanim.write_atomic(tmp_path / name, b"x")
    (tmp_path / ("." + name[:8] + ".tmp")).write_bytes(b"")  # not ours
    gameanim.write_atomic(tmp_path / name, b"y")
    assert (tmp_path / name).read_bytes() == b"y"
    assert sorted(os.listdir(tmp_path)) == sorted([name, "." + name[:8] + ".tmp"])


def test_without_flock_only_old_temp_files_are_removed(tmp_path, monkeypatch):
    """Windows (no flock): a temp file older than a minute is stale; an open
    one cannot be removed there anyway."""
    monkeypatch.setattr(_save, "_O_TMPFILE", 0)
    monkeypatch.setattr(_save, "fcntl", None)
    old, fresh = tmp_path / ".a.bck.old00001.tmp", tmp_path / ".a.bck.new00001.tmp"
    old.write_bytes(b"")
    fresh.write_bytes(b"")
    t = time.time() - 120
    os.utime(old, (t, t))
    gameanim.write_atomic(tmp_path / "a.bck", b"x")
    assert not old.exists() and fresh.exists()
    assert (tmp_path / "a.bck").read_bytes() == b"x"


@linux_only
def test_concurrent_saves_of_one_target(tmp_path, scheme):
    target = tmp_path / "t.bck"
    payloads = [bytes([i]) * 200_000 for i in range(4)]
    errors = []

    def run(p):
        try:
            for _ in range(15):
                gameanim.write_atomic(target, p)
        except BaseException as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=run, args=(p,)) for p in payloads]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert target.read_bytes() in payloads
    assert os.listdir(tmp_path) == ["t.bck"]


# ---------------------------------------------------------------------------
# Error messages: the caller's path, what is wrong with it, no temp names

def check_message(e, user_path, *words):
    text = str(e)
    assert e.filename == os.fspath(user_path)
    assert ".tmp" not in text and "/proc" not in text
    for w in words:
        assert w in text, text


def test_missing_folder(tmp_path, scheme):
    path = str(tmp_path / "no" / "such" / "x.jba")
    with pytest.raises(FileNotFoundError) as e:
        gameanim.write_atomic(path, b"x")
    check_message(e.value, path, "does not exist", str(tmp_path / "no" / "such"))
    assert os.listdir(tmp_path) == []


def test_parent_is_a_file(tmp_path, scheme):
    (tmp_path / "notes.txt").write_text("x")
    path = str(tmp_path / "notes.txt" / "x.bck")
    with pytest.raises(NotADirectoryError) as e:
        gameanim.write_atomic(path, b"x")
    check_message(e.value, path, f"'{tmp_path / 'notes.txt'}'", "is a file, not a folder")


def test_target_is_a_folder(tmp_path, scheme):
    (tmp_path / "d.bck").mkdir()
    path = str(tmp_path / "d.bck")
    with pytest.raises(IsADirectoryError) as e:
        gameanim.save(gameanim.load(LONG), path)
    check_message(e.value, path, "is a folder, not a file")
    assert os.listdir(tmp_path) == ["d.bck"]


def test_relative_and_bytes_paths_are_named_as_given(tmp_path, monkeypatch, scheme):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as e:
        gameanim.write_atomic("missing/x.bck", b"x")
    check_message(e.value, "missing/x.bck", "does not exist")
    with pytest.raises(FileNotFoundError) as e:
        gameanim.write_atomic(b"missing/x.bck", b"x")
    assert e.value.filename == b"missing/x.bck"


@pytest.mark.skipif(IS_ROOT or not hasattr(os, "geteuid"), reason="root writes into read-only folders")
def test_read_only_folder_real(tmp_path, scheme):
    d = tmp_path / "ro"
    d.mkdir()
    f = d / "walk.bck"
    f.write_bytes(b"old")
    os.chmod(d, 0o555)
    try:
        with pytest.raises(PermissionError) as e:
            gameanim.write_atomic(f, b"new")
        check_message(e.value, f, "is not writable", "cannot be replaced atomically")
        assert f.read_bytes() == b"old"
    finally:
        os.chmod(d, 0o755)


def deny_creating_in(monkeypatch, folder, err):
    """os.open refuses to create anything in folder, as a read-only folder
    does (works as root, whom permissions do not stop)."""
    real_open = os.open
    folder = os.fspath(folder)

    def fake_open(path, flags, *a, **k):
        p = os.fspath(path)
        creating = flags & os.O_CREAT or (_save._O_TMPFILE and flags & _save._O_TMPFILE == _save._O_TMPFILE)
        if creating and (p == folder or os.path.dirname(p) == folder):
            raise OSError(err, os.strerror(err), p)
        return real_open(path, flags, *a, **k)
    monkeypatch.setattr(os, "open", fake_open)


def test_read_only_folder_with_a_writable_file(tmp_path, monkeypatch, scheme):
    f = tmp_path / "walk.bck"
    f.write_bytes(b"old")
    deny_creating_in(monkeypatch, tmp_path, errno.EACCES)
    with pytest.raises(PermissionError) as e:
        gameanim.write_atomic(f, b"new")
    check_message(e.value, f, f"'{tmp_path}'", "is not writable", "cannot be replaced atomically")
    assert f.read_bytes() == b"old"


def test_read_only_folder_new_file(tmp_path, monkeypatch, scheme):
    deny_creating_in(monkeypatch, tmp_path, errno.EACCES)
    with pytest.raises(PermissionError) as e:
        gameanim.write_atomic(tmp_path / "new.bck", b"new")
    check_message(e.value, tmp_path / "new.bck", "permission denied", "is not writable")


def test_read_only_file_system(tmp_path, monkeypatch, scheme):
    deny_creating_in(monkeypatch, tmp_path, errno.EROFS)
    with pytest.raises(OSError) as e:
        gameanim.write_atomic(tmp_path / "new.bck", b"new")
    assert e.value.errno == errno.EROFS
    check_message(e.value, tmp_path / "new.bck", "read-only file system")


def test_disk_full(tmp_path, monkeypatch, scheme):
    f = tmp_path / "walk.bck"
    f.write_bytes(b"old")
    real_write = os.write

    def full(fd, data):
        if len(data) > 1000:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)
    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OSError) as e:
        gameanim.write_atomic(f, b"x" * 5000)
    assert e.value.errno == errno.ENOSPC
    check_message(e.value, f, "no space left", "unchanged")
    assert f.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["walk.bck"]


@pytest.mark.parametrize("err,stage,exists,words", [
    (errno.ENOENT, "create", False, ["does not exist"]),
    (errno.ENOTDIR, "create", False, ["not a folder"]),
    (errno.EISDIR, "replace", True, ["is a folder, not a file"]),
    (errno.EACCES, "create", True, ["not writable", "cannot be replaced atomically"]),
    (errno.EPERM, "create", False, ["permission denied", "not writable"]),
    (errno.EACCES, "replace", True, ["does not allow replacing", "open in another program"]),
    (errno.EROFS, "create", False, ["read-only file system"]),
    (errno.ENOSPC, "write", True, ["no space left on the disk", "unchanged"]),
    (getattr(errno, "EDQUOT", 122), "write", True, ["quota"]),
    (errno.ELOOP, "check", False, ["symbolic links"]),
    (errno.ENAMETOOLONG, "create", False, ["name is too long"]),
])
def test_error_mapping(tmp_path, err, stage, exists, words):
    """The errno -> message table, for the cases a test cannot provoke
    (as root, or without a full disk)."""
    user = "some/where/x.bck"
    e = _save._error(err, user, str(tmp_path / "f"), stage, exists, "strerror")
    assert isinstance(e, OSError) and e.errno == err and e.filename == user
    for w in words:
        assert w in e.strerror
    assert user in str(e)


def test_cli_names_the_path(tmp_path):
    out = tmp_path / "no" / "x.json"
    p = subprocess.run([sys.executable, "-m", "gameanim", "dump", str(LONG), "-o", str(out)], capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=str(Path(gameanim.__file__).resolve().parent.parent)))
    assert p.returncode == 1
    assert str(out) in p.stderr and "does not exist" in p.stderr and ".tmp" not in p.stderr


# ---------------------------------------------------------------------------
# Symlinks

@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="symlinks")
def test_saving_through_a_symlink_replaces_its_target(tmp_path, scheme):
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    links = tmp_path / "links"
    links.mkdir()
    real = real_dir / "walk.bck"
    real.write_bytes(b"old")
    os.chmod(real, 0o640)
    link = links / "walk.bck"
    link.symlink_to(Path("..") / "real" / "walk.bck")
    anim = gameanim.load(LONG)
    anim.save(link)
    assert link.is_symlink() and os.readlink(link) == os.path.join("..", "real", "walk.bck")
    assert real.read_bytes() == anim.to_bytes()
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(os.listdir(real_dir)) == ["walk.bck"] and sorted(os.listdir(links)) == ["walk.bck"]
    # a chain of links, and a dangling link: the file it names is created
    link2 = tmp_path / "l2"
    link2.symlink_to(link)
    gameanim.write_atomic(link2, b"via two links")
    assert real.read_bytes() == b"via two links" and link2.is_symlink() and link.is_symlink()
    dangling = links / "new.bck"
    dangling.symlink_to(real_dir / "new.bck")
    gameanim.write_atomic(dangling, b"new")
    assert dangling.is_symlink() and (real_dir / "new.bck").read_bytes() == b"new"


# ---------------------------------------------------------------------------
# Modes, durability

@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_modes(tmp_path, scheme):
    old = os.umask(0o027)
    try:
        gameanim.write_atomic(tmp_path / "new.bck", b"x")
        assert stat.S_IMODE((tmp_path / "new.bck").stat().st_mode) == 0o640
        os.chmod(tmp_path / "new.bck", 0o604)
        gameanim.write_atomic(tmp_path / "new.bck", b"y")
        assert stat.S_IMODE((tmp_path / "new.bck").stat().st_mode) == 0o604
    finally:
        os.umask(old)


@pytest.mark.skipif(sys.platform == "win32", reason="folders are not synced on Windows")
def test_file_then_folder_are_synced(tmp_path, monkeypatch, scheme):
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append("fsync folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        return real_fsync(fd)

    def replace(a, b, **k):
        events.append("replace")
        return real_replace(a, b, **k)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    gameanim.write_atomic(tmp_path / "a.bck", b"x" * 1000)
    assert events == ["fsync file", "replace", "fsync folder"]


@linux_only
def test_system_calls(tmp_path):
    """Under strace: O_TMPFILE, fsync of the file, linkat, rename, then
    fsync of the folder."""
    if not shutil.which("strace"):
        pytest.skip("no strace")
    target = tmp_path / "a.bck"
    code = f"import gameanim; gameanim.write_atomic({str(target)!r}, b'x' * 100)"
    env = dict(os.environ, PYTHONPATH=str(Path(gameanim.__file__).resolve().parent.parent))
    p = subprocess.run(["strace", "-f", "-e", "trace=openat,fsync,linkat,rename,renameat,renameat2", sys.executable,
                        "-c", code], capture_output=True, text=True, env=env)
    if p.returncode != 0 and "ptrace" in p.stderr:
        pytest.skip("ptrace is not permitted here")
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if str(tmp_path) in ln or "fsync(" in ln or "linkat(" in ln]
    tmpfile = next(i for i, ln in enumerate(lines) if "O_TMPFILE" in ln)
    fd = re.search(r"= (\d+)$", lines[tmpfile]).group(1)
    sync_file = next(i for i, ln in enumerate(lines) if ln.startswith(f"fsync({fd})") or f"fsync({fd})" in ln)
    link = next(i for i, ln in enumerate(lines) if "linkat(" in ln and f"/proc/self/fd/{fd}" in ln)
    ren = next(i for i, ln in enumerate(lines) if "rename" in ln and str(target) in ln)
    dir_open = next(i for i, ln in enumerate(lines) if i > ren and "O_DIRECTORY" in ln and "openat(" in ln)
    dfd = re.search(r"= (\d+)$", lines[dir_open]).group(1)
    sync_dir = next(i for i, ln in enumerate(lines) if i > dir_open and f"fsync({dfd})" in ln)
    assert tmpfile < sync_file < link < ren < dir_open < sync_dir


def test_an_error_without_errno_keeps_its_words(tmp_path, monkeypatch, scheme):
    def boom(*a, **k):
        raise OSError("simulated failure")
    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError) as e:
        gameanim.write_atomic(tmp_path / "a.bck", b"x")
    assert e.value.errno is None
    assert str(e.value) == f"simulated failure: '{tmp_path / 'a.bck'}'"
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------------------
# What Windows does differently (tests/test_cross.py runs this whole file
# under wine with the Windows build; these pin the same rules on Linux)

def test_messages_quote_paths_as_typed_without_doubling_backslashes():
    assert _save._quote(r"C:\Users\me\walk.bck") == r"'C:\Users\me\walk.bck'"
    assert _save._quote("/home/me/walk.bck") == "'/home/me/walk.bck'"
    assert _save._quote("it's\n") == repr("it's\n")  # a quote or an unprintable: repr
    text = str(_save._error(errno.EROFS, "x.bck", r"C:\games\anims", "create"))
    assert r"'C:\games\anims'" in text and "\\\\" not in text.split(":", 1)[1].rsplit(":", 1)[0]


def test_not_found_under_a_file_is_reported_as_not_a_folder(tmp_path):
    """Windows answers "not found" (ENOENT) for a path under a file, where
    POSIX answers ENOTDIR: both become NotADirectoryError naming the file."""
    (tmp_path / "notes.txt").write_text("x")
    folder = str(tmp_path / "notes.txt" / "sub")
    e = _save._error(errno.ENOENT, folder + "/x.bck", folder, "create", False, "not found")
    assert isinstance(e, NotADirectoryError)
    assert f"'{tmp_path / 'notes.txt'}' is a file, not a folder" in str(e)
    e = _save._error(errno.ENOENT, str(tmp_path / "no" / "x.bck"), str(tmp_path / "no"), "create", False)
    assert isinstance(e, FileNotFoundError)


def test_a_failed_write_closes_its_temp_file_before_removing_it(tmp_path, monkeypatch):
    """Windows cannot remove an open file: the temporary file is closed
    first, then removed, so a failed save leaves nothing behind there."""
    monkeypatch.setattr(_save, "_O_TMPFILE", 0)
    open_fds = set()
    real_open, real_close, real_unlink = os.open, os.close, os.unlink

    def opening(name, *a, **k):
        fd = real_open(name, *a, **k)
        open_fds.add((fd, os.fspath(name)))
        return fd

    def closing(fd):
        open_fds.difference_update({x for x in open_fds if x[0] == fd})
        return real_close(fd)

    def unlinking(name, *a, **k):
        assert not any(n == os.fspath(name) for _, n in open_fds), "removed while still open"
        return real_unlink(name, *a, **k)

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "open", opening)
    monkeypatch.setattr(os, "close", closing)
    monkeypatch.setattr(os, "unlink", unlinking)
    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OSError):
        gameanim.write_atomic(tmp_path / "walk.bck", b"x" * 10)
    assert os.listdir(tmp_path) == []


def test_a_path_that_realpath_cannot_resolve_is_saved_by_its_absolute_path(tmp_path, monkeypatch):
    """Windows' realpath fails on some long names (ERROR_MORE_DATA); the
    save then uses the absolute path."""
    def failing(p, *a, **k):
        raise OSError(234, "More data is available", p)
    monkeypatch.setattr(os.path, "realpath", failing)
    gameanim.write_atomic(tmp_path / ("a" * 250 + ".bck"), b"x")
    assert (tmp_path / ("a" * 250 + ".bck")).read_bytes() == b"x"
