"""Shared by the Python-level fuzz targets (fuzz/python/fuzz_*.py).

Input decoding: `Input(data)` turns the fuzzer's bytes into choices (ints,
floats with every special value, strings with surrogates, NULs and huge
lengths, arrays of wrong types and lengths).  When the bytes run out every
choice is its smallest one, so short inputs are cheap and every input is
valid.  The same decoder serves both modes:

* atheris (`python3 fuzz/python/fuzz_api.py -max_total_time=30`): libFuzzer
  mutates the bytes; a finding stops the run and leaves `crash-*`;
  replay with `python3 fuzz/python/fuzz_api.py crash-...`.
* plain (`python3 fuzz/python/fuzz_api.py --plain N [--seed S]`): N inputs of
  random bytes from a seeded generator, without atheris (what
  tests/test_fuzz_python.py runs).  A finding writes the input to
  fuzz/python/findings/ (replay: `--replay FILE`, no atheris needed).

What counts as a finding: any exception a target lets through other than
the documented ones (`ok()`): gameanim.FormatError / EncodeError,
ValueError, TypeError, OverflowError, IndexError, KeyError, and MemoryError
only when the input asked for a huge size.  SystemError, a crash and a
failed invariant (AssertionError, raised by `check()`) are findings.
Warnings are ignored.
"""
import array
import faulthandler
import hashlib
import math
import os
import random
import struct
import sys
import types
import warnings

import gameanim

HERE = os.path.dirname(os.path.abspath(__file__))
FORMATS = ("bck", "btk", "bca", "bk", "jba", "brk", "bpk", "btp", "bva", "j3d_bca")
CHANNELS = ("scale", "rotation", "translation", "rotation_quaternion")
REENCODE = (None, "raw", "full")
ALLOWED = (gameanim.FormatError, gameanim.EncodeError, ValueError, TypeError, OverflowError,
           IndexError, KeyError)
HUGE = 1 << 40  # a size asked for as "huge"

SPECIAL_FLOATS = (0.0, -0.0, 1.0, -1.0, 0.5, math.inf, -math.inf, math.nan, 1e-45, -1e-45, 1.4e-45,
                  3.4028234663852886e38, -3.4028234663852886e38, 3.5e38, 1e300, -1e300, 5e-324, 1e-38,
                  2.0, 30.0, 60.0, 0.1, 65535.0, 65536.0, 32767.0, -32768.0, 2147483648.0, 1e9)
SPECIAL_INTS = (0, 1, -1, 2, 3, 4, 15, 16, 255, 256, 65535, 65536, 32767, -32768, 2**31 - 1, 2**31,
                -(2**31), 2**32, 2**63 - 1, 2**63, -(2**63), 2**64, 10**30)
NAME_PIECES = ("", "a", "Root", "GOD", "bone_01", "\0", "a\0b", "\ud800", "\udfff", "\udc80",
               "\U0001f600", "é", "偰", "≒", "ｱ", "\u00a5", "~", "\x7f", "\xff", "\u3000", " ", "/", "\\",
               "%s%n", "\n", "\x80", "\u200b", "\ufeff")


class Input:
    """Choices decoded from fuzzer bytes."""

    def __init__(self, data):
        self.data = bytes(data)
        self.pos = 0
        self.huge = False  # the input asked for something huge: MemoryError is fine

    def byte(self):
        if self.pos >= len(self.data):
            return 0
        b = self.data[self.pos]
        self.pos += 1
        return b

    def take(self, n):
        b = self.data[self.pos:self.pos + n]
        self.pos += len(b)
        return b + bytes(n - len(b))

    def int(self, lo, hi):
        """An int in [lo, hi]."""
        span = hi - lo
        if span <= 0:
            return lo
        nbytes = (span.bit_length() + 7) // 8
        return lo + int.from_bytes(self.take(nbytes), "little") % (span + 1)

    def bool(self):
        return bool(self.byte() & 1)

    def choice(self, seq):
        return seq[self.int(0, len(seq) - 1)]

    def float(self):
        k = self.byte() % 8
        if k == 0:
            return self.choice(SPECIAL_FLOATS)
        if k == 1:
            return struct.unpack("<f", self.take(4))[0]  # any float32 bits: NaN payloads, denormals
        if k == 2:
            return struct.unpack("<d", self.take(8))[0]
        if k == 3:
            return float(self.int(-1000, 1000))
        return (self.int(0, 65535) - 32768) / self.choice((1.0, 16.0, 256.0, 4096.0, 32768.0))

    def any_int(self):
        if self.byte() % 4 == 0:
            return self.choice(SPECIAL_INTS)
        return self.int(-4, 300)

    def size(self, small=8):
        """A length: mostly small, sometimes huge (which makes MemoryError fine)."""
        k = self.byte() % 32
        if k == 31:
            self.huge = True
            return self.choice((HUGE, 2**31, 2**32 + 1, 2**63 - 1))
        if k == 30:
            return self.int(0, 5000)
        return self.int(0, small)

    def text(self):
        """A name: pieces with unicode, surrogates, NULs; sometimes huge."""
        k = self.byte() % 16
        if k == 15:
            n = self.choice((255, 256, 1023, 1024, 65535, 65536, 1 << 20))
            return self.choice(("a", "é", "\U0001f600")) * n
        if k == 14:
            return self.take(self.int(0, 16)).decode("latin-1")
        if k == 13:
            return "".join(chr(self.int(0, 0x10FFFF)) for _ in range(self.int(0, 6)))
        return "".join(self.choice(NAME_PIECES) for _ in range(self.int(0, 4)))

    def target(self, fmt=None):
        """A track target: an index, a name, or something of the wrong type."""
        k = self.byte() % 16
        if k < 8:
            return self.int(0, 40)
        if k < 13 or fmt == "jba":
            return self.text()
        return self.choice((self.any_int(), -1, 1.5, None, b"GOD", ("a",), math.nan, True))

    def floats(self, n):
        """n numbers as a list, an array('f' / 'd'), a tuple, bytes or a range, or junk."""
        n = min(n, 4096)
        k = self.byte() % 16
        vals = [self.float() for _ in range(min(n, 64))]
        vals += [vals[i % len(vals)] if vals else 0.0 for i in range(len(vals), n)]
        if k == 0:
            return array.array("d", vals)
        if k == 1:
            try:
                return array.array("f", vals)
            except OverflowError:
                return array.array("d", vals)
        if k == 2:
            return tuple(vals)
        if k == 3:
            return range(n)
        if k == 4:
            return self.choice(("abc", b"\0\0\0\0", [None], [1, "x"], [[1.0]], 3.0, object(),
                                array.array("i", range(n)), array.array("b", [1] * n), memoryview(b"\0" * 4 * n),
                                bytearray(4 * n), [2**80], {1.0: 2.0}, iter(vals)))
        return vals

    def codes(self, n):
        n = min(n, 4096)
        k = self.byte() % 8
        if k == 7:
            return self.int(-1, 4)
        if k == 6:
            return self.choice((bytes([self.int(0, 3)] * n), array.array("i", [self.int(-1, 3)] * n), "ab", None,
                                [1.5] * n, [2**40] * n))
        return [self.choice((0, 0, 1, 1, 2, 2, 3, -1, 255, 256)) for _ in range(n)]

    def matrix(self):
        """A 4x4 matrix (rows or 16 numbers), None, or a bad shape."""
        k = self.byte() % 12
        if k == 0:
            return None
        if k < 4:  # a rest-like transform
            m = [[1.0 if i == j else 0.0 for j in range(4)] for i in range(4)]
            for i in range(3):
                m[i][3] = self.float() if self.bool() else float(self.int(-5, 5))
            if self.bool():
                c, s = math.cos(self.float() % 7), math.sin(self.float() % 7)
                m[0][0], m[0][1], m[1][0], m[1][1] = c, -s, s, c
            return m
        if k < 7:
            return [[self.float() for _ in range(4)] for _ in range(4)]
        if k < 9:
            return [self.float() for _ in range(16)]
        return self.choice(([1, 2, 3], [[1, 2, 3, 4]] * 3, [[1, 2, 3]] * 4, "abcd" * 4, [None] * 16, 5,
                            [[1, 2, 3, 4]] * 4 + [[0]], [self.float()] * 17, ((1.0,) * 4,) * 4))

    def track(self, fmt=None, n=None):
        """A Track made of random arguments (raises what Track() raises)."""
        if n is None:
            n = self.size(6)
        target = self.target(fmt)
        channel = self.choice(CHANNELS) if self.byte() % 16 else self.text()
        axis = self.int(0, 3) if self.byte() % 16 else self.any_int()
        times = self.floats(n) if self.byte() % 4 else sorted_times(self, n)
        values = self.floats(n if self.byte() % 8 else self.size(6))
        args = [target, channel, axis, times, values]
        kw = {}
        if self.bool():
            kw["in_slopes"] = self.floats(n if self.byte() % 8 else self.size(6))
            kw["out_slopes"] = self.floats(n if self.byte() % 8 else self.size(6))
        if self.bool():
            kw["interpolation"] = self.codes(n)
        if self.byte() % 16 == 0:
            kw[self.choice(("bogus", "target", "times", "axis"))] = self.float()
        cut = self.int(3, 5)  # some arguments by keyword
        for i, name in enumerate(("target", "channel", "axis", "times", "values")):
            if i >= cut:
                kw[name] = args[i]
        return gameanim.Track(*args[:cut], **kw)


def sorted_times(inp, n):
    n = min(n, 4096)
    t, out = 0.0, []
    for _ in range(n):
        t += inp.choice((0.0, 1.0, 1.0, 2.0, 0.5, 10.0))
        out.append(t)
    return out


def check(cond, what):
    """An invariant; a failure is a finding."""
    if not cond:
        raise AssertionError(what)


def same_floats(a, b):
    """Two float sequences bit-equal after float32 rounding (NaN == NaN)."""
    return bytes(array.array("f", a)) == bytes(array.array("f", b))


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def reload_check(out, fmt, compression=None):
    """Bytes that to_bytes() returned must load, say the same format, and
    write back byte for byte when not edited."""
    check(isinstance(out, bytes), "to_bytes() did not return bytes")
    try:
        again = gameanim.load(out)
    except Exception as e:  # noqa: BLE001 - any failure to reload our own output is a finding
        raise AssertionError(f"to_bytes() output does not load: {type(e).__name__}: {e}") from e
    check(again.format == fmt, f"reloaded as {again.format}, written as {fmt}")
    if compression is not None:
        check(again.compression == compression, f"reloaded compression {again.compression} != {compression}")
    check(not again.is_modified(), "a reloaded file counts as modified")
    try:
        back = quiet(again.to_bytes)
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"a reloaded file does not write back: {type(e).__name__}: {e}") from e
    check(back == out, "a reloaded file does not write back byte for byte")
    return again


def encode_all(anim, inp):
    """to_bytes() in each reencode mode (and a random compression /
    tolerance); each success must reload and round-trip.  Returns the
    reloaded animations."""
    got = []
    for mode in REENCODE:
        kw = {"reencode": mode}
        if inp.byte() % 4 == 0:
            kw["compression"] = inp.choice((None, "yaz0", "yay0", "lz77", "rarezip", "zip", ""))
        if inp.byte() % 4 == 0:
            kw["tolerance"] = inp.float()
        try:
            out = quiet(anim.to_bytes, **kw)
        except ALLOWED:
            continue
        comp = kw.get("compression", anim.compression)
        got.append(reload_check(out, anim.format, comp))
        RELOADS[0] += 1
    return got


def samples():
    root = os.path.join(os.path.dirname(HERE), "..", "samples")
    files = []
    for d, _, names in os.walk(root):
        files += [os.path.join(d, n) for n in names if not n.startswith(".")]
    files.sort()
    # the large files make every input slow; keep the small ones
    return [open(f, "rb").read() for f in files if os.path.getsize(f) <= 10 * 1024]


STATS = {"completed": 0}  # how inputs ended (printed by --plain), and successful encodes
RELOADS = [0]


def guarded(body):
    """The one-input function: runs body(Input(data)) and lets only findings through."""

    def one(data):
        inp = Input(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                body(inp)
                STATS["completed"] += 1
            except ALLOWED as e:
                STATS[type(e).__name__] = STATS.get(type(e).__name__, 0) + 1
            except MemoryError:
                if not inp.huge:
                    raise
            except RecursionError:
                raise
    return one


def main(body, name):
    """Entry point of a target: atheris mode, or --plain N / --replay FILE."""
    argv = sys.argv[1:]
    one = guarded(body)
    if argv and argv[0] == "--replay":
        for path in argv[1:]:
            with open(path, "rb") as f:
                one(f.read())
        print(f"{name}: replayed {len(argv) - 1} input(s), no finding")
        return
    if argv and argv[0] == "--plain":
        n = int(argv[1]) if len(argv) > 1 else 200
        seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 0
        plain(one, name, n, seed)
        print(f"{name}: {n} plain inputs (seed {seed}), no finding; ended: {STATS}; "
              f"encodes reloaded: {RELOADS[0]}")
        return
    import atheris

    # Python coverage only: the harness and gameanim/__init__.py are
    # instrumented (instrument_all() takes minutes), the C extension is not
    # (its libFuzzer targets are fuzz/fuzz_target.c)
    mods = [sys.modules[__name__], sys.modules[body.__module__], gameanim]
    for m in mods:
        for key, obj in list(vars(m).items()):
            if isinstance(obj, types.FunctionType) and obj.__module__ == m.__name__:
                setattr(m, key, atheris.instrument_func(obj))
            elif isinstance(obj, type) and obj.__module__ == m.__name__:
                for k2, meth in list(vars(obj).items()):
                    if isinstance(meth, types.FunctionType):
                        setattr(obj, k2, atheris.instrument_func(meth))
    one = guarded(getattr(sys.modules[body.__module__], body.__name__))
    atheris.Setup([sys.argv[0]] + argv, one)
    atheris.Fuzz()


def plain_inputs(n, seed):
    rng = random.Random(seed)
    for _ in range(n):
        size = rng.choice((0, 4, 16, 64, 256, 1024, 4096))
        yield rng.randbytes(rng.randint(0, size))


def plain(one, name, n, seed):
    if hasattr(faulthandler, "register") and hasattr(__import__("signal"), "SIGUSR1"):
        # kill -USR1 shows where a slow input is; to the process's own
        # stderr, since pytest's --capture=sys puts an object without a file
        # descriptor in sys.stderr
        faulthandler.register(__import__("signal").SIGUSR1, file=sys.__stderr__)
    for i, data in enumerate(plain_inputs(n, seed)):
        if os.environ.get("FUZZ_VERBOSE"):
            print(f"{name}: plain input {i}", file=sys.stderr, flush=True)
        try:
            one(data)
        except BaseException:
            d = os.path.join(HERE, "findings")
            os.makedirs(d, exist_ok=True)
            path = os.path.join(d, f"{name}-{hashlib.sha1(data).hexdigest()[:12]}")
            with open(path, "wb") as f:
                f.write(data)
            print(f"{name}: finding at plain input {i} (seed {seed}); input saved as {path}; "
                  f"replay: python3 {os.path.join(HERE, name + '.py')} --replay {path}", file=sys.stderr)
            raise


def choice_attr(inp):
    return inp.choice(("times", "values", "in_slopes", "out_slopes", "interpolation"))
