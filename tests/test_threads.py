"""The binding used from several threads at once (issue 24).

Every call that releases the GIL must work on a snapshot that no other
thread can change or free: the decoded tracks an Animation shares with its
Track objects, the tracks list, a Track's arrays, a caller's buffer.  Each
scenario runs in a child process, so that a crash (the use-after-free of
the issue ended in `double free or corruption`, exit 134) fails the test
instead of killing pytest.  tools/run_sanitized.sh runs them under ASan and
UBSan, tools/run_tsan.sh under ThreadSanitizer.
"""
import os
import subprocess
import sys
import textwrap

from conftest import SAMPLES

TIMEOUT = 300  # a crash under TSan can hang in its signal handler


def run_child(code, *args):
    """Runs code in a fresh interpreter (same environment: the sanitizer
    runtimes and PYTHONPATH carry over); returns its stdout, failing the
    test on any exit status but 0."""
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)], capture_output=True,
                       text=True, timeout=TIMEOUT)
    assert r.returncode == 0, f"exit {r.returncode}\n--- stdout\n{r.stdout[-4000:]}\n--- stderr\n{r.stderr[-8000:]}"
    return r.stdout


# The reproduction: sample() in a thread while the main thread reads
# .tracks for the first time.  The frames are built before the thread starts
# and the main thread reads .tracks as soon as the sampler is about to call
# into C, so the read lands while the GIL is released (with the frames built
# inside the thread, as in the issue, the main thread often reads .tracks
# first and the race is missed; 20,000 frames instead of 200,000 keep the
# result at 43 MB, which is still far longer than the read).
REPRO = """
    import sys, threading, array, gameanim
    path, runs, nframes, what = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    frames = array.array("d", (i * 0.01 for i in range(nframes)))
    for run in range(runs):
        a = gameanim.load(path)
        if what == "to_bytes":
            a.frame_count += 1  # an edit that leaves the tracks lazy: the encoder runs
        want = a.sample(frames[:3]) if what == "sample" else None
        out, started = [], threading.Event()

        def work():
            started.set()
            if what == "sample":
                out.append(a.sample(frames))
            elif what == "to_bytes":
                out.append(a.to_bytes(reencode="full"))
            else:
                out.append(gameanim.bake_pose(a, [(j, None, None) for j in range(60)], frames))

        t = threading.Thread(target=work)
        t.start()
        started.wait()
        n = len(a.tracks)
        t.join()
        assert n == 540, n
        if what == "sample":
            got = out[0]
            assert len(got) == n * nframes
            assert [got[k * nframes + i] for k in range(n) for i in range(3)] == list(want)
        elif what == "to_bytes":
            b = gameanim.load(out[0])
            assert len(b.tracks) == n and b.frame_count == a.frame_count
        else:
            assert len(out[0]) == 60 and all(len(c[0]) == 2 * nframes for c in out[0])
    print("ok")
"""


def test_sample_while_another_thread_reads_tracks():
    """Issue 24: exit 134 (double free) or a heap-use-after-free in
    lazy_view <- track_to_c <- clip_from_python before the fix."""
    assert run_child(REPRO, SAMPLES / "j3d" / "long_60x600.bck", 6, 20000, "sample").strip() == "ok"


def test_to_bytes_while_another_thread_reads_tracks():
    assert run_child(REPRO, SAMPLES / "j3d" / "long_60x600.bck", 4, 1, "to_bytes").strip() == "ok"


def test_bake_pose_while_another_thread_reads_tracks():
    assert run_child(REPRO, SAMPLES / "j3d" / "long_60x600.bck", 4, 2000, "bake_pose").strip() == "ok"


# Every public method of Animation and Track and the module's functions,
# from several threads at once on shared objects, with edits: key arrays
# assigned, tracks appended and removed, the tracks list replaced, Track
# objects dropped, input buffers written into while they are decoded.
STRESS = """
    import array, os, random, sys, threading, time, traceback
    import gameanim

    sys.setswitchinterval(1e-5)  # switch threads as often as possible
    samples, tmp, seconds, nthreads = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    names = ["j3d/long_60x600.bck", "j3d/walk_cycle.yaz0.bck", "j3d/water_scroll.btk", "bca/walk_even_lz77.bca",
             "bk/features_rarezip.bin", "jba/jawb_walk.jba", "jba/legacy_humanoid_106x300.jba"]
    files = {n: open(os.path.join(samples, n), "rb").read() for n in names}
    anims = [gameanim.load(files[n]) for n in names]
    fresh = [gameanim.load(files[n]) for n in names]  # tracks never read: the borrowed path
    shared_buf = bytearray(files["j3d/walk_cycle.yaz0.bck"])
    payload = gameanim.decompress("yaz0", bytes(shared_buf))
    payload_buf = bytearray(payload)
    frames = array.array("d", (i * 0.5 for i in range(300)))
    errors, counts, lock = [], {}, threading.Lock()
    stop = time.monotonic() + seconds
    expected = (gameanim.FormatError, gameanim.EncodeError, ValueError)

    def some_track(rng):
        a = rng.choice(anims)
        ts = a.tracks
        return ts[rng.randrange(len(ts))] if ts else None

    def check_sample(a, r):
        assert len(r) % len(frames) == 0

    def op_sample(rng):
        a = rng.choice(anims + fresh)
        check_sample(a, a.sample(frames))

    def op_to_bytes(rng):
        a = rng.choice(anims + fresh)
        try:
            data = a.to_bytes(reencode=rng.choice([None, "raw", "full"]))
        except expected:  # a track appended by another thread may not encode
            return
        b = gameanim.load(data)
        assert b.format == a.format

    def op_save(rng):
        a = rng.choice(anims + fresh)
        path = os.path.join(tmp, "out%d" % threading.get_ident())
        try:
            if rng.random() < 0.5:
                a.save(path)
            else:
                gameanim.save(a, path)
        except expected:
            return
        assert gameanim.load(path).format == a.format

    def op_bake(rng):
        a = rng.choice(anims + fresh)
        targets = {t.target for t in rng.choice(anims).tracks} if rng.random() < 0.5 else {0, 1, 2}
        bones = [(t, None, None) for t in list(targets)[:20]]
        try:
            res = gameanim.bake_pose(a, bones, frames, collapse=rng.random() < 0.5)
        except expected:
            return
        assert len(res) == len(bones)

    def op_small(rng):
        a = rng.choice(anims + fresh)
        a.is_modified()
        a.applied_tracks()
        assert a.original_bytes() is not None
        repr(a)
        a.copy().sample(frames[:2])
        t = some_track(rng)
        if t is not None:
            a.find(t.target, t.channel, t.axis)
        a.info, a.encode_report, a.entries, a.frame_count, a.fps, a.loop

    def op_track(rng):
        t = some_track(rng)
        if t is None:
            return
        n = len(t)
        assert len(t.evaluate(frames)) == len(frames)
        co, hl, hr, ip, inc, hb = t.bezier(flags=True)
        assert len(co) == 2 * len(ip)
        c = t.copy()
        c.evaluate(frames)
        repr(t)
        if len(c) >= 2 and rng.random() < 0.3:
            try:
                c.fit(0.01).bezier()
            except ValueError:
                pass

    def op_edit_arrays(rng):
        t = some_track(rng)
        if t is None:
            return
        k = rng.randrange(5)
        if k == 0:
            t.values = array.array("f", (v + 0.0 for v in t.values))
        elif k == 1:
            t.values = list(t.values)
        elif k == 2:
            t.in_slopes = t.in_slopes
        elif k == 3:
            vals = t.values
            if len(vals):
                vals[0] = vals[0]  # in place, same value
        else:
            t.times, t.values  # materialise

    def op_edit_list(rng):
        a = rng.choice(anims)
        k = rng.randrange(4)
        if k == 0:
            ts = a.tracks
            if ts:
                ts.append(ts[-1].copy())
                ts.pop()
        elif k == 1:
            a.tracks = list(a.tracks)
        elif k == 2:
            a.tracks = [t.copy() for t in a.tracks]
        else:
            a.entries = [dict(e) for e in a.entries]

    def op_reload(rng):
        # a fresh animation, its tracks read by one thread while others sample
        i = rng.randrange(len(names))
        b = gameanim.load(files[names[i]])
        fresh[i] = b
        if rng.random() < 0.5:
            len(b.tracks)

    def op_buffers(rng):
        k = rng.randrange(6)
        try:
            if k == 0:
                gameanim.load(shared_buf)
            elif k == 1:
                gameanim.detect(shared_buf)
            elif k == 2:
                gameanim.decompress("yaz0", shared_buf)
            elif k == 3:
                gameanim.compress("yaz0", payload_buf)
            elif k == 4:
                # another thread writes into the buffers being decoded
                p = rng.randrange(16, len(shared_buf))
                shared_buf[p] ^= 0xFF
                shared_buf[p] ^= 0xFF
                q = rng.randrange(len(payload_buf))
                payload_buf[q] ^= 0x55
                payload_buf[q] ^= 0x55
            else:
                assert gameanim.decompress("yaz0", gameanim.compress("yaz0", payload)) == payload
        except gameanim.FormatError:
            pass

    def op_module(rng):
        co = array.array("f", [0, 0, 10, 1, 20, 0])
        hl = array.array("f", [-1, 0, 9, 1, 19, 0])
        hr = array.array("f", [1, 0, 11, 1, 21, 0])
        ip = array.array("i", [2, 2, 2])
        assert len(gameanim.evaluate_fcurve(co, hl, hr, ip, frames)) == len(frames)
        r = gameanim.local_from_basis(None, None, [[0.0, 1.0]] * 3, [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
                                      [[1.0, 1.0]] * 3)
        assert len(r["quaternion"]) == 4
        assert len(gameanim.frame_at(frames, 30.0, "loop")) == len(frames)
        gameanim.formats(), gameanim.compressions(), gameanim.compression_extensions()

    ops = [op_sample, op_to_bytes, op_save, op_bake, op_small, op_track, op_edit_arrays, op_edit_list, op_reload,
           op_buffers, op_module]

    def worker(seed):
        rng = random.Random(seed)
        while time.monotonic() < stop:
            op = rng.choice(ops)
            try:
                op(rng)
            except Exception:
                with lock:
                    errors.append("%s: %s" % (op.__name__, traceback.format_exc()))
                return
            with lock:
                counts[op.__name__] = counts.get(op.__name__, 0) + 1

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        print("\\n".join(errors))
        sys.exit(1)
    missing = [op.__name__ for op in ops if not counts.get(op.__name__)]
    assert not missing, missing
    # the shared objects still work, and the untouched buffers decode as before
    for a in anims + fresh:
        a.sample(frames)
        gameanim.load(a.to_bytes())
    assert gameanim.decompress("yaz0", bytes(shared_buf)) == payload
    print("ok", sum(counts.values()))
"""


def test_every_method_from_several_threads(tmp_path):
    seconds = float(os.environ.get("GAMEANIM_THREAD_SECONDS", "6"))
    out = run_child(STRESS, SAMPLES, tmp_path, seconds, 6)
    assert out.startswith("ok"), out
