#!/usr/bin/env python3
"""Persistent mode's margin over the fastest other mode, per cell of the bench matrix (issue 49's chart):
one bar per scene and size, its length the fastest other mode's frame time over persistent's (right of
1: persistent is the fastest, by that factor), labelled with that mode.

    tests/plot_margin.py OUT.svg TITLE CSV [CSV ...]

CSVs: `pkrt bench --csv` of every mode (tests/h200.sh matrix), rounds of the same cells; each cell's time
is the median of its rows. Standard library only."""
import csv
import statistics
import sys

NAMES = {"cornell": "Cornell box", "crytek-sponza": "Crytek Sponza", "bunnies-in-sponza": "bunnies in Sponza",
         "dabrovic-sponza": "Dabrovic Sponza", "metal-rough-spheres": "metal-rough spheres"}


def cells(paths):
    times = {}
    for path in paths:
        for r in csv.DictReader(open(path)):
            scene = r["scene"].split("/")[-1].removesuffix(".json")
            key = (scene, int(r["width"]), int(r["height"]), int(r["max_depth"]))
            times.setdefault(key, {}).setdefault(r["mode"], []).append(float(r["median_ms"]))
    out = []
    for key in sorted(times, key=lambda k: (list(NAMES).index(k[0]) if k[0] in NAMES else 99, k[1] * k[2])):
        t = {m: statistics.median(v) for m, v in times[key].items()}
        best = min((v, m) for m, v in t.items() if m != "persistent")
        out.append((key, best[0] / t["persistent"], best[1]))
    return out


def svg(rows, title):
    w, row_h, left, right, top = 760, 22, 230, 40, 50
    h = top + row_h * len(rows) + 50
    lo, hi = 0.7, 1.3
    px = lambda r: left + (min(max(r, lo), hi) - lo) / (hi - lo) * (w - left - right)
    e = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
         f'<rect width="{w}" height="{h}" fill="white"/>',
         f'<text x="10" y="20" font-size="14">{title}</text>',
         f'<text x="10" y="38" fill="#555">fastest other mode\'s frame time / persistent\'s (right of 1: persistent is fastest)</text>']
    for k in range(7):
        r = lo + k * 0.1
        x = px(r)
        e.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{h - 40}" stroke="{"#000" if abs(r - 1) < 1e-9 else "#ddd"}"/>')
        e.append(f'<text x="{x:.1f}" y="{h - 24}" text-anchor="middle">{r:.1f}</text>')
    for i, ((scene, width, height, depth), ratio, mode) in enumerate(rows):
        y = top + i * row_h
        size = "1080p" if (width, height) == (1920, 1080) else f"{width}²" if width == height else f"{width}x{height}"
        e.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end">{NAMES.get(scene, scene)} {size} d{depth}</text>')
        x0, x1 = sorted((px(1.0), px(ratio)))
        colour = "#1f77b4" if ratio > 1 else "#d62728"
        e.append(f'<rect x="{x0:.1f}" y="{y + 4}" width="{max(x1 - x0, 1):.1f}" height="{row_h - 8}" fill="{colour}"/>')
        label_x = px(ratio) + (4 if ratio > 1 else -4)
        e.append(f'<text x="{label_x:.1f}" y="{y + 15}" text-anchor="{"start" if ratio > 1 else "end"}" '
                 f'font-size="11">{ratio:.3f} {mode}</text>')
    e.append("</svg>")
    return "\n".join(e)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    open(sys.argv[1], "w").write(svg(cells(sys.argv[3:]), sys.argv[2]))
