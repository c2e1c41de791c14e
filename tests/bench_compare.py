#!/usr/bin/env python3
"""Side-by-side table of two builds' `pkrt bench --csv` results (tests/h200.sh compare).

usage: bench_compare.py BASE.csv[,BASE2.csv...] NEW.csv[,NEW2.csv...]

Each build may have run several times (interleaved with the other, A B A B): a cell's time is the
median of its runs' medians. The last column is new / base: below 1.00 the new build is faster.
"""
import csv
import statistics
import sys


def load(paths):
    cells = {}
    for path in paths.split(","):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                key = (row["scene"], int(row["width"]), int(row["height"]), int(row["max_depth"]), row["mode"])
                cells.setdefault(key, []).append(float(row["median_ms"]))
    return {k: statistics.median(v) for k, v in cells.items()}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    base, new = load(sys.argv[1]), load(sys.argv[2])
    print("| scene | resolution | depth | mode | base ms | new ms | new / base |")
    print("|---|---|---:|---|---:|---:|---:|")
    worst = 0.0
    for key in sorted(base, key=lambda k: (k[0], k[1] * k[2], k[3], k[4])):
        if key not in new:
            continue
        scene, w, h, depth, mode = key
        ratio = new[key] / base[key] if base[key] > 0 else float("nan")
        worst = max(worst, ratio)
        print(f"| {scene.split('/')[-1]} | {w}x{h} | {depth} | {mode} | {base[key]:.3f} | {new[key]:.3f} | {ratio:.3f} |")
    print(f"\nslowest cell: new / base = {worst:.3f}")


if __name__ == "__main__":
    main()
