#!/usr/bin/env python3
"""Error against time for issue 12's measurement: one SVG per scene, relMSE against seconds on log-log
axes, uniform sampling dashed and adaptive sampling solid, one colour per scheduler mode.

    tests/plot_error_time.py RESULTS_DIR OUT_PREFIX

RESULTS_DIR holds `pkrt render --stats` JSON files named u_<scene>_<mode>_<spp>.json (uniform) and
a_<scene>_<mode>_<E>.json (adaptive), each rendered with --reference; writes OUT_PREFIX<scene>.svg.
Standard library only."""
import glob
import json
import math
import os
import sys

COLOURS = {"persistent": "#1f77b4", "relaunch": "#d62728", "graph": "#2ca02c", "resident": "#9467bd", "megakernel": "#ff7f0e"}


def load(results):
    runs = {}
    for path in glob.glob(os.path.join(results, "[ua]_*.json")):
        kind, scene, mode, _ = os.path.basename(path)[:-5].split("_")
        j = json.load(open(path))
        runs.setdefault(scene, {}).setdefault((mode, kind), []).append((j["seconds"], j["reference"]["rel_mse"]))
    return runs


def svg(scene, series, out):
    w, h, left, right, top, bottom = 640, 420, 70, 150, 30, 50
    xs = [p[0] for pts in series.values() for p in pts]
    ys = [p[1] for pts in series.values() for p in pts]
    x0, x1 = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    px = lambda x: left + (math.log10(x) - x0) / (x1 - x0) * (w - left - right)
    py = lambda y: h - bottom - (math.log10(y) - y0) / (y1 - y0) * (h - top - bottom)
    e = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
         f'<rect width="{w}" height="{h}" fill="white"/>',
         f'<text x="{left}" y="18" font-size="14">{scene}: relMSE against render time (256², H200)</text>']
    for k in range(x0, x1 + 1):
        x = px(10 ** k)
        e.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{h - bottom}" stroke="#ddd"/>')
        e.append(f'<text x="{x:.1f}" y="{h - bottom + 16}" text-anchor="middle">{10.0 ** k:g} s</text>')
    for k in range(y0, y1 + 1):
        y = py(10 ** k)
        e.append(f'<line x1="{left}" y1="{y:.1f}" x2="{w - right}" y2="{y:.1f}" stroke="#ddd"/>')
        e.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">1e{k}</text>')
    y = py(1e-3)
    e.append(f'<line x1="{left}" y1="{y:.1f}" x2="{w - right}" y2="{y:.1f}" stroke="#888" stroke-dasharray="2,3"/>')
    e.append(f'<text x="{left + 4}" y="{y - 4:.1f}" fill="#666">relMSE 1e-3</text>')
    row = 0
    for (mode, kind), pts in sorted(series.items()):
        pts = sorted(pts)
        colour = COLOURS.get(mode, "#000")
        dash = ' stroke-dasharray="6,4"' if kind == "u" else ""
        path = " ".join(f"{px(x):.1f},{py(v):.1f}" for x, v in pts)
        e.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for x, v in pts:
            e.append(f'<circle cx="{px(x):.1f}" cy="{py(v):.1f}" r="3" fill="{colour}"/>')
        ly = top + 10 + 18 * row
        e.append(f'<line x1="{w - right + 10}" y1="{ly}" x2="{w - right + 40}" y2="{ly}" stroke="{colour}" stroke-width="2"{dash}/>')
        e.append(f'<text x="{w - right + 46}" y="{ly + 4}">{mode} {"uniform" if kind == "u" else "adaptive"}</text>')
        row += 1
    e.append(f'<text x="{(left + w - right) / 2:.0f}" y="{h - 12}" text-anchor="middle">seconds (log)</text>')
    e.append("</svg>")
    open(out, "w").write("\n".join(e) + "\n")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    for scene, series in sorted(load(sys.argv[1]).items()):
        svg(scene, series, sys.argv[2] + scene + ".svg")


if __name__ == "__main__":
    main()
