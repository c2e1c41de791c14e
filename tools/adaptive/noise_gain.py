#!/usr/bin/env python3
"""How much adaptive sampling could save on a scene (issue 52), from independent renders: each pixel's
relative variance per sample s^2(p) = spp * mean over channels of var / (mean^2 + 0.01), and

  G      = mean(s^2) / mean(s)^2: the samples uniform sampling needs over the best allocation's (samples in
           proportion to s(p)), for the same mean relMSE;
  G_half = G from each half of the renders alone (G overestimates the true gain by the noise in s^2; the
           two halves' mean against G extrapolates to infinitely many renders: 2 G - G_half);
  equal  = the equal-error rule's samples over uniform's (every pixel stops at the error E that gives a
           mean relMSE of 1e-3, n(p) = clamp(s^2 / E^2, min_spp, max_spp)).

Standard library only (the device's Python has numpy, this machine's does not). Usage:
  noise_gain.py SCENE [--pkrt build/pkrt] [--renders 8] [--spp 256] [--res 128x128] [--min-spp 16] [-- PKRT_ARGS...]
"""
import argparse
import array
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def read_pfm(path):
    with open(path, "rb") as f:
        kind = f.readline().strip()
        if kind != b"PF":
            sys.exit(f"{path}: not a colour PFM")
        w, h = map(int, f.readline().split())
        scale = float(f.readline())
        data = array.array("f")
        data.frombytes(f.read(w * h * 12))
        if (scale < 0) != (sys.byteorder == "little"):
            data.byteswap()
        return w, h, data


def gain(s2):
    n = len(s2)
    mean_s2 = sum(s2) / n
    mean_s = sum(x ** 0.5 for x in s2) / n
    return mean_s2 / (mean_s * mean_s)


def relative_variances(images, spp):
    """s^2 per pixel from a list of images (flat RGB arrays of one size)."""
    k = len(images)
    count = len(images[0]) // 3
    s2 = []
    for p in range(count):
        acc = 0.0
        for c in range(3):
            vals = [img[3 * p + c] for img in images]
            m = sum(vals) / k
            var = sum((v - m) ** 2 for v in vals) / (k - 1)
            acc += var / (m * m + 0.01)
        s2.append(spp * acc / 3.0)
    return s2


def equal_error_fraction(s2, min_spp, max_spp, target=1e-3):
    """The equal-error rule's mean samples over uniform's for mean relMSE `target`."""
    uniform = sum(s2) / len(s2) / target  # n such that mean(s^2) / n = target
    lo, hi = 1e-9, 1e3
    for _ in range(100):  # bisect E: mean over pixels of s^2 / n(p) = target
        e = (lo * hi) ** 0.5
        err = sum(x / min(max(x / (e * e), min_spp), max_spp) for x in s2) / len(s2)
        lo, hi = (e, hi) if err < target else (lo, e)
    e = (lo * hi) ** 0.5
    samples = sum(min(max(x / (e * e), min_spp), max_spp) for x in s2) / len(s2)
    return samples / uniform


def scene_arguments(doc):
    """A parser of SCENE and --pkrt for these tools, the command line's own arguments, and what follows
    `--` (passed to every `pkrt render`)."""
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scene")
    ap.add_argument("--pkrt", default=os.path.join(ROOT, "build", "pkrt"))
    return ap, argv, extra


def main():
    ap, argv, extra = scene_arguments(__doc__)
    ap.add_argument("--renders", type=int, default=8)
    ap.add_argument("--spp", type=int, default=256)
    ap.add_argument("--res", default="128x128")
    ap.add_argument("--min-spp", type=int, default=16)
    ap.add_argument("--max-spp", type=int, default=8192)
    a = ap.parse_args(argv)
    if a.renders < 4 or a.renders % 2:
        sys.exit("noise_gain: --renders must be even and at least 4")
    images = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(a.renders):
            out = os.path.join(tmp, f"r{k}.pfm")
            subprocess.run([a.pkrt, "render", a.scene, "--res", a.res, "--spp", str(a.spp), "--seed", str(1001 + k),
                            "-q", "-o", out] + extra, check=True)
            images.append(read_pfm(out)[2])
    s2 = relative_variances(images, a.spp)
    half = a.renders // 2
    g = gain(s2)
    g_half = 0.5 * (gain(relative_variances(images[:half], a.spp)) + gain(relative_variances(images[half:], a.spp)))
    print(f"{os.path.basename(a.scene)} {a.res}, {a.renders} renders of {a.spp} spp: G {g:.2f}, halves {g_half:.2f}, "
          f"extrapolated {2 * g - g_half:.2f}; equal-error rule {equal_error_fraction(s2, a.min_spp, a.max_spp):.3f} "
          f"of uniform's samples")


if __name__ == "__main__":
    main()
