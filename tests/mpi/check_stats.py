#!/usr/bin/env python3
"""Runs tests/mpi/stats_calls (np ranks, TOPOCOLL_ALLGATHER=ring) and checks
the run summary (TOPOCOLL_STATS) against the calls it makes.

    check_stats.py json VARIANT NP PATH -- COMMAND...   TOPOCOLL_STATS=PATH
    check_stats.py stderr VARIANT NP -- COMMAND...      TOPOCOLL_STATS=1

VARIANT says how the program ran:
    api       linked with topocoll, calling topocoll_* (no interposer)
    mpi       plain MPI, the interposer preloaded
    disabled  plain MPI, the interposer preloaded with TOPOCOLL_DISABLE=1
    threads   tests/mpi/test_threads (MPI_THREAD_MULTIPLE, 8 threads per
              rank counting at once; stderr only): one table, a row with
              calls for each of its collectives

The command must exit 0 and print "OK".  json: PATH must parse, and per
collective and communicator size the calls, bytes, algorithms (ring for the
world allgathers), the calls handed to the MPI library (inter-communicator,
TOPOCOLL_DISABLE, native) and the time over ranks must match.  stderr: the
table is printed once (rank 0, once per job) with the same call counts.
Prints "N passed, M failed"; exits 1 on any failure.
"""
import json
import os
import subprocess
import sys

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}")


def expected(variant, np):
    """{(collective, comm size): (calls, bytes, ring calls, handed {reason: calls})}."""
    inter = variant != "api" and np % 2 == 0
    e = {
        ("allgather", np): [3 + (2 if inter else 0), 3 * 40, 3, {}],
        ("bcast", np): [2 if variant == "api" else 3, None, 0, {}],
        ("reduce", np // 2): [8, 8 * 20, 0, {}],
        ("allgather", 1): [np, np * 4, None, {}],
    }
    if variant == "mpi" and inter:
        e[("allgather", np)][3] = {"inter-communicator": 2}
    if variant == "disabled":
        for k, v in e.items():
            v[1], v[2], v[3] = 0, 0, {"TOPOCOLL_DISABLE": v[0]}
    return e


def check_json(path, variant, np):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as err:
        check(False, f"{path}: {err}")
        return
    check(doc.get("ranks") == np, f"ranks {doc.get('ranks')}, expected {np}")
    check_learned(doc)
    groups = {(g["collective"], g["comm_size"]): g for g in doc.get("collectives", [])}
    for key, (calls, nbytes, ring, handed) in expected(variant, np).items():
        g = groups.get(key)
        check(g is not None, f"no entry for {key}")
        if g is None:
            continue
        algos, lib = g["algorithms"], g["mpi_library"]
        check(g["calls"] == calls, f"{key}: calls {g['calls']}, expected {calls}")
        if nbytes is not None:
            check(g["bytes"] == nbytes, f"{key}: bytes {g['bytes']}, expected {nbytes}")
        if ring is not None:
            check(algos.get("ring", 0) == ring, f"{key}: ring chosen {algos.get('ring', 0)} times, expected {ring}")
        for reason, n in handed.items():
            check(lib.get(reason, 0) == n, f"{key}: handed for {reason}: {lib.get(reason, 0)}, expected {n}")
        native = algos.get("native", 0)
        check(lib.get("native", 0) == native, f"{key}: native {native} but handed as native {lib.get('native', 0)}")
        handed_total = sum(handed.values()) + native
        check(lib["calls"] == handed_total, f"{key}: handed {lib['calls']}, expected {handed_total}")
        served = sum(algos.values())
        check(served + lib["calls"] - native == calls,
              f"{key}: algorithms {algos} + handed {lib['calls']} do not add up to {calls} calls")
        t = g["time_s"]
        if served:
            check(t["ranks"] == np and 0 < t["min"] <= t["median"] <= t["max"],
                  f"{key}: time over ranks {t}")
        else:
            check(t["ranks"] == 0, f"{key}: time of ranks that made no topocoll call: {t}")


def check_learned(doc):
    """The learning section (docs/learning.md): well formed where present."""
    learned = doc.get("learned", [])
    check(isinstance(learned, list), "learned: not a list")
    for e in learned if isinstance(learned, list) else []:
        for k in ("collective", "comm_size", "nodes", "ppn", "min_bytes", "winner", "winner_s", "native_s",
                  "runner_up_s", "explore_s", "calls", "tried_s", "dropped_s"):
            check(k in e, f"learned: no '{k}' in {e}")
        if "tried_s" in e and "winner" in e:
            check(e["winner"] in e["tried_s"], f"learned: the winner {e['winner']} not among {e['tried_s']}")


THREADS_COLLS = ["allgather", "bcast", "scatter", "gather", "reduce", "reduce_scatter_block"]


def check_stderr(out, variant, np):
    heads = [l for l in out.splitlines() if l.startswith("topocoll stats:")]
    check(len(heads) == 1, f"{len(heads)} summary tables, expected 1 (rank 0, once)")
    rows = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and line.startswith("  ") and f[1].isdigit() and f[2].isdigit():
            rows[(f[0], int(f[1]))] = (int(f[2]), line)
    if variant == "threads":
        for coll in THREADS_COLLS:
            calls = sum(c for (name, _), (c, _) in rows.items() if name == coll)
            check(calls > 0, f"no calls of {coll} in the summary")
        return
    for key, (calls, _, ring, handed) in expected(variant, np).items():
        row = rows.get(key)
        check(row is not None, f"no row for {key}")
        if row is None:
            continue
        check(row[0] == calls, f"{key}: {row[0]} calls, expected {calls}: {row[1]}")
        if ring:
            check(f"ring {ring}" in row[1], f"{key}: 'ring {ring}' not in: {row[1]}")
        for reason, n in handed.items():
            check(f"{reason} {n}" in row[1], f"{key}: '{reason} {n}' not in: {row[1]}")


def main(argv):
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    sep = argv.index("--")
    opts, cmd = argv[1:sep], argv[sep + 1:]
    mode, variant, np = opts[0], opts[1], int(opts[2])
    path = opts[3] if mode == "json" else None
    if path and os.path.exists(path):
        os.remove(path)
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(run.stdout, end="")
    check(run.returncode == 0, f"the program exited with status {run.returncode}")
    if variant != "threads":
        check("OK" in run.stdout.splitlines(), 'no line "OK"')
    if mode == "json":
        check_json(path, variant, np)
    else:
        check_stderr(run.stdout, variant, np)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
