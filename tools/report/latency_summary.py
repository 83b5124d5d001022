#!/usr/bin/env python3
"""Summary of tools/cluster/bench_latency.sh launches: per layout and
collective, each algorithm's time over the native column of the same launch
(Open MPI's tuned; HAN in the han_ files), its range over the launches, and
the one-way latency that the bounds are counted in.

    python3 tools/report/latency_summary.py DIR [DIR ...] > summary.txt

Each DIR is one launch (its <coll>_<layout>_<order>.csv, han_*.csv and
pingpong_<layout>.txt).  The bound of a barrier or a scan across hosts is one
one-way latency: every host can tell every other of its arrival (its
node's partial result) in one step; one message per step would take
ceil(log2 H) latencies across H hosts.
"""

import csv
import glob
import math
import os
import re
import statistics
import sys


def read_csv(path):
    with open(path) as f:
        return {r["algorithm"]: float(r["median_us"]) for r in csv.DictReader(f)
                if r["status"] == "ok"}


def latency(path):
    try:
        with open(path) as f:
            m = re.findall(r"^median ([0-9.]+) us", f.read(), re.M)
        return float(m[-1]) if m else None
    except OSError:
        return None


def fmt_range(values):
    if not values:
        return "-"
    lo, hi = min(values), max(values)
    return f"{lo:.2f}" if abs(hi - lo) < 0.005 else f"{lo:.2f}-{hi:.2f}"


def main(dirs):
    table = {}      # (coll, layout, order, reference) -> algorithm -> [ratio per launch]
    times = {}      # the same -> algorithm -> [us per launch]
    lat = {}        # layout -> [us per launch]
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*.csv"))):
            name = os.path.basename(path)[:-4]
            han = name.startswith("han_")
            coll, layout, order = (name[4:] if han else name).split("_")
            rows = read_csv(path)
            if "native" not in rows:
                continue
            key = (coll, layout, order, "HAN" if han else "tuned")
            for algo, us in rows.items():
                table.setdefault(key, {}).setdefault(algo, []).append(us / rows["native"])
                times.setdefault(key, {}).setdefault(algo, []).append(us)
        for path in glob.glob(os.path.join(d, "pingpong_*.txt")):
            layout = os.path.basename(path)[9:-4]
            v = latency(path)
            if v is not None:
                lat.setdefault(layout, []).append(v)
    print(f"{len(dirs)} launches; time / the native column of the same launch "
          "(range over the launches), and the median time in us")
    for layout in sorted(lat):
        hosts = len(layout.split("-"))
        one_way = statistics.median(lat[layout])
        steps = math.ceil(math.log2(hosts)) if hosts > 1 else 0
        print(f"\nlayout {layout.replace('-', ',')} ({hosts} hosts): one-way latency "
              f"{fmt_us(lat[layout])} us; bound of a barrier or scan: one latency, {one_way:.0f} us "
              f"({steps} x {one_way:.0f} = {steps * one_way:.0f} us with one message per step)")
        for key in sorted(k for k in table if k[1] == layout):
            coll, _, order, ref = key
            print(f"  {coll} ({order}), native = {ref}:")
            for algo in sorted(table[key], key=lambda a: statistics.median(table[key][a])):
                print(f"    {algo:<20} {fmt_range(table[key][algo]):>10}   "
                      f"{statistics.median(times[key][algo]):8.0f} us")
    return 0


def fmt_us(values):
    lo, hi = min(values), max(values)
    return f"{lo:.0f}" if hi - lo < 0.5 else f"{lo:.0f}-{hi:.0f}"


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
