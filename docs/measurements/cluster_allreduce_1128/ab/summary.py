#!/usr/bin/env python3
"""Times per entry, size and build over the runs of one probe, with the link
bound (1.5 n at 117.75 MB/s) as a share.  usage: summary.py PREFIX [DIR]
(files PREFIX_<build>_<run>.csv, topocoll-bench CSVs)."""
import collections
import csv
import glob
import os
import statistics as st
import sys

prefix = sys.argv[1]
where = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__))
times = collections.defaultdict(list)
for path in glob.glob(os.path.join(where, prefix + "_*.csv")):
    build = os.path.basename(path)[len(prefix) + 1:].rsplit("_", 1)[0]
    for row in csv.DictReader(open(path)):
        times[(row["algorithm"], int(row["bytes"]), build)].append(float(row["median_us"]))
for (algo, size, build), v in sorted(times.items()):
    bound_us = 1.5 * size / 117.75e6 * 1e6
    print(f"{algo:26s} {size:8d} {build:8s} runs {len(v)}  median {st.median(v):9.0f} us"
          f"  min {min(v):9.0f}  max {max(v):9.0f}  bound/median {100 * bound_us / st.median(v):4.0f} %"
          f"  bound/min {100 * bound_us / min(v):4.0f} %")
