#!/usr/bin/python3
"""Smoke test of topocoll-a2a-paper: runs it and checks its output.

    check_a2a_paper.py MODE CSV ITERS -- LAUNCH... topocoll-a2a-paper ARGS...

MODE ok:     exit status 0; the CSV is well formed (header, 16 fields, known
             figures and statuses, numbers, ITERS iterations per timed row,
             1 <= kept <= ITERS, min <= q1 <= median <= q3); figures 4-7 have
             rows (8 too when the world has 2 nodes or more); the summary line
             says every measured row was verified first (count = the timed and
             declined-free rows of Figures 5, 6 and 8) and none was wrong.
MODE wrong:  run with --inject-wrong: exit status 1, a row with status
             "wrong", and the summary counts it.
The program writes CSV to the file CSV (its --csv argument).
Prints "N passed, M failed"; exits 1 when a check failed.
"""
import csv
import os
import re
import subprocess
import sys

HEADER = ["figure", "setup", "comm", "p", "nodes", "algorithm", "block_bytes", "total_bytes",
          "iters", "kept", "mean_us", "median_us", "q1_us", "q3_us", "min_us", "status"]
SUMMARY = re.compile(r"(\d+) rows; verified (\d+) results before timing: (\d+) wrong, (\d+) failed")

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAILED: {what}")


def row_ok(r, iters):
    """'' when the row is well formed, else what is wrong."""
    try:
        fig, p, nodes = int(r["figure"]), int(r["p"]), int(r["nodes"])
        it, kept = int(r["iters"]), int(r["kept"])
        m, tot = int(r["block_bytes"]), int(r["total_bytes"])
        mean, med, q1, q3, mn = (float(r[k]) for k in ("mean_us", "median_us", "q1_us", "q3_us", "min_us"))
    except (TypeError, ValueError) as e:
        return f"not a number ({e})"
    if fig not in (4, 5, 6, 7, 8) or p < 1 or nodes < 1 or nodes > p:
        return "figure, p or nodes out of range"
    if r["status"] not in ("ok", "declined"):
        return f"status {r['status']}"
    if fig != 4 and tot != m * p:
        return "total_bytes is not p * block_bytes"
    if r["status"] == "declined":
        return "" if it == 0 else "a declined row with iterations"
    if fig != 4 and it != iters:
        return f"{it} iterations, expected {iters}"
    if not 1 <= kept <= it:
        return f"kept {kept} of {it}"
    if not (0 < mn <= q1 + 1e-9 and q1 <= med + 1e-9 and med <= q3 + 1e-9 and mean > 0):
        return "statistics out of order"
    return ""


def main():
    args = sys.argv[1:]
    if len(args) < 5 or args[3] != "--" or args[0] not in ("ok", "wrong"):
        sys.exit(__doc__)
    mode, path, iters, cmd = args[0], args[1], int(args[2]), args[4:]
    if os.path.exists(path):
        os.remove(path)   # a stale file must not pass
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=280)
    out = proc.stdout
    print(out[-4000:])
    summ = SUMMARY.search(out)
    check(summ is not None, "the summary line")
    try:
        with open(path, newline="") as f:
            rd = csv.reader(f)
            head = next(rd, None)
            rows = [dict(zip(HEADER, x)) if len(x) == len(HEADER) else None for x in rd]
    except OSError as e:
        check(False, f"reading {path}: {e}")
        return
    check(head == HEADER, f"header {head}")
    check(len(rows) > 0 and all(r is not None for r in rows), "16 fields in every row")
    rows = [r for r in rows if r is not None]
    if mode == "wrong":
        check(proc.returncode == 1, f"exit status {proc.returncode}, expected 1")
        check(any(r["status"] == "wrong" for r in rows), "a row with status wrong")
        check(summ is not None and int(summ.group(3)) >= 1, "the summary counts the wrong result")
        return
    check(proc.returncode == 0, f"exit status {proc.returncode}, expected 0")
    for i, r in enumerate(rows):
        why = row_ok(r, iters)
        check(why == "", f"row {i + 2}: {why}: {r}")
    figs = {int(r["figure"]) for r in rows if r["figure"].isdigit()}
    world_nodes = max((int(r["nodes"]) for r in rows if r["comm"] == "world"), default=0)
    want = {4, 5, 6, 7} | ({8} if world_nodes >= 2 else set())
    check(want <= figs, f"figures {sorted(figs)}, expected {sorted(want)}")
    measured = sum(1 for r in rows if r["figure"] in ("5", "6", "8") and r["status"] == "ok")
    if summ:
        check(int(summ.group(1)) == len(rows), f"summary says {summ.group(1)} rows, CSV has {len(rows)}")
        check(int(summ.group(2)) == measured and measured > 0,
              f"verified {summ.group(2)}, timed rows of figures 5, 6, 8: {measured}")
        check(summ.group(3) == "0" and summ.group(4) == "0", "no wrong result, no failure")
    algos = {r["algorithm"] for r in rows if r["figure"] == "5" and r["status"] == "ok"}
    for a in ("MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw", "pairwise", "auto"):
        check(a in algos, f"figure 5 measures {a}")


if __name__ == "__main__":
    try:
        main()
    except subprocess.TimeoutExpired:
        check(False, "the run timed out")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
