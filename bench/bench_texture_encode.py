"""Benchmark of the GX texture encoders (issue 34, docs/model_writer.md
"Textures"):

* CMPR: gameanim.encode_texture in Mpixel/s (target: at least 5), and the
  PSNR (RGB) of its fit against the plain DXT1-style fit of
  tests/dxt1_baseline.py (two most distant texels, 1/3 blend), both
  decoded as the GX does (tests/gx_reference.py);
* encode speed of every format, Mpixel/s (wall clock; CMPR also by
  CPU time, which a shared machine disturbs less).

The image is generated (tests/dxt1_baseline.py mixed_image: gradients,
noise, a checker of flat colours with hard edges), --side texels a side;
the Python baseline is scored on its top-left --baseline-side square.

    python3 bench/bench_texture_encode.py --gameanim <build dir> [--side 512] [--repeat 5] [--json out.json]
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FORMATS = ["I4", "I8", "IA4", "IA8", "RGB565", "RGB5A3", "RGBA8", "C4", "C8", "C14X2", "CMPR"]


def best_time(fn, repeat, clock=time.perf_counter):
    best = float("inf")
    for _ in range(repeat):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gameanim", required=True, help="the build folder holding the gameanim package")
    ap.add_argument("--side", type=int, default=512, help="the test image's side in texels")
    ap.add_argument("--baseline-side", type=int, default=128, help="the square the Python fit is scored on")
    ap.add_argument("--repeat", type=int, default=5, help="rounds; the best counts")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    sys.path.insert(0, os.path.abspath(args.gameanim))
    import gameanim
    import dxt1_baseline
    import gx_reference as gx

    side = args.side
    rgba = dxt1_baseline.mixed_image(side, side)
    mpix = side * side / 1e6
    speeds = {}
    for fmt in FORMATS:
        t = best_time(lambda: gameanim.encode_texture(rgba, side, side, fmt), args.repeat)
        speeds[fmt] = mpix / t
    # the encoder is single-threaded: its CPU time is what an idle core would take
    cpu = mpix / best_time(lambda: gameanim.encode_texture(rgba, side, side, "CMPR"), args.repeat, time.process_time)
    # quality on the baseline's square (the Python fit is slow)
    b = min(args.baseline_side, side)
    crop = b"".join(rgba[(y * side) * 4:(y * side + b) * 4] for y in range(b))
    ours = gameanim.encode_texture(crop, b, b, "CMPR")[0]
    plain = dxt1_baseline.encode(crop, b, b)
    p_ours = dxt1_baseline.psnr(gx.decode("CMPR", ours, b, b), crop)
    p_plain = dxt1_baseline.psnr(gx.decode("CMPR", plain, b, b), crop)
    full = gameanim.encode_texture(rgba, side, side, "CMPR")[0]
    p_full = dxt1_baseline.psnr(gameanim.decode_texture(full, "CMPR", side, side), rgba)

    print(f"image: {side}x{side} gradients + noise + edges (tests/dxt1_baseline.py mixed_image)")
    print(f"CMPR encode: {speeds['CMPR']:.2f} Mpixel/s wall, {cpu:.2f} Mpixel/s of CPU time (target >= 5)")
    print(f"CMPR PSNR on {b}x{b}: ours {p_ours:.2f} dB, plain DXT1-style fit {p_plain:.2f} dB "
          f"(+{p_ours - p_plain:.2f} dB); ours on the whole {side}x{side}: {p_full:.2f} dB")
    print("encode Mpixel/s per format:")
    for fmt in FORMATS:
        print(f"  {fmt:7s} {speeds[fmt]:8.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"side": side, "mpixel_s": speeds, "cmpr_cpu_mpixel_s": cpu, "psnr_ours": p_ours, "psnr_plain": p_plain,
                       "psnr_full": p_full, "baseline_side": b}, f, indent=1)


if __name__ == "__main__":
    main()
