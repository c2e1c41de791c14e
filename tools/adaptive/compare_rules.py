#!/usr/bin/env python3
"""Adaptive sampling as pkrt renders it, against uniform sampling (issue 52): `pkrt render --target-error E
--adaptive-rule RULE` over a sweep of E and several seeds, and `--spp N` over powers of two, each image
against a reference. Prints, per rule, the mean samples, seconds and relMSE of each E; the samples and the
seconds each rule needs for the relMSE that uniform sampling reaches at --at spp (interpolated log-log),
over uniform's (the gain: above 1, adaptive sampling pays); and, at the E closest to that, the bias test
of the issue: per 32x32 block, the mean of the seeds' images against the reference in standard errors
of that mean (uniform's own blocks at --at spp beside it, as the calibration: a heavy tail, rarely
sampled, puts most means below the true one). With --svg, relMSE against seconds as a plot.

The reference is rendered once (--ref-spp, seed 999331) into the cache, where allocation_study.py keeps
its own: the two tools share it. Standard library only. Usage:
  compare_rules.py SCENE [--pkrt build/pkrt] [--res 128x72] [--seeds 4] [--at 256] [--ref-spp 32768]
                   [--rules stop,proportional] [--min-spp 16] [--max-spp 4096] [--svg out.svg] [-- PKRT_ARGS...]
"""
import json
import math
import os
import subprocess
import sys

from allocation_study import block_z, interpolate_spp, rel_mse
from noise_gain import read_pfm, scene_arguments


def render(a, extra, args, path):
    """Renders (cached by path) and returns (image, seconds, mean spp)."""
    stats = path + ".json"
    if not (os.path.exists(path) and os.path.exists(stats)):
        subprocess.run([a.pkrt, "render", a.scene, "--res", a.res, "-q", "-o", path + ".tmp.pfm", "--stats",
                        path + ".tmp.json"] + args + extra, check=True)
        os.replace(path + ".tmp.json", stats)
        os.replace(path + ".tmp.pfm", path)
    with open(stats) as f:
        st = json.load(f)
    spp = st["adaptive"]["spp"]["mean"] if "adaptive" in st else st["spp"]
    return read_pfm(path)[2], st["seconds"], spp


def interpolate(curve, target, key):
    """The value of `key` (0: spp, 1: seconds) at which a curve of (spp, seconds, relMSE) crosses target."""
    return interpolate_spp([(p[key], p[2]) for p in curve], target)


def svg_plot(path, title, curves):
    """relMSE against seconds, log-log, one polyline per curve."""
    pts = [p for c in curves.values() for p in c]
    x0, x1 = math.log10(min(p[1] for p in pts)), math.log10(max(p[1] for p in pts))
    y0, y1 = math.log10(min(p[2] for p in pts)), math.log10(max(p[2] for p in pts))
    w, h, m = 640, 420, 60
    sx = lambda v: m + (math.log10(v) - x0) / max(x1 - x0, 1e-9) * (w - 2 * m)
    sy = lambda v: h - m - (math.log10(v) - y0) / max(y1 - y0, 1e-9) * (h - 2 * m)
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
           f'font-size="12"><rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>',
           f'<text x="{w / 2}" y="{h - 15}" text-anchor="middle">seconds (log)</text>',
           f'<text x="15" y="{h / 2}" transform="rotate(-90 15 {h / 2})" text-anchor="middle">relMSE (log)</text>',
           f'<rect x="{m}" y="{m}" width="{w - 2 * m}" height="{h - 2 * m}" fill="none" stroke="#888"/>']
    for e in range(math.floor(x0), math.ceil(x1) + 1):
        if x0 <= e <= x1:
            out.append(f'<text x="{sx(10 ** e)}" y="{h - m + 16}" text-anchor="middle">{10 ** e:g}</text>')
    for e in range(math.floor(y0), math.ceil(y1) + 1):
        if y0 <= e <= y1:
            out.append(f'<text x="{m - 6}" y="{sy(10 ** e) + 4}" text-anchor="end">1e{e}</text>')
    for k, (name, c) in enumerate(curves.items()):
        col = colours[k % len(colours)]
        line = " ".join(f"{sx(p[1]):.1f},{sy(p[2]):.1f}" for p in sorted(c, key=lambda p: p[1]))
        out.append(f'<polyline points="{line}" fill="none" stroke="{col}" stroke-width="2"/>')
        out.append(f'<text x="{w - m - 120}" y="{m + 18 + 16 * k}" fill="{col}">{name}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap, argv, extra = scene_arguments(__doc__)
    ap.add_argument("--res", default="128x72")
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--at", type=int, default=256)
    ap.add_argument("--ref-spp", type=int, default=32768)
    ap.add_argument("--rules", default="stop,proportional")
    ap.add_argument("--min-spp", type=int, default=16)
    ap.add_argument("--max-spp", type=int, default=4096)
    ap.add_argument("--targets", default="0.3,0.2,0.14,0.1,0.07,0.05,0.035,0.025",
                    help="the sweep of --target-error")
    ap.add_argument("--cache", default=None)
    ap.add_argument("--svg", default=None)
    a = ap.parse_args(argv)
    cache = a.cache or os.path.join("/tmp", "allocation_study", os.path.basename(a.scene) + "_" + a.res)
    os.makedirs(cache, exist_ok=True)
    ref_path = os.path.join(cache, f"ref_{a.ref_spp}.pfm")  # allocation_study.py's, without statistics
    ref = (read_pfm(ref_path)[2] if os.path.exists(ref_path) else
           render(a, extra, ["--spp", str(a.ref_spp), "--seed", "999331"], ref_path)[0])
    w, h = map(int, a.res.split("x"))
    n = w * h
    tag = "_".join(extra).replace("/", "_") or "default"
    seeds = [1001 + s for s in range(a.seeds)]
    curves, images = {}, {}
    spp = a.min_spp
    while spp <= a.max_spp:
        runs = [render(a, extra, ["--spp", str(spp), "--seed", str(s)], os.path.join(cache, f"u_{tag}_{spp}_{s}.pfm"))
                for s in seeds]
        curves.setdefault("uniform", []).append((spp, sum(r[1] for r in runs) / len(runs),
                                                 sum(rel_mse(r[0], ref, n) for r in runs) / len(runs)))
        images[("uniform", spp)] = [r[0] for r in runs]
        spp *= 2
    target = dict((p[0], p[2]) for p in curves["uniform"])[a.at]
    for rule in a.rules.split(","):
        for e in map(float, a.targets.split(",")):
            args = ["--target-error", str(e), "--adaptive-rule", rule, "--min-spp", str(a.min_spp), "--max-spp",
                    str(a.max_spp)]
            name = f"{rule}_{tag}_{a.min_spp}_{a.max_spp}_{e}"
            runs = [render(a, extra, args + ["--seed", str(s)], os.path.join(cache, f"{name}_{s}.pfm"))
                    for s in seeds]
            point = (sum(r[2] for r in runs) / len(runs), sum(r[1] for r in runs) / len(runs),
                     sum(rel_mse(r[0], ref, n) for r in runs) / len(runs))
            curves.setdefault(rule, []).append(point)
            images[(rule, e)] = [r[0] for r in runs]
            print(f"  {rule:12s} E {e:<6g}: {point[0]:8.1f} spp, {point[1]:7.3f} s, relMSE {point[2]:.3e}", flush=True)
    print(f"\n{os.path.basename(a.scene)} {a.res}, {a.seeds} seeds: for relMSE {target:.3e} (uniform's at {a.at} spp)")
    u_spp, u_s = interpolate(curves["uniform"], target, 0), interpolate(curves["uniform"], target, 1)
    zu = block_z(images[("uniform", a.at)], ref, w, h)
    for name, c in curves.items():
        spp_at, s_at = interpolate(c, target, 0), interpolate(c, target, 1)
        line = f"  {name:12s} {spp_at:8.1f} spp, {s_at:7.3f} s: gain {u_spp / spp_at:.2f} in samples, {u_s / s_at:.2f} in time"
        if name != "uniform":  # the bias test at the E whose relMSE is closest to the target
            e = min(((k[1], abs(math.log(p[2] / target))) for k, p in
                     zip([k for k in images if k[0] == name], c)), key=lambda t: t[1])[0]
            zs = block_z(images[(name, e)], ref, w, h)
            line += (f"; blocks at E {e:g}: mean z {sum(zs) / max(len(zs), 1):+.2f}, |z|>3 in "
                     f"{sum(abs(z) > 3 for z in zs)}/{len(zs)}")
        else:
            line += (f"; blocks at {a.at} spp: mean z {sum(zu) / max(len(zu), 1):+.2f}, |z|>3 in "
                     f"{sum(abs(z) > 3 for z in zu)}/{len(zu)}")
        print(line)
    if a.svg:
        svg_plot(a.svg, f"{os.path.basename(a.scene)} {a.res}: relMSE against time", curves)


if __name__ == "__main__":
    main()
