#!/usr/bin/env python3
"""Sums Nsight Compute --csv metric rows per kernel (tests/h200.sh compare_kernels).

usage: ncu_compare.py RUN.csv [RUN.csv ...]   (each from `ncu --csv --metrics ...`)
Prints, per file and kernel: launches, total duration, warp instructions, thread instructions per warp
instruction (weighted by warp instructions), and the other metrics summed.
"""
import collections
import csv
import sys


def main():
    for path in sys.argv[1:]:
        rows = [r for r in csv.DictReader(l for l in open(path) if l.startswith('"'))]
        per = collections.OrderedDict()
        for r in rows:
            name = r["Kernel Name"].split("(")[0].split("<")[0].split("::")[-1]
            k = per.setdefault(name, collections.defaultdict(float))
            value = float(r["Metric Value"].replace(",", "")) if r["Metric Value"] else 0.0
            k[r["Metric Name"]] += value if not r["Metric Name"].endswith(".ratio") else 0.0
            if r["Metric Name"].endswith(".ratio"):
                k["_ratio_sum"] += value
                k["_ratio_n"] += 1
            if r["Metric Name"] == "gpu__time_duration.sum":
                k["_launches"] += 1
        print(f"== {path}")
        total_t = total_i = 0.0
        for name, k in per.items():
            t = k["gpu__time_duration.sum"] / 1e6  # ns -> ms
            i = k["smsp__inst_executed.sum"]
            total_t += t
            total_i += i
            ratio = k["_ratio_sum"] / k["_ratio_n"] if k["_ratio_n"] else 0.0
            extra = ", ".join(f"{m} {v:,.0f}" for m, v in k.items() if not m.startswith("_") and not m.endswith(".ratio") and m not in
                              ("gpu__time_duration.sum", "smsp__inst_executed.sum"))
            print(f"{name}: {int(k['_launches'])} launches, {t:.3f} ms, {i / 1e9:.3f} G warp instructions, "
                  f"{ratio:.1f} threads per instruction; {extra}")
        print(f"total: {total_t:.3f} ms, {total_i / 1e9:.3f} G warp instructions")


if __name__ == "__main__":
    main()
