#!/usr/bin/env python3
"""Per size: native's time and every entry's ratio to native, per run, with
the link bound (FACTOR x n bytes out of each node at 117.75 MB/s; FACTOR 1.5
for the allreduce, the default, 12 for the alltoall of 4 hosts x 2 ranks,
n one block).  usage: table.py PREFIX [DIR [FACTOR]]
(files PREFIX_{tuned,han}_<run>.csv from topocoll-bench)."""
import collections
import csv
import glob
import os
import sys

prefix = sys.argv[1]
where = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__))
factor = float(sys.argv[3]) if len(sys.argv) > 3 else 1.5
t = collections.defaultdict(dict)          # (anchor, run) -> {(algo, size): ms}
for path in sorted(glob.glob(os.path.join(where, prefix + "_*.csv"))):
    anchor, run = os.path.basename(path)[len(prefix) + 1:-4].rsplit("_", 1)
    for r in csv.DictReader(open(path)):
        t[(anchor, run)][(r["algorithm"], int(r["bytes"]))] = float(r["median_us"]) / 1000
algos = sorted({a for d in t.values() for a, _ in d} - {"native"})
sizes = sorted({s for d in t.values() for _, s in d})
print("| bytes | run | native ms | " + " | ".join(algos) + " | bound ms |")
print("|---:|---|---:|" + "---:|" * len(algos) + "---:|")
for s in sizes:
    for key in sorted(t):
        d = t[key]
        if ("native", s) not in d:
            continue
        n = d[("native", s)]
        cells = [f"{d[(a, s)] / n:.2f}" if (a, s) in d else "" for a in algos]
        print(f"| {s} | {key[0]} {key[1]} | {n:.2f} | " + " | ".join(cells) +
              f" | {factor * s / 117.75e6 * 1e3:.2f} |")
