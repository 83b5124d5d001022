#!/usr/bin/python3
"""Smoke test of topocoll-bench --overlap: runs it and checks its CSV.

    check_overlap.py CSV NP ROWS [served] -- LAUNCH... topocoll-bench --overlap ... --csv CSV

Checks: exit status 0; the CSV has exactly the overlap mode's header; ROWS
rows, each with the collective, an implementation name, NP, a size, status
"ok", positive pure, blocking and total times, a compute time that is not
negative, 0 <= overlap_pct <= 100, t_persistent_us empty or positive,
oversubscribed 0, 1 or empty, iters, reps and test_calls whole numbers;
every size has the same implementations, native among them.  With
"served" (the interposer loaded): every entry named with -a served its own
nonblocking calls (served_by is its name or one of its variants').  No timing
assertion: only that the numbers are numbers in their ranges.
Prints "N passed, M failed"; exits 1 when a check failed.
"""
import csv
import subprocess
import sys

HEADER = ["coll", "algorithm", "bytes", "np", "t_pure_us", "t_blocking_us", "t_cpu_us",
          "t_total_us", "overlap_pct", "t_persistent_us", "oversubscribed", "iters", "reps",
          "test_calls", "served_by", "status"]

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAILED: {what}")


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def row_problem(r, np_):
    """'' when the row is well formed, else what is wrong."""
    if r["status"] != "ok":
        return f"status {r['status']!r}"
    if r["np"] != str(np_):
        return f"np {r['np']!r}, expected {np_}"
    if not r["bytes"].isdigit() or int(r["bytes"]) < 1:
        return f"bytes {r['bytes']!r}"
    for k in ("t_pure_us", "t_blocking_us", "t_total_us"):
        v = num(r[k])
        if v is None or not v > 0:
            return f"{k} {r[k]!r} is not a positive number"
    cpu = num(r["t_cpu_us"])
    if cpu is None or cpu < 0:
        return f"t_cpu_us {r['t_cpu_us']!r}"
    ov = num(r["overlap_pct"])
    if ov is None or not 0 <= ov <= 100:
        return f"overlap_pct {r['overlap_pct']!r} outside 0..100"
    if r["t_persistent_us"] != "" and not (num(r["t_persistent_us"]) or 0) > 0:
        return f"t_persistent_us {r['t_persistent_us']!r}"
    if r["oversubscribed"] not in ("0", "1", ""):
        return f"oversubscribed {r['oversubscribed']!r}"
    for k in ("iters", "reps", "test_calls"):
        if not r[k].isdigit():
            return f"{k} {r[k]!r}"
    if r["algorithm"] == "" or r["served_by"] == "":
        return "empty algorithm or served_by"
    return ""


def main():
    served = len(sys.argv) > 4 and sys.argv[4] == "served"
    dash = 5 if served else 4
    if len(sys.argv) < dash + 2 or sys.argv[dash] != "--":
        print(__doc__)
        return 2
    path, np_, nrows, cmd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[dash + 1:]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(run.stdout)
    check(run.returncode == 0, f"exit status {run.returncode}, expected 0")
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        check(False, f"cannot read {path}: {e}")
        rows = []
    check(bool(rows) and rows[0] == HEADER, f"header {rows[0] if rows else None}")
    body = [dict(zip(HEADER, r)) for r in rows[1:] if len(r) == len(HEADER)]
    check(len(body) == len(rows) - 1, "every row has the header's number of fields")
    check(len(body) == nrows, f"{len(body)} rows, expected {nrows}")
    for r in body:
        p = row_problem(r, np_)
        check(p == "", f"row {r.get('algorithm')} {r.get('bytes')}: {p}")
    impls = {}
    for r in body:
        impls.setdefault(r["bytes"], []).append(r["algorithm"])
    sets = {tuple(v) for v in impls.values()}
    check(len(sets) == 1, f"the sizes have different implementations: {sets}")
    check(all("native" in v for v in impls.values()), "native measured at every size")
    check(len({r["coll"] for r in body}) <= 1, "one collective")
    if served:
        for r in body:
            if r["algorithm"] not in ("native", "auto"):
                check(r["served_by"] != "native",
                      f"{r['algorithm']} {r['bytes']}: served by {r['served_by']!r}, not by topocoll")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
