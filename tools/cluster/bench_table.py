#!/usr/bin/env python3
"""Markdown table of a topocoll-bench CSV: one row per algorithm, one column
per size; native in microseconds, every other algorithm as its ratio to native
(below 1 is faster; the fastest of each size in bold).

  tools/cluster/bench_table.py bench.csv [> table.md]
"""
import csv
import sys


def size_label(b):
    for unit, n in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n}{unit}"
    return str(b)


def main(path):
    rows = list(csv.DictReader(open(path, newline="")))
    if not rows:
        sys.exit(f"{path}: no rows")
    sizes = sorted({int(r["bytes"]) for r in rows})
    algos = []
    for r in rows:
        if r["algorithm"] not in algos:
            algos.append(r["algorithm"])
    cell = {(r["algorithm"], int(r["bytes"])): r for r in rows}
    best = {}
    for s in sizes:
        ok = [(float(cell[a, s]["median_us"]), a) for a in algos
              if (a, s) in cell and cell[a, s]["status"] == "ok"]
        if ok:
            best[s] = min(ok)[1]
    r0 = rows[0]
    print(f"{r0['coll']}, np={r0['np']}, nodes={r0['nnodes']} ({r0['topology']}); "
          f"native in us, the others as time / native time; bold: fastest\n")
    print("| algorithm | " + " | ".join(size_label(s) for s in sizes) + " |")
    print("|---|" + "---:|" * len(sizes))
    for a in algos:
        out = []
        for s in sizes:
            c = cell.get((a, s))
            if not c or c["status"] != "ok":
                out.append("-")
                continue
            v = f"{float(c['median_us']):.0f} us" if a == "native" else f"{float(c['ratio_to_native']):.2f}"
            out.append(f"**{v}**" if best.get(s) == a else v)
        print(f"| `{a}` | " + " | ".join(out) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip())
    main(sys.argv[1])
